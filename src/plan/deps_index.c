/*
 * deps_index.c — see deps_index.h.  Per buffer a sorted array of disjoint
 * intervals; readers are singly linked lists in one node pool (lists are
 * copied when an interval splits and abandoned when it is overwritten; the
 * pool lives as long as the plan is being built).
 */
#include "plan/deps_index.h"

#include <stdlib.h>
#include <string.h>

#define NBUF 4
#define NONE UINT32_MAX

typedef struct seg {
    size_t lo, hi;
    uint32_t writer;  /* NONE: never written */
    uint32_t readers; /* first node in the pool, NONE: no reader */
} seg_t;

typedef struct node {
    uint32_t step, next;
} node_t;

struct ic_deps_index {
    seg_t *seg[NBUF];
    size_t nseg[NBUF], capseg[NBUF];
    node_t *pool;
    size_t npool, cappool;
};

ic_deps_index_t *ic_deps_index_new(void) { return calloc(1, sizeof(ic_deps_index_t)); }

void ic_deps_index_free(ic_deps_index_t *ix)
{
    if (!ix)
        return;
    for (int b = 0; b < NBUF; b++)
        free(ix->seg[b]);
    free(ix->pool);
    free(ix);
}

static uint32_t new_node(ic_deps_index_t *ix, uint32_t step, uint32_t next)
{
    if (ix->npool == ix->cappool) {
        size_t cap = ix->cappool ? 2 * ix->cappool : 256;
        node_t *p = realloc(ix->pool, cap * sizeof(*p));
        if (!p)
            return NONE - 1;
        ix->pool = p;
        ix->cappool = cap;
    }
    ix->pool[ix->npool] = (node_t){step, next};
    return (uint32_t)ix->npool++;
}

/* A copy of the list starting at head (order kept).  Nodes are linked by
 * index: new_node may move the pool. */
static int copy_list(ic_deps_index_t *ix, uint32_t head, uint32_t *out)
{
    uint32_t first = NONE, prev = NONE;
    for (uint32_t k = head; k != NONE; k = ix->pool[k].next) {
        uint32_t n = new_node(ix, ix->pool[k].step, NONE);
        if (n == NONE - 1)
            return -1;
        if (prev == NONE)
            first = n;
        else
            ix->pool[prev].next = n;
        prev = n;
    }
    *out = first;
    return 0;
}

/* Index of the first interval with hi > off. */
static size_t first_after(const seg_t *s, size_t n, size_t off)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s[mid].hi > off)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static int insert_at(ic_deps_index_t *ix, int b, size_t i, seg_t v)
{
    if (ix->nseg[b] == ix->capseg[b]) {
        size_t cap = ix->capseg[b] ? 2 * ix->capseg[b] : 16;
        seg_t *p = realloc(ix->seg[b], cap * sizeof(*p));
        if (!p)
            return -1;
        ix->seg[b] = p;
        ix->capseg[b] = cap;
    }
    seg_t *s = ix->seg[b];
    memmove(s + i + 1, s + i, (ix->nseg[b] - i) * sizeof(*s));
    s[i] = v;
    ix->nseg[b]++;
    return 0;
}

/* Makes x an interval boundary (splits the interval strictly around it). */
static int split_at(ic_deps_index_t *ix, int b, size_t x)
{
    size_t i = first_after(ix->seg[b], ix->nseg[b], x);
    if (i == ix->nseg[b] || ix->seg[b][i].lo >= x)
        return 0;
    seg_t right = ix->seg[b][i];
    right.lo = x;
    if (copy_list(ix, right.readers, &right.readers))
        return -1;
    ix->seg[b][i].hi = x;
    return insert_at(ix, b, i + 1, right);
}

int ic_deps_index_query(const ic_deps_index_t *ix, int buf, size_t off, size_t len, int write,
                        uint32_t *out, size_t *n, size_t cap)
{
    if (len == 0 || buf < 0 || buf >= NBUF)
        return 0;
    const seg_t *s = ix->seg[buf];
    for (size_t i = first_after(s, ix->nseg[buf], off); i < ix->nseg[buf] && s[i].lo < off + len;
         i++) {
        if (s[i].writer != NONE) {
            if (*n == cap)
                return -1;
            out[(*n)++] = s[i].writer;
        }
        for (uint32_t k = write ? s[i].readers : NONE; k != NONE; k = ix->pool[k].next) {
            if (*n == cap)
                return -1;
            out[(*n)++] = ix->pool[k].step;
        }
    }
    return 0;
}

int ic_deps_index_read(ic_deps_index_t *ix, int b, size_t off, size_t len, uint32_t step)
{
    if (len == 0 || b < 0 || b >= NBUF)
        return 0;
    size_t end = off + len;
    if (split_at(ix, b, off) || split_at(ix, b, end))
        return -1;
    size_t at = off, i = first_after(ix->seg[b], ix->nseg[b], off);
    while (at < end) {
        seg_t *s = ix->seg[b];
        if (i < ix->nseg[b] && s[i].lo <= at) { /* an interval starting here */
            uint32_t nd = new_node(ix, step, ix->seg[b][i].readers);
            if (nd == NONE - 1)
                return -1;
            ix->seg[b][i].readers = nd;
            at = ix->seg[b][i].hi;
            i++;
            continue;
        }
        size_t gap_end = i < ix->nseg[b] && s[i].lo < end ? s[i].lo : end;
        uint32_t nd = new_node(ix, step, NONE);
        if (nd == NONE - 1 || insert_at(ix, b, i, (seg_t){at, gap_end, NONE, nd}))
            return -1;
        at = gap_end;
        i++;
    }
    return 0;
}

int ic_deps_index_write(ic_deps_index_t *ix, int b, size_t off, size_t len, uint32_t step)
{
    if (len == 0 || b < 0 || b >= NBUF)
        return 0;
    size_t end = off + len;
    if (split_at(ix, b, off) || split_at(ix, b, end))
        return -1;
    seg_t *s = ix->seg[b];
    size_t i = first_after(s, ix->nseg[b], off), j = i;
    while (j < ix->nseg[b] && s[j].lo < end)
        j++;
    /* Intervals i..j-1 lie inside [off, end): replace them by one. */
    if (j > i) {
        s[i] = (seg_t){off, end, step, NONE};
        memmove(s + i + 1, s + j, (ix->nseg[b] - j) * sizeof(*s));
        ix->nseg[b] -= j - i - 1;
        return 0;
    }
    return insert_at(ix, b, i, (seg_t){off, end, step, NONE});
}
