/*
 * half_inline.h — inline conversions between float and the two 16-bit
 * floating-point storage formats (IEEE binary16 "half" and bfloat16).
 *
 * These are the single implementation of the conversions: half.c wraps them
 * as the out-of-line functions declared in dtype.h, and reduce_kernels.c
 * calls them directly so that they are inlined into the reduction loops.
 *
 * They are written to be branch-free: every candidate result (normal,
 * subnormal, infinity/NaN) is computed unconditionally with integer and
 * float arithmetic, and the right one is picked with bit masks.  GCC turns
 * those into vector compares and and/andnot/or, so a loop that converts,
 * combines and converts back vectorises.  Nothing here uses _Float16, libm
 * or a lookup table.
 *
 * Rounding is to nearest, ties to even.  NaNs stay NaNs and come out quiet,
 * keeping the sign and the leading payload bits.  Values too large for the
 * 16-bit format become infinities, and subnormals are converted exactly in
 * both directions.  ic_f2h_ relies on the floating-point rounding mode
 * being the default (round to nearest); flush-to-zero and
 * denormals-are-zero modes do not change any result.
 */
#ifndef IC_BASE_HALF_INLINE_H
#define IC_BASE_HALF_INLINE_H

#include <stdint.h>

/* Union used to reinterpret the bits of a float; C11 allows type punning
 * through a union, and GCC reduces it to a plain register move. */
typedef union ic_f32_bits_ {
    float f;
    uint32_t u;
} ic_f32_bits_;

static inline uint32_t ic_fbits_(float f)
{
    ic_f32_bits_ v;
    v.f = f;
    return v.u;
}

static inline float ic_bitsf_(uint32_t u)
{
    ic_f32_bits_ v;
    v.u = u;
    return v.f;
}

/* All-ones if c is nonzero, else zero. */
static inline uint32_t ic_mask_(int c)
{
    return 0u - (uint32_t)(c != 0);
}

/* Bitwise select: the bits of a where m is set, of b elsewhere.  Selections
 * are written this way rather than with ?: because GCC otherwise narrows
 * 32-bit selects feeding a 16-bit result into mixed-width conditional
 * expressions it cannot vectorise, and may sink a float operation used by
 * only one arm into a branch, which if-conversion then refuses to undo
 * (float operations may trap).  With masks every candidate is used
 * unconditionally. */
static inline uint32_t ic_sel_(uint32_t m, uint32_t a, uint32_t b)
{
    return (a & m) | (b & ~m);
}

/* binary16 -> float.  Every half value is exactly representable as a float,
 * so this conversion never rounds. */
static inline float ic_h2f_(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t em = (uint32_t)h & 0x7fffu; /* exponent and mantissa */
    const uint32_t is_sub = ic_mask_(em < 0x0400u);
    const uint32_t is_special = ic_mask_(em >= 0x7c00u);
    const uint32_t is_nan = ic_mask_(em > 0x7c00u);
    /* Normal numbers: move the fields into place and rebias the exponent
     * from 15 to 127, that is, add (127 - 15) << 23. */
    const uint32_t normal = (em << 13) + 0x38000000u;
    /* Infinity and NaN: all exponent bits set, payload kept, NaNs quieted. */
    const uint32_t special = (em << 13) | 0x7f800000u | (is_nan & 0x00400000u);
    /* Subnormals (and zero) are mantissa * 2^-24, exact in float.  This uses
     * an integer conversion rather than float tricks on subnormal floats, so
     * it is also exact when denormals-are-zero mode is on. */
    const uint32_t sub = ic_fbits_((float)(int32_t)em * 0x1p-24f);
    uint32_t r = ic_sel_(is_special, special, normal);
    r = ic_sel_(is_sub, sub, r);
    return ic_bitsf_(r | sign);
}

/* float -> binary16, round to nearest even. */
static inline uint16_t ic_f2h_(float f)
{
    const uint32_t x = ic_fbits_(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t a = x & 0x7fffffffu; /* bits of |f| */
    const uint32_t is_nan = ic_mask_(a > 0x7f800000u);
    const uint32_t is_big = ic_mask_(a >= 0x47800000u); /* |f| >= 2^16 */
    const uint32_t is_sub = ic_mask_(a < 0x38800000u);  /* |f| < 2^-14 */
    /* |f| >= 2^16, infinity included, overflows to infinity.  A NaN keeps
     * its top 9 payload bits and gets the quiet bit. */
    const uint32_t big = 0x7c00u | (is_nan & (0x0200u | ((a >> 13) & 0x03ffu)));
    /* Normal results: rebias the exponent by adding (15 - 127) << 23 modulo
     * 2^32, add 0xfff plus the lowest kept mantissa bit so that the shift
     * below rounds to nearest even, then drop the 13 extra mantissa bits.  A
     * carry out of the mantissa correctly bumps the exponent, up to infinity
     * for 65520 <= |f| < 2^16. */
    const uint32_t normal = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
    /* Subnormal results: adding 0.5f aligns the value so that the float
     * addition itself rounds it to a multiple of 2^-24 (the half subnormal
     * spacing), to nearest even; the mantissa bits of the sum are then the
     * half bits.  A value that rounds up to 2^-14 correctly yields 0x0400,
     * the smallest normal half.  Float subnormal inputs round to zero, so
     * denormals-are-zero mode does not change the result. */
    const uint32_t sub = ic_fbits_(ic_bitsf_(a) + 0.5f) - 0x3f000000u;
    uint32_t r = ic_sel_(is_sub, sub, normal);
    r = ic_sel_(is_big, big, r);
    return (uint16_t)(r | sign);
}

/* bfloat16 -> float: bfloat16 is the top half of a float.  NaNs are quieted
 * so that both directions treat NaNs the same way. */
static inline float ic_bf2f_(uint16_t h)
{
    const uint32_t is_nan = ic_mask_(((uint32_t)h & 0x7fffu) > 0x7f80u);
    return ic_bitsf_(((uint32_t)h << 16) | (is_nan & 0x00400000u));
}

/* float -> bfloat16, round to nearest even.  Adding 0x7fff plus the lowest
 * kept bit before the shift rounds to nearest even; a carry into the
 * exponent is the correct result, including overflow to infinity.  NaNs keep
 * their sign and top payload bits and get the quiet bit. */
static inline uint16_t ic_f2bf_(float f)
{
    const uint32_t x = ic_fbits_(f);
    const uint32_t is_nan = ic_mask_((x & 0x7fffffffu) > 0x7f800000u);
    const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    const uint32_t nan = (x >> 16) | 0x0040u;
    return (uint16_t)ic_sel_(is_nan, nan, rounded);
}

#endif /* IC_BASE_HALF_INLINE_H */
