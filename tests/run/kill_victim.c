/*
 * kill_victim.c — one trial of the kill harness (kill_harness.sh):
 *   kill_victim COLL COUNT VICTIM ITER DELAY_US
 * Every rank runs collective COLL (an ic_coll_t) with COUNT elements per
 * rank (doubles) in a loop.  At iteration ITER the VICTIM rank starts a
 * thread that kills the process with SIGKILL after DELAY_US microseconds,
 * in the middle of whatever the main thread is doing.  A survivor must
 * leave its collective with IC_ERR_PEER_FAILED or IC_ERR_REVOKED, and its
 * failing call must return within 1 s of the victim's death: it prints
 *   survivor R: <status> after <ms> ms
 * and exits 42, or 43 for any other error code, or 44 when too slow.  The
 * death time travels through a file named by IC_KILL_STAMP (the victim
 * writes it just before the kill).
 */
#define _GNU_SOURCE 1
#include <intercom.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long delay_us;

static void *killer(void *arg)
{
    (void)arg;
    usleep((useconds_t)delay_us);
    const char *stamp = getenv("IC_KILL_STAMP");
    if (stamp) {
        FILE *f = fopen(stamp, "w");
        if (f) {
            fprintf(f, "%.6f\n", now());
            fclose(f);
        }
    }
    raise(SIGKILL);
    return NULL;
}

static double death_time(void)
{
    const char *stamp = getenv("IC_KILL_STAMP");
    double t = 0;
    FILE *f = stamp ? fopen(stamp, "r") : NULL;
    if (f) {
        if (fscanf(f, "%lf", &t) != 1)
            t = 0;
        fclose(f);
    }
    return t;
}

static ic_status_t run(ic_coll_t c, size_t n, int rank, int size, double *s, double *r,
                       size_t *counts, ic_comm_t *w)
{
    switch (c) {
    case IC_COLL_BCAST: return ic_bcast(r, n, IC_DOUBLE, size - 1, w);
    case IC_COLL_REDUCE: return ic_reduce(s, r, n, IC_DOUBLE, IC_SUM, 1 % size, w);
    case IC_COLL_ALLREDUCE: return ic_allreduce(s, r, n, IC_DOUBLE, IC_SUM, w);
    case IC_COLL_SCATTER: return ic_scatter(s, r, n, IC_DOUBLE, 0, w);
    case IC_COLL_SCATTERV: return ic_scatterv(s, counts, NULL, r, IC_DOUBLE, 0, w);
    case IC_COLL_GATHER: return ic_gather(s, r, n, IC_DOUBLE, size - 1, w);
    case IC_COLL_GATHERV: return ic_gatherv(s, r, counts, NULL, IC_DOUBLE, 0, w);
    case IC_COLL_ALLGATHER: return ic_allgather(s, r, n, IC_DOUBLE, w);
    case IC_COLL_ALLGATHERV: return ic_allgatherv(s, r, counts, NULL, IC_DOUBLE, w);
    case IC_COLL_REDUCE_SCATTER_BLOCK:
        return ic_reduce_scatter_block(s, r, n, IC_DOUBLE, IC_SUM, w);
    case IC_COLL_REDUCE_SCATTER: return ic_reduce_scatter(s, r, counts, IC_DOUBLE, IC_SUM, w);
    case IC_COLL_ALLTOALL: return ic_alltoall(s, r, n, IC_DOUBLE, w);
    case IC_COLL_ALLTOALLV: {
        size_t d[64];
        for (int i = 0; i < size; i++)
            d[i] = (size_t)i * n;
        return ic_alltoallv(s, counts, d, r, counts, d, IC_DOUBLE, w);
    }
    case IC_COLL_BARRIER: return ic_barrier(w);
    case IC_COLL_SCAN: return ic_scan(s, r, n, IC_DOUBLE, IC_SUM, w);
    case IC_COLL_EXSCAN: return ic_exscan(s, r, n, IC_DOUBLE, IC_SUM, w);
    default: break;
    }
    (void)rank;
    return IC_ERR_INTERNAL;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: kill_victim COLL COUNT VICTIM ITER DELAY_US\n");
        return 2;
    }
    ic_coll_t coll = (ic_coll_t)atoi(argv[1]);
    size_t n = (size_t)atol(argv[2]);
    int victim = atoi(argv[3]), iter = atoi(argv[4]);
    delay_us = atol(argv[5]);
    ic_comm_t *w;
    if (ic_init(&w) != IC_OK) {
        fprintf(stderr, "ic_init: %s\n", ic_last_error());
        return 2;
    }
    int rank, size;
    ic_comm_rank(w, &rank);
    ic_comm_size(w, &size);
    double *s = calloc(n * (size_t)size + 1, sizeof(double));
    double *r = calloc(n * (size_t)size + 1, sizeof(double));
    size_t counts[64];
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = n;
    for (int it = 0;; it++) {
        if (it == iter && rank == victim) {
            pthread_t th;
            pthread_create(&th, NULL, killer, NULL);
        }
        double t0 = now();
        ic_status_t st = run(coll, n, rank, size, s, r, counts, w);
        if (st == IC_OK)
            continue;
        double t1 = now(), dead = death_time();
        double ms = (t1 - (dead > t0 ? dead : t0)) * 1e3;
        fprintf(stderr, "survivor %d: %s after %.1f ms (%s)\n", rank, ic_status_string(st), ms,
                ic_last_error());
        if (st != IC_ERR_PEER_FAILED && st != IC_ERR_REVOKED)
            return 43;
        return ms < 1000 ? 42 : 44;
    }
}
