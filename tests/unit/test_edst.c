/*
 * test_edst.c — the broadcast on d edge-disjoint spanning binomial trees
 * (Johnsson and Ho's n-ESBT, the survey's EDST; algo/edst_bcast.c,
 * select/cost_edst.c):
 *
 *  1. the d trees of the d-cube, d = 1..10: each spans the cube (every
 *     node but the root has a parent, which lists it among its children,
 *     and the parents lead to the root), every edge joins neighbours, the
 *     trees are pairwise edge-disjoint as directed edges (the root's too),
 *     and they are d + 1 deep (1 for d = 1);
 *  2. on the simulator's ALL-PORT hypercubes (d = 1..7, every root, e-cube
 *     wormhole routing, links shared), with counts that d does not divide
 *     and counts below d (empty segments): max link load 1 and simulated
 *     time = the cost function with ports = IC_PORTS_ALL, which is
 *     (d + 1)(alpha + ceil(n/d) beta) for d >= 2;
 *  3. on 2-port (every root) and 3-port and one-port cubes (some roots):
 *     simulated time = the cost function with the same ports;
 *  4. the selector: on an all-port cube large vectors (1 MiB) take edst for
 *     d >= 3 (on the 2-cube its three half-vector steps lose to the
 *     pipelined chain) and short ones the cheaper of double_tree and mst;
 *     on a one-port cube never edst, at any size.
 * Correctness (data) is the generic matrices' (every entry forced by name).
 */
#include "check.h"

#include "algo/blocks.h"
#include "select/catalog.h"
#include "select/cost.h"
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_trees(void)
{
    for (int d = 1; d <= 10; d++) {
        unsigned p = 1u << d, kids[32];
        unsigned char *used = calloc((size_t)p * (size_t)d, 1); /* directed edge (x, dim) */
        int bad = 0, deepest = 0;
        for (int j = 0; j < d; j++) {
            bad += ic_edst_parent(d, j, 0) != -1;
            for (unsigned x = 0; x < p; x++) {
                int k = ic_edst_children(d, j, x, kids);
                bad += k > d;
                for (int i = 0; i < k; i++) {
                    unsigned diff = kids[i] ^ x;
                    bad += kids[i] >= p || diff == 0 || (diff & (diff - 1)) != 0;
                    bad += ic_edst_parent(d, j, kids[i]) != (int)x;
                    int dim = 0;
                    while (diff > 1u) {
                        diff >>= 1;
                        dim++;
                    }
                    bad += used[(size_t)x * (size_t)d + (size_t)dim]++ != 0;
                }
                int depth = 0;
                for (int y = (int)x; y > 0 && depth <= (int)p; depth++)
                    y = ic_edst_parent(d, j, (unsigned)y);
                bad += depth > (int)p; /* no cycle: the root is reached */
                deepest = depth > deepest ? depth : deepest;
            }
        }
        CHECK(bad == 0, "d = %d: %d inconsistencies (spanning, neighbours, edge-disjoint)", d, bad);
        CHECK(deepest == (d == 1 ? 1 : d + 1), "d = %d: %d deep", d, deepest);
        free(used);
    }
}

static const ic_model_t M = {.alpha = 1e-4, .beta = 1e-8, .gamma = 5e-9};

typedef struct run {
    ic_status_t st;
    double time, cost;
    uint32_t load;
    const char *chosen;
} run_t;

/* ports: 0 one-port, k, IC_PORTS_ALL (the network and the model alike). */
static run_t run(int d, int ports, const char *algo, int root, size_t count)
{
    int p = 1 << d;
    ic_net_t net = ic_net_hypercube(d);
    net.all_port = ports == IC_PORTS_ALL;
    net.ports = ports == IC_PORTS_ALL ? 0 : ports;
    ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
    for (int i = 0; i < p; i++) {
        a[i].coll = IC_COLL_BCAST;
        a[i].dtype = IC_UINT8;
        a[i].root = root;
        a[i].count = count;
        a[i].model = M;
        a[i].model.ports = ports;
    }
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = a;
    job.algo = algo;
    ic_sim_contention_t ct = {.picture_step = SIZE_MAX};
    ic_sim_result_t res = {0};
    res.contention = &ct;
    run_t r = {0};
    r.st = ic_sim_run_net(p, &M, &net, &job, 1, false, &res);
    CHECK(r.st == IC_OK, "d %d root %d: %s", d, root, ic_last_error());
    r.time = res.time;
    r.load = ct.max_load;
    r.chosen = job.chosen;
    ic_sim_contention_free(&ct);
    if (algo) {
        r.cost = ic_catalog_find(IC_COLL_BCAST, algo)->cost(&a[0], p, &a[0].model);
        CHECK(fabs(r.time - r.cost) <= 1e-9 * r.cost,
              "d %d root %d n %zu %s ports %d: simulated %.12g, cost %.12g", d, root, count, algo,
              ports, r.time, r.cost);
    }
    free(a);
    return r;
}

