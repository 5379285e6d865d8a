/*
 * cost_pipeline.c — segment counts and costs of the pipeline family
 * (algo/chain_bcast.c, chain_reduce.c, dopl.c; builders in
 * algo/coll_pipeline.c).  ic_pipe_segments() is the one place the segment
 * count is chosen: builders and costs both call it.
 */
#include "algo/builders_pipeline.h"

#include <math.h>
#include <stdlib.h>

/* The paper's pipeline time for k segments ([Watts94] section 9, k_alt = 1). */
static double paper_time(int m, double n, double rate, double alpha, double k)
{
    return ((m - 1) + k - 1) * (alpha + n / k * rate);
}

size_t ic_pipe_grain(size_t es)
{
    size_t a = es ? es : 1, b = IC_PIPE_GRAIN;
    while (b) { /* gcd */
        size_t t = a % b;
        a = b;
        b = t;
    }
    return IC_PIPE_GRAIN / a; /* lcm(es, GRAIN) / es */
}

size_t ic_pipe_units(size_t count, size_t es)
{
    size_t g = ic_pipe_grain(es);
    return (count + g - 1) / g;
}

size_t ic_pipe_seg_bytes(size_t count, size_t es, int k, int s)
{
    size_t g = ic_pipe_grain(es), units = ic_pipe_units(count, es);
    size_t q = units / (size_t)k, r = units % (size_t)k;
    size_t first = (size_t)s * q + ((size_t)s < r ? (size_t)s : r); /* granules before s */
    size_t lo = first * g, hi = (first + q + ((size_t)s < r)) * g;
    if (hi > count)
        hi = count;
    return (hi - lo) * es;
}

int ic_pipe_segments(int m, size_t count, size_t es, double rate, const ic_model_t *md)
{
    if (count == 0)
        return 0;
    size_t units = ic_pipe_units(count, es);
    size_t cap = units < IC_PIPE_MAX_SEGMENTS ? units : IC_PIPE_MAX_SEGMENTS;
    if (m <= 2)
        return 1;
    if (!(md->alpha > 0))
        return (int)cap;
    double n = (double)count * (double)es;
    double x = sqrt((m - 2) * n * rate / md->alpha);
    if (!(x >= 1)) /* also NaN */
        return 1;
    if (x >= (double)cap)
        return (int)cap;
    double lo = floor(x), hi = lo + 1;
    if (hi > (double)cap ||
        paper_time(m, n, rate, md->alpha, lo) <= paper_time(m, n, rate, md->alpha, hi))
        return (int)lo;
    return (int)hi;
}

double ic_cost_chain_bcast_time(int m, size_t count, size_t es, int k, const ic_model_t *md)
{
    if (m <= 1 || count == 0 || k <= 0)
        return 0;
    double sum = k * md->alpha + (double)count * (double)es * md->beta;
    double cmax = md->alpha + (double)ic_pipe_seg_bytes(count, es, k, 0) * md->beta;
    return sum + (m - 2) * cmax;
}

/* The recurrence of chain_reduce.c's header over h hops; the last node
 * combines unless the root sits in the middle of the chain. */
double ic_cost_chain_reduce_time(int m, int root, size_t count, size_t es, int k,
                                 const ic_model_t *md)
{
    if (m <= 1 || count == 0 || k <= 0)
        return 0;
    bool middle = root != 0 && root != m - 1;
    int h = middle ? m : m - 1;
    double *av = calloc((size_t)k * 2, sizeof(double)), *len = av + k;
    if (!av)
        return -1;
    for (int s = 0; s < k; s++)
        len[s] = (double)ic_pipe_seg_bytes(count, es, k, s);
    for (int q = 1; q <= h; q++) {
        bool combines = q < h || !middle;
        double rprev = 0, aprev = 0;
        for (int s = 0; s < k; s++) {
            double r = (av[s] > rprev ? av[s] : rprev) + md->alpha + len[s] * md->beta;
            rprev = r;
            if (combines) {
                double a = (r > aprev ? r : aprev) + len[s] * md->gamma;
                aprev = a;
                av[s] = a;
            } else {
                av[s] = r;
            }
        }
    }
    double t = av[k - 1];
    free(av);
    return t;
}

static size_t esize(const ic_coll_args_t *a) { return ic_datatype_size(a->dtype); }

double ic_cost_bcast_chain(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    const ic_model_t *md = ic_pipe_model(a, m);
    size_t es = esize(a);
    int k = ic_pipe_segments(p, a->count, es, md->beta, md);
    return ic_cost_chain_bcast_time(p, a->count, es, k, m);
}

double ic_cost_bcast_dopl(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    const ic_model_t *md = ic_pipe_model(a, m);
    ic_mesh_t mesh = ic_pipe_mesh(a, p);
    size_t es = esize(a);
    double t = 0;
    for (int i = 0; i < mesh.d; i++) {
        int k = ic_pipe_segments(mesh.dims[i], a->count, es, md->beta, md);
        t += ic_cost_chain_bcast_time(mesh.dims[i], a->count, es, k, m);
    }
    return t;
}

static double reduce_chain_dim(int mi, int ri, size_t count, size_t es, const ic_model_t *md,
                               const ic_model_t *m)
{
    int len = ri == 0 || ri == mi - 1 ? mi : mi + 1;
    int k = ic_pipe_segments(len, count, es, md->beta + md->gamma, md);
    return ic_cost_chain_reduce_time(mi, ri, count, es, k, m);
}

double ic_cost_reduce_chain(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    return reduce_chain_dim(p, a->root, a->count, esize(a), ic_pipe_model(a, m), m);
}

double ic_cost_reduce_dopl(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    const ic_model_t *md = ic_pipe_model(a, m);
    ic_mesh_t mesh = ic_pipe_mesh(a, p);
    int rc[IC_MESH_MAX_DIMS];
    ic_mesh_coords(&mesh, a->root, rc);
    double t = 0;
    for (int i = 0; i < mesh.d; i++) {
        double ti = reduce_chain_dim(mesh.dims[i], rc[i], a->count, esize(a), md, m);
        if (ti < 0)
            return ti;
        t += ti;
    }
    return t;
}
