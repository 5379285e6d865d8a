/*
 * dropin_types.c — datatypes and operations.  Every predefined type the
 * drop-in serves with every operation MPI defines for it: Allreduce (in
 * place every other time), Reduce at a rotating root (in place at the root
 * every other time), Reduce_local (and Reduce_local_c), on a communicator
 * of at most 3 ranks; then each type in a batch of Iallreduce and Ireduce
 * on MPI_COMM_WORLD.  The derived types: a vector in Bcast and Gather
 * (served: packed) and in Reduce with a user op (MPI's: non-contiguous);
 * MPI_Type_contiguous(3, MPI_INT) in Gather/Allgather (served) and in
 * Allreduce/Reduce with a user op (MPI's: user op on a derived datatype);
 * struct {int, double} in Bcast (served) and Scan with a user op (MPI's:
 * it has a hole), struct {int, float} in Exscan with a user op (MPI's:
 * heterogeneous).  MINLOC/MAXLOC, long double and double complex (MPI's),
 * commutative user ops on MPI_INT and MPI_DOUBLE (served) and a
 * non-commutative one, 2x2 matrix products whose order shows (MPI's).
 *
 * MPI defines the predefined operations on predefined types only: both
 * MPIs fail MPI_SUM on any derived type (MPI_ERR_OP), so no such call here.
 */
#include "dropin.h"

#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm tw; /* where these tests run, */
static int tr, tp;  /* this rank in it and its size */

enum kind { K_SINT, K_UINT, K_FLOAT, K_BYTE, K_BOOL };
enum { O_SUM, O_PROD, O_MIN, O_MAX, O_BAND, O_BOR, O_BXOR, O_LAND, O_LOR, O_LXOR, O_N };
static const char *const op_names[O_N] = {"SUM", "PROD", "MIN",  "MAX", "BAND",
                                          "BOR", "BXOR", "LAND", "LOR", "LXOR"};
#define OPS_INT 0x3ff  /* C integer: all ten */
#define OPS_MULTI 0x7f /* MPI_AINT, MPI_OFFSET, MPI_COUNT: no logical ops */
#define OPS_FLOAT 0x0f
#define OPS_BYTE 0x70
#define OPS_BOOL 0x380

typedef struct tdesc {
    MPI_Datatype dt;
    const char *name;
    int kind;
    size_t size;
    int ops;
} tdesc_t;

