/*
 * test_shm_share.c — large single-copy messages copied by both sides
 * (shm_share.c): every byte arrives, the sender really writes pieces, and
 * a shared copy that either side cancels midway never touches a buffer
 * after the cancel.
 *
 *   sizes:    both directions at once, sizes around the sharing threshold
 *             (IC_SHM_SHARE_MIN = 256 KiB) up to 9 MiB, plus a message
 *             below it, every byte checked.
 *   sender:   one piece per progress call (IC_SHM_SHARE_PIECES_PER_CALL=1):
 *             the receiver copies one piece and stops; the sender's
 *             progress calls must copy every other piece (the receive then
 *             completes with one more call of the receiver), every byte
 *             right.
 *   recv-cancel: the receiver cancels its shared receive after one piece
 *             and overwrites its buffer; the sender's progress afterwards
 *             must not write into it, and its send must fail.
 *   send-cancel: the sender cancels its send after the receiver's first
 *             piece and overwrites its buffer; the receive must fail as
 *             withdrawn, its buffer holding that first piece and nothing
 *             else.
 *   read:     receives posted with ops->irecv_read (a reduction's operand)
 *             are shared only from IC_SHM_SHARE_READ_MIN (512 KiB) when
 *             every rank has a core: a 300 KiB one is copied by the
 *             receiver alone (never SHARED), the same size by irecv is
 *             shared, and a 600 KiB irecv_read is shared; every byte
 *             checked.  With the ranks crowded on the cores the threshold
 *             is IC_SHM_SHARE_MIN for both (checked too).
 *   busy-send, busy-send-read, busy-recv: ops->progress_busy (a rank in
 *             the middle of a local step) takes no piece while the other
 *             side copies one, except a sender whose receiver reduces the
 *             message next (irecv_read); see busy_rank.
 * Single copy only; without it the test says so and passes.  The job's
 * creator is told single copy is cheap (IC_SHM_CMA_EXTRA_NS=0), which keeps
 * these thresholds; where it is dear the shared size is 1 MiB and smaller
 * messages go through the bulk buffer (test_shm_segment checks that).
 */
#include "shm_harness.h"
#include "transport/shm/shm_internal.h"

#include <sys/mman.h>

#define BIG (4u << 20)
#define PIECE (512u << 10) /* BIG / 8: shm_share.c's cut of BIG */

typedef struct {
    volatile int *flag;
} share_arg_t;

static int sizes_rank(int rank, int p, const char *name, void *arg)
{
    (void)arg;
    static const size_t sizes[] = {(256u << 10) - 1, 256u << 10, (256u << 10) + 1,
                                   (1u << 20) + 12345, (9u << 20) + 7, 100000};
    enum { N = sizeof sizes / sizeof sizes[0] };
    ic_transport_t *t = open_rank(name, rank, p);
    int peer = 1 - rank, rc = 0;
    unsigned char *out[N], *in[N];
    ic_tx_req_t req[2 * N];
    char done[2 * N];
    for (int i = 0; i < N; i++) {
        out[i] = malloc(sizes[i]);
        in[i] = malloc(sizes[i]);
        pat_fill(out[i], sizes[i], (uint64_t)(10 * rank + i));
        memset(in[i], 0, sizes[i]);
        t->ops->irecv(t, peer, mkkey(3, (uint64_t)i, 0), in[i], sizes[i], &req[2 * i]);
        t->ops->isend(t, peer, mkkey(3, (uint64_t)i, 0), out[i], sizes[i], &req[2 * i + 1]);
    }
    ic_status_t st = wait_all(t, req, 2 * N, done);
    if (st != IC_OK) {
        printf("  sizes: rank %d: %s\n", rank, ic_last_error());
        rc = 1;
    }
    for (int i = 0; i < N && st == IC_OK; i++) {
        long bad = pat_check(in[i], sizes[i], (uint64_t)(10 * peer + i));
        if (bad >= 0) {
            printf("  sizes: rank %d: %zu-byte message wrong at byte %ld\n", rank, sizes[i], bad);
            rc = 1;
        }
    }
    for (int i = 0; i < N; i++) {
        free(out[i]);
        free(in[i]);
    }
    t->ops->close(t);
    return rc;
}

