/* test_coll_subcomm.c — collectives on sub-communicators: split into
 * even and odd ranks with reversed keys, and explicit rank lists; the two
 * halves of a split run at the same time on one world, so messages of the
 * two communicators must never cross. */
#include "core/comm.h"
#include "matrix.h"

#include <stdio.h>

/* Members (world ranks) of the split of world_size ranks by color = rank %
 * 2, key = -rank, for the member whose world rank is me. */
static int split_even_odd(int world_size, int me, int *members)
{
    int colors[128], keys[128], newrank;
    for (int i = 0; i < world_size; i++) {
        colors[i] = i % 2;
        keys[i] = -i;
    }
    return ic_split_members(world_size, colors, keys, me, members, &newrank);
}

/* p = 4^j with j >= 1. */
static bool is_4j(int p)
{
    int s = 2;
    while (s * s < p)
        s *= 2;
    return s * s == p;
}

int main(void)
{
    harness_init();
    tally_t t = {0};
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    unsigned seed = 5;
    const int worlds[] = {2, 3, 7, 10, 17, 33};
    for (size_t a = 0; a < ncat; a++) {
        for (int wi = 0; wi < 6; wi++) {
            int W = worlds[wi], even[128], odd[128];
            int ne = split_even_odd(W, 0, even), no = split_even_odd(W, 1, odd);
            /* Entries for powers of two: the pair runs only where both
             * halves are (the list below checks the refusal); the same for
             * the entry for 2^j x 2^j meshes (quadrant) and p = 4^j. */
            bool pair = !(cat[a].flags & IC_ALGO_POW2) || !((ne & (ne - 1)) || (no & (no - 1)));
            if (cat[a].flags & IC_ALGO_SQUARE_MESH)
                pair = pair && is_4j(ne) && is_4j(no);
            tcase_t c1 = {0}, c2;
            c1.coll = cat[a].coll;
            c1.algo = cat[a].name;
            c1.p = ne;
            c1.root = ne - 1;
            c1.count = 17;
            c1.dtype = IC_INT32;
            c1.op = IC_SUM;
            c1.seed = seed++;
            c1.vcounts = V_RANDOM;
            c1.vlayout = L_GAPS;
            c1.world = even;
            c2 = c1;
            c2.p = no;
            c2.root = 0;
            c2.seed = seed++;
            c2.world = odd;
            char msg[512], d[256];
            if (!pair) {
                /* not run */
            } else if (no == 0 ? run_case(&c1, msg, sizeof msg, NULL) == 0
                               : run_pair(&c1, &c2, W, msg, sizeof msg) == 0) {
                t.passed++;
            } else if (t.failed++ < 20) {
                describe(&c1, d, sizeof d);
                printf("FAIL split of %d: %s: %s\n", W, d, msg);
            }
            /* An explicit rank list: every third rank, in reverse order. */
            int list[128], n = 0;
            for (int i = W - 1; i >= 0; i -= 3)
                list[n++] = i;
            tcase_t c3 = c1;
            c3.p = n;
            c3.root = n / 2;
            c3.world = list;
            c3.world_size = W;
            c3.seed = seed++;
            check_case(&t, &c3);
        }
    }
    return finish(&t, "test_coll_subcomm");
}
