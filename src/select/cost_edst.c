/*
 * cost_edst.c — the cost of the broadcast on d edge-disjoint spanning
 * binomial trees (algo/edst_bcast.c) under the model's port count.
 *
 * All-port: every message crosses its own link and no node waits for a
 * port, so member x holds segment j after depth_j(x) messages of that
 * segment: (d + 1)(alpha + n_s*beta) for d >= 2 (n_s the longest
 * segment's bytes), alpha + n*beta for d = 1.
 *
 * One-port and k-port: a node sends at most k messages and receives at
 * most k at once, and the trees compete for the ports.  The plans leave
 * the order to the machine, so the cost schedules the plans' messages the
 * way the simulator does (sim/engine_run.c): at each moment, of the
 * messages whose sender holds the segment and whose two nodes have a free
 * port, the earliest ready first, then the lower sending rank, then the
 * earlier step of the sender's plan.  That is exact for the simulator and
 * costs O(M log M) for M = d(p - 1) messages; above 2^EXACT_MAX_D members
 * (d + 1 + ceil(d/k))(alpha + n_s*beta) is used instead, an estimate that
 * the schedule meets within one message time on the 10- to 12-cubes
 * (one-port: 2d + 1 message times, exactly).
 */
#include "select/cost.h"

#include "algo/blocks.h"
#include "algo/builders.h"

#include <math.h>
#include <stdlib.h>

enum { EXACT_MAX_D = 12 };

typedef struct msg {
    unsigned from, to; /* relative addresses */
    int tree, order;   /* order: the SEND's place in the sender's plan */
    double ready;      /* its sender holds the segment (HUGE_VAL: not yet) */
    int started;
} msg_t;

typedef struct sched {
    int d, k;
    unsigned root;
    msg_t *msg;
    size_t nmsg;
    size_t *out_first; /* node x's messages: msg[out_first[x] .. out_first[x + 1]) */
    int *sbusy, *rbusy;
    double alpha;
    const double *seg_bb; /* per tree: its segment's bytes*beta (< 0: empty) */
    double *ends;         /* heap of (end time, message) */
    size_t *end_id, nends;
    size_t *cand, ncand;
} sched_t;

static void heap_push(sched_t *s, double t, size_t id)
{
    size_t i = s->nends++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (s->ends[up] <= t)
            break;
        s->ends[i] = s->ends[up];
        s->end_id[i] = s->end_id[up];
        i = up;
    }
    s->ends[i] = t;
    s->end_id[i] = id;
}

static size_t heap_pop(sched_t *s)
{
    size_t top = s->end_id[0], n = --s->nends, i = 0;
    double t = s->ends[n];
    size_t id = s->end_id[n];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && s->ends[c + 1] < s->ends[c])
            c++;
        if (s->ends[c] >= t)
            break;
        s->ends[i] = s->ends[c];
        s->end_id[i] = s->end_id[c];
        i = c;
    }
    if (n > 0) {
        s->ends[i] = t;
        s->end_id[i] = id;
    }
    return top;
}

/* qsort has no context argument in C11; one per thread, since selectors
 * and simulator workers price in parallel. */
static _Thread_local const sched_t *sort_s;

