/*
 * test_threads.c — two threads per rank, each running collectives on its
 * own communicator at the same time (the thread promise of intercom.h).
 *
 * Run under intercom-run.  Each rank makes two communicators from the
 * world (one in world order, one reversed) and starts one thread on
 * each.  A thread runs blocking allreduce, bcast (every root in turn) and
 * alltoall, and a nonblocking allreduce completed by polling ic_test, at
 * sizes that take both the inline and the rendezvous paths, and checks
 * every element against a closed form.  The two threads of a rank use
 * different values, so a message delivered to the wrong communicator
 * shows as a wrong element.  Built with -fsanitize=thread (IC_TSAN=ON,
 * tests/run/tsan_test.sh) this is the ThreadSanitizer test of the lock.
 *
 * Exit status 0 when every check passed; prints one summary line per rank.
 */
#include <intercom.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITERS 40

typedef struct job {
    ic_comm_t *comm;
    int id; /* 0 or 1: which thread */
    long checks, fails;
    char first_fail[256];
} job_t;

static void fail(job_t *j, const char *what, int it, size_t i, int64_t got, int64_t want)
{
    if (j->fails++ == 0)
        snprintf(j->first_fail, sizeof j->first_fail,
                 "thread %d: %s, iteration %d, element %zu: %" PRId64 " instead of %" PRId64,
                 j->id, what, it, i, got, want);
}

static void call_fail(job_t *j, const char *what, ic_status_t st)
{
    if (j->fails++ == 0)
        snprintf(j->first_fail, sizeof j->first_fail, "thread %d: %s returned %s: %s", j->id,
                 what, ic_status_string(st), ic_last_error());
}

static void check(job_t *j, const char *what, int it, size_t i, int64_t got, int64_t want)
{
    j->checks++;
    if (got != want)
        fail(j, what, it, i, got, want);
}

/* Element counts: inline (small) and rendezvous (large) messages. */
static size_t count_of(int it)
{
    static const size_t n[] = {1, 7, 300, 2500, 40000};
    return n[it % 5];
}

static void run_allreduce(job_t *j, int it, int rank, int size, int64_t *a, int64_t *b)
{
    size_t n = count_of(it);
    for (size_t i = 0; i < n; i++)
        a[i] = (int64_t)rank * 1000 + (int64_t)i + it * 7 + j->id * 100000;
    ic_status_t st = ic_allreduce(a, b, n, IC_INT64, IC_SUM, j->comm);
    if (st != IC_OK) {
        call_fail(j, "ic_allreduce", st);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t want = (int64_t)size * ((int64_t)i + it * 7 + j->id * 100000) +
                       1000 * (int64_t)size * (size - 1) / 2;
        check(j, "allreduce", it, i, b[i], want);
    }
}

static void run_bcast(job_t *j, int it, int rank, int size, int64_t *a)
{
    size_t n = count_of(it + 1);
    int root = it % size;
    for (size_t i = 0; i < n; i++)
        a[i] = rank == root ? (int64_t)i * 3 + it + j->id * 7777 : -1;
    ic_status_t st = ic_bcast(a, n, IC_INT64, root, j->comm);
    if (st != IC_OK) {
        call_fail(j, "ic_bcast", st);
        return;
    }
    for (size_t i = 0; i < n; i++)
        check(j, "bcast", it, i, a[i], (int64_t)i * 3 + it + j->id * 7777);
}

static void run_alltoall(job_t *j, int it, int rank, int size, int64_t *a, int64_t *b)
{
    size_t c = count_of(it + 2) / (size_t)size + 1;
    for (int d = 0; d < size; d++)
        for (size_t k = 0; k < c; k++)
            a[(size_t)d * c + k] = (int64_t)rank * 1000000 + d * 1000 + (int64_t)k + j->id;
    ic_status_t st = ic_alltoall(a, b, c, IC_INT64, j->comm);
    if (st != IC_OK) {
        call_fail(j, "ic_alltoall", st);
        return;
    }
    for (int s = 0; s < size; s++)
        for (size_t k = 0; k < c; k++)
            check(j, "alltoall", it, (size_t)s * c + k, b[(size_t)s * c + k],
                  (int64_t)s * 1000000 + rank * 1000 + (int64_t)k + j->id);
}

