/*
 * intercom_sim.c — runs one collective's algorithms on a simulated physical
 * network (a mesh, torus, hypercube or the fully connected network of the
 * seeds' model) over a sweep of vector sizes, in the in-process engine
 * (ic_sim_run_net), and reports the simulated times and the contention:
 * the most messages that shared one directed link.  It can write the
 * results as CSV, plot them with gnuplot, and draw the link loads of one
 * step of one run on a 2-D mesh or torus.
 *
 *   intercom-sim --mesh 16x32 --coll allreduce --algos dr,pfr,hybrid \
 *                --sizes 8:64M:8 --plot /tmp/a.png
 *   intercom-sim --mesh 6x6 --coll bcast --algos mst --sizes 64K \
 *                --picture /tmp/b.png --picture-step 2
 *
 * Times are in microseconds (alpha in us, the per-byte times in us/B);
 * docs/intercom-sim.md describes every option with examples.
 */
#define _GNU_SOURCE
#include "core/status.h"
#include "core/validate.h"
#include "select/catalog.h"
#include "sim/engine.h"
#include "sim_plot.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: intercom-sim (--mesh AxB.. | --torus AxB.. | --hypercube D | --full P)\n"
    "         [--alpha US] [--beta US_PER_B] [--beta-net US_PER_B] [--gamma US_PER_B]\n"
    "         [--delta US_PER_B] [--hop US] [--switching wormhole|circuit|store-forward]\n"
    "         [--all-port] [--no-contention] [--setup-overlap] [--place FILE] [--ranks P]\n"
    "         [--logical AxB..] [--price-no-links]\n"
    "         --coll NAME [--algos a,b,c | auto | all] [--sizes LIST]\n"
    "         [--elem uint8|float|double|int32] [--root R]\n"
    "         [--csv FILE] [--plot FILE.png] [--title TEXT]\n"
    "         [--picture FILE.png [--picture-algo NAME] [--picture-size BYTES]\n"
    "          [--picture-step K]] [--check] [--quiet]\n";

static const char help_text[] =
    "\n"
    "  network    --mesh/--torus AxB..: nodes in row-major order, the last dimension\n"
    "             fastest; --hypercube D: 2^D nodes; --full P: P nodes, all joined\n"
    "  model      alpha 100 us, beta 0.01 us/B (a node's per-byte time), gamma 0.005,\n"
    "             delta 0 us/B by default; --beta-net: one link's per-byte time\n"
    "             (default beta); --hop: time per link of a path (default 0)\n"
    "  switching  wormhole (default), circuit or store-forward; nodes are one-port\n"
    "             unless --all-port; links are shared unless --no-contention;\n"
    "             --setup-overlap: circuits, one-port: a node sets up its next\n"
    "             circuit while its current message moves (seed 003 3.3)\n"
    "  --place    node of each rank, whitespace separated (default rank r on node r)\n"
    "  --ranks    communicator size (default all nodes, or the --place entries)\n"
    "  --price-no-links  the cost model (selector, hybrids) ignores shared links; by\n"
    "             default, when the logical mesh is the physical one and links are shared,\n"
    "             it prices them (ic_model_params_t.beta_net)\n"
    "  --logical  logical mesh of the mesh-aware algorithms (default the physical shape\n"
    "             of a mesh or torus, 2x..x2 for a hypercube, none for --full)\n"
    "  --coll     bcast, reduce, allreduce, scatter(v), gather(v), allgather(v),\n"
    "             reduce_scatter_block, reduce_scatter, alltoall(v), barrier, scan, exscan\n"
    "  --algos    catalog entries, comma separated; auto (default): the selector's\n"
    "             choice; all: every applicable entry\n"
    "  --sizes    bytes: 8,1K,64K,1M or ranges 8:64M (powers of 2) or 8:64M:4 (factor\n"
    "             4); a range ends at its upper bound; K/M/G = 2^10/2^20/2^30\n"
    "             (default 8:64M:8).  bcast, reduce, allreduce, scan, exscan: n is\n"
    "             the vector length; the other collectives: n is the TOTAL, n/p per\n"
    "             rank (at least one element)\n"
    "  --elem     element type (default uint8, summed, so every n is exact)\n"
    "  --csv      rows coll,algo,chosen,bytes,time_us,max_link_load,msgs,bytes_sent,wall_s\n"
    "  --plot     log-log time against n with gnuplot (also writes FILE.dat, FILE.gp)\n"
    "  --picture  2-D mesh or torus: the link loads of step K (default 0) of one run of\n"
    "             the first (or --picture-algo) algorithm at the first (or\n"
    "             --picture-size) size, and its step table\n"
    "  --check    move real data (p buffers of the collective's size) so the engine\n"
    "             checks matching and bounds\n"
    "  --quiet    no progress lines on stderr\n";

typedef struct opts {
    ic_net_t net;
    bool have_net, all_port, no_contention, setup_overlap, price_no_links, check, quiet;
    double beta_net, hop;
    ic_switching_t sw;
    ic_model_t m;
    int ranks, nplace, root, pic_step;
    int *place;
    ic_mesh_t logical; /* d == 0: none */
    ic_coll_t coll;    /* IC_COLL_COUNT: not given */
    ic_datatype_t dtype;
    const char *algos, *csv, *plot, *title, *picture, *pic_algo;
    size_t *sizes, nsizes, pic_size; /* pic_size 0: the first size */
    const char **names;              /* the algorithms, resolved */
    int nnames;
} opts_t;

