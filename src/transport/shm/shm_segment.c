/*
 * shm_segment.c — the job's shared segment: its layout, creation by the
 * launcher, attachment by the ranks, and removal.
 *
 * Lifetime of the name.  ic_shm_job_create makes the segment with
 * shm_open(O_CREAT | O_EXCL), mode 0600 (set again with fchmod so the
 * umask cannot change it), under the name "/intercom-" followed by 16 hex
 * digits of getrandom(): 64 unpredictable bits, so another user can
 * neither guess the name in advance nor pre-create it.  Each rank maps it
 * with shm_open + mmap and then increments the header's attach counter;
 * the rank whose increment completes the job unlinks the name at once.
 * From then on the segment lives only as long as the mappings.  If some
 * rank never attaches (it failed to start, or died first),
 * ic_shm_job_destroy unlinks it.  Every error path of creation unlinks
 * what it created.
 *
 * Sizing.  Queues: 64 MiB / p^2 bytes per pair, clamped to 64..512 cells
 * (32 KiB each at p <= 32, 16 KiB at p = 64), and up to 2048 cells where
 * all queues together stay within 8 MiB (128 KiB each at p <= 8, 64 KiB
 * at p = 9..11).  Messages of up to eager_max = min(16 KiB, a quarter of a
 * queue) go inline: 16 KiB at p <= 11, 8 KiB up to p = 32.  At p = 2 an
 * eager 16 KiB message once took 2.5 us against 3.8 us by rendezvous (its
 * request, the receiver's process_vm_readv and the completion; 2026-11,
 * docs/perf/transport-model.md).  The crossover has moved since, with the
 * transport's per-message paths: on the Intel Xeon VM (a 16 KiB
 * process_vm_readv 0.64 us over a memcpy) 2-rank exchanges of 12 and
 * 16 KiB messages (allgather(v), alltoall(v), reduce-scatter) took
 * 0.68-0.91 of their eager time by rendezvous, an
 * allreduce of 16 KiB 0.79, 8 KiB ones the same or 1.0-1.16 slower
 * (2026-12-03, bench/env_pairs.sh with IC_SHM_EAGER_MAX=8192;
 * docs/perf/transport-model.md, "The eager limit where single copy is
 * cheap").  So where the creator finds single copy cheap and it works
 * (ic_shm_layout_cma_cheap), a job with a core per rank sends messages
 * above 8 KiB by rendezvous; where it is dear, or refused, 16 KiB stays.
 *
 * Crowded jobs (the host's ranks outnumber its cores, ic_shm_cores(),
 * decided once by the creator and kept in the header with that core count,
 * so every rank of the job uses the same layout and prices with the same
 * cores in its cost model whatever its own environment says): queues may
 * grow to 8192 cells (512 KiB) within the same 8 MiB, and eager_max is
 * min(32 KiB, a quarter of a queue): 32 KiB at p = 3..8.  There a
 * rendezvous costs scheduler turns, not copies: the
 * receiver must be scheduled to read and the sender again to see the FIN,
 * while an eager sender copies and goes on.  At 4 ranks on 2 cores of the
 * AMD EPYC VM, 64 and 256 KiB calls took 0.44-0.76 of the time with a
 * 128 KiB eager limit instead of 16 KiB (bcast, reduce, allreduce,
 * allgather, scan, gather), 4 KiB-block alltoalls 1.1-1.2; 256 KiB eager
 * messages lost (bcast of 256 KiB 2x).  On the Intel Xeon VM, whose
 * cross-core copies cost about 0.09 us per KiB each, messages of 128 KiB
 * went faster by rendezvous: 128 KiB blocks at p = 4 took 0.57-0.71 of the
 * time with a 64 KiB limit instead of 128 KiB (allgather, alltoall(v),
 * gather, scatter; allreduce 0.73, reduce 0.86; p = 3: 0.55-0.70), and
 * so did 64 KiB messages (2026-12-01, p = 3..5, 32 KiB limit against
 * 64 KiB: alltoall(v) 0.54-0.70, allgather(v) 0.62-0.78, scatter(v) and
 * gather(v) 0.61-0.87, reduce-scatter 0.67-0.91; no cell consistently
 * slower), so the limit is 32 KiB where single copy is cheap.  Where it is
 * dear (below) the crowded limit is min(128 KiB, a quarter of a queue):
 * 128 KiB at p = 3 and 4, 64 KiB at p = 5.  On the AMD EPYC VM (a 16 KiB
 * process_vm_readv 1.7-2.7 us over a memcpy) 4 ranks on 2 cores ran calls
 * whose messages are 32-128 KiB in 0.39-0.66 of their time with it
 * (2026-12-03).  docs/perf/oversubscribed.md has the figures.
 *
 * IC_SHM_EAGER_MAX=BYTES sets eager_max for a job (at most a quarter of a
 * queue); the creator's value decides, like the core count: attaching
 * ranks accept any eager_max the layout can hold.
 *
 * One-way messages (ops->isend_oneway: the sender receives nothing while
 * the message is on its way) go inline only up to oneway_max = 4 KiB when
 * every rank has a core and single copy works.  Such a message's two
 * eager copies run one after the other (the sender's into the queue, then
 * the receiver's out of it), where an exchange's overlap with the peer's;
 * on the Intel Xeon VM (2 ranks, 2026-12-01, docs/perf/transport-model.md,
 * "One-way messages") a 6-16 KiB bcast, reduce, scatter, gather, scan or
 * exscan took 0.53-0.85 of its time by rendezvous, 2-3 KiB ones 1.2-1.5,
 * 4 KiB ones the same, while the exchanges of 6-16 KiB lost up to 1.22.
 * IC_SHM_ONEWAY_EAGER_MAX=BYTES sets it (at most eager_max); crowded jobs
 * keep eager_max for both.
 *
 * Where a single copy is dear (the creator's ic_shm_cma_extra_ns,
 * shm_cma_cost.c, at least SHM_CMA_DEAR_NS = 1 us: a 16 KiB
 * process_vm_readv costs that much more than a memcpy), one-way messages
 * go inline up to eager_max like the others, and a crowded eager_max grows
 * as said above (ic_shm_layout_cma_dear).  On the AMD EPYC VM (about
 * 1.9 us) one-way messages of 8-16 KiB took 0.27-0.47 of their rendezvous
 * time in one spell and 0.64-0.88 in a slower one; 32 KiB messages went
 * eager at 0.52-0.56 of their time in the first and 1.23-1.28 in the
 * second, so a core-per-rank eager_max stays (docs/perf/cma-cost.md).
 * The Intel Xeon VM's 20 KiB
 * process_vm_readv (0.84 us in a loop) is below the mark.  The variables
 * above still decide over it.
 * Bulk buffers of the chunked fallback: 4 chunks per pair of 64 MiB /
 * (4 p^2) bytes, clamped to 4..32 KiB (CHUNK_MAX), 4..128 KiB in a
 * crowded job (CHUNK_MAX_CROWDED).  So p = 64 maps about 130 MiB, p = 16
 * about 40 MiB (crowded: 72 MiB).  The crowded chunk is larger because
 * there the sender and the receiver of a transfer often share a core: a
 * ring of 4 x 32 KiB made a 256 KiB message wait twice for the receiver
 * to be scheduled and empty it, a 4 MiB one 32 times.  At 4 ranks on
 * 2 cores, 4 x 128 KiB took bcast, scan, exscan and reduce of 1-4 MiB to
 * 0.57-0.76 of their time and scatter of 4 MiB to 0.63, 4 x 256 KiB did
 * as well from 1 MiB but lost at 256 KiB-1 MiB allgather (1.16-1.19), and
 * with a core per rank 4 x 128 KiB lost at 256 KiB (scatter 1.38, gather
 * and exscan 1.18-1.19: a transfer's copies overlap less) (2026-12-07,
 * docs/perf/oversubscribed.md, "The crowded bulk buffer").  Both can be
 * set at build time (-DCHUNK_MAX=..., -DCHUNK_MAX_CROWDED=...) to measure
 * others; every rank of a job must be built alike.  The whole segment is
 * reserved with posix_fallocate at creation (a too-small /dev/shm is a
 * clean IC_ERR_NO_MEM naming both sizes, not a SIGBUS in some rank later),
 * and every rank checks the header's layout against its own computation
 * before using any offset in it.
 */
