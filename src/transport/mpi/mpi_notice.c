/*
 * mpi_notice.c — failure notices and stray messages on the MPI backend,
 * as on shm (shm_notice.c): a notice fails every request of the calls it
 * covers, posted now or later, and drops their unexpected messages; the
 * last IC_CALLS_KEPT calls are remembered (ic_calls_t), and a message of
 * one of them with another signature fails the communicator here from
 * that call on with IC_ERR_MISMATCH.  The routing layer hears of both
 * (base.on_notice) and tells the shm side.
 */
#include "transport/mpi/mpi_internal.h"

#include "base/status.h"

#include <stdlib.h>
#include <string.h>

const mpi_notice_t *ic_mpi_notice_find(const mpi_transport_t *t, const ic_match_key_t *k)
{
    for (size_t i = 0; i < t->nnotices; i++)
        if (ic_notice_covers(&t->notices[i], k))
            return &t->notices[i];
    return NULL;
}

/* Withdraws an in-flight payload part: a receive is cancelled and waited
 * for (MPI may be writing the caller's buffer); a send is cancelled and
 * left to MPI (MPI_Request_free), which may still read the buffer if the
 * cancel comes too late. */
void ic_mpi_drop_part(mpi_req_t *r)
{
    PMPI_Cancel(&r->mreq);
    if (r->kind == RQ_RECV)
        PMPI_Wait(&r->mreq, MPI_STATUS_IGNORE);
    else
        PMPI_Request_free(&r->mreq);
}

static void apply_notice(mpi_transport_t *t, const mpi_notice_t *n)
{
    for (mpi_req_t **p = &t->posted; *p;) {
        mpi_req_t *r = *p;
        if (ic_notice_covers(n, &r->key)) {
            *p = r->next;
            finish(r, ic_notice_error(n));
        } else {
            p = &r->next;
        }
    }
    for (mpi_req_t **p = &t->xfer; *p;) {
        mpi_req_t *r = *p;
        if (ic_notice_covers(n, &r->key)) {
            *p = r->next;
            ic_mpi_drop_part(r);
            finish(r, ic_notice_error(n));
        } else {
            p = &r->next;
        }
    }
    /* Unexpected messages of those calls will never be received. */
    for (mpi_ux_t **p = &t->ux; *p;) {
        mpi_ux_t *u = *p;
        ic_match_key_t k = {u->h.comm, u->h.seq, u->h.tag, u->h.sig};
        if (ic_notice_covers(n, &k)) {
            *p = u->next;
            free(u);
        } else {
            p = &u->next;
        }
    }
    t->ux_tail = &t->ux;
    while (*t->ux_tail)
        t->ux_tail = &(*t->ux_tail)->next;
}

ic_status_t ic_mpi_record_notice(mpi_transport_t *t, const mpi_notice_t *n)
{
    if (t->nnotices == t->capnotices) {
        size_t cap = t->capnotices ? 2 * t->capnotices : 8;
        mpi_notice_t *g = realloc(t->notices, cap * sizeof *g);
        if (!g)
            return ic_set_error(IC_ERR_NO_MEM, "mpi: out of memory for a notice");
        t->notices = g;
        t->capnotices = cap;
    }
    t->notices[t->nnotices++] = *n;
    apply_notice(t, n);
    return IC_OK;
}

/* A message from peer of this rank's call comm/seq came with signature
 * theirs: the communicator fails here from that call on. */
static void mismatch_found(mpi_transport_t *t, int peer, uint64_t comm, uint64_t seq,
                           uint32_t theirs, uint32_t ours)
{
    mpi_notice_t n;
    ic_notice_mismatch(&n, "mpi", peer, comm, seq, theirs, ours);
    ic_mpi_record_notice(t, &n);
    if (t->base.on_notice)
        t->base.on_notice(t->base.on_notice_ctx, &t->base, &n);
}

void ic_mpi_note_call(mpi_transport_t *t, const ic_match_key_t *key)
{
    if (!ic_calls_note(&t->calls, key))
        return;
    /* Messages of this call that came before it was posted. */
    for (mpi_ux_t *u = t->ux; u; u = u->next)
        if (u->h.comm == key->comm && u->h.seq == key->seq && u->h.sig != key->sig) {
            mismatch_found(t, u->peer, key->comm, key->seq, u->h.sig, key->sig);
            return;
        }
}

bool ic_mpi_stray(mpi_transport_t *t, int peer, const mpi_hdr_t *h)
{
    uint32_t ours;
    if (!ic_calls_find(&t->calls, h->comm, h->seq, &ours) || ours == h->sig)
        return false;
    mismatch_found(t, peer, h->comm, h->seq, h->sig, ours);
    return true;
}
