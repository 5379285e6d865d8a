/*
 * coll_run.c — one collective call from arguments to completion.
 *
 * Calls reuse the plans of earlier calls with the same arguments
 * (plan_cache.c), so a loop of identical calls, or of calls that cycle
 * through a few roots or sizes, plans once per distinct call and
 * allocates nothing.  Every started run is on one process-wide list;
 * waiting on any request advances all of them, so requests of several
 * communicators never wait for each other.
 *
 * Threads (intercom.h): the list, every run's state and the transport are
 * guarded by one process-wide lock, run_lock, which is also the
 * transport's guard: its wait lets the lock go while it sleeps.  Planning
 * (the expensive part of a first call) runs outside the lock.  A thread
 * whose progress finishes another thread's request wakes the waiters.
 */
#include "core/coll_run.h"

#include "base/handles.h"
#include "base/status.h"
#include "core/call_args.h"
#include "core/check.h"
#include "core/plan_cache.h"
#include "core/strategy.h"
#include "algo/validate.h"
#include "select/catalog.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

/* Sequence numbers reserved by ic_coll_reserve, for this thread's next
 * start (ic_coll_use_seq): the next one and how many are left. */
static _Thread_local uint64_t use_seq;
static _Thread_local int use_left;

/* The sequence number of the next call this thread starts on comm: a
 * reserved one, or the communicator's next.  run_lock held. */
static uint64_t take_seq(ic_comm_t *comm)
{
    if (use_left > 0) {
        use_left--;
        return use_seq++;
    }
    return comm->seq++;
}
static ic_request_t *active_list; /* guarded by run_lock */
static int nwaiters;              /* threads in wait_one, guarded by run_lock */

pthread_mutex_t *ic_coll_guard(void)
{
    return &run_lock;
}

static void activate(ic_request_t *r)
{
    r->active = 1;
    r->next = active_list;
    active_list = r;
}

static void deactivate(ic_request_t *r)
{
    for (ic_request_t **p = &active_list; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    r->active = 0;
    r->next = NULL;
}

/* Requests live in a handle pool, so that ic_test, ic_wait, ic_start and
 * ic_request_free recognise a freed or garbage handle (base/handles.h). */
static ic_pool_t request_pool = IC_POOL_INIT("request", ic_request_t, 1);

/* IC_OK, or IC_ERR_ARG naming fn when r is not a live request of the
 * caller's (a completed nonblocking request's handle may be back in a
 * plan cache). */
static ic_status_t request_check(const char *fn, const ic_request_t *r)
{
    if (!ic_pool_live(&request_pool, r) || r->cached)
        return ic_set_error(IC_ERR_ARG,
                            "%s: req is not a valid request (completed and freed already, or "
                            "not an ic_request_t)",
                            fn);
    return IC_OK;
}

void ic_request_destroy(ic_request_t *r)
{
    if (!r)
        return;
    if (r->active)
        deactivate(r);
    ic_exec_release(&r->x);
    free(r->arrays);
    ic_pool_put(&request_pool, r);
}

/* The error of a call on a communicator that failed earlier. */
static ic_status_t revoked(const char *fn, const ic_comm_t *comm)
{
    return ic_set_error(IC_ERR_REVOKED,
                        "%s: the communicator failed in an earlier call (%s); every later "
                        "collective on it fails: free it (ic_comm_free / ic_finalize)",
                        fn, comm->failed_why);
}

/* Tells every other member of comm that this rank will not take part in
 * call seq (scope IC_NOTICE_CALL) or in any call of comm from seq on
 * (IC_NOTICE_COMM), with ic_last_error() as the reason.  run_lock held. */
static void notify_members(ic_comm_t *comm, uint64_t seq, int scope, ic_status_t status)
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
 * Called with run_lock held. */
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
        deactivate(r);
    }
    if (st != IC_ERR_REVOKED) { /* a revoked member has told everyone already */
        ic_set_error(st, "%s", comm->failed_why);
        notify_members(comm, seq, IC_NOTICE_COMM, IC_ERR_REVOKED);
    }
}

