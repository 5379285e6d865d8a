/*
 * test_shm_flood.c — flow control of early messages (shm_ux.c): a sender
 * that runs ahead of its receiver is held once the receiver holds
 * SHM_FLOOD_MSGS of its messages, goes on once the receiver has taken
 * them, and a message the receiver waits for behind held ones still
 * arrives.
 *
 *   hold:   rank 0 posts N = SHM_FLOOD_MSGS + 4 rings' worth of 8-byte sends
 *           (its holds never time out here) while rank 1 only makes
 *           progress: rank 1 must raise the queue's flooded flag, hold no
 *           more than SHM_FLOOD_MSGS plus two rings of them, and rank 0
 *           must find some of its sends unfinished; then rank 1 receives
 *           all N in order (every byte checked), which lowers the flag,
 *           and rank 0's sends all complete, its holds forgotten
 *           (nflood 0).
 *   escape: rank 0 posts the same N sends on one communicator and then one
 *           more on another; rank 1 first waits for that last one, which
 *           stands behind the held sends: it must arrive (a hold lasts at
 *           most flood_hold_ns, 20 ms here), then the N in order.  With
 *           holds that never end this case hangs until the job's limit.
 *   stretch: (one process, the producer's rule alone) a raised flag holds
 *           every send; once a hold has lasted a whole stretch exactly
 *           SHM_FLOOD_MSGS sends go and the next send is held again; a
 *           lowered flag holds nothing and forgets the hold.
 */
#include "shm_harness.h" /* first: it selects the POSIX/Linux interfaces */

#include "transport/shm/shm_internal.h"

#include <sys/mman.h>

#define NMSG ((int)SHM_FLOOD_MSGS + 4 * 4096)
#define MSG 8

typedef struct {
    volatile int *flag;
} flood_arg_t;

static ic_tx_req_t req[NMSG + 1];
static char done[NMSG + 1];
static unsigned char bufs[NMSG + 1][MSG];

/* How many of rank 0's first n sends have completed (tests each once). */
static int count_done(ic_transport_t *t, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
        int fin = done[i];
        if (!fin && t->ops->test(t, &req[i], &fin) != IC_OK)
            return -1;
        done[i] = (char)fin;
        c += fin;
    }
    return c;
}

/* Rank 1: receives messages 0..n-1 of comm 1 in order, checking each. */
static int receive_all(ic_transport_t *t, int n)
{
    for (int i = 0; i < n; i++) {
        t->ops->irecv(t, 0, mkkey(1, (uint64_t)i, 0), bufs[i], MSG, &req[i]);
        if (wait_all(t, &req[i], 1, &done[i]) != IC_OK) {
            printf("  rank 1: receive %d failed: %s\n", i, ic_last_error());
            return 1;
        }
        if (pat_check(bufs[i], MSG, (uint64_t)i) >= 0) {
            printf("  rank 1: message %d differs\n", i);
            return 1;
        }
    }
    return 0;
}

static void post_sends(ic_transport_t *t)
{
    for (int i = 0; i < NMSG; i++) {
        pat_fill(bufs[i], MSG, (uint64_t)i);
        t->ops->isend(t, 1, mkkey(1, (uint64_t)i, 0), bufs[i], MSG, &req[i]);
    }
}

static int hold_rank(int rank, int size, const char *name, void *arg)
{
    volatile int *flag = ((flood_arg_t *)arg)->flag;
    ic_transport_t *t = open_rank(name, rank, size);
    shm_transport_t *st = (shm_transport_t *)(void *)t;
    int bad = 0;
    if (rank == 0) {
        st->flood_hold_ns = UINT64_MAX / 2; /* holds never time out */
        post_sends(t);
        /* Rank 1 only makes progress until its flag is up. */
        while (flag[0] == 0 && !bad)
            if (count_done(t, NMSG) < 0 || t->ops->wait(t, 0.001) != IC_OK)
                bad = 1;
        int c0 = count_done(t, NMSG);
        flag[1] = 1;
        if (wait_flag(&flag[2], 1) != 0)
            bad = 2;
        int c1 = count_done(t, NMSG);
        if (c0 < 0 || c1 < 0 || c1 >= NMSG || st->nflood != 1) {
            printf("  rank 0: %d then %d of %d sends done while held, nflood %u\n", c0, c1,
                   NMSG, st->nflood);
            bad = 3;
        }
        flag[3] = 1;
        if (wait_all(t, req, NMSG, done) != IC_OK) {
            printf("  rank 0: sends failed: %s\n", ic_last_error());
            bad = 4;
        }
        if (st->nflood != 0 || st->peers[1].flood_since_ns != 0) {
            printf("  rank 0: hold not forgotten (nflood %u)\n", st->nflood);
            bad = 5;
        }
    } else {
        const shm_peer_t *P = &st->peers[0];
        while (!P->flood_raised && !bad)
            if (t->ops->progress(t) != IC_OK)
                bad = 11;
        flag[0] = 1;
        if (wait_flag(&flag[1], 1) != 0)
            bad = 12;
        for (int k = 0; k < 1000 && !bad; k++) /* read whatever rank 0 could push */
            if (t->ops->progress(t) != IC_OK)
                bad = 13;
        uint32_t ncells = P->in.ncells, held = P->held_msgs;
        unsigned up = atomic_load(&P->in.ctl->flooded);
        if (!up || held < SHM_FLOOD_MSGS || held > SHM_FLOOD_MSGS + 2 * ncells) {
            printf("  rank 1: flag %u, %u messages held (limit %u, ring %u cells)\n", up, held,
                   SHM_FLOOD_MSGS, ncells);
            bad = 14;
        }
        flag[2] = 1;
        if (wait_flag(&flag[3], 1) != 0)
            bad = 15;
        if (!bad)
            bad = receive_all(t, NMSG) ? 16 : 0;
        if (!bad && (P->flood_raised || atomic_load(&P->in.ctl->flooded) || P->held_msgs)) {
            printf("  rank 1: flag still up or %u messages held after the receives\n",
                   P->held_msgs);
            bad = 17;
        }
    }
    t->ops->close(t);
    return bad;
}

