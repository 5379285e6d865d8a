/*
 * shm_notice.c — failure notices between ranks (ops->notify).
 *
 * A rank that will not take part in a call (it rejected its arguments:
 * scope IC_NOTICE_CALL) or in any later call of a communicator (the
 * communicator failed there: IC_NOTICE_COMM) sends a NOTICE message to
 * the other members.  It travels in the pair's queue like any small
 * message (after the FINs that wait for room, before the sends that do),
 * so a receiver sees it within one wake-up.
 *
 * The receiver records the notice and fails, with the notice's status
 * and a message naming the sender and its text, every request of the
 * calls it names that this rank has in flight (posted receives, sends
 * waiting for room or for their receiver, chunked transfers: those break
 * their pair, shm_rndv.c) and every one it posts later; messages of those
 * calls that arrive later are dropped (an RTS is answered with a FIN, so
 * its sender does not wait).  The record is kept: scope COMM for the life
 * of the instance, scope CALL up to NOTICE_KEEP of them (the oldest are
 * forgotten first; a call older than that has long been posted).
 *
 * Stray messages.  A message whose (comm, seq, tag) matches a posted
 * receive but whose signature differs is caught at the match.  One that
 * matches nothing may still belong to a call this rank made differently
 * (another root sends to other ranks, another collective uses other
 * tags): each rank remembers the (comm, seq, signature) of its last
 * IC_CALLS_KEPT calls (ic_calls_t, transport/notice.c), and a message of
 * such a call with another signature, arriving before or after the call
 * was posted, fails the call and the later ones of that communicator here
 * as a local notice with
 * IC_ERR_MISMATCH.  Both looks cost O(1): the calls are a table indexed
 * by call, and the unexpected messages are indexed by call too
 * (shm_uxcall_t: how many, and whether their signatures differ).  The rank that called differently learns it from the
 * notice the core then sends (IC_ERR_REVOKED).
 */
#include "base/status.h"
#include "transport/shm/shm_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOTICE_KEEP 256

const shm_notice_t *ic_shm_notice_find(const shm_transport_t *t, const ic_match_key_t *key)
{
    for (uint32_t i = 0; i < t->nnotices; i++)
        if (ic_notice_covers(&t->notices[i], key))
            return &t->notices[i];
    return NULL;
}

ic_status_t ic_shm_notice_error(const shm_notice_t *n)
{
    return ic_notice_error(n);
}

ic_status_t ic_shm_sig_mismatch(const shm_req_t *r, uint32_t sig)
{
    return ic_sig_mismatch_error("shm", r->peer, &r->key, sig);
}

static int push_notice(shm_transport_t *t, int peer, const shm_notice_t *n)
{
    shm_msg_t m;
    memset(&m, 0, sizeof m);
    m.type = SHM_MSG_NOTICE;
    m.scope = (uint8_t)n->scope;
    m.tag = (uint32_t)n->status;
    m.comm = n->comm;
    m.seq = n->seq;
    m.len = strlen(n->text) + 1;
    return ic_shm_q_push(&t->peers[peer].out, &m, n->text, (size_t)m.len);
}

int ic_shm_flush_notices(shm_transport_t *t, int peer)
{
    shm_peer_t *P = &t->peers[peer];
    uint32_t k = 0;
    while (k < P->nnotes && push_notice(t, peer, &P->notes[k]))
        k++;
    if (k > 0) {
        memmove(P->notes, P->notes + k, (P->nnotes - k) * sizeof(*P->notes));
        P->nnotes -= k;
        t->nbacklog -= k;
    }
    return (int)k;
}

ic_status_t ic_shm_notify_op(ic_transport_t *tt, int peer, ic_match_key_t key, int scope,
                             ic_status_t status, const char *text)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    if (!t || peer < 0 || peer >= tt->size || peer == tt->rank ||
        (scope != IC_NOTICE_CALL && scope != IC_NOTICE_COMM))
        return ic_set_error(IC_ERR_ARG, "shm notify: bad transport, peer %d or scope %d", peer,
                            scope);
    shm_notice_t n;
    memset(&n, 0, sizeof n);
    n.comm = key.comm;
    n.seq = key.seq;
    n.scope = scope;
    n.status = status;
    n.from = ic_tx_job_rank(tt, tt->rank);
    snprintf(n.text, sizeof n.text, "%s", text ? text : "");
    shm_peer_t *P = &t->peers[peer];
    if (P->nfins == 0 && P->nnotes == 0 && push_notice(t, peer, &n)) {
        ic_shm_ring(&t->seg, peer);
        return IC_OK;
    }
    if (P->nnotes == P->capnotes) {
        uint32_t cap = P->capnotes ? 2 * P->capnotes : 4;
        shm_notice_t *g = realloc(P->notes, cap * sizeof(*g));
        if (!g)
            return ic_set_error(IC_ERR_NO_MEM, "shm notify: out of memory");
        P->notes = g;
        P->capnotes = cap;
    }
    P->notes[P->nnotes++] = n;
    t->nbacklog++;
    return IC_OK;
}

