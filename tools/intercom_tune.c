/*
 * intercom_tune.c — measures the cost model's parameters on this machine
 * and writes them to the tune file that ic_init reads (docs/tuning.md):
 *   intercom-run -n 2 intercom-tune [--out PATH] [--dry-run] [--quick]
 *
 *  alpha, beta  ping-pong between the two ranks with the public API: with
 *               2 ranks an ic_bcast (forced to "mst") of n bytes is one
 *               message, so a round trip is a bcast from rank 0 followed by
 *               one from rank 1.  Per size (8 B .. 16 MiB) rank 0 times
 *               each round trip with CLOCK_MONOTONIC; the one-way time is
 *               half the median.  time(n) = alpha + n*beta (+ rndv_alpha
 *               above the transport's eager limit, n*beta/2 from its
 *               shared-copy size; tune_fit.c) is fitted to the medians by
 *               least squares on the relative residuals (weights 1/t^2),
 *               so the 8-byte and the 16-MiB points count alike instead of
 *               the large sizes deciding alone.
 *  gamma        ic_reduce_predefined(IC_OP_SUM, IC_FLOAT) over 8 MiB, per
 *               byte of the vector; double and int32 are printed too.
 *  delta        memcpy of 8 MiB, per byte.
 *               gamma and delta are measured by both ranks at the same time
 *               (as in a collective, where every rank combines at once)
 *               and the slower rank's value is kept.
 *
 * Rank 0 prints progress on stderr, the results on stdout, and writes the
 * file with ic_tune_write to --out PATH or else ic_tune_default_path()
 * (IC_TUNE_FILE, $XDG_CONFIG_HOME/intercom/tune.conf,
 * ~/.config/intercom/tune.conf); --dry-run writes nothing.  --quick uses
 * fewer, shorter repetitions (about a second; for tests).
 *
 * Started without intercom-run (one process) alpha and beta cannot be
 * measured: with --dry-run it measures and prints gamma and delta only,
 * without it it writes nothing and exits with 2 (a file whose alpha and
 * beta were not measured would mislead the selector).  More than 2
 * processes: exits with 2 (run it with -n 2).
 *
 * Built against an MPI bridge (intercom-tune-mpi-openmpi, -mpich; docs/mpi.md)
 * it runs under mpirun on any number of ranks across hosts:
 *   mpirun -n P intercom-tune-mpi-openmpi [options]
 * rank 0 ping-pongs with the first other rank on its host (alpha, beta:
 * the host level, over shared memory) and with the first rank on another
 * host (net_alpha, net_beta: the network level, over MPI), the same way;
 * a level with no such rank keeps the present file's (or the default)
 * values.  The other ranks wait.
 *
 * IC_TUNE_FILE is removed from the environment before ic_init, after it
 * has given the output path, so that a missing or broken tune file —
 * the one this run is about to (re)write — does not stop ic_init.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "intercom.h"
#ifdef IC_TUNE_MPI
#include "intercom_mpi.h"
#endif

#include "base/dtype.h"
#include "core/tune.h"
#include "select/catalog.h" /* ic_model_default */
#include "tune_fit.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PP_SIZE ((size_t)16 << 20) /* largest ping-pong message */
#define COMPUTE_BYTES ((size_t)8 << 20) /* vector of the gamma/delta loops */
#define MAX_REPS 100000

typedef struct opts {
    const char *out;
    int dry_run, quick;
} opts_t;

static int me, nranks;
static ic_comm_t *world;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: intercom-run -n 2 intercom-tune [options]\n"
            "  --out PATH   write the tune file to PATH (default: $IC_TUNE_FILE, else\n"
            "               $XDG_CONFIG_HOME/intercom/tune.conf, else\n"
            "               ~/.config/intercom/tune.conf)\n"
            "  --dry-run    measure and print, write nothing\n"
            "  --quick      fewer repetitions (about a second; less accurate)\n"
            "  -h, --help   this text\n"
            "Without intercom-run (one process) only --dry-run works, and measures\n"
            "gamma and delta only.  See docs/tuning.md.\n");
}

/* Argument errors: every rank sees the same argv, so all stop; rank 0
 * says why. */
static void die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (me == 0) {
        fprintf(stderr, "intercom-tune: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n(intercom-tune --help for the options)\n");
    }
    va_end(ap);
    exit(2);
}

