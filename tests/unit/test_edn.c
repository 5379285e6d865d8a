/*
 * test_edn.c — the EDN broadcast and its dual reduce ([MTR94]; algo/
 * edn_bcast.c, select/cost_edn.c):
 *
 *  1. the tree on R x C meshes (1x1 .. 9x9, 5x7, 32x32, 1x13 ...; every
 *     source up to 9x9): every node but the source has one parent, which
 *     lists it once, in the step the node receives in; a node sends at
 *     most 4 messages a step, one per direction, in consecutive steps
 *     from the one after it received; the steps of the 2^k x 2^k meshes
 *     are at most k + 2 (the survey's bound) and at least ceil(log5 N);
 *  2. on the simulator's ALL-PORT meshes 4x4, 8x8, 16x16 (every 5th
 *     source), 32x32 (every 31st), 5x7 and 6x6 (every source), members
 *     one per node in a random order, XY wormhole routing, links shared:
 *     the broadcast and its duals, reduce and gather, keep max link load
 *     1 in every step, the broadcast takes ic_edn_steps steps, and the
 *     simulated times equal the cost functions (the broadcast's:
 *     steps*(alpha + n*beta)); the data arrive (move_data, 4x4 and 5x7);
 *  3. one-port, the broadcast's cost equals the engine's time on the full
 *     network (no links); a control (umesh on all-port nodes loads a link
 *     twice); the selector takes edn on an all-port mesh and something
 *     else on a one-port one, for bcast, reduce and gather; a subset of
 *     the mesh is refused by name.
 */
#include "check.h"

#include "select/catalog.h"
#include "select/cost.h"
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ic_model_t M = {.alpha = 1e-4, .beta = 1e-8, .gamma = 5e-9, .delta = 1e-9};

/* ---- 1. the tree --------------------------------------------------------------------------- */

static void check_tree(int rows, int cols, int src)
{
    int n = rows * cols, bad = 0, steps = ic_edn_steps(rows, cols, src), deepest = 0;
    int *par = malloc(sizeof(int) * (size_t)n), *stp = malloc(sizeof(int) * (size_t)n);
    int *seen = calloc((size_t)n, sizeof(int));
    int kids[IC_EDN_MAX_SENDS], ks[IC_EDN_MAX_SENDS];
    for (int x = 0; x < n; x++)
        bad += ic_edn_node(rows, cols, src, x, &par[x], &stp[x], kids, ks) < 0;
    for (int x = 0; x < n && !bad; x++) {
        int p, s, k = ic_edn_node(rows, cols, src, x, &p, &s, kids, ks);
        unsigned dirs = 0;
        for (int i = 0; i < k; i++) {
            int y = kids[i], dr = y / cols - x / cols, dc = y % cols - x % cols;
            seen[y]++;
            bad += par[y] != x || stp[y] != ks[i];
            /* the first link: up, down, left, right (XY: the row first) */
            unsigned d = dr < 0 ? 1u : dr > 0 ? 2u : dc < 0 ? 4u : 8u;
            if (i == 0 || ks[i] != ks[i - 1]) {
                bad += ks[i] != (i == 0 ? s + 1 : ks[i - 1] + 1); /* consecutive */
                dirs = 0;
            }
            bad += (dirs & d) != 0 || (dr == 0 && dc == 0);
            dirs |= d;
            deepest = ks[i] > deepest ? ks[i] : deepest;
        }
    }
    for (int x = 0; x < n; x++)
        bad += seen[x] != (x != src) || ((x == src) != (par[x] < 0));
    /* The whole tree at once is the same tree, children in the same order. */
    int *tp = malloc(sizeof(int) * (size_t)n), *ts = malloc(sizeof(int) * (size_t)n);
    int *off = malloc(sizeof(int) * (size_t)(n + 1)), *tk = malloc(sizeof(int) * (size_t)n);
    int *work = malloc(sizeof(int) * 2 * (size_t)n);
    bad += ic_edn_tree(rows, cols, src, tp, ts, off, tk, work) != n - 1;
    for (int x = 0; x < n && !bad; x++) {
        int p, st, k = ic_edn_node(rows, cols, src, x, &p, &st, kids, ks);
        bad += tp[x] != p || ts[x] != st || off[x + 1] - off[x] != k;
        for (int i = 0; i < k && !bad; i++)
            bad += tk[off[x] + i] != kids[i];
    }
    free(tp);
    free(ts);
    free(off);
    free(tk);
    free(work);
    CHECK(bad == 0 && deepest == steps, "%dx%d from %d: %d inconsistencies, %d deep, %d steps",
          rows, cols, src, bad, deepest, steps);
    free(par);
    free(stp);
    free(seen);
}