/* Ends run r with the error st (a timeout, a failed wait): cancels what it
 * has in flight and, unless another rank only rejected this one call
 * (IC_ERR_PEER_REJECTED: the communicator goes on), fails its
 * communicator.  run_lock held. */
static void run_fail(ic_request_t *r, ic_status_t st)
{
    ic_exec_cancel(&r->x, st);
    if (r->active)
        deactivate(r);
    if (st != IC_ERR_PEER_REJECTED)
        comm_fail(r->comm, st, r->x.key.seq);
}

/* The status of a run that is over, with its message when it was ended
 * because its communicator failed. */
static ic_status_t ended_status(const ic_request_t *r)
{
    if (r->x.status == IC_ERR_REVOKED)
        return revoked("collective", r->comm);
    return r->x.status;
}

/* Advances every active run once; returns the first error of `mine`.
 * A run that fails fails its communicator (comm_fail).  Called with
 * run_lock held. */
static ic_status_t progress_all(ic_request_t *mine, int *mine_done)
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
                deactivate(r);
            if (r != mine && nwaiters > 0 && r->comm->t) /* another thread may wait on r */
                r->comm->t->ops->wake(r->comm->t);
        }
    }
    if (mine && !mine->active && !*mine_done && st == IC_OK)
        st = ended_status(mine); /* finished in an earlier pass */
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
 * (without run_lock) that often. */
#define IDLE_HOOK_AFTER 2e-4
#define CLOCK_EVERY 4u

/* Runs r until it completes, fails, or the communicator's timeout
 * (IC_TIMEOUT) passes: a peer that hangs without dying.  Called with
 * run_lock held; the transport's wait lets it go while it sleeps. */
static ic_status_t wait_one(ic_request_t *r)
{
    if (!r->active)
        return ended_status(r);
    void (*hook)(void) = atomic_load(&idle_hook);
    double limit = r->comm->timeout, start = 0, now = 0, next_hook = 0;
    bool timed = limit > 0 || hook;
    ic_status_t st;
    nwaiters++;
    /* The clock is read only once the run has had to wait, and then on
     * every CLOCK_EVERY-th pass: most short calls never read it. */
    for (unsigned pass = 0;; pass++) {
        int done;
        st = progress_all(r, &done);
        if (st != IC_OK || done || !r->active)
            break;
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
            pthread_mutex_unlock(&run_lock);
            hook();
            pthread_mutex_lock(&run_lock);
            next_hook = now_s() + IDLE_HOOK_AFTER;
        }
    }
    nwaiters--;
    return st;
}

/* The size exchange of an all-to-allv entry that forwards blocks
 * (IC_ALGO_SIZES, catalog.h), run to completion now, under the sequence
 * number the call's data plan takes next (its tags are in a phase of their
 * own) and the call's signature.  *rec receives this rank's record
 * (malloc'd, *nrec counts; the caller frees it). */
static ic_status_t exchange_sizes(const char *fn, ic_comm_t *comm, const ic_coll_args_t *a,
                                  const ic_choice_t *c, size_t **rec, size_t *nrec)
{
    ic_plan_t pl;
    *rec = NULL;
    ic_status_t st = ic_plan_build_sizes(fn, a, comm->rank, comm->size, c, &pl);
    if (st != IC_OK)
        return st;
    size_t bytes = pl.buf_bytes[IC_BUF_RECV];
    *nrec = bytes / sizeof(size_t);
    *rec = malloc(bytes ? bytes : 1);
    ic_request_t *r = *rec ? ic_pool_get(&request_pool, NULL) : NULL;
    if (!r) {
        ic_plan_release(&pl);
        free(*rec);
        *rec = NULL;
        return ic_set_error(IC_ERR_NO_MEM, "%s: out of memory", fn);
    }
    st = ic_exec_prepare(&r->x, &pl);
    if (st != IC_OK) {
        ic_pool_put(&request_pool, r);
        free(*rec);
        *rec = NULL;
        return st;
    }
    r->comm = comm;
    uint32_t sig = ic_call_sig(a, c, comm->size);
    pthread_mutex_lock(&run_lock);
    uint64_t seq = use_left > 0 ? use_seq : comm->seq; /* what take_seq gives next */
    ic_exec_start(&r->x, comm->t, comm->world, comm->id, seq, sig, ic_sizes_send_counts(a),
                  *rec);
    activate(r);
    st = wait_one(r);
    ic_request_destroy(r);
    pthread_mutex_unlock(&run_lock);
    if (st != IC_OK) {
        free(*rec);
        *rec = NULL;
    }
    return st;
}