static MPI_Op mpi_op(int o)
{
    const MPI_Op ops[O_N] = {MPI_SUM, MPI_PROD, MPI_MIN,  MPI_MAX, MPI_BAND,
                             MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
    return ops[o];
}

/* Values as long long (integers) or double, stored in the type's bytes. */
static void store(const tdesc_t *t, void *p, long long v, double d)
{
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    float f;
    _Bool b;
    if (t->kind == K_FLOAT) {
        if (t->size == sizeof(float)) {
            f = (float)d;
            memcpy(p, &f, sizeof f);
        } else {
            memcpy(p, &d, sizeof d);
        }
        return;
    }
    if (t->kind == K_BOOL) {
        b = v != 0;
        memcpy(p, &b, sizeof b);
        return;
    }
    switch (t->size) { /* two's complement: the low bytes, signed or not */
    case 1:
        i8 = (int8_t)(uint8_t)(v & 0xff);
        memcpy(p, &i8, 1);
        break;
    case 2:
        i16 = (int16_t)(uint16_t)(v & 0xffff);
        memcpy(p, &i16, 2);
        break;
    case 4:
        i32 = (int32_t)(uint32_t)(v & 0xffffffffLL);
        memcpy(p, &i32, 4);
        break;
    default:
        i64 = (int64_t)v;
        memcpy(p, &i64, 8);
        break;
    }
}

/* The input of rank q at index i for type t and op o. */
static long long input(const tdesc_t *t, int o, int q, int i, int salt)
{
    int v = val(q, i, salt);
    int sgn = t->kind == K_SINT || t->kind == K_FLOAT;
    switch (o) {
    case O_PROD:
        if (sgn && (q + i + salt) % 7 == 0)
            return -1;
        return (q + 2 * i + salt) % 5 == 0 ? 2 : 1;
    case O_LAND:
    case O_LOR:
    case O_LXOR:
        if ((q * 7 + i * 3 + salt) % 5 == 0)
            return 0;
        return t->kind == K_BOOL ? 1 : 1 + (q + i) % 3;
    case O_BAND:
    case O_BOR:
    case O_BXOR:
        return sgn ? v : (v + 30) & 0x7f;
    default:
        return sgn ? v % 13 : (v + 30) % 13;
    }
}

static long long apply(int o, long long a, long long b)
{
    switch (o) {
    case O_SUM:
        return a + b;
    case O_PROD:
        return a * b;
    case O_MIN:
        return a < b ? a : b;
    case O_MAX:
        return a > b ? a : b;
    case O_BAND:
        return a & b;
    case O_BOR:
        return a | b;
    case O_BXOR:
        return a ^ b;
    case O_LAND:
        return (a != 0) && (b != 0);
    case O_LOR:
        return (a != 0) || (b != 0);
    default:
        return (a != 0) != (b != 0);
    }
}

/* Fills in (this rank's input) and want (op over ranks lo..hi-1). */
static void make(const tdesc_t *t, int o, int r, int lo, int hi, int n, int salt, unsigned char *in,
                 unsigned char *want)
{
    for (int i = 0; i < n; i++) {
        long long acc = input(t, o, lo, i, salt);
        for (int q = lo + 1; q < hi; q++)
            acc = apply(o, acc, input(t, o, q, i, salt));
        long long mine = input(t, o, r, i, salt);
        store(t, in + (size_t)i * t->size, mine, (double)mine);
        store(t, want + (size_t)i * t->size, acc, (double)acc);
    }
}

static void type_table(tdesc_t *T, int *nt)
{
    int n = 0;
#define T_(d, k, c, o) T[n++] = (tdesc_t){d, #d, k, sizeof(c), o}
    T_(MPI_SIGNED_CHAR, K_SINT, signed char, OPS_INT);
    T_(MPI_UNSIGNED_CHAR, K_UINT, unsigned char, OPS_INT);
    T_(MPI_SHORT, K_SINT, short, OPS_INT);
    T_(MPI_UNSIGNED_SHORT, K_UINT, unsigned short, OPS_INT);
    T_(MPI_INT, K_SINT, int, OPS_INT);
    T_(MPI_UNSIGNED, K_UINT, unsigned, OPS_INT);
    T_(MPI_LONG, K_SINT, long, OPS_INT);
    T_(MPI_UNSIGNED_LONG, K_UINT, unsigned long, OPS_INT);
    T_(MPI_LONG_LONG, K_SINT, long long, OPS_INT);
    T_(MPI_UNSIGNED_LONG_LONG, K_UINT, unsigned long long, OPS_INT);
    T_(MPI_INT8_T, K_SINT, int8_t, OPS_INT);
    T_(MPI_UINT8_T, K_UINT, uint8_t, OPS_INT);
    T_(MPI_INT16_T, K_SINT, int16_t, OPS_INT);
    T_(MPI_UINT16_T, K_UINT, uint16_t, OPS_INT);
    T_(MPI_INT32_T, K_SINT, int32_t, OPS_INT);
    T_(MPI_UINT32_T, K_UINT, uint32_t, OPS_INT);
    T_(MPI_INT64_T, K_SINT, int64_t, OPS_INT);
    T_(MPI_UINT64_T, K_UINT, uint64_t, OPS_INT);
    T_(MPI_FLOAT, K_FLOAT, float, OPS_FLOAT);
    T_(MPI_DOUBLE, K_FLOAT, double, OPS_FLOAT);
    T_(MPI_BYTE, K_BYTE, unsigned char, OPS_BYTE);
    T_(MPI_C_BOOL, K_BOOL, _Bool, OPS_BOOL);
    T_(MPI_AINT, K_SINT, MPI_Aint, OPS_MULTI);
    /* Open MPI 4.1.4 compares MPI_OFFSET as unsigned in MIN/MAX: no
     * negative values for it. */
    T_(MPI_OFFSET, K_UINT, MPI_Offset, OPS_MULTI);
    T_(MPI_COUNT, K_SINT, MPI_Count, OPS_MULTI);
#undef T_
    *nt = n;
}

#define TN 7 /* elements per call */

/* Every predefined type with every op MPI allows for it. */
static void test_predefined(void)
{
    tdesc_t T[32];
    int nt, salt = 5000, call = 0;
    type_table(T, &nt);
    unsigned char in[TN * 8], in2[TN * 8], got[TN * 8], want[TN * 8], want2[TN * 8];
    for (int ti = 0; ti < nt; ti++) {
        const tdesc_t *t = &T[ti];
        size_t nb = TN * t->size;
        int hash = t->kind != K_FLOAT;
        for (int o = 0; o < O_N; o++, salt++) {
            if (!(t->ops & (1 << o)))
                continue;
            /* Allreduce, in place every other time. */
            make(t, o, tr, 0, tp, TN, salt, in, want);
            int inplace = call++ % 2;
            memcpy(got, in, nb);
            if (!inplace)
                memset(got, 0x5a, nb);
            OK(MPI_Allreduce(inplace ? MPI_IN_PLACE : in, got, TN, t->dt, mpi_op(o), tw));
            check_bytes(got, want, nb, hash, "Allreduce %s %s inplace=%d", t->name, op_names[o],
                        inplace);
            /* Reduce at a rotating root, in place at the root every other time. */
            int root = call % tp;
            make(t, o, tr, 0, tp, TN, salt + 1, in, want);
            memcpy(got, in, nb);
            if (!inplace)
                memset(got, 0x5a, nb);
            OK(MPI_Reduce(inplace && tr == root ? MPI_IN_PLACE : in, tr == root ? got : NULL, TN,
                          t->dt, mpi_op(o), root, tw));
            if (tr == root)
                check_bytes(got, want, nb, hash, "Reduce %s %s root=%d inplace=%d", t->name,
                            op_names[o], root, inplace);
            /* Reduce_local: two ranks' inputs. */
            make(t, o, tr, tr, tr + 2, TN, salt + 2, in, want);
            make(t, o, tr + 1, tr, tr + 2, TN, salt + 2, in2, want2);
            OK(MPI_Reduce_local(in, in2, TN, t->dt, mpi_op(o)));
            check_bytes(in2, want, nb, hash, "Reduce_local %s %s", t->name, op_names[o]);
#if DROPIN_MPI4
            make(t, o, tr, tr, tr + 2, TN, salt + 3, in, want);
            make(t, o, tr + 1, tr, tr + 2, TN, salt + 3, in2, want2);
            OK(MPI_Reduce_local_c(in, in2, TN, t->dt, mpi_op(o)));
            check_bytes(in2, want, nb, hash, "Reduce_local_c %s %s", t->name, op_names[o]);
#endif
        }
    }
}

/* Every type once more, nonblocking, all outstanding together. */
void test_types_batch(MPI_Comm comm)
{
    tdesc_t T[32];
    int nt, salt = 5900;
    tw = comm;
    MPI_Comm_rank(comm, &tr);
    MPI_Comm_size(comm, &tp);
    type_table(T, &nt);
    MPI_Request rq[64];
    size_t sz = (size_t)nt * 2 * TN * 8;
    unsigned char *ins = xmalloc(sz), *gots = xmalloc(sz), *wants = xmalloc(sz);
    /* per type: an Iallreduce and an Ireduce (to a rotating root) with two
     * of its ops */
    for (int k = 0; k < 2 * nt; k++) {
        const tdesc_t *t = &T[k / 2];
        int o = 0, root = (k / 2) % tp;
        while (!(t->ops & (1 << ((o + k) % O_N))))
            o++;
        o = (o + k) % O_N;
        unsigned char *in = ins + (size_t)k * TN * 8, *got = gots + (size_t)k * TN * 8;
        make(t, o, tr, 0, tp, TN, salt + k, in, wants + (size_t)k * TN * 8);
        memset(got, 0x5a, TN * 8);
        if (k % 2 == 0)
            OK(MPI_Iallreduce(in, got, TN, t->dt, mpi_op(o), tw, &rq[k]));
        else
            OK(MPI_Ireduce(in, tr == root ? got : NULL, TN, t->dt, mpi_op(o), root, tw, &rq[k]));
    }
    complete_all(rq, 2 * nt, tw, 2);
    for (int k = 0; k < 2 * nt; k++)
        if (k % 2 == 0 || tr == (k / 2) % tp)
            check_bytes(gots + (size_t)k * TN * 8, wants + (size_t)k * TN * 8, TN * T[k / 2].size,
                        T[k / 2].kind != K_FLOAT, "%s %s (batch)", k % 2 ? "Ireduce" : "Iallreduce",
                        T[k / 2].name);
    free(ins);
    free(gots);
    free(wants);
}

/* ---- user operations ---- */
static long g_userop_bad;
static MPI_Datatype g_contig3, g_vec;
static MPI_Op g_sum_op;

/* g_vec = MPI_Type_vector(3, 2, 4, MPI_INT): ints 0,1,4,5,8,9 of 10. */
static int in_vec(int j)
{
    j %= 10;
    return j == 0 || j == 1 || j == 4 || j == 5 || j == 8 || j == 9;
}

/* Commutative: sum, on MPI_INT, MPI_DOUBLE, contiguous(3, MPI_INT) and the
 * vector type (whose gaps it must leave alone). */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout, n = *len;
    if (*dt == MPI_DOUBLE) {
        for (int i = 0; i < n; i++)
            ((double *)inout)[i] += ((double *)in)[i];
    } else if (*dt == MPI_INT || *dt == g_contig3) {
        n *= *dt == MPI_INT ? 1 : 3;
        for (int i = 0; i < n; i++)
            b[i] += a[i];
    } else if (*dt == g_vec) {
        for (int i = 0; i < n * 10; i++)
            if (in_vec(i))
                b[i] += a[i];
    } else {
        g_userop_bad++;
    }
}

