/*
 * intercom.h — collective communication for distributed-memory programs.
 *
 * Every collective is built from a small set of building blocks (minimum
 * spanning trees, rings, pairwise exchange) composed into plans, and chosen
 * by an explicit alpha-beta-gamma-delta cost model.  See README.md,
 * docs/architecture.md (layers and files), docs/algorithms.md (every
 * algorithm with its cost) and docs/references.md (the papers cited as
 * [Watts94], [MTR94], [vdG-CCTP], [BR90], [vdG91]).
 *
 * Conventions used throughout this header:
 *  - Counts and displacements are size_t and are measured in elements of the
 *    datatype, never in bytes.
 *  - Handles (ic_comm_t, ic_op_t, ic_request_t) are opaque pointers.
 *  - Every function returns an ic_status_t: IC_OK (0) on success, a negative
 *    IC_ERR_* code on failure.  ic_last_error() returns a message naming the
 *    offending argument.  On failure nothing outside the caller's buffers has
 *    been written, and the output handle arguments are left unchanged.
 *  - Blocking collectives: the caller may reuse every buffer as soon as the
 *    call returns.  Buffers are never retained by the library.
 *
 * Threads.  The library may be called from several threads at once:
 *  - different communicators from different threads, each thread calling
 *    collectives, ic_test/ic_wait/ic_start on its own requests, and
 *    split/create_group/free on its own communicators: safe (one lock
 *    guards the library's shared progress state and the transport; a
 *    thread that waits lets it go while it sleeps, so threads progress
 *    each other's requests);
 *  - one communicator, or one request, from one thread at a time: the
 *    caller serialises (as with MPI, the collectives of one communicator
 *    must be started in the same order on every rank, which two threads
 *    calling at once could not promise);
 *  - ic_init and ic_finalize: from one thread, with no other call running;
 *  - functions without a communicator or request (ic_status_string,
 *    ic_datatype_size, ic_algorithms, ic_get_version, ...) at any time;
 *    ic_last_error() is per thread;
 *  - user ops: ic_op_free only after every call using the op has
 *    completed, in any thread.
 * tests/run/test_threads.c checks this promise, also under
 * ThreadSanitizer.
 *
 * Failures (docs/reliability.md).
 *  - A call this rank rejects (a bad argument: IC_ERR_DTYPE, _OP, _COUNT,
 *    _ROOT, _BUFFER, _ARG) writes nothing and still uses up its place in
 *    the communicator's sequence of calls: the other ranks' run of the
 *    same call fails at once with IC_ERR_PEER_REJECTED (naming this rank
 *    and the argument) where it waits for this rank, and the next call
 *    matches on every rank.
 *  - A call that fails otherwise (IC_ERR_PEER_FAILED, IC_ERR_TIMEOUT with
 *    IC_TIMEOUT set, IC_ERR_TRANSPORT, IC_ERR_MISMATCH) cancels every
 *    message it had in flight: after it returns, the library neither
 *    reads nor writes its buffers, and no other rank reads them.  Its
 *    communicator is then failed (revoked): its other calls in flight and
 *    every later call on it return IC_ERR_REVOKED at once, on this rank
 *    and, once they are told (within milliseconds), on the others.  Free
 *    it; ic_comm_free and ic_finalize complete.  Other communicators go
 *    on, unless the job itself failed (a dead rank fails every call).
 *  - Ranks that call different collectives or arguments on one
 *    communicator get IC_ERR_MISMATCH where a message of the other call
 *    arrives; with ic_comm_set_check (IC_CHECK=1) every rank gets it
 *    before anything moves, naming the first differing rank and field.
 *  - Every rank gets the same bits from a reduction (allreduce).
 *  - Freed or garbage communicator, op and request handles are rejected
 *    (IC_ERR_COMM, IC_ERR_OP, IC_ERR_ARG), never dereferenced.
 */
#ifndef INTERCOM_H
#define INTERCOM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Version and symbol export                                            */
/* ------------------------------------------------------------------ */

/* The version of this header.  The library it runs with reports its own
 * with ic_get_version(); the ABI promise is in docs/abi.md (the shared
 * library's soname changes with IC_VERSION_MAJOR). */
