/*
 * test_shm_pair.c — one pair of ranks over the shared-memory transport,
 * every byte checked:
 *
 *   small:  10^6 messages of 0..256 bytes, rank 0 -> 1, in windows of 64
 *           whose keys are sent and received in two different random
 *           orders (so most messages arrive unexpected, or find their
 *           receive posted, at random); an ack every 16 windows bounds
 *           how far the sender runs ahead;
 *   mid:    4000 messages of 257..20256 bytes both ways at once, around
 *           the eager/rendezvous threshold;
 *   large:  64 x 16 MiB (1 GiB) rank 0 -> 1, four in flight, received in
 *           reverse order, then odd sizes (1 MiB + 3, 8193, ...) both
 *           ways; then an unchecked 16 x 16 MiB for the raw bandwidth;
 *   exchange: 8 MiB, 8 MiB + 3 and 12 MiB + 1 both ways at once, each
 *           rank's receive posted before its send, then 8 MiB + 3 one
 *           way.  With single copy and a core per rank, a message streams
 *           exactly when it reaches its threshold: IC_SHM_STREAM_XCHG_MIN
 *           for the exchanged ones (the sender is receiving, so it would
 *           not share the copy), IC_SHM_STREAM_MIN for the one-way one.
 *           The default mode sets IC_SHM_STREAM_XCHG_MIN=8 MiB, so the
 *           exchanged messages must stream and the one-way one must not
 *           on every machine, and checks that IC_SHM_STREAM_MIN has its
 *           default, max(16 MiB, LLC/2) (base/llc.h).
 *
 * Usage: test_shm_pair [cma|nocma|stream|eager|both] [quick].  "both"
 * (the default) runs the job with single copy (if the system permits it),
 * with IC_SHM_NO_CMA=1 (the chunked fallback), with
 * IC_SHM_STREAM_MIN=12000 (mid messages from 12000 bytes and every large
 * one streamed through the bulk buffer, the smaller mid ones single copy,
 * on the same pair at once) and with IC_SHM_EAGER_STREAM=1 (every eager
 * payload of 2 KiB or more written into the queue with non-temporal
 * stores, shm_queue.h).  The default mode streams the 16 MiB messages
 * too where the default IC_SHM_STREAM_MIN is 16 MiB (a last-level cache
 * of 32 MiB or less).  "quick" divides the counts by 10 (for sanitizer
 * builds).
 */
#include "shm_harness.h"
#include "base/llc.h"
#include "transport/shm/shm_internal.h"

#define W 64
#define MIDW 16
#define MIDMAX 20257
#define BIG (16u << 20)
#define INFLIGHT 4

typedef struct {
    int nocma;
    long nsmall;
    int nmid, nlarge, nraw;
} pair_arg_t;

static size_t small_size(uint64_t i)
{
    return (size_t)(pat_mix(i ^ 0x5a5a) % 257);
}
static size_t mid_size(uint64_t i)
{
    return 257 + (size_t)(pat_mix(i ^ 0xa5a5) % 20000);
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        printf("rank %d: ", rank);                                                                 \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        return 1;                                                                                  \
    } while (0)

