/* test_coll_reproducible.c — IC_REPRODUCIBLE in the in-process engine:
 * every reduction gives, bit for bit, the serial reference of its
 * canonical order (canonical.h) on every rank.
 *
 * Adversarial inputs (values across the type's whole range with
 * cancellations, -0.0, subnormals, infinities, NaNs with payloads), float,
 * double, bfloat16 and float16, sum, prod, min and max, p in {2, 3, 5, 7,
 * 8, 12, 16}; reduce (three roots), allreduce, reduce_scatter_block,
 * reduce_scatter (uneven counts with zeros), scan and exscan; every
 * canonical entry forced by name and the selector's choice (which must be
 * canonical) under two models, every mesh shape of p, in place and not;
 * lengths 0, 1, 5, 100 (and 1000, 4099 for sum).  Since element i's
 * inputs do not depend on the length and every result equals the same
 * elementwise reference, results are identical across entries, lengths,
 * meshes, models and ranks.  Forcing an entry that is not canonical fails
 * with IC_ERR_NOT_APPLICABLE. */
#include "canonical.h"
#include "harness.h"

#include "algo/mesh.h"
#include "algo/validate.h"
#include "select/catalog.h"
#include "sim/engine.h"

#include <stdio.h>

typedef struct rcase {
    ic_coll_t coll;
    const char *algo; /* NULL: the selector */
    int p, root;
    size_t count;     /* vector length, or block length of reduce_scatter_block */
    ic_datatype_t dt;
    const ic_op_t *op;
    bool in_place;
    const ic_mesh_t *mesh;
    ic_model_t model;
    unsigned seed;
} rcase_t;

static const int ps[] = {2, 3, 5, 7, 8, 12, 16};
static const ic_datatype_t types[] = {IC_FLOAT, IC_DOUBLE, IC_BFLOAT16, IC_FLOAT16};
static const ic_coll_t colls[] = {IC_COLL_REDUCE, IC_COLL_ALLREDUCE,
                                  IC_COLL_REDUCE_SCATTER_BLOCK, IC_COLL_REDUCE_SCATTER,
                                  IC_COLL_SCAN, IC_COLL_EXSCAN};

/* reduce_scatter's counts: uneven, every third rank (from a seed-chosen
 * one) gets none. */
static void rs_counts(const rcase_t *c, size_t *counts)
{
    for (int r = 0; r < c->p; r++)
        counts[r] = (r + c->seed) % 3 == 0 ? 0 : c->count + (size_t)((r * 7 + c->seed) % 5);
}

