/*
 * shm_queue.c — the single-producer/single-consumer cell ring described
 * in shm_queue.h.  Memory ordering: the producer's cell writes are
 * published by a release store of head and observed after an acquire
 * load of head; the consumer's reads are finished before a release store
 * of tail, which the producer acquires before it overwrites those cells.
 */
#include "base/copy.h"
#include "transport/shm/shm_queue.h"

#include <string.h>

void ic_shm_q_attach(shm_qend_t *e, shm_qctl_t *ctl, uint32_t ncells, int producer)
{
    e->ctl = ctl;
    e->ring = (unsigned char *)ctl + sizeof(shm_qctl_t);
    e->ncells = ncells;
    if (producer) {
        e->mine = atomic_load_explicit(&ctl->head, memory_order_relaxed);
        e->other = atomic_load_explicit(&ctl->tail, memory_order_acquire);
    } else {
        e->mine = atomic_load_explicit(&ctl->tail, memory_order_relaxed);
        e->other = atomic_load_explicit(&ctl->head, memory_order_acquire);
    }
}

/* Copies n bytes into the ring's byte stream at byte position pos,
 * wrapping around the end. */
static void ring_put(const shm_qend_t *e, uint64_t pos, const void *src, size_t n)
{
    size_t bytes = (size_t)e->ncells * SHM_CELL;
    size_t at = (size_t)(pos & (bytes - 1));
    size_t first = n < bytes - at ? n : bytes - at;
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
    uint64_t pos = e->mine * SHM_CELL;
    size_t cell0 = (size_t)(e->mine & (e->ncells - 1)) * SHM_CELL;
    memcpy(e->ring + cell0, m, sizeof(*m)); /* a header never wraps */
    if (plen > 0)
        ring_put(e, pos + SHM_MSG_HDR, payload, plen);
    e->mine += need;
    atomic_store_explicit(&e->ctl->head, e->mine, memory_order_release);
    return 1;
}

const shm_msg_t *ic_shm_q_peek(shm_qend_t *e)
{
    if (e->mine == e->other) {
        e->other = atomic_load_explicit(&e->ctl->head, memory_order_acquire);
        if (e->mine == e->other)
            return NULL;
    }
    size_t cell0 = (size_t)(e->mine & (e->ncells - 1)) * SHM_CELL;
    return (const shm_msg_t *)(const void *)(e->ring + cell0);
}

void ic_shm_q_read(const shm_qend_t *e, size_t off, void *dst, size_t n)
{
    if (n > 0)
        ring_get(e, e->mine * SHM_CELL + SHM_MSG_HDR + off, dst, n);
}

void ic_shm_q_pop(shm_qend_t *e, const shm_msg_t *m)
{
    e->mine += m->ncells;
    atomic_store_explicit(&e->ctl->tail, e->mine, memory_order_release);
}

int ic_shm_q_producer_waiting(shm_qend_t *e)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&e->ctl->waiting, memory_order_relaxed))
        return 0;
    return atomic_exchange_explicit(&e->ctl->waiting, 0u, memory_order_relaxed) != 0;
}
