/*
 * dropin_issue.c — one call of any intercepted collective in any of its
 * forms: blocking, nonblocking (MPI_I...), persistent (MPI_..._init, MPI 4)
 * and large-count (MPI_..._c, MPI 4, in all three forms).
 */
#include "dropin.h"

#include <stdio.h>
#include <stdlib.h>

/* clang-format off */
const char *const coll_name[C_NCOLLS] = {
    "bcast", "reduce", "allreduce", "scatter", "scatterv", "gather", "gatherv",
    "allgather", "allgatherv", "reduce_scatter_block", "reduce_scatter", "alltoall",
    "alltoallv", "barrier", "scan", "exscan", "reduce_local"};
const char *const form_name[F_NFORMS] = {"blocking", "I", "_init", "_c", "I_c", "_init_c"};
/* clang-format on */

int form_available(int form)
{
    return form == F_BLOCK || form == F_NB || DROPIN_MPI4;
}

int coll_has_form(int coll, int form)
{
    if (!form_available(form))
        return 0;
    if (coll == C_REDUCE_LOCAL)
        return form == F_BLOCK || form == F_BLOCK_C;
    if (coll == C_BARRIER)
        return form == F_BLOCK || form == F_NB || form == F_PERS;
    return 1;
}

void call_init(call_t *c, int coll, int form, MPI_Comm comm)
{
    *c = (call_t){0};
    c->coll = coll;
    c->form = form;
    c->comm = comm;
    c->stype = c->rtype = MPI_INT;
    c->op = MPI_SUM;
    c->req = MPI_REQUEST_NULL;
}

#if DROPIN_MPI4
static MPI_Count *to_count(const int *a, int n)
{
    if (!a)
        return NULL;
    MPI_Count *r = xmalloc(sizeof *r * (size_t)n);
    for (int i = 0; i < n; i++)
        r[i] = a[i];
    return r;
}
static MPI_Aint *to_aint(const int *a, int n)
{
    if (!a)
        return NULL;
    MPI_Aint *r = xmalloc(sizeof *r * (size_t)n);
    for (int i = 0; i < n; i++)
        r[i] = a[i];
    return r;
}
/* The _c forms take MPI_Count counts and MPI_Aint displacements. */
static void make_c_arrays(call_t *c)
{
    int p;
    if (c->scounts_c || c->rcounts_c)
        return;
    MPI_Comm_size(c->comm, &p);
    c->scounts_c = to_count(c->scounts, p);
    c->rcounts_c = to_count(c->rcounts, p);
    c->sdispls_c = to_aint(c->sdispls, p);
    c->rdispls_c = to_aint(c->rdispls, p);
}

/* clang-format off */
#define FORMS(B, NB, P, BC, NBC, PC)          \
    switch (c->form) {                        \
    case F_BLOCK: rc = (B); break;            \
    case F_NB: rc = (NB); break;              \
    case F_PERS: rc = (P); break;             \
    case F_BLOCK_C: rc = (BC); break;         \
    case F_NB_C: rc = (NBC); break;           \
    case F_PERS_C: rc = (PC); break;          \
    default: break;                           \
    }
#else
#define FORMS(B, NB, P, BC, NBC, PC)          \
    switch (c->form) {                        \
    case F_BLOCK: rc = (B); break;            \
    case F_NB: rc = (NB); break;              \
    default: break;                           \
    }
#endif
/* clang-format on */

