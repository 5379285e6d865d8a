/*
 * catalog_table.c — the catalog: every algorithm of every collective as one
 * row (name, one-line description, flags, plan builder, cost function,
 * optional describe), in one section per collective, and the cost functions
 * of the entries composed here from blocks (the blocks' own costs are in
 * cost_tree.c, cost_ring.c, cost_mesh.c, cost_alltoall.c, cost_pipeline.c).
 *
 * Adding an algorithm: its block or composition goes in one file of
 * src/algo/ (with its builder in algo/builders*.h), and one row in its
 * collective's section below.  Within a section the order matters: the
 * selector breaks ties by taking the first entry, and all-to-allv takes
 * the first applicable one.  The sections are kept together (tested by
 * test_select), so ic_catalog() lists each collective's entries in one run.
 */
#include "select/catalog.h"

#include "algo/builders_alltoall.h"
#include "algo/builders_mesh.h"
#include "algo/builders_pipeline.h"
#include "algo/hosts.h"
#include "select/cost.h"

#include <stdlib.h>

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
        ic_model_t ring = ic_model_crowd(m, p); /* every member copies at once */
        ic_cost_mst_scatter(NULL, p, a->root, len, m, ready);
        t = ic_cost_ring_allgather(p, len, ready, &ring, NULL);
    }
    free(len);
    free(ready);
    return t;
}

/* direct_bcast.c: p - 1 messages of n bytes one after another at the
 * root (one-port), one-way, sharing one start-up when the ranks are
 * crowded (ic_model_alpha_next). */
static double direct_root_round(int p, size_t n, const ic_model_t *m)
{
    double t = 0;
    for (int k = 1; k < p && n > 0; k++)
        t += (k == 1 ? m->alpha : ic_model_alpha_next(m, p)) + (double)n * m->beta +
             ic_msg_extra_oneway(m, (double)n);
    return t;
}

static double c_bcast_direct(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return direct_root_round(p, bytes_of(a, a->count), m);
}

/* The root combines the vectors in the rank tree as they arrive. */
static double c_reduce_direct(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return ic_cost_direct_reduce(p, a->root, bytes_of(a, a->count), m);
}

/* Every member sends its vector to every other and combines the p of them
 * in the rank tree as they arrive, all at once (ic_model_crowd). */
static double c_allreduce_direct(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    ic_model_t all = ic_model_crowd(m, p);
    return ic_cost_direct_allreduce(p, bytes_of(a, a->count), &all);
}

static double c_reduce_mst(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return ic_cost_mst_reduce(p, a->root, bytes_of(a, a->count), m);
}

/* A reduce-scatter block's cost (ring or direct), as composed below. */
typedef double (*rs_cost_fn)(int n, const size_t *len, const ic_model_t *m, double *done,
                             double *rfree);

static double reduce_rs_gather(const ic_coll_args_t *a, int p, const ic_model_t *m,
                               rs_cost_fn rs)
{
    size_t *len = piece_lens(a, p);
    double *done = malloc(sizeof(double) * (size_t)p * 2);
    double t = -1;
    if (len && done) {
        ic_model_t ring = ic_model_crowd(m, p); /* every member copies at once */
        rs(p, len, &ring, done, done + p);
        t = ic_cost_mst_gather(NULL, p, a->root, len, done, done + p, m);
    }
    free(len);
    free(done);
    return t;
}

static double c_reduce_rsg(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return reduce_rs_gather(a, p, m, ic_cost_ring_reduce_scatter);
}

static double c_reduce_dg(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return reduce_rs_gather(a, p, m, ic_cost_direct_reduce_scatter);
}

static double c_allreduce_rb(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t n = bytes_of(a, a->count);
    return ic_cost_mst_reduce(p, 0, n, m) + ic_cost_mst_bcast(p, n, m);
}

static double allreduce_rs_ag(const ic_coll_args_t *a, int p, const ic_model_t *m, rs_cost_fn rs)
{
    size_t *len = piece_lens(a, p);
    double *done = malloc(sizeof(double) * (size_t)p);
    double t = -1;
    if (len && done) {
        ic_model_t ring = ic_model_crowd(m, p); /* every member copies at once */
        rs(p, len, &ring, done, NULL);
        t = ic_cost_ring_allgather(p, len, done, &ring, NULL);
    }
    free(len);
    free(done);
    return t;
}

static double c_allreduce_rsag(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return allreduce_rs_ag(a, p, m, ic_cost_ring_reduce_scatter);
}

