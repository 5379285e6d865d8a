/*
 * exec.c — the executor: one rank's plan on a transport (see exec.h).
 *
 * A run keeps, per step, the number of unmet dependencies.  Ready steps
 * sit on a stack; progress pops them: a SEND that the transport can put
 * on its way at once (ops->send_now: a small message with room in the
 * peer's queue), or a RECV whose message it holds ready (ops->recv_now),
 * completes there; any other SEND or RECV is posted to the
 * transport and joins the active list, which is tested on every progress
 * call; a COPY, REDUCE or JOIN waits on a second stack until
 * every ready message is posted, so that local work (a long copy or
 * reduction) never delays a message that could already be on its way.
 * Completing a step decrements its successors and pushes those that
 * became ready.  The steps ready at the start are stacked so that the
 * sends of at most IC_EXEC_SEND_FIRST_MAX bytes come off first, then the
 * receives, then the rest, each in program order (ic_exec_start).
 * Nothing is allocated per run.
 */
#include "plan/exec.h"

#include "base/dtype.h"
#include "base/status.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* True if [a, a + an) and [b, b + bn) share a byte of one buffer. */
static bool overlap(ic_loc_t a, size_t an, ic_loc_t b, size_t bn)
{
    return a.buf == b.buf && an > 0 && bn > 0 && a.off < b.off + bn && b.off < a.off + an;
}

/* Flags IC_RECV_READ on each receive that a REDUCE waiting for it reads
 * (as its source or its destination): the transport then keeps the copy
 * of a large message of up to IC_SHM_SHARE_READ_MIN bytes on this side
 * (shm_share.c).  Needs succ[] built. */
static void mark_read_receives(ic_exec_t *x)
{
    ic_step_t *s = x->plan.steps;
    for (size_t i = 0; i < x->plan.nsteps; i++) {
        if (s[i].kind != IC_STEP_RECV)
            continue;
        for (uint32_t k = x->succ_first[i]; k < x->succ_first[i + 1]; k++) {
            const ic_step_t *r = &s[x->succ[k]];
            if (r->kind == IC_STEP_REDUCE && (overlap(r->src, r->bytes, s[i].dst, s[i].bytes) ||
                                              overlap(r->dst, r->bytes, s[i].dst, s[i].bytes))) {
                s[i].flags |= IC_RECV_READ;
                break;
            }
        }
    }
}

/* Flags IC_SEND_ONEWAY on each send that waits, directly or through
 * other steps, for every receive of the plan (steps depend only on
 * earlier ones, so one pass carries each step's set of receives it waits
 * for, a bit per receive).  A plan of more than 64 receives is left
 * unmarked: its sends stay ordinary ones. */
static void mark_oneway_sends(ic_exec_t *x)
{
    ic_step_t *s = x->plan.steps;
    size_t n = x->plan.nsteps, nrecv = 0;
    for (size_t i = 0; i < n; i++)
        nrecv += s[i].kind == IC_STEP_RECV;
    uint64_t *waits = nrecv <= 64 ? malloc(sizeof(uint64_t) * (n + 1)) : NULL;
    if (!waits)
        return;
    uint64_t all = nrecv == 64 ? ~(uint64_t)0 : ((uint64_t)1 << nrecv) - 1;
    for (size_t i = 0, r = 0; i < n; i++) {
        uint64_t w = 0;
        for (uint32_t d = 0; d < s[i].ndeps; d++)
            w |= waits[x->plan.deps[s[i].dep_first + d]];
        if (s[i].kind == IC_STEP_RECV)
            w |= (uint64_t)1 << r++;
        else if (s[i].kind == IC_STEP_SEND && w == all)
            s[i].flags |= IC_SEND_ONEWAY;
        waits[i] = w;
    }
    free(waits);
}

