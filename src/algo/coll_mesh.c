/*
 * coll_mesh.c — broadcast, reduce, allreduce, allgather(v) and
 * reduce-scatter(_block) as stage schedules on the logical mesh ([Watts94]
 * sections 8-12, [vdG-CCTP] "Physical 2D meshes" and its hybrid options,
 * [vdG91]'s hybrid global combine).
 *
 *   broadcast   scatter over the split rings, MST broadcast of the slab
 *               over the short rings, collect back (MST-SC; all split:
 *               SC broadcast; none split: MST broadcast).  On a 2-D mesh
 *               split counts 0, 1, 2 are [vdG-CCTP]'s options 1-3.
 *   reduce      distributed reduction over the split rings, MST reduce of
 *               the slab over the short rings, gather back (MST-DG; all
 *               split: DG; on a hypercube the split count is [vdG91]'s
 *               combine-to-root switch).
 *   allreduce   distributed reduction over the split rings, ring
 *               reduce-to-all on each short ring, collect back (split
 *               none: PFR; all: PFR-DC or DR; in between: PFR-PFR-DC, the
 *               hybrid global combine generalised to any p).
 *   allgather, reduce-scatter: collect / distributed reduction over all
 *               rings (DR, PFR, PFR-DR).
 * Costs: sums of the stages' block costs (select/cost_mesh.c), e.g. SC
 * broadcast with equal pieces sum_i (ceil(log2 m_i) + m_i - 1)*alpha +
 * 2*(p-1)/p*n*beta (m_i powers of two).
 */
#include "algo/builders_mesh.h"
#include "algo/stage_blocks.h"

ic_mesh_t ic_args_mesh(const ic_coll_args_t *a, int p)
{
    if (a->mesh && ic_mesh_size(a->mesh) == p)
        return *a->mesh;
    return ic_mesh_line(p);
}

/* Offsets of P nearly equal pieces of count elements. */
static size_t *even_poff(ic_plan_t *pl, long P, size_t count, size_t es)
{
    size_t *poff = ic_plan_sizes(pl, (size_t)P + 1);
    if (!poff)
        return NULL;
    size_t base = count / (size_t)P, rem = count % (size_t)P;
    for (long q = 0; q <= P; q++)
        poff[q] = ((size_t)q * base + ((size_t)q < rem ? (size_t)q : rem)) * es;
    return poff;
}

static void build_bcast(ic_plan_t *pl, const ic_coll_args_t *a, const ic_sched_t *s,
                        const size_t *poff)
{
    int me = pl->rank;
    ic_loc_t buf = ic_loc(IC_BUF_RECV, 0);
    long q = ic_sched_piece_of(s, me);
    ic_blk_stage_scatter(pl, s, a->root, poff, buf);
    ic_plan_fence(pl);
    /* MST broadcast of the slab over the short rings, one ring after the
     * other: the holders are the ranks whose later short digits are the
     * root's.  On a physical mesh whose dimensions are the rings this is
     * [Watts94]'s recursive splitting of sub-meshes: contention-free (one
     * MST over the merged rings, in rank order, is not: a half of a 5 x 7
     * range is no sub-mesh and routes leave it). */
    for (int j = s->nsplit; j < s->nrings; j++) {
        int t = s->order[j];
        bool holds = ic_sched_same_digits(s, me, a->root, j + 1, s->nrings);
        ic_view_t v = ic_sched_view(s, t, me, holds);
        int root = ic_sched_view(s, t, a->root, true).me;
        ic_blk_mst_bcast(pl, &v, root, ic_loc_add(buf, poff[q]), poff[q + 1] - poff[q]);
    }
    ic_blk_stage_allgather(pl, s, poff, buf, ic_loc_add(buf, poff[q]));
}

