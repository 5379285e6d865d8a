/*
 * engine.c — the in-process discrete-event engine (see engine.h).
 *
 * Steps of all plans get global ids.  A binary heap orders completion
 * events by (time, sequence).  At each moment the engine first completes
 * every step ending then (making their successors ready), then starts every
 * message that can start, repeating until nothing more happens at that
 * moment.
 */
#include "sim/engine_impl.h"

#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- set-up ---------------------------------------------------------------- */
/* Global step ids are step-major: every instance's step 0, then every
 * step 1, and so on.  Ranks advance through their plans together, so the
 * steps handled at one moment lie close in memory (at p = 16384 the event
 * loop runs twice as fast).  Instances are ordered by plan length, longest
 * first, so those still going at step s are a prefix of that order and
 * instance i's step s has id row[s] + pos[i].  Every ordering rule of the
 * loop uses (instance, step), so results do not depend on the numbering. */
static void numbering_free(numbering_t *nb)
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

static int cmp_first(const void *pa, const void *pb)
{
    const uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
    return x < y ? -1 : x > y;
}

enum { LINK_TILE = 64 };

/* Both link passes go through tiles of LINK_TILE instances (positions in
 * the length order), step by step: a handful of plans read at once and
 * short runs of ids written, where either order alone would touch a new
 * page per step. */
#define FOR_TILED_STEPS(e, nb, k, i, st)                                          \
    for (size_t k0_ = 0; k0_ < (e)->ninst; k0_ += LINK_TILE)                       \
        for (size_t st = 0, len0_ = (e)->in[(nb)->order[k0_]].nsteps,       \
                    k1_ = k0_ + LINK_TILE < (e)->ninst ? k0_ + LINK_TILE : (e)->ninst; \
             st < len0_; st++)                                                    \
            for (size_t k = k0_, i = (nb)->order[k0_];                            \
                 k < k1_ && st < (e)->in[i = (nb)->order[k]].nsteps; k++)

/* Matching: a SEND of instance i to peer q with tag t is the RECV of q's
 * instance from i with tag t, found by binary search in q's receives
 * sorted by (peer, tag) (engine_build.c).  Sends are taken in plan order
 * (instance by instance), so errors come in the order a serial reader
 * would find them. */
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

