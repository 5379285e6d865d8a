/*
 * dropin_bench.c — times MPI's 16 collectives.  A plain MPI program: it
 * knows nothing of intercom, so the same binary measures an MPI's own
 * collectives and, with LD_PRELOAD=libintercom_mpi.so, intercom's drop-in
 * (bench/dropin_compare.sh runs it both ways and compares).
 *
 *   mpirun -n P dropin_bench [--sizes 8,4K,64K,1M,16M] [--colls all|LIST]
 *                            [--iters N] [--target-ms 20] [--min-iters 5]
 *                            [--max-iters 200] [--big 16M] [--big-min-iters 3]
 *                            [--sync mpi|pmpi|window] [--touch]
 *
 * What "bytes" (a size of --sizes) means per collective; root 0 throughout,
 * reductions are MPI_FLOAT / MPI_SUM over n = bytes / 4 floats (at least 1),
 * data movement is MPI_BYTE:
 *   bcast                          the whole message (bytes)
 *   reduce, allreduce, scan, exscan the whole vector (n floats)
 *   scatter(v), gather(v),         one rank's block: every rank sends or
 *   allgather(v), alltoall(v)      receives bytes per peer (the root, and
 *                                  every rank of allgather/alltoall, handles
 *                                  P blocks); the v-forms with equal counts
 *                                  and displacements k * bytes
 *   reduce_scatter_block,          one rank's result block (n floats); the
 *   reduce_scatter                 input vector is P * n floats; the v-form
 *                                  with P equal counts n
 *   barrier                        no data: one cell, printed as bytes=0
 *
 * A cell (collective, size): 2 untimed warm-up calls; the second one's
 * result is checked against a serial reference computed locally from the
 * deterministic inputs (every rank checks what it received; the receive
 * buffer is poisoned first).  A wrong result prints "FAIL ..." and ends
 * the job with MPI_Abort (exit status nonzero).  Then N timed iterations,
 * each: MPI_Barrier; t0 = MPI_Wtime(); one call; t = MPI_Wtime() - t0.  An
 * iteration counts as its slowest rank (MPI_Allreduce MAX over the array of
 * times, after the loop), the cell's figure is the median iteration.  N is
 * --iters if given, else adaptive: --target-ms (20) divided by the slower
 * warm-up call (its slowest rank), clamped to [--min-iters, --max-iters]
 * ([5, 200]); sizes of --big (16 MiB) and more take at least --big-min-iters
 * (3) instead, so that the largest cells stay affordable on oversubscribed
 * runs.  All ranks agree on N (it comes from an allreduced time).
 * The timing's own MPI_Barrier and MPI_Allreduce are collectives too: under
 * the drop-in they are intercom's, as they would be in any program (so a
 * barrier that lets ranks leave far apart shows in the next call's time).
 * --sync pmpi makes them PMPI_Barrier and PMPI_Allreduce instead, the MPI's
 * own in both runs, so that only the timed call differs.
 *
 * --touch rewrites every rank's input before every timed call (untimed:
 * before the barrier, or before the window's instant, the window then
 * holding the rewrite too): the send buffer, or the root's buffer for
 * bcast, copied in again from a saved copy, as a program that has just
 * computed its data would.  Without it the input is written once, and a
 * peer that read it in an earlier call may still hold its lines in its
 * cache, which flatters single-copy reads (process_vm_readv, the MPIs'
 * CMA) of unchanged data (docs/benchmarks.md, "Touched inputs").
 *
 * --sync window times every call from one common instant instead of from
 * each rank's own exit of a barrier (window-based synchronisation, as in
 * SKaMPI and ReproMPI [Hunold & Carpen-Amarie 2016]): after one
 * MPI_Barrier, rank 0 sends (MPI_Bcast) a start time a millisecond
 * and a window ahead; iteration i starts at start + i * window on every rank's
 * CLOCK_MONOTONIC (one kernel: one clock, also across network namespaces),
 * each rank waits for that instant (spinning, or yielding when the host's
 * ranks outnumber its cores), calls, and records its end minus the
 * instant.  An iteration counts as its slowest rank; one that a rank
 * started late (the instant had passed when it got there) is dropped, and
 * when more than a quarter are dropped the cell is run again with twice
 * the window (window: twice the second warm-up call + 30 us; at most 4
 * tries, and none once the cell's windows would take more than a second;
 * the line says late=K, window_us=W).  The adaptive N counts windows, not
 * calls, against --target-ms.  Barrier-based timing
 * measures from each rank's own barrier exit, so the order in which a
 * barrier releases the ranks shows in the next call: a barrier that lets
 * a broadcast's root out first makes the broadcast look shorter than its
 * one-way latency.  The window measures every library from the same
 * instant.  It needs one clock on every rank (one host, or pretend hosts
 * on one kernel).  The window's own barrier, broadcast and allreduces are
 * the library's (intercom's under the drop-in): they are not timed, and
 * with PMPI_ ones intercom's launches under MPICH with more ranks than
 * cores were timed while ranks still spun in MPICH's barrier (4 ms
 * outliers, warm-up calls of milliseconds and so 5-iteration cells).
 *
 * Output (rank 0, stdout, one line per cell, flushed):
 *   cell coll=allreduce bytes=65536 p=4 hosts=1 median_us=12.3 min_us=11.9
 *        max_us=20.1 iters=200
 * and lines starting with '#': the header (MPI library, ranks, hosts by
 * MPI_COMM_TYPE_SHARED, LD_PRELOAD as seen by rank 0), "# begin coll=X
 * bytes=Y" before each cell (so a driver can tell which cell hangs) and
 * "# done" before MPI_Finalize.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    C_BCAST,
    C_REDUCE,
    C_ALLREDUCE,
    C_SCATTER,
    C_SCATTERV,
    C_GATHER,
    C_GATHERV,
    C_ALLGATHER,
    C_ALLGATHERV,
    C_REDUCE_SCATTER,
    C_REDUCE_SCATTER_BLOCK,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_BARRIER,
    C_SCAN,
    C_EXSCAN,
    NCOLL
};

static const char *const coll_names[NCOLL] = {
    "bcast",     "reduce",         "allreduce",            "scatter",  "scatterv",
    "gather",    "gatherv",        "allgather",            "allgatherv",
    "reduce_scatter", "reduce_scatter_block", "alltoall", "alltoallv", "barrier",
    "scan",      "exscan"};

#define MAX_SIZES 64
#define POISON 0xA5

static int me, np;
static int sync_pmpi;   /* --sync pmpi: the timing's collectives are PMPI_ */
static int sync_window; /* --sync window: timed from a common instant */
static int crowded;     /* this host's ranks outnumber its cores: waits yield */
static int touch;       /* --touch: rewrite the input before every timed call */

