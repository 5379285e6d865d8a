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
#include "algo/validate.h"
#include "select/catalog.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- set-up ---------------------------------------------------------------- */

/* Matching: every RECV goes into an open-addressing table keyed by (job,
 * from, to, tag); every SEND finds its RECV there.  Keys live in the table
 * (16 bytes: the job is its receive step's, looked up on a full match) so
 * probing touches no plan. */
typedef struct rkey {
    int from, to;
    uint32_t tag;
    uint32_t gid; /* UINT32_MAX: empty */
} rkey_t;

static size_t rhash(const rkey_t *k, int job)
{
    uint64_t h = (uint64_t)job * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)(uint32_t)k->from << 32 | (uint32_t)k->to) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)k->tag * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (size_t)h;
}

/* Does table entry t hold key k of job? */
static bool rkey_eq(const engine_t *e, const rkey_t *t, const rkey_t *k, int job)
{
    return t->from == k->from && t->to == k->to && t->tag == k->tag &&
           e->in[e->g[t->gid].inst].job == job;
}

/* Step s of instance i's id (numbering below). */
#define STEP_ID(nb, i, s) ((nb)->row[s] + (nb)->pos[i])

typedef struct numbering numbering_t;
struct numbering {
    size_t *pos;   /* ninst: place in the length order */
    size_t *order; /* ninst: instances by length, longest first */
    size_t *row;   /* maxlen + 1: first id of each step index */
    size_t maxlen;
};

/* Plans are read in plan order (instance by instance), so errors come in
 * the order a serial reader would find them. */
static ic_status_t match_messages(engine_t *e, const numbering_t *nb)
{
    size_t nrecv = 0;
    for (size_t g = 0; g < e->nsteps; g++)
        nrecv += e->g[g].kind == IC_STEP_RECV;
    size_t cap = 16;
    while (cap < nrecv + nrecv / 2) /* at most 2/3 full */
        cap *= 2;
    rkey_t *table = malloc(cap * sizeof(*table));
    if (!table)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    for (size_t i = 0; i < cap; i++)
        table[i].gid = UINT32_MAX;
    ic_status_t st = IC_OK;
    for (size_t i = 0; i < e->ninst && st == IC_OK; i++) {
        const inst_t *in = &e->in[i];
        for (size_t j = 0; j < in->plan.nsteps && st == IC_OK; j++) {
            const ic_step_t *s = &in->plan.steps[j];
            if (s->kind != IC_STEP_RECV)
                continue;
            rkey_t k = {s->peer, in->crank, s->tag, (uint32_t)STEP_ID(nb, i, j)};
            size_t h = rhash(&k, in->job) & (cap - 1);
            for (; table[h].gid != UINT32_MAX && st == IC_OK; h = (h + 1) & (cap - 1))
                if (rkey_eq(e, &table[h], &k, in->job))
                    st = ic_set_error(IC_ERR_INTERNAL,
                                      "ic_sim_run: job %d rank %d posts two receives from %d "
                                      "with tag %u", in->job, k.to, k.from, k.tag);
            table[h] = k;
        }
    }
    for (size_t i = 0; i < e->ninst && st == IC_OK; i++) {
        const inst_t *in = &e->in[i];
        for (size_t j = 0; j < in->plan.nsteps && st == IC_OK; j++) {
            const ic_step_t *s = &in->plan.steps[j];
            if (s->kind != IC_STEP_SEND)
                continue;
            rkey_t k = {in->crank, s->peer, s->tag, 0};
            size_t h = rhash(&k, in->job) & (cap - 1);
            uint32_t found = UINT32_MAX;
            for (; table[h].gid != UINT32_MAX; h = (h + 1) & (cap - 1))
                if (rkey_eq(e, &table[h], &k, in->job)) {
                    found = table[h].gid;
                    break;
                }
            if (found == UINT32_MAX || e->g[found].match != UINT32_MAX) {
                st = ic_set_error(IC_ERR_INTERNAL,
                                  "ic_sim_run: job %d: send %d -> %d tag %u.%u has no receive",
                                  in->job, k.from, k.to, k.tag >> IC_TAG_PHASE_SHIFT,
                                  k.tag & IC_TAG_MAX_IN_PHASE);
                break;
            }
            if (e->g[found].bytes != s->bytes) {
                st = ic_set_error(IC_ERR_INTERNAL,
                                  "ic_sim_run: job %d: send %d -> %d tag %u: %zu bytes sent, "
                                  "%zu expected", in->job, k.from, k.to, k.tag, s->bytes,
                                  e->g[found].bytes);
                break;
            }
            uint32_t g = (uint32_t)STEP_ID(nb, i, j);
            e->g[g].match = found;
            e->g[found].match = g;
        }
    }
    for (size_t i = 0; i < e->ninst && st == IC_OK; i++) {
        const inst_t *in = &e->in[i];
        for (size_t j = 0; j < in->plan.nsteps && st == IC_OK; j++) {
            const ic_step_t *s = &in->plan.steps[j];
            if (s->kind == IC_STEP_RECV && e->g[STEP_ID(nb, i, j)].match == UINT32_MAX)
                st = ic_set_error(IC_ERR_INTERNAL,
                                  "ic_sim_run: job %d: receive %d <- %d tag %u has no send",
                                  in->job, in->crank, s->peer, s->tag);
        }
    }
    free(table);
    return st;
}