static void build_reduce(ic_plan_t *pl, const ic_coll_args_t *a, const ic_sched_t *s,
                         const size_t *poff, long P)
{
    int me = pl->rank;
    ic_loc_t in = a->in_place ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_SEND, 0);
    ic_loc_t work = me == a->root ? ic_loc(IC_BUF_RECV, 0)
                                  : ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, poff[P]));
    long q = ic_sched_piece_of(s, me);
    ic_loc_t slab = ic_loc_add(work, poff[q]);
    if (s->nsplit > 0)
        ic_blk_stage_reduce_scatter(pl, s, poff, in, work, ic_loc(IC_BUF_NONE, 0));
    ic_plan_fence(pl);
    /* MST reduce of the slab over the short rings, the last ring first
     * (the broadcast's order reversed; contention-free the same way). */
    ic_loc_t cur = s->nsplit > 0 ? slab : ic_loc_add(in, poff[q]);
    for (int j = s->nrings - 1; j >= s->nsplit; j--) {
        int t = s->order[j];
        bool holds = ic_sched_same_digits(s, me, a->root, j + 1, s->nrings);
        ic_view_t v = ic_sched_view(s, t, me, holds);
        int root = ic_sched_view(s, t, a->root, true).me;
        ic_blk_mst_reduce(pl, &v, root, cur, slab, poff[q + 1] - poff[q]);
        if (holds)
            cur = slab;
    }
    if (s->nsplit == s->nrings) /* no short rings: the slab is the input */
        ic_plan_copy(pl, cur, slab, poff[q + 1] - poff[q]);
    ic_blk_stage_gather(pl, s, a->root, poff, work);
}

static void build_allreduce(ic_plan_t *pl, const ic_coll_args_t *a, const ic_sched_t *s,
                            const size_t *poff)
{
    int me = pl->rank;
    ic_loc_t in = a->in_place ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_SEND, 0);
    ic_loc_t buf = ic_loc(IC_BUF_RECV, 0);
    long q = ic_sched_piece_of(s, me);
    ic_loc_t slab = ic_loc_add(buf, poff[q]), cur = in;
    size_t bytes = poff[q + 1] - poff[q];
    if (s->nsplit > 0) {
        ic_blk_stage_reduce_scatter(pl, s, poff, in, buf, ic_loc(IC_BUF_NONE, 0));
        cur = slab;
    }
    for (int j = s->nsplit; j < s->nrings; j++) {
        ic_plan_fence(pl);
        ic_view_t v = ic_sched_view(s, s->order[j], me, true);
        ic_blk_ring_allreduce(pl, &v, cur, slab, bytes);
        cur = slab;
    }
    if (s->nrings == 0)
        ic_plan_copy(pl, in, buf, bytes);
    ic_blk_stage_allgather(pl, s, poff, buf, slab);
}

/* Piece offsets of the ranks' blocks: poff[q] for the block of the rank
 * whose piece is q (rank order when the schedule is natural). */
static size_t *block_poff(ic_plan_t *pl, const ic_sched_t *s, const size_t *len)
{
    int p = pl->size;
    size_t *poff = ic_plan_sizes(pl, (size_t)p + 1), *plen = ic_plan_sizes(pl, (size_t)p);
    if (!poff || !plen)
        return NULL;
    for (int r = 0; r < p; r++)
        plen[ic_sched_piece_of(s, r)] = len[r];
    poff[p] = ic_prefix_offsets(plen, p, poff);
    return poff;
}

/* Allgather(v): pieces are the ranks' blocks; the user's layout is used
 * when it is packed in piece order, else a packed scratch copy. */
static ic_status_t build_allgather(ic_plan_t *pl, const ic_coll_args_t *a, const ic_sched_t *s)
{
    int p = pl->size, me = pl->rank;
    size_t *len = ic_args_block_bytes(pl, a);
    size_t *off = len ? ic_args_block_offsets(pl, a, len) : NULL;
    size_t *poff = off ? block_poff(pl, s, len) : NULL;
    if (!poff)
        return pl->error;
    ic_layout_t out = {ic_loc(IC_BUF_RECV, 0), off};
    ic_loc_t mine = a->in_place ? ic_layout_at(&out, me) : ic_loc(IC_BUF_SEND, 0);
    if (ic_sched_natural(s) && ic_layout_contiguous(&out, len, 0, p - 1)) {
        for (int r = 0; r <= p; r++)
            poff[r] += off[0];
        ic_blk_stage_allgather(pl, s, poff, out.base, mine);
        if (s->nrings == 0)
            ic_plan_copy(pl, mine, ic_layout_at(&out, me), len[me]);
        return pl->error;
    }
    ic_loc_t base = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, poff[p]));
    ic_blk_stage_allgather(pl, s, poff, base, mine);
    ic_plan_fence(pl);
    for (int r = 0; r < p; r++)
        ic_plan_copy(pl, r == me ? mine : ic_loc_add(base, poff[ic_sched_piece_of(s, r)]),
                     ic_layout_at(&out, r), len[r]);
    return pl->error;
}

