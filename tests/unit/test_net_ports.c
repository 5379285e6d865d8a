/*
 * test_net_ports.c — k-port nodes in the simulator (ic_net_t.ports): a node
 * sends at most k messages and receives at most k at once, a further one
 * waiting for a free port.  On small hand-computed examples (alpha 1,
 * beta 0.01, so 100 bytes take 2 and 200 bytes 3 time units):
 *   fan-out  rank 0 sends 100, 100, 200, 200 bytes to ranks 1, 2, 4, 8 at
 *            once (fully connected, and its neighbours on the 4-cube):
 *            one-port 2+2+3+3 = 10; 2-port: the first two 0..2, the next
 *            two 2..5, so 5; all-port 3;
 *   fan-in   ranks 1, 2, 4, 8 send the same to rank 0: the same times (receive
 *            ports);
 *   mixed    a 2-port node 0 fans out to 1..3 while 4 and 5 send to 1:
 *            node 1's two receive ports are taken by the earlier-ready,
 *            lower-ranked senders.
 * ports 1 is one-port to the last digit, IC_PORTS_ALL-like behaviour comes
 * from all_port, and a real collective (the edst broadcast on the 4-cube,
 * whose messages never share a link) takes one-port > 2-port > all-port
 * time.  Also: the check
 * rejects negative ports, and the description names "2-port".
 */
#include "check.h"
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ic_model_t M = {.alpha = 1.0, .beta = 0.01};

/* Plans of p ranks: message i goes from[i] -> to[i] with bytes[i], all
 * posted at once, in the order given (each receive into its own bytes, so
 * the plan orders none of them). */
static ic_plan_t *plans(int p, int n, const int *from, const int *to, const size_t *bytes)
{
    ic_plan_t *pl = calloc((size_t)p, sizeof(*pl));
    for (int r = 0; r < p; r++) {
        ic_plan_init(&pl[r], r, p, IC_COLL_ALLTOALL);
        pl[r].algo = "ports";
        for (int i = 0; i < n; i++) {
            if (from[i] == r)
                ic_plan_send(&pl[r], to[i], (uint32_t)i, ic_loc(IC_BUF_SEND, 0), bytes[i]);
            if (to[i] == r)
                ic_plan_recv(&pl[r], from[i], (uint32_t)i, ic_loc(IC_BUF_RECV, 256 * (size_t)i),
                             bytes[i]);
        }
        ic_plan_finish(&pl[r]);
    }
    return pl;
}

static double run(int p, ic_net_t net, int n, const int *from, const int *to, const size_t *bytes,
                  double *node_time)
{
    ic_plan_t *pl = plans(p, n, from, to, bytes);
    ic_sim_job_t job = {0};
    job.size = p;
    job.plans = pl;
    ic_sim_result_t res = {0};
    res.node_time = node_time;
    ic_status_t st = ic_sim_run_net(p, &M, &net, &job, 1, false, &res);
    CHECK(st == IC_OK, "run: %s", ic_last_error());
    for (int r = 0; r < p; r++)
        ic_plan_release(&pl[r]);
    free(pl);
    return st == IC_OK ? res.time : -1;
}

static ic_net_t with_ports(ic_net_t n, int ports, bool all)
{
    n.ports = ports;
    n.all_port = all;
    return n;
}

static void near(double got, double want, const char *what)
{
    CHECK(fabs(got - want) < 1e-12, "%s: %.17g, want %.17g", what, got, want);
}

static void test_fan(void)
{
    const size_t b[] = {100, 100, 200, 200};
    /* The neighbours of 0 on the 4-cube: no two messages share a link. */
    const int zero[] = {0, 0, 0, 0}, others[] = {1, 2, 4, 8};
    ic_net_t nets[] = {ic_net_full(), ic_net_hypercube(4)};
    for (int k = 0; k < 2; k++) {
        ic_net_t n = nets[k];
        double out1 = run(16, with_ports(n, 0, false), 4, zero, others, b, NULL);
        double out1b = run(16, with_ports(n, 1, false), 4, zero, others, b, NULL);
        double out2 = run(16, with_ports(n, 2, false), 4, zero, others, b, NULL);
        double outa = run(16, with_ports(n, 0, true), 4, zero, others, b, NULL);
        near(out1, 10, "fan-out one-port");
        CHECK(out1b == out1, "fan-out: ports 1 %.17g, one-port %.17g", out1b, out1);
        near(out2, 5, "fan-out 2-port");
        near(outa, 3, "fan-out all-port");
        near(run(16, with_ports(n, 4, false), 4, zero, others, b, NULL), 3, "fan-out 4-port");
        near(run(16, with_ports(n, 0, false), 4, others, zero, b, NULL), 10, "fan-in one-port");
        near(run(16, with_ports(n, 2, false), 4, others, zero, b, NULL), 5, "fan-in 2-port");
        near(run(16, with_ports(n, 0, true), 4, others, zero, b, NULL), 3, "fan-in all-port");
    }
}

