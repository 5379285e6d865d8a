/*
 * shm_queue.c — the single-producer/single-consumer cell ring described
 * in shm_queue.h.  Memory ordering: the producer's cell writes are
 * published by a release store of the message's stamp and observed after
 * an acquire load of it; the consumer's reads (and its zeroing of the
 * continuation cells' stamp words) are finished before a release store of
 * tail, which the producer acquires before it overwrites those cells.
 */
#include "base/copy.h"
#include "transport/shm/shm_internal.h" /* ic_shm_now_ns */
#include "transport/shm/shm_queue.h"

#include <string.h>

/* The push cost's hysteresis, ns per byte: slow above SET, fast again
 * below CLEAR; one sample counts at most CAP (a copy interrupted by the
 * scheduler must not turn streaming on by itself).  Measured means of
 * 400 copies of 4 KiB (shm_queue.h): 0.03 and 0.075 in the fast spells,
 * 0.30 in the slow one. */
#define PUSH_SLOW_SET 0.18
#define PUSH_SLOW_CLEAR 0.12
#define PUSH_SAMPLE_CAP 0.6

void ic_shm_q_attach(shm_qend_t *e, shm_qctl_t *ctl, uint32_t ncells, int producer)
{
    e->ctl = ctl;
    e->ring = (unsigned char *)ctl + sizeof(shm_qctl_t);
    e->ncells = ncells;
    e->stream_mode = SHM_Q_STREAM_AUTO;
    e->slow = 0;
    e->nlarge = 0;
    e->push_ns = 0;
    if (producer) {
        e->mine = atomic_load_explicit(&ctl->head, memory_order_relaxed);
        e->other = atomic_load_explicit(&ctl->tail, memory_order_acquire);
    } else {
        e->mine = atomic_load_explicit(&ctl->tail, memory_order_relaxed);
        e->other = 0; /* unused: the consumer polls stamps */
    }
}

/* Copies n bytes into the ring's byte stream at byte position pos,
 * wrapping around the end. */
static void ring_put(const shm_qend_t *e, uint64_t pos, const void *src, size_t n, int stream)
{
    size_t bytes = (size_t)e->ncells * SHM_CELL;
    size_t at = (size_t)(pos & (bytes - 1));
    size_t first = n < bytes - at ? n : bytes - at;
    if (stream) { /* ends with a store fence: published by head's release */
        ic_copy_stream(e->ring + at, src, first);
        if (first < n)
            ic_copy_stream(e->ring, (const unsigned char *)src + first, n - first);
        return;
    }
    ic_copy(e->ring + at, src, first);
    if (first < n)
        ic_copy(e->ring, (const unsigned char *)src + first, n - first);
}

static void ring_get(const shm_qend_t *e, uint64_t pos, void *dst, size_t n)
{
    size_t bytes = (size_t)e->ncells * SHM_CELL;
    size_t at = (size_t)(pos & (bytes - 1));
    size_t first = n < bytes - at ? n : bytes - at;
    ic_copy(dst, e->ring + at, first);
    if (first < n)
        ic_copy((unsigned char *)dst + first, e->ring, n - first);
}

