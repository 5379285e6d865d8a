/*
 * coll_allgather.c — allgather and allgatherv: the ring (bucket collect,
 * long vectors) and MST gather + MST broadcast (short vectors; [vdG-CCTP]'s
 * "gather + broadcast").
 *
 * gather_bcast cost for p = 2^d, blocks of b bytes, N = p*b:
 *   d*alpha + (p-1)/p*N*beta + d*(alpha + N*beta).
 */
#include "algo/builders.h"

static ic_loc_t own_block(const ic_plan_t *pl, const ic_coll_args_t *a, const ic_layout_t *out)
{
    return a->in_place ? ic_layout_at(out, pl->rank) : ic_loc(IC_BUF_SEND, 0);
}

/* The ring and the direct exchange: one block per member straight into
 * the output. */
typedef void block_exchange_fn(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                               ic_layout_t buf, ic_loc_t mine);

static ic_status_t build_exchange(ic_plan_t *pl, const ic_coll_args_t *a, block_exchange_fn *blk)
{
    size_t *len = ic_args_block_bytes(pl, a);
    size_t *off = len ? ic_args_block_offsets(pl, a, len) : NULL;
    if (!off)
        return pl->error;
    ic_view_t v = ic_view_whole(pl->size, pl->rank);
    ic_layout_t out = {ic_loc(IC_BUF_RECV, 0), off};
    blk(pl, &v, len, out, own_block(pl, a, &out));
    return pl->error;
}

ic_status_t ic_build_allgather_ring(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build_exchange(pl, a, ic_blk_ring_allgather);
}

ic_status_t ic_build_allgather_direct(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return build_exchange(pl, a, ic_blk_direct_allgather);
}

ic_status_t ic_build_allgather_gather_bcast(ic_plan_t *pl, const ic_coll_args_t *a)
{
    int p = pl->size, me = pl->rank;
    size_t *len = ic_args_block_bytes(pl, a);
    size_t *off = len ? ic_args_block_offsets(pl, a, len) : NULL;
    if (!off)
        return pl->error;
    ic_view_t v = ic_view_whole(p, me);
    ic_layout_t out = {ic_loc(IC_BUF_RECV, 0), off};
    bool packed = ic_layout_contiguous(&out, len, 0, p - 1);
    /* Packed output doubles as every member's stage; otherwise scratch. */
    ic_layout_t stage = packed ? out : (ic_layout_t){ic_loc(IC_BUF_SCRATCH, 0), NULL};
    ic_blk_mst_gather(pl, &v, 0, NULL, len, own_block(pl, a, &out), stage, out);
    size_t total = 0;
    for (int i = 0; i < p; i++)
        total += len[i];
    if (packed) {
        ic_blk_mst_bcast(pl, &v, 0, ic_layout_at(&out, 0), total);
        return pl->error;
    }
    /* Scattered displacements: broadcast a packed copy and unpack it. */
    size_t *poff = ic_plan_sizes(pl, (size_t)p);
    if (!poff)
        return pl->error;
    ic_prefix_offsets(len, p, poff);
    ic_layout_t pack = {ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, total)), poff};
    for (int i = 0; i < p && me == 0; i++)
        ic_plan_copy(pl, ic_layout_at(&out, i), ic_layout_at(&pack, i), len[i]);
    ic_blk_mst_bcast(pl, &v, 0, pack.base, total);
    for (int i = 0; i < p && me != 0; i++)
        ic_plan_copy(pl, ic_layout_at(&pack, i), ic_layout_at(&out, i), len[i]);
    return pl->error;
}
