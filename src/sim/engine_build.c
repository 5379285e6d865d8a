/*
 * engine_build.c — the engine's first set-up stage: every instance's plan
 * built, checked against its buffers and turned at once into the compact
 * form the rest of the set-up reads (cplan_t, engine_impl.h).  Plans are
 * independent, so up to 8 threads build them; when only timing, a plan is
 * dropped as soon as it is compact, so the build's peak is the compact
 * forms (about 20 bytes per step) plus one plan per thread, not every plan
 * at once (48 bytes per step and its dependencies).
 */
#include "sim/engine_impl.h"

#include "algo/validate.h"
#include "base/status.h"
#include "select/catalog.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static ic_status_t check_bounds(const ic_sim_job_t *j, int jid, int i, const ic_plan_t *pl)
{
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

void ic_sim_cplan_free(cplan_t *c)
{
    free(c->g1);
    free(c->g2);
    free(c->deps);
    memset(c, 0, sizeof(*c));
}

typedef struct rkey {
    uint64_t key; /* peer << 32 | tag */
    uint32_t local;
} rkey_t;

static int rkey_cmp(const void *pa, const void *pb)
{
    const rkey_t *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->local < b->local ? -1 : (a->local > b->local);
}

/* The receives of in by (peer, tag) into c->rindex; a peer and tag posted
 * twice is an error. */
static ic_status_t sort_receives(inst_t *in, const ic_plan_t *pl)
{
    cplan_t *c = &in->c;
    if (c->nrecv == 0)
        return IC_OK;
    rkey_t *k = malloc(c->nrecv * sizeof(*k));
    if (!k)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    size_t n = 0;
    for (size_t j = 0; j < pl->nsteps; j++)
        if (pl->steps[j].kind == IC_STEP_RECV)
            k[n++] = (rkey_t){(uint64_t)(uint32_t)pl->steps[j].peer << 32 | pl->steps[j].tag,
                              (uint32_t)j};
    qsort(k, n, sizeof(*k), rkey_cmp);
    ic_status_t st = IC_OK;
    for (size_t r = 0; r < n && st == IC_OK; r++) {
        if (r > 0 && k[r].key == k[r - 1].key)
            st = ic_set_error(IC_ERR_INTERNAL,
                              "ic_sim_run: job %d rank %d posts two receives from %d with tag "
                              "%u", in->job, in->crank, (int)(k[r].key >> 32),
                              (uint32_t)k[r].key);
        c->rindex[r] = k[r].local;
    }
    free(k);
    return st;
}

/* in's plan in compact form (in->c, in->nsteps). */
static ic_status_t compact(inst_t *in)
{
    const ic_plan_t *pl = &in->plan;
    size_t n = pl->nsteps;
    cplan_t *c = &in->c;
    size_t nrecv = 0, ndeps = 0;
    for (size_t j = 0; j < n; j++) {
        const ic_step_t *s = &pl->steps[j];
        if (s->ndeps > IC_SIM_MAX_DEPS || (uint64_t)s->bytes > IC_SIM_MAX_BYTES)
            return ic_set_error(IC_ERR_ARG, "ic_sim_run: job %d rank %d step %zu has %u "
                                "dependencies and %zu bytes: the engine takes at most %d "
                                "(a JOIN step gathers more) and 2^40 - 1", in->job, in->crank,
                                j, s->ndeps, s->bytes, IC_SIM_MAX_DEPS);
        nrecv += s->kind == IC_STEP_RECV;
        ndeps += s->ndeps;
    }
    if (n >= UINT32_MAX || ndeps >= UINT32_MAX)
        return ic_set_error(IC_ERR_ARG, "ic_sim_run: job %d rank %d has %zu steps: more than "
                            "the engine's 2^32 - 1", in->job, in->crank, n);
    in->nsteps = n;
    c->nrecv = (uint32_t)nrecv;
    c->g1 = malloc(8 * n + 1);
    c->g2 = malloc(8 * n + 4 * nrecv + 1);
    c->deps = malloc(4 * ndeps + 1);
    if (!c->g1 || !c->g2 || !c->deps)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    c->bytes_lo = c->g1;
    c->ndeps = (uint16_t *)(c->bytes_lo + n);
    c->kind = (uint8_t *)(c->ndeps + n);
    c->bytes_hi = c->kind + n;
    c->peer = c->g2;
    c->tag = (uint32_t *)(c->peer + n);
    c->rindex = c->tag + n;
    size_t d = 0;
    for (size_t j = 0; j < n; j++) {
        const ic_step_t *s = &pl->steps[j];
        c->kind[j] = s->kind;
        c->ndeps[j] = (uint16_t)s->ndeps;
        c->bytes_lo[j] = (uint32_t)s->bytes;
        c->bytes_hi[j] = (uint8_t)((uint64_t)s->bytes >> 32);
        c->peer[j] = s->peer;
        c->tag[j] = s->tag;
        for (uint32_t k = 0; k < s->ndeps; k++)
            c->deps[d++] = pl->deps[s->dep_first + k];
    }
    return sort_receives(in, pl);
}

/* ---- threads -------------------------------------------------------------- */

/* IC_SIM_THREADS: a plain decimal in 1..1024 (else an error naming it);
 * unset: the CPUs.  At most IC_SIM_MAX_THREADS are used, and 1 below 256
 * instances. */
static ic_status_t sim_threads(size_t ninst, int *out)
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
    *out = (int)(n > IC_SIM_MAX_THREADS ? IC_SIM_MAX_THREADS : n);
    return IC_OK;
}

