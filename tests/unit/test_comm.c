/*
 * test_comm.c — unit tests for communicators and the public API on the
 * size-1 world: the pure split/group arithmetic (src/core/comm.c), every
 * blocking collective on one process (src/core/coll_api.c), argument
 * validation (src/algo/validate.c) with its error messages, forcing
 * algorithms, and the status strings.
 */
#define _GNU_SOURCE /* fork, waitpid: a crashing call must not end the run */
#include "core/comm.h"

#include "intercom.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int has(const char *s, const char *sub) { return s && strstr(s, sub) != NULL; }

/* ---- split and group arithmetic -------------------------------------- */

/* Reference: members of me's color sorted by (key, parent rank). */
static int ref_split(int p, const int *col, const int *key, int me, int *mem)
{
    int n = 0;
    if (col[me] == IC_UNDEFINED)
        return 0;
    for (int k = -100; k <= 100; k++)
        for (int i = 0; i < p; i++)
            if (col[i] == col[me] && key[i] == k)
                mem[n++] = i;
    return n;
}

static void test_split_members(void)
{
    int col[10], key[10], mem[10], nr;
    for (int i = 0; i < 10; i++) {
        col[i] = i % 2;
        key[i] = -i;
    }
    int n = ic_split_members(10, col, key, 4, mem, &nr);
    CHECK(n == 5 && mem[0] == 8 && mem[1] == 6 && mem[2] == 4 && mem[3] == 2 && mem[4] == 0,
          "evens reversed: n=%d %d %d %d %d %d", n, mem[0], mem[1], mem[2], mem[3], mem[4]);
    CHECK(nr == 2, "new rank of 4 is %d", nr);
    for (int me = 0; me < 10; me++) {
        n = ic_split_members(10, col, key, me, mem, &nr);
        CHECK(n == 5 && nr == 4 - me / 2 && mem[nr] == me, "me=%d: n=%d new rank %d", me, n,
              nr);
    }
    col[3] = IC_UNDEFINED;
    nr = 7;
    CHECK(ic_split_members(10, col, key, 3, mem, &nr) == 0 && nr == -1, "IC_UNDEFINED");
    n = ic_split_members(10, col, key, 5, mem, &nr);
    CHECK(n == 4 && mem[0] == 9 && mem[2] == 5 && mem[3] == 1 && nr == 2,
          "odds without 3: n=%d new rank %d", n, nr);
    /* Equal keys keep the parent order. */
    for (int i = 0; i < 10; i++)
        col[i] = key[i] = 0;
    n = ic_split_members(10, col, key, 7, mem, &nr);
    int ordered = n == 10;
    for (int i = 0; ordered && i < 10; i++)
        ordered = mem[i] == i;
    CHECK(ordered && nr == 7, "equal keys: parent order");
    /* Three groups, mixed keys, against the reference. */
    uint32_t x = 12345;
    for (int rep = 0; rep < 200; rep++) {
        int p = 1 + rep % 10, want[10];
        for (int i = 0; i < p; i++) {
            x = x * 1103515245u + 12345u;
            col[i] = (x >> 16) % 4 == 3 ? IC_UNDEFINED : (int)((x >> 16) % 3);
            key[i] = (int)((x >> 20) % 5) - 2;
        }
        for (int me = 0; me < p; me++) {
            int wn = ref_split(p, col, key, me, want);
            n = ic_split_members(p, col, key, me, mem, &nr);
            int same = n == wn;
            for (int i = 0; same && i < n; i++)
                same = mem[i] == want[i];
            CHECK(same && (wn == 0 ? nr == -1 : mem[nr] == me), "3 groups rep %d me %d", rep,
                  me);
        }
    }
}

/* ic_group_check fails with IC_ERR_ARG and a message naming fnX and sub. */
static int group_err(int size, int n, const int *ranks, const char *sub)
{
    int idx = 99;
    ic_status_t st = ic_group_check("fnX", size, n, ranks, 0, &idx);
    return st == IC_ERR_ARG && has(ic_last_error(), sub) && has(ic_last_error(), "fnX");
}

static void test_group_check(void)
{
    int r3[3] = {3, 1, 4}, idx = 99;
    CHECK(ic_group_check("fnX", 6, 3, r3, 4, &idx) == IC_OK && idx == 2, "index of 4: %d",
          idx);
    CHECK(ic_group_check("fnX", 6, 3, r3, 0, &idx) == IC_OK && idx == -1, "absent: %d", idx);
    CHECK(group_err(6, 3, NULL, "ranks"), "NULL ranks: %s", ic_last_error());
    CHECK(group_err(6, 0, r3, "n = "), "n = 0: %s", ic_last_error());
    CHECK(group_err(2, 3, r3, "n = "), "n > size: %s", ic_last_error());
    int bad[3] = {0, 6, 1}, neg[3] = {0, -1, 1}, dup[4] = {2, 0, 5, 0};
    CHECK(group_err(6, 3, bad, "ranks[1]"), "out of range: %s", ic_last_error());
    CHECK(group_err(6, 3, neg, "ranks[1]"), "negative: %s", ic_last_error());
    CHECK(group_err(6, 4, dup, "ranks[3]"), "duplicate: %s", ic_last_error());
}

