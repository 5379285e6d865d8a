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
/* Tested by its family's own matrix and cost tests (test_coll_<family>,
 * test_cost_<family>) rather than the generic ones. */
#define IC_ALGO_OWN_TESTS 0x8u

typedef double (*ic_cost_fn)(const ic_coll_args_t *a, int p, const ic_model_t *m);

typedef struct ic_algo {
    ic_coll_t coll;
    const char *name;
    const char *description;
    unsigned flags;
    ic_build_fn build;
    ic_cost_fn cost;
} ic_algo_t;

/* The whole table and its length. */
const ic_algo_t *ic_catalog(size_t *n);

/* The entry of coll called name, or NULL. */
const ic_algo_t *ic_catalog_find(ic_coll_t coll, const char *name);

/* True if the entry can run this call on p ranks. */
bool ic_algo_applies(const ic_algo_t *al, const ic_coll_args_t *a, int p);

/* The cheapest applicable entry under model m (first in the table on
 * ties); never NULL for valid arguments. */
const ic_algo_t *ic_select(const ic_coll_args_t *a, int p, const ic_model_t *m);

/* Validates a, picks the algorithm (forced by name, or selected; "auto"
 * and NULL select) and builds rank's plan into pl, which the caller
 * releases with ic_plan_release.  fn names the caller for messages. */
ic_status_t ic_plan_build(const char *fn, const ic_coll_args_t *a, int rank, int size,
                          const char *algo, ic_plan_t *pl);

/* The default model used when none is configured: shared-memory-like
 * parameters (alpha 1 us, beta 0.1 ns/B, gamma 0.05 ns/B, delta 0.05 ns/B). */
ic_model_t ic_model_default(void);

#endif
