/*
 * memo.c — the drop-in's memo of its last blocking calls: a call whose
 * arguments, buffers aside, are those of a recent call on the same
 * communicator runs that call's cached plan again without translating
 * its arguments or looking the plan up.
 *
 * A program calls the same collective with the same counts, datatypes,
 * op and root again and again.  The short way (simple.c) still turns each
 * call into intercom's arguments (datatype look-ups, byte counts, the
 * v-forms' arrays) and intercom still finds the plan by comparing them
 * with its cache's keys: with 8-byte blocks on 2 ranks about 650 of a
 * non-root MPI_Gather's 1420 instructions (docs/perf/per-call-work.md).
 * Each communicator keeps, per collective, SHIM_MEMO_WAYS calls that took
 * the short way and ran a cached plan: the MPI arguments that shaped them
 * (counts, datatype handles, op, root, which buffers were MPI_IN_PLACE,
 * and the count and displacement arrays this rank read) and what intercom
 * remembers of the run (ic_coll_memo_t: the plan and the cache's epoch).
 * A call equal in all of them runs ic_coll_run_again, which checks that
 * the plan is still cached and the buffers are usable; anything else
 * takes the short or full way as before and, if it runs a cached plan,
 * replaces the collective's oldest way.
 *
 * Only handles that cannot change meaning are remembered: predefined
 * datatypes (the short way takes no other) and predefined ops (a freed
 * user op's handle may come back as another op).  Equal arguments give
 * the plan the cache would have found, so a hit changes no message and
 * ranks whose memos differ still agree.  A communicator's memo is used by
 * the threads that call collectives on it, which MPI requires to be one
 * at a time.
 */
#include "mpi_shim/memo.h"

#include "core/coll_run.h"
#include "core/comm.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Arrays are remembered for communicators of up to this many ranks. */
#define MEMO_MAX_P 8
#define MEMO_ARR_BYTES (4 * MEMO_MAX_P * sizeof(MPI_Count))

struct shim_memo_way {
    int used, wide, root;
    unsigned char sb_in, rb_in;   /* the call's buffer was MPI_IN_PLACE */
    unsigned char sb_out, rb_out; /* intercom got IC_IN_PLACE for it */
    MPI_Count scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    size_t narr; /* bytes of arr in use */
    unsigned char arr[MEMO_ARR_BYTES];
    ic_coll_memo_t m;
    _Atomic long *served; /* the report's counter of its calls (report.c) */
};
typedef struct shim_memo_way memo_way_t;

struct shim_memo {
    memo_way_t way[IC_COLL_COUNT][SHIM_MEMO_WAYS];
    unsigned char next[IC_COLL_COUNT]; /* the way a new call replaces */
};

shim_memo_t *shim_memo_new(void)
{
    return calloc(1, sizeof(shim_memo_t));
}

void shim_memo_free(shim_memo_t *t)
{
    free(t);
}

/* The count and displacement arrays the short way reads on this rank for
 * call c (simple_v.c), in a fixed order; their number. */
static int arrays_read(const shim_call_t *c, int me, const void *arr[4])
{
    switch (c->coll) {
    case IC_COLL_SCATTERV:
        arr[0] = c->scounts, arr[1] = c->sdispls;
        return me == c->root ? 2 : 0;
    case IC_COLL_GATHERV:
        arr[0] = c->rcounts, arr[1] = c->rdispls;
        return me == c->root ? 2 : 0;
    case IC_COLL_ALLGATHERV:
        arr[0] = c->rcounts, arr[1] = c->rdispls;
        return 2;
    case IC_COLL_ALLTOALLV:
        arr[0] = c->scounts, arr[1] = c->sdispls, arr[2] = c->rcounts, arr[3] = c->rdispls;
        return 4;
    case IC_COLL_REDUCE_SCATTER:
        arr[0] = c->rcounts;
        return 1;
    default:
        return 0;
    }
}

static int same_scalars(const memo_way_t *w, const shim_call_t *c)
{
    return w->used && w->root == c->root && w->scount == c->scount && w->rcount == c->rcount &&
           w->stype == c->stype && w->rtype == c->rtype && w->op == c->op && w->wide == c->wide &&
           w->sb_in == (c->sb == MPI_IN_PLACE) && w->rb_in == (c->rb == MPI_IN_PLACE);
}

