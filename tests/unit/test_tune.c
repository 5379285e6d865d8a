/*
 * test_tune.c — unit tests for the tune file (src/core/tune.c): write and
 * read back, comments and blank lines, every error case (the message names
 * the file and the line), keys left out keep their values, atomic
 * replacement and directory creation, and the default path rules.  Works in
 * a mkdtemp directory under /tmp, removed at the end.  Prints
 * "test_tune: N passed, M failed" and exits nonzero if anything failed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/tune.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static char dir[64];

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static int model_eq(const ic_model_t *a, const ic_model_t *b)
{
    return a->alpha == b->alpha && a->beta == b->beta && a->gamma == b->gamma &&
           a->delta == b->delta;
}

static const ic_model_t base = {.alpha = 3e-6, .beta = 4e-10, .gamma = 6e-11, .delta = 7e-11};

static void test_round_trip(void)
{
    char p[256];
    path_in(p, sizeof p, "rt.conf");
    const ic_model_t m = {.alpha = 1.2345678901234567e-06, .beta = 1.0e-10, .gamma = 4.9e-11, .delta = 3.3333333333333333e-11, .beta_net = 0};
    CHECK(ic_tune_write(p, &m, "written by test_tune\nsecond line") == IC_OK, "write: %s",
          ic_last_error());
    ic_model_t r = base;
    CHECK(ic_tune_read(p, &r) == IC_OK, "read back: %s", ic_last_error());
    CHECK(model_eq(&r, &m), "round trip: %.17g %.17g %.17g %.17g", r.alpha, r.beta, r.gamma,
          r.delta);
    /* The comment comes first, each line as "# ". */
    FILE *f = fopen(p, "r");
    char line[256] = "";
    CHECK(f && fgets(line, sizeof line, f) && strcmp(line, "# written by test_tune\n") == 0,
          "first line '%s'", line);
    CHECK(f && fgets(line, sizeof line, f) && strcmp(line, "# second line\n") == 0,
          "second line '%s'", line);
    if (f)
        fclose(f);
    struct stat sb;
    CHECK(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0644, "mode %o", sb.st_mode & 0777);
    /* Overwriting replaces it, and no temporary file stays behind. */
    const ic_model_t m2 = {.alpha = 2e-6, .beta = 0, .gamma = 0, .delta = 0, .beta_net = 0};
    CHECK(ic_tune_write(p, &m2, NULL) == IC_OK, "rewrite: %s", ic_last_error());
    r = base;
    CHECK(ic_tune_read(p, &r) == IC_OK && model_eq(&r, &m2), "read rewritten: %s",
          ic_last_error());
    DIR *d = opendir(dir);
    int tmps = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        tmps += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    CHECK(tmps == 0, "%d temporary files left", tmps);
    /* Missing parent directories are created. */
    path_in(p, sizeof p, "cfg/intercom/tune.conf");
    CHECK(ic_tune_write(p, &m, "x") == IC_OK, "write with mkdir: %s", ic_last_error());
    r = base;
    CHECK(ic_tune_read(p, &r) == IC_OK && model_eq(&r, &m), "read after mkdir: %s",
          ic_last_error());
    /* Invalid models are not written. */
    const ic_model_t bad = {.alpha = 0, .beta = 1e-10, .gamma = 1e-10, .delta = 1e-10, .beta_net = 0};
    path_in(p, sizeof p, "bad.conf");
    CHECK(ic_tune_write(p, &bad, NULL) == IC_ERR_ARG && strstr(ic_last_error(), "alpha"),
          "write alpha 0: '%s'", ic_last_error());
    CHECK(access(p, F_OK) != 0, "invalid model written anyway");
    const ic_model_t nan_m = {.alpha = 1e-6, .beta = NAN, .gamma = 1e-10, .delta = 1e-10, .beta_net = 0};
    CHECK(ic_tune_write(p, &nan_m, NULL) == IC_ERR_ARG && strstr(ic_last_error(), "beta"),
          "write NaN beta: '%s'", ic_last_error());
    /* A parent that is a file, not a directory. */
    path_in(p, sizeof p, "rt.conf/sub.conf");
    CHECK(ic_tune_write(p, &m, NULL) == IC_ERR_ARG && strstr(ic_last_error(), "rt.conf"),
          "parent is a file: '%s'", ic_last_error());
}

