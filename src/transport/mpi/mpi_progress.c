/*
 * mpi_progress.c — the MPI backend's sending, matching and progress
 * (the wire protocol is described in mpi_transport.c): bounce-buffered
 * CTL messages, RTS payload parts, draining CTL messages with
 * MPI_Improbe/MPI_Mrecv and matching them against the posted receives.
 */
#include "transport/mpi/mpi_internal.h"

#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ic_status_t ic_mpi_error(int err, const char *what, int peer)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (PMPI_Error_string(err, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", err);
    return ic_set_error(IC_ERR_PEER_FAILED, "mpi: %s with rank %d failed: %s", what, peer, s);
}

/* Hands a send to MPI with its own copy of the bytes (header + data). */
ic_status_t ic_mpi_send_copy(mpi_transport_t *t, int peer, const mpi_hdr_t *h, const void *data,
                             size_t len)
{
    mpi_out_t *o = malloc(sizeof *o + sizeof *h + len);
    if (!o)
        return ic_set_error(IC_ERR_NO_MEM, "mpi: out of memory for a %zu-byte message", len);
    memcpy(o->data, h, sizeof *h);
    if (len)
        memcpy(o->data + sizeof *h, data, len);
    int err = PMPI_Isend(o->data, (int)(sizeof *h + len), MPI_BYTE, peer, TAG_CTL, t->comm, &o->r);
    if (err != MPI_SUCCESS) {
        free(o);
        return ic_mpi_error(err, "MPI_Isend", peer);
    }
    o->next = t->out;
    t->out = o;
    return IC_OK;
}

/* Frees the bounce buffers MPI is done with. */
void ic_mpi_reap_out(mpi_transport_t *t)
{
    for (mpi_out_t **p = &t->out; *p;) {
        int flag = 0;
        PMPI_Test(&(*p)->r, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            mpi_out_t *o = *p;
            *p = o->next;
            free(o);
        } else {
            p = &(*p)->next;
        }
    }
}

static ic_status_t size_mismatch(const mpi_req_t *r, uint64_t bytes)
{
    return ic_set_error(IC_ERR_TRANSPORT,
                        "mpi: rank %d sent %llu bytes for a receive of %zu (comm %llu, seq %llu, "
                        "tag %u)",
                        r->peer, (unsigned long long)bytes, r->bytes,
                        (unsigned long long)r->key.comm, (unsigned long long)r->key.seq,
                        r->key.tag);
}

static ic_status_t nack(mpi_transport_t *t, int peer, const mpi_hdr_t *rts, ic_status_t why)
{
    mpi_hdr_t h = *rts;
    h.type = MSG_NACK;
    h.status = why;
    return ic_mpi_send_copy(t, peer, &h, NULL, 0);
}

/* Posts the next payload part of r (a send or a matched receive). */
ic_status_t ic_mpi_post_part(mpi_transport_t *t, mpi_req_t *r)
{
    size_t left = r->bytes - r->done_bytes, n = left < PART_MAX ? left : PART_MAX;
    char *p = (char *)r->buf + r->done_bytes;
    int err = r->kind == RQ_SEND
                  ? PMPI_Isend(p, (int)n, MPI_BYTE, r->peer, r->rtag, t->comm, &r->mreq)
                  : PMPI_Irecv(p, (int)n, MPI_BYTE, r->peer, r->rtag, t->comm, &r->mreq);
    if (err != MPI_SUCCESS)
        return ic_mpi_error(err, r->kind == RQ_SEND ? "MPI_Isend" : "MPI_Irecv", r->peer);
    r->state = RQ_XFER;
    list_push(&t->xfer, r);
    return IC_OK;
}

/* A posted receive r meets message (h, data) from its peer. */
void ic_mpi_deliver(mpi_transport_t *t, mpi_req_t *r, const mpi_hdr_t *h, const void *data)
{
    if (h->sig != r->key.sig || h->bytes != r->bytes) {
        ic_status_t st = h->sig != r->key.sig
                             ? ic_sig_mismatch_error("mpi", r->peer, &r->key, h->sig)
                             : size_mismatch(r, h->bytes);
        if (h->type == MSG_RTS)
            nack(t, r->peer, h, st);
        finish(r, st);
        return;
    }
    if (h->type == MSG_EAGER) {
        if (h->bytes)
            memcpy(r->buf, data, h->bytes);
        finish(r, IC_OK);
        return;
    }
    r->rtag = h->rtag;
    r->done_bytes = 0;
    if (r->bytes == 0) {
        finish(r, IC_OK);
        return;
    }
    ic_status_t st = ic_mpi_post_part(t, r);
    if (st != IC_OK)
        finish(r, st);
}

static void on_nack(mpi_transport_t *t, int peer, const mpi_hdr_t *h)
{
    for (mpi_req_t *r = t->xfer; r; r = r->next)
        if (r->kind == RQ_SEND && r->peer == peer && r->rtag == h->rtag && same_key(&r->key, h)) {
            list_remove(&t->xfer, r);
            ic_mpi_drop_part(r);
            finish(r, ic_set_error((ic_status_t)h->status,
                                   "mpi: rank %d refused this rank's message (comm %llu, seq "
                                   "%llu, tag %u): its receive was of another call or size",
                                   peer, (unsigned long long)h->comm,
                                   (unsigned long long)h->seq, h->tag));
            return;
        }
}