static ic_status_t check_bounds(const ic_sim_job_t *j, int jid, int i, const inst_t *in)
{
    const ic_plan_t *pl = &in->plan;
    for (size_t k = 0; k < pl->nsteps; k++) {
        const ic_step_t *s = &pl->steps[k];
        if (s->kind != IC_STEP_SEND && s->dst.buf == IC_BUF_SEND)
            return ic_set_error(IC_ERR_INTERNAL,
                                "ic_sim_run: job %d rank %d step %zu writes the send buffer",
                                jid, i, k);
    }
    size_t sb = j->sendbytes ? j->sendbytes[i] : SIZE_MAX;
    size_t rb = j->recvbytes ? j->recvbytes[i] : SIZE_MAX;
    if (pl->buf_bytes[IC_BUF_SEND] > sb || pl->buf_bytes[IC_BUF_RECV] > rb ||
        pl->buf_bytes[IC_BUF_SCRATCH] > pl->scratch_bytes)
        return ic_set_error(IC_ERR_INTERNAL,
                            "ic_sim_run: job %d rank %d (%s/%s) reaches byte %zu of send (has "
                            "%zu), %zu of recv (has %zu), %zu of scratch (has %zu)",
                            jid, i, ic_coll_name(pl->coll), pl->algo,
                            pl->buf_bytes[IC_BUF_SEND], sb, pl->buf_bytes[IC_BUF_RECV], rb,
                            pl->buf_bytes[IC_BUF_SCRATCH], pl->scratch_bytes);
    return IC_OK;
}

/* Plans are built in parallel (they are independent) by up to 8 threads
 * when there are many; IC_SIM_THREADS=n overrides the count.  The error
 * reported is the lowest-numbered instance's, as a serial build would. */
typedef struct build_ctx {
    engine_t *e;
    ic_sim_job_t *jobs;
    const ic_choice_t *choice; /* per job */
    atomic_size_t next;
    pthread_mutex_t mu;
    size_t fail_k;             /* lowest failed instance (SIZE_MAX: none) */
    ic_status_t fail_st;
    char fail_msg[512];
} build_ctx_t;

static ic_status_t build_one(build_ctx_t *c, size_t k)
{
    inst_t *in = &c->e->in[k];
    ic_sim_job_t *jb = &c->jobs[in->job];
    if (jb->plans)
        return IC_OK;
    const char *fn = jb->caller ? jb->caller : "ic_sim_run";
    ic_status_t st = ic_validate_args(fn, &jb->args[in->crank], in->crank, jb->size);
    if (st == IC_OK)
        st = ic_plan_build_choice(fn, &jb->args[in->crank], in->crank, jb->size,
                                  &c->choice[in->job], &in->plan);
    return st;
}

enum { BUILD_CHUNK = 16 };

