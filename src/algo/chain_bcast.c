/*
 * chain_bcast.c — segmented pipeline broadcast along a chain.
 *
 * Computes: the root's bytes at buf reach buf on every member.  The
 * vector is cut into k segments (sg: whole elements, at 64-byte
 * boundaries, ic_segs_make); the chain is root,
 * root+1, ..., n-1, 0, ..., root-1 (view indices); every member forwards
 * segment s to its successor as soon as it has received it (the plan's
 * byte-range dependencies do this by themselves), so up to n-1 segments
 * are in flight at once.
 * Preconditions: any n >= 1, any root, k >= 1 non-empty segments.
 * Cost: with c_s = alpha + len_s*beta, one send and one receive port per
 *       node, segment s reaches chain position q at
 *         R(q, s) = max(R(q-1, s), R(q, s-1)) + c_s,
 *       a longest path through a (n-1) x k grid, i.e.
 *         T = sum_s c_s + (n-2) * max_s c_s
 *           = k*alpha + bytes*beta + (n-2)*(alpha + len_max*beta)
 *       (the largest segment paces the pipe); for equal segments
 *         T = (n-1 + k-1) * (alpha + bytes/k*beta).
 *       k = sqrt((n-2)*bytes*beta/alpha) minimises it (ic_pipe_segments).
 *       n = 2 over a transport that sends one-way messages inline up to
 *       its eager limit L: k = ceil(bytes/L) back-to-back eager segments,
 *       T = alpha + bytes*beta + len_last*delta (ic_pipe_stream2_segments,
 *       builders_pipeline.h).
 * Source: [Watts94] section 9 (DOPL broadcast with d = 1, k_alt = 1; k_i).
 *
 * n = 4, root 1, k = 3 (time steps of one message each):
 *
 *   step   1     2     3     4     5
 *   1->2   s0    s1    s2
 *   2->3         s0    s1    s2
 *   3->0               s0    s1    s2       T = (3 + 3-1) steps
 */
#include "algo/builders_pipeline.h"

long ic_blk_chain_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf,
                        const ic_segs_t *sg, long after)
{
    ic_plan_next_phase(pl);
    if (v->me < 0 || v->n <= 1 || sg->k <= 0)
        return after;
    int n = v->n, pos = ic_mod((long)v->me - root, n);
    int pred = ic_view_rank(v, ic_ring_left(v->me, n));
    int succ = ic_view_rank(v, ic_ring_right(v->me, n));
    long last = after;
    for (int s = 0; s < sg->k; s++) {
        ic_loc_t at = ic_loc_add(buf, sg->off[s]);
        if (pos > 0)
            ic_plan_recv(pl, pred, (uint32_t)s, at, sg->len[s]);
        if (pos < n - 1) {
            long st = ic_plan_send(pl, succ, (uint32_t)s, at, sg->len[s]);
            if (st >= 0 && after >= 0)
                ic_plan_add_dep(pl, st, after);
            if (st >= 0)
                last = st;
        }
    }
    return last;
}
