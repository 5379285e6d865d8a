/*
 * consumer.c — a program outside the intercom tree, built against an
 * installed intercom (tests/install/install_test.sh): once with pkg-config
 * and a plain cc line, once with CMake's find_package(intercom CONFIG).
 * Run it under the installed intercom-run; it checks that the header and
 * the library agree on the version and that collectives give the serial
 * reference's results, and exits non-zero otherwise.
 */
#include <intercom.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    ic_comm_t *world = NULL;
    int failed = 0, rank = 0, size = 1;
    if (ic_init(&world) != IC_OK) {
        fprintf(stderr, "consumer: ic_init: %s\n", ic_last_error());
        return 1;
    }
    ic_comm_rank(world, &rank);
    ic_comm_size(world, &size);
    if (ic_get_version() != IC_VERSION) {
        fprintf(stderr, "consumer: header %d, library %u\n", IC_VERSION, ic_get_version());
        failed++;
    }
    /* Allreduce: element i of rank r is r * 1000 + i. */
    long x[5], sum[5];
    for (int i = 0; i < 5; i++)
        x[i] = rank * 1000L + i;
    if (ic_allreduce(x, sum, 5, IC_INT64, IC_SUM, world) != IC_OK)
        failed++;
    for (int i = 0; i < 5; i++) {
        long want = 1000L * size * (size - 1) / 2 + (long)size * i;
        if (sum[i] != want) {
            fprintf(stderr, "consumer: rank %d allreduce[%d] = %ld, want %ld\n", rank, i, sum[i],
                    want);
            failed++;
        }
    }
    /* Broadcast from every root. */
    for (int root = 0; root < size; root++) {
        int v[3] = {rank, rank, rank};
        if (ic_bcast(v, 3, IC_INT32, root, world) != IC_OK || v[0] != root || v[2] != root) {
            fprintf(stderr, "consumer: rank %d bcast from %d got %d\n", rank, root, v[0]);
            failed++;
        }
    }
    ic_status_t st = ic_finalize(&world);
    if (st != IC_OK)
        failed++;
    if (rank == 0)
        printf("consumer: intercom %s on %d processes: %s\n", ic_get_version_string(), size,
               failed ? "FAILED" : "allreduce and bcast correct");
    return failed != 0;
}
