/*
 * cost_direct_reduce.c — cost of the direct reduce and allreduce
 * (algo/direct_reduce.c): the vectors arrive one after another at a
 * member's one port and are combined in the canonical rank tree as they
 * arrive.
 *
 * Slot j's vector is there at arrive[j]; node T(lo, hi) of the tree
 * (mid = lo + (hi - lo) / 2) can be combined once T(lo, mid) and
 * T(mid+1, hi) are, and takes N*gamma on the member's one processor,
 * which takes the combinations in the order they become ready (the
 * engine's list schedule, sim/engine_run.c).  Most combinations hide
 * behind later receives; what is left after the last arrival is the
 * chain from its slot to the root of the tree, about ceil(log2 n)
 * combinations while gamma*N is below the gap between arrivals, and up
 * to (n-1)*N*gamma when combining is the slower part.
 * That overlap is the papers' model's (and the simulator's), where the
 * network moves a message while the processor combines.  On shared memory
 * a member copies its receives in itself (rndv_bytes or cores set: the
 * transport's model), so receiving and combining share its processor and
 * the (n-1)*N*gamma of combining follows the last arrival; measured at
 * 4 ranks on 2 cores, the overlapped schedule picked the direct allreduce
 * at 4 KiB where the hybrid was 0.87x its time (bench/env_pairs.sh,
 * 9 repetitions of 500 calls).
 * The direct allreduce is the same on every member, slot me-k arriving in
 * step k at member me: the time is the latest member's (every member's
 * up to EXACT_MEMBERS members, a spread sample of them above).
 * Source: the tree of MSTREDUCE [vdG-CCTP] (seeds/002), combined locally.
 */
#include "select/cost.h"

#include <stdlib.h>

typedef struct {
    double child[2]; /* end of the two halves, once known */
    int known;       /* how many of them are known */
    int parent;      /* index of the node T that holds this one, -1 at the top */
    int side;        /* 0: this is the parent's left half */
} tnode_t;

typedef struct {
    tnode_t *node;
    int count;
    const double *arrive;
} tree_t;

static double dmax(double a, double b) { return a > b ? a : b; }

/* Numbers the combinations of T(lo, hi) in the plan's order (children
 * first) and records the leaves' arrivals in their parents; side: which
 * half of its parent T(lo, hi) is (the parent sets its index). */
static int number(tree_t *t, int lo, int hi, int side)
{
    int mid = lo + (hi - lo) / 2;
    int l = lo < mid ? number(t, lo, mid, 0) : -1;
    int r = mid + 1 < hi ? number(t, mid + 1, hi, 1) : -1;
    int me = t->count++;
    tnode_t *x = &t->node[me];
    *x = (tnode_t){{0, 0}, 0, -1, side};
    if (l >= 0)
        t->node[l].parent = me;
    else
        x->child[0] = t->arrive[lo], x->known++;
    if (r >= 0)
        t->node[r].parent = me;
    else
        x->child[1] = t->arrive[hi], x->known++;
    return me;
}

/* A min-heap of ready combinations by (ready time, plan order). */
typedef struct {
    int *id;
    double *at;
    int n;
} heap_t;

static bool before(const heap_t *h, int a, int b)
{
    return h->at[a] < h->at[b] || (h->at[a] == h->at[b] && h->id[a] < h->id[b]);
}

static void swap(heap_t *h, int a, int b)
{
    int i = h->id[a];
    double d = h->at[a];
    h->id[a] = h->id[b], h->at[a] = h->at[b];
    h->id[b] = i, h->at[b] = d;
}

static void push(heap_t *h, int id, double at)
{
    int k = h->n++;
    h->id[k] = id, h->at[k] = at;
    while (k > 0 && before(h, k, (k - 1) / 2)) {
        swap(h, k, (k - 1) / 2);
        k = (k - 1) / 2;
    }
}

static int pop(heap_t *h, double *at)
{
    int top = h->id[0];
    *at = h->at[0];
    h->n--;
    h->id[0] = h->id[h->n], h->at[0] = h->at[h->n];
    for (int k = 0;;) {
        int c = 2 * k + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && before(h, c + 1, c))
            c++;
        if (!before(h, c, k))
            break;
        swap(h, k, c);
        k = c;
    }
    return top;
}

