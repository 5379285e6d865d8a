/*
 * shm_transport.c — the shared-memory backend: its ops table, posting
 * sends and receives, test, liveness, abort, open and close.  Matching
 * and progress are in ic_shm_progress.c, the rendezvous in shm_rndv.c, the
 * queues in shm_queue.c, waiting in shm_wait.c, the segment in
 * shm_segment.c.
 *
 * Protocols.  A message of at most eager_max bytes (16 KiB for p <= 11,
 * 8 KiB up to p = 32; 32 KiB when the ranks outnumber the cores;
 * IC_SHM_EAGER_MAX; shm_segment.c), or a
 * one-way one (ops->isend_oneway) of at most oneway_max (4 KiB with single
 * copy and a core per rank; IC_SHM_ONEWAY_EAGER_MAX),
 * is copied inline into the pair's SPSC queue (shm_queue.h): the send
 * completes as soon as it is in the queue (or, if the queue is full,
 * once a later progress call has put it there).  A larger one goes by
 * rendezvous (shm_rndv.c): the queue carries only an RTS (key, size, the
 * sender's address, a transfer id) and the receiver pulls the data with
 * one process_vm_readv when it has matched the RTS, or, where that is not
 * permitted, the pair's bulk buffer pipelines it in chunks.
 *
 * Opening is collective: ic_shm_open returns once every rank of the job
 * has attached (the last one unlinks the name) and every rank has probed
 * whether it may read a peer's memory, so that all agree on the
 * protocol.  It fails with IC_ERR_PEER_FAILED if the launcher marks a
 * rank failed meanwhile, with IC_ERR_TIMEOUT after ATTACH_TIMEOUT_S.
 *
 * Requests live in the caller's ic_tx_req_t and are linked into the
 * instance's lists while in flight: the caller must not move or reuse
 * one before test has reported it done or failed.  An error that belongs
 * to one request (size mismatch, a failed copy, a dead peer) finishes
 * that request: test returns the error (with *done = 0) and the instance
 * no longer refers to the request.  Once any rank has failed or the job
 * was aborted, every request that has not completed fails with
 * IC_ERR_PEER_FAILED.  An instance is for one thread at a time: its
 * caller holds the guard (transport.h) around every op but wake.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "base/copy.h"
#include "base/status.h"
#include "transport/shm/shm_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define ATTACH_TIMEOUT_S 120.0
#define TEST_CHECK_EVERY 64u

static ic_status_t check_args(ic_transport_t *tt, int peer, const void *buf, size_t bytes,
                              ic_tx_req_t *req, const char *fn)
{
    if (!tt || !req)
        return ic_set_error(IC_ERR_ARG, "shm %s: transport or req is NULL", fn);
    if (peer < 0 || peer >= tt->size)
        return ic_set_error(IC_ERR_ARG, "shm %s: peer %d is not in 0..%d", fn, peer, tt->size - 1);
    if (!buf && bytes > 0)
        return ic_set_error(IC_ERR_BUFFER, "shm %s: buf is NULL for %zu bytes", fn, bytes);
    return IC_OK;
}

static shm_req_t *init_req(ic_tx_req_t *req, int kind, int peer, ic_match_key_t key, void *buf,
                           size_t bytes)
{
    shm_req_t *r = (shm_req_t *)(void *)req;
    memset(req, 0, sizeof(*req));
    r->magic = SHM_RQ_MAGIC;
    r->kind = (uint8_t)kind;
    r->peer = peer;
    r->key = key;
    r->buf = buf;
    r->bytes = bytes;
    r->ticket = -1;
    return r;
}

/* A send; eager_max: the largest message it sends inline (the segment's,
 * or a one-way send's lower one, ops->isend_oneway). */
