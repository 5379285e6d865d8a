/*
 * test_shm_many.c — 16 ranks (more than this machine's cores) exchange
 * all-to-all, every byte checked: each round every rank sends every rank
 * (itself included) 8 small messages of 0..256 bytes and one of 1 MiB,
 * posting receives and sends in a rank-dependent random order.  With
 * more ranks than cores this only finishes quickly if a waiting rank
 * gives its core away (yield, then futex sleep) instead of spinning.
 *
 * Usage: test_shm_many [cma|nocma|both] [ranks] [rounds].
 */
#include "shm_harness.h"

#define NSMALL 8
#define MIB (1u << 20)
#define TIME_LIMIT_S 60.0

typedef struct {
    int rounds;
} many_arg_t;

static uint64_t msg_id(int round, int src, int dst, int k)
{
    return ((uint64_t)round << 40) | ((uint64_t)src << 28) | ((uint64_t)dst << 16) | (uint64_t)k;
}

static size_t size_of(uint64_t id, int k)
{
    return k == NSMALL ? MIB : pat_mix(id) % 257;
}

static int many_rank(int rank, int p, const char *name, void *arg)
{
    const many_arg_t *a = arg;
    ic_transport_t *t = open_rank(name, rank, p);
    int per = NSMALL + 1, n = p * per, rc = 0;
    unsigned char *sbuf = malloc((size_t)p * (NSMALL * 256 + MIB));
    unsigned char *rbuf = malloc((size_t)p * (NSMALL * 256 + MIB));
    ic_tx_req_t *req = malloc(sizeof(ic_tx_req_t) * 2 * (size_t)n);
    char *done = malloc(2 * (size_t)n);
    int *perm = malloc(sizeof(int) * (size_t)n);
    double t0 = now_s();
    for (int round = 0; round < a->rounds && rc == 0; round++) {
        /* Slot (peer, k) of a buffer: peer * (8 * 256 + 1 MiB) + k * 256. */
        permute(perm, n, (uint64_t)(round * 1000 + rank));
        for (int x = 0; x < n; x++) {
            int src = perm[x] / per, k = perm[x] % per;
            uint64_t id = msg_id(round, src, rank, k);
            unsigned char *b = rbuf + (size_t)src * (NSMALL * 256 + MIB) + (size_t)k * 256;
            t->ops->irecv(t, src, mkkey(9, (uint64_t)round, (uint32_t)k), b, size_of(id, k),
                          &req[x]);
        }
        permute(perm, n, (uint64_t)(round * 1000 + rank + 500));
        for (int x = 0; x < n; x++) {
            int dst = perm[x] / per, k = perm[x] % per;
            uint64_t id = msg_id(round, rank, dst, k);
            unsigned char *b = sbuf + (size_t)dst * (NSMALL * 256 + MIB) + (size_t)k * 256;
            pat_fill(b, size_of(id, k), id);
            t->ops->isend(t, dst, mkkey(9, (uint64_t)round, (uint32_t)k), b, size_of(id, k),
                          &req[n + x]);
        }
        ic_status_t st = wait_all(t, req, 2 * n, done);
        if (st != IC_OK) {
            printf("rank %d round %d: %s: %s\n", rank, round, ic_status_string(st),
                   ic_last_error());
            rc = 1;
        }
        for (int src = 0; src < p && rc == 0; src++)
            for (int k = 0; k < per && rc == 0; k++) {
                uint64_t id = msg_id(round, src, rank, k);
                unsigned char *b = rbuf + (size_t)src * (NSMALL * 256 + MIB) + (size_t)k * 256;
                long bad = pat_check(b, size_of(id, k), id);
                if (bad >= 0) {
                    printf("rank %d round %d: message %d from %d: byte %ld wrong\n", rank, round, k,
                           src, bad);
                    rc = 1;
                }
            }
    }
    if (rank == 0 && rc == 0) {
        double dt = now_s() - t0;
        printf("  %d ranks, %d rounds: %.3f s, %.1f ms per round (%.0f MB/s all-to-all)\n", p,
               a->rounds, dt, dt / a->rounds * 1e3, (double)p * p * MIB * a->rounds / dt / 1e6);
    }
    t->ops->close(t);
    free(sbuf);
    free(rbuf);
    free(req);
    free(done);
    free(perm);
    return rc;
}

int main(int argc, char **argv)
{
    int modes[2] = {1, 1}, p = 16, failures = 0, num = 0;
    many_arg_t a = {5};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "cma"))
            modes[1] = 0;
        else if (!strcmp(argv[i], "nocma"))
            modes[0] = 0;
        else if (!strcmp(argv[i], "both"))
            continue;
        else if (atoi(argv[i]) > 0 && num++ == 0)
            p = atoi(argv[i]);
        else if (atoi(argv[i]) > 0)
            a.rounds = atoi(argv[i]);
        else {
            printf("usage: %s [cma|nocma|both] [ranks] [rounds]\n", argv[0]);
            return 2;
        }
    }
    for (int m = 0; m < 2; m++) {
        if (!modes[m])
            continue;
        int *status = calloc((size_t)p, sizeof(int));
        char name[64];
        set_mode(m);
        printf("test_shm_many: %s, %ld cores online\n",
               m ? "IC_SHM_NO_CMA=1" : "default (single copy if permitted)",
               sysconf(_SC_NPROCESSORS_ONLN));
        double t0 = now_s();
        int rc = run_job(p, many_rank, &a, TIME_LIMIT_S, MARK_BAD, status, name);
        double dt = now_s() - t0;
        failures += job_failures(rc, status, p, name);
        printf("  job total %.3f s\n", dt);
        free(status);
    }
    set_mode(0);
    printf("test_shm_many: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
