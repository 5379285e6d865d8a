/*
 * test_net_contention.c — the engine on physical networks (ic_sim_run_net):
 *
 *  1. catalog entries on meshes 5x7, 6x6, 4x4x4, 3x5x7 (logical mesh = the
 *     physical one, rank r on node r, dimension-ordered routing): the
 *     dimensional-ring entries (bcast sc, reduce dg, allgather dr,
 *     reduce_scatter_block dr, allreduce dr) never put two messages on one
 *     link, and then run exactly as fast as without contention; the
 *     hybrids (bcast mst_sc, reduce mst_dg) are contention-free when their
 *     schedule uses whole dimensions (their MST goes one dimension after
 *     the other), and contend otherwise (factored dimensions are
 *     interleaved prime factors rings, [Watts94] section 5.2); the 1-D MST
 *     entries (bcast,
 *     reduce, scatter, gather "mst": recursive splitting over row-major
 *     ranks) are contention-free on 4x4x4 and on a line, and contend on
 *     5x7, 6x6 and 3x5x7 (SEE_REPORT marks these expectations);
 *  2. hand-built broadcast trees: halving over rank order and sending to
 *     the first node of the other half ([Watts94], Figure 1) contends on
 *     non-power-of-two meshes, the link named is on two messages' routes
 *     of the same level; recursive splitting of the mesh into sub-meshes
 *     (dimension by dimension, or longest side first) is contention-free
 *     for every root;
 *  3. with the full network, and with a mesh without contention and with
 *     no hop time, every applicable entry of bcast, reduce, allreduce,
 *     allgather, reduce_scatter_block and alltoall takes exactly
 *     ic_sim_run's time (p = 12 and 35);
 *  4. vector reversal (i -> ~i) on hypercubes 3..7 uses edge-disjoint e-cube
 *     paths (max load 1, checked against ic_net_route too); a transpose
 *     on a 2-D mesh and a bit-half swap on a hypercube contend, with the
 *     engine's load equal to the routes' count;
 *  5. move_data on 4x4x4 (allreduce dr, float sums) gives the serial sums;
 *  6. circuit switching: alpha + h*hop + n*beta for one message, a second
 *     message sharing a link waits for the first circuit; store-and-
 *     forward: alpha + h*hop + h*n*beta;
 *  7. wormhole flows: two messages sharing a link with beta_net = beta end
 *     at alpha + 2*n*beta, with beta_net = beta/2 at alpha + n*beta; a
 *     shorter message leaving lets the longer speed up.
 *
 * IC_TEST_VERBOSE=1 prints every run's contention report.
 */
#include "check.h"
#include "algo/builders_mesh.h"
#include "select/catalog.h"
#include "sim/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ic_model_t M = {.alpha = 3.0, .beta = 0.011, .gamma = 0.0057, .delta = 0.0, .beta_net = 0};
static int verbose;

/* ---- small helpers ----------------------------------------------------------- */

typedef struct shape {
    int d;
    int dims[IC_NET_MAX_DIMS];
} shape_t;

static int shape_size(const shape_t *s)
{
    int p = 1;
    for (int k = 0; k < s->d; k++)
        p *= s->dims[k];
    return p;
}

static const char *shape_str(const shape_t *s, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int k = 0; k < s->d && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d", k ? "x" : "", s->dims[k]);
    return buf;
}

static ic_mesh_t mesh_of(const shape_t *s)
{
    ic_mesh_t m = {0};
    m.d = s->d;
    for (int k = 0; k < s->d; k++)
        m.dims[k] = s->dims[k];
    return m;
}

static bool same_time(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) + 1e-300); }

static void link_str(const ic_net_t *net, long link, char *buf, size_t len)
{
    ic_net_link_name(net, link, buf, len);
}

static bool route_has(const ic_net_t *net, int a, int b, long link)
{
    uint32_t r[256];
    int h = ic_net_route(net, a, b, r, 256);
    for (int k = 0; k < h && k < 256; k++)
        if ((long)r[k] == link)
            return true;
    return false;
}

static void print_report(const ic_net_t *net, const ic_sim_contention_t *c, bool all)
{
    char ln[128];
    for (size_t s = 0; s < c->nsteps; s++) {
        if (!all && c->steps[s].max_load < 2)
            continue;
        link_str(net, c->steps[s].link, ln, sizeof ln);
        printf("      step %zu t=%.9g started %u max_load %u on %s\n", s, c->steps[s].t,
               c->steps[s].started, c->steps[s].max_load, ln);
    }
}

/* The report is consistent: max_load is the most of the steps', max_step
 * the first step reaching it, its link the step's link; the steps started
 * msgs messages in all (SIZE_MAX: not checked). */
static void check_report(const ic_sim_contention_t *c, const char *what, size_t msgs)
{
    uint32_t most = 0;
    size_t first = SIZE_MAX;
    size_t started = 0;
    for (size_t s = 0; s < c->nsteps; s++) {
        started += c->steps[s].started;
        if (c->steps[s].max_load > most) {
            most = c->steps[s].max_load;
            first = s;
        }
        if (s > 0 && !(c->steps[s].t > c->steps[s - 1].t)) {
            CHECK(0, "%s: report steps %zu and %zu not in increasing time (%.9g, %.9g)", what,
                  s - 1, s, c->steps[s - 1].t, c->steps[s].t);
            break;
        }
    }
    CHECK(most == c->max_load, "%s: report max_load %u, most of its steps %u", what, c->max_load,
          most);
    if (most > 0 && first != SIZE_MAX)
        CHECK(c->max_step == first && c->max_link == c->steps[first].link,
              "%s: report max_step %zu link %ld, first step reaching %u is %zu (link %ld)", what,
              c->max_step, c->max_link, most, first, c->steps[first].link);
    if (msgs != SIZE_MAX)
        CHECK(started == msgs, "%s: report's steps started %zu messages, the run sent %zu",
              what, started, msgs);
}

/* ---- catalog runs -------------------------------------------------------------- */

typedef struct run {
    ic_status_t st;
    double time;
    size_t msgs, bytes, steps;
    ic_sim_contention_t ct;
    const char *chosen;
} run_t;

static void args_fill(ic_coll_args_t *a, int p, ic_coll_t coll, size_t count, int root,
                      const ic_mesh_t *mesh, ic_datatype_t dt)
{
    for (int r = 0; r < p; r++) {
        a[r] = (ic_coll_args_t){0};
        a[r].coll = coll;
        a[r].dtype = dt;
        a[r].op = IC_SUM;
        a[r].root = root;
        a[r].count = count;
        a[r].model = M;
        a[r].mesh = mesh;
    }
}

/* Runs entry algo (NULL: auto) of coll on p ranks; net NULL: ic_sim_run. */
static run_t run_coll(int p, const ic_net_t *net, bool use_net, ic_coll_t coll, const char *algo,
                      size_t count, int root, const ic_mesh_t *mesh, bool report,
                      size_t picture)
{
    run_t out = {0};
    ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
    args_fill(a, p, coll, count, root, mesh, IC_INT32);
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = a;
    job.algo = algo;
    ic_sim_result_t res = {0};
    out.ct.picture_step = picture;
    if (report)
        res.contention = &out.ct;
    out.st = use_net ? ic_sim_run_net(p, &M, net, &job, 1, false, &res)
                     : ic_sim_run(p, &M, &job, 1, false, &res);
    out.time = res.time;
    out.msgs = res.msgs;
    out.bytes = res.bytes;
    out.steps = res.steps;
    out.chosen = job.chosen;
    free(a);
    return out;
}

/* Lists the messages of the entry whose routes use link (from the plans,
 * not timed: the reader matches them to the step). */
static void list_link_messages(const ic_net_t *net, int p, ic_coll_t coll, const char *algo,
                               size_t count, int root, const ic_mesh_t *mesh, long link)
{
    ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
    args_fill(a, p, coll, count, root, mesh, IC_INT32);
    int shown = 0;
    for (int r = 0; r < p && shown < 12; r++) {
        ic_plan_t pl;
        if (ic_plan_build("test", &a[r], r, p, algo, &pl) != IC_OK)
            continue;
        for (size_t k = 0; k < pl.nsteps && shown < 12; k++) {
            const ic_step_t *s = &pl.steps[k];
            if (s->kind != IC_STEP_SEND || !route_has(net, r, s->peer, link))
                continue;
            printf("        message %d -> %d (rank %d plan step %zu, tag %u.%u, %zu bytes)\n", r,
                   s->peer, r, k, s->tag >> IC_TAG_PHASE_SHIFT, s->tag & IC_TAG_MAX_IN_PHASE,
                   s->bytes);
            shown++;
        }
        ic_plan_release(&pl);
    }
    free(a);
}

