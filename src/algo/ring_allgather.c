/*
 * ring_allgather.c — bucket (ring) allgather / allgatherv ("collect").
 *
 * Computes: member i's block (len[i] bytes, at mine on member i) reaches
 * buf[i] on every member.  In step k = 0..n-2 member i sends block
 * (i-k) mod n to its right neighbour and receives block (i-k-1) mod n from
 * its left neighbour; step 0 sends straight from mine, so the copy of the
 * own block into place overlaps the communication.
 * Preconditions: any n >= 1; any lengths (zero-length blocks send nothing).
 * Cost: (n-1)*alpha + (n-1)/n * N*beta for N bytes split evenly; in
 *       general sum over steps of (alpha + max over members of the block
 *       it sends in that step) — the ring advances at the pace of its
 *       largest block.
 * Source: [vdG-CCTP] (bucket allgather), [Watts94] section 6 (rings).
 *
 * n = 5, step 0 (arrows: who sends which block):
 *
 *   0 --b0--> 1 --b1--> 2 --b2--> 3 --b3--> 4 --b4--> (0)
 *   step 1: 0 sends b4, 1 sends b0, ...; after 4 steps all hold b0..b4.
 */
#include "algo/blocks.h"

void ic_blk_ring_allgather(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                           ic_layout_t buf, ic_loc_t mine)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0)
        return;
    int right = ic_view_rank(v, ic_ring_right(me, n));
    int left = ic_view_rank(v, ic_ring_left(me, n));
    for (int k = 0; k < n - 1; k++) {
        int sb = ic_mod(me - k, n), rb = ic_mod(me - k - 1, n);
        if (len[sb] > 0)
            ic_plan_send(pl, right, (uint32_t)k,
                         k == 0 ? mine : ic_layout_at(&buf, sb), len[sb]);
        if (len[rb] > 0)
            ic_plan_recv(pl, left, (uint32_t)k, ic_layout_at(&buf, rb), len[rb]);
    }
    ic_plan_copy(pl, mine, ic_layout_at(&buf, me), len[me]);
}
