/*
 * builders_alltoall.h — plan builders and cost functions of the alltoall family
 * (catalog rows in select/catalog_table.c), and the blocks they
 * compose (one per file: bruck_alltoall.c, aap_alltoall.c, dr_alltoall.c,
 * quadrant_alltoall.c).
 */
#ifndef IC_ALGO_BUILDERS_ALLTOALL_H
#define IC_ALGO_BUILDERS_ALLTOALL_H

#include "algo/builders.h"
#include "algo/mesh.h"

/* ---- blocks ------------------------------------------------------------ */

/* The block lengths of the v-form (alltoallv) of the forwarding
 * all-to-alls, Bruck and DR, whose members forward blocks of other
 * members.  A rank's own arguments give only its own send and receive
 * lengths, so a size exchange runs first: the same schedule on the send
 * counts (p size_t per member, every block sizeof(size_t) bytes, record
 * set), whose receive buffer collects, round by round, the counts of the
 * blocks this member will receive (the record).  The data plan then
 * replays the schedule with the recorded lengths:
 *   len0    bytes of the block for each member (the send side), p entries;
 *   rec     bytes of every block this member receives, in the order the
 *           size exchange received their counts (the record, in bytes);
 *   rlen    bytes expected from each member (the receive side), checked:
 *           a block of another length means the ranks' counts disagree;
 *   record  build the size exchange itself instead (len0, rec, rlen
 *           unused): sends from the send layout, each round's or step's
 *           counts to the receive buffer after the previous ones, no local
 *           copies; its receive buffer is the plan's buf_bytes[IC_BUF_RECV]
 *           bytes long. */
typedef struct ic_fwd_lens {
    const size_t *len0, *rec, *rlen;
    bool record;
} ic_fwd_lens_t;

/* bruck_alltoall.c — block j (b bytes) of member i's send layout reaches
 * block i of member j's receive layout in ceil(log2 n) rounds, for any n;
 * intermediate members forward blocks, so here every block has the same
 * length b (the v-form below takes the lengths of a size exchange). */
void ic_blk_bruck_alltoall(ic_plan_t *pl, const ic_view_t *v, ic_layout_t send,
                           ic_layout_t recv, size_t b);
/* The v-form (or its size exchange) with the lengths of f; false when the
 * recorded lengths are not f->rlen (nothing of the plan may then run). */
bool ic_blk_bruck_alltoallv(ic_plan_t *pl, const ic_view_t *v, ic_layout_t send,
                            ic_layout_t recv, const ic_fwd_lens_t *f);

/* aap_alltoall.c — the same exchange by direct messages in the step order
 * of algorithm AAP (dual: its dual-phase variant); n must be a power of
 * two.  Lengths per block as in ic_blk_pairwise_alltoall. */
void ic_blk_aap_alltoall(ic_plan_t *pl, const ic_view_t *v, ic_layout_t send,
                         const size_t *slen, ic_layout_t recv, const size_t *rlen, bool dual);
/* The n-1 partner masks of AAP on the 2^d-cube (member i's partner in
 * step s is i XOR masks[s]), in the order of the plain or the dual-phase
 * algorithm.  masks must hold 2^d - 1 entries; returns how many were
 * written (2^d - 1), or -1 for d outside 0..30. */
int ic_aap_masks(int d, bool dual, unsigned *masks);

/* dr_alltoall.c — the exchange on the logical mesh of the whole
 * communicator (rank is this rank), one stage per dimension; blocks of
 * b bytes each (the v-form below takes the lengths of a size exchange). */
void ic_blk_dr_alltoall(ic_plan_t *pl, const ic_mesh_t *mesh, int rank, ic_layout_t send,
                        ic_layout_t recv, size_t b);
/* The v-form (or its size exchange) with the lengths of f, as
 * ic_blk_bruck_alltoallv. */
bool ic_blk_dr_alltoallv(ic_plan_t *pl, const ic_mesh_t *mesh, int rank, ic_layout_t send,
                         ic_layout_t recv, const ic_fwd_lens_t *f);

/* quadrant_alltoall.c — the exchange on a side x side logical mesh
 * (side = 2^j, j >= 1, p = side^2; rank is this rank), quadruples on
 * rectangle corners, stepwise contention-free under dimension-ordered
 * routing; blocks of b bytes each (all-to-all, not the v-form). */