/* A failed library call: stops the whole job. */
static void fail(const char *what, ic_status_t st)
{
    fprintf(stderr, "intercom-tune: rank %d: %s: %s (%s)\n", me, what, ic_status_string(st),
            ic_last_error());
    if (world && nranks > 1)
        ic_abort(world, 1);
    exit(1);
}

static void parse_args(opts_t *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (me == 0)
                usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--dry-run")) {
            o->dry_run = 1;
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--out")) {
            if (i + 1 >= argc || !argv[i + 1][0])
                die_usage("--out needs a path");
            o->out = argv[++i];
        } else {
            die_usage("unknown argument '%s'", a);
        }
    }
}

static void progress(const char *fmt, ...)
{
    if (me != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1] (sorts v). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int clamp_reps(double want, int lo, int hi)
{
    if (!(want >= lo))
        return lo;
    return want > hi ? hi : (int)want;
}

/* ---- alpha and beta: ping-pong (the fit: tune_fit.c) ------------------- */

/* One round trip of n bytes: rank 0 sends, rank 1 sends back. */
static void round_trip(void *buf, size_t n, ic_comm_t *pp)
{
    ic_status_t st;
    if ((st = ic_bcast(buf, n, IC_BYTE, 0, pp)) != IC_OK ||
        (st = ic_bcast(buf, n, IC_BYTE, 1, pp)) != IC_OK)
        fail("ic_bcast", st);
}


/* Ping-pong between rank 0 and rank peer of the world (the others only
 * take part in the split and in the final bcast of the results). */
static void measure_alpha_beta(const opts_t *o, pp_result_t *r, int peer, const char *what)
{
    ic_comm_t *pp;
    ic_status_t st;
    if ((st = ic_comm_split(world, me == 0 || me == peer ? 0 : IC_UNDEFINED, me, &pp)) != IC_OK)
        fail("ic_comm_split", st);
    /* With 2 ranks "mst" sends the whole vector as one message. */
    if (pp && (st = ic_comm_set_algorithm(pp, IC_COLL_BCAST, "mst")) != IC_OK)
        fail("ic_comm_set_algorithm", st);
    /* The protocols of the transport between the two (rank 0 tells the
     * others, who fit the same numbers). */
    double facts[2] = {0, 0};
    if (pp) {
        ic_model_params_t mp = IC_MODEL_PARAMS_INIT;
        if ((st = ic_comm_get_model(pp, &mp)) != IC_OK)
            fail("ic_comm_get_model", st);
        /* The ping-pong's messages are one-way (a 2-rank broadcast):
         * they go by rendezvous above the one-way limit. */
        facts[0] = mp.rndv_oneway_bytes > 0 && mp.rndv_oneway_bytes < mp.rndv_bytes
                       ? mp.rndv_oneway_bytes
                       : mp.rndv_bytes;
        facts[1] = mp.share_bytes;
    }
    unsigned char *buf = malloc(MAX_PP_SIZE);
    double *rt = malloc(sizeof(double) * MAX_REPS);
    if (!buf || !rt)
        fail("malloc", IC_ERR_NO_MEM);
    memset(buf, 0x5a, MAX_PP_SIZE);
    const double budget = o->quick ? 0.02 : 0.4; /* seconds of timed loop per size */
    const int min_iters = o->quick ? 3 : 20;
    const int max_iters = o->quick ? 300 : 20000;
    r->nsizes = 0;
    for (size_t n = 8; n <= MAX_PP_SIZE; n = n == 8 ? 16 : n * 4)
        r->size[r->nsizes++] = n;
    for (int i = 0; i < r->nsizes && pp; i++) {
        const size_t n = r->size[i];
        progress("measuring %s: rank 0 <-> rank %d, size %zu (%d/%d)...\n", what, peer, n, i + 1,
                 r->nsizes);
        /* Warm-up (the first call also plans), a few timed round trips,
         * and from their time rank 0 picks the number of measured ones
         * and tells rank 1. */
        const int warm = n <= ((size_t)1 << 20) ? (o->quick ? 10 : 100) : 2, calib = 3;
        for (int k = 0; k < warm; k++)
            round_trip(buf, n, pp);
        double t0 = now();
        for (int k = 0; k < calib; k++)
            round_trip(buf, n, pp);
        double per = (now() - t0) / calib;
        int64_t iters = clamp_reps(budget / per, min_iters, max_iters);
        if ((st = ic_bcast(&iters, 1, IC_INT64, 0, pp)) != IC_OK)
            fail("ic_bcast", st);
        for (int64_t k = 0; k < iters; k++) {
            double a = now();
            round_trip(buf, n, pp);
            rt[k] = now() - a;
        }
        r->iters[i] = (int)iters;
        r->t[i] = 0.5 * median(rt, (int)iters);
        r->tmin[i] = 0.5 * rt[0]; /* sorted by median() */
    }
    free(rt);
    free(buf);
    if (pp)
        ic_comm_free(&pp);
    /* Rank 0's times are the ones that count; everyone gets them. */
    if ((st = ic_bcast(r->t, (size_t)r->nsizes, IC_DOUBLE, 0, world)) != IC_OK ||
        (st = ic_bcast(r->tmin, (size_t)r->nsizes, IC_DOUBLE, 0, world)) != IC_OK)
        fail("ic_bcast", st);
    if ((st = ic_bcast(facts, 2, IC_DOUBLE, 0, world)) != IC_OK)
        fail("ic_bcast", st);
    r->rndv_bytes = facts[0];
    r->share_bytes = facts[1];
    ic_tune_fit(r);
}

/* ---- gamma and delta -------------------------------------------------- */

typedef struct compute_result {
    double gamma_float, gamma_double, gamma_int32, delta;
    int reps;
} compute_result_t;

static void time_reduce_once(ic_datatype_t dt, const void *in, void *inout, double *sample)
{
    const size_t count = COMPUTE_BYTES / ic_datatype_size(dt);
    double a = now();
    ic_reduce_predefined(IC_OP_SUM, dt, in, inout, count);
    *sample = now() - a;
}

static void time_memcpy_once(void *dst, const void *src, double *sample)
{
    double a = now();
    memcpy(dst, src, COMPUTE_BYTES);
    /* The copy's result is "used": the compiler must not drop it. */
    __asm__ __volatile__("" : : "r"(dst), "r"(src) : "memory");
    *sample = now() - a;
}

/* Passes over COMPUTE_BYTES, interleaved (float sum, double sum, int32
 * sum, memcpy, again) after a warm-up of a fixed time, so that a clock
 * still ramping up or pages still settling count for no one kind; each
 * kind's median per byte. */
static void measure_compute(const opts_t *o, compute_result_t *c)
{
    static const ic_datatype_t dts[3] = {IC_FLOAT, IC_DOUBLE, IC_INT32};
    const int reps = o->quick ? 7 : 50;
    const double warm_s = o->quick ? 0.05 : 0.3;
    void *in = malloc(COMPUTE_BYTES), *inout = malloc(COMPUTE_BYTES);
    double *samples = malloc(sizeof(double) * 4 * (size_t)reps);
    if (!in || !inout || !samples)
        fail("malloc", IC_ERR_NO_MEM);
    /* Zeros: every sum stays 0, no overflow, no subnormals, any type. */
    memset(in, 0, COMPUTE_BYTES);
    memset(inout, 0, COMPUTE_BYTES);
    ic_status_t st;
    if (nranks > 1 && (st = ic_barrier(world)) != IC_OK)
        fail("ic_barrier", st);
    progress("measuring gamma and delta: warm-up (%.2f s)...\n", warm_s);
    double t0 = now(), dummy;
    for (int k = 0; now() - t0 < warm_s; k++) {
        if (k % 4 == 3)
            time_memcpy_once(inout, in, &dummy);
        else
            time_reduce_once(dts[k % 4], in, inout, &dummy);
    }
    progress("measuring gamma (float, double, int32 sum) and delta (memcpy): %d passes of "
             "8 MiB each...\n", reps);
    for (int k = 0; k < reps; k++) {
        for (int d = 0; d < 3; d++)
            time_reduce_once(dts[d], in, inout, &samples[d * reps + k]);
        time_memcpy_once(inout, in, &samples[3 * reps + k]);
    }
    double v[4];
    for (int d = 0; d < 4; d++)
        v[d] = median(samples + d * reps, reps) / (double)COMPUTE_BYTES;
    c->reps = reps;
    free(samples);
    free(inout);
    free(in);
    if (nranks > 1 && (st = ic_allreduce(IC_IN_PLACE, v, 4, IC_DOUBLE, IC_MAX, world)) != IC_OK)
        fail("ic_allreduce", st);
    c->gamma_float = v[0];
    c->gamma_double = v[1];
    c->gamma_int32 = v[2];
    c->delta = v[3];
}

/* ---- the report and the file ------------------------------------------ */

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    static const char *const keys[] = {"model name", "Hardware", "cpu model", "Model"};
    int best = 4;
    while (fgets(line, sizeof line, f)) {
        for (int k = 0; k < best; k++) {
            size_t kl = strlen(keys[k]);
            if (strncmp(line, keys[k], kl) != 0 || (line[kl] != ' ' && line[kl] != '\t' &&
                                                    line[kl] != ':'))
                continue;
            char *colon = strchr(line, ':');
            if (!colon)
                continue;
            char *v = colon + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            v[strcspn(v, "\n")] = '\0';
            if (*v) {
                snprintf(buf, len, "%s", v);
                best = k;
            }
            break;
        }
    }
    fclose(f);
}

