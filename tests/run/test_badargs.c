/*
 * test_badargs.c — one rank's bad argument, and mismatched calls, on real
 * processes (docs/reliability.md).  Run under intercom-run.
 *
 * mode "badargs" (p = 1 or more): for every row of the table, the last
 * rank makes the call with one bad argument and the others make it
 * correctly.  The bad rank must get the row's error code with a message,
 * and nothing of its buffers may change; the others must not hang: an
 * all-to-all-like row fails on them with IC_ERR_PEER_REJECTED (naming the
 * bad rank) within 1 s, a rooted row may also succeed where a rank does
 * not depend on the bad one.  Guard bytes around every buffer must stay
 * intact, and a correct allreduce afterwards must succeed on every rank.
 * Then freed and garbage communicator and request handles must be
 * rejected with IC_ERR_COMM / IC_ERR_ARG, never used.
 *
 * mode "mismatch" (p >= 2): the ranks call different things (roots,
 * datatypes of one size, ops, collectives, counts) on a fresh
 * communicator.  No rank may return IC_OK with data that is wrong for its
 * own call, some rank must report the mismatch (in that call, or in its
 * next one, where a rank that only sent finds the other call's message),
 * the next call fails on every rank within 1 s and the one after it with
 * IC_ERR_REVOKED; the world still works.
 *
 * mode "mismatch-check": the same with ic_comm_set_check(sub, 1): every
 * rank gets IC_ERR_MISMATCH naming the differing rank and field, and a
 * correct call on the same communicator then succeeds.
 *
 * Built with IC_TEST_MPI (test_mpi_badargs_<impl>) it runs under mpirun
 * on the communicator from ic_comm_from_mpi (docs/mpi.md).
 */
#define _GNU_SOURCE 1
#include <intercom.h>
#ifdef IC_TEST_MPI
#include <intercom_mpi.h>
#endif

#include "run_expect.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 64       /* elements per buffer */
#define GUARD 64   /* guard bytes on each side */
#define PAT 0xa5

static int rank, size, failures;

/* A buffer of n bytes with GUARD pattern bytes on each side. */
typedef struct gbuf {
    unsigned char *raw;
    size_t n;
} gbuf_t;

static void *gb_new(gbuf_t *g, size_t n)
{
    g->n = n;
    g->raw = malloc(n + 2 * GUARD);
    memset(g->raw, PAT, n + 2 * GUARD);
    return g->raw + GUARD;
}

static int gb_guards_ok(const gbuf_t *g)
{
    for (size_t i = 0; i < GUARD; i++)
        if (g->raw[i] != PAT || g->raw[GUARD + g->n + i] != PAT)
            return 0;
    return 1;
}

static int gb_untouched(const gbuf_t *g)
{
    for (size_t i = 0; i < g->n + 2 * GUARD; i++)
        if (g->raw[i] != PAT)
            return 0;
    return 1;
}

static void user_fn(const void *in, void *inout, size_t n, ic_datatype_t d)
{
    (void)d;
    const double *a = in;
    double *b = inout;
    for (size_t i = 0; i < n; i++)
        b[i] += a[i];
}

enum { EVERYONE, ROOTED }; /* whether every good rank depends on the bad one */

typedef struct row {
    const char *what;
    ic_status_t code;
    int kind;
} row_t;

