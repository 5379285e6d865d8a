/* test_coll_counts_at_root.c — scatterv and gatherv with MPI's convention
 * for the counts (ic_coll_args_t.counts_at_root, what the MPI drop-in
 * uses): the root has every count, every other rank only its own (its
 * array's other entries are poisoned, its displacements NULL).  Every p of
 * the matrix, every root, every shape of counts (zeros included) and
 * displacement layout at the root, in place at the root: the selector must
 * take the direct entry and every rank's result must match the serial
 * reference; forcing an entry that reads every count must be refused by
 * name. */
#include "matrix.h"

#include <string.h>

int main(void)
{
    harness_init();
    tally_t t = {0};
    unsigned seed = 29;
    const ic_coll_t colls[2] = {IC_COLL_SCATTERV, IC_COLL_GATHERV};
    for (int k = 0; k < 2; k++)
        for (int pi = 0; pi < MATRIX_NP; pi++) {
            int p = matrix_ps[pi], roots[17];
            int nr = matrix_roots(p, roots);
            for (int ri = 0; ri < nr; ri++)
                for (int v = 0; v < 4; v++)
                    for (int l = 0; l < 3; l++)
                        for (int ip = 0; ip < 2; ip++) {
                            tcase_t c = {0};
                            c.coll = colls[k];
                            c.p = p;
                            c.root = roots[ri];
                            c.count = p > 33 ? 9 : 33;
                            c.dtype = IC_UINT16;
                            c.vcounts = (vcounts_t)v;
                            c.vlayout = (vlayout_t)l;
                            c.in_place = ip;
                            c.counts_at_root = true;
                            c.seed = seed++;
                            char msg[512], d[256];
                            const char *chosen = NULL;
                            int rc = run_case(&c, msg, sizeof msg, &chosen);
                            if (rc == 0 && (!chosen || strcmp(chosen, "direct") != 0)) {
                                rc = 1;
                                snprintf(msg, sizeof msg, "the selector took '%s', not 'direct'",
                                         chosen ? chosen : "(none)");
                            }
                            if (rc == 0) {
                                c.algo = "direct";
                                rc = run_case(&c, msg, sizeof msg, NULL);
                            }
                            if (rc == 0 && p > 1) {
                                c.algo = "mst";
                                rc = run_case(&c, msg, sizeof msg, NULL) == 0 ||
                                     !strstr(msg, "at the root only");
                                if (rc)
                                    snprintf(msg, sizeof msg,
                                             "forcing mst was not refused by name");
                            }
                            if (rc == 0) {
                                t.passed++;
                                continue;
                            }
                            if (t.failed++ < 20) {
                                describe(&c, d, sizeof d);
                                printf("FAIL %s: %s\n", d, msg);
                            }
                        }
        }
    return finish(&t, "test_coll_counts_at_root");
}
