/*
 * test_exec_order.c — the order in which the executor (src/plan/exec.c)
 * posts the steps ready at the start of a run: sends of at most
 * IC_EXEC_SEND_FIRST_MAX bytes first, then the receives, then larger
 * sends, each group in program order; and that a step with a dependency
 * waits for it; and that a receive whose bytes a REDUCE waiting for it
 * reads (as source or destination) is posted with ops->irecv_read, every
 * other receive with irecv; and that a send that waits (directly or not)
 * for every receive of the plan is posted with ops->isend_oneway, every
 * other one with isend.  A recording transport stands in for a real one:
 * it notes every isend, isend_oneway, irecv and irecv_read and completes
 * each request when tested.
 */
#include "plan/exec.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { MAXLOG = 16 };

typedef struct {
    ic_transport_t base;
    char log[MAXLOG][24]; /* "send 1 8", "recv 2 16", ... */
    int n;
    int nprogress, nbusy; /* ops->progress and ops->progress_busy calls */
} rec_t;

static void note(ic_transport_t *t, const char *what, int peer, size_t bytes)
{
    rec_t *r = (rec_t *)(void *)t;
    if (r->n < MAXLOG)
        snprintf(r->log[r->n++], sizeof r->log[0], "%s %d %zu", what, peer, bytes);
}

/* A posted request, noted as what; completes when tested. */
static ic_status_t post(ic_transport_t *t, const char *what, int peer, size_t bytes,
                        ic_tx_req_t *req)
{
    memset(req, 0, sizeof *req);
    note(t, what, peer, bytes);
    return IC_OK;
}

static ic_status_t rec_isend(ic_transport_t *t, int peer, ic_match_key_t key, const void *buf,
                             size_t bytes, ic_tx_req_t *req)
{
    (void)key, (void)buf;
    return post(t, "send", peer, bytes, req);
}

static ic_status_t rec_isend_oneway(ic_transport_t *t, int peer, ic_match_key_t key,
                                    const void *buf, size_t bytes, ic_tx_req_t *req)
{
    (void)key, (void)buf;
    return post(t, "oneway", peer, bytes, req);
}

static ic_status_t rec_irecv(ic_transport_t *t, int peer, ic_match_key_t key, void *buf,
                             size_t bytes, ic_tx_req_t *req)
{
    (void)key, (void)buf;
    return post(t, "recv", peer, bytes, req);
}

static ic_status_t rec_irecv_read(ic_transport_t *t, int peer, ic_match_key_t key, void *buf,
                                  size_t bytes, ic_tx_req_t *req)
{
    (void)key, (void)buf;
    return post(t, "read", peer, bytes, req);
}

static ic_status_t rec_test(ic_transport_t *t, ic_tx_req_t *req, int *done)
{
    (void)t, (void)req;
    *done = 1;
    return IC_OK;
}

static ic_status_t rec_cancel(ic_transport_t *t, ic_tx_req_t *req)
{
    (void)t, (void)req;
    return IC_OK;
}

static ic_status_t rec_progress(ic_transport_t *t)
{
    ((rec_t *)(void *)t)->nprogress++;
    return IC_OK;
}

static ic_status_t rec_progress_busy(ic_transport_t *t)
{
    ((rec_t *)(void *)t)->nbusy++;
    return IC_OK;
}

static const ic_transport_ops_t rec_ops = {.size = sizeof(ic_transport_ops_t),
                                           .name = "recorder",
                                           .isend = rec_isend,
                                           .isend_oneway = rec_isend_oneway,
                                           .irecv = rec_irecv,
                                           .irecv_read = rec_irecv_read,
                                           .test = rec_test,
                                           .cancel = rec_cancel,
                                           .progress = rec_progress};

/* The same with ops->progress_busy. */
static const ic_transport_ops_t rec_busy_ops = {.size = sizeof(ic_transport_ops_t),
                                                .name = "recorder-busy",
                                                .isend = rec_isend,
                                                .isend_oneway = rec_isend_oneway,
                                                .irecv = rec_irecv,
                                                .irecv_read = rec_irecv_read,
                                                .test = rec_test,
                                                .cancel = rec_cancel,
                                                .progress = rec_progress,
                                                .progress_busy = rec_progress_busy};

