/*
 * test_kernels.c — unit tests for datatypes, operations, the reduction
 * kernels and the 16-bit float conversions (src/base/dtype.c, half.c,
 * reduce_kernels.c).
 *
 * Every expected value is computed here independently of the library:
 * integers through 64-bit arithmetic with explicit truncation, float and
 * double through double arithmetic, and 16-bit floats through a slow
 * table-and-binary-search decoder/rounder written only in terms of the
 * format's definition.  The program prints "N passed, M failed" and exits
 * nonzero if anything failed.
 */
#include "base/dtype.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"


static float f32_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* ---- Reference 16-bit float formats ---- */

/* A 16-bit format: exponent and mantissa widths, and the magnitudes of all
 * non-negative finite patterns plus the first infinite one, which is given
 * the value the next binade would start at (for the overflow midpoint). */
typedef struct {
    int ebits, mbits;
    unsigned inf; /* the bit pattern of +infinity */
    double *mag;  /* mag[p] for p in [0, inf] */
} fmt16;

static fmt16 half_fmt = {5, 10, 0x7c00, NULL};
static fmt16 bf16_fmt = {8, 7, 0x7f80, NULL};

static double pow2(int e)
{
    double r = 1.0;
    for (; e > 0; --e)
        r *= 2.0;
    for (; e < 0; ++e)
        r /= 2.0;
    return r;
}

static void fmt_init(fmt16 *f)
{
    const int bias = (1 << (f->ebits - 1)) - 1;
    f->mag = malloc((f->inf + 1) * sizeof(double));
    for (unsigned p = 0; p <= f->inf; ++p) {
        const unsigned e = p >> f->mbits, m = p & ((1u << f->mbits) - 1);
        f->mag[p] = e == 0 ? m * pow2(1 - bias - f->mbits)
                           : ((1u << f->mbits) + m) * pow2((int)e - bias - f->mbits);
    }
}

/* The value of pattern h as a double (NaN for NaNs). */
static double ref_decode(const fmt16 *f, uint16_t h)
{
    const unsigned a = h & 0x7fffu;
    if (a > f->inf)
        return NAN;
    const double v = a == f->inf ? INFINITY : f->mag[a];
    return (h & 0x8000u) ? -v : v;
}

static bool ref_is_nan(const fmt16 *f, uint16_t h) { return (h & 0x7fffu) > f->inf; }

/* x rounded to the format, to nearest even; 0x7fff (a NaN) for NaN. */
static uint16_t ref_round(const fmt16 *f, double x)
{
    if (isnan(x))
        return 0x7fff;
    const unsigned sign = signbit(x) ? 0x8000u : 0u;
    const double ax = signbit(x) ? -x : x;
    if (ax >= f->mag[f->inf])
        return (uint16_t)(sign | f->inf);
    unsigned lo = 0, hi = f->inf; /* mag[lo] <= ax < mag[hi] */
    while (hi - lo > 1) {
        const unsigned mid = (lo + hi) / 2;
        if (f->mag[mid] <= ax)
            lo = mid;
        else
            hi = mid;
    }
    const double midpoint = (f->mag[lo] + f->mag[hi]) / 2; /* exact */
    const unsigned p = ax < midpoint ? lo : ax > midpoint ? hi : (lo & 1u) ? hi : lo;
    return (uint16_t)(sign | p);
}

/* Results agree if both are NaN or the bits are equal. */
static bool same16(const fmt16 *f, uint16_t got, uint16_t want)
{
    return ref_is_nan(f, want) ? ref_is_nan(f, got) : got == want;
}

/* ---- 16-bit conversions ---- */

