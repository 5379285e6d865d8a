/*
 * shm_queue.h — the lock-free single-producer/single-consumer message queue
 * that carries every small message of one ordered pair (sender i ->
 * receiver j) through the job's shared segment.
 *
 * A queue is a control block followed by a ring of ncells 64-byte cells
 * (ncells a power of two).  Producer and consumer each own one index, a
 * monotonically increasing cell counter on its own cache line:
 *
 *   line 0: head     (written by the producer only)
 *   line 1: tail     (written by the consumer only) + waiting flag
 *   cells:  | hdr+payload | payload | payload | hdr+payload | ...
 *                ^ tail                          ^ head
 *
 * A message starts on a cell boundary with a 40-byte header (shm_msg_t);
 * its payload follows the header as one byte stream that runs on through
 * the next cells and may wrap around the end of the ring, so a message
 * takes ceil((40 + len) / 64) cells.  The producer writes the cells, then
 * publishes the message with a release store of its stamp, the header's
 * first word: shm_q_stamp(index of its first cell), never 0.  The consumer
 * polls the stamp of the cell at its tail (acquire), so a message of up
 * to 24 bytes moves one cache line from producer to consumer, the line
 * the consumer polls (before: the cell, head and the doorbell, three
 * lines; a throwaway ping-pong of the two schemes took 64-75 against
 * 92-100 ns per message in a fast spell of the 2-vCPU VM and 238-262
 * against 334-403 in a slow one, docs/perf/per-call-work.md).  A stale
 * stamp can never match: every lap rewrites every cell, a header cell's
 * old stamp names a cell index one lap back, and the consumer zeroes the
 * stamp word of every continuation cell it hands back, so payload bytes
 * never stand where a header is expected (tests/unit/test_shm_queue_stamp.c).
 * The consumer hands cells back with a release store of tail; the
 * producer caches tail and reloads it only when the cached value says
 * "full".  head is still published (for attaching views and debugging);
 * nobody polls it.
 *
 * When the ring is full the producer raises the waiting flag (a Dekker
 * handshake with seq_cst fences against the consumer's tail store); the
 * consumer, after a batch of pops, sees it and rings the producer's
 * doorbell so that a sleeping producer wakes up to send its backlog.  The
 * flag sits on tail's line, which the consumer owns: its read after every
 * batch stays in the consumer's cache (on head's line it pulled that line
 * over from the producer, which took it back on its next push).
 *
 * Streamed payloads.  The producer writes a payload into cells the
 * consumer read one lap ago, so each line's store first takes the line
 * back from the consumer's cache.  On the 2-vCPU VM this was developed on
 * that costs one of three prices, changing with the host's placement of
 * the vCPUs every few minutes: a 2-rank broadcast of 4 KiB took 0.61,
 * 0.90 or 2.9 us (the copy into the ring 0.03, 0.075 or 0.30 ns per
 * byte; the consumer's copy out 0.033, 0.033 or 0.097).  Written with
 * non-temporal stores instead, a line goes to memory without being taken
 * back first: 1.26, 0.95 and 1.38 us.  So the producer times one in
 * SHM_Q_TIME_EVERY of its cached copies of SHM_Q_STREAM_MIN bytes or more
 * (ic_shm_q_note_push: a smoothed cost per byte, with hysteresis) and,
 * while that says slow, streams such payloads, all but every
 * SHM_Q_PROBE_EVERY-th, which goes cached and timed so that it sees when
 * the slow spell is over (docs/perf/transport-model.md).  The header's
 * flags say how a payload was written.  IC_SHM_EAGER_STREAM=0 never
 * streams, 1 always (tests).  How a payload is written never changes what
 * is sent, and the decision is the producer's alone.
 */
#ifndef IC_TRANSPORT_SHM_QUEUE_H
#define IC_TRANSPORT_SHM_QUEUE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SHM_CELL 64u    /* bytes in one cell: one cache line */
#define SHM_MSG_HDR 40u /* bytes of header at the start of a message */
#define SHM_Q_STREAM_MIN 2048u /* payloads that may be streamed, and are timed */
#define SHM_Q_TIME_EVERY 4u    /* while fast, one in 4 such payloads' copies is timed */
#define SHM_Q_PROBE_EVERY 16u  /* while slow, every 16th such payload goes cached */
#define SHM_MSG_STREAMED 1u    /* shm_msg_t.flags: payload written with non-temporal stores */

enum { SHM_Q_STREAM_AUTO, SHM_Q_STREAM_NEVER, SHM_Q_STREAM_ALWAYS }; /* IC_SHM_EAGER_STREAM */

enum { SHM_MSG_EAGER = 1, SHM_MSG_RTS = 2, SHM_MSG_FIN = 3, SHM_MSG_NOTICE = 4 };

/* The header of one message.  EAGER: key, len payload bytes inline.
 * RTS (request to send, rendezvous): key, len = message size, payload =
 * shm_rts_t.  FIN (receiver -> sender, rendezvous finished): seq = the
 * transfer id, tag = the receiver's status (an ic_status_t), no payload.
 * NOTICE (ops->notify): comm, seq, scope, tag = the status, payload = len
 * bytes of text.  sig is the call's signature (transport.h). */
