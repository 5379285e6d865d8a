/*
 * sampled.h — IC_TEST_SAMPLED=1 (set by scripts/sanitize.sh for the
 * sanitizer stage): test_sampled() says whether it is set (the correctness
 * matrices sample their roots and long counts by it, coll/matrix.h), and
 * test_sampled_p() which process counts the simulator's cost tests take.
 *
 * The Release stage runs every p of 1..64.  Under the sanitizers a cost
 * test's time grows about as p^2 (the engine simulates every message), so
 * the p above 17 take most of it; the sample keeps 1..17 and the p above
 * that around the powers of two and the far end (24, 31, 32, 33, 48, 63,
 * 64), about a fifth of the work, so that every block still meets its
 * power-of-two, just-above and just-below index arithmetic under ASan and
 * UBSan.
 */
#ifndef IC_TEST_SAMPLED_H
#define IC_TEST_SAMPLED_H

#include <stdbool.h>
#include <stdlib.h>

static inline bool test_sampled(void)
{
    const char *s = getenv("IC_TEST_SAMPLED");
    return s && s[0] == '1';
}

/* Whether a cost test runs p (every p when not sampled). */
static inline bool test_sampled_p(int p)
{
    if (p <= 17 || !test_sampled())
        return true;
    return p == 24 || p == 31 || p == 32 || p == 33 || p == 48 || p == 63 || p == 64;
}

#endif