/* What one run gave. */
typedef struct cell {
    double time, wall;
    uint32_t load;
    size_t msgs, bytes;
    const char *chosen;
    char shape[48]; /* the logical mesh a mesh-aware choice ran on, or "" */
} cell_t;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A bad option or value: the message, the synopsis, exit status 2. */
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "intercom-sim: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n\n%s(intercom-sim --help for details)\n", usage_text);
    exit(2);
}

/* ---- the command line ------------------------------------------------------------------ */

static double arg_double(const char *opt, const char *v)
{
    char *e;
    errno = 0;
    double x = strtod(v, &e);
    if (e == v || *e || errno || !isfinite(x) || x < 0)
        die("%s: bad value '%s' (want a number >= 0)", opt, v);
    return x;
}

static long arg_long(const char *opt, const char *v, long lo, long hi)
{
    char *e;
    errno = 0;
    long x = strtol(v, &e, 10);
    if (e == v || *e || errno || x < lo || x > hi)
        die("%s: bad value '%s' (want an integer in %ld..%ld)", opt, v, lo, hi);
    return x;
}

/* A byte count with an optional K/M/G suffix (and B or iB), at *s; moves
 * *s past it.  0 when there is no number or it overflows. */
static size_t bytes_at(const char **s)
{
    char *e;
    errno = 0;
    unsigned long long v = strtoull(*s, &e, 10);
    if (e == *s || errno || **s == '-')
        return 0;
    const char *units = "KMGkmg", *u = *e ? strchr(units, *e) : NULL;
    int shift = u ? 10 * (1 + (int)(u - units) % 3) : 0;
    e += u != NULL;
    e += shift && e[0] == 'i' && e[1] == 'B' ? 2 : *e == 'B';
    *s = e;
    return v > (SIZE_MAX >> 2 >> shift) ? 0 : (size_t)v << shift;
}

static size_t arg_bytes(const char *opt, const char *v)
{
    const char *s = v;
    size_t n = bytes_at(&s);
    if (!n || *s)
        die("%s: bad size '%s' (want bytes >= 1, e.g. 4096, 64K, 1M)", opt, v);
    return n;
}

/* The index of v among names, or exit naming opt and the choices. */
static int pick(const char *opt, const char *v, const char *const *names, int n)
{
    char all[512] = "";
    for (int i = 0; i < n; i++) {
        if (!strcmp(v, names[i]))
            return i;
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", names[i]);
    }
    die("%s: unknown value '%s' (want %s)", opt, v, all);
}

static void push_size(opts_t *o, size_t n)
{
    size_t *s = o->nsizes < 4096 ? realloc(o->sizes, (o->nsizes + 1) * sizeof(*s)) : NULL;
    if (!s)
        die("--sizes: more than 4096 sizes (or out of memory)");
    o->sizes = s;
    o->sizes[o->nsizes++] = n;
}

/* "8,1K,64K", "8:64M" (powers of 2) or "8:64M:4", mixed. */
static void parse_sizes(opts_t *o, const char *v)
{
    o->nsizes = 0;
    for (const char *s = v;;) {
        size_t lo = bytes_at(&s), hi = lo, f = 2;
        if (lo && *s == ':') {
            s++;
            hi = bytes_at(&s);
            if (*s == ':') {
                s++;
                f = bytes_at(&s);
            }
        }
        if (!lo || !hi || hi < lo || f < 2 || (*s && *s != ','))
            die("--sizes: bad list '%s' (want e.g. 8,1K,64K or 8:64M or 8:64M:4)", v);
        for (size_t n = lo; n <= hi; n = n > hi / f ? hi + 1 : n * f)
            push_size(o, n);
        if (o->sizes[o->nsizes - 1] != hi)
            push_size(o, hi);
        if (!*s++)
            break;
    }
}

/* A logical mesh AxB.. (read as a mesh network's dimensions). */
static void parse_dims(const char *opt, const char *v, ic_mesh_t *mesh)
{
    char spec[256];
    ic_net_t n;
    snprintf(spec, sizeof spec, "mesh:%s", v);
    if (ic_net_parse(spec, &n) != IC_OK)
        die("%s: bad dimensions '%s' (want AxBx.., each >= 1, at most %d)", opt, v,
            IC_NET_MAX_DIMS);
    mesh->d = n.ndims;
    memcpy(mesh->dims, n.dims, sizeof(int) * (size_t)n.ndims);
}

/* The network's shape: kind "mesh", "torus", "hypercube" with v, or "full". */
static void parse_net(opts_t *o, const char *kind, const char *opt, const char *v)
{
    char spec[256];
    snprintf(spec, sizeof spec, "%s%s%s", kind, v ? ":" : "", v ? v : "");
    if (o->have_net)
        die("%s: a network is already given", opt);
    if (ic_net_parse(spec, &o->net) != IC_OK)
        die("%s %s: %s", opt, v ? v : "", ic_last_error());
    o->have_net = true;
}