static void *build_worker(void *arg)
{
    build_ctx_t *c = arg;
    for (;;) {
        size_t k0 = atomic_fetch_add(&c->next, BUILD_CHUNK);
        if (k0 >= c->e->ninst)
            return NULL;
        size_t k1 = k0 + BUILD_CHUNK < c->e->ninst ? k0 + BUILD_CHUNK : c->e->ninst;
        for (size_t k = k0; k < k1; k++) {
            ic_status_t st = build_one(c, k);
            if (st == IC_OK)
                continue;
            pthread_mutex_lock(&c->mu);
            if (k < c->fail_k) {
                c->fail_k = k;
                c->fail_st = st;
                snprintf(c->fail_msg, sizeof c->fail_msg, "%s", ic_last_error());
            }
            pthread_mutex_unlock(&c->mu);
            return NULL;
        }
    }
}

/* IC_SIM_THREADS: a plain decimal in 1..1024 (else an error naming it);
 * unset: the CPUs.  At most 8 are used, and 1 below 256 instances. */
static ic_status_t build_threads(size_t ninst, int *out)
{
    const char *env = getenv("IC_SIM_THREADS");
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (env && *env) {
        char *end;
        errno = 0;
        n = strtol(env, &end, 10);
        if (errno || *end || end == env || n < 1 || n > 1024 || env[0] == '+' || env[0] == ' ')
            return ic_set_error(IC_ERR_ARG, "IC_SIM_THREADS='%.32s' is not a number of threads "
                                            "in 1..1024", env);
    }
    if (ninst < 256 || n < 1)
        n = 1;
    *out = (int)(n > 8 ? 8 : n);
    return IC_OK;
}

/* Builds every instance's plan (in parallel) into c->e->in. */
static ic_status_t build_plans(build_ctx_t *c)
{
    pthread_t th[8];
    int nt = 1, started = 0;
    ic_status_t st = build_threads(c->e->ninst, &nt);
    if (st != IC_OK)
        return st;
    for (; started < nt - 1; started++)
        if (pthread_create(&th[started], NULL, build_worker, c))
            break; /* fewer threads: the caller's does the rest */
    build_worker(c);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (c->fail_k != SIZE_MAX)
        return ic_set_error(c->fail_st, "%s", c->fail_msg);
    return IC_OK;
}

