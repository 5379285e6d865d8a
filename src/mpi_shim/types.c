/*
 * types.c — MPI datatypes and ops as intercom sees them.
 *
 * A datatype is decoded (MPI_Type_get_envelope / get_contents) into: its
 * size and extent; whether count elements of it are one contiguous run of
 * bytes in type-map order ("identity": then data-moving collectives pass
 * the caller's buffer as bytes, else they pack); and, for reductions, the
 * one predefined type it is made of and how many of them.  Predefined
 * types map to intercom's by the table below (C integer types by their
 * width; float and double); MPI_LONG_DOUBLE, the complex and the pair
 * types (MPI_2INT, MPI_DOUBLE_INT, ...) have no intercom equivalent and
 * their reductions fall back.
 *
 * Ops: the ten predefined ops intercom has, where MPI defines them for the
 * type class (integer: all ten; floating: sum, prod, min, max; MPI_BYTE:
 * the bitwise ones; MPI_C_BOOL: the logical ones).  MINLOC/MAXLOC fall
 * back.  A commutative user op (MPI_Op_create, recorded by the wrapper
 * here) on a predefined type runs through a trampoline that calls the
 * user's function with the caller's MPI datatype.
 */
#include "mpi_shim/shim.h"

#include "base/dtype.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { C_INT = 1, C_FLOAT = 2, C_BYTE = 4, C_BOOL = 8, C_DATA = 16 };

typedef struct predef {
    MPI_Datatype t;
    int ic;  /* intercom datatype, -1: none */
    int cls; /* C_* */
    shim_type_t ti; /* its description, made once */
} predef_t;

#define NPREDEF 48
static predef_t predef[NPREDEF];
static int npredef;
static pthread_once_t predef_once = PTHREAD_ONCE_INIT;

/* The table indexed by a hash of the handle (open addressing, linear
 * probing; at most NPREDEF of its NSLOTS slots are used), so that finding a
 * predefined type costs a few instructions whatever its place in the
 * table.  Written once by predef_init; predef_ready (release) says it is
 * complete, so a reader that sees it set needs no pthread_once. */
#define NSLOTS 128
static const predef_t *slots[NSLOTS];
static atomic_int predef_ready;

/* A handle's slot: an Open MPI handle is a pointer (its low bits are
 * alignment), an MPICH handle an int; Fibonacci hashing spreads both. */
static unsigned slot_of(MPI_Datatype t)
{
    return (unsigned)(((uint64_t)(uintptr_t)t * 0x9E3779B97F4A7C15ull) >> 57);
}

static int int_type(size_t bytes, int is_signed)
{
    switch (bytes) {
    case 1: return is_signed ? IC_INT8 : IC_UINT8;
    case 2: return is_signed ? IC_INT16 : IC_UINT16;
    case 4: return is_signed ? IC_INT32 : IC_UINT32;
    case 8: return is_signed ? IC_INT64 : IC_UINT64;
    default: return -1;
    }
}

static void add(MPI_Datatype t, int ic, int cls)
{
    if (t == MPI_DATATYPE_NULL || npredef == NPREDEF)
        return;
    for (int i = 0; i < npredef; i++)
        if (predef[i].t == t)
            return; /* an alias of a type listed already (MPI_LONG_LONG_INT, ...) */
    predef[npredef++] = (predef_t){.t = t, .ic = ic, .cls = cls};
}

/* Puts every entry of the table into its slot. */
static void index_predef(void)
{
    for (int i = 0; i < npredef; i++) {
        unsigned h = slot_of(predef[i].t);
        while (slots[h])
            h = (h + 1) % NSLOTS;
        slots[h] = &predef[i];
    }
}

static int decode(MPI_Datatype t, shim_type_t *ti, int depth);

#define ADD_INT(T, ctype, sgn) add(T, int_type(sizeof(ctype), sgn), C_INT)

