/*
 * test_patterns.c — unit tests for the pure rank arithmetic of
 * src/algo/patterns.c: ic_ceil_log2, the MST edges produced by recursive
 * splitting (geometric and data-distribution-aware), and the partitions.
 *
 * The tree checks rebuild the whole tree from every member's own view
 * (ic_mst_edges for each me) and verify it globally: every non-root has
 * exactly one parent, parent and child agree on every edge, ranges nest
 * and are disjoint, children sit at an end of their range.
 */
#include "algo/patterns.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"


#define MAXN 130

/* Every member's edge list, and the tree read off them. */
typedef struct tree {
    int n, root;
    ic_mst_edge_t e[MAXN][MAXN];
    int ne[MAXN];
    int rlo[MAXN], rhi[MAXN];
    int parent[MAXN]; /* -1 for the root */
} tree_t;

static tree_t T;

static int same_edge(const ic_mst_edge_t *a, const ic_mst_edge_t *b)
{
    return a->parent == b->parent && a->child == b->child && a->lo == b->lo &&
           a->hi == b->hi && a->level == b->level;
}

/* Builds T for (sp, n, root) and checks the structural properties
 * (a), (b), (c), (e).  Returns the number of failures found (so callers
 * can stop early on a broken tree). */
static int check_tree(const ic_split_t *sp, int n, int root, const char *what)
{
    int before = failed;
    T.n = n;
    T.root = root;
    int nchild[MAXN];
    memset(nchild, 0, sizeof nchild);
    for (int me = 0; me < n; me++) {
        T.rlo[me] = T.rhi[me] = -2;
        T.ne[me] = ic_mst_edges(sp, n, root, me, T.e[me], &T.rlo[me], &T.rhi[me]);
        T.parent[me] = -1;
        CHECK(T.ne[me] >= 0 && T.ne[me] <= n, "%s n=%d root=%d me=%d: %d edges", what, n,
              root, me, T.ne[me]);
        if (T.ne[me] < 0 || T.ne[me] > n)
            return failed - before;
    }
    for (int me = 0; me < n; me++) {
        int k = 0;
        /* The edge where me is the child comes first, if any. */
        if (me != root) {
            CHECK(T.ne[me] >= 1 && T.e[me][0].child == me,
                  "%s n=%d root=%d: non-root %d has no child edge first", what, n, root, me);
            if (T.ne[me] >= 1 && T.e[me][0].child == me) {
                T.parent[me] = T.e[me][0].parent;
                k = 1;
            }
        } else {
            CHECK(T.rlo[me] == 0 && T.rhi[me] == n - 1,
                  "%s n=%d root=%d: root range [%d,%d]", what, n, root, T.rlo[me], T.rhi[me]);
        }
        for (int i = 0; i < T.ne[me]; i++) {
            const ic_mst_edge_t *ed = &T.e[me][i];
            if (ed->child >= 0 && ed->child < n)
                nchild[ed->child]++;
            CHECK(i < k || ed->parent == me,
                  "%s n=%d root=%d me=%d: edge %d has parent %d", what, n, root, me, i,
                  ed->parent);
            CHECK(ed->child != root, "%s n=%d root=%d: root is a child", what, n, root);
        }
        /* (c), (e) on the child edge: range holds the child at an end,
         * and matches the range reported through range_lo/hi. */
        if (k == 1) {
            const ic_mst_edge_t *ed = &T.e[me][0];
            CHECK(ed->lo <= me && me <= ed->hi && (me == ed->lo || me == ed->hi),
                  "%s n=%d root=%d: child %d not at an end of [%d,%d]", what, n, root, me,
                  ed->lo, ed->hi);
            CHECK(T.rlo[me] == ed->lo && T.rhi[me] == ed->hi,
                  "%s n=%d root=%d me=%d: range [%d,%d] vs edge [%d,%d]", what, n, root, me,
                  T.rlo[me], T.rhi[me], ed->lo, ed->hi);
        }
        /* (c) on the handed-out ranges: each lies at an end of what me
         * still holds, excludes me, and they are disjoint (what is handed
         * out leaves me's range); at the end me holds only itself. */
        int lo = T.rlo[me], hi = T.rhi[me], lastlevel = k ? T.e[me][0].level : -1;
        for (int i = k; i < T.ne[me]; i++) {
            const ic_mst_edge_t *ed = &T.e[me][i];
            int ok = ed->lo <= ed->hi && ed->lo >= lo && ed->hi <= hi &&
                     (ed->lo == lo || ed->hi == hi) && !(ed->lo <= me && me <= ed->hi);
            CHECK(ok, "%s n=%d root=%d: parent %d holding [%d,%d] hands out [%d,%d]", what, n,
                  root, me, lo, hi, ed->lo, ed->hi);
            CHECK(ed->level > lastlevel, "%s n=%d root=%d me=%d: levels not increasing", what,
                  n, root, me);
            CHECK(ed->lo <= ed->child && ed->child <= ed->hi &&
                      (ed->child == ed->lo || ed->child == ed->hi),
                  "%s n=%d root=%d: child %d not at an end of [%d,%d]", what, n, root,
                  ed->child, ed->lo, ed->hi);
            if (!ok)
                return failed - before;
            lastlevel = ed->level;
            if (ed->lo == lo)
                lo = ed->hi + 1;
            else
                hi = ed->lo - 1;
            /* (b): the child reports exactly this edge as its first. */
            int c = ed->child;
            CHECK(T.ne[c] >= 1 && same_edge(&T.e[c][0], ed),
                  "%s n=%d root=%d: edge %d->%d [%d,%d] L%d not reported by the child", what,
                  n, root, me, c, ed->lo, ed->hi, ed->level);
        }
        CHECK(lo == me && hi == me, "%s n=%d root=%d: %d keeps [%d,%d] at the end", what, n,
              root, me, lo, hi);
    }
    /* (a): one parent for every non-root, counted over all lists (each edge
     * appears in both the parent's and the child's list). */
    for (int i = 0; i < n; i++)
        CHECK(nchild[i] == (i == root ? 0 : 2), "%s n=%d root=%d: %d is child of %d/2 edges",
              what, n, root, i, nchild[i]);
    /* (b) from the child's side: the parent lists the same edge. */
    for (int me = 0; me < n; me++) {
        if (T.parent[me] < 0)
            continue;
        int p = T.parent[me], found = 0;
        for (int i = 0; i < T.ne[p]; i++)
            found += same_edge(&T.e[p][i], &T.e[me][0]);
        CHECK(found == 1, "%s n=%d root=%d: parent %d lists child %d's edge %d times", what, n,
              root, p, me, found);
    }
    return failed - before;
}

