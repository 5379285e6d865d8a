/*
 * shm_wait.c — doorbells, waiting, and liveness.
 *
 * Every rank has a 32-bit doorbell in its rank block.  Whoever has news
 * for a rank (a message in one of its queues, a chunk produced or consumed
 * in a bulk buffer it uses, a clear-to-send, room in a queue it was
 * waiting on, a failure) bumps that rank's doorbell with a seq_cst
 * fetch_add and then, only if the rank has announced that it sleeps,
 * calls FUTEX_WAKE on it.  A sleeper increments sleeping (seq_cst; it
 * counts the threads of the rank that sleep), loads the doorbell once
 * more, and calls FUTEX_WAIT with the value it saw: either the waker sees
 * the count and wakes every sleeper, or the sleeper sees
 * the new doorbell value (or FUTEX_WAIT returns EAGAIN because it
 * changed), so no wake-up is lost.  The futex word is in a MAP_SHARED
 * mapping, so the shared (not private) futex operations are used.
 *
 * Jobs of at most SHM_QPOLL_MAX ranks (t->qpoll) leave the doorbell out
 * of the common case: a message pushed into a queue (ic_shm_ring_msg)
 * rings its receiver only if that one sleeps, and a receiver that polls
 * (progress, and the spin and yield phases below) looks at the stamp of
 * the next cell of each of its queues (shm_queue.h), the line the sender
 * just wrote, instead of at the doorbell.  So a small message moves one
 * cache line instead of three (the cell, head, the doorbell), which took
 * 2-rank loops of 8-byte calls to 0.76-0.89 of their time (slow spell,
 * docs/perf/per-call-work.md).  Everything else (FINs, grants, chunks,
 * room in a queue, notices, failures, ops->wake) still rings, and larger
 * jobs ring for messages too: there a wait would poll too many queues.
 *
 * ops->wait compares the doorbell with the value the last progress call
 * scanned (t->scanned_bell), and with qpoll looks at the queues' stamps: a
 * difference or a message is news, and it returns at once.  Otherwise it
 * runs three phases (with qpoll each also ends at a queue's stamp):
 *  1. about 2 us of polling the doorbell (a message from a running peer
 *     arrives within that time without a system call), skipped when the
 *     host's ranks outnumber the machine's cores: the peer we wait for is
 *     then as likely descheduled behind us as running, and polling only
 *     delays it.  (Polling while a peer we have requests with is not idle
 *     in a wait of its own was tried: 10 % faster at 8 B-4 KiB, 4 ranks on
 *     2 cores, timed after a barrier, but 1.5x slower timed from a common
 *     start, docs/perf/shm-waits-p4.md);
 *  2. (after the failure checks below, which do not run before a message
 *     that comes within the first phase) sched_yield()s with a look at the
 *     doorbell after each, for up to
 *     0.2 ms with a core per rank and 0.1 ms with more ranks than cores
 *     (a yield lets another rank run on an oversubscribed core, 16 ranks
 *     on 2 cores depend on it, and returns at once when nothing else wants
 *     the core, so this is polling that still gives the core away); a
 *     peer a little late is met without a futex sleep and its wake-up of
 *     tens of microseconds;
 *  3. FUTEX_WAIT with a timeout of at most SLEEP_MS, after which the flags
 *     and the peers' pids are checked again.  So a failure is seen within
 *     about SLEEP_MS + CHECK_MS even if nobody rings.  A rank with a send
 *     held by a peer's flooded flag (shm_ux.c) returns after one such
 *     sleep, so that its next progress call can let the send go once the
 *     hold has lasted SHM_FLOOD_HOLD_NS.
 * At 4 ranks on 2 cores this took 8-byte calls from 7-8 us to 3-6 us and
 * removed the runs of 25-90 us that futex sleeps between steps caused
 * (before: a fixed 2 us poll, then 4 yields; docs/perf/shm-waits-p4.md).
 *
 * Liveness: the header's job_failed flag (abort, or the launcher stopping
 * the job) and nfailed counter (ranks marked by the launcher, or found
 * dead here) fail every blocking call; in addition a peer with requests
 * in flight is looked at at most every CHECK_MS: through a pidfd opened
 * at ic_shm_open (readable once the process has exited, even while it is
 * an unreaped zombie), or without one through kill(pid, 0) and the state
 * in /proc/pid/stat; a dead peer is marked failed in the segment so that
 * everyone learns at once.  The looks of a wait or a test leave a gone
 * peer alone while messages from it still wait in its queue to this rank
 * (its eager sends completed on the push, so it may have finished and
 * exited): the next progress call reads them, the next look decides.
 *
 * Threads: ops->wait is called with the transport's guard held and lets
 * it go while it polls, yields and sleeps (it takes it back for the peer
 * checks), so other threads of the process progress meanwhile; a thread
 * that finishes what another one waits for rings its own rank's doorbell
 * (ops->wake).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "base/status.h"
#include "transport/shm/shm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SPIN_NS 2000u
#define YIELD_NS_ALONE 200000u /* a core each: yield-poll up to 0.2 ms */
#define YIELD_NS_SHARED 100000u /* more ranks than cores: up to 0.1 ms */
#define YIELDS 4
#define SLEEP_MS 5u
#define CHECK_MS 10u

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

