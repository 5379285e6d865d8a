/*
 * cost_direct.c — cost of the direct reduce-scatter whose blocks are
 * combined in the rank tree (algo/tree_reduce_scatter.c), step by step as
 * its plan runs.
 *
 * In step k member x sends block x+k to member x+k once both have
 * finished step k-1; after its last receive a member combines its n-1
 * received blocks, len_x*gamma each.  For equal blocks of B bytes every
 * step takes alpha + B*beta and the time is the ring's
 * (n-1)*(alpha + B*(beta + gamma)), so the selector keeps the ring on ties
 * (catalog order) and takes this block where only it applies
 * (non-commutative operations, IC_REPRODUCIBLE).
 */
#include "select/cost.h"

#include <stdlib.h>

static double dmax(double a, double b) { return a > b ? a : b; }

double ic_cost_direct_reduce_scatter(int n, const size_t *len, const ic_model_t *m,
                                     double *done, double *rfree)
{
    bool equal = n > 1 && !done && !rfree;
    for (int i = 1; equal && i < n; i++)
        equal = len[i] == len[0];
    if (equal)
        return len[0] ? (n - 1) * (m->alpha + (double)len[0] * (m->beta + m->gamma) +
                                  ic_msg_extra(m, (double)len[0]))
                      : 0;
    double *fin = calloc((size_t)n, sizeof(double));  /* end of the member's last step */
    double *next = calloc((size_t)n, sizeof(double));
    double *last = calloc((size_t)n, sizeof(double)); /* end of its last receive */
    double end = -1;
    if (!fin || !next || !last)
        goto out;
    for (int k = 1; k < n; k++) {
        for (int x = 0; x < n; x++)
            next[x] = fin[x];
        for (int x = 0; x < n; x++) {
            int to = ic_mod(x + k, n);
            if (len[to] == 0)
                continue;
            double e = dmax(fin[x], fin[to]) + m->alpha + (double)len[to] * m->beta +
                       ic_msg_extra(m, (double)len[to]);
            next[x] = dmax(next[x], e);
            next[to] = dmax(next[to], e);
            last[to] = e;
        }
        double *t = fin;
        fin = next;
        next = t;
    }
    end = 0;
    for (int x = 0; x < n; x++) {
        double ready = dmax(fin[x], len[x] ? last[x] + (n - 1) * (double)len[x] * m->gamma : 0);
        if (done)
            done[x] = ready;
        if (rfree)
            rfree[x] = last[x];
        end = dmax(end, ready);
    }
out:
    free(fin);
    free(next);
    free(last);
    return end;
}