typedef struct shm_msg {
    uint32_t stamp; /* shm_q_stamp(first cell), stored last (release); set by ic_shm_q_push */
    uint8_t type;
    union {
        uint8_t scope; /* NOTICE: IC_NOTICE_CALL or IC_NOTICE_COMM */
        uint8_t flags; /* EAGER: SHM_MSG_STREAMED */
    };
    uint16_t ncells; /* cells this message occupies, header included */
    uint32_t tag;
    uint32_t sig;
    uint64_t comm;
    uint64_t seq;
    uint64_t len;
} shm_msg_t;
_Static_assert(sizeof(shm_msg_t) == SHM_MSG_HDR, "the header is SHM_MSG_HDR bytes");
_Static_assert(offsetof(shm_msg_t, stamp) == 0,
               "the stamp is the header's first word (ic_shm_q_push)");

typedef struct shm_rts {
    uint64_t addr;   /* the sender's buffer, in the sender's address space */
    uint64_t xfer;   /* transfer id, unique per sender, never 0 */
    uint32_t ticket; /* single copy: the sender's read gate (shm_rndv.c) */
    uint32_t mode;   /* SHM_RTS_STREAM, SHM_RTS_CHUNK: through the bulk buffer, whatever the
                      * job's protocol (shm_rndv.c); 0: the job's protocol */
} shm_rts_t;
#define SHM_RTS_STREAM 1u /* with non-temporal copies */
#define SHM_RTS_CHUNK 2u  /* with cached copies */

/* The two lines of the diagram above: the waiting flag beside tail; and a
 * third, written only when it changes (rarely), so the producer's look at
 * it on every eager push stays in its own cache: the consumer holds too
 * many early messages of this producer (shm_ux.c, flow control). */
typedef struct shm_qctl {
    _Alignas(64) _Atomic uint64_t head;
    _Alignas(64) _Atomic uint64_t tail;
    atomic_uint waiting; /* the producer found the ring full */
    _Alignas(64) atomic_uint flooded; /* consumer: hold new eager sends (shm_ux.c) */
} shm_qctl_t;

/* One side's private view of a queue. */
typedef struct shm_qend {
    shm_qctl_t *ctl;
    unsigned char *ring; /* ncells * SHM_CELL bytes, right after ctl */
    uint64_t mine;       /* producer: head; consumer: tail */
    uint64_t other;      /* producer: cached copy of tail */
    uint32_t ncells;
    /* Producer: streaming of payloads (see above). */
    int stream_mode;  /* SHM_Q_STREAM_* */
    int slow;         /* the cached copies are slow now: stream */
    uint32_t nlarge;  /* payloads of SHM_Q_STREAM_MIN bytes or more pushed */
    double push_ns;   /* smoothed ns per byte of a timed cached copy */
} shm_qend_t;

/* The stamp of a message whose first cell has index cell (a cell counter,
 * not a position): odd, so never the 0 of a zeroed word, and different
 * from the stamp of the cell at the same position one lap (ncells >= 2,
 * a power of two) earlier. */
static inline uint32_t shm_q_stamp(uint64_t cell)
{
    return (uint32_t)cell | 1u;
}

/* Consumer: whether a message waits at the tail (one load of the cell's
 * stamp; no side effects, so also usable while polling). */
static inline int shm_q_ready(const unsigned char *ring, uint32_t ncells, uint64_t tail)
{
    const shm_msg_t *m =
        (const shm_msg_t *)(const void *)(ring + (size_t)(tail & (ncells - 1)) * SHM_CELL);
    return __atomic_load_n(&m->stamp, __ATOMIC_ACQUIRE) == shm_q_stamp(tail);
}

/* Bytes taken in the segment by one queue of ncells cells. */
static inline size_t shm_q_bytes(uint32_t ncells)
{
    return sizeof(shm_qctl_t) + (size_t)ncells * SHM_CELL;
}

/* Cells taken by a message with len payload bytes. */
static inline uint64_t shm_q_cells_for(uint64_t len)
{
    return (SHM_MSG_HDR + len + SHM_CELL - 1) / SHM_CELL;
}

/* Makes e a producer's or consumer's view of the queue at ctl. */
void ic_shm_q_attach(shm_qend_t *e, shm_qctl_t *ctl, uint32_t ncells, int producer);

/* Producer: appends message m (its ncells is filled in) with plen payload
 * bytes.  Returns 1 if appended, 0 if the ring has no room now (then the
 * waiting flag is raised so that the consumer rings back). */
int ic_shm_q_push(shm_qend_t *e, shm_msg_t *m, const void *payload, size_t plen);

/* Consumer: the header of the oldest message, or NULL if the queue is
 * empty.  The message stays in the ring until ic_shm_q_pop. */
const shm_msg_t *ic_shm_q_peek(shm_qend_t *e);
/* Consumer: copies n payload bytes from offset off of the current message. */
void ic_shm_q_read(const shm_qend_t *e, size_t off, void *dst, size_t n);
/* Producer: notes that a cached copy of bytes payload bytes into the ring
 * took ns nanoseconds, and turns streaming on or off. */
void ic_shm_q_note_push(shm_qend_t *e, size_t bytes, double ns);
/* Consumer: releases the current message's cells to the producer. */
void ic_shm_q_pop(shm_qend_t *e, const shm_msg_t *m);
/* Consumer, after a batch of pops: 1 if the producer was waiting for room
 * (the flag is cleared; the caller rings the producer). */
int ic_shm_q_producer_waiting(shm_qend_t *e);

#endif
