/* coll_common.c — helpers shared by the plan builders. */
#include "algo/builders.h"

size_t ic_args_esize(const ic_coll_args_t *a) { return ic_datatype_size(a->dtype); }

size_t *ic_args_block_bytes(ic_plan_t *pl, const ic_coll_args_t *a)
{
    size_t *len = ic_plan_sizes(pl, (size_t)pl->size);
    if (!len)
        return NULL;
    size_t es = ic_args_esize(a);
    for (int i = 0; i < pl->size; i++)
        len[i] = (a->counts ? a->counts[i] : a->count) * es;
    return len;
}

size_t *ic_args_block_offsets(ic_plan_t *pl, const ic_coll_args_t *a, const size_t *len)
{
    size_t *off = ic_plan_sizes(pl, (size_t)pl->size);
    if (!off)
        return NULL;
    if (!a->displs) {
        ic_prefix_offsets(len, pl->size, off);
        return off;
    }
    size_t es = ic_args_esize(a);
    for (int i = 0; i < pl->size; i++)
        off[i] = a->displs[i] * es;
    return off;
}

ic_loc_t ic_args_allreduce_input(const ic_coll_args_t *a)
{
    return a->in_place ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_SEND, 0);
}