static ic_status_t post_send(ic_transport_t *tt, int peer, ic_match_key_t key, const void *buf,
                             size_t bytes, ic_tx_req_t *req, uint32_t eager_max)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    ic_status_t st = check_args(tt, peer, buf, bytes, req, "isend");
    if (st != IC_OK)
        return st;
    shm_req_t *r = init_req(req, SHM_RQ_SEND, peer, key, (void *)(uintptr_t)buf, bytes);
    r->eager = bytes <= eager_max;
    shm_peer_t *P = &t->peers[peer];
    P->npending++;
    ic_shm_note_call(t, &key);
    const shm_notice_t *n = t->nnotices ? ic_shm_notice_find(t, &key) : NULL;
    if (n) { /* the call failed here already */
        ic_shm_complete(t, r, ic_shm_notice_error(n));
        return IC_OK;
    }
    if (!r->eager)
        r->xfer = t->next_xfer++;
    if (!P->backlog.head && P->nfins == 0 && ic_shm_push_send(t, r)) {
        ic_shm_ring_msg(t, peer);
        ic_shm_send_posted(t, r);
    } else {
        r->state = SHM_RQ_BACKLOG;
        shm_list_push(&P->backlog, r);
        t->nbacklog++;
    }
    return IC_OK;
}

static ic_status_t shm_isend(ic_transport_t *tt, int peer, ic_match_key_t key, const void *buf,
                             size_t bytes, ic_tx_req_t *req)
{
    return post_send(tt, peer, key, buf, bytes, req, ((shm_transport_t *)tt)->seg.hdr->eager_max);
}

/* A one-way message (transport.h): nothing of this rank waits on the peer
 * while it is on its way, so the second copy of an eager message is on
 * the call's critical path and a single copy pays from oneway_max on
 * (4 KiB, shm_segment.c). */
static ic_status_t shm_isend_oneway(ic_transport_t *tt, int peer, ic_match_key_t key,
                                    const void *buf, size_t bytes, ic_tx_req_t *req)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    return post_send(tt, peer, key, buf, bytes, req,
                     peer == t->base.rank ? t->seg.hdr->eager_max : t->oneway_max);
}

/* ops->send_now: an eager message (within isend's or, oneway, within
 * isend_oneway's limit) to another rank that nothing of this rank to that
 * peer precedes (no backlog, no FIN owed) and no notice of its call
 * covers goes into the peer's queue at once, as post_send would put it,
 * without a request.  Anything else: 0, nothing done. */
static int shm_send_now(ic_transport_t *tt, int peer, ic_match_key_t key, const void *buf,
                        size_t bytes, int oneway)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    if (!t || peer < 0 || peer >= tt->size || peer == tt->rank || (!buf && bytes > 0) ||
        bytes > (oneway ? t->oneway_max : t->seg.hdr->eager_max) || t->nnotices)
        return 0;
    shm_peer_t *P = &t->peers[peer];
    if (P->backlog.head || P->nfins != 0)
        return 0;
    if (!ic_shm_push_eager(t, peer, &key, buf, bytes))
        return 0;
    ic_shm_note_call(t, &key);
    ic_shm_ring_msg(t, peer);
    return 1;
}

/* ops->recv_now: the message of key from another rank, when it is the
 * next in that peer's queue, eager, of exactly bytes bytes and the right
 * signature, and no notice is held: copied into buf without a request, as
 * a posted receive would have it (messages buffered unexpected do not
 * matter: each key is sent once, so none of them is this one).  Anything
 * else: 0, nothing done. */
static int shm_recv_now(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                        size_t bytes)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    if (!t || peer < 0 || peer >= tt->size || peer == tt->rank || (!buf && bytes > 0) ||
        t->nnotices)
        return 0;
    if (!ic_shm_take_eager(t, peer, &key, buf, bytes))
        return 0;
    ic_shm_note_call(t, &key);
    return 1;
}

/* A receive; read_after: its bytes are read here next (ops->irecv_read),
 * which raises the size from which both ends share its copy. */
