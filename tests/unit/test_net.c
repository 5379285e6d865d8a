/*
 * test_net.c — the physical networks of network.c, without the engine:
 * parsing and checking (errors name the text or the field), and the
 * dimension-ordered routes, exhaustively over every pair of nodes of
 * meshes 5x7, 6x6, 4x4x4, 3x5x7, the torus 4x5 and the 4-D hypercube:
 * hop counts are the Manhattan distance (mesh), the shorter way round
 * (torus, positive on ties) and the Hamming distance (hypercube); every
 * route is a chain of links from a to b, in non-decreasing dimension,
 * moving one way per dimension, inside the mesh (no wrap link).  Link names
 * read like "(0,1)->(0,2)".
 */
#include "check.h"
#include "sim/network.h"

#include <stdlib.h>
#include <string.h>

/* ---- parse / check ------------------------------------------------------- */

static void parse_ok(const char *spec, ic_net_kind_t kind, int nd, const int *dims)
{
    ic_net_t n;
    memset(&n, 0xab, sizeof n);
    ic_status_t st = ic_net_parse(spec, &n);
    CHECK(st == IC_OK, "ic_net_parse(\"%s\") = %d (%s), want IC_OK", spec, (int)st,
          ic_last_error());
    if (st != IC_OK)
        return;
    CHECK(n.kind == kind, "ic_net_parse(\"%s\"): kind %d, want %d", spec, (int)n.kind, (int)kind);
    if (kind != IC_NET_FULL) {
        CHECK(n.ndims == nd, "ic_net_parse(\"%s\"): ndims %d, want %d", spec, n.ndims, nd);
        for (int k = 0; k < nd && k < n.ndims; k++)
            CHECK(n.dims[k] == dims[k], "ic_net_parse(\"%s\"): dims[%d] = %d, want %d", spec, k,
                  n.dims[k], dims[k]);
    }
    /* Defaults: wormhole, one-port, contention, beta_net 0, hop 0, no placement. */
    CHECK(n.switching == IC_SWITCH_WORMHOLE && !n.all_port && n.contention && !n.setup_overlap &&
              n.beta_net == 0 && n.hop == 0 && n.place == NULL && n.full_nodes == 0,
          "ic_net_parse(\"%s\"): other fields not at their defaults (switching %d all_port %d "
          "contention %d beta_net %g hop %g place %p full_nodes %d)",
          spec, (int)n.switching, (int)n.all_port, (int)n.contention, n.beta_net, n.hop,
          (const void *)n.place, n.full_nodes);
    CHECK(ic_net_check(&n, 1) == IC_OK, "ic_net_check of parsed \"%s\" for 1 rank: %s", spec,
          ic_last_error());
}

static void parse_bad(const char *spec)
{
    ic_net_t n = ic_net_full();
    ic_status_t st = ic_net_parse(spec, &n);
    CHECK(st == IC_ERR_ARG, "ic_net_parse(\"%s\") = %d, want IC_ERR_ARG", spec, (int)st);
    if (st != IC_OK)
        CHECK(strstr(ic_last_error(), spec) != NULL,
              "ic_net_parse(\"%s\"): error \"%s\" does not name the text", spec, ic_last_error());
}

static void check_bad(const ic_net_t *n, int world, const char *field, const char *what)
{
    ic_status_t st = ic_net_check(n, world);
    CHECK(st == IC_ERR_ARG, "%s: ic_net_check = %d, want IC_ERR_ARG", what, (int)st);
    if (st != IC_OK)
        CHECK(strstr(ic_last_error(), field) != NULL, "%s: error \"%s\" does not name \"%s\"",
              what, ic_last_error(), field);
}

