/*
 * catalog.c — the table of algorithms and the cost function of each
 * composed entry (blocks' costs are in cost_tree.c and cost_ring.c).
 */
#include "select/catalog.h"

#include "base/status.h"
#include "algo/validate.h"
#include "algo/builders_alltoall.h"
#include "algo/builders_mesh.h"
#include "algo/builders_pipeline.h"
#include "select/cost.h"

#include <stdlib.h>
#include <string.h>

ic_model_t ic_model_default(void)
{
    ic_model_t m = {1e-6, 1e-10, 5e-11, 5e-11, 0};
    return m;
}

/* ---- helpers for the cost functions ---------------------------------- */

static size_t bytes_of(const ic_coll_args_t *a, size_t count)
{
    return count * ic_datatype_size(a->dtype);
}

/* Per-rank byte lengths (counts or count); caller frees. */
static size_t *block_lens(const ic_coll_args_t *a, int p)
{
    size_t *len = malloc(sizeof(size_t) * (size_t)p);
    for (int i = 0; len && i < p; i++)
        len[i] = bytes_of(a, a->counts ? a->counts[i] : a->count);
    return len;
}

/* The even partition of the vector, in bytes; caller frees. */
static size_t *piece_lens(const ic_coll_args_t *a, int p)
{
    size_t *len = malloc(sizeof(size_t) * (size_t)p * 2);
    if (!len)
        return NULL;
    ic_partition_even(a->count, p, len + p, len);
    for (int i = 0; i < p; i++)
        len[i] = bytes_of(a, len[i]);
    return len;
}

/* ---- cost functions --------------------------------------------------- */

static double c_bcast_mst(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return ic_cost_mst_bcast(p, bytes_of(a, a->count), m);
}

/* Scatter pieces, then a ring that starts on each member once its piece
 * arrived and its scatter sends left. */
static double c_bcast_sag(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = piece_lens(a, p);
    double *ready = calloc((size_t)p, sizeof(double));
    double t = -1;
    if (len && ready) {
        ic_cost_mst_scatter(NULL, p, a->root, len, m, ready);
        t = ic_cost_ring_allgather(p, len, ready, m, NULL);
    }
    free(len);
    free(ready);
    return t;
}

static double c_reduce_mst(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return ic_cost_mst_reduce(p, a->root, bytes_of(a, a->count), m);
}

static double c_reduce_rsg(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = piece_lens(a, p);
    double *done = malloc(sizeof(double) * (size_t)p * 2);
    double t = -1;
    if (len && done) {
        ic_cost_ring_reduce_scatter(p, len, m, done, done + p);
        t = ic_cost_mst_gather(NULL, p, a->root, len, done, done + p, m);
    }
    free(len);
    free(done);
    return t;
}

static double c_allreduce_rb(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t n = bytes_of(a, a->count);
    return ic_cost_mst_reduce(p, 0, n, m) + ic_cost_mst_bcast(p, n, m);
}

static double c_allreduce_rsag(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = piece_lens(a, p);
    double *done = malloc(sizeof(double) * (size_t)p);
    double t = -1;
    if (len && done) {
        ic_cost_ring_reduce_scatter(p, len, m, done, NULL);
        t = ic_cost_ring_allgather(p, len, done, m, NULL);
    }
    free(len);
    free(done);
    return t;
}

static double scatter_cost(const ic_coll_args_t *a, int p, const ic_model_t *m, bool data)
{
    size_t *len = block_lens(a, p);
    if (!len)
        return -1;
    ic_split_t sp = {IC_SPLIT_DATA, len, m->beta > 0 ? m->alpha / m->beta : 0};
    double t = ic_cost_mst_scatter(data ? &sp : NULL, p, a->root, len, m, NULL);
    free(len);
    return t;
}

static double gather_cost(const ic_coll_args_t *a, int p, const ic_model_t *m, bool data)
{
    size_t *len = block_lens(a, p);
    if (!len)
        return -1;
    ic_split_t sp = {IC_SPLIT_DATA, len, m->beta > 0 ? m->alpha / m->beta : 0};
    double t = ic_cost_mst_gather(data ? &sp : NULL, p, a->root, len, NULL, NULL, m);
    free(len);
    return t;
}

