/*
 * dopl.c — dimension-ordered pipelines (DOPL) on a logical mesh
 * m_0 x ... x m_{d-1} (row-major, mesh.h): broadcast and reduce-to-one.
 *
 * Broadcast computes: the root's vector reaches every rank.  Dimension 0
 * first: the vector is pipelined (chain_bcast.c, k_0 segments) along the
 * root's dimension-0 chain; then every node of that chain pipelines it
 * along its dimension-1 chain (k_1 segments), and so on.  A node that
 * forwards in dimension i starts its dimension-(i+1) chain only after its
 * last forward (an explicit dependency: the one send port would otherwise
 * be shared and slow the chain it feeds); the tail of a chain, which
 * forwards nothing, starts its next chain on each segment as soon as the
 * bytes have arrived.
 *
 * Reduce computes: the reduction in rank order on the root, by the
 * reverse: rank-ordered chain reductions (chain_reduce.c, k_i segments
 * with beta+gamma) along dimension d-1 (stride 1, so every partial covers
 * a contiguous range of ranks), then d-2 among the chain roots, ..., then
 * 0 into the root: rank order holds for non-commutative operations.  Each
 * dimension starts on a node only after its previous dimension has
 * finished there (explicit dependencies), so dimensions do not compete
 * for the receive ports.
 *
 * Preconditions: the mesh has pl->size ranks (dimensions of 1 are
 * skipped); any root.
 * Cost: T_i = the chain time of dimension i (m_i nodes, k_i segments,
 *       chain_bcast.c / chain_reduce.c; the root's coordinate gives the
 *       chain root); the engine time is exactly
 *         T = sum_i T_i,
 *       which for equal segments is the paper's formula with k_alt = 1:
 *         sum_i ((m_i - 1) + k_i - 1) * (alpha + n/k_i*beta)   (broadcast).
 *       Broadcast: the tails' early start can only make nodes finish
 *       earlier (no port is shared), and the node before the tail of each
 *       chain starts its next chain exactly T_i after its own chain
 *       started, with the whole vector: that path takes sum_i T_i.
 *       Reduce: the dimensions are strictly phased and all chains of one
 *       dimension are alike, so they start and end together.
 *       Every chain in one dimension is cut the same way (k_i from
 *       (m_i, n)); the reduction uses the pipeline length of its chain
 *       (m_i, or m_i + 1 with a root in the middle).
 * k_alt > 1 (ic_blk_dopl_alt_bcast, bcast "dopl_alt"; [Watts94] sections
 *       9 and 15.2, figure 6a): the vector is cut into k_alt pieces; piece
 *       x is pipelined through the D dimensions longer than 1 in the
 *       rotated order E[x mod D], E[x+1 mod D], ...  Step t (t = 0 ..
 *       k_alt+D-2) runs only chains of dimension E[t mod D]; a node is in
 *       exactly one of them, and its chain carries piece
 *         x = t - (D-1) + s,   s = how many of the dimensions
 *                                  E[t+1], E[t+2], ... (at most D-1, in
 *                                  that order) hold the root's coordinate,
 *       (piece k_alt-1 where x > k_alt-1 while the last piece is still in
 *       its D steps: the paper's "re-transmit the (k_alt-1)th piece", so
 *       the last piece goes as plain DOPL); and, where the chain's head is
 *       not the root, its tail sends piece t-D (t-D < k_alt-1) straight to
 *       the head: the one piece the head misses (its coordinate in
 *       dimension E[(t-D) mod D] is the root's, so no chain brought it).
 *       Every node receives each piece exactly once, one chain per step,
 *       so one send and one receive port suffice: the head receives only
 *       the wrap and the tail sends only the wrap.  Every send waits for
 *       the node's previous send and every receive for its previous
 *       receive (step order), so the engine's time is the max-plus pass
 *       of ic_cost_dopl_alt_time over every node's two ports (exact; the
 *       paper's closed form above 2^22 node-segments).  The paper's
 *         T = (k_alt-1)(alpha + n/k_alt*beta)
 *           + sum_i (ceil((k_alt+D-1-i)/D)(m_i-1) + k_i-1)(alpha + n/(k_alt*k_i)*beta),
 *         k_i = sqrt((m_i-2) n beta / (k_alt alpha))   (ic_pipe_segments),
 *       is within 0.2 % of the engine on 4x8 and 16x32 for 1 MiB (k_alt =
 *       1, 2); for n*beta >> (m_i-1)*alpha it tends to
 *       ((k_alt-1) + D)/k_alt * n*beta: 1.5 n*beta for k_alt = 2 on a 2-D
 *       mesh against 2 n*beta for k_alt = 1.  The entry picks k_alt in
 *       [2, 16] by the paper's formula (convex in k_alt, section 15.2).
 *       Reduce with k_alt > 1 is not implemented: reversing the rotated
 *       orders combines, for pieces that start in a dimension other than
 *       d-1, partials of non-contiguous rank ranges, so rank order (and
 *       the same bits on every rank for non-commutative or floating-point
 *       operations) would need a per-piece reordering not done here.
 * Source: [Watts94] sections 6 (DOPL, figure 6a), 9 (T_DOPL-BROADCAST, k_i,
 *       k_alt), 11 (reduction to one: the pipeline reversed, k_i with
 *       beta+gamma), 15.2 (choosing k_alt).
 *
 * 2 x 3 mesh, root 0, broadcast:      reduce (reverse):
 *   dim 0:  0 -> 3  (column)            dim 1: 0<-1<-2 ... rank order
 *   dim 1:  0 -> 1 -> 2, 3 -> 4 -> 5    dim 0: 3 -> 0 (0 prepends)
 *
 * 3 x 3 mesh, root 0 (rank = 3*row + col), k_alt = 2 (pieces A, B):
 *   step 0 (columns):  A: 0 -> 3 -> 6
 *   step 1 (rows):     B: 0 -> 1 -> 2      A: 3 -> 4 -> 5, 6 -> 7 -> 8
 *   step 2 (columns):  B: 1 -> 4 -> 7, 2 -> 5 -> 8 (last piece: plain
 *                      DOPL, so column 0 gets B too: 0 -> 3 -> 6)
 *                      wraps (piece A, tail -> head): 7 -> 1, 8 -> 2
 */
