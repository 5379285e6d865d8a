/* test_coll_pipeline.c — every entry of the pipeline family (bcast/reduce
 * "chain" and "dopl", scan/exscan "chain") forced by name and compared with the serial
 * reference: p in {1..9, 12, 15, 16, 17, 18, 24, 30, 32, 36, 60, 64},
 * every root for p <= 9 and {0, 1, p/2, p-1} above (two of them per mesh
 * shape after the line for p > 9), counts {0, 1, 7, 1000, 65539} of int32
 * and float (IC_SUM; reduce also in place at the root; sampled on the
 * shapes after the line for p > 9 to keep the test near 25 s),
 * long vectors (2^19 elements) on a few p so that many segments are in
 * flight, the non-commutative composition of affine maps (rank order), and for
 * dopl every mesh shape of p (the line, all 2-D and 3-D factorisations).
 * The scan chains: every p, the same counts and types, in place on every
 * other case, the non-commutative product, 2^19 elements at p = 3 and 17.
 * Checks also the message count: (m-1)*k per chain. */
#include "algo/builders_pipeline.h"
#include "algo/mesh.h"
#include "matrix.h"

#include <stdio.h>

static const int ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 18, 24, 30, 32, 36, 60, 64};
#define NP ((int)(sizeof ps / sizeof ps[0]))

static long many_segments; /* cases run with >= 8 segments in some chain */

/* Messages the plan of a case must send (see the blocks' headers). */
static size_t expected_msgs(const tcase_t *c, const ic_mesh_t *mesh, int *kmax)
{
    ic_model_t md = ic_model_default();
    size_t es = ic_datatype_size(c->dtype), msgs = 0;
    int rc[IC_MESH_MAX_DIMS];
    ic_mesh_coords(mesh, c->root, rc);
    *kmax = 0;
    bool bcast = c->coll == IC_COLL_BCAST;
    for (int j = bcast ? 0 : mesh->d - 1; bcast ? j < mesh->d : j >= 0; j += bcast ? 1 : -1) {
        int m = mesh->dims[j];
        long nchains = 1; /* chains of dimension j: the product of the dims before */
        for (int i = 0; i < j; i++)
            nchains *= mesh->dims[i];
        if (m <= 1 || c->count == 0)
            continue;
        int len = bcast || rc[j] == 0 || rc[j] == m - 1 ? m : m + 1;
        int k = ic_pipe_segments(len, c->count, es, bcast ? md.beta : md.beta + md.gamma, &md);
        *kmax = k > *kmax ? k : *kmax;
        msgs += (size_t)nchains * (size_t)(len - 1) * (size_t)k;
    }
    return msgs;
}

/* The scan chain 0 -> 1 -> ... -> p-1 sends (p-1)*k messages. */
static size_t scan_msgs(const tcase_t *c, int *kmax)
{
    ic_model_t md = ic_model_default();
    *kmax = ic_scan_chain_segments(c->p, c->count, ic_datatype_size(c->dtype), &md);
    return c->p > 1 ? (size_t)(c->p - 1) * (size_t)*kmax : 0;
}

static void run(tally_t *t, tcase_t *c)
{
    ic_mesh_t line = ic_mesh_line(c->p);
    const ic_mesh_t *mesh = c->mesh ? c->mesh : &line;
    int kmax;
    bool scan = c->coll == IC_COLL_SCAN || c->coll == IC_COLL_EXSCAN;
    size_t want = scan ? scan_msgs(c, &kmax) : expected_msgs(c, mesh, &kmax);
    long before = t->failed;
    check_case(t, c);
    if (t->failed != before)
        return;
    if (kmax >= 8)
        many_segments++;
    if (harness_last_msgs != want) {
        t->passed--;
        if (t->failed++ < 20) {
            char d[256];
            describe(c, d, sizeof d);
            printf("FAIL %s: %zu messages, expected %zu\n", d, harness_last_msgs, want);
        }
    }
}

/* Scan and exscan by the chain at p members. */
static void scan_cases(tally_t *t, int p, unsigned *seed)
{
    const ic_coll_t colls[] = {IC_COLL_SCAN, IC_COLL_EXSCAN};
    const size_t counts[] = {0, 1, 7, 1000, 65539};
    for (int ci = 0; ci < 2; ci++) {
        tcase_t c = {0};
        c.coll = colls[ci];
        c.algo = "chain";
        c.p = p;
        for (int k = 0; k < 5; k++)
            for (int ty = 0; ty < 2; ty++) {
                c.count = counts[k];
                c.dtype = ty ? IC_FLOAT : IC_INT32;
                c.op = IC_SUM;
                c.seed = (*seed)++;
                c.in_place = (k + ty) % 2;
                run(t, &c);
            }
        /* The non-commutative product, in rank order, both placements. */
        for (int ip = 0; ip < 2; ip++) {
            c.count = 4 * (size_t)(1 + *seed % 700) + *seed % 3;
            c.dtype = IC_INT64;
            c.op = noncomm_op;
            c.seed = (*seed)++;
            c.in_place = ip;
            run(t, &c);
        }
        /* Long vectors: many segments in flight. */
        if (p == 3 || p == 17)
            for (int ip = 0; ip < 2; ip++) {
                c.count = (size_t)1 << (ip ? 17 : 19);
                c.dtype = ip ? IC_INT64 : IC_FLOAT;
                c.op = ip ? noncomm_op : IC_SUM;
                c.seed = (*seed)++;
                c.in_place = ip;
                run(t, &c);
            }
    }
}