static void read_place(opts_t *o, const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f)
        die("--place %s: %s", file, strerror(errno));
    long v;
    int got;
    while ((got = fscanf(f, "%ld", &v)) == 1) {
        int *p = v >= 0 && v <= INT32_MAX ? realloc(o->place, ((size_t)o->nplace + 1) * sizeof(*p))
                                          : NULL;
        if (!p)
            die("--place %s: entry %d is %ld, not a node number", file, o->nplace, v);
        o->place = p;
        o->place[o->nplace++] = (int)v;
    }
    bool bad = got != EOF || ferror(f) || !o->nplace;
    fclose(f);
    if (bad)
        die("--place %s: want node numbers separated by white space (bad entry %d)", file,
            o->nplace);
}

/* The options with a value that is more than a number or a string. */
static void special_arg(opts_t *o, const char *a, const char *v)
{
    static const char *const sw[] = {"wormhole", "circuit", "store-forward"};
    static const char *const elems[] = {"uint8", "float", "double", "int32"};
    static const ic_datatype_t dts[] = {IC_UINT8, IC_FLOAT, IC_DOUBLE, IC_INT32};
    const char *colls[IC_COLL_COUNT];
    for (int c = 0; c < IC_COLL_COUNT; c++)
        colls[c] = ic_coll_name((ic_coll_t)c);
    if (!strcmp(a, "--full")) {
        parse_net(o, "full", a, NULL);
        o->net.full_nodes = (int)arg_long(a, v, 1, 1L << 24);
    } else if (!strcmp(a, "--switching"))
        o->sw = (ic_switching_t)pick(a, v, sw, 3);
    else if (!strcmp(a, "--elem"))
        o->dtype = dts[pick(a, v, elems, 4)];
    else if (!strcmp(a, "--coll"))
        o->coll = (ic_coll_t)pick(a, v, colls, IC_COLL_COUNT);
    else if (!strcmp(a, "--place"))
        read_place(o, v);
    else if (!strcmp(a, "--logical"))
        parse_dims(a, v, &o->logical);
    else if (!strcmp(a, "--sizes"))
        parse_sizes(o, v);
    else if (!strcmp(a, "--picture-size"))
        o->pic_size = arg_bytes(a, v);
    else
        parse_net(o, a + 2, a, v);
}

enum { O_FLAG, O_NUM, O_INT, O_STR, O_SPECIAL };

typedef struct optdef {
    const char *name;
    int kind;
    size_t off;  /* the field of opts_t (O_FLAG bool, O_NUM double, O_INT int, O_STR string) */
    long lo, hi; /* O_INT's range */
} optdef_t;

/* clang-format off */
#define F(field) offsetof(opts_t, field)
static const optdef_t optdefs[] = {
    {"--all-port", O_FLAG, F(all_port), 0, 0}, {"--no-contention", O_FLAG, F(no_contention), 0, 0},
    {"--price-no-links", O_FLAG, F(price_no_links), 0, 0},
    {"--check", O_FLAG, F(check), 0, 0},       {"--setup-overlap", O_FLAG, F(setup_overlap), 0, 0},       {"--quiet", O_FLAG, F(quiet), 0, 0},
    {"--alpha", O_NUM, F(m.alpha), 0, 0},      {"--beta", O_NUM, F(m.beta), 0, 0},
    {"--gamma", O_NUM, F(m.gamma), 0, 0},      {"--delta", O_NUM, F(m.delta), 0, 0},
    {"--beta-net", O_NUM, F(beta_net), 0, 0},  {"--hop", O_NUM, F(hop), 0, 0},
    {"--ranks", O_INT, F(ranks), 1, 1L << 30}, {"--root", O_INT, F(root), 0, 1L << 30},
    {"--picture-step", O_INT, F(pic_step), 0, 1L << 30},
    {"--algos", O_STR, F(algos), 0, 0},        {"--csv", O_STR, F(csv), 0, 0},
    {"--plot", O_STR, F(plot), 0, 0},          {"--title", O_STR, F(title), 0, 0},
    {"--picture", O_STR, F(picture), 0, 0},    {"--picture-algo", O_STR, F(pic_algo), 0, 0},
    {"--mesh", O_SPECIAL, 0, 0, 0},    {"--torus", O_SPECIAL, 0, 0, 0},
    {"--hypercube", O_SPECIAL, 0, 0, 0},   {"--full", O_SPECIAL, 0, 0, 0},
    {"--switching", O_SPECIAL, 0, 0, 0},   {"--place", O_SPECIAL, 0, 0, 0},
    {"--logical", O_SPECIAL, 0, 0, 0},     {"--coll", O_SPECIAL, 0, 0, 0},
    {"--sizes", O_SPECIAL, 0, 0, 0},       {"--elem", O_SPECIAL, 0, 0, 0},
    {"--picture-size", O_SPECIAL, 0, 0, 0},
};
#undef F
/* clang-format on */

