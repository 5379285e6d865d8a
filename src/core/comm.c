/*
 * comm.c — communicators: init/finalize, size/rank, split, create_group,
 * forcing an algorithm.  A process started by intercom-run finds its job in
 * the environment (IC_SHM_NAME, IC_RANK, IC_SIZE) and attaches to the
 * shared-memory transport; started alone it is a world of size 1.  Split
 * exchanges (color, key) with an allgather on the parent and then uses the
 * pure group arithmetic that tests call directly.
 */
#include "core/comm.h"

#include "core/coll_run.h"
#include "base/status.h"
#include "core/env.h"
#include "base/handles.h"
#include "core/tune.h"
#include "select/catalog.h"
#include "transport/shm/shm.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

uint64_t ic_comm_child_id(uint64_t parent, uint64_t salt)
{
    uint64_t h = parent ^ (salt + 0x9E3779B97F4A7C15ull + (parent << 6) + (parent >> 2));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    return h;
}

ic_status_t ic_apply_algo_env(ic_comm_t *c); /* overrides.c */

/* The world's model from the tune file (docs/tuning.md): the file named by
 * IC_TUNE_FILE must read; the default one is used when it exists. */
static ic_status_t load_tune(ic_comm_t *c)
{
    char path[4096];
    const char *env = getenv("IC_TUNE_FILE");
    if (!ic_tune_default_path(path, sizeof path))
        return IC_OK;
    if (!(env && *env) && access(path, F_OK) != 0)
        return IC_OK; /* no tune file: the defaults */
    ic_model_t m = c->model;
    ic_status_t st = ic_tune_read(path, &m);
    if (st != IC_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", ic_last_error());
        return ic_set_error(st, "ic_init: %s (written by intercom-tune; see docs/tuning.md)",
                            msg);
    }
    c->model = m;
    return IC_OK;
}

/* Communicators live in a handle pool, so that a freed or garbage handle
 * is recognised (base/handles.h). */
static ic_pool_t comm_pool = IC_POOL_INIT("communicator", ic_comm_t, 1);

bool ic_comm_valid(const ic_comm_t *comm)
{
    return ic_pool_live(&comm_pool, comm);
}

ic_status_t ic_comm_check(const char *fn, const ic_comm_t *comm)
{
    if (!comm)
        return ic_set_error(IC_ERR_COMM, "%s: comm is NULL", fn);
    if (!ic_comm_valid(comm))
        return ic_set_error(IC_ERR_COMM,
                            "%s: comm is not a valid communicator (freed already, or not an "
                            "ic_comm_t)",
                            fn);
    return IC_OK;
}

/* c's members' nodes from its parent's placement (none when the parent has
 * none or memory is short: the U entries then just do not apply). */
static void inherit_network(ic_comm_t *c, const ic_comm_t *parent)
{
    c->phys_node = NULL;
    if (!parent || !parent->phys_node || !(c->phys_node = malloc(sizeof(int) * (size_t)c->size)))
        return;
    c->phys = parent->phys;
    for (int i = 0; i < c->size; i++)
        for (int j = 0; j < parent->size; j++)
            if (parent->world[j] == c->world[i])
                c->phys_node[i] = parent->phys_node[j];
    c->phys.node_of = c->phys_node;
}

static ic_status_t comm_new(int size, int rank, const int *world, uint64_t id,
                            const ic_comm_t *parent, ic_comm_t **out)
{
    ic_comm_t *c = ic_pool_get(&comm_pool, NULL);
    int *w = malloc(sizeof(int) * (size_t)size);
    if (!c || !w) {
        ic_pool_put(&comm_pool, c);
        free(w);
        return ic_set_error(IC_ERR_NO_MEM, "out of memory creating a communicator");
    }
    memcpy(w, world, sizeof(int) * (size_t)size);
    c->size = size;
    c->rank = rank;
    c->world = w;
    c->id = id;
    c->model = parent ? parent->model : ic_model_default();
    c->timeout = parent ? parent->timeout : 0;
    c->check = parent ? parent->check : 0;
    c->explain = parent ? parent->explain : 0;
    c->reproducible = parent ? parent->reproducible : 0;
    inherit_network(c, parent);
    c->t = parent ? parent->t : NULL;
    c->t_host = parent ? parent->t_host : NULL;
    c->t_nhosts = parent ? parent->t_nhosts : 1;
    c->base_model = parent ? parent->base_model : c->model;
    if (parent)
        memcpy(c->algo, parent->algo, sizeof(c->algo));
    ic_comm_levels(c);
    *out = c;
    return IC_OK;
}