/* Rank 1's receive of BIG from rank 0 (by irecv_read when read is set),
 * driven until it is shared (one piece copied here). */
static ic_status_t recv_until_shared_by(ic_transport_t *t, ic_tx_req_t *req, unsigned char *buf,
                                        bool read)
{
    (read ? t->ops->irecv_read : t->ops->irecv)(t, 0, mkkey(4, 1, 0), buf, BIG, req);
    shm_req_t *r = (shm_req_t *)(void *)req;
    double t0 = now_s();
    while (r->state != SHM_RQ_SHARED) {
        if (r->state == SHM_RQ_DONE || r->state == SHM_RQ_ERROR || now_s() - t0 > 20)
            return IC_ERR_TRANSPORT;
        t->ops->progress(t);
        usleep(100);
    }
    return IC_OK;
}

static ic_status_t recv_until_shared(ic_transport_t *t, ic_tx_req_t *req, unsigned char *buf)
{
    return recv_until_shared_by(t, req, buf, false);
}

/* The transfer control of rank 0's single-copy send req (either side's
 * request: both name rank 0's ticket). */
static shm_xfer_t *xfer_of(ic_transport_t *t, ic_tx_req_t *req)
{
    const shm_req_t *r = (const shm_req_t *)(const void *)req;
    return shm_seg_xfer(&((shm_transport_t *)(void *)t)->seg, 0, (uint32_t)r->ticket);
}

/* Tests *req until it completes or fails, for at most 20 s; *fin tells
 * whether it completed.  Returns the last test's status. */
static ic_status_t test_until_done(ic_transport_t *t, ic_tx_req_t *req, int *fin)
{
    ic_status_t st = IC_OK;
    double t0 = now_s();
    *fin = 0;
    while (st == IC_OK && !*fin && now_s() - t0 < 20) {
        st = t->ops->test(t, req, fin);
        if (st == IC_OK && !*fin)
            t->ops->wait(t, 0.001);
    }
    return st;
}

/* Runs *req (rank's) to completion; nonzero on failure, with a line. */
static int finish(ic_transport_t *t, ic_tx_req_t *req, const char *what)
{
    int fin;
    ic_status_t st = test_until_done(t, req, &fin);
    if (st == IC_OK && fin)
        return 0;
    printf("  %s: the request %s: %s\n", what, fin ? "failed" : "hung", ic_last_error());
    return 1;
}

/* ops->progress_busy (a rank in the middle of a long local step):
 *   mode 0 (busy-send): the receiver has copied one piece and holds
 *     `copying` up as if copying another; the sender's busy progress must
 *     write nothing; once copying is down it writes the rest.
 *   mode 1 (busy-send-read): the same with the receive posted by
 *     irecv_read (the receiver reduces the message next): the busy sender
 *     writes pieces although the receiver copies.
 *   mode 2 (busy-recv): the sender holds `copying` up; the receiver's busy
 *     progress must claim nothing; its ordinary progress then copies the
 *     rest.
 * Every byte checked in the end.  One piece per progress call. */
