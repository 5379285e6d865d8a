/*
 * stage_rings.c — collect (allgather) and distributed reduction
 * (reduce-scatter) over the rings of a stage schedule: dimensional rings
 * (DR) when the rings are the mesh's dimensions, prime factors rings (PFR)
 * when they are the prime factors of p, the PFR-DR hybrid in between.
 *
 * Computes (reduce-scatter): the split rings in split order; in stage k
 * every ring of order[k] runs a ring reduce-scatter (ring_reduce_scatter.c)
 * of the slab its members share, cut into one sub-slab per member, so
 * after the last stage each rank holds its own piece reduced over all
 * split rings.  Collect: the reverse, ring allgathers from the last split
 * ring to the first, each member contributing the slab it holds.
 * Preconditions: pieces at base + poff[q], q = 0..P (poff has P+1
 * entries, non-decreasing); reduce-scatter needs a commutative operation.
 * Cost with equal pieces, N bytes in all, rings m_0..m_(d-1) split:
 *   collect             sum_k (m_k - 1) * (alpha + N/prod_{j<=k} m_j * beta)
 *                       = (sum_k (m_k - 1)) * alpha + (p-1)/p * N * beta
 *   distributed reduce  (sum_k (m_k - 1)) * alpha + (p-1)/p * N * (beta + gamma)
 *   ([Watts94] sections 8 and 10: T_DR-COLLECT, T_PFR-COLLECT; PFR on
 *   p = 60 = 2*2*3*5: 1+1+2+4 = 8 startups instead of 59.)  Uneven pieces:
 *   each stage as long as its slowest ring (select/cost_mesh.c).
 * Source: [Watts94] sections 5.2, 6.1, 8, 10; [vdG-CCTP] "Physical 2D meshes".
 *
 * 2 x 3 mesh, DR collect, last ring first (each box: a rank's blocks):
 *   rows (3):    [a . .|. . .]  ->  [a b c|. . .]  (every row: its 3 blocks)
 *   columns (2): [a b c|. . .]  ->  [a b c|d e f]  (slabs of 3 blocks)
 */
#include "algo/stage_blocks.h"

bool ic_stage_layout(ic_plan_t *pl, const ic_sched_t *s, int k, int me, const size_t *poff,
                     size_t **off, size_t **len)
{
    int m = s->ring[s->order[k]].size;
    long w = ic_sched_slab_pieces(s, k + 1), start = ic_sched_slab_start(s, k, me);
    *off = ic_plan_sizes(pl, (size_t)m);
    *len = ic_plan_sizes(pl, (size_t)m);
    if (!*off || !*len)
        return false;
    for (int u = 0; u < m; u++) {
        long q = start + u * w;
        (*off)[u] = poff[q];
        (*len)[u] = poff[q + w] - poff[q];
    }
    return true;
}

void ic_blk_stage_allgather(ic_plan_t *pl, const ic_sched_t *s, const size_t *poff,
                            ic_loc_t base, ic_loc_t mine)
{
    int me = pl->rank;
    for (int k = s->nsplit - 1; k >= 0; k--) {
        size_t *off, *len;
        ic_plan_fence(pl);
        if (!ic_stage_layout(pl, s, k, me, poff, &off, &len))
            return;
        ic_view_t v = ic_sched_view(s, s->order[k], me, true);
        ic_layout_t buf = {base, off};
        ic_loc_t from = k == s->nsplit - 1 ? mine : ic_layout_at(&buf, v.me);
        ic_blk_ring_allgather(pl, &v, len, buf, from);
    }
}

void ic_blk_stage_reduce_scatter(ic_plan_t *pl, const ic_sched_t *s, const size_t *poff,
                                 ic_loc_t in, ic_loc_t work, ic_loc_t out)
{
    int me = pl->rank;
    for (int k = 0; k < s->nsplit; k++) {
        size_t *off, *len;
        ic_plan_fence(pl);
        if (!ic_stage_layout(pl, s, k, me, poff, &off, &len))
            return;
        ic_view_t v = ic_sched_view(s, s->order[k], me, true);
        ic_layout_t src = {k == 0 ? in : work, off};
        ic_layout_t dst = {work, off};
        bool last = k == s->nsplit - 1;
        ic_loc_t to = last && out.buf != IC_BUF_NONE ? out : ic_layout_at(&dst, v.me);
        ic_blk_ring_reduce_scatter(pl, &v, len, src, to);
    }
}