/* Fails the requests of list l (of peer P) that n covers. */
static void fail_list(shm_transport_t *t, shm_list_t *l, const shm_notice_t *n, ic_status_t st)
{
    for (shm_req_t *q = l->head, *next; q; q = next) {
        next = q->next;
        if (ic_notice_covers(n, &q->key))
            ic_shm_cancel(t, q, st);
    }
}

static void apply(shm_transport_t *t, const shm_notice_t *n)
{
    ic_status_t st = (ic_status_t)n->status;
    for (int i = 0; i < t->base.size; i++) {
        shm_peer_t *P = &t->peers[i];
        fail_list(t, &P->posted, n, st);
        fail_list(t, &P->backlog, n, st);
        fail_list(t, &P->rndv, n, st);
        fail_list(t, &P->grants, n, st);
        fail_list(t, &P->shared, n, st);
        if (P->active_send && ic_notice_covers(n, &P->active_send->key))
            ic_shm_cancel(t, P->active_send, st);
        /* Messages of the failed calls that no receive will take. */
        for (shm_ux_t *prev = NULL, *u = P->ux_head, *next; u; u = next) {
            next = u->next;
            if (!ic_notice_covers(n, &u->key)) {
                prev = u;
                continue;
            }
            if (prev)
                prev->next = next;
            else
                P->ux_head = next;
            if (P->ux_tail == u)
                P->ux_tail = prev;
            if (u->is_rts)
                ic_shm_send_fin(t, i, u->rts.xfer, st);
            ic_shm_uxcall_remove(t, &u->key);
            ic_shm_ux_unheld(t, i, u);
            ic_shm_ux_release(t, u);
            t->nux--;
        }
    }
}

/* Records n (a copy) in the table, dropping the oldest call-scope notice
 * when the table is full; returns the recorded copy or NULL. */
static shm_notice_t *record(shm_transport_t *t, const shm_notice_t *n)
{
    if (t->nnotices == t->capnotices) {
        uint32_t cap = t->capnotices ? 2 * t->capnotices : 8;
        shm_notice_t *g = cap <= NOTICE_KEEP ? realloc(t->notices, cap * sizeof(*g)) : NULL;
        if (g) {
            t->notices = g;
            t->capnotices = cap;
        } else {
            uint32_t i = 0;
            while (i < t->nnotices && t->notices[i].scope != IC_NOTICE_CALL)
                i++;
            if (i == t->nnotices)
                return NULL; /* only communicator notices (and no memory): keep those */
            memmove(&t->notices[i], &t->notices[i + 1],
                    (t->nnotices - i - 1) * sizeof(*t->notices));
            t->nnotices--;
        }
    }
    t->notices[t->nnotices] = *n;
    return &t->notices[t->nnotices++];
}

/* A message from peer with key belongs to another call than this rank's
 * call key.comm/key.seq (signature sig): the communicator fails here from
 * that call on. */
static void mismatch_found(shm_transport_t *t, int peer, const ic_match_key_t *key, uint32_t sig)
{
    shm_notice_t n;
    ic_notice_mismatch(&n, "shm", ic_tx_job_rank(&t->base, peer), key->comm, key->seq, key->sig,
                       sig);
    const shm_notice_t *r = record(t, &n);
    if (r)
        apply(t, r);
    if (t->base.on_notice)
        t->base.on_notice(t->base.on_notice_ctx, &t->base, &n);
}

