/*
 * transport.h — the point-to-point interface every backend implements
 * (shared memory today, MPI later).  One ops table: a const struct of
 * function pointers that starts with its size and name and has no NULL
 * slot (unsupported operations point at stubs returning
 * IC_ERR_NOT_SUPPORTED).
 *
 * Messages are matched by (peer, key): the key is (communicator id,
 * collective sequence number, step tag), unique per pair and direction
 * while a message is in flight.  Messages between one pair may be matched
 * in any order (a receive for key K takes the message with key K,
 * whatever arrived before it); the transport buffers what arrives before
 * its receive is posted.
 *
 * Ranks here are transport (world) ranks.  Buffers passed to isend/irecv
 * must stay valid until the request completes.
 */
#ifndef IC_TRANSPORT_TRANSPORT_H
#define IC_TRANSPORT_TRANSPORT_H

#include "intercom.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ic_match_key {
    uint64_t comm; /* communicator context id */
    uint64_t seq;  /* collective sequence number on that communicator */
    uint32_t tag;  /* plan step tag */
    /* The call's signature (collective, algorithm, root, datatype, counts,
     * op): not part of the match, but carried with the message; a receive
     * that matches a message with another signature fails with
     * IC_ERR_MISMATCH (and so does the sender of a rendezvous message), so
     * ranks in different calls never silently exchange data. */
    uint32_t sig;
} ic_match_key_t;

/* Scopes of a failure notice (ops->notify). */
enum {
    IC_NOTICE_CALL = 1, /* the call key.comm/key.seq only (a rank rejected its arguments) */
    IC_NOTICE_COMM = 2  /* every call of key.comm from key.seq on (the communicator failed) */
};
#define IC_NOTICE_TEXT_MAX 200 /* bytes of a notice's text, NUL included */

/* A failure notice as an instance records it: the calls it covers
 * (comm, from seq on or at seq), its scope, the status it fails them
 * with, the rank it came from (in the job's numbering: ic_tx_job_rank)
 * and its text. */
typedef struct ic_notice {
    uint64_t comm, seq;
    int32_t scope, status, from;
    char text[IC_NOTICE_TEXT_MAX];
} ic_notice_t;

/* A request: storage owned by the caller (the executor keeps one per
 * SEND/RECV step), opaque to it.  Large enough for every backend. */
typedef struct ic_tx_req {
    uint64_t opaque[16];
} ic_tx_req_t;
/* A backend uses at most the first IC_TX_REQ_BACKEND_WORDS words; the
 * last one is the routing layer's (transport/route). */
#define IC_TX_REQ_BACKEND_WORDS 15

typedef struct ic_transport ic_transport_t; /* a backend instance */