#define IC_VERSION_MAJOR 0
#define IC_VERSION_MINOR 1
#define IC_VERSION_PATCH 0
/* One number that orders versions: major * 10000 + minor * 100 + patch. */
#define IC_VERSION (IC_VERSION_MAJOR * 10000 + IC_VERSION_MINOR * 100 + IC_VERSION_PATCH)

/* Marks the functions and objects the shared library exports; everything
 * else in it is hidden (built with -fvisibility=hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define IC_API __attribute__((visibility("default")))
#else
#define IC_API
#endif

/* The version of the library this program runs with, in IC_VERSION's
 * encoding (compare it with IC_VERSION to detect a header/library skew).
 * May be called at any time, also before ic_init. */
IC_API unsigned ic_get_version(void);
/* The same as text, e.g. "0.1.0". */
IC_API const char *ic_get_version_string(void);

/* ------------------------------------------------------------------ */
/* Status codes                                                         */
/* ------------------------------------------------------------------ */

/* X-macro table: one place defines every status code and its text. */
#define IC_STATUS_MAP(X)                                                       \
    X(OK, 0, "success")                                                        \
    X(INPROGRESS, 1, "operation in progress")                                  \
    X(ERR_ARG, -1, "invalid argument")                                         \
    X(ERR_COUNT, -2, "invalid count or count array")                           \
    X(ERR_ROOT, -3, "root out of range")                                       \
    X(ERR_DTYPE, -4, "invalid datatype")                                       \
    X(ERR_OP, -5, "invalid reduction operation for this datatype")             \
    X(ERR_COMM, -6, "invalid communicator")                                    \
    X(ERR_BUFFER, -7, "invalid buffer")                                        \
    X(ERR_NO_MEM, -8, "out of memory")                                         \
    X(ERR_NOT_SUPPORTED, -9, "operation not supported")                        \
    X(ERR_UNKNOWN_ALGO, -10, "unknown algorithm name")                         \
    X(ERR_NOT_APPLICABLE, -11, "algorithm does not apply to this call")        \
    X(ERR_PEER_FAILED, -12, "a peer process failed")                           \
    X(ERR_TIMEOUT, -13, "timed out")                                           \
    X(ERR_TRANSPORT, -14, "transport error")                                   \
    X(ERR_INTERNAL, -15, "internal error")                                     \
    X(ERR_REVOKED, -16, "the communicator has failed (revoked)")               \
    X(ERR_MISMATCH, -17, "ranks called different collectives or arguments")   \
    X(ERR_PEER_REJECTED, -18, "another rank rejected its arguments of this call")

typedef enum ic_status {
#define IC_STATUS_ENUM_(name, value, text) IC_##name = (value),
    IC_STATUS_MAP(IC_STATUS_ENUM_)
#undef IC_STATUS_ENUM_
} ic_status_t;

/* Returns a static, human-readable description of a status code. */
IC_API const char *ic_status_string(ic_status_t status);

/* Returns the message of the last failed call in this thread (names the
 * argument that was rejected), or "" if none.  The string stays valid until
 * the next intercom call in this thread. */
IC_API const char *ic_last_error(void);

/* ------------------------------------------------------------------ */
/* Datatypes and reduction operations                                  */
/* ------------------------------------------------------------------ */

/* Storage types.  IC_BFLOAT16 and IC_FLOAT16 are 16-bit storage formats:
 * arithmetic is done in float and rounded back (round to nearest even). */
typedef enum ic_datatype {
    IC_INT8,
    IC_UINT8,
    IC_INT16,
    IC_UINT16,
    IC_INT32,
    IC_UINT32,
    IC_INT64,
    IC_UINT64,
    IC_FLOAT,
    IC_DOUBLE,
    IC_BFLOAT16,
    IC_FLOAT16,
    IC_BYTE,
    IC_DATATYPE_COUNT
} ic_datatype_t;

