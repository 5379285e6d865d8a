/*
 * builders_pipeline.h — plan builders, blocks and cost functions of the
 * pipeline family (catalog rows in select/catalog_table.c):
 * segmented pipelines along a chain and the dimension-ordered pipeline
 * (DOPL) of [Watts94] sections 6, 9 and 11, for very long vectors.
 *
 * The segment count k is chosen by ic_pipe_segments() from the model; the
 * builders (algo/coll_pipeline.c) and the cost functions
 * (select/cost_pipeline.c) both call it, so a price is always the price of
 * the plan that would be built.
 */
#ifndef IC_ALGO_BUILDERS_PIPELINE_H
#define IC_ALGO_BUILDERS_PIPELINE_H

#include "algo/builders.h"

#include <stdbool.h>

/* ---- segments ----------------------------------------------------------- */

/* Upper bound on the segments of one pipeline (tags and plan size). */
#define IC_PIPE_MAX_SEGMENTS 65536

/* Segments are cut at multiples of IC_PIPE_GRAIN bytes from the start of
 * the vector (cache lines; always whole elements): a granule is
 * ic_pipe_grain(es) elements, the lcm of IC_PIPE_GRAIN and es bytes. */
#define IC_PIPE_GRAIN 64
size_t ic_pipe_grain(size_t es);
/* Granules of count elements (the last one may be partial). */
size_t ic_pipe_units(size_t count, size_t es);

/* The segment count of a pipeline of m nodes moving count elements of es
 * bytes, per [Watts94] section 9 (k_alt = 1):
 *   k = sqrt((m-2) * n * rate / alpha),   n = count*es bytes,
 * rate = beta for a broadcast, beta+gamma for a reduction (section 11).
 * The real optimum is rounded to whichever neighbouring integer gives the
 * smaller time (m-1 + k-1)*(alpha + n/k*rate), then clamped to
 * [1, min(granules, IC_PIPE_MAX_SEGMENTS)]; m <= 2 gives 1, count 0 gives 0,
 * alpha <= 0 gives the upper clamp.  m > md->cores (> 0: more members than
 * the processors they share) gives 1: the stages cannot run at once, and
 * handing segments on through the scheduler made a 4-rank chain on 2
 * cores 1.5-3x slower than one message per hop
 * (docs/perf/oversubscribed.md).  Pure: no plan, no allocation. */
int ic_pipe_segments(int m, size_t count, size_t es, double rate, const ic_model_t *md);

/* A chain of two members as a stream of eager segments.  Where the
 * transport sends a one-way message inline up to its eager limit
 * (md->rndv_oneway_bytes >= md->rndv_bytes > 0, a core per member: shared
 * memory where single copy is dear, docs/perf/cma-cost.md), a vector of
 * more than rndv_bytes and less than share_bytes moves fastest between two
 * members cut into the fewest segments of at most rndv_bytes: the sender
 * pushes them back to back, each without a start-up of its own, and the
 * receiver copies (or combines) one while the sender copies the next in;
 * one message by rendezvous would pay the system call instead.  Priced
 * so (ic_cost_chain_bcast_time, ic_cost_chain_reduce_time: one alpha, the
 * last segment's second copy).  On the AMD EPYC VM a 2-rank bcast of
 * 32-128 KiB took 0.39-0.50 of its `mst` time so, 256 KiB 0.79; a reduce
 * of 32-256 KiB 0.47-0.77; from 512 KiB (shared copies) no gain, a 1 MiB
 * reduce 1.15x slower.  Returns that count, or 0 where it does not apply
 * (then a chain of two is one message, ic_pipe_segments). */
int ic_pipe_stream2_segments(size_t count, size_t es, const ic_model_t *md);
/* The segment count of a chain of m members: the stream's for m = 2 where
 * it applies, else ic_pipe_segments(). */
int ic_chain_segments(int m, size_t count, size_t es, double rate, const ic_model_t *md);

/* A cut of the vector into k segments (bytes): segment s at off[s],
 * len[s] bytes.  The granules are dealt out evenly, the first
 * (granules % k) segments holding one more; the last segment ends at the
 * vector's end (its last granule may be partial), so segment 0 is the
 * largest.  ic_pipe_seg_bytes(count, es, k, s) is len[s] (pure). */
size_t ic_pipe_seg_bytes(size_t count, size_t es, int k, int s);
typedef struct ic_segs {
    int k;
    size_t *off, *len;
} ic_segs_t;

/* Fills sg with the cut of count elements of es bytes into k segments
 * (arrays owned by the plan); false after an allocation failure. */
bool ic_segs_make(ic_plan_t *pl, ic_segs_t *sg, size_t count, size_t es, int k);

