/*
 * shim.h — the MPI drop-in (libintercom_mpi.so, docs/dropin.md): MPI's
 * collective functions served by intercom through the PMPI profiling
 * interface, MPI's own (PMPI_) as the fall-back.
 *
 * Files:
 *   wrappers.c   the MPI_ entry points (generated per collective and form)
 *   setup.c      MPI_Init/Init_thread/Finalize, environment, the intercom
 *                communicator of each MPI communicator (an attribute)
 *   comm_wrappers.c  MPI_Comm_dup/split/create/...: that side made at once
 *   types.c      MPI datatypes and ops -> intercom's, user-op trampolines
 *   prepare.c    one MPI call -> one intercom call (bytes, counts, packing)
 *   run.c        blocking, nonblocking and persistent execution
 *   simple.c     the short way of a blocking call without packing or arrays
 *   requests.c   MPI_Wait/Test/Start/... for served requests, progress
 *   fallback.c   persistent collectives that fall back (MPI 4)
 *   report.c     the IC_MPI_VERBOSE table and the error mapping
 *
 * Ranks agree: whether a call is served depends only on what MPI requires
 * to be the same on every rank of the call (the collective, the op, a
 * reduction's datatype, the communicator, the environment).  Data-moving
 * collectives let ranks describe the same bytes with different datatypes,
 * so they are served whatever the datatype: a layout that is not one
 * contiguous run is packed on the rank that has it.
 */
#ifndef IC_MPI_SHIM_H
#define IC_MPI_SHIM_H

#include <mpi.h>

#include "intercom.h"

#include <stddef.h>
#include <stdint.h>

/* The functions the report counts: the 16 collectives (ic_coll_t) and
 * MPI_Reduce_local. */
#define SHIM_REDUCE_LOCAL IC_COLL_COUNT
#define SHIM_NFUNC (IC_COLL_COUNT + 1)

typedef enum { SHIM_BLOCKING, SHIM_NONBLOCKING, SHIM_PERSISTENT, SHIM_NFORMS } shim_form_t;

/* Why a call fell back to MPI (report.c names them). */
typedef enum {
    SHIM_R_DISABLED,
    SHIM_R_INTER,
    SHIM_R_NONCONTIG,
    SHIM_R_HETERO,
    SHIM_R_NOTYPE,
    SHIM_R_MINLOC,
    SHIM_R_OPTYPE,
    SHIM_R_NONCOMM,
    SHIM_R_USERDERIVED,
    SHIM_R_OUTSIDE,
    SHIM_R_NOTSTARTED,
    SHIM_R_BADCOMM,
    SHIM_NREASONS
} shim_reason_t;

/* One MPI collective call as its wrapper received it.  Counts are
 * widened to MPI_Count; arrays keep their MPI type (wide: the _c forms'
 * MPI_Count counts and MPI_Aint displacements, else int). */
typedef struct shim_call {
    int coll; /* ic_coll_t or SHIM_REDUCE_LOCAL */
    shim_form_t form;
    int wide;
    MPI_Comm comm;
    const void *sb;
    void *rb;
    MPI_Count scount, rcount; /* the count of one-count collectives is scount */
    const void *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype stype, rtype; /* reductions: stype */
    MPI_Op op;
    int root;
} shim_call_t;

/* Element i of a wrapper's count or displacement array. */
static inline MPI_Count shim_cnt(const shim_call_t *c, const void *a, int i)
{
    return c->wide ? ((const MPI_Count *)a)[i] : (MPI_Count)((const int *)a)[i];
}
static inline MPI_Aint shim_dsp(const shim_call_t *c, const void *a, int i)
{
    return c->wide ? ((const MPI_Aint *)a)[i] : (MPI_Aint)((const int *)a)[i];
}

/* ---- setup.c ---------------------------------------------------------- */

/* After PMPI_Init(_thread): reads the environment, makes the world's
 * intercom communicator.  Before PMPI_Finalize: prints the report, frees
 * every intercom communicator. */
void shim_after_init(void);
void shim_before_finalize(void);
/* 1 if IC_MPI_DISABLE names coll (or "all"). */
int shim_disabled(int coll);
/* The intercom communicator of comm, made at the first served call
 * (collective over comm: every member is in the same call), or NULL with
 * *why the reason to fall back. */
