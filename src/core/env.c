/*
 * env.c — strict parsing of IC_* environment variables (see env.h).
 */
#include "core/env.h"

#include "base/status.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

/* True when v is digits[.digits][(e|E)[+|-]digits], with at least one digit
 * before or after the point. */
static int is_decimal(const char *v)
{
    const char *s = v;
    int digits = 0;
    while (isdigit((unsigned char)*s))
        s++, digits++;
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s))
            s++, digits++;
    }
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return 0;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return *s == '\0';
}

ic_status_t ic_parse_seconds(const char *name, const char *v, double max_s, double *out)
{
    if (!v || !is_decimal(v))
        return ic_set_error(IC_ERR_ARG,
                            "ic_init: %s='%.64s' is not a number of seconds "
                            "(a plain decimal such as 30 or 0.5)",
                            name, v ? v : "(null)");
    double x = strtod(v, NULL);
    if (!isfinite(x) || x < 0 || x > max_s)
        return ic_set_error(IC_ERR_ARG, "ic_init: %s='%.64s' is out of range (0 to %g seconds)",
                            name, v, max_s);
    *out = x;
    return IC_OK;
}

ic_status_t ic_parse_flag(const char *name, const char *v, int *out)
{
    if (!v || (strcmp(v, "0") != 0 && strcmp(v, "1") != 0))
        return ic_set_error(IC_ERR_ARG, "ic_init: %s='%.64s' is not 0 or 1", name,
                            v ? v : "(null)");
    *out = v[0] == '1';
    return IC_OK;
}

ic_status_t ic_parse_bytes(const char *name, const char *v, unsigned long long *out)
{
    size_t n = v ? strlen(v) : 0;
    bool digits = n > 0 && n <= 19;
    for (size_t i = 0; digits && i < n; i++)
        digits = isdigit((unsigned char)v[i]) != 0;
    if (!digits)
        return ic_set_error(IC_ERR_ARG,
                            "ic_init: %s='%.64s' is not a number of bytes (plain decimal digits)",
                            name, v ? v : "(null)");
    unsigned long long x = strtoull(v, NULL, 10);
    if (x > IC_ENV_BYTES_MAX)
        return ic_set_error(IC_ERR_ARG, "ic_init: %s='%.64s' is out of range (0 to 2^62 bytes)",
                            name, v);
    *out = x;
    return IC_OK;
}

ic_status_t ic_env_bytes(const char *name, unsigned long long dflt, unsigned long long *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = dflt;
        return IC_OK;
    }
    return ic_parse_bytes(name, v, out);
}

ic_status_t ic_env_seconds(const char *name, double max_s, double dflt, double *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = dflt;
        return IC_OK;
    }
    return ic_parse_seconds(name, v, max_s, out);
}

ic_status_t ic_env_flag(const char *name, int dflt, int *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = dflt;
        return IC_OK;
    }
    return ic_parse_flag(name, v, out);
}

static long decimal(const char *v, long lo, long hi);

long ic_parse_cores(const char *v) { return decimal(v, 1, IC_ENV_CORES_MAX); }

ic_status_t ic_env_read(ic_env_t *env)
{
    ic_status_t st = ic_env_seconds("IC_TIMEOUT", 1e9, 0, &env->timeout);
    if (st == IC_OK)
        st = ic_env_flag("IC_CHECK", 0, &env->check);
    if (st == IC_OK)
        st = ic_env_flag("IC_EXPLAIN", 0, &env->explain);
    if (st == IC_OK)
        st = ic_env_flag("IC_SHM_NO_CMA", 0, &env->no_cma);
    if (st == IC_OK)
        st = ic_env_flag("IC_REPRODUCIBLE", 0, &env->reproducible);
    if (st == IC_OK) {
        int unused;
        st = ic_env_flag("IC_SHM_EAGER_STREAM", 0, &unused);
    }
    static const char *const sizes[] = {"IC_SHM_SHARE_MIN",       "IC_SHM_SHARE_READ_MIN",
                                        "IC_SHM_STREAM_MIN",      "IC_SHM_STREAM_XCHG_MIN",
                                        "IC_COPY_STREAM_MIN",     "IC_SHM_EAGER_MAX"};
    for (size_t i = 0; st == IC_OK && i < sizeof sizes / sizeof *sizes; i++) {
        unsigned long long unused;
        st = ic_env_bytes(sizes[i], 0, &unused);
    }
    const char *cores = getenv("IC_SHM_CORES");
    if (st == IC_OK && cores && *cores && ic_parse_cores(cores) < 0)
        st = ic_set_error(IC_ERR_ARG,
                          "ic_init: IC_SHM_CORES='%.32s' is not a count of cores in 1..%d", cores,
                          IC_ENV_CORES_MAX);
    const char *extra = getenv("IC_SHM_CMA_EXTRA_NS");
    if (st == IC_OK && extra && *extra && decimal(extra, 0, 999999999) < 0)
        st = ic_set_error(IC_ERR_ARG,
                          "ic_init: IC_SHM_CMA_EXTRA_NS='%.32s' is not a count of nanoseconds "
                          "(plain decimal digits, 0..999999999)",
                          extra);
    const char *large = getenv("IC_SHM_CMA_LARGE_X100");
    if (st == IC_OK && large && *large && decimal(large, 0, 999999999) < 0)
        st = ic_set_error(IC_ERR_ARG,
                          "ic_init: IC_SHM_CMA_LARGE_X100='%.32s' is not a ratio in hundredths "
                          "(plain decimal digits, 0..999999999)",
                          large);
    return st;
}

/* A plain decimal in [lo, hi], or -1. */
static long decimal(const char *v, long lo, long hi)
{
    if (!v || !*v || strlen(v) > 9)
        return -1;
    for (const char *c = v; *c; c++)
        if (!isdigit((unsigned char)*c))
            return -1;
    long x = strtol(v, NULL, 10);
    return x >= lo && x <= hi ? x : -1;
}

ic_status_t ic_parse_bootstrap(const char *name, const char *rank, const char *size,
                               int max_size, int *joined, int *rank_out, int *size_out)
{
    *joined = 0;
    *rank_out = 0;
    *size_out = 1;
    if (!name || !*name)
        return IC_OK;
    static const char prefix[] = "/intercom-";
    size_t n = strlen(name), lp = sizeof prefix - 1;
    bool ok = n == lp + 16 && strncmp(name, prefix, lp) == 0;
    for (size_t i = lp; ok && i < n; i++)
        ok = isxdigit((unsigned char)name[i]) && !isupper((unsigned char)name[i]);
    if (!ok)
        return ic_set_error(IC_ERR_ARG,
                            "ic_init: IC_SHM_NAME='%.64s' is not a segment name of intercom-run "
                            "(/intercom- and 16 hex digits)",
                            name);
    long s = decimal(size, 1, max_size);
    if (s < 0)
        return ic_set_error(IC_ERR_ARG, "ic_init: IC_SIZE='%.32s' is not a size in 1..%d", size ? size : "",
                            max_size);
    long r = decimal(rank, 0, s - 1);
    if (r < 0)
        return ic_set_error(IC_ERR_ARG, "ic_init: IC_RANK='%.32s' is not a rank in 0..%ld",
                            rank ? rank : "", s - 1);
    *joined = 1;
    *rank_out = (int)r;
    *size_out = (int)s;
    return IC_OK;
}
