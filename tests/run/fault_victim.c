/*
 * fault_victim.c — a job in which one rank fails, for the launcher's
 * fault tests:  fault_victim kill|hang|stop|exit|abort
 * Every rank loops over allreduce; after a few rounds rank 2 (or rank 0 of
 * a smaller job) kills itself with SIGKILL, hangs, stops itself with
 * SIGSTOP, exits with status 3 or aborts the job.
 * The survivors must leave their collective with an error (or be stopped
 * by the launcher), never hang: exit status 42 for IC_ERR_PEER_FAILED, 43
 * for IC_ERR_TIMEOUT or IC_ERR_REVOKED (IC_TIMEOUT set and a peer hangs:
 * the first rank to time out tells the others).
 */
#define _GNU_SOURCE
#include "intercom.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "kill";
    ic_comm_t *world;
    if (ic_init(&world) != IC_OK)
        return 1;
    int rank, size;
    ic_comm_rank(world, &rank);
    ic_comm_size(world, &size);
    int victim = size > 2 ? 2 : 0;
    double x[1024] = {0}, y[1024];
    for (int it = 0;; it++) {
        if (it == 5 && rank == victim) {
            if (strcmp(how, "kill") == 0)
                raise(SIGKILL);
            if (strcmp(how, "exit") == 0)
                _exit(3);
            if (strcmp(how, "abort") == 0)
                ic_abort(world, 7);
            if (strcmp(how, "stop") == 0)
                raise(SIGSTOP);
            for (;;)
                pause(); /* hang */
        }
        ic_status_t st = ic_allreduce(x, y, 1024, IC_DOUBLE, IC_SUM, world);
        if (st != IC_OK) {
            fprintf(stderr, "rank %d: allreduce failed: %s\n", rank, ic_last_error());
            /* 43: timed out here, or told by a rank that timed out. */
            return st == IC_ERR_PEER_FAILED                        ? 42
                   : st == IC_ERR_TIMEOUT || st == IC_ERR_REVOKED ? 43
                                                                   : 1;
        }
    }
}