static int log5_ceil(long x)
{
    int s = 0;
    for (long p = 1; p < x; p *= 5)
        s++;
    return s;
}

static void test_tree(void)
{
    for (int r = 1; r <= 9; r++)
        for (int c = 1; c <= 9; c++)
            for (int s = 0; s < r * c; s++)
                check_tree(r, c, s);
    int shapes[][2] = {{5, 7}, {7, 5}, {1, 13}, {13, 1}, {12, 14}, {32, 32}};
    for (size_t z = 0; z < sizeof shapes / sizeof shapes[0]; z++)
        for (int s = 0; s < shapes[z][0] * shapes[z][1]; s += 37)
            check_tree(shapes[z][0], shapes[z][1], s);
    for (int k = 1; k <= 6; k++) {
        int n = 1 << k, worst = 0, best = 99;
        for (int s = 0; s < n * n; s += k >= 5 ? 13 : 1) {
            int st = ic_edn_steps(n, n, s);
            worst = st > worst ? st : worst;
            best = st < best ? st : best;
        }
        CHECK(worst <= k + 2 && best >= log5_ceil((long)n * n) && worst - best <= 1,
              "%dx%d: %d..%d steps (bound k + 2 = %d, lower bound %d)", n, n, best, worst, k + 2,
              log5_ceil((long)n * n));
    }
}

/* ---- 2. on the simulator ------------------------------------------------------------------ */

typedef struct run {
    ic_status_t st;
    double time;
    size_t steps, msgs;
    uint32_t load;
    const char *chosen;
} run_t;

static ic_phys_t ph;

/* coll on the whole rows x cols mesh, member i on node world[i]; net NULL:
 * the mesh itself (all_port as asked), else that network with the mesh's
 * placement passed to the builders. */
