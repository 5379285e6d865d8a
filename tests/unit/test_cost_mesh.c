/*
 * test_cost_mesh.c — the mesh-aware entries (flag IC_ALGO_MESH, built in
 * coll_mesh.c): the engine's simulated time equals each entry's cost
 * function (the sum of its stages) on every mesh shape tried, with equal
 * pieces (counts divisible by the number of pieces), and the cost equals
 * the papers' closed forms: DR / PFR collect and distributed reduction
 * (PFR on p = 60 = 2*2*3*5, DR on 5 x 7 and 3 x 4 x 5), SC broadcast,
 * DR allreduce.  Also: the hybrids are never worse than the pure methods
 * they include, and on hypercubes the allreduce hybrid's choice costs what
 * [vdG91]'s switch rule predicts.
 */
#include "algo/builders_mesh.h"
#include "select/catalog.h"
#include "sim/engine.h"

#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

static long passed, failed;

static void expect_eq(double got, double want, const char *what, const ic_mesh_t *m, size_t n)
{
    if (fabs(got - want) <= 1e-9 * (fabs(want) + 1)) {
        passed++;
        return;
    }
    if (failed++ < 400) {
        printf("FAIL %s mesh", what);
        for (int i = 0; i < m->d; i++)
            printf("%s%d", i ? "x" : " ", m->dims[i]);
        printf(" n=%zu: got %.9g, want %.9g\n", n, got, want);
    }
}

static const ic_model_t M = {.alpha = 3.0, .beta = 0.011, .gamma = 0.0057, .delta = 0.0, .beta_net = 0};

static void fill(ic_coll_args_t *a, ic_coll_t coll, size_t count, size_t *counts, int p,
                 const ic_mesh_t *mesh)
{
    for (int i = 0; i < p; i++)
        counts[i] = count;
    *a = (ic_coll_args_t){0};
    a->coll = coll;
    a->dtype = IC_INT32;
    a->op = IC_SUM;
    a->root = p / 3;
    a->count = count;
    a->counts = counts;
    a->model = M;
    a->mesh = mesh;
}

static double simulate(const ic_algo_t *al, const ic_mesh_t *mesh, size_t count)
{
    int p = (int)ic_mesh_size(mesh);
    ic_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    size_t *counts = malloc(sizeof(size_t) * (size_t)p);
    for (int i = 0; i < p; i++)
        fill(&args[i], al->coll, count, counts, p, mesh);
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = args;
    job.algo = al->name;
    ic_sim_result_t res = {0};
    double t = -1;
    if (ic_sim_run(p, &M, &job, 1, false, &res) == IC_OK)
        t = res.time;
    else
        printf("sim failed: %s\n", ic_last_error());
    free(args);
    free(counts);
    return t;
}

static double cost_of(const ic_algo_t *al, const ic_mesh_t *mesh, size_t count)
{
    int p = (int)ic_mesh_size(mesh);
    size_t *counts = malloc(sizeof(size_t) * (size_t)p);
    ic_coll_args_t a;
    fill(&a, al->coll, count, counts, p, mesh);
    double c = al->cost(&a, p, &M);
    free(counts);
    return c;
}

static double sum_m1(const ic_mesh_t *m, bool prime)
{
    double s = 0;
    for (int i = 0; i < m->d; i++) {
        int f[IC_MESH_MAX_DIMS], nf = prime ? ic_prime_factors(m->dims[i], f) : 1;
        if (!prime)
            f[0] = m->dims[i];
        for (int j = 0; j < nf; j++)
            s += f[j] - 1;
    }
    return s;
}

static int log2_exact(int m)
{
    int l = 0;
    while ((1 << l) < m)
        l++;
    return (1 << l) == m ? l : -1;
}

/* Closed forms of the papers (n bytes of vector, or N = p*b for blocks);
 * NAN where none applies. */
