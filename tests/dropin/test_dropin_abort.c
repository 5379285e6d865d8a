/*
 * test_dropin_abort.c — a rank that aborts under the drop-in (a plain MPI
 * program): every rank runs a few served collectives, then the last rank
 * calls MPI_Abort while the others wait in a served MPI_Allreduce.
 * abort_test.sh checks that the job ends (MPI's launcher stops it) with
 * the abort's code and that nothing of intercom's is left in /dev/shm.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    double x = me, y = 0;
    for (int i = 0; i < 10; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (me == p - 1) {
        printf("test_dropin_abort: rank %d aborts\n", me);
        fflush(stdout);
        usleep(100000);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* never completes */
    printf("test_dropin_abort: rank %d got past the aborted call\n", me);
    MPI_Finalize();
    return 1;
}
