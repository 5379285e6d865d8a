/*
 * call_latency.c — the time of one small collective call between ranks that
 * wait for each other, with no timing harness in the way: N broadcasts of
 * 8 bytes whose root alternates between ranks 0 and 1 (each call waits for
 * the one before it, so a call costs one message's way from rank to rank
 * plus both ends' work: a ping-pong made of collectives), then N allreduces
 * of one double, N barriers, N scatters and N gathers of 8 bytes per rank
 * with the root alternating between ranks 0 and 1, and N scans of one
 * double.  Each loop is timed as a whole on rank 0 and divided by N; R
 * rounds; every round prints one line of name-value pairs.
 *
 * Built twice by bench/call_latency.sh: with mpicc (Open MPI or MPICH, and
 * the same binary under the MPI drop-in, LD_PRELOAD=libintercom_mpi.so),
 * and with -DCALL_LATENCY_INTERCOM against libintercom (intercom's own API,
 * run by intercom-run).  Unlike the window timing of intercom-bench and
 * bench/dropin_bench.c, the figure has no clock reads or late starts per
 * call, so it is steady to 1-2 % from run to run within one of the machine's
 * speed spells (docs/perf/per-call-work.md).
 *
 *   call_latency [N] [R]       (default 100000 calls, 5 rounds)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef CALL_LATENCY_INTERCOM
#include <intercom.h>
typedef ic_comm_t *comm_t;
static comm_t start(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    ic_comm_t *w = NULL;
    return ic_init(&w) == IC_OK ? w : NULL;
}
static int rank_of(comm_t c)
{
    int r = -1;
    ic_comm_rank(c, &r);
    return r;
}
#define LIB "intercom"
#define BCAST(c, buf, root) ic_bcast(buf, 8, IC_BYTE, root, c)
#define ALLREDUCE(c, x, y) ic_allreduce(x, y, 1, IC_DOUBLE, IC_SUM, c)
#define BARRIER(c) ic_barrier(c)
#define SCATTER(c, in, out, root) ic_scatter(in, out, 8, IC_BYTE, root, c)
#define GATHER(c, in, out, root) ic_gather(in, out, 8, IC_BYTE, root, c)
#define SCAN(c, x, y) ic_scan(x, y, 1, IC_DOUBLE, IC_SUM, c)
static void stop(comm_t c)
{
    ic_finalize(&c);
}
#else
#include <mpi.h>
typedef MPI_Comm comm_t;
static comm_t start(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    return MPI_COMM_WORLD;
}
static int rank_of(comm_t c)
{
    int r = -1;
    MPI_Comm_rank(c, &r);
    return r;
}
#define LIB "MPI"
#define BCAST(c, buf, root) MPI_Bcast(buf, 8, MPI_BYTE, root, c)
#define ALLREDUCE(c, x, y) MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_SUM, c)
#define BARRIER(c) MPI_Barrier(c)
#define SCATTER(c, in, out, root) MPI_Scatter(in, 8, MPI_BYTE, out, 8, MPI_BYTE, root, c)
#define GATHER(c, in, out, root) MPI_Gather(in, 8, MPI_BYTE, out, 8, MPI_BYTE, root, c)
#define SCAN(c, x, y) MPI_Scan(x, y, 1, MPI_DOUBLE, MPI_SUM, c)
static void stop(comm_t c)
{
    (void)c;
    MPI_Finalize();
}
#endif

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    comm_t c = start(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 100000, rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 1 || rounds < 1) {
        fprintf(stderr, "usage: call_latency [N >= 1] [R >= 1]\n");
        stop(c);
        return 2;
    }
    int me = rank_of(c);
    char buf[8] = {0}, *all = calloc(8 * 4096, 1); /* gather/scatter blocks of up to 4096 ranks */
    double x = 1, y = 0;
    if (!all) {
        fprintf(stderr, "call_latency: out of memory\n");
        stop(c);
        return 1;
    }
    enum { LOOPS = 6 };
    static const char *const name[LOOPS] = {"bcast", "allreduce", "barrier",
                                            "scatter", "gather", "scan"};
    for (int r = 0; r < rounds; r++) {
        double t[LOOPS + 1];
        BARRIER(c);
        t[0] = now_s();
        for (int i = 0; i < n; i++)
            BCAST(c, buf, i & 1);
        t[1] = now_s();
        for (int i = 0; i < n; i++)
            ALLREDUCE(c, &x, &y);
        t[2] = now_s();
        for (int i = 0; i < n; i++)
            BARRIER(c);
        t[3] = now_s();
        for (int i = 0; i < n; i++)
            SCATTER(c, all, buf, i & 1);
        t[4] = now_s();
        for (int i = 0; i < n; i++)
            GATHER(c, buf, all, i & 1);
        t[5] = now_s();
        for (int i = 0; i < n; i++)
            SCAN(c, &x, &y);
        t[6] = now_s();
        if (me == 0) {
            printf("call_latency %s round %d:", LIB, r);
            for (int k = 0; k < LOOPS; k++)
                printf(" %s %.4f", name[k], (t[k + 1] - t[k]) / n * 1e6);
            printf(" us/call\n");
        }
    }
    free(all);
    stop(c);
    return 0;
}
