/*
 * stages.c — rings of a refined mesh and stage schedules (see stages.h).
 */
#include "algo/stages.h"

#include <stdio.h>

ic_sched_t ic_sched_mesh(const ic_mesh_t *m, unsigned factor_mask)
{
    ic_sched_t s = {0};
    int stride = 1;
    /* Build least significant first, then reverse. */
    ic_ring_t tmp[IC_RINGS_MAX];
    int tdim[IC_RINGS_MAX];
    int n = 0;
    for (int k = m->d - 1; k >= 0; k--) {
        int f[IC_MESH_MAX_DIMS], nf;
        if (factor_mask & (1u << k)) {
            nf = ic_prime_factors(m->dims[k], f);
        } else {
            nf = m->dims[k] > 1;
            f[0] = m->dims[k];
        }
        /* Ascending factors, the largest fastest: walk them backwards. */
        for (int j = nf - 1; j >= 0 && n < IC_RINGS_MAX; j--) {
            tmp[n].size = f[j];
            tmp[n].stride = stride;
            tdim[n] = k;
            stride *= f[j];
            n++;
        }
    }
    s.nrings = n;
    for (int t = 0; t < n; t++) {
        s.ring[t] = tmp[n - 1 - t];
        s.dim[t] = tdim[n - 1 - t];
        s.order[t] = t;
    }
    s.nsplit = n;
    return s;
}

void ic_sched_set_split(ic_sched_t *s, int nsplit)
{
    s->nsplit = nsplit < 0 ? 0 : nsplit > s->nrings ? s->nrings : nsplit;
}

ic_view_t ic_sched_view(const ic_sched_t *s, int t, int r, bool active)
{
    int d = ic_sched_digit(s, t, r);
    ic_view_t v = {s->ring[t].size, r - d * s->ring[t].stride, s->ring[t].stride,
                   active ? d : -1, NULL};
    return v;
}

bool ic_sched_same_digits(const ic_sched_t *s, int r, int root, int lo, int hi)
{
    for (int k = lo; k < hi; k++)
        if (ic_sched_digit(s, s->order[k], r) != ic_sched_digit(s, s->order[k], root))
            return false;
    return true;
}

long ic_sched_pieces(const ic_sched_t *s)
{
    return ic_sched_slab_pieces(s, 0);
}

long ic_sched_slab_pieces(const ic_sched_t *s, int k)
{
    long w = 1;
    for (int j = k; j < s->nsplit; j++)
        w *= s->ring[s->order[j]].size;
    return w;
}

long ic_sched_slab_start(const ic_sched_t *s, int k, int r)
{
    long q = 0;
    for (int j = 0; j < k; j++)
        q = q * s->ring[s->order[j]].size + ic_sched_digit(s, s->order[j], r);
    return q * ic_sched_slab_pieces(s, k);
}

long ic_sched_piece_of(const ic_sched_t *s, int r)
{
    return ic_sched_slab_start(s, s->nsplit, r);
}

void ic_sched_describe(const ic_sched_t *s, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int part = 0; part < 2; part++) {
        int lo = part ? s->nsplit : 0, hi = part ? s->nrings : s->nsplit;
        int w = snprintf(buf + used, len - used, "%s", part ? ", short " : "split ");
        used += w > 0 && (size_t)w < len - used ? (size_t)w : 0;
        if (lo == hi) {
            w = snprintf(buf + used, len - used, "-");
            used += w > 0 && (size_t)w < len - used ? (size_t)w : 0;
        }
        for (int j = lo; j < hi; j++) {
            int t = s->order[j];
            const char *sep = j == lo ? "" : s->dim[s->order[j - 1]] == s->dim[t] ? "." : " ";
            w = snprintf(buf + used, len - used, "%s%d", sep, s->ring[t].size);
            used += w > 0 && (size_t)w < len - used ? (size_t)w : 0;
        }
    }
}

void ic_sched_alternate(ic_sched_t *s)
{
    int collect[IC_RINGS_MAX], n = 0, maxdim = 0;
    for (int t = 0; t < s->nrings; t++)
        maxdim = s->dim[t] > maxdim ? s->dim[t] : maxdim;
    bool taken[IC_RINGS_MAX] = {false};
    while (n < s->nrings) {
        for (int k = 0; k <= maxdim; k++)
            for (int t = 0; t < s->nrings; t++) /* widest first: lowest t */
                if (!taken[t] && s->dim[t] == k) {
                    taken[t] = true;
                    collect[n++] = t;
                    break;
                }
    }
    for (int j = 0; j < n; j++)
        s->order[j] = collect[n - 1 - j];
    s->nsplit = n;
}

bool ic_sched_natural(const ic_sched_t *s)
{
    for (int j = 0; j < s->nrings; j++)
        if (s->order[j] != j)
            return false;
    return true;
}