#include "base/status.h"
#include "transport/shm/shm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct ic_shm_job {
    shm_seg_t seg;
    char name[SHM_NAME_MAX];
};

#define QUEUE_BUDGET (64u << 20)
#define BULK_BUDGET (64u << 20)
#define SMALL_QUEUE_BUDGET (8u << 20) /* queues may grow to MAX_CELLS within this */
#define MAX_CELLS 2048u
#define MAX_CELLS_CROWDED 8192u
#define EAGER_MAX 16384u
#define EAGER_MAX_CROWDED (32u << 10)
#define EAGER_MAX_CROWDED_DEAR (128u << 10)
#define ONEWAY_EAGER_MAX 4096u
#define EAGER_MAX_CHEAP 8192u /* a core per rank, single copy cheap */
#define NCHUNKS 4u
#define CHUNK_MIN 4096u
#ifndef CHUNK_MAX
#define CHUNK_MAX (32u << 10) /* a core per rank */
#endif
#ifndef CHUNK_MAX_CROWDED
#define CHUNK_MAX_CROWDED (128u << 10) /* more ranks than cores */
#endif

static uint64_t align_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

static uint64_t pow2_floor(uint64_t x)
{
    uint64_t r = 1;
    while (r * 2 <= x)
        r *= 2;
    return r;
}

