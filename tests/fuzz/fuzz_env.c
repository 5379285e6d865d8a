/*
 * fuzz_env.c — IC_TIMEOUT, the IC_* switches, the byte sizes
 * (IC_SHM_STREAM_MIN and its kind) and the bootstrap variables
 * (IC_SHM_NAME, IC_RANK, IC_SIZE) on arbitrary bytes.  The input is split
 * at newlines into up to three strings.  Invariants: a value accepted is
 * in its documented range; an error always has a message naming the
 * variable; nothing crashes or reads past the input.
 */
#include "core/env.h"
#include "fuzz.h"

#include <math.h>
#include <string.h>

const char *const fuzz_seeds[] = {"30",        "0.5",         "1e3", "0x10", "nan",
                                  "-1",        "1e999",       "abc", "1",    "0",
                                  "/intercom-0123456789abcdef\n2\n4",
                                  "/intercom-0123456789ABCDEF\n0\n1", "/x\n0\n1", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *part[3] = {buf, "", ""};
    for (int k = 1; k < 3; k++) {
        char *nl = strchr(part[k - 1], '\n');
        if (!nl)
            break;
        *nl = '\0';
        part[k] = nl + 1;
    }
    double x = -1;
    if (ic_parse_seconds("IC_TIMEOUT", buf, 1e9, &x) == IC_OK)
        FUZZ_ASSERT(isfinite(x) && x >= 0 && x <= 1e9);
    else
        FUZZ_ASSERT(strstr(ic_last_error(), "IC_TIMEOUT") != NULL);
    unsigned long long bytes = 0;
    if (ic_parse_bytes("IC_SHM_STREAM_MIN", buf, &bytes) == IC_OK)
        FUZZ_ASSERT(bytes <= IC_ENV_BYTES_MAX && buf[0] >= '0' && buf[0] <= '9');
    else
        FUZZ_ASSERT(strstr(ic_last_error(), "IC_SHM_STREAM_MIN") != NULL);
    int f = -1;
    if (ic_parse_flag("IC_CHECK", buf, &f) == IC_OK)
        FUZZ_ASSERT(f == 0 || f == 1);
    else
        FUZZ_ASSERT(strstr(ic_last_error(), "IC_CHECK") != NULL);
    int joined = -1, rank = -1, sz = -1;
    if (ic_parse_bootstrap(part[0], part[1], part[2], 256, &joined, &rank, &sz) == IC_OK) {
        FUZZ_ASSERT(joined == 0 || joined == 1);
        FUZZ_ASSERT(sz >= 1 && sz <= 256 && rank >= 0 && rank < sz);
        FUZZ_ASSERT(joined || (rank == 0 && sz == 1));
        FUZZ_ASSERT(!joined || strlen(part[0]) == 26);
    } else {
        FUZZ_ASSERT(strstr(ic_last_error(), "IC_") != NULL);
    }
    free(buf);
    return 0;
}
