/* test_coll_smoke.c — one small case per catalog entry (a quick signal
 * before the long matrices). */
#include "harness.h"
#include "select/catalog.h"

int main(void)
{
    harness_init();
    tally_t t = {0};
    size_t n;
    const ic_algo_t *cat = ic_catalog(&n);
    for (size_t i = 0; i < n; i++) {
        int ps[] = {1, 2, 3, 5, 8, 13};
        for (int pi = 0; pi < 6; pi++) {
            tcase_t c = {0};
            c.coll = cat[i].coll;
            c.algo = cat[i].name;
            c.p = ps[pi];
            c.root = ps[pi] - 1;
            c.count = 7;
            c.dtype = IC_INT32;
            c.op = IC_SUM;
            c.vcounts = V_RANDOM;
            c.vlayout = L_GAPS;
            c.seed = 1;
            check_case(&t, &c);
        }
    }
    return finish(&t, "test_coll_smoke");
}