typedef enum expect { EXP_FREE, EXP_CONTENDS, EXP_SCHEDULE } expect_t;

typedef struct entry {
    ic_coll_t coll;
    const char *algo;
    bool blocks; /* count is per rank */
    bool rooted;
} entry_t;

static const entry_t ring_entries[] = {
    {IC_COLL_BCAST, "sc", false, true},
    {IC_COLL_REDUCE, "dg", false, true},
    {IC_COLL_ALLGATHER, "dr", true, false},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "dr", true, false},
    {IC_COLL_ALLREDUCE, "dr", false, false},
};
static const entry_t hybrid_entries[] = {
    {IC_COLL_BCAST, "mst_sc", false, true},
    {IC_COLL_REDUCE, "mst_dg", false, true},
};
static const entry_t mst_entries[] = {
    {IC_COLL_BCAST, "mst", false, true},
    {IC_COLL_REDUCE, "mst", false, true},
    {IC_COLL_SCATTER, "mst", true, true},
    {IC_COLL_GATHER, "mst", true, true},
};

static size_t count_for(const entry_t *e, size_t bytes, int p)
{
    size_t n = bytes / 4;
    if (e->blocks)
        return n / (size_t)p ? n / (size_t)p : 1;
    n = n / (size_t)p * (size_t)p; /* equal pieces */
    return n ? n : (size_t)p;
}

/* A hybrid's schedule is "dimensional" when its rings are the mesh's
 * dimensions (none factored) and its short part (the MST) spans at most one
 * of them. */
static bool hybrid_dimensional(const entry_t *e, const shape_t *sh, size_t count, int root,
                               char *desc, size_t len)
{
    int p = shape_size(sh);
    ic_mesh_t mesh = mesh_of(sh);
    ic_coll_args_t a;
    args_fill(&a, 1, e->coll, count, root, &mesh, IC_INT32);
    ic_sched_t s = ic_mesh_sched(&a, p, IC_MV_HYBRID, &M);
    int real = 0;
    for (int k = 0; k < sh->d; k++)
        real += sh->dims[k] > 1;
    const ic_algo_t *al = ic_catalog_find(e->coll, e->algo);
    desc[0] = '\0';
    if (al && al->describe)
        al->describe(&a, p, &M, desc, len);
    return s.nrings == real;
}

static long cat_runs;

/* One entry on one shape, size and root: contention on and off. */
static void contention_case(const entry_t *e, const shape_t *sh, size_t bytes, int root,
                            expect_t exp, const char *why)
{
    int p = shape_size(sh);
    ic_mesh_t mesh = mesh_of(sh);
    ic_net_t net = ic_net_mesh(sh->d, sh->dims);
    ic_net_t off = net;
    off.contention = false;
    size_t count = count_for(e, bytes, p);
    char sn[64], what[256], ln[128];
    shape_str(sh, sn, sizeof sn);
    snprintf(what, sizeof what, "mesh %s %s/%s n=%zu B root %d", sn, ic_coll_name(e->coll),
             e->algo, count * 4, root);
    char desc[256] = "";
    if (exp == EXP_SCHEDULE) {
        exp = hybrid_dimensional(e, sh, count, root, desc, sizeof desc) ? EXP_FREE
                                                                        : EXP_CONTENDS;
        snprintf(what + strlen(what), sizeof what - strlen(what), " [%s]", desc);
    }
    run_t on = run_coll(p, &net, true, e->coll, e->algo, count, root, &mesh, true, SIZE_MAX);
    run_t of = run_coll(p, &off, true, e->coll, e->algo, count, root, &mesh, true, SIZE_MAX);
    cat_runs += 2;
    CHECK(on.st == IC_OK && of.st == IC_OK, "%s: run failed: %s", what, ic_last_error());
    if (on.st != IC_OK || of.st != IC_OK)
        goto out;
    CHECK(on.chosen && strcmp(on.chosen, e->algo) == 0, "%s: ran %s", what,
          on.chosen ? on.chosen : "?");
    check_report(&on.ct, what, on.msgs);
    check_report(&of.ct, what, of.msgs);
    link_str(&net, on.ct.max_link, ln, sizeof ln);
    if (verbose) {
        printf("  %s: max_load %u (step %zu, %s), %zu steps, time %.9g (off %.9g, off's "
               "load %u)\n",
               what, on.ct.max_load, on.ct.max_step, ln, on.ct.nsteps, on.time, of.time,
               of.ct.max_load);
        print_report(&net, &on.ct, verbose > 1);
    }
    CHECK(on.ct.max_load >= 1, "%s: no link used (max_load %u)", what, on.ct.max_load);
    if (exp == EXP_FREE) {
        bool ok = on.ct.max_load == 1;
        for (size_t s = 0; s < on.ct.nsteps; s++)
            ok = ok && on.ct.steps[s].max_load <= 1;
        CHECK(ok, "%s: expected contention-free, max_load %u at step %zu on %s (%s)", what,
              on.ct.max_load, on.ct.max_step, ln, why);
        if (!ok && failed < 60) {
            print_report(&net, &on.ct, false);
            printf("      messages routed over %s:\n", ln);
            list_link_messages(&net, p, e->coll, e->algo, count, root, &mesh, on.ct.max_link);
        }
        /* No sharing: no slowdown, to the last digit, and the same steps. */
        CHECK(on.time == of.time, "%s: contention-free but time %.17g with contention, %.17g "
              "without", what, on.time, of.time);
        CHECK(of.ct.nsteps == on.ct.nsteps && of.ct.max_load == on.ct.max_load,
              "%s: contention-free, but the report without contention has %zu steps, max_load "
              "%u (with: %zu, %u)", what, of.ct.nsteps, of.ct.max_load, on.ct.nsteps,
              on.ct.max_load);
    } else {
        CHECK(on.ct.max_load >= 2, "%s: expected contention (%s), max_load %u", what, why,
              on.ct.max_load);
        /* Shared links (beta_net = beta) never speed it up (they need not
         * slow it down: the shared messages may be off the critical path). */
        CHECK(on.time >= of.time, "%s: contended (max_load %u) but time %.9g with contention, "
              "%.9g without", what, on.ct.max_load, on.time, of.time);
        if (on.time == of.time)
            printf("  NOTE %s: max_load %u but no slowdown (%.9g)\n", what, on.ct.max_load,
                   on.time);
    }
    /* Without contention the links are still counted for the report. */
    CHECK(of.ct.nsteps > 0 && of.ct.max_load >= 1, "%s: contention off: no report (%zu steps, "
          "max %u)", what, of.ct.nsteps, of.ct.max_load);
    CHECK(on.msgs == of.msgs && on.bytes == of.bytes && on.steps == of.steps,
          "%s: msgs/bytes/steps differ with contention (%zu/%zu/%zu vs %zu/%zu/%zu)", what,
          on.msgs, on.bytes, on.steps, of.msgs, of.bytes, of.steps);
    /* The picture of the worst step agrees with the report. */
    if (on.ct.max_load >= 2) {
        run_t pic =
            run_coll(p, &net, true, e->coll, e->algo, count, root, &mesh, true, on.ct.max_step);
        bool ok = pic.st == IC_OK && pic.ct.link_load && pic.ct.nlinks == ic_net_links(&net, p);
        uint32_t most = 0;
        for (long l = 0; ok && l < pic.ct.nlinks; l++)
            if (pic.ct.link_load[l] > most)
                most = pic.ct.link_load[l];
        CHECK(ok && pic.ct.link_load[on.ct.max_link] == on.ct.max_load &&
                  most == on.ct.max_load && pic.time == on.time,
              "%s: picture of step %zu: link_load[%s] = %u, most %u, want %u (time %.9g vs "
              "%.9g)",
              what, on.ct.max_step, ln, ok ? pic.ct.link_load[on.ct.max_link] : 0, most,
              on.ct.max_load, pic.time, on.time);
        ic_sim_contention_free(&pic.ct);
    }
out:
    ic_sim_contention_free(&on.ct);
    ic_sim_contention_free(&of.ct);
}

