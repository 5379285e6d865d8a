/*
 * strategy.c — the strategy cache of [Watts94] section 15.1 ("associate
 * vector lengths with their strategies, re-using the strategies when the
 * operation is performed again on a vector of the same (or nearly the
 * same) length") and IC_EXPLAIN.  Every rank sees the same calls in the
 * same order, so every rank's cache holds the same decisions.
 */
#include "core/strategy.h"

#include "base/dtype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned ic_size_class(const ic_coll_args_t *a, int p)
{
    size_t n = a->count;
    if (a->counts) {
        n = 0;
        for (int i = 0; i < p; i++)
            n += a->counts[i];
    }
    unsigned long long b = (unsigned long long)n * ic_datatype_size(a->dtype);
    if (b < 16)
        return (unsigned)b;
    int e = 63 - __builtin_clzll(b);              /* 2^e <= b < 2^(e+1) */
    unsigned eighth = (unsigned)((b >> (e - 3)) & 7u); /* next three bits */
    return 16u + (unsigned)e * 8u + eighth;
}

static int root_kind(const ic_coll_args_t *a, int p)
{
    return a->root == 0 ? 0 : a->root == p - 1 ? 2 : 1;
}

static bool explain_on(void)
{
    const char *e = getenv("IC_EXPLAIN");
    return e && e[0] && strcmp(e, "0") != 0;
}

void ic_strategy_clear(ic_comm_t *comm)
{
    memset(comm->strategy, 0, sizeof comm->strategy);
    comm->strategy_next = 0;
}

void ic_strategy_decide(ic_comm_t *comm, const ic_coll_args_t *a, const ic_algo_t *forced,
                        ic_choice_t *out)
{
    int p = comm->size;
    int cls = (int)ic_size_class(a, p), rk = root_kind(a, p);
    int esize = (int)ic_datatype_size(a->dtype), comm_op = !a->op || a->op->commutative;
    /* All-to-all(v) with per-rank counts has no common size: not cached
     * (its decision does not depend on the counts anyway). */
    bool cacheable = a->coll != IC_COLL_ALLTOALLV;
    for (int i = 0; cacheable && i < IC_STRATEGY_SLOTS; i++) {
        const ic_strategy_t *s = &comm->strategy[i];
        if (s->valid && s->coll == (int)a->coll && s->size_class == cls && s->root_kind == rk &&
            s->esize == esize && s->commutative == comm_op &&
            (!forced || s->choice.al == forced)) {
            *out = s->choice;
            return;
        }
    }
    enum { MAXC = 128 };
    ic_choice_t *cands = explain_on() && comm->rank == 0 ? malloc(sizeof(*cands) * MAXC) : NULL;
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
    ic_strategy_t *s = &comm->strategy[comm->strategy_next++ % IC_STRATEGY_SLOTS];
    *s = (ic_strategy_t){1, (int)a->coll, cls, rk, esize, comm_op, *out};
}
