/*
 * dissemination_scan.c — inclusive and exclusive prefix reduction.
 *
 * Computes: out on member i = in_0 (op) ... (op) in_i (inclusive) or
 * in_0 (op) ... (op) in_{i-1} (exclusive; member 0's out is not written).
 * Member i keeps x = in_{i-2^r+1} (op) ... (op) in_i.  In round r it sends
 * x to i + 2^r (if that exists) and receives y from i - 2^r (if that
 * exists): x = y (op) x.  For the exclusive form it also keeps
 * e = y (op) e (e starts as the first y).  Every combination puts the
 * lower ranks on the left, so non-commutative operations are correct.
 * Preconditions: any n >= 1, any operation.
 * Cost: ceil(log2 n) * (alpha + bytes*beta + bytes*gamma) for the
 *       inclusive form with n = 2^d; the exclusive form combines twice per
 *       round but skips the last update of x, so its exact time is the
 *       recurrence ic_cost_scan in select/cost_ring.c (at most one extra
 *       bytes*gamma per round).
 * Source: [MTR94] (scan by the standard-exchange pattern, Kumar); the ranks need
 *       not be a power of two here because partners outside 0..n-1 are
 *       simply left out.
 *
 * n = 6, rounds d = 1, 2, 4 (arrows: x sent to i + d):
 *   d=1: 0->1 1->2 2->3 3->4 4->5
 *   d=2: 0->2 1->3 2->4 3->5
 *   d=4: 0->4 1->5
 */
#include "algo/blocks.h"

void ic_blk_dissemination_scan(ic_plan_t *pl, const ic_view_t *v, ic_loc_t in,
                               ic_loc_t out, size_t bytes, bool exclusive)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0 || bytes == 0)
        return;
    /* Inclusive: x lives in out.  Exclusive: e lives in out, and x is the
     * input itself unless it must change (or the input is out). */
    bool x_changes = false;
    for (int d = 1; exclusive && d < n; d *= 2)
        x_changes |= me - d >= 0 && me + 2 * d < n;
    ic_loc_t x = out;
    if (exclusive)
        x = (!x_changes && (in.buf != out.buf || me == 0))
                ? in
                : ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
    ic_plan_copy(pl, in, x, bytes);
    ic_loc_t y = ic_loc(IC_BUF_NONE, 0);
    bool have_e = false;
    for (int r = 0, d = 1; d < n; r++, d *= 2) {
        if (me + d < n)
            ic_plan_send(pl, ic_view_rank(v, me + d), (uint32_t)r, x, bytes);
        if (me - d < 0)
            continue;
        bool update_x = !exclusive || me + 2 * d < n;
        if (exclusive && !have_e) {
            /* The first partial from below is e itself. */
            ic_plan_recv(pl, ic_view_rank(v, me - d), (uint32_t)r, out, bytes);
            have_e = true;
            if (update_x)
                ic_plan_reduce(pl, out, x, bytes, 0);
            continue;
        }
        if (y.buf == IC_BUF_NONE)
            y = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
        ic_plan_recv(pl, ic_view_rank(v, me - d), (uint32_t)r, y, bytes);
        if (exclusive)
            ic_plan_reduce(pl, y, out, bytes, 0);
        if (update_x)
            ic_plan_reduce(pl, y, x, bytes, 0);
    }
}