static void test_parse_check(void)
{
    parse_ok("full", IC_NET_FULL, 0, NULL);
    parse_ok("mesh:16x32", IC_NET_MESH, 2, (const int[]){16, 32});
    parse_ok("mesh:5", IC_NET_MESH, 1, (const int[]){5});
    parse_ok("mesh:3x5x7", IC_NET_MESH, 3, (const int[]){3, 5, 7});
    parse_ok("torus:8x8x8", IC_NET_TORUS, 3, (const int[]){8, 8, 8});
    parse_ok("torus:4x5", IC_NET_TORUS, 2, (const int[]){4, 5});
    parse_ok("hypercube:7", IC_NET_HYPERCUBE, 7, (const int[]){2, 2, 2, 2, 2, 2, 2});
    parse_ok("hypercube:1", IC_NET_HYPERCUBE, 1, (const int[]){2});
    parse_ok("hypercube:24", IC_NET_HYPERCUBE, 24,
             (const int[]){2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2});

    const char *bad[] = {"",         "mesh",        "mesh:",      "mesh:0x4",  "mesh:4x",
                         "mesh:4xx4", "mesh:4y4",   "mesh:-3x4",  "mesh:a",    "ring:8",
                         "torus:",    "hypercube:", "hypercube:2x2", "hypercube:25",
                         "Mesh:4x4", "fully",        "mesh:4x4 ", "full:4",
                         "mesh:1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        parse_bad(bad[i]);
    CHECK(ic_net_parse(NULL, &(ic_net_t){0}) == IC_ERR_ARG, "ic_net_parse(NULL) accepted");

    /* ic_net_check: each error names the field. */
    ic_net_t n = ic_net_mesh(2, (const int[]){4, 4});
    CHECK(ic_net_check(&n, 16) == IC_OK, "mesh 4x4 for 16 ranks rejected: %s", ic_last_error());
    CHECK(ic_net_check(&n, 7) == IC_OK, "mesh 4x4 for 7 ranks rejected: %s", ic_last_error());
    check_bad(&n, 17, "17 ranks on 16 nodes", "mesh 4x4 for 17 ranks");
    n.dims[1] = 0;
    check_bad(&n, 4, "dims[1]", "mesh 4x0");
    n = ic_net_mesh(2, (const int[]){4, 4});
    n.dims[0] = -2;
    check_bad(&n, 4, "dims[0]", "mesh -2x4");
    n = ic_net_mesh(2, (const int[]){4, 4});
    n.ndims = 0;
    check_bad(&n, 1, "ndims", "mesh with ndims 0");
    n.ndims = IC_NET_MAX_DIMS + 1;
    check_bad(&n, 1, "ndims", "mesh with ndims 25");
    n = ic_net_hypercube(3);
    n.dims[2] = 3;
    check_bad(&n, 8, "dims[2]", "hypercube with a side of 3");
    n = ic_net_hypercube(3);
    check_bad(&n, 9, "9 ranks on 8 nodes", "hypercube 3 for 9 ranks");
    n = ic_net_mesh(2, (const int[]){4, 4});
    n.beta_net = -1;
    check_bad(&n, 16, "beta_net", "negative beta_net");
    n.beta_net = 0;
    n.hop = -1;
    check_bad(&n, 16, "hop", "negative hop");
    n.hop = 0;
    n.kind = (ic_net_kind_t)9;
    check_bad(&n, 16, "kind", "kind 9");
    n = ic_net_mesh(2, (const int[]){4, 4});
    n.switching = (ic_switching_t)7;
    check_bad(&n, 16, "switching", "switching 7");

    /* Placement: in range, several ranks per node allowed. */
    n = ic_net_mesh(2, (const int[]){2, 2});
    int place_ok[6] = {0, 0, 1, 2, 3, 3};
    n.place = place_ok;
    CHECK(ic_net_check(&n, 6) == IC_OK, "6 ranks placed on mesh 2x2 rejected: %s",
          ic_last_error());
    int place_hi[3] = {0, 4, 1};
    n.place = place_hi;
    check_bad(&n, 3, "place[1]", "place[1] = 4 on mesh 2x2");
    int place_lo[3] = {0, 1, -1};
    n.place = place_lo;
    check_bad(&n, 3, "place[2]", "place[2] = -1 on mesh 2x2");
    CHECK(ic_net_node_of(&n, 1) == 1 && ic_net_node_of(NULL, 5) == 5,
          "ic_net_node_of: %d %d", ic_net_node_of(&n, 1), ic_net_node_of(NULL, 5));

    /* Full network: nodes = full_nodes or the world; no links. */
    n = ic_net_full();
    CHECK(ic_net_check(&n, 100) == IC_OK, "full network for 100 ranks: %s", ic_last_error());
    CHECK(ic_net_nodes(&n, 100) == 100 && ic_net_links(&n, 100) == 0 &&
              ic_net_max_hops(&n) == 0,
          "full network: nodes %ld links %ld max hops %d", ic_net_nodes(&n, 100),
          ic_net_links(&n, 100), ic_net_max_hops(&n));
    n.full_nodes = 8;
    check_bad(&n, 9, "9 ranks on 8 nodes", "full network of 8 nodes for 9 ranks");
    CHECK(ic_net_check(NULL, 5) == IC_OK, "ic_net_check(NULL) rejected");
    uint32_t dummy[4];
    CHECK(ic_net_route(&n, 0, 5, dummy, 4) == 0, "full network route has hops");
}

/* ---- routes ----------------------------------------------------------------- */

static void coords_of(const ic_net_t *n, int node, int *c)
{
    for (int k = n->ndims - 1; k >= 0; k--) {
        c[k] = node % n->dims[k];
        node /= n->dims[k];
    }
}

static const char *shape_name(const ic_net_t *n, char *buf, size_t len)
{
    static const char *const kinds[] = {"full", "mesh", "torus", "hypercube"};
    size_t o = (size_t)snprintf(buf, len, "%s ", kinds[n->kind]);
    for (int k = 0; k < n->ndims && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d", k ? "x" : "", n->dims[k]);
    return buf;
}

/* The hops dimension k should take from coordinate ca to cb, and the
 * direction (+1/-1, 0 for none). */
static int want_steps(const ic_net_t *n, int k, int ca, int cb, int *dir)
{
    int m = n->dims[k];
    *dir = 0;
    if (ca == cb)
        return 0;
    if (n->kind == IC_NET_TORUS && n->unidirectional) { /* always up, round */
        *dir = 1;
        return ((cb - ca) % m + m) % m;
    }
    if (n->kind == IC_NET_TORUS && m > 2) {
        int fwd = ((cb - ca) % m + m) % m, back = m - fwd;
        *dir = fwd <= back ? 1 : -1;
        return fwd <= back ? fwd : back;
    }
    *dir = cb > ca ? 1 : -1;
    return cb > ca ? cb - ca : ca - cb;
}

static long route_fails;

static void test_routes(ic_net_t n)
{
    char shape[64];
    shape_name(&n, shape, sizeof shape);
    int nodes = (int)ic_net_nodes(&n, 1);
    long nlinks = ic_net_links(&n, 1);
    CHECK(nlinks == (long)nodes * 2 * n.ndims, "%s: %ld links, want %ld", shape, nlinks,
          (long)nodes * 2 * n.ndims);
    int maxh = ic_net_max_hops(&n);
    int want_maxh = 0;
    for (int k = 0; k < n.ndims; k++)
        want_maxh += n.kind == IC_NET_TORUS && !n.unidirectional ? n.dims[k] / 2
                                                                 : n.dims[k] - 1;
    CHECK(maxh == want_maxh, "%s: max hops %d, want %d", shape, maxh, want_maxh);
    uint32_t *links = malloc(sizeof(uint32_t) * (size_t)(maxh + 1));
    int ca[IC_NET_MAX_DIMS], cb[IC_NET_MAX_DIMS], cf[IC_NET_MAX_DIMS], ct[IC_NET_MAX_DIMS];
    long checks = 0, bad = 0;
    int observed_max = 0;
    for (int a = 0; a < nodes; a++) {
        coords_of(&n, a, ca);
        for (int b = 0; b < nodes; b++) {
            coords_of(&n, b, cb);
            /* Hop count. */
            int want = 0;
            for (int k = 0; k < n.ndims; k++) {
                int dir;
                want += want_steps(&n, k, ca[k], cb[k], &dir);
            }
            links[maxh] = 0xdeadbeefu; /* guard: the route never writes past max */
            int h = ic_net_route(&n, a, b, links, maxh);
            int h_short = ic_net_route(&n, a, b, links, 0); /* counts without writing */
            checks++;
            if (h > observed_max)
                observed_max = h;
            if (h != want || h_short != h || links[maxh] != 0xdeadbeefu) {
                if (bad++ < 10)
                    CHECK(0, "%s: route %d->%d has %d hops (%d with max 0), want %d", shape, a,
                          b, h, h_short, want);
                continue;
            }
            /* Chain, dimension order, direction, inside the mesh. */
            int at = a, lastdim = -1, lastdir = 0;
            const char *why = NULL;
            int hop_bad = -1;
            for (int s = 0; s < h && !why; s++) {
                if ((long)links[s] >= nlinks) {
                    why = "link id out of range";
                    hop_bad = s;
                    break;
                }
                int from, to, dim, dir;
                ic_net_link_ends(&n, (long)links[s], &from, &to, &dim, &dir);
                coords_of(&n, from, cf);
                coords_of(&n, to, ct);
                if (from != at)
                    why = "chain broken (link does not start where the last ended)";
                else if (links[s] != (uint32_t)(from * 2 * n.ndims + 2 * dim + (dir < 0)))
                    why = "link id is not node*2d+2k+dir";
                else if (dim < lastdim)
                    why = "dimension order violated";
                else if (dim == lastdim && dir != lastdir)
                    why = "direction changes within a dimension";
                else if (n.kind == IC_NET_MESH && (cf[dim] + dir < 0 || cf[dim] + dir >= n.dims[dim]))
                    why = "leaves the mesh (wrap link on a mesh)";
                else {
                    int wdir;
                    want_steps(&n, dim, ca[dim], cb[dim], &wdir);
                    if (dir != wdir)
                        why = "wrong direction (not the shorter way, or not positive on a tie)";
                    for (int k = 0; k < n.ndims && !why; k++) {
                        int m = n.dims[k];
                        int expect = k == dim ? ((cf[k] + dir) % m + m) % m : cf[k];
                        if (ct[k] != expect)
                            why = "link does not join neighbours along its dimension";
                    }
                }
                if (why)
                    hop_bad = s;
                at = to;
                lastdim = dim;
                lastdir = dir;
            }
            if (!why && at != b)
                why = "route does not end at b";
            if (why) {
                if (bad++ < 10) {
                    char name[128] = "-";
                    if (hop_bad >= 0 && (long)links[hop_bad] < nlinks)
                        ic_net_link_name(&n, (long)links[hop_bad], name, sizeof name);
                    CHECK(0, "%s: route %d->%d, hop %d (%s): %s", shape, a, b, hop_bad, name,
                          why);
                }
                continue;
            }
            /* No link twice in one route (a simple path). */
            for (int s = 0; s < h && !why; s++)
                for (int u = s + 1; u < h; u++)
                    if (links[s] == links[u])
                        why = "a link used twice";
            if (why && bad++ < 10)
                CHECK(0, "%s: route %d->%d: %s", shape, a, b, why);
        }
    }
    route_fails += bad;
    CHECK(bad == 0, "%s: %ld of %ld routes wrong", shape, bad, checks);
    CHECK(observed_max == maxh, "%s: longest route %d hops, ic_net_max_hops %d", shape,
          observed_max, maxh);
    free(links);
}

static void test_hypercube_hamming(int d)
{
    ic_net_t n = ic_net_hypercube(d);
    int p = 1 << d;
    uint32_t links[IC_NET_MAX_DIMS];
    long bad = 0;
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
            int h = ic_net_route(&n, a, b, links, d);
            int want = __builtin_popcount((unsigned)(a ^ b));
            int at = a;
            bool ok = h == want;
            /* e-cube: the bits are fixed one at a time, each link flips one bit. */
            for (int s = 0; ok && s < h; s++) {
                int from, to, dim, dir;
                ic_net_link_ends(&n, (long)links[s], &from, &to, &dim, &dir);
                ok = from == at && __builtin_popcount((unsigned)(from ^ to)) == 1 &&
                     ((from ^ to) & (a ^ b)) != 0;
                at = to;
            }
            ok = ok && at == b;
            if (!ok && bad++ < 5)
                CHECK(0, "hypercube %d: route %d->%d: %d hops (want Hamming %d) or not a "
                      "bit-fixing chain", d, a, b, h, want);
        }
    CHECK(bad == 0, "hypercube %d: %ld routes wrong", d, bad);
}

static void test_names(void)
{
    char buf[128];
    ic_net_t n = ic_net_mesh(2, (const int[]){5, 7});
    /* Node (0,1) = 1, +1 along dimension 1: link 1*4 + 2*1 + 0. */
    ic_net_link_name(&n, 1 * 4 + 2 + 0, buf, sizeof buf);
    CHECK(strcmp(buf, "(0,1)->(0,2)") == 0, "mesh 5x7 link 6 named \"%s\", want (0,1)->(0,2)",
          buf);
    /* Node (2,3) = 17, -1 along dimension 0: (2,3)->(1,3). */
    ic_net_link_name(&n, 17 * 4 + 0 + 1, buf, sizeof buf);
    CHECK(strcmp(buf, "(2,3)->(1,3)") == 0, "mesh 5x7 link named \"%s\", want (2,3)->(1,3)",
          buf);
    n = ic_net_mesh(3, (const int[]){3, 5, 7});
    /* Node (1,2,3) = 1*35 + 2*7 + 3 = 52, +1 along dimension 1. */
    ic_net_link_name(&n, 52 * 6 + 2 + 0, buf, sizeof buf);
    CHECK(strcmp(buf, "(1,2,3)->(1,3,3)") == 0, "mesh 3x5x7 link named \"%s\", want "
          "(1,2,3)->(1,3,3)", buf);
    n = ic_net_torus(2, (const int[]){4, 5});
    /* Node (0,4) = 4, +1 along dimension 1 wraps to (0,0). */
    ic_net_link_name(&n, 4 * 4 + 2 + 0, buf, sizeof buf);
    CHECK(strcmp(buf, "(0,4)->(0,0)") == 0, "torus 4x5 wrap link named \"%s\", want "
          "(0,4)->(0,0)", buf);
    n = ic_net_hypercube(3);
    /* Node 5 = (1,0,1), flipping dimension 1 (bit 1): (1,1,1). */
    ic_net_link_name(&n, 5 * 6 + 2 + 0, buf, sizeof buf);
    CHECK(strcmp(buf, "(1,0,1)->(1,1,1)") == 0, "hypercube 3 link named \"%s\", want "
          "(1,0,1)->(1,1,1)", buf);
    ic_net_link_name(&n, -1, buf, sizeof buf);
    CHECK(strcmp(buf, "-") == 0, "link -1 named \"%s\", want -", buf);
    /* Truncation: always NUL-terminated within len. */
    n = ic_net_mesh(2, (const int[]){5, 7});
    memset(buf, 'x', sizeof buf);
    ic_net_link_name(&n, 6, buf, 5);
    CHECK(memchr(buf, '\0', 5) != NULL, "link name not terminated within 5 bytes");
    /* Every link name of a small mesh has the shape "(a,b)->(c,d)" and
     * joins the right coordinates. */
    long bad = 0;
    for (long l = 0; l < ic_net_links(&n, 1); l++) {
        int from, to, dim, dir;
        ic_net_link_ends(&n, l, &from, &to, &dim, &dir);
        ic_net_link_name(&n, l, buf, sizeof buf);
        int r0, c0, r1, c1;
        char tail;
        int got = sscanf(buf, "(%d,%d)->(%d,%d)%c", &r0, &c0, &r1, &c1, &tail);
        if (got != 4 || r0 != from / 7 || c0 != from % 7 || r1 != to / 7 || c1 != to % 7)
            if (bad++ < 5)
                CHECK(0, "mesh 5x7 link %ld named \"%s\" (ends %d->%d)", l, buf, from, to);
    }
    CHECK(bad == 0, "mesh 5x7: %ld link names wrong", bad);
    ic_net_describe(&n, buf, sizeof buf);
    CHECK(strstr(buf, "mesh") && strstr(buf, "5x7") && strstr(buf, "wormhole"),
          "ic_net_describe: \"%s\"", buf);
}

/* Dateline channels (net.dateline): on every route of a bidirectional
 * 4x5 and a unidirectional 4x5 torus, a hop is on the "p" channel exactly
 * when this dimension's wrap-around link is still ahead of it or is it;
 * the survey's example pair shares a physical link but not a channel. */
static void test_dateline(void)
{
    const char *specs[] = {"torus:4x5", "utorus:4x5"};
    for (int s = 0; s < 2; s++) {
        ic_net_t n;
        ic_net_parse(specs[s], &n);
        n.dateline = true;
        int nodes = (int)ic_net_nodes(&n, 1), maxh = ic_net_max_hops(&n);
        long nlinks = ic_net_links(&n, 1), bad = 0;
        CHECK(nlinks == (long)nodes * 4 * n.ndims, "%s dateline: %ld links", specs[s], nlinks);
        uint32_t links[64];
        for (int a = 0; a < nodes; a++)
            for (int b = 0; b < nodes; b++) {
                int h = ic_net_route(&n, a, b, links, maxh), at = a;
                for (int i = 0; i < h; i++) {
                    int from, to, dim, dir;
                    ic_net_link_ends(&n, (long)links[i], &from, &to, &dim, &dir);
                    /* Is a wrap-around hop of this dimension at i or later? */
                    bool ahead = false;
                    for (int j = i; j < h; j++) {
                        int f2, t2, d2, r2;
                        ic_net_link_ends(&n, (long)links[j], &f2, &t2, &d2, &r2);
                        if (d2 == dim)
                            ahead |= r2 > 0 ? t2 < f2 : t2 > f2;
                    }
                    bool p = links[i] % 4 >= 2;
                    bad += (long)links[i] >= nlinks || from != at || p != ahead;
                    at = to;
                }
                bad += at != b;
            }
        CHECK(bad == 0, "%s dateline: %ld bad hops", specs[s], bad);
    }
    /* [MTR94] figure 17's kind of pair, on a unidirectional 6x6 torus:
     * (1,3) -> (2,0) and (2,2) -> (2,4) both cross (2,3)->(2,4). */
    ic_net_t u;
    ic_net_parse("utorus:6x6", &u);
    uint32_t l1[16], l2[16];
    for (int dl = 0; dl < 2; dl++) {
        u.dateline = dl;
        int h1 = ic_net_route(&u, 1 * 6 + 3, 2 * 6 + 0, l1, 16);
        int h2 = ic_net_route(&u, 2 * 6 + 2, 2 * 6 + 4, l2, 16);
        int shared = 0;
        for (int i = 0; i < h1; i++)
            for (int j = 0; j < h2; j++)
                shared += l1[i] == l2[j];
        char name[64];
        ic_net_link_name(&u, (long)l1[1], name, sizeof name);
        CHECK(h1 == 4 && h2 == 2 && shared == (dl ? 0 : 1),
              "utorus:6x6%s: %d and %d hops, %d links shared", dl ? " dateline" : "", h1, h2,
              shared);
        CHECK(!strcmp(name, dl ? "(2,3)->(2,4)[p]" : "(2,3)->(2,4)"), "link named %s", name);
    }
}

int main(void)
{
    test_parse_check();
    test_dateline();
    test_routes(ic_net_mesh(2, (const int[]){5, 7}));
    test_routes(ic_net_mesh(2, (const int[]){6, 6}));
    test_routes(ic_net_mesh(3, (const int[]){4, 4, 4}));
    test_routes(ic_net_mesh(3, (const int[]){3, 5, 7}));
    test_routes(ic_net_mesh(1, (const int[]){9}));
    test_routes(ic_net_torus(2, (const int[]){4, 5}));
    test_routes(ic_net_torus(3, (const int[]){2, 3, 6}));
    ic_net_t uni;
    CHECK(ic_net_parse("utorus:4x5", &uni) == IC_OK && uni.kind == IC_NET_TORUS &&
              uni.unidirectional && uni.dims[1] == 5,
          "utorus:4x5 parsed as a unidirectional torus");
    test_routes(uni);
    ic_net_parse("utorus:2x3x6", &uni);
    test_routes(uni);
    char desc[128];
    ic_net_describe(&uni, desc, sizeof desc);
    CHECK(strstr(desc, "unidirectional") != NULL, "described as \"%s\"", desc);
    test_routes(ic_net_hypercube(4));
    for (int d = 1; d <= 7; d++)
        test_hypercube_hamming(d);
    test_names();
    printf("test_net: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
