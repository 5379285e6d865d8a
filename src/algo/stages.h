/*
 * stages.h — the rings of a (refined) logical mesh and the stage schedules
 * of the mesh-aware algorithms (pure arithmetic, no plans).
 *
 * A digit system: ranks are written in mixed radix, rank = sum over rings
 * t of digit_t * stride_t, digit_t in [0, size_t).  The rings of a mesh
 * m0 x m1 x ... are its dimensions (dimensional rings, DR); splitting a
 * dimension into its prime factors gives prime factors rings (PFR, [Watts94]
 * section 5.2); splitting only some dimensions gives the PFR-DR hybrids
 * (section 8).  Ring t through a rank is the view of the ranks that differ
 * from it in digit t only.  Rings are kept most significant first
 * (decreasing stride).
 *
 * A schedule splits the vector over an ordered list of rings ("split
 * rings": scatter / reduce-scatter order, undone in reverse by gather /
 * allgather) and handles the remaining rings ("short rings") with a
 * short-vector method on the slab each rank holds then.  The vector is cut
 * into P pieces, P = product of the split rings' sizes; piece position of
 * a rank = its split digits read in split order (the first split ring is
 * the most significant).  After the first k split stages a rank holds the
 * slab of pieces sharing its first k split digits: a contiguous range.
 *
 *   mesh 4 x 6, PFR-DR hybrid factoring dimension 1:  rings 4 | 2 3
 *   (strides 6 | 3 1); split order 4, 2, 3: piece of rank r =
 *   digit_4(r)*6 + digit_2(r)*3 + digit_3(r) = r  (natural order).
 */
#ifndef IC_ALGO_STAGES_H
#define IC_ALGO_STAGES_H

#include "algo/mesh.h"

#include <stdbool.h>
#include <stddef.h>

#define IC_RINGS_MAX IC_MESH_MAX_DIMS

typedef struct ic_ring {
    int size, stride;
} ic_ring_t;

typedef struct ic_sched {
    int nrings;
    ic_ring_t ring[IC_RINGS_MAX];  /* most significant first */
    int dim[IC_RINGS_MAX];         /* the mesh dimension each ring comes from */
    int nsplit;                    /* split rings: order[0 .. nsplit-1] */
    int order[IC_RINGS_MAX];       /* ring indices: split order, then short rings */
} ic_sched_t;

/* The rings of mesh m with the dimensions whose bit is set in factor_mask
 * split into their prime factors (ascending, the largest fastest); rings
 * of size 1 are left out.  Every ring is split, in natural order
 * (nsplit = nrings). */
ic_sched_t ic_sched_mesh(const ic_mesh_t *m, unsigned factor_mask);

/* Keeps the first nsplit rings of the split order as split rings; the
 * others become short rings. */
void ic_sched_set_split(ic_sched_t *s, int nsplit);

/* The digit of rank r on ring t. */
static inline int ic_sched_digit(const ic_sched_t *s, int t, int r)
{
    return (r / s->ring[t].stride) % s->ring[t].size;
}

/* [Watts94] section 5.2's dimension alternation, for a schedule with every
 * ring split: the collect (the split order run backwards) takes the rings
 * round-robin over the mesh dimensions, each dimension's most widely
 * spaced ring first, so the phases moving little data use the spread-out
 * rings and consecutive phases use different dimensions; the
 * reduce-scatter (the split order) starts on the closest rings, when the
 * slabs are largest.  Piece order then differs from rank order. */
void ic_sched_alternate(ic_sched_t *s);

/* True when the split order is the rings' significance order (pieces are
 * numbered like ranks). */
bool ic_sched_natural(const ic_sched_t *s);

/* Ring t through rank r as a view (me = -1 when active is false). */
ic_view_t ic_sched_view(const ic_sched_t *s, int t, int r, bool active);

/* True when r and root have equal digits on every ring of order[lo..hi). */
bool ic_sched_same_digits(const ic_sched_t *s, int r, int root, int lo, int hi);

/* Number of pieces P, and the piece position of rank r (split digits). */
long ic_sched_pieces(const ic_sched_t *s);
long ic_sched_piece_of(const ic_sched_t *s, int r);

/* Pieces of the slab a rank holds after k split stages. */
long ic_sched_slab_pieces(const ic_sched_t *s, int k);
/* First piece of rank r's slab after k split stages. */
long ic_sched_slab_start(const ic_sched_t *s, int k, int r);

/* A readable form of the schedule, e.g. "split 2.2.2.2 | 32, short -"
 * (split rings in split order, "." inside a factored dimension, "|"
 * between dimensions); always NUL-terminated. */
void ic_sched_describe(const ic_sched_t *s, char *buf, size_t len);

#endif
