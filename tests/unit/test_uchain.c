/*
 * test_uchain.c — the contention-free group collectives U-mesh, U-torus
 * and U-cube ([MTR94]; algo/phys.c, algo/coll_uchain.c):
 *
 *  1. the chains (dimension-ordered, rotated, source-relative), the
 *     near-end split and the network spec parser, on small examples;
 *  2. on the simulator's physical networks (5x7, 6x6, 3x5x7 meshes; 6x6
 *     and 4x5 tori, bidirectional and unidirectional; 3- to 7-cubes), for
 *     random subsets of the nodes and EVERY source: bcast, reduce,
 *     scatter, gather and barrier never put two messages on one directed
 *     link at once (max link load 1; on the tori per dateline virtual
 *     channel, see shape_t, and counted again with one channel per link),
 *     the broadcast takes ceil(log2 m) steps for m members (the survey's
 *     ceil(log2(m'+1)) for m' = m - 1 destinations), and every simulated
 *     time equals the entry's cost function (no hop time, so the network
 *     adds nothing);
 *  3. a control: the rank-order MST broadcast does load a link twice on
 *     a 5x7 mesh, so the load check can fail.
 * Correctness against serial references is in the generic matrices
 * (test_coll_*), which give these entries an invented placement.
 */
#include "check.h"

#include "algo/phys.h"
#include "select/catalog.h"
#include "select/cost.h"
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ic_model_t M = {.alpha = 1e-4, .beta = 1e-8, .gamma = 5e-9, .delta = 0};

/* ---- 1. chains, split, parser --------------------------------------------------------- */

static void test_chains(void)
{
    /* 6x6 mesh; ranks 0..4 on nodes 20, 3, 14, 8, 3. */
    int node[5] = {20, 3, 14, 8, 3}, chain[5];
    unsigned long long work[5];
    ic_phys_t ph = {IC_PHYS_MESH, 2, {6, 6}, node};
    int at = ic_phys_chain(&ph, IC_CHAIN_MESH, false, 5, 0, chain, work);
    int want0[5] = {1, 4, 3, 2, 0};
    CHECK(at == 4 && !memcmp(chain, want0, sizeof want0),
          "mesh chain from rank 0: at %d, %d %d %d %d %d", at, chain[0], chain[1], chain[2],
          chain[3], chain[4]);
    at = ic_phys_chain(&ph, IC_CHAIN_MESH, false, 5, 4, chain, work);
    int want4[5] = {4, 1, 3, 2, 0}; /* the source first on its node */
    CHECK(at == 0 && !memcmp(chain, want4, sizeof want4), "mesh chain from rank 4: at %d", at);
    at = ic_phys_chain(&ph, IC_CHAIN_TORUS, false, 5, 2, chain, work);
    int wantr[5] = {2, 0, 1, 4, 3}; /* 14 20 | 3 3 8 */
    CHECK(at == 0 && !memcmp(chain, wantr, sizeof wantr), "R-chain from rank 2: %d %d %d %d %d",
          chain[0], chain[1], chain[2], chain[3], chain[4]);
    at = ic_phys_chain(&ph, IC_CHAIN_TORUS, true, 5, 2, chain, work);
    int wantd[5] = {0, 1, 4, 3, 2}; /* the dual: 20 | 3 3 8 | 14, the source last */
    CHECK(at == 4 && !memcmp(chain, wantd, sizeof wantd),
          "dual R-chain to rank 2: at %d, %d %d %d %d %d", at, chain[0], chain[1], chain[2],
          chain[3], chain[4]);
    /* 4-cube, ranks on nodes 5, 0, 12, 7, 6; source rank 0 (node 5 = 0101):
     * XOR keys 0, 5, 9, 2, 3 -> ranks 0, 3, 4, 1, 2. */
    int cnode[5] = {5, 0, 12, 7, 6};
    ic_phys_t cube = {IC_PHYS_HYPERCUBE, 4, {2, 2, 2, 2}, cnode};
    at = ic_phys_chain(&cube, IC_CHAIN_CUBE, false, 5, 0, chain, work);
    int wantc[5] = {0, 3, 4, 1, 2};
    CHECK(at == 0 && !memcmp(chain, wantc, sizeof wantc), "cube chain: %d %d %d %d %d",
          chain[0], chain[1], chain[2], chain[3], chain[4]);

    /* Near-end split, n = 6 from 0: 0 -> 3, 0 -> 2, 0 -> 1; 3 -> 5, 3 -> 4. */
    ic_split_t near = {IC_SPLIT_NEAR, NULL, 0};
    ic_mst_edge_t e[8];
    int k = ic_mst_edges(&near, 6, 0, 0, e, NULL, NULL);
    CHECK(k == 3 && e[0].child == 3 && e[1].child == 2 && e[2].child == 1,
          "near split from 0: %d edges, first to %d", k, k ? e[0].child : -1);
    k = ic_mst_edges(&near, 6, 0, 3, e, NULL, NULL);
    CHECK(k == 3 && e[0].parent == 0 && e[1].child == 5 && e[2].child == 4,
          "near split at 3: %d edges", k);
    /* Source in the upper half: n = 8 from 5 hands [0,3] to 3. */
    k = ic_mst_edges(&near, 8, 5, 5, e, NULL, NULL);
    CHECK(k == 3 && e[0].child == 3 && e[0].lo == 0 && e[0].hi == 3 && e[1].child == 6 &&
              e[2].child == 4,
          "near split from 5 of 8: %d edges, first to %d", k, k ? e[0].child : -1);

    ic_phys_t p = {0};
    CHECK(ic_phys_parse("t", "utorus:4x5", &p) == IC_OK && p.kind == IC_PHYS_TORUS_UNI &&
              p.ndims == 2 && p.dims[1] == 5,
          "parse utorus:4x5");
    CHECK(ic_phys_parse("t", "hypercube:3", &p) == IC_OK && p.kind == IC_PHYS_HYPERCUBE &&
              p.ndims == 3 && p.dims[2] == 2,
          "parse hypercube:3");
    CHECK(ic_phys_parse("t", "ring:4", &p) == IC_ERR_ARG && strstr(ic_last_error(), "ring:4"),
          "unknown kind named: %s", ic_last_error());
    CHECK(ic_phys_parse("t", "mesh:4x", &p) == IC_ERR_ARG, "mesh:4x refused");
    CHECK(ic_phys_parse("t", "mesh:0x3", &p) == IC_ERR_ARG, "mesh:0x3 refused");
}