static double c_scatter_mst(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return scatter_cost(a, p, m, false);
}
static double c_scatter_dist(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return scatter_cost(a, p, m, true);
}
static double c_gather_mst(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return gather_cost(a, p, m, false);
}
static double c_gather_dist(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return gather_cost(a, p, m, true);
}

static double c_allgather_ring(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = block_lens(a, p);
    double t = len ? ic_cost_ring_allgather(p, len, NULL, m, NULL) : -1;
    free(len);
    return t;
}

static double c_allgather_gb(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = block_lens(a, p);
    if (!len)
        return -1;
    size_t total = 0;
    for (int i = 0; i < p; i++)
        total += len[i];
    double t = ic_cost_mst_gather(NULL, p, 0, len, NULL, NULL, m) + ic_cost_mst_bcast(p, total, m);
    free(len);
    return t;
}

static double c_rs_ring(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = block_lens(a, p);
    double t = len ? ic_cost_ring_reduce_scatter(p, len, m, NULL, NULL) : -1;
    free(len);
    return t;
}

static double c_rs_mst(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = block_lens(a, p);
    if (!len)
        return -1;
    size_t total = 0;
    for (int i = 0; i < p; i++)
        total += len[i];
    double t = ic_cost_mst_reduce(p, 0, total, m) +
               ic_cost_mst_scatter(NULL, p, 0, len, m, NULL);
    free(len);
    return t;
}

/* Direct exchange; for alltoallv this rank's average block stands for
 * every step (an estimate: the plan has only one candidate anyway). */
static double c_alltoall(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = malloc(sizeof(size_t) * (size_t)p);
    if (!len)
        return -1;
    size_t b = a->count;
    if (a->coll == IC_COLL_ALLTOALLV) {
        size_t s = 0;
        for (int i = 0; i < p; i++)
            s += a->scounts[i];
        b = s / (size_t)p;
    }
    for (int k = 0; k < p; k++)
        len[k] = bytes_of(a, b);
    double t = ic_cost_pairwise(p, len, m);
    free(len);
    return t;
}

static double c_barrier(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    (void)a;
    return ic_cost_barrier(p, m);
}

static double c_scan(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return ic_cost_scan(p, bytes_of(a, a->count), a->coll == IC_COLL_EXSCAN, m);
}

/* ---- the table -------------------------------------------------------- */

