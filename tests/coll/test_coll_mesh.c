/* test_coll_mesh.c — every mesh-aware entry (flag IC_ALGO_MESH) forced by
 * name on every mesh shape of p (the line, every 2-D and 3-D
 * factorisation) for p in {4, 6, 8, 9, 12, 15, 16, 18, 24, 30, 32, 36, 60,
 * 64} and primes, compared with the serial reference: every root up to
 * p = 9 and three above,
 * counts {0, 1, p+1} (1000 and 65539 on the 1-D and 2-D shapes of small p;
 * at p >= 36, 1000 on every other shape),
 * int32 and float,
 * in-place, and the v-count shapes and displacement layouts of the
 * v-forms; the hybrids (p >= 8) once more with shared links priced
 * (beta_net), where they may take the dimension alternation.
 * IC_TEST_EXHAUSTIVE=1 adds every root and more counts;
 * IC_TEST_SAMPLED=1 (the sanitizer stage) keeps every root only up to p = 4
 * and the counts 1000 and 65539 only up to p = 9. */
#include "algo/mesh.h"
#include "matrix.h"

static const int mesh_ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 15, 16, 18, 24, 30, 31, 32, 36, 60, 64};

int main(void)
{
    harness_init();
    tally_t t = {0};
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    const char *ex = getenv("IC_TEST_EXHAUSTIVE");
    bool exhaustive = ex && ex[0] == '1';
    unsigned seed = 11;
    ic_model_t links = ic_model_default();
    links.beta_net = links.beta;
    for (size_t a = 0; a < ncat; a++) {
        if (!(cat[a].flags & IC_ALGO_MESH))
            continue;
        ic_coll_t coll = cat[a].coll;
        bool hybrid = !strcmp(cat[a].name, "hybrid") || !strcmp(cat[a].name, "mst_sc") ||
                      !strcmp(cat[a].name, "mst_dg");
        bool v = coll == IC_COLL_ALLGATHERV || coll == IC_COLL_REDUCE_SCATTER;
        for (size_t pi = 0; pi < sizeof mesh_ps / sizeof mesh_ps[0]; pi++) {
            int p = mesh_ps[pi];
            ic_mesh_t shapes[256];
            int ns = ic_mesh_factorizations(p, 3, shapes, 256);
            ns = ns > 256 ? 256 : ns;
            for (int si = 0; si < ns; si++) {
                int roots[64], nr = 1;
                roots[0] = 0;
                if (coll_rooted(coll)) { /* every root up to p = 9, three above */
                    bool all = exhaustive || p <= (test_sampled() ? 4 : 9);
                    nr = all ? p : 3;
                    for (int r = 0; r < nr; r++)
                        roots[r] = all ? r : (int)((seed + (unsigned)r * 7u) % (unsigned)p);
                }
                size_t counts[6] = {0, 1, (size_t)p + 1, 1000, 65539, 7};
                /* Large counts on the line and 2-D shapes of small p (the
                 * other shapes reuse the same blocks on smaller slabs). */
                int nc = exhaustive ? 5 : shapes[si].d == 3 ? 3 : p <= 16 ? 5 : 4;
                if (coll == IC_COLL_ALLTOALLV && !exhaustive)
                    nc = 3; /* alltoallv/dr: alltoall/dr runs its schedule on long blocks */
                /* p >= 36 (many shapes: 32 of 60): the count 1000 on every
                 * other shape, the line always.  Under the sanitizers
                 * (IC_TEST_SAMPLED=1) the long counts only up to p = 9. */
                if (!exhaustive && p >= 36 && si % 2 == 1 && nc > 3)
                    nc = 3;
                if (!exhaustive && test_sampled() && p > 9 && nc > 3)
                    nc = 3;
                for (int ri = 0; ri < nr; ri++)
                    for (int ci = 0; ci < nc; ci++) {
                        tcase_t c = {0};
                        c.coll = coll;
                        c.algo = cat[a].name;
                        c.p = p;
                        c.root = roots[ri];
                        c.count = counts[ci];
                        c.dtype = seed & 1 ? IC_FLOAT : IC_INT32;
                        c.op = IC_SUM;
                        c.seed = seed++;
                        c.mesh = &shapes[si];
                        c.vcounts = (vcounts_t)(seed % 4);
                        c.vlayout = (vlayout_t)(seed / 4 % 3);
                        c.in_place = coll_in_place_ok(coll) && ci == 2;
                        if (matrix_bytes(coll, p, c.count, 4) > 64e6)
                            continue;
                        check_case(&t, &c);
                        if (hybrid && p >= 8) {
                            /* Shared links priced: the hybrids also try the
                             * dimension alternation (cost_mesh.c), whose
                             * pieces are not in rank order. */
                            c.model = &links;
                            c.seed = seed++;
                            check_case(&t, &c);
                            c.model = NULL;
                        }
                        if (v && ci == 3) { /* every v-count shape once more */
                            for (int vs = 0; vs < 4; vs++) {
                                c.vcounts = (vcounts_t)vs;
                                c.seed = seed++;
                                check_case(&t, &c);
                            }
                        }
                    }
            }
        }
    }
    return finish(&t, "test_coll_mesh");
}
