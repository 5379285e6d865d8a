/*
 * prepare.c — one MPI collective call as one intercom call.
 *
 * Data-moving collectives become byte collectives (IC_BYTE): a rank's
 * count of its datatype times the datatype's size, displacements times
 * its extent.  MPI lets ranks describe the same bytes with different
 * datatypes (only the type signatures must match), and bytes are what
 * they agree on.  A side whose layout is not one ordered run (a vector
 * type, a resized type with gaps, ...) is packed into a temporary buffer
 * (PMPI_Pack, native representation) before the call and unpacked after.
 * Reductions keep their element type: count times the number of base
 * elements per element of a contiguous derived type.
 *
 * Scatterv and gatherv: MPI gives the counts to the root only.  For small
 * p the call runs as one whose counts only the root has (the direct
 * entries, shim_counts_at_root_pays); otherwise intercom plans with every
 * rank's count on every rank, so the root's byte counts are broadcast
 * first (run.c).  Every other argument maps one to one.
 */
#include "mpi_shim/exec.h"

#include "base/status.h"
#include "core/comm.h"

#include <stdlib.h>
#include <string.h>

static const char *fname(const shim_call_t *c)
{
    return c->coll == SHIM_REDUCE_LOCAL ? "reduce_local" : ic_coll_name((ic_coll_t)c->coll);
}

static ic_status_t bad_count(const shim_call_t *c, const char *what, MPI_Count v)
{
    return ic_set_error(IC_ERR_COUNT, "MPI %s: %s = %lld is negative", fname(c), what,
                        (long long)v);
}

static ic_status_t type_of(const shim_call_t *c, MPI_Datatype t, const char *what,
                           shim_type_t *ti)
{
    if (shim_type(t, ti) != MPI_SUCCESS)
        return ic_set_error(IC_ERR_DTYPE, "MPI %s: %s is not a valid datatype", fname(c), what);
    return IC_OK;
}

/* A blocking call's arrays, for up to LOCAL_P ranks: the call uses them and
 * is over before the thread makes another one, so nothing is allocated. */
#define LOCAL_P 64
static _Thread_local size_t local_arr[4 * LOCAL_P];
static _Thread_local shim_blk_t local_blks[2 * LOCAL_P + 2];

/* Room for the arrays: k arrays of p size_t and nb blocks. */
static ic_status_t alloc_arrays(shim_exec_t *x, int k, int nb)
{
    size_t n = (size_t)k * (size_t)x->p;
    if (x->call.form == SHIM_BLOCKING && x->p <= LOCAL_P && k <= 4 && nb <= 2 * LOCAL_P + 2) {
        memset(local_arr, 0, sizeof(size_t) * n);
        memset(local_blks, 0, sizeof(shim_blk_t) * (size_t)nb);
        x->arr = local_arr;
        x->blks = local_blks;
        x->arrays_local = 1;
        return IC_OK;
    }
    x->arr = calloc(n ? n : 1, sizeof(size_t));
    x->blks = calloc(nb ? (size_t)nb : 1, sizeof(shim_blk_t));
    if (!x->arr || !x->blks)
        return ic_set_error(IC_ERR_NO_MEM, "MPI %s: out of memory", fname(&x->call));
    return IC_OK;
}

static void add_in(shim_exec_t *x, const void *user, MPI_Count n, MPI_Datatype t, size_t off)
{
    x->in[x->nin++] = (shim_blk_t){(char *)user, n, t, off, 0};
}

static void add_out(shim_exec_t *x, void *user, MPI_Count n, MPI_Datatype t, size_t off)
{
    x->out[x->nout++] = (shim_blk_t){(char *)user, n, t, off, 1};
}

static ic_status_t alloc_tmp(shim_exec_t *x, size_t bytes)
{
    x->tmp = malloc(bytes ? bytes : 1);
    if (!x->tmp)
        return ic_set_error(IC_ERR_NO_MEM, "MPI %s: out of memory for %zu bytes of packing",
                            fname(&x->call), bytes);
    return IC_OK;
}

