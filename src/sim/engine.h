/*
 * engine.h — the in-process engine: builds the plans of every rank of one
 * or more collectives and runs them together in one process, in virtual
 * time, under the seeds' model.
 *
 * Model: a fully connected network; every node has one send port and one
 * receive port (it can send one message and receive one message at the
 * same time); a message of n bytes holds both ports for alpha + n*beta; a
 * REDUCE of n bytes takes n*gamma and a COPY n*delta on the node's one
 * compute unit, which works while the ports do.  A message starts when its
 * SEND and RECV are both ready and both ports are free; among messages that
 * could start at the same moment, lower sender node and earlier plan step
 * go first.
 *
 * With move_data the engine also executes the steps on real buffers, so
 * tests use it as the correctness oracle.  It checks that every SEND has a
 * RECV of the same size, that no step reaches outside the buffers the
 * caller declared, and that every step ran (no deadlock).
 */
#ifndef IC_SIM_ENGINE_H
#define IC_SIM_ENGINE_H

#include "algo/coll_args.h"
#include "plan/plan.h"

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
} ic_sim_job_t;

typedef struct ic_sim_result {
    double time;          /* completion of the last step */
    size_t msgs, bytes;   /* messages and bytes sent, all nodes */
    size_t steps;         /* steps executed */
    /* Optional, world_size entries each, filled when non-NULL. */
    double *node_time;
    size_t *node_msgs, *node_bytes;
} ic_sim_result_t;

/* Runs njobs collectives at once on world_size nodes.  Returns IC_OK, an
 * argument error from building, or IC_ERR_INTERNAL with ic_last_error()
 * naming the inconsistency (unmatched message, out-of-bounds step,
 * deadlock). */
ic_status_t ic_sim_run(int world_size, const ic_model_t *m, ic_sim_job_t *jobs, int njobs,
                       bool move_data, ic_sim_result_t *res);

#endif
