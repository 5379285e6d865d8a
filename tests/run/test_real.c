/*
 * test_real.c — every collective between real processes, started as
 *   intercom-run -n P test_real
 * or, built with IC_TEST_MPI (test_mpi_real_<impl>), under mpirun with the
 * communicator from ic_comm_from_mpi(MPI_COMM_WORLD) (docs/mpi.md).
 * Each rank plans its own part of every case, checks its own buffers
 * against the serial reference of tests/coll/harness.c and reports; the
 * exit status is non-zero if any check failed on this rank.
 *
 * Covered: every algorithm forced by name when P <= 8 (the selector's
 * choice above), counts 0, 1, 7 and 1 MiB + 3 bytes, in-place forms, a
 * split sub-communicator (even/odd ranks, reversed keys), four nonblocking
 * collectives outstanding on two communicators at once, and persistent
 * collectives restarted 100 times with new data.  IC_TEST_SAMPLED=1 (the
 * sanitizer stage, scripts/sanitize.sh) leaves out the 1 MiB cases above
 * P = 4: the Release stage runs them, and P <= 4 runs them under the
 * sanitizers (sampled, a run with IC_TEST_LARGE_COUNT leaves out the 1 MiB
 * cases at every P).  IC_TEST_LARGE_COUNT=N adds a count of N bytes per message
 * to the forced-algorithm pass (test_real_stream_p2 sets 3 MiB + 5 with
 * IC_SHM_STREAM_MIN and IC_COPY_STREAM_MIN at 64 KiB: every large message
 * streams, large copies use non-temporal stores, and local steps of 2 MiB
 * and more run in pieces between transport progress calls).
 */
#include "harness.h"
#include "select/catalog.h"
#ifdef IC_TEST_MPI
#include "intercom_mpi.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static tally_t t;
static int me;

static void report(int fail, const tcase_t *c, const char *msg)
{
    char d[256];
    if (!fail) {
        t.passed++;
        return;
    }
    if (t.failed++ < 10) {
        describe(c, d, sizeof d);
        printf("rank %d FAIL %s: %s\n", me, d, msg);
    }
}

static void one(const tcase_t *c, ic_comm_t *comm)
{
    real_case_t rc;
    char msg[512] = "";
    int fail = real_begin(&rc, c, comm, 0, msg, sizeof msg);
    if (!fail)
        fail = real_end(&rc, msg, sizeof msg);
    real_free(&rc);
    report(fail, c, msg);
}

static tcase_t make(ic_coll_t coll, const char *algo, int p, size_t count, unsigned seed)
{
    tcase_t c = {0};
    c.coll = coll;
    c.algo = algo;
    c.p = p;
    c.root = (int)(seed % (unsigned)p);
    c.count = count;
    c.dtype = IC_INT32;
    c.op = IC_SUM;
    c.seed = seed;
    c.vcounts = (vcounts_t)(seed % 4);
    c.vlayout = (vlayout_t)((seed / 4) % 3);
    if (count > 1000) { /* 1 MiB + 3 bytes per message */
        c.dtype = IC_UINT8;
        c.op = IC_MAX;
        c.vcounts = V_EVEN;
    }
    return c;
}

/* Whether shape (NULL: none, the entry's own choice) suits an entry for
 * 2^j x 2^j meshes (quadrant) on p ranks: p = 4^j, j >= 1, and the shape
 * that square.  Elsewhere it refuses, which the engine tests check. */
static bool square_ok(int p, const ic_mesh_t *shape)
{
    int s = 2;
    while (s * s < p)
        s *= 2;
    return s * s == p && (!shape || (shape->d == 2 && shape->dims[0] == s && shape->dims[1] == s));
}

/* The world: intercom-run's, or the MPI job's. */
static ic_status_t open_world(int *argc, char ***argv, ic_comm_t **world)
{
#ifdef IC_TEST_MPI
    MPI_Init(argc, argv);
    return ic_comm_from_mpi(MPI_COMM_WORLD, world);
#else
    (void)argc;
    (void)argv;
    return ic_init(world);
#endif
}

