/*
 * harness.h — runs one collective call of p ranks in the in-process engine
 * on generated data and compares every rank's receive buffer, byte for
 * byte, with a serial reference (and checks guard bytes around every
 * buffer, so a write outside the caller's buffers is caught).
 */
#ifndef IC_TEST_HARNESS_H
#define IC_TEST_HARNESS_H

#include "algo/coll_args.h"
#include "intercom.h"

#include <stdbool.h>
#include <stddef.h>

/* Shapes of the v-counts. */
typedef enum vcounts {
    V_EVEN,    /* every rank count */
    V_RANDOM,  /* random in [0, 2*count] */
    V_ZEROS,   /* random, every third rank 0 */
    V_ONE      /* one rank (seed-chosen) gets count*p, the others 0 */
} vcounts_t;

/* Layout of the displacements of the v-forms. */
typedef enum vlayout {
    L_PACKED,  /* displs == NULL */
    L_GAPS,    /* in order with gaps between blocks */
    L_REVERSED /* blocks in reverse rank order */
} vlayout_t;

typedef struct tcase {
    ic_coll_t coll;
    const char *algo;       /* NULL: the selector */
    int p;
    int root;
    size_t count;
    ic_datatype_t dtype;
    const ic_op_t *op;      /* reductions */
    bool in_place;
    vcounts_t vcounts;
    vlayout_t vlayout;
    unsigned seed;
    int world_size;         /* 0: p */
    const int *world;       /* member i on node world[i]; NULL: identity */
    bool random_floats;     /* random reals, compared with a tolerance */
    const ic_mesh_t *mesh;  /* logical mesh of the communicator; NULL: a line */
    const int *host_of;     /* host of each rank (across hosts); NULL: one host */
    int nhosts;
    const ic_model_t *model; /* NULL: ic_model_default() */
    /* Floats of widely different magnitudes (whose sums depend on the
     * order of combining), compared with the reference within a tolerance
     * relative to the sum of the magnitudes; and for allreduce, every
     * rank's result must be bitwise the same as rank 0's. */
    bool agree;
    /* Scatterv/gatherv with MPI's convention (ic_coll_args_t.counts_at_root):
     * a rank other than the root passes a counts array in which only its
     * own entry is right (the others are poisoned) and no displacements. */
    bool counts_at_root;
    /* Where the ranks sit on a physical network (ic_coll_args_t.phys, the
     * U-mesh / U-torus / U-cube entries); NULL: unknown. */
    const ic_phys_t *phys;
} tcase_t;

/* Runs the case; returns 0 when every check passed, else 1 with a message
 * in msg.  *chosen (optional) gets the algorithm that ran. */
int run_case(const tcase_t *c, char *msg, size_t len, const char **chosen);

/* Totals of the last run_case (simulated time, messages, bytes). */
extern double harness_last_time;
extern size_t harness_last_msgs, harness_last_bytes;

/* Runs two cases at once on one world (two communicators in flight). */
int run_pair(const tcase_t *a, const tcase_t *b, int world_size, char *msg, size_t len);

/* One rank's part of a case on real processes (tests/run).  real_begin
 * prepares this rank's buffers and calls the collective in form 0
 * (blocking), 1 (nonblocking: ic_i*) or 2 (persistent: *_init, not yet
 * started); real_restart gives a persistent case new data (seed) and
 * starts it; real_end waits if needed and checks this rank's buffers. */
typedef struct real_case {
    tcase_t c;
    int form, me;
    ic_request_t *req;
    void *s;
} real_case_t;
int real_begin(real_case_t *rc, const tcase_t *c, ic_comm_t *comm, int form, char *msg,
               size_t len);
int real_restart(real_case_t *rc, unsigned seed, char *msg, size_t len);
int real_end(real_case_t *rc, char *msg, size_t len);
void real_free(real_case_t *rc);

/* Counting and reporting for test mains. */
typedef struct tally {
    long passed, failed;
} tally_t;

/* Describes a case in one line (for failure reports). */
void describe(const tcase_t *c, char *out, size_t len);
/* Runs a case, counts it, prints failures (at most 20). */
void check_case(tally_t *t, const tcase_t *c);
/* Prints "N passed, M failed" and returns the exit status. */
int finish(const tally_t *t, const char *name);

/* Whether the collective takes a reduction op / a root / v-counts. */
bool coll_reduces(ic_coll_t c);
bool coll_rooted(ic_coll_t c);
bool coll_v(ic_coll_t c);
bool coll_in_place_ok(ic_coll_t c);

/* An elementwise non-commutative operation on int64 (composition of
 * affine maps modulo 2^32, harness.c). */
extern ic_op_t *noncomm_op;
void harness_init(void);

#endif
