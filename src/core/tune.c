/*
 * tune.c — reading and writing the tune file (see tune.h, docs/tuning.md).
 */
#include "core/tune.h"

#include "base/status.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TUNE_NKEYS 7
#define TUNE_NREQ 4 /* the keys ic_tune_write always writes, and rndv_alpha */
#define TUNE_RNDV 6 /* rndv_alpha's index */
#define TUNE_MAX_VALUE 1e3 /* seconds; the bound of ic_comm_set_model */

/* net_alpha, net_beta: the network level of a job across hosts (docs/mpi.md);
 * rndv_alpha: the start-up of a rendezvous message (base/model.h). */
static const char *const tune_keys[TUNE_NKEYS] = {"alpha",     "beta",     "gamma",     "delta",
                                                  "net_alpha", "net_beta", "rndv_alpha"};

static double *model_field(ic_model_t *m, int k)
{
    switch (k) {
    case 0:
        return &m->alpha;
    case 1:
        return &m->beta;
    case 2:
        return &m->gamma;
    case 3:
        return &m->delta;
    case 4:
        return &m->lvl_alpha[0];
    case 5:
        return &m->lvl_beta[0];
    default:
        return &m->rndv_alpha;
    }
}

/* NULL if v is acceptable for key k, else what is wrong with it. */
static const char *value_problem(int k, double v)
{
    if (!isfinite(v))
        return "is not finite";
    if (v < 0)
        return "is negative";
    if (v > TUNE_MAX_VALUE)
        return "is more than 1000 seconds";
    if ((k == 0 || k == 4) && !(v > 0))
        return "must be greater than 0";
    return NULL;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Parses one line (comment already removed, trimmed, non-empty) into
 * *m, marking the key in seen[].  Returns IC_OK or the error. */
static ic_status_t parse_line(const char *path, long lineno, char *line, ic_model_t *m,
                              int seen[TUNE_NKEYS])
{
    char *eq = strchr(line, '=');
    if (!eq)
        return ic_set_error(IC_ERR_ARG, "tune file %s line %ld: expected 'key = value', not '%.60s'",
                            path, lineno, line);
    *eq = '\0';
    char *key = trim(line), *val = trim(eq + 1);
    if (!*key)
        return ic_set_error(IC_ERR_ARG, "tune file %s line %ld: no key before '='", path, lineno);
    int k = 0;
    while (k < TUNE_NKEYS && strcmp(key, tune_keys[k]) != 0)
        k++;
    if (k == TUNE_NKEYS)
        return ic_set_error(IC_ERR_ARG,
                            "tune file %s line %ld: unknown key '%.60s' (the keys are alpha, "
                            "beta, gamma, delta, net_alpha, net_beta and rndv_alpha)",
                            path, lineno, key);
    if (seen[k])
        return ic_set_error(IC_ERR_ARG, "tune file %s line %ld: '%s' is given twice (first on "
                            "line %d)", path, lineno, key, seen[k]);
    if (!*val)
        return ic_set_error(IC_ERR_ARG, "tune file %s line %ld: '%s' has no value", path,
                            lineno, key);
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (end == val || *end)
        return ic_set_error(IC_ERR_ARG, "tune file %s line %ld: '%s' is not a number: '%.60s'",
                            path, lineno, key, val);
    const char *problem = value_problem(k, v);
    if (problem)
        return ic_set_error(IC_ERR_ARG, "tune file %s line %ld: '%s' = %.60s %s", path, lineno,
                            key, val, problem);
    *model_field(m, k) = v;
    seen[k] = lineno > 0 && lineno < (1L << 30) ? (int)lineno : 1;
    return IC_OK;
}

#define TUNE_MAX_BYTES 65536

ic_status_t ic_tune_read(const char *path, ic_model_t *m)
{
    if (!path || !*path)
        return ic_set_error(IC_ERR_ARG, "ic_tune_read: path is NULL or empty");
    if (!m)
        return ic_set_error(IC_ERR_ARG, "ic_tune_read: m is NULL");
    FILE *f = fopen(path, "r");
    if (!f)
        return ic_set_error(IC_ERR_ARG, "tune file %s: cannot open: %s", path, strerror(errno));
    /* Only a regular file of sane size (not /dev/zero, a FIFO, a directory). */
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > TUNE_MAX_BYTES) {
        fclose(f);
        return ic_set_error(IC_ERR_ARG, "tune file %s: not a regular file of at most %d bytes",
                            path, TUNE_MAX_BYTES);
    }
    ic_status_t st = ic_tune_read_stream(f, path, m);
    fclose(f);
    return st;
}

ic_status_t ic_tune_read_stream(FILE *f, const char *path, ic_model_t *m)
{
    ic_model_t tmp = *m;
    int seen[TUNE_NKEYS] = {0};
    char *buf = NULL;
    size_t cap = 0;
    long lineno = 0;
    ic_status_t st = IC_OK;
    for (;;) {
        errno = 0;
        ssize_t n = getline(&buf, &cap, f);
        if (n < 0) {
            if (ferror(f))
                st = ic_set_error(IC_ERR_ARG, "tune file %s: read error after line %ld: %s", path,
                                  lineno, strerror(errno ? errno : EIO));
            break;
        }
        lineno++;
        if (n > 4096) {
            st = ic_set_error(IC_ERR_ARG, "tune file %s line %ld: longer than 4096 bytes", path,
                              lineno);
            break;
        }
        if (memchr(buf, '\0', (size_t)n)) {
            st = ic_set_error(IC_ERR_ARG, "tune file %s line %ld: contains a NUL byte (not a "
                              "text file?)", path, lineno);
            break;
        }
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *line = trim(buf);
        if (!*line)
            continue;
        if ((st = parse_line(path, lineno, line, &tmp, seen)) != IC_OK)
            break;
    }
    free(buf);
    if (st != IC_OK)
        return st;
    /* alpha kept from *m must still be usable. */
    if (!(tmp.alpha > 0))
        return ic_set_error(IC_ERR_ARG, "tune file %s: alpha is not set and the previous value "
                            "%g is not > 0", path, tmp.alpha);
    *m = tmp;
    return IC_OK;
}