static ic_status_t close_world(ic_comm_t **world)
{
#ifdef IC_TEST_MPI
    ic_status_t st = ic_comm_free_mpi(world);
    MPI_Finalize();
    return st;
#else
    return ic_finalize(world);
#endif
}

/* The transport's protocols in the cost model (ic_model_params_t
 * rndv_bytes, share_bytes, cores): the same on every rank (they shape the
 * choice); a rendezvous limit between processes with a core each; none
 * when the ranks outnumber the cores, which cores then counts
 * (IC_SHM_CORES or the online processors), and none across hosts. */
static void check_transport_facts(ic_comm_t *world, int p)
{
    ic_model_params_t m = IC_MODEL_PARAMS_INIT;
    if (ic_comm_get_model(world, &m) != IC_OK) {
        printf("rank %d FAIL: ic_comm_get_model: %s\n", me, ic_last_error());
        t.failed++;
        return;
    }
    double mine[6] = {m.rndv_bytes,  m.share_bytes,  m.cores,
                      -m.rndv_bytes, -m.share_bytes, -m.cores},
           all[6];
    if (ic_allreduce(mine, all, 6, IC_DOUBLE, IC_MAX, world) != IC_OK ||
        all[0] != -all[3] || all[1] != -all[4] || all[2] != -all[5]) {
        printf("rank %d FAIL: ranks disagree on the transport's protocols (%g, %g, %g)\n", me,
               m.rndv_bytes, m.share_bytes, m.cores);
        t.failed++;
    }
    int nhosts = 1;
#ifdef IC_TEST_MPI
    ic_comm_mpi_hosts(world, &nhosts, NULL);
#endif
    bool ok = true;
    if (nhosts > 1)
        ok = m.rndv_bytes == 0 && m.share_bytes == 0 && m.cores == 0;
#ifndef IC_TEST_MPI
    else {
        const char *env_cores = getenv("IC_SHM_CORES");
        long cores = env_cores && *env_cores ? atol(env_cores) : sysconf(_SC_NPROCESSORS_ONLN);
        if (p > cores) /* oversubscribed: the papers' model, and the cores */
            ok = m.rndv_bytes == 0 && m.share_bytes == 0 && m.cores == (double)cores;
        else if (p > 1)
            ok = m.rndv_bytes > 0 && m.cores == 0;
    }
#endif
    if (!ok) {
        printf("rank %d FAIL: %d ranks on %d hosts: rndv_bytes %g, share_bytes %g, cores %g\n",
               me, p, nhosts, m.rndv_bytes, m.share_bytes, m.cores);
        t.failed++;
    } else {
        t.passed++;
    }
}

