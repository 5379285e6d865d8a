/*
 * strategy.c — the strategy cache of [Watts94] section 15.1 ("associate
 * vector lengths with their strategies, re-using the strategies when the
 * operation is performed again on a vector of the same (or nearly the
 * same) length") and IC_EXPLAIN.
 *
 * Ranks must agree on every decision, and a rank's cache sees only the
 * calls that missed its plan cache (which depends on rank-local
 * arguments: buffers, IC_IN_PLACE at the root), so different ranks' caches
 * hold different entries.  The cache is therefore pure memoisation: a
 * slot is reused only for a call equal in every argument the decision
 * depends on (collective, root, count or the v-form's counts, datatype,
 * commutativity, forced entry, IC_REPRODUCIBLE; the model and mesh clear
 * the cache when they change), and a hit gives exactly what ic_decide would compute.
 * "Nearly the same length" is not shared: a decision made for one length
 * and reused for another could differ from a fresh one on a rank that
 * evicted it.
 */
#include "core/strategy.h"

#include "base/dtype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The per-rank counts that a v-form's decision depends on (the same on
 * every rank), or NULL. */
static const size_t *counts_of(const ic_coll_args_t *a)
{
    return a->coll == IC_COLL_ALLTOALLV ? NULL : a->counts;
}

/* True when slot s remembers the decision for call a (every argument the
 * decision depends on is equal). */
static bool same_call(const ic_strategy_t *s, const ic_coll_args_t *a, const ic_algo_t *forced,
                      int p)
{
    const size_t *c = counts_of(a);
    return s->valid && s->coll == (int)a->coll && s->root == a->root && s->count == a->count &&
           s->dtype == a->dtype && s->commutative == (!a->op || a->op->commutative) &&
           s->forced == forced && s->reproducible == (int)a->reproducible &&
           (s->counts == NULL) == (c == NULL) &&
           (!c || memcmp(s->counts, c, sizeof(size_t) * (size_t)p) == 0);
}


void ic_strategy_clear(ic_comm_t *comm)
{
    for (int i = 0; i < IC_STRATEGY_SLOTS; i++)
        free(comm->strategy[i].counts);
    memset(comm->strategy, 0, sizeof comm->strategy);
    comm->strategy_next = 0;
}

void ic_strategy_decide(ic_comm_t *comm, const ic_coll_args_t *a, const ic_algo_t *forced,
                        ic_choice_t *out)
{
    int p = comm->size;
    /* All-to-all(v) with per-rank counts has no common size: not cached
     * (its decision does not depend on the counts anyway). */
    bool cacheable = a->coll != IC_COLL_ALLTOALLV && !a->counts_at_root;
    for (int i = 0; cacheable && i < IC_STRATEGY_SLOTS; i++) {
        if (same_call(&comm->strategy[i], a, forced, p)) {
            *out = comm->strategy[i].choice;
            return;
        }
    }
    enum { MAXC = 128 };
    ic_choice_t *cands = comm->explain && comm->rank == 0 ? malloc(sizeof(*cands) * MAXC) : NULL;
    int n = ic_decide(a, p, forced, &a->model, out, cands, cands ? MAXC : 0);
    if (cands) {
        char *buf = malloc(16384);
        if (buf) {
            ic_explain_format(a, p, cands, n < MAXC ? n : MAXC, out, buf, 16384);
            fprintf(stderr, "intercom explain: %s%s", forced ? "(forced) " : "", buf);
            free(buf);
        }
        free(cands);
    }
    if (!cacheable)
        return;
    const size_t *c = counts_of(a);
    size_t *copy = c ? malloc(sizeof(size_t) * (size_t)p) : NULL;
    if (c && !copy)
        return; /* not remembered: decided again next time, with the same result */
    if (copy)
        memcpy(copy, c, sizeof(size_t) * (size_t)p);
    ic_strategy_t *s = &comm->strategy[comm->strategy_next++ % IC_STRATEGY_SLOTS];
    free(s->counts);
    *s = (ic_strategy_t){.valid = 1,
                         .coll = (int)a->coll,
                         .root = a->root,
                         .commutative = !a->op || a->op->commutative,
                         .reproducible = a->reproducible,
                         .dtype = a->dtype,
                         .count = a->count,
                         .counts = copy,
                         .forced = forced,
                         .choice = *out};
}
