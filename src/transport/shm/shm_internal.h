/*
 * shm_internal.h — private to src/transport/shm: the layout of the job's
 * shared segment, one rank's transport instance, the request layout, and
 * the functions the files of this directory share.
 *
 * Segment layout (all offsets in the header, fixed at ic_shm_job_create):
 *
 *   header        job-wide: magic, layout, attach/probe counters, failure
 *   rank blocks   p x 128 B: doorbell + sleeper count (line 0),
 *                 pid, attached/failed flags, CMA probe address (line 1)
 *   queues        p x p SPSC queues, queue(i -> j) at index j*p + i, so a
 *                 receiver's incoming queues are adjacent
 *   bulk control  p x p x 128 B: chunk counters and clear-to-send of the
 *                 pipelined fallback, pair (i -> j) at index j*p + i
 *   tickets       p x SHM_TICKETS x 64 B: the read gate of each of a
 *                 rank's single-copy sends in flight (shm_rndv.c) and the
 *                 counters of its shared copy (shm_share.c)
 *   bulk data     p x p x nchunks x chunk bytes
 *
 * The file is reserved whole with posix_fallocate when the launcher
 * creates it (shm_segment.c), so a /dev/shm that is too small fails then,
 * with a message, instead of a SIGBUS later.
 */
#ifndef IC_TRANSPORT_SHM_INTERNAL_H
#define IC_TRANSPORT_SHM_INTERNAL_H

#include "transport/shm/shm.h"
#include "transport/shm/shm_queue.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SHM_MAGIC 0x6d68735f6d6f6369ull /* "icom_shm" */
#define SHM_VERSION 15u /* 9: oneway_max in the header; 10: a queue's waiting flag beside tail;
                         * 11: cma_extra_ns; 12: SHM_RTS_CHUNK, cma_extra_ns when crowded;
                         * 13: shm_xfer_t's read_after; 14: a queue's flooded line;
                         * 15: cma_large_x100 */
#define SHM_MAX_RANKS IC_SHM_MAX_RANKS
#define SHM_NAME_MAX 32
#define SHM_TICKETS 256 /* read gates per rank: large sends in flight at once */

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "shared-memory atomics must be lock-free");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "shared-memory atomics must be lock-free");
_Static_assert(sizeof(atomic_uint) == 4, "the doorbell is a 32-bit futex word");

typedef struct shm_hdr {
    uint64_t magic;
    uint32_t version, nranks;
    uint64_t total_size;
    uint64_t rank_off, queue_off, queue_stride, bulk_ctl_off, tickets_off, bulk_data_off,
        bulk_stride;
    uint32_t ncells, chunk, nchunks, eager_max;
    uint32_t crowded; /* 1: the creator found more ranks than cores (shm_segment.c) */
    uint32_t cores;   /* the cores the creator found (ic_shm_cores): every rank's model */
    uint32_t oneway_max; /* the eager limit of a one-way send (<= eager_max, shm_segment.c) */
    uint32_t cma_extra_ns; /* the creator's ic_shm_cma_extra_ns (shm_cma_cost.c) */
    uint32_t cma_large_x100; /* the creator's IC_SHM_CMA_LARGE_X100 (0: not set) */
    uint64_t tag; /* random per job; the CMA probe words derive from it */
    char name[SHM_NAME_MAX];
    _Alignas(64) atomic_uint nattached;
    atomic_uint nprobed;
    atomic_uint cma_ok; /* AND of every rank's probe result */
    atomic_uint unlinked;
    _Alignas(64) atomic_uint job_failed; /* abort, or the launcher stopped the job */
    atomic_int abort_rank;
    atomic_int abort_code;
    atomic_uint nfailed;     /* ranks whose failed flag is set */
    atomic_int first_failed; /* the first rank marked failed, or -1 */
} shm_hdr_t;

typedef struct shm_rank {
    _Alignas(64) atomic_uint doorbell; /* bumped by anyone with news for this rank */
    atomic_uint sleeping;              /* threads of this rank (about to be) in FUTEX_WAIT */
    _Alignas(64) atomic_int pid;
    atomic_uint attached;
    atomic_uint failed;
    atomic_int status; /* as from waitpid, when the launcher marked it */
    atomic_uint receiving; /* the rank has receives in flight: it would not help copy
                            * its large sends (shm_share.c) */
    _Atomic uint64_t probe_addr;
} shm_rank_t;

