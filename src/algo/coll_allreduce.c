/*
 * coll_allreduce.c — reduce-to-all: MST reduce + MST broadcast (short
 * vectors, any operation), ring reduce-scatter + ring allgather (long
 * vectors, commutative operations) and the direct reduce-scatter with each
 * piece combined in the rank tree + ring allgather (long vectors, any
 * operation, canonical order: tree_reduce_scatter.c).  [vdG-CCTP] "Allreduce", [Watts94]
 * section 12.
 *
 * reduce_bcast cost: 2*ceil(log2 p)*alpha + ceil(log2 p)*n*(2*beta+gamma)
 *   (p = 2^d).
 * rs_ag cost for p | n: 2*(p-1)*alpha + (p-1)/p*n*(2*beta + gamma);
 * direct_ag: the same.
 */
#include "algo/builders.h"

ic_status_t ic_build_allreduce_reduce_bcast(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    size_t bytes = a->count * ic_args_esize(a);
    /* The receive buffer is an output everywhere: partials may live there. */
    ic_blk_mst_reduce(pl, &v, 0, ic_args_allreduce_input(a), ic_loc(IC_BUF_RECV, 0), bytes);
    ic_blk_mst_bcast(pl, &v, 0, ic_loc(IC_BUF_RECV, 0), bytes);
    return pl->error;
}

ic_status_t ic_build_allreduce_direct(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_direct_allreduce(pl, &v, ic_args_allreduce_input(a), ic_loc(IC_BUF_RECV, 0),
                            a->count * ic_args_esize(a));
    return pl->error;
}

/* A reduce-scatter block on even pieces of the vector, then the ring
 * allgather of the pieces.  When every rank has a core, a fence between
 * them: a rank takes up the allgather's messages only when its
 * reduce-scatter is done.  Without it the allgather's receives are posted
 * at the start, and a rank still reducing its piece copied the peer's
 * allgather message in the middle of its reduction (the transport
 * progresses between the pieces of a long local step, exec.c), so its own
 * allgather message went out a whole copy later while the peer sat idle:
 * 2 ranks, 4 and 16 MiB, 0.69 and 0.80 of the time with the fence.  With
 * the ranks crowded on the cores the overlap pays (3 ranks on 2 cores,
 * 256 KiB: 1.16x the time with the fence), so there is none
 * (docs/perf/share-read.md).  The fence orders this rank's own steps
 * only; the messages are the same either way. */
static ic_status_t rs_then_ag(ic_plan_t *pl, const ic_coll_args_t *a, ic_rs_block_fn rs)
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
    ic_layout_t in = {ic_args_allreduce_input(a), off};
    ic_layout_t out = {ic_loc(IC_BUF_RECV, 0), off};
    rs(pl, &v, len, in, ic_layout_at(&out, me));
    if (!ic_model_crowded(&a->model, p))
        ic_plan_fence(pl);
    ic_blk_ring_allgather(pl, &v, len, out, ic_layout_at(&out, me));
    return pl->error;
}

ic_status_t ic_build_allreduce_rs_ag(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return rs_then_ag(pl, a, ic_blk_ring_reduce_scatter);
}

ic_status_t ic_build_allreduce_direct_ag(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return rs_then_ag(pl, a, ic_blk_tree_reduce_scatter);
}