static void parse_args(opts_t *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const optdef_t *d = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("%s%s", usage_text, help_text);
            exit(0);
        }
        for (size_t k = 0; k < sizeof optdefs / sizeof optdefs[0] && !d; k++)
            d = strcmp(a, optdefs[k].name) ? NULL : &optdefs[k];
        if (!d)
            die(strncmp(a, "--", 2) ? "unexpected argument '%s'" : "unknown option '%s'", a);
        char *field = (char *)o + d->off;
        if (d->kind != O_FLAG && i + 1 >= argc)
            die("%s needs a value", a);
        if (d->kind == O_FLAG)
            *(bool *)field = true;
        else if (d->kind == O_NUM)
            *(double *)field = arg_double(a, argv[++i]);
        else if (d->kind == O_INT)
            *(int *)field = (int)arg_long(a, argv[++i], d->lo, d->hi);
        else if (d->kind == O_STR)
            *(const char **)field = argv[++i];
        else
            special_arg(o, a, argv[++i]);
    }
}

/* ---- set-up ---------------------------------------------------------------------------- */

static void resolve_algos(opts_t *o);

/* Defaults that depend on the network, and every check that needs it. */
static void finish_setup(opts_t *o)
{
    if (!o->have_net)
        die("no network: give --mesh, --torus, --hypercube or --full");
    if (o->coll == IC_COLL_COUNT)
        die("no collective: give --coll NAME");
    o->net.all_port = o->all_port;
    o->net.setup_overlap = o->setup_overlap;
    o->net.contention = !o->no_contention;
    o->net.beta_net = o->beta_net;
    o->net.hop = o->hop;
    o->net.switching = o->sw;
    long nodes = ic_net_nodes(&o->net, 0);
    if (!o->ranks)
        o->ranks = o->nplace ? o->nplace : (int)nodes;
    if (o->nplace && o->nplace != o->ranks)
        die("--place: %d entries for %d ranks", o->nplace, o->ranks);
    o->net.place = o->place;
    if (!o->place && o->ranks > nodes)
        die("--ranks %d: the network has %ld nodes (--place can put several ranks on one node)",
            o->ranks, nodes);
    if (ic_net_check(&o->net, o->ranks) != IC_OK)
        die("--ranks %d / --place: %s", o->ranks, ic_last_error());
    if (o->root >= o->ranks)
        die("--root %d: want 0..%d", o->root, o->ranks - 1);
    if (!o->logical.d && o->net.kind != IC_NET_FULL && nodes == o->ranks) {
        o->logical.d = o->net.ndims;
        for (int k = 0; k < o->net.ndims; k++)
            o->logical.dims[k] = o->net.dims[k];
    }
    if (o->logical.d && ic_mesh_size(&o->logical) != o->ranks)
        die("--logical: %ld ranks in the mesh, but the communicator has %d",
            ic_mesh_size(&o->logical), o->ranks);
    /* The logical mesh is the physical one: the cost model prices shared
     * links (ic_model_params_t.beta_net), unless --price-no-links. */
    bool same = !o->place && o->net.kind != IC_NET_FULL && o->logical.d == o->net.ndims;
    for (int k = 0; same && k < o->logical.d; k++)
        same = o->logical.dims[k] == o->net.dims[k];
    if (same && o->net.contention && !o->price_no_links)
        o->m.beta_net = o->beta_net > 0 ? o->beta_net : o->m.beta;
    if (o->coll == IC_COLL_BARRIER) /* no vector: one run */
        o->nsizes = 0;
    if (!o->nsizes)
        parse_sizes(o, o->coll == IC_COLL_BARRIER ? "1" : "8:64M:8");
    if (o->picture &&
        ((o->net.kind != IC_NET_MESH && o->net.kind != IC_NET_TORUS) || o->net.ndims != 2))
        die("--picture: needs a 2-D --mesh or --torus");
    if ((o->pic_algo || o->pic_size || o->pic_step) && !o->picture)
        die("--picture-algo/--picture-size/--picture-step: give --picture FILE.png too");
    resolve_algos(o);
}

#define BIT(c) (1u << (c))
/* Collectives whose n is the total of p blocks, those with a root, those
 * that reduce, the v-forms (given equal counts). */
static const unsigned blocks_set =
    BIT(IC_COLL_SCATTER) | BIT(IC_COLL_SCATTERV) | BIT(IC_COLL_GATHER) | BIT(IC_COLL_GATHERV) |
    BIT(IC_COLL_ALLGATHER) | BIT(IC_COLL_ALLGATHERV) | BIT(IC_COLL_ALLTOALL) |
    BIT(IC_COLL_ALLTOALLV) | BIT(IC_COLL_REDUCE_SCATTER_BLOCK) | BIT(IC_COLL_REDUCE_SCATTER);
static const unsigned rooted_set = BIT(IC_COLL_BCAST) | BIT(IC_COLL_REDUCE) | BIT(IC_COLL_SCATTER) |
                                   BIT(IC_COLL_SCATTERV) | BIT(IC_COLL_GATHER) |
                                   BIT(IC_COLL_GATHERV);
static const unsigned sum_set = BIT(IC_COLL_REDUCE) | BIT(IC_COLL_ALLREDUCE) | BIT(IC_COLL_SCAN) |
                                BIT(IC_COLL_EXSCAN) | BIT(IC_COLL_REDUCE_SCATTER_BLOCK) |
                                BIT(IC_COLL_REDUCE_SCATTER);
