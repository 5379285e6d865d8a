/*
 * cost_mesh.c — costs of stage schedules (the mesh-aware entries) and the
 * choice of a hybrid's parameters.
 *
 * A schedule's cost is the sum of its stages, each as long as its slowest
 * ring (the blocks' own cost functions on that ring's slab lengths).  With
 * equal pieces every ring of a stage is alike and the stages meet at one
 * instant, so the sum is the simulated time (tests/unit/test_cost_mesh.c);
 * otherwise it is an upper bound, since a ring may start before a slower
 * ring elsewhere finished the previous stage.
 */
#include "algo/builders_mesh.h"
#include "base/dtype.h"
#include "select/cost.h"

#include <stdlib.h>
#include <string.h>

double ic_cost_ring_allreduce(int n, size_t bytes, const ic_model_t *m)
{
    if (n <= 1 || bytes == 0)
        return 0;
    double msg = m->alpha + (double)bytes * m->beta + ic_msg_extra(m, (double)bytes);
    double red = (double)bytes * m->gamma;
    if (n == 2)
        return msg + red;
    return (n - 1) * (msg + red) + (double)bytes * m->delta; /* ring_allreduce.c */
}

/* The model a ring is priced with.  With m->beta_net > 0 the logical mesh
 * is the physical one: a ring inside a factored dimension whose members
 * are c neighbours apart shares every link with the c - 1 rings
 * interleaved with it ([Watts94] section 5.2, c_ij), so its bytes cost
 * max(beta, c * beta_net).  c is the ring's stride over its dimension's
 * stride (the dimension's fastest factor's).  Tree levels over such a
 * ring are priced alike (at most c of them share a link). */
static ic_model_t ring_model(const ic_sched_t *s, int t, const ic_model_t *m)
{
    ic_model_t r = *m;
    if (s->dim[t] < m->nlevels) { /* a level of a hierarchical machine: its own alpha, beta */
        r.alpha = m->lvl_alpha[s->dim[t]];
        r.beta = m->lvl_beta[s->dim[t]];
    }
    if (!(m->beta_net > 0))
        return r;
    int base = s->ring[t].stride;
    for (int u = 0; u < s->nrings; u++)
        if (s->dim[u] == s->dim[t] && s->ring[u].stride < base)
            base = s->ring[u].stride;
    double shared = (double)(s->ring[t].stride / base) * m->beta_net; /* c * beta_net */
    r.beta = shared > m->beta ? shared : m->beta;
    return r;
}

typedef enum { ST_GATHER_RING, ST_RS_RING, ST_SCATTER, ST_GATHER } stage_kind_t;

/* The model of a tree that runs in places places at once (the rings of
 * one stage, or a short ring's MSTs in every member the earlier rings
 * reached): each has cores / places of the cores, so its rounds are
 * crowded (cost_tree.c) as all of them together are. */
static ic_model_t in_places(const ic_model_t *m, double places)
{
    ic_model_t r = *m;
    if (r.cores > 0 && places > 1)
        r.cores /= places;
    return r;
}

/* The members the rings before position j of the order span. */
static double places_before(const ic_sched_t *s, int j)
{
    double n = 1;
    for (int i = 0; i < j; i++)
        n *= s->ring[s->order[i]].size;
    return n;
}

/* Cost of split stage k of kind kind: the slowest of its slabs.  With
 * monotone pieces (an even partition: the first count % P pieces are one
 * element longer; or equal blocks) the first slab is the slowest, since
 * every block cost grows with each length: only it is priced. */
static double stage_cost(const ic_sched_t *s, int k, stage_kind_t kind, int root,
                         const size_t *poff, bool monotone, const ic_model_t *model)
{
    int t = s->order[k], n = s->ring[t].size;
    ic_model_t rm = ring_model(s, t, model);
    if (kind == ST_SCATTER || kind == ST_GATHER)
        rm = in_places(&rm, places_before(s, k));
    const ic_model_t *m = &rm;
    long w = ic_sched_slab_pieces(s, k + 1), W = ic_sched_slab_pieces(s, k),
         P = ic_sched_pieces(s);
    size_t *len = malloc(sizeof(size_t) * (size_t)n);
    if (!len)
        return -1;
    double worst = 0;
    int rd = ic_sched_digit(s, t, root);
    for (long q0 = 0; q0 < (monotone ? 1 : P); q0 += W) {
        size_t total = 0;
        for (int u = 0; u < n; u++) {
            len[u] = poff[q0 + (u + 1) * w] - poff[q0 + u * w];
            total += len[u];
        }
        if (total == 0)
            continue; /* the blocks send no empty messages */
        double c;
        switch (kind) {
        case ST_GATHER_RING:
            c = ic_cost_ring_allgather(n, len, NULL, m, NULL);
            break;
        case ST_RS_RING:
            c = ic_cost_ring_reduce_scatter(n, len, m, NULL, NULL);
            break;
        case ST_SCATTER:
            c = ic_cost_mst_scatter(NULL, n, rd, len, m, NULL);
            break;
        default:
            c = ic_cost_mst_gather(NULL, n, rd, len, NULL, NULL, m);
            break;
        }
        worst = c > worst ? c : worst;
    }
    free(len);
    return worst;
}

