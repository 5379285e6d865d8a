/*
 * intercom_mpi.h — intercom inside an MPI program (docs/mpi.md).
 *
 * Link with the bridge library built for the MPI you compile with
 * (libintercom_mpi_openmpi or libintercom_mpi_mpich; pkg-config names
 * intercom-mpi-openmpi / intercom-mpi-mpich): it holds the whole library
 * plus these functions, so do not link libintercom as well.
 *
 *   MPI_Init(&argc, &argv);
 *   ic_comm_t *comm;
 *   ic_comm_from_mpi(MPI_COMM_WORLD, &comm);   // collective; no ic_init
 *   ic_allreduce(in, out, n, IC_DOUBLE, IC_SUM, comm);
 *   ic_comm_free_mpi(&comm);                   // collective
 *   MPI_Finalize();
 *
 * Ranks of the new communicator are those of the MPI communicator.  Ranks
 * on one host (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED) talk through
 * intercom's shared-memory transport, bootstrapped over MPI (no
 * intercom-run); ranks on different hosts through nonblocking MPI
 * point-to-point on a private duplicate of comm.  Sub-communicators made
 * from it with ic_comm_split / ic_comm_create_group work as usual and
 * must be freed (ic_comm_free) before it.
 *
 * Environment, besides the IC_* variables ic_init reads:
 *   IC_MPI_NO_SHM=1   every peer through MPI, also on one host.
 *   IC_MPI_EAGER=N    bytes up to which a message to another host travels
 *                     with its header (default 16384).
 *
 * Threads: the bridge calls MPI from whichever thread calls intercom, one
 * thread at a time (intercom's progress lock), so a program that calls
 * intercom from several threads needs MPI_THREAD_SERIALIZED or better.
 */
#ifndef INTERCOM_MPI_H
#define INTERCOM_MPI_H

#include <mpi.h>

#include "intercom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over comm (an intracommunicator; MPI must be initialized):
 * makes *out, an intercom communicator over the same processes in the
 * same rank order.  Every rank returns the same status: if one rank fails
 * (say, it cannot create its host's shared segment), all fail, with
 * IC_ERR_TRANSPORT naming it; IC_ERR_ARG / IC_ERR_COMM for a bad out or
 * comm (MPI_COMM_NULL, an intercommunicator, MPI not initialized). */
IC_API ic_status_t ic_comm_from_mpi(MPI_Comm comm, ic_comm_t **out);

/* Collective over the communicator: waits for every member, detaches
 * from the shared segment and the MPI duplicate, frees *comm and sets it
 * to NULL.  Must come before MPI_Finalize. */
IC_API ic_status_t ic_comm_free_mpi(ic_comm_t **comm);

/* How the bridge placed the ranks: *nhosts hosts, and per rank of comm
 * its host index (0 .. nhosts-1, in the order of each host's lowest rank)
 * in host_of[] when host_of is not NULL (comm's size entries). */
IC_API ic_status_t ic_comm_mpi_hosts(const ic_comm_t *comm, int *nhosts, int *host_of);

#ifdef __cplusplus
}
#endif

#endif
