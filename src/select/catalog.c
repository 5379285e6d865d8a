/*
 * catalog.c — looking up the catalog (catalog_table.c): finding, listing
 * and forcing entries, where an entry applies, and building a chosen
 * entry's plan.
 */
#include "select/catalog.h"

#include "base/status.h"
#include "algo/builders_alltoall.h"
#include "algo/validate.h"

#include <stdlib.h>
#include <string.h>

ic_model_t ic_model_default(void)
{
    ic_model_t m = {.alpha = 1e-6, .beta = 1e-10, .gamma = 5e-11, .delta = 5e-11,
                    .rndv_alpha = 1e-6};
    return m;
}



const ic_algo_t *ic_catalog_find(ic_coll_t coll, const char *name)
{
    size_t n;
    const ic_algo_t *catalog = ic_catalog(&n);
    for (size_t i = 0; i < n; i++)
        if (catalog[i].coll == coll && strcmp(catalog[i].name, name) == 0)
            return &catalog[i];
    return NULL;
}

/* True when phys is known and of a kind the entry's flags name. */
static bool phys_fits(unsigned flags, const ic_phys_t *phys)
{
    switch (phys && phys->node_of ? phys->kind : IC_PHYS_NONE) {
    case IC_PHYS_MESH:
        return flags & IC_ALGO_ON_MESH;
    case IC_PHYS_TORUS:
    case IC_PHYS_TORUS_UNI:
        return flags & IC_ALGO_ON_TORUS;
    case IC_PHYS_HYPERCUBE:
        return flags & IC_ALGO_ON_CUBE;
    default:
        return false;
    }
}

/* p = 4^j (j >= 1), and the communicator's mesh, when set, 2^j x 2^j. */
static bool square_fits(const ic_coll_args_t *a, int p)
{
    if (ic_quadrant_side_of(p) == 0)
        return false;
    return !(a->mesh && ic_mesh_size(a->mesh) == p) || ic_quadrant_side(a->mesh) > 0;
}

/* What a placement entry needs, for the refusal's message. */
static const char *phys_need(unsigned flags)
{
    if ((flags & IC_ALGO_PHYS) == IC_ALGO_ON_CUBE)
        return "the members' places on a hypercube (ic_comm_set_network)";
    if ((flags & IC_ALGO_PHYS) == (IC_ALGO_ON_MESH | IC_ALGO_ON_CUBE))
        return "the members' places on a mesh or hypercube (ic_comm_set_network)";
    if ((flags & IC_ALGO_PHYS) == (IC_ALGO_ON_TORUS | IC_ALGO_ON_MESH))
        return "the members' places on a torus or mesh (ic_comm_set_network)";
    return "the members' places on a mesh, torus or hypercube (ic_comm_set_network)";
}

bool ic_algo_applies(const ic_algo_t *al, const ic_coll_args_t *a, int p)
{
    if (al->coll != a->coll)
        return false;
    if ((al->flags & IC_ALGO_COMMUTATIVE) && a->op && !a->op->commutative)
        return false;
    if ((al->flags & IC_ALGO_POW2) && (p & (p - 1)) != 0)
        return false;
    if ((al->flags & IC_ALGO_SQUARE_MESH) && !square_fits(a, p))
        return false;
    if (a->reproducible && ic_coll_reduces(a->coll) && !(al->flags & IC_ALGO_CANONICAL))
        return false;
    if (a->counts_at_root && !(al->flags & IC_ALGO_OWN_COUNT))
        return false;
    if ((al->flags & IC_ALGO_WHOLE_MESH) && !ic_edn_fits(a->phys, p))
        return false;
    if (al->flags & IC_ALGO_PHYS)
        return phys_fits(al->flags, a->phys);
    return true;
}

