/*
 * shm_rndv.c — the rendezvous protocol for messages above eager_max.
 *
 * The sender puts an RTS (key, size, its buffer's address, a transfer id
 * unique per sender) in the pair's queue and keeps the send in its rndv
 * list.  Nothing moves until the receiver has matched the RTS with a
 * posted receive (an unmatched RTS waits in the unexpected list as its
 * descriptor only).  Then, by the protocol chosen at ic_shm_open (all
 * ranks agree: the AND of their probes):
 *
 * Single copy.  The receiver calls process_vm_readv on the sender's pid,
 * straight from the sender's buffer into the receive buffer (one copy,
 * no bounce buffer, no work for the sender), then queues a FIN (transfer
 * id, status) back to the sender, whose send completes when it drains
 * the FIN.  A size mismatch or a failed read also sends a FIN, with the
 * error, so that the send fails too instead of hanging.
 *
 * Chunked fallback (process_vm_readv not permitted, or IC_SHM_NO_CMA=1).
 * Each ordered pair has a bulk buffer of nchunks slots of chunk bytes and
 * two monotonically increasing counters: produced (written by the sender)
 * and consumed (written by the receiver).  The receiver grants the buffer
 * to one matched transfer at a time, in match order: it writes
 * cts_base = consumed, then cts_id = transfer id (release) and rings the
 * sender.  The sender, seeing a new cts_id, copies chunk k of the message
 * into slot (cts_base + k) mod nchunks whenever produced - consumed <
 * nchunks, bumps produced and rings the receiver; the receiver copies
 * each available slot out, bumps consumed and rings the sender:
 *
 *   sender buf ==memcpy==> [slot0][slot1][slot2][slot3] ==memcpy==> recv buf
 *                 produced ->                 <- consumed
 *
 * The send completes when its last chunk is in the buffer; the receive
 * when it has copied it out, after which the next matched transfer from
 * that sender is granted.  Both sides advance only inside transport calls.
 *
 * Read gates.  With single copy the receiver reads the sender's buffer
 * itself, so a send that is cancelled (its call failed) must be kept from
 * being read after the sender's call has returned and the buffer may be
 * freed.  Each single-copy send (and each large send to oneself) holds one
 * of its rank's SHM_TICKETS gates in the segment, named in its RTS: the
 * sender opens it (xfer, OPEN) before the RTS goes out; the receiver
 * turns it from (xfer, OPEN) to (xfer, READING) with a compare-and-swap
 * before process_vm_readv and to (xfer, DONE) after; the sender closes it
 * when the FIN comes.  To cancel, the sender swaps (xfer, OPEN) for 0: if
 * that fails, a read is under way, and the sender waits until it is done
 * (or the reader has died) before its call returns.  A receiver whose
 * swap fails does not read: the message was withdrawn, and its receive
 * fails.  A send finding no free gate waits like one finding a full queue.
 *
 * A chunked transfer cancelled midway (a failed collective, on either
 * side) leaves produced and consumed at values the other side cannot
 * know, so the pair is marked broken in its control block: from then on
 * every chunked transfer on that pair fails with IC_ERR_TRANSPORT
 * ("broken by an earlier failed call") instead of mixing up chunks.
 *
 * Streamed (from IC_SHM_STREAM_MIN bytes, default max(16 MiB, LLC/2),
 * base/llc.h; exchanged messages from IC_SHM_STREAM_XCHG_MIN, default
 * max(8 MiB, LLC/4); only when every rank has a core of its own).  With
 * single copy in use, a large message to another rank goes the chunked way
 * instead, both sides copying with non-temporal stores (base/copy.h):
 * process_vm_readv copies at about a third of a streamed copy's rate on
 * the AMD EPYC VM (docs/perf/copy.md).  The sender decides per
 * message and marks its RTS (SHM_RTS_STREAM); the receiver follows the
 * mark.  A streamed send withdrawn before its grant was seen breaks the
 * pair (shm_transport.c, ic_shm_cancel), after which the pair's large
 * messages take single copy again; a broken pair fails only its chunked
 * transfers.
 *
 * Chunked although single copy works (where it is dear: the creator's
 * ic_shm_cma_extra_ns at least SHM_CMA_DEAR_NS, shm_cma_cost.c).  A
 * message that is not streamed and would not be shared (below
 * IC_SHM_SHARE_MIN, or sent while its rank has receives in flight, or with
 * the ranks crowded on the cores, where nothing is shared) goes the
 * chunked way with cached copies, its RTS marked SHM_RTS_CHUNK.  On the
 * AMD EPYC VM process_vm_readv of 64 KiB took 4.4 us against 0.5 for a
 * memcpy (256 KiB: 16.1 against 2.0), and 2-rank calls of 64 KiB-4 MiB
 * ran in 0.29-0.75 of their time this way, 4 ranks on 2 cores from
 * 1 MiB in 0.47-0.81 (docs/perf/cma-cost.md, "Rendezvous through the
 * bulk buffer").  A shared message (shm_share.c) keeps single copy: both
 * sides copy it.  A pair broken by a cancelled chunked transfer takes
 * single copy again, as for streamed messages.
 *
 * A one-way message (its sender receives nothing) streams too, unless the
 * job's creator was given IC_SHM_CMA_LARGE_X100 below SHM_CMA_STREAM_X100
 * (opt-in, shm_cma_cost.c) and IC_SHM_STREAM_MIN is not set: then it is
 * shared from its size on, like the smaller ones (t->stream_oneway_min).
 *
 * A message to oneself is copied directly (ic_copy) in every mode.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "base/copy.h"
#include "base/llc.h"
#include "base/status.h"
#include "transport/shm/shm_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define STREAM_MIN_DEFAULT (16u << 20)     /* IC_SHM_STREAM_MIN's floor */
#define STREAM_XCHG_MIN_DEFAULT (8u << 20) /* IC_SHM_STREAM_XCHG_MIN's floor */

