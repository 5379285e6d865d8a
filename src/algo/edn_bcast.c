/*
 * edn_bcast.c — the EDN (Extended Dominating Node) broadcast of [MTR94]
 * for ALL-PORT 2-D meshes under dimension-ordered (XY) wormhole routing,
 * and its duals, the reduce (commutative operations) and the gather(v).
 *
 * Computes: bcast, the root's bytes at buf reach buf on every member;
 * reduce, the root's accumulator = every member's input combined (in no
 * fixed order: commutative operations only); gather(v), every member's
 * block at its place in the root's receive buffer.
 * Preconditions: the members sit one per node on the WHOLE R x C mesh
 * (a->phys, "mesh:RxC" or "mesh:C", node_of a permutation: ic_edn_fits);
 * nodes are numbered row-major and routes correct the row (dimension 0)
 * first.
 * Construction: levels of extended dominating nodes built by rectangle
 * splitting.  Every informed node owns a rectangle of the mesh that
 * contains it and nothing else informed; in a step it splits the
 * rectangle into at most five: a band of rows around itself (or of
 * columns: the split order is chosen per rectangle) cut into left, centre
 * and right parts, plus the parts above and below the band.  It keeps the
 * centre and sends one message into each other part: up, down, left,
 * right, one per outgoing port.  An XY route between two nodes of a
 * rectangle stays inside it, the four routes of one owner leave by four
 * different links and touch disjoint links, and rectangles are disjoint,
 * so no directed link carries two messages in one step, for any source.
 * Each receiver sits at a centre of its part, in line with the sender
 * (the message crosses one dimension only).  The cut sizes come from a
 * dynamic programme over the rectangles' shapes (rows x columns, the
 * owner central): C(h, w) = 1 + min over cuts of the parts' max C.  The
 * source, anywhere, makes the first cut with the band centred on itself
 * (its parts above and below then receive at their centres, a route with
 * one turn); from there every owner is central.  Steps: 16x16 in 5 from
 * every source (the survey's figure 23), 32x32 in 5 or 6, every 2^k x 2^k
 * mesh up to 256x256 within k + 2 (the survey's bound), the most over
 * sources at most one more than the least (test_edn; docs/algorithms.md
 * section 12.3 has the table).  A node sends in consecutive steps from the
 * one after it received; a send of step s + 1 waits for the node's first
 * send of step s (ic_plan_add_dep), so steps stay apart in time.
 * The reduce runs the tree of the TRANSPOSED mesh (routes correcting the
 * column first) bottom-up: the reverse of such a route is the XY route
 * from the child to its parent, so the reversed steps are contention-free
 * too; a node receives its children's partials group by group (the
 * broadcast's last step first), each group posted only when the previous
 * one is in, so a partial crossing a rectangle never meets the traffic
 * still inside it (checked on the simulator by test_edn).  The gather
 * runs the same tree and groups with bundles (a node's block, then its
 * children's bundles: its subtree in depth-first order); the root copies
 * each bundle's blocks to their places.
 * Cost: all-port, steps(R, C, source)*(alpha + n*beta) for the broadcast
 *       (ic_edn_steps; select/cost_edn.c), the reduce's recurrence with
 *       n*gamma per partial, the gather's with bundles of b bytes costing
 *       alpha + b*beta; one-port: a node's sends one after the other
 *       (cost_edn.c follows the tree).  No hop term: the model has none.
 * Source: [MTR94] (seeds/001_..., "Broadcasting in multi-port meshes and
 *       tori": the EDN approach, figures 22-24).
 *
 * 5x5 mesh, source 12 (the centre): 3 steps (the lower bound ceil(log5
 * 25) is 2; the rectangles need one more here).  The step each node
 * receives in, and the sends:
 *    2 3 1 3 2    step 1: 12 -> 2 (owns rows 0-1), 17 (rows 3-4),
 *    3 3 2 3 3            10 (row 2, columns 0-1), 13 (columns 3-4)
 *    1 2 0 1 2    step 2: 2 -> 0, 4, 7;  17 -> 15, 19, 22;  10 -> 11;  13 -> 14
 *    2 3 1 3 2    step 3: 2 -> 1, 3;  0 -> 5;  4 -> 9;  7 -> 6, 8;
 *    3 3 2 3 3            17 -> 16, 18;  15 -> 20;  19 -> 24;  22 -> 21, 23
 */
