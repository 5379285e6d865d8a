/*
 * decide.c — how a call runs: the cheapest catalog entry under the
 * communicator's model, mesh-aware entries priced on every logical mesh
 * shape of p ([Watts94] section 15.1: "find the minimum running time for
 * all hybrids as well as the pure short and long vector approaches"), and
 * the explanation of the decision.
 */
#include "select/catalog.h"
#include "select/cost.h"

#include "algo/validate.h"
#include "base/dtype.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_SHAPES 64

/* The shapes a mesh-aware entry is priced on: the user's mesh first, then
 * every factorisation of p into at most 3 dimensions (the line first).
 * With shared links priced (beta_net) the user's mesh is the physical one,
 * and only it can be priced right. */
static int shapes_of(const ic_coll_args_t *a, int p, bool user_only, ic_mesh_t *out)
{
    int n = 0;
    if (a->mesh && ic_mesh_size(a->mesh) == p)
        out[n++] = *a->mesh;
    if ((user_only || a->model.beta_net > 0 || a->model.nlevels > 0) && n > 0)
        return n; /* a physical mesh, or the hosts x ranks of a machine of levels */
    int f = ic_mesh_factorizations(p, 3, out + n, MAX_SHAPES - n);
    return n + (f < MAX_SHAPES - n ? f : MAX_SHAPES - n);
}

/* Cheaper by more than rounding: sums of the same message times added in
 * another order (a mesh-aware entry whose schedule is another entry's
 * plan, e.g. mst_sc with only short rings, the MST) tie, and the first
 * stays. */
static bool cheaper(double t, double than)
{
    return t < than && (isinf(than) || than - t > 1e-12 * than);
}

/* With the ranks crowded on fewer cores (on one host), a broadcast in
 * which members forward costs at least its p - 1 messages one after
 * another (cost_crowded.c); one whose root sends them all is exempt. */
static double floored(const ic_algo_t *al, const ic_coll_args_t *a, int p, const ic_model_t *m,
                      double t)
{
    if (a->coll != IC_COLL_BCAST || (al->flags & IC_ALGO_ROOT_SENDS) ||
        (a->host_of && a->nhosts > 1) || !ic_model_crowded(m, p) || t < 0)
        return t;
    double f = ic_cost_bcast_crowded_floor(p, a->count * ic_datatype_size(a->dtype), m);
    return t > f ? t : f;
}

/* The entry's cheapest shape (mesh-aware) or its own cost. */
static ic_choice_t price(const ic_algo_t *al, const ic_coll_args_t *a, int p, bool forced,
                         const ic_model_t *m)
{
    ic_choice_t c = {al, {0}, 0};
    if (!(al->flags & IC_ALGO_MESH)) {
        c.cost = floored(al, a, p, m, al->cost(a, p, m));
        return c;
    }
    ic_mesh_t shapes[MAX_SHAPES];
    int n = shapes_of(a, p, forced, shapes);
    ic_coll_args_t b = *a;
    /* All-to-allv: the counts are this rank's own, so the shapes are
     * ranked on what every rank shares (the cost without counts) and all
     * ranks take the same; the price is then this rank's on that shape. */
    bool own_counts = a->coll == IC_COLL_ALLTOALLV;
    if (own_counts)
        b.scounts = b.rcounts = NULL;
    for (int i = 0; i < n; i++) {
        b.mesh = &shapes[i];
        double t = floored(al, a, p, m, al->cost(&b, p, m));
        if (i == 0 || cheaper(t, c.cost)) {
            c.cost = t;
            c.mesh = shapes[i];
        }
    }
    if (own_counts && n > 0) {
        b = *a;
        b.mesh = &c.mesh;
        c.cost = floored(al, a, p, m, al->cost(&b, p, m));
    }
    return c;
}

int ic_decide(const ic_coll_args_t *a, int p, const ic_algo_t *forced, const ic_model_t *m,
              ic_choice_t *best, ic_choice_t *cands, int maxc)
{
    if (forced) {
        *best = price(forced, a, p, true, m);
        if (cands && maxc > 0)
            cands[0] = *best;
        return 1;
    }
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    int n = 0;
    best->al = NULL;
    for (size_t i = 0; i < ncat; i++) {
        if (!ic_algo_applies(&cat[i], a, p))
            continue;
        if ((cat[i].flags & IC_ALGO_HOSTS) && !(a->host_of && a->nhosts > 1))
            continue; /* the leaders' entries: only across hosts */
        if ((cat[i].flags & IC_ALGO_CUBE_LINKS) && a->phys && a->phys->node_of &&
            a->phys->kind != IC_PHYS_HYPERCUBE)
            continue; /* a cube tree's price is wrong on a mesh or torus */
        if ((a->coll == IC_COLL_ALLTOALLV || a->counts_at_root) && best->al) {
            continue; /* per-rank counts: every rank takes the first entry */
        }
        ic_choice_t c = price(&cat[i], a, p, false, m);
        if (cands && n < maxc)
            cands[n] = c;
        n++;
        if (!best->al || cheaper(c.cost, best->cost))
            *best = c;
    }
    return n;
}

const ic_algo_t *ic_select(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    ic_choice_t c;
    ic_decide(a, p, NULL, m, &c, NULL, 0);
    return c.al;
}

static void fmt_seconds(double t, char *buf, size_t len)
{
    if (t >= 1)
        snprintf(buf, len, "%.3f s", t);
    else if (t >= 1e-3)
        snprintf(buf, len, "%.3f ms", t * 1e3);
    else
        snprintf(buf, len, "%.3f us", t * 1e6);
}