/* Handles one CTL message (m: header + payload, malloc'd, len bytes). */
static ic_status_t on_message(mpi_transport_t *t, int peer, mpi_ux_t *m)
{
    const mpi_hdr_t *h = &m->h;
    if (h->type == MSG_NACK) {
        on_nack(t, peer, h);
        free(m);
        return IC_OK;
    }
    if (h->type == MSG_NOTICE) {
        mpi_notice_t n;
        memset(&n, 0, sizeof n);
        n.comm = h->comm;
        n.seq = h->seq;
        n.scope = h->scope;
        n.status = h->status;
        n.from = peer;
        size_t len = h->bytes < sizeof n.text ? (size_t)h->bytes : sizeof n.text - 1;
        memcpy(n.text, m->data, len);
        free(m);
        ic_status_t st = ic_mpi_record_notice(t, &n);
        if (t->base.on_notice)
            t->base.on_notice(t->base.on_notice_ctx, &t->base, &n);
        return st;
    }
    ic_match_key_t k = {h->comm, h->seq, h->tag, h->sig};
    if (ic_mpi_notice_find(t, &k)) { /* a call this rank has given up: drop it */
        if (h->type == MSG_RTS)
            nack(t, peer, h, IC_ERR_REVOKED);
        free(m);
        return IC_OK;
    }
    for (mpi_req_t *r = t->posted; r; r = r->next)
        if (r->peer == peer && same_key(&r->key, h)) {
            list_remove(&t->posted, r);
            ic_mpi_deliver(t, r, h, m->data);
            free(m);
            return IC_OK;
        }
    if (ic_mpi_stray(t, peer, h)) { /* a message of this rank's call with another signature */
        if (h->type == MSG_RTS)
            nack(t, peer, h, IC_ERR_MISMATCH);
        free(m);
        return IC_OK;
    }
    m->next = NULL;
    *t->ux_tail = m;
    t->ux_tail = &m->next;
    return IC_OK;
}

/* Receives every CTL message that has arrived; *events counts them. */
static ic_status_t drain(mpi_transport_t *t, int *events)
{
    for (;;) {
        int flag = 0;
        MPI_Message msg;
        MPI_Status s;
        int err = PMPI_Improbe(MPI_ANY_SOURCE, TAG_CTL, t->comm, &flag, &msg, &s);
        if (err != MPI_SUCCESS)
            return ic_mpi_error(err, "MPI_Improbe", -1);
        if (!flag)
            return IC_OK;
        int len = 0;
        PMPI_Get_count(&s, MPI_BYTE, &len);
        if (len < (int)sizeof(mpi_hdr_t))
            return ic_set_error(IC_ERR_TRANSPORT, "mpi: a %d-byte message from rank %d is not "
                                                  "an intercom message", len, s.MPI_SOURCE);
        mpi_ux_t *m = malloc(sizeof *m - sizeof m->h + (size_t)len);
        if (!m)
            return ic_set_error(IC_ERR_NO_MEM, "mpi: out of memory for a %d-byte message", len);
        err = PMPI_Mrecv(&m->h, len, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS) {
            free(m);
            return ic_mpi_error(err, "MPI_Mrecv", s.MPI_SOURCE);
        }
        m->peer = s.MPI_SOURCE;
        if (m->h.type == MSG_EAGER && m->h.bytes != (uint64_t)len - sizeof(mpi_hdr_t)) {
            free(m);
            return ic_set_error(IC_ERR_TRANSPORT, "mpi: a message from rank %d is truncated",
                                s.MPI_SOURCE);
        }
        (*events)++;
        ic_status_t st = on_message(t, s.MPI_SOURCE, m);
        if (st != IC_OK)
            return st;
    }
}

/* Advances the payload parts in flight; *events counts completions. */
static void advance_xfers(mpi_transport_t *t, int *events)
{
    for (mpi_req_t **p = &t->xfer; *p;) {
        mpi_req_t *r = *p;
        int flag = 0;
        MPI_Status s;
        int err = PMPI_Test(&r->mreq, &flag, &s);
        if (err != MPI_SUCCESS) {
            *p = r->next;
            finish(r, ic_mpi_error(err, "MPI_Test", r->peer));
            (*events)++;
            continue;
        }
        if (!flag) {
            p = &r->next;
            continue;
        }
        (*events)++;
        size_t n = r->bytes - r->done_bytes;
        r->done_bytes += n < PART_MAX ? n : PART_MAX;
        *p = r->next;
        if (r->done_bytes == r->bytes) {
            finish(r, IC_OK);
        } else {
            ic_status_t st = ic_mpi_post_part(t, r); /* pushes r at the head again */
            if (st != IC_OK)
                finish(r, st);
        }
    }
}

ic_status_t ic_mpi_progress(mpi_transport_t *t, int *events)
{
    int ev = 0;
    ic_status_t st = drain(t, &ev);
    advance_xfers(t, &ev);
    ic_mpi_reap_out(t);
    *events += ev;
    t->base.events += (uint64_t)ev;
    return st;
}
