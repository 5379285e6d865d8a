/*
 * run_expect.h — what the failure tests on real processes share: EXPECT
 * (counts a failed check in `failures` and prints it with the caller's
 * `rank` and the line) and a monotonic clock in seconds.
 */
#ifndef IC_TEST_RUN_EXPECT_H
#define IC_TEST_RUN_EXPECT_H

#include <stdio.h>
#include <time.h>

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__);                       \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
        }                                                                                      \
    } while (0)

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
