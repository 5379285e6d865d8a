/*
 * pairwise_alltoall.c — all-to-all(v) by direct pairwise exchange.
 *
 * Computes: block j of member i's send layout (slen[j] bytes) reaches
 * block i of member j's receive layout.  In step k = 1..n-1 member i sends
 * to (i+k) mod n and receives from (i-k) mod n, so every member sends and
 * receives one message per step, for any n.  The own block is copied.
 * Preconditions: any n >= 1, any lengths (zero-length blocks send nothing);
 * send and receive layouts must not overlap (the collective copies the
 * input to scratch first for in place).
 * Cost: (n-1)*(alpha + b*beta) for blocks of b bytes, (+ b*delta for the
 *       own block, overlapped); the bandwidth term is optimal, the
 *       start-ups are not (the log-n algorithms come with the mesh issue).
 * Source: [MTR94] (direct complete exchange), [vdG-CCTP] (the alpha-beta model).
 *
 * n = 4, step k = 1:  0 -> 1 -> 2 -> 3 -> 0 ; k = 2: 0 <-> 2, 1 <-> 3 ;
 *        k = 3:  0 -> 3 -> 2 -> 1 -> 0.
 */
#include "algo/blocks.h"

void ic_blk_pairwise_alltoall(ic_plan_t *pl, const ic_view_t *v, ic_layout_t send,
                              const size_t *slen, ic_layout_t recv, const size_t *rlen)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0)
        return;
    ic_plan_copy(pl, ic_layout_at(&send, me), ic_layout_at(&recv, me), slen[me]);
    for (int k = 1; k < n; k++) {
        int to = ic_mod(me + k, n), from = ic_mod(me - k, n);
        if (slen[to] > 0)
            ic_plan_send(pl, ic_view_rank(v, to), 0, ic_layout_at(&send, to), slen[to]);
        if (rlen[from] > 0)
            ic_plan_recv(pl, ic_view_rank(v, from), 0, ic_layout_at(&recv, from), rlen[from]);
    }
}