/* The bucket of call comm/seq in the index of unexpected messages. */
static shm_uxcall_t **uxcall_bucket(shm_transport_t *t, uint64_t comm, uint64_t seq)
{
    uint64_t h = (seq + comm * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    return &t->uxcalls[h >> (64 - SHM_UXCALL_BITS)];
}

static shm_uxcall_t *uxcall_find(shm_transport_t *t, uint64_t comm, uint64_t seq)
{
    for (shm_uxcall_t *c = *uxcall_bucket(t, comm, seq); c; c = c->next)
        if (c->comm == comm && c->seq == seq)
            return c;
    return NULL;
}

void ic_shm_uxcall_add(shm_transport_t *t, const ic_match_key_t *key)
{
    shm_uxcall_t *c = uxcall_find(t, key->comm, key->seq);
    if (!c) {
        shm_uxcall_t **b = uxcall_bucket(t, key->comm, key->seq);
        if (t->uxcall_free) {
            c = t->uxcall_free;
            t->uxcall_free = c->next;
            t->nuxcall_free--;
        } else if (!(c = malloc(sizeof *c))) {
            t->uxcalls_lost = true; /* ic_shm_note_call then looks at every message */
            return;
        }
        *c = (shm_uxcall_t){*b, key->comm, key->seq, key->sig, 0, false};
        *b = c;
    }
    if (c->count++ > 0 && c->sig != key->sig)
        c->mixed = true;
}

void ic_shm_uxcall_remove(shm_transport_t *t, const ic_match_key_t *key)
{
    for (shm_uxcall_t **pc = uxcall_bucket(t, key->comm, key->seq); *pc; pc = &(*pc)->next) {
        shm_uxcall_t *c = *pc;
        if (c->comm != key->comm || c->seq != key->seq)
            continue;
        if (--c->count == 0) {
            *pc = c->next;
            if (t->nuxcall_free < SHM_UXCALL_KEEP) {
                c->next = t->uxcall_free;
                t->uxcall_free = c;
                t->nuxcall_free++;
            } else {
                free(c);
            }
        }
        return;
    }
}

void ic_shm_uxcalls_free(shm_transport_t *t)
{
    for (size_t i = 0; i < SHM_UXCALL_BUCKETS; i++)
        while (t->uxcalls[i]) {
            shm_uxcall_t *c = t->uxcalls[i];
            t->uxcalls[i] = c->next;
            free(c);
        }
    while (t->uxcall_free) {
        shm_uxcall_t *c = t->uxcall_free;
        t->uxcall_free = c->next;
        free(c);
    }
    t->nuxcall_free = 0;
}

void ic_shm_note_call(shm_transport_t *t, const ic_match_key_t *key)
{
    /* Posts of one call come together: comparing with the last call is
     * enough (an interleaved call may be remembered twice, which only
     * shortens the window). */
    if (!ic_calls_note(&t->calls, key) || t->nux == 0)
        return;
    /* Messages of this call that came before it was posted: the index
     * tells in one look-up whether any carries another signature, so a
     * rank that runs ahead of its peers (many messages buffered) does not
     * compare every new call with every message. */
    if (!t->uxcalls_lost) {
        const shm_uxcall_t *c = uxcall_find(t, key->comm, key->seq);
        if (!c || (c->sig == key->sig && !c->mixed))
            return;
    }
    for (int i = 0; i < t->base.size; i++)
        for (shm_ux_t *u = t->peers[i].ux_head; u; u = u->next)
            if (u->key.comm == key->comm && u->key.seq == key->seq && u->key.sig != key->sig) {
                ic_match_key_t k = u->key;
                mismatch_found(t, i, &k, key->sig);
                return;
            }
}

bool ic_shm_stray(shm_transport_t *t, int peer, const ic_match_key_t *key)
{
    uint32_t sig;
    if (!ic_calls_find(&t->calls, key->comm, key->seq, &sig) || sig == key->sig)
        return false;
    mismatch_found(t, peer, key, sig);
    return true;
}

void ic_shm_notice_received(shm_transport_t *t, int from, const shm_msg_t *m, const char *text)
{
    if (m->scope != IC_NOTICE_CALL && m->scope != IC_NOTICE_COMM)
        return; /* not a notice this version sends */
    shm_notice_t n;
    memset(&n, 0, sizeof n);
    n.comm = m->comm;
    n.seq = m->seq;
    n.scope = m->scope;
    n.status = n.scope == IC_NOTICE_CALL ? IC_ERR_PEER_REJECTED : IC_ERR_REVOKED;
    n.from = ic_tx_job_rank(&t->base, from);
    snprintf(n.text, sizeof n.text, "%s", text);
    const shm_notice_t *r = record(t, &n);
    if (r)
        apply(t, r);
    if (t->base.on_notice)
        t->base.on_notice(t->base.on_notice_ctx, &t->base, &n);
}

ic_status_t ic_shm_learn_op(ic_transport_t *tt, const ic_notice_t *n)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    if (!t || !n || (n->scope != IC_NOTICE_CALL && n->scope != IC_NOTICE_COMM))
        return ic_set_error(IC_ERR_ARG, "shm learn: bad transport or notice");
    const shm_notice_t *r = record(t, n);
    if (r)
        apply(t, r);
    return IC_OK;
}
