/*
 * test_cost_alltoall.c — the alltoall family (bruck, aap, aap_dual, dr,
 * quadrant): the engine's simulated time equals each entry's cost
 * function, and the cost function equals the closed form of its block's
 * header, for even blocks, p = 1..64 (powers of two for aap), dr on the
 * line and on the meshes 5x7, 3x4x5, 4x4, 2x3x5, 2x2x3x5 and every
 * factorisation of a few p, quadrant on 2x2, 4x4, 8x8, 16x16 and 1x4x4
 * (and HUGE_VAL on every other shape of 4, 16 and 64); alpha, beta set to
 * distinct values, delta = 0 (copies are not priced).  Also the start-ups
 * per rank, the step order of AAP
 * ([BR90], figure 3 and section 3.3), and exact ties with pairwise
 * where the plans are pairwise exchange.
 */
#include "algo/builders_alltoall.h"
#include "select/catalog.h"
#include "sim/engine.h"
#include "unit/sampled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static long passed, failed;

static void expect_eq(double got, double want, const char *what, int p, size_t n)
{
    if (fabs(got - want) <= 1e-9 * (fabs(want) + 1)) {
        passed++;
        return;
    }
    if (failed++ < 300)
        printf("FAIL %s p=%d n=%zu: got %.9g, want %.9g\n", what, p, n, got, want);
}

static const ic_model_t M = {.alpha = 3.0, .beta = 0.011, .gamma = 0.0057, .delta = 0.0, .beta_net = 0};

/* Arguments of every rank: count int32 per block (v-forms: even counts). */
static void fill_args(ic_coll_args_t *a, const ic_algo_t *al, size_t count, const size_t *counts,
                      const ic_mesh_t *mesh)
{
    a->coll = al->coll;
    a->dtype = IC_INT32;
    a->count = count;
    a->scounts = counts;
    a->rcounts = counts;
    a->model = M;
    a->mesh = mesh;
}

/* Simulated time of al on p ranks; *msgs0 (optional) gets rank 0's
 * messages. */
static double simulate(const ic_algo_t *al, int p, size_t count, const ic_mesh_t *mesh,
                       size_t *msgs0)
{
    ic_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    size_t *counts = malloc(sizeof(size_t) * (size_t)p);
    size_t *node_msgs = calloc((size_t)p, sizeof(size_t));
    double t = -1;
    for (int i = 0; i < p; i++)
        counts[i] = count;
    for (int i = 0; i < p; i++)
        fill_args(&args[i], al, count, counts, mesh);
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = args;
    job.algo = al->name;
    ic_sim_result_t res = {0};
    res.node_msgs = node_msgs;
    if (ic_sim_run(p, &M, &job, 1, false, &res) == IC_OK)
        t = res.time;
    else
        printf("sim failed: %s\n", ic_last_error());
    if (msgs0)
        *msgs0 = node_msgs[0];
    free(args);
    free(counts);
    free(node_msgs);
    return t;
}

static double cost_of(const ic_algo_t *al, int p, size_t count, const ic_mesh_t *mesh)
{
    size_t *counts = malloc(sizeof(size_t) * (size_t)p);
    for (int i = 0; i < p; i++)
        counts[i] = count;
    ic_coll_args_t a = {0};
    fill_args(&a, al, count, counts, mesh);
    double c = al->cost(&a, p, &M);
    free(counts);
    return c;
}

/* The headers' closed forms, written independently of cost_alltoall.c. */
static double closed_form(const ic_algo_t *al, int p, size_t count, const ic_mesh_t *mesh)
{
    const double a = M.alpha, be = M.beta, n = 4.0 * (double)count, P = p;
    if (al->flags & IC_ALGO_SIZES) { /* the v-forms: the size exchange, then the data */
        const ic_algo_t *plain = ic_catalog_find(IC_COLL_ALLTOALL, al->name);
        double w = (double)sizeof(size_t), exchange = 0;
        for (long h = 1; al->name[0] == 'b' && h < p; h *= 2) {
            long full = p / (2 * h), rest = p % (2 * h) - h;
            exchange += a + (double)(full * h + (rest > 0 ? rest : 0)) * w * be;
        }
        for (int k = 0; al->name[0] == 'd' && k < mesh->d; k++)
            exchange += (mesh->dims[k] - 1) * (a + P / mesh->dims[k] * w * be);
        return exchange + closed_form(plain, p, count, mesh);
    }
    if (p == 1 || count == 0)
        return 0;
    if (al->name[0] == 'a') /* aap, aap_dual */
        return (P - 1) * (a + n * be);
    if (al->name[0] == 'q') { /* S - 1 stages of 3 steps, a token between two */
        double S = sqrt(P);
        return 3 * (S - 1) * (a + P / 4 * n * be) + (S - 2) * a;
    }
    if (al->name[0] == 'b') { /* n_k = #{0 <= r < p : bit k of r} */
        double t = 0;
        for (long h = 1; h < p; h *= 2) {
            long full = p / (2 * h), rest = p % (2 * h) - h;
            double nk = (double)(full * h + (rest > 0 ? rest : 0));
            t += a + nk * n * be;
        }
        return t;
    }
    double t = 0; /* dr */
    for (int k = 0; k < mesh->d; k++)
        t += (mesh->dims[k] - 1) * (a + P / mesh->dims[k] * n * be);
    return t;
}

