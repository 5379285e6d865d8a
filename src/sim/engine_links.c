/*
 * engine_links.c — messages that use links while they last: flows
 * (wormhole and store-and-forward with contention) and circuits (circuit
 * switching).  engine_run.c starts them; they complete both steps of the
 * message when they end.
 *
 * Flow: start-up alpha + h*hop, then its bytes at c seconds per byte,
 * c = max(beta, beta_net * M), M the most messages on a link of its path.
 * When a message starts or ends, every flow on one of its links gets its
 * bytes brought up to date and its c recomputed; its end event is pushed
 * again with a new version, and the old one is dropped when it fires.
 *
 * Circuit ([BR90]): set-up takes the links of the path one after the
 * other, hop seconds apart; a link another circuit holds is waited for,
 * first come first served, while the links already taken stay held.  With
 * every link taken and alpha more, the bytes move at beta per byte (with
 * set-up overlap, once both ports are free of the previous message); the
 * links are released when the last byte is through.  Uncontended, that is
 * alpha + h*hop + n*beta.  Dimension-ordered routes make waiting
 * deadlock-free on meshes and hypercubes; on a torus wrap-around routes
 * can wait in a cycle, which the engine reports as a deadlock.
 */
#include "sim/engine_impl.h"

#include <string.h>

static void u32vec_remove(u32vec_t *v, uint32_t x)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i] == x) {
            v->v[i] = v->v[--v->n];
            return;
        }
}

/* A slot for a message on the path in e->route (h links); UINT32_MAX when
 * out of memory. */
static uint32_t slot_new(engine_t *e, size_t sg, int h, double bytes)
{
    uint32_t id;
    if (e->fl_free.n) {
        id = e->fl_free.v[--e->fl_free.n];
    } else {
        if (e->nfl == e->fl_cap) {
            uint32_t cap = e->fl_cap ? 2 * e->fl_cap : 64;
            flow_t *n = realloc(e->fl, cap * sizeof(*n));
            if (!n)
                return UINT32_MAX;
            memset(n + e->fl_cap, 0, (cap - e->fl_cap) * sizeof(*n));
            e->fl = n;
            e->fl_cap = cap;
        }
        id = e->nfl++;
    }
    flow_t *f = &e->fl[id];
    if ((uint32_t)h > f->path_cap) {
        uint32_t *p = realloc(f->path, (size_t)h * sizeof(*p));
        if (!p)
            return UINT32_MAX;
        f->path = p;
        f->path_cap = (uint32_t)h;
    }
    if (h)
        memcpy(f->path, e->route, (size_t)h * sizeof(uint32_t));
    f->hops = h;
    f->next = 0;
    f->sg = sg;
    f->left = bytes;
    return id;
}

/* ---- link loads under flows ------------------------------------------------ */

/* Every flow knows the most messages on a link of its path and on how many
 * of its links that many are (most, nmost), kept up to date as loads
 * change, so pricing a flow costs O(1), not a walk along its path: a
 * start or end that touches h links carrying L flows each then costs
 * O(h L), not O(h^2 L). */
static void flow_scan_most(engine_t *e, flow_t *f)
{
    f->most = 0;
    f->nmost = 0;
    for (int k = 0; k < f->hops; k++) {
        uint32_t v = e->load[f->path[k]];
        if (v > f->most) {
            f->most = v;
            f->nmost = 1;
        } else if (v == f->most) {
            f->nmost++;
        }
    }
}

/* One more message on link l (the new one not yet among its flows). */
void ic_sim_load_up(engine_t *e, uint32_t l)
{
    uint32_t v = ++e->load[l];
    const u32vec_t *lf = &e->link_flows[l];
    for (size_t i = 0; i < lf->n; i++) {
        flow_t *f = &e->fl[lf->v[i]];
        if (v > f->most) {
            f->most = v;
            f->nmost = 1;
        } else if (v == f->most) {
            f->nmost++;
        }
    }
}

/* One message fewer on link l (the leaving one no longer among its flows). */
static void load_down(engine_t *e, uint32_t l)
{
    uint32_t v = e->load[l]--;
    const u32vec_t *lf = &e->link_flows[l];
    for (size_t i = 0; i < lf->n; i++) {
        flow_t *f = &e->fl[lf->v[i]];
        if (v == f->most && --f->nmost == 0)
            flow_scan_most(e, f);
    }
}

/* The message of slot id is through at t: loads down, slot free, both
 * steps complete. */
static int slot_end(engine_t *e, uint32_t id, double t)
{
    flow_t *f = &e->fl[id];
    size_t sg = f->sg, rg = e->match[sg];
    for (int k = 0; k < f->hops; k++)
        if (e->flows)
            load_down(e, f->path[k]);
        else
            e->load[f->path[k]]--;
    int err = u32vec_push(&e->fl_free, id);
    err |= ic_sim_complete(e, sg, t);
    return err | ic_sim_complete(e, rg, t);
}

/* ---- flows ---------------------------------------------------------------- */

static double per_byte(const engine_t *e, const flow_t *f)
{
    if (f->hops == 0)
        return e->m->beta; /* two ranks on one node */
    uint32_t most = f->most > 1 ? f->most : 1;
    double bn = e->net->beta_net > 0 ? e->net->beta_net : e->m->beta;
    double c = bn * most;
    return c > e->m->beta ? c : e->m->beta;
}

/* Brings flow id's bytes up to time t and gives it its current per-byte
 * time, moving its end event when that changed. */
