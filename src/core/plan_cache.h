/*
 * plan_cache.h — the plans of earlier calls, reused by calls with the same
 * arguments (plan_cache.c says how; coll_run.c calls it).  Functions that
 * take a communicator run with the progress lock (ic_coll_guard) held.
 */
#ifndef IC_CORE_PLAN_CACHE_H
#define IC_CORE_PLAN_CACHE_H

#include "core/coll_run.h"
#include "core/comm.h"

#include <stdbool.h>
#include <stdint.h>

/* True when a call with arguments b can reuse the plan built for a (whose
 * count and displacement arrays are the request's own copies). */
bool ic_plan_args_equal(ic_coll_args_t *a, ic_coll_args_t *b, int p);
/* Makes r->key a copy of a that owns copies of its arrays; 0, or -1 when
 * out of memory. */
int ic_plan_key_copy(ic_request_t *r, const ic_coll_args_t *a, int p);

/* A cached plan for the call a, or NULL.  Blocking: it stays cached (now
 * the most recently used).  Nonblocking: it leaves the cache until
 * ic_plan_cache_return. */
ic_request_t *ic_plan_cache_take(ic_comm_t *comm, ic_coll_args_t *a, ic_mode_t mode);
/* Puts r into comm's cache as the most recently used plan. */
void ic_plan_cache_put(ic_comm_t *comm, ic_request_t *r);
/* comm's cache generation (unique in the process), made when first
 * needed: a nonblocking request records it when it starts. */
uint64_t ic_plan_cache_gen(ic_comm_t *comm);
/* A nonblocking request that completed with st: back into its
 * communicator's cache when it succeeded and that cache is still the
 * generation it recorded, else destroyed. */
void ic_plan_cache_return(ic_request_t *r, ic_status_t st);
/* Destroys every cached plan of comm; plans lent out do not come back. */
void ic_plan_cache_clear(ic_comm_t *comm);

#endif