#include "algo/builders.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The best cut of an h x w rectangle with a central owner. */
typedef struct cut {
    uint8_t cost;     /* steps to inform the rectangle (0: one node) */
    uint8_t vert;     /* 1: the band is a band of columns */
    uint8_t ahi, ghi; /* band / centre offsets: the upper choice of the two central ones */
    uint16_t m, k;    /* band thickness, centre length along the band */
} cut_t;

/* The table of cuts for shapes up to n x n, one for the process (plans
 * of one mesh are built many times over, by several threads in the
 * simulator).  A larger mesh builds a larger table; the smaller ones stay
 * allocated (a thread may still read one) and reachable, until exit. */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int n;
    cut_t *tab;
    cut_t *old[16]; /* smaller tables kept, at most 16 (n doubles or more: see table) */
    int nold;
} tables;

/* The last source's first cut, per thread (rows 0: none). */
static _Thread_local struct {
    int rows, cols, source, steps, b[5];
} cache;

static int imax(int a, int b)
{
    return a > b ? a : b;
}

/* ceil(log5(x)) */
static int log5_ceil(long x)
{
    int s = 0;
    for (long p = 1; p < x; p *= 5)
        s++;
    return s;
}

/* The cost of shape a x b in the frame (transposed when vert). */
static int cc(const cut_t *tab, int n, bool vert, int a, int b)
{
    return vert ? tab[(size_t)b * (size_t)(n + 1) + (size_t)a].cost
                : tab[(size_t)a * (size_t)(n + 1) + (size_t)b].cost;
}

/* The table for shapes up to n x n (at least; *stride receives its n);
 * NULL above IC_EDN_MAX_SIDE or out of memory. */
static const cut_t *table(int n, int *stride)
{
    if (n > IC_EDN_MAX_SIDE)
        return NULL;
    pthread_mutex_lock(&table_lock);
    if (tables.tab && tables.n >= n) {
        *stride = tables.n;
        pthread_mutex_unlock(&table_lock);
        return tables.tab;
    }
    if (tables.tab && tables.nold == 16) { /* keep the old ones few: grow by 2x at least */
        pthread_mutex_unlock(&table_lock);
        return NULL;
    }
    n = tables.tab && n < 2 * tables.n ? 2 * tables.n : n;
    n = n > IC_EDN_MAX_SIDE ? IC_EDN_MAX_SIDE : n;
    cut_t *tab = calloc((size_t)(n + 1) * (size_t)(n + 1), sizeof *tab);
    if (!tab) {
        pthread_mutex_unlock(&table_lock);
        return NULL;
    }
    for (int s = 3; s <= 2 * n; s++) /* by h + w: the parts are smaller; 1x1 costs 0 */
        for (int h = s - n > 1 ? s - n : 1; h <= n && h < s; h++) {
            int w = s - h;
            cut_t best = {255, 0, 0, 0, 0, 0};
            int lb = log5_ceil((long)h * w);
            for (int vert = 0; vert < 2 && best.cost > lb; vert++) {
                int H = vert ? w : h, W = vert ? h : w, i = (H - 1) / 2, j = (W - 1) / 2;
                for (int m = 1; m <= H && best.cost > lb; m++)
                    for (int ahi = 0; ahi < 2; ahi++) {
                        int al = ahi ? m / 2 : (m - 1) / 2, be = m - 1 - al;
                        int t = i - al, u = H - 1 - i - be;
                        if ((ahi && m % 2) || t < 0 || u < 0)
                            continue;
                        int band = imax(cc(tab, n, vert, t, W), cc(tab, n, vert, u, W));
                        for (int k = 1; k <= W && band + 1 < best.cost; k++) {
                            int mid = cc(tab, n, vert, m, k);
                            if (mid + 1 >= best.cost)
                                break;
                            for (int ghi = 0; ghi < 2; ghi++) {
                                int ga = ghi ? k / 2 : (k - 1) / 2, de = k - 1 - ga;
                                int l = j - ga, q = W - 1 - j - de;
                                if ((ghi && k % 2) || l < 0 || q < 0 || (m == H && k == W))
                                    continue;
                                int c = 1 + imax(imax(band, mid), imax(cc(tab, n, vert, m, l),
                                                                       cc(tab, n, vert, m, q)));
                                if (c < best.cost)
                                    best = (cut_t){(uint8_t)c,   (uint8_t)vert, (uint8_t)ahi,
                                                   (uint8_t)ghi, (uint16_t)m,   (uint16_t)k};
                            }
                        }
                    }
            }
            tab[(size_t)h * (size_t)(n + 1) + (size_t)w] = best;
        }
    if (tables.tab)
        tables.old[tables.nold++] = tables.tab;
    tables.tab = tab;
    tables.n = n;
    *stride = n;
    pthread_mutex_unlock(&table_lock);
    return tab;
}

