/*
 * bridge.c — ic_comm_from_mpi / ic_comm_free_mpi (intercom_mpi.h): an
 * intercom communicator over the processes of an MPI communicator.
 *
 * Steps, all collective over the MPI communicator (MPI is called through
 * its PMPI_ names, so that the drop-in (src/mpi_shim/), which defines the
 * MPI_ ones, does not see the bridge's own calls):
 *   1. hosts: PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED) gives this rank's
 *      host group; an allgather of (lowest rank of my host, my rank in
 *      it) tells every rank each peer's host and its rank there.  Hosts
 *      are numbered in the order of their lowest rank.
 *   2. shm per host (when it has more than one rank, at most
 *      IC_SHM_MAX_RANKS, and IC_MPI_NO_SHM is not set): the host's lowest
 *      rank creates the segment, its name goes to the others over the
 *      host communicator, everyone attaches (the last one unlinks the
 *      name; nothing stays in /dev/shm), the creator drops its launcher
 *      handle.
 *   3. MPI transport on a duplicate of comm, when some peer is elsewhere.
 *   4. the routing transport over both (transport/route), or the shm
 *      transport alone when the whole job is one host whose rank order is
 *      comm's.
 *   5. agreement: an allreduce of the steps' outcome, so that every rank
 *      returns the same status.
 */
#include "intercom_mpi.h"

#include "base/status.h"
#include "core/coll_run.h"
#include "core/comm.h"
#include "core/env.h"
#include "transport/mpi/mpi_transport.h"
#include "transport/route/route.h"
#include "transport/shm/shm.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_LEN 64

/* IC_MPI_EAGER: bytes, a plain decimal in [0, 1 GiB]. */
static ic_status_t eager_from_env(size_t *out)
{
    const char *v = getenv("IC_MPI_EAGER");
    *out = 0;
    if (!v || !*v)
        return IC_OK;
    char *end = NULL;
    unsigned long long x = strtoull(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || x > (1ull << 30))
        return ic_set_error(IC_ERR_ARG,
                            "IC_MPI_EAGER='%s' is not a byte count in 0..1073741824", v);
    *out = (size_t)x;
    return IC_OK;
}

typedef struct layout {
    int nhosts;
    int *host_of;    /* per comm rank: host index */
    int *local_rank; /* per comm rank: its rank in its host group */
} layout_t;

/* IC_MPI_FAKE_HOSTS=3,2,2 (tests): ranks 0-2 count as one host, 3-4 as
 * the next, 5-6 as the next, whatever MPI says; the sizes must add up to
 * size.  *color = this rank's host, or -1 when the variable is unset. */
static ic_status_t fake_hosts(int rank, int size, int *color)
{
    const char *v = getenv("IC_MPI_FAKE_HOSTS");
    *color = -1;
    if (!v || !*v)
        return IC_OK;
    long sum = 0;
    int h = 0;
    for (const char *p = v;; h++) {
        char *end = NULL;
        long n = strtol(p, &end, 10);
        if (*p < '1' || *p > '9' || n < 1 || n > size || (*end && *end != ','))
            return ic_set_error(IC_ERR_ARG, "IC_MPI_FAKE_HOSTS='%s' is not a list of host sizes "
                                            "like 3,2,2", v);
        if (rank >= sum && rank < sum + n)
            *color = h;
        sum += n;
        if (!*end)
            break;
        p = end + 1;
    }
    if (sum != size)
        return ic_set_error(IC_ERR_ARG, "IC_MPI_FAKE_HOSTS='%s' adds up to %ld ranks, not %d", v,
                            sum, size);
    return IC_OK;
}