/* One-block-per-rank collectives (scatter, gather, allgather, alltoall):
 * the send side has ns blocks of scount stype, the receive side nr
 * blocks of rcount rtype; bytes per block agree across ranks. */
static ic_status_t prepare_blocks(shim_exec_t *x, int ns, int nr)
{
    const shim_call_t *c = &x->call;
    int root = x->me == c->root || c->coll == IC_COLL_ALLGATHER || c->coll == IC_COLL_ALLTOALL;
    int send_side = c->sb != MPI_IN_PLACE && ns > 0;
    int recv_side = c->rb != MPI_IN_PLACE && nr > 0;
    shim_type_t ts = {0}, tr = {0};
    ic_status_t st = IC_OK;
    if (send_side) {
        if (c->scount < 0)
            return bad_count(c, "sendcount", c->scount);
        st = type_of(c, c->stype, "sendtype", &ts);
    }
    if (st == IC_OK && (recv_side || (c->sb == MPI_IN_PLACE && root))) {
        if (c->rcount < 0)
            return bad_count(c, "recvcount", c->rcount);
        st = type_of(c, c->rtype, "recvtype", &tr);
    }
    if (st != IC_OK)
        return st;
    size_t bytes = send_side ? (size_t)(c->scount * ts.size) : (size_t)(c->rcount * tr.size);
    x->count = bytes;
    x->dtype = IC_BYTE;
    x->sb = c->sb == MPI_IN_PLACE ? IC_IN_PLACE : c->sb;
    x->rb = c->rb == MPI_IN_PLACE ? IC_IN_PLACE : c->rb;
    int pack_s = send_side && !ts.identity;
    /* In place, the input sits in the receive buffer: packed with it. */
    int pack_r = (recv_side || c->sb == MPI_IN_PLACE) && nr > 0 && !tr.identity &&
                 (recv_side || root);
    if (!pack_s && !pack_r)
        return IC_OK;
    st = alloc_arrays(x, 0, 3);
    if (st != IC_OK)
        return st;
    x->in = x->blks;
    x->out = x->blks + 2;
    size_t slen = pack_s ? (size_t)ns * bytes : 0, rlen = pack_r ? (size_t)nr * bytes : 0;
    st = alloc_tmp(x, slen + rlen);
    if (st != IC_OK)
        return st;
    if (pack_s) {
        add_in(x, c->sb, (MPI_Count)ns * c->scount, c->stype, 0);
        x->sb = x->tmp;
    }
    if (pack_r) {
        if (c->sb == MPI_IN_PLACE) {
            /* gather/allgather: my block; alltoall: all of them */
            int all = c->coll == IC_COLL_ALLTOALL;
            size_t at = all ? 0 : (size_t)x->me;
            add_in(x, (char *)c->rb + (MPI_Aint)at * c->rcount * tr.extent,
                   all ? (MPI_Count)nr * c->rcount : c->rcount, c->rtype, slen + at * bytes);
        }
        add_out(x, c->rb, (MPI_Count)nr * c->rcount, c->rtype, slen);
        x->rb = x->tmp + slen;
    }
    return IC_OK;
}

/* A v-side: block i is counts[i] elements of type at user +
 * displs[i] * extent; into byte counts bc[] and displacements bd[].  When
 * the layout is not one run it is packed (bd[i] = cumulative offsets) and
 * the blocks are listed: to pack before the call (all with in_which -1,
 * only block k with in_which k, none with -2), to unpack after (out). */
