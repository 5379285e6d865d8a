/*
 * coll_api.c — the public collectives of intercom.h in their three forms
 * (blocking ic_<name>, nonblocking ic_i<name>, persistent ic_<name>_init).
 *
 * Each collective packs its arguments once, in its <name>_pack function
 * below; the three forms are generated from IC_COLLECTIVE_LIST (the header's
 * one list of collectives and their parameters), and src/core/coll_run.c
 * checks, plans and runs the call.  The compiler checks the generated
 * blocking definitions against the header's written-out declarations.
 */
#include "core/coll_run.h"

#include <string.h>

/* The arguments of one call, as every packer fills them. */
typedef struct call {
    ic_coll_args_t a;
    const void *sendbuf;
    void *recvbuf;
    ic_comm_t *comm;
} call_t;

/* Every packer starts here.  The call is filled in place and handed on by
 * address: built and passed by value it was zeroed once and copied three
 * times (280 bytes each, a rep movsq each) on every call. */
static void call_of(call_t *c, ic_coll_t coll, ic_datatype_t dtype, const void *sendbuf,
                    void *recvbuf, ic_comm_t *comm)
{
    memset(c, 0, sizeof *c);
    c->sendbuf = sendbuf;
    c->recvbuf = recvbuf;
    c->comm = comm;
    c->a.coll = coll;
    c->a.dtype = dtype;
}

static void bcast_pack(call_t *c, void *buf, size_t count, ic_datatype_t dtype, int root,
                       ic_comm_t *comm)
{
    call_of(c, IC_COLL_BCAST, dtype, NULL, buf, comm);
    c->a.count = count;
    c->a.root = root;
}

static void reduce_pack(call_t *c, const void *sendbuf, void *recvbuf, size_t count,
                        ic_datatype_t dtype, const ic_op_t *op, int root, ic_comm_t *comm)
{
    call_of(c, IC_COLL_REDUCE, dtype, sendbuf, recvbuf, comm);
    c->a.count = count;
    c->a.op = op;
    c->a.root = root;
}

static void allreduce_pack(call_t *c, const void *sendbuf, void *recvbuf, size_t count,
                           ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    call_of(c, IC_COLL_ALLREDUCE, dtype, sendbuf, recvbuf, comm);
    c->a.count = count;
    c->a.op = op;
}

static void scatter_pack(call_t *c, const void *sendbuf, void *recvbuf, size_t count,
                         ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    call_of(c, IC_COLL_SCATTER, dtype, sendbuf, recvbuf, comm);
    c->a.count = count;
    c->a.root = root;
}

static void scatterv_pack(call_t *c, const void *sendbuf, const size_t *sendcounts,
                          const size_t *displs, void *recvbuf, ic_datatype_t dtype, int root,
                          ic_comm_t *comm)
{
    call_of(c, IC_COLL_SCATTERV, dtype, sendbuf, recvbuf, comm);
    c->a.counts = sendcounts;
    c->a.displs = displs;
    c->a.root = root;
}

static void gather_pack(call_t *c, const void *sendbuf, void *recvbuf, size_t count,
                        ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    call_of(c, IC_COLL_GATHER, dtype, sendbuf, recvbuf, comm);
    c->a.count = count;
    c->a.root = root;
}

static void gatherv_pack(call_t *c, const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                         const size_t *displs, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    call_of(c, IC_COLL_GATHERV, dtype, sendbuf, recvbuf, comm);
    c->a.counts = recvcounts;
    c->a.displs = displs;
    c->a.root = root;
}

static void allgather_pack(call_t *c, const void *sendbuf, void *recvbuf, size_t count,
                           ic_datatype_t dtype, ic_comm_t *comm)
{
    call_of(c, IC_COLL_ALLGATHER, dtype, sendbuf, recvbuf, comm);
    c->a.count = count;
}

