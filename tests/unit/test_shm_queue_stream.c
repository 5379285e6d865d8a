/*
 * test_shm_queue_stream.c — streamed eager payloads in the shared-memory
 * queue (src/transport/shm/shm_queue.h), one process playing producer and
 * consumer of one ring:
 *
 *   - every payload arrives intact whichever way it was written, around
 *     the ring's end too, with IC_SHM_EAGER_STREAM's three modes: never
 *     streamed (0), streamed from SHM_Q_STREAM_MIN bytes (1), and
 *     adaptive; the header's flag says how it was written;
 *   - the producer's judgement: one slow copy (a preempted one) does not
 *     turn streaming on, a run of slow copies does, a run of fast ones
 *     turns it off again, and copies between the thresholds change
 *     nothing;
 *   - the adaptive producer streams payloads of SHM_Q_STREAM_MIN bytes and
 *     more only while it judges its copies slow, and then sends every
 *     SHM_Q_PROBE_EVERY-th of them cached (and times it); while fast it
 *     times one in SHM_Q_TIME_EVERY; smaller payloads are never streamed.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "transport/shm/shm_queue.h"

#include <stdlib.h>
#include <string.h>

#define NCELLS 512u

static shm_qend_t prod, cons;

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 8));
}

/* Pushes one message of n bytes and reads it back; returns its flags, or
 * -1 (and a failed check) if it did not arrive intact. */
static int round_trip(size_t n, unsigned seed)
{
    static unsigned char src[20000], dst[20000];
    fill(src, n, seed);
    memset(dst, 0xee, sizeof dst);
    shm_msg_t m;
    memset(&m, 0, sizeof m);
    m.type = SHM_MSG_EAGER;
    m.len = n;
    m.tag = seed;
    CHECK(ic_shm_q_push(&prod, &m, src, n) == 1, "push of %zu bytes refused", n);
    const shm_msg_t *h = ic_shm_q_peek(&cons);
    CHECK(h && h->len == n && h->tag == seed, "peek after a push of %zu bytes", n);
    if (!h)
        return -1;
    int flags = (int)h->flags;
    ic_shm_q_read(&cons, 0, dst, n);
    ic_shm_q_pop(&cons, h);
    int ok = memcmp(src, dst, n) == 0 && dst[n] == 0xee;
    CHECK(ok, "payload of %zu bytes (flags %d) not intact", n, flags);
    return ok ? flags : -1;
}

static const size_t sizes[] = {0, 1, 63, 2047, 2048, 4099, 8192, 16384};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

static void test_modes(void)
{
    for (int mode = SHM_Q_STREAM_AUTO; mode <= SHM_Q_STREAM_ALWAYS; mode++) {
        prod.stream_mode = mode;
        /* Many rounds: the ring (32 KiB) wraps inside payloads. */
        for (unsigned r = 0; r < 40; r++)
            for (int i = 0; i < NSIZES; i++) {
                /* Adaptive: judged fast (a slow build, e.g. a sanitizer's,
                 * could judge its own copies slow). */
                prod.slow = 0;
                int f = round_trip(sizes[i], r * 16 + (unsigned)i);
                int want = mode == SHM_Q_STREAM_ALWAYS && sizes[i] >= SHM_Q_STREAM_MIN
                               ? (int)SHM_MSG_STREAMED
                               : 0;
                CHECK(f == want, "mode %d, %zu bytes: flags %d, want %d", mode, sizes[i], f,
                      want);
            }
    }
    prod.stream_mode = SHM_Q_STREAM_AUTO;
}

/* Feeds n copies of bytes at ns_per_byte; returns after how many the
 * producer's judgement became want (0: it did not). */
static int feed(int n, size_t bytes, double ns_per_byte, int want)
{
    for (int k = 0; k < n; k++) {
        ic_shm_q_note_push(&prod, bytes, ns_per_byte * (double)bytes);
        if (prod.slow == want)
            return k + 1;
    }
    return 0;
}

static void test_judgement(void)
{
    prod.slow = 0;
    prod.push_ns = 0;
    CHECK(feed(20, 4096, 0.03, 1) == 0, "fast copies (0.03 ns/B) turned streaming on");
    CHECK(feed(1, 4096, 200e3 / 4096, 1) == 0,
          "one copy preempted for 200 us turned streaming on (estimate %.3f)", prod.push_ns);
    feed(20, 4096, 0.03, 1);
    int at = feed(10, 4096, 0.30, 1);
    CHECK(at >= 2 && at <= 5, "slow copies (0.30 ns/B) turned streaming on after %d, want 2..5",
          at);
    CHECK(feed(20, 8192, 0.15, 0) == 0, "copies at 0.15 ns/B, between the thresholds, "
                                        "turned streaming off");
    at = feed(20, 4096, 0.075, 0);
    CHECK(at >= 1 && at <= 6, "fast copies (0.075 ns/B) turned streaming off after %d", at);
    CHECK(feed(20, 8192, 0.15, 1) == 0, "copies at 0.15 ns/B turned streaming on");
}

static void test_adaptive(void)
{
    prod.stream_mode = SHM_Q_STREAM_AUTO;
    prod.slow = 0;
    prod.push_ns = 0;
    prod.nlarge = 0;
    int streamed = 0;
    for (unsigned r = 0; r < 48; r++) {
        prod.slow = 0; /* as in test_modes */
        streamed += round_trip(4096, r) == (int)SHM_MSG_STREAMED;
    }
    CHECK(streamed == 0, "%d payloads streamed while the copies were fast", streamed);
    CHECK(prod.push_ns > 0, "no cached copy was timed");

    /* Slow: keep the judgement, whatever the probes below measure. */
    int cached = 0, small = 0;
    double before = -1;
    for (unsigned r = 0; r < 4 * SHM_Q_PROBE_EVERY; r++) {
        prod.slow = 1;
        prod.push_ns = 0.5;
        int f = round_trip(4096, 100 + r);
        cached += f == 0;
        if (f == 0)
            before = prod.push_ns;
        prod.slow = 1;
        small += round_trip(SHM_Q_STREAM_MIN - 1, 300 + r) != 0;
    }
    CHECK(cached == 4, "while slow, %d of %u payloads went cached, want 4 (the probes)", cached,
          4 * SHM_Q_PROBE_EVERY);
    CHECK(before >= 0 && before != 0.5, "a probe's copy was not timed");
    CHECK(small == 0, "%d payloads below SHM_Q_STREAM_MIN streamed", small);

    /* A streamed payload's copy is not timed. */
    prod.slow = 1;
    prod.push_ns = 0.42;
    prod.nlarge = 0; /* the next one is not a probe */
    round_trip(8192, 7);
    CHECK(prod.push_ns == 0.42, "a streamed copy moved the estimate to %.3f", prod.push_ns);
    prod.slow = 0;
}

int main(void)
{
    size_t bytes = shm_q_bytes(NCELLS);
    shm_qctl_t *ctl = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!ctl)
        return 2;
    memset(ctl, 0, bytes);
    ic_shm_q_attach(&prod, ctl, NCELLS, 1);
    ic_shm_q_attach(&cons, ctl, NCELLS, 0);
    test_modes();
    test_judgement();
    test_adaptive();
    free(ctl);
    printf("test_shm_queue_stream: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