void call_issue(call_t *c)
{
    int rc = -1;
    static int trace = -1;
    if (trace < 0)
        trace = getenv("TEST_DROPIN_TRACE") && atoi(getenv("TEST_DROPIN_TRACE")) > 1;
    if (trace)
        fprintf(stderr, "rank %d: %s %s root %d counts %d %d\n", g_rank, coll_name[c->coll],
                form_name[c->form], c->root, c->scount, c->rcount);
    MPI_Comm cm = c->comm;
    MPI_Request *rq = &c->req;
    const void *sb = c->sbuf;
    void *rb = c->rbuf;
    int sn = c->scount, rn = c->rcount;
    MPI_Datatype st = c->stype, rt = c->rtype;
#if DROPIN_MPI4
    MPI_Info in = MPI_INFO_NULL;
    MPI_Count snc = sn, rnc = rn;
    if (c->form >= F_BLOCK_C)
        make_c_arrays(c);
    MPI_Count *scc = c->scounts_c, *rcc = c->rcounts_c;
    MPI_Aint *sdc = c->sdispls_c, *rdc = c->rdispls_c;
#endif
    int *scs = c->scounts, *sds = c->sdispls, *rcs = c->rcounts, *rds = c->rdispls;
    (void)scs, (void)sds, (void)rcs, (void)rds, (void)rq, (void)rt;

    /* clang-format off */
    switch (c->coll) {
    case C_BCAST:
        FORMS(MPI_Bcast(rb, sn, st, c->root, cm),
              MPI_Ibcast(rb, sn, st, c->root, cm, rq),
              MPI_Bcast_init(rb, sn, st, c->root, cm, in, rq),
              MPI_Bcast_c(rb, snc, st, c->root, cm),
              MPI_Ibcast_c(rb, snc, st, c->root, cm, rq),
              MPI_Bcast_init_c(rb, snc, st, c->root, cm, in, rq));
        break;
    case C_REDUCE:
        FORMS(MPI_Reduce(sb, rb, sn, st, c->op, c->root, cm),
              MPI_Ireduce(sb, rb, sn, st, c->op, c->root, cm, rq),
              MPI_Reduce_init(sb, rb, sn, st, c->op, c->root, cm, in, rq),
              MPI_Reduce_c(sb, rb, snc, st, c->op, c->root, cm),
              MPI_Ireduce_c(sb, rb, snc, st, c->op, c->root, cm, rq),
              MPI_Reduce_init_c(sb, rb, snc, st, c->op, c->root, cm, in, rq));
        break;
    case C_ALLREDUCE:
        FORMS(MPI_Allreduce(sb, rb, sn, st, c->op, cm),
              MPI_Iallreduce(sb, rb, sn, st, c->op, cm, rq),
              MPI_Allreduce_init(sb, rb, sn, st, c->op, cm, in, rq),
              MPI_Allreduce_c(sb, rb, snc, st, c->op, cm),
              MPI_Iallreduce_c(sb, rb, snc, st, c->op, cm, rq),
              MPI_Allreduce_init_c(sb, rb, snc, st, c->op, cm, in, rq));
        break;
    case C_SCATTER:
        FORMS(MPI_Scatter(sb, sn, st, rb, rn, rt, c->root, cm),
              MPI_Iscatter(sb, sn, st, rb, rn, rt, c->root, cm, rq),
              MPI_Scatter_init(sb, sn, st, rb, rn, rt, c->root, cm, in, rq),
              MPI_Scatter_c(sb, snc, st, rb, rnc, rt, c->root, cm),
              MPI_Iscatter_c(sb, snc, st, rb, rnc, rt, c->root, cm, rq),
              MPI_Scatter_init_c(sb, snc, st, rb, rnc, rt, c->root, cm, in, rq));
        break;
    case C_SCATTERV:
        FORMS(MPI_Scatterv(sb, scs, sds, st, rb, rn, rt, c->root, cm),
              MPI_Iscatterv(sb, scs, sds, st, rb, rn, rt, c->root, cm, rq),
              MPI_Scatterv_init(sb, scs, sds, st, rb, rn, rt, c->root, cm, in, rq),
              MPI_Scatterv_c(sb, scc, sdc, st, rb, rnc, rt, c->root, cm),
              MPI_Iscatterv_c(sb, scc, sdc, st, rb, rnc, rt, c->root, cm, rq),
              MPI_Scatterv_init_c(sb, scc, sdc, st, rb, rnc, rt, c->root, cm, in, rq));
        break;
    case C_GATHER:
        FORMS(MPI_Gather(sb, sn, st, rb, rn, rt, c->root, cm),
              MPI_Igather(sb, sn, st, rb, rn, rt, c->root, cm, rq),
              MPI_Gather_init(sb, sn, st, rb, rn, rt, c->root, cm, in, rq),
              MPI_Gather_c(sb, snc, st, rb, rnc, rt, c->root, cm),
              MPI_Igather_c(sb, snc, st, rb, rnc, rt, c->root, cm, rq),
              MPI_Gather_init_c(sb, snc, st, rb, rnc, rt, c->root, cm, in, rq));
        break;
    case C_GATHERV:
        FORMS(MPI_Gatherv(sb, sn, st, rb, rcs, rds, rt, c->root, cm),
              MPI_Igatherv(sb, sn, st, rb, rcs, rds, rt, c->root, cm, rq),
              MPI_Gatherv_init(sb, sn, st, rb, rcs, rds, rt, c->root, cm, in, rq),
              MPI_Gatherv_c(sb, snc, st, rb, rcc, rdc, rt, c->root, cm),
              MPI_Igatherv_c(sb, snc, st, rb, rcc, rdc, rt, c->root, cm, rq),
              MPI_Gatherv_init_c(sb, snc, st, rb, rcc, rdc, rt, c->root, cm, in, rq));
        break;
    case C_ALLGATHER:
        FORMS(MPI_Allgather(sb, sn, st, rb, rn, rt, cm),
              MPI_Iallgather(sb, sn, st, rb, rn, rt, cm, rq),
              MPI_Allgather_init(sb, sn, st, rb, rn, rt, cm, in, rq),
              MPI_Allgather_c(sb, snc, st, rb, rnc, rt, cm),
              MPI_Iallgather_c(sb, snc, st, rb, rnc, rt, cm, rq),
              MPI_Allgather_init_c(sb, snc, st, rb, rnc, rt, cm, in, rq));
        break;
    case C_ALLGATHERV:
        FORMS(MPI_Allgatherv(sb, sn, st, rb, rcs, rds, rt, cm),
              MPI_Iallgatherv(sb, sn, st, rb, rcs, rds, rt, cm, rq),
              MPI_Allgatherv_init(sb, sn, st, rb, rcs, rds, rt, cm, in, rq),
              MPI_Allgatherv_c(sb, snc, st, rb, rcc, rdc, rt, cm),
              MPI_Iallgatherv_c(sb, snc, st, rb, rcc, rdc, rt, cm, rq),
              MPI_Allgatherv_init_c(sb, snc, st, rb, rcc, rdc, rt, cm, in, rq));
        break;
    case C_REDUCE_SCATTER_BLOCK:
        FORMS(MPI_Reduce_scatter_block(sb, rb, rn, st, c->op, cm),
              MPI_Ireduce_scatter_block(sb, rb, rn, st, c->op, cm, rq),
              MPI_Reduce_scatter_block_init(sb, rb, rn, st, c->op, cm, in, rq),
              MPI_Reduce_scatter_block_c(sb, rb, rnc, st, c->op, cm),
              MPI_Ireduce_scatter_block_c(sb, rb, rnc, st, c->op, cm, rq),
              MPI_Reduce_scatter_block_init_c(sb, rb, rnc, st, c->op, cm, in, rq));
        break;
    case C_REDUCE_SCATTER:
        FORMS(MPI_Reduce_scatter(sb, rb, rcs, st, c->op, cm),
              MPI_Ireduce_scatter(sb, rb, rcs, st, c->op, cm, rq),
              MPI_Reduce_scatter_init(sb, rb, rcs, st, c->op, cm, in, rq),
              MPI_Reduce_scatter_c(sb, rb, rcc, st, c->op, cm),
              MPI_Ireduce_scatter_c(sb, rb, rcc, st, c->op, cm, rq),
              MPI_Reduce_scatter_init_c(sb, rb, rcc, st, c->op, cm, in, rq));
        break;
    case C_ALLTOALL:
        FORMS(MPI_Alltoall(sb, sn, st, rb, rn, rt, cm),
              MPI_Ialltoall(sb, sn, st, rb, rn, rt, cm, rq),
              MPI_Alltoall_init(sb, sn, st, rb, rn, rt, cm, in, rq),
              MPI_Alltoall_c(sb, snc, st, rb, rnc, rt, cm),
              MPI_Ialltoall_c(sb, snc, st, rb, rnc, rt, cm, rq),
              MPI_Alltoall_init_c(sb, snc, st, rb, rnc, rt, cm, in, rq));
        break;
    case C_ALLTOALLV:
        FORMS(MPI_Alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, cm),
              MPI_Ialltoallv(sb, scs, sds, st, rb, rcs, rds, rt, cm, rq),
              MPI_Alltoallv_init(sb, scs, sds, st, rb, rcs, rds, rt, cm, in, rq),
              MPI_Alltoallv_c(sb, scc, sdc, st, rb, rcc, rdc, rt, cm),
              MPI_Ialltoallv_c(sb, scc, sdc, st, rb, rcc, rdc, rt, cm, rq),
              MPI_Alltoallv_init_c(sb, scc, sdc, st, rb, rcc, rdc, rt, cm, in, rq));
        break;
    case C_BARRIER:
        FORMS(MPI_Barrier(cm), MPI_Ibarrier(cm, rq), MPI_Barrier_init(cm, in, rq), -1, -1, -1);
        break;
    case C_SCAN:
        FORMS(MPI_Scan(sb, rb, sn, st, c->op, cm),
              MPI_Iscan(sb, rb, sn, st, c->op, cm, rq),
              MPI_Scan_init(sb, rb, sn, st, c->op, cm, in, rq),
              MPI_Scan_c(sb, rb, snc, st, c->op, cm),
              MPI_Iscan_c(sb, rb, snc, st, c->op, cm, rq),
              MPI_Scan_init_c(sb, rb, snc, st, c->op, cm, in, rq));
        break;
    case C_EXSCAN:
        FORMS(MPI_Exscan(sb, rb, sn, st, c->op, cm),
              MPI_Iexscan(sb, rb, sn, st, c->op, cm, rq),
              MPI_Exscan_init(sb, rb, sn, st, c->op, cm, in, rq),
              MPI_Exscan_c(sb, rb, snc, st, c->op, cm),
              MPI_Iexscan_c(sb, rb, snc, st, c->op, cm, rq),
              MPI_Exscan_init_c(sb, rb, snc, st, c->op, cm, in, rq));
        break;
    case C_REDUCE_LOCAL:
        FORMS(MPI_Reduce_local(sb, rb, sn, st, c->op), -1, -1,
              MPI_Reduce_local_c(sb, rb, snc, st, c->op), -1, -1);
        break;
    default:
        break;
    }
    /* clang-format on */
    if (rc != MPI_SUCCESS) {
        char what[64];
        snprintf(what, sizeof what, "%s %s", coll_name[c->coll], form_name[c->form]);
        check_rc(rc, what);
    } else {
        check(1, "call");
    }
}

void call_release(call_t *c)
{
    if (c->req != MPI_REQUEST_NULL && form_is_pers(c->form))
        MPI_Request_free(&c->req);
#if DROPIN_MPI4
    free(c->scounts_c);
    free(c->rcounts_c);
    free(c->sdispls_c);
    free(c->rdispls_c);
    c->scounts_c = c->rcounts_c = NULL;
    c->sdispls_c = c->rdispls_c = NULL;
#endif
}
