/*
 * dropin_memo.c — calls that repeat, or almost repeat, an earlier call:
 * the drop-in remembers its last blocking calls per communicator and runs
 * a call equal to one of them (buffers aside) without translating it again
 * (src/mpi_shim/memo.c).  Every call here is checked against its serial
 * reference, so a call taken for a remembered one it does not equal gives
 * a wrong result:
 *   - the same call with other buffers (three in turn);
 *   - roots and counts cycling through more combinations than the memo's
 *     ways and the plan cache's (plans leave the cache while remembered);
 *   - MPI_IN_PLACE on every other call, with the same counts;
 *   - the v-forms' count and displacement arrays changed in place (the
 *     same pointers, other contents);
 *   - a user op freed and another created (MPI may give it the handle);
 *   - the same counts with another datatype, and the large-count form;
 *   - a nonblocking call with the same arguments started before and
 *     completed after a blocking one (it borrows the cached plan).
 */
#include "dropin.h"

#include <stdlib.h>
#include <string.h>

/* Calls per part: few, since MPICH alone on an oversubscribed host takes
 * milliseconds per call (dropin_test.sh runs the program without the
 * drop-in too). */
#define MEMO_ITERS 10
#define MEMO_MAXC 12 /* the largest count of cycling() */

static int rank_of(MPI_Comm c)
{
    int r;
    MPI_Comm_rank(c, &r);
    return r;
}

static int size_of(MPI_Comm c)
{
    int p;
    MPI_Comm_size(c, &p);
    return p;
}

/* The same gather and allreduce, other buffers each time. */
static void same_call(MPI_Comm comm, int me, int p)
{
    int *in[3], *out[3];
    for (int b = 0; b < 3; b++) {
        in[b] = xmalloc(sizeof(int) * 4);
        out[b] = xmalloc(sizeof(int) * 4 * (size_t)p);
    }
    for (int it = 0; it < MEMO_ITERS; it++) {
        int b = it % 3;
        for (int i = 0; i < 4; i++)
            in[b][i] = val(me, i, it);
        fill_int(out[b], 4 * (size_t)p, SENTINEL);
        OK(MPI_Gather(in[b], 4, MPI_INT, out[b], 4, MPI_INT, 0, comm));
        if (me == 0)
            for (int r = 0; r < p; r++)
                for (int i = 0; i < 4; i++)
                    if (!check(out[b][4 * r + i] == val(r, i, it), "memo gather it %d", it))
                        goto next;
    next:
        OK(MPI_Allreduce(in[b], out[b], 4, MPI_INT, MPI_SUM, comm));
        for (int i = 0; i < 4; i++) {
            int want = 0;
            for (int r = 0; r < p; r++)
                want += val(r, i, it);
            if (!check(out[b][i] == want, "memo allreduce it %d", it))
                break;
        }
    }
    for (int b = 0; b < 3; b++) {
        free(in[b]);
        free(out[b]);
    }
}

/* Roots and counts cycling: bcast, reduce, scatter, gather.  First four
 * combinations again and again (roots 0 and p - 1, counts 1 and 3: all
 * remembered, so the calls after the first four repeat remembered ones
 * that differ from them only in the root or the count), then MEMO_MAXC
 * calls of counts 1, 2, ... with the roots in turn (more distinct calls
 * than the memo's and the cache's ways). */
