/*
 * ring_allreduce.c — reduction-to-all by circulating whole vectors in a
 * ring ([Watts94] section 12, the PFR reduction-to-all: one ring per prime
 * factor; for a ring of 2 it is the exchange-and-combine step of
 * [vdG91]'s global combine).
 *
 * Computes: acc on every member = the reduction of all members' in, with
 * the same bits on every member.  In step k = 0..n-2 member i sends to its
 * right neighbour the vector it received in step k-1 (its own in for
 * k = 0) and receives the next one from its left, so it ends up holding
 * every member's vector, each in a scratch slot of its own.
 *
 * Order of combining.  Every member evaluates the same expression,
 *     x_{n-1} (op) ( ... (x_2 (op) (x_1 (op) x_0)) ... )
 * (at each step the next member's vector is the "in" operand and the
 * running result the "inout" one), so floating-point sums agree bit for
 * bit on every member.  Member 0 keeps the running result in acc; member
 * i > 0 keeps it in x_0's slot (combining x_1 .. x_{i-1} there as they
 * arrive, then its own in, then x_{i+1} ..) and copies it to acc at the
 * end.  For n = 2 both members compute x_1 (op) x_0 too, member 1 with
 * its own vector as the left operand (IC_RED_EXACT: computed into the
 * received copy, then copied back, N*delta), so even NaN payloads and
 * zero signs agree; n = 2 keeps the overlap of [vdG91].
 * Preconditions: any n >= 1; a commutative operation.
 * Cost: n = 2: alpha + N*beta + N*gamma (+ N*delta on member 1).
 *       n >= 3: (n-1)*(alpha + N*beta) + (n-1)*N*gamma + N*delta: member 0
 *       needs x_1, which arrives last, before its first combine, and
 *       member n-1 copies its result out at the end.  This is the paper's
 *       (n-1)*(alpha + N*(beta + gamma)) plus the copy; the overlap of
 *       combining with the next message that an arrival-order sum would
 *       get is given up for agreement.
 * Scratch: (n-1)*N (one slot per other member).
 * Source: [Watts94] section 12 (T_PFR-REDUCTION-TO-ALL), [vdG91] (exchange step).
 *
 * n = 3:  step 0: 0 --x0--> 1 --x1--> 2 --x2--> 0
 *         step 1: 0 --x2--> 1 --x0--> 2 --x1--> 0
 *         every member: x2 (op) (x1 (op) x0)
 */
#include "algo/stage_blocks.h"

/* n = 2: exchange and combine ([vdG91]).  Both members evaluate x_1 (op)
 * x_0 with x_1 the kernel's in operand, as the members of longer rings do:
 * member 1 combines its own acc on the left with its sides kept. */
static void exchange(ic_plan_t *pl, int me, int peer, ic_loc_t in, ic_loc_t acc, size_t bytes)
{
    ic_loc_t tmp = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
    ic_plan_copy(pl, in, acc, bytes);
    ic_plan_send(pl, peer, 0, in, bytes);
    ic_plan_recv(pl, peer, 0, tmp, bytes);
    ic_plan_reduce(pl, tmp, acc, bytes, me == 1 ? IC_RED_DST_LEFT | IC_RED_EXACT : 0);
}

void ic_blk_ring_allreduce(ic_plan_t *pl, const ic_view_t *v, ic_loc_t in, ic_loc_t acc,
                           size_t bytes)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0 || bytes == 0)
        return;
    if (n == 1) {
        ic_plan_copy(pl, in, acc, bytes);
        return;
    }
    int right = ic_view_rank(v, ic_ring_right(me, n));
    int left = ic_view_rank(v, ic_ring_left(me, n));
    if (n == 2) {
        exchange(pl, me, right, in, acc, bytes);
        return;
    }
    /* slot[j]: member j's vector (j != me); slot[me] is in. */
    ic_loc_t *slot = ic_plan_tmp(pl, sizeof(ic_loc_t) * (size_t)n);
    if (!slot)
        return;
    for (int j = 0; j < n; j++)
        slot[j] = j == me ? in : ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
    if (me == 0)
        ic_plan_copy(pl, in, acc, bytes);
    for (int k = 0; k < n - 1; k++) {
        ic_plan_send(pl, right, (uint32_t)k, slot[((me - k) % n + n) % n], bytes);
        ic_plan_recv(pl, left, (uint32_t)k, slot[((me - k - 1) % n + n) % n], bytes);
    }
    ic_loc_t run = me == 0 ? acc : slot[0];
    for (int j = 1; j < n; j++)
        ic_plan_reduce(pl, slot[j], run, bytes, 0);
    if (me != 0)
        ic_plan_copy(pl, run, acc, bytes);
}