static void test_conversions(const char *name, const fmt16 *f,
                             float (*to_f)(uint16_t), uint16_t (*from_f)(float),
                             uint16_t quiet_bit)
{
    /* Exhaustive: every pattern to float (exact) and back (identity, NaNs
     * quieted with sign and payload kept). */
    int bad = 0;
    for (uint32_t h = 0; h <= 0xffffu; ++h) {
        const float v = to_f((uint16_t)h);
        const double want = ref_decode(f, (uint16_t)h);
        const uint16_t back = from_f(v);
        bool ok;
        if (isnan(want))
            ok = isnan(v) && (bits_of(v) & 0x00400000u) &&
                 (bits_of(v) >> 31) == (h >> 15) && back == (h | quiet_bit);
        else
            ok = (double)v == want && !signbit(v) == !(h & 0x8000u) && back == h;
        if (!ok && bad++ < 5)
            printf("  %s pattern 0x%04x -> %a -> 0x%04x\n", name, (unsigned)h, v, back);
    }
    CHECK(bad == 0, "%s: exhaustive round trip, %d mismatches", name, bad);

    /* Every midpoint between adjacent values (the ties), and the floats
     * just below and above it, in both signs. */
    bad = 0;
    for (unsigned p = 0; p < f->inf; ++p) {
        const uint32_t mid = bits_of((float)((f->mag[p] + f->mag[p + 1]) / 2));
        for (uint32_t u = mid - 1; u <= mid + 1; ++u) {
            for (uint32_t s = 0; s <= 1; ++s) {
                const float x = f32_of(u | s << 31);
                const uint16_t got = from_f(x), want = ref_round(f, x);
                if (got != want && bad++ < 5)
                    printf("  %s(%a) = 0x%04x, want 0x%04x\n", name, x, got, want);
            }
        }
    }
    CHECK(bad == 0, "%s: rounding at every tie, %d mismatches", name, bad);

    /* A sweep over the whole float range. */
    bad = 0;
    for (uint64_t u = 0; u <= 0xffffffffu; u += 4099) {
        const float x = f32_of((uint32_t)u);
        const uint16_t got = from_f(x), want = ref_round(f, x);
        if (!same16(f, got, want) && bad++ < 5)
            printf("  %s(%a) = 0x%04x, want 0x%04x\n", name, x, got, want);
    }
    CHECK(bad == 0, "%s: sweep over float patterns, %d mismatches", name, bad);
}

static void test_named_cases(void)
{
    /* float -> half: ties, overflow, subnormals, signs, NaN. */
    static const struct { float x; uint16_t h; } hc[] = {
        {1.0f, 0x3c00},           {0x1.002p0f, 0x3c00},   {0x1.006p0f, 0x3c02},
        {0x1.00201p0f, 0x3c01},   {65504.0f, 0x7bff},     {65519.0f, 0x7bff},
        {65520.0f, 0x7c00},       {1e10f, 0x7c00},        {-1e10f, 0xfc00},
        {INFINITY, 0x7c00},       {-INFINITY, 0xfc00},    {0x1p-24f, 0x0001},
        {0x1p-25f, 0x0000},       {-0x1p-25f, 0x8000},    {0x3p-26f, 0x0001},
        {0x3p-25f, 0x0002},       {0x1p-14f - 0x1p-25f, 0x0400},
        {0x1p-14f, 0x0400},       {0x1p-130f, 0x0000},    {-0.0f, 0x8000},
        {-2.0f, 0xc000},          {0x1.ff8p-15f, 0x03ff},
    };
    for (size_t i = 0; i < sizeof hc / sizeof hc[0]; ++i)
        CHECK(ic_float_to_half(hc[i].x) == hc[i].h, "float_to_half(%a) = 0x%04x, want 0x%04x",
              hc[i].x, ic_float_to_half(hc[i].x), hc[i].h);
    CHECK(ic_float_to_half(NAN) == 0x7e00, "float_to_half(NaN) = 0x%04x", ic_float_to_half(NAN));
    CHECK(ic_half_to_float(0x0001) == 0x1p-24f, "half_to_float(0x0001)");
    CHECK(ic_half_to_float(0x7bff) == 65504.0f, "half_to_float(0x7bff)");
    CHECK(bits_of(ic_half_to_float(0x7d00)) == 0x7fe00000u, "half sNaN is quieted");

    /* float -> bfloat16, given as float bit patterns. */
    static const struct { uint32_t x; uint16_t b; } bc[] = {
        {0x3f808000, 0x3f80}, {0x3f818000, 0x3f82}, {0x3f808001, 0x3f81},
        {0x7f7fffff, 0x7f80}, {0x7f7f7fff, 0x7f7f}, {0x7f7f8000, 0x7f80},
        {0x00008000, 0x0000}, {0x00018000, 0x0002}, {0x00000001, 0x0000},
        {0x80000001, 0x8000}, {0xff800000, 0xff80}, {0x7f800001, 0x7fc0},
        {0x7f810000, 0x7fc1}, {0xffc00000, 0xffc0}, {0x80000000, 0x8000},
    };
    for (size_t i = 0; i < sizeof bc / sizeof bc[0]; ++i)
        CHECK(ic_float_to_bf16(f32_of(bc[i].x)) == bc[i].b, "float_to_bf16(0x%08x) = 0x%04x, want 0x%04x",
              (unsigned)bc[i].x, ic_float_to_bf16(f32_of(bc[i].x)), bc[i].b);
    CHECK(bits_of(ic_bf16_to_float(0x7f81)) == 0x7fc10000u, "bf16 sNaN is quieted");
}