static uint64_t clamp_u64(uint64_t x, uint64_t lo, uint64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* The largest eager message a queue of ncells cells takes: a quarter of
 * it, header included. */
static uint64_t eager_room(uint32_t ncells)
{
    return SHM_MSG_HDR + (uint64_t)SHM_CELL * (ncells / 4);
}

void ic_shm_layout(int p, bool crowded, shm_hdr_t *h)
{
    uint64_t pairs = (uint64_t)p * (uint64_t)p;
    h->nranks = (uint32_t)p;
    h->crowded = crowded;
    uint64_t hi = clamp_u64(pow2_floor(SMALL_QUEUE_BUDGET / pairs / SHM_CELL), 512,
                            crowded ? MAX_CELLS_CROWDED : MAX_CELLS);
    h->ncells = (uint32_t)clamp_u64(pow2_floor(QUEUE_BUDGET / pairs / SHM_CELL), 64, hi);
    h->nchunks = NCHUNKS;
    h->chunk = (uint32_t)clamp_u64(pow2_floor(BULK_BUDGET / pairs / NCHUNKS), CHUNK_MIN,
                                   crowded ? CHUNK_MAX_CROWDED : CHUNK_MAX);
    uint64_t quarter = eager_room(h->ncells);
    uint64_t eager = crowded ? EAGER_MAX_CROWDED : EAGER_MAX;
    h->eager_max = (uint32_t)(quarter < eager ? quarter : eager);
    h->oneway_max = crowded || h->eager_max < ONEWAY_EAGER_MAX ? h->eager_max : ONEWAY_EAGER_MAX;
    h->rank_off = align_up(sizeof(shm_hdr_t), 64);
    h->queue_off = align_up(h->rank_off + (uint64_t)p * sizeof(shm_rank_t), 4096);
    h->queue_stride = align_up(shm_q_bytes(h->ncells), 64);
    h->bulk_ctl_off = align_up(h->queue_off + pairs * h->queue_stride, 4096);
    h->tickets_off = align_up(h->bulk_ctl_off + pairs * sizeof(shm_bulk_ctl_t), 64);
    h->bulk_data_off =
        align_up(h->tickets_off + (uint64_t)p * SHM_TICKETS * sizeof(shm_xfer_t), 4096);
    h->bulk_stride = (uint64_t)h->nchunks * h->chunk;
    h->total_size = h->bulk_data_off + pairs * h->bulk_stride;
}

void ic_shm_layout_cma_dear(shm_hdr_t *h)
{
    if (h->crowded) {
        uint64_t quarter = eager_room(h->ncells);
        h->eager_max =
            (uint32_t)(quarter < EAGER_MAX_CROWDED_DEAR ? quarter : EAGER_MAX_CROWDED_DEAR);
    }
    h->oneway_max = h->eager_max;
}

void ic_shm_layout_cma_cheap(shm_hdr_t *h)
{
    if (!h->crowded && h->eager_max > EAGER_MAX_CHEAP)
        h->eager_max = EAGER_MAX_CHEAP;
    if (h->oneway_max > h->eager_max)
        h->oneway_max = h->eager_max;
}

static ic_status_t random_u64(uint64_t *out)
{
    unsigned char *p = (unsigned char *)out;
    size_t got = 0;
    while (got < sizeof(*out)) {
        ssize_t n = getrandom(p + got, sizeof(*out) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return ic_set_error(IC_ERR_TRANSPORT, "shm: getrandom failed: %s", strerror(errno));
        got += (size_t)n;
    }
    return IC_OK;
}

ic_status_t ic_shm_job_create(int nranks, ic_shm_job_t **job, char *name, size_t namelen)
{
    ic_status_t st = IC_OK;
    int fd = -1;
    void *base = MAP_FAILED;
    ic_shm_job_t *j = NULL;
    char nm[SHM_NAME_MAX];
    shm_hdr_t lay;
    memset(&lay, 0, sizeof lay);
    if (!job || !name)
        return ic_set_error(IC_ERR_ARG, "ic_shm_job_create: job or name is NULL");
    *job = NULL;
    if (nranks < 1 || nranks > SHM_MAX_RANKS)
        return ic_set_error(IC_ERR_ARG, "ic_shm_job_create: nranks = %d, must be 1..%d", nranks,
                            SHM_MAX_RANKS);
    if (namelen < sizeof("/intercom-0123456789abcdef"))
        return ic_set_error(IC_ERR_ARG, "ic_shm_job_create: namelen %zu < %zu", namelen,
                            sizeof("/intercom-0123456789abcdef"));
    j = calloc(1, sizeof(*j));
    if (!j)
        return ic_set_error(IC_ERR_NO_MEM, "ic_shm_job_create: out of memory");
    long cores = ic_shm_cores();
    ic_shm_layout(nranks, nranks > cores, &lay);
    bool cma_works;
    lay.cma_extra_ns = ic_shm_cma_extra_ns(&cma_works);
    /* Only where IC_SHM_CMA_LARGE_X100 says so (docs/perf/copy.md §6: under
     * the MPI comparison sharing lost); streaming needs a core per rank. */
    const char *large = getenv("IC_SHM_CMA_LARGE_X100");
    lay.cma_large_x100 = large && *large && cma_works && !lay.crowded ? ic_shm_cma_large_x100() : 0;
    bool dear = lay.cma_extra_ns >= SHM_CMA_DEAR_NS;
    if (dear)
        ic_shm_layout_cma_dear(&lay);
    else if (cma_works)
        ic_shm_layout_cma_cheap(&lay);
    uint64_t quarter = eager_room(lay.ncells);
    uint64_t eager = ic_shm_env_u64("IC_SHM_EAGER_MAX", lay.eager_max);
    lay.eager_max = (uint32_t)(eager < quarter ? eager : quarter);
    /* one-way messages follow the eager limit set here where they follow it at all */
    uint64_t oneway = ic_shm_env_u64("IC_SHM_ONEWAY_EAGER_MAX",
                                     lay.crowded || dear ? lay.eager_max : lay.oneway_max);
    lay.oneway_max = (uint32_t)(oneway < lay.eager_max ? oneway : lay.eager_max);
    /* The name last: the probe above takes time, and a file in /dev/shm
     * that nobody maps yet looks left behind to whoever looks
     * (tests/dropin/dropin_test.sh checks after its job, beside others). */
    for (int attempt = 0; fd < 0; attempt++) {
        uint64_t r;
        st = random_u64(&r);
        if (st != IC_OK)
            goto fail;
        snprintf(nm, sizeof nm, "/intercom-%016" PRIx64, r);
        fd = shm_open(nm, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && (errno != EEXIST || attempt >= 8)) {
            st = ic_set_error(IC_ERR_TRANSPORT, "shm: shm_open(%s, O_CREAT|O_EXCL) failed: %s", nm,
                              strerror(errno));
            goto fail;
        }
    }
    if (fchmod(fd, 0600) != 0) {
        st = ic_set_error(IC_ERR_TRANSPORT, "shm: fchmod of %s failed: %s", nm, strerror(errno));
        goto fail_unlink;
    }
    /* Reserve every page now: a /dev/shm too small for the job fails here,
     * with a message, instead of killing a rank with SIGBUS when it first
     * touches a page the tmpfs cannot provide. */
    int err = posix_fallocate(fd, 0, (off_t)lay.total_size);
    if (err != 0) {
        struct statvfs vfs;
        unsigned long long avail =
            fstatvfs(fd, &vfs) == 0 ? (unsigned long long)vfs.f_bavail * vfs.f_frsize : 0;
        st = ic_set_error(IC_ERR_NO_MEM,
                          "shm: the segment for %d ranks needs %.1f MiB of /dev/shm, which has "
                          "%.1f MiB free (%s): enlarge /dev/shm or run fewer ranks",
                          nranks, (double)lay.total_size / 1048576.0, (double)avail / 1048576.0,
                          strerror(err));
        goto fail_unlink;
    }
    base = mmap(NULL, lay.total_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        st = ic_set_error(IC_ERR_TRANSPORT, "shm: mmap of %s failed: %s", nm, strerror(errno));
        goto fail_unlink;
    }
    shm_hdr_t *h = base;
    st = random_u64(&lay.tag);
    if (st != IC_OK)
        goto fail_unmap;
    /* The file is zero-filled, which is the initial state of every
     * counter, queue and flag; only the fixed fields are written. */
    h->version = SHM_VERSION;
    h->nranks = lay.nranks;
    h->total_size = lay.total_size;
    h->rank_off = lay.rank_off;
    h->queue_off = lay.queue_off;
    h->queue_stride = lay.queue_stride;
    h->bulk_ctl_off = lay.bulk_ctl_off;
    h->tickets_off = lay.tickets_off;
    h->bulk_data_off = lay.bulk_data_off;
    h->bulk_stride = lay.bulk_stride;
    h->ncells = lay.ncells;
    h->chunk = lay.chunk;
    h->nchunks = lay.nchunks;
    h->eager_max = lay.eager_max;
    h->oneway_max = lay.oneway_max;
    h->cma_extra_ns = lay.cma_extra_ns;
    h->cma_large_x100 = lay.cma_large_x100;
    h->crowded = lay.crowded;
    h->cores = (uint32_t)cores;
    h->tag = lay.tag;
    memcpy(h->name, nm, sizeof nm);
    atomic_store(&h->cma_ok, 1u);
    atomic_store_explicit(&h->abort_rank, -1, memory_order_relaxed);
    atomic_store_explicit(&h->first_failed, -1, memory_order_relaxed);
    h->magic = SHM_MAGIC;
    close(fd);
    j->seg.base = base;
    j->seg.size = lay.total_size;
    j->seg.hdr = h;
    j->seg.ranks = (shm_rank_t *)(void *)((unsigned char *)base + lay.rank_off);
    j->seg.p = nranks;
    memcpy(j->name, nm, sizeof nm);
    snprintf(name, namelen, "%s", nm);
    *job = j;
    return IC_OK;

fail_unmap:
    munmap(base, lay.total_size);
fail_unlink:
    close(fd);
    shm_unlink(nm);
fail:
    free(j);
    return st;
}

int ic_shm_job_attached(const ic_shm_job_t *job)
{
    return job ? (int)atomic_load(&job->seg.hdr->nattached) : 0;
}

int ic_shm_job_first_failed(const ic_shm_job_t *job)
{
    return atomic_load(&job->seg.hdr->first_failed);
}

int ic_shm_job_aborted(const ic_shm_job_t *job, int *code)
{
    if (!job)
        return -1;
    int who = atomic_load(&job->seg.hdr->abort_rank);
    if (who >= 0 && code)
        *code = atomic_load(&job->seg.hdr->abort_code);
    return who;
}

void ic_shm_job_mark_failed(ic_shm_job_t *job, int rank, int status)
{
    if (!job)
        return;
    if (rank >= 0 && rank < job->seg.p) {
        ic_shm_mark_failed(&job->seg, rank, status);
    } else {
        atomic_store(&job->seg.hdr->job_failed, 1u);
        ic_shm_ring_all(&job->seg);
    }
}

ic_status_t ic_shm_job_destroy(ic_shm_job_t *job)
{
    ic_status_t st = IC_OK;
    if (!job)
        return IC_OK;
    if (!atomic_load(&job->seg.hdr->unlinked) && shm_unlink(job->name) != 0 && errno != ENOENT)
        st = ic_set_error(IC_ERR_TRANSPORT, "shm: shm_unlink(%s) failed: %s", job->name,
                          strerror(errno));
    munmap(job->seg.base, job->seg.size);
    free(job);
    return st;
}

ic_status_t ic_shm_seg_map(const char *name, int size, shm_seg_t *seg)
{
    ic_status_t st = IC_OK;
    struct stat sb;
    memset(seg, 0, sizeof(*seg));
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return ic_set_error(IC_ERR_TRANSPORT, "ic_shm_open: shm_open(%s) failed: %s", name,
                            strerror(errno));
    if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < sizeof(shm_hdr_t)) {
        st = ic_set_error(IC_ERR_TRANSPORT, "ic_shm_open: %s is not an intercom segment", name);
        goto out;
    }
    void *base = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        st = ic_set_error(IC_ERR_TRANSPORT, "ic_shm_open: mmap of %s failed: %s", name,
                          strerror(errno));
        goto out;
    }
    shm_hdr_t *h = base;
    if (h->magic != SHM_MAGIC || h->version != SHM_VERSION ||
        h->total_size != (uint64_t)sb.st_size) {
        st = ic_set_error(IC_ERR_TRANSPORT, "ic_shm_open: %s is not an intercom segment", name);
        munmap(base, (size_t)sb.st_size);
        goto out;
    }
    if (h->nranks != (uint32_t)size) {
        st = ic_set_error(IC_ERR_ARG, "ic_shm_open: size %d, but the job %s has %u ranks", size,
                          name, h->nranks);
        munmap(base, (size_t)sb.st_size);
        goto out;
    }
    /* Every rank computes the layout itself and trusts no offset or size
     * of the header that differs from it (a corrupt or crafted header
     * would otherwise send reads and writes outside the mapping). */
    shm_hdr_t want;
    memset(&want, 0, sizeof want);
    uint32_t crowded = h->crowded; /* the creator's finding, which every rank follows */
    ic_shm_layout(size, crowded == 1, &want);
    if (crowded > 1 || h->cores < 1 || h->cores > IC_SHM_CORES_MAX ||
        h->total_size != want.total_size || h->rank_off != want.rank_off ||
        h->queue_off != want.queue_off || h->queue_stride != want.queue_stride ||
        h->bulk_ctl_off != want.bulk_ctl_off || h->tickets_off != want.tickets_off ||
        h->bulk_data_off != want.bulk_data_off ||
        h->bulk_stride != want.bulk_stride || h->ncells != want.ncells ||
        h->chunk != want.chunk || h->nchunks != want.nchunks ||
        h->eager_max > eager_room(want.ncells) || h->oneway_max > h->eager_max) {
        st = ic_set_error(IC_ERR_TRANSPORT,
                          "ic_shm_open: the layout in %s's header is not the one for %d ranks "
                          "(corrupt, or written by another version)",
                          name, size);
        munmap(base, (size_t)sb.st_size);
        goto out;
    }
    seg->base = base;
    seg->size = (size_t)sb.st_size;
    seg->hdr = h;
    seg->ranks = (shm_rank_t *)(void *)((unsigned char *)base + h->rank_off);
    seg->p = size;
out:
    close(fd);
    return st;
}

