/*
 * coll_pipeline.c — broadcast and reduce-to-one by segmented pipelines
 * (very long vectors): along one chain, and dimension-ordered on the
 * communicator's logical mesh (DOPL).  The blocks are chain_bcast.c,
 * chain_reduce.c and dopl.c; their headers give the costs.
 *
 *   bcast  chain  the chain root, root+1, ... (wrapping), k segments
 *   bcast  dopl   chains along mesh dimensions 0, 1, ..., k_i segments each
 *   bcast  dopl_alt  the same with k_alt pieces in rotated dimension orders
 *                 (k_alt in [2, 16] from the paper's formula, dopl.c)
 *   reduce chain  the rank-ordered chain into the root (any operation)
 *   reduce dopl   chains along dimensions d-1, ..., 0 (any operation)
 *
 * The segment counts come from ic_pipe_segments() under a->model, as in
 * the cost functions (select/cost_pipeline.c); a chain of two members
 * (2 ranks) from ic_chain_segments(), which cuts a stream of eager
 * segments where the transport sends one-way messages inline up to its
 * eager limit.
 */
#include "algo/builders_pipeline.h"

bool ic_segs_make(ic_plan_t *pl, ic_segs_t *sg, size_t count, size_t es, int k)
{
    sg->k = k;
    sg->off = sg->len = NULL;
    if (k <= 0)
        return true;
    sg->off = ic_plan_sizes(pl, (size_t)k);
    sg->len = ic_plan_sizes(pl, (size_t)k);
    if (!sg->off || !sg->len) {
        sg->k = 0;
        return false;
    }
    size_t off = 0;
    for (int s = 0; s < k; s++) {
        sg->off[s] = off;
        sg->len[s] = ic_pipe_seg_bytes(count, es, k, s);
        off += sg->len[s];
    }
    return true;
}

ic_mesh_t ic_pipe_mesh(const ic_coll_args_t *a, int p)
{
    if (a->mesh && a->mesh->d >= 1 && ic_mesh_size(a->mesh) == p)
        return *a->mesh;
    return ic_mesh_line(p);
}

const ic_model_t *ic_pipe_model(const ic_coll_args_t *a, const ic_model_t *m)
{
    const ic_model_t *am = &a->model;
    bool unset = am->alpha == 0 && am->beta == 0 && am->gamma == 0 && am->delta == 0;
    return unset && m ? m : am;
}

static ic_loc_t reduce_input(const ic_plan_t *pl, const ic_coll_args_t *a)
{
    return (a->in_place && pl->rank == a->root) ? ic_loc(IC_BUF_RECV, 0)
                                                 : ic_loc(IC_BUF_SEND, 0);
}

static bool commutes(const ic_coll_args_t *a) { return a->op && a->op->commutative; }

ic_status_t ic_build_bcast_chain(ic_plan_t *pl, const ic_coll_args_t *a)
{
    size_t es = ic_args_esize(a);
    const ic_model_t *md = ic_pipe_model(a, NULL);
    ic_segs_t sg;
    if (!ic_segs_make(pl, &sg, a->count, es,
                      ic_chain_segments(pl->size, a->count, es, md->beta, md)))
        return pl->error;
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_chain_bcast(pl, &v, a->root, ic_loc(IC_BUF_RECV, 0), &sg, -1);
    return pl->error;
}

ic_status_t ic_build_bcast_dopl(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_mesh_t mesh = ic_pipe_mesh(a, pl->size);
    ic_blk_dopl_bcast(pl, &mesh, a->root, ic_loc(IC_BUF_RECV, 0), a->count, ic_args_esize(a),
                      ic_pipe_model(a, NULL));
    return pl->error;
}

ic_status_t ic_build_bcast_dopl_alt(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_mesh_t mesh = ic_pipe_mesh(a, pl->size);
    size_t es = ic_args_esize(a);
    const ic_model_t *md = ic_pipe_model(a, NULL);
    ic_blk_dopl_alt_bcast(pl, &mesh, a->root, ic_loc(IC_BUF_RECV, 0), a->count, es, md,
                          ic_dopl_alt_choose(&mesh, a->count, es, md));
    return pl->error;
}

ic_status_t ic_build_reduce_chain(ic_plan_t *pl, const ic_coll_args_t *a)
{
    int p = pl->size;
    size_t es = ic_args_esize(a);
    const ic_model_t *md = ic_pipe_model(a, NULL);
    int len = a->root == 0 || a->root == p - 1 ? p : p + 1; /* pipeline nodes */
    ic_segs_t sg;
    if (!ic_segs_make(pl, &sg, a->count, es,
                      ic_chain_segments(len, a->count, es, md->beta + md->gamma, md)))
        return pl->error;
    ic_view_t v = ic_view_whole(p, pl->rank);
    ic_blk_chain_reduce(pl, &v, a->root, reduce_input(pl, a), ic_loc(IC_BUF_RECV, 0), &sg,
                        commutes(a), -1);
    return pl->error;
}

ic_status_t ic_build_scan_chain(ic_plan_t *pl, const ic_coll_args_t *a)
{
    size_t es = ic_args_esize(a);
    ic_segs_t sg;
    if (!ic_segs_make(pl, &sg, a->count, es,
                      ic_scan_chain_segments(pl->size, a->count, es, ic_pipe_model(a, NULL))))
        return pl->error;
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_chain_scan(pl, &v, ic_args_allreduce_input(a), ic_loc(IC_BUF_RECV, 0), &sg,
                      a->coll == IC_COLL_EXSCAN, commutes(a));
    return pl->error;
}

ic_status_t ic_build_reduce_dopl(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_mesh_t mesh = ic_pipe_mesh(a, pl->size);
    ic_blk_dopl_reduce(pl, &mesh, a->root, reduce_input(pl, a), ic_loc(IC_BUF_RECV, 0),
                       a->count, ic_args_esize(a), commutes(a), ic_pipe_model(a, NULL));
    return pl->error;
}