static run_t run(int rows, int cols, const int *world, bool all_port, const ic_net_t *other,
                 ic_coll_t coll, const char *algo, int root, size_t bytes, bool data)
{
    int n = rows * cols, dims[2] = {rows, cols};
    ic_net_t net = ic_net_mesh(2, dims);
    net.all_port = all_port;
    int *node_of = malloc(sizeof(int) * (size_t)n);
    ic_net_phys(&net, n, world, node_of, &ph);
    ic_coll_args_t *a = calloc((size_t)n, sizeof *a);
    for (int i = 0; i < n; i++) {
        a[i].coll = coll;
        a[i].dtype = IC_INT32;
        a[i].op = IC_SUM;
        a[i].root = root;
        a[i].count = bytes / 4;
        a[i].model = M;
        a[i].model.ports = all_port ? IC_PORTS_ALL : 0;
        a[i].phys = &ph;
    }
    ic_sim_job_t job = {0};
    job.size = n;
    job.world = world;
    job.args = a;
    job.algo = algo;
    int32_t **sb = NULL, **rb = NULL;
    if (data) {
        sb = calloc((size_t)n, sizeof *sb);
        rb = calloc((size_t)n, sizeof *rb);
        size_t rbytes = coll == IC_COLL_GATHER ? bytes * (size_t)n : bytes;
        for (int i = 0; i < n; i++) {
            sb[i] = malloc(bytes);
            rb[i] = malloc(rbytes);
            for (size_t e = 0; e < bytes / 4; e++)
                sb[i][e] = (int32_t)(i * 7 + (int)e);
            for (size_t e = 0; e < rbytes / 4; e++)
                rb[i][e] = coll == IC_COLL_BCAST && i == root ? (int32_t)(1000 + e) : -1;
        }
        job.sendbuf = (void *const *)sb;
        job.recvbuf = (void *const *)rb;
    }
    ic_sim_contention_t ct = {.picture_step = SIZE_MAX};
    ic_sim_result_t res = {0};
    res.contention = other ? NULL : &ct;
    run_t r = {0};
    r.st = ic_sim_run_net(n, &M, other ? other : &net, &job, 1, data, &res);
    r.time = res.time;
    r.msgs = res.msgs;
    r.steps = ct.nsteps;
    r.load = ct.max_load;
    r.chosen = job.chosen;
    if (other == NULL)
        ic_sim_contention_free(&ct);
    if (data && r.st == IC_OK) {
        int wrong = 0;
        for (int i = 0; i < n; i++)
            for (size_t e = 0; e < bytes / 4; e++) {
                if (coll == IC_COLL_GATHER) {
                    for (int j = 0; i == root && j < n; j++)
                        wrong += rb[i][(size_t)j * (bytes / 4) + e] != j * 7 + (int)e;
                    continue;
                }
                long want = coll == IC_COLL_BCAST ? 1000 + (long)e : 0;
                if (coll == IC_COLL_REDUCE && i == root)
                    for (int j = 0; j < n; j++)
                        want += j * 7 + (long)e;
                if ((coll == IC_COLL_BCAST || i == root) && rb[i][e] != want)
                    wrong++;
            }
        CHECK(wrong == 0, "%dx%d %s root %d: %d wrong elements", rows, cols, ic_coll_name(coll),
              root, wrong);
    }
    if (algo && !strcmp(algo, "edn") && r.st == IC_OK) {
        const ic_algo_t *al = ic_catalog_find(coll, algo);
        double want = al->cost(&a[0], n, &a[0].model);
        CHECK(fabs(r.time - want) <= 1e-9 * want,
              "%dx%d %s %s root %d %s: simulated %.9g, cost %.9g", rows, cols, ic_coll_name(coll),
              algo, root, all_port ? "all-port" : "one-port", r.time, want);
    }
    for (int i = 0; data && i < n; i++) {
        free(sb[i]);
        free(rb[i]);
    }
    free(sb);
    free(rb);
    free(a);
    free(node_of);
    return r;
}

static void shuffle(int *w, int n)
{
    for (int i = 0; i < n; i++)
        w[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint64_t)(i + 1)), t = w[i];
        w[i] = w[j];
        w[j] = t;
    }
}

static void test_all_port(void)
{
    static const int shapes[][2] = {{4, 4}, {8, 8}, {16, 16}, {32, 32}, {5, 7}, {6, 6}};
    size_t bytes = 1024;
    double msg = M.alpha + (double)bytes * M.beta;
    long runs = 0;
    for (size_t z = 0; z < sizeof shapes / sizeof shapes[0]; z++) {
        int rows = shapes[z][0], cols = shapes[z][1], n = rows * cols;
        int *world = malloc(sizeof(int) * (size_t)n);
        shuffle(world, n);
        int stride = n >= 1024 ? 31 : n >= 256 ? 5 : 1;
        for (int root = 0; root < n; root += stride) {
            int steps = ic_edn_steps(rows, cols, world[root]);
            bool data = (rows == 4 || rows == 5) && root % 3 == 0;
            run_t b = run(rows, cols, world, true, NULL, IC_COLL_BCAST, "edn", root, bytes, data);
            CHECK(b.st == IC_OK && b.load == 1 && b.steps == (size_t)steps &&
                      b.msgs == (size_t)n - 1 && fabs(b.time - steps * msg) <= 1e-9 * b.time,
                  "%dx%d bcast root %d: st %d, load %u, %zu steps (want %d), %zu msgs, %.9g s",
                  rows, cols, root, b.st, b.load, b.steps, steps, b.msgs, b.time);
            run_t r = run(rows, cols, world, true, NULL, IC_COLL_REDUCE, "edn", root, bytes, data);
            CHECK(r.st == IC_OK && r.load == 1 && r.msgs == (size_t)n - 1,
                  "%dx%d reduce root %d: st %d, load %u, %zu msgs", rows, cols, root, r.st, r.load,
                  r.msgs);
            run_t g = run(rows, cols, world, true, NULL, IC_COLL_GATHER, "edn", root, 64, data);
            CHECK(g.st == IC_OK && g.load == 1 && g.msgs == (size_t)n - 1,
                  "%dx%d gather root %d: st %d, load %u, %zu msgs", rows, cols, root, g.st, g.load,
                  g.msgs);
            runs += 3;
        }
        free(world);
    }
    printf("test_edn: %ld all-port runs on meshes\n", runs);
}

