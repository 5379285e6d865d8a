/*
 * shm_share.c — a large single-copy message copied by both sides at once.
 *
 * With single copy (shm_rndv.c) the receiver alone copies a large message
 * out of the sender's buffer with process_vm_readv while the sender waits
 * for the FIN doing nothing.  From IC_SHM_SHARE_MIN bytes (default 256 KiB;
 * 1 MiB where the creator finds single copy dear, below which messages go
 * through the bulk buffer instead: docs/perf/cma-cost.md) the receiver,
 * once it has passed the sender's read gate, shares the work instead, if
 * the sender has no receive of its own in flight (its rank
 * block says so; otherwise it would not help, see ic_shm_share_progress,
 * and pieces would only add system calls: one process_vm_readv of the
 * whole message is faster than eight of its pieces): it writes into the transfer's control block in the segment
 * (shm_xfer_t, the cache line of the sender's gate) its receive buffer's
 * address and a cut of the message into pieces, switches the gate from
 * READING to SHARED and rings the sender.  From then on both sides take
 * pieces from one counter (claim) until none is left: the receiver reads a
 * piece with process_vm_readv, the sender writes one into the receive
 * buffer with process_vm_writev, and each counts its pieces in done.  The
 * side that sees done reach the number of pieces has finished the copy:
 * the receiver completes its receive and sends the FIN as before (the
 * sender rings it when it copied the last piece).  Whichever side is
 * busy elsewhere simply takes no pieces, so a sender that never looks
 * leaves the receiver the whole copy, as without sharing; an idle sender
 * takes about half of it, and the copy runs on two cores.  A rank helps
 * only while it has no receive of its own in flight (see
 * ic_shm_share_progress).
 *
 * A rank in the middle of a long local step of its own (the executor's
 * copy or reduction, which calls ops->progress_busy between its pieces),
 * sender or receiver, claims a piece only while the other side is not
 * copying one (x->copying is 0): a side that copies is idle otherwise and
 * takes the pieces while this core runs the local step; this rank takes
 * what is left once the step is done.  A 2-rank scatter's root so copies
 * its own block while the receiver reads the other one, instead of
 * writing half of that into the receiver's buffer between the pieces of
 * its own copy (which made its time one copy of its block plus half a
 * transfer); a gather's root leaves the pieces to the idle sender the
 * same way.  A busy sender whose receiver reduces the message next
 * (irecv_read: x->read_after) still helps as before: the receiver's work
 * goes on after the copy, so the copy is its critical path (a 2-rank
 * scan: rank 0 copies its input to its output while rank 1 receives and
 * combines; leaving the pieces to rank 1 made that scan 1.2-1.4x slower,
 * docs/perf/copy.md).
 *
 * A receive whose bytes the receiver reads next (a reduction's operand,
 * posted with ops->irecv_read) is shared only from IC_SHM_SHARE_READ_MIN
 * bytes (default 512 KiB; never below IC_SHM_SHARE_MIN): the pieces the
 * sender writes land in the sender's cache, and the receiver's reduction
 * then fetches them across the cores.  On the Intel Xeon VM a 2-rank
 * `mst` reduce took 25-27 us shared against 17.8-18.3 us copied by the
 * receiver alone at 256 KiB, 29-30 against 22.6-23.2 at 320 KiB, 33-36
 * against 31 at 384 KiB, the same at 512 KiB, and shared won from 640 KiB
 * (62-64 against 68-69 us; 1 MiB 115 against 153-168;
 * docs/perf/share-read.md).  Only with a core per rank: with the ranks
 * crowded on the cores the same rule made 3- and 4-rank reductions and
 * scans of 256 KiB-2 MiB up to 1.5x slower, so there every receive
 * shares from IC_SHM_SHARE_MIN.
 *
 *   sender buf  [p0][p1][p2][p3][p4][p5][p6][p7]
 *                 |   |       |       |   |          receiver: readv
 *                 |   |   |   |   |   |   |   |      sender:   writev
 *   receive buf [p0][p1][p2][p3][p4][p5][p6][p7]     claim -> 8, done = 8
 *
 * Safety.  A side copies a piece only between copying++ (before it
 * claims) and copying-- (after the copy), and claims a piece only while
 * the gate still names this transfer as SHARED.  To withdraw (a send or a
 * receive cancelled because its call failed) a side adds SHM_CLAIM_CLOSED
 * to claim, so no piece can be claimed any more, and waits until copying
 * is 0 (or the other process has died): after that nothing reads the
 * send buffer or writes the receive buffer.  A receiver that finds the
 * claims closed before the copy is complete fails its receive as a
 * withdrawn message (IC_ERR_REVOKED); a sender whose receiver withdrew gets
 * the receiver's FIN with its error.  copying is never reset, so a side
 * that looks at a reused control block by mistake (its transfer long
 * gone) only delays another transfer's withdrawal by one check.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "base/status.h"
#include "transport/shm/shm_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define SHARE_MIN_DEFAULT (256u << 10)
#define SHARE_MIN_DEAR (1u << 20) /* where single copy is dear (docs/perf/cma-cost.md) */
#define SHARE_READ_MIN_DEFAULT (512u << 10)
#define PIECES 8                 /* pieces per message, within the bounds below */
#define PIECE_MIN (64u << 10)
#define PIECE_MAX (2u << 20)