/* Non-commutative: the product of 2x2 int matrices, in (left) x inout. */
static void user_matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    if (*dt != MPI_INT || *len % 4) {
        g_userop_bad++;
        return;
    }
    int *a = in, *b = inout;
    for (int m = 0; m < *len; m += 4) {
        int c0 = a[m] * b[m] + a[m + 1] * b[m + 2], c1 = a[m] * b[m + 1] + a[m + 1] * b[m + 3];
        int c2 = a[m + 2] * b[m] + a[m + 3] * b[m + 2];
        int c3 = a[m + 2] * b[m + 1] + a[m + 3] * b[m + 3];
        b[m] = c0, b[m + 1] = c1, b[m + 2] = c2, b[m + 3] = c3;
    }
}

/* A struct of int and double, summed field by field. */
typedef struct pair {
    int i;
    double d;
} pair_t;
static void user_pair_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++) {
        ((pair_t *)inout)[k].i += ((pair_t *)in)[k].i;
        ((pair_t *)inout)[k].d += ((pair_t *)in)[k].d;
    }
}

/* A struct of int and float: heterogeneous but without a hole. */
typedef struct intfloat {
    int i;
    float f;
} intfloat_t;
static void user_intfloat_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++) {
        ((intfloat_t *)inout)[k].i += ((intfloat_t *)in)[k].i;
        ((intfloat_t *)inout)[k].f += ((intfloat_t *)in)[k].f;
    }
}