void ic_comm_levels(ic_comm_t *c)
{
    if (!c->t_host)
        return;
    const ic_model_t *b = &c->base_model;
    double na = b->lvl_alpha[0] > 0 ? b->lvl_alpha[0] : IC_NET_ALPHA_DEFAULT;
    double nb = b->lvl_beta[0] > 0 ? b->lvl_beta[0] : IC_NET_BETA_DEFAULT;
    /* Blocks of members on one host, in rank order. */
    int nblocks = 0, k = 0, even = 1, grouped = 1;
    for (int i = 0, run = 0; i < c->size; i++) {
        int h = c->t_host[c->world[i]];
        run++;
        if (i + 1 == c->size || c->t_host[c->world[i + 1]] != h) {
            nblocks++;
            if (k == 0)
                k = run;
            even &= run == k;
            run = 0;
            for (int j = i + 1; j < c->size; j++) /* does host h come back later? */
                grouped &= c->t_host[c->world[j]] != h;
        }
    }
    ic_model_t m = *b;
    m.nlevels = 0;
    c->has_mesh = 0;
    free(c->host_of);
    c->host_of = NULL;
    c->nhosts = 1;
    if (nblocks == 1 && grouped) { /* every member on one host */
        c->model = m;
        return;
    }
    /* The members' hosts, renumbered in order of first appearance, for
     * the leaders' entries (algo/hosts.c). */
    int *ho = malloc(sizeof(int) * (size_t)c->size);
    int *seen = calloc((size_t)c->t_nhosts, sizeof(int));
    if (ho && seen) {
        int n = 0;
        for (int i = 0; i < c->size; i++) {
            int h = c->t_host[c->world[i]];
            if (!seen[h])
                seen[h] = ++n;
            ho[i] = seen[h] - 1;
        }
        c->host_of = ho;
        c->nhosts = n;
        ho = NULL;
    }
    free(ho);
    free(seen); /* out of memory: no leaders' entries, still correct */
    m.alpha = na > b->alpha ? na : b->alpha;
    m.beta = nb > b->beta ? nb : b->beta;
    m.rndv_bytes = 0; /* the shared-memory protocols are not the network's */
    m.rndv_oneway_bytes = 0;
    m.share_bytes = 0;
    m.cores = 0;
    m.lvl_alpha[0] = na; /* both levels are known; they apply to the mesh's */
    m.lvl_beta[0] = nb;  /* dimensions only with nlevels set (model.h) */
    m.lvl_alpha[1] = b->alpha;
    m.lvl_beta[1] = b->beta;
    if (grouped && even && k > 1) {
        m.nlevels = 2;
        c->has_mesh = 1;
        c->mesh.d = 2;
        c->mesh.dims[0] = nblocks;
        c->mesh.dims[1] = k;
    }
    c->model = m;
}

ic_status_t ic_comm_new_top(ic_transport_t *t, int size, int rank, const ic_env_t *env,
                            ic_comm_t **out)
{
    int *ids = malloc(sizeof(int) * (size_t)size);
    if (!ids)
        return ic_set_error(IC_ERR_NO_MEM, "out of memory creating a communicator");
    for (int i = 0; i < size; i++)
        ids[i] = i;
    ic_comm_t *c = NULL;
    ic_status_t st = comm_new(size, rank, ids, 1, NULL, &c);
    free(ids);
    if (st != IC_OK)
        return st;
    c->t = t;
    c->base_model = c->model;
    c->timeout = env->timeout;
    c->check = env->check;
    c->explain = env->explain;
    c->reproducible = env->reproducible;
    st = load_tune(c);
    if (t) { /* the transport's protocols (base/model.h), on every rank alike */
        c->model.rndv_bytes = t->rndv_bytes;
        c->model.rndv_oneway_bytes = t->rndv_oneway_bytes;
        c->model.share_bytes = t->share_bytes;
        c->model.cores = t->cores;
    }
    if (st == IC_OK)
        st = ic_apply_algo_env(c);
    if (st != IC_OK) { /* every rank reads the same environment and fails alike */
        ic_comm_destroy(c);
        return st;
    }
    c->base_model = c->model;
    *out = c;
    return IC_OK;
}