/* Runs plan pl (taken over) to the end on a fresh recorder with ops; the
 * log in r. */
static void run_on(const ic_transport_ops_t *ops, ic_plan_t *pl, rec_t *r, void *sendbuf,
                   void *recvbuf)
{
    memset(r, 0, sizeof *r);
    r->base.ops = ops;
    r->base.rank = 0;
    r->base.size = 4;
    ic_exec_t x;
    memset(&x, 0, sizeof x);
    CHECK(ic_exec_prepare(&x, pl) == IC_OK, "prepare failed");
    ic_exec_start(&x, &r->base, NULL, 1, 1, 0, sendbuf, recvbuf);
    int done = 0;
    for (int k = 0; k < 10 && !done; k++)
        CHECK(ic_exec_progress(&x, &done) == IC_OK, "progress failed");
    CHECK(done, "the run did not finish");
    ic_exec_release(&x);
}

static void run(ic_plan_t *pl, rec_t *r, void *sendbuf, void *recvbuf)
{
    run_on(&rec_ops, pl, r, sendbuf, recvbuf);
}

static void expect(const rec_t *r, const char *const *want, int n, const char *what)
{
    int ok = r->n == n;
    for (int i = 0; ok && i < n; i++)
        ok = strcmp(r->log[i], want[i]) == 0;
    CHECK(ok, "%s: posted %d steps, the first '%s', wanted '%s' first", what, r->n,
          r->n ? r->log[0] : "", want[0]);
    if (!ok)
        for (int i = 0; i < r->n; i++)
            printf("    posted %d: %s%s%s\n", i, r->log[i], i < n ? ", wanted " : "",
                   i < n ? want[i] : "");
}

static unsigned char sbuf[1 << 16], rbuf[1 << 16];

static void test_small_sends_first(void)
{
    ic_plan_t pl;
    ic_plan_init(&pl, 0, 4, IC_COLL_ALLTOALL);
    size_t big = IC_EXEC_SEND_FIRST_MAX + 1, small = IC_EXEC_SEND_FIRST_MAX;
    /* Independent steps (disjoint bytes), in this program order. */
    ic_plan_recv(&pl, 1, 0, ic_loc(IC_BUF_RECV, 0), 8);
    ic_plan_send(&pl, 2, 0, ic_loc(IC_BUF_SEND, 0), big);
    ic_plan_send(&pl, 1, 0, ic_loc(IC_BUF_SEND, big), 8);
    ic_plan_recv(&pl, 3, 0, ic_loc(IC_BUF_RECV, 8), 0);
    ic_plan_send(&pl, 3, 0, ic_loc(IC_BUF_SEND, big + 8), small);
    rec_t r;
    run(&pl, &r, sbuf, rbuf);
    static const char *const want[] = {"send 1 8", "send 3 16384", "recv 1 8", "recv 3 0",
                                       "send 2 16385"};
    expect(&r, want, 5, "ready at the start");
}

static void test_dependent_send_waits(void)
{
    /* The dissemination barrier's shape: round 1's send waits for round
     * 0's receive; round 1's receive is ready at once. */
    ic_plan_t pl;
    ic_plan_init(&pl, 0, 4, IC_COLL_BARRIER);
    long s0 = ic_plan_send(&pl, 1, 0, ic_loc(IC_BUF_NONE, 0), 0);
    long r0 = ic_plan_recv(&pl, 3, 0, ic_loc(IC_BUF_NONE, 0), 0);
    long s1 = ic_plan_send(&pl, 2, 1, ic_loc(IC_BUF_NONE, 0), 0);
    ic_plan_add_dep(&pl, s1, r0);
    ic_plan_recv(&pl, 2, 1, ic_loc(IC_BUF_NONE, 0), 0);
    CHECK(s0 == 0 && r0 == 1 && s1 == 2, "step indices %ld %ld %ld", s0, r0, s1);
    rec_t r;
    run(&pl, &r, NULL, NULL);
    static const char *const want[] = {"send 1 0", "recv 3 0", "recv 2 0", "send 2 0"};
    expect(&r, want, 4, "barrier rounds");
}