uint64_t ic_shm_stream_min(bool oversubscribed)
{
    /* Streaming needs the sender and the receiver copying at once. */
    return oversubscribed ? 0
                          : ic_shm_env_u64("IC_SHM_STREAM_MIN",
                                           ic_stream_threshold(STREAM_MIN_DEFAULT, 2));
}

uint64_t ic_shm_stream_xchg_min(uint64_t stream_min)
{
    uint64_t x = ic_shm_env_u64("IC_SHM_STREAM_XCHG_MIN",
                                ic_stream_threshold(STREAM_XCHG_MIN_DEFAULT, 4));
    return stream_min == 0 ? 0 : x == 0 || x > stream_min ? stream_min : x;
}

uint64_t ic_shm_stream_oneway_min(uint64_t stream_min, bool cma, uint32_t cma_large_x100)
{
    const char *env = getenv("IC_SHM_STREAM_MIN");
    if (stream_min == 0 || !cma || (env && *env))
        return stream_min;
    return cma_large_x100 > 0 && cma_large_x100 < SHM_CMA_STREAM_X100 ? 0 : stream_min;
}

uint32_t ic_shm_bulk_mode(const shm_transport_t *t, const shm_req_t *r)
{
    /* A sender with receives of its own in flight would not share the
     * receiver's single copy (shm_share.c), so the receiver would copy
     * alone at process_vm_readv's rate: streaming pays from a lower size
     * (an exchange).  Receives are posted before sends of more
     * than IC_EXEC_SEND_FIRST_MAX bytes (plan/exec.c).
     * A pair broken by a cancelled chunked transfer takes single copy. */
    if (r->peer == t->base.rank)
        return 0;
    if (t->cma &&
        atomic_load_explicit(&shm_seg_bulk_ctl(&t->seg, t->base.rank, r->peer)->broken,
                             memory_order_relaxed))
        return 0;
    uint64_t min = t->nrecvs > 0 ? t->stream_xchg_min : t->stream_oneway_min;
    if (min > 0 && r->bytes >= min)
        return SHM_RTS_STREAM;
    /* Where single copy is dear, a message that would not be shared
     * (below the shared size, sent while this rank receives, or with the
     * ranks crowded, where nothing is shared) goes chunked. */
    if (t->cma && t->cma_dear &&
        (t->oversubscribed || t->nrecvs > 0 || t->share_min == 0 || r->bytes < t->share_min))
        return SHM_RTS_CHUNK;
    return 0;
}

