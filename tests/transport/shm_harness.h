/*
 * shm_harness.h — what the shared-memory transport tests share: a job
 * runner that plays the launcher (ic_shm_job_create, fork one child per
 * rank, reap them under a time limit, ic_shm_job_destroy), helpers for
 * the ranks (open, wait for a set of requests), and a byte pattern
 * derived from a message index so that every byte can be checked.
 *
 * There is no launcher in these tests: each child calls ic_shm_open with
 * the job's name itself.
 */
#ifndef IC_TEST_SHM_HARNESS_H
#define IC_TEST_SHM_HARNESS_H

/* Include this header first: the tests use POSIX and Linux calls. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "transport/shm/shm.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef int (*shm_rank_fn)(int rank, int size, const char *name, void *arg);

/* MARK_BAD: mark ranks that exit non-zero failed (as the launcher does);
 * MARK_NONE: only reap them; MARK_ZOMBIE: do not even reap rank n-1 until
 * every other rank has ended, so that it stays a zombie meanwhile (a rank
 * started outside the launcher whose parent does not reap it). */
enum { MARK_NONE = 0, MARK_BAD = 1, MARK_ZOMBIE = 2 };

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs fn in n forked ranks; status[r] gets each rank's wait status.
 * name (>= 64 bytes) gets the segment's name.  Returns 0, or -1 if the
 * job could not be created or ran past timeout_s (then all were killed). */
static inline int run_job(int n, shm_rank_fn fn, void *arg, double timeout_s, int mark, int *status,
                          char *name)
{
    ic_shm_job_t *job = NULL;
    if (ic_shm_job_create(n, &job, name, 64) != IC_OK) {
        printf("ic_shm_job_create: %s\n", ic_last_error());
        return -1;
    }
    pid_t *pid = calloc((size_t)n, sizeof(pid_t));
    int left = 0, rc = 0;
    fflush(stdout);
    for (int r = 0; r < n; r++) {
        pid[r] = fork();
        if (pid[r] == 0) {
            /* exit, not _exit: sanitizer builds check the rank for leaks
             * (the parent's job and pid array are not the rank's). */
            free(pid);
            exit(fn(r, n, name, arg));
        }
        if (pid[r] > 0)
            left++;
    }
    double deadline = now_s() + timeout_s;
    while (left > 0) {
        int st;
        pid_t w;
        if (mark == MARK_ZOMBIE && left > 1) { /* reap everyone but rank n-1 */
            w = 0;
            for (int r = 0; r < n - 1 && w <= 0; r++)
                if (pid[r] > 0)
                    w = waitpid(pid[r], &st, WNOHANG);
        } else {
            w = waitpid(-1, &st, WNOHANG);
        }
        if (w > 0) {
            for (int r = 0; r < n; r++)
                if (pid[r] == w) {
                    status[r] = st;
                    pid[r] = 0;
                    left--;
                    if (mark == MARK_BAD && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
                        ic_shm_job_mark_failed(job, r, st);
                }
            continue;
        }
        if (now_s() > deadline) {
            printf("timeout after %.0f s: killing the ranks\n", timeout_s);
            for (int r = 0; r < n; r++)
                if (pid[r] > 0)
                    kill(pid[r], SIGKILL);
            ic_shm_job_mark_failed(job, -1, 0);
            deadline = now_s() + 3600;
            rc = -1;
        }
        usleep(1000);
    }
    ic_shm_job_destroy(job);
    free(pid);
    return rc;
}

/* 1 if /dev/shm/<name> does not exist. */
static inline int segment_gone(const char *name)
{
    char path[128];
    struct stat sb;
    snprintf(path, sizeof path, "/dev/shm%s", name);
    return stat(path, &sb) != 0 && errno == ENOENT;
}

static inline ic_transport_t *open_rank(const char *name, int rank, int size)
{
    ic_transport_t *t = NULL;
    ic_status_t st = ic_shm_open(name, rank, size, &t);
    if (st != IC_OK) {
        printf("rank %d: ic_shm_open: %s (%s)\n", rank, ic_status_string(st), ic_last_error());
        fflush(stdout);
        _exit(100);
    }
    return t;
}

/* Waits until all n requests completed; the first error otherwise. */
static inline ic_status_t wait_all(ic_transport_t *t, ic_tx_req_t *req, int n, char *done)
{
    int left = 0;
    for (int i = 0; i < n; i++) {
        done[i] = 0;
        left++;
    }
    while (left > 0) {
        for (int i = 0; i < n; i++) {
            if (done[i])
                continue;
            int fin = 0;
            ic_status_t st = t->ops->test(t, &req[i], &fin);
            if (st != IC_OK)
                return st;
            if (fin) {
                done[i] = 1;
                left--;
            }
        }
        if (left > 0) {
            ic_status_t st = t->ops->wait(t, 0.01);
            if (st != IC_OK)
                return st;
        }
    }
    return IC_OK;
}

/* Waits (up to 20 s) until *f reaches v; -1 on a timeout. */
static inline int wait_flag(volatile int *f, int v)
{
    double t0 = now_s();
    while (*f < v) {
        if (now_s() - t0 > 20)
            return -1;
        usleep(100);
    }
    return 0;
}

/* 1 if every one of the n bytes at b is v. */
static inline int all_bytes(const unsigned char *b, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != v)
            return 0;
    return 1;
}

