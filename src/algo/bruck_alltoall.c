/*
 * bruck_alltoall.c — short-vector all-to-all in ceil(log2 n) rounds for
 * any n (Bruck's index algorithm).
 *
 * Computes: block j (b bytes) of member i's send layout reaches block i of
 * member j's receive layout.  Member i names the block for member
 * (i + r) mod n by its relative index r.  In round k (dist = 2^k) every
 * member sends the blocks whose relative index has bit k set to
 * (i + dist) mod n and receives the same indices from (i - dist) mod n: a
 * block with relative index r moves by the bits of r, one round per set
 * bit, and arrives at its destination after the round of its highest bit.
 * The classic local rotation before the rounds and the inverse rotation
 * after them are folded into the packing: a block is read from the send
 * layout when it first moves and copied to the receive layout after the
 * last round, so a block is copied at most (set bits + 1) times.  A
 * message whose pieces already lie back to back is sent without packing.
 * V-form (ic_blk_bruck_alltoallv, alltoallv): members forward blocks whose
 * lengths only their sources and destinations know, so a size exchange
 * runs first: these same rounds on the send counts (one size_t per block),
 * each round's counts kept in a record (ic_fwd_lens_t); the data rounds
 * then carry every block at its recorded length, back to back in the same
 * order, and leave out the messages of no bytes (both ends know them).
 * Preconditions: any n >= 1; all-to-all: every block has the same length
 * b; alltoallv: the record of this member's size exchange; send and
 * receive layouts must not overlap.
 * Cost: sum over rounds k < ceil(log2 n) of (alpha + n_k*b*beta), with
 *       n_k = #{0 < r < n : bit k of r set} (n/2 for n = 2^d:
 *       log2(n)*(alpha + n/2*b*beta)), (+ at most b*n*(ceil(log2 n)+1)*delta
 *       of packing and unpacking copies, which the engine prices at delta).
 *       V-form: sum_k (alpha + n_k*8*beta) for the size exchange, plus
 *       sum_k (alpha + B_k*beta), B_k the bytes of the n_k blocks sent in
 *       round k (the catalog prices them as this rank's average block).
 *       Fewest start-ups of any all-to-all; each block crosses the network
 *       up to ceil(log2 n) times, so it wins for short vectors only.
 * Source: [MTR94] (standard/binary exchange of the complete-exchange survey,
 *       here in its any-n index form), [Watts94] section 13 (log2(p) steps plus
 *       data rearrangement).
 *
 * n = 5, relative indices r = 1..4 on every member i:
 *   round 0 (dist 1): i -> i+1 sends r = 1, 3        (bit 0)
 *   round 1 (dist 2): i -> i+2 sends r = 2, 3        (bit 1)
 *   round 2 (dist 4): i -> i+4 sends r = 4           (bit 2)
 *   block 0 -> 3 (r = 3 = 011b):  0 --round 0--> 1 --round 1--> 3
 *   block 2 -> 1 (r = 4 = 100b):  2 --round 2--> 1 (mod 5)
 */
#include "algo/builders_alltoall.h"

bool ic_locs_contiguous(const ic_loc_t *l, int n, size_t b)
{
    for (int i = 1; i < n; i++)
        if (l[i].buf != l[0].buf || l[i].off != l[i - 1].off + b)
            return false;
    return true;
}

void ic_copy_runs(ic_plan_t *pl, const ic_loc_t *src, const ic_loc_t *dst, int n, size_t b)
{
    int i = 0;
    while (i < n) {
        if (src[i].buf == dst[i].buf && src[i].off == dst[i].off) {
            i++;
            continue;
        }
        int j = i + 1;
        while (j < n && src[j].buf == src[i].buf && src[j].off == src[j - 1].off + b &&
               dst[j].buf == dst[i].buf && dst[j].off == dst[j - 1].off + b)
            j++;
        ic_plan_copy(pl, src[i], dst[i], (size_t)(j - i) * b);
        i = j;
    }
}

bool ic_locs_contiguous_v(const ic_loc_t *l, const size_t *len, int n)
{
    for (int i = 1; i < n; i++)
        if (l[i].buf != l[0].buf || l[i].off != l[i - 1].off + len[i - 1])
            return false;
    return true;
}