ic_status_t ic_exec_prepare(ic_exec_t *x, ic_plan_t *plan)
{
    memset(x, 0, sizeof(*x));
    x->plan = *plan;
    memset(plan, 0, sizeof(*plan));
    size_t n = x->plan.nsteps;
    x->succ_first = calloc(n + 2, sizeof(uint32_t));
    x->succ = malloc(sizeof(uint32_t) * (x->plan.ndeps + 1));
    x->remaining = malloc(sizeof(uint32_t) * (n + 1));
    x->ready = malloc(sizeof(uint32_t) * (n + 1));
    x->local = malloc(sizeof(uint32_t) * (n + 1));
    x->active = malloc(sizeof(uint32_t) * (n + 1));
    x->req = malloc(sizeof(ic_tx_req_t) * (n + 1));
    x->start = malloc(sizeof(uint32_t) * (n + 1));
    x->deps0 = malloc(sizeof(uint32_t) * (n + 1));
    x->scratch = malloc(x->plan.scratch_bytes ? x->plan.scratch_bytes : 1);
    if (!x->succ_first || !x->succ || !x->remaining || !x->ready || !x->local || !x->active ||
        !x->req || !x->start || !x->deps0 || !x->scratch) {
        ic_exec_release(x);
        return ic_set_error(IC_ERR_NO_MEM, "out of memory preparing a plan");
    }
    const ic_step_t *s = x->plan.steps;
    for (size_t i = 0; i < n; i++)
        for (uint32_t d = 0; d < s[i].ndeps; d++)
            x->succ_first[x->plan.deps[s[i].dep_first + d] + 1]++;
    for (size_t i = 0; i < n; i++)
        x->succ_first[i + 1] += x->succ_first[i];
    /* remaining[] doubles as the fill cursor while building succ[]. */
    memset(x->remaining, 0, sizeof(uint32_t) * (n + 1));
    for (size_t i = 0; i < n; i++)
        for (uint32_t d = 0; d < s[i].ndeps; d++) {
            uint32_t b = x->plan.deps[s[i].dep_first + d];
            x->succ[x->succ_first[b] + x->remaining[b]++] = (uint32_t)i;
        }
    mark_read_receives(x);
    mark_oneway_sends(x);
    /* The run's initial state, copied by every ic_exec_start: each step's
     * unmet dependencies, and the steps ready at the start, stacked (the
     * last pass on top) so that small sends come off first, then the
     * receives, then the rest, each in program order.  A small message is
     * on its way before this rank spends a hundred-odd instructions per
     * receive it posts: the peer's wait is the critical path of an
     * exchange (2 ranks, loops of 8-byte calls: barrier 0.89, allreduce
     * 0.96 of the time, docs/perf/per-call-work.md).  The receives still
     * go before larger sends: a receive posted before the matching message
     * arrives is never buffered as unexpected, and a peer sees that this
     * rank receives before its large message comes (shm_share.c,
     * shm_rndv.c).  Posting order never changes what is sent or matched,
     * so ranks need not agree on it. */
    for (size_t i = 0; i < n; i++)
        x->deps0[i] = s[i].ndeps;
    x->nstart = 0;
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = n; i-- > 0;) {
            int kind = s[i].kind == IC_STEP_RECV                                           ? 1
                       : s[i].kind == IC_STEP_SEND && s[i].bytes <= IC_EXEC_SEND_FIRST_MAX ? 2
                                                                                           : 0;
            if (kind == pass && s[i].ndeps == 0)
                x->start[x->nstart++] = (uint32_t)i;
        }
    return IC_OK;
}

void ic_exec_cancel(ic_exec_t *x, ic_status_t st)
{
    if (!x->running)
        return;
    /* The step whose test failed is finished in the transport already;
     * cancel is a no-op for it. */
    for (size_t a = 0; a < x->nactive; a++)
        x->t->ops->cancel(x->t, &x->req[x->active[a]]);
    x->nactive = 0;
    x->nready = 0;
    x->nlocal = 0;
    x->status = st;
    x->running = 0;
}

