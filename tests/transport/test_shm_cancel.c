/*
 * test_shm_cancel.c — a cancelled large send is never read afterwards
 * (the read gates of shm_rndv.c), and a cancelled receive never written.
 *
 *   withdraw: rank 0 sends 1 MiB to rank 1, whose receive is not posted,
 *             cancels the send, overwrites its buffer with another
 *             pattern and says so through a shared page; only then does
 *             rank 1 post the receive.  It must fail (the message was
 *             withdrawn) and leave the receive buffer as it was: neither
 *             the old pattern nor the new one may arrive.
 *   self:     the same between rank 0 and itself, with the buffer freed
 *             after the cancel (an AddressSanitizer build sees a read of
 *             freed memory if the gate lets one through).
 *   recv:     rank 1 posts a 1 MiB receive and cancels it before rank 0
 *             sends; afterwards rank 0's send, and more traffic, must not
 *             write into the cancelled receive's buffer.
 *   stream:   withdraw with IC_SHM_STREAM_MIN=65536 (the message goes
 *             through the bulk buffer, not single copy): the receive must
 *             fail, not wait for chunks, and leave its buffer intact; the
 *             next 1 MiB message on the pair (single copy now) arrives.
 *   mixed:    with IC_SHM_STREAM_MIN=2 MiB rank 0 posts a 1 MiB single-copy
 *             send A, a 4 MiB streamed send D and a 4 MiB streamed send B,
 *             and cancels B (the pair breaks); D fails on both sides, but
 *             A, waiting for its FIN in the same list as D, must arrive
 *             and complete.
 * Single copy only (the gates guard process_vm_readv); without it the
 * test says so and passes the receive case alone.
 */
#include "shm_harness.h"

#include <sys/mman.h>

#define BIG (1u << 20)

typedef struct {
    volatile int *flag;
} cancel_arg_t;

/* Runs req to an end; returns its status (IC_OK when done). */
static ic_status_t finish_one(ic_transport_t *t, ic_tx_req_t *req)
{
    double t0 = now_s();
    for (;;) {
        int fin = 0;
        ic_status_t st = t->ops->test(t, req, &fin);
        if (st != IC_OK || fin)
            return st;
        if (now_s() - t0 > 5)
            return IC_ERR_TIMEOUT;
        t->ops->wait(t, 0.01);
    }
}

/* withdraw (streamed = 0) and stream (1): see the header. */
static int withdraw_case(int rank, int p, const char *name, volatile int *flag, int streamed)
{
    const char *what = streamed ? "stream" : "withdraw";
    if (streamed)
        setenv("IC_SHM_STREAM_MIN", "65536", 1);
    ic_transport_t *t = open_rank(name, rank, p);
    int cma = ic_shm_single_copy(t);
    unsigned char *buf = malloc(BIG);
    ic_tx_req_t req;
    int rc = 0;
    if (rank == 0) {
        memset(buf, 0x11, BIG);
        t->ops->isend(t, 1, mkkey(9, 1, 0), buf, BIG, &req);
        t->ops->progress(t);
        t->ops->cancel(t, &req);
        memset(buf, 0x22, BIG); /* what a read after the cancel would see */
        flag[0] = 1;
        wait_flag(&flag[1], 1);
        if (streamed) { /* the pair's next large message */
            t->ops->isend(t, 1, mkkey(9, 5, 0), buf, BIG, &req);
            if (finish_one(t, &req) != IC_OK) {
                printf("  stream: the message after the withdrawn one failed: %s\n",
                       ic_last_error());
                rc = 1;
            }
        }
    } else {
        memset(buf, 0x33, BIG);
        wait_flag(&flag[0], 1);
        t->ops->irecv(t, 0, mkkey(9, 1, 0), buf, BIG, &req);
        ic_status_t st = cma ? finish_one(t, &req) : IC_ERR_REVOKED;
        if (st == IC_OK || st == IC_ERR_TIMEOUT || !all_bytes(buf, BIG, 0x33)) {
            printf("  %s: the receive %s and its buffer %s\n", what,
                   st == IC_OK ? "succeeded" : st == IC_ERR_TIMEOUT ? "hung" : "failed",
                   all_bytes(buf, BIG, 0x33) ? "is intact" : "was written");
            rc = 1;
        } else {
            printf("  %s: %s\n", what, cma ? ic_last_error() : "no single copy: not applicable");
        }
        if (cma && st != IC_OK)
            t->ops->cancel(t, &req);
        flag[1] = 1;
        if (streamed) {
            t->ops->irecv(t, 0, mkkey(9, 5, 0), buf, BIG, &req);
            if (finish_one(t, &req) != IC_OK || !all_bytes(buf, BIG, 0x22)) {
                printf("  stream: the message after the withdrawn one did not arrive whole\n");
                rc = 1;
            }
        }
    }
    free(buf);
    t->ops->close(t);
    return rc;
}

static int withdraw_rank(int rank, int p, const char *name, void *arg)
{
    return withdraw_case(rank, p, name, ((cancel_arg_t *)arg)->flag, 0);
}

static int stream_rank(int rank, int p, const char *name, void *arg)
{
    return withdraw_case(rank, p, name, ((cancel_arg_t *)arg)->flag, 1);
}

