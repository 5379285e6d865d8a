/*
 * cost_pipeline.c — segment counts and costs of the pipeline family
 * (algo/chain_bcast.c, chain_reduce.c, dopl.c; builders in
 * algo/coll_pipeline.c).  ic_pipe_segments() is the one place the segment
 * count is chosen: builders and costs both call it.
 */
#include "algo/builders_pipeline.h"

#include <math.h>
#include <stdbool.h>
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
    if (m <= 2 || ic_model_crowded(md, m))
        return 1; /* more members than cores: the stages cannot overlap */
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

/* The segment count of a 2-member stream, or 0 (builders_pipeline.h). */
int ic_pipe_stream2_segments(size_t count, size_t es, const ic_model_t *md)
{
    double lim = md->rndv_bytes, n = (double)count * (double)es;
    if (count == 0 || !(lim > 0) || !(md->rndv_oneway_bytes >= lim) || ic_model_crowded(md, 2) ||
        !(n > lim) || (md->share_bytes > 0 && n >= md->share_bytes))
        return 0;
    size_t grain = ic_pipe_grain(es) * es, per = (size_t)lim / grain; /* granules a segment holds */
    if (per == 0)
        return 0;
    size_t units = ic_pipe_units(count, es), k = (units + per - 1) / per;
    return k < 2 || k > IC_PIPE_MAX_SEGMENTS ? 0 : (int)k;
}

int ic_chain_segments(int m, size_t count, size_t es, double rate, const ic_model_t *md)
{
    int k = m == 2 ? ic_pipe_stream2_segments(count, es, md) : 0;
    return k > 0 ? k : ic_pipe_segments(m, count, es, rate, md);
}

/* True when a 2-member chain of k segments is priced as a stream. */
static bool stream2(int m, size_t count, size_t es, int k, const ic_model_t *md)
{
    return m == 2 && k > 1 && ic_pipe_stream2_segments(count, es, md) == k;
}

/* A segment's cost beyond alpha + bytes*beta: a chain of two is one
 * one-way stream (the shared copy applies); in a longer one the inner
 * members receive while they send. */
static double seg_extra(const ic_model_t *md, int m, double bytes)
{
    return m == 2 ? ic_msg_extra_oneway(md, bytes) : ic_msg_extra(md, bytes);
}

double ic_cost_chain_bcast_time(int m, size_t count, size_t es, int k, const ic_model_t *md)
{
    if (m <= 1 || count == 0 || k <= 0)
        return 0;
    if (stream2(m, count, es, k, md)) /* one start-up, the last segment's second copy */
        return md->alpha + (double)count * (double)es * md->beta +
               seg_extra(md, m, (double)ic_pipe_seg_bytes(count, es, k, k - 1));
    double sum = k * md->alpha + (double)count * (double)es * md->beta;
    double seg0 = (double)ic_pipe_seg_bytes(count, es, k, 0);
    double cmax = md->alpha + seg0 * md->beta + seg_extra(md, m, seg0);
    for (int s = 0; s < k; s++)
        sum += seg_extra(md, m, (double)ic_pipe_seg_bytes(count, es, k, s));
    return sum + (m - 2) * cmax;
}

/* The recurrence of chain_reduce.c's header over h hops of a chain of m
 * members; the last node combines when last_combines. */
