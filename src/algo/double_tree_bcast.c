/*
 * double_tree_bcast.c — the Double Tree broadcast of [MTR94] (McKinley and
 * Trefftz), for all-port hypercubes with e-cube routing.
 *
 * Computes: the root's bytes at buf reach buf on every member.
 * Preconditions: n = 2^d members; member i is hypercube node i (relative
 * address x = i XOR root; dimension 0 of the cube, the one e-cube routing
 * corrects first, is the highest bit).
 * Tree: the root sends to its complement ~0 (d hops) and to its
 * neighbours; from then on two partial binomial trees grow, a forward one
 * from the root by setting bits (x hands x | 2^j for every j above its
 * highest set bit) over the nodes of weight <= F = ceil(d/2), and a
 * backward one from ~0 by clearing bits (the same on complements) over
 * the nodes of weight > F.  The route to ~0 leaves the root along the
 * highest bit, so the neighbour across it (2^(d-1)) is sent to one step
 * later.  Every message after the first step crosses one link; the
 * forward ones set a bit and the backward ones clear one, so no directed
 * link carries two messages at once.
 * Cost: all-port (every node sends all its messages at once): the node of
 *       weight w is reached in step w (forward) or d - w + 1 (backward), so
 *       max(ceil(d/2), 2)*(alpha + n*beta) for d >= 2 (alpha + n*beta for
 *       d = 1), the survey's ceil(d/2) steps ("on a 4-port 4-cube, ... two
 *       message-passing steps").  One-port: a node's sends go one after
 *       the other in the order below, so child k of a node is reached
 *       (k+1)(alpha + n*beta) after it; select/cost_double_tree.c follows
 *       the tree (d + 1 messages deep at the root: worse than mst there).
 * Source: [MTR94] (seeds/001_..., "broadcast ... multiple-port": the Double
 *       Tree algorithm, figure 8).
 *
 * d = 4, root 0000 (F = 2):
 *   step 1:  0000 -> 1111 (via 1000, 1100, 1110), 0001, 0010, 0100
 *   step 2:  0000 -> 1000;  0001 -> 0011, 0101, 1001;  0010 -> 0110, 1010;
 *            0100 -> 1100;  1111 -> 1110, 1101, 1011, 0111
 */
#include "algo/blocks.h"

static int weight(unsigned x)
{
    int w = 0;
    for (; x; x &= x - 1)
        w++;
    return w;
}

static int msb(unsigned x)
{
    int b = -1;
    for (; x; x >>= 1)
        b++;
    return b;
}

int ic_double_tree_parent(int d, unsigned x)
{
    unsigned all = (1u << d) - 1;
    int f = (d + 1) / 2;
    if (x == 0)
        return -1;
    if (x == all || weight(x) <= f)
        return x == all ? 0 : (int)(x & ~(1u << msb(x)));
    return (int)(x | (1u << msb(~x & all)));
}

int ic_double_tree_children(int d, unsigned x, unsigned *out, int *delayed)
{
    unsigned all = (1u << d) - 1;
    int f = (d + 1) / 2, k = 0;
    *delayed = -1;
    if (d == 0)
        return 0;
    if (x == 0) {
        out[k++] = all;
        for (int j = 0; j < d - 1; j++)
            out[k++] = 1u << j;
        if (d >= 2) { /* shares its first link with the route to ~0 */
            *delayed = k;
            out[k++] = 1u << (d - 1);
        }
        return k;
    }
    if (x == all || weight(x) > f) { /* backward: clear a bit above ~x's highest */
        for (int j = msb(~x & all) + 1; j < d; j++)
            if (weight(x & ~(1u << j)) > f)
                out[k++] = x & ~(1u << j);
        return k;
    }
    for (int j = msb(x) + 1; j < d; j++) /* forward: set a bit above x's highest */
        if (weight(x | (1u << j)) <= f)
            out[k++] = x | (1u << j);
    return k;
}

void ic_blk_double_tree_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf,
                              size_t bytes)
{
    ic_plan_next_phase(pl);
    if (v->me < 0 || v->n <= 1 || bytes == 0)
        return;
    int d = ic_ceil_log2(v->n), delayed;
    unsigned x = (unsigned)(v->me ^ root), kids[32];
    int parent = ic_double_tree_parent(d, x);
    if (parent >= 0)
        ic_plan_recv(pl, ic_view_rank(v, parent ^ root), 0, buf, bytes);
    int k = ic_double_tree_children(d, x, kids, &delayed);
    long first = -1;
    for (int i = 0; i < k; i++) {
        long s = ic_plan_send(pl, ic_view_rank(v, (int)kids[i] ^ root), 0, buf, bytes);
        if (i == 0)
            first = s;
        if (i == delayed)
            ic_plan_add_dep(pl, s, first);
    }
}
