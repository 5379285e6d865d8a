/*
 * exec.h — one MPI collective call translated into one intercom call
 * (prepare.c), and how it runs (run.c, requests.c).
 */
#ifndef IC_MPI_SHIM_EXEC_H
#define IC_MPI_SHIM_EXEC_H

#include "mpi_shim/shim.h"

#include "algo/coll_args.h"

/* A piece of the caller's buffer in a layout that is not one run: count
 * elements of type at user, packed at tmp + off. */
typedef struct shim_blk {
    char *user;
    MPI_Count count;
    MPI_Datatype type;
    size_t off;
    int part; /* 0: in the send side's part of tmp, 1: the receive side's */
} shim_blk_t;

typedef struct shim_exec {
    shim_call_t call;
    ic_comm_t *ic;
    int me, p;
    /* The intercom call: data-moving collectives in bytes (IC_BYTE),
     * reductions in the base type of the MPI datatype. */
    ic_coll_t coll;
    ic_datatype_t dtype;
    const ic_op_t *op;
    int root;
    size_t count;
    const void *sb; /* IC_IN_PLACE where MPI_IN_PLACE */
    void *rb;
    size_t *counts, *displs, *scounts, *sdispls, *rcounts, *rdispls;
    /* scatterv, gatherv: the counts (bytes) exist at the root only; the
     * others learn them from a broadcast of counts[] before the call. */
    int root_counts;
    /* scatterv, gatherv run as calls whose counts only the root has
     * (ic_coll_args_t.counts_at_root: the direct entries), so nothing is
     * broadcast first; root_counts is then 0. */
    int counts_at_root;
    /* Packing: tmp holds the packed send side at 0 and the receive side
     * at tmp_rpos; in[] are packed before the call, out[] unpacked after. */
    char *tmp;
    shim_blk_t *in, *out;
    int nin, nout;
    size_t *arr; /* owns the arrays above (one allocation) */
    shim_blk_t *blks;
    int arrays_local; /* arr and blks are the thread's (a blocking call): not freed */
} shim_exec_t;

/* Fills x for call c on intercom communicator ic (reductions: op and
 * their datatype rt already checked; rt is not read for the other
 * collectives).  IC_OK, or an error with ic_last_error() naming the
 * argument (the caller rejects the call). */
ic_status_t shim_prepare(const shim_call_t *c, ic_comm_t *ic, const ic_op_t *op,
                         const shim_type_t *rt, shim_exec_t *x);
/* Scatterv and gatherv on ic run with the counts at the root only (the
 * direct entries) instead of broadcasting the root's counts first
 * (prepare.c); the same on every rank. */
int shim_counts_at_root_pays(const ic_comm_t *ic, ic_coll_t coll);
/* The description of t when it is a predefined datatype whose elements
 * are one contiguous run (nothing to pack), else NULL (simple.c). */
const shim_type_t *shim_type_contiguous(MPI_Datatype t);

/* The v-forms' short way handles communicators of up to this many ranks
 * (their arrays are the caller's, 4 * SHIM_SIMPLE_MAX_P entries). */
#define SHIM_SIMPLE_MAX_P 64
/* The short way (simple.c, simple_v.c): for a blocking call c on ic that
 * needs no packing, fills a (zeroed, with a->coll set) and the buffers as
 * shim_prepare and the public blocking function would, the v-forms' byte
 * counts and displacements into arr (room for 4 * SHIM_SIMPLE_MAX_P), and
 * returns that function's name ("ic_bcast"), which ic_coll_run puts in its
 * messages; returns NULL for any other call, which takes the full way
 * (reductions: rt is their datatype, already accepted with the op). */
const char *shim_simple_args(const shim_call_t *c, const ic_comm_t *ic, const shim_type_t *rt,
                             ic_coll_args_t *a, const void **sb, void **rb, size_t *arr);
/* Its part for scatterv, gatherv, allgatherv, alltoallv, reduce_scatter. */
const char *shim_simple_v_args(const shim_call_t *c, const ic_comm_t *ic, const shim_type_t *rt,
                               ic_coll_args_t *a, const void **sb, void **rb, size_t *arr);
/* Packs x->in (before a run) / unpacks x->out (after). */
int shim_pack_in(shim_exec_t *x);
int shim_unpack_out(shim_exec_t *x);
void shim_exec_free(shim_exec_t *x);

/* Runs x's intercom call in form (blocking; nonblocking or persistent
 * into *req). */
ic_status_t shim_ic_call(shim_exec_t *x, shim_form_t form, ic_request_t **req);

/* Nonblocking and persistent calls (requests.c): takes x over, returns
 * the caller's request in *req. */
int shim_request_start(shim_exec_t *x, MPI_Request *req);

#endif