static int small_phase(ic_transport_t *t, int rank, const pair_arg_t *a)
{
    static unsigned char buf[W][256];
    ic_tx_req_t req[W];
    ic_tx_req_t ack;
    char done[W], d1;
    int perm[W];
    long windows = a->nsmall / W;
    double t0 = now_s();
    for (long w = 0; w < windows; w++) {
        ic_status_t st;
        if (rank == 0) {
            if (w >= 32 && w % 16 == 0) {
                t->ops->irecv(t, 1, mkkey(2, (uint64_t)(w - 17), 0), NULL, 0, &ack);
                if ((st = wait_all(t, &ack, 1, &d1)) != IC_OK)
                    FAIL("ack before window %ld: %s", w, ic_last_error());
            }
            permute(perm, W, (uint64_t)w * 2);
            for (int k = 0; k < W; k++) {
                uint64_t i = (uint64_t)w * W + (uint64_t)perm[k];
                pat_fill(buf[perm[k]], small_size(i), i);
                st = t->ops->isend(t, 1, mkkey(1, (uint64_t)w, (uint32_t)perm[k]), buf[perm[k]],
                                   small_size(i), &req[k]);
                if (st != IC_OK)
                    FAIL("isend: %s", ic_last_error());
            }
        } else {
            permute(perm, W, (uint64_t)w * 2 + 1);
            for (int k = 0; k < W; k++) {
                uint64_t i = (uint64_t)w * W + (uint64_t)perm[k];
                st = t->ops->irecv(t, 0, mkkey(1, (uint64_t)w, (uint32_t)perm[k]), buf[perm[k]],
                                   small_size(i), &req[k]);
                if (st != IC_OK)
                    FAIL("irecv: %s", ic_last_error());
            }
        }
        if ((st = wait_all(t, req, W, done)) != IC_OK)
            FAIL("window %ld: %s: %s", w, ic_status_string(st), ic_last_error());
        if (rank == 1) {
            for (int k = 0; k < W; k++) {
                uint64_t i = (uint64_t)w * W + (uint64_t)k;
                long bad = pat_check(buf[k], small_size(i), i);
                if (bad >= 0)
                    FAIL("small message %llu (%zu bytes): byte %ld wrong", (unsigned long long)i,
                         small_size(i), bad);
            }
            if (w % 16 == 15) {
                t->ops->isend(t, 0, mkkey(2, (uint64_t)w, 0), NULL, 0, &ack);
                if ((st = wait_all(t, &ack, 1, &d1)) != IC_OK)
                    FAIL("ack: %s", ic_last_error());
            }
        }
    }
    /* Drain the acks the sender did not wait for. */
    if (rank == 0)
        for (long w = 15; w < windows; w += 16)
            if (w + 17 >= windows) { /* acks w + 17 < windows were taken above */
                t->ops->irecv(t, 1, mkkey(2, (uint64_t)w, 0), NULL, 0, &ack);
                if (wait_all(t, &ack, 1, &d1) != IC_OK)
                    FAIL("final ack %ld: %s", w, ic_last_error());
            }
    double dt = now_s() - t0;
    if (rank == 1)
        printf("  small: %ld messages of 0..256 B in %.3f s = %.2f M msg/s (%.2f us each)\n",
               windows * W, dt, (double)(windows * W) / dt / 1e6, dt / (double)(windows * W) * 1e6);
    return 0;
}

static int mid_phase(ic_transport_t *t, int rank, const pair_arg_t *a)
{
    unsigned char *sb = malloc((size_t)MIDW * MIDMAX), *rb = malloc((size_t)MIDW * MIDMAX);
    ic_tx_req_t req[2 * MIDW];
    char done[2 * MIDW];
    int perm[MIDW];
    int other = 1 - rank, rc = 0;
    double t0 = now_s();
    for (int w = 0; w < a->nmid / MIDW && rc == 0; w++) {
        permute(perm, MIDW, (uint64_t)w * 4 + (uint64_t)rank);
        for (int k = 0; k < MIDW; k++) {
            uint64_t i = ((uint64_t)other << 40) | ((uint64_t)w * MIDW + (uint64_t)perm[k]);
            t->ops->irecv(t, other, mkkey(3, (uint64_t)w, (uint32_t)perm[k]),
                          rb + (size_t)perm[k] * MIDMAX, mid_size(i), &req[k]);
        }
        permute(perm, MIDW, (uint64_t)w * 4 + 2 + (uint64_t)rank);
        for (int k = 0; k < MIDW; k++) {
            uint64_t i = ((uint64_t)rank << 40) | ((uint64_t)w * MIDW + (uint64_t)perm[k]);
            unsigned char *p = sb + (size_t)perm[k] * MIDMAX;
            pat_fill(p, mid_size(i), i);
            t->ops->isend(t, other, mkkey(3, (uint64_t)w, (uint32_t)perm[k]), p, mid_size(i),
                          &req[MIDW + k]);
        }
        ic_status_t st = wait_all(t, req, 2 * MIDW, done);
        if (st != IC_OK) {
            printf("rank %d: mid window %d: %s\n", rank, w, ic_last_error());
            rc = 1;
        }
        for (int k = 0; k < MIDW && rc == 0; k++) {
            uint64_t i = ((uint64_t)other << 40) | ((uint64_t)w * MIDW + (uint64_t)k);
            long bad = pat_check(rb + (size_t)k * MIDMAX, mid_size(i), i);
            if (bad >= 0) {
                printf("rank %d: mid message %d/%d (%zu bytes): byte %ld wrong\n", rank, w, k,
                       mid_size(i), bad);
                rc = 1;
            }
        }
    }
    if (rank == 1 && rc == 0)
        printf("  mid: %d messages of 257..20256 B each way in %.3f s\n", a->nmid, now_s() - t0);
    free(sb);
    free(rb);
    return rc;
}

/* Moves the messages of sizes[] from rank `from` to the other rank, n in
 * flight, received in reverse order; checks them if check. */