/* ---- Kernels ---- */

/* Integer types: width in bits and signedness. */
static int int_width(ic_datatype_t t) { return (int)ic_datatype_size(t) * 8; }
static bool int_signed(ic_datatype_t t)
{
    return t == IC_INT8 || t == IC_INT16 || t == IC_INT32 || t == IC_INT64;
}

/* Truncates v to the type's width and sign- or zero-extends it back. */
static uint64_t canon(ic_datatype_t t, uint64_t v)
{
    const int w = int_width(t);
    if (w == 64)
        return v;
    const uint64_t mask = (1ull << w) - 1;
    v &= mask;
    if (int_signed(t) && (v >> (w - 1)))
        v |= ~mask;
    return v;
}

/* Element i of an integer (or byte) buffer, canonicalised. */
static uint64_t load_int(ic_datatype_t t, const void *buf, size_t i)
{
    uint64_t v = 0;
    const size_t sz = ic_datatype_size(t);
    memcpy(&v, (const char *)buf + i * sz, sz); /* little-endian host */
    return canon(t == IC_BYTE ? IC_UINT8 : t, v);
}

static uint64_t ref_int(ic_op_kind_t k, ic_datatype_t t, uint64_t a, uint64_t b)
{
    const bool s = int_signed(t);
    const bool a_lt_b = s ? (int64_t)a < (int64_t)b : a < b;
    switch (k) {
    case IC_OP_SUM: return canon(t, a + b);
    case IC_OP_PROD: return canon(t, a * b);
    case IC_OP_MIN: return a_lt_b ? a : b;
    case IC_OP_MAX: return a_lt_b ? b : a;
    case IC_OP_BAND: return a & b;
    case IC_OP_BOR: return a | b;
    case IC_OP_BXOR: return a ^ b;
    case IC_OP_LAND: return a != 0 && b != 0;
    case IC_OP_LOR: return a != 0 || b != 0;
    case IC_OP_LXOR: return (a != 0) != (b != 0);
    default: return 0xdeadbeef;
    }
}

/* Reference for float and double, computed in double; kernels keep inout
 * (b) on ties and propagate NaNs. */
static double ref_fp(ic_op_kind_t k, double a, double b)
{
    switch (k) {
    case IC_OP_SUM: return a + b;
    case IC_OP_PROD: return a * b;
    case IC_OP_MIN: return isnan(a) ? a : isnan(b) ? b : a < b ? a : b;
    default: return isnan(a) ? a : isnan(b) ? b : a > b ? a : b;
    }
}

/* Reference for the 16-bit formats on bit patterns. */
static uint16_t ref_16(const fmt16 *f, ic_op_kind_t k, uint16_t a, uint16_t b)
{
    const double x = ref_decode(f, a), y = ref_decode(f, b);
    if (k == IC_OP_SUM || k == IC_OP_PROD)
        return ref_round(f, k == IC_OP_SUM ? x + y : x * y);
    if (isnan(x))
        return a;
    if (isnan(y))
        return b;
    return (k == IC_OP_MIN ? x < y : x > y) ? a : b;
}