static void cycling(MPI_Comm comm, int me, int p)
{
    size_t cap = (size_t)MEMO_MAXC * (size_t)p;
    int *a = xmalloc(sizeof(int) * cap), *b = xmalloc(sizeof(int) * cap);
    for (int it = 0; it < MEMO_ITERS + MEMO_MAXC; it++) {
        int small = it < MEMO_ITERS, k = it - MEMO_ITERS;
        int root = small ? (it % 2) * (p - 1) : k % p;
        int n = small ? 1 + 2 * ((it / 2) % 2) : 1 + k;
        for (int i = 0; i < n; i++)
            a[i] = me == root ? val(root, i, it) : SENTINEL;
        OK(MPI_Bcast(a, n, MPI_INT, root, comm));
        for (int i = 0; i < n; i++)
            if (!check(a[i] == val(root, i, it), "memo bcast it %d root %d n %d", it, root, n))
                break;
        for (int i = 0; i < n; i++)
            a[i] = val(me, i, it + 1);
        fill_int(b, (size_t)n, SENTINEL);
        OK(MPI_Reduce(a, b, n, MPI_INT, MPI_MAX, root, comm));
        if (me == root)
            for (int i = 0; i < n; i++) {
                int want = val(0, i, it + 1);
                for (int r = 1; r < p; r++)
                    want = val(r, i, it + 1) > want ? val(r, i, it + 1) : want;
                if (!check(b[i] == want, "memo reduce it %d root %d n %d", it, root, n))
                    break;
            }
        for (int i = 0; i < n * p; i++)
            a[i] = val(i / n, i % n, it + 2);
        fill_int(b, (size_t)n, SENTINEL);
        OK(MPI_Scatter(a, n, MPI_INT, b, n, MPI_INT, root, comm));
        for (int i = 0; i < n; i++)
            if (!check(b[i] == val(me, i, it + 2), "memo scatter it %d root %d n %d", it, root, n))
                break;
        fill_int(a, (size_t)(n * p), SENTINEL);
        OK(MPI_Gather(b, n, MPI_INT, a, n, MPI_INT, root, comm));
        if (me == root)
            for (int i = 0; i < n * p; i++)
                if (!check(a[i] == val(i / n, i % n, it + 2), "memo gather it %d root %d", it,
                           root))
                    break;
    }
    free(a);
    free(b);
}

/* MPI_IN_PLACE on every other call, the counts unchanged. */
static void in_place(MPI_Comm comm, int me, int p)
{
    int *a = xmalloc(sizeof(int) * 3 * (size_t)p), *b = xmalloc(sizeof(int) * 3 * (size_t)p);
    for (int it = 0; it < MEMO_ITERS; it++) {
        int ip = it % 2;
        for (int i = 0; i < 3; i++)
            a[i] = val(me, i, it);
        fill_int(b, 3, SENTINEL);
        if (ip)
            memcpy(b, a, sizeof(int) * 3);
        OK(MPI_Allreduce(ip ? MPI_IN_PLACE : a, b, 3, MPI_INT, MPI_SUM, comm));
        for (int i = 0; i < 3; i++) {
            int want = 0;
            for (int r = 0; r < p; r++)
                want += val(r, i, it);
            if (!check(b[i] == want, "memo allreduce in place %d it %d", ip, it))
                break;
        }
        /* gather with the root's block in place */
        fill_int(b, 3 * (size_t)p, SENTINEL);
        if (ip && me == 0)
            memcpy(b, a, sizeof(int) * 3);
        OK(MPI_Gather(ip && me == 0 ? MPI_IN_PLACE : a, 3, MPI_INT, b, 3, MPI_INT, 0, comm));
        if (me == 0)
            for (int i = 0; i < 3 * p; i++)
                if (!check(b[i] == val(i / 3, i % 3, it), "memo gather in place %d it %d", ip, it))
                    break;
        /* scatter with the root's block left in place */
        for (int i = 0; i < 3 * p; i++)
            b[i] = me == 0 ? val(i / 3, i % 3, it + 5) : SENTINEL;
        fill_int(a, 3, SENTINEL);
        OK(MPI_Scatter(b, 3, MPI_INT, ip && me == 0 ? MPI_IN_PLACE : a, 3, MPI_INT, 0, comm));
        const int *mine = ip && me == 0 ? b : a;
        for (int i = 0; i < 3; i++)
            if (!check(mine[i] == val(me, i, it + 5), "memo scatter in place %d it %d", ip, it))
                break;
    }
    free(a);
    free(b);
}