/* Size in bytes of one element, or 0 for an invalid datatype. */
IC_API size_t ic_datatype_size(ic_datatype_t dtype);
/* Name such as "int32" or "bfloat16"; "invalid" for an invalid value. */
IC_API const char *ic_datatype_name(ic_datatype_t dtype);

/* Kinds of the predefined operations.
 * sum, prod, min, max:  every datatype but IC_BYTE;
 * band, bor, bxor:      integer datatypes and IC_BYTE;
 * land, lor, lxor:      integer datatypes (result is 0 or 1). */
typedef enum ic_op_kind {
    IC_OP_SUM,
    IC_OP_PROD,
    IC_OP_MIN,
    IC_OP_MAX,
    IC_OP_BAND,
    IC_OP_BOR,
    IC_OP_BXOR,
    IC_OP_LAND,
    IC_OP_LOR,
    IC_OP_LXOR,
    IC_OP_KIND_COUNT,
    IC_OP_USER = IC_OP_KIND_COUNT
} ic_op_kind_t;

typedef struct ic_op ic_op_t;

/* The predefined operations, as handles (never freed), indexed by kind.
 * The array holds pointers because ic_op_t is incomplete here, and C does
 * not allow declaring an array of an incomplete element type. */
extern IC_API ic_op_t *const ic_predefined_ops_[IC_OP_KIND_COUNT];
#define IC_SUM (ic_predefined_ops_[IC_OP_SUM])
#define IC_PROD (ic_predefined_ops_[IC_OP_PROD])
#define IC_MIN (ic_predefined_ops_[IC_OP_MIN])
#define IC_MAX (ic_predefined_ops_[IC_OP_MAX])
#define IC_BAND (ic_predefined_ops_[IC_OP_BAND])
#define IC_BOR (ic_predefined_ops_[IC_OP_BOR])
#define IC_BXOR (ic_predefined_ops_[IC_OP_BXOR])
#define IC_LAND (ic_predefined_ops_[IC_OP_LAND])
#define IC_LOR (ic_predefined_ops_[IC_OP_LOR])
#define IC_LXOR (ic_predefined_ops_[IC_OP_LXOR])

/* A user reduction: for i < count, inout[i] = in[i] (op) inout[i].
 * In a reduction over ranks, "in" always holds the contribution of lower
 * ranks than "inout", so a non-commutative operation is applied in rank
 * order: result = x_0 (op) x_1 (op) ... (op) x_{p-1}. */
typedef void (*ic_user_fn)(const void *in, void *inout, size_t count,
                           ic_datatype_t dtype);

/* Creates a user operation.  commutative is 0 or 1; with 0 only algorithms
 * that combine in rank order are used.  *op is owned by the caller and
 * released with ic_op_free after every collective using it has completed. */
IC_API ic_status_t ic_op_create(ic_user_fn fn, int commutative, ic_op_t **op);
/* Frees a user operation and sets *op to NULL.  Predefined ops are rejected
 * with IC_ERR_OP. */
IC_API ic_status_t ic_op_free(ic_op_t **op);

/* ------------------------------------------------------------------ */
/* Communicators                                                        */
/* ------------------------------------------------------------------ */

typedef struct ic_comm ic_comm_t;

/* Creates the world communicator of this process.  Started by intercom-run
 * the world is the job; started alone it is a world of size 1.  The caller
 * owns *world and frees it with ic_finalize. */
IC_API ic_status_t ic_init(ic_comm_t **world);
/* Frees the world communicator (communicators derived from it must have
 * been freed first) and releases every resource of the library. */
IC_API ic_status_t ic_finalize(ic_comm_t **world);

/* Stops the whole job, like MPI_Abort: the other ranks' pending and later
 * calls fail with IC_ERR_PEER_FAILED, intercom-run reports that this rank
 * aborted with code and stops the job, and this process exits with code
 * (the call does not return). */
IC_API void ic_abort(ic_comm_t *comm, int code);

IC_API ic_status_t ic_comm_size(const ic_comm_t *comm, int *size);
IC_API ic_status_t ic_comm_rank(const ic_comm_t *comm, int *rank);

/* Value of color that leaves a process out of every new communicator. */
#define IC_UNDEFINED (-32766)