static void predef_init(void)
{
    /* Where two names are one handle, the first one's entry counts. */
    add(MPI_BYTE, IC_BYTE, C_BYTE);
    add(MPI_FLOAT, IC_FLOAT, C_FLOAT);
    add(MPI_DOUBLE, IC_DOUBLE, C_FLOAT);
    ADD_INT(MPI_INT, int, 1);
    ADD_INT(MPI_LONG, long, 1);
    ADD_INT(MPI_UNSIGNED, unsigned, 0);
    ADD_INT(MPI_UNSIGNED_LONG, unsigned long, 0);
    ADD_INT(MPI_LONG_LONG_INT, long long, 1);
    ADD_INT(MPI_UNSIGNED_LONG_LONG, unsigned long long, 0);
    ADD_INT(MPI_SHORT, short, 1);
    ADD_INT(MPI_UNSIGNED_SHORT, unsigned short, 0);
    ADD_INT(MPI_SIGNED_CHAR, signed char, 1);
    ADD_INT(MPI_UNSIGNED_CHAR, unsigned char, 0);
    ADD_INT(MPI_INT8_T, int8_t, 1);
    ADD_INT(MPI_INT16_T, int16_t, 1);
    ADD_INT(MPI_INT32_T, int32_t, 1);
    ADD_INT(MPI_INT64_T, int64_t, 1);
    ADD_INT(MPI_UINT8_T, uint8_t, 0);
    ADD_INT(MPI_UINT16_T, uint16_t, 0);
    ADD_INT(MPI_UINT32_T, uint32_t, 0);
    ADD_INT(MPI_UINT64_T, uint64_t, 0);
    ADD_INT(MPI_AINT, MPI_Aint, 1);
    ADD_INT(MPI_OFFSET, MPI_Offset, 1);
    ADD_INT(MPI_COUNT, MPI_Count, 1);
    add(MPI_C_BOOL, int_type(sizeof(_Bool), 0), C_BOOL);
    add(MPI_CHAR, -1, C_DATA);
    add(MPI_WCHAR, -1, C_DATA);
    add(MPI_PACKED, -1, C_DATA);
    /* No intercom datatype, but described once here all the same, for the
     * data-moving collectives (their reductions fall back either way). */
    add(MPI_LONG_DOUBLE, -1, C_DATA);
    add(MPI_C_FLOAT_COMPLEX, -1, C_DATA);
    add(MPI_C_DOUBLE_COMPLEX, -1, C_DATA);
    add(MPI_C_LONG_DOUBLE_COMPLEX, -1, C_DATA);
    add(MPI_2INT, -1, C_DATA);
    add(MPI_FLOAT_INT, -1, C_DATA);
    add(MPI_DOUBLE_INT, -1, C_DATA);
    add(MPI_LONG_INT, -1, C_DATA);
    add(MPI_SHORT_INT, -1, C_DATA);
    add(MPI_LONG_DOUBLE_INT, -1, C_DATA);
    index_predef(); /* decode looks the named types up */
    for (int i = 0; i < npredef; i++)
        decode(predef[i].t, &predef[i].ti, 1); /* depth 1: not from the table */
    atomic_store_explicit(&predef_ready, 1, memory_order_release);
}

/* The table's entry of t, or NULL (shim_type or shim_type_known has made
 * the table). */
static const predef_t *find_predef(MPI_Datatype t)
{
    for (unsigned h = slot_of(t); slots[h]; h = (h + 1) % NSLOTS)
        if (slots[h]->t == t)
            return slots[h];
    return NULL;
}

