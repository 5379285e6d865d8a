/*
 * route.c — the routing transport (route.h): per peer, the local backend
 * (shm) or the remote one (MPI).  A request is posted on the backend its
 * peer belongs to, which uses the first IC_TX_REQ_BACKEND_WORDS words of
 * it; the last word says which backend, for test and cancel.
 *
 * Waiting with both backends in use: the remote one has no doorbell the
 * local one could sleep on.  A wait polls both, yielding the CPU between
 * polls, until either reports an event (ic_transport_t.events) or
 * YIELD_S passed; after that it polls the remote backend and lets the
 * local one sleep for at most SLICE_S (it returns at once when a local
 * peer rings); the core calls wait again until its request is done.
 * With one backend in use, its own wait is used whole.
 */
#include "transport/route/route.h"

#include "base/status.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLICE_S 50e-6
#define YIELD_S 2e-3
enum { VIA_LOCAL = 1, VIA_REMOTE = 2 };
#define ROUTE_WORD (IC_TX_REQ_BACKEND_WORDS)
_Static_assert(ROUTE_WORD < sizeof(((ic_tx_req_t *)0)->opaque) / sizeof(uint64_t),
               "the routing word is inside ic_tx_req_t");

typedef struct route {
    ic_transport_t base;
    ic_transport_t *local, *remote;
    int *local_rank; /* per peer: its rank in local, or -1 */
    int *job_rank;   /* per rank of local: its routing rank (local->job_rank) */
    int nlocal, nremote;
} route_t;

static const ic_transport_ops_t route_ops;

/* The backend of peer (and its rank there); the guard is passed down. */
static ic_transport_t *via(route_t *t, int peer, int *sub_peer, int *which)
{
    if (t->local_rank[peer] >= 0) {
        *sub_peer = t->local_rank[peer];
        *which = VIA_LOCAL;
        t->local->guard = t->base.guard;
        return t->local;
    }
    *sub_peer = peer;
    *which = VIA_REMOTE;
    t->remote->guard = t->base.guard;
    return t->remote;
}

static ic_status_t check_peer(const ic_transport_t *tt, int peer, const void *req, const char *fn)
{
    if (!tt || !req)
        return ic_set_error(IC_ERR_ARG, "route %s: transport or req is NULL", fn);
    if (peer < 0 || peer >= tt->size)
        return ic_set_error(IC_ERR_ARG, "route %s: peer %d is not in 0..%d", fn, peer,
                            tt->size - 1);
    return IC_OK;
}

/* A send on the backend that reaches peer; oneway: by its isend_oneway
 * where it has one (transport.h). */
static ic_status_t post_send(ic_transport_t *tt, int peer, ic_match_key_t key, const void *buf,
                             size_t bytes, ic_tx_req_t *req, bool oneway)
{
    ic_status_t st = check_peer(tt, peer, req, "isend");
    if (st != IC_OK)
        return st;
    int sp, which;
    ic_transport_t *s = via((route_t *)tt, peer, &sp, &which);
    st = oneway && s->ops->isend_oneway ? s->ops->isend_oneway(s, sp, key, buf, bytes, req)
                                        : s->ops->isend(s, sp, key, buf, bytes, req);
    req->opaque[ROUTE_WORD] = (uint64_t)which;
    return st;
}

static ic_status_t op_isend(ic_transport_t *tt, int peer, ic_match_key_t key, const void *buf,
                            size_t bytes, ic_tx_req_t *req)
{
    return post_send(tt, peer, key, buf, bytes, req, false);
}

static ic_status_t op_isend_oneway(ic_transport_t *tt, int peer, ic_match_key_t key,
                                   const void *buf, size_t bytes, ic_tx_req_t *req)
{
    return post_send(tt, peer, key, buf, bytes, req, true);
}

