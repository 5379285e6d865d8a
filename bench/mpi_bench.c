/*
 * mpi_bench.c — the MPI side of bench/compare.sh: times MPI_Allreduce and
 * MPI_Bcast with the method of intercom-bench, so the rows compare.
 *
 *   mpirun -n P mpi_bench [-c allreduce,bcast] [--sizes 8,16M] [--iters N]
 *                         [--warmup W] [--csv FILE]
 *
 * One iteration: MPI_Barrier, then one call timed with MPI_Wtime.  After
 * the loop the per-iteration times are combined with MPI_Allreduce(MPI_MAX)
 * (each iteration counts as its slowest rank) and rank 0 prints the
 * median, minimum and maximum over the timed iterations.  Sizes are total
 * bytes: allreduce reduces size/4 MPI_FLOATs with MPI_SUM (8 bytes = 2
 * floats, as intercom-bench's IC_FLOAT/IC_SUM), bcast sends size MPI_BYTEs
 * from rank 0.  Build: mpicc -O2 -o mpi_bench mpi_bench.c
 */
#include <mpi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;

static void die(const char *msg, const char *arg)
{
    if (me == 0)
        fprintf(stderr, "mpi_bench: %s '%s'\n", msg, arg);
    MPI_Finalize();
    exit(2);
}

static size_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10), mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10;
    else if (*end == 'M' || *end == 'm')
        mul = 1ull << 20;
    if (mul > 1)
        end++;
    if (errno || end == s || *end || s[0] == '-' || v > (1ull << 30) / mul)
        die("--sizes: not a byte count from 0 to 1G:", s);
    return (size_t)(v * mul);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void bench(int allreduce, size_t size, int iters, int warmup, FILE *csv)
{
    size_t n = allreduce ? size / sizeof(float) : size;
    size_t bytes = allreduce ? n * sizeof(float) : n;
    char *send = malloc(bytes ? bytes : 1), *recv = malloc(bytes ? bytes : 1);
    double *t = malloc(sizeof(double) * (size_t)iters);
    if (!send || !recv || !t) {
        fprintf(stderr, "mpi_bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (allreduce)
        for (size_t i = 0; i < n; i++)
            ((float *)(void *)send)[i] = 1.0f + (float)(i % 8);
    else
        for (size_t i = 0; i < bytes; i++)
            send[i] = (char)(i * 7 + (size_t)me);
    memset(recv, 0, bytes ? bytes : 1);
    for (int it = -warmup; it < iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (allreduce)
            MPI_Allreduce(send, recv, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Bcast(send, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        if (it >= 0)
            t[it] = t1 - t0;
    }
    MPI_Allreduce(MPI_IN_PLACE, t, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) {
        qsort(t, (size_t)iters, sizeof(double), cmp_double);
        double med = iters % 2 ? t[iters / 2] : 0.5 * (t[iters / 2 - 1] + t[iters / 2]);
        const char *name = allreduce ? "allreduce" : "bcast";
        printf("%-22s %12zu %-18s %12.2f %12.2f %12.2f\n", name, bytes, "mpi", med * 1e6,
               t[0] * 1e6, t[iters - 1] * 1e6);
        fflush(stdout);
        if (csv)
            fprintf(csv, "%s,%d,%zu,%zu,mpi,%d,%d,%.3f,%.3f,%.3f\n", name, np, size, bytes, iters,
                    warmup, med * 1e6, t[0] * 1e6, t[iters - 1] * 1e6);
    }
    free(send);
    free(recv);
    free(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int do_allreduce = 1, do_bcast = 1, iters = 100, warmup = 10, nsizes = 2;
    size_t sizes[64] = {8, 16u << 20};
    const char *csvname = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            die("missing value after", a);
        i++;
        if (!strcmp(a, "-c")) {
            do_allreduce = strstr(v, "allreduce") != NULL;
            do_bcast = strstr(v, "bcast") != NULL;
            if (!do_allreduce && !do_bcast)
                die("-c takes allreduce and/or bcast, not", v);
        } else if (!strcmp(a, "--sizes")) {
            char *copy = strdup(v), *save = NULL;
            nsizes = 0;
            for (char *tok = strtok_r(copy, ",", &save); tok && nsizes < 64;
                 tok = strtok_r(NULL, ",", &save))
                sizes[nsizes++] = parse_size(tok);
            free(copy);
            if (nsizes == 0)
                die("--sizes: no size in", v);
        } else if (!strcmp(a, "--iters") || !strcmp(a, "--warmup")) {
            char *end;
            long x = strtol(v, &end, 10);
            if (*end || end == v || x < (a[2] == 'i') || x > 10000000)
                die("bad count for option:", a);
            *(a[2] == 'i' ? &iters : &warmup) = (int)x;
        } else if (!strcmp(a, "--csv")) {
            csvname = v;
        } else {
            die("unknown option", a);
        }
    }
    FILE *csv = NULL;
    int ok = 1;
    if (me == 0 && csvname) {
        if (!(csv = fopen(csvname, "w")))
            ok = 0, fprintf(stderr, "mpi_bench: cannot write %s\n", csvname);
        else
            fprintf(csv, "collective,p,size,bytes,algorithm,iters,warmup,median_us,min_us,"
                         "max_us\n");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        MPI_Finalize();
        return 2;
    }
    if (me == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        printf("# mpi_bench: %d ranks, %d timed iterations after %d warm-up, root 0; %.*s\n", np,
               iters, warmup, (int)strcspn(lib, ",\n"), lib);
        printf("# each iteration: MPI_Barrier, then one timed call; its time is the max over\n"
               "# ranks (MPI_Allreduce MPI_MAX after the loop); median/min/max over iterations\n"
               "# allreduce: MPI_FLOAT with MPI_SUM; bcast: MPI_BYTE\n");
        printf("%-22s %12s %-18s %12s %12s %12s\n", "collective", "bytes", "algorithm", "median_us",
               "min_us", "max_us");
    }
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < nsizes; s++)
            if (c == 0 ? do_allreduce : do_bcast)
                bench(c == 0, sizes[s], iters, warmup, csv);
    if (csv)
        fclose(csv);
    MPI_Finalize();
    return 0;
}
