/*
 * coll_alltoall_family.c — all-to-all(v) builders of the alltoall family:
 * Bruck (any p, short vectors), AAP and dual-phase AAP (hypercube order,
 * p = 2^d), dimensional rings on the logical mesh and quadrant exchange on
 * a 2^j x 2^j mesh; the v-forms of Bruck and DR with their size exchanges.
 */
#include "algo/builders_alltoall.h"
#include "base/status.h"

/* Send and receive layouts of this rank's call (what
 * ic_build_alltoall_pairwise does): lengths and byte offsets per rank,
 * displacements of the v-form or packed blocks.  In place, the blocks of
 * the other ranks move to packed scratch first, so none is overwritten
 * before it has left, and the own block (already in place) sends nothing. */
static ic_status_t layouts(ic_plan_t *pl, const ic_coll_args_t *a, ic_layout_t *send,
                           size_t **slen, ic_layout_t *recv, size_t **rlen)
{
    int p = pl->size;
    size_t es = ic_args_esize(a);
    size_t *sl = ic_plan_sizes(pl, (size_t)p), *so = ic_plan_sizes(pl, (size_t)p);
    size_t *rl = ic_plan_sizes(pl, (size_t)p), *ro = ic_plan_sizes(pl, (size_t)p);
    if (!sl || !so || !rl || !ro)
        return pl->error;
    bool v_form = a->coll == IC_COLL_ALLTOALLV;
    /* In place, MPI takes the send side from the receive counts. */
    const size_t *sc = v_form && !a->in_place ? a->scounts : a->rcounts;
    const size_t *sd = v_form && !a->in_place ? a->sdispls : a->rdispls;
    for (int i = 0; i < p; i++) {
        rl[i] = (v_form ? a->rcounts[i] : a->count) * es;
        sl[i] = (v_form ? sc[i] : a->count) * es;
    }
    if (v_form && a->rdispls)
        for (int i = 0; i < p; i++)
            ro[i] = a->rdispls[i] * es;
    else
        ic_prefix_offsets(rl, p, ro);
    if (v_form && sd)
        for (int i = 0; i < p; i++)
            so[i] = sd[i] * es;
    else
        ic_prefix_offsets(sl, p, so);
    *send = (ic_layout_t){ic_loc(IC_BUF_SEND, 0), so};
    *recv = (ic_layout_t){ic_loc(IC_BUF_RECV, 0), ro};
    if (a->in_place) {
        size_t *po = ic_plan_sizes(pl, (size_t)p);
        if (!po)
            return pl->error;
        size_t total = ic_prefix_offsets(rl, p, po);
        *send = (ic_layout_t){ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, total)), po};
        for (int i = 0; i < p; i++)
            if (i != pl->rank)
                ic_plan_copy(pl, ic_layout_at(recv, i), ic_layout_at(send, i), rl[i]);
        sl[pl->rank] = 0;
    }
    *slen = sl;
    *rlen = rl;
    return IC_OK;
}

/* The equal-block form for the forwarding algorithms (all-to-all only):
 * packed layouts; in place, the whole receive buffer moves to scratch
 * first (one copy), the own block included, so the blocks can treat it
 * as an ordinary send buffer. */
static ic_status_t even_layouts(ic_plan_t *pl, const ic_coll_args_t *a, ic_layout_t *send,
                                ic_layout_t *recv, size_t *b)
{
    int p = pl->size;
    *b = a->count * ic_args_esize(a);
    size_t *off = ic_plan_sizes(pl, (size_t)p);
    if (!off)
        return pl->error;
    for (int i = 0; i < p; i++)
        off[i] = (size_t)i * *b;
    *send = (ic_layout_t){ic_loc(IC_BUF_SEND, 0), off};
    *recv = (ic_layout_t){ic_loc(IC_BUF_RECV, 0), off};
    if (a->in_place) {
        size_t total = (size_t)p * *b;
        send->base = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, total));
        ic_plan_copy(pl, recv->base, send->base, total);
    }
    return pl->error;
}

ic_status_t ic_build_alltoall_bruck(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_layout_t send, recv;
    size_t b;
    if (even_layouts(pl, a, &send, &recv, &b) != IC_OK)
        return pl->error;
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_bruck_alltoall(pl, &v, send, recv, b);
    return pl->error;
}