typedef struct shm_bulk_ctl {
    _Alignas(64) _Atomic uint64_t produced; /* chunks written, by the sender */
    _Alignas(64) _Atomic uint64_t consumed; /* chunks read, by the receiver */
    _Atomic uint64_t cts_id;                /* transfer granted the buffer */
    _Atomic uint64_t cts_base;              /* produced == consumed at the grant */
    atomic_uint broken; /* a chunked transfer was cancelled midway: the counters are unknown */
} shm_bulk_ctl_t;

typedef struct shm_seg {
    unsigned char *base;
    size_t size;
    shm_hdr_t *hdr;
    shm_rank_t *ranks;
    int p;
} shm_seg_t;

static inline shm_qctl_t *shm_seg_queue(const shm_seg_t *s, int from, int to)
{
    size_t i = (size_t)to * (size_t)s->p + (size_t)from;
    return (shm_qctl_t *)(void *)(s->base + s->hdr->queue_off + i * s->hdr->queue_stride);
}

static inline shm_bulk_ctl_t *shm_seg_bulk_ctl(const shm_seg_t *s, int from, int to)
{
    size_t i = (size_t)to * (size_t)s->p + (size_t)from;
    return (shm_bulk_ctl_t *)(void *)(s->base + s->hdr->bulk_ctl_off + i * sizeof(shm_bulk_ctl_t));
}

/* One single-copy send in flight: its read gate (shm_rndv.c) and, once
 * the receiver shares the copy with the sender, the pieces (shm_share.c). */
typedef struct shm_xfer {
    _Alignas(64) _Atomic uint64_t gate; /* (transfer id << 3) | state */
    _Atomic uint64_t claim;  /* next piece to copy; + SHM_CLAIM_CLOSED once withdrawn */
    _Atomic uint64_t done;   /* pieces copied */
    atomic_uint copying;     /* pieces being copied now, by either side (never reset) */
    uint32_t npieces;
    uint64_t raddr;          /* the receive buffer, in the receiver's address space */
    uint64_t piece;          /* bytes per piece (the last one may be shorter) */
    uint64_t bytes;
    uint32_t read_after;     /* 1: the receiver reads the message next (irecv_read) */
} shm_xfer_t;
_Static_assert(sizeof(shm_xfer_t) == 64, "one transfer's control is one cache line");
#define SHM_CLAIM_CLOSED (1ull << 62)

/* Rank's transfer control k (its read gate k). */
static inline shm_xfer_t *shm_seg_xfer(const shm_seg_t *s, int rank, uint32_t k)
{
    return (shm_xfer_t *)(void *)(s->base + s->hdr->tickets_off +
                                  ((size_t)rank * SHM_TICKETS + k) * sizeof(shm_xfer_t));
}

static inline unsigned char *shm_seg_bulk_data(const shm_seg_t *s, int from, int to)
{
    size_t i = (size_t)to * (size_t)s->p + (size_t)from;
    return s->base + s->hdr->bulk_data_off + i * s->hdr->bulk_stride;
}

/* Request states. */
enum {
    SHM_RQ_DONE = 1, /* completed; the caller may reuse it */
    SHM_RQ_ERROR,    /* finished with status; not referenced any more */
    SHM_RQ_BACKLOG,  /* send: waiting for room in the queue */
    SHM_RQ_RNDV,     /* send: RTS queued, waiting for FIN or clear-to-send */
    SHM_RQ_ACTIVE,   /* chunked send or receive holding the pair's bulk buffer */
    SHM_RQ_POSTED,   /* receive: not matched yet */
    SHM_RQ_MATCHED,  /* receive: matched an RTS, waiting for the bulk buffer */
    SHM_RQ_SHARED    /* receive: copying with the sender, piece by piece (shm_share.c) */
};
enum { SHM_RQ_SEND = 1, SHM_RQ_RECV = 2 };
#define SHM_RQ_MAGIC 0x73686d72u

/* The request, laid over the caller's ic_tx_req_t.  It is linked into the
 * instance's lists while in flight, so the caller must not move it. */
