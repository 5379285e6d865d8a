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

#include "core/status.h"
#include "core/validate.h"
#include "select/catalog.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- set-up ---------------------------------------------------------------- */

/* Matching: every RECV goes into an open-addressing table keyed by (job,
 * from, to, tag); every SEND finds its RECV there.  Keys live in the table
 * so probing touches no step. */
typedef struct rkey {
    int job, from, to;
    uint32_t tag;
    uint32_t gid; /* UINT32_MAX: empty */
} rkey_t;

static size_t rhash(const rkey_t *k)
{
    uint64_t h = (uint64_t)k->job * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)(uint32_t)k->from << 32 | (uint32_t)k->to) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)k->tag * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (size_t)h;
}

static bool rkey_eq(const rkey_t *a, const rkey_t *b)
{
    return a->job == b->job && a->from == b->from && a->to == b->to && a->tag == b->tag;
}

static ic_status_t match_messages(engine_t *e)
{
    size_t nrecv = 0;
    for (size_t g = 0; g < e->nsteps; g++)
        nrecv += e->g[g].kind == IC_STEP_RECV;
    size_t cap = 16;
    while (cap < 2 * nrecv)
        cap *= 2;
    rkey_t *table = malloc(cap * sizeof(*table));
    if (!table)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    for (size_t i = 0; i < cap; i++)
        table[i].gid = UINT32_MAX;
    ic_status_t st = IC_OK;
    for (size_t g = 0; g < e->nsteps && st == IC_OK; g++) {
        if (e->g[g].kind != IC_STEP_RECV)
            continue;
        inst_t *in;
        const ic_step_t *s = ic_sim_step(e, g, &in);
        rkey_t k = {in->job, s->peer, in->crank, s->tag, (uint32_t)g};
        size_t h = rhash(&k) & (cap - 1);
        for (; table[h].gid != UINT32_MAX && st == IC_OK; h = (h + 1) & (cap - 1))
            if (rkey_eq(&table[h], &k))
                st = ic_set_error(IC_ERR_INTERNAL,
                                  "ic_sim_run: job %d rank %d posts two receives from %d "
                                  "with tag %u", k.job, k.to, k.from, k.tag);
        table[h] = k;
    }
    for (size_t g = 0; g < e->nsteps && st == IC_OK; g++) {
        if (e->g[g].kind != IC_STEP_SEND)
            continue;
        inst_t *in;
        const ic_step_t *s = ic_sim_step(e, g, &in);
        rkey_t k = {in->job, in->crank, s->peer, s->tag, 0};
        size_t h = rhash(&k) & (cap - 1);
        uint32_t found = UINT32_MAX;
        for (; table[h].gid != UINT32_MAX; h = (h + 1) & (cap - 1))
            if (rkey_eq(&table[h], &k)) {
                found = table[h].gid;
                break;
            }
        if (found == UINT32_MAX || e->g[found].match != UINT32_MAX) {
            st = ic_set_error(IC_ERR_INTERNAL,
                              "ic_sim_run: job %d: send %d -> %d tag %u.%u has no receive", k.job,
                              k.from, k.to, k.tag >> IC_TAG_PHASE_SHIFT,
                              k.tag & IC_TAG_MAX_IN_PHASE);
            break;
        }
        const ic_step_t *r = ic_sim_step(e, found, NULL);
        if (r->bytes != s->bytes) {
            st = ic_set_error(IC_ERR_INTERNAL,
                              "ic_sim_run: job %d: send %d -> %d tag %u: %zu bytes sent, "
                              "%zu expected", k.job, k.from, k.to, k.tag, s->bytes, r->bytes);
            break;
        }
        e->g[g].match = found;
        e->g[found].match = (uint32_t)g;
    }
    for (size_t g = 0; g < e->nsteps && st == IC_OK; g++) {
        if (e->g[g].kind != IC_STEP_RECV || e->g[g].match != UINT32_MAX)
            continue;
        inst_t *in;
        const ic_step_t *s = ic_sim_step(e, g, &in);
        st = ic_set_error(IC_ERR_INTERNAL,
                          "ic_sim_run: job %d: receive %d <- %d tag %u has no send", in->job,
                          in->crank, s->peer, s->tag);
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

static int build_threads(size_t ninst)
{
    const char *env = getenv("IC_SIM_THREADS");
    long n = env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    if (ninst < 256 || n < 1)
        n = 1;
    return (int)(n > 8 ? 8 : n);
}

/* Builds every instance's plan (in parallel) into c->e->in. */
static ic_status_t build_plans(build_ctx_t *c)
{
    pthread_t th[8];
    int nt = build_threads(c->e->ninst), started = 0;
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

static ic_status_t link_steps(engine_t *e)
{
    size_t n = e->nsteps, nd = 0;
    for (size_t i = 0; i < e->ninst; i++)
        nd += e->in[i].plan.ndeps;
    if (n >= UINT32_MAX || nd >= UINT32_MAX)
        return ic_set_error(IC_ERR_ARG, "ic_sim_run: %zu steps and %zu dependencies: more "
                            "than the engine's 2^32 - 1", n, nd);
    e->g = calloc(n + 1, sizeof(gstep_t));
    e->succ = malloc(sizeof(uint32_t) * (nd + 1));
    uint32_t *fill = calloc(n + 1, sizeof(uint32_t));
    if (!e->g || !e->succ || !fill) {
        free(fill);
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    }
    /* Count successors into succ_first[before + 1], then prefix-sum. */
    for (size_t i = 0; i < e->ninst; i++) {
        const ic_plan_t *pl = &e->in[i].plan;
        size_t base = e->in[i].base;
        for (size_t s = 0; s < pl->nsteps; s++) {
            gstep_t *g = &e->g[base + s];
            g->inst = (uint32_t)i;
            g->match = UINT32_MAX;
            g->kind = pl->steps[s].kind;
            g->bytes = pl->steps[s].bytes;
            g->remaining = pl->steps[s].ndeps;
            for (uint32_t d = 0; d < pl->steps[s].ndeps; d++) {
                size_t before = base + pl->deps[pl->steps[s].dep_first + d];
                if (before + 1 < n)
                    e->g[before + 1].succ_first++;
            }
        }
    }
    e->g[n].succ_first = (uint32_t)nd;
    for (size_t g = 1; g < n; g++)
        e->g[g].succ_first += e->g[g - 1].succ_first;
    for (size_t i = 0; i < e->ninst; i++) {
        const ic_plan_t *pl = &e->in[i].plan;
        size_t base = e->in[i].base;
        for (size_t s = 0; s < pl->nsteps; s++)
            for (uint32_t d = 0; d < pl->steps[s].ndeps; d++) {
                size_t before = base + pl->deps[pl->steps[s].dep_first + d];
                e->succ[e->g[before].succ_first + fill[before]++] = (uint32_t)(base + s);
            }
    }
    free(fill);
    return match_messages(e);
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
    if (st == IC_OK)
        st = build_all(&e, world_size, jobs, njobs);
    if (st == IC_OK)
        st = link_steps(&e);
    if (st == IC_OK)
        st = ic_sim_engine_run(&e);
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
