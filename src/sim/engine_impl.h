/*
 * engine_impl.h — the engine's state, shared by its stages: building
 * (engine_build.c), linking (engine_graph.c), the event loop
 * (engine_run.c) and messages on links (engine_links.c); engine.c runs them.
 * Internal to src/sim.
 */
#ifndef IC_SIM_ENGINE_IMPL_H
#define IC_SIM_ENGINE_IMPL_H

#include "sim/engine.h"

#include <stdlib.h>

/* A plan in the engine's compact form, made as soon as the plan is built
 * (engine_build.c), in three groups freed as set-up no longer needs them:
 * what pass 1 reads (kind, dependency count, bytes), what matching reads
 * (peer, tag and the receives sorted by (peer, tag)) and the dependency
 * lists (pass 2).  About 18 bytes per step plus 4 per dependency, where
 * the plan takes 48 plus its dependencies, so a large run's plans need not
 * all be held at once. */
typedef struct cplan {
    uint8_t *kind;      /* group 1 */
    uint8_t *bytes_hi;  /* bytes = bytes_hi * 2^32 + bytes_lo (< 2^40) */
    uint16_t *ndeps;    /* < 2^16 (a JOIN step gathers more) */
    uint32_t *bytes_lo;
    int32_t *peer;      /* group 2 */
    uint32_t *tag;
    uint32_t *rindex;   /* RECV steps by (peer, tag) */
    uint32_t nrecv;
    uint32_t *deps;     /* group 3: each step's dependencies, in step order */
    void *g1, *g2;      /* the blocks of groups 1 and 2 */
} cplan_t;

typedef struct inst {
    ic_plan_t plan;            /* kept only with data (move) or when borrowed */
    bool borrowed;             /* plan given by the caller (job.plans) */
    int job, crank;
    int node;                  /* world rank: its ports and compute unit */
    int pnode;                 /* physical node: where its links start */
    size_t nsteps;             /* the plan's steps */
    cplan_t c;
    unsigned char *buf[IC_BUF_COUNT];
    unsigned char *scratch;    /* owned */
} inst_t;

enum {
    EV_STEP,      /* a step completes (id: gid) */
    EV_FLOW,      /* a flow ends, unless moved since (id: flow, ver) */
    EV_WAKE,      /* a node's ports open for set-up (id: world rank) */
    EV_CIRC_REQ,  /* a circuit asks for the next link of its path (id: slot) */
    EV_CIRC_GO,   /* a circuit is set up: bytes move (id: slot) */
    EV_CIRC_END   /* a circuit's message is through (id: slot) */
};

typedef struct event {
    double t;
    size_t seq;
    size_t id;      /* step gid, or flow slot */
    uint32_t ver;   /* flow events: the flow's version when pushed */
    uint8_t kind;   /* EV_* */
} event_t;

typedef struct idvec {
    size_t *v;
    size_t n, cap;
} idvec_t;

typedef struct u32vec {
    uint32_t *v;
    size_t n, cap;
} u32vec_t;

/* A message in flight on links: a flow, whose per-byte time can change
 * (wormhole or store-and-forward with contention), or a circuit being set
 * up link by link and then moving its bytes. */
typedef struct flow {
    size_t sg;          /* its SEND step */
    double lat_end;     /* start-up over: bytes move from then on */
    double t_last;      /* left is as of then */
    double left;        /* bytes still to move */
    double c;           /* current seconds per byte */
    uint32_t ver;
    uint32_t most;      /* flow: the most messages on a link of its path */
    uint32_t nmost;     /* flow: how many of its links carry that many */
    int hops;
    int next;           /* circuit: links of the path held so far */
    size_t sport, rport; /* the send and receive ports it holds (send_free,
                            recv_free indexes) */
    uint32_t *path, path_cap;
} flow_t;

/* What the event loop needs of every step, in 16 bytes next to its
 * partner (match) and the time it became ready (ready_at), kept in arrays
 * of their own so set-up can fill them one after the other.  Ids are
 * step-major (engine.c); a step's index in its plan is not stored
 * (ic_sim_local finds it). */
typedef struct gstep {
    uint32_t succ_first;  /* successors: succ[succ_first .. next step's) */
    uint32_t inst;        /* owner */
    uint32_t remaining : 16; /* unmet dependencies */
    uint32_t kind : 3;    /* ic_step_kind_t */
    uint32_t ready : 1;   /* SEND/RECV posted */
    uint32_t started : 1; /* SEND: its message started */
    uint32_t bytes_hi : 8;
    uint32_t bytes_lo;
} gstep_t;

enum { IC_SIM_MAX_DEPS = 65535 };
#define IC_SIM_MAX_BYTES (((uint64_t)1 << 40) - 1)

static inline size_t ic_sim_bytes(const gstep_t *g)
{
    return (size_t)((uint64_t)g->bytes_hi << 32 | g->bytes_lo);
}

/* Step-major numbering (engine.c): instance i's step s is row[s] + pos[i]. */
typedef struct numbering {
    size_t *pos;   /* ninst: place in the length order */
    size_t *order; /* ninst: instances by length, longest first */
    size_t *row;   /* maxlen + 1: first id of each step index */
    size_t maxlen;
} numbering_t;