static const row_t rows[] = {
    {"allreduce: dtype out of range", IC_ERR_DTYPE, EVERYONE},
    {"allreduce: op NULL", IC_ERR_OP, EVERYONE},
    {"allreduce: bitwise and on double", IC_ERR_OP, EVERYONE},
    {"allreduce: a freed user op", IC_ERR_OP, EVERYONE},
    {"allreduce: garbage op pointer", IC_ERR_OP, EVERYONE},
    {"allreduce: count too large", IC_ERR_COUNT, EVERYONE},
    {"allreduce: recvbuf NULL", IC_ERR_BUFFER, EVERYONE},
    {"allreduce: recvbuf IC_IN_PLACE", IC_ERR_BUFFER, EVERYONE},
    {"allgather: sendbuf NULL", IC_ERR_BUFFER, EVERYONE},
    {"alltoall: sendbuf == recvbuf without IC_IN_PLACE", IC_ERR_BUFFER, EVERYONE},
    {"iallreduce: req NULL", IC_ERR_ARG, EVERYONE},
    {"reduce_scatter: counts NULL", IC_ERR_COUNT, EVERYONE},
    {"bcast: root = size", IC_ERR_ROOT, ROOTED},
    {"bcast: root = -1", IC_ERR_ROOT, ROOTED},
    {"gatherv: counts NULL", IC_ERR_COUNT, ROOTED},
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

/* Makes row k's call; bad selects the bad variant. */
static ic_status_t call_row(int k, int bad, ic_comm_t *comm, double *s, double *r, size_t *counts)
{
    ic_op_t *op = NULL;
    ic_status_t st = IC_OK;
    switch (k) {
    case 0:
        return ic_allreduce(s, r, N, bad ? (ic_datatype_t)(IC_DATATYPE_COUNT + 3) : IC_DOUBLE,
                            IC_SUM, comm);
    case 1:
        return ic_allreduce(s, r, N, IC_DOUBLE, bad ? NULL : IC_SUM, comm);
    case 2:
        return ic_allreduce(s, r, N, IC_DOUBLE, bad ? IC_BAND : IC_SUM, comm);
    case 3:
        if (!bad)
            return ic_allreduce(s, r, N, IC_DOUBLE, IC_SUM, comm);
        ic_op_create(user_fn, 1, &op);
        {
            ic_op_t *dead = op;
            ic_op_free(&op);
            return ic_allreduce(s, r, N, IC_DOUBLE, dead, comm);
        }
    case 4: {
        static double junk[8];
        return ic_allreduce(s, r, N, IC_DOUBLE, bad ? (const ic_op_t *)(void *)junk : IC_SUM,
                            comm);
    }
    case 5:
        return ic_allreduce(s, r, bad ? SIZE_MAX / 2 : N, IC_DOUBLE, IC_SUM, comm);
    case 6:
        return ic_allreduce(s, bad ? NULL : r, N, IC_DOUBLE, IC_SUM, comm);
    case 7:
        return ic_allreduce(s, bad ? IC_IN_PLACE : r, N, IC_DOUBLE, IC_SUM, comm);
    case 8:
        return ic_allgather(bad ? NULL : s, r, N / size, IC_DOUBLE, comm);
    case 9:
        return ic_alltoall(bad ? r : s, r, N / size, IC_DOUBLE, comm);
    case 10: {
        ic_request_t *req = NULL;
        st = ic_iallreduce(s, r, N, IC_DOUBLE, IC_SUM, comm, bad ? NULL : &req);
        if (st == IC_OK)
            st = ic_wait(&req);
        return st;
    }
    case 11:
        return ic_reduce_scatter(s, r, bad ? NULL : counts, IC_DOUBLE, IC_SUM, comm);
    case 12:
        return ic_bcast(r, N, IC_DOUBLE, bad ? size : 0, comm);
    case 13:
        return ic_bcast(r, N, IC_DOUBLE, bad ? -1 : 0, comm);
    case 14:
        return ic_gatherv(s, r, bad ? NULL : counts, NULL, IC_DOUBLE, 0, comm);
    }
    return IC_ERR_INTERNAL;
}

static void correct_call(ic_comm_t *comm, const char *after)
{
    double v = rank + 1, sum = 0;
    ic_status_t st = ic_allreduce(&v, &sum, 1, IC_DOUBLE, IC_SUM, comm);
    EXPECT(st == IC_OK && sum == size * (size + 1) / 2.0,
           "the correct call after '%s': %s (%s), sum %g", after, ic_status_string(st),
           ic_last_error(), sum);
}

static void badargs(ic_comm_t *world)
{
    int badrank = size - 1;
    size_t counts[256];
    for (int i = 0; i < size; i++)
        counts[i] = (size_t)(N / size);
    for (int k = 0; k < NROWS; k++) {
        int bad = rank == badrank;
        gbuf_t gs, gr;
        double *s = gb_new(&gs, N * sizeof(double));
        double *r = gb_new(&gr, N * sizeof(double));
        for (int i = 0; i < N; i++)
            s[i] = rank + i;
        double t0 = now();
        ic_status_t st = call_row(k, bad, world, s, r, counts);
        double dt = now() - t0;
        if (bad) {
            EXPECT(st == rows[k].code && ic_last_error()[0],
                   "row '%s': the bad rank got %s (%s), expected %s", rows[k].what,
                   ic_status_string(st), ic_last_error(), ic_status_string(rows[k].code));
            EXPECT(gb_untouched(&gr), "row '%s': the bad rank's receive buffer changed",
                   rows[k].what);
        } else if (rows[k].kind == EVERYONE) {
            EXPECT(st == IC_ERR_PEER_REJECTED && strstr(ic_last_error(), "rejected"),
                   "row '%s': a good rank got %s (%s), expected IC_ERR_PEER_REJECTED",
                   rows[k].what, ic_status_string(st), ic_last_error());
        } else {
            EXPECT(st == IC_OK || st == IC_ERR_PEER_REJECTED,
                   "row '%s': a good rank got %s (%s)", rows[k].what, ic_status_string(st),
                   ic_last_error());
        }
        EXPECT(dt < 1.0, "row '%s': the call took %.2f s", rows[k].what, dt);
        if (getenv("TEST_VERBOSE"))
            printf("row '%s': %s in %.1f ms: %s\n", rows[k].what, ic_status_string(st), dt * 1e3,
                   ic_last_error());
        EXPECT(gb_guards_ok(&gs) && gb_guards_ok(&gr), "row '%s': a guard byte changed",
               rows[k].what);
        free(gs.raw);
        free(gr.raw);
        correct_call(world, rows[k].what);
    }
    /* A freed and a garbage communicator are rejected, never used. */
    ic_comm_t *sub = NULL;
    EXPECT(ic_comm_split(world, 0, rank, &sub) == IC_OK, "split: %s", ic_last_error());
    ic_comm_t *dead = sub;
    EXPECT(ic_comm_free(&sub) == IC_OK, "free: %s", ic_last_error());
    double v = 1, w = 0;
    EXPECT(ic_allreduce(&v, &w, 1, IC_DOUBLE, IC_SUM, dead) == IC_ERR_COMM && w == 0,
           "a freed communicator: %s", ic_last_error());
    static char junk[256];
    EXPECT(ic_allreduce(&v, &w, 1, IC_DOUBLE, IC_SUM, (ic_comm_t *)(void *)junk) == IC_ERR_COMM,
           "a garbage communicator: %s", ic_last_error());
    EXPECT(ic_comm_free(&dead) == IC_ERR_COMM, "a second free: %s", ic_last_error());
    correct_call(world, "the freed communicator");
    /* A completed (freed) and a garbage request are rejected, never used. */
    ic_request_t *req = NULL;
    double y = 0;
    EXPECT(ic_iallreduce(&v, &y, 1, IC_DOUBLE, IC_SUM, world, &req) == IC_OK &&
               ic_wait(&req) == IC_OK && req == NULL && y == size,
           "iallreduce: %s", ic_last_error());
    correct_call(world, "the nonblocking call");
    EXPECT(ic_iallreduce(&v, &y, 1, IC_DOUBLE, IC_SUM, world, &req) == IC_OK, "iallreduce: %s",
           ic_last_error());
    ic_request_t *old = req;
    EXPECT(ic_wait(&req) == IC_OK, "wait: %s", ic_last_error());
    int flag = 0;
    EXPECT(ic_wait(&old) == IC_ERR_ARG, "a freed request in ic_wait: %s", ic_last_error());
    EXPECT(ic_test(&old, &flag) == IC_ERR_ARG, "a freed request in ic_test: %s",
           ic_last_error());
    EXPECT(ic_start(old) == IC_ERR_ARG, "a freed request in ic_start: %s", ic_last_error());
    EXPECT(ic_request_free(&old) == IC_ERR_ARG, "a freed request in ic_request_free: %s",
           ic_last_error());
    ic_request_t *junk_req = (ic_request_t *)(void *)junk;
    EXPECT(ic_wait(&junk_req) == IC_ERR_ARG, "a garbage request: %s", ic_last_error());
    correct_call(world, "the freed requests");
}

/* Row k of the mismatch table on comm: returns this rank's status and
 * whether its result (when IC_OK) is right for its own call. */
static ic_status_t call_mismatch(int k, ic_comm_t *comm, int *right)
{
    double s[N], r[N];
    int32_t si[N], ri[N];
    for (int i = 0; i < N; i++) {
        s[i] = rank + 1;
        r[i] = -1;
        si[i] = rank + 1;
        ri[i] = -1;
    }
    ic_status_t st = IC_OK;
    double want = size * (size + 1) / 2.0;
    *right = 1;
    switch (k) {
    case 0: { /* bcast from different roots */
        int root = rank == 0 ? 0 : 1;
        for (int i = 0; i < N; i++)
            r[i] = rank == root ? 100 + root : -1;
        st = ic_bcast(r, N, IC_DOUBLE, root, comm);
        for (int i = 0; i < N; i++)
            *right &= r[i] == 100 + root;
        break;
    }
    case 1: /* int32 on rank 0, float on the others: the same size */
        if (rank == 0) {
            st = ic_allreduce(si, ri, N, IC_INT32, IC_SUM, comm);
            for (int i = 0; i < N; i++)
                *right &= ri[i] == (int32_t)want;
        } else {
            float sf[N], rf[N];
            for (int i = 0; i < N; i++)
                sf[i] = (float)(rank + 1);
            st = ic_allreduce(sf, rf, N, IC_FLOAT, IC_SUM, comm);
            for (int i = 0; i < N; i++)
                *right &= rf[i] == (float)want;
        }
        break;
    case 2: /* sum on rank 0, max on the others */
        st = ic_allreduce(s, r, N, IC_DOUBLE, rank == 0 ? IC_SUM : IC_MAX, comm);
        for (int i = 0; i < N; i++)
            *right &= r[i] == (rank == 0 ? want : size);
        break;
    case 3: /* bcast on rank 0, allreduce on the others */
        if (rank == 0) {
            for (int i = 0; i < N; i++)
                r[i] = 7;
            st = ic_bcast(r, N, IC_DOUBLE, 0, comm);
            for (int i = 0; i < N; i++)
                *right &= r[i] == 7;
        } else {
            st = ic_allreduce(s, r, N, IC_DOUBLE, IC_SUM, comm);
            for (int i = 0; i < N; i++)
                *right &= r[i] == want;
        }
        break;
    case 4: /* a different count on rank 0 */
        st = ic_allreduce(s, r, rank == 0 ? N : N - 1, IC_DOUBLE, IC_SUM, comm);
        for (int i = 0; i < (rank == 0 ? N : N - 1); i++)
            *right &= r[i] == want;
        break;
    }
    return st;
}

static const char *const mismatch_names[] = {"roots", "int32 vs float", "sum vs max",
                                             "bcast vs allreduce", "counts"};

static void mismatch(ic_comm_t *world, int check)
{
    for (int k = 0; k < 5; k++) {
        ic_comm_t *sub = NULL;
        EXPECT(ic_comm_split(world, 0, rank, &sub) == IC_OK, "split: %s", ic_last_error());
        if (check)
            ic_comm_set_check(sub, 1);
        int right;
        ic_status_t st = call_mismatch(k, sub, &right);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", ic_last_error());
        if (getenv("TEST_VERBOSE"))
            printf("%s%s: %s: %s\n", mismatch_names[k], check ? " (IC_CHECK)" : "",
                   ic_status_string(st), msg);
        EXPECT(st != IC_OK || right, "%s: IC_OK with a wrong result", mismatch_names[k]);
        int mine = st == IC_ERR_MISMATCH, any = 0;
        if (check) {
            EXPECT(st == IC_ERR_MISMATCH && strstr(msg, "IC_CHECK: rank"),
                   "%s with IC_CHECK: %s (%s)", mismatch_names[k], ic_status_string(st), msg);
            correct_call(sub, mismatch_names[k]); /* the communicator goes on */
        } else {
            double t0 = now();
            double v = 1, w = 0;
            ic_status_t next = ic_allreduce(&v, &w, 1, IC_DOUBLE, IC_SUM, sub);
            /* IC_ERR_MISMATCH where this rank itself only now finds the
             * other call's message (it returned IC_OK for its own call). */
            EXPECT(next == IC_ERR_REVOKED || next == IC_ERR_MISMATCH,
                   "%s: the next call on sub: %s (%s)", mismatch_names[k],
                   ic_status_string(next), ic_last_error());
            mine |= next == IC_ERR_MISMATCH;
            st = ic_barrier(sub);
            EXPECT(st == IC_ERR_REVOKED, "%s: the call after: %s", mismatch_names[k],
                   ic_status_string(st));
            EXPECT(now() - t0 < 1.0, "%s: the next calls took %.2f s", mismatch_names[k],
                   now() - t0);
        }
        /* Some rank found the mismatch, in the call or in the next one. */
        EXPECT(ic_allreduce(&mine, &any, 1, IC_INT32, IC_MAX, world) == IC_OK, "world: %s",
               ic_last_error());
        EXPECT(any, "%s: no rank reported IC_ERR_MISMATCH", mismatch_names[k]);
        EXPECT(ic_comm_free(&sub) == IC_OK, "free: %s", ic_last_error());
        correct_call(world, mismatch_names[k]);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "badargs";
    setenv("IC_TIMEOUT", "20", 0);
    ic_comm_t *world = NULL;
#ifdef IC_TEST_MPI
    MPI_Init(&argc, &argv);
    if (ic_comm_from_mpi(MPI_COMM_WORLD, &world) != IC_OK) {
#else
    if (ic_init(&world) != IC_OK) {
#endif
        fprintf(stderr, "opening the world: %s\n", ic_last_error());
        return 2;
    }
    ic_comm_rank(world, &rank);
    ic_comm_size(world, &size);
    if (strcmp(mode, "badargs") == 0)
        badargs(world);
    else if (size >= 2)
        mismatch(world, strcmp(mode, "mismatch-check") == 0);
#ifdef IC_TEST_MPI
    ic_status_t st = ic_comm_free_mpi(&world);
    MPI_Finalize();
#else
    ic_status_t st = ic_finalize(&world);
#endif
    EXPECT(st == IC_OK, "closing the world: %s", ic_last_error());
    printf("rank %d: %s: %s\n", rank, mode, failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
