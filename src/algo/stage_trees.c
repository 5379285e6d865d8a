/*
 * stage_trees.c — scatter and gather over the split rings of a stage
 * schedule: an MST scatter (gather) in each ring, one ring after the
 * other, so the vector is cut dimension by dimension ([Watts94] section 9:
 * "the vector is scattered through each dimension"; section 11: the
 * gathers of DG reduction-to-one).
 *
 * Computes (scatter): the root's pieces at base + poff[q] reach every rank
 * r's slab after the last split stage, at the same offsets.  Stage k runs
 * in the rings of order[k] through the ranks that agree with the root on
 * every later ring (split or short): the holders of data.  Gather: the
 * reverse, last split ring first, towards the root.
 * Preconditions: any ring sizes, any root; poff has P+1 entries.
 * Cost with equal pieces, N bytes, split rings m_0..m_(j-1) (powers of two):
 *   sum_k ( log2(m_k) * alpha + (m_k - 1)/m_k * N/prod_{i<k} m_i * beta )
 *   (each stage as MST scatter, mst_scatter.c; other sizes: the tree
 *   recurrence of select/cost_tree.c per stage, summed).
 * Source: [Watts94] sections 7, 9, 11; [vdG-CCTP] "2D Scatter/Allgather Broadcast".
 *
 * 2 x 3, root 0: scatter in column (0 -> 3: half), then in rows
 * (0 -> 1, 2; 3 -> 4, 5): every rank holds one sixth.
 */
#include "algo/stage_blocks.h"

void ic_blk_stage_scatter(ic_plan_t *pl, const ic_sched_t *s, int root, const size_t *poff,
                          ic_loc_t base)
{
    int me = pl->rank;
    for (int k = 0; k < s->nsplit; k++) {
        size_t *off, *len;
        ic_plan_fence(pl);
        if (!ic_stage_layout(pl, s, k, me, poff, &off, &len))
            return;
        /* The holders of data agree with the root on every later ring. */
        bool active = ic_sched_same_digits(s, me, root, k + 1, s->nrings);
        int t = s->order[k];
        ic_view_t v = ic_sched_view(s, t, me, active);
        ic_layout_t buf = {base, off};
        ic_blk_mst_scatter(pl, &v, ic_sched_digit(s, t, root), NULL, len, buf, buf,
                           ic_loc(IC_BUF_NONE, 0));
    }
}

void ic_blk_stage_gather(ic_plan_t *pl, const ic_sched_t *s, int root, const size_t *poff,
                         ic_loc_t base)
{
    int me = pl->rank;
    for (int k = s->nsplit - 1; k >= 0; k--) {
        size_t *off, *len;
        ic_plan_fence(pl);
        if (!ic_stage_layout(pl, s, k, me, poff, &off, &len))
            return;
        /* The holders of data agree with the root on every later ring. */
        bool active = ic_sched_same_digits(s, me, root, k + 1, s->nrings);
        int t = s->order[k];
        ic_view_t v = ic_sched_view(s, t, me, active);
        ic_layout_t buf = {base, off};
        ic_loc_t mine = active ? ic_layout_at(&buf, v.me) : base;
        ic_blk_mst_gather(pl, &v, ic_sched_digit(s, t, root), NULL, len, mine, buf, buf);
    }
}