/* Collective over comm.  Processes with the same color form a new
 * communicator, ordered by key and then by rank in comm.  A process passing
 * IC_UNDEFINED gets *out = NULL.  The caller owns *out (ic_comm_free). */
IC_API ic_status_t ic_comm_split(ic_comm_t *comm, int color, int key, ic_comm_t **out);

/* Collective over the n listed processes only: creates a communicator of
 * ranks[0..n-1] of comm (distinct, in that order).  Every listed process
 * passes the same list.  The caller owns *out (ic_comm_free). */
IC_API ic_status_t ic_comm_create_group(ic_comm_t *comm, int n, const int *ranks,
                                 ic_comm_t **out);

/* Frees a communicator created by split or create_group; *comm = NULL. */
IC_API ic_status_t ic_comm_free(ic_comm_t **comm);

/* ------------------------------------------------------------------ */
/* Collectives and algorithm choice                                     */
/* ------------------------------------------------------------------ */

typedef enum ic_coll {
    IC_COLL_BCAST,
    IC_COLL_REDUCE,
    IC_COLL_ALLREDUCE,
    IC_COLL_SCATTER,
    IC_COLL_SCATTERV,
    IC_COLL_GATHER,
    IC_COLL_GATHERV,
    IC_COLL_ALLGATHER,
    IC_COLL_ALLGATHERV,
    IC_COLL_REDUCE_SCATTER_BLOCK,
    IC_COLL_REDUCE_SCATTER,
    IC_COLL_ALLTOALL,
    IC_COLL_ALLTOALLV,
    IC_COLL_BARRIER,
    IC_COLL_SCAN,
    IC_COLL_EXSCAN,
    IC_COLL_COUNT
} ic_coll_t;

/* Name such as "allreduce"; "invalid" for an invalid value. */
IC_API const char *ic_coll_name(ic_coll_t coll);

/* Forces the algorithm used for one collective on comm ("mst", "ring",
 * "scatter_allgather", ... ; see docs/algorithms.md), or restores automatic
 * choice with name == NULL or "auto".  Unknown names give
 * IC_ERR_UNKNOWN_ALGO and ic_last_error() lists the valid ones.  A forced
 * algorithm that does not apply to a later call (e.g. a ring reduction with
 * a non-commutative op) makes that call fail with IC_ERR_NOT_APPLICABLE. */
IC_API ic_status_t ic_comm_set_algorithm(ic_comm_t *comm, ic_coll_t coll,
                                  const char *name);

/* Turns call checking on (1) or off (0) for comm, as IC_CHECK=1 does for
 * the world (and its children) at ic_init.  With it on, before every
 * collective the ranks compare fingerprints of their calls (collective,
 * root, datatype, count or counts, op, forced algorithm, mesh, model): a
 * difference fails the call on every rank with IC_ERR_MISMATCH and a
 * message naming the first differing rank and field, and comm stays
 * usable.  It costs one small allgather per call, and a nonblocking call
 * blocks until every rank has reached it.  Local: every rank of comm must
 * set the same value.  Without it, a message between ranks in different
 * calls is still caught (IC_ERR_MISMATCH on its receiver), but not every
 * rank need notice, and the communicator fails (docs/reliability.md). */
IC_API ic_status_t ic_comm_set_check(ic_comm_t *comm, int on);

/* Reproducible reductions (docs/reproducibility.md).  With on = 1,
 * reduce, allreduce, reduce_scatter(_block), scan and exscan on comm combine
 * every element in one canonical order over the ranks -- for reduce,
 * allreduce and reduce-scatter the balanced binary tree over ranks
 * 0..size-1 (split [lo, hi] at lo + (hi - lo) / 2, the left part the
 * left operand), for scan and exscan the dissemination order -- whatever
 * the length, the algorithm (only entries that keep this order are
 * selected; forcing another one fails with IC_ERR_NOT_APPLICABLE), the
 * mesh and the transport: for a given size the same inputs give the same
 * bits.  Default: IC_REPRODUCIBLE (0 when unset); derived communicators
 * inherit it.  Local: every rank of comm must set the same value before
 * its next collective (IC_CHECK compares it). */
