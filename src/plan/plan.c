/*
 * plan.c — building plans: step storage, scratch, and dependency inference.
 *
 * Every step records the byte ranges it reads and writes.  A new step
 * depends on each earlier step of the same plan whose writes overlap what it
 * reads or writes, or whose reads overlap what it writes.  The backward scan
 * stops at an earlier dependency that writes a superset of everything the
 * new step touches: all older conflicting steps are ordered before that one
 * already.  Building is O(steps^2) in the worst case (rings of p steps); the
 * simulator issue may replace the scan with an interval index.
 */
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>

typedef struct ic_access {
    ic_loc_t loc;
    size_t bytes;
} ic_access_t;

void ic_plan_init(ic_plan_t *pl, int rank, int size, ic_coll_t coll)
{
    memset(pl, 0, sizeof(*pl));
    pl->rank = rank;
    pl->size = size;
    pl->coll = coll;
}

size_t *ic_plan_sizes(ic_plan_t *pl, size_t n)
{
    return ic_plan_tmp(pl, n * sizeof(size_t));
}

void *ic_plan_tmp(ic_plan_t *pl, size_t bytes)
{
    if (pl->error)
        return NULL;
    if (pl->ntmp == pl->tmp_cap) {
        size_t cap = pl->tmp_cap ? 2 * pl->tmp_cap : 8;
        void **t = realloc(pl->tmp, cap * sizeof(*t));
        if (!t) {
            pl->error = IC_ERR_NO_MEM;
            return NULL;
        }
        pl->tmp = t;
        pl->tmp_cap = cap;
    }
    void *a = calloc(bytes ? bytes : 1, 1);
    if (!a) {
        pl->error = IC_ERR_NO_MEM;
        return NULL;
    }
    pl->tmp[pl->ntmp++] = a;
    return a;
}

ic_status_t ic_plan_finish(ic_plan_t *pl)
{
    for (size_t i = 0; i < pl->ntmp; i++)
        free(pl->tmp[i]);
    free(pl->tmp);
    pl->tmp = NULL;
    pl->ntmp = pl->tmp_cap = 0;
    pl->sinks = NULL; /* lived in tmp */
    pl->nsinks = 0;
    return pl->error;
}

void ic_plan_release(ic_plan_t *pl)
{
    ic_plan_finish(pl);
    free(pl->steps);
    free(pl->deps);
    pl->steps = NULL;
    pl->deps = NULL;
    pl->nsteps = pl->steps_cap = pl->ndeps = pl->deps_cap = 0;
}

void ic_plan_next_phase(ic_plan_t *pl) { pl->phase++; }

size_t ic_plan_scratch(ic_plan_t *pl, size_t bytes)
{
    size_t off = (pl->scratch_bytes + 63u) & ~(size_t)63u;
    pl->scratch_bytes = off + bytes;
    return off;
}

/* Fills reads/writes of a step; returns the counts through nr/nw. */
static void step_accesses(const ic_step_t *s, ic_access_t r[2], int *nr,
                          ic_access_t w[2], int *nw)
{
    *nr = *nw = 0;
    memset(r, 0, 2 * sizeof(*r));
    memset(w, 0, 2 * sizeof(*w));
    if (s->bytes == 0)
        return;
    switch ((ic_step_kind_t)s->kind) {
    case IC_STEP_SEND:
        r[(*nr)++] = (ic_access_t){s->src, s->bytes};
        break;
    case IC_STEP_RECV:
        w[(*nw)++] = (ic_access_t){s->dst, s->bytes};
        break;
    case IC_STEP_COPY:
        r[(*nr)++] = (ic_access_t){s->src, s->bytes};
        w[(*nw)++] = (ic_access_t){s->dst, s->bytes};
        break;
    case IC_STEP_REDUCE:
        r[(*nr)++] = (ic_access_t){s->src, s->bytes};
        w[(*nw)++] = (ic_access_t){s->dst, s->bytes};
        if (s->flags & IC_RED_DST_LEFT) /* may compute into src */
            w[(*nw)++] = (ic_access_t){s->src, s->bytes};
        break;
    }
}

static int overlap(const ic_access_t *a, const ic_access_t *b)
{
    return a->loc.buf == b->loc.buf && a->loc.off < b->loc.off + b->bytes &&
           b->loc.off < a->loc.off + a->bytes;
}

static int covers(const ic_access_t *big, const ic_access_t *a)
{
    return big->loc.buf == a->loc.buf && big->loc.off <= a->loc.off &&
           a->loc.off + a->bytes <= big->loc.off + big->bytes;
}

static int push_dep(ic_plan_t *pl, uint32_t before)
{
    if (pl->ndeps == pl->deps_cap) {
        size_t cap = pl->deps_cap ? 2 * pl->deps_cap : 64;
        uint32_t *d = realloc(pl->deps, cap * sizeof(*d));
        if (!d) {
            pl->error = IC_ERR_NO_MEM;
            return -1;
        }
        pl->deps = d;
        pl->deps_cap = cap;
    }
    pl->deps[pl->ndeps++] = before;
    return 0;
}

