/*
 * harness.c — see harness.h.  The reference is deliberately plain: it
 * moves blocks with memcpy and folds reductions serially in rank order
 * (x_0 (op) x_1 (op) ...), element block by block.
 */
#include "harness.h"

#include "algo/patterns.h"
#include "base/dtype.h"
#include "algo/validate.h"
#include "select/catalog.h"
#include "sim/engine.h"

#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64
#define GUARD_BYTE 0xEE
#define SENTINEL 0xCD

ic_op_t *noncomm_op;
double harness_last_time;
size_t harness_last_msgs, harness_last_bytes;

/* An elementwise, associative, non-commutative operation: each int64
 * element packs an affine map v -> m*v + c modulo 2^32 (m in the high 32
 * bits, c in the low), and inout = in o inout (apply inout's map first):
 * (m1, c1) o (m2, c2) = (m1*m2, m1*c2 + c1). */
static void affine_compose(const void *in, void *inout, size_t count, ic_datatype_t dtype)
{
    (void)dtype;
    const uint64_t *x = in;
    uint64_t *y = inout;
    for (size_t i = 0; i < count; i++) {
        uint32_t m1 = (uint32_t)(x[i] >> 32), c1 = (uint32_t)x[i];
        uint32_t m2 = (uint32_t)(y[i] >> 32), c2 = (uint32_t)y[i];
        y[i] = (uint64_t)(uint32_t)(m1 * m2) << 32 | (uint32_t)(m1 * c2 + c1);
    }
}

