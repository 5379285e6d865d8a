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

/* The arguments of one call, as every packer fills them. */
typedef struct call {
    ic_coll_args_t a;
    const void *sendbuf;
    void *recvbuf;
    ic_comm_t *comm;
} call_t;

static call_t call_of(ic_coll_t coll, ic_datatype_t dtype, const void *sendbuf, void *recvbuf,
                      ic_comm_t *comm)
{
    call_t c = {.sendbuf = sendbuf, .recvbuf = recvbuf, .comm = comm};
    c.a.coll = coll;
    c.a.dtype = dtype;
    return c;
}

static call_t bcast_pack(void *buf, size_t count, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_BCAST, dtype, NULL, buf, comm);
    c.a.count = count;
    c.a.root = root;
    return c;
}

static call_t reduce_pack(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                          const ic_op_t *op, int root, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_REDUCE, dtype, sendbuf, recvbuf, comm);
    c.a.count = count;
    c.a.op = op;
    c.a.root = root;
    return c;
}

static call_t allreduce_pack(const void *sendbuf, void *recvbuf, size_t count,
                             ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_ALLREDUCE, dtype, sendbuf, recvbuf, comm);
    c.a.count = count;
    c.a.op = op;
    return c;
}

static call_t scatter_pack(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                           int root, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_SCATTER, dtype, sendbuf, recvbuf, comm);
    c.a.count = count;
    c.a.root = root;
    return c;
}

static call_t scatterv_pack(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                            void *recvbuf, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_SCATTERV, dtype, sendbuf, recvbuf, comm);
    c.a.counts = sendcounts;
    c.a.displs = displs;
    c.a.root = root;
    return c;
}

static call_t gather_pack(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                          int root, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_GATHER, dtype, sendbuf, recvbuf, comm);
    c.a.count = count;
    c.a.root = root;
    return c;
}

static call_t gatherv_pack(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                           const size_t *displs, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_GATHERV, dtype, sendbuf, recvbuf, comm);
    c.a.counts = recvcounts;
    c.a.displs = displs;
    c.a.root = root;
    return c;
}

static call_t allgather_pack(const void *sendbuf, void *recvbuf, size_t count,
                             ic_datatype_t dtype, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_ALLGATHER, dtype, sendbuf, recvbuf, comm);
    c.a.count = count;
    return c;
}

static call_t allgatherv_pack(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                              const size_t *displs, ic_datatype_t dtype, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_ALLGATHERV, dtype, sendbuf, recvbuf, comm);
    c.a.counts = recvcounts;
    c.a.displs = displs;
    return c;
}

static call_t reduce_scatter_block_pack(const void *sendbuf, void *recvbuf, size_t count,
                                        ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_REDUCE_SCATTER_BLOCK, dtype, sendbuf, recvbuf, comm);
    c.a.count = count;
    c.a.op = op;
    return c;
}

static call_t reduce_scatter_pack(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                                  ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_REDUCE_SCATTER, dtype, sendbuf, recvbuf, comm);
    c.a.counts = recvcounts;
    c.a.op = op;
    return c;
}

static call_t alltoall_pack(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                            ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_ALLTOALL, dtype, sendbuf, recvbuf, comm);
    c.a.count = count;
    return c;
}

static call_t alltoallv_pack(const void *sendbuf, const size_t *sendcounts,
                             const size_t *sdispls, void *recvbuf, const size_t *recvcounts,
                             const size_t *rdispls, ic_datatype_t dtype, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_ALLTOALLV, dtype, sendbuf, recvbuf, comm);
    c.a.scounts = sendcounts;
    c.a.sdispls = sdispls;
    c.a.rcounts = recvcounts;
    c.a.rdispls = rdispls;
    return c;
}

static call_t barrier_pack(ic_comm_t *comm)
{
    return call_of(IC_COLL_BARRIER, IC_BYTE, NULL, NULL, comm);
}

static call_t scan_pack(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                        const ic_op_t *op, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_SCAN, dtype, sendbuf, recvbuf, comm);
    c.a.count = count;
    c.a.op = op;
    return c;
}

static call_t exscan_pack(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                          const ic_op_t *op, ic_comm_t *comm)
{
    call_t c = call_of(IC_COLL_EXSCAN, dtype, sendbuf, recvbuf, comm);
    c.a.count = count;
    c.a.op = op;
    return c;
}

static ic_status_t run(const char *fn, call_t c, ic_mode_t mode, ic_request_t **req)
{
    return ic_coll_run(fn, c.comm, &c.a, c.sendbuf, c.recvbuf, mode, req);
}

/* The three public forms of every collective of IC_COLLECTIVE_LIST. */
#define IC_DEFINE_FORMS_(name, params, args)                                                   \
    ic_status_t ic_##name params                                                               \
    {                                                                                          \
        return run("ic_" #name, name##_pack args, IC_MODE_BLOCKING, NULL);                     \
    }                                                                                          \
    ic_status_t ic_i##name(IC_ARGS_ params, ic_request_t **req)                                \
    {                                                                                          \
        return run("ic_i" #name, name##_pack args, IC_MODE_NONBLOCKING, req);                  \
    }                                                                                          \
    ic_status_t ic_##name##_init(IC_ARGS_ params, ic_request_t **req)                          \
    {                                                                                          \
        return run("ic_" #name "_init", name##_pack args, IC_MODE_PERSISTENT, req);           \
    }

IC_COLLECTIVE_LIST(IC_DEFINE_FORMS_)
#undef IC_DEFINE_FORMS_
