/*
 * sim_options.c — intercom-sim's command line (sim_options.h): the
 * synopsis and help, parsing and checking every option, the defaults that
 * depend on the network, and the algorithms named by --algos.
 */
#define _GNU_SOURCE
#include "sim_options.h"

#include "base/status.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: intercom-sim (--mesh AxB.. | --torus AxB.. | --utorus AxB.. | --hypercube D |\n"
    "                     --full P)\n"
    "         [--alpha US] [--beta US_PER_B] [--beta-net US_PER_B] [--gamma US_PER_B]\n"
    "         [--delta US_PER_B] [--hop US] [--switching wormhole|circuit|store-forward]\n"
    "         [--all-port | --ports K|all] [--no-contention] [--setup-overlap]\n"
    "         [--place FILE] [--ranks P] [--logical AxB..] [--price-no-links]\n"
    "         [--no-placement] [--reproducible] [--dateline]\n"
    "         --coll NAME [--algos a,b,c | auto | all] [--sizes LIST]\n"
    "         [--elem uint8|float|double|int32] [--root R]\n"
    "         [--csv FILE] [--plot FILE.png] [--title TEXT]\n"
    "         [--picture FILE.png [--picture-algo NAME] [--picture-size BYTES]\n"
    "          [--picture-step K]] [--check] [--exact] [--quiet]\n";

static const char help_text[] =
    "\n"
    "  network    --mesh/--torus AxB..: nodes in row-major order, the last dimension\n"
    "             fastest; --utorus AxB..: a torus whose links go up only;\n"
    "             --dateline (tori): two virtual channels per link, \"p\" for messages\n"
    "             that will still wrap round, \"h\" for the others ([MTR94] fig. 18)\n"
    "             --hypercube D: 2^D nodes; --full P: P nodes, all joined\n"
    "  model      alpha 100 us, beta 0.01 us/B (a node's per-byte time), gamma 0.005,\n"
    "             delta 0 us/B by default; --beta-net: one link's per-byte time\n"
    "             (default beta); --hop: time per link of a path (default 0)\n"
    "  switching  wormhole (default), circuit or store-forward; nodes are one-port\n"
    "             unless --all-port (--ports all) or --ports K (k-port: a node sends at\n"
    "             most K messages and receives at most K at once; --ports 1 is one-port);\n"
    "             links are shared unless --no-contention;\n"
    "             --setup-overlap: circuits, one-port: a node sets up its next\n"
    "             circuit while its current message moves ([BR90] 3.3)\n"
    "  --place    node of each rank, whitespace separated (default rank r on node r)\n"
    "  --ranks    communicator size (default all nodes, or the --place entries)\n"
    "  --price-no-links  the cost model (selector, hybrids) ignores shared links; by\n"
    "             default, when the logical mesh is the physical one and links are shared,\n"
    "             it prices them (ic_model_params_t.beta_net)\n"
    "  --no-placement  the plans are not told where the ranks sit (ic_coll_args_t.phys),\n"
    "             so the U-mesh/U-torus/U-cube entries do not apply\n"
    "  --reproducible  as IC_REPRODUCIBLE=1: reductions only by the entries that\n"
    "             combine in the canonical order (docs/reproducibility.md)\n"
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
    "  --exact    times in the CSV with 17 significant digits, enough to compare two\n"
    "             engines bit for bit (scripts/sim_same.sh)\n"
    "  --quiet    no progress lines on stderr\n";