uint64_t ic_shm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void futex_wait(atomic_uint *word, unsigned val, uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    syscall(SYS_futex, (unsigned *)(void *)word, FUTEX_WAIT, val, &ts, NULL, 0);
}

static void futex_wake(atomic_uint *word)
{
    syscall(SYS_futex, (unsigned *)(void *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void ic_shm_ring(const shm_seg_t *seg, int rank)
{
    shm_rank_t *r = &seg->ranks[rank];
    atomic_fetch_add(&r->doorbell, 1u);
    if (atomic_load(&r->sleeping))
        futex_wake(&r->doorbell);
}

void ic_shm_ring_all(const shm_seg_t *seg)
{
    for (int i = 0; i < seg->p; i++)
        ic_shm_ring(seg, i);
}

/* With qpoll a receiver that polls looks at its queues' stamps itself, so
 * a message rings only a receiver that sleeps.  Against a lost wake-up
 * (Dekker): the sender publishes the stamp, fences, then reads sleeping;
 * the sleeper raises sleeping (a seq_cst read-modify-write), fences, then
 * reads the stamps (sleep_on's ready check): one of the two sees the other. */
void ic_shm_ring_msg(shm_transport_t *t, int peer)
{
    if (!t->qpoll) {
        ic_shm_ring(&t->seg, peer);
        return;
    }
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&t->seg.ranks[peer].sleeping, memory_order_relaxed))
        ic_shm_ring(&t->seg, peer);
}

/* The queues' tails as they were when a wait let the guard go: polled
 * without the guard, where another thread of the rank may move the real
 * tails (then a stale tail only ends the wait early, never late). */
typedef struct qsnap {
    int n; /* 0: no polling of queues (not qpoll) */
    const unsigned char *ring[SHM_QPOLL_MAX];
    uint32_t ncells[SHM_QPOLL_MAX];
    uint64_t tail[SHM_QPOLL_MAX];
} qsnap_t;

static void snap_take(const shm_transport_t *t, qsnap_t *q)
{
    q->n = t->qpoll ? t->base.size : 0;
    for (int i = 0; i < q->n; i++) {
        q->ring[i] = t->peers[i].in.ring;
        q->ncells[i] = t->peers[i].in.ncells;
        q->tail[i] = t->peers[i].in.mine;
    }
}

static bool snap_ready(const qsnap_t *q)
{
    for (int i = 0; i < q->n; i++)
        if (shm_q_ready(q->ring[i], q->ncells[i], q->tail[i]))
            return true;
    return false;
}

/* Sleeps on rank's doorbell while it still reads v0 and no queue of q
 * (NULL: none) has a message, at most ns. */
static void sleep_on(const shm_seg_t *seg, int rank, unsigned v0, uint64_t ns, const qsnap_t *q)
{
    shm_rank_t *me = &seg->ranks[rank];
    atomic_fetch_add(&me->sleeping, 1u);
    atomic_thread_fence(memory_order_seq_cst); /* ic_shm_ring_msg's other half */
    if (atomic_load(&me->doorbell) == v0 && !(q && snap_ready(q)))
        futex_wait(&me->doorbell, v0, ns);
    atomic_fetch_sub(&me->sleeping, 1u);
}

static ic_status_t job_status(const shm_seg_t *seg)
{
    shm_hdr_t *h = seg->hdr;
    if (atomic_load_explicit(&h->job_failed, memory_order_acquire)) {
        int who = atomic_load(&h->abort_rank);
        if (who >= 0)
            return ic_set_error(IC_ERR_PEER_FAILED, "shm: the job was aborted by rank %d (code %d)",
                                who, atomic_load(&h->abort_code));
        return ic_set_error(IC_ERR_PEER_FAILED, "shm: the launcher stopped the job");
    }
    if (atomic_load_explicit(&h->nfailed, memory_order_acquire)) {
        int i = atomic_load(&h->first_failed);
        if (i >= 0 && i < seg->p)
            return ic_set_error(
                IC_ERR_PEER_FAILED, "shm: rank %d failed (wait status 0x%x), %u rank(s) in all", i,
                (unsigned)atomic_load(&seg->ranks[i].status), atomic_load(&h->nfailed));
        return ic_set_error(IC_ERR_PEER_FAILED, "shm: a rank failed");
    }
    return IC_OK;
}

void ic_shm_mark_failed(const shm_seg_t *seg, int rank, int status)
{
    shm_rank_t *r = &seg->ranks[rank];
    int none = -1;
    if (status != 0) /* the launcher's wait status; ranks that find a peer gone pass 0 */
        atomic_store(&r->status, status);
    if (atomic_exchange(&r->failed, 1u) == 0) {
        atomic_compare_exchange_strong(&seg->hdr->first_failed, &none, rank);
        atomic_fetch_add(&seg->hdr->nfailed, 1u);
    }
    ic_shm_ring_all(seg);
}

ic_status_t ic_shm_wait_count(const shm_seg_t *seg, int rank, atomic_uint *ctr, unsigned target,
                           double timeout_s)
{
    uint64_t start = ic_shm_now_ns();
    uint64_t limit = (uint64_t)(timeout_s * 1e9);
    for (;;) {
        unsigned v0 = atomic_load(&seg->ranks[rank].doorbell);
        if (atomic_load(ctr) >= target)
            return IC_OK;
        ic_status_t st = job_status(seg);
        if (st != IC_OK)
            return st;
        uint64_t waited = ic_shm_now_ns() - start;
        if (waited >= limit)
            return ic_set_error(IC_ERR_TIMEOUT,
                                "ic_shm_open: only %u of %u ranks arrived within %.0f s",
                                atomic_load(ctr), target, timeout_s);
        uint64_t left = limit - waited;
        sleep_on(seg, rank, v0, left < SLEEP_MS * 1000000u ? left : SLEEP_MS * 1000000u, NULL);
    }
}

ic_status_t ic_shm_check_job(shm_transport_t *t)
{
    return job_status(&t->seg);
}

/* True once the process has ended, reaped or not: its pidfd (opened at
 * ic_shm_open) polls readable when it exits, also as an unreaped zombie;
 * without a pidfd, kill(pid, 0) failing with ESRCH (reaped) or state Z/X
 * in /proc/pid/stat (not yet reaped). */
static int process_gone(int pidfd, pid_t pid)
{
    if (pidfd >= 0) {
        struct pollfd pf = {pidfd, POLLIN, 0};
        return poll(&pf, 1, 0) > 0;
    }
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

int ic_shm_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    return fd >= 0 ? (int)fd : -1;
#else
    (void)pid;
    return -1;
#endif
}

/* The look of ic_shm_check_peer; unread: a gone peer with messages still
 * queued for this rank is not failed yet (ic_shm_check_peer_unread). */
static ic_status_t check_peer(shm_transport_t *t, int peer, int force, bool unread)
{
    ic_status_t st = job_status(&t->seg);
    if (st != IC_OK)
        return st;
    shm_peer_t *P = &t->peers[peer];
    uint64_t now = ic_shm_now_ns();
    if (!force && now - P->last_check_ns < CHECK_MS * 1000000u)
        return IC_OK;
    P->last_check_ns = now;
    shm_rank_t *r = &t->seg.ranks[peer];
    pid_t pid = (pid_t)atomic_load(&r->pid);
    if (pid > 0 && process_gone(P->pidfd, pid)) {
        if (unread && ic_shm_q_peek(&P->in)) {
            P->last_check_ns = 0; /* look again after the next progress call */
            return IC_OK;
        }
        if (!atomic_load(&r->failed))
            ic_shm_mark_failed(&t->seg, peer, 0);
        return ic_set_error(IC_ERR_PEER_FAILED, "shm: rank %d (pid %d) no longer exists", peer,
                            (int)pid);
    }
    return IC_OK;
}

ic_status_t ic_shm_check_peer(shm_transport_t *t, int peer, int force)
{
    return check_peer(t, peer, force, false);
}

/* A peer's eager sends complete when they are in the queue, so it may
 * finish its call and exit before this rank has read them: seen between
 * the last progress call and this check (16 ranks on 2 cores,
 * test_shm_many: "rank 1 no longer exists" with its messages unread), a
 * gone peer with messages still queued for this rank is not failed until
 * the next progress call has read them; the next look fails it if
 * requests with it remain.  Not for the forced looks of a side that waits
 * for the peer itself (shm_share.c, shm_rndv.c): they read no queue. */
ic_status_t ic_shm_check_peer_unread(shm_transport_t *t, int peer)
{
    return check_peer(t, peer, 0, true);
}

/* The failure checks of a blocking wait: the job, then every peer with
 * requests in flight (rate-limited per peer). */
static ic_status_t check_all(shm_transport_t *t)
{
    ic_status_t st = job_status(&t->seg);
    for (int i = 0; i < t->base.size && st == IC_OK; i++)
        if (t->peers[i].npending > 0)
            st = ic_shm_check_peer_unread(t, i);
    return st;
}

/* Phase 1 of a wait, without the guard: polls the doorbell for up to
 * SPIN_NS unless ranks outnumber cores.  True if it moved. */
static bool spin(const shm_transport_t *t, atomic_uint *bell, unsigned v0, uint64_t limit,
                 const qsnap_t *q)
{
    if (t->oversubscribed)
        return false;
    uint64_t start = 0, budget = SPIN_NS < limit ? SPIN_NS : limit;
    for (unsigned i = 0;; i++) {
        if (atomic_load_explicit(bell, memory_order_relaxed) != v0 || snap_ready(q))
            return true;
        if ((i & 15) == 15) {
            uint64_t now = ic_shm_now_ns();
            if (start == 0)
                start = now;
            else if (now - start >= budget)
                return false;
        }
        cpu_relax();
    }
}

/* The yield and sleep phases of a wait (the failure checks run first,
 * with the guard held); returns with the guard held. */
static ic_status_t wait_longer(shm_transport_t *t, atomic_uint *bell, unsigned v0,
                               double timeout_s, const qsnap_t *q)
{
    ic_transport_t *tt = &t->base;
    ic_status_t st = check_all(t);
    if (st != IC_OK)
        return st;
    uint64_t start = ic_shm_now_ns();
    uint64_t limit = timeout_s >= 1e9 ? UINT64_MAX / 2 : (uint64_t)(timeout_s * 1e9);
    /* A send held by a peer's flooded flag (shm_ux.c) goes after at most
     * SHM_FLOOD_HOLD_NS, in a progress call: sleep one slice only. */
    bool held = t->nflood > 0 && t->nbacklog > 0;
    ic_tx_guard_release(tt);
    /* Phase 2: let other ranks on this core run, polling between yields
     * for up to t->yield_ns (a yield returns at once when nothing else
     * wants the core). */
    for (int i = 0;; i++) {
        sched_yield();
        if (atomic_load_explicit(bell, memory_order_relaxed) != v0 || snap_ready(q))
            goto out;
        uint64_t budget = t->yield_ns < limit ? t->yield_ns : limit;
        if (i + 1 >= YIELDS && ic_shm_now_ns() - start >= budget)
            break;
    }
    /* Phase 3: sleep, waking up now and then to check on the peers. */
    for (;;) {
        uint64_t waited = ic_shm_now_ns() - start;
        if (waited >= limit)
            goto out;
        uint64_t left = limit - waited;
        sleep_on(&t->seg, tt->rank, v0, left < SLEEP_MS * 1000000u ? left : SLEEP_MS * 1000000u,
                 q);
        if (atomic_load(bell) != v0 || snap_ready(q))
            goto out;
        ic_tx_guard_take(tt);
        st = check_all(t);
        ic_tx_guard_release(tt);
        if (st != IC_OK || held)
            goto out;
    }
out:
    ic_tx_guard_take(tt);
    return st;
}

long ic_shm_cores(void)
{
    /* IC_SHM_CORES (checked by ic_init), else the machine's cores, not
     * this process's affinity: a launcher that binds each rank to its own
     * core leaves one in the mask. */
    uint64_t n = ic_shm_env_u64("IC_SHM_CORES", 0);
    if (n >= 1 && n <= IC_SHM_CORES_MAX)
        return (long)n;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c >= 1 ? c : 1;
}

uint64_t ic_shm_yield_ns(bool oversubscribed)
{
    return oversubscribed ? YIELD_NS_SHARED : YIELD_NS_ALONE;
}

ic_status_t ic_shm_op_wait(ic_transport_t *tt, double timeout_s)
{
    shm_transport_t *t = (shm_transport_t *)tt;
    if (!t)
        return ic_set_error(IC_ERR_ARG, "shm wait: transport is NULL");
    /* Everything that can move a request rings this rank's doorbell (or,
     * with qpoll, a message stamps a queue's next cell), so the value the
     * last progress call scanned and the stamps tell whether there is news
     * since: no progress call (and no lost wake-up) here. */
    if (!(timeout_s > 0)) { /* a poll */
        ic_status_t st = ic_shm_progress(t, NULL);
        return st != IC_OK ? st : check_all(t);
    }
    atomic_uint *bell = &t->seg.ranks[tt->rank].doorbell;
    unsigned v0 = t->scanned_bell;
    qsnap_t q;
    snap_take(t, &q); /* with the guard held: the tails are current */
    if (t->force_scan || atomic_load(bell) != v0 || snap_ready(&q))
        return IC_OK;
    uint64_t limit = timeout_s >= 1e9 ? UINT64_MAX / 2 : (uint64_t)(timeout_s * 1e9);
    ic_tx_guard_release(tt);
    bool moved = spin(t, bell, v0, limit, &q);
    ic_tx_guard_take(tt);
    if (moved)
        return IC_OK;
    return wait_longer(t, bell, v0, timeout_s, &q);
}

void ic_shm_op_wake(ic_transport_t *tt)
{
    if (tt)
        ic_shm_ring(&((shm_transport_t *)tt)->seg, tt->rank);
}
