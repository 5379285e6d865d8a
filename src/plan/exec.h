/*
 * exec.h — runs one rank's plan on a transport (the real-execution engine;
 * the in-process engine is src/sim/).
 *
 * ic_exec_prepare computes, once per plan, what running it needs (the
 * successor lists of the dependency graph and the scratch buffer); a
 * prepared plan can then be started any number of times (persistent
 * collectives, the plan cache) without allocating.  ic_exec_start binds
 * the user's buffers and the message key; ic_exec_progress advances it
 * without blocking.
 */
#ifndef IC_PLAN_EXEC_H
#define IC_PLAN_EXEC_H

#include "plan/plan.h"
#include "transport/transport.h"

typedef struct ic_exec {
    ic_plan_t plan;           /* owned */
    uint32_t *succ_first;     /* nsteps + 1 */
    uint32_t *succ;           /* successor step indices */
    uint32_t *remaining;      /* unmet dependencies, per run */
    uint32_t *ready;          /* stack of ready steps */
    uint32_t *local;          /* ready local steps, run once no message is left to post */
    uint32_t *active;         /* SEND/RECV steps posted, not yet complete */
    ic_tx_req_t *req;         /* one per step */
    uint32_t *start;          /* the steps ready at the start, stacked in posting order */
    uint32_t *deps0;          /* each step's dependency count: remaining[] at the start */
    size_t nstart;
    unsigned char *scratch;   /* plan.scratch_bytes */
    size_t nready, nlocal, nactive, ndone;
    /* Per run. */
    ic_transport_t *t;
    const int *world;         /* communicator rank -> transport rank */
    ic_match_key_t key;       /* tag filled per step */
    unsigned char *buf[IC_BUF_COUNT];
    ic_status_t status;       /* first error of the run */
    int running;
} ic_exec_t;

/* Takes ownership of *plan (moved into x) and allocates the run state. */
ic_status_t ic_exec_prepare(ic_exec_t *x, ic_plan_t *plan);
/* Frees everything of x (it must not be running). */
void ic_exec_release(ic_exec_t *x);

/* Sends of at most this many bytes that are ready at the start of a run
 * are posted before its receives; the receives before anything else. */
#define IC_EXEC_SEND_FIRST_MAX ((size_t)16384)

/* Binds buffers and starts a run: steps with no dependency become ready.
 * Its messages carry (comm_id, seq, step tag) and the call's signature. */
void ic_exec_start(ic_exec_t *x, ic_transport_t *t, const int *world, uint64_t comm_id,
                   uint64_t seq, uint32_t sig, const void *sendbuf, void *recvbuf);

/* Advances the run without blocking; *done = 1 when every step has
 * completed.  Returns the run's first error: then the run is over and
 * every transport request it still had in flight has been cancelled, so
 * nothing touches its buffers any more. */
ic_status_t ic_exec_progress(ic_exec_t *x, int *done);

/* Ends a run that has not finished (a timeout, a failed communicator):
 * cancels its transport requests in flight and records st (an error) as
 * its status.  Nothing touches the run's buffers afterwards.  A no-op for
 * a run that is not running. */
void ic_exec_cancel(ic_exec_t *x, ic_status_t st);

#endif