/* A bad option or value: the message, the synopsis, exit status 2. */
void die(const char *fmt, ...)
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
    else if (!strcmp(a, "--ports"))
        o->ports = !strcmp(v, "all") ? IC_PORTS_ALL : (int)arg_long(a, v, 1, 1L << 20);
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
    {"--reproducible", O_FLAG, F(reproducible), 0, 0},
    {"--check", O_FLAG, F(check), 0, 0},       {"--setup-overlap", O_FLAG, F(setup_overlap), 0, 0},       {"--quiet", O_FLAG, F(quiet), 0, 0},
    {"--exact", O_FLAG, F(exact), 0, 0},
    {"--alpha", O_NUM, F(m.alpha), 0, 0},      {"--beta", O_NUM, F(m.beta), 0, 0},
    {"--gamma", O_NUM, F(m.gamma), 0, 0},      {"--delta", O_NUM, F(m.delta), 0, 0},
    {"--beta-net", O_NUM, F(beta_net), 0, 0},  {"--hop", O_NUM, F(hop), 0, 0},
    {"--ranks", O_INT, F(ranks), 1, 1L << 30}, {"--root", O_INT, F(root), 0, 1L << 30},
    {"--picture-step", O_INT, F(pic_step), 0, 1L << 30},
    {"--algos", O_STR, F(algos), 0, 0},        {"--csv", O_STR, F(csv), 0, 0},
    {"--plot", O_STR, F(plot), 0, 0},          {"--title", O_STR, F(title), 0, 0},
    {"--picture", O_STR, F(picture), 0, 0},    {"--picture-algo", O_STR, F(pic_algo), 0, 0},
    {"--mesh", O_SPECIAL, 0, 0, 0},    {"--torus", O_SPECIAL, 0, 0, 0},
    {"--utorus", O_SPECIAL, 0, 0, 0},  {"--no-placement", O_FLAG, F(no_placement), 0, 0},
    {"--dateline", O_FLAG, F(dateline), 0, 0},
    {"--hypercube", O_SPECIAL, 0, 0, 0},   {"--full", O_SPECIAL, 0, 0, 0},
    {"--switching", O_SPECIAL, 0, 0, 0},   {"--place", O_SPECIAL, 0, 0, 0},
    {"--ports", O_SPECIAL, 0, 0, 0},
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
    if (o->all_port && o->ports && o->ports != IC_PORTS_ALL)
        die("--all-port and --ports %d: give one of them", o->ports);
    if (o->ports == IC_PORTS_ALL)
        o->all_port = true;
    o->net.all_port = o->all_port;
    o->net.ports = o->all_port ? 0 : o->ports;
    /* The selector and the entries that send several messages at once
     * price the same port count. */
    o->m.ports = o->all_port ? IC_PORTS_ALL : o->ports > 1 ? o->ports : 0;
    o->net.setup_overlap = o->setup_overlap;
    if (o->dateline && o->net.kind != IC_NET_TORUS)
        die("--dateline: virtual channels are for tori (--torus, --utorus)");
    o->net.dateline = o->dateline;
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

bool per_rank_blocks(ic_coll_t c)
{
    return blocks_set & BIT(c);
}

/* Elements per rank (block collectives) or in the vector for n bytes. */
size_t count_of(const opts_t *o, size_t n)
{
    size_t es = ic_datatype_size(o->dtype);
    size_t c = per_rank_blocks(o->coll) ? n / (size_t)o->ranks / es : n / es;
    return o->coll == IC_COLL_BARRIER ? 0 : c ? c : 1;
}

void call_free(call_t *c)
{
    free(c->args);
    free(c->counts);
    free(c->phys);
    free(c->node_of);
}

ic_status_t call_init(call_t *c, const opts_t *o, size_t n)
{
    size_t p = (size_t)o->ranks, count = count_of(o, n);
    c->args = calloc(p, sizeof(*c->args));
    c->counts = malloc(p * sizeof(size_t));
    c->phys = calloc(1, sizeof(*c->phys));
    c->node_of = malloc(p * sizeof(int));
    if (!c->args || !c->counts || !c->phys || !c->node_of) {
        call_free(c);
        return ic_set_error(IC_ERR_NO_MEM, "intercom-sim: out of memory for %zu ranks", p);
    }
    bool v = v_set & BIT(o->coll);
    /* Where the ranks sit, for the U-mesh / U-torus / U-cube entries. */
    if (!o->no_placement)
        ic_net_phys(&o->net, (int)p, NULL, c->node_of, c->phys);
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
        a->reproducible = o->reproducible;
        a->phys = c->phys->kind != IC_PHYS_NONE ? c->phys : NULL;
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

bool coll_rooted(ic_coll_t c)
{
    return rooted_set & BIT(c);
}
bool coll_sums(ic_coll_t c)
{
    return sum_set & BIT(c);
}

void parse_options(opts_t *o, int argc, char **argv)
{
    *o = (opts_t){0};
    o->m = (ic_model_t){.alpha = 100, .beta = 0.01, .gamma = 0.005}; /* microseconds */
    o->dtype = IC_UINT8;
    o->net = ic_net_full();
    o->coll = IC_COLL_COUNT;
    parse_args(o, argc, argv);
    finish_setup(o);
}

void free_options(opts_t *o)
{
    free(o->sizes);
    free(o->place);
    free(o->names);
}
