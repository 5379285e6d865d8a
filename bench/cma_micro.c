/*
 * cma_micro.c — what a single copy (process_vm_readv) costs on this
 * machine against memcpy, and the figure the shared-memory transport's
 * creator measures to choose its one-way eager limit
 * (src/transport/shm/shm_cma_cost.c, docs/perf/cma-cost.md).
 *
 * For each size of 4 KiB ... 256 KiB: one process_vm_readv of the
 * process's own memory and one memcpy of the same bytes, in the cache,
 * R pairs (default 2000); the minimum and the mean of each, in us.  Then
 * ic_shm_cma_extra_ns() five times (the creator's figure, in ns; from
 * SHM_CMA_DEAR_NS single copy counts as dear) and ic_shm_cma_large_x100()
 * five times (4 MiB, hundredths of a memcpy: what IC_SHM_CMA_LARGE_X100,
 * which is opt-in, would be set to; below SHM_CMA_STREAM_X100 large
 * one-way messages are then shared instead of streamed).
 *
 *   build/cma_micro [R]        (built with the library)
 */
#define _GNU_SOURCE 1
#include "transport/shm/shm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long reps = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
    if (reps < 1) {
        fprintf(stderr, "usage: cma_micro [R >= 1]\n");
        return 2;
    }
    static const size_t sizes[] = {4096, 8192, 16384, 32768, 65536, 262144};
    enum { MAXB = 262144 };
    unsigned char *a = aligned_alloc(4096, MAXB), *b = aligned_alloc(4096, MAXB);
    if (!a || !b)
        return 1;
    memset(a, 1, MAXB);
    memset(b, 2, MAXB);
    pid_t me = getpid();
    printf("%8s %12s %12s %12s %12s\n", "bytes", "cma_min_us", "cma_mean_us", "memcpy_min_us",
           "memcpy_mean_us");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        double cmin = 1e30, mmin = 1e30, csum = 0, msum = 0;
        for (long r = 0; r < reps; r++) {
            struct iovec l = {b, n}, rv = {a, n};
            double t0 = now_ns();
            ssize_t got = process_vm_readv(me, &l, 1, &rv, 1, 0);
            double t1 = now_ns();
            memcpy(b, a, n);
            __asm__ __volatile__("" : : "r"(b) : "memory");
            double t2 = now_ns();
            if (got != (ssize_t)n) {
                perror("process_vm_readv");
                return 1;
            }
            cmin = t1 - t0 < cmin ? t1 - t0 : cmin;
            mmin = t2 - t1 < mmin ? t2 - t1 : mmin;
            csum += t1 - t0;
            msum += t2 - t1;
        }
        printf("%8zu %12.2f %12.2f %12.2f %12.2f\n", n, cmin / 1e3, csum / (double)reps / 1e3,
               mmin / 1e3, msum / (double)reps / 1e3);
    }
    printf("ic_shm_cma_extra_ns (16 KiB, median of 31; dear from %u):", SHM_CMA_DEAR_NS);
    for (int i = 0; i < 5; i++)
        printf(" %u", ic_shm_cma_extra_ns(NULL));
    printf("\n");
    printf("ic_shm_cma_large_x100 (4 MiB, fastest of 5; streamed from %u):", SHM_CMA_STREAM_X100);
    for (int i = 0; i < 5; i++)
        printf(" %u", ic_shm_cma_large_x100());
    printf("\n");
    free(a);
    free(b);
    return 0;
}