static int busy_rank(int rank, int p, const char *name, void *arg, int mode)
{
    volatile int *flag = ((share_arg_t *)arg)->flag;
    static const char *const what[3] = {"busy-send", "busy-send-read", "busy-recv"};
    setenv("IC_SHM_SHARE_PIECES_PER_CALL", "1", 1);
    ic_transport_t *t = open_rank(name, rank, p);
    int rc = 0;
    unsigned char *buf = malloc(BIG);
    ic_tx_req_t req;
    if (!ic_shm_single_copy(t) || !t->ops->progress_busy) {
        if (rank == 0)
            printf("  %s: no single copy: not applicable\n", what[mode]);
        free(buf);
        t->ops->close(t);
        return 0;
    }
    if (rank == 1) {
        memset(buf, 0, BIG);
        if (recv_until_shared_by(t, &req, buf, mode == 1) != IC_OK) {
            printf("  %s: the receive never became shared\n", what[mode]);
            free(buf);
            t->ops->close(t);
            return 1;
        }
        shm_xfer_t *x = xfer_of(t, &req);
        if (mode < 2)
            atomic_fetch_add(&x->copying, 1u); /* "copying a piece" */
        flag[0] = 1;
        wait_flag(&flag[1], 1);
        if (mode == 2) { /* the sender "copies" now */
            for (unsigned i = 0; i < 2 * BIG / PIECE; i++)
                t->ops->progress_busy(t);
        }
        /* Only the receiver's first piece may be in (busy-send, busy-recv);
         * busy-send-read: the sender wrote the others. */
        bool only_first = pat_check(buf, PIECE, 77) < 0 && all_bytes(buf + PIECE, BIG - PIECE, 0);
        uint64_t done = atomic_load(&x->done);
        if (mode == 1 ? done < 2 : !only_first || done != 1) {
            printf("  %s: %llu of %u pieces copied while %s busy\n", what[mode],
                   (unsigned long long)done, BIG / PIECE,
                   mode == 2 ? "the receiver was" : "the sender was");
            rc = 1;
        }
        if (mode < 2)
            atomic_fetch_sub(&x->copying, 1u);
        flag[2] = 1;
        wait_flag(&flag[3], 1);
        rc |= finish(t, &req, what[mode]);
        long bad = pat_check(buf, BIG, 77);
        if (bad >= 0) {
            printf("  %s: byte %ld wrong\n", what[mode], bad);
            rc = 1;
        } else if (rc == 0) {
            printf("  %s: %llu of %u pieces in while %s busy, then every byte right\n",
                   what[mode], (unsigned long long)done, BIG / PIECE,
                   mode == 2 ? "the receiver was" : "the sender was");
        }
    } else {
        pat_fill(buf, BIG, 77);
        t->ops->isend(t, 1, mkkey(4, 1, 0), buf, BIG, &req);
        wait_flag(&flag[0], 1);
        shm_xfer_t *x = xfer_of(t, &req);
        if (mode == 2)
            atomic_fetch_add(&x->copying, 1u);
        else
            for (unsigned i = 0; i < 2 * BIG / PIECE; i++)
                t->ops->progress_busy(t);
        flag[1] = 1;
        wait_flag(&flag[2], 1);
        if (mode == 2)
            atomic_fetch_sub(&x->copying, 1u);
        else /* the receiver copies nothing now: a busy sender takes the rest */
            for (unsigned i = 0; i < 2 * BIG / PIECE; i++)
                t->ops->progress_busy(t);
        flag[3] = 1;
        rc |= finish(t, &req, what[mode]);
    }
    free(buf);
    t->ops->close(t);
    return rc;
}

static int busy_send_rank(int rank, int p, const char *name, void *arg)
{
    return busy_rank(rank, p, name, arg, 0);
}

static int busy_send_read_rank(int rank, int p, const char *name, void *arg)
{
    return busy_rank(rank, p, name, arg, 1);
}

static int busy_recv_rank(int rank, int p, const char *name, void *arg)
{
    return busy_rank(rank, p, name, arg, 2);
}

/* mode 0: sender copies the rest; 1: the receiver cancels; 2: the sender
 * cancels. */
