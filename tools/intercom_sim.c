/*
 * intercom_sim.c — runs one collective's algorithms on a simulated physical
 * network (a mesh, torus, hypercube or the fully connected network of the
 * papers' model) over a sweep of vector sizes, in the in-process engine
 * (ic_sim_run_net), and reports the simulated times and the contention:
 * the most messages that shared one directed link.  It can write the
 * results as CSV, plot them with gnuplot, and draw the link loads of one
 * step of one run on a 2-D mesh or torus.
 *
 *   intercom-sim --mesh 16x32 --coll allreduce --algos dr,pfr,hybrid \
 *                --sizes 8:64M:8 --plot /tmp/a.png
 *   intercom-sim --mesh 6x6 --coll bcast --algos mst --sizes 64K \
 *                --picture /tmp/b.png --picture-step 2
 *
 * Times are in microseconds (alpha in us, the per-byte times in us/B);
 * docs/intercom-sim.md describes every option with examples.
 */
#define _GNU_SOURCE
#include "base/status.h"
#include "algo/validate.h"
#include "select/catalog.h"
#include "sim/engine.h"
#include "sim_options.h"
#include "sim_plot.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What one run gave. */
typedef struct cell {
    double time, wall;
    uint32_t load;
    size_t msgs, bytes;
    const char *chosen;
    char shape[48]; /* the logical mesh a mesh-aware choice ran on, or "" */
} cell_t;

/* ---- running --------------------------------------------------------------------------- */

/* Real buffers for --check: send buffers ptr[0..p-1], receive buffers
 * ptr[p..2p-1], their sizes in bytes[], filled with small values. */
typedef struct bufs {
    void **ptr;
    size_t *bytes;
} bufs_t;

static void bufs_free(bufs_t *b, int p)
{
    for (int i = 0; b->ptr && i < 2 * p; i++)
        free(b->ptr[i]);
    free(b->ptr);
    free(b->bytes);
}

static void fill(void *buf, size_t bytes, ic_datatype_t dt, int r)
{
    for (size_t i = 0; i < bytes / ic_datatype_size(dt); i++) {
        int v = (int)(((size_t)r * 7 + i) % 5);
        if (dt == IC_FLOAT)
            ((float *)buf)[i] = (float)v;
        else if (dt == IC_DOUBLE)
            ((double *)buf)[i] = v;
        else if (dt == IC_INT32)
            ((int32_t *)buf)[i] = v;
        else
            ((uint8_t *)buf)[i] = (uint8_t)v;
    }
}

