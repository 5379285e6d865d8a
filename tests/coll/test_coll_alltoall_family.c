/* test_coll_alltoall_family.c — the alltoall family (bruck, aap, aap_dual,
 * dr, quadrant) forced by name through the in-process engine against the
 * serial reference: many p (powers of two and not: AAP must refuse the
 * others), counts 0, 1, 3, 100 of int32 and one float case, in place, the
 * v-forms of AAP under every shape of counts and displacement layout, dr
 * on the line, every 2-D and every 3-D factorisation of p (plus meshes
 * with dimensions of 1), and quadrant on 2x2, 4x4, 8x8 (also given as
 * 1xSxS, SxSx1 and no mesh) with large and odd counts in and out of
 * place, refusing every other p and every other mesh of p; the v-forms
 * of bruck and dr (a size exchange first) under every shape of counts and
 * layout, in place and not, dr on every mesh. */
#include "harness.h"
#include "select/catalog.h"

#include <stdio.h>

static const int ps[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  12, 13, 15,
                         16, 17, 18, 24, 30, 31, 32, 33, 36, 60, 64};
#define NP ((int)(sizeof ps / sizeof ps[0]))
static const size_t counts[] = {0, 1, 3, 100};
#define NC ((int)(sizeof counts / sizeof counts[0]))

static unsigned seed = 1;

/* Counts of int32, one float case and one in-place case for algo on p
 * ranks (mesh may be NULL). */
static void run_basic(tally_t *t, const char *algo, int p, const ic_mesh_t *mesh)
{
    tcase_t c = {0};
    c.coll = IC_COLL_ALLTOALL;
    c.algo = algo;
    c.p = p;
    c.mesh = mesh;
    c.dtype = IC_INT32;
    for (int k = 0; k < NC; k++) {
        c.count = counts[k];
        c.seed = seed++;
        check_case(t, &c);
    }
    c.dtype = IC_FLOAT;
    c.count = 7;
    c.seed = seed++;
    check_case(t, &c);
    c.dtype = IC_INT32;
    c.count = 5;
    c.in_place = true;
    c.seed = seed++;
    check_case(t, &c);
}

int main(void)
{
    harness_init();
    tally_t t = {0};
    const char *plain[] = {"bruck", "aap", "aap_dual"};
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < NP; i++)
            run_basic(&t, plain[a], ps[i], NULL);

    /* The v-forms of AAP: every shape of counts and layout of
     * displacements, and in place. */
    const char *vnames[] = {"aap", "aap_dual"};
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < NP; i++) {
            tcase_t c = {0};
            c.coll = IC_COLL_ALLTOALLV;
            c.algo = vnames[a];
            c.p = ps[i];
            c.dtype = IC_INT32;
            c.count = 5;
            for (int v = 0; v < 4; v++)
                for (int l = 0; l < 3; l++) {
                    c.vcounts = (vcounts_t)v;
                    c.vlayout = (vlayout_t)l;
                    c.seed = seed++;
                    c.in_place = false;
                    check_case(&t, &c);
                    c.in_place = true;
                    c.seed = seed++;
                    check_case(&t, &c);
                }
        }

    /* The v-forms of Bruck and DR (size exchange first): every shape of
     * counts (zeros and everything to one rank among them) and layout of
     * displacements, in place too with random counts and with zeros, at
     * every p; DR also on every mesh of p with random counts. */
    const char *fwd[] = {"bruck", "dr"};
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < NP; i++) {
            tcase_t c = {0};
            c.coll = IC_COLL_ALLTOALLV;
            c.algo = fwd[a];
            c.p = ps[i];
            c.dtype = IC_INT32;
            c.count = 5;
            for (int v = 0; v < 4; v++)
                for (int l = 0; l < 3; l++)
                    for (int ip = 0; ip < (v == V_RANDOM || v == V_ZEROS ? 2 : 1); ip++) {
                        c.vcounts = (vcounts_t)v;
                        c.vlayout = (vlayout_t)l;
                        c.in_place = ip;
                        c.seed = seed++;
                        check_case(&t, &c);
                    }
            if (a == 0)
                continue;
            ic_mesh_t meshes[128];
            int n = ic_mesh_factorizations(ps[i], 3, meshes, 128);
            for (int k = 0; k < n && k < 128; k++)
                for (int ip = 0; ip < 2; ip++) {
                    c.mesh = &meshes[k];
                    c.vcounts = V_RANDOM;
                    c.vlayout = L_GAPS;
                    c.in_place = ip;
                    c.seed = seed++;
                    check_case(&t, &c);
                }
        }

    /* dr on every mesh of p with at most three dimensions, and on a few
     * meshes with dimensions of 1 (skipped stages). */
    for (int i = 0; i < NP; i++) {
        int p = ps[i];
        ic_mesh_t meshes[128];
        int n = ic_mesh_factorizations(p, 3, meshes, 128);
        if (n > 128) {
            printf("FAIL p=%d: %d factorisations, more than the test holds\n", p, n);
            t.failed++;
            n = 128;
        }
        for (int k = 0; k < n; k++)
            run_basic(&t, "dr", p, &meshes[k]);
        ic_mesh_t ones[3] = {{2, {1, p}}, {2, {p, 1}}, {3, {1, p, 1}}};
        for (int k = 0; k < 3; k++)
            run_basic(&t, "dr", p, &ones[k]);
        run_basic(&t, "dr", p, NULL); /* no mesh: the line */
    }

    /* quadrant on the squares 2^j x 2^j: the mesh given (also with
     * dimensions of 1) or not (the square of p is chosen), more counts
     * (odd, and large for the size of p), in place. */
    for (int side = 2; side <= 8; side *= 2) {
        int p = side * side;
        ic_mesh_t sq[3] = {{2, {side, side}}, {3, {1, side, side}}, {3, {side, side, 1}}};
        for (int k = 0; k < 3; k++)
            run_basic(&t, "quadrant", p, &sq[k]);
        run_basic(&t, "quadrant", p, NULL);
        size_t more[] = {2, 5, 17, side == 2 ? 65539u : side == 4 ? 4099u : 1001u};
        for (int k = 0; k < 4; k++)
            for (int ip = 0; ip < 2; ip++) {
                tcase_t c = {0};
                c.coll = IC_COLL_ALLTOALL;
                c.algo = "quadrant";
                c.p = p;
                c.mesh = ip ? &sq[0] : NULL;
                c.dtype = k == 2 ? IC_UINT8 : IC_INT32;
                c.count = more[k];
                c.in_place = ip;
                c.seed = seed++;
                check_case(&t, &c);
            }
    }
    /* quadrant refuses (by name, "2^j x 2^j") every p that is not 4^j and
     * every other mesh of p = 4^j. */
    for (int i = 0; i < NP; i++) {
        int p = ps[i];
        ic_mesh_t meshes[128];
        int n = ic_mesh_factorizations(p, 3, meshes, 128);
        for (int k = 0; k < n && k < 128; k++) {
            tcase_t c = {0};
            c.coll = IC_COLL_ALLTOALL;
            c.algo = "quadrant";
            c.p = p;
            c.mesh = &meshes[k];
            c.dtype = IC_INT32;
            c.count = 3;
            c.seed = seed++;
            check_case(&t, &c);
        }
        tcase_t c = {0};
        c.coll = IC_COLL_ALLTOALL;
        c.algo = "quadrant";
        c.p = p;
        c.dtype = IC_INT32;
        c.count = 1;
        c.seed = seed++;
        check_case(&t, &c);
    }
    return finish(&t, "test_coll_alltoall_family");
}
