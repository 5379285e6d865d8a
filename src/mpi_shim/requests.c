/*
 * requests.c — served nonblocking and persistent collectives as MPI
 * requests.
 *
 * The caller's MPI_Request is a real MPI request: a zero-byte receive on
 * a private duplicate of MPI_COMM_SELF with a tag of its own (MPI_Irecv
 * for MPI_I<coll>, MPI_Recv_init for MPI_<Coll>_init).  When intercom's
 * call ends, the drop-in sends the matching zero-byte message to itself,
 * so MPI completes the request, and every MPI function that waits for,
 * tests, starts or frees requests keeps MPI's exact semantics, also for
 * arrays that mix these with point-to-point requests.  What the drop-in
 * adds (the wrappers below): before and between MPI's tests it advances
 * intercom's calls (shim_progress), and it reports an intercom failure
 * as the request's error.
 *
 * Stages of a request: COUNTS (scatterv/gatherv: the root's counts are
 * being broadcast; the main call's sequence number is reserved so that
 * calls started meanwhile keep their order), RUN (intercom's call in
 * flight), then done.  A persistent request goes back to IDLE.
 *
 * While any request is in flight, blocking MPI calls that wait (MPI_Recv,
 * MPI_Send, collectives that fall back, ...) wait here (shim_block), and
 * blocking intercom calls call shim_idle from their waits, so that
 * intercom's and MPI's pending operations progress whichever kind of
 * call the program blocks in (MPI's progress rule).
 */
#include "mpi_shim/exec.h"

#include "core/coll_run.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { S_IDLE, S_COUNTS, S_RUN };

typedef struct shim_req {
    shim_exec_t x;
    MPI_Request mpi; /* the caller's handle */
    int tag, stage, persistent, reserved;
    int orphan;      /* persistent, freed by the caller while active */
    int pmpi;        /* a persistent fall-back: each start runs MPI's own
                      * nonblocking form (fallback.c) in preq */
    MPI_Request preq;
    uint64_t seq;    /* the main call's reserved sequence number */
    ic_request_t *ic, *cnt;
    int fail;        /* MPI error code of the last run, or MPI_SUCCESS */
    struct shim_req *next; /* in the active list */
    struct shim_req *pnext; /* in the persistent list */
} shim_req_t;

_Atomic int shim_inflight;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* all below */
static shim_req_t *active, *persistents;

/* Failed nonblocking runs: the handle the caller waits on, and the code
 * its wait returns. */
typedef struct failed {
    MPI_Request h;
    int code;
    struct failed *next;
} failed_t;
static failed_t *failed;
static _Atomic int nfailed;

/* Tags of the self receives: a stack of free ones. */
#define NTAGS 32000
static int free_tags[NTAGS], ntags_free = -1;

static int tag_get(void)
{
    if (ntags_free < 0) {
        for (int i = 0; i < NTAGS; i++)
            free_tags[i] = NTAGS - i;
        ntags_free = NTAGS;
    }
    return ntags_free > 0 ? free_tags[--ntags_free] : -1;
}

static void tag_put(int tag)
{
    if (tag > 0 && ntags_free < NTAGS)
        free_tags[ntags_free++] = tag;
}