static double chain_time(int m, int h, bool last_combines, size_t count, size_t es, int k,
                         const ic_model_t *md)
{
    if (m <= 1 || count == 0 || k <= 0)
        return 0;
    double *av = calloc((size_t)k * 2, sizeof(double)), *len = av + k;
    if (!av)
        return -1;
    for (int s = 0; s < k; s++)
        len[s] = (double)ic_pipe_seg_bytes(count, es, k, s);
    bool stream = stream2(m, count, es, k, md);
    for (int q = 1; q <= h; q++) {
        bool combines = q < h || last_combines;
        double rprev = 0, aprev = 0;
        for (int s = 0; s < k; s++) {
            /* a stream's segments after the first have no start-up of their
             * own, and their second copies overlap the next ones' first */
            double up = stream && s > 0 ? 0 : md->alpha;
            double extra = stream && s < k - 1 ? 0 : seg_extra(md, m, len[s]);
            double r = (av[s] > rprev ? av[s] : rprev) + up + len[s] * md->beta + extra;
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

/* The last node combines unless the root sits in the middle of the chain. */
double ic_cost_chain_reduce_time(int m, int root, size_t count, size_t es, int k,
                                 const ic_model_t *md)
{
    bool middle = root != 0 && root != m - 1;
    return chain_time(m, middle ? m : m - 1, !middle, count, es, k, md);
}

static size_t esize(const ic_coll_args_t *a) { return ic_datatype_size(a->dtype); }

double ic_cost_bcast_chain(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    const ic_model_t *md = ic_pipe_model(a, m);
    size_t es = esize(a);
    int k = ic_chain_segments(p, a->count, es, md->beta, md);
    return ic_cost_chain_bcast_time(p, a->count, es, k, m);
}

/* Phase i of DOPL runs the chains of dimension i of every member that
 * holds the vector: dims[0] * .. * dims[i-1] of them, each with
 * dims[i] - 1 receivers copying at once (ic_model_crowd). */
double ic_cost_bcast_dopl(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    const ic_model_t *md = ic_pipe_model(a, m);
    ic_mesh_t mesh = ic_pipe_mesh(a, p);
    size_t es = esize(a);
    double t = 0, holders = 1;
    for (int i = 0; i < mesh.d; i++) {
        int k = ic_pipe_segments(mesh.dims[i], a->count, es, md->beta, md);
        ic_model_t mc = ic_model_crowd(m, holders * (mesh.dims[i] - 1));
        t += ic_cost_chain_bcast_time(mesh.dims[i], a->count, es, k, &mc);
        holders *= mesh.dims[i];
    }
    return t;
}

/* A reduction chain of dimension mi; senders: the members of all the
 * chains of its phase that send at once (ic_model_crowd). */
static double reduce_chain_dim(int mi, int ri, size_t count, size_t es, const ic_model_t *md,
                               const ic_model_t *m, double senders)
{
    int len = ri == 0 || ri == mi - 1 ? mi : mi + 1;
    int k = ic_pipe_segments(len, count, es, md->beta + md->gamma, md);
    ic_model_t mc = ic_model_crowd(m, senders);
    return ic_cost_chain_reduce_time(mi, ri, count, es, k, &mc);
}

double ic_cost_reduce_chain(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    const ic_model_t *md = ic_pipe_model(a, m);
    size_t es = esize(a);
    int k = p == 2 ? ic_pipe_stream2_segments(a->count, es, md) : 0;
    if (k == 0) /* every other chain as a DOPL dimension's */
        return reduce_chain_dim(p, a->root, a->count, es, md, m, 1);
    return ic_cost_chain_reduce_time(p, a->root, a->count, es, k, m);
}

int ic_scan_chain_segments(int p, size_t count, size_t es, const ic_model_t *md)
{
    return ic_pipe_segments(p, count, es, md->beta + md->gamma, md);
}

/* The reduction chain into p-1: every hop combines, but the last one of
 * an exscan (member p-1 only receives). */
double ic_cost_chain_scan_time(int m, bool exclusive, size_t count, size_t es, int k,
                               const ic_model_t *md)
{
    return chain_time(m, m - 1, !exclusive, count, es, k, md);
}

/* Crowded, the copies of their inputs that members make before their
 * first segment arrives (exscan: members 1..p-2 into scratch; scan with a
 * non-commutative operation out of place: 1..p-1 into the output) share
 * the cores with the first hop: copies/cores of them land on the path.
 * With a core each they run while the member waits and cost nothing. */
double ic_cost_scan_chain(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    size_t es = esize(a);
    bool exclusive = a->coll == IC_COLL_EXSCAN;
    int k = ic_scan_chain_segments(p, a->count, es, ic_pipe_model(a, m));
    double t = ic_cost_chain_scan_time(p, exclusive, a->count, es, k, m);
    bool commutative = a->op && a->op->commutative;
    int copies = exclusive ? p - 2 : (!commutative && !a->in_place ? p - 1 : 0);
    if (t > 0 && copies > 0 && ic_model_crowded(m, p))
        t += copies / m->cores * (double)(a->count * es) * m->delta;
    return t;
}

double ic_cost_reduce_dopl(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    const ic_model_t *md = ic_pipe_model(a, m);
    ic_mesh_t mesh = ic_pipe_mesh(a, p);
    int rc[IC_MESH_MAX_DIMS];
    ic_mesh_coords(&mesh, a->root, rc);
    /* The reversed broadcast: the chains of dimension i run in
     * dims[0] * .. * dims[i-1] places at once. */
    double t = 0, chains = 1;
    for (int i = 0; i < mesh.d; i++) {
        double ti = reduce_chain_dim(mesh.dims[i], rc[i], a->count, esize(a), md, m,
                                     chains * (mesh.dims[i] - 1));
        if (ti < 0)
            return ti;
        t += ti;
        chains *= mesh.dims[i];
    }
    return t;
}

/* ---- DOPL with alternating dimension orders (k_alt) --------------------- */

double ic_cost_dopl_alt_paper(const ic_mesh_t *mesh, size_t count, size_t es, int kalt,
                              const ic_model_t *md, const ic_model_t *m)
{
    ic_dopl_alt_t s;
    ic_dopl_alt_init(&s, mesh, kalt);
    if (s.D == 0 || count == 0)
        return 0;
    double n = (double)count * (double)es, ka = s.kalt;
    size_t pc = ic_pipe_seg_bytes(count, es, s.kalt, 0) / es; /* the largest piece */
    double t = (ka - 1) * (m->alpha + n / ka * m->beta + ic_msg_extra(m, n / ka));
    for (int i = 0; i < s.D; i++) {
        int mi = mesh->dims[s.E[i]];
        int ki = ic_pipe_segments(mi, pc, es, md->beta, md);
        int fills = (s.kalt + s.D - 1 - i + s.D - 1) / s.D; /* ceil((kalt+D-1-i)/D) */
        t += ((double)fills * (mi - 1) + ki - 1) *
             (m->alpha + n / (ka * ki) * m->beta + ic_msg_extra(m, n / (ka * ki)));
    }
    return t;
}

int ic_dopl_alt_choose(const ic_mesh_t *mesh, size_t count, size_t es, const ic_model_t *md)
{
    int best = 2;
    double tb = ic_cost_dopl_alt_paper(mesh, count, es, 2, md, md);
    for (int k = 3; k <= IC_DOPL_MAX_KALT; k++) {
        double t = ic_cost_dopl_alt_paper(mesh, count, es, k, md, md);
        if (t < tb) {
            tb = t;
            best = k;
        }
    }
    return best;
}

/* When node u's bytes of piece x, cut into k send segments, are all in:
 * avail[s] = the latest arrival among the receive segments (cut krecv)
 * that overlap send segment s; 0 on the root (krecv 0). */
static void piece_avail(const double *arr, int krecv, size_t pcount, size_t es, int k,
                        double *avail)
{
    size_t rlo = 0, rhi = krecv > 0 ? ic_pipe_seg_bytes(pcount, es, krecv, 0) : 0, lo = 0;
    int j = 0;
    for (int s = 0; s < k; s++) {
        size_t hi = lo + ic_pipe_seg_bytes(pcount, es, k, s);
        double a = 0;
        while (krecv > 0 && j < krecv) {
            if (rhi > lo && rlo < hi) /* overlaps */
                a = arr[j] > a ? arr[j] : a;
            if (rhi >= hi)
                break; /* receive segment j reaches into the next send segment */
            rlo = rhi;
            if (++j < krecv)
                rhi += ic_pipe_seg_bytes(pcount, es, krecv, j);
        }
        avail[s] = a;
        lo = hi;
    }
}

/* One message of len bytes from u to w in port order; returns its end. */
static double msg(double *sfree, double *rfree, int u, int w, double ready, size_t len,
                  const ic_model_t *m)
{
    double st = sfree[u] > ready ? sfree[u] : ready;
    st = rfree[w] > st ? rfree[w] : st;
    double end = st + m->alpha + (double)len * m->beta + ic_msg_extra(m, (double)len);
    sfree[u] = rfree[w] = end;
    return end;
}

/* The replay below, or the thesis formula when it would take more than
 * cap node-segments. */
static double dopl_alt_time(const ic_mesh_t *mesh, int root, size_t count, size_t es, int kalt,
                            const ic_model_t *md, const ic_model_t *m, double cap);

double ic_cost_dopl_alt_time(const ic_mesh_t *mesh, int root, size_t count, size_t es, int kalt,
                             const ic_model_t *md, const ic_model_t *m)
{
    return dopl_alt_time(mesh, root, count, es, kalt, md, m, (double)IC_DOPL_EXACT_CAP);
}

static double dopl_alt_time(const ic_mesh_t *mesh, int root, size_t count, size_t es, int kalt,
                            const ic_model_t *md, const ic_model_t *m, double cap)
{
    ic_dopl_alt_t s;
    ic_dopl_alt_init(&s, mesh, kalt);
    if (s.D == 0 || count == 0)
        return 0;
    int p = (int)ic_mesh_size(mesh), d = mesh->d, K = s.kalt;
    size_t pc[IC_DOPL_MAX_KALT], koff[IC_DOPL_MAX_KALT + 1] = {0}, off;
    if (K > IC_DOPL_MAX_KALT)
        return -1;
    int kmax = 1;
    for (int x = 0; x < K; x++) {
        pc[x] = ic_dopl_alt_piece(count, es, K, x, &off) / es;
        int kx = 1;
        for (int i = 0; i < s.D; i++) {
            int k = ic_pipe_segments(mesh->dims[s.E[i]], pc[x], es, md->beta, md);
            kx = k > kx ? k : kx;
        }
        koff[x + 1] = koff[x] + (size_t)kx;
        kmax = kx > kmax ? kx : kmax;
    }
    if ((double)p * (double)koff[K] > cap)
        return ic_cost_dopl_alt_paper(mesh, count, es, K, md, m);
    int stride[IC_MESH_MAX_DIMS], rc[IC_MESH_MAX_DIMS];
    for (int i = d - 1, st = 1; i >= 0; st *= mesh->dims[i], i--)
        stride[i] = st;
    ic_mesh_coords(mesh, root, rc);
    double *arr = malloc(sizeof(double) * ((size_t)p * koff[K] + 2 * (size_t)p + (size_t)kmax));
    int *krecv = calloc((size_t)p * (size_t)K + (size_t)p * (size_t)d, sizeof(int));
    if (!arr || !krecv) {
        free(arr);
        free(krecv);
        return -1;
    }
    double *sfree = arr + (size_t)p * koff[K], *rfree = sfree + p, *avail = rfree + p, tmax = 0;
    int *coords = krecv + (size_t)p * (size_t)K;
    for (int v = 0; v < p; v++) {
        sfree[v] = rfree[v] = 0;
        ic_mesh_coords(mesh, v, coords + (size_t)v * (size_t)d);
    }
#define ARR(v, x) (arr + (size_t)(v) * koff[K] + koff[x])
#define KRECV(v, x) krecv[(size_t)(v) * (size_t)K + (size_t)(x)]
    for (int t = 0; t < s.steps; t++)
        for (int h = 0; h < p; h++) {
            const int *c = coords + (size_t)h * (size_t)d;
            ic_dopl_role_t r;
            ic_dopl_alt_role(&s, mesh, c, rc, t, &r);
            if (r.pos != 0)
                continue; /* one pass per chain, from its head */
            int sd = stride[r.dim], base = h - rc[r.dim] * sd, x = r.piece, k;
            if (x >= 0 && (k = ic_pipe_segments(r.m, pc[x], es, md->beta, md)) > 0)
                for (int q = 0; q + 1 < r.m; q++) {
                    int u = base + ((rc[r.dim] + q) % r.m) * sd;
                    int w = base + ((rc[r.dim] + q + 1) % r.m) * sd;
                    if (q == 0)
                        piece_avail(ARR(u, x), KRECV(u, x), pc[x], es, k, avail);
                    for (int g = 0; g < k; g++) {
                        double ready = q == 0 ? avail[g] : ARR(u, x)[g];
                        double e = msg(sfree, rfree, u, w, ready,
                                       ic_pipe_seg_bytes(pc[x], es, k, g), m);
                        ARR(w, x)[g] = e;
                        tmax = e > tmax ? e : tmax;
                    }
                    KRECV(w, x) = k;
                }
            x = r.wrap;
            if (x >= 0 &&
                (k = ic_dopl_alt_wrap_segs(&s, mesh, c, rc, t, pc[x], es, md)) > 0) {
                int u = base + ic_mod((long)rc[r.dim] - 1, r.m) * sd; /* the tail */
                piece_avail(ARR(u, x), KRECV(u, x), pc[x], es, k, avail);
                for (int g = 0; g < k; g++) {
                    double e = msg(sfree, rfree, u, h, avail[g],
                                   ic_pipe_seg_bytes(pc[x], es, k, g), m);
                    ARR(h, x)[g] = e;
                    tmax = e > tmax ? e : tmax;
                }
                KRECV(h, x) = k;
            }
        }
#undef ARR
#undef KRECV
    free(arr);
    free(krecv);
    return tmax;
}

double ic_cost_bcast_dopl_alt(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    const ic_model_t *md = ic_pipe_model(a, m);
    ic_mesh_t mesh = ic_pipe_mesh(a, p);
    size_t es = esize(a);
    /* The selector prices every candidate of a new call: the replay is
     * kept to IC_DOPL_SELECT_CAP node-segments (under a millisecond here;
     * the full cap took 35 ms for 64 MiB on 16 x 32), above which the
     * thesis formula, within 0.2 % of the simulator for long vectors,
     * prices it. */
    /* Its pieces keep every member copying at once (ic_model_crowd). */
    ic_model_t mc = ic_model_crowd(m, p);
    return dopl_alt_time(&mesh, a->root, a->count, es,
                         ic_dopl_alt_choose(&mesh, a->count, es, md), md, &mc,
                         (double)IC_DOPL_SELECT_CAP);
}
