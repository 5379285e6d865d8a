/*
 * shm_cma_cost.c — what a single copy costs on this machine, measured once
 * by the job's creator.
 *
 * A message above the eager limit goes by rendezvous: one process_vm_readv
 * by the receiver instead of the two copies of an eager message (into the
 * queue, out of it).  Whether that pays depends on the machine's system
 * calls.  On the Intel Xeon VM a 20 KiB process_vm_readv took 0.84 us in a
 * loop, and one-way messages of 6-16 KiB took 0.47-0.59 of their eager time
 * by rendezvous (docs/perf/transport-model.md).  On the AMD EPYC VM a
 * 16 KiB process_vm_readv of the caller's own memory took 2.2 us (min of
 * 2000, against 0.29 for a memcpy; 4 KiB: 1.23 against 0.07), and by
 * rendezvous the same one-way messages took 1.1-3.7 times their eager
 * time (docs/perf/cma-cost.md).
 *
 * ic_shm_cma_extra_ns measures what a process_vm_readv of PROBE_BYTES
 * from the caller's own memory costs over a memcpy of the same bytes: the
 * median over PROBE_REPS of the pair, after PROBE_WARMUP untimed ones (a
 * few hundred microseconds at job creation).  From SHM_CMA_DEAR_NS
 * (shm_internal.h) the creator sends one-way messages inline up to the
 * common eager limit (ic_shm_layout_cma_dear, shm_segment.c); below it a
 * job with a core per rank sends messages above 8 KiB by rendezvous
 * (ic_shm_layout_cma_cheap).  The figure
 * is the creator's alone and is kept in the header, so every rank of the
 * job uses the same limits (and prices messages with them).  IC_SHM_CMA_EXTRA_NS=N
 * (nanoseconds) sets the figure instead of measuring it: 0 keeps the
 * limits for a cheap single copy, anything from SHM_CMA_DEAR_NS up takes
 * the others.  A process that may not read its own memory (seccomp,
 * ptrace rules) gets 0 and *works false: the ranks then find single copy
 * refused anyway and use the chunked copy, and the limits stay those of
 * ic_shm_layout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "base/copy.h"
#include "transport/shm/shm_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define PROBE_BYTES 16384u
#define PROBE_WARMUP 8
#define PROBE_REPS 31

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint32_t ic_shm_cma_extra_ns(bool *works)
{
    bool dummy;
    if (!works)
        works = &dummy;
    *works = true;
    const char *env = getenv("IC_SHM_CMA_EXTRA_NS");
    if (env && *env)
        return (uint32_t)ic_shm_env_u64("IC_SHM_CMA_EXTRA_NS", 0);
    *works = false;
    unsigned char *src = malloc(2 * PROBE_BYTES);
    if (!src)
        return 0;
    unsigned char *dst = src + PROBE_BYTES;
    memset(src, 0x5a, PROBE_BYTES);
    memset(dst, 0, PROBE_BYTES);
    pid_t me = getpid();
    uint64_t extra[PROBE_REPS];
    uint32_t result = 0;
    for (int i = 0; i < PROBE_WARMUP + PROBE_REPS; i++) {
        struct iovec l = {dst, PROBE_BYTES}, r = {src, PROBE_BYTES};
        uint64_t t0 = ic_shm_now_ns();
        ssize_t got = process_vm_readv(me, &l, 1, &r, 1, 0);
        uint64_t t1 = ic_shm_now_ns();
        ic_copy(dst, src, PROBE_BYTES);
        __asm__ __volatile__("" : : "r"(dst) : "memory");
        uint64_t t2 = ic_shm_now_ns();
        if (got != (ssize_t)PROBE_BYTES)
            goto out; /* not permitted: the ranks' own probe decides the protocol */
        if (i >= PROBE_WARMUP)
            extra[i - PROBE_WARMUP] = t1 - t0 > t2 - t1 ? (t1 - t0) - (t2 - t1) : 0;
    }
    qsort(extra, PROBE_REPS, sizeof *extra, cmp_u64);
    *works = true;
    result = extra[PROBE_REPS / 2] > UINT32_MAX ? UINT32_MAX : (uint32_t)extra[PROBE_REPS / 2];
out:
    free(src);
    return result;
}