static void fmt_shape(const ic_choice_t *c, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (!(c->al->flags & IC_ALGO_MESH) || c->mesh.d == 0) {
        snprintf(buf, len, "-");
        return;
    }
    for (int i = 0; i < c->mesh.d; i++) {
        int w = snprintf(buf + used, len - used, "%s%d", i ? "x" : "", c->mesh.dims[i]);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
}

/* Appends to buf at *used, keeping it terminated. */
static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (w > 0)
        *used += (size_t)w < len - *used ? (size_t)w : len - *used - 1;
}
#define APPEND(...) append(buf, len, used, __VA_ARGS__)

static void explain_call(const ic_coll_args_t *a, int p, char *buf, size_t len, size_t *used)
{
    size_t es = ic_datatype_size(a->dtype), total = 0;
    if (a->counts)
        for (int i = 0; i < p; i++)
            total += a->counts[i];
    APPEND("%s on %d ranks: ", ic_coll_name(a->coll), p);
    if (a->counts)
        APPEND("%zu elements in all", total);
    else
        APPEND("count %zu", a->count);
    APPEND(" of %zu-byte %s", es, ic_datatype_name(a->dtype));
    if (a->coll == IC_COLL_BCAST || a->coll == IC_COLL_REDUCE || a->coll == IC_COLL_SCATTER ||
        a->coll == IC_COLL_SCATTERV || a->coll == IC_COLL_GATHER || a->coll == IC_COLL_GATHERV)
        APPEND(", root %d", a->root);
    if (a->mesh && ic_mesh_size(a->mesh) == p) {
        APPEND(", mesh ");
        for (int i = 0; i < a->mesh->d; i++)
            APPEND("%s%d", i ? "x" : "", a->mesh->dims[i]);
    }
    APPEND("\n  model: alpha %.3g s, beta %.3g s/B, gamma %.3g s/B, delta %.3g s/B",
           a->model.alpha, a->model.beta, a->model.gamma, a->model.delta);
    if (a->model.beta_net > 0)
        APPEND(", links %.3g s/B shared on the mesh", a->model.beta_net);
    if (a->model.ports == IC_PORTS_ALL)
        APPEND(", all-port nodes");
    else if (a->model.ports > 1)
        APPEND(", %d ports per node", a->model.ports);
    else
        APPEND(", one-port nodes");
    if (a->model.rndv_bytes > 0 && a->model.rndv_alpha > 0)
        APPEND("\n  transport: messages above %.0f B by rendezvous, + %.3g s each",
               a->model.rndv_bytes, a->model.rndv_alpha);
    if (a->model.rndv_bytes > 0 && a->model.rndv_alpha > 0 && a->model.rndv_oneway_bytes > 0 &&
        a->model.rndv_oneway_bytes < a->model.rndv_bytes)
        APPEND(", one-way ones above %.0f B", a->model.rndv_oneway_bytes);
    if (a->model.share_bytes > 0)
        APPEND("%s one-way messages from %.0f B copied by both ends (half the beta)",
               a->model.rndv_bytes > 0 && a->model.rndv_alpha > 0 ? ";" : "\n  transport:",
               a->model.share_bytes);
    if (a->model.cores > 0)
        APPEND("\n  ranks outnumber the %.0f cores they share: chains are not cut into segments, "
               "a step in which k ranks copy costs ceil(k/%.0f) times its bytes, "
               "messages posted together share one start-up, "
               "a broadcast in which members forward costs its p - 1 messages one after another",
               a->model.cores, a->model.cores);
    static const char *const level_name[IC_MODEL_LEVELS] = {"across hosts", "inside a host"};
    for (int i = 0; i < a->model.nlevels && i < IC_MODEL_LEVELS; i++)
        APPEND("\n  level %d (mesh dimension %d, %s): alpha %.3g s, beta %.3g s/B", i, i,
               level_name[i], a->model.lvl_alpha[i], a->model.lvl_beta[i]);
    if (a->reproducible && ic_coll_reduces(a->coll))
        APPEND("\n  reproducible (IC_REPRODUCIBLE): only entries that combine in the canonical "
               "rank order are candidates");
    APPEND("\n");
}

void ic_explain_format(const ic_coll_args_t *a, int p, const ic_choice_t *cands, int n,
                       const ic_choice_t *best, char *buf, size_t len)
{
    size_t u = 0, *used = &u;
    if (!buf || len == 0)
        return;
    buf[0] = '\0';
    explain_call(a, p, buf, len, used);
    APPEND("  %-16s %-9s %12s   %s\n", "candidate", "mesh", "predicted", "schedule");
    for (int i = 0; i < n; i++) {
        char t[32], sh[48], d[160] = "";
        fmt_seconds(cands[i].cost, t, sizeof t);
        fmt_shape(&cands[i], sh, sizeof sh);
        if (cands[i].al->describe) {
            ic_coll_args_t b = *a;
            if (cands[i].mesh.d > 0)
                b.mesh = &cands[i].mesh;
            cands[i].al->describe(&b, p, &a->model, d, sizeof d);
        }
        bool chosen = cands[i].al == best->al;
        APPEND("  %-16s %-9s %12s   %s%s\n", cands[i].al->name, sh, t, d,
               chosen ? "  <- chosen" : "");
    }
    char t[32], sh[48];
    fmt_seconds(best->cost, t, sizeof t);
    fmt_shape(best, sh, sizeof sh);
    APPEND("  choice: %s%s%s (%s predicted)\n", best->al->name, strcmp(sh, "-") ? " on " : "",
           strcmp(sh, "-") ? sh : "", t);
}