IC_API ic_status_t ic_comm_set_reproducible(ic_comm_t *comm, int on);
IC_API ic_status_t ic_comm_get_reproducible(const ic_comm_t *comm, int *on);

/* The cost model the selector prices algorithms with (the model of
 * [Watts94] and [vdG-CCTP], docs/references.md): a message of n bytes
 * costs alpha + n*beta, combining n bytes n*gamma,
 * copying n bytes n*delta (seconds, seconds per byte).  ic_init takes them
 * from the tune file written by intercom-tune (IC_TUNE_FILE, see
 * docs/tuning.md) or uses defaults for shared memory; derived
 * communicators inherit their parent's. */
typedef struct ic_model_params {
    /* sizeof(ic_model_params_t) as the caller was compiled: the struct may
     * grow at its end in a later minor version, and the library reads and
     * writes only the first size bytes.  Initialise with
     * IC_MODEL_PARAMS_INIT. */
    size_t size;
    double alpha, beta, gamma, delta;
    /* Seconds per byte of one network link, when the logical mesh
     * (ic_comm_set_mesh) is the physical one with dimension-ordered routes
     * (a mesh or torus machine): rings whose members are not neighbours
     * then share links, c of them per link, and are priced at
     * max(beta, c * beta_net) per byte ([Watts94]'s c_ij, docs/simulator.md).
     * 0 (the default): a fully connected network, nothing shared. */
    double beta_net;
    /* Messages a node can send and receive at once ([MTR94]'s port model):
     * 0 or 1 one-port (the default), k ports, or IC_PORTS_ALL (every link
     * at once).  The multi-port algorithms ("double_tree", "edst") are
     * priced with it.  Callers compiled before this field existed get one-port. */
    int ports;
    /* Seconds a message of more than rndv_bytes bytes costs on top of
     * alpha + n*beta: the transport's rendezvous (shared memory: a
     * request to send, the receiver's pull, a completion; docs/tuning.md).
     * Callers compiled before this field existed get 0. */
    double rndv_alpha;
    /* Read-only, the transport's (set_model ignores them; 0: no such
     * protocol): messages of more than rndv_bytes go by rendezvous; a
     * one-way message (its sender receives nothing meanwhile) of at least
     * share_bytes is copied by both ends at once, at half the per-byte
     * time (shared memory with a core per rank). */
    double rndv_bytes, share_bytes;
    /* Read-only, the transport's: the processors the ranks share when they
     * outnumber them (shared memory, IC_SHM_CORES or the online
     * processors), 0 with a core per rank.  A pipeline with more members
     * is not cut into segments, and a step in which k ranks copy at once
     * costs ceil(k / cores) times its bytes (docs/perf/oversubscribed.md). */
    double cores;
    /* Read-only, the transport's: a one-way message goes by rendezvous
     * already above rndv_oneway_bytes (shared memory with a core per rank
     * and single copy: 4 KiB, IC_SHM_ONEWAY_EAGER_MAX); 0: the same limit
     * as every other message. */
    double rndv_oneway_bytes;
} ic_model_params_t;
#define IC_PORTS_ALL 0x7fffffff
#define IC_MODEL_PARAMS_INIT {sizeof(ic_model_params_t), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

/* Sets comm's model (every value finite and >= 0, alpha > 0); later calls
 * choose with it.  Local: every rank should set the same values.  m->size
 * must be set (IC_MODEL_PARAMS_INIT); get_model fills the first m->size
 * bytes. */
IC_API ic_status_t ic_comm_set_model(ic_comm_t *comm, const ic_model_params_t *m);
IC_API ic_status_t ic_comm_get_model(const ic_comm_t *comm, ic_model_params_t *m);

/* Explains how comm would run coll for count elements of dtype per rank
 * (per rank block for the block collectives; every rank's count for the
 * v-forms) with root (ignored where there is none) and a commutative
 * operation (IC_SUM): the call, the model, every candidate algorithm with
 * its predicted time (mesh-aware ones on their best logical mesh), and the
 * choice.  The same text IC_EXPLAIN=1 prints on rank 0 when a call is
 * decided.  buf is always NUL-terminated (truncated to len). */