int ic_shm_rndv_probe(pid_t pid, uint64_t addr, uint64_t expect)
{
    uint64_t got = 0;
    struct iovec l = {&got, sizeof got};
    struct iovec r = {(void *)(uintptr_t)addr, sizeof got};
    if (pid <= 0 || addr == 0)
        return 0;
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    return n == (ssize_t)sizeof got && got == expect;
}

ic_status_t ic_shm_cma_copy(pid_t pid, int peer, void *local, uint64_t addr, size_t n,
                            bool write)
{
    unsigned char *d = local;
    while (n > 0) {
        struct iovec l = {d, n};
        struct iovec r = {(void *)(uintptr_t)addr, n};
        ssize_t got = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                            : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == ESRCH)
            return ic_set_error(IC_ERR_PEER_FAILED, "shm: rank %d (pid %d) exited during a copy",
                                peer, (int)pid);
        if (got <= 0)
            return ic_set_error(IC_ERR_TRANSPORT, "shm: %s of %zu bytes %s rank %d failed: %s",
                                write ? "process_vm_writev" : "process_vm_readv", n,
                                write ? "to" : "from", peer,
                                got < 0 ? strerror(errno) : "no progress");
        d += got;
        addr += (uint64_t)got;
        n -= (size_t)got;
    }
    return IC_OK;
}

/* The error of a chunked transfer on a broken pair; a failure of the job
 * (which is why transfers get cancelled midway) is reported as such. */
static ic_status_t broken_error(shm_transport_t *t, int from, int to)
{
    ic_status_t st = ic_shm_check_job(t);
    if (st != IC_OK)
        return st;
    return ic_set_error(IC_ERR_TRANSPORT,
                        "shm: the bulk buffer of ranks %d -> %d was broken by an earlier failed "
                        "call (a chunked transfer cancelled midway)",
                        from, to);
}

void ic_shm_rndv_break(shm_transport_t *t, int from, int to)
{
    if (ic_shm_check_job(t) != IC_OK)
        return; /* the job is over anyway */
    atomic_store(&shm_seg_bulk_ctl(&t->seg, from, to)->broken, 1u);
    ic_shm_ring(&t->seg, from == t->base.rank ? to : from);
}

/* Fails every chunked transfer of pair from -> to that this rank holds
 * (the single-copy sends to the same peer, waiting in the same list for
 * their FIN, are not affected). */
static int fail_broken(shm_transport_t *t, int peer, int sending)
{
    shm_peer_t *P = &t->peers[peer];
    int ev = 0;
    if (sending) {
        shm_req_t *q;
        if (P->active_send) {
            q = P->active_send;
            P->active_send = NULL;
            ic_shm_complete(t, q, broken_error(t, t->base.rank, peer));
            ev++;
        }
        shm_req_t *prev = NULL;
        for (q = P->rndv.head; q;) {
            shm_req_t *next = q->next;
            if (q->chunked) {
                shm_list_unlink(&P->rndv, prev, q);
                ic_shm_complete(t, q, broken_error(t, t->base.rank, peer));
                ev++;
            } else {
                prev = q;
            }
            q = next;
        }
    } else {
        shm_req_t *q;
        while ((q = P->grants.head)) {
            shm_list_unlink(&P->grants, NULL, q);
            ic_shm_complete(t, q, broken_error(t, peer, t->base.rank));
            ev++;
        }
    }
    return ev;
}

int ic_shm_ticket_open(shm_transport_t *t, shm_req_t *r)
{
    if (r->ticket >= 0)
        return 0;
    if (t->nfree_tickets == 0)
        return -1;
    uint32_t k = t->free_tickets[--t->nfree_tickets];
    r->ticket = (int32_t)k;
    atomic_store_explicit(&shm_seg_xfer(&t->seg, t->base.rank, k)->gate,
                          shm_gate(r->xfer, GATE_OPEN), memory_order_release);
    if (r->peer != t->base.rank)
        t->ncma_sends++;
    return 0;
}