static void test_comments_and_partial(void)
{
    char p[256];
    path_in(p, sizeof p, "comments.conf");
    write_text(p, "# a tune file\n"
                  "\n"
                  "   \t\n"
                  "alpha = 1.5e-06   # trailing comment\n"
                  "  # indented comment\n"
                  "\tgamma=2e-11\r\n"
                  "delta =3.0E-11"); /* no final newline */
    ic_model_t r = base;
    CHECK(ic_tune_read(p, &r) == IC_OK, "comments: %s", ic_last_error());
    CHECK(r.alpha == 1.5e-06 && r.gamma == 2e-11 && r.delta == 3e-11, "values %g %g %g",
          r.alpha, r.gamma, r.delta);
    CHECK(r.beta == base.beta, "beta missing keeps %g, got %g", base.beta, r.beta);
    /* An empty (or comment-only) file changes nothing. */
    path_in(p, sizeof p, "empty.conf");
    write_text(p, "# nothing here\n\n");
    r = base;
    CHECK(ic_tune_read(p, &r) == IC_OK && model_eq(&r, &base), "empty file: %s",
          ic_last_error());
    /* Zero is allowed for beta, gamma, delta. */
    path_in(p, sizeof p, "zeros.conf");
    write_text(p, "beta = 0\ngamma = 0.0\ndelta = 0e0\n");
    r = base;
    CHECK(ic_tune_read(p, &r) == IC_OK && r.beta == 0 && r.gamma == 0 && r.delta == 0 &&
              r.alpha == base.alpha,
          "zeros: %s", ic_last_error());
}

/* The network level of a job across hosts (docs/mpi.md): optional keys,
 * read into lvl_*[0], written back only when set. */
static void test_network_level(void)
{
    char p[256];
    path_in(p, sizeof p, "net.conf");
    write_text(p, "net_alpha = 2.5e-05\nnet_beta = 8e-10\n");
    ic_model_t r = base;
    CHECK(ic_tune_read(p, &r) == IC_OK, "net keys: %s", ic_last_error());
    CHECK(r.lvl_alpha[0] == 2.5e-05 && r.lvl_beta[0] == 8e-10 && model_eq(&r, &base),
          "net keys read %g %g", r.lvl_alpha[0], r.lvl_beta[0]);
    path_in(p, sizeof p, "net_rt.conf");
    CHECK(ic_tune_write(p, &r, NULL) == IC_OK, "write with net keys: %s", ic_last_error());
    ic_model_t back = {.alpha = 1};
    CHECK(ic_tune_read(p, &back) == IC_OK && model_eq(&back, &r) &&
              back.lvl_alpha[0] == r.lvl_alpha[0] && back.lvl_beta[0] == r.lvl_beta[0],
          "net keys round trip: %s", ic_last_error());
    path_in(p, sizeof p, "net_zero.conf");
    write_text(p, "net_alpha = 0\n");
    r = base;
    CHECK(ic_tune_read(p, &r) == IC_ERR_ARG && strstr(ic_last_error(), "net_alpha"),
          "net_alpha = 0 must be refused: %s", ic_last_error());
}

/* The rendezvous start-up (base/model.h): an optional key, read into
 * rndv_alpha, written back only when set; 0 is allowed (no extra). */
static void test_rndv_alpha(void)
{
    char p[256];
    path_in(p, sizeof p, "rndv.conf");
    write_text(p, "rndv_alpha = 2.75e-06\n");
    ic_model_t r = base;
    CHECK(ic_tune_read(p, &r) == IC_OK && r.rndv_alpha == 2.75e-06 && model_eq(&r, &base),
          "rndv_alpha read: %s (%g)", ic_last_error(), r.rndv_alpha);
    path_in(p, sizeof p, "rndv_rt.conf");
    CHECK(ic_tune_write(p, &r, NULL) == IC_OK, "write with rndv_alpha: %s", ic_last_error());
    ic_model_t back = {.alpha = 1};
    CHECK(ic_tune_read(p, &back) == IC_OK && back.rndv_alpha == r.rndv_alpha,
          "rndv_alpha round trip: %g", back.rndv_alpha);
    /* A measured 0 is written, and read back over a non-zero default. */
    ic_model_t zero = r;
    zero.rndv_alpha = 0;
    path_in(p, sizeof p, "rndv_zero.conf");
    CHECK(ic_tune_write(p, &zero, NULL) == IC_OK, "write rndv_alpha 0: %s", ic_last_error());
    back = base;
    back.rndv_alpha = 1e-6;
    CHECK(ic_tune_read(p, &back) == IC_OK && back.rndv_alpha == 0,
          "rndv_alpha 0 round trip: %g", back.rndv_alpha);
    path_in(p, sizeof p, "rndv_neg.conf");
    write_text(p, "rndv_alpha = -1e-6\n");
    r = base;
    CHECK(ic_tune_read(p, &r) == IC_ERR_ARG && strstr(ic_last_error(), "rndv_alpha") &&
              r.rndv_alpha == base.rndv_alpha,
          "rndv_alpha < 0 must be refused: %s", ic_last_error());
}