static ic_status_t v_side(shim_exec_t *x, const void *counts, const void *displs,
                          MPI_Datatype type, const char *what, char *user, int in_which,
                          int out, size_t *bc, size_t *bd, int *pack, size_t *len)
{
    const shim_call_t *c = &x->call;
    shim_type_t t;
    ic_status_t st = type_of(c, type, what, &t);
    if (st != IC_OK)
        return st;
    size_t off = 0;
    *pack = !t.identity;
    for (int i = 0; i < x->p; i++) {
        MPI_Count n = shim_cnt(c, counts, i);
        if (n < 0)
            return bad_count(c, what[0] == 's' ? "sendcounts[i]" : "recvcounts[i]", n);
        bc[i] = (size_t)(n * t.size);
        bd[i] = t.identity ? (size_t)(shim_dsp(c, displs, i) * t.extent) : off;
        if (*pack) {
            char *u = user + shim_dsp(c, displs, i) * t.extent;
            int part = out || in_which != -1; /* the receive side's part of tmp */
            if (in_which == -1 || in_which == i)
                x->in[x->nin++] = (shim_blk_t){u, n, type, off, part};
            if (out)
                x->out[x->nout++] = (shim_blk_t){u, n, type, off, 1};
        }
        off += bc[i];
    }
    *len = off;
    return IC_OK;
}

/* This rank's one block of a v-collective's other side (n elements of
 * type at user): its byte count, packed when needed. */
static ic_status_t own_side(shim_exec_t *x, MPI_Count n, MPI_Datatype type, const char *what,
                            char *user, int is_send, size_t *bytes, int *pack)
{
    const shim_call_t *c = &x->call;
    shim_type_t t;
    if (n < 0)
        return bad_count(c, is_send ? "sendcount" : "recvcount", n);
    ic_status_t st = type_of(c, type, what, &t);
    if (st != IC_OK)
        return st;
    *bytes = (size_t)(n * t.size);
    *pack = !t.identity;
    if (*pack && is_send)
        x->in[x->nin++] = (shim_blk_t){user, n, type, 0, 0};
    else if (*pack)
        x->out[x->nout++] = (shim_blk_t){user, n, type, 0, 1};
    return IC_OK;
}

/* Scatterv and gatherv: run with the counts at the root only (the direct
 * entries: p - 1 start-ups, nothing sent first) when that takes no more
 * start-ups than broadcasting the root's counts and then running the MST
 * v-form (2 ceil(log2 p) on the critical path), and the communicator does
 * not force another algorithm.  Depends on p and the forced algorithm only,
 * which are the same on every rank. */
int shim_counts_at_root_pays(const ic_comm_t *ic, ic_coll_t coll)
{
    const char *forced = ic->algo[coll];
    if (forced && strcmp(forced, "auto") != 0 && strcmp(forced, "direct") != 0)
        return 0;
    unsigned n = (unsigned)ic->size;
    int log2p = n > 1 ? 32 - __builtin_clz(n - 1) : 0; /* ceil(log2 p) */
    return ic->size - 1 <= 2 * log2p;
}

