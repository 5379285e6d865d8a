/*
 * coll_scatter.c — scatter and scatterv over the MST scatter block, with
 * the geometric split (mst) or the data-distribution-aware split of
 * [Watts94] section 7 (mst_dist, threshold alpha/beta bytes), or over the
 * direct block (direct).
 */
#include "algo/builders.h"

static ic_status_t build(ic_plan_t *pl, const ic_coll_args_t *a, const ic_split_t *sp,
                         bool direct)
{
    size_t *len = ic_args_block_bytes(pl, a);
    size_t *off = len ? ic_args_block_offsets(pl, a, len) : NULL;
    if (!off)
        return pl->error;
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_layout_t src = {ic_loc(IC_BUF_SEND, 0), off};
    ic_layout_t stage = {ic_loc(IC_BUF_SCRATCH, 0), NULL};
    bool keep = a->in_place && pl->rank == a->root;
    ic_loc_t dst = keep ? ic_loc(IC_BUF_NONE, 0) : ic_loc(IC_BUF_RECV, 0);
    if (direct)
        ic_blk_direct_scatter(pl, &v, a->root, len, src, dst);
    else
        ic_blk_mst_scatter(pl, &v, a->root, sp, len, src, stage, dst);
    return pl->error;
}

ic_status_t ic_build_scatter_mst(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build(pl, a, NULL, false);
}

ic_status_t ic_build_scatterv_mst(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build(pl, a, NULL, false);
}

ic_status_t ic_build_scatterv_mst_dist(ic_plan_t *pl, const ic_coll_args_t *a)
{
    size_t *w = ic_args_block_bytes(pl, a);
    if (!w)
        return pl->error;
    double thr = a->model.beta > 0 ? a->model.alpha / a->model.beta : 0;
    ic_split_t sp = {IC_SPLIT_DATA, w, thr};
    return build(pl, a, &sp, false);
}

ic_status_t ic_build_scatter_direct(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build(pl, a, NULL, true);
}
