/*
 * allreduce_vector.c — global reductions over a distributed vector.
 *
 *   intercom-run -n P allreduce_vector [N]        (default N = 1000003)
 *
 * Two vectors of length N, x[i] = i and y[i] = N-1-i, are block-distributed:
 * rank r owns the contiguous slice [lo_r, hi_r), and since N need not be a
 * multiple of P the first N mod P ranks own one element more.  Each rank
 * works on its slice only; ic_allreduce combines the partial results so
 * that every rank ends up with the global values:
 *
 *   1. ic_allreduce(send, recv, 3, IC_DOUBLE, IC_SUM): the three dot
 *      products x.y, x.x and y.y in one call (one vector of 3 doubles).
 *   2. ic_allreduce(IC_IN_PLACE, buf, 2, IC_DOUBLE, IC_MAX): the largest
 *      and (negated) smallest term x[i]*y[i], computed in place — the
 *      local values in buf are replaced by the global ones.
 *
 * Every rank checks the results against closed forms (with M = N-1):
 *   x.y = M(M+1)(M-1)/6,  x.x = y.y = M(M+1)(2M+1)/6,
 *   max x[i]y[i] = floor(M/2) ceil(M/2),  min x[i]y[i] = 0.
 * The sums are compared with a relative tolerance of 2 N eps (the order in
 * which the partial sums are added depends on P and on the algorithm); the
 * max and min are exact (N <= 1e8 keeps every term below 2^53).  Rank 0
 * prints what was computed; any rank prints its failures.  The exit status
 * is non-zero on any error.
 */
#include <intercom.h>

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int me = 0;

/* An intercom call that fails ends this rank (the launcher then stops the
 * others, which would otherwise wait for it). */
