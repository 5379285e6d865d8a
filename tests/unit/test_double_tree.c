/*
 * test_double_tree.c — the Double Tree broadcast ([MTR94]; algo/
 * double_tree_bcast.c, select/cost_double_tree.c):
 *
 *  1. its tree on the d-cube, d = 0..10: every node but the root has one
 *     parent, which lists it among its children; every node is reached;
 *     after the first step every message crosses one link;
 *  2. on the simulator's ALL-PORT hypercubes (d = 1..7, every root, e-cube
 *     wormhole routing, links shared): max link load 1, max(ceil(d/2), 2)
 *     steps for d >= 2 (the survey: "on a 4-port 4-cube, the broadcast is
 *     complete after only two message-passing steps", three on a 6-cube),
 *     and the simulated time equals the cost function with ports =
 *     IC_PORTS_ALL;
 *  3. the selector takes double_tree on an all-port cube (d >= 3) and mst
 *     on a one-port one, and explains the port model.
 * The one-port cost is checked against the engine by test_cost (every
 * power of two up to 64) and correctness by the generic matrices.
 */
#include "check.h"

#include "algo/blocks.h"
#include "select/catalog.h"
#include "select/cost.h"
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_tree(void)
{
    for (int d = 0; d <= 10; d++) {
        unsigned n = 1u << d, kids[40];
        int *seen = calloc(n, sizeof(int)), bad = 0;
        seen[0] = 1;
        for (unsigned x = 0; x < n; x++) {
            int delayed, k = ic_double_tree_children(d, x, kids, &delayed);
            for (int i = 0; i < k; i++) {
                bad += kids[i] >= n || ic_double_tree_parent(d, kids[i]) != (int)x;
                if (kids[i] < n)
                    seen[kids[i]]++;
                unsigned diff = kids[i] ^ x;
                /* one link after the first step: one bit differs */
                bad += !(x == 0 && i == 0) && (diff & (diff - 1)) != 0;
            }
        }
        for (unsigned x = 0; x < n; x++)
            bad += seen[x] != 1;
        CHECK(bad == 0, "d = %d: %d inconsistencies in the tree", d, bad);
        free(seen);
    }
}

static const ic_model_t M = {.alpha = 1e-4, .beta = 1e-8, .gamma = 5e-9};

typedef struct run {
    ic_status_t st;
    double time;
    size_t steps;
    uint32_t load;
    const char *chosen;
} run_t;

static run_t run(int d, bool all_port, const char *algo, int root, size_t bytes)
{
    int p = 1 << d;
    ic_net_t net = ic_net_hypercube(d);
    net.all_port = all_port;
    ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
    for (int i = 0; i < p; i++) {
        a[i].coll = IC_COLL_BCAST;
        a[i].dtype = IC_UINT8;
        a[i].root = root;
        a[i].count = bytes;
        a[i].model = M;
        a[i].model.ports = all_port ? IC_PORTS_ALL : 0;
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
    r.time = res.time;
    r.steps = ct.nsteps;
    r.load = ct.max_load;
    r.chosen = job.chosen;
    ic_sim_contention_free(&ct);
    if (algo) {
        const ic_algo_t *al = ic_catalog_find(IC_COLL_BCAST, algo);
        double want = al->cost(&a[0], p, &a[0].model);
        CHECK(fabs(r.time - want) <= 1e-9 * want, "d %d root %d %s %s: simulated %.9g, cost %.9g",
              d, root, algo, all_port ? "all-port" : "one-port", r.time, want);
    }
    free(a);
    return r;
}

static void test_all_port(void)
{
    size_t n = 1024;
    for (int d = 1; d <= 7; d++)
        for (int root = 0; root < (1 << d); root += d >= 6 ? 7 : 1) {
            run_t r = run(d, true, "double_tree", root, n);
            size_t want = d == 1 ? 1 : (size_t)((d + 1) / 2 > 2 ? (d + 1) / 2 : 2);
            CHECK(r.st == IC_OK && r.load <= 1 && r.steps == want &&
                      fabs(r.time - (double)want * (M.alpha + (double)n * M.beta)) < 1e-12,
                  "d %d root %d: st %d, load %u, %zu steps (want %zu), %.9g s", d, root, r.st,
                  r.load, r.steps, want, r.time);
            run(d, false, "double_tree", root, n); /* one-port: cost = engine */
        }
}

static void test_selection(void)
{
    for (int d = 3; d <= 7; d++) {
        run_t all = run(d, true, NULL, 1, 64), one = run(d, false, NULL, 1, 64);
        CHECK(all.chosen && !strcmp(all.chosen, "double_tree"), "all-port %d-cube chose %s", d,
              all.chosen ? all.chosen : "-");
        CHECK(one.chosen && strcmp(one.chosen, "double_tree") != 0,
              "one-port %d-cube chose double_tree", d);
    }
    ic_coll_args_t a = {.coll = IC_COLL_BCAST, .dtype = IC_UINT8, .count = 64, .model = M};
    a.model.ports = IC_PORTS_ALL;
    ic_choice_t best, cands[32];
    int k = ic_decide(&a, 16, NULL, &a.model, &best, cands, 32);
    char buf[4096];
    ic_explain_format(&a, 16, cands, k < 32 ? k : 32, &best, buf, sizeof buf);
    CHECK(strstr(buf, "all-port nodes") && strstr(buf, "double_tree"), "explain: %s", buf);
}

int main(void)
{
    test_tree();
    test_all_port();
    test_selection();
    printf("test_double_tree: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
