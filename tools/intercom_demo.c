/*
 * intercom_demo.c — the main job's demo: every collective of the library
 * on P ranks in the in-process engine (real bytes, virtual time under the
 * papers' model), each result checked against a serial reference, then the
 * algorithm each collective's selector picks as the vector grows.
 *
 *   intercom-demo [-p P]        (default P = 12, not a power of two)
 */
#include "harness.h"
#include "select/catalog.h"
#include "sim/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void show_allreduce(int p)
{
    /* Rank r contributes the vector (r, 10r, 100r); everyone gets the sum. */
    int32_t *in = calloc((size_t)p * 3, sizeof(int32_t)), *out = calloc((size_t)p * 3, 4);
    void **sb = calloc((size_t)p, sizeof(void *)), **rb = calloc((size_t)p, sizeof(void *));
    ic_coll_args_t *a = calloc((size_t)p, sizeof(*a));
    ic_model_t m = ic_model_default();
    for (int r = 0; r < p; r++) {
        in[3 * r] = r;
        in[3 * r + 1] = 10 * r;
        in[3 * r + 2] = 100 * r;
        sb[r] = in + 3 * r;
        rb[r] = out + 3 * r;
        a[r] = (ic_coll_args_t){.coll = IC_COLL_ALLREDUCE, .dtype = IC_INT32, .op = IC_SUM,
                                .count = 3, .model = m};
    }
    ic_sim_job_t job = {.size = p, .args = a, .sendbuf = sb, .recvbuf = rb};
    ic_sim_result_t res = {0};
    if (ic_sim_run(p, &m, &job, 1, true, &res) != IC_OK) {
        printf("allreduce failed: %s\n", ic_last_error());
    } else {
        printf("Example: allreduce(sum) of rank r's vector (r, 10r, 100r) on %d ranks\n", p);
        printf("  rank 0 sends (%d, %d, %d), rank %d sends (%d, %d, %d)\n", in[0], in[1], in[2],
               p - 1, in[3 * (p - 1)], in[3 * (p - 1) + 1], in[3 * (p - 1) + 2]);
        printf("  every rank now holds (%d, %d, %d); expected (%d, %d, %d)\n", out[0], out[1],
               out[2], p * (p - 1) / 2, 10 * p * (p - 1) / 2, 100 * p * (p - 1) / 2);
        printf("  algorithm %s, %zu messages, simulated %.2f us\n\n", job.chosen, res.msgs,
               res.time * 1e6);
    }
    free(in);
    free(out);
    free(sb);
    free(rb);
    free(a);
}

static void sweep(int p)
{
    const ic_coll_t colls[] = {IC_COLL_BCAST, IC_COLL_REDUCE, IC_COLL_ALLREDUCE,
                               IC_COLL_ALLGATHER, IC_COLL_REDUCE_SCATTER_BLOCK};
    const size_t bytes[] = {8, 1024, 65536, 1 << 20, 16 << 20};
    ic_model_t m = ic_model_default();
    printf("What the selector picks on %d ranks (model alpha %.1f us, beta %.2f ns/B, "
           "gamma %.2f ns/B)\n", p, m.alpha * 1e6, m.beta * 1e9, m.gamma * 1e9);
    printf("  %-22s", "collective \\ bytes");
    for (int s = 0; s < 5; s++)
        printf(" %18zu", bytes[s]);
    printf("\n");
    for (int c = 0; c < 5; c++) {
        printf("  %-22s", ic_coll_name(colls[c]));
        for (int s = 0; s < 5; s++) {
            ic_coll_args_t a = {.coll = colls[c], .dtype = IC_BYTE, .op = IC_BOR,
                                .count = bytes[s], .model = m};
            if (colls[c] == IC_COLL_ALLGATHER || colls[c] == IC_COLL_REDUCE_SCATTER_BLOCK)
                a.count = bytes[s] > (size_t)p ? bytes[s] / (size_t)p : 1; /* comparable totals */
            const ic_algo_t *al = ic_select(&a, p, &m);
            char cell[40];
            snprintf(cell, sizeof cell, "%s %.0fus", al->name, al->cost(&a, p, &m) * 1e6);
            printf(" %18s", cell);
        }
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    int p = 12;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
            p = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [-p P]\n", argv[0]);
            return 2;
        }
    }
    if (p < 1 || p > 1024) {
        fprintf(stderr, "intercom-demo: -p must be in [1, 1024]\n");
        return 2;
    }
    harness_init();
    printf("intercom demo: %d ranks in the in-process engine (real data, virtual time)\n\n", p);
    show_allreduce(p);
    printf("Every collective, automatic algorithm, 1000 int32 per rank, uneven v-counts,\n"
           "checked byte for byte against a serial reference:\n");
    printf("  %-22s %-18s %12s %8s %10s  %s\n", "collective", "algorithm", "sim time", "msgs",
           "bytes", "check");
    int bad = 0;
    for (int c = 0; c < IC_COLL_COUNT; c++) {
        tcase_t tc = {0};
        tc.coll = (ic_coll_t)c;
        tc.p = p;
        tc.root = p / 3;
        tc.count = 1000;
        tc.dtype = IC_INT32;
        tc.op = IC_SUM;
        tc.vcounts = V_RANDOM;
        tc.seed = 42;
        char msg[512];
        const char *algo = "?";
        int fail = run_case(&tc, msg, sizeof msg, &algo);
        bad |= fail;
        printf("  %-22s %-18s %9.2f us %8zu %10zu  %s\n", ic_coll_name(tc.coll), algo,
               harness_last_time * 1e6, harness_last_msgs, harness_last_bytes,
               fail ? msg : "ok");
    }
    printf("\n");
    sweep(p);
    printf("\n%s\n", bad ? "SOME RESULTS WERE WRONG" : "All results match the serial reference.");
    return bad;
}