static const shape_t shapes[] = {{2, {5, 7}}, {2, {6, 6}}, {3, {4, 4, 4}}, {3, {3, 5, 7}}};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static bool pow2_dims(const shape_t *s)
{
    for (int k = 0; k < s->d; k++)
        if (s->dims[k] & (s->dims[k] - 1))
            return false;
    return true;
}

static void test_catalog_contention(void)
{
    const size_t sizes[] = {1024, 32768, 1048576};
    for (size_t si = 0; si < NSHAPES; si++) {
        const shape_t *sh = &shapes[si];
        int p = shape_size(sh);
        int roots[2] = {0, p / 3};
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            for (size_t i = 0; i < sizeof ring_entries / sizeof ring_entries[0]; i++)
                for (int ri = 0; ri < (ring_entries[i].rooted ? 2 : 1); ri++)
                    contention_case(&ring_entries[i], sh, sizes[z], roots[ri], EXP_FREE,
                                    "dimensional rings");
            for (size_t i = 0; i < sizeof hybrid_entries / sizeof hybrid_entries[0]; i++)
                for (int ri = 0; ri < 2; ri++)
                    contention_case(&hybrid_entries[i], sh, sizes[z], roots[ri], EXP_SCHEDULE,
                                    "free iff whole dimensions");
            /* SEE_REPORT: the 1-D MST over row-major ranks contends on
             * meshes whose sides are not powers of two (its subranges are
             * not sub-meshes, and routes leave them). */
            for (size_t i = 0; i < sizeof mst_entries / sizeof mst_entries[0]; i++)
                for (int ri = 0; ri < 2; ri++)
                    contention_case(&mst_entries[i], sh, sizes[z], roots[ri],
                                    pow2_dims(sh) ? EXP_FREE : EXP_CONTENDS,
                                    "1-D MST over row-major ranks");
        }
    }
    /* The 1-D MST on a line (a 1-D mesh) is contention-free, for every
     * shape's p and any root. */
    for (size_t si = 0; si < NSHAPES; si++) {
        shape_t line = {1, {shape_size(&shapes[si])}};
        for (size_t i = 0; i < sizeof mst_entries / sizeof mst_entries[0]; i++)
            for (int root = 0; root < line.dims[0]; root += 7)
                contention_case(&mst_entries[i], &line, 32768, root, EXP_FREE,
                                "recursive splitting on a line");
    }
}

/* ---- hand-built plans ------------------------------------------------------- */

typedef struct msg {
    int from, to;
    size_t bytes;
    int level;
} msg_t;

typedef struct msgs {
    msg_t *v;
    int n, cap;
} msgs_t;

static void msgs_add(msgs_t *m, int from, int to, size_t bytes, int level)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->v = realloc(m->v, sizeof(msg_t) * (size_t)m->cap);
    }
    m->v[m->n++] = (msg_t){from, to, bytes, level};
}

/* A broadcast tree's plans: every rank receives its one message, then
 * sends to its children in level order (one buffer: the sends wait for the
 * receive). */
static ic_plan_t *tree_plans(int p, const msgs_t *t, size_t bytes)
{
    ic_plan_t *pl = calloc((size_t)p, sizeof *pl);
    for (int r = 0; r < p; r++) {
        ic_plan_init(&pl[r], r, p, IC_COLL_BCAST);
        ic_plan_next_phase(&pl[r]);
        for (int k = 0; k < t->n; k++)
            if (t->v[k].to == r)
                ic_plan_recv(&pl[r], t->v[k].from, 0, ic_loc(IC_BUF_RECV, 0), bytes);
        for (int lv = 0; lv < 64; lv++)
            for (int k = 0; k < t->n; k++)
                if (t->v[k].from == r && t->v[k].level == lv)
                    ic_plan_send(&pl[r], t->v[k].to, 0, ic_loc(IC_BUF_RECV, 0), bytes);
        CHECK(ic_plan_finish(&pl[r]) == IC_OK, "tree plan of rank %d: %s", r, ic_last_error());
    }
    return pl;
}

/* Independent messages, all ready at once: message k is tag k, read from
 * the send buffer, received into its own part of the receive buffer. */
static ic_plan_t *msg_plans(int p, const msgs_t *m)
{
    ic_plan_t *pl = calloc((size_t)p, sizeof *pl);
    size_t *roff = calloc((size_t)p, sizeof *roff);
    for (int r = 0; r < p; r++) {
        ic_plan_init(&pl[r], r, p, IC_COLL_ALLTOALL);
        ic_plan_next_phase(&pl[r]);
    }
    for (int k = 0; k < m->n; k++) {
        const msg_t *x = &m->v[k];
        ic_plan_send(&pl[x->from], x->to, (uint32_t)k, ic_loc(IC_BUF_SEND, 0), x->bytes);
        ic_plan_recv(&pl[x->to], x->from, (uint32_t)k, ic_loc(IC_BUF_RECV, roff[x->to]),
                     x->bytes);
        roff[x->to] += x->bytes;
    }
    for (int r = 0; r < p; r++)
        CHECK(ic_plan_finish(&pl[r]) == IC_OK, "message plan of rank %d: %s", r,
              ic_last_error());
    free(roff);
    return pl;
}

static void plans_free(ic_plan_t *pl, int p)
{
    for (int r = 0; r < p; r++)
        ic_plan_release(&pl[r]);
    free(pl);
}

/* Runs plans on net; returns the status. */
static ic_status_t run_plans(int p, const ic_net_t *net, ic_plan_t *pl, size_t count,
                             ic_sim_contention_t *ct, double *time)
{
    ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
    args_fill(a, p, pl[0].coll, count, 0, NULL, IC_UINT8);
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = a;
    job.plans = pl;
    ic_sim_result_t res = {0};
    if (ct) {
        memset(ct, 0, sizeof *ct);
        ct->picture_step = SIZE_MAX;
    }
    res.contention = ct;
    ic_status_t st = ic_sim_run_net(p, &M, net, &job, 1, false, &res);
    *time = res.time;
    free(a);
    return st;
}

/* 1-D halving of [lo, hi] (inclusive; mid = lo + (hi - lo) / 2, as
 * patterns.c): the other half's new root is its far end (recursive
 * splitting, [Watts94] section 5.1, what "mst" does) or its first node
 * ([Watts94]'s naive first cut, Figure 1). */
enum { TREE_FAR_END, TREE_FIRST_NODE };

static void tree_1d(msgs_t *t, int lo, int hi, int r, int level, int kind, size_t bytes)
{
    if (lo >= hi)
        return;
    int mid = lo + (hi - lo) / 2, dest;
    if (r <= mid)
        dest = kind == TREE_FAR_END ? hi : mid + 1;
    else
        dest = lo; /* far end and first node agree */
    msgs_add(t, r, dest, bytes, level);
    if (r <= mid) {
        tree_1d(t, lo, mid, r, level + 1, kind, bytes);
        tree_1d(t, mid + 1, hi, dest, level + 1, kind, bytes);
    } else {
        tree_1d(t, mid + 1, hi, r, level + 1, kind, bytes);
        tree_1d(t, lo, mid, dest, level + 1, kind, bytes);
    }
}

/* Recursive splitting of the mesh into sub-meshes: the box [lo, hi] is
 * halved along dimension k (the first unsplit one, or the longest), the
 * other half's new root is the root moved to that half's far end. */
enum { BOX_DIMWISE, BOX_LONGEST };

static int node_of(const shape_t *s, const int *c)
{
    int n = 0;
    for (int k = 0; k < s->d; k++)
        n = n * s->dims[k] + c[k];
    return n;
}

