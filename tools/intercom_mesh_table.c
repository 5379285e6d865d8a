/*
 * intercom_mesh_table.c — simulated times of short-vector, long-vector and
 * hybrid algorithms on a logical mesh, from the in-process engine, as a
 * Markdown table (docs/algorithms.md's table is made by
 * scripts/mesh_table.sh with this tool).
 *
 *   intercom-mesh-table [--mesh 16x32] [--alpha US] [--beta US_PER_B]
 *                       [--gamma US_PER_B]
 *
 * Defaults: 512 ranks as 16 x 32, alpha = 100 us, beta = 0.01 us/B,
 * gamma = 0.005 us/B ([Watts94]'s Paragon-like setting of issue 4).  n is
 * the vector length of broadcast, reduce and allreduce, and the total
 * length of allgather and reduce-scatter (n/p bytes per rank, at least 1).
 * Elements are bytes (uint8, sum), so every n is exact.
 */
#include "algo/builders_mesh.h"
#include "select/catalog.h"
#include "sim/engine.h"
#include "sim_tool_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    ic_coll_t coll;
    const char *shrt, *lng, *hyb;
    ic_mesh_variant_t hv;
    const char *extra[2]; /* other entries shown for reference, or NULL */
} row_t;

static const row_t rows[] = {
    {IC_COLL_BCAST, "mst", "sc", "mst_sc", IC_MV_HYBRID, {"chain", "dopl"}},
    {IC_COLL_ALLGATHER, "pfr", "dr", "pfr_dr", IC_MV_PFR_DR, {NULL, NULL}},
    {IC_COLL_REDUCE_SCATTER_BLOCK, "pfr", "dr", "pfr_dr", IC_MV_PFR_DR, {NULL, NULL}},
    {IC_COLL_ALLREDUCE, "pfr", "dr", "hybrid", IC_MV_HYBRID, {"pfr_dc", NULL}},
    {IC_COLL_REDUCE, "mst", "dg", "mst_dg", IC_MV_HYBRID, {"chain", "dopl"}},
};

static void args_of(ic_coll_args_t *a, ic_coll_t coll, size_t n, int p, const ic_mesh_t *mesh,
                    const ic_model_t *m)
{
    bool blocks = coll == IC_COLL_ALLGATHER || coll == IC_COLL_REDUCE_SCATTER_BLOCK;
    *a = (ic_coll_args_t){0};
    a->coll = coll;
    a->dtype = IC_UINT8;
    a->op = IC_SUM;
    a->root = 0;
    a->count = blocks ? (n / (size_t)p ? n / (size_t)p : 1) : n;
    a->model = *m;
    a->mesh = mesh;
}

static double simulate(ic_coll_t coll, const char *algo, size_t n, const ic_mesh_t *mesh,
                       const ic_model_t *m)
{
    int p = (int)ic_mesh_size(mesh);
    ic_coll_args_t *args = malloc(sizeof(*args) * (size_t)p);
    if (!args)
        return -1;
    for (int r = 0; r < p; r++)
        args_of(&args[r], coll, n, p, mesh, m);
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = args;
    job.algo = algo;
    ic_sim_result_t res = {0};
    double t = -1;
    if (ic_sim_run(p, m, &job, 1, false, &res) == IC_OK)
        t = res.time;
    else
        fprintf(stderr, "intercom-mesh-table: %s/%s n=%zu: %s\n", ic_coll_name(coll), algo, n,
                ic_last_error());
    free(args);
    return t;
}

static void fmt_time(double us, char *buf, size_t len)
{
    if (us >= 1e6)
        snprintf(buf, len, "%.3f s", us / 1e6);
    else if (us >= 1e3)
        snprintf(buf, len, "%.2f ms", us / 1e3);
    else
        snprintf(buf, len, "%.0f us", us);
}

int main(int argc, char **argv)
{
    ic_mesh_t mesh = {2, {16, 32}};
    ic_model_t m = {.alpha = 100, .beta = 0.01, .gamma = 0.005, .delta = 0, .beta_net = 0}; /* microseconds */
    for (int i = 1; i < argc; i++) {
        if (sim_tool_arg(argc, argv, &i, &mesh, &m)) {
            continue;
        } else {
            fprintf(stderr, "usage: %s [--mesh AxBx..] [--alpha us] [--beta us/B] "
                            "[--gamma us/B]\n", argv[0]);
            return 2;
        }
    }
    int p = (int)ic_mesh_size(&mesh);
    sim_tool_print_setup(&mesh, &m, " (simulated, in-process engine)");
    const size_t sizes[] = {8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 2097152,
                            8388608, 33554432, 67108864};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        const row_t *r = &rows[k];
        printf("\n#### %s\n\n", ic_coll_name(r->coll));
        printf("| n | short: %s | long: %s | hybrid: %s | hybrid / best pure | hybrid's "
               "schedule |",
               r->shrt, r->lng, r->hyb);
        for (int x = 0; x < 2 && r->extra[x]; x++)
            printf(" for reference: %s |", r->extra[x]);
        printf("\n|---:|---:|---:|---:|---:|:---|");
        for (int x = 0; x < 2 && r->extra[x]; x++)
            printf("---:|");
        printf("\n");
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            double ts = simulate(r->coll, r->shrt, n, &mesh, &m);
            double tl = simulate(r->coll, r->lng, n, &mesh, &m);
            double th = simulate(r->coll, r->hyb, n, &mesh, &m);
            ic_coll_args_t a;
            args_of(&a, r->coll, n, p, &mesh, &m);
            ic_sched_t sc = ic_mesh_sched(&a, p, r->hv, &m);
            char nb[32], t1[32], t2[32], t3[32], d[160];
            ic_sched_describe(&sc, d, sizeof d);
            sim_tool_fmt_bytes(n, nb, sizeof nb);
            fmt_time(ts, t1, sizeof t1);
            fmt_time(tl, t2, sizeof t2);
            fmt_time(th, t3, sizeof t3);
            double best = ts < tl ? ts : tl;
            printf("| %s | %s | %s | %s | %.3f | %s |", nb, t1, t2, t3, th / best, d);
            for (int x = 0; x < 2 && r->extra[x]; x++) {
                char t4[32];
                fmt_time(simulate(r->coll, r->extra[x], n, &mesh, &m), t4, sizeof t4);
                printf(" %s |", t4);
            }
            printf("\n");
        }
    }
    return 0;
}