static int reprice(engine_t *e, uint32_t id, double t)
{
    flow_t *f = &e->fl[id];
    if (t > f->t_last) {
        f->left -= (t - f->t_last) / f->c;
        if (f->left < 0)
            f->left = 0;
        f->t_last = t;
    }
    double c = per_byte(e, f);
    if (c == f->c)
        return 0;
    f->c = c;
    f->ver++;
    double from = t > f->lat_end ? t : f->lat_end;
    return ic_sim_push(e, from + f->left * c, EV_FLOW, id, f->ver);
}

/* Reprices every flow on the links of path except skip. */
static int reprice_path(engine_t *e, const uint32_t *path, int h, uint32_t skip, double t)
{
    int err = 0;
    for (int k = 0; k < h; k++) {
        const u32vec_t *lf = &e->link_flows[path[k]];
        for (size_t i = 0; i < lf->n; i++)
            if (lf->v[i] != skip)
                err |= reprice(e, lf->v[i], t);
    }
    return err;
}

int ic_sim_flow_start(engine_t *e, size_t sg, double t, int h, double bytes, size_t sport,
                      size_t rport)
{
    uint32_t id = slot_new(e, sg, h, bytes);
    if (id == UINT32_MAX)
        return -1;
    flow_t *f = &e->fl[id];
    f->sport = sport;
    f->rport = rport;
    f->lat_end = t + (e->m->alpha + h * e->net->hop);
    f->t_last = f->lat_end;
    int err = 0;
    for (int k = 0; k < h; k++)
        err |= u32vec_push(&e->link_flows[f->path[k]], id);
    flow_scan_most(e, f);
    f->c = per_byte(e, f);
    f->ver++;
    err |= ic_sim_push(e, f->lat_end + f->left * f->c, EV_FLOW, id, f->ver);
    return err | reprice_path(e, f->path, h, id, t);
}

int ic_sim_flow_end(engine_t *e, uint32_t id, double t)
{
    flow_t *f = &e->fl[id];
    f->ver++; /* no stale event of it may fire */
    for (int k = 0; k < f->hops; k++)
        u32vec_remove(&e->link_flows[f->path[k]], id);
    /* Its ports were held open-ended: free now. */
    e->send_free[f->sport] = t;
    e->recv_free[f->rport] = t;
    int err = slot_end(e, id, t); /* loads down first */
    return err | reprice_path(e, f->path, f->hops, UINT32_MAX, t);
}

/* ---- circuits ------------------------------------------------------------- */

/* Circuit id asks at t for link number f->next of its path. */
static int circuit_request(engine_t *e, uint32_t id, double t)
{
    flow_t *f = &e->fl[id];
    if (f->next == f->hops)
        return ic_sim_push(e, t + e->m->alpha, EV_CIRC_GO, id, 0);
    uint32_t l = f->path[f->next];
    if (e->held[l])
        return u32vec_push(&e->link_flows[l], id); /* waits in line */
    e->held[l] = 1;
    f->next++;
    return ic_sim_push(e, t + e->net->hop, EV_CIRC_REQ, id, 0);
}

int ic_sim_circuit_start(engine_t *e, size_t sg, double t, int h, double bytes, size_t sport,
                         size_t rport)
{
    uint32_t id = slot_new(e, sg, h, bytes);
    if (id == UINT32_MAX)
        return -1;
    e->fl[id].sport = sport;
    e->fl[id].rport = rport;
    return circuit_request(e, id, t);
}

/* Set up at t: the bytes move from when the ports are free. */
static int circuit_go(engine_t *e, uint32_t id, double t)
{
    flow_t *f = &e->fl[id];
    int sn = e->in[e->g[f->sg].inst].node, rn = e->in[e->g[e->match[f->sg]].inst].node;
    double go = t;
    int err = 0;
    if (e->overlap) {
        go = go > e->send_free[sn] ? go : e->send_free[sn];
        go = go > e->recv_free[rn] ? go : e->recv_free[rn];
        e->setup_free[sn] = go; /* the next set-up may begin then */
        e->rsetup_free[rn] = go;
        err |= ic_sim_push(e, go, EV_WAKE, (size_t)sn, 0);
        err |= ic_sim_push(e, go, EV_WAKE, (size_t)rn, 0);
    }
    double end = go + f->left * e->m->beta;
    e->send_free[f->sport] = end;
    e->recv_free[f->rport] = end;
    return err | ic_sim_push(e, end, EV_CIRC_END, id, 0);
}

/* Through at t: every link goes to the first circuit waiting for it. */
static int circuit_end(engine_t *e, uint32_t id, double t)
{
    flow_t *f = &e->fl[id];
    int err = 0;
    for (int k = 0; k < f->hops; k++) {
        uint32_t l = f->path[k];
        u32vec_t *w = &e->link_flows[l];
        e->held[l] = 0;
        if (w->n == 0)
            continue;
        uint32_t next = w->v[0];
        memmove(w->v, w->v + 1, (size_t)(w->n - 1) * sizeof(uint32_t));
        w->n--;
        e->held[l] = 1;
        e->fl[next].next++;
        err |= ic_sim_push(e, t + e->net->hop, EV_CIRC_REQ, next, 0);
    }
    return err | slot_end(e, id, t);
}

int ic_sim_circuit_event(engine_t *e, event_t ev)
{
    uint32_t id = (uint32_t)ev.id;
    switch (ev.kind) {
    case EV_CIRC_REQ:
        return circuit_request(e, id, ev.t);
    case EV_CIRC_GO:
        return circuit_go(e, id, ev.t);
    default:
        return circuit_end(e, id, ev.t);
    }
}

void ic_sim_links_free(engine_t *e)
{
    for (uint32_t i = 0; i < e->nfl; i++)
        free(e->fl[i].path);
    free(e->fl);
    free(e->fl_free.v);
}