IC_API ic_status_t ic_explain(const ic_comm_t *comm, ic_coll_t coll, size_t count,
                       ic_datatype_t dtype, int root, char *buf, size_t len);

/* Views comm as a logical ndims-dimensional mesh dims[0] x dims[1] x ...
 * in row-major rank order (the last dimension varies fastest), e.g. the
 * process grid of a 2-D decomposition.  The mesh-aware algorithms ("dr",
 * "pfr", the hybrids; docs/algorithms.md) run their rings and trees along
 * its dimensions.  The product of dims must be the size of comm; ndims is
 * 1..IC_MESH_MAX_NDIMS.  ndims == 0 restores the default, a line of size
 * ranks.  Local: every rank should set the same mesh. */
#define IC_MESH_MAX_NDIMS 8
IC_API ic_status_t ic_comm_set_mesh(ic_comm_t *comm, int ndims, const int dims[]);

/* Declares where comm's members sit on a physical network, so that the
 * contention-free group algorithms of [MTR94] apply ("ucube", "umesh",
 * "utorus" for bcast, reduce, scatter(v), gather(v) and barrier, "u_sag"
 * for bcast; docs/algorithms.md) and the selector prefers them where they
 * cost what the plain trees cost.  spec: "mesh:AxB..", "torus:AxB..",
 * "utorus:AxB.." (a torus whose links go one way) or "hypercube:D"; nodes
 * are numbered row-major (the last dimension varies fastest) and routes
 * are taken to be dimension-ordered (dimension 0 first).  node_of[r] is
 * the node of rank r (size entries, copied; several ranks may share a
 * node); NULL puts rank r on node r.  Communicators derived from comm
 * afterwards inherit their members' nodes.  spec NULL forgets the
 * placement.  Local: every rank should declare the same (IC_CHECK
 * compares it).  IC_ERR_ARG names a bad spec or node_of entry. */
IC_API ic_status_t ic_comm_set_network(ic_comm_t *comm, const char *spec, const int node_of[]);

/* The mesh of comm: *ndims (1 for the default line) and up to maxdims
 * dimensions into dims. */
IC_API ic_status_t ic_comm_get_mesh(const ic_comm_t *comm, int *ndims, int dims[], int maxdims);

/* Writes the names of the algorithms available for coll, separated by
 * ", ", into buf (always NUL-terminated, truncated to len). */
IC_API ic_status_t ic_algorithms(ic_coll_t coll, char *buf, size_t len);

/* Pass as the send buffer (or, for scatter/scatterv at the root, the
 * receive buffer) to take the input from, and leave the result in, the
 * receive buffer, as MPI_IN_PLACE does. */
#define IC_IN_PLACE ((void *)1)

/* All collectives are called by every process of comm in the same order.
 * Send buffers are only read; receive buffers are written only where the
 * collective defines a result.  v-forms: unlike MPI, the full counts array
 * is significant on every process (each process plans its part of the tree
 * from it without an extra exchange); displacements are significant only
 * where the corresponding buffer is. */

IC_API ic_status_t ic_bcast(void *buf, size_t count, ic_datatype_t dtype, int root,
                     ic_comm_t *comm);
IC_API ic_status_t ic_reduce(const void *sendbuf, void *recvbuf, size_t count,
                      ic_datatype_t dtype, const ic_op_t *op, int root,
                      ic_comm_t *comm);
IC_API ic_status_t ic_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                         ic_datatype_t dtype, const ic_op_t *op,
                         ic_comm_t *comm);
/* sendbuf (root only) holds size*count elements; recvbuf gets count. */
IC_API ic_status_t ic_scatter(const void *sendbuf, void *recvbuf, size_t count,
                       ic_datatype_t dtype, int root, ic_comm_t *comm);
IC_API ic_status_t ic_scatterv(const void *sendbuf, const size_t *sendcounts,
                        const size_t *displs, void *recvbuf,
                        ic_datatype_t dtype, int root, ic_comm_t *comm);
