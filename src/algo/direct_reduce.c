/*
 * direct_reduce.c — reduce-to-one and allreduce by direct messages, each
 * vector combined where it arrives in the canonical rank tree.
 *
 * Computes: out = T(0, n-1) over every member's in (bytes bytes), with
 * T(j, j) = member j's vector and T(lo, hi) = T(lo, mid) (op) T(mid+1, hi),
 * mid = lo + (hi - lo) / 2: the tree of mst_reduce.c, so the result has
 * the MST reduce's bits for any operation (IC_REPRODUCIBLE,
 * docs/reproducibility.md).  Reduce: every other member sends its vector
 * to the root, which receives member j's into slot j; allreduce: every
 * member sends its vector to every other (pairwise order, as
 * direct_allgather.c) and combines on its own.  Slot n-1 is out, the
 * others scratch; the member's own vector is copied to its slot (first,
 * when out holds it: in place) and the slots are combined
 * (ic_blk_combine_tree) as their vectors arrive.  No message waits for
 * another, so a member posts all of them at once: one round.
 * Preconditions: any n >= 1, any root, any operation; in may be out.
 * Cost: reduce (n-1)*(alpha + N*beta) + (n-1)*N*gamma at the root with a
 *       core per member (one-port) on shared memory, where the member
 *       copies its receives in itself; in the papers' model (and the
 *       simulator) the combinations overlap later receives and about
 *       ceil(log2 n)*N*gamma follows the last (cost_direct_reduce.c).
 *       Allreduce the same on every member;
 *       with members crowded on fewer cores the messages share one
 *       start-up (ic_model_alpha_next): alpha + (n-1)*N*(beta + gamma),
 *       against the MST's ceil(log2 n) dependent rounds, which each wait
 *       for the scheduler's turns.  The choice there for short vectors
 *       (docs/perf/oversubscribed.md, "One round for the short rooted and
 *       reducing calls").  Scratch: (n-1)*N bytes where vectors arrive.
 * Source: the direct (linear) schemes of [vdG-CCTP] and [MTR94] with
 *       MSTREDUCE's combining order done locally, as
 *       tree_reduce_scatter.c.
 *
 * n = 4, root 0 (x_j member j's vector; s0..s2 slots, slot 3 = out):
 *   x0 -> s0 (copy); x1 -> s1, x2 -> s2, x3 -> out (receives, at once);
 *   s1 = s0 (op) s1; out = s2 (op) out; out = s1 (op) out.
 */
#include "algo/blocks.h"

/* The slots of a member that combines: n - 1 of scratch, then out; its
 * own vector copied into slot me (before anything is received into out,
 * which may hold it).  Returns the slot array, NULL after a failure. */
static ic_loc_t *combine_slots(ic_plan_t *pl, int n, int me, ic_loc_t in, ic_loc_t out,
                               size_t bytes)
{
    ic_loc_t *slot = ic_plan_tmp(pl, sizeof(ic_loc_t) * (size_t)n);
    if (!slot)
        return NULL;
    size_t base = ic_plan_scratch(pl, bytes * (size_t)(n - 1));
    for (int j = 0; j < n - 1; j++)
        slot[j] = ic_loc(IC_BUF_SCRATCH, base + (size_t)j * bytes);
    slot[n - 1] = out;
    ic_plan_copy(pl, in, slot[me], bytes); /* nothing when in is out and me = n-1 */
    return slot;
}

void ic_blk_direct_reduce(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t in,
                          ic_loc_t out, size_t bytes)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0 || bytes == 0)
        return;
    if (me != root) {
        ic_plan_send(pl, ic_view_rank(v, root), 0, in, bytes);
        return;
    }
    ic_loc_t *slot = combine_slots(pl, n, me, in, out, bytes);
    if (!slot)
        return;
    for (int k = 1; k < n; k++) {
        int j = ic_mod(root + k, n);
        ic_plan_recv(pl, ic_view_rank(v, j), 0, slot[j], bytes);
    }
    ic_blk_combine_tree(pl, slot, 0, n - 1, bytes, -1);
}

void ic_blk_direct_allreduce(ic_plan_t *pl, const ic_view_t *v, ic_loc_t in, ic_loc_t out,
                             size_t bytes)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0 || bytes == 0)
        return;
    ic_loc_t *slot = combine_slots(pl, n, me, in, out, bytes);
    if (!slot)
        return;
    /* Sent from the input, which nothing here overwrites, so that no
     * combination waits for a send to finish (a rendezvous send ends when
     * the peer has pulled it); in place from the own slot, since out
     * (which holds the input) receives member n-1's vector. */
    bool in_place = in.buf == out.buf && in.off == out.off;
    ic_loc_t src = in_place ? slot[me] : in;
    for (int k = 1; k < n; k++) {
        int to = ic_mod(me + k, n), from = ic_mod(me - k, n);
        ic_plan_send(pl, ic_view_rank(v, to), 0, src, bytes);
        ic_plan_recv(pl, ic_view_rank(v, from), 0, slot[from], bytes);
    }
    ic_blk_combine_tree(pl, slot, 0, n - 1, bytes, -1);
}