static int stream(ic_transport_t *t, int rank, int from, const size_t *sizes, int n,
                  unsigned char **buf, uint64_t seq, int check)
{
    ic_tx_req_t req[INFLIGHT];
    char done[INFLIGHT];
    for (int b = 0; b < n; b += INFLIGHT) {
        int m = n - b < INFLIGHT ? n - b : INFLIGHT;
        for (int k = 0; k < m; k++) {
            uint64_t i = (seq << 32) | (uint64_t)(b + k);
            if (rank == from) {
                if (check)
                    pat_fill(buf[k], sizes[b + k], i);
                t->ops->isend(t, 1 - from, mkkey(4, seq, (uint32_t)(b + k)), buf[k], sizes[b + k],
                              &req[k]);
            } else {
                int kk = m - 1 - k;
                t->ops->irecv(t, from, mkkey(4, seq, (uint32_t)(b + kk)), buf[kk], sizes[b + kk],
                              &req[k]);
            }
        }
        ic_status_t st = wait_all(t, req, m, done);
        if (st != IC_OK)
            FAIL("large batch %d: %s", b, ic_last_error());
        for (int k = 0; k < m && check && rank != from; k++) {
            uint64_t i = (seq << 32) | (uint64_t)(b + k);
            long bad = pat_check(buf[k], sizes[b + k], i);
            if (bad >= 0)
                FAIL("large message %d (%zu bytes): byte %ld wrong", b + k, sizes[b + k], bad);
        }
    }
    return 0;
}

static int large_phase(ic_transport_t *t, int rank, const pair_arg_t *a)
{
    unsigned char *buf[INFLIGHT];
    size_t sizes[64];
    static const size_t odd[] = {(1u << 20) + 3, 8193,  (3u << 20) + 1, BIG - 5,
                                 (5u << 20) + 7, 12345, 8192 + 64,      65537};
    int rc = 0;
    for (int k = 0; k < INFLIGHT; k++)
        buf[k] = malloc(BIG);
    for (int k = 0; k < 64; k++)
        sizes[k] = BIG;
    double t0 = now_s();
    rc = stream(t, rank, 0, sizes, a->nlarge, buf, 1, 1);
    double dt = now_s() - t0;
    if (rank == 1 && rc == 0)
        printf("  large: %d x 16 MiB (%.0f MiB) checked in %.3f s = %.0f MB/s\n", a->nlarge,
               a->nlarge * 16.0, dt, a->nlarge * (double)BIG / dt / 1e6);
    if (rc == 0)
        rc = stream(t, rank, 0, odd, 8, buf, 2, 1);
    if (rc == 0)
        rc = stream(t, rank, 1, odd, 8, buf, 3, 1);
    t0 = now_s();
    if (rc == 0)
        rc = stream(t, rank, 0, sizes, a->nraw, buf, 4, 0);
    dt = now_s() - t0;
    if (rank == 1 && rc == 0)
        printf("  raw: %d x 16 MiB unchecked in %.3f s = %.0f MB/s\n", a->nraw, dt,
               a->nraw * (double)BIG / dt / 1e6);
    for (int k = 0; k < INFLIGHT; k++)
        free(buf[k]);
    return rc;
}

