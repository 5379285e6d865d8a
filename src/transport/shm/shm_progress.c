/*
 * ic_shm_progress.c — matching and progress of the shared-memory transport.
 *
 * Matching.  Per peer, the receiver keeps the receives posted and not
 * yet matched, and the messages that arrived before their receive
 * ("unexpected"): small ones copied into malloc'd memory, RTSs as their
 * descriptor only, so the queue never stays blocked behind a message
 * nobody has asked for yet.  A receive takes the message with its exact
 * (peer, key), whatever arrived before it; a size different from the
 * message's is an error (IC_ERR_TRANSPORT), never a truncation.  The
 * lists are searched linearly: they hold the messages in flight between
 * one pair, a handful in the plans this library builds.
 *
 * Progress happens only inside the ops (isend, irecv, test, progress,
 * wait): there is no thread.  A progress call
 *   1. sends what waits for room in a queue (FINs first, then sends in
 *      the order they were posted);
 *   2. drains the incoming queues if this rank's doorbell moved since
 *      the last scan: every producer rings after publishing, so an
 *      unchanged doorbell means no new message and costs one load;
 *   3. moves the chunked rendezvous transfers (shm_rndv.c) and copies
 *      this rank's pieces of the shared single copies (shm_share.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "base/status.h"
#include "transport/shm/shm_internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int ic_shm_list_remove(shm_list_t *l, shm_req_t *r)
{
    for (shm_req_t *prev = NULL, *q = l->head; q; prev = q, q = q->next)
        if (q == r) {
            shm_list_unlink(l, prev, q);
            return 1;
        }
    return 0;
}

static shm_req_t *take_posted(shm_peer_t *P, const ic_match_key_t *key)
{
    for (shm_req_t *prev = NULL, *q = P->posted.head; q; prev = q, q = q->next)
        if (shm_key_eq(&q->key, key)) {
            shm_list_unlink(&P->posted, prev, q);
            return q;
        }
    return NULL;
}

void ic_shm_complete(shm_transport_t *t, shm_req_t *r, ic_status_t st)
{
    r->status = st;
    r->state = st == IC_OK ? SHM_RQ_DONE : SHM_RQ_ERROR;
    if (r->chunked) {
        r->chunked = 0;
        t->nchunked--;
    }
    t->peers[r->peer].npending--;
    if (r->kind == SHM_RQ_RECV && --t->nrecvs == 0)
        atomic_store_explicit(&t->seg.ranks[t->base.rank].receiving, 0u, memory_order_relaxed);
}

ic_status_t ic_shm_size_mismatch(const shm_req_t *r, uint64_t len)
{
    return ic_set_error(IC_ERR_TRANSPORT,
                        "shm: receive of %zu bytes from rank %d (comm %llu, seq %llu, tag %u) "
                        "matched a message of %llu bytes",
                        r->bytes, r->peer, (unsigned long long)r->key.comm,
                        (unsigned long long)r->key.seq, r->key.tag, (unsigned long long)len);
}

static void set_key(shm_msg_t *m, const ic_match_key_t *k)
{
    m->comm = k->comm;
    m->seq = k->seq;
    m->tag = k->tag;
    m->sig = k->sig;
}

int ic_shm_push_eager(shm_transport_t *t, int peer, const ic_match_key_t *key, const void *buf,
                      size_t bytes)
{
    if (peer != t->base.rank && ic_shm_flood_holds(t, peer))
        return 0; /* the peer holds too many early messages of this rank (shm_ux.c) */
    shm_msg_t m;
    memset(&m, 0, sizeof m);
    set_key(&m, key);
    m.len = bytes;
    m.type = SHM_MSG_EAGER;
    return ic_shm_q_push(&t->peers[peer].out, &m, buf, bytes);
}

