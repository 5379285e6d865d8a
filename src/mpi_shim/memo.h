/*
 * memo.h — the drop-in's memo of its last blocking calls per communicator
 * (memo.c says how and why).
 */
#ifndef IC_MPI_SHIM_MEMO_H
#define IC_MPI_SHIM_MEMO_H

#include "mpi_shim/shim.h"

#include "core/coll_run.h"

/* Calls remembered per collective and communicator. */
#define SHIM_MEMO_WAYS 4

typedef struct shim_memo shim_memo_t;
typedef struct shim_memo_way shim_memo_way_t;

shim_memo_t *shim_memo_new(void);
void shim_memo_free(shim_memo_t *t);

/* Runs blocking call c on ic (t: ic's memo) as the remembered call it
 * equals, if any: 1 with *rc its MPI return code, or 0, having done
 * nothing. */
int shim_memo_run(shim_memo_t *t, ic_comm_t *ic, const shim_call_t *c, int *rc);

/* The way call c (taking the short way on ic; reductions: op and rt its
 * op and datatype) is to be remembered in, emptied, or NULL when it may
 * not be remembered.  The caller runs c with ic_coll_run_memo into
 * shim_memo_run_state(way), then calls shim_memo_keep with the buffers it
 * gave intercom. */
shim_memo_way_t *shim_memo_slot(shim_memo_t *t, const shim_call_t *c, const ic_comm_t *ic,
                                const ic_op_t *op, const shim_type_t *rt);
ic_coll_memo_t *shim_memo_run_state(shim_memo_way_t *way);
void shim_memo_keep(shim_memo_t *t, shim_memo_way_t *way, const shim_call_t *c,
                    const ic_comm_t *ic, const void *sb, const void *rb);

/* The memo of comm, with *ic its intercom side, if comm is a served
 * MPI_COMM_WORLD or this thread's last communicator (setup.c; no
 * communicator is looked up or made here), made at the first use; NULL
 * otherwise or when out of memory. */
shim_memo_t *shim_comm_memo(MPI_Comm comm, ic_comm_t **ic);

#endif