/* mkdir -p of the directory part of path (nothing if it has none). */
static ic_status_t make_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return IC_OK;
    size_t n = (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (!dir)
        return ic_set_error(IC_ERR_NO_MEM, "ic_tune_write: out of memory");
    memcpy(dir, path, n);
    dir[n] = '\0';
    ic_status_t st = IC_OK;
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        /* Create each missing component from the top down. */
        for (char *p = dir + 1;; p++) {
            if (*p != '/' && *p != '\0')
                continue;
            char c = *p;
            *p = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
                st = ic_set_error(IC_ERR_ARG, "tune file %s: cannot create directory %s: %s",
                                  path, dir, strerror(errno));
                break;
            }
            *p = c;
            if (c == '\0')
                break;
        }
    } else if (!S_ISDIR(sb.st_mode)) {
        st = ic_set_error(IC_ERR_ARG, "tune file %s: %s is not a directory", path, dir);
    }
    free(dir);
    return st;
}

/* The shortest %g form of v that reads back as v. */
static void format_exact(char *buf, size_t len, double v)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static void write_comment(FILE *f, const char *comment)
{
    const char *s = comment;
    while (s && *s) {
        size_t n = strcspn(s, "\n");
        fprintf(f, n ? "# %.*s\n" : "#%.*s\n", (int)n, s);
        s += n;
        if (*s == '\n')
            s++;
    }
}

/* The network level (net_alpha, net_beta) is written only when known
 * (non-zero); rndv_alpha always, since 0 is a measured value too (a file
 * without it leaves the default in place). */
static bool optional_unset(ic_model_t *m, int k)
{
    return k >= TUNE_NREQ && k != TUNE_RNDV && *model_field(m, k) == 0;
}

ic_status_t ic_tune_write(const char *path, const ic_model_t *m, const char *comment)
{
    if (!path || !*path)
        return ic_set_error(IC_ERR_ARG, "ic_tune_write: path is NULL or empty");
    if (!m)
        return ic_set_error(IC_ERR_ARG, "ic_tune_write: m is NULL");
    ic_model_t mm = *m;
    for (int k = 0; k < TUNE_NKEYS; k++) {
        if (optional_unset(&mm, k))
            continue;
        const char *problem = value_problem(k, *model_field(&mm, k));
        if (problem)
            return ic_set_error(IC_ERR_ARG, "ic_tune_write: %s = %g %s", tune_keys[k],
                                *model_field(&mm, k), problem);
    }
    ic_status_t st = make_parent(path);
    if (st != IC_OK)
        return st;
    size_t n = strlen(path);
    char *tmp = malloc(n + sizeof ".tmp.XXXXXX");
    if (!tmp)
        return ic_set_error(IC_ERR_NO_MEM, "ic_tune_write: out of memory");
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        st = ic_set_error(IC_ERR_ARG, "tune file %s: cannot create a temporary file %s: %s",
                          path, tmp, strerror(errno));
        free(tmp);
        return st;
    }
    (void)fchmod(fd, 0644); /* mkstemp makes it 0600; a tune file is not secret */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        st = ic_set_error(IC_ERR_ARG, "tune file %s: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return st;
    }
    write_comment(f, comment);
    fprintf(f, "# intercom cost model (docs/tuning.md): a message of n bytes costs\n"
               "# alpha + n*beta (+ rndv_alpha above the transport's eager limit),\n"
               "# reducing n bytes n*gamma, copying n bytes n*delta\n"
               "# (seconds, seconds per byte)\n");
    for (int k = 0; k < TUNE_NKEYS; k++) {
        if (optional_unset(&mm, k))
            continue;
        char num[40];
        format_exact(num, sizeof num, *model_field(&mm, k));
        fprintf(f, "%s = %s\n", tune_keys[k], num);
    }
    int bad = fflush(f) != 0 || ferror(f);
    int err = errno;
    if (!bad && fsync(fileno(f)) != 0) {
        bad = 1;
        err = errno;
    }
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        unlink(tmp);
        st = ic_set_error(IC_ERR_ARG, "tune file %s: cannot write: %s", path,
                          strerror(err ? err : EIO));
    }
    free(tmp);
    return st;
}

const char *ic_tune_default_path(char *buf, size_t len)
{
    if (!buf || len == 0)
        return NULL;
    const char *env = getenv("IC_TUNE_FILE");
    int n;
    if (env && *env) {
        n = snprintf(buf, len, "%s", env);
    } else if ((env = getenv("XDG_CONFIG_HOME")) && env[0] == '/') {
        n = snprintf(buf, len, "%s/intercom/tune.conf", env);
    } else if ((env = getenv("HOME")) && *env) {
        n = snprintf(buf, len, "%s/.config/intercom/tune.conf", env);
    } else {
        return NULL;
    }
    if (n < 0 || (size_t)n >= len)
        return NULL;
    return buf;
}