static ic_status_t find_hosts(MPI_Comm comm, int rank, int size, MPI_Comm *node, layout_t *L)
{
    int color;
    ic_status_t st = fake_hosts(rank, size, &color);
    if (st != IC_OK)
        return st; /* the same environment everywhere: every rank returns here */
    int err = color >= 0
                  ? PMPI_Comm_split(comm, color, rank, node)
                  : PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    if (err != MPI_SUCCESS)
        return ic_set_error(IC_ERR_TRANSPORT, "ic_comm_from_mpi: splitting by host failed");
    int node_rank, lowest = rank;
    PMPI_Comm_rank(*node, &node_rank);
    PMPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, *node);
    int mine[2] = {lowest, node_rank};
    int *all = malloc(sizeof(int) * 2 * (size_t)size);
    L->host_of = malloc(sizeof(int) * (size_t)size);
    L->local_rank = malloc(sizeof(int) * (size_t)size);
    if (!all || !L->host_of || !L->local_rank) {
        free(all);
        return ic_set_error(IC_ERR_NO_MEM, "ic_comm_from_mpi: out of memory");
    }
    PMPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
    L->nhosts = 0;
    for (int i = 0; i < size; i++) {
        L->local_rank[i] = all[2 * i + 1];
        if (all[2 * i] == i) /* i is the lowest rank of its host: a new host */
            L->nhosts++;
    }
    /* Host index = how many hosts have a lower lowest rank. */
    for (int i = 0; i < size; i++) {
        int h = 0;
        for (int j = 0; j < all[2 * i]; j++)
            h += all[2 * j] == j;
        L->host_of[i] = h;
    }
    free(all);
    return IC_OK;
}

/* Step 2: the host's shared segment, created by its rank 0. */
static ic_status_t open_shm(MPI_Comm node, int node_rank, int node_size, ic_transport_t **shm)
{
    char name[NAME_LEN] = {0};
    ic_shm_job_t *job = NULL;
    ic_status_t st = IC_OK;
    if (node_rank == 0) {
        st = ic_shm_job_create(node_size, &job, name, sizeof name);
        if (st != IC_OK)
            name[0] = 0;
    }
    PMPI_Bcast(name, NAME_LEN, MPI_CHAR, 0, node);
    if (!name[0])
        return node_rank == 0 ? st
                              : ic_set_error(IC_ERR_TRANSPORT,
                                             "ic_comm_from_mpi: this host's first rank could not "
                                             "create the shared segment");
    name[NAME_LEN - 1] = 0;
    st = ic_shm_open(name, node_rank, node_size, shm);
    if (job) {
        /* Every rank has attached or failed by now (ic_shm_open returns
         * once all have attached); the name is unlinked either way. */
        ic_shm_job_destroy(job);
    }
    return st;
}

ic_status_t ic_comm_from_mpi(MPI_Comm comm, ic_comm_t **out)
{
    if (!out)
        return ic_set_error(IC_ERR_ARG, "ic_comm_from_mpi: out is NULL");
    *out = NULL;
    int inited = 0, finalized = 0;
    PMPI_Initialized(&inited);
    PMPI_Finalized(&finalized);
    if (!inited || finalized)
        return ic_set_error(IC_ERR_COMM, "ic_comm_from_mpi: MPI is not initialized (call "
                                         "MPI_Init first, and before MPI_Finalize)");
    if (comm == MPI_COMM_NULL)
        return ic_set_error(IC_ERR_COMM, "ic_comm_from_mpi: comm is MPI_COMM_NULL");
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return ic_set_error(IC_ERR_COMM, "ic_comm_from_mpi: comm is an intercommunicator");
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);

    ic_env_t env;
    int no_shm = 0;
    size_t eager = 0;
    ic_status_t st = ic_env_read(&env); /* the same environment on every rank */
    if (st == IC_OK)
        st = ic_env_flag("IC_MPI_NO_SHM", 0, &no_shm);
    if (st == IC_OK)
        st = eager_from_env(&eager);
    if (st != IC_OK)
        return st;

    layout_t L = {0, NULL, NULL};
    MPI_Comm node = MPI_COMM_NULL;
    ic_transport_t *shm = NULL, *mpi = NULL, *t = NULL;
    st = find_hosts(comm, rank, size, &node, &L);
    int node_rank = 0, node_size = 1;
    if (node != MPI_COMM_NULL) {
        PMPI_Comm_rank(node, &node_rank);
        PMPI_Comm_size(node, &node_size);
    }
    /* The same on every rank of a host (node_size is), so the host's
     * collective steps match. */
    int use_shm = !no_shm && node_size > 1 && node_size <= IC_SHM_MAX_RANKS;
    if (st == IC_OK && use_shm)
        st = open_shm(node, node_rank, node_size, &shm);
    if (node != MPI_COMM_NULL)
        PMPI_Comm_free(&node);
    /* Every rank computes the same need for MPI: a peer on another host,
     * or a host that does not use shm. */
    int any_remote = L.host_of && (L.nhosts > 1 || (size > 1 && !use_shm));
    if (st == IC_OK && !L.host_of)
        st = ic_set_error(IC_ERR_NO_MEM, "ic_comm_from_mpi: out of memory");
    if (L.host_of && any_remote) { /* collective: called even after a local error */
        ic_status_t ms = ic_mpi_transport_open(comm, eager, &mpi);
        st = st != IC_OK ? st : ms;
    }
    if (st == IC_OK) {
        int *via_local = malloc(sizeof(int) * (size_t)size);
        if (!via_local) {
            st = ic_set_error(IC_ERR_NO_MEM, "ic_comm_from_mpi: out of memory");
        } else {
            for (int i = 0; i < size; i++)
                via_local[i] = shm && L.host_of[i] == L.host_of[rank] ? L.local_rank[i] : -1;
            if (shm && !mpi && L.nhosts == 1 && L.local_rank[rank] == rank)
                t = shm; /* one host, comm's order: shm alone */
            else if (size > 1)
                st = ic_route_open(rank, size, shm, via_local, mpi, &t);
            free(via_local);
        }
    }
    /* Step 5: the same answer everywhere. */
    char why[256];
    snprintf(why, sizeof why, "%s", st == IC_OK ? "" : ic_last_error());
    int bad = st == IC_OK ? size : rank, first_bad = size;
    PMPI_Allreduce(&bad, &first_bad, 1, MPI_INT, MPI_MIN, comm);
    if (st == IC_OK && first_bad < size)
        st = ic_set_error(IC_ERR_TRANSPORT, "ic_comm_from_mpi: rank %d could not set up its "
                                            "transport", first_bad);
    ic_comm_t *c = NULL;
    if (st == IC_OK) {
        if (t)
            t->guard = ic_coll_guard();
        st = ic_comm_new_top(t, size, rank, &env, &c); /* fails alike on every rank */
    }
    if (st != IC_OK) {
        if (t)
            t->ops->close(t); /* closes shm and mpi under it */
        else {
            if (shm)
                shm->ops->close(shm);
            if (mpi)
                mpi->ops->close(mpi);
        }
        free(L.host_of);
        free(L.local_rank);
        if (first_bad == rank && why[0])
            return ic_set_error(st, "%s", why);
        return st;
    }
    free(L.local_rank);
    c->owns_t = 1;
    c->t_nhosts = L.nhosts;
    if (L.nhosts > 1) {
        c->t_host = L.host_of;
        ic_comm_levels(c); /* the hosts x ranks mesh and the levels' model */
    } else {
        free(L.host_of);
    }
    *out = c;
    return IC_OK;
}

