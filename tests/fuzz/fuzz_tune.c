/*
 * fuzz_tune.c — the tune file parser on arbitrary bytes (through
 * fmemopen, as ic_tune_read reads a regular file of at most 64 KiB).
 * Invariants: an accepted file gives a usable model (every value finite
 * and >= 0, alpha > 0); a rejected one leaves the model as it was and
 * says why, naming the file.
 */
#define _GNU_SOURCE 1
#include "core/tune.h"
#include "fuzz.h"
#include "select/catalog.h"

#include <math.h>
#include <string.h>

const char *const fuzz_seeds[] = {"alpha = 1e-6\nbeta = 1e-10\ngamma = 5e-11\ndelta = 5e-11\n",
                                  "# comment\nalpha = 2e-6 # trailing\n",
                                  "alpha = -1\n",
                                  "alpha = 1e-6\nalpha = 2e-6\n",
                                  "beta_net = 1e-9\n",
                                  "nonsense\n",
                                  "alpha = nan\n",
                                  "alpha\n",
                                  NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    FILE *f = fmemopen((void *)(uintptr_t)data, size ? size : 1, "r");
    if (!f)
        return 0;
    ic_model_t m = ic_model_default(), before = m;
    ic_status_t st = size ? ic_tune_read_stream(f, "fuzz.conf", &m) : IC_OK;
    fclose(f);
    if (st == IC_OK) {
        FUZZ_ASSERT(isfinite(m.alpha) && m.alpha > 0);
        FUZZ_ASSERT(isfinite(m.beta) && m.beta >= 0 && isfinite(m.gamma) && m.gamma >= 0);
        FUZZ_ASSERT(isfinite(m.delta) && m.delta >= 0 && isfinite(m.beta_net) &&
                    m.beta_net >= 0);
    } else {
        FUZZ_ASSERT(memcmp(&m, &before, sizeof m) == 0);
        FUZZ_ASSERT(strstr(ic_last_error(), "fuzz.conf") != NULL);
    }
    return 0;
}