static double c_allreduce_dag(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return allreduce_rs_ag(a, p, m, ic_cost_direct_reduce_scatter);
}

/* The MST scatter or gather, geometric or data-aware split; with the
 * ranks crowded on fewer cores, its messages one after another
 * (ic_cost_mst_serial). */
static double mst_root_cost(const ic_coll_args_t *a, int p, const ic_model_t *m, bool data,
                            bool gather)
{
    size_t *len = block_lens(a, p);
    if (!len)
        return -1;
    ic_split_t sp = {IC_SPLIT_DATA, len, m->beta > 0 ? m->alpha / m->beta : 0};
    const ic_split_t *split = data ? &sp : NULL;
    double t = ic_model_crowded(m, p) ? ic_cost_mst_serial(split, p, a->root, len, m)
               : gather               ? ic_cost_mst_gather(split, p, a->root, len, NULL, NULL, m)
                                      : ic_cost_mst_scatter(split, p, a->root, len, m, NULL);
    free(len);
    return t;
}

/* direct_scatter.c, direct_gather.c: the root's port sends (takes) the
 * other members' blocks one after the other. */
static double c_direct_root(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = block_lens(a, p);
    if (!len)
        return -1;
    double t = 0;
    for (int i = 0; i < p; i++)
        if (i != a->root && len[i] > 0)
            t += m->alpha + (double)len[i] * m->beta + ic_msg_extra_oneway(m, (double)len[i]);
    free(len);
    return t;
}

static double c_scatter_mst(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return mst_root_cost(a, p, m, false, false);
}
static double c_scatter_dist(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return mst_root_cost(a, p, m, true, false);
}
static double c_gather_mst(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return mst_root_cost(a, p, m, false, true);
}
static double c_gather_dist(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return mst_root_cost(a, p, m, true, true);
}

static double c_allgather_ring(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = block_lens(a, p);
    ic_model_t ring = ic_model_crowd(m, p);
    double t = len ? ic_cost_ring_allgather(p, len, NULL, &ring, NULL) : -1;
    free(len);
    return t;
}

/* Direct exchange in pairwise order: every step as long as the largest
 * block (as the ring); crowded, its messages share one start-up
 * (ic_cost_pairwise). */
static double c_allgather_direct(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = block_lens(a, p);
    if (!len)
        return -1;
    size_t most = 0;
    for (int i = 0; i < p; i++)
        most = len[i] > most ? len[i] : most;
    for (int i = 0; i < p; i++)
        len[i] = most;
    ic_model_t all = ic_model_crowd(m, p);
    double t = ic_cost_pairwise(p, len, &all);
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
    ic_model_t ring = ic_model_crowd(m, p);
    double t = len ? ic_cost_ring_reduce_scatter(p, len, &ring, NULL, NULL) : -1;
    free(len);
    return t;
}

static double c_rs_direct(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t *len = block_lens(a, p);
    ic_model_t ring = ic_model_crowd(m, p);
    double t = len ? ic_cost_direct_reduce_scatter(p, len, &ring, NULL, NULL) : -1;
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
    double t = ic_cost_mst_reduce(p, 0, total, m) + ic_cost_mst_scatter(NULL, p, 0, len, m, NULL);
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
    ic_model_t all = ic_model_crowd(m, p);
    double t = ic_cost_pairwise(p, len, &all);
    free(len);
    return t;
}

static double c_barrier(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    (void)a;
    return ic_cost_barrier(p, m);
}

/* p - 1 empty messages posted at once: one after another with a core per
 * rank, one start-up when crowded (ic_model_alpha_next). */
static double c_barrier_direct(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    (void)a;
    return p > 1 ? m->alpha + (p - 2) * ic_model_alpha_next(m, p) : 0;
}

static double c_scan(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return ic_cost_scan(p, bytes_of(a, a->count), a->coll == IC_COLL_EXSCAN, a->in_place, m);
}

/* ---- the table ------------------------------------------------------------ */

