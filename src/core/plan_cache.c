/*
 * plan_cache.c — the plans of earlier calls, kept on the communicator for
 * calls with the same arguments.
 *
 * Each collective has IC_PLAN_CACHE_WAYS ways, most recently used first.
 * A blocking call uses a cached plan in place and moves it to the front;
 * a miss plans and puts the new plan at the front, destroying the least
 * recently used.  A nonblocking call borrows a cached plan: it leaves the
 * cache while the call runs (so two calls in flight never share one) and,
 * borrowed or planned afresh, joins the cache when the call completes
 * without error, unless the cache was dropped (ic_comm_set_algorithm,
 * _set_mesh, _set_model, ...) or the communicator freed meanwhile: the
 * cache's generation, unique in the process, tells.  A plan back in the
 * cache is no longer the caller's: request handles of it are refused
 * (requests.c's request_check).
 *
 * Planning is a pure function of the arguments, so whether a call hits
 * the cache never changes its messages, and ranks whose caches differ
 * still agree.  Everything here runs with the progress lock held, except
 * ic_plan_key_copy and ic_plan_args_equal, which touch one request only.
 */
#include "core/plan_cache.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The count and displacement arrays of a call, in a fixed order. */
static void arrays_of(ic_coll_args_t *a, const size_t **slot[6])
{
    slot[0] = &a->counts;
    slot[1] = &a->displs;
    slot[2] = &a->scounts;
    slot[3] = &a->sdispls;
    slot[4] = &a->rcounts;
    slot[5] = &a->rdispls;
}

static bool same_array(const size_t *x, const size_t *y, int p)
{
    return x == y || (x && y && memcmp(x, y, sizeof(size_t) * (size_t)p) == 0);
}

/* True when a call with arguments b can reuse the plan built for a (whose
 * arrays are the request's own copies). */
bool ic_plan_args_equal(ic_coll_args_t *a, ic_coll_args_t *b, int p)
{
    /* Ops compare by id, never by address: a freed op's address may come
     * back as another op (base/handles.h). */
    uint64_t ida = a->op ? a->op->id : 0, idb = b->op ? b->op->id : 0;
    if (a->coll != b->coll || a->dtype != b->dtype || ida != idb || a->root != b->root ||
        a->count != b->count || a->in_place != b->in_place || a->reproducible != b->reproducible ||
        a->counts_at_root != b->counts_at_root)
        return false;
    const size_t **sa[6], **sb[6];
    arrays_of(a, sa);
    arrays_of(b, sb);
    for (int i = 0; i < 6; i++)
        if (!same_array(*sa[i], *sb[i], p))
            return false;
    return true;
}

/* Makes r->key own copies of the arrays of a. */
int ic_plan_key_copy(ic_request_t *r, const ic_coll_args_t *a, int p)
{
    r->key = *a;
    const size_t **slot[6];
    arrays_of(&r->key, slot);
    int n = 0;
    for (int i = 0; i < 6; i++)
        n += *slot[i] != NULL;
    if (n == 0)
        return 0;
    r->arrays = malloc(sizeof(size_t) * (size_t)p * (size_t)n);
    if (!r->arrays)
        return -1;
    size_t *dst = r->arrays;
    for (int i = 0; i < 6; i++) {
        if (!*slot[i])
            continue;
        memcpy(dst, *slot[i], sizeof(size_t) * (size_t)p);
        *slot[i] = dst;
        dst += p;
    }
    return 0;
}

static _Atomic uint64_t next_cache_gen = 1;
static _Atomic uint64_t next_cache_epoch = 1;

/* A plan joins or leaves the ways of collective coll in comm's cache:
 * what callers remember of them (ic_coll_memo_t) is stale.  The new epoch
 * is unique in the process, so a communicator made where a freed one was
 * never matches its memos. */
static void cache_changed(ic_comm_t *comm, int coll)
{
    comm->cache_epoch[coll] = atomic_fetch_add(&next_cache_epoch, 1);
}

/* comm's cache generation, made when first needed.  run_lock held. */
uint64_t ic_plan_cache_gen(ic_comm_t *comm)
{
    if (comm->cache_gen == 0)
        comm->cache_gen = atomic_fetch_add(&next_cache_gen, 1);
    return comm->cache_gen;
}

/* Puts r at the front of its collective's ways, destroying the least
 * recently used plan if they are full.  run_lock held. */
void ic_plan_cache_put(ic_comm_t *comm, ic_request_t *r)
{
    ic_request_t **ways = comm->cache[r->key.coll];
    ic_request_destroy(ways[IC_PLAN_CACHE_WAYS - 1]);
    memmove(ways + 1, ways, (IC_PLAN_CACHE_WAYS - 1) * sizeof *ways);
    ways[0] = r;
    r->cached = 1;
    r->home_gen = 0;
    cache_changed(comm, r->key.coll);
}

/* A cached plan for the call a, or NULL.  Blocking: it moves to the front
 * and stays cached.  Nonblocking: it leaves the cache and returns to it
 * when the call completes (ic_plan_cache_return).  run_lock held. */
ic_request_t *ic_plan_cache_take(ic_comm_t *comm, ic_coll_args_t *a, ic_mode_t mode)
{
    ic_request_t **ways = comm->cache[a->coll];
    int hit = -1;
    for (int i = 0; i < IC_PLAN_CACHE_WAYS && ways[i]; i++)
        if (!ways[i]->active && ic_plan_args_equal(&ways[i]->key, a, comm->size)) {
            hit = i;
            break;
        }
    if (hit < 0)
        return NULL;
    ic_request_t *r = ways[hit];
    if (mode == IC_MODE_BLOCKING) {
        if (hit > 0) { /* a loop's call hits the first way: nothing to move */
            memmove(ways + 1, ways, (size_t)hit * sizeof *ways);
            ways[0] = r;
        }
    } else {
        memmove(ways + hit, ways + hit + 1, (size_t)(IC_PLAN_CACHE_WAYS - 1 - hit) * sizeof *ways);
        ways[IC_PLAN_CACHE_WAYS - 1] = NULL;
        r->cached = 0;
        cache_changed(comm, a->coll);
    }
    return r;
}

/* A nonblocking request that completed with st: back to its
 * communicator's cache if it succeeded and the cache is the one it was
 * taken for (the communicator may have been freed, or its cache dropped,
 * since), else destroyed.  run_lock held. */
void ic_plan_cache_return(ic_request_t *r, ic_status_t st)
{
    ic_comm_t *c = r->comm;
    if (st == IC_OK && !r->active && r->home_gen != 0 && ic_comm_valid(c) &&
        c->cache_gen == r->home_gen)
        ic_plan_cache_put(c, r);
    else
        ic_request_destroy(r);
}

void ic_plan_cache_clear(ic_comm_t *comm)
{
    for (int c = 0; c < IC_COLL_COUNT; c++)
        for (int i = 0; i < IC_PLAN_CACHE_WAYS; i++) {
            ic_request_destroy(comm->cache[c][i]);
            comm->cache[c][i] = NULL;
        }
    comm->cache_gen = 0; /* plans lent to nonblocking calls do not come back */
    for (int c = 0; c < IC_COLL_COUNT; c++)
        cache_changed(comm, c);
}
