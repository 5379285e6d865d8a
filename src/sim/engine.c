/*
 * engine.c — the in-process discrete-event engine (see engine.h).
 *
 * Steps of all plans get global ids.  A binary heap orders completion
 * events by (time, sequence).  At each moment the engine first completes
 * every step ending then (making their successors ready), then starts every
 * message that can start, repeating until nothing more happens at that
 * moment.
 */
#include "sim/engine.h"

#include "core/status.h"
#include "core/validate.h"
#include "select/catalog.h"

#include <stdlib.h>
#include <string.h>

typedef struct inst {
    ic_plan_t plan;
    int job, crank, node;
    size_t base;               /* global id of step 0 */
    unsigned char *buf[IC_BUF_COUNT];
    unsigned char *scratch;    /* owned */
} inst_t;

typedef struct event {
    double t;
    size_t seq, gid;
} event_t;

typedef struct engine {
    const ic_model_t *m;
    bool move;
    inst_t *in;
    size_t ninst, nsteps;
    size_t *owner;        /* gid -> inst index */
    size_t *match;        /* SEND gid -> RECV gid */
    uint32_t *remaining;  /* unmet dependencies */
    size_t *succ_first, *succ;
    double *ready_at;
    unsigned char *posted; /* RECV ready */
    event_t *heap;
    size_t nheap, heap_cap, seq, done_steps;
    size_t *pending;       /* ready SEND gids not yet started */
    size_t npending;
    bool pending_dirty;
    double *send_free, *recv_free, *compute_free;
    ic_sim_result_t *res;
} engine_t;

/* ---- heap ---------------------------------------------------------------- */

