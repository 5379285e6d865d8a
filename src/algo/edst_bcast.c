/*
 * edst_bcast.c — the broadcast on d edge-disjoint spanning binomial trees
 * of Johnsson and Ho (the n-ESBT; the survey's "EDST"), for hypercubes
 * whose nodes drive several links at once.
 *
 * Computes: the root's count elements at buf reach buf on every member.
 * The vector is cut into d segments of whole elements (the first
 * count mod d one element longer); segment j goes down spanning tree j and
 * every member receives it straight at its offset, so the message is
 * reassembled in place with no copy.  Empty segments (count < d) send
 * nothing, on every member alike.
 * Preconditions: n = 2^d members; member i is hypercube node i, addresses
 * relative to the root by XOR (x = i XOR root).
 * Tree j: rotate x right by j bits (y = rot_j(x), bit j becomes bit 0).
 * In these coordinates the root sends to y = 1; an odd y hands
 * y | 2^m for every m above its highest bit (a binomial tree over the odd
 * nodes, rooted at 1) and, last, the even y XOR 1 (a leaf).  The even
 * nodes are thus reached across dimension j from their odd neighbours.
 * Why the trees are edge-disjoint (directed): tree j's edges into even
 * nodes clear bit j, and no other tree clears bit j.  Its other edges set
 * a bit m of a node that has bit j set, m after every set bit of the node
 * counting cyclically up from j; if trees j and j' both set bit m of a,
 * a holds bits j and j', so m comes after j' counting from j and after j
 * counting from j', which no cyclic order allows.  The root's edges
 * 0 -> 2^j are the only edges out of 0 and belong to tree j alone.  Every
 * message crosses one link, so no directed link ever carries two.
 * Depth: odd y is reached in step w(y), even y in step w(y) + 2 (w: the
 * number of set bits), so d + 1 steps for d >= 2 (1 for d = 1).
 * Cost, s = ceil(count/d) elements of the segment (n_s = s * size bytes):
 *   all-port: (d + 1)(alpha + n_s*beta) for d >= 2, alpha + n*beta for
 *             d = 1: about (1 + 1/d) n*beta for long vectors, against
 *             d n*beta for the binomial tree;
 *   k-port:   a node's sends (and receives) go k at a time; the root has
 *             d sends, every member d receives, so the trees delay each
 *             other; select/cost_edst.c schedules the plans' messages the
 *             way the simulator does (earliest ready first) and takes the
 *             last arrival;
 *   one-port: k = 1, the same schedule priced: the root alone sends d
 *             segments one after the other and the deepest nodes take d
 *             receives, so it is dearer than mst for short and than
 *             scatter_allgather for long vectors, and the selector keeps
 *             them on one-port machines.
 * Source: [MTR94] (seeds/001_..., "Broadcast Trees in Hypercubes": "n
 *       edge-disjoint spanning trees (EDST) ... the message is partitioned
 *       into n segments ... does not incur channel contention", figure
 *       6(c)), after Johnsson and Ho's n-ESBT.
 *
 * d = 3, root 000 (segment j on tree j; edges written from -> to):
 *   tree 0:  000->001;  001->011, 101;  011->111, 010;  101->100;  111->110
 *   tree 1:  000->010;  010->110, 011;  110->111, 100;  011->001;  111->101
 *   tree 2:  000->100;  100->101, 110;  101->111, 001;  110->010;  111->011
 *   step 1: the root's three sends;
 *   step 2: 001->011,101   010->110,011   100->101,110;
 *   step 3: 011->111,010   101->100       (tree 0)
 *           110->111,100   011->001       (tree 1)
 *           101->111,001   110->010       (tree 2)
 *           (111 takes three segments at once: all-port, or k >= 3);
 *   step 4: 111->110 (tree 0), 111->101 (tree 1), 111->011 (tree 2).
 */
#include "algo/blocks.h"

static unsigned rot_right(int d, unsigned x, int j)
{
    unsigned all = (1u << d) - 1;
    return j == 0 ? x : ((x >> j) | (x << (d - j))) & all;
}

static unsigned rot_left(int d, unsigned y, int j)
{
    return rot_right(d, y, (d - j) % d);
}

static int top_bit(unsigned x)
{
    int b = -1;
    for (; x; x >>= 1)
        b++;
    return b;
}

int ic_edst_parent(int d, int j, unsigned x)
{
    if (x == 0)
        return -1;
    unsigned y = rot_right(d, x, j);
    if (y == 1)
        return 0;
    unsigned py = (y & 1u) ? y & ~(1u << top_bit(y)) : y | 1u;
    return (int)rot_left(d, py, j);
}

int ic_edst_children(int d, int j, unsigned x, unsigned *out)
{
    int k = 0;
    if (d == 0)
        return 0;
    if (x == 0) {
        out[k++] = 1u << j;
        return k;
    }
    unsigned y = rot_right(d, x, j);
    if (!(y & 1u))
        return 0; /* even: a leaf */
    for (int m = top_bit(y) + 1; m < d; m++)
        out[k++] = rot_left(d, y | (1u << m), j);
    if (y != 1u)
        out[k++] = rot_left(d, y ^ 1u, j);
    return k;
}

void ic_blk_edst_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf, size_t count,
                       size_t esize)
{
    ic_plan_next_phase(pl);
    if (v->me < 0 || v->n <= 1 || count == 0)
        return;
    int d = ic_ceil_log2(v->n);
    unsigned x = (unsigned)(v->me ^ root), kids[32];
    size_t *off = ic_plan_sizes(pl, (size_t)d), *len = ic_plan_sizes(pl, (size_t)d);
    if (!off || !len)
        return;
    ic_partition_even(count, d, off, len);
    for (int j = 0; j < d; j++) {
        if (len[j] == 0)
            continue; /* count < d: every member skips the same trees */
        ic_loc_t at = ic_loc_add(buf, off[j] * esize);
        size_t bytes = len[j] * esize;
        int parent = ic_edst_parent(d, j, x);
        long got = -1;
        if (parent >= 0)
            got = ic_plan_recv(pl, ic_view_rank(v, parent ^ root), (uint32_t)j, at, bytes);
        int k = ic_edst_children(d, j, x, kids);
        for (int i = 0; i < k; i++) {
            long s = ic_plan_send(pl, ic_view_rank(v, (int)kids[i] ^ root), (uint32_t)j, at, bytes);
            if (got >= 0)
                ic_plan_add_dep(pl, s, got);
        }
    }
}