void ic_exec_release(ic_exec_t *x)
{
    ic_exec_cancel(x, IC_ERR_INTERNAL);
    ic_plan_release(&x->plan);
    free(x->succ_first);
    free(x->succ);
    free(x->remaining);
    free(x->ready);
    free(x->local);
    free(x->active);
    free(x->req);
    free(x->start);
    free(x->deps0);
    free(x->scratch);
    memset(x, 0, sizeof(*x));
}

/* memcpy of n words, without the call for the one or two steps of most
 * small plans (a start copies two such arrays). */
static inline void copy_words(uint32_t *dst, const uint32_t *src, size_t n)
{
    if (n > 2) {
        memcpy(dst, src, sizeof(uint32_t) * n);
        return;
    }
    if (n > 0)
        dst[0] = src[0];
    if (n > 1)
        dst[1] = src[1];
}

void ic_exec_start(ic_exec_t *x, ic_transport_t *t, const int *world, uint64_t comm_id,
                   uint64_t seq, uint32_t sig, const void *sendbuf, void *recvbuf)
{
    x->t = t;
    x->world = world;
    x->key.comm = comm_id;
    x->key.seq = seq;
    x->key.tag = 0;
    x->key.sig = sig;
    x->buf[IC_BUF_NONE] = NULL;
    x->buf[IC_BUF_SEND] = (unsigned char *)sendbuf;
    x->buf[IC_BUF_RECV] = recvbuf;
    x->buf[IC_BUF_SCRATCH] = x->scratch;
    x->nready = x->nlocal = x->nactive = x->ndone = 0;
    x->status = IC_OK;
    x->running = 1;
    copy_words(x->remaining, x->deps0, x->plan.nsteps);
    copy_words(x->ready, x->start, x->nstart);
    x->nready = x->nstart;
}

static void complete(ic_exec_t *x, uint32_t i)
{
    x->ndone++;
    for (uint32_t k = x->succ_first[i]; k < x->succ_first[i + 1]; k++)
        if (--x->remaining[x->succ[k]] == 0)
            x->ready[x->nready++] = x->succ[k];
}

static unsigned char *addr(ic_exec_t *x, ic_loc_t l)
{
    return x->buf[l.buf] ? x->buf[l.buf] + l.off : NULL;
}

/* A long copy or reduction runs in pieces of about LOCAL_PIECE bytes with
 * a transport progress call between them while messages are in flight: a
 * streamed send (shm_rndv.c) moves only inside transport calls, so the
 * receiver would otherwise wait out the whole local step (a 2-rank scatter
 * of 64 MiB blocks copies the root's own block meanwhile).  The call is
 * ops->progress_busy where the transport has it: a copy that either end
 * may do (shm's shared single copy) is then left to the peer while this
 * core is busy, not done in between the pieces (docs/perf/copy.md). */
#define LOCAL_PIECE ((size_t)1 << 20)

static void run_local(ic_exec_t *x, const ic_step_t *s)
{
    unsigned char *src = addr(x, s->src), *dst = addr(x, s->dst);
    if (x->nactive == 0 || s->kind == IC_STEP_JOIN || s->bytes < 2 * LOCAL_PIECE) {
        ic_step_run_local(&x->plan, s, src, dst); /* the usual case: nothing to split */
        return;
    }
    size_t unit = s->kind == IC_STEP_REDUCE ? ic_datatype_size(x->plan.dtype) : 1;
    size_t piece = unit ? LOCAL_PIECE / unit * unit : 0;
    bool apart = src && dst && (dst + s->bytes <= src || src + s->bytes <= dst);
    if (piece == 0 || s->bytes < 2 * piece || !apart) {
        ic_step_run_local(&x->plan, s, src, dst);
        return;
    }
    ic_step_t part = *s;
    const ic_transport_ops_t *o = x->t->ops;
    for (size_t off = 0; off < s->bytes; off += piece) {
        part.bytes = s->bytes - off < piece ? s->bytes - off : piece;
        ic_step_run_local(&x->plan, &part, src + off, dst + off);
        /* An error shows in the next test.  The busy kind leaves a shared
         * copy's pieces to the peer while this core has local work. */
        (void)(o->progress_busy ? o->progress_busy : o->progress)(x->t);
    }
}

