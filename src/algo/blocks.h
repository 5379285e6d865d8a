/*
 * blocks.h — the building blocks.  Each appends one rank's steps of one
 * block to a plan, on a view (a subset of the communicator's ranks), and
 * never touches a transport.  Every block starts a new tag phase on every
 * rank, member of the view or not, so that compositions stay in step.
 *
 * Locations: a block of the data is "base + off[i]" for view index i, with
 * len[i] bytes.  Ranges of consecutive indices must be contiguous where a
 * block sends a range as one message (the blocks pack into scratch when a
 * root's layout is not).  Messages of zero bytes are left out on both sides.
 */
#ifndef IC_ALGO_BLOCKS_H
#define IC_ALGO_BLOCKS_H

#include "algo/patterns.h"
#include "plan/plan.h"

/* A block layout: element i at base + off[i], len[i] bytes.  off == NULL
 * means "packed scratch": the block chooses its own scratch layout. */
typedef struct ic_layout {
    ic_loc_t base;
    const size_t *off;
} ic_layout_t;

static inline ic_loc_t ic_layout_at(const ic_layout_t *l, int i)
{
    return ic_loc_add(l->base, l->off[i]);
}

/* True when blocks lo..hi lie back to back in l. */
bool ic_layout_contiguous(const ic_layout_t *l, const size_t *len, int lo, int hi);

/* mst_bcast.c — the root's bytes at buf reach buf on every member. */
void ic_blk_mst_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf,
                      size_t bytes);

/* The same on the tree of split sp (NULL: geometric; IC_SPLIT_NEAR for the
 * chains of phys.h; not IC_SPLIT_DATA). */
void ic_blk_mst_bcast_split(ic_plan_t *pl, const ic_view_t *v, int root, const ic_split_t *sp,
                            ic_loc_t buf, size_t bytes);

/* double_tree_bcast.c — the Double Tree broadcast (all-port hypercubes):
 * as ic_blk_mst_bcast for n = 2^d members. */
void ic_blk_double_tree_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf,
                              size_t bytes);
/* Its tree, on addresses relative to the root (x = member XOR root) of the
 * d-cube: the parent of x (-1 for the root), and x's children in send
 * order into out (at most d + 1); *delayed is the index of the child sent
 * only after the first send is through (-1: none). */
int ic_double_tree_parent(int d, unsigned x);
int ic_double_tree_children(int d, unsigned x, unsigned *out, int *delayed);

/* edst_bcast.c — the broadcast on d edge-disjoint spanning binomial trees
 * (multi-port hypercubes): as ic_blk_mst_bcast for n = 2^d members, the
 * count elements of esize bytes cut into d segments, segment j down tree j. */
void ic_blk_edst_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf, size_t count,
                       size_t esize);
/* Tree j of the d trees, on addresses relative to the root: the parent of
 * x (-1 for the root), and x's children in send order into out (at most
 * d); returns their number. */
int ic_edst_parent(int d, int j, unsigned x);
int ic_edst_children(int d, int j, unsigned x, unsigned *out);

/* mst_reduce.c — every member's input at in; the reduction in rank order
 * ends at acc on the root.  acc is where this rank accumulates (it must be
 * writable; buf NONE lets the block use scratch).  Works for
 * non-commutative operations. */
void ic_blk_mst_reduce(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t in,
                       ic_loc_t acc, size_t bytes);

/* The same on the tree of split sp (as ic_blk_mst_bcast_split); the
 * reduction is then in view order. */
void ic_blk_mst_reduce_split(ic_plan_t *pl, const ic_view_t *v, int root, const ic_split_t *sp,
                             ic_loc_t in, ic_loc_t acc, size_t bytes);

/* tree_barrier.c — fan-in to the root up the tree of split sp over view
 * in, then fan-out down the tree over view out (the same ranks, the same
 * root rank): no member leaves before every member entered (empty
 * messages). */
void ic_blk_tree_barrier(ic_plan_t *pl, const ic_view_t *in, int in_root, const ic_view_t *out,
                         int out_root, const ic_split_t *sp);

/* mst_scatter.c — the root's blocks src[i] reach dst on member i.
 * stage: where a member keeps the blocks it forwards (off == NULL: packed
 * scratch).  dst.buf == NONE leaves the member's block in stage. */