static const unsigned v_set = BIT(IC_COLL_SCATTERV) | BIT(IC_COLL_GATHERV) |
                              BIT(IC_COLL_ALLGATHERV) | BIT(IC_COLL_REDUCE_SCATTER);

static bool per_rank_blocks(ic_coll_t c)
{
    return blocks_set & BIT(c);
}

/* Elements per rank (block collectives) or in the vector for n bytes. */
static size_t count_of(const opts_t *o, size_t n)
{
    size_t es = ic_datatype_size(o->dtype);
    size_t c = per_rank_blocks(o->coll) ? n / (size_t)o->ranks / es : n / es;
    return o->coll == IC_COLL_BARRIER ? 0 : c ? c : 1;
}

/* Every rank's arguments for n bytes: equal counts for the v-forms. */
typedef struct call {
    ic_coll_args_t *args;
    size_t *counts;
} call_t;

static void call_free(call_t *c)
{
    free(c->args);
    free(c->counts);
}

static ic_status_t call_init(call_t *c, const opts_t *o, size_t n)
{
    size_t p = (size_t)o->ranks, count = count_of(o, n);
    c->args = calloc(p, sizeof(*c->args));
    c->counts = malloc(p * sizeof(size_t));
    if (!c->args || !c->counts) {
        call_free(c);
        return ic_set_error(IC_ERR_NO_MEM, "intercom-sim: out of memory for %zu ranks", p);
    }
    bool v = v_set & BIT(o->coll);
    for (size_t r = 0; r < p; r++) {
        ic_coll_args_t *a = &c->args[r];
        c->counts[r] = count;
        a->coll = o->coll;
        a->dtype = o->dtype;
        a->op = IC_SUM;
        a->root = o->root;
        a->count = count;
        a->counts = v ? c->counts : NULL;
        a->scounts = a->rcounts = c->counts;
        a->model = o->m;
        a->mesh = o->logical.d ? &o->logical : NULL;
    }
    return IC_OK;
}

static void push_name(opts_t *o, const char *name)
{
    const char **nm = realloc(o->names, ((size_t)o->nnames + 1) * sizeof(*nm));
    if (!nm)
        die("--algos: out of memory");
    o->names = nm;
    o->names[o->nnames++] = name;
}

/* --algos into names: "auto", catalog names (checked: they exist and
 * apply), "all" for every applicable entry. */
static void resolve_algos(opts_t *o)
{
    call_t c;
    if (call_init(&c, o, o->sizes[0]) != IC_OK)
        die("%s", ic_last_error());
    const char *spec = o->algos ? o->algos : "auto";
    size_t ncat, len;
    if (!*spec || spec[strlen(spec) - 1] == ',')
        die("--algos: empty name in '%s'", spec);
    const ic_algo_t *cat = ic_catalog(&ncat);
    for (const char *s = spec; *s; s += len + (s[len] == ',')) {
        len = strcspn(s, ",");
        if (!len)
            die("--algos: empty name in '%s'", spec);
        const ic_algo_t *al = NULL;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, s);
        if (!strcmp(name, "auto"))
            push_name(o, "auto");
        else if (!strcmp(name, "all"))
            for (size_t k = 0; k < ncat; k++) {
                if (ic_algo_applies(&cat[k], &c.args[0], o->ranks))
                    push_name(o, cat[k].name);
            }
        else if (ic_catalog_force("--algos", &c.args[0], o->ranks, name, &al) == IC_OK)
            push_name(o, al->name);
        else
            die("%s", ic_last_error());
    }
    const ic_algo_t *al;
    if (o->pic_algo &&
        ic_catalog_force("--picture-algo", &c.args[0], o->ranks, o->pic_algo, &al) != IC_OK)
        die("%s", ic_last_error());
    call_free(&c);
}

/* ---- running --------------------------------------------------------------------------- */

/* Real buffers for --check: send buffers ptr[0..p-1], receive buffers
 * ptr[p..2p-1], their sizes in bytes[], filled with small values. */
typedef struct bufs {
    void **ptr;
    size_t *bytes;
} bufs_t;

static void bufs_free(bufs_t *b, int p)
{
    for (int i = 0; b->ptr && i < 2 * p; i++)
        free(b->ptr[i]);
    free(b->ptr);
    free(b->bytes);
}

static void fill(void *buf, size_t bytes, ic_datatype_t dt, int r)
{
    for (size_t i = 0; i < bytes / ic_datatype_size(dt); i++) {
        int v = (int)(((size_t)r * 7 + i) % 5);
        if (dt == IC_FLOAT)
            ((float *)buf)[i] = (float)v;
        else if (dt == IC_DOUBLE)
            ((double *)buf)[i] = v;
        else if (dt == IC_INT32)
            ((int32_t *)buf)[i] = v;
        else
            ((uint8_t *)buf)[i] = (uint8_t)v;
    }
}

