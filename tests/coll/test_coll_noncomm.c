/* test_coll_noncomm.c — a non-commutative user operation (composition of
 * affine maps, harness.c) through every algorithm that accepts one: the result
 * must be the product in rank order.  Algorithms that need a commutative
 * operation must refuse it with IC_ERR_NOT_APPLICABLE. */
#include "matrix.h"

#include <stdio.h>

int main(void)
{
    harness_init();
    tally_t t = {0};
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    unsigned seed = 3;
    for (size_t a = 0; a < ncat; a++) {
        if (!coll_reduces(cat[a].coll))
            continue;
        bool refuses = cat[a].flags & IC_ALGO_COMMUTATIVE;
        for (int pi = 0; pi < MATRIX_NP; pi++) {
            int p = matrix_ps[pi];
            for (int root = 0; root < (coll_rooted(cat[a].coll) ? p : 1); root += 1 + p / 5)
                for (int ip = 0; ip < 2; ip++) {
                    tcase_t c = {0};
                    c.coll = cat[a].coll;
                    c.algo = cat[a].name;
                    c.p = p;
                    c.root = root;
                    c.count = 4 * (size_t)(1 + seed % 5) + seed % 3;
                    c.dtype = IC_INT64;
                    c.op = noncomm_op;
                    c.in_place = ip;
                    c.seed = seed++;
                    c.vcounts = V_EVEN;
                    char msg[512], d[256];
                    int fail = run_case(&c, msg, sizeof msg, NULL);
                    bool refused = fail && strstr(msg, "not apply") != NULL;
                    if (refuses ? refused : !fail) {
                        t.passed++;
                        continue;
                    }
                    if (t.failed++ < 20) {
                        describe(&c, d, sizeof d);
                        printf("FAIL %s: %s\n", d, refuses ? "should refuse" : msg);
                    }
                }
        }
    }
    return finish(&t, "test_coll_noncomm");
}
