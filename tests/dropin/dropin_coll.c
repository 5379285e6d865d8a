/*
 * dropin_coll.c — the collective matrix on MPI_INT: for one collective,
 * form, root, count and in-place choice (a "case"), the inputs of this
 * rank and the result it must receive, computed serially from val().
 * v-forms get uneven counts (some zero) and displacements in reverse rank
 * order with gaps, whose sentinels must survive; the in-place variants put
 * the rank's own data where MPI says.  Blocking cases run here, batches of
 * nonblocking and persistent ones in dropin_nb.c.
 */
#include "dropin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAP 2

static MPI_Op op_of(int k)
{
    switch (k & 3) {
    case 0:
        return MPI_SUM;
    case 1:
        return MPI_MAX;
    case 2:
        return MPI_MIN;
    default:
        return MPI_BXOR;
    }
}
static int op_apply(int k, int a, int b)
{
    switch (k & 3) {
    case 0:
        return a + b;
    case 1:
        return a > b ? a : b;
    case 2:
        return a < b ? a : b;
    default:
        return a ^ b;
    }
}
/* op over ranks lo..hi-1 of val(q, i, salt) */
static int red(int k, int lo, int hi, long i, int salt)
{
    int a = val(lo, i, salt);
    for (int q = lo + 1; q < hi; q++)
        a = op_apply(k, a, val(q, i, salt));
    return a;
}
/* What rank src sends to rank dst in the all-to-alls. */
static int w2(int src, int dst, long i, int salt)
{
    return val(src, (long)dst * 1009 + i, salt);
}

/* Uneven per-rank counts, some zero; n = 0 gives all zero. */
static int vcount(int q, int n, int salt)
{
    if (n == 0 || (q * 5 + salt) % 4 == 1)
        return 0;
    return ((q * 3 + salt) % 5 + 1) * ((n + 2) / 3);
}
/* All-to-all-v count from a to b; symmetric (a<->b) for the in-place form. */
static int acount(int a, int b, int n, int salt, int sym)
{
    if (n == 0)
        return 0;
    return ((a + (sym ? 1 : 2) * b + salt) % 4) * ((n + 2) / 3);
}
/* Displacements in reverse rank order with GAP ints before each block
 * (lead before the first); returns the total length. */
static size_t rev_displs(const int *cnt, int *dsp, int p, size_t lead)
{
    size_t at = lead;
    for (int q = p - 1; q >= 0; q--) {
        dsp[q] = (int)at;
        at += (size_t)cnt[q] + GAP;
    }
    return at;
}

static int quirk_coll(int coll)
{
    return coll == C_GATHER || coll == C_SCATTER || coll == C_ALLGATHER;
}

static int rooted(int coll)
{
    return coll == C_BCAST || coll == C_REDUCE || coll == C_SCATTER || coll == C_SCATTERV ||
           coll == C_GATHER || coll == C_GATHERV;
}

