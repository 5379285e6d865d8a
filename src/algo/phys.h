/*
 * phys.h — where a communicator's members sit on a physical network (a
 * mesh, a torus or a hypercube with dimension-ordered routing), and the
 * dimension-ordered chains of [MTR94]'s contention-free multicast
 * algorithms U-mesh, U-torus and U-cube (pure rank arithmetic, no plans).
 *
 * Nodes are numbered row-major (the last dimension varies fastest, as in
 * ic_mesh_t and the simulator's networks, sim/network.h), and routes
 * correct dimension 0 first.  Sorting nodes by number is then the
 * survey's dimension order: in a chain u < v <= x < y the routes u -> v
 * and x -> y share no directed link, nor do the outer and inner routes of
 * u < v <= x < y taken as u -> y and v -> x when the inner one starts
 * after the outer one ([MTR94] figure 14).  Recursive doubling on such a
 * chain that hands each half to its end nearest the sender is therefore
 * contention-free step by step (ic_split_t IC_SPLIT_NEAR, patterns.h):
 *
 *   U-mesh   the members sorted by node; any source;
 *   U-torus  the same chain rotated so the source comes first (an R-chain:
 *            the rotation keeps the wrap-around routes of a torus apart);
 *   U-cube   the members sorted by (node XOR the source's node), the source
 *            first: e-cube routing is symmetric under XOR, so the source
 *            plays the lowest node of a chain.
 *
 * Several members may share a node (their messages use no link): they sit
 * next to each other in the chain, the source first, then in rank order.
 *
 * Source: [MTR94] (seeds/001_..., "multicast": U-mesh, U-torus, U-cube).
 */
#ifndef IC_ALGO_PHYS_H
#define IC_ALGO_PHYS_H

#include <stdbool.h>

#define IC_PHYS_MAX_DIMS 24

typedef enum ic_phys_kind {
    IC_PHYS_NONE = 0,
    IC_PHYS_MESH,
    IC_PHYS_TORUS,          /* wrap-around links, routes take the shorter way */
    IC_PHYS_TORUS_UNI,      /* wrap-around links, routes go up only */
    IC_PHYS_HYPERCUBE       /* 2 x 2 x ... x 2 */
} ic_phys_kind_t;

/* A physical network and the node of every member of a communicator. */
typedef struct ic_phys {
    ic_phys_kind_t kind;
    int ndims;
    int dims[IC_PHYS_MAX_DIMS];
    const int *node_of; /* size entries: the node of communicator rank r */
} ic_phys_t;

/* Which chain (see above). */
typedef enum ic_chain_kind {
    IC_CHAIN_MESH,  /* dimension-ordered */
    IC_CHAIN_TORUS, /* rotated to the source */
    IC_CHAIN_CUBE   /* source-relative (XOR) */
} ic_chain_kind_t;

/* Parses "mesh:6x6", "torus:4x5", "utorus:6x6" (unidirectional) or
 * "hypercube:4" into out's kind, ndims and dims (node_of untouched);
 * IC_ERR_ARG with a message naming fn and the text otherwise.  Returns an
 * ic_status_t. */
int ic_phys_parse(const char *fn, const char *spec, ic_phys_t *out);

/* Nodes of the network (product of the dimensions). */
long ic_phys_nodes(const ic_phys_t *ph);

/* True when ph describes n members on a network: a kind, 1..max dims each
 * >= 1 (2 for a hypercube), every node_of entry a node. */
bool ic_phys_valid(const ic_phys_t *ph, int n);

/* Writes the n members in chain order into chain (communicator ranks) and
 * returns the source's index in it (0 for the rotated chains, n - 1 for
 * their duals).  work holds n entries (the sort keys).  dual: the chain
 * of the dual operations (reduce, gather, a barrier's fan-in), whose
 * messages run from the leaves to the source.
 *  - Mesh and cube chains: those messages' dimension-ordered routes are
 *    the reverses of routes that correct the LAST dimension first, so the
 *    chain orders the dimensions the other way round (dimension 0 least
 *    significant), which makes the reversed tree the contention-free tree
 *    of that mirrored routing.
 *  - R-chain: the same order, rotated so the source comes LAST.  The
 *    near-end split then has every holder at the high end of its part, so
 *    every message of the reversed tree runs forward along the chain
 *    (lower to higher), between disjoint chain intervals in one step:
 *    the pattern that keeps the broadcast's forward messages apart. */
int ic_phys_chain(const ic_phys_t *ph, ic_chain_kind_t kind, bool dual, int n, int source,
                  int *chain, unsigned long long *work);

/* A hash of the network and placement of n members (for cache keys and
 * the cross-rank argument check); 0 for NULL. */
unsigned long long ic_phys_hash(const ic_phys_t *ph, int n);

#endif
