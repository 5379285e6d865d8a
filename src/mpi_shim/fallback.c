/*
 * fallback.c — a persistent collective that falls back (MPI 4): each
 * MPI_Start runs MPI's own nonblocking form of the call, and the request
 * the program holds is the drop-in's (requests.c), as for a served one.
 * MPICH 4.0's MPI_Testall/Testany/Testsome mishandle its own persistent
 * collective requests, and the drop-in's waits poll with them while
 * served calls are in flight; with every persistent collective the
 * drop-in's, an array of requests only ever holds point-to-point ones.
 * MPI allows a persistent collective to be a nonblocking one per start.
 */
#include "mpi_shim/shim.h"

#if MPI_VERSION >= 4
/* MPI's nonblocking form of call c, with count type CNT and displacement
 * type DSP (the _c forms: MPI_Count, MPI_Aint). */
#define ISTART(SFX, CNT, DSP)                                                                  \
    switch (c->coll) {                                                                         \
    case IC_COLL_BCAST:                                                                        \
        return PMPI_Ibcast##SFX(c->rb, (CNT)c->scount, c->stype, c->root, c->comm, r);         \
    case IC_COLL_REDUCE:                                                                       \
        return PMPI_Ireduce##SFX(c->sb, c->rb, (CNT)c->scount, c->stype, c->op, c->root,       \
                                 c->comm, r);                                                  \
    case IC_COLL_ALLREDUCE:                                                                    \
        return PMPI_Iallreduce##SFX(c->sb, c->rb, (CNT)c->scount, c->stype, c->op, c->comm, r); \
    case IC_COLL_SCAN:                                                                         \
        return PMPI_Iscan##SFX(c->sb, c->rb, (CNT)c->scount, c->stype, c->op, c->comm, r);     \
    case IC_COLL_EXSCAN:                                                                       \
        return PMPI_Iexscan##SFX(c->sb, c->rb, (CNT)c->scount, c->stype, c->op, c->comm, r);   \
    case IC_COLL_REDUCE_SCATTER_BLOCK:                                                         \
        return PMPI_Ireduce_scatter_block##SFX(c->sb, c->rb, (CNT)c->rcount, c->stype, c->op,  \
                                               c->comm, r);                                    \
    case IC_COLL_REDUCE_SCATTER:                                                               \
        return PMPI_Ireduce_scatter##SFX(c->sb, c->rb, (const CNT *)c->rcounts, c->stype,      \
                                         c->op, c->comm, r);                                   \
    case IC_COLL_SCATTER:                                                                      \
        return PMPI_Iscatter##SFX(c->sb, (CNT)c->scount, c->stype, c->rb, (CNT)c->rcount,      \
                                  c->rtype, c->root, c->comm, r);                              \
    case IC_COLL_GATHER:                                                                       \
        return PMPI_Igather##SFX(c->sb, (CNT)c->scount, c->stype, c->rb, (CNT)c->rcount,       \
                                 c->rtype, c->root, c->comm, r);                               \
    case IC_COLL_ALLGATHER:                                                                    \
        return PMPI_Iallgather##SFX(c->sb, (CNT)c->scount, c->stype, c->rb, (CNT)c->rcount,    \
                                    c->rtype, c->comm, r);                                     \
    case IC_COLL_ALLTOALL:                                                                     \
        return PMPI_Ialltoall##SFX(c->sb, (CNT)c->scount, c->stype, c->rb, (CNT)c->rcount,     \
                                   c->rtype, c->comm, r);                                      \
    case IC_COLL_SCATTERV:                                                                     \
        return PMPI_Iscatterv##SFX(c->sb, (const CNT *)c->scounts, (const DSP *)c->sdispls,    \
                                   c->stype, c->rb, (CNT)c->rcount, c->rtype, c->root,         \
                                   c->comm, r);                                                \
    case IC_COLL_GATHERV:                                                                      \
        return PMPI_Igatherv##SFX(c->sb, (CNT)c->scount, c->stype, c->rb,                      \
                                  (const CNT *)c->rcounts, (const DSP *)c->rdispls, c->rtype,  \
                                  c->root, c->comm, r);                                        \
    case IC_COLL_ALLGATHERV:                                                                   \
        return PMPI_Iallgatherv##SFX(c->sb, (CNT)c->scount, c->stype, c->rb,                   \
                                     (const CNT *)c->rcounts, (const DSP *)c->rdispls,         \
                                     c->rtype, c->comm, r);                                    \
    case IC_COLL_ALLTOALLV:                                                                    \
        return PMPI_Ialltoallv##SFX(c->sb, (const CNT *)c->scounts, (const DSP *)c->sdispls,   \
                                    c->stype, c->rb, (const CNT *)c->rcounts,                  \
                                    (const DSP *)c->rdispls, c->rtype, c->comm, r);            \
    case IC_COLL_BARRIER:                                                                      \
        return PMPI_Ibarrier(c->comm, r);                                                      \
    default:                                                                                   \
        return MPI_ERR_INTERN;                                                                 \
    }

int shim_pmpi_start(const shim_call_t *c, MPI_Request *r)
{
    if (c->wide) {
        ISTART(_c, MPI_Count, MPI_Aint)
    }
    ISTART(, int, int)
}
#endif
