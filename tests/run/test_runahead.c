/*
 * test_runahead.c — collectives in which some ranks only send, called in a
 * tight loop, so that those ranks run ahead of the ones that receive:
 *   test_runahead CALLS
 * runs CALLS calls each of a scan, an exscan, a reduce to the last rank and
 * a gather to rank 0, one double per rank, the input changing every call,
 * and checks every result against the serial formula.  It must end (a
 * 3-rank scan of this kind hung in about 1 of 3 runs: the receiver never
 * left a drain of a queue its sender kept full, docs/reliability.md) and
 * the live heap (mallinfo2) of every rank must grow by at most 8 MiB: the
 * early messages a receiver holds are bounded (flow control, shm_ux.c: per
 * peer SHM_FLOOD_MSGS plus a ring of 2048 one-cell messages, records of
 * about 200 bytes, 2.5 MiB for the two peers of a 3-rank gather's root,
 * 3.3 MiB measured), where before a receiver held every call its sender
 * had run ahead by (33 MiB more after 43 000 reduces; the run of the code
 * before did not end in 10 s in 6 of 6 tries, this one takes 0.25 s).
 * Prints one line per rank and exits non-zero on any failure.
 */
#define _GNU_SOURCE 1
#include <intercom.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#define HEAP_SLACK (8u << 20)

static double input(int rank, long call)
{
    return (double)((rank + 1) * 1000 + call % 997);
}

/* The sum of input(r, call) over r in [lo, hi). */
static double sum_of(int lo, int hi, long call)
{
    double s = 0;
    for (int r = lo; r < hi; r++)
        s += input(r, call);
    return s;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 100000;
    ic_comm_t *w;
    if (ic_init(&w) != IC_OK) {
        fprintf(stderr, "ic_init: %s\n", ic_last_error());
        return 2;
    }
    int rank, p;
    ic_comm_rank(w, &rank);
    ic_comm_size(w, &p);
    double *all = calloc((size_t)p, sizeof(double));
    if (!all)
        return 2;
    size_t heap0 = 0, heap_max = 0;
    long bad = 0;
    static const char *const names[] = {"scan", "exscan", "reduce", "gather"};
    for (int kind = 0; kind < 4; kind++) {
        for (long c = 0; c < calls; c++) {
            double in = input(rank, c), out = -1;
            ic_status_t st = IC_OK;
            double want = 0;
            int check = 1;
            switch (kind) {
            case 0:
                st = ic_scan(&in, &out, 1, IC_DOUBLE, IC_SUM, w);
                want = sum_of(0, rank + 1, c);
                break;
            case 1:
                st = ic_exscan(&in, &out, 1, IC_DOUBLE, IC_SUM, w);
                want = sum_of(0, rank, c);
                check = rank > 0; /* rank 0's exscan result is undefined */
                break;
            case 2:
                st = ic_reduce(&in, &out, 1, IC_DOUBLE, IC_SUM, p - 1, w);
                want = sum_of(0, p, c);
                check = rank == p - 1;
                break;
            default:
                st = ic_gather(&in, all, 1, IC_DOUBLE, 0, w);
                check = 0;
                if (rank == 0)
                    for (int r = 0; r < p; r++)
                        bad += all[r] != input(r, c);
                break;
            }
            if (st != IC_OK) {
                fprintf(stderr, "rank %d: %s call %ld: %s\n", rank, names[kind], c,
                        ic_last_error());
                return 1;
            }
            if (check && out != want && bad++ < 5)
                fprintf(stderr, "rank %d: %s call %ld: %g, want %g\n", rank, names[kind], c,
                        out, want);
            if (kind == 0 && c == calls / 10)
                heap0 = mallinfo2().uordblks; /* caches and free lists filled */
            if ((c & 1023) == 0 && heap0) {
                size_t h = mallinfo2().uordblks;
                heap_max = h > heap_max ? h : heap_max;
            }
        }
    }
    size_t grew = heap_max > heap0 ? heap_max - heap0 : 0;
    printf("rank %d: %ld calls each of scan, exscan, reduce, gather: %ld wrong; live heap "
           "%zu KiB, at most %zu KiB more\n",
           rank, calls, bad, heap0 >> 10, grew >> 10);
    free(all);
    ic_finalize(&w);
    if (bad)
        return 1;
    if (grew > HEAP_SLACK) {
        fprintf(stderr, "rank %d: live heap grew by %zu KiB (at most %u allowed)\n", rank,
                grew >> 10, HEAP_SLACK >> 10);
        return 1;
    }
    return 0;
}
