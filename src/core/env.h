/*
 * env.h — strict parsing of the IC_* environment variables that ic_init
 * reads.  A variable that is set but malformed is an error naming the
 * variable and its value (never silently ignored, never read with a
 * different base or meaning than documented in docs/running.md).
 */
#ifndef IC_CORE_ENV_H
#define IC_CORE_ENV_H

#include "intercom.h"

/* A duration in seconds: a plain decimal number (digits, an optional
 * fraction, an optional decimal exponent), finite, in [0, max_s].
 * Unset or empty: *out = dflt, IC_OK.  Otherwise IC_ERR_ARG with a
 * message naming the variable. */
ic_status_t ic_env_seconds(const char *name, double max_s, double dflt, double *out);

/* A switch: unset or empty gives dflt; "0" and "1" are the values. */
ic_status_t ic_env_flag(const char *name, int dflt, int *out);

/* A size in bytes: plain decimal digits, at most IC_ENV_BYTES_MAX.  Unset
 * or empty: *out = dflt. */
#define IC_ENV_BYTES_MAX (1ull << 62)
ic_status_t ic_env_bytes(const char *name, unsigned long long dflt, unsigned long long *out);

/* The same checks on a string (tests and fuzzers call these directly). */
ic_status_t ic_parse_seconds(const char *name, const char *v, double max_s, double *out);
ic_status_t ic_parse_flag(const char *name, const char *v, int *out);
ic_status_t ic_parse_bytes(const char *name, const char *v, unsigned long long *out);
/* IC_SHM_CORES: a plain decimal in 1..IC_ENV_CORES_MAX, or -1 (the shm
 * transport reads it, IC_SHM_CORES_MAX, the same bound). */
#define IC_ENV_CORES_MAX 65536
long ic_parse_cores(const char *v);

/* The settings ic_init takes from the environment, every one checked. */
typedef struct ic_env {
    double timeout; /* IC_TIMEOUT, seconds; 0: none */
    int check;      /* IC_CHECK */
    int explain;    /* IC_EXPLAIN */
    int no_cma;     /* IC_SHM_NO_CMA (checked here; the transport reads it when it opens) */
    int reproducible; /* IC_REPRODUCIBLE */
    /* IC_SHM_SHARE_MIN, IC_SHM_STREAM_MIN, IC_SHM_STREAM_XCHG_MIN,
     * IC_COPY_STREAM_MIN: checked here,
     * read where they are used (the transport, base/copy.c). */
} ic_env_t;
ic_status_t ic_env_read(ic_env_t *env);

/* The bootstrap variables intercom-run sets (IC_SHM_NAME, IC_RANK,
 * IC_SIZE), given as strings: *joined = 0 when name is unset or empty
 * (a world of size 1); else the name must be a launcher's segment name
 * ("/intercom-" and 16 hex digits), rank and size plain decimals with
 * 0 <= rank < size <= max_size.  Errors name the variable and value. */
ic_status_t ic_parse_bootstrap(const char *name, const char *rank, const char *size,
                               int max_size, int *joined, int *rank_out, int *size_out);

#endif
