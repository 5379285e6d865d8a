/*
 * comm.h — the communicator behind the opaque ic_comm_t, and the pure
 * group arithmetic of split and create_group (tests call it directly).
 */
#ifndef IC_CORE_COMM_H
#define IC_CORE_COMM_H

#include "algo/coll_args.h"
#include "select/catalog.h"
#include "intercom.h"
#include "transport/transport.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* One remembered decision ([Watts94] section 15.1's strategy cache): a
 * call equal in every argument the decision depends on reuses it
 * (strategy.c). */
typedef struct ic_strategy {
    int valid, coll, root, commutative, reproducible;
    ic_datatype_t dtype;
    size_t count;
    size_t *counts; /* owned copy of a v-form's counts (size entries), or NULL */
    const ic_algo_t *forced;
    ic_choice_t choice;
} ic_strategy_t;
#define IC_STRATEGY_SLOTS 64
/* Plans kept per collective for blocking calls: enough for a loop whose
 * root or size cycles through a few values (coll_run.c). */
#define IC_PLAN_CACHE_WAYS 8

struct ic_comm {
    int size, rank;
    int *world;              /* world rank of each member */
    uint64_t id;             /* context id: messages of different comms never match */
    uint64_t seq;            /* collectives started so far */
    uint64_t children;       /* communicators derived so far (for child ids) */
    ic_model_t model;
    ic_mesh_t mesh;          /* logical mesh set by ic_comm_set_mesh */
    int has_mesh;
    ic_phys_t phys;          /* physical placement (ic_comm_set_network), node_of =
                              * phys_node; inherited by derived communicators */
    int *phys_node;          /* node of each member, or NULL: placement unknown */
    const char *algo[IC_COLL_COUNT]; /* forced algorithm per collective, or NULL */
    int is_world;
    int owns_t;              /* made by ic_comm_from_mpi: freeing it closes t (and t_host) */
    int *t_host;             /* host index of each transport rank (shared with the
                              * communicators derived from this one), or NULL: one host */
    int t_nhosts;
    int *host_of;            /* host of each member, 0..nhosts-1 in order of first
                              * appearance (ic_comm_levels); NULL: one host */
    int nhosts;
    ic_model_t base_model;   /* the model of one host (tune file, defaults), with the
                              * network level's alpha, beta in lvl_*[0] when given;
                              * ic_comm_levels derives model and mesh from it */
    double timeout;          /* IC_TIMEOUT: bound on a blocking wait, seconds; 0: none */
    int check;               /* IC_CHECK: compare fingerprints before each call */
    int explain;             /* IC_EXPLAIN: rank 0 prints every new decision */
    int reproducible;        /* IC_REPRODUCIBLE: canonical-order reductions only */
    struct ic_request *check_req; /* the fingerprints' allgather, planned once */
    void *check_buf;              /* size fingerprints */
    ic_transport_t *t;       /* shared with the world; NULL for a size-1 world */
    struct ic_request *cache[IC_COLL_COUNT][IC_PLAN_CACHE_WAYS]; /* each collective's last
                              * plans, most recently used first (coll_run.c) */
    uint64_t cache_gen;      /* the cache's generation, unique in the process; 0 until
                              * first needed and after the cache is dropped */
    uint64_t cache_epoch[IC_COLL_COUNT]; /* per collective: changes whenever a plan
                              * joins or leaves its ways; unique in the process, 0
                              * before the first plan */
    ic_strategy_t strategy[IC_STRATEGY_SLOTS];  /* decisions, round robin */
    _Atomic int failed;      /* IC_OK, or the error that failed a collective on it
                              * (written under the progress lock, read without) */
    char failed_why[256];    /* that error's message, written before failed */
    unsigned strategy_next;
};

/* True if comm is a live communicator (a freed or garbage handle gives
 * false without being dereferenced). */
bool ic_comm_valid(const ic_comm_t *comm);
/* IC_OK, or IC_ERR_COMM with a message naming fn when comm is NULL or not
 * a live communicator. */
ic_status_t ic_comm_check(const char *fn, const ic_comm_t *comm);

/* Split arithmetic: given every member's color and key, computes the
 * members of me's new communicator (indices into the parent, ordered by
 * key then parent rank) into members (size entries), and returns their
 * number; *new_rank receives me's rank in it.  Returns 0 for IC_UNDEFINED. */
int ic_split_members(int size, const int *colors, const int *keys, int me, int *members,
                     int *new_rank);

/* Checks a create_group rank list: n in [1, size], ranks distinct and in
 * range.  Returns IC_OK or IC_ERR_ARG with a message naming the entry;
 * *my_index receives the position of me in the list, or -1. */
ic_status_t ic_group_check(const char *fn, int size, int n, const int *ranks, int me,
                           int *my_index);

/* A communicator at the top of its own transport t (NULL: a world of
 * size 1) with ranks 0..size-1 = t's ranks, set up from env, the tune
 * file and IC_ALGO_* as ic_init does (core/mpi/bridge.c calls it too). */
struct ic_env;
ic_status_t ic_comm_new_top(ic_transport_t *t, int size, int rank, const struct ic_env *env,
                            ic_comm_t **out);
/* Across hosts (t_host set): sets c's model and mesh from base_model and
 * where its members are.  Members grouped by host, h > 1 hosts of k > 1
 * members each: the h x k mesh, dimension 0 across hosts, 1 inside, each
 * a level of the model (model.h).  Otherwise (uneven hosts, interleaved
 * ranks, one rank per host) the entries that ignore the mesh, priced at
 * the network level.  One host: base_model as it is. */
void ic_comm_levels(ic_comm_t *c);
/* The network level's defaults when neither the tune file nor the
 * program gives them (TCP between hosts; docs/mpi.md). */
#define IC_NET_ALPHA_DEFAULT 3e-5
#define IC_NET_BETA_DEFAULT 1e-9

/* ic_comm_create_group with a salt of the caller's for the child's id
 * instead of the parent's collective count: every member passes the same
 * salt, and groups with equal rank lists get different salts (the MPI
 * drop-in agrees on one per MPI communicator).  Local, like create_group. */
ic_status_t ic_comm_create_group_salted(ic_comm_t *comm, int n, const int *ranks, uint64_t salt,
                                        ic_comm_t **out);

/* Frees c's own storage (not its transport). */
void ic_comm_destroy(ic_comm_t *c);

/* A child context id derived from the parent's id and a salt. */
uint64_t ic_comm_child_id(uint64_t parent, uint64_t salt);

#endif
