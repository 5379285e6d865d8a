/*
 * check.h — IC_CHECK: before a collective, the ranks compare fingerprints
 * of their calls (check.c).
 */
#ifndef IC_CORE_CHECK_H
#define IC_CORE_CHECK_H

#include "algo/coll_args.h"
#include "core/comm.h"

#include <stdint.h>

/* What every rank of one call must pass alike, in fixed-width fields. */
typedef struct ic_fingerprint {
    int32_t coll, root, dtype, op_kind, commutative;
    int32_t reproducible; /* IC_REPRODUCIBLE, for reductions (0 otherwise) */
    uint64_t count;       /* count (0 for the v-forms and barrier) */
    uint64_t counts_hash; /* the v-forms' counts (not all-to-all(v)'s per-rank ones) */
    uint64_t algo_hash;   /* the forced algorithm's name, or 0 */
    uint64_t mesh_hash;   /* the logical mesh */
    uint64_t phys_hash;   /* the physical placement (ic_comm_set_network) */
    uint64_t model_hash;  /* the cost model's parameters */
} ic_fingerprint_t;

/* FNV-1a over n bytes, continuing from h (0xcbf29ce484222325 to start);
 * the fingerprints and the call signatures (coll_run.c) use it. */
uint64_t ic_fnv1a(uint64_t h, const void *p, size_t n);

/* The fingerprint of call a on comm. */
void ic_fingerprint_of(const ic_comm_t *comm, const ic_coll_args_t *a, ic_fingerprint_t *fp);

/* Compares the size fingerprints of all (rank order): IC_OK when they are
 * equal, else IC_ERR_MISMATCH with a message (fn first) naming the first
 * rank that differs from rank 0 and the first field in which it does.
 * Every rank computes the same answer from the same data. */
ic_status_t ic_fingerprints_compare(const char *fn, const ic_fingerprint_t *all, int size);

#endif
