/* validate.c — argument checks; see validate.h. */
#include "algo/validate.h"

#include "base/status.h"

#include <stdint.h>

bool ic_coll_rooted(ic_coll_t c)
{
    return c == IC_COLL_BCAST || c == IC_COLL_REDUCE || c == IC_COLL_SCATTER ||
           c == IC_COLL_SCATTERV || c == IC_COLL_GATHER || c == IC_COLL_GATHERV;
}

bool ic_coll_reduces(ic_coll_t c)
{
    return c == IC_COLL_REDUCE || c == IC_COLL_ALLREDUCE || c == IC_COLL_REDUCE_SCATTER_BLOCK ||
           c == IC_COLL_REDUCE_SCATTER || c == IC_COLL_SCAN || c == IC_COLL_EXSCAN;
}

static bool uses_counts(ic_coll_t c)
{
    return c == IC_COLL_SCATTERV || c == IC_COLL_GATHERV || c == IC_COLL_ALLGATHERV ||
           c == IC_COLL_REDUCE_SCATTER;
}

/* In place is allowed everywhere MPI allows it; at the root only for the
 * rooted collectives. */
static bool in_place_allowed(ic_coll_t c, bool is_root)
{
    switch (c) {
    case IC_COLL_BCAST:
    case IC_COLL_BARRIER:
        return false;
    case IC_COLL_REDUCE:
    case IC_COLL_SCATTER:
    case IC_COLL_SCATTERV:
    case IC_COLL_GATHER:
    case IC_COLL_GATHERV:
        return is_root;
    default:
        return true;
    }
}

static size_t extent(const size_t *counts, const size_t *displs, int n)
{
    size_t e = 0, o = 0;
    for (int i = 0; i < n; i++) {
        size_t end = (displs ? displs[i] : o) + counts[i];
        o += counts[i];
        e = end > e ? end : e;
    }
    return e;
}

static size_t total(const size_t *counts, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        s += counts[i];
    return s;
}

/* Rejects counts and displacements whose byte extent would overflow. */
static ic_status_t check_layout(const char *fn, const char *cname, const char *dname,
                                const size_t *counts, const size_t *displs, int size, size_t es)
{
    const size_t limit = SIZE_MAX / 4 / es;
    size_t sum = 0;
    for (int i = 0; i < size; i++) {
        if (counts[i] > limit || (sum += counts[i]) > limit)
            return ic_set_error(IC_ERR_COUNT, "%s: %s[%d] = %zu makes the buffer too large", fn,
                                cname, i, counts[i]);
        if (displs && (displs[i] > limit || displs[i] + counts[i] > limit))
            return ic_set_error(IC_ERR_COUNT, "%s: %s[%d] = %zu is too large", fn, dname, i,
                                displs[i]);
    }
    return IC_OK;
}