int main(int argc, char **argv)
{
    harness_init();
    ic_comm_t *world, *half;
    if (open_world(&argc, &argv, &world) != IC_OK) {
        printf("opening the world: %s\n", ic_last_error());
        return 1;
    }
    int p;
    ic_comm_size(world, &p);
    ic_comm_rank(world, &me);
#ifdef IC_TEST_MPI
    /* Where the bridge found the ranks; IC_TEST_EXPECT_HOSTS=N (the
     * pretend hosts of tests/mpi/netns_test.sh) must be what it found. */
    int nhosts = 0;
    ic_comm_mpi_hosts(world, &nhosts, NULL);
    const char *want_hosts = getenv("IC_TEST_EXPECT_HOSTS");
    if (me == 0)
        printf("test_real: %d ranks on %d hosts\n", p, nhosts);
    if (want_hosts && atoi(want_hosts) != nhosts) {
        printf("rank %d FAIL: the bridge found %d hosts, IC_TEST_EXPECT_HOSTS is %s\n", me,
               nhosts, want_hosts);
        t.failed++;
    }
#endif
    check_transport_facts(world, p);
    size_t ncat;
    const ic_algo_t *cat = ic_catalog(&ncat);
    size_t counts[] = {0, 1, 7, (1u << 20) + 3, 0};
    const char *sampled_env = getenv("IC_TEST_SAMPLED");
    const char *large_env = getenv("IC_TEST_LARGE_COUNT");
    bool sampled = sampled_env && sampled_env[0] == '1';
    /* counts[0..ncounts); sampled, the large count's run leaves out 1 MiB too */
    int ncounts = sampled && (p > 4 || large_env) ? 3 : 4;
    int nforced = ncounts; /* the forced-algorithm pass may take one more */
    if (large_env && atol(large_env) > 1000)
        counts[nforced++] = (size_t)atol(large_env);
    unsigned seed = 100;
    for (size_t a = 0; a < ncat; a++) {
        const char *algo = p <= 8 ? cat[a].name : NULL;
        if (p > 8 && a > 0 && cat[a - 1].coll == cat[a].coll)
            continue; /* one run per collective with the selector */
        if (algo && (cat[a].flags & IC_ALGO_POW2) && (p & (p - 1)) != 0)
            continue; /* refusal checked in the engine tests */
        if (algo && (cat[a].flags & IC_ALGO_SQUARE_MESH) && !square_ok(p, NULL))
            continue;
        if (algo && (cat[a].flags & IC_ALGO_PHYS))
            continue; /* needs a placement: below */
        for (int ci = 0; ci < nforced; ci++)
            for (int ip = 0; ip < (coll_in_place_ok(cat[a].coll) ? 2 : 1); ip++) {
                tcase_t c = make(cat[a].coll, algo, p, counts[ci], seed++);
                c.in_place = ip;
                one(&c, world);
            }
    }
    /* A logical mesh on real processes: every mesh-aware entry on the shape
     * of p with the most dimensions (2 x 2 at p = 4, 2 x 2 x 2 at 8, a line
     * for primes), and the selector's choice with the mesh set. */
    {
        ic_mesh_t shapes[64];
        int ns = ic_mesh_factorizations(p, 3, shapes, 64);
        const ic_mesh_t *sh = &shapes[0];
        for (int i = 1; i < ns && i < 64; i++)
            if (shapes[i].d > sh->d)
                sh = &shapes[i];
        if (ic_comm_set_mesh(world, sh->d, sh->dims) != IC_OK) {
            printf("rank %d: ic_comm_set_mesh: %s\n", me, ic_last_error());
            return 1;
        }
        for (size_t a = 0; a < ncat; a++) {
            if (!(cat[a].flags & IC_ALGO_MESH) && a > 0 && cat[a - 1].coll == cat[a].coll)
                continue;
            const char *algo = (cat[a].flags & IC_ALGO_MESH) && p <= 8 ? cat[a].name : NULL;
            if (!algo && (cat[a].flags & IC_ALGO_MESH))
                continue;
            if ((cat[a].flags & IC_ALGO_SQUARE_MESH) && !square_ok(p, sh))
                continue; /* quadrant: the 2 x 2 mesh at p = 4 */
            for (int ci = 1; ci < ncounts; ci += 2) {
                tcase_t c = make(cat[a].coll, algo, p, counts[ci], seed++);
                c.mesh = sh;
                one(&c, world);
            }
        }
        ic_comm_set_mesh(world, 0, NULL);
    }
    /* A placement on a physical network (ic_comm_set_network): every
     * U-mesh / U-torus / U-cube entry that fits the network by name, and the
     * selector, with the ranks scattered over about twice as many nodes;
     * then the EDN entries (IC_ALGO_WHOLE_MESH) on the whole a x b = p mesh,
     * one rank per node in reverse order. */
    char specs[4][64];
    int cube_d = 1, node_of[1024];
    while ((1 << cube_d) < 2 * p)
        cube_d++;
    snprintf(specs[0], sizeof specs[0], "mesh:3x%d", (2 * p + 2) / 3);
    snprintf(specs[1], sizeof specs[1], "utorus:3x%d", (2 * p + 2) / 3);
    int side = 1;
    for (int f = 1; f * f <= p; f++)
        side = p % f == 0 ? f : side;
    snprintf(specs[2], sizeof specs[2], "mesh:%dx%d", side, p / side);
    snprintf(specs[3], sizeof specs[3], "hypercube:%d", cube_d);
    const unsigned fits[4] = {IC_ALGO_ON_MESH, IC_ALGO_ON_TORUS, IC_ALGO_WHOLE_MESH,
                              IC_ALGO_ON_CUBE};
    for (int s = 0; s < 4 && p <= 1024; s++) {
        int nodes = s == 3 ? 1 << cube_d : 3 * ((2 * p + 2) / 3);
        for (int r = 0; r < p; r++) /* scattered, may share nodes; the whole mesh: reversed */
            node_of[r] = s == 2 ? p - 1 - r : (r * 7 + 3 * s + 1) % nodes;
        if (ic_comm_set_network(world, specs[s], node_of) != IC_OK) {
            printf("rank %d: ic_comm_set_network(%s): %s\n", me, specs[s], ic_last_error());
            return 1;
        }
        for (size_t a = 0; a < ncat; a++) {
            if (!(cat[a].flags & fits[s]) || (s != 2 && (cat[a].flags & IC_ALGO_WHOLE_MESH)))
                continue;
            for (int ci = 1; ci < ncounts; ci += 2) {
                tcase_t c = make(cat[a].coll, p <= 8 ? cat[a].name : NULL, p, counts[ci], seed++);
                one(&c, world);
            }
        }
    }
    for (int coll = 0; coll < IC_COLL_COUNT; coll++) /* back to the selector */
        ic_comm_set_algorithm(world, (ic_coll_t)coll, NULL);
    /* A split: even and odd ranks, reversed keys (it inherits the last
     * placement: the hypercube). */
    if (ic_comm_split(world, me % 2, -me, &half) != IC_OK) {
        printf("rank %d: ic_comm_split: %s\n", me, ic_last_error());
        return 1;
    }
    ic_comm_set_network(world, NULL, NULL);
    int hp;
    ic_comm_size(half, &hp);
    for (int coll = 0; coll < IC_COLL_COUNT; coll++) {
        tcase_t c = make((ic_coll_t)coll, NULL, hp, 33, 7000u + (unsigned)coll);
        one(&c, half);
    }
    for (size_t a = 0; a < ncat; a++) /* the cube entries by name on the half */
        if ((cat[a].flags & IC_ALGO_ON_CUBE) && hp <= 8) {
            tcase_t c = make(cat[a].coll, cat[a].name, hp, 33, 7100u + (unsigned)a);
            one(&c, half);
        }
    /* Four nonblocking collectives in flight on two communicators. */
    {
        tcase_t cs[4] = {make(IC_COLL_ALLREDUCE, NULL, p, 1000, 1), make(IC_COLL_ALLGATHER, NULL, hp, 77, 2),
                         make(IC_COLL_BCAST, NULL, p, 5000, 3), make(IC_COLL_ALLTOALL, NULL, hp, 9, 4)};
        ic_comm_t *on[4] = {world, half, world, half};
        real_case_t rc[4];
        char msg[512] = "";
        int fail = 0;
        for (int i = 0; i < 4; i++)
            fail |= real_begin(&rc[i], &cs[i], on[i], 1, msg, sizeof msg);
        for (int i = 3; i >= 0; i--) /* complete in reverse order */
            fail |= real_end(&rc[i], msg, sizeof msg);
        for (int i = 0; i < 4; i++)
            real_free(&rc[i]);
        report(fail, &cs[0], msg);
    }
    /* Persistent collectives, 100 restarts with new data each. */
    const ic_coll_t pers[] = {IC_COLL_ALLREDUCE, IC_COLL_BCAST, IC_COLL_ALLTOALLV, IC_COLL_SCAN};
    for (int k = 0; k < 4; k++) {
        tcase_t c = make(pers[k], NULL, p, 100, 900u + (unsigned)k);
        real_case_t rc;
        char msg[512] = "";
        int fail = real_begin(&rc, &c, world, 2, msg, sizeof msg);
        for (unsigned it = 0; it < 100 && !fail; it++) {
            fail = real_restart(&rc, 5000u + it, msg, sizeof msg);
            if (!fail)
                fail = real_end(&rc, msg, sizeof msg);
        }
        real_free(&rc);
        report(fail, &c, msg);
    }
    ic_comm_free(&half);
    ic_status_t st = close_world(&world);
    if (st != IC_OK)
        printf("rank %d: closing the world: %s\n", me, ic_last_error());
    char name[64];
    snprintf(name, sizeof name, "test_real rank %d of %d", me, p);
    if (me == 0 || t.failed)
        return finish(&t, name) || st != IC_OK;
    return st != IC_OK;
}