/* Messages rank 0 sends (count > 0, p > 1). */
static double start_ups(const ic_algo_t *al, int p, const ic_mesh_t *mesh)
{
    if (al->flags & IC_ALGO_SIZES) /* the size exchange's and the data's */
        return 2 * start_ups(ic_catalog_find(IC_COLL_ALLTOALL, al->name), p, mesh);
    if (al->name[0] == 'a')
        return p - 1;
    if (al->name[0] == 'b')
        return ic_ceil_log2(p);
    if (al->name[0] == 'q') /* 3 per level (log4 p levels), a token after all but the last */
        return 4 * ic_ceil_log2(p) / 2 - 1;
    double s = 0;
    for (int k = 0; k < mesh->d; k++)
        s += mesh->dims[k] - 1;
    return s;
}

static void check(const ic_algo_t *al, int p, const ic_mesh_t *mesh)
{
    char what[96];
    ic_mesh_t line = ic_mesh_line(p);
    const ic_mesh_t *shape = mesh ? mesh : &line;
    snprintf(what, sizeof what, "%s/%s", ic_coll_name(al->coll), al->name);
    if (mesh) {
        size_t used = 0;
        used += (size_t)snprintf(what + used, sizeof what - used, "%s/%s mesh ",
                                 ic_coll_name(al->coll), al->name);
        for (int k = 0; k < mesh->d && used < sizeof what; k++)
            used += (size_t)snprintf(what + used, sizeof what - used, k ? "x%d" : "%d",
                                     mesh->dims[k]);
    }
    size_t sizes[] = {0, 1, 3, 100, (size_t)(3 * p + 1)};
    for (int s = 0; s < 5; s++) {
        size_t n = sizes[s], msgs = 0;
        /* The mesh is always given: a forced mesh-aware entry without one
         * runs on the shape the selector finds best. */
        double sim = simulate(al, p, n, shape, &msgs);
        double cost = cost_of(al, p, n, shape);
        expect_eq(sim, cost, what, p, n);
        expect_eq(cost, closed_form(al, p, n, shape), what, p, n);
        double want = n && p > 1 ? start_ups(al, p, shape) : 0;
        if ((al->flags & IC_ALGO_SIZES) && !n && p > 1) /* the size exchange only */
            want = start_ups(ic_catalog_find(IC_COLL_ALLTOALL, al->name), p, shape);
        expect_eq((double)msgs, want, what, p, n);
    }
}

/* AAP's step order: Q3 as in [BR90] (figure 3 and section 3.3), and for
 * every d <= 10 each mask once, phases in decreasing popcount, the dual
 * order pairing complementary dimension sets. */
static void check_masks(void)
{
    unsigned m[1024];
    const unsigned plain3[] = {7, 3, 5, 6, 1, 2, 4}, dual3[] = {7, 3, 4, 5, 2, 6, 1};
    int ok = ic_aap_masks(3, false, m) == 7;
    for (int i = 0; ok && i < 7; i++)
        ok = m[i] == plain3[i];
    expect_eq(ok, 1, "aap Q3 order", 8, 0);
    ok = ic_aap_masks(3, true, m) == 7;
    for (int i = 0; ok && i < 7; i++)
        ok = m[i] == dual3[i];
    expect_eq(ok, 1, "aap_dual Q3 order", 8, 0);
    for (int d = 0; d <= 10; d++)
        for (int dual = 0; dual < 2; dual++) {
            int n = 1 << d, cnt = ic_aap_masks(d, dual, m);
            char seen[1024] = {0};
            ok = cnt == n - 1;
            for (int i = 0; ok && i < cnt; i++) {
                ok = m[i] > 0 && m[i] < (unsigned)n && !seen[m[i]];
                seen[m[i]] = 1;
                if (!dual && i > 0)
                    ok = ok && __builtin_popcount(m[i]) <= __builtin_popcount(m[i - 1]);
                if (dual && i > 0 && i % 2 == 0)
                    ok = ok && (m[i] ^ m[i - 1]) == (unsigned)n - 1;
            }
            expect_eq(ok, 1, dual ? "aap_dual masks" : "aap masks", n, 0);
        }
}