/* A rectangle [r0, r0 + h) x [c0, c0 + w) and its owner (row, column). */
typedef struct rect {
    int r0, c0, h, w, r, c;
} rect_t;

/* Splits q (owner at q->r, q->c) by the cut of the frame: band of m rows
 * (vert: columns) with al of them before the owner, centre of k with ga
 * before it.  out[0] the centre (same owner), then up to 4 parts with
 * their receivers; returns the number of rectangles written.  centred: the
 * owner is central (receivers in line with it); else the parts before and
 * after the band receive at their centres. */
static int split(const rect_t *q, int vert, int m, int al, int k, int ga, rect_t *out)
{
    /* Frame coordinates: a along the band's thickness, b along the band. */
    int a0 = vert ? q->c0 : q->r0, b0 = vert ? q->r0 : q->c0;
    int H = vert ? q->w : q->h, W = vert ? q->h : q->w;
    int ia = vert ? q->c : q->r, jb = vert ? q->r : q->c;
    int be = m - 1 - al, de = k - 1 - ga;
    int fa[5][4]; /* frame rectangles: a0, b0, A, B; receiver ia, jb in [4]... */
    int ra[5], rb[5], n = 0;
    bool bcentral = 2 * (jb - b0) == W - 1 || 2 * (jb - b0) == W;
    /* centre */
    fa[n][0] = ia - al, fa[n][1] = jb - ga, fa[n][2] = m, fa[n][3] = k, ra[n] = ia, rb[n++] = jb;
    if (ia - al > a0) { /* before the band */
        int A = ia - al - a0;
        fa[n][0] = a0, fa[n][1] = b0, fa[n][2] = A, fa[n][3] = W;
        ra[n] = a0 + (A - 1) / 2, rb[n++] = bcentral ? jb : b0 + (W - 1) / 2;
    }
    if (ia + be < a0 + H - 1) { /* after the band */
        int A = a0 + H - 1 - (ia + be);
        fa[n][0] = ia + be + 1, fa[n][1] = b0, fa[n][2] = A, fa[n][3] = W;
        ra[n] = ia + be + 1 + (A - 1) / 2, rb[n++] = bcentral ? jb : b0 + (W - 1) / 2;
    }
    if (jb - ga > b0) { /* the band before the centre */
        int B = jb - ga - b0;
        fa[n][0] = ia - al, fa[n][1] = b0, fa[n][2] = m, fa[n][3] = B;
        ra[n] = ia, rb[n++] = b0 + (B - 1) / 2;
    }
    if (jb + de < b0 + W - 1) { /* the band after the centre */
        int B = b0 + W - 1 - (jb + de);
        fa[n][0] = ia - al, fa[n][1] = jb + de + 1, fa[n][2] = m, fa[n][3] = B;
        ra[n] = ia, rb[n++] = jb + de + 1 + (B - 1) / 2;
    }
    for (int i = 0; i < n; i++)
        out[i] = vert ? (rect_t){fa[i][1], fa[i][0], fa[i][3], fa[i][2], rb[i], ra[i]}
                      : (rect_t){fa[i][0], fa[i][1], fa[i][2], fa[i][3], ra[i], rb[i]};
    return n;
}

