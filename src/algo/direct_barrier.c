/*
 * direct_barrier.c — the barrier by direct exchange: every member tells
 * every other that it has started.
 *
 * Computes: no member completes before every member has started.  Member
 * i sends an empty message to every other member, in pairwise order
 * ((i + k) mod n for k = 1..n-1), and completes once it has received one
 * from each; no message waits for another, so a member posts all of them
 * at once and the barrier is one round.
 * Preconditions: any n >= 1.
 * Cost: (n-1)*alpha with a core per member (one-port: the messages go one
 *       after another; dissemination's ceil(log2 n)*alpha is never more,
 *       and, listed first, keeps the tie at n = 2 and 3); with members
 *       crowded on fewer cores dissemination's ceil(log2 n) dependent
 *       rounds each wait for the scheduler's turns while these n-1
 *       messages are posted in one: alpha (ic_model_alpha_next; measured:
 *       docs/perf/oversubscribed.md, "Barrier").
 * Source: [MTR94] (barrier synchronisation, the direct scheme against
 *       dissemination); [vdG-CCTP] (the alpha-beta model).
 *
 * n = 4, member 0: sends to 1, 2, 3 and receives from 3, 2, 1, all at once.
 */
#include "algo/blocks.h"

void ic_blk_direct_barrier(ic_plan_t *pl, const ic_view_t *v)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0)
        return;
    for (int k = 1; k < n; k++) {
        ic_plan_send(pl, ic_view_rank(v, ic_mod(me + k, n)), 0, ic_loc(IC_BUF_NONE, 0), 0);
        ic_plan_recv(pl, ic_view_rank(v, ic_mod(me - k, n)), 0, ic_loc(IC_BUF_NONE, 0), 0);
    }
}