/* ---- 2. contention-free on physical networks ----------------------------------------------- */

typedef struct shape {
    const char *spec;
    const char *algos[2]; /* the entries that apply, NULL-terminated */
    /* Every run must keep max link load 1.  On tori that holds per virtual
     * channel (net.dateline, [MTR94] figure 18): the R-chain's messages do
     * share physical links (the full broadcast from node 0 of a
     * unidirectional 6x6 torus: (1,3) -> (2,0) and (2,2) -> (2,4) both
     * cross (2,3)->(2,4) in step 3), but the first one will still take the
     * wrap-around link and travels on the "p" channel, the second on "h".
     * The same runs without dateline channels are counted, not asserted. */
} shape_t;

static const shape_t shapes[] = {
    {"mesh:5x7", {"umesh", "utorus"}},     {"mesh:6x6", {"umesh", "utorus"}},
    {"mesh:3x5x7", {"umesh", "utorus"}},   {"torus:6x6", {"utorus", NULL}},
    {"torus:4x5", {"utorus", NULL}},      {"utorus:6x6", {"utorus", NULL}},
    {"utorus:4x5", {"utorus", NULL}},     {"hypercube:3", {"ucube", "umesh"}},
    {"hypercube:4", {"ucube", "umesh"}},   {"hypercube:5", {"ucube", "umesh"}},
    {"hypercube:6", {"ucube", "umesh"}},   {"hypercube:7", {"ucube", "umesh"}},
};

typedef struct run {
    ic_status_t st;
    double time;
    size_t steps;
    uint32_t max_load;
    const char *chosen;
} run_t;

/* One collective of the m members on nodes world[] (world ranks = nodes). */
static ic_phys_t ph; /* the placement of the last run (its args point here) */

