/*
 * test_plan_cache.c — the plan cache (core/coll_run.c keeps the last
 * IC_PLAN_CACHE_WAYS plans of each collective) between real processes:
 *   intercom-run -n P test_plan_cache
 *
 * Calls that cycle through more distinct argument sets than the cache
 * holds (every root x three counts, three rounds: hits, misses and
 * evictions), a v-form whose counts array keeps its address while its
 * contents change, and calls that differ only in the op or in
 * IC_IN_PLACE; nonblocking calls, which borrow cached plans: two with the
 * same arguments in flight at once, mixed with blocking ones, a cache
 * dropped (ic_comm_set_algorithm) while one is in flight, and a completed
 * request's stale handle refused; alltoallv by bruck and dr, whose plans
 * depend on the other ranks' counts (not cached: rank 0's arguments stay
 * while the blocks it forwards change length; counts that disagree are
 * refused and the communicator goes on; nonblocking calls are refused).
 * Every result is checked against a serial reference, so a cache that reused a plan for other arguments, or
 * lent one plan to two calls at once, fails here.
 */
#include "intercom.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np, failed;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            if (failed++ < 10) {                                                               \
                printf("rank %d FAIL line %d: ", me, __LINE__);                                \
                printf(__VA_ARGS__);                                                           \
                printf("\n");                                                                  \
            }                                                                                  \
        }                                                                                      \
    } while (0)

#define OK(call)                                                                               \
    do {                                                                                       \
        ic_status_t st_ = (call);                                                              \
        CHECK(st_ == IC_OK, "%s: %s (%s)", #call, ic_status_string(st_), ic_last_error());     \
    } while (0)

static unsigned char pattern(int round, int root, size_t count, size_t i)
{
    return (unsigned char)(31u * (unsigned)round + 17u * (unsigned)root + 7u * (unsigned)count +
                           (unsigned)i);
}

/* Bcast from every root with three counts, three rounds: 3p distinct calls
 * (more than the cache holds for p >= 3), each repeated three times. */
static void cycle_bcast(ic_comm_t *w)
{
    static const size_t counts[] = {1, 7, 5000};
    unsigned char *buf = malloc(5000);
    for (int round = 0; round < 3; round++)
        for (int root = 0; root < np; root++)
            for (int k = 0; k < 3; k++) {
                size_t n = counts[k];
                for (size_t i = 0; i < n; i++)
                    buf[i] = me == root ? pattern(round, root, n, i) : 0xEE;
                OK(ic_bcast(buf, n, IC_BYTE, root, w));
                size_t bad = n;
                for (size_t i = 0; i < n && bad == n; i++)
                    if (buf[i] != pattern(round, root, n, i))
                        bad = i;
                CHECK(bad == n, "bcast round %d root %d count %zu: byte %zu wrong", round, root,
                      n, bad);
            }
    free(buf);
}

/* Gatherv with one counts array whose contents change between calls
 * while its address stays: a cache keyed on the address would reuse the
 * plan of other counts. */
static void same_address_counts(ic_comm_t *w)
{
    size_t *counts = malloc(sizeof(size_t) * (size_t)np);
    size_t *displs = malloc(sizeof(size_t) * (size_t)np);
    int32_t *send = malloc(sizeof(int32_t) * 64);
    int32_t *recv = malloc(sizeof(int32_t) * 64 * (size_t)np);
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < 10; k++) {
            size_t total = 0;
            for (int r = 0; r < np; r++) {
                counts[r] = (size_t)((r + k) % 4) * (size_t)(k + 1);
                displs[r] = total;
                total += counts[r];
            }
            for (size_t i = 0; i < counts[me]; i++)
                send[i] = me * 1000 + k * 10 + (int32_t)i;
            for (size_t i = 0; i < total + 1; i++)
                recv[i] = -1;
            int root = k % np;
            OK(ic_gatherv(send, recv, counts, displs, IC_INT32, root, w));
            if (me != root)
                continue;
            int good = recv[total] == -1;
            for (int r = 0; r < np; r++)
                for (size_t i = 0; i < counts[r]; i++)
                    good &= recv[displs[r] + i] == r * 1000 + k * 10 + (int32_t)i;
            CHECK(good, "gatherv round %d k %d: result wrong", round, k);
        }
    free(counts);
    free(displs);
    free(send);
    free(recv);
}