int main(void)
{
    const char *names[] = {"bruck", "aap", "aap_dual", "dr"};
    const ic_coll_t colls[] = {IC_COLL_ALLTOALL, IC_COLL_ALLTOALLV};
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 4; k++) {
            const ic_algo_t *al = ic_catalog_find(colls[c], names[k]);
            if (!al) {
                if (c == 0) {
                    printf("FAIL %s: not in the catalog\n", names[k]);
                    failed++;
                }
                continue;
            }
            bool pow2 = (al->flags & IC_ALGO_POW2) != 0;
            for (int p = 1; p <= 64; p++)
                if ((!pow2 || (p & (p - 1)) == 0) && test_sampled_p(p))
                    check(al, p, NULL);
        }
    const ic_algo_t *dr = ic_catalog_find(IC_COLL_ALLTOALL, "dr");
    const ic_mesh_t meshes[] = {{2, {5, 7}}, {3, {3, 4, 5}}, {2, {4, 4}}, {3, {2, 3, 5}},
                                {4, {2, 2, 3, 5}}, {3, {1, 6, 1}}};
    const ic_algo_t *drv = ic_catalog_find(IC_COLL_ALLTOALLV, "dr");
    for (size_t k = 0; dr && k < sizeof meshes / sizeof meshes[0]; k++) {
        check(dr, (int)ic_mesh_size(&meshes[k]), &meshes[k]);
        if (drv)
            check(drv, (int)ic_mesh_size(&meshes[k]), &meshes[k]);
    }
    const int ps[] = {12, 16, 30, 36, 64};
    for (int i = 0; dr && i < 5; i++) {
        if (!test_sampled_p(ps[i]))
            continue; /* the sanitizer stage's sample (sampled.h) */
        ic_mesh_t all[64];
        int n = ic_mesh_factorizations(ps[i], 6, all, 64);
        for (int k = 0; k < n && k < 64; k++)
            check(dr, ps[i], &all[k]);
    }
    /* Where the plans are pairwise exchange (aap's costs, dr on a line),
     * the costs tie with pairwise exactly, so the selector keeps pairwise
     * (the first entry) rather than choosing on rounding noise. */
    const ic_algo_t *pw = ic_catalog_find(IC_COLL_ALLTOALL, "pairwise");
    const ic_algo_t *aap = ic_catalog_find(IC_COLL_ALLTOALL, "aap");
    for (int p = 1; pw && aap && dr && p <= 64; p++)
        for (size_t n = 0; n < 5000; n = n * 3 + 1) {
            double c = cost_of(pw, p, n, NULL);
            expect_eq(cost_of(aap, p, n, NULL) == c, 1, "aap ties with pairwise", p, n);
            expect_eq(cost_of(dr, p, n, NULL) == c, 1, "dr on a line ties with pairwise", p, n);
        }
    /* Quadrant exchange on the squares 2^j x 2^j (and one with a dimension
     * of 1); on every other shape of p = 4, 16, 64 it is priced HUGE_VAL, so
     * the selector prices it on the square only. */
    const ic_algo_t *qx = ic_catalog_find(IC_COLL_ALLTOALL, "quadrant");
    expect_eq(qx != NULL, 1, "quadrant in the catalog", 0, 0);
    const ic_mesh_t squares[] = {{2, {2, 2}}, {2, {4, 4}}, {2, {8, 8}}, {2, {16, 16}},
                                 {3, {1, 4, 4}}};
    for (size_t k = 0; qx && k < sizeof squares / sizeof squares[0]; k++)
        check(qx, (int)ic_mesh_size(&squares[k]), &squares[k]);
    for (int p = 4; qx && p <= 64; p *= 4) {
        ic_mesh_t all[64];
        int n = ic_mesh_factorizations(p, 3, all, 64);
        for (int k = 0; k < n && k < 64; k++) {
            bool square = all[k].d == 2 && all[k].dims[0] == all[k].dims[1];
            double c = cost_of(qx, p, 5, &all[k]);
            expect_eq(square ? isfinite(c) : c == HUGE_VAL, 1, "quadrant priced on squares only",
                      p, (size_t)k);
        }
    }
    check_masks();
    printf("test_cost_alltoall: %ld passed, %ld failed\n", passed, failed);
    return failed != 0;
}
