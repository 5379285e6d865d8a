/*
 * copy_bound.c — the machine's copy bound for bench/compare: the time of
 * one memcpy of N bytes (rank 0 alone, buffers touched first) and the
 * one-way time of one N-byte MPI_Send/MPI_Recv between ranks 0 and 1 (half
 * the round trip of a ping-pong), each the median of R repetitions.
 *
 *   mpirun -n 2 copy_bound [N_BYTES] [R]      (defaults 64 MiB, 9)
 *
 * Prints one line: "copy_bound: bytes N memcpy_us M p2p_us P".
 * Build: mpicc -O2 -o copy_bound copy_bound.c
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)64 << 20;
    int r = argc > 2 ? atoi(argv[2]) : 9;
    if (np < 2 || n == 0 || n > ((size_t)1 << 31) - 1 || r < 1 || r > 1000) {
        if (me == 0)
            fprintf(stderr, "copy_bound: run on 2 ranks; N in 1..2^31-1 bytes; R in 1..1000\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *a = malloc(n), *b = malloc(n);
    double *t = malloc(sizeof(double) * (size_t)r);
    if (!a || !b || !t)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(a, 1, n);
    memset(b, 2, n);
    double mcp = 0, p2p = 0;
    if (me == 0) {
        for (int i = 0; i < r; i++) {
            double t0 = MPI_Wtime();
            memcpy(b, a, n);
            t[i] = MPI_Wtime() - t0;
            a[i % n] ^= b[(i * 7) % n]; /* keep the copies */
        }
        mcp = median(t, r);
    }
    for (int i = -1; i < r; i++) { /* i = -1: warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me == 0) {
            MPI_Send(a, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(b, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            MPI_Recv(b, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
        if (i >= 0)
            t[i] = (MPI_Wtime() - t0) / 2;
    }
    p2p = median(t, r);
    if (me == 0)
        printf("copy_bound: bytes %zu memcpy_us %.1f p2p_us %.1f\n", n, mcp * 1e6, p2p * 1e6);
    free(a);
    free(b);
    free(t);
    MPI_Finalize();
    return 0;
}