typedef struct shm_req {
    struct shm_req *next;
    void *buf;
    size_t bytes;
    ic_match_key_t key;
    uint64_t xfer; /* rendezvous transfer id */
    uint64_t base; /* chunked: the pair's chunk counter at the grant */
    uint32_t magic;
    int32_t peer;
    int32_t status;
    int32_t ticket; /* single-copy send: its read gate, or -1; shared receive: the
                     * sender's gate */
    uint64_t remote; /* shared receive: the sender's buffer, in its address space */
    uint8_t kind, state, chunked;
    uint8_t streamed; /* moved through the bulk buffer with streaming copies (shm_rndv.c) */
    uint8_t read_after; /* receive whose bytes are read here next (ops->irecv_read) */
    uint8_t eager;      /* send: goes inline, within its eager limit (shm_isend) */
    uint8_t bulk; /* send: its RTS names a bulk-buffer mode (SHM_RTS_STREAM, SHM_RTS_CHUNK) */
} shm_req_t;
_Static_assert(sizeof(shm_req_t) <= IC_TX_REQ_BACKEND_WORDS * sizeof(uint64_t),
               "shm_req_t must fit in the backend's part of ic_tx_req_t");

typedef struct shm_list {
    shm_req_t *head, *tail;
} shm_list_t;

/* An unexpected message: the bytes of a small one, or an RTS descriptor.
 * Records with room for SHM_UX_SMALL bytes are kept for reuse on a free
 * list of at most SHM_UX_KEEP (shm_ux.c), so the common early arrival of
 * a short message costs no malloc/free. */
typedef struct shm_ux {
    struct shm_ux *next;
    ic_match_key_t key;
    uint64_t len;
    shm_rts_t rts;
    int is_rts;
    uint32_t room; /* bytes data[] can hold */
    unsigned char data[];
} shm_ux_t;
#define SHM_UX_SMALL 64
#define SHM_UX_KEEP 4096 /* 1024 left a rank that runs ahead by more paying malloc/free */
/* Flow control (shm_ux.c): a consumer holding this many early messages, or
 * bytes of them, from one producer raises the queue's flooded flag, and
 * lowers it at half of both; the producer holds new eager sends to it
 * meanwhile, for at most SHM_FLOOD_HOLD_NS at a stretch, after which
 * SHM_FLOOD_MSGS of them go before the next stretch. */
#define SHM_FLOOD_MSGS 4096u
#define SHM_FLOOD_BYTES (8u << 20)
#define SHM_FLOOD_HOLD_NS 100000000u /* 0.1 s; shm_transport_t.flood_hold_ns */

typedef struct shm_fin {
    uint64_t xfer;
    int32_t status;
} shm_fin_t;

/* The unexpected messages of one call: how many, and whether their
 * signatures differ (then sig is the first one's). */
typedef struct shm_uxcall {
    struct shm_uxcall *next;
    uint64_t comm, seq;
    uint32_t sig, count;
    bool mixed;
} shm_uxcall_t;
#define SHM_UXCALL_KEEP 4096 /* free records kept for reuse (shm_notice.c) */
#define SHM_UXCALL_BITS 8
#define SHM_UXCALL_BUCKETS (1u << SHM_UXCALL_BITS)

/* A failure notice (ops->notify), sent or received. */
typedef ic_notice_t shm_notice_t;

/* What one rank keeps about one peer (process-private). */
typedef struct shm_peer {
    shm_qend_t out, in; /* me -> peer (producer), peer -> me (consumer) */
    shm_list_t posted;  /* receives not matched yet */
    shm_list_t backlog; /* sends waiting for room in the queue */
    shm_list_t rndv;    /* sends whose RTS is out */
    shm_list_t grants;  /* chunked receives from peer; head holds the buffer */
    shm_list_t shared;  /* receives from peer copied with it piece by piece */
    shm_ux_t *ux_head, *ux_tail;
    shm_req_t *active_send; /* chunked send holding the me -> peer buffer */
    uint64_t last_cts;      /* last clear-to-send seen from peer */
    uint64_t produced;      /* my copy of bulk(me -> peer).produced */
    uint64_t consumed;      /* my copy of bulk(peer -> me).consumed */
    shm_fin_t *fins;        /* FINs waiting for room in the queue */
    uint32_t nfins, capfins;
    shm_notice_t *notes;    /* notices waiting for room in the queue (after the FINs) */
    uint32_t nnotes, capnotes;
    uint32_t npending; /* requests in flight with this peer */
    /* Flow control (shm_ux.c).  As the consumer: the early messages from
     * peer held here and their bytes, and whether this rank raised the
     * peer -> me queue's flooded flag.  As the producer: since when the
     * me -> peer flag holds this rank's eager sends (0: it does not), and
     * how many may still go after a whole stretch of holding. */
    uint32_t held_msgs;
    uint64_t held_bytes;
    bool flood_raised;
    uint32_t flood_credit;
    uint64_t flood_since_ns;
    uint64_t last_check_ns;
    int pidfd; /* the peer's process (pidfd_open), or -1 */
} shm_peer_t;