ic_status_t ic_validate_args(const char *fn, const ic_coll_args_t *a, int rank, int size)
{
    ic_coll_t c = a->coll;
    if ((unsigned)c >= IC_COLL_COUNT)
        return ic_set_error(IC_ERR_ARG, "%s: collective %d is not valid", fn, (int)c);
    if (c == IC_COLL_BARRIER)
        return IC_OK;
    if (!ic_dtype_valid(a->dtype))
        return ic_set_error(IC_ERR_DTYPE, "%s: dtype %d is not a valid ic_datatype_t", fn,
                            (int)a->dtype);
    if (ic_coll_reduces(c)) {
        if (!a->op)
            return ic_set_error(IC_ERR_OP, "%s: op is NULL", fn);
        if (!ic_op_valid(a->op))
            return ic_set_error(IC_ERR_OP, "%s: op is not a valid operation (freed, or "
                                           "not an ic_op_t)", fn);
        if (!ic_op_applies(a->op, a->dtype))
            return ic_set_error(IC_ERR_OP, "%s: op '%s' does not apply to dtype %s", fn,
                                ic_op_kind_name(a->op->kind), ic_datatype_name(a->dtype));
    }
    if (ic_coll_rooted(c) && (a->root < 0 || a->root >= size))
        return ic_set_error(IC_ERR_ROOT, "%s: root %d is out of range [0, %d)", fn, a->root,
                            size);
    if (uses_counts(c) && !a->counts)
        return ic_set_error(IC_ERR_COUNT, "%s: the counts array is NULL", fn);
    if (c == IC_COLL_ALLTOALLV && (!a->scounts || !a->rcounts))
        return ic_set_error(IC_ERR_COUNT, "%s: %s is NULL", fn,
                            a->scounts ? "recvcounts" : "sendcounts");
    if (a->in_place && !in_place_allowed(c, rank == a->root))
        return ic_set_error(IC_ERR_BUFFER, "%s: IC_IN_PLACE is not allowed %s", fn,
                            ic_coll_rooted(c) ? "on a non-root process" : "for this collective");
    /* Every byte count and offset must fit in size_t (with room to add). */
    size_t es = ic_datatype_size(a->dtype);
    if (a->count > SIZE_MAX / 4 / es / (size_t)size)
        return ic_set_error(IC_ERR_COUNT, "%s: count %zu is too large", fn, a->count);
    ic_status_t st = IC_OK;
    if (uses_counts(c))
        st = check_layout(fn, "counts", "displs", a->counts, a->displs, size, es);
    if (st == IC_OK && c == IC_COLL_ALLTOALLV)
        st = check_layout(fn, "sendcounts", "sdispls", a->scounts, a->sdispls, size, es);
    if (st == IC_OK && c == IC_COLL_ALLTOALLV)
        st = check_layout(fn, "recvcounts", "rdispls", a->rcounts, a->rdispls, size, es);
    if (st != IC_OK)
        return st;
    return IC_OK;
}

void ic_args_buffer_bytes(const ic_coll_args_t *a, int rank, int size, size_t *send_bytes,
                          size_t *recv_bytes)
{
    size_t es = ic_datatype_size(a->dtype), n = a->count, p = (size_t)size;
    size_t s = 0, r = 0;
    bool root = rank == a->root, ip = a->in_place;
    switch (a->coll) {
    case IC_COLL_BCAST:
        r = n;
        break;
    case IC_COLL_REDUCE:
        s = ip ? 0 : n;
        r = root ? n : 0;
        break;
    case IC_COLL_ALLREDUCE:
    case IC_COLL_SCAN:
    case IC_COLL_EXSCAN:
        s = ip ? 0 : n;
        r = n;
        break;
    case IC_COLL_SCATTER:
        s = root ? p * n : 0;
        r = (root && ip) ? 0 : n;
        break;
    case IC_COLL_SCATTERV:
        s = root ? extent(a->counts, a->displs, size) : 0;
        r = (root && ip) ? 0 : a->counts[rank];
        break;
    case IC_COLL_GATHER:
        s = ip ? 0 : n;
        r = root ? p * n : 0;
        break;
    case IC_COLL_GATHERV:
        s = ip ? 0 : a->counts[rank];
        r = root ? extent(a->counts, a->displs, size) : 0;
        break;
    case IC_COLL_ALLGATHER:
        s = ip ? 0 : n;
        r = p * n;
        break;
    case IC_COLL_ALLGATHERV:
        s = ip ? 0 : a->counts[rank];
        r = extent(a->counts, a->displs, size);
        break;
    case IC_COLL_REDUCE_SCATTER_BLOCK:
        s = ip ? 0 : p * n;
        r = ip ? p * n : n;
        break;
    case IC_COLL_REDUCE_SCATTER:
        s = ip ? 0 : total(a->counts, size);
        r = ip ? total(a->counts, size) : a->counts[rank];
        break;
    case IC_COLL_ALLTOALL:
        s = ip ? 0 : p * n;
        r = p * n;
        break;
    case IC_COLL_ALLTOALLV:
        s = ip ? 0 : extent(a->scounts, a->sdispls, size);
        r = extent(a->rcounts, a->rdispls, size);
        break;
    default:
        break;
    }
    *send_bytes = s * es;
    *recv_bytes = r * es;
}