static int same_handle(MPI_Request a, MPI_Request b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Ends r's run with MPI code `code`: completes the caller's request.
 * lock held. */
static void complete(shim_req_t *r, int code)
{
    r->fail = code;
    for (shim_req_t **p = &active; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    r->next = NULL;
    r->stage = S_IDLE;
    atomic_fetch_sub(&shim_inflight, 1);
    if (!r->persistent && r->fail != MPI_SUCCESS) {
        failed_t *f = malloc(sizeof *f);
        if (f) {
            *f = (failed_t){r->mpi, r->fail, failed};
            failed = f;
            atomic_fetch_add(&nfailed, 1);
        }
    }
    MPI_Request s;
    PMPI_Isend(NULL, 0, MPI_BYTE, 0, r->tag, shim_self(), &s);
    PMPI_Request_free(&s);
    if (!r->persistent || r->orphan) {
        tag_put(r->tag);
        if (r->ic)
            ic_request_free(&r->ic);
        shim_exec_free(&r->x);
        free(r);
    }
}

/* Ends r's intercom run with status st: unpacks, completes.  lock held. */
static void finish(shim_req_t *r, ic_status_t st)
{
    if (st == IC_OK && shim_unpack_out(&r->x) != MPI_SUCCESS)
        st = IC_ERR_DTYPE;
    complete(r, st == IC_OK ? MPI_SUCCESS : shim_error(r->x.call.comm, st));
}

/* Starts the intercom call itself (after the counts, if any).  lock held. */
static void begin_main(shim_req_t *r)
{
    ic_status_t st = IC_OK;
    if (shim_pack_in(&r->x) != MPI_SUCCESS)
        st = IC_ERR_DTYPE;
    if (st == IC_OK && r->persistent && !r->ic) {
        st = shim_ic_call(&r->x, SHIM_PERSISTENT, &r->ic);
        shim_count_served(r->x.call.coll, SHIM_PERSISTENT, r->x.call.wide,
                          st == IC_OK ? ic_request_algo(r->ic, NULL, 0) : "failed");
    }
    if (r->reserved)
        ic_coll_use_seq(r->x.ic, r->seq);
    if (st == IC_OK)
        st = r->persistent ? ic_start(r->ic) : shim_ic_call(&r->x, SHIM_NONBLOCKING, &r->ic);
    else if (r->reserved) /* the reserved call is rejected, as it never starts */
        ic_coll_reject(r->x.ic, st);
    ic_coll_use_seq_end();
    if (!r->persistent)
        shim_count_served(r->x.call.coll, SHIM_NONBLOCKING, r->x.call.wide,
                          st == IC_OK ? ic_request_algo(r->ic, NULL, 0) : "failed");
    r->stage = S_RUN;
    if (st != IC_OK)
        finish(r, st);
}

/* Starts a run of r.  lock held. */
static void begin(shim_req_t *r)
{
    r->next = active;
    active = r;
    atomic_fetch_add(&shim_inflight, 1);
    r->reserved = 0;
#if MPI_VERSION >= 4
    if (r->pmpi) {
        r->stage = S_RUN;
        int rc = shim_pmpi_start(&r->x.call, &r->preq);
        if (rc != MPI_SUCCESS)
            complete(r, rc);
        return;
    }
#endif
    if (r->x.root_counts && r->x.p > 1 && !(r->persistent && r->ic)) {
        ic_status_t st = ic_ibcast(r->x.counts, (size_t)r->x.p, IC_UINT64, r->x.root, r->x.ic,
                                   &r->cnt);
        if (st != IC_OK) {
            finish(r, st);
            return;
        }
        r->seq = ic_coll_reserve(r->x.ic);
        r->reserved = 1;
        r->stage = S_COUNTS;
        return;
    }
    begin_main(r);
}

void shim_progress(void)
{
    if (atomic_load(&shim_inflight) == 0)
        return;
    pthread_mutex_lock(&lock);
    for (shim_req_t *r = active, *next; r; r = next) {
        next = r->next;
        int flag = 0;
        if (r->stage == S_COUNTS) {
            ic_status_t st = ic_test(&r->cnt, &flag);
            if (st != IC_OK)
                finish(r, st);
            else if (flag)
                begin_main(r);
        } else if (r->stage == S_RUN && r->pmpi) {
            int rc = PMPI_Test(&r->preq, &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS || flag)
                complete(r, rc);
        } else if (r->stage == S_RUN) {
            ic_status_t st = ic_test(&r->ic, &flag);
            if (st != IC_OK || flag)
                finish(r, st);
        }
    }
    pthread_mutex_unlock(&lock);
}

int shim_request_start(shim_exec_t *x, MPI_Request *req)
{
    shim_req_t *r = calloc(1, sizeof *r);
    int persistent = x->call.form == SHIM_PERSISTENT;
    pthread_mutex_lock(&lock);
    int tag = r ? tag_get() : -1;
    pthread_mutex_unlock(&lock);
    if (!r || tag < 0) {
        free(r);
        shim_exec_free(x);
        ic_status_t st = IC_ERR_NO_MEM;
        if (!persistent)
            ic_coll_reject(x->ic, st);
        return shim_error(x->call.comm, st);
    }
    r->x = *x;
    r->tag = tag;
    r->persistent = persistent;
    int rc = persistent ? PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, tag, shim_self(), &r->mpi)
                        : PMPI_Irecv(NULL, 0, MPI_BYTE, 0, tag, shim_self(), &r->mpi);
    if (rc != MPI_SUCCESS) {
        shim_exec_free(&r->x);
        free(r);
        return rc;
    }
    *req = r->mpi;
    pthread_mutex_lock(&lock);
    if (persistent) {
        r->pnext = persistents;
        persistents = r;
        if (!(r->x.root_counts && r->x.p > 1)) { /* plan now; counts-first ones at 1st start */
            ic_status_t st = shim_ic_call(&r->x, SHIM_PERSISTENT, &r->ic);
            shim_count_served(r->x.call.coll, SHIM_PERSISTENT, r->x.call.wide,
                              st == IC_OK ? ic_request_algo(r->ic, NULL, 0) : "failed");
            if (st != IC_OK)
                rc = shim_error(r->x.call.comm, st);
        }
    } else {
        begin(r);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

#if MPI_VERSION >= 4
int shim_persistent_fallback(const shim_call_t *c, MPI_Request *req)
{
    shim_req_t *r = calloc(1, sizeof *r);
    pthread_mutex_lock(&lock);
    int tag = r ? tag_get() : -1;
    pthread_mutex_unlock(&lock);
    if (!r || tag < 0) {
        free(r);
        return MPI_ERR_NO_MEM;
    }
    r->x.call = *c;
    r->tag = tag;
    r->persistent = r->pmpi = 1;
    int rc = PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, tag, shim_self(), &r->mpi);
    if (rc != MPI_SUCCESS) {
        free(r);
        return rc;
    }
    *req = r->mpi;
    pthread_mutex_lock(&lock);
    r->pnext = persistents;
    persistents = r;
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}
#endif

/* ---- waiting ---------------------------------------------------------- */

/* One pause of a waiting loop: spin a little, then yield, then sleep. */
static void pause_a_bit(unsigned *spins)
{
    if (++*spins < 64)
        return;
    if (*spins < 4096) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

int shim_block(MPI_Request *r, MPI_Status *st)
{
    unsigned spins = 0;
    for (;;) {
        shim_progress();
        int flag = 0, rc = PMPI_Test(r, &flag, st);
        if (rc != MPI_SUCCESS || flag)
            return rc;
        pause_a_bit(&spins);
    }
}

/* Intercom's blocking waits call this (ic_coll_set_idle_hook). */
static void shim_idle(void)
{
    int flag;
    shim_progress();
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shim_poke_comm(), &flag, MPI_STATUS_IGNORE);
}

int shim_requests_using(const ic_comm_t *ic, int *persistent_ones)
{
    int n = 0, np = 0;
    pthread_mutex_lock(&lock);
    for (shim_req_t *r = active; r; r = r->next)
        n += !ic || r->x.ic == ic;
    for (shim_req_t *r = persistents; r; r = r->pnext)
        np += !ic || r->x.ic == ic;
    pthread_mutex_unlock(&lock);
    if (persistent_ones)
        *persistent_ones = np;
    return n;
}

void shim_requests_init(void)
{
    ic_coll_set_idle_hook(shim_idle);
}

/* The error of a failed run whose handle was h (removed), or MPI_SUCCESS. */
static int take_failure(MPI_Request h)
{
    if (atomic_load(&nfailed) == 0)
        return MPI_SUCCESS;
    int code = MPI_SUCCESS;
    pthread_mutex_lock(&lock);
    for (failed_t **p = &failed; *p; p = &(*p)->next)
        if (same_handle((*p)->h, h)) {
            failed_t *f = *p;
            code = f->code;
            *p = f->next;
            free(f);
            atomic_fetch_sub(&nfailed, 1);
            break;
        }
    pthread_mutex_unlock(&lock);
    return code;
}

static shim_req_t *find_persistent(MPI_Request h)
{
    for (shim_req_t *r = persistents; r; r = r->pnext)
        if (same_handle(r->mpi, h))
            return r;
    return NULL;
}

/* The code a completed request i reports: its run's error, if any. */
static int outcome(MPI_Request h, MPI_Status *st)
{
    int code = take_failure(h);
    if (code == MPI_SUCCESS && persistents) {
        pthread_mutex_lock(&lock);
        shim_req_t *r = find_persistent(h);
        code = r ? r->fail : MPI_SUCCESS;
        pthread_mutex_unlock(&lock);
    }
    if (code != MPI_SUCCESS && st && st != MPI_STATUS_IGNORE)
        st->MPI_ERROR = code;
    return code;
}

static int busy(void)
{
    return atomic_load(&shim_inflight) > 0 || atomic_load(&nfailed) > 0 || persistents;
}

int MPI_Wait(MPI_Request *r, MPI_Status *st)
{
    if (!busy())
        return PMPI_Wait(r, st);
    MPI_Request h = *r;
    int rc = atomic_load(&shim_inflight) > 0 ? shim_block(r, st) : PMPI_Wait(r, st);
    return rc == MPI_SUCCESS ? outcome(h, st) : rc;
}

int MPI_Test(MPI_Request *r, int *flag, MPI_Status *st)
{
    if (!busy())
        return PMPI_Test(r, flag, st);
    MPI_Request h = *r;
    shim_progress();
    int rc = PMPI_Test(r, flag, st);
    return rc == MPI_SUCCESS && *flag ? outcome(h, st) : rc;
}

/* The statuses of an array call that completed entries done[] (or all). */
static int outcomes(int n, const MPI_Request *h, const int *idx, int nidx, MPI_Status *sts)
{
    int err = MPI_SUCCESS;
    for (int k = 0; k < nidx; k++) {
        int i = idx ? idx[k] : k;
        MPI_Status *s = sts == MPI_STATUSES_IGNORE ? NULL : &sts[idx ? k : i];
        if (outcome(h[i], s) != MPI_SUCCESS)
            err = MPI_ERR_IN_STATUS;
    }
    (void)n;
    return err;
}

#define HANDLES(n, reqs)                                                                       \
    MPI_Request stack_[64], *h_ = (n) <= 64 ? stack_ : malloc(sizeof(MPI_Request) * (size_t)(n)); \
    if (!h_)                                                                                   \
        return MPI_ERR_NO_MEM;                                                                 \
    memcpy(h_, reqs, sizeof(MPI_Request) * (size_t)(n))
#define HANDLES_END()                                                                          \
    if (h_ != stack_)                                                                          \
    free(h_)

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    if (!busy() || n <= 0)
        return PMPI_Waitall(n, reqs, sts);
    HANDLES(n, reqs);
    int flag = 0, rc = MPI_SUCCESS;
    unsigned spins = 0;
    while (atomic_load(&shim_inflight) > 0) { /* else MPI's own wait below */
        shim_progress();
        rc = PMPI_Testall(n, reqs, &flag, sts);
        if (rc != MPI_SUCCESS || flag)
            break;
        pause_a_bit(&spins);
    }
    if (rc == MPI_SUCCESS && !flag)
        rc = PMPI_Waitall(n, reqs, sts);
    if (rc == MPI_SUCCESS)
        rc = outcomes(n, h_, NULL, n, sts);
    HANDLES_END();
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    if (!busy() || n <= 0)
        return PMPI_Testall(n, reqs, flag, sts);
    HANDLES(n, reqs);
    shim_progress();
    int rc = PMPI_Testall(n, reqs, flag, sts);
    if (rc == MPI_SUCCESS && *flag)
        rc = outcomes(n, h_, NULL, n, sts);
    HANDLES_END();
    return rc;
}

static int any_outcome(const MPI_Request *h, int idx, MPI_Status *st)
{
    return idx == MPI_UNDEFINED ? MPI_SUCCESS : outcome(h[idx], st);
}

int MPI_Waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
    if (!busy() || n <= 0)
        return PMPI_Waitany(n, reqs, idx, st);
    HANDLES(n, reqs);
    int flag = 0, rc = MPI_SUCCESS;
    unsigned spins = 0;
    while (atomic_load(&shim_inflight) > 0) {
        shim_progress();
        rc = PMPI_Testany(n, reqs, idx, &flag, st);
        if (rc != MPI_SUCCESS || flag)
            break;
        pause_a_bit(&spins);
    }
    if (rc == MPI_SUCCESS && !flag)
        rc = PMPI_Waitany(n, reqs, idx, st);
    if (rc == MPI_SUCCESS)
        rc = any_outcome(h_, *idx, st);
    HANDLES_END();
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *idx, int *flag, MPI_Status *st)
{
    if (!busy() || n <= 0)
        return PMPI_Testany(n, reqs, idx, flag, st);
    HANDLES(n, reqs);
    shim_progress();
    int rc = PMPI_Testany(n, reqs, idx, flag, st);
    if (rc == MPI_SUCCESS && *flag)
        rc = any_outcome(h_, *idx, st);
    HANDLES_END();
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *nout, int idx[], MPI_Status sts[])
{
    if (!busy() || n <= 0)
        return PMPI_Waitsome(n, reqs, nout, idx, sts);
    HANDLES(n, reqs);
    int rc = MPI_SUCCESS;
    unsigned spins = 0;
    *nout = 0;
    while (atomic_load(&shim_inflight) > 0) {
        shim_progress();
        rc = PMPI_Testsome(n, reqs, nout, idx, sts);
        if (rc != MPI_SUCCESS || *nout != 0)
            break;
        pause_a_bit(&spins);
    }
    if (rc == MPI_SUCCESS && *nout == 0)
        rc = PMPI_Waitsome(n, reqs, nout, idx, sts);
    if (rc == MPI_SUCCESS && *nout != MPI_UNDEFINED)
        rc = outcomes(n, h_, idx, *nout, sts);
    HANDLES_END();
    return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *nout, int idx[], MPI_Status sts[])
{
    if (!busy() || n <= 0)
        return PMPI_Testsome(n, reqs, nout, idx, sts);
    HANDLES(n, reqs);
    shim_progress();
    int rc = PMPI_Testsome(n, reqs, nout, idx, sts);
    if (rc == MPI_SUCCESS && *nout != MPI_UNDEFINED)
        rc = outcomes(n, h_, idx, *nout, sts);
    HANDLES_END();
    return rc;
}