static void ticket_free(shm_transport_t *t, shm_req_t *r)
{
    atomic_store(&shm_seg_xfer(&t->seg, t->base.rank, (uint32_t)r->ticket)->gate, 0);
    if (r->peer != t->base.rank)
        t->ncma_sends--;
    t->free_tickets[t->nfree_tickets++] = (uint16_t)r->ticket;
    r->ticket = -1;
}

void ic_shm_ticket_close(shm_transport_t *t, shm_req_t *r)
{
    if (r->ticket >= 0)
        ticket_free(t, r);
}

void ic_shm_ticket_revoke(shm_transport_t *t, shm_req_t *r)
{
    if (r->ticket < 0)
        return;
    shm_xfer_t *x = shm_seg_xfer(&t->seg, t->base.rank, (uint32_t)r->ticket);
    uint64_t open = shm_gate(r->xfer, GATE_OPEN);
    if (!atomic_compare_exchange_strong(&x->gate, &open, 0)) {
        /* A read is under way: it takes as long as one copy, unless the
         * reader dies meanwhile.  A shared copy is closed: no piece is
         * claimed any more, and the pieces under way are waited for. */
        for (;;) {
            uint64_t g = atomic_load(&x->gate);
            bool alive = ic_shm_check_peer(t, r->peer, 1) == IC_OK;
            if (g == shm_gate(r->xfer, GATE_SHARED)) {
                atomic_fetch_add(&x->claim, SHM_CLAIM_CLOSED);
                while (atomic_load(&x->copying) != 0 && alive) {
                    sched_yield();
                    alive = ic_shm_check_peer(t, r->peer, 1) == IC_OK;
                }
                break;
            }
            if (g != shm_gate(r->xfer, GATE_READING) || !alive)
                break;
            sched_yield();
        }
    }
    ticket_free(t, r);
}

/* Receiver: passes sender s's gate k for transfer xfer, or fails. */
static ic_status_t gate_enter(shm_transport_t *t, int s, const shm_rts_t *rts,
                              _Atomic uint64_t **g)
{
    if (rts->ticket >= SHM_TICKETS)
        return ic_set_error(IC_ERR_TRANSPORT, "shm: rank %d's message names read gate %u of %d",
                            s, rts->ticket, SHM_TICKETS);
    *g = &shm_seg_xfer(&t->seg, s, rts->ticket)->gate;
    uint64_t open = shm_gate(rts->xfer, GATE_OPEN);
    if (!atomic_compare_exchange_strong(*g, &open, shm_gate(rts->xfer, GATE_READING))) {
        ic_status_t st = ic_shm_check_job(t); /* withdrawn because the job failed? */
        if (st != IC_OK)
            return st;
        return ic_set_error(IC_ERR_REVOKED,
                            "shm: rank %d withdrew its large message (its call failed)", s);
    }
    return IC_OK;
}

/* Tells the sender of transfer xfer how it ended. */
static void finish_sender(shm_transport_t *t, int peer, uint64_t xfer, ic_status_t st)
{
    if (peer == t->base.rank)
        ic_shm_rndv_fin(t, peer, xfer, st);
    else
        ic_shm_send_fin(t, peer, xfer, st);
}