void tc_make(tcase_t *t, int coll, int form, MPI_Comm comm, int root, int n, int inplace, int salt)
{
    memset(t, 0, sizeof *t);
    MPI_Comm_rank(comm, &t->r);
    MPI_Comm_size(comm, &t->p);
    /* MPICH 4.0.2's persistent MPI_Gather on one process delivers only at
     * the first MPI_Start (in place works). */
    if (coll == C_GATHER && form_is_pers(form) && t->p == 1)
        inplace = 1;
    t->coll = coll, t->form = form, t->comm = comm, t->root = root, t->n = n;
    t->inplace = inplace, t->salt = salt, t->op_index = salt & 3;
    /* MPICH 4.0.2's persistent Gather, Scatter and Allgather send the data
     * the buffers held at MPI_..._init, not at MPI_Start, and its
     * persistent Scatter fails when started again (p > 2): there these are
     * started once, unless TEST_DROPIN_STRICT_PERSISTENT=1 (runs with the
     * drop-in); their later results stay out of the hash. */
    t->start_once = form_is_pers(form) && g_quirk_persistent && quirk_coll(coll);
    int r = t->r, p = t->p, at_root = rooted(coll) && r == root;
    size_t pn = (size_t)p * (size_t)n;
    call_t *c = &t->call;
    call_init(c, coll, form, comm);
    c->root = root;
    c->op = op_of(t->op_index);
    c->scount = c->rcount = n;
    t->active = 1;
    if (coll == C_SCATTERV || coll == C_GATHERV || coll == C_ALLGATHERV ||
        coll == C_REDUCE_SCATTER || coll == C_ALLTOALLV) {
        t->scounts = xmalloc(sizeof(int) * (size_t)p);
        t->sdispls = xmalloc(sizeof(int) * (size_t)p);
        t->rcounts = xmalloc(sizeof(int) * (size_t)p);
        t->rdispls = xmalloc(sizeof(int) * (size_t)p);
        for (int q = 0; q < p; q++) {
            t->scounts[q] = vcount(q, n, salt);
            t->rcounts[q] = vcount(q, n, salt);
        }
    }
    switch (coll) {
    case C_BCAST:
        t->gn = t->wn = (size_t)n;
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
    case C_EXSCAN:
    case C_REDUCE_LOCAL:
        t->sn = (size_t)n;
        if (coll != C_REDUCE || at_root)
            t->gn = t->wn = (size_t)n;
        t->active = coll != C_REDUCE || at_root;
        if (coll == C_EXSCAN && r == 0)
            t->wn = 0, t->active = 0; /* undefined on rank 0 */
        break;
    case C_SCATTER:
        t->sn = at_root ? pn : 0;
        t->gn = t->wn = (size_t)n;
        if (at_root && inplace)
            t->gn = 0, t->wn = pn; /* check the root's send buffer */
        break;
    case C_SCATTERV:
        t->sn = rev_displs(t->scounts, t->sdispls, p, GAP);
        if (!at_root)
            t->sn = 0;
        c->rcount = t->scounts[r];
        t->gn = t->wn = (size_t)t->scounts[r];
        if (at_root && inplace)
            t->gn = 0, t->wn = t->sn;
        break;
    case C_GATHER:
    case C_ALLGATHER:
        t->sn = (size_t)n;
        t->active = coll == C_ALLGATHER || at_root;
        if (t->active)
            t->gn = t->wn = pn;
        break;
    case C_GATHERV:
    case C_ALLGATHERV:
        c->scount = t->rcounts[r];
        t->sn = (size_t)t->rcounts[r];
        t->active = coll == C_ALLGATHERV || at_root;
        {
            /* MPICH 4.0.2's MPI_Allgatherv on one process ignores displs */
            size_t lead = coll == C_ALLGATHERV && p == 1 ? 0 : GAP;
            size_t tot = rev_displs(t->rcounts, t->rdispls, p, lead);
            if (t->active)
                t->gn = t->wn = tot;
        }
        break;
    case C_REDUCE_SCATTER_BLOCK:
        t->sn = pn;
        t->gn = inplace ? pn : (size_t)n;
        t->wn = (size_t)n;
        break;
    case C_REDUCE_SCATTER: {
        size_t tot = 0;
        for (int q = 0; q < p; q++)
            tot += (size_t)t->rcounts[q];
        t->sn = tot;
        t->gn = inplace ? tot : (size_t)t->rcounts[r];
        t->wn = (size_t)t->rcounts[r];
        break;
    }
    case C_ALLTOALL:
        t->sn = t->gn = t->wn = pn;
        break;
    case C_ALLTOALLV:
        for (int q = 0; q < p; q++) {
            t->scounts[q] = acount(r, q, n, salt, inplace);
            t->rcounts[q] = acount(q, r, n, salt, inplace);
        }
        t->sn = rev_displs(t->scounts, t->sdispls, p, GAP);
        t->gn = t->wn = rev_displs(t->rcounts, t->rdispls, p, GAP);
        break;
    case C_BARRIER:
        t->active = 0;
        break;
    default:
        break;
    }
    t->s = t->sn ? xmalloc(sizeof(int) * t->sn) : NULL;
    t->g = t->gn ? xmalloc(sizeof(int) * t->gn) : NULL;
    t->w = xmalloc(sizeof(int) * (t->wn ? t->wn : 1));
    if ((coll == C_SCATTER || coll == C_SCATTERV) && at_root && inplace)
        t->g = t->s; /* compare the send buffer */
    /* Where the result goes and which buffers MPI gets. */
    c->sbuf = t->s;
    c->rbuf = t->g;
    c->scounts = t->scounts, c->sdispls = t->sdispls;
    c->rcounts = t->rcounts, c->rdispls = t->rdispls;
    if (inplace) {
        switch (coll) {
        case C_REDUCE:
        case C_GATHER:
        case C_GATHERV:
            if (at_root)
                c->sbuf = MPI_IN_PLACE;
            break;
        case C_SCATTER:
        case C_SCATTERV:
            if (at_root)
                c->rbuf = MPI_IN_PLACE;
            break;
        case C_ALLREDUCE:
        case C_ALLGATHER:
        case C_ALLGATHERV:
        case C_REDUCE_SCATTER_BLOCK:
        case C_REDUCE_SCATTER:
        case C_ALLTOALL:
        case C_SCAN:
        case C_EXSCAN:
            c->sbuf = MPI_IN_PLACE;
            break;
        case C_ALLTOALLV:
            c->sbuf = MPI_IN_PLACE;
            c->scounts = c->sdispls = NULL; /* ignored with MPI_IN_PLACE */
            break;
        default:
            break;
        }
    }
    if (coll == C_BCAST)
        c->rbuf = t->g;
    if (coll == C_REDUCE_LOCAL)
        c->op = op_of(t->op_index);
}