/* Rank q's matrix number m: entries 0..2, chosen so that order matters. */
static void mat_of(int q, int m, int salt, int *x)
{
    x[0] = 1, x[1] = (q + m + salt) % 3, x[2] = (2 * q + m + salt + 1) % 2, x[3] = 1;
}
static void mat_want(int lo, int hi, int m, int salt, int *acc)
{
    int x[4];
    mat_of(lo, m, salt, acc);
    for (int q = lo + 1; q < hi; q++) {
        mat_of(q, m, salt, x);
        int len = 4;
        MPI_Datatype dt = MPI_INT;
        int tmp[4] = {x[0], x[1], x[2], x[3]};
        user_matmul(acc, tmp, &len, &dt); /* acc x tmp */
        memcpy(acc, tmp, sizeof tmp);
    }
}

#define NM 3 /* matrices per call */
static void test_user_ops(void)
{
    MPI_Op comm_op = g_sum_op, noncomm_op, pair_op;
    MPI_Op_create(user_matmul, 0, &noncomm_op);
    MPI_Op_create(user_pair_sum, 1, &pair_op);
    int in[4 * NM], got[4 * NM], want[4 * NM], salt = 6000;
    /* Non-commutative: Allreduce, Reduce at each root (up to 4), Scan, Exscan. */
    for (int k = 0; k < 7; k++, salt++) {
        int root = k < 4 ? k % tp : 0, lo = 0, hi = tp;
        for (int m = 0; m < NM; m++)
            mat_of(tr, m, salt, in + 4 * m);
        fill_int(got, 4 * NM, SENTINEL);
        const char *what = k < 4 ? "Reduce" : k == 4 ? "Allreduce" : k == 5 ? "Scan" : "Exscan";
        if (k < 4)
            OK(MPI_Reduce(in, tr == root ? got : NULL, 4 * NM, MPI_INT, noncomm_op, root, tw));
        else if (k == 4)
            OK(MPI_Allreduce(in, got, 4 * NM, MPI_INT, noncomm_op, tw));
        else if (k == 5)
            OK(MPI_Scan(in, got, 4 * NM, MPI_INT, noncomm_op, tw)), hi = tr + 1;
        else
            OK(MPI_Exscan(in, got, 4 * NM, MPI_INT, noncomm_op, tw)), hi = tr;
        if ((k < 4 && tr != root) || hi == 0)
            continue;
        for (int m = 0; m < NM; m++)
            mat_want(lo, hi, m, salt, want + 4 * m);
        check_ints(got, want, 4 * NM, "%s non-commutative matrix product root=%d", what, root);
    }
    /* Commutative user op on MPI_INT: Allreduce, Reduce, Reduce_scatter_block,
     * Scan, Iallreduce; and on MPI_DOUBLE. */
    int p = tp, n = 5, big[5 * 8], bgot[5 * 8], bwant[5 * 8];
    for (int i = 0; i < n * p; i++) {
        big[i] = val(tr, i, salt);
        bwant[i] = 0;
        for (int q = 0; q < p; q++)
            bwant[i] += val(q, i, salt);
    }
    OK(MPI_Allreduce(big, bgot, n, MPI_INT, comm_op, tw));
    check_ints(bgot, bwant, (size_t)n, "Allreduce commutative user op");
    fill_int(bgot, n, SENTINEL);
    OK(MPI_Reduce(big, tr == p - 1 ? bgot : NULL, n, MPI_INT, comm_op, p - 1, tw));
    if (tr == p - 1)
        check_ints(bgot, bwant, (size_t)n, "Reduce commutative user op");
    OK(MPI_Reduce_scatter_block(big, bgot, n, MPI_INT, comm_op, tw));
    check_ints(bgot, bwant + n * tr, (size_t)n, "Reduce_scatter_block commutative user op");
    MPI_Request rq;
    OK(MPI_Iallreduce(big, bgot, n * p, MPI_INT, comm_op, tw, &rq));
    complete_all(&rq, 1, tw, 4);
    check_ints(bgot, bwant, (size_t)(n * p), "Iallreduce commutative user op");
    OK(MPI_Scan(big, bgot, n, MPI_INT, comm_op, tw));
    for (int i = 0; i < n; i++) {
        bwant[i] = 0;
        for (int q = 0; q <= tr; q++)
            bwant[i] += val(q, i, salt);
    }
    check_ints(bgot, bwant, (size_t)n, "Scan commutative user op");
    double dv[5], dg[5], dw[5];
    for (int i = 0; i < 5; i++) {
        dv[i] = val(tr, i, salt + 1);
        dw[i] = 0;
        for (int q = 0; q < p; q++)
            dw[i] += val(q, i, salt + 1);
    }
    OK(MPI_Allreduce(dv, dg, 5, MPI_DOUBLE, comm_op, tw));
    check_bytes(dg, dw, sizeof dg, 0, "Allreduce commutative user op on MPI_DOUBLE");
    /* A struct of int and double (heterogeneous, with a hole) with a user
     * op in MPI_Scan; also Bcast (served: packed). */
    MPI_Datatype pt, pt0;
    int bl[2] = {1, 1};
    MPI_Aint dsp[2] = {offsetof(pair_t, i), offsetof(pair_t, d)};
    MPI_Datatype tys[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, dsp, tys, &pt0);
    MPI_Type_create_resized(pt0, 0, sizeof(pair_t), &pt);
    MPI_Type_commit(&pt);
    pair_t ps[3], pg[3], pw[3];
    for (int k = 0; k < 3; k++) {
        ps[k].i = val(tr, k, salt), ps[k].d = val(tr, k + 10, salt);
        pw[k].i = 0, pw[k].d = 0;
        for (int q = 0; q <= tr; q++)
            pw[k].i += val(q, k, salt), pw[k].d += val(q, k + 10, salt);
    }
    OK(MPI_Scan(ps, pg, 3, pt, pair_op, tw));
    int okp = 1;
    for (int k = 0; k < 3; k++)
        okp &= pg[k].i == pw[k].i && pg[k].d == pw[k].d;
    check(okp, "Scan struct{int,double} user op");
    for (int k = 0; k < 3; k++)
        pg[k].i = tr == 1 % p ? val(9, k, salt) : 0, pg[k].d = tr == 1 % p ? k + 0.5 : 0;
    OK(MPI_Bcast(pg, 3, pt, 1 % p, tw));
    okp = 1;
    for (int k = 0; k < 3; k++)
        okp &= pg[k].i == val(9, k, salt) && pg[k].d == k + 0.5;
    check(okp, "Bcast struct{int,double} root=%d", 1 % p);
    MPI_Type_free(&pt);
    MPI_Type_free(&pt0);
    /* struct {int, float}: heterogeneous and contiguous, in MPI_Exscan. */
    MPI_Op if_op;
    MPI_Datatype ift;
    MPI_Aint ifd[2] = {offsetof(intfloat_t, i), offsetof(intfloat_t, f)};
    MPI_Datatype ifty[2] = {MPI_INT, MPI_FLOAT};
    MPI_Op_create(user_intfloat_sum, 1, &if_op);
    MPI_Type_create_struct(2, bl, ifd, ifty, &ift);
    MPI_Type_commit(&ift);
    intfloat_t is[4], ig[4], iw[4];
    for (int k = 0; k < 4; k++) {
        is[k].i = val(tr, k, salt + 2), is[k].f = (float)val(tr, k + 10, salt + 2);
        ig[k].i = SENTINEL, ig[k].f = 0;
        iw[k].i = 0, iw[k].f = 0;
        for (int q = 0; q < tr; q++)
            iw[k].i += val(q, k, salt + 2), iw[k].f += (float)val(q, k + 10, salt + 2);
    }
    OK(MPI_Exscan(is, ig, 4, ift, if_op, tw));
    if (tr > 0) {
        okp = 1;
        for (int k = 0; k < 4; k++)
            okp &= ig[k].i == iw[k].i && ig[k].f == iw[k].f;
        check(okp, "Exscan struct{int,float} user op");
    }
    MPI_Type_free(&ift);
    MPI_Op_free(&if_op);
    check(g_userop_bad == 0, "user op called with a wrong datatype or length (%ld times)",
          g_userop_bad);
    MPI_Op_free(&noncomm_op);
    MPI_Op_free(&pair_op);
}

