/*
 * intercom_bench.c — times the collectives between real processes:
 *   intercom-run -n P intercom-bench [-c COLL[,COLL..]] [--sizes S[,S..]]
 *                [--iters N] [--warmup W] [--algo NAME] [--csv FILE]
 *                [--sync barrier|window] [--touch]
 *
 * Per (collective, size): W untimed iterations, then N timed ones; one
 * iteration is ic_barrier, then one call timed with CLOCK_MONOTONIC.  With
 * --sync window there is no barrier: every rank starts iteration i at one
 * common instant (rank 0's start time, broadcast once on the statistics
 * communicator, + i windows; one kernel, one clock) and the call's time
 * runs from that instant, so no barrier's exit order shows in it; the
 * window is twice the slowest rank's last warm-up call + 30 us, an
 * iteration some rank started late is dropped, and the loop runs again
 * with twice the window while more than a quarter are late (at most 4
 * tries; docs/benchmarks.md).  With --touch every rank rewrites its input
 * (the root's buffer for bcast) before each call, untimed, as a program
 * that has just computed its data would: the input's lines are then in
 * the writer's cache, not in a reader's from the last call.  The
 * per-iteration times are then combined with the library's ic_allreduce
 * (IC_MAX) on a second communicator (leaving the benchmarked one's plan
 * cache alone), so an iteration counts as its slowest rank; rank 0 prints
 * their median, min and max and the algorithm (forced with --algo, else
 * the selector's choice for the same arguments).
 *
 * Size is the total message in bytes: the vector for bcast, reduce,
 * allreduce, scan, exscan; the root's whole buffer for scatter(v) and
 * gather(v); the whole result for allgather(v); each rank's whole input
 * for reduce_scatter(_block); each rank's whole send buffer for
 * alltoall(v); the per-rank block is size/P.  Reductions use IC_FLOAT and
 * IC_SUM, the rest IC_BYTE; block forms round down, v-forms spread the
 * remainder over the first ranks.  Root 0.  See docs/benchmarks.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "intercom.h"

#include "core/comm.h"     /* the communicator's cost model, for the choice */
#include "algo/validate.h" /* buffer sizes of a call */
#include "select/catalog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES 64
#define MAX_SIZE ((size_t)1 << 30)
#define MAX_ITERS 10000000L

typedef struct opts {
    int want[IC_COLL_COUNT]; /* 1: benchmark this collective */
    size_t sizes[MAX_SIZES];
    int nsizes, iters, warmup;
    const char *algo; /* NULL: automatic choice */
    const char *csv;
    int window; /* --sync window */
    int touch;  /* --touch: rewrite the input before every call */
} opts_t;

/* One call as it is made on this rank. */
typedef struct call {
    ic_coll_args_t a;
    size_t *counts;  /* v-forms and alltoallv's send counts (p entries) */
    size_t *rcounts; /* alltoallv's receive counts on this rank */
    void *send, *recv;
    size_t bytes; /* total bytes in the sense above, after rounding */
    void *input;        /* the buffer this rank's program writes before a call */
    void *fresh;        /* its contents, copied into it by --touch */
    size_t input_bytes; /* 0: nothing to write (a non-root's bcast, barrier) */
} call_t;

static int me, nranks;
static int crowded; /* more ranks than cores: a rank waiting for its instant yields */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: intercom-run -n P intercom-bench [options]\n"
                 "  -c, --coll LIST   collectives to time, comma-separated names as printed\n"
                 "                    by ic_coll_name (allreduce, bcast, ...) or 'all' (default)\n"
                 "  --sizes LIST      total message sizes in bytes, comma-separated, with an\n"
                 "                    optional K, M or G suffix (KiB, MiB, GiB); at most 1G\n"
                 "                    (default 8,4096,262144,16777216)\n"
                 "  --iters N         timed iterations per size (default 100)\n"
                 "  --warmup W        untimed iterations before them (default 10)\n"
                 "  --sync MODE       barrier (default): ic_barrier before each call, timed\n"
                 "                    from its exit; window: every rank starts each call at\n"
                 "                    one common instant, timed from it\n"
                 "  --algo NAME       force this algorithm (ic_comm_set_algorithm) on the\n"
                 "                    collectives that have it, skipping the others; 'auto'\n"
                 "                    (default) lets the library choose\n"
                 "  --touch           rewrite each rank's input before every call (untimed),\n"
                 "                    as a program that has just computed it; without it the\n"
                 "                    input is written once and may stay in a reader's cache\n"
                 "  --csv FILE        also write the rows as CSV to FILE (rank 0)\n"
                 "  --list            print every collective's algorithms and exit\n"
                 "  -h, --help        this text\n");
}

