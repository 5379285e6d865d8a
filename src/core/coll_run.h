/*
 * coll_run.h — checking, planning and running one collective call, and the
 * requests of the nonblocking and persistent forms.
 */
#ifndef IC_CORE_COLL_RUN_H
#define IC_CORE_COLL_RUN_H

#include "algo/coll_args.h"
#include "core/comm.h"
#include "plan/exec.h"

#include <pthread.h>

typedef enum ic_mode { IC_MODE_BLOCKING, IC_MODE_NONBLOCKING, IC_MODE_PERSISTENT } ic_mode_t;

struct ic_request {
    ic_exec_t x;            /* the prepared plan and its run state */
    ic_comm_t *comm;
    const void *sendbuf;
    void *recvbuf;
    ic_coll_args_t key;     /* arguments the plan was built for (cache) */
    size_t *arrays;         /* owned copies of key's count/displacement arrays */
    uint32_t sig;           /* the call's signature, carried by its messages */
    int persistent, active;
    struct ic_request *next; /* in the process's list of active requests */
};

/* Checks the call (fn names it in messages), decodes IC_IN_PLACE, plans it
 * and runs it: to completion (blocking), or returns a started request
 * (nonblocking) or an inactive one (persistent). */
ic_status_t ic_coll_run(const char *fn, ic_comm_t *comm, ic_coll_args_t *a,
                        const void *sendbuf, void *recvbuf, ic_mode_t mode,
                        ic_request_t **req);

/* The process-wide progress lock: it guards the active runs and is every
 * transport's guard (transport.h). */
pthread_mutex_t *ic_coll_guard(void);

/* Frees a communicator's cached plans (called by ic_comm_free). */
void ic_comm_drop_cache(ic_comm_t *comm);

#endif