static ic_status_t match_messages(engine_t *e, const numbering_t *nb)
{
    for (size_t i = 0; i < e->ninst; i++) {
        const inst_t *in = &e->in[i];
        const cplan_t *c = &in->c;
        for (size_t j = 0; j < in->nsteps; j++) {
            if (c->kind[j] != IC_STEP_SEND)
                continue;
            int peer = c->peer[j];
            uint32_t tag = c->tag[j];
            size_t qi = e->job_first[in->job] + (size_t)peer;
            uint32_t r = UINT32_MAX;
            if (peer >= 0 && qi < e->ninst && e->in[qi].job == in->job)
                r = find_receive(&e->in[qi], in->crank, tag);
            size_t rg = r == UINT32_MAX ? 0 : nb->row[r] + nb->pos[qi];
            if (r == UINT32_MAX || e->match[rg] != UINT32_MAX)
                return ic_set_error(IC_ERR_INTERNAL,
                                    "ic_sim_run: job %d: send %d -> %d tag %u.%u has no receive",
                                    in->job, in->crank, peer, tag >> IC_TAG_PHASE_SHIFT,
                                    tag & IC_TAG_MAX_IN_PHASE);
            if (cbytes(&e->in[qi].c, r) != cbytes(c, j))
                return ic_set_error(IC_ERR_INTERNAL,
                                    "ic_sim_run: job %d: send %d -> %d tag %u: %zu bytes sent, "
                                    "%zu expected", in->job, in->crank, peer, tag, cbytes(c, j),
                                    cbytes(&e->in[qi].c, r));
            size_t sg = nb->row[j] + nb->pos[i];
            e->match[sg] = (uint32_t)rg;
            e->match[rg] = (uint32_t)sg;
        }
    }
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

/* Pass 1: every step's engine state, successor counts into
 * succ_first[id + 1] (then prefix sums), and the steps without
 * dependencies in (instance, step) order (e->first). */
static ic_status_t link_pass1(engine_t *e, const numbering_t *nb, size_t nd)
{
    size_t n = e->nsteps, cap = 0;
    size_t *cur = calloc(e->ninst + 1, sizeof(size_t)); /* next dependency per instance */
    if (!cur)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    FOR_TILED_STEPS(e, nb, k, i, st) {
        const cplan_t *c = &e->in[i].c;
        gstep_t *g = &e->g[nb->row[st] + k];
        g->inst = (uint32_t)i;
        g->kind = c->kind[st] & 7u;
        g->bytes_lo = c->bytes_lo[st];
        g->bytes_hi = c->bytes_hi[st];
        g->remaining = c->ndeps[st];
        for (uint32_t d = 0; d < c->ndeps[st]; d++) {
            size_t before = nb->row[c->deps[cur[i]++]] + k;
            if (before + 1 < n)
                e->g[before + 1].succ_first++;
        }
        if (c->ndeps[st] == 0) {
            if (e->nfirst == cap) {
                cap = cap ? 2 * cap : 1024;
                uint64_t *f = realloc(e->first, cap * sizeof(*f));
                if (!f) {
                    free(cur);
                    return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
                }
                e->first = f;
            }
            e->first[e->nfirst++] = (uint64_t)i << 32 | st;
        }
    }
    free(cur);
    e->g[n].succ_first = (uint32_t)nd;
    for (size_t g = 1; g < n; g++)
        e->g[g].succ_first += e->g[g - 1].succ_first;
    if (e->nfirst > 1)
        qsort(e->first, e->nfirst, sizeof(uint64_t), cmp_first);
    for (size_t f = 0; f < e->nfirst; f++) /* as ids now */
        e->first[f] = nb->row[e->first[f] & 0xffffffffu] + nb->pos[e->first[f] >> 32];
    return IC_OK;
}

/* Pass 2: the successor lists.  The compact dependency lists lie in step
 * order, so a cursor per instance walks them; a step's successors, all in
 * its instance, come by ascending step index, as a plan-order fill would
 * list them. */
static ic_status_t link_pass2(engine_t *e, const numbering_t *nb)
{
    uint32_t *fill = calloc(e->nsteps + 1, sizeof(uint32_t));
    size_t *cur = calloc(e->ninst + 1, sizeof(size_t));
    if (!fill || !cur) {
        free(fill);
        free(cur);
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    }
    FOR_TILED_STEPS(e, nb, k, i, st) {
        const uint32_t *deps = e->in[i].c.deps;
        size_t id = nb->row[st] + k;
        for (uint32_t d = 0; d < e->g[id].remaining; d++) {
            size_t before = nb->row[deps[cur[i]++]] + k;
            e->succ[e->g[before].succ_first + fill[before]++] = (uint32_t)id;
        }
    }
    free(fill);
    free(cur);
    return IC_OK;
}

/* Frees one group of every compact plan (1, 2 or 3: cplan_t). */
static void drop_group(engine_t *e, int group)
{
    for (size_t i = 0; i < e->ninst; i++) {
        cplan_t *c = &e->in[i].c;
        void **p = group == 1 ? &c->g1 : group == 2 ? &c->g2 : (void **)&c->deps;
        free(*p);
        *p = NULL;
    }
}

/* Matching, then the engine's per-step state, then the successor lists;
 * each compact group goes as soon as nothing reads it, so the peak is
 * about 34 bytes per step (docs/simulator.md). */
static ic_status_t link_steps(engine_t *e)
{
    size_t n = e->nsteps, nd = 0;
    for (size_t i = 0; i < e->ninst; i++)
        for (size_t j = 0; j < e->in[i].nsteps; j++)
            nd += e->in[i].c.ndeps[j];
    if (n >= UINT32_MAX || nd >= UINT32_MAX)
        return ic_set_error(IC_ERR_ARG, "ic_sim_run: %zu steps and %zu dependencies: more "
                            "than the engine's 2^32 - 1", n, nd);
    numbering_t *nb = &e->nb;
    e->match = malloc((n + 1) * sizeof(uint32_t));
    if (!e->match || numbering_make(e, nb))
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    memset(e->match, 0xff, (n + 1) * sizeof(uint32_t));
    ic_status_t st = match_messages(e, nb);
    drop_group(e, 2);
    if (st == IC_OK && !(e->g = calloc(n + 1, sizeof(gstep_t))))
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    if (st == IC_OK)
        st = link_pass1(e, nb, nd);
    drop_group(e, 1);
    if (st == IC_OK && !(e->succ = malloc(sizeof(uint32_t) * (nd + 1))))
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    if (st == IC_OK)
        st = link_pass2(e, nb);
    drop_group(e, 3);
    return st;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

ic_status_t ic_sim_run(int world_size, const ic_model_t *m, ic_sim_job_t *jobs, int njobs,
                       bool move_data, ic_sim_result_t *res)
{
    return ic_sim_run_net(world_size, m, NULL, jobs, njobs, move_data, res);
}

static void engine_free(engine_t *e)
{
    ic_sim_engine_run_free(e);
    for (size_t i = 0; i < e->ninst; i++) {
        if (!e->in[i].borrowed)
            ic_plan_release(&e->in[i].plan);
        free(e->in[i].scratch);
    }
    for (size_t i = 0; i < e->ninst; i++)
        ic_sim_cplan_free(&e->in[i].c);
    free(e->in);
    free(e->job_first);
    free(e->g);
    free(e->match);
    free(e->ready_at);
    numbering_free(&e->nb);
    free(e->succ);
    free(e->first);
    free(e->send_free);
    free(e->recv_free);
    free(e->compute_free);
}

ic_status_t ic_sim_run_net(int world_size, const ic_model_t *m, const ic_net_t *net,
                           ic_sim_job_t *jobs, int njobs, bool move_data,
                           ic_sim_result_t *res)
{
    ic_status_t st = ic_net_check(net, world_size);
    if (st != IC_OK)
        return st;
    engine_t e = {0};
    e.m = m;
    e.net = net;
    e.move = move_data;
    e.res = res;
    e.nlinks = ic_net_links(net, world_size);
    e.max_hops = ic_net_max_hops(net);
    e.flows = net && net->contention && e.nlinks && net->switching != IC_SWITCH_CIRCUIT;
    e.circuits = net && net->contention && e.nlinks && net->switching == IC_SWITCH_CIRCUIT;
    e.overlap = e.circuits && net->setup_overlap && !net->all_port;
    e.ct = res->contention;
    if (e.ct) {
        size_t want = e.ct->picture_step;
        memset(e.ct, 0, sizeof(*e.ct));
        e.ct->picture_step = want;
    }
    res->time = 0;
    res->msgs = res->bytes = res->steps = 0;
    for (int i = 0; i < world_size; i++) {
        if (res->node_time)
            res->node_time[i] = 0;
        if (res->node_msgs)
            res->node_msgs[i] = 0;
        if (res->node_bytes)
            res->node_bytes[i] = 0;
    }
    e.send_free = calloc((size_t)world_size + 1, sizeof(double));
    e.recv_free = calloc((size_t)world_size + 1, sizeof(double));
    e.compute_free = calloc((size_t)world_size + 1, sizeof(double));
    if (!e.send_free || !e.recv_free || !e.compute_free)
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    double t0 = now_s(), t1 = t0, t2 = t0;
    if (st == IC_OK)
        st = ic_sim_build_all(&e, world_size, jobs, njobs);
    t1 = now_s();
    if (st == IC_OK)
        st = link_steps(&e);
    t2 = now_s();
    if (st == IC_OK)
        st = ic_sim_engine_run(&e);
    const char *prof = getenv("IC_SIM_PROFILE");
    if (prof && strcmp(prof, "0") != 0) /* where a long simulation's time goes */
        fprintf(stderr, "ic_sim_run: %zu steps: build %.3f s, link %.3f s, run %.3f s\n",
                e.nsteps, t1 - t0, t2 - t1, now_s() - t2);
    engine_free(&e);
    return st;
}

void ic_sim_contention_free(ic_sim_contention_t *c)
{
    if (!c)
        return;
    free(c->steps);
    free(c->link_load);
    c->steps = NULL;
    c->link_load = NULL;
    c->nsteps = 0;
}