/* Argument errors: every rank sees the same argv, so all stop; rank 0
 * says why. */
static void die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (me == 0) {
        fprintf(stderr, "intercom-bench: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n(intercom-bench --help for the options)\n");
    }
    va_end(ap);
    exit(2);
}

static long parse_long(const char *s, const char *opt, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        die_usage("%s needs a whole number from %ld to %ld, not '%s'", opt, lo, hi, s);
    return v;
}

static void parse_sizes(opts_t *o, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    o->nsizes = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(tok, &end, 10);
        unsigned long long mul = 1;
        if (*end == 'k' || *end == 'K')
            mul = 1ull << 10;
        else if (*end == 'm' || *end == 'M')
            mul = 1ull << 20;
        else if (*end == 'g' || *end == 'G')
            mul = 1ull << 30;
        if (mul > 1)
            end++;
        if (errno || end == tok || *end || tok[0] == '-' || v > MAX_SIZE / mul)
            die_usage("--sizes: '%s' is not a byte count from 0 to 1G (e.g. 8,4K,16M)", tok);
        if (o->nsizes == MAX_SIZES)
            die_usage("--sizes: more than 64 sizes in '%s'", list);
        o->sizes[o->nsizes++] = (size_t)(v * mul);
    }
    if (o->nsizes == 0)
        die_usage("--sizes: no size in '%s'", list);
    free(copy);
}

static void parse_colls(opts_t *o, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    memset(o->want, 0, sizeof o->want);
    int any = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int c = 0;
        while (c < IC_COLL_COUNT && strcmp(tok, ic_coll_name((ic_coll_t)c)) != 0)
            c++;
        if (strcmp(tok, "all") == 0) {
            for (c = 0; c < IC_COLL_COUNT; c++)
                o->want[c] = 1;
        } else if (c == IC_COLL_COUNT) {
            char all[512] = "all";
            for (c = 0; c < IC_COLL_COUNT; c++)
                snprintf(all + strlen(all), sizeof all - strlen(all), ", %s",
                         ic_coll_name((ic_coll_t)c));
            die_usage("-c: unknown collective '%s'; one of: %s", tok, all);
        } else {
            o->want[c] = 1;
        }
        any = 1;
    }
    if (!any)
        die_usage("-c: no collective in '%s'", list);
    free(copy);
}

static void parse_args(opts_t *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    parse_colls(o, "all");
    parse_sizes(o, "8,4096,262144,16777216");
    o->iters = 100;
    o->warmup = 10;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (me == 0)
                usage(stdout);
            exit(0);
        }
        if (strcmp(a, "--list") == 0) { /* the catalog, for scripts */
            char names[1024];
            for (int c = 0; me == 0 && c < IC_COLL_COUNT; c++) {
                ic_algorithms((ic_coll_t)c, names, sizeof names);
                printf("%s: %s\n", ic_coll_name((ic_coll_t)c), names);
            }
            exit(0);
        }
        if (strcmp(a, "--touch") == 0) {
            o->touch = 1;
            continue;
        }
        int known = !strcmp(a, "-c") || !strcmp(a, "--coll") || !strcmp(a, "--sizes") ||
                    !strcmp(a, "--iters") || !strcmp(a, "--warmup") || !strcmp(a, "--algo") ||
                    !strcmp(a, "--csv") || !strcmp(a, "--sync");
        if (!known)
            die_usage("unknown option '%s'", a);
        if (i + 1 >= argc)
            die_usage("%s needs a value", a);
        const char *v = argv[++i];
        if (!strcmp(a, "-c") || !strcmp(a, "--coll"))
            parse_colls(o, v);
        else if (!strcmp(a, "--sizes"))
            parse_sizes(o, v);
        else if (!strcmp(a, "--iters"))
            o->iters = (int)parse_long(v, a, 1, MAX_ITERS);
        else if (!strcmp(a, "--warmup"))
            o->warmup = (int)parse_long(v, a, 0, MAX_ITERS);
        else if (!strcmp(a, "--algo"))
            o->algo = strcmp(v, "auto") == 0 ? NULL : v;
        else if (!strcmp(a, "--sync") && (!strcmp(v, "window") || !strcmp(v, "barrier")))
            o->window = !strcmp(v, "window");
        else if (!strcmp(a, "--sync"))
            die_usage("--sync: 'barrier' or 'window', not '%s'", v);
        else if (*v == '\0')
            die_usage("--csv needs a file name");
        else
            o->csv = v;
    }
}