ic_status_t ic_init(ic_comm_t **world)
{
    if (!world)
        return ic_set_error(IC_ERR_ARG, "ic_init: world is NULL");
    ic_env_t env;
    ic_status_t st = ic_env_read(&env);
    if (st != IC_OK)
        return st;
    int joined, rank, size;
    st = ic_parse_bootstrap(getenv("IC_SHM_NAME"), getenv("IC_RANK"), getenv("IC_SIZE"),
                            IC_SHM_MAX_RANKS, &joined, &rank, &size);
    if (st != IC_OK)
        return st;
    ic_transport_t *t = NULL;
    if (joined) {
        st = ic_shm_open(getenv("IC_SHM_NAME"), rank, size, &t);
        if (st != IC_OK)
            return st;
        t->guard = ic_coll_guard();
    }
    ic_comm_t *c = NULL;
    st = ic_comm_new_top(t, size, rank, &env, &c);
    if (st != IC_OK) {
        if (t)
            t->ops->close(t);
        return st;
    }
    c->is_world = 1;
    *world = c;
    return IC_OK;
}

void ic_comm_destroy(ic_comm_t *c)
{
    free(c->phys_node);
    c->phys_node = NULL;
    free(c->host_of);
    ic_comm_drop_cache(c);
    free(c->world);
    ic_pool_put(&comm_pool, c);
}

ic_status_t ic_finalize(ic_comm_t **world)
{
    if (!world || !ic_comm_valid(*world) || !(*world)->is_world)
        return ic_set_error(IC_ERR_COMM, "ic_finalize: world is not a world communicator");
    ic_comm_t *w = *world;
    ic_status_t st = IC_OK;
    if (w->t) {
        /* Nobody detaches while a peer may still need its messages (after
         * a failure on the world there is nothing to wait for). */
        if (atomic_load(&w->failed) == IC_OK)
            st = ic_barrier(w);
        ic_status_t cs = w->t->ops->close(w->t);
        st = st != IC_OK ? st : cs;
    }
    ic_comm_destroy(w);
    *world = NULL;
    return st;
}

void ic_abort(ic_comm_t *comm, int code)
{
    if (comm && comm->t)
        comm->t->ops->abort(comm->t, code);
    fflush(NULL);
    _exit(code);
}

ic_status_t ic_comm_size(const ic_comm_t *comm, int *size)
{
    ic_status_t cst = ic_comm_check("ic_comm_size", comm);
    if (cst != IC_OK)
        return cst;
    if (!size)
        return ic_set_error(IC_ERR_ARG, "ic_comm_size: size is NULL");
    *size = comm->size;
    return IC_OK;
}

ic_status_t ic_comm_rank(const ic_comm_t *comm, int *rank)
{
    ic_status_t cst = ic_comm_check("ic_comm_rank", comm);
    if (cst != IC_OK)
        return cst;
    if (!rank)
        return ic_set_error(IC_ERR_ARG, "ic_comm_rank: rank is NULL");
    *rank = comm->rank;
    return IC_OK;
}

int ic_split_members(int size, const int *colors, const int *keys, int me, int *members,
                     int *new_rank)
{
    int n = 0;
    *new_rank = -1;
    if (colors[me] == IC_UNDEFINED)
        return 0;
    for (int i = 0; i < size; i++) {
        if (colors[i] != colors[me])
            continue;
        /* Insertion by (key, parent rank): stable and simple. */
        int j = n++;
        while (j > 0 && keys[members[j - 1]] > keys[i]) {
            members[j] = members[j - 1];
            j--;
        }
        members[j] = i;
    }
    for (int i = 0; i < n; i++)
        if (members[i] == me)
            *new_rank = i;
    return n;
}