int ic_shm_q_push(shm_qend_t *e, shm_msg_t *m, const void *payload, size_t plen)
{
    uint64_t need = shm_q_cells_for(plen);
    if (e->ncells - (e->mine - e->other) < need) {
        e->other = atomic_load_explicit(&e->ctl->tail, memory_order_acquire);
        if (e->ncells - (e->mine - e->other) < need) {
            /* Announce that we wait for room, then look once more: either
             * we see the consumer's newer tail, or it sees our flag. */
            atomic_store_explicit(&e->ctl->waiting, 1u, memory_order_relaxed);
            atomic_thread_fence(memory_order_seq_cst);
            e->other = atomic_load_explicit(&e->ctl->tail, memory_order_acquire);
            if (e->ncells - (e->mine - e->other) < need)
                return 0;
        }
    }
    m->ncells = (uint16_t)need;
    /* Streamed, cached, or cached and timed (see shm_queue.h). */
    int stream = 0, timed = 0;
    if (plen >= SHM_Q_STREAM_MIN && e->stream_mode != SHM_Q_STREAM_NEVER) {
        uint32_t k = ++e->nlarge;
        if (e->stream_mode == SHM_Q_STREAM_ALWAYS)
            stream = 1;
        else if (e->slow)
            timed = !(stream = k % SHM_Q_PROBE_EVERY != 0);
        else
            timed = k % SHM_Q_TIME_EVERY == 0;
    }
    if (m->type == SHM_MSG_EAGER)
        m->flags = stream ? SHM_MSG_STREAMED : 0;
    uint64_t pos = e->mine * SHM_CELL;
    size_t cell0 = (size_t)(e->mine & (e->ncells - 1)) * SHM_CELL;
    shm_msg_t *h = (shm_msg_t *)(void *)(e->ring + cell0);
    /* A header never wraps.  All but the stamp now; the stamp word keeps
     * its stale value (never a match) until the release store below. */
    memcpy((unsigned char *)h + sizeof h->stamp, (const unsigned char *)m + sizeof m->stamp,
           sizeof(*m) - sizeof m->stamp);
    if (timed) {
        uint64_t t0 = ic_shm_now_ns();
        ring_put(e, pos + SHM_MSG_HDR, payload, plen, 0);
        ic_shm_q_note_push(e, plen, (double)(ic_shm_now_ns() - t0));
    } else if (plen > 0) {
        ring_put(e, pos + SHM_MSG_HDR, payload, plen, stream);
    }
    /* Publish: the stamp is what the consumer polls.  head follows for
     * whoever attaches a view later; nobody polls it. */
    __atomic_store_n(&h->stamp, shm_q_stamp(e->mine), __ATOMIC_RELEASE);
    e->mine += need;
    atomic_store_explicit(&e->ctl->head, e->mine, memory_order_relaxed);
    return 1;
}

const shm_msg_t *ic_shm_q_peek(shm_qend_t *e)
{
    if (!shm_q_ready(e->ring, e->ncells, e->mine))
        return NULL;
    size_t cell0 = (size_t)(e->mine & (e->ncells - 1)) * SHM_CELL;
    return (const shm_msg_t *)(const void *)(e->ring + cell0);
}

void ic_shm_q_read(const shm_qend_t *e, size_t off, void *dst, size_t n)
{
    if (n > 0)
        ring_get(e, e->mine * SHM_CELL + SHM_MSG_HDR + off, dst, n);
}

void ic_shm_q_note_push(shm_qend_t *e, size_t bytes, double ns)
{
    double x = ns / (double)bytes;
    e->push_ns += ((x < PUSH_SAMPLE_CAP ? x : PUSH_SAMPLE_CAP) - e->push_ns) / 4;
    if (!e->slow && e->push_ns > PUSH_SLOW_SET)
        e->slow = 1;
    else if (e->slow && e->push_ns < PUSH_SLOW_CLEAR)
        e->slow = 0;
}

void ic_shm_q_pop(shm_qend_t *e, const shm_msg_t *m)
{
    /* Payload bytes must never stand where a later lap expects a header:
     * zero the stamp word of every continuation cell (shm_queue.h). */
    uint32_t n = m->ncells;
    for (uint32_t k = 1; k < n; k++) {
        shm_msg_t *c = (shm_msg_t *)(void *)(e->ring +
                                             (size_t)((e->mine + k) & (e->ncells - 1)) * SHM_CELL);
        __atomic_store_n(&c->stamp, 0u, __ATOMIC_RELAXED); /* a waiting thread may poll it */
    }
    e->mine += n;
    atomic_store_explicit(&e->ctl->tail, e->mine, memory_order_release);
}

int ic_shm_q_producer_waiting(shm_qend_t *e)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&e->ctl->waiting, memory_order_relaxed))
        return 0;
    return atomic_exchange_explicit(&e->ctl->waiting, 0u, memory_order_relaxed) != 0;
}