static int is_reduction(ic_coll_t c)
{
    return c == IC_COLL_REDUCE || c == IC_COLL_ALLREDUCE || c == IC_COLL_REDUCE_SCATTER_BLOCK ||
           c == IC_COLL_REDUCE_SCATTER || c == IC_COLL_SCAN || c == IC_COLL_EXSCAN;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "intercom-bench: rank %d: out of memory (%zu bytes)\n", me, n);
        exit(1);
    }
    return p;
}

/* Describes the call of coll with size bytes on this rank and allocates
 * and fills its buffers. */
static void call_setup(call_t *k, ic_coll_t coll, size_t size, const ic_comm_t *comm)
{
    memset(k, 0, sizeof *k);
    ic_coll_args_t *a = &k->a;
    a->coll = coll;
    a->dtype = is_reduction(coll) ? IC_FLOAT : IC_BYTE;
    a->op = is_reduction(coll) ? IC_SUM : NULL;
    a->root = 0;
    a->model = comm->model;
    size_t es = ic_datatype_size(a->dtype), n = size / es, p = (size_t)nranks;
    k->counts = xmalloc(p * sizeof(size_t));
    k->rcounts = xmalloc(p * sizeof(size_t));
    for (size_t i = 0; i < p; i++)
        k->counts[i] = n / p + (i < n % p);
    switch (coll) {
    case IC_COLL_BARRIER:
        n = 0;
        break;
    case IC_COLL_SCATTER:
    case IC_COLL_GATHER:
    case IC_COLL_ALLGATHER:
    case IC_COLL_REDUCE_SCATTER_BLOCK:
    case IC_COLL_ALLTOALL:
        a->count = n / p;
        n = a->count * p;
        break;
    case IC_COLL_SCATTERV:
    case IC_COLL_GATHERV:
    case IC_COLL_ALLGATHERV:
    case IC_COLL_REDUCE_SCATTER:
        a->counts = k->counts;
        break;
    case IC_COLL_ALLTOALLV: /* rank i sends counts[j] to j, so receives counts[i] */
        for (size_t i = 0; i < p; i++)
            k->rcounts[i] = k->counts[me];
        a->scounts = k->counts;
        a->rcounts = k->rcounts;
        break;
    default: /* bcast, reduce, allreduce, scan, exscan */
        a->count = n;
        break;
    }
    k->bytes = n * es;
    size_t sb = 0, rb = 0;
    ic_args_buffer_bytes(a, me, nranks, &sb, &rb);
    k->send = xmalloc(sb);
    k->recv = xmalloc(rb);
    for (size_t i = 0; a->dtype == IC_FLOAT && i < sb / sizeof(float); i++)
        ((float *)k->send)[i] = 1.0f + (float)(i % 8);
    for (size_t i = 0; a->dtype == IC_BYTE && i < sb; i++)
        ((unsigned char *)k->send)[i] = (unsigned char)(i * 7 + (size_t)me);
    memset(k->recv, 0, rb ? rb : 1); /* touch every page before timing */
    k->input = coll == IC_COLL_BCAST ? k->recv : k->send;
    k->input_bytes = coll == IC_COLL_BCAST ? (me == 0 ? rb : 0) : sb;
    k->fresh = xmalloc(k->input_bytes);
    memcpy(k->fresh, k->input, k->input_bytes);
}

