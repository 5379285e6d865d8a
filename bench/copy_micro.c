/*
 * copy_micro.c — the two memcpy cases that base/copy.h avoids, measured on
 * this machine (docs/perf/copy.md):
 *
 *  1. distance: one copy of N bytes (4 KiB and 64 KiB, in the cache) with
 *     the destination d bytes ahead of the source modulo 4096, by memcpy
 *     and by ic_copy; the best of R rounds of 200 copies, in ns per copy;
 *  2. large: one 64 MiB copy (buffers touched first) by memcpy and by
 *     ic_copy_stream, in one process and in two processes at once (one per
 *     core, started together); the median of R copies, in us.
 *
 *   bench/build/copy_micro [R]        (default 9; built with the library)
 */
#define _GNU_SOURCE 1
#include "base/copy.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void (*copy_fn)(void *, const void *, size_t);

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void libc_copy(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Best ns per copy of n bytes, dst ahead of src by d mod 4096. */
static double distance_ns(copy_fn fn, unsigned char *a, unsigned char *b, size_t n, size_t d,
                          int rounds)
{
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ns();
        for (int i = 0; i < 200; i++) {
            fn(b + 64 + d, a + 64, n);
            __asm__ volatile("" ::"r"(b) : "memory");
        }
        double t = (now_ns() - t0) / 200;
        best = t < best ? t : best;
    }
    return best;
}

/* Median us of one n-byte copy, nproc processes copying at once. */
static double large_us(copy_fn fn, size_t n, int nproc, int reps)
{
    atomic_int *bar = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    double *out = (double *)(void *)((char *)bar + 2048);
    if (bar == MAP_FAILED)
        return -1;
    for (int k = 0; k < nproc; k++) {
        if (fork() != 0)
            continue;
        unsigned char *s = malloc(n), *d = malloc(n);
        double *t = malloc(sizeof(double) * (size_t)reps);
        if (!s || !d || !t)
            _exit(1);
        memset(s, 1, n);
        memset(d, 2, n);
        for (int r = 0; r < reps; r++) {
            atomic_fetch_add(&bar[0], 1);
            while (atomic_load(&bar[0]) < (r + 1) * nproc)
                ;
            double t0 = now_ns();
            fn(d, s, n);
            t[r] = (now_ns() - t0) / 1e3;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp);
        out[k] = t[reps / 2];
        _exit(0);
    }
    while (wait(NULL) > 0)
        ;
    double worst = 0;
    for (int k = 0; k < nproc; k++)
        worst = out[k] > worst ? out[k] : worst;
    munmap(bar, 4096);
    return worst;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    if (reps < 1)
        reps = 9;
    unsigned char *a = aligned_alloc(4096, 1 << 20), *b = aligned_alloc(4096, 1 << 20);
    if (!a || !b)
        return 1;
    memset(a, 1, 1 << 20);
    memset(b, 2, 1 << 20);
    static const size_t dist[] = {0, 8, 16, 24, 32, 48, 64, 128, 2048};
    static const size_t sizes[] = {4096, 65536};
    printf("# copy_micro: ns per copy, destination d bytes ahead of the source mod 4096 "
           "(best of %d rounds of 200)\n",
           reps);
    printf("%8s %6s %10s %10s\n", "bytes", "d", "memcpy", "ic_copy");
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof dist / sizeof *dist; i++)
            printf("%8zu %6zu %10.0f %10.0f\n", sizes[k], dist[i],
                   distance_ns(libc_copy, a, b, sizes[k], dist[i], reps),
                   distance_ns(ic_copy, a, b, sizes[k], dist[i], reps));
    size_t big = (size_t)64 << 20;
    printf("# one 64 MiB copy, median of %d, us (two processes: the slower one)\n", reps);
    printf("%10s %10s %10s\n", "processes", "memcpy", "streamed");
    for (int np = 1; np <= 2; np++)
        printf("%10d %10.0f %10.0f\n", np, large_us(libc_copy, big, np, reps),
               large_us(ic_copy_stream, big, np, reps));
    free(a);
    free(b);
    return 0;
}
