/*
 * test_quadrant_alltoall.c — the quadrant exchange (alltoall "quadrant",
 * algo/quadrant_alltoall.c):
 *
 *  1. the schedule (ic_quadrant_stage) for sides 2..64: S - 1 stages,
 *     level h (S/2 first) has h stages, every rank in exactly one stage
 *     per level, one quadruple per row and per column of each aligned
 *     2h x 2h square in every stage, and each level's first stage made of
 *     ranks of the previous level's last stage plus as many new ones;
 *  2. where it applies: p = 4^j (j >= 1) only, and on a 2^j x 2^j mesh
 *     only; forced elsewhere it is refused by name ("2^j x 2^j"); forced
 *     without a mesh it runs on the square;
 *  3. the plans on 4x4, 8x8, 16x16: every rank sends 3j messages of p/4
 *     blocks, to the other corners of its rectangle at every level, in
 *     the order row, column, diagonal, levels largest first, and j - 1
 *     zero-byte tokens along its row;
 *  4. on the physical mesh (ic_sim_run_net, wormhole, dimension-ordered
 *     routes, links shared) 4x4, 8x8 and 16x16: no directed link ever
 *     carries two messages, in every step of the contention report; the
 *     report has exactly 3(S - 1) data steps (the S - 2 token steps
 *     between stages aside) at the times and with the message counts of
 *     the schedule; the time equals the time without contention and the
 *     cost function (also with links slower than the nodes, beta_net >
 *     beta); dr on the same meshes does contend (the report can show it);
 *  5. move_data on the physical 4x4 and 8x8 meshes: every block arrives.
 *
 * IC_TEST_VERBOSE=1 prints every run's report.
 */
#include "algo/builders_alltoall.h"
#include "check.h"
#include "select/catalog.h"
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ic_model_t M = {
    .alpha = 3.0, .beta = 0.011, .gamma = 0.0057, .delta = 0.0, .beta_net = 0};
static int verbose;

static int log2i(int n)
{
    int d = 0;
    while ((1 << d) < n)
        d++;
    return d;
}

/* ---- 1. the schedule ------------------------------------------------------------ */

static void test_schedule(void)
{
    for (int S = 2; S <= 64; S *= 2) {
        int h = 0, res = 0;
        CHECK(!ic_quadrant_stage(S, -1, &h, &res) && !ic_quadrant_stage(S, S - 1, &h, &res),
              "side %d: stages -1 and %d exist", S, S - 1);
        int *seen = calloc((size_t)S * S, sizeof(int)); /* stages per rank at this level */
        int g = 0, prev_h = 0, prev_res = -1;
        for (int hh = S / 2; hh >= 1; hh /= 2) {
            memset(seen, 0, sizeof(int) * (size_t)S * S);
            for (int k = 0; k < hh; k++, g++) {
                bool ok = ic_quadrant_stage(S, g, &h, &res);
                CHECK(ok && h == hh && res >= 0 && res < hh,
                      "side %d stage %d: level %d residue %d, want level %d", S, g, h, res, hh);
                if (!ok || h != hh)
                    continue;
                /* One quadruple per row and per column of each 2h-square:
                 * in every row, one active rank per aligned h-segment. */
                int active = 0;
                for (int r = 0; r < S; r++)
                    for (int seg = 0; seg < S; seg += hh) {
                        int n = 0;
                        for (int c = seg; c < seg + hh; c++)
                            n += ((c - r) % hh + hh) % hh == res;
                        CHECK(n == 1, "side %d stage %d: row %d segment %d has %d ranks", S, g, r,
                              seg, n);
                    }
                for (int r = 0; r < S; r++)
                    for (int c = 0; c < S; c++)
                        if (((c - r) % hh + hh) % hh == res) {
                            seen[r * S + c]++;
                            active++;
                            /* Its quadruple's corners are in the stage too. */
                            int cr[3] = {r, r ^ hh, r ^ hh}, cc[3] = {c ^ hh, c, c ^ hh};
                            for (int q = 0; q < 3; q++)
                                CHECK(((cc[q] - cr[q]) % hh + hh) % hh == res,
                                      "side %d stage %d: (%d,%d) active, corner (%d,%d) not", S, g,
                                      r, c, cr[q], cc[q]);
                        }
                CHECK(active == S * S / hh, "side %d stage %d: %d active ranks, want %d", S, g,
                      active, S * S / hh);
                /* A level's first stage: the previous stage's ranks and as
                 * many new ones. */
                if (k == 0 && prev_h > 0) {
                    CHECK(res == prev_res % hh,
                          "side %d stage %d: residue %d mod %d, the "
                          "previous stage's is %d mod %d",
                          S, g, res, hh, prev_res, prev_h);
                }
                prev_h = hh;
                prev_res = res;
            }
            long once = 0;
            for (int i = 0; i < S * S; i++)
                once += seen[i] == 1;
            CHECK(once == S * S, "side %d level %d: %ld of %d ranks in exactly one stage", S, hh,
                  once, S * S);
        }
        CHECK(g == S - 1, "side %d: %d stages, want %d", S, g, S - 1);
        free(seen);
    }
}

