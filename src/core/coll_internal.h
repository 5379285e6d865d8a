/*
 * coll_internal.h — what the three parts of a collective call share
 * inside src/core: coll_run.c (checking, planning and starting a call),
 * run_list.c (the process's active runs: progress, waiting, failure) and
 * requests.c (the request handles of the nonblocking and persistent
 * forms).  Not part of any public or cross-directory interface.
 */
#ifndef IC_CORE_COLL_INTERNAL_H
#define IC_CORE_COLL_INTERNAL_H

#include "core/coll_run.h"

/* The process-wide progress lock (ic_coll_guard returns it). */
extern pthread_mutex_t ic_run_lock;

/* run_list.c; all with ic_run_lock held. */
void ic_run_activate(ic_request_t *r);   /* puts a started run on the active list */
void ic_run_deactivate(ic_request_t *r); /* takes it off */
/* Advances every active run once; returns the first error of mine and
 * sets *mine_done.  A run that fails fails its communicator. */
ic_status_t ic_run_progress_all(ic_request_t *mine, int *mine_done);
/* Runs r until it completes, fails, or the communicator's IC_TIMEOUT passes. */
ic_status_t ic_run_wait(ic_request_t *r);
/* ic_run_wait of a blocking run just started and not on the list: r is
 * advanced alone first, and a run that ends there (its messages all left
 * at once: a gather's non-root, a 2-rank broadcast's root) never joins the
 * list; else it joins and waits. */
ic_status_t ic_run_blocking(ic_request_t *r);
/* The status of a run that is over. */
ic_status_t ic_run_ended_status(const ic_request_t *r);
/* Tells every other member of comm that this rank will not take part in
 * call seq (IC_NOTICE_CALL) or in any call from seq on (IC_NOTICE_COMM). */
void ic_run_notify_members(ic_comm_t *comm, uint64_t seq, int scope, ic_status_t status);
/* The error of a call (fn) on a communicator that failed earlier (no lock needed). */
ic_status_t ic_run_revoked(const char *fn, const ic_comm_t *comm);

/* coll_run.c */
/* The sequence number of the next call this thread starts on comm.  ic_run_lock held. */
uint64_t ic_coll_take_seq(ic_comm_t *comm);
/* IC_CHECK's agreement check before a call (or an ic_start) runs. */
ic_status_t ic_coll_check_start(const char *fn, ic_comm_t *comm, const ic_coll_args_t *a);

/* requests.c: a request from the handle pool, zeroed (NULL if out of
 * memory), and the return of one that was never prepared. */
ic_request_t *ic_request_new(void);
void ic_request_put(ic_request_t *r);

#endif