/* Runs the case; 0 when every rank's result is the reference, bit for bit. */
static int run(const rcase_t *c, char *msg, size_t mlen, const char **chosen, ic_status_t *st_out)
{
    int p = c->p, fail = 1;
    size_t es = ic_datatype_size(c->dt);
    size_t *counts = calloc((size_t)p, sizeof(size_t)), *off = calloc((size_t)p, sizeof(size_t));
    size_t n = c->count; /* elements of each rank's input */
    if (c->coll == IC_COLL_REDUCE_SCATTER) {
        rs_counts(c, counts);
        n = ic_prefix_offsets(counts, p, off);
    } else if (c->coll == IC_COLL_REDUCE_SCATTER_BLOCK) {
        for (int r = 0; r < p; r++)
            counts[r] = c->count;
        n = ic_prefix_offsets(counts, p, off);
    }
    void **in = calloc((size_t)p, sizeof(void *)), **ref = calloc((size_t)p, sizeof(void *));
    void **sb = calloc((size_t)p, sizeof(void *)), **rb = calloc((size_t)p, sizeof(void *));
    size_t *sbytes = calloc((size_t)p, sizeof(size_t)), *rbytes = calloc((size_t)p, sizeof(size_t));
    ic_coll_args_t *args = calloc((size_t)p, sizeof(ic_coll_args_t));
    void *tmp = malloc(n * es + 1);
    for (int r = 0; r < p; r++) {
        in[r] = malloc(n * es + 1);
        ref[r] = malloc(n * es + 1);
        canon_fill(c->seed, r, 0, n, c->dt, in[r]);
    }
    bool scan = c->coll == IC_COLL_SCAN || c->coll == IC_COLL_EXSCAN;
    if (scan)
        canon_scan(c->op, c->dt, in, p, n, c->coll == IC_COLL_EXSCAN, ref);
    else
        canon_tree(c->op, c->dt, in, 0, p - 1, n, ref[0], tmp);
    for (int r = 0; r < p; r++) {
        ic_coll_args_t *a = &args[r];
        a->coll = c->coll;
        a->dtype = c->dt;
        a->op = c->op;
        a->root = c->root;
        a->count = c->count;
        a->counts = c->coll == IC_COLL_REDUCE_SCATTER ? counts : NULL;
        a->model = c->model;
        a->mesh = c->mesh;
        a->reproducible = true;
        bool gets = c->coll != IC_COLL_REDUCE || r == c->root;
        a->in_place = c->in_place && gets;
        size_t out = c->coll == IC_COLL_REDUCE_SCATTER || c->coll == IC_COLL_REDUCE_SCATTER_BLOCK
                         ? counts[r] : n;
        rbytes[r] = (a->in_place ? n : gets ? out : 0) * es;
        sbytes[r] = a->in_place ? 0 : n * es;
        sb[r] = malloc(sbytes[r] + 1);
        rb[r] = malloc(rbytes[r] + 1);
        memset(rb[r], 0xCD, rbytes[r]);
        memcpy(a->in_place ? rb[r] : sb[r], in[r], n * es);
    }
    ic_sim_job_t job = {0};
    job.size = p;
    job.args = args;
    job.algo = c->algo;
    job.sendbuf = sb;
    job.recvbuf = rb;
    job.sendbytes = sbytes;
    job.recvbytes = rbytes;
    ic_sim_result_t res = {0};
    ic_status_t st = ic_sim_run(p, &c->model, &job, 1, true, &res);
    if (st_out)
        *st_out = st;
    if (st != IC_OK) {
        snprintf(msg, mlen, "ic_sim_run: %s: %s", ic_status_string(st), ic_last_error());
        goto out;
    }
    if (chosen)
        *chosen = job.chosen;
    fail = 0;
    for (int r = 0; r < p && !fail; r++) {
        const char *want;
        size_t bytes;
        if (c->coll == IC_COLL_REDUCE && r != c->root)
            continue;
        if (c->coll == IC_COLL_EXSCAN && r == 0)
            continue; /* undefined */
        if (scan) {
            want = ref[r];
            bytes = n * es;
        } else if (c->coll == IC_COLL_REDUCE_SCATTER || c->coll == IC_COLL_REDUCE_SCATTER_BLOCK) {
            want = (const char *)ref[0] + off[r] * es;
            bytes = counts[r] * es;
        } else {
            want = ref[0];
            bytes = n * es;
        }
        if (memcmp(rb[r], want, bytes) != 0) {
            size_t b = 0;
            while (((const char *)rb[r])[b] == want[b])
                b++;
            size_t e = b / es;
            uint64_t g = 0, w = 0;
            memcpy(&g, (const char *)rb[r] + e * es, es);
            memcpy(&w, want + e * es, es);
            snprintf(msg, mlen,
                     "rank %d: element %zu is 0x%llx, the canonical reference 0x%llx", r, e,
                     (unsigned long long)g, (unsigned long long)w);
            fail = 1;
        }
    }
out:
    for (int r = 0; r < p; r++) {
        free(in[r]);
        free(ref[r]);
        free(sb[r]);
        free(rb[r]);
    }
    free(in);
    free(ref);
    free(sb);
    free(rb);
    free(sbytes);
    free(rbytes);
    free(args);
    free(tmp);
    free(counts);
    free(off);
    return fail;
}

static const char *op_name(const ic_op_t *op)
{
    return op == IC_SUM ? "sum" : op == IC_PROD ? "prod" : op == IC_MIN ? "min" : "max";
}

static void check(tally_t *t, const rcase_t *c)
{
    char msg[512];
    const char *chosen = NULL;
    int fail = run(c, msg, sizeof msg, &chosen, NULL);
    if (!fail && !c->algo) {
        const ic_algo_t *al = chosen ? ic_catalog_find(c->coll, chosen) : NULL;
        if (!al || !(al->flags & IC_ALGO_CANONICAL)) {
            snprintf(msg, sizeof msg, "the selector chose '%s', not a canonical entry",
                     chosen ? chosen : "(none)");
            fail = 1;
        }
    }
    if (!fail) {
        t->passed++;
        return;
    }
    if (t->failed++ < 20)
        printf("FAIL %s/%s p=%d root=%d count=%zu %s %s%s mesh=%dd seed=%u: %s\n",
               ic_coll_name(c->coll), c->algo ? c->algo : "auto", c->p, c->root, c->count,
               ic_datatype_name(c->dt), op_name(c->op), c->in_place ? " in-place" : "",
               c->mesh ? c->mesh->d : 0, c->seed, msg);
}

