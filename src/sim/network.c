/*
 * network.c — physical networks: construction, checks, dimension-ordered
 * routes and link names (see network.h).
 */
#include "sim/network.h"

#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ic_net_t net_default(void)
{
    ic_net_t n;
    memset(&n, 0, sizeof(n));
    n.switching = IC_SWITCH_WORMHOLE;
    n.contention = true;
    return n;
}

ic_net_t ic_net_full(void) { return net_default(); }

static ic_net_t net_dims(ic_net_kind_t kind, int ndims, const int *dims)
{
    ic_net_t n = net_default();
    n.kind = kind;
    n.ndims = ndims < 0 ? 0 : ndims > IC_NET_MAX_DIMS ? IC_NET_MAX_DIMS : ndims;
    for (int k = 0; k < n.ndims; k++)
        n.dims[k] = dims[k];
    return n;
}

ic_net_t ic_net_mesh(int ndims, const int *dims) { return net_dims(IC_NET_MESH, ndims, dims); }
ic_net_t ic_net_torus(int ndims, const int *dims) { return net_dims(IC_NET_TORUS, ndims, dims); }

ic_net_t ic_net_hypercube(int d)
{
    int twos[IC_NET_MAX_DIMS];
    for (int k = 0; k < IC_NET_MAX_DIMS; k++)
        twos[k] = 2;
    return net_dims(IC_NET_HYPERCUBE, d, twos);
}

ic_status_t ic_net_parse(const char *spec, ic_net_t *net)
{
    if (!spec)
        return ic_set_error(IC_ERR_ARG, "ic_net_parse: spec is NULL");
    if (!strcmp(spec, "full")) {
        *net = ic_net_full();
        return IC_OK;
    }
    ic_phys_t ph;
    ic_status_t st = (ic_status_t)ic_phys_parse("ic_net_parse", spec, &ph);
    if (st != IC_OK)
        return st;
    switch (ph.kind) {
    case IC_PHYS_MESH:
        *net = ic_net_mesh(ph.ndims, ph.dims);
        break;
    case IC_PHYS_HYPERCUBE:
        *net = ic_net_hypercube(ph.ndims);
        break;
    default:
        *net = ic_net_torus(ph.ndims, ph.dims);
        net->unidirectional = ph.kind == IC_PHYS_TORUS_UNI;
    }
    return IC_OK;
}

long ic_net_nodes(const ic_net_t *net, int world_size)
{
    if (!net || net->kind == IC_NET_FULL)
        return net && net->full_nodes > 0 ? net->full_nodes : world_size;
    long n = 1;
    for (int k = 0; k < net->ndims; k++)
        n *= net->dims[k];
    return n;
}

long ic_net_links(const ic_net_t *net, int world_size)
{
    if (!net || net->kind == IC_NET_FULL)
        return 0;
    int vcs = net->kind == IC_NET_TORUS && net->dateline ? 2 : 1;
    return ic_net_nodes(net, world_size) * 2 * vcs * net->ndims;
}

