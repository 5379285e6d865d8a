/*
 * prefix_sum.c — a parallel prefix sum (running total) with ic_exscan.
 *
 *   intercom-run -n P prefix_sum [SEED]           (default SEED = 2024)
 *
 * A global array is the concatenation of P chunks of different, random
 * sizes (0..100000 elements): rank r holds chunk r, whose size and values
 * (int64 in 0..999) are drawn from a generator seeded with (SEED, r).  The
 * goal is the inclusive prefix sum of the whole array, each rank computing
 * it for its own elements:
 *
 *   1. each rank sums its chunk (local sum s_r);
 *   2. ic_exscan(SUM) gives rank r its offset s_0 + ... + s_{r-1}, the
 *      total of everything before its chunk (rank 0's receive buffer is
 *      not written by an exclusive scan: its offset is 0);
 *   3. each rank runs the serial prefix sum over its chunk starting from
 *      that offset.
 *
 * Checks: every rank regenerates the whole array from the seed, computes
 * the serial prefix sum and compares its own elements.  Then the per-rank
 * (size, local sum, offset, last prefix value) are collected on rank 0 with ic_gather and
 * printed, and the prefix-summed chunks are collected with ic_gatherv
 * (counts from ic_allgather, since the counts array is significant on
 * every rank) and checked by rank 0 as one array.  The exit status is
 * non-zero on any error.
 */
#include <intercom.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int me = 0;

/* An intercom call that fails ends this rank (the launcher then stops the
 * others, which would otherwise wait for it). */
