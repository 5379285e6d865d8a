/*
 * hosts.h — the leaders' collectives over hosts of any sizes (hosts.c):
 * host views, the choice of the leaders' allreduce, and the builders of
 * the "hosts" catalog entries.
 */
#ifndef IC_ALGO_HOSTS_H
#define IC_ALGO_HOSTS_H

#include "algo/coll_args.h"
#include "algo/patterns.h"
#include "plan/plan.h"

#include <stdbool.h>

/* The number of hosts of a call of p ranks (1 without host information)
 * and, in *kmax (optional), the most ranks on one host. */
int ic_hosts_count(const ic_coll_args_t *a, int p, int *kmax);

/* This rank's host as a view with the host's leader at index 0, and the
 * leaders as a view indexed by host (me = -1 off it).  The leader of a
 * host is its lowest rank, or root on root's host when root >= 0.  The
 * rank lists live in the plan.  False when out of memory (pl->error). */
bool ic_hosts_views(ic_plan_t *pl, const ic_coll_args_t *a, int root, ic_view_t *host,
                    ic_view_t *leaders);

/* True when the h leaders' allreduce of bytes is cheaper as ring
 * reduce-scatter + allgather than as MST reduce + MST bcast under net. */
bool ic_hosts_leaders_ring(int h, size_t bytes, const ic_model_t *net);

/* m with level's alpha and beta (0: across hosts, 1: inside a host) when
 * the model has them, else m itself. */
ic_model_t ic_hosts_level(const ic_model_t *m, int level);

ic_status_t ic_build_bcast_hosts(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_hosts(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_allreduce_hosts(ic_plan_t *pl, const ic_coll_args_t *a);

#endif
