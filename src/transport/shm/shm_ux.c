/*
 * shm_ux.c — records of unexpected messages (shm_progress.c's drain makes
 * them, a matching receive or a failure notice takes them).  Records big
 * enough for SHM_UX_SMALL bytes go back on a free list of at most
 * SHM_UX_KEEP instead of to free(): an 8-byte call whose message arrives
 * before the receive is posted no longer pays a malloc and a free
 * (about 120 instructions per call on the receiving rank, callgrind).
 * SHM_UX_KEEP is 4096 (it was 1024): a rank that runs ahead (an 8-byte
 * scan in a loop: rank 0 only sends) leaves its peer with up to a queue's
 * worth of early messages at a time (2048 one-cell messages at p = 2),
 * and each record beyond the kept ones cost a malloc and a free — 6746 of
 * 11000 calls did under callgrind.  With 4096: 8-byte scans in a loop
 * 0.159 against 0.180 us per call (bench/results/ux-keep-2026-11-29-xeon.txt);
 * the price is up to 4096 records of about 140 bytes kept after a burst.
 */
#include "transport/shm/shm_internal.h"

#include <stdlib.h>

shm_ux_t *ic_shm_ux_new(shm_transport_t *t, size_t keep)
{
    if (keep <= SHM_UX_SMALL && t->ux_free) {
        shm_ux_t *u = t->ux_free;
        t->ux_free = u->next;
        t->nux_free--;
        return u;
    }
    size_t room = keep <= SHM_UX_SMALL ? SHM_UX_SMALL : keep;
    shm_ux_t *u = malloc(sizeof(*u) + room);
    if (u)
        u->room = (uint32_t)(room <= UINT32_MAX ? room : 0);
    return u;
}

void ic_shm_ux_release(shm_transport_t *t, shm_ux_t *u)
{
    if (u->room == SHM_UX_SMALL && t->nux_free < SHM_UX_KEEP) {
        u->next = t->ux_free;
        t->ux_free = u;
        t->nux_free++;
    } else {
        free(u);
    }
}

void ic_shm_ux_free_all(shm_transport_t *t)
{
    while (t->ux_free) {
        shm_ux_t *u = t->ux_free;
        t->ux_free = u->next;
        free(u);
    }
    t->nux_free = 0;
}