ic_status_t ic_comm_free_mpi(ic_comm_t **comm)
{
    if (!comm)
        return ic_set_error(IC_ERR_COMM, "ic_comm_free_mpi: comm is NULL");
    ic_status_t st = ic_comm_check("ic_comm_free_mpi", *comm);
    if (st != IC_OK)
        return st;
    ic_comm_t *c = *comm;
    if (!c->owns_t)
        return ic_set_error(IC_ERR_COMM, "ic_comm_free_mpi: comm was not made by "
                                         "ic_comm_from_mpi (free it with ic_comm_free)");
    /* Nobody detaches while a peer may still need its messages. */
    if (c->t && atomic_load(&c->failed) == IC_OK)
        st = ic_barrier(c);
    if (c->t) {
        ic_status_t cs = c->t->ops->close(c->t);
        st = st != IC_OK ? st : cs;
    }
    free(c->t_host);
    ic_comm_destroy(c);
    *comm = NULL;
    return st;
}

ic_status_t ic_comm_mpi_hosts(const ic_comm_t *comm, int *nhosts, int *host_of)
{
    ic_status_t st = ic_comm_check("ic_comm_mpi_hosts", comm);
    if (st != IC_OK)
        return st;
    if (!nhosts)
        return ic_set_error(IC_ERR_ARG, "ic_comm_mpi_hosts: nhosts is NULL");
    /* Renumber the hosts of comm's members in the order of first use. */
    int n = 0;
    int *seen = calloc((size_t)(comm->t_nhosts > 0 ? comm->t_nhosts : 1), sizeof(int));
    if (!seen)
        return ic_set_error(IC_ERR_NO_MEM, "ic_comm_mpi_hosts: out of memory");
    for (int i = 0; i < comm->size; i++) {
        int h = comm->t_host ? comm->t_host[comm->world[i]] : 0;
        if (!seen[h])
            seen[h] = ++n;
        if (host_of)
            host_of[i] = seen[h] - 1;
    }
    free(seen);
    *nhosts = n;
    return IC_OK;
}
