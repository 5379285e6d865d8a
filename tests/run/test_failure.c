/*
 * test_failure.c — a failed collective is a state of its communicator, not
 * of memory (docs/reliability.md).  Run under intercom-run with p >= 2;
 * sets IC_TIMEOUT=1 for itself.
 *
 * mode "timeout": on a communicator `sub` (a copy of the world), rank 1
 *   arrives 2 s late to a large allreduce; the others time out (or are told
 *   by the first rank that timed out: IC_ERR_REVOKED), fill their
 *   receive buffer with a pattern, and check at the end, after later calls
 *   have driven the transport past rank 1's messages, that nothing was
 *   written into it (the cancelled receives are no longer posted).
 * mode "mismatch": the ranks call an allreduce on `sub` with different
 *   counts (a size mismatch), so the call fails with an error on at least
 *   one rank and times out on the others.
 * Then, in both modes, on every rank: the next collective on `sub`
 * returns IC_ERR_REVOKED at once (not after another timeout), freeing
 * `sub` works, and a correct allreduce on the world still gives the right
 * answer (the world is not affected), and ic_finalize completes.
 */
#define _GNU_SOURCE 1
#include <intercom.h>

#include "run_expect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N 200000 /* doubles: large enough for the rendezvous path */

static int failures;

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "timeout";
    setenv("IC_TIMEOUT", "1", 1);
    ic_comm_t *world = NULL, *sub = NULL;
    if (ic_init(&world) != IC_OK) {
        fprintf(stderr, "ic_init: %s\n", ic_last_error());
        return 2;
    }
    int rank, size;
    ic_comm_rank(world, &rank);
    ic_comm_size(world, &size);
    if (size < 2 || ic_comm_split(world, 0, rank, &sub) != IC_OK) {
        fprintf(stderr, "needs p >= 2 and a split: %s\n", ic_last_error());
        return 2;
    }
    double *x = malloc(sizeof(double) * N), *y = malloc(sizeof(double) * N);
    for (size_t i = 0; i < N; i++)
        x[i] = rank + 1;
    ic_status_t st;
    if (strcmp(mode, "timeout") == 0) {
        if (rank == 1)
            sleep(2);
        st = ic_allreduce(x, y, N, IC_DOUBLE, IC_SUM, sub);
        if (rank != 1) {
            /* Timed out here, or told by a rank that timed out first. */
            EXPECT(st == IC_ERR_TIMEOUT || st == IC_ERR_REVOKED, "late peer: %s (%s)",
                   ic_status_string(st), ic_last_error());
            memset(y, 0x5a, sizeof(double) * N);
            usleep(1500000); /* rank 1 comes, posts its messages and leaves meanwhile */
        } else {
            EXPECT(st != IC_OK, "the late rank's call succeeded without its peers");
        }
    } else {
        size_t n = rank == 0 ? N : N - 1000;
        st = ic_allreduce(x, y, n, IC_DOUBLE, IC_SUM, sub);
        EXPECT(st != IC_OK, "mismatched counts: IC_OK");
    }
    /* The communicator is failed: the next call fails at once. */
    double t0 = now();
    st = ic_allreduce(x, y, 1000, IC_DOUBLE, IC_SUM, sub);
    double dt = now() - t0;
    EXPECT(st == IC_ERR_REVOKED, "next call on the failed comm: %s (%s)", ic_status_string(st),
           ic_last_error());
    EXPECT(dt < 0.5, "the next call took %.2f s", dt);
    st = ic_barrier(sub);
    EXPECT(st == IC_ERR_REVOKED, "barrier on the failed comm: %s", ic_status_string(st));
    EXPECT(ic_comm_free(&sub) == IC_OK && sub == NULL, "ic_comm_free: %s", ic_last_error());
    /* The world still works (small messages: nothing of the failed
     * transfers is left in their way). */
    for (int it = 0; it < 3; it++) {
        double v = rank + 1, s = 0;
        st = ic_allreduce(&v, &s, 1, IC_DOUBLE, IC_SUM, world);
        EXPECT(st == IC_OK && s == size * (size + 1) / 2.0, "world allreduce: %s, %g",
               ic_status_string(st), s);
    }
    /* The calls above drove the transport after rank 1's messages came:
     * the cancelled receives must not have taken them into y. */
    if (strcmp(mode, "timeout") == 0 && rank != 1) {
        size_t bad = 0;
        for (size_t i = 0; i < N * sizeof(double); i++)
            bad += ((unsigned char *)y)[i] != 0x5a;
        EXPECT(bad == 0, "%zu bytes of the receive buffer were written after the call returned",
               bad);
    }
    free(x);
    free(y);
    st = ic_finalize(&world);
    EXPECT(st == IC_OK, "ic_finalize: %s (%s)", ic_status_string(st), ic_last_error());
    printf("rank %d: %s: %s\n", rank, mode, failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
