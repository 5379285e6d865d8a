/*
 * test_dropin.c — a plain MPI program that checks every collective the
 * drop-in library (libintercom_mpi.so, LD_PRELOADed or linked) intercepts,
 * against results computed serially from deterministic data.  It calls
 * only MPI; run without the drop-in it tests MPI itself, and the two runs
 * must agree (dropin_test.sh).
 *
 * Parts (dropin.h): the collective matrix in all forms (blocking, I-,
 * persistent and _c, every root, counts 0, 1, 7 and 100000, uneven v-counts,
 * MPI_IN_PLACE), calls that repeat earlier ones (the drop-in's memo),
 * datatypes and operations, an intercommunicator, and a split/dup/free loop
 * watching for leaked descriptors and shared memory.
 *
 * Output: "FAIL: <what> rank r ..." per failed check (the first 10 per
 * rank), then on rank 0 one "RESULT-HASH <16 hex digits>" line per rank (a
 * 64-bit FNV-1a over every integer result received, in order) and
 * "test_dropin: PASS (<n> checks)" or "test_dropin: FAIL (<f> of <n> checks
 * failed on <p> ranks)".  Exit status 0 on pass, 1 otherwise (after
 * MPI_Finalize, where the drop-in prints its report).
 *
 * Usage: test_dropin [communicator-loop iterations (default 50 at p <= 3,
 * 20 at p <= 5, 12 above: MPICH's busy waits make p = 8 slow on 2 cores)].
 * Environment: TEST_DROPIN_TRACE=1 (each rank's progress on stderr; 2: every
 * collective call too), TEST_DROPIN_MAX_FAILS=n (FAIL lines per rank,
 * default 10), TEST_DROPIN_STRICT_PERSISTENT=1 (no workaround for MPICH
 * 4.0.2's persistent Gather/Scatter/Allgather: for runs with the drop-in).
 */
#include "dropin.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int g_rank, g_size, g_large = 100000;
int g_quirk_lib, g_quirk_persistent, g_nohash;
long g_checks, g_fails;
static uint64_t g_hash = 1469598103934665603ULL; /* FNV-1a offset basis */

static long max_fail_lines = 10; /* TEST_DROPIN_MAX_FAILS */

void hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        g_hash ^= b[i];
        g_hash *= 1099511628211ULL;
    }
}

static void report_fail(const char *fmt, va_list ap, const char *detail)
{
    g_fails++;
    if (g_fails > max_fail_lines)
        return;
    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);
    printf("FAIL: %s rank %d%s%s\n", what, g_rank, detail[0] ? ": " : "", detail);
    if (g_fails == max_fail_lines)
        printf("FAIL: rank %d: further failures not shown\n", g_rank);
    fflush(stdout);
}

int check(int ok, const char *fmt, ...)
{
    g_checks++;
    if (!ok) {
        va_list ap;
        va_start(ap, fmt);
        report_fail(fmt, ap, "");
        va_end(ap);
    }
    return ok;
}

int check_ints(const int *got, const int *want, size_t n, const char *fmt, ...)
{
    size_t i = 0;
    g_checks++;
    if (n && !g_nohash)
        hash_bytes(got, n * sizeof *got);
    while (i < n && got[i] == want[i])
        i++;
    if (i == n)
        return 1;
    char detail[160];
    snprintf(detail, sizeof detail, "element %zu of %zu is %d, expected %d", i, n, got[i], want[i]);
    va_list ap;
    va_start(ap, fmt);
    report_fail(fmt, ap, detail);
    va_end(ap);
    return 0;
}

int check_bytes(const void *got, const void *want, size_t nbytes, int hash, const char *fmt, ...)
{
    g_checks++;
    if (hash && nbytes && !g_nohash)
        hash_bytes(got, nbytes);
    if (nbytes == 0 || memcmp(got, want, nbytes) == 0)
        return 1;
    size_t i = 0;
    const unsigned char *g = got, *w = want;
    while (g[i] == w[i])
        i++;
    char detail[160];
    snprintf(detail, sizeof detail, "byte %zu of %zu is 0x%02x, expected 0x%02x", i, nbytes, g[i],
             w[i]);
    va_list ap;
    va_start(ap, fmt);
    report_fail(fmt, ap, detail);
    va_end(ap);
    return 0;
}

int check_rc(int rc, const char *call)
{
    if (rc == MPI_SUCCESS)
        return check(1, "%s", call);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0, n = 0;
    MPI_Error_string(rc, msg, &len);
    while (call[n] && call[n] != '(')
        n++;
    return check(0, "%.*s returned %d (%s) in %.60s", n, call, rc, msg, call);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "test_dropin: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

void fill_int(int *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        p[i] = v;
}

/* Each collective once on a communicator in reverse world order
 * (blocking) and on the odd and the even ranks (nonblocking): rank
 * translation inside the drop-in. */
static void test_coll_subcomms(void)
{
    MPI_Comm rev, half;
    /* world in reverse order: blocking; odd and even ranks: nonblocking */
    MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &rev);
    test_coll_some(rev, F_BLOCK);
    MPI_Comm_free(&rev);
    MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half);
    test_coll_some(half, F_NB);
    MPI_Comm_free(&half);
}