/* ---- 2. where it applies --------------------------------------------------------- */

static ic_coll_args_t args_of(const ic_mesh_t *mesh, size_t count)
{
    ic_coll_args_t a = {0};
    a.coll = IC_COLL_ALLTOALL;
    a.dtype = IC_INT32;
    a.count = count;
    a.model = M;
    a.mesh = mesh;
    return a;
}

static void test_applies(void)
{
    const ic_algo_t *al = ic_catalog_find(IC_COLL_ALLTOALL, "quadrant");
    CHECK(al && (al->flags & IC_ALGO_MESH) && (al->flags & IC_ALGO_SQUARE_MESH) &&
              (al->flags & IC_ALGO_OWN_TESTS),
          "quadrant: not in the catalog as a mesh-aware square-mesh entry");
    if (!al)
        return;
    CHECK(!ic_catalog_find(IC_COLL_ALLTOALLV, "quadrant"), "quadrant has an alltoallv entry");
    for (int p = 1; p <= 300; p++) {
        ic_coll_args_t a = args_of(NULL, 3);
        bool want = p == 4 || p == 16 || p == 64 || p == 256;
        CHECK(ic_algo_applies(al, &a, p) == want, "p = %d: applies %d", p, !want);
        CHECK(ic_quadrant_side_of(p) == (want ? (int)lround(sqrt(p)) : 0),
              "ic_quadrant_side_of(%d) = %d", p, ic_quadrant_side_of(p));
        const ic_algo_t *got = NULL;
        ic_status_t st = ic_catalog_force("test", &a, p, "quadrant", &got);
        CHECK(want ? st == IC_OK && got == al
                   : st == IC_ERR_NOT_APPLICABLE && strstr(ic_last_error(), "2^j x 2^j"),
              "p = %d: forcing quadrant gave %d (%s)", p, (int)st, want ? "" : ic_last_error());
    }
    struct {
        ic_mesh_t m;
        bool ok;
    } meshes[] = {{{2, {4, 4}}, true},   {{3, {1, 4, 4}}, true}, {{3, {4, 1, 4}}, true},
                  {{2, {2, 8}}, false},  {{1, {16}}, false},     {{3, {2, 2, 4}}, false},
                  {{2, {8, 8}}, true},   {{2, {4, 16}}, false},  {{3, {4, 4, 4}}, false},
                  {{2, {16, 16}}, true}, {{2, {2, 2}}, true},    {{2, {3, 3}}, false},
                  {{2, {6, 6}}, false}};
    for (size_t k = 0; k < sizeof meshes / sizeof meshes[0]; k++) {
        const ic_mesh_t *m = &meshes[k].m;
        int p = (int)ic_mesh_size(m);
        ic_coll_args_t a = args_of(m, 3);
        CHECK(ic_algo_applies(al, &a, p) == meshes[k].ok &&
                  (ic_quadrant_side(m) > 0) == meshes[k].ok,
              "mesh %d of %d ranks: applies %d", (int)k, p, !meshes[k].ok);
        double c = al->cost(&a, p, &M);
        CHECK(meshes[k].ok ? isfinite(c) : c == HUGE_VAL, "mesh %d: cost %g", (int)k, c);
    }
    /* Forced without a mesh, it is priced (and runs) on the square. */
    for (int S = 2; S <= 16; S *= 2) {
        ic_coll_args_t a = args_of(NULL, 5);
        ic_choice_t best;
        ic_decide(&a, S * S, al, &M, &best, NULL, 0);
        CHECK(best.al == al && best.mesh.d == 2 && best.mesh.dims[0] == S &&
                  best.mesh.dims[1] == S && isfinite(best.cost),
              "p = %d: forced quadrant priced on %dx%d (d %d), cost %g", S * S, best.mesh.dims[0],
              best.mesh.dims[1], best.mesh.d, best.cost);
    }
}

