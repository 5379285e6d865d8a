/*
 * row_col_bcast.c — row and column communicators of a 2-D process grid.
 *
 *   intercom-run -n P row_col_bcast [BLOCK]       (default BLOCK = 10000)
 *
 * The P ranks are viewed as an R x C grid, R <= C, with R the largest
 * divisor of P not above sqrt(P) (the most square factorisation; a prime
 * P gives 1 x P).  Rank r sits at row i = r / C, column j = r % C.
 * ic_comm_split(world, i, j) makes the row communicators (rank j inside)
 * and ic_comm_split(world, j, i) the column communicators (rank i inside).
 *
 * The diagonal rank (k, k) of each row k (k < R) owns a block D_k of BLOCK
 * int64 values, D_k[e] = 1000000 k + e.  Then, as in a 2-D matrix
 * algorithm (e.g. forming the block (i, j) of x x^T from a vector x that
 * lives on the diagonal):
 *
 *   step 1  in every row i, the diagonal rank (i, i) broadcasts D_i along
 *           its row communicator (root = column i);
 *   step 2  in every column j, rank (j mod R, j) forwards the block it got
 *           in step 1, D_{j mod R}, down its column (root = row j mod R).
 *
 * Afterwards rank (i, j) holds D_i (from its row) and D_{j mod R} (from its
 * column); on a square grid that is D_i and D_j.  Every rank checks both
 * blocks element by element and the sizes and ranks of its two
 * communicators; ic_gather brings to rank 0 which blocks every rank got,
 * and rank 0 prints the grid and the outcome.  The exit status is non-zero
 * on any error.
 */
#include <intercom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int me = 0;

/* An intercom call that fails ends this rank (the launcher then stops the
 * others, which would otherwise wait for it). */
