/* test_coll_vcounts.c — the v-forms under every shape of counts (even,
 * random, with zeros, everything to one rank) and every displacement
 * layout (packed, gaps, reversed order), every algorithm, every root up to
 * p = 17 and a sample above. */
#include "matrix.h"

int main(void)
{
    harness_init();
    tally_t t = {0};
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    unsigned seed = 13;
    for (size_t a = 0; a < ncat; a++) {
        ic_coll_t coll = cat[a].coll;
        if (!coll_v(coll))
            continue;
        for (int pi = 0; pi < MATRIX_NP; pi++) {
            int p = matrix_ps[pi], roots[17];
            int nr = coll_rooted(coll) ? matrix_roots(p, roots) : (roots[0] = 0, 1);
            for (int ri = 0; ri < nr; ri++)
                for (int v = 0; v < 4; v++)
                    for (int l = 0; l < 3; l++) {
                        if (coll == IC_COLL_REDUCE_SCATTER && l > 0)
                            continue; /* no displacements */
                        tcase_t c = {0};
                        c.coll = coll;
                        c.algo = cat[a].name;
                        c.p = p;
                        c.root = roots[ri];
                        c.count = p > 33 ? 9 : 33;
                        c.dtype = IC_UINT16;
                        c.op = IC_MAX;
                        c.vcounts = (vcounts_t)v;
                        c.vlayout = (vlayout_t)l;
                        c.seed = seed++;
                        check_case(&t, &c);
                    }
        }
    }
    return finish(&t, "test_coll_vcounts");
}
