/*
 * coll_gather.c — gather and gatherv over the MST gather block, with the
 * geometric split (mst) or the data-distribution-aware split (mst_dist),
 * or over the direct block (direct).
 */
#include "algo/builders.h"

static ic_status_t build(ic_plan_t *pl, const ic_coll_args_t *a, const ic_split_t *sp,
                         bool direct)
{
    size_t *len = ic_args_block_bytes(pl, a);
    size_t *off = len ? ic_args_block_offsets(pl, a, len) : NULL;
    if (!off)
        return pl->error;
    int me = pl->rank;
    ic_view_t v = ic_view_whole(pl->size, me);
    ic_layout_t dst = {ic_loc(IC_BUF_RECV, 0), off};
    ic_layout_t stage = {ic_loc(IC_BUF_SCRATCH, 0), NULL};
    ic_loc_t mine = (a->in_place && me == a->root) ? ic_layout_at(&dst, me)
                                                    : ic_loc(IC_BUF_SEND, 0);
    if (direct)
        ic_blk_direct_gather(pl, &v, a->root, len, mine, dst);
    else
        ic_blk_mst_gather(pl, &v, a->root, sp, len, mine, stage, dst);
    return pl->error;
}

ic_status_t ic_build_gather_mst(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build(pl, a, NULL, false);
}

ic_status_t ic_build_gatherv_mst(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build(pl, a, NULL, false);
}

ic_status_t ic_build_gatherv_mst_dist(ic_plan_t *pl, const ic_coll_args_t *a)
{
    size_t *w = ic_args_block_bytes(pl, a);
    if (!w)
        return pl->error;
    double thr = a->model.beta > 0 ? a->model.alpha / a->model.beta : 0;
    ic_split_t sp = {IC_SPLIT_DATA, w, thr};
    return build(pl, a, &sp, false);
}

ic_status_t ic_build_gather_direct(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build(pl, a, NULL, true);
}