static ic_status_t build_aap(ic_plan_t *pl, const ic_coll_args_t *a, bool dual)
{
    ic_layout_t send, recv;
    size_t *slen = NULL, *rlen = NULL;
    if (layouts(pl, a, &send, &slen, &recv, &rlen) != IC_OK)
        return pl->error;
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_aap_alltoall(pl, &v, send, slen, recv, rlen, dual);
    return pl->error;
}

ic_status_t ic_build_alltoall_aap(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build_aap(pl, a, false);
}

ic_status_t ic_build_alltoall_aap_dual(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build_aap(pl, a, true);
}

ic_status_t ic_build_alltoall_dr(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_layout_t send, recv;
    size_t b;
    if (even_layouts(pl, a, &send, &recv, &b) != IC_OK)
        return pl->error;
    /* The communicator's mesh; a line where none is set (or, defensively,
     * where its size is not the communicator's). */
    ic_mesh_t line = ic_mesh_line(pl->size);
    const ic_mesh_t *mesh = a->mesh && ic_mesh_size(a->mesh) == pl->size ? a->mesh : &line;
    ic_blk_dr_alltoall(pl, mesh, pl->rank, send, recv, b);
    return pl->error;
}

ic_status_t ic_build_alltoall_quadrant(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_layout_t send, recv;
    size_t b;
    /* The communicator's mesh, else the square of p; the catalog refuses
     * calls where that is not 2^j x 2^j. */
    bool own = a->mesh && ic_mesh_size(a->mesh) == pl->size;
    int side = own ? ic_quadrant_side(a->mesh) : ic_quadrant_side_of(pl->size);
    if (side == 0)
        return IC_ERR_NOT_APPLICABLE;
    if (even_layouts(pl, a, &send, &recv, &b) != IC_OK)
        return pl->error;
    ic_blk_quadrant_alltoall(pl, side, pl->rank, send, recv, b);
    return pl->error;
}

/* ---- the v-forms of the forwarding algorithms (Bruck, DR) ---------------- */

/* The lengths of this rank's v-form from its layouts and its record of the
 * size exchange (elements to bytes); IC_ERR_ARG when there is no record or
 * it is not as long as the schedule needs. */
static ic_status_t fwd_lens(ic_plan_t *pl, const ic_coll_args_t *a, const size_t *slen,
                            const size_t *rlen, size_t need, ic_fwd_lens_t *f)
{
    if (!a->fwd_sizes || a->nfwd_sizes != need)
        return ic_set_error(IC_ERR_ARG,
                            "alltoallv/%s: no record of the size exchange for this plan (%zu "
                            "counts, %zu needed): it runs only through the engines",
                            pl->algo ? pl->algo : "?", a->nfwd_sizes, need);
    if (!a->in_place && slen[pl->rank] != rlen[pl->rank])
        return ic_set_error(IC_ERR_ARG,
                            "alltoallv/%s: rank %d sends itself %zu bytes but receives %zu",
                            pl->algo ? pl->algo : "?", pl->rank, slen[pl->rank],
                            rlen[pl->rank]);
    size_t es = ic_args_esize(a);
    size_t *rec = ic_plan_sizes(pl, need ? need : 1);
    if (!rec)
        return pl->error;
    for (size_t i = 0; i < need; i++)
        rec[i] = a->fwd_sizes[i] * es;
    *f = (ic_fwd_lens_t){slen, rec, rlen, false};
    return IC_OK;
}

/* How many counts the size exchange of Bruck (rounds of ceil(log2 p)) and
 * of DR on mesh (stages) brings to a rank. */
static size_t bruck_record_len(int p)
{
    size_t n = 0;
    for (int dist = 1; dist < p; dist *= 2)
        for (int r = 1; r < p; r++)
            n += (r & dist) != 0;
    return n;
}

static size_t dr_record_len(const ic_mesh_t *mesh)
{
    size_t n = 0, p = (size_t)ic_mesh_size(mesh);
    for (int k = 0; k < mesh->d; k++)
        n += (size_t)(mesh->dims[k] - 1) * (p / (size_t)mesh->dims[k]);
    return n;
}

static const ic_mesh_t *mesh_of(const ic_coll_args_t *a, int p, ic_mesh_t *line)
{
    *line = ic_mesh_line(p);
    return a->mesh && ic_mesh_size(a->mesh) == p ? a->mesh : line;
}

