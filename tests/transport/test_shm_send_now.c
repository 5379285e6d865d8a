/*
 * test_shm_send_now.c — the shared-memory transport's ops->send_now and
 * ops->recv_now (the executor's ways for a message that can leave, or be
 * taken, at once without a request), on a pair of ranks, every byte
 * checked.  send_now:
 *
 *   - it sends what isend would put in the queue at once: a message of
 *     eager_max bytes, one of 0 bytes, a one-way one of oneway_max bytes;
 *   - it declines (returns 0, sends nothing) what isend would not put in
 *     the queue at once: an ordinary message of eager_max + 1 bytes, a
 *     one-way one of oneway_max + 1 (with single copy: a rendezvous), a
 *     message to itself, to a peer out of range, from a NULL buffer, and
 *     any message while an earlier send to that peer waits in the
 *     backlog (the queue full: rank 1 receives nothing until a flag is raised);
 *     each declined message is then posted with isend and arrives too.
 *
 * Rank 1 does not touch the transport until rank 0 has sent everything (a
 * flag in memory the two share), so the queue fills and every message
 * rank 0 sent at once sat in it; rank 1 then receives them in reverse
 * order.
 *
 * recv_now takes the next message in the peer's queue when it is eager
 * and of exactly the key, signature and size asked for, and declines
 * (returns 0, takes nothing) a message behind another, one of another
 * size or signature, a rendezvous, an empty queue, a message already
 * buffered unexpected (it is not in the queue any more), itself, a peer
 * out of range and a NULL buffer; every declined message is then received
 * (by recv_now when it has come to the head, else by irecv).
 * Run in both modes (single copy where the system permits it, and
 * IC_SHM_NO_CMA=1).
 */
#include "shm_harness.h"
#include "transport/shm/shm_internal.h"

#include <sys/mman.h>

#define MAXMSG 40000
#define FILL 256 /* at most this many sends to fill the queue */

static int failures;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("  rank 0: " __VA_ARGS__);                                                      \
            printf("\n");                                                                          \
            bad = 1;                                                                               \
        }                                                                                          \
    } while (0)

typedef struct msg {
    size_t bytes;
    int oneway;
    int now;   /* send_now took it */
} msg_t;

/* The messages in the order rank 0 sends them; tag = index. */
enum { M_EAGER, M_ZERO, M_ONEWAY, M_OVER, M_ONEWAY_OVER, M_FIRST_FILL };

static unsigned char *buf_of(unsigned char *bufs, int i)
{
    return bufs + (size_t)i * MAXMSG;
}