static int type_extent(MPI_Datatype t, shim_type_t *ti, MPI_Count *lb, MPI_Count *tlb,
                       MPI_Count *text)
{
    MPI_Count ext = 0;
    int rc = PMPI_Type_size_x(t, &ti->size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_extent_x(t, lb, &ext);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_true_extent_x(t, tlb, text);
    ti->extent = (MPI_Aint)ext;
    return rc;
}

/* A block of n elements of old (already decoded) at byte offset disp of
 * the new type, following `at` bytes of data: still one ordered run? */
static int run_continues(const shim_type_t *old, MPI_Count n, MPI_Aint disp, MPI_Count at)
{
    return n == 0 || (old->identity && disp == (MPI_Aint)at);
}

/* Merges a part made of old into *ti's reduction base. */
static void merge_base(shim_type_t *ti, const shim_type_t *old, MPI_Count n, int first)
{
    if (first) {
        ti->base = old->base;
        ti->mbase = old->mbase;
        ti->cls = old->cls;
        ti->why = old->base < 0 ? old->why : ti->why;
    } else if (old->base != ti->base || old->mbase != ti->mbase) {
        ti->base = -1;
        ti->why = SHIM_R_HETERO;
    }
    ti->k += n * old->k;
}

/* The derived part of decode: combiner comb with its contents. */
static int decode_derived(int comb, const int *ints, const MPI_Aint *aints,
                          const MPI_Datatype *types, int nt, shim_type_t *ti, int depth)
{
    shim_type_t old[8];
    int nold = nt < 8 ? nt : 8, rc = MPI_SUCCESS;
    for (int i = 0; i < nold && rc == MPI_SUCCESS; i++)
        rc = decode(types[i], &old[i], depth + 1);
    if (rc != MPI_SUCCESS)
        return rc;
    ti->k = 0;
    ti->identity = 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
        merge_base(ti, &old[0], 1, 1);
        ti->identity = old[0].identity;
        break;
    case MPI_COMBINER_CONTIGUOUS:
        merge_base(ti, &old[0], ints[0], 1);
        ti->identity = old[0].identity;
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        MPI_Aint stride = comb == MPI_COMBINER_VECTOR ? (MPI_Aint)ints[2] * old[0].extent
                                                      : aints[0];
        merge_base(ti, &old[0], (MPI_Count)ints[0] * ints[1], 1);
        ti->identity = old[0].identity &&
                       (ints[0] <= 1 || stride == (MPI_Aint)ints[1] * old[0].extent);
        break;
    }
    case MPI_COMBINER_RESIZED:
        merge_base(ti, &old[0], 1, 1);
        ti->identity = old[0].identity && aints[0] == 0 && aints[1] == old[0].size;
        break;
    case MPI_COMBINER_STRUCT: {
        int n = ints[0];
        MPI_Count at = 0;
        ti->identity = n <= nold;
        for (int i = 0; i < n && i < nold; i++) {
            merge_base(ti, &old[i], ints[1 + i], i == 0);
            ti->identity = ti->identity && run_continues(&old[i], ints[1 + i], aints[i], at);
            at += ints[1 + i] * old[i].size;
        }
        if (n > nold) {
            ti->base = -1;
            ti->why = SHIM_R_HETERO;
        }
        break;
    }
    default: /* indexed, subarray, darray, ...: one old type, packed */
        merge_base(ti, &old[0], 1, 1);
        ti->k = 0; /* unknown; only used with identity */
        break;
    }
    if (ti->base >= 0 && !ti->identity)
        ti->why = SHIM_R_NONCONTIG;
    return MPI_SUCCESS;
}

static int decode(MPI_Datatype t, shim_type_t *ti, int depth)
{
    const predef_t *known = depth == 0 ? find_predef(t) : NULL;
    if (known) { /* a predefined type we know: described already */
        *ti = known->ti;
        return MPI_SUCCESS;
    }
    memset(ti, 0, sizeof *ti);
    ti->base = -1;
    ti->mbase = MPI_DATATYPE_NULL;
    ti->why = SHIM_R_NOTYPE;
    MPI_Count lb, tlb, text;
    int rc = type_extent(t, ti, &lb, &tlb, &text);
    if (rc != MPI_SUCCESS)
        return rc;
    int ni, na, nt, comb;
    rc = PMPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comb == MPI_COMBINER_NAMED) {
        const predef_t *p = find_predef(t);
        ti->k = 1;
        ti->identity = lb == 0 && ti->extent == ti->size && tlb == 0 && text == ti->size;
        if (p && p->ic >= 0 && ti->identity) {
            ti->base = p->ic;
            ti->mbase = t;
            ti->cls = p->cls;
        }
        return MPI_SUCCESS;
    }
    ti->derived = 1;
    if (depth > 16) { /* deep nesting: packed, no reduction */
        ti->why = SHIM_R_NONCONTIG;
        return MPI_SUCCESS;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nt + 1));
    if (!ints || !aints || !types) {
        rc = MPI_ERR_NO_MEM;
    } else {
        rc = PMPI_Type_get_contents(t, ni, na, nt, ints, aints, types);
        if (rc == MPI_SUCCESS) {
            rc = decode_derived(comb, ints, aints, types, nt, ti, depth);
            for (int i = 0; i < nt; i++) { /* get_contents made copies of derived types */
                int a, b, c, oc;
                if (PMPI_Type_get_envelope(types[i], &a, &b, &c, &oc) == MPI_SUCCESS &&
                    oc != MPI_COMBINER_NAMED)
                    PMPI_Type_free(&types[i]);
            }
        }
    }
    free(ints);
    free(aints);
    free(types);
    /* Whatever the parts say, the whole must be one run from offset 0. */
    if (ti->identity && !(lb == 0 && ti->extent == ti->size && tlb == 0 && text == ti->size))
        ti->identity = 0;
    if (ti->base >= 0 && !ti->identity)
        ti->why = SHIM_R_NONCONTIG;
    return rc;
}