static void build_comment(char *buf, size_t len, int argc, char **argv, const pp_result_t *r,
                          const compute_result_t *c)
{
    char date[64] = "unknown date", cpu[256];
    time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);
    cpu_model(cpu, sizeof cpu);
    size_t used = 0;
#define APPEND(...)                                                                            \
    do {                                                                                       \
        if (used < len) {                                                                      \
            int n_ = snprintf(buf + used, len - used, __VA_ARGS__);                            \
            used += n_ > 0 ? (size_t)n_ : 0;                                                   \
        }                                                                                      \
    } while (0)
    APPEND("written by intercom-tune on %s\n", date);
    APPEND("machine: %ld processors online, cpu %s\n", sysconf(_SC_NPROCESSORS_ONLN), cpu);
#ifdef IC_TUNE_MPI
    APPEND("command: mpirun -n %d", nranks);
#else
    APPEND("command: intercom-run -n %d", nranks);
#endif
    for (int i = 0; i < argc; i++)
        APPEND(" %s", argv[i]);
    APPEND("\nalpha, beta: ping-pong (ic_bcast, 2 ranks), %d sizes 8 B .. 16 MiB, fit max "
           "|residual| %.0f%%\n",
           r->nsizes, 100 * r->max_resid);
    APPEND("gamma: float sum over 8 MiB (double %.3g, int32 %.3g s/B); delta: memcpy of 8 MiB",
           c->gamma_double, c->gamma_int32);
