/*
 * test_cost_transport.c — the transport's protocols in the cost model
 * (base/model.h: rndv_alpha above rndv_bytes, the shared copy of one-way
 * messages from share_bytes):
 *  - with them off (the papers' model) every cost is what it was, to the
 *    bit;
 *  - up to the eager limit a message adds its second copy (bytes*delta),
 *    one byte above it rndv_alpha, per message on the critical path:
 *    ceil(log2 p) for the MST broadcast, p - 1 for the ring allgather;
 *  - a one-way message from share_bytes costs half its bytes*beta (trees,
 *    the direct gather), an exchange (ring, pairwise) does not;
 *  - the decisions this was made for: a 2-rank reduce on shared memory
 *    (one message of n bytes, reduced by the root) from 64 KiB to 64 MiB
 *    takes one message instead of the reduce-scatter + gather, which the
 *    papers' model still prefers for long vectors; a broadcast on two
 *    ranks stays "mst" where other entries send the same one message (ties
 *    tie exactly, so the catalog's first entry is kept).
 */
#include "check.h"
#include "select/catalog.h"
#include "select/cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ic_model_t PAPERS = {.alpha = 1e-6, .beta = 1e-10, .gamma = 5e-11, .delta = 5e-11};

static ic_model_t shm_model(void)
{
    ic_model_t m = PAPERS;
    m.rndv_alpha = 1e-6;
    m.rndv_bytes = 8192;
    m.share_bytes = 262144;
    return m;
}

static ic_coll_args_t args_of(ic_coll_t coll, size_t count, const ic_model_t *m)
{
    ic_coll_args_t a;
    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.dtype = IC_FLOAT;
    a.op = IC_SUM;
    a.count = count;
    a.model = *m;
    return a;
}

static void papers_unchanged(void)
{
    ic_model_t m = PAPERS;
    for (int p = 2; p <= 64; p = p * 3 / 2 + 1)
        for (size_t n = 1; n <= (64u << 20); n *= 7) {
            double want = ic_ceil_log2(p) * (m.alpha + (double)n * m.beta);
            CHECK(ic_cost_mst_bcast(p, n, &m) == want, "mst bcast p=%d n=%zu: %.17g, want %.17g",
                  p, n, ic_cost_mst_bcast(p, n, &m), want);
        }
    /* rndv_alpha alone (no transport facts) changes nothing. */
    ic_model_t r = PAPERS;
    r.rndv_alpha = 5e-6;
    CHECK(ic_cost_mst_bcast(5, 1u << 20, &r) == ic_cost_mst_bcast(5, 1u << 20, &m),
          "rndv_alpha without rndv_bytes must not count");
}

static void rendezvous(void)
{
    ic_model_t m = shm_model();
    m.share_bytes = 0;
    ic_model_t off = PAPERS;
    for (int p = 2; p <= 33; p += 5) {
        double at = ic_cost_mst_bcast(p, 8192, &m), at0 = ic_cost_mst_bcast(p, 8192, &off);
        double copy = ic_ceil_log2(p) * 8192 * m.delta; /* the eager message's second copy */
        CHECK(fabs(at - at0 - copy) < 1e-15, "p=%d: 8192 B is eager: adds %.3g, want %.3g", p,
              at - at0, copy);
        double above = ic_cost_mst_bcast(p, 8193, &m), above0 = ic_cost_mst_bcast(p, 8193, &off);
        double want = ic_ceil_log2(p) * m.rndv_alpha;
        CHECK(fabs(above - above0 - want) < 1e-15, "p=%d: 8193 B adds %.3g, want %.3g", p,
              above - above0, want);
        size_t *len = malloc(sizeof(size_t) * (size_t)p);
        for (int i = 0; i < p; i++)
            len[i] = 100000;
        double ring = ic_cost_ring_allgather(p, len, NULL, &m, NULL);
        double ring0 = ic_cost_ring_allgather(p, len, NULL, &off, NULL);
        CHECK(fabs(ring - ring0 - (p - 1) * m.rndv_alpha) < 1e-15,
              "p=%d: ring allgather adds %.3g, want %.3g", p, ring - ring0, (p - 1) * m.rndv_alpha);
        free(len);
    }
}