static int cand_cmp(const void *pa, const void *pb)
{
    const msg_t *a = &sort_s->msg[*(const size_t *)pa], *b = &sort_s->msg[*(const size_t *)pb];
    if (a->ready != b->ready)
        return a->ready < b->ready ? -1 : 1;
    unsigned ra = a->from ^ sort_s->root, rb = b->from ^ sort_s->root;
    if (ra != rb)
        return ra < rb ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

/* Starts every message that can at t; the candidates are the ready ones
 * (kept in s->cand until started). */
static void start_at(sched_t *s, double t)
{
    sort_s = s;
    qsort(s->cand, s->ncand, sizeof(size_t), cand_cmp);
    size_t keep = 0;
    for (size_t i = 0; i < s->ncand; i++) {
        msg_t *m = &s->msg[s->cand[i]];
        if (s->sbusy[m->from] < s->k && s->rbusy[m->to] < s->k) {
            s->sbusy[m->from]++;
            s->rbusy[m->to]++;
            m->started = 1;
            /* The simulator's sum, (t + alpha) + bytes*beta, to the bit:
             * equal times must tie here as they do there. */
            heap_push(s, t + s->alpha + s->seg_bb[m->tree], s->cand[i]);
        } else {
            s->cand[keep++] = s->cand[i];
        }
    }
    s->ncand = keep;
}

/* The schedule's makespan; -1 when out of memory. */
static double schedule(sched_t *s)
{
    int d = s->d;
    unsigned p = 1u << d, kids[32];
    for (unsigned x = 0; x < p; x++) {
        s->out_first[x] = s->nmsg;
        int order = 0;
        for (int j = 0; j < d; j++) {
            if (s->seg_bb[j] < 0)
                continue;
            order += x != 0; /* its RECV */
            int k = ic_edst_children(d, j, x, kids);
            for (int i = 0; i < k; i++)
                s->msg[s->nmsg++] = (msg_t){x, kids[i], j, order++, x ? HUGE_VAL : 0, 0};
        }
    }
    s->out_first[p] = s->nmsg;
    for (size_t i = s->out_first[0]; i < s->out_first[1]; i++)
        s->cand[s->ncand++] = i;
    double t = 0, last = 0;
    start_at(s, t);
    while (s->nends > 0) {
        t = s->ends[0];
        while (s->nends > 0 && s->ends[0] == t) {
            msg_t *m = &s->msg[heap_pop(s)];
            s->sbusy[m->from]--;
            s->rbusy[m->to]--;
            last = t;
            for (size_t i = s->out_first[m->to]; i < s->out_first[m->to + 1]; i++)
                if (s->msg[i].tree == m->tree) {
                    s->msg[i].ready = t;
                    s->cand[s->ncand++] = i;
                }
        }
        start_at(s, t);
    }
    return last;
}

static double exact(int d, int k, unsigned root, double alpha, const double *seg_bb)
{
    size_t p = (size_t)1 << d, nm = (size_t)d * p;
    sched_t s = {.d = d, .k = k, .root = root, .alpha = alpha, .seg_bb = seg_bb};
    s.msg = malloc(nm * sizeof *s.msg);
    s.out_first = malloc((p + 1) * sizeof *s.out_first);
    s.sbusy = calloc(p, sizeof *s.sbusy);
    s.rbusy = calloc(p, sizeof *s.rbusy);
    s.ends = malloc(nm * sizeof *s.ends);
    s.end_id = malloc(nm * sizeof *s.end_id);
    s.cand = malloc(nm * sizeof *s.cand);
    double t = HUGE_VAL;
    if (s.msg && s.out_first && s.sbusy && s.rbusy && s.ends && s.end_id && s.cand)
        t = schedule(&s);
    free(s.cand);
    free(s.end_id);
    free(s.ends);
    free(s.rbusy);
    free(s.sbusy);
    free(s.out_first);
    free(s.msg);
    return t;
}

double ic_cost_bcast_edst(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    if (p <= 1 || a->count == 0)
        return 0;
    int d = ic_ceil_log2(p);
    size_t es = ic_args_esize(a);
    if (d == 1) /* one tree, one message: the MST broadcast's sum, to the bit */
        return ic_cost_mst_bcast(p, a->count * es, m);
    /* The d trees keep every member copying at once (ic_model_crowd). */
    ic_model_t crowd = ic_model_crowd(m, p);
    m = &crowd;
    double seg_bb[32], longest = 0;
    for (int j = 0; j < d; j++) {
        size_t len = a->count / (size_t)d + ((size_t)j < a->count % (size_t)d);
        double sb = (double)(len * es);
        /* The transport's extra rides on the per-byte part (0 in the
         * papers' model). */
        seg_bb[j] = len ? sb * m->beta + ic_msg_extra(m, sb) : -1;
        longest = seg_bb[j] > longest ? seg_bb[j] : longest;
    }
    double all_port = (d == 1 ? 1 : d + 1) * (m->alpha + longest);
    if (m->ports == IC_PORTS_ALL)
        return all_port;
    int k = m->ports > 1 ? m->ports : 1;
    if (d <= EXACT_MAX_D)
        return exact(d, k, (unsigned)a->root, m->alpha, seg_bb);
    return (double)(d + 1 + (d + k - 1) / k) * (m->alpha + longest);
}
