/*
 * plan.h — one rank's part of one collective, as an array of steps.
 *
 * A step is SEND, RECV, COPY, REDUCE or JOIN (no work; it gathers a fence's
 * dependencies so later steps wait for one step instead of many).  It names its peer and a tag (for
 * SEND/RECV), a source and a destination as (buffer id, byte offset), and a
 * byte count.  Buffer ids are symbolic (the user's send buffer, receive
 * buffer, or the plan's scratch), so a plan can be cached and re-bound to new
 * buffers.  Each step lists the steps it waits for; steps whose dependencies
 * are met may run concurrently.
 *
 * Dependencies are inferred by the builder from the byte ranges each step
 * reads and writes (read-after-write, write-after-read, write-after-write),
 * exactly as a data-flow runtime would.  Building blocks therefore append
 * their steps in program order and composition needs no hand-written
 * dependency lists: a later block's step waits only for the earlier steps
 * that touch the same bytes.  ic_plan_add_dep() adds an explicit dependency
 * where no bytes carry the ordering (zero-byte barrier messages).
 */
#ifndef IC_PLAN_PLAN_H
#define IC_PLAN_PLAN_H

#include "base/dtype.h"
#include "intercom.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum ic_step_kind {
    IC_STEP_SEND,
    IC_STEP_RECV,
    IC_STEP_COPY,
    IC_STEP_REDUCE,
    IC_STEP_JOIN /* no work: waits for its dependencies (ic_plan_fence) */
} ic_step_kind_t;

typedef enum ic_buf_id {
    IC_BUF_NONE = 0,
    IC_BUF_SEND,    /* the user's send buffer (read only) */
    IC_BUF_RECV,    /* the user's receive buffer (or bcast's only buffer) */
    IC_BUF_SCRATCH, /* owned by the plan, plan->scratch_bytes long */
    IC_BUF_COUNT
} ic_buf_id_t;

/* 8 bytes (a step is 48, not 64: the engine holds millions of them). */
typedef struct ic_loc {
    uint64_t off : 56; /* byte offset into that buffer (< 2^56) */
    uint64_t buf : 8;  /* ic_buf_id_t */
} ic_loc_t;

static inline ic_loc_t ic_loc(ic_buf_id_t buf, size_t off)
{
    ic_loc_t l;
    l.off = off;
    l.buf = (uint8_t)buf;
    return l;
}
static inline ic_loc_t ic_loc_add(ic_loc_t l, size_t off)
{
    l.off += off;
    return l;
}
static inline bool ic_loc_eq(ic_loc_t a, ic_loc_t b) { return a.buf == b.buf && a.off == b.off; }

/* Flags of a REDUCE step.  Without IC_RED_DST_LEFT: dst = src (op) dst, the
 * source holds lower ranks' data.  With it: dst = dst (op) src; for a
 * non-commutative user op (or with the plan's exact_sides) the engine then
 * computes into src and copies back, so src must be scratch or
 * receive-buffer bytes the plan may clobber. */
#define IC_RED_DST_LEFT 0x1u
/* With IC_RED_DST_LEFT: keep the sides even for a commutative op (as the
 * plan's exact_sides does for every step), so that the kernel's in operand
 * is dst's value: two ranks computing "a (op) b" from opposite sides then
 * get the same bits, NaN payloads and zero signs included. */
#define IC_RED_EXACT 0x2u

/* Flag of a RECV step, set by the executor (ic_exec_prepare): a REDUCE
 * that waits for it reads bytes it receives, so the transport is asked to
 * land them in this rank's cache (ops->irecv_read). */
#define IC_RECV_READ 0x1u
/* Flag of a SEND step, set by the executor (ic_exec_prepare): the step
 * waits, directly or through others, for every RECV of the plan, so this
 * rank receives nothing while the message is on its way (a tree's, a
 * chain's, a rooted call's message; not an exchange's): the transport is
 * told (ops->isend_oneway). */
#define IC_SEND_ONEWAY 0x2u

typedef struct ic_step {
    uint8_t kind;    /* ic_step_kind_t */
    uint8_t flags;   /* IC_RED_* for REDUCE, IC_RECV_READ for RECV, IC_SEND_ONEWAY for SEND */
    int32_t peer;    /* communicator rank, SEND/RECV only */
    uint32_t tag;    /* unique between this pair within the collective */
    ic_loc_t src;    /* SEND, COPY, REDUCE */
    ic_loc_t dst;    /* RECV, COPY, REDUCE */
    size_t bytes;
    uint32_t dep_first; /* index of the first dependency in plan->deps */
    uint32_t ndeps;
} ic_step_t;

/* Tags: the high bits number the building-block phase inside the
 * collective, the low bits the message inside the phase. */
#define IC_TAG_PHASE_SHIFT 24u
#define IC_TAG_MAX_IN_PHASE ((1u << IC_TAG_PHASE_SHIFT) - 1u)

