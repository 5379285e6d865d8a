/*
 * test_cost_pipeline.c — the pipeline family (bcast/reduce "chain" and
 * "dopl", scan/exscan "chain"): the engine's simulated time equals the cost function (the
 * exact expressions of algo/chain_bcast.c, chain_reduce.c, chain_scan.c and dopl.c) for
 * p = 1..64, several roots and sizes (many with k > 1 segments), under the
 * model {alpha 3, beta 0.011, gamma 0.0057, delta 0} and one where the
 * compute unit is slower than the ports; dopl on the meshes 5x7, 3x4x5,
 * 4x4 (every root); and the cost functions equal the headers' closed forms
 * for equal segments (chain: (m-1 + k-1)*(alpha + n/k*beta); reduce:
 * h*c + h'*g + (k-1)*max(c, g), scan the same with h = p-1 and h' = p-1,
 * exscan h' = p-2; dopl: the paper's sum over dimensions);
 * and with more members than the model's cores, chains are not cut; a
 * chain of two under shared memory's protocols with one-way messages
 * inline up to the eager limit is a stream of eager segments, priced
 * with one start-up and cheaper than one message.
 */
#include "algo/builders_pipeline.h"
#include "select/catalog.h"
#include "sim/engine.h"
#include "unit/sampled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static long passed, failed;

static void expect_eq(double got, double want, const char *what, int p, int root, size_t n)
{
    if (fabs(got - want) <= 1e-9 * (fabs(want) + 1)) {
        passed++;
        return;
    }
    if (failed++ < 50)
        printf("FAIL %s p=%d root=%d count=%zu: got %.9g, want %.9g\n", what, p, root, n, got,
               want);
}

static const ic_model_t M = {.alpha = 3.0, .beta = 0.011, .gamma = 0.0057, .delta = 0.0, .beta_net = 0};
static const ic_model_t MSLOW = {.alpha = 3.0, .beta = 0.002, .gamma = 0.05, .delta = 0.0, .beta_net = 0}; /* compute slower than the ports */

static ic_coll_args_t args_of(const ic_algo_t *al, size_t count, int root, const ic_mesh_t *mesh,
                              const ic_model_t *m)
{
    ic_coll_args_t a = {0};
    a.coll = al->coll;
    a.dtype = IC_INT32;
    a.op = IC_SUM;
    a.root = root;
    a.count = count;
    a.model = *m;
    a.mesh = mesh;
    return a;
}

static double simulate(const ic_algo_t *al, int p, size_t count, int root, const ic_mesh_t *mesh,
                       const ic_model_t *m)
{
    ic_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    for (int i = 0; i < p; i++)
        args[i] = args_of(al, count, root, mesh, m);
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = args;
    job.algo = al->name;
    ic_sim_result_t res = {0};
    double t = -1;
    if (ic_sim_run(p, m, &job, 1, false, &res) == IC_OK)
        t = res.time;
    else
        printf("sim failed: %s\n", ic_last_error());
    free(args);
    return t;
}

static double cost_of(const ic_algo_t *al, int p, size_t count, int root, const ic_mesh_t *mesh,
                      const ic_model_t *m)
{
    ic_coll_args_t a = args_of(al, count, root, mesh, m);
    return al->cost(&a, p, m);
}

/* Closed forms for k equal segments of L bytes. */
static double chain_bcast_closed(int m, int k, double L, const ic_model_t *md)
{
    return m <= 1 ? 0 : (m - 1 + k - 1) * (md->alpha + L * md->beta);
}
static double chain_reduce_closed(int m, int root, int k, double L, const ic_model_t *md)
{
    if (m <= 1)
        return 0;
    bool middle = root != 0 && root != m - 1;
    int h = middle ? m : m - 1, hc = middle ? h - 1 : h;
    double c = md->alpha + L * md->beta, g = L * md->gamma;
    return h * c + hc * g + (k - 1) * (c > g ? c : g);
}

static double chain_scan_closed(int m, bool exclusive, int k, double L, const ic_model_t *md)
{
    if (m <= 1)
        return 0;
    int h = m - 1, hc = exclusive ? h - 1 : h;
    double c = md->alpha + L * md->beta, g = hc > 0 ? L * md->gamma : 0;
    return h * c + hc * g + (k - 1) * (c > g ? c : g); /* nobody combines: c paces */
}