/* Puts a send's EAGER message or RTS into the queue; 1 if it went in. */
int ic_shm_push_send(shm_transport_t *t, shm_req_t *r)
{
    if (r->eager)
        return ic_shm_push_eager(t, r->peer, &r->key, r->buf, r->bytes);
    shm_peer_t *P = &t->peers[r->peer];
    shm_msg_t m;
    memset(&m, 0, sizeof m);
    set_key(&m, &r->key);
    m.len = r->bytes;
    /* Single copy (and a send to oneself): the receiver reads the buffer
     * itself, through a read gate (shm_rndv.c); none free: wait.  A
     * streamed or chunked message goes through the bulk buffer instead. */
    uint32_t mode = ic_shm_bulk_mode(t, r);
    r->streamed = mode == SHM_RTS_STREAM;
    r->bulk = mode != 0;
    if ((t->cma || r->peer == t->base.rank) && !r->bulk && ic_shm_ticket_open(t, r) != 0)
        return 0;
    shm_rts_t rts = {(uint64_t)(uintptr_t)r->buf, r->xfer,
                     r->ticket >= 0 ? (uint32_t)r->ticket : UINT32_MAX, mode};
    m.type = SHM_MSG_RTS;
    return ic_shm_q_push(&P->out, &m, &rts, sizeof rts);
}

/* A send's message is in the queue: eager sends are done, rendezvous
 * sends wait for the receiver. */
void ic_shm_send_posted(shm_transport_t *t, shm_req_t *r)
{
    if (r->eager) {
        ic_shm_complete(t, r, IC_OK);
        return;
    }
    r->state = SHM_RQ_RNDV;
    if ((!t->cma || r->bulk) && r->peer != t->base.rank) {
        r->chunked = 1;
        t->nchunked++;
    }
    shm_list_push(&t->peers[r->peer].rndv, r);
}

static int push_fin(shm_transport_t *t, int peer, const shm_fin_t *f)
{
    shm_msg_t m;
    memset(&m, 0, sizeof m);
    m.type = SHM_MSG_FIN;
    m.seq = f->xfer;
    m.tag = (uint32_t)f->status;
    return ic_shm_q_push(&t->peers[peer].out, &m, NULL, 0);
}

void ic_shm_send_fin(shm_transport_t *t, int peer, uint64_t xfer, ic_status_t st)
{
    shm_peer_t *P = &t->peers[peer];
    shm_fin_t f = {xfer, st};
    if (P->nfins == 0 && push_fin(t, peer, &f)) {
        ic_shm_ring(&t->seg, peer);
        return;
    }
    if (P->nfins == P->capfins) {
        uint32_t cap = P->capfins ? 2 * P->capfins : 8;
        shm_fin_t *n = realloc(P->fins, cap * sizeof(*n));
        if (!n) {
            /* Without memory the sender cannot be told; fail the job
             * rather than leave it waiting forever. */
            atomic_store(&t->seg.hdr->job_failed, 1u);
            ic_shm_ring_all(&t->seg);
            return;
        }
        P->fins = n;
        P->capfins = cap;
    }
    P->fins[P->nfins++] = f;
    t->nbacklog++;
}

/* Sends what waits for room in the queue to peer, FINs first. */
static int flush_peer(shm_transport_t *t, int peer)
{
    shm_peer_t *P = &t->peers[peer];
    uint32_t k = 0;
    int moved = 0;
    while (k < P->nfins && push_fin(t, peer, &P->fins[k]))
        k++;
    if (k > 0) {
        memmove(P->fins, P->fins + k, (P->nfins - k) * sizeof(*P->fins));
        P->nfins -= k;
        t->nbacklog -= k;
        moved = 1;
    }
    if (P->nfins == 0 && P->nnotes > 0 && ic_shm_flush_notices(t, peer) > 0)
        moved = 1;
    while (P->nfins == 0 && P->nnotes == 0 && P->backlog.head &&
           ic_shm_push_send(t, P->backlog.head)) {
        shm_req_t *r = P->backlog.head;
        shm_list_unlink(&P->backlog, NULL, r);
        t->nbacklog--;
        ic_shm_send_posted(t, r);
        moved = 1;
    }
    if (moved)
        ic_shm_ring(&t->seg, peer);
    return moved;
}