void ic_shm_rndv_match(shm_transport_t *t, shm_req_t *r, uint64_t len, const shm_rts_t *rts)
{
    int s = r->peer;
    if (len != r->bytes) {
        ic_shm_complete(t, r, ic_shm_size_mismatch(r, len));
        finish_sender(t, s, rts->xfer, IC_ERR_TRANSPORT);
        return;
    }
    if (s == t->base.rank || (t->cma && rts->mode == 0)) {
        _Atomic uint64_t *g = NULL;
        ic_status_t st = gate_enter(t, s, rts, &g);
        if (st != IC_OK) { /* withdrawn: the sender waits for nothing */
            ic_shm_complete(t, r, st);
            return;
        }
        uint64_t share_min = r->read_after ? t->share_read_min : t->share_min;
        if (s != t->base.rank && share_min > 0 && r->bytes >= share_min &&
            !atomic_load_explicit(&t->seg.ranks[s].receiving, memory_order_relaxed)) {
            ic_shm_share_start(t, r, rts); /* both sides copy */
            return;
        }
        if (s == t->base.rank) {
            ic_copy(r->buf, (const void *)(uintptr_t)rts->addr, r->bytes);
        } else {
            pid_t pid = (pid_t)atomic_load(&t->seg.ranks[s].pid);
            st = ic_shm_cma_copy(pid, s, r->buf, rts->addr, r->bytes, false);
        }
        atomic_store(g, shm_gate(rts->xfer, GATE_DONE));
        ic_shm_complete(t, r, st);
        if (s == t->base.rank)
            ic_shm_rndv_fin(t, s, rts->xfer, IC_OK);
        else if (st == IC_ERR_PEER_FAILED)
            ic_shm_mark_failed(&t->seg, s, 0); /* the sender's process is gone */
        else
            ic_shm_send_fin(t, s, rts->xfer, st);
        return;
    }
    if (atomic_load(&shm_seg_bulk_ctl(&t->seg, s, t->base.rank)->broken)) {
        ic_shm_complete(t, r, broken_error(t, s, t->base.rank));
        ic_shm_send_fin(t, s, rts->xfer, IC_ERR_TRANSPORT);
        return;
    }
    r->xfer = rts->xfer;
    r->state = SHM_RQ_MATCHED;
    r->streamed = rts->mode == SHM_RTS_STREAM;
    r->chunked = 1;
    t->nchunked++;
    shm_list_push(&t->peers[s].grants, r);
}

void ic_shm_rndv_fin(shm_transport_t *t, int peer, uint64_t xfer, ic_status_t st)
{
    shm_list_t *l = &t->peers[peer].rndv;
    for (shm_req_t *prev = NULL, *q = l->head; q; prev = q, q = q->next)
        if (q->xfer == xfer) {
            shm_list_unlink(l, prev, q);
            ic_shm_ticket_close(t, q);
            /* A receiver that gave up because the job failed (a rank died,
             * the job was aborted) refuses with its cancel's status: the
             * job's failure is the reason, and reported as such. */
            ic_status_t job = st != IC_OK ? ic_shm_check_job(t) : IC_OK;
            if (job != IC_OK)
                st = job;
            else if (st != IC_OK)
                st = ic_set_error(st,
                                  "shm: rank %d refused or failed the %zu-byte message (comm "
                                  "%llu, seq %llu, tag %u): %s",
                                  peer, q->bytes, (unsigned long long)q->key.comm,
                                  (unsigned long long)q->key.seq, q->key.tag, ic_status_string(st));
            ic_shm_complete(t, q, st);
            return;
        }
    /* Not found: the send was cancelled after a failure. */
}

/* Streamed transfers copy with non-temporal stores on both sides: the
 * slot goes to memory instead of bouncing its lines between the cores'
 * caches, and the receive buffer is not read before it is written. */
static void chunk_copy(const shm_req_t *r, void *dst, const void *src, size_t n)
{
    if (r->streamed)
        ic_copy_stream(dst, src, n);
    else
        ic_copy(dst, src, n);
}

static uint64_t chunks_of(const shm_transport_t *t, size_t bytes)
{
    uint64_t c = t->seg.hdr->chunk;
    return (bytes + c - 1) / c;
}