/* ---- collectives on the size-1 world --------------------------------- */

#define PAT 0xA5
static int32_t sb[64];
static unsigned char rb[256];

static void reset(void)
{
    for (int i = 0; i < 64; i++)
        sb[i] = 1000 + i;
    memset(rb, PAT, sizeof rb);
}
/* rb holds sb[s..s+n) as int32 at element d, and the pattern elsewhere. */
static int rb_is(size_t d, size_t s, size_t n)
{
    for (size_t b = 0; b < sizeof rb; b++) {
        size_t e = b / 4;
        unsigned char want = PAT;
        if (e >= d && e < d + n) {
            int32_t v = sb[s + e - d];
            want = ((unsigned char *)&v)[b % 4];
        }
        if (rb[b] != want)
            return 0;
    }
    return 1;
}
static int rb_untouched(void) { return rb_is(0, 0, 0); }
/* Puts sb[0..n) at element d of rb (for in-place inputs). */
static void preload(size_t d, size_t n) { memcpy(rb + 4 * d, sb, 4 * n); }

#define OK(call, ...) CHECK((call) == IC_OK && (__VA_ARGS__), "%s: %s", #call, ic_last_error())
/* OK after resetting the buffers and putting sb[0..n) at element d of rb. */
#define RUN(d, n, call, ...)                                                   \
    do {                                                                       \
        reset();                                                               \
        preload(d, n);                                                         \
        OK(call, __VA_ARGS__);                                                 \
    } while (0)

static void user_first(const void *in, void *inout, size_t count, ic_datatype_t dtype)
{
    memcpy(inout, in, count * ic_datatype_size(dtype));
}

/* Runs body(w, k) in a child process, so that a crash is a failed check
 * and not the end of the run; returns its exit code, 128 + signal if it
 * crashed, -1 if fork failed. */
static int isolated(int (*body)(ic_comm_t *, int), ic_comm_t *w, int k)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(body(w, k));
    int ws = 0;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid)
        return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static int null_displs_case(ic_comm_t *w, int k)
{
    size_t c4[1] = {4}, d0[1] = {0};
    reset();
    ic_status_t st = k ? ic_alltoallv(sb, c4, d0, rb, c4, NULL, IC_INT32, w)
                       : ic_alltoallv(sb, c4, NULL, rb, c4, d0, IC_INT32, w);
    return (st == IC_OK ? rb_is(0, 0, 4) : rb_untouched()) ? 0 : 10;
}

/* Counts or displacements whose byte size does not fit in size_t (2^62
 * int32 are 2^64 bytes): an error, and nothing written around the buffer.
 * Exit 10: accepted; 20: memory around the receive buffer changed. */
static int overflow_case(ic_comm_t *w, int k)
{
    static unsigned char zone[1024];
    memset(zone, 0x5A, sizeof zone);
    void *r = zone + 512;
    const ic_datatype_t I = IC_INT32;
    size_t big[1] = {((size_t)SIZE_MAX >> 2) + 1}, bigd[1] = {(size_t)SIZE_MAX >> 2};
    size_t c4[1] = {4}, d0[1] = {0};
    reset();
    ic_status_t st = IC_OK;
    switch (k) {
    case 0: st = ic_scatterv(sb, big, NULL, r, I, 0, w); break;
    case 1: st = ic_gatherv(sb, r, big, NULL, I, 0, w); break;
    case 2: st = ic_allgatherv(sb, r, big, NULL, I, w); break;
    case 3: st = ic_reduce_scatter(sb, r, big, I, IC_SUM, w); break;
    case 4: st = ic_alltoallv(sb, big, d0, r, c4, d0, I, w); break;
    case 5: st = ic_scatterv(sb, c4, bigd, r, I, 0, w); break;
    case 6: st = ic_gatherv(sb, r, c4, bigd, I, 0, w); break;
    case 7: st = ic_allgatherv(sb, r, c4, bigd, I, w); break;
    default: st = ic_alltoallv(sb, c4, d0, r, c4, bigd, I, w); break;
    }
    /* Bytes of the zone the call may legitimately own: all after r for a
     * huge count, r's 4 elements for scatterv, none for a huge rdispl. */
    size_t own = k <= 4 ? 512 : k == 5 ? 16 : 0;
    for (size_t i = 0; i < sizeof zone; i++)
        if (zone[i] != 0x5A && (i < 512 || i >= 512 + own))
            return 20;
    return st == IC_OK ? 10 : 0;
}

static void test_overflow(ic_comm_t *w)
{
    static const char *const what[9] = {
        "scatterv counts", "gatherv counts", "allgatherv counts", "reduce_scatter counts",
        "alltoallv sendcounts", "scatterv displs", "gatherv displs", "allgatherv displs",
        "alltoallv rdispls"};
    for (int k = 0; k < 9; k++) {
        int rc = isolated(overflow_case, w, k);
        CHECK(rc == 0, "%s of 2^64 bytes: %s (%d)", what[k],
              rc == 10 ? "returned IC_OK"
                       : rc == 20 ? "wrote outside the receive buffer" : "crashed or aborted",
              rc);
    }
}

