/*
 * comm_wrappers.c — communicator constructors: the new communicator gets
 * its intercom side at once, inside MPI's own (blocking, collective)
 * constructor, rather than at its first served call, so that a first
 * nonblocking collective on it does not have to synchronize its ranks.
 * (MPI_Comm_idup and the graph constructors are left to the first call.)
 */
#include "mpi_shim/shim.h"

static int made(int rc, MPI_Comm *newcomm)
{
    if (rc == MPI_SUCCESS && newcomm && *newcomm != MPI_COMM_NULL) {
        shim_reason_t why;
        (void)shim_comm(*newcomm, &why); /* collective over *newcomm */
    }
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return made(PMPI_Comm_dup(comm, newcomm), newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return made(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return made(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    return made(PMPI_Comm_split_type(comm, type, key, info, newcomm), newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return made(PMPI_Comm_create(comm, group, newcomm), newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    return made(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *newcomm)
{
    return made(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), newcomm);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *newcomm)
{
    return made(PMPI_Cart_sub(comm, remain, newcomm), newcomm);
}

int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *newcomm)
{
    return made(PMPI_Intercomm_merge(inter, high, newcomm), newcomm);
}