static bool ev_less(const event_t *a, const event_t *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int heap_push(engine_t *e, double t, size_t gid)
{
    if (e->nheap == e->heap_cap) {
        size_t cap = e->heap_cap ? 2 * e->heap_cap : 256;
        event_t *h = realloc(e->heap, cap * sizeof(*h));
        if (!h)
            return -1;
        e->heap = h;
        e->heap_cap = cap;
    }
    size_t i = e->nheap++;
    e->heap[i] = (event_t){t, e->seq++, gid};
    while (i > 0 && ev_less(&e->heap[i], &e->heap[(i - 1) / 2])) {
        event_t tmp = e->heap[i];
        e->heap[i] = e->heap[(i - 1) / 2];
        e->heap[(i - 1) / 2] = tmp;
        i = (i - 1) / 2;
    }
    return 0;
}

static event_t heap_pop(engine_t *e)
{
    event_t top = e->heap[0];
    e->heap[0] = e->heap[--e->nheap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, s = i;
        if (l < e->nheap && ev_less(&e->heap[l], &e->heap[s]))
            s = l;
        if (r < e->nheap && ev_less(&e->heap[r], &e->heap[s]))
            s = r;
        if (s == i)
            break;
        event_t tmp = e->heap[i];
        e->heap[i] = e->heap[s];
        e->heap[s] = tmp;
        i = s;
    }
    return top;
}

/* ---- steps ---------------------------------------------------------------- */

static const ic_step_t *step_of(const engine_t *e, size_t gid, inst_t **inst)
{
    inst_t *in = &e->in[e->owner[gid]];
    if (inst)
        *inst = in;
    return &in->plan.steps[gid - in->base];
}

static unsigned char *addr(inst_t *in, ic_loc_t l)
{
    return in->buf[l.buf] ? in->buf[l.buf] + l.off : NULL;
}

static void run_local(engine_t *e, inst_t *in, const ic_step_t *s)
{
    if (e->move)
        ic_step_run_local(&in->plan, s, addr(in, s->src), addr(in, s->dst));
}

static int make_ready(engine_t *e, size_t gid, double t)
{
    inst_t *in;
    const ic_step_t *s = step_of(e, gid, &in);
    e->ready_at[gid] = t;
    switch ((ic_step_kind_t)s->kind) {
    case IC_STEP_SEND:
        e->pending[e->npending++] = gid;
        e->pending_dirty = true;
        return 0;
    case IC_STEP_RECV:
        e->posted[gid] = 1;
        return 0;
    default: {
        double rate = s->kind == IC_STEP_COPY ? e->m->delta : e->m->gamma;
        double start = t > e->compute_free[in->node] ? t : e->compute_free[in->node];
        double end = start + (double)s->bytes * rate;
        e->compute_free[in->node] = end;
        run_local(e, in, s);
        return heap_push(e, end, gid);
    }
    }
}

static int complete(engine_t *e, size_t gid, double t)
{
    inst_t *in;
    step_of(e, gid, &in);
    e->done_steps++;
    if (e->res->node_time && t > e->res->node_time[in->node])
        e->res->node_time[in->node] = t;
    if (t > e->res->time)
        e->res->time = t;
    for (size_t k = e->succ_first[gid]; k < e->succ_first[gid + 1]; k++) {
        size_t nx = e->succ[k];
        if (t > e->ready_at[nx])
            e->ready_at[nx] = t;
        if (--e->remaining[nx] == 0 && make_ready(e, nx, e->ready_at[nx]))
            return -1;
    }
    return 0;
}

/* qsort has no context argument in C11: the engine being sorted.  The
 * engine is therefore not reentrant across threads. */
static const engine_t *sort_ctx;

static int pending_cmp(const void *a, const void *b)
{
    const engine_t *e = sort_ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (e->ready_at[x] != e->ready_at[y])
        return e->ready_at[x] < e->ready_at[y] ? -1 : 1;
    int nx = e->in[e->owner[x]].node, ny = e->in[e->owner[y]].node;
    if (nx != ny)
        return nx < ny ? -1 : 1;
    return x < y ? -1 : (x > y);
}

/* Starts every message that can start at time t. */
static int start_messages(engine_t *e, double t)
{
    if (e->pending_dirty) {
        sort_ctx = e;
        qsort(e->pending, e->npending, sizeof(size_t), pending_cmp);
        e->pending_dirty = false;
    }
    size_t keep = 0;
    for (size_t i = 0; i < e->npending; i++) {
        size_t sg = e->pending[i], rg = e->match[sg];
        inst_t *si, *ri;
        const ic_step_t *s = step_of(e, sg, &si);
        const ic_step_t *r = step_of(e, rg, &ri);
        if (!e->posted[rg] || e->send_free[si->node] > t || e->recv_free[ri->node] > t) {
            e->pending[keep++] = sg;
            continue;
        }
        double end = t + e->m->alpha + (double)s->bytes * e->m->beta;
        e->send_free[si->node] = end;
        e->recv_free[ri->node] = end;
        if (e->move && s->bytes)
            memcpy(addr(ri, r->dst), addr(si, s->src), s->bytes);
        e->res->msgs++;
        e->res->bytes += s->bytes;
        if (e->res->node_msgs)
            e->res->node_msgs[si->node]++;
        if (e->res->node_bytes)
            e->res->node_bytes[si->node] += s->bytes;
        if (heap_push(e, end, sg) || heap_push(e, end, rg))
            return -1;
    }
    e->npending = keep;
    return 0;
}

/* ---- set-up ---------------------------------------------------------------- */

typedef struct rkey {
    int job, from, to;
    uint32_t tag;
} rkey_t;

static size_t rhash(rkey_t k)
{
    uint64_t h = (uint64_t)k.job * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)(uint32_t)k.from << 32 | (uint32_t)k.to) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)k.tag * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (size_t)h;
}