ic_status_t ic_group_check(const char *fn, int size, int n, const int *ranks, int me,
                           int *my_index)
{
    if (!ranks)
        return ic_set_error(IC_ERR_ARG, "%s: ranks is NULL", fn);
    if (n < 1 || n > size)
        return ic_set_error(IC_ERR_ARG, "%s: n = %d is not in [1, %d]", fn, n, size);
    *my_index = -1;
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= size)
            return ic_set_error(IC_ERR_ARG, "%s: ranks[%d] = %d is out of range [0, %d)", fn,
                                i, ranks[i], size);
        for (int j = 0; j < i; j++)
            if (ranks[j] == ranks[i])
                return ic_set_error(IC_ERR_ARG, "%s: ranks[%d] and ranks[%d] are both %d", fn,
                                    j, i, ranks[i]);
        if (ranks[i] == me)
            *my_index = i;
    }
    return IC_OK;
}

ic_status_t ic_comm_split(ic_comm_t *comm, int color, int key, ic_comm_t **out)
{
    ic_status_t cst = ic_comm_check("ic_comm_split", comm);
    if (cst != IC_OK)
        return cst;
    if (!out)
        return ic_set_error(IC_ERR_ARG, "ic_comm_split: out is NULL");
    if (color < 0 && color != IC_UNDEFINED)
        return ic_set_error(IC_ERR_ARG, "ic_comm_split: color %d is negative", color);
    int p = comm->size;
    int32_t mine[2] = {color, key};
    int32_t *all = malloc(sizeof(int32_t) * 2 * (size_t)p);
    int *colors = malloc(sizeof(int) * 3 * (size_t)p);
    ic_status_t st = (all && colors) ? IC_OK
                                      : ic_set_error(IC_ERR_NO_MEM, "ic_comm_split: out of memory");
    uint64_t salt = comm->seq; /* the same on every member */
    if (st == IC_OK)
        st = ic_allgather(mine, all, 2, IC_INT32, comm);
    if (st == IC_OK) {
        int *keys = colors + p, *members = colors + 2 * p, rank;
        for (int i = 0; i < p; i++) {
            colors[i] = all[2 * i];
            keys[i] = all[2 * i + 1];
        }
        int n = ic_split_members(p, colors, keys, comm->rank, members, &rank);
        if (n == 0) {
            *out = NULL;
        } else {
            for (int i = 0; i < n; i++)
                members[i] = comm->world[members[i]];
            uint64_t id = ic_comm_child_id(comm->id, salt * 0x100000001b3ull + (uint64_t)color);
            st = comm_new(n, rank, members, id, comm, out);
        }
    }
    free(all);
    free(colors);
    return st;
}

/* create_group with the child's id salted by salt (the public form) or,
 * with salt_given, by the caller's salt. */
static ic_status_t create_group(const char *fn, ic_comm_t *comm, int n, const int *ranks,
                                int salt_given, uint64_t salt, ic_comm_t **out)
{
    ic_status_t cst = ic_comm_check(fn, comm);
    if (cst != IC_OK)
        return cst;
    if (!out)
        return ic_set_error(IC_ERR_ARG, "%s: out is NULL", fn);
    int idx;
    ic_status_t st = ic_group_check(fn, comm->size, n, ranks, comm->rank, &idx);
    if (st != IC_OK)
        return st;
    if (idx < 0)
        return ic_set_error(IC_ERR_ARG, "%s: the calling rank %d is not in ranks", fn,
                            comm->rank);
    int *w = malloc(sizeof(int) * (size_t)n);
    if (!w)
        return ic_set_error(IC_ERR_NO_MEM, "%s: out of memory", fn);
    /* The id mixes the list with the parent's collective count, which all
     * members agree on; two groups with the same list created between the
     * same two collectives of the parent would share an id. */
    if (!salt_given)
        salt = 0x51u ^ (comm->seq << 20);
    for (int i = 0; i < n; i++) {
        w[i] = comm->world[ranks[i]];
        salt = ic_comm_child_id(salt, (uint64_t)ranks[i]);
    }
    st = comm_new(n, idx, w, ic_comm_child_id(comm->id, salt), comm, out);
    free(w);
    return st;
}

