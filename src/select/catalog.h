/*
 * catalog.h — every algorithm of every collective as data: name, one-line
 * description, where it applies, its cost function and its plan builder.
 * Selection prices the applicable entries and takes the cheapest; a user
 * can force an entry by name.
 */
#ifndef IC_SELECT_CATALOG_H
#define IC_SELECT_CATALOG_H

#include "algo/builders.h"
#include "plan/plan.h"

/* Entry flags. */
#define IC_ALGO_COMMUTATIVE 0x1u /* needs a commutative operation */
#define IC_ALGO_MESH 0x2u        /* follows the logical mesh (ic_comm_set_mesh) */
#define IC_ALGO_POW2 0x4u        /* needs p to be a power of two */
#define IC_ALGO_HOSTS 0x10u      /* the selector takes it only across hosts; forced, it runs anywhere */
/* Combines every element of a reduction in the canonical order (the rank
 * tree of docs/reproducibility.md; for scan and exscan the dissemination
 * order), whatever the length: the only entries of reductions that
 * IC_REPRODUCIBLE lets run. */
#define IC_ALGO_CANONICAL 0x20u
/* Scatterv/gatherv: a member other than the root reads only its own
 * count, so the entry runs calls whose counts only the root has
 * (ic_coll_args_t.counts_at_root, MPI's convention: the drop-in). */
#define IC_ALGO_OWN_COUNT 0x40u
/* Applies only when the call knows where its members sit on a physical
 * network (ic_coll_args_t.phys, ic_comm_set_network) of one of these
 * kinds: the U-mesh, U-torus and U-cube entries (algo/coll_uchain.c). */
#define IC_ALGO_ON_MESH 0x80u
#define IC_ALGO_ON_TORUS 0x100u
#define IC_ALGO_ON_CUBE 0x200u
#define IC_ALGO_PHYS (IC_ALGO_ON_MESH | IC_ALGO_ON_TORUS | IC_ALGO_ON_CUBE)
/* Runs only on a 2^j x 2^j logical mesh, j >= 1: p = 4^j, and the
 * communicator's mesh, when one is set, is that square (the quadrant
 * exchange, algo/quadrant_alltoall.c; its cost is HUGE_VAL on the other
 * shapes the selector tries, so it is priced on the square only). */
#define IC_ALGO_SQUARE_MESH 0x400u
/* All-to-allv by an algorithm that forwards blocks (bruck, dr): a size
 * exchange (ic_plan_build_sizes) runs first, and the data plan is built
 * from its record (ic_coll_args_t.fwd_sizes), so it depends on the other
 * ranks' counts: it is never cached, and only blocking calls run it
 * (nonblocking and persistent ones are refused, IC_ERR_NOT_APPLICABLE: the
 * plan could not be made without waiting for the other ranks). */
#define IC_ALGO_SIZES 0x800u
/* With IC_ALGO_ON_MESH: the placement must be the whole 2-D mesh, one
 * member per node (ic_edn_fits: the EDN entries, algo/edn_bcast.c). */
#define IC_ALGO_WHOLE_MESH 0x1000u
/* Priced on a hypercube's links (the all-port cube trees double_tree and
 * edst): the selector skips it when the placement is known to be a mesh
 * or torus, whose links its messages would share; forced, it runs
 * anywhere. */
#define IC_ALGO_CUBE_LINKS 0x2000u
/* A broadcast whose root sends every message itself: no member forwards,
 * so the crowded broadcast floor (ic_cost_bcast_crowded_floor) does not
 * apply to it. */
#define IC_ALGO_ROOT_SENDS 0x4000u
/* Tested by its family's own matrix and cost tests (test_coll_<family>,
 * test_cost_<family>) rather than the generic ones. */
#define IC_ALGO_OWN_TESTS 0x8u

typedef double (*ic_cost_fn)(const ic_coll_args_t *a, int p, const ic_model_t *m);

/* Describes the parameters an entry would choose for a call (e.g. a
 * hybrid's schedule), for explanations. */
typedef void (*ic_describe_fn)(const ic_coll_args_t *a, int p, const ic_model_t *m, char *buf,
                               size_t len);