static ic_status_t post_recv(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                             size_t bytes, ic_tx_req_t *req, bool read_after)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    ic_status_t st = check_args(tt, peer, buf, bytes, req, "irecv");
    if (st != IC_OK)
        return st;
    shm_req_t *r = init_req(req, SHM_RQ_RECV, peer, key, buf, bytes);
    r->read_after = read_after;
    shm_peer_t *P = &t->peers[peer];
    P->npending++;
    if (t->nrecvs++ == 0)
        atomic_store_explicit(&t->seg.ranks[t->base.rank].receiving, 1u, memory_order_relaxed);
    ic_shm_note_call(t, &key);
    const shm_notice_t *n = t->nnotices ? ic_shm_notice_find(t, &key) : NULL;
    if (n) { /* the call failed here already */
        ic_shm_complete(t, r, ic_shm_notice_error(n));
        return IC_OK;
    }
    for (shm_ux_t *prev = NULL, *u = P->ux_head; u; prev = u, u = u->next) {
        if (!shm_key_eq(&u->key, &key))
            continue;
        if (prev)
            prev->next = u->next;
        else
            P->ux_head = u->next;
        if (P->ux_tail == u)
            P->ux_tail = prev;
        t->nux--;
        ic_shm_uxcall_remove(t, &u->key);
        ic_shm_ux_unheld(t, peer, u);
        if (u->key.sig != key.sig) {
            ic_shm_complete(t, r, ic_shm_sig_mismatch(r, u->key.sig));
            if (u->is_rts)
                ic_shm_send_fin(t, peer, u->rts.xfer, IC_ERR_MISMATCH);
        } else if (u->is_rts) {
            ic_shm_rndv_match(t, r, u->len, &u->rts);
        } else if (u->len != bytes) {
            ic_shm_complete(t, r, ic_shm_size_mismatch(r, u->len));
        } else {
            if (bytes > 0)
                ic_copy(buf, u->data, bytes);
            ic_shm_complete(t, r, IC_OK);
        }
        ic_shm_ux_release(t, u);
        return IC_OK;
    }
    r->state = SHM_RQ_POSTED;
    shm_list_push(&P->posted, r);
    return IC_OK;
}

static ic_status_t shm_irecv(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                             size_t bytes, ic_tx_req_t *req)
{
    return post_recv(tt, peer, key, buf, bytes, req, false);
}

static ic_status_t shm_irecv_read(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                                  size_t bytes, ic_tx_req_t *req)
{
    return post_recv(tt, peer, key, buf, bytes, req, true);
}

/* Takes r out of whatever list holds it and finishes it with st.  A
 * chunked transfer caught midway leaves the pair's bulk buffer in an
 * unknown state: the pair is marked broken, and later chunked transfers
 * on it fail (shm_rndv.c).  So does a streamed send withdrawn before its
 * grant was seen (the receiver may have granted it already and would wait
 * for chunks that never come); the pair's later large messages take
 * single copy instead (ic_shm_streams). */
void ic_shm_cancel(shm_transport_t *t, shm_req_t *r, ic_status_t st)
{
    shm_peer_t *P = &t->peers[r->peer];
    switch (r->state) {
    case SHM_RQ_POSTED:
        ic_shm_list_remove(&P->posted, r);
        break;
    case SHM_RQ_BACKLOG:
        if (ic_shm_list_remove(&P->backlog, r))
            t->nbacklog--;
        ic_shm_ticket_revoke(t, r);
        break;
    case SHM_RQ_RNDV:
        ic_shm_list_remove(&P->rndv, r);
        ic_shm_ticket_revoke(t, r); /* no peer reads the buffer after this */
        if (r->bulk && t->cma)
            ic_shm_rndv_break(t, t->base.rank, r->peer);
        break;
    case SHM_RQ_MATCHED:
        ic_shm_list_remove(&P->grants, r);
        break;
    case SHM_RQ_SHARED:
        ic_shm_share_cancel(t, r, st); /* nothing writes into r's buffer after this */
        break;
    case SHM_RQ_ACTIVE:
        if (r->kind == SHM_RQ_SEND) {
            P->active_send = NULL;
            ic_shm_rndv_break(t, t->base.rank, r->peer);
        } else {
            ic_shm_list_remove(&P->grants, r);
            ic_shm_rndv_break(t, r->peer, t->base.rank);
        }
        break;
    default:
        return;
    }
    ic_shm_complete(t, r, st);
}

static ic_status_t shm_cancel(ic_transport_t *tt, ic_tx_req_t *req)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    shm_req_t *r = (shm_req_t *)(void *)req;
    if (!t || !r || r->magic != SHM_RQ_MAGIC)
        return ic_set_error(IC_ERR_ARG, "shm cancel: NULL argument or a request never posted");
    ic_shm_cancel(t, r, IC_ERR_TRANSPORT);
    return IC_OK;
}