/* Max number of ancestors, following parent links (guards cycles). */
static int tree_depth(void)
{
    int d = 0;
    for (int i = 0; i < T.n; i++) {
        int k = 0, j = i;
        while (j != T.root && j >= 0 && k <= T.n) {
            j = T.parent[j];
            k++;
        }
        if (j != T.root)
            return -1;
        d = k > d ? k : d;
    }
    return d;
}

static void test_ceil_log2(void)
{
    for (long n = 1; n <= 1025; n++) {
        /* Independently: the number of doublings from 1 to reach n. */
        int want = 0;
        for (long p = 1; p < n; p *= 2)
            want++;
        CHECK(ic_ceil_log2(n) == want, "ceil_log2(%ld) = %d, want %d", n, ic_ceil_log2(n),
              want);
    }
    CHECK(ic_ceil_log2(1) == 0 && ic_ceil_log2(2) == 1 && ic_ceil_log2(3) == 2 &&
              ic_ceil_log2(1024) == 10 && ic_ceil_log2(1025) == 11,
          "ceil_log2 spot values");
}

static void test_geometric(void)
{
    for (int n = 1; n <= MAXN; n++)
        for (int root = 0; root < n; root++) {
            if (check_tree(NULL, n, root, "geometric"))
                return;
            /* (d) The tree takes ceil(log2 n) rounds: levels run 0..L-1.
             * In hops it is at most that deep, and exactly that deep when
             * n is a power of two (for n = 3 the optimal tree 0->2, 0->1
             * has one hop but two rounds). */
            int L = ic_ceil_log2(n), maxlev = -1;
            for (int me = 0; me < n; me++)
                for (int i = 0; i < T.ne[me]; i++)
                    maxlev = T.e[me][i].level > maxlev ? T.e[me][i].level : maxlev;
            CHECK(maxlev + 1 == L, "geometric n=%d root=%d: %d levels, want %d", n, root,
                  maxlev + 1, L);
            int d = tree_depth();
            CHECK(d >= 0 && d <= L && ((n & (n - 1)) != 0 || d == L),
                  "geometric n=%d root=%d: depth %d, ceil(log2 n) = %d", n, root, d, L);
        }
    /* An explicit IC_SPLIT_GEOMETRIC descriptor behaves like NULL. */
    ic_split_t g = {IC_SPLIT_GEOMETRIC, NULL, 0};
    ic_mst_edge_t a[MAXN], b[MAXN];
    for (int me = 0; me < 13; me++) {
        int na = ic_mst_edges(&g, 13, 5, me, a, NULL, NULL);
        int nb = ic_mst_edges(NULL, 13, 5, me, b, NULL, NULL);
        int same = na == nb;
        for (int i = 0; same && i < na; i++)
            same = same_edge(&a[i], &b[i]);
        CHECK(same, "IC_SPLIT_GEOMETRIC differs from NULL for me=%d", me);
    }
    /* n = 1: no edges, the root holds [0, 0]. */
    int lo = -1, hi = -1;
    CHECK(ic_mst_edges(NULL, 1, 0, 0, a, &lo, &hi) == 0 && lo == 0 && hi == 0, "n=1 tree");
}

