/*
 * coll_uchain.c — the contention-free group collectives of [MTR94]:
 * U-mesh, U-torus and U-cube.  Each runs the minimum-spanning-tree blocks
 * on the members sorted into a dimension-ordered chain of the physical
 * network (phys.h: dimension-ordered for U-mesh, rotated to the source for
 * U-torus, source-relative for U-cube), with the near-end split
 * (IC_SPLIT_NEAR: the sender hands the other half of its range to that
 * half's end nearest it).  Under dimension-ordered routing no two messages
 * of one step share a directed link (on a torus: a virtual channel of the
 * dateline pair, [MTR94] figure 18), for ANY subset of the nodes, and the
 * tree is ceil(log2 m) levels deep for m members.
 *
 *   bcast           the tree top-down                ceil(log2 m)*(alpha + n*beta)
 *   reduce          the tree bottom-up (commutative: the chain is not the
 *                   rank order)                      the MST reduce recurrence
 *   scatter(v),     the MST scatter / gather blocks on the chain (the root
 *   gather(v)       packs or unpacks blocks in chain order): d*alpha +
 *                   (m-1)/m*N*beta for m = 2^d, else the recurrence
 *   barrier         fan-in and fan-out (tree_barrier.c)  2*ceil(log2 m)*alpha
 *   bcast u_sag     scatter-collect: the vector's pieces scattered down the
 *                   U tree, then a ring along the chain ([MTR94] "scatter-
 *                   collect", figure 21): ceil(log2 m)*alpha +
 *                   (m-1)/m*n*beta + (m-1)*(alpha + n/m*beta)
 *
 * The rooted collectives (and u_sag's ring) take the chain of their root;
 * the barrier the chains of communicator rank 0.  The dual operations
 * (reduce, gather, the barrier's fan-in) send towards the root and take
 * the dual chain (phys.h: the dimensions' significance reversed; for the
 * R-chain, the source last), which keeps their reversed tree free of
 * contention too.  Entries apply only when
 * the call knows the placement (ic_coll_args_t.phys): umesh on meshes and
 * hypercubes, utorus on tori (either kind) and meshes, ucube on
 * hypercubes.
 *
 * Example, U-mesh on a 6x6 mesh, members at nodes (row-major)
 *   3 8 13 14 20 27 33, source 14 (chain index 3):
 *   step 1: 14 -> 13  (source in the upper half [14 20 27 33]: the lowest
 *                      half [3 8 13] gets its highest node)
 *   step 2: 14 -> 27, 13 -> 3
 *   step 3: 27 -> 33, 3 -> 8, 14 -> 20
 *
 * Source: [MTR94] (seeds/001_..., "multicast": dimension-ordered chains,
 * U-mesh, U-torus, U-cube; scatter-collect).
 */
#include "algo/builders.h"

/* The members of a's communicator as a view in chain order for source
 * root (dual: the chain of the dual operations, phys.h); *root_at
 * receives root's index in the chain.  false after an
 * allocation failure (the plan's error is set). */
static bool chain_view(ic_plan_t *pl, const ic_coll_args_t *a, ic_chain_kind_t kind, bool dual,
                       int root, ic_view_t *v, int *root_at)
{
    int n = pl->size;
    int *chain = ic_plan_tmp(pl, sizeof(int) * (size_t)n);
    unsigned long long *work = ic_plan_tmp(pl, sizeof(*work) * (size_t)n);
    if (!chain || !work)
        return false;
    *root_at = ic_phys_chain(a->phys, kind, dual, n, root, chain, work);
    int me = -1;
    for (int i = 0; i < n; i++)
        if (chain[i] == pl->rank)
            me = i;
    *v = (ic_view_t){n, 0, 1, me, chain};
    return true;
}

static const ic_split_t near_split = {IC_SPLIT_NEAR, NULL, 0};

static ic_status_t bcast(ic_plan_t *pl, const ic_coll_args_t *a, ic_chain_kind_t kind)
{
    ic_view_t v;
    int r;
    if (chain_view(pl, a, kind, false, a->root, &v, &r))
        ic_blk_mst_bcast_split(pl, &v, r, &near_split, ic_loc(IC_BUF_RECV, 0),
                               a->count * ic_args_esize(a));
    return pl->error;
}

static ic_status_t reduce(ic_plan_t *pl, const ic_coll_args_t *a, ic_chain_kind_t kind)
{
    ic_view_t v;
    int r;
    bool root = pl->rank == a->root;
    ic_loc_t in = a->in_place && root ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_SEND, 0);
    ic_loc_t acc = root ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_NONE, 0);
    if (chain_view(pl, a, kind, true, a->root, &v, &r))
        ic_blk_mst_reduce_split(pl, &v, r, &near_split, in, acc, a->count * ic_args_esize(a));
    return pl->error;
}

/* Per-rank lengths and root offsets of a scatter(v)/gather(v), permuted
 * into chain order. */
static bool chain_blocks(ic_plan_t *pl, const ic_coll_args_t *a, const ic_view_t *v,
                         size_t **len, size_t **off)
{
    int n = pl->size;
    size_t *l = ic_args_block_bytes(pl, a);
    size_t *o = l ? ic_args_block_offsets(pl, a, l) : NULL;
    *len = ic_plan_sizes(pl, (size_t)n);
    *off = ic_plan_sizes(pl, (size_t)n);
    if (!o || !*len || !*off)
        return false;
    for (int i = 0; i < n; i++) {
        (*len)[i] = l[v->map[i]];
        (*off)[i] = o[v->map[i]];
    }
    return true;
}