void tc_fill(tcase_t *t, int rep)
{
    int r = t->r, p = t->p, n = t->n, root = t->root, k = t->op_index;
    int salt = t->salt + 7 * rep;
    size_t pn = (size_t)p * (size_t)n, i;
    int at_root = rooted(t->coll) && r == root;
    int *s = t->s, *g = t->g, *w = t->w;
    if (g && g != s)
        fill_int(g, t->gn, SENTINEL);
    if (s)
        fill_int(s, t->sn, SENTINEL + 1);
    switch (t->coll) {
    case C_BCAST:
        for (i = 0; i < (size_t)n; i++) {
            w[i] = val(root, (long)i, salt);
            if (r == root)
                g[i] = w[i];
        }
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
    case C_EXSCAN:
        for (i = 0; i < (size_t)n; i++) {
            s[i] = val(r, (long)i, salt);
            if (t->inplace && t->call.sbuf == MPI_IN_PLACE)
                g[i] = s[i];
            if (t->coll == C_SCAN)
                w[i] = red(k, 0, r + 1, (long)i, salt);
            else if (t->coll == C_EXSCAN) {
                if (r)
                    w[i] = red(k, 0, r, (long)i, salt);
            } else if (t->active)
                w[i] = red(k, 0, p, (long)i, salt);
        }
        break;
    case C_REDUCE_LOCAL:
        for (i = 0; i < (size_t)n; i++) {
            s[i] = val(r, (long)i, salt);
            g[i] = val(r + 1, (long)i, salt);
            w[i] = op_apply(k, s[i], g[i]);
        }
        break;
    case C_SCATTER:
        if (at_root)
            for (int q = 0; q < p; q++)
                for (i = 0; i < (size_t)n; i++)
                    s[(size_t)q * (size_t)n + i] = val(q, (long)i, salt);
        if (at_root && t->inplace)
            memcpy(w, s, sizeof(int) * pn);
        else
            for (i = 0; i < (size_t)n; i++)
                w[i] = val(r, (long)i, salt);
        break;
    case C_SCATTERV:
        if (at_root)
            for (int q = 0; q < p; q++)
                for (i = 0; i < (size_t)t->scounts[q]; i++)
                    s[(size_t)t->sdispls[q] + i] = val(q, (long)i, salt);
        if (at_root && t->inplace)
            memcpy(w, s, sizeof(int) * t->sn);
        else
            for (i = 0; i < (size_t)t->scounts[r]; i++)
                w[i] = val(r, (long)i, salt);
        break;
    case C_GATHER:
    case C_ALLGATHER:
        for (i = 0; i < (size_t)n; i++)
            s[i] = val(r, (long)i, salt);
        if (t->active) {
            for (int q = 0; q < p; q++)
                for (i = 0; i < (size_t)n; i++)
                    w[(size_t)q * (size_t)n + i] = val(q, (long)i, salt);
            if (t->inplace)
                memcpy(g + (size_t)r * (size_t)n, s, sizeof(int) * (size_t)n);
        }
        break;
    case C_GATHERV:
    case C_ALLGATHERV:
        for (i = 0; i < t->sn; i++)
            s[i] = val(r, (long)i, salt);
        if (t->active) {
            fill_int(w, t->wn, SENTINEL);
            for (int q = 0; q < p; q++)
                for (i = 0; i < (size_t)t->rcounts[q]; i++)
                    w[(size_t)t->rdispls[q] + i] = val(q, (long)i, salt);
            if (t->inplace)
                memcpy(g + t->rdispls[r], s, sizeof(int) * t->sn);
        }
        break;
    case C_REDUCE_SCATTER_BLOCK:
    case C_REDUCE_SCATTER: {
        size_t off = 0, mine = t->wn;
        if (t->coll == C_REDUCE_SCATTER)
            for (int q = 0; q < r; q++)
                off += (size_t)t->rcounts[q];
        else
            off = (size_t)r * (size_t)n;
        for (i = 0; i < t->sn; i++) {
            s[i] = val(r, (long)i, salt);
            if (t->inplace)
                g[i] = s[i];
        }
        for (i = 0; i < mine; i++)
            w[i] = red(k, 0, p, (long)(off + i), salt);
        break;
    }
    case C_ALLTOALL:
        for (int q = 0; q < p; q++)
            for (i = 0; i < (size_t)n; i++) {
                s[(size_t)q * (size_t)n + i] = w2(r, q, (long)i, salt);
                w[(size_t)q * (size_t)n + i] = w2(q, r, (long)i, salt);
            }
        if (t->inplace)
            memcpy(g, s, sizeof(int) * pn);
        break;
    case C_ALLTOALLV:
        fill_int(w, t->wn, SENTINEL);
        for (int q = 0; q < p; q++) {
            for (i = 0; i < (size_t)t->scounts[q]; i++)
                s[(size_t)t->sdispls[q] + i] = w2(r, q, (long)i, salt);
            for (i = 0; i < (size_t)t->rcounts[q]; i++) {
                w[(size_t)t->rdispls[q] + i] = w2(q, r, (long)i, salt);
                if (t->inplace) /* what r sends to q, where q's data will land */
                    g[(size_t)t->rdispls[q] + i] = w2(r, q, (long)i, salt);
            }
        }
        break;
    default:
        break;
    }
}