/* The stored cut of a central owner's rectangle q, as split() arguments
 * (the table's offsets mirrored when the owner is the other central one). */
static int central_split(const cut_t *tab, int tn, const rect_t *q, rect_t *out)
{
    const cut_t *ct = &tab[(size_t)q->h * (size_t)(tn + 1) + (size_t)q->w];
    int vert = ct->vert, m = ct->m, k = ct->k;
    int H = vert ? q->w : q->h, W = vert ? q->h : q->w;
    int ia = (vert ? q->c - q->c0 : q->r - q->r0), jb = (vert ? q->r - q->r0 : q->c - q->c0);
    int al = ct->ahi ? m / 2 : (m - 1) / 2, ga = ct->ghi ? k / 2 : (k - 1) / 2;
    if (ia != (H - 1) / 2)
        al = m - 1 - al;
    if (jb != (W - 1) / 2)
        ga = k - 1 - ga;
    return split(q, vert, m, al, k, ga, out);
}

/* The source's first cut (band and centre balanced on it): the cheapest,
 * into *best (split() arguments); returns its steps.  The band of columns
 * only when the source is central along the rows or nothing lies beside
 * it (the parts beside a band of columns must receive in its row). */
static int source_cut(const cut_t *tab, int tn, const rect_t *q, int *best)
{
    int cost = 1 << 30;
    for (int vert = 0; vert < 2; vert++) {
        int H = vert ? q->w : q->h, W = vert ? q->h : q->w;
        int ia = vert ? q->c - q->c0 : q->r - q->r0, jb = vert ? q->r - q->r0 : q->c - q->c0;
        bool bcentral = 2 * jb == W - 1 || 2 * jb == W;
        for (int m = 1; m <= H; m++)
            for (int al = (m - 1) / 2; al <= m / 2; al++) {
                int be = m - 1 - al, t = ia - al, u = H - 1 - ia - be;
                if (t < 0 || u < 0 || (vert && !bcentral && (t > 0 || u > 0)))
                    continue;
                int band = imax(cc(tab, tn, vert, t, W), cc(tab, tn, vert, u, W));
                for (int k = 1; k <= W; k++)
                    for (int ga = (k - 1) / 2; ga <= k / 2; ga++) {
                        int de = k - 1 - ga, l = jb - ga, r = W - 1 - jb - de;
                        if (l < 0 || r < 0 || (m == H && k == W))
                            continue;
                        int c = 1 + imax(imax(band, cc(tab, tn, vert, m, k)),
                                         imax(cc(tab, tn, vert, m, l), cc(tab, tn, vert, m, r)));
                        if (c < cost) {
                            cost = c;
                            best[0] = vert, best[1] = m, best[2] = al, best[3] = k, best[4] = ga;
                        }
                    }
            }
    }
    return cost;
}

/* source_cut of the whole mesh, remembered for the last source. */
static int first_cut(const cut_t *tab, int tn, int rows, int cols, int source, int *b)
{
    if (cache.rows != rows || cache.cols != cols || cache.source != source) {
        rect_t q = {0, 0, rows, cols, source / cols, source % cols};
        cache.steps = source_cut(tab, tn, &q, cache.b);
        cache.rows = rows, cache.cols = cols, cache.source = source;
    }
    memcpy(b, cache.b, sizeof cache.b);
    return cache.steps;
}

static bool inside(const rect_t *q, int r, int c)
{
    return r >= q->r0 && r < q->r0 + q->h && c >= q->c0 && c < q->c0 + q->w;
}

