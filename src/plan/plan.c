/*
 * plan.c — building plans: step storage, scratch, and dependency inference.
 *
 * Every step records the byte ranges it reads and writes.  A new step
 * depends on the last writer of every byte it reads or writes and on every
 * reader since of every byte it writes (RAW, WAW, WAR): every older
 * conflicting step is ordered before those already.  A byte-range index
 * (deps_index.c) finds them, so building costs about the intervals a step
 * touches, not the length of the plan (a pipeline of thousands of
 * segments builds in linear time).
 */
#include "plan/plan.h"

#include "plan/deps_index.h"

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
    ic_deps_index_free(pl->deps_index);
    pl->deps_index = NULL;
    free(pl->dep_tmp);
    pl->dep_tmp = NULL;
    pl->dep_tmp_cap = 0;
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
    case IC_STEP_JOIN: /* touches no bytes */
        break;
    }
}

static int cmp_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
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

/* Room for one more step; 0 or -1 (error set). */
static int grow_steps(ic_plan_t *pl)
{
    if (pl->nsteps == pl->steps_cap) {
        size_t cap = pl->steps_cap ? 2 * pl->steps_cap : 32;
        ic_step_t *st = realloc(pl->steps, cap * sizeof(*st));
        if (!st) {
            pl->error = IC_ERR_NO_MEM;
            return -1;
        }
        pl->steps = st;
        pl->steps_cap = cap;
    }
    return 0;
}

static long append(ic_plan_t *pl, ic_step_t s)
{
    if (pl->error)
        return -1;
    if (grow_steps(pl))
        return -1;
    ic_access_t r[2], w[2];
    int nr, nw;
    step_accesses(&s, r, &nr, w, &nw);
    s.dep_first = (uint32_t)pl->ndeps;
    s.ndeps = 0;
    if (!pl->deps_index && !(pl->deps_index = ic_deps_index_new())) {
        pl->error = IC_ERR_NO_MEM;
        return -1;
    }
    /* Conflicting steps, then unique, newest first. */
    size_t n;
    for (;;) {
        n = 0;
        int full = 0;
        for (int a = 0; a < nr && !full; a++)
            full = ic_deps_index_query(pl->deps_index, r[a].loc.buf, r[a].loc.off, r[a].bytes,
                                       0, pl->dep_tmp, &n, pl->dep_tmp_cap);
        for (int a = 0; a < nw && !full; a++)
            full = ic_deps_index_query(pl->deps_index, w[a].loc.buf, w[a].loc.off, w[a].bytes,
                                       1, pl->dep_tmp, &n, pl->dep_tmp_cap);
        if (!full)
            break;
        size_t cap = pl->dep_tmp_cap ? 2 * pl->dep_tmp_cap : 64;
        uint32_t *t = realloc(pl->dep_tmp, cap * sizeof(*t));
        if (!t) {
            pl->error = IC_ERR_NO_MEM;
            return -1;
        }
        pl->dep_tmp = t;
        pl->dep_tmp_cap = cap;
    }
    if (n > 1)
        qsort(pl->dep_tmp, n, sizeof(uint32_t), cmp_desc);
    for (size_t k = 0; k < n; k++) {
        if (k > 0 && pl->dep_tmp[k] == pl->dep_tmp[k - 1])
            continue;
        if (push_dep(pl, pl->dep_tmp[k]))
            return -1;
        s.ndeps++;
    }
    uint32_t me = (uint32_t)pl->nsteps;
    for (int a = 0; a < nr; a++)
        if (ic_deps_index_read(pl->deps_index, r[a].loc.buf, r[a].loc.off, r[a].bytes, me)) {
            pl->error = IC_ERR_NO_MEM;
            return -1;
        }
    for (int a = 0; a < nw; a++)
        if (ic_deps_index_write(pl->deps_index, w[a].loc.buf, w[a].loc.off, w[a].bytes, me)) {
            pl->error = IC_ERR_NO_MEM;
            return -1;
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

/* Appends a JOIN waiting for the n steps of list; 0 or -1 (error set). */
static int append_join(ic_plan_t *pl, const uint32_t *list, size_t n)
{
    if (grow_steps(pl))
        return -1;
    ic_step_t s = {0};
    s.kind = IC_STEP_JOIN;
    s.peer = -1;
    s.dep_first = (uint32_t)pl->ndeps;
    for (size_t k = n; k-- > 0;) { /* newest first, like inferred lists */
        if (push_dep(pl, list[k]))
            return -1;
        s.ndeps++;
    }
    pl->steps[pl->nsteps++] = s;
    return 0;
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
    /* Several sinks: one JOIN waits for them all, and later steps wait for
     * the JOIN (a stage with hundreds of final sends would otherwise give
     * every first step of the next stage hundreds of dependencies). */
    if (ns > 1 && append_join(pl, sinks, ns) == 0) {
        sinks[0] = (uint32_t)(pl->nsteps - 1);
        ns = 1;
    }
    pl->sinks = sinks;
    pl->nsinks = ns;
    pl->fence = pl->nsteps;
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
