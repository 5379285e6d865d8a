/*
 * hosts.c — collectives over hosts of any sizes, by leaders (the "hosts"
 * entries of bcast, reduce and allreduce; docs/mpi.md).
 *
 * A job across hosts is a 2-level machine: messages inside a host are
 * cheap, messages between hosts dear.  When every host has the same
 * number k of consecutive ranks the h x k mesh and its hybrids apply
 * (ic_comm_levels); these entries work for any placement: 3 + 2 + 2 ranks,
 * interleaved ranks, one rank on some host.  Each host has a leader (its
 * lowest rank; for a rooted call, the root on the root's host); the
 * members of a host and the leaders are views over explicit rank lists
 * (ic_view_t.map), so the plain blocks run on them unchanged.
 *
 *   bcast      MST over the leaders from the root, then MST inside each
 *              host from its leader:
 *              ceil(log2 h)(a_n + N b_n) + ceil(log2 k)(a_h + N b_h)
 *   reduce     MST reduce inside each host to its leader, then MST reduce
 *              over the leaders to the root:
 *              ceil(log2 k)(a_h + N b_h + N g) + ceil(log2 h)(a_n + N b_n + N g)
 *   allreduce  reduce inside each host to its leader; allreduce over the
 *              leaders (MST reduce + MST bcast for short vectors, ring
 *              reduce-scatter + allgather for long ones, whichever the
 *              network level prices lower: ic_hosts_leaders_ring); bcast
 *              inside each host:
 *              ceil(log2 k)(2 a_h + 2 N b_h + N g) + leaders
 *              leaders MST:  ceil(log2 h)(2 a_n + 2 N b_n + N g)
 *              leaders ring: (h-1)(2 a_n + 2 N/h b_n + N/h g)
 *
 * k is the largest host, h the number of hosts; a_h, b_h the host level
 * and a_n, b_n the network level of the model (model.h).  The reductions
 * combine in a fixed tree order, so every rank gets the same bits, but not
 * in rank order: the entries need a commutative operation.
 *
 * Allreduce on 3 + 2 + 2 ranks (L = leader; hosts A, B, C):
 *
 *     host A: a0(L) a1 a2    host B: b0(L) b1    host C: c0(L) c1
 *       a1 -> a0 <- a2         b1 -> b0            c1 -> c0      reduce inside
 *             a0  <---------->  b0  <---------->  c0             leaders allreduce
 *       a1 <- a0 -> a2         b1 <- b0            c1 <- c0      bcast inside
 *
 * Without host information (a communicator of one host) every rank is on
 * host 0 and the entries are the plain MST ones.  Source: the two-level
 * schemes of MPI libraries' "SMP-aware" collectives, built here from the
 * [Watts94] blocks.
 */
#include "algo/hosts.h"

#include "algo/blocks.h"
#include "algo/builders.h"

static int host_of(const ic_coll_args_t *a, int r)
{
    return a->host_of ? a->host_of[r] : 0;
}

int ic_hosts_count(const ic_coll_args_t *a, int p, int *kmax)
{
    int h = a->host_of ? a->nhosts : 1, k = 0;
    if (h < 1)
        h = 1;
    for (int x = 0; x < h; x++) {
        int n = 0;
        for (int r = 0; r < p; r++)
            n += host_of(a, r) == x;
        k = n > k ? n : k;
    }
    if (kmax)
        *kmax = k;
    return h;
}

bool ic_hosts_views(ic_plan_t *pl, const ic_coll_args_t *a, int root, ic_view_t *host,
                    ic_view_t *leaders)
{
    int p = pl->size, me = pl->rank, h = ic_hosts_count(a, p, NULL);
    int *members = ic_plan_tmp(pl, sizeof(int) * (size_t)p);
    int *lead = ic_plan_tmp(pl, sizeof(int) * (size_t)h);
    if (!members || !lead)
        return false;
    int mine = host_of(a, me), n = 0, my_index = -1;
    for (int x = 0; x < h; x++)
        lead[x] = -1;
    for (int r = 0; r < p; r++) {
        int x = host_of(a, r);
        if (lead[x] < 0)
            lead[x] = r; /* the lowest rank */
        if (x == mine) {
            if (r == me)
                my_index = n;
            members[n++] = r;
        }
    }
    if (root >= 0)
        lead[host_of(a, root)] = root;
    int host_root = 0;
    for (int i = 0; i < n; i++)
        if (members[i] == lead[mine])
            host_root = i;
    *host = (ic_view_t){n, 0, 1, my_index, members};
    /* The host's leader goes first in its host view: rotate the list so
     * that index 0 is the leader (MST roots at index 0). */
    if (host_root != 0) {
        int *rot = ic_plan_tmp(pl, sizeof(int) * (size_t)n);
        if (!rot)
            return false;
        for (int i = 0; i < n; i++)
            rot[i] = members[(i + host_root) % n];
        host->map = rot;
        host->me = (my_index - host_root + n) % n;
    }
    int lme = -1;
    for (int x = 0; x < h; x++)
        if (lead[x] == me)
            lme = x;
    *leaders = (ic_view_t){h, 0, 1, lme, lead};
    return true;
}

