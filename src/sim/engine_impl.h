/*
 * engine_impl.h — the engine's state, shared by its set-up (engine.c) and
 * its event loop (engine_run.c).  Internal to src/sim.
 */
#ifndef IC_SIM_ENGINE_IMPL_H
#define IC_SIM_ENGINE_IMPL_H

#include "sim/engine.h"

typedef struct inst {
    ic_plan_t plan;
    bool borrowed;             /* plan given by the caller (job.plans) */
    int job, crank;
    int node;                  /* world rank: its ports and compute unit */
    int pnode;                 /* physical node: where its links start */
    size_t base;               /* global id of step 0 */
    unsigned char *buf[IC_BUF_COUNT];
    unsigned char *scratch;    /* owned */
} inst_t;

enum { EV_STEP, EV_FLOW };

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
    uint32_t n, cap;
} u32vec_t;

/* A message in flight whose per-byte time can change (wormhole or
 * store-and-forward with contention). */
typedef struct flow {
    size_t sg;          /* its SEND step */
    double lat_end;     /* start-up over: bytes move from then on */
    double t_last;      /* left is as of then */
    double left;        /* bytes still to move */
    double c;           /* current seconds per byte */
    uint32_t ver;
    int hops;
    uint32_t *path, path_cap;
} flow_t;

/* What the event loop needs of every step, in 40 bytes (the
 * loop touches steps of all ranks in turn: one miss per step, not five). */
typedef struct gstep {
    double ready_at;
    size_t bytes;
    uint32_t remaining;   /* unmet dependencies */
    uint32_t succ_first;  /* successors: succ[succ_first .. next step's) */
    uint32_t match;       /* SEND <-> RECV partner (UINT32_MAX: none yet) */
    uint32_t inst;        /* owner */
    uint8_t kind;         /* ic_step_kind_t */
    uint8_t ready;        /* SEND/RECV posted */
    uint8_t started;      /* SEND: its message started */
} gstep_t;

typedef struct engine {
    const ic_model_t *m;
    const ic_net_t *net;  /* NULL: the full network */
    bool move;
    bool flows;           /* per-byte times change with link loads */
    bool circuits;        /* a message needs its whole path to itself */
    long nlinks;
    int max_hops;
    inst_t *in;
    size_t ninst, nsteps;
    gstep_t *g;           /* nsteps + 1 (the last holds the end of succ) */
    uint32_t *succ;
    event_t *heap;
    size_t nheap, heap_cap, seq, done_steps;
    double *send_free, *recv_free, *compute_free; /* per world rank */
    /* Messages whose both sides are ready and that have not started:
     * queued at the sender and at the receiver (one-port), or in fresh
     * (all-port).  A one-port node whose ports freed or that got a new
     * message is dirty: only dirty nodes' messages can start. */
    idvec_t *sendq, *recvq, fresh, dirty, collect, blocked;
    unsigned char *is_dirty;
    bool released;        /* a circuit was released: retry blocked ones */
    /* Links: messages on each, and (flows) which flows. */
    uint32_t *load;
    u32vec_t *link_flows;
    flow_t *fl;
    uint32_t nfl, fl_cap;
    u32vec_t fl_free;
    uint32_t *route;      /* max_hops scratch */
    ic_sim_result_t *res;
    ic_sim_contention_t *ct;
    double step_t;        /* start time of the report's current step */
    size_t ct_cap;        /* room in ct->steps */
} engine_t;

/* Runs the loaded, linked and matched steps to the end (engine_run.c). */
ic_status_t ic_sim_engine_run(engine_t *e);
/* Frees what engine_run.c allocated. */
void ic_sim_engine_run_free(engine_t *e);

static inline const ic_step_t *ic_sim_step(const engine_t *e, size_t gid, inst_t **inst)
{
    inst_t *in = &e->in[e->g[gid].inst];
    if (inst)
        *inst = in;
    return &in->plan.steps[gid - in->base];
}

#endif