uint64_t ic_shm_env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    return *end == '\0' && v[0] != '-' ? (uint64_t)n : dflt;
}

uint64_t ic_shm_share_min(bool cma_dear)
{
    return ic_shm_env_u64("IC_SHM_SHARE_MIN", cma_dear ? SHARE_MIN_DEAR : SHARE_MIN_DEFAULT);
}

uint64_t ic_shm_share_read_min(uint64_t share_min, bool oversubscribed)
{
    if (oversubscribed || share_min == 0)
        return share_min;
    uint64_t v = ic_shm_env_u64("IC_SHM_SHARE_READ_MIN", SHARE_READ_MIN_DEFAULT);
    return v < share_min ? share_min : v;
}

uint32_t ic_shm_share_pieces_per_call(void)
{
    return (uint32_t)ic_shm_env_u64("IC_SHM_SHARE_PIECES_PER_CALL", 0);
}

static pid_t pid_of(const shm_transport_t *t, int rank)
{
    return (pid_t)atomic_load(&t->seg.ranks[rank].pid);
}

void ic_shm_share_start(shm_transport_t *t, shm_req_t *r, const shm_rts_t *rts)
{
    shm_xfer_t *x = shm_seg_xfer(&t->seg, r->peer, rts->ticket);
    uint64_t piece = r->bytes / PIECES;
    piece = piece < PIECE_MIN ? PIECE_MIN : piece > PIECE_MAX ? PIECE_MAX : piece;
    piece = (piece + 4095) & ~(uint64_t)4095;
    /* The gate is READING: this rank alone touches the counters now. */
    x->raddr = (uint64_t)(uintptr_t)r->buf;
    x->piece = piece;
    x->bytes = r->bytes;
    x->npieces = (uint32_t)((r->bytes + piece - 1) / piece);
    x->read_after = r->read_after ? 1u : 0u;
    atomic_store(&x->claim, 0);
    atomic_store(&x->done, 0);
    atomic_store_explicit(&x->gate, shm_gate(rts->xfer, GATE_SHARED), memory_order_release);
    r->xfer = rts->xfer;
    r->ticket = (int32_t)rts->ticket;
    r->remote = rts->addr;
    r->state = SHM_RQ_SHARED;
    shm_list_push(&t->peers[r->peer].shared, r);
    t->nshared++;
    ic_shm_ring(&t->seg, r->peer); /* an idle sender joins in */
}

/* Copies the pieces of transfer x this side can claim: the receiver
 * reads (recv != NULL: its request), the sender writes (send: its
 * request).  Returns the pieces copied; *st gets the first failure. */
static int copy_pieces(shm_transport_t *t, shm_xfer_t *x, uint64_t xfer, shm_req_t *recv,
                       shm_req_t *send, ic_status_t *st)
{
    int peer = recv ? recv->peer : send->peer, n = 0;
    pid_t pid = pid_of(t, peer);
    *st = IC_OK;
    for (;;) {
        if (t->share_per_call > 0 && (uint32_t)n >= t->share_per_call)
            return n;
        /* Busy with local work: the piece is left to the other side while
         * it copies one (it is the only other copier), unless this rank
         * sends to a receiver that reduces the message next. */
        if (t->busy && (recv || !x->read_after) && atomic_load(&x->copying) != 0)
            return n;
        atomic_fetch_add(&x->copying, 1u);
        uint64_t k = atomic_load(&x->gate) == shm_gate(xfer, GATE_SHARED)
                         ? atomic_fetch_add(&x->claim, 1)
                         : SHM_CLAIM_CLOSED;
        if (k >= x->npieces) {
            atomic_fetch_sub(&x->copying, 1u);
            return n;
        }
        uint64_t off = k * x->piece;
        size_t len = (size_t)(x->bytes - off < x->piece ? x->bytes - off : x->piece);
        if (recv)
            *st = ic_shm_cma_copy(pid, peer, (unsigned char *)recv->buf + off,
                                  recv->remote + off, len, false);
        else
            *st = ic_shm_cma_copy(pid, peer, (unsigned char *)send->buf + off, x->raddr + off,
                                  len, true);
        if (*st != IC_OK) {
            atomic_fetch_add(&x->claim, SHM_CLAIM_CLOSED); /* nobody finishes it */
            atomic_fetch_sub(&x->copying, 1u);
            return n;
        }
        uint64_t done = atomic_fetch_add(&x->done, 1) + 1;
        atomic_fetch_sub(&x->copying, 1u);
        n++;
        if (done == x->npieces && send)
            ic_shm_ring(&t->seg, peer); /* the receiver may wait for this last piece */
    }
}

