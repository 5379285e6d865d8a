/*
 * call_args.h — what one collective call's arguments are checked for on
 * this rank, and the signature its messages carry (call_args.c).
 * coll_run.c runs the call.
 */
#ifndef IC_CORE_CALL_ARGS_H
#define IC_CORE_CALL_ARGS_H

#include "algo/coll_args.h"
#include "core/comm.h"
#include "select/catalog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes IC_IN_PLACE (sendbuf, or recvbuf of scatter(v) at the root:
 * then NULL and a->in_place), takes comm's reproducible mode and drops a
 * non-root's scatterv/gatherv displacements (as in MPI they matter only at
 * the root: neither checked nor read nor cached elsewhere).  IC_ERR_BUFFER
 * naming fn for an IC_IN_PLACE recvbuf where it is not allowed. */
ic_status_t ic_call_decode(const char *fn, const ic_comm_t *comm, ic_coll_args_t *a,
                           const void **sendbuf, void **recvbuf);

/* After ic_call_decode: the model and placement of comm into a, then every
 * argument of the call checked on this rank (ic_validate_args, the
 * buffers against the bytes the call reads and writes, overlap). */
ic_status_t ic_call_check(const char *fn, const ic_comm_t *comm, ic_coll_args_t *a,
                          const void *sendbuf, const void *recvbuf);

/* True when buffers of sb send and rb receive bytes overlap: without
 * IC_IN_PLACE the send bytes would be overwritten while still being sent. */
bool ic_call_buffers_overlap(const void *sendbuf, size_t sb, const void *recvbuf, size_t rb);

/* The call's signature: everything that every rank passes alike and that
 * shapes the messages (collective, the decision, root, datatype, counts,
 * the op's kind and commutativity), hashed.  Buffers, IC_IN_PLACE,
 * displacements, all-to-all(v)'s per-rank counts and counts known at the
 * root only stay out. */
uint32_t ic_call_sig(const ic_coll_args_t *a, const ic_choice_t *c, int p);

#endif
