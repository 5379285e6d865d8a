/*
 * cost_edn.c — the EDN broadcast's, reduce's and gather's costs (algo/edn_bcast.c)
 * under the model's port count, following the tree of the whole mesh.
 *
 *   bcast   a node's sends leave min(ports, 4) at a time in send order
 *           (one-port: one after the other), a message costs alpha +
 *           n*beta, and a send of step s + 1 waits for the node's first
 *           send of step s to be through.  All-port: steps*(alpha + n*beta)
 *           with steps = ic_edn_steps (the survey's k + 2 at most on a
 *           2^k x 2^k mesh).
 *   reduce  the tree of the transposed mesh bottom-up: a node copies its
 *           input into its accumulator (n*delta), receives its children's
 *           partials group by group (the broadcast's last step first, a
 *           group posted when the one before is in; one-port: one at a
 *           time), combines each as it comes (n*gamma, one after the other)
 *           and sends the result up when both sides are ready.
 *   gather  the same tree and groups, a node's bundle (its block, then its
 *           children's bundles: its subtree's bytes b) costing alpha +
 *           b*beta; a node copies its own block in first, the root copies
 *           each bundle's blocks out as it arrives (b*delta).
 * Messages never share a link (all-port; the steps are contention-free),
 * so these are also the times on the physical mesh with no hop time; the
 * model has no per-hop term, as for the U entries (cost_uchain.c).
 * Entries that cannot run (no whole-mesh placement) cost HUGE_VAL.
 */
#include "select/cost.h"

#include "algo/builders.h"

#include <math.h>
#include <stdlib.h>

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

/* The tree of the rows x cols mesh from source: per node its step, and
 * its children and their steps at kid[off[x] .. off[x + 1]). */
typedef struct tree {
    int n, *step, *off, *kid, *ks;
} tree_t;

static void tree_free(tree_t *t)
{
    free(t->step);
    free(t->off);
    free(t->kid);
    free(t->ks);
}

static bool tree_of(int rows, int cols, int source, tree_t *t)
{
    int n = rows * cols;
    t->n = n;
    t->step = malloc(sizeof(int) * (size_t)n);
    t->off = malloc(sizeof(int) * (size_t)(n + 1));
    t->kid = malloc(sizeof(int) * (size_t)n);
    t->ks = malloc(sizeof(int) * (size_t)n);
    int *parent = malloc(sizeof(int) * (size_t)n), *work = malloc(sizeof(int) * 2 * (size_t)n);
    bool ok = t->step && t->off && t->kid && t->ks && parent && work &&
              ic_edn_tree(rows, cols, source, parent, t->step, t->off, t->kid, work) >= 0;
    for (int i = 0; ok && i < n - 1; i++)
        t->ks[i] = t->step[t->kid[i]];
    free(parent);
    free(work);
    return ok;
}

/* Nodes by step (ascending): a parent before its children. */
static int *by_step(const tree_t *t)
{
    int n = t->n, smax = 0;
    for (int x = 0; x < n; x++)
        smax = t->step[x] > smax ? t->step[x] : smax;
    int *cnt = calloc((size_t)smax + 2, sizeof(int)), *order = malloc(sizeof(int) * (size_t)n);
    if (cnt && order) {
        for (int x = 0; x < n; x++)
            cnt[t->step[x] + 1]++;
        for (int s = 1; s <= smax + 1; s++)
            cnt[s] += cnt[s - 1];
        for (int x = 0; x < n; x++)
            order[cnt[t->step[x]]++] = x;
    } else {
        free(order);
        order = NULL;
    }
    free(cnt);
    return order;
}

static int ports_of(const ic_model_t *m)
{
    return m->ports >= 4 ? 4 : m->ports > 1 ? m->ports : 1;
}

double ic_cost_bcast_edn(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t bytes = a->count * ic_datatype_size(a->dtype);
    if (p <= 1 || bytes == 0)
        return 0;
    if (!ic_edn_fits(a->phys, p))
        return HUGE_VAL;
    int rows, cols;
    ic_edn_shape(a->phys, &rows, &cols);
    double msg = m->alpha + (double)bytes * m->beta + ic_msg_extra(m, (double)bytes), done = 0;
    int ports = ports_of(m);
    tree_t t = {0};
    int *order = NULL;
    double *at = malloc(sizeof(double) * (size_t)p);
    if (!at || !tree_of(rows, cols, a->phys->node_of[a->root], &t) || !(order = by_step(&t))) {
        done = -1;
        goto out;
    }
    at[order[0]] = 0;
    for (int o = 0; o < p; o++) {
        int x = order[o];
        double port[4] = {at[x], at[x], at[x], at[x]}, first_end = 0, prev_first_end = -1;
        for (int i = t.off[x]; i < t.off[x + 1]; i++) {
            bool new_step = i == t.off[x] || t.ks[i] != t.ks[i - 1];
            if (new_step && i > t.off[x])
                prev_first_end = first_end;
            int pk = 0; /* the earliest free port */
            for (int j = 1; j < ports; j++)
                pk = port[j] < port[pk] ? j : pk;
            double start = dmax(port[pk], prev_first_end);
            port[pk] = start + msg;
            if (new_step)
                first_end = start + msg;
            at[t.kid[i]] = start + msg;
            done = dmax(done, start + msg);
        }
    }
out:
    free(at);
    free(order);
    tree_free(&t);
    return done;
}