static void tree_box(msgs_t *t, const shape_t *s, const int *lo, const int *hi, const int *root,
                     int level, int kind, size_t bytes)
{
    int k = -1;
    for (int j = 0; j < s->d; j++) {
        if (hi[j] <= lo[j])
            continue;
        if (k < 0 || (kind == BOX_LONGEST && hi[j] - lo[j] > hi[k] - lo[k]))
            k = j;
        if (kind == BOX_DIMWISE)
            break;
    }
    if (k < 0)
        return;
    int mid = lo[k] + (hi[k] - lo[k]) / 2;
    int dest[IC_NET_MAX_DIMS], nlo[IC_NET_MAX_DIMS], nhi[IC_NET_MAX_DIMS];
    int olo[IC_NET_MAX_DIMS], ohi[IC_NET_MAX_DIMS];
    memcpy(dest, root, sizeof(int) * (size_t)s->d);
    memcpy(nlo, lo, sizeof(int) * (size_t)s->d);
    memcpy(nhi, hi, sizeof(int) * (size_t)s->d);
    memcpy(olo, lo, sizeof(int) * (size_t)s->d);
    memcpy(ohi, hi, sizeof(int) * (size_t)s->d);
    if (root[k] <= mid) {
        dest[k] = hi[k];
        nhi[k] = mid;
        olo[k] = mid + 1;
    } else {
        dest[k] = lo[k];
        nlo[k] = mid + 1;
        ohi[k] = mid;
    }
    msgs_add(t, node_of(s, root), node_of(s, dest), bytes, level);
    tree_box(t, s, nlo, nhi, root, level + 1, kind, bytes);
    tree_box(t, s, olo, ohi, dest, level + 1, kind, bytes);
}

typedef struct tree_result {
    ic_status_t st;
    double time;
    ic_sim_contention_t ct;
} tree_result_t;

static tree_result_t run_tree(const shape_t *sh, const msgs_t *t, size_t bytes)
{
    int p = shape_size(sh);
    ic_net_t net = ic_net_mesh(sh->d, sh->dims);
    ic_plan_t *pl = tree_plans(p, t, bytes);
    tree_result_t r;
    r.st = run_plans(p, &net, pl, bytes, &r.ct, &r.time);
    plans_free(pl, p);
    return r;
}

static void test_trees(void)
{
    const size_t bytes = 4096;
    const double T = M.alpha + (double)bytes * M.beta;
    char sn[64], ln[128];
    /* Naive halving contends on non-power-of-two meshes. */
    const shape_t naive_shapes[] = {{2, {5, 7}}, {3, {3, 5, 7}}, {2, {6, 6}}};
    for (size_t si = 0; si < sizeof naive_shapes / sizeof naive_shapes[0]; si++) {
        const shape_t *sh = &naive_shapes[si];
        int p = shape_size(sh);
        ic_net_t net = ic_net_mesh(sh->d, sh->dims);
        shape_str(sh, sn, sizeof sn);
        int contended = 0, far_contended = 0, first_root = -1;
        for (int root = 0; root < p; root++) {
            msgs_t t = {0};
            tree_1d(&t, 0, p - 1, root, 0, TREE_FIRST_NODE, bytes);
            CHECK(t.n == p - 1, "naive tree on %s root %d has %d edges", sn, root, t.n);
            tree_result_t r = run_tree(sh, &t, bytes);
            CHECK(r.st == IC_OK, "naive tree on %s root %d: %s", sn, root, ic_last_error());
            check_report(&r.ct, "naive tree", (size_t)(p - 1));
            if (r.ct.max_load >= 2) {
                contended++;
                if (first_root < 0)
                    first_root = root;
                /* The first contended step starts one level's messages
                 * (no slowdown before it), two of which use the link. */
                size_t s = 0;
                while (s < r.ct.nsteps && r.ct.steps[s].max_load < 2)
                    s++;
                double tt = r.ct.steps[s].t;
                int level = (int)lround(tt / T);
                long link = r.ct.steps[s].link;
                int on_link = 0;
                for (int k = 0; k < t.n; k++)
                    on_link += t.v[k].level == level &&
                               route_has(&net, t.v[k].from, t.v[k].to, link);
                link_str(&net, link, ln, sizeof ln);
                CHECK(same_time(tt, level * T) && on_link >= 2 &&
                          (uint32_t)on_link >= r.ct.steps[s].max_load,
                      "naive tree on %s root %d: step %zu at t=%.9g (level %d?) max_load %u on "
                      "%s, but %d level-%d messages route over it",
                      sn, root, s, tt, level, r.ct.steps[s].max_load, ln, on_link, level);
                if (verbose || root == first_root) {
                    printf("  naive halving, mesh %s root %d: step %zu (level %d, t=%g) "
                           "max_load %u on %s:", sn, root, s, level, tt,
                           r.ct.steps[s].max_load, ln);
                    for (int k = 0; k < t.n; k++)
                        if (t.v[k].level == level &&
                            route_has(&net, t.v[k].from, t.v[k].to, link))
                            printf(" %d->%d", t.v[k].from, t.v[k].to);
                    printf("\n");
                }
                /* Shared links slow it down. */
                CHECK(r.time > (double)level * T, "naive tree on %s root %d: time %.9g",
                      sn, root, r.time);
            }
            ic_sim_contention_free(&r.ct);
            free(t.v);
            /* The far-end version over rank order (= catalog "mst"). */
            msgs_t f = {0};
            tree_1d(&f, 0, p - 1, root, 0, TREE_FAR_END, bytes);
            tree_result_t rf = run_tree(sh, &f, bytes);
            CHECK(rf.st == IC_OK, "far-end tree on %s root %d: %s", sn, root, ic_last_error());
            far_contended += rf.ct.max_load >= 2;
            if (root == 0 || root == p / 3) {
                /* Same messages as the catalog's 1-D MST: same time and load. */
                ic_mesh_t mesh = mesh_of(sh);
                run_t c = run_coll(p, &net, true, IC_COLL_BCAST, "mst", bytes / 4, root, &mesh,
                                   true, SIZE_MAX);
                CHECK(c.st == IC_OK && c.time == rf.time && c.ct.max_load == rf.ct.max_load,
                      "far-end tree on %s root %d: time %.9g load %u, catalog mst %.9g load %u",
                      sn, root, rf.time, rf.ct.max_load, c.time, c.ct.max_load);
                ic_sim_contention_free(&c.ct);
            }
            ic_sim_contention_free(&rf.ct);
            free(f.v);
        }
        printf("  mesh %s: rank-order halving contends for %d of %d roots sending to the first "
               "node of the other half, %d of %d sending to its far end\n",
               sn, contended, p, far_contended, p);
        CHECK(contended >= 1, "naive halving on %s never contends", sn);
        /* SEE_REPORT: recursive splitting over row-major ranks is not
         * contention-free on these meshes either (far end from (1,1) to
         * (0,5) crosses row 0's partition). */
        CHECK(far_contended >= 1, "far-end halving over rank order on %s never contends", sn);
    }
    /* Splitting the mesh into sub-meshes is contention-free, every root. */
    for (size_t si = 0; si < NSHAPES; si++) {
        const shape_t *sh = &shapes[si];
        int p = shape_size(sh);
        shape_str(sh, sn, sizeof sn);
        int lo[IC_NET_MAX_DIMS] = {0}, hi[IC_NET_MAX_DIMS], rc[IC_NET_MAX_DIMS];
        for (int k = 0; k < sh->d; k++)
            hi[k] = sh->dims[k] - 1;
        int levels[2] = {0, 0};
        for (int kind = BOX_DIMWISE; kind <= BOX_LONGEST; kind++)
            for (int root = 0; root < p; root++) {
                for (int k = sh->d - 1, x = root; k >= 0; k--) {
                    rc[k] = x % sh->dims[k];
                    x /= sh->dims[k];
                }
                msgs_t t = {0};
                tree_box(&t, sh, lo, hi, rc, 0, kind, bytes);
                int depth = 0;
                for (int k = 0; k < t.n; k++)
                    depth = t.v[k].level + 1 > depth ? t.v[k].level + 1 : depth;
                levels[kind] = depth;
                tree_result_t r = run_tree(sh, &t, bytes);
                ic_net_t net = ic_net_mesh(sh->d, sh->dims);
                link_str(&net, r.ct.max_link, ln, sizeof ln);
                CHECK(r.st == IC_OK && t.n == p - 1 && r.ct.max_load == 1 &&
                          same_time(r.time, depth * T),
                      "sub-mesh splitting (%s) on %s root %d: %d edges, max_load %u at step "
                      "%zu on %s, time %.9g (want %d levels = %.9g)",
                      kind == BOX_DIMWISE ? "dimension by dimension" : "longest side", sn, root,
                      t.n, r.ct.max_load, r.ct.max_step, ln, r.time, depth, depth * T);
                ic_sim_contention_free(&r.ct);
                free(t.v);
            }
        if (verbose)
            printf("  mesh %s: sub-mesh splitting contention-free, %d levels (dimension by "
                   "dimension), %d (longest side)\n", sn, levels[0], levels[1]);
    }
}