static long append(ic_plan_t *pl, ic_step_t s)
{
    if (pl->error)
        return -1;
    if (pl->nsteps == pl->steps_cap) {
        size_t cap = pl->steps_cap ? 2 * pl->steps_cap : 32;
        ic_step_t *n = realloc(pl->steps, cap * sizeof(*n));
        if (!n) {
            pl->error = IC_ERR_NO_MEM;
            return -1;
        }
        pl->steps = n;
        pl->steps_cap = cap;
    }
    ic_access_t r[2], w[2];
    int nr, nw;
    step_accesses(&s, r, &nr, w, &nw);
    s.dep_first = (uint32_t)pl->ndeps;
    s.ndeps = 0;
    for (size_t i = pl->nsteps; i-- > 0;) {
        ic_access_t pr[2], pw[2];
        int npr, npw, conflict = 0, dominates = 0;
        step_accesses(&pl->steps[i], pr, &npr, pw, &npw);
        for (int a = 0; a < nw && !conflict; a++) {
            for (int b = 0; b < npr; b++)
                conflict |= overlap(&w[a], &pr[b]);
            for (int b = 0; b < npw; b++)
                conflict |= overlap(&w[a], &pw[b]);
        }
        for (int a = 0; a < nr && !conflict; a++)
            for (int b = 0; b < npw; b++)
                conflict |= overlap(&r[a], &pw[b]);
        if (!conflict)
            continue;
        if (push_dep(pl, (uint32_t)i))
            return -1;
        s.ndeps++;
        for (int b = 0; b < npw; b++) {
            int all = 1;
            for (int a = 0; a < nr; a++)
                all &= covers(&pw[b], &r[a]);
            for (int a = 0; a < nw; a++)
                all &= covers(&pw[b], &w[a]);
            dominates |= all;
        }
        if (dominates)
            break;
    }
    /* After a fence: a step that waits for no other new step waits for
     * the fence's sinks. */
    bool after_new = false;
    for (uint32_t i = 0; i < s.ndeps; i++)
        after_new |= pl->deps[s.dep_first + i] >= pl->fence;
    for (size_t k = 0; k < pl->nsinks && !after_new; k++) {
        bool dup = false;
        for (uint32_t i = 0; i < s.ndeps; i++)
            dup |= pl->deps[s.dep_first + i] == pl->sinks[k];
        if (dup)
            continue;
        if (push_dep(pl, pl->sinks[k]))
            return -1;
        s.ndeps++;
    }
    pl->steps[pl->nsteps] = s;
    return (long)pl->nsteps++;
}

void ic_plan_fence(ic_plan_t *pl)
{
    size_t lo = pl->fence, n = pl->nsteps;
    if (pl->error || n == lo)
        return; /* nothing new: the previous sinks still stand */
    unsigned char *waited = ic_plan_tmp(pl, n - lo);
    uint32_t *sinks = ic_plan_tmp(pl, (n - lo) * sizeof(uint32_t));
    if (!waited || !sinks)
        return;
    for (size_t j = lo; j < n; j++)
        for (uint32_t i = 0; i < pl->steps[j].ndeps; i++) {
            uint32_t d = pl->deps[pl->steps[j].dep_first + i];
            if (d >= lo)
                waited[d - lo] = 1;
        }
    size_t ns = 0;
    for (size_t j = lo; j < n; j++)
        if (!waited[j - lo])
            sinks[ns++] = (uint32_t)j;
    pl->sinks = sinks;
    pl->nsinks = ns;
    pl->fence = n;
}

static void note_extent(ic_plan_t *pl, ic_loc_t l, size_t bytes)
{
    if (l.buf < IC_BUF_COUNT && l.off + bytes > pl->buf_bytes[l.buf])
        pl->buf_bytes[l.buf] = l.off + bytes;
}

static uint32_t full_tag(const ic_plan_t *pl, uint32_t tag)
{
    return (pl->phase << IC_TAG_PHASE_SHIFT) | (tag & IC_TAG_MAX_IN_PHASE);
}

long ic_plan_send(ic_plan_t *pl, int peer, uint32_t tag, ic_loc_t src, size_t bytes)
{
    ic_step_t s = {0};
    s.kind = IC_STEP_SEND;
    s.peer = peer;
    s.tag = full_tag(pl, tag);
    s.src = src;
    s.bytes = bytes;
    note_extent(pl, src, bytes);
    return append(pl, s);
}

long ic_plan_recv(ic_plan_t *pl, int peer, uint32_t tag, ic_loc_t dst, size_t bytes)
{
    ic_step_t s = {0};
    s.kind = IC_STEP_RECV;
    s.peer = peer;
    s.tag = full_tag(pl, tag);
    s.dst = dst;
    s.bytes = bytes;
    note_extent(pl, dst, bytes);
    return append(pl, s);
}

long ic_plan_copy(ic_plan_t *pl, ic_loc_t src, ic_loc_t dst, size_t bytes)
{
    if (bytes == 0 || (src.buf == dst.buf && src.off == dst.off))
        return -1;
    ic_step_t s = {0};
    s.kind = IC_STEP_COPY;
    s.peer = -1;
    s.src = src;
    s.dst = dst;
    s.bytes = bytes;
    note_extent(pl, src, bytes);
    note_extent(pl, dst, bytes);
    return append(pl, s);
}

long ic_plan_reduce(ic_plan_t *pl, ic_loc_t src, ic_loc_t dst, size_t bytes, unsigned flags)
{
    if (bytes == 0)
        return -1;
    ic_step_t s = {0};
    s.kind = IC_STEP_REDUCE;
    s.flags = (uint8_t)flags;
    s.peer = -1;
    s.src = src;
    s.dst = dst;
    s.bytes = bytes;
    note_extent(pl, src, bytes);
    note_extent(pl, dst, bytes);
    return append(pl, s);
}

void ic_plan_add_dep(ic_plan_t *pl, long step, long before)
{
    if (pl->error || step < 0 || before < 0 || before >= step ||
        (size_t)step + 1 != pl->nsteps)
        return;
    ic_step_t *s = &pl->steps[step];
    for (uint32_t i = 0; i < s->ndeps; i++)
        if (pl->deps[s->dep_first + i] == (uint32_t)before)
            return;
    if (push_dep(pl, (uint32_t)before) == 0)
        s->ndeps++;
}