/* ops->send_now on the backend that reaches peer, where it has one. */
static int op_send_now(ic_transport_t *tt, int peer, ic_match_key_t key, const void *buf,
                       size_t bytes, int oneway)
{
    if (!tt || peer < 0 || peer >= tt->size)
        return 0;
    int sp, which;
    ic_transport_t *s = via((route_t *)tt, peer, &sp, &which);
    return s->ops->send_now ? s->ops->send_now(s, sp, key, buf, bytes, oneway) : 0;
}

/* ops->recv_now on the backend that reaches peer, where it has one. */
static int op_recv_now(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                       size_t bytes)
{
    if (!tt || peer < 0 || peer >= tt->size)
        return 0;
    int sp, which;
    ic_transport_t *s = via((route_t *)tt, peer, &sp, &which);
    return s->ops->recv_now ? s->ops->recv_now(s, sp, key, buf, bytes) : 0;
}

/* A receive on the backend that reaches peer; read: by its irecv_read
 * where it has one (transport.h). */
static ic_status_t post_recv(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                             size_t bytes, ic_tx_req_t *req, bool read)
{
    ic_status_t st = check_peer(tt, peer, req, "irecv");
    if (st != IC_OK)
        return st;
    int sp, which;
    ic_transport_t *s = via((route_t *)tt, peer, &sp, &which);
    st = read && s->ops->irecv_read ? s->ops->irecv_read(s, sp, key, buf, bytes, req)
                                    : s->ops->irecv(s, sp, key, buf, bytes, req);
    req->opaque[ROUTE_WORD] = (uint64_t)which;
    return st;
}

static ic_status_t op_irecv(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                            size_t bytes, ic_tx_req_t *req)
{
    return post_recv(tt, peer, key, buf, bytes, req, false);
}

static ic_status_t op_irecv_read(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                                 size_t bytes, ic_tx_req_t *req)
{
    return post_recv(tt, peer, key, buf, bytes, req, true);
}

/* The backend a posted request belongs to, or NULL. */
static ic_transport_t *owner(route_t *t, const ic_tx_req_t *req)
{
    ic_transport_t *s = NULL;
    if (req->opaque[ROUTE_WORD] == VIA_LOCAL)
        s = t->local;
    else if (req->opaque[ROUTE_WORD] == VIA_REMOTE)
        s = t->remote;
    if (s)
        s->guard = t->base.guard;
    return s;
}

/* Before a request of one backend is tested, the other one is moved
 * along: a notice or a stray message that reached this rank through the
 * other backend before the request's last message (say a mismatch found
 * on shm while the call's data comes over MPI) then usually fails the
 * call here instead of the next one (docs/mpi.md). */
static ic_status_t op_test(ic_transport_t *tt, ic_tx_req_t *req, int *done)
{
    route_t *t = (route_t *)tt;
    ic_transport_t *s = t && req ? owner(t, req) : NULL;
    if (!s)
        return ic_set_error(IC_ERR_ARG, "route test: not a request of this transport");
    ic_transport_t *other = s == t->local ? t->remote : t->local;
    if (other && t->nlocal > 0 && t->nremote > 0) {
        other->guard = tt->guard;
        ic_status_t st = other->ops->progress(other);
        if (st != IC_OK)
            return st;
    }
    return s->ops->test(s, req, done);
}

static ic_status_t op_cancel(ic_transport_t *tt, ic_tx_req_t *req)
{
    route_t *t = (route_t *)tt;
    ic_transport_t *s = t && req ? owner(t, req) : NULL;
    if (!s)
        return ic_set_error(IC_ERR_ARG, "route cancel: not a request of this transport");
    return s->ops->cancel(s, req);
}

static ic_status_t op_notify(ic_transport_t *tt, int peer, ic_match_key_t key, int scope,
                             ic_status_t status, const char *text)
{
    ic_status_t st = check_peer(tt, peer, tt, "notify");
    if (st != IC_OK)
        return st;
    int sp, which;
    ic_transport_t *s = via((route_t *)tt, peer, &sp, &which);
    return s->ops->notify(s, sp, key, scope, status, text);
}

