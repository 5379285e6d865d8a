/*
 * dtype.c — datatypes, predefined and user reduction operations.
 *
 * The arithmetic itself lives in reduce_kernels.c (ic_reduce_predefined);
 * this file holds the tables that say which operation applies to which
 * datatype, the predefined operation handles, and the user operation
 * lifecycle.
 */
#include "base/dtype.h"

#include "base/handles.h"

#include <assert.h>
#include <stdlib.h>

/* Records a message for ic_last_error() and returns st (see status.c). */
ic_status_t ic_set_error(ic_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The predefined operations.  Their addresses, published through
 * ic_predefined_ops_, are the IC_SUM, ... handles; they are never freed, and
 * every one of them is commutative. */
#define PREDEFINED(k, n) {.kind = (k), .commutative = true, .id = (n)}
static ic_op_t predefined_ops[IC_OP_KIND_COUNT] = {
    [IC_OP_SUM] = PREDEFINED(IC_OP_SUM, 1),
    [IC_OP_PROD] = PREDEFINED(IC_OP_PROD, 2),
    [IC_OP_MIN] = PREDEFINED(IC_OP_MIN, 3),
    [IC_OP_MAX] = PREDEFINED(IC_OP_MAX, 4),
    [IC_OP_BAND] = PREDEFINED(IC_OP_BAND, 5),
    [IC_OP_BOR] = PREDEFINED(IC_OP_BOR, 6),
    [IC_OP_BXOR] = PREDEFINED(IC_OP_BXOR, 7),
    [IC_OP_LAND] = PREDEFINED(IC_OP_LAND, 8),
    [IC_OP_LOR] = PREDEFINED(IC_OP_LOR, 9),
    [IC_OP_LXOR] = PREDEFINED(IC_OP_LXOR, 10),
};
#undef PREDEFINED

ic_op_t *const ic_predefined_ops_[IC_OP_KIND_COUNT] = {
    &predefined_ops[IC_OP_SUM],  &predefined_ops[IC_OP_PROD],
    &predefined_ops[IC_OP_MIN],  &predefined_ops[IC_OP_MAX],
    &predefined_ops[IC_OP_BAND], &predefined_ops[IC_OP_BOR],
    &predefined_ops[IC_OP_BXOR], &predefined_ops[IC_OP_LAND],
    &predefined_ops[IC_OP_LOR],  &predefined_ops[IC_OP_LXOR],
};

/* Element sizes and names, indexed by datatype. */
static const size_t dtype_sizes[IC_DATATYPE_COUNT] = {
    [IC_INT8] = 1,   [IC_UINT8] = 1,    [IC_INT16] = 2,    [IC_UINT16] = 2,
    [IC_INT32] = 4,  [IC_UINT32] = 4,   [IC_INT64] = 8,    [IC_UINT64] = 8,
    [IC_FLOAT] = 4,  [IC_DOUBLE] = 8,   [IC_BFLOAT16] = 2, [IC_FLOAT16] = 2,
    [IC_BYTE] = 1,
};

static const char *const dtype_names[IC_DATATYPE_COUNT] = {
    [IC_INT8] = "int8",         [IC_UINT8] = "uint8",
    [IC_INT16] = "int16",       [IC_UINT16] = "uint16",
    [IC_INT32] = "int32",       [IC_UINT32] = "uint32",
    [IC_INT64] = "int64",       [IC_UINT64] = "uint64",
    [IC_FLOAT] = "float",       [IC_DOUBLE] = "double",
    [IC_BFLOAT16] = "bfloat16", [IC_FLOAT16] = "float16",
    [IC_BYTE] = "byte",
};

static const char *const op_kind_names[IC_OP_KIND_COUNT] = {
    [IC_OP_SUM] = "sum",   [IC_OP_PROD] = "prod", [IC_OP_MIN] = "min",
    [IC_OP_MAX] = "max",   [IC_OP_BAND] = "band", [IC_OP_BOR] = "bor",
    [IC_OP_BXOR] = "bxor", [IC_OP_LAND] = "land", [IC_OP_LOR] = "lor",
    [IC_OP_LXOR] = "lxor",
};

/* The sizes in bytes of the C types must match the table above, since the
 * kernels access buffers through those types. */
_Static_assert(sizeof(float) == 4, "float must be IEEE binary32");
_Static_assert(sizeof(double) == 8, "double must be IEEE binary64");

bool ic_dtype_valid(ic_datatype_t dtype)
{
    /* The cast also rejects negative values, whatever the enum's
     * underlying type is. */
    return (unsigned)dtype < (unsigned)IC_DATATYPE_COUNT;
}

bool ic_dtype_is_integer(ic_datatype_t dtype)
{
    switch (dtype) {
    case IC_INT8:
    case IC_UINT8:
    case IC_INT16:
    case IC_UINT16:
    case IC_INT32:
    case IC_UINT32:
    case IC_INT64:
    case IC_UINT64:
        return true;
    default:
        return false;
    }
}

bool ic_dtype_is_float(ic_datatype_t dtype)
{
    switch (dtype) {
    case IC_FLOAT:
    case IC_DOUBLE:
    case IC_BFLOAT16:
    case IC_FLOAT16:
        return true;
    default:
        return false;
    }
}

size_t ic_datatype_size(ic_datatype_t dtype)
{
    return ic_dtype_valid(dtype) ? dtype_sizes[dtype] : 0;
}

const char *ic_datatype_name(ic_datatype_t dtype)
{
    return ic_dtype_valid(dtype) ? dtype_names[dtype] : "invalid";
}

const char *ic_op_kind_name(ic_op_kind_t kind)
{
    if (kind == IC_OP_USER)
        return "user";
    if ((unsigned)kind < (unsigned)IC_OP_KIND_COUNT)
        return op_kind_names[kind];
    return "invalid";
}

bool ic_op_kind_applies(ic_op_kind_t kind, ic_datatype_t dtype)
{
    if (!ic_dtype_valid(dtype))
        return false;
    switch (kind) {
    case IC_OP_SUM:
    case IC_OP_PROD:
    case IC_OP_MIN:
    case IC_OP_MAX:
        /* Arithmetic and ordering apply to every type but raw bytes. */
        return dtype != IC_BYTE;
    case IC_OP_BAND:
    case IC_OP_BOR:
    case IC_OP_BXOR:
        /* Bitwise operations apply to integers and raw bytes. */
        return ic_dtype_is_integer(dtype) || dtype == IC_BYTE;
    case IC_OP_LAND:
    case IC_OP_LOR:
    case IC_OP_LXOR:
        /* Logical operations apply to integers only. */
        return ic_dtype_is_integer(dtype);
    default:
        return false;
    }
}

bool ic_op_applies(const ic_op_t *op, ic_datatype_t dtype)
{
    if (op == NULL || !ic_dtype_valid(dtype))
        return false;
    if (op->kind == IC_OP_USER)
        return op->fn != NULL || op->ctx_fn != NULL; /* accepts every datatype */
    return ic_op_kind_applies(op->kind, dtype);
}

/* True if op is the address of one of the predefined handles.  Equality
 * comparison is used because relational comparison of pointers into
 * different objects is undefined. */
/* User operations; their ids start above the predefined ones'. */
static ic_pool_t op_pool = IC_POOL_INIT("op", ic_op_t, 1000);

bool ic_op_valid(const ic_op_t *op)
{
    uintptr_t a = (uintptr_t)op, lo = (uintptr_t)&predefined_ops[0],
              hi = (uintptr_t)&predefined_ops[IC_OP_KIND_COUNT];
    if (a >= lo && a < hi)
        return (a - lo) % sizeof(ic_op_t) == 0;
    return ic_pool_live(&op_pool, op);
}

static bool is_predefined(const ic_op_t *op)
{
    for (int k = 0; k < IC_OP_KIND_COUNT; ++k) {
        if (op == &predefined_ops[k])
            return true;
    }
    return false;
}

ic_status_t ic_op_create(ic_user_fn fn, int commutative, ic_op_t **op)
{
    if (fn == NULL)
        return ic_set_error(IC_ERR_ARG, "ic_op_create: fn is NULL");
    if (commutative != 0 && commutative != 1)
        return ic_set_error(IC_ERR_ARG,
                            "ic_op_create: commutative is %d, must be 0 or 1",
                            commutative);
    if (op == NULL)
        return ic_set_error(IC_ERR_ARG, "ic_op_create: op is NULL");

    uint64_t id;
    ic_op_t *o = ic_pool_get(&op_pool, &id);
    if (o == NULL)
        return ic_set_error(IC_ERR_NO_MEM,
                            "ic_op_create: out of memory allocating op");
    o->id = id;
    o->kind = IC_OP_USER;
    o->fn = fn;
    o->ctx_fn = NULL;
    o->ctx = NULL;
    o->commutative = commutative == 1;
    *op = o;
    return IC_OK;
}

ic_status_t ic_op_create_ctx(ic_user_ctx_fn fn, void *ctx, int commutative, ic_op_t **op)
{
    if (fn == NULL)
        return ic_set_error(IC_ERR_ARG, "ic_op_create_ctx: fn is NULL");
    /* A placeholder plain function passes ic_op_create's checks. */
    ic_status_t st = ic_op_create((ic_user_fn)(void (*)(void))fn, commutative, op);
    if (st != IC_OK)
        return st;
    (*op)->fn = NULL;
    (*op)->ctx_fn = fn;
    (*op)->ctx = ctx;
    return IC_OK;
}

ic_status_t ic_op_free(ic_op_t **op)
{
    if (op == NULL)
        return ic_set_error(IC_ERR_ARG, "ic_op_free: op is NULL");
    if (*op == NULL)
        return ic_set_error(IC_ERR_ARG, "ic_op_free: *op is NULL");
    if (is_predefined(*op))
        return ic_set_error(IC_ERR_OP,
                            "ic_op_free: *op is the predefined operation "
                            "'%s', which cannot be freed",
                            ic_op_kind_name((*op)->kind));
    if (!ic_pool_live(&op_pool, *op))
        return ic_set_error(IC_ERR_OP,
                            "ic_op_free: *op is not a live user operation "
                            "(freed already, or not an op)");
    ic_pool_put(&op_pool, *op);
    *op = NULL;
    return IC_OK;
}

static void apply(const ic_op_t *op, ic_datatype_t dtype, const void *in, void *inout,
                  size_t count, bool exact)
{
    assert(op != NULL);
    /* With nothing to combine, user functions are not called at all, so
     * they never see the NULL buffers that a zero count allows. */
    if (op == NULL || count == 0)
        return;
    if (op->kind == IC_OP_USER) {
        assert(op->fn != NULL || op->ctx_fn != NULL);
        if (op->fn != NULL)
            op->fn(in, inout, count, dtype);
        else if (op->ctx_fn != NULL)
            op->ctx_fn(in, inout, count, dtype, op->ctx);
        return;
    }
    if (exact)
        ic_reduce_predefined_exact(op->kind, dtype, in, inout, count);
    else
        ic_reduce_predefined(op->kind, dtype, in, inout, count);
}

void ic_reduce_apply(const ic_op_t *op, ic_datatype_t dtype, const void *in, void *inout,
                     size_t count)
{
    apply(op, dtype, in, inout, count, false);
}

void ic_reduce_apply_exact(const ic_op_t *op, ic_datatype_t dtype, const void *in, void *inout,
                           size_t count)
{
    apply(op, dtype, in, inout, count, true);
}