#define IC_CALL(call)                                                                              \
    do {                                                                                           \
        ic_status_t st_ = (call);                                                                  \
        if (st_ != IC_OK) {                                                                        \
            fprintf(stderr, "rank %d: %s failed: %s (%s)\n", me, #call, ic_status_string(st_),     \
                    ic_last_error());                                                              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    uint64_t n = 1000003;
    if (argc > 1) {
        char *end;
        n = strtoull(argv[1], &end, 10);
        if (*end || n < 1 || n > 100000000) {
            fprintf(stderr, "usage: %s [N]   (1 <= N <= 1e8)\n", argv[0]);
            return 2;
        }
    }

    ic_comm_t *world;
    int p;
    IC_CALL(ic_init(&world));
    IC_CALL(ic_comm_rank(world, &me));
    IC_CALL(ic_comm_size(world, &p));

    /* Block distribution: the first n % p ranks own one extra element. */
    uint64_t base = n / (uint64_t)p, extra = n % (uint64_t)p, r = (uint64_t)me;
    uint64_t lo = r * base + (r < extra ? r : extra);
    uint64_t hi = lo + base + (r < extra ? 1 : 0);

    /* Each rank only ever holds its own slice of x and y. */
    size_t len = (size_t)(hi - lo);
    double *x = malloc((len ? len : 1) * sizeof(double));
    double *y = malloc((len ? len : 1) * sizeof(double));
    if (!x || !y) {
        fprintf(stderr, "rank %d: out of memory\n", me);
        return 1;
    }
    for (size_t k = 0; k < len; k++) {
        x[k] = (double)(lo + k);
        y[k] = (double)(n - 1 - (lo + k));
    }

    /* Local partial results over this rank's slice. */
    double dots[3] = {0, 0, 0};             /* x.y, x.x, y.y */
    double ext[2] = {-INFINITY, -INFINITY}; /* max term, -(min term) */
    for (size_t k = 0; k < len; k++) {
        double t = x[k] * y[k];
        dots[0] += t;
        dots[1] += x[k] * x[k];
        dots[2] += y[k] * y[k];
        if (t > ext[0])
            ext[0] = t;
        if (-t > ext[1])
            ext[1] = -t;
    }
    double mine[3] = {dots[0], dots[1], dots[2]};

    /* 1. Three sums in one call: separate send and receive buffers. */
    double global[3];
    IC_CALL(ic_allreduce(dots, global, 3, IC_DOUBLE, IC_SUM, world));

    /* 2. Max and min in one in-place call: MAX of (t, -t) gives the
     *    largest t and minus the smallest t. */
    IC_CALL(ic_allreduce(IC_IN_PLACE, ext, 2, IC_DOUBLE, IC_MAX, world));
    double gmax = ext[0], gmin = -ext[1];

    /* Closed forms (M(M+1)(2M+1) overflows 64 bits, so long double). */
    uint64_t m = n - 1;
    long double lm = (long double)m;
    double want_xy = m ? (double)(lm * (lm + 1) * (lm - 1) / 6) : 0.0;
    double want_xx = (double)(lm * (lm + 1) * (2 * lm + 1) / 6);
    double want_max = (double)((m / 2) * (m - m / 2));
    double want_min = 0.0;

    /* Every term is >= 0, so naive summation in any order is within
     * (N-1) eps of the exact sum (relative); allow twice that. */
    const double tol = 2.0 * (double)n * DBL_EPSILON;
    int errors = 0;
    const char *what[3] = {"x.y", "x.x", "y.y"};
    const double want[3] = {want_xy, want_xx, want_xx};
    double relerr[3];
    for (int i = 0; i < 3; i++) {
        relerr[i] = want[i] != 0 ? fabs(global[i] - want[i]) / fabs(want[i]) : fabs(global[i]);
        if (!(relerr[i] <= tol)) {
            fprintf(stderr, "rank %d: FAIL %s = %.17g, expected %.17g (relative error %.3g)\n", me,
                    what[i], global[i], want[i], relerr[i]);
            errors++;
        }
    }
    if (gmax != want_max || gmin != want_min) {
        fprintf(stderr, "rank %d: FAIL max/min term = %.17g / %.17g, expected %.17g / %.17g\n", me,
                gmax, gmin, want_max, want_min);
        errors++;
    }

    /* Agree on the outcome, so that every rank exits with the same status
     * and rank 0 can report on all of them. */
    int32_t bad = errors ? 1 : 0, nbad = 0;
    IC_CALL(ic_allreduce(&bad, &nbad, 1, IC_INT32, IC_SUM, world));

    if (me == 0) {
        printf("allreduce_vector: x[i] = i and y[i] = N-1-i, N = %" PRIu64 ", on %d rank%s\n", n, p,
               p == 1 ? "" : "s");
        if (extra)
            printf("  slices: %" PRIu64 " rank(s) own %" PRIu64 " elements, %" PRIu64
                   " own %" PRIu64 " (N is not a multiple of P)\n",
                   extra, base + 1, (uint64_t)p - extra, base);
        else
            printf("  slices: every rank owns %" PRIu64 " elements\n", base);
        printf("  ic_allreduce(SUM) of every rank's partial (x.y, x.x, y.y), 3 doubles\n");
        printf("  (rank 0's own part of x.y was %.6e):\n", mine[0]);
        printf("    %-5s %-24s %-24s %-16s %s\n", "", "computed", "closed form", "", "rel. error");
        printf("    x.y   %-24.17g %-24.17g %-16s %.1e\n", global[0], want_xy, "(N-1)N(N-2)/6",
               relerr[0]);
        printf("    x.x   %-24.17g %-24.17g %-16s %.1e\n", global[1], want_xx, "(N-1)N(2N-1)/6",
               relerr[1]);
        printf("    y.y   %-24.17g %-24.17g %-16s %.1e\n", global[2], want_xx, "same as x.x",
               relerr[2]);
        printf(
            "  ic_allreduce(IC_IN_PLACE, MAX) of every rank's (largest term, -smallest term):\n");
        printf("    max x[i]y[i] = %-14.17g closed form floor((N-1)/2) ceil((N-1)/2) = %.17g\n",
               gmax, want_max);
        printf("    min x[i]y[i] = %-14.17g closed form 0\n", gmin);
        if (global[1] > 0 && global[2] > 0)
            printf("  so cos(x, y) = x.y / sqrt(x.x y.y) = %.6f\n",
                   global[0] / sqrt(global[1] * global[2]));
        if (nbad == 0)
            printf("  checked on all %d rank%s (sums to within 2 N eps = %.1e): ok\n", p,
                   p == 1 ? "" : "s", tol);
        else
            printf("  FAILED on %d of %d ranks\n", nbad, p);
    }

    free(x);
    free(y);
    IC_CALL(ic_finalize(&world));
    return nbad ? 1 : 0;
}