static void test_data_random(void)
{
    size_t w[MAXN];
    for (int n = 1; n <= 40; n++)
        for (int rep = 0; rep < 6; rep++) {
            for (int i = 0; i < n; i++) {
                uint64_t r = rnd();
                /* A third zeros, some large, the rest small. */
                w[i] = r % 3 == 0 ? 0 : (r % 7 == 0 ? (size_t)(r >> 40) : (size_t)(r >> 56));
            }
            double thr = rep < 2 ? 0.0 : (rep < 4 ? 64.0 : 1e4);
            ic_split_t sp = {IC_SPLIT_DATA, w, thr};
            for (int root = 0; root < n; root++)
                if (check_tree(&sp, n, root, "data"))
                    return;
        }
}

/* One index x holds everything: it must get the whole vector straight
 * from the root, in one message. */
static void test_data_single_heavy(void)
{
    size_t w[MAXN];
    for (int n = 8; n <= 33; n++)
        for (int root = 0; root < n; root++)
            for (int x = 0; x < n; x++) {
                if (x == root)
                    continue;
                memset(w, 0, sizeof w);
                w[x] = 1u << 20;
                ic_split_t sp = {IC_SPLIT_DATA, w, 0.0};
                ic_mst_edge_t e[MAXN];
                int k = ic_mst_edges(&sp, n, root, x, e, NULL, NULL);
                CHECK(k >= 1 && e[0].child == x && e[0].parent == root,
                      "data n=%d root=%d heavy x=%d: parent %d, want the root", n, root, x,
                      k >= 1 ? e[0].parent : -1);
                if (x == (root + 3) % n && check_tree(&sp, n, root, "data-heavy"))
                    return;
            }
}

