/*
 * explain.c — ic_explain: the decision for a hypothetical call, as text.
 */
#include "core/comm.h"
#include "base/status.h"
#include "algo/validate.h"

#include <stdlib.h>

ic_status_t ic_explain(const ic_comm_t *comm, ic_coll_t coll, size_t count,
                       ic_datatype_t dtype, int root, char *buf, size_t len)
{
    ic_status_t cst = ic_comm_check("ic_explain", comm);
    if (cst != IC_OK)
        return cst;
    if (!buf || len == 0)
        return ic_set_error(IC_ERR_ARG, "ic_explain: buf is NULL or len is 0");
    if ((unsigned)coll >= IC_COLL_COUNT)
        return ic_set_error(IC_ERR_ARG, "ic_explain: coll %d is not valid", (int)coll);
    int p = comm->size;
    size_t *counts = malloc(sizeof(size_t) * (size_t)p);
    if (!counts)
        return ic_set_error(IC_ERR_NO_MEM, "ic_explain: out of memory");
    for (int i = 0; i < p; i++)
        counts[i] = count;
    bool v = coll == IC_COLL_SCATTERV || coll == IC_COLL_GATHERV || coll == IC_COLL_ALLGATHERV ||
             coll == IC_COLL_REDUCE_SCATTER || coll == IC_COLL_ALLTOALLV;
    ic_coll_args_t a = {0};
    a.coll = coll;
    a.dtype = dtype;
    a.op = IC_SUM;
    a.root = root;
    a.count = count;
    a.counts = v && coll != IC_COLL_ALLTOALLV ? counts : NULL;
    if (coll == IC_COLL_ALLTOALLV) {
        a.scounts = counts;
        a.rcounts = counts;
    }
    a.model = comm->model;
    a.mesh = comm->has_mesh ? &comm->mesh : NULL;
    a.phys = comm->phys_node ? &comm->phys : NULL;
    a.reproducible = comm->reproducible;
    ic_status_t st = ic_validate_args("ic_explain", &a, comm->rank, p);
    const ic_algo_t *forced = NULL;
    if (st == IC_OK)
        st = ic_catalog_force("ic_explain", &a, p, comm->algo[coll], &forced);
    enum { MAXC = 128 };
    ic_choice_t *cands = st == IC_OK ? malloc(sizeof(*cands) * MAXC) : NULL;
    if (st == IC_OK && !cands)
        st = ic_set_error(IC_ERR_NO_MEM, "ic_explain: out of memory");
    if (st == IC_OK) {
        ic_choice_t best;
        int n = ic_decide(&a, p, forced, &a.model, &best, cands, MAXC);
        ic_explain_format(&a, p, cands, n < MAXC ? n : MAXC, &best, buf, len);
    }
    free(cands);
    free(counts);
    return st;
}
