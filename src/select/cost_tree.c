/*
 * cost_tree.c — costs of the minimum-spanning-tree blocks, as the exact
 * recurrences over the recursive-splitting tree ([vdG-CCTP], [Watts94]
 * sections 5.1 and 7).  They follow each block's plan step by step:
 * sends leave in plan order, a member receives one message at a time, and
 * the reduce block has two alternating receive buffers.  Every message
 * of a tree is one-way (its sender has received all it needs before it
 * sends), so the transport's shared copy applies (ic_msg_extra_oneway).
 * The messages of one round of the tree -- the splits at one depth t of
 * the recursion, at most min(2^t, n - 2^t) of them -- are copied at once:
 * with more of them than the model's cores each costs that many / cores
 * (rounded up) times its bytes (ic_model_crowd; from 7 ranks on 2 cores).
 */
#include "select/cost.h"

#include <stdlib.h>

static double dmax(double a, double b) { return a > b ? a : b; }

/* The messages at depth depth of a tree of n members, at most. */
static double at_once(int n, int depth)
{
    double w = depth < 30 ? (double)(1u << depth) : 1e9;
    return w < n - w ? w : n - w;
}

/* A message of bytes at depth depth of a tree of n members. */
static double tree_msg(const ic_model_t *m, int n, int depth, double bytes)
{
    ic_model_t r = ic_model_crowd(m, at_once(n, depth));
    return r.alpha + bytes * r.beta + ic_msg_extra_oneway(&r, bytes);
}

double ic_cost_mst_bcast(int n, size_t bytes, const ic_model_t *m)
{
    if (n <= 1 || bytes == 0)
        return 0;
    int d = ic_ceil_log2(n);
    if (!ic_model_crowded(m, n / 2))
        return d * (m->alpha + (double)bytes * m->beta + ic_msg_extra_oneway(m, (double)bytes));
    double t = 0;
    for (int r = 0; r < d; r++)
        t += tree_msg(m, n, r, (double)bytes);
    return t;
}

/* Children of node in top-down order; returns how many. */
static int children(const ic_split_t *sp, int n, int root, int node, ic_mst_edge_t *e)
{
    int k = ic_mst_edges(sp, n, root, node, e, NULL, NULL);
    int first = (k > 0 && e[0].child == node) ? 1 : 0;
    for (int i = first; i < k; i++)
        e[i - first] = e[i];
    return k - first;
}

/* Time node's partial is complete; its edges start at depth depth. */
static double reduce_ready(const ic_split_t *sp, int n, int root, int node, int depth,
                           size_t bytes, const ic_model_t *m)
{
    ic_mst_edge_t e[64]; /* halving tree: at most 1 + ceil(log2 n) edges */
    int k = children(sp, n, root, node, e);
    double port = 0, compute = 0, red_end[64];
    for (int j = 0, i = k - 1; i >= 0; i--, j++) { /* bottom-up, plan order */
        ic_model_t r = ic_model_crowd(m, at_once(n, depth + i));
        double msg = tree_msg(m, n, depth + i, (double)bytes);
        double red = (double)bytes * r.gamma;
        double ready = reduce_ready(sp, n, root, e[i].child, depth + i + 1, bytes, m);
        double posted = j >= 2 ? red_end[j - 2] : 0; /* its buffer is free */
        double start = dmax(dmax(ready, port), posted);
        port = start + msg;
        red_end[j] = dmax(port, compute) + red;
        compute = red_end[j];
    }
    return compute;
}

double ic_cost_mst_reduce(int n, int root, size_t bytes, const ic_model_t *m)
{
    return ic_cost_mst_reduce_split(NULL, n, root, bytes, m);
}

double ic_cost_mst_reduce_split(const ic_split_t *sp, int n, int root, size_t bytes,
                                const ic_model_t *m)
{
    if (n <= 1 || bytes == 0)
        return 0;
    return reduce_ready(sp, n, root, root, 0, bytes, m);
}

static double range_bytes(const size_t *len, int lo, int hi)
{
    double s = 0;
    for (int i = lo; i <= hi; i++)
        s += (double)len[i];
    return s;
}

