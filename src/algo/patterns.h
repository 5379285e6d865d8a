/*
 * patterns.h — pure rank arithmetic shared by the building blocks.
 *
 * Nothing here touches a plan or a transport: unit tests call these
 * functions directly.
 */
#ifndef IC_ALGO_PATTERNS_H
#define IC_ALGO_PATTERNS_H

#include <stdbool.h>
#include <stddef.h>

/* A view: the members of a building block, as an arithmetic sequence of
 * communicator ranks first, first+stride, ... (n members).  me is this
 * rank's index in the view, or -1 when it is not a member.  Rows, columns
 * and dimensions of a row-major logical mesh are all views.  With map set,
 * the sequence indexes map instead, so any list of ranks is a view (the
 * members of one host, the hosts' leaders: algo/hosts.c). */
typedef struct ic_view {
    int n, first, stride, me;
    const int *map; /* NULL: the ranks themselves */
} ic_view_t;

static inline int ic_view_rank(const ic_view_t *v, int i)
{
    int j = v->first + i * v->stride;
    return v->map ? v->map[j] : j;
}

/* The whole communicator as a view. */
ic_view_t ic_view_whole(int size, int rank);

/* Ring neighbours in a view of n members. */
static inline int ic_ring_right(int i, int n) { return (i + 1) % n; }
static inline int ic_ring_left(int i, int n) { return (i + n - 1) % n; }
static inline int ic_mod(long a, int n) { return (int)(((a % n) + n) % n); }

/* ---- Minimum spanning trees by recursive splitting ------------------- */

/* How a range [lo, hi] holding a root is split in two: the other part
 * [*olo, *ohi] and its new root (returned).  weight (optional) gives the
 * bytes each index needs; threshold is alpha/beta in bytes.
 *   GEOMETRIC  halves at mid = floor((lo+hi)/2), the other half's new root
 *              at its far end ([vdG-CCTP]); a NULL split means this;
 *   DATA       the data-distribution-aware split ([Watts94] section 7);
 *   NEAR       the same halves, the new root at the other half's end
 *              nearest the root (the lowest index of the upper half, the
 *              highest of the lower half): [MTR94]'s U-mesh rule, which
 *              keeps recursive doubling on a dimension-ordered chain free
 *              of contention (phys.h). */
typedef struct ic_split {
    enum { IC_SPLIT_GEOMETRIC, IC_SPLIT_DATA, IC_SPLIT_NEAR } kind;
    const size_t *weight;
    double threshold;
} ic_split_t;

int ic_split_range(const ic_split_t *sp, int lo, int hi, int root, int *olo, int *ohi);

/* One edge of the tree: parent hands the range [lo, hi] to child, which is
 * the root of that range from then on.  level counts from the top. */
typedef struct ic_mst_edge {
    int parent, child, lo, hi, level;
} ic_mst_edge_t;

/* The edges touching index me of an n-member tree rooted at root, top-down:
 * at most one edge where me is the child (first), then the edges where me
 * is the parent.  out must hold n entries; returns the number written.
 * *range_lo / *range_hi (optional) receive the range me is root of after
 * receiving (the whole [0, n-1] for the root). */
int ic_mst_edges(const ic_split_t *sp, int n, int root, int me, ic_mst_edge_t *out,
                 int *range_lo, int *range_hi);

/* Depth of the geometric tree: ceil(log2 n). */
int ic_ceil_log2(long n);

/* ---- Partitions ------------------------------------------------------- */

/* Splits count elements into n nearly equal pieces (the first count % n get
 * one more): piece i starts at element off[i] and has len[i] elements. */
void ic_partition_even(size_t count, int n, size_t *off, size_t *len);

/* Packed offsets: off[i] = sum of len[0..i-1]; returns the total. */
size_t ic_prefix_offsets(const size_t *len, int n, size_t *off);

#endif