#define IC_CALL(call)                                                                              \
    do {                                                                                           \
        ic_status_t st_ = (call);                                                                  \
        if (st_ != IC_OK) {                                                                        \
            fprintf(stderr, "rank %d: %s failed: %s (%s)\n", me, #call, ic_status_string(st_),     \
                    ic_last_error());                                                              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int64_t block_value(int k, size_t e)
{
    return (int64_t)k * 1000000 + (int64_t)e;
}

static void fill(int64_t *b, size_t n, int k)
{
    for (size_t e = 0; e < n; e++)
        b[e] = block_value(k, e);
}

/* Which D_k the buffer holds (-1 if it is not exactly one of them), and a
 * message on stderr if it is not D_want. */
static int identify(const int64_t *b, size_t n, int want, const char *from)
{
    int k = n ? (int)(b[0] / 1000000) : want;
    for (size_t e = 0; e < n; e++)
        if (b[e] != block_value(k, e)) {
            fprintf(stderr, "rank %d: FAIL %s block: element %zu is %lld, expected %lld\n", me,
                    from, e, (long long)b[e], (long long)block_value(want, e));
            return -1;
        }
    if (k != want)
        fprintf(stderr, "rank %d: FAIL %s block is D_%d, expected D_%d\n", me, from, k, want);
    return k;
}

int main(int argc, char **argv)
{
    size_t block = 10000;
    if (argc > 1) {
        char *end;
        unsigned long long v = strtoull(argv[1], &end, 10);
        if (*end || v > 10000000) {
            fprintf(stderr, "usage: %s [BLOCK]   (0 <= BLOCK <= 1e7)\n", argv[0]);
            return 2;
        }
        block = (size_t)v;
    }

    ic_comm_t *world;
    int p;
    IC_CALL(ic_init(&world));
    IC_CALL(ic_comm_rank(world, &me));
    IC_CALL(ic_comm_size(world, &p));

    /* The most square R x C = P with R <= C. */
    int R = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0)
            R = d;
    int C = p / R;
    int i = me / C, j = me % C;

    ic_comm_t *row, *col;
    IC_CALL(ic_comm_split(world, i, j, &row)); /* my row, ordered by column */
    IC_CALL(ic_comm_split(world, j, i, &col)); /* my column, ordered by row */

    int errors = 0, rs, rr, cs, cr;
    IC_CALL(ic_comm_size(row, &rs));
    IC_CALL(ic_comm_rank(row, &rr));
    IC_CALL(ic_comm_size(col, &cs));
    IC_CALL(ic_comm_rank(col, &cr));
    if (rs != C || rr != j || cs != R || cr != i) {
        fprintf(stderr,
                "rank %d: FAIL row comm %d of %d (expected %d of %d), "
                "column comm %d of %d (expected %d of %d)\n",
                me, rr, rs, j, C, cr, cs, i, R);
        errors++;
    }

    int64_t *from_row = malloc((block ? block : 1) * sizeof(int64_t));
    int64_t *from_col = malloc((block ? block : 1) * sizeof(int64_t));
    if (!from_row || !from_col) {
        fprintf(stderr, "rank %d: out of memory\n", me);
        return 1;
    }
    for (size_t e = 0; e < block; e++) /* garbage that no D_k contains */
        from_row[e] = from_col[e] = -1;

    /* Step 1: the diagonal owner of row i (column i) broadcasts D_i. */
    if (j == i)
        fill(from_row, block, i);
    IC_CALL(ic_bcast(from_row, block, IC_INT64, i, row));

    /* Step 2: row j mod R of column j forwards what it got in step 1. */
    int src = j % R;
    if (i == src)
        for (size_t e = 0; e < block; e++)
            from_col[e] = from_row[e];
    IC_CALL(ic_bcast(from_col, block, IC_INT64, src, col));

    int got[2];
    got[0] = identify(from_row, block, i, "row");
    got[1] = identify(from_col, block, src, "column");
    if (got[0] != i || got[1] != src)
        errors++;

    /* Rank 0 learns which blocks everyone holds, and whether it is right. */
    int32_t mine[3] = {got[0], got[1], errors ? 1 : 0};
    int32_t *all = me == 0 ? malloc((size_t)p * sizeof mine) : NULL;
    if (me == 0 && !all) {
        fprintf(stderr, "rank 0: out of memory\n");
        return 1;
    }
    IC_CALL(ic_gather(mine, all, 3, IC_INT32, 0, world));

    int32_t bad = errors ? 1 : 0, nbad = 0; /* every rank learns the outcome */
    IC_CALL(ic_allreduce(&bad, &nbad, 1, IC_INT32, IC_SUM, world));

    if (me == 0) {
        printf("row_col_bcast: %d rank%s as a %d x %d grid (rank = row*%d + col), "
               "blocks of %zu int64\n",
               p, p == 1 ? "" : "s", R, C, C, block);
        printf("  ic_comm_split(world, color = row, key = col): %d row communicator(s) of %d\n", R,
               C);
        printf("  ic_comm_split(world, color = col, key = row): %d column communicator(s) of %d\n",
               C, R);
        printf("  step 1: diagonal rank (k,k) broadcasts D_k along row k\n");
        printf("  step 2: rank (j mod %d, j) forwards its D_(j mod %d) down column j\n", R, R);
        printf("  after both steps, rank: (block from its row, block from its column),"
               " * = diagonal owner\n");
        for (int a = 0; a < R; a++) {
            printf("    row %d:", a);
            for (int b = 0; b < C; b++) {
                int32_t *g = all + 3 * (a * C + b);
                if (b > 0 && b % 8 == 0) /* wrap long rows (1 x P for a prime P) */
                    printf("\n          ");
                char cell[48];
                snprintf(cell, sizeof cell, "%d%s: D%d D%d%s", a * C + b, a == b ? "*" : "",
                         (int)g[0], (int)g[1], g[2] ? " FAIL" : "");
                printf(b + 1 < C && (b + 1) % 8 ? "  %-12s" : "  %s", cell);
            }
            printf("\n");
        }
        if (nbad == 0)
            printf("  every rank checked both blocks and its two communicators: ok\n");
        else
            printf("  FAILED on %d of %d ranks (marked FAIL)\n", nbad, p);
    }

    free(all);
    free(from_row);
    free(from_col);
    IC_CALL(ic_comm_free(&row));
    IC_CALL(ic_comm_free(&col));
    IC_CALL(ic_finalize(&world));
    return nbad ? 1 : 0;
}
