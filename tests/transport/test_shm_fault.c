/*
 * test_shm_fault.c — a rank dies in the middle of a job; every other
 * rank must get IC_ERR_PEER_FAILED within 2 s instead of waiting forever,
 * and no segment may be left in /dev/shm.
 *
 * Four ranks exchange around a ring (a 64-byte and a 64 KiB message per
 * step, so both the queue and the rendezvous are in flight).  At step
 * 200 rank 3 posts its sends and then dies at once, leaving an RTS that
 * points into a dead process.  Scenarios:
 *
 *   exit:    rank 3 calls _exit(3); the parent (as the launcher does)
 *            marks it failed with ic_shm_job_mark_failed;
 *   kill:    rank 3 is SIGKILLed; the parent marks it failed;
 *   nomark:  rank 3 is SIGKILLed and the parent only reaps it: the ranks
 *            must find out from its process themselves;
 *   zombie:  rank 3 is SIGKILLed and the parent does not even reap it
 *            until the others have ended: it stays a zombie (kill(pid, 0)
 *            still succeeds), and the ranks must see through that.
 *
 * Rank 1 only ever calls test (a busy test loop), the others test and
 * wait.  A rank that sees IC_ERR_PEER_FAILED within 2 s of the death
 * exits with 42; the parent checks the exit statuses, and that the
 * segment is gone after ic_shm_job_destroy.  Every scenario runs with
 * single copy and with the chunked fallback.
 */
#include "shm_harness.h"

#include <sys/mman.h>

#define STEPS 1000000
#define DIE_AT 200
#define SMALL 64
#define LARGE (64u << 10)
#define DETECT_S 2.0

enum { SC_EXIT, SC_KILL, SC_NOMARK, SC_ZOMBIE };
static const char *const sc_name[] = {"exit", "kill", "nomark", "zombie"};

typedef struct {
    int scenario;
    volatile double *death; /* in a MAP_SHARED page: when rank 3 died */
} fault_arg_t;

/* Completes req[0..n) by test (busy) or test + wait. */
static ic_status_t finish(ic_transport_t *t, ic_tx_req_t *req, int n, int busy)
{
    char done[4] = {0, 0, 0, 0};
    int left = n;
    while (left > 0) {
        for (int i = 0; i < n; i++) {
            int fin = 0;
            if (done[i])
                continue;
            ic_status_t st = t->ops->test(t, &req[i], &fin);
            if (st != IC_OK)
                return st;
            if (fin) {
                done[i] = 1;
                left--;
            }
        }
        if (left > 0 && !busy) {
            ic_status_t st = t->ops->wait(t, 0.05);
            if (st != IC_OK)
                return st;
        }
    }
    return IC_OK;
}

static int fault_rank(int rank, int p, const char *name, void *arg)
{
    const fault_arg_t *a = arg;
    ic_transport_t *t = open_rank(name, rank, p);
    static unsigned char sb[2][LARGE], rb[2][LARGE];
    ic_tx_req_t req[4];
    int next = (rank + 1) % p, prev = (rank + p - 1) % p;
    for (int step = 0; step < STEPS; step++) {
        t->ops->irecv(t, prev, mkkey(5, (uint64_t)step, 0), rb[0], SMALL, &req[0]);
        t->ops->irecv(t, prev, mkkey(5, (uint64_t)step, 1), rb[1], LARGE, &req[1]);
        t->ops->isend(t, next, mkkey(5, (uint64_t)step, 0), sb[0], SMALL, &req[2]);
        t->ops->isend(t, next, mkkey(5, (uint64_t)step, 1), sb[1], LARGE, &req[3]);
        if (rank == 3 && step == DIE_AT) {
            *a->death = now_s();
            if (a->scenario == SC_EXIT)
                _exit(3);
            raise(SIGKILL);
        }
        ic_status_t st = finish(t, req, 4, rank == 1);
        if (st != IC_OK) {
            double dt = now_s() - *a->death;
            int ok = st == IC_ERR_PEER_FAILED && *a->death > 0 && dt < DETECT_S;
            printf("  rank %d: %s after %.1f ms at step %d (%s)\n", rank, ic_status_string(st),
                   dt * 1e3, step, ic_last_error());
            t->ops->close(t); /* with requests still in flight: must not leak */
            return ok ? 42 : 43;
        }
    }
    printf("  rank %d: never noticed the failure\n", rank);
    t->ops->close(t);
    return 44;
}

int main(void)
{
    int failures = 0;
    volatile double *death =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (death == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    for (int nocma = 0; nocma < 2; nocma++)
        for (int sc = SC_EXIT; sc <= SC_ZOMBIE; sc++) {
            int status[4] = {0, 0, 0, 0};
            char name[64], d[32];
            fault_arg_t a = {sc, death};
            *death = 0;
            set_mode(nocma);
            printf("test_shm_fault: %s, %s\n", sc_name[sc], nocma ? "chunked" : "default");
            double t0 = now_s();
            int mark = sc == SC_NOMARK ? MARK_NONE : sc == SC_ZOMBIE ? MARK_ZOMBIE : MARK_BAD;
            int rc = run_job(4, fault_rank, &a, 20, mark, status, name);
            printf("  job total %.3f s\n", now_s() - t0);
            if (rc != 0)
                failures++;
            for (int r = 0; r < 4; r++) {
                int want_exit = r < 3 ? 42 : sc == SC_EXIT ? 3 : -1;
                int ok = want_exit >= 0
                             ? WIFEXITED(status[r]) && WEXITSTATUS(status[r]) == want_exit
                             : WIFSIGNALED(status[r]) && WTERMSIG(status[r]) == SIGKILL;
                if (!ok) {
                    printf("FAIL: rank %d: %s\n", r, describe(status[r], d, sizeof d));
                    failures++;
                }
            }
            if (!segment_gone(name)) {
                printf("FAIL: %s still exists after ic_shm_job_destroy\n", name);
                failures++;
            }
        }
    set_mode(0);
    printf("test_shm_fault: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