/* The file holds text; reading it must fail with IC_ERR_ARG, leave the
 * model alone, and name the file, "line N" and each of the words. */
static void expect_error(int line, const char *name, const char *text, int lineno,
                         const char *word1, const char *word2)
{
    char p[256], want[32];
    path_in(p, sizeof p, name);
    write_text(p, text);
    ic_model_t r = base;
    ic_status_t st = ic_tune_read(p, &r);
    const char *msg = ic_last_error();
    snprintf(want, sizeof want, "line %d", lineno);
    CHECK_AT(line, st == IC_ERR_ARG, "%s: status %d", name, (int)st);
    CHECK_AT(line, model_eq(&r, &base), "%s: model changed on error", name);
    CHECK_AT(line, strstr(msg, p) != NULL, "%s: message '%s' does not name the file", name, msg);
    CHECK_AT(line, strstr(msg, want) != NULL, "%s: message '%s' does not name %s", name, msg,
             want);
    CHECK_AT(line, !word1 || strstr(msg, word1), "%s: message '%s' lacks '%s'", name, msg, word1);
    CHECK_AT(line, !word2 || strstr(msg, word2), "%s: message '%s' lacks '%s'", name, msg, word2);
}

static void test_errors(void)
{
    expect_error(__LINE__, "unknown.conf", "alpha = 1e-6\n# c\nepsilon = 2\n", 3, "unknown key",
                 "epsilon");
    expect_error(__LINE__, "nan_text.conf", "# x\n\nalpha = fast\n", 3, "'alpha' is not a number",
                 "fast");
    expect_error(__LINE__, "trailing.conf", "beta = 1e-10 s\n", 1, "'beta' is not a number", NULL);
    expect_error(__LINE__, "negative.conf", "alpha = 1e-6\nbeta = -1e-10\n", 2, "beta",
                 "negative");
    expect_error(__LINE__, "nan.conf", "gamma = nan\n", 1, "gamma", "not finite");
    expect_error(__LINE__, "inf.conf", "delta = inf\n", 1, "delta", "not finite");
    expect_error(__LINE__, "alpha0.conf", "beta = 1e-10\nalpha = 0\n", 2, "alpha",
                 "greater than 0");
    expect_error(__LINE__, "huge.conf", "alpha = 5000\n", 1, "alpha", "1000");
    expect_error(__LINE__, "noeq.conf", "alpha 1e-6\n", 1, "key = value", NULL);
    expect_error(__LINE__, "novalue.conf", "\nalpha =\n", 2, "'alpha' has no value", NULL);
    expect_error(__LINE__, "nokey.conf", "= 1e-6\n", 1, "no key", NULL);
    expect_error(__LINE__, "twice.conf", "alpha = 1e-6\nalpha = 2e-6\n", 2, "twice", "line 1");
    expect_error(__LINE__, "case.conf", "Alpha = 1e-6\n", 1, "unknown key", "Alpha");

    /* A missing file: IC_ERR_ARG, names the file, model unchanged. */
    char p[256];
    path_in(p, sizeof p, "does-not-exist.conf");
    ic_model_t r = base;
    ic_status_t st = ic_tune_read(p, &r);
    CHECK(st == IC_ERR_ARG, "missing file: status %d", (int)st);
    CHECK(strstr(ic_last_error(), p) && strstr(ic_last_error(), "No such file"),
          "missing file message '%s'", ic_last_error());
    CHECK(model_eq(&r, &base), "missing file changed the model");
    /* A directory is not a tune file. */
    r = base;
    st = ic_tune_read(dir, &r);
    CHECK(st == IC_ERR_ARG && strstr(ic_last_error(), dir), "directory: %d '%s'", (int)st,
          ic_last_error());
    /* NULL arguments. */
    CHECK(ic_tune_read(NULL, &r) == IC_ERR_ARG, "NULL path");
    CHECK(ic_tune_read(p, NULL) == IC_ERR_ARG, "NULL model");
    CHECK(ic_tune_write(NULL, &base, NULL) == IC_ERR_ARG, "write NULL path");
    /* alpha kept from a bad previous value is refused. */
    path_in(p, sizeof p, "beta_only.conf");
    write_text(p, "beta = 1e-10\n");
    ic_model_t z = {.alpha = 0, .beta = 0, .gamma = 0, .delta = 0, .beta_net = 0};
    CHECK(ic_tune_read(p, &z) == IC_ERR_ARG && z.beta == 0, "alpha 0 kept: '%s'",
          ic_last_error());
}

