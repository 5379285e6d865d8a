/*
 * intercom_select_table.c — selection regret in simulation: for every
 * collective and vector size, the simulated time of the selector's choice
 * next to the fastest catalog entry forced by name, in the in-process
 * engine (bench/select_regret.sh writes the table to docs/selection.md).
 *
 *   intercom-select-table [--mesh 16x32] [--alpha US] [--beta US_PER_B]
 *                         [--gamma US_PER_B] [--max BYTES] [--coll NAME]
 *
 * Defaults: 512 ranks with the logical mesh 16 x 32 set (the selector
 * also tries every other shape), alpha = 100 us, beta = 0.01 us/B,
 * gamma = 0.005 us/B, delta = 0, n = 8 B .. 64 MiB by factors of 4 plus
 * 64 MiB (n/p per rank for the block collectives), bytes (uint8, sum).
 */
#include "select/catalog.h"
#include "sim/engine.h"
#include "sim_tool_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool block_coll(ic_coll_t c)
{
    return c == IC_COLL_SCATTER || c == IC_COLL_SCATTERV || c == IC_COLL_GATHER ||
           c == IC_COLL_GATHERV || c == IC_COLL_ALLGATHER || c == IC_COLL_ALLGATHERV ||
           c == IC_COLL_ALLTOALL || c == IC_COLL_ALLTOALLV ||
           c == IC_COLL_REDUCE_SCATTER_BLOCK || c == IC_COLL_REDUCE_SCATTER;
}

static double simulate(ic_coll_t coll, size_t n, const ic_mesh_t *mesh, const ic_model_t *m,
                       const char *algo, const char **chosen)
{
    int p = (int)ic_mesh_size(mesh);
    size_t count = block_coll(coll) ? (n / (size_t)p ? n / (size_t)p : 1) : n;
    ic_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    size_t *counts = malloc(sizeof(size_t) * (size_t)p);
    if (!args || !counts) {
        free(args);
        free(counts);
        return -1;
    }
    for (int i = 0; i < p; i++)
        counts[i] = count;
    bool v = coll == IC_COLL_SCATTERV || coll == IC_COLL_GATHERV ||
             coll == IC_COLL_ALLGATHERV || coll == IC_COLL_REDUCE_SCATTER;
    for (int i = 0; i < p; i++) {
        ic_coll_args_t *a = &args[i];
        a->coll = coll;
        a->dtype = IC_UINT8;
        a->op = IC_SUM;
        a->count = count;
        a->counts = v ? counts : NULL;
        a->scounts = counts;
        a->rcounts = counts;
        a->model = *m;
        a->mesh = mesh;
    }
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = args;
    job.algo = algo;
    ic_sim_result_t res = {0};
    double t = -1;
    if (ic_sim_run(p, m, &job, 1, false, &res) == IC_OK)
        t = res.time;
    else
        fprintf(stderr, "%s/%s n=%zu: %s\n", ic_coll_name(coll), algo ? algo : "auto", n,
                ic_last_error());
    if (chosen)
        *chosen = job.chosen;
    free(args);
    free(counts);
    return t;
}

int main(int argc, char **argv)
{
    ic_mesh_t mesh = {2, {16, 32}};
    ic_model_t m = {.alpha = 100, .beta = 0.01, .gamma = 0.005, .delta = 0, .beta_net = 0};
    size_t max = 64u << 20;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (sim_tool_arg(argc, argv, &i, &mesh, &m)) {
            continue;
        } else if (!strcmp(argv[i], "--max") && i + 1 < argc) {
            max = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--coll") && i + 1 < argc) {
            only = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--mesh AxB..] [--alpha us] [--beta us/B] [--gamma us/B] "
                            "[--max bytes] [--coll name]\n", argv[0]);
            return 2;
        }
    }
    int p = (int)ic_mesh_size(&mesh);
    sim_tool_print_setup(&mesh, &m, "; regret = selected / fastest - 1\n");
    printf("| collective | n | selected | simulated | fastest entry | simulated | regret |\n"
           "|---|---:|---|---:|---|---:|---:|\n");
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    double worst = 0;
    for (int c = 0; c < IC_COLL_COUNT; c++) {
        if (only && strcmp(only, ic_coll_name((ic_coll_t)c)))
            continue;
        for (size_t n = 8;; n = n * 4 > max && n < max ? max : n * 4) {
            if (c == IC_COLL_BARRIER && n > 8)
                break;
            const char *sel = NULL, *best = NULL;
            double ts = simulate((ic_coll_t)c, n, &mesh, &m, NULL, &sel), tb = -1;
            for (size_t k = 0; k < ncat; k++) {
                if (cat[k].coll != (ic_coll_t)c || ((cat[k].flags & IC_ALGO_POW2) && (p & (p - 1))))
                    continue;
                double t = simulate((ic_coll_t)c, n, &mesh, &m, cat[k].name, NULL);
                if (t >= 0 && (tb < 0 || t < tb)) {
                    tb = t;
                    best = cat[k].name;
                }
            }
            double r = tb > 0 ? ts / tb - 1 : 0;
            worst = r > worst ? r : worst;
            char nb[32];
            sim_tool_fmt_bytes(n, nb, sizeof nb);
            printf("| %s | %s | %s | %.1f us | %s | %.1f us | %.2f %% |\n",
                   ic_coll_name((ic_coll_t)c), nb, sel, ts, best, tb, 100 * r);
            fflush(stdout);
            if (n >= max)
                break;
        }
    }
    printf("\nworst regret: %.2f %%\n", 100 * worst);
    return 0;
}