/* --touch: this rank writes its input again, as its program would. */
static void touch_input(const call_t *k, int touch)
{
    if (touch && k->input_bytes)
        memcpy(k->input, k->fresh, k->input_bytes);
}

static ic_status_t call_run(const call_t *k, ic_comm_t *c)
{
    const ic_coll_args_t *a = &k->a;
    const void *s = k->send;
    void *r = k->recv;
    switch (a->coll) {
    case IC_COLL_BCAST:
        return ic_bcast(r, a->count, a->dtype, 0, c);
    case IC_COLL_REDUCE:
        return ic_reduce(s, r, a->count, a->dtype, a->op, 0, c);
    case IC_COLL_ALLREDUCE:
        return ic_allreduce(s, r, a->count, a->dtype, a->op, c);
    case IC_COLL_SCATTER:
        return ic_scatter(s, r, a->count, a->dtype, 0, c);
    case IC_COLL_SCATTERV:
        return ic_scatterv(s, a->counts, NULL, r, a->dtype, 0, c);
    case IC_COLL_GATHER:
        return ic_gather(s, r, a->count, a->dtype, 0, c);
    case IC_COLL_GATHERV:
        return ic_gatherv(s, r, a->counts, NULL, a->dtype, 0, c);
    case IC_COLL_ALLGATHER:
        return ic_allgather(s, r, a->count, a->dtype, c);
    case IC_COLL_ALLGATHERV:
        return ic_allgatherv(s, r, a->counts, NULL, a->dtype, c);
    case IC_COLL_REDUCE_SCATTER_BLOCK:
        return ic_reduce_scatter_block(s, r, a->count, a->dtype, a->op, c);
    case IC_COLL_REDUCE_SCATTER:
        return ic_reduce_scatter(s, r, a->counts, a->dtype, a->op, c);
    case IC_COLL_ALLTOALL:
        return ic_alltoall(s, r, a->count, a->dtype, c);
    case IC_COLL_ALLTOALLV:
        return ic_alltoallv(s, a->scounts, NULL, r, a->rcounts, NULL, a->dtype, c);
    case IC_COLL_BARRIER:
        return ic_barrier(c);
    case IC_COLL_SCAN:
        return ic_scan(s, r, a->count, a->dtype, a->op, c);
    case IC_COLL_EXSCAN:
        return ic_exscan(s, r, a->count, a->dtype, a->op, c);
    default:
        return IC_ERR_ARG;
    }
}

/* The algorithm the call runs with: the forced one, or the selector's
 * choice for the same arguments under the communicator's model. */
static const char *algo_of(const call_t *k, const char *forced)
{
    return forced ? forced : ic_select(&k->a, nranks, &k->a.model)->name;
}

