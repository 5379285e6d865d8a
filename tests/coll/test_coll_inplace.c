/* test_coll_inplace.c — the IC_IN_PLACE form of every collective that has
 * one, every algorithm, at p = 1..17 and 33, every root up to 17 for the
 * rooted ones, several counts, v-shapes and layouts. */
#include "matrix.h"

int main(void)
{
    harness_init();
    tally_t t = {0};
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    unsigned seed = 11;
    const size_t counts[] = {0, 1, 5, 1000};
    for (size_t a = 0; a < ncat; a++) {
        ic_coll_t coll = cat[a].coll;
        if (!coll_in_place_ok(coll))
            continue;
        for (int p = 1; p <= 33; p += (p < 17 ? 1 : 16)) {
            for (int root = 0; root < (coll_rooted(coll) ? p : 1); root += (p > 8 ? 3 : 1))
                for (int ci = 0; ci < 4; ci++) {
                    tcase_t c = {0};
                    c.coll = coll;
                    c.algo = cat[a].name;
                    c.p = p;
                    c.root = root;
                    c.count = counts[ci];
                    c.dtype = IC_INT64;
                    c.op = IC_SUM;
                    c.in_place = true;
                    c.seed = seed++;
                    c.vcounts = (vcounts_t)(c.seed % 4);
                    c.vlayout = (vlayout_t)((c.seed / 4) % 3);
                    check_case(&t, &c);
                }
        }
    }
    return finish(&t, "test_coll_inplace");
}