static int sender(ic_transport_t *t, const shm_transport_t *st, msg_t *m, int *nmsg,
                  unsigned char *bufs, ic_tx_req_t *req)
{
    int bad = 0;
    size_t eager = st->seg.hdr->eager_max, oneway = st->oneway_max;
    if (eager + 1 > MAXMSG || oneway + 1 > MAXMSG) {
        printf("  rank 0: eager_max %zu or oneway_max %zu above the test's %d\n", eager, oneway,
               MAXMSG);
        return 1;
    }
    msg_t first[] = {{eager, 0, 1}, {0, 0, 1}, {oneway, 1, 1}, {eager + 1, 0, 0},
                     {oneway + 1, 1, 0}};
    int n = 0;
    for (int i = 0; i < (int)(sizeof first / sizeof first[0]); i++)
        m[n++] = first[i];
    for (int i = 0; i < n; i++) {
        pat_fill(buf_of(bufs, i), m[i].bytes, 100 + (uint64_t)i);
        int got = t->ops->send_now(t, 1, mkkey(9, 0, (uint32_t)i), buf_of(bufs, i), m[i].bytes,
                                   m[i].oneway);
        EXPECT(got == m[i].now, "send_now of %zu bytes%s returned %d, want %d", m[i].bytes,
               m[i].oneway ? " (one-way)" : "", got, m[i].now);
        if (!got)
            (m[i].oneway ? t->ops->isend_oneway : t->ops->isend)(
                t, 1, mkkey(9, 0, (uint32_t)i), buf_of(bufs, i), m[i].bytes, &req[i]);
    }
    /* Arguments isend would refuse or treat otherwise: declined. */
    unsigned char one = 1;
    EXPECT(t->ops->send_now(t, 0, mkkey(9, 1, 0), &one, 1, 0) == 0, "send_now to itself took it");
    EXPECT(t->ops->send_now(t, 2, mkkey(9, 1, 0), &one, 1, 0) == 0, "send_now to rank 2 took it");
    EXPECT(t->ops->send_now(t, -1, mkkey(9, 1, 0), &one, 1, 0) == 0, "send_now to -1 took it");
    EXPECT(t->ops->send_now(t, 1, mkkey(9, 1, 0), NULL, 1, 0) == 0, "send_now of NULL took it");
    /* Fill the queue with posted sends of eager_max bytes until one waits
     * in the backlog; then send_now must decline. */
    int backlog = 0;
    while (n < M_FIRST_FILL + FILL && !backlog) {
        int i = n++;
        m[i] = (msg_t){eager, 0, 0};
        pat_fill(buf_of(bufs, i), eager, 100 + (uint64_t)i);
        t->ops->isend(t, 1, mkkey(9, 0, (uint32_t)i), buf_of(bufs, i), eager, &req[i]);
        int fin = 0;
        backlog = t->ops->test(t, &req[i], &fin) == IC_OK && !fin;
    }
    EXPECT(backlog, "%d sends of %zu bytes all went into the queue", FILL, eager);
    if (backlog) {
        int i = n++;
        m[i] = (msg_t){8, 0, 0};
        pat_fill(buf_of(bufs, i), 8, 100 + (uint64_t)i);
        int got = t->ops->send_now(t, 1, mkkey(9, 0, (uint32_t)i), buf_of(bufs, i), 8, 0);
        EXPECT(got == 0, "send_now took a message behind the backlog");
        if (!got)
            t->ops->isend(t, 1, mkkey(9, 0, (uint32_t)i), buf_of(bufs, i), 8, &req[i]);
        else
            m[i].now = 1;
    }
    *nmsg = n;
    return bad;
}

/* Rank 0 sends the table of what it sent (a fixed size: n, then bytes
 * and one-way per message) and raises the flag; rank 1 waits for the flag,
 * receives the table, then every message, and checks every byte. */
#define NMAX (M_FIRST_FILL + FILL + 1)

/* Waits for the n + 1 sends of req that were posted (not those send_now
 * took). */
static ic_status_t wait_posted(ic_transport_t *t, const msg_t *m, int n, ic_tx_req_t *req)
{
    static char fin[NMAX + 1];
    for (int left = 1; left;) {
        left = 0;
        for (int i = 0; i < n + 1; i++) {
            if ((i < n && m[i].now) || fin[i])
                continue;
            int f = 0;
            ic_status_t s = t->ops->test(t, &req[i], &f);
            if (s != IC_OK)
                return s;
            fin[i] = (char)f;
            left |= !f;
        }
        if (left) {
            ic_status_t s = t->ops->wait(t, 0.01);
            if (s != IC_OK)
                return s;
        }
    }
    return IC_OK;
}