/* ---- 3. one-port, selection --------------------------------------------------------------- */

static void test_one_port_and_selection(void)
{
    int world[64];
    shuffle(world, 64);
    ic_net_t full = ic_net_full();
    for (int root = 0; root < 64; root += 9) /* no links: the cost is the engine's time */
        run(8, 8, world, false, &full, IC_COLL_BCAST, "edn", root, 1024, false);
    /* The control: U-mesh on all-port nodes starts a node's sends of every
     * level at once, so its messages do share links (the check can fail). */
    run_t u = run(8, 8, world, true, NULL, IC_COLL_BCAST, "umesh", 0, 1024, false);
    CHECK(u.st == IC_OK && u.load >= 2, "umesh on an all-port 8x8: max link load %u", u.load);
    /* 8x8 too: double_tree and edst are priced on a hypercube's links
     * (IC_ALGO_CUBE_LINKS), so the selector leaves them out on a mesh. */
    static const ic_coll_t colls[] = {IC_COLL_BCAST, IC_COLL_REDUCE, IC_COLL_GATHER};
    static const int sel[][2] = {{6, 6}, {5, 7}, {12, 12}, {8, 8}};
    int w[144];
    for (int z = 0; z < 4; z++) {
        shuffle(w, sel[z][0] * sel[z][1]);
        for (int c = 0; c < 3; c++) {
            run_t all = run(sel[z][0], sel[z][1], w, true, NULL, colls[c], NULL, 3, 64, false);
            run_t one = run(sel[z][0], sel[z][1], w, false, NULL, colls[c], NULL, 3, 64, false);
            CHECK(all.st == IC_OK && all.chosen && !strcmp(all.chosen, "edn"),
                  "all-port %dx%d %s chose %s", sel[z][0], sel[z][1], ic_coll_name(colls[c]),
                  all.chosen ? all.chosen : "-");
            CHECK(one.st == IC_OK && one.chosen && strcmp(one.chosen, "edn") != 0,
                  "one-port %dx%d %s chose edn", sel[z][0], sel[z][1], ic_coll_name(colls[c]));
        }
    }
    /* A subset of the mesh: not applicable, refused by name when forced. */
    int node[5] = {0, 3, 9, 12, 20};
    ic_phys_t sub = {IC_PHYS_MESH, 2, {6, 6}, node};
    ic_coll_args_t a = {.coll = IC_COLL_BCAST, .dtype = IC_UINT8, .count = 8, .phys = &sub};
    const ic_algo_t *al = NULL;
    CHECK(ic_catalog_force("t", &a, 5, "edn", &al) == IC_ERR_NOT_APPLICABLE &&
              strstr(ic_last_error(), "whole 2-D mesh"),
          "edn on a subset: %s", ic_last_error());
    a.model = M;
    a.model.ports = IC_PORTS_ALL;
    ic_choice_t best, cands[32];
    int k = ic_decide(&a, 5, NULL, &a.model, &best, cands, 32);
    CHECK(k > 0 && strcmp(best.al->name, "edn") != 0, "subset chose %s", best.al->name);
}

int main(void)
{
    test_tree();
    test_all_port();
    test_one_port_and_selection();
    printf("test_edn: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
