/*
 * test_shm_match.c — the semantics of the shared-memory ops table that
 * transport.h promises:
 *
 *   - the table: size first, name "shm", no NULL slot;
 *   - matching by the whole key (comm, seq, tag) in any order, whether
 *     the message arrives before or after its receive, for zero-byte,
 *     inline and rendezvous sizes, to oneself and to a peer;
 *   - a size mismatch fails the receive (and, for a rendezvous, the send)
 *     with IC_ERR_TRANSPORT, and the pair keeps working afterwards;
 *   - bad arguments are refused;
 *   - a sender that finds the queue full completes once the receiver
 *     drains it, even if the receiver only starts later;
 *   - wait with nothing to do returns after about its timeout;
 *   - abort by one rank makes the other's wait fail with
 *     IC_ERR_PEER_FAILED.
 *
 * The two-rank parts run with single copy, with IC_SHM_NO_CMA=1, with
 * process_vm_readv refused (EPERM, by a seccomp filter, as in a default
 * Docker container) in rank 1 only: the probe must then turn single copy
 * off in both ranks; and as a crowded job (IC_SHM_CORES=1: more ranks than
 * cores, so eager messages go up to 32 KiB, or 128 KiB where the creator
 * finds single copy dear, shm_segment.c), once each way; and with single
 * copy dear (not crowded: rendezvous messages below the shared size go
 * through the bulk buffer, shm_rndv.c).  The sizes straddle the eager
 * limits (16, 32 and 128 KiB).
 */
#include "shm_harness.h" /* first: it selects the POSIX/Linux interfaces */

#include "../unit/check.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* Makes process_vm_readv fail with EPERM in this process. */
static int refuse_cma(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

#define BIG (1u << 20)

static int report(int rank)
{
    if (failed)
        printf("  rank %d: %d checks failed\n", rank, failed);
    return failed ? 1 : 0;
}

static void check_table(const ic_transport_t *t)
{
    const ic_transport_ops_t *o = t->ops;
    CHECK(o->size == sizeof(ic_transport_ops_t), "ops size %zu", o->size);
    CHECK(o->name && !strcmp(o->name, "shm"), "ops name %s", o->name ? o->name : "(null)");
    CHECK(o->isend && o->irecv && o->test && o->progress && o->wait && o->peer_alive && o->abort &&
              o->close,
          "a NULL slot in the ops table");
}

/* Sends sizes[] to dst under key comm cs and receives them from src
 * (possibly oneself) under key comm cr; recv_first posts the receives
 * before the sends. */
static void exchange(ic_transport_t *t, int src, int dst, int recv_first, uint64_t cr, uint64_t cs)
{
    static const size_t sizes[] = {0,      1,      31,     32,     33,     64,  200,
                                   8191,   8192,   8193,   16383,  16384,  16385,
                                   32767,  32768,  32769,  131071, 131072, 131073,
                                   BIG,    BIG + 3};
    enum { N = sizeof sizes / sizeof sizes[0] };
    static unsigned char sb[N][BIG + 3], rb[N][BIG + 3];
    ic_tx_req_t req[2 * N];
    char done[2 * N];
    int perm[N];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == recv_first) {
            permute(perm, N, cr * 3 + 1);
            for (int k = 0; k < N; k++) {
                int i = perm[k];
                memset(rb[i], 0xee, sizes[i]);
                /* Same comm and seq for all: the tag tells them apart. */
                CHECK(t->ops->irecv(t, src, mkkey(cr, 7, (uint32_t)i), rb[i], sizes[i], &req[k]) ==
                          IC_OK,
                      "irecv: %s", ic_last_error());
            }
        } else {
            permute(perm, N, cs * 3 + 2);
            for (int k = 0; k < N; k++) {
                int i = perm[k];
                pat_fill(sb[i], sizes[i], cs * 100 + (uint64_t)i);
                CHECK(t->ops->isend(t, dst, mkkey(cs, 7, (uint32_t)i), sb[i], sizes[i],
                                    &req[N + k]) == IC_OK,
                      "isend: %s", ic_last_error());
            }
        }
    }
    ic_status_t st = wait_all(t, req, 2 * N, done);
    CHECK(st == IC_OK, "exchange: %s", ic_last_error());
    for (int i = 0; i < N && st == IC_OK; i++)
        CHECK(pat_check(rb[i], sizes[i], cr * 100 + (uint64_t)i) < 0, "message of %zu bytes wrong",
              sizes[i]);
}

