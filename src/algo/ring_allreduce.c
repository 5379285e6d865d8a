/*
 * ring_allreduce.c — reduction-to-all by circulating whole vectors in a
 * ring ([Watts94] section 12, the PFR reduction-to-all: one ring per prime
 * factor; for a ring of 2 it is the exchange-and-combine step of
 * [vdG91]'s global combine).
 *
 * Computes: acc on every member = the reduction of all members' in.  In
 * step k = 0..n-2 member i sends to its right neighbour the vector it
 * received in step k-1 (its own in for k = 0) and receives the next one
 * from its left, combining it into acc while the following step's message
 * is already under way.
 * Preconditions: any n >= 1; a commutative operation (member i combines
 * in the order i, i-1, i-2, ...).
 * Cost: (n-1)*(alpha + N*beta) + N*gamma when N*gamma <= alpha + N*beta
 *       (the combine of step k overlaps step k+1); in general the
 *       recurrence c_k = max(c_(k-1), (k+1)*(alpha + N*beta)) + N*gamma,
 *       cost c_(n-2).  The paper's formula (n-1)*(alpha + N*(beta + gamma))
 *       assumes no such overlap.
 * Source: [Watts94] section 12 (T_PFR-REDUCTION-TO-ALL), [vdG91] (exchange step).
 *
 * n = 3:  step 0: 0 --x0--> 1 --x1--> 2 --x2--> 0
 *         step 1: 0 --x2--> 1 --x0--> 2 --x1--> 0   (all hold x0+x1+x2)
 */
#include "algo/stage_blocks.h"

void ic_blk_ring_allreduce(ic_plan_t *pl, const ic_view_t *v, ic_loc_t in, ic_loc_t acc,
                           size_t bytes)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0 || bytes == 0)
        return;
    ic_plan_copy(pl, in, acc, bytes);
    if (n == 1)
        return;
    int right = ic_view_rank(v, ic_ring_right(me, n));
    int left = ic_view_rank(v, ic_ring_left(me, n));
    /* Two alternating receive buffers: step k+1's receive overlaps step
     * k's combine.  Step 0 sends from acc when in is acc (before any
     * combine into it: the write waits for the send). */
    ic_loc_t tmp[2] = {ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes)),
                       ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes))};
    for (int k = 0; k < n - 1; k++) {
        ic_plan_send(pl, right, (uint32_t)k, k == 0 ? in : tmp[(k - 1) & 1], bytes);
        ic_plan_recv(pl, left, (uint32_t)k, tmp[k & 1], bytes);
        ic_plan_reduce(pl, tmp[k & 1], acc, bytes, 0);
    }
}
