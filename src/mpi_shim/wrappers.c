/*
 * wrappers.c — the MPI_ collective functions the drop-in defines.
 *
 * For every collective: the blocking form, the nonblocking MPI_I form,
 * and (MPI 4: MPICH) the persistent _init form; each also with MPI 4's
 * large counts (_c: MPI_Count counts, MPI_Aint displacements).  Each
 * wrapper fills a shim_call_t and asks shim_collective (run.c) to serve
 * it; otherwise it calls the PMPI_ function with its own arguments, so
 * that a fall-back has MPI's semantics exactly (a persistent one runs
 * MPI's nonblocking form at each start: fallback.c).  A blocking fall-back
 * while served requests are in flight runs as MPI's nonblocking form
 * waited for by shim_block, which keeps those requests moving.
 */
#include "mpi_shim/shim.h"

#include <stdatomic.h>

#define UNPAREN(...) __VA_ARGS__

/* Blocking, nonblocking and persistent wrappers of one collective.
 * Cap/low: its names (MPI_Allreduce, MPI_Iallreduce); SFX: "" or _c;
 * P: parameters; A: arguments; FILL: sets the shim_call_t c. */
#define WRAP_B(Cap, low, SFX, COLL, WIDE, P, A, FILL)                                          \
    int MPI_##Cap##SFX P                                                                       \
    {                                                                                          \
        shim_call_t c = {.coll = COLL, .form = SHIM_BLOCKING, .wide = WIDE};                   \
        FILL;                                                                                  \
        int rc;                                                                                \
        if (shim_collective(&c, NULL, &rc))                                                    \
            return rc;                                                                         \
        if (atomic_load(&shim_inflight) > 0) {                                                 \
            MPI_Request r_;                                                                    \
            rc = PMPI_I##low##SFX(UNPAREN A, &r_);                                             \
            return rc != MPI_SUCCESS ? rc : shim_block(&r_, MPI_STATUS_IGNORE);                \
        }                                                                                      \
        return PMPI_##Cap##SFX A;                                                              \
    }
#define WRAP_I(Cap, low, SFX, COLL, WIDE, P, A, FILL)                                          \
    int MPI_I##low##SFX(UNPAREN P, MPI_Request *req)                                           \
    {                                                                                          \
        shim_call_t c = {.coll = COLL, .form = SHIM_NONBLOCKING, .wide = WIDE};                \
        FILL;                                                                                  \
        int rc;                                                                                \
        if (shim_collective(&c, req, &rc))                                                     \
            return rc;                                                                         \
        return PMPI_I##low##SFX(UNPAREN A, req);                                               \
    }
#if MPI_VERSION >= 4
#define WRAP_P(Cap, low, SFX, COLL, WIDE, P, A, FILL)                                          \
    int MPI_##Cap##_init##SFX(UNPAREN P, MPI_Info info, MPI_Request *req)                      \
    {                                                                                          \
        shim_call_t c = {.coll = COLL, .form = SHIM_PERSISTENT, .wide = WIDE};                 \
        FILL;                                                                                  \
        int rc;                                                                                \
        (void)info;                                                                            \
        if (shim_collective(&c, req, &rc))                                                     \
            return rc;                                                                         \
        return shim_persistent_fallback(&c, req);                                              \
    }
#else
#define WRAP_P(Cap, low, SFX, COLL, WIDE, P, A, FILL)
#endif
#define WRAP3(...) WRAP_B(__VA_ARGS__) WRAP_I(__VA_ARGS__) WRAP_P(__VA_ARGS__)

