/*
 * network.h — the physical networks the engine can simulate.
 *
 * A network is a set of nodes joined by directed links, plus how a message
 * crosses them:
 *
 *   full       every pair of nodes joined directly (the papers' fully
 *              connected model; no links to share: the engine's default);
 *   mesh       m0 x m1 x ... x m(d-1) nodes, row-major like ic_mesh_t (the
 *              last dimension varies fastest), a link each way between
 *              neighbours along every dimension;
 *   torus      the same with wrap-around links;
 *   hypercube  2 x 2 x ... x 2 (d times): node bits are coordinates.
 *
 * Routing is dimension-ordered (e-cube): a message moves along dimension 0
 * until its coordinate is right, then dimension 1, and so on ([Watts94],
 * assumption 4).  On a torus it takes the shorter way round, the positive
 * one on a tie; on a unidirectional torus always the positive one.  Every node has 2d outgoing links, numbered
 *   link = node * 2d + 2k + dir      (dir 0: coordinate + 1, 1: - 1),
 * of which those off the edge of a mesh are never used.
 *
 * Switching decides the time of a message of n bytes over h links (see
 * docs/simulator.md for the full model):
 *   wormhole       alpha + h*hop + n*c, the message holding every link of
 *                  its path while it lasts; with contention, c is
 *                  max(beta, beta_net * M) per byte, M the most messages on
 *                  one link of the path ([vdG-CCTP]: alpha + M n beta; [Watts94]:
 *                  beta_node vs beta_net, excess network bandwidth);
 *   circuit        set-up alpha + h*hop ([BR90]: xi + i tau), then n*beta;
 *                  a circuit holds every link of its path to itself: set-up
 *                  takes them one after the other and waits at a link
 *                  another circuit holds (engine_links.c);
 *   store-forward  alpha + h*hop + h*n*c: every link receives the whole
 *                  message before passing it on.
 * Without contention, beta_net and link sharing are ignored (c = beta).
 */
#ifndef IC_SIM_NETWORK_H
#define IC_SIM_NETWORK_H

#include "algo/phys.h"
#include "intercom.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IC_NET_MAX_DIMS 24

typedef enum ic_net_kind {
    IC_NET_FULL = 0,
    IC_NET_MESH,
    IC_NET_TORUS,
    IC_NET_HYPERCUBE
} ic_net_kind_t;

typedef enum ic_switching {
    IC_SWITCH_WORMHOLE = 0,
    IC_SWITCH_CIRCUIT,
    IC_SWITCH_STORE_FORWARD
} ic_switching_t;

typedef struct ic_net {
    ic_net_kind_t kind;
    int ndims;                  /* mesh/torus/hypercube dimensions */
    int dims[IC_NET_MAX_DIMS];  /* side lengths (hypercube: all 2, set by ic_net_hypercube) */
    int full_nodes;             /* node count of the full network (0: the world size) */
    ic_switching_t switching;
    bool all_port;    /* nodes send and receive any number of messages at once;
                         false: one send port and one receive port ([Watts94]) */
    int ports;        /* without all_port: k > 1 gives k-port nodes, which send
                         at most k messages and receive at most k at once (a
                         further one waits for a free port; [MTR94] section 3);
                         0 or 1: one-port */
    bool contention;  /* messages on one directed link share its bandwidth */
    bool unidirectional; /* torus: routes go up (coordinate + 1) only, the way
                            round ([MTR94]'s unidirectional torus) */
    bool dateline;       /* torus: every directed link is two virtual channels,
                            "p" for a message that will still take this
                            dimension's wrap-around link (the wrap-around link
                            included) and "h" for the others ([MTR94] figure
                            18, the channels that keep a torus deadlock-free).
                            Each channel is a link of its own to the engine: it
                            has the link's whole bandwidth and its own load */
    double beta_net;  /* seconds per byte of one link (0: the model's beta) */
    double hop;       /* seconds per link of a path (wormhole/circuit set-up) */
    bool setup_overlap; /* circuit, one-port: a node sets up its next circuit
                           while its current message still moves ([BR90]
                           section 3.3, as on the iPSC/2): a message's set-up
                           may start once the node's previous message has
                           started moving; its bytes follow when the ports
                           are free */
    const int *place; /* node of each world rank (NULL: rank r on node r) */
} ic_net_t;

/* Networks with everything else at its default (wormhole, one-port,
 * contention on, beta_net = beta, hop = 0, identity placement).  dims are
 * copied. */
ic_net_t ic_net_full(void);
ic_net_t ic_net_mesh(int ndims, const int *dims);
ic_net_t ic_net_torus(int ndims, const int *dims);
ic_net_t ic_net_hypercube(int d);

/* Parses "full", "mesh:16x32", "torus:8x8x8", "utorus:6x6" (unidirectional)
 * or "hypercube:7" into *net (other fields at their defaults); IC_ERR_ARG
 * naming the text otherwise. */
ic_status_t ic_net_parse(const char *spec, ic_net_t *net);

/* Where n members sit on net, for the plan builders (ic_coll_args_t.phys):
 * member i is world rank world[i] (NULL: i), on node node_of[i] (filled
 * here, n entries, owned by the caller, which keeps it while *out is in
 * use).  The full network has no placement: out->kind is IC_PHYS_NONE. */
void ic_net_phys(const ic_net_t *net, int n, const int *world, int *node_of, ic_phys_t *out);

/* Checks net for world_size ranks: dimensions >= 1, enough nodes, every
 * placed node in range.  IC_ERR_ARG naming the field otherwise.  Several
 * ranks may share a node (their messages use no link). */
ic_status_t ic_net_check(const ic_net_t *net, int world_size);

/* Nodes (the full network: full_nodes, or world_size when 0). */
long ic_net_nodes(const ic_net_t *net, int world_size);
/* Directed link ids are below this (0 for the full network). */
long ic_net_links(const ic_net_t *net, int world_size);
/* The node of world rank r. */
static inline int ic_net_node_of(const ic_net_t *net, int r)
{
    return net && net->place ? net->place[r] : r;
}

/* The links of the route from node a to node b, in order, into links
 * (at most max; the route has at most sum(dims) links); returns the
 * number of hops (0 for a == b or the full network). */
int ic_net_route(const ic_net_t *net, int a, int b, uint32_t *links, int max);
/* Longest route, an upper bound for ic_net_route's max. */
int ic_net_max_hops(const ic_net_t *net);

/* The two nodes a link joins, and the link's dimension and direction
 * (+1 or -1). */
void ic_net_link_ends(const ic_net_t *net, long link, int *from, int *to, int *dim, int *dir);
/* Writes "(r,c)->(r,c+1)"-style text for a link into buf. */
void ic_net_link_name(const ic_net_t *net, long link, char *buf, size_t len);
/* Writes "mesh 16x32, wormhole, one-port, contention" into buf. */
void ic_net_describe(const ic_net_t *net, char *buf, size_t len);

#endif
