/*
 * fuzz_algo.c — IC_ALGO ("collective=algorithm,...") on arbitrary bytes,
 * applied to a world of size 1.  Invariants: on success every forced
 * algorithm is a catalog entry of its collective; on failure the message
 * names IC_ALGO; nothing crashes.
 */
#include "core/comm.h"
#include "fuzz.h"
#include "select/catalog.h"

#include <string.h>

ic_status_t ic_apply_algo_spec(ic_comm_t *c, const char *spec);

const char *const fuzz_seeds[] = {"bcast=mst",
                                  "bcast=mst,allreduce=hybrid",
                                  "allreduce=",
                                  "=mst",
                                  "nope=mst",
                                  "bcast=nope",
                                  "bcast=mst,,reduce=mst",
                                  "allgather=pfr_alt,alltoall=bruck,scan=auto",
                                  NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ic_comm_t *w;
    if (!w && ic_init(&w) != IC_OK)
        abort();
    char *spec = malloc(size + 1);
    if (!spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    if (ic_apply_algo_spec(w, spec) == IC_OK) {
        for (int k = 0; k < IC_COLL_COUNT; k++)
            FUZZ_ASSERT(!w->algo[k] || ic_catalog_find((ic_coll_t)k, w->algo[k]) != NULL);
    } else {
        FUZZ_ASSERT(strstr(ic_last_error(), "IC_ALGO") != NULL);
    }
    for (int k = 0; k < IC_COLL_COUNT; k++)
        ic_comm_set_algorithm(w, (ic_coll_t)k, NULL);
    free(spec);
    return 0;
}
