/*
 * dr_alltoall.c — all-to-all by dimensional rings on the logical mesh
 * m0 x m1 x ... x m(d-1) of the communicator (row-major, mesh.h).
 *
 * Computes: block j (b bytes) of rank i's send layout reaches block i of
 * rank j's receive layout.  One stage per dimension, k = 0, 1, ...:
 * before stage k a rank x holds the p blocks (source s, destination t)
 * with s agreeing with x in the coordinates >= k and t agreeing with x in
 * the coordinates < k.  In stage k, x exchanges with every other member y
 * of its dimension-k ring, in pairwise order (step u: to x_k + u, from
 * x_k - u), the combined p/m_k blocks whose destination has coordinate k
 * equal to y_k; afterwards destinations agree with x in the coordinates
 * <= k.  After the last stage every block is at its destination.
 * A rank indexes the blocks it holds before stage k by the mesh rank of
 * (s_0 .. s_(k-1), t_k .. t_(d-1)): index t before the first stage, s
 * after the last, and a message carries its blocks in increasing index on
 * both sides, so sender and receiver agree on its layout without
 * exchanging sizes.  Blocks are packed into scratch (COPY) where they do
 * not lie back to back: the first stage sends straight from the send
 * buffer, the last stage receives straight into the receive buffer where
 * the blocks are contiguous there (always on a line, where this is
 * pairwise exchange), else through scratch and one rearranging copy.
 * Preconditions: the mesh has p ranks (dimensions of 1 are skipped); every
 * block has the same length b, because ranks forward blocks whose lengths
 * only their sources know (no v-form without a size exchange); send and
 * receive layouts must not overlap.
 * Cost: sum over dimensions k of (m_k - 1)*(alpha + (p/m_k)*b*beta),
 *       (+ up to 2*p*b*delta per stage for packing and rearranging, priced
 *       at delta by the engine).  Start-ups sum(m_k - 1) instead of p-1,
 *       bytes sum(m_k - 1)*p/m_k*b instead of (p-1)*b: the middle ground
 *       between pairwise exchange (line {p}) and Bruck (all m_k = 2).
 * Source: [Watts94] section 13 (all-to-all scatter by dimensional rings: columns,
 *       rearrange, rows; T = sum (m_i - 1)(alpha + n/(2p)(beta + delta))),
 *       section 6.1 (dimensional rings) and 5.2 (PFR: the prime-factor mesh
 *       gives the generalised binary exchange).
 *
 * mesh 2 x 3 (p = 6), rank = 3*c0 + c1:      0 1 2
 *                                             3 4 5
 *   stage 0 (rings {0,3} {1,4} {2,5}):  0 -> 3 carries 0's blocks for
 *            3, 4, 5 (3b);  3 -> 0 carries 3's blocks for 0, 1, 2
 *   stage 1 (rings {0,1,2} {3,4,5}):    0 -> 1 carries the blocks for 1
 *            from 0 and 3 (2b), then 0 -> 2 those for 2 from 0 and 3
 */
#include "algo/builders_alltoall.h"

#include <string.h>

/* Index of the q-th block (in increasing index) whose coordinate k is c,
 * where dimension k has m members at stride st. */
static int block_index(int m, int st, int c, int q)
{
    return (q / st) * st * m + c * st + q % st;
}

void ic_blk_dr_alltoall(ic_plan_t *pl, const ic_mesh_t *mesh, int rank, ic_layout_t send,
                        ic_layout_t recv, size_t b)
{
    ic_plan_next_phase(pl);
    int p = (int)ic_mesh_size(mesh);
    /* where[i]: where block index i is now; next: after this stage. */
    ic_loc_t *where = ic_plan_tmp(pl, sizeof(ic_loc_t) * (size_t)p * 4);
    if (!where)
        return;
    ic_loc_t *next = where + p, *src = where + 2 * p, *dst = where + 3 * p;
    for (int i = 0; i < p; i++)
        where[i] = ic_layout_at(&send, i);
    int last = -1;
    for (int k = 0; k < mesh->d; k++)
        if (mesh->dims[k] > 1)
            last = k;
    for (int k = 0; b > 0 && k <= last; k++) {
        int m = mesh->dims[k];
        if (m == 1)
            continue;
        int st = ic_mesh_stride(mesh, k), cnt = p / m;
        ic_view_t v = ic_mesh_dim_view(mesh, rank, k);
        size_t bytes = (size_t)cnt * b;
        memcpy(next, where, sizeof(ic_loc_t) * (size_t)p);
        for (int u = 1; u < m; u++) {
            int to = ic_mod(v.me + u, m), from = ic_mod(v.me - u, m);
            for (int q = 0; q < cnt; q++)
                src[q] = where[block_index(m, st, to, q)];
            ic_loc_t out = src[0];
            if (!ic_locs_contiguous(src, cnt, b)) {
                out = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
                for (int q = 0; q < cnt; q++)
                    dst[q] = ic_loc_add(out, (size_t)q * b);
                ic_copy_runs(pl, src, dst, cnt, b);
            }
            ic_plan_send(pl, ic_view_rank(&v, to), (uint32_t)k, out, bytes);
            /* In the last stage the blocks are final: receive them in
             * place where they are contiguous there. */
            for (int q = 0; q < cnt; q++)
                dst[q] = ic_layout_at(&recv, block_index(m, st, from, q));
            ic_loc_t in = dst[0];
            if (k != last || !ic_locs_contiguous(dst, cnt, b))
                in = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
            ic_plan_recv(pl, ic_view_rank(&v, from), (uint32_t)k, in, bytes);
            for (int q = 0; q < cnt; q++)
                next[block_index(m, st, from, q)] = ic_loc_add(in, (size_t)q * b);
        }
        memcpy(where, next, sizeof(ic_loc_t) * (size_t)p);
    }
    /* Blocks not received in place (the own block among them). */
    for (int i = 0; i < p; i++)
        dst[i] = ic_layout_at(&recv, i);
    ic_copy_runs(pl, where, dst, p, b);
}