/* Makes the table of predefined types once (the first call of any thread). */
static void predef_make(void)
{
    if (!atomic_load_explicit(&predef_ready, memory_order_acquire))
        pthread_once(&predef_once, predef_init);
}

int shim_type(MPI_Datatype t, shim_type_t *ti)
{
    if (t == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    predef_make();
    return decode(t, ti, 0);
}

const shim_type_t *shim_type_known(MPI_Datatype t)
{
    predef_make();
    const predef_t *p = find_predef(t);
    return p ? &p->ti : NULL;
}

/* ---- ops -------------------------------------------------------------- */

/* A user op of MPI_Op_create, and the intercom ops made for it, one per
 * MPI datatype it was used with.  Records stay until MPI_Finalize (a
 * freed op may still be running in a nonblocking call). */
typedef struct user_dt {
    MPI_Datatype dt;
    ic_op_t *ic;
    struct user_op *op;
    struct user_dt *next;
} user_dt_t;

typedef struct user_op {
    MPI_Op op;
    MPI_User_function *fn;
#if MPI_VERSION >= 4
    MPI_User_function_c *fn_c;
#endif
    int commute, live;
    user_dt_t *dts;
    struct user_op *next;
} user_op_t;

static user_op_t *user_ops;
static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;

static void trampoline(const void *in, void *inout, size_t count, ic_datatype_t dtype, void *ctx)
{
    (void)dtype;
    user_dt_t *u = ctx;
    MPI_Datatype dt = u->dt;
    size_t done = 0, esize = ic_datatype_size(dtype);
    while (done < count) {
        size_t n = count - done;
#if MPI_VERSION >= 4
        if (u->op->fn_c) {
            MPI_Count len = (MPI_Count)n;
            u->op->fn_c((char *)in + done * esize, (char *)inout + done * esize, &len, &dt);
            done += n;
            continue;
        }
#endif
        int len = n > (size_t)INT_MAX ? INT_MAX : (int)n;
        u->op->fn((char *)in + done * esize, (char *)inout + done * esize, &len, &dt);
        done += (size_t)len;
    }
}

static void record_op(MPI_Op op, void *fn, int c_form, int commute)
{
    user_op_t *u = calloc(1, sizeof *u);
    if (!u)
        return; /* unknown ops fall back */
    u->op = op;
#if MPI_VERSION >= 4
    if (c_form)
        u->fn_c = (MPI_User_function_c *)fn;
    else
#endif
        u->fn = (MPI_User_function *)fn;
    (void)c_form;
    u->commute = commute;
    u->live = 1;
    pthread_mutex_lock(&ops_lock);
    u->next = user_ops;
    user_ops = u;
    pthread_mutex_unlock(&ops_lock);
}

int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op)
{
    int rc = PMPI_Op_create(fn, commute, op);
    if (rc == MPI_SUCCESS)
        record_op(*op, (void *)fn, 0, commute);
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Op_create_c(MPI_User_function_c *fn, int commute, MPI_Op *op)
{
    int rc = PMPI_Op_create_c(fn, commute, op);
    if (rc == MPI_SUCCESS)
        record_op(*op, (void *)fn, 1, commute);
    return rc;
}
#endif

int MPI_Op_free(MPI_Op *op)
{
    if (op) {
        pthread_mutex_lock(&ops_lock);
        for (user_op_t *u = user_ops; u; u = u->next)
            if (u->live && u->op == *op)
                u->live = 0; /* the handle may be reused by a new op */
        pthread_mutex_unlock(&ops_lock);
    }
    return PMPI_Op_free(op);
}

static const ic_op_t *user_op(MPI_Op op, const shim_type_t *ti, shim_reason_t *why)
{
    const ic_op_t *res = NULL;
    *why = SHIM_R_OPTYPE; /* not recorded: e.g. made before the drop-in was loaded */
    pthread_mutex_lock(&ops_lock);
    for (user_op_t *u = user_ops; u; u = u->next) {
        if (!u->live || u->op != op)
            continue;
        if (!u->commute) {
            *why = SHIM_R_NONCOMM;
            break;
        }
        if (ti->derived || ti->base < 0) {
            /* intercom may split a vector anywhere: the user's function
             * sees whole elements only of a predefined type */
            *why = !ti->derived ? ti->why
                   : !ti->identity ? SHIM_R_NONCONTIG
                   : ti->base < 0 ? SHIM_R_HETERO
                                  : SHIM_R_USERDERIVED;
            break;
        }
        user_dt_t *d = u->dts;
        while (d && d->dt != ti->mbase)
            d = d->next;
        if (!d && (d = calloc(1, sizeof *d)) != NULL) {
            d->dt = ti->mbase;
            d->op = u;
            if (ic_op_create_ctx(trampoline, d, 1, &d->ic) != IC_OK) {
                free(d);
                d = NULL;
            } else {
                d->next = u->dts;
                u->dts = d;
            }
        }
        res = d ? d->ic : NULL;
        break;
    }
    pthread_mutex_unlock(&ops_lock);
    return res;
}

void shim_ops_free(void)
{
    pthread_mutex_lock(&ops_lock);
    while (user_ops) {
        user_op_t *u = user_ops;
        user_ops = u->next;
        while (u->dts) {
            user_dt_t *d = u->dts;
            u->dts = d->next;
            ic_op_free(&d->ic);
            free(d);
        }
        free(u);
    }
    pthread_mutex_unlock(&ops_lock);
}

/* The predefined ops intercom has, with the classes of datatypes MPI
 * defines each for (the most used first: the table is searched in order). */
static const struct {
    MPI_Op op;
    ic_op_kind_t kind;
    int classes;
} predef_ops[] = {
    {MPI_SUM, IC_OP_SUM, C_INT | C_FLOAT},    {MPI_MAX, IC_OP_MAX, C_INT | C_FLOAT},
    {MPI_MIN, IC_OP_MIN, C_INT | C_FLOAT},    {MPI_PROD, IC_OP_PROD, C_INT | C_FLOAT},
    {MPI_BAND, IC_OP_BAND, C_INT | C_BYTE},   {MPI_BOR, IC_OP_BOR, C_INT | C_BYTE},
    {MPI_BXOR, IC_OP_BXOR, C_INT | C_BYTE},   {MPI_LAND, IC_OP_LAND, C_INT | C_BOOL},
    {MPI_LOR, IC_OP_LOR, C_INT | C_BOOL},     {MPI_LXOR, IC_OP_LXOR, C_INT | C_BOOL},
};
#define NPREDEF_OPS (sizeof predef_ops / sizeof predef_ops[0])

/* Predefined op i of predef_ops on elements of ti, or NULL with *why. */
static const ic_op_t *predefined_op(size_t i, const shim_type_t *ti, shim_reason_t *why)
{
    /* MPI defines the predefined ops on predefined datatypes only (both
     * MPIs reject a derived one): MPI reports it. */
    if (ti->derived || ti->base < 0) {
        *why = ti->derived ? SHIM_R_OPTYPE : ti->why;
        return NULL;
    }
    if (!(predef_ops[i].classes & ti->cls) ||
        !ic_op_kind_applies(predef_ops[i].kind, (ic_datatype_t)ti->base)) {
        *why = SHIM_R_OPTYPE;
        return NULL;
    }
    return ic_predefined_ops_[predef_ops[i].kind];
}

/* op's index in predef_ops, or NPREDEF_OPS. */
static size_t predef_index(MPI_Op op)
{
    size_t i = 0;
    while (i < NPREDEF_OPS && op != predef_ops[i].op)
        i++;
    return i;
}

int shim_op_predefined(MPI_Op op)
{
    return predef_index(op) < NPREDEF_OPS;
}

const ic_op_t *shim_op(MPI_Op op, const shim_type_t *ti, shim_reason_t *why)
{
    size_t i = predef_index(op);
    if (i < NPREDEF_OPS)
        return predefined_op(i, ti, why);
    if (op == MPI_MINLOC || op == MPI_MAXLOC) {
        *why = SHIM_R_MINLOC;
        return NULL;
    }
    if (op == MPI_REPLACE || op == MPI_NO_OP || op == MPI_OP_NULL) {
        *why = SHIM_R_OPTYPE;
        return NULL;
    }
    return user_op(op, ti, why);
}
