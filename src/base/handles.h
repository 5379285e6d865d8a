/*
 * handles.h — pools of the objects behind the public handles
 * (communicators, user operations, requests), so that a freed or garbage
 * handle is recognised instead of being dereferenced.
 *
 * Objects are carved out of chunks that are never returned to malloc: a
 * freed object is marked dead and kept for reuse by the next allocation
 * of its pool.  ic_pool_live(pool, ptr) answers, without dereferencing
 * anything outside the pool's chunks, whether ptr is the address of a live
 * object of that pool: a pointer into no chunk (garbage, a stack address,
 * a handle of another kind), a misaligned one, or a dead object gives
 * false.  A freed handle that has been reused by a later allocation looks
 * live again (as in MPI, the library cannot tell it from the new one).
 *
 * Every object gets an id that is never reused within the process
 * (caches key on it instead of the address, which malloc may hand out
 * again).  Thread safety: get/put take the pool's lock; live reads the
 * chunk table and the object's state with atomics and takes no lock.
 */
#ifndef IC_BASE_HANDLES_H
#define IC_BASE_HANDLES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IC_POOL_MAX_CHUNKS 4096
#define IC_POOL_CHUNK_OBJS 32

typedef struct ic_pool {
    const char *what;    /* "communicator", ... (messages) */
    size_t obj_size;     /* bytes of one object */
    pthread_mutex_t mu;  /* guards free_head, next_id and adding chunks */
    void *free_head;     /* dead objects ready for reuse */
    uint64_t next_id;
    size_t slot_size;    /* header + object, rounded up */
    _Atomic(unsigned char *) chunks[IC_POOL_MAX_CHUNKS];
    atomic_size_t nchunks;
} ic_pool_t;

#define IC_POOL_INIT(what, type, first_id)                                                   \
    {                                                                                          \
        (what), sizeof(type), PTHREAD_MUTEX_INITIALIZER, NULL, (first_id), 0, {NULL}, 0      \
    }

/* A zeroed, live object of the pool and its id (*id), or NULL when out of
 * memory. */
void *ic_pool_get(ic_pool_t *pool, uint64_t *id);
/* Marks obj (live, of this pool) dead and keeps it for reuse. */
void ic_pool_put(ic_pool_t *pool, void *obj);
/* True if obj is the address of a live object of pool. */
bool ic_pool_live(ic_pool_t *pool, const void *obj);

#endif