static ic_status_t build_reduce_scatter(ic_plan_t *pl, const ic_coll_args_t *a,
                                        const ic_sched_t *s)
{
    int p = pl->size, me = pl->rank;
    size_t *len = ic_args_block_bytes(pl, a);
    size_t *roff = ic_plan_sizes(pl, (size_t)p);
    size_t *poff = len && roff ? block_poff(pl, s, len) : NULL;
    if (!poff)
        return pl->error;
    ic_prefix_offsets(len, p, roff); /* the input is packed in rank order */
    ic_loc_t in = a->in_place ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_SEND, 0);
    ic_loc_t out = ic_loc(IC_BUF_RECV, 0);
    if (s->nrings == 0) {
        ic_plan_copy(pl, ic_loc_add(in, roff[me]), out, len[me]);
        return pl->error;
    }
    ic_loc_t work = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, poff[p]));
    if (!ic_sched_natural(s)) { /* the input in piece order */
        for (int r = 0; r < p; r++)
            ic_plan_copy(pl, ic_loc_add(in, roff[r]),
                         ic_loc_add(work, poff[ic_sched_piece_of(s, r)]), len[r]);
        in = work;
    }
    ic_blk_stage_reduce_scatter(pl, s, poff, in, work, out);
    return pl->error;
}

ic_status_t ic_build_mesh_sched(ic_plan_t *pl, const ic_coll_args_t *a, const ic_sched_t *s)
{
    long P = ic_sched_pieces(s);
    switch (a->coll) {
    case IC_COLL_ALLGATHER:
    case IC_COLL_ALLGATHERV:
        return build_allgather(pl, a, s);
    case IC_COLL_REDUCE_SCATTER:
    case IC_COLL_REDUCE_SCATTER_BLOCK:
        return build_reduce_scatter(pl, a, s);
    default:
        break;
    }
    size_t *poff = even_poff(pl, P, a->count, ic_args_esize(a));
    if (!poff)
        return pl->error;
    if (a->coll == IC_COLL_BCAST)
        build_bcast(pl, a, s, poff);
    else if (a->coll == IC_COLL_REDUCE)
        build_reduce(pl, a, s, poff, P);
    else
        build_allreduce(pl, a, s, poff);
    return pl->error;
}

#define IC_MESH_ENTRY(v, V)                                                    \
    ic_status_t ic_build_mesh_##v(ic_plan_t *pl, const ic_coll_args_t *a)      \
    {                                                                          \
        ic_sched_t s = ic_mesh_sched(a, pl->size, V, &a->model);               \
        return ic_build_mesh_sched(pl, a, &s);                                 \
    }                                                                          \
    double ic_cost_mesh_##v(const ic_coll_args_t *a, int p, const ic_model_t *m) \
    {                                                                          \
        ic_sched_t s = ic_mesh_sched(a, p, V, m);                              \
        return ic_cost_mesh_sched(a, p, &s, m);                                \
    }                                                                          \
    void ic_describe_mesh_##v(const ic_coll_args_t *a, int p, const ic_model_t *m, char *buf, \
                              size_t len)                                      \
    {                                                                          \
        ic_sched_t s = ic_mesh_sched(a, p, V, m);                              \
        ic_sched_describe(&s, buf, len);                                       \
    }
IC_MESH_ENTRY(dr, IC_MV_DR)
IC_MESH_ENTRY(pfr, IC_MV_PFR)
IC_MESH_ENTRY(pfr_dr, IC_MV_PFR_DR)
IC_MESH_ENTRY(pfr_all, IC_MV_PFR_ALL)
IC_MESH_ENTRY(hybrid, IC_MV_HYBRID)
IC_MESH_ENTRY(pfr_alt, IC_MV_PFR_ALT)