typedef struct par {
    engine_t *e;
    ic_sim_par_fn *fn;
    void *ctx;
    size_t n, chunk;
    atomic_size_t next;
    atomic_int worker;
} par_t;

static void *par_worker(void *arg)
{
    par_t *p = arg;
    int w = atomic_fetch_add(&p->worker, 1);
    for (;;) {
        size_t a = atomic_fetch_add(&p->next, p->chunk);
        if (a >= p->n)
            return NULL;
        p->fn(p->e, p->ctx, a, a + p->chunk < p->n ? a + p->chunk : p->n, w);
    }
}

ic_status_t ic_sim_parallel(engine_t *e, size_t n, size_t chunk, ic_sim_par_fn *fn, void *ctx)
{
    pthread_t th[IC_SIM_MAX_THREADS];
    int nt = 1, started = 0;
    ic_status_t st = sim_threads(e->ninst, &nt);
    if (st != IC_OK)
        return st;
    par_t p = {.e = e, .fn = fn, .ctx = ctx, .n = n, .chunk = chunk ? chunk : 1};
    atomic_init(&p.next, 0);
    atomic_init(&p.worker, 0);
    for (; started < nt - 1; started++)
        if (pthread_create(&th[started], NULL, par_worker, &p))
            break; /* fewer threads: the caller's does the rest */
    par_worker(&p);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return IC_OK;
}

/* ---- building --------------------------------------------------------------- */

/* Plans are built in parallel (they are independent).  The error reported
 * is the lowest-numbered instance's, as a serial build would. */
typedef struct build_ctx {
    ic_sim_job_t *jobs;
    const ic_choice_t *choice; /* per job */
    ic_coll_args_t **vargs;    /* per job: args with the size exchange's records, or NULL */
    pthread_mutex_t mu;
    size_t fail_k;             /* lowest failed instance (SIZE_MAX: none) */
    ic_status_t fail_st;
    char fail_msg[512];
} build_ctx_t;

static ic_status_t build_one(engine_t *e, build_ctx_t *c, size_t k)
{
    inst_t *in = &e->in[k];
    ic_sim_job_t *jb = &c->jobs[in->job];
    ic_status_t st = IC_OK;
    if (!jb->plans) {
        const char *fn = jb->caller ? jb->caller : "ic_sim_run";
        const ic_coll_args_t *args = c->vargs[in->job] ? c->vargs[in->job] : jb->args;
        st = ic_validate_args(fn, &args[in->crank], in->crank, jb->size);
        if (st == IC_OK)
            st = ic_plan_build_choice(fn, &args[in->crank], in->crank, jb->size,
                                      &c->choice[in->job], &in->plan);
    }
    if (st == IC_OK)
        st = check_bounds(jb, in->job, in->crank, &in->plan);
    if (st == IC_OK)
        st = compact(in);
    /* Timing only: the plan is not read again. */
    if (st == IC_OK && !e->move && !in->borrowed)
        ic_plan_release(&in->plan);
    return st;
}

static void build_range(engine_t *e, void *arg, size_t k0, size_t k1, int worker)
{
    (void)worker;
    build_ctx_t *c = arg;
    for (size_t k = k0; k < k1; k++) {
        pthread_mutex_lock(&c->mu);
        bool past = k > c->fail_k; /* a lower instance failed: its error stands */
        pthread_mutex_unlock(&c->mu);
        if (past)
            return;
        ic_status_t st = build_one(e, c, k);
        if (st == IC_OK)
            continue;
        pthread_mutex_lock(&c->mu);
        if (k < c->fail_k) {
            c->fail_k = k;
            c->fail_st = st;
            snprintf(c->fail_msg, sizeof c->fail_msg, "%s", ic_last_error());
        }
        pthread_mutex_unlock(&c->mu);
        return;
    }
}

enum { BUILD_CHUNK = 16 };

/* All-to-allv by an entry that forwards blocks (IC_ALGO_SIZES): every
 * rank's size exchange (the plans ic_plan_build_sizes makes, which the real
 * engine runs first) runs now in an engine of its own, and *vargs becomes
 * a copy of the job's arguments with each rank's record (freed with
 * free_vargs).  The data plans replay the size exchange first (on
 * scratch, fwd_replay), so the job's virtual time is the whole call's. */