/* Runs each named case as a job of 2 ranks (fns[k] on both, arg shared,
 * the first 4096 bytes at flags zeroed before each); prints test: name
 * before each and a FAIL line per rank that did not exit 0.  Returns the
 * failures. */
static inline int run_pair_cases(const char *test, int ncases, const char *const *names,
                                 const shm_rank_fn *fns, void *arg, volatile int *flags)
{
    int failures = 0;
    for (int k = 0; k < ncases; k++) {
        memset((void *)flags, 0, 4096);
        int status[2] = {0, 0};
        char name[64];
        printf("%s: %s\n", test, names[k]);
        int rc = run_job(2, fns[k], arg, 60, MARK_BAD, status, name);
        for (int r = 0; r < 2; r++)
            if (rc != 0 || !WIFEXITED(status[r]) || WEXITSTATUS(status[r]) != 0) {
                printf("FAIL: %s: rank %d ended with status 0x%x\n", names[k], r, status[r]);
                failures++;
            }
    }
    printf("%s: %s\n", test, failures ? "FAILED" : "passed");
    return failures;
}

static inline ic_match_key_t mkkey(uint64_t comm, uint64_t seq, uint32_t tag)
{
    ic_match_key_t k = {comm, seq, tag, 0};
    return k;
}

/* The pattern: message idx's bytes are its 64-bit words, word w being
 * mix(idx) + w * odd; the last partial word is cut from the same. */
static inline uint64_t pat_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static inline void pat_fill(void *buf, size_t n, uint64_t idx)
{
    uint64_t b = pat_mix(idx), w = 0;
    unsigned char *p = buf;
    size_t i = 0;
    for (; i + 8 <= n; i += 8, w++) {
        uint64_t v = b + w * 0xD6E8FEB86659FD93ull;
        memcpy(p + i, &v, 8);
    }
    if (i < n) {
        uint64_t v = b + w * 0xD6E8FEB86659FD93ull;
        memcpy(p + i, &v, n - i);
    }
}

/* Index of the first wrong byte, or -1. */
static inline long pat_check(const void *buf, size_t n, uint64_t idx)
{
    uint64_t b = pat_mix(idx), w = 0;
    const unsigned char *p = buf;
    size_t i = 0;
    for (; i + 8 <= n; i += 8, w++) {
        uint64_t v = b + w * 0xD6E8FEB86659FD93ull, g;
        memcpy(&g, p + i, 8);
        if (g != v)
            break;
    }
    for (; i < n; i++) {
        uint64_t v = b + (i / 8) * 0xD6E8FEB86659FD93ull;
        if (p[i] != (unsigned char)(v >> (8 * (i % 8))))
            return (long)i;
    }
    return -1;
}

/* A deterministic permutation of 0..n-1 (Fisher-Yates on a seed). */
static inline void permute(int *perm, int n, uint64_t seed)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    uint64_t s = pat_mix(seed) | 1;
    for (int i = n - 1; i > 0; i--) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        int j = (int)((s * 0x2545F4914F6CDD1Dull >> 33) % (uint64_t)(i + 1));
        int x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
}

static inline const char *describe(int st, char *buf, size_t len)
{
    if (WIFEXITED(st))
        snprintf(buf, len, "exit %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(buf, len, "signal %d", WTERMSIG(st));
    else
        snprintf(buf, len, "status 0x%x", (unsigned)st);
    return buf;
}

/* Checks a job that should have succeeded: run_job returned 0, every rank
 * exited with status 0, and the segment is gone.  Prints each problem and
 * returns how many there were. */
static inline int job_failures(int rc, const int *status, int n, const char *name)
{
    char d[32];
    int bad = rc != 0;
    for (int r = 0; r < n; r++)
        if (!WIFEXITED(status[r]) || WEXITSTATUS(status[r]) != 0) {
            printf("FAIL: rank %d: %s\n", r, describe(status[r], d, sizeof d));
            bad++;
        }
    if (!segment_gone(name)) {
        printf("FAIL: %s still exists\n", name);
        bad++;
    }
    return bad;
}

/* Sets or clears IC_SHM_NO_CMA for the ranks about to be forked. */
static inline void set_mode(int nocma)
{
    if (nocma)
        setenv("IC_SHM_NO_CMA", "1", 1);
    else
        unsetenv("IC_SHM_NO_CMA");
}

#endif