/* The status of a finished request; a request failed by a notice gets
 * the notice's message again (it may have been drained long before). */
static ic_status_t finished_status(const shm_transport_t *t, const shm_req_t *r)
{
    if (r->status == IC_ERR_PEER_REJECTED || r->status == IC_ERR_REVOKED ||
        r->status == IC_ERR_MISMATCH) {
        const shm_notice_t *n = ic_shm_notice_find(t, &r->key);
        if (n)
            return ic_shm_notice_error(n);
    }
    return r->status;
}

static ic_status_t shm_test(ic_transport_t *tt, ic_tx_req_t *req, int *done)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    shm_req_t *r = (shm_req_t *)(void *)req;
    if (!t || !r || !done || r->magic != SHM_RQ_MAGIC)
        return ic_set_error(IC_ERR_ARG, "shm test: NULL argument or a request never posted");
    *done = 0;
    if (r->state == SHM_RQ_DONE || r->state == SHM_RQ_ERROR) {
        *done = r->state == SHM_RQ_DONE;
        return finished_status(t, r);
    }
    ic_status_t st = ic_shm_progress(t, NULL);
    if (st != IC_OK)
        return st;
    if (r->state == SHM_RQ_DONE || r->state == SHM_RQ_ERROR) {
        *done = r->state == SHM_RQ_DONE;
        return finished_status(t, r);
    }
    /* A caller that only ever tests (never waits) still learns of a dead
     * peer: every TEST_CHECK_EVERY-th test of an unfinished request looks
     * (ic_shm_check_peer limits itself to one look per CHECK_MS; reading
     * the clock on every test would cost more than the test). */
    if (++t->tests_unfinished % TEST_CHECK_EVERY != 0)
        return IC_OK;
    st = ic_shm_check_peer_unread(t, r->peer);
    if (st != IC_OK)
        ic_shm_cancel(t, r, st);
    return st;
}

static ic_status_t shm_progress_op(ic_transport_t *tt)
{
    if (!tt)
        return ic_set_error(IC_ERR_ARG, "shm progress: transport is NULL");
    return ic_shm_progress((shm_transport_t *)tt, NULL);
}

/* ops->progress_busy: progress that takes no piece of a shared copy
 * (shm_share.c). */
static ic_status_t shm_progress_busy_op(ic_transport_t *tt)
{
    if (!tt)
        return ic_set_error(IC_ERR_ARG, "shm progress_busy: transport is NULL");
    shm_transport_t *t = (shm_transport_t *)tt;
    t->busy = true;
    ic_status_t st = ic_shm_progress(t, NULL);
    t->busy = false;
    return st;
}

static ic_status_t shm_peer_alive(ic_transport_t *tt, int peer)
{
    if (!tt || peer < 0 || peer >= tt->size)
        return ic_set_error(IC_ERR_ARG, "shm peer_alive: bad transport or peer %d", peer);
    return ic_shm_check_peer((shm_transport_t *)tt, peer, 1);
}

static ic_status_t shm_abort(ic_transport_t *tt, int code)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    if (!t)
        return ic_set_error(IC_ERR_ARG, "shm abort: transport is NULL");
    shm_hdr_t *h = t->seg.hdr;
    int none = -1;
    if (atomic_compare_exchange_strong(&h->abort_rank, &none, tt->rank))
        atomic_store(&h->abort_code, code);
    atomic_store(&h->job_failed, 1u);
    ic_shm_ring_all(&t->seg);
    return IC_OK;
}

static void free_instance(shm_transport_t *t)
{
    if (t->peers) {
        for (int i = 0; i < t->base.size; i++) {
            shm_ux_t *u = t->peers[i].ux_head;
            while (u) {
                shm_ux_t *n = u->next;
                free(u);
                u = n;
            }
            free(t->peers[i].fins);
            free(t->peers[i].notes);
            if (t->peers[i].pidfd >= 0)
                close(t->peers[i].pidfd);
        }
        free(t->peers);
    }
    free(t->notices);
    ic_shm_uxcalls_free(t);
    ic_shm_ux_free_all(t);
    ic_shm_seg_unmap(&t->seg);
    free(t);
}

