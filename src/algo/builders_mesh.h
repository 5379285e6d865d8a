/*
 * builders_mesh.h — the mesh-aware algorithms: plan builders, their cost
 * functions and the choice of a hybrid's parameters (catalog entries in
 * select/catalog_table.c).
 *
 * Every entry runs a stage schedule (stages.h) on the communicator's
 * logical mesh (a->mesh; the line of p ranks by default).  An entry fixes
 * how the schedule is made:
 *   dr      the mesh's dimensions, all split          (dimensional rings)
 *   pfr     every dimension in prime factors, all split (prime factors rings)
 *   pfr_dr  the cheapest choice of dimensions to factor (PFR-DR hybrid)
 *   pfr_alt prime factors rings in [Watts94]'s dimension-alternation order
 *   hybrid / mst_sc / mst_dg
 *           the cheapest choice of dimensions to factor and of how many
 *           rings to split; the rest runs the short-vector method
 * The choice minimises the entry's cost function under the call's model,
 * so every rank (same arguments, same model) builds the same schedule.
 */
#ifndef IC_ALGO_BUILDERS_MESH_H
#define IC_ALGO_BUILDERS_MESH_H

#include "algo/builders.h"
#include "algo/stages.h"

/* How an entry makes its schedule. */
typedef enum ic_mesh_variant {
    IC_MV_DR,      /* dimensions, all split */
    IC_MV_PFR,     /* prime factors, all split */
    IC_MV_PFR_DR,  /* best factor mask, all split */
    IC_MV_PFR_ALL, /* prime factors, none split (short method on every ring) */
    IC_MV_HYBRID,  /* best factor mask and split count */
    IC_MV_PFR_ALT  /* prime factors, all split, dimension alternation */
} ic_mesh_variant_t;

/* The logical mesh of a call. */
ic_mesh_t ic_args_mesh(const ic_coll_args_t *a, int p);

/* The schedule of variant v for the call (cheapest under m where v
 * chooses). */
ic_sched_t ic_mesh_sched(const ic_coll_args_t *a, int p, ic_mesh_variant_t v,
                         const ic_model_t *m);

/* Cost of running schedule s for the call: stages one after the other,
 * each as long as its slowest ring (select/cost_mesh.c). */
double ic_cost_mesh_sched(const ic_coll_args_t *a, int p, const ic_sched_t *s,
                          const ic_model_t *m);

/* Cost of ring_allreduce.c on n members with bytes each. */
double ic_cost_ring_allreduce(int n, size_t bytes, const ic_model_t *m);

/* Builds rank pl->rank's plan of schedule s (coll_mesh.c). */
ic_status_t ic_build_mesh_sched(ic_plan_t *pl, const ic_coll_args_t *a, const ic_sched_t *s);

/* One builder and one cost function per (variant) for the catalog. */
#define IC_MESH_ENTRY_DECL(v)                                                  \
    ic_status_t ic_build_mesh_##v(ic_plan_t *pl, const ic_coll_args_t *a);     \
    double ic_cost_mesh_##v(const ic_coll_args_t *a, int p, const ic_model_t *m); \
    void ic_describe_mesh_##v(const ic_coll_args_t *a, int p, const ic_model_t *m, char *buf, \
                              size_t len);
IC_MESH_ENTRY_DECL(dr)
IC_MESH_ENTRY_DECL(pfr)
IC_MESH_ENTRY_DECL(pfr_dr)
IC_MESH_ENTRY_DECL(pfr_all)
IC_MESH_ENTRY_DECL(hybrid)
IC_MESH_ENTRY_DECL(pfr_alt)
#undef IC_MESH_ENTRY_DECL

#endif
