/*
 * test_reproducible_real.c — reproducible reductions between real
 * processes (intercom-run -n P, P in {2, 3, 4, 7}; run with
 * IC_REPRODUCIBLE=1 in the environment).
 *
 * Part 1, IC_REPRODUCIBLE=1 on the world (read from the environment at
 * ic_init) and, through ic_comm_set_reproducible, on a split
 * sub-communicator: reduce (every root), allreduce, reduce_scatter_block,
 * reduce_scatter (uneven counts with zeros), scan and exscan of
 * adversarial float, double and float16 data (tests/coll/canonical.h),
 * sum, min and max, lengths 1, 100, 4099 and 70001, each canonical entry
 * forced by name and the selector's choice: every rank's result must be
 * the serial canonical reference bit for bit (each rank computes it from
 * every rank's inputs, which it generates itself).  The same bits from
 * every entry and length follow.
 * Built with IC_TEST_MPI (test_mpi_reproducible_<impl>) it runs under
 * mpirun on ic_comm_from_mpi(MPI_COMM_WORLD), the world made reproducible
 * with ic_comm_set_reproducible (the environment need not reach ranks on
 * other hosts): the MPI transport between (pretend) hosts.
 * Part 2, reproducible mode off: every allreduce entry that applies runs
 * a sum three times and a min once on the same adversarial inputs; every
 * sum must give the first one's bits, and every rank the same bits for
 * both (hashes compared by an allgather), NaN payloads and the sign of
 * zero included.
 */
#include "canonical.h"

#include "intercom.h"
#include "select/catalog.h"
#ifdef IC_TEST_MPI
#include "intercom_mpi.h"
#endif

#include <stdio.h>

static int me, fails, passes;

static void expect(bool ok, const char *what, const char *algo, size_t n, const char *why)
{
    if (ok) {
        passes++;
        return;
    }
    if (fails++ < 10)
        printf("rank %d FAIL %s/%s n=%zu: %s\n", me, what, algo ? algo : "auto", n, why);
}

static const char *op_name(const ic_op_t *op)
{
    return op == IC_SUM ? "sum" : op == IC_MIN ? "min" : "max";
}

/* One call of coll with entry algo (NULL: auto) on comm, checked. */
static void run_one(ic_comm_t *comm, ic_coll_t coll, const char *algo, size_t count,
                    ic_datatype_t dt, const ic_op_t *op, int root, unsigned seed)
{
    int p, r;
    ic_comm_size(comm, &p);
    ic_comm_rank(comm, &r);
    size_t es = ic_datatype_size(dt);
    size_t *counts = calloc((size_t)p, sizeof(size_t)), n = count, off = 0;
    if (coll == IC_COLL_REDUCE_SCATTER || coll == IC_COLL_REDUCE_SCATTER_BLOCK) {
        n = 0;
        for (int j = 0; j < p; j++) {
            counts[j] = coll == IC_COLL_REDUCE_SCATTER_BLOCK ? count
                        : (j + seed) % 3 ? count + j % 2 /* uneven, a third empty */ : 0;
            off += j < r ? counts[j] : 0;
            n += counts[j];
        }
    }
    void **in = calloc((size_t)p, sizeof(void *)), **ref = calloc((size_t)p, sizeof(void *));
    for (int j = 0; j < p; j++) {
        in[j] = malloc(n * es + 1);
        ref[j] = malloc(n * es + 1);
        canon_fill(seed, j, 0, n, dt, in[j]);
    }
    void *tmp = malloc(n * es + 1), *out = malloc(n * es + 1);
    memset(out, 0xCD, n * es);
    bool scan = coll == IC_COLL_SCAN || coll == IC_COLL_EXSCAN;
    if (scan)
        canon_scan(op, dt, in, p, n, coll == IC_COLL_EXSCAN, ref);
    else
        canon_tree(op, dt, in, 0, p - 1, n, ref[0], tmp);
    ic_comm_set_algorithm(comm, coll, algo);
    ic_status_t st;
    switch (coll) {
    case IC_COLL_REDUCE: st = ic_reduce(in[r], out, count, dt, op, root, comm); break;
    case IC_COLL_ALLREDUCE: st = ic_allreduce(in[r], out, count, dt, op, comm); break;
    case IC_COLL_REDUCE_SCATTER_BLOCK:
        st = ic_reduce_scatter_block(in[r], out, count, dt, op, comm);
        break;
    case IC_COLL_REDUCE_SCATTER: st = ic_reduce_scatter(in[r], out, counts, dt, op, comm); break;
    case IC_COLL_SCAN: st = ic_scan(in[r], out, count, dt, op, comm); break;
    default: st = ic_exscan(in[r], out, count, dt, op, comm); break;
    }
    ic_comm_set_algorithm(comm, coll, "auto");
    char what[96], why[160] = "";
    snprintf(what, sizeof what, "%s %s %s p=%d", ic_coll_name(coll), ic_datatype_name(dt),
             op_name(op), p);
    const char *want = NULL;
    size_t bytes = 0;
    if (coll == IC_COLL_REDUCE_SCATTER || coll == IC_COLL_REDUCE_SCATTER_BLOCK) {
        want = (const char *)ref[0] + off * es;
        bytes = counts[r] * es;
    } else if (scan) {
        want = coll == IC_COLL_EXSCAN && r == 0 ? NULL : ref[r];
        bytes = n * es;
    } else if (coll == IC_COLL_ALLREDUCE || r == root) {
        want = ref[0];
        bytes = n * es;
    }
    if (st != IC_OK)
        snprintf(why, sizeof why, "%s: %s", ic_status_string(st), ic_last_error());
    else if (want && memcmp(out, want, bytes) != 0)
        snprintf(why, sizeof why, "differs from the canonical reference");
    expect(!why[0], what, algo, count, why);
    for (int j = 0; j < p; j++) {
        free(in[j]);
        free(ref[j]);
    }
    free(in);
    free(ref);
    free(tmp);
    free(out);
    free(counts);
}