static ic_status_t plan_request(const char *fn, ic_comm_t *comm, const ic_coll_args_t *a,
                                ic_mode_t mode, ic_request_t **out)
{
    ic_plan_t pl;
    const ic_algo_t *forced;
    ic_status_t st = ic_catalog_force(fn, a, comm->size, comm->algo[a->coll], &forced);
    if (st != IC_OK)
        return st;
    ic_choice_t choice;
    ic_strategy_decide(comm, a, forced, &choice);
    ic_coll_args_t b = *a;
    size_t *rec = NULL;
    if (choice.al->flags & IC_ALGO_SIZES) {
        if (mode != IC_MODE_BLOCKING)
            return ic_set_error(IC_ERR_NOT_APPLICABLE,
                                "%s: %s/%s exchanges the counts before it can plan the call, "
                                "so it runs blocking calls only (pairwise and aap run "
                                "nonblocking and persistent ones)",
                                fn, ic_coll_name(a->coll), choice.al->name);
        st = exchange_sizes(fn, comm, a, &choice, &rec, &b.nfwd_sizes);
        if (st != IC_OK)
            return st;
        b.fwd_sizes = rec;
    }
    st = ic_plan_build_choice(fn, &b, comm->rank, comm->size, &choice, &pl);
    free(rec);
    if (st != IC_OK)
        return st;
    ic_request_t *r = ic_pool_get(&request_pool, NULL);
    if (!r) {
        ic_plan_release(&pl);
        return ic_set_error(IC_ERR_NO_MEM, "%s: out of memory", fn);
    }
    st = ic_exec_prepare(&r->x, &pl);
    if (st != IC_OK) {
        ic_pool_put(&request_pool, r);
        return st;
    }
    r->comm = comm;
    ic_args_buffer_bytes(a, comm->rank, comm->size, &r->send_bytes, &r->recv_bytes);
    r->sig = ic_call_sig(a, &choice, comm->size);
    r->algo = choice.al->name;
    if (ic_plan_key_copy(r, a, comm->size)) {
        ic_request_destroy(r);
        return ic_set_error(IC_ERR_NO_MEM, "%s: out of memory", fn);
    }
    *out = r;
    return IC_OK;
}

/* Checks the call's arguments on this rank, decodes IC_IN_PLACE. */
static ic_status_t check_call(const char *fn, ic_comm_t *comm, ic_coll_args_t *a,
                              const void **sendbuf, void **recvbuf, ic_mode_t mode,
                              ic_request_t **req)
{
    if (mode != IC_MODE_BLOCKING && !req)
        return ic_set_error(IC_ERR_ARG, "%s: req is NULL", fn);
    ic_status_t st = ic_call_decode(fn, comm, a, sendbuf, recvbuf);
    return st != IC_OK ? st : ic_call_check(fn, comm, a, *sendbuf, *recvbuf);
}

/* A call this rank rejects (its arguments, or it could not plan it) still
 * uses up its sequence number, and the other members are told at once:
 * their run of the same call fails with IC_ERR_PEER_REJECTED naming this
 * rank and the reason instead of waiting for it, and the next call
 * matches on every rank.  A persistent request's planning uses no
 * sequence number (ic_start does). */
static ic_status_t reject(ic_comm_t *comm, ic_mode_t mode, ic_status_t st, int nseq)
{
    if (mode == IC_MODE_PERSISTENT)
        return st;
    char why[IC_NOTICE_TEXT_MAX];
    snprintf(why, sizeof why, "%s", ic_last_error());
    pthread_mutex_lock(&run_lock);
    for (int i = 0; i < nseq; i++) {
        ic_set_error(st, "%s", why);
        notify_members(comm, take_seq(comm), IC_NOTICE_CALL, IC_ERR_PEER_REJECTED);
    }
    pthread_mutex_unlock(&run_lock);
    return ic_set_error(st, "%s", why);
}