/* ---- equality with ic_sim_run -------------------------------------------------- */

static void test_equality(void)
{
    const ic_coll_t colls[] = {IC_COLL_BCAST,     IC_COLL_REDUCE,
                               IC_COLL_ALLREDUCE, IC_COLL_ALLGATHER,
                               IC_COLL_REDUCE_SCATTER_BLOCK, IC_COLL_ALLTOALL};
    const shape_t eshapes[] = {{2, {3, 4}}, {2, {5, 7}}};
    const size_t counts[] = {1, 300, 20000};
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    long compared = 0, inexact = 0;
    for (size_t si = 0; si < 2; si++) {
        const shape_t *sh = &eshapes[si];
        int p = shape_size(sh);
        ic_mesh_t mesh = mesh_of(sh);
        char sn[32];
        shape_str(sh, sn, sizeof sn);
        ic_net_t full = ic_net_full();
        ic_net_t mnet = ic_net_mesh(sh->d, sh->dims);
        mnet.contention = false;
        ic_net_t tnet = ic_net_torus(sh->d, sh->dims);
        tnet.contention = false;
        for (size_t ci = 0; ci < sizeof colls / sizeof colls[0]; ci++)
            for (size_t i = 0; i < ncat + 1; i++) {
                const char *algo = i < ncat ? cat[i].name : "auto";
                if (i < ncat && cat[i].coll != colls[ci])
                    continue;
                for (size_t z = 0; z < sizeof counts / sizeof counts[0]; z++) {
                    size_t count = counts[z];
                    ic_coll_args_t a;
                    args_fill(&a, 1, colls[ci], count, p / 3, &mesh, IC_INT32);
                    if (i < ncat && !ic_algo_applies(&cat[i], &a, p))
                        continue;
                    run_t ref = run_coll(p, NULL, false, colls[ci], algo, count, p / 3, &mesh,
                                         false, SIZE_MAX);
                    if (ref.st != IC_OK) {
                        CHECK(0, "ic_sim_run %s/%s p=%d count %zu: %s", ic_coll_name(colls[ci]),
                              algo, p, count, ic_last_error());
                        continue;
                    }
                    const ic_net_t *nets[4] = {NULL, &full, &mnet, &tnet};
                    const char *names[4] = {"NULL", "full", "mesh, no contention",
                                            "torus, no contention"};
                    for (int n = 0; n < 4; n++) {
                        run_t r = run_coll(p, nets[n], true, colls[ci], algo, count, p / 3,
                                           &mesh, n >= 2, SIZE_MAX);
                        compared++;
                        bool exact = r.st == IC_OK && r.time == ref.time;
                        if (!exact && r.st == IC_OK && same_time(r.time, ref.time)) {
                            inexact++;
                            printf("  NOTE %s/%s p=%d (%s) count %zu on %s: %.17g vs "
                                   "ic_sim_run %.17g (within 1e-9, not exact)\n",
                                   ic_coll_name(colls[ci]), algo, p, sn, count, names[n], r.time,
                                   ref.time);
                        }
                        CHECK(r.st == IC_OK && same_time(r.time, ref.time) &&
                                  r.msgs == ref.msgs && r.bytes == ref.bytes &&
                                  r.steps == ref.steps && r.chosen && ref.chosen &&
                                  strcmp(r.chosen, ref.chosen) == 0,
                              "%s/%s p=%d (%s) count %zu on %s: time %.17g msgs %zu bytes %zu "
                              "(%s), ic_sim_run %.17g msgs %zu bytes %zu (%s)%s%s",
                              ic_coll_name(colls[ci]), algo, p, sn, count, names[n], r.time,
                              r.msgs, r.bytes, r.chosen ? r.chosen : "?", ref.time, ref.msgs,
                              ref.bytes, ref.chosen ? ref.chosen : "?",
                              r.st == IC_OK ? "" : ": ", r.st == IC_OK ? "" : ic_last_error());
                        if (n >= 2)
                            check_report(&r.ct, "equality run", r.msgs);
                        ic_sim_contention_free(&r.ct);
                    }
                }
            }
    }
    printf("  equality: %ld runs compared with ic_sim_run, %ld equal only within 1e-9\n",
           compared, inexact);
    CHECK(compared > 200, "equality: only %ld runs compared", compared);
}

/* ---- permutations ------------------------------------------------------------ */

/* Runs the permutation perm (node i sends bytes to perm[i], none when
 * perm[i] == i) on net, all-port, and checks the engine's load against a
 * count of routes per link. Returns the engine's max load. */
static uint32_t run_permutation(const ic_net_t *net0, const int *perm, int p, size_t bytes,
                                const char *what, double *time)
{
    ic_net_t net = *net0;
    net.all_port = true;
    msgs_t m = {0};
    for (int i = 0; i < p; i++)
        if (perm[i] != i)
            msgs_add(&m, i, perm[i], bytes, 0);
    ic_plan_t *pl = msg_plans(p, &m);
    ic_sim_contention_t ct;
    ic_status_t st = run_plans(p, &net, pl, bytes, &ct, time);
    CHECK(st == IC_OK, "%s: %s", what, ic_last_error());
    check_report(&ct, what, (size_t)m.n);
    long nl = ic_net_links(&net, p);
    uint32_t *count = calloc((size_t)nl, sizeof *count);
    uint32_t r[64];
    uint32_t most = 0;
    for (int k = 0; k < m.n; k++) {
        int h = ic_net_route(&net, m.v[k].from, m.v[k].to, r, 64);
        for (int j = 0; j < h; j++)
            if (++count[r[j]] > most)
                most = count[r[j]];
    }
    char ln[128];
    link_str(&net, ct.max_link, ln, sizeof ln);
    CHECK(ct.nsteps == 1 && ct.steps[0].started == (uint32_t)m.n,
          "%s: all %d messages should start at once, report has %zu steps, first started %u",
          what, m.n, ct.nsteps, ct.nsteps ? ct.steps[0].started : 0);
    CHECK(ct.max_load == most && (most == 0 || (ct.max_link >= 0 && count[ct.max_link] == most)),
          "%s: engine max_load %u on %s (routes there: %u), routes' most %u", what, ct.max_load,
          ln, ct.max_link >= 0 ? count[ct.max_link] : 0, most);
    free(count);
    ic_sim_contention_free(&ct);
    plans_free(pl, p);
    free(m.v);
    return most;
}

