/*
 * mst_scatter.c — minimum-spanning-tree scatter(v) by recursive splitting.
 *
 * Computes: block i of the root's src layout (len[i] bytes) reaches dst on
 * member i.  The root hands each child the blocks of the child's whole
 * range in one message; the child forwards sub-ranges from its stage.
 * Preconditions: any n >= 1, any root, any lengths (zero-length ranges send
 * nothing).  A root layout that is not contiguous is packed into scratch
 * first (one copy per block).
 * Split: geometric ([vdG-CCTP]) or data-distribution-aware ([Watts94] sect. 7:
 * the root finishes last; geometric when its imbalance is below
 * alpha/beta bytes), see patterns.c.
 * Cost (geometric, n = 2^d, equal blocks of b bytes, N = n*b):
 *       d*alpha + (n-1)/n * N * beta.
 *       Any other n and lengths: the recurrence T(range) = max over the
 *       root's children k, in send order, of sum_{j<=k}(alpha + m_j*beta) +
 *       T(child k), in select/cost_tree.c.  One member that needs all N
 *       bytes costs alpha + N*beta with the data-aware split.
 * Source: [vdG-CCTP] (MST scatter), [Watts94] section 7.
 *
 * n = 6, root 2, geometric:
 *   level 0:  [0 1 2 | 3 4 5]     2 --(3,4,5)--> 5
 *   level 1:  [0 1 | 2] [3 4 | 5] 2 --(0,1)--> 0 ; 5 --(3,4)--> 3
 *   level 2:  [0 | 1]   [3 | 4]   0 --(1)--> 1   ; 3 --(4)--> 4
 */
#include "algo/blocks.h"

#include <string.h>

static size_t range_bytes(const size_t *len, int lo, int hi)
{
    size_t s = 0;
    for (int i = lo; i <= hi; i++)
        s += len[i];
    return s;
}

void ic_blk_mst_scatter(ic_plan_t *pl, const ic_view_t *v, int root,
                        const ic_split_t *sp, const size_t *len, ic_layout_t src,
                        ic_layout_t stage, ic_loc_t dst)
{
    ic_plan_next_phase(pl);
    if (v->me < 0)
        return;
    int n = v->n, me = v->me, lo, hi;
    ic_mst_edge_t *e = ic_plan_tmp(pl, (size_t)n * sizeof(*e));
    if (!e)
        return;
    int k = ic_mst_edges(sp, n, root, me, e, &lo, &hi);
    ic_layout_t have; /* where the blocks of my range are */
    if (me == root) {
        have = src;
        if (!ic_layout_contiguous(&src, len, 0, n - 1)) {
            size_t *off = ic_plan_sizes(pl, (size_t)n);
            if (!off)
                return;
            size_t total = ic_prefix_offsets(len, n, off);
            have.base = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, total));
            have.off = off;
            for (int i = 0; i < n; i++)
                if (i != me)
                    ic_plan_copy(pl, ic_layout_at(&src, i), ic_layout_at(&have, i), len[i]);
        }
    } else if (lo == hi && dst.buf != IC_BUF_NONE) {
        /* A leaf receives its block straight into place. */
        if (len[me] > 0)
            ic_plan_recv(pl, ic_view_rank(v, e[0].parent), 0, dst, len[me]);
        return;
    } else {
        have = stage;
        if (!stage.off) {
            size_t *off = ic_plan_sizes(pl, (size_t)n);
            if (!off)
                return;
            size_t total = ic_prefix_offsets(len + lo, hi - lo + 1, off + lo);
            have.base = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, total));
            have.off = off;
        }
        size_t m = range_bytes(len, lo, hi);
        if (m > 0)
            ic_plan_recv(pl, ic_view_rank(v, e[0].parent), 0, ic_layout_at(&have, lo), m);
    }
    for (int i = me == root ? 0 : 1; i < k; i++) {
        size_t m = range_bytes(len, e[i].lo, e[i].hi);
        if (m > 0)
            ic_plan_send(pl, ic_view_rank(v, e[i].child), 0, ic_layout_at(&have, e[i].lo), m);
    }
    if (dst.buf != IC_BUF_NONE)
        ic_plan_copy(pl, ic_layout_at(me == root ? &src : &have, me), dst, len[me]);
}