/* ---- blocks --------------------------------------------------------------- */

/* chain_bcast.c — the root's bytes at buf (cut as sg) reach buf on every
 * member, segment by segment along the chain root, root+1, ... (view
 * indices, wrapping).  Every SEND this rank adds also waits for step
 * after (-1: none).  Returns the index of this rank's last SEND, or after
 * when it adds none. */
long ic_blk_chain_bcast(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t buf,
                        const ic_segs_t *sg, long after);

/* The visiting order of the rank-ordered reduction chain of m members
 * ending at root (view indices) into seq (m+1 entries); returns the number
 * of hops h (seq[0..h]):
 *   root 0:      m-1, m-2, ..., 0                      (h = m-1)
 *   root m-1:    0, 1, ..., m-1                        (h = m-1)
 *   otherwise:   r, r+1, ..., m-1, r-1, ..., 0, r      (h = m; the root
 *                only sends its input first and receives the result last)
 * Every node except the first (and except the root when it is both ends)
 * combines its input with the incoming partial.  m = 1: h = 0. */
int ic_chain_reduce_order(int m, int root, int *seq);

/* chain_reduce.c — every member's input at in (cut as sg); the reduction
 * in view order ends at acc on the root (acc may equal in).  Non-roots use
 * scratch.  commutative: the operation commutes (saves a copy on the nodes
 * that append).  Every step this rank adds waits for step after (-1:
 * none).  Returns the index of this rank's last step, or after. */
long ic_blk_chain_reduce(ic_plan_t *pl, const ic_view_t *v, int root, ic_loc_t in,
                         ic_loc_t acc, const ic_segs_t *sg, bool commutative, long after);

/* chain_scan.c — prefix reduction in rank order of in into out (in may
 * equal out) along the chain 0 -> 1 -> ... -> n-1 (view indices), cut as
 * sg; exclusive: member i gets the members below it, member 0's out is not
 * written.  commutative: the operation commutes (saves a copy). */
void ic_blk_chain_scan(ic_plan_t *pl, const ic_view_t *v, ic_loc_t in, ic_loc_t out,
                       const ic_segs_t *sg, bool exclusive, bool commutative);

/* dopl.c — dimension-ordered pipelines on mesh (its size is pl->size).
 * Broadcast: the root's count elements of es bytes at buf reach buf on
 * every rank.  Reduce: every rank's input at in; the reduction in rank
 * order ends at acc on the root. */
void ic_blk_dopl_bcast(ic_plan_t *pl, const ic_mesh_t *mesh, int root, ic_loc_t buf,
                       size_t count, size_t es, const ic_model_t *md);
void ic_blk_dopl_reduce(ic_plan_t *pl, const ic_mesh_t *mesh, int root, ic_loc_t in,
                        ic_loc_t acc, size_t count, size_t es, bool commutative,
                        const ic_model_t *md);

/* dopl.c, k_alt >= 1 (bcast "dopl_alt"): the vector cut into kalt pieces
 * (ic_pipe_seg_bytes(count, es, kalt, x)); piece x pipelined along the
 * dimensions longer than 1 in the rotated order E[x], E[x+1], ... (mod D);
 * step t runs the chains of dimension E[t mod D] and the direct tail ->
 * head sends of piece t-D (< kalt-1); the last piece goes as plain DOPL.
 * kalt = 1 is the plain DOPL schedule (dopl.c's header). */
#define IC_DOPL_MAX_KALT 16
typedef struct ic_dopl_alt {
    int D;                   /* dimensions longer than 1 */
    int E[IC_MESH_MAX_DIMS]; /* their indices in the mesh, in order */
    int kalt;                /* pieces (>= 1) */
    int steps;               /* kalt + D - 1 (0 when D = 0) */
} ic_dopl_alt_t;
void ic_dopl_alt_init(ic_dopl_alt_t *s, const ic_mesh_t *mesh, int kalt);
/* What the node at coordinates c (root at rc) does at step t. */
typedef struct ic_dopl_role {
    int dim, m;  /* the step's dimension and its length */
    int pos;     /* position in its chain (0: head, the root's coordinate) */
    int piece;   /* piece its chain carries, -1: none */
    int wrap;    /* piece its chain's tail sends to the head, -1: none */
} ic_dopl_role_t;
void ic_dopl_alt_role(const ic_dopl_alt_t *s, const ic_mesh_t *mesh, const int *c, const int *rc,
                      int t, ic_dopl_role_t *r);
/* The step at which the node at c receives piece x through a chain (its
 * wrap step t-D when only a wrap brings it, -1 for the root). */
