/*
 * coll_run.c — one collective call from arguments to completion.
 *
 * Calls reuse the plans of earlier calls with the same arguments
 * (plan_cache.c), so a loop of identical calls, or of calls that cycle
 * through a few roots or sizes, plans once per distinct call and
 * allocates nothing; a caller that remembers a call (ic_coll_memo_t, the
 * MPI drop-in's memo) runs its cached plan again without the look-up
 * (ic_coll_run_again).  A blocking run is advanced once alone and, unless
 * that finished it, goes on the process's list of active runs
 * (run_list.c), which runs it to completion; the request handles of the
 * other forms are requests.c's.
 *
 * Threads (intercom.h): the runs and the transport are guarded by one
 * process-wide lock, ic_run_lock (run_list.c).  Planning (the expensive
 * part of a first call) runs outside the lock.
 */
#include "core/coll_internal.h"

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

/* Sequence numbers reserved by ic_coll_reserve, for this thread's next
 * start (ic_coll_use_seq): the next one and how many are left. */
static _Thread_local uint64_t use_seq;
static _Thread_local int use_left;

/* The sequence number of the next call this thread starts on comm: a
 * reserved one, or the communicator's next.  ic_run_lock held. */
uint64_t ic_coll_take_seq(ic_comm_t *comm)
{
    if (use_left > 0) {
        use_left--;
        return use_seq++;
    }
    return comm->seq++;
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
    ic_request_t *r = *rec ? ic_request_new() : NULL;
    if (!r) {
        ic_plan_release(&pl);
        free(*rec);
        *rec = NULL;
        return ic_set_error(IC_ERR_NO_MEM, "%s: out of memory", fn);
    }
    st = ic_exec_prepare(&r->x, &pl);
    if (st != IC_OK) {
        ic_request_put(r);
        free(*rec);
        *rec = NULL;
        return st;
    }
    r->comm = comm;
    uint32_t sig = ic_call_sig(a, c, comm->size);
    pthread_mutex_lock(&ic_run_lock);
    uint64_t seq = use_left > 0 ? use_seq : comm->seq; /* what take_seq gives next */
    ic_exec_start(&r->x, comm->t, comm->world, comm->id, seq, sig, ic_sizes_send_counts(a),
                  *rec);
    ic_run_activate(r);
    st = ic_run_wait(r);
    ic_request_destroy(r);
    pthread_mutex_unlock(&ic_run_lock);
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
    ic_request_t *r = ic_request_new();
    if (!r) {
        ic_plan_release(&pl);
        return ic_set_error(IC_ERR_NO_MEM, "%s: out of memory", fn);
    }
    st = ic_exec_prepare(&r->x, &pl);
    if (st != IC_OK) {
        ic_request_put(r);
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
    pthread_mutex_lock(&ic_run_lock);
    for (int i = 0; i < nseq; i++) {
        ic_set_error(st, "%s", why);
        ic_run_notify_members(comm, ic_coll_take_seq(comm), IC_NOTICE_CALL, IC_ERR_PEER_REJECTED);
    }
    pthread_mutex_unlock(&ic_run_lock);
    return ic_set_error(st, "%s", why);
}

uint64_t ic_coll_reserve(ic_comm_t *comm)
{
    pthread_mutex_lock(&ic_run_lock);
    uint64_t s = comm->seq;
    comm->seq += comm->check && comm->size > 1 ? 2 : 1;
    pthread_mutex_unlock(&ic_run_lock);
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
ic_status_t ic_coll_check_start(const char *fn, ic_comm_t *comm, const ic_coll_args_t *a)
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
    pthread_mutex_lock(&ic_run_lock);
    ic_exec_start(&r->x, comm->t, comm->world, comm->id, ic_coll_take_seq(comm), r->sig, &mine,
                  comm->check_buf);
    ic_run_activate(r);
    st = ic_run_wait(r);
    if (st == IC_OK)
        st = ic_fingerprints_compare(fn, comm->check_buf, comm->size);
    if (st == IC_ERR_MISMATCH || st == IC_ERR_PEER_REJECTED)
        (void)ic_coll_take_seq(comm); /* every rank skips the call */
    pthread_mutex_unlock(&ic_run_lock);
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

/* What m (a caller's memo, or NULL) keeps of a blocking run of r that ended
 * with st: r if it succeeded and stays cached.  ic_run_lock held. */
static void remember(ic_coll_memo_t *m, const char *fn, const ic_comm_t *comm, ic_request_t *r,
                     ic_status_t st)
{
    if (!m)
        return;
    m->r = st == IC_OK && r && r->cached && comm->cache_epoch[r->key.coll] != 0 ? r : NULL;
    m->coll = r ? r->key.coll : IC_COLL_BARRIER;
    m->epoch = r ? comm->cache_epoch[r->key.coll] : 0;
    m->fn = fn;
    m->algo = r ? r->algo : NULL;
}

/* True when a cached plan r may run with these buffers: neither is NULL
 * where r moves bytes, and they do not overlap (ic_call_check's buffer
 * rules, which the plan's key does not hold). */
static bool buffers_usable(const ic_request_t *r, const void *sendbuf, const void *recvbuf)
{
    return (r->send_bytes == 0 || sendbuf) && (r->recv_bytes == 0 || recvbuf) &&
           !ic_call_buffers_overlap(sendbuf, r->send_bytes, recvbuf, r->recv_bytes);
}

/* Starts r (a plan of comm, ic_run_lock held) and runs it to completion. */
static ic_status_t run_blocking(ic_comm_t *comm, ic_request_t *r, const void *sendbuf,
                                void *recvbuf)
{
    r->sendbuf = sendbuf;
    r->recvbuf = recvbuf;
    r->persistent = 0;
    ic_exec_start(&r->x, comm->t, comm->world, comm->id, ic_coll_take_seq(comm), r->sig, sendbuf,
                  recvbuf);
    return ic_run_blocking(r);
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
                       void *recvbuf, ic_status_t *st, ic_coll_memo_t *m)
{
    if ((unsigned)a->coll >= IC_COLL_COUNT ||
        (ic_coll_reduces(a->coll) && (!a->op || !ic_op_valid(a->op))))
        return false;
    if (ic_call_decode(fn, comm, a, &sendbuf, &recvbuf) != IC_OK)
        return false;
    pthread_mutex_lock(&ic_run_lock);
    ic_request_t *r = ic_plan_cache_take(comm, a, IC_MODE_BLOCKING);
    if (!r || !buffers_usable(r, sendbuf, recvbuf)) {
        pthread_mutex_unlock(&ic_run_lock);
        return false;
    }
    *st = run_blocking(comm, r, sendbuf, recvbuf);
    remember(m, fn, comm, r, *st);
    pthread_mutex_unlock(&ic_run_lock);
    *st = blocking_status(fn, *st);
    return true;
}

bool ic_coll_run_again(ic_comm_t *comm, const ic_coll_memo_t *m, const void *sendbuf,
                       void *recvbuf, ic_status_t *st)
{
    ic_request_t *r = m->r;
    if (!r || atomic_load_explicit(&comm->failed, memory_order_acquire) != IC_OK ||
        (comm->check && comm->size > 1))
        return false;
    /* ic_call_decode for the remembered call: its IC_IN_PLACE flags are
     * in the plan's key. */
    if (sendbuf == IC_IN_PLACE)
        sendbuf = NULL;
    if (recvbuf == IC_IN_PLACE)
        recvbuf = NULL;
    pthread_mutex_lock(&ic_run_lock);
    /* The epoch first: only a plan still cached may be looked at. */
    if (m->epoch != comm->cache_epoch[m->coll] || r->active ||
        !buffers_usable(r, sendbuf, recvbuf)) {
        pthread_mutex_unlock(&ic_run_lock);
        return false;
    }
    *st = run_blocking(comm, r, sendbuf, recvbuf);
    pthread_mutex_unlock(&ic_run_lock);
    *st = blocking_status(m->fn, *st);
    return true;
}

static ic_status_t coll_run(const char *fn, ic_comm_t *comm, ic_coll_args_t *a,
                            const void *sendbuf, void *recvbuf, ic_mode_t mode,
                            ic_request_t **req, ic_coll_memo_t *m)
{
    ic_status_t st = ic_comm_check(fn, comm);
    if (st != IC_OK)
        return st;
    if (atomic_load_explicit(&comm->failed, memory_order_acquire) != IC_OK)
        return ic_run_revoked(fn, comm);
    int checked = comm->check && mode != IC_MODE_PERSISTENT && comm->size > 1;
    if (m)
        m->r = NULL;
    if (mode == IC_MODE_BLOCKING && !checked && run_cached(fn, comm, a, sendbuf, recvbuf, &st, m))
        return st;
    st = check_call(fn, comm, a, &sendbuf, &recvbuf, mode, req);
    if (st != IC_OK)
        return reject(comm, mode, st, checked ? 2 : 1);
    if (checked) {
        st = ic_coll_check_start(fn, comm, a);
        if (st != IC_OK)
            return st;
    }
    /* ic_comm_set_algorithm drops the cache, so a cached plan still
     * follows the communicator's choice of algorithm. */
    ic_request_t *r = NULL;
    bool once = false; /* not cached: destroyed after its run */
    if (mode != IC_MODE_PERSISTENT) {
        pthread_mutex_lock(&ic_run_lock);
        r = ic_plan_cache_take(comm, a, mode);
        pthread_mutex_unlock(&ic_run_lock);
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
            pthread_mutex_lock(&ic_run_lock);
            ic_plan_cache_put(comm, r);
            pthread_mutex_unlock(&ic_run_lock);
        }
    }
    r->sendbuf = sendbuf;
    r->recvbuf = recvbuf;
    r->persistent = mode == IC_MODE_PERSISTENT;
    if (mode == IC_MODE_PERSISTENT) {
        *req = r;
        return IC_OK;
    }
    pthread_mutex_lock(&ic_run_lock);
    if (mode == IC_MODE_NONBLOCKING)
        r->home_gen = ic_plan_cache_gen(comm);
    ic_exec_start(&r->x, comm->t, comm->world, comm->id, ic_coll_take_seq(comm), r->sig, sendbuf,
                  recvbuf);
    ic_run_activate(r);
    if (mode == IC_MODE_NONBLOCKING) {
        pthread_mutex_unlock(&ic_run_lock);
        *req = r;
        return IC_OK;
    }
    st = ic_run_wait(r);
    if (once)
        ic_request_destroy(r);
    else if (!checked)
        remember(m, fn, comm, r, st);
    pthread_mutex_unlock(&ic_run_lock);
    return blocking_status(fn, st);
}

ic_status_t ic_coll_run(const char *fn, ic_comm_t *comm, ic_coll_args_t *a,
                        const void *sendbuf, void *recvbuf, ic_mode_t mode,
                        ic_request_t **req)
{
    return coll_run(fn, comm, a, sendbuf, recvbuf, mode, req, NULL);
}

ic_status_t ic_coll_run_memo(const char *fn, ic_comm_t *comm, ic_coll_args_t *a,
                             const void *sendbuf, void *recvbuf, ic_coll_memo_t *m)
{
    return coll_run(fn, comm, a, sendbuf, recvbuf, IC_MODE_BLOCKING, NULL, m);
}

void ic_comm_drop_cache(ic_comm_t *comm)
{
    ic_strategy_clear(comm);
    pthread_mutex_lock(&ic_run_lock);
    ic_plan_cache_clear(comm);
    ic_request_destroy(comm->check_req);
    comm->check_req = NULL;
    pthread_mutex_unlock(&ic_run_lock);
    free(comm->check_buf);
    comm->check_buf = NULL;
}
