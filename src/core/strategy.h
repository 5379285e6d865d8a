/*
 * strategy.h — the per-communicator strategy cache and IC_EXPLAIN: how a
 * call's algorithm is decided when its plan is not cached.
 */
#ifndef IC_CORE_STRATEGY_H
#define IC_CORE_STRATEGY_H

#include "core/comm.h"

/* Decides how comm runs the call a (forced entry or NULL): from the
 * strategy cache, or with ic_decide, remembering the result and printing
 * the explanation to stderr on rank 0 when IC_EXPLAIN=1. */
void ic_strategy_decide(ic_comm_t *comm, const ic_coll_args_t *a, const ic_algo_t *forced,
                        ic_choice_t *out);

/* Forgets every decision (the model, mesh or forced algorithm changed). */
void ic_strategy_clear(ic_comm_t *comm);

#endif
