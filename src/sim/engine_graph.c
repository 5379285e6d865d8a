/*
 * engine_graph.c — the engine's second set-up stage: the step graph.
 * Every step gets a global id (the numbering), every SEND its RECV
 * (matching), every step its successor lists; the compact plans
 * (engine_build.c) are freed group by group as soon as nothing reads
 * them, so the peak is about 36 bytes per step (docs/simulator.md).  Each
 * pass works on tiles of instances that share nothing, on the build's
 * threads (ic_sim_parallel).
 */
#include "sim/engine_impl.h"

#include "base/status.h"

#include <stdatomic.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Global step ids are step-major: every instance's step 0, then every
 * step 1, and so on.  Ranks advance through their plans together, so the
 * steps handled at one moment lie close in memory (at p = 16384 the event
 * loop runs twice as fast).  Instances are ordered by plan length, longest
 * first, so those still going at step s are a prefix of that order and
 * instance i's step s has id row[s] + pos[i].  Every ordering rule of the
 * loop uses (instance, step), so results do not depend on the numbering. */
void ic_sim_numbering_free(numbering_t *nb)
{
    free(nb->pos);
    free(nb->order);
    free(nb->row);
}

static int numbering_make(const engine_t *e, numbering_t *nb)
{
    size_t maxlen = 0;
    for (size_t i = 0; i < e->ninst; i++)
        maxlen = e->in[i].nsteps > maxlen ? e->in[i].nsteps : maxlen;
    nb->maxlen = maxlen;
    nb->pos = malloc(sizeof(size_t) * (e->ninst + 1));
    nb->order = malloc(sizeof(size_t) * (e->ninst + 1));
    nb->row = calloc(maxlen + 2, sizeof(size_t));
    if (!nb->pos || !nb->order || !nb->row)
        return -1;
    /* Counting sort by length, descending (row[] as the counters). */
    for (size_t i = 0; i < e->ninst; i++)
        nb->row[maxlen - e->in[i].nsteps + 1]++;
    for (size_t l = 1; l <= maxlen + 1; l++)
        nb->row[l] += nb->row[l - 1];
    for (size_t i = 0; i < e->ninst; i++) {
        size_t k = nb->row[maxlen - e->in[i].nsteps]++;
        nb->order[k] = i;
        nb->pos[i] = k;
    }
    /* row[s]: instances with more than s steps, summed over earlier rows. */
    size_t active = e->ninst, id = 0;
    for (size_t st = 0; st < maxlen; st++) {
        while (active > 0 && e->in[nb->order[active - 1]].nsteps <= st)
            active--;
        nb->row[st] = id;
        id += active;
    }
    nb->row[maxlen] = id;
    return 0;
}

/* ---- matching ------------------------------------------------------------- */

/* A SEND of instance i to peer q with tag t is the RECV of q's instance
 * from i with tag t, found by binary search in q's receives sorted by
 * (peer, tag) (engine_build.c). */
