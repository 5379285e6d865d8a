/*
 * engine_run.c — the engine's event loop: steps becoming ready, messages
 * starting, and the contention report (flows and circuits, the messages
 * that use links while they last, are in engine_links.c).
 *
 * A 4-ary heap orders events by (time, sequence).  At each moment the
 * engine first handles every event of that moment (completing steps,
 * which makes their successors ready; ending flows and circuits), then
 * starts every message that can start, repeating until nothing more
 * happens then.
 *
 * Starting: a message can start when its SEND and RECV are both ready and
 * (one-port) the sender's send port and the receiver's receive port are
 * free (with circuit set-up overlap: both nodes' current messages have
 * started moving); k-port: one of the sender's k send ports and one of the
 * receiver's k receive ports are free (the first free one is taken).
 * Among messages that could start at one moment, the earlier-ready SEND,
 * then the lower sender, then the earlier step (of the same instance) goes
 * first.  Only messages of "dirty" nodes (a port
 * freed, a new message) are looked at, so a moment costs what changed, not
 * the number of waiting messages.
 *
 * Time of a message of n bytes over a path of h links (network.h): with
 * nothing shared (full network, or contention off) it is fixed at the
 * start, alpha + h*hop + n'*beta with n' = n (n*h for store-and-forward);
 * otherwise a flow or a circuit (engine_links.c) decides when it ends.
 */
#include "sim/engine_impl.h"

#include "base/status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- heap ----------------------------------------------------------------- */

/* A 4-ary heap: half the levels of a binary one, and a node's children
 * share a cache line or two, so a pop touches fewer lines.  (time,
 * sequence) is a strict order, so the events come out in the same order
 * from any correct heap. */
enum { HEAP_D = 4 };