int ic_edn_node(int rows, int cols, int source, int node, int *parent, int *step, int *kids,
                int *kid_steps)
{
    *parent = -1;
    *step = 0;
    if (rows < 1 || cols < 1 || rows > 65535 || cols > 65535)
        return -1;
    int tn = rows > cols ? rows : cols;
    const cut_t *tab = table(tn, &tn); /* tn: the table's stride */
    if (!tab)
        return -1;
    int nr = node / cols, nc = node % cols, k = 0, s = 0;
    rect_t q = {0, 0, rows, cols, source / cols, source % cols}, part[5];
    bool first = true;
    while (q.h * q.w > 1) {
        int n;
        if (first) {
            int b[5];
            first_cut(tab, tn, rows, cols, source, b);
            n = split(&q, b[0], b[1], b[2], b[3], b[4], part);
            first = false;
        } else {
            n = central_split(tab, tn, &q, part);
        }
        s++;
        bool mine = q.r == nr && q.c == nc;
        for (int i = 1; i < n; i++) {
            if (mine) {
                kids[k] = part[i].r * cols + part[i].c;
                kid_steps[k++] = s;
            } else if (inside(&part[i], nr, nc)) {
                if (part[i].r == nr && part[i].c == nc) {
                    *parent = q.r * cols + q.c;
                    *step = s;
                }
                q = part[i];
                break;
            }
        }
        if (mine || inside(&part[0], nr, nc))
            q = part[0];
    }
    return k;
}

/* Visits the rectangles below q (its owner informed at step s): every
 * receiver's parent and step, and each owner's receivers in send order
 * appended to its list (seq: the order of discovery, per node). */
static void walk(const cut_t *tab, int tn, int cols, const rect_t *q, int s, bool first,
                 const int *b, int *parent, int *step, int *seq, int *nseq)
{
    if (q->h * q->w <= 1)
        return;
    rect_t part[5];
    int n = first ? split(q, b[0], b[1], b[2], b[3], b[4], part) : central_split(tab, tn, q, part);
    int owner = q->r * cols + q->c;
    for (int i = 1; i < n; i++) {
        int y = part[i].r * cols + part[i].c;
        parent[y] = owner;
        step[y] = s + 1;
        seq[(*nseq)++] = y;
    }
    for (int i = 1; i < n; i++)
        walk(tab, tn, cols, &part[i], s + 1, false, b, parent, step, seq, nseq);
    walk(tab, tn, cols, &part[0], s + 1, false, b, parent, step, seq, nseq);
}

int ic_edn_tree(int rows, int cols, int source, int *parent, int *step, int *off, int *kids,
                int *work)
{
    if (rows < 1 || cols < 1 || rows > 65535 || cols > 65535)
        return -1;
    int n = rows * cols, tn = rows > cols ? rows : cols, b[5] = {0};
    const cut_t *tab = table(tn, &tn); /* tn: the table's stride */
    if (!tab)
        return -1;
    if (n > 1)
        first_cut(tab, tn, rows, cols, source, b);
    rect_t q = {0, 0, rows, cols, source / cols, source % cols};
    int nseq = 0, *seq = work, *cur = work + n;
    parent[source] = -1;
    step[source] = 0;
    walk(tab, tn, cols, &q, 0, true, b, parent, step, seq, &nseq);
    for (int y = 0; y <= n; y++)
        off[y] = 0;
    for (int i = 0; i < nseq; i++)
        off[parent[seq[i]] + 1]++;
    for (int y = 0; y < n; y++) {
        off[y + 1] += off[y];
        cur[y] = off[y];
    }
    for (int i = 0; i < nseq; i++) /* discovery order: by step, then send order */
        kids[cur[parent[seq[i]]]++] = seq[i];
    return nseq;
}

int ic_edn_steps(int rows, int cols, int source)
{
    if (rows < 1 || cols < 1 || rows > 65535 || cols > 65535)
        return -1;
    if ((long)rows * cols == 1)
        return 0;
    int tn = rows > cols ? rows : cols, b[5];
    const cut_t *tab = table(tn, &tn); /* tn: the table's stride */
    if (!tab)
        return -1;
    return first_cut(tab, tn, rows, cols, source, b);
}