/* ---- derived types ---- */
/* MPI defines the predefined operations on predefined types only (both
 * MPIs reject MPI_SUM on a derived type with MPI_ERR_OP), so reductions on
 * derived types here use the commutative user op. */
static void test_derived(void)
{
    int p = tp, r = tr, salt = 7000, root;
    int *buf = xmalloc(sizeof(int) * 10 * 8 * 2), *want = xmalloc(sizeof(int) * 10 * 8 * 2);
    int *snd = xmalloc(sizeof(int) * 20);

    /* Bcast of 2 vectors (served: packed locally); the gaps stay. */
    root = 2 % p;
    for (int j = 0; j < 20; j++) {
        buf[j] = r == root ? val(root, j, salt) : SENTINEL;
        want[j] = r == root || in_vec(j) ? val(root, j, salt) : SENTINEL;
    }
    OK(MPI_Bcast(buf, 2, g_vec, root, tw));
    check_ints(buf, want, 20, "Bcast vector type root=%d", root);

    /* Gather of one vector per rank, received as vectors and as 6 ints. */
    root = (p - 1) / 2;
    for (int j = 0; j < 10; j++)
        snd[j] = val(r, j, salt + 1);
    fill_int(buf, (size_t)p * 10, SENTINEL);
    OK(MPI_Gather(snd, 1, g_vec, r == root ? buf : NULL, 1, g_vec, root, tw));
    for (int j = 0; j < p * 10; j++)
        want[j] = in_vec(j) ? val(j / 10, j % 10, salt + 1) : SENTINEL;
    if (r == root)
        check_ints(buf, want, (size_t)p * 10, "Gather vector type root=%d", root);
    OK(MPI_Gather(snd, 1, g_vec, r == root ? buf : NULL, 6, MPI_INT, root, tw));
    for (int q = 0, k = 0; q < p; q++)
        for (int j = 0; j < 10; j++)
            if (in_vec(j))
                want[k++] = val(q, j, salt + 1);
    if (r == root)
        check_ints(buf, want, (size_t)p * 6, "Gather vector type into MPI_INT root=%d", root);

    /* Reduce on the vector type with the user op: MPI's (the drop-in falls
     * back); only the vector's ints are compared. */
    root = p - 1;
    for (int j = 0; j < 20; j++) {
        snd[j] = val(r, j, salt + 2);
        buf[j] = SENTINEL;
        want[j] = SENTINEL;
        if (in_vec(j)) {
            want[j] = 0;
            for (int q = 0; q < p; q++)
                want[j] += val(q, j, salt + 2);
        }
    }
    OK(MPI_Reduce(snd, r == root ? buf : NULL, 2, g_vec, g_sum_op, root, tw));
    for (int j = 0; j < 20; j++)
        if (!in_vec(j))
            buf[j] = SENTINEL;
    if (r == root)
        check_ints(buf, want, 20, "Reduce user op on a vector type root=%d", root);

    /* contiguous(3, MPI_INT): Allreduce and Reduce (in place) with the user
     * op (MPI's), Gather and Allgather (served). */
    for (int j = 0; j < 15; j++) {
        snd[j] = val(r, j, salt + 3);
        want[j] = 0;
        for (int q = 0; q < p; q++)
            want[j] += val(q, j, salt + 3);
    }
    OK(MPI_Allreduce(snd, buf, 5, g_contig3, g_sum_op, tw));
    check_ints(buf, want, 15, "Allreduce user op on contiguous(3, MPI_INT)");
    root = p / 2;
    memcpy(buf, snd, sizeof(int) * 15);
    OK(MPI_Reduce(r == root ? MPI_IN_PLACE : snd, buf, 5, g_contig3, g_sum_op, root, tw));
    if (r == root)
        check_ints(buf, want, 15, "Reduce user op on contiguous(3, MPI_INT) in place root=%d",
                   root);
    root = 0;
    for (int j = 0; j < 6; j++)
        snd[j] = val(r, j, salt + 5);
    for (int j = 0; j < 6 * p; j++)
        want[j] = val(j / 6, j % 6, salt + 5);
    fill_int(buf, (size_t)p * 6, SENTINEL);
    OK(MPI_Gather(snd, 2, g_contig3, buf, 2, g_contig3, root, tw));
    if (r == root)
        check_ints(buf, want, (size_t)p * 6, "Gather contiguous(3, MPI_INT) root=%d", root);
    fill_int(buf, (size_t)p * 6, SENTINEL);
    OK(MPI_Allgather(snd, 2, g_contig3, buf, 6, MPI_INT, tw));
    check_ints(buf, want, (size_t)p * 6, "Allgather contiguous(3, MPI_INT) into MPI_INT");
    free(buf);
    free(want);
    free(snd);
}

