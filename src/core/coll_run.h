/*
 * coll_run.h — checking, planning and running one collective call
 * (coll_run.c, run_list.c), and the requests of the nonblocking and
 * persistent forms (requests.c).
 */
#ifndef IC_CORE_COLL_RUN_H
#define IC_CORE_COLL_RUN_H

#include "algo/coll_args.h"
#include "core/comm.h"
#include "plan/exec.h"

#include <pthread.h>
#include <stdbool.h>

typedef enum ic_mode { IC_MODE_BLOCKING, IC_MODE_NONBLOCKING, IC_MODE_PERSISTENT } ic_mode_t;

struct ic_request {
    ic_exec_t x;            /* the prepared plan and its run state */
    ic_comm_t *comm;
    const void *sendbuf;
    void *recvbuf;
    ic_coll_args_t key;     /* arguments the plan was built for (cache) */
    size_t send_bytes, recv_bytes; /* what the call reads and writes on this rank */
    size_t *arrays;         /* owned copies of key's count/displacement arrays */
    uint32_t sig;           /* the call's signature, carried by its messages */
    const char *algo;       /* the chosen catalog entry's name */
    int persistent, active;
    int cached;             /* held by its communicator's plan cache, not by the caller */
    uint64_t home_gen;      /* nonblocking: the cache generation it returns to when it
                             * completes (plan_cache.c), or 0 */
    struct ic_request *next; /* in the process's list of active requests */
};

/* Checks the call (fn names it in messages), decodes IC_IN_PLACE, plans it
 * and runs it: to completion (blocking), or returns a started request
 * (nonblocking) or an inactive one (persistent). */
ic_status_t ic_coll_run(const char *fn, ic_comm_t *comm, ic_coll_args_t *a,
                        const void *sendbuf, void *recvbuf, ic_mode_t mode,
                        ic_request_t **req);

/* Destroys a request that is not the caller's any more (deactivating it
 * if it runs).  Progress lock held. */
void ic_request_destroy(ic_request_t *r);

/* The process-wide progress lock: it guards the active runs and is every
 * transport's guard (transport.h). */
pthread_mutex_t *ic_coll_guard(void);

/* A blocking call its caller remembers (the MPI drop-in's memo of its
 * last calls, src/mpi_shim/memo.c): the cached plan it ran, the epoch of
 * its collective's ways in the cache then (unique in the process; it
 * changes whenever they lose or gain a plan), the public name and the
 * algorithm.  r is good while that epoch is still epoch. */
typedef struct ic_coll_memo {
    struct ic_request *r;   /* NULL: nothing remembered */
    uint64_t epoch;
    ic_coll_t coll;
    const char *fn, *algo;
} ic_coll_memo_t;

/* ic_coll_run of a blocking call that also fills *m when the call ran a
 * plan that stays cached (else m->r = NULL). */
ic_status_t ic_coll_run_memo(const char *fn, ic_comm_t *comm, ic_coll_args_t *a,
                             const void *sendbuf, void *recvbuf, ic_coll_memo_t *m);
/* Runs the plan m remembers again, blocking, with new buffers (IC_IN_PLACE
 * where that call had it): the call ic_coll_run would run for arguments
 * equal to that call's, without looking them up.  The caller vouches that
 * the arguments but the buffers are those of the remembered call.  Returns
 * false, having done nothing, when the plan is no longer cached, the
 * communicator failed or checks its calls (IC_CHECK), or a buffer is NULL
 * or overlapping: the caller then takes the full way, which reports it. */
bool ic_coll_run_again(ic_comm_t *comm, const ic_coll_memo_t *m, const void *sendbuf,
                       void *recvbuf, ic_status_t *st);

/* The catalog entry that ran (or runs) a call: of request req, or, with
 * req NULL, of comm's last blocking call of coll (NULL if none). */
const char *ic_request_algo(const ic_request_t *req, const ic_comm_t *comm, ic_coll_t coll);

/* Rejects one call on comm without running it (st and ic_last_error()
 * are the reason), as a call with bad arguments is rejected: it uses up
 * its sequence number and the other members' run of it fails with
 * IC_ERR_PEER_REJECTED.  Returns st.  (The MPI drop-in's own argument
 * checks.) */
ic_status_t ic_coll_reject(ic_comm_t *comm, ic_status_t st);

/* Reserves the sequence numbers of one call on comm now, to be started
 * later (the MPI drop-in's scatterv/gatherv, whose plan waits for the
 * root's counts, keep their place among comm's calls): returns the first.
 * ic_coll_use_seq(comm, s) makes this thread's next start on comm (a
 * nonblocking call, ic_start, or a rejection) run as that call;
 * ic_coll_use_seq_end() clears what the start did not use. */
uint64_t ic_coll_reserve(ic_comm_t *comm);
void ic_coll_use_seq(const ic_comm_t *comm, uint64_t seq);
void ic_coll_use_seq_end(void);

/* A function that blocking waits call (without the progress lock) once
 * they have waited 0.2 ms, and then every 0.2 ms: the MPI drop-in keeps
 * MPI's own progress and its staged requests moving with it while a rank
 * sits in a blocking intercom call.  NULL: none. */
void ic_coll_set_idle_hook(void (*fn)(void));

/* Frees a communicator's cached plans (called by ic_comm_free). */
void ic_comm_drop_cache(ic_comm_t *comm);

#endif
