/* test_coll_types.c — every datatype with every operation that applies to
 * it, through every reduction collective and every algorithm, at a few p
 * (non-powers of two included); every datatype through every
 * data-movement collective. */
#include "matrix.h"

int main(void)
{
    harness_init();
    tally_t t = {0};
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    const int ps[] = {3, 8, 13};
    unsigned seed = 7;
    for (size_t a = 0; a < ncat; a++) {
        ic_coll_t coll = cat[a].coll;
        for (int d = 0; d < IC_DATATYPE_COUNT; d++)
            for (int k = 0; k < IC_OP_KIND_COUNT; k++) {
                if (coll_reduces(coll) ? !ic_op_kind_applies((ic_op_kind_t)k, (ic_datatype_t)d)
                                       : k > 0)
                    continue;
                for (int pi = 0; pi < 3; pi++) {
                    tcase_t c = {0};
                    c.coll = coll;
                    c.algo = cat[a].name;
                    c.p = ps[pi];
                    c.root = (int)(seed % (unsigned)ps[pi]);
                    c.count = 37;
                    c.dtype = (ic_datatype_t)d;
                    c.op = coll_reduces(coll) ? ic_predefined_ops_[k] : NULL;
                    c.seed = seed++;
                    c.vcounts = V_RANDOM;
                    check_case(&t, &c);
                }
            }
    }
    /* Random reals: the order of reduction differs between algorithms, so
     * these are compared with a tolerance (4 p^2 eps; see harness.c). */
    for (size_t a = 0; a < ncat; a++) {
        if (!coll_reduces(cat[a].coll))
            continue;
        const ic_datatype_t fts[] = {IC_FLOAT, IC_DOUBLE, IC_BFLOAT16, IC_FLOAT16};
        for (int f = 0; f < 4; f++)
            for (int pi = 0; pi < 3; pi++) {
                tcase_t c = {0};
                c.coll = cat[a].coll;
                c.algo = cat[a].name;
                c.p = ps[pi];
                c.count = 1001;
                c.dtype = fts[f];
                c.op = IC_SUM;
                c.seed = seed++;
                c.random_floats = true;
                check_case(&t, &c);
            }
    }
    return finish(&t, "test_coll_types");
}