static ic_status_t op_learn(ic_transport_t *tt, const ic_notice_t *n)
{
    route_t *t = (route_t *)tt;
    ic_status_t st = IC_OK;
    if (t->local)
        st = t->local->ops->learn(t->local, n);
    if (t->remote && st == IC_OK)
        st = t->remote->ops->learn(t->remote, n);
    return st;
}

/* A backend recorded a notice: the calls it covers fail on the other
 * backend too (a notice fails every request of those calls, whatever
 * peer they are with). */
static void forward_notice(void *ctx, ic_transport_t *from_t, const ic_notice_t *n)
{
    route_t *t = ctx;
    ic_transport_t *other = from_t == t->local ? t->remote : t->local;
    if (other)
        other->ops->learn(other, n); /* n->from is a job rank already */
}

/* The progress of s, the busy kind (ops->progress_busy) where busy is
 * set and s has it. */
static ic_status_t backend_progress(ic_transport_t *s, bool busy)
{
    return busy && s->ops->progress_busy ? s->ops->progress_busy(s) : s->ops->progress(s);
}

static ic_status_t route_progress(ic_transport_t *tt, bool busy)
{
    route_t *t = (route_t *)tt;
    ic_status_t st = IC_OK;
    if (t->remote) {
        t->remote->guard = tt->guard;
        st = backend_progress(t->remote, busy);
    }
    if (t->local && st == IC_OK) {
        t->local->guard = tt->guard;
        st = backend_progress(t->local, busy);
    }
    return st;
}

static ic_status_t op_progress(ic_transport_t *tt)
{
    return route_progress(tt, false);
}

static ic_status_t op_progress_busy(ic_transport_t *tt)
{
    return route_progress(tt, true);
}

static ic_status_t op_wait(ic_transport_t *tt, double timeout_s)
{
    route_t *t = (route_t *)tt;
    if (t->local) {
        t->local->guard = tt->guard;
        if (t->nremote == 0)
            return t->local->ops->wait(t->local, timeout_s);
    }
    t->remote->guard = tt->guard;
    if (!t->local || t->nlocal == 0)
        return t->remote->ops->wait(t->remote, timeout_s);
    uint64_t e0 = t->local->events + t->remote->events;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        ic_status_t st = t->remote->ops->wait(t->remote, 0); /* a poll */
        if (st == IC_OK)
            st = t->local->ops->wait(t->local, 0);
        if (st != IC_OK || t->local->events + t->remote->events != e0)
            return st;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double waited = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (!(waited < timeout_s))
            return IC_OK;
        if (waited >= YIELD_S)
            break;
        ic_tx_guard_release(tt);
        sched_yield();
        ic_tx_guard_take(tt);
    }
    return t->local->ops->wait(t->local, timeout_s < SLICE_S ? timeout_s : SLICE_S);
}

static void op_wake(ic_transport_t *tt)
{
    route_t *t = (route_t *)tt;
    if (t->local)
        t->local->ops->wake(t->local);
    if (t->remote)
        t->remote->ops->wake(t->remote);
}

static ic_status_t op_peer_alive(ic_transport_t *tt, int peer)
{
    ic_status_t st = check_peer(tt, peer, tt, "peer_alive");
    if (st != IC_OK)
        return st;
    int sp, which;
    ic_transport_t *s = via((route_t *)tt, peer, &sp, &which);
    return s->ops->peer_alive(s, sp);
}

static ic_status_t op_abort(ic_transport_t *tt, int code)
{
    route_t *t = (route_t *)tt;
    if (t->local) /* the host's peers see it at once */
        t->local->ops->abort(t->local, code);
    if (t->remote)
        t->remote->ops->abort(t->remote, code);
    return IC_OK;
}