double ic_cost_reduce_edn(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t bytes = a->count * ic_datatype_size(a->dtype);
    if (bytes == 0)
        return 0;
    if (p <= 1)
        return a->in_place ? 0 : (double)bytes * m->delta;
    if (!ic_edn_fits(a->phys, p))
        return HUGE_VAL;
    int rows, cols;
    ic_edn_shape(a->phys, &rows, &cols);
    int src = a->phys->node_of[a->root];
    double msg = m->alpha + (double)bytes * m->beta + ic_msg_extra(m, (double)bytes);
    double comb = (double)bytes * m->gamma, done = -1;
    bool one_port = ports_of(m) < 4; /* a node receives at most 4 partials at once */
    tree_t t = {0};
    int *order = NULL;
    double *ready = malloc(sizeof(double) * (size_t)p);
    /* The transposed mesh (cols x rows), as the builder. */
    if (!ready || !tree_of(cols, rows, (src % cols) * rows + src / cols, &t) ||
        !(order = by_step(&t)))
        goto out;
    for (int o = p - 1; o >= 0; o--) { /* children first */
        int x = order[o], lo = t.off[x], hi = t.off[x + 1];
        if (lo == hi) {
            ready[x] = 0;
            continue;
        }
        bool root_in_place = o == 0 && a->in_place;
        double cpu = root_in_place ? 0 : (double)bytes * m->delta, post = 0, port = 0;
        while (hi > lo) { /* the group of the latest step left */
            int g = hi - 1;
            while (g > lo && t.ks[g - 1] == t.ks[hi - 1])
                g--;
            double in = post;
            for (int i = g; i < hi; i++) {
                double start = dmax(ready[t.kid[i]], post);
                if (one_port)
                    start = dmax(start, port);
                double end = start + msg;
                port = end;
                in = dmax(in, end);
                cpu = dmax(cpu, end) + comb;
            }
            post = in;
            hi = g;
        }
        ready[x] = cpu;
    }
    done = ready[order[0]];
out:
    free(ready);
    free(order);
    tree_free(&t);
    return done;
}

/* A bundle's arrival at the root and its bytes. */
typedef struct arrival {
    double end, bytes;
} arrival_t;

/* By arrival (bundles arriving together: either order ends the copies at
 * the same time). */
static int by_end(const void *pa, const void *pb)
{
    const arrival_t *a = pa, *b = pb;
    return a->end < b->end ? -1 : a->end > b->end ? 1 : 0;
}

/* Gather(v) on the reduce's tree: a node's bundle (its block and its
 * subtree's) goes up when its children's bundles are in (groups as the
 * reduce), a bundle of b bytes costing alpha + b*beta; a node copies its
 * own block first (b*delta), the root copies every bundle's blocks to
 * their places as it arrives (b*delta, one after the other). */
double ic_cost_gather_edn(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t es = ic_datatype_size(a->dtype);
    if (p <= 1)
        return a->in_place ? 0 : (double)((a->counts ? a->counts[0] : a->count) * es) * m->delta;
    if (!ic_edn_fits(a->phys, p))
        return HUGE_VAL;
    int rows, cols;
    ic_edn_shape(a->phys, &rows, &cols);
    int src = a->phys->node_of[a->root];
    bool one_port = ports_of(m) < 4;
    double done = -1;
    tree_t t = {0};
    int *order = NULL;
    double *ready = malloc(sizeof(double) * (size_t)p), *sub = malloc(sizeof(double) * (size_t)p);
    double *len = malloc(sizeof(double) * (size_t)p); /* bytes of frame node y's block */
    arrival_t *arr = malloc(sizeof(arrival_t) * IC_EDN_MAX_SENDS);
    if (!ready || !sub || !len || !arr ||
        !tree_of(cols, rows, (src % cols) * rows + src / cols, &t) || !(order = by_step(&t)))
        goto out;
    for (int r = 0; r < p; r++) {
        int x = a->phys->node_of[r];
        len[(x % cols) * rows + x / cols] = (double)((a->counts ? a->counts[r] : a->count) * es);
    }
    for (int o = p - 1; o >= 0; o--) { /* children first */
        int x = order[o], lo = t.off[x], hi = t.off[x + 1];
        sub[x] = len[x];
        for (int i = lo; i < hi; i++)
            sub[x] += sub[t.kid[i]];
        if (lo == hi) {
            ready[x] = 0;
            continue;
        }
        bool root = o == 0;
        double cpu = root && a->in_place ? 0 : len[x] * m->delta, post = 0, port = 0;
        while (hi > lo) {
            int g = hi - 1;
            while (g > lo && t.ks[g - 1] == t.ks[hi - 1])
                g--;
            double in = post;
            for (int i = g; i < hi; i++) {
                double start = dmax(ready[t.kid[i]], post);
                if (one_port)
                    start = dmax(start, port);
                double end = start + m->alpha + sub[t.kid[i]] * m->beta +
                             ic_msg_extra(m, sub[t.kid[i]]);
                port = end;
                in = dmax(in, end);
                if (root) /* the bundle's arrival, for the copies below */
                    arr[i - t.off[x]] = (arrival_t){end, sub[t.kid[i]]};
            }
            post = in;
            hi = g;
        }
        if (root) { /* the root copies bundles out in the order they arrive */
            int k = t.off[x + 1] - t.off[x];
            qsort(arr, (size_t)k, sizeof *arr, by_end);
            for (int i = 0; i < k; i++)
                cpu = dmax(cpu, arr[i].end) + arr[i].bytes * m->delta;
        }
        ready[x] = dmax(cpu, post);
    }
    done = ready[order[0]];
out:
    free(ready);
    free(sub);
    free(len);
    free(arr);
    free(order);
    tree_free(&t);
    return done;
}