static bool ev_less(const event_t *a, const event_t *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int ic_sim_push(engine_t *e, double t, uint8_t kind, size_t id, uint32_t ver)
{
    event_t *h = ic_sim_grow(e->heap, e->nheap, &e->heap_cap, sizeof(*h));
    if (!h)
        return -1;
    e->heap = h;
    event_t ev = {t, e->seq++, id, ver, kind};
    size_t i = e->nheap++;
    while (i > 0) {
        size_t up = (i - 1) / HEAP_D;
        if (!ev_less(&ev, &h[up]))
            break;
        h[i] = h[up];
        i = up;
    }
    h[i] = ev;
    return 0;
}

static event_t heap_pop(engine_t *e)
{
    event_t *h = e->heap, top = h[0], last = h[--e->nheap];
    size_t n = e->nheap, i = 0;
    for (;;) {
        size_t c = HEAP_D * i + 1, best = c;
        if (c >= n)
            break;
        size_t end = c + HEAP_D < n ? c + HEAP_D : n;
        for (size_t k = c + 1; k < end; k++)
            if (ev_less(&h[k], &h[best]))
                best = k;
        if (!ev_less(&h[best], &last))
            break;
        h[i] = h[best];
        i = best;
    }
    if (n > 0)
        h[i] = last;
    return top;
}

/* ---- steps ---------------------------------------------------------------- */

static unsigned char *addr(inst_t *in, ic_loc_t l)
{
    return in->buf[l.buf] ? in->buf[l.buf] + l.off : NULL;
}

void ic_sim_dirty(engine_t *e, int node, int *err)
{
    if (!e->is_dirty[node]) {
        e->is_dirty[node] = 1;
        *err |= idvec_push(&e->dirty, (size_t)node);
    }
}

/* Both sides of the message of SEND sg are ready: it may start. */
static int add_candidate(engine_t *e, size_t sg)
{
    if (e->all_port)
        return idvec_push(&e->fresh, sg);
    int sn = e->in[e->g[sg].inst].node, rn = e->in[e->g[e->match[sg]].inst].node;
    int err = idvec_push(&e->sendq[sn], sg);
    err |= idvec_push(&e->recvq[rn], sg);
    ic_sim_dirty(e, sn, &err);
    ic_sim_dirty(e, rn, &err);
    return err;
}

static int make_ready(engine_t *e, size_t gid, double t)
{
    gstep_t *g = &e->g[gid];
    e->ready_at[gid] = t;
    switch ((ic_step_kind_t)g->kind) {
    case IC_STEP_SEND:
    case IC_STEP_RECV:
        g->ready = 1;
        if (!e->g[e->match[gid]].ready)
            return 0;
        return add_candidate(e, g->kind == IC_STEP_SEND ? gid : e->match[gid]);
    case IC_STEP_JOIN:
        return ic_sim_push(e, t, EV_STEP, gid, 0);
    default: {
        inst_t *in = &e->in[g->inst];
        double rate = g->kind == IC_STEP_COPY ? e->m->delta : e->m->gamma;
        double start = t > e->compute_free[in->node] ? t : e->compute_free[in->node];
        double end = start + (double)ic_sim_bytes(g) * rate;
        e->compute_free[in->node] = end;
        if (e->move) { /* the plan's step only now (scale runs never read it) */
            const ic_step_t *s = ic_sim_step(e, gid, NULL);
            ic_step_run_local(&in->plan, s, addr(in, s->src), addr(in, s->dst));
        }
        return ic_sim_push(e, end, EV_STEP, gid, 0);
    }
    }
}

/* ---- links ---------------------------------------------------------------- */

/* The route of the message of SEND sg into e->route; its hop count. */
static int route_of(engine_t *e, size_t sg)
{
    if (!e->nlinks)
        return 0;
    int a = e->in[e->g[sg].inst].pnode, b = e->in[e->g[e->match[sg]].inst].pnode;
    return ic_net_route(e->net, a, b, e->route, e->max_hops);
}

int ic_sim_complete(engine_t *e, size_t gid, double t)
{
    const gstep_t *g = &e->g[gid];
    const inst_t *in = &e->in[g->inst];
    e->done_steps++;
    if (e->res->node_time && t > e->res->node_time[in->node])
        e->res->node_time[in->node] = t;
    if (t > e->res->time)
        e->res->time = t;
    int err = 0;
    if (g->kind == IC_STEP_SEND || g->kind == IC_STEP_RECV) {
        /* A fixed-time message ends: its ports are free now, and its links
         * (flows and circuits release theirs when they end). */
        if (!(e->all_port))
            ic_sim_dirty(e, in->node, &err);
        if (g->kind == IC_STEP_SEND && !e->flows && !e->circuits && e->nlinks) {
            int h = route_of(e, gid);
            for (int k = 0; k < h; k++)
                e->load[e->route[k]]--;
        }
    }
    for (uint32_t k = e->g[gid].succ_first; k < e->g[gid + 1].succ_first; k++) {
        uint32_t x = e->succ[k];
        if (t > e->ready_at[x])
            e->ready_at[x] = t;
        if (--e->g[x].remaining == 0)
            err |= make_ready(e, x, e->ready_at[x]);
    }
    return err;
}

/* ---- contention report ---------------------------------------------------- */

static ic_sim_step_load_t *report_step(engine_t *e, double t)
{
    ic_sim_contention_t *c = e->ct;
    /* Times within rounding of the step's are the same moment (equal
     * sums added in another order). */
    if (c->nsteps == 0 || t > e->step_t + 1e-12 * (fabs(t) + 1)) {
        ic_sim_step_load_t *s = ic_sim_grow(c->steps, c->nsteps, &e->ct_cap, sizeof(*s));
        if (!s)
            return NULL;
        c->steps = s;
        c->steps[c->nsteps++] = (ic_sim_step_load_t){t, 0, 0, -1};
        e->step_t = t;
    }
    return &c->steps[c->nsteps - 1];
}

static int report_start(engine_t *e, double t, int h)
{
    ic_sim_contention_t *c = e->ct;
    ic_sim_step_load_t *st = report_step(e, t);
    if (!st)
        return -1;
    st->started++;
    e->pic_dirty = c->link_load && c->nsteps == c->picture_step + 1;
    for (int k = 0; k < h; k++) {
        uint32_t l = e->load[e->route[k]];
        if (l > st->max_load) {
            st->max_load = l;
            st->link = (long)e->route[k];
        }
        if (l > c->max_load) {
            c->max_load = l;
            c->max_link = (long)e->route[k];
            c->max_step = c->nsteps - 1;
        }
    }
    return 0;
}

/* ---- starting messages ---------------------------------------------------- */

/* A port of node's (in free: send_free or recv_free) free at t, the first
 * one; -1 when all kports are busy. */
static long free_port(const engine_t *e, const double *free, int node, double t)
{
    size_t first = (size_t)node * (size_t)e->kports;
    for (size_t i = first; i < first + (size_t)e->kports; i++)
        if (free[i] <= t)
            return (long)i;
    return -1;
}

/* One- or k-port: may a message from sn to rn start at t?  With set-up
 * overlap (one-port) it may once both nodes' current messages have
 * started moving. */
static bool ports_free(const engine_t *e, int sn, int rn, double t)
{
    if (e->overlap)
        return e->setup_free[sn] <= t && e->rsetup_free[rn] <= t;
    return free_port(e, e->send_free, sn, t) >= 0 && free_port(e, e->recv_free, rn, t) >= 0;
}

/* Starts the message of SEND sg at t if it can; 1 if it did, 0 if not, -1
 * when out of memory. */
static int try_start(engine_t *e, size_t sg, double t)
{
    size_t rg = e->match[sg];
    inst_t *si = &e->in[e->g[sg].inst], *ri = &e->in[e->g[rg].inst];
    size_t nbytes = ic_sim_bytes(&e->g[sg]);
    bool one_port = !(e->all_port);
    if (one_port && !ports_free(e, si->node, ri->node, t))
        return 0;
    /* The ports it takes (all-port: none; with set-up overlap the node's one). */
    long sp = one_port ? free_port(e, e->send_free, si->node, t) : si->node;
    long rp = one_port ? free_port(e, e->recv_free, ri->node, t) : ri->node;
    if (e->overlap) {
        sp = si->node;
        rp = ri->node;
    }
    int h = route_of(e, sg);
    e->g[sg].started = 1;
    for (int k = 0; k < h; k++)
        if (e->flows)
            ic_sim_load_up(e, e->route[k]);
        else
            e->load[e->route[k]]++;
    if (e->ct && report_start(e, t, h))
        return -1;
    if (e->move && nbytes)
        memcpy(addr(ri, ic_sim_step(e, rg, NULL)->dst), addr(si, ic_sim_step(e, sg, NULL)->src),
               nbytes);
    e->res->msgs++;
    e->res->bytes += nbytes;
    if (e->res->node_msgs)
        e->res->node_msgs[si->node]++;
    if (e->res->node_bytes)
        e->res->node_bytes[si->node] += nbytes;
    bool saf = e->net && e->net->switching == IC_SWITCH_STORE_FORWARD;
    double bytes = (double)nbytes * (saf && h > 1 ? h : 1);
    if (e->flows || e->circuits) {
        /* Ports held until the flow ends or the circuit is set up. */
        double *sf = e->overlap ? e->setup_free : e->send_free;
        double *rf = e->overlap ? e->rsetup_free : e->recv_free;
        sf[sp] = HUGE_VAL;
        rf[rp] = HUGE_VAL;
        int err = e->flows ? ic_sim_flow_start(e, sg, t, h, bytes, (size_t)sp, (size_t)rp)
                           : ic_sim_circuit_start(e, sg, t, h, bytes, (size_t)sp, (size_t)rp);
        return err ? -1 : 1;
    }
    double hop = e->net ? e->net->hop : 0;
    double end = t + (e->m->alpha + h * hop) + bytes * e->m->beta;
    e->send_free[sp] = end;
    e->recv_free[rp] = end;
    if (ic_sim_push(e, end, EV_STEP, sg, 0) || ic_sim_push(e, end, EV_STEP, rg, 0))
        return -1;
    return 1;
}

/* qsort has no context argument in C11; one per thread (simulator workers). */
static _Thread_local const engine_t *sort_ctx;

static int cand_cmp(const void *pa, const void *pb)
{
    const engine_t *e = sort_ctx;
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    const gstep_t *a = &e->g[x], *b = &e->g[y];
    if (e->ready_at[x] != e->ready_at[y])
        return e->ready_at[x] < e->ready_at[y] ? -1 : 1;
    int nx = e->in[a->inst].node, ny = e->in[b->inst].node;
    if (nx != ny)
        return nx < ny ? -1 : 1;
    if (a->inst != b->inst)
        return a->inst < b->inst ? -1 : 1;
    return x < y ? -1 : (x > y); /* one instance: ids go with its steps */
}

/* Moves the unstarted messages of q whose ports are free into collect,
 * dropping started ones from q. */
static int gather_queue(engine_t *e, idvec_t *q, double t)
{
    size_t keep = 0;
    int err = 0;
    for (size_t i = 0; i < q->n; i++) {
        size_t sg = q->v[i];
        if (e->g[sg].started)
            continue;
        q->v[keep++] = sg;
        int sn = e->in[e->g[sg].inst].node, rn = e->in[e->g[e->match[sg]].inst].node;
        if (ports_free(e, sn, rn, t))
            err |= idvec_push(&e->collect, sg);
    }
    q->n = keep;
    return err;
}

/* Starts every message that can start at time t. */
static int start_messages(engine_t *e, double t)
{
    int err = 0;
    bool one_port = !(e->all_port);
    e->collect.n = 0;
    if (one_port) {
        for (size_t i = 0; i < e->dirty.n; i++) {
            int node = (int)e->dirty.v[i];
            e->is_dirty[node] = 0;
            err |= gather_queue(e, &e->sendq[node], t);
            err |= gather_queue(e, &e->recvq[node], t);
        }
        e->dirty.n = 0;
    } else {
        for (size_t i = 0; i < e->fresh.n; i++)
            err |= idvec_push(&e->collect, e->fresh.v[i]);
        e->fresh.n = 0;
    }
    if (err)
        return -1;
    if (e->collect.n == 0)
        return 0;
    sort_ctx = e;
    qsort(e->collect.v, e->collect.n, sizeof(size_t), cand_cmp);
    for (size_t i = 0; i < e->collect.n; i++) {
        size_t sg = e->collect.v[i];
        if (i > 0 && sg == e->collect.v[i - 1])
            continue;
        if (!e->g[sg].started && try_start(e, sg, t) < 0)
            return -1;
    }
    ic_sim_contention_t *c = e->ct;
    if (e->pic_dirty) { /* messages of the picture's step started */
        memcpy(c->link_load, e->load, (size_t)e->nlinks * sizeof(uint32_t));
        e->pic_dirty = false;
    }
    return 0;
}

/* ---- the loop ------------------------------------------------------------- */

static int handle(engine_t *e, event_t ev)
{
    switch (ev.kind) {
    case EV_STEP:
        return ic_sim_complete(e, ev.id, ev.t);
    case EV_WAKE: {
        int err = 0;
        ic_sim_dirty(e, (int)ev.id, &err);
        return err;
    }
    case EV_FLOW: {
        flow_t *f = &e->fl[ev.id];
        if (ev.ver != f->ver)
            return 0; /* moved since */
        return ic_sim_flow_end(e, (uint32_t)ev.id, ev.t);
    }
    default:
        return ic_sim_circuit_event(e, ev);
    }
}

static ic_status_t set_up(engine_t *e)
{
    size_t nodes = 0;
    for (size_t i = 0; i < e->ninst; i++)
        if ((size_t)e->in[i].node + 1 > nodes)
            nodes = (size_t)e->in[i].node + 1;
    e->sendq = calloc(nodes + 1, sizeof(idvec_t));
    e->recvq = calloc(nodes + 1, sizeof(idvec_t));
    e->is_dirty = calloc(nodes + 1, 1);
    e->route = malloc(((size_t)e->max_hops + 1) * sizeof(uint32_t));
    e->ready_at = calloc(e->nsteps + 1, sizeof(double));
    if (e->overlap) {
        e->setup_free = calloc(nodes + 1, sizeof(double));
        e->rsetup_free = calloc(nodes + 1, sizeof(double));
        if (!e->setup_free || !e->rsetup_free)
            return IC_ERR_NO_MEM;
    }
    if (!e->sendq || !e->recvq || !e->is_dirty || !e->route || !e->ready_at)
        return IC_ERR_NO_MEM;
    if (e->nlinks) {
        e->load = calloc((size_t)e->nlinks, sizeof(uint32_t));
        if (!e->load)
            return IC_ERR_NO_MEM;
        if ((e->flows || e->circuits) &&
            !(e->link_flows = calloc((size_t)e->nlinks, sizeof(u32vec_t))))
            return IC_ERR_NO_MEM;
        if (e->circuits && !(e->held = calloc((size_t)e->nlinks, 1)))
            return IC_ERR_NO_MEM;
    }
    if (e->ct) {
        e->ct->max_link = -1;
        if (e->ct->picture_step != SIZE_MAX && e->nlinks &&
            !(e->ct->link_load = calloc((size_t)e->nlinks, sizeof(uint32_t))))
            return IC_ERR_NO_MEM;
        e->ct->nlinks = e->nlinks;
    }
    return IC_OK;
}

ic_status_t ic_sim_engine_run(engine_t *e)
{
    if (set_up(e) != IC_OK)
        return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    for (size_t k = 0; k < e->nfirst; k++) {
        size_t g = (size_t)e->first[k];
        if (make_ready(e, g, 0))
            return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    }
    double t = 0;
    for (;;) {
        if (start_messages(e, t))
            return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
        if (e->nheap == 0)
            break;
        t = e->heap[0].t;
        while (e->nheap > 0 && e->heap[0].t == t && ++e->events)
            if (handle(e, heap_pop(e)))
                return ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    }
    if (e->ct && e->ct->link_load && e->ct->nsteps <= e->ct->picture_step) {
        free(e->ct->link_load); /* no such step */
        e->ct->link_load = NULL;
    }
    if (e->done_steps != e->nsteps) {
        for (long l = 0; e->circuits && l < e->nlinks; l++)
            if (e->link_flows[l].n) {
                char name[128];
                ic_net_link_name(e->net, l, name, sizeof name);
                return ic_set_error(IC_ERR_INTERNAL,
                                    "ic_sim_run: deadlock: circuits wait for each other's "
                                    "links in a cycle (one waits for %s); circuit switching "
                                    "with wrap-around routes can deadlock", name);
            }
        for (size_t g = 0; g < e->nsteps; g++) {
            const gstep_t *x = &e->g[g];
            if (x->remaining || (x->kind != IC_STEP_SEND && x->kind != IC_STEP_RECV))
                continue;
            const inst_t *in = &e->in[x->inst];
            return ic_set_error(IC_ERR_INTERNAL,
                                "ic_sim_run: deadlock: job %d rank %d step %zu (%s with %d) "
                                "never ran", in->job, in->crank, ic_sim_local(e, g),
                                ic_step_kind_name((ic_step_kind_t)x->kind),
                                e->in[e->g[e->match[g]].inst].crank);
        }
        return ic_set_error(IC_ERR_INTERNAL, "ic_sim_run: deadlock: %zu of %zu steps ran",
                            e->done_steps, e->nsteps);
    }
    e->res->steps = e->done_steps;
    return IC_OK;
}

void ic_sim_engine_run_free(engine_t *e)
{
    size_t nodes = 0;
    for (size_t i = 0; i < e->ninst; i++)
        if ((size_t)e->in[i].node + 1 > nodes)
            nodes = (size_t)e->in[i].node + 1;
    for (size_t i = 0; e->sendq && i <= nodes; i++)
        free(e->sendq[i].v);
    for (size_t i = 0; e->recvq && i <= nodes; i++)
        free(e->recvq[i].v);
    free(e->sendq);
    free(e->recvq);
    free(e->fresh.v);
    free(e->dirty.v);
    free(e->collect.v);
    free(e->held);
    free(e->is_dirty);
    free(e->route);
    free(e->setup_free);
    free(e->rsetup_free);
    free(e->load);
    for (long l = 0; e->link_flows && l < e->nlinks; l++)
        free(e->link_flows[l].v);
    free(e->link_flows);
    ic_sim_links_free(e);
    free(e->heap);
}