/* Every canonical entry of coll, then the selector (NULL). */
static int entries(ic_coll_t coll, int p, const char **names)
{
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    int k = 0;
    for (size_t a = 0; a < ncat; a++)
        if (cat[a].coll == coll && (cat[a].flags & IC_ALGO_CANONICAL) &&
            (!(cat[a].flags & IC_ALGO_POW2) || (p & (p - 1)) == 0))
            names[k++] = cat[a].name;
    names[k++] = NULL;
    return k;
}

int main(void)
{
    tally_t t = {0};
    unsigned seed = 7;
    ic_model_t models[2] = {ic_model_default(), ic_model_default()};
    models[1].alpha = 1e-8; /* start-ups nearly free: long-vector entries win early */
    const ic_op_t *ops[4] = {IC_SUM, IC_PROD, IC_MIN, IC_MAX};
    const size_t lens[] = {0, 1, 5, 100, 1000, 4099};
    for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
        int p = ps[pi];
        for (size_t ci = 0; ci < sizeof colls / sizeof colls[0]; ci++) {
            const char *names[16];
            int ne = entries(colls[ci], p, names);
            for (int e = 0; e < ne; e++)
                for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
                    for (int oi = 0; oi < 4; oi++)
                        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                            if (li >= 4 && oi > 0)
                                continue; /* the long vectors: sum only */
                            rcase_t c = {0};
                            c.coll = colls[ci];
                            c.algo = names[e];
                            c.p = p;
                            c.count = lens[li];
                            if (c.coll == IC_COLL_REDUCE_SCATTER_BLOCK ||
                                c.coll == IC_COLL_REDUCE_SCATTER)
                                c.count = (c.count + (size_t)p - 1) / (size_t)p;
                            c.dt = types[ti];
                            c.op = ops[oi];
                            c.seed = seed++;
                            c.model = models[c.seed % 2];
                            c.in_place = (c.seed / 2) % 2;
                            int roots[3] = {0, p - 1, p / 2};
                            for (int ri = 0; ri < (c.coll == IC_COLL_REDUCE ? 3 : 1); ri++) {
                                c.root = roots[ri];
                                check(&t, &c);
                            }
                        }
        }
        /* Every mesh shape of p: the mesh changes nothing. */
        ic_mesh_t shapes[64];
        int ns = ic_mesh_factorizations(p, 3, shapes, 64);
        for (int si = 0; si < ns && si < 64; si++)
            for (size_t ci = 0; ci < sizeof colls / sizeof colls[0]; ci++) {
                rcase_t c = {0};
                c.coll = colls[ci];
                c.p = p;
                c.count = 777;
                c.dt = IC_DOUBLE;
                c.op = IC_SUM;
                c.mesh = &shapes[si];
                c.seed = 99; /* the same data on every shape */
                c.model = models[si % 2];
                check(&t, &c);
            }
        /* Entries that are not canonical refuse to run. */
        size_t ncat;
        const ic_algo_t *cat = ic_catalog(&ncat);
        for (size_t a = 0; a < ncat; a++) {
            if (!ic_coll_reduces(cat[a].coll) || (cat[a].flags & IC_ALGO_CANONICAL) ||
                ((cat[a].flags & IC_ALGO_POW2) && (p & (p - 1))))
                continue;
            rcase_t c = {0};
            c.coll = cat[a].coll;
            c.algo = cat[a].name;
            c.p = p;
            c.count = 64;
            c.dt = IC_FLOAT;
            c.op = IC_SUM;
            c.model = models[0];
            char msg[512];
            ic_status_t st = IC_OK;
            if (run(&c, msg, sizeof msg, NULL, &st) && st == IC_ERR_NOT_APPLICABLE &&
                strstr(msg, "IC_REPRODUCIBLE")) {
                t.passed++;
                continue;
            }
            if (t.failed++ < 20)
                printf("FAIL %s/%s p=%d: forced under IC_REPRODUCIBLE, got %s (%s)\n",
                       ic_coll_name(c.coll), c.algo, p, ic_status_string(st), msg);
        }
    }
    return finish(&t, "test_coll_reproducible");
}
