/*
 * half.c — out-of-line 16-bit float conversions declared in dtype.h.
 *
 * The implementation lives in half_inline.h so that the reduction kernels
 * can inline it into their loops; these wrappers give the rest of the
 * library (and the tests) ordinary functions with external linkage.
 */
#include "base/dtype.h"
#include "base/half_inline.h"

float ic_half_to_float(uint16_t h)
{
    return ic_h2f_(h);
}

uint16_t ic_float_to_half(float f)
{
    return ic_f2h_(f);
}

float ic_bf16_to_float(uint16_t h)
{
    return ic_bf2f_(h);
}

uint16_t ic_float_to_bf16(float f)
{
    return ic_f2bf_(f);
}