int MPI_Request_get_status(MPI_Request r, int *flag, MPI_Status *st)
{
    shim_progress();
    return PMPI_Request_get_status(r, flag, st);
}

/* ---- persistent ------------------------------------------------------- */

static int start_one(MPI_Request *h)
{
    pthread_mutex_lock(&lock);
    shim_req_t *r = persistents ? find_persistent(*h) : NULL;
    if (!r) {
        pthread_mutex_unlock(&lock);
        return PMPI_Start(h);
    }
    int rc = r->stage == S_IDLE ? PMPI_Start(h) : MPI_ERR_REQUEST; /* still active */
    if (rc == MPI_SUCCESS) {
        r->fail = MPI_SUCCESS;
        begin(r);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

int MPI_Start(MPI_Request *h)
{
    return start_one(h);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    for (int i = 0; i < n; i++) {
        int rc = start_one(&reqs[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *h)
{
    if (h && persistents) {
        pthread_mutex_lock(&lock);
        for (shim_req_t **p = &persistents; *p; p = &(*p)->pnext) {
            shim_req_t *r = *p;
            if (!same_handle(r->mpi, *h))
                continue;
            *p = r->pnext;
            if (r->stage != S_IDLE) { /* active: finish() frees it when it ends */
                r->orphan = 1;
                r->mpi = MPI_REQUEST_NULL;
                break;
            }
            ic_request_free(&r->ic);
            ic_request_free(&r->cnt);
            tag_put(r->tag);
            shim_exec_free(&r->x);
            free(r);
            break;
        }
        pthread_mutex_unlock(&lock);
    }
    return PMPI_Request_free(h);
}

/* Drops what is left (MPI_Finalize: every request is complete). */
void shim_requests_free(void)
{
    pthread_mutex_lock(&lock);
    while (persistents) {
        shim_req_t *r = persistents;
        persistents = r->pnext;
        if (r->ic)
            ic_request_free(&r->ic);
        shim_exec_free(&r->x);
        free(r);
    }
    while (failed) {
        failed_t *f = failed;
        failed = f->next;
        free(f);
    }
    atomic_store(&nfailed, 0);
    pthread_mutex_unlock(&lock);
}

/* ---- blocking point-to-point while requests are in flight ------------- */

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    if (atomic_load(&shim_inflight) == 0)
        return PMPI_Send(buf, count, dt, dest, tag, comm);
    MPI_Request r;
    int rc = PMPI_Isend(buf, count, dt, dest, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : shim_block(&r, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    if (atomic_load(&shim_inflight) == 0)
        return PMPI_Ssend(buf, count, dt, dest, tag, comm);
    MPI_Request r;
    int rc = PMPI_Issend(buf, count, dt, dest, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : shim_block(&r, MPI_STATUS_IGNORE);
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             MPI_Status *st)
{
    if (atomic_load(&shim_inflight) == 0)
        return PMPI_Recv(buf, count, dt, src, tag, comm, st);
    MPI_Request r;
    int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : shim_block(&r, st);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                 MPI_Status *st)
{
    if (atomic_load(&shim_inflight) == 0)
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag,
                             comm, st);
    MPI_Request r[2];
    int rc = PMPI_Irecv(rbuf, rcount, rtype, src, rtag, comm, &r[0]);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Isend(sbuf, scount, stype, dest, stag, comm, &r[1]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = shim_block(&r[1], MPI_STATUS_IGNORE);
    int rc2 = shim_block(&r[0], st);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    if (atomic_load(&shim_inflight) == 0)
        return PMPI_Probe(src, tag, comm, st);
    unsigned spins = 0;
    for (;;) {
        int flag = 0, rc = PMPI_Iprobe(src, tag, comm, &flag, st);
        if (rc != MPI_SUCCESS || flag)
            return rc;
        shim_progress();
        pause_a_bit(&spins);
    }
}