static run_t run_on(const ic_net_t *net, int nodes, int m, const int *world, ic_coll_t coll,
                    const char *algo, int root, size_t count, ic_coll_args_t *a, int *node_of)
{
    ic_net_phys(net, m, world, node_of, &ph);
    for (int i = 0; i < m; i++) {
        memset(&a[i], 0, sizeof a[i]);
        a[i].coll = coll;
        a[i].dtype = IC_UINT8;
        a[i].op = IC_SUM;
        a[i].root = root;
        a[i].count = count;
        a[i].model = M;
        a[i].phys = &ph;
    }
    ic_sim_job_t job = {0};
    job.size = m;
    job.world = world;
    job.args = a;
    job.algo = algo;
    ic_sim_contention_t ct = {.picture_step = SIZE_MAX};
    ic_sim_result_t res = {0};
    res.contention = &ct;
    run_t r = {0};
    r.st = ic_sim_run_net(nodes, &M, net, &job, 1, false, &res);
    r.time = res.time;
    r.steps = ct.nsteps;
    r.max_load = ct.max_load;
    r.chosen = job.chosen;
    ic_sim_contention_free(&ct);
    return r;
}

static bool close_to(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) + 1e-12); }

/* The cost function of entry algo of coll for member 0's arguments. */
static double cost_of(ic_coll_t coll, const char *algo, const ic_coll_args_t *a, int m)
{
    const ic_algo_t *al = ic_catalog_find(coll, algo);
    return al ? al->cost(a, m, &M) : -1;
}

static long runs, free_runs, torus_runs, torus_free_runs;
static uint32_t torus_worst;

static void check_subset(const shape_t *sh, const ic_net_t *net, int nodes, int m,
                         const int *world, const char *algo)
{
    const char *spec = sh->spec;
    static const ic_coll_t colls[] = {IC_COLL_BCAST, IC_COLL_REDUCE, IC_COLL_SCATTER,
                                      IC_COLL_GATHER, IC_COLL_BARRIER};
    ic_coll_args_t *a = calloc((size_t)m, sizeof *a);
    int *node_of = calloc((size_t)m, sizeof(int));
    size_t n = 1024; /* bytes of the vector; per member for scatter/gather */
    for (int root = 0; root < m; root++)
        for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++) {
            ic_coll_t coll = colls[c];
            if (coll == IC_COLL_BARRIER && root > 0)
                break;
            if (net->kind == IC_NET_TORUS) { /* one channel per link: counted */
                ic_net_t plain = *net;
                plain.dateline = false;
                run_t r0 = run_on(&plain, nodes, m, world, coll, algo, root, n, a, node_of);
                torus_runs++;
                torus_free_runs += r0.st == IC_OK && r0.max_load <= 1;
                torus_worst = r0.max_load > torus_worst ? r0.max_load : torus_worst;
            }
            run_t r = run_on(net, nodes, m, world, coll, algo, root, n, a, node_of);
            runs++;
            if (r.st != IC_OK) {
                CHECK(0, "%s %s %s m=%d root %d: %s", spec, ic_coll_name(coll), algo, m, root,
                      ic_last_error());
                continue;
            }
            size_t d = (size_t)ic_ceil_log2(m);
            if (coll == IC_COLL_BCAST)
                CHECK(r.steps == d, "%s bcast %s m=%d root %d: %zu steps (want %zu)", spec, algo,
                      m, root, r.steps, d);
            free_runs += r.max_load <= 1;
            CHECK(r.max_load <= 1, "%s %s %s m=%d root %d: max link load %u", spec,
                  ic_coll_name(coll), algo, m, root, r.max_load);
            double want = cost_of(coll, algo, a, m);
            /* The reduce recurrence takes a member's children in plan order;
             * the engine serves two partials that arrive at the same moment
             * lower sender node first, and the plan's combines are ordered,
             * so a chain whose order is not the nodes' may wait one
             * combine (n*gamma) longer per level. */
            double slack = coll == IC_COLL_REDUCE ? (double)d * (double)n * M.gamma : 0;
            CHECK(close_to(r.time, want) || (r.time > want && r.time <= want + slack * 1.000001),
                  "%s %s %s m=%d root %d: simulated %.9g s, cost %.9g s", spec,
                  ic_coll_name(coll), algo, m, root, r.time, want);
            if (coll == IC_COLL_BCAST)
                CHECK(close_to(r.time, (double)d * (M.alpha + (double)n * M.beta)),
                      "%s bcast %s m=%d root %d: %.9g s", spec, algo, m, root, r.time);
        }
    free(a);
    free(node_of);
}