static void test_permutations(void)
{
    const size_t bytes = 8192;
    char what[128];
    for (int d = 3; d <= 7; d++) {
        int p = 1 << d;
        ic_net_t net = ic_net_hypercube(d);
        int *perm = malloc(sizeof(int) * (size_t)p);
        for (int i = 0; i < p; i++)
            perm[i] = ~i & (p - 1);
        /* Edge-disjoint e-cube paths, independently of the engine. */
        long nl = ic_net_links(&net, p);
        unsigned char *used = calloc((size_t)nl, 1);
        uint32_t r[16];
        int shared = 0, hops = 0;
        for (int i = 0; i < p; i++) {
            int h = ic_net_route(&net, i, perm[i], r, 16);
            hops += h;
            for (int j = 0; j < h; j++)
                shared += used[r[j]]++ != 0;
        }
        CHECK(shared == 0 && hops == p * d,
              "vector reversal on hypercube %d: %d links used twice, %d hops (want %d)", d,
              shared, hops, p * d);
        free(used);
        snprintf(what, sizeof what, "vector reversal on hypercube %d", d);
        double t;
        uint32_t most = run_permutation(&net, perm, p, bytes, what, &t);
        CHECK(most == 1, "%s: max_load %u, want 1 (edge-disjoint)", what, most);
        CHECK(t == M.alpha + (double)bytes * M.beta, "%s: time %.17g, want alpha + n beta = "
              "%.17g", what, t, M.alpha + (double)bytes * M.beta);
        /* Bit-half swap (transpose of a 2^(d/2) x 2^(d - d/2) array): e-cube
         * paths collide when d >= 4. */
        if (d >= 4) {
            int lo = d / 2, hi = d - lo;
            for (int i = 0; i < p; i++)
                perm[i] = ((i & ((1 << lo) - 1)) << hi) | (i >> lo);
            snprintf(what, sizeof what, "bit-half swap on hypercube %d", d);
            most = run_permutation(&net, perm, p, bytes, what, &t);
            CHECK(most >= 2 && t > M.alpha + (double)bytes * M.beta,
                  "%s: max_load %u, time %.9g", what, most, t);
        }
        free(perm);
    }
    /* Transpose on square meshes: (r, c) -> (c, r), row first routing sends
     * every message of a column down the column. */
    for (int m = 4; m <= 6; m++) {
        int p = m * m;
        ic_net_t net = ic_net_mesh(2, (const int[]){m, m});
        int *perm = malloc(sizeof(int) * (size_t)p);
        for (int i = 0; i < p; i++)
            perm[i] = (i % m) * m + i / m;
        snprintf(what, sizeof what, "transpose on mesh %dx%d", m, m);
        double t;
        uint32_t most = run_permutation(&net, perm, p, bytes, what, &t);
        CHECK(most >= 2, "%s: max_load %u, want >= 2", what, most);
        /* The worst link carries m - 1 messages (column into the diagonal). */
        CHECK(most == (uint32_t)(m - 1), "%s: max_load %u, want %d", what, most, m - 1);
        /* With M messages at 1/M of the bandwidth the last one ends no
         * sooner than alpha + M n beta. */
        CHECK(t >= M.alpha + (double)most * (double)bytes * M.beta * (1 - 1e-12),
              "%s: time %.9g < alpha + %u n beta = %.9g", what, t, most,
              M.alpha + most * (double)bytes * M.beta);
        free(perm);
    }
}

/* ---- data movement ------------------------------------------------------------ */

static void test_move_data(void)
{
    const shape_t sh = {3, {4, 4, 4}};
    int p = shape_size(&sh);
    ic_mesh_t mesh = mesh_of(&sh);
    size_t count = (size_t)p * 16;
    float **sb = malloc(sizeof(float *) * (size_t)p), **rb = malloc(sizeof(float *) * (size_t)p);
    size_t *sbytes = malloc(sizeof(size_t) * (size_t)p), *rbytes = malloc(sizeof(size_t) * (size_t)p);
    float *want = calloc(count, sizeof(float));
    for (int r = 0; r < p; r++) {
        sb[r] = malloc(count * sizeof(float));
        rb[r] = malloc(count * sizeof(float));
        sbytes[r] = rbytes[r] = count * sizeof(float);
        for (size_t i = 0; i < count; i++) {
            sb[r][i] = (float)((r * 7 + (int)i * 3) % 11 - 5);
            want[i] += sb[r][i];
        }
    }
    ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
    args_fill(a, p, IC_COLL_ALLREDUCE, count, 0, &mesh, IC_FLOAT);
    const ic_switching_t sw[] = {IC_SWITCH_WORMHOLE, IC_SWITCH_CIRCUIT,
                                 IC_SWITCH_STORE_FORWARD};
    for (int k = 0; k < 3; k++) {
        ic_net_t net = ic_net_mesh(sh.d, sh.dims);
        net.switching = sw[k];
        net.hop = 0.25;
        for (int r = 0; r < p; r++)
            for (size_t i = 0; i < count; i++)
                rb[r][i] = -1000.0f;
        ic_sim_job_t job = {0};
        job.size = p;
        job.args = a;
        job.algo = "dr";
        job.sendbuf = (void *const *)sb;
        job.recvbuf = (void *const *)rb;
        job.sendbytes = sbytes;
        job.recvbytes = rbytes;
        ic_sim_result_t res = {0};
        ic_status_t st = ic_sim_run_net(p, &M, &net, &job, 1, true, &res);
        CHECK(st == IC_OK, "move_data allreduce dr on 4x4x4 (switching %d): %s", (int)sw[k],
              ic_last_error());
        long bad = 0;
        for (int r = 0; r < p && st == IC_OK; r++)
            for (size_t i = 0; i < count; i++)
                if (rb[r][i] != want[i] && bad++ < 3)
                    printf("    rank %d element %zu: %g, want %g\n", r, i, (double)rb[r][i],
                           (double)want[i]);
        CHECK(bad == 0, "move_data allreduce dr on 4x4x4 (switching %d): %ld wrong elements",
              (int)sw[k], bad);
    }
    for (int r = 0; r < p; r++) {
        free(sb[r]);
        free(rb[r]);
    }
    free(sb);
    free(rb);
    free(sbytes);
    free(rbytes);
    free(want);
    free(a);
}

/* ---- switching ----------------------------------------------------------------- */

static double run_msgs(const ic_net_t *net, int p, const msgs_t *m, ic_sim_contention_t *ct,
                       const char *what)
{
    ic_plan_t *pl = msg_plans(p, m);
    double t = -1;
    ic_sim_contention_t local;
    ic_status_t st = run_plans(p, net, pl, 1, ct ? ct : &local, &t);
    CHECK(st == IC_OK, "%s: %s", what, ic_last_error());
    if (!ct)
        ic_sim_contention_free(&local);
    plans_free(pl, p);
    return st == IC_OK ? t : -1;
}

/* Runs msgs on net; node_time (p entries) filled. */
static double run_msgs_nodes(const ic_net_t *net, int p, const msgs_t *m, double *node_time,
                             ic_sim_contention_t *ct, const char *what)
{
    ic_plan_t *pl = msg_plans(p, m);
    ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
    args_fill(a, p, IC_COLL_ALLTOALL, 1, 0, NULL, IC_UINT8);
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = a;
    job.plans = pl;
    ic_sim_result_t res = {0};
    res.node_time = node_time;
    if (ct) {
        memset(ct, 0, sizeof *ct);
        ct->picture_step = SIZE_MAX;
    }
    res.contention = ct;
    ic_status_t st = ic_sim_run_net(p, &M, net, &job, 1, false, &res);
    CHECK(st == IC_OK, "%s: %s", what, ic_last_error());
    free(a);
    plans_free(pl, p);
    return st == IC_OK ? res.time : -1;
}

/* Index of link l in route a -> b, -1 if not on it. */
static int route_index(const ic_net_t *net, int a, int b, uint32_t l)
{
    uint32_t r[64];
    int h = ic_net_route(net, a, b, r, 64);
    for (int k = 0; k < h; k++)
        if (r[k] == l)
            return k;
    return -1;
}

/* Circuit switching (docs/simulator.md): set-up takes the path's links one
 * after the other, hop apart, waiting at a held link while keeping the
 * ones it has; then alpha; then n beta; links released at the end. */