static ic_status_t build_all(engine_t *e, int world_size, ic_sim_job_t *jobs, int njobs)
{
    for (int j = 0; j < njobs; j++)
        e->ninst += (size_t)jobs[j].size;
    e->in = calloc(e->ninst ? e->ninst : 1, sizeof(inst_t));
    ic_choice_t *choice = calloc((size_t)njobs + 1, sizeof(ic_choice_t));
    if (!e->in || !choice) {
        free(choice);
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    }
    ic_status_t st = IC_OK;
    size_t k = 0;
    for (int j = 0; j < njobs && st == IC_OK; j++) {
        ic_sim_job_t *jb = &jobs[j];
        const char *fn = jb->caller ? jb->caller : "ic_sim_run";
        for (int i = 0; i < jb->size && st == IC_OK; i++, k++) {
            inst_t *in = &e->in[k];
            in->job = j;
            in->crank = i;
            in->node = jb->world ? jb->world[i] : i;
            if (in->node < 0 || in->node >= world_size)
                st = ic_set_error(IC_ERR_ARG, "ic_sim_run: job %d rank %d on node %d of %d", j,
                                  i, in->node, world_size);
            in->pnode = ic_net_node_of(e->net, in->node);
            if (st == IC_OK && jb->plans) { /* the caller's plans, run as they are */
                in->plan = jb->plans[i];
                in->borrowed = true;
                jb->chosen = in->plan.algo ? in->plan.algo : "custom";
                if (in->plan.rank != i || in->plan.size != jb->size)
                    st = ic_set_error(IC_ERR_ARG, "%s: job %d plans[%d] is rank %d of %d", fn,
                                      j, i, in->plan.rank, in->plan.size);
            }
        }
        /* One decision for the job, on rank 0's arguments, that every rank
         * runs (entry and logical mesh), as every real rank would decide. */
        if (st == IC_OK && !jb->plans && jb->size > 0) {
            const ic_algo_t *forced;
            st = ic_validate_args(fn, &jb->args[0], 0, jb->size);
            if (st == IC_OK)
                st = ic_catalog_force(fn, &jb->args[0], jb->size, jb->algo, &forced);
            if (st == IC_OK) {
                ic_decide(&jb->args[0], jb->size, forced, &jb->args[0].model, &choice[j], NULL,
                          0);
                jb->chosen = choice[j].al->name;
            }
        }
    }
    if (st == IC_OK) {
        build_ctx_t c = {.e = e, .jobs = jobs, .choice = choice, .fail_k = SIZE_MAX};
        atomic_init(&c.next, 0);
        pthread_mutex_init(&c.mu, NULL);
        st = build_plans(&c);
        pthread_mutex_destroy(&c.mu);
    }
    free(choice);
    for (k = 0; k < e->ninst && st == IC_OK; k++) {
        inst_t *in = &e->in[k];
        ic_sim_job_t *jb = &jobs[in->job];
        st = check_bounds(jb, in->job, in->crank, in);
        in->base = e->nsteps;
        e->nsteps += in->plan.nsteps;
        if (st == IC_OK && e->move) {
            in->buf[IC_BUF_SEND] = jb->sendbuf ? jb->sendbuf[in->crank] : NULL;
            in->buf[IC_BUF_RECV] = jb->recvbuf ? jb->recvbuf[in->crank] : NULL;
            in->scratch = malloc(in->plan.scratch_bytes ? in->plan.scratch_bytes : 1);
            if (!in->scratch)
                return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
            memset(in->scratch, 0xA5, in->plan.scratch_bytes); /* catch stale reads */
            in->buf[IC_BUF_SCRATCH] = in->scratch;
        }
    }
    return st;
}

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
        maxlen = e->in[i].plan.nsteps > maxlen ? e->in[i].plan.nsteps : maxlen;
    nb->maxlen = maxlen;
    nb->pos = malloc(sizeof(size_t) * (e->ninst + 1));
    nb->order = malloc(sizeof(size_t) * (e->ninst + 1));
    nb->row = calloc(maxlen + 2, sizeof(size_t));
    if (!nb->pos || !nb->order || !nb->row)
        return -1;
    /* Counting sort by length, descending (row[] as the counters). */
    for (size_t i = 0; i < e->ninst; i++)
        nb->row[maxlen - e->in[i].plan.nsteps + 1]++;
    for (size_t l = 1; l <= maxlen + 1; l++)
        nb->row[l] += nb->row[l - 1];
    for (size_t i = 0; i < e->ninst; i++) {
        size_t k = nb->row[maxlen - e->in[i].plan.nsteps]++;
        nb->order[k] = i;
        nb->pos[i] = k;
    }
    /* row[s]: instances with more than s steps, summed over earlier rows. */
    size_t active = e->ninst, id = 0;
    for (size_t st = 0; st < maxlen; st++) {
        while (active > 0 && e->in[nb->order[active - 1]].plan.nsteps <= st)
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
        for (size_t st = 0, len0_ = (e)->in[(nb)->order[k0_]].plan.nsteps,       \
                    k1_ = k0_ + LINK_TILE < (e)->ninst ? k0_ + LINK_TILE : (e)->ninst; \
             st < len0_; st++)                                                    \
            for (size_t k = k0_, i = (nb)->order[k0_];                            \
                 k < k1_ && st < (e)->in[i = (nb)->order[k]].plan.nsteps; k++)

/* Pass 1: every step's engine state, successor counts into
 * succ_first[id + 1] (then prefix sums), and the steps without
 * dependencies in (instance, step) order (e->first). */
static ic_status_t link_pass1(engine_t *e, const numbering_t *nb, size_t nd)
{
    size_t n = e->nsteps, cap = 0;
    FOR_TILED_STEPS(e, nb, k, i, st) {
        const ic_plan_t *pl = &e->in[i].plan;
        const ic_step_t *sp = &pl->steps[st];
        gstep_t *g = &e->g[nb->row[st] + k];
        g->inst = (uint32_t)i;
        g->local = (uint32_t)st;
        g->match = UINT32_MAX;
        g->kind = sp->kind;
        g->bytes = sp->bytes;
        g->remaining = sp->ndeps;
        for (uint32_t d = 0; d < sp->ndeps; d++) {
            size_t before = nb->row[pl->deps[sp->dep_first + d]] + k;
            if (before + 1 < n)
                e->g[before + 1].succ_first++;
        }
        if (sp->ndeps == 0) {
            if (e->nfirst == cap) {
                cap = cap ? 2 * cap : 1024;
                uint64_t *f = realloc(e->first, cap * sizeof(*f));
                if (!f)
                    return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
                e->first = f;
            }
            e->first[e->nfirst++] = (uint64_t)i << 32 | st;
        }
    }
    e->g[n].succ_first = (uint32_t)nd;
    for (size_t g = 1; g < n; g++)
        e->g[g].succ_first += e->g[g - 1].succ_first;
    if (e->nfirst > 1)
        qsort(e->first, e->nfirst, sizeof(uint64_t), cmp_first);
    for (size_t f = 0; f < e->nfirst; f++) /* as ids now */
        e->first[f] = nb->row[e->first[f] & 0xffffffffu] + nb->pos[e->first[f] >> 32];
    return IC_OK;
}

/* Pass 2: the successor lists.  A plan's dependency lists lie in step
 * order, so a cursor per instance walks them (the steps themselves may be
 * gone); a step's successors, all in its instance, come by ascending step
 * index, as a plan-order fill would list them. */
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
        const uint32_t *deps = e->in[i].plan.deps;
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

/* Frees what the engine no longer reads of its own plans: their steps
 * (timing only: a step is then known by its engine state alone, half of a
 * large run's memory) or their dependency lists (after linking). */
static void drop_plans(engine_t *e, bool steps, bool deps)
{
    for (size_t i = 0; i < e->ninst; i++) {
        ic_plan_t *pl = &e->in[i].plan;
        if (e->in[i].borrowed)
            continue;
        if (deps) {
            free(pl->deps);
            pl->deps = NULL;
            pl->ndeps = pl->deps_cap = 0;
        }
        if (steps) {
            free(pl->steps);
            pl->steps = NULL;
            pl->steps_cap = 0; /* nsteps stays: the numbering uses it */
        }
    }
}

static ic_status_t link_steps(engine_t *e)
{
    size_t n = e->nsteps, nd = 0;
    for (size_t i = 0; i < e->ninst; i++)
        nd += e->in[i].plan.ndeps;
    if (n >= UINT32_MAX || nd >= UINT32_MAX)
        return ic_set_error(IC_ERR_ARG, "ic_sim_run: %zu steps and %zu dependencies: more "
                            "than the engine's 2^32 - 1", n, nd);
    numbering_t nb = {0};
    e->g = calloc(n + 1, sizeof(gstep_t));
    if (!e->g || numbering_make(e, &nb)) {
        numbering_free(&nb);
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    }
    ic_status_t st = link_pass1(e, &nb, nd);
    if (st == IC_OK)
        st = match_messages(e, &nb);
    /* Timing only, and every plan the engine's: the steps are not read
     * again (e->steps_gone); the memory goes before the successor lists
     * come. */
    bool mine = true;
    for (size_t i = 0; i < e->ninst; i++)
        mine &= !e->in[i].borrowed;
    if (st == IC_OK && !e->move && mine) {
        drop_plans(e, true, false);
        e->steps_gone = true;
    }
    if (st == IC_OK && !(e->succ = malloc(sizeof(uint32_t) * (nd + 1))))
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    if (st == IC_OK)
        st = link_pass2(e, &nb);
    if (st == IC_OK)
        drop_plans(e, false, true);
    numbering_free(&nb);
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
    free(e->in);
    free(e->g);
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
        st = build_all(&e, world_size, jobs, njobs);
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
