/*
 * coll_api.c — the blocking collectives of intercom.h.  Each call is turned
 * into an ic_coll_args_t, checked, planned and run.  Until the
 * real-execution issue adds a transport, communicators have size 1 and the
 * plan runs in the in-process engine (which moves the bytes exactly as an
 * executor would); larger communicators report IC_ERR_NOT_SUPPORTED.
 */
#include "core/comm.h"
#include "core/status.h"
#include "core/validate.h"
#include "sim/engine.h"

static ic_status_t run_coll(const char *fn, ic_comm_t *comm, ic_coll_args_t *a,
                            const void *sendbuf, void *recvbuf)
{
    if (!comm)
        return ic_set_error(IC_ERR_COMM, "%s: comm is NULL", fn);
    a->model = comm->model;
    if (sendbuf == IC_IN_PLACE) {
        a->in_place = true;
        sendbuf = NULL;
    }
    if (recvbuf == IC_IN_PLACE) { /* scatter(v) at the root */
        if (a->coll != IC_COLL_SCATTER && a->coll != IC_COLL_SCATTERV)
            return ic_set_error(IC_ERR_BUFFER, "%s: recvbuf may not be IC_IN_PLACE", fn);
        a->in_place = true;
        recvbuf = NULL;
    }
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
    if (comm->size != 1)
        return ic_set_error(IC_ERR_NOT_SUPPORTED,
                            "%s: communicators of size %d need a transport", fn, comm->size);
    comm->seq++;
    void *s = (void *)sendbuf, *r = recvbuf;
    ic_sim_job_t job = {0};
    job.size = 1;
    job.world = comm->world;
    job.args = a;
    job.algo = comm->algo[a->coll];
    job.caller = fn;
    job.sendbuf = &s;
    job.recvbuf = &r;
    job.sendbytes = &sb;
    job.recvbytes = &rb;
    ic_sim_result_t res = {0};
    int world0 = 0;
    job.world = &world0;
    return ic_sim_run(1, &comm->model, &job, 1, true, &res);
}

static ic_coll_args_t args_of(ic_coll_t coll, ic_datatype_t dtype)
{
    ic_coll_args_t a = {0};
    a.coll = coll;
    a.dtype = dtype;
    return a;
}

ic_status_t ic_bcast(void *buf, size_t count, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_BCAST, dtype);
    a.count = count;
    a.root = root;
    return run_coll("ic_bcast", comm, &a, NULL, buf);
}

ic_status_t ic_reduce(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                      const ic_op_t *op, int root, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_REDUCE, dtype);
    a.count = count;
    a.op = op;
    a.root = root;
    return run_coll("ic_reduce", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_allreduce(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                         const ic_op_t *op, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_ALLREDUCE, dtype);
    a.count = count;
    a.op = op;
    return run_coll("ic_allreduce", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_scatter(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                       int root, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_SCATTER, dtype);
    a.count = count;
    a.root = root;
    return run_coll("ic_scatter", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_scatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                        void *recvbuf, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_SCATTERV, dtype);
    a.counts = sendcounts;
    a.displs = displs;
    a.root = root;
    return run_coll("ic_scatterv", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_gather(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                      int root, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_GATHER, dtype);
    a.count = count;
    a.root = root;
    return run_coll("ic_gather", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_gatherv(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                       const size_t *displs, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_GATHERV, dtype);
    a.counts = recvcounts;
    a.displs = displs;
    a.root = root;
    return run_coll("ic_gatherv", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_allgather(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                         ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_ALLGATHER, dtype);
    a.count = count;
    return run_coll("ic_allgather", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_allgatherv(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                          const size_t *displs, ic_datatype_t dtype, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_ALLGATHERV, dtype);
    a.counts = recvcounts;
    a.displs = displs;
    return run_coll("ic_allgatherv", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_reduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                    ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_REDUCE_SCATTER_BLOCK, dtype);
    a.count = count;
    a.op = op;
    return run_coll("ic_reduce_scatter_block", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_reduce_scatter(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                              ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_REDUCE_SCATTER, dtype);
    a.counts = recvcounts;
    a.op = op;
    return run_coll("ic_reduce_scatter", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_alltoall(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                        ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_ALLTOALL, dtype);
    a.count = count;
    return run_coll("ic_alltoall", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_alltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                         void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                         ic_datatype_t dtype, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_ALLTOALLV, dtype);
    a.scounts = sendcounts;
    a.sdispls = sdispls;
    a.rcounts = recvcounts;
    a.rdispls = rdispls;
    return run_coll("ic_alltoallv", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_barrier(ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_BARRIER, IC_BYTE);
    return run_coll("ic_barrier", comm, &a, NULL, NULL);
}

ic_status_t ic_scan(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                    const ic_op_t *op, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_SCAN, dtype);
    a.count = count;
    a.op = op;
    return run_coll("ic_scan", comm, &a, sendbuf, recvbuf);
}

ic_status_t ic_exscan(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                      const ic_op_t *op, ic_comm_t *comm)
{
    ic_coll_args_t a = args_of(IC_COLL_EXSCAN, dtype);
    a.count = count;
    a.op = op;
    return run_coll("ic_exscan", comm, &a, sendbuf, recvbuf);
}
