/*
 * run.c — deciding whether a call is served, and running it.
 *
 * The decision (docs/dropin.md has the table): IC_MPI_DISABLE; for the
 * reductions, the datatype and op (shim_op); then the communicator (an
 * intracommunicator whose processes are all in MPI_COMM_WORLD, with
 * intercom started).  Every input of it is one MPI requires to be equal
 * on every rank of the call, so all ranks decide alike.
 *
 * A served call whose arguments are bad on this rank (a negative count,
 * MPI_DATATYPE_NULL, a root out of range, ...) is rejected through
 * intercom: the other ranks' run of the same call fails with
 * IC_ERR_PEER_REJECTED instead of waiting, and the error goes through the
 * communicator's MPI error handler (report.c).
 *
 * A served blocking call that needs no packing (most calls) takes the
 * short way: its intercom arguments straight from the call record
 * (simple.c; the v-forms' arrays on the stack, simple_v.c), no
 * shim_exec_t.  Everything else, and every call whose arguments are bad,
 * takes the full way (prepare.c), which names the bad argument; both give
 * intercom the same call.
 */
#include "mpi_shim/exec.h"
#include "mpi_shim/memo.h"

#include "base/dtype.h"
#include "base/status.h"
#include "core/coll_run.h"

#include <stdlib.h>
#include <string.h>