static int bufs_init(bufs_t *b, const call_t *c, int p)
{
    const size_t limit = (size_t)8 << 30;
    size_t total = 0;
    b->ptr = calloc(2 * (size_t)p, sizeof(void *));
    b->bytes = calloc(2 * (size_t)p, sizeof(size_t));
    if (!b->ptr || !b->bytes)
        return ic_set_error(IC_ERR_NO_MEM, "--check: out of memory");
    for (int r = 0; r < p; r++) {
        ic_args_buffer_bytes(&c->args[r], r, p, &b->bytes[r], &b->bytes[p + r]);
        total += b->bytes[r] + b->bytes[p + r];
    }
    if (total > limit)
        return ic_set_error(IC_ERR_NO_MEM,
                            "--check: the buffers would take %zu MiB (more than %zu MiB): use "
                            "smaller --sizes or fewer --ranks",
                            total >> 20, limit >> 20);
    for (int i = 0; i < 2 * p; i++) {
        if (!(b->ptr[i] = malloc(b->bytes[i] + 1)))
            return ic_set_error(IC_ERR_NO_MEM, "--check: out of memory for the buffers");
        fill(b->ptr[i], b->bytes[i], c->args[i % p].dtype, i % p);
    }
    return IC_OK;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The logical mesh a mesh-aware entry ran on: the one ic_plan_build decides
 * (forced, on the user's mesh when there is one; auto, the cheapest shape). */
static void shape_of(const opts_t *o, const ic_coll_args_t *a, const char *algo, char *buf,
                     size_t len)
{
    const ic_algo_t *forced = NULL;
    ic_choice_t best;
    buf[0] = '\0';
    ic_catalog_force("intercom-sim", a, o->ranks, algo, &forced); /* NULL for auto */
    ic_decide(a, o->ranks, forced, &o->m, &best, NULL, 0);
    if (!(best.al->flags & IC_ALGO_MESH))
        return;
    const ic_mesh_t *sh = best.mesh.d ? &best.mesh : a->mesh;
    for (int k = 0, used = 0; sh && k < sh->d && used < (int)len; k++)
        used += snprintf(buf + used, len - (size_t)used, "%s%d", k ? "x" : "", sh->dims[k]);
}

/* One run of algo at n bytes into *out; ct keeps the contention report
 * (the caller frees it).  Returns the engine's status. */
static ic_status_t run_one(const opts_t *o, const char *algo, size_t n, size_t pic_step,
                           cell_t *out, ic_sim_contention_t *ct)
{
    call_t c;
    bufs_t b = {0};
    *ct = (ic_sim_contention_t){0};
    ic_status_t st = call_init(&c, o, n);
    if (st != IC_OK)
        return st;
    if (o->check)
        st = bufs_init(&b, &c, o->ranks);
    ic_sim_job_t job = {0};
    job.size = o->ranks;
    job.args = c.args;
    job.algo = algo;
    job.caller = "intercom-sim";
    if (b.ptr) {
        job.sendbuf = b.ptr;
        job.recvbuf = b.ptr + o->ranks;
        job.sendbytes = b.bytes;
        job.recvbytes = b.bytes + o->ranks;
    }
    ic_sim_result_t res = {0};
    ct->picture_step = pic_step;
    res.contention = ct;
    double t0 = now();
    if (st == IC_OK)
        st = ic_sim_run_net(o->ranks, &o->m, &o->net, &job, 1, o->check, &res);
    if (st == IC_OK) {
        *out = (cell_t){res.time, now() - t0, ct->max_load, res.msgs, res.bytes, job.chosen, ""};
        shape_of(o, &c.args[0], algo, out->shape, sizeof out->shape);
    }
    bufs_free(&b, o->ranks);
    call_free(&c);
    return st;
}

/* A progress line on stderr: while it runs when stderr is a terminal, and
 * kept when the run took more than half a second. */
static void progress(const opts_t *o, bool before, size_t k, size_t total, const char *algo,
                     size_t n, double wall)
{
    static bool tty = false, asked = false;
    if (!asked)
        tty = isatty(STDERR_FILENO), asked = true;
    if (o->quiet || (before && !tty) || (!before && !tty && wall <= 0.5))
        return;
    char nb[32];
    sim_plot_fmt_bytes(n, nb, sizeof nb);
    if (before || !tty)
        fprintf(stderr, "[%zu/%zu] %s %s %s ...", k, total, ic_coll_name(o->coll), algo, nb);
    if (!before)
        fprintf(stderr, wall > 0.5 ? " %.1f s\n" : "\r\033[K", wall);
}

static void engine_failed(const opts_t *o, const char *algo, size_t n)
{
    fprintf(stderr, "intercom-sim: %s %s n = %zu: %s\n", ic_coll_name(o->coll), algo, n,
            ic_last_error());
}

/* ---- output ---------------------------------------------------------------------------- */

static void print_header(const opts_t *o)
{
    char d[256];
    ic_net_describe(&o->net, d, sizeof d);
    printf("network:  %s; %d ranks on %ld nodes (%s placement)", d, o->ranks,
           ic_net_nodes(&o->net, o->ranks), o->place ? "--place" : "identity");
    if (o->net.kind != IC_NET_FULL)
        printf("; hop %g us, link %g us/B", o->net.hop,
               o->net.beta_net > 0 ? o->net.beta_net : o->m.beta);
    printf("\nmodel:    alpha %g us, beta %g us/B, gamma %g us/B, delta %g us/B", o->m.alpha,
           o->m.beta, o->m.gamma, o->m.delta);
    if (o->m.beta_net > 0)
        printf("; shared links priced at %g us/B (logical mesh = physical)", o->m.beta_net);
    printf("\n");
    ic_coll_t c = o->coll;
    printf("coll:     %s of %s%s", ic_coll_name(c), ic_datatype_name(o->dtype),
           coll_sums(c) ? " (sum)" : "");
    if (coll_rooted(c))
        printf(", root %d", o->root);
    printf("; %s\n", c == IC_COLL_BARRIER ? "no data"
                     : per_rank_blocks(c) ? "n = total bytes (n/p per rank, at least one element)"
                                          : "n = vector length in bytes");
    printf("logical:  ");
    for (int k = 0; k < o->logical.d; k++)
        printf("%s%d", k ? " x " : "", o->logical.dims[k]);
    printf("%s\n", o->logical.d ? "" : "none (mesh-aware entries take the cost model's shape)");
}

/* The fastest of one size's runs: a named entry before auto on a tie. */
static const char *fastest(const opts_t *o, const cell_t *row, int autoc)
{
    int best = -1;
    for (int a = 0; a < o->nnames; a++)
        if (best < 0 || row[a].time < row[best].time ||
            (best == autoc && row[a].time == row[best].time))
            best = a;
    return o->names[best];
}

/* One cell of the table: its text (NULL: the separator) in width w. */
static void cell(const char *text, int w, bool left)
{
    static const char dashes[] = "----------------------------------------------------------";
    if (!text)
        printf(left ? ":%.*s|" : "%.*s:|", w + 1, dashes);
    else
        printf(left ? " %-*s |" : " %*s |", w, text);
}

/* The table: n, per-rank block, one column per algorithm (time and max
 * link load), the selector's choice when auto ran, the fastest. */
static void print_table(const opts_t *o, const cell_t *res)
{
    bool blocks = per_rank_blocks(o->coll), links = ic_net_links(&o->net, o->ranks) > 0;
    int na = o->nnames, autoc = -1, wt = links ? 16 : 11, wc = 10, wf = 7;
    char t[64], u[64];
    for (int a = 0; a < na; a++) {
        autoc = autoc < 0 && !strcmp(o->names[a], "auto") ? a : autoc;
        wf = (int)strlen(o->names[a]) > wf ? (int)strlen(o->names[a]) : wf;
    }
    for (size_t i = 0; autoc >= 0 && i < o->nsizes; i++) {
        const cell_t *x = &res[i * (size_t)na + (size_t)autoc];
        int l = (int)(strlen(x->chosen) + 1 + strlen(x->shape));
        wc = l > wc ? l : wc;
    }
    printf("\nsimulated time%s per algorithm; n = %s\n\n", links ? " (max link load)" : "",
           blocks ? "total bytes, per rank = n/p" : "vector length in bytes");
    for (size_t i = 0; i < o->nsizes + 2; i++) { /* header, separator, sizes */
        const cell_t *row = i > 1 ? &res[(i - 2) * (size_t)na] : NULL;
        size_t n = i > 1 ? o->sizes[i - 2] : 0;
        sim_plot_fmt_bytes(n, t, sizeof t);
        sim_plot_fmt_bytes(count_of(o, n) * ic_datatype_size(o->dtype), u, sizeof u);
        printf("|");
        cell(i == 0 ? "n" : i == 1 ? NULL : o->coll == IC_COLL_BARRIER ? "-" : t, 7, false);
        if (blocks)
            cell(i == 0 ? "per rank" : i == 1 ? NULL : u, 8, false);
        for (int a = 0; a < na; a++) {
            int w = (int)strlen(o->names[a]) > wt ? (int)strlen(o->names[a]) : wt;
            if (row)
                sim_plot_fmt_time(row[a].time, u, sizeof u);
            if (row)
                snprintf(t, sizeof t, links ? "%s (%u)" : "%s", u, row[a].load);
            cell(i == 0 ? o->names[a] : row ? t : NULL, w, false);
        }
        if (autoc >= 0 && row)
            snprintf(t, sizeof t, "%s %s", row[autoc].chosen, row[autoc].shape);
        if (autoc >= 0)
            cell(i == 0 ? "auto chose" : row ? t : NULL, wc, true);
        if (na > 1)
            cell(i == 0 ? "fastest" : row ? fastest(o, row, autoc) : NULL, wf, true);
        printf("\n");
    }
}

static int write_plot(const opts_t *o, const cell_t *res)
{
    size_t n = o->nsizes * (size_t)o->nnames;
    double *t = malloc(n * sizeof(double));
    if (!t)
        return -1;
    for (size_t i = 0; i < n; i++)
        t[i] = res[i].time;
    char title[512], d[256];
    ic_net_describe(&o->net, d, sizeof d);
    snprintf(title, sizeof title, "%s on %s, %d ranks", ic_coll_name(o->coll), d, o->ranks);
    int st = sim_plot_sweep(o->plot, o->title ? o->title : title,
                            per_rank_blocks(o->coll) ? "n (total bytes, n/p per rank)"
                                                     : "n (vector length)",
                            o->nsizes, o->sizes, o->nnames, o->names, t);
    free(t);
    return st == SIM_PLOT_FAILED ? -1 : 0;
}

/* --picture: one run of the picture algorithm with its step table, then the
 * drawing of step K.  Returns the exit status. */
static int do_picture(const opts_t *o)
{
    const char *algo = o->pic_algo ? o->pic_algo : o->names[0];
    size_t n = o->pic_size ? o->pic_size : o->sizes[0];
    ic_sim_contention_t ct;
    cell_t x;
    if (run_one(o, algo, n, (size_t)o->pic_step, &x, &ct) != IC_OK) {
        engine_failed(o, algo, n);
        ic_sim_contention_free(&ct);
        return 1;
    }
    char nb[32], t[32], ln[128];
    sim_plot_fmt_bytes(n, nb, sizeof nb);
    sim_plot_fmt_time(x.time, t, sizeof t);
    ic_net_link_name(&o->net, ct.max_link, ln, sizeof ln);
    printf("\npicture run: %s %s%s%s, n = %s: %s, %zu messages, %zu steps; max load %u on %s "
           "at step %zu\n",
           ic_coll_name(o->coll), x.chosen, x.shape[0] ? " on " : "", x.shape, nb, t, x.msgs,
           ct.nsteps, ct.max_load, ln, ct.max_step);
    sim_plot_steps(&o->net, &ct, (size_t)o->pic_step);
    if (!ct.link_load || (size_t)o->pic_step >= ct.nsteps) {
        fprintf(stderr, "intercom-sim: --picture-step %d: the run has %zu steps (0..%zu)\n",
                o->pic_step, ct.nsteps, ct.nsteps ? ct.nsteps - 1 : 0);
        ic_sim_contention_free(&ct);
        return 2;
    }
    const ic_sim_step_load_t *k = &ct.steps[o->pic_step];
    char title[640];
    sim_plot_fmt_time(k->t, t, sizeof t);
    snprintf(title, sizeof title, "%s%s%s %s, n = %s: step %d of %zu at %s, max load %u",
             o->title ? o->title : "", o->title ? ": " : "", ic_coll_name(o->coll), x.chosen, nb,
             o->pic_step, ct.nsteps, t, k->max_load);
    int ps = sim_plot_links(o->picture, title, &o->net, ct.link_load, ct.nlinks);
    ic_sim_contention_free(&ct);
    return ps == SIM_PLOT_FAILED ? 1 : 0;
}

static void csv_row(FILE *f, const opts_t *o, const char *algo, size_t n, const cell_t *x)
{
    fprintf(f, o->exact ? "%s,%s,%s,%zu,%.17g,%u,%zu,%zu,%.6f\n"
                        : "%s,%s,%s,%zu,%.6f,%u,%zu,%zu,%.6f\n",
            ic_coll_name(o->coll), algo, x->chosen, n, x->time, x->load, x->msgs, x->bytes,
            x->wall);
}

/* Every size and algorithm into res; returns the exit status. */
static int sweep(const opts_t *o, cell_t *res, FILE *csv)
{
    size_t na = (size_t)o->nnames, total = o->nsizes * na;
    for (size_t i = 0; i < o->nsizes; i++)
        for (size_t a = 0; a < na; a++) {
            ic_sim_contention_t ct;
            cell_t *x = &res[i * na + a];
            progress(o, true, i * na + a + 1, total, o->names[a], o->sizes[i], 0);
            ic_status_t st = run_one(o, o->names[a], o->sizes[i], SIZE_MAX, x, &ct);
            ic_sim_contention_free(&ct);
            progress(o, false, i * na + a + 1, total, o->names[a], o->sizes[i], x->wall);
            if (st != IC_OK) {
                engine_failed(o, o->names[a], o->sizes[i]);
                return 1;
            }
            if (csv)
                csv_row(csv, o, o->names[a], o->sizes[i], x);
        }
    return 0;
}

int main(int argc, char **argv)
{
    opts_t o;
    parse_options(&o, argc, argv);
    FILE *csv = NULL;
    if (o.csv && !(csv = fopen(o.csv, "w")))
        die("--csv %s: %s", o.csv, strerror(errno));
    if (csv)
        fprintf(csv, "coll,algo,chosen,bytes,time_us,max_link_load,msgs,bytes_sent,wall_s\n");
    print_header(&o);
    cell_t *res = calloc(o.nsizes * (size_t)o.nnames, sizeof(*res));
    int rc = res ? sweep(&o, res, csv) : 1;
    if (rc == 0)
        print_table(&o, res);
    if (csv && fclose(csv) && rc == 0) {
        fprintf(stderr, "intercom-sim: writing %s failed\n", o.csv);
        rc = 1;
    }
    if (rc == 0 && o.plot && write_plot(&o, res))
        rc = 1;
    if (rc == 0 && o.picture)
        rc = do_picture(&o);
    free(res);
    free_options(&o);
    return rc;
}