static ic_status_t scatter(ic_plan_t *pl, const ic_coll_args_t *a, ic_chain_kind_t kind)
{
    ic_view_t v;
    int r;
    size_t *len, *off;
    if (!chain_view(pl, a, kind, false, a->root, &v, &r) || !chain_blocks(pl, a, &v, &len, &off))
        return pl->error;
    ic_layout_t src = {ic_loc(IC_BUF_SEND, 0), off};
    ic_layout_t stage = {ic_loc(IC_BUF_SCRATCH, 0), NULL};
    bool keep = a->in_place && pl->rank == a->root;
    ic_loc_t dst = keep ? ic_loc(IC_BUF_NONE, 0) : ic_loc(IC_BUF_RECV, 0);
    ic_blk_mst_scatter(pl, &v, r, &near_split, len, src, stage, dst);
    return pl->error;
}

static ic_status_t gather(ic_plan_t *pl, const ic_coll_args_t *a, ic_chain_kind_t kind)
{
    ic_view_t v;
    int r;
    size_t *len, *off;
    if (!chain_view(pl, a, kind, true, a->root, &v, &r) || !chain_blocks(pl, a, &v, &len, &off))
        return pl->error;
    ic_layout_t dst = {ic_loc(IC_BUF_RECV, 0), off};
    ic_layout_t stage = {ic_loc(IC_BUF_SCRATCH, 0), NULL};
    ic_loc_t mine = (a->in_place && pl->rank == a->root) ? ic_layout_at(&dst, v.me)
                                                          : ic_loc(IC_BUF_SEND, 0);
    ic_blk_mst_gather(pl, &v, r, &near_split, len, mine, stage, dst);
    return pl->error;
}

/* Fan-in up the dual chain's tree, fan-out down the plain one's, both
 * rooted at rank 0. */
static ic_status_t barrier(ic_plan_t *pl, const ic_coll_args_t *a, ic_chain_kind_t kind)
{
    ic_view_t in, out;
    int rin, rout;
    if (chain_view(pl, a, kind, true, 0, &in, &rin) && chain_view(pl, a, kind, false, 0, &out, &rout))
        ic_blk_tree_barrier(pl, &in, rin, &out, rout, &near_split);
    return pl->error;
}

/* The catalog's builders: one per collective and chain. */
ic_status_t ic_build_bcast_umesh(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return bcast(pl, a, IC_CHAIN_MESH);
}

ic_status_t ic_build_bcast_utorus(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return bcast(pl, a, IC_CHAIN_TORUS);
}

ic_status_t ic_build_bcast_ucube(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return bcast(pl, a, IC_CHAIN_CUBE);
}

ic_status_t ic_build_reduce_umesh(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return reduce(pl, a, IC_CHAIN_MESH);
}

ic_status_t ic_build_reduce_utorus(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return reduce(pl, a, IC_CHAIN_TORUS);
}

ic_status_t ic_build_reduce_ucube(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return reduce(pl, a, IC_CHAIN_CUBE);
}

ic_status_t ic_build_scatter_umesh(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return scatter(pl, a, IC_CHAIN_MESH);
}

ic_status_t ic_build_scatter_utorus(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return scatter(pl, a, IC_CHAIN_TORUS);
}

ic_status_t ic_build_scatter_ucube(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return scatter(pl, a, IC_CHAIN_CUBE);
}

ic_status_t ic_build_gather_umesh(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return gather(pl, a, IC_CHAIN_MESH);
}

ic_status_t ic_build_gather_utorus(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return gather(pl, a, IC_CHAIN_TORUS);
}

ic_status_t ic_build_gather_ucube(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return gather(pl, a, IC_CHAIN_CUBE);
}

ic_status_t ic_build_barrier_umesh(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return barrier(pl, a, IC_CHAIN_MESH);
}

ic_status_t ic_build_barrier_utorus(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return barrier(pl, a, IC_CHAIN_TORUS);
}

ic_status_t ic_build_barrier_ucube(ic_plan_t *pl, const ic_coll_args_t *a)
{
    return barrier(pl, a, IC_CHAIN_CUBE);
}

ic_chain_kind_t ic_uchain_kind(const ic_coll_args_t *a)
{
    switch (a->phys ? a->phys->kind : IC_PHYS_NONE) {
    case IC_PHYS_TORUS:
    case IC_PHYS_TORUS_UNI:
        return IC_CHAIN_TORUS;
    case IC_PHYS_HYPERCUBE:
        return IC_CHAIN_CUBE;
    default:
        return IC_CHAIN_MESH;
    }
}

/* Scatter-collect: piece i of the vector (the even partition) goes to
 * chain member i down the U tree, then the ring along the chain completes
 * every buffer. */
ic_status_t ic_build_bcast_u_sag(ic_plan_t *pl, const ic_coll_args_t *a)
{
    int n = pl->size;
    size_t es = ic_args_esize(a);
    size_t *off = ic_plan_sizes(pl, (size_t)n), *len = ic_plan_sizes(pl, (size_t)n);
    ic_view_t v;
    int r;
    if (!off || !len || !chain_view(pl, a, ic_uchain_kind(a), false, a->root, &v, &r))
        return pl->error;
    ic_partition_even(a->count, n, off, len);
    for (int i = 0; i < n; i++) {
        off[i] *= es;
        len[i] *= es;
    }
    ic_layout_t buf = {ic_loc(IC_BUF_RECV, 0), off};
    ic_blk_mst_scatter(pl, &v, r, &near_split, len, buf, buf, ic_loc(IC_BUF_NONE, 0));
    ic_blk_ring_allgather(pl, &v, len, buf, ic_layout_at(&buf, v.me));
    return pl->error;
}