/* Allreduce alternating SUM and MAX, and in place and not, on the same
 * buffers. */
static void op_and_in_place(ic_comm_t *w)
{
    int32_t in[5], out[5];
    for (int k = 0; k < 12; k++) {
        int use_max = k % 2, in_place = (k / 2) % 2;
        for (int i = 0; i < 5; i++)
            in[i] = out[i] = (me + 1) * (i + 1) + k;
        const ic_op_t *op = use_max ? IC_MAX : IC_SUM;
        if (in_place)
            OK(ic_allreduce(IC_IN_PLACE, out, 5, IC_INT32, op, w));
        else
            OK(ic_allreduce(in, out, 5, IC_INT32, op, w));
        int good = 1;
        for (int i = 0; i < 5; i++) {
            int32_t want = 0;
            for (int r = 0; r < np; r++) {
                int32_t v = (r + 1) * (i + 1) + k;
                want = use_max ? (r == 0 || v > want ? v : want) : want + v;
            }
            good &= out[i] == want;
        }
        CHECK(good, "allreduce k %d (%s, %s): result wrong", k, use_max ? "max" : "sum",
              in_place ? "in place" : "not in place");
    }
}

static int32_t sum_of(int i, int k)
{
    int32_t want = 0;
    for (int r = 0; r < np; r++)
        want += (r + 1) * (i + 1) + k;
    return want;
}

static void fill(int32_t *v, int k)
{
    for (int i = 0; i < 6; i++)
        v[i] = (me + 1) * (i + 1) + k;
}

static int sums_ok(const int32_t *v, int k)
{
    int good = 1;
    for (int i = 0; i < 6; i++)
        good &= v[i] == sum_of(i, k);
    return good;
}

/* Nonblocking calls borrow cached plans and give them back. */
static void nonblocking(ic_comm_t *w)
{
    int32_t in1[6], in2[6], out1[6], out2[6], blk[6];
    unsigned char b[40];
    for (int k = 0; k < 30; k++) {
        ic_request_t *r1 = NULL, *r2 = NULL, *r3 = NULL;
        fill(in1, k);
        fill(in2, k + 1);
        for (int i = 0; i < 40; i++)
            b[i] = me == k % np ? (unsigned char)(k + i) : 0;
        /* Two calls with the same arguments in flight: one plan each. */
        OK(ic_iallreduce(in1, out1, 6, IC_INT32, IC_SUM, w, &r1));
        OK(ic_iallreduce(in2, out2, 6, IC_INT32, IC_SUM, w, &r2));
        OK(ic_ibcast(b, 40, IC_BYTE, k % np, w, &r3));
        if (k == 10) /* drops the cache while three plans are lent out */
            OK(ic_comm_set_algorithm(w, IC_COLL_ALLREDUCE, "auto"));
        ic_request_t *stale = r2;
        OK(ic_wait(&r3));
        OK(ic_wait(&r2));
        int flag = 0;
        if (k % 5 == 0) { /* the completed request's handle is not the caller's any more */
            ic_status_t st = ic_test(&stale, &flag);
            CHECK(st == IC_ERR_ARG, "ic_test of a completed request's handle gave %s",
                  ic_status_string(st));
        }
        while (!flag)
            OK(ic_test(&r1, &flag));
        CHECK(r1 == NULL && r2 == NULL && r3 == NULL, "k %d: a completed handle is not NULL", k);
        /* The same arguments blocking, between the nonblocking rounds. */
        fill(blk, k + 2);
        OK(ic_allreduce(IC_IN_PLACE, blk, 6, IC_INT32, IC_SUM, w));
        int bgood = 1;
        for (int i = 0; i < 40; i++)
            bgood &= b[i] == (unsigned char)(k + i);
        CHECK(sums_ok(out1, k) && sums_ok(out2, k + 1) && sums_ok(blk, k + 2) && bgood,
              "nonblocking round %d: result wrong", k);
    }
}

