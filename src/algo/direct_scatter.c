/*
 * direct_scatter.c — scatter(v) straight from the root: one message per
 * member.
 *
 * Computes: block i of the root's src layout (len[i] bytes) reaches dst on
 * member i.  The root sends every other member its block directly, in the
 * order root+1, root+2, ... (mod n), and copies its own block last; a
 * member receives its one block into place.
 * Preconditions: any n >= 1, any root, any lengths (zero-length blocks send
 * nothing).  A member other than the root reads only len[me]: it needs
 * neither the other members' lengths nor the root's layout, which is what
 * MPI gives a non-root of MPI_Scatterv (the drop-in uses this: no
 * broadcast of the root's counts first, docs/dropin.md).
 * Cost (one port: the root's sends go out one after the other):
 *       sum over i != root of (alpha + len[i]*beta)
 *       = (n-1)*alpha + (n-1)*b*beta for equal blocks of b bytes:
 *       (n-1) start-ups where the MST scatter has ceil(log2 n), the same
 *       bytes.  On shared memory with single copy each member pulls its
 *       block itself, in parallel with the others.
 * Source: the linear ("flat tree") scatter of [vdG-CCTP], the one-port
 * model of [McKinley94] (seeds/002, seeds/001).
 *
 * n = 5, root 2:
 *   2 --(3)--> 3
 *   2 --(4)--> 4
 *   2 --(0)--> 0
 *   2 --(1)--> 1     2 copies block 2 to its own dst
 */
#include "algo/blocks.h"

void ic_blk_direct_scatter(ic_plan_t *pl, const ic_view_t *v, int root, const size_t *len,
                           ic_layout_t src, ic_loc_t dst)
{
    ic_plan_next_phase(pl);
    if (v->me < 0)
        return;
    int n = v->n, me = v->me;
    if (me != root) {
        if (len[me] > 0)
            ic_plan_recv(pl, ic_view_rank(v, root), 0, dst, len[me]);
        return;
    }
    for (int k = 1; k < n; k++) {
        int i = (root + k) % n;
        if (len[i] > 0)
            ic_plan_send(pl, ic_view_rank(v, i), 0, ic_layout_at(&src, i), len[i]);
    }
    if (dst.buf != IC_BUF_NONE)
        ic_plan_copy(pl, ic_layout_at(&src, me), dst, len[me]);
}
