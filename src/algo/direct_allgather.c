/*
 * direct_allgather.c — allgather / allgatherv by direct exchange: every
 * member sends its own block straight to every other member.
 *
 * Computes: member i's block (len[i] bytes, at mine on member i) reaches
 * buf[i] on every member.  In step k = 1..n-1 member i sends its block to
 * (i+k) mod n and receives block (i-k) mod n from (i-k) mod n, the order
 * of pairwise exchange (pairwise_alltoall.c), so every member sends and
 * receives one message per step; no step waits for another (nothing is
 * forwarded), so a member posts all of them at once.  The own block is
 * copied into place (not at all in place).
 * Preconditions: any n >= 1; any lengths (zero-length blocks send
 * nothing); mine may be buf[me] (in place) but no other block of buf.
 * Cost: (n-1)*(alpha + b*beta) for blocks of b bytes (in general the sum
 *       over steps of alpha + the largest block, as the ring), the same
 *       as the bucket ring with a core per member; with members crowded
 *       on fewer cores the ring's n-1 dependent steps each wait for the
 *       scheduler's turns while these n-1 messages are posted in one:
 *       alpha + (n-1)*b*beta' (ic_model_alpha_next; beta' the crowded
 *       per-byte time).  Measured at 4 ranks on 2 cores:
 *       docs/perf/oversubscribed.md, "Allgather".
 * Source: [MTR94] (direct exchange, here of one block per member), [vdG-CCTP]
 *       (the alpha-beta model).
 *
 * n = 4, member 0: step 1 sends b0 to 1, receives b3 from 3; step 2
 *        sends b0 to 2, receives b2 from 2; step 3 sends b0 to 3,
 *        receives b1 from 1.
 */
#include "algo/blocks.h"

void ic_blk_direct_allgather(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                             ic_layout_t buf, ic_loc_t mine)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0)
        return;
    for (int k = 1; k < n; k++) {
        int to = ic_mod(me + k, n), from = ic_mod(me - k, n);
        if (len[me] > 0)
            ic_plan_send(pl, ic_view_rank(v, to), 0, mine, len[me]);
        if (len[from] > 0)
            ic_plan_recv(pl, ic_view_rank(v, from), 0, ic_layout_at(&buf, from), len[from]);
    }
    ic_plan_copy(pl, mine, ic_layout_at(&buf, me), len[me]);
}