typedef struct ic_algo {
    ic_coll_t coll;
    const char *name;
    const char *description;
    unsigned flags;
    ic_build_fn build;
    ic_cost_fn cost;
    ic_describe_fn describe; /* optional */
} ic_algo_t;

/* The whole table and its length. */
const ic_algo_t *ic_catalog(size_t *n);

/* The entry of coll called name, or NULL. */
const ic_algo_t *ic_catalog_find(ic_coll_t coll, const char *name);

/* True if the entry can run this call on p ranks. */
bool ic_algo_applies(const ic_algo_t *al, const ic_coll_args_t *a, int p);

/* A decision: a catalog entry and, for a mesh-aware entry, the logical
 * mesh it runs on (mesh.d == 0: the call's own, a->mesh or the line). */
typedef struct ic_choice {
    const ic_algo_t *al;
    ic_mesh_t mesh;
    double cost; /* predicted seconds */
} ic_choice_t;

/* Decides how to run the call (decide.c): prices every applicable entry
 * (only forced, when not NULL) under m, a mesh-aware entry on every
 * logical mesh shape of p with at most 3 dimensions and on the user's
 * mesh (a->mesh); a forced mesh-aware entry with a user's mesh runs on that
 * mesh only.  The cheapest wins, the first in catalog and shape order on
 * ties, so all ranks decide alike.  All-to-all(v) with per-rank counts
 * takes the first applicable entry (ranks could not agree on a price).
 * cands (optional) receives up to maxc candidates, each entry at its best
 * shape; returns how many entries were priced. */
int ic_decide(const ic_coll_args_t *a, int p, const ic_algo_t *forced, const ic_model_t *m,
              ic_choice_t *best, ic_choice_t *cands, int maxc);

/* The cheapest applicable entry under model m (ic_decide's); never NULL
 * for valid arguments. */
const ic_algo_t *ic_select(const ic_coll_args_t *a, int p, const ic_model_t *m);

/* Looks up a forced name for coll: NULL and IC_OK for NULL or "auto";
 * IC_ERR_UNKNOWN_ALGO (message listing the valid names, fn first) or
 * IC_ERR_NOT_APPLICABLE when the entry cannot run the call. */
ic_status_t ic_catalog_force(const char *fn, const ic_coll_args_t *a, int p, const char *algo,
                             const ic_algo_t **out);

/* Builds rank's plan of the size exchange of choice c, an entry flagged
 * IC_ALGO_SIZES (size_exchange.c): its send buffer is the call's send
 * counts (receive counts in place, p size_t), its receive buffer the
 * record, pl->buf_bytes[IC_BUF_RECV] bytes (ic_sizes_record_len counts).
 * Its tags are in a phase of their own (IC_SIZES_PHASE), so it may run
 * under the same sequence number as the data plan. */
ic_status_t ic_plan_build_sizes(const char *fn, const ic_coll_args_t *a, int rank, int size,
                                const ic_choice_t *c, ic_plan_t *pl);
#define IC_SIZES_PHASE 0xF0u
/* The send counts the size exchange sends (p entries). */
const size_t *ic_sizes_send_counts(const ic_coll_args_t *a);

/* Builds rank's plan of choice c (args already validated). */
ic_status_t ic_plan_build_choice(const char *fn, const ic_coll_args_t *a, int rank, int size,
                                 const ic_choice_t *c, ic_plan_t *pl);

/* Writes the explanation of a decision (the call, the model, every
 * candidate with its predicted time and shape, the choice) into buf
 * (always NUL-terminated, truncated to len). */
void ic_explain_format(const ic_coll_args_t *a, int p, const ic_choice_t *cands, int n,
                       const ic_choice_t *best, char *buf, size_t len);

/* Validates a, picks the algorithm (forced by name, or selected; "auto"
 * and NULL select) and builds rank's plan into pl, which the caller
 * releases with ic_plan_release.  fn names the caller for messages. */
ic_status_t ic_plan_build(const char *fn, const ic_coll_args_t *a, int rank, int size,
                          const char *algo, ic_plan_t *pl);

/* The default model used when none is configured: shared-memory-like
 * parameters (alpha 1 us, beta 0.1 ns/B, gamma 0.05 ns/B, delta 0.05 ns/B). */
ic_model_t ic_model_default(void);

#endif