#define ARGS3(form, req, name, ...)                                                            \
    ((form) == SHIM_BLOCKING      ? ic_##name(__VA_ARGS__)                                     \
     : (form) == SHIM_NONBLOCKING ? ic_i##name(__VA_ARGS__, req)                               \
                                  : ic_##name##_init(__VA_ARGS__, req))

/* Scatterv or gatherv with the counts at the root only. */
static ic_status_t at_root_call(shim_exec_t *x, shim_form_t f, ic_request_t **r)
{
    static const char *const names[2][3] = {
        {"ic_scatterv", "ic_iscatterv", "ic_scatterv_init"},
        {"ic_gatherv", "ic_igatherv", "ic_gatherv_init"}};
    ic_coll_args_t a = {0};
    a.coll = x->coll;
    a.dtype = x->dtype;
    a.root = x->root;
    a.counts = x->counts;
    a.displs = x->displs;
    a.counts_at_root = true;
    ic_mode_t mode = f == SHIM_BLOCKING      ? IC_MODE_BLOCKING
                     : f == SHIM_NONBLOCKING ? IC_MODE_NONBLOCKING
                                             : IC_MODE_PERSISTENT;
    return ic_coll_run(names[x->coll == IC_COLL_GATHERV][f], x->ic, &a, x->sb, x->rb, mode,
                       mode == IC_MODE_BLOCKING ? NULL : r);
}

ic_status_t shim_ic_call(shim_exec_t *x, shim_form_t f, ic_request_t **r)
{
    ic_comm_t *ic = x->ic;
    if (x->counts_at_root)
        return at_root_call(x, f, r);
    switch (x->coll) {
    case IC_COLL_BCAST:
        return ARGS3(f, r, bcast, x->rb, x->count, x->dtype, x->root, ic);
    case IC_COLL_REDUCE:
        return ARGS3(f, r, reduce, x->sb, x->rb, x->count, x->dtype, x->op, x->root, ic);
    case IC_COLL_ALLREDUCE:
        return ARGS3(f, r, allreduce, x->sb, x->rb, x->count, x->dtype, x->op, ic);
    case IC_COLL_SCATTER:
        return ARGS3(f, r, scatter, x->sb, x->rb, x->count, x->dtype, x->root, ic);
    case IC_COLL_SCATTERV:
        return ARGS3(f, r, scatterv, x->sb, x->counts, x->displs, x->rb, x->dtype, x->root, ic);
    case IC_COLL_GATHER:
        return ARGS3(f, r, gather, x->sb, x->rb, x->count, x->dtype, x->root, ic);
    case IC_COLL_GATHERV:
        return ARGS3(f, r, gatherv, x->sb, x->rb, x->counts, x->displs, x->dtype, x->root, ic);
    case IC_COLL_ALLGATHER:
        return ARGS3(f, r, allgather, x->sb, x->rb, x->count, x->dtype, ic);
    case IC_COLL_ALLGATHERV:
        return ARGS3(f, r, allgatherv, x->sb, x->rb, x->counts, x->displs, x->dtype, ic);
    case IC_COLL_REDUCE_SCATTER_BLOCK:
        return ARGS3(f, r, reduce_scatter_block, x->sb, x->rb, x->count, x->dtype, x->op, ic);
    case IC_COLL_REDUCE_SCATTER:
        return ARGS3(f, r, reduce_scatter, x->sb, x->rb, x->counts, x->dtype, x->op, ic);
    case IC_COLL_ALLTOALL:
        return ARGS3(f, r, alltoall, x->sb, x->rb, x->count, x->dtype, ic);
    case IC_COLL_ALLTOALLV:
        return ARGS3(f, r, alltoallv, x->sb, x->scounts, x->sdispls, x->rb, x->rcounts,
                     x->rdispls, x->dtype, ic);
    case IC_COLL_BARRIER:
        return ARGS3(f, r, barrier, ic);
    case IC_COLL_SCAN:
        return ARGS3(f, r, scan, x->sb, x->rb, x->count, x->dtype, x->op, ic);
    case IC_COLL_EXSCAN:
        return ARGS3(f, r, exscan, x->sb, x->rb, x->count, x->dtype, x->op, ic);
    default:
        return ic_set_error(IC_ERR_INTERNAL, "MPI drop-in: no collective %d", (int)x->coll);
    }
}

static int is_reduction(int coll)
{
    return coll == IC_COLL_REDUCE || coll == IC_COLL_ALLREDUCE || coll == IC_COLL_SCAN ||
           coll == IC_COLL_EXSCAN || coll == IC_COLL_REDUCE_SCATTER ||
           coll == IC_COLL_REDUCE_SCATTER_BLOCK || coll == SHIM_REDUCE_LOCAL;
}

/* A reduction's datatype t: the table's description of a predefined one,
 * else t decoded into *buf; NULL for an invalid t (MPI reports it). */
static const shim_type_t *reduction_type(MPI_Datatype t, shim_type_t *buf)
{
    const shim_type_t *known = shim_type_known(t);
    if (known)
        return known;
    if (t == MPI_DATATYPE_NULL || shim_type(t, buf) != MPI_SUCCESS)
        return NULL;
    return buf;
}

/* MPI_Reduce_local: intercom's kernels (the same bits as its reductions). */
static int reduce_local(const shim_call_t *c, const ic_op_t *op, const shim_type_t *t)
{
    if (c->scount < 0) {
        ic_set_error(IC_ERR_COUNT, "MPI_Reduce_local: count = %lld is negative",
                     (long long)c->scount);
        return shim_error(MPI_COMM_SELF, IC_ERR_COUNT);
    }
    size_t n = (size_t)(c->scount * t->k);
    if (n > 0 && (!c->sb || !c->rb)) {
        ic_set_error(IC_ERR_BUFFER, "MPI_Reduce_local: %s is NULL", c->sb ? "inoutbuf" : "inbuf");
        return shim_error(MPI_COMM_SELF, IC_ERR_BUFFER);
    }
    ic_reduce_apply(op, (ic_datatype_t)t->base, c->sb, c->rb, n);
    return MPI_SUCCESS;
}

/* The root's byte counts to everyone (scatterv, gatherv), blocking. */
static ic_status_t root_counts(shim_exec_t *x)
{
    if (!x->root_counts || x->p == 1)
        return IC_OK;
    return ic_bcast(x->counts, (size_t)x->p, IC_UINT64, x->root, x->ic);
}

static int run_blocking(shim_exec_t *x, const char **algo)
{
    ic_status_t st = root_counts(x);
    if (st == IC_OK && shim_pack_in(x) != MPI_SUCCESS)
        st = ic_set_error(IC_ERR_DTYPE, "MPI %s: packing the send buffer failed",
                          ic_coll_name(x->coll));
    if (st == IC_OK)
        st = shim_ic_call(x, SHIM_BLOCKING, NULL);
    if (st == IC_OK && shim_unpack_out(x) != MPI_SUCCESS)
        st = ic_set_error(IC_ERR_DTYPE, "MPI %s: unpacking the receive buffer failed",
                          ic_coll_name(x->coll));
    *algo = ic_request_algo(NULL, x->ic, x->coll);
    return st == IC_OK ? MPI_SUCCESS : shim_error(x->call.comm, st);
}

/* The short way of a blocking call without packing: straight to
 * ic_coll_run, as the public blocking function would call it.  Returns
 * 0, having done nothing, for any other call. */
static int run_simple(const shim_call_t *c, ic_comm_t *ic, const ic_op_t *op,
                      const shim_type_t *t, int *rc)
{
    if (c->form != SHIM_BLOCKING)
        return 0;
    ic_coll_args_t a = {0};
    const void *sb;
    void *rb;
    size_t arr[4 * SHIM_SIMPLE_MAX_P]; /* the v-forms' counts and displacements */
    a.coll = (ic_coll_t)c->coll;
    const char *fn = shim_simple_args(c, ic, t, &a, &sb, &rb, arr);
    if (!fn)
        return 0;
    a.op = op;
    ic_comm_t *mic = NULL;
    shim_memo_t *memo = shim_comm_memo(c->comm, &mic);
    shim_memo_way_t *way = memo && mic == ic ? shim_memo_slot(memo, c, ic, op, t) : NULL;
    ic_status_t st;
    if (way) {
        st = ic_coll_run_memo(fn, ic, &a, sb, rb, shim_memo_run_state(way));
        shim_memo_keep(memo, way, c, ic, sb, rb);
    } else {
        st = ic_coll_run(fn, ic, &a, sb, rb, IC_MODE_BLOCKING, NULL);
    }
    const char *algo = ic_request_algo(NULL, ic, a.coll);
    *rc = st == IC_OK ? MPI_SUCCESS : shim_error(c->comm, st);
    shim_count_served(c->coll, SHIM_BLOCKING, c->wide, algo ? algo : "failed");
    return 1;
}

/* Serves a call the short way cannot (run_simple): packing, large arrays,
 * the nonblocking and persistent forms, arguments to reject.  Not inlined,
 * so that the short way does not pay for this frame. */
__attribute__((noinline)) static int serve(const shim_call_t *c, ic_comm_t *ic,
                                           const ic_op_t *op, const shim_type_t *t,
                                           MPI_Request *req, int *rc)
{
    shim_exec_t x;
    ic_status_t st = shim_prepare(c, ic, op, t, &x);
    if (st != IC_OK) {
        shim_exec_free(&x);
        ic_coll_reject(ic, st);
        *rc = shim_error(c->comm, st);
        shim_count_served(c->coll, c->form, c->wide, "rejected");
        return 1;
    }
    if (c->form == SHIM_BLOCKING) {
        const char *algo = NULL;
        *rc = run_blocking(&x, &algo);
        shim_exec_free(&x);
        shim_count_served(c->coll, c->form, c->wide, algo ? algo : "failed");
        return 1;
    }
    *rc = shim_request_start(&x, req); /* counts itself */
    return 1;
}

int shim_collective(const shim_call_t *c, MPI_Request *req, int *rc)
{
    shim_reason_t why = SHIM_R_DISABLED;
    const ic_op_t *op = NULL;
    shim_type_t decoded;
    const shim_type_t *t = NULL; /* a reduction's datatype */
    ic_comm_t *ic = NULL;
    if (shim_disabled(c->coll))
        goto fall_back;
    if (c->form == SHIM_BLOCKING) { /* a call like a recent one: its plan again (memo.c) */
        shim_memo_t *memo = shim_comm_memo(c->comm, &ic);
        if (memo && shim_memo_run(memo, ic, c, rc))
            return 1;
    }
    if (is_reduction(c->coll)) {
        why = SHIM_R_NOTYPE; /* an invalid datatype: MPI reports it */
        if (!(t = reduction_type(c->stype, &decoded)) || !(op = shim_op(c->op, t, &why)))
            goto fall_back; /* MPI reports an invalid type or op itself */
    }
    if (c->coll == SHIM_REDUCE_LOCAL) {
        *rc = reduce_local(c, op, t);
        shim_count_served(c->coll, c->form, c->wide, "intercom kernel");
        return 1;
    }
    if (!(ic = shim_comm(c->comm, &why)))
        goto fall_back;
    if (run_simple(c, ic, op, t, rc))
        return 1; /* the usual call: no packing, no arrays */
    return serve(c, ic, op, t, req, rc);

fall_back:
    shim_count_fallback(c->coll, c->form, c->wide, why);
    return 0;
}
