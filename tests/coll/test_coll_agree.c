/* test_coll_agree.c — every rank gets the same bits from a floating-point
 * allreduce, whatever the entry, p, mesh shape, datatype and length.
 *
 * Every allreduce entry of the catalog (and the selector's choice) runs
 * in the in-process engine on adversarial floats (mantissas in [-1, 1]
 * scaled by 2^-20 .. 2^20, so that the result depends on the order in
 * which contributions are combined) for p in {2..8, 12, 16}, float,
 * double, bfloat16 and float16, lengths {1, 5, 100, 1000, 4099}, and,
 * for mesh-aware entries, every mesh shape of p with at most 3
 * dimensions.  Each case checks that every rank's result is bitwise rank
 * 0's, and that it is within 2*p*eps*sum|x| of the serial reference.
 * Reduce is checked against the reference the same way (one rank holds
 * the result, so there is nothing to agree on). */
#include "algo/mesh.h"
#include "matrix.h"

static const int agree_ps[] = {2, 3, 4, 5, 6, 7, 8, 12, 16};
static const ic_datatype_t agree_types[] = {IC_FLOAT, IC_DOUBLE, IC_BFLOAT16, IC_FLOAT16};
static const size_t agree_counts[] = {1, 5, 100, 1000, 4099};

static void run_entry(tally_t *t, const char *algo, bool mesh_aware, unsigned *seed)
{
    for (size_t pi = 0; pi < sizeof agree_ps / sizeof agree_ps[0]; pi++) {
        int p = agree_ps[pi];
        ic_mesh_t shapes[64];
        int ns = mesh_aware ? ic_mesh_factorizations(p, 3, shapes, 64) : 1;
        ns = ns > 64 ? 64 : ns;
        for (int si = 0; si < ns; si++)
            for (size_t ti = 0; ti < sizeof agree_types / sizeof agree_types[0]; ti++)
                for (size_t ci = 0; ci < sizeof agree_counts / sizeof agree_counts[0]; ci++) {
                    tcase_t c = {0};
                    c.coll = IC_COLL_ALLREDUCE;
                    c.algo = algo;
                    c.p = p;
                    c.count = agree_counts[ci];
                    c.dtype = agree_types[ti];
                    c.op = IC_SUM;
                    c.seed = (*seed)++;
                    c.mesh = mesh_aware ? &shapes[si] : NULL;
                    c.agree = true;
                    c.in_place = ci == 2;
                    check_case(t, &c);
                }
    }
}

int main(void)
{
    harness_init();
    tally_t t = {0};
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    unsigned seed = 101;
    for (size_t a = 0; a < ncat; a++)
        if (cat[a].coll == IC_COLL_ALLREDUCE && !(cat[a].flags & IC_ALGO_POW2))
            run_entry(&t, cat[a].name, (cat[a].flags & IC_ALGO_MESH) != 0, &seed);
    run_entry(&t, NULL, false, &seed); /* the selector's choice */
    return finish(&t, "test_coll_agree");
}