static ic_status_t disagree(const ic_plan_t *pl)
{
    return ic_set_error(IC_ERR_ARG,
                        "alltoallv/%s: rank %d's receive counts differ from the send counts "
                        "the other ranks passed for it",
                        pl->algo ? pl->algo : "?", pl->rank);
}

/* The size exchange's layouts: the counts (p size_t) at base, and the
 * record at rbase. */
static void counts_layouts(ic_plan_t *pl, ic_loc_t base, ic_loc_t rbase, ic_layout_t *send,
                           ic_layout_t *recv)
{
    size_t *off = ic_plan_sizes(pl, (size_t)pl->size);
    for (int i = 0; off && i < pl->size; i++)
        off[i] = (size_t)i * sizeof(size_t);
    *send = (ic_layout_t){base, off};
    *recv = (ic_layout_t){rbase, off};
}

static const ic_fwd_lens_t record = {NULL, NULL, NULL, true};

static void bruck_sizes(ic_plan_t *pl, ic_loc_t base, ic_loc_t rbase)
{
    ic_layout_t send, recv;
    counts_layouts(pl, base, rbase, &send, &recv);
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    if (pl->error == IC_OK)
        ic_blk_bruck_alltoallv(pl, &v, send, recv, &record);
}

static void dr_sizes(ic_plan_t *pl, const ic_mesh_t *mesh, ic_loc_t base, ic_loc_t rbase)
{
    ic_layout_t send, recv;
    counts_layouts(pl, base, rbase, &send, &recv);
    if (pl->error == IC_OK)
        ic_blk_dr_alltoallv(pl, mesh, pl->rank, send, recv, &record);
}

/* The in-process engine's replay of the size exchange (fwd_replay): on
 * scratch, need counts recorded, then a fence before the data plan. */
static void replay_sizes(ic_plan_t *pl, const ic_coll_args_t *a, const ic_mesh_t *mesh,
                         size_t need)
{
    if (!a->fwd_replay)
        return;
    ic_loc_t base = ic_loc(IC_BUF_SCRATCH,
                           ic_plan_scratch(pl, (size_t)pl->size * sizeof(size_t)));
    ic_loc_t rbase = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, need * sizeof(size_t)));
    if (mesh)
        dr_sizes(pl, mesh, base, rbase);
    else
        bruck_sizes(pl, base, rbase);
    ic_plan_fence(pl);
}

ic_status_t ic_build_alltoallv_bruck_sizes(ic_plan_t *pl, const ic_coll_args_t *a)
{
    (void)a;
    bruck_sizes(pl, ic_loc(IC_BUF_SEND, 0), ic_loc(IC_BUF_RECV, 0));
    return pl->error;
}

ic_status_t ic_build_alltoallv_dr_sizes(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_mesh_t line;
    dr_sizes(pl, mesh_of(a, pl->size, &line), ic_loc(IC_BUF_SEND, 0), ic_loc(IC_BUF_RECV, 0));
    return pl->error;
}

ic_status_t ic_build_alltoallv_bruck(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_layout_t send, recv;
    size_t *slen = NULL, *rlen = NULL;
    ic_fwd_lens_t f;
    replay_sizes(pl, a, NULL, bruck_record_len(pl->size));
    if (layouts(pl, a, &send, &slen, &recv, &rlen) != IC_OK)
        return pl->error;
    ic_status_t st = fwd_lens(pl, a, slen, rlen, bruck_record_len(pl->size), &f);
    if (st != IC_OK)
        return st;
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    if (!ic_blk_bruck_alltoallv(pl, &v, send, recv, &f))
        return disagree(pl);
    return pl->error;
}

ic_status_t ic_build_alltoallv_dr(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_layout_t send, recv;
    size_t *slen = NULL, *rlen = NULL;
    ic_fwd_lens_t f;
    ic_mesh_t line;
    const ic_mesh_t *mesh = mesh_of(a, pl->size, &line);
    replay_sizes(pl, a, mesh, dr_record_len(mesh));
    if (layouts(pl, a, &send, &slen, &recv, &rlen) != IC_OK)
        return pl->error;
    ic_status_t st = fwd_lens(pl, a, slen, rlen, dr_record_len(mesh), &f);
    if (st != IC_OK)
        return st;
    if (!ic_blk_dr_alltoallv(pl, mesh, pl->rank, send, recv, &f))
        return disagree(pl);
    return pl->error;
}