#include "algo/builders_pipeline.h"

/* The dimension-k chain through this rank; me = -1 unless the rank's
 * coordinates above k equal the root's. */
static ic_view_t dim_view(const ic_mesh_t *mesh, int rank, const int *mine, const int *rc,
                          int k)
{
    ic_view_t v = ic_mesh_dim_view(mesh, rank, k);
    for (int i = k + 1; i < mesh->d; i++)
        if (mine[i] != rc[i])
            v.me = -1;
    return v;
}

void ic_blk_dopl_bcast(ic_plan_t *pl, const ic_mesh_t *mesh, int root, ic_loc_t buf,
                       size_t count, size_t es, const ic_model_t *md)
{
    int mine[IC_MESH_MAX_DIMS], rc[IC_MESH_MAX_DIMS];
    ic_mesh_coords(mesh, pl->rank, mine);
    ic_mesh_coords(mesh, root, rc);
    long after = -1;
    for (int k = 0; k < mesh->d; k++) {
        if (mesh->dims[k] <= 1)
            continue;
        ic_segs_t sg;
        int nseg = ic_pipe_segments(mesh->dims[k], count, es, md->beta, md);
        if (!ic_segs_make(pl, &sg, count, es, nseg))
            return;
        ic_view_t v = dim_view(mesh, pl->rank, mine, rc, k);
        after = ic_blk_chain_bcast(pl, &v, rc[k], buf, &sg, after);
    }
}