int ic_dopl_alt_recv_step(const ic_dopl_alt_t *s, const int *c, const int *rc, int x);
/* Piece x's bytes (returned) and byte offset (*off). */
size_t ic_dopl_alt_piece(size_t count, size_t es, int kalt, int x, size_t *off);
/* Segments of step t's wrap into the head at c: the cut its tail
 * received the piece with. */
int ic_dopl_alt_wrap_segs(const ic_dopl_alt_t *s, const ic_mesh_t *mesh, const int *c,
                          const int *rc, int t, size_t pcount, size_t es, const ic_model_t *md);
void ic_blk_dopl_alt_bcast(ic_plan_t *pl, const ic_mesh_t *mesh, int root, ic_loc_t buf,
                           size_t count, size_t es, const ic_model_t *md, int kalt);

/* ---- builders (algo/coll_pipeline.c) ------------------------------------ */

ic_status_t ic_build_bcast_chain(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_dopl(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_bcast_dopl_alt(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_chain(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_reduce_dopl(ic_plan_t *pl, const ic_coll_args_t *a);
ic_status_t ic_build_scan_chain(ic_plan_t *pl, const ic_coll_args_t *a);
/* The segment count of the chain scan: ic_pipe_segments over its p nodes
 * at beta + gamma (1 when the ranks outnumber the cores). */
int ic_scan_chain_segments(int p, size_t count, size_t es, const ic_model_t *md);

/* The mesh a pipeline entry follows: a->mesh when it has p ranks, else the
 * line {p}. */
ic_mesh_t ic_pipe_mesh(const ic_coll_args_t *a, int p);
/* The model the builders choose segments with: a->model, or m where
 * a->model is unset (all zero). */
const ic_model_t *ic_pipe_model(const ic_coll_args_t *a, const ic_model_t *m);

/* ---- costs (select/cost_pipeline.c) ------------------------------------- */

/* Chain broadcast over m nodes, k segments (ic_segs_make's cut):
 *   sum_s (alpha + len_s*beta) + (m-2)*(alpha + max_s len_s*beta)
 * (0 for m <= 1 or count 0). */
double ic_cost_chain_bcast_time(int m, size_t count, size_t es, int k, const ic_model_t *md);

/* Rank-ordered chain reduction of m nodes with root at view index root, k
 * segments: the engine's exact recurrence (ports and compute unit). */
double ic_cost_chain_reduce_time(int m, int root, size_t count, size_t es, int k,
                                 const ic_model_t *md);

double ic_cost_bcast_chain(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_bcast_dopl(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_bcast_dopl_alt(const ic_coll_args_t *a, int p, const ic_model_t *m);
/* [Watts94] section 9, T_DOPL-BROADCAST with k_alt pieces (k_i from
 * ic_pipe_segments for pieces of count/kalt elements, segments chosen
 * under md, priced under m):
 *   (kalt-1)(alpha + n/kalt*beta) + sum_{i<D} (ceil((kalt+D-1-i)/D)(m_i-1)
 *        + k_i - 1)(alpha + n/(kalt*k_i)*beta)  */
double ic_cost_dopl_alt_paper(const ic_mesh_t *mesh, size_t count, size_t es, int kalt,
                              const ic_model_t *md, const ic_model_t *m);
/* The k_alt in [2, IC_DOPL_MAX_KALT] minimising the paper's formula
 * (section 15.2: convex in k_alt); equal on every rank. */
int ic_dopl_alt_choose(const ic_mesh_t *mesh, size_t count, size_t es, const ic_model_t *md);
/* The engine's exact time of ic_blk_dopl_alt_bcast (a max-plus pass over
 * every node's ordered ports); the paper's formula when the pass would
 * need more than IC_DOPL_EXACT_CAP node-segments. */
#define IC_DOPL_EXACT_CAP (1L << 22)
#define IC_DOPL_SELECT_CAP (1L << 16) /* ic_cost_bcast_dopl_alt's cap */
double ic_cost_dopl_alt_time(const ic_mesh_t *mesh, int root, size_t count, size_t es, int kalt,
                             const ic_model_t *md, const ic_model_t *m);
double ic_cost_reduce_chain(const ic_coll_args_t *a, int p, const ic_model_t *m);
double ic_cost_reduce_dopl(const ic_coll_args_t *a, int p, const ic_model_t *m);
/* chain_scan.c over m members, k segments: the reduction chain's
 * recurrence with root m-1, whose last node does not combine for exscan. */
double ic_cost_chain_scan_time(int m, bool exclusive, size_t count, size_t es, int k,
                               const ic_model_t *md);
double ic_cost_scan_chain(const ic_coll_args_t *a, int p, const ic_model_t *m);

#endif