static void test_read_receives(void)
{
    /* A reduction's shape: receives into scratch and into the receive
     * buffer, some read by a REDUCE that waits for them. */
    ic_plan_t pl;
    ic_plan_init(&pl, 0, 4, IC_COLL_REDUCE);
    pl.dtype = IC_FLOAT;
    pl.op = IC_SUM;
    CHECK(ic_plan_scratch(&pl, 64) == 0, "scratch not at offset 0"); /* the bytes below */
    long r1 = ic_plan_recv(&pl, 1, 0, ic_loc(IC_BUF_SCRATCH, 0), 16); /* a REDUCE's source */
    long r2 = ic_plan_recv(&pl, 2, 0, ic_loc(IC_BUF_RECV, 32), 16);   /* a REDUCE's destination */
    long r3 = ic_plan_recv(&pl, 3, 0, ic_loc(IC_BUF_SCRATCH, 16), 8); /* only copied */
    long r4 = ic_plan_recv(&pl, 1, 1, ic_loc(IC_BUF_SCRATCH, 32), 8); /* a REDUCE of other bytes */
    long r5 = ic_plan_recv(&pl, 2, 1, ic_loc(IC_BUF_SCRATCH, 44), 8); /* overlaps d4's end */
    long d1 = ic_plan_reduce(&pl, ic_loc(IC_BUF_SCRATCH, 0), ic_loc(IC_BUF_RECV, 0), 16, 0);
    ic_plan_add_dep(&pl, d1, r1);
    long d2 = ic_plan_reduce(&pl, ic_loc(IC_BUF_SEND, 0), ic_loc(IC_BUF_RECV, 32), 16, 0);
    ic_plan_add_dep(&pl, d2, r2);
    long c3 = ic_plan_copy(&pl, ic_loc(IC_BUF_SCRATCH, 16), ic_loc(IC_BUF_RECV, 48), 8);
    ic_plan_add_dep(&pl, c3, r3);
    long d4 = ic_plan_reduce(&pl, ic_loc(IC_BUF_SCRATCH, 40), ic_loc(IC_BUF_RECV, 56), 8, 0);
    ic_plan_add_dep(&pl, d4, r4);
    ic_plan_add_dep(&pl, d4, r5);
    CHECK(r1 >= 0 && r2 >= 0 && r3 >= 0 && r4 >= 0 && r5 >= 0 && d1 >= 0 && d2 >= 0 && c3 >= 0 &&
              d4 >= 0,
          "building the plan failed");
    rec_t r;
    run(&pl, &r, sbuf, rbuf);
    static const char *const want[] = {"read 1 16", "read 2 16", "recv 3 8", "recv 1 8",
                                       "read 2 8"};
    expect(&r, want, 5, "receives a reduction reads");
}

/* Which sends of a prepared plan carry IC_SEND_ONEWAY, as a bit per
 * step. */
static unsigned oneway_steps(ic_plan_t *pl)
{
    ic_exec_t x;
    memset(&x, 0, sizeof x);
    unsigned bits = 0;
    CHECK(ic_exec_prepare(&x, pl) == IC_OK, "prepare failed");
    for (size_t i = 0; i < x.plan.nsteps && i < 32; i++)
        if (x.plan.steps[i].flags & IC_SEND_ONEWAY)
            bits |= 1u << i;
    ic_exec_release(&x);
    return bits;
}