static ic_status_t prepare_v(shim_exec_t *x)
{
    const shim_call_t *c = &x->call;
    int p = x->p, me = x->me, coll = c->coll, is_root = me == c->root;
    int ip = c->sb == MPI_IN_PLACE || c->rb == MPI_IN_PLACE;
    ic_status_t st = alloc_arrays(x, 4, 2 * p + 2);
    if (st != IC_OK)
        return st;
    x->in = x->blks;
    x->out = x->blks + p + 1;
    size_t *a = x->arr;
    x->dtype = IC_BYTE;
    x->sb = c->sb == MPI_IN_PLACE ? IC_IN_PLACE : c->sb;
    x->rb = c->rb == MPI_IN_PLACE ? IC_IN_PLACE : c->rb;
    int pack_s = 0, pack_r = 0;
    size_t slen = 0, rlen = 0;
    if (coll == IC_COLL_ALLTOALLV) {
        x->scounts = a, x->sdispls = a + p, x->rcounts = a + 2 * p, x->rdispls = a + 3 * p;
        st = v_side(x, c->rcounts, c->rdispls, c->rtype, "recvtype", c->rb, ip ? -1 : -2, 1,
                    x->rcounts, x->rdispls, &pack_r, &rlen);
        if (st == IC_OK && !ip)
            st = v_side(x, c->scounts, c->sdispls, c->stype, "sendtype", (char *)c->sb, -1, 0,
                        x->scounts, x->sdispls, &pack_s, &slen);
        if (st != IC_OK)
            return st;
        if (ip) { /* intercom reads the input with the receive side's layout */
            memcpy(x->scounts, x->rcounts, sizeof(size_t) * (size_t)p);
            memcpy(x->sdispls, x->rdispls, sizeof(size_t) * (size_t)p);
        }
    } else {
        x->counts = a, x->displs = a + p;
        x->root_counts = coll != IC_COLL_ALLGATHERV;
        if (x->root_counts && shim_counts_at_root_pays(x->ic, x->coll)) {
            x->root_counts = 0;
            x->counts_at_root = 1;
        }
        size_t bytes = 0;
        if (coll == IC_COLL_SCATTERV) {
            if (is_root)
                st = v_side(x, c->scounts, c->sdispls, c->stype, "sendtype", (char *)c->sb, -1,
                            0, x->counts, x->displs, &pack_s, &slen);
            if (st == IC_OK && c->rb != MPI_IN_PLACE)
                st = own_side(x, c->rcount, c->rtype, "recvtype", c->rb, 0, &bytes, &pack_r);
            rlen = bytes;
        } else { /* gatherv, allgatherv */
            if (is_root || coll == IC_COLL_ALLGATHERV)
                st = v_side(x, c->rcounts, c->rdispls, c->rtype, "recvtype", c->rb,
                            ip ? me : -2, 1, x->counts, x->displs, &pack_r, &rlen);
            if (st == IC_OK && c->sb != MPI_IN_PLACE)
                st = own_side(x, c->scount, c->stype, "sendtype", (char *)c->sb, 1, &bytes,
                              &pack_s);
            slen = bytes;
        }
        if (st != IC_OK)
            return st;
        if (!is_root && coll != IC_COLL_ALLGATHERV)
            x->counts[me] = bytes; /* the rest comes from the root */
    }
    if (!pack_s && !pack_r)
        return IC_OK;
    size_t spart = pack_s ? slen : 0;
    st = alloc_tmp(x, spart + (pack_r ? rlen : 0));
    if (st != IC_OK)
        return st;
    for (int i = 0; i < x->nin; i++)
        x->in[i].off += x->in[i].part ? spart : 0;
    for (int i = 0; i < x->nout; i++)
        x->out[i].off += spart;
    if (pack_s)
        x->sb = x->tmp;
    if (pack_r)
        x->rb = x->tmp + spart;
    return IC_OK;
}