static double closed_form(const ic_algo_t *al, const ic_mesh_t *mesh, size_t count)
{
    const double a = M.alpha, b = M.beta, g = M.gamma;
    double p = (double)ic_mesh_size(mesh), n = 4.0 * (double)count;
    const char *nm = al->name;
    if (count == 0)
        return NAN; /* nothing is sent at all */
    bool dr = nm[0] == 'd' || (nm[0] == 's' && nm[1] == 'c');
    bool pfr = !strcmp(nm, "pfr") || !strcmp(nm, "pfr_alt");
    switch (al->coll) {
    case IC_COLL_ALLGATHER:
    case IC_COLL_ALLGATHERV:
        if (dr || pfr) /* T_DR-COLLECT, T_PFR-COLLECT */
            return sum_m1(mesh, pfr) * a + (p - 1) * n * b;
        return NAN;
    case IC_COLL_REDUCE_SCATTER:
    case IC_COLL_REDUCE_SCATTER_BLOCK:
        if (dr || pfr) /* T_DR-DISTRIBUTED REDUCTION */
            return sum_m1(mesh, pfr) * a + (p - 1) * n * (b + g);
        return NAN;
    case IC_COLL_ALLREDUCE:
        if (dr || !strcmp(nm, "pfr_dc"))
            return 2 * sum_m1(mesh, !dr) * a + (p - 1) / p * n * (2 * b + g);
        return NAN;
    case IC_COLL_BCAST:
        if (dr) { /* T_SC-BROADCAST (MST scatter closed form: m_i = 2^k) */
            double s = 0;
            for (int i = 0; i < mesh->d; i++) {
                int l = log2_exact(mesh->dims[i]);
                if (l < 0)
                    return NAN;
                s += l + mesh->dims[i] - 1;
            }
            return s * a + 2 * (p - 1) / p * n * b;
        }
        return NAN;
    case IC_COLL_REDUCE:
        if (dr) { /* T_DG-REDUCTION-TO-ONE */
            double s = 0;
            for (int i = 0; i < mesh->d; i++) {
                int l = log2_exact(mesh->dims[i]);
                if (l < 0)
                    return NAN;
                s += l + mesh->dims[i] - 1;
            }
            return s * a + (p - 1) / p * n * (2 * b + g);
        }
        return NAN;
    default:
        return NAN;
    }
}

static ic_mesh_t mk(int d, int a, int b, int c, int e)
{
    ic_mesh_t m = {0};
    int v[4] = {a, b, c, e};
    m.d = d;
    for (int i = 0; i < d; i++)
        m.dims[i] = v[i];
    return m;
}

/* On p = 2^d: the hybrid's cost (allreduce, and reduce for combine-to-
 * root) is the best of the d + 1 split counts, and [vdG91]'s rule (halve
 * while the vector is long, then exchange) lands on a split count of
 * equal cost. */
static void check_switch_rule(ic_coll_t coll, const char *name)
{
    const ic_algo_t *hy = ic_catalog_find(coll, name);
    char what[96];
    snprintf(what, sizeof what, "%s/%s vs [vdG91] switch rule", ic_coll_name(coll), name);
    for (int d = 1; d <= 6; d++) {
        int p = 1 << d;
        ic_mesh_t line = ic_mesh_line(p);
        for (size_t count = 1; count <= (1u << 16); count *= 4) {
            size_t counts[64];
            ic_coll_args_t a;
            fill(&a, coll, count * (size_t)p, counts, p, &line);
            a.root = 0;
            /* [vdG91] section 4: at a level with e dimensions left and
             * vector length x, exchange when x < 2 alpha / ((e-1)(beta+gamma)
             * + gamma), else halve. */
            double x = 4.0 * (double)a.count;
            int j = 0;
            for (int e = d; e >= 1; e--, j++) {
                if (x < 2 * M.alpha / ((e - 1) * (M.beta + M.gamma) + M.gamma))
                    break;
                x /= 2;
            }
            ic_sched_t s = ic_sched_mesh(&line, 1u);
            ic_sched_set_split(&s, j);
            double rule = ic_cost_mesh_sched(&a, p, &s, &M);
            double best = hy->cost(&a, p, &M);
            expect_eq(best, rule, what, &line, a.count);
        }
    }
}

/* The alternation order on 4 x 6 (rings 2 2 | 2 3, strides 12 6 | 3 1):
 * the collect takes 12, 3, 6, 1; the split order is its reverse. */
static void check_alternation(void)
{
    ic_mesh_t m = {2, {4, 6}};
    ic_sched_t s = ic_sched_mesh(&m, 3u);
    ic_sched_alternate(&s);
    const int want[] = {1, 6, 3, 12};
    for (int j = 0; j < 4; j++)
        expect_eq(s.ring[s.order[j]].stride, want[j], "alternation order", &m, (size_t)j);
    char d[64];
    ic_sched_describe(&s, d, sizeof d);
    expect_eq(strcmp(d, "split 3 2 2 2, short -") == 0, 1, d, &m, 0);
    /* Every rank gets a distinct piece. */
    int seen[24] = {0};
    for (int r = 0; r < 24; r++)
        seen[ic_sched_piece_of(&s, r)]++;
    for (int q = 0; q < 24; q++)
        expect_eq(seen[q], 1, "alternation pieces", &m, (size_t)q);
}