static double scatter_from(const ic_split_t *sp, int n, int root, int node, int depth,
                           double t, const size_t *len, const ic_model_t *m, double *arrive,
                           ic_mst_edge_t *e)
{
    int k = children(sp, n, root, node, e);
    ic_mst_edge_t *mine = e;
    double done = t;
    for (int i = 0; i < k; i++) {
        double bytes = range_bytes(len, mine[i].lo, mine[i].hi);
        if (bytes == 0)
            continue;
        t += tree_msg(m, n, depth + i, bytes);
        double sub = scatter_from(sp, n, root, mine[i].child, depth + i + 1, t, len, m, arrive,
                                  e + k);
        done = dmax(done, sub);
    }
    if (arrive) /* holds its block and its send port is free */
        arrive[node] = t;
    return done;
}

double ic_cost_mst_scatter(const ic_split_t *sp, int n, int root, const size_t *len,
                           const ic_model_t *m, double *arrive)
{
    /* Edges of the nodes on one root-to-leaf path are kept at once. */
    ic_mst_edge_t *e = malloc(sizeof(*e) * (size_t)n * (size_t)(n + 1));
    if (!e)
        return -1;
    double t = scatter_from(sp, n, root, root, 0, 0, len, m, arrive, e);
    free(e);
    return t;
}

static double gather_ready(const ic_split_t *sp, int n, int root, int node, int depth,
                           const size_t *len, const double *ready, const double *rfree,
                           const ic_model_t *m, ic_mst_edge_t *e)
{
    int k = children(sp, n, root, node, e);
    double own = ready ? ready[node] : 0;
    double *rt = malloc(sizeof(double) * (size_t)(k ? k : 1) * 3);
    if (!rt)
        return -1;
    double *bytes = rt + (k ? k : 1), *at = bytes + (k ? k : 1);
    int c = 0;
    for (int i = 0; i < k; i++) {
        double b = range_bytes(len, e[i].lo, e[i].hi);
        if (b == 0)
            continue;
        rt[c] = gather_ready(sp, n, root, e[i].child, depth + i + 1, len, ready, rfree, m, e + k);
        at[c] = depth + i;
        bytes[c++] = b;
    }
    /* The member's receive port serves ready children in order of
     * readiness (stable: equal times in plan order, bottom-up). */
    double port = rfree ? rfree[node] : 0, done = own;
    for (int served = 0; served < c; served++) {
        int best = -1;
        for (int i = c - 1; i >= 0; i--)
            if (rt[i] >= 0 && (best < 0 || rt[i] < rt[best]))
                best = i;
        port = dmax(port, rt[best]) + tree_msg(m, n, (int)at[best], bytes[best]);
        rt[best] = -1;
        done = dmax(done, port);
    }
    free(rt);
    return done;
}

double ic_cost_mst_gather(const ic_split_t *sp, int n, int root, const size_t *len,
                          const double *ready, const double *rfree, const ic_model_t *m)
{
    ic_mst_edge_t *e = malloc(sizeof(*e) * (size_t)n * (size_t)(n + 1));
    if (!e)
        return -1;
    double t = gather_ready(sp, n, root, root, 0, len, ready, rfree, m, e);
    free(e);
    return t;
}

/* Every edge below node: alpha + its range's bytes * beta, summed. */
static double serial_from(const ic_split_t *sp, int n, int root, int node, const size_t *len,
                          const ic_model_t *m, ic_mst_edge_t *e)
{
    int k = children(sp, n, root, node, e);
    double t = 0;
    for (int i = 0; i < k; i++) {
        double bytes = range_bytes(len, e[i].lo, e[i].hi);
        if (bytes == 0)
            continue;
        t += m->alpha + bytes * m->beta + ic_msg_extra_oneway(m, bytes);
        t += serial_from(sp, n, root, e[i].child, len, m, e + k);
    }
    return t;
}

double ic_cost_mst_serial(const ic_split_t *sp, int n, int root, const size_t *len,
                          const ic_model_t *m)
{
    ic_mst_edge_t *e = malloc(sizeof(*e) * (size_t)n * (size_t)(n + 1));
    if (!e)
        return -1;
    double t = serial_from(sp, n, root, root, len, m, e);
    free(e);
    return t;
}
