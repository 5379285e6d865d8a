/*
 * mst_reduce.c — minimum-spanning-tree reduce-to-one by recursive splitting.
 *
 * Computes: acc on the root = in_0 (op) in_1 (op) ... (op) in_{n-1}, in view
 * order, so non-commutative operations are correct: every subtree is a
 * contiguous range and a parent combines a child's range on the side where
 * it lies (left: acc = child (op) acc; right: acc = acc (op) child).
 * Preconditions: any n >= 1, any root.
 * Cost: ceil(log2 n) * (alpha + bytes*beta + bytes*gamma) for n a power of
 *       two.  The first partial a member receives goes straight into its
 *       accumulator when it comes from its right (then no copy of the
 *       input; else the input is copied into it first, bytes*delta, not in
 *       the formula); later ones go to two alternating scratch buffers, so
 *       a receive can overlap the previous reduction; for other n two leaves
 *       of one parent may then finish earlier than the formula (the exact
 *       time is the recurrence in select/cost_tree.c).
 * Source: [vdG-CCTP] (MSTREDUCE), [Watts94] section 5.1.
 *
 * n = 5, root 0 (the broadcast tree, run bottom-up):
 *
 *   level 2:  1 -> 0
 *   level 1:  2 -> 0          3 -> 4   (4 computes 3 (op) 4)
 *   level 0:  4 (holding 3 (op) 4) -> 0
 */
#include "algo/blocks.h"

void ic_blk_mst_reduce(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t in,
                       ic_loc_t acc, size_t bytes)
{
    ic_blk_mst_reduce_split(pl, v, root, NULL, in, acc, bytes);
}

void ic_blk_mst_reduce_split(ic_plan_t *pl, const ic_view_t *v, int root, const ic_split_t *sp,
                             ic_loc_t in, ic_loc_t acc, size_t bytes)
{
    ic_plan_next_phase(pl);
    if (v->me < 0 || bytes == 0)
        return;
    ic_mst_edge_t e[64]; /* halving tree: at most 1 + ceil(log2 n) <= 32 edges */
    int k = ic_mst_edges(sp, v->n, root, v->me, e, NULL, NULL);
    int first_child = (k > 0 && e[0].child == v->me) ? 1 : 0;
    int nchildren = k - first_child;
    bool is_root = v->me == root;
    if (nchildren == 0 && !is_root) {
        ic_plan_send(pl, ic_view_rank(v, e[0].parent), 0, in, bytes);
        return;
    }
    if (acc.buf == IC_BUF_NONE)
        acc = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
    int i = k - 1;
    /* The first partial to arrive comes from the child with the smallest
     * subtree.  When that lies right of me and acc does not overlap in, it
     * is received straight into acc and my input combined into it
     * (acc = in (op) partial, in order): no copy of in into acc. */
    bool disjoint = in.buf != acc.buf || in.off + bytes <= acc.off || acc.off + bytes <= in.off;
    if (i >= first_child && e[i].lo > v->me && disjoint) {
        ic_plan_recv(pl, ic_view_rank(v, e[i].child), 0, acc, bytes);
        ic_plan_reduce(pl, in, acc, bytes, 0);
        i--;
    } else {
        ic_plan_copy(pl, in, acc, bytes);
    }
    ic_loc_t tmp[2] = {ic_loc(IC_BUF_NONE, 0), ic_loc(IC_BUF_NONE, 0)};
    for (int t = 0; i >= first_child; i--, t ^= 1) {
        if (tmp[t].buf == IC_BUF_NONE)
            tmp[t] = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
        ic_plan_recv(pl, ic_view_rank(v, e[i].child), 0, tmp[t], bytes);
        unsigned flags = e[i].lo > v->me ? IC_RED_DST_LEFT : 0;
        ic_plan_reduce(pl, tmp[t], acc, bytes, flags);
    }
    if (!is_root)
        ic_plan_send(pl, ic_view_rank(v, e[0].parent), 0, acc, bytes);
}
