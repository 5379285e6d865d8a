/*
 * canonical.h — adversarial floating-point inputs and the serial
 * references of the canonical combining orders (docs/reproducibility.md),
 * shared by the in-process test (test_coll_reproducible.c) and the one on
 * real processes (tests/run/test_reproducible_real.c).
 *
 * Element i of rank r depends only on (seed, r, i, datatype), never on the
 * length of the call, so element i of a length-n result can be compared
 * with element i of a length-m one.  The references apply the library's
 * own kernels (ic_reduce_apply_exact: inout = in (op) inout, in the left
 * operand), serially, in the canonical order:
 *   reduce, allreduce, reduce-scatter: T(lo, hi) = T(lo, mid) (op)
 *     T(mid+1, hi), mid = lo + (hi - lo) / 2 (the MST reduce's tree);
 *   scan, exscan: the dissemination order (round d = 1, 2, 4, ...: rank j
 *     keeps x_j = x_{j-d} (op) x_j; the exclusive result of rank j starts
 *     as the first x_{j-d} it receives and takes later ones on the left).
 */
#ifndef IC_TEST_CANONICAL_H
#define IC_TEST_CANONICAL_H

#include "base/dtype.h"
#include "base/half_inline.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint32_t canon_mix(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu ^ (c + 0x165667b1u) * 0xc2b2ae35u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    h ^= h >> 15;
    return h;
}

/* A double for element (r, i): mostly finite values spanning the type's
 * range with cancellations (rank pairs of opposite sign), and rare
 * -0.0, +0.0, subnormals, infinities and NaNs with payloads.  Classes are
 * chosen per element so that most elements stay finite and order-sensitive. */
static inline double canon_value(unsigned seed, int r, size_t i, ic_datatype_t dt)
{
    uint32_t h = canon_mix(seed, (uint32_t)r, (uint32_t)i);
    uint32_t g = canon_mix(seed ^ 0xa5a5u, (uint32_t)i, 7); /* per element, all ranks */
    int emax = dt == IC_DOUBLE ? 1000 : dt == IC_FLOAT || dt == IC_BFLOAT16 ? 125 : 14;
    int emin = dt == IC_DOUBLE ? -1000 : dt == IC_FLOAT || dt == IC_BFLOAT16 ? -125 : -14;
    double mant = 1.0 + (double)(h % 1000003u) / 1000003.0;
    switch (h >> 28) {
    case 0: /* a special value */
        switch ((h >> 24) & 7) {
        case 0: return -0.0;
        case 1: return 0.0;
        case 2: /* subnormal */
            return dt == IC_DOUBLE ? ldexp(mant, -1060)
                 : dt == IC_FLOAT || dt == IC_BFLOAT16 ? ldexp(mant, -140) : ldexp(mant, -20);
        case 3: return (h & 1) ? INFINITY : -INFINITY;
        case 4: return NAN; /* the payload is set by canon_store */
        default: break;
        }
        /* fall through */
    case 1: case 2: /* cancellation: ranks 2k and 2k+1 hold x and -x */
        {
            uint32_t hp = canon_mix(seed, (uint32_t)(r & ~1), (uint32_t)i);
            double x = (1.0 + (double)(hp % 1000003u) / 1000003.0) *
                       ldexp(1.0, emin / 2 + (int)(hp >> 8) % (emax - emin / 2));
            return (r & 1) ? -x : x;
        }
    default: { /* a magnitude from the whole range around this element's scale */
        int span = emax - emin;
        int e = emin + (int)(g % (uint32_t)span) + (int)(h >> 8) % 61 - 30;
        e = e > emax ? emax : e < emin ? emin : e;
        return ((h >> 7) & 1 ? -mant : mant) * ldexp(1.0, e);
    }
    }
}

/* Stores element (r, i) of dt at p; NaNs get a payload from (r, i). */
static inline void canon_store(unsigned seed, int r, size_t i, ic_datatype_t dt, void *p)
{
    double v = canon_value(seed, r, i, dt);
    uint32_t pay = canon_mix(seed, (uint32_t)r, (uint32_t)i ^ 0x55aa55aau);
    if (dt == IC_DOUBLE) {
        uint64_t b;
        memcpy(&b, &v, 8);
        if (v != v)
            b = 0x7ff8000000000000ull | (uint64_t)pay << 12 | (pay & 0xfffu) | (uint64_t)(pay >> 31) << 63;
        memcpy(p, &b, 8);
    } else if (dt == IC_FLOAT) {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        if (v != v)
            b = 0x7fc00000u | (pay & 0x3fffffu) | (pay >> 31) << 31;
        memcpy(p, &b, 4);
    } else {
        uint16_t b = dt == IC_FLOAT16 ? ic_f2h_((float)v) : ic_f2bf_((float)v);
        if (v != v)
            b = dt == IC_FLOAT16 ? (uint16_t)(0x7e00u | (pay & 0x1ffu) | (pay >> 31) << 15)
                                 : (uint16_t)(0x7fc0u | (pay & 0x3fu) | (pay >> 31) << 15);
        memcpy(p, &b, 2);
    }
}

/* Rank r's n elements from element first. */
static inline void canon_fill(unsigned seed, int r, size_t first, size_t n, ic_datatype_t dt,
                              void *out)
{
    size_t es = ic_datatype_size(dt);
    for (size_t i = 0; i < n; i++)
        canon_store(seed, r, first + i, dt, (char *)out + i * es);
}

/* acc = T(lo, hi) of the ranks' n-element vectors in[lo..hi]; acc holds
 * n elements; tmp is scratch of n elements. */
static inline void canon_tree(const ic_op_t *op, ic_datatype_t dt, void *const *in, int lo,
                              int hi, size_t n, void *acc, void *tmp)
{
    size_t bytes = n * ic_datatype_size(dt);
    if (lo == hi) {
        memcpy(acc, in[lo], bytes);
        return;
    }
    int mid = lo + (hi - lo) / 2;
    void *left = malloc(bytes ? bytes : 1);
    canon_tree(op, dt, in, lo, mid, n, left, tmp);
    canon_tree(op, dt, in, mid + 1, hi, n, acc, tmp);
    ic_reduce_apply_exact(op, dt, left, acc, n); /* acc = left (op) acc */
    free(left);
}

/* The dissemination scan of the p vectors in[] into out[] (inclusive;
 * exclusive: out[0] untouched).  x is scratch of p vectors. */
static inline void canon_scan(const ic_op_t *op, ic_datatype_t dt, void *const *in, int p,
                              size_t n, bool exclusive, void *const *out)
{
    size_t bytes = n * ic_datatype_size(dt);
    char *x = malloc((size_t)p * bytes + 1), *y = malloc((size_t)p * bytes + 1);
    bool *have = calloc((size_t)p, sizeof(bool));
    for (int j = 0; j < p; j++)
        memcpy(x + (size_t)j * bytes, in[j], bytes);
    for (int d = 1; d < p; d *= 2) {
        memcpy(y, x, (size_t)p * bytes); /* the values sent this round */
        for (int j = d; j < p; j++) {
            char *yj = y + (size_t)(j - d) * bytes;
            if (exclusive) {
                if (!have[j])
                    memcpy(out[j], yj, bytes);
                else
                    ic_reduce_apply_exact(op, dt, yj, out[j], n);
                have[j] = true;
            }
            ic_reduce_apply_exact(op, dt, yj, x + (size_t)j * bytes, n);
        }
    }
    for (int j = 0; !exclusive && j < p; j++)
        memcpy(out[j], x + (size_t)j * bytes, bytes);
    free(x);
    free(y);
    free(have);
}

#endif