/* Equal weights and a huge threshold: exactly the geometric tree. */
static void test_data_equal_is_geometric(void)
{
    size_t w[MAXN];
    for (int n = 1; n <= 64; n++) {
        for (int i = 0; i < n; i++)
            w[i] = 1000;
        ic_split_t sp = {IC_SPLIT_DATA, w, 1e300};
        for (int root = 0; root < n; root++)
            for (int me = 0; me < n; me++) {
                ic_mst_edge_t a[MAXN], b[MAXN];
                int la, ha, lb, hb;
                int na = ic_mst_edges(&sp, n, root, me, a, &la, &ha);
                int nb = ic_mst_edges(NULL, n, root, me, b, &lb, &hb);
                int same = na == nb && la == lb && ha == hb;
                for (int i = 0; same && i < na; i++)
                    same = same_edge(&a[i], &b[i]);
                CHECK(same, "equal weights n=%d root=%d me=%d: differs from geometric", n,
                      root, me);
            }
    }
}

/* ic_split_range directly: the geometric split of [vdG-CCTP]. */
static void test_split_range(void)
{
    int olo, ohi;
    CHECK(ic_split_range(NULL, 0, 7, 0, &olo, &ohi) == 7 && olo == 4 && ohi == 7,
          "split [0,7] root 0 -> [%d,%d]", olo, ohi);
    CHECK(ic_split_range(NULL, 0, 7, 6, &olo, &ohi) == 0 && olo == 0 && ohi == 3,
          "split [0,7] root 6 -> [%d,%d]", olo, ohi);
    CHECK(ic_split_range(NULL, 2, 4, 3, &olo, &ohi) == 4 && olo == 4 && ohi == 4,
          "split [2,4] root 3 -> [%d,%d]", olo, ohi);
}

static void test_partitions(void)
{
    size_t off[17], len[17];
    for (size_t count = 0; count <= 50; count++)
        for (int n = 1; n <= 17; n++) {
            for (int i = 0; i < 17; i++)
                off[i] = len[i] = (size_t)-1;
            ic_partition_even(count, n, off, len);
            size_t sum = 0, mn = (size_t)-1, mx = 0;
            int ok = 1;
            for (int i = 0; i < n; i++) {
                ok &= off[i] == sum;
                sum += len[i];
                mn = len[i] < mn ? len[i] : mn;
                mx = len[i] > mx ? len[i] : mx;
                /* The first count % n pieces get the extra element. */
                ok &= len[i] == count / (size_t)n + ((size_t)i < count % (size_t)n);
            }
            CHECK(ok && sum == count && mx - mn <= 1,
                  "partition_even(%zu, %d): sum %zu, lens %zu..%zu", count, n, sum, mn, mx);
            if (n < 17)
                CHECK(off[n] == (size_t)-1 && len[n] == (size_t)-1,
                      "partition_even(%zu, %d) wrote past n", count, n);
        }
    size_t l[6] = {3, 0, 5, 1, 0, 7}, o[6];
    size_t tot = ic_prefix_offsets(l, 6, o);
    CHECK(tot == 16 && o[0] == 0 && o[1] == 3 && o[2] == 3 && o[3] == 8 && o[4] == 9 &&
              o[5] == 9,
          "prefix_offsets total %zu", tot);
    CHECK(ic_prefix_offsets(l, 0, o) == 0, "prefix_offsets of nothing");
}

static void test_views(void)
{
    ic_view_t v = ic_view_whole(6, 4);
    CHECK(v.n == 6 && v.first == 0 && v.stride == 1 && v.me == 4, "view_whole");
    ic_view_t c = {3, 1, 4, 2, NULL};
    CHECK(ic_view_rank(&c, 0) == 1 && ic_view_rank(&c, 2) == 9, "view_rank");
    CHECK(ic_ring_right(4, 5) == 0 && ic_ring_left(0, 5) == 4 && ic_ring_left(3, 5) == 2,
          "ring neighbours");
    CHECK(ic_mod(-1, 5) == 4 && ic_mod(-10, 5) == 0 && ic_mod(7, 5) == 2, "ic_mod");
}

int main(void)
{
    test_ceil_log2();
    test_split_range();
    test_geometric();
    test_data_random();
    test_data_single_heavy();
    test_data_equal_is_geometric();
    test_partitions();
    test_views();
    printf("test_patterns: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
