/*
 * size_exchange.c — the size exchange of the all-to-allv entries that
 * forward blocks (IC_ALGO_SIZES: bruck, dr; catalog.h).  Both engines run
 * it before they build such a data plan: the real one in
 * core/coll_run.c, the in-process one in sim/engine_build.c.
 */
#include "select/catalog.h"

#include "algo/builders_alltoall.h"
#include "base/status.h"

const size_t *ic_sizes_send_counts(const ic_coll_args_t *a)
{
    return a->in_place || !a->scounts ? a->rcounts : a->scounts;
}

ic_status_t ic_plan_build_sizes(const char *fn, const ic_coll_args_t *a, int rank, int size,
                                const ic_choice_t *c, ic_plan_t *pl)
{
    ic_build_fn build = c->al->build == ic_build_alltoallv_bruck ? ic_build_alltoallv_bruck_sizes
                        : c->al->build == ic_build_alltoallv_dr  ? ic_build_alltoallv_dr_sizes
                                                                 : NULL;
    if (!build)
        return ic_set_error(IC_ERR_INTERNAL, "%s: %s has no size exchange", fn, c->al->name);
    ic_coll_args_t b = *a;
    if (c->mesh.d > 0)
        b.mesh = &c->mesh;
    ic_plan_init(pl, rank, size, a->coll);
    pl->algo = c->al->name;
    pl->dtype = IC_BYTE;
    pl->phase = IC_SIZES_PHASE - 1; /* the block's next phase is IC_SIZES_PHASE */
    ic_status_t st = build(pl, &b);
    if (ic_plan_finish(pl) != IC_OK || st != IC_OK) {
        ic_plan_release(pl);
        return ic_set_error(IC_ERR_NO_MEM, "%s: out of memory while building the size exchange",
                            fn);
    }
    return IC_OK;
}
