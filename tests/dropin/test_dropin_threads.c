/*
 * test_dropin_threads.c — MPI_THREAD_MULTIPLE under the drop-in: two
 * threads per rank, each on its own duplicate of MPI_COMM_WORLD, run
 * checked MPI_Allreduce, MPI_Bcast (every root in turn) and MPI_Iallreduce
 * completed by MPI_Wait or an MPI_Test loop, at the same time.  The two
 * threads use different data, so a message delivered to the wrong
 * communicator shows as a wrong element.  A plain MPI program.
 *
 * Prints "test_dropin_threads: SKIPPED (...)" and exits 0 when MPI does not
 * provide MPI_THREAD_MULTIPLE (dropin_test.sh turns that into 77).
 * Otherwise "FAIL: ..." lines, one "RESULT-HASH <16 hex digits>" line per
 * rank, and "test_dropin_threads: PASS (<n> checks)" on rank 0; exit 0 on
 * pass, 1 otherwise.  Usage: test_dropin_threads [iterations (default 100)].
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
    MPI_Comm comm;
    int id, iters, rank, size;
    long checks, fails;
    uint64_t hash;
} job_t;

static int val(int rank, int i, int salt)
{
    return (int)(((long)rank * 37 + (long)i * 11 + (long)salt * 13) % 97) - 30;
}

static void hash_ints(job_t *j, const int *p, int n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < (size_t)n * sizeof *p; i++) {
        j->hash ^= b[i];
        j->hash *= 1099511628211ULL;
    }
}

static void check(job_t *j, const int *got, const int *want, int n, const char *what, int it)
{
    j->checks++;
    hash_ints(j, got, n);
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (j->fails++ < 5)
                printf("FAIL: %s thread %d iteration %d rank %d: element %d of %d is %d, "
                       "expected %d\n",
                       what, j->id, it, j->rank, i, n, got[i], want[i]);
            fflush(stdout);
            return;
        }
}

/* Counts: mostly short, some long (the drop-in's other paths). */
static int count_of(int it)
{
    static const int c[8] = {1, 7, 0, 33, 1000, 5, 20011, 64};
    return c[it % 8];
}

static void *run(void *arg)
{
    job_t *j = arg;
    int nmax = 20011, p = j->size, r = j->rank;
    int *in = malloc(sizeof(int) * (size_t)nmax), *got = malloc(sizeof(int) * (size_t)nmax);
    int *want = malloc(sizeof(int) * (size_t)nmax);
    if (!in || !got || !want) {
        j->fails++;
        return NULL;
    }
    for (int it = 0; it < j->iters; it++) {
        int n = count_of(it + j->id), salt = it * 2 + j->id * 1000;
        /* Allreduce */
        for (int i = 0; i < n; i++) {
            in[i] = val(r, i, salt);
            want[i] = 0;
            for (int q = 0; q < p; q++)
                want[i] += val(q, i, salt);
        }
        MPI_Allreduce(in, got, n, MPI_INT, MPI_SUM, j->comm);
        check(j, got, want, n, "Allreduce", it);
        /* Bcast from a rotating root */
        int root = it % p;
        for (int i = 0; i < n; i++) {
            want[i] = val(root, i, salt + 1);
            got[i] = r == root ? want[i] : -99999;
        }
        MPI_Bcast(got, n, MPI_INT, root, j->comm);
        check(j, got, want, n, "Bcast", it);
        /* Iallreduce (MAX) + Wait or a Test loop */
        for (int i = 0; i < n; i++) {
            in[i] = val(r, i, salt + 2);
            want[i] = in[i];
            for (int q = 0; q < p; q++)
                want[i] = val(q, i, salt + 2) > want[i] ? val(q, i, salt + 2) : want[i];
        }
        MPI_Request rq;
        MPI_Iallreduce(in, got, n, MPI_INT, MPI_MAX, j->comm, &rq);
        if (it % 2) {
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            int done = 0;
            while (!done) {
                MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
                if (!done)
                    sched_yield();
            }
        }
        check(j, got, want, n, "Iallreduce", it);
    }
    free(in);
    free(got);
    free(want);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("test_dropin_threads: SKIPPED (MPI provides thread level %d, not "
                   "MPI_THREAD_MULTIPLE)\n",
                   provided);
        MPI_Finalize();
        return 0;
    }
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    job_t jobs[2];
    pthread_t th[2];
    for (int k = 0; k < 2; k++) {
        memset(&jobs[k], 0, sizeof jobs[k]);
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[k].comm);
        jobs[k].id = k, jobs[k].iters = iters, jobs[k].rank = rank, jobs[k].size = size;
        jobs[k].hash = 1469598103934665603ULL;
    }
    for (int k = 0; k < 2; k++)
        if (pthread_create(&th[k], NULL, run, &jobs[k])) {
            fprintf(stderr, "test_dropin_threads: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    for (int k = 0; k < 2; k++)
        MPI_Comm_free(&jobs[k].comm);

    /* Verdicts and hashes to rank 0 by point-to-point. */
    uint64_t h = jobs[0].hash ^ (jobs[1].hash * 31);
    long mine[3] = {jobs[0].checks + jobs[1].checks, jobs[0].fails + jobs[1].fails, 0};
    memcpy(&mine[2], &h, sizeof h);
    long fails = mine[1];
    if (rank == 0) {
        long checks = mine[0];
        printf("RESULT-HASH %016" PRIx64 "\n", h);
        for (int q = 1; q < size; q++) {
            long t[3];
            uint64_t hq;
            MPI_Recv(t, 3, MPI_LONG, q, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            checks += t[0], fails += t[1];
            memcpy(&hq, &t[2], sizeof hq);
            printf("RESULT-HASH %016" PRIx64 "\n", hq);
        }
        if (fails)
            printf("test_dropin_threads: FAIL (%ld of %ld checks failed on %d ranks)\n", fails,
                   checks, size);
        else
            printf("test_dropin_threads: PASS (%ld checks)\n", checks);
        fflush(stdout);
        for (int q = 1; q < size; q++)
            MPI_Send(&fails, 1, MPI_LONG, q, 8, MPI_COMM_WORLD);
    } else {
        MPI_Send(mine, 3, MPI_LONG, 0, 7, MPI_COMM_WORLD);
        MPI_Recv(&fails, 1, MPI_LONG, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
