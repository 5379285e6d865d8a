/*
 * copy.h — the library's copy of large buffers.
 *
 * ic_copy moves n bytes from src to dst like memcpy.  From a threshold up
 * (IC_COPY_STREAM_MIN bytes, default 16 MiB; 0 turns the path off) it
 * writes dst with non-temporal stores, which go to memory without first
 * reading the destination's cache lines and without evicting the cache:
 * a copy that does not fit the cache moves a third less memory traffic.
 * glibc does the same only above its non-temporal threshold, which it
 * derives from the shared cache size the processor reports; on the
 * virtual machines this library is measured on that size is reported as
 * 320 MiB, so glibc never streams a copy that fits in memory at all.
 * Measured here (docs/perf/stream-copy.md): one 64 MiB copy 3.4 ms
 * streamed against 4.9 ms with memcpy; two at once on the two cores 3.8 ms
 * against 9.5 ms.  Below the threshold memcpy is faster, because the data
 * of a repeated copy stay in the cache.
 *
 * The regions must not overlap.  ic_copy_stream always streams (for copies
 * into the shared segment that another process reads next).
 */
#ifndef IC_BASE_COPY_H
#define IC_BASE_COPY_H

#include <stddef.h>

/* Copies n bytes, streaming from the threshold up. */
void ic_copy(void *dst, const void *src, size_t n);
/* Copies n bytes with non-temporal stores (memcpy where there are none). */
void ic_copy_stream(void *dst, const void *src, size_t n);
/* The threshold in bytes (SIZE_MAX when off). */
size_t ic_copy_stream_min(void);

#endif
