/*
 * test_env.c — the byte-size variables ic_init checks (core/env.c):
 * IC_SHM_SHARE_MIN, IC_SHM_STREAM_MIN, IC_SHM_STREAM_XCHG_MIN,
 * IC_COPY_STREAM_MIN and IC_SHM_EAGER_MAX take plain decimal digits up to
 * 2^62; anything else
 * fails ic_env_read with
 * IC_ERR_ARG and a message naming the variable and the value;
 * IC_SHM_CORES takes a count of cores, 1..65536, checked alike;
 * IC_SHM_CMA_EXTRA_NS a count of nanoseconds, 0..999999999,
 * IC_SHM_CMA_LARGE_X100 a ratio in hundredths, 0..999999999; and
 * IC_SHM_EAGER_STREAM takes 0 or 1.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "core/env.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    static const char *const good[] = {"0", "16777216", "4611686018427387904", "007"};
    static const unsigned long long want[] = {0, 16777216, 1ull << 62, 7};
    for (int i = 0; i < 4; i++) {
        unsigned long long x = 1;
        ic_status_t st = ic_parse_bytes("IC_SHM_STREAM_MIN", good[i], &x);
        CHECK(st == IC_OK && x == want[i], "'%s': status %d, %llu", good[i], (int)st, x);
    }
    static const char *const bad[] = {"",     "-1",  "1e6", "16M", "0x10", " 8", "8 ",
                                      "4611686018427387905", "99999999999999999999"};
    for (int i = 0; i < 9; i++) {
        unsigned long long x = 5;
        ic_status_t st = ic_parse_bytes("IC_SHM_STREAM_MIN", bad[i], &x);
        CHECK(st == IC_ERR_ARG && x == 5 && strstr(ic_last_error(), "IC_SHM_STREAM_MIN"),
              "'%s' accepted or not named: %s", bad[i], ic_last_error());
    }
    static const char *const vars[] = {"IC_SHM_SHARE_MIN", "IC_SHM_STREAM_MIN",
                                       "IC_SHM_STREAM_XCHG_MIN", "IC_COPY_STREAM_MIN",
                                       "IC_SHM_EAGER_MAX"};
    ic_env_t env;
    CHECK(ic_env_read(&env) == IC_OK, "unset variables: %s", ic_last_error());
    for (int i = 0; i < (int)(sizeof vars / sizeof *vars); i++) {
        setenv(vars[i], "16MiB", 1);
        ic_status_t st = ic_env_read(&env);
        CHECK(st == IC_ERR_ARG && strstr(ic_last_error(), vars[i]) &&
                  strstr(ic_last_error(), "16MiB"),
              "%s=16MiB: status %d, '%s'", vars[i], (int)st, ic_last_error());
        setenv(vars[i], "1048576", 1);
        CHECK(ic_env_read(&env) == IC_OK, "%s=1048576: %s", vars[i], ic_last_error());
        unsetenv(vars[i]);
    }
    /* IC_SHM_CORES: a count of cores, 1..IC_ENV_CORES_MAX. */
    static const char *const cores_good[] = {"1", "2", "64", "65536"};
    for (int i = 0; i < 4; i++) {
        setenv("IC_SHM_CORES", cores_good[i], 1);
        CHECK(ic_env_read(&env) == IC_OK && ic_parse_cores(cores_good[i]) == atol(cores_good[i]),
              "IC_SHM_CORES=%s: %s", cores_good[i], ic_last_error());
    }
    static const char *const cores_bad[] = {"0", "-2", "2.5", "two", "65537", " 2", "99999999999"};
    for (int i = 0; i < 7; i++) {
        setenv("IC_SHM_CORES", cores_bad[i], 1);
        ic_status_t st = ic_env_read(&env);
        CHECK(st == IC_ERR_ARG && strstr(ic_last_error(), "IC_SHM_CORES") &&
                  strstr(ic_last_error(), cores_bad[i]) && ic_parse_cores(cores_bad[i]) < 0,
              "IC_SHM_CORES=%s: status %d, '%s'", cores_bad[i], (int)st, ic_last_error());
    }
    unsetenv("IC_SHM_CORES");
    /* IC_SHM_CMA_EXTRA_NS: nanoseconds, 0..999999999 (shm_cma_cost.c). */
    static const char *const ns_good[] = {"0", "1000", "999999999"};
    for (int i = 0; i < 3; i++) {
        setenv("IC_SHM_CMA_EXTRA_NS", ns_good[i], 1);
        CHECK(ic_env_read(&env) == IC_OK, "IC_SHM_CMA_EXTRA_NS=%s: %s", ns_good[i],
              ic_last_error());
    }
    static const char *const ns_bad[] = {"-1", "1us", "1e3", "1000000000", " 5"};
    for (int i = 0; i < 5; i++) {
        setenv("IC_SHM_CMA_EXTRA_NS", ns_bad[i], 1);
        ic_status_t st = ic_env_read(&env);
        CHECK(st == IC_ERR_ARG && strstr(ic_last_error(), "IC_SHM_CMA_EXTRA_NS") &&
                  strstr(ic_last_error(), ns_bad[i]),
              "IC_SHM_CMA_EXTRA_NS=%s: status %d, '%s'", ns_bad[i], (int)st, ic_last_error());
    }
    unsetenv("IC_SHM_CMA_EXTRA_NS");
    /* IC_SHM_CMA_LARGE_X100: hundredths, 0..999999999 (shm_cma_cost.c). */
    for (int i = 0; i < 3; i++) {
        setenv("IC_SHM_CMA_LARGE_X100", ns_good[i], 1);
        CHECK(ic_env_read(&env) == IC_OK, "IC_SHM_CMA_LARGE_X100=%s: %s", ns_good[i],
              ic_last_error());
    }
    for (int i = 0; i < 5; i++) {
        setenv("IC_SHM_CMA_LARGE_X100", ns_bad[i], 1);
        ic_status_t st = ic_env_read(&env);
        CHECK(st == IC_ERR_ARG && strstr(ic_last_error(), "IC_SHM_CMA_LARGE_X100") &&
                  strstr(ic_last_error(), ns_bad[i]),
              "IC_SHM_CMA_LARGE_X100=%s: status %d, '%s'", ns_bad[i], (int)st, ic_last_error());
    }
    unsetenv("IC_SHM_CMA_LARGE_X100");
    /* IC_SHM_EAGER_STREAM: 0 or 1 (unset: adaptive, shm_queue.h). */
    static const char *const eager_good[] = {"0", "1"}, *const eager_bad[] = {"yes", "2", "auto"};
    for (int i = 0; i < 2; i++) {
        setenv("IC_SHM_EAGER_STREAM", eager_good[i], 1);
        CHECK(ic_env_read(&env) == IC_OK, "IC_SHM_EAGER_STREAM=%s: %s", eager_good[i],
              ic_last_error());
    }
    for (int i = 0; i < 3; i++) {
        setenv("IC_SHM_EAGER_STREAM", eager_bad[i], 1);
        ic_status_t st = ic_env_read(&env);
        CHECK(st == IC_ERR_ARG && strstr(ic_last_error(), "IC_SHM_EAGER_STREAM") &&
                  strstr(ic_last_error(), eager_bad[i]),
              "IC_SHM_EAGER_STREAM=%s: status %d, '%s'", eager_bad[i], (int)st, ic_last_error());
    }
    unsetenv("IC_SHM_EAGER_STREAM");
    printf("test_env: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