#undef APPEND
}

static void print_fit(const pp_result_t *r, const char *what)
{
    printf("# %s: one-way time of an n-byte message = half the median round trip\n"
           "# (ic_bcast from rank 0, then from the peer, algorithm mst); fit\n"
           "# t(n) = alpha + n*beta by least squares on relative residuals\n", what);
    if (r->rndv_bytes > 0)
        printf("# + rndv_alpha above %.0f B (the transport's rendezvous)\n", r->rndv_bytes);
    if (r->share_bytes > 0)
        printf("# with n*beta/2 from %.0f B (both ends copy a one-way message)\n",
               r->share_bytes);
    printf("%12s %9s %13s %13s %13s %9s\n", "bytes", "iters", "median_us", "min_us", "fit_us",
           "resid");
    for (int i = 0; i < r->nsizes; i++) {
        double f = ic_tune_predict(r, r->size[i]);
        printf("%12zu %9d %13.3f %13.3f %13.3f %+8.1f%%\n", r->size[i], r->iters[i],
               r->t[i] * 1e6, r->tmin[i] * 1e6, f * 1e6, 100 * (f - r->t[i]) / r->t[i]);
    }
    printf("fit: alpha = %.4g s (%.3f us), beta = %.4g s/B (%.4f ns/B, %.2f GB/s), "
           "max |residual| %.1f%%\n",
           r->alpha, r->alpha * 1e6, r->beta, r->beta * 1e9,
           r->beta > 0 ? 1e-9 / r->beta : INFINITY, 100 * r->max_resid);
    if (r->rndv_bytes > 0)
        printf("fit: rndv_alpha = %.4g s (%.3f us)\n", r->rndv_alpha, r->rndv_alpha * 1e6);
    if (r->note)
        printf("note: %s\n", r->note);
    printf("\n");
}