void ic_copy_runs_v(ic_plan_t *pl, const ic_loc_t *src, const ic_loc_t *dst, const size_t *len,
                    int n)
{
    int i = 0;
    while (i < n) {
        if (src[i].buf == dst[i].buf && src[i].off == dst[i].off) {
            i++;
            continue;
        }
        size_t bytes = len[i];
        int j = i + 1;
        while (j < n && src[j].buf == src[i].buf && src[j].off == src[j - 1].off + len[j - 1] &&
               dst[j].buf == dst[i].buf && dst[j].off == dst[j - 1].off + len[j - 1])
            bytes += len[j++];
        ic_plan_copy(pl, src[i], dst[i], bytes);
        i = j;
    }
}

/* The rounds, for every form (ic_fwd_lens_t in builders_alltoall.h).
 * Returns false when the lengths that arrive are not the receive lengths
 * expected (f->rlen): the ranks' counts disagree. */
static bool bruck_rounds(ic_plan_t *pl, const ic_view_t *v, ic_layout_t send, ic_layout_t recv,
                         size_t b, const ic_fwd_lens_t *f)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0)
        return true;
    const size_t *len0 = f ? f->len0 : NULL, *rec = f ? f->rec : NULL;
    bool record = f && f->record;
    if (!record)
        ic_plan_copy(pl, ic_layout_at(&send, me), ic_layout_at(&recv, me), len0 ? len0[me] : b);
    if (n == 1 || (!len0 && b == 0))
        return true;
    /* where[r], len[r]: where this member holds the block of relative
     * index r now, and its length. */
    ic_loc_t *where = ic_plan_tmp(pl, sizeof(ic_loc_t) * (size_t)n * 3);
    size_t *len = ic_plan_sizes(pl, (size_t)n * 3);
    if (!where || !len)
        return true;
    ic_loc_t *src = where + n, *dst = where + 2 * n;
    size_t *plen = len + n, *qlen = len + 2 * n, roff = 0, ri = 0;
    for (int r = 1; r < n; r++) {
        where[r] = ic_layout_at(&send, ic_mod(me + r, n));
        len[r] = len0 ? len0[ic_mod(me + r, n)] : b;
    }
    uint32_t tag = 0;
    for (int dist = 1; dist < n; dist *= 2, tag++) {
        /* Pieces in decreasing r: the blocks that end in a round then lie
         * in receive order and leave in one copy. */
        int cnt = 0;
        size_t bytes = 0, inbytes = 0;
        for (int r = n - 1; r > 0; r--)
            if (r & dist) {
                src[cnt] = where[r];
                bytes += plen[cnt] = len[r];
                inbytes += qlen[cnt] = rec ? rec[ri + (size_t)cnt] : b;
                cnt++;
            }
        ri += (size_t)cnt;
        ic_loc_t out = src[0];
        if (bytes > 0 && !ic_locs_contiguous_v(src, plen, cnt)) {
            out = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
            ic_loc_t at = out;
            for (int c = 0; c < cnt; c++) {
                dst[c] = at;
                at = ic_loc_add(at, plen[c]);
            }
            ic_copy_runs_v(pl, src, dst, plen, cnt);
        }
        ic_loc_t in = ic_loc_add(recv.base, roff);
        if (record)
            roff += inbytes;
        else if (inbytes > 0)
            in = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, inbytes));
        /* A message of no bytes is left out: both ends know its length. */
        if (bytes > 0)
            ic_plan_send(pl, ic_view_rank(v, ic_mod(me + dist, n)), tag, out, bytes);
        if (inbytes > 0)
            ic_plan_recv(pl, ic_view_rank(v, ic_mod(me - dist, n)), tag, in, inbytes);
        for (int r = n - 1, c = 0; r > 0; r--)
            if (r & dist) {
                where[r] = in;
                len[r] = qlen[c];
                in = ic_loc_add(in, qlen[c++]);
            }
    }
    if (record)
        return true;
    /* The block of relative index r came from member me - r. */
    for (int r = n - 1, c = 0; r > 0; r--, c++) {
        int from = ic_mod(me - r, n);
        if (f && f->rlen && len[r] != f->rlen[from])
            return false;
        src[c] = where[r];
        dst[c] = ic_layout_at(&recv, from);
        plen[c] = len[r];
    }
    ic_copy_runs_v(pl, src, dst, plen, n - 1);
    return true;
}

void ic_blk_bruck_alltoall(ic_plan_t *pl, const ic_view_t *v, ic_layout_t send,
                           ic_layout_t recv, size_t b)
{
    bruck_rounds(pl, v, send, recv, b, NULL);
}

bool ic_blk_bruck_alltoallv(ic_plan_t *pl, const ic_view_t *v, ic_layout_t send,
                            ic_layout_t recv, const ic_fwd_lens_t *f)
{
    return bruck_rounds(pl, v, send, recv, f->record ? sizeof(size_t) : 0, f);
}
