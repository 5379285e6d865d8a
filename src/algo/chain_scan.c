/*
 * chain_scan.c — inclusive and exclusive prefix reduction by a segmented
 * pipeline along the rank-ordered chain 0 -> 1 -> ... -> n-1.
 *
 * Computes: out on member i = in_0 (op) ... (op) in_i (inclusive) or
 * in_0 (op) ... (op) in_{i-1} (exclusive; member 0's out is not written).
 * The vector is cut into k segments.  Member 0 sends its input segment by
 * segment; member i > 0 receives the prefix x of members 0..i-1 for
 * segment s, combines x (op) in_i (lower ranks on the left, so
 * non-commutative operations are correct) and forwards the result for
 * segment s while segment s+1 arrives.  Inclusive: the result is out
 * itself (x is received into out directly when the operation commutes and
 * out is not the input; otherwise out = in first and x lands in scratch).
 * Exclusive: x is received into out, and members 1..n-2 combine x (op) in
 * in scratch (a copy of in) and forward that; member n-1 only receives.
 * This is the reduce-to-one chain of chain_reduce.c with root n-1 whose
 * every node keeps its partial: the same schedule, the same cost.
 * Preconditions: any n >= 1, k >= 1 non-empty segments of whole elements.
 * Cost: h = n-1 hops, c_s = alpha + len_s*beta, g_s = len_s*gamma; with one
 *       send port, one receive port and one compute unit per node, the
 *       recurrence of chain_reduce.c with root n-1 (ic_cost_chain_scan_time;
 *       the exclusive form's last node does not combine);
 *       for equal segments T = h*c + h'*g + (k-1)*max(c, g), h' = n-1
 *       combining hops (inclusive) or n-2 (exclusive; at n = 2 nobody
 *       combines and c alone paces the pipe).  Against the
 *       dissemination scan's ceil(log2 n)*(c + g) on the whole vector it
 *       sends n-1 messages of the vector in all instead of
 *       n*ceil(log2 n) - 2^ceil(log2 n) + 1 (n = 4: 3 instead of 5, with
 *       as many combinations): less total work, which is what counts when
 *       ranks share cores, and a pipe when they do not.  The members'
 *       copies of their inputs run while they wait for their first segment;
 *       only when ranks outnumber cores are they priced (ic_cost_scan_chain).
 *       The result is not canonical (left to right, not the dissemination
 *       order), so IC_REPRODUCIBLE keeps the dissemination scan.
 * Source: [Watts94] section 11 (the reduction pipeline; k_i with
 *       beta+gamma), run as a prefix: every node of the chain keeps what it
 *       forwards.
 *
 * n = 4, inclusive:  0 --x0--> 1 --x0.x1--> 2 --x0.x1.x2--> 3
 */
#include "algo/builders_pipeline.h"

void ic_blk_chain_scan(ic_plan_t *pl, const ic_view_t *v, ic_loc_t in, ic_loc_t out,
                       const ic_segs_t *sg, bool exclusive, bool commutative)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me, k = sg->k;
    if (me < 0 || k <= 0)
        return;
    size_t bytes = sg->off[k - 1] + sg->len[k - 1];
    bool same = ic_loc_eq(in, out);
    if (me == 0) {
        if (!exclusive && !same)
            ic_plan_copy(pl, in, out, bytes);
        for (int s = 0; n > 1 && s < k; s++)
            ic_plan_send(pl, ic_view_rank(v, 1), (uint32_t)s, ic_loc_add(in, sg->off[s]),
                         sg->len[s]);
        return;
    }
    int pred = ic_view_rank(v, me - 1);
    int succ = me + 1 < n ? ic_view_rank(v, me + 1) : -1;
    if (exclusive) {
        /* t = x (op) in for the successor: in copied first, so an
         * in-place call may then receive x over it. */
        ic_loc_t t = ic_loc(IC_BUF_NONE, 0);
        if (succ >= 0) {
            t = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
            ic_plan_copy(pl, in, t, bytes);
        }
        for (int s = 0; s < k; s++) {
            ic_loc_t os = ic_loc_add(out, sg->off[s]);
            ic_plan_recv(pl, pred, (uint32_t)s, os, sg->len[s]);
            if (succ < 0)
                continue;
            ic_loc_t ts = ic_loc_add(t, sg->off[s]);
            ic_plan_reduce(pl, os, ts, sg->len[s], 0);
            ic_plan_send(pl, succ, (uint32_t)s, ts, sg->len[s]);
        }
        return;
    }
    /* Inclusive: out = x (op) in. */
    bool direct = commutative && !same; /* receive x into out, out = in (op) x */
    ic_loc_t tmp = direct ? ic_loc(IC_BUF_NONE, 0)
                          : ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
    for (int s = 0; s < k; s++) {
        ic_loc_t os = ic_loc_add(out, sg->off[s]), is = ic_loc_add(in, sg->off[s]);
        size_t len = sg->len[s];
        if (direct) {
            ic_plan_recv(pl, pred, (uint32_t)s, os, len);
            ic_plan_reduce(pl, is, os, len, 0);
        } else {
            ic_loc_t ts = ic_loc_add(tmp, sg->off[s]);
            if (!same)
                ic_plan_copy(pl, is, os, len);
            ic_plan_recv(pl, pred, (uint32_t)s, ts, len);
            ic_plan_reduce(pl, ts, os, len, 0);
        }
        if (succ >= 0)
            ic_plan_send(pl, succ, (uint32_t)s, os, len);
    }
}