ic_status_t ic_comm_create_group(ic_comm_t *comm, int n, const int *ranks, ic_comm_t **out)
{
    return create_group("ic_comm_create_group", comm, n, ranks, 0, 0, out);
}

ic_status_t ic_comm_create_group_salted(ic_comm_t *comm, int n, const int *ranks, uint64_t salt,
                                        ic_comm_t **out)
{
    return create_group("ic_comm_create_group_salted", comm, n, ranks, 1, salt, out);
}

ic_status_t ic_comm_free(ic_comm_t **comm)
{
    if (!comm)
        return ic_set_error(IC_ERR_COMM, "ic_comm_free: comm is NULL");
    ic_status_t cst = ic_comm_check("ic_comm_free", *comm);
    if (cst != IC_OK)
        return cst;
    if ((*comm)->is_world)
        return ic_set_error(IC_ERR_COMM, "ic_comm_free: the world is freed by ic_finalize");
    if ((*comm)->owns_t)
        return ic_set_error(IC_ERR_COMM, "ic_comm_free: a communicator made by ic_comm_from_mpi "
                                         "is freed by ic_comm_free_mpi");
    ic_comm_destroy(*comm);
    *comm = NULL;
    return IC_OK;
}

ic_status_t ic_comm_set_algorithm(ic_comm_t *comm, ic_coll_t coll, const char *name)
{
    ic_status_t cst = ic_comm_check("ic_comm_set_algorithm", comm);
    if (cst != IC_OK)
        return cst;
    if ((unsigned)coll >= IC_COLL_COUNT)
        return ic_set_error(IC_ERR_ARG, "ic_comm_set_algorithm: coll %d is not valid", (int)coll);
    ic_comm_drop_cache(comm); /* cached plans may use the old choice */
    if (!name || strcmp(name, "auto") == 0) {
        comm->algo[coll] = NULL;
        return IC_OK;
    }
    const ic_algo_t *al = ic_catalog_find(coll, name);
    if (!al) {
        char names[512];
        ic_algorithms(coll, names, sizeof names);
        return ic_set_error(IC_ERR_UNKNOWN_ALGO,
                            "ic_comm_set_algorithm: unknown algorithm '%s' for %s (valid: %s)",
                            name, ic_coll_name(coll), names);
    }
    comm->algo[coll] = al->name;
    return IC_OK;
}

ic_status_t ic_comm_set_check(ic_comm_t *comm, int on)
{
    ic_status_t cst = ic_comm_check("ic_comm_set_check", comm);
    if (cst != IC_OK)
        return cst;
    if (on != 0 && on != 1)
        return ic_set_error(IC_ERR_ARG, "ic_comm_set_check: on is %d, must be 0 or 1", on);
    comm->check = on;
    return IC_OK;
}

ic_status_t ic_comm_set_reproducible(ic_comm_t *comm, int on)
{
    ic_status_t cst = ic_comm_check("ic_comm_set_reproducible", comm);
    if (cst != IC_OK)
        return cst;
    if (on != 0 && on != 1)
        return ic_set_error(IC_ERR_ARG, "ic_comm_set_reproducible: on is %d, must be 0 or 1", on);
    if (comm->reproducible != on)
        ic_comm_drop_cache(comm); /* cached plans and decisions were made in the other mode */
    comm->reproducible = on;
    return IC_OK;
}

ic_status_t ic_comm_get_reproducible(const ic_comm_t *comm, int *on)
{
    ic_status_t cst = ic_comm_check("ic_comm_get_reproducible", comm);
    if (cst != IC_OK)
        return cst;
    if (!on)
        return ic_set_error(IC_ERR_ARG, "ic_comm_get_reproducible: on is NULL");
    *on = comm->reproducible;
    return IC_OK;
}