void ic_blk_dopl_reduce(ic_plan_t *pl, const ic_mesh_t *mesh, int root, ic_loc_t in,
                        ic_loc_t acc, size_t count, size_t es, bool commutative,
                        const ic_model_t *md)
{
    int mine[IC_MESH_MAX_DIMS], rc[IC_MESH_MAX_DIMS];
    ic_mesh_coords(mesh, pl->rank, mine);
    ic_mesh_coords(mesh, root, rc);
    size_t bytes = count * es;
    bool is_root = pl->rank == root;
    /* Where this rank's partial is: its input, then its accumulator once
     * it has been a chain root (the root's is acc itself). */
    ic_loc_t cur = in, mine_acc = is_root ? acc : ic_loc(IC_BUF_NONE, 0);
    long after = -1;
    for (int k = mesh->d - 1; k >= 0; k--) {
        int m = mesh->dims[k];
        if (m <= 1)
            continue;
        ic_view_t v = dim_view(mesh, pl->rank, mine, rc, k);
        bool chain_root = v.me >= 0 && v.me == rc[k];
        if (chain_root && mine_acc.buf == IC_BUF_NONE && bytes > 0)
            mine_acc = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
        int len = rc[k] == 0 || rc[k] == m - 1 ? m : m + 1; /* pipeline nodes */
        ic_segs_t sg;
        int nseg = ic_pipe_segments(len, count, es, md->beta + md->gamma, md);
        if (!ic_segs_make(pl, &sg, count, es, nseg))
            return;
        after = ic_blk_chain_reduce(pl, &v, rc[k], cur, chain_root ? mine_acc : cur, &sg,
                                    commutative, after);
        if (chain_root)
            cur = mine_acc;
    }
    if (is_root && bytes > 0 && (cur.buf != acc.buf || cur.off != acc.off))
        ic_plan_copy(pl, cur, acc, bytes); /* every dimension was 1 */
}

/* ---- k_alt > 1: alternating dimension orders ---------------------------- */

void ic_dopl_alt_init(ic_dopl_alt_t *s, const ic_mesh_t *mesh, int kalt)
{
    s->D = 0;
    for (int i = 0; i < mesh->d; i++)
        if (mesh->dims[i] > 1)
            s->E[s->D++] = i;
    s->kalt = kalt < 1 ? 1 : kalt;
    s->steps = s->D > 0 ? s->kalt + s->D - 1 : 0;
}

void ic_dopl_alt_role(const ic_dopl_alt_t *s, const ic_mesh_t *mesh, const int *c, const int *rc,
                      int t, ic_dopl_role_t *r)
{
    int D = s->D, dim = s->E[t % D], m = mesh->dims[dim];
    int match = 0; /* consecutive dimensions after this one where c is the root's */
    for (int j = 1; j < D && c[s->E[(t + j) % D]] == rc[s->E[(t + j) % D]]; j++)
        match++;
    int last = s->kalt - 1, x = t - (D - 1) + match, w = t - D;
    if (x > last && t - last <= D - 1)
        x = last; /* [Watts94]: "re-transmit the (k_alt-1)th piece": plain DOPL */
    r->dim = dim;
    r->m = m;
    r->pos = ic_mod((long)c[dim] - rc[dim], m);
    r->piece = x >= 0 && x <= last ? x : -1;
    r->wrap = w >= 0 && w < last && match < D - 1 ? w : -1; /* head is not the root */
}

int ic_dopl_alt_recv_step(const ic_dopl_alt_t *s, const int *c, const int *rc, int x)
{
    int D = s->D;
    for (int j = D - 1; j >= 0; j--) /* the last dimension of x's order where c is off the root */
        if (c[s->E[(x + j) % D]] != rc[s->E[(x + j) % D]])
            return x == s->kalt - 1 || c[s->E[x % D]] != rc[s->E[x % D]] ? x + j : x + D;
    return -1; /* the root */
}

size_t ic_dopl_alt_piece(size_t count, size_t es, int kalt, int x, size_t *off)
{
    /* ic_pipe_seg_bytes's cut, with pieces past the last granule empty. */
    size_t g = ic_pipe_grain(es), units = ic_pipe_units(count, es);
    size_t q = units / (size_t)kalt, r = units % (size_t)kalt;
    size_t first = (size_t)x * q + ((size_t)x < r ? (size_t)x : r);
    size_t lo = first * g, hi = (first + q + ((size_t)x < r)) * g;
    lo = lo < count ? lo : count;
    hi = hi < count ? hi : count;
    *off = lo * es;
    return (hi - lo) * es;
}

