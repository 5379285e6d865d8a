/*
 * test_copy.c — ic_copy and ic_copy_stream (base/copy.h) copy exactly n
 * bytes and write nothing else, on every path:
 *  - memcpy (below IC_COPY_SMALL, and far-apart regions);
 *  - the short-distance loop: (dst - src) mod 4096 from 1 to 127, with
 *    every source alignment mod 16 and sizes around the 64-byte steps;
 *  - the streamed path: IC_COPY_STREAM_MIN is set to 3000 before the first
 *    call, so copies from 3000 bytes stream, with every destination
 *    alignment mod 64 (the head copied before the first aligned line) and
 *    tails of 0 to 63 bytes;
 *  - ic_copy_stream on copies shorter than one line plus the head.
 * Each copy goes into a buffer filled with a guard byte; the bytes before
 * and after the destination must keep it, and the copied bytes must equal
 * the source's.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "base/copy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define AREA (64u << 10)
#define GUARD 0xA5

static unsigned char *src_area, *dst_area;

/* Copies n bytes from src_area + so to dst_area + doff with fn; returns
 * whether the destination holds them and nothing else changed. */
static int copy_ok(void (*fn)(void *, const void *, size_t), size_t so, size_t doff, size_t n)
{
    memset(dst_area, GUARD, AREA);
    fn(dst_area + doff, src_area + so, n);
    for (size_t i = 0; i < doff; i++)
        if (dst_area[i] != GUARD)
            return 0;
    if (memcmp(dst_area + doff, src_area + so, n) != 0)
        return 0;
    for (size_t i = doff + n; i < AREA; i++)
        if (dst_area[i] != GUARD)
            return 0;
    return 1;
}

int main(void)
{
    /* Before any copy: from 3000 bytes up ic_copy streams. */
    setenv("IC_COPY_STREAM_MIN", "3000", 1);
    src_area = aligned_alloc(4096, AREA);
    dst_area = aligned_alloc(4096, AREA);
    if (!src_area || !dst_area)
        return 1;
    for (size_t i = 0; i < AREA; i++)
        src_area[i] = (unsigned char)(rnd() >> 56);
    CHECK(ic_copy_stream_min() == 3000, "threshold %zu, want 3000", ic_copy_stream_min());

    /* Below IC_COPY_SMALL: memcpy, any place. */
    int bad = 0;
    for (size_t n = 0; n < IC_COPY_SMALL; n += 97)
        bad += !copy_ok(ic_copy, n % 16, (n * 7) % 4096, n);
    CHECK(bad == 0, "%d small copies wrong", bad);

    /* The short-distance loop: dst 1..127 bytes ahead of src mod 4096,
     * sizes below the streaming threshold and around whole lines. */
    static const size_t sizes[] = {2048, 2049, 2111, 2112, 2113, 2175, 2176, 2999};
    bad = 0;
    int cases = 0;
    for (size_t so = 0; so < 16; so += 3)
        for (size_t ahead = 1; ahead < 128; ahead++)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                size_t doff = 4096 + so + ahead; /* (dst - src) mod 4096 == ahead */
                bad += !copy_ok(ic_copy, so, doff, sizes[k]);
                cases++;
            }
    CHECK(bad == 0, "%d of %d short-distance copies wrong", bad, cases);

    /* Far apart, below the threshold: memcpy. */
    bad = 0;
    for (size_t so = 0; so < 64; so += 5)
        bad += !copy_ok(ic_copy, so, 2048 + so, 2500);
    CHECK(bad == 0, "%d far copies wrong", bad);

    /* Streamed: every destination alignment mod 64, tails 0..63. */
    bad = 0;
    cases = 0;
    for (size_t doff = 0; doff < 64; doff++)
        for (size_t tail = 0; tail < 64; tail += 7) {
            size_t n = 3000 + 64 * 13 + tail;
            bad += !copy_ok(ic_copy, (doff * 3) % 16, 8192 + doff, n);
            cases++;
        }
    bad += !copy_ok(ic_copy, 1, 3, 40000);
    CHECK(bad == 0, "%d of %d streamed copies wrong", bad, cases + 1);

    /* ic_copy_stream on short copies (all head, or head and one line). */
    bad = 0;
    for (size_t n = 0; n < 200; n++)
        bad += !copy_ok(ic_copy_stream, n % 16, 100 + n % 64, n);
    CHECK(bad == 0, "%d short streamed copies wrong", bad);

    free(src_area);
    free(dst_area);
    printf("test_copy: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
