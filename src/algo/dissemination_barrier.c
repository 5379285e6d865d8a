/*
 * dissemination_barrier.c — the dissemination barrier.
 *
 * Computes: no member completes before every member has started.  In round
 * r = 0..ceil(log2 n)-1 member i sends an empty message to (i + 2^r) mod n
 * and receives one from (i - 2^r) mod n; each round waits for the previous
 * round's receive, so after the last round every member has heard,
 * directly or through others, from all n members.
 * Preconditions: any n >= 1.
 * Cost: ceil(log2 n) * alpha.
 * Source: [MTR94] (barrier synchronisation); the dissemination pattern is the
 *       log-step exchange of [MTR94]'s reduction and scan discussion.
 *
 * n = 5:  round 0: i -> i+1 ; round 1: i -> i+2 ; round 2: i -> i+4 (mod 5)
 */
#include "algo/blocks.h"

void ic_blk_dissemination_barrier(ic_plan_t *pl, const ic_view_t *v)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0)
        return;
    long prev_recv = -1;
    for (int r = 0, d = 1; d < n; r++, d *= 2) {
        long s = ic_plan_send(pl, ic_view_rank(v, ic_mod(me + d, n)), (uint32_t)r,
                              ic_loc(IC_BUF_NONE, 0), 0);
        ic_plan_add_dep(pl, s, prev_recv);
        prev_recv = ic_plan_recv(pl, ic_view_rank(v, ic_mod(me - d, n)), (uint32_t)r,
                                 ic_loc(IC_BUF_NONE, 0), 0);
    }
}
