/*
 * ring_reduce_scatter.c — bucket (ring) reduce-scatter ("distributed
 * combine"), even or uneven blocks.
 *
 * Computes: out on member i = (op) over all members j of block i of j's
 * input (in[i], len[i] bytes).  In step k = 0..n-2 member i sends its
 * partial of block (i-k-1) mod n to the right and receives the partial of
 * block (i-k-2) mod n from the left, adding its own input of that block.
 * After n-1 steps the partial arriving at member i is block i.
 * Preconditions: any n >= 1; a commutative operation (each block is
 * combined starting at a different member).  The result goes to out after
 * the last read of the input bytes it overlaps (in place is allowed).
 * The last partial is received straight into out and in[me] combined into
 * it there, unless out overlaps in[me]: no copy of in[me] into out first,
 * one pass over the block less (large reduce-scatters and the allreduces
 * and reduces built on them: 0.62-0.87x the time at p = 2 and 4 from
 * 4 MiB, docs/perf/reductions.md).
 * Cost: (n-1)*alpha + (n-1)/n * N*(beta + gamma) for N bytes split evenly;
 *       in general sum over steps of (alpha + m_k*beta + m_k*gamma) where
 *       m_k is the largest block moved in step k.
 * Source: [vdG-CCTP] (bucket distributed combine / reduce-scatter).
 *
 * n = 4, the partial of block 3 travels 0 -> 1 -> 2 -> 3:
 *
 *   step 0:  0 --x0[3]--> 1                 (1 adds x1[3])
 *   step 1:  1 --x0[3]+x1[3]--> 2           (2 adds x2[3])
 *   step 2:  2 --x0[3]+x1[3]+x2[3]--> 3     (3 adds x3[3]: done)
 */
#include "algo/blocks.h"

void ic_blk_ring_reduce_scatter(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                                ic_layout_t in, ic_loc_t out)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0)
        return;
    if (n == 1) {
        ic_plan_copy(pl, ic_layout_at(&in, 0), out, len[0]);
        return;
    }
    int right = ic_view_rank(v, ic_ring_right(me, n));
    int left = ic_view_rank(v, ic_ring_left(me, n));
    size_t maxlen = 0;
    for (int i = 0; i < n; i++)
        maxlen = len[i] > maxlen ? len[i] : maxlen;
    /* The last partial is block me.  It is received straight into out and
     * in[me] combined into it there (no copy of in[me] first) when out
     * does not overlap in[me] and the operands' sides are free (a
     * commutative op, not IC_REPRODUCIBLE's exact sides). */
    ic_loc_t mine = ic_layout_at(&in, me);
    bool into_out = pl->op && pl->op->commutative && !pl->exact_sides &&
                    (mine.buf != out.buf || mine.off + len[me] <= out.off ||
                     out.off + len[me] <= mine.off);
    /* Two alternating partial buffers (receive k+1 overlaps send k), for
     * the receives that do not go to out. */
    int staged = into_out ? n - 2 : n - 1;
    ic_loc_t part[2] = {ic_loc(IC_BUF_SCRATCH, staged > 0 ? ic_plan_scratch(pl, maxlen) : 0),
                        ic_loc(IC_BUF_SCRATCH, staged > 1 ? ic_plan_scratch(pl, maxlen) : 0)};
    for (int k = 0; k < n - 1; k++) {
        int sb = ic_mod(me - k - 1, n), rb = ic_mod(me - k - 2, n);
        ic_loc_t sendfrom = k == 0 ? ic_layout_at(&in, sb) : part[(k - 1) & 1];
        ic_loc_t recvto = k == n - 2 && into_out ? out : part[k & 1];
        if (len[sb] > 0)
            ic_plan_send(pl, right, (uint32_t)k, sendfrom, len[sb]);
        if (len[rb] > 0)
            ic_plan_recv(pl, left, (uint32_t)k, recvto, len[rb]);
        if (k < n - 2)
            ic_plan_reduce(pl, ic_layout_at(&in, rb), part[k & 1], len[rb], 0);
    }
    if (into_out) { /* out = in[me] (op) partial */
        ic_plan_reduce(pl, mine, out, len[me], 0);
        return;
    }
    ic_plan_copy(pl, mine, out, len[me]); /* out = partial (op) in[me] */
    ic_plan_reduce(pl, part[(n - 2) & 1], out, len[me], 0);
}