/* Fills n elements of type t with a mix of random, zero, small and extreme
 * values (and NaNs, infinities and signed zeros for float types). */
static void fill(ic_datatype_t t, void *buf, size_t n)
{
    static const uint16_t sp16[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7bff, 0x0001, 0x8001,
                                    0x7f80, 0xff80, 0x7fc0, 0x7f7f};
    static const double spd[] = {NAN, 0.0, -0.0, INFINITY, -INFINITY, 1.0, -1.0};
    for (size_t i = 0; i < n; ++i) {
        const uint64_t r = rnd();
        const size_t cls = i % 4;
        if (t == IC_FLOAT || t == IC_DOUBLE) {
            double v = (double)(int64_t)(r % 200001) / 1000.0 - 100.0;
            if (cls == 1) v = spd[(r >> 32) % 7];
            /* Large values overflow in prod; tiny ones are subnormal. */
            if (cls == 2 && t == IC_FLOAT) v = (r & 1 ? 1e30 : 1e-40) * (r & 2 ? -1 : 1);
            if (cls == 2 && t == IC_DOUBLE) v = (r & 1 ? 1e300 : 1e-310) * (r & 2 ? -1 : 1);
            if (t == IC_FLOAT) ((float *)buf)[i] = (float)v;
            else ((double *)buf)[i] = v;
        } else if (t == IC_FLOAT16 || t == IC_BFLOAT16) {
            ((uint16_t *)buf)[i] = cls == 1 ? sp16[(r >> 32) % 12] : (uint16_t)r;
        } else {
            /* Extremes: the top bit alone (the signed minimum), all bits
             * but the top one (the signed maximum), all ones, and one. */
            const uint64_t top = 1ull << (8 * ic_datatype_size(t) - 1);
            const uint64_t ext[] = {top, top - 1, ~0ull, 1};
            uint64_t v = r;
            if (cls == 1) v = 0;
            if (cls == 2) v = (uint64_t)((int64_t)(r % 7) - 3);
            if (cls == 3) v = ext[(r >> 32) % 4];
            memcpy((char *)buf + i * ic_datatype_size(t), &v, ic_datatype_size(t));
        }
    }
}

/* Checks element i of out against in and the original inout. */
static bool check_elem(ic_datatype_t t, ic_op_kind_t k, const void *in, const void *orig,
                       const void *out, size_t i)
{
    switch (t) {
    case IC_FLOAT: {
        const float a = ((const float *)in)[i], b = ((const float *)orig)[i];
        const float got = ((const float *)out)[i], want = (float)ref_fp(k, a, b);
        return isnan(want) ? isnan(got) : bits_of(got) == bits_of(want);
    }
    case IC_DOUBLE: {
        const double a = ((const double *)in)[i], b = ((const double *)orig)[i];
        const double got = ((const double *)out)[i], want = ref_fp(k, a, b);
        return isnan(want) ? isnan(got) : memcmp(&got, &want, 8) == 0;
    }
    case IC_FLOAT16:
    case IC_BFLOAT16: {
        const fmt16 *f = t == IC_FLOAT16 ? &half_fmt : &bf16_fmt;
        const uint16_t want = ref_16(f, k, ((const uint16_t *)in)[i], ((const uint16_t *)orig)[i]);
        return same16(f, ((const uint16_t *)out)[i], want);
    }
    default:
        return load_int(t, out, i) == ref_int(k, t, load_int(t, in, i), load_int(t, orig, i));
    }
}