ic_status_t ic_shm_seg_register(shm_seg_t *seg, const char *name, int rank, const void *probe)
{
    shm_rank_t *r = &seg->ranks[rank];
    if (atomic_exchange(&r->attached, 1u) != 0)
        return ic_set_error(IC_ERR_ARG, "ic_shm_open: rank %d of %s is already attached", rank,
                            name);
    atomic_store(&r->pid, (int)getpid());
    atomic_store(&r->probe_addr, (uint64_t)(uintptr_t)probe);
    unsigned n = atomic_fetch_add(&seg->hdr->nattached, 1u) + 1;
    if (n == (unsigned)seg->p) {
        /* Everyone has a mapping now: the name is no longer needed. */
        if (shm_unlink(name) != 0 && errno != ENOENT)
            return ic_set_error(IC_ERR_TRANSPORT, "ic_shm_open: shm_unlink(%s) failed: %s", name,
                                strerror(errno));
        atomic_store(&seg->hdr->unlinked, 1u);
    }
    ic_shm_ring_all(seg);
    return IC_OK;
}

#define SHM_TOUCH_MAX (4u << 20) /* bytes of queues and bulk buffers a rank writes at open */
#define SHM_TOUCH_MAX_P 16         /* and only in jobs of up to this many ranks */

/* Writes one word of every page in [lo, lo + len) with an atomic add of
 * 0: content stays whatever it is, but the page is now written. */