static void test_all_port(void)
{
    const size_t counts[] = {1000, 3, 1 << 16};
    for (int d = 1; d <= 7; d++)
        for (int root = 0; root < (1 << d); root++)
            for (int c = 0; c < 3; c++) {
                if (c == 2 && root % 5) /* the long vector on some roots */
                    continue;
                size_t n = counts[c];
                run_t r = run(d, IC_PORTS_ALL, "edst", root, n);
                size_t seg = (n + (size_t)d - 1) / (size_t)d;
                double want = (d == 1 ? 1 : d + 1) * (M.alpha + (double)seg * M.beta);
                CHECK(r.load == 1 && fabs(r.time - want) <= 1e-9 * want,
                      "d %d root %d n %zu: load %u, %.12g s, want %.12g", d, root, n, r.load,
                      r.time, want);
            }
}

static void test_k_port(void)
{
    for (int d = 1; d <= 7; d++)
        for (int root = 0; root < (1 << d); root++) {
            run(d, 2, "edst", root, 1000); /* time = cost (in run) */
            if (root % 9 == 0) {
                run(d, 3, "edst", root, 4099);
                run(d, 0, "edst", root, 1000);
                run(d, 2, "edst", root, 2);
            }
        }
}

static const char *choose(int d, int ports, size_t n, double *edst, double *dt, double *mst)
{
    ic_coll_args_t a = {.coll = IC_COLL_BCAST, .dtype = IC_UINT8, .count = n, .model = M};
    a.model.ports = ports;
    ic_choice_t best, cands[64];
    int k = ic_decide(&a, 1 << d, NULL, &a.model, &best, cands, 64);
    for (int i = 0; i < k && i < 64; i++) {
        if (!strcmp(cands[i].al->name, "edst"))
            *edst = cands[i].cost;
        if (!strcmp(cands[i].al->name, "double_tree"))
            *dt = cands[i].cost;
        if (!strcmp(cands[i].al->name, "mst"))
            *mst = cands[i].cost;
    }
    return best.al->name;
}

static void test_selection(void)
{
    for (int d = 2; d <= 7; d++) {
        double e = 0, t = 0, m = 0;
        /* d = 2: three steps of n/2 each lose to the pipelined chain. */
        const char *big = choose(d, IC_PORTS_ALL, 1 << 20, &e, &t, &m);
        CHECK(d == 2 || !strcmp(big, "edst"), "all-port %d-cube, 1 MiB: chose %s (edst %g, dt %g)",
              d, big, e, t);
        const char *small = choose(d, IC_PORTS_ALL, 64, &e, &t, &m);
        bool dt_ok = t <= m && !strcmp(small, "double_tree");
        bool mst_ok = m <= t && !strcmp(small, "mst");
        CHECK((dt_ok || mst_ok) && e > (t < m ? t : m),
              "all-port %d-cube, 64 B: chose %s (edst %g, double_tree %g, mst %g)", d, small, e, t,
              m);
        for (size_t n = 8; n <= (1u << 22); n *= 8) {
            const char *one = choose(d, 0, n, &e, &t, &m);
            CHECK(strcmp(one, "edst") != 0, "one-port %d-cube, %zu B: chose edst", d, n);
        }
    }
    /* The simulator's own choice on the all-port 6-cube. */
    run_t r = run(6, IC_PORTS_ALL, NULL, 3, 1 << 20);
    CHECK(r.chosen && !strcmp(r.chosen, "edst"), "sim, all-port 6-cube, 1 MiB: %s",
          r.chosen ? r.chosen : "-");
}

int main(void)
{
    test_trees();
    test_all_port();
    test_k_port();
    test_selection();
    printf("test_edst: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