int main(void)
{
    const ic_algo_t *bc = ic_catalog_find(IC_COLL_BCAST, "chain");
    const ic_algo_t *bd = ic_catalog_find(IC_COLL_BCAST, "dopl");
    const ic_algo_t *rc = ic_catalog_find(IC_COLL_REDUCE, "chain");
    const ic_algo_t *rd = ic_catalog_find(IC_COLL_REDUCE, "dopl");
    const ic_algo_t *sc = ic_catalog_find(IC_COLL_SCAN, "chain");
    const ic_algo_t *ec = ic_catalog_find(IC_COLL_EXSCAN, "chain");
    if (!bc || !bd || !rc || !rd || !sc || !ec) {
        printf("FAIL: pipeline entries missing from the catalog\n");
        return 1;
    }
    const size_t counts[] = {0, 1, 7, 100, 1000, 4096, 20000};
    const ic_model_t *models[] = {&M, &MSLOW};
    long multi = 0; /* engine checks with k > 1 */

    /* 1-D chains: engine == cost function. */
    for (int mi = 0; mi < 2; mi++)
        for (int p = 1; p <= 64; p++)
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0] && test_sampled_p(p); ci++) {
                size_t n = counts[ci];
                if (mi == 1 && p % 3 != 0)
                    continue; /* the second model on a sample */
                if (n > 4096 && p % 8 > 1)
                    continue; /* the longest vector on a sample (time) */
                const ic_model_t *m = models[mi];
                int roots[3] = {0, p / 2, p - 1};
                for (int ri = 0; ri < 3; ri++) {
                    int r = roots[ri];
                    if (ri > 0 && r == roots[ri - 1])
                        continue;
                    expect_eq(simulate(bc, p, n, r, NULL, m), cost_of(bc, p, n, r, NULL, m),
                              "bcast chain sim", p, r, n);
                    expect_eq(simulate(rc, p, n, r, NULL, m), cost_of(rc, p, n, r, NULL, m),
                              "reduce chain sim", p, r, n);
                    if (ic_pipe_segments(p, n, 4, m->beta, m) > 1)
                        multi++;
                }
                expect_eq(simulate(sc, p, n, 0, NULL, m), cost_of(sc, p, n, 0, NULL, m),
                          "scan chain sim", p, 0, n);
                expect_eq(simulate(ec, p, n, 0, NULL, m), cost_of(ec, p, n, 0, NULL, m),
                          "exscan chain sim", p, 0, n);
                if (ic_scan_chain_segments(p, n, 4, m) > 1)
                    multi++;
            }

    /* The cost expressions against the closed forms, at any k with equal
     * segments (count = 16*k*j int32: whole 64-byte granules). */
    for (int mi = 0; mi < 2; mi++)
        for (int p = 1; p <= 64; p++)
            for (int k = 1; k <= 200; k += 1 + k / 4)
                for (size_t j = 1; j <= 9; j += 4) {
                    const ic_model_t *m = models[mi];
                    size_t count = 16 * (size_t)k * j;
                    double L = 64.0 * (double)j;
                    expect_eq(ic_cost_chain_bcast_time(p, count, 4, k, m),
                              chain_bcast_closed(p, k, L, m), "bcast chain closed", p, 0, count);
                    int roots[3] = {0, p / 2, p - 1};
                    for (int ri = 0; ri < 3; ri++)
                        expect_eq(ic_cost_chain_reduce_time(p, roots[ri], count, 4, k, m),
                                  chain_reduce_closed(p, roots[ri], k, L, m),
                                  "reduce chain closed", p, roots[ri], count);
                    for (int ex = 0; ex < 2; ex++)
                        expect_eq(ic_cost_chain_scan_time(p, ex, count, 4, k, m),
                                  chain_scan_closed(p, ex, k, L, m), "scan chain closed", p, ex,
                                  count);
                }
    /* Unequal segments: the largest paces the broadcast pipe. */
    for (int p = 2; p <= 64; p += 7)
        for (int k = 1; k <= 50; k += 3) {
            size_t count = 16 * (size_t)k * 5 + 37;
            double sum = 0, mx = 0;
            for (int s = 0; s < k; s++) {
                double c = M.alpha + (double)ic_pipe_seg_bytes(count, 4, k, s) * M.beta;
                sum += c;
                mx = c > mx ? c : mx;
            }
            expect_eq(ic_cost_chain_bcast_time(p, count, 4, k, &M), sum + (p - 2) * mx,
                      "bcast chain unequal", p, 0, count);
        }

    /* DOPL on meshes: engine == cost function == the sum of chain times;
     * the paper's closed form where every dimension's segments are equal. */
    const int shapes[][4] = {{2, 5, 7}, {3, 3, 4, 5}, {2, 4, 4}, {1, 12}, {2, 1, 9}};
    for (int mi = 0; mi < 2; mi++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            ic_mesh_t mesh = {0};
            mesh.d = shapes[si][0];
            for (int i = 0; i < mesh.d; i++)
                mesh.dims[i] = shapes[si][i + 1];
            int p = (int)ic_mesh_size(&mesh);
            const ic_model_t *m = models[mi];
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
                size_t n = counts[ci];
                for (int r = 0; r < p; r++) {
                    if (mi == 1 && r % 3)
                        continue;
                    double tb = simulate(bd, p, n, r, &mesh, m);
                    double tr = simulate(rd, p, n, r, &mesh, m);
                    expect_eq(tb, cost_of(bd, p, n, r, &mesh, m), "bcast dopl sim", p, r, n);
                    expect_eq(tr, cost_of(rd, p, n, r, &mesh, m), "reduce dopl sim", p, r, n);
                    int rcd[IC_MESH_MAX_DIMS];
                    ic_mesh_coords(&mesh, r, rcd);
                    double sb = 0, sr = 0, seedb = 0;
                    bool equal = true;
                    for (int i = 0; i < mesh.d; i++) {
                        int mm = mesh.dims[i];
                        int kb = ic_pipe_segments(mm, n, 4, m->beta, m);
                        int len = rcd[i] == 0 || rcd[i] == mm - 1 ? mm : mm + 1;
                        int kr = ic_pipe_segments(len, n, 4, m->beta + m->gamma, m);
                        sb += ic_cost_chain_bcast_time(mm, n, 4, kb, m);
                        sr += ic_cost_chain_reduce_time(mm, rcd[i], n, 4, kr, m);
                        if (kb > 0) {
                            equal &= ic_pipe_seg_bytes(n, 4, kb, 0) ==
                                     ic_pipe_seg_bytes(n, 4, kb, kb - 1);
                            seedb += (mm > 1) * ((mm - 1) + kb - 1) *
                                     (m->alpha + 4.0 * (double)n / kb * m->beta);
                        }
                        if (kb > 1 && mm > 2)
                            multi++;
                    }
                    expect_eq(tb, sb, "bcast dopl = sum of chains", p, r, n);
                    expect_eq(tr, sr, "reduce dopl = sum of chains", p, r, n);
                    if (equal)
                        expect_eq(tb, seedb, "bcast dopl seed formula", p, r, n);
                }
            }
        }
    /* More members than cores (model.cores > 0): one segment, in the plan
     * (the engine runs it: one message per hop) and in the price, which
     * is then the store-and-forward sum (p-1)(alpha + n beta); with as
     * many cores as members the same calls are cut (k > 1). */
    for (int p = 3; p <= 16; p++)
        for (int cores = 1; cores <= 4; cores++) {
            ic_model_t mc = M;
            mc.cores = cores;
            size_t n = 20000;
            double hop = M.alpha + 4.0 * (double)n * M.beta;
            int want = p > cores ? 1 : ic_pipe_segments(p, n, 4, M.beta, &M);
            expect_eq(ic_pipe_segments(p, n, 4, M.beta, &mc), want, "segments, cores", p, cores,
                      n);
            if (p > cores) {
                expect_eq(cost_of(bc, p, n, 0, NULL, &mc), (p - 1) * hop, "crowded chain cost", p,
                          cores, n);
                expect_eq(simulate(bc, p, n, 0, NULL, &mc), (p - 1) * hop, "crowded chain sim", p,
                          cores, n);
                expect_eq(simulate(rc, p, n, 0, NULL, &mc), cost_of(rc, p, n, 0, NULL, &mc),
                          "crowded reduce chain sim", p, cores, n);
                expect_eq(ic_scan_chain_segments(p, n, 4, &mc), 1, "crowded scan segments", p,
                          cores, n);
                expect_eq(simulate(sc, p, n, 0, NULL, &mc), cost_of(sc, p, n, 0, NULL, &mc),
                          "crowded scan chain sim", p, cores, n);
            }
            mc.cores = p;
            expect_eq(ic_pipe_segments(p, n, 4, M.beta, &mc), ic_pipe_segments(p, n, 4, M.beta, &M),
                      "segments, a core each", p, p, n);
            if (ic_pipe_segments(p, n, 4, M.beta, &mc) < 2)
                expect_eq(0, 1, "a core each: still cut", p, p, n);
        }

    /* Two members as a stream of eager segments (builders_pipeline.h):
     * under shared memory's protocols where a one-way message goes inline
     * up to the eager limit, a vector above the limit and below the shared
     * copy is cut into the fewest segments of at most the limit, priced
     * with one start-up and the last segment's second copy, and the chain
     * is then cheaper than one message (mst); where one-way messages go by
     * rendezvous from 4 KiB, crowded, at or below the limit or from the
     * shared copy on it is one message as before. */
    {
        const ic_algo_t *bm = ic_catalog_find(IC_COLL_BCAST, "mst");
        const ic_algo_t *rm = ic_catalog_find(IC_COLL_REDUCE, "mst");
        ic_model_t ms = {.alpha = 1e-6, .beta = 1e-10, .gamma = 5e-11, .delta = 5e-11,
                         .rndv_alpha = 1e-6, .rndv_bytes = 16384, .share_bytes = 262144,
                         .rndv_oneway_bytes = 16384};
        static const size_t scounts[] = {4097, 8192, 16384, 16385, 50000, 65535};
        for (size_t i = 0; i < sizeof scounts / sizeof *scounts; i++) {
            size_t n = scounts[i], bytes = 4 * n; /* int32 */
            int k = ic_pipe_stream2_segments(n, 4, &ms);
            int want = bytes > 16384 && bytes < 262144 ? (int)((bytes + 16383) / 16384) : 0;
            expect_eq(k, want, "stream segments", 2, 0, n);
            expect_eq(ic_chain_segments(2, n, 4, ms.beta, &ms), k > 0 ? k : 1,
                      "chain segments of two", 2, 0, n);
            if (k == 0)
                continue;
            if (ic_pipe_seg_bytes(n, 4, k, 0) > 16384)
                expect_eq((double)ic_pipe_seg_bytes(n, 4, k, 0), 16384, "stream segment size", 2,
                          0, n);
            double last = (double)ic_pipe_seg_bytes(n, 4, k, k - 1);
            expect_eq(cost_of(bc, 2, n, 0, NULL, &ms),
                      ms.alpha + (double)bytes * ms.beta + last * ms.delta, "stream bcast cost",
                      2, 0, n);
            for (int r = 0; r < 2; r++) {
                if (!(cost_of(bc, 2, n, r, NULL, &ms) < cost_of(bm, 2, n, r, NULL, &ms)))
                    expect_eq(cost_of(bc, 2, n, r, NULL, &ms), -1, "stream bcast below mst", 2,
                              r, n);
                if (!(cost_of(rc, 2, n, r, NULL, &ms) < cost_of(rm, 2, n, r, NULL, &ms)))
                    expect_eq(cost_of(rc, 2, n, r, NULL, &ms), -1, "stream reduce below mst", 2,
                              r, n);
            }
            /* the reduction: segments arrive back to back after one
             * start-up, each combined once it is in */
            double arrive = ms.alpha, done = 0;
            for (int sg = 0; sg < k; sg++) {
                double len = (double)ic_pipe_seg_bytes(n, 4, k, sg);
                arrive += len * ms.beta + (sg == k - 1 ? len * ms.delta : 0);
                done = (arrive > done ? arrive : done) + len * ms.gamma;
            }
            expect_eq(cost_of(rc, 2, n, 0, NULL, &ms), done, "stream reduce cost", 2, 0, n);
        }
        ic_model_t cheap = ms, crowd = ms;
        cheap.rndv_oneway_bytes = 4096; /* single copy cheap: one-way ones by rendezvous */
        crowd.cores = 1;
        expect_eq(ic_pipe_stream2_segments(50000, 4, &cheap), 0, "no stream, 4 KiB one-way", 2,
                  0, 50000);
        expect_eq(ic_pipe_stream2_segments(50000, 4, &crowd), 0, "no stream, crowded", 2, 0,
                  50000);
        expect_eq(ic_pipe_stream2_segments(50000, 4, &M), 0, "no stream, papers' model", 2, 0,
                  50000);
        expect_eq(ic_chain_segments(3, 50000, 4, ms.beta, &ms),
                  ic_pipe_segments(3, 50000, 4, ms.beta, &ms), "three members: the paper's", 3, 0,
                  50000);
    }

    printf("engine checks with k > 1: %ld\n", multi);
    if (multi < 200) {
        printf("FAIL: too few pipelined cases\n");
        failed++;
    }
    printf("test_cost_pipeline: %ld passed, %ld failed\n", passed, failed);
    return failed != 0;
}