static void test_kernel(ic_datatype_t t, ic_op_kind_t k, size_t count, size_t off)
{
    const size_t sz = ic_datatype_size(t), total = count + off + 1;
    unsigned char *in = malloc(total * sz), *io = malloc(total * sz);
    unsigned char *in_copy = malloc(total * sz), *orig = malloc(total * sz);
    memset(in, 0x5a, total * sz);
    memset(io, 0xa5, total * sz);
    fill(t, in + off * sz, count);
    fill(t, io + off * sz, count);
    memcpy(in_copy, in, total * sz);
    memcpy(orig, io, total * sz);

    ic_reduce_predefined(k, t, in + off * sz, io + off * sz, count);

    size_t bad = 0, first = 0;
    for (size_t i = 0; i < count; ++i) {
        if (!check_elem(t, k, in + off * sz, orig + off * sz, io + off * sz, i) && bad++ == 0)
            first = i;
    }
    const bool guards = memcmp(io, orig, off * sz) == 0 &&
                        memcmp(io + (off + count) * sz, orig + (off + count) * sz, sz) == 0;
    CHECK(bad == 0 && guards && memcmp(in, in_copy, total * sz) == 0,
          "%s %s count %zu offset %zu: %zu wrong (first at %zu), guards %s", ic_datatype_name(t),
          ic_op_kind_name(k), count, off, bad, first, guards ? "ok" : "overwritten");
    free(in);
    free(io);
    free(in_copy);
    free(orig);
}

static void test_kernels(void)
{
    static const size_t counts[] = {0, 1, 7, 33, 1000};
    for (int t = 0; t < IC_DATATYPE_COUNT; ++t)
        for (int k = 0; k < IC_OP_KIND_COUNT; ++k)
            if (ic_op_kind_applies((ic_op_kind_t)k, (ic_datatype_t)t))
                for (size_t c = 0; c < 5; ++c)
                    for (size_t off = 0; off <= 1; ++off)
                        test_kernel((ic_datatype_t)t, (ic_op_kind_t)k, counts[c], off);
    /* A zero count never touches the buffers. */
    ic_reduce_predefined(IC_OP_SUM, IC_INT32, NULL, NULL, 0);
    CHECK(true, "zero count with NULL buffers");
}

/* ---- Tables, names and operation handles ---- */

static void test_tables(void)
{
    int bad = 0;
    for (int t = 0; t < IC_DATATYPE_COUNT; ++t) {
        const bool is_int = t <= IC_UINT64, is_byte = t == IC_BYTE;
        for (int k = 0; k < IC_OP_KIND_COUNT; ++k) {
            const bool want = k <= IC_OP_MAX ? !is_byte : k <= IC_OP_BXOR ? is_int || is_byte : is_int;
            bad += ic_op_kind_applies((ic_op_kind_t)k, (ic_datatype_t)t) != want;
        }
        bad += ic_dtype_is_integer((ic_datatype_t)t) != is_int;
        bad += ic_dtype_is_float((ic_datatype_t)t) != (!is_int && !is_byte);
        bad += !ic_dtype_valid((ic_datatype_t)t) || strcmp(ic_datatype_name((ic_datatype_t)t), "invalid") == 0;
    }
    CHECK(bad == 0, "applicability and classification tables: %d mismatches", bad);
    CHECK(!ic_op_kind_applies(IC_OP_SUM, IC_BYTE), "byte + sum must not apply");
    CHECK(!ic_op_kind_applies(IC_OP_BAND, IC_FLOAT), "float + band must not apply");
    CHECK(ic_op_kind_applies(IC_OP_LXOR, IC_INT8), "int8 + lxor must apply");
    CHECK(ic_op_kind_applies(IC_OP_BXOR, IC_BYTE), "byte + bxor must apply");
    CHECK(!ic_op_kind_applies(IC_OP_LAND, IC_BYTE), "byte + land must not apply");
    CHECK(ic_op_kind_applies(IC_OP_MAX, IC_BFLOAT16), "bfloat16 + max must apply");
    CHECK(!ic_op_kind_applies(IC_OP_USER, IC_INT32), "user kind is not predefined");
    CHECK(!ic_op_kind_applies(IC_OP_SUM, IC_DATATYPE_COUNT), "invalid dtype");
    CHECK(!ic_op_kind_applies((ic_op_kind_t)-1, IC_INT32), "negative kind");
    CHECK(!ic_dtype_valid(IC_DATATYPE_COUNT) && !ic_dtype_valid((ic_datatype_t)-1), "dtype_valid bounds");

    CHECK(strcmp(ic_datatype_name(IC_INT32), "int32") == 0, "name int32");
    CHECK(strcmp(ic_datatype_name(IC_BFLOAT16), "bfloat16") == 0, "name bfloat16");
    CHECK(strcmp(ic_datatype_name(IC_FLOAT16), "float16") == 0, "name float16");
    CHECK(strcmp(ic_datatype_name(IC_DATATYPE_COUNT), "invalid") == 0, "name invalid");
    CHECK(ic_datatype_size(IC_UINT64) == 8 && ic_datatype_size(IC_BFLOAT16) == 2 &&
              ic_datatype_size(IC_BYTE) == 1 && ic_datatype_size(IC_DATATYPE_COUNT) == 0,
          "sizes");
    CHECK(strcmp(ic_op_kind_name(IC_OP_LXOR), "lxor") == 0 &&
              strcmp(ic_op_kind_name(IC_OP_USER), "user") == 0,
          "op kind names");
    for (int k = 0; k < IC_OP_KIND_COUNT; ++k) {
        const ic_op_t *op = ic_predefined_ops_[k];
        CHECK(op->kind == (ic_op_kind_t)k && op->fn == NULL && op->commutative,
              "predefined op %d", k);
    }
    CHECK(IC_SUM->kind == IC_OP_SUM && IC_LXOR->kind == IC_OP_LXOR, "IC_* macros");
    CHECK(!ic_op_applies(IC_SUM, IC_BYTE) && ic_op_applies(IC_BAND, IC_BYTE) &&
              !ic_op_applies(NULL, IC_INT32) && !ic_op_applies(IC_SUM, IC_DATATYPE_COUNT),
          "ic_op_applies for predefined ops");
}