ic_comm_t *shim_comm(MPI_Comm comm, shim_reason_t *why);
/* The MPI communicator on which served requests complete (a duplicate of
 * MPI_COMM_SELF). */
MPI_Comm shim_self(void);
/* A private duplicate of MPI_COMM_WORLD, probed to give MPI's progress
 * engine a turn (an MPI_COMM_SELF probe does not, in MPICH). */
MPI_Comm shim_poke_comm(void);

/* ---- types.c ---------------------------------------------------------- */

typedef struct shim_type {
    MPI_Count size;     /* bytes of data in one element */
    MPI_Aint extent;    /* distance between consecutive elements */
    int identity;       /* count elements are one run of count * size bytes at
                         * the buffer, in type-map order */
    int base;           /* reductions: the intercom datatype it is made of, or -1 */
    MPI_Datatype mbase; /* that predefined MPI datatype */
    int cls;            /* the class of mbase (types.c: integer, floating, ...) */
    MPI_Count k;        /* base elements per element */
    int derived;        /* not a predefined datatype */
    shim_reason_t why;  /* base < 0 or not identity: why a reduction falls back */
} shim_type_t;

/* Describes t; MPI_SUCCESS or MPI's error code for an invalid t. */
int shim_type(MPI_Datatype t, shim_type_t *ti);
/* The description of a predefined datatype the drop-in knows (made once,
 * read-only), or NULL for any other t: a look-up of a few instructions,
 * where shim_type copies and decodes. */
const shim_type_t *shim_type_known(MPI_Datatype t);
/* The intercom op for MPI op applied to elements of ti, or NULL with
 * *why set. */
const ic_op_t *shim_op(MPI_Op op, const shim_type_t *ti, shim_reason_t *why);
/* 1 if op is one of the predefined ops intercom has (its meaning never
 * changes, unlike a user op's handle, which MPI may reuse once freed). */
int shim_op_predefined(MPI_Op op);
/* Drops the op records (MPI_Finalize). */
void shim_ops_free(void);

/* ---- prepare.c / run.c ------------------------------------------------ */

/* Serves c if it can: returns 1 with *rc the MPI return code (and *req,
 * for the nonblocking and persistent forms, a request of requests.c), or
 * 0 when the caller must call PMPI (counted as a fall-back). */
int shim_collective(const shim_call_t *c, MPI_Request *req, int *rc);

/* ---- requests.c ------------------------------------------------------- */

/* Number of served nonblocking or persistent calls in flight: while it is
 * not 0, blocking MPI calls that wait go through shim_block so that they
 * keep these moving, as MPI's progress rule asks. */
extern _Atomic int shim_inflight;
/* Waits for an MPI request while advancing the served ones. */
int shim_block(MPI_Request *r, MPI_Status *st);
/* Advances every served request in flight; completes those that end. */
void shim_progress(void);
/* Served requests in flight on intercom communicator ic (NULL: on any);
 * *persistent_ones (optional) gets the number of persistent ones on it. */
int shim_requests_using(const ic_comm_t *ic, int *persistent_ones);
void shim_requests_init(void); /* after MPI_Init */
void shim_requests_free(void); /* MPI_Finalize */

/* ---- fallback.c (MPI 4) ---------------------------------------------- */

/* MPI's own nonblocking form of call c into *r. */
int shim_pmpi_start(const shim_call_t *c, MPI_Request *r);
/* A persistent collective that falls back, as a drop-in request whose
 * starts run shim_pmpi_start (requests.c). */
int shim_persistent_fallback(const shim_call_t *c, MPI_Request *req);

/* ---- report.c --------------------------------------------------------- */

void shim_count_served(int coll, shim_form_t form, int wide, const char *algo);
/* The counter shim_count_served adds to for these arguments (memo.c adds
 * to it directly). */
_Atomic long *shim_served_counter(int coll, shim_form_t form, int wide, const char *algo);
void shim_count_fallback(int coll, shim_form_t form, int wide, shim_reason_t why);
/* Prints the table on stdout (rank 0 calls it). */
void shim_report_print(int size);
/* MPI error code for an intercom status (the message of ic_last_error()
 * becomes the code's string), raised through comm's error handler. */
int shim_error(MPI_Comm comm, ic_status_t st);
/* Creates the error codes (after PMPI_Init). */
void shim_errors_init(void);

#endif
