/*
 * first_touch.c — what the first write to a page of a shared segment
 * costs this process, after each way of preparing the page.
 *
 *   build/first_touch [MiB]      (default 8)
 *
 * For each preparation, a fresh POSIX shared-memory segment of MiB bytes
 * (shm_open, posix_fallocate, mmap MAP_SHARED, as intercom's transport
 * makes its segment) is written 16 KiB at a time, three laps; the line
 * gives each lap's time per 16 KiB and the preparation's own time:
 *   none       nothing: the first lap takes the page faults;
 *   populate   madvise(MADV_POPULATE_WRITE) first (Linux 5.14+);
 *   other      another process (a child) populates and writes a word of
 *              every page, then this one populates;
 *   touch      populate, then this process writes a word of every page
 *              (an atomic add of 0, as ic_shm_seg_prefault does).
 * On the AMD EPYC VM (a Firecracker guest) on 2026-12-07, 8 MiB: first
 * laps of 40, 19-28, 27 and 0.7-1.0 us per 16 KiB, later laps 0.2-0.6;
 * the touch itself 20-29 ms.  So the first write to a page costs about
 * 7-10 us in each process, even with the page populated and already
 * written by another process: not a fault the guest counts (perf's
 * page-faults stay flat), a charge of the host, paid per address space
 * (docs/perf/first-touch.md).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define PIECE 16384u

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void touch(char *b, size_t sz)
{
    for (size_t o = 0; o < sz; o += 4096)
        __atomic_fetch_add((uint64_t *)(void *)(b + o), 0, __ATOMIC_RELAXED);
}

static int run(const char *how, size_t sz)
{
    char name[64];
    snprintf(name, sizeof name, "/first-touch-%d", (int)getpid());
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return perror("shm_open"), 1;
    shm_unlink(name);
    char *b = MAP_FAILED;
    if (posix_fallocate(fd, 0, (off_t)sz) == 0)
        b = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (b == MAP_FAILED)
        return perror("fallocate/mmap"), 1;
    double t0 = now();
    if (!strcmp(how, "other")) {
        pid_t pid = fork();
        if (pid == 0) {
            madvise(b, sz, MADV_POPULATE_WRITE);
            touch(b, sz);
            _exit(0);
        }
        waitpid(pid, NULL, 0);
    }
    if (strcmp(how, "none") != 0)
        madvise(b, sz, MADV_POPULATE_WRITE);
    if (!strcmp(how, "touch"))
        touch(b, sz);
    double prep = now() - t0;
    static char src[PIECE];
    memset(src, 1, sizeof src);
    printf("%-9s prep %7.1f ms, per 16 KiB:", how, prep * 1e3);
    for (int lap = 0; lap < 3; lap++) {
        double a = now();
        for (size_t o = 0; o + PIECE <= sz; o += PIECE)
            memcpy(b + o, src, PIECE);
        printf("  lap %d %6.2f us", lap, (now() - a) * 1e6 / (double)(sz / PIECE));
    }
    printf("\n");
    munmap(b, sz);
    return 0;
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 8;
    if (mib < 1 || mib > 4096) {
        fprintf(stderr, "usage: %s [MiB 1..4096]\n", argv[0]);
        return 2;
    }
    static const char *const how[] = {"none", "populate", "other", "touch"};
    for (int i = 0; i < 4; i++)
        if (run(how[i], (size_t)mib << 20) != 0)
            return 1;
    return 0;
}