#define IC_CALL(call)                                                                              \
    do {                                                                                           \
        ic_status_t st_ = (call);                                                                  \
        if (st_ != IC_OK) {                                                                        \
            fprintf(stderr, "rank %d: %s failed: %s (%s)\n", me, #call, ic_status_string(st_),     \
                    ic_last_error());                                                              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define MAX_CHUNK 100000

/* splitmix64: a small, good, reproducible generator. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Chunk r of the global array: its generator state, advanced past the
 * size, which is returned.  The values follow from next(state). */
static size_t chunk_start(uint64_t seed, int r, uint64_t *state)
{
    *state = seed * 0x100000001b3ULL + (uint64_t)r;
    next(state);
    return (size_t)(next(state) % (MAX_CHUNK + 1));
}

static int64_t chunk_value(uint64_t *state)
{
    return (int64_t)(next(state) % 1000);
}

int main(int argc, char **argv)
{
    uint64_t seed = 2024;
    if (argc > 1) {
        char *end;
        seed = strtoull(argv[1], &end, 10);
        if (*end) {
            fprintf(stderr, "usage: %s [SEED]\n", argv[0]);
            return 2;
        }
    }

    ic_comm_t *world;
    int p;
    IC_CALL(ic_init(&world));
    IC_CALL(ic_comm_rank(world, &me));
    IC_CALL(ic_comm_size(world, &p));

    /* My chunk: only its size and values, not where it starts. */
    uint64_t st;
    size_t n = chunk_start(seed, me, &st);
    int64_t *a = malloc((n ? n : 1) * sizeof(int64_t));
    if (!a) {
        fprintf(stderr, "rank %d: out of memory\n", me);
        return 1;
    }
    for (size_t e = 0; e < n; e++)
        a[e] = chunk_value(&st);

    /* 1. Local sum.  2. Offset = sum of the chunks of the lower ranks. */
    int64_t local = 0, offset = 0;
    for (size_t e = 0; e < n; e++)
        local += a[e];
    IC_CALL(ic_exscan(&local, &offset, 1, IC_INT64, IC_SUM, world));
    if (me == 0)
        offset = 0; /* not written by an exclusive scan on rank 0 */

    /* 3. The prefix sum of my chunk, starting from the offset. */
    int64_t run = offset;
    for (size_t e = 0; e < n; e++)
        a[e] = run += a[e];

    /* Check: the serial prefix sum over the whole array, regenerated from
     * the seed, chunk by chunk, compared on my chunk. */
    int errors = 0;
    int64_t serial = 0, total = 0;
    size_t n_all = 0;
    for (int r = 0; r < p; r++) {
        uint64_t s;
        size_t nr = chunk_start(seed, r, &s);
        for (size_t e = 0; e < nr; e++) {
            serial += chunk_value(&s);
            if (r == me && a[e] != serial && errors++ < 5)
                fprintf(stderr,
                        "rank %d: FAIL element %zu of my chunk (global %zu): "
                        "%" PRId64 ", expected %" PRId64 "\n",
                        me, e, n_all + e, a[e], serial);
        }
        n_all += nr;
    }
    total = serial;

    /* Per-rank figures to rank 0, for the table. */
    int64_t mine[4] = {(int64_t)n, local, offset, n ? a[n - 1] : offset};
    int64_t *table = me == 0 ? malloc((size_t)p * sizeof mine) : NULL;
    /* Everyone's count, for ic_gatherv. */
    uint64_t n64 = n, *counts64 = malloc((size_t)p * sizeof(uint64_t));
    size_t *counts = malloc((size_t)p * sizeof(size_t));
    int64_t *whole = me == 0 ? malloc((n_all ? n_all : 1) * sizeof(int64_t)) : NULL;
    if (!counts64 || !counts || (me == 0 && (!table || !whole))) {
        fprintf(stderr, "rank %d: out of memory\n", me);
        return 1;
    }
    IC_CALL(ic_gather(mine, table, 4, IC_INT64, 0, world));
    IC_CALL(ic_allgather(&n64, counts64, 1, IC_UINT64, world));
    for (int r = 0; r < p; r++)
        counts[r] = (size_t)counts64[r];
    /* displs NULL: the chunks are packed one after the other, in rank order. */
    IC_CALL(ic_gatherv(a, whole, counts, NULL, IC_INT64, 0, world));

    int whole_errors = 0;
    if (me == 0) {
        /* The gathered array must be the serial prefix sum of the array. */
        int64_t s_run = 0;
        size_t g = 0;
        for (int r = 0; r < p; r++) {
            uint64_t s;
            size_t nr = chunk_start(seed, r, &s);
            if (nr != counts[r] || table[4 * r] != (int64_t)nr) {
                fprintf(stderr,
                        "rank 0: FAIL rank %d reports %zu / %" PRId64 " elements, expected %zu\n",
                        r, counts[r], table[4 * r], nr);
                whole_errors++;
            }
            if (table[4 * r + 2] != s_run) {
                fprintf(stderr,
                        "rank 0: FAIL rank %d's offset is %" PRId64 ", expected %" PRId64 "\n", r,
                        table[4 * r + 2], s_run);
                whole_errors++;
            }
            if (table[4 * r + 3] != table[4 * r + 2] + table[4 * r + 1]) {
                fprintf(stderr,
                        "rank 0: FAIL rank %d's last prefix %" PRId64
                        " is not its offset + local sum\n",
                        r, table[4 * r + 3]);
                whole_errors++;
            }
            for (size_t e = 0; e < nr; e++, g++) {
                s_run += chunk_value(&s);
                if (whole[g] != s_run && whole_errors++ < 5)
                    fprintf(stderr,
                            "rank 0: FAIL gathered element %zu is %" PRId64 ", expected %" PRId64
                            "\n",
                            g, whole[g], s_run);
            }
        }
    }

    int32_t bad = errors || whole_errors ? 1 : 0, nbad = 0;
    IC_CALL(ic_allreduce(&bad, &nbad, 1, IC_INT32, IC_SUM, world));

    if (me == 0) {
        printf("prefix_sum: %d rank%s, seed %" PRIu64 ", %zu elements in all (values 0..999),"
               " chunk sizes drawn per rank\n",
               p, p == 1 ? "" : "s", seed, n_all);
        printf("  %4s %9s %12s %16s %14s\n", "rank", "elements", "local sum", "offset (exscan)",
               "last prefix");
        for (int r = 0; r < p; r++) {
            int64_t *t = table + 4 * r;
            printf("  %4d %9" PRId64 " %12" PRId64 " %16" PRId64 " %14" PRId64 "\n", r, t[0], t[1],
                   t[2], t[3]);
        }
        printf("  serial total of the whole array: %" PRId64 " (the last rank's last prefix)\n",
               total);
        printf("  ic_gather: the table above; ic_gatherv: all %zu prefix sums on rank 0\n", n_all);
        if (nbad == 0)
            printf("  every rank matched the serial prefix sum, and so did the gathered "
                   "array: ok\n");
        else
            printf("  FAILED on %d of %d ranks\n", nbad, p);
    }

    free(a);
    free(table);
    free(counts64);
    free(counts);
    free(whole);
    IC_CALL(ic_finalize(&world));
    return nbad ? 1 : 0;
}
