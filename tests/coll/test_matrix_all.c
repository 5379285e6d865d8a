/* test_matrix_all.c — allreduce, allgather(v), reduce_scatter(_block),
 * alltoall(v), barrier, scan, exscan: every algorithm forced by name,
 * every p of the matrix, every count, int32 and float. */
#include "matrix.h"

int main(void)
{
    harness_init();
    tally_t t = {0};
    const ic_coll_t colls[] = {IC_COLL_ALLREDUCE,  IC_COLL_ALLGATHER,
                               IC_COLL_ALLGATHERV, IC_COLL_REDUCE_SCATTER_BLOCK,
                               IC_COLL_REDUCE_SCATTER, IC_COLL_ALLTOALL,
                               IC_COLL_ALLTOALLV,  IC_COLL_BARRIER,
                               IC_COLL_SCAN,       IC_COLL_EXSCAN};
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
        matrix_run(&t, colls[i], IC_INT32, IC_FLOAT, IC_SUM, 256e6);
    return finish(&t, "test_matrix_all");
}