ic_status_t ic_net_check(const ic_net_t *net, int world_size)
{
    if (!net)
        return IC_OK;
    if ((unsigned)net->kind > IC_NET_HYPERCUBE)
        return ic_set_error(IC_ERR_ARG, "ic_sim_run_net: net->kind %d is not a network kind",
                            (int)net->kind);
    if ((unsigned)net->switching > IC_SWITCH_STORE_FORWARD)
        return ic_set_error(IC_ERR_ARG, "ic_sim_run_net: net->switching %d is not a switching "
                            "mode", (int)net->switching);
    if (net->ports < 0)
        return ic_set_error(IC_ERR_ARG, "ic_sim_run_net: net->ports = %d (want 0 or 1: "
                            "one-port, k > 1: k-port)", net->ports);
    if (!(net->beta_net >= 0) || !(net->hop >= 0))
        return ic_set_error(IC_ERR_ARG, "ic_sim_run_net: net->%s must be >= 0",
                            net->beta_net >= 0 ? "hop" : "beta_net");
    if (net->kind != IC_NET_FULL) {
        if (net->ndims < 1 || net->ndims > IC_NET_MAX_DIMS)
            return ic_set_error(IC_ERR_ARG, "ic_sim_run_net: net->ndims %d (want 1..%d)",
                                net->ndims, IC_NET_MAX_DIMS);
        long n = 1;
        for (int k = 0; k < net->ndims; k++) {
            if (net->dims[k] < 1 || (net->kind == IC_NET_HYPERCUBE && net->dims[k] != 2))
                return ic_set_error(IC_ERR_ARG, "ic_sim_run_net: net->dims[%d] = %d", k,
                                    net->dims[k]);
            n *= net->dims[k];
            if (n > (1L << 30))
                return ic_set_error(IC_ERR_ARG, "ic_sim_run_net: more than 2^30 nodes");
        }
    }
    long nodes = ic_net_nodes(net, world_size);
    if (!net->place && nodes < world_size)
        return ic_set_error(IC_ERR_ARG, "ic_sim_run_net: %d ranks on %ld nodes (give "
                            "net->place to put several ranks on one node)", world_size, nodes);
    for (int r = 0; net->place && r < world_size; r++)
        if (net->place[r] < 0 || net->place[r] >= nodes)
            return ic_set_error(IC_ERR_ARG, "ic_sim_run_net: net->place[%d] = %d is not a node "
                                "(0..%ld)", r, net->place[r], nodes - 1);
    return IC_OK;
}

int ic_net_max_hops(const ic_net_t *net)
{
    if (!net || net->kind == IC_NET_FULL)
        return 0;
    int h = 0;
    for (int k = 0; k < net->ndims; k++)
        h += net->kind == IC_NET_TORUS && !net->unidirectional ? net->dims[k] / 2
                                                                : net->dims[k] - 1;
    return h;
}

static long stride_of(const ic_net_t *net, int k)
{
    long s = 1;
    for (int j = net->ndims - 1; j > k; j--)
        s *= net->dims[j];
    return s;
}

int ic_net_route(const ic_net_t *net, int a, int b, uint32_t *links, int max)
{
    if (!net || net->kind == IC_NET_FULL || a == b)
        return 0;
    int d = net->ndims, h = 0;
    bool vcs = net->kind == IC_NET_TORUS && net->dateline;
    long cur = a;
    for (int k = 0; k < d; k++) {
        long st = stride_of(net, k);
        int m = net->dims[k];
        int ca = (int)((cur / st) % m), cb = (int)(((long)b / st) % m);
        if (ca == cb)
            continue;
        int dir = cb > ca ? 0 : 1, steps = cb > ca ? cb - ca : ca - cb;
        if (net->kind == IC_NET_TORUS && (m > 2 || net->unidirectional)) {
            int fwd = ((cb - ca) % m + m) % m, back = m - fwd;
            dir = fwd <= back || net->unidirectional ? 0 : 1;
            steps = dir == 0 ? fwd : back;
        }
        /* Dateline channels: "p" (1) until the wrap-around link is taken. */
        int vc = vcs && (dir == 0 ? ca + steps >= m : ca - steps < 0);
        for (int s = 0; s < steps; s++) {
            int c = (int)((cur / st) % m);
            if (h < max)
                links[h] = vcs ? (uint32_t)(cur * 4 * d + 4 * k + 2 * vc + dir)
                               : (uint32_t)(cur * 2 * d + 2 * k + dir);
            h++;
            int nc = dir == 0 ? (c + 1) % m : (c + m - 1) % m;
            if (dir == 0 ? nc == 0 : nc == m - 1)
                vc = 0;
            cur += (long)(nc - c) * st;
        }
    }
    return h;
}