static int user_calls;
/* A non-commutative user operation: inout = in - inout (int32 only). */
static void user_sub(const void *in, void *inout, size_t count, ic_datatype_t dtype)
{
    user_calls++;
    if (dtype != IC_INT32)
        return;
    for (size_t i = 0; i < count; ++i)
        ((int32_t *)inout)[i] = ((const int32_t *)in)[i] - ((int32_t *)inout)[i];
}

static void test_user_ops(void)
{
    ic_op_t *op = NULL, *op2 = NULL;
    CHECK(ic_op_create(user_sub, 0, &op) == IC_OK && op != NULL, "create user op");
    CHECK(op->kind == IC_OP_USER && op->fn == user_sub && !op->commutative, "user op fields");
    CHECK(ic_op_create(user_sub, 1, &op2) == IC_OK && op2->commutative, "create commutative");
    CHECK(ic_op_applies(op, IC_FLOAT) && ic_op_applies(op, IC_BYTE) &&
              !ic_op_applies(op, IC_DATATYPE_COUNT),
          "user op applies to every valid dtype");

    int32_t a[3] = {10, 20, 30}, b[3] = {1, 2, 3};
    ic_reduce_apply(op, IC_INT32, a, b, 3);
    CHECK(user_calls == 1 && b[0] == 9 && b[1] == 18 && b[2] == 27, "apply user op in order");
    ic_reduce_apply(op, IC_INT32, NULL, NULL, 0);
    CHECK(user_calls == 1, "zero count does not call the user function");
    ic_reduce_apply(IC_SUM, IC_INT32, a, b, 3);
    CHECK(b[0] == 19 && b[1] == 38 && b[2] == 57, "apply predefined op");

    ic_op_t *const sentinel = IC_MAX;
    ic_op_t *out = sentinel;
    CHECK(ic_op_create(NULL, 1, &out) == IC_ERR_ARG && out == sentinel, "create with fn NULL");
    CHECK(strstr(ic_last_error(), "fn") != NULL, "message names fn: '%s'", ic_last_error());
    CHECK(ic_op_create(user_sub, 2, &out) == IC_ERR_ARG && out == sentinel, "commutative 2");
    CHECK(ic_op_create(user_sub, -1, &out) == IC_ERR_ARG && out == sentinel, "commutative -1");
    CHECK(strstr(ic_last_error(), "commutative") != NULL, "message names commutative");
    CHECK(ic_op_create(user_sub, 1, NULL) == IC_ERR_ARG, "create with op NULL");

    for (int k = 0; k < IC_OP_KIND_COUNT; ++k) {
        ic_op_t *p = ic_predefined_ops_[k];
        CHECK(ic_op_free(&p) == IC_ERR_OP && p == ic_predefined_ops_[k], "free predefined %d", k);
    }
    ic_op_t *p = IC_SUM;
    CHECK(ic_op_free(&p) == IC_ERR_OP && p == IC_SUM, "ic_op_free(IC_SUM) gives IC_ERR_OP");
    ic_op_t *null_op = NULL;
    CHECK(ic_op_free(NULL) == IC_ERR_ARG, "free NULL");
    CHECK(ic_op_free(&null_op) == IC_ERR_ARG, "free pointer to NULL");
    CHECK(ic_op_free(&op) == IC_OK && op == NULL, "free user op");
    CHECK(ic_op_free(&op2) == IC_OK && op2 == NULL, "free second user op");
}

