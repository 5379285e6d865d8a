/*
 * quadrant_alltoall.c — complete exchange (all-to-all) by quadrant
 * exchange on a 2^j x 2^j mesh, stepwise contention-free under
 * dimension-ordered routing.
 *
 * Computes: block t (b bytes) of rank s's send layout reaches block s of
 * rank t's receive layout, on the logical mesh S x S of the communicator
 * (S = 2^j, p = S*S, rank = S*r + c for row r and column c; row-major as
 * in mesh.h, so dimension 0 is the row).
 *
 * Levels h = S/2, S/4, ..., 1, largest first.  At level h the mesh is cut
 * into aligned 2h x 2h squares, each of four h x h quadrants; the
 * quadruple of (r, c) is the rectangle (r, c) (r, c^h) (r^h, c) (r^h, c^h),
 * one corner in each quadrant of its square.  A rank sends each of the
 * other three corners (row partner, column partner, diagonal partner: one
 * per step, in that order) the p/4 blocks it holds whose destination lies
 * in that corner's quadrant, and receives as many from it; afterwards
 * every block lies in its destination's h x h quadrant.  Level S/2
 * quarters the mesh, the later levels do the same concurrently inside the
 * quadrants.  Before level h a rank x holds the p blocks (source s,
 * destination t) with s agreeing with x in the coordinate bits <= h and t
 * agreeing with x in the bits > h; it indexes them by the mesh rank of
 * (bits > h of s, bits <= h of t), per coordinate: t before the first
 * level, s after the last.  It sends partner y the indices whose bit h
 * (of row and column) is y's and receives y's blocks under the same
 * indices, so a message carries its blocks in increasing index on both
 * sides.  Blocks are packed into scratch (COPY) where they do not lie
 * back to back, and copied to the receive layout at the end (the last
 * level receives in place where its blocks are contiguous there).
 *
 * Schedule (designed here; the survey's figure is not in its text): a
 * rank takes part in one stage per level: the one of residue (c - r) mod h
 * of the h stages of level h (ic_quadrant_stage: the residues run in
 * increasing order mod h, each level starting with the residue of the
 * previous stage), so the whole exchange has S/2 + S/4 + ... + 1 = S - 1
 * stages of 3 steps.  In an aligned 2h-square
 * a stage's quadruples are those whose top-left corner (r, c) has
 * c - r = k (mod h): one quadruple per row and one per column.  A row
 * step's two messages in a row run along that row only, a column step's
 * along a column; a diagonal step moves down or up the sender's column,
 * then along the receiver's row, and the four diagonal messages of a
 * quadruple use its two columns and two rows once in each direction.
 * Routes never leave the square, so no directed link carries two
 * messages in a step.  Stages run one after the other: the ranks of a
 * stage are idle before it, so nothing in the data orders them; a
 * zero-byte token does.  After stage g each of its ranks sends one token
 * along its row, inside its aligned segment of the stage's h columns, to
 * a rank of stage g + 1: to the next column (mod h) inside a level; at
 * the step to the next level (whose stage g + 1 holds the ranks of stage
 * g and as many new ones) to the column h/2 away, a new rank, and the old
 * ranks wait for their own token to leave.  Every stage's messages wait
 * for their rank's token; one token per row segment, so the tokens do
 * not share links either.
 *
 * Preconditions: the mesh is 2^j x 2^j with j >= 1 and has p ranks
 * (dimensions of 1 ignored; the catalog refuses anything else); every
 * block has the same length b, because ranks forward blocks whose lengths
 * only their sources know (no v-form without a size exchange); send and
 * receive layouts must not overlap.
 * Cost: 3*(S - 1)*(alpha + (p/4)*b*beta) + (S - 2)*alpha, S = sqrt(p)
 *       (the S - 2 tokens between consecutive stages),
 *       (+ up to 3*p/4*b*delta of packing per level and p*b*delta at the
 *       end, priced at delta by the engine).  Each rank sends 3*j messages
 *       of p/4 blocks and j - 1 tokens; with links priced (beta_net > 0,
 *       the mesh is the physical one) bytes cost max(beta, beta_net), one
 *       message per link.
 * Source: [MTR94] seeds/001_fed5c0c335536976.txt section 7, "quadrant
 *       exchange" (quadruples on rectangle corners, 2^(j-1) stages quarter
 *       the 2^j x 2^j mesh, then the quadrants concurrently, 3(sqrt(N) - 1)
 *       steps of N/4 messages; its reference [24]: Bokhari and Berryman,
 *       "Complete exchange on a circuit switched mesh", 1992).
 *
 * mesh 4 x 4 (p = 16):   0  1 |  2  3     level 2: quadruples {0,2,8,10}
 *                        4  5 |  6  7        {5,7,13,15} (stage 0: c = r mod 2)
 *                       ------+------        and {1,3,9,11} {4,6,12,14} (stage 1)
 *                        8  9 | 10 11     level 1: the 2 x 2 squares {0,1,4,5}
 *                       12 13 | 14 15        {2,3,6,7} {8,9,12,13} {10,11,14,15}
 *   stage 0: row 0<->2 5<->7 8<->10 13<->15; column 0<->8 2<->10 5<->13 7<->15;
 *            diagonal 0<->10 2<->8 5<->15 7<->13 (0 -> 10: down column 0,
 *            then along row 2; 2 -> 8: down column 2, then back along row 2)
 *   token:   0->1 2->3 5->4 7->6 8->9 10->11 13->12 15->14
 *   stage 1: the same in quadruples {1,3,9,11} {4,6,12,14}
 *   token:   1->0 3->2 4->5 6->7 9->8 11->10 12->13 14->15
 *   stage 2: every 2 x 2 square exchanges (row, column, diagonal)
 */