typedef struct ic_plan {
    int rank, size;         /* in the communicator the plan runs on */
    ic_coll_t coll;
    const char *algo;       /* catalog name, static storage */
    ic_datatype_t dtype;    /* element type of REDUCE steps */
    const ic_op_t *op;      /* reduction, or NULL */
    /* REDUCE steps keep their operands' sides even for a commutative op
     * (dst = dst (op) src with IC_RED_DST_LEFT is computed as written, not
     * as src (op) dst), so which value is a kernel's left operand is fixed:
     * for -0.0 vs +0.0 in min/max and for NaN payloads it decides the bits;
     * and float sums and products use the NaN-exact kernels
     * (ic_reduce_apply_exact).  Set for IC_REPRODUCIBLE. */
    bool exact_sides;
    ic_step_t *steps;
    size_t nsteps, steps_cap;
    uint32_t *deps;
    size_t ndeps, deps_cap;
    size_t scratch_bytes;   /* computed while building */
    size_t buf_bytes[IC_BUF_COUNT]; /* bytes of each buffer the plan may touch (for checks) */
    uint32_t phase;         /* current building-block phase (tag high bits) */
    ic_status_t error;      /* first allocation failure while building */
    void **tmp;             /* build-time allocations, freed by ic_plan_finish */
    size_t ntmp, tmp_cap;
    void *deps_index;       /* build-time byte-range index (deps_index.h) */
    uint32_t *dep_tmp;      /* build-time scratch for a step's dependencies */
    size_t dep_tmp_cap;
    size_t fence;           /* first step after the last ic_plan_fence */
    uint32_t *sinks;        /* steps before it that nothing waits for */
    size_t nsinks;
} ic_plan_t;

/* Initialises an empty plan for rank of size. */
void ic_plan_init(ic_plan_t *pl, int rank, int size, ic_coll_t coll);
/* Frees the plan's arrays (not the plan struct). */
void ic_plan_release(ic_plan_t *pl);

/* Build-time array of n size_t (zeroed), owned by the plan until
 * ic_plan_finish or ic_plan_release; NULL on allocation failure (the
 * plan's error is then set).  Lets builders avoid their own cleanup. */
size_t *ic_plan_sizes(ic_plan_t *pl, size_t n);
/* The same for any build-time array of bytes bytes (zeroed). */
void *ic_plan_tmp(ic_plan_t *pl, size_t bytes);
/* Frees the build-time allocations; returns the plan's error status. */
ic_status_t ic_plan_finish(ic_plan_t *pl);

/* Starts a new building-block phase: every rank calls it for every block
 * of the composition (members of the block's view or not), so phases and
 * tags agree on all ranks. */
void ic_plan_next_phase(ic_plan_t *pl);

/* Appends a step; returns its index, or -1 after an allocation failure (the
 * plan's error is then set).  Zero-byte COPY/REDUCE steps are dropped
 * (return -1, no error); zero-byte SEND/RECV steps are kept (they carry
 * synchronisation).  Dependencies are inferred from byte ranges. */
long ic_plan_send(ic_plan_t *pl, int peer, uint32_t tag, ic_loc_t src, size_t bytes);
long ic_plan_recv(ic_plan_t *pl, int peer, uint32_t tag, ic_loc_t dst, size_t bytes);
long ic_plan_copy(ic_plan_t *pl, ic_loc_t src, ic_loc_t dst, size_t bytes);
long ic_plan_reduce(ic_plan_t *pl, ic_loc_t src, ic_loc_t dst, size_t bytes, unsigned flags);

/* Adds "step waits for before" (both indices of existing steps, before <
 * step, and step must be the last step added). */
void ic_plan_add_dep(ic_plan_t *pl, long step, long before);

/* A fence: every step added from now on waits (directly or through other
 * new steps) for every step added before (through one JOIN step when more
 * than one step ends the previous stage).  Stage compositions call it
 * between stages so a rank does not take up the next stage's messages
 * while it still works on the previous one (which could delay the
 * previous stage elsewhere); plain block compositions overlap freely. */
void ic_plan_fence(ic_plan_t *pl);

/* Reserves scratch: returns the offset of a new region of bytes bytes,
 * aligned to 64 bytes. */
size_t ic_plan_scratch(ic_plan_t *pl, size_t bytes);

/* Executes a COPY or REDUCE step of pl on resolved addresses (both
 * engines call it).  COPY has memmove semantics; REDUCE honours
 * IC_RED_DST_LEFT as documented above. */
void ic_step_run_local(const ic_plan_t *pl, const ic_step_t *s, unsigned char *src,
                       unsigned char *dst);

/* Writes a readable listing of the plan (EXPLAIN-style) to out. */
void ic_plan_dump(const ic_plan_t *pl, FILE *out);

/* Names for dumps and messages. */
const char *ic_step_kind_name(ic_step_kind_t kind);
const char *ic_buf_name(ic_buf_id_t buf);

#endif