typedef struct ic_transport_ops {
    size_t size;      /* sizeof(ic_transport_ops_t), for versioning */
    const char *name; /* "shm", "mpi", ... */
    /* Starts sending bytes of buf to peer; *req completes when buf may be
     * reused.  Zero-byte messages are allowed. */
    ic_status_t (*isend)(ic_transport_t *t, int peer, ic_match_key_t key, const void *buf,
                         size_t bytes, ic_tx_req_t *req);
    /* Optional (NULL: the caller uses isend): isend of a one-way message,
     * one this rank sends after everything it receives in the call (a
     * tree's, a chain's, a rooted call's message; IC_SEND_ONEWAY,
     * plan.h), so nothing of this rank waits on the peer meanwhile.  A
     * backend whose single-copy protocol saves the second copy of an
     * eager message at the price of a start-up may take it for smaller
     * messages then (shm: above oneway_max, shm_transport.c); the
     * cost model learns the size from rndv_oneway_bytes.  Matching and
     * completion are isend's. */
    ic_status_t (*isend_oneway)(ic_transport_t *t, int peer, ic_match_key_t key,
                                const void *buf, size_t bytes, ic_tx_req_t *req);
    /* Optional (NULL: the caller posts every send): sends a message that
     * can leave at once, needing no request — shm: an eager message with
     * room in the peer's queue and nothing of this rank's to that peer
     * before it — and returns 1, the message then being on its way as
     * isend's (oneway: isend_oneway's) would be, matched the same way and
     * buf free for reuse; returns 0 having done nothing otherwise, and the
     * caller posts the send. */
    int (*send_now)(ic_transport_t *t, int peer, ic_match_key_t key, const void *buf,
                    size_t bytes, int oneway);
    /* Optional (NULL: the caller posts every receive): takes the message
     * of key from peer when it has arrived and can be taken at once,
     * needing no request — shm: the next message in the peer's queue,
     * eager, of exactly this signature and size —, copies it into buf
     * and returns 1, as a completed irecv would have it; returns 0 having
     * done nothing otherwise (then the caller posts the receive, which
     * reports what is wrong with a message that does not fit). */
    int (*recv_now)(ic_transport_t *t, int peer, ic_match_key_t key, void *buf, size_t bytes);
    /* Starts receiving a message of exactly bytes bytes from peer. */
    ic_status_t (*irecv)(ic_transport_t *t, int peer, ic_match_key_t key, void *buf,
                         size_t bytes, ic_tx_req_t *req);
    /* Optional (NULL: the caller uses irecv): irecv of a message whose
     * bytes this rank reads right after they arrive (a reduction's
     * operand).  A backend whose two ends share the copy of a large
     * message may then leave more of the copy to the receiver, so that the
     * bytes land in the reader's cache (shm: IC_SHM_SHARE_READ_MIN,
     * shm_share.c).  Matching and completion are irecv's. */
    ic_status_t (*irecv_read)(ic_transport_t *t, int peer, ic_match_key_t key, void *buf,
                              size_t bytes, ic_tx_req_t *req);
    /* *done = 1 once the request has completed (then the request is
     * finished and may be reused); drives progress as needed.  Returns an
     * error (e.g. IC_ERR_PEER_FAILED, IC_ERR_TRANSPORT for a size
     * mismatch) instead of completing. */
    ic_status_t (*test)(ic_transport_t *t, ic_tx_req_t *req, int *done);
    /* Withdraws a request that has not completed (a failed collective
     * cancels every request it posted): afterwards the instance neither
     * refers to the request nor touches its buffer.  A no-op for a request
     * that has completed or failed.  Returns IC_OK, or an error when the
     * request was never posted. */
    ic_status_t (*cancel)(ic_transport_t *t, ic_tx_req_t *req);
    /* Tells peer that this rank will not take part in a call (scope
     * IC_NOTICE_CALL) or in any later call of a communicator (scope
     * IC_NOTICE_COMM).  The peer fails every request of those calls,
     * posted now or later, with status (IC_ERR_PEER_REJECTED,
     * IC_ERR_REVOKED) and a message naming this rank and text.  Never
     * blocks; the notice is delivered in order with this rank's other
     * messages to peer. */
    ic_status_t (*notify)(ic_transport_t *t, int peer, ic_match_key_t key, int scope,
                          ic_status_t status, const char *text);
    /* Records a notice that another instance of this process received
     * (transport/route passes them between its backends), with the
     * effect of one received here: the calls it covers fail. */
    ic_status_t (*learn)(ic_transport_t *t, const ic_notice_t *n);
    /* Moves pending data without blocking. */
    ic_status_t (*progress)(ic_transport_t *t);
    /* Optional (NULL: the caller uses progress): progress called between
     * the pieces of a long local step (a copy or reduction of the
     * caller's own), which keeps this core busy anyway.  It moves what
     * only moves inside transport calls (queues, streamed transfers) but
     * may leave to the other side the work a backend lets either end do:
     * shm's shared single copies (shm_share.c), whose pieces a peer that
     * is copying them goes on copying while this core runs the local
     * step; this rank takes the rest in its next ordinary progress. */
    ic_status_t (*progress_busy)(ic_transport_t *t);
    /* Blocks until something may have changed (a message arrived, a
     * transfer advanced, wake was called) or timeout_s passed: spins
     * briefly, then yields, then sleeps, so that more processes than cores
     * still progress.  It releases t->guard while it spins and sleeps. */
    ic_status_t (*wait)(ic_transport_t *t, double timeout_s);
    /* Makes every wait of this process on t return soon: another thread
     * finished something the waiter may be waiting for.  May be called
     * without t->guard. */
    void (*wake)(ic_transport_t *t);
    /* IC_OK if peer is alive, IC_ERR_PEER_FAILED if it died or the job
     * was aborted. */
    ic_status_t (*peer_alive)(ic_transport_t *t, int peer);
    /* Marks the job as failed so that every rank's waits return
     * IC_ERR_PEER_FAILED, and the launcher stops the job. */
    ic_status_t (*abort)(ic_transport_t *t, int code);
    /* Detaches and frees the instance. */
    ic_status_t (*close)(ic_transport_t *t);
} ic_transport_ops_t;

