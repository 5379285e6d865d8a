/*
 * mpi_transport.c — the MPI backend (mpi_transport.h).
 *
 * This file: the ops table, open and close, waiting; sending, matching
 * and progress are in mpi_progress.c, notices and stray messages in
 * mpi_notice.c.
 *
 * Wire protocol, on a private duplicate of the user's communicator with
 * MPI_ERRORS_RETURN:
 *
 *   tag 1 (CTL)  every message starts with an mpi_hdr_t: the key (comm,
 *                seq, step tag, signature) and a type:
 *                  EAGER   header + payload (at most eager_max bytes);
 *                  RTS     header only: the payload follows on tag rtag;
 *                  NACK    the receiver of an RTS refuses it (size or
 *                          signature mismatch, notice): the sender stops;
 *                  NOTICE  header + text (ops->notify).
 *   tag rtag     the payload of one RTS, in parts of at most 1 GiB (MPI
 *                counts are int), each a plain MPI_Isend / MPI_Irecv of
 *                MPI_BYTE.  The sender picks rtag from a counter in
 *                [2, MPI_TAG_UB]; MPI keeps messages of one (source, tag)
 *                in order, so the parts cannot be confused.
 *
 * Matching is the transport's own (transport.h: by peer and key, in any
 * order): progress drains every CTL message with MPI_Improbe/MPI_Mrecv
 * and matches it against the posted receives, or keeps it as unexpected.
 * An eager send is copied into a bounce buffer and completes at once; an
 * RTS send completes when MPI completes its payload sends.
 *
 * Failures.  Any MPI error fails the request with IC_ERR_PEER_FAILED and
 * the MPI error string (MPI reports a dead peer this way where it can;
 * usually mpirun ends the job first).  Notices fail every request of the
 * calls they name, posted now or later, as on shm (shm_notice.c); the
 * routing layer passes them on to the shm side (base.on_notice,
 * ops->learn).  As on shm, each rank remembers the (comm, seq, signature)
 * of its last IC_CALLS_KEPT calls: a message of such a call with another
 * signature, arriving before or after the call was posted, fails that
 * call and the later ones of the communicator with IC_ERR_MISMATCH.
 * Waiting polls MPI with short sleeps; the core's IC_TIMEOUT bounds a
 * wait for a peer that hangs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "transport/mpi/mpi_internal.h"

#include "base/status.h"

#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- ops -------------------------------------------------------------- */

static ic_status_t check_args(ic_transport_t *tt, int peer, const void *buf, size_t bytes,
                              ic_tx_req_t *req, const char *fn)
{
    if (!tt || !req)
        return ic_set_error(IC_ERR_ARG, "mpi %s: transport or req is NULL", fn);
    if (peer < 0 || peer >= tt->size)
        return ic_set_error(IC_ERR_ARG, "mpi %s: peer %d is not in 0..%d", fn, peer, tt->size - 1);
    if (!buf && bytes > 0)
        return ic_set_error(IC_ERR_BUFFER, "mpi %s: buf is NULL for %zu bytes", fn, bytes);
    return IC_OK;
}

static mpi_req_t *init_req(ic_tx_req_t *req, int kind, int peer, ic_match_key_t key, void *buf,
                           size_t bytes)
{
    mpi_req_t *r = (mpi_req_t *)(void *)req;
    memset(r, 0, sizeof *r);
    r->magic = RQ_MAGIC;
    r->kind = (uint8_t)kind;
    r->peer = peer;
    r->key = key;
    r->buf = buf;
    r->bytes = bytes;
    return r;
}

static ic_status_t op_isend(ic_transport_t *tt, int peer, ic_match_key_t key, const void *buf,
                            size_t bytes, ic_tx_req_t *req)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    ic_status_t st = check_args(tt, peer, buf, bytes, req, "isend");
    if (st != IC_OK)
        return st;
    mpi_req_t *r = init_req(req, RQ_SEND, peer, key, (void *)(uintptr_t)buf, bytes);
    ic_mpi_note_call(t, &key);
    const mpi_notice_t *n = ic_mpi_notice_find(t, &key);
    if (n) {
        finish(r, ic_notice_error(n));
        return IC_OK;
    }
    mpi_hdr_t h;
    memset(&h, 0, sizeof h);
    h.comm = key.comm;
    h.seq = key.seq;
    h.tag = key.tag;
    h.sig = key.sig;
    h.bytes = bytes;
    if (bytes <= t->eager_max) {
        h.type = MSG_EAGER;
        st = ic_mpi_send_copy(t, peer, &h, buf, bytes);
        finish(r, st);
        return IC_OK;
    }
    h.type = MSG_RTS;
    h.rtag = t->next_rtag;
    t->next_rtag = t->next_rtag >= t->tag_ub ? RTAG_FIRST : t->next_rtag + 1;
    r->rtag = h.rtag;
    st = ic_mpi_send_copy(t, peer, &h, NULL, 0);
    if (st == IC_OK)
        st = ic_mpi_post_part(t, r);
    if (st != IC_OK)
        finish(r, st);
    return IC_OK;
}