typedef struct shm_transport {
    ic_transport_t base;
    shm_seg_t seg;
    shm_peer_t *peers;
    uint64_t next_xfer;
    uint32_t scanned_bell; /* doorbell value at the last queue scan */
    int force_scan;
    int cma;             /* single-copy (process_vm_readv) in use */
    int cma_dear;        /* ... but dear here: unshared messages take the bulk buffer */
    uint32_t oneway_max; /* eager limit of ops->isend_oneway: the header's with single copy
                          * and a core per rank, else eager_max */
    uint32_t nbacklog;   /* backlogged sends + FINs, over all peers */
    uint32_t nchunked;   /* chunked sends and receives in flight */
    uint32_t nshared;    /* shared receives in flight (shm_share.c) */
    uint32_t ncma_sends; /* single-copy sends to other ranks in flight (gates open) */
    uint32_t nrecvs;     /* receives in flight */
    uint64_t share_min;  /* messages of at least this many bytes are copied by both sides */
    uint64_t share_read_min; /* the same for a receive read next (irecv_read) */
    uint64_t stream_min; /* messages of at least this many bytes stream (shm_rndv.c; 0: never) */
    uint64_t stream_xchg_min; /* the same while this rank has receives in flight */
    uint64_t stream_oneway_min; /* ... and while it has none: stream_min, or 0 where a large
                                 * single copy is cheap enough to share (shm_rndv.c) */
    uint32_t share_per_call; /* most pieces one progress call copies per transfer (0: all) */
    bool busy; /* inside ops->progress_busy: a peer copying shared pieces keeps them */
    uint64_t probe_word; /* read by a peer through process_vm_readv at open */
    shm_notice_t *notices; /* notices received: the calls that fail here */
    uint32_t nnotices, capnotices;
    uint32_t nux; /* unexpected messages buffered, over all peers */
    uint32_t nflood; /* peers whose flooded flag held a send of this rank (shm_ux.c) */
    uint64_t flood_hold_ns; /* SHM_FLOOD_HOLD_NS (tests change it) */
    /* The unexpected messages by call (shm_notice.c), so that a new call
     * finds its early messages of another signature in one look-up. */
    shm_uxcall_t *uxcalls[SHM_UXCALL_BUCKETS];
    bool uxcalls_lost; /* an entry could not be made: look at every message */
    shm_ux_t *ux_free; /* records kept for reuse, SHM_UX_SMALL bytes of room each */
    uint32_t nux_free;
    shm_uxcall_t *uxcall_free; /* uxcall records kept for reuse */
    uint32_t nuxcall_free;
    uint32_t tests_unfinished; /* tests that found their request unfinished (shm_test) */
    uint64_t yield_ns; /* yield-polling phase of a wait (shm_wait.c) */
    bool oversubscribed; /* the host's ranks outnumber its cores (shm_wait.c) */
    bool qpoll; /* jobs of at most SHM_QPOLL_MAX ranks: waits poll the queues' stamps
                 * and a message rings only a sleeping receiver (shm_wait.c) */
    uint16_t free_tickets[SHM_TICKETS]; /* this rank's read gates not in use */
    uint32_t nfree_tickets;
    /* The last calls this rank posted requests for: a message of one of
     * them with another signature is from a rank in a different call
     * (shm_notice.c). */
    ic_calls_t calls;
} shm_transport_t;

/* Lists. */
static inline void shm_list_push(shm_list_t *l, shm_req_t *r)
{
    r->next = NULL;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
}
/* Unlinks r (whose predecessor is prev, or NULL if r is the head). */
static inline void shm_list_unlink(shm_list_t *l, shm_req_t *prev, shm_req_t *r)
{
    if (prev)
        prev->next = r->next;
    else
        l->head = r->next;
    if (l->tail == r)
        l->tail = prev;
    r->next = NULL;
}
/* Removes r from l if it is there; returns whether it was. */
int ic_shm_list_remove(shm_list_t *l, shm_req_t *r);

