/*
 * env.c — strict parsing of IC_* environment variables (see env.h).
 */
#include "core/env.h"

#include "base/status.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
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