bool ic_edn_fits(const ic_phys_t *ph, int n)
{
    if (!ph || ph->kind != IC_PHYS_MESH || !ph->node_of || ph->ndims < 1 || ph->ndims > 2 ||
        ph->dims[0] > IC_EDN_MAX_SIDE || ph->dims[ph->ndims - 1] > IC_EDN_MAX_SIDE ||
        ic_phys_nodes(ph) != n)
        return false;
    bool *seen = calloc((size_t)n, sizeof *seen);
    bool ok = seen != NULL;
    for (int r = 0; ok && r < n; r++) {
        int x = ph->node_of[r];
        ok = x >= 0 && x < n && !seen[x];
        if (ok)
            seen[x] = true;
    }
    free(seen);
    return ok;
}

void ic_edn_shape(const ic_phys_t *ph, int *rows, int *cols)
{
    *rows = ph->ndims == 2 ? ph->dims[0] : 1;
    *cols = ph->dims[ph->ndims - 1];
}

/* The rank on each node (the placement inverted), from the plan's scratch
 * allocator; NULL after an allocation failure. */
static int *rank_of_node(ic_plan_t *pl, const ic_phys_t *ph)
{
    int *rk = ic_plan_tmp(pl, sizeof(int) * (size_t)pl->size);
    if (rk)
        for (int r = 0; r < pl->size; r++)
            rk[ph->node_of[r]] = r;
    return rk;
}

ic_status_t ic_build_bcast_edn(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_plan_next_phase(pl);
    size_t bytes = a->count * ic_args_esize(a);
    if (pl->size <= 1 || bytes == 0)
        return pl->error;
    int rows, cols, parent, step, kids[IC_EDN_MAX_SENDS], ks[IC_EDN_MAX_SENDS];
    ic_edn_shape(a->phys, &rows, &cols);
    int *rk = rank_of_node(pl, a->phys);
    int me = a->phys->node_of[pl->rank];
    int k = ic_edn_node(rows, cols, a->phys->node_of[a->root], me, &parent, &step, kids, ks);
    if (!rk || k < 0)
        return pl->error ? pl->error : IC_ERR_NO_MEM;
    ic_loc_t buf = ic_loc(IC_BUF_RECV, 0);
    if (parent >= 0)
        ic_plan_recv(pl, rk[parent], 0, buf, bytes);
    long first = -1, prev_first = -1;
    for (int i = 0; i < k; i++) {
        long s = ic_plan_send(pl, rk[kids[i]], 0, buf, bytes);
        if (i == 0 || ks[i] != ks[i - 1]) { /* a new step: after the last one's first send */
            prev_first = first;
            first = s;
        }
        if (prev_first >= 0 && s >= 0)
            ic_plan_add_dep(pl, s, prev_first);
    }
    return pl->error;
}

ic_status_t ic_build_reduce_edn(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_plan_next_phase(pl);
    size_t bytes = a->count * ic_args_esize(a);
    bool root = pl->rank == a->root;
    ic_loc_t in = a->in_place && root ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_SEND, 0);
    if (bytes == 0)
        return pl->error;
    if (pl->size <= 1) {
        if (!a->in_place)
            ic_plan_copy(pl, in, ic_loc(IC_BUF_RECV, 0), bytes);
        return pl->error;
    }
    int rows, cols, parent, step, kids[IC_EDN_MAX_SENDS], ks[IC_EDN_MAX_SENDS];
    ic_edn_shape(a->phys, &rows, &cols);
    int *rk = rank_of_node(pl, a->phys);
    /* The transposed mesh: node (r, c) is node c*rows + r there. */
    int me = a->phys->node_of[pl->rank], src = a->phys->node_of[a->root];
    int k = ic_edn_node(cols, rows, (src % cols) * rows + src / cols,
                        (me % cols) * rows + me / cols, &parent, &step, kids, ks);
    if (!rk || k < 0)
        return pl->error ? pl->error : IC_ERR_NO_MEM;
