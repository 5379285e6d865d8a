/*
 * requests.c — the request handles of the nonblocking and persistent
 * forms: ic_start, ic_test, ic_wait, ic_waitall, ic_request_free.
 *
 * Requests live in a handle pool, so that these functions recognise a
 * freed or garbage handle (base/handles.h); a completed nonblocking
 * request goes back to its communicator's plan cache (plan_cache.c).
 */
#include "core/coll_internal.h"

#include "base/handles.h"
#include "base/status.h"
#include "core/plan_cache.h"

#include <stdlib.h>

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
        ic_run_deactivate(r);
    ic_exec_release(&r->x);
    free(r->arrays);
    ic_pool_put(&request_pool, r);
}

ic_request_t *ic_request_new(void)
{
    return ic_pool_get(&request_pool, NULL);
}

void ic_request_put(ic_request_t *r)
{
    ic_pool_put(&request_pool, r);
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
        return ic_run_revoked("ic_start", req->comm);
    if (req->comm->check && req->comm->size > 1 && !req->active) {
        ic_status_t st = ic_coll_check_start("ic_start", req->comm, &req->key);
        if (st != IC_OK)
            return st;
    }
    pthread_mutex_lock(&ic_run_lock);
    int active = req->active;
    if (!active) {
        ic_comm_t *c = req->comm;
        ic_exec_start(&req->x, c->t, c->world, c->id, ic_coll_take_seq(c), req->sig, req->sendbuf,
                      req->recvbuf);
        ic_run_activate(req);
    }
    pthread_mutex_unlock(&ic_run_lock);
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
    pthread_mutex_lock(&ic_run_lock);
    ic_status_t st = r->active ? ic_run_progress_all(r, &done) : ic_run_ended_status(r);
    int finished = st != IC_OK || done || !r->active;
    if (finished && !r->persistent) {
        ic_plan_cache_return(r, st);
        *req = NULL;
    }
    pthread_mutex_unlock(&ic_run_lock);
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
    pthread_mutex_lock(&ic_run_lock);
    ic_status_t st = ic_run_wait(r);
    if (!r->persistent) {
        ic_plan_cache_return(r, st);
        *req = NULL;
    }
    pthread_mutex_unlock(&ic_run_lock);
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
    pthread_mutex_lock(&ic_run_lock);
    int active = (*req)->active;
    if (!active) {
        ic_request_destroy(*req);
        *req = NULL;
    }
    pthread_mutex_unlock(&ic_run_lock);
    if (active)
        return ic_set_error(IC_ERR_ARG, "ic_request_free: the request is still active");
    return IC_OK;
}
