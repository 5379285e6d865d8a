/*
 * cost_tree.c — costs of the minimum-spanning-tree blocks, as the exact
 * recurrences over the recursive-splitting tree ([vdG-CCTP], [Watts94]
 * sections 5.1 and 7).  They follow each block's plan step by step:
 * sends leave in plan order, a member receives one message at a time, and
 * the reduce block has two alternating receive buffers.  Every message
 * of a tree is one-way (its sender has received all it needs before it
 * sends), so the transport's shared copy applies (ic_msg_extra_oneway).
 */
#include "select/cost.h"

#include <stdlib.h>

static double dmax(double a, double b) { return a > b ? a : b; }

double ic_cost_mst_bcast(int n, size_t bytes, const ic_model_t *m)
{
    if (n <= 1 || bytes == 0)
        return 0;
    return ic_ceil_log2(n) *
           (m->alpha + (double)bytes * m->beta + ic_msg_extra_oneway(m, (double)bytes));
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

/* Time node's partial is complete. */
static double reduce_ready(const ic_split_t *sp, int n, int root, int node, size_t bytes,
                           const ic_model_t *m)
{
    ic_mst_edge_t e[64]; /* halving tree: at most 1 + ceil(log2 n) edges */
    int k = children(sp, n, root, node, e);
    double port = 0, compute = 0, red_end[64];
    double msg = m->alpha + (double)bytes * m->beta + ic_msg_extra_oneway(m, (double)bytes);
    double red = (double)bytes * m->gamma;
    for (int j = 0, i = k - 1; i >= 0; i--, j++) { /* bottom-up, plan order */
        double ready = reduce_ready(sp, n, root, e[i].child, bytes, m);
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
    return reduce_ready(sp, n, root, root, bytes, m);
}

static double range_bytes(const size_t *len, int lo, int hi)
{
    double s = 0;
    for (int i = lo; i <= hi; i++)
        s += (double)len[i];
    return s;
}

static double scatter_from(const ic_split_t *sp, int n, int root, int node, double t,
                           const size_t *len, const ic_model_t *m, double *arrive,
                           ic_mst_edge_t *e)
{
    int k = children(sp, n, root, node, e);
    ic_mst_edge_t *mine = e;
    double done = t;
    for (int i = 0; i < k; i++) {
        double bytes = range_bytes(len, mine[i].lo, mine[i].hi);
        if (bytes == 0)
            continue;
        t += m->alpha + bytes * m->beta + ic_msg_extra_oneway(m, bytes);
        double sub = scatter_from(sp, n, root, mine[i].child, t, len, m, arrive, e + k);
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
    double t = scatter_from(sp, n, root, root, 0, len, m, arrive, e);
    free(e);
    return t;
}

static double gather_ready(const ic_split_t *sp, int n, int root, int node,
                           const size_t *len, const double *ready, const double *rfree,
                           const ic_model_t *m, ic_mst_edge_t *e)
{
    int k = children(sp, n, root, node, e);
    double own = ready ? ready[node] : 0;
    double *rt = malloc(sizeof(double) * (size_t)(k ? k : 1));
    double *bytes = malloc(sizeof(double) * (size_t)(k ? k : 1));
    if (!rt || !bytes) {
        free(rt);
        free(bytes);
        return -1;
    }
    int c = 0;
    for (int i = 0; i < k; i++) {
        double b = range_bytes(len, e[i].lo, e[i].hi);
        if (b == 0)
            continue;
        rt[c] = gather_ready(sp, n, root, e[i].child, len, ready, rfree, m, e + k);
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
        port = dmax(port, rt[best]) + m->alpha + bytes[best] * m->beta +
               ic_msg_extra_oneway(m, bytes[best]);
        rt[best] = -1;
        done = dmax(done, port);
    }
    free(rt);
    free(bytes);
    return done;
}

double ic_cost_mst_gather(const ic_split_t *sp, int n, int root, const size_t *len,
                          const double *ready, const double *rfree, const ic_model_t *m)
{
    ic_mst_edge_t *e = malloc(sizeof(*e) * (size_t)n * (size_t)(n + 1));
    if (!e)
        return -1;
    double t = gather_ready(sp, n, root, root, len, ready, rfree, m, e);
    free(e);
    return t;
}
