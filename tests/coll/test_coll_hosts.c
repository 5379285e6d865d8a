/* test_coll_hosts.c — collectives across hosts in the in-process engine:
 * the leaders' entries ("hosts" of bcast, reduce, allreduce) forced by
 * name, and the selector with host information and a 2-level model (which
 * may take them, or a mesh hybrid on an even grouped layout), compared
 * with the serial reference.
 *
 * Layouts, for p in {2, ..., 9, 12, 13, 16}: hosts of random uneven sizes
 * in rank order (3 + 2 + 2 style), interleaved (host = rank mod h), a
 * random assignment, one rank per host, and even blocks (h x k).  Every
 * root up to p = 9 (three above), counts {0, 1, 7, 1000, 65539} (7
 * in-place), int32 and float sums and int32 max; float allreduces of
 * widely spread magnitudes also check that every rank gets the same bits.
 * Every other collective runs once per layout with the selector, so host
 * information never breaks an entry that ignores it. */
#include "matrix.h"

/* A small deterministic generator (xorshift). */
static unsigned next_rand(unsigned *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static const int ps[] = {2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16};

enum { LAY_UNEVEN, LAY_INTERLEAVED, LAY_RANDOM, LAY_SINGLE, LAY_EVEN, LAY_COUNT };

/* Fills host_of for layout lay; returns the number of hosts (0: the
 * layout does not exist for p). */
static int layout(int lay, int p, unsigned *rng, int *host_of)
{
    int h = 0;
    switch (lay) {
    case LAY_UNEVEN: /* blocks of 1..3 ranks, at least two hosts */
        for (int r = 0; r < p; h++) {
            int n = 1 + (int)(next_rand(rng) % 3u);
            for (int i = 0; i < n && r < p; i++)
                host_of[r++] = h;
        }
        return h > 1 ? h : 0;
    case LAY_INTERLEAVED:
        h = p >= 4 ? 3 : 2;
        for (int r = 0; r < p; r++)
            host_of[r] = r % h;
        return h;
    case LAY_RANDOM: {
        h = 2 + (int)(next_rand(rng) % 3u);
        h = h > p ? p : h;
        for (int r = 0; r < p; r++)
            host_of[r] = r < h ? r : (int)(next_rand(rng) % (unsigned)h);
        /* Number hosts in order of first appearance (as the bridge does). */
        int map[16], n = 0;
        for (int i = 0; i < 16; i++)
            map[i] = -1;
        for (int r = 0; r < p; r++) {
            if (map[host_of[r]] < 0)
                map[host_of[r]] = n++;
            host_of[r] = map[host_of[r]];
        }
        return n;
    }
    case LAY_SINGLE:
        for (int r = 0; r < p; r++)
            host_of[r] = r;
        return p;
    default: /* even blocks: the smallest factor > 1 of p ranks per host */
        for (int k = 2; k < p; k++)
            if (p % k == 0) {
                for (int r = 0; r < p; r++)
                    host_of[r] = r / k;
                return p / k;
            }
        return 0;
    }
}

int main(void)
{
    harness_init();
    tally_t t = {0};
    /* The 2-level model the bridge gives a job across hosts (comm.c). */
    ic_model_t m = ic_model_default();
    m.lvl_alpha[0] = 3e-5;
    m.lvl_beta[0] = 1e-9;
    m.lvl_alpha[1] = m.alpha;
    m.lvl_beta[1] = m.beta;
    m.alpha = 3e-5;
    m.beta = 1e-9;
    ic_model_t m_even = m; /* even blocks: the levels apply to the h x k mesh */
    m_even.nlevels = 2;
    unsigned rng = 12345, seed = 1;
    const ic_coll_t hosted[3] = {IC_COLL_BCAST, IC_COLL_REDUCE, IC_COLL_ALLREDUCE};
    for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
        int p = ps[pi];
        for (int lay = 0; lay < LAY_COUNT; lay++) {
            int host_of[16];
            int h = layout(lay, p, &rng, host_of);
            if (h < 2)
                continue;
            for (int ci = 0; ci < 3; ci++)
                for (int forced = 0; forced < 2; forced++) {
                    ic_coll_t coll = hosted[ci];
                    int nr = coll_rooted(coll) ? (p <= 9 ? p : 3) : 1;
                    for (int ri = 0; ri < nr; ri++) {
                        const size_t counts[5] = {0, 1, 7, 1000, 65539};
                        for (int k = 0; k < 5; k++) {
                            tcase_t c = {0};
                            c.coll = coll;
                            c.algo = forced ? "hosts" : NULL;
                            c.p = p;
                            c.root = p <= 9 ? ri : (int)((seed * 7u + (unsigned)ri) % (unsigned)p);
                            c.count = counts[k];
                            c.dtype = seed & 1 ? IC_FLOAT : IC_INT32;
                            c.op = seed % 5 == 0 ? IC_MAX : IC_SUM;
                            if (c.dtype == IC_FLOAT && c.op == IC_MAX)
                                c.op = IC_SUM;
                            c.in_place = k == 2 && coll_in_place_ok(coll);
                            c.seed = seed++;
                            c.host_of = host_of;
                            c.nhosts = h;
                            c.model = &m;
                            if (lay == LAY_EVEN) { /* the bridge's h x k mesh */
                                static ic_mesh_t mesh;
                                mesh.d = 2;
                                mesh.dims[0] = h;
                                mesh.dims[1] = p / h;
                                c.mesh = &mesh;
                                c.model = &m_even;
                            }
                            check_case(&t, &c);
                            if (coll == IC_COLL_ALLREDUCE && k == 3) {
                                c.dtype = IC_FLOAT;
                                c.op = IC_SUM;
                                c.agree = true; /* every rank the same bits */
                                c.seed = seed++;
                                check_case(&t, &c);
                            }
                        }
                    }
                }
            /* The other collectives, with the selector, once per layout. */
            for (int coll = 0; coll < IC_COLL_COUNT; coll++) {
                tcase_t c = {0};
                c.coll = (ic_coll_t)coll;
                c.p = p;
                c.root = (int)(seed % (unsigned)p);
                c.count = 33;
                c.dtype = IC_INT32;
                c.op = IC_SUM;
                c.seed = seed++;
                c.vcounts = (vcounts_t)(seed % 4);
                c.host_of = host_of;
                c.nhosts = h;
                c.model = &m;
                check_case(&t, &c);
            }
        }
    }
    return finish(&t, "test_coll_hosts");
}