static void sync_barrier(void)
{
    if (sync_pmpi)
        PMPI_Barrier(MPI_COMM_WORLD);
    else
        MPI_Barrier(MPI_COMM_WORLD);
}

static void sync_bcast(double *v, int n)
{
    if (sync_pmpi)
        PMPI_Bcast(v, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(v, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

static void sync_max(double *v, int n)
{
    if (sync_pmpi)
        PMPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    else
        MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* ---- buffers of one cell ---- */
typedef struct {
    int coll;
    size_t bytes;  /* the size as defined above */
    size_t n;      /* floats of reductions: max(1, bytes / 4) */
    void *sb, *rb; /* send and receive buffers */
    size_t sbytes, rbytes;
    int *counts, *displs; /* the v-forms: P equal counts, k * count */
    void *fresh;  /* --touch: the input's contents, copied in before every call */
} cell_t;

static int is_reduction(int c)
{
    return c == C_REDUCE || c == C_ALLREDUCE || c == C_SCAN || c == C_EXSCAN ||
           c == C_REDUCE_SCATTER || c == C_REDUCE_SCATTER_BLOCK;
}

/* Deterministic inputs.  Floats are small integers, so every sum over at
 * most a few hundred ranks is exact whatever the order of additions. */
static float fval(int rank, size_t i)
{
    return (float)((i * 3 + (size_t)rank * 7) % 13);
}

/* The byte rank src sends to rank dst at offset i of the block. */
static unsigned char bval(int src, int dst, size_t i)
{
    return (unsigned char)((i * 7 + (size_t)src * 31 + (size_t)dst * 13 + (i >> 8)) & 0xff);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "dropin_bench: rank %d: out of memory (%zu bytes)\n", me, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void cell_alloc(cell_t *c)
{
    size_t b = c->bytes, P = (size_t)np, fl = c->n * sizeof(float);
    switch (c->coll) {
    case C_BCAST: c->sbytes = 0, c->rbytes = b; break;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
    case C_EXSCAN: c->sbytes = fl, c->rbytes = fl; break;
    case C_SCATTER:
    case C_SCATTERV: c->sbytes = me == 0 ? P * b : 0, c->rbytes = b; break;
    case C_GATHER:
    case C_GATHERV: c->sbytes = b, c->rbytes = me == 0 ? P * b : 0; break;
    case C_ALLGATHER:
    case C_ALLGATHERV: c->sbytes = b, c->rbytes = P * b; break;
    case C_ALLTOALL:
    case C_ALLTOALLV: c->sbytes = P * b, c->rbytes = P * b; break;
    case C_REDUCE_SCATTER:
    case C_REDUCE_SCATTER_BLOCK: c->sbytes = P * fl, c->rbytes = fl; break;
    default: c->sbytes = c->rbytes = 0; break;
    }
    c->sb = xmalloc(c->sbytes);
    c->rb = xmalloc(c->rbytes);
    c->counts = xmalloc(sizeof(int) * P);
    c->displs = xmalloc(sizeof(int) * P);
    int cnt = c->coll == C_REDUCE_SCATTER ? (int)c->n : (int)b;
    for (int k = 0; k < np; k++)
        c->counts[k] = cnt, c->displs[k] = k * cnt;

    /* The send buffer. */
    if (is_reduction(c->coll)) {
        float *f = c->sb;
        for (size_t i = 0; i < c->sbytes / sizeof(float); i++)
            f[i] = fval(me, i);
    } else if (c->coll == C_BCAST) {
        unsigned char *r = c->rb;
        for (size_t i = 0; i < b; i++)
            r[i] = me == 0 ? bval(0, 0, i) : POISON;
    } else {
        /* Block k of the send buffer goes to rank k (one block for the
         * gathers: it goes to every rank, so dst 0 stands for all). */
        unsigned char *s = c->sb;
        size_t blocks = b ? c->sbytes / b : 0;
        for (size_t k = 0; k < blocks; k++)
            for (size_t i = 0; i < b; i++)
                s[k * b + i] = bval(me, blocks == 1 ? 0 : (int)k, i);
    }
}

/* The buffer --touch rewrites: the root's message for bcast, else the input. */
static void *input_of(const cell_t *c, size_t *bytes)
{
    if (c->coll == C_BCAST) {
        *bytes = me == 0 ? c->rbytes : 0;
        return c->rb;
    }
    *bytes = c->sbytes;
    return c->sb;
}

/* --touch: this rank writes its input again, as its program would. */
static void touch_input(const cell_t *c)
{
    size_t n;
    void *in = input_of(c, &n);
    if (touch && n)
        memcpy(in, c->fresh, n);
}

static void cell_free(cell_t *c)
{
    free(c->fresh);
    free(c->sb);
    free(c->rb);
    free(c->counts);
    free(c->displs);
}

/* One call of the cell's collective. */
static void call(const cell_t *c)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int b = (int)c->bytes, n = (int)c->n;
    switch (c->coll) {
    case C_BCAST: MPI_Bcast(c->rb, b, MPI_BYTE, 0, w); break;
    case C_REDUCE: MPI_Reduce(c->sb, c->rb, n, MPI_FLOAT, MPI_SUM, 0, w); break;
    case C_ALLREDUCE: MPI_Allreduce(c->sb, c->rb, n, MPI_FLOAT, MPI_SUM, w); break;
    case C_SCATTER: MPI_Scatter(c->sb, b, MPI_BYTE, c->rb, b, MPI_BYTE, 0, w); break;
    case C_SCATTERV:
        MPI_Scatterv(c->sb, c->counts, c->displs, MPI_BYTE, c->rb, b, MPI_BYTE, 0, w);
        break;
    case C_GATHER: MPI_Gather(c->sb, b, MPI_BYTE, c->rb, b, MPI_BYTE, 0, w); break;
    case C_GATHERV:
        MPI_Gatherv(c->sb, b, MPI_BYTE, c->rb, c->counts, c->displs, MPI_BYTE, 0, w);
        break;
    case C_ALLGATHER: MPI_Allgather(c->sb, b, MPI_BYTE, c->rb, b, MPI_BYTE, w); break;
    case C_ALLGATHERV:
        MPI_Allgatherv(c->sb, b, MPI_BYTE, c->rb, c->counts, c->displs, MPI_BYTE, w);
        break;
    case C_REDUCE_SCATTER:
        MPI_Reduce_scatter(c->sb, c->rb, c->counts, MPI_FLOAT, MPI_SUM, w);
        break;
    case C_REDUCE_SCATTER_BLOCK:
        MPI_Reduce_scatter_block(c->sb, c->rb, n, MPI_FLOAT, MPI_SUM, w);
        break;
    case C_ALLTOALL: MPI_Alltoall(c->sb, b, MPI_BYTE, c->rb, b, MPI_BYTE, w); break;
    case C_ALLTOALLV:
        MPI_Alltoallv(c->sb, c->counts, c->displs, MPI_BYTE, c->rb, c->counts, c->displs,
                      MPI_BYTE, w);
        break;
    case C_BARRIER: MPI_Barrier(w); break;
    case C_SCAN: MPI_Scan(c->sb, c->rb, n, MPI_FLOAT, MPI_SUM, w); break;
    case C_EXSCAN: MPI_Exscan(c->sb, c->rb, n, MPI_FLOAT, MPI_SUM, w); break;
    default: break;
    }
}

/* Poisons what the next call must overwrite (the root's bcast data stays). */
static void poison(cell_t *c)
{
    if (c->coll == C_BCAST) {
        if (me != 0)
            memset(c->rb, POISON, c->rbytes);
    } else {
        memset(c->rb, POISON, c->rbytes);
    }
}

static int failed(const cell_t *c, size_t i, double got, double want)
{
    printf("FAIL coll=%s bytes=%zu p=%d rank=%d index=%zu got=%g want=%g\n",
           coll_names[c->coll], c->bytes, np, me, i, got, want);
    fflush(stdout);
    return 1;
}

/* Checks this rank's result against the serial reference; 0 if right. */
static int check(const cell_t *c)
{
    const unsigned char *r = c->rb;
    const float *f = c->rb;
    size_t b = c->bytes;
    int lo = 0, hi = np; /* the ranks a reduction sums */
    size_t off = 0;      /* reduce_scatter: where this rank's block starts */
    switch (c->coll) {
    case C_BCAST:
        for (size_t i = 0; i < b; i++)
            if (r[i] != bval(0, 0, i))
                return failed(c, i, r[i], bval(0, 0, i));
        return 0;
    case C_REDUCE:
        if (me != 0)
            return 0;
        break;
    case C_ALLREDUCE: break;
    case C_SCAN: hi = me + 1; break;
    case C_EXSCAN:
        if (me == 0)
            return 0; /* undefined on rank 0 */
        hi = me;
        break;
    case C_REDUCE_SCATTER:
    case C_REDUCE_SCATTER_BLOCK: off = (size_t)me * c->n; break;
    case C_SCATTER:
    case C_SCATTERV:
        for (size_t i = 0; i < b; i++)
            if (r[i] != bval(0, me, i))
                return failed(c, i, r[i], bval(0, me, i));
        return 0;
    case C_GATHER:
    case C_GATHERV:
    case C_ALLGATHER:
    case C_ALLGATHERV:
    case C_ALLTOALL:
    case C_ALLTOALLV:
        if (c->rbytes == 0)
            return 0; /* a gather's non-root */
        for (int k = 0; k < np; k++) {
            int dst = c->coll == C_ALLTOALL || c->coll == C_ALLTOALLV ? me : 0;
            for (size_t i = 0; i < b; i++)
                if (r[(size_t)k * b + i] != bval(k, dst, i))
                    return failed(c, (size_t)k * b + i, r[(size_t)k * b + i], bval(k, dst, i));
        }
        return 0;
    default: return 0;
    }
    for (size_t i = 0; i < c->n; i++) {
        float want = 0;
        for (int k = lo; k < hi; k++)
            want += fval(k, off + i);
        if (f[i] != want)
            return failed(c, i, f[i], want);
    }
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    if (end == s || *end || v > (1ull << 28)) {
        if (me == 0)
            fprintf(stderr, "dropin_bench: '%s' is not a size like 8, 4K, 16M (at most 256M)\n",
                    s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return (size_t)v;
}

static int coll_index(const char *s)
{
    for (int k = 0; k < NCOLL; k++)
        if (!strcmp(s, coll_names[k]))
            return k;
    return -1;
}

static void usage(const char *prog)
{
    if (me == 0) {
        fprintf(stderr, "usage: %s [--sizes 8,4K,64K,1M,16M] [--colls all|bcast,reduce,...] "
                        "[--iters N] [--target-ms MS] [--min-iters N] [--max-iters N] "
                        "[--big SIZE] [--big-min-iters N] [--sync mpi|pmpi|window] [--touch]\n"
                        "collectives:", prog);
        for (int k = 0; k < NCOLL; k++)
            fprintf(stderr, " %s", coll_names[k]);
        fprintf(stderr, "\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --sync window: iters calls, iteration i from start + i * window (see the
 * header); t[i] the slowest rank's time from the instant, late[i] nonzero
 * where a rank got there after it.  Returns the number of late ones. */
static int window_loop(cell_t *c, int iters, double window, double *t, double *late)
{
    sync_barrier();
    double start = mono_s() + 1e-3 + window; /* after the broadcast, also a slow one */
    sync_bcast(&start, 1);
    for (int it = 0; it < iters; it++) {
        touch_input(c);
        double at = start + it * window, tnow = mono_s();
        late[it] = tnow > at;
        while (tnow < at) {
            if (crowded)
                sched_yield();
            tnow = mono_s();
        }
        call(c);
        t[it] = mono_s() - at;
    }
    sync_max(t, iters);
    sync_max(late, iters);
    int nlate = 0;
    for (int it = 0; it < iters; it++)
        nlate += late[it] != 0;
    return nlate;
}

/* One cell: warm-up, check, timed iterations, one output line. */
static void run_cell(cell_t *c, int fixed_iters, double target_s, int min_iters, int max_iters,
                     int hosts)
{
    if (min_iters > max_iters)
        min_iters = max_iters;
    if (me == 0) {
        printf("# begin coll=%s bytes=%zu\n", coll_names[c->coll], c->bytes);
        fflush(stdout);
    }
    cell_alloc(c);
    double tw = 0, tw2 = 0; /* the slower warm-up call; the second one */
    for (int w = 0; w < 2; w++) {
        if (w == 1)
            poison(c);
        sync_barrier();
        double t0 = MPI_Wtime();
        call(c);
        double dt = MPI_Wtime() - t0;
        tw = dt > tw ? dt : tw;
        tw2 = dt;
    }
    int bad = check(c);
    double t_touch = 0; /* one rewrite of the input (--touch), held by each window */
    if (touch) {
        size_t n;
        void *in = input_of(c, &n);
        c->fresh = xmalloc(n);
        memcpy(c->fresh, in, n);
        double t0 = MPI_Wtime();
        touch_input(c);
        t_touch = MPI_Wtime() - t0;
    }
    double agree[4] = {tw, (double)bad, tw2, t_touch};
    sync_max(agree, 4);
    if (agree[1] != 0) {
        if (me == 0) {
            printf("FAIL coll=%s bytes=%zu p=%d: wrong result (see the rank lines above)\n",
                   coll_names[c->coll], c->bytes, np);
            fflush(stdout);
        }
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* An iteration takes one call (barrier timing) or one window. */
    /* The window from the second warm-up call (the first one plans). */
    double window = 2 * agree[2] + 2 * agree[3] + 30e-6, per_iter = sync_window ? window : agree[0];
    int iters = fixed_iters;
    if (iters <= 0) {
        double want = per_iter > 0 ? target_s / per_iter : max_iters;
        iters = want < min_iters ? min_iters : want > max_iters ? max_iters : (int)want;
    }
    double *t = xmalloc(sizeof(double) * (size_t)iters * 2);
    int n = iters, nlate = 0;
    if (sync_window) {
        /* A larger window again while the cell's windows stay within 1 s. */
        for (int tries = 1;; tries++, window *= 2) {
            nlate = window_loop(c, iters, window, t, t + iters);
            if (4 * nlate <= iters || tries == 4 || 2 * window * iters > 1.0)
                break;
        }
        n = 0; /* the ones started on time to the front */
        for (int it = 0; it < iters; it++)
            if (t[iters + it] == 0)
                t[n++] = t[it];
        if (n == 0) /* every iteration late four times over: keep them all */
            n = iters;
    } else {
        for (int it = 0; it < iters; it++) {
            touch_input(c);
            sync_barrier();
            double s = MPI_Wtime();
            call(c);
            t[it] = MPI_Wtime() - s;
        }
        sync_max(t, iters);
    }
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    double med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    if (me == 0) {
        printf("cell coll=%s bytes=%zu p=%d hosts=%d median_us=%.3f min_us=%.3f max_us=%.3f "
               "iters=%d",
               coll_names[c->coll], c->coll == C_BARRIER ? (size_t)0 : c->bytes, np, hosts,
               med * 1e6, t[0] * 1e6, t[n - 1] * 1e6, n);
        if (sync_window)
            printf(" late=%d window_us=%.1f", nlate, window * 1e6);
        printf("\n");
        fflush(stdout);
    }
    free(t);
    cell_free(c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *sizes_arg = "8,4K,64K,1M,16M", *colls_arg = "all";
    int iters = 0, min_iters = 5, max_iters = 200, big_min_iters = 3;
    size_t big = (size_t)16 << 20;
    double target_ms = 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--touch")) {
            touch = 1;
            continue;
        }
        if (i + 1 >= argc)
            usage(argv[0]);
        if (!strcmp(argv[i], "--sizes"))
            sizes_arg = argv[++i];
        else if (!strcmp(argv[i], "--colls"))
            colls_arg = argv[++i];
        else if (!strcmp(argv[i], "--iters"))
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--target-ms"))
            target_ms = atof(argv[++i]);
        else if (!strcmp(argv[i], "--min-iters"))
            min_iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-iters"))
            max_iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--big"))
            big = parse_size(argv[++i]);
        else if (!strcmp(argv[i], "--big-min-iters"))
            big_min_iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sync") && !strcmp(argv[i + 1], "mpi"))
            sync_pmpi = 0, i++;
        else if (!strcmp(argv[i], "--sync") && !strcmp(argv[i + 1], "pmpi"))
            sync_pmpi = 1, i++;
        else if (!strcmp(argv[i], "--sync") && !strcmp(argv[i + 1], "window"))
            sync_pmpi = 0, sync_window = 1, i++;
        else
            usage(argv[0]);
    }
    if (iters < 0 || iters > 100000 || min_iters < 1 || max_iters < min_iters ||
        max_iters > 100000 || big_min_iters < 1 || !(target_ms > 0))
        usage(argv[0]);

    /* Sizes and collectives. */
    size_t sizes[MAX_SIZES];
    int nsizes = 0, want[NCOLL] = {0};
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", sizes_arg);
    for (char *save = NULL, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        if (nsizes == MAX_SIZES)
            usage(argv[0]);
        sizes[nsizes] = parse_size(s);
        /* Counts and displacements are ints: P blocks must fit. */
        if (sizes[nsizes] * (size_t)np > INT_MAX) {
            if (me == 0)
                fprintf(stderr, "dropin_bench: %s x %d ranks does not fit an int count\n", s,
                        np);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        nsizes++;
    }
    snprintf(buf, sizeof buf, "%s", colls_arg);
    for (char *save = NULL, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        if (!strcmp(s, "all")) {
            for (int k = 0; k < NCOLL; k++)
                want[k] = 1;
        } else if (coll_index(s) >= 0) {
            want[coll_index(s)] = 1;
        } else {
            if (me == 0)
                fprintf(stderr, "dropin_bench: unknown collective '%s'\n", s);
            usage(argv[0]);
        }
    }
    if (nsizes == 0)
        usage(argv[0]);

    /* Header: the MPI, the ranks, the hosts (MPI's own view). */
    MPI_Comm node;
    int nrank, hosts = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    int nlocal;
    MPI_Comm_size(node, &nlocal);
    crowded = nlocal > sysconf(_SC_NPROCESSORS_ONLN);
    int leader = nrank == 0;
    MPI_Allreduce(&leader, &hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    if (me == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        char *nl = strchr(lib, '\n');
        if (nl)
            *nl = 0;
        const char *pre = getenv("LD_PRELOAD");
        printf("# dropin_bench: %d ranks on %d hosts; %s\n# LD_PRELOAD=%s\n"
               "# timing: per iteration %s + one call, slowest rank; median "
               "iteration; iters %s\n",
               np, hosts, lib, pre ? pre : "",
               sync_window ? "start at a common instant (window)"
               : sync_pmpi ? "PMPI_Barrier"
                           : "MPI_Barrier",
               iters > 0 ? "fixed" : "adaptive");
        fflush(stdout);
    }

    for (int k = 0; k < NCOLL; k++) {
        if (!want[k])
            continue;
        for (int s = 0; s < nsizes; s++) {
            cell_t c = {.coll = k, .bytes = sizes[s]};
            c.n = c.bytes / sizeof(float) ? c.bytes / sizeof(float) : 1;
            run_cell(&c, iters, target_ms * 1e-3, c.bytes >= big ? big_min_iters : min_iters,
                     max_iters, hosts);
            if (k == C_BARRIER)
                break; /* no data: one cell */
        }
    }
    if (me == 0) {
        printf("# done\n");
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