static void run_iallreduce(job_t *j, int it, int rank, int size, int64_t *a, int64_t *b)
{
    size_t n = count_of(it + 3);
    for (size_t i = 0; i < n; i++)
        a[i] = (int64_t)((rank + it + (int)i) % size) + j->id;
    ic_request_t *req = NULL;
    ic_status_t st = ic_iallreduce(a, b, n, IC_INT64, IC_MAX, j->comm, &req);
    int flag = 0;
    while (st == IC_OK && !flag)
        st = ic_test(&req, &flag);
    if (st != IC_OK) {
        call_fail(j, "ic_iallreduce/ic_test", st);
        return;
    }
    for (size_t i = 0; i < n; i++)
        check(j, "iallreduce", it, i, b[i], (int64_t)(size - 1) + j->id);
}

static void *thread_main(void *arg)
{
    job_t *j = arg;
    int rank, size;
    ic_comm_rank(j->comm, &rank);
    ic_comm_size(j->comm, &size);
    size_t cap = 40000 + (size_t)size * 8;
    int64_t *a = malloc(sizeof(int64_t) * cap * (size_t)size);
    int64_t *b = malloc(sizeof(int64_t) * cap * (size_t)size);
    if (!a || !b) {
        call_fail(j, "malloc", IC_ERR_NO_MEM);
    } else {
        for (int it = 0; it < ITERS && j->fails == 0; it++) {
            run_allreduce(j, it, rank, size, a, b);
            run_bcast(j, it, rank, size, a);
            run_alltoall(j, it, rank, size, a, b);
            run_iallreduce(j, it, rank, size, a, b);
        }
    }
    free(a);
    free(b);
    return NULL;
}

int main(void)
{
    ic_comm_t *world = NULL, *comm[2] = {NULL, NULL};
    ic_status_t st = ic_init(&world);
    if (st != IC_OK) {
        fprintf(stderr, "ic_init: %s\n", ic_last_error());
        return 1;
    }
    int rank, size;
    ic_comm_rank(world, &rank);
    ic_comm_size(world, &size);
    if (ic_comm_split(world, 0, rank, &comm[0]) != IC_OK ||
        ic_comm_split(world, 0, size - 1 - rank, &comm[1]) != IC_OK) {
        fprintf(stderr, "rank %d: ic_comm_split: %s\n", rank, ic_last_error());
        return 1;
    }
    job_t job[2];
    pthread_t th[2];
    for (int k = 0; k < 2; k++) {
        memset(&job[k], 0, sizeof job[k]);
        job[k].comm = comm[k];
        job[k].id = k;
        if (pthread_create(&th[k], NULL, thread_main, &job[k]) != 0) {
            fprintf(stderr, "rank %d: pthread_create failed\n", rank);
            return 1;
        }
    }
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    long checks = job[0].checks + job[1].checks, fails = job[0].fails + job[1].fails;
    for (int k = 0; k < 2; k++)
        if (job[k].fails)
            fprintf(stderr, "rank %d: %s\n", rank, job[k].first_fail);
    /* Every rank learns whether any rank failed. */
    int64_t bad = fails, any = 0;
    st = ic_allreduce(&bad, &any, 1, IC_INT64, IC_SUM, world);
    printf("rank %d: two threads on two communicators, %ld checks, %ld failed%s\n", rank, checks,
           fails, st == IC_OK && any == 0 ? "" : " (some rank failed)");
    ic_comm_free(&comm[0]);
    ic_comm_free(&comm[1]);
    ic_status_t fs = ic_finalize(&world);
    return st == IC_OK && fs == IC_OK && any == 0 && checks > 0 ? 0 : 1;
}
