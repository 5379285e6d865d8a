/*
 * test_shm_segment.c — the life of the job's segment:
 *
 *   - the name is "/intercom-" + 16 hex digits, the file a regular file
 *     of mode 0600 owned by us, whatever the umask;
 *   - it exists while some rank has not attached, and is unlinked as
 *     soon as all have (each rank finds it gone when ic_shm_open
 *     returns; the parent sees it go);
 *   - a second process attaching as an already attached rank is refused;
 *   - if a rank never attaches, the others' ic_shm_open fails with
 *     IC_ERR_PEER_FAILED once the launcher marks that rank failed, and
 *     ic_shm_job_destroy removes the segment;
 *   - create + destroy with no rank leaves nothing behind;
 *   - bad arguments are refused with IC_ERR_ARG;
 *   - each attached rank has its queues (the 2p - 1 it writes or reads)
 *     in its page tables before any message, so that no first touch of a
 *     queue page faults on a message's path (where the kernel has
 *     MADV_POPULATE_WRITE, 5.14 on; else this check is skipped);
 *   - the layout: queues and eager limits for p ranks with a core each
 *     and for crowded jobs (more ranks than cores), within their budget;
 *   - a crowded job is crowded for every rank: the creator's finding is
 *     in the header, and a rank whose own IC_SHM_CORES says otherwise
 *     still takes the job's layout, waits and prices as crowded, and its
 *     64 KiB eager messages arrive intact;
 *   - where single copy is cheap a job with a core per rank takes an
 *     8 KiB eager limit, crowded ones keep theirs;
 *   - IC_SHM_EAGER_MAX of the creator sets the job's eager limit (cut to a
 *     quarter of a queue) on every rank whatever the ranks' own values, and
 *     a message just above it arrives intact;
 *   - the one-way limit follows the creator's finding on single copy
 *     (IC_SHM_CMA_EXTRA_NS, or measured) and its IC_SHM_ONEWAY_EAGER_MAX,
 *     not the ranks' own; messages at and just above it arrive intact.
 */
#include "shm_harness.h" /* first: it selects the POSIX/Linux interfaces */

#include "../unit/check.h"

#include "transport/shm/shm_internal.h"

#include <ctype.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The resident bytes of this process's mapping that contains addr
 * (/proc/self/smaps), or -1. */
static long resident_bytes(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int in = 0;
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
        else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
            break;
    }
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* Whether this kernel populates a shared mapping on request. */
static int can_populate(void)
{
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 0;
    int ok = madvise(m, 4096, MADV_POPULATE_WRITE) == 0;
    munmap(m, 4096);
    return ok;
}

static pid_t spawn(shm_rank_fn fn, int rank, int size, const char *name)
{
    pid_t pid = fork();
    if (pid == 0) {
        int code = fn(rank, size, name, NULL);
        fflush(stdout);
        _exit(code);
    }
    return pid;
}