static void part1(ic_comm_t *comm, unsigned seed)
{
    static const ic_coll_t colls[] = {IC_COLL_REDUCE, IC_COLL_ALLREDUCE,
                                      IC_COLL_REDUCE_SCATTER_BLOCK, IC_COLL_REDUCE_SCATTER,
                                      IC_COLL_SCAN, IC_COLL_EXSCAN};
    static const ic_datatype_t types[] = {IC_DOUBLE, IC_FLOAT, IC_FLOAT16};
    static const size_t lens[] = {1, 100, 4099, 70001};
    const ic_op_t *ops[3] = {IC_SUM, IC_MIN, IC_MAX};
    int p;
    ic_comm_size(comm, &p);
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    for (size_t ci = 0; ci < sizeof colls / sizeof colls[0]; ci++) {
        const char *names[16];
        int ne = 0;
        for (size_t a = 0; a < ncat; a++)
            if (cat[a].coll == colls[ci] && (cat[a].flags & IC_ALGO_CANONICAL))
                names[ne++] = cat[a].name;
        names[ne++] = NULL;
        for (int e = 0; e < ne; e++)
            for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
                for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
                    for (int oi = 0; oi < 3; oi++) {
                        if (oi > 0 && li >= 2)
                            continue; /* long vectors: sum only */
                        size_t count = lens[li];
                        if (colls[ci] == IC_COLL_REDUCE_SCATTER_BLOCK ||
                            colls[ci] == IC_COLL_REDUCE_SCATTER)
                            count = (count + (size_t)p - 1) / (size_t)p;
                        int nroots = colls[ci] == IC_COLL_REDUCE ? p : 1;
                        for (int root = 0; root < nroots; root++)
                            run_one(comm, colls[ci], names[e], count, types[ti], ops[oi], root,
                                    seed++);
                    }
    }
}

