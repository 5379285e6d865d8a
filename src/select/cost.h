/*
 * cost.h — the cost of each building block and catalog entry under the
 * papers' model (alpha + n*beta per message, n*gamma per reduced byte), as
 * closed forms or, where p is not a power of two or blocks are uneven, as
 * the exact recurrence the implementation follows.  Local copies (delta)
 * are not priced: in these plans they overlap communication.
 */
#ifndef IC_SELECT_COST_H
#define IC_SELECT_COST_H

#include "algo/coll_args.h"
#include "algo/patterns.h"

#include <stdbool.h>

/* MST broadcast of bytes over n members: ceil(log2 n)*(alpha+bytes*beta). */
double ic_cost_mst_bcast(int n, size_t bytes, const ic_model_t *m);

/* With the ranks crowded on fewer cores: the least a broadcast of bytes
 * over p members in which members forward costs, its p - 1 messages one
 * after another (cost_crowded.c). */
double ic_cost_bcast_crowded_floor(int p, size_t bytes, const ic_model_t *m);

/* MST reduce-to-one (two alternating receive buffers): the recurrence over
 * the tree; equals ceil(log2 n)*(alpha+bytes*(beta+gamma)) for n = 2^d. */
double ic_cost_mst_reduce(int n, int root, size_t bytes, const ic_model_t *m);

/* The same on the tree of split sp (NULL: geometric; IC_SPLIT_NEAR). */
double ic_cost_mst_reduce_split(const ic_split_t *sp, int n, int root, size_t bytes,
                                const ic_model_t *m);

/* MST scatter with len[i] bytes for member i, starting at time 0 at the
 * root.  arrive (optional, n entries) receives the time member i holds its
 * block and has sent everything it forwards.  Returns the completion
 * time. */
double ic_cost_mst_scatter(const ic_split_t *sp, int n, int root, const size_t *len,
                           const ic_model_t *m, double *arrive);

/* The MST scatter or gather (the same tree, either direction) with the
 * ranks crowded on fewer cores: its messages priced one after another, as
 * the cores serve them -- the sum over the tree's edges of alpha + bytes
 * * beta (docs/perf/oversubscribed.md, "Scatter and gather").  Never below
 * the direct block's root-port sum, equal to it when no member forwards. */
double ic_cost_mst_serial(const ic_split_t *sp, int n, int root, const size_t *len,
                          const ic_model_t *m);

/* MST gather with len[i] bytes from member i; ready (optional) gives the
 * time member i's block is available and its send port free, rfree
 * (optional) the time its receive port is free (NULL: all at 0). */
double ic_cost_mst_gather(const ic_split_t *sp, int n, int root, const size_t *len,
                          const double *ready, const double *rfree, const ic_model_t *m);

/* Ring allgather / reduce-scatter with block lengths len, member i starting
 * at ready[i] (NULL: 0).  done (optional) receives the time member i has
 * its result and a free send port, rfree (optional) the time its receive
 * port is free.  Returns the completion time. */
double ic_cost_ring_allgather(int n, const size_t *len, const double *ready,
                              const ic_model_t *m, double *done);
double ic_cost_ring_reduce_scatter(int n, const size_t *len, const ic_model_t *m,
                                   double *done, double *rfree);

/* The direct reduce-scatter combined in the rank tree (cost_direct.c);
 * done and rfree as for the ring. */
double ic_cost_direct_reduce_scatter(int n, const size_t *len, const ic_model_t *m,
                                     double *done, double *rfree);

/* The canonical rank tree T(0, n-1) combined on one member as its slots
 * arrive (slot j at arrive[j]), N*gamma a combination, one processor: the
 * end of the last combination (cost_direct_reduce.c). */
double ic_cost_tree_combine(int n, const double *arrive, size_t bytes, const ic_model_t *m);

/* The direct reduce (algo/direct_reduce.c): the n-1 vectors arrive one
 * after another at the root's port, combined in the tree as they come. */
double ic_cost_direct_reduce(int n, int root, size_t bytes, const ic_model_t *m);

/* The direct allreduce: every member receives the others' vectors one
 * after another (pairwise order) and combines them in the tree. */
double ic_cost_direct_allreduce(int n, size_t bytes, const ic_model_t *m);

/* Pairwise all-to-all: (n-1) steps, each as long as its largest message. */
double ic_cost_pairwise(int n, const size_t *slen_of, const ic_model_t *m);

/* Dissemination barrier: ceil(log2 n)*alpha. */
double ic_cost_barrier(int n, const ic_model_t *m);
/* Dissemination scan: the recurrence over rounds, the input's copy into
 * x first where the plan makes one, each round's per-byte times crowded by
 * the members that receive in it. */
double ic_cost_scan(int n, size_t bytes, bool exclusive, bool in_place, const ic_model_t *m);

/* The U-mesh / U-torus / U-cube entries (cost_uchain.c, algo/coll_uchain.c):
 * the MST costs on the chain, with the near-end split. */
double ic_cost_bcast_uchain(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_reduce_umesh(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_reduce_utorus(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_reduce_ucube(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_scatter_umesh(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_scatter_utorus(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_scatter_ucube(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_gather_umesh(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_gather_utorus(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_gather_ucube(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_barrier_tree(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_bcast_u_sag(const ic_coll_args_t *a, int p, const ic_model_t *m);

/* The Double Tree broadcast under the model's port count (cost_double_tree.c). */
double ic_cost_bcast_double_tree(const ic_coll_args_t *a, int p, const ic_model_t *m);

/* The EDN broadcast and reduce on the whole 2-D mesh under the model's
 * port count (cost_edn.c, algo/edn_bcast.c). */
double ic_cost_bcast_edn(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_reduce_edn(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_gather_edn(const ic_coll_args_t *a, int p, const ic_model_t *m);

/* The broadcast on d edge-disjoint spanning trees under the model's port
 * count (cost_edst.c). */
double ic_cost_bcast_edst(const ic_coll_args_t *a, int p, const ic_model_t *m);

/* The leaders' entries over hosts (cost_hosts.c, algo/hosts.c). */
double ic_cost_bcast_hosts(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_reduce_hosts(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_allreduce_hosts(const ic_coll_args_t *a, int p, const ic_model_t *m);
void ic_describe_hosts(const ic_coll_args_t *a, int p, const ic_model_t *m, char *buf,
                       size_t len);

#endif
