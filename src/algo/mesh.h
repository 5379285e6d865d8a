/*
 * mesh.h — logical multi-dimensional meshes over a communicator (pure rank
 * arithmetic, no plans).
 *
 * A mesh m0 x m1 x ... x m(d-1) numbers its ranks in row-major order: the
 * last dimension varies fastest, so rank = sum_k coord_k * stride_k with
 * stride_(d-1) = 1 and stride_k = m(k+1) * stride_(k+1).  The members of
 * one dimension-k ring are the ranks that differ only in coord_k: an
 * arithmetic sequence, i.e. a view (patterns.h), so every building block
 * runs on rows, columns and higher dimensions unchanged.
 *
 * [Watts94] section 5.2 (prime factors rings) and section 6.1 (dimensional
 * rings) are the same construction on two meshes: dimensional rings use
 * the mesh's own dimensions, prime factors rings the mesh whose dimensions
 * are the prime factors of p (p = 60 -> 2 x 2 x 3 x 5); a partial
 * factorisation gives the PFR-DR hybrids of section 8.
 */
#ifndef IC_ALGO_MESH_H
#define IC_ALGO_MESH_H

#include "algo/patterns.h"

#define IC_MESH_MAX_DIMS 32 /* enough for the prime factors of any int */

typedef struct ic_mesh {
    int d;
    int dims[IC_MESH_MAX_DIMS];
} ic_mesh_t;

/* The 1-D mesh of p ranks. */
ic_mesh_t ic_mesh_line(int p);
/* Number of ranks: the product of the dimensions. */
long ic_mesh_size(const ic_mesh_t *m);
/* Distance in ranks between neighbours along dimension k. */
int ic_mesh_stride(const ic_mesh_t *m, int k);
/* Coordinates of rank (d entries) and back. */
void ic_mesh_coords(const ic_mesh_t *m, int rank, int *coords);
int ic_mesh_rank(const ic_mesh_t *m, const int *coords);
/* The dimension-k ring through rank, as a view (me = coord_k). */
ic_view_t ic_mesh_dim_view(const ic_mesh_t *m, int rank, int k);

/* Prime factors of p >= 1 with repetition, ascending, into f (at most
 * IC_MESH_MAX_DIMS); returns how many (0 for p = 1). */
int ic_prime_factors(int p, int *f);
/* The prime-factor mesh of p ([Watts94]'s PFR); d = 1, dims {1} for p = 1. */
ic_mesh_t ic_mesh_prime(int p);

/* Every ordered factorisation of p into at most max_d factors, all >= 2
 * (the 1-D mesh {p} first; for p = 1 just {1}), up to max_out of them into
 * out; returns how many exist (which may exceed max_out). */
int ic_mesh_factorizations(int p, int max_d, ic_mesh_t *out, int max_out);

#endif