static int rank_fn(int rank, int size, const char *name, void *arg)
{
    volatile int *flag = arg;
    ic_transport_t *t = open_rank(name, rank, size);
    const shm_transport_t *st = (const shm_transport_t *)(const void *)t;
    if (!t->ops->send_now) {
        printf("  rank %d: the shm transport has no send_now\n", rank);
        return 1;
    }
    static msg_t m[NMAX];
    static ic_tx_req_t req[NMAX + 1];
    static char done[NMAX];
    static int table[1 + 2 * NMAX];
    unsigned char *bufs = malloc((size_t)NMAX * MAXMSG);
    if (!bufs)
        return 2;
    int bad = 0, n = 0;
    if (rank == 0) {
        bad = sender(t, st, m, &n, bufs, req);
        table[0] = n;
        for (int i = 0; i < n; i++) {
            table[1 + 2 * i] = (int)m[i].bytes;
            table[2 + 2 * i] = m[i].oneway;
        }
        t->ops->isend(t, 1, mkkey(9, 2, 0), table, sizeof table, &req[n]);
        *flag = 1;
        if (wait_posted(t, m, n, req) != IC_OK) {
            printf("  rank 0: waiting for the posted sends failed: %s\n", ic_last_error());
            bad = 3;
        }
    } else {
        if (wait_flag(flag, 1) != 0)
            bad = 4;
        t->ops->irecv(t, 0, mkkey(9, 2, 0), table, sizeof table, &req[0]);
        if (wait_all(t, req, 1, done) != IC_OK)
            bad = 5;
        n = bad ? 0 : table[0];
        if (n < M_FIRST_FILL || n > NMAX) {
            printf("  rank 1: table of %d messages\n", n);
            n = 0;
            bad = 6;
        }
        /* In reverse order of sending: every one is found unexpected. */
        for (int k = 0; k < n; k++) {
            int i = n - 1 - k;
            t->ops->irecv(t, 0, mkkey(9, 0, (uint32_t)i), buf_of(bufs, i),
                          (size_t)table[1 + 2 * i], &req[k]);
        }
        if (wait_all(t, req, n, done) != IC_OK) {
            printf("  rank 1: receives failed: %s\n", ic_last_error());
            bad = 7;
        }
        for (int i = 0; i < n && !bad; i++)
            if (pat_check(buf_of(bufs, i), (size_t)table[1 + 2 * i], 100 + (uint64_t)i) >= 0) {
                printf("  rank 1: message %d (%d bytes) differs\n", i, table[1 + 2 * i]);
                bad = 8;
            }
    }
    t->ops->close(t);
    free(bufs);
    return bad;
}

/* recv_now: rank 0 sends tags 0 (8 bytes), 1 (8), 2 (8, signature 7) and
 * 3 (eager_max + 1: a rendezvous) and raises the flag to 1; rank 1 asks
 * for them in the cases above.  Then (flag 2) rank 0 sends tags 4 and 5;
 * rank 1 (flag 3) receives 5 with irecv, which buffers 4 unexpected, and
 * recv_now must decline 4. */
#define BIG_MAX (MAXMSG + 1)