static int self_rank(int rank, int size, const char *name, void *arg)
{
    (void)arg;
    ic_transport_t *t = open_rank(name, rank, size);
    check_table(t);
    exchange(t, 0, 0, 1, 1, 1);
    exchange(t, 0, 0, 0, 2, 2);
    /* Keys differing only in comm, or only in seq, are different keys. */
    int a = 1, b = 2, c = 3, x = 0, y = 0, z = 0;
    ic_tx_req_t r[6];
    char done[6];
    t->ops->isend(t, 0, mkkey(5, 1, 1), &a, sizeof a, &r[0]);
    t->ops->isend(t, 0, mkkey(6, 1, 1), &b, sizeof b, &r[1]);
    t->ops->isend(t, 0, mkkey(5, 2, 1), &c, sizeof c, &r[2]);
    t->ops->irecv(t, 0, mkkey(5, 2, 1), &z, sizeof z, &r[3]);
    t->ops->irecv(t, 0, mkkey(6, 1, 1), &y, sizeof y, &r[4]);
    t->ops->irecv(t, 0, mkkey(5, 1, 1), &x, sizeof x, &r[5]);
    CHECK(wait_all(t, r, 6, done) == IC_OK && x == 1 && y == 2 && z == 3,
          "key fields mixed up: %d %d %d", x, y, z);
    double t0 = now_s();
    CHECK(t->ops->wait(t, 0.05) == IC_OK, "idle wait: %s", ic_last_error());
    double dt = now_s() - t0;
    CHECK(dt > 0.03 && dt < 0.5, "idle wait(0.05) took %.3f s", dt);
    CHECK(t->ops->peer_alive(t, 0) == IC_OK, "peer_alive(self)");
    CHECK(t->ops->close(t) == IC_OK, "close");
    return report(rank);
}