static void test_oneway_sends(void)
{
    /* A tree's inner member: receive, then forward, one send right after
     * the receive, one after a copy that waits for it. */
    ic_plan_t pl;
    ic_plan_init(&pl, 0, 4, IC_COLL_BCAST);
    long r0 = ic_plan_recv(&pl, 1, 0, ic_loc(IC_BUF_RECV, 0), 16);
    long s1 = ic_plan_send(&pl, 2, 0, ic_loc(IC_BUF_RECV, 0), 16);
    long c2 = ic_plan_copy(&pl, ic_loc(IC_BUF_RECV, 0), ic_loc(IC_BUF_RECV, 16), 16);
    long s3 = ic_plan_send(&pl, 3, 0, ic_loc(IC_BUF_RECV, 16), 16);
    CHECK(r0 == 0 && s1 == 1 && c2 == 2 && s3 == 3, "step indices %ld %ld %ld %ld", r0, s1, c2,
          s3);
    rec_t r;
    run(&pl, &r, sbuf, rbuf);
    static const char *const tree[] = {"recv 1 16", "oneway 2 16", "oneway 3 16"};
    expect(&r, tree, 3, "a tree member's forwards");

    /* A root: no receive at all. */
    ic_plan_init(&pl, 0, 4, IC_COLL_SCATTER);
    ic_plan_send(&pl, 1, 0, ic_loc(IC_BUF_SEND, 0), 8);
    ic_plan_send(&pl, 2, 0, ic_loc(IC_BUF_SEND, 8), 8);
    CHECK(oneway_steps(&pl) == 0x3u, "a root's sends are not both one-way");

    /* An exchange and a send that waits for one of two receives: none. */
    ic_plan_init(&pl, 0, 4, IC_COLL_ALLTOALL);
    ic_plan_send(&pl, 1, 0, ic_loc(IC_BUF_SEND, 0), 8);
    long ra = ic_plan_recv(&pl, 1, 0, ic_loc(IC_BUF_RECV, 0), 8);
    ic_plan_recv(&pl, 2, 0, ic_loc(IC_BUF_RECV, 8), 8);
    long sb = ic_plan_send(&pl, 3, 0, ic_loc(IC_BUF_RECV, 0), 8);
    ic_plan_add_dep(&pl, sb, ra);
    CHECK(oneway_steps(&pl) == 0, "an exchange's send or one before a receive marked one-way");

    /* 65 receives, and a send that waits for all of them: left unmarked;
     * with 64 it is marked. */
    for (int nrecv = 64; nrecv <= 65; nrecv++) {
        ic_plan_init(&pl, 0, 4, IC_COLL_GATHER);
        for (int k = 0; k < nrecv; k++)
            ic_plan_recv(&pl, 1 + k % 3, (uint32_t)k, ic_loc(IC_BUF_RECV, (size_t)k * 8), 8);
        long last = ic_plan_send(&pl, 1, 99, ic_loc(IC_BUF_RECV, 0), (size_t)nrecv * 8);
        for (int k = 0; k < nrecv; k++)
            ic_plan_add_dep(&pl, last, k);
        ic_exec_t x;
        memset(&x, 0, sizeof x);
        CHECK(last == nrecv && ic_exec_prepare(&x, &pl) == IC_OK, "prepare failed");
        bool marked = (x.plan.steps[nrecv].flags & IC_SEND_ONEWAY) != 0;
        CHECK(marked == (nrecv == 64), "%d receives: the send %s one-way", nrecv,
              marked ? "is" : "is not");
        ic_exec_release(&x);
    }
}

/* A local copy of 3 MiB while a send is in flight runs in 1 MiB pieces
 * with a transport call between them (exec.c's run_local): the busy kind,
 * ops->progress_busy, where the transport has it, so that shm leaves a
 * shared copy to the peer meanwhile; ops->progress otherwise. */
static void test_busy_progress(void)
{
    size_t big = (size_t)3 << 20;
    unsigned char *src = calloc(1, big + 8), *dst = calloc(1, big);
    CHECK(src && dst, "out of memory");
    if (!src || !dst) {
        free(src), free(dst);
        return;
    }
    for (int busy = 0; busy < 2; busy++) {
        ic_plan_t pl;
        ic_plan_init(&pl, 0, 4, IC_COLL_SCATTER);
        ic_plan_send(&pl, 1, 0, ic_loc(IC_BUF_SEND, big), 8);
        ic_plan_copy(&pl, ic_loc(IC_BUF_SEND, 0), ic_loc(IC_BUF_RECV, 0), big);
        src[big - 1] = (unsigned char)(busy + 1);
        rec_t r;
        run_on(busy ? &rec_busy_ops : &rec_ops, &pl, &r, src, dst);
        CHECK(dst[big - 1] == (unsigned char)(busy + 1), "the copy did not run");
        if (busy)
            CHECK(r.nbusy == 3 && r.nprogress == 0,
                  "with progress_busy: %d busy and %d ordinary calls between the pieces, "
                  "wanted 3 and 0", r.nbusy, r.nprogress);
        else
            CHECK(r.nprogress == 3, "without progress_busy: %d progress calls, wanted 3",
                  r.nprogress);
    }
    free(src);
    free(dst);
}

int main(void)
{
    test_small_sends_first();
    test_dependent_send_waits();
    test_read_receives();
    test_oneway_sends();
    test_busy_progress();
    printf("test_exec_order: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
