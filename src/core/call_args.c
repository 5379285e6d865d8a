/*
 * call_args.c — checking one collective call's arguments on this rank,
 * and its signature (call_args.h).
 */
#include "core/call_args.h"

#include "algo/validate.h"
#include "base/status.h"
#include "core/check.h"

#include <string.h>

ic_status_t ic_call_decode(const char *fn, const ic_comm_t *comm, ic_coll_args_t *a,
                           const void **sendbuf, void **recvbuf)
{
    a->reproducible = comm->reproducible;
    if (*sendbuf == IC_IN_PLACE) {
        a->in_place = true;
        *sendbuf = NULL;
    }
    if (*recvbuf == IC_IN_PLACE) { /* scatter(v) at the root */
        if (a->coll != IC_COLL_SCATTER && a->coll != IC_COLL_SCATTERV)
            return ic_set_error(IC_ERR_BUFFER, "%s: recvbuf may not be IC_IN_PLACE", fn);
        a->in_place = true;
        *recvbuf = NULL;
    }
    if ((a->coll == IC_COLL_SCATTERV || a->coll == IC_COLL_GATHERV) && a->root != comm->rank)
        a->displs = NULL;
    return IC_OK;
}

bool ic_call_buffers_overlap(const void *sendbuf, size_t sb, const void *recvbuf, size_t rb)
{
    uintptr_t s0 = (uintptr_t)sendbuf, r0 = (uintptr_t)recvbuf;
    return sb > 0 && rb > 0 && s0 < r0 + rb && r0 < s0 + sb;
}

ic_status_t ic_call_check(const char *fn, const ic_comm_t *comm, ic_coll_args_t *a,
                          const void *sendbuf, const void *recvbuf)
{
    a->model = comm->model;
    a->mesh = comm->has_mesh ? &comm->mesh : NULL;
    a->phys = comm->phys_node ? &comm->phys : NULL;
    a->host_of = comm->host_of;
    a->nhosts = comm->nhosts;
    ic_status_t st = ic_validate_args(fn, a, comm->rank, comm->size);
    if (st != IC_OK)
        return st;
    size_t sb, rb;
    ic_args_buffer_bytes(a, comm->rank, comm->size, &sb, &rb);
    if (sb > 0 && !sendbuf)
        return ic_set_error(IC_ERR_BUFFER, "%s: sendbuf is NULL but %zu bytes are sent", fn, sb);
    if (rb > 0 && !recvbuf)
        return ic_set_error(IC_ERR_BUFFER, "%s: recvbuf is NULL but %zu bytes are received",
                            fn, rb);
    if (ic_call_buffers_overlap(sendbuf, sb, recvbuf, rb))
        return ic_set_error(IC_ERR_BUFFER,
                            "%s: sendbuf (%zu bytes) and recvbuf (%zu bytes) overlap; pass "
                            "IC_IN_PLACE as sendbuf to work in place",
                            fn, sb, rb);
    return IC_OK;
}

uint32_t ic_call_sig(const ic_coll_args_t *a, const ic_choice_t *c, int p)
{
    uint64_t h = 0xcbf29ce484222325ull;
    int f[8] = {(int)a->coll, a->root, (int)a->dtype, a->op ? (int)a->op->kind : -1,
                a->op ? (int)a->op->commutative : -1, c->mesh.d, (int)a->reproducible,
                (int)a->counts_at_root};
    h = ic_fnv1a(h, f, sizeof f);
    h = ic_fnv1a(h, c->al->name, strlen(c->al->name));
    h = ic_fnv1a(h, c->mesh.dims, sizeof(int) * (size_t)c->mesh.d);
    h = ic_fnv1a(h, &a->count, sizeof a->count);
    if (c->al->flags & IC_ALGO_PHYS) { /* the tree follows the placement */
        unsigned long long ph = ic_phys_hash(a->phys, p);
        h = ic_fnv1a(h, &ph, sizeof ph);
    }
    if (a->counts && a->coll != IC_COLL_ALLTOALLV && !a->counts_at_root)
        h = ic_fnv1a(h, a->counts, sizeof(size_t) * (size_t)p);
    return (uint32_t)(h ^ (h >> 32));
}