ic_status_t ic_algorithms(ic_coll_t coll, char *buf, size_t len)
{
    if (!buf || len == 0)
        return ic_set_error(IC_ERR_ARG, "ic_algorithms: buf is NULL or len is 0");
    if ((unsigned)coll >= IC_COLL_COUNT)
        return ic_set_error(IC_ERR_ARG, "ic_algorithms: coll %d is not valid", (int)coll);
    size_t used = 0;
    buf[0] = '\0';
    size_t n;
    const ic_algo_t *catalog = ic_catalog(&n);
    for (size_t i = 0; i < n; i++) {
        if (catalog[i].coll != coll)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", catalog[i].name);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
    return IC_OK;
}

ic_status_t ic_catalog_force(const char *fn, const ic_coll_args_t *a, int p, const char *algo,
                             const ic_algo_t **out)
{
    *out = NULL;
    if (!algo || strcmp(algo, "auto") == 0)
        return IC_OK;
    const ic_algo_t *al = ic_catalog_find(a->coll, algo);
    if (!al) {
        char names[512];
        ic_algorithms(a->coll, names, sizeof names);
        return ic_set_error(IC_ERR_UNKNOWN_ALGO, "%s: unknown algorithm '%s' for %s (valid: %s)",
                            fn, algo, ic_coll_name(a->coll), names);
    }
    if (!ic_algo_applies(al, a, p))
        return ic_set_error(IC_ERR_NOT_APPLICABLE, "%s: algorithm '%s' needs %s", fn, algo,
                            (al->flags & IC_ALGO_POW2) && (p & (p - 1))
                                ? "a power-of-two number of ranks"
                            : (al->flags & IC_ALGO_SQUARE_MESH) && !square_fits(a, p)
                                ? "a 2^j x 2^j logical mesh (p = 4, 16, 64, ...; the "
                                  "communicator's mesh, when set, that square)"
                            : (al->flags & IC_ALGO_COMMUTATIVE) && a->op && !a->op->commutative
                                ? "a commutative operation"
                            : a->counts_at_root && !(al->flags & IC_ALGO_OWN_COUNT)
                                ? "every rank's counts (they are at the root only)"
                            : (al->flags & IC_ALGO_WHOLE_MESH) && !ic_edn_fits(a->phys, p) &&
                                      !(a->reproducible && ic_coll_reduces(a->coll) &&
                                        !(al->flags & IC_ALGO_CANONICAL))
                                ? "the members' places on a whole 2-D mesh, one per node, sides "
                                  "<= 256 (ic_comm_set_network)"
                            : (al->flags & IC_ALGO_PHYS) && !phys_fits(al->flags, a->phys) &&
                                      !(a->reproducible && ic_coll_reduces(a->coll) &&
                                        !(al->flags & IC_ALGO_CANONICAL))
                                ? phys_need(al->flags)
                                : "IC_REPRODUCIBLE off: it does not combine in the canonical "
                                  "rank order (docs/reproducibility.md)");
    *out = al;
    return IC_OK;
}

ic_status_t ic_plan_build_choice(const char *fn, const ic_coll_args_t *a, int rank, int size,
                                 const ic_choice_t *c, ic_plan_t *pl)
{
    ic_coll_args_t b = *a;
    if (c->mesh.d > 0)
        b.mesh = &c->mesh;
    ic_plan_init(pl, rank, size, a->coll);
    pl->algo = c->al->name;
    pl->dtype = a->dtype;
    /* Only reductions carry their operation into the plan. */
    bool reduces = a->coll == IC_COLL_REDUCE || a->coll == IC_COLL_ALLREDUCE ||
                   a->coll == IC_COLL_REDUCE_SCATTER_BLOCK || a->coll == IC_COLL_REDUCE_SCATTER ||
                   a->coll == IC_COLL_SCAN || a->coll == IC_COLL_EXSCAN;
    pl->op = reduces ? a->op : NULL;
    pl->exact_sides = reduces && a->reproducible;
    ic_status_t st = c->al->build(pl, &b);
    if (st == IC_ERR_ARG) { /* the builder said why (alltoallv's counts disagree) */
        ic_plan_release(pl);
        return st;
    }
    if (ic_plan_finish(pl) != IC_OK || st != IC_OK) {
        ic_plan_release(pl);
        return ic_set_error(IC_ERR_NO_MEM, "%s: out of memory while building the plan", fn);
    }
    return IC_OK;
}

ic_status_t ic_plan_build(const char *fn, const ic_coll_args_t *a, int rank, int size,
                          const char *algo, ic_plan_t *pl)
{
    ic_status_t st = ic_validate_args(fn, a, rank, size);
    if (st != IC_OK)
        return st;
    const ic_algo_t *forced;
    st = ic_catalog_force(fn, a, size, algo, &forced);
    if (st != IC_OK)
        return st;
    ic_choice_t c;
    ic_decide(a, size, forced, &a->model, &c, NULL, 0);
    return ic_plan_build_choice(fn, a, rank, size, &c, pl);
}