double ic_cost_tree_combine(int n, const double *arrive, size_t bytes, const ic_model_t *m)
{
    if (n < 2)
        return n == 1 ? arrive[0] : 0;
    tree_t t = {calloc((size_t)n, sizeof(tnode_t)), 0, arrive};
    heap_t h = {malloc(sizeof(int) * (size_t)n), malloc(sizeof(double) * (size_t)n), 0};
    double end = -1;
    if (!t.node || !h.id || !h.at)
        goto out;
    number(&t, 0, n - 1, 0);
    for (int i = 0; i < t.count; i++)
        if (t.node[i].known == 2)
            push(&h, i, dmax(t.node[i].child[0], t.node[i].child[1]));
    double cpu = 0, step = (double)bytes * m->gamma;
    while (h.n > 0) {
        double ready;
        int i = pop(&h, &ready);
        end = dmax(ready, cpu) + step;
        cpu = end;
        tnode_t *x = &t.node[i];
        if (x->parent < 0)
            break; /* the top: every other combination came before it */
        tnode_t *up = &t.node[x->parent];
        up->child[x->side] = end;
        if (++up->known == 2)
            push(&h, x->parent, dmax(up->child[0], up->child[1]));
    }
out:
    free(t.node);
    free(h.id);
    free(h.at);
    return end;
}

/* Arrival k (k = 1 .. n-1) at a member's one port: the first message's
 * start-up, the further ones' (shared when crowded), N*beta each, and the
 * transport's extra (one-way: the member sends nothing meanwhile). */
static double arrival(int k, size_t bytes, const ic_model_t *m, double ranks, bool oneway)
{
    double per = (double)bytes * m->beta +
                 (oneway ? ic_msg_extra_oneway : ic_msg_extra)(m, (double)bytes);
    return m->alpha + (k - 1) * ic_model_alpha_next(m, ranks) + k * per;
}

/* True when the member copies its receives in itself (module comment). */
static bool receiver_copies(const ic_model_t *m) { return m->rndv_bytes > 0 || m->cores > 0; }

/* The end where the receiver copies: the last arrival, then every
 * combination. */
static double after_last(int n, size_t bytes, const ic_model_t *m, bool oneway)
{
    return arrival(n - 1, bytes, m, n, oneway) + (double)(n - 1) * (double)bytes * m->gamma;
}

double ic_cost_direct_reduce(int n, int root, size_t bytes, const ic_model_t *m)
{
    if (n < 2 || bytes == 0)
        return 0;
    if (receiver_copies(m))
        return after_last(n, bytes, m, true);
    double *at = malloc(sizeof(double) * (size_t)n);
    if (!at)
        return -1;
    at[root] = 0;
    for (int k = 1; k < n; k++)
        at[(root + k) % n] = arrival(k, bytes, m, n, true);
    double t = ic_cost_tree_combine(n, at, bytes, m);
    free(at);
    return t;
}

/* Members whose trees are priced above this many: a spread sample of them
 * (the direct allreduce is far from the choice there: n - 1 start-ups). */
enum { EXACT_MEMBERS = 256, SAMPLED_MEMBERS = 64 };

double ic_cost_direct_allreduce(int n, size_t bytes, const ic_model_t *m)
{
    if (n < 2 || bytes == 0)
        return 0;
    if (receiver_copies(m)) /* every member alike */
        return after_last(n, bytes, m, false);
    double *at = malloc(sizeof(double) * (size_t)n);
    if (!at)
        return -1;
    double end = 0;
    int every = n <= EXACT_MEMBERS ? 1 : n / SAMPLED_MEMBERS;
    for (int me = 0; me < n && end >= 0; me += every) {
        at[me] = 0; /* member me receives slot me-k in step k */
        for (int k = 1; k < n; k++)
            at[(me - k + n) % n] = arrival(k, bytes, m, n, false);
        double t = ic_cost_tree_combine(n, at, bytes, m);
        end = t < 0 ? -1 : (t > end ? t : end);
    }
    free(at);
    return end;
}
