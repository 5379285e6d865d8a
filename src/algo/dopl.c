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
 * Not implemented: k_alt > 1 ([Watts94] sections 9 and 15.2: k_alt vector
 *       parts started in rotated dimension orders, so that every
 *       dimension's links carry a part at once).  It pays off on a
 *       physical mesh where a node has separate links per dimension; in
 *       this model a node has one send and one receive port whatever the
 *       dimension and links never contend, so the parts would only share
 *       the same ports: the per-dimension fill terms add up and the
 *       wraparound term (k_alt - 1)*(alpha + n/k_alt*beta) is pure loss.
 * Source: [Watts94] sections 6 (DOPL), 9 (T_DOPL-BROADCAST, k_i), 11 (reduction to
 *       one: the pipeline reversed, k_i with beta+gamma).
 *
 * 2 x 3 mesh, root 0, broadcast:      reduce (reverse):
 *   dim 0:  0 -> 3  (column)            dim 1: 0<-1<-2 ... rank order
 *   dim 1:  0 -> 1 -> 2, 3 -> 4 -> 5    dim 0: 3 -> 0 (0 prepends)
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
