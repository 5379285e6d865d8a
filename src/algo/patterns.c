/*
 * patterns.c — recursive splitting ([vdG-CCTP] MSTBCAST, [Watts94] section 5.1),
 * the data-distribution-aware split ([Watts94] section 7), the near-end
 * split of U-mesh ([MTR94]), partitions.
 */
#include "algo/patterns.h"

ic_view_t ic_view_whole(int size, int rank)
{
    ic_view_t v = {size, 0, 1, rank, NULL};
    return v;
}

int ic_ceil_log2(long n)
{
    int d = 0;
    while ((1L << d) < n)
        d++;
    return d;
}

/* [vdG-CCTP]: mid = floor((lo+hi)/2); if root <= mid the other half is
 * [mid+1, hi] with its root at hi, else [lo, mid] with its root at lo. */
static int split_geometric(int lo, int hi, int root, int *olo, int *ohi)
{
    int mid = lo + (hi - lo) / 2;
    if (root <= mid) {
        *olo = mid + 1;
        *ohi = hi;
        return hi;
    }
    *olo = lo;
    *ohi = mid;
    return lo;
}

static double range_weight(const size_t *w, int lo, int hi)
{
    double s = 0;
    for (int i = lo; i <= hi; i++)
        s += (double)w[i];
    return s;
}

/* [Watts94] section 7: hand the other part as much data as possible while
 * what stays with the root (without its own block) is at least what the
 * other part must still forward (without its new root's block), so the
 * root finishes last.  When the geometric split is within threshold bytes
 * of balance it is used instead (an extra start-up would not pay off). */
static int split_data(const ic_split_t *sp, int lo, int hi, int root, int *olo, int *ohi)
{
    const size_t *w = sp->weight;
    int glo, ghi, gdest = split_geometric(lo, hi, root, &glo, &ghi);
    double total = range_weight(w, lo, hi);
    double gother = range_weight(w, glo, ghi);
    double gimb = (gother - (double)w[gdest]) - (total - gother - (double)w[root]);
    if (gimb < 0)
        gimb = -gimb;
    if (gimb < sp->threshold || total == 0)
        return split_geometric(lo, hi, root, olo, ohi);
    double best = -1;
    int bdest = gdest;
    *olo = glo;
    *ohi = ghi;
    /* Candidates right of the root: [s, hi], new root hi. */
    double other = 0;
    for (int s = hi; s > root; s--) {
        other += (double)w[s];
        double stay = total - other - (double)w[root];
        if (other - (double)w[hi] <= stay && other > best) {
            best = other;
            *olo = s;
            *ohi = hi;
            bdest = hi;
        }
    }
    /* Candidates left of the root: [lo, s], new root lo. */
    other = 0;
    for (int s = lo; s < root; s++) {
        other += (double)w[s];
        double stay = total - other - (double)w[root];
        if (other - (double)w[lo] <= stay && other > best) {
            best = other;
            *olo = lo;
            *ohi = s;
            bdest = lo;
        }
    }
    return bdest;
}

int ic_split_range(const ic_split_t *sp, int lo, int hi, int root, int *olo, int *ohi)
{
    if (sp && sp->kind == IC_SPLIT_DATA && sp->weight)
        return split_data(sp, lo, hi, root, olo, ohi);
    int far = split_geometric(lo, hi, root, olo, ohi);
    if (sp && sp->kind == IC_SPLIT_NEAR)
        return far == *ohi ? *olo : *ohi;
    return far;
}

int ic_mst_edges(const ic_split_t *sp, int n, int root, int me, ic_mst_edge_t *out,
                 int *range_lo, int *range_hi)
{
    int lo = 0, hi = n - 1, r = root, k = 0, level = 0;
    int mylo = 0, myhi = n - 1;
    while (lo < hi) {
        int olo, ohi;
        int dest = ic_split_range(sp, lo, hi, r, &olo, &ohi);
        if (me >= olo && me <= ohi) {
            if (me == dest) {
                out[k++] = (ic_mst_edge_t){r, dest, olo, ohi, level};
                mylo = olo;
                myhi = ohi;
            }
            lo = olo;
            hi = ohi;
            r = dest;
        } else {
            if (me == r)
                out[k++] = (ic_mst_edge_t){r, dest, olo, ohi, level};
            if (olo == lo)
                lo = ohi + 1;
            else
                hi = olo - 1;
        }
        level++;
    }
    if (range_lo)
        *range_lo = mylo;
    if (range_hi)
        *range_hi = myhi;
    return k;
}

void ic_partition_even(size_t count, int n, size_t *off, size_t *len)
{
    size_t q = count / (size_t)n, r = count % (size_t)n, o = 0;
    for (int i = 0; i < n; i++) {
        len[i] = q + ((size_t)i < r);
        off[i] = o;
        o += len[i];
    }
}

size_t ic_prefix_offsets(const size_t *len, int n, size_t *off)
{
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        off[i] = o;
        o += len[i];
    }
    return o;
}
