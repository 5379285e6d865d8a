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
 *   3. moves the chunked rendezvous transfers (shm_rndv.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "base/status.h"
#include "transport/shm/shm_internal.h"

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
}

/* Puts a send's EAGER message or RTS into the queue; 1 if it went in. */
int ic_shm_push_send(shm_transport_t *t, shm_req_t *r)
{
    shm_peer_t *P = &t->peers[r->peer];
    shm_msg_t m;
    memset(&m, 0, sizeof m);
    set_key(&m, &r->key);
    m.len = r->bytes;
    if (r->bytes <= t->seg.hdr->eager_max) {
        m.type = SHM_MSG_EAGER;
        return ic_shm_q_push(&P->out, &m, r->buf, r->bytes);
    }
    shm_rts_t rts = {(uint64_t)(uintptr_t)r->buf, r->xfer};
    m.type = SHM_MSG_RTS;
    return ic_shm_q_push(&P->out, &m, &rts, sizeof rts);
}

/* A send's message is in the queue: eager sends are done, rendezvous
 * sends wait for the receiver. */
void ic_shm_send_posted(shm_transport_t *t, shm_req_t *r)
{
    if (r->bytes <= t->seg.hdr->eager_max) {
        ic_shm_complete(t, r, IC_OK);
        return;
    }
    r->state = SHM_RQ_RNDV;
    if (!t->cma && r->peer != t->base.rank) {
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
    while (P->nfins == 0 && P->backlog.head && ic_shm_push_send(t, P->backlog.head)) {
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

/* Handles every message waiting in the queue from peer s. */
static ic_status_t drain(shm_transport_t *t, int s, int *events)
{
    shm_peer_t *P = &t->peers[s];
    ic_status_t st = IC_OK;
    int popped = 0;
    const shm_msg_t *m;
    while ((m = ic_shm_q_peek(&P->in))) {
        ic_match_key_t key = {m->comm, m->seq, m->tag};
        if (m->type == SHM_MSG_FIN) {
            ic_shm_rndv_fin(t, s, m->seq, (ic_status_t)(int32_t)m->tag);
        } else if (m->type == SHM_MSG_EAGER || m->type == SHM_MSG_RTS) {
            shm_req_t *r = take_posted(P, &key);
            shm_rts_t rts = {0, 0};
            if (m->type == SHM_MSG_RTS)
                ic_shm_q_read(&P->in, 0, &rts, sizeof rts);
            if (r && m->type == SHM_MSG_RTS) {
                ic_shm_rndv_match(t, r, m->len, &rts);
            } else if (r) {
                if (r->bytes != m->len) {
                    ic_shm_complete(t, r, ic_shm_size_mismatch(r, m->len));
                } else {
                    ic_shm_q_read(&P->in, 0, r->buf, r->bytes);
                    ic_shm_complete(t, r, IC_OK);
                }
            } else {
                size_t keep = m->type == SHM_MSG_EAGER ? (size_t)m->len : 0;
                shm_ux_t *u = malloc(sizeof(*u) + keep);
                if (!u) {
                    st = ic_set_error(IC_ERR_NO_MEM,
                                      "shm: out of memory buffering a message "
                                      "from rank %d",
                                      s);
                    break;
                }
                u->next = NULL;
                u->key = key;
                u->len = m->len;
                u->rts = rts;
                u->is_rts = m->type == SHM_MSG_RTS;
                ic_shm_q_read(&P->in, 0, u->data, keep);
                if (P->ux_tail)
                    P->ux_tail->next = u;
                else
                    P->ux_head = u;
                P->ux_tail = u;
            }
        } else {
            st = ic_set_error(IC_ERR_INTERNAL, "shm: corrupt message type %u from rank %d", m->type,
                              s);
            break;
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
    }
    if (st == IC_OK && t->nchunked > 0)
        ev += ic_shm_rndv_chunk_progress(t);
    if (events)
        *events += ev;
    return st;
}
