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
 *
 * ic_shm_cma_large_x100 measures the same for LARGE_BYTES (4 MiB) as a
 * ratio, times 100: the fastest of LARGE_REPS process_vm_readv over the
 * fastest of as many ic_copy calls, after one untimed pair (about 2 ms).
 * It decides how a one-way message above the streaming threshold (16 MiB
 * with a 32 MiB last-level cache) goes: streamed through the bulk buffer
 * (both sides copy every byte, the sender with non-temporal stores) or
 * shared (the two sides each take pieces of one single copy, shm_share.c;
 * a side busy with a local step leaves them to the other).  By a simple
 * model sharing costs half the ratio's memcpys per byte on each core and
 * streaming one memcpy on each, and a rooted call's root copies its own
 * block besides: sharing pays for the rooted calls up to a ratio of about
 * 3, for a broadcast up to 2.  On the AMD EPYC VM on 2026-12-07 the ratio
 * read 2.2-3.0, and shared 2-rank scatter(v), gather(v), scan and exscan
 * of 16-64 MiB blocks took 0.61-0.92 of their streamed time, bcast
 * 0.89-0.93, reduce 1.01-1.19 (docs/perf/copy.md, section 6).  From
 * SHM_CMA_STREAM_X100 (4.0), above both marks so that a machine like this
 * one does not flip between jobs, such messages stream as before.
 * IC_SHM_CMA_LARGE_X100=N sets the figure.  The creator takes it only
 * where that variable is set (shm_segment.c): measured side by side under
 * the MPI drop-in (bench/dropin_bench.c, untouched inputs) sharing made
 * the 2-rank bcast of 16-64 MiB 1.8-2.3 times slower, exscan 1.3-2.0,
 * reduce 1.3-1.5, scatter 1.15-2.3 (gather 0.94-1.06, scan 0.88), so
 * streaming stays the default; the measurement (build/cma_micro prints it)
 * says what the setting would be.
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
#define LARGE_BYTES (4u << 20)
#define LARGE_REPS 5

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One process_vm_readv of this process's n bytes at src into dst, then
 * one ic_copy of the same: their times in *cma_ns and *copy_ns.  Returns
 * 0 where the read is not permitted. */
static int time_pair(unsigned char *dst, unsigned char *src, size_t n, uint64_t *cma_ns,
                     uint64_t *copy_ns)
{
    struct iovec l = {dst, n}, r = {src, n};
    uint64_t t0 = ic_shm_now_ns();
    ssize_t got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
    uint64_t t1 = ic_shm_now_ns();
    ic_copy(dst, src, n);
    __asm__ __volatile__("" : : "r"(dst) : "memory");
    uint64_t t2 = ic_shm_now_ns();
    *cma_ns = t1 - t0;
    *copy_ns = t2 - t1;
    return got == (ssize_t)n;
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
    uint64_t extra[PROBE_REPS];
    uint32_t result = 0;
    for (int i = 0; i < PROBE_WARMUP + PROBE_REPS; i++) {
        uint64_t cma, copy;
        if (!time_pair(dst, src, PROBE_BYTES, &cma, &copy))
            goto out; /* not permitted: the ranks' own probe decides the protocol */
        if (i >= PROBE_WARMUP)
            extra[i - PROBE_WARMUP] = cma > copy ? cma - copy : 0;
    }
    qsort(extra, PROBE_REPS, sizeof *extra, cmp_u64);
    *works = true;
    result = extra[PROBE_REPS / 2] > UINT32_MAX ? UINT32_MAX : (uint32_t)extra[PROBE_REPS / 2];
out:
    free(src);
    return result;
}

uint32_t ic_shm_cma_large_x100(void)
{
    const char *env = getenv("IC_SHM_CMA_LARGE_X100");
    if (env && *env)
        return (uint32_t)ic_shm_env_u64("IC_SHM_CMA_LARGE_X100", 0);
    unsigned char *src = malloc(2 * (size_t)LARGE_BYTES);
    if (!src)
        return 0;
    unsigned char *dst = src + LARGE_BYTES;
    memset(src, 0x5a, LARGE_BYTES);
    memset(dst, 0, LARGE_BYTES);
    uint64_t best_cma = UINT64_MAX, best_copy = UINT64_MAX;
    uint32_t result = 0;
    for (int i = 0; i <= LARGE_REPS; i++) {
        uint64_t cma, copy;
        if (!time_pair(dst, src, LARGE_BYTES, &cma, &copy))
            goto out;
        if (i == 0)
            continue; /* the first pair faults the pages in */
        best_cma = cma < best_cma ? cma : best_cma;
        best_copy = copy < best_copy ? copy : best_copy;
    }
    if (best_copy > 0) {
        uint64_t x = best_cma * 100 / best_copy;
        result = x == 0 ? 1 : x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
    }
out:
    free(src);
    return result;
}
