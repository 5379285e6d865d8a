/*
 * simple.c — the arguments of a blocking call that needs nothing of
 * prepare.c but its arithmetic (run.c runs it the short way).
 *
 * Most calls a program makes are blocking, have one count per rank
 * (bcast, reduce, allreduce, scan, exscan, reduce_scatter_block, scatter,
 * gather, allgather, alltoall, barrier) and use predefined datatypes that
 * are one contiguous run (MPI_BYTE, MPI_INT, MPI_DOUBLE, ...).  Such a
 * call needs no packing, no arrays and no shim_exec_t: its intercom
 * arguments are built here straight from the call record, with the same
 * arithmetic as shim_prepare (bytes for data-moving collectives, base
 * elements for reductions), and it runs as the blocking ic_<name> call
 * would run it (ic_coll_run with that name, so messages name it alike).
 *
 * The v-forms and reduce_scatter take the same short way with their
 * arrays on the caller's stack (simple_v.c).
 *
 * Anything else — another form, a derived or unknown datatype, a negative
 * count — is left to the full way (shim_prepare),
 * untouched: that way checks it and names the argument.  So the short way
 * never decides differently from the full one; it only skips work.  It
 * uses no shared state but the read-only datatype table and the report's
 * counters, so threads may take it at once.
 */
#include "mpi_shim/exec.h"

#include "core/comm.h"

/* The name ic_coll_run gives a blocking call of each collective (the
 * public function's name, as in its error messages). */
static const char *const blocking_name[IC_COLL_COUNT] = {
    [IC_COLL_BCAST] = "ic_bcast",
    [IC_COLL_REDUCE] = "ic_reduce",
    [IC_COLL_ALLREDUCE] = "ic_allreduce",
    [IC_COLL_SCATTER] = "ic_scatter",
    [IC_COLL_GATHER] = "ic_gather",
    [IC_COLL_ALLGATHER] = "ic_allgather",
    [IC_COLL_REDUCE_SCATTER_BLOCK] = "ic_reduce_scatter_block",
    [IC_COLL_ALLTOALL] = "ic_alltoall",
    [IC_COLL_BARRIER] = "ic_barrier",
    [IC_COLL_SCAN] = "ic_scan",
    [IC_COLL_EXSCAN] = "ic_exscan",
};

const shim_type_t *shim_type_contiguous(MPI_Datatype t)
{
    const shim_type_t *k = shim_type_known(t);
    return k && k->identity ? k : NULL;
}

/* Bcast: count elements of the datatype as bytes (shim_prepare's bcast
 * case without packing). */
static int bcast_args(const shim_call_t *c, ic_coll_args_t *a)
{
    const shim_type_t *t = shim_type_contiguous(c->stype);
    if (c->scount < 0 || !t)
        return 0;
    a->count = (size_t)(c->scount * t->size);
    return 1;
}

/* Scatter, gather, allgather, alltoall: the send side has ns blocks, the
 * receive side nr; bytes per block from the side that sends, as in
 * prepare_blocks, which also decides here which sides are checked.  Their
 * receive buffer may be MPI_IN_PLACE too. */
static int block_args(const shim_call_t *c, int me, int ns, int nr, ic_coll_args_t *a, void **rb)
{
    *rb = c->rb == MPI_IN_PLACE ? IC_IN_PLACE : c->rb;
    int root = me == c->root || c->coll == IC_COLL_ALLGATHER || c->coll == IC_COLL_ALLTOALL;
    int send_side = c->sb != MPI_IN_PLACE && ns > 0;
    int recv_side = c->rb != MPI_IN_PLACE && nr > 0;
    const shim_type_t *ts = NULL, *tr = NULL;
    if (send_side && (c->scount < 0 || !(ts = shim_type_contiguous(c->stype))))
        return 0;
    if ((recv_side || (c->sb == MPI_IN_PLACE && root)) &&
        (c->rcount < 0 || !(tr = shim_type_contiguous(c->rtype))))
        return 0;
    a->count = ts ? (size_t)(c->scount * ts->size) : tr ? (size_t)(c->rcount * tr->size) : 0;
    return 1;
}

/* Reductions with one count: base elements of the reduction's datatype
 * rt (already accepted with its op by shim_collective). */
static int reduction_args(const shim_call_t *c, const shim_type_t *rt, ic_coll_args_t *a)
{
    MPI_Count n = c->coll == IC_COLL_REDUCE_SCATTER_BLOCK ? c->rcount : c->scount;
    if (n < 0)
        return 0;
    a->dtype = (ic_datatype_t)rt->base;
    a->count = (size_t)(n * rt->k);
    return 1;
}

const char *shim_simple_args(const shim_call_t *c, const ic_comm_t *ic, const shim_type_t *rt,
                             ic_coll_args_t *a, const void **sb, void **rb, size_t *arr)
{
    /* As in shim_prepare, only the send buffer of a reduction and both
     * buffers of the block collectives translate MPI_IN_PLACE. */
    int me = ic->rank, p = ic->size, ok = 0;
    a->dtype = IC_BYTE;
    *sb = c->sb == MPI_IN_PLACE ? IC_IN_PLACE : c->sb;
    *rb = c->rb;
    switch (c->coll) {
    case IC_COLL_BARRIER:
        ok = 1;
        break;
    case IC_COLL_BCAST:
        a->root = c->root;
        ok = bcast_args(c, a);
        break;
    case IC_COLL_SCATTER:
        a->root = c->root;
        ok = block_args(c, me, me == c->root ? p : 0, 1, a, rb);
        break;
    case IC_COLL_GATHER:
        a->root = c->root;
        ok = block_args(c, me, 1, me == c->root ? p : 0, a, rb);
        break;
    case IC_COLL_ALLGATHER:
        ok = block_args(c, me, 1, p, a, rb);
        break;
    case IC_COLL_ALLTOALL:
        ok = block_args(c, me, p, p, a, rb);
        break;
    case IC_COLL_REDUCE:
        a->root = c->root;
        ok = reduction_args(c, rt, a);
        break;
    case IC_COLL_ALLREDUCE:
    case IC_COLL_SCAN:
    case IC_COLL_EXSCAN:
    case IC_COLL_REDUCE_SCATTER_BLOCK:
        ok = reduction_args(c, rt, a);
        break;
    default: /* the v-forms and reduce_scatter: arrays (simple_v.c) */
        return shim_simple_v_args(c, ic, rt, a, sb, rb, arr);
    }
    return ok ? blocking_name[c->coll] : NULL;
}
