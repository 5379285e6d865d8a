/*
 * check.c — IC_CHECK=1 (and ic_comm_set_check): before each collective
 * the ranks allgather a fingerprint of their call (collective, root,
 * datatype, counts, op, forced algorithm, reproducible mode, mesh, model)
 * and compare them; a mismatch fails the call on every rank with IC_ERR_MISMATCH and a
 * message naming the first rank that differs and the field, and the
 * communicator goes on (coll_run.c runs the exchange; this file builds
 * and compares the fingerprints).  Cost: one allgather of
 * sizeof(ic_fingerprint_t) bytes per rank before every call.
 */
#include "core/check.h"

#include "base/dtype.h"
#include "algo/validate.h"
#include "base/status.h"

#include <string.h>

uint64_t ic_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

void ic_fingerprint_of(const ic_comm_t *comm, const ic_coll_args_t *a, ic_fingerprint_t *fp)
{
    const uint64_t h0 = 0xcbf29ce484222325ull;
    memset(fp, 0, sizeof *fp);
    fp->coll = (int32_t)a->coll;
    fp->root = ic_coll_rooted(a->coll) ? a->root : 0;
    fp->dtype = a->coll == IC_COLL_BARRIER ? 0 : (int32_t)a->dtype;
    fp->op_kind = ic_coll_reduces(a->coll) && a->op ? (int32_t)a->op->kind : -1;
    fp->commutative = ic_coll_reduces(a->coll) && a->op ? a->op->commutative : -1;
    fp->reproducible = ic_coll_reduces(a->coll) && a->reproducible;
    bool v = a->counts && a->coll != IC_COLL_ALLTOALLV && !a->counts_at_root;
    fp->count = a->counts || a->coll == IC_COLL_ALLTOALLV ? 0 : a->count;
    fp->counts_hash = v ? ic_fnv1a(h0, a->counts, sizeof(size_t) * (size_t)comm->size) : 0;
    const char *algo = comm->algo[a->coll];
    fp->algo_hash = algo ? ic_fnv1a(h0, algo, strlen(algo)) : 0;
    fp->mesh_hash = comm->has_mesh ? ic_fnv1a(h0, &comm->mesh, sizeof comm->mesh) : 0;
    fp->phys_hash = comm->phys_node ? ic_phys_hash(&comm->phys, comm->size) : 0;
    double m[6] = {comm->model.alpha, comm->model.beta,     comm->model.gamma,
                   comm->model.delta, comm->model.beta_net, (double)comm->model.ports};
    fp->model_hash = ic_fnv1a(h0, m, sizeof m);
}

static const char *op_name(int32_t kind)
{
    return kind < 0 ? "none" : kind == IC_OP_USER ? "user" : ic_op_kind_name((ic_op_kind_t)kind);
}

ic_status_t ic_fingerprints_compare(const char *fn, const ic_fingerprint_t *all, int size)
{
    const ic_fingerprint_t *z = &all[0];
    for (int r = 1; r < size; r++) {
        const ic_fingerprint_t *x = &all[r];
        if (memcmp(x, z, sizeof *x) == 0)
            continue;
        const char *field;
        long long got = 0, want = 0;
        int numbers = 1;
        if (x->coll != z->coll)
            field = "collective", numbers = 0;
        else if (x->root != z->root)
            field = "root", got = x->root, want = z->root;
        else if (x->dtype != z->dtype)
            field = "datatype", numbers = 0;
        else if (x->op_kind != z->op_kind || x->commutative != z->commutative)
            field = "op", numbers = 0;
        else if (x->count != z->count)
            field = "count", got = (long long)x->count, want = (long long)z->count;
        else if (x->counts_hash != z->counts_hash)
            field = "counts array", numbers = 0;
        else if (x->algo_hash != z->algo_hash)
            field = "forced algorithm (ic_comm_set_algorithm / IC_ALGO)", numbers = 0;
        else if (x->reproducible != z->reproducible)
            field = "reproducible mode (IC_REPRODUCIBLE / ic_comm_set_reproducible)", numbers = 0;
        else if (x->mesh_hash != z->mesh_hash)
            field = "logical mesh (ic_comm_set_mesh)", numbers = 0;
        else if (x->phys_hash != z->phys_hash)
            field = "physical network (ic_comm_set_network)", numbers = 0;
        else
            field = "cost model (ic_comm_set_model / the tune file)", numbers = 0;
        if (x->coll != z->coll)
            return ic_set_error(IC_ERR_MISMATCH,
                                "%s: IC_CHECK: rank %d called %s, rank 0 called %s", fn, r,
                                ic_coll_name((ic_coll_t)x->coll),
                                ic_coll_name((ic_coll_t)z->coll));
        if (x->dtype != z->dtype)
            return ic_set_error(IC_ERR_MISMATCH,
                                "%s: IC_CHECK: rank %d passed datatype %s, rank 0 %s", fn, r,
                                ic_datatype_name((ic_datatype_t)x->dtype),
                                ic_datatype_name((ic_datatype_t)z->dtype));
        if (x->op_kind != z->op_kind || x->commutative != z->commutative)
            return ic_set_error(IC_ERR_MISMATCH,
                                "%s: IC_CHECK: rank %d passed op %s (%scommutative), rank 0 op %s "
                                "(%scommutative)",
                                fn, r, op_name(x->op_kind), x->commutative ? "" : "not ",
                                op_name(z->op_kind), z->commutative ? "" : "not ");
        if (numbers)
            return ic_set_error(IC_ERR_MISMATCH,
                                "%s: IC_CHECK: rank %d passed %s %lld, rank 0 passed %lld", fn, r,
                                field, got, want);
        return ic_set_error(IC_ERR_MISMATCH, "%s: IC_CHECK: rank %d's %s differs from rank 0's",
                            fn, r, field);
    }
    return IC_OK;
}