/* The split stages of a schedule of p ranks.  In a ring stage every rank
 * copies at once: with more ranks than cores its bytes cost ceil(p /
 * cores) times more (ic_model_crowd); a tree stage is priced per round,
 * its cores shared with the stage's other trees (in_places). */
static double stages_cost(const ic_sched_t *s, int p, stage_kind_t kind, int root,
                          const size_t *poff, bool monotone, const ic_model_t *m)
{
    ic_model_t crowd = ic_model_crowd(m, p);
    if (kind == ST_GATHER_RING || kind == ST_RS_RING)
        m = &crowd;
    double t = 0;
    for (int k = 0; k < s->nsplit; k++)
        t += stage_cost(s, k, kind, root, poff, monotone, m);
    return t;
}

static size_t largest_piece(const size_t *poff, long P)
{
    size_t b = 0;
    for (long q = 0; q < P; q++)
        b = poff[q + 1] - poff[q] > b ? poff[q + 1] - poff[q] : b;
    return b;
}

double ic_cost_mesh_sched(const ic_coll_args_t *a, int p, const ic_sched_t *s,
                          const ic_model_t *m)
{
    long P = ic_sched_pieces(s);
    size_t *poff = malloc(sizeof(size_t) * ((size_t)(P > p ? P : p) + 1));
    if (!poff)
        return -1;
    size_t es = ic_datatype_size(a->dtype);
    bool blocks = a->coll == IC_COLL_ALLGATHER || a->coll == IC_COLL_ALLGATHERV ||
                  a->coll == IC_COLL_REDUCE_SCATTER || a->coll == IC_COLL_REDUCE_SCATTER_BLOCK;
    if (blocks) { /* pieces are the ranks' blocks, in piece order */
        for (int r = 0; r < p; r++)
            poff[ic_sched_piece_of(s, r) + 1] = (a->counts ? a->counts[r] : a->count) * es;
        poff[0] = 0;
        for (int q = 0; q < p; q++)
            poff[q + 1] += poff[q];
    } else {
        size_t base = a->count / (size_t)P, rem = a->count % (size_t)P;
        for (long q = 0; q <= P; q++)
            poff[q] = ((size_t)q * base + ((size_t)q < rem ? (size_t)q : rem)) * es;
    }
    /* Per-rank counts make pieces of any lengths; otherwise they are
     * monotone in piece order. */
    bool mono = !(blocks && a->counts &&
                  (a->coll == IC_COLL_ALLGATHERV || a->coll == IC_COLL_REDUCE_SCATTER));
    size_t piece = largest_piece(poff, P);
    /* Short rings: one MST after the other (coll_mesh.c). */
    double short_bcast = 0, short_reduce = 0;
    for (int j = s->nsplit; j < s->nrings; j++) {
        int t = s->order[j];
        ic_model_t rm = ring_model(s, t, m);
        rm = in_places(&rm, places_before(s, j));
        short_bcast += ic_cost_mst_bcast(s->ring[t].size, piece, &rm);
        short_reduce += ic_cost_mst_reduce(s->ring[t].size,
                                           ic_sched_view(s, t, a->root, true).me, piece, &rm);
    }
    double t = 0;
    switch (a->coll) {
    case IC_COLL_BCAST:
        t = stages_cost(s, p, ST_SCATTER, a->root, poff, mono, m) + short_bcast +
            stages_cost(s, p, ST_GATHER_RING, 0, poff, mono, m);
        break;
    case IC_COLL_REDUCE:
        t = stages_cost(s, p, ST_RS_RING, 0, poff, mono, m) + short_reduce +
            stages_cost(s, p, ST_GATHER, a->root, poff, mono, m);
        break;
    case IC_COLL_ALLREDUCE:
        t = stages_cost(s, p, ST_RS_RING, 0, poff, mono, m) + stages_cost(s, p, ST_GATHER_RING, 0, poff, mono, m);
        for (int j = s->nsplit; j < s->nrings; j++) {
            ic_model_t crowd = ic_model_crowd(m, p), rm = ring_model(s, s->order[j], &crowd);
            t += ic_cost_ring_allreduce(s->ring[s->order[j]].size, piece, &rm);
        }
        break;
    case IC_COLL_ALLGATHER:
    case IC_COLL_ALLGATHERV:
        t = stages_cost(s, p, ST_GATHER_RING, 0, poff, mono, m);
        break;
    default: /* reduce-scatter */
        t = stages_cost(s, p, ST_RS_RING, 0, poff, mono, m);
        break;
    }
    /* Piece order other than rank order: the blocks are copied once. */
    if (blocks && !ic_sched_natural(s))
        t += (double)poff[p] * m->delta;
    free(poff);
    return t;
}