/* Waits until no side copies a piece of x (or the other process died). */
static void wait_copies(shm_transport_t *t, shm_xfer_t *x, int peer)
{
    while (atomic_load(&x->copying) != 0 && ic_shm_check_peer(t, peer, 1) == IC_OK)
        sched_yield();
}

/* Receiver: copies what it can of r, and completes it when every piece is
 * in.  Returns the events. */
static int recv_progress(shm_transport_t *t, shm_req_t *r)
{
    shm_peer_t *P = &t->peers[r->peer];
    shm_xfer_t *x = shm_seg_xfer(&t->seg, r->peer, (uint32_t)r->ticket);
    ic_status_t st;
    int ev = copy_pieces(t, x, r->xfer, r, NULL, &st);
    /* The gate stays SHARED for this transfer until this rank ends it,
     * unless the sender withdrew the message (and may have reused the
     * control block since): then done and claim are not this transfer's. */
    bool ours = atomic_load(&x->gate) == shm_gate(r->xfer, GATE_SHARED);
    bool complete = ours && atomic_load(&x->done) >= x->npieces;
    if (st == IC_OK && ours && !complete && atomic_load(&x->claim) < SHM_CLAIM_CLOSED)
        return ev; /* the sender copies the last pieces */
    if (st == IC_OK && !complete)
        st = ic_set_error(IC_ERR_REVOKED,
                          "shm: rank %d withdrew its large message (its call failed)", r->peer);
    ic_shm_list_remove(&P->shared, r);
    t->nshared--;
    if (st == IC_ERR_PEER_FAILED) {
        ic_shm_mark_failed(&t->seg, r->peer, 0);
    } else if (st != IC_ERR_REVOKED) {
        if (st != IC_OK)
            wait_copies(t, x, r->peer); /* the sender may still write a piece */
        atomic_store(&x->gate, shm_gate(r->xfer, GATE_DONE));
        ic_shm_send_fin(t, r->peer, r->xfer, st);
    }
    ic_shm_complete(t, r, st);
    return ev + 1;
}

/* Sender: copies what it can of its shared sends. */
static int send_progress(shm_transport_t *t)
{
    int ev = 0;
    for (int i = 0; i < t->base.size; i++) {
        shm_peer_t *P = &t->peers[i];
        for (shm_req_t *q = i == t->base.rank ? NULL : P->rndv.head, *next; q; q = next) {
            next = q->next;
            if (q->ticket < 0)
                continue;
            shm_xfer_t *x = shm_seg_xfer(&t->seg, t->base.rank, (uint32_t)q->ticket);
            if (atomic_load_explicit(&x->gate, memory_order_acquire) !=
                    shm_gate(q->xfer, GATE_SHARED) ||
                atomic_load_explicit(&x->claim, memory_order_relaxed) >= x->npieces)
                continue;
            ic_status_t st;
            ev += copy_pieces(t, x, q->xfer, NULL, q, &st);
            if (st == IC_ERR_PEER_FAILED) {
                ic_shm_mark_failed(&t->seg, i, 0);
            } else if (st != IC_OK) { /* the receiver learns it from the closed claims */
                ic_shm_list_remove(&P->rndv, q);
                ic_shm_ticket_revoke(t, q);
                ic_shm_complete(t, q, st);
                ev++;
            }
        }
    }
    return ev;
}

int ic_shm_share_progress(shm_transport_t *t)
{
    int ev = 0;
    for (int i = 0; t->nshared > 0 && i < t->base.size; i++)
        for (shm_req_t *q = t->peers[i].shared.head, *next; q; q = next) {
            next = q->next;
            ev += recv_progress(t, q);
        }
    /* A rank helps with its sends only while it receives nothing itself.
     * When both sides of an exchange send and receive at once (alltoall,
     * allgather, the rings of reduce-scatter), each copies its own receive:
     * a piece the other side wrote lands in the other core's cache, and a
     * reduction or a forward that reads it next runs slower (allreduce
     * 1 MiB at p = 2: 140 -> 170-195 us when both helped). */
    if (t->ncma_sends > 0 && t->nrecvs == 0)
        ev += send_progress(t);
    return ev;
}

void ic_shm_share_cancel(shm_transport_t *t, shm_req_t *r, ic_status_t st)
{
    shm_xfer_t *x = shm_seg_xfer(&t->seg, r->peer, (uint32_t)r->ticket);
    if (ic_shm_list_remove(&t->peers[r->peer].shared, r))
        t->nshared--;
    if (atomic_load(&x->gate) == shm_gate(r->xfer, GATE_SHARED)) {
        atomic_fetch_add(&x->claim, SHM_CLAIM_CLOSED);
        wait_copies(t, x, r->peer);
        atomic_store(&x->gate, shm_gate(r->xfer, GATE_DONE));
        ic_shm_send_fin(t, r->peer, r->xfer, st);
    }
}