/* sendbuf holds count elements; recvbuf (root only) gets size*count. */
IC_API ic_status_t ic_gather(const void *sendbuf, void *recvbuf, size_t count,
                      ic_datatype_t dtype, int root, ic_comm_t *comm);
IC_API ic_status_t ic_gatherv(const void *sendbuf, void *recvbuf,
                       const size_t *recvcounts, const size_t *displs,
                       ic_datatype_t dtype, int root, ic_comm_t *comm);
IC_API ic_status_t ic_allgather(const void *sendbuf, void *recvbuf, size_t count,
                         ic_datatype_t dtype, ic_comm_t *comm);
IC_API ic_status_t ic_allgatherv(const void *sendbuf, void *recvbuf,
                          const size_t *recvcounts, const size_t *displs,
                          ic_datatype_t dtype, ic_comm_t *comm);
/* sendbuf holds size*count elements; recvbuf gets block "rank" reduced. */
IC_API ic_status_t ic_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                    size_t count, ic_datatype_t dtype,
                                    const ic_op_t *op, ic_comm_t *comm);
/* sendbuf holds sum(recvcounts) elements; rank r gets recvcounts[r]. */
IC_API ic_status_t ic_reduce_scatter(const void *sendbuf, void *recvbuf,
                              const size_t *recvcounts, ic_datatype_t dtype,
                              const ic_op_t *op, ic_comm_t *comm);
IC_API ic_status_t ic_alltoall(const void *sendbuf, void *recvbuf, size_t count,
                        ic_datatype_t dtype, ic_comm_t *comm);
IC_API ic_status_t ic_alltoallv(const void *sendbuf, const size_t *sendcounts,
                         const size_t *sdispls, void *recvbuf,
                         const size_t *recvcounts, const size_t *rdispls,
                         ic_datatype_t dtype, ic_comm_t *comm);
IC_API ic_status_t ic_barrier(ic_comm_t *comm);
/* Inclusive prefix: rank r gets x_0 (op) ... (op) x_r. */
IC_API ic_status_t ic_scan(const void *sendbuf, void *recvbuf, size_t count,
                    ic_datatype_t dtype, const ic_op_t *op, ic_comm_t *comm);
/* Exclusive prefix: rank r > 0 gets x_0 (op) ... (op) x_{r-1}; the receive
 * buffer of rank 0 is not written. */
IC_API ic_status_t ic_exscan(const void *sendbuf, void *recvbuf, size_t count,
                      ic_datatype_t dtype, const ic_op_t *op,
                      ic_comm_t *comm);

/* ------------------------------------------------------------------ */
/* Nonblocking and persistent collectives                               */
/* ------------------------------------------------------------------ */

typedef struct ic_request ic_request_t;

/* Every collective has a nonblocking form ic_i<name>(..., &req) and a
 * persistent form ic_<name>_init(..., &req) with the blocking form's
 * arguments.  A nonblocking call returns at once; its buffers may not be
 * touched until the request completes (ic_test, ic_wait, ic_waitall), which
 * frees it and sets the handle to NULL.  A persistent request is planned
 * once: ic_start runs it again with the same buffers (their contents may
 * change between runs); completion leaves it allocated and inactive until
 * ic_request_free.  Requests of several communicators may be in flight at
 * once; every process starts the collectives of one communicator in the
 * same order.  Waiting on one request also advances all others. */
IC_API ic_status_t ic_test(ic_request_t **req, int *flag);
IC_API ic_status_t ic_wait(ic_request_t **req);
IC_API ic_status_t ic_waitall(int n, ic_request_t **reqs);
IC_API ic_status_t ic_start(ic_request_t *req);
IC_API ic_status_t ic_request_free(ic_request_t **req);

/* The one list of collectives: name, parameters of the blocking form, and
 * the parameters' names.  It declares the nonblocking and persistent forms
 * here and generates all three forms in the library (src/core/coll_api.c). */
