/*
 * cost_double_tree.c — the Double Tree broadcast's cost (algo/
 * double_tree_bcast.c) under the model's port count: each node's sends
 * leave ports at a time in the tree's send order (one-port: one after the
 * other), a message costs alpha + n*beta, and the root's send across its
 * highest bit waits for its first send (to its complement) to be through.
 * All-port: max(ceil(d/2), 2)*(alpha + n*beta) for d >= 2.
 */
#include "select/cost.h"

#include "algo/blocks.h"

static double dmax(double a, double b) { return a > b ? a : b; }

/* The time node x (relative address) and its whole subtree have the
 * message, x having it at t. */
static double subtree_done(int d, unsigned x, double t, double msg, int ports)
{
    unsigned kids[32];
    int delayed;
    int k = ic_double_tree_children(d, x, kids, &delayed);
    double done = t, first_end = t + msg;
    for (int i = 0; i < k; i++) {
        double at = t + (double)(i / ports + 1) * msg;
        if (i == delayed)
            at = dmax(at, first_end + msg);
        done = dmax(done, subtree_done(d, kids[i], at, msg, ports));
    }
    return done;
}

double ic_cost_bcast_double_tree(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t bytes = a->count * ic_datatype_size(a->dtype);
    if (p <= 1 || bytes == 0)
        return 0;
    /* Both trees send at once: more members copy at once than in one
     * tree; priced as every member (ic_model_crowd). */
    ic_model_t crowd = ic_model_crowd(m, p);
    m = &crowd;
    int ports = m->ports > 1 ? m->ports : 1;
    double msg = m->alpha + (double)bytes * m->beta + ic_msg_extra_oneway(m, (double)bytes);
    return subtree_done(ic_ceil_log2(p), 0, 0, msg, ports);
}