/* ---- 3. the plans ----------------------------------------------------------------- */

static void test_plans(void)
{
    const size_t count = 3;
    for (int S = 4; S <= 16; S *= 2) {
        int p = S * S, j = log2i(S);
        ic_mesh_t mesh = {2, {S, S}};
        ic_coll_args_t a = args_of(&mesh, count);
        long bad = 0;
        for (int rank = 0; rank < p; rank++) {
            ic_plan_t pl;
            if (ic_plan_build("test", &a, rank, p, "quadrant", &pl) != IC_OK) {
                CHECK(0, "%dx%d rank %d: %s", S, S, rank, ic_last_error());
                continue;
            }
            int r = rank / S, c = rank % S, data = 0, tokens = 0;
            for (size_t k = 0; k < pl.nsteps; k++) {
                const ic_step_t *s = &pl.steps[k];
                if (s->kind != IC_STEP_SEND)
                    continue;
                if (s->bytes == 0) {
                    tokens += s->peer / S == r && s->peer != rank;
                    continue;
                }
                /* Message data (0-based): level data/3 (h = S/2 >> level),
                 * partner data%3 (row, column, diagonal). */
                int h = (S / 2) >> (data / 3), q = data % 3;
                int want = (q == 0 ? r : r ^ h) * S + (q == 1 ? c : c ^ h);
                if ((s->peer != want || s->bytes != (size_t)p / 4 * count * 4) && bad++ < 5)
                    printf("  %dx%d rank %d message %d: to %d (%zu B), want %d (%zu B)\n", S, S,
                           rank, data, s->peer, s->bytes, want, (size_t)p / 4 * count * 4);
                data++;
            }
            if ((data != 3 * j || tokens != j - 1) && bad++ < 5)
                printf("  %dx%d rank %d: %d data messages, %d tokens in its row; want %d, %d\n", S,
                       S, rank, data, tokens, 3 * j, j - 1);
            ic_plan_release(&pl);
        }
        CHECK(bad == 0, "%dx%d: %ld ranks' plans differ from the rectangles' schedule", S, S, bad);
    }
}

/* ---- 4. the physical mesh --------------------------------------------------------- */

typedef struct run {
    ic_status_t st;
    double time;
    size_t msgs, bytes;
    ic_sim_contention_t ct;
} run_t;

