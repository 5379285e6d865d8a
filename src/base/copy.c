/*
 * copy.c — copies of message data (see copy.h).
 *
 * The short-distance path copies 64 bytes per iteration with unaligned
 * SSE2 loads and stores, which do not have rep movsb's stall.  The
 * streamed path copies the head up to the destination's next 64-byte
 * boundary with memcpy, then whole 64-byte lines with SSE2 loads (any
 * alignment) and _mm_stream_si128 stores (aligned), then the tail with
 * memcpy, and ends with an sfence so that the stores are visible to
 * another process before any release store that follows.  SSE2 is part
 * of x86-64; elsewhere ic_copy_stream is memcpy.
 */
#include "base/copy.h"
#include "base/llc.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define IC_HAVE_STREAM 1
#endif

#define STREAM_MIN_DEFAULT ((size_t)16 << 20)

size_t ic_copy_stream_min(void)
{
    /* Read once; a racing first call computes the same value. */
    static atomic_size_t cached = 0; /* 0: not read yet */
    size_t v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v != 0)
        return v;
    v = ic_stream_threshold(STREAM_MIN_DEFAULT, 2); /* the working set 2N past the LLC (llc.h) */
    const char *e = getenv("IC_COPY_STREAM_MIN");
    if (e && *e && e[0] != '-') {
        char *end;
        unsigned long long n = strtoull(e, &end, 10);
        if (*end == '\0')
            v = n == 0 ? SIZE_MAX : (size_t)n;
    }
    atomic_store_explicit(&cached, v, memory_order_relaxed);
    return v;
}

#ifdef IC_HAVE_STREAM
/* Copies whole 64-byte lines with unaligned 16-byte loads and either
 * non-temporal stores (d 16-byte aligned) or plain unaligned stores, then
 * the tail with memcpy; inlined with stream constant. */
static inline void copy_lines(unsigned char *d, const unsigned char *s, size_t n, bool stream)
{
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i v[4];
        for (int k = 0; k < 4; k++)
            v[k] = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * k));
        for (int k = 0; k < 4; k++) {
            if (stream)
                _mm_stream_si128((__m128i *)(void *)(d + 16 * k), v[k]);
            else
                _mm_storeu_si128((__m128i *)(void *)(d + 16 * k), v[k]);
        }
    }
    memcpy(d, s, n);
}
#endif

void ic_copy_stream(void *dst, const void *src, size_t n)
{
#ifdef IC_HAVE_STREAM
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 63u);
    if (n < head + 64) {
        memcpy(d, s, n);
        return;
    }
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    copy_lines(d, s, n, true);
    _mm_sfence();
#else
    memcpy(dst, src, n);
#endif
}

void ic_copy_large(void *dst, const void *src, size_t n)
{
    if (n >= ic_copy_stream_min()) {
        ic_copy_stream(dst, src, n);
        return;
    }
#ifdef IC_HAVE_STREAM
    size_t ahead = (size_t)(((uintptr_t)dst - (uintptr_t)src) & 4095u);
    if (ahead != 0 && ahead < 32) {
        copy_lines(dst, src, n, false); /* no rep movsb */
        return;
    }
#endif
    memcpy(dst, src, n);
}