#define BACK(x) rk[((x) % rows) * cols + (x) / rows]
    if (k == 0) { /* a leaf */
        ic_plan_send(pl, BACK(parent), 0, in, bytes);
        return pl->error;
    }
    ic_loc_t acc =
        root ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
    if (!(root && a->in_place))
        ic_plan_copy(pl, in, acc, bytes);
    size_t tmp = ic_plan_scratch(pl, bytes * (size_t)k);
    /* Groups in reverse step order; each receive waits for every receive
     * of the group before. */
    long prev[4] = {-1, -1, -1, -1}, cur[4];
    int np = 0;
    for (int hi = k; hi > 0;) {
        int lo = hi - 1, nc = 0;
        while (lo > 0 && ks[lo - 1] == ks[hi - 1])
            lo--;
        for (int i = lo; i < hi; i++) {
            ic_loc_t t = ic_loc(IC_BUF_SCRATCH, tmp + bytes * (size_t)i);
            long s = ic_plan_recv(pl, BACK(kids[i]), 0, t, bytes);
            for (int j = 0; j < np && s >= 0; j++)
                if (prev[j] >= 0)
                    ic_plan_add_dep(pl, s, prev[j]);
            if (nc < 4)
                cur[nc++] = s;
            ic_plan_reduce(pl, t, acc, bytes, 0);
        }
        memcpy(prev, cur, sizeof cur);
        np = nc;
        hi = lo;
    }
    if (!root)
        ic_plan_send(pl, BACK(parent), 0, acc, bytes);
#undef BACK
    return pl->error;
}

/* The whole tree of the transposed mesh (frame nodes: node (r, c) is
 * c*rows + r), for the gather: every frame node's parent and step, and
 * its children at kid[off[y] .. off[y + 1]) with their steps in ks. */
typedef struct edn_tree {
    int *parent, *step, *off, *kid, *ks;
} edn_tree_t;

static bool transposed_tree(ic_plan_t *pl, int rows, int cols, int src, edn_tree_t *t)
{
    int n = rows * cols;
    t->parent = ic_plan_tmp(pl, sizeof(int) * (size_t)n);
    t->step = ic_plan_tmp(pl, sizeof(int) * (size_t)n);
    t->off = ic_plan_tmp(pl, sizeof(int) * (size_t)(n + 1));
    t->kid = ic_plan_tmp(pl, sizeof(int) * (size_t)n);
    t->ks = ic_plan_tmp(pl, sizeof(int) * (size_t)n);
    int *work = ic_plan_tmp(pl, sizeof(int) * 2 * (size_t)n);
    if (!t->parent || !t->step || !t->off || !t->kid || !t->ks || !work ||
        ic_edn_tree(cols, rows, (src % cols) * rows + src / cols, t->parent, t->step, t->off,
                    t->kid, work) < 0)
        return false;
    for (int i = 0; i < n - 1; i++)
        t->ks[i] = t->step[t->kid[i]];
    return true;
}

/* Gather(v) on the reduce's tree: a node packs its block and its
 * children's bundles in depth-first order (itself, then each child's
 * subtree in send order), receiving the groups as the reduce does, and
 * sends the bundle up; the root receives its children's bundles into
 * scratch and copies every block to its place. */