static void print_report(const pp_result_t *r, const compute_result_t *c, int have_pp,
                         const ic_model_t *prev, const char *prev_path)
{
    if (have_pp)
        print_fit(r, "alpha/beta");
    printf("# gamma/delta: median of %d passes over 8 MiB, %s\n", c->reps,
           nranks > 1 ? "both ranks at once, slower rank" : "one process");
    printf("gamma float sum  = %.4g s/B (%.4f ns/B, %.2f GB/s)   <- the model's gamma\n",
           c->gamma_float, c->gamma_float * 1e9, 1e-9 / c->gamma_float);
    printf("gamma double sum = %.4g s/B (%.4f ns/B, %.2f GB/s)\n", c->gamma_double,
           c->gamma_double * 1e9, 1e-9 / c->gamma_double);
    printf("gamma int32 sum  = %.4g s/B (%.4f ns/B, %.2f GB/s)\n", c->gamma_int32,
           c->gamma_int32 * 1e9, 1e-9 / c->gamma_int32);
    printf("delta memcpy     = %.4g s/B (%.4f ns/B, %.2f GB/s)   <- the model's delta\n",
           c->delta, c->delta * 1e9, 1e-9 / c->delta);
    printf("\n");
    ic_model_t d = ic_model_default();
    double meas[4] = {have_pp ? r->alpha : NAN, have_pp ? r->beta : NAN, c->gamma_float, c->delta};
    double defs[4] = {d.alpha, d.beta, d.gamma, d.delta};
    double prv[4] = {prev->alpha, prev->beta, prev->gamma, prev->delta};
    static const char *const names[4] = {"alpha", "beta", "gamma", "delta"};
    static const char *const units[4] = {"us", "ns/B", "ns/B", "ns/B"};
    static const double scale[4] = {1e6, 1e9, 1e9, 1e9};
    printf("%-8s %-6s %12s %12s %12s", "param", "unit", "measured", "default", "meas/def");
    if (prev_path)
        printf(" %12s", "previous");
    printf("\n");
    for (int k = 0; k < 4; k++) {
        if (isnan(meas[k]))
            printf("%-8s %-6s %12s %12.4f %12s", names[k], units[k], "-", defs[k] * scale[k],
                   "-");
        else
            printf("%-8s %-6s %12.4f %12.4f %12.2f", names[k], units[k], meas[k] * scale[k],
                   defs[k] * scale[k], meas[k] / defs[k]);
        if (prev_path)
            printf(" %12.4f", prv[k] * scale[k]);
        printf("\n");
    }
    if (prev_path)
        printf("(previous: %s)\n", prev_path);
}

/* The world: intercom-run's, or (the MPI build) the MPI job's. */
static ic_status_t open_world(int *argc, char ***argv)
{
#ifdef IC_TUNE_MPI
    MPI_Init(argc, argv);
    return ic_comm_from_mpi(MPI_COMM_WORLD, &world);
#else
    (void)argc;
    (void)argv;
    return ic_init(&world);
#endif
}

static void close_world(void)
{
#ifdef IC_TUNE_MPI
    ic_comm_free_mpi(&world);
    MPI_Finalize();
#else
    ic_finalize(&world);
#endif
}

/* The ping-pong peers of rank 0: another rank on its host (*local) and a
 * rank on another host (*net), or -1.  Under intercom-run: rank 1 is local. */
static void find_peers(int *local, int *net)
{
    *local = nranks > 1 ? 1 : -1;
    *net = -1;
#ifdef IC_TUNE_MPI
    int nh, *host = malloc(sizeof(int) * (size_t)nranks);
    if (!host || ic_comm_mpi_hosts(world, &nh, host) != IC_OK)
        fail("ic_comm_mpi_hosts", IC_ERR_NO_MEM);
    *local = -1;
    for (int r = nranks - 1; r > 0; r--) {
        if (host[r] == host[0])
            *local = r;
        else
            *net = r;
    }
    free(host);
#endif
}

