/*
 * coll_reduce.c — reduce-to-one: MST (short vectors, any operation),
 * ring reduce-scatter + MST gather (long vectors, commutative operations;
 * [vdG-CCTP] "Reduce (long vector)") and the same with the direct
 * reduce-scatter whose pieces are combined in the rank tree (any
 * operation, canonical order: tree_reduce_scatter.c).
 *
 * rs_gather cost for p = 2^d, p | n:
 *   (p-1)*alpha + (p-1)/p*n*(beta+gamma) + d*alpha + (p-1)/p*n*beta;
 * direct_gather: the same.
 */
#include "algo/builders.h"

static ic_loc_t reduce_input(const ic_plan_t *pl, const ic_coll_args_t *a)
{
    return (a->in_place && pl->rank == a->root) ? ic_loc(IC_BUF_RECV, 0)
                                                 : ic_loc(IC_BUF_SEND, 0);
}

ic_status_t ic_build_reduce_mst(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_loc_t acc = pl->rank == a->root ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_NONE, 0);
    ic_blk_mst_reduce(pl, &v, a->root, reduce_input(pl, a), acc,
                      a->count * ic_args_esize(a));
    return pl->error;
}

ic_status_t ic_build_reduce_direct(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_loc_t out = pl->rank == a->root ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_NONE, 0);
    ic_blk_direct_reduce(pl, &v, a->root, reduce_input(pl, a), out, a->count * ic_args_esize(a));
    return pl->error;
}

/* A reduce-scatter block on even pieces of the vector, then the MST gather
 * of the pieces to the root. */
static ic_status_t rs_then_gather(ic_plan_t *pl, const ic_coll_args_t *a, ic_rs_block_fn rs)
{
    int p = pl->size, me = pl->rank;
    size_t es = ic_args_esize(a);
    size_t *off = ic_plan_sizes(pl, (size_t)p), *len = ic_plan_sizes(pl, (size_t)p);
    if (!off || !len)
        return pl->error;
    ic_partition_even(a->count, p, off, len);
    for (int i = 0; i < p; i++) {
        off[i] *= es;
        len[i] *= es;
    }
    ic_view_t v = ic_view_whole(p, me);
    ic_layout_t in = {reduce_input(pl, a), off};
    ic_layout_t result = {ic_loc(IC_BUF_RECV, 0), off};
    ic_loc_t mine = me == a->root ? ic_layout_at(&result, me)
                                  : ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, len[me]));
    rs(pl, &v, len, in, mine);
    ic_layout_t stage = {ic_loc(IC_BUF_SCRATCH, 0), NULL};
    ic_blk_mst_gather(pl, &v, a->root, NULL, len, mine, stage, result);
    return pl->error;
}

ic_status_t ic_build_reduce_rs_gather(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return rs_then_gather(pl, a, ic_blk_ring_reduce_scatter);
}

ic_status_t ic_build_reduce_direct_gather(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return rs_then_gather(pl, a, ic_blk_tree_reduce_scatter);
}