#define C IC_ALGO_COMMUTATIVE
static const ic_algo_t catalog[] = {
    {IC_COLL_BCAST, "mst", "minimum spanning tree (short vectors)", 0, ic_build_bcast_mst,
     c_bcast_mst, NULL},
    {IC_COLL_BCAST, "scatter_allgather", "MST scatter + ring allgather (long vectors)", 0,
     ic_build_bcast_scatter_allgather, c_bcast_sag, NULL},
    {IC_COLL_REDUCE, "mst", "minimum spanning tree, rank order (short vectors)", 0,
     ic_build_reduce_mst, c_reduce_mst, NULL},
    {IC_COLL_REDUCE, "rs_gather", "ring reduce-scatter + MST gather (long vectors)", C,
     ic_build_reduce_rs_gather, c_reduce_rsg, NULL},
    {IC_COLL_ALLREDUCE, "reduce_bcast", "MST reduce + MST broadcast (short vectors)", 0,
     ic_build_allreduce_reduce_bcast, c_allreduce_rb, NULL},
    {IC_COLL_ALLREDUCE, "rs_ag", "ring reduce-scatter + ring allgather (long vectors)", C,
     ic_build_allreduce_rs_ag, c_allreduce_rsag, NULL},
    {IC_COLL_SCATTER, "mst", "minimum spanning tree", 0, ic_build_scatter_mst, c_scatter_mst, NULL},
    {IC_COLL_SCATTERV, "mst", "minimum spanning tree, geometric split", 0,
     ic_build_scatterv_mst, c_scatter_mst, NULL},
    {IC_COLL_SCATTERV, "mst_dist", "minimum spanning tree, data-distribution-aware split", 0,
     ic_build_scatterv_mst_dist, c_scatter_dist, NULL},
    {IC_COLL_GATHER, "mst", "minimum spanning tree", 0, ic_build_gather_mst, c_gather_mst, NULL},
    {IC_COLL_GATHERV, "mst", "minimum spanning tree, geometric split", 0,
     ic_build_gatherv_mst, c_gather_mst, NULL},
    {IC_COLL_GATHERV, "mst_dist", "minimum spanning tree, data-distribution-aware split", 0,
     ic_build_gatherv_mst_dist, c_gather_dist, NULL},
    {IC_COLL_ALLGATHER, "ring", "bucket ring (long vectors)", 0, ic_build_allgather_ring,
     c_allgather_ring, NULL},
    {IC_COLL_ALLGATHER, "gather_bcast", "MST gather + MST broadcast (short vectors)", 0,
     ic_build_allgather_gather_bcast, c_allgather_gb, NULL},
    {IC_COLL_ALLGATHERV, "ring", "bucket ring (long vectors)", 0, ic_build_allgather_ring,
     c_allgather_ring, NULL},
    {IC_COLL_ALLGATHERV, "gatherv_bcast", "MST gatherv + MST broadcast (short vectors)", 0,
     ic_build_allgather_gather_bcast, c_allgather_gb, NULL},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "ring", "bucket ring distributed combine (long vectors)", C,
     ic_build_reduce_scatter_ring, c_rs_ring, NULL},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "reduce_scatter", "MST reduce + MST scatter (short vectors)",
     0, ic_build_reduce_scatter_reduce_scatter, c_rs_mst, NULL},
    {IC_COLL_REDUCE_SCATTER, "ring", "bucket ring distributed combine (long vectors)", C,
     ic_build_reduce_scatter_ring, c_rs_ring, NULL},
    {IC_COLL_REDUCE_SCATTER, "reduce_scatterv", "MST reduce + MST scatterv (short vectors)", 0,
     ic_build_reduce_scatter_reduce_scatter, c_rs_mst, NULL},
    {IC_COLL_ALLTOALL, "pairwise", "direct pairwise exchange, p-1 steps", 0,
     ic_build_alltoall_pairwise, c_alltoall, NULL},
    {IC_COLL_ALLTOALLV, "pairwise", "direct pairwise exchange, p-1 steps", 0,
     ic_build_alltoall_pairwise, c_alltoall, NULL},
    {IC_COLL_BARRIER, "dissemination", "dissemination, ceil(log2 p) rounds", 0,
     ic_build_barrier_dissemination, c_barrier, NULL},
    {IC_COLL_SCAN, "dissemination", "dissemination prefix, ceil(log2 p) rounds, rank order", 0,
     ic_build_scan_dissemination, c_scan, NULL},
    {IC_COLL_EXSCAN, "dissemination", "dissemination prefix, ceil(log2 p) rounds, rank order",
     0, ic_build_scan_dissemination, c_scan, NULL},
#include "select/catalog_mesh.inc"
#include "select/catalog_alltoall.inc"
#include "select/catalog_pipeline.inc"
};
#undef C

const ic_algo_t *ic_catalog(size_t *n)
{
    *n = sizeof catalog / sizeof catalog[0];
    return catalog;
}

const ic_algo_t *ic_catalog_find(ic_coll_t coll, const char *name)
{
    for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; i++)
        if (catalog[i].coll == coll && strcmp(catalog[i].name, name) == 0)
            return &catalog[i];
    return NULL;
}

bool ic_algo_applies(const ic_algo_t *al, const ic_coll_args_t *a, int p)
{
    if (al->coll != a->coll)
        return false;
    if ((al->flags & IC_ALGO_COMMUTATIVE) && a->op && !a->op->commutative)
        return false;
    if ((al->flags & IC_ALGO_POW2) && (p & (p - 1)) != 0)
        return false;
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
    for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; i++) {
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
                                : "a commutative operation");
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
    ic_status_t st = c->al->build(pl, &b);
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