static int staged_rank(int rank, int p, const char *name, void *arg, int mode)
{
    volatile int *flag = ((share_arg_t *)arg)->flag;
    setenv("IC_SHM_SHARE_PIECES_PER_CALL", "1", 1);
    ic_transport_t *t = open_rank(name, rank, p);
    static const char *const what[3] = {"sender", "recv-cancel", "send-cancel"};
    int rc = 0;
    unsigned char *buf = malloc(BIG);
    ic_tx_req_t req;
    if (!ic_shm_single_copy(t)) {
        if (rank == 0)
            printf("  %s: no single copy: not applicable\n", what[mode]);
        free(buf);
        t->ops->close(t);
        return 0;
    }
    if (rank == 1) {
        memset(buf, 0, BIG);
        if (recv_until_shared(t, &req, buf) != IC_OK) {
            printf("  %s: the receive never became shared\n", what[mode]);
            rc = 1;
        }
        if (mode == 1) {
            t->ops->cancel(t, &req);
            memset(buf, 0xEE, BIG);
        }
        flag[0] = 1; /* rank 0's turn */
        wait_flag(&flag[1], 1);
        if (mode == 0) {
            int fin = 0;
            ic_status_t st = t->ops->test(t, &req, &fin);
            long bad = pat_check(buf, BIG, 77);
            if (st != IC_OK || !fin || bad >= 0) {
                printf("  sender: after the sender's pieces the receive is %s (%s), byte %ld "
                       "wrong\n",
                       fin ? "done" : "not done", st == IC_OK ? "ok" : ic_last_error(), bad);
                rc = 1;
            } else {
                printf("  sender: the sender wrote %u of %u pieces, every byte right\n",
                       BIG / PIECE - 1, BIG / PIECE);
            }
        } else if (mode == 1) {
            if (!all_bytes(buf, BIG, 0xEE)) {
                printf("  recv-cancel: the cancelled receive's buffer was written\n");
                rc = 1;
            } else {
                printf("  recv-cancel: the cancelled receive's buffer is intact\n");
            }
        } else {
            int fin;
            ic_status_t st = test_until_done(t, &req, &fin);
            /* Its own first piece (the pattern) and nothing else: zeros. */
            int intact = pat_check(buf, PIECE, 77) < 0 && all_bytes(buf + PIECE, BIG - PIECE, 0);
            if (st == IC_OK || !intact) {
                printf("  send-cancel: the receive %s and its buffer %s\n",
                       st == IC_OK ? (fin ? "succeeded" : "hung") : "failed",
                       intact ? "is as before" : "was written after the cancel");
                rc = 1;
            } else {
                printf("  send-cancel: %s\n", ic_last_error());
            }
        }
        flag[2] = 1;
    } else {
        pat_fill(buf, BIG, 77);
        t->ops->isend(t, 1, mkkey(4, 1, 0), buf, BIG, &req);
        wait_flag(&flag[0], 1);
        if (mode == 2) {
            t->ops->cancel(t, &req);
            memset(buf, 0xDD, BIG); /* what a read after the cancel would see */
        } else {
            /* One piece per call: enough calls for every piece left. */
            for (unsigned i = 0; i < 2 * BIG / PIECE; i++)
                t->ops->progress(t);
        }
        flag[1] = 1;
        wait_flag(&flag[2], 1);
        if (mode == 1) {
            int fin;
            ic_status_t st = test_until_done(t, &req, &fin);
            if (st == IC_OK) {
                printf("  recv-cancel: the send %s\n", fin ? "succeeded" : "hung");
                rc = 1;
            }
        } else if (mode == 0) {
            int fin;
            ic_status_t st = test_until_done(t, &req, &fin);
            if (st != IC_OK || !fin) {
                printf("  sender: the send did not complete: %s\n", ic_last_error());
                rc = 1;
            }
        }
    }
    free(buf);
    t->ops->close(t);
    return rc;
}

/* The read case: rank 0 sends three messages, rank 1 receives them one
 * after the other (irecv_read 300 KiB, irecv 300 KiB, irecv_read 600 KiB)
 * and watches whether each becomes SHARED. */
