/*
 * engine.c — the in-process discrete-event engine (see engine.h): its
 * entry points and its stages, which are
 *   engine_build.c  every rank's plan built and made compact (threads);
 *   engine_graph.c  global step ids, messages matched, successor lists;
 *   engine_run.c    the event loop: at each moment every step ending then
 *                   completes (making its successors ready), then every
 *                   message that can start starts;
 *   engine_links.c  messages on the links of a physical network.
 */
#include "sim/engine_impl.h"

#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* The process's peak resident memory so far, in MB (IC_SIM_PROFILE). */
static long peak_rss_mb(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss / 1024;
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
    ic_sim_numbering_free(&e->nb);
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
    e.all_port = net && net->all_port;
    e.kports = net && !net->all_port && net->ports > 1 ? net->ports : 1;
    e.overlap = e.circuits && net->setup_overlap && !net->all_port && e.kports == 1;
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
    e.send_free = calloc(((size_t)world_size + 1) * (size_t)e.kports, sizeof(double));
    e.recv_free = calloc(((size_t)world_size + 1) * (size_t)e.kports, sizeof(double));
    e.compute_free = calloc((size_t)world_size + 1, sizeof(double));
    if (!e.send_free || !e.recv_free || !e.compute_free)
        st = ic_set_error(IC_ERR_NO_MEM, "ic_sim_run: out of memory");
    double t0 = now_s(), t1 = t0, t2 = t0;
    long rss1 = 0, rss2 = 0;
    if (st == IC_OK)
        st = ic_sim_build_all(&e, world_size, jobs, njobs);
    t1 = now_s();
    rss1 = peak_rss_mb();
    if (st == IC_OK)
        st = ic_sim_link(&e);
    t2 = now_s();
    rss2 = peak_rss_mb();
    if (st == IC_OK)
        st = ic_sim_engine_run(&e);
    const char *prof = getenv("IC_SIM_PROFILE");
    if (prof && strcmp(prof, "0") != 0) { /* where a long simulation's time goes */
        double run = now_s() - t2;
        fprintf(stderr, "ic_sim_run: %zu steps, %zu messages, %zu events: build %.3f s, link "
                "%.3f s, run %.3f s (%.3g events/s); peak memory after them %ld, %ld, %ld MB\n",
                e.nsteps, res->msgs, e.events, t1 - t0, t2 - t1, run,
                run > 0 ? (double)e.events / run : 0.0, rss1, rss2, peak_rss_mb());
    }
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