bool ic_hosts_leaders_ring(int h, size_t bytes, const ic_model_t *net)
{
    if (h <= 2)
        return false;
    double a = net->alpha, b = net->beta, g = net->gamma, n = (double)bytes;
    double mst = ic_ceil_log2(h) * (2 * a + 2 * n * b + n * g);
    double ring = (h - 1) * (2 * a + (2 * n * b + n * g) / h);
    return ring < mst;
}

ic_model_t ic_hosts_level(const ic_model_t *m, int level)
{
    ic_model_t r = *m;
    if (m->lvl_alpha[level] > 0) {
        r.alpha = m->lvl_alpha[level];
        r.beta = m->lvl_beta[level];
    }
    return r;
}

ic_status_t ic_build_bcast_hosts(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t host, lead;
    if (!ic_hosts_views(pl, a, a->root, &host, &lead))
        return pl->error;
    size_t bytes = a->count * ic_args_esize(a);
    int root_host = host_of(a, a->root);
    ic_blk_mst_bcast(pl, &lead, root_host, ic_loc(IC_BUF_RECV, 0), bytes);
    ic_blk_mst_bcast(pl, &host, 0, ic_loc(IC_BUF_RECV, 0), bytes);
    return pl->error;
}

ic_status_t ic_build_reduce_hosts(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t host, lead;
    if (!ic_hosts_views(pl, a, a->root, &host, &lead))
        return pl->error;
    size_t bytes = a->count * ic_args_esize(a);
    int me = pl->rank;
    bool root = me == a->root;
    ic_loc_t in = a->in_place && root ? ic_loc(IC_BUF_RECV, 0) : ic_loc(IC_BUF_SEND, 0);
    /* A leader's partial: the root's receive buffer, elsewhere scratch. */
    ic_loc_t part = root ? ic_loc(IC_BUF_RECV, 0)
                         : (lead.me >= 0 ? ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes))
                                         : ic_loc(IC_BUF_NONE, 0));
    ic_blk_mst_reduce(pl, &host, 0, in, part, bytes);
    ic_blk_mst_reduce(pl, &lead, host_of(a, a->root), part, part, bytes);
    return pl->error;
}

ic_status_t ic_build_allreduce_hosts(ic_plan_t *pl, const ic_coll_args_t *a)
{
    ic_view_t host, lead;
    if (!ic_hosts_views(pl, a, -1, &host, &lead))
        return pl->error;
    size_t es = ic_args_esize(a), bytes = a->count * es;
    ic_loc_t out = ic_loc(IC_BUF_RECV, 0);
    ic_blk_mst_reduce(pl, &host, 0, ic_args_allreduce_input(a), out, bytes);
    ic_model_t net = ic_hosts_level(&a->model, 0);
    if (ic_hosts_leaders_ring(lead.n, bytes, &net)) {
        int h = lead.n;
        size_t *off = ic_plan_sizes(pl, (size_t)h), *len = ic_plan_sizes(pl, (size_t)h);
        if (!off || !len)
            return pl->error;
        ic_partition_even(a->count, h, off, len);
        for (int i = 0; i < h; i++) {
            off[i] *= es;
            len[i] *= es;
        }
        /* The leader's partial is its input; its own block is reduced in
         * place (the ring block copies in[me] to out[me] first). */
        ic_layout_t lay = {out, off};
        ic_loc_t mine = ic_layout_at(&lay, lead.me < 0 ? 0 : lead.me);
        ic_blk_ring_reduce_scatter(pl, &lead, len, lay, mine);
        ic_blk_ring_allgather(pl, &lead, len, lay, mine);
    } else {
        ic_blk_mst_reduce(pl, &lead, 0, out, out, bytes);
        ic_blk_mst_bcast(pl, &lead, 0, out, bytes);
    }
    ic_blk_mst_bcast(pl, &host, 0, out, bytes);
    return pl->error;
}