static ic_status_t op_irecv(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                            size_t bytes, ic_tx_req_t *req)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    ic_status_t st = check_args(tt, peer, buf, bytes, req, "irecv");
    if (st != IC_OK)
        return st;
    mpi_req_t *r = init_req(req, RQ_RECV, peer, key, buf, bytes);
    ic_mpi_note_call(t, &key);
    const mpi_notice_t *n = ic_mpi_notice_find(t, &key);
    if (n) {
        finish(r, ic_notice_error(n));
        return IC_OK;
    }
    for (mpi_ux_t **p = &t->ux; *p; p = &(*p)->next) {
        mpi_ux_t *u = *p;
        if (u->peer == peer && same_key(&key, &u->h)) {
            *p = u->next;
            if (t->ux_tail == &u->next)
                t->ux_tail = p;
            ic_mpi_deliver(t, r, &u->h, u->data);
            free(u);
            return IC_OK;
        }
    }
    r->state = RQ_POSTED;
    /* Appended, so that receives of one key match in posting order. */
    mpi_req_t **tail = &t->posted;
    while (*tail)
        tail = &(*tail)->next;
    *tail = r;
    return IC_OK;
}

static ic_status_t op_test(ic_transport_t *tt, ic_tx_req_t *req, int *done)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    mpi_req_t *r = (mpi_req_t *)(void *)req;
    if (!t || !r || !done || r->magic != RQ_MAGIC)
        return ic_set_error(IC_ERR_ARG, "mpi test: not a request of this transport");
    *done = 0;
    if (r->state == RQ_POSTED || r->state == RQ_XFER) {
        int ev = 0;
        ic_status_t st = ic_mpi_progress(t, &ev);
        if (st != IC_OK)
            return st;
    }
    if (r->state == RQ_DONE) {
        *done = 1;
        return IC_OK;
    }
    if (r->state == RQ_ERROR) {
        r->magic = 0; /* reported once; no longer a live request */
        const mpi_notice_t *n = ic_mpi_notice_find(t, &r->key);
        if (n)
            return ic_notice_error(n);
        return ic_set_error((ic_status_t)r->status, "%s", ic_last_error());
    }
    return IC_OK;
}

static ic_status_t op_cancel(ic_transport_t *tt, ic_tx_req_t *req)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    mpi_req_t *r = (mpi_req_t *)(void *)req;
    if (!t || !r)
        return ic_set_error(IC_ERR_ARG, "mpi cancel: transport or req is NULL");
    if (r->state == RQ_POSTED) {
        list_remove(&t->posted, r);
    } else if (r->state == RQ_XFER) {
        list_remove(&t->xfer, r);
        ic_mpi_drop_part(r);
    }
    if (r->state == RQ_POSTED || r->state == RQ_XFER)
        finish(r, IC_ERR_REVOKED);
    return IC_OK;
}

static ic_status_t op_notify(ic_transport_t *tt, int peer, ic_match_key_t key, int scope,
                             ic_status_t status, const char *text)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    if (!t || peer < 0 || peer >= tt->size || peer == tt->rank ||
        (scope != IC_NOTICE_CALL && scope != IC_NOTICE_COMM))
        return ic_set_error(IC_ERR_ARG, "mpi notify: bad transport, peer %d or scope %d", peer,
                            scope);
    char msg[IC_NOTICE_TEXT_MAX];
    snprintf(msg, sizeof msg, "%s", text ? text : "");
    mpi_hdr_t h;
    memset(&h, 0, sizeof h);
    h.type = MSG_NOTICE;
    h.comm = key.comm;
    h.seq = key.seq;
    h.scope = scope;
    h.status = status;
    h.bytes = strlen(msg) + 1;
    return ic_mpi_send_copy(t, peer, &h, msg, (size_t)h.bytes);
}

static ic_status_t op_learn(ic_transport_t *tt, const ic_notice_t *n)
{
    if (!tt || !n || (n->scope != IC_NOTICE_CALL && n->scope != IC_NOTICE_COMM))
        return ic_set_error(IC_ERR_ARG, "mpi learn: bad transport or notice");
    return ic_mpi_record_notice((mpi_transport_t *)tt, n);
}