/* Sender side of pair me -> j: picks up a grant, fills free slots. */
static int send_chunks(shm_transport_t *t, int j)
{
    shm_peer_t *P = &t->peers[j];
    const shm_hdr_t *h = t->seg.hdr;
    shm_bulk_ctl_t *c = shm_seg_bulk_ctl(&t->seg, t->base.rank, j);
    int ev = 0;
    if (atomic_load_explicit(&c->broken, memory_order_relaxed))
        return fail_broken(t, j, 1);
    if (!P->active_send) {
        uint64_t cts = atomic_load_explicit(&c->cts_id, memory_order_acquire);
        if (cts == P->last_cts)
            return 0;
        P->last_cts = cts;
        shm_list_t *l = &P->rndv;
        for (shm_req_t *prev = NULL, *q = l->head; q; prev = q, q = q->next)
            if (q->xfer == cts) {
                shm_list_unlink(l, prev, q);
                q->state = SHM_RQ_ACTIVE;
                q->base = atomic_load_explicit(&c->cts_base, memory_order_relaxed);
                P->active_send = q;
                break;
            }
        if (!P->active_send)
            return 0;
        P->produced = P->active_send->base;
    }
    shm_req_t *r = P->active_send;
    uint64_t total = chunks_of(t, r->bytes);
    uint64_t done = P->produced - r->base;
    uint64_t consumed = atomic_load_explicit(&c->consumed, memory_order_acquire);
    unsigned char *data = shm_seg_bulk_data(&t->seg, t->base.rank, j);
    while (done < total) {
        if (P->produced - consumed >= h->nchunks) {
            consumed = atomic_load_explicit(&c->consumed, memory_order_acquire);
            if (P->produced - consumed >= h->nchunks)
                break;
        }
        size_t off = (size_t)(done * h->chunk);
        size_t n = r->bytes - off < h->chunk ? r->bytes - off : h->chunk;
        chunk_copy(r, data + (size_t)(P->produced % h->nchunks) * h->chunk,
                   (const unsigned char *)r->buf + off, n);
        P->produced++;
        done++;
        atomic_store_explicit(&c->produced, P->produced, memory_order_release);
        ic_shm_ring(&t->seg, j);
        ev++;
    }
    if (done == total) {
        P->active_send = NULL;
        ic_shm_complete(t, r, IC_OK);
    }
    return ev;
}

/* Receiver side of pair s -> me: grants the buffer, empties full slots. */
static int recv_chunks(shm_transport_t *t, int s)
{
    shm_peer_t *P = &t->peers[s];
    const shm_hdr_t *h = t->seg.hdr;
    shm_bulk_ctl_t *c = shm_seg_bulk_ctl(&t->seg, s, t->base.rank);
    const unsigned char *data = shm_seg_bulk_data(&t->seg, s, t->base.rank);
    int ev = 0;
    shm_req_t *r;
    if (atomic_load_explicit(&c->broken, memory_order_relaxed))
        return fail_broken(t, s, 0);
    while ((r = P->grants.head)) {
        if (r->state == SHM_RQ_MATCHED) {
            r->state = SHM_RQ_ACTIVE;
            r->base = P->consumed;
            atomic_store_explicit(&c->cts_base, r->base, memory_order_relaxed);
            atomic_store_explicit(&c->cts_id, r->xfer, memory_order_release);
            ic_shm_ring(&t->seg, s);
        }
        uint64_t total = chunks_of(t, r->bytes);
        uint64_t done = P->consumed - r->base;
        uint64_t produced = atomic_load_explicit(&c->produced, memory_order_acquire);
        int got = 0;
        while (done < total && P->consumed != produced) {
            size_t off = (size_t)(done * h->chunk);
            size_t n = r->bytes - off < h->chunk ? r->bytes - off : h->chunk;
            chunk_copy(r, (unsigned char *)r->buf + off,
                       data + (size_t)(P->consumed % h->nchunks) * h->chunk, n);
            P->consumed++;
            done++;
            atomic_store_explicit(&c->consumed, P->consumed, memory_order_release);
            got++;
            if (P->consumed == produced)
                produced = atomic_load_explicit(&c->produced, memory_order_acquire);
        }
        if (got)
            ic_shm_ring(&t->seg, s);
        ev += got;
        if (done < total)
            break;
        shm_list_unlink(&P->grants, NULL, r);
        ic_shm_complete(t, r, IC_OK);
        ev++;
    }
    return ev;
}

int ic_shm_rndv_chunk_progress(shm_transport_t *t)
{
    int ev = 0;
    for (int i = 0; i < t->base.size; i++) {
        shm_peer_t *P = &t->peers[i];
        if (P->active_send || P->rndv.head)
            ev += send_chunks(t, i);
        if (P->grants.head)
            ev += recv_chunks(t, i);
    }
    return ev;
}
