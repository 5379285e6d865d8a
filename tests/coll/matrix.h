/*
 * matrix.h — the dimensions of the correctness matrix shared by the
 * collective test mains: process counts, roots, counts.
 */
#ifndef IC_TEST_MATRIX_H
#define IC_TEST_MATRIX_H

#include "harness.h"
#include "select/catalog.h"
#include "unit/sampled.h"

#include <stdlib.h>
#include <string.h>

static const int matrix_ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                31, 32, 33, 64, 100};
#define MATRIX_NP ((int)(sizeof matrix_ps / sizeof matrix_ps[0]))

/* IC_TEST_SAMPLED=1 (test_sampled, unit/sampled.h): the sanitizer stage
 * samples roots above p = 4.  The Release stage has already run every
 * root; the sample (0, 1, p/2, p-1) still takes each block through its
 * rotated and unrotated index arithmetic under the sanitizers. */

/* Every root for p <= 17 (p <= 4 when sampled), a sample above.
 * Returns how many. */
static inline int matrix_roots(int p, int *roots)
{
    if (p <= (test_sampled() ? 4 : 17)) {
        for (int r = 0; r < p; r++)
            roots[r] = r;
        return p;
    }
    roots[0] = 0;
    roots[1] = 1;
    roots[2] = p / 2;
    roots[3] = p - 1;
    return 4;
}

/* Whether root is one of the sample 0, 1, p/2, p-1. */
static inline bool matrix_root_sampled(int p, int root)
{
    return root <= 1 || root == p / 2 || root == p - 1;
}

/* Counts {0, 1, p-1, p, p+1, 1000, 65539} without repeats. */
static inline int matrix_counts(int p, size_t *counts)
{
    size_t all[] = {0, 1, (size_t)p - 1, (size_t)p, (size_t)p + 1, 1000, 65539};
    int n = 0;
    for (int i = 0; i < 7; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= counts[j] == all[i];
        if (!dup)
            counts[n++] = all[i];
    }
    return n;
}

/* Bytes all ranks' buffers of a case need, roughly, to keep the suite's
 * memory bounded on a 2-core CI machine. */
static inline double matrix_bytes(ic_coll_t c, int p, size_t count, size_t es)
{
    double per = (double)count * (double)es;
    switch (c) {
    case IC_COLL_ALLGATHER:
    case IC_COLL_ALLGATHERV:
    case IC_COLL_ALLTOALL:
    case IC_COLL_ALLTOALLV:
    case IC_COLL_REDUCE_SCATTER_BLOCK:
    case IC_COLL_REDUCE_SCATTER:
        return per * p * p * 2;
    default:
        return per * p * 4;
    }
}

/* Runs every catalog entry of coll through the matrix: every p, every
 * root (sampled above 17; above 9 the counts 1000 and 65539 take the
 * sample), every count, the two given types; v-forms
 * cycle through the v-count shapes and displacement layouts.  With
 * IC_TEST_EXHAUSTIVE=1 in the environment every datatype is run. */
static inline void matrix_run(tally_t *t, ic_coll_t coll, ic_datatype_t t1, ic_datatype_t t2,
                              const ic_op_t *op, double max_bytes)
{
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    unsigned seed = 1;
    /* IC_TEST_EXHAUSTIVE=1: every datatype instead of two (slow). */
    const char *ex = getenv("IC_TEST_EXHAUSTIVE");
    bool exhaustive = ex && ex[0] == '1';
    for (size_t a = 0; a < ncat; a++) {
        /* Mesh-aware and other families have their own matrices; the
         * placement entries (U-*, EDN: the harness invents a placement of
         * their kind) run here too, with one datatype, every root up to
         * p = 8 and four above, and short counts only above p = 17. */
        bool phys = cat[a].flags & (IC_ALGO_PHYS | IC_ALGO_WHOLE_MESH);
        if (cat[a].coll != coll || (cat[a].flags & IC_ALGO_MESH) ||
            ((cat[a].flags & IC_ALGO_OWN_TESTS) && !phys))
            continue;
        for (int pi = 0; pi < MATRIX_NP; pi++) {
            int p = matrix_ps[pi], roots[17];
            size_t counts[7];
            int nr = coll_rooted(coll) ? matrix_roots(p, roots) : (roots[0] = 0, 1);
            if (phys && nr > 8) { /* every root up to p = 8, then 0, 1, p/2, p-1 */
                int s[4] = {0, 1, p / 2, p - 1};
                memcpy(roots, s, sizeof s);
                nr = 4;
            }
            int nc = matrix_counts(p, counts);
            for (int ri = 0; ri < nr; ri++)
                for (int ci = 0; ci < nc; ci++)
                    for (int ti = 0; ti < (exhaustive ? IC_DATATYPE_COUNT : phys ? 1 : 2); ti++) {
                        tcase_t c = {0};
                        c.coll = coll;
                        c.algo = cat[a].name;
                        c.p = p;
                        c.root = roots[ri];
                        c.count = counts[ci];
                        c.dtype = exhaustive ? (ic_datatype_t)ti : ti ? t2 : t1;
                        c.op = op;
                        if (!ic_op_applies(op, c.dtype))
                            c.op = IC_BOR; /* IC_BYTE */
                        c.seed = seed++;
                        c.vcounts = (vcounts_t)(c.seed % 4);
                        c.vlayout = (vlayout_t)((c.seed / 4) % 3);
                        if (matrix_bytes(coll, p, c.count, ic_datatype_size(c.dtype)) > max_bytes)
                            continue;
                        /* Large counts at large p: one type is enough; the
                         * placement entries' trees are the MST blocks on
                         * another order, so above p = 17 they take the
                         * short counts only. */
                        if ((ti >= 1 || phys) && p >= 31 && c.count > 1000)
                            continue;
                        /* Above p = 9 the longest count takes one type
                         * (both with IC_TEST_EXHAUSTIVE=1), and none under
                         * the sanitizers (IC_TEST_SAMPLED=1: 1000 is long
                         * enough for the index arithmetic; p <= 9 keeps the
                         * segmented paths of 65539). */
                        if (!exhaustive && p > 9 && c.count > 1000 &&
                            (ti >= 1 || test_sampled()))
                            continue;
                        /* Every root above p = 9 takes the short counts;
                         * the long ones (1000, 65539: most of the time)
                         * take the roots 0, 1, p/2, p-1 there, unless
                         * IC_TEST_EXHAUSTIVE=1. */
                        if (!exhaustive && p > 9 && c.count > (size_t)p + 1 &&
                            !matrix_root_sampled(p, c.root))
                            continue;
                        check_case(t, &c);
                    }
        }
    }
}

#endif
