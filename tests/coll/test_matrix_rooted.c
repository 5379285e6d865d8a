/* test_matrix_rooted.c — broadcast, reduce, scatter(v), gather(v): every
 * algorithm forced by name, every p of the matrix, every root (sampled
 * above 17, and above 9 for the counts 1000 and 65539: matrix.h), every
 * count, int32 and double. */
#include "matrix.h"

int main(void)
{
    harness_init();
    tally_t t = {0};
    const ic_coll_t colls[] = {IC_COLL_BCAST,   IC_COLL_REDUCE, IC_COLL_SCATTER,
                               IC_COLL_SCATTERV, IC_COLL_GATHER, IC_COLL_GATHERV};
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
        matrix_run(&t, colls[i], IC_INT32, IC_DOUBLE, IC_SUM, 256e6);
    return finish(&t, "test_matrix_rooted");
}