#define IC_COLLECTIVE_LIST(X)                                                                  \
    X(bcast, (void *buf, size_t count, ic_datatype_t dtype, int root, ic_comm_t *comm),        \
      (buf, count, dtype, root, comm))                                                         \
    X(reduce,                                                                                  \
      (const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,                  \
       const ic_op_t *op, int root, ic_comm_t *comm),                                          \
      (sendbuf, recvbuf, count, dtype, op, root, comm))                                        \
    X(allreduce,                                                                               \
      (const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,                  \
       const ic_op_t *op, ic_comm_t *comm),                                                    \
      (sendbuf, recvbuf, count, dtype, op, comm))                                              \
    X(scatter,                                                                                 \
      (const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype, int root,        \
       ic_comm_t *comm),                                                                       \
      (sendbuf, recvbuf, count, dtype, root, comm))                                            \
    X(scatterv,                                                                                \
      (const void *sendbuf, const size_t *sendcounts, const size_t *displs, void *recvbuf,     \
       ic_datatype_t dtype, int root, ic_comm_t *comm),                                        \
      (sendbuf, sendcounts, displs, recvbuf, dtype, root, comm))                               \
    X(gather,                                                                                  \
      (const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype, int root,        \
       ic_comm_t *comm),                                                                       \
      (sendbuf, recvbuf, count, dtype, root, comm))                                            \
    X(gatherv,                                                                                 \
      (const void *sendbuf, void *recvbuf, const size_t *recvcounts, const size_t *displs,     \
       ic_datatype_t dtype, int root, ic_comm_t *comm),                                        \
      (sendbuf, recvbuf, recvcounts, displs, dtype, root, comm))                               \
    X(allgather,                                                                               \
      (const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,                  \
       ic_comm_t *comm),                                                                       \
      (sendbuf, recvbuf, count, dtype, comm))                                                  \
    X(allgatherv,                                                                              \
      (const void *sendbuf, void *recvbuf, const size_t *recvcounts, const size_t *displs,     \
       ic_datatype_t dtype, ic_comm_t *comm),                                                  \
      (sendbuf, recvbuf, recvcounts, displs, dtype, comm))                                     \
    X(reduce_scatter_block,                                                                    \
      (const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,                  \
       const ic_op_t *op, ic_comm_t *comm),                                                    \
      (sendbuf, recvbuf, count, dtype, op, comm))                                              \
    X(reduce_scatter,                                                                          \
      (const void *sendbuf, void *recvbuf, const size_t *recvcounts, ic_datatype_t dtype,      \
       const ic_op_t *op, ic_comm_t *comm),                                                    \
      (sendbuf, recvbuf, recvcounts, dtype, op, comm))                                         \
    X(alltoall,                                                                                \
      (const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,                  \
       ic_comm_t *comm),                                                                       \
      (sendbuf, recvbuf, count, dtype, comm))                                                  \
    X(alltoallv,                                                                               \
      (const void *sendbuf, const size_t *sendcounts, const size_t *sdispls, void *recvbuf,    \
       const size_t *recvcounts, const size_t *rdispls, ic_datatype_t dtype, ic_comm_t *comm), \
      (sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dtype, comm))               \
    X(barrier, (ic_comm_t *comm), (comm))                                                      \
    X(scan,                                                                                    \
      (const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,                  \
       const ic_op_t *op, ic_comm_t *comm),                                                    \
      (sendbuf, recvbuf, count, dtype, op, comm))                                              \
    X(exscan,                                                                                  \
      (const void *sendbuf, void *recvbuf, size_t count, ic_datatype_t dtype,                  \
       const ic_op_t *op, ic_comm_t *comm),                                                    \
      (sendbuf, recvbuf, count, dtype, op, comm))

/* Removes the parentheses of a parameter list: IC_ARGS_ (a, b) is a, b. */
#define IC_ARGS_(...) __VA_ARGS__
#define IC_NB_DECL_(name, params, args)                                                        \
    IC_API ic_status_t ic_i##name(IC_ARGS_ params, ic_request_t **req);                        \
    IC_API ic_status_t ic_##name##_init(IC_ARGS_ params, ic_request_t **req);
IC_COLLECTIVE_LIST(IC_NB_DECL_)
#undef IC_NB_DECL_

#ifdef __cplusplus
}
#endif
#endif /* INTERCOM_H */