ic_status_t ic_comm_set_mesh(ic_comm_t *comm, int ndims, const int dims[])
{
    ic_status_t cst = ic_comm_check("ic_comm_set_mesh", comm);
    if (cst != IC_OK)
        return cst;
    if (ndims < 0 || ndims > IC_MESH_MAX_NDIMS)
        return ic_set_error(IC_ERR_ARG, "ic_comm_set_mesh: ndims %d is not in 0..%d", ndims,
                            IC_MESH_MAX_NDIMS);
    if (ndims > 0 && !dims)
        return ic_set_error(IC_ERR_ARG, "ic_comm_set_mesh: dims is NULL");
    long prod = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 1 || dims[i] > comm->size)
            return ic_set_error(IC_ERR_ARG, "ic_comm_set_mesh: dims[%d] = %d is not in 1..%d",
                                i, dims[i], comm->size);
        prod *= dims[i];
    }
    if (ndims > 0 && prod != comm->size)
        return ic_set_error(IC_ERR_ARG,
                            "ic_comm_set_mesh: the product of dims is %ld, not the size %d",
                            prod, comm->size);
    ic_comm_drop_cache(comm); /* cached plans may use the old mesh */
    comm->model.nlevels = 0; /* the levels were those of the hosts' mesh */
    comm->has_mesh = ndims > 0;
    comm->mesh.d = ndims;
    for (int i = 0; i < ndims; i++)
        comm->mesh.dims[i] = dims[i];
    return IC_OK;
}

ic_status_t ic_comm_set_network(ic_comm_t *comm, const char *spec, const int node_of[])
{
    const char *fn = "ic_comm_set_network";
    ic_status_t st = ic_comm_check(fn, comm);
    if (st != IC_OK)
        return st;
    if (!spec) {
        ic_comm_drop_cache(comm); /* cached plans may follow the old placement */
        free(comm->phys_node);
        comm->phys_node = NULL;
        return IC_OK;
    }
    ic_phys_t ph = {0};
    st = (ic_status_t)ic_phys_parse(fn, spec, &ph);
    if (st != IC_OK)
        return st;
    long nodes = ic_phys_nodes(&ph);
    if (!node_of && nodes < comm->size)
        return ic_set_error(IC_ERR_ARG, "%s: %s has %ld nodes for %d ranks (give node_of to "
                            "put several ranks on one node)", fn, spec, nodes, comm->size);
    for (int r = 0; node_of && r < comm->size; r++)
        if (node_of[r] < 0 || node_of[r] >= nodes)
            return ic_set_error(IC_ERR_ARG, "%s: node_of[%d] = %d is not a node of %s (0..%ld)",
                                fn, r, node_of[r], spec, nodes - 1);
    int *nodes_of = malloc(sizeof(int) * (size_t)comm->size);
    if (!nodes_of)
        return ic_set_error(IC_ERR_NO_MEM, "%s: out of memory", fn);
    for (int r = 0; r < comm->size; r++)
        nodes_of[r] = node_of ? node_of[r] : r;
    ic_comm_drop_cache(comm);
    free(comm->phys_node);
    comm->phys = ph;
    comm->phys_node = nodes_of;
    comm->phys.node_of = nodes_of;
    return IC_OK;
}

ic_status_t ic_comm_get_mesh(const ic_comm_t *comm, int *ndims, int dims[], int maxdims)
{
    ic_status_t cst = ic_comm_check("ic_comm_get_mesh", comm);
    if (cst != IC_OK)
        return cst;
    if (!ndims)
        return ic_set_error(IC_ERR_ARG, "ic_comm_get_mesh: ndims is NULL");
    if (maxdims > 0 && !dims)
        return ic_set_error(IC_ERR_ARG, "ic_comm_get_mesh: dims is NULL");
    ic_mesh_t m = comm->has_mesh ? comm->mesh : ic_mesh_line(comm->size);
    *ndims = m.d;
    for (int i = 0; i < m.d && i < maxdims; i++)
        dims[i] = m.dims[i];
    return IC_OK;
}

/* The first layout of ic_model_params_t (0.1) ends after beta_net; a
 * caller compiled against a later, longer one passes a larger size, whose
 * extra fields this version does not know and ignores. */
