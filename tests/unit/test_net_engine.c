/*
 * test_net_engine.c — engine features on networks that the contention
 * tests do not reach: placement of several ranks on one node (their
 * messages use no link), torus wrap-around links, the picture step's link
 * loads, tori and meshes told apart, argument errors of ic_sim_run_net,
 * the same answer from one and from several build threads, and plans whose
 * messages do not match (the error a serial reader finds first, from any
 * number of threads).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "check.h"
#include "select/catalog.h"
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ic_model_t M = {.alpha = 5.0, .beta = 0.01, .gamma = 0.0, .delta = 0.0, .beta_net = 0};

/* Plans where rank i sends bytes to to[i] (to[i] < 0: nothing) and
 * receives from whoever sends to it; all at once. */
static ic_plan_t *perm_plans(int p, const int *to, size_t bytes)
{
    ic_plan_t *pl = calloc((size_t)p, sizeof(*pl));
    for (int r = 0; r < p; r++) {
        ic_plan_init(&pl[r], r, p, IC_COLL_ALLTOALL);
        pl[r].algo = "perm";
        if (to[r] >= 0)
            ic_plan_send(&pl[r], to[r], 0, ic_loc(IC_BUF_SEND, 0), bytes);
        for (int s = 0; s < p; s++)
            if (to[s] == r)
                ic_plan_recv(&pl[r], s, 0, ic_loc(IC_BUF_RECV, 0), bytes);
        ic_plan_finish(&pl[r]);
    }
    return pl;
}

static double run(int p, const ic_net_t *net, ic_plan_t *pl, ic_sim_contention_t *ct)
{
    ic_sim_job_t job = {0};
    job.size = p;
    job.plans = pl;
    ic_sim_result_t res = {0};
    res.contention = ct;
    ic_status_t st = ic_sim_run_net(p, &M, net, &job, 1, false, &res);
    CHECK(st == IC_OK, "run: %s", ic_last_error());
    return st == IC_OK ? res.time : -1;
}

static void free_plans(ic_plan_t *pl, int p)
{
    for (int r = 0; r < p; r++)
        ic_plan_release(&pl[r]);
    free(pl);
}

/* 8 ranks on the 4 nodes of a 2 x 2 mesh, two per node: partners on one
 * node use no link; partners on neighbouring nodes use one each. */