int main(void)
{
    harness_init();
    tally_t t = {0};
    unsigned seed = 7;
    const char *names[] = {"chain", "dopl"};
    const ic_coll_t colls[] = {IC_COLL_BCAST, IC_COLL_REDUCE};
    for (int pi = 0; pi < NP; pi++) {
        int p = ps[pi];
        int roots[64], nr = 0;
        if (p <= 9)
            for (int r = 0; r < p; r++)
                roots[nr++] = r;
        else {
            roots[nr++] = 0;
            roots[nr++] = 1;
            roots[nr++] = p / 2;
            roots[nr++] = p - 1;
        }
        ic_mesh_t shapes[64];
        int ns = ic_mesh_factorizations(p, 3, shapes, 64);
        ns = ns > 64 ? 64 : ns;
        for (int ci = 0; ci < 2; ci++)
            for (int ni = 0; ni < 2; ni++) {
                bool dopl = ni == 1;
                for (int si = 0; si < (dopl ? ns : 1); si++)
                    for (int ri = 0; ri < nr; ri++) {
                        /* p > 9, shapes after the line: two roots each. */
                        if (dopl && si > 0 && p > 9 && ri % 2 != si % 2)
                            continue;
                        size_t counts[] = {0, 1, 7, 1000, 65539};
                        for (int k = 0; k < 5; k++)
                            for (int ty = 0; ty < 2; ty++) {
                                /* p > 9: the long count in one type per
                                 * root; on the shapes after the line
                                 * half the cases, the long count on
                                 * every fourth shape only (time). */
                                if (p > 9 && k == 4 && si == 0 && ty != ri % 2)
                                    continue;
                                if (dopl && si > 0 && p > 9 &&
                                    (k == 4 ? si % 4 != 0 || ty != ri / 2 % 2
                                            : (ri + k + ty) % 2))
                                    continue;
                                tcase_t c = {0};
                                c.coll = colls[ci];
                                c.algo = names[ni];
                                c.p = p;
                                c.root = roots[ri];
                                c.count = counts[k];
                                c.dtype = ty ? IC_FLOAT : IC_INT32;
                                c.op = IC_SUM;
                                c.seed = seed++;
                                c.in_place = colls[ci] == IC_COLL_REDUCE && (k + ri) % 2;
                                c.mesh = dopl ? &shapes[si] : NULL;
                                run(&t, &c);
                            }
                        /* The non-commutative product, in rank order. */
                        if (colls[ci] == IC_COLL_REDUCE) {
                            tcase_t c = {0};
                            c.coll = IC_COLL_REDUCE;
                            c.algo = names[ni];
                            c.p = p;
                            c.root = roots[ri];
                            c.count = 4 * (size_t)(1 + seed % 700) + seed % 3;
                            c.dtype = IC_INT64;
                            c.op = noncomm_op;
                            c.seed = seed++;
                            c.in_place = ri % 2;
                            c.mesh = dopl ? &shapes[si] : NULL;
                            run(&t, &c);
                        }
                    }
            }
        scan_cases(&t, p, &seed);
        /* Long vectors: many segments in flight. */
        if (p == 3 || p == 17)
            for (int ci = 0; ci < 2; ci++)
                for (int ni = 0; ni < 2; ni++)
                    for (int ri = 0; ri < 2; ri++) {
                        tcase_t c = {0};
                        c.coll = colls[ci];
                        c.algo = names[ni];
                        c.p = p;
                        c.root = ri ? p / 2 : 0;
                        c.count = (size_t)1 << 19;
                        c.dtype = ri ? IC_FLOAT : IC_INT32;
                        c.op = IC_SUM;
                        c.seed = seed++;
                        c.mesh = ni ? &shapes[ns - 1] : NULL;
                        run(&t, &c);
                        if (colls[ci] == IC_COLL_REDUCE) { /* and non-commutative */
                            c.dtype = IC_INT64;
                            c.op = noncomm_op;
                            c.count = (size_t)1 << 17;
                            c.in_place = ri;
                            c.seed = seed++;
                            run(&t, &c);
                        }
                    }
    }
    printf("cases with >= 8 segments in a chain: %ld\n", many_segments);
    if (many_segments < 100) {
        printf("FAIL: too few cases pipeline many segments\n");
        t.failed++;
    }
    return finish(&t, "test_coll_pipeline");
}