/* shm_segment.c */
/* The layout of a segment for p ranks; crowded: they outnumber the cores
 * (larger queues and eager messages). */
void ic_shm_layout(int p, bool crowded, shm_hdr_t *h);
/* The eager limits of a layout where a single copy is dear
 * (ic_shm_cma_extra_ns >= SHM_CMA_DEAR_NS): one-way messages go inline up
 * to eager_max like the others; crowded, eager_max grows to 128 KiB
 * within a quarter of a queue. */
void ic_shm_layout_cma_dear(shm_hdr_t *h);
/* The eager limit of a layout where a single copy works and is cheap:
 * with a core per rank, messages above 8 KiB go by rendezvous. */
void ic_shm_layout_cma_cheap(shm_hdr_t *h);
ic_status_t ic_shm_seg_map(const char *name, int size, shm_seg_t *seg);
/* Maps the rank's queues into its page tables and writes a word of
 * every page it sends through (queues, bulk buffers): before any send. */
void ic_shm_seg_prefault(const shm_seg_t *seg, int rank);
ic_status_t ic_shm_seg_register(shm_seg_t *seg, const char *name, int rank, const void *probe);
void ic_shm_seg_unmap(shm_seg_t *seg);

/* shm_wait.c */
uint64_t ic_shm_now_ns(void);
void ic_shm_ring(const shm_seg_t *seg, int rank);
void ic_shm_ring_all(const shm_seg_t *seg);
/* After a message was pushed into peer's queue: rings peer, or with
 * t->qpoll only if it sleeps (or is about to). */
void ic_shm_ring_msg(shm_transport_t *t, int peer);
#define SHM_QPOLL_MAX 8 /* up to this many ranks, waits poll every queue (shm_wait.c) */
ic_status_t ic_shm_wait_count(const shm_seg_t *seg, int rank, atomic_uint *ctr, unsigned target,
                           double timeout_s);
ic_status_t ic_shm_check_job(shm_transport_t *t);
ic_status_t ic_shm_check_peer(shm_transport_t *t, int peer, int force);
/* ic_shm_check_peer(t, peer, 0) for a caller that progresses next (a
 * wait, a test): a peer that is gone while messages from it still wait in
 * its queue to this rank is not failed yet (shm_wait.c). */
ic_status_t ic_shm_check_peer_unread(shm_transport_t *t, int peer);
/* How long a wait keeps polling between yields before it sleeps: 0.2 ms
 * when each rank can have a core, 0.1 ms when the ranks outnumber the
 * cores (shm_wait.c). */
uint64_t ic_shm_yield_ns(bool oversubscribed);
/* The cores the host's ranks share: IC_SHM_CORES (1..IC_SHM_CORES_MAX,
 * the bound core/env.c checks), else the online processors. */
#define IC_SHM_CORES_MAX 65536
long ic_shm_cores(void);
void ic_shm_mark_failed(const shm_seg_t *seg, int rank, int status);
ic_status_t ic_shm_op_wait(ic_transport_t *tt, double timeout_s);
int ic_shm_pidfd_open(pid_t pid);
void ic_shm_op_wake(ic_transport_t *tt);

/* Keys match on (comm, seq, tag); the signature is checked after a match. */
static inline int shm_key_eq(const ic_match_key_t *a, const ic_match_key_t *b)
{
    return a->comm == b->comm && a->seq == b->seq && a->tag == b->tag;
}

/* shm_notice.c */
ic_status_t ic_shm_learn_op(ic_transport_t *tt, const ic_notice_t *n);
ic_status_t ic_shm_notify_op(ic_transport_t *tt, int peer, ic_match_key_t key, int scope,
                             ic_status_t status, const char *text);
int ic_shm_flush_notices(shm_transport_t *t, int peer);
/* A NOTICE message m from rank from, with its text: records it and fails
 * every request of the calls it names. */
void ic_shm_notice_received(shm_transport_t *t, int from, const shm_msg_t *m, const char *text);
/* The notice that fails calls with key, or NULL (fast when there are none). */
const shm_notice_t *ic_shm_notice_find(const shm_transport_t *t, const ic_match_key_t *key);
/* Sets the message of a request failed by notice n and returns its status. */
ic_status_t ic_shm_notice_error(const shm_notice_t *n);
/* Remembers that this rank posts a request of call key (isend/irecv); a
 * new call is checked against the messages already buffered. */
