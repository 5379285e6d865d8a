/*
 * cost_hosts.c — costs and descriptions of the leaders' entries over hosts
 * (algo/hosts.c has the formulas): the parts inside a host priced with
 * the host level of the model, the parts between leaders with the network
 * level, each tree as deep as its largest member count.
 */
#include "algo/hosts.h"
#include "base/dtype.h"
#include "select/catalog.h"
#include "select/cost.h"

#include <stdio.h>

static size_t bytes_of(const ic_coll_args_t *a)
{
    return a->count * ic_datatype_size(a->dtype);
}

double ic_cost_bcast_hosts(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    int k, h = ic_hosts_count(a, p, &k);
    ic_model_t net = ic_hosts_level(m, 0), in = ic_hosts_level(m, 1);
    return ic_cost_mst_bcast(h, bytes_of(a), &net) + ic_cost_mst_bcast(k, bytes_of(a), &in);
}

double ic_cost_reduce_hosts(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    int k, h = ic_hosts_count(a, p, &k);
    ic_model_t net = ic_hosts_level(m, 0), in = ic_hosts_level(m, 1);
    return ic_cost_mst_reduce(k, 0, bytes_of(a), &in) +
           ic_cost_mst_reduce(h, 0, bytes_of(a), &net);
}

/* The leaders' allreduce: the cheaper of MST reduce + bcast and ring
 * reduce-scatter + allgather (the builder's choice, the same formula). */
static double leaders_allreduce(int h, size_t n, const ic_model_t *net)
{
    if (h <= 1)
        return 0;
    if (ic_hosts_leaders_ring(h, n, net)) {
        double piece = (double)n / h;
        return (h - 1) * (2 * net->alpha + piece * (2 * net->beta + net->gamma));
    }
    return ic_cost_mst_reduce(h, 0, n, net) + ic_cost_mst_bcast(h, n, net);
}

double ic_cost_allreduce_hosts(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    int k, h = ic_hosts_count(a, p, &k);
    ic_model_t net = ic_hosts_level(m, 0), in = ic_hosts_level(m, 1);
    size_t n = bytes_of(a);
    return ic_cost_mst_reduce(k, 0, n, &in) + leaders_allreduce(h, n, &net) +
           ic_cost_mst_bcast(k, n, &in);
}

void ic_describe_hosts(const ic_coll_args_t *a, int p, const ic_model_t *m, char *buf,
                       size_t len)
{
    int k, h = ic_hosts_count(a, p, &k);
    ic_model_t net = ic_hosts_level(m, 0);
    const char *lead = a->coll != IC_COLL_ALLREDUCE        ? "MST"
                       : ic_hosts_leaders_ring(h, bytes_of(a), &net) ? "ring RS+AG"
                                                                    : "MST reduce+bcast";
    snprintf(buf, len, "%d hosts (up to %d ranks): inside MST, leaders %s", h, k, lead);
}