static bool model_size_ok(size_t size)
{
    return size >= offsetof(ic_model_params_t, beta_net) + sizeof(double) && size <= 4096;
}

ic_status_t ic_comm_set_model(ic_comm_t *comm, const ic_model_params_t *m)
{
    ic_status_t cst = ic_comm_check("ic_comm_set_model", comm);
    if (cst != IC_OK)
        return cst;
    if (!m)
        return ic_set_error(IC_ERR_ARG, "ic_comm_set_model: m is NULL");
    if (!model_size_ok(m->size))
        return ic_set_error(IC_ERR_ARG,
                            "ic_comm_set_model: m->size = %zu: set it to sizeof(ic_model_params_t) "
                            "(IC_MODEL_PARAMS_INIT)",
                            m->size);
    bool has_rndv = m->size >= offsetof(ic_model_params_t, rndv_alpha) + sizeof(double);
    const double v[6] = {m->alpha, m->beta, m->gamma, m->delta, m->beta_net,
                         has_rndv ? m->rndv_alpha : 0};
    const char *names[6] = {"alpha", "beta", "gamma", "delta", "beta_net", "rndv_alpha"};
    for (int i = 0; i < 6; i++)
        if (!(v[i] >= 0 && v[i] <= 1e3)) /* also rejects NaN */
            return ic_set_error(IC_ERR_ARG, "ic_comm_set_model: m->%s = %g is not in [0, 1000]",
                                names[i], v[i]);
    if (!(m->alpha > 0))
        return ic_set_error(IC_ERR_ARG, "ic_comm_set_model: m->alpha must be > 0");
    bool has_ports = m->size >= offsetof(ic_model_params_t, ports) + sizeof(int);
    if (has_ports && m->ports < 0)
        return ic_set_error(IC_ERR_ARG, "ic_comm_set_model: m->ports = %d is negative (0 or 1: "
                            "one-port, k ports, IC_PORTS_ALL)", m->ports);
    ic_comm_drop_cache(comm); /* cached plans were chosen with the old model */
    ic_model_t nm = {0};
    nm.ports = has_ports ? m->ports : 0;
    nm.alpha = m->alpha;
    nm.beta = m->beta;
    nm.gamma = m->gamma;
    nm.delta = m->delta;
    nm.beta_net = m->beta_net;
    /* A caller compiled before rndv_alpha existed gets the default. */
    nm.rndv_alpha = has_rndv ? m->rndv_alpha : ic_model_default().rndv_alpha;
    nm.rndv_bytes = comm->base_model.rndv_bytes; /* the transport's, not the caller's */
    nm.rndv_oneway_bytes = comm->base_model.rndv_oneway_bytes;
    nm.share_bytes = comm->base_model.share_bytes;
    nm.cores = comm->base_model.cores;
    comm->model = nm; /* as given: no levels */
    comm->base_model = nm;
    return IC_OK;
}

ic_status_t ic_comm_get_model(const ic_comm_t *comm, ic_model_params_t *m)
{
    ic_status_t cst = ic_comm_check("ic_comm_get_model", comm);
    if (cst != IC_OK)
        return cst;
    if (!m)
        return ic_set_error(IC_ERR_ARG, "ic_comm_get_model: m is NULL");
    if (!model_size_ok(m->size))
        return ic_set_error(IC_ERR_ARG,
                            "ic_comm_get_model: m->size = %zu: set it to sizeof(ic_model_params_t) "
                            "(IC_MODEL_PARAMS_INIT)",
                            m->size);
    const ic_model_params_t full = {sizeof full,          comm->model.alpha,
                                    comm->model.beta,     comm->model.gamma,
                                    comm->model.delta,    comm->model.beta_net,
                                    comm->model.ports,    comm->model.rndv_alpha,
                                    comm->model.rndv_bytes, comm->model.share_bytes,
                                    comm->model.cores,    comm->model.rndv_oneway_bytes};
    size_t n = m->size < sizeof full ? m->size : sizeof full;
    memcpy((char *)m + sizeof m->size, (const char *)&full + sizeof full.size, n - sizeof full.size);
    return IC_OK;
}