uint64_t ic_coll_reserve(ic_comm_t *comm)
{
    pthread_mutex_lock(&run_lock);
    uint64_t s = comm->seq;
    comm->seq += comm->check && comm->size > 1 ? 2 : 1;
    pthread_mutex_unlock(&run_lock);
    return s;
}

void ic_coll_use_seq(const ic_comm_t *comm, uint64_t seq)
{
    use_seq = seq;
    use_left = comm->check && comm->size > 1 ? 2 : 1;
}

void ic_coll_use_seq_end(void)
{
    use_left = 0;
}

ic_status_t ic_coll_reject(ic_comm_t *comm, ic_status_t st)
{
    if (!ic_comm_valid(comm) || atomic_load(&comm->failed) != IC_OK)
        return st;
    return reject(comm, IC_MODE_BLOCKING, st, comm->check && comm->size > 1 ? 2 : 1);
}

const char *ic_request_algo(const ic_request_t *req, const ic_comm_t *comm, ic_coll_t coll)
{
    if (req)
        return req->algo;
    if (!comm || (unsigned)coll >= IC_COLL_COUNT || !comm->cache[coll][0])
        return NULL;
    return comm->cache[coll][0]->algo;
}

/* IC_CHECK (check.c): allgathers the call's fingerprint with sequence
 * number s and compares; the call itself then runs as s + 1.  When the
 * exchange fails because a rank rejected the call, or the fingerprints
 * differ, every rank also skips s + 1, so the next call matches and the
 * communicator goes on. */
static ic_status_t run_check(const char *fn, ic_comm_t *comm, const ic_coll_args_t *a)
{
    ic_status_t st = IC_OK;
    if (!comm->check_req) {
        ic_coll_args_t g = {0};
        g.coll = IC_COLL_ALLGATHER;
        g.dtype = IC_BYTE;
        g.count = sizeof(ic_fingerprint_t);
        g.model = comm->model;
        comm->check_buf = malloc(sizeof(ic_fingerprint_t) * (size_t)comm->size);
        st = comm->check_buf ? plan_request(fn, comm, &g, IC_MODE_BLOCKING, &comm->check_req)
                             : ic_set_error(IC_ERR_NO_MEM, "%s: IC_CHECK: out of memory", fn);
        if (st != IC_OK)
            return st;
    }
    ic_fingerprint_t mine;
    ic_fingerprint_of(comm, a, &mine);
    ic_request_t *r = comm->check_req;
    pthread_mutex_lock(&run_lock);
    ic_exec_start(&r->x, comm->t, comm->world, comm->id, take_seq(comm), r->sig, &mine,
                  comm->check_buf);
    activate(r);
    st = wait_one(r);
    if (st == IC_OK)
        st = ic_fingerprints_compare(fn, comm->check_buf, comm->size);
    if (st == IC_ERR_MISMATCH || st == IC_ERR_PEER_REJECTED)
        (void)take_seq(comm); /* every rank skips the call */
    pthread_mutex_unlock(&run_lock);
    return st;
}

/* Ends a blocking run: its error, with the call named in front of the
 * transport's message. */
static ic_status_t blocking_status(const char *fn, ic_status_t st)
{
    if (st == IC_OK)
        return IC_OK;
    char why[400];
    snprintf(why, sizeof why, "%s", ic_last_error()[0] ? ic_last_error() : ic_status_string(st));
    return ic_set_error(st, "%s: %s", fn, why);
}

/* The way of a blocking call whose plan is cached.  A hit means that the
 * arguments equal, field for field, those of an earlier call on this rank
 * that passed ic_call_check (the cache key holds them: collective, datatype,
 * op id, root, count, IC_IN_PLACE, the count and displacement arrays), so
 * of ic_call_check only what the key does not hold is done again: the op's
 * handle (before the key comparison reads it) and the buffers.  Returns
 * false, having run nothing, on a miss or on anything unusual: the full
 * way then checks (and reports) everything. */
