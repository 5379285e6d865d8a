/*
 * validate.h — argument checks shared by every entry point (the public
 * collectives and the in-process engine).  They run before any plan is
 * built, so a rejected call has written nothing.
 */
#ifndef IC_ALGO_VALIDATE_H
#define IC_ALGO_VALIDATE_H

#include "algo/coll_args.h"

/* Checks one rank's arguments of a collective on a communicator of size
 * ranks (datatype, op, root, count arrays, in-place use).  fn names the
 * caller in the message, e.g. "ic_bcast".  Buffers are checked by the
 * caller, which knows them. */
ic_status_t ic_validate_args(const char *fn, const ic_coll_args_t *a, int rank, int size);

/* Whether the collective has a root / combines with an operation. */
bool ic_coll_rooted(ic_coll_t c);
bool ic_coll_reduces(ic_coll_t c);

/* Bytes of the send and receive buffer this rank's call reads or writes. */
void ic_args_buffer_bytes(const ic_coll_args_t *a, int rank, int size, size_t *send_bytes,
                          size_t *recv_bytes);

#endif