static void test_collectives(ic_comm_t *w)
{
    const ic_datatype_t I = IC_INT32;
    size_t c4[1] = {4}, d2[1] = {2}, d3[1] = {3}, d6[1] = {6};
    int size = -1, rank = -1;
    OK(ic_comm_size(w, &size), size == 1);
    OK(ic_comm_rank(w, &rank), rank == 0);

    RUN(0, 8, ic_bcast(rb, 8, I, 0, w), rb_is(0, 0, 8));
    RUN(0, 0, ic_reduce(sb, rb, 8, I, IC_SUM, 0, w), rb_is(0, 0, 8));
    RUN(0, 8, ic_reduce(IC_IN_PLACE, rb, 8, I, IC_MAX, 0, w), rb_is(0, 0, 8));
    RUN(0, 0, ic_allreduce(sb, rb, 5, I, IC_PROD, w), rb_is(0, 0, 5));
    RUN(0, 5, ic_allreduce(IC_IN_PLACE, rb, 5, I, IC_BXOR, w), rb_is(0, 0, 5));
    RUN(0, 0, ic_scan(sb, rb, 7, I, IC_SUM, w), rb_is(0, 0, 7));
    RUN(0, 7, ic_scan(IC_IN_PLACE, rb, 7, I, IC_MIN, w), rb_is(0, 0, 7));
    RUN(0, 0, ic_exscan(sb, rb, 7, I, IC_SUM, w), rb_untouched());
    RUN(0, 0, ic_exscan(IC_IN_PLACE, rb, 7, I, IC_SUM, w), rb_untouched());
    RUN(0, 0, ic_scatter(sb, rb, 6, I, 0, w), rb_is(0, 0, 6));
    RUN(0, 0, ic_scatter(sb, IC_IN_PLACE, 6, I, 0, w), rb_untouched());
    RUN(0, 0, ic_scatterv(sb, c4, d3, rb, I, 0, w), rb_is(0, 3, 4));
    RUN(0, 0, ic_scatterv(sb, c4, NULL, rb, I, 0, w), rb_is(0, 0, 4));
    RUN(0, 0, ic_scatterv(sb, c4, d3, IC_IN_PLACE, I, 0, w), rb_untouched());
    RUN(0, 0, ic_gather(sb, rb, 6, I, 0, w), rb_is(0, 0, 6));
    RUN(0, 6, ic_gather(IC_IN_PLACE, rb, 6, I, 0, w), rb_is(0, 0, 6));
    RUN(0, 0, ic_gatherv(sb, rb, c4, d2, I, 0, w), rb_is(2, 0, 4));
    RUN(2, 4, ic_gatherv(IC_IN_PLACE, rb, c4, d2, I, 0, w), rb_is(2, 0, 4));
    RUN(0, 0, ic_allgather(sb, rb, 3, I, w), rb_is(0, 0, 3));
    RUN(0, 3, ic_allgather(IC_IN_PLACE, rb, 3, I, w), rb_is(0, 0, 3));
    RUN(0, 0, ic_allgatherv(sb, rb, c4, d6, I, w), rb_is(6, 0, 4));
    RUN(6, 4, ic_allgatherv(IC_IN_PLACE, rb, c4, d6, I, w), rb_is(6, 0, 4));
    RUN(0, 0, ic_reduce_scatter_block(sb, rb, 4, I, IC_SUM, w), rb_is(0, 0, 4));
    RUN(0, 4, ic_reduce_scatter_block(IC_IN_PLACE, rb, 4, I, IC_SUM, w), rb_is(0, 0, 4));
    RUN(0, 0, ic_reduce_scatter(sb, rb, c4, I, IC_BAND, w), rb_is(0, 0, 4));
    RUN(0, 4, ic_reduce_scatter(IC_IN_PLACE, rb, c4, I, IC_BOR, w), rb_is(0, 0, 4));
    RUN(0, 0, ic_alltoall(sb, rb, 5, I, w), rb_is(0, 0, 5));
    RUN(0, 5, ic_alltoall(IC_IN_PLACE, rb, 5, I, w), rb_is(0, 0, 5));
    RUN(0, 0, ic_alltoallv(sb, c4, d2, rb, c4, d6, I, w), rb_is(6, 2, 4));
    /* NULL alltoallv displacements: packed (as validation assumes) or an
     * error, never a crash. */
    for (int k = 0; k < 2; k++) {
        int rc = isolated(null_displs_case, w, k);
        CHECK(rc == 0, "ic_alltoallv with NULL %s: %s (%d)", k ? "rdispls" : "sdispls",
              rc == 10 ? "wrong result" : "crashed or aborted", rc);
    }
    OK(ic_barrier(w), 1);
    /* Other element types: 8 int32 are 4 doubles, 16 float16, 32 bytes. */
    RUN(0, 0, ic_allreduce(sb, rb, 4, IC_DOUBLE, IC_SUM, w), rb_is(0, 0, 8));
    RUN(0, 0, ic_reduce(sb, rb, 16, IC_FLOAT16, IC_MAX, 0, w), rb_is(0, 0, 8));
    RUN(0, 8, ic_bcast(rb, 32, IC_BYTE, 0, w), rb_is(0, 0, 8));
    /* Zero counts need no buffers. */
    OK(ic_allreduce(NULL, NULL, 0, I, IC_SUM, w), 1);
    OK(ic_bcast(NULL, 0, I, 0, w), 1);
    /* A non-commutative user op runs under automatic choice. */
    ic_op_t *uop = NULL;
    OK(ic_op_create(user_first, 0, &uop), uop != NULL);
    RUN(0, 0, ic_allreduce(sb, rb, 6, I, uop, w), rb_is(0, 0, 6));
    RUN(0, 0, ic_reduce(sb, rb, 6, I, uop, 0, w), rb_is(0, 0, 6));
    OK(ic_op_free(&uop), uop == NULL);
}