static bool run_cached(const char *fn, ic_comm_t *comm, ic_coll_args_t *a, const void *sendbuf,
                       void *recvbuf, ic_status_t *st)
{
    if ((unsigned)a->coll >= IC_COLL_COUNT ||
        (ic_coll_reduces(a->coll) && (!a->op || !ic_op_valid(a->op))))
        return false;
    if (ic_call_decode(fn, comm, a, &sendbuf, &recvbuf) != IC_OK)
        return false;
    pthread_mutex_lock(&run_lock);
    ic_request_t *r = ic_plan_cache_take(comm, a, IC_MODE_BLOCKING);
    if (!r || (r->send_bytes > 0 && !sendbuf) || (r->recv_bytes > 0 && !recvbuf) ||
        ic_call_buffers_overlap(sendbuf, r->send_bytes, recvbuf, r->recv_bytes)) {
        pthread_mutex_unlock(&run_lock);
        return false;
    }
    r->sendbuf = sendbuf;
    r->recvbuf = recvbuf;
    r->persistent = 0;
    ic_exec_start(&r->x, comm->t, comm->world, comm->id, take_seq(comm), r->sig, sendbuf,
                  recvbuf);
    activate(r);
    *st = wait_one(r);
    pthread_mutex_unlock(&run_lock);
    *st = blocking_status(fn, *st);
    return true;
}

ic_status_t ic_coll_run(const char *fn, ic_comm_t *comm, ic_coll_args_t *a,
                        const void *sendbuf, void *recvbuf, ic_mode_t mode,
                        ic_request_t **req)
{
    ic_status_t st = ic_comm_check(fn, comm);
    if (st != IC_OK)
        return st;
    if (atomic_load_explicit(&comm->failed, memory_order_acquire) != IC_OK)
        return revoked(fn, comm);
    int checked = comm->check && mode != IC_MODE_PERSISTENT && comm->size > 1;
    if (mode == IC_MODE_BLOCKING && !checked && run_cached(fn, comm, a, sendbuf, recvbuf, &st))
        return st;
    st = check_call(fn, comm, a, &sendbuf, &recvbuf, mode, req);
    if (st != IC_OK)
        return reject(comm, mode, st, checked ? 2 : 1);
    if (checked) {
        st = run_check(fn, comm, a);
        if (st != IC_OK)
            return st;
    }
    /* ic_comm_set_algorithm drops the cache, so a cached plan still
     * follows the communicator's choice of algorithm. */
    ic_request_t *r = NULL;
    bool once = false; /* not cached: destroyed after its run */
    if (mode != IC_MODE_PERSISTENT) {
        pthread_mutex_lock(&run_lock);
        r = ic_plan_cache_take(comm, a, mode);
        pthread_mutex_unlock(&run_lock);
    }
    if (!r) {
        st = plan_request(fn, comm, a, mode, &r);
        if (st != IC_OK)
            return reject(comm, mode, st, 1);
        /* A plan built from a size exchange depends on the other ranks'
         * counts, which the cache key does not hold: it runs once. */
        const ic_algo_t *al = ic_catalog_find(a->coll, r->algo);
        once = al && (al->flags & IC_ALGO_SIZES);
        if (mode == IC_MODE_BLOCKING && !once) {
            pthread_mutex_lock(&run_lock);
            ic_plan_cache_put(comm, r);
            pthread_mutex_unlock(&run_lock);
        }
    }
    r->sendbuf = sendbuf;
    r->recvbuf = recvbuf;
    r->persistent = mode == IC_MODE_PERSISTENT;
    if (mode == IC_MODE_PERSISTENT) {
        *req = r;
        return IC_OK;
    }
    pthread_mutex_lock(&run_lock);
    if (mode == IC_MODE_NONBLOCKING)
        r->home_gen = ic_plan_cache_gen(comm);
    ic_exec_start(&r->x, comm->t, comm->world, comm->id, take_seq(comm), r->sig, sendbuf,
                  recvbuf);
    activate(r);
    if (mode == IC_MODE_NONBLOCKING) {
        pthread_mutex_unlock(&run_lock);
        *req = r;
        return IC_OK;
    }
    st = wait_one(r);
    if (once)
        ic_request_destroy(r);
    pthread_mutex_unlock(&run_lock);
    return blocking_status(fn, st);
}

