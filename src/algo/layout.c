/* layout.c — helpers on block layouts shared by the blocks. */
#include "algo/blocks.h"

bool ic_layout_contiguous(const ic_layout_t *l, const size_t *len, int lo, int hi)
{
    for (int i = lo; i < hi; i++)
        if (l->off[i] + len[i] != l->off[i + 1])
            return false;
    return true;
}
