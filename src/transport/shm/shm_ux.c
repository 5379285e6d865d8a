/*
 * shm_ux.c — records of unexpected messages (shm_progress.c's drain makes
 * them, a matching receive or a failure notice takes them).  Records big
 * enough for SHM_UX_SMALL bytes go back on a free list of at most
 * SHM_UX_KEEP instead of to free(): an 8-byte call whose message arrives
 * before the receive is posted no longer pays a malloc and a free
 * (about 120 instructions per call on the receiving rank, callgrind).
 * SHM_UX_KEEP is 4096 (it was 1024): a rank that runs ahead (an 8-byte
 * scan in a loop: rank 0 only sends) leaves its peer with up to a queue's
 * worth of early messages at a time (2048 one-cell messages at p = 2),
 * and each record beyond the kept ones cost a malloc and a free — 6746 of
 * 11000 calls did under callgrind.  With 4096: 8-byte scans in a loop
 * 0.159 against 0.180 us per call (bench/results/ux-keep-2026-11-29-xeon.txt);
 * the price is up to 4096 records of about 140 bytes kept after a burst.
 *
 * Flow control.  Nothing bounded how far such a rank runs ahead: a
 * 3-rank scan of one double in a loop (rank 0 only sends; rank 1 receives,
 * combines and sends, and shares the second core with rank 2) left rank 1
 * more and more early messages, 117 000 calls' worth after 1.5 s, each
 * dearer to record than the last (the index by call has 256 buckets),
 * and rank 1 never came out of one drain of its queue while rank 0 kept
 * it full: a hang in about 1 of 3 runs (kill harness seed 11, trial 185;
 * docs/reliability.md).  Now
 *   - one drain of a queue reads at most a ring's worth of messages
 *     (shm_progress.c), so a producer that keeps up cannot hold its
 *     consumer inside progress;
 *   - a consumer holding SHM_FLOOD_MSGS early messages (or SHM_FLOOD_BYTES
 *     of them) from one producer raises the queue's flooded flag, on a
 *     line of its own that changes only with the flag; it lowers the flag
 *     and rings the producer once a receive or a notice has taken it down
 *     to half of both;
 *   - the producer looks at the flag before each eager push (one load
 *     from its own cache while the flag stays down) and while it is up
 *     leaves the send waiting in its backlog, like a send that finds the
 *     queue full: its call then waits for the consumer, so the early
 *     messages stay bounded by the flag's level plus a ring.
 * The hold is what MPI calls a synchronizing collective, which a correct
 * program must allow; but a program may legally leave many early
 * messages unmatched for a while and wait for a later one (nonblocking
 * calls on one communicator started before a blocking call on another,
 * which the peer makes first), and that later message waits behind the
 * held ones.  So a hold lasts at most SHM_FLOOD_HOLD_NS at a stretch:
 * after that SHM_FLOOD_MSGS sends go and the next stretch begins (a
 * receiver that is merely slow then holds at most that many more per
 * stretch, one waiting for a late message gets it after a few); a rank
 * with a held send sleeps in slices of at most SLEEP_MS so that it
 * notices (shm_wait.c).  Self-sends are never held.
 */
#include "transport/shm/shm_internal.h"

#include <stdlib.h>

shm_ux_t *ic_shm_ux_new(shm_transport_t *t, size_t keep)
{
    if (keep <= SHM_UX_SMALL && t->ux_free) {
        shm_ux_t *u = t->ux_free;
        t->ux_free = u->next;
        t->nux_free--;
        return u;
    }
    size_t room = keep <= SHM_UX_SMALL ? SHM_UX_SMALL : keep;
    shm_ux_t *u = malloc(sizeof(*u) + room);
    if (u)
        u->room = (uint32_t)(room <= UINT32_MAX ? room : 0);
    return u;
}

void ic_shm_ux_release(shm_transport_t *t, shm_ux_t *u)
{
    if (u->room == SHM_UX_SMALL && t->nux_free < SHM_UX_KEEP) {
        u->next = t->ux_free;
        t->ux_free = u;
        t->nux_free++;
    } else {
        free(u);
    }
}

void ic_shm_ux_free_all(shm_transport_t *t)
{
    while (t->ux_free) {
        shm_ux_t *u = t->ux_free;
        t->ux_free = u->next;
        free(u);
    }
    t->nux_free = 0;
}

void ic_shm_ux_held(shm_transport_t *t, int peer, const shm_ux_t *u)
{
    shm_peer_t *P = &t->peers[peer];
    P->held_msgs++;
    P->held_bytes += u->is_rts ? 0 : u->len;
    if (!P->flood_raised && peer != t->base.rank &&
        (P->held_msgs >= SHM_FLOOD_MSGS || P->held_bytes >= SHM_FLOOD_BYTES)) {
        P->flood_raised = true;
        atomic_store(&P->in.ctl->flooded, 1u);
    }
}

void ic_shm_ux_unheld(shm_transport_t *t, int peer, const shm_ux_t *u)
{
    shm_peer_t *P = &t->peers[peer];
    P->held_msgs--;
    P->held_bytes -= u->is_rts ? 0 : u->len;
    if (P->flood_raised && P->held_msgs <= SHM_FLOOD_MSGS / 2 &&
        P->held_bytes <= SHM_FLOOD_BYTES / 2) {
        P->flood_raised = false;
        atomic_store(&P->in.ctl->flooded, 0u);
        ic_shm_ring(&t->seg, peer); /* a held send of the producer may go */
    }
}

bool ic_shm_flood_hold_slow(shm_transport_t *t, int peer, bool flooded)
{
    shm_peer_t *P = &t->peers[peer];
    if (!flooded) { /* seen down: the next rise holds again */
        P->flood_since_ns = 0;
        P->flood_credit = 0;
        t->nflood--;
        return false;
    }
    if (P->flood_credit > 0) { /* the sends let go after a whole stretch */
        P->flood_credit--;
        return false;
    }
    uint64_t now = ic_shm_now_ns();
    if (P->flood_since_ns == 0) {
        P->flood_since_ns = now | 1u;
        t->nflood++;
        return true;
    }
    if (now - P->flood_since_ns < t->flood_hold_ns)
        return true;
    /* Held for a whole stretch: this send and SHM_FLOOD_MSGS - 1 more go,
     * then the next stretch begins. */
    P->flood_credit = SHM_FLOOD_MSGS - 1;
    P->flood_since_ns = now | 1u;
    return false;
}