/* The collectives, for count type CNT and displacement type DSP. */
#define COLLECTIVES(SFX, CNT, DSP, WIDE)                                                       \
    WRAP3(Bcast, bcast, SFX, IC_COLL_BCAST, WIDE,                                              \
          (void *buf, CNT count, MPI_Datatype dt, int root, MPI_Comm comm),                    \
          (buf, count, dt, root, comm),                                                        \
          (c.rb = buf, c.scount = count, c.stype = dt, c.root = root, c.comm = comm))          \
    WRAP3(Reduce, reduce, SFX, IC_COLL_REDUCE, WIDE,                                           \
          (const void *sb, void *rb, CNT count, MPI_Datatype dt, MPI_Op op, int root,          \
           MPI_Comm comm),                                                                     \
          (sb, rb, count, dt, op, root, comm),                                                 \
          (c.sb = sb, c.rb = rb, c.scount = count, c.stype = dt, c.op = op, c.root = root,     \
           c.comm = comm))                                                                     \
    WRAP3(Allreduce, allreduce, SFX, IC_COLL_ALLREDUCE, WIDE,                                  \
          (const void *sb, void *rb, CNT count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm),    \
          (sb, rb, count, dt, op, comm),                                                       \
          (c.sb = sb, c.rb = rb, c.scount = count, c.stype = dt, c.op = op, c.comm = comm))    \
    WRAP3(Scan, scan, SFX, IC_COLL_SCAN, WIDE,                                                 \
          (const void *sb, void *rb, CNT count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm),    \
          (sb, rb, count, dt, op, comm),                                                       \
          (c.sb = sb, c.rb = rb, c.scount = count, c.stype = dt, c.op = op, c.comm = comm))    \
    WRAP3(Exscan, exscan, SFX, IC_COLL_EXSCAN, WIDE,                                           \
          (const void *sb, void *rb, CNT count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm),    \
          (sb, rb, count, dt, op, comm),                                                       \
          (c.sb = sb, c.rb = rb, c.scount = count, c.stype = dt, c.op = op, c.comm = comm))    \
    WRAP3(Reduce_scatter_block, reduce_scatter_block, SFX, IC_COLL_REDUCE_SCATTER_BLOCK, WIDE, \
          (const void *sb, void *rb, CNT rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm),   \
          (sb, rb, rcount, dt, op, comm),                                                      \
          (c.sb = sb, c.rb = rb, c.rcount = rcount, c.stype = dt, c.op = op, c.comm = comm))   \
    WRAP3(Reduce_scatter, reduce_scatter, SFX, IC_COLL_REDUCE_SCATTER, WIDE,                   \
          (const void *sb, void *rb, const CNT rcounts[], MPI_Datatype dt, MPI_Op op,          \
           MPI_Comm comm),                                                                     \
          (sb, rb, rcounts, dt, op, comm),                                                     \
          (c.sb = sb, c.rb = rb, c.rcounts = rcounts, c.stype = dt, c.op = op, c.comm = comm)) \
    WRAP3(Scatter, scatter, SFX, IC_COLL_SCATTER, WIDE,                                        \
          (const void *sb, CNT scount, MPI_Datatype stype, void *rb, CNT rcount,               \
           MPI_Datatype rtype, int root, MPI_Comm comm),                                       \
          (sb, scount, stype, rb, rcount, rtype, root, comm),                                  \
          (c.sb = sb, c.scount = scount, c.stype = stype, c.rb = rb, c.rcount = rcount,        \
           c.rtype = rtype, c.root = root, c.comm = comm))                                     \
    WRAP3(Gather, gather, SFX, IC_COLL_GATHER, WIDE,                                           \
          (const void *sb, CNT scount, MPI_Datatype stype, void *rb, CNT rcount,               \
           MPI_Datatype rtype, int root, MPI_Comm comm),                                       \
          (sb, scount, stype, rb, rcount, rtype, root, comm),                                  \
          (c.sb = sb, c.scount = scount, c.stype = stype, c.rb = rb, c.rcount = rcount,        \
           c.rtype = rtype, c.root = root, c.comm = comm))                                     \
    WRAP3(Allgather, allgather, SFX, IC_COLL_ALLGATHER, WIDE,                                  \
          (const void *sb, CNT scount, MPI_Datatype stype, void *rb, CNT rcount,               \
           MPI_Datatype rtype, MPI_Comm comm),                                                 \
          (sb, scount, stype, rb, rcount, rtype, comm),                                        \
          (c.sb = sb, c.scount = scount, c.stype = stype, c.rb = rb, c.rcount = rcount,        \
           c.rtype = rtype, c.comm = comm))                                                    \
    WRAP3(Alltoall, alltoall, SFX, IC_COLL_ALLTOALL, WIDE,                                     \
          (const void *sb, CNT scount, MPI_Datatype stype, void *rb, CNT rcount,               \
           MPI_Datatype rtype, MPI_Comm comm),                                                 \
          (sb, scount, stype, rb, rcount, rtype, comm),                                        \
          (c.sb = sb, c.scount = scount, c.stype = stype, c.rb = rb, c.rcount = rcount,        \
           c.rtype = rtype, c.comm = comm))                                                    \
    WRAP3(Scatterv, scatterv, SFX, IC_COLL_SCATTERV, WIDE,                                     \
          (const void *sb, const CNT scounts[], const DSP displs[], MPI_Datatype stype,         \
           void *rb, CNT rcount, MPI_Datatype rtype, int root, MPI_Comm comm),                 \
          (sb, scounts, displs, stype, rb, rcount, rtype, root, comm),                         \
          (c.sb = sb, c.scounts = scounts, c.sdispls = displs, c.stype = stype, c.rb = rb,     \
           c.rcount = rcount, c.rtype = rtype, c.root = root, c.comm = comm))                  \
    WRAP3(Gatherv, gatherv, SFX, IC_COLL_GATHERV, WIDE,                                        \
          (const void *sb, CNT scount, MPI_Datatype stype, void *rb, const CNT rcounts[],      \
           const DSP displs[], MPI_Datatype rtype, int root, MPI_Comm comm),                   \
          (sb, scount, stype, rb, rcounts, displs, rtype, root, comm),                         \
          (c.sb = sb, c.scount = scount, c.stype = stype, c.rb = rb, c.rcounts = rcounts,      \
           c.rdispls = displs, c.rtype = rtype, c.root = root, c.comm = comm))                 \
    WRAP3(Allgatherv, allgatherv, SFX, IC_COLL_ALLGATHERV, WIDE,                               \
          (const void *sb, CNT scount, MPI_Datatype stype, void *rb, const CNT rcounts[],      \
           const DSP displs[], MPI_Datatype rtype, MPI_Comm comm),                             \
          (sb, scount, stype, rb, rcounts, displs, rtype, comm),                               \
          (c.sb = sb, c.scount = scount, c.stype = stype, c.rb = rb, c.rcounts = rcounts,      \
           c.rdispls = displs, c.rtype = rtype, c.comm = comm))                                \
    WRAP3(Alltoallv, alltoallv, SFX, IC_COLL_ALLTOALLV, WIDE,                                  \
          (const void *sb, const CNT scounts[], const DSP sdispls[], MPI_Datatype stype,       \
           void *rb, const CNT rcounts[], const DSP rdispls[], MPI_Datatype rtype,             \
           MPI_Comm comm),                                                                     \
          (sb, scounts, sdispls, stype, rb, rcounts, rdispls, rtype, comm),                    \
          (c.sb = sb, c.scounts = scounts, c.sdispls = sdispls, c.stype = stype, c.rb = rb,    \
           c.rcounts = rcounts, c.rdispls = rdispls, c.rtype = rtype, c.comm = comm))