void ic_blk_quadrant_alltoall(ic_plan_t *pl, int side, int rank, ic_layout_t send,
                              ic_layout_t recv, size_t b);
/* The side 2^j (j >= 1) of a 2^j x 2^j mesh (dimensions of 1 ignored),
 * else 0; and the side of that square for p ranks (p = 4^j), else 0. */
int ic_quadrant_side(const ic_mesh_t *m);
int ic_quadrant_side_of(long p);
/* The quadrant exchange's schedule on a side x side mesh: global stage g
 * (0 <= g < side - 1) runs at the level of quadrants of side *h, and its
 * ranks (r, c) are those with (c - r) mod *h == *res.  False for g out of
 * range. */
bool ic_quadrant_stage(int side, int g, int *h, int *res);

/* bruck_alltoall.c, shared with dr_alltoall.c and quadrant_alltoall.c:
 * appends COPY steps moving n pieces of b bytes from src[i] to dst[i], one
 * step per run that is contiguous on both sides; pieces already in place
 * are skipped.  (A helper on locations; it would sit well in layout.c.) */
void ic_copy_runs(ic_plan_t *pl, const ic_loc_t *src, const ic_loc_t *dst, int n, size_t b);
/* True when the n pieces of b bytes at l[0..n-1] lie back to back. */
bool ic_locs_contiguous(const ic_loc_t *l, int n, size_t b);
/* The same for pieces of lengths len[0..n-1]. */
void ic_copy_runs_v(ic_plan_t *pl, const ic_loc_t *src, const ic_loc_t *dst, const size_t *len,
                    int n);
bool ic_locs_contiguous_v(const ic_loc_t *l, const size_t *len, int n);

/* ---- builders (coll_alltoall_family.c) --------------------------------- */

ic_status_t ic_build_alltoall_bruck(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_alltoall_aap(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_alltoall_aap_dual(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_alltoall_dr(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_alltoall_quadrant(ic_plan_t *pl, const ic_coll_args_t *a);
/* All-to-allv by Bruck and by DR: a->fwd_sizes must hold this rank's
 * record of the size exchange (in elements); IC_ERR_ARG (message set) when
 * it is missing or disagrees with a->rcounts. */
ic_status_t ic_build_alltoallv_bruck(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_alltoallv_dr(ic_plan_t *pl, const ic_coll_args_t *a);
/* Their size exchanges: send buffer this rank's send counts (p size_t;
 * in place the receive counts), receive buffer the record
 * (pl->buf_bytes[IC_BUF_RECV] bytes). */
ic_status_t ic_build_alltoallv_bruck_sizes(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_alltoallv_dr_sizes(ic_plan_t *pl, const ic_coll_args_t *a);

/* ---- cost functions (select/cost_alltoall.c) --------------------------- */

/* sum over rounds k of alpha + n_k*b*beta, n_k = #{0 < i < p : bit k of i}. */
double ic_cost_alltoall_bruck(const ic_coll_args_t *a, int p, const ic_model_t *m);
/* (p-1)*(alpha + b*beta); the v-form prices this rank's average block. */
double ic_cost_alltoall_aap(const ic_coll_args_t *a, int p, const ic_model_t *m);
/* sum over mesh dimensions k of (m_k - 1)*(alpha + (p/m_k)*b*beta). */
double ic_cost_alltoall_dr(const ic_coll_args_t *a, int p, const ic_model_t *m);
/* The v-forms: the size exchange (the same schedule with blocks of
 * sizeof(size_t) bytes) plus the schedule with this rank's average send
 * block for every block (the other ranks' counts are not known when
 * deciding); messages of no bytes are left out, so an exchange of nothing
 * costs the size exchange only.  With a->scounts NULL only the part every
 * rank shares (size exchange and start-ups), by which ic_decide ranks the
 * mesh shapes of dr so that all ranks take the same one. */
double ic_cost_alltoallv_bruck(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_alltoallv_dr(const ic_coll_args_t *a, int p, const ic_model_t *m);
/* 3*(S-1)*(alpha + (p/4)*b*beta) + (S-2)*alpha on the S x S mesh (S = 2^j);
 * HUGE_VAL on a mesh that is not 2^j x 2^j (never chosen). */
double ic_cost_alltoall_quadrant(const ic_coll_args_t *a, int p, const ic_model_t *m);

#endif
