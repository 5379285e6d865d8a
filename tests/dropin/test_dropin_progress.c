/*
 * test_dropin_progress.c — MPI's progress rule under the drop-in (a plain
 * MPI program; docs/dropin.md, "Progress").  Each scenario is a legal MPI
 * program that hangs if a rank blocked in one kind of call does not
 * advance the other kind:
 *   1. rank 0 blocks in a rendezvous MPI_Send to rank 1 while rank 1 sits
 *      in a (served) MPI_Barrier with the matching MPI_Irecv posted;
 *   2. a served MPI_Igatherv (whose root's counts travel first) started
 *      everywhere, then the root waits for it before a barrier while the
 *      others enter the barrier first;
 *   3. rank 1 blocks in MPI_Recv from rank 0 while its served
 *      MPI_Iallreduce must advance for rank 0 to get past MPI_Wait.
 * Run with a time limit: a hang is the failure.  Prints
 * "test_dropin_progress: PASS" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);

    int n = 4 << 20;
    char *buf = calloc((size_t)n, 1);
    if (me == 0 && p > 1) {
        for (int i = 0; i < n; i++)
            buf[i] = (char)(i * 7);
        MPI_Send(buf, n, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (me == 1) {
        MPI_Request r;
        MPI_Irecv(buf, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &r);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            bad += buf[i] != (char)(i * 7);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }

    int *cnt = malloc(sizeof(int) * (size_t)p), *dsp = malloc(sizeof(int) * (size_t)p), tot = 0;
    for (int q = 0; q < p; q++) {
        cnt[q] = 1000 * (q + 1);
        dsp[q] = tot;
        tot += cnt[q];
    }
    int *g = malloc(sizeof(int) * (size_t)tot), *mine = malloc(sizeof(int) * (size_t)cnt[me]);
    for (int i = 0; i < cnt[me]; i++)
        mine[i] = me * 1000000 + i;
    MPI_Request r;
    MPI_Igatherv(mine, cnt[me], MPI_INT, g, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD, &r);
    if (me == 0) {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int q = 0; q < p; q++)
            for (int i = 0; i < cnt[q]; i++)
                bad += g[dsp[q] + i] != q * 1000000 + i;
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }

    double x = me + 1, sum = 0;
    MPI_Iallreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
    if (me == 0 && p > 1) {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Send(&sum, 1, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD);
    } else if (me == 1) {
        double got;
        MPI_Recv(&got, 1, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        bad += got != sum;
    } else {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    bad += sum != p * (p + 1) / 2.0;

    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf(all ? "test_dropin_progress: FAIL (%d wrong values)\n"
                   : "test_dropin_progress: PASS\n", all);
    free(buf), free(cnt), free(dsp), free(g), free(mine);
    MPI_Finalize();
    return all != 0;
}
