/*
 * sim_options.h — intercom-sim's command line: the options, their checks
 * and defaults (sim_options.c), and every rank's arguments for one size.
 */
#ifndef IC_TOOLS_SIM_OPTIONS_H
#define IC_TOOLS_SIM_OPTIONS_H

#include "select/catalog.h"
#include "sim/engine.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct opts {
    ic_net_t net;
    bool have_net, all_port, no_contention, setup_overlap, price_no_links, check, quiet;
    bool exact;        /* --exact: CSV times with 17 significant digits */
    bool no_placement; /* --no-placement: args.phys stays NULL */
    bool dateline;     /* --dateline: a torus's links are two virtual channels */
    bool reproducible; /* --reproducible: IC_REPRODUCIBLE's canonical-order entries only */
    double beta_net, hop;
    ic_switching_t sw;
    ic_model_t m;
    int ranks, nplace, root, pic_step;
    int ports; /* --ports K (0: not given; IC_PORTS_ALL: --ports all) */
    int *place;
    ic_mesh_t logical; /* d == 0: none */
    ic_coll_t coll;    /* IC_COLL_COUNT: not given */
    ic_datatype_t dtype;
    const char *algos, *csv, *plot, *title, *picture, *pic_algo;
    size_t *sizes, nsizes, pic_size; /* pic_size 0: the first size */
    const char **names;              /* the algorithms, resolved */
    int nnames;
} opts_t;

/* Parses and checks argv into *o with every default filled in and the
 * algorithms resolved; exits with status 2 (message and synopsis) on a
 * bad option, 0 after --help. */
void parse_options(opts_t *o, int argc, char **argv);
void free_options(opts_t *o);

/* A bad option or value: the message, the synopsis, exit status 2. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* n is the total of p blocks (the other collectives: the vector length);
 * the collective has a root; it reduces (sums). */
bool per_rank_blocks(ic_coll_t c);
bool coll_rooted(ic_coll_t c);
bool coll_sums(ic_coll_t c);
/* Elements per rank (block collectives) or in the vector for n bytes. */
size_t count_of(const opts_t *o, size_t n);

/* Every rank's arguments for n bytes: equal counts for the v-forms. */
typedef struct call {
    ic_coll_args_t *args;
    size_t *counts;
    ic_phys_t *phys; /* where the ranks sit (kind IC_PHYS_NONE: unknown) */
    int *node_of;
} call_t;

ic_status_t call_init(call_t *c, const opts_t *o, size_t n);
void call_free(call_t *c);

#endif