/* Picks m distinct nodes of nodes at random, in random order. */
static void random_subset(int nodes, int m, int *out)
{
    int *all = malloc(sizeof(int) * (size_t)nodes);
    for (int i = 0; i < nodes; i++)
        all[i] = i;
    for (int i = 0; i < m; i++) {
        int j = i + (int)(rnd() % (uint64_t)(nodes - i));
        int t = all[i];
        all[i] = all[j];
        all[j] = t;
        out[i] = all[i];
    }
    free(all);
}

static void test_contention_free(void)
{
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        ic_net_t net;
        CHECK(ic_net_parse(shapes[s].spec, &net) == IC_OK, "parse %s", shapes[s].spec);
        net.dateline = net.kind == IC_NET_TORUS;
        int nodes = (int)ic_net_nodes(&net, 0);
        int sizes[] = {2, 3, 5, 7, nodes / 3, nodes / 2 + 1, nodes};
        int *world = malloc(sizeof(int) * (size_t)nodes);
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            int m = sizes[z];
            if (m < 2 || m > nodes)
                continue;
            random_subset(nodes, m, world);
            for (int k = 0; k < 2 && shapes[s].algos[k]; k++)
                check_subset(&shapes[s], &net, nodes, m, world, shapes[s].algos[k]);
        }
        free(world);
    }
    printf("test_uchain: %ld runs, %ld with max link load 1 (on tori per dateline channel); "
           "the %ld torus runs again with one channel per link: %ld with load 1 (worst %u)\n",
           runs, free_runs, torus_runs, torus_free_runs, torus_worst);
}

/* ---- 3. the control, and selection ---------------------------------------------------------- */

static void test_control_and_selection(void)
{
    ic_net_t net;
    ic_net_parse("mesh:5x7", &net);
    int world[64], node_of[64];
    ic_coll_args_t a[64];
    for (int i = 0; i < 64; i++)
        world[i] = i;
    uint32_t worst = 0;
    for (int root = 0; root < 35; root++) {
        run_t r = run_on(&net, 35, 35, world, IC_COLL_BCAST, "mst", root, 4096, a, node_of);
        worst = r.max_load > worst ? r.max_load : worst;
    }
    CHECK(worst >= 2, "rank-order mst on 5x7 should load some link twice (got %u)", worst);
    /* With the placement known, the selector takes the U entry of the
     * network's kind for a short broadcast (it costs what mst costs and
     * comes first). */
    run_t r = run_on(&net, 35, 35, world, IC_COLL_BCAST, NULL, 3, 4096, a, node_of);
    CHECK(r.st == IC_OK && r.chosen && !strcmp(r.chosen, "umesh"), "auto on a mesh chose %s",
          r.chosen ? r.chosen : "(none)");
    ic_net_parse("hypercube:5", &net);
    r = run_on(&net, 32, 32, world, IC_COLL_BCAST, NULL, 3, 4096, a, node_of);
    CHECK(r.st == IC_OK && r.chosen && !strcmp(r.chosen, "ucube"), "auto on a cube chose %s",
          r.chosen ? r.chosen : "(none)");
    ic_net_parse("torus:6x6", &net);
    r = run_on(&net, 36, 36, world, IC_COLL_BCAST, NULL, 3, 8, a, node_of);
    CHECK(r.st == IC_OK && r.chosen && !strcmp(r.chosen, "utorus"), "auto on a torus chose %s",
          r.chosen ? r.chosen : "(none)");
    /* Forcing an entry on the wrong kind of network is refused by name. */
    r = run_on(&net, 36, 36, world, IC_COLL_BCAST, "ucube", 0, 4096, a, node_of);
    CHECK(r.st == IC_ERR_NOT_APPLICABLE && strstr(ic_last_error(), "ucube"),
          "ucube on a torus: %s", ic_last_error());
}

int main(void)
{
    test_chains();
    test_contention_free();
    test_control_and_selection();
    printf("test_uchain: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