static int read_rank(int rank, int p, const char *name, void *arg)
{
    (void)arg;
    static const size_t size[3] = {300u << 10, 300u << 10, 600u << 10};
    static const int by_read[3] = {1, 0, 1};
    setenv("IC_SHM_SHARE_PIECES_PER_CALL", "1", 1); /* a shared receive stays SHARED a while */
    ic_transport_t *t = open_rank(name, rank, p);
    const shm_transport_t *sh = (const shm_transport_t *)(const void *)t;
    int rc = 0;
    unsigned char *buf[3];
    ic_tx_req_t req[3];
    char done[3];
    for (int i = 0; i < 3; i++) {
        buf[i] = malloc(size[i]);
        if (rank == 0)
            pat_fill(buf[i], size[i], (uint64_t)(40 + i));
        else
            memset(buf[i], 0, size[i]);
    }
    if (!ic_shm_single_copy(t)) {
        if (rank == 0)
            printf("  read: no single copy: not applicable\n");
    } else if (rank == 0) {
        for (int i = 0; i < 3; i++)
            t->ops->isend(t, 1, mkkey(6, (uint64_t)i, 0), buf[i], size[i], &req[i]);
        if (wait_all(t, req, 3, done) != IC_OK) {
            printf("  read: rank 0: %s\n", ic_last_error());
            rc = 1;
        }
    } else {
        for (int i = 0; i < 3; i++) {
            ic_match_key_t key = mkkey(6, (uint64_t)i, 0);
            if (by_read[i])
                t->ops->irecv_read(t, 0, key, buf[i], size[i], &req[i]);
            else
                t->ops->irecv(t, 0, key, buf[i], size[i], &req[i]);
            shm_req_t *r = (shm_req_t *)(void *)&req[i];
            double t0 = now_s();
            while (r->state == SHM_RQ_POSTED && now_s() - t0 < 20) {
                t->ops->progress(t);
                if (r->state == SHM_RQ_POSTED)
                    usleep(50);
            }
            int shared = r->state == SHM_RQ_SHARED;
            uint64_t min = by_read[i] ? sh->share_read_min : sh->share_min;
            int want = size[i] >= min;
            int want_uncrowded = !by_read[i] || size[i] >= (512u << 10);
            if (shared != want || (!sh->oversubscribed && want != want_uncrowded)) {
                printf("  read: %zu-byte %s was %s (threshold %llu, %s)\n", size[i],
                       by_read[i] ? "irecv_read" : "irecv", shared ? "shared" : "not shared",
                       (unsigned long long)min, sh->oversubscribed ? "crowded" : "a core each");
                rc = 1;
            }
            if (wait_all(t, &req[i], 1, &done[i]) != IC_OK) {
                printf("  read: rank 1: %s\n", ic_last_error());
                rc = 1;
            } else if (pat_check(buf[i], size[i], (uint64_t)(40 + i)) >= 0) {
                printf("  read: %zu-byte message %d wrong\n", size[i], i);
                rc = 1;
            }
        }
        if (rc == 0)
            printf("  read: irecv_read 300 KiB %s, irecv 300 KiB shared, irecv_read 600 KiB "
                   "shared; every byte right\n",
                   sh->oversubscribed ? "shared (crowded)" : "copied by the receiver alone");
    }
    for (int i = 0; i < 3; i++)
        free(buf[i]);
    t->ops->close(t);
    return rc;
}

static int sender_rank(int rank, int p, const char *name, void *arg)
{
    return staged_rank(rank, p, name, arg, 0);
}

static int recv_cancel_rank(int rank, int p, const char *name, void *arg)
{
    return staged_rank(rank, p, name, arg, 1);
}

static int send_cancel_rank(int rank, int p, const char *name, void *arg)
{
    return staged_rank(rank, p, name, arg, 2);
}

int main(void)
{
    volatile int *flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (flag == MAP_FAILED)
        return 1;
    share_arg_t a = {flag};
    setenv("IC_SHM_CMA_EXTRA_NS", "0", 1);
    shm_rank_fn fns[8] = {sizes_rank,     sender_rank,         recv_cancel_rank,
                          send_cancel_rank, read_rank,          busy_send_rank,
                          busy_send_read_rank, busy_recv_rank};
    const char *names[8] = {"sizes", "sender",    "recv-cancel",    "send-cancel",
                            "read",  "busy-send", "busy-send-read", "busy-recv"};
    return run_pair_cases("test_shm_share", 8, names, fns, &a, flag) ? 1 : 0;
}