/* The exact kernels: when both operands are NaNs the in operand's payload
 * comes out, at every position of a call (vector body and tail alike);
 * with one NaN, that one; without NaNs the plain kernels' result. */
static void test_exact_nans(void)
{
    enum { N = 67 };
    double din[N], dio[N], dref[N];
    float fin[N], fio[N];
    uint16_t hin[N], hio[N];
    for (int op = IC_OP_SUM; op <= IC_OP_PROD; op++) {
        for (int i = 0; i < N; i++) {
            uint64_t a = 0x7ff8000000000000ull | (uint64_t)(i + 1) << 20;
            uint64_t b = 0xfff8000000000000ull | (uint64_t)(i + 7);
            memcpy(&din[i], &a, 8);
            memcpy(&dio[i], &b, 8);
            dref[i] = i % 3 ? 1.5 + i : din[i]; /* some pairs one NaN only */
            if (i % 3)
                dio[i] = 2.25 * i;
            uint32_t fa = 0x7fc00000u | (uint32_t)(i + 1) << 4, fb = 0xffc00000u | (uint32_t)i;
            memcpy(&fin[i], &fa, 4);
            memcpy(&fio[i], &fb, 4);
            hin[i] = (uint16_t)(0x7e00u | (unsigned)(i + 1));
            hio[i] = (uint16_t)(0xfe00u | (unsigned)(i + 3));
        }
        for (int i = 0; i < N; i++)
            if (i % 3)
                din[i] = dref[i];
        ic_reduce_predefined_exact((ic_op_kind_t)op, IC_DOUBLE, din, dio, N);
        ic_reduce_predefined_exact((ic_op_kind_t)op, IC_FLOAT, fin, fio, N);
        ic_reduce_predefined_exact((ic_op_kind_t)op, IC_FLOAT16, hin, hio, N);
        for (int i = 0; i < N; i++) {
            double want = i % 3 ? (op == IC_OP_SUM ? din[i] + 2.25 * i : din[i] * (2.25 * i))
                                : din[i];
            uint64_t got;
            memcpy(&got, &dio[i], 8);
            CHECK(memcmp(&dio[i], &want, 8) == 0, "exact %s double [%d]: 0x%llx",
                  op == IC_OP_SUM ? "sum" : "prod", i, (unsigned long long)got);
            CHECK(memcmp(&fio[i], &fin[i], 4) == 0, "exact float [%d]: in's NaN lost", i);
            CHECK(hio[i] == hin[i], "exact float16 [%d]: 0x%04x, want 0x%04x", i, hio[i], hin[i]);
        }
    }
}

int main(void)
{
    test_exact_nans();
    fmt_init(&half_fmt);
    fmt_init(&bf16_fmt);
    test_tables();
    test_named_cases();
    test_conversions("half", &half_fmt, ic_half_to_float, ic_float_to_half, 0x0200);
    test_conversions("bf16", &bf16_fmt, ic_bf16_to_float, ic_float_to_bf16, 0x0040);
    test_kernels();
    test_user_ops();
    free(half_fmt.mag);
    free(bf16_fmt.mag);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
