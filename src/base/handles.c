/*
 * handles.c — pools of handle objects (see handles.h).
 *
 * A chunk holds IC_POOL_CHUNK_OBJS slots; a slot is a 16-byte header
 * (the state word and the free-list link) followed by the object.  The
 * chunk table only grows, and a chunk's pointer is published with a
 * release store before nchunks counts it, so ic_pool_live can scan it
 * without the lock.
 */
#include "base/handles.h"

#include <stdlib.h>
#include <string.h>

enum { SLOT_DEAD = 0x0dead0u, SLOT_LIVE = 0x11fe5u };

typedef struct slot_hdr {
    atomic_uint state;
    uint32_t pad;
    void *next_free; /* the next dead object (its address), while dead */
} slot_hdr_t;
_Static_assert(sizeof(slot_hdr_t) == 16, "the slot header keeps objects 16-byte aligned");

static slot_hdr_t *hdr_of(const void *obj)
{
    return (slot_hdr_t *)(void *)((unsigned char *)(uintptr_t)obj - sizeof(slot_hdr_t));
}

static size_t slot_size(ic_pool_t *pool)
{
    if (!pool->slot_size)
        pool->slot_size = sizeof(slot_hdr_t) + ((pool->obj_size + 15u) & ~(size_t)15u);
    return pool->slot_size;
}

/* Adds a chunk and threads its slots onto the free list (lock held). */
static int grow(ic_pool_t *pool)
{
    size_t n = atomic_load(&pool->nchunks);
    if (n >= IC_POOL_MAX_CHUNKS)
        return -1;
    size_t ss = slot_size(pool);
    unsigned char *c = aligned_alloc(16, ss * IC_POOL_CHUNK_OBJS);
    if (!c)
        return -1;
    memset(c, 0, ss * IC_POOL_CHUNK_OBJS);
    for (int i = IC_POOL_CHUNK_OBJS - 1; i >= 0; i--) {
        slot_hdr_t *h = (slot_hdr_t *)(void *)(c + (size_t)i * ss);
        atomic_store(&h->state, SLOT_DEAD);
        h->next_free = pool->free_head;
        pool->free_head = (unsigned char *)h + sizeof(slot_hdr_t);
    }
    atomic_store_explicit(&pool->chunks[n], c, memory_order_release);
    atomic_store_explicit(&pool->nchunks, n + 1, memory_order_release);
    return 0;
}

void *ic_pool_get(ic_pool_t *pool, uint64_t *id)
{
    void *obj = NULL;
    pthread_mutex_lock(&pool->mu);
    if (pool->free_head || grow(pool) == 0) {
        obj = pool->free_head;
        slot_hdr_t *h = hdr_of(obj);
        pool->free_head = h->next_free;
        h->next_free = NULL;
        memset(obj, 0, pool->obj_size);
        atomic_store(&h->state, SLOT_LIVE);
        if (id)
            *id = pool->next_id;
        pool->next_id++;
    }
    pthread_mutex_unlock(&pool->mu);
    return obj;
}

void ic_pool_put(ic_pool_t *pool, void *obj)
{
    if (!obj)
        return;
    slot_hdr_t *h = hdr_of(obj);
    pthread_mutex_lock(&pool->mu);
    atomic_store(&h->state, SLOT_DEAD);
    h->next_free = pool->free_head;
    pool->free_head = obj;
    pthread_mutex_unlock(&pool->mu);
}

bool ic_pool_live(ic_pool_t *pool, const void *obj)
{
    if (!obj)
        return false;
    size_t n = atomic_load_explicit(&pool->nchunks, memory_order_acquire);
    uintptr_t a = (uintptr_t)obj;
    size_t ss = pool->slot_size;
    for (size_t i = 0; i < n; i++) {
        uintptr_t c = (uintptr_t)atomic_load_explicit(&pool->chunks[i], memory_order_acquire);
        if (a < c + sizeof(slot_hdr_t) || a >= c + ss * IC_POOL_CHUNK_OBJS)
            continue;
        if ((a - c - sizeof(slot_hdr_t)) % ss != 0)
            return false;
        return atomic_load_explicit(&hdr_of(obj)->state, memory_order_acquire) == SLOT_LIVE;
    }
    return false;
}