void tc_check(tcase_t *t, int rep)
{
    if (!t->active) {
        if (t->coll == C_BARRIER)
            check(1, "barrier");
        return;
    }
    g_nohash = g_quirk_lib && form_is_pers(t->form) && quirk_coll(t->coll) && rep > 0;
    check_ints(t->g, t->w, t->wn, "%s %s p=%d n=%d root=%d inplace=%d salt=%d rep=%d",
               coll_name[t->coll], form_name[t->form], t->p, t->n, t->root, t->inplace, t->salt,
               rep);
    g_nohash = 0;
}

void tc_free(tcase_t *t)
{
    call_release(&t->call);
    if (t->g != t->s)
        free(t->g);
    free(t->s);
    free(t->w);
    free(t->scounts);
    free(t->sdispls);
    free(t->rcounts);
    free(t->rdispls);
    memset(t, 0, sizeof *t);
}

/* One blocking (or blocking _c) case from start to end. */
static void run_one(int coll, int form, MPI_Comm comm, int root, int n, int inplace, int salt)
{
    tcase_t t;
    tc_make(&t, coll, form, comm, root, n, inplace, salt);
    tc_fill(&t, 0);
    call_issue(&t.call);
    tc_check(&t, 0);
    tc_free(&t);
}

static int has_inplace(int coll)
{
    return coll != C_BCAST && coll != C_BARRIER && coll != C_REDUCE_LOCAL;
}