int main(int argc, char **argv)
{
    /* The output path honours IC_TUNE_FILE; then ic_init must not read it
     * (it may not exist yet, or be the broken file this run replaces). */
    char defpath[4096];
    const char *def = ic_tune_default_path(defpath, sizeof defpath);
    unsetenv("IC_TUNE_FILE");

    ic_status_t st = open_world(&argc, &argv);
    if (st != IC_OK) {
        fprintf(stderr, "intercom-tune: opening the world: %s\n", ic_last_error());
        return 1;
    }
    ic_comm_rank(world, &me);
    ic_comm_size(world, &nranks);
    opts_t o;
    parse_args(&o, argc, argv);
#ifndef IC_TUNE_MPI
    if (nranks > 2)
        die_usage("run it on 2 processes (intercom-run -n 2 intercom-tune), not %d", nranks);
#endif
    const char *out = o.out ? o.out : def;
    if (nranks == 1 && !o.dry_run) {
        fprintf(stderr,
                "intercom-tune: alpha and beta need two processes: run it as\n"
                "    intercom-run -n 2 intercom-tune%s%s\n"
                "Alone it can only measure gamma and delta, with --dry-run (nothing written).\n",
                o.out ? " --out " : "", o.out ? o.out : "");
        close_world();
        return 2;
    }
    if (!o.dry_run && !out)
        die_usage("no place for the tune file: IC_TUNE_FILE, XDG_CONFIG_HOME and HOME are "
                  "unset; give --out PATH");

    /* The file about to be replaced, if it is one, for the comparison. */
    ic_model_t prev = ic_model_default();
    const char *prev_path = NULL;
    if (me == 0 && out && access(out, F_OK) == 0) {
        if (ic_tune_read(out, &prev) == IC_OK)
            prev_path = out;
        else
            fprintf(stderr, "intercom-tune: the present file is unusable (%s); it will be "
                            "replaced\n", ic_last_error());
    }
    int local, net;
    find_peers(&local, &net);
    if (me == 0) {
        printf("# intercom-tune: %d process%s, %s mode; %s%s\n", nranks, nranks > 1 ? "es" : "",
               o.quick ? "quick" : "full", o.dry_run ? "dry run, writing nothing" : "writing ",
               o.dry_run ? "" : out);
        if (nranks == 1)
            printf("# one process: alpha and beta need intercom-run -n 2; measuring gamma and "
                   "delta only\n");
        if (nranks > 1 && local < 0)
            printf("# no other rank on rank 0's host: alpha and beta keep %s values\n",
                   prev_path ? "the present file's" : "the default");
        if (net >= 0)
            printf("# across hosts: rank 0 <-> rank %d measures net_alpha, net_beta\n", net);
        fflush(stdout);
    }

    pp_result_t r, rn;
    memset(&r, 0, sizeof r);
    memset(&rn, 0, sizeof rn);
    double t0 = now();
    if (local >= 0)
        measure_alpha_beta(&o, &r, local, "alpha/beta");
    if (net >= 0)
        measure_alpha_beta(&o, &rn, net, "net_alpha/net_beta");
    compute_result_t c;
    measure_compute(&o, &c);
    progress("measured in %.1f s\n", now() - t0);

    int rc = 0;
    if (me == 0) {
        if (net >= 0)
            print_fit(&rn, "net_alpha/net_beta (between hosts, over MPI)");
        print_report(&r, &c, local >= 0, &prev, prev_path);
        if (!o.dry_run) {
            ic_model_t m = prev; /* keeps a level that was not measured */
            if (local >= 0) {
                m.alpha = r.alpha;
                m.beta = r.beta;
                if (r.rndv_bytes > 0)
                    m.rndv_alpha = r.rndv_alpha;
            }
            if (net >= 0) {
                m.lvl_alpha[0] = rn.alpha;
                m.lvl_beta[0] = rn.beta;
            }
            m.gamma = c.gamma_float;
            m.delta = c.delta;
            char comment[2048];
            build_comment(comment, sizeof comment, argc, argv, &r, &c);
            if ((st = ic_tune_write(out, &m, comment)) != IC_OK) {
                fprintf(stderr, "intercom-tune: %s\n", ic_last_error());
                rc = 1;
            } else {
                printf("wrote %s\n", out);
            }
        }
        fflush(stdout);
    }
    close_world();
    return rc;
}
