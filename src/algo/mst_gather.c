/*
 * mst_gather.c — minimum-spanning-tree gather(v) by recursive splitting.
 *
 * Computes: member i's block (len[i] bytes at mine) reaches dst[i] on the
 * root.  The scatter tree run bottom-up: a member collects its range in
 * its stage (its own block copied in, each child's range received) and
 * sends the whole range to its parent in one message.
 * Preconditions: any n >= 1, any root, any lengths (zero-length ranges send
 * nothing).  When the root's dst layout is not contiguous over a child's
 * range, that range is received into scratch and copied out block by block.
 * Cost (geometric, n = 2^d, equal blocks, N bytes in all):
 *       d*alpha + (n-1)/n * N * beta; otherwise the recurrence of
 *       select/cost_tree.c (a parent receives its children's ranges in the
 *       order they become ready, one at a time).
 * Source: [vdG-CCTP] (MST gather), [Watts94] section 7 (data-distribution-aware split).
 *
 * n = 6, root 2, geometric (the scatter picture, arrows reversed):
 *   level 2:  1 --(1)--> 0          4 --(4)--> 3
 *   level 1:  0 --(0,1)--> 2        3 --(3,4)--> 5
 *   level 0:  5 --(3,4,5)--> 2
 */
#include "algo/blocks.h"

static size_t range_bytes(const size_t *len, int lo, int hi)
{
    size_t s = 0;
    for (int i = lo; i <= hi; i++)
        s += len[i];
    return s;
}

void ic_blk_mst_gather(ic_plan_t *pl, const ic_view_t *v, int root,
                       const ic_split_t *sp, const size_t *len, ic_loc_t mine,
                       ic_layout_t stage, ic_layout_t dst)
{
    ic_plan_next_phase(pl);
    if (v->me < 0)
        return;
    int n = v->n, me = v->me, lo, hi;
    ic_mst_edge_t *e = ic_plan_tmp(pl, (size_t)n * sizeof(*e));
    if (!e)
        return;
    int k = ic_mst_edges(sp, n, root, me, e, &lo, &hi);
    int first_child = me == root ? 0 : 1;
    if (me != root && k == 1) { /* a leaf sends its own block */
        if (len[me] > 0)
            ic_plan_send(pl, ic_view_rank(v, e[0].parent), 0, mine, len[me]);
        return;
    }
    ic_layout_t have = me == root ? dst : stage;
    if (me != root && !stage.off) {
        size_t *off = ic_plan_sizes(pl, (size_t)n);
        if (!off)
            return;
        size_t total = ic_prefix_offsets(len + lo, hi - lo + 1, off + lo);
        have.base = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, total));
        have.off = off;
    }
    ic_plan_copy(pl, mine, ic_layout_at(&have, me), len[me]);
    for (int i = k - 1; i >= first_child; i--) {
        size_t m = range_bytes(len, e[i].lo, e[i].hi);
        if (m == 0)
            continue;
        int from = ic_view_rank(v, e[i].child);
        if (ic_layout_contiguous(&have, len, e[i].lo, e[i].hi)) {
            ic_plan_recv(pl, from, 0, ic_layout_at(&have, e[i].lo), m);
            continue;
        }
        ic_loc_t tmp = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, m));
        ic_plan_recv(pl, from, 0, tmp, m);
        for (int j = e[i].lo; j <= e[i].hi; j++) {
            ic_plan_copy(pl, tmp, ic_layout_at(&have, j), len[j]);
            tmp.off += len[j];
        }
    }
    if (me != root) {
        size_t m = range_bytes(len, lo, hi);
        if (m > 0)
            ic_plan_send(pl, ic_view_rank(v, e[0].parent), 0, ic_layout_at(&have, lo), m);
    }
}