/* Threads.  Every op but wake is called with *guard held (when guard is
 * set; the core sets it to its progress lock), so an instance sees one
 * thread at a time; wait releases the guard while it spins or sleeps and
 * holds it again when it returns, so that other threads progress. */
struct ic_transport {
    const ic_transport_ops_t *ops;
    int rank, size;
    pthread_mutex_t *guard;
    /* Bumped by the backend whenever its progress sees something happen
     * (a message arrived, a transfer advanced): a layer above that polls
     * several backends (transport/route) waits for it to change. */
    uint64_t events;
    /* Set by a layer above: called whenever this instance records a notice
     * it received (or a mismatch it found), not for learned ones. */
    void (*on_notice)(void *ctx, ic_transport_t *from_t, const ic_notice_t *n);
    void *on_notice_ctx;
    /* The job's rank of each rank of this instance, for messages (set by
     * transport/route for its shm backend); NULL: the same numbers. */
    const int *job_rank;
    /* Protocol facts the cost model prices (base/model.h, set at open):
     * messages of more than rndv_bytes go by rendezvous, one-way ones
     * (ops->isend_oneway) of more than rndv_oneway_bytes; one-way messages
     * of at least share_bytes are copied by both ends.  0: no such
     * protocol (rndv_oneway_bytes 0: the same as rndv_bytes).  cores: the
     * processors the instance's ranks share when they outnumber them (0: a
     * core per rank).  The same on every rank of the instance. */
    double rndv_bytes, share_bytes, cores, rndv_oneway_bytes;
};

static inline int ic_tx_job_rank(const ic_transport_t *t, int r)
{
    return t->job_rank && r >= 0 && r < t->size ? t->job_rank[r] : r;
}

/* Letting the guard go while waiting, and taking it back (ops->wait). */
static inline void ic_tx_guard_release(ic_transport_t *t)
{
    if (t->guard)
        pthread_mutex_unlock(t->guard);
}
static inline void ic_tx_guard_take(ic_transport_t *t)
{
    if (t->guard)
        pthread_mutex_lock(t->guard);
}

/* True if notice n covers the call of key k (notice.c). */
int ic_notice_covers(const ic_notice_t *n, const ic_match_key_t *k);
/* Sets the error message of a request that n failed and returns its
 * status (notice.c): the same words on every backend. */
ic_status_t ic_notice_error(const ic_notice_t *n);
/* IC_ERR_MISMATCH for a receive with key (from peer) that met a message
 * of signature sig (notice.c); who names the backend. */
ic_status_t ic_sig_mismatch_error(const char *who, int peer, const ic_match_key_t *key,
                                  uint32_t sig);
/* Fills *n: the communicator comm fails from call seq on with
 * IC_ERR_MISMATCH, because backend `who` got a message of that call from
 * job rank from with signature theirs where this rank's call has ours. */
void ic_notice_mismatch(ic_notice_t *n, const char *who, int from, uint64_t comm, uint64_t seq,
                        uint32_t theirs, uint32_t ours);

/* The (comm, seq, signature) of the calls a backend posted requests for,
 * to catch stray messages of another signature (notice.c): a table of
 * IC_CALLS_KEPT slots indexed by the call, so that a look-up costs one
 * probe.  Calls of one communicator take consecutive slots, so its last
 * IC_CALLS_KEPT calls are all remembered; calls of several communicators
 * may evict each other earlier.  Zeroed: empty. */
#define IC_CALLS_KEPT 256
typedef struct ic_calls {
    struct {
        uint64_t comm, seq;
        uint32_t sig, used;
    } c[IC_CALLS_KEPT];
    uint64_t last_comm, last_seq; /* the call noted last (valid when n > 0) */
    uint64_t n;                   /* calls noted so far */
} ic_calls_t;
/* Notes the call of key; false when it is the last call noted already
 * (the posts of one call come together). */
bool ic_calls_note(ic_calls_t *m, const ic_match_key_t *key);
/* True, with *sig, when call comm/seq is remembered. */
bool ic_calls_find(const ic_calls_t *m, uint64_t comm, uint64_t seq, uint32_t *sig);

#endif