static uint32_t find_receive(const inst_t *q, int from, uint32_t tag)
{
    const cplan_t *c = &q->c;
    uint64_t want = (uint64_t)(uint32_t)from << 32 | tag;
    size_t lo = 0, hi = c->nrecv;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t r = c->rindex[mid];
        uint64_t key = (uint64_t)(uint32_t)c->peer[r] << 32 | c->tag[r];
        if (key == want)
            return r;
        if (key < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

static size_t cbytes(const cplan_t *c, size_t j)
{
    return (size_t)((uint64_t)c->bytes_hi[j] << 32 | c->bytes_lo[j]);
}

typedef struct match_ctx {
    atomic_size_t bad; /* lowest instance with a failing send (SIZE_MAX: none) */
    bool serial;       /* set the error (the serial rerun) */
    ic_status_t st;
} match_ctx_t;

/* The sends of instances [i0, i1).  In parallel a failure is only noted;
 * the serial rerun then reports the error a serial reader would find
 * first (the lowest instance's first failing send). */
static void match_range(engine_t *e, void *arg, size_t i0, size_t i1, int worker)
{
    (void)worker;
    match_ctx_t *mc = arg;
    const numbering_t *nb = &e->nb;
    for (size_t i = i0; i < i1; i++) {
        const inst_t *in = &e->in[i];
        const cplan_t *c = &in->c;
        for (size_t j = 0; j < in->nsteps; j++) {
            if (c->kind[j] != IC_STEP_SEND)
                continue;
            int peer = c->peer[j];
            uint32_t tag = c->tag[j], r = UINT32_MAX, sg = (uint32_t)(nb->row[j] + nb->pos[i]);
            size_t qi = e->job_first[in->job] + (size_t)peer;
            if (peer >= 0 && qi < e->ninst && e->in[qi].job == in->job)
                r = find_receive(&e->in[qi], in->crank, tag);
            size_t rg = r == UINT32_MAX ? 0 : nb->row[r] + nb->pos[qi];
            uint32_t none = UINT32_MAX;
            bool ok = r != UINT32_MAX &&
                      atomic_compare_exchange_strong((_Atomic uint32_t *)&e->match[rg], &none, sg);
            if (!ok && mc->serial)
                mc->st = ic_set_error(IC_ERR_INTERNAL,
                                      "ic_sim_run: job %d: send %d -> %d tag %u.%u has no receive",
                                      in->job, in->crank, peer, tag >> IC_TAG_PHASE_SHIFT,
                                      tag & IC_TAG_MAX_IN_PHASE);
            else if (ok && cbytes(&e->in[qi].c, r) != cbytes(c, j) && mc->serial)
                mc->st = ic_set_error(IC_ERR_INTERNAL,
                                      "ic_sim_run: job %d: send %d -> %d tag %u: %zu bytes sent, "
                                      "%zu expected", in->job, in->crank, peer, tag,
                                      cbytes(c, j), cbytes(&e->in[qi].c, r));
            else if (!ok || cbytes(&e->in[qi].c, r) != cbytes(c, j)) {
                size_t b = atomic_load(&mc->bad);
                while (i < b && !atomic_compare_exchange_weak(&mc->bad, &b, i))
                    ;
            }
            if (mc->st != IC_OK || (!mc->serial && i >= atomic_load(&mc->bad)))
                return;
            e->match[sg] = (uint32_t)rg;
        }
    }
}

static ic_status_t match_messages(engine_t *e)
{
    size_t n = e->nsteps;
    match_ctx_t mc = {.st = IC_OK};
    atomic_init(&mc.bad, SIZE_MAX);
    ic_status_t st = ic_sim_parallel(e, e->ninst, 64, match_range, &mc);
    if (st != IC_OK)
        return st;
    if (atomic_load(&mc.bad) != SIZE_MAX) { /* again, alone, for the right message */
        memset(e->match, 0xff, (n + 1) * sizeof(uint32_t));
        mc.serial = true;
        match_range(e, &mc, 0, e->ninst, 0);
        if (mc.st != IC_OK)
            return mc.st;
    }
    const numbering_t *nb = &e->nb;
    for (size_t i = 0; i < e->ninst; i++) {
        const inst_t *in = &e->in[i];
        for (size_t j = 0; j < in->nsteps; j++)
            if (in->c.kind[j] == IC_STEP_RECV && e->match[nb->row[j] + nb->pos[i]] == UINT32_MAX)
                return ic_set_error(IC_ERR_INTERNAL,
                                    "ic_sim_run: job %d: receive %d <- %d tag %u has no send",
                                    in->job, in->crank, in->c.peer[j], in->c.tag[j]);
    }
    return IC_OK;
}

/* ---- successor lists ------------------------------------------------------ */

enum { LINK_TILE = 64 };

/* Both passes go through a tile of instances (positions k0 .. k1 - 1 in
 * the length order) step by step: a handful of plans read at once and
 * short runs of ids written, where either order alone would touch a new
 * page per step.  A step's dependencies and successors are in its own
 * instance, so tiles share nothing. */
#define FOR_TILE_STEPS(e, nb, k0, k1, k, i, st)                                   \
    for (size_t st = 0, len0_ = (e)->in[(nb)->order[k0]].nsteps; st < len0_; st++) \
        for (size_t k = (k0), i = (nb)->order[k0];                                \
             k < (k1) && st < (e)->in[i = (nb)->order[k]].nsteps; k++)

typedef struct pass_ctx {
    size_t *cur;      /* per instance: its next dependency */
    uint64_t **first; /* per worker: (instance << 32 | step) of steps without dependencies */
    size_t *nfirst, *cap;
    atomic_int oom;
} pass_ctx_t;

/* Pass 1 over tiles [t0, t1): every step's engine state, its successor
 * count (in succ_first; prefix sums later) and the steps without
 * dependencies. */
static void pass1_tiles(engine_t *e, void *arg, size_t t0, size_t t1, int w)
{
    pass_ctx_t *pc = arg;
    const numbering_t *nb = &e->nb;
    for (size_t t = t0; t < t1; t++) {
        size_t k0 = t * LINK_TILE, k1 = k0 + LINK_TILE < e->ninst ? k0 + LINK_TILE : e->ninst;
        FOR_TILE_STEPS(e, nb, k0, k1, k, i, st) {
            const cplan_t *c = &e->in[i].c;
            gstep_t *g = &e->g[nb->row[st] + k];
            g->inst = (uint32_t)i;
            g->kind = c->kind[st] & 7u;
            g->bytes_lo = c->bytes_lo[st];
            g->bytes_hi = c->bytes_hi[st];
            g->remaining = c->ndeps[st];
            for (uint32_t d = 0; d < c->ndeps[st]; d++)
                e->g[nb->row[c->deps[pc->cur[i]++]] + k].succ_first++;
            if (c->ndeps[st] == 0) {
                uint64_t *f = ic_sim_grow(pc->first[w], pc->nfirst[w], &pc->cap[w],
                                          sizeof(uint64_t));
                if (!f) {
                    atomic_store(&pc->oom, 1);
                    return;
                }
                pc->first[w] = f;
                f[pc->nfirst[w]++] = (uint64_t)i << 32 | st;
            }
        }
    }
}

/* Pass 2 over tiles [t0, t1): the successor lists.  The compact
 * dependency lists lie in step order, so a cursor per instance walks
 * them; a step's successors come by ascending step index, as a plan-order
 * fill would list them.  Each step's succ_first serves as its fill
 * cursor, which leaves it at the next step's start (shifted back after). */
static void pass2_tiles(engine_t *e, void *arg, size_t t0, size_t t1, int w)
{
    (void)w;
    pass_ctx_t *pc = arg;
    const numbering_t *nb = &e->nb;
    for (size_t t = t0; t < t1; t++) {
        size_t k0 = t * LINK_TILE, k1 = k0 + LINK_TILE < e->ninst ? k0 + LINK_TILE : e->ninst;
        FOR_TILE_STEPS(e, nb, k0, k1, k, i, st) {
            const uint32_t *deps = e->in[i].c.deps;
            size_t id = nb->row[st] + k;
            for (uint32_t d = 0; d < e->g[id].remaining; d++) {
                size_t before = nb->row[deps[pc->cur[i]++]] + k;
                e->succ[e->g[before].succ_first++] = (uint32_t)id;
            }
        }
    }
}

static int cmp_first(const void *pa, const void *pb)
{
    const uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
    return x < y ? -1 : x > y;
}

/* Pass 1 on every tile, then the successor counts as offsets and the
 * steps without dependencies in (instance, step) order, as ids. */
static ic_status_t link_pass1(engine_t *e, size_t nd)
{
    enum { W = IC_SIM_MAX_THREADS };
    size_t ntiles = (e->ninst + LINK_TILE - 1) / LINK_TILE;
    pass_ctx_t pc = {.cur = calloc(e->ninst + 1, sizeof(size_t)),
                     .first = calloc(W, sizeof(uint64_t *)),
                     .nfirst = calloc(W, sizeof(size_t)),
                     .cap = calloc(W, sizeof(size_t))};
    atomic_init(&pc.oom, 0);
    ic_status_t st = IC_OK;
    if (!pc.cur || !pc.first || !pc.nfirst || !pc.cap)
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    if (st == IC_OK)
        st = ic_sim_parallel(e, ntiles, 1, pass1_tiles, &pc);
    size_t nf = 0;
    for (int w = 0; st == IC_OK && w < W; w++)
        nf += pc.nfirst[w];
    if (st == IC_OK && (atomic_load(&pc.oom) || !(e->first = malloc((nf + 1) * sizeof(uint64_t)))))
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    for (int w = 0; st == IC_OK && w < W; w++) {
        if (pc.nfirst[w])
            memcpy(e->first + e->nfirst, pc.first[w], pc.nfirst[w] * sizeof(uint64_t));
        e->nfirst += pc.nfirst[w];
    }
    for (int w = 0; pc.first && w < W; w++)
        free(pc.first[w]);
    free(pc.first);
    free(pc.nfirst);
    free(pc.cap);
    free(pc.cur);
    if (st != IC_OK)
        return st;
    size_t sum = 0; /* counts to offsets */
    for (size_t g = 0; g < e->nsteps; g++) {
        size_t c = e->g[g].succ_first;
        e->g[g].succ_first = (uint32_t)sum;
        sum += c;
    }
    e->g[e->nsteps].succ_first = (uint32_t)nd;
    if (e->nfirst > 1)
        qsort(e->first, e->nfirst, sizeof(uint64_t), cmp_first);
    const numbering_t *nb = &e->nb;
    for (size_t f = 0; f < e->nfirst; f++) /* as ids now */
        e->first[f] = nb->row[e->first[f] & 0xffffffffu] + nb->pos[e->first[f] >> 32];
    return IC_OK;
}

static ic_status_t link_pass2(engine_t *e)
{
    size_t ntiles = (e->ninst + LINK_TILE - 1) / LINK_TILE;
    pass_ctx_t pc = {.cur = calloc(e->ninst + 1, sizeof(size_t))};
    if (!pc.cur)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    ic_status_t st = ic_sim_parallel(e, ntiles, 1, pass2_tiles, &pc);
    free(pc.cur);
    for (size_t g = e->nsteps; g-- > 1;)
        e->g[g].succ_first = e->g[g - 1].succ_first;
    if (e->nsteps)
        e->g[0].succ_first = 0;
    return st;
}

/* A job of this many steps or more holds tens of MiB in compact plans. */
#define TRIM_MIN_STEPS ((size_t)1 << 20)

/* Frees one group of every compact plan (1, 2 or 3: cplan_t). */
static void drop_group(engine_t *e, int group)
{
    for (size_t i = 0; i < e->ninst; i++) {
        cplan_t *c = &e->in[i].c;
        void **p = group == 1 ? &c->g1 : group == 2 ? &c->g2 : (void **)&c->deps;
        free(*p);
        *p = NULL;
    }
#ifdef __GLIBC__
    /* The freed blocks are small: give their pages back now, but only for
     * a large job.  Trimming after every small run made the next run fault
     * its buffers in again: two thirds of the correctness matrices' time
     * on a VM where a page's first write is dear (docs/perf/first-touch.md). */
    if (e->nsteps >= TRIM_MIN_STEPS)
        malloc_trim(0);
#endif
}

ic_status_t ic_sim_link(engine_t *e)
{
    size_t n = e->nsteps, nd = 0;
    for (size_t i = 0; i < e->ninst; i++)
        for (size_t j = 0; j < e->in[i].nsteps; j++)
            nd += e->in[i].c.ndeps[j];
    if (n >= UINT32_MAX || nd >= UINT32_MAX)
        return ic_set_error(IC_ERR_ARG, "ic_sim_run: %zu steps and %zu dependencies: more "
                            "than the engine's 2^32 - 1", n, nd);
    e->match = malloc((n + 1) * sizeof(uint32_t));
    if (!e->match || numbering_make(e, &e->nb))
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    memset(e->match, 0xff, (n + 1) * sizeof(uint32_t));
    ic_status_t st = match_messages(e);
    drop_group(e, 2);
    if (st == IC_OK && !(e->g = calloc(n + 1, sizeof(gstep_t))))
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    if (st == IC_OK)
        st = link_pass1(e, nd);
    drop_group(e, 1);
    if (st == IC_OK && !(e->succ = malloc(sizeof(uint32_t) * (nd + 1))))
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    if (st == IC_OK)
        st = link_pass2(e);
    drop_group(e, 3);
    return st;
}