static ic_status_t op_progress(ic_transport_t *tt)
{
    int ev = 0;
    return ic_mpi_progress((mpi_transport_t *)tt, &ev);
}

/* Polls for about 20 us, then yields the CPU between polls up to
 * YIELD_S (other ranks on this core run meanwhile; a reply from another
 * host usually comes within that time), then sleeps SLEEP_NS at a time
 * (MPI offers no blocking wait for "any message of this communicator"
 * that another thread could interrupt), up to timeout_s. */
static ic_status_t op_wait(ic_transport_t *tt, double timeout_s)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    unsigned w0 = atomic_load(&t->woken);
    double start = now_s();
    for (;;) {
        int ev = 0;
        ic_status_t st = ic_mpi_progress(t, &ev);
        if (st != IC_OK || ev > 0 || atomic_load(&t->woken) != w0)
            return st;
        double waited = now_s() - start;
        if (!(waited < timeout_s))
            return IC_OK;
        ic_tx_guard_release(tt);
        if (waited < 20e-6) {
            /* poll */
        } else if (waited < YIELD_S) {
            sched_yield();
        } else {
            struct timespec ts = {0, SLEEP_NS};
            nanosleep(&ts, NULL);
        }
        ic_tx_guard_take(tt);
    }
}

static void op_wake(ic_transport_t *tt)
{
    if (tt)
        atomic_fetch_add(&((mpi_transport_t *)tt)->woken, 1);
}

static ic_status_t op_peer_alive(ic_transport_t *tt, int peer)
{
    if (!tt || peer < 0 || peer >= tt->size)
        return ic_set_error(IC_ERR_ARG, "mpi peer_alive: peer %d is not in range", peer);
    return IC_OK; /* MPI reports failures through errors of its calls */
}

static ic_status_t op_abort(ic_transport_t *tt, int code)
{
    PMPI_Abort(((mpi_transport_t *)tt)->comm, code);
    return IC_OK;
}

static ic_status_t op_close(ic_transport_t *tt)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    if (!t)
        return IC_OK;
    /* Bounce buffers: MPI finishes small sends on its own; give it a
     * second, then leave what is left to it (and leak those buffers). */
    double start = now_s();
    while (t->out && now_s() - start < 1.0) {
        int ev = 0;
        ic_mpi_progress(t, &ev);
        if (t->out)
            sched_yield();
    }
    for (mpi_out_t *o = t->out, *next; o; o = next) {
        next = o->next;
        PMPI_Request_free(&o->r);
    }
    for (mpi_ux_t *u = t->ux, *next; u; u = next) {
        next = u->next;
        free(u);
    }
    free(t->notices);
    PMPI_Comm_free(&t->comm);
    free(t);
    return IC_OK;
}

static const ic_transport_ops_t mpi_ops = {
    .size = sizeof(ic_transport_ops_t),
    .name = "mpi",
    .isend = op_isend,
    .irecv = op_irecv,
    .test = op_test,
    .cancel = op_cancel,
    .notify = op_notify,
    .learn = op_learn,
    .progress = op_progress,
    .wait = op_wait,
    .wake = op_wake,
    .peer_alive = op_peer_alive,
    .abort = op_abort,
    .close = op_close,
};

ic_status_t ic_mpi_transport_open(MPI_Comm comm, size_t eager_max, ic_transport_t **out)
{
    if (!out)
        return ic_set_error(IC_ERR_ARG, "ic_mpi_transport_open: out is NULL");
    mpi_transport_t *t = calloc(1, sizeof *t);
    if (!t)
        return ic_set_error(IC_ERR_NO_MEM, "ic_mpi_transport_open: out of memory");
    int err = PMPI_Comm_dup(comm, &t->comm);
    if (err != MPI_SUCCESS) {
        free(t);
        return ic_mpi_error(err, "MPI_Comm_dup", -1);
    }
    PMPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(t->comm, &t->base.rank);
    PMPI_Comm_size(t->comm, &t->base.size);
    int *ub = NULL, flag = 0;
    PMPI_Comm_get_attr(t->comm, MPI_TAG_UB, &ub, &flag);
    t->tag_ub = flag && ub && *ub > RTAG_FIRST ? *ub : 32767;
    t->next_rtag = RTAG_FIRST;
    t->eager_max = eager_max ? eager_max : EAGER_DEFAULT;
    if (t->eager_max > INT_MAX - sizeof(mpi_hdr_t))
        t->eager_max = INT_MAX - sizeof(mpi_hdr_t);
    t->ux_tail = &t->ux;
    t->base.ops = &mpi_ops;
    *out = &t->base;
    return IC_OK;
}