static void fail(const char *what, const call_t *k, ic_status_t st)
{
    fprintf(stderr, "intercom-bench: rank %d: %s (%s, %zu bytes) failed: %s: %s\n", me, what,
            k ? ic_coll_name(k->a.coll) : "-", k ? k->bytes : 0, ic_status_string(st),
            ic_last_error());
    exit(1);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* --sync window: iters calls, iteration i from start + i * window on
 * every rank; t[i] the slowest rank's time from its instant, t[iters + i]
 * nonzero when some rank got there after the instant.  Returns how many
 * did. */
static int window_loop(call_t *k, int iters, double window, int touch, ic_comm_t *comm,
                       ic_comm_t *stats, double *t)
{
    ic_status_t st;
    double start = now() + 1e-3 + window;
    if ((st = ic_barrier(stats)) != IC_OK || (st = ic_bcast(&start, 1, IC_DOUBLE, 0, stats)))
        fail("the window's start time", k, st);
    for (int it = 0; it < iters; it++) {
        touch_input(k, touch);
        double at = start + it * window, tn = now();
        t[iters + it] = tn > at;
        while (tn < at) {
            if (crowded)
                sched_yield();
            tn = now();
        }
        if ((st = call_run(k, comm)) != IC_OK)
            fail("call", k, st);
        t[it] = now() - at;
    }
    if ((st = ic_allreduce(IC_IN_PLACE, t, (size_t)iters * 2, IC_DOUBLE, IC_MAX, stats)))
        fail("allreduce of the times", k, st);
    int nlate = 0;
    for (int it = 0; it < iters; it++)
        nlate += t[iters + it] != 0;
    return nlate;
}

/* Times one (collective, size) and prints its row on rank 0. */
static void bench_one(const opts_t *o, ic_coll_t coll, size_t size, ic_comm_t *comm,
                      ic_comm_t *stats, FILE *csv, int *rounded)
{
    call_t k;
    call_setup(&k, coll, size, comm);
    int reproducible = 0;
    ic_comm_get_reproducible(comm, &reproducible); /* IC_REPRODUCIBLE: for algo_of */
    k.a.reproducible = reproducible;
    double *t = xmalloc(sizeof(double) * (size_t)o->iters * 2);
    ic_status_t st;
    double last = 0, touched = 0; /* this rank's last warm-up call; its --touch */
    for (int it = -o->warmup; it < (o->window ? 0 : o->iters); it++) {
        double t_touch = now();
        touch_input(&k, o->touch);
        touched = now() - t_touch;
        if ((st = ic_barrier(comm)) != IC_OK)
            fail("barrier", &k, st);
        double t0 = now();
        if ((st = call_run(&k, comm)) != IC_OK)
            fail("call", &k, st);
        double t1 = now();
        if (it >= 0)
            t[it] = t1 - t0;
        last = t1 - t0;
    }
    size_t n = (size_t)o->iters;
    int nlate = 0;
    if (o->window) {
        last += touched; /* each window also holds the rewrite of the input */
        if ((st = ic_allreduce(IC_IN_PLACE, &last, 1, IC_DOUBLE, IC_MAX, stats)) != IC_OK)
            fail("allreduce of the warm-up time", &k, st);
        double window = 2 * last + 30e-6;
        for (int tries = 1;; tries++, window *= 2) {
            nlate = window_loop(&k, o->iters, window, o->touch, comm, stats, t);
            if (4 * nlate <= o->iters || tries == 4)
                break;
        }
        n = 0; /* the valid ones to the front (all of them if none is) */
        for (int it = 0; it < o->iters; it++)
            if (t[o->iters + it] == 0 || nlate == o->iters)
                t[n++] = t[it];
    } else {
        st = ic_allreduce(IC_IN_PLACE, t, (size_t)o->iters, IC_DOUBLE, IC_MAX, stats);
        if (st != IC_OK)
            fail("allreduce of the times", &k, st);
    }
    if (me == 0) {
        qsort(t, n, sizeof(double), cmp_double);
        double med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
        const char *algo = algo_of(&k, o->algo);
        int r = coll != IC_COLL_BARRIER && k.bytes != size;
        *rounded |= r;
        printf("%-22s %11zu%s %-18s %12.2f %12.2f %12.2f\n", ic_coll_name(coll), k.bytes,
               r ? "*" : " ", algo, med * 1e6, t[0] * 1e6, t[n - 1] * 1e6);
        if (nlate > 0)
            printf("# %s %zu: %d of %d iterations started late on some rank, left out\n",
                   ic_coll_name(coll), k.bytes, nlate, o->iters);
        fflush(stdout);
        if (csv)
            fprintf(csv, "%s,%d,%zu,%zu,%s,%d,%d,%.3f,%.3f,%.3f\n", ic_coll_name(coll), nranks,
                    coll == IC_COLL_BARRIER ? 0 : size, k.bytes, algo, o->iters, o->warmup,
                    med * 1e6, t[0] * 1e6, t[n - 1] * 1e6);
    }
    free(t);
    free(k.counts);
    free(k.rcounts);
    free(k.send);
    free(k.recv);
    free(k.fresh);
}

int main(int argc, char **argv)
{
    ic_comm_t *world, *comm, *stats;
    ic_status_t st = ic_init(&world);
    if (st != IC_OK) {
        fprintf(stderr, "intercom-bench: ic_init: %s\n", ic_last_error());
        return 1;
    }
    ic_comm_rank(world, &me);
    ic_comm_size(world, &nranks);
    crowded = nranks > sysconf(_SC_NPROCESSORS_ONLN);
    opts_t o;
    parse_args(&o, argc, argv);
    /* Benchmarked calls and the collection of times use two communicators
     * so that neither evicts the other's cached plans. */
    if ((st = ic_comm_split(world, 0, me, &comm)) != IC_OK ||
        (st = ic_comm_split(world, 0, me, &stats)) != IC_OK)
        fail("ic_comm_split", NULL, st);
    /* --algo applies to the chosen collectives that have it. */
    int skip[IC_COLL_COUNT] = {0}, forced = 0;
    for (int c = 0; o.algo && c < IC_COLL_COUNT; c++) {
        if (!o.want[c])
            continue;
        st = ic_comm_set_algorithm(comm, (ic_coll_t)c, o.algo);
        if (st != IC_OK && st != IC_ERR_UNKNOWN_ALGO)
            fail("ic_comm_set_algorithm", NULL, st);
        skip[c] = st != IC_OK;
        forced += st == IC_OK;
        if (skip[c] && me == 0)
            fprintf(stderr, "intercom-bench: --algo: %s; skipped\n", ic_last_error());
    }
    if (o.algo && !forced)
        die_usage("--algo %s: no chosen collective has this algorithm", o.algo);
    /* Rank 0 opens the CSV file; everyone learns whether that worked. */
    FILE *csv = NULL;
    int32_t ok = 1;
    if (me == 0 && o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) {
            fprintf(stderr, "intercom-bench: --csv: cannot write '%s': %s\n", o.csv,
                    strerror(errno));
            ok = 0;
        } else {
            fprintf(csv,
                    "collective,p,size,bytes,algorithm,iters,warmup,median_us,min_us,max_us\n");
        }
    }
    if ((st = ic_bcast(&ok, 1, IC_INT32, 0, stats)) != IC_OK)
        fail("bcast", NULL, st);
    if (!ok)
        return 2;
    if (me == 0) {
        printf("# intercom-bench: %d ranks, %d timed iterations after %d warm-up, root 0\n"
               "# each iteration: %s%s;\n# its time is the max over"
               " ranks (ic_allreduce IC_MAX after the loop); median/min/max over iterations\n"
               "# reductions: IC_FLOAT with IC_SUM; other collectives: IC_BYTE\n"
               "# bytes: total message size (see docs/benchmarks.md); algorithm: %s\n",
               nranks, o.iters, o.warmup,
               o.touch ? "every rank rewrites its input (untimed), " : "",
               o.window ? "one call started at an instant common to all ranks, timed from it"
                        : "ic_barrier, then one timed call",
               o.algo ? "forced with --algo" : "automatic choice");
        printf("%-22s %12s %-18s %12s %12s %12s\n", "collective", "bytes", "algorithm", "median_us",
               "min_us", "max_us");
        fflush(stdout);
    }
    int rounded = 0;
    for (int c = 0; c < IC_COLL_COUNT; c++) {
        if (!o.want[c] || skip[c])
            continue;
        for (int s = 0; s < (c == IC_COLL_BARRIER ? 1 : o.nsizes); s++)
            bench_one(&o, (ic_coll_t)c, o.sizes[s], comm, stats, csv, &rounded);
    }
    if (me == 0 && rounded)
        printf("* rounded down to whole floats (reductions) and per-rank blocks (size/P)\n");
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "intercom-bench: --csv: error writing '%s'\n", o.csv);
        return 1;
    }
    ic_comm_free(&stats);
    ic_comm_free(&comm);
    ic_finalize(&world);
    return 0;
}
