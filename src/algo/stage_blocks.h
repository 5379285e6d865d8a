/*
 * stage_blocks.h — building blocks that run over the rings of a stage
 * schedule (stages.h): the DR / PFR collect and distributed reduction,
 * dimension-by-dimension scatter and gather, and the ring reduce-to-all.
 * Pieces of the vector lie at base + poff[q], q = 0..P (P + 1 offsets).
 */
#ifndef IC_ALGO_STAGE_BLOCKS_H
#define IC_ALGO_STAGE_BLOCKS_H

#include "algo/blocks.h"
#include "algo/stages.h"

/* Offsets (relative to the pieces' base) and lengths of the m sub-slabs of
 * rank me's slab in split stage k (m = the size of ring order[k]);
 * false when out of memory. */
bool ic_stage_layout(ic_plan_t *pl, const ic_sched_t *s, int k, int me, const size_t *poff,
                     size_t **off, size_t **len);

/* stage_rings.c — every rank's slab after all split stages (its own piece
 * at mine at first) reaches base + poff on every rank. */
void ic_blk_stage_allgather(ic_plan_t *pl, const ic_sched_t *s, const size_t *poff,
                            ic_loc_t base, ic_loc_t mine);
/* stage_rings.c — the input at in (read only in stage 0) is reduced over
 * the split rings; partial slabs live in work (same layout, writable); the
 * final slab goes to out (buf NONE: stays in work at its offset). */
void ic_blk_stage_reduce_scatter(ic_plan_t *pl, const ic_sched_t *s, const size_t *poff,
                                 ic_loc_t in, ic_loc_t work, ic_loc_t out);

/* stage_trees.c — the root's pieces reach every rank's slab (same
 * offsets in base), and back. */
void ic_blk_stage_scatter(ic_plan_t *pl, const ic_sched_t *s, int root, const size_t *poff,
                          ic_loc_t base);
void ic_blk_stage_gather(ic_plan_t *pl, const ic_sched_t *s, int root, const size_t *poff,
                         ic_loc_t base);

/* ring_allreduce.c — acc on every member = the reduction of every
 * member's in (bytes each); in may equal acc.  Commutative operations. */
void ic_blk_ring_allreduce(ic_plan_t *pl, const ic_view_t *v, ic_loc_t in, ic_loc_t acc,
                           size_t bytes);

#endif
