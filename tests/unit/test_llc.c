/*
 * test_llc.c — the last-level cache size behind the streaming thresholds
 * (base/llc.h): sysfs size strings parse to bytes and anything else to 0;
 * the machine's size is 0 (unknown) or at least 64 KiB; the thresholds
 * are max(floor, LLC / share), so never below the floors that were
 * measured on a 32 MiB L3 (16 MiB one-way, 8 MiB exchanged), and the copy
 * threshold without IC_COPY_STREAM_MIN is the one-way one.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/copy.h"
#include "base/llc.h"

#include <stdio.h>
#include <stdlib.h>

static int failed;

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL line %d: ", __LINE__);                                                    \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failed++;                                                                              \
        }                                                                                          \
    } while (0)

int main(void)
{
    static const struct {
        const char *s;
        size_t want;
    } cases[] = {
        {"491520K\n", 491520u * 1024}, {"32768K", 32u << 20}, {"32M", 32u << 20},
        {"1G\n", (size_t)1 << 30},     {"512", 512},          {"", 0},
        {"K", 0},                      {"12KB", 0},           {"-4K", 0},
        {"4 K", 0},                    {NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t got = ic_llc_parse(cases[i].s);
        CHECK(got == cases[i].want, "ic_llc_parse(\"%s\") = %zu, want %zu",
              cases[i].s ? cases[i].s : "(null)", got, cases[i].want);
    }
    size_t llc = ic_llc_bytes();
    CHECK(llc == 0 || llc >= 64 * 1024, "last-level cache %zu bytes", llc);
    CHECK(ic_llc_bytes() == llc, "a second read differs");
    size_t one = ic_stream_threshold(16u << 20, 2), xchg = ic_stream_threshold(8u << 20, 4);
    CHECK(one >= 16u << 20 && one >= llc / 2 && (one == 16u << 20 || one == llc / 2),
          "one-way threshold %zu for a cache of %zu", one, llc);
    CHECK(xchg >= 8u << 20 && xchg >= llc / 4 && (xchg == 8u << 20 || xchg == llc / 4),
          "exchange threshold %zu for a cache of %zu", xchg, llc);
    unsetenv("IC_COPY_STREAM_MIN");
    CHECK(ic_copy_stream_min() == one, "copy threshold %zu, want %zu", ic_copy_stream_min(), one);
    printf("test_llc: last-level cache %zu bytes, stream from %zu (one-way), %zu (exchange); %s\n",
           llc, one, xchg, failed ? "FAILED" : "passed");
    return failed != 0;
}