/* [vdG-CCTP]'s three 2-D broadcast options are the DR schedules with 0, 1
 * and 2 split rings on an r x c mesh (r, c powers of two; dimension 0, of
 * r ranks, is the column):
 *   1  MST over the mesh:                  log2(p)*(alpha + n*beta)
 *   2  scatter in the column, MST in rows, allgather in the column:
 *      (log2 p + r - 1)*alpha + (2(r-1) + log2 c)/r*n*beta
 *   3  scatter column, scatter rows, allgather rows, allgather column:
 *      (log2 p + r + c - 2)*alpha + 2(p-1)/p*n*beta */
static void check_bcast_options(int r, int c)
{
    ic_mesh_t m = {2, {r, c}};
    int p = r * c, lr = log2_exact(r), lc = log2_exact(c);
    size_t counts[64];
    for (size_t count = (size_t)p; count <= (size_t)p * 4096; count *= 8) {
        ic_coll_args_t a;
        fill(&a, IC_COLL_BCAST, count, counts, p, &m);
        double n = 4.0 * (double)count, al = M.alpha, b = M.beta;
        double want[3] = {(lr + lc) * (al + n * b),
                          (lr + lc + r - 1) * al + (2.0 * (r - 1) + lc) / r * n * b,
                          (lr + lc + r + c - 2) * al + 2.0 * (p - 1) / p * n * b};
        for (int j = 0; j < 3; j++) {
            ic_sched_t s = ic_sched_mesh(&m, 0);
            ic_sched_set_split(&s, j);
            char what[64];
            snprintf(what, sizeof what, "bcast [vdG-CCTP] option %d", j + 1);
            expect_eq(ic_cost_mesh_sched(&a, p, &s, &M), want[j], what, &m, count);
        }
    }
}

int main(void)
{
    check_alternation();
    check_bcast_options(4, 8);
    check_bcast_options(8, 4);
    check_bcast_options(2, 16);
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    ic_mesh_t meshes[64];
    int nm = 0;
    meshes[nm++] = mk(2, 5, 7, 0, 0);
    meshes[nm++] = mk(3, 3, 4, 5, 0);
    meshes[nm++] = mk(2, 4, 4, 0, 0);
    meshes[nm++] = mk(3, 2, 4, 8, 0);
    meshes[nm++] = mk(3, 2, 3, 5, 0);
    meshes[nm++] = mk(4, 2, 2, 3, 5);
    meshes[nm++] = mk(2, 6, 10, 0, 0);
    meshes[nm++] = mk(1, 60, 0, 0, 0);
    meshes[nm++] = mk(1, 64, 0, 0, 0);
    for (int p = 1; p <= 24; p++)
        meshes[nm++] = ic_mesh_line(p);
    for (size_t k = 0; k < ncat; k++) {
        const ic_algo_t *al = &cat[k];
        if (!(al->flags & IC_ALGO_MESH) || (al->flags & IC_ALGO_OWN_TESTS))
            continue;
        char what[96];
        snprintf(what, sizeof what, "%s/%s", ic_coll_name(al->coll), al->name);
        for (int i = 0; i < nm; i++) {
            int p = (int)ic_mesh_size(&meshes[i]);
            bool blocks = al->coll == IC_COLL_ALLGATHER || al->coll == IC_COLL_ALLGATHERV ||
                          al->coll == IC_COLL_REDUCE_SCATTER ||
                          al->coll == IC_COLL_REDUCE_SCATTER_BLOCK;
            /* Equal pieces: blocks of any count; vectors divisible by p. */
            size_t sizes[] = {0, 1, 5, 64, 1000};
            for (int s = 0; s < 5; s++) {
                size_t n = blocks ? sizes[s] : sizes[s] * (size_t)p;
                double sim = simulate(al, &meshes[i], n);
                double cost = cost_of(al, &meshes[i], n);
                expect_eq(sim, cost, what, &meshes[i], n);
                double cf = closed_form(al, &meshes[i], n);
                if (!isnan(cf))
                    expect_eq(cost, cf, what, &meshes[i], n);
            }
        }
    }
    check_switch_rule(IC_COLL_ALLREDUCE, "hybrid");
    check_switch_rule(IC_COLL_REDUCE, "mst_dg"); /* combine-to-root, [vdG91] section 5 */
    printf("test_cost_mesh: %ld passed, %ld failed\n", passed, failed);
    return failed != 0;
}
