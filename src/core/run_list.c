/*
 * run_list.c — the process's active runs: progress, waiting, failure.
 *
 * Every started run is on one process-wide list; waiting on any request
 * advances all of them, so requests of several communicators never wait
 * for each other.  The list, every run's state and the transport are
 * guarded by one process-wide lock, ic_run_lock, which is also the
 * transport's guard: its wait lets the lock go while it sleeps.  A thread
 * whose progress finishes another thread's request wakes the waiters.  A
 * run that fails fails its communicator, and the other members are told.
 */
#include "core/coll_internal.h"

#include "base/status.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

pthread_mutex_t ic_run_lock = PTHREAD_MUTEX_INITIALIZER;
static ic_request_t *active_list; /* guarded by ic_run_lock */
static int nwaiters;              /* threads in ic_run_wait, guarded by ic_run_lock */

pthread_mutex_t *ic_coll_guard(void)
{
    return &ic_run_lock;
}

void ic_run_activate(ic_request_t *r)
{
    r->active = 1;
    r->next = active_list;
    active_list = r;
}

void ic_run_deactivate(ic_request_t *r)
{
    for (ic_request_t **p = &active_list; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    r->active = 0;
    r->next = NULL;
}

/* The error of a call on a communicator that failed earlier. */
ic_status_t ic_run_revoked(const char *fn, const ic_comm_t *comm)
{
    return ic_set_error(IC_ERR_REVOKED,
                        "%s: the communicator failed in an earlier call (%s); every later "
                        "collective on it fails: free it (ic_comm_free / ic_finalize)",
                        fn, comm->failed_why);
}

/* Tells every other member of comm that this rank will not take part in
 * call seq (scope IC_NOTICE_CALL) or in any call of comm from seq on
 * (IC_NOTICE_COMM), with ic_last_error() as the reason.  ic_run_lock held. */
void ic_run_notify_members(ic_comm_t *comm, uint64_t seq, int scope, ic_status_t status)
{
    ic_transport_t *t = comm->t;
    if (!t)
        return;
    char why[IC_NOTICE_TEXT_MAX];
    snprintf(why, sizeof why, "%s", ic_last_error());
    ic_match_key_t key = {comm->id, seq, 0, 0};
    for (int i = 0; i < comm->size; i++)
        if (i != comm->rank)
            t->ops->notify(t, comm->world[i], key, scope, status, why);
    ic_set_error(status, "%s", why); /* the reason stays the last error */
}

/* Marks comm failed with st (ic_last_error() is its message), ends every
 * other run of comm in flight with IC_ERR_REVOKED, cancelling their
 * transport requests, and tells the other members (from call seq on).
 * Called with ic_run_lock held. */
static void comm_fail(ic_comm_t *comm, ic_status_t st, uint64_t seq)
{
    if (atomic_load_explicit(&comm->failed, memory_order_relaxed) != IC_OK)
        return;
    snprintf(comm->failed_why, sizeof comm->failed_why, "%s: %s", ic_status_string(st),
             ic_last_error()[0] ? ic_last_error() : "no message");
    atomic_store_explicit(&comm->failed, st, memory_order_release);
    for (ic_request_t *r = active_list, *next; r; r = next) {
        next = r->next;
        if (r->comm != comm)
            continue;
        ic_exec_cancel(&r->x, IC_ERR_REVOKED);
        ic_run_deactivate(r);
    }
    if (st != IC_ERR_REVOKED) { /* a revoked member has told everyone already */
        ic_set_error(st, "%s", comm->failed_why);
        ic_run_notify_members(comm, seq, IC_NOTICE_COMM, IC_ERR_REVOKED);
    }
}

/* Ends run r with the error st (a timeout, a failed wait): cancels what it
 * has in flight and, unless another rank only rejected this one call
 * (IC_ERR_PEER_REJECTED: the communicator goes on), fails its
 * communicator.  ic_run_lock held. */
static void run_fail(ic_request_t *r, ic_status_t st)
{
    ic_exec_cancel(&r->x, st);
    if (r->active)
        ic_run_deactivate(r);
    if (st != IC_ERR_PEER_REJECTED)
        comm_fail(r->comm, st, r->x.key.seq);
}

/* The status of a run that is over, with its message when it was ended
 * because its communicator failed. */
ic_status_t ic_run_ended_status(const ic_request_t *r)
{
    if (r->x.status == IC_ERR_REVOKED)
        return ic_run_revoked("collective", r->comm);
    return r->x.status;
}

/* Advances every active run once; returns the first error of `mine`.
 * A run that fails fails its communicator (comm_fail).  Called with
 * ic_run_lock held. */
ic_status_t ic_run_progress_all(ic_request_t *mine, int *mine_done)
{
    ic_status_t st = IC_OK;
    *mine_done = 0;
    for (ic_request_t *r = active_list, *next; r; r = next) {
        next = r->next;
        int done = 0;
        ic_status_t s = ic_exec_progress(&r->x, &done);
        if (r == mine) {
            st = s;
            *mine_done = done;
        }
        if (done || s != IC_OK) {
            if (s != IC_OK)
                run_fail(r, s);
            else
                ic_run_deactivate(r);
            if (r != mine && nwaiters > 0 && r->comm->t) /* another thread may wait on r */
                r->comm->t->ops->wake(r->comm->t);
        }
    }
    if (mine && !mine->active && !*mine_done && st == IC_OK)
        st = ic_run_ended_status(mine); /* finished in an earlier pass */
    return st;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void (*_Atomic idle_hook)(void);

void ic_coll_set_idle_hook(void (*fn)(void))
{
    atomic_store(&idle_hook, fn);
}

/* A wait that has lasted IDLE_HOOK_AFTER seconds calls the idle hook
 * (without ic_run_lock) that often. */
#define IDLE_HOOK_AFTER 2e-4
#define CLOCK_EVERY 4u

/* Runs r until it completes, fails, or the communicator's timeout
 * (IC_TIMEOUT) passes: a peer that hangs without dying.  Called with
 * ic_run_lock held; the transport's wait lets it go while it sleeps.
 * advanced: r has just been advanced, so the first pass waits first. */
static ic_status_t run_wait(ic_request_t *r, bool advanced)
{
    if (!r->active)
        return ic_run_ended_status(r);
    void (*hook)(void) = atomic_load(&idle_hook);
    double limit = r->comm->timeout, start = 0, now = 0, next_hook = 0;
    bool timed = limit > 0 || hook;
    ic_status_t st = IC_OK;
    nwaiters++;
    /* The clock is read only once the run has had to wait, and then on
     * every CLOCK_EVERY-th pass: most short calls never read it. */
    for (unsigned pass = 0;; pass++) {
        if (pass > 0 || !advanced) {
            int done;
            st = ic_run_progress_all(r, &done);
            if (st != IC_OK || done || !r->active)
                break;
        }
        if (timed && pass % CLOCK_EVERY == 1) {
            now = now_s();
            if (pass == 1) {
                start = now;
                next_hook = now + IDLE_HOOK_AFTER;
            }
        }
        if (limit > 0 && pass > 1 && now - start > limit) {
            st = ic_set_error(IC_ERR_TIMEOUT, "not finished after %.1f s (IC_TIMEOUT)", limit);
            run_fail(r, st);
            break;
        }
        ic_transport_t *t = r->comm->t;
        if (t) {
            st = t->ops->wait(t, 0.005);
            if (st != IC_OK) {
                run_fail(r, st);
                break;
            }
        }
        if (hook && pass > 1 && pass % CLOCK_EVERY == 1 && now >= next_hook) {
            pthread_mutex_unlock(&ic_run_lock);
            hook();
            pthread_mutex_lock(&ic_run_lock);
            next_hook = now_s() + IDLE_HOOK_AFTER;
        }
    }
    nwaiters--;
    return st;
}

ic_status_t ic_run_wait(ic_request_t *r)
{
    return run_wait(r, false);
}

ic_status_t ic_run_blocking(ic_request_t *r)
{
    int done = 0;
    ic_status_t st = ic_exec_progress(&r->x, &done);
    if (st != IC_OK) {
        run_fail(r, st);
        return st;
    }
    if (done)
        return IC_OK;
    ic_run_activate(r);
    return run_wait(r, true);
}
