/*
 * coll_api.c — the public collectives of intercom.h in their three forms
 * (blocking, nonblocking ic_i*, persistent *_init).  Each collective packs
 * its arguments once, in its *_call function; src/core/coll_run.c checks,
 * plans and runs them.
 */
#include "core/coll_run.h"

static ic_coll_args_t args_of(ic_coll_t coll, ic_datatype_t dtype)
{
    ic_coll_args_t a = {0};
    a.coll = coll;
    a.dtype = dtype;
    return a;
}

static ic_status_t bcast_call(void *buf, size_t count, ic_datatype_t dtype, int root,
                              ic_comm_t *comm, ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_bcast", "ic_ibcast", "ic_bcast_init"};
    ic_coll_args_t a = args_of(IC_COLL_BCAST, dtype);
    a.count = count;
    a.root = root;
    return ic_coll_run(fn[mode], comm, &a, NULL, buf, mode, req);
}
ic_status_t ic_bcast(void *buf, size_t count, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    return bcast_call(buf, count, dtype, root, comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_ibcast(void *buf, size_t count, ic_datatype_t dtype, int root, ic_comm_t *comm,
                      ic_request_t **req)
{
    return bcast_call(buf, count, dtype, root, comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_bcast_init(void *buf, size_t count, ic_datatype_t dtype, int root, ic_comm_t *comm,
                          ic_request_t **req)
{
    return bcast_call(buf, count, dtype, root, comm, IC_MODE_PERSISTENT, req);
}

static ic_status_t reduce_call(const void *sendbuf, void *recvbuf, size_t count,
                               ic_datatype_t dtype, const ic_op_t *op, int root, ic_comm_t *comm,
                               ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_reduce", "ic_ireduce", "ic_reduce_init"};
    ic_coll_args_t a = args_of(IC_COLL_REDUCE, dtype);
    a.count = count;
    a.op = op;
    a.root = root;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_reduce(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                      const ic_op_t *op, int root, ic_comm_t *comm)
{
    return reduce_call(sendbuf, recvbuf, count, dtype, op, root, comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_ireduce(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                       const ic_op_t *op, int root, ic_comm_t *comm, ic_request_t **req)
{
    return reduce_call(sendbuf, recvbuf, count, dtype, op, root, comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_reduce_init(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                           const ic_op_t *op, int root, ic_comm_t *comm, ic_request_t **req)
{
    return reduce_call(sendbuf, recvbuf, count, dtype, op, root, comm, IC_MODE_PERSISTENT, req);
}

static ic_status_t allreduce_call(const void *sendbuf, void *recvbuf, size_t count,
                                  ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm,
                                  ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_allreduce", "ic_iallreduce", "ic_allreduce_init"};
    ic_coll_args_t a = args_of(IC_COLL_ALLREDUCE, dtype);
    a.count = count;
    a.op = op;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_allreduce(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                         const ic_op_t *op, ic_comm_t *comm)
{
    return allreduce_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_iallreduce(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                          const ic_op_t *op, ic_comm_t *comm, ic_request_t **req)
{
    return allreduce_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_allreduce_init(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                              const ic_op_t *op, ic_comm_t *comm, ic_request_t **req)
{
    return allreduce_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_PERSISTENT, req);
}

static ic_status_t scatter_call(const void *sendbuf, void *recvbuf, size_t count,
                                ic_datatype_t dtype, int root, ic_comm_t *comm, ic_mode_t mode,
                                ic_request_t **req)
{
    static const char *const fn[] = {"ic_scatter", "ic_iscatter", "ic_scatter_init"};
    ic_coll_args_t a = args_of(IC_COLL_SCATTER, dtype);
    a.count = count;
    a.root = root;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_scatter(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                       int root, ic_comm_t *comm)
{
    return scatter_call(sendbuf, recvbuf, count, dtype, root, comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_iscatter(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                        int root, ic_comm_t *comm, ic_request_t **req)
{
    return scatter_call(sendbuf, recvbuf, count, dtype, root, comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_scatter_init(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                            int root, ic_comm_t *comm, ic_request_t **req)
{
    return scatter_call(sendbuf, recvbuf, count, dtype, root, comm, IC_MODE_PERSISTENT, req);
}

static ic_status_t scatterv_call(const void *sendbuf, const size_t *sendcounts,
                                 const size_t *displs, void *recvbuf, ic_datatype_t dtype, int root,
                                 ic_comm_t *comm, ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_scatterv", "ic_iscatterv", "ic_scatterv_init"};
    ic_coll_args_t a = args_of(IC_COLL_SCATTERV, dtype);
    a.counts = sendcounts;
    a.displs = displs;
    a.root = root;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_scatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                        void *recvbuf, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    return scatterv_call(sendbuf, sendcounts, displs, recvbuf, dtype, root, comm, IC_MODE_BLOCKING,
                         NULL);
}
ic_status_t ic_iscatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                         void *recvbuf, ic_datatype_t dtype, int root, ic_comm_t *comm,
                         ic_request_t **req)
{
    return scatterv_call(sendbuf, sendcounts, displs, recvbuf, dtype, root, comm,
                         IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_scatterv_init(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                             void *recvbuf, ic_datatype_t dtype, int root, ic_comm_t *comm,
                             ic_request_t **req)
{
    return scatterv_call(sendbuf, sendcounts, displs, recvbuf, dtype, root, comm,
                         IC_MODE_PERSISTENT, req);
}

static ic_status_t gather_call(const void *sendbuf, void *recvbuf, size_t count,
                               ic_datatype_t dtype, int root, ic_comm_t *comm, ic_mode_t mode,
                               ic_request_t **req)
{
    static const char *const fn[] = {"ic_gather", "ic_igather", "ic_gather_init"};
    ic_coll_args_t a = args_of(IC_COLL_GATHER, dtype);
    a.count = count;
    a.root = root;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_gather(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                      int root, ic_comm_t *comm)
{
    return gather_call(sendbuf, recvbuf, count, dtype, root, comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_igather(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                       int root, ic_comm_t *comm, ic_request_t **req)
{
    return gather_call(sendbuf, recvbuf, count, dtype, root, comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_gather_init(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                           int root, ic_comm_t *comm, ic_request_t **req)
{
    return gather_call(sendbuf, recvbuf, count, dtype, root, comm, IC_MODE_PERSISTENT, req);
}

static ic_status_t gatherv_call(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                                const size_t *displs, ic_datatype_t dtype, int root,
                                ic_comm_t *comm, ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_gatherv", "ic_igatherv", "ic_gatherv_init"};
    ic_coll_args_t a = args_of(IC_COLL_GATHERV, dtype);
    a.counts = recvcounts;
    a.displs = displs;
    a.root = root;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_gatherv(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                       const size_t *displs, ic_datatype_t dtype, int root, ic_comm_t *comm)
{
    return gatherv_call(sendbuf, recvbuf, recvcounts, displs, dtype, root, comm, IC_MODE_BLOCKING,
                        NULL);
}
ic_status_t ic_igatherv(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                        const size_t *displs, ic_datatype_t dtype, int root, ic_comm_t *comm,
                        ic_request_t **req)
{
    return gatherv_call(sendbuf, recvbuf, recvcounts, displs, dtype, root, comm,
                        IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_gatherv_init(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                            const size_t *displs, ic_datatype_t dtype, int root, ic_comm_t *comm,
                            ic_request_t **req)
{
    return gatherv_call(sendbuf, recvbuf, recvcounts, displs, dtype, root, comm, IC_MODE_PERSISTENT,
                        req);
}

static ic_status_t allgather_call(const void *sendbuf, void *recvbuf, size_t count,
                                  ic_datatype_t dtype, ic_comm_t *comm, ic_mode_t mode,
                                  ic_request_t **req)
{
    static const char *const fn[] = {"ic_allgather", "ic_iallgather", "ic_allgather_init"};
    ic_coll_args_t a = args_of(IC_COLL_ALLGATHER, dtype);
    a.count = count;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_allgather(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                         ic_comm_t *comm)
{
    return allgather_call(sendbuf, recvbuf, count, dtype, comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_iallgather(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                          ic_comm_t *comm, ic_request_t **req)
{
    return allgather_call(sendbuf, recvbuf, count, dtype, comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_allgather_init(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                              ic_comm_t *comm, ic_request_t **req)
{
    return allgather_call(sendbuf, recvbuf, count, dtype, comm, IC_MODE_PERSISTENT, req);
}

static ic_status_t allgatherv_call(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                                   const size_t *displs, ic_datatype_t dtype, ic_comm_t *comm,
                                   ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_allgatherv", "ic_iallgatherv", "ic_allgatherv_init"};
    ic_coll_args_t a = args_of(IC_COLL_ALLGATHERV, dtype);
    a.counts = recvcounts;
    a.displs = displs;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_allgatherv(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                          const size_t *displs, ic_datatype_t dtype, ic_comm_t *comm)
{
    return allgatherv_call(sendbuf, recvbuf, recvcounts, displs, dtype, comm, IC_MODE_BLOCKING,
                           NULL);
}
ic_status_t ic_iallgatherv(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                           const size_t *displs, ic_datatype_t dtype, ic_comm_t *comm,
                           ic_request_t **req)
{
    return allgatherv_call(sendbuf, recvbuf, recvcounts, displs, dtype, comm, IC_MODE_NONBLOCKING,
                           req);
}
ic_status_t ic_allgatherv_init(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                               const size_t *displs, ic_datatype_t dtype, ic_comm_t *comm,
                               ic_request_t **req)
{
    return allgatherv_call(sendbuf, recvbuf, recvcounts, displs, dtype, comm, IC_MODE_PERSISTENT,
                           req);
}

static ic_status_t reduce_scatter_block_call(const void *sendbuf, void *recvbuf, size_t count,
                                             ic_datatype_t dtype, const ic_op_t *op,
                                             ic_comm_t *comm, ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_reduce_scatter_block", "ic_ireduce_scatter_block",
                                     "ic_reduce_scatter_block_init"};
    ic_coll_args_t a = args_of(IC_COLL_REDUCE_SCATTER_BLOCK, dtype);
    a.count = count;
    a.op = op;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_reduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                    ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    return reduce_scatter_block_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_BLOCKING,
                                     NULL);
}
ic_status_t ic_ireduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                     ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm,
                                     ic_request_t **req)
{
    return reduce_scatter_block_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_NONBLOCKING,
                                     req);
}
ic_status_t ic_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, size_t count,
                                         ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm,
                                         ic_request_t **req)
{
    return reduce_scatter_block_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_PERSISTENT,
                                     req);
}

static ic_status_t reduce_scatter_call(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                                       ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm,
                                       ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_reduce_scatter", "ic_ireduce_scatter",
                                     "ic_reduce_scatter_init"};
    ic_coll_args_t a = args_of(IC_COLL_REDUCE_SCATTER, dtype);
    a.counts = recvcounts;
    a.op = op;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_reduce_scatter(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                              ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm)
{
    return reduce_scatter_call(sendbuf, recvbuf, recvcounts, dtype, op, comm, IC_MODE_BLOCKING,
                               NULL);
}
ic_status_t ic_ireduce_scatter(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                               ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm,
                               ic_request_t **req)
{
    return reduce_scatter_call(sendbuf, recvbuf, recvcounts, dtype, op, comm, IC_MODE_NONBLOCKING,
                               req);
}
ic_status_t ic_reduce_scatter_init(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                                   ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm,
                                   ic_request_t **req)
{
    return reduce_scatter_call(sendbuf, recvbuf, recvcounts, dtype, op, comm, IC_MODE_PERSISTENT,
                               req);
}

static ic_status_t alltoall_call(const void *sendbuf, void *recvbuf, size_t count,
                                 ic_datatype_t dtype, ic_comm_t *comm, ic_mode_t mode,
                                 ic_request_t **req)
{
    static const char *const fn[] = {"ic_alltoall", "ic_ialltoall", "ic_alltoall_init"};
    ic_coll_args_t a = args_of(IC_COLL_ALLTOALL, dtype);
    a.count = count;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_alltoall(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                        ic_comm_t *comm)
{
    return alltoall_call(sendbuf, recvbuf, count, dtype, comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_ialltoall(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                         ic_comm_t *comm, ic_request_t **req)
{
    return alltoall_call(sendbuf, recvbuf, count, dtype, comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_alltoall_init(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                             ic_comm_t *comm, ic_request_t **req)
{
    return alltoall_call(sendbuf, recvbuf, count, dtype, comm, IC_MODE_PERSISTENT, req);
}

static ic_status_t alltoallv_call(const void *sendbuf, const size_t *sendcounts,
                                  const size_t *sdispls, void *recvbuf, const size_t *recvcounts,
                                  const size_t *rdispls, ic_datatype_t dtype, ic_comm_t *comm,
                                  ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_alltoallv", "ic_ialltoallv", "ic_alltoallv_init"};
    ic_coll_args_t a = args_of(IC_COLL_ALLTOALLV, dtype);
    a.scounts = sendcounts;
    a.sdispls = sdispls;
    a.rcounts = recvcounts;
    a.rdispls = rdispls;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_alltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                         void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                         ic_datatype_t dtype, ic_comm_t *comm)
{
    return alltoallv_call(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dtype, comm,
                          IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_ialltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                          void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                          ic_datatype_t dtype, ic_comm_t *comm, ic_request_t **req)
{
    return alltoallv_call(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dtype, comm,
                          IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_alltoallv_init(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                              void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                              ic_datatype_t dtype, ic_comm_t *comm, ic_request_t **req)
{
    return alltoallv_call(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dtype, comm,
                          IC_MODE_PERSISTENT, req);
}

static ic_status_t barrier_call(ic_comm_t *comm, ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_barrier", "ic_ibarrier", "ic_barrier_init"};
    ic_coll_args_t a = args_of(IC_COLL_BARRIER, IC_BYTE);

    return ic_coll_run(fn[mode], comm, &a, NULL, NULL, mode, req);
}
ic_status_t ic_barrier(ic_comm_t *comm)
{
    return barrier_call(comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_ibarrier(ic_comm_t *comm, ic_request_t **req)
{
    return barrier_call(comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_barrier_init(ic_comm_t *comm, ic_request_t **req)
{
    return barrier_call(comm, IC_MODE_PERSISTENT, req);
}

static ic_status_t scan_call(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                             const ic_op_t *op, ic_comm_t *comm, ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_scan", "ic_iscan", "ic_scan_init"};
    ic_coll_args_t a = args_of(IC_COLL_SCAN, dtype);
    a.count = count;
    a.op = op;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_scan(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                    const ic_op_t *op, ic_comm_t *comm)
{
    return scan_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_iscan(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                     const ic_op_t *op, ic_comm_t *comm, ic_request_t **req)
{
    return scan_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_scan_init(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                         const ic_op_t *op, ic_comm_t *comm, ic_request_t **req)
{
    return scan_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_PERSISTENT, req);
}

static ic_status_t exscan_call(const void *sendbuf, void *recvbuf, size_t count,
                               ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm,
                               ic_mode_t mode, ic_request_t **req)
{
    static const char *const fn[] = {"ic_exscan", "ic_iexscan", "ic_exscan_init"};
    ic_coll_args_t a = args_of(IC_COLL_EXSCAN, dtype);
    a.count = count;
    a.op = op;
    return ic_coll_run(fn[mode], comm, &a, sendbuf, recvbuf, mode, req);
}
ic_status_t ic_exscan(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                      const ic_op_t *op, ic_comm_t *comm)
{
    return exscan_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_BLOCKING, NULL);
}
ic_status_t ic_iexscan(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                       const ic_op_t *op, ic_comm_t *comm, ic_request_t **req)
{
    return exscan_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_NONBLOCKING, req);
}
ic_status_t ic_exscan_init(const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,
                           const ic_op_t *op, ic_comm_t *comm, ic_request_t **req)
{
    return exscan_call(sendbuf, recvbuf, count, dtype, op, comm, IC_MODE_PERSISTENT, req);
}
