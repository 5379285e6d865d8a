/*
 * tree_reduce_scatter.c — direct reduce-scatter whose blocks are combined
 * by their owners in the canonical rank tree (any operation, even or
 * uneven blocks).
 *
 * Computes: out on member i = T(0, n-1) over block i (in[i], len[i]
 * bytes) of every member's input, where T(j, j) = member j's block and
 *     T(lo, hi) = T(lo, mid) (op) T(mid+1, hi),  mid = lo + (hi - lo) / 2,
 * the left part the left operand: the tree of mst_reduce.c (patterns.c's
 * geometric split), the same for every block and every length, so an
 * element gets the same bits here as from the MST reduce
 * (IC_REPRODUCIBLE, docs/reproducibility.md).
 * Every member sends block j of its input straight to member j, in step
 * k = 1..n-1 to me+k and from me-k, each step after the member's previous
 * one (a pairwise exchange: one message in and one out at a time).
 * Member j's block goes to slot j (scratch; slot n-1 is out).  After the
 * last receive the member combines: [lo, hi] ends in slot hi as slot mid
 * (op) slot hi, the kernel's natural order (dst = src (op) dst), so no
 * step needs IC_RED_DST_LEFT and no operation a copy-back.  Combining
 * waits for the last receive because on shared memory the receiving core
 * does the copies: combining earlier would not overlap them, and the
 * block's time stays the closed form below.
 * Preconditions: any n >= 1, any operation; in place (the input and out
 * in one buffer) is allowed: when out covers input bytes that are sent,
 * slot n-1 is scratch too and the result is copied to out at the end.
 * Cost: (n-1)*alpha + (n-1)*B*(beta + gamma) (+ B*delta, the own block's
 *       copy) for blocks of B bytes, the ring's; uneven blocks: the
 *       recurrence of select/cost_direct.c.  Scratch: (n-1)*B bytes.
 * Source: [vdG-CCTP]'s reduce-scatter with the direct exchange of
 *       [MTR94] (complete exchange, "direct") in place of the bucket
 *       ring, and MSTREDUCE's combining order done locally.
 *
 * n = 5, member 2's block (xj = member j's block 2; s0 s1 s2 s3 scratch,
 * out = slot 4):
 *
 *   T(0,4) = T(0,2) (op) T(3,4)      copy x2->s2; steps k = 1..4 receive
 *   T(0,2) = T(0,1) (op) x2          x1->s1, x0->s0, x4->out, x3->s3; then
 *   T(0,1) = x0 (op) x1              s1 = s0 (op) s1;  s2 = s1 (op) s2;
 *   T(3,4) = x3 (op) x4              out = s3 (op) out; out = s2 (op) out
 */
#include "algo/blocks.h"

void ic_blk_combine_tree(ic_plan_t *pl, const ic_loc_t *slot, int lo, int hi, size_t bytes,
                         long after)
{
    if (lo >= hi)
        return;
    int mid = lo + (hi - lo) / 2;
    ic_blk_combine_tree(pl, slot, lo, mid, bytes, after);
    ic_blk_combine_tree(pl, slot, mid + 1, hi, bytes, after);
    long r = ic_plan_reduce(pl, slot[mid], slot[hi], bytes, 0);
    if (r >= 0 && after >= 0)
        ic_plan_add_dep(pl, r, after);
}

/* True when out's b bytes overlap a block of the input that is sent (in
 * place): out then receives only at the end. */
static bool out_overlaps_sent(const ic_layout_t *in, const size_t *len, int n, int me,
                              ic_loc_t out, size_t b)
{
    for (int j = 0; j < n; j++) {
        ic_loc_t x = ic_layout_at(in, j);
        if (j != me && len[j] > 0 && x.buf == out.buf && x.off < out.off + b &&
            out.off < x.off + len[j])
            return true;
    }
    return false;
}

/* Step k's message waits for the member's messages of step k-1. */
static void after_prev(ic_plan_t *pl, long step, long prev_send, long prev_recv)
{
    if (step < 0)
        return;
    if (prev_send >= 0)
        ic_plan_add_dep(pl, step, prev_send);
    if (prev_recv >= 0)
        ic_plan_add_dep(pl, step, prev_recv);
}

void ic_blk_tree_reduce_scatter(ic_plan_t *pl, const ic_view_t *v, const size_t *len,
                                ic_layout_t in, ic_loc_t out)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0)
        return;
    if (n == 1) {
        ic_plan_copy(pl, ic_layout_at(&in, 0), out, len[0]);
        return;
    }
    size_t b = len[me];
    ic_loc_t *slot = ic_plan_tmp(pl, sizeof(ic_loc_t) * (size_t)n);
    if (!slot)
        return;
    bool late_out = b > 0 && out_overlaps_sent(&in, len, n, me, out, b);
    size_t base = b ? ic_plan_scratch(pl, b * (size_t)(n - 1 + late_out)) : 0;
    for (int j = 0; j < n - 1 + late_out; j++)
        slot[j] = ic_loc(IC_BUF_SCRATCH, base + (size_t)j * b);
    if (!late_out)
        slot[n - 1] = out;
    /* The own block to its slot: into scratch before out receives (out
     * may hold it, in place); into out (member n-1) after the last send
     * reads the input bytes out may cover. */
    ic_loc_t mine = ic_layout_at(&in, me);
    bool copy_mine = b > 0 && (mine.buf != slot[me].buf || mine.off != slot[me].off);
    if (copy_mine && me < n - 1)
        ic_plan_copy(pl, mine, slot[me], b);
    long prev_send = -1, prev_recv = -1;
    for (int k = 1; k < n; k++) {
        int to = ic_mod(me + k, n), from = ic_mod(me - k, n);
        long s = -1, r = -1;
        if (len[to] > 0) {
            s = ic_plan_send(pl, ic_view_rank(v, to), 0, ic_layout_at(&in, to), len[to]);
            after_prev(pl, s, prev_send, prev_recv);
        }
        if (b > 0) {
            r = ic_plan_recv(pl, ic_view_rank(v, from), 0, slot[from], b);
            after_prev(pl, r, prev_send, prev_recv);
        }
        prev_send = s >= 0 ? s : prev_send;
        prev_recv = r >= 0 ? r : prev_recv;
    }
    if (b == 0)
        return;
    if (copy_mine && me == n - 1)
        ic_plan_copy(pl, mine, slot[me], b);
    ic_blk_combine_tree(pl, slot, 0, n - 1, b, prev_recv);
    if (late_out) /* after the last send of the bytes out covers */
        ic_plan_copy(pl, slot[n - 1], out, b);
}
