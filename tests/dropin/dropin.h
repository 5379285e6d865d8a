/*
 * dropin.h — shared by the parts of test_dropin, a plain MPI program (no
 * intercom header) that checks every collective the drop-in library
 * libintercom_mpi.so intercepts against a serial reference computed
 * locally.  Run with and without the drop-in (dropin_test.sh): both runs
 * must pass and print the same RESULT-HASH lines.
 *
 * Parts: test_dropin.c (main, the checks, the hash), dropin_issue.c (one
 * call of any collective in any form: blocking, I-, _init, _c), dropin_coll.c
 * (the collective matrix: inputs, expected results, every root, counts,
 * in-place), dropin_nb.c (nonblocking and persistent batches and the ways
 * of completing them), dropin_types.c (datatypes x ops, derived types, user
 * ops), dropin_comms.c (intercommunicator, split/dup/free loop, fd and
 * /dev/shm leaks).
 *
 * The MPIs' own bugs met on the way are worked around where the test would
 * otherwise fail without the drop-in, each where it applies: MPICH 4.0.2
 * (persistent Gather/Scatter/Allgather, Waitany & co. on persistent
 * requests, Allgatherv on one process, long in-place Reduce at a root > 0,
 * Ibcast on an intercommunicator) and Open MPI 4.1.4 (MIN/MAX on
 * MPI_OFFSET).
 */
#ifndef DROPIN_H
#define DROPIN_H

#define _GNU_SOURCE
#include <mpi.h>

#include <stddef.h>
#include <stdint.h>

#if defined(MPI_VERSION) && MPI_VERSION >= 4
#define DROPIN_MPI4 1
#else
#define DROPIN_MPI4 0
#endif

/* ---- results (test_dropin.c) ---- */
extern int g_rank, g_size; /* in MPI_COMM_WORLD */
extern long g_checks, g_fails;
extern int g_large;            /* the "large" count: 100000 */
extern int g_quirk_lib;        /* MPICH 4.0.x (its bugs are worked around) */
extern int g_quirk_persistent; /* ... and its broken persistent collectives */
extern int g_nohash;           /* checks leave the hash alone while set */

/* One check: counts it, prints "FAIL: <what> rank r ..." if !ok (the first
 * few per rank).  Returns ok. */
int check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Compares n ints; on a mismatch reports the first differing index.  The
 * received ints go into the result hash. */
int check_ints(const int *got, const int *want, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Compares bytes; hashes them when hash is set (integer results only). */
int check_bytes(const void *got, const void *want, size_t nbytes, int hash, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void hash_bytes(const void *p, size_t n);
/* A check that an MPI call returned MPI_SUCCESS (MPI_COMM_WORLD has
 * MPI_ERRORS_RETURN, inherited by the communicators made from it). */
int check_rc(int rc, const char *call);
#define OK(call) check_rc((call), #call)
/* The same, counted only when it fails (for calls in polling loops). */
#define OKQ(call)                                                                                  \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            check_rc(rc_, #call);                                                                  \
    } while (0)

/* Deterministic data: small integers, so float sums are exact. */
static inline int val(int rank, long i, int salt)
{
    return (int)(((long)rank * 37 + i * 11 + (long)salt * 13) % 97) - 30;
}
#define SENTINEL (-99999)

void *xmalloc(size_t n); /* never NULL (at least 1 byte) */
void fill_int(int *p, size_t n, int v);

/* ---- forms and one call of any collective (dropin_issue.c) ---- */
enum form { F_BLOCK, F_NB, F_PERS, F_BLOCK_C, F_NB_C, F_PERS_C, F_NFORMS };
enum coll {
    C_BCAST,
    C_REDUCE,
    C_ALLREDUCE,
    C_SCATTER,
    C_SCATTERV,
    C_GATHER,
    C_GATHERV,
    C_ALLGATHER,
    C_ALLGATHERV,
    C_REDUCE_SCATTER_BLOCK,
    C_REDUCE_SCATTER,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_BARRIER,
    C_SCAN,
    C_EXSCAN,
    C_REDUCE_LOCAL,
    C_NCOLLS
};
extern const char *const coll_name[C_NCOLLS];
extern const char *const form_name[F_NFORMS];
int form_available(int form);          /* _init and _c forms need MPI 4 */
int coll_has_form(int coll, int form); /* e.g. no Ibarrier_c, Reduce_local only blocking */
static inline int form_is_pers(int f)
{
    return f == F_PERS || f == F_PERS_C;
}
static inline int form_is_nb(int f)
{
    return f == F_NB || f == F_NB_C;
}

typedef struct call {
    int coll, form;
    MPI_Comm comm;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    int root;
    const void *sbuf;
    void *rbuf;
    int scount, rcount; /* also the count of bcast/reduce */
    int *scounts, *sdispls, *rcounts, *rdispls;
#if DROPIN_MPI4
    MPI_Count *scounts_c, *rcounts_c; /* made by call_issue when needed */
    MPI_Aint *sdispls_c, *rdispls_c;
#endif
    MPI_Request req;
} call_t;

void call_init(call_t *c, int coll, int form, MPI_Comm comm);
/* Blocking: runs it.  I-form: starts it (c->req).  _init: creates c->req. */
void call_issue(call_t *c);
void call_release(call_t *c); /* frees a persistent request and the _c arrays */

/* ---- completing requests (dropin_nb.c) ---- */
/* Completes all n active requests in one of several ways (method modulo
 * the number of ways): MPI_Wait in order or reversed, MPI_Test loops,
 * MPI_Waitall / Waitany / Waitsome / Testall / Testany / Testsome over an
 * array that also holds a point-to-point Isend/Irecv pair on comm (when
 * an intracommunicator; MPI_COMM_NULL for none). */
void complete_all(MPI_Request *reqs, int n, MPI_Comm comm, int method);
void start_all(MPI_Request *reqs, int n, int method); /* MPI_Startall or MPI_Start each */

/* ---- the parts ---- */
void test_coll_blocking(MPI_Comm comm); /* dropin_coll.c */
void test_coll_large(MPI_Comm comm);
void test_coll_some(MPI_Comm comm, int form); /* one case of each */
void test_coll_batches(MPI_Comm comm);        /* dropin_nb.c */
void test_mixed(MPI_Comm comm);               /* MPI's and served requests together */
/* ---- repeated calls (dropin_memo.c): the drop-in's memo of its last calls ---- */
void test_memo(MPI_Comm comm);
void test_types(MPI_Comm comm);               /* dropin_types.c */
void test_types_batch(MPI_Comm comm);
void test_intercomm(void); /* dropin_comms.c */
void test_comm_loop(int iters);

/* The collective matrix case (dropin_coll.c), shared with dropin_nb.c. */
typedef struct tcase {
    int coll, form, root, n, inplace, salt, op_index;
    MPI_Comm comm;
    int r, p; /* rank and size in comm */
    call_t call;
    int *s, *g, *w;    /* send, received, wanted */
    size_t sn, gn, wn; /* their lengths in ints; wn = ints to compare */
    size_t woff;       /* compare g[woff .. woff+wn) */
    int *scounts, *sdispls, *rcounts, *rdispls;
    int active;     /* this rank has a result to check */
    int start_once; /* persistent: started only once (MPICH 4.0.2) */
} tcase_t;
void tc_make(tcase_t *t, int coll, int form, MPI_Comm comm, int root, int n, int inplace, int salt);
void tc_fill(tcase_t *t, int rep); /* inputs and wanted results for repetition rep */
void tc_check(tcase_t *t, int rep);
void tc_free(tcase_t *t);

#endif
