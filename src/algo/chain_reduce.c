/*
 * chain_reduce.c — segmented pipeline reduce-to-one along a rank-ordered
 * chain.
 *
 * Computes: acc on the root = in_0 (op) in_1 (op) ... (op) in_{n-1} in view
 * order, so non-commutative operations are correct.  The vector is cut
 * into k segments; the partial flows along a chain that grows a contiguous
 * range of view indices one member at a time (ic_chain_reduce_order):
 *   root 0:    n-1 -> n-2 -> ... -> 0           each prepends: x (op) in
 *   root n-1:  0 -> 1 -> ... -> n-1             each appends:  in (op) x
 *   root r:    r -> r+1 -> ... -> n-1 -> r-1 -> ... -> 0 -> r
 *              (r+1..n-1 append, r-1..0 prepend; the root sends its input
 *              first and receives the finished segments last)
 * A single chain cannot end at a root in the middle without breaking rank
 * order (it would have to join x_0..x_{r-1} and x_{r+1}..x_{n-1} without
 * x_r), and two chains into the root would double the bytes through its
 * one receive port; the middle root therefore costs one hop more.
 * Each member combines segment s as soon as it has received it and then
 * forwards it.  Appending members with a non-commutative operation copy
 * their input to scratch first (the engine's DST_LEFT would clobber the
 * read-only input); with a commutative one they combine into the received
 * segment directly.
 * Preconditions: any n >= 1, any root, k >= 1 non-empty segments of whole
 *       elements (an operation is applied element-wise, intercom.h).
 * Cost: h hops (h = n-1 for root 0 or n-1, else n), c_s = alpha +
 *       len_s*beta, g_s = len_s*gamma; one send port, one receive port and
 *       one compute unit per node.  Message s into position q ends at
 *         R(q, s) = max(A(q-1, s), R(q, s-1)) + c_s,  A(0, s) = 0,
 *       the combination at
 *         A(q, s) = max(R(q, s), A(q, s-1)) + g_s
 *       (A = R for the middle root, which only receives); T = A(h, k-1).
 *       For equal segments (c, g):
 *         T = h*c + h'*g + (k-1)*max(c, g),   h' = combining hops on the
 *       path (h for an end root, h-1 for a middle root): compute overlaps
 *       the ports, so the pipe moves at the pace of the slower of the port
 *       (c) and the compute unit (g), and both are paid once per hop.
 *       The paper's (h + k-1)*(alpha + bytes/k*(beta+gamma)) is an upper
 *       bound.  Local copies (delta) are not priced.
 * Source: [Watts94] section 11 (reduction-to-one: the broadcast pipeline reversed;
 *       k_i with beta+gamma).
 *       n = 2 over a transport that sends one-way messages inline up to
 *       its eager limit: k from ic_pipe_stream2_segments (builders_pipeline.h),
 *       the segments after the first without a start-up and with their
 *       second copies overlapped, each combined once it is in.
 *
 * n = 4, root 2:  2 -> 3 -> 1 -> 0 -> 2
 *                 x2   x2.x3  x1.x2.x3  x0.x1.x2.x3
 */
#include "algo/builders_pipeline.h"

int ic_chain_reduce_order(int m, int root, int *seq)
{
    int h = 0;
    if (m <= 1) {
        seq[0] = root;
        return 0;
    }
    if (root == 0) {
        for (int i = m - 1; i >= 0; i--)
            seq[h++] = i;
        return h - 1;
    }
    if (root == m - 1) {
        for (int i = 0; i < m; i++)
            seq[h++] = i;
        return h - 1;
    }
    for (int i = root; i < m; i++)
        seq[h++] = i;
    for (int i = root - 1; i >= 0; i--)
        seq[h++] = i;
    seq[h] = root;
    return h;
}

/* Adds the explicit dependency on after to the step just added. */
static long dep(ic_plan_t *pl, long st, long after, long *last)
{
    if (st >= 0) {
        if (after >= 0)
            ic_plan_add_dep(pl, st, after);
        *last = st;
    }
    return st;
}

long ic_blk_chain_reduce(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t in,
                         ic_loc_t acc, const ic_segs_t *sg, bool commutative, long after)
{
    ic_plan_next_phase(pl);
    if (v->me < 0 || sg->k <= 0)
        return after;
    int n = v->n, me = v->me, k = sg->k;
    size_t bytes = sg->off[k - 1] + sg->len[k - 1];
    long last = after;
    if (n == 1) {
        if (!ic_loc_eq(in, acc))
            dep(pl, ic_plan_copy(pl, in, acc, bytes), after, &last);
        return last;
    }
    int *seq = ic_plan_tmp(pl, sizeof(int) * ((size_t)n + 1));
    if (!seq)
        return after;
    int h = ic_chain_reduce_order(n, root, seq);
    bool middle = seq[h] == seq[0];
    int q = 0;
    while (seq[q] != me)
        q++;
    /* The first node (and the middle root at its start) sends its input. */
    if (q == 0) {
        int succ = ic_view_rank(v, seq[1]);
        for (int s = 0; s < k; s++)
            dep(pl, ic_plan_send(pl, succ, (uint32_t)s, ic_loc_add(in, sg->off[s]), sg->len[s]),
                after, &last);
        if (!middle)
            return last;
        /* The middle root receives the finished segments. */
        int pred = ic_view_rank(v, seq[h - 1]);
        for (int s = 0; s < k; s++)
            dep(pl, ic_plan_recv(pl, pred, (uint32_t)s, ic_loc_add(acc, sg->off[s]), sg->len[s]),
                after, &last);
        return last;
    }
    /* A combining member: x = incoming partial, result into w. */
    int pred = ic_view_rank(v, seq[q - 1]);
    int succ = q < h ? ic_view_rank(v, seq[q + 1]) : -1;
    bool append = seq[q - 1] < me; /* the partial holds lower indices */
    ic_loc_t w = me == root ? acc : ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
    bool same = ic_loc_eq(w, in);
    bool direct = !same && (!append || commutative); /* receive straight into w */
    ic_loc_t tmp = direct ? ic_loc(IC_BUF_NONE, 0)
                          : ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
    for (int s = 0; s < k; s++) {
        ic_loc_t ws = ic_loc_add(w, sg->off[s]), is = ic_loc_add(in, sg->off[s]);
        size_t len = sg->len[s];
        if (direct) {
            /* w = in (op) x, which is x (op) in when the operation commutes. */
            dep(pl, ic_plan_recv(pl, pred, (uint32_t)s, ws, len), after, &last);
            dep(pl, ic_plan_reduce(pl, is, ws, len, 0), after, &last);
        } else {
            ic_loc_t ts = ic_loc_add(tmp, sg->off[s]);
            if (!same) /* appending, non-commutative: w = in, then w = x (op) w */
                dep(pl, ic_plan_copy(pl, is, ws, len), after, &last);
            dep(pl, ic_plan_recv(pl, pred, (uint32_t)s, ts, len), after, &last);
            /* w = x (op) w when appending, w = w (op) x when prepending
             * (x is scratch, which DST_LEFT may clobber). */
            dep(pl, ic_plan_reduce(pl, ts, ws, len, append ? 0 : IC_RED_DST_LEFT), after,
                &last);
        }
        if (succ >= 0)
            dep(pl, ic_plan_send(pl, succ, (uint32_t)s, ws, len), after, &last);
    }
    return last;
}
