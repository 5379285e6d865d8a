/*
 * dtype.h — datatypes, predefined operations and the reduction kernels.
 *
 * The kernels are plain loops over restrict pointers, one per type x op,
 * written so that GCC/Clang vectorise them at -O2/-O3 (checked with
 * -fopt-info-vec; see docs/kernels.md).  16-bit float formats convert to
 * float, combine, and round back to nearest even.
 */
#ifndef IC_BASE_DTYPE_H
#define IC_BASE_DTYPE_H

#include "intercom.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* inout[i] = in[i] (op) inout[i] for i < count, with the context given
 * to ic_op_create_ctx. */
typedef void (*ic_user_ctx_fn)(const void *in, void *inout, size_t count, ic_datatype_t dtype,
                               void *ctx);

/* The definition behind the opaque ic_op_t. */
struct ic_op {
    ic_op_kind_t kind;  /* IC_OP_USER for user operations */
    ic_user_fn fn;      /* user function, NULL for predefined ops */
    bool commutative;
    uint64_t id;        /* never reused in the process: caches key on it */
    /* Or a user function with a context (the MPI drop-in's trampolines:
     * src/mpi_shim/), used when fn is NULL. */
    ic_user_ctx_fn ctx_fn;
    void *ctx;
};

/* Internal (not in intercom.h): a user operation whose function gets ctx
 * as its last argument; otherwise as ic_op_create (freed by ic_op_free). */
ic_status_t ic_op_create_ctx(ic_user_ctx_fn fn, void *ctx, int commutative, ic_op_t **op);

/* True if op is a predefined operation or a live user operation (a freed
 * or garbage handle gives false without being dereferenced). */
bool ic_op_valid(const ic_op_t *op);

/* True if dtype is one of the IC_DATATYPE_COUNT valid values. */
bool ic_dtype_valid(ic_datatype_t dtype);
/* True for the 8 integer types (not IC_BYTE). */
bool ic_dtype_is_integer(ic_datatype_t dtype);
/* True for float, double, bfloat16, float16. */
bool ic_dtype_is_float(ic_datatype_t dtype);

/* Name of a predefined op kind ("sum", ...), "user" for IC_OP_USER. */
const char *ic_op_kind_name(ic_op_kind_t kind);

/* True if the predefined op kind applies to dtype (table in intercom.h). */
bool ic_op_kind_applies(ic_op_kind_t kind, ic_datatype_t dtype);

/* True if op is a valid handle (predefined or created) applicable to dtype. */
bool ic_op_applies(const ic_op_t *op, ic_datatype_t dtype);

/* inout[i] = in[i] (op) inout[i] for i < count, for a predefined op kind
 * that applies to dtype.  in and inout must not overlap. */
void ic_reduce_predefined(ic_op_kind_t kind, ic_datatype_t dtype,
                          const void *restrict in, void *restrict inout,
                          size_t count);

/* The same with the NaN a float sum or product returns fixed: in's NaN
 * (quieted) when it is one, else inout's, wherever the element falls in
 * the call (reduce_kernels.c; the plain kernels leave the choice between
 * two NaN payloads to the instruction the compiler picked). */
void ic_reduce_predefined_exact(ic_op_kind_t kind, ic_datatype_t dtype,
                                const void *restrict in, void *restrict inout, size_t count);

/* inout = in (op) inout for any op handle (predefined or user). */
void ic_reduce_apply(const ic_op_t *op, ic_datatype_t dtype, const void *in,
                     void *inout, size_t count);
/* The same with ic_reduce_predefined_exact for predefined ops. */
void ic_reduce_apply_exact(const ic_op_t *op, ic_datatype_t dtype, const void *in,
                           void *inout, size_t count);

/* 16-bit float conversions (round to nearest even, NaN stays NaN,
 * overflow goes to infinity, subnormals handled). */
float ic_half_to_float(uint16_t h);
uint16_t ic_float_to_half(float f);
float ic_bf16_to_float(uint16_t h);
uint16_t ic_float_to_bf16(float f);

#endif