/* The v-forms: the same arrays, contents changed every call. */
static void arrays_changed(MPI_Comm comm, int me, int p)
{
    int *sc = xmalloc(sizeof(int) * (size_t)p), *sd = xmalloc(sizeof(int) * (size_t)p);
    int *rc = xmalloc(sizeof(int) * (size_t)p), *rd = xmalloc(sizeof(int) * (size_t)p);
    size_t cap = (size_t)p * 8 + 8;
    int *a = xmalloc(sizeof(int) * cap), *b = xmalloc(sizeof(int) * cap);
    for (int it = 0; it < MEMO_ITERS; it++) {
        int gap = it % 2, total = 0; /* every other call leaves a gap between blocks */
        for (int r = 0; r < p; r++) {
            rc[r] = 1 + (r + it) % 3;
            rd[r] = total;
            total += rc[r] + gap;
        }
        /* gatherv to root 0 */
        for (int i = 0; i < rc[me]; i++)
            a[i] = val(me, i, it);
        fill_int(b, cap, SENTINEL);
        OK(MPI_Gatherv(a, rc[me], MPI_INT, b, rc, rd, MPI_INT, 0, comm));
        if (me == 0)
            for (int r = 0; r < p; r++)
                for (int i = 0; i < rc[r]; i++)
                    if (!check(b[rd[r] + i] == val(r, i, it), "memo gatherv it %d", it))
                        goto scatterv;
    scatterv:
        for (int r = 0; r < p; r++)
            for (int i = 0; i < rc[r]; i++)
                b[rd[r] + i] = val(r, i, it + 3);
        fill_int(a, cap, SENTINEL);
        OK(MPI_Scatterv(b, rc, rd, MPI_INT, a, rc[me], MPI_INT, 0, comm));
        for (int i = 0; i < rc[me]; i++)
            if (!check(a[i] == val(me, i, it + 3), "memo scatterv it %d", it))
                break;
        /* allgatherv */
        for (int i = 0; i < rc[me]; i++)
            a[i] = val(me, i, it + 4);
        fill_int(b, cap, SENTINEL);
        OK(MPI_Allgatherv(a, rc[me], MPI_INT, b, rc, rd, MPI_INT, comm));
        for (int r = 0; r < p; r++)
            for (int i = 0; i < rc[r]; i++)
                if (!check(b[rd[r] + i] == val(r, i, it + 4), "memo allgatherv it %d", it))
                    goto alltoallv;
    alltoallv:
        /* alltoallv: rank me sends 1 + (me + r + it) % 2 ints to r */
        for (int r = 0, s = 0, t = 0; r < p; r++) {
            sc[r] = 1 + (me + r + it) % 2;
            sd[r] = s;
            s += sc[r] + gap;
            rc[r] = 1 + (r + me + it) % 2;
            rd[r] = t;
            t += rc[r];
        }
        for (int r = 0; r < p; r++)
            for (int i = 0; i < sc[r]; i++)
                a[sd[r] + i] = val(me, 100 * r + i, it);
        fill_int(b, cap, SENTINEL);
        OK(MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, comm));
        for (int r = 0; r < p; r++)
            for (int i = 0; i < rc[r]; i++)
                if (!check(b[rd[r] + i] == val(r, 100 * me + i, it), "memo alltoallv it %d", it))
                    goto reduce_scatter;
    reduce_scatter:
        total = 0;
        for (int r = 0; r < p; r++) {
            rc[r] = (r + it) % 3; /* zero counts too */
            total += rc[r];
        }
        for (int i = 0; i < total; i++)
            a[i] = val(me, i, it + 6);
        fill_int(b, cap, SENTINEL);
        OK(MPI_Reduce_scatter(a, b, rc, MPI_INT, MPI_SUM, comm));
        int off = 0;
        for (int r = 0; r < me; r++)
            off += rc[r];
        for (int i = 0; i < rc[me]; i++) {
            int want = 0;
            for (int r = 0; r < p; r++)
                want += val(r, off + i, it + 6);
            if (!check(b[i] == want, "memo reduce_scatter it %d", it))
                break;
        }
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(a);
    free(b);
}