static run_t run_net(int S, const ic_net_t *net, const ic_model_t *m, const char *algo,
                     size_t count)
{
    run_t out = {0};
    int p = S * S;
    ic_mesh_t mesh = {2, {S, S}};
    ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
    for (int r = 0; r < p; r++) {
        a[r] = args_of(&mesh, count);
        a[r].model = *m;
    }
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = a;
    job.algo = algo;
    ic_sim_result_t res = {0};
    out.ct.picture_step = SIZE_MAX;
    res.contention = &out.ct;
    out.st = ic_sim_run_net(p, m, net, &job, 1, false, &res);
    out.time = res.time;
    out.msgs = res.msgs;
    out.bytes = res.bytes;
    free(a);
    return out;
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

static void test_contention(void)
{
    const ic_algo_t *al = ic_catalog_find(IC_COLL_ALLTOALL, "quadrant");
    for (int S = 4; S <= 16; S *= 2) {
        int p = S * S, j = log2i(S), dims[2] = {S, S};
        const size_t count = 16; /* int32: b = 64 bytes, p/4 blocks per message */
        double b = 4.0 * count, tau = M.alpha + p / 4 * b * M.beta;
        ic_net_t net = ic_net_mesh(2, dims), off = net;
        off.contention = false;
        run_t on = run_net(S, &net, &M, "quadrant", count);
        run_t of = run_net(S, &off, &M, "quadrant", count);
        CHECK(on.st == IC_OK && of.st == IC_OK, "%dx%d: %s", S, S, ic_last_error());
        if (on.st != IC_OK || of.st != IC_OK)
            goto next;
        const ic_sim_contention_t *ct = &on.ct;
        if (verbose) {
            printf("  quadrant %dx%d: %zu steps, max_load %u, time %.9g\n", S, S, ct->nsteps,
                   ct->max_load, on.time);
            for (size_t s = 0; s < ct->nsteps; s++)
                printf("    step %zu t=%.9g started %u max_load %u\n", s, ct->steps[s].t,
                       ct->steps[s].started, ct->steps[s].max_load);
        }
        /* Stepwise contention-free: every step, one message per link. */
        bool free1 = ct->max_load == 1;
        for (size_t s = 0; s < ct->nsteps; s++)
            free1 = free1 && ct->steps[s].max_load == 1;
        CHECK(free1, "%dx%d: max_load %u (step %zu)", S, S, ct->max_load, ct->max_step);
        /* The steps: stage g at g*(3 tau + alpha), its three data steps tau
         * apart, then its token step; S^2/h messages each. */
        size_t want_steps = (size_t)(3 * (S - 1) + (S - 2)), data_steps = 0;
        CHECK(ct->nsteps == want_steps, "%dx%d: %zu steps in the report, want %zu", S, S,
              ct->nsteps, want_steps);
        for (int g = 0; g < S - 1 && ct->nsteps == want_steps; g++) {
            int h = 0, res = 0;
            ic_quadrant_stage(S, g, &h, &res);
            double t0 = g * (3 * tau + M.alpha);
            for (int k = 0; k < (g < S - 2 ? 4 : 3); k++) {
                const ic_sim_step_load_t *st = &ct->steps[4 * g + k];
                double t = t0 + k * tau;
                CHECK(near(st->t, t) && st->started == (uint32_t)(p / h),
                      "%dx%d stage %d step %d: t=%.9g started %u, want t=%.9g started %d", S, S, g,
                      k, st->t, st->started, t, p / h);
                data_steps += k < 3;
            }
        }
        CHECK(data_steps == (size_t)(3 * (S - 1)), "%dx%d: %zu data steps, want 3(S-1) = %d", S, S,
              data_steps, 3 * (S - 1));
        /* 3j messages of p/4 blocks and j - 1 tokens per rank. */
        CHECK(on.msgs == (size_t)p * (size_t)(4 * j - 1) &&
                  on.bytes == (size_t)p * (size_t)(3 * j) * (size_t)(p / 4) * (size_t)b,
              "%dx%d: %zu messages, %zu bytes", S, S, on.msgs, on.bytes);
        /* No sharing: the same time without contention, and the cost. */
        ic_mesh_t mesh = {2, {S, S}};
        ic_coll_args_t a = args_of(&mesh, count);
        double cost = al ? al->cost(&a, p, &M) : -1;
        CHECK(on.time == of.time && near(on.time, cost) &&
                  near(cost, 3 * (S - 1) * tau + (S - 2) * M.alpha),
              "%dx%d: time %.17g, without contention %.17g, cost %.17g", S, S, on.time, of.time,
              cost);
        /* Links slower than the nodes: contention-free messages move at
         * beta_net, as the cost says. */
        ic_model_t slow = M;
        slow.beta_net = 3 * M.beta;
        ic_net_t snet = net;
        snet.beta_net = slow.beta_net;
        run_t sl = run_net(S, &snet, &slow, "quadrant", count);
        a.model = slow;
        double scost = al ? al->cost(&a, p, &slow) : -1;
        CHECK(sl.st == IC_OK && sl.ct.max_load == 1 && near(sl.time, scost) &&
                  near(scost,
                       3 * (S - 1) * (M.alpha + p / 4 * b * slow.beta_net) + (S - 2) * M.alpha),
              "%dx%d, beta_net 3 beta: time %.9g, cost %.9g, max_load %u", S, S, sl.time, scost,
              sl.ct.max_load);
        ic_sim_contention_free(&sl.ct);
        /* The report does show contention where there is some: dr's rings
         * on the same mesh share links. */
        run_t dr = run_net(S, &net, &M, "dr", count);
        CHECK(dr.st == IC_OK && dr.ct.max_load >= 2, "%dx%d: dr max_load %u", S, S, dr.ct.max_load);
        if (verbose)
            printf("  dr %dx%d: max_load %u, time %.9g\n", S, S, dr.ct.max_load, dr.time);
        ic_sim_contention_free(&dr.ct);
    next:
        ic_sim_contention_free(&on.ct);
        ic_sim_contention_free(&of.ct);
    }
}

/* ---- 5. data on the physical mesh ------------------------------------------------- */

static void test_data(void)
{
    for (int S = 4; S <= 8; S *= 2) {
        int p = S * S, dims[2] = {S, S};
        const size_t count = 3;
        ic_mesh_t mesh = {2, {S, S}};
        uint32_t **sb = calloc((size_t)p, sizeof *sb), **rb = calloc((size_t)p, sizeof *rb);
        size_t *bytes = calloc((size_t)p, sizeof *bytes);
        ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
        for (int r = 0; r < p; r++) {
            bytes[r] = (size_t)p * count * 4;
            sb[r] = malloc(bytes[r]);
            rb[r] = malloc(bytes[r]);
            for (size_t i = 0; i < (size_t)p * count; i++) {
                sb[r][i] = (uint32_t)(r * 100000 + (int)i); /* source, destination, element */
                rb[r][i] = 0xFFFFFFFFu;
            }
            a[r] = args_of(&mesh, count);
        }
        ic_net_t net = ic_net_mesh(2, dims);
        ic_sim_job_t job = {0};
        job.size = p;
        job.args = a;
        job.algo = "quadrant";
        job.sendbuf = (void *const *)sb;
        job.recvbuf = (void *const *)rb;
        job.sendbytes = bytes;
        job.recvbytes = bytes;
        ic_sim_result_t res = {0};
        ic_status_t st = ic_sim_run_net(p, &M, &net, &job, 1, true, &res);
        CHECK(st == IC_OK, "data on %dx%d: %s", S, S, ic_last_error());
        long bad = 0;
        for (int t = 0; t < p && st == IC_OK; t++)
            for (int s = 0; s < p; s++)
                for (size_t e = 0; e < count; e++) {
                    uint32_t want = (uint32_t)(s * 100000 + t * (int)count + (int)e);
                    if (rb[t][(size_t)s * count + e] != want && bad++ < 3)
                        printf("  %dx%d: rank %d block %d element %zu = %u, want %u\n", S, S, t, s,
                               e, rb[t][(size_t)s * count + e], want);
                }
        CHECK(bad == 0, "data on %dx%d: %ld wrong elements", S, S, bad);
        for (int r = 0; r < p; r++) {
            free(sb[r]);
            free(rb[r]);
        }
        free(sb);
        free(rb);
        free(bytes);
        free(a);
    }
}

int main(void)
{
    const char *v = getenv("IC_TEST_VERBOSE");
    verbose = v && v[0] == '1';
    test_schedule();
    test_applies();
    test_plans();
    test_contention();
    test_data();
    printf("test_quadrant_alltoall: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
