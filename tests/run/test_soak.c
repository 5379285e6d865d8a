/*
 * test_soak.c — a seeded random soak on real processes:
 *   intercom-run -n P test_soak CALLS [SEED]
 * Every rank draws the same random sequence of CALLS collectives (any of
 * the 16; the selector or a forced algorithm; counts from 0 to 64 Ki
 * elements; every datatype family; in place or not; roots; v-count
 * shapes; blocking, nonblocking or persistent (an algorithm that exchanges
 * the counts first, IC_ALGO_SIZES, blocking only); on the world or on a
 * sub-communicator that is split off and freed now and then) and checks
 * every result against the serial reference of tests/coll/harness.c.
 * After a warm-up, it samples open file descriptors, resident memory and
 * (rank 0) the number of intercom segments in /dev/shm; at the end the
 * fds must be the same, live heap data grown by at most 1 MiB and RSS by at
 * most 64 MiB (the segment count is reported; with other jobs running it
 * cannot be judged here).  Prints one summary line per rank; exit status
 * 0 on success.
 */
#define _GNU_SOURCE 1
#include "harness.h"
#include "select/catalog.h"

#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng;

static uint32_t draw(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int count_segments(void)
{
    int n = 0;
    DIR *d = opendir("/dev/shm");
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, "intercom-", 9) == 0;
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 2000;
    unsigned seed = argc > 2 ? (unsigned)atol(argv[2]) : 1;
    rng = 0x9E3779B97F4A7C15ull ^ seed;
    harness_init();
    ic_comm_t *world, *sub = NULL;
    if (ic_init(&world) != IC_OK) {
        printf("ic_init: %s\n", ic_last_error());
        return 1;
    }
    int p, me;
    ic_comm_size(world, &p);
    ic_comm_rank(world, &me);
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    static const ic_datatype_t types[] = {IC_INT32, IC_INT64, IC_UINT8, IC_FLOAT, IC_DOUBLE,
                                          IC_BFLOAT16, IC_INT16};
    static const size_t sizes[] = {0, 1, 3, 17, 100, 1000, 4099, 65536};
    tally_t t = {0};
    int fds0 = 0, segs0 = 0;
    long rss0 = 0;
    size_t heap0 = 0;
    long warm = calls / 10 < 200 ? calls / 10 : 200;
    for (long k = 0; k < calls; k++) {
        if (k == warm) {
            fds0 = count_fds();
            rss0 = rss_kib();
            segs0 = me == 0 ? count_segments() : 0;
            heap0 = mallinfo2().uordblks;
        }
        /* Now and then a sub-communicator comes or goes. */
        if (draw(50) == 0) {
            if (sub) {
                ic_comm_free(&sub);
            } else if (ic_comm_split(world, (int)draw(2) ? me % 2 : 0, (int)draw(7) - me, &sub) !=
                       IC_OK) {
                printf("rank %d: split: %s\n", me, ic_last_error());
                return 1;
            }
        }
        ic_comm_t *comm = sub && draw(3) == 0 ? sub : world;
        int cp;
        ic_comm_size(comm, &cp);
        tcase_t c = {0};
        c.coll = (ic_coll_t)draw(IC_COLL_COUNT);
        c.p = cp;
        c.root = (int)draw((uint32_t)cp);
        c.count = sizes[draw(sizeof sizes / sizeof sizes[0])];
        c.dtype = types[draw(sizeof types / sizeof types[0])];
        c.op = c.dtype == IC_UINT8 ? IC_MAX : IC_SUM;
        c.seed = (unsigned)draw(1u << 30);
        c.vcounts = (vcounts_t)draw(4);
        c.vlayout = (vlayout_t)draw(3);
        c.in_place = coll_in_place_ok(c.coll) && draw(3) == 0;
        /* A forced algorithm one call in four. */
        bool blocking_only = false;
        if (draw(4) == 0) {
            size_t a = draw((uint32_t)ncat);
            while (cat[a].coll != c.coll)
                a = (a + 1) % ncat;
            bool pow2 = (cp & (cp - 1)) == 0;
            int side = 2; /* quadrant: cp = 4^j (no mesh is set: it takes the square) */
            while (side * side < cp)
                side *= 2;
            bool square = side * side == cp;
            if ((!(cat[a].flags & IC_ALGO_POW2) || pow2) &&
                (!(cat[a].flags & IC_ALGO_SQUARE_MESH) || square) &&
                !(cat[a].flags & IC_ALGO_PHYS)) { /* no placement is declared here */
                c.algo = cat[a].name;
                blocking_only = cat[a].flags & IC_ALGO_SIZES; /* refuses the other forms */
            }
        }
        int form = (int)draw(6); /* 0-3 blocking, 4 nonblocking, 5 persistent */
        form = form < 4 || blocking_only ? 0 : form - 3;
        real_case_t rc;
        char msg[512] = "";
        int fail = real_begin(&rc, &c, comm, form, msg, sizeof msg);
        if (!fail && form == 2)
            fail = real_restart(&rc, c.seed + 1, msg, sizeof msg);
        if (!fail)
            fail = real_end(&rc, msg, sizeof msg);
        real_free(&rc);
        if (fail) {
            if (t.failed++ < 10) {
                char d[256];
                describe(&c, d, sizeof d);
                printf("rank %d call %ld FAIL %s: %s\n", me, k, d, msg);
            }
        } else {
            t.passed++;
        }
    }
    if (sub)
        ic_comm_free(&sub);
    int fds1 = count_fds(), segs1 = me == 0 ? count_segments() : 0;
    long rss1 = rss_kib();
    size_t heap1 = mallinfo2().uordblks;
    /* Segments of other jobs (a parallel test run) may come and go, so
     * the count is reported, not judged: test_no_shm_left judges.  Live
     * heap data (mallinfo2) must stay within 1 MiB of its size after the
     * warm-up: a leak of one block per call would show at once.  RSS also
     * holds freed memory the allocator keeps (27 MiB after 3 * 10^5 calls
     * with 175 KiB live), so it is judged loosely, and under
     * AddressSanitizer (whose quarantine holds freed memory) not at all. */
#if defined(__SANITIZE_ADDRESS__)
    const long rss_limit = -1;
#else
    const long rss_limit = 64 * 1024;
#endif
    int flat = fds1 == fds0 && (rss_limit < 0 || rss1 - rss0 <= rss_limit) &&
               (rss_limit < 0 || heap1 <= heap0 + (1u << 20));
    printf("rank %d: %ld checked collectives, %ld failed; fds %d -> %d, RSS %ld -> %ld KiB, "
           "heap in use %zu -> %zu KiB%s%s\n",
           me, t.passed + t.failed, t.failed, fds0, fds1, rss0, rss1, heap0 / 1024, heap1 / 1024,
           me == 0 ? ", segments in /dev/shm " : "",
           me == 0 ? (segs1 <= segs0 ? "not more" : "more (other jobs?)") : "");
    ic_status_t st = ic_finalize(&world);
    return t.failed == 0 && flat && st == IC_OK ? 0 : 1;
}