/* MINLOC/MAXLOC, long double and double complex: MPI's own. */
static void test_mpi_only(void)
{
    int p = tp, r = tr, salt = 8000;
    struct {
        int v, i;
    } a[4], g[4], w[4];
    for (int k = 0; k < 4; k++) {
        a[k].v = val(r, k, salt) % 5, a[k].i = r;
        w[k].v = val(0, k, salt) % 5, w[k].i = 0;
        for (int q = 1; q < p; q++)
            if (val(q, k, salt) % 5 < w[k].v)
                w[k].v = val(q, k, salt) % 5, w[k].i = q;
    }
    OK(MPI_Allreduce(a, g, 4, MPI_2INT, MPI_MINLOC, tw));
    check_bytes(g, w, sizeof g, 1, "Allreduce MINLOC MPI_2INT");
    for (int k = 0; k < 4; k++) {
        w[k].v = val(0, k, salt) % 5, w[k].i = 0;
        for (int q = 1; q < p; q++)
            if (val(q, k, salt) % 5 > w[k].v)
                w[k].v = val(q, k, salt) % 5, w[k].i = q;
    }
    memset(g, 0, sizeof g);
    OK(MPI_Reduce(a, r == p - 1 ? g : NULL, 4, MPI_2INT, MPI_MAXLOC, p - 1, tw));
    if (r == p - 1)
        check_bytes(g, w, sizeof g, 1, "Reduce MAXLOC MPI_2INT root=%d", p - 1);
    struct {
        double v;
        int i;
    } da[3], dg[3];
    for (int k = 0; k < 3; k++)
        da[k].v = val(r, k, salt + 1) % 7, da[k].i = r;
    OK(MPI_Allreduce(da, dg, 3, MPI_DOUBLE_INT, MPI_MAXLOC, tw));
    int ok = 1;
    for (int k = 0; k < 3; k++) {
        double best = val(0, k, salt + 1) % 7;
        int bi = 0;
        for (int q = 1; q < p; q++)
            if (val(q, k, salt + 1) % 7 > best)
                best = val(q, k, salt + 1) % 7, bi = q;
        ok &= dg[k].v == best && dg[k].i == bi;
    }
    check(ok, "Allreduce MAXLOC MPI_DOUBLE_INT");

    long double la[5], lg[5];
    double complex ca[5], cg[5];
    for (int k = 0; k < 5; k++) {
        la[k] = val(r, k, salt + 2);
        ca[k] = val(r, k, salt + 3) + val(r, k + 5, salt + 3) * I;
    }
    OK(MPI_Allreduce(la, lg, 5, MPI_LONG_DOUBLE, MPI_SUM, tw));
    OK(MPI_Allreduce(ca, cg, 5, MPI_C_DOUBLE_COMPLEX, MPI_SUM, tw));
    int okl = 1, okc = 1;
    for (int k = 0; k < 5; k++) {
        long double sl = 0;
        double sr = 0, si = 0;
        for (int q = 0; q < p; q++)
            sl += val(q, k, salt + 2), sr += val(q, k, salt + 3), si += val(q, k + 5, salt + 3);
        okl &= lg[k] == sl;
        okc &= creal(cg[k]) == sr && cimag(cg[k]) == si;
    }
    check(okl, "Allreduce SUM MPI_LONG_DOUBLE");
    check(okc, "Allreduce SUM MPI_C_DOUBLE_COMPLEX");
    memset(cg, 0, sizeof cg);
    OK(MPI_Reduce(ca, r == 0 ? cg : NULL, 5, MPI_C_DOUBLE_COMPLEX, MPI_PROD, 0, tw));
    if (r == 0) {
        ok = 1;
        for (int k = 0; k < 5; k++) {
            double complex pr = 1;
            for (int q = 0; q < p; q++)
                pr *= val(q, k, salt + 3) + val(q, k + 5, salt + 3) * I;
            ok &= cabs(cg[k] - pr) <= 1e-9 * (1 + cabs(pr));
        }
        check(ok, "Reduce PROD MPI_C_DOUBLE_COMPLEX");
    }
}

void test_types(MPI_Comm comm)
{
    tw = comm;
    MPI_Comm_rank(comm, &tr);
    MPI_Comm_size(comm, &tp);
    MPI_Type_contiguous(3, MPI_INT, &g_contig3);
    MPI_Type_commit(&g_contig3);
    MPI_Type_vector(3, 2, 4, MPI_INT, &g_vec);
    MPI_Type_commit(&g_vec);
    MPI_Op_create(user_sum, 1, &g_sum_op);
    test_predefined();
    test_derived();
    test_user_ops();
    test_mpi_only();
    MPI_Type_free(&g_contig3);
    MPI_Type_free(&g_vec);
    MPI_Op_free(&g_sum_op);
}