/* test_memo on a communicator in reverse world order (its memo is the
 * communicator's record's, not the world's). */
static void test_memo_subcomm(void)
{
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &rev);
    test_memo(rev);
    MPI_Comm_free(&rev);
}

/* Waits for the other ranks without spinning: MPICH's blocking waits
 * busy-poll, and on an oversubscribed host idle ranks would take the CPU
 * of the working ones. */
static void sleepy_barrier(void)
{
    MPI_Request rq;
    int done = 0;
    struct timespec ts = {0, 200000};
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    for (;;) {
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        nanosleep(&ts, NULL);
    }
}

/* Runs fn on a communicator of the first k ranks (all if fewer) while the
 * others wait: for tests whose value does not grow with p. */
static void on_first(int k, void (*fn)(MPI_Comm))
{
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, g_rank < k ? 0 : MPI_UNDEFINED, g_rank, &sub);
    if (sub != MPI_COMM_NULL) {
        fn(sub);
        MPI_Comm_free(&sub);
    }
    sleepy_barrier();
}

/* TEST_DROPIN_TRACE=1: each rank says on stderr where it is. */
static int trace;
static void phase(const char *name)
{
    static double t0;
    if (!trace)
        return;
    double t = MPI_Wtime();
    fprintf(stderr, "test_dropin rank %d: %s (%.2f s, %ld checks)\n", g_rank, name,
            t0 ? t - t0 : 0.0, g_checks);
    t0 = t0 ? t0 : t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int iters = argc > 1 ? atoi(argv[1]) : g_size <= 3 ? 50 : g_size <= 5 ? 20 : 12;
    trace = getenv("TEST_DROPIN_TRACE") != NULL;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int liblen = 0;
    MPI_Get_library_version(lib, &liblen);
    g_quirk_lib = strstr(lib, "MPICH Version:") && strstr(lib, "4.0.");
    g_quirk_persistent = g_quirk_lib && !getenv("TEST_DROPIN_STRICT_PERSISTENT");
    if (getenv("TEST_DROPIN_MAX_FAILS"))
        max_fail_lines = atol(getenv("TEST_DROPIN_MAX_FAILS"));

    phase("blocking"), test_coll_blocking(MPI_COMM_WORLD);
    phase("large"), test_coll_large(MPI_COMM_WORLD);
    phase("batches"), test_coll_batches(MPI_COMM_WORLD);
    phase("mixed"), test_mixed(MPI_COMM_WORLD);
    phase("subcomms"), test_coll_subcomms();
    phase("memo"), test_memo(MPI_COMM_WORLD);
    if (g_size <= 4) /* MPICH's busy waits make its own calls slow above */
        test_memo_subcomm();
    phase("types"), on_first(3, test_types);
    phase("types batch"), test_types_batch(MPI_COMM_WORLD);
    phase("intercomm"), test_intercomm();
    phase("comm loop"), test_comm_loop(iters);
    phase("end");

    /* Collect verdicts and hashes with point-to-point only (never through
     * the collectives under test). */
    long mine[3] = {g_checks, g_fails, 0};
    memcpy(&mine[2], &g_hash, sizeof g_hash);
    long total_checks = g_checks, total_fails = g_fails;
    if (g_rank == 0) {
        uint64_t *hashes = xmalloc(sizeof *hashes * (size_t)g_size);
        hashes[0] = g_hash;
        for (int q = 1; q < g_size; q++) {
            long theirs[3];
            MPI_Recv(theirs, 3, MPI_LONG, q, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total_checks += theirs[0];
            total_fails += theirs[1];
            memcpy(&hashes[q], &theirs[2], sizeof hashes[q]);
        }
        for (int q = 0; q < g_size; q++)
            printf("RESULT-HASH %016" PRIx64 "\n", hashes[q]);
        if (total_fails)
            printf("test_dropin: FAIL (%ld of %ld checks failed on %d ranks)\n", total_fails,
                   total_checks, g_size);
        else
            printf("test_dropin: PASS (%ld checks)\n", total_checks);
        fflush(stdout);
        free(hashes);
        for (int q = 1; q < g_size; q++)
            MPI_Send(&total_fails, 1, MPI_LONG, q, 8, MPI_COMM_WORLD);
    } else {
        MPI_Send(mine, 3, MPI_LONG, 0, 7, MPI_COMM_WORLD);
        MPI_Recv(&total_fails, 1, MPI_LONG, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return total_fails ? 1 : 0;
}
