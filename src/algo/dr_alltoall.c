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
 * V-form (ic_blk_dr_alltoallv, alltoallv): ranks forward blocks whose
 * lengths only their sources and destinations know, so a size exchange
 * runs first: these same stages on the send counts (one size_t per
 * block), every step's counts kept in a record (ic_fwd_lens_t); the data
 * stages carry every block at its recorded length and leave out the
 * messages of no bytes.
 * Preconditions: the mesh has p ranks (dimensions of 1 are skipped);
 * all-to-all: every block has the same length b; alltoallv: the record of
 * this rank's size exchange; send and receive layouts must not overlap.
 * Cost: sum over dimensions k of (m_k - 1)*(alpha + (p/m_k)*b*beta),
 *       (+ up to 2*p*b*delta per stage for packing and rearranging, priced
 *       at delta by the engine).  V-form: sum_k (m_k - 1)*(alpha +
 *       (p/m_k)*8*beta) for the size exchange plus the stages with the
 *       actual bytes of each message (priced with this rank's average
 *       block).  Start-ups sum(m_k - 1) instead of p-1,
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

/* The stages, for every form (ic_fwd_lens_t in builders_alltoall.h).
 * Returns false when the lengths that arrive are not the receive lengths
 * expected (f->rlen): the ranks' counts disagree. */
static bool dr_stages(ic_plan_t *pl, const ic_mesh_t *mesh, int rank, ic_layout_t send,
                      ic_layout_t recv, size_t b, const ic_fwd_lens_t *f)
{
    ic_plan_next_phase(pl);
    int p = (int)ic_mesh_size(mesh);
    const size_t *len0 = f ? f->len0 : NULL, *rec = f ? f->rec : NULL;
    bool record = f && f->record;
    /* where[i], len[i]: where block index i is now and its length; next,
     * nlen: after this stage. */
    ic_loc_t *where = ic_plan_tmp(pl, sizeof(ic_loc_t) * (size_t)p * 4);
    size_t *len = ic_plan_sizes(pl, (size_t)p * 4);
    if (!where || !len)
        return true;
    ic_loc_t *next = where + p, *src = where + 2 * p, *dst = where + 3 * p;
    size_t *nlen = len + p, *plen = len + 2 * p, *qlen = len + 3 * p, roff = 0, ri = 0;
    for (int i = 0; i < p; i++) {
        where[i] = ic_layout_at(&send, i);
        len[i] = len0 ? len0[i] : b;
    }
    int last = -1;
    for (int k = 0; k < mesh->d; k++)
        if (mesh->dims[k] > 1)
            last = k;
    for (int k = 0; (len0 || b > 0) && k <= last; k++) {
        int m = mesh->dims[k];
        if (m == 1)
            continue;
        int st = ic_mesh_stride(mesh, k), cnt = p / m;
        ic_view_t v = ic_mesh_dim_view(mesh, rank, k);
        memcpy(next, where, sizeof(ic_loc_t) * (size_t)p);
        memcpy(nlen, len, sizeof(size_t) * (size_t)p);
        for (int u = 1; u < m; u++) {
            int to = ic_mod(v.me + u, m), from = ic_mod(v.me - u, m);
            size_t bytes = 0, inbytes = 0;
            for (int q = 0; q < cnt; q++) {
                int i = block_index(m, st, to, q);
                src[q] = where[i];
                bytes += plen[q] = len[i];
            }
            ic_loc_t out = src[0];
            if (bytes > 0 && !ic_locs_contiguous_v(src, plen, cnt)) {
                out = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
                ic_loc_t at = out;
                for (int q = 0; q < cnt; q++) {
                    dst[q] = at;
                    at = ic_loc_add(at, plen[q]);
                }
                ic_copy_runs_v(pl, src, dst, plen, cnt);
            }
            /* A message of no bytes is left out: both ends know its length. */
            if (bytes > 0)
                ic_plan_send(pl, ic_view_rank(&v, to), (uint32_t)k, out, bytes);
            for (int q = 0; q < cnt; q++) {
                dst[q] = ic_layout_at(&recv, block_index(m, st, from, q));
                inbytes += qlen[q] = rec ? rec[ri++] : b;
            }
            /* In the last stage the blocks are final: receive them in
             * place where they are contiguous there (and of the lengths
             * expected there). */
            ic_loc_t in = dst[0];
            bool final_ok = k == last && ic_locs_contiguous_v(dst, qlen, cnt);
            for (int q = 0; final_ok && f && f->rlen && q < cnt; q++)
                final_ok = qlen[q] == f->rlen[block_index(m, st, from, q)];
            if (record) {
                in = ic_loc_add(recv.base, roff);
                roff += inbytes;
            } else if (!final_ok && inbytes > 0) {
                in = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, inbytes));
            }
            if (inbytes > 0)
                ic_plan_recv(pl, ic_view_rank(&v, from), (uint32_t)k, in, inbytes);
            for (int q = 0; q < cnt; q++) {
                int i = block_index(m, st, from, q);
                next[i] = in;
                nlen[i] = qlen[q];
                in = ic_loc_add(in, qlen[q]);
            }
        }
        memcpy(where, next, sizeof(ic_loc_t) * (size_t)p);
        memcpy(len, nlen, sizeof(size_t) * (size_t)p);
    }
    if (record)
        return true;
    for (int i = 0; f && f->rlen && i < p; i++)
        if (i != rank && len[i] != f->rlen[i])
            return false;
    /* Blocks not received in place (the own block among them). */
    for (int i = 0; i < p; i++)
        dst[i] = ic_layout_at(&recv, i);
    ic_copy_runs_v(pl, where, dst, len, p);
    return true;
}

void ic_blk_dr_alltoall(ic_plan_t *pl, const ic_mesh_t *mesh, int rank, ic_layout_t send,
                        ic_layout_t recv, size_t b)
{
    dr_stages(pl, mesh, rank, send, recv, b, NULL);
}

bool ic_blk_dr_alltoallv(ic_plan_t *pl, const ic_mesh_t *mesh, int rank, ic_layout_t send,
                         ic_layout_t recv, const ic_fwd_lens_t *f)
{
    return dr_stages(pl, mesh, rank, send, recv, f->record ? sizeof(size_t) : 0, f);
}