static void allgatherv_pack(call_t *c, const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                            const size_t *displs, ic_datatype_t dtype, ic_comm_t *comm)
{
    call_of(c, IC_COLL_ALLGATHERV, dtype, sendbuf, recvbuf, comm);
    c->a.counts = recvcounts;
    c->a.displs = displs;
}

static void reduce_scatter_block_pack(call_t *c, const void *sendbuf, void *recvbuf, size_t count,
                                      ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    call_of(c, IC_COLL_REDUCE_SCATTER_BLOCK, dtype, sendbuf, recvbuf, comm);
    c->a.count = count;
    c->a.op = op;
}

static void reduce_scatter_pack(call_t *c, const void *sendbuf, void *recvbuf,
                                const size_t *recvcounts, ic_datatype_t dtype, const ic_op_t *op,
                                ic_comm_t *comm)
{
    call_of(c, IC_COLL_REDUCE_SCATTER, dtype, sendbuf, recvbuf, comm);
    c->a.counts = recvcounts;
    c->a.op = op;
}

static void alltoall_pack(call_t *c, const void *sendbuf, void *recvbuf, size_t count,
                          ic_datatype_t dtype, ic_comm_t *comm)
{
    call_of(c, IC_COLL_ALLTOALL, dtype, sendbuf, recvbuf, comm);
    c->a.count = count;
}

static void alltoallv_pack(call_t *c, const void *sendbuf, const size_t *sendcounts,
                           const size_t *sdispls, void *recvbuf, const size_t *recvcounts,
                           const size_t *rdispls, ic_datatype_t dtype, ic_comm_t *comm)
{
    call_of(c, IC_COLL_ALLTOALLV, dtype, sendbuf, recvbuf, comm);
    c->a.scounts = sendcounts;
    c->a.sdispls = sdispls;
    c->a.rcounts = recvcounts;
    c->a.rdispls = rdispls;
}

static void barrier_pack(call_t *c, ic_comm_t *comm)
{
    call_of(c, IC_COLL_BARRIER, IC_BYTE, NULL, NULL, comm);
}

static void scan_pack(call_t *c, const void *sendbuf, void *recvbuf, size_t count,
                      ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    call_of(c, IC_COLL_SCAN, dtype, sendbuf, recvbuf, comm);
    c->a.count = count;
    c->a.op = op;
}

static void exscan_pack(call_t *c, const void *sendbuf, void *recvbuf, size_t count,
                        ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    call_of(c, IC_COLL_EXSCAN, dtype, sendbuf, recvbuf, comm);
    c->a.count = count;
    c->a.op = op;
}

static ic_status_t run(const char *fn, call_t *c, ic_mode_t mode, ic_request_t **req)
{
    return ic_coll_run(fn, c->comm, &c->a, c->sendbuf, c->recvbuf, mode, req);
}

/* The three public forms of every collective of IC_COLLECTIVE_LIST. */
#define IC_DEFINE_FORMS_(name, params, args)                                                       \
    ic_status_t ic_##name params                                                                   \
    {                                                                                              \
        call_t c;                                                                                  \
        name##_pack(&c, IC_ARGS_ args);                                                            \
        return run("ic_" #name, &c, IC_MODE_BLOCKING, NULL);                                       \
    }                                                                                              \
    ic_status_t ic_i##name(IC_ARGS_ params, ic_request_t **req)                                    \
    {                                                                                              \
        call_t c;                                                                                  \
        name##_pack(&c, IC_ARGS_ args);                                                            \
        return run("ic_i" #name, &c, IC_MODE_NONBLOCKING, req);                                    \
    }                                                                                              \
    ic_status_t ic_##name##_init(IC_ARGS_ params, ic_request_t **req)                              \
    {                                                                                              \
        call_t c;                                                                                  \
        name##_pack(&c, IC_ARGS_ args);                                                            \
        return run("ic_" #name "_init", &c, IC_MODE_PERSISTENT, req);                              \
    }

IC_COLLECTIVE_LIST(IC_DEFINE_FORMS_)
#undef IC_DEFINE_FORMS_