static void set_env(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static void test_default_path(void)
{
    char *saved[3];
    const char *names[3] = {"IC_TUNE_FILE", "XDG_CONFIG_HOME", "HOME"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
    char buf[256];
    const char *r;

    set_env("IC_TUNE_FILE", "/a/b.conf");
    set_env("XDG_CONFIG_HOME", "/xdg");
    set_env("HOME", "/home/u");
    r = ic_tune_default_path(buf, sizeof buf);
    CHECK(r == buf && strcmp(r, "/a/b.conf") == 0, "IC_TUNE_FILE: '%s'", r ? r : "(null)");

    set_env("IC_TUNE_FILE", ""); /* empty: ignored */
    r = ic_tune_default_path(buf, sizeof buf);
    CHECK(r && strcmp(r, "/xdg/intercom/tune.conf") == 0, "XDG: '%s'", r ? r : "(null)");

    set_env("IC_TUNE_FILE", NULL);
    r = ic_tune_default_path(buf, sizeof buf);
    CHECK(r && strcmp(r, "/xdg/intercom/tune.conf") == 0, "XDG unset IC: '%s'",
          r ? r : "(null)");

    set_env("XDG_CONFIG_HOME", "");
    r = ic_tune_default_path(buf, sizeof buf);
    CHECK(r && strcmp(r, "/home/u/.config/intercom/tune.conf") == 0, "HOME (empty XDG): '%s'",
          r ? r : "(null)");

    set_env("XDG_CONFIG_HOME", "relative/dir"); /* not absolute: ignored (XDG) */
    r = ic_tune_default_path(buf, sizeof buf);
    CHECK(r && strcmp(r, "/home/u/.config/intercom/tune.conf") == 0, "HOME (relative XDG): '%s'",
          r ? r : "(null)");

    set_env("XDG_CONFIG_HOME", NULL);
    r = ic_tune_default_path(buf, sizeof buf);
    CHECK(r && strcmp(r, "/home/u/.config/intercom/tune.conf") == 0, "HOME: '%s'",
          r ? r : "(null)");

    set_env("HOME", "");
    CHECK(ic_tune_default_path(buf, sizeof buf) == NULL, "empty HOME gives a path");
    set_env("HOME", NULL);
    CHECK(ic_tune_default_path(buf, sizeof buf) == NULL, "nothing set gives a path");

    /* Too small a buffer. */
    set_env("HOME", "/home/u");
    CHECK(ic_tune_default_path(buf, 10) == NULL, "truncated path returned");
    CHECK(ic_tune_default_path(buf, 35) != NULL && strlen(buf) == 34, "exact fit: '%s'", buf);
    CHECK(ic_tune_default_path(buf, 34) == NULL, "one byte short returned");
    CHECK(ic_tune_default_path(NULL, 10) == NULL, "NULL buffer");

    for (int i = 0; i < 3; i++) {
        set_env(names[i], saved[i]);
        free(saved[i]);
    }
}

/* rm -r of the test directory (two levels of subdirectories at most). */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat sb;
        if (lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode))
            remove_tree(sub);
        else
            unlink(sub);
    }
    closedir(d);
    rmdir(path);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/ic_test_tune.XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    test_comments_and_partial();
    test_network_level();
    test_rndv_alpha();
    test_errors();
    test_default_path();
    remove_tree(dir);
    CHECK(access(dir, F_OK) != 0, "test directory %s left behind", dir);
    printf("test_tune: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