/* Alltoallv by bruck and dr (forced; they plan from a size exchange):
 * rank 0's own counts stay the same in every round while the blocks it
 * forwards between other ranks change length (at p = 5 Bruck sends block
 * 4 -> 2 through 0), so a plan cached on rank 0's arguments would move
 * them with stale lengths; and the other ranks' calls repeat with equal
 * arguments now and then.  Also: counts that disagree are refused, and
 * so is a nonblocking call. */
static size_t a2av_count(int s, int t, int round)
{
    if (s == 0 || t == 0)
        return (size_t)((s + 2 * t) % 3 + 1);
    return (size_t)((3 * s + t + 5 * (round % 2)) % 7); /* 0 now and then */
}

static void forwarded_sizes(ic_comm_t *w)
{
    const char *algos[] = {"bruck", "dr"};
    size_t sc[64], sd[64], rc[64], rd[64];
    int32_t send[64 * 12], recv[64 * 12];
    for (int a = 0; a < 2 && np <= 64; a++) {
        OK(ic_comm_set_algorithm(w, IC_COLL_ALLTOALLV, algos[a]));
        for (int round = 0; round < 6; round++) {
            size_t so = 0, ro = 0;
            for (int r = 0; r < np; r++) {
                sc[r] = a2av_count(me, r, round);
                rc[r] = a2av_count(r, me, round);
                sd[r] = so;
                rd[r] = ro;
                for (size_t i = 0; i < sc[r]; i++)
                    send[so + i] = me * 100000 + r * 1000 + round * 10 + (int32_t)i;
                so += sc[r];
                ro += rc[r];
            }
            for (size_t i = 0; i < ro; i++)
                recv[i] = -1;
            OK(ic_alltoallv(send, sc, sd, recv, rc, rd, IC_INT32, w));
            int good = 1;
            for (int r = 0; r < np; r++)
                for (size_t i = 0; i < rc[r]; i++)
                    good &= recv[rd[r] + i] == r * 100000 + me * 1000 + round * 10 + (int32_t)i;
            CHECK(good, "alltoallv/%s round %d: result wrong", algos[a], round);
        }
        /* Counts that disagree (rank 1 expects one element more from rank
         * 0 than rank 0 sends): rank 1 refuses the call, the others' run
         * of it fails or ends, and the communicator goes on. */
        if (np >= 3 && me == 1)
            rc[0]++;
        ic_status_t bad = ic_alltoallv(send, sc, sd, recv, rc, rd, IC_INT32, w);
        CHECK(me != 1 || np < 3 || bad == IC_ERR_ARG, "alltoallv/%s with counts that disagree: %s",
              algos[a], ic_status_string(bad));
        if (np >= 3 && me == 1)
            rc[0]--;
        OK(ic_barrier(w));
        ic_request_t *req = NULL;
        ic_status_t st = ic_ialltoallv(send, sc, sd, recv, rc, rd, IC_INT32, w, &req);
        CHECK(st == IC_ERR_NOT_APPLICABLE && req == NULL,
              "ialltoallv/%s: %s, not refused", algos[a], ic_status_string(st));
    }
    OK(ic_comm_set_algorithm(w, IC_COLL_ALLTOALLV, "auto"));
}

int main(void)
{
    ic_comm_t *w;
    if (ic_init(&w) != IC_OK) {
        printf("ic_init: %s\n", ic_last_error());
        return 1;
    }
    ic_comm_rank(w, &me);
    ic_comm_size(w, &np);
    cycle_bcast(w);
    same_address_counts(w);
    op_and_in_place(w);
    nonblocking(w);
    forwarded_sizes(w);
    ic_finalize(&w);
    printf("rank %d: %s\n", me, failed ? "FAILED" : "plan cache checks passed");
    return failed ? 1 : 0;
}