ic_status_t ic_build_gather_edn(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_plan_next_phase(pl);
    int n = pl->size;
    size_t *len = ic_args_block_bytes(pl, a);
    size_t *off = len ? ic_args_block_offsets(pl, a, len) : NULL;
    if (!off)
        return pl->error;
    bool root = pl->rank == a->root;
    ic_loc_t mine =
        a->in_place && root ? ic_loc(IC_BUF_RECV, off[pl->rank]) : ic_loc(IC_BUF_SEND, 0);
    if (root && !a->in_place)
        ic_plan_copy(pl, mine, ic_loc(IC_BUF_RECV, off[pl->rank]), len[pl->rank]);
    if (n <= 1)
        return pl->error;
    int rows, cols;
    ic_edn_shape(a->phys, &rows, &cols);
    int *rk = rank_of_node(pl, a->phys);
    edn_tree_t t;
    size_t *sub = ic_plan_sizes(pl, (size_t)n);
    int *order = ic_plan_tmp(pl, sizeof(int) * (size_t)n);
    int *cnt = ic_plan_tmp(pl, sizeof(int) * (size_t)n),
        *idx = ic_plan_tmp(pl, sizeof(int) * (size_t)n);
    if (!rk || !sub || !order || !cnt || !idx ||
        !transposed_tree(pl, rows, cols, a->phys->node_of[a->root], &t))
        return pl->error ? pl->error : IC_ERR_NO_MEM;
#define RANK(y) rk[((y) % rows) * cols + (y) / rows]
    /* Depth-first order from the root (children in send order), then the
     * subtrees' bytes from the leaves up (reverse depth-first order). */
    int src = a->phys->node_of[a->root], top = 0, no = 0;
    int *stack = ic_plan_tmp(pl, sizeof(int) * (size_t)n);
    if (!stack)
        return pl->error;
    stack[top++] = (src % cols) * rows + src / cols;
    while (top > 0) {
        int y = stack[--top];
        order[no++] = y;
        for (int i = t.off[y + 1] - 1; i >= t.off[y]; i--)
            stack[top++] = t.kid[i];
    }
    for (int i = n - 1; i >= 0; i--) {
        int y = order[i];
        idx[y] = i;
        sub[y] = len[RANK(y)];
        cnt[y] = 1;
        for (int j = t.off[y]; j < t.off[y + 1]; j++)
            sub[y] += sub[t.kid[j]], cnt[y] += cnt[t.kid[j]];
    }
    int me = a->phys->node_of[pl->rank];
    int y = (me % cols) * rows + me / cols, lo = t.off[y], hi = t.off[y + 1];
    if (lo == hi) { /* a leaf (never the root: it sends in step 1) */
        ic_plan_send(pl, RANK(t.parent[y]), 0, mine, len[pl->rank]);
        return pl->error;
    }
    /* The bundle: my block first (not at the root), then the children's. */
    size_t own = root ? 0 : len[pl->rank];
    size_t base = ic_plan_scratch(pl, sub[y] - (root ? len[pl->rank] : 0));
    if (!root)
        ic_plan_copy(pl, mine, ic_loc(IC_BUF_SCRATCH, base), own);
    size_t *at = ic_plan_sizes(pl, (size_t)(hi - lo));
    if (!at)
        return pl->error;
    for (int i = lo; i < hi; i++)
        at[i - lo] = i == lo ? base + own : at[i - lo - 1] + sub[t.kid[i - 1]];
    long prev[4] = {-1, -1, -1, -1}, cur[4] = {-1, -1, -1, -1};
    int np = 0;
    for (int h = hi; h > lo;) {
        int g = h - 1, nc = 0;
        while (g > lo && t.ks[g - 1] == t.ks[h - 1])
            g--;
        for (int i = g; i < h; i++) {
            int c = t.kid[i];
            long s = ic_plan_recv(pl, RANK(c), 0, ic_loc(IC_BUF_SCRATCH, at[i - lo]), sub[c]);
            for (int j = 0; j < np && s >= 0; j++)
                if (prev[j] >= 0)
                    ic_plan_add_dep(pl, s, prev[j]);
            if (nc < 4)
                cur[nc++] = s;
            if (root) { /* unpack the bundle: its subtree in depth-first order */
                size_t pos = at[i - lo];
                for (int d = idx[c]; d < idx[c] + cnt[c]; d++) {
                    int r = RANK(order[d]);
                    ic_plan_copy(pl, ic_loc(IC_BUF_SCRATCH, pos), ic_loc(IC_BUF_RECV, off[r]),
                                 len[r]);
                    pos += len[r];
                }
            }
        }
        memcpy(prev, cur, sizeof cur);
        np = nc;
        h = g;
    }
    if (!root)
        ic_plan_send(pl, RANK(t.parent[y]), 0, ic_loc(IC_BUF_SCRATCH, base), sub[y]);
#undef RANK
    return pl->error;
}
