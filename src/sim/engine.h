/*
 * engine.h — the in-process engine: builds the plans of every rank of one
 * or more collectives and runs them together in one process, in virtual
 * time, under the papers' model.
 *
 * Model: a fully connected network; every node has one send port and one
 * receive port (it can send one message and receive one message at the
 * same time); a message of n bytes holds both ports for alpha + n*beta; a
 * REDUCE of n bytes takes n*gamma and a COPY n*delta on the node's one
 * compute unit, which works while the ports do.  A message starts when its
 * SEND and RECV are both ready and both ports are free; among messages that
 * could start at the same moment, the earlier-ready SEND, then the lower
 * sender node, then the earlier plan step goes first.
 *
 * With move_data the engine also executes the steps on real buffers, so
 * tests use it as the correctness oracle.  It checks that every SEND has a
 * RECV of the same size, that no step reaches outside the buffers the
 * caller declared, and that every step ran (no deadlock).
 *
 * ic_sim_run_net runs the same plans on a physical network (network.h):
 * a mesh, torus or hypercube with routes, link sharing and switching, one-,
 * k- or all-port nodes and a placement of ranks on nodes.  Messages are flows:
 * when one starts or ends, the per-byte time of every message sharing a
 * link with it is recomputed (docs/simulator.md).  With the full network,
 * one-port nodes and no hop time it is ic_sim_run, to the last digit.
 */
#ifndef IC_SIM_ENGINE_H
#define IC_SIM_ENGINE_H

#include "algo/coll_args.h"
#include "plan/plan.h"
#include "sim/network.h"

/* One collective on one communicator: size members placed on world nodes
 * world[i] (NULL: node i).  args[i], sendbuf[i], recvbuf[i] are member i's
 * (buffers may be NULL without move_data; sendbytes/recvbytes, if given,
 * are the buffer sizes, checked against the plans). */
typedef struct ic_sim_job {
    int size;
    const int *world;
    const ic_coll_args_t *args;
    const char *algo; /* NULL or "auto": the selector's choice */
    const char *caller; /* names the API call in error messages (NULL: ic_sim_run) */
    void *const *sendbuf;
    void *const *recvbuf;
    const size_t *sendbytes;
    const size_t *recvbytes;
    const char *chosen; /* out: the algorithm that ran */
    /* Optional: size prebuilt plans to run instead (not freed; algo and
     * the args' choice are then ignored, args still validated). */
    const ic_plan_t *plans;
} ic_sim_job_t;

/* One step of a contention report: the messages that started at one
 * moment, and the most messages on one directed link right after they
 * started (messages still running from before included). */
typedef struct ic_sim_step_load {
    double t;           /* when they started */
    uint32_t started;   /* how many */
    uint32_t max_load;  /* most messages on one link then (0: no link used) */
    long link;          /* that link (ic_net_link_name), -1 when none */
} ic_sim_step_load_t;

/* Contention report of a run on a network: per step and in total. */
typedef struct ic_sim_contention {
    size_t picture_step;      /* in: the step whose every link's load to keep
                                 in link_load (SIZE_MAX: none) */
    ic_sim_step_load_t *steps; /* out: malloc'd, nsteps entries */
    size_t nsteps;
    uint32_t max_load;        /* out: the most messages on one link, ever */
    long max_link;            /* where (-1: no link used) */
    size_t max_step;          /* the first step that reached it */
    uint32_t *link_load;      /* out: ic_net_links entries at picture_step
                                 (malloc'd; NULL when not asked or no such step) */
    long nlinks;
} ic_sim_contention_t;

/* Frees what a run put in c (steps, link_load). */
void ic_sim_contention_free(ic_sim_contention_t *c);

typedef struct ic_sim_result {
    double time;          /* completion of the last step */
    size_t msgs, bytes;   /* messages and bytes sent, all nodes */
    size_t steps;         /* steps executed */
    /* Optional, world_size entries each, filled when non-NULL. */
    double *node_time;
    size_t *node_msgs, *node_bytes;
    /* Optional (ic_sim_run_net): filled when non-NULL. */
    ic_sim_contention_t *contention;
} ic_sim_result_t;

/* Runs njobs collectives at once on world_size nodes.  Returns IC_OK, an
 * argument error from building, or IC_ERR_INTERNAL with ic_last_error()
 * naming the inconsistency (unmatched message, out-of-bounds step,
 * deadlock). */
ic_status_t ic_sim_run(int world_size, const ic_model_t *m, ic_sim_job_t *jobs, int njobs,
                       bool move_data, ic_sim_result_t *res);

/* The same on network net (NULL: the full network, one-port), which
 * ic_net_check must accept for world_size.  m's alpha is the start-up, its
 * beta the node's per-byte time (beta_node), gamma and delta as above. */
ic_status_t ic_sim_run_net(int world_size, const ic_model_t *m, const ic_net_t *net,
                           ic_sim_job_t *jobs, int njobs, bool move_data,
                           ic_sim_result_t *res);

#endif
