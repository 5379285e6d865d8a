/*
 * test_shm_queue_stamp.c — the shared-memory queue's stamps
 * (src/transport/shm/shm_queue.h): the consumer finds a message by the
 * stamp in the header of the cell at its tail, so nothing else may ever
 * look like one.  One process plays producer and consumer of one ring:
 *
 *   - an empty queue is empty at every tail, over many laps, although the
 *     payloads are made so that the first word of every continuation cell
 *     holds the stamp that cell's position expects one lap later (the
 *     consumer must have zeroed it when it handed the cell back);
 *   - a message is seen as soon as it is pushed, with its header and
 *     payload intact, whatever its size and wherever it wraps;
 *   - an old header's stamp at the tail (the message one lap back) is not
 *     taken for a new message.
 */
#include "check.h"
#include "transport/shm/shm_queue.h"

#include <stdlib.h>
#include <string.h>

#define NCELLS 64u

static shm_qend_t prod, cons;

/* A payload of n bytes for a message whose first cell will have index
 * first: at the start of every continuation cell, the stamp of the cell
 * at that position one lap later; elsewhere a pattern. */
static void hostile(unsigned char *b, size_t n, uint64_t first, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 29u + i * 13u);
    for (uint64_t k = 1;; k++) {
        size_t at = (size_t)k * SHM_CELL - SHM_MSG_HDR; /* offset in the payload */
        if (at + sizeof(uint32_t) > n)
            break;
        uint32_t lure = shm_q_stamp(first + k + NCELLS);
        memcpy(b + at, &lure, sizeof lure);
    }
}

static void test_laps(void)
{
    static unsigned char src[40 * SHM_CELL], dst[40 * SHM_CELL];
    static const size_t sizes[] = {8, 24, 25, 64, 100, 200, 1000, 2000, 600, 88, 1};
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    int empty_bad = 0, lost = 0, damaged = 0;
    for (unsigned r = 0; r < 400; r++) {
        size_t n = sizes[r % NSIZES];
        hostile(src, n, prod.mine, r);
        shm_msg_t m;
        memset(&m, 0, sizeof m);
        m.type = SHM_MSG_EAGER;
        m.len = n;
        m.tag = r;
        if (ic_shm_q_push(&prod, &m, src, n) != 1) {
            CHECK(0, "push %u of %zu bytes refused on an empty ring", r, n);
            return;
        }
        const shm_msg_t *h = ic_shm_q_peek(&cons);
        if (!h || h->tag != r || h->len != n) {
            lost++;
            continue;
        }
        memset(dst, 0, sizeof dst);
        ic_shm_q_read(&cons, 0, dst, n);
        damaged += memcmp(src, dst, n) != 0;
        ic_shm_q_pop(&cons, h);
        empty_bad += ic_shm_q_peek(&cons) != NULL;
    }
    CHECK(lost == 0, "%d messages not found (or found with another header) at the tail", lost);
    CHECK(damaged == 0, "%d payloads damaged", damaged);
    CHECK(empty_bad == 0,
          "%d times an empty queue showed a message: stale payload taken for a header",
          empty_bad);
    CHECK(prod.mine > 10 * NCELLS, "only %llu cells pushed: the ring did not lap often",
          (unsigned long long)prod.mine);
}

/* A single-cell message every time: the tail always finds the header of
 * the message one lap back, whose stamp must not match. */
static void test_old_header(void)
{
    int bad = 0;
    for (unsigned r = 0; r < 3 * NCELLS; r++) {
        shm_msg_t m;
        memset(&m, 0, sizeof m);
        m.type = SHM_MSG_EAGER;
        m.len = 8;
        m.tag = r;
        uint64_t v = r;
        CHECK(ic_shm_q_push(&prod, &m, &v, sizeof v) == 1, "push refused");
        const shm_msg_t *h = ic_shm_q_peek(&cons);
        if (!h || h->tag != r) {
            bad++;
            continue;
        }
        ic_shm_q_pop(&cons, h);
        bad += ic_shm_q_peek(&cons) != NULL;
    }
    CHECK(bad == 0, "%d mistakes with one-cell messages over 3 laps", bad);
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
    prod.stream_mode = SHM_Q_STREAM_NEVER;
    test_laps();
    test_old_header();
    free(ctl);
    printf("test_shm_queue_stamp: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