static void free_vargs(ic_coll_args_t *v, int p)
{
    for (int i = 0; v && i < p; i++)
        free((void *)v[i].fwd_sizes);
    free(v);
}

static ic_status_t exchange_sizes(int world_size, const ic_model_t *m, ic_sim_job_t *jb,
                                  const ic_choice_t *c, ic_coll_args_t **vargs)
{
    int p = jb->size;
    const char *fn = jb->caller ? jb->caller : "ic_sim_run";
    ic_coll_args_t *v = calloc((size_t)p, sizeof *v);
    ic_plan_t *pl = calloc((size_t)p, sizeof *pl);
    void **bufs = calloc((size_t)p * 2, sizeof(void *));
    size_t *bytes = calloc((size_t)p * 2, sizeof(size_t));
    ic_status_t st = v && pl && bufs && bytes ? IC_OK
                                              : ic_set_error(IC_ERR_NO_MEM, "%s: out of memory", fn);
    int built = 0;
    for (int i = 0; i < p && st == IC_OK; i++) {
        v[i] = jb->args[i];
        st = ic_validate_args(fn, &v[i], i, p);
        if (st == IC_OK)
            st = ic_plan_build_sizes(fn, &v[i], i, p, c, &pl[i]);
        if (st != IC_OK)
            break;
        built++;
        size_t rb = pl[i].buf_bytes[IC_BUF_RECV];
        size_t *rec = malloc(rb ? rb : 1);
        if (!rec) {
            st = ic_set_error(IC_ERR_NO_MEM, "%s: out of memory", fn);
            break;
        }
        v[i].fwd_sizes = rec;
        v[i].nfwd_sizes = rb / sizeof(size_t);
        bufs[i] = (void *)ic_sizes_send_counts(&v[i]);
        bufs[p + i] = rec;
        bytes[i] = sizeof(size_t) * (size_t)p;
        bytes[p + i] = rb;
    }
    if (st == IC_OK) {
        ic_sim_job_t sub = {0};
        sub.size = p;
        sub.world = jb->world;
        sub.args = v;
        sub.caller = fn;
        sub.sendbuf = bufs;
        sub.recvbuf = bufs + p;
        sub.sendbytes = bytes;
        sub.recvbytes = bytes + p;
        sub.plans = pl;
        ic_sim_result_t res = {0};
        st = ic_sim_run(world_size, m, &sub, 1, true, &res);
        for (int i = 0; i < p; i++)
            v[i].fwd_replay = true;
    }
    for (int i = 0; i < built; i++)
        ic_plan_release(&pl[i]);
    free(pl);
    free(bufs);
    free(bytes);
    if (st != IC_OK) {
        free_vargs(v, p);
        v = NULL;
    }
    *vargs = v;
    return st;
}

ic_status_t ic_sim_build_all(engine_t *e, int world_size, ic_sim_job_t *jobs, int njobs)
{
    for (int j = 0; j < njobs; j++)
        e->ninst += (size_t)jobs[j].size;
    e->in = calloc(e->ninst ? e->ninst : 1, sizeof(inst_t));
    e->job_first = calloc((size_t)njobs + 1, sizeof(size_t));
    ic_choice_t *choice = calloc((size_t)njobs + 1, sizeof(ic_choice_t));
    if (!e->in || !e->job_first || !choice) {
        free(choice);
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    }
    ic_status_t st = IC_OK;
    size_t k = 0;
    for (int j = 0; j < njobs && st == IC_OK; j++) {
        ic_sim_job_t *jb = &jobs[j];
        const char *fn = jb->caller ? jb->caller : "ic_sim_run";
        e->job_first[j] = k;
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
    ic_coll_args_t **vargs = calloc((size_t)njobs + 1, sizeof *vargs);
    if (!vargs && st == IC_OK)
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    for (int j = 0; j < njobs && st == IC_OK; j++)
        if (!jobs[j].plans && choice[j].al && (choice[j].al->flags & IC_ALGO_SIZES))
            st = exchange_sizes(world_size, e->m, &jobs[j], &choice[j], &vargs[j]);
    if (st == IC_OK) {
        build_ctx_t c = {.jobs = jobs, .choice = choice, .vargs = vargs, .fail_k = SIZE_MAX};
        pthread_mutex_init(&c.mu, NULL);
        st = ic_sim_parallel(e, e->ninst, BUILD_CHUNK, build_range, &c);
        pthread_mutex_destroy(&c.mu);
        if (st == IC_OK && c.fail_k != SIZE_MAX)
            st = ic_set_error(c.fail_st, "%s", c.fail_msg);
    }
    for (int j = 0; vargs && j < njobs; j++)
        free_vargs(vargs[j], jobs[j].size);
    free(vargs);
    free(choice);
    for (k = 0; k < e->ninst && st == IC_OK; k++) {
        inst_t *in = &e->in[k];
        ic_sim_job_t *jb = &jobs[in->job];
        e->nsteps += in->nsteps;
        if (e->move) {
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
