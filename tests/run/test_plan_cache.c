/*
 * test_plan_cache.c — the plan cache (core/coll_run.c keeps the last
 * IC_PLAN_CACHE_WAYS plans of each collective) between real processes:
 *   intercom-run -n P test_plan_cache
 *
 * Calls that cycle through more distinct argument sets than the cache
 * holds (every root x three counts, three rounds: hits, misses and
 * evictions), a v-form whose counts array keeps its address while its
 * contents change, and calls that differ only in the op or in
 * IC_IN_PLACE.  Every result is checked against a serial reference, so a
 * cache that reused a plan for other arguments fails here.
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
    ic_finalize(&w);
    printf("rank %d: %s\n", me, failed ? "FAILED" : "plan cache checks passed");
    return failed ? 1 : 0;
}
