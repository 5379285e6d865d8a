/*
 * cost_crowded.c — the floor of a crowded broadcast: with more ranks on a
 * host than cores, a broadcast whose members forward costs at least its
 * p - 1 messages one after another,
 *
 *     T >= (p - 1) * (alpha + n*beta + extra(n))
 *
 * (extra: the transport's one-way protocol term, ic_msg_extra_oneway).
 * A member that forwards must be scheduled between its receive and its
 * sends, and the copies of a round of a tree wait for the cores anyway,
 * so the overlap a tree's rounds promise with a core per rank is not
 * there.  The same reasoning prices the crowded MST scatter and gather
 * (ic_cost_mst_serial).  The direct broadcast, whose root posts every
 * message itself (IC_ALGO_ROOT_SENDS), is exempt: its messages share one
 * start-up, so it is priced just below the floor.
 *
 * Measured on the 2-vCPU Intel Xeon VM (bench/choice_pairs.sh build 5,
 * 2026-12-01; docs/perf/oversubscribed.md, "Broadcast"): direct took
 * 0.70-1.03 of the MST's time in 23 of 24 cells at 4, 6, 8 and 16 ranks,
 * 16 KiB-16 MiB (the other 1.15: 16 ranks, 4 MiB); the mesh hybrids,
 * pipelines and scatter + allgather had been slower than the MST there
 * already (1.2-4x).
 */
#include "select/cost.h"

double ic_cost_bcast_crowded_floor(int p, size_t bytes, const ic_model_t *m)
{
    if (p <= 1 || bytes == 0)
        return 0;
    double n = (double)bytes;
    return (p - 1) * (m->alpha + n * m->beta + ic_msg_extra_oneway(m, n));
}