static int reap(pid_t pid, double timeout_s)
{
    double end = now_s() + timeout_s;
    int st = -1;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (now_s() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        usleep(1000);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A normal rank: after ic_shm_open the name must be gone; then a ring
 * exchange with the others proves the segment still works. */
static int attach_rank(int rank, int size, const char *name, void *arg)
{
    (void)arg;
    ic_transport_t *t = open_rank(name, rank, size);
    if (!segment_gone(name)) {
        printf("  rank %d: %s still exists after all attached\n", rank, name);
        return 10;
    }
    if (can_populate()) {
        const shm_seg_t *seg = &((const shm_transport_t *)(const void *)t)->seg;
        long want = (long)((2 * (uint64_t)size - 1) * seg->hdr->queue_stride);
        long got = resident_bytes(seg->base);
        if (got < want) {
            printf("  rank %d: %ld bytes of the segment mapped, want at least the %d queues' %ld\n",
                   rank, got, 2 * size - 1, want);
            return 12;
        }
    }
    int v = rank, got = -1;
    ic_tx_req_t req[2];
    char done[2];
    t->ops->irecv(t, (rank + size - 1) % size, mkkey(1, 0, 0), &got, sizeof got, &req[0]);
    t->ops->isend(t, (rank + 1) % size, mkkey(1, 0, 0), &v, sizeof v, &req[1]);
    ic_status_t st = wait_all(t, req, 2, done);
    t->ops->close(t);
    return st == IC_OK && got == (rank + size - 1) % size ? 0 : 11;
}

/* Tries to attach as rank 0 while the real rank 0 is attached. */
static int impostor(int rank, int size, const char *name, void *arg)
{
    (void)arg;
    ic_transport_t *t = NULL;
    ic_status_t st = ic_shm_open(name, rank, size, &t);
    return st == IC_ERR_ARG && t == NULL ? 0 : 12;
}

/* A rank whose ic_shm_open must fail with IC_ERR_PEER_FAILED. */
static int orphan_rank(int rank, int size, const char *name, void *arg)
{
    (void)arg;
    ic_transport_t *t = NULL;
    ic_status_t st = ic_shm_open(name, rank, size, &t);
    if (st != IC_ERR_PEER_FAILED)
        printf("  rank %d: ic_shm_open returned %s (%s)\n", rank, ic_status_string(st),
               ic_last_error());
    return st == IC_ERR_PEER_FAILED && t == NULL ? 42 : 13;
}

static int wait_attached(ic_shm_job_t *job, int n, double timeout_s)
{
    double end = now_s() + timeout_s;
    while (ic_shm_job_attached(job) < n && now_s() < end)
        usleep(1000);
    return ic_shm_job_attached(job) >= n;
}

static void test_name_and_mode(void)
{
    char name[64], path[96];
    ic_shm_job_t *job = NULL;
    struct stat sb;
    mode_t old = umask(0277); /* would turn 0600 into 0400 without fchmod */
    ic_status_t st = ic_shm_job_create(3, &job, name, sizeof name);
    umask(old);
    CHECK(st == IC_OK, "ic_shm_job_create: %s", ic_last_error());
    if (st != IC_OK)
        return;
    int hex = strlen(name) == 26 && !strncmp(name, "/intercom-", 10);
    for (int i = 10; i < 26 && hex; i++)
        hex = isxdigit((unsigned char)name[i]) && !isupper((unsigned char)name[i]);
    CHECK(hex, "name %s is not /intercom-<16 hex digits>", name);
    snprintf(path, sizeof path, "/dev/shm%s", name);
    CHECK(stat(path, &sb) == 0, "stat %s: %s", path, strerror(errno));
    CHECK(S_ISREG(sb.st_mode) && (sb.st_mode & 07777) == 0600, "%s has mode %o", path,
          (unsigned)(sb.st_mode & 07777));
    CHECK(sb.st_uid == geteuid(), "%s is owned by uid %u", path, (unsigned)sb.st_uid);
    CHECK(ic_shm_job_attached(job) == 0, "attached = %d before any rank", ic_shm_job_attached(job));

    /* Ranks 0 and 1 attach and wait; the name must still exist. */
    pid_t p0 = spawn(attach_rank, 0, 3, name), p1 = spawn(attach_rank, 1, 3, name);
    CHECK(wait_attached(job, 2, 10), "ranks 0 and 1 did not attach");
    CHECK(!segment_gone(name), "%s gone before the last rank attached", name);
    pid_t pi = spawn(impostor, 0, 3, name);
    CHECK(reap(pi, 10) == 0, "a second rank 0 was not refused with IC_ERR_ARG");
    CHECK(ic_shm_job_attached(job) == 2, "attached = %d after the refused impostor",
          ic_shm_job_attached(job));
    pid_t p2 = spawn(attach_rank, 2, 3, name);
    CHECK(wait_attached(job, 3, 10), "rank 2 did not attach");
    double end = now_s() + 2;
    while (!segment_gone(name) && now_s() < end)
        usleep(100);
    CHECK(segment_gone(name), "%s still exists after all 3 attached", name);
    CHECK(reap(p0, 20) == 0 && reap(p1, 20) == 0 && reap(p2, 20) == 0,
          "a rank failed after attaching");
    CHECK(ic_shm_job_destroy(job) == IC_OK, "ic_shm_job_destroy: %s", ic_last_error());
    CHECK(segment_gone(name), "%s exists after destroy", name);
}

static void test_never_attached(void)
{
    char name[64];
    ic_shm_job_t *job = NULL;
    CHECK(ic_shm_job_create(3, &job, name, sizeof name) == IC_OK, "create: %s", ic_last_error());
    if (!job)
        return;
    pid_t p0 = spawn(orphan_rank, 0, 3, name), p1 = spawn(orphan_rank, 1, 3, name);
    CHECK(wait_attached(job, 2, 10), "ranks 0 and 1 did not attach");
    usleep(50000);
    CHECK(!segment_gone(name), "%s gone although rank 2 never attached", name);
    /* Rank 2 "failed to start": the launcher says so. */
    double t0 = now_s();
    ic_shm_job_mark_failed(job, 2, 127 << 8);
    int r0 = reap(p0, 5), r1 = reap(p1, 5);
    double dt = now_s() - t0;
    CHECK(r0 == 42 && r1 == 42, "open did not fail with IC_ERR_PEER_FAILED (%d, %d)", r0, r1);
    CHECK(dt < 1.0, "the waiting ranks took %.3f s to notice", dt);
    CHECK(ic_shm_job_destroy(job) == IC_OK, "destroy: %s", ic_last_error());
    CHECK(segment_gone(name), "%s exists after destroy", name);
}

static void test_create_destroy_and_args(void)
{
    char name[64];
    ic_shm_job_t *job = NULL;
    ic_transport_t *t = NULL;
    CHECK(ic_shm_job_create(4, &job, name, sizeof name) == IC_OK, "create: %s", ic_last_error());
    CHECK(!segment_gone(name), "%s missing after create", name);
    CHECK(ic_shm_open(name, 0, 5, &t) == IC_ERR_ARG && !t, "open with the wrong size accepted");
    CHECK(ic_shm_open(name, 4, 4, &t) == IC_ERR_ARG && !t, "open of rank 4 of 4 accepted");
    CHECK(ic_shm_job_destroy(job) == IC_OK, "destroy: %s", ic_last_error());
    CHECK(segment_gone(name), "%s exists after destroy", name);
    CHECK(ic_shm_open(name, 0, 4, &t) == IC_ERR_TRANSPORT && !t, "open of a removed job");
    CHECK(ic_shm_job_create(0, &job, name, sizeof name) == IC_ERR_ARG, "0 ranks accepted");
    CHECK(ic_shm_job_create(2, &job, name, 8) == IC_ERR_ARG, "short name buffer accepted");
    CHECK(ic_shm_job_create(2, NULL, name, sizeof name) == IC_ERR_ARG, "NULL job accepted");
    CHECK(ic_shm_job_destroy(NULL) == IC_OK, "destroy(NULL)");
    CHECK(ic_shm_job_attached(NULL) == 0, "attached(NULL)");
}

/* The layout of p ranks: queue cells and eager limit. */
static void check_layout(int p, bool crowded, uint32_t cells, uint32_t eager)
{
    shm_hdr_t h;
    memset(&h, 0, sizeof h);
    ic_shm_layout(p, crowded, &h);
    uint32_t oneway = crowded || eager < 4096 ? eager : 4096; /* a one-way send's limit */
    CHECK(h.ncells == cells && h.eager_max == eager && h.crowded == (uint32_t)crowded &&
              h.oneway_max == oneway,
          "layout of %d ranks%s: %u cells, eager %u, one-way %u; want %u, %u, %u", p,
          crowded ? " (crowded)" : "", h.ncells, h.eager_max, h.oneway_max, cells, eager, oneway);
}

static void test_layout(void)
{
    const uint32_t hdr = SHM_MSG_HDR, k = 1024;
    check_layout(2, false, 2048, 16 * k);
    check_layout(8, false, 2048, 16 * k);
    check_layout(11, false, 1024, 16 * k);
    check_layout(16, false, 512, 8 * k + hdr);
    check_layout(2, true, 8192, 32 * k);
    check_layout(4, true, 8192, 32 * k);
    check_layout(5, true, 4096, 32 * k);
    check_layout(6, true, 2048, 32 * k);
    check_layout(8, true, 2048, 32 * k);
    check_layout(16, true, 512, 8 * k + hdr);
    /* Where single copy is dear one-way messages take the common limit,
     * and a crowded one grows to 128 KiB within a quarter of a queue
     * (8192 cells at p <= 4, 4096 at p = 5, 2048 at p = 6..8).  Where it
     * is cheap, a job with a core per rank sends messages above 8 KiB by
     * rendezvous; crowded jobs keep their limits. */
    static const struct {
        int p, crowded, dear;
        uint32_t eager, oneway;
    } adj[] = {{2, 0, 1, 16 * k, 16 * k},           {16, 0, 1, 8 * k + hdr, 8 * k + hdr},
               {2, 1, 1, 128 * k, 128 * k},         {3, 1, 1, 128 * k, 128 * k},
               {4, 1, 1, 128 * k, 128 * k},         {5, 1, 1, 64 * k + hdr, 64 * k + hdr},
               {6, 1, 1, 32 * k + hdr, 32 * k + hdr}, {8, 1, 1, 32 * k + hdr, 32 * k + hdr},
               {16, 1, 1, 8 * k + hdr, 8 * k + hdr}, {2, 0, 0, 8 * k, 4 * k},
               {11, 0, 0, 8 * k, 4 * k},            {16, 0, 0, 8 * k, 4 * k},
               {64, 0, 0, 4 * k + hdr, 4 * k},      {2, 1, 0, 32 * k, 32 * k},
               {4, 1, 0, 32 * k, 32 * k},           {8, 1, 0, 32 * k, 32 * k},
               {16, 1, 0, 8 * k + hdr, 8 * k + hdr}};
    for (size_t i = 0; i < sizeof adj / sizeof *adj; i++) {
        shm_hdr_t h, d;
        memset(&h, 0, sizeof h);
        ic_shm_layout(adj[i].p, adj[i].crowded, &h);
        d = h;
        if (adj[i].dear)
            ic_shm_layout_cma_dear(&d);
        else
            ic_shm_layout_cma_cheap(&d);
        CHECK(d.eager_max == adj[i].eager && d.oneway_max == adj[i].oneway &&
                  d.ncells == h.ncells && d.total_size == h.total_size &&
                  d.eager_max <= hdr + (uint64_t)SHM_CELL * (d.ncells / 4),
              "%s layout of %d ranks%s: eager %u one-way %u cells %u; want %u %u %u",
              adj[i].dear ? "dear" : "cheap", adj[i].p, adj[i].crowded ? " (crowded)" : "",
              d.eager_max, d.oneway_max, d.ncells, adj[i].eager, adj[i].oneway, h.ncells);
    }
    for (int p = 1; p <= 64; p++)
        for (int c = 0; c < 2; c++) {
            shm_hdr_t h;
            memset(&h, 0, sizeof h);
            ic_shm_layout(p, c, &h);
            uint64_t queues = (uint64_t)p * (uint64_t)p * h.ncells * SHM_CELL;
            CHECK(h.eager_max <= hdr + (uint64_t)SHM_CELL * (h.ncells / 4) &&
                      (h.ncells <= 512 || queues <= (8u << 20)),
                  "p = %d%s: eager %u in %u cells, queues %llu bytes", p, c ? " (crowded)" : "",
                  h.eager_max, h.ncells, (unsigned long long)queues);
            /* Bulk buffers: 4 chunks a pair, within 64 MiB in all unless
             * at the 4 KiB floor. */
            uint64_t bulk = (uint64_t)p * (uint64_t)p * h.bulk_stride;
            CHECK(h.nchunks == 4 && h.bulk_stride == (uint64_t)h.nchunks * h.chunk &&
                      h.chunk >= 4 * k && (bulk <= (64u << 20) || h.chunk == 4 * k),
                  "p = %d%s: %u chunks of %u bytes, %llu bytes of bulk buffers", p,
                  c ? " (crowded)" : "", h.nchunks, h.chunk, (unsigned long long)bulk);
        }
    /* The chunk: up to 32 KiB with a core per rank, up to 128 KiB crowded
     * (where sender and receiver often share a core: fewer waits for the
     * other to be scheduled), both shrinking with p^2 within the budget. */
    static const struct {
        int p, crowded;
        uint32_t chunk;
    } ch[] = {{2, 0, 32 * k},  {8, 0, 32 * k},  {16, 0, 32 * k}, {32, 0, 16 * k},
              {2, 1, 128 * k}, {4, 1, 128 * k}, {8, 1, 128 * k},  {16, 1, 64 * k},
              {17, 1, 32 * k}, {64, 1, 4 * k}};
    for (size_t i = 0; i < sizeof ch / sizeof *ch; i++) {
        shm_hdr_t h;
        memset(&h, 0, sizeof h);
        ic_shm_layout(ch[i].p, ch[i].crowded, &h);
        CHECK(h.chunk == ch[i].chunk, "layout of %d ranks%s: chunk %u, want %u", ch[i].p,
              ch[i].crowded ? " (crowded)" : "", h.chunk, ch[i].chunk);
    }
}

/* A rank of a crowded job (created under IC_SHM_CORES=1) whose own
 * environment says every rank has a core and whose single copy the other
 * way: it must follow the creator's layout (arg: its eager limit, 32 KiB
 * where single copy is cheap, 128 KiB where dear), waiting and cost model
 * (1 core) all the same, and a message of the eager limit goes inline. */
static int crowded_rank(int rank, int size, const char *name, void *arg)
{
    uint32_t want = *(const uint32_t *)arg;
    setenv("IC_SHM_CORES", "64", 1);
    setenv("IC_SHM_CMA_EXTRA_NS", want == 32u << 10 ? "5000" : "0", 1);
    ic_transport_t *t = open_rank(name, rank, size);
    const shm_transport_t *st = (const shm_transport_t *)(const void *)t;
    int bad = 0;
    if (st->seg.hdr->crowded != 1 || st->seg.hdr->eager_max != want || !st->oversubscribed ||
        t->rndv_bytes != 0 || st->seg.hdr->cores != 1 || t->cores != 1 ||
        st->seg.hdr->oneway_max != want || st->oneway_max != want || t->rndv_oneway_bytes != 0) {
        printf("  rank %d: crowded %u, eager %u (want %u), oversubscribed %d, rndv_bytes %g, "
               "cores %u (model %g)\n",
               rank, st->seg.hdr->crowded, st->seg.hdr->eager_max, want, (int)st->oversubscribed,
               t->rndv_bytes, st->seg.hdr->cores, t->cores);
        bad = 20;
    }
    enum { N = 128u << 10 };
    static unsigned char buf[N];
    ic_tx_req_t req;
    char done;
    int fin = 0;
    if (rank == 0) {
        pat_fill(buf, want, 77);
        t->ops->isend(t, 1, mkkey(3, 0, 0), buf, want, &req);
        /* inline: done before rank 1 has received anything */
        if (t->ops->test(t, &req, &fin) != IC_OK || !fin) {
            printf("  rank 0: a %u-byte send not done after posting\n", want);
            bad = 22;
        }
    } else {
        t->ops->irecv(t, 0, mkkey(3, 0, 0), buf, want, &req);
    }
    if ((!fin && wait_all(t, &req, 1, &done) != IC_OK) ||
        (rank == 1 && pat_check(buf, want, 77) >= 0))
        bad = 21;
    t->ops->close(t);
    return bad;
}

static void test_crowded_agreement(void)
{
    static const struct {
        const char *cma_ns;
        uint32_t eager;
    } cases[] = {{"0", 32u << 10}, {"5000", 128u << 10}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int status[2] = {0, 0};
        char name[64], d0[32], d1[32];
        uint32_t want = cases[i].eager;
        setenv("IC_SHM_CORES", "1", 1);
        setenv("IC_SHM_CMA_EXTRA_NS", cases[i].cma_ns, 1);
        int rc = run_job(2, crowded_rank, &want, 30, MARK_BAD, status, name);
        unsetenv("IC_SHM_CMA_EXTRA_NS");
        unsetenv("IC_SHM_CORES");
        CHECK(rc == 0 && status[0] == 0 && status[1] == 0,
              "crowded job, IC_SHM_CMA_EXTRA_NS=%s of the creator: %s, %s", cases[i].cma_ns,
              describe(status[0], d0, sizeof d0), describe(status[1], d1, sizeof d1));
        fflush(stdout); /* before later tests fork */
    }
}

/* A rank of a job created under IC_SHM_EAGER_MAX (arg: the value) whose
 * own environment says another: the creator's limit holds on every rank
 * (header, rendezvous size of the cost model), cut to a quarter of a queue;
 * and a message just above it still arrives intact (by rendezvous). */
static int eager_rank(int rank, int size, const char *name, void *arg)
{
    uint32_t want = *(const uint32_t *)arg;
    setenv("IC_SHM_EAGER_MAX", rank ? "100" : "65536", 1);
    ic_transport_t *t = open_rank(name, rank, size);
    const shm_transport_t *st = (const shm_transport_t *)(const void *)t;
    int bad = 0;
    if (st->seg.hdr->eager_max != want || (!st->oversubscribed && t->rndv_bytes != (double)want)) {
        printf("  rank %d: eager %u, want %u, rndv_bytes %g\n", rank, st->seg.hdr->eager_max, want,
               t->rndv_bytes);
        bad = 22;
    }
    size_t n = (size_t)want + 1;
    unsigned char *buf = malloc(n);
    ic_tx_req_t req;
    char done;
    if (!buf) {
        bad = 23;
    } else if (rank == 0) {
        pat_fill(buf, n, 78);
        t->ops->isend(t, 1, mkkey(4, 0, 0), buf, n, &req);
    } else {
        t->ops->irecv(t, 0, mkkey(4, 0, 0), buf, n, &req);
    }
    if (buf && (wait_all(t, &req, 1, &done) != IC_OK || (rank == 1 && pat_check(buf, n, 78) >= 0)))
        bad = 24;
    free(buf);
    t->ops->close(t);
    return bad;
}

static void test_eager_max_env(void)
{
    /* 2 ranks, a core each: 2048 cells, a quarter is 32 KiB + header;
     * crowded (1 core) with single copy dear: 8192 cells, the limit set
     * still decides over the dear one of 128 KiB; and over the cheap 8 KiB */
    static const struct {
        const char *env, *cores, *cma_ns;
        uint32_t want;
    } cases[] = {{"4096", "64", "5000", 4096},
                 {"1000000", "64", "5000", 32u * 1024 + SHM_MSG_HDR},
                 {"4096", "1", "5000", 4096},
                 {"200000", "1", "5000", 128u * 1024 + SHM_MSG_HDR},
                 {"16384", "64", "0", 16384}}; /* over the cheap 8 KiB */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int status[2] = {0, 0};
        char name[64], d0[32], d1[32];
        uint32_t want = cases[i].want;
        setenv("IC_SHM_CORES", cases[i].cores, 1);
        setenv("IC_SHM_CMA_EXTRA_NS", cases[i].cma_ns, 1);
        setenv("IC_SHM_EAGER_MAX", cases[i].env, 1);
        int rc = run_job(2, eager_rank, &want, 30, MARK_BAD, status, name);
        unsetenv("IC_SHM_EAGER_MAX");
        unsetenv("IC_SHM_CMA_EXTRA_NS");
        unsetenv("IC_SHM_CORES");
        CHECK(rc == 0 && status[0] == 0 && status[1] == 0,
              "IC_SHM_EAGER_MAX=%s of the creator, IC_SHM_CORES=%s, IC_SHM_CMA_EXTRA_NS=%s: %s, %s",
              cases[i].env, cases[i].cores, cases[i].cma_ns, describe(status[0], d0, sizeof d0),
              describe(status[1], d1, sizeof d1));
        fflush(stdout);
    }
}

/* The one-way limits of test_oneway_limit's jobs: the creator's
 * environment, what the ranks must find in the header. */
enum { OW_CHEAP, OW_CREATOR_SET, OW_DEAR, OW_DEAR_EAGER, OW_MEASURED, OW_MODES };
static const char *const ow_what[OW_MODES] = {
    "single copy cheap (IC_SHM_CMA_EXTRA_NS=0)", "IC_SHM_ONEWAY_EAGER_MAX=100",
    "single copy dear (IC_SHM_CMA_EXTRA_NS=5000)",
    "single copy dear, IC_SHM_EAGER_MAX=32768", "single copy measured"};

/* A rank of a 2-rank job with a core each (arg: the OW_ mode; the
 * creator's IC_SHM_ONEWAY_EAGER_MAX and IC_SHM_CMA_EXTRA_NS, which this
 * rank's own environment contradicts, decide).  Rank 0 posts three sends:
 * one-way ones (ops->isend_oneway) of oneway_max bytes, which goes inline
 * and is done at once, and of oneway_max + 1, which goes by rendezvous
 * (with single copy) and is not done before rank 1 receives it; an
 * ordinary one of 8 KiB, inline.  Only then does it send rank 1 the token
 * after which rank 1 posts its receives, so no receive can have taken the
 * rendezvous message early.  The model's one-way limit is the header's. */
static int oneway_rank(int rank, int size, const char *name, void *arg)
{
    int mode = *(const int *)arg;
    setenv("IC_SHM_ONEWAY_EAGER_MAX", "2000", 1);
    setenv("IC_SHM_CMA_EXTRA_NS", mode == OW_DEAR || mode == OW_DEAR_EAGER ? "0" : "5000", 1);
    ic_transport_t *t = open_rank(name, rank, size);
    const shm_transport_t *st = (const shm_transport_t *)(const void *)t;
    const shm_hdr_t *h = st->seg.hdr;
    bool dear = mode == OW_DEAR || mode == OW_DEAR_EAGER ||
                (mode == OW_MEASURED && h->cma_extra_ns >= SHM_CMA_DEAR_NS);
    /* 8 KiB where single copy works and is cheap (the creator's figure set,
     * or measured and working), 16 KiB where it is dear or refused */
    bool cheap = !dear && (mode != OW_MEASURED || st->cma);
    uint32_t eager = mode == OW_DEAR_EAGER ? 32768 : cheap ? 8192 : 16384;
    uint32_t want = mode == OW_CREATOR_SET ? 100 : dear ? eager : 4096;
    uint32_t want_ns = dear && mode != OW_MEASURED ? 5000 : mode == OW_CHEAP ? 0 : h->cma_extra_ns;
    int bad = 0;
    if (h->oneway_max != want || h->cma_extra_ns != want_ns || h->eager_max != eager ||
        t->rndv_oneway_bytes != (double)(st->cma ? want : h->eager_max)) {
        printf("  rank %d: oneway_max %u, want %u; cma_extra_ns %u, want %u; eager_max %u; "
               "rndv_oneway_bytes %g\n",
               rank, h->oneway_max, want, h->cma_extra_ns, want_ns, h->eager_max,
               t->rndv_oneway_bytes);
        bad = 25;
    }
    enum { N = 8192, NMAX = 40960 };
    static unsigned char a[NMAX], b[NMAX], c[N];
    size_t na = want, nb = want + 1;
    if (nb > NMAX) {
        printf("  rank %d: oneway_max %u above the test's buffers\n", rank, want);
        t->ops->close(t);
        return 25;
    }
    ic_tx_req_t req[4];
    char done[4];
    int fin = 0;
    if (rank == 0) {
        pat_fill(a, na, 81);
        pat_fill(b, nb, 82);
        pat_fill(c, N, 83);
        t->ops->isend_oneway(t, 1, mkkey(5, 0, 0), a, na, &req[0]);
        t->ops->isend_oneway(t, 1, mkkey(5, 0, 1), b, nb, &req[1]);
        t->ops->isend(t, 1, mkkey(5, 0, 2), c, N, &req[2]);
        /* With single copy the rendezvous message (below the shared size)
         * is read by the receiver where single copy is cheap and goes
         * through the bulk buffer where it is dear (shm_rndv.c). */
        if (st->cma && (st->nchunked != (dear ? 1u : 0u) || st->ncma_sends != (dear ? 0u : 1u))) {
            printf("  rank 0: %u chunked and %u single-copy sends in flight, want %d and %d\n",
                   st->nchunked, st->ncma_sends, dear, !dear);
            bad = 28;
        }
        /* ... and one-way messages are shared from 1 MiB instead of 256 KiB */
        uint64_t share = dear ? 1u << 20 : 256u << 10;
        if (st->cma && (st->share_min != share || t->share_bytes != (double)share)) {
            printf("  rank 0: shared from %llu bytes (model %g), want %llu\n",
                   (unsigned long long)st->share_min, t->share_bytes, (unsigned long long)share);
            bad = 29;
        }
        for (int k = 0; k < 3; k++) {
            ic_status_t s = t->ops->test(t, &req[k], &fin);
            done[k] = (char)fin;
            if (s != IC_OK || fin != (k != 1 || !st->cma)) {
                printf("  rank 0: send %d %s after posting\n", k, fin ? "done" : "not done");
                bad = 26;
            }
        }
        unsigned char token = 1;
        t->ops->isend(t, 1, mkkey(5, 0, 3), &token, 1, &req[3]);
        done[3] = 0;
        if (wait_all(t, req, 4, done) != IC_OK)
            bad = 27;
    } else {
        unsigned char token = 0;
        t->ops->irecv(t, 0, mkkey(5, 0, 3), &token, 1, &req[3]);
        if (wait_all(t, &req[3], 1, done) != IC_OK || token != 1)
            bad = 28;
        t->ops->irecv(t, 0, mkkey(5, 0, 0), a, na, &req[0]);
        t->ops->irecv(t, 0, mkkey(5, 0, 1), b, nb, &req[1]);
        t->ops->irecv(t, 0, mkkey(5, 0, 2), c, N, &req[2]);
        if (wait_all(t, req, 3, done) != IC_OK || pat_check(a, na, 81) >= 0 ||
            pat_check(b, nb, 82) >= 0 || pat_check(c, N, 83) >= 0)
            bad = 29;
    }
    t->ops->close(t);
    return bad;
}

/* The one-way limit of a job with a core per rank: 4 KiB where single copy
 * is cheap, the eager limit where it is dear (shm_cma_cost.c; also one the
 * creator's IC_SHM_EAGER_MAX set), whatever the creator's
 * IC_SHM_ONEWAY_EAGER_MAX says if it says something; the measured figure
 * and the limit agree. */
static void test_oneway_limit(void)
{
    for (int mode = 0; mode < OW_MODES; mode++) {
        int status[2] = {0, 0};
        char name[64], d0[32], d1[32];
        setenv("IC_SHM_CORES", "64", 1);
        if (mode == OW_CREATOR_SET)
            setenv("IC_SHM_ONEWAY_EAGER_MAX", "100", 1);
        if (mode == OW_DEAR_EAGER)
            setenv("IC_SHM_EAGER_MAX", "32768", 1);
        if (mode != OW_MEASURED)
            setenv("IC_SHM_CMA_EXTRA_NS", mode == OW_DEAR || mode == OW_DEAR_EAGER ? "5000" : "0",
                   1);
        int rc = run_job(2, oneway_rank, &mode, 30, MARK_BAD, status, name);
        unsetenv("IC_SHM_ONEWAY_EAGER_MAX");
        unsetenv("IC_SHM_EAGER_MAX");
        unsetenv("IC_SHM_CMA_EXTRA_NS");
        unsetenv("IC_SHM_CORES");
        CHECK(rc == 0 && status[0] == 0 && status[1] == 0, "one-way limit, %s: %s, %s",
              ow_what[mode], describe(status[0], d0, sizeof d0),
              describe(status[1], d1, sizeof d1));
        fflush(stdout);
    }
}

/* A rank of a 2-rank job whose creator's IC_SHM_CMA_LARGE_X100 is *arg
 * (this rank's own environment says otherwise, and IC_SHM_STREAM_MIN is
 * unset): the header holds the creator's figure, and a one-way message
 * from the streaming threshold on streams only from SHM_CMA_STREAM_X100 on
 * (where single copy works and each rank has a core; else the threshold
 * is the ordinary one).  Two ranks' requests are made up here, nothing is
 * sent: ic_shm_bulk_mode decides from the request's size alone. */
static int large_rank(int rank, int size, const char *name, void *arg)
{
    uint32_t x100 = *(const uint32_t *)arg;
    setenv("IC_SHM_CMA_LARGE_X100", x100 < SHM_CMA_STREAM_X100 ? "400" : "100", 1);
    ic_transport_t *t = open_rank(name, rank, size);
    const shm_transport_t *st = (const shm_transport_t *)(const void *)t;
    int bad = 0;
    bool share = st->cma && x100 < SHM_CMA_STREAM_X100;
    uint64_t want = share ? 0 : st->stream_min;
    if (st->seg.hdr->cma_large_x100 != x100 || st->stream_oneway_min != want ||
        st->stream_min == 0) {
        printf("  rank %d: cma_large_x100 %u, want %u; one-way streaming from %llu, want %llu "
               "(stream_min %llu)\n",
               rank, st->seg.hdr->cma_large_x100, x100, (unsigned long long)st->stream_oneway_min,
               (unsigned long long)want, (unsigned long long)st->stream_min);
        bad = 31;
    }
    shm_req_t r;
    memset(&r, 0, sizeof r);
    r.peer = 1 - rank;
    r.bytes = st->stream_min;
    uint32_t mode = st->nrecvs == 0 ? ic_shm_bulk_mode(st, &r) : UINT32_MAX;
    uint32_t want_mode = share ? 0u : SHM_RTS_STREAM;
    if (st->cma && mode != want_mode) {
        printf("  rank %d: a one-way %llu-byte message goes in mode %u, want %u\n", rank,
               (unsigned long long)r.bytes, mode, want_mode);
        bad = 32;
    }
    t->ops->close(t);
    return bad;
}

/* The creator's large single-copy figure decides, for every rank, whether
 * large one-way messages stream or are shared; and the rule itself. */
static void test_large_copy_rule(void)
{
    static const uint32_t figures[] = {150, SHM_CMA_STREAM_X100};
    for (size_t i = 0; i < 2; i++) {
        int status[2] = {0, 0};
        char name[64], d0[32], d1[32], v[16];
        uint32_t x100 = figures[i];
        snprintf(v, sizeof v, "%u", x100);
        setenv("IC_SHM_CORES", "64", 1);
        setenv("IC_SHM_CMA_LARGE_X100", v, 1);
        unsetenv("IC_SHM_STREAM_MIN");
        int rc = run_job(2, large_rank, &x100, 30, MARK_BAD, status, name);
        unsetenv("IC_SHM_CMA_LARGE_X100");
        unsetenv("IC_SHM_CORES");
        CHECK(rc == 0 && status[0] == 0 && status[1] == 0, "IC_SHM_CMA_LARGE_X100=%s: %s, %s", v,
              describe(status[0], d0, sizeof d0), describe(status[1], d1, sizeof d1));
    }
    uint64_t m = 16u << 20;
    CHECK(ic_shm_stream_oneway_min(m, true, 150) == 0 &&
              ic_shm_stream_oneway_min(m, true, SHM_CMA_STREAM_X100 - 1) == 0 &&
              ic_shm_stream_oneway_min(m, true, SHM_CMA_STREAM_X100) == m &&
              ic_shm_stream_oneway_min(m, true, 0) == m &&
              ic_shm_stream_oneway_min(m, false, 150) == m &&
              ic_shm_stream_oneway_min(0, true, 150) == 0,
          "ic_shm_stream_oneway_min: shared below %u hundredths only", SHM_CMA_STREAM_X100);
    setenv("IC_SHM_STREAM_MIN", "1048576", 1);
    CHECK(ic_shm_stream_oneway_min(1u << 20, true, 150) == 1u << 20,
          "ic_shm_stream_oneway_min: IC_SHM_STREAM_MIN set streams whatever the figure");
    unsetenv("IC_SHM_STREAM_MIN");
    fflush(stdout);
}

/* ic_shm_seg_prefault writes a word of every page of a rank's pairs
 * (queues and bulk buffers), with an add of 0: whatever stands there stays,
 * also in the pages of pairs it does not belong to. */
static void test_prefault_keeps_content(void)
{
    ic_shm_job_t *job = NULL;
    char name[64];
    shm_seg_t seg;
    CHECK(ic_shm_job_create(3, &job, name, sizeof name) == IC_OK, "create: %s", ic_last_error());
    CHECK(ic_shm_seg_map(name, 3, &seg) == IC_OK, "map: %s", ic_last_error());
    size_t qb = (size_t)seg.hdr->queue_stride, bb = (size_t)seg.hdr->bulk_stride;
    size_t qall = 9 * qb, ball = 9 * bb;
    unsigned char *q0 = (unsigned char *)shm_seg_queue(&seg, 0, 0);
    unsigned char *b0 = shm_seg_bulk_data(&seg, 0, 0);
    for (size_t i = 0; i < qall; i++)
        q0[i] = (unsigned char)(i * 7 + 3);
    for (size_t i = 0; i < ball; i++)
        b0[i] = (unsigned char)(i * 11 + 5);
    ic_shm_seg_prefault(&seg, 1);
    size_t bad = 0;
    for (size_t i = 0; i < qall; i++)
        bad += q0[i] != (unsigned char)(i * 7 + 3);
    for (size_t i = 0; i < ball; i++)
        bad += b0[i] != (unsigned char)(i * 11 + 5);
    CHECK(bad == 0, "prefault changed %zu bytes of the queues and bulk buffers", bad);
    ic_shm_seg_unmap(&seg);
    CHECK(ic_shm_job_destroy(job) == IC_OK, "destroy: %s", ic_last_error());
}

int main(void)
{
    test_layout();
    test_prefault_keeps_content();
    test_oneway_limit();
    test_large_copy_rule();
    test_crowded_agreement();
    test_eager_max_env();
    test_name_and_mode();
    test_never_attached();
    test_create_destroy_and_args();
    printf("test_shm_segment: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
