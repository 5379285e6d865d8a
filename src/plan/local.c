/* local.c — executing a plan's local steps (COPY, REDUCE; JOIN does nothing). */
#include "base/copy.h"
#include "plan/plan.h"

#include <string.h>

void ic_step_run_local(const ic_plan_t *pl, const ic_step_t *s, unsigned char *src,
                       unsigned char *dst)
{
    if (s->kind == IC_STEP_JOIN)
        return;
    if (s->kind == IC_STEP_COPY) {
        /* Large copies stream (base/copy.h); overlapping ones move. */
        if (dst + s->bytes <= src || src + s->bytes <= dst)
            ic_copy(dst, src, s->bytes);
        else
            memmove(dst, src, s->bytes);
        return;
    }
    size_t count = s->bytes / ic_datatype_size(pl->dtype);
    /* Exact sides (IC_REPRODUCIBLE): the NaN-exact kernels too. */
    void (*apply)(const ic_op_t *, ic_datatype_t, const void *, void *, size_t) =
        pl->exact_sides ? ic_reduce_apply_exact : ic_reduce_apply;
    bool exact = pl->exact_sides || (s->flags & IC_RED_EXACT) || !pl->op->commutative;
    if (!(s->flags & IC_RED_DST_LEFT) || !exact) {
        apply(pl->op, pl->dtype, src, dst, count);
        return;
    }
    /* dst = dst (op) src for a non-commutative op (or with exact sides):
     * compute into src (which the plan lets us clobber), then copy back. */
    apply(pl->op, pl->dtype, dst, src, count);
    ic_copy(dst, src, s->bytes);
}
