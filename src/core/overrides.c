/*
 * overrides.c — IC_ALGO: forcing algorithms from the environment, e.g.
 *   IC_ALGO="bcast=mst,allreduce=hybrid"
 * applied to the world communicator by ic_init (derived communicators
 * inherit it), as ic_comm_set_algorithm would.
 */
#include "core/comm.h"
#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ic_status_t ic_apply_algo_env(ic_comm_t *c);
ic_status_t ic_apply_algo_spec(ic_comm_t *c, const char *spec);

static int coll_of(const char *name, size_t len)
{
    for (int k = 0; k < IC_COLL_COUNT; k++) {
        const char *n = ic_coll_name((ic_coll_t)k);
        if (strlen(n) == len && strncmp(n, name, len) == 0)
            return k;
    }
    return -1;
}

ic_status_t ic_apply_algo_env(ic_comm_t *c)
{
    const char *env = getenv("IC_ALGO");
    if (!env || !*env)
        return IC_OK;
    return ic_apply_algo_spec(c, env);
}

/* Applies "coll=algo,coll=algo..." to c (the fuzz target
 * tests/fuzz/fuzz_algo.c calls it with arbitrary strings). */
ic_status_t ic_apply_algo_spec(ic_comm_t *c, const char *env)
{
    const char *s = env;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', n);
        if (!eq || eq == s || eq == s + n - 1)
            return ic_set_error(IC_ERR_ARG,
                                "ic_init: IC_ALGO: '%.*s' is not collective=algorithm "
                                "(e.g. IC_ALGO=\"bcast=mst,allreduce=hybrid\")",
                                (int)n, s);
        int coll = coll_of(s, (size_t)(eq - s));
        if (coll < 0) {
            char all[512];
            size_t used = 0;
            all[0] = '\0';
            for (int k = 0; k < IC_COLL_COUNT && used < sizeof all; k++) {
                int w = snprintf(all + used, sizeof all - used, "%s%s", k ? ", " : "",
                                 ic_coll_name((ic_coll_t)k));
                used += w > 0 ? (size_t)w : 0;
            }
            return ic_set_error(IC_ERR_ARG,
                                "ic_init: IC_ALGO: unknown collective '%.*s' (valid: %s)",
                                (int)(eq - s), s, all);
        }
        char algo[128];
        snprintf(algo, sizeof algo, "%.*s", (int)(n - (size_t)(eq - s) - 1), eq + 1);
        ic_status_t st = ic_comm_set_algorithm(c, (ic_coll_t)coll, algo);
        if (st != IC_OK) { /* "ic_comm_set_algorithm: unknown ..." without its prefix */
            char msg[1024];
            const char *e = ic_last_error(), *colon = strstr(e, ": ");
            snprintf(msg, sizeof msg, "%s", colon ? colon + 2 : e);
            return ic_set_error(st, "ic_init: IC_ALGO: %s", msg);
        }
        s += n;
        if (*s == ',')
            s++;
    }
    return IC_OK;
}