static int pair_rank(int rank, int size, const char *name, void *arg)
{
    int refuse = arg != NULL;
    if (refuse && rank == 1 && refuse_cma() != 0) {
        printf("  rank 1: cannot install the seccomp filter: %s\n", strerror(errno));
        return 1;
    }
    ic_transport_t *t = open_rank(name, rank, size);
    if (refuse)
        CHECK(!ic_shm_single_copy(t), "rank %d uses single copy though rank 1 may not", rank);
    int other = 1 - rank;
    static unsigned char buf[BIG + 1];
    ic_tx_req_t r[2], zero;
    char done[2];
    int fin = 0;
    exchange(t, other, other, rank, 10 + (uint64_t)other, 10 + (uint64_t)rank);
    CHECK(t->ops->peer_alive(t, other) == IC_OK, "peer_alive: %s", ic_last_error());
    CHECK(t->ops->isend(t, 2, mkkey(1, 1, 1), buf, 1, &r[0]) == IC_ERR_ARG, "peer 2 accepted");
    CHECK(t->ops->irecv(t, -1, mkkey(1, 1, 1), buf, 1, &r[0]) == IC_ERR_ARG, "peer -1 accepted");
    CHECK(t->ops->isend(t, other, mkkey(1, 1, 1), NULL, 5, &r[0]) == IC_ERR_BUFFER,
          "NULL buffer accepted");
    memset(&zero, 0, sizeof zero);
    CHECK(t->ops->test(t, &zero, &fin) == IC_ERR_ARG, "test of a never posted request");

    /* Size mismatches, inline (receive too large, too small) and
     * rendezvous (the send fails too); then the pair still works. */
    static const size_t sent[] = {100, 100, BIG}, asked[] = {101, 99, BIG + 1};
    for (int k = 0; k < 3; k++) {
        ic_match_key_t key = mkkey(20, (uint64_t)k, 0);
        ic_status_t st;
        if (rank == 0) {
            t->ops->isend(t, 1, key, buf, sent[k], &r[0]);
            st = wait_all(t, r, 1, done);
            CHECK(k < 2 ? st == IC_OK : st == IC_ERR_TRANSPORT, "send %d of a mismatch: %s", k,
                  ic_status_string(st));
        } else {
            t->ops->irecv(t, 0, key, buf, asked[k], &r[0]);
            st = wait_all(t, r, 1, done);
            CHECK(st == IC_ERR_TRANSPORT && strstr(ic_last_error(), "bytes"),
                  "receive %d of a mismatch: %s (%s)", k, ic_status_string(st), ic_last_error());
        }
    }
    exchange(t, other, other, 1 - rank, 30 + (uint64_t)other, 30 + (uint64_t)rank);

    /* Queue full: 3000 x 256 B are posted before the receiver looks. */
    enum { NB = 3000 };
    static unsigned char many[NB][256];
    static ic_tx_req_t mr[NB];
    static char mdone[NB];
    if (rank == 0) {
        for (int i = 0; i < NB; i++) {
            pat_fill(many[i], 256, 5000 + (uint64_t)i);
            t->ops->isend(t, 1, mkkey(40, 0, (uint32_t)i), many[i], 256, &mr[i]);
        }
        CHECK(wait_all(t, mr, NB, mdone) == IC_OK, "backlogged sends: %s", ic_last_error());
    } else {
        usleep(200000);
        for (int i = NB - 1; i >= 0; i--)
            t->ops->irecv(t, 0, mkkey(40, 0, (uint32_t)i), many[i], 256, &mr[i]);
        CHECK(wait_all(t, mr, NB, mdone) == IC_OK, "backlogged receives: %s", ic_last_error());
        for (int i = 0; i < NB; i++)
            CHECK(pat_check(many[i], 256, 5000 + (uint64_t)i) < 0, "backlogged message %d", i);
    }

    /* Abort: rank 0 aborts; rank 1 waits for a message that never comes. */
    if (rank == 0) {
        t->ops->irecv(t, 1, mkkey(50, 0, 0), buf, 1, &r[0]); /* the go-ahead */
        CHECK(wait_all(t, r, 1, done) == IC_OK, "go-ahead: %s", ic_last_error());
        CHECK(t->ops->abort(t, 7) == IC_OK, "abort");
    } else {
        t->ops->irecv(t, 0, mkkey(50, 1, 0), buf, 1, &r[1]);
        t->ops->isend(t, 0, mkkey(50, 0, 0), buf, 1, &r[0]);
        double t0 = now_s();
        ic_status_t st = IC_OK;
        while (st == IC_OK && now_s() - t0 < 5) {
            st = t->ops->test(t, &r[1], &fin);
            if (st == IC_OK)
                st = t->ops->wait(t, 0.1);
        }
        CHECK(st == IC_ERR_PEER_FAILED && strstr(ic_last_error(), "aborted by rank 0 (code 7)"),
              "after abort: %s (%s)", ic_status_string(st), ic_last_error());
        CHECK(now_s() - t0 < 1.0, "abort noticed after %.3f s", now_s() - t0);
        CHECK(t->ops->peer_alive(t, 0) == IC_ERR_PEER_FAILED, "peer_alive after abort");
    }
    t->ops->close(t);
    return report(rank);
}

int main(void)
{
    int status[2] = {0, 0}, bad = 0;
    char name[64], d[32];
    printf("test_shm_match: one rank, messages to itself\n");
    if (run_job(1, self_rank, NULL, 30, MARK_BAD, status, name) != 0 || status[0] != 0) {
        printf("FAIL: self: %s\n", describe(status[0], d, sizeof d));
        bad++;
    }
    static const char *const mode[] = {"single copy cheap (IC_SHM_CMA_EXTRA_NS=0)",
                                       "IC_SHM_NO_CMA=1",
                                       "process_vm_readv refused in rank 1",
                                       "IC_SHM_CORES=1 (crowded), single copy cheap",
                                       "IC_SHM_CORES=1 (crowded), single copy dear",
                                       "single copy dear (IC_SHM_CMA_EXTRA_NS=5000)"};
    for (int m = 0; m < 6; m++) {
        set_mode(m == 1);
        setenv("IC_SHM_CMA_EXTRA_NS", m == 4 || m == 5 ? "5000" : "0", 1);
        if (m == 3 || m == 4)
            setenv("IC_SHM_CORES", "1", 1);
        else
            unsetenv("IC_SHM_CORES");
        printf("test_shm_match: two ranks, %s\n", mode[m]);
        int rc = run_job(2, pair_rank, m == 2 ? (void *)mode : NULL, 30, MARK_NONE, status, name);
        bad += job_failures(rc, status, 2, name);
    }
    set_mode(0);
    unsetenv("IC_SHM_CORES");
    unsetenv("IC_SHM_CMA_EXTRA_NS");
    printf("test_shm_match: %s\n", bad ? "FAILED" : "passed");
    return bad ? 1 : 0;
}
