/*
 * mpi_transport.h — the MPI backend: point-to-point between processes on
 * different hosts, over nonblocking MPI on a private duplicate of the
 * user's communicator (transport ranks = ranks of that communicator).
 * Built only into the MPI bridge libraries (libintercom_mpi_<impl>).
 */
#ifndef IC_TRANSPORT_MPI_TRANSPORT_H
#define IC_TRANSPORT_MPI_TRANSPORT_H

#include "transport/transport.h"

#include <mpi.h>

/* Collective over comm (it calls MPI_Comm_dup): opens an instance whose
 * rank and size are comm's.  eager_max: the largest payload sent inline
 * with its header (0: the default, 16 KiB; IC_MPI_EAGER overrides it). */
ic_status_t ic_mpi_transport_open(MPI_Comm comm, size_t eager_max, ic_transport_t **out);

#endif
