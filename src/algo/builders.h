/*
 * builders.h — plan builders of every catalog entry: one collective with
 * one algorithm, composed from the blocks of blocks.h.  Each appends the
 * steps of rank pl->rank (of pl->size) for the call described by a and
 * returns IC_OK or the plan's allocation error.  Arguments were validated
 * before (algo/validate.c).
 */
#ifndef IC_ALGO_BUILDERS_H
#define IC_ALGO_BUILDERS_H

#include "algo/blocks.h"
#include "algo/coll_args.h"

typedef ic_status_t (*ic_build_fn)(ic_plan_t *pl, const ic_coll_args_t *a);

/* coll_bcast.c */
ic_status_t ic_build_bcast_mst(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_scatter_allgather(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_double_tree(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_reduce.c */
ic_status_t ic_build_reduce_mst(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_rs_gather(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_direct_gather(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_allreduce.c */
ic_status_t ic_build_allreduce_reduce_bcast(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_allreduce_rs_ag(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_allreduce_direct_ag(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_scatter.c (scatter and scatterv) */
ic_status_t ic_build_scatter_mst(ic_plan_t *pl, const ic_coll_args_t *a);
/* scatter and scatterv (a non-root reads only its own count) */
ic_status_t ic_build_scatter_direct(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_scatterv_mst(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_scatterv_mst_dist(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_gather.c (gather and gatherv) */
ic_status_t ic_build_gather_mst(ic_plan_t *pl, const ic_coll_args_t *a);
/* gather and gatherv (a non-root reads only its own count) */
ic_status_t ic_build_gather_direct(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_gatherv_mst(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_gatherv_mst_dist(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_allgather.c (allgather and allgatherv) */
ic_status_t ic_build_allgather_ring(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_allgather_gather_bcast(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_reduce_scatter.c (block and per-rank counts) */
ic_status_t ic_build_reduce_scatter_ring(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_scatter_direct(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_scatter_reduce_scatter(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_misc.c */
ic_status_t ic_build_alltoall_pairwise(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_barrier_dissemination(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_scan_dissemination(ic_plan_t *pl, const ic_coll_args_t *a);

/* coll_uchain.c: U-mesh, U-torus, U-cube (a->phys known) and the
 * scatter-collect broadcast over the chain of the network's kind. */
ic_status_t ic_build_bcast_umesh(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_utorus(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_ucube(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_u_sag(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_umesh(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_utorus(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_ucube(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_scatter_umesh(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_scatter_utorus(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_scatter_ucube(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_gather_umesh(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_gather_utorus(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_gather_ucube(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_barrier_umesh(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_barrier_utorus(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_barrier_ucube(ic_plan_t *pl, const ic_coll_args_t *a);
/* The chain u_sag and the cost functions use for a->phys's kind. */
ic_chain_kind_t ic_uchain_kind(const ic_coll_args_t *a);

/* Shared helpers (coll_common.c). */
size_t ic_args_esize(const ic_coll_args_t *a);
/* Per-rank byte lengths of a block collective: counts[i] or count, times
 * the element size. */
size_t *ic_args_block_bytes(ic_plan_t *pl, const ic_coll_args_t *a);
/* Byte offsets from element displacements (NULL displs: packed). */
size_t *ic_args_block_offsets(ic_plan_t *pl, const ic_coll_args_t *a, const size_t *len);
/* An allreduce's input: the receive buffer with IC_IN_PLACE, else the
 * send buffer. */
ic_loc_t ic_args_allreduce_input(const ic_coll_args_t *a);

#endif