static void touch_pages(const void *lo, size_t len, uintptr_t page)
{
    uintptr_t a = (uintptr_t)lo & ~(page - 1), end = (uintptr_t)lo + len;
    if (a < (uintptr_t)lo)
        a += page; /* the page before lo's is another region's */
    for (; a + sizeof(uint64_t) <= end; a += page)
        __atomic_fetch_add((uint64_t *)a, 0, __ATOMIC_RELAXED);
}

/* Maps this rank's queues (the ones it writes and the ones it reads) into
 * its page tables now: otherwise each first touch of a queue page is a
 * fault on the message's path, and a 2-rank broadcast of 8 KiB took
 * 7.3 us instead of 1.5 us in a benchmark's first ten calls, which walked
 * through fresh pages of a 128 KiB queue.  Kernels before 5.14 have no
 * MADV_POPULATE_WRITE and the call just fails.
 *
 * Then it writes a word of every page of the queues and bulk buffers of
 * its pairs, both directions.  On the AMD EPYC VM (a Firecracker guest,
 * 2026-12-07) the first write to a page costs a process about 7-10 us
 * even after MADV_POPULATE_WRITE and even when another process has
 * written the page (no fault the guest counts: a host charge per address
 * space, shadow page tables it seems; bench/first_touch.c): a 3-rank
 * reduce of 16 KiB took 70-90 us in each of its first 32 calls, one lap
 * of its 512 KiB queues, then 12-15 us (a 2-rank reduce of 4 KiB: 9-20,
 * then 1-2 us), and the MPI drop-in benchmark, which times few calls
 * after two warm-ups, saw mostly those (docs/perf/first-touch.md).  Both
 * directions, since the consumer writes its queues too (tail, the stamps
 * it hands back).  Before the rank counts itself probed: no rank sends
 * before every rank has (ic_shm_open's second count), and the add of 0
 * keeps the content anyway.  Queues and bulk buffers up to SHM_TOUCH_MAX
 * bytes a rank, else the queues alone if they fit, up to SHM_TOUCH_MAX_P
 * ranks.  Where the host charges it, about 7 us a page: intercom-run of a
 * one-call job took 57 ms instead of 37 at p = 4 (crowded: 6 queues of
 * 512 KiB and 6 bulk buffers of 128 KiB a rank), 129-136 instead of 116
 * at p = 16 (queues only); a few us in all where not. */
