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
ic_status_t ic_build_bcast_direct(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_scatter_allgather(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_double_tree(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_edst(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_reduce.c */
ic_status_t ic_build_reduce_mst(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_direct(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_rs_gather(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_direct_gather(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_allreduce.c */
ic_status_t ic_build_allreduce_reduce_bcast(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_allreduce_direct(ic_plan_t *pl, const ic_coll_args_t *a);
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
ic_status_t ic_build_allgather_direct(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_allgather_gather_bcast(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_reduce_scatter.c (block and per-rank counts) */
ic_status_t ic_build_reduce_scatter_ring(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_scatter_direct(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_scatter_reduce_scatter(ic_plan_t *pl, const ic_coll_args_t *a);
/* coll_misc.c */
ic_status_t ic_build_alltoall_pairwise(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_barrier_dissemination(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_barrier_direct(ic_plan_t *pl, const ic_coll_args_t *a);
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

/* edn_bcast.c: the EDN broadcast and its duals reduce and gather(v) on the
 * whole 2-D mesh (all-port, XY routing; a->phys with ic_edn_fits). */
ic_status_t ic_build_bcast_edn(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_edn(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_gather_edn(ic_plan_t *pl, const ic_coll_args_t *a); /* and gatherv */
#define IC_EDN_MAX_SIDE 256   /* longest mesh side the entries take */
#define IC_EDN_MAX_SENDS 128  /* a node's sends, at most */
/* True when ph is a mesh of 1 or 2 dimensions (sides <= IC_EDN_MAX_SIDE)
 * with exactly one of the n members on each node. */
bool ic_edn_fits(const ic_phys_t *ph, int n);
/* Its rows and columns ("mesh:C" is 1 x C). */
void ic_edn_shape(const ic_phys_t *ph, int *rows, int *cols);
/* The EDN tree of the rows x cols mesh (nodes row-major) from node source,
 * seen from node: its parent (-1 for the source) and the step it receives
 * in (0 for the source) into *parent, *step; its children in send order
 * into kids and their steps (ascending, consecutive from *step + 1) into
 * kid_steps; returns their number (-1: bad shape or no memory). */
int ic_edn_node(int rows, int cols, int source, int node, int *parent, int *step, int *kids,
                int *kid_steps);
/* The whole tree at once (what ic_edn_node gives for every node): parent
 * and step of each node, its children in send order at kids[off[x] ..
 * off[x + 1]); off has rows*cols + 1 entries, kids and the other arrays
 * rows*cols, work 2*rows*cols.  Returns rows*cols - 1 (-1 as above). */
int ic_edn_tree(int rows, int cols, int source, int *parent, int *step, int *off, int *kids,
                int *work);
/* The broadcast's steps from source (0 for one node; -1 as above). */
int ic_edn_steps(int rows, int cols, int source);

/* Shared helpers (coll_common.c). */
size_t ic_args_esize(const ic_coll_args_t *a);
/* Per-rank byte lengths of a block collective: counts[i] or count, times
 * the element size. */
size_t *ic_args_block_bytes(ic_plan_t *pl, const ic_coll_args_t *a);
/* Byte offsets from element displacements (NULL displs: packed). */
size_t *ic_args_block_offsets(ic_plan_t *pl, const ic_coll_args_t *a, const size_t *len);
/* The input of an allreduce, a scan or an exscan: the receive buffer with
 * IC_IN_PLACE, else the send buffer. */
ic_loc_t ic_args_allreduce_input(const ic_coll_args_t *a);

#endif