static void op_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void op_min(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] < ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

/* A user op freed and another made, alternately summing and taking the
 * minimum, with the same arguments otherwise. */
static void user_ops(MPI_Comm comm, int me, int p)
{
    int a[2], b[2];
    for (int it = 0; it < 4; it++) {
        MPI_Op op;
        int sum = it % 2 == 0;
        OK(MPI_Op_create(sum ? op_sum : op_min, 1, &op));
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < 2; i++)
                a[i] = val(me, i, it + k);
            OK(MPI_Allreduce(a, b, 2, MPI_INT, op, comm));
            for (int i = 0; i < 2; i++) {
                int want = val(0, i, it + k);
                for (int r = 1; r < p; r++)
                    want = sum ? want + val(r, i, it + k)
                               : (val(r, i, it + k) < want ? val(r, i, it + k) : want);
                if (!check(b[i] == want, "memo user op %s it %d", sum ? "sum" : "min", it))
                    break;
            }
        }
        OK(MPI_Op_free(&op));
    }
}

/* The same count with MPI_INT and MPI_FLOAT in turn, the large-count form
 * in between (MPI 4), and a nonblocking call with the same arguments in
 * flight across a blocking one. */
static void types_and_forms(MPI_Comm comm, int me, int p)
{
    for (int it = 0; it < MEMO_ITERS; it++) {
        int ia[2] = {val(me, 0, it), val(me, 1, it)}, ib[2] = {SENTINEL, SENTINEL};
        float fa[2] = {(float)val(me, 0, it), (float)val(me, 1, it)}, fb[2] = {0, 0};
        int want[2] = {0, 0};
        for (int r = 0; r < p; r++)
            for (int i = 0; i < 2; i++)
                want[i] += val(r, i, it);
        if (it % 3 == 2) {
#if DROPIN_MPI4
            OK(MPI_Allreduce_c(ia, ib, 2, MPI_INT, MPI_SUM, comm));
#else
            OK(MPI_Allreduce(ia, ib, 2, MPI_INT, MPI_SUM, comm));
#endif
        } else {
            OK(MPI_Allreduce(ia, ib, 2, MPI_INT, MPI_SUM, comm));
        }
        OK(MPI_Allreduce(fa, fb, 2, MPI_FLOAT, MPI_SUM, comm));
        for (int i = 0; i < 2; i++) {
            check(ib[i] == want[i], "memo allreduce int it %d", it);
            check(fb[i] == (float)want[i], "memo allreduce float it %d", it);
        }
        /* started before, completed after a blocking call of the same arguments */
        int na[2] = {ia[0] + 1, ia[1] + 1}, nb[2] = {SENTINEL, SENTINEL};
        MPI_Request req;
        OK(MPI_Iallreduce(na, nb, 2, MPI_INT, MPI_SUM, comm, &req));
        fill_int(ib, 2, SENTINEL);
        OK(MPI_Allreduce(ia, ib, 2, MPI_INT, MPI_SUM, comm));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < 2; i++) {
            check(ib[i] == want[i], "memo allreduce beside a nonblocking one it %d", it);
            check(nb[i] == want[i] + p, "memo iallreduce beside a blocking one it %d", it);
        }
    }
}

void test_memo(MPI_Comm comm)
{
    int me = rank_of(comm), p = size_of(comm);
    same_call(comm, me, p);
    cycling(comm, me, p);
    in_place(comm, me, p);
    arrays_changed(comm, me, p);
    user_ops(comm, me, p);
    types_and_forms(comm, me, p);
}