static void shared_copy(void)
{
    ic_model_t m = shm_model(), noshare = shm_model();
    noshare.share_bytes = 0;
    size_t n = 1u << 20;
    /* The MST broadcast: every message one-way. */
    double t = ic_cost_mst_bcast(2, n, &m), t0 = ic_cost_mst_bcast(2, n, &noshare);
    CHECK(fabs(t0 - t - (double)n * m.beta / 2) < 1e-15, "bcast 1 MiB: shared copy saves %.3g",
          t0 - t);
    CHECK(ic_cost_mst_bcast(2, 262143, &m) == ic_cost_mst_bcast(2, 262143, &noshare),
          "below share_bytes nothing is shared");
    /* The ring allgather (an exchange) and pairwise alltoall: unchanged. */
    size_t len[4] = {n, n, n, n};
    CHECK(ic_cost_ring_allgather(4, len, NULL, &m, NULL) ==
              ic_cost_ring_allgather(4, len, NULL, &noshare, NULL),
          "the ring's messages are exchanges");
    size_t slen[4] = {0, n, n, n};
    CHECK(ic_cost_pairwise(4, slen, &m) == ic_cost_pairwise(4, slen, &noshare),
          "pairwise's messages are exchanges");
    /* The MST reduce: the child's one message. */
    double r = ic_cost_mst_reduce(2, 0, n, &m), r0 = ic_cost_mst_reduce(2, 0, n, &noshare);
    CHECK(fabs(r0 - r - (double)n * m.beta / 2) < 1e-15, "reduce 1 MiB: saves %.3g", r0 - r);
}

static void decisions(void)
{
    ic_model_t shm = shm_model(), papers = PAPERS;
    for (size_t bytes = 64u << 10; bytes <= (64u << 20); bytes *= 4) {
        ic_coll_args_t a = args_of(IC_COLL_REDUCE, bytes / 4, &shm);
        const ic_algo_t *al = ic_select(&a, 2, &shm);
        CHECK(al && strcmp(al->name, "mst") == 0, "reduce p=2 %zu B on shm: %s, want mst", bytes,
              al ? al->name : "(none)");
        a.model = papers;
        al = ic_select(&a, 2, &papers);
        if (bytes >= (1u << 20))
            CHECK(al && strcmp(al->name, "mst") != 0,
                  "reduce p=2 %zu B, papers' model: %s, want a reduce-scatter entry", bytes,
                  al ? al->name : "(none)");
    }
    for (size_t bytes = 1024; bytes <= (64u << 20); bytes *= 16) {
        ic_coll_args_t a = args_of(IC_COLL_BCAST, bytes / 4, &shm);
        const ic_algo_t *al = ic_select(&a, 2, &shm);
        CHECK(al && strcmp(al->name, "mst") == 0, "bcast p=2 %zu B: %s, want mst (ties)", bytes,
              al ? al->name : "(none)");
    }
}

/* One-way messages go by rendezvous from rndv_oneway_bytes: a tree's
 * (one-way) message of 4097-8192 B pays rndv_alpha instead of its second
 * copy, an exchange's (ic_msg_extra) keeps the copy; above rndv_bytes both
 * pay rndv_alpha; 0 leaves the one-way price alone. */
static void oneway(void)
{
    ic_model_t m = shm_model(), same = m;
    m.share_bytes = same.share_bytes = 0;
    m.rndv_oneway_bytes = 4096;
    const double sizes[] = {8, 4096, 4097, 8192, 8193, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        double n = sizes[i];
        double want = n > 4096 ? m.rndv_alpha : n * m.delta;
        CHECK(ic_msg_extra_oneway(&m, n) == want, "one-way %.0f B: %.3g, want %.3g", n,
              ic_msg_extra_oneway(&m, n), want);
        CHECK(ic_msg_extra(&m, n) == ic_msg_extra(&same, n), "exchange %.0f B moved", n);
        CHECK(ic_msg_extra_oneway(&same, n) == ic_msg_extra(&same, n),
              "one-way %.0f B without the limit: %.3g", n, ic_msg_extra_oneway(&same, n));
    }
    double tree = ic_cost_mst_bcast(4, 6000, &m), eager = ic_cost_mst_bcast(4, 6000, &same);
    CHECK(fabs(tree - eager - 2 * (m.rndv_alpha - 6000 * m.delta)) < 1e-15,
          "mst bcast of 6000 B, p = 4: %.6g against %.6g eager", tree, eager);
}

int main(void)
{
    papers_unchanged();
    rendezvous();
    oneway();
    shared_copy();
    decisions();
    printf("test_cost_transport: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