typedef struct engine {
    const ic_model_t *m;
    const ic_net_t *net;  /* NULL: the full network */
    bool move;
    bool flows;           /* per-byte times change with link loads */
    bool circuits;        /* messages are circuits: a link to one at a time */
    long nlinks;
    int max_hops;
    inst_t *in;
    size_t ninst, nsteps;
    size_t *job_first;    /* per job: its rank 0's instance */
    gstep_t *g;           /* nsteps + 1 (the last holds the end of succ) */
    uint32_t *match;      /* nsteps: SEND <-> RECV partner (UINT32_MAX: none) */
    double *ready_at;     /* nsteps: when its last dependency completed */
    numbering_t nb;
    uint32_t *succ;
    uint64_t *first;      /* steps without dependencies, in (instance, step) order */
    size_t nfirst;
    event_t *heap;
    size_t nheap, heap_cap, seq, done_steps;
    size_t events;        /* handled (IC_SIM_PROFILE) */
    /* Ports: one-port nodes have one send and one receive port, k-port
     * nodes k of each (world rank r's are r*kports .. r*kports + kports - 1
     * of send_free and recv_free: when each is free again), all-port nodes
     * any number (all_port; send_free and recv_free unused). */
    bool all_port;
    int kports;
    double *send_free, *recv_free, *compute_free; /* per port, port, world rank */
    double *setup_free, *rsetup_free; /* setup_overlap: next set-up may start */
    bool overlap;         /* circuits with setup_overlap */
    /* Messages whose both sides are ready and that have not started:
     * queued at the sender and at the receiver (one-port), or in fresh
     * (all-port).  A one-port node whose ports freed or that got a new
     * message is dirty: only dirty nodes' messages can start. */
    idvec_t *sendq, *recvq, fresh, dirty, collect;
    unsigned char *is_dirty;
    /* Links: messages on each (circuits: holding or waiting for it); which
     * flows are on it, or which circuits wait for it, first come first;
     * whether a circuit holds it. */
    uint32_t *load;
    u32vec_t *link_flows;
    unsigned char *held;
    flow_t *fl;
    uint32_t nfl, fl_cap;
    u32vec_t fl_free;
    uint32_t *route;      /* max_hops scratch */
    ic_sim_result_t *res;
    ic_sim_contention_t *ct;
    double step_t;        /* start time of the report's current step */
    size_t ct_cap;        /* room in ct->steps */
    bool pic_dirty;       /* the picture's step got messages: copy loads */
} engine_t;

/* Room for element n of an array of cap elements of size bytes at v:
 * the array (moved when it had to grow), or NULL when out of memory. */
static inline void *ic_sim_grow(void *v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? 2 * *cap : 8;
    void *g = realloc(v, c * size);
    if (g)
        *cap = c;
    return g;
}

static inline int idvec_push(idvec_t *v, size_t x)
{
    size_t *a = ic_sim_grow(v->v, v->n, &v->cap, sizeof(*a));
    if (!a)
        return -1;
    v->v = a;
    v->v[v->n++] = x;
    return 0;
}

static inline int u32vec_push(u32vec_t *v, uint32_t x)
{
    uint32_t *a = ic_sim_grow(v->v, v->n, &v->cap, sizeof(*a));
    if (!a)
        return -1;
    v->v = a;
    v->v[v->n++] = x;
    return 0;
}

/* engine_run.c: the event heap, step completion, dirty nodes. */
int ic_sim_push(engine_t *e, double t, uint8_t kind, size_t id, uint32_t ver);
int ic_sim_complete(engine_t *e, size_t gid, double t);
void ic_sim_dirty(engine_t *e, int node, int *err);

/* engine_links.c: messages on links (flows, circuits) from their start
 * (the message's loads already counted, its route in e->route) to their
 * end, when they complete both steps. */
void ic_sim_load_up(engine_t *e, uint32_t link);
int ic_sim_flow_start(engine_t *e, size_t sg, double t, int h, double bytes, size_t sport,
                      size_t rport);
int ic_sim_flow_end(engine_t *e, uint32_t id, double t);
int ic_sim_circuit_start(engine_t *e, size_t sg, double t, int h, double bytes, size_t sport,
                         size_t rport);
int ic_sim_circuit_event(engine_t *e, event_t ev);
void ic_sim_links_free(engine_t *e);

/* Runs the loaded, linked and matched steps to the end (engine_run.c). */
ic_status_t ic_sim_engine_run(engine_t *e);
/* Frees what engine_run.c allocated. */
void ic_sim_engine_run_free(engine_t *e);

/* Index of step gid in its plan. */
static inline size_t ic_sim_local(const engine_t *e, size_t gid)
{
    size_t lo = 0, hi = e->nb.maxlen; /* row[lo] <= gid < row[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->nb.row[mid] <= gid)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The plan step of gid (only with data: the plans are kept then). */
static inline const ic_step_t *ic_sim_step(const engine_t *e, size_t gid, inst_t **inst)
{
    inst_t *in = &e->in[e->g[gid].inst];
    if (inst)
        *inst = in;
    return &in->plan.steps[ic_sim_local(e, gid)];
}

/* engine_build.c: every instance's plan built (in parallel) and made
 * compact; the plans themselves dropped unless data moves or the caller
 * gave them.  Frees of the compact groups (engine.c frees them as it goes). */
ic_status_t ic_sim_build_all(engine_t *e, int world_size, ic_sim_job_t *jobs, int njobs);
void ic_sim_cplan_free(cplan_t *c);

/* Runs fn over [0, n) in chunks of chunk on the build's threads
 * (IC_SIM_THREADS; one below 256 instances); worker is the thread's index
 * (< IC_SIM_MAX_THREADS).  Returns an error only for a bad IC_SIM_THREADS. */
enum { IC_SIM_MAX_THREADS = 8 };
typedef void ic_sim_par_fn(engine_t *e, void *ctx, size_t from, size_t to, int worker);
ic_status_t ic_sim_parallel(engine_t *e, size_t n, size_t chunk, ic_sim_par_fn *fn, void *ctx);

/* engine_graph.c: numbering, matching and successor lists, from the
 * compact plans (which it frees). */
ic_status_t ic_sim_link(engine_t *e);
void ic_sim_numbering_free(numbering_t *nb);

#endif