void ic_shm_seg_prefault(const shm_seg_t *seg, int rank)
{
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    size_t qb = (size_t)seg->hdr->queue_stride, bb = (size_t)seg->hdr->bulk_stride;
    int populate = 1;
    for (int j = 0; j < seg->p && populate; j++)
        for (int dir = 0; dir < 2 && populate; dir++) {
            const void *q = dir ? shm_seg_queue(seg, rank, j) : shm_seg_queue(seg, j, rank);
            uintptr_t lo = (uintptr_t)q & ~(page - 1);
            uintptr_t hi = ((uintptr_t)q + qb + page - 1) & ~(page - 1);
            if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0)
                populate = 0;
        }
    /* Within SHM_TOUCH_MAX bytes a rank: queues and bulk buffers at
     * p <= 8, the queues alone above (p = 16: 2 x 15 queues of 32 KiB,
     * where the bulk buffers would add 3.8 MiB); nothing above p = 16,
     * where a job's ranks would write 64 MiB or more at start (p = 64: a
     * one-call job took 1.0 s instead of 0.67) for pairs that many
     * programs never use. */
    if (seg->p > SHM_TOUCH_MAX_P)
        return;
    size_t pairs = 2 * (size_t)(seg->p - 1);
    bool bulk = pairs * (qb + bb) <= SHM_TOUCH_MAX;
    if (pairs * qb > SHM_TOUCH_MAX)
        return;
    for (int j = 0; j < seg->p; j++)
        for (int dir = 0; dir < 2 && j != rank; dir++) {
            int from = dir ? rank : j, to = dir ? j : rank;
            touch_pages(shm_seg_queue(seg, from, to), qb, page);
            if (bulk)
                touch_pages(shm_seg_bulk_data(seg, from, to), bb, page);
        }
}

void ic_shm_seg_unmap(shm_seg_t *seg)
{
    if (seg->base)
        munmap(seg->base, seg->size);
    memset(seg, 0, sizeof(*seg));
}
