/*
 * coll_reduce_scatter.c — reduce_scatter_block and reduce_scatter (per-rank
 * counts): the ring (bucket distributed combine, commutative operations),
 * the direct exchange with each block combined in the rank tree (any
 * operation, canonical order) and MST reduce + MST scatter (any operation;
 * [vdG-CCTP]'s "reduce + scatter").
 *
 * reduce_scatter cost for p = 2^d, N bytes in all:
 *   d*(alpha + N*beta + N*gamma) + d*alpha + (p-1)/p*N*beta.
 */
#include "algo/builders.h"

static ic_layout_t rs_input(const ic_coll_args_t *a, const size_t *off)
{
    ic_layout_t in = {a->in_place ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_SEND, 0), off};
    return in;
}

static ic_status_t build_rs(ic_plan_t *pl, const ic_coll_args_t *a, ic_rs_block_fn block)
{
    size_t *len = ic_args_block_bytes(pl, a);
    size_t *off = len ? ic_plan_sizes(pl, (size_t)pl->size) : NULL;
    if (!off)
        return pl->error;
    ic_prefix_offsets(len, pl->size, off);
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    block(pl, &v, len, rs_input(a, off), ic_loc(IC_BUF_RECV, 0));
    return pl->error;
}

ic_status_t ic_build_reduce_scatter_ring(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build_rs(pl, a, ic_blk_ring_reduce_scatter);
}

ic_status_t ic_build_reduce_scatter_direct(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build_rs(pl, a, ic_blk_tree_reduce_scatter);
}

ic_status_t ic_build_reduce_scatter_reduce_scatter(ic_plan_t *pl, const ic_coll_args_t *a)
{
    size_t *len = ic_args_block_bytes(pl, a);
    size_t *off = len ? ic_plan_sizes(pl, (size_t)pl->size) : NULL;
    if (!off)
        return pl->error;
    size_t total = ic_prefix_offsets(len, pl->size, off);
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_layout_t in = rs_input(a, off);
    ic_loc_t acc = pl->rank == 0 ? ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, total))
                                 : ic_loc(IC_BUF_NONE, 0);
    ic_blk_mst_reduce(pl, &v, 0, in.base, acc, total);
    ic_layout_t src = {acc, off};
    ic_layout_t stage = {ic_loc(IC_BUF_SCRATCH, 0), NULL};
    ic_blk_mst_scatter(pl, &v, 0, NULL, len, src, stage, ic_loc(IC_BUF_RECV, 0));
    return pl->error;
}