static ic_status_t shm_close(ic_transport_t *tt)
{
    if (!tt)
        return ic_set_error(IC_ERR_ARG, "shm close: transport is NULL");
    shm_transport_t *t = (shm_transport_t *)tt;
    /* Sends still out (a failed job): no peer may read them any more. */
    for (int i = 0; i < tt->size; i++)
        for (shm_req_t *q = t->peers[i].rndv.head; q; q = q->next)
            ic_shm_ticket_revoke(t, q);
    free_instance(t);
    return IC_OK;
}

static const ic_transport_ops_t shm_ops = {
    .size = sizeof(ic_transport_ops_t),
    .name = "shm",
    .isend = shm_isend,
    .isend_oneway = shm_isend_oneway,
    .send_now = shm_send_now,
    .recv_now = shm_recv_now,
    .irecv = shm_irecv,
    .irecv_read = shm_irecv_read,
    .test = shm_test,
    .cancel = shm_cancel,
    .notify = ic_shm_notify_op,
    .learn = ic_shm_learn_op,
    .progress = shm_progress_op,
    .progress_busy = shm_progress_busy_op,
    .wait = ic_shm_op_wait,
    .wake = ic_shm_op_wake,
    .peer_alive = shm_peer_alive,
    .abort = shm_abort,
    .close = shm_close,
};

static uint64_t probe_value(uint64_t tag, int rank)
{
    return (tag ^ 0x9E3779B97F4A7C15ull) * (2 * (uint64_t)rank + 1);
}

static int no_cma_env(void)
{
    const char *v = getenv("IC_SHM_NO_CMA");
    return v && *v && strcmp(v, "0") != 0;
}

/* IC_SHM_EAGER_STREAM: unset, adaptive (shm_queue.h); 0 never; 1 always. */
static int eager_stream_env(void)
{
    const char *v = getenv("IC_SHM_EAGER_STREAM");
    if (!v || !*v)
        return SHM_Q_STREAM_AUTO;
    return strcmp(v, "0") == 0 ? SHM_Q_STREAM_NEVER : SHM_Q_STREAM_ALWAYS;
}

