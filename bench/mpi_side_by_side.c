/*
 * mpi_side_by_side.c — intercom (through ic_comm_from_mpi) next to the same
 * MPI's own MPI_Allreduce / MPI_Bcast, in one MPI job (docs/mpi.md).
 *
 *   mpirun -n P bench_mpi_<impl> [--sizes 8,4K,64K,1M,16M] [--reps 5]
 *                                [--iters 20] [--colls allreduce,bcast]
 *
 * For every collective and size, --reps repetitions; in each, the two
 * libraries run one after the other, the first one alternating between
 * repetitions.  A library's run: 2 untimed calls, then --iters times
 * (MPI_Barrier, one call timed with MPI_Wtime); each iteration counts as
 * its slowest rank (MPI_Allreduce MAX) and the run's figure is the median
 * iteration.  Rank 0 prints per size the median over repetitions of each
 * library's figure, the spread (min..max over repetitions) and the ratio
 * intercom / MPI of the medians.  Allreduce sums floats (size/4 of them),
 * bcast sends bytes from rank 0; intercom's allreduce result is checked
 * against MPI's.
 */
#include "intercom_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    if (end == s || *end || v > (1ull << 30)) {
        if (me == 0)
            fprintf(stderr, "bench: '%s' is not a size like 8, 4K, 16M\n", s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return (size_t)v;
}

/* One call of library lib (0 intercom, 1 MPI). */
static void call(int lib, int allreduce, float *in, float *out, size_t bytes, ic_comm_t *ic)
{
    ic_status_t st = IC_OK;
    if (allreduce) {
        size_t n = bytes / sizeof(float);
        if (lib == 0)
            st = ic_allreduce(in, out, n, IC_FLOAT, IC_SUM, ic);
        else
            MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        if (lib == 0)
            st = ic_bcast(in, bytes, IC_BYTE, 0, ic);
        else
            MPI_Bcast(in, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    if (st != IC_OK) {
        fprintf(stderr, "rank %d: intercom: %s\n", me, ic_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The median over iters of the slowest rank's time of one call. */
static double run(int lib, int allreduce, float *in, float *out, size_t bytes, int iters,
                  ic_comm_t *ic, double *t)
{
    for (int i = 0; i < 2; i++)
        call(lib, allreduce, in, out, bytes, ic);
    for (int i = 0; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        call(lib, allreduce, in, out, bytes, ic);
        t[i] = MPI_Wtime() - t0;
    }
    MPI_Allreduce(MPI_IN_PLACE, t, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return median(t, iters);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *sizes_arg = "8,4K,64K,1M,16M", *colls = "allreduce,bcast";
    int reps = 5, iters = 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes_arg = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--colls") && i + 1 < argc)
            colls = argv[++i];
        else {
            if (me == 0)
                fprintf(stderr, "usage: %s [--sizes LIST] [--reps R] [--iters N] [--colls "
                                "allreduce,bcast]\n", argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (reps < 1 || reps > 1000 || iters < 1 || iters > 100000)
        MPI_Abort(MPI_COMM_WORLD, 2);
    ic_comm_t *ic;
    if (ic_comm_from_mpi(MPI_COMM_WORLD, &ic) != IC_OK) {
        fprintf(stderr, "rank %d: ic_comm_from_mpi: %s\n", me, ic_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int nhosts;
    ic_comm_mpi_hosts(ic, &nhosts, NULL);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
    if (me == 0)
        printf("# %d ranks on %d hosts; %s\n# %d repetitions (order alternating), %d timed "
               "calls each; medians in us, spread = min..max over repetitions\n",
               np, nhosts, lib, reps, iters);
    double *t = malloc(sizeof(double) * (size_t)iters);
    double *med[2] = {malloc(sizeof(double) * (size_t)reps), malloc(sizeof(double) * (size_t)reps)};
    char list[256];
    snprintf(list, sizeof list, "%s", sizes_arg);
    for (int allreduce = 1; allreduce >= 0; allreduce--) {
        if (!strstr(colls, allreduce ? "allreduce" : "bcast"))
            continue;
        if (me == 0)
            printf("%-9s %9s %12s %17s %12s %17s %7s\n", "coll", "bytes", "intercom",
                   "spread", "MPI", "spread", "ratio");
        char buf[256];
        snprintf(buf, sizeof buf, "%s", list);
        for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
            size_t bytes = parse_size(s);
            size_t n = bytes / sizeof(float) + 1;
            float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float)),
                  *ref = malloc(n * sizeof(float));
            for (size_t i = 0; i < n; i++)
                in[i] = (float)((i + (size_t)me) % 7);
            for (int r = 0; r < reps; r++)
                for (int k = 0; k < 2; k++) {
                    int l = (r + k) % 2;
                    med[l][r] = run(l, allreduce, in, l ? ref : out, bytes, iters, ic, t);
                }
            int bad = allreduce && memcmp(out, ref, bytes / sizeof(float) * sizeof(float)) != 0;
            MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            double m[2], lo[2], hi[2];
            for (int l = 0; l < 2; l++) {
                m[l] = median(med[l], reps) * 1e6;
                lo[l] = med[l][0] * 1e6; /* sorted by median() */
                hi[l] = med[l][reps - 1] * 1e6;
            }
            if (me == 0) {
                char s0[40], s1[40];
                snprintf(s0, sizeof s0, "%.1f..%.1f", lo[0], hi[0]);
                snprintf(s1, sizeof s1, "%.1f..%.1f", lo[1], hi[1]);
                printf("%-9s %9zu %12.1f %17s %12.1f %17s %7.2f%s\n",
                       allreduce ? "allreduce" : "bcast", bytes, m[0], s0, m[1], s1, m[0] / m[1],
                       bad ? "  RESULTS DIFFER" : "");
                fflush(stdout);
            }
            free(in);
            free(out);
            free(ref);
        }
    }
    free(t);
    free(med[0]);
    free(med[1]);
    ic_comm_free_mpi(&ic);
    MPI_Finalize();
    return 0;
}