void ic_shm_note_call(shm_transport_t *t, const ic_match_key_t *key);
/* An unexpected message with key from peer: true (and the call fails
 * here, as by a notice with IC_ERR_MISMATCH) when this rank posted the
 * same call with another signature. */
bool ic_shm_stray(shm_transport_t *t, int peer, const ic_match_key_t *key);
/* The index of unexpected messages by call: one more (add) or one fewer
 * (remove) message of key's call buffered; free empties it. */
void ic_shm_uxcall_add(shm_transport_t *t, const ic_match_key_t *key);
void ic_shm_uxcall_remove(shm_transport_t *t, const ic_match_key_t *key);
void ic_shm_uxcalls_free(shm_transport_t *t);
/* shm_ux.c: unexpected-message records (a free list of small ones). */
shm_ux_t *ic_shm_ux_new(shm_transport_t *t, size_t keep);
void ic_shm_ux_release(shm_transport_t *t, shm_ux_t *u);
void ic_shm_ux_free_all(shm_transport_t *t);
/* Flow control: u (from peer) is now held here / is held no longer (a
 * receive took it or a notice dropped it). */
void ic_shm_ux_held(shm_transport_t *t, int peer, const shm_ux_t *u);
void ic_shm_ux_unheld(shm_transport_t *t, int peer, const shm_ux_t *u);
/* Producer: whether an eager send to peer waits now because peer holds
 * too many early messages of this rank (its flooded flag, for at most
 * SHM_FLOOD_HOLD_NS at a stretch).  The common case is one load of a line
 * that only changes when the flag does. */
bool ic_shm_flood_hold_slow(shm_transport_t *t, int peer, bool flooded);
static inline bool ic_shm_flood_holds(shm_transport_t *t, int peer)
{
    bool flooded = atomic_load_explicit(&t->peers[peer].out.ctl->flooded, memory_order_relaxed);
    if (!flooded && t->peers[peer].flood_since_ns == 0)
        return false;
    return ic_shm_flood_hold_slow(t, peer, flooded);
}
/* The error of a receive that matched a message of another call (sig). */
ic_status_t ic_shm_sig_mismatch(const shm_req_t *r, uint32_t sig);
/* Cancels r (any state) with st (shm_transport.c). */
void ic_shm_cancel(shm_transport_t *t, shm_req_t *r, ic_status_t st);

/* ic_shm_progress.c */
ic_status_t ic_shm_progress(shm_transport_t *t, int *events);
void ic_shm_complete(shm_transport_t *t, shm_req_t *r, ic_status_t st);
ic_status_t ic_shm_size_mismatch(const shm_req_t *r, uint64_t len);
/* Puts an EAGER message of bytes bytes of buf for peer into its queue; 1
 * if it went in (0: no room). */
int ic_shm_push_eager(shm_transport_t *t, int peer, const ic_match_key_t *key, const void *buf,
                      size_t bytes);
/* Takes the next message in peer s's queue if it is an EAGER one of
 * exactly key (signature included) and bytes bytes: copies it into buf,
 * pops it and returns 1; 0, having touched nothing, otherwise. */
int ic_shm_take_eager(shm_transport_t *t, int s, const ic_match_key_t *key, void *buf,
                      size_t bytes);
int ic_shm_push_send(shm_transport_t *t, shm_req_t *r);
void ic_shm_send_posted(shm_transport_t *t, shm_req_t *r);
void ic_shm_send_fin(shm_transport_t *t, int peer, uint64_t xfer, ic_status_t st);

/* shm_share.c */
/* A non-negative integer from the environment, or dflt (ic_init has
 * checked the IC_SHM_* sizes already; core/env.c). */
uint64_t ic_shm_env_u64(const char *name, uint64_t dflt);

/* What a 16 KiB process_vm_readv costs over a memcpy here, in ns
 * (shm_cma_cost.c; IC_SHM_CMA_EXTRA_NS sets it); *works (may be NULL)
 * false where this process may not read its own memory (then 0).  From
 * SHM_CMA_DEAR_NS on the creator takes ic_shm_layout_cma_dear's eager
 * limits, below it (where it works) ic_shm_layout_cma_cheap's. */
#define SHM_CMA_DEAR_NS 1000u
uint32_t ic_shm_cma_extra_ns(bool *works);
/* What a 4 MiB process_vm_readv costs against a memcpy of the same bytes,
 * times 100 (shm_cma_cost.c; IC_SHM_CMA_LARGE_X100 sets it); 0 where it
 * cannot be measured.  Below SHM_CMA_STREAM_X100 a one-way message above
 * the streaming threshold is shared instead of streamed (shm_rndv.c). */
