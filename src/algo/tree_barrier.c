/*
 * tree_barrier.c — barrier by fan-in up one spanning tree and fan-out down
 * another.
 *
 * Computes: no member completes before every member has started.  Every
 * member waits for an empty message from each of its children in the
 * fan-in tree, then tells its parent; the root, once it has heard from
 * all, releases its children in the fan-out tree, and every member
 * releases its own children once released.  Both trees are recursive-
 * splitting trees of split sp (patterns.h) over their views, rooted at
 * the same rank.  With U-mesh / U-torus / U-cube chains and the near-end
 * split (coll_uchain.c) the fan-out is the contention-free multicast tree
 * and the fan-in the same on the dual chain, so no two messages of a step
 * share a link ([MTR94]: the multicast trees "can be used to implement
 * ... barrier synchronization, among arbitrary subsets of nodes").
 * Preconditions: any n >= 1; in and out list the same ranks; the roots
 * are one rank.
 * Cost: 2 * ceil(log2 n) * alpha (twice the dissemination barrier's start-
 *       ups, but each message crosses the network once, without
 *       contention).
 * Source: [MTR94] (seeds/001_..., multicast section), [vdG-CCTP] (MST).
 *
 * n = 5, root at index 0 of both views, near-end split (view indices):
 *   fan-in:   1 -> 0, 4 -> 3;  2 -> 0;  3 -> 0
 *   fan-out:  0 -> 3;  0 -> 2;  0 -> 1, 3 -> 4
 */
#include "algo/blocks.h"

void ic_blk_tree_barrier(ic_plan_t *pl, const ic_view_t *in, int in_root, const ic_view_t *out,
                         int out_root, const ic_split_t *sp)
{
    ic_plan_next_phase(pl);
    if (in->me < 0 || in->n <= 1)
        return;
    ic_mst_edge_t e[64]; /* halving tree: at most 1 + ceil(log2 n) <= 32 edges */
    ic_loc_t none = ic_loc(IC_BUF_NONE, 0);
    long heard[64], nheard = 0;
    /* Fan-in: hear from every child, then report to the parent. */
    int k = ic_mst_edges(sp, in->n, in_root, in->me, e, NULL, NULL);
    int first = (k > 0 && e[0].child == in->me) ? 1 : 0;
    for (int i = k - 1; i >= first; i--)
        heard[nheard++] = ic_plan_recv(pl, ic_view_rank(in, e[i].child), 0, none, 0);
    if (first) {
        long s = ic_plan_send(pl, ic_view_rank(in, e[0].parent), 0, none, 0);
        for (long j = 0; j < nheard; j++)
            ic_plan_add_dep(pl, s, heard[j]);
    }
    /* Fan-out: wait for the release (the root: for every child), then
     * release the children, top-down. */
    k = ic_mst_edges(sp, out->n, out_root, out->me, e, NULL, NULL);
    first = (k > 0 && e[0].child == out->me) ? 1 : 0;
    if (first) {
        heard[0] = ic_plan_recv(pl, ic_view_rank(out, e[0].parent), 1, none, 0);
        nheard = 1;
    }
    for (int i = first; i < k; i++) {
        long s = ic_plan_send(pl, ic_view_rank(out, e[i].child), 1, none, 0);
        for (long j = 0; j < nheard; j++)
            ic_plan_add_dep(pl, s, heard[j]);
    }
}
