/*
 * aap_alltoall.c — all-to-all(v) by direct exchange in the step order of
 * algorithm AAP (Boppana & Raghavendra) on the n = 2^d member hypercube,
 * and its dual-phase variant.
 *
 * Computes: block j of member i's send layout (slen[j] bytes) reaches
 * block i of member j's receive layout.  A step is a vector reversal on a
 * set of subcubes: for the dimension set D, member i exchanges with
 * i XOR mask(D), so every member sends and receives one message per step.
 * Phase f (0 <= f < d) holds the C(d, f) steps whose subcubes have d - f
 * dimensions, the sets D in lexicographic order; phase 0 is the reversal of
 * the whole cube.  Each mask 1..n-1 occurs once, so each pair exchanges
 * once, straight from the send layout into the receive layout (no
 * forwarding, hence any lengths: the v-form works).  The dual-phase
 * variant (dual) interleaves phase f with phase d - f: step (f, j) is
 * followed by step (d - f, C(d, f) - 1 - j), whose dimension set is the
 * complement, so a circuit-switched network can set up the next step's
 * paths on the links the current step leaves idle.
 * Preconditions: n a power of two (the catalog refuses other p), any
 * lengths (zero-length blocks send nothing); send and receive layouts must
 * not overlap.
 * Cost: (n-1)*(alpha + b*beta) for blocks of b bytes (+ b*delta for the
 *       own block) in the fully connected model, as pairwise exchange.  On
 *       a circuit-switched cube a reversal in an (d-f)-subcube costs
 *       xi + (d-f)*tau + (d-f) + k - 1 without link contention ([BR90]:
 *       T_aap = k(N-1) + (xi-1)(N-1) + (1+tau)/2*n*N), which a network
 *       model with paths will show.
 * Source: [BR90] section 3.2 (algorithm AAP, figure 3) and section 3.3 (the
 *       dual-phase variant).
 *
 * n = 8 (Q3), partner = i XOR mask:
 *   AAP:       phase 0: 7      phase 1: 3 5 6     phase 2: 1 2 4
 *              ({0,1,2})       ({0,1} {0,2} {1,2}) ({0} {1} {2})
 *   dual AAP:  7, 3 4, 5 2, 6 1   = (0,0) (1,0) (2,2) (1,1) (2,1) (1,2) (2,0)
 *   step mask 5: 0<->5 1<->4 2<->7 3<->6 (reversal in the {0,2} subcubes)
 */
#include "algo/builders_alltoall.h"

static long binom(int n, int k)
{
    if (k < 0 || k > n)
        return 0;
    long c = 1;
    for (int i = 1; i <= k; i++)
        c = c * (n - k + i) / i;
    return c;
}

/* The j-th k-element subset of {0..d-1}, in lexicographic order of the
 * sorted elements, as a bit mask. */
static unsigned subset_at(int d, int k, long j)
{
    unsigned m = 0;
    for (int i = 0, x = 0; i < k; i++, x++) {
        while (binom(d - x - 1, k - i - 1) <= j)
            j -= binom(d - x - 1, k - i - 1), x++;
        m |= 1u << x;
    }
    return m;
}

/* Step (f, j): the j-th vector reversal of phase f, on the subcubes of
 * d - f dimensions. */
static unsigned step_mask(int d, int f, long j)
{
    return subset_at(d, d - f, j);
}

int ic_aap_masks(int d, bool dual, unsigned *masks)
{
    if (d < 0 || d > 30)
        return -1;
    int cnt = 0;
    if (!dual) {
        for (int f = 0; f < d; f++)
            for (long j = 0; j < binom(d, f); j++)
                masks[cnt++] = step_mask(d, f, j);
        return cnt;
    }
    if (d > 0)
        masks[cnt++] = step_mask(d, 0, 0);
    /* Phase f with its dual d - f ([BR90] writes 1 < f, but its Q3
     * example interleaves phases 1 and 2, so f starts at 1). */
    for (int f = 1; 2 * f < d; f++) {
        long nf = binom(d, f);
        for (long j = 0; j < nf; j++) {
            masks[cnt++] = step_mask(d, f, j);
            masks[cnt++] = step_mask(d, d - f, nf - 1 - j);
        }
    }
    if (d >= 2 && d % 2 == 0) { /* phase d/2 is its own dual */
        long nf = binom(d, d / 2);
        for (long j = 0; j < nf / 2; j++) {
            masks[cnt++] = step_mask(d, d / 2, j);
            masks[cnt++] = step_mask(d, d / 2, nf - 1 - j);
        }
    }
    return cnt;
}

void ic_blk_aap_alltoall(ic_plan_t *pl, const ic_view_t *v, ic_layout_t send,
                         const size_t *slen, ic_layout_t recv, const size_t *rlen, bool dual)
{
    ic_plan_next_phase(pl);
    int n = v->n, me = v->me;
    if (me < 0)
        return;
    ic_plan_copy(pl, ic_layout_at(&send, me), ic_layout_at(&recv, me), slen[me]);
    if ((n & (n - 1)) != 0)
        return; /* not a cube: the builder refuses such calls */
    int d = ic_ceil_log2(n);
    unsigned *masks = ic_plan_tmp(pl, sizeof(unsigned) * (size_t)n);
    if (!masks || ic_aap_masks(d, dual, masks) != n - 1)
        return;
    for (int s = 0; s < n - 1; s++) {
        int peer = me ^ (int)masks[s];
        if (slen[peer] > 0)
            ic_plan_send(pl, ic_view_rank(v, peer), (uint32_t)s, ic_layout_at(&send, peer),
                         slen[peer]);
        if (rlen[peer] > 0)
            ic_plan_recv(pl, ic_view_rank(v, peer), (uint32_t)s, ic_layout_at(&recv, peer),
                         rlen[peer]);
    }
}