static int escape_rank(int rank, int size, const char *name, void *arg)
{
    (void)arg;
    ic_transport_t *t = open_rank(name, rank, size);
    shm_transport_t *st = (shm_transport_t *)(void *)t;
    int bad = 0;
    static unsigned char last[MSG];
    if (rank == 0) {
        st->flood_hold_ns = 20000000u;
        post_sends(t);
        pat_fill(last, MSG, 999999);
        t->ops->isend(t, 1, mkkey(2, 0, 0), last, MSG, &req[NMSG]);
        if (wait_all(t, req, NMSG + 1, done) != IC_OK) {
            printf("  rank 0: sends failed: %s\n", ic_last_error());
            bad = 1;
        }
    } else {
        t->ops->irecv(t, 0, mkkey(2, 0, 0), last, MSG, &req[NMSG]);
        if (wait_all(t, &req[NMSG], 1, &done[NMSG]) != IC_OK ||
            pat_check(last, MSG, 999999) >= 0) {
            printf("  rank 1: the message behind the held ones: %s\n", ic_last_error());
            bad = 11;
        }
        if (!bad)
            bad = receive_all(t, NMSG) ? 12 : 0;
    }
    t->ops->close(t);
    return bad;
}

/* The producer's rule on a transport of two ranks made by hand. */
static int stretch_case(void)
{
    static shm_qctl_t ctl;
    static shm_peer_t peers[2];
    static shm_transport_t t;
    t.base.rank = 0;
    t.base.size = 2;
    t.peers = peers;
    t.flood_hold_ns = UINT64_MAX / 2;
    peers[1].out.ctl = &ctl;
    int bad = 0;
    printf("test_shm_flood: stretch\n");
    if (ic_shm_flood_holds(&t, 1)) {
        printf("FAIL: stretch: a send held with the flag down\n");
        bad++;
    }
    atomic_store(&ctl.flooded, 1u);
    for (int i = 0; i < 3; i++)
        if (!ic_shm_flood_holds(&t, 1)) {
            printf("FAIL: stretch: send %d not held with the flag up\n", i);
            bad++;
        }
    peers[1].flood_since_ns = 1; /* the hold began long ago: the stretch is over */
    t.flood_hold_ns = 1000000000u;
    int went = 0;
    while (went <= (int)SHM_FLOOD_MSGS && !ic_shm_flood_holds(&t, 1))
        went++;
    if (went != (int)SHM_FLOOD_MSGS || t.nflood != 1) {
        printf("FAIL: stretch: %d sends went after a whole stretch (want %u), nflood %u\n",
               went, SHM_FLOOD_MSGS, t.nflood);
        bad++;
    }
    atomic_store(&ctl.flooded, 0u);
    if (ic_shm_flood_holds(&t, 1) || t.nflood != 0 || peers[1].flood_since_ns != 0) {
        printf("FAIL: stretch: the lowered flag still holds (nflood %u)\n", t.nflood);
        bad++;
    }
    return bad;
}

int main(void)
{
    int bad = stretch_case();
    volatile int *flags =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (flags == MAP_FAILED)
        return 2;
    flood_arg_t arg = {flags};
    static const char *const names[] = {"hold", "escape"};
    static const shm_rank_fn fns[] = {hold_rank, escape_rank};
    int failures = run_pair_cases("test_shm_flood", 2, names, fns, &arg, flags);
    return failures || bad ? 1 : 0;
}
