/*
 * test_ring_rs_plan.c — the ring reduce-scatter's last step
 * (src/algo/ring_reduce_scatter.c): the last partial is received straight
 * into the result and the member's own block combined into it there, with
 * no copy of the own block first and no scratch for that receive, unless
 * the result overlaps the own block (in place, member 0).  Checked on the
 * plans the catalog builds for reduce_scatter_block/ring, p = 2..7, every
 * rank, 16 floats per block.
 *
 * Also the allreduce built on it (rs_ag, coll_allreduce.c): with a core
 * per rank every receive of the allgather waits (through the fence) for
 * every REDUCE of the reduce-scatter; with the ranks crowded on the cores
 * the allgather's receives are ready at the start (no fence).  p = 2..5,
 * every rank.
 */
#include "plan/plan.h"
#include "select/catalog.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

#define BLOCK 64 /* bytes: 16 floats */

static long count_kind(const ic_plan_t *pl, ic_step_kind_t kind)
{
    long n = 0;
    for (size_t i = 0; i < pl->nsteps; i++)
        n += pl->steps[i].kind == kind;
    return n;
}

static long last_of(const ic_plan_t *pl, ic_step_kind_t kind)
{
    for (size_t i = pl->nsteps; i-- > 0;)
        if (pl->steps[i].kind == kind)
            return (long)i;
    return -1;
}

static void check_plan(int p, int rank, bool in_place)
{
    ic_coll_args_t a = {.coll = IC_COLL_REDUCE_SCATTER_BLOCK, .dtype = IC_FLOAT, .op = IC_SUM,
                        .count = BLOCK / 4, .in_place = in_place, .model = ic_model_default()};
    ic_plan_t pl;
    if (ic_plan_build("test", &a, rank, p, "ring", &pl) != IC_OK) {
        CHECK(0, "p=%d rank %d: build failed: %s", p, rank, ic_last_error());
        return;
    }
    /* Where the own block is: the send buffer, or block rank of the
     * receive buffer in place. */
    ic_buf_id_t inbuf = in_place ? IC_BUF_RECV : IC_BUF_SEND;
    bool overlap = in_place && rank == 0;
    long recv = last_of(&pl, IC_STEP_RECV), red = last_of(&pl, IC_STEP_REDUCE);
    CHECK(recv >= 0 && red == (long)pl.nsteps - 1, "p=%d rank %d: no last receive/reduce", p,
          rank);
    if (recv < 0 || red < 0) {
        ic_plan_release(&pl);
        return;
    }
    const ic_step_t *r = &pl.steps[recv], *c = &pl.steps[red];
    CHECK(count_kind(&pl, IC_STEP_COPY) == 0,
          "p=%d rank %d%s: %ld COPY steps, want none (the own block is combined in place)", p,
          rank, in_place ? " in place" : "", count_kind(&pl, IC_STEP_COPY));
    CHECK(c->dst.buf == IC_BUF_RECV && c->dst.off == 0 && c->bytes == BLOCK,
          "p=%d rank %d: the last REDUCE does not write the result", p, rank);
    if (overlap) { /* received into scratch, combined into the own block */
        CHECK(r->dst.buf == IC_BUF_SCRATCH && c->src.buf == IC_BUF_SCRATCH,
              "p=%d rank 0 in place: the last partial must not land on the own block", p);
    } else {
        CHECK(r->dst.buf == IC_BUF_RECV && r->dst.off == 0,
              "p=%d rank %d%s: the last partial goes to %s+%llu, not recv+0", p, rank,
              in_place ? " in place" : "", ic_buf_name((ic_buf_id_t)r->dst.buf),
              (unsigned long long)r->dst.off);
        CHECK(c->src.buf == inbuf && c->src.off == (uint64_t)rank * BLOCK,
              "p=%d rank %d%s: the last REDUCE does not take the own block", p, rank,
              in_place ? " in place" : "");
        /* Partials for p - 2 receives, two buffers at most. */
        size_t want = (size_t)(p - 2 < 2 ? p - 2 : 2) * BLOCK;
        CHECK(pl.scratch_bytes == want, "p=%d rank %d: scratch %zu B, want %zu", p, rank,
              pl.scratch_bytes, want);
    }
    ic_plan_release(&pl);
}

/* True if step i waits for step j, directly or through other steps. */
static bool waits_for(const ic_plan_t *pl, size_t i, size_t j, char *seen)
{
    if (i == j)
        return true;
    if (seen[i])
        return false;
    seen[i] = 1;
    const ic_step_t *s = &pl->steps[i];
    for (uint32_t d = 0; d < s->ndeps; d++)
        if (waits_for(pl, pl->deps[s->dep_first + d], j, seen))
            return true;
    return false;
}

static void check_allreduce_fence(int p, int rank, bool crowded)
{
    ic_coll_args_t a = {.coll = IC_COLL_ALLREDUCE, .dtype = IC_FLOAT, .op = IC_SUM,
                        .count = (size_t)(16 * p), .model = ic_model_default()};
    a.model.cores = crowded ? 1 : 0;
    ic_plan_t pl;
    if (ic_plan_build("test", &a, rank, p, "rs_ag", &pl) != IC_OK) {
        CHECK(0, "allreduce/rs_ag p=%d rank %d: %s", p, rank, ic_last_error());
        return;
    }
    uint32_t ag_phase = 0;
    for (size_t i = 0; i < pl.nsteps; i++)
        if (pl.steps[i].kind == IC_STEP_RECV && pl.steps[i].tag >> IC_TAG_PHASE_SHIFT > ag_phase)
            ag_phase = pl.steps[i].tag >> IC_TAG_PHASE_SHIFT;
    char seen[256];
    int ag_recvs = 0, ordered = 1, ready_at_start = 0;
    for (size_t i = 0; i < pl.nsteps && pl.nsteps <= sizeof seen; i++) {
        if (pl.steps[i].kind != IC_STEP_RECV || pl.steps[i].tag >> IC_TAG_PHASE_SHIFT != ag_phase)
            continue;
        ag_recvs++;
        ready_at_start += pl.steps[i].ndeps == 0;
        for (size_t j = 0; j < pl.nsteps; j++) {
            if (pl.steps[j].kind != IC_STEP_REDUCE)
                continue;
            memset(seen, 0, sizeof seen);
            ordered &= waits_for(&pl, i, j, seen);
        }
    }
    CHECK(ag_recvs == p - 1 && pl.nsteps <= sizeof seen,
          "allreduce/rs_ag p=%d: %d allgather receives", p, ag_recvs);
    if (crowded)
        CHECK(ready_at_start >= 1,
              "allreduce/rs_ag p=%d rank %d crowded: no allgather receive is ready at the start",
              p, rank);
    else
        CHECK(ordered && ready_at_start == 0,
              "allreduce/rs_ag p=%d rank %d: an allgather receive does not wait for the "
              "reduce-scatter",
              p, rank);
    ic_plan_release(&pl);
}

int main(void)
{
    for (int p = 2; p <= 5; p++)
        for (int rank = 0; rank < p; rank++) {
            check_allreduce_fence(p, rank, false);
            check_allreduce_fence(p, rank, true);
        }
    for (int p = 2; p <= 7; p++)
        for (int rank = 0; rank < p; rank++) {
            check_plan(p, rank, false);
            check_plan(p, rank, true);
        }
    printf("test_ring_rs_plan: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
