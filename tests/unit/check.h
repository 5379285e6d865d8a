/*
 * check.h — the small checking kit of the unit tests: CHECK counts a pass
 * or prints where and why it failed; rnd() is a deterministic xorshift64*.
 * Each test main prints "NAME: N passed, M failed" at the end.
 */
#ifndef IC_TEST_CHECK_H
#define IC_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>

static int passed, failed;

#define CHECK_AT(line, cond, ...)                                              \
    do {                                                                       \
        if (cond) {                                                            \
            passed++;                                                          \
            break;                                                             \
        }                                                                      \
        failed++;                                                              \
        printf("FAIL %s:%d: ", __FILE__, line);                                \
        printf(__VA_ARGS__);                                                   \
        printf("\n");                                                          \
    } while (0)
#define CHECK(cond, ...) CHECK_AT(__LINE__, cond, __VA_ARGS__)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

#endif
