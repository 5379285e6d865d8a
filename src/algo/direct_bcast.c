/*
 * direct_bcast.c — broadcast by direct messages: the root sends the vector
 * to every other member itself.
 *
 * Computes: the root's bytes at buf reach buf on every member.  The root
 * sends to root+1, root+2, ... mod n; every other member receives once.
 * No message waits for another, so the root posts all of them at once.
 * Preconditions: any n >= 1, any root.
 * Cost: (n-1)*(alpha + N*beta) with a core per member (one-port: the
 *       root's messages go one after another; the MST's ceil(log2 n)
 *       rounds are never more and, listed first, keep the tie at n = 2
 *       and 3); with members crowded on fewer cores the MST's dependent
 *       rounds each wait for the scheduler's turns while these messages
 *       are posted in one: alpha + (n-1)*N*beta (ic_model_alpha_next), the
 *       choice for short vectors (docs/perf/oversubscribed.md, "One round
 *       for the short rooted and reducing calls").
 * Source: the linear broadcast of [vdG-CCTP] and [McKinley94] (seeds/002,
 *       seeds/001), the one-port alpha-beta model.
 *
 * n = 4, root 1:  1 -> 2, 1 -> 3, 1 -> 0, all posted at once.
 */
#include "algo/blocks.h"

void ic_blk_direct_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf,
                         size_t bytes)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0 || n < 2 || bytes == 0)
        return;
    if (me != root) {
        ic_plan_recv(pl, ic_view_rank(v, root), 0, buf, bytes);
        return;
    }
    for (int k = 1; k < n; k++)
        ic_plan_send(pl, ic_view_rank(v, ic_mod(root + k, n)), 0, buf, bytes);
}