ic_status_t shim_prepare(const shim_call_t *c, ic_comm_t *ic, const ic_op_t *op,
                         const shim_type_t *rt, shim_exec_t *x)
{
    memset(x, 0, sizeof *x);
    x->call = *c;
    x->ic = ic;
    x->op = op;
    x->root = c->root;
    x->coll = c->coll == SHIM_REDUCE_LOCAL ? IC_COLL_ALLREDUCE : (ic_coll_t)c->coll;
    if (ic) { /* a live communicator (shim_comm): its fields are read directly */
        x->p = ic->size;
        x->me = ic->rank;
    }
    switch (c->coll) {
    case IC_COLL_BARRIER:
        return IC_OK;
    case IC_COLL_BCAST: {
        shim_type_t t;
        if (c->scount < 0)
            return bad_count(c, "count", c->scount);
        ic_status_t st = type_of(c, c->stype, "datatype", &t);
        if (st != IC_OK)
            return st;
        x->dtype = IC_BYTE;
        x->count = (size_t)(c->scount * t.size);
        x->rb = c->rb;
        if (t.identity || x->count == 0)
            return IC_OK;
        if ((st = alloc_arrays(x, 0, 1)) != IC_OK || (st = alloc_tmp(x, x->count)) != IC_OK)
            return st;
        x->in = x->out = x->blks;
        if (x->me == c->root)
            add_in(x, c->rb, c->scount, c->stype, 0);
        else
            add_out(x, c->rb, c->scount, c->stype, 0);
        x->rb = x->tmp;
        return IC_OK;
    }
    case IC_COLL_SCATTER:
        return prepare_blocks(x, x->me == c->root ? x->p : 0, 1);
    case IC_COLL_GATHER:
        return prepare_blocks(x, 1, x->me == c->root ? x->p : 0);
    case IC_COLL_ALLGATHER:
        return prepare_blocks(x, 1, x->p);
    case IC_COLL_ALLTOALL:
        return prepare_blocks(x, x->p, x->p);
    case IC_COLL_SCATTERV:
    case IC_COLL_GATHERV:
    case IC_COLL_ALLGATHERV:
    case IC_COLL_ALLTOALLV:
        return prepare_v(x);
    default: /* reductions: the type is one run of base elements */
        break;
    }
    x->dtype = (ic_datatype_t)rt->base;
    x->sb = c->sb == MPI_IN_PLACE ? IC_IN_PLACE : c->sb;
    x->rb = c->rb;
    if (c->coll == IC_COLL_REDUCE_SCATTER) {
        ic_status_t st = alloc_arrays(x, 1, 0);
        if (st != IC_OK)
            return st;
        x->counts = x->arr;
        for (int i = 0; i < x->p; i++) {
            MPI_Count n = shim_cnt(c, c->rcounts, i);
            if (n < 0)
                return bad_count(c, "recvcounts[i]", n);
            x->counts[i] = (size_t)(n * rt->k);
        }
        return IC_OK;
    }
    MPI_Count n = c->coll == IC_COLL_REDUCE_SCATTER_BLOCK ? c->rcount : c->scount;
    if (n < 0)
        return bad_count(c, "count", n);
    x->count = (size_t)(n * rt->k);
    return IC_OK;
}

/* Packs or unpacks one block in pieces that keep MPI's int counts. */
static int move_blk(const shim_exec_t *x, const shim_blk_t *b, int pack)
{
    MPI_Aint lb, ext;
    MPI_Count size;
    PMPI_Type_get_extent(b->type, &lb, &ext);
    PMPI_Type_size_x(b->type, &size);
    MPI_Count done = 0, step = size > 0 ? (MPI_Count)(1 << 30) / size : b->count;
    if (step < 1)
        step = 1;
    while (done < b->count) {
        MPI_Count n = b->count - done < step ? b->count - done : step;
        char *user = b->user + done * ext;
        char *packed = x->tmp + b->off + (size_t)(done * size);
        int pos = 0, rc;
        if (pack)
            rc = PMPI_Pack(user, (int)n, b->type, packed, (int)(n * size), &pos, x->call.comm);
        else
            rc = PMPI_Unpack(packed, (int)(n * size), &pos, user, (int)n, b->type, x->call.comm);
        if (rc != MPI_SUCCESS)
            return rc;
        done += n;
    }
    return MPI_SUCCESS;
}

int shim_pack_in(shim_exec_t *x)
{
    for (int i = 0; i < x->nin; i++) {
        int rc = move_blk(x, &x->in[i], 1);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int shim_unpack_out(shim_exec_t *x)
{
    for (int i = 0; i < x->nout; i++) {
        int rc = move_blk(x, &x->out[i], 0);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

void shim_exec_free(shim_exec_t *x)
{
    if (!x->arr && !x->blks && !x->tmp)
        return; /* the usual case: nothing was packed or copied */
    if (!x->arrays_local) {
        free(x->arr);
        free(x->blks);
    }
    free(x->tmp);
    x->arr = NULL;
    x->blks = NULL;
    x->tmp = NULL;
}