/* Part 2: without IC_REPRODUCIBLE each entry repeats its own bits. */
static void part2(ic_comm_t *comm)
{
    int p, r;
    ic_comm_size(comm, &p);
    ic_comm_rank(comm, &r);
    ic_comm_set_reproducible(comm, 0);
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    const size_t n = 50003;
    double *in = malloc(n * sizeof(double)), *first = malloc(n * sizeof(double)),
           *out = malloc(n * sizeof(double));
    uint64_t *hashes = malloc(sizeof(uint64_t) * (size_t)p);
    canon_fill(5, r, 0, n, IC_DOUBLE, in); /* NaN payloads and signed zeros too */
    for (size_t a = 0; a < ncat; a++) {
        if (cat[a].coll != IC_COLL_ALLREDUCE || ((cat[a].flags & IC_ALGO_POW2) && (p & (p - 1))))
            continue;
        ic_comm_set_algorithm(comm, IC_COLL_ALLREDUCE, cat[a].name);
        for (int run = 0; run < 4; run++) {
            /* Runs 0-2: sum; run 3: min (-0.0 against +0.0 must agree too). */
            const ic_op_t *op = run < 3 ? IC_SUM : IC_MIN;
            ic_status_t st = ic_allreduce(in, out, n, IC_DOUBLE, op, comm);
            expect(st == IC_OK, "allreduce (default mode)", cat[a].name, n, ic_last_error());
            if (run == 0)
                memcpy(first, out, n * sizeof(double));
            else if (run < 3)
                expect(memcmp(first, out, n * sizeof(double)) == 0, "allreduce (default mode)",
                       cat[a].name, n, "a repeated call gave other bits");
        }
        uint64_t h = 0xcbf29ce484222325ull; /* the sum's and the min's bits */
        const unsigned char *b = (const unsigned char *)first, *m = (const unsigned char *)out;
        for (size_t i = 0; i < n * sizeof(double); i++)
            h = ((h ^ b[i]) * 0x100000001b3ull ^ m[i]) * 0x100000001b3ull;
        ic_status_t st = ic_allgather(&h, hashes, 1, IC_UINT64, comm);
        bool same = st == IC_OK;
        for (int j = 0; same && j < p; j++)
            same = hashes[j] == h;
        expect(same, "allreduce (default mode)", cat[a].name, n, "ranks hold different bits");
    }
    ic_comm_set_algorithm(comm, IC_COLL_ALLREDUCE, "auto");
    free(in);
    free(first);
    free(out);
    free(hashes);
}

int main(int argc, char **argv)
{
    ic_comm_t *world = NULL, *sub = NULL;
    int on = 0, p;
#ifdef IC_TEST_MPI
    MPI_Init(&argc, &argv);
    if (ic_comm_from_mpi(MPI_COMM_WORLD, &world) != IC_OK) {
        fprintf(stderr, "ic_comm_from_mpi: %s\n", ic_last_error());
        return 2;
    }
    ic_comm_rank(world, &me);
    ic_comm_size(world, &p);
    ic_comm_set_reproducible(world, 1);
    int nhosts = 0;
    ic_comm_mpi_hosts(world, &nhosts, NULL);
    const char *want_hosts = getenv("IC_TEST_EXPECT_HOSTS"); /* tests/mpi/netns_test.sh */
    if (me == 0)
        printf("test_reproducible_real: %d ranks on %d hosts\n", p, nhosts);
    expect(!want_hosts || atoi(want_hosts) == nhosts, "hosts", "-", 0,
           "the bridge found another number of hosts than IC_TEST_EXPECT_HOSTS");
#else
    (void)argc;
    (void)argv;
    if (ic_init(&world) != IC_OK) {
        fprintf(stderr, "ic_init: %s\n", ic_last_error());
        return 2;
    }
    ic_comm_rank(world, &me);
    ic_comm_size(world, &p);
#endif
    ic_comm_get_reproducible(world, &on);
    expect(on == 1, "IC_REPRODUCIBLE=1 in the environment", "-", 0, "the world is not reproducible");
    part1(world, 11);
    /* A sub-communicator (odd ranks first, reversed), reproducible by the API. */
    if (ic_comm_split(world, 0, p - me + (me % 2) * p, &sub) == IC_OK) {
        ic_comm_set_reproducible(sub, 0);
        ic_comm_set_reproducible(sub, 1);
        part1(sub, 23);
        part2(sub);
        ic_comm_free(&sub);
    } else {
        expect(false, "ic_comm_split", "-", 0, ic_last_error());
    }
    part2(world);
    printf("test_reproducible_real rank %d of %d: %d passed, %d failed\n", me, p, passes, fails);
#ifdef IC_TEST_MPI
    ic_comm_free_mpi(&world);
    MPI_Finalize();
#else
    ic_finalize(&world);
#endif
    return fails != 0;
}