static int mixed_rank(int rank, int p, const char *name, void *arg)
{
    volatile int *flag = ((cancel_arg_t *)arg)->flag;
    setenv("IC_SHM_STREAM_MIN", "2097152", 1);
    ic_transport_t *t = open_rank(name, rank, p);
    int cma = ic_shm_single_copy(t);
    size_t big = 4u << 20;
    unsigned char *a = malloc(BIG), *d = malloc(big), *b = malloc(big);
    ic_tx_req_t ra, rd, rb;
    int rc = 0;
    if (rank == 0) {
        memset(a, 0x5a, BIG);
        memset(d, 0x6b, big);
        memset(b, 0x7c, big);
        t->ops->isend(t, 1, mkkey(9, 6, 0), a, BIG, &ra);
        t->ops->isend(t, 1, mkkey(9, 7, 0), d, big, &rd);
        t->ops->isend(t, 1, mkkey(9, 8, 0), b, big, &rb);
        t->ops->progress(t);
        t->ops->cancel(t, &rb);
        flag[4] = 1;
        ic_status_t sa = finish_one(t, &ra), sd = cma ? finish_one(t, &rd) : IC_ERR_TRANSPORT;
        if (sa != IC_OK || sd == IC_OK || sd == IC_ERR_TIMEOUT) {
            printf("  mixed: single-copy send %s, streamed send on the broken pair %s\n",
                   sa == IC_OK ? "completed" : "failed",
                   sd == IC_OK ? "completed" : sd == IC_ERR_TIMEOUT ? "hung" : "failed");
            rc = 1;
        }
        if (sd != IC_OK)
            t->ops->cancel(t, &rd);
        wait_flag(&flag[5], 1);
    } else {
        memset(a, 0, BIG);
        wait_flag(&flag[4], 1);
        t->ops->irecv(t, 0, mkkey(9, 6, 0), a, BIG, &ra);
        ic_status_t sa = finish_one(t, &ra);
        ic_status_t sd = IC_ERR_TRANSPORT;
        if (cma) {
            t->ops->irecv(t, 0, mkkey(9, 7, 0), d, big, &rd);
            sd = finish_one(t, &rd);
            if (sd != IC_OK)
                t->ops->cancel(t, &rd);
        }
        if (sa != IC_OK || !all_bytes(a, BIG, 0x5a) || sd == IC_OK || sd == IC_ERR_TIMEOUT) {
            printf("  mixed: the single-copy message %s, the streamed one %s\n",
                   sa == IC_OK && all_bytes(a, BIG, 0x5a) ? "arrived" : "did not arrive whole",
                   sd == IC_OK ? "arrived" : sd == IC_ERR_TIMEOUT ? "hung" : "failed");
            rc = 1;
        } else {
            printf("  mixed: the single-copy message arrived; %s\n",
                   cma ? ic_last_error() : "no single copy: only A checked");
        }
        flag[5] = 1;
    }
    free(a);
    free(d);
    free(b);
    t->ops->close(t);
    return rc;
}

static int self_rank(int rank, int p, const char *name, void *arg)
{
    (void)arg;
    ic_transport_t *t = open_rank(name, rank, p);
    int rc = 0;
    if (rank == 0) {
        unsigned char *src = malloc(BIG), *dst = malloc(BIG);
        memset(src, 0x44, BIG);
        memset(dst, 0x55, BIG);
        ic_tx_req_t s, r;
        t->ops->isend(t, 0, mkkey(9, 2, 0), src, BIG, &s);
        t->ops->cancel(t, &s);
        free(src); /* nothing may read it now */
        t->ops->irecv(t, 0, mkkey(9, 2, 0), dst, BIG, &r);
        ic_status_t st = finish_one(t, &r);
        if (st == IC_OK || !all_bytes(dst, BIG, 0x55)) {
            printf("  self: the receive of a cancelled send %s\n",
                   st == IC_OK ? "succeeded" : "wrote its buffer");
            rc = 1;
        } else {
            printf("  self: %s\n", ic_last_error());
        }
        t->ops->cancel(t, &r);
        free(dst);
    }
    t->ops->close(t);
    return rc;
}

static int recv_rank(int rank, int p, const char *name, void *arg)
{
    volatile int *flag = ((cancel_arg_t *)arg)->flag;
    ic_transport_t *t = open_rank(name, rank, p);
    unsigned char *buf = malloc(BIG);
    ic_tx_req_t req;
    int rc = 0;
    if (rank == 1) {
        memset(buf, 0x66, BIG);
        t->ops->irecv(t, 0, mkkey(9, 3, 0), buf, BIG, &req);
        t->ops->cancel(t, &req);
        flag[2] = 1;
        wait_flag(&flag[3], 1);
        for (int i = 0; i < 100; i++) /* drive the transport past rank 0's send */
            t->ops->wait(t, 0.001);
        if (!all_bytes(buf, BIG, 0x66)) {
            printf("  recv: a cancelled receive's buffer was written\n");
            rc = 1;
        } else {
            printf("  recv: the cancelled receive's buffer is intact\n");
        }
    } else {
        memset(buf, 0x77, BIG);
        wait_flag(&flag[2], 1);
        t->ops->isend(t, 1, mkkey(9, 3, 0), buf, BIG, &req);
        for (int i = 0; i < 100; i++)
            t->ops->wait(t, 0.001);
        t->ops->cancel(t, &req);
        flag[3] = 1;
    }
    free(buf);
    t->ops->close(t);
    return rc;
}

int main(void)
{
    volatile int *flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (flag == MAP_FAILED)
        return 1;
    cancel_arg_t a = {flag};
    shm_rank_fn fns[5] = {withdraw_rank, self_rank, recv_rank, stream_rank, mixed_rank};
    const char *names[5] = {"withdraw", "self", "recv", "stream", "mixed"};
    return run_pair_cases("test_shm_cancel", 5, names, fns, &a, flag) ? 1 : 0;
}