static int same_arrays(const memo_way_t *w, const shim_call_t *c, int me)
{
    const void *arr[4];
    int n = arrays_read(c, me, arr);
    size_t each = w->narr / (n ? (size_t)n : 1), off = 0;
    for (int i = 0; i < n; i++, off += each)
        if (!arr[i] || memcmp(w->arr + off, arr[i], each) != 0)
            return 0;
    return 1;
}

int shim_memo_run(shim_memo_t *t, ic_comm_t *ic, const shim_call_t *c, int *rc)
{
    if ((unsigned)c->coll >= IC_COLL_COUNT) /* MPI_Reduce_local */
        return 0;
    memo_way_t *ways = t->way[c->coll];
    for (int i = 0; i < SHIM_MEMO_WAYS; i++) {
        memo_way_t *w = &ways[i];
        if (!same_scalars(w, c) || (w->narr && !same_arrays(w, c, ic->rank)))
            continue;
        const void *sb = w->sb_out ? IC_IN_PLACE : c->sb;
        void *rb = w->rb_out ? IC_IN_PLACE : c->rb;
        ic_status_t st;
        if (!ic_coll_run_again(ic, &w->m, sb, rb, &st)) {
            w->used = 0; /* the full way runs it, and may remember it anew */
            return 0;
        }
        *rc = st == IC_OK ? MPI_SUCCESS : shim_error(c->comm, st);
        if (st == IC_OK)
            atomic_fetch_add_explicit(w->served, 1, memory_order_relaxed);
        else
            shim_count_served(c->coll, SHIM_BLOCKING, c->wide, "failed");
        return 1;
    }
    return 0;
}

shim_memo_way_t *shim_memo_slot(shim_memo_t *t, const shim_call_t *c, const ic_comm_t *ic,
                                const ic_op_t *op, const shim_type_t *rt)
{
    if (!t || (unsigned)c->coll >= IC_COLL_COUNT ||
        (op && (!shim_op_predefined(c->op) || !rt || rt->derived)))
        return NULL;
    const void *arr[4];
    if (arrays_read(c, ic->rank, arr) > 0 && ic->size > MEMO_MAX_P)
        return NULL;
    memo_way_t *ways = t->way[c->coll], *w = &ways[t->next[c->coll]];
    for (int i = 0; i < SHIM_MEMO_WAYS; i++)
        if (!ways[i].used) {
            w = &ways[i];
            break;
        }
    w->used = 0;
    return w;
}

void shim_memo_keep(shim_memo_t *t, shim_memo_way_t *slot, const shim_call_t *c,
                    const ic_comm_t *ic, const void *sb, const void *rb)
{
    memo_way_t *w = slot;
    if (!w->m.r)
        return; /* nothing cached to run again */
    const void *arr[4];
    int n = arrays_read(c, ic->rank, arr);
    size_t each = (size_t)ic->size * (c->wide ? sizeof(MPI_Count) : sizeof(int));
    for (int i = 0; i < n; i++)
        if (!arr[i])
            return;
    for (int i = 0; i < n; i++)
        memcpy(w->arr + (size_t)i * each, arr[i], each);
    w->narr = (size_t)n * each;
    w->wide = c->wide;
    w->root = c->root;
    w->scount = c->scount;
    w->rcount = c->rcount;
    w->stype = c->stype;
    w->rtype = c->rtype;
    w->op = c->op;
    w->sb_in = c->sb == MPI_IN_PLACE;
    w->rb_in = c->rb == MPI_IN_PLACE;
    w->sb_out = sb == IC_IN_PLACE;
    w->rb_out = rb == IC_IN_PLACE;
    w->served = shim_served_counter(c->coll, SHIM_BLOCKING, c->wide, w->m.algo);
    w->used = 1;
    if (w == &t->way[c->coll][t->next[c->coll]])
        t->next[c->coll] = (unsigned char)((t->next[c->coll] + 1) % SHIM_MEMO_WAYS);
}

ic_coll_memo_t *shim_memo_run_state(shim_memo_way_t *slot)
{
    return &slot->m;
}