static int bufs_init(bufs_t *b, const call_t *c, int p)
{
    const size_t limit = (size_t)8 << 30;
    size_t total = 0;
    b->ptr = calloc(2 * (size_t)p, sizeof(void *));
    b->bytes = calloc(2 * (size_t)p, sizeof(size_t));
    if (!b->ptr || !b->bytes)
        return ic_set_error(IC_ERR_NO_MEM, "--check: out of memory");
    for (int r = 0; r < p; r++) {
        ic_args_buffer_bytes(&c->args[r], r, p, &b->bytes[r], &b->bytes[p + r]);
        total += b->bytes[r] + b->bytes[p + r];
    }
    if (total > limit)
        return ic_set_error(IC_ERR_NO_MEM,
                            "--check: the buffers would take %zu MiB (more than %zu MiB): use "
                            "smaller --sizes or fewer --ranks",
                            total >> 20, limit >> 20);
    for (int i = 0; i < 2 * p; i++) {
        if (!(b->ptr[i] = malloc(b->bytes[i] + 1)))
            return ic_set_error(IC_ERR_NO_MEM, "--check: out of memory for the buffers");
        fill(b->ptr[i], b->bytes[i], c->args[i % p].dtype, i % p);
    }
    return IC_OK;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The logical mesh a mesh-aware entry ran on: the one ic_plan_build decides
 * (forced, on the user's mesh when there is one; auto, the cheapest shape). */
static void shape_of(const opts_t *o, const ic_coll_args_t *a, const char *algo, char *buf,
                     size_t len)
{
    const ic_algo_t *forced = NULL;
    ic_choice_t best;
    buf[0] = '\0';
    ic_catalog_force("intercom-sim", a, o->ranks, algo, &forced); /* NULL for auto */
    ic_decide(a, o->ranks, forced, &o->m, &best, NULL, 0);
    if (!(best.al->flags & IC_ALGO_MESH))
        return;
    const ic_mesh_t *sh = best.mesh.d ? &best.mesh : a->mesh;
    for (int k = 0, used = 0; sh && k < sh->d && used < (int)len; k++)
        used += snprintf(buf + used, len - (size_t)used, "%s%d", k ? "x" : "", sh->dims[k]);
}

/* One run of algo at n bytes into *out; ct keeps the contention report
 * (the caller frees it).  Returns the engine's status. */
static ic_status_t run_one(const opts_t *o, const char *algo, size_t n, size_t pic_step,
                           cell_t *out, ic_sim_contention_t *ct)
{
    call_t c;
    bufs_t b = {0};
    *ct = (ic_sim_contention_t){0};
    ic_status_t st = call_init(&c, o, n);
    if (st != IC_OK)
        return st;
    if (o->check)
        st = bufs_init(&b, &c, o->ranks);
    ic_sim_job_t job = {0};
    job.size = o->ranks;
    job.args = c.args;
    job.algo = algo;
    job.caller = "intercom-sim";
    if (b.ptr) {
        job.sendbuf = b.ptr;
        job.recvbuf = b.ptr + o->ranks;
        job.sendbytes = b.bytes;
        job.recvbytes = b.bytes + o->ranks;
    }
    ic_sim_result_t res = {0};
    ct->picture_step = pic_step;
    res.contention = ct;
    double t0 = now();
    if (st == IC_OK)
        st = ic_sim_run_net(o->ranks, &o->m, &o->net, &job, 1, o->check, &res);
    if (st == IC_OK) {
        *out = (cell_t){res.time, now() - t0, ct->max_load, res.msgs, res.bytes, job.chosen, ""};
        shape_of(o, &c.args[0], algo, out->shape, sizeof out->shape);
    }
    bufs_free(&b, o->ranks);
    call_free(&c);
    return st;
}

/* A progress line on stderr: while it runs when stderr is a terminal, and
 * kept when the run took more than half a second. */
static void progress(const opts_t *o, bool before, size_t k, size_t total, const char *algo,
                     size_t n, double wall)
{
    static bool tty = false, asked = false;
    if (!asked)
        tty = isatty(STDERR_FILENO), asked = true;
    if (o->quiet || (before && !tty) || (!before && !tty && wall <= 0.5))
        return;
    char nb[32];
    sim_plot_fmt_bytes(n, nb, sizeof nb);
    if (before || !tty)
        fprintf(stderr, "[%zu/%zu] %s %s %s ...", k, total, ic_coll_name(o->coll), algo, nb);
    if (!before)
        fprintf(stderr, wall > 0.5 ? " %.1f s\n" : "\r\033[K", wall);
}

static void engine_failed(const opts_t *o, const char *algo, size_t n)
{
    fprintf(stderr, "intercom-sim: %s %s n = %zu: %s\n", ic_coll_name(o->coll), algo, n,
            ic_last_error());
}

/* ---- output ---------------------------------------------------------------------------- */

static void print_header(const opts_t *o)
{
    char d[256];
    ic_net_describe(&o->net, d, sizeof d);
    printf("network:  %s; %d ranks on %ld nodes (%s placement)", d, o->ranks,
           ic_net_nodes(&o->net, o->ranks), o->place ? "--place" : "identity");
    if (o->net.kind != IC_NET_FULL)
        printf("; hop %g us, link %g us/B", o->net.hop,
               o->net.beta_net > 0 ? o->net.beta_net : o->m.beta);
    printf("\nmodel:    alpha %g us, beta %g us/B, gamma %g us/B, delta %g us/B", o->m.alpha,
           o->m.beta, o->m.gamma, o->m.delta);
    if (o->m.beta_net > 0)
        printf("; shared links priced at %g us/B (logical mesh = physical)", o->m.beta_net);
    printf("\n");
    ic_coll_t c = o->coll;
    printf("coll:     %s of %s%s", ic_coll_name(c), ic_datatype_name(o->dtype),
           sum_set & BIT(c) ? " (sum)" : "");
    if (rooted_set & BIT(c))
        printf(", root %d", o->root);
    printf("; %s\n", c == IC_COLL_BARRIER ? "no data"
                     : per_rank_blocks(c) ? "n = total bytes (n/p per rank, at least one element)"
                                          : "n = vector length in bytes");
    printf("logical:  ");
    for (int k = 0; k < o->logical.d; k++)
        printf("%s%d", k ? " x " : "", o->logical.dims[k]);
    printf("%s\n", o->logical.d ? "" : "none (mesh-aware entries take the cost model's shape)");
}

/* The fastest of one size's runs: a named entry before auto on a tie. */
static const char *fastest(const opts_t *o, const cell_t *row, int autoc)
{
    int best = -1;
    for (int a = 0; a < o->nnames; a++)
        if (best < 0 || row[a].time < row[best].time ||
            (best == autoc && row[a].time == row[best].time))
            best = a;
    return o->names[best];
}

/* One cell of the table: its text (NULL: the separator) in width w. */
static void cell(const char *text, int w, bool left)
{
    static const char dashes[] = "----------------------------------------------------------";
    if (!text)
        printf(left ? ":%.*s|" : "%.*s:|", w + 1, dashes);
    else
        printf(left ? " %-*s |" : " %*s |", w, text);
}

/* The table: n, per-rank block, one column per algorithm (time and max
 * link load), the selector's choice when auto ran, the fastest. */
static void print_table(const opts_t *o, const cell_t *res)
{
    bool blocks = per_rank_blocks(o->coll), links = ic_net_links(&o->net, o->ranks) > 0;
    int na = o->nnames, autoc = -1, wt = links ? 16 : 11, wc = 10, wf = 7;
    char t[64], u[64];
    for (int a = 0; a < na; a++) {
        autoc = autoc < 0 && !strcmp(o->names[a], "auto") ? a : autoc;
        wf = (int)strlen(o->names[a]) > wf ? (int)strlen(o->names[a]) : wf;
    }
    for (size_t i = 0; autoc >= 0 && i < o->nsizes; i++) {
        const cell_t *x = &res[i * (size_t)na + (size_t)autoc];
        int l = (int)(strlen(x->chosen) + 1 + strlen(x->shape));
        wc = l > wc ? l : wc;
    }
    printf("\nsimulated time%s per algorithm; n = %s\n\n", links ? " (max link load)" : "",
           blocks ? "total bytes, per rank = n/p" : "vector length in bytes");
    for (size_t i = 0; i < o->nsizes + 2; i++) { /* header, separator, sizes */
        const cell_t *row = i > 1 ? &res[(i - 2) * (size_t)na] : NULL;
        size_t n = i > 1 ? o->sizes[i - 2] : 0;
        sim_plot_fmt_bytes(n, t, sizeof t);
        sim_plot_fmt_bytes(count_of(o, n) * ic_datatype_size(o->dtype), u, sizeof u);
        printf("|");
        cell(i == 0 ? "n" : i == 1 ? NULL : o->coll == IC_COLL_BARRIER ? "-" : t, 7, false);
        if (blocks)
            cell(i == 0 ? "per rank" : i == 1 ? NULL : u, 8, false);
        for (int a = 0; a < na; a++) {
            int w = (int)strlen(o->names[a]) > wt ? (int)strlen(o->names[a]) : wt;
            if (row)
                sim_plot_fmt_time(row[a].time, u, sizeof u);
            if (row)
                snprintf(t, sizeof t, links ? "%s (%u)" : "%s", u, row[a].load);
            cell(i == 0 ? o->names[a] : row ? t : NULL, w, false);
        }
        if (autoc >= 0 && row)
            snprintf(t, sizeof t, "%s %s", row[autoc].chosen, row[autoc].shape);
        if (autoc >= 0)
            cell(i == 0 ? "auto chose" : row ? t : NULL, wc, true);
        if (na > 1)
            cell(i == 0 ? "fastest" : row ? fastest(o, row, autoc) : NULL, wf, true);
        printf("\n");
    }
}

static int write_plot(const opts_t *o, const cell_t *res)
{
    size_t n = o->nsizes * (size_t)o->nnames;
    double *t = malloc(n * sizeof(double));
    if (!t)
        return -1;
    for (size_t i = 0; i < n; i++)
        t[i] = res[i].time;
    char title[512], d[256];
    ic_net_describe(&o->net, d, sizeof d);
    snprintf(title, sizeof title, "%s on %s, %d ranks", ic_coll_name(o->coll), d, o->ranks);
    int st = sim_plot_sweep(o->plot, o->title ? o->title : title,
                            per_rank_blocks(o->coll) ? "n (total bytes, n/p per rank)"
                                                     : "n (vector length)",
                            o->nsizes, o->sizes, o->nnames, o->names, t);
    free(t);
    return st == SIM_PLOT_FAILED ? -1 : 0;
}

/* --picture: one run of the picture algorithm with its step table, then the
 * drawing of step K.  Returns the exit status. */
static int do_picture(const opts_t *o)
{
    const char *algo = o->pic_algo ? o->pic_algo : o->names[0];
    size_t n = o->pic_size ? o->pic_size : o->sizes[0];
    ic_sim_contention_t ct;
    cell_t x;
    if (run_one(o, algo, n, (size_t)o->pic_step, &x, &ct) != IC_OK) {
        engine_failed(o, algo, n);
        ic_sim_contention_free(&ct);
        return 1;
    }
    char nb[32], t[32], ln[128];
    sim_plot_fmt_bytes(n, nb, sizeof nb);
    sim_plot_fmt_time(x.time, t, sizeof t);
    ic_net_link_name(&o->net, ct.max_link, ln, sizeof ln);
    printf("\npicture run: %s %s%s%s, n = %s: %s, %zu messages, %zu steps; max load %u on %s "
           "at step %zu\n",
           ic_coll_name(o->coll), x.chosen, x.shape[0] ? " on " : "", x.shape, nb, t, x.msgs,
           ct.nsteps, ct.max_load, ln, ct.max_step);
    sim_plot_steps(&o->net, &ct, (size_t)o->pic_step);
    if (!ct.link_load || (size_t)o->pic_step >= ct.nsteps) {
        fprintf(stderr, "intercom-sim: --picture-step %d: the run has %zu steps (0..%zu)\n",
                o->pic_step, ct.nsteps, ct.nsteps ? ct.nsteps - 1 : 0);
        ic_sim_contention_free(&ct);
        return 2;
    }
    const ic_sim_step_load_t *k = &ct.steps[o->pic_step];
    char title[640];
    sim_plot_fmt_time(k->t, t, sizeof t);
    snprintf(title, sizeof title, "%s%s%s %s, n = %s: step %d of %zu at %s, max load %u",
             o->title ? o->title : "", o->title ? ": " : "", ic_coll_name(o->coll), x.chosen, nb,
             o->pic_step, ct.nsteps, t, k->max_load);
    int ps = sim_plot_links(o->picture, title, &o->net, ct.link_load, ct.nlinks);
    ic_sim_contention_free(&ct);
    return ps == SIM_PLOT_FAILED ? 1 : 0;
}

static void csv_row(FILE *f, const opts_t *o, const char *algo, size_t n, const cell_t *x)
{
    fprintf(f, "%s,%s,%s,%zu,%.6f,%u,%zu,%zu,%.6f\n", ic_coll_name(o->coll), algo, x->chosen, n,
            x->time, x->load, x->msgs, x->bytes, x->wall);
}

/* Every size and algorithm into res; returns the exit status. */
static int sweep(const opts_t *o, cell_t *res, FILE *csv)
{
    size_t na = (size_t)o->nnames, total = o->nsizes * na;
    for (size_t i = 0; i < o->nsizes; i++)
        for (size_t a = 0; a < na; a++) {
            ic_sim_contention_t ct;
            cell_t *x = &res[i * na + a];
            progress(o, true, i * na + a + 1, total, o->names[a], o->sizes[i], 0);
            ic_status_t st = run_one(o, o->names[a], o->sizes[i], SIZE_MAX, x, &ct);
            ic_sim_contention_free(&ct);
            progress(o, false, i * na + a + 1, total, o->names[a], o->sizes[i], x->wall);
            if (st != IC_OK) {
                engine_failed(o, o->names[a], o->sizes[i]);
                return 1;
            }
            if (csv)
                csv_row(csv, o, o->names[a], o->sizes[i], x);
        }
    return 0;
}

int main(int argc, char **argv)
{
    opts_t o = {0};
    o.m = (ic_model_t){100, 0.01, 0.005, 0, 0}; /* microseconds */
    o.dtype = IC_UINT8;
    o.net = ic_net_full();
    o.coll = IC_COLL_COUNT;
    parse_args(&o, argc, argv);
    finish_setup(&o);
    FILE *csv = NULL;
    if (o.csv && !(csv = fopen(o.csv, "w")))
        die("--csv %s: %s", o.csv, strerror(errno));
    if (csv)
        fprintf(csv, "coll,algo,chosen,bytes,time_us,max_link_load,msgs,bytes_sent,wall_s\n");
    print_header(&o);
    cell_t *res = calloc(o.nsizes * (size_t)o.nnames, sizeof(*res));
    int rc = res ? sweep(&o, res, csv) : 1;
    if (rc == 0)
        print_table(&o, res);
    if (csv && fclose(csv) && rc == 0) {
        fprintf(stderr, "intercom-sim: writing %s failed\n", o.csv);
        rc = 1;
    }
    if (rc == 0 && o.plot && write_plot(&o, res))
        rc = 1;
    if (rc == 0 && o.picture)
        rc = do_picture(&o);
    free(res);
    free(o.sizes);
    free(o.place);
    free(o.names);
    return rc;
}
