/*
 * model.h — the cost model's machine parameters, as every layer that prices
 * or sizes a message sees them.
 *
 * The type sits in the ground layer, not in select/, because building
 * blocks in algo/ read it too: the pipelines take their segment count from
 * it and the hybrids choose their split by pricing themselves ([Watts94]'s
 * k_i formula and hybrid rule), and algo/ may not include select/
 * (docs/architecture.md).  The cost functions that use it live in
 * select/cost*.c and next to the blocks that decide with it.
 */
#ifndef IC_BASE_MODEL_H
#define IC_BASE_MODEL_H

/* the papers' model: a message of n bytes costs alpha + n*beta, reducing n
 * bytes costs n*gamma, copying n bytes locally n*delta (seconds). */
#define IC_MODEL_LEVELS 2

typedef struct ic_model {
    double alpha, beta, gamma, delta;
    double beta_net; /* per byte of a link of the physical mesh; 0: fully
                        connected (ic_model_params_t) */
    /* A machine of levels (the MPI bridge across hosts, docs/mpi.md): when
     * nlevels > 0, dimension i < nlevels of the communicator's mesh is a
     * level whose messages cost lvl_alpha[i] + n*lvl_beta[i] (dimension 0:
     * between hosts, 1: inside a host), and alpha, beta are the slowest
     * level's, which prices the entries that ignore the mesh. */
    int nlevels;
    /* Messages a node can send (and receive) at once: 0 or 1 one-port (the
     * papers' default and shared memory's), k, or IC_PORTS_ALL for all-
     * port nodes (the simulator's --all-port; --ports K for k).  Priced by
     * the entries whose plans send several messages at once (double_tree,
     * edst). */
    int ports; /* also keeps the struct free of padding: models compare with memcmp */
    double lvl_alpha[IC_MODEL_LEVELS], lvl_beta[IC_MODEL_LEVELS];
} ic_model_t;

#endif