/* Every collective, blocking (and blocking _c under MPI 4): counts 0, 1, 7,
 * with and without MPI_IN_PLACE; a rooted one at every root, the counts
 * and in-place choices rotating over the roots so that each appears. */
void test_coll_blocking(MPI_Comm comm)
{
    static const int counts[3] = {0, 1, 7};
    int p, salt = 100;
    MPI_Comm_size(comm, &p);
    for (int form = F_BLOCK; form < F_NFORMS; form++) {
        if (form_is_nb(form) || form_is_pers(form))
            continue;
        for (int coll = 0; coll < C_NCOLLS; coll++) {
            if (!coll_has_form(coll, form))
                continue;
            int ncases = rooted(coll) ? (p > 6 ? p : 6) : 6;
            if (coll == C_BARRIER)
                ncases = 2;
            if (form == F_BLOCK_C) /* fewer: MPICH is slow at p = 8 */
                ncases = 3;
            for (int k = 0; k < ncases; k++) {
                int root = rooted(coll) ? k % p : 0;
                int inplace = has_inplace(coll) ? (ncases == 3 ? k % 2 : (k / 3) % 2) : 0;
                run_one(coll, form, comm, root, counts[k % 3], inplace, salt++);
            }
        }
    }
}

/* Large counts: every collective once, half of them in place, with
 * 100000 ints per rank for the reductions and Bcast, and about 100000 / p
 * per block (odd) for the collectives whose data grows with p. */
void test_coll_large(MPI_Comm comm)
{
    int p, salt = 900;
    MPI_Comm_size(comm, &p);
    for (int coll = 0; coll < C_NCOLLS; coll++) {
        if (coll == C_BARRIER)
            continue;
        int inplace = has_inplace(coll) && coll % 2, root = (coll + 1) % p;
        int whole = coll == C_BCAST || coll == C_REDUCE || coll == C_ALLREDUCE || coll == C_SCAN ||
                    coll == C_EXSCAN || coll == C_REDUCE_LOCAL;
        /* MPICH 4.0.2 crashes in a long MPI_Reduce in place at a root > 0 */
        if (coll == C_REDUCE && g_quirk_lib)
            root = 0;
        run_one(coll, F_BLOCK, comm, root, whole ? g_large : (g_large / p) | 1, inplace, salt++);
    }
    if (DROPIN_MPI4) {
        run_one(C_ALLREDUCE, F_BLOCK_C, comm, 0, g_large, 0, salt++);
        run_one(C_BCAST, F_BLOCK_C, comm, p - 1, g_large, 0, salt++);
    }
}

/* One case of each collective in the given form (blocking or nonblocking):
 * an odd count, in place every other one, the root moving. */
void test_coll_some(MPI_Comm comm, int form)
{
    int p;
    tcase_t t;
    MPI_Comm_size(comm, &p);
    for (int coll = 0; coll < C_NCOLLS; coll++) {
        int f = coll_has_form(coll, form) ? form : F_BLOCK;
        tc_make(&t, coll, f, comm, coll % p, 5 + coll % 3, has_inplace(coll) && coll % 2,
                400 + coll);
        tc_fill(&t, 0);
        call_issue(&t.call);
        if (form_is_nb(f))
            complete_all(&t.call.req, 1, comm, coll);
        tc_check(&t, 0);
        tc_free(&t);
    }
}