#define C IC_ALGO_COMMUTATIVE
#define M IC_ALGO_MESH
#define MC (IC_ALGO_MESH | IC_ALGO_COMMUTATIVE)
#define POW2 IC_ALGO_POW2
#define OWN IC_ALGO_OWN_TESTS
#define HC (IC_ALGO_HOSTS | IC_ALGO_COMMUTATIVE)
#define CANON IC_ALGO_CANONICAL
#define OWNC IC_ALGO_OWN_COUNT
/* The U entries have their own tests (test_uchain): they need a placement. */
#define UCUBE (IC_ALGO_ON_CUBE | OWN)
#define UMESH (IC_ALGO_ON_MESH | IC_ALGO_ON_CUBE | OWN)
#define UTORUS (IC_ALGO_ON_TORUS | IC_ALGO_ON_MESH | OWN)
#define UANY (IC_ALGO_PHYS | OWN)
/* The EDN entries (test_edn): the whole 2-D mesh, one member per node. */
#define EDN (IC_ALGO_ON_MESH | IC_ALGO_WHOLE_MESH | OWN)
static const ic_algo_t catalog[] = {
    /* ---- bcast: MST, scatter + collect; mesh: SC and MST-SC; pipelines ---------------------- */
    {IC_COLL_BCAST, "ucube",
     "U-cube: contention-free tree on the source-relative chain (hypercube)",
     UCUBE, ic_build_bcast_ucube, ic_cost_bcast_uchain, NULL},
    {IC_COLL_BCAST, "umesh", "U-mesh: contention-free tree on the dimension-ordered chain (mesh)",
     UMESH, ic_build_bcast_umesh, ic_cost_bcast_uchain, NULL},
    {IC_COLL_BCAST, "utorus",
     "U-torus: contention-free tree on the chain rotated to the source (torus)",
     UTORUS, ic_build_bcast_utorus, ic_cost_bcast_uchain, NULL},
    {IC_COLL_BCAST, "u_sag", "scatter down the U tree + ring along the chain (long vectors)",
     UANY, ic_build_bcast_u_sag, ic_cost_bcast_u_sag, NULL},
    {IC_COLL_BCAST, "edn",
     "EDN: extended dominating nodes, 4 contention-free sends a step (all-port whole 2-D mesh)",
     EDN, ic_build_bcast_edn, ic_cost_bcast_edn, NULL},
    {IC_COLL_BCAST, "mst", "minimum spanning tree (short vectors)", 0, ic_build_bcast_mst,
     c_bcast_mst, NULL},
    {IC_COLL_BCAST, "direct", "the root sends to every member itself, one round",
     IC_ALGO_ROOT_SENDS, ic_build_bcast_direct, c_bcast_direct, NULL},
    {IC_COLL_BCAST, "double_tree",
     "Double Tree: complement + two partial binomial trees (all-port hypercubes, p = 2^d)",
     POW2 | IC_ALGO_CUBE_LINKS,
     ic_build_bcast_double_tree, ic_cost_bcast_double_tree, NULL},
    {IC_COLL_BCAST, "edst",
     "d edge-disjoint spanning trees, one segment each (multi-port hypercubes, p = 2^d)",
     POW2 | IC_ALGO_CUBE_LINKS,
     ic_build_bcast_edst, ic_cost_bcast_edst, NULL},
    {IC_COLL_BCAST, "scatter_allgather", "MST scatter + ring allgather (long vectors)", 0,
     ic_build_bcast_scatter_allgather, c_bcast_sag, NULL},
    {IC_COLL_BCAST, "sc", "scatter + collect along the mesh's dimensional rings (long vectors)", M,
     ic_build_mesh_dr, ic_cost_mesh_dr, ic_describe_mesh_dr},
    {IC_COLL_BCAST, "mst_sc", "hybrid: scatter over some rings, MST over the rest, collect back", M,
     ic_build_mesh_hybrid, ic_cost_mesh_hybrid, ic_describe_mesh_hybrid},
    {IC_COLL_BCAST, "chain", "segmented pipeline along a chain (very long vectors)", OWN,
     ic_build_bcast_chain, ic_cost_bcast_chain, NULL},
    {IC_COLL_BCAST, "dopl",
     "dimension-ordered pipeline along the mesh's chains (very long vectors)", OWN | M,
     ic_build_bcast_dopl, ic_cost_bcast_dopl, NULL},
    {IC_COLL_BCAST, "dopl_alt",
     "DOPL with k_alt pieces in rotated dimension orders (very long vectors)", OWN | M,
     ic_build_bcast_dopl_alt, ic_cost_bcast_dopl_alt, NULL},
    {IC_COLL_BCAST, "hosts", "MST over the hosts' leaders, then MST inside each host",
     IC_ALGO_HOSTS, ic_build_bcast_hosts, ic_cost_bcast_hosts, ic_describe_hosts},
    /* ---- reduce: MST, reduce-scatter + gather; mesh: DG and MST-DG; pipelines --------------- */
    {IC_COLL_REDUCE, "ucube",
     "U-cube: contention-free tree on the source-relative chain (hypercube)",
     UCUBE | C, ic_build_reduce_ucube, ic_cost_reduce_ucube, NULL},
    {IC_COLL_REDUCE, "umesh", "U-mesh: contention-free tree on the dimension-ordered chain (mesh)",
     UMESH | C, ic_build_reduce_umesh, ic_cost_reduce_umesh, NULL},
    {IC_COLL_REDUCE, "utorus",
     "U-torus: contention-free tree on the chain rotated to the source (torus)",
     UTORUS | C, ic_build_reduce_utorus, ic_cost_reduce_utorus, NULL},
    {IC_COLL_REDUCE, "edn",
     "EDN tree of the transposed mesh, bottom-up (all-port whole 2-D mesh, commutative)",
     EDN | C, ic_build_reduce_edn, ic_cost_reduce_edn, NULL},
    {IC_COLL_REDUCE, "mst", "minimum spanning tree, rank order (short vectors)", CANON,
     ic_build_reduce_mst, c_reduce_mst, NULL},
    {IC_COLL_REDUCE, "direct", "every member sends to the root, combined there in the rank tree",
     CANON, ic_build_reduce_direct, c_reduce_direct, NULL},
    {IC_COLL_REDUCE, "rs_gather", "ring reduce-scatter + MST gather (long vectors)", C,
     ic_build_reduce_rs_gather, c_reduce_rsg, NULL},
    {IC_COLL_REDUCE, "direct_gather",
     "direct reduce-scatter, blocks combined in the rank tree, + MST gather (long vectors)",
     CANON, ic_build_reduce_direct_gather, c_reduce_dg, NULL},
    {IC_COLL_REDUCE, "dg", "distributed reduction + gather along dimensional rings", MC,
     ic_build_mesh_dr, ic_cost_mesh_dr, ic_describe_mesh_dr},
    {IC_COLL_REDUCE, "mst_dg", "hybrid: reduce-scatter over some rings, MST over the rest, gather",
     MC, ic_build_mesh_hybrid, ic_cost_mesh_hybrid, ic_describe_mesh_hybrid},
    {IC_COLL_REDUCE, "chain", "segmented pipeline along a rank-ordered chain (very long vectors)",
     OWN, ic_build_reduce_chain, ic_cost_reduce_chain, NULL},
    {IC_COLL_REDUCE, "dopl", "dimension-ordered pipeline, reversed, rank order (very long vectors)",
     OWN | M, ic_build_reduce_dopl, ic_cost_reduce_dopl, NULL},
    {IC_COLL_REDUCE, "hosts", "MST inside each host to its leader, then MST over the leaders", HC,
     ic_build_reduce_hosts, ic_cost_reduce_hosts, ic_describe_hosts},
    /* ---- allreduce: reduce + bcast, RS + allgather; mesh: DR, PFR, PFR-DC, hybrid ----------- */
    {IC_COLL_ALLREDUCE, "reduce_bcast", "MST reduce + MST broadcast (short vectors)", CANON,
     ic_build_allreduce_reduce_bcast, c_allreduce_rb, NULL},
    {IC_COLL_ALLREDUCE, "rs_ag", "ring reduce-scatter + ring allgather (long vectors)", C,
     ic_build_allreduce_rs_ag, c_allreduce_rsag, NULL},
    {IC_COLL_ALLREDUCE, "direct_ag",
     "direct reduce-scatter, blocks combined in the rank tree, + ring allgather (long vectors)",
     CANON, ic_build_allreduce_direct_ag, c_allreduce_dag, NULL},
    /* Before the mesh entries: at p = 2 it ties with pfr and hybrid (the
     * same exchange), and its plan makes one copy fewer (pfr's rank 1
     * combines into scratch and copies back to keep the operands' sides):
     * 0.84-0.94 of pfr's time at 32-256 KiB, docs/perf/allreduce-p2.md. */
    {IC_COLL_ALLREDUCE, "direct",
     "every member sends to every other, each combines in the rank tree (short vectors)", CANON,
     ic_build_allreduce_direct, c_allreduce_direct, NULL},
    {IC_COLL_ALLREDUCE, "dr", "reduce-scatter + collect along dimensional rings (long vectors)", MC,
     ic_build_mesh_dr, ic_cost_mesh_dr, ic_describe_mesh_dr},
    {IC_COLL_ALLREDUCE, "pfr", "whole vectors circulate in prime factors rings (short vectors)", MC,
     ic_build_mesh_pfr_all, ic_cost_mesh_pfr_all, ic_describe_mesh_pfr_all},
    {IC_COLL_ALLREDUCE, "pfr_dc", "reduce-scatter + collect in prime factors rings (alternating)",
     MC, ic_build_mesh_pfr_alt, ic_cost_mesh_pfr_alt, ic_describe_mesh_pfr_alt},
    {IC_COLL_ALLREDUCE, "hybrid",
     "hybrid global combine: halve over some rings, circulate the rest", MC, ic_build_mesh_hybrid,
     ic_cost_mesh_hybrid, ic_describe_mesh_hybrid},
    {IC_COLL_ALLREDUCE, "hosts",
     "reduce inside each host, allreduce over the hosts' leaders, bcast inside", HC,
     ic_build_allreduce_hosts, ic_cost_allreduce_hosts, ic_describe_hosts},
    /* ---- scatter ---------------------------------------------------------------------------- */
    {IC_COLL_SCATTER, "ucube",
     "U-cube: contention-free tree on the source-relative chain (hypercube)",
     UCUBE, ic_build_scatter_ucube, ic_cost_scatter_ucube, NULL},
    {IC_COLL_SCATTER, "umesh", "U-mesh: contention-free tree on the dimension-ordered chain (mesh)",
     UMESH, ic_build_scatter_umesh, ic_cost_scatter_umesh, NULL},
    {IC_COLL_SCATTER, "utorus",
     "U-torus: contention-free tree on the chain rotated to the source (torus)",
     UTORUS, ic_build_scatter_utorus, ic_cost_scatter_utorus, NULL},
    {IC_COLL_SCATTER, "mst", "minimum spanning tree", 0, ic_build_scatter_mst, c_scatter_mst, NULL},
    {IC_COLL_SCATTER, "direct", "the root sends each member its block", OWNC,
     ic_build_scatter_direct, c_direct_root, NULL},
    /* ---- scatterv --------------------------------------------------------------------------- */
    {IC_COLL_SCATTERV, "ucube",
     "U-cube: contention-free tree on the source-relative chain (hypercube)",
     UCUBE, ic_build_scatter_ucube, ic_cost_scatter_ucube, NULL},
    {IC_COLL_SCATTERV, "umesh",
     "U-mesh: contention-free tree on the dimension-ordered chain (mesh)",
     UMESH, ic_build_scatter_umesh, ic_cost_scatter_umesh, NULL},
    {IC_COLL_SCATTERV, "utorus",
     "U-torus: contention-free tree on the chain rotated to the source (torus)",
     UTORUS, ic_build_scatter_utorus, ic_cost_scatter_utorus, NULL},
    {IC_COLL_SCATTERV, "mst", "minimum spanning tree, geometric split", 0, ic_build_scatterv_mst,
     c_scatter_mst, NULL},
    {IC_COLL_SCATTERV, "mst_dist", "minimum spanning tree, data-distribution-aware split", 0,
     ic_build_scatterv_mst_dist, c_scatter_dist, NULL},
    {IC_COLL_SCATTERV, "direct", "the root sends each member its block", OWNC,
     ic_build_scatter_direct, c_direct_root, NULL},
    /* ---- gather ----------------------------------------------------------------------------- */
    {IC_COLL_GATHER, "ucube",
     "U-cube: contention-free tree on the source-relative chain (hypercube)",
     UCUBE, ic_build_gather_ucube, ic_cost_gather_ucube, NULL},
    {IC_COLL_GATHER, "umesh", "U-mesh: contention-free tree on the dimension-ordered chain (mesh)",
     UMESH, ic_build_gather_umesh, ic_cost_gather_umesh, NULL},
    {IC_COLL_GATHER, "utorus",
     "U-torus: contention-free tree on the chain rotated to the source (torus)",
     UTORUS, ic_build_gather_utorus, ic_cost_gather_utorus, NULL},
    {IC_COLL_GATHER, "edn",
     "EDN tree of the transposed mesh, bundles bottom-up (all-port whole 2-D mesh)", EDN,
     ic_build_gather_edn, ic_cost_gather_edn, NULL},
    {IC_COLL_GATHER, "mst", "minimum spanning tree", 0, ic_build_gather_mst, c_gather_mst, NULL},
    {IC_COLL_GATHER, "direct", "each member sends its block to the root", OWNC,
     ic_build_gather_direct, c_direct_root, NULL},
    /* ---- gatherv ---------------------------------------------------------------------------- */
    {IC_COLL_GATHERV, "ucube",
     "U-cube: contention-free tree on the source-relative chain (hypercube)",
     UCUBE, ic_build_gather_ucube, ic_cost_gather_ucube, NULL},
    {IC_COLL_GATHERV, "umesh", "U-mesh: contention-free tree on the dimension-ordered chain (mesh)",
     UMESH, ic_build_gather_umesh, ic_cost_gather_umesh, NULL},
    {IC_COLL_GATHERV, "utorus",
     "U-torus: contention-free tree on the chain rotated to the source (torus)",
     UTORUS, ic_build_gather_utorus, ic_cost_gather_utorus, NULL},
    {IC_COLL_GATHERV, "edn",
     "EDN tree of the transposed mesh, bundles bottom-up (all-port whole 2-D mesh)", EDN,
     ic_build_gather_edn, ic_cost_gather_edn, NULL},
    {IC_COLL_GATHERV, "mst", "minimum spanning tree, geometric split", 0, ic_build_gatherv_mst,
     c_gather_mst, NULL},
    {IC_COLL_GATHERV, "mst_dist", "minimum spanning tree, data-distribution-aware split", 0,
     ic_build_gatherv_mst_dist, c_gather_dist, NULL},
    {IC_COLL_GATHERV, "direct", "each member sends its block to the root", OWNC,
     ic_build_gather_direct, c_direct_root, NULL},
    /* ---- allgather: ring, gather + bcast, direct; mesh: DR, PFR, PFR-DR, alternating PFR ---- */
    {IC_COLL_ALLGATHER, "ring", "bucket ring (long vectors)", 0, ic_build_allgather_ring,
     c_allgather_ring, NULL},
    {IC_COLL_ALLGATHER, "gather_bcast", "MST gather + MST broadcast (short vectors)", 0,
     ic_build_allgather_gather_bcast, c_allgather_gb, NULL},
    {IC_COLL_ALLGATHER, "direct", "every member sends its block to every other at once", 0,
     ic_build_allgather_direct, c_allgather_direct, NULL},
    {IC_COLL_ALLGATHER, "dr", "collect along the mesh's dimensional rings", M, ic_build_mesh_dr,
     ic_cost_mesh_dr, ic_describe_mesh_dr},
    {IC_COLL_ALLGATHER, "pfr", "collect in prime factors rings (short vectors, any p)", M,
     ic_build_mesh_pfr, ic_cost_mesh_pfr, ic_describe_mesh_pfr},
    {IC_COLL_ALLGATHER, "pfr_dr", "hybrid: prime factors rings in some dimensions, DR in the rest",
     M, ic_build_mesh_pfr_dr, ic_cost_mesh_pfr_dr, ic_describe_mesh_pfr_dr},
    {IC_COLL_ALLGATHER, "pfr_alt", "prime factors rings, widest first, alternating dimensions", M,
     ic_build_mesh_pfr_alt, ic_cost_mesh_pfr_alt, ic_describe_mesh_pfr_alt},
    /* ---- allgatherv: as allgather, per-rank counts ------------------------------------------ */
    {IC_COLL_ALLGATHERV, "ring", "bucket ring (long vectors)", 0, ic_build_allgather_ring,
     c_allgather_ring, NULL},
    {IC_COLL_ALLGATHERV, "gatherv_bcast", "MST gatherv + MST broadcast (short vectors)", 0,
     ic_build_allgather_gather_bcast, c_allgather_gb, NULL},
    {IC_COLL_ALLGATHERV, "direct", "every member sends its block to every other at once", 0,
     ic_build_allgather_direct, c_allgather_direct, NULL},
    {IC_COLL_ALLGATHERV, "dr", "collect along the mesh's dimensional rings", M, ic_build_mesh_dr,
     ic_cost_mesh_dr, ic_describe_mesh_dr},
    {IC_COLL_ALLGATHERV, "pfr", "collect in prime factors rings (short vectors, any p)", M,
     ic_build_mesh_pfr, ic_cost_mesh_pfr, ic_describe_mesh_pfr},
    {IC_COLL_ALLGATHERV, "pfr_dr", "hybrid: prime factors rings in some dimensions, DR in the rest",
     M, ic_build_mesh_pfr_dr, ic_cost_mesh_pfr_dr, ic_describe_mesh_pfr_dr},
    {IC_COLL_ALLGATHERV, "pfr_alt", "prime factors rings, widest first, alternating dimensions", M,
     ic_build_mesh_pfr_alt, ic_cost_mesh_pfr_alt, ic_describe_mesh_pfr_alt},
    /* ---- reduce_scatter_block: ring, reduce + scatter; mesh: as allgather ------------------- */
    {IC_COLL_REDUCE_SCATTER_BLOCK, "ring", "bucket ring distributed combine (long vectors)", C,
     ic_build_reduce_scatter_ring, c_rs_ring, NULL},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "reduce_scatter", "MST reduce + MST scatter (short vectors)",
     CANON, ic_build_reduce_scatter_reduce_scatter, c_rs_mst, NULL},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "direct",
     "direct exchange, each block combined by its owner in the rank tree (long vectors)", CANON,
     ic_build_reduce_scatter_direct, c_rs_direct, NULL},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "dr", "distributed reduction along dimensional rings", MC,
     ic_build_mesh_dr, ic_cost_mesh_dr, ic_describe_mesh_dr},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "pfr", "distributed reduction in prime factors rings", MC,
     ic_build_mesh_pfr, ic_cost_mesh_pfr, ic_describe_mesh_pfr},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "pfr_dr", "hybrid: PFR in some dimensions, DR in the rest", MC,
     ic_build_mesh_pfr_dr, ic_cost_mesh_pfr_dr, ic_describe_mesh_pfr_dr},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "pfr_alt", "prime factors rings, closest first, alternating", MC,
     ic_build_mesh_pfr_alt, ic_cost_mesh_pfr_alt, ic_describe_mesh_pfr_alt},
    /* ---- reduce_scatter: as reduce_scatter_block, per-rank counts --------------------------- */
    {IC_COLL_REDUCE_SCATTER, "ring", "bucket ring distributed combine (long vectors)", C,
     ic_build_reduce_scatter_ring, c_rs_ring, NULL},
    {IC_COLL_REDUCE_SCATTER, "reduce_scatterv", "MST reduce + MST scatterv (short vectors)",
     CANON, ic_build_reduce_scatter_reduce_scatter, c_rs_mst, NULL},
    {IC_COLL_REDUCE_SCATTER, "direct",
     "direct exchange, each block combined by its owner in the rank tree (long vectors)", CANON,
     ic_build_reduce_scatter_direct, c_rs_direct, NULL},
    {IC_COLL_REDUCE_SCATTER, "dr", "distributed reduction along dimensional rings", MC,
     ic_build_mesh_dr, ic_cost_mesh_dr, ic_describe_mesh_dr},
    {IC_COLL_REDUCE_SCATTER, "pfr", "distributed reduction in prime factors rings", MC,
     ic_build_mesh_pfr, ic_cost_mesh_pfr, ic_describe_mesh_pfr},
    {IC_COLL_REDUCE_SCATTER, "pfr_dr", "hybrid: PFR in some dimensions, DR in the rest", MC,
     ic_build_mesh_pfr_dr, ic_cost_mesh_pfr_dr, ic_describe_mesh_pfr_dr},
    {IC_COLL_REDUCE_SCATTER, "pfr_alt", "prime factors rings, closest first, alternating", MC,
     ic_build_mesh_pfr_alt, ic_cost_mesh_pfr_alt, ic_describe_mesh_pfr_alt},
    /* ---- alltoall: direct exchange, Bruck, AAP (p = 2^d), dimensional rings ----------------- */
    {IC_COLL_ALLTOALL, "pairwise", "direct pairwise exchange, p-1 steps", 0,
     ic_build_alltoall_pairwise, c_alltoall, NULL},
    {IC_COLL_ALLTOALL, "bruck", "Bruck index algorithm, ceil(log2 p) rounds (short vectors, any p)",
     OWN, ic_build_alltoall_bruck, ic_cost_alltoall_bruck, NULL},
    {IC_COLL_ALLTOALL, "aap", "AAP: direct exchange in hypercube subcube-reversal order (p = 2^d)",
     OWN | POW2, ic_build_alltoall_aap, ic_cost_alltoall_aap, NULL},
    {IC_COLL_ALLTOALL, "aap_dual", "AAP with dual phases interleaved (p = 2^d)", OWN | POW2,
     ic_build_alltoall_aap_dual, ic_cost_alltoall_aap, NULL},
    {IC_COLL_ALLTOALL, "dr", "dimensional rings on the logical mesh, sum(m_k - 1) steps", OWN | M,
     ic_build_alltoall_dr, ic_cost_alltoall_dr, NULL},
    {IC_COLL_ALLTOALL, "quadrant",
     "quadrant exchange on a 2^j x 2^j mesh, 3(sqrt(p) - 1) contention-free steps",
     OWN | M | IC_ALGO_SQUARE_MESH, ic_build_alltoall_quadrant, ic_cost_alltoall_quadrant, NULL},
    /* ---- alltoallv: direct exchange, AAP; Bruck and DR after a size exchange ---------------- */
    {IC_COLL_ALLTOALLV, "pairwise", "direct pairwise exchange, p-1 steps", 0,
     ic_build_alltoall_pairwise, c_alltoall, NULL},
    {IC_COLL_ALLTOALLV, "aap", "AAP: direct exchange in hypercube subcube-reversal order (p = 2^d)",
     OWN | POW2, ic_build_alltoall_aap, ic_cost_alltoall_aap, NULL},
    {IC_COLL_ALLTOALLV, "aap_dual", "AAP with dual phases interleaved (p = 2^d)", OWN | POW2,
     ic_build_alltoall_aap_dual, ic_cost_alltoall_aap, NULL},
    {IC_COLL_ALLTOALLV, "bruck",
     "Bruck index algorithm after a Bruck exchange of the counts (short vectors, any p)",
     IC_ALGO_SIZES, ic_build_alltoallv_bruck, ic_cost_alltoallv_bruck, NULL},
    {IC_COLL_ALLTOALLV, "dr",
     "dimensional rings on the logical mesh after a DR exchange of the counts",
     OWN | M | IC_ALGO_SIZES,
     ic_build_alltoallv_dr, ic_cost_alltoallv_dr, NULL},
    /* ---- barrier ---------------------------------------------------------------------------- */
    {IC_COLL_BARRIER, "ucube",
     "U-cube: fan-in/fan-out tree on the rank-0-relative chain (hypercube)",
     UCUBE, ic_build_barrier_ucube, ic_cost_barrier_tree, NULL},
    {IC_COLL_BARRIER, "umesh", "U-mesh: fan-in/fan-out tree on the dimension-ordered chain (mesh)",
     UMESH, ic_build_barrier_umesh, ic_cost_barrier_tree, NULL},
    {IC_COLL_BARRIER, "utorus",
     "U-torus: fan-in/fan-out tree on the chain rotated to rank 0 (torus)",
     UTORUS, ic_build_barrier_utorus, ic_cost_barrier_tree, NULL},
    {IC_COLL_BARRIER, "dissemination", "dissemination, ceil(log2 p) rounds", 0,
     ic_build_barrier_dissemination, c_barrier, NULL},
    {IC_COLL_BARRIER, "direct", "every member tells every other, one round", 0,
     ic_build_barrier_direct, c_barrier_direct, NULL},
    /* ---- scan ------------------------------------------------------------------------------- */
    {IC_COLL_SCAN, "dissemination", "dissemination prefix, ceil(log2 p) rounds, rank order",
     CANON, ic_build_scan_dissemination, c_scan, NULL},
    {IC_COLL_SCAN, "chain", "pipeline along the rank-ordered chain 0..p-1, p-1 messages in all", 0,
     ic_build_scan_chain, ic_cost_scan_chain, NULL},
    /* ---- exscan ----------------------------------------------------------------------------- */
    {IC_COLL_EXSCAN, "dissemination", "dissemination prefix, ceil(log2 p) rounds, rank order",
     CANON, ic_build_scan_dissemination, c_scan, NULL},
    {IC_COLL_EXSCAN, "chain", "pipeline along the rank-ordered chain 0..p-1, p-1 messages in all", 0,
     ic_build_scan_chain, ic_cost_scan_chain, NULL},
};
#undef C
#undef M
#undef MC
#undef POW2
#undef OWN
#undef HC
#undef CANON
#undef OWNC
#undef UCUBE
#undef UMESH
#undef UTORUS
#undef UANY

const ic_algo_t *ic_catalog(size_t *n)
{
    *n = sizeof catalog / sizeof catalog[0];
    return catalog;
}
