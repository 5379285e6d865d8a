/*
 * cost_alltoall.c — costs of the alltoall family (closed forms of the
 * headers of algo/bruck_alltoall.c, aap_alltoall.c, dr_alltoall.c,
 * quadrant_alltoall.c) under the papers' model; local copies (delta) are
 * not priced, as in cost.h.  Every rank of these plans sends and receives
 * one message of the same length per step (quadrant: every rank of a
 * stage, and one token between stages), so the steps add up exactly;
 * with more ranks than cores each step's bytes cost ceil(p / cores) times
 * more (ic_model_crowd), and the messages a rank posts together in one
 * round (pairwise, AAP: all p - 1; dimensional rings: a stage's m_k - 1)
 * share one start-up (ic_model_alpha_next).
 */
#include "algo/builders_alltoall.h"

#include <math.h>

static size_t block_bytes(const ic_coll_args_t *a)
{
    return a->count * ic_datatype_size(a->dtype);
}

double ic_cost_alltoall_bruck(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    ic_model_t all = ic_model_crowd(m, p); /* every rank, every step */
    m = &all;
    size_t b = block_bytes(a);
    double t = 0;
    if (b == 0)
        return 0;
    for (int dist = 1; dist < p; dist *= 2) {
        long moved = 0; /* relative indices 0 < r < p with this bit set */
        for (int r = 1; r < p; r++)
            moved += (r & dist) != 0;
        t += m->alpha + (double)moved * (double)b * m->beta +
             ic_msg_extra(m, (double)moved * (double)b);
    }
    return t;
}

/* For the v-form this rank's average block stands for every step (an
 * estimate, as the catalog's pairwise entry: other ranks' counts are not
 * known here). */
double ic_cost_alltoall_aap(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    ic_model_t all = ic_model_crowd(m, p); /* every rank, every step */
    m = &all;
    size_t b = block_bytes(a);
    if (a->coll == IC_COLL_ALLTOALLV) {
        const size_t *c = a->in_place || !a->scounts ? a->rcounts : a->scounts;
        size_t s = 0;
        for (int i = 0; c && i < p; i++)
            s += c[i];
        b = s / (size_t)p * ic_datatype_size(a->dtype);
    }
    /* Summed step by step as ic_cost_pairwise does, so that the two tie
     * exactly and the selector keeps the first (pairwise). */
    double t = 0;
    for (int k = 1; b > 0 && k < p; k++)
        t += (k == 1 ? m->alpha : ic_model_alpha_next(m, p)) + (double)b * m->beta +
             ic_msg_extra(m, (double)b);
    return t;
}

double ic_cost_alltoall_dr(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    ic_model_t all = ic_model_crowd(m, p); /* every rank, every step */
    m = &all;
    size_t b = block_bytes(a);
    ic_mesh_t line = ic_mesh_line(p);
    const ic_mesh_t *mesh = a->mesh && ic_mesh_size(a->mesh) == p ? a->mesh : &line;
    double t = 0;
    if (b == 0)
        return 0;
    for (int k = 0; k < mesh->d; k++) {
        /* Step by step, so the line {p} ties exactly with pairwise. */
        size_t bytes = (size_t)(p / mesh->dims[k]) * b;
        for (int u = 1; u < mesh->dims[k]; u++)
            t += (u == 1 ? m->alpha : ic_model_alpha_next(m, p)) + (double)bytes * m->beta +
                 ic_msg_extra(m, (double)bytes);
    }
    return t;
}

/* The stages run one after the other, a token (alpha) between two; with
 * links priced (beta_net > 0: the mesh is the physical one) every message
 * has its links to itself and moves at max(beta, beta_net) per byte. */
double ic_cost_alltoall_quadrant(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    ic_model_t all = ic_model_crowd(m, p); /* every rank, every step */
    m = &all;
    size_t b = block_bytes(a);
    bool own = a->mesh && ic_mesh_size(a->mesh) == p;
    int side = own ? ic_quadrant_side(a->mesh) : ic_quadrant_side_of(p);
    if (side == 0)
        return HUGE_VAL;
    if (b == 0)
        return 0;
    double beta = m->beta_net > m->beta ? m->beta_net : m->beta;
    double step = m->alpha + (double)(p / 4) * (double)b * beta +
                  ic_msg_extra(m, (double)(p / 4) * (double)b);
    return 3.0 * (side - 1) * step + (side - 2) * m->alpha;
}

/* This rank's average send block in bytes (0 without counts: the part of
 * the v-forms' cost every rank shares). */
static double avg_block(const ic_coll_args_t *a, int p)
{
    const size_t *c = a->in_place || !a->scounts ? a->rcounts : a->scounts;
    if (!c || p <= 0)
        return 0;
    double s = 0;
    for (int i = 0; i < p; i++)
        s += (double)c[i];
    return s / p * (double)ic_datatype_size(a->dtype);
}

/* Size exchange: rounds of n_k counts; data: rounds of n_k average
 * blocks, left out when they carry nothing. */
double ic_cost_alltoallv_bruck(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    ic_model_t all = ic_model_crowd(m, p); /* every rank, every step */
    m = &all;
    double b = avg_block(a, p), t = 0;
    for (int dist = 1; dist < p; dist *= 2) {
        long moved = 0;
        for (int r = 1; r < p; r++)
            moved += (r & dist) != 0;
        t += m->alpha + (double)moved * (double)sizeof(size_t) * m->beta;
        if (b > 0)
            t += m->alpha + (double)moved * b * m->beta + ic_msg_extra(m, (double)moved * b);
    }
    return t;
}

double ic_cost_alltoallv_dr(const ic_coll_args_t *a, int p, const ic_model_t *m)
{
    ic_model_t all = ic_model_crowd(m, p); /* every rank, every step */
    m = &all;
    double b = avg_block(a, p), t = 0;
    ic_mesh_t line = ic_mesh_line(p);
    const ic_mesh_t *mesh = a->mesh && ic_mesh_size(a->mesh) == p ? a->mesh : &line;
    for (int k = 0; k < mesh->d; k++) {
        double blocks = (double)(p / mesh->dims[k]);
        for (int u = 1; u < mesh->dims[k]; u++) {
            double alpha = u == 1 ? m->alpha : ic_model_alpha_next(m, p);
            t += alpha + blocks * (double)sizeof(size_t) * m->beta;
            if (b > 0)
                t += alpha + blocks * b * m->beta + ic_msg_extra(m, blocks * b);
        }
    }
    return t;
}