void ic_net_link_ends(const ic_net_t *net, long link, int *from, int *to, int *dim, int *dir)
{
    int d = net->ndims > 0 ? net->ndims : 1;
    int per = net->kind == IC_NET_TORUS && net->dateline ? 4 : 2; /* ids per dimension */
    long node = link / (per * d);
    int k = (int)(link % (per * d)) / per, neg = (int)(link % 2);
    long st = stride_of(net, k);
    int m = net->dims[k], c = (int)((node / st) % m);
    int nc = neg ? (c + m - 1) % m : (c + 1) % m;
    *from = (int)node;
    *to = (int)(node + (long)(nc - c) * st);
    *dim = k;
    *dir = neg ? -1 : 1;
}

static int coords_str(const ic_net_t *net, int node, char *buf, size_t len)
{
    size_t o = 0;
    o += (size_t)snprintf(buf + o, len - o, "(");
    for (int k = 0; k < net->ndims && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%ld", k ? "," : "",
                              ((long)node / stride_of(net, k)) % net->dims[k]);
    if (o < len)
        o += (size_t)snprintf(buf + o, len - o, ")");
    return (int)o;
}

void ic_net_link_name(const ic_net_t *net, long link, char *buf, size_t len)
{
    if (!len)
        return;
    if (!net || net->kind == IC_NET_FULL || link < 0) {
        snprintf(buf, len, "-");
        return;
    }
    int from, to, dim, dir;
    ic_net_link_ends(net, link, &from, &to, &dim, &dir);
    char a[96], b[96];
    coords_str(net, from, a, sizeof a);
    coords_str(net, to, b, sizeof b);
    bool p = net->kind == IC_NET_TORUS && net->dateline && link % 4 >= 2;
    snprintf(buf, len, "%s->%s%s", a, b, p ? "[p]" : "");
}

void ic_net_describe(const ic_net_t *net, char *buf, size_t len)
{
    static const char *const kinds[] = {"full", "mesh", "torus", "hypercube"};
    static const char *const sw[] = {"wormhole", "circuit", "store-and-forward"};
    char kp[32];
    snprintf(kp, sizeof kp, "%d-port", net ? net->ports : 1);
    const char *port = !net || (!net->all_port && net->ports <= 1) ? "one-port"
                       : net->all_port                             ? "all-port"
                                                                   : kp;
    if (!net || net->kind == IC_NET_FULL) {
        snprintf(buf, len, "fully connected, %s", port);
        return;
    }
    char shape[128] = "";
    size_t o = 0;
    if (net->kind == IC_NET_HYPERCUBE)
        snprintf(shape, sizeof shape, " %d-D", net->ndims);
    else
        for (int k = 0; k < net->ndims && o < sizeof shape; k++)
            o += (size_t)snprintf(shape + o, sizeof shape - o, "%s%d", k ? "x" : " ",
                                  net->dims[k]);
    snprintf(buf, len, "%s%s%s, %s, %s, %s", kinds[net->kind], shape,
             net->kind != IC_NET_TORUS ? ""
             : net->unidirectional && net->dateline ? " unidirectional, dateline channels"
             : net->unidirectional                  ? " unidirectional"
             : net->dateline                        ? " dateline channels"
                                                    : "",
             sw[net->switching],
             port, net->contention ? "links shared" : "no contention");
}

void ic_net_phys(const ic_net_t *net, int n, const int *world, int *node_of, ic_phys_t *out)
{
    memset(out, 0, sizeof(*out));
    if (!net || net->kind == IC_NET_FULL)
        return;
    out->kind = net->kind == IC_NET_MESH        ? IC_PHYS_MESH
                : net->kind == IC_NET_HYPERCUBE ? IC_PHYS_HYPERCUBE
                : net->unidirectional           ? IC_PHYS_TORUS_UNI
                                                : IC_PHYS_TORUS;
    out->ndims = net->ndims < IC_PHYS_MAX_DIMS ? net->ndims : IC_PHYS_MAX_DIMS;
    for (int k = 0; k < out->ndims; k++)
        out->dims[k] = net->dims[k];
    for (int i = 0; i < n; i++)
        node_of[i] = ic_net_node_of(net, world ? world[i] : i);
    out->node_of = node_of;
}