/* Checks a message header read from the shared segment before trusting
 * it: its type, its cell count against its length and the ring, and the
 * length against what its type allows.  A peer that writes garbage into
 * the segment gets the job failed, never a wild read or write here. */
static ic_status_t check_msg(shm_transport_t *t, int s, const shm_msg_t *m)
{
    const shm_hdr_t *h = t->seg.hdr;
    uint64_t max_len = m->type == SHM_MSG_EAGER    ? h->eager_max
                       : m->type == SHM_MSG_NOTICE ? IC_NOTICE_TEXT_MAX
                       : m->type == SHM_MSG_RTS    ? UINT64_MAX
                                                   : 0;
    uint64_t payload = m->type == SHM_MSG_RTS ? sizeof(shm_rts_t) : m->len;
    bool ok = m->type >= SHM_MSG_EAGER && m->type <= SHM_MSG_NOTICE && m->len <= max_len &&
              (m->type != SHM_MSG_NOTICE || m->len >= 1) &&
              m->ncells == shm_q_cells_for(payload) && m->ncells <= h->ncells;
    if (ok)
        return IC_OK;
    atomic_store(&t->seg.hdr->job_failed, 1u);
    ic_shm_ring_all(&t->seg);
    return ic_set_error(IC_ERR_TRANSPORT,
                        "shm: corrupt message from rank %d (type %u, length %llu, %u cells): "
                        "the job is stopped",
                        s, m->type, (unsigned long long)m->len, m->ncells);
}

int ic_shm_take_eager(shm_transport_t *t, int s, const ic_match_key_t *key, void *buf,
                      size_t bytes)
{
    shm_peer_t *P = &t->peers[s];
    const shm_msg_t *m = ic_shm_q_peek(&P->in);
    if (!m)
        return 0;
    const shm_msg_t mh = *m; /* read once from the shared segment */
    /* Anything else, a corrupt header included, is drain's (which
     * reports what is wrong with it). */
    if (mh.type != SHM_MSG_EAGER || mh.comm != key->comm || mh.seq != key->seq ||
        mh.tag != key->tag || mh.sig != key->sig || mh.len != bytes ||
        bytes > t->seg.hdr->eager_max || mh.ncells != shm_q_cells_for(bytes))
        return 0;
    ic_shm_q_read(&P->in, 0, buf, bytes);
    ic_shm_q_pop(&P->in, m);
    if (ic_shm_q_producer_waiting(&P->in))
        ic_shm_ring(&t->seg, s);
    t->base.events++;
    return 1;
}

/* Handles the messages waiting in the queue from peer s, at most a
 * ring's worth: a producer that refills the ring as fast as this loop
 * empties it must not keep this rank here (shm_ux.c); what is left is
 * read by the next progress call (force_scan). */
