/*
 * mst_bcast.c — minimum-spanning-tree broadcast by recursive splitting.
 *
 * Computes: the root's bytes at buf are copied to buf on every member.
 * Preconditions: any n >= 1, any root.
 * Cost: ceil(log2 n) * (alpha + bytes*beta), for every n and root: the tree
 *       is ceil(log2 n) levels deep and each level is one message on the
 *       critical path.
 * Source: [vdG-CCTP] (MSTBCAST), [Watts94] section 5.1 (recursive splitting).
 *
 * n = 6, root 0 (ranges split at mid = floor((lo+hi)/2); the new root of
 * the far half is its far end):
 *
 *   level 0:  [0 1 2 | 3 4 5]       0 ------------------> 5
 *   level 1:  [0 1 | 2] [3 4 | 5]   0 --------> 2   5 -> 3
 *   level 2:  [0 | 1]   [3 | 4]     0 -> 1          3 -> 4
 *
 * With the near-end split (IC_SPLIT_NEAR, U-mesh on a chain, phys.h) the
 * same ranges get 0 -> 3, then 0 -> 2 and 3 -> 5, then 0 -> 1 and 3 -> 4.
 */
#include "algo/blocks.h"

void ic_blk_mst_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf,
                      size_t bytes)
{
    ic_blk_mst_bcast_split(pl, v, root, NULL, buf, bytes);
}

void ic_blk_mst_bcast_split(ic_plan_t *pl, const ic_view_t *v, int root, const ic_split_t *sp,
                            ic_loc_t buf, size_t bytes)
{
    ic_plan_next_phase(pl);
    if (v->me < 0 || v->n <= 1 || bytes == 0)
        return;
    ic_mst_edge_t e[64]; /* halving tree: at most 1 + ceil(log2 n) <= 32 edges */
    int k = ic_mst_edges(sp, v->n, root, v->me, e, NULL, NULL);
    for (int i = 0; i < k; i++) {
        if (e[i].child == v->me)
            ic_plan_recv(pl, ic_view_rank(v, e[i].parent), 0, buf, bytes);
        else
            ic_plan_send(pl, ic_view_rank(v, e[i].child), 0, buf, bytes);
    }
}