void ic_blk_mst_scatter(ic_plan_t *pl, const ic_view_t *v, int root,
                        const ic_split_t *sp, const size_t *len, ic_layout_t src,
                        ic_layout_t stage, ic_loc_t dst);

/* mst_gather.c — member i's block at mine reaches dst[i] on the root. */
void ic_blk_mst_gather(ic_plan_t *pl, const ic_view_t *v, int root,
                       const ic_split_t *sp, const size_t *len, ic_loc_t mine,
                       ic_layout_t stage, ic_layout_t dst);

/* direct_scatter.c — as ic_blk_mst_scatter, the root sending each member
 * its block directly; a non-root reads len[me] only. */
void ic_blk_direct_scatter(ic_plan_t *pl, const ic_view_t *v, int root, const size_t *len,
                           ic_layout_t src, ic_loc_t dst);

/* direct_gather.c — as ic_blk_mst_gather, each member sending its block
 * to the root directly; a non-root reads len[me] only. */
void ic_blk_direct_gather(ic_plan_t *pl, const ic_view_t *v, int root, const size_t *len,
                          ic_loc_t mine, ic_layout_t dst);

/* ring_allgather.c — member i's block (at mine on i) reaches buf[i] on
 * every member. */
void ic_blk_ring_allgather(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                           ic_layout_t buf, ic_loc_t mine);

/* direct_allgather.c — as ring_allgather, every member sending its block
 * to every other directly, all at once. */
void ic_blk_direct_allgather(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                             ic_layout_t buf, ic_loc_t mine);

/* ring_reduce_scatter.c — block i of every member's input (in[i]) is
 * reduced into out on member i.  Commutative operations only. */
void ic_blk_ring_reduce_scatter(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                                ic_layout_t in, ic_loc_t out);

/* tree_reduce_scatter.c — the canonical combination of leaves lo..hi:
 * slot[hi] = T(lo, hi) with T(lo, hi) = T(lo, mid) (op) T(mid+1, hi), mid
 * = lo + (hi - lo) / 2 (the MST reduce's tree, so the same bits as it),
 * every step after step after (when > -1); the other slots are
 * clobbered. */
void ic_blk_combine_tree(ic_plan_t *pl, const ic_loc_t *slot, int lo, int hi, size_t bytes,
                         long after);

/* direct_bcast.c — as ic_blk_mst_bcast, the root sending to every member
 * directly, all at once. */
void ic_blk_direct_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf,
                         size_t bytes);

/* direct_reduce.c — reduce-to-one and allreduce by direct messages, every
 * vector combined where it arrives in the canonical tree (the MST
 * reduce's bits): in (bytes) of every member reduced into out on the
 * root (ic_blk_direct_reduce; out unused elsewhere) or on every member
 * (ic_blk_direct_allreduce).  in may be out (in place). */
void ic_blk_direct_reduce(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t in,
                          ic_loc_t out, size_t bytes);
void ic_blk_direct_allreduce(ic_plan_t *pl, const ic_view_t *v, ic_loc_t in, ic_loc_t out,
                             size_t bytes);

/* tree_reduce_scatter.c — as ring_reduce_scatter, by a direct exchange,
 * each block combined by its owner in the canonical rank tree (the order
 * of ic_blk_mst_reduce); any operation. */
void ic_blk_tree_reduce_scatter(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                                ic_layout_t in, ic_loc_t out);

/* Either reduce-scatter block, for compositions that take one. */
typedef void (*ic_rs_block_fn)(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                               ic_layout_t in, ic_loc_t out);

/* pairwise_alltoall.c — block j of member i's send layout reaches block i
 * of member j's receive layout. */
void ic_blk_pairwise_alltoall(ic_plan_t *pl, const ic_view_t *v, ic_layout_t send,
                              const size_t *slen, ic_layout_t recv, const size_t *rlen);

/* dissemination_barrier.c — no member leaves before every member entered. */
void ic_blk_dissemination_barrier(ic_plan_t *pl, const ic_view_t *v);

/* direct_barrier.c — the same in one round: every member tells every other. */
void ic_blk_direct_barrier(ic_plan_t *pl, const ic_view_t *v);

/* dissemination_scan.c — prefix reduction in rank order of in into out
 * (inclusive, or exclusive: member 0's out untouched). */
void ic_blk_dissemination_scan(ic_plan_t *pl, const ic_view_t *v, ic_loc_t in,
                               ic_loc_t out, size_t bytes, bool exclusive);

#endif