COLLECTIVES(, int, int, 0)
#if MPI_VERSION >= 4
COLLECTIVES(_c, MPI_Count, MPI_Aint, 1)
#endif

/* Barrier has no counts, so no _c form. */
WRAP3(Barrier, barrier, , IC_COLL_BARRIER, 0, (MPI_Comm comm), (comm), (c.comm = comm))

static int reduce_local(const void *in, void *inout, MPI_Count n, MPI_Datatype dt, MPI_Op op,
                        int wide, int *rc)
{
    shim_call_t c = {.coll = SHIM_REDUCE_LOCAL, .form = SHIM_BLOCKING, .wide = wide};
    c.sb = in, c.rb = inout, c.scount = n, c.stype = dt, c.op = op, c.comm = MPI_COMM_SELF;
    return shim_collective(&c, NULL, rc);
}

int MPI_Reduce_local(const void *in, void *inout, int n, MPI_Datatype dt, MPI_Op op)
{
    int rc;
    return reduce_local(in, inout, n, dt, op, 0, &rc) ? rc : PMPI_Reduce_local(in, inout, n, dt, op);
}

#if MPI_VERSION >= 4
int MPI_Reduce_local_c(const void *in, void *inout, MPI_Count n, MPI_Datatype dt, MPI_Op op)
{
    int rc;
    return reduce_local(in, inout, n, dt, op, 1, &rc) ? rc
                                                      : PMPI_Reduce_local_c(in, inout, n, dt, op);
}
#endif