static void test_circuits(const ic_net_t *net0, int d, size_t n)
{
    int p = 1 << d;
    ic_net_t net = *net0;
    double hop = net.hop;
    uint32_t ra[16], rb[16];
    double *nt = calloc((size_t)p, sizeof *nt);
    /* (a) All-port, one sender, two h-hop routes whose first link is the
     * same: the second circuit waits at its first link for the whole first
     * message, then sets up: it ends at exactly 2 (alpha + h hop + n beta). */
    for (int h = 2; h <= d; h++) {
        int x = 0, y = 0;
        /* 0 -> x and 0 -> y: h bits each, the same highest bit (e-cube
         * fixes the highest bit first), different destinations. */
        for (int v = 1; v < p && !y; v++)
            if (__builtin_popcount((unsigned)v) == h && (v & (p >> 1))) {
                if (!x)
                    x = v;
                else
                    y = v;
            }
        if (!y)
            continue;
        CHECK(ic_net_route(&net, 0, x, ra, 16) == h && ic_net_route(&net, 0, y, rb, 16) == h &&
                  ra[0] == rb[0],
              "hypercube %d: routes 0->%d and 0->%d should share their first link", d, x, y);
        msgs_t m = {0};
        msgs_add(&m, 0, x, n, 0);
        msgs_add(&m, 0, y, n, 0);
        ic_net_t ap = net;
        ap.all_port = true;
        double one = M.alpha + h * hop + (double)n * M.beta;
        ic_sim_contention_t ct;
        double t = run_msgs_nodes(&ap, p, &m, nt, &ct, "circuit, shared first link");
        CHECK(same_time(nt[x], one) && same_time(nt[y], 2 * one) && same_time(t, 2 * one),
              "hypercube %d circuit, all-port: 0->%d and 0->%d (%d hops, first link shared) end "
              "at %.17g and %.17g, want %.17g and 2 x that = %.17g",
              d, x, y, h, nt[x], nt[y], one, 2 * one);
        /* A waiting circuit counts on its path: load 2, both started at 0. */
        CHECK(ct.max_load == 2 && ct.nsteps == 1 && ct.steps[0].started == 2,
              "hypercube %d circuit pair: report max_load %u, %zu steps (want 2, 1 step)", d,
              ct.max_load, ct.nsteps);
        ic_sim_contention_free(&ct);
        if (h == d) {
            /* Without contention circuits do not wait. */
            ap.contention = false;
            t = run_msgs_nodes(&ap, p, &m, nt, NULL, "circuit pair, no contention");
            CHECK(same_time(t, one), "hypercube %d circuit without contention: %.17g, want "
                  "%.17g", d, t, one);
            /* One-port: the sender's port serialises them (the second set-up
             * starts when the first message ends). */
            ic_net_t op = net;
            t = run_msgs_nodes(&op, p, &m, nt, NULL, "circuit pair, one-port");
            CHECK(same_time(t, 2 * one), "hypercube %d circuit, one-port, same sender: %.17g, "
                  "want %.17g", d, t, 2 * one);
            /* With set-up overlap the second set-up starts when the first
             * message starts moving (alpha + h hop), its bytes when the
             * port is free. */
            op.setup_overlap = true;
            t = run_msgs_nodes(&op, p, &m, nt, NULL, "circuit pair, set-up overlap");
            double go1 = M.alpha + h * hop;
            double want = fmax(go1 + h * hop + M.alpha, one) + (double)n * M.beta;
            /* But the second circuit's first link is held by the first
             * until its end: no gain from overlap then. */
            double want_held = 2 * one;
            CHECK(same_time(t, want_held), "hypercube %d circuit, one-port with set-up overlap, "
                  "shared first link: %.17g, want %.17g (the link is held; %.17g if it were "
                  "not)", d, t, want_held, want);
        }
        free(m.v);
    }
    /* Set-up overlap with link-disjoint routes from one sender: the
     * second set-up starts when the first message starts moving, its bytes
     * when the send port is free. */
    {
        int x = p - 1, z = 1; /* first links differ: dimension 0 vs d-1 */
        int hx = ic_net_route(&net, 0, x, ra, 16), hz = ic_net_route(&net, 0, z, rb, 16);
        msgs_t m = {0};
        msgs_add(&m, 0, x, n, 0);
        msgs_add(&m, 0, z, n, 0);
        ic_net_t op = net;
        op.setup_overlap = true;
        double go1 = M.alpha + hx * hop, one = go1 + (double)n * M.beta;
        double want = fmax(go1 + hz * hop + M.alpha, one) + (double)n * M.beta;
        run_msgs_nodes(&op, p, &m, nt, NULL, "circuit, set-up overlap");
        CHECK(same_time(nt[x], one) && same_time(nt[z], want),
              "hypercube %d circuit, one-port, set-up overlap: 0->%d then 0->%d end at %.17g "
              "and %.17g, want %.17g and %.17g", d, x, z, nt[x], nt[z], one, want);
        op.setup_overlap = false;
        double want2 = one + M.alpha + hz * hop + (double)n * M.beta;
        run_msgs_nodes(&op, p, &m, nt, NULL, "circuit, no set-up overlap");
        CHECK(same_time(nt[x], one) && same_time(nt[z], want2),
              "hypercube %d circuit, one-port, no overlap: 0->%d then 0->%d end at %.17g and "
              "%.17g, want %.17g and %.17g", d, x, z, nt[x], nt[z], one, want2);
        free(m.v);
    }
    /* (b) One-port, four distinct ends, one shared link: the circuit that
     * asks for the link first (at index * hop; ties: the lower sender, which
     * starts first) holds it to its end T_W; the other resumes there with
     * its remaining (h_L - index_L) hops, alpha and n beta. */
    int found = 0;
    for (int a = 0; a < p && found != 7; a++)
        for (int x = 0; x < p && found != 7; x++)
            for (int b = a + 1; b < p && found != 7; b++)
                for (int y = 0; y < p && found != 7; y++) {
                    if (x == y || a == x || b == y || a == y || b == x)
                        continue;
                    int ha = ic_net_route(&net, a, x, ra, 16);
                    int hb = ic_net_route(&net, b, y, rb, 16);
                    if (ha < 2 || hb < 2)
                        continue;
                    int nshared = 0;
                    uint32_t l = 0;
                    for (int i = 0; i < ha; i++)
                        for (int j = 0; j < hb; j++)
                            if (ra[i] == rb[j]) {
                                nshared++;
                                l = ra[i];
                            }
                    if (nshared != 1)
                        continue;
                    int ia = route_index(&net, a, x, l), ib = route_index(&net, b, y, l);
                    /* Want every kind: a first, b first, a tie. */
                    int kind = ia < ib ? 0 : ia > ib ? 1 : 2;
                    if (found & (1 << kind))
                        continue;
                    found |= 1 << kind;
                    bool a_wins = ia <= ib;
                    int hw = a_wins ? ha : hb, hl = a_wins ? hb : ha, il = a_wins ? ib : ia;
                    double tw = M.alpha + hw * hop + (double)n * M.beta;
                    double tl = tw + (hl - il) * hop + M.alpha + (double)n * M.beta;
                    msgs_t m = {0};
                    msgs_add(&m, a, x, n, 0);
                    msgs_add(&m, b, y, n, 0);
                    run_msgs_nodes(&net, p, &m, nt, NULL, "circuit, distinct ends");
                    double ga = nt[x], gb = nt[y];
                    if (verbose)
                        printf("  circuit pair on hypercube %d: %d->%d (index %d), %d->%d "
                               "(index %d): %.9g %.9g\n", d, a, x, ia, b, y, ib, ga, gb);
                    double wa = a_wins ? tw : tl, wb = a_wins ? tl : tw;
                    char ln[64];
                    link_str(&net, (long)l, ln, sizeof ln);
                    CHECK(same_time(ga, wa) && same_time(gb, wb),
                          "hypercube %d circuit, one-port: %d->%d (%d hops, shared link %s at "
                          "index %d) and %d->%d (%d hops, index %d) end at %.17g and %.17g, "
                          "want %.17g and %.17g",
                          d, a, x, ha, ln, ia, b, y, hb, ib, ga, gb, wa, wb);
                    free(m.v);
                }
    CHECK((found & 3) == 3, "hypercube %d: no pair of circuits with one shared link found", d);
    /* Disjoint circuits run together. */
    msgs_t q = {0};
    msgs_add(&q, 0, p - 1, n, 0);
    msgs_add(&q, p - 1, 0, n, 0);
    double t = run_msgs_nodes(&net, p, &q, nt, NULL, "circuit, disjoint");
    double full = M.alpha + d * hop + (double)n * M.beta;
    CHECK(same_time(t, full), "hypercube %d circuit, 0 <-> %d (disjoint): %.17g, want %.17g", d,
          p - 1, t, full);
    free(q.v);
    free(nt);
}

static void test_switching(void)
{
    const size_t n = 10000;
    const double hop = 0.75;
    for (int d = 3; d <= 5; d++) {
        int p = 1 << d;
        ic_net_t net = ic_net_hypercube(d);
        net.hop = hop;
        /* One message over h hops, for every h. */
        for (int h = 1; h <= d; h++) {
            msgs_t m = {0};
            msgs_add(&m, 0, (1 << h) - 1, n, 0);
            for (int sw = 0; sw < 3; sw++)
                for (int cont = 0; cont < 2; cont++) {
                    ic_net_t x = net;
                    x.switching = (ic_switching_t)sw;
                    x.contention = cont;
                    double want = sw == IC_SWITCH_STORE_FORWARD
                                      ? M.alpha + h * hop + (double)h * (double)n * M.beta
                                      : M.alpha + h * hop + (double)n * M.beta;
                    double t = run_msgs(&x, p, &m, NULL, "single message");
                    CHECK(same_time(t, want), "hypercube %d, switching %d, contention %d: one "
                          "message over %d hops takes %.17g, want %.17g", d, sw, cont, h, t,
                          want);
                }
            free(m.v);
        }
        net.switching = IC_SWITCH_CIRCUIT;
        test_circuits(&net, d, n);
    }
}

