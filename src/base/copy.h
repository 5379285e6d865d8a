/*
 * copy.h — the library's copy of message data.
 *
 * ic_copy moves n bytes from src to dst like memcpy (the regions must not
 * overlap), avoiding two slow cases of this machine's memcpy:
 *
 *  - Short distance.  From 2112 bytes up to about the L2 size glibc copies
 *    with rep movsb, which on these AMD cores is slow when the destination
 *    is a few bytes ahead of the source modulo a page: 8 bytes ahead, 4 KiB
 *    take 1.1 us instead of 42 ns and 64 KiB 19 us instead of 1.2 us; 16
 *    and 24 bytes ahead about twice the time (bench/copy_micro.c,
 *    docs/perf/copy.md).  Where dst and src fall is up to the caller's
 *    buffers and the queue cell a message gets.  ic_copy takes a loop of
 *    16-byte loads and stores when (dst - src) mod 4096 is between 1 and
 *    31; from 32 on memcpy is as fast or faster.
 *  - Large copies.  From IC_COPY_STREAM_MIN bytes (default max(16 MiB,
 *    LLC/2), base/llc.h; 0 turns it off) it writes dst with
 *    non-temporal stores, which go to memory without first reading the
 *    destination's lines.  glibc streams only above a threshold it derives
 *    from the shared cache size the processor reports; on the AMD EPYC VM
 *    that is 240 MiB (ld.so
 *    --list-diagnostics: non_temporal_threshold 0xf000000).  One 64 MiB
 *    copy: 3.3 ms streamed, 5.4 ms with memcpy; two at once on the two
 *    cores: 5.4 ms against 8.0 ms.  Below the threshold memcpy is faster
 *    because a repeated copy stays in the cache.
 *
 * ic_copy_stream always streams (for copies into the shared segment that
 * another process reads next).
 */
#ifndef IC_BASE_COPY_H
#define IC_BASE_COPY_H

#include <stddef.h>
#include <string.h>

/* Below this many bytes memcpy never takes rep movsb (glibc's threshold
 * on these cores is 2112). */
#define IC_COPY_SMALL 2048u

void ic_copy_large(void *dst, const void *src, size_t n);
/* Copies n bytes with non-temporal stores (memcpy where there are none). */
void ic_copy_stream(void *dst, const void *src, size_t n);
/* The streaming threshold in bytes (SIZE_MAX when off). */
size_t ic_copy_stream_min(void);

/* Copies n bytes of message data (non-overlapping). */
static inline void ic_copy(void *dst, const void *src, size_t n)
{
    if (n < IC_COPY_SMALL)
        memcpy(dst, src, n);
    else
        ic_copy_large(dst, src, n);
}

#endif