/* ---- bad input --------------------------------------------------------- */

static void expect_err(int line, const char *call, ic_status_t st, ic_status_t want,
                       const char *fn)
{
    CHECK_AT(line, st == want, "%s: status %d (%s), want %d", call, (int)st,
             ic_status_string(st), (int)want);
    CHECK_AT(line, rb_untouched(), "%s: receive buffer modified", call);
    const char *m = ic_last_error();
    CHECK_AT(line, m && m[0] && has(m, fn), "%s: last error '%s' does not name %s", call,
             m ? m : "(null)", fn);
}
#define ERR(want, fn, call)                                                    \
    do {                                                                       \
        reset();                                                               \
        ic_status_t st_ = (call);                                              \
        expect_err(__LINE__, #call, st_, want, fn);                            \
    } while (0)

/* Calls collective c on count 4 (v-forms: counts cnt, displacements 0). */
static ic_status_t call(ic_coll_t c, const void *s, void *r, ic_datatype_t t,
                        const ic_op_t *o, int root, const size_t *cnt, ic_comm_t *w)
{
    static const size_t d[1] = {0};
    switch (c) {
    case IC_COLL_BCAST: return ic_bcast(r, 4, t, root, w);
    case IC_COLL_REDUCE: return ic_reduce(s, r, 4, t, o, root, w);
    case IC_COLL_ALLREDUCE: return ic_allreduce(s, r, 4, t, o, w);
    case IC_COLL_SCATTER: return ic_scatter(s, r, 4, t, root, w);
    case IC_COLL_SCATTERV: return ic_scatterv(s, cnt, d, r, t, root, w);
    case IC_COLL_GATHER: return ic_gather(s, r, 4, t, root, w);
    case IC_COLL_GATHERV: return ic_gatherv(s, r, cnt, d, t, root, w);
    case IC_COLL_ALLGATHER: return ic_allgather(s, r, 4, t, w);
    case IC_COLL_ALLGATHERV: return ic_allgatherv(s, r, cnt, d, t, w);
    case IC_COLL_REDUCE_SCATTER_BLOCK: return ic_reduce_scatter_block(s, r, 4, t, o, w);
    case IC_COLL_REDUCE_SCATTER: return ic_reduce_scatter(s, r, cnt, t, o, w);
    case IC_COLL_ALLTOALL: return ic_alltoall(s, r, 4, t, w);
    case IC_COLL_ALLTOALLV: return ic_alltoallv(s, cnt, d, r, cnt, d, t, w);
    case IC_COLL_BARRIER: return ic_barrier(w);
    case IC_COLL_SCAN: return ic_scan(s, r, 4, t, o, w);
    case IC_COLL_EXSCAN: return ic_exscan(s, r, 4, t, o, w);
    default: return IC_ERR_INTERNAL;
    }
}

#define ERRC(want, c, what, ...)                                               \
    do {                                                                       \
        reset();                                                               \
        ic_status_t st_ = call(c, __VA_ARGS__);                                \
        char what_[96];                                                        \
        snprintf(what_, sizeof what_, "%s with %s", fn, what);                 \
        expect_err(__LINE__, what_, st_, want, fn);                            \
    } while (0)

static void test_errors(ic_comm_t *w)
{
    const ic_datatype_t I = IC_INT32, BAD = (ic_datatype_t)99;
    const size_t c[1] = {4};
    const ic_op_t *ops[3] = {IC_SUM, IC_BAND, NULL};
    const ic_datatype_t types[3] = {IC_BYTE, IC_FLOAT, IC_INT32};
    for (int k = 0; k < IC_COLL_COUNT; k++) {
        ic_coll_t cl = (ic_coll_t)k;
        char fn[64];
        snprintf(fn, sizeof fn, "ic_%s", ic_coll_name(cl));
        bool red = cl == IC_COLL_REDUCE || cl == IC_COLL_ALLREDUCE || cl == IC_COLL_SCAN ||
                   cl == IC_COLL_EXSCAN || cl == IC_COLL_REDUCE_SCATTER ||
                   cl == IC_COLL_REDUCE_SCATTER_BLOCK;
        bool rooted = cl == IC_COLL_BCAST || cl == IC_COLL_REDUCE || cl == IC_COLL_SCATTER ||
                      cl == IC_COLL_SCATTERV || cl == IC_COLL_GATHER || cl == IC_COLL_GATHERV;
        bool vform = cl == IC_COLL_SCATTERV || cl == IC_COLL_GATHERV ||
                     cl == IC_COLL_ALLGATHERV || cl == IC_COLL_REDUCE_SCATTER ||
                     cl == IC_COLL_ALLTOALLV;
        ERRC(IC_ERR_COMM, cl, "NULL comm", sb, rb, I, IC_SUM, 0, c, NULL);
        if (cl == IC_COLL_BARRIER)
            continue;
        ERRC(IC_ERR_DTYPE, cl, "dtype 99", sb, rb, BAD, IC_SUM, 0, c, w);
        ERRC(IC_ERR_DTYPE, cl, "dtype -1", sb, rb, (ic_datatype_t)-1, IC_SUM, 0, c, w);
        ERRC(IC_ERR_DTYPE, cl, "dtype COUNT", sb, rb, IC_DATATYPE_COUNT, IC_SUM, 0, c, w);
        for (int o = 0; red && o < 3; o++)
            ERRC(IC_ERR_OP, cl, "op", sb, rb, types[o], ops[o], 0, c, w);
        if (red)
            ERRC(IC_ERR_OP, cl, "lxor double", sb, rb, IC_DOUBLE, IC_LXOR, 0, c, w);
        if (rooted) {
            ERRC(IC_ERR_ROOT, cl, "root -1", sb, rb, I, IC_SUM, -1, c, w);
            ERRC(IC_ERR_ROOT, cl, "root 1", sb, rb, I, IC_SUM, 1, c, w);
        }
        if (vform)
            ERRC(IC_ERR_COUNT, cl, "NULL counts", sb, rb, I, IC_SUM, 0, NULL, w);
        ERRC(IC_ERR_BUFFER, cl, "NULL recvbuf", sb, NULL, I, IC_SUM, 0, c, w);
        if (cl != IC_COLL_BCAST)
            ERRC(IC_ERR_BUFFER, cl, "NULL sendbuf", NULL, rb, I, IC_SUM, 0, c, w);
    }
    size_t d[1] = {0};
    ERR(IC_ERR_COUNT, "ic_alltoallv", ic_alltoallv(sb, c, d, rb, NULL, d, I, w));
    ERR(IC_ERR_COUNT, "ic_allreduce", ic_allreduce(sb, rb, SIZE_MAX / 2, I, IC_SUM, w));
    /* IC_IN_PLACE where it has no meaning. */
    ERR(IC_ERR_BUFFER, "ic_bcast", ic_bcast(IC_IN_PLACE, 4, I, 0, w));
    ERR(IC_ERR_BUFFER, "ic_gather", ic_gather(sb, IC_IN_PLACE, 4, I, 0, w));
    ERR(IC_ERR_BUFFER, "ic_allreduce", ic_allreduce(sb, IC_IN_PLACE, 4, I, IC_SUM, w));
}

/* ic_comm_set_mesh / ic_comm_get_mesh on a world of one rank. */
static void test_mesh(ic_comm_t *w)
{
    int dims[IC_MESH_MAX_NDIMS + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, nd = -1, got[4] = {0};
    OK(ic_comm_get_mesh(w, &nd, got, 4), nd == 1 && got[0] == 1);
    OK(ic_comm_set_mesh(w, 2, dims), 1);
    OK(ic_comm_get_mesh(w, &nd, got, 4), nd == 2 && got[0] == 1 && got[1] == 1);
    ERR(IC_ERR_ARG, "ic_comm_set_mesh", ic_comm_set_mesh(w, IC_MESH_MAX_NDIMS + 1, dims));
    CHECK(has(ic_last_error(), "ndims"), "ndims message: %s", ic_last_error());
    ERR(IC_ERR_ARG, "ic_comm_set_mesh", ic_comm_set_mesh(w, 2, NULL));
    CHECK(has(ic_last_error(), "dims is NULL"), "dims message: %s", ic_last_error());
    int bad[2] = {1, 2};
    ERR(IC_ERR_ARG, "ic_comm_set_mesh", ic_comm_set_mesh(w, 2, bad));
    CHECK(has(ic_last_error(), "dims[1] = 2"), "dims[1] message: %s", ic_last_error());
    bad[1] = 0;
    ERR(IC_ERR_ARG, "ic_comm_set_mesh", ic_comm_set_mesh(w, 2, bad));
    CHECK(ic_comm_set_mesh(NULL, 1, dims) == IC_ERR_COMM, "NULL comm");
    /* A failed call leaves the mesh as it was; mesh algorithms still run. */
    OK(ic_comm_get_mesh(w, &nd, got, 4), nd == 2);
    OK(ic_comm_set_algorithm(w, IC_COLL_ALLREDUCE, "hybrid"), 1);
    RUN(0, 0, ic_allreduce(sb, rb, 4, IC_INT32, IC_SUM, w), rb_is(0, 0, 4));
    OK(ic_comm_set_algorithm(w, IC_COLL_ALLREDUCE, NULL), 1);
    OK(ic_comm_set_mesh(w, 0, NULL), 1);
    OK(ic_comm_get_mesh(w, &nd, got, 4), nd == 1 && got[0] == 1);
}

/* ic_comm_set_network on a world of one rank: bad specs and nodes are
 * refused by name and leave the placement as it was; the placement makes
 * the U entries applicable, on the right kind of network only, and derived
 * communicators inherit it. */
static void test_network(ic_comm_t *w)
{
    int node3[1] = {3}, bad[1] = {4}, neg[1] = {-1};
    ERR(IC_ERR_NOT_APPLICABLE, "ic_bcast", (ic_comm_set_algorithm(w, IC_COLL_BCAST, "umesh"),
                                            ic_bcast(sb, 4, IC_INT32, 0, w)));
    CHECK(has(ic_last_error(), "ic_comm_set_network"), "no placement: %s", ic_last_error());
    ERR(IC_ERR_ARG, "ic_comm_set_network", ic_comm_set_network(w, "ring:4", NULL));
    CHECK(has(ic_last_error(), "ring:4"), "spec message: %s", ic_last_error());
    ERR(IC_ERR_ARG, "ic_comm_set_network", ic_comm_set_network(w, "mesh:0x3", NULL));
    ERR(IC_ERR_ARG, "ic_comm_set_network", ic_comm_set_network(w, "mesh:2x2", bad));
    CHECK(has(ic_last_error(), "node_of[0] = 4"), "node message: %s", ic_last_error());
    ERR(IC_ERR_ARG, "ic_comm_set_network", ic_comm_set_network(w, "mesh:2x2", neg));
    CHECK(ic_comm_set_network(NULL, "mesh:2x2", NULL) == IC_ERR_COMM, "NULL comm");
    OK(ic_comm_set_network(w, "mesh:2x2", node3), 1);
    RUN(0, 0, ic_bcast(sb, 4, IC_INT32, 0, w), 1);
    ic_comm_t *d = NULL;
    OK(ic_comm_split(w, 0, 0, &d), d != NULL); /* inherits the placement and the entry */
    if (d) {
        RUN(0, 0, ic_bcast(sb, 4, IC_INT32, 0, d), 1);
        ic_comm_free(&d);
    }
    OK(ic_comm_set_network(w, "hypercube:2", NULL), 1);
    OK(ic_comm_set_algorithm(w, IC_COLL_BCAST, "utorus"), 1);
    ERR(IC_ERR_NOT_APPLICABLE, "ic_bcast", ic_bcast(sb, 4, IC_INT32, 0, w));
    CHECK(has(ic_last_error(), "torus or mesh"), "kind message: %s", ic_last_error());
    OK(ic_comm_set_algorithm(w, IC_COLL_BCAST, "ucube"), 1);
    RUN(0, 0, ic_bcast(sb, 4, IC_INT32, 0, w), 1);
    OK(ic_comm_set_network(w, NULL, NULL), 1); /* forgotten: the entry is refused again */
    ERR(IC_ERR_NOT_APPLICABLE, "ic_bcast", ic_bcast(sb, 4, IC_INT32, 0, w));
    OK(ic_comm_set_algorithm(w, IC_COLL_BCAST, NULL), 1);
}

/* ic_comm_set_model / ic_comm_get_model, beta_net (shared links) included. */
static void test_model(ic_comm_t *w)
{
    ic_model_params_t m = IC_MODEL_PARAMS_INIT, got = IC_MODEL_PARAMS_INIT;
    OK(ic_comm_get_model(w, &m), m.alpha > 0 && m.beta_net == 0);
    ic_model_params_t links = m;
    links.beta_net = 2e-10;
    OK(ic_comm_set_model(w, &links), 1);
    OK(ic_comm_get_model(w, &got), got.beta_net == 2e-10 && got.alpha == m.alpha);
    ic_model_params_t bad = m;
    bad.beta_net = -1;
    ERR(IC_ERR_ARG, "ic_comm_set_model", ic_comm_set_model(w, &bad));
    CHECK(has(ic_last_error(), "beta_net"), "beta_net message: %s", ic_last_error());
    bad = m;
    bad.alpha = 0;
    ERR(IC_ERR_ARG, "ic_comm_set_model", ic_comm_set_model(w, &bad));
    CHECK(has(ic_last_error(), "alpha"), "alpha message: %s", ic_last_error());
    /* The size field: unset is rejected naming it; a caller compiled
     * against a longer, future layout is served and its extra fields are
     * left alone. */
    bad = m;
    bad.size = 0;
    ERR(IC_ERR_ARG, "ic_comm_set_model", ic_comm_set_model(w, &bad));
    CHECK(has(ic_last_error(), "m->size"), "size message: %s", ic_last_error());
    ERR(IC_ERR_ARG, "ic_comm_get_model", ic_comm_get_model(w, &bad));
    struct {
        ic_model_params_t p;
        double future_field;
    } longer = {IC_MODEL_PARAMS_INIT, 42.0};
    longer.p.size = sizeof longer;
    OK(ic_comm_get_model(w, &longer.p), longer.p.beta_net == 2e-10 && longer.future_field == 42.0);
    OK(ic_comm_get_model(w, &got), got.beta_net == 2e-10); /* unchanged by failures */
    /* rndv_alpha: set and read back, refused when negative (named); the
     * transport's rndv_bytes, share_bytes, cores and rndv_oneway_bytes are read-only (one process:
     * no transport, 0); a caller compiled before rndv_alpha existed gets
     * the default (docs/abi.md). */
    ic_model_params_t rv = links;
    rv.rndv_alpha = 3e-6;
    rv.rndv_bytes = 5;
    rv.share_bytes = 7;
    rv.cores = 9;
    rv.rndv_oneway_bytes = 11;
    OK(ic_comm_set_model(w, &rv), 1);
    OK(ic_comm_get_model(w, &got), got.rndv_alpha == 3e-6 && got.rndv_bytes == 0 &&
                                       got.share_bytes == 0 && got.cores == 0 &&
                                       got.rndv_oneway_bytes == 0);
    bad = rv;
    bad.rndv_alpha = -1e-6;
    ERR(IC_ERR_ARG, "ic_comm_set_model", ic_comm_set_model(w, &bad));
    CHECK(has(ic_last_error(), "rndv_alpha"), "rndv_alpha message: %s", ic_last_error());
    ic_model_params_t old = rv;
    old.size = offsetof(ic_model_params_t, rndv_alpha);
    OK(ic_comm_set_model(w, &old), 1);
    OK(ic_comm_get_model(w, &got),
       got.rndv_alpha == ic_model_default().rndv_alpha && got.beta_net == 2e-10);
    RUN(0, 0, ic_allreduce(sb, rb, 4, IC_INT32, IC_SUM, w), rb_is(0, 0, 4));
    OK(ic_comm_set_model(w, &m), 1);
}

static void test_algorithms(ic_comm_t *w)
{
    char names[256];
    ERR(IC_ERR_UNKNOWN_ALGO, "ic_comm_set_algorithm",
        ic_comm_set_algorithm(w, IC_COLL_BCAST, "nope"));
    CHECK(has(ic_last_error(), "mst") && has(ic_last_error(), "scatter_allgather") &&
              has(ic_last_error(), "nope"),
          "unknown algo message: %s", ic_last_error());
    OK(ic_comm_set_algorithm(w, IC_COLL_BCAST, "auto"), 1);
    OK(ic_comm_set_algorithm(w, IC_COLL_BCAST, NULL), 1);
    OK(ic_comm_set_algorithm(w, IC_COLL_BCAST, "mst"), 1);
    CHECK(ic_comm_set_algorithm(w, IC_COLL_COUNT, "mst") == IC_ERR_ARG, "invalid coll");
    CHECK(ic_comm_set_algorithm(NULL, IC_COLL_BCAST, "mst") == IC_ERR_COMM, "NULL comm");

    ic_op_t *nc = NULL;
    OK(ic_op_create(user_first, 0, &nc), nc != NULL);
    OK(ic_comm_set_algorithm(w, IC_COLL_ALLREDUCE, "rs_ag"), 1);
    ERR(IC_ERR_NOT_APPLICABLE, "ic_allreduce", ic_allreduce(sb, rb, 4, IC_INT32, nc, w));
    CHECK(has(ic_last_error(), "rs_ag"), "NOT_APPLICABLE message: %s", ic_last_error());
    RUN(0, 0, ic_allreduce(sb, rb, 4, IC_INT32, IC_SUM, w), rb_is(0, 0, 4));
    OK(ic_comm_set_algorithm(w, IC_COLL_REDUCE, "rs_gather"), 1);
    ERR(IC_ERR_NOT_APPLICABLE, "ic_reduce", ic_reduce(sb, rb, 4, IC_INT32, nc, 0, w));
    OK(ic_comm_set_algorithm(w, IC_COLL_ALLREDUCE, "auto"), 1);
    OK(ic_comm_set_algorithm(w, IC_COLL_REDUCE, NULL), 1);
    RUN(0, 0, ic_allreduce(sb, rb, 4, IC_INT32, nc, w), rb_is(0, 0, 4));
    OK(ic_op_free(&nc), nc == NULL);

    for (int c = 0; c < IC_COLL_COUNT; c++) {
        names[0] = 'x';
        OK(ic_algorithms((ic_coll_t)c, names, sizeof names), names[0] != '\0');
    }
    OK(ic_algorithms(IC_COLL_BCAST, names, sizeof names),
       has(names, "mst") && has(names, "scatter_allgather") && has(names, ", "));
    OK(ic_algorithms(IC_COLL_ALLREDUCE, names, 5), strlen(names) < 5);
    CHECK(ic_algorithms(IC_COLL_BCAST, NULL, 10) == IC_ERR_ARG, "NULL buf");
    CHECK(ic_algorithms(IC_COLL_COUNT, names, sizeof names) == IC_ERR_ARG, "bad coll");
}

static void test_status_strings(void)
{
    const char *seen[32];
    int n = 0;
#define IC_T_(name, value, text)                                               \
    {                                                                          \
        const char *s = ic_status_string(IC_##name);                           \
        CHECK(s && s[0] && strcmp(s, "unknown status") != 0 && strcmp(s, text) == 0,      \
              "status %s", #name);                                             \
        for (int i = 0; i < n; i++)                                            \
            CHECK(strcmp(seen[i], s) != 0, "status %s text repeated", #name);  \
        seen[n++] = s;                                                         \
    }
    IC_STATUS_MAP(IC_T_)
#undef IC_T_
    CHECK(n == 20, "%d status codes", n);
    CHECK(strcmp(ic_status_string((ic_status_t)42), "unknown status") == 0, "unknown code");
}

static void test_comm_lifecycle(void)
{
    ic_comm_t *w = NULL, *c = NULL, *sentinel = (ic_comm_t *)&c;
    CHECK(ic_init(NULL) == IC_ERR_ARG, "ic_init(NULL)");
    OK(ic_init(&w), w != NULL);
    if (!w)
        return;
    int s = 0, r = -1;
    CHECK(ic_comm_size(NULL, &s) == IC_ERR_COMM && ic_comm_size(w, NULL) == IC_ERR_ARG &&
              ic_comm_rank(NULL, &r) == IC_ERR_COMM,
          "size/rank errors");
    test_collectives(w);
    test_errors(w);
    test_algorithms(w);
    test_mesh(w);
    test_network(w);
    test_model(w);
    test_overflow(w);

    OK(ic_comm_split(w, 0, 7, &c), c != NULL && c != w);
    if (c) {
        s = r = -1;
        OK(ic_comm_size(c, &s), s == 1);
        OK(ic_comm_rank(c, &r), r == 0);
        reset();
        OK(ic_allgather(sb, rb, 4, IC_INT32, c), rb_is(0, 0, 4));
        CHECK(ic_finalize(&c) == IC_ERR_COMM && c != NULL, "finalize of a non-world");
        OK(ic_comm_free(&c), c == NULL);
    }
    c = sentinel;
    OK(ic_comm_split(w, IC_UNDEFINED, 0, &c), c == NULL);
    c = sentinel;
    CHECK(ic_comm_split(w, -5, 0, &c) == IC_ERR_ARG && c == sentinel, "negative color");
    CHECK(ic_comm_split(NULL, 0, 0, &c) == IC_ERR_COMM && c == sentinel, "split NULL comm");

    int zero[1] = {0}, one[1] = {1}, two[2] = {0, 0};
    c = NULL;
    OK(ic_comm_create_group(w, 1, zero, &c), c != NULL);
    if (c) {
        s = 0;
        OK(ic_comm_size(c, &s), s == 1);
        OK(ic_barrier(c), 1);
        OK(ic_comm_free(&c), c == NULL);
    }
    c = sentinel;
    CHECK(ic_comm_create_group(w, 1, one, &c) == IC_ERR_ARG && c == sentinel &&
              has(ic_last_error(), "ic_comm_create_group"),
          "group {1}: %s", ic_last_error());
    CHECK(ic_comm_create_group(w, 0, zero, &c) == IC_ERR_ARG && c == sentinel, "group n=0");
    CHECK(ic_comm_create_group(w, 2, two, &c) == IC_ERR_ARG && c == sentinel, "group n=2");
    CHECK(ic_comm_create_group(w, 1, NULL, &c) == IC_ERR_ARG && c == sentinel, "group NULL");
    CHECK(ic_comm_free(&w) == IC_ERR_COMM && w != NULL, "comm_free of the world");
    c = NULL;
    CHECK(ic_comm_free(&c) == IC_ERR_COMM && ic_comm_free(NULL) == IC_ERR_COMM, "free NULL");
    OK(ic_finalize(&w), w == NULL);
    CHECK(ic_finalize(&w) == IC_ERR_COMM, "double finalize");
}

/* The header's version and the library's agree, in both forms. */
static void test_version(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", IC_VERSION_MAJOR, IC_VERSION_MINOR, IC_VERSION_PATCH);
    CHECK(ic_get_version() == IC_VERSION, "ic_get_version() = %u, IC_VERSION = %d", ic_get_version(),
          IC_VERSION);
    CHECK(strcmp(ic_get_version_string(), want) == 0, "version string %s, want %s",
          ic_get_version_string(), want);
    CHECK(IC_VERSION == IC_VERSION_MAJOR * 10000 + IC_VERSION_MINOR * 100 + IC_VERSION_PATCH,
          "IC_VERSION %d", IC_VERSION);
}

int main(void)
{
    test_version();
    test_split_members();
    test_group_check();
    test_status_strings();
    test_comm_lifecycle();
    printf("test_comm: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