/* Wormhole flows on a line of 4: 0 -> 2 and 1 -> 3 share link (1)->(2). */
static void test_wormhole(void)
{
    ic_net_t net = ic_net_mesh(1, (const int[]){4});
    const size_t n = 10000;
    msgs_t m = {0};
    msgs_add(&m, 0, 2, n, 0);
    msgs_add(&m, 1, 3, n, 0);
    ic_sim_contention_t ct;
    double t = run_msgs(&net, 4, &m, &ct, "wormhole pair");
    double want = M.alpha + 2 * (double)n * M.beta;
    char ln[64];
    link_str(&net, ct.max_link, ln, sizeof ln);
    CHECK(t == want, "wormhole, two messages share a link, beta_net = beta: %.17g, want alpha "
          "+ 2 n beta = %.17g%s", t, want, same_time(t, want) ? " (equal within 1e-9)" : "");
    CHECK(ct.max_load == 2 && strcmp(ln, "(1)->(2)") == 0 && ct.nsteps == 1,
          "wormhole pair: max_load %u on %s, %zu steps (want 2 on (1)->(2), 1 step)",
          ct.max_load, ln, ct.nsteps);
    ic_sim_contention_free(&ct);
    /* Both end together: each one's time is the same. */
    net.beta_net = M.beta / 2;
    t = run_msgs(&net, 4, &m, NULL, "wormhole pair, fast network");
    want = M.alpha + (double)n * M.beta;
    CHECK(t == want, "wormhole, two messages share a link, beta_net = beta/2: %.17g, want alpha "
          "+ n beta = %.17g", t, want);
    /* beta_net = beta/4 with three messages over one link: M beta_net =
     * 3/4 beta < beta, no slowdown; on a line of 5: 0->3, 1->4, 2->... */
    net = ic_net_mesh(1, (const int[]){6});
    net.beta_net = M.beta / 4;
    msgs_t m3 = {0};
    msgs_add(&m3, 0, 3, n, 0);
    msgs_add(&m3, 1, 4, n, 0);
    msgs_add(&m3, 2, 5, n, 0);
    t = run_msgs(&net, 6, &m3, NULL, "three over one link");
    CHECK(same_time(t, M.alpha + (double)n * M.beta),
          "three messages over (2)->(3), beta_net = beta/4: %.17g, want %.17g", t,
          M.alpha + (double)n * M.beta);
    net.beta_net = M.beta / 2; /* 3/2 beta per byte while all three share */
    t = run_msgs(&net, 6, &m3, NULL, "three over one link");
    CHECK(same_time(t, M.alpha + 1.5 * (double)n * M.beta),
          "three messages over (2)->(3), beta_net = beta/2: %.17g, want alpha + 1.5 n beta = "
          "%.17g", t, M.alpha + 1.5 * (double)n * M.beta);
    free(m3.v);
    /* A short and a long message share: both at 2 beta until the short one
     * has moved n bytes (alpha + 2 n beta), then the long one's last n
     * bytes at beta: alpha + 3 n beta. */
    net = ic_net_mesh(1, (const int[]){4});
    m.v[1].bytes = 2 * n;
    ic_plan_t *pl = msg_plans(4, &m);
    ic_coll_args_t a[4];
    args_fill(a, 4, IC_COLL_ALLTOALL, 1, 0, NULL, IC_UINT8);
    ic_sim_job_t job = {0};
    job.size = 4;
    job.args = a;
    job.plans = pl;
    double nt[4] = {0};
    ic_sim_result_t res = {0};
    res.node_time = nt;
    ic_status_t st = ic_sim_run_net(4, &M, &net, &job, 1, false, &res);
    CHECK(st == IC_OK && same_time(nt[2], M.alpha + 2 * (double)n * M.beta) &&
              same_time(nt[3], M.alpha + 3 * (double)n * M.beta),
          "wormhole, n and 2n bytes sharing a link: receivers done at %.17g and %.17g, want "
          "%.17g and %.17g", nt[2], nt[3], M.alpha + 2 * (double)n * M.beta,
          M.alpha + 3 * (double)n * M.beta);
    plans_free(pl, 4);
    /* n, 2n and 3n bytes over one link (line of 6: 0->3, 1->4, 2->5): all
     * at 3 beta until the first has moved n bytes (alpha + 3 n beta), the
     * other two at 2 beta for n more (+ 2 n beta), the last at beta (+ n
     * beta): the fluid model's finish times. */
    {
        ic_net_t n6 = ic_net_mesh(1, (const int[]){6});
        msgs_t q = {0};
        msgs_add(&q, 0, 3, n, 0);
        msgs_add(&q, 1, 4, 2 * n, 0);
        msgs_add(&q, 2, 5, 3 * n, 0);
        double t6[6] = {0}, nb = (double)n * M.beta;
        run_msgs_nodes(&n6, 6, &q, t6, NULL, "n/2n/3n");
        CHECK(same_time(t6[3], M.alpha + 3 * nb) && same_time(t6[4], M.alpha + 5 * nb) &&
                  same_time(t6[5], M.alpha + 6 * nb),
              "wormhole, n, 2n, 3n bytes over one link: done at %.17g, %.17g, %.17g, want "
              "%.17g, %.17g, %.17g", t6[3], t6[4], t6[5], M.alpha + 3 * nb, M.alpha + 5 * nb,
              M.alpha + 6 * nb);
        free(q.v);
    }
    /* Store-and-forward with contention: h*n bytes at the shared rate. */
    net.switching = IC_SWITCH_STORE_FORWARD;
    m.v[1].bytes = n;
    t = run_msgs(&net, 4, &m, NULL, "store-and-forward pair");
    CHECK(same_time(t, M.alpha + 2 * 2 * (double)n * M.beta),
          "store-and-forward, two 2-hop messages sharing a link: %.17g, want alpha + 2 * 2n "
          "beta = %.17g", t, M.alpha + 4 * (double)n * M.beta);
    free(m.v);
}

/* Circuits on a torus ring: every node sends two hops round the same way;
 * each takes its first link and waits for its neighbour's: a cycle, which
 * the engine reports as a deadlock (docs/simulator.md) instead of
 * hanging.  The same on a mesh (no wrap links) completes. */
static void test_circuit_deadlock(void)
{
    const int m = 4;
    msgs_t q = {0};
    for (int i = 0; i < m; i++)
        msgs_add(&q, i, (i + 2) % m, 1000, 0);
    ic_net_t net = ic_net_torus(1, (const int[]){m});
    net.switching = IC_SWITCH_CIRCUIT;
    net.all_port = true;
    net.hop = 0.5;
    ic_plan_t *pl = msg_plans(m, &q);
    double t;
    ic_status_t st = run_plans(m, &net, pl, 1000, NULL, &t);
    CHECK(st == IC_ERR_INTERNAL && strstr(ic_last_error(), "deadlock"),
          "circuits in a cycle on torus %d: status %d (%s), want IC_ERR_INTERNAL naming a "
          "deadlock", m, (int)st, st == IC_OK ? "ok" : ic_last_error());
    /* Wormhole on the same ring: no waiting, the flows share. */
    net.switching = IC_SWITCH_WORMHOLE;
    st = run_plans(m, &net, pl, 1000, NULL, &t);
    CHECK(st == IC_OK && t > M.alpha + 2 * 0.5 + 1000 * M.beta,
          "wormhole on torus %d ring, two hops each: status %d time %.9g", m, (int)st, t);
    plans_free(pl, m);
    free(q.v);
}

int main(void)
{
    const char *v = getenv("IC_TEST_VERBOSE");
    verbose = v ? atoi(v) : 0;
    test_catalog_contention();
    test_trees();
    test_equality();
    test_permutations();
    test_move_data();
    test_switching();
    test_wormhole();
    test_circuit_deadlock();
    printf("test_net_contention: %d passed, %d failed (%ld catalog runs)\n", passed, failed,
           cat_runs);
    return failed != 0;
}