/* Same search inputs: what the cost of a schedule depends on. */
static bool same_search(const ic_coll_args_t *x, const ic_coll_args_t *y)
{
    return x->coll == y->coll && x->dtype == y->dtype && x->count == y->count &&
           x->root == y->root && !x->counts && !y->counts;
}

ic_sched_t ic_mesh_sched(const ic_coll_args_t *a, int p, ic_mesh_variant_t v,
                         const ic_model_t *m)
{
    ic_mesh_t mesh = ic_args_mesh(a, p);
    unsigned all = (1u << mesh.d) - 1u;
    ic_sched_t s;
    switch (v) {
    case IC_MV_DR:
        return ic_sched_mesh(&mesh, 0);
    case IC_MV_PFR:
        return ic_sched_mesh(&mesh, all);
    case IC_MV_PFR_ALT:
        s = ic_sched_mesh(&mesh, all);
        ic_sched_alternate(&s);
        return s;
    case IC_MV_PFR_ALL:
        s = ic_sched_mesh(&mesh, all);
        ic_sched_set_split(&s, 0);
        return s;
    default:
        break;
    }
    /* The engine builds every rank's plan in one thread: remember the last
     * search (its result depends on the arguments, not on the rank). */
    static _Thread_local struct {
        bool valid;
        ic_coll_args_t a;
        int p;
        ic_mesh_variant_t v;
        ic_model_t m;
        ic_mesh_t mesh;
        ic_sched_t s;
    } memo;
    if (memo.valid && same_search(&memo.a, a) && memo.p == p && memo.v == v &&
        !memcmp(&memo.m, m, sizeof *m) && !memcmp(&memo.mesh, &mesh, sizeof mesh))
        return memo.s;
    /* Search: every set of dimensions to factor, and for the hybrid every
     * split count; the first cheapest wins (deterministic on all ranks;
     * unfactored dimensions come first, and they are contention-free on a
     * physical mesh of the same shape). */
    ic_sched_t best = ic_sched_mesh(&mesh, 0);
    double best_t = -1;
    /* On a machine of levels the hybrid also tries the rings in reverse
     * order, so that it can split inside the hosts (reduce-scatter there,
     * the short phase across hosts, allgather there).  With shared links
     * priced (beta_net) it also tries [Watts94] section 5.2's dimension
     * alternation (ic_sched_alternate): the split rings are then the
     * closest ones of each dimension, taken round-robin over the
     * dimensions, and the short rings the widest -- inside a split
     * dimension that is MST-SC's interleaved "virtual dimension"
     * (section 8): the short-vector tree runs over the spread-out nodes,
     * the long-vector rings over neighbours. */
    bool reverse = v == IC_MV_HYBRID && m->nlevels > 0;
    bool alternate = v == IC_MV_HYBRID && m->beta_net > 0;
    int norders = 1 + reverse + alternate;
    /* Factoring a dimension of prime size (or 1) changes nothing: only the
     * subsets of the composite dimensions are tried, in the same increasing
     * order (a skipped mask repeats a smaller one's schedule, which would
     * have won the tie).  A 2 x .. x 2 mesh has one subset, not 2^d. */
    unsigned useful = 0;
    for (int k = 0; k < mesh.d; k++) {
        int f[IC_MESH_MAX_DIMS];
        if (ic_prime_factors(mesh.dims[k], f) > 1)
            useful |= 1u << k;
    }
    for (unsigned mask = 0;; mask = (mask - useful) & useful) {
        for (int o = 0; o < norders; o++) {
            ic_sched_t c = ic_sched_mesh(&mesh, mask);
            if (o == 1 && reverse)
                for (int t = 0; t < c.nrings; t++)
                    c.order[t] = c.nrings - 1 - t;
            else if (o >= 1)
                ic_sched_alternate(&c);
            int lo = v == IC_MV_HYBRID ? 0 : c.nrings;
            for (int j = lo; j <= c.nrings; j++) {
                ic_sched_set_split(&c, j);
                double t = ic_cost_mesh_sched(a, p, &c, m);
                /* Better by more than rounding: equal sums added in another
                 * order must not pick a factored schedule over a plain one. */
                if (best_t < 0 || t < best_t - 1e-12 * best_t) {
                    best = c;
                    best_t = t;
                }
            }
        }
        if (mask == useful)
            break;
    }
    /* Only arguments without per-rank arrays are remembered. */
    memo.valid = !a->counts;
    memo.a = *a;
    memo.p = p;
    memo.v = v;
    memo.m = *m;
    memo.mesh = mesh;
    memo.s = best;
    return best;
}
