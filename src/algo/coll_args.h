/*
 * coll_args.h — one rank's description of one collective call, as the plan
 * builders see it.
 */
#ifndef IC_ALGO_COLL_ARGS_H
#define IC_ALGO_COLL_ARGS_H

#include "algo/mesh.h"
#include "algo/phys.h"
#include "base/dtype.h"
#include "base/model.h"
#include "intercom.h"

#include <stdbool.h>
#include <stddef.h>

/* Counts and displacements are in elements, as in the public API.
 *  count    bcast/reduce/allreduce/scan/exscan: the vector length;
 *           scatter/gather/allgather/alltoall/reduce_scatter_block: the
 *           per-rank block length.
 *  counts   scatterv/gatherv/allgatherv/reduce_scatter: per-rank lengths
 *           (size entries, significant on every rank).
 *  displs   scatterv (root's send buffer), gatherv (root's receive buffer),
 *           allgatherv (receive buffer); NULL means packed.
 *  alltoallv uses scounts/sdispls/rcounts/rdispls of this rank.
 *  in_place the input is in (and the output goes to) the receive buffer,
 *           as with IC_IN_PLACE; for scatter(v) at the root: the root's
 *           block stays in the send buffer. */
typedef struct ic_coll_args {
    ic_coll_t coll;
    ic_datatype_t dtype;
    const ic_op_t *op;
    int root;
    size_t count;
    const size_t *counts, *displs;
    const size_t *scounts, *sdispls, *rcounts, *rdispls;
    bool in_place;
    ic_model_t model; /* used by blocks that decide with the model */
    const ic_mesh_t *mesh; /* the logical mesh (ic_comm_set_mesh); NULL: a line */
    /* Where the ranks are (the MPI bridge across hosts): host index
     * 0..nhosts-1 of each communicator rank; NULL (nhosts 1): one host. */
    const int *host_of;
    int nhosts;
    /* IC_REPRODUCIBLE / ic_comm_set_reproducible: reductions combine every
     * element in the canonical order (docs/reproducibility.md), so only
     * entries flagged IC_ALGO_CANONICAL apply. */
    bool reproducible;
    /* Scatterv/gatherv only: counts[] is the root's on the root, and on
     * any other member only counts[rank] (its own count) is meaningful,
     * as in MPI (the drop-in).  Only entries flagged IC_ALGO_OWN_COUNT
     * apply, the first one is taken (ranks could not agree on a price),
     * and the counts stay out of the call's signature and fingerprint. */
    bool counts_at_root;
    /* Where the members sit on a physical network (ic_comm_set_network,
     * the simulator); NULL: unknown.  The U-mesh, U-torus and U-cube
     * entries (coll_uchain.c) apply only when it is known. */
    const ic_phys_t *phys;
    /* Alltoallv by a forwarding entry (IC_ALGO_SIZES: bruck, dr): this
     * rank's record of the size exchange, the counts of the blocks it
     * receives in the order they arrive (builders_alltoall.h,
     * ic_fwd_lens_t), filled by the engine between the size exchange and
     * the data plan; NULL otherwise.  Not part of the cache key: such plans
     * are not cached. */
    const size_t *fwd_sizes;
    size_t nfwd_sizes;
    /* The in-process engine: the data plan replays the size exchange
     * first (on scratch, then a fence), so its virtual time is the call's. */
    bool fwd_replay;
} ic_coll_args_t;

#endif
