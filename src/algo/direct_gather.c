/*
 * direct_gather.c — gather(v) straight to the root: one message per member.
 *
 * Computes: member i's block (len[i] bytes at mine) reaches dst[i] on the
 * root.  Every member sends its block to the root, which receives each
 * straight into place (posting the receives in the order root+1, root+2,
 * ... mod n) and copies its own block.
 * Preconditions: any n >= 1, any root, any lengths (zero-length blocks send
 * nothing).  A member other than the root reads only len[me] (what MPI
 * gives a non-root of MPI_Gatherv; see direct_scatter.c).
 * Cost (one port: the root takes the messages one after the other):
 *       sum over i != root of (alpha + len[i]*beta)
 *       = (n-1)*alpha + (n-1)*b*beta for equal blocks of b bytes.
 * Source: the linear gather of [vdG-CCTP], one-port model of [McKinley94]
 * (seeds/002, seeds/001).
 *
 * n = 5, root 2:
 *   3 --(3)--> 2,  4 --(4)--> 2,  0 --(0)--> 2,  1 --(1)--> 2;
 *   2 copies its block 2 into dst[2]
 */
#include "algo/blocks.h"

void ic_blk_direct_gather(ic_plan_t *pl, const ic_view_t *v, int root, const size_t *len,
                          ic_loc_t mine, ic_layout_t dst)
{
    ic_plan_next_phase(pl);
    if (v->me < 0)
        return;
    int n = v->n, me = v->me;
    if (me != root) {
        if (len[me] > 0)
            ic_plan_send(pl, ic_view_rank(v, root), 0, mine, len[me]);
        return;
    }
    for (int k = 1; k < n; k++) {
        int i = (root + k) % n;
        if (len[i] > 0)
            ic_plan_recv(pl, ic_view_rank(v, i), 0, ic_layout_at(&dst, i), len[i]);
    }
    ic_plan_copy(pl, mine, ic_layout_at(&dst, me), len[me]);
}