static ic_status_t match_messages(engine_t *e)
{
    size_t cap = 16;
    while (cap < 2 * e->nsteps)
        cap *= 2;
    size_t *table = malloc(cap * sizeof(size_t));
    if (!table)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    for (size_t i = 0; i < cap; i++)
        table[i] = SIZE_MAX;
    ic_status_t st = IC_OK;
    for (size_t g = 0; g < e->nsteps && st == IC_OK; g++) {
        inst_t *in;
        const ic_step_t *s = step_of(e, g, &in);
        if (s->kind != IC_STEP_RECV)
            continue;
        rkey_t k = {in->job, s->peer, in->crank, s->tag};
        size_t h = rhash(k) & (cap - 1);
        while (table[h] != SIZE_MAX) {
            inst_t *o;
            const ic_step_t *os = step_of(e, table[h], &o);
            if (o->job == k.job && os->peer == k.from && o->crank == k.to && os->tag == k.tag)
                st = ic_set_error(IC_ERR_INTERNAL,
                                  "ic_sim_run: job %d rank %d posts two receives from %d "
                                  "with tag %u", k.job, k.to, k.from, k.tag);
            h = (h + 1) & (cap - 1);
        }
        table[h] = g;
    }
    for (size_t g = 0; g < e->nsteps && st == IC_OK; g++) {
        inst_t *in;
        const ic_step_t *s = step_of(e, g, &in);
        if (s->kind != IC_STEP_SEND)
            continue;
        rkey_t k = {in->job, in->crank, s->peer, s->tag};
        size_t h = rhash(k) & (cap - 1), found = SIZE_MAX;
        for (; table[h] != SIZE_MAX; h = (h + 1) & (cap - 1)) {
            inst_t *o;
            const ic_step_t *os = step_of(e, table[h], &o);
            if (o->job == k.job && os->peer == k.from && o->crank == k.to && os->tag == k.tag) {
                found = table[h];
                break;
            }
        }
        if (found == SIZE_MAX || e->match[found] != SIZE_MAX) {
            st = ic_set_error(IC_ERR_INTERNAL,
                              "ic_sim_run: job %d: send %d -> %d tag %u.%u has no receive", k.job,
                              k.from, k.to, k.tag >> IC_TAG_PHASE_SHIFT,
                              k.tag & IC_TAG_MAX_IN_PHASE);
            break;
        }
        const ic_step_t *r = step_of(e, found, NULL);
        if (r->bytes != s->bytes) {
            st = ic_set_error(IC_ERR_INTERNAL,
                              "ic_sim_run: job %d: send %d -> %d tag %u: %zu bytes sent, "
                              "%zu expected", k.job, k.from, k.to, k.tag, s->bytes, r->bytes);
            break;
        }
        e->match[g] = found;
        e->match[found] = g;
    }
    for (size_t g = 0; g < e->nsteps && st == IC_OK; g++) {
        inst_t *in;
        const ic_step_t *s = step_of(e, g, &in);
        if (s->kind == IC_STEP_RECV && e->match[g] == SIZE_MAX)
            st = ic_set_error(IC_ERR_INTERNAL,
                              "ic_sim_run: job %d: receive %d <- %d tag %u has no send",
                              in->job, in->crank, s->peer, s->tag);
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

static ic_status_t build_all(engine_t *e, int world_size, ic_sim_job_t *jobs, int njobs)
{
    ic_status_t st = IC_OK;
    for (int j = 0; j < njobs; j++)
        e->ninst += (size_t)jobs[j].size;
    e->in = calloc(e->ninst ? e->ninst : 1, sizeof(inst_t));
    if (!e->in)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    size_t k = 0;
    for (int j = 0; j < njobs && st == IC_OK; j++) {
        ic_sim_job_t *jb = &jobs[j];
        const char *fn = jb->caller ? jb->caller : "ic_sim_run";
        /* One decision for the job, on rank 0's arguments, that every rank
         * runs (entry and logical mesh), as every real rank would decide. */
        ic_choice_t choice = {0};
        for (int i = 0; i < jb->size && st == IC_OK; i++, k++) {
            inst_t *in = &e->in[k];
            in->job = j;
            in->crank = i;
            in->node = jb->world ? jb->world[i] : i;
            if (in->node < 0 || in->node >= world_size)
                return ic_set_error(IC_ERR_ARG, "ic_sim_run: job %d rank %d on node %d of %d",
                                    j, i, in->node, world_size);
            st = ic_validate_args(fn, &jb->args[i], i, jb->size);
            if (st == IC_OK && i == 0) {
                const ic_algo_t *forced;
                st = ic_catalog_force(fn, &jb->args[0], jb->size, jb->algo, &forced);
                if (st == IC_OK)
                    ic_decide(&jb->args[0], jb->size, forced, &jb->args[0].model, &choice, NULL,
                              0);
            }
            if (st == IC_OK)
                st = ic_plan_build_choice(fn, &jb->args[i], i, jb->size, &choice, &in->plan);
            if (st != IC_OK)
                break;
            jb->chosen = choice.al->name;
            st = check_bounds(jb, j, i, in);
            in->base = e->nsteps;
            e->nsteps += in->plan.nsteps;
            if (e->move) {
                in->buf[IC_BUF_SEND] = jb->sendbuf ? jb->sendbuf[i] : NULL;
                in->buf[IC_BUF_RECV] = jb->recvbuf ? jb->recvbuf[i] : NULL;
                in->scratch = malloc(in->plan.scratch_bytes ? in->plan.scratch_bytes : 1);
                if (!in->scratch)
                    return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
                memset(in->scratch, 0xA5, in->plan.scratch_bytes); /* catch stale reads */
                in->buf[IC_BUF_SCRATCH] = in->scratch;
            }
        }
    }
    return st;
}

static ic_status_t link_steps(engine_t *e)
{
    size_t n = e->nsteps;
    e->owner = malloc(sizeof(size_t) * (n + 1));
    e->match = malloc(sizeof(size_t) * (n + 1));
    e->remaining = calloc(n + 1, sizeof(uint32_t));
    e->succ_first = calloc(n + 2, sizeof(size_t));
    e->ready_at = calloc(n + 1, sizeof(double));
    e->posted = calloc(n + 1, 1);
    e->pending = malloc(sizeof(size_t) * (n + 1));
    if (!e->owner || !e->match || !e->remaining || !e->succ_first || !e->ready_at ||
        !e->posted || !e->pending)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    size_t nd = 0;
    for (size_t i = 0; i < e->ninst; i++) {
        const ic_plan_t *pl = &e->in[i].plan;
        for (size_t s = 0; s < pl->nsteps; s++) {
            size_t g = e->in[i].base + s;
            e->owner[g] = i;
            e->match[g] = SIZE_MAX;
            e->remaining[g] = pl->steps[s].ndeps;
            for (uint32_t d = 0; d < pl->steps[s].ndeps; d++)
                e->succ_first[e->in[i].base + pl->deps[pl->steps[s].dep_first + d] + 1]++;
            nd += pl->steps[s].ndeps;
        }
    }
    for (size_t g = 0; g < n; g++)
        e->succ_first[g + 1] += e->succ_first[g];
    e->succ = malloc(sizeof(size_t) * (nd + 1));
    size_t *fill = calloc(n + 1, sizeof(size_t));
    if (!e->succ || !fill) {
        free(fill);
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    }
    for (size_t i = 0; i < e->ninst; i++) {
        const ic_plan_t *pl = &e->in[i].plan;
        for (size_t s = 0; s < pl->nsteps; s++)
            for (uint32_t d = 0; d < pl->steps[s].ndeps; d++) {
                size_t before = e->in[i].base + pl->deps[pl->steps[s].dep_first + d];
                e->succ[e->succ_first[before] + fill[before]++] = e->in[i].base + s;
            }
    }
    free(fill);
    return match_messages(e);
}

static ic_status_t run(engine_t *e)
{
    for (size_t g = 0; g < e->nsteps; g++)
        if (e->remaining[g] == 0 && make_ready(e, g, 0))
            return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    double t = 0;
    for (;;) {
        if (start_messages(e, t))
            return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
        if (e->nheap == 0)
            break;
        t = e->heap[0].t;
        while (e->nheap > 0 && e->heap[0].t == t) {
            event_t ev = heap_pop(e);
            if (complete(e, ev.gid, ev.t))
                return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
        }
    }
    if (e->done_steps != e->nsteps) {
        for (size_t g = 0; g < e->nsteps; g++) {
            inst_t *in;
            const ic_step_t *s = step_of(e, g, &in);
            if (e->remaining[g] == 0 && (s->kind == IC_STEP_SEND || s->kind == IC_STEP_RECV))
                return ic_set_error(IC_ERR_INTERNAL,
                                    "ic_sim_run: deadlock: job %d rank %d step %zu (%s with "
                                    "%d) never ran", in->job, in->crank, g - in->base,
                                    ic_step_kind_name((ic_step_kind_t)s->kind), s->peer);
        }
        return ic_set_error(IC_ERR_INTERNAL, "ic_sim_run: deadlock: %zu of %zu steps ran",
                            e->done_steps, e->nsteps);
    }
    e->res->steps = e->done_steps;
    return IC_OK;
}

ic_status_t ic_sim_run(int world_size, const ic_model_t *m, ic_sim_job_t *jobs, int njobs,
                       bool move_data, ic_sim_result_t *res)
{
    engine_t e = {0};
    e.m = m;
    e.move = move_data;
    e.res = res;
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
    ic_status_t st = IC_OK;
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
        st = run(&e);
    for (size_t i = 0; i < e.ninst; i++) {
        ic_plan_release(&e.in[i].plan);
        free(e.in[i].scratch);
    }
    free(e.in);
    free(e.owner);
    free(e.match);
    free(e.remaining);
    free(e.succ_first);
    free(e.succ);
    free(e.ready_at);
    free(e.posted);
    free(e.pending);
    free(e.heap);
    free(e.send_free);
    free(e.recv_free);
    free(e.compute_free);
    return st;
}
