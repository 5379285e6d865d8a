/*
 * simple_v.c — the short way (simple.c) of the blocking calls with count
 * arrays: scatterv, gatherv, allgatherv, alltoallv and reduce_scatter.
 *
 * When every datatype the call reads is predefined and one contiguous run
 * and no count is negative, the byte counts and displacements are those
 * prepare_v (prepare.c) would compute — count times size, displacement
 * times extent — written into the caller's arrays (on its stack), and the
 * call runs as the blocking ic_<name> function would run it.  Left to the
 * full way, untouched: communicators of more than SHIM_SIMPLE_MAX_P ranks;
 * scatterv and gatherv whose root's counts are broadcast first (where
 * shim_counts_at_root_pays says no); alltoallv in place (the full way
 * copies the receive layout to the send side); anything to pack or to
 * reject.  So the short way never decides differently from the full one.
 *
 * It saves the full way's zeroing of a shim_exec_t and of its arrays, the
 * datatypes' decoding and the second dispatch: with 8-byte blocks on 2
 * ranks (callgrind) MPI_Scatterv's root went from 2258 instructions per
 * call to 1800, MPI_Allgatherv from about 3000 to 2400
 * (docs/perf/per-call-work.md).
 */
#include "mpi_shim/exec.h"

#include "core/comm.h"

#include <string.h>

/* One v-side of contiguous type t: p byte counts and displacements; 0 at
 * a negative count. */
static int v_side(const shim_call_t *c, int p, const void *counts, const void *displs,
                  const shim_type_t *t, size_t *bc, size_t *bd)
{
    for (int i = 0; i < p; i++) {
        MPI_Count n = shim_cnt(c, counts, i);
        if (n < 0)
            return 0;
        bc[i] = (size_t)(n * t->size);
        bd[i] = (size_t)(shim_dsp(c, displs, i) * t->extent);
    }
    return 1;
}

/* This rank's one block of n elements of type: its bytes; 0 when the full
 * way must see it (a negative n, a type to pack or an invalid one). */
static int own_side(MPI_Count n, MPI_Datatype type, size_t *bytes)
{
    const shim_type_t *t = n >= 0 ? shim_type_contiguous(type) : NULL;
    if (!t)
        return 0;
    *bytes = (size_t)(n * t->size);
    return 1;
}

/* Scatterv, gatherv with the counts at the root only: the root's side
 * from its arrays (every entry written), everyone else's own count at its
 * own entry of zeroed arrays.  The root's two datatypes are looked up once
 * when they are the same handle (the usual call). */
static int rooted(const shim_call_t *c, const ic_comm_t *ic, ic_coll_args_t *a, size_t *arr)
{
    int p = ic->size, me = ic->rank, scatter = c->coll == IC_COLL_SCATTERV;
    if (!shim_counts_at_root_pays(ic, (ic_coll_t)c->coll))
        return 0;
    size_t *counts = arr, *displs = arr + p, bytes = 0;
    MPI_Datatype vtype = scatter ? c->stype : c->rtype, otype = scatter ? c->rtype : c->stype;
    MPI_Count own = scatter ? c->rcount : c->scount;
    const shim_type_t *vt = NULL;
    if (me == c->root) {
        vt = shim_type_contiguous(vtype);
        if (!vt || !v_side(c, p, scatter ? c->scounts : c->rcounts,
                           scatter ? c->sdispls : c->rdispls, vt, counts, displs))
            return 0;
    } else {
        memset(arr, 0, sizeof *arr * 2 * (size_t)p);
    }
    if ((scatter ? c->rb : c->sb) != MPI_IN_PLACE) {
        if (vt && otype == vtype && own >= 0)
            bytes = (size_t)(own * vt->size);
        else if (!own_side(own, otype, &bytes))
            return 0;
    }
    if (me != c->root)
        counts[me] = bytes;
    a->root = c->root;
    a->counts = counts;
    a->displs = displs;
    a->counts_at_root = true;
    return 1;
}

static int allgatherv(const shim_call_t *c, int p, ic_coll_args_t *a, size_t *arr)
{
    const shim_type_t *t = shim_type_contiguous(c->rtype);
    size_t bytes;
    if (!t || !v_side(c, p, c->rcounts, c->rdispls, t, arr, arr + p) ||
        (c->sb != MPI_IN_PLACE && !own_side(c->scount, c->stype, &bytes)))
        return 0;
    a->counts = arr;
    a->displs = arr + p;
    return 1;
}

static int alltoallv(const shim_call_t *c, int p, ic_coll_args_t *a, size_t *arr)
{
    const shim_type_t *ts = shim_type_contiguous(c->stype), *tr = shim_type_contiguous(c->rtype);
    if (c->sb == MPI_IN_PLACE || c->rb == MPI_IN_PLACE || !ts || !tr ||
        !v_side(c, p, c->scounts, c->sdispls, ts, arr, arr + p) ||
        !v_side(c, p, c->rcounts, c->rdispls, tr, arr + 2 * p, arr + 3 * p))
        return 0;
    a->scounts = arr;
    a->sdispls = arr + p;
    a->rcounts = arr + 2 * p;
    a->rdispls = arr + 3 * p;
    return 1;
}

/* Base elements of the reduction's datatype rt per rank. */
static int reduce_scatter(const shim_call_t *c, int p, const shim_type_t *rt, ic_coll_args_t *a,
                          size_t *arr)
{
    for (int i = 0; i < p; i++) {
        MPI_Count n = shim_cnt(c, c->rcounts, i);
        if (n < 0)
            return 0;
        arr[i] = (size_t)(n * rt->k);
    }
    a->dtype = (ic_datatype_t)rt->base;
    a->counts = arr;
    return 1;
}

const char *shim_simple_v_args(const shim_call_t *c, const ic_comm_t *ic, const shim_type_t *rt,
                               ic_coll_args_t *a, const void **sb, void **rb, size_t *arr)
{
    int p = ic->size;
    if (p > SHIM_SIMPLE_MAX_P)
        return NULL;
    /* As in prepare_v: both buffers translate MPI_IN_PLACE; reductions
     * only the send buffer. */
    a->dtype = IC_BYTE;
    *sb = c->sb == MPI_IN_PLACE ? IC_IN_PLACE : c->sb;
    *rb = c->rb == MPI_IN_PLACE ? IC_IN_PLACE : c->rb;
    switch (c->coll) {
    case IC_COLL_SCATTERV:
        return rooted(c, ic, a, arr) ? "ic_scatterv" : NULL;
    case IC_COLL_GATHERV:
        return rooted(c, ic, a, arr) ? "ic_gatherv" : NULL;
    case IC_COLL_ALLGATHERV:
        return allgatherv(c, p, a, arr) ? "ic_allgatherv" : NULL;
    case IC_COLL_ALLTOALLV:
        return alltoallv(c, p, a, arr) ? "ic_alltoallv" : NULL;
    case IC_COLL_REDUCE_SCATTER:
        *rb = c->rb;
        return reduce_scatter(c, p, rt, a, arr) ? "ic_reduce_scatter" : NULL;
    default:
        return NULL;
    }
}