static ic_status_t op_close(ic_transport_t *tt)
{
    route_t *t = (route_t *)tt;
    if (!t)
        return IC_OK;
    ic_status_t st = IC_OK, s2 = IC_OK;
    if (t->local) {
        t->local->guard = tt->guard;
        st = t->local->ops->close(t->local);
    }
    if (t->remote) {
        t->remote->guard = tt->guard;
        s2 = t->remote->ops->close(t->remote);
    }
    free(t->local_rank);
    free(t->job_rank);
    free(t);
    return st != IC_OK ? st : s2;
}

static const ic_transport_ops_t route_ops = {
    .size = sizeof(ic_transport_ops_t),
    .name = "route",
    .isend = op_isend,
    .isend_oneway = op_isend_oneway,
    .send_now = op_send_now,
    .recv_now = op_recv_now,
    .irecv = op_irecv,
    .irecv_read = op_irecv_read,
    .test = op_test,
    .cancel = op_cancel,
    .notify = op_notify,
    .learn = op_learn,
    .progress = op_progress,
    .progress_busy = op_progress_busy,
    .wait = op_wait,
    .wake = op_wake,
    .peer_alive = op_peer_alive,
    .abort = op_abort,
    .close = op_close,
};

ic_status_t ic_route_open(int rank, int size, ic_transport_t *local, const int *local_rank,
                          ic_transport_t *remote, ic_transport_t **out)
{
    if (!out || !local_rank || size < 1 || rank < 0 || rank >= size)
        return ic_set_error(IC_ERR_ARG, "ic_route_open: bad arguments (rank %d, size %d)", rank,
                            size);
    int nlocal = 0, nremote = 0;
    for (int i = 0; i < size; i++) {
        if (i == rank)
            continue;
        if (local_rank[i] >= 0)
            nlocal++;
        else
            nremote++;
    }
    if ((nlocal > 0 || local_rank[rank] >= 0) && !local)
        return ic_set_error(IC_ERR_ARG, "ic_route_open: peers on this host but no local backend");
    if (nremote > 0 && !remote)
        return ic_set_error(IC_ERR_ARG, "ic_route_open: peers elsewhere but no remote backend");
    if (local_rank[rank] < 0 && !remote)
        return ic_set_error(IC_ERR_ARG, "ic_route_open: no backend reaches this rank itself");
    route_t *t = calloc(1, sizeof *t);
    int *lr = malloc(sizeof(int) * (size_t)size);
    if (!t || !lr) {
        free(t);
        free(lr);
        return ic_set_error(IC_ERR_NO_MEM, "ic_route_open: out of memory");
    }
    memcpy(lr, local_rank, sizeof(int) * (size_t)size);
    t->base.ops = &route_ops;
    t->base.rank = rank;
    t->base.size = size;
    t->local = local;
    t->remote = remote;
    t->local_rank = lr;
    t->nlocal = nlocal;
    t->nremote = nremote;
    if (local && nremote == 0) { /* every peer on this host: its protocols */
        t->base.rndv_bytes = local->rndv_bytes;
        t->base.rndv_oneway_bytes = local->rndv_oneway_bytes;
        t->base.share_bytes = local->share_bytes;
        t->base.cores = local->cores;
    }
    if (local) {
        local->on_notice = forward_notice;
        local->on_notice_ctx = t;
        t->job_rank = malloc(sizeof(int) * (size_t)local->size);
        if (t->job_rank) {
            for (int i = 0; i < size; i++)
                if (lr[i] >= 0 && lr[i] < local->size)
                    t->job_rank[lr[i]] = i;
            local->job_rank = t->job_rank;
        }
    }
    if (remote) {
        remote->on_notice = forward_notice;
        remote->on_notice_ctx = t;
    }
    *out = &t->base;
    return IC_OK;
}

void ic_route_counts(const ic_transport_t *tt, int *nlocal, int *nremote)
{
    if (tt && tt->ops == &route_ops) {
        const route_t *t = (const route_t *)tt;
        *nlocal = t->nlocal;
        *nremote = t->nremote;
    } else {
        *nlocal = tt ? tt->size - 1 : 0;
        *nremote = 0;
    }
}
