/*
 * dump.c — a readable listing of one rank's plan, like SQL's EXPLAIN.
 *
 *   plan allreduce/rs_ag  rank 1 of 3  int32 sum  scratch 64 B  8 steps
 *     #0  SEND    -> 2   tag 1.0   send+0          4 B
 *     #1  RECV    <- 0   tag 1.0   scratch+0       4 B
 *     #2  REDUCE  send+4 => scratch+0             4 B   after #1
 */
#include "plan/plan.h"

const char *ic_step_kind_name(ic_step_kind_t kind)
{
    static const char *const names[] = {"SEND", "RECV", "COPY", "REDUCE", "JOIN"};
    return (unsigned)kind < 5 ? names[kind] : "?";
}

const char *ic_buf_name(ic_buf_id_t buf)
{
    static const char *const names[] = {"none", "send", "recv", "scratch"};
    return (unsigned)buf < IC_BUF_COUNT ? names[buf] : "?";
}

static void loc_str(char *out, size_t len, ic_loc_t l)
{
    snprintf(out, len, "%s+%zu", ic_buf_name((ic_buf_id_t)l.buf), (size_t)l.off);
}

void ic_plan_dump(const ic_plan_t *pl, FILE *out)
{
    fprintf(out, "plan %s/%s  rank %d of %d  %s %s  scratch %zu B  %zu steps\n",
            ic_coll_name(pl->coll), pl->algo ? pl->algo : "?", pl->rank, pl->size,
            ic_datatype_name(pl->dtype),
            pl->op ? ic_op_kind_name(pl->op->kind) : "-", pl->scratch_bytes,
            pl->nsteps);
    for (size_t i = 0; i < pl->nsteps; i++) {
        const ic_step_t *s = &pl->steps[i];
        char a[48], b[48], head[128];
        switch ((ic_step_kind_t)s->kind) {
        case IC_STEP_SEND:
            loc_str(a, sizeof a, s->src);
            snprintf(head, sizeof head, "-> %-4d tag %u.%u  %s", s->peer,
                     s->tag >> IC_TAG_PHASE_SHIFT, s->tag & IC_TAG_MAX_IN_PHASE, a);
            break;
        case IC_STEP_RECV:
            loc_str(a, sizeof a, s->dst);
            snprintf(head, sizeof head, "<- %-4d tag %u.%u  %s", s->peer,
                     s->tag >> IC_TAG_PHASE_SHIFT, s->tag & IC_TAG_MAX_IN_PHASE, a);
            break;
        case IC_STEP_JOIN:
            snprintf(head, sizeof head, "(fence)");
            break;
        default:
            loc_str(a, sizeof a, s->src);
            loc_str(b, sizeof b, s->dst);
            snprintf(head, sizeof head, "%s => %s%s%s", a, b,
                     (s->flags & IC_RED_DST_LEFT) ? " (dst left)" : "",
                     (s->flags & IC_RED_EXACT) ? " (exact)" : "");
            break;
        }
        fprintf(out, "  #%-3zu %-6s  %-34s %8zu B", i,
                ic_step_kind_name((ic_step_kind_t)s->kind), head, s->bytes);
        for (uint32_t d = 0; d < s->ndeps; d++)
            fprintf(out, "%s#%u", d ? "," : "   after ", pl->deps[s->dep_first + d]);
        fputc('\n', out);
    }
}