#include "algo/builders_alltoall.h"

int ic_quadrant_side_of(long p)
{
    long s = 2;
    while (s * s < p)
        s *= 2;
    return s * s == p ? (int)s : 0;
}

int ic_quadrant_side(const ic_mesh_t *m)
{
    int side[2], n = 0;
    for (int k = 0; k < m->d; k++) {
        if (m->dims[k] <= 1)
            continue;
        if (n == 2)
            return 0;
        side[n++] = m->dims[k];
    }
    if (n != 2 || side[0] != side[1] || (side[0] & (side[0] - 1)) != 0)
        return 0;
    return side[0];
}

bool ic_quadrant_stage(int side, int g, int *h, int *res)
{
    int base = 0, off = 0;
    for (int hh = side / 2; g >= 0 && hh >= 1; hh /= 2) {
        if (g < base + hh) {
            *h = hh;
            *res = (off + g - base) % hh;
            return true;
        }
        /* The next level starts with the residue its last stage had. */
        int last = (off + hh - 1) % hh;
        base += hh;
        off = hh > 1 ? last % (hh / 2) : 0;
    }
    return false;
}

static uint32_t tag_of(int g, int kind)
{
    return (uint32_t)(4 * g + kind);
}

/* The token before stage g (g >= 1): this rank (r, c) sends it when it
 * ran stage g - 1, receives it when it runs stage g only.  Returns the
 * step the rank's stage-g messages wait for (-1: none). */
static long token(ic_plan_t *pl, int side, int g, int r, int c, bool was, bool on, const long *prev,
                  int nprev)
{
    int hp = 1, resp = 0, h = 1, res = 0;
    ic_quadrant_stage(side, g - 1, &hp, &resp);
    ic_quadrant_stage(side, g, &h, &res);
    int d = h == hp ? 1 : h, seg = c - c % hp;
    ic_loc_t none = ic_loc(IC_BUF_NONE, 0);
    if (was) {
        long s = ic_plan_send(pl, r * side + seg + (c - seg + d) % hp, tag_of(g, 0), none, 0);
        for (int k = 0; k < nprev; k++)
            ic_plan_add_dep(pl, s, prev[k]);
        return s;
    }
    if (on)
        return ic_plan_recv(pl, r * side + seg + ic_mod(c - seg - d, hp), tag_of(g, 0), none, 0);
    return -1;
}

void ic_blk_quadrant_alltoall(ic_plan_t *pl, int side, int rank, ic_layout_t send, ic_layout_t recv,
                              size_t b)
{
    ic_plan_next_phase(pl);
    int p = side * side, r = rank / side, c = rank % side, q4 = p / 4;
    /* where[i]: where block index i is now. */
    ic_loc_t *where = ic_plan_tmp(pl, sizeof(ic_loc_t) * (size_t)p * 3);
    int *idx = ic_plan_tmp(pl, sizeof(int) * (size_t)q4);
    if (!where || !idx)
        return;
    ic_loc_t *src = where + p, *dst = where + 2 * p;
    for (int i = 0; i < p; i++)
        where[i] = ic_layout_at(&send, i);
    long comm[6]; /* this rank's messages of its latest stage */
    int ncomm = 0;
    bool was = false;
    for (int g = 0; b > 0 && g < side - 1; g++) {
        int h = 1, res = 0;
        ic_quadrant_stage(side, g, &h, &res);
        bool on = ic_mod(c - r, h) == res;
        long gate = g > 0 ? token(pl, side, g, r, c, was, on, comm, ncomm) : -1;
        was = on;
        if (!on)
            continue;
        bool last = g == side - 2;
        size_t bytes = (size_t)q4 * b;
        ncomm = 0;
        for (int k = 0; k < 3; k++) { /* row, column, diagonal partner */
            int yr = k == 0 ? r : r ^ h, yc = k == 1 ? c : c ^ h;
            int n = 0;
            for (int i = 0; i < p; i++)
                if (((i / side) & h) == (yr & h) && ((i % side) & h) == (yc & h))
                    idx[n++] = i;
            for (int q = 0; q < n; q++)
                src[q] = where[idx[q]];
            ic_loc_t out = src[0];
            if (!ic_locs_contiguous(src, n, b)) {
                out = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
                for (int q = 0; q < n; q++)
                    dst[q] = ic_loc_add(out, (size_t)q * b);
                ic_copy_runs(pl, src, dst, n, b);
            }
            int peer = yr * side + yc;
            long s = ic_plan_send(pl, peer, tag_of(g, 1 + k), out, bytes);
            ic_plan_add_dep(pl, s, gate);
            comm[ncomm++] = s;
            /* In the last stage the blocks are final: receive them in
             * place where they are contiguous there. */
            for (int q = 0; q < n; q++)
                dst[q] = ic_layout_at(&recv, idx[q]);
            ic_loc_t in = dst[0];
            if (!last || !ic_locs_contiguous(dst, n, b))
                in = ic_loc(IC_BUF_SCRATCH, ic_plan_scratch(pl, bytes));
            long rv = ic_plan_recv(pl, peer, tag_of(g, 1 + k), in, bytes);
            ic_plan_add_dep(pl, rv, gate);
            comm[ncomm++] = rv;
            for (int q = 0; q < n; q++)
                where[idx[q]] = ic_loc_add(in, (size_t)q * b);
        }
    }
    /* Blocks not received in place (the own block among them). */
    for (int i = 0; i < p; i++)
        dst[i] = ic_layout_at(&recv, i);
    ic_copy_runs(pl, where, dst, p, b);
}