#define SHM_CMA_STREAM_X100 400u
uint32_t ic_shm_cma_large_x100(void);
/* The smallest message both sides copy (IC_SHM_SHARE_MIN, default 256 KiB,
 * 1 MiB where single copy is dear; 0 never). */
uint64_t ic_shm_share_min(bool cma_dear);
/* The same for a receive posted with ops->irecv_read (IC_SHM_SHARE_READ_MIN,
 * default 512 KiB, never below share_min); share_min itself when the ranks
 * outnumber the cores. */
uint64_t ic_shm_share_read_min(uint64_t share_min, bool oversubscribed);
/* The size from which a message to another rank streams, or 0 (shm_rndv.c). */
uint64_t ic_shm_stream_min(bool oversubscribed);
/* The streaming threshold of a send while this rank receives too. */
uint64_t ic_shm_stream_xchg_min(uint64_t stream_min);
/* The streaming threshold of a send while this rank receives nothing:
 * stream_min, or 0 (never) where single copy works, IC_SHM_STREAM_MIN is
 * not set and the creator found a large single copy below
 * SHM_CMA_STREAM_X100 times a memcpy (cma_large_x100, 0: not measured). */
uint64_t ic_shm_stream_oneway_min(uint64_t stream_min, bool cma, uint32_t cma_large_x100);
/* How the sender sends r, decided once, when its RTS goes out: 0 by the
 * job's protocol, SHM_RTS_STREAM or SHM_RTS_CHUNK through the bulk buffer. */
uint32_t ic_shm_bulk_mode(const shm_transport_t *t, const shm_req_t *r);
/* IC_SHM_SHARE_PIECES_PER_CALL: the most pieces of one transfer a progress
 * call copies (default 0: as many as it can claim; tests set 1 to walk a
 * shared copy through its states). */
uint32_t ic_shm_share_pieces_per_call(void);
/* Receiver, single copy, after the gate is passed (READING): shares the
 * copy of r's message (the sender's buffer at addr) with the sender and
 * starts copying its own pieces. */
void ic_shm_share_start(shm_transport_t *t, shm_req_t *r, const shm_rts_t *rts);
/* Both sides copy the pieces they can claim; completes shared receives.
 * Returns the events (pieces copied, receives completed). */
int ic_shm_share_progress(shm_transport_t *t);
/* Cancels shared receive r with st: no piece is written into its buffer
 * after this returns. */
void ic_shm_share_cancel(shm_transport_t *t, shm_req_t *r, ic_status_t st);
/* Sender's gate states (shm_rndv.c, shm_share.c). */
enum { GATE_OPEN = 1, GATE_READING = 2, GATE_DONE = 3, GATE_SHARED = 4 };
static inline uint64_t shm_gate(uint64_t xfer, unsigned state)
{
    return xfer << 3 | state;
}
/* Copies n bytes between local and addr in pid's address space (rank
 * peer's): reads them into local, or writes them from local (shm_rndv.c). */
ic_status_t ic_shm_cma_copy(pid_t pid, int peer, void *local, uint64_t addr, size_t n,
                            bool write);

/* shm_rndv.c */
int ic_shm_rndv_probe(pid_t pid, uint64_t addr, uint64_t expect);
void ic_shm_rndv_match(shm_transport_t *t, shm_req_t *r, uint64_t len, const shm_rts_t *rts);
void ic_shm_rndv_fin(shm_transport_t *t, int peer, uint64_t xfer, ic_status_t st);
int ic_shm_rndv_chunk_progress(shm_transport_t *t);
void ic_shm_rndv_break(shm_transport_t *t, int from, int to);
/* Gives a single-copy send (to peer; also to itself) a read gate: 0, or
 * -1 when all are in use (the send then waits for one). */
int ic_shm_ticket_open(shm_transport_t *t, shm_req_t *r);
/* Closes r's gate when its FIN came; ic_shm_ticket_revoke when r is
 * cancelled: afterwards no peer reads r's buffer (a read under way is
 * waited for). */
void ic_shm_ticket_close(shm_transport_t *t, shm_req_t *r);
void ic_shm_ticket_revoke(shm_transport_t *t, shm_req_t *r);

#endif
