/*
 * coll_bcast.c — broadcast: MST (short vectors), the Double Tree (all-port
 * hypercubes, double_tree_bcast.c), the edge-disjoint spanning trees
 * (multi-port hypercubes, edst_bcast.c) and scatter + allgather (long vectors,
 * [vdG-CCTP] "Broadcast (long vector)").
 *
 * scatter_allgather: the vector is cut into p nearly equal pieces (piece i
 * for rank i); an MST scatter moves piece i to rank i (in the user buffer,
 * at its final offset), then a ring allgather completes every buffer.
 * Cost for p = 2^d, p | n: d*alpha + (p-1)/p*n*beta + (p-1)*alpha +
 * (p-1)/p*n*beta.  The ring starts on each rank as soon as its piece has
 * arrived, so the simulated time may be below the sum of the two phases.
 */
#include "algo/builders.h"

ic_status_t ic_build_bcast_mst(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_mst_bcast(pl, &v, a->root, ic_loc(IC_BUF_RECV, 0), a->count * ic_args_esize(a));
    return pl->error;
}

ic_status_t ic_build_bcast_direct(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_direct_bcast(pl, &v, a->root, ic_loc(IC_BUF_RECV, 0), a->count * ic_args_esize(a));
    return pl->error;
}

ic_status_t ic_build_bcast_double_tree(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_double_tree_bcast(pl, &v, a->root, ic_loc(IC_BUF_RECV, 0),
                             a->count * ic_args_esize(a));
    return pl->error;
}

ic_status_t ic_build_bcast_edst(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_edst_bcast(pl, &v, a->root, ic_loc(IC_BUF_RECV, 0), a->count, ic_args_esize(a));
    return pl->error;
}

ic_status_t ic_build_bcast_scatter_allgather(ic_plan_t *pl, const ic_coll_args_t *a)
{
    int p = pl->size;
    size_t es = ic_args_esize(a);
    size_t *off = ic_plan_sizes(pl, (size_t)p), *len = ic_plan_sizes(pl, (size_t)p);
    if (!off || !len)
        return pl->error;
    ic_partition_even(a->count, p, off, len);
    for (int i = 0; i < p; i++) {
        off[i] *= es;
        len[i] *= es;
    }
    ic_view_t v = ic_view_whole(p, pl->rank);
    ic_layout_t buf = {ic_loc(IC_BUF_RECV, 0), off};
    ic_blk_mst_scatter(pl, &v, a->root, NULL, len, buf, buf, ic_loc(IC_BUF_NONE, 0));
    ic_blk_ring_allgather(pl, &v, len, buf, ic_layout_at(&buf, pl->rank));
    return pl->error;
}
