/*
 * cost_uchain.c — costs of the U-mesh, U-torus and U-cube entries
 * (algo/coll_uchain.c): the MST blocks' costs on the members' chain with
 * the near-end split.  Their messages never share a link, so these are
 * also their times on the physical network (with no hop time).
 *
 *   bcast    ceil(log2 m) * (alpha + n*beta)
 *   reduce   the MST reduce recurrence on the chain tree (for m = 2^d:
 *            d * (alpha + n*(beta + gamma)))
 *   scatter, gather   the MST scatter/gather recurrences with the lengths in
 *            chain order (m = 2^d, equal blocks: d*alpha + (m-1)/m*N*beta)
 *   barrier  2 * ceil(log2 m) * alpha
 *   u_sag    the scatter recurrence, then the ring allgather started on each
 *            member when its piece has arrived
 */
#include "select/cost.h"

#include "algo/builders.h"

#include <stdlib.h>

static const ic_split_t near_split = {IC_SPLIT_NEAR, NULL, 0};

/* The chain (dual: the dual operations') of a's members for source root
 * (malloc'd, caller frees) and root's index in it; NULL on allocation
 * failure. */
static int *chain_of(const ic_coll_args_t *a, int p, ic_chain_kind_t kind, bool dual, int root,
                     int *at)
{
    int *chain = malloc(sizeof(int) * (size_t)p);
    unsigned long long *work = malloc(sizeof(*work) * (size_t)p);
    if (chain && work)
        *at = ic_phys_chain(a->phys, kind, dual, p, root, chain, work);
    else {
        free(chain);
        chain = NULL;
    }
    free(work);
    return chain;
}

static size_t esize(const ic_coll_args_t *a) { return ic_datatype_size(a->dtype); }

double ic_cost_bcast_uchain(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return ic_cost_mst_bcast(p, a->count * esize(a), m);
}

static double reduce_cost(const ic_coll_args_t *a, int p, const ic_model_t *m,
                          ic_chain_kind_t kind)
{
    int at = 0;
    int *chain = chain_of(a, p, kind, true, a->root, &at);
    if (!chain)
        return -1;
    free(chain);
    return ic_cost_mst_reduce_split(&near_split, p, at, a->count * esize(a), m);
}

double ic_cost_reduce_umesh(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return reduce_cost(a, p, m, IC_CHAIN_MESH);
}

double ic_cost_reduce_utorus(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return reduce_cost(a, p, m, IC_CHAIN_TORUS);
}

double ic_cost_reduce_ucube(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return reduce_cost(a, p, m, IC_CHAIN_CUBE);
}

/* Scatter (gather false) or gather on the chain, block lengths in chain
 * order. */
static double tree_blocks_cost(const ic_coll_args_t *a, int p, const ic_model_t *m,
                               ic_chain_kind_t kind, bool gather)
{
    int at = 0;
    int *chain = chain_of(a, p, kind, gather, a->root, &at);
    size_t *len = malloc(sizeof(size_t) * (size_t)p);
    double t = -1;
    if (chain && len) {
        for (int i = 0; i < p; i++)
            len[i] = (a->counts ? a->counts[chain[i]] : a->count) * esize(a);
        t = gather ? ic_cost_mst_gather(&near_split, p, at, len, NULL, NULL, m)
                   : ic_cost_mst_scatter(&near_split, p, at, len, m, NULL);
    }
    free(chain);
    free(len);
    return t;
}

double ic_cost_scatter_umesh(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return tree_blocks_cost(a, p, m, IC_CHAIN_MESH, false);
}

double ic_cost_scatter_utorus(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return tree_blocks_cost(a, p, m, IC_CHAIN_TORUS, false);
}

double ic_cost_scatter_ucube(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return tree_blocks_cost(a, p, m, IC_CHAIN_CUBE, false);
}

double ic_cost_gather_umesh(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return tree_blocks_cost(a, p, m, IC_CHAIN_MESH, true);
}

double ic_cost_gather_utorus(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return tree_blocks_cost(a, p, m, IC_CHAIN_TORUS, true);
}

double ic_cost_gather_ucube(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return tree_blocks_cost(a, p, m, IC_CHAIN_CUBE, true);
}

double ic_cost_barrier_tree(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    (void)a;
    return 2.0 * ic_ceil_log2(p) * m->alpha;
}

double ic_cost_bcast_u_sag(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    int at = 0;
    int *chain = chain_of(a, p, ic_uchain_kind(a), false, a->root, &at);
    size_t *len = malloc(sizeof(size_t) * (size_t)p * 2);
    double *ready = calloc((size_t)p, sizeof(double));
    double t = -1;
    if (chain && len && ready) {
        ic_partition_even(a->count, p, len + p, len);
        for (int i = 0; i < p; i++)
            len[i] *= esize(a);
        ic_cost_mst_scatter(&near_split, p, at, len, m, ready);
        t = ic_cost_ring_allgather(p, len, ready, m, NULL);
    }
    free(chain);
    free(len);
    free(ready);
    return t;
}