ic_status_t ic_shm_open(const char *name, int rank, int size, ic_transport_t **out)
{
    ic_status_t st;
    if (!name || !out)
        return ic_set_error(IC_ERR_ARG, "ic_shm_open: name or out is NULL");
    *out = NULL;
    if (size < 1 || size > SHM_MAX_RANKS || rank < 0 || rank >= size)
        return ic_set_error(IC_ERR_ARG, "ic_shm_open: rank %d / size %d out of range", rank, size);
    shm_transport_t *t = calloc(1, sizeof(*t));
    if (!t)
        return ic_set_error(IC_ERR_NO_MEM, "ic_shm_open: out of memory");
    t->base.ops = &shm_ops;
    t->base.rank = rank;
    t->base.size = size;
    t->share_per_call = ic_shm_share_pieces_per_call();
    t->next_xfer = 1;
    t->force_scan = 1;
    t->peers = calloc((size_t)size, sizeof(*t->peers));
    if (!t->peers) {
        st = ic_set_error(IC_ERR_NO_MEM, "ic_shm_open: out of memory");
        goto fail;
    }
    for (int j = 0; j < size; j++)
        t->peers[j].pidfd = -1;
    for (uint32_t k = 0; k < SHM_TICKETS; k++)
        t->free_tickets[t->nfree_tickets++] = (uint16_t)(SHM_TICKETS - 1 - k);
    st = ic_shm_seg_map(name, size, &t->seg);
    if (st != IC_OK)
        goto fail;
    /* Let the other ranks (siblings, not ancestors) read this process's
     * memory with process_vm_readv under Yama ptrace_scope = 1.  Without
     * Yama this fails with EINVAL, which is fine. */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    shm_hdr_t *h = t->seg.hdr;
    /* Whether the ranks outnumber the cores is the creator's finding (the
     * segment's layout depends on it), so every rank waits, streams and
     * prices the same way whatever its own IC_SHM_CORES says. */
    t->oversubscribed = h->crowded != 0;
    t->qpoll = size <= SHM_QPOLL_MAX;
    t->yield_ns = ic_shm_yield_ns(t->oversubscribed);
    t->flood_hold_ns = SHM_FLOOD_HOLD_NS;
    t->stream_min = ic_shm_stream_min(t->oversubscribed);
    t->stream_xchg_min = ic_shm_stream_xchg_min(t->stream_min);
    t->probe_word = probe_value(h->tag, rank);
    st = ic_shm_seg_register(&t->seg, name, rank, &t->probe_word);
    if (st != IC_OK)
        goto fail;
    ic_shm_seg_prefault(&t->seg, rank);
    st = ic_shm_wait_count(&t->seg, rank, &h->nattached, (unsigned)size, ATTACH_TIMEOUT_S);
    if (st != IC_OK)
        goto fail;
    /* Single-copy probe: read a known word of the next rank.  Every rank
     * must use the same protocol, so the results are ANDed. */
    int q = (rank + 1) % size;
    pid_t qpid = (pid_t)atomic_load(&t->seg.ranks[q].pid);
    uint64_t qaddr = atomic_load(&t->seg.ranks[q].probe_addr);
    unsigned ok = !no_cma_env() && ic_shm_rndv_probe(qpid, qaddr, probe_value(h->tag, q));
    atomic_fetch_and(&h->cma_ok, ok);
    atomic_fetch_add(&h->nprobed, 1u);
    ic_shm_ring_all(&t->seg);
    st = ic_shm_wait_count(&t->seg, rank, &h->nprobed, (unsigned)size, ATTACH_TIMEOUT_S);
    if (st != IC_OK)
        goto fail;
    t->cma = atomic_load(&h->cma_ok) != 0;
    t->cma_dear = t->cma && h->cma_extra_ns >= SHM_CMA_DEAR_NS; /* the creator's figure */
    t->share_min = ic_shm_share_min(t->cma_dear != 0);
    t->share_read_min = ic_shm_share_read_min(t->share_min, t->oversubscribed);
    t->stream_oneway_min = ic_shm_stream_oneway_min(t->stream_min, t->cma != 0, h->cma_large_x100);
    t->oneway_max = t->cma && !t->oversubscribed ? h->oneway_max : h->eager_max;
    for (int j = 0; j < size; j++) /* every pid is in the segment now */
        if (j != rank)
            t->peers[j].pidfd = ic_shm_pidfd_open((pid_t)atomic_load(&t->seg.ranks[j].pid));
    int eager_stream = eager_stream_env();
    for (int j = 0; j < size; j++) {
        ic_shm_q_attach(&t->peers[j].out, shm_seg_queue(&t->seg, rank, j), h->ncells, 1);
        ic_shm_q_attach(&t->peers[j].in, shm_seg_queue(&t->seg, j, rank), h->ncells, 0);
        t->peers[j].out.stream_mode = eager_stream;
    }
    /* For the cost model, only when every rank has a core of its own: the
     * eager limit is the segment's; the shared copy (shm_share.c) needs
     * single copy too.  With more ranks than cores a step costs a turn of
     * the scheduler, which no protocol term describes: priced with the
     * rendezvous there, choices moved to more steps of eager messages and
     * got slower (docs/perf/transport-model.md), so the papers' model
     * stays. */
    if (!t->oversubscribed) {
        t->base.rndv_bytes = (double)h->eager_max;
        t->base.rndv_oneway_bytes = (double)t->oneway_max;
        t->base.share_bytes = t->cma ? (double)t->share_min : 0;
    } else { /* pipelines are priced and cut for this many (model.h) */
        t->base.cores = (double)h->cores; /* the creator's count: every rank prices alike */
    }
    *out = &t->base;
    return IC_OK;
fail:
    free_instance(t);
    return st;
}

int ic_shm_single_copy(const ic_transport_t *t)
{
    return t && t->ops == &shm_ops ? ((const shm_transport_t *)t)->cma : 0;
}