static int exchange_phase(ic_transport_t *t, int rank, const pair_arg_t *a)
{
    static const size_t sizes[] = {8u << 20, (8u << 20) + 3, (12u << 20) + 1};
    const shm_transport_t *st = (const shm_transport_t *)t;
    /* The modes with single copy and a core per rank; without
     * IC_SHM_STREAM_MIN the defaults: max(16 MiB, LLC/2), and for
     * exchanges max(8 MiB, LLC/4) unless the default mode's 8 MiB. */
    int judge = !a->nocma && ic_shm_single_copy(t) && !st->oversubscribed;
    if (judge && !getenv("IC_SHM_STREAM_MIN")) {
        uint64_t one = ic_stream_threshold(16u << 20, 2);
        uint64_t xchg =
            getenv("IC_SHM_STREAM_XCHG_MIN") ? 8u << 20 : ic_stream_threshold(8u << 20, 4);
        xchg = xchg < one ? xchg : one;
        if (st->stream_min != one || st->stream_xchg_min != xchg) {
            printf("rank %d: thresholds %llu / %llu, want %llu / %llu\n", rank,
                   (unsigned long long)st->stream_min, (unsigned long long)st->stream_xchg_min,
                   (unsigned long long)one, (unsigned long long)xchg);
            return 1;
        }
    }
    unsigned char *sb = malloc(12u << 20 | 1), *rb = malloc(12u << 20 | 1);
    int rc = 0;
    for (int k = 0; k < 4 && rc == 0; k++) {
        int oneway = k == 3;
        size_t n = oneway ? sizes[1] : sizes[k];
        uint64_t idx = (uint64_t)(k * 2 + rank);
        ic_tx_req_t req[2];
        char done[2];
        int nreq = 0, sending = !oneway || rank == 0, receiving = !oneway || rank == 1;
        if (receiving)
            t->ops->irecv(t, 1 - rank, mkkey(5, 1, (uint32_t)(k * 2 + 1 - rank)), rb, n,
                          &req[nreq++]);
        if (sending) {
            pat_fill(sb, n, idx);
            t->ops->isend(t, 1 - rank, mkkey(5, 1, (uint32_t)(k * 2 + rank)), sb, n,
                          &req[nreq++]);
        }
        if (wait_all(t, req, nreq, done) != IC_OK) {
            printf("rank %d: exchange %d (%zu bytes): %s\n", rank, k, n, ic_last_error());
            rc = 1;
            break;
        }
        if (receiving && pat_check(rb, n, (uint64_t)(k * 2 + 1 - rank)) >= 0) {
            printf("rank %d: exchange %d (%zu bytes): wrong bytes\n", rank, k, n);
            rc = 1;
        }
        if (sending && judge) {
            shm_req_t sr;
            memcpy(&sr, &req[nreq - 1], sizeof sr);
            int streamed = sr.streamed;
            if (streamed != (n >= (oneway ? st->stream_min : st->stream_xchg_min))) {
                printf("rank %d: %s message of %zu bytes %s\n", rank,
                       oneway ? "one-way" : "exchanged", n,
                       streamed ? "streamed" : "went by single copy");
                rc = 1;
            }
        }
    }
    if (rank == 1 && rc == 0)
        printf("  exchange: 8..12 MiB both ways and one way checked%s\n",
               judge ? ", streamed exactly from the thresholds" : "");
    free(sb);
    free(rb);
    return rc;
}

static int pair_rank(int rank, int size, const char *name, void *arg)
{
    const pair_arg_t *a = arg;
    ic_transport_t *t = open_rank(name, rank, size);
    if (a->nocma && ic_shm_single_copy(t))
        FAIL("IC_SHM_NO_CMA=1 but single copy is on");
    if (rank == 1)
        printf("  protocol for large messages: %s\n",
               ic_shm_single_copy(t) ? "single copy (process_vm_readv)" : "chunked");
    int rc = small_phase(t, rank, a);
    if (rc == 0)
        rc = mid_phase(t, rank, a);
    if (rc == 0)
        rc = large_phase(t, rank, a);
    if (rc == 0)
        rc = exchange_phase(t, rank, a);
    t->ops->close(t);
    return rc;
}

int main(int argc, char **argv)
{
    int modes[4] = {1, 1, 1, 1}, quick = 0, failures = 0;
    for (int i = 1; i < argc; i++) {
        static const char *const only[4] = {"cma", "nocma", "stream", "eager"};
        int m = 0;
        while (m < 4 && strcmp(argv[i], only[m]))
            m++;
        if (m < 4)
            for (int k = 0; k < 4; k++)
                modes[k] = k == m;
        else if (!strcmp(argv[i], "quick"))
            quick = 1;
        else if (strcmp(argv[i], "both")) {
            printf("usage: %s [cma|nocma|stream|eager|both] [quick]\n", argv[0]);
            return 2;
        }
    }
    static const char *const what[] = {"default (single copy if permitted)", "IC_SHM_NO_CMA=1",
                                       "IC_SHM_STREAM_MIN=12000", "IC_SHM_EAGER_STREAM=1"};
    for (int m = 0; m < 4; m++) {
        if (!modes[m])
            continue;
        pair_arg_t a = {m == 1, quick ? 100000 : 1000000, quick ? 800 : 4000, quick ? 8 : 64,
                        quick ? 4 : 16};
        int status[2] = {0, 0};
        char name[64];
        set_mode(m == 1);
        if (m == 0) /* the exchange phase's threshold on any machine */
            setenv("IC_SHM_STREAM_XCHG_MIN", "8388608", 1);
        if (m == 2)
            setenv("IC_SHM_STREAM_MIN", "12000", 1);
        if (m == 3)
            setenv("IC_SHM_EAGER_STREAM", "1", 1);
        printf("test_shm_pair: %s\n", what[m]);
        double t0 = now_s();
        int rc = run_job(2, pair_rank, &a, 300, MARK_BAD, status, name);
        failures += job_failures(rc, status, 2, name);
        printf("  job total %.3f s\n", now_s() - t0);
        unsetenv("IC_SHM_STREAM_MIN");
        unsetenv("IC_SHM_STREAM_XCHG_MIN");
        unsetenv("IC_SHM_EAGER_STREAM");
    }
    set_mode(0);
    printf("test_shm_pair: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
