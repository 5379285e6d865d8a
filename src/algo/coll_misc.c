/*
 * coll_misc.c — all-to-all(v) by pairwise exchange, the dissemination
 * barrier, and scan / exscan.
 */
#include "algo/builders.h"

ic_status_t ic_build_alltoall_pairwise(ic_plan_t *pl, const ic_coll_args_t *a)
{
    int p = pl->size;
    size_t es = ic_args_esize(a);
    size_t *slen = ic_plan_sizes(pl, (size_t)p), *soff = ic_plan_sizes(pl, (size_t)p);
    size_t *rlen = ic_plan_sizes(pl, (size_t)p), *roff = ic_plan_sizes(pl, (size_t)p);
    if (!slen || !soff || !rlen || !roff)
        return pl->error;
    bool v_form = a->coll == IC_COLL_ALLTOALLV;
    /* In place, MPI takes the send side from the receive counts. */
    const size_t *sc = v_form && !a->in_place ? a->scounts : a->rcounts;
    const size_t *sd = v_form && !a->in_place ? a->sdispls : a->rdispls;
    for (int i = 0; i < p; i++) {
        rlen[i] = (v_form ? a->rcounts[i] : a->count) * es;
        slen[i] = (v_form ? sc[i] : a->count) * es;
    }
    /* NULL displacements mean packed blocks. */
    if (v_form && a->rdispls)
        for (int i = 0; i < p; i++)
            roff[i] = a->rdispls[i] * es;
    else
        ic_prefix_offsets(rlen, p, roff);
    if (v_form && sd)
        for (int i = 0; i < p; i++)
            soff[i] = sd[i] * es;
    else
        ic_prefix_offsets(slen, p, soff);
    ic_view_t v = ic_view_whole(p, pl->rank);
    ic_layout_t send = {ic_loc(IC_BUF_SEND, 0), soff};
    ic_layout_t recv = {ic_loc(IC_BUF_RECV, 0), roff};
    if (a->in_place) {
        /* The blocks move to scratch first so no block is overwritten
         * before it has been sent. */
        size_t *poff = ic_plan_sizes(pl, (size_t)p);
        if (!poff)
            return pl->error;
        size_t total = ic_prefix_offsets(rlen, p, poff);
        send = (ic_layout_t){ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, total)), poff};
        for (int i = 0; i < p; i++)
            if (i != pl->rank)
                ic_plan_copy(pl, ic_layout_at(&recv, i), ic_layout_at(&send, i), rlen[i]);
        slen[pl->rank] = 0; /* the own block is already in place */
    }
    ic_blk_pairwise_alltoall(pl, &v, send, slen, recv, rlen);
    return pl->error;
}

ic_status_t ic_build_barrier_dissemination(ic_plan_t *pl, const ic_coll_args_t *a)
{
    (void)a;
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_dissemination_barrier(pl, &v);
    return pl->error;
}

ic_status_t ic_build_barrier_direct(ic_plan_t *pl, const ic_coll_args_t *a)
{
    (void)a;
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_direct_barrier(pl, &v);
    return pl->error;
}

ic_status_t ic_build_scan_dissemination(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_blk_dissemination_scan(pl, &v, ic_args_allreduce_input(a), ic_loc(IC_BUF_RECV, 0),
                              a->count * ic_args_esize(a), a->coll == IC_COLL_EXSCAN);
    return pl->error;
}