void ic_comm_drop_cache(ic_comm_t *comm)
{
    ic_strategy_clear(comm);
    pthread_mutex_lock(&run_lock);
    ic_plan_cache_clear(comm);
    ic_request_destroy(comm->check_req);
    comm->check_req = NULL;
    pthread_mutex_unlock(&run_lock);
    free(comm->check_buf);
    comm->check_buf = NULL;
}

ic_status_t ic_start(ic_request_t *req)
{
    if (!req)
        return ic_set_error(IC_ERR_ARG, "ic_start: req is NULL");
    ic_status_t vst = request_check("ic_start", req);
    if (vst != IC_OK)
        return vst;
    if (!req->persistent)
        return ic_set_error(IC_ERR_ARG, "ic_start: req is not a persistent request");
    if (atomic_load_explicit(&req->comm->failed, memory_order_acquire) != IC_OK)
        return revoked("ic_start", req->comm);
    if (req->comm->check && req->comm->size > 1 && !req->active) {
        ic_status_t st = run_check("ic_start", req->comm, &req->key);
        if (st != IC_OK)
            return st;
    }
    pthread_mutex_lock(&run_lock);
    int active = req->active;
    if (!active) {
        ic_comm_t *c = req->comm;
        ic_exec_start(&req->x, c->t, c->world, c->id, take_seq(c), req->sig, req->sendbuf,
                      req->recvbuf);
        activate(req);
    }
    pthread_mutex_unlock(&run_lock);
    if (active)
        return ic_set_error(IC_ERR_ARG, "ic_start: req is still active");
    return IC_OK;
}

ic_status_t ic_test(ic_request_t **req, int *flag)
{
    if (!req || !flag)
        return ic_set_error(IC_ERR_ARG, "ic_test: %s is NULL", req ? "flag" : "req");
    *flag = 0;
    ic_request_t *r = *req;
    if (!r) {
        *flag = 1;
        return IC_OK;
    }
    ic_status_t vst = request_check("ic_test", r);
    if (vst != IC_OK)
        return vst;
    int done = 0;
    pthread_mutex_lock(&run_lock);
    ic_status_t st = r->active ? progress_all(r, &done) : ended_status(r);
    int finished = st != IC_OK || done || !r->active;
    if (finished && !r->persistent) {
        ic_plan_cache_return(r, st);
        *req = NULL;
    }
    pthread_mutex_unlock(&run_lock);
    *flag = finished;
    return st;
}

ic_status_t ic_wait(ic_request_t **req)
{
    if (!req)
        return ic_set_error(IC_ERR_ARG, "ic_wait: req is NULL");
    ic_request_t *r = *req;
    if (!r)
        return IC_OK;
    ic_status_t vst = request_check("ic_wait", r);
    if (vst != IC_OK)
        return vst;
    pthread_mutex_lock(&run_lock);
    ic_status_t st = wait_one(r);
    if (!r->persistent) {
        ic_plan_cache_return(r, st);
        *req = NULL;
    }
    pthread_mutex_unlock(&run_lock);
    return st;
}

ic_status_t ic_waitall(int n, ic_request_t **reqs)
{
    if (n < 0 || (n > 0 && !reqs))
        return ic_set_error(IC_ERR_ARG, "ic_waitall: reqs is NULL or n < 0");
    ic_status_t first = IC_OK;
    for (int i = 0; i < n; i++) {
        ic_status_t st = ic_wait(&reqs[i]);
        if (first == IC_OK)
            first = st;
    }
    return first;
}

ic_status_t ic_request_free(ic_request_t **req)
{
    if (!req || !*req)
        return ic_set_error(IC_ERR_ARG, "ic_request_free: req is NULL");
    ic_status_t vst = request_check("ic_request_free", *req);
    if (vst != IC_OK)
        return vst;
    pthread_mutex_lock(&run_lock);
    int active = (*req)->active;
    if (!active) {
        ic_request_destroy(*req);
        *req = NULL;
    }
    pthread_mutex_unlock(&run_lock);
    if (active)
        return ic_set_error(IC_ERR_ARG, "ic_request_free: the request is still active");
    return IC_OK;
}