int ic_dopl_alt_wrap_segs(const ic_dopl_alt_t *s, const ic_mesh_t *mesh, const int *c,
                          const int *rc, int t, size_t pcount, size_t es, const ic_model_t *md)
{
    int tail[IC_MESH_MAX_DIMS], dim = s->E[t % s->D];
    for (int i = 0; i < mesh->d; i++)
        tail[i] = c[i];
    tail[dim] = ic_mod((long)rc[dim] - 1, mesh->dims[dim]);
    int tr = ic_dopl_alt_recv_step(s, tail, rc, t - s->D);
    int m = mesh->dims[s->E[(tr < 0 ? t : tr) % s->D]];
    return ic_pipe_segments(m, pcount, es, md->beta, md);
}

/* Appends one rank's messages of piece bytes [off, off + k segments of
 * pcount elements) to peer: receives when recv, else sends; every send
 * waits for the rank's previous send and every receive for its previous
 * receive, so each port serves the steps in program order. */
static void port_msgs(ic_plan_t *pl, int peer, bool recv, uint32_t tag0, ic_loc_t buf,
                      size_t off, size_t pcount, size_t es, int k, long *last)
{
    size_t o = off;
    for (int s = 0; s < k; s++) {
        size_t len = ic_pipe_seg_bytes(pcount, es, k, s);
        ic_loc_t at = ic_loc_add(buf, o);
        long st = recv ? ic_plan_recv(pl, peer, tag0 + (uint32_t)s, at, len)
                       : ic_plan_send(pl, peer, tag0 + (uint32_t)s, at, len);
        if (st >= 0 && *last >= 0)
            ic_plan_add_dep(pl, st, *last);
        if (st >= 0)
            *last = st;
        o += len;
    }
}

void ic_blk_dopl_alt_bcast(ic_plan_t *pl, const ic_mesh_t *mesh, int root, ic_loc_t buf,
                           size_t count, size_t es, const ic_model_t *md, int kalt)
{
    ic_dopl_alt_t s;
    ic_dopl_alt_init(&s, mesh, kalt);
    int mine[IC_MESH_MAX_DIMS], rc[IC_MESH_MAX_DIMS];
    ic_mesh_coords(mesh, pl->rank, mine);
    ic_mesh_coords(mesh, root, rc);
    long last_send = -1, last_recv = -1;
    for (int t = 0; t < s.steps; t++) {
        ic_plan_next_phase(pl);
        if (count == 0)
            continue;
        ic_dopl_role_t r;
        ic_dopl_alt_role(&s, mesh, mine, rc, t, &r);
        ic_view_t v = ic_mesh_dim_view(mesh, pl->rank, r.dim);
        size_t off, pc;
        if (r.piece >= 0) { /* the step's chain */
            pc = ic_dopl_alt_piece(count, es, s.kalt, r.piece, &off) / es;
            int k = ic_pipe_segments(r.m, pc, es, md->beta, md);
            if (r.pos > 0)
                port_msgs(pl, ic_view_rank(&v, ic_ring_left(v.me, r.m)), true, 0, buf, off, pc,
                          es, k, &last_recv);
            if (r.pos < r.m - 1)
                port_msgs(pl, ic_view_rank(&v, ic_ring_right(v.me, r.m)), false, 0, buf, off, pc,
                          es, k, &last_send);
        }
        if (r.wrap >= 0 && (r.pos == 0 || r.pos == r.m - 1)) { /* tail -> head, direct */
            pc = ic_dopl_alt_piece(count, es, s.kalt, r.wrap, &off) / es;
            int k = ic_dopl_alt_wrap_segs(&s, mesh, mine, rc, t, pc, es, md);
            int peer = ic_view_rank(&v, ic_mod((long)rc[r.dim] + (r.pos == 0 ? -1 : 0), r.m));
            if (r.pos == 0)
                port_msgs(pl, peer, true, IC_PIPE_MAX_SEGMENTS, buf, off, pc, es, k, &last_recv);
            else
                port_msgs(pl, peer, false, IC_PIPE_MAX_SEGMENTS, buf, off, pc, es, k, &last_send);
        }
    }
}