static int recv_rank(int rank, int size, const char *name, void *arg)
{
    volatile int *flag = arg;
    ic_transport_t *t = open_rank(name, rank, size);
    const shm_transport_t *st = (const shm_transport_t *)(const void *)t;
    size_t big = st->seg.hdr->eager_max + 1;
    static unsigned char b[6][BIG_MAX];
    const size_t len[6] = {8, 8, 8, big, 8, 8};
    ic_tx_req_t req[6];
    char done[6];
    int bad = 0;
    if (!t->ops->recv_now || big > BIG_MAX) {
        printf("  rank %d: no recv_now, or eager_max %zu above the test's\n", rank, big - 1);
        return 1;
    }
    ic_match_key_t k[6];
    for (int i = 0; i < 6; i++) {
        k[i] = mkkey(11, 0, (uint32_t)i);
        if (i == 2)
            k[i].sig = 7;
    }
    if (rank == 0) {
        for (int i = 0; i < 4; i++) {
            pat_fill(b[i], len[i], 200 + (uint64_t)i);
            t->ops->isend(t, 1, k[i], b[i], len[i], &req[i]);
        }
        *flag = 1;
        if (wait_all(t, req, 4, done) != IC_OK)
            bad = 2;
        if (wait_flag(flag, 2) != 0)
            bad = 3;
        for (int i = 4; i < 6; i++) {
            pat_fill(b[i], len[i], 200 + (uint64_t)i);
            t->ops->isend(t, 1, k[i], b[i], len[i], &req[i]);
        }
        *flag = 3;
        if (wait_all(t, &req[4], 2, done) != IC_OK)
            bad = 4;
        t->ops->close(t);
        return bad;
    }
#define NOW(want, key, buf, n, what)                                                               \
    do {                                                                                           \
        int got_ = t->ops->recv_now(t, 0, key, buf, n);                                            \
        if (got_ != (want)) {                                                                      \
            printf("  rank 1: recv_now %s returned %d\n", what, got_);                             \
            bad = 10;                                                                              \
        }                                                                                          \
    } while (0)
    if (wait_flag(flag, 1) != 0)
        bad = 5;
    ic_match_key_t wrong_sig = k[0];
    wrong_sig.sig = 5;
    NOW(0, k[1], b[1], len[1], "of a message behind another");
    NOW(0, k[0], b[0], 9, "of 9 bytes for 8");
    NOW(0, wrong_sig, b[0], 8, "with another signature");
    NOW(0, k[0], NULL, 8, "into NULL");
    if (t->ops->recv_now(t, 1, k[0], b[0], 8) || t->ops->recv_now(t, 2, k[0], b[0], 8) ||
        t->ops->recv_now(t, -1, k[0], b[0], 8)) {
        printf("  rank 1: recv_now from itself or out of range took a message\n");
        bad = 11;
    }
    NOW(1, k[0], b[0], 8, "of the next message");
    NOW(1, k[1], b[1], 8, "of the next message");
    NOW(0, mkkey(11, 0, 2), b[2], 8, "with signature 0 for 7");
    NOW(1, k[2], b[2], 8, "with signature 7");
    NOW(0, k[3], b[3], big, "of a rendezvous");
    t->ops->irecv(t, 0, k[3], b[3], big, &req[3]);
    if (wait_all(t, &req[3], 1, done) != IC_OK)
        bad = 6;
    NOW(0, k[4], b[4], 8, "from an empty queue");
    *flag = 2;
    if (wait_flag(flag, 3) != 0)
        bad = 7;
    t->ops->irecv(t, 0, k[5], b[5], 8, &req[5]);
    if (wait_all(t, &req[5], 1, done) != IC_OK)
        bad = 8;
    NOW(0, k[4], b[4], 8, "of a message buffered unexpected");
    t->ops->irecv(t, 0, k[4], b[4], 8, &req[4]);
    if (wait_all(t, &req[4], 1, done) != IC_OK)
        bad = 9;
    for (int i = 0; i < 6; i++)
        if (pat_check(b[i], len[i], 200 + (uint64_t)i) >= 0) {
            printf("  rank 1: message %d (%zu bytes) differs\n", i, len[i]);
            bad = 12;
        }
#undef NOW
    t->ops->close(t);
    return bad;
}

int main(void)
{
    volatile int *flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (flag == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    for (int nocma = 0; nocma < 2; nocma++) {
        set_mode(nocma);
        *flag = 0;
        int status[2] = {0, 0};
        char name[64];
        int rc = run_job(2, rank_fn, (void *)flag, 60, MARK_BAD, status, name);
        int bad = job_failures(rc, status, 2, name);
        printf("test_shm_send_now send_now %s: %s\n", nocma ? "IC_SHM_NO_CMA=1" : "default",
               bad ? "FAILED" : "passed");
        failures += bad;
        *flag = 0;
        rc = run_job(2, recv_rank, (void *)flag, 60, MARK_BAD, status, name);
        bad = job_failures(rc, status, 2, name);
        printf("test_shm_send_now recv_now %s: %s\n", nocma ? "IC_SHM_NO_CMA=1" : "default",
               bad ? "FAILED" : "passed");
        failures += bad;
        fflush(stdout);
    }
    set_mode(0);
    printf("test_shm_send_now: %d failed\n", failures);
    return failures ? 1 : 0;
}
