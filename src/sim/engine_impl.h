/*
 * engine_impl.h — the engine's state, shared by its set-up (engine.c), its
 * event loop (engine_run.c) and its messages on links (engine_links.c).
 * Internal to src/sim.
 */
#ifndef IC_SIM_ENGINE_IMPL_H
#define IC_SIM_ENGINE_IMPL_H

#include "sim/engine.h"

#include <stdlib.h>

typedef struct inst {
    ic_plan_t plan;
    bool borrowed;             /* plan given by the caller (job.plans) */
    int job, crank;
    int node;                  /* world rank: its ports and compute unit */
    int pnode;                 /* physical node: where its links start */
    size_t base;               /* steps of instances before it (set-up numbering) */
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
    int hops;
    int next;           /* circuit: links of the path held so far */
    uint32_t *path, path_cap;
} flow_t;

/* What the event loop needs of every step, in 48 bytes (the loop touches
 * steps of all ranks in turn: one cache miss per step, not five).  Ids are
 * step-major (engine.c). */
typedef struct gstep {
    double ready_at;
    size_t bytes;
    uint32_t remaining;   /* unmet dependencies */
    uint32_t succ_first;  /* successors: succ[succ_first .. next step's) */
    uint32_t match;       /* SEND <-> RECV partner (UINT32_MAX: none yet) */
    uint32_t inst;        /* owner */
    uint32_t local;       /* index in the owner's plan */
    uint8_t kind;         /* ic_step_kind_t */
    uint8_t ready;        /* SEND/RECV posted */
    uint8_t started;      /* SEND: its message started */
} gstep_t;

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
    gstep_t *g;           /* nsteps + 1 (the last holds the end of succ) */
    uint32_t *succ;
    uint64_t *first;      /* steps without dependencies, in (instance, step) order */
    size_t nfirst;
    bool steps_gone;      /* no data: the plans' steps were freed after linking */
    event_t *heap;
    size_t nheap, heap_cap, seq, done_steps;
    double *send_free, *recv_free, *compute_free; /* per world rank */
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
int ic_sim_flow_start(engine_t *e, size_t sg, double t, int h, double bytes);
int ic_sim_flow_end(engine_t *e, uint32_t id, double t);
int ic_sim_circuit_start(engine_t *e, size_t sg, double t, int h, double bytes);
int ic_sim_circuit_event(engine_t *e, event_t ev);
void ic_sim_links_free(engine_t *e);

/* Runs the loaded, linked and matched steps to the end (engine_run.c). */
ic_status_t ic_sim_engine_run(engine_t *e);
/* Frees what engine_run.c allocated. */
void ic_sim_engine_run_free(engine_t *e);

static inline const ic_step_t *ic_sim_step(const engine_t *e, size_t gid, inst_t **inst)
{
    inst_t *in = &e->in[e->g[gid].inst];
    if (inst)
        *inst = in;
    return &in->plan.steps[e->g[gid].local];
}

#endif