static void test_placement(void)
{
    int dims[2] = {2, 2}, place[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    ic_net_t net = ic_net_mesh(2, dims);
    net.place = place;
    int same[8] = {1, 0, 3, 2, 5, 4, 7, 6};
    ic_plan_t *pl = perm_plans(8, same, 1000);
    ic_sim_contention_t ct = {0};
    ct.picture_step = SIZE_MAX;
    double t = run(8, &net, pl, &ct);
    CHECK(ct.max_load == 0 && ct.max_link == -1, "same-node messages used a link: load %u",
          ct.max_load);
    CHECK(fabs(t - (5.0 + 1000 * 0.01)) < 1e-9, "same-node time %g", t);
    ic_sim_contention_free(&ct);
    free_plans(pl, 8);
    /* Rank 2k -> rank 2k+2 (mod 8): node k -> node k+1 along row-major
     * order, each a different link, all at once. */
    int next[8] = {2, -1, 4, -1, 6, -1, 0, -1};
    pl = perm_plans(8, next, 1000);
    ct = (ic_sim_contention_t){0};
    ct.picture_step = 0;
    t = run(8, &net, pl, &ct);
    CHECK(ct.max_load == 1, "placed ring: load %u", ct.max_load);
    /* Links used: node 0->1 (1 hop), 1->2 ((0,1)->(1,0): 2 hops), 2->3
     * (1 hop), 3->0 (2 hops): 6 link uses, none shared. */
    uint32_t sum = 0;
    for (long l = 0; ct.link_load && l < ct.nlinks; l++)
        sum += ct.link_load[l];
    CHECK(ct.link_load && sum == 6, "picture of step 0: %u link uses, want 6", sum);
    ic_sim_contention_free(&ct);
    free_plans(pl, 8);
    /* A placement naming a node off the network is an argument error. */
    int bad[8] = {0, 0, 1, 1, 2, 2, 3, 4};
    net.place = bad;
    pl = perm_plans(8, same, 8);
    ic_sim_job_t job = {0};
    job.size = 8;
    job.plans = pl;
    ic_sim_result_t res = {0};
    ic_status_t st = ic_sim_run_net(8, &M, &net, &job, 1, false, &res);
    CHECK(st == IC_ERR_ARG && strstr(ic_last_error(), "place[7]"),
          "bad placement: status %d, '%s'", (int)st, ic_last_error());
    free_plans(pl, 8);
}

/* A ring in one row of a 1 x 6 torus: everyone sends right, the last
 * node over the wrap link (1 hop); on a mesh its message goes back over
 * 5 links in the other direction.  Neither shares a link; with hop time
 * the mesh's wrap message is 4 hops slower. */
static void test_torus(void)
{
    int dims[2] = {1, 6}, right[6] = {1, 2, 3, 4, 5, 0};
    for (int torus = 0; torus < 2; torus++) {
        ic_net_t net = torus ? ic_net_torus(2, dims) : ic_net_mesh(2, dims);
        net.hop = 0.5;
        ic_plan_t *pl = perm_plans(6, right, 100);
        ic_sim_contention_t ct = {0};
        ct.picture_step = 0;
        double t = run(6, &net, pl, &ct);
        double want = 5.0 + (torus ? 1 : 5) * 0.5 + 100 * 0.01;
        CHECK(fabs(t - want) < 1e-9, "%s ring: time %g, want %g", torus ? "torus" : "mesh", t,
              want);
        CHECK(ct.max_load == 1, "%s ring: load %u", torus ? "torus" : "mesh", ct.max_load);
        uint32_t sum = 0;
        for (long l = 0; ct.link_load && l < ct.nlinks; l++)
            sum += ct.link_load[l];
        CHECK(sum == (torus ? 6u : 10u), "%s ring: %u link uses", torus ? "torus" : "mesh", sum);
        ic_sim_contention_free(&ct);
        free_plans(pl, 6);
    }
    /* Hop counts: the torus takes the shorter way round, ties positive. */
    int d8[1] = {8};
    ic_net_t t8 = ic_net_torus(1, d8);
    uint32_t links[8];
    CHECK(ic_net_route(&t8, 0, 7, links, 8) == 1, "torus 0->7 should be 1 hop");
    CHECK(ic_net_route(&t8, 0, 4, links, 8) == 4 && links[0] % 2 == 0,
          "torus 0->4: 4 hops the positive way");
}

/* The same catalog run with 1 and with 2 build threads: equal times and
 * reports (the plans do not depend on who built them). */
static void test_threads(void)
{
    int dims[2] = {16, 20};
    ic_mesh_t mesh = {0};
    mesh.d = 2;
    mesh.dims[0] = 16;
    mesh.dims[1] = 20;
    int p = 320;
    ic_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    for (int r = 0; r < p; r++) {
        args[r].coll = IC_COLL_ALLREDUCE;
        args[r].dtype = IC_INT32;
        args[r].op = IC_SUM;
        args[r].count = 6400;
        args[r].model = M;
        args[r].mesh = &mesh;
    }
    ic_net_t net = ic_net_mesh(2, dims);
    double t[2];
    uint32_t load[2];
    for (int k = 0; k < 2; k++) {
        setenv("IC_SIM_THREADS", k ? "2" : "1", 1);
        ic_sim_job_t job = {0};
        job.size = p;
        job.args = args;
        job.algo = "hybrid";
        ic_sim_contention_t ct = {0};
        ct.picture_step = SIZE_MAX;
        ic_sim_result_t res = {0};
        res.contention = &ct;
        ic_status_t st = ic_sim_run_net(p, &M, &net, &job, 1, false, &res);
        CHECK(st == IC_OK, "threads %d: %s", k + 1, ic_last_error());
        t[k] = res.time;
        load[k] = ct.max_load;
        ic_sim_contention_free(&ct);
    }
    unsetenv("IC_SIM_THREADS");
    CHECK(t[0] == t[1] && load[0] == load[1], "1 thread: %g (load %u), 2 threads: %g (load %u)",
          t[0], load[0], t[1], load[1]);
    /* Bad arguments on two late ranks: the lower-numbered one's error is
     * reported, whichever thread met it (a serial build's answer). */
    args[290].op = NULL;
    args[300].dtype = (ic_datatype_t)9999;
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = args;
    ic_sim_result_t res = {0};
    char first[512] = "";
    for (int k = 0; k < 2; k++) {
        setenv("IC_SIM_THREADS", k ? "2" : "1", 1);
        ic_status_t st = ic_sim_run_net(p, &M, &net, &job, 1, false, &res);
        CHECK(st == IC_ERR_OP, "threads %d: rank 290's NULL op gave status %d", k + 1, (int)st);
        if (k == 0)
            snprintf(first, sizeof first, "%s", ic_last_error());
        else
            CHECK(!strcmp(first, ic_last_error()), "1 thread: '%s', 2 threads: '%s'", first,
                  ic_last_error());
    }
    CHECK(strstr(first, "op") != NULL, "the first error should be rank 290's op: '%s'", first);
    unsetenv("IC_SIM_THREADS");
    free(args);
}

/* A ring of p = 300 plans (rank r sends 8 bytes to r + 1 with tag 0),
 * spoiled by `spoil` (0: not at all). */
static ic_plan_t *ring_plans(int p, int spoil)
{
    ic_plan_t *pl = calloc((size_t)p, sizeof(*pl));
    for (int r = 0; r < p; r++) {
        ic_plan_init(&pl[r], r, p, IC_COLL_ALLTOALL);
        pl[r].algo = "ring";
        int to = (r + 1) % p, from = (r + p - 1) % p;
        uint32_t stag = 0;
        size_t rbytes = 8;
        if (spoil == 1 && (r == 290 || r == 295)) /* no receive for these */
            stag = (uint32_t)r;
        if (spoil == 2 && r == 200)
            rbytes = 9;
        ic_plan_send(&pl[r], to, stag, ic_loc(IC_BUF_SEND, 0), 8);
        if (spoil == 5 && r == 40) /* a second send to the same receive */
            ic_plan_send(&pl[r], to, 0, ic_loc(IC_BUF_SEND, 0), 8);
        ic_plan_recv(&pl[r], from, 0, ic_loc(IC_BUF_RECV, 0), rbytes);
        if (spoil == 3 && r == 100)
            ic_plan_recv(&pl[r], from, 0, ic_loc(IC_BUF_RECV, 16), 8);
        if (spoil == 4 && r == 150)
            ic_plan_recv(&pl[r], 10, 3, ic_loc(IC_BUF_RECV, 32), 8);
        ic_plan_finish(&pl[r]);
    }
    return pl;
}

static void test_matching_errors(void)
{
    static const char *const want[] = {
        NULL,
        "job 0: send 290 -> 291 tag 0.290 has no receive",
        "job 0: send 199 -> 200 tag 0: 8 bytes sent, 9 expected",
        "job 0 rank 100 posts two receives from 99 with tag 0",
        "job 0: receive 150 <- 10 tag 3 has no send",
        "job 0: send 40 -> 41 tag 0.0 has no receive",
    };
    int p = 300;
    ic_net_t net = ic_net_full();
    for (int spoil = 0; spoil < 6; spoil++) {
        ic_plan_t *pl = ring_plans(p, spoil);
        for (int k = 0; k < 2; k++) {
            setenv("IC_SIM_THREADS", k ? "2" : "1", 1);
            ic_sim_job_t job = {0};
            job.size = p;
            job.plans = pl;
            ic_sim_result_t res = {0};
            ic_status_t st = ic_sim_run_net(p, &M, &net, &job, 1, false, &res);
            if (!want[spoil])
                CHECK(st == IC_OK && res.msgs == (size_t)p, "ring, threads %d: %s", k + 1,
                      st == IC_OK ? "messages" : ic_last_error());
            else
                CHECK(st == IC_ERR_INTERNAL && strstr(ic_last_error(), want[spoil]),
                      "spoil %d, threads %d: status %d, '%s' (want '%s')", spoil, k + 1, (int)st,
                      st == IC_OK ? "" : ic_last_error(), want[spoil]);
        }
        free_plans(pl, p);
    }
    unsetenv("IC_SIM_THREADS");
}

/* Steps the compact form stores in parts: a message of more than 2^32
 * bytes (its size split in two) is timed whole; a step with more
 * dependencies than the engine counts is refused by name. */
static void test_engine_limits(void)
{
    size_t n = (size_t)5 << 30;
    ic_plan_t pl[2];
    for (int r = 0; r < 2; r++) {
        ic_plan_init(&pl[r], r, 2, IC_COLL_ALLTOALL);
        pl[r].algo = "big";
        if (r == 0)
            ic_plan_send(&pl[r], 1, 0, ic_loc(IC_BUF_SEND, 0), n);
        else
            ic_plan_recv(&pl[r], 0, 0, ic_loc(IC_BUF_RECV, 0), n);
        ic_plan_finish(&pl[r]);
    }
    ic_net_t net = ic_net_full();
    ic_sim_job_t job = {0};
    job.size = 2;
    job.plans = pl;
    ic_sim_result_t res = {0};
    ic_status_t st = ic_sim_run_net(2, &M, &net, &job, 1, false, &res);
    CHECK(st == IC_OK && res.bytes == n && res.time == M.alpha + (double)n * M.beta,
          "5 GiB message: %s, %zu bytes, %.17g us (want %.17g)",
          st == IC_OK ? "ok" : ic_last_error(), res.bytes, res.time,
          M.alpha + (double)n * M.beta);
    for (int r = 0; r < 2; r++)
        ic_plan_release(&pl[r]);

    enum { W = 70000 }; /* writers of one byte each, then one reader of all */
    ic_plan_t one;
    ic_plan_init(&one, 0, 1, IC_COLL_ALLTOALL);
    one.algo = "fan-in";
    size_t base = ic_plan_scratch(&one, 2 * (size_t)W);
    for (size_t k = 0; k < W; k++)
        ic_plan_copy(&one, ic_loc(IC_BUF_SEND, 0), ic_loc(IC_BUF_SCRATCH, base + k), 1);
    ic_plan_copy(&one, ic_loc(IC_BUF_SCRATCH, base), ic_loc(IC_BUF_SCRATCH, base + W), W);
    ic_plan_finish(&one);
    CHECK(one.error == IC_OK && one.steps[W].ndeps == W, "fan-in plan: status %d, %u deps",
          (int)one.error, one.error ? 0u : one.steps[W].ndeps);
    job.size = 1;
    job.plans = &one;
    st = ic_sim_run_net(1, &M, &net, &job, 1, false, &res);
    CHECK(st == IC_ERR_ARG && strstr(ic_last_error(), "70000 dependencies") &&
              strstr(ic_last_error(), "at most 65535"),
          "a step with 70000 dependencies: status %d, '%s'", (int)st,
          st == IC_OK ? "" : ic_last_error());
    ic_plan_release(&one);
}

int main(void)
{
    test_placement();
    test_torus();
    test_threads();
    test_matching_errors();
    test_engine_limits();
    printf("test_net_engine: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