/* The transport's key and rank of step s's message. */
static ic_match_key_t step_key(const ic_exec_t *x, const ic_step_t *s, int *peer)
{
    ic_match_key_t key = x->key;
    key.tag = s->tag;
    *peer = x->world ? x->world[s->peer] : s->peer;
    return key;
}

static ic_status_t post(ic_exec_t *x, uint32_t i)
{
    const ic_step_t *s = &x->plan.steps[i];
    int peer;
    ic_match_key_t key = step_key(x, s, &peer);
    if (s->kind == IC_STEP_SEND)
        return ((s->flags & IC_SEND_ONEWAY) && x->t->ops->isend_oneway ? x->t->ops->isend_oneway
                                                                        : x->t->ops->isend)(
            x->t, peer, key, addr(x, s->src), s->bytes, &x->req[i]);
    if ((s->flags & IC_RECV_READ) && x->t->ops->irecv_read)
        return x->t->ops->irecv_read(x->t, peer, key, addr(x, s->dst), s->bytes, &x->req[i]);
    return x->t->ops->irecv(x->t, peer, key, addr(x, s->dst), s->bytes, &x->req[i]);
}

/* A SEND or RECV that the transport completes at once without a request:
 * a message it can put on its way now (ops->send_now: shm's eager
 * messages with room in the peer's queue), or one it holds ready
 * (ops->recv_now: shm's next eager message from that peer, of this key
 * and size).  False, having done nothing, otherwise: then it is posted. */
static bool done_now(ic_exec_t *x, const ic_step_t *s)
{
    const ic_transport_ops_t *o = x->t->ops;
    if (s->kind == IC_STEP_SEND ? !o->send_now : !o->recv_now)
        return false;
    int peer;
    ic_match_key_t key = step_key(x, s, &peer);
    if (s->kind == IC_STEP_SEND)
        return o->send_now(x->t, peer, key, addr(x, s->src), s->bytes,
                           (s->flags & IC_SEND_ONEWAY) != 0) != 0;
    return o->recv_now(x->t, peer, key, addr(x, s->dst), s->bytes) != 0;
}

ic_status_t ic_exec_progress(ic_exec_t *x, int *done)
{
    *done = 0;
    if (!x->running)
        return x->status;
    ic_status_t st = IC_OK;
    for (int moved = 1; moved && st == IC_OK;) {
        moved = 0;
        while ((x->nready > 0 || x->nlocal > 0) && st == IC_OK) {
            moved = 1;
            if (x->nready == 0) { /* every ready message is posted: local work */
                uint32_t i = x->local[--x->nlocal];
                run_local(x, &x->plan.steps[i]);
                complete(x, i);
                continue;
            }
            uint32_t i = x->ready[--x->nready];
            const ic_step_t *s = &x->plan.steps[i];
            if (s->kind != IC_STEP_SEND && s->kind != IC_STEP_RECV) {
                x->local[x->nlocal++] = i;
                continue;
            }
            if (done_now(x, s)) {
                complete(x, i);
                continue;
            }
            st = post(x, i);
            if (st == IC_OK)
                x->active[x->nactive++] = i;
        }
        for (size_t a = 0; a < x->nactive && st == IC_OK;) {
            int fin = 0;
            st = x->t->ops->test(x->t, &x->req[x->active[a]], &fin);
            if (st != IC_OK || !fin) {
                a++;
                continue;
            }
            uint32_t i = x->active[a];
            x->active[a] = x->active[--x->nactive];
            complete(x, i);
            moved = 1;
        }
    }
    if (st != IC_OK) {
        ic_exec_cancel(x, st);
        return st;
    }
    if (x->ndone == x->plan.nsteps) {
        x->running = 0;
        *done = 1;
    }
    return IC_OK;
}