void harness_init(void)
{
#ifdef __GLIBC__
    /* Keep freed buffers in the heap for the next case instead of giving
     * them back (large blocks are mmapped and unmapped by default): each
     * case would fault its buffers in again, and a page's first write is
     * dear on some VMs (docs/perf/first-touch.md): most of the matrices'
     * time on the AMD EPYC VM went there. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    if (!noncomm_op && ic_op_create(affine_compose, 0, &noncomm_op) != IC_OK) {
        fprintf(stderr, "cannot create the non-commutative op\n");
        exit(2);
    }
}

bool coll_reduces(ic_coll_t c)
{
    return c == IC_COLL_REDUCE || c == IC_COLL_ALLREDUCE || c == IC_COLL_REDUCE_SCATTER_BLOCK ||
           c == IC_COLL_REDUCE_SCATTER || c == IC_COLL_SCAN || c == IC_COLL_EXSCAN;
}

bool coll_rooted(ic_coll_t c)
{
    return c == IC_COLL_BCAST || c == IC_COLL_REDUCE || c == IC_COLL_SCATTER ||
           c == IC_COLL_SCATTERV || c == IC_COLL_GATHER || c == IC_COLL_GATHERV;
}

bool coll_v(ic_coll_t c)
{
    return c == IC_COLL_SCATTERV || c == IC_COLL_GATHERV || c == IC_COLL_ALLGATHERV ||
           c == IC_COLL_REDUCE_SCATTER || c == IC_COLL_ALLTOALLV;
}

bool coll_in_place_ok(ic_coll_t c) { return c != IC_COLL_BCAST && c != IC_COLL_BARRIER; }

/* ---- data ------------------------------------------------------------------ */

static uint32_t mix(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ (c + 0x165667B1u) * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

static bool is_unsigned(ic_datatype_t d)
{
    return d == IC_UINT8 || d == IC_UINT16 || d == IC_UINT32 || d == IC_UINT64;
}

static void store(ic_datatype_t d, void *p, double v)
{
    switch (d) {
    case IC_INT8: *(int8_t *)p = (int8_t)v; break;
    case IC_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    case IC_INT16: *(int16_t *)p = (int16_t)v; break;
    case IC_UINT16: *(uint16_t *)p = (uint16_t)v; break;
    case IC_INT32: *(int32_t *)p = (int32_t)v; break;
    case IC_UINT32: *(uint32_t *)p = (uint32_t)v; break;
    case IC_INT64: *(int64_t *)p = (int64_t)v; break;
    case IC_UINT64: *(uint64_t *)p = (uint64_t)v; break;
    case IC_FLOAT: *(float *)p = (float)v; break;
    case IC_DOUBLE: *(double *)p = v; break;
    case IC_BFLOAT16: *(uint16_t *)p = ic_float_to_bf16((float)v); break;
    case IC_FLOAT16: *(uint16_t *)p = ic_float_to_half((float)v); break;
    default: *(uint8_t *)p = (uint8_t)v; break;
    }
}

static double load(ic_datatype_t d, const void *p)
{
    switch (d) {
    case IC_FLOAT: return *(const float *)p;
    case IC_DOUBLE: return *(const double *)p;
    case IC_BFLOAT16: return ic_bf16_to_float(*(const uint16_t *)p);
    case IC_FLOAT16: return ic_half_to_float(*(const uint16_t *)p);
    default: return 0;
    }
}

/* Element i of rank r's input: values whose reduction is exact in every
 * order (small integers, +-1 and +-2 for products), raw bits otherwise. */
static void gen(const tcase_t *c, int r, size_t i, void *p)
{
    uint32_t h = mix(c->seed, (uint32_t)r, (uint32_t)i);
    size_t es = ic_datatype_size(c->dtype);
    ic_op_kind_t k = c->op ? c->op->kind : IC_OP_KIND_COUNT;
    bool fl = ic_dtype_is_float(c->dtype), un = is_unsigned(c->dtype);
    double v;
    if (c->random_floats && fl) {
        store(c->dtype, p, (double)(h % 2000001u) / 1000000.0 - 1.0);
        return;
    }
    if (c->agree && fl) {
        /* A mantissa in [-1, 1] scaled by 2^e, e in [-20, 20] (in [-6, 6]
         * for the 16-bit types, which overflow sooner). */
        int span = es == 2 ? 13 : 41;
        int e = (int)(mix(h, 0x5bd1e995u, (uint32_t)i) % (uint32_t)span) - span / 2;
        store(c->dtype, p, ldexp((double)(h % 2000001u) / 1000000.0 - 1.0, e));
        return;
    }
    if (c->op == noncomm_op && noncomm_op && es == 8) {
        /* Any map: every bit of the composition depends on the order. */
        uint64_t x = (uint64_t)h << 32 | mix(h, 0x68e31da4u, (uint32_t)i);
        memcpy(p, &x, sizeof x);
        return;
    }
    switch (k) {
    case IC_OP_SUM:
        v = c->dtype == IC_BFLOAT16 ? (double)(h % 3) - 1 : un ? h % 8 : (double)(h % 9) - 4;
        break;
    case IC_OP_PROD:
        if (fl)
            v = ((h & 1) ? -1.0 : 1.0) * ((r % 16 == 0 && (h & 2)) ? 2.0 : 1.0);
        else
            v = un ? h % 7 : (double)(h % 7) - 3;
        break;
    case IC_OP_MIN:
    case IC_OP_MAX:
        v = un ? h % 200 : (double)(h % 201) - 100;
        break;
    case IC_OP_LAND:
    case IC_OP_LOR:
    case IC_OP_LXOR:
        v = (h % 16 == 0) ? 0 : 1 + h % 2;
        break;
    default: /* bitwise ops and pure data movement: raw bits */
        for (size_t b = 0; b < es; b++)
            ((uint8_t *)p)[b] = (uint8_t)(mix(h, (uint32_t)b, 7u) >> 3);
        return;
    }
    store(c->dtype, p, v);
}

static void gen_block(const tcase_t *c, int r, size_t first, size_t n, uint8_t *out)
{
    size_t es = ic_datatype_size(c->dtype);
    if (c->dtype == IC_UINT8 && c->op && c->op->kind == IC_OP_MAX) {
        /* The 1 MiB real-process cases: the same values as gen(), in a
         * loop the compiler keeps tight (generating every rank's input is
         * what dominates those runs). */
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)(mix(c->seed, (uint32_t)r, (uint32_t)(first + i)) % 200);
        return;
    }
    /* The matrices' common cases, int32 and float sums: gen()'s values in
     * tight loops (generation dominates the large mesh cases). */
    if (c->op == IC_SUM && !c->random_floats &&
        (c->dtype == IC_INT32 || c->dtype == IC_FLOAT)) {
        for (size_t i = 0; i < n; i++) {
            int v = (int)(mix(c->seed, (uint32_t)r, (uint32_t)(first + i)) % 9u) - 4;
            if (c->dtype == IC_INT32) {
                int32_t x = v;
                memcpy(out + i * 4, &x, 4);
            } else {
                float x = (float)v;
                memcpy(out + i * 4, &x, 4);
            }
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        gen(c, r, first + i, out + i * es);
}

/* ---- counts ---------------------------------------------------------------- */

static void make_counts(const tcase_t *c, int salt, size_t *cnt)
{
    int p = c->p;
    int one = (int)(mix(c->seed, 99u, (uint32_t)salt) % (uint32_t)p);
    for (int i = 0; i < p; i++) {
        uint32_t h = mix(c->seed, (uint32_t)i, 1000u + (uint32_t)salt);
        switch (c->vcounts) {
        case V_EVEN: cnt[i] = c->count; break;
        case V_RANDOM: cnt[i] = h % (2 * c->count + 1); break;
        case V_ZEROS: cnt[i] = (i % 3 == 0) ? 0 : h % (2 * c->count + 1); break;
        case V_ONE: cnt[i] = i == one ? c->count * (size_t)p : 0; break;
        }
    }
}

static void make_displs(const tcase_t *c, const size_t *cnt, size_t *dsp, size_t **out)
{
    int p = c->p;
    size_t o = 0;
    if (c->vlayout == L_PACKED) {
        *out = NULL;
        return;
    }
    for (int k = 0; k < p; k++) {
        int i = c->vlayout == L_REVERSED ? p - 1 - k : k;
        dsp[i] = o;
        o += cnt[i] + (c->vlayout == L_GAPS ? 1 + (size_t)(i % 3) : 0);
    }
    *out = dsp;
}

static size_t disp_of(const size_t *cnt, const size_t *dsp, int i)
{
    if (dsp)
        return dsp[i];
    size_t o = 0;
    for (int k = 0; k < i; k++)
        o += cnt[k];
    return o;
}

/* ---- one case ------------------------------------------------------------------ */

typedef struct rank_state {
    uint8_t *sraw, *rraw;  /* allocations with guards */
    size_t sbytes, rbytes; /* declared buffer sizes */
    uint8_t *expect;       /* expected receive buffer */
    void *sendp, *recvp;
} rank_state_t;

typedef struct setup {
    const tcase_t *c;
    int p;
    int only; /* the one rank with buffers, or -1 for all */
    size_t es;
    size_t *counts, *dstore, *displs;
    size_t *own; /* counts_at_root: p x p, rank r's counts array (own[r][r] only is right) */
    size_t *sc, *sd, *rc, *rd; /* alltoallv, p x p */
    ic_coll_args_t *args;
    rank_state_t *rs;
    ic_phys_t phys; /* invented for an entry that needs one (below) */
    int *node_of;
    int keep; /* the slot of kept buffers (run_jobs' case index), or -1: malloc */
} setup_t;

/* ---- buffers kept from one case to the next ------------------------------------- */

/* Under AddressSanitizer, whose allocator ignores mallopt (harness_init)
 * and maps every large block afresh, the in-process cases keep each rank's
 * three large buffers (send, receive, expected) from one case to the next
 * instead of freeing them: otherwise every page faults again when the next
 * case writes it, and on some VMs a page's first write is dear
 * (docs/perf/first-touch.md).  Blocks above KEEP_MAX are not kept.  A kept
 * buffer's bytes beyond the case's size, and the whole buffer between
 * cases, are poisoned: an access past the case's buffer or after the case
 * still fails as it would with malloc and free.  Without ASan nothing is
 * kept (KEEP 0): kept buffers pinned glibc's heap and made the matrices
 * slower, and mallopt alone keeps their pages. */
#if defined(__SANITIZE_ADDRESS__)
#define HARNESS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HARNESS_ASAN 1
#endif
#endif
#ifdef HARNESS_ASAN
#define KEEP 1
#include <sanitizer/asan_interface.h>
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define KEEP 0
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define KEEP_MAX ((size_t)64 << 20)

typedef struct kept {
    uint8_t *p;
    size_t cap;
} kept_t;

static kept_t *kept;
static size_t nkept;

static kept_t *kept_slot(int keep, int r, int kind)
{
    size_t i = ((size_t)r * 2 + (size_t)keep) * 3 + (size_t)kind;
    if (i >= nkept) {
        size_t n = 2 * i + 6;
        kept_t *k = realloc(kept, n * sizeof(kept_t));
        if (!k)
            return NULL;
        memset(k + nkept, 0, (n - nkept) * sizeof(kept_t));
        kept = k;
        nkept = n;
    }
    return &kept[i];
}

/* A buffer of bytes for rank r's buffer kind (0 send, 1 receive, 2 expected). */
static uint8_t *buf_get(int keep, int r, int kind, size_t bytes)
{
    kept_t *k = KEEP && keep >= 0 && bytes <= KEEP_MAX ? kept_slot(keep, r, kind) : NULL;
    if (!k)
        return malloc(bytes);
    if (k->cap < bytes) {
        free(k->p);
        k->p = malloc(bytes);
        k->cap = k->p ? bytes : 0;
        if (!k->p)
            return NULL;
    }
    UNPOISON(k->p, bytes);
    POISON(k->p + bytes, k->cap - bytes);
    return k->p;
}

static void buf_put(int keep, int r, int kind, uint8_t *b)
{
    kept_t *k = KEEP && keep >= 0 && b ? kept_slot(keep, r, kind) : NULL;
    if (k && k->p == b)
        POISON(k->p, k->cap);
    else
        free(b);
}

static void fold_into(const tcase_t *c, uint8_t *acc, const uint8_t *x, size_t n, uint8_t *tmp)
{
    /* acc = acc (op) x, with the library's kernel applied serially. */
    size_t es = ic_datatype_size(c->dtype);
    memcpy(tmp, x, n * es);
    ic_reduce_apply(c->op, c->dtype, acc, tmp, n);
    memcpy(acc, tmp, n * es);
}

/* Rank r's input vector (n elements, element indices from 0). */
static uint8_t *input_of(const setup_t *s, int r, size_t n)
{
    uint8_t *v = malloc(n * s->es + 1);
    if (v)
        gen_block(s->c, r, 0, n, v);
    return v;
}

static size_t sum(const size_t *v, int n)
{
    size_t t = 0;
    for (int i = 0; i < n; i++)
        t += v[i];
    return t;
}

static bool has_buffers(const setup_t *s, int r) { return s->only < 0 || s->only == r; }

static int alloc_buffers(setup_t *s)
{
    for (int r = 0; r < s->p; r++) {
        if (!has_buffers(s, r))
            continue;
        rank_state_t *x = &s->rs[r];
        ic_args_buffer_bytes(&s->args[r], r, s->p, &x->sbytes, &x->rbytes);
        x->sraw = buf_get(s->keep, r, 0, x->sbytes + 2 * GUARD);
        x->rraw = buf_get(s->keep, r, 1, x->rbytes + 2 * GUARD);
        x->expect = buf_get(s->keep, r, 2, x->rbytes + 1);
        if (!x->sraw || !x->rraw || !x->expect)
            return -1;
        memset(x->sraw, GUARD_BYTE, x->sbytes + 2 * GUARD);
        memset(x->rraw, GUARD_BYTE, x->rbytes + 2 * GUARD);
        memset(x->rraw + GUARD, SENTINEL, x->rbytes);
        x->sendp = x->sraw + GUARD;
        x->recvp = x->rraw + GUARD;
    }
    return 0;
}

/* Fills inputs (in the send buffer, or in the receive buffer for in
 * place) and computes every expected receive buffer. */
static int prepare(setup_t *s)
{
    const tcase_t *c = s->c;
    int p = s->p;
    size_t es = s->es, n = c->count;
    ic_coll_t k = c->coll;
    int ok = 0;
    uint8_t *fold = NULL, *tmp = NULL;
    size_t vec = k == IC_COLL_REDUCE_SCATTER ? sum(s->counts, p)
               : k == IC_COLL_REDUCE_SCATTER_BLOCK ? n * (size_t)p : n;
    if (coll_reduces(k)) {
        fold = malloc(vec * es + 1);
        tmp = malloc(vec * es + 1);
        if (!fold || !tmp)
            goto out;
    }
    for (int r = 0; r < p; r++) {
        if (!has_buffers(s, r))
            continue;
        rank_state_t *x = &s->rs[r];
        bool ip = s->args[r].in_place;
        uint8_t *dst = ip ? x->recvp : x->sendp;
        switch (k) {
        case IC_COLL_BCAST:
            if (r == c->root)
                gen_block(c, r, 0, n, x->recvp);
            break;
        case IC_COLL_SCATTER:
        case IC_COLL_SCATTERV:
            if (r == c->root)
                gen_block(c, r, 0, x->sbytes / es, x->sendp);
            break;
        case IC_COLL_GATHER:
        case IC_COLL_GATHERV:
        case IC_COLL_ALLGATHER:
        case IC_COLL_ALLGATHERV: {
            size_t m = s->counts ? s->counts[r] : n;
            if (ip)
                dst = (uint8_t *)x->recvp +
                      (s->counts ? disp_of(s->counts, s->displs, r) : (size_t)r * n) * es;
            gen_block(c, r, 0, m, dst);
            break;
        }
        case IC_COLL_ALLTOALL:
            gen_block(c, r, 0, n * (size_t)p, dst);
            break;
        case IC_COLL_ALLTOALLV:
            gen_block(c, r, 0, (ip ? x->rbytes : x->sbytes) / es, dst);
            break;
        case IC_COLL_BARRIER:
            break;
        default: /* reductions */
            gen_block(c, r, 0, vec, dst);
            break;
        }
        memcpy(x->expect, x->recvp, x->rbytes);
    }
    /* Expected results, from the generator (other ranks' buffers may not
     * exist in this process). */
    for (int r = 0; r < p; r++) {
        if (!has_buffers(s, r))
            continue;
        rank_state_t *x = &s->rs[r];
        switch (k) {
        case IC_COLL_BCAST:
            gen_block(c, c->root, 0, n, x->expect);
            break;
        case IC_COLL_SCATTER:
            if (x->rbytes)
                gen_block(c, c->root, (size_t)r * n, n, x->expect);
            break;
        case IC_COLL_SCATTERV:
            if (x->rbytes)
                gen_block(c, c->root, disp_of(s->counts, s->displs, r), s->counts[r], x->expect);
            break;
        case IC_COLL_GATHER:
        case IC_COLL_GATHERV:
        case IC_COLL_ALLGATHER:
        case IC_COLL_ALLGATHERV:
            if (x->rbytes == 0)
                break;
            for (int i = 0; i < p; i++) {
                size_t m = s->counts ? s->counts[i] : n;
                size_t d = s->counts ? disp_of(s->counts, s->displs, i) : (size_t)i * n;
                uint8_t *blk = malloc(m * es + 1);
                if (!blk)
                    goto out;
                gen_block(c, i, 0, m, blk);
                memcpy(x->expect + d * es, blk, m * es);
                free(blk);
            }
            break;
        case IC_COLL_ALLTOALL:
            for (int j = 0; j < p; j++) {
                uint8_t *blk = malloc(n * es + 1);
                if (!blk)
                    goto out;
                gen_block(c, j, (size_t)r * n, n, blk);
                memcpy(x->expect + (size_t)j * n * es, blk, n * es);
                free(blk);
            }
            break;
        case IC_COLL_ALLTOALLV:
            for (int j = 0; j < p; j++) {
                /* Block r of rank j's send layout lands at rd[r][j]. */
                size_t m = s->rc[(size_t)r * p + j];
                size_t from = s->sd[(size_t)j * p + r];
                uint8_t *blk = malloc(m * es + 1);
                if (!blk)
                    goto out;
                gen_block(c, j, from, m, blk);
                memcpy(x->expect + s->rd[(size_t)r * p + j] * es, blk, m * es);
                free(blk);
            }
            break;
        case IC_COLL_BARRIER:
            break;
        default:
            break; /* reductions: below, one serial fold for all ranks */
        }
    }
    if (coll_reduces(k)) {
        /* fold = x_0 (op) ... (op) x_i, grown one rank at a time: scan
         * takes it after rank i, exscan after rank i-1, the others at the
         * end. */
        for (int i = 0; i < p; i++) {
            uint8_t *in = input_of(s, i, vec);
            if (!in)
                goto out;
            if (i == 0)
                memcpy(fold, in, vec * es);
            else
                fold_into(c, fold, in, vec, tmp);
            free(in);
            int who = k == IC_COLL_SCAN ? i : k == IC_COLL_EXSCAN ? i + 1 : -1;
            if (who >= 0 && who < p && has_buffers(s, who))
                memcpy(s->rs[who].expect, fold, vec * es);
        }
        for (int r = 0; r < p && k != IC_COLL_SCAN && k != IC_COLL_EXSCAN; r++) {
            rank_state_t *x = &s->rs[r];
            if (x->rbytes == 0 || !has_buffers(s, r))
                continue;
            if (k == IC_COLL_REDUCE_SCATTER_BLOCK)
                memcpy(x->expect, fold + (size_t)r * n * es, n * es);
            else if (k == IC_COLL_REDUCE_SCATTER)
                memcpy(x->expect, fold + disp_of(s->counts, NULL, r) * es, s->counts[r] * es);
            else
                memcpy(x->expect, fold, vec * es);
        }
    }
    ok = 1;
out:
    free(fold);
    free(tmp);
    return ok ? 0 : -1;
}

static bool close_enough(const tcase_t *c, const uint8_t *got, const uint8_t *want, size_t bytes)
{
    if (!c->random_floats || !ic_dtype_is_float(c->dtype))
        return memcmp(got, want, bytes) == 0;
    size_t es = ic_datatype_size(c->dtype);
    double eps = c->dtype == IC_DOUBLE ? 1e-15 : c->dtype == IC_FLOAT ? 1e-6 : 1e-2;
    double tol = 4.0 * c->p * c->p * eps; /* |sum| of p terms in [-1, 1] */
    for (size_t i = 0; i < bytes / es; i++) {
        double g = load(c->dtype, got + i * es), w = load(c->dtype, want + i * es);
        if (fabs(g - w) > tol)
            return false;
    }
    return true;
}

/* Agreement cases: element i of the result within 2*p*eps*sum(|x_r[i]|)
 * of the reference (the error bound of any order of p-1 roundings). */
static bool within_bound(const tcase_t *c, const uint8_t *got, const uint8_t *want, size_t bytes)
{
    size_t es = ic_datatype_size(c->dtype);
    double eps = c->dtype == IC_DOUBLE ? 0x1p-52 : c->dtype == IC_FLOAT ? 0x1p-23
               : c->dtype == IC_BFLOAT16 ? 0x1p-7 : 0x1p-10;
    for (size_t i = 0; i < bytes / es; i++) {
        double sum = 0;
        for (int r = 0; r < c->p; r++) {
            uint8_t x[64] = {0};
            gen(c, r, i, x);
            sum += fabs(load(c->dtype, x));
        }
        double g = load(c->dtype, got + i * es), w = load(c->dtype, want + i * es);
        if (!(fabs(g - w) <= 2.0 * c->p * eps * sum))
            return false;
    }
    return true;
}

/* Agreement cases of allreduce: every rank's result is rank 0's, bit for bit. */
static int verify_agree(const setup_t *s, char *msg, size_t len)
{
    const rank_state_t *x0 = &s->rs[0];
    for (int r = 1; r < s->p; r++) {
        const rank_state_t *x = &s->rs[r];
        if (x->rbytes != x0->rbytes || memcmp(x->recvp, x0->recvp, x0->rbytes) == 0)
            continue;
        size_t b = 0;
        while (((const uint8_t *)x->recvp)[b] == ((const uint8_t *)x0->recvp)[b])
            b++;
        snprintf(msg, len, "ranks 0 and %d hold different bits at byte %zu of %zu", r, b,
                 x0->rbytes);
        return 1;
    }
    return 0;
}

static int verify(const setup_t *s, char *msg, size_t len)
{
    if (s->c->agree && s->c->coll == IC_COLL_ALLREDUCE && s->only < 0 &&
        ic_dtype_is_float(s->c->dtype) && verify_agree(s, msg, len))
        return 1;
    for (int r = 0; r < s->p; r++) {
        if (!has_buffers(s, r))
            continue;
        const rank_state_t *x = &s->rs[r];
        for (size_t g = 0; g < GUARD; g++) {
            if (x->rraw[g] != GUARD_BYTE || x->rraw[GUARD + x->rbytes + g] != GUARD_BYTE ||
                x->sraw[g] != GUARD_BYTE || x->sraw[GUARD + x->sbytes + g] != GUARD_BYTE) {
                snprintf(msg, len, "rank %d: a guard byte around a buffer was overwritten", r);
                return 1;
            }
        }
        bool ok = s->c->agree && ic_dtype_is_float(s->c->dtype)
                      ? within_bound(s->c, x->recvp, x->expect, x->rbytes)
                      : close_enough(s->c, x->recvp, x->expect, x->rbytes);
        if (!ok) {
            size_t b = 0;
            while (b < x->rbytes && ((uint8_t *)x->recvp)[b] == x->expect[b])
                b++;
            snprintf(msg, len, "rank %d: receive buffer differs from the reference at byte %zu "
                     "of %zu (got %02x, want %02x)", r, b, x->rbytes,
                     b < x->rbytes ? ((uint8_t *)x->recvp)[b] : 0,
                     b < x->rbytes ? x->expect[b] : 0);
            return 1;
        }
    }
    return 0;
}

static void release(setup_t *s)
{
    for (int r = 0; s->rs && r < s->p; r++) {
        buf_put(s->keep, r, 0, s->rs[r].sraw);
        buf_put(s->keep, r, 1, s->rs[r].rraw);
        buf_put(s->keep, r, 2, s->rs[r].expect);
    }
    free(s->rs);
    free(s->args);
    free(s->counts);
    free(s->own);
    free(s->dstore);
    free(s->sc);
    free(s->sd);
    free(s->rc);
    free(s->rd);
    free(s->node_of);
}

/* A forced entry that needs a physical placement (U-mesh, U-torus,
 * U-cube) and a case that gives none: the ranks on distinct nodes of a
 * network of the entry's kind, in a seeded random order (so the chain
 * order is not the rank order), about twice as many nodes as ranks. */
static const ic_phys_t *invent_phys(setup_t *s, const tcase_t *c)
{
    const ic_algo_t *al = c->algo ? ic_catalog_find(c->coll, c->algo) : NULL;
    if (c->phys || !al || !(al->flags & IC_ALGO_PHYS))
        return c->phys;
    int p = c->p;
    ic_phys_t *ph = &s->phys;
    if (al->flags & IC_ALGO_ON_MESH || al->flags & IC_ALGO_ON_TORUS) {
        ph->kind = al->flags & IC_ALGO_ON_MESH ? IC_PHYS_MESH
                   : c->seed % 2              ? IC_PHYS_TORUS
                                              : IC_PHYS_TORUS_UNI;
        ph->ndims = 2;
        ph->dims[0] = 3;
        ph->dims[1] = (2 * p + 2) / 3;
        if (al->flags & IC_ALGO_WHOLE_MESH) { /* the whole mesh: a x b = p, a <= b */
            int a = 1;
            for (int f = 1; f * f <= p; f++)
                a = p % f ? a : f;
            ph->dims[0] = a;
            ph->dims[1] = p / a;
        }
    } else {
        ph->kind = IC_PHYS_HYPERCUBE;
        ph->ndims = ic_ceil_log2(p) + 1;
        for (int k = 0; k < ph->ndims; k++)
            ph->dims[k] = 2;
    }
    long nodes = ic_phys_nodes(ph);
    int *perm = malloc(sizeof(int) * (size_t)nodes);
    s->node_of = malloc(sizeof(int) * (size_t)p);
    if (!perm || !s->node_of) {
        free(perm);
        return NULL;
    }
    uint32_t x = c->seed * 2654435761u + 12345u;
    for (long i = 0; i < nodes; i++)
        perm[i] = (int)i;
    for (long i = nodes - 1; i > 0; i--) { /* Fisher-Yates, xorshift */
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        long j = (long)(x % (uint32_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int r = 0; r < p; r++)
        s->node_of[r] = perm[r];
    free(perm);
    ph->node_of = s->node_of;
    return ph;
}

/* Builds the per-rank arguments of the case. */
static int setup(setup_t *s, const tcase_t *c, int only, int keep)
{
    memset(s, 0, sizeof(*s));
    s->only = only;
    s->keep = keep;
    s->c = c;
    s->p = c->p;
    s->es = ic_datatype_size(c->dtype);
    int p = c->p;
    s->args = calloc((size_t)p, sizeof(ic_coll_args_t));
    s->rs = calloc((size_t)p, sizeof(rank_state_t));
    const ic_phys_t *phys = invent_phys(s, c);
    if (!s->args || !s->rs || (c->algo && !phys && s->phys.kind != IC_PHYS_NONE))
        return -1;
    if (coll_v(c->coll) && c->coll != IC_COLL_ALLTOALLV) {
        s->counts = malloc(sizeof(size_t) * (size_t)p);
        s->dstore = malloc(sizeof(size_t) * (size_t)p);
        if (!s->counts || !s->dstore)
            return -1;
        make_counts(c, 0, s->counts);
        if (c->coll != IC_COLL_REDUCE_SCATTER)
            make_displs(c, s->counts, s->dstore, &s->displs);
    }
    if (c->coll == IC_COLL_ALLTOALLV) {
        size_t pp = (size_t)p * (size_t)p;
        s->sc = malloc(sizeof(size_t) * pp);
        s->sd = malloc(sizeof(size_t) * pp);
        s->rc = malloc(sizeof(size_t) * pp);
        s->rd = malloc(sizeof(size_t) * pp);
        if (!s->sc || !s->sd || !s->rc || !s->rd)
            return -1;
        tcase_t row = *c;
        for (int i = 0; i < p; i++) { /* sc[i][j]: i sends to j */
            row.seed = c->seed * 31u + (uint32_t)i;
            make_counts(&row, i, s->sc + (size_t)i * p);
        }
        if (c->in_place) /* in place needs sc[i][j] == sc[j][i] */
            for (int i = 0; i < p; i++)
                for (int j = 0; j < i; j++)
                    s->sc[(size_t)i * p + j] = s->sc[(size_t)j * p + i];
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++)
                s->rc[(size_t)j * p + i] = s->sc[(size_t)i * p + j];
        for (int i = 0; i < p; i++) {
            size_t *dd;
            make_displs(c, s->sc + (size_t)i * p, s->sd + (size_t)i * p, &dd);
            if (!dd)
                ic_prefix_offsets(s->sc + (size_t)i * p, p, s->sd + (size_t)i * p);
            make_displs(c, s->rc + (size_t)i * p, s->rd + (size_t)i * p, &dd);
            if (!dd)
                ic_prefix_offsets(s->rc + (size_t)i * p, p, s->rd + (size_t)i * p);
        }
    }
    for (int r = 0; r < p; r++) {
        ic_coll_args_t *a = &s->args[r];
        a->coll = c->coll;
        a->dtype = c->dtype;
        a->op = coll_reduces(c->coll) ? c->op : NULL;
        a->root = c->root;
        a->count = c->count;
        a->counts = s->counts;
        a->displs = s->displs;
        a->in_place = c->in_place && (!coll_rooted(c->coll) || r == c->root);
        if (c->coll == IC_COLL_ALLTOALLV) {
            a->scounts = s->sc + (size_t)r * p;
            a->sdispls = s->sd + (size_t)r * p;
            a->rcounts = s->rc + (size_t)r * p;
            a->rdispls = s->rd + (size_t)r * p;
        }
        if (c->counts_at_root && s->counts) {
            a->counts_at_root = true;
            if (r != c->root) {
                if (!s->own && !(s->own = malloc(sizeof(size_t) * (size_t)p * (size_t)p)))
                    return -1;
                size_t *mine = s->own + (size_t)r * (size_t)p;
                for (int i = 0; i < p; i++) /* poison: what a wrong plan would read */
                    mine[i] = i == r ? s->counts[i] : 1000003u + 7u * (size_t)i;
                a->counts = mine;
                a->displs = NULL;
            }
        }
        a->model = c->model ? *c->model : ic_model_default();
        a->mesh = c->mesh;
        a->host_of = c->host_of;
        a->phys = phys;
        a->nhosts = c->nhosts;
    }
    return alloc_buffers(s);
}

static ic_sim_job_t job_of(setup_t *s, void **sp, void **rp, size_t *sb, size_t *rb)
{
    for (int r = 0; r < s->p; r++) {
        sp[r] = s->rs[r].sendp;
        rp[r] = s->rs[r].recvp;
        sb[r] = s->rs[r].sbytes;
        rb[r] = s->rs[r].rbytes;
    }
    ic_sim_job_t j = {0};
    j.size = s->p;
    j.world = s->c->world;
    j.args = s->args;
    j.algo = s->c->algo;
    j.sendbuf = sp;
    j.recvbuf = rp;
    j.sendbytes = sb;
    j.recvbytes = rb;
    return j;
}

static int run_jobs(const tcase_t *const *cs, int n, int world, char *msg, size_t len,
                    const char **chosen)
{
    setup_t s[2];
    void *bufs[2][4] = {{0}};
    ic_sim_job_t jobs[2];
    int fail = 1, made = 0;
    msg[0] = '\0';
    for (int i = 0; i < n; i++, made++) {
        if (setup(&s[i], cs[i], -1, i) || prepare(&s[i])) {
            snprintf(msg, len, "test set-up failed (out of memory?)");
            made++;
            goto out;
        }
        size_t p = (size_t)cs[i]->p;
        for (int b = 0; b < 4; b++)
            bufs[i][b] = calloc(p, sizeof(void *) > sizeof(size_t) ? sizeof(void *) : sizeof(size_t));
        jobs[i] = job_of(&s[i], bufs[i][0], bufs[i][1], bufs[i][2], bufs[i][3]);
    }
    ic_sim_result_t res = {0};
    ic_model_t m = ic_model_default();
    ic_status_t st = ic_sim_run(world, &m, jobs, n, true, &res);
    if (st != IC_OK) {
        snprintf(msg, len, "ic_sim_run: %s: %s", ic_status_string(st), ic_last_error());
        goto out;
    }
    if (chosen)
        *chosen = jobs[0].chosen;
    harness_last_time = res.time;
    harness_last_msgs = res.msgs;
    harness_last_bytes = res.bytes;
    fail = 0;
    for (int i = 0; i < n && !fail; i++)
        fail = verify(&s[i], msg, len);
out:
    for (int i = 0; i < made && i < n; i++) {
        release(&s[i]);
        for (int b = 0; b < 4; b++)
            free(bufs[i][b]);
    }
    return fail;
}

int run_case(const tcase_t *c, char *msg, size_t len, const char **chosen)
{
    const tcase_t *cs[1] = {c};
    return run_jobs(cs, 1, c->world_size ? c->world_size : c->p, msg, len, chosen);
}

int run_pair(const tcase_t *a, const tcase_t *b, int world_size, char *msg, size_t len)
{
    const tcase_t *cs[2] = {a, b};
    return run_jobs(cs, 2, world_size, msg, len, NULL);
}

void describe(const tcase_t *c, char *out, size_t len)
{
    char hosts[128] = "";
    for (int r = 0, n = 0; c->host_of && r < c->p && n < (int)sizeof hosts - 8; r++)
        n += snprintf(hosts + n, sizeof hosts - (size_t)n, "%s%d", r ? "," : " hosts=",
                      c->host_of[r]);
    snprintf(out, len, "%s/%s p=%d root=%d count=%zu %s %s%s v=%d l=%d seed=%u%s%s",
             ic_coll_name(c->coll), c->algo ? c->algo : "auto", c->p, c->root, c->count,
             ic_datatype_name(c->dtype),
             c->op ? (c->op->kind == IC_OP_USER ? "user" : ic_op_kind_name(c->op->kind)) : "-",
             c->in_place ? " in-place" : "", (int)c->vcounts, (int)c->vlayout, c->seed,
             c->world ? " subcomm" : "", hosts);
}

/* True unless p = 4^j (j >= 1) and the case's mesh, if it has one of p
 * ranks, is 2^j x 2^j (dimensions of 1 aside). */
static bool off_square(const tcase_t *c)
{
    int s = 2, n = 0;
    while (s * s < c->p)
        s *= 2;
    if (s * s != c->p)
        return true;
    if (!c->mesh || ic_mesh_size(c->mesh) != c->p)
        return false;
    for (int k = 0; k < c->mesh->d; k++)
        if (c->mesh->dims[k] > 1 && (n++, c->mesh->dims[k] != s))
            return true;
    return n != 2;
}

void check_case(tally_t *t, const tcase_t *c)
{
    char msg[512], d[256];
    /* An entry for powers of two must refuse other p, by name, and one
     * for 2^j x 2^j meshes other p and other meshes. */
    const ic_algo_t *al = c->algo ? ic_catalog_find(c->coll, c->algo) : NULL;
    bool refuses = al && (al->flags & IC_ALGO_POW2) && (c->p & (c->p - 1)) != 0;
    bool off_sq = al && (al->flags & IC_ALGO_SQUARE_MESH) && off_square(c);
    int rc = run_case(c, msg, sizeof msg, NULL);
    if ((refuses && rc != 0 && strstr(msg, "power-of-two")) ||
        (off_sq && rc != 0 && strstr(msg, "2^j x 2^j"))) {
        t->passed++;
        return;
    }
    if (refuses && rc == 0)
        snprintf(msg, sizeof msg, "ran although p is not a power of two");
    else if (off_sq && rc == 0)
        snprintf(msg, sizeof msg, "ran although the mesh is not 2^j x 2^j");
    else if (rc == 0) {
        t->passed++;
        return;
    }
    const char *cap = getenv("IC_TEST_MAX_FAILS"); /* failures printed (default 20) */
    if (t->failed++ < (cap ? atol(cap) : 20)) {
        describe(c, d, sizeof d);
        printf("FAIL %s: %s\n", d, msg);
    }
}

int finish(const tally_t *t, const char *name)
{
    printf("%s: %ld passed, %ld failed\n", name, t->passed, t->failed);
    return t->failed ? 1 : 0;
}

/* ---- real processes ----------------------------------------------------------- */

/* Calls the public API for this rank's part of the case, in one of the
 * three forms (0 blocking, 1 nonblocking, 2 persistent). */
#define FORM(name, ...)                                                        \
    (form == 0   ? ic_##name(__VA_ARGS__)                                      \
     : form == 1 ? ic_i##name(__VA_ARGS__, req)                                \
                 : ic_##name##_init(__VA_ARGS__, req))

static ic_status_t call_public(const ic_coll_args_t *a, void *sp, void *rp, ic_comm_t *comm,
                               int form, ic_request_t **req)
{
    void *in = a->in_place ? IC_IN_PLACE : sp;
    ic_datatype_t t = a->dtype;
    switch (a->coll) {
    case IC_COLL_BCAST: return FORM(bcast, rp, a->count, t, a->root, comm);
    case IC_COLL_REDUCE: return FORM(reduce, in, rp, a->count, t, a->op, a->root, comm);
    case IC_COLL_ALLREDUCE: return FORM(allreduce, in, rp, a->count, t, a->op, comm);
    case IC_COLL_SCATTER:
        return FORM(scatter, sp, a->in_place ? IC_IN_PLACE : rp, a->count, t, a->root, comm);
    case IC_COLL_SCATTERV:
        return FORM(scatterv, sp, a->counts, a->displs, a->in_place ? IC_IN_PLACE : rp, t,
                    a->root, comm);
    case IC_COLL_GATHER: return FORM(gather, in, rp, a->count, t, a->root, comm);
    case IC_COLL_GATHERV:
        return FORM(gatherv, in, rp, a->counts, a->displs, t, a->root, comm);
    case IC_COLL_ALLGATHER: return FORM(allgather, in, rp, a->count, t, comm);
    case IC_COLL_ALLGATHERV: return FORM(allgatherv, in, rp, a->counts, a->displs, t, comm);
    case IC_COLL_REDUCE_SCATTER_BLOCK:
        return FORM(reduce_scatter_block, in, rp, a->count, t, a->op, comm);
    case IC_COLL_REDUCE_SCATTER: return FORM(reduce_scatter, in, rp, a->counts, t, a->op, comm);
    case IC_COLL_ALLTOALL: return FORM(alltoall, in, rp, a->count, t, comm);
    case IC_COLL_ALLTOALLV:
        return FORM(alltoallv, in, a->scounts, a->sdispls, rp, a->rcounts, a->rdispls, t, comm);
    case IC_COLL_BARRIER: return FORM(barrier, comm);
    case IC_COLL_SCAN: return FORM(scan, in, rp, a->count, t, a->op, comm);
    case IC_COLL_EXSCAN: return FORM(exscan, in, rp, a->count, t, a->op, comm);
    default: return IC_ERR_ARG;
    }
}
#undef FORM

int real_begin(real_case_t *rc, const tcase_t *c, ic_comm_t *comm, int form, char *msg,
               size_t len)
{
    memset(rc, 0, sizeof(*rc));
    rc->c = *c;
    rc->form = form;
    ic_comm_rank(comm, &rc->me);
    setup_t *s = calloc(1, sizeof(setup_t));
    rc->s = s;
    if (!s || setup(s, &rc->c, rc->me, -1) || prepare(s)) {
        snprintf(msg, len, "rank %d: test set-up failed", rc->me);
        return 1;
    }
    const ic_coll_args_t *a = &s->args[rc->me];
    ic_comm_set_algorithm(comm, c->coll, c->algo);
    ic_status_t st = call_public(a, s->rs[rc->me].sendp, s->rs[rc->me].recvp, comm, form,
                                 &rc->req);
    if (st != IC_OK) {
        snprintf(msg, len, "rank %d: %s", rc->me, ic_last_error());
        return 1;
    }
    return 0;
}

int real_restart(real_case_t *rc, unsigned seed, char *msg, size_t len)
{
    setup_t *s = rc->s;
    rc->c.seed = seed; /* same counts, new data */
    rank_state_t *x = &s->rs[rc->me];
    memset(x->rraw + GUARD, SENTINEL, x->rbytes);
    if (prepare(s)) {
        snprintf(msg, len, "rank %d: test set-up failed", rc->me);
        return 1;
    }
    ic_status_t st = ic_start(rc->req);
    if (st != IC_OK) {
        snprintf(msg, len, "rank %d: ic_start: %s", rc->me, ic_last_error());
        return 1;
    }
    return 0;
}

int real_end(real_case_t *rc, char *msg, size_t len)
{
    int fail = 0;
    if (rc->form != 0 && rc->req) {
        ic_status_t st = ic_wait(&rc->req);
        if (st != IC_OK) {
            snprintf(msg, len, "rank %d: ic_wait: %s", rc->me, ic_last_error());
            fail = 1;
        }
    }
    if (!fail && rc->s)
        fail = verify(rc->s, msg, len);
    return fail;
}

void real_free(real_case_t *rc)
{
    if (rc->req && rc->form == 2)
        ic_request_free(&rc->req);
    if (rc->s) {
        release(rc->s);
        free(rc->s);
    }
    rc->s = NULL;
}