static ic_status_t drain(shm_transport_t *t, int s, int *events)
{
    shm_peer_t *P = &t->peers[s];
    ic_status_t st = IC_OK;
    int popped = 0;
    const shm_msg_t *m;
    while ((m = ic_shm_q_peek(&P->in))) {
        if ((uint32_t)popped >= P->in.ncells) {
            t->force_scan = 1;
            break;
        }
        const shm_msg_t mh = *m; /* read once from the shared segment */
        ic_match_key_t key = {mh.comm, mh.seq, mh.tag, mh.sig};
        st = check_msg(t, s, &mh);
        if (st != IC_OK)
            break;
        if (mh.type == SHM_MSG_FIN) {
            ic_shm_rndv_fin(t, s, mh.seq, (ic_status_t)(int32_t)mh.tag);
        } else if (mh.type == SHM_MSG_NOTICE) {
            char text[IC_NOTICE_TEXT_MAX];
            ic_shm_q_read(&P->in, 0, text, (size_t)mh.len);
            text[mh.len - 1] = '\0';
            ic_shm_notice_received(t, s, &mh, text);
        } else {
            shm_req_t *r = take_posted(P, &key);
            shm_rts_t rts = {0, 0, 0, 0};
            if (mh.type == SHM_MSG_RTS)
                ic_shm_q_read(&P->in, 0, &rts, sizeof rts);
            const shm_notice_t *n = r || !t->nnotices ? NULL : ic_shm_notice_find(t, &key);
            if (r && r->key.sig != key.sig) {
                ic_shm_complete(t, r, ic_shm_sig_mismatch(r, key.sig));
                if (mh.type == SHM_MSG_RTS)
                    ic_shm_send_fin(t, s, rts.xfer, IC_ERR_MISMATCH);
            } else if (r && mh.type == SHM_MSG_RTS) {
                ic_shm_rndv_match(t, r, mh.len, &rts);
            } else if (r) {
                if (r->bytes != mh.len) {
                    ic_shm_complete(t, r, ic_shm_size_mismatch(r, mh.len));
                } else {
                    ic_shm_q_read(&P->in, 0, r->buf, r->bytes);
                    ic_shm_complete(t, r, IC_OK);
                }
            } else if (n) {
                /* A message of a call that failed here: nobody will take it. */
                if (mh.type == SHM_MSG_RTS)
                    ic_shm_send_fin(t, s, rts.xfer, (ic_status_t)n->status);
            } else if (ic_shm_stray(t, s, &key)) {
                /* A message of a call this rank made with another signature. */
                if (mh.type == SHM_MSG_RTS)
                    ic_shm_send_fin(t, s, rts.xfer, IC_ERR_MISMATCH);
            } else {
                size_t keep = mh.type == SHM_MSG_EAGER ? (size_t)mh.len : 0;
                shm_ux_t *u = ic_shm_ux_new(t, keep);
                if (!u) {
                    st = ic_set_error(IC_ERR_NO_MEM,
                                      "shm: out of memory buffering a message "
                                      "from rank %d",
                                      s);
                    break;
                }
                u->next = NULL;
                u->key = key;
                u->len = mh.len;
                u->rts = rts;
                u->is_rts = mh.type == SHM_MSG_RTS;
                ic_shm_q_read(&P->in, 0, u->data, keep);
                if (P->ux_tail)
                    P->ux_tail->next = u;
                else
                    P->ux_head = u;
                P->ux_tail = u;
                t->nux++;
                ic_shm_uxcall_add(t, &key);
                ic_shm_ux_held(t, s, u);
            }
        }
        ic_shm_q_pop(&P->in, m);
        popped++;
    }
    if (popped && ic_shm_q_producer_waiting(&P->in))
        ic_shm_ring(&t->seg, s);
    *events += popped;
    return st;
}

ic_status_t ic_shm_progress(shm_transport_t *t, int *events)
{
    int ev = 0;
    ic_status_t st = IC_OK;
    if (t->nbacklog > 0)
        for (int i = 0; i < t->base.size; i++)
            ev += flush_peer(t, i);
    unsigned bell =
        atomic_load_explicit(&t->seg.ranks[t->base.rank].doorbell, memory_order_acquire);
    if (bell != t->scanned_bell || t->force_scan) {
        t->scanned_bell = bell;
        t->force_scan = 0;
        for (int i = 0; i < t->base.size && st == IC_OK; i++)
            st = drain(t, i, &ev);
        if (st != IC_OK)
            t->force_scan = 1;
    } else if (t->qpoll) {
        /* Messages ring only a sleeping receiver here (shm_wait.c): look
         * at every queue's stamp. */
        for (int i = 0; i < t->base.size && st == IC_OK; i++)
            if (shm_q_ready(t->peers[i].in.ring, t->peers[i].in.ncells, t->peers[i].in.mine))
                st = drain(t, i, &ev);
        if (st != IC_OK)
            t->force_scan = 1;
    }
    if (st == IC_OK && t->nchunked > 0)
        ev += ic_shm_rndv_chunk_progress(t);
    if (st == IC_OK && (t->nshared > 0 || t->ncma_sends > 0))
        ev += ic_shm_share_progress(t);
    if (events)
        *events += ev;
    t->base.events += (uint64_t)ev;
    return st;
}