/* Node 0 sends 100 B to 1, 2, 3; nodes 4 and 5 send 100 B to 1; all at
 * time 0.  2-port: candidates in (ready, sender) order: 0->1 and 0->2 take
 * node 0's ports (0..2); 0->3 waits; 4->1 takes node 1's second receive
 * port (0..2); 5->1 waits.  At 2: 0->3 and 5->1 (2..4).  One-port: 0->1
 * (0..2); 4->1, 5->1 wait for node 1, 0->2, 0->3 for node 0; at 2: 0->2
 * and 4->1; at 4: 0->3 and 5->1; done at 6. */
static void test_mixed(void)
{
    const int from[] = {0, 0, 0, 4, 5}, to[] = {1, 2, 3, 1, 1};
    const size_t b[] = {100, 100, 100, 100, 100};
    double nt[16];
    ic_net_t n = ic_net_full();
    near(run(16, with_ports(n, 2, false), 5, from, to, b, nt), 4, "mixed 2-port");
    near(nt[4], 2, "mixed 2-port: node 4");
    near(nt[5], 4, "mixed 2-port: node 5");
    near(nt[2], 2, "mixed 2-port: node 2");
    near(run(16, with_ports(n, 1, false), 5, from, to, b, nt), 6, "mixed one-port");
    near(run(16, with_ports(n, 0, true), 5, from, to, b, nt), 2, "mixed all-port");
}

/* A real collective whose messages never share a link (more ports could
 * otherwise mean more sharing): one-port > 2-port > all-port, ports 1 =
 * one-port. */
static void test_collective(void)
{
    int d = 4, p = 1 << d;
    double t[4];
    for (int c = 0; c < 4; c++) {
        ic_net_t n = ic_net_hypercube(d);
        n.ports = c == 1 ? 1 : c == 2 ? 2 : 0;
        n.all_port = c == 3;
        ic_coll_args_t *a = calloc((size_t)p, sizeof *a);
        for (int i = 0; i < p; i++) {
            a[i].coll = IC_COLL_BCAST;
            a[i].dtype = IC_UINT8;
            a[i].count = 4096;
            a[i].model = M;
        }
        ic_sim_job_t job = {0};
        job.size = p;
        job.args = a;
        job.algo = "edst";
        ic_sim_result_t res = {0};
        ic_status_t st = ic_sim_run_net(p, &M, &n, &job, 1, false, &res);
        CHECK(st == IC_OK, "collective: %s", ic_last_error());
        t[c] = res.time;
        free(a);
    }
    CHECK(t[0] == t[1], "ports 1 %.17g != one-port %.17g", t[1], t[0]);
    CHECK(t[0] > t[2] && t[2] > t[3], "one %g, 2-port %g, all %g", t[0], t[2], t[3]);
}

static void test_check_describe(void)
{
    ic_net_t n = ic_net_hypercube(2);
    n.ports = -1;
    CHECK(ic_net_check(&n, 4) == IC_ERR_ARG && strstr(ic_last_error(), "ports"),
          "negative ports: %s", ic_last_error());
    n.ports = 2;
    char buf[256];
    ic_net_describe(&n, buf, sizeof buf);
    CHECK(strstr(buf, "2-port") != NULL, "describe: %s", buf);
    n.ports = 1;
    ic_net_describe(&n, buf, sizeof buf);
    CHECK(strstr(buf, "one-port") != NULL, "describe: %s", buf);
}

int main(void)
{
    test_fan();
    test_mixed();
    test_collective();
    test_check_describe();
    printf("test_net_ports: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
