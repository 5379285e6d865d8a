/*
 * tune.h — the tune file: the cost-model parameters measured by
 * intercom-tune, read by ic_init.
 *
 * Format (docs/tuning.md): text; '#' starts a comment that runs to the end
 * of the line; blank lines are ignored; every other line is
 *     key = value
 * with key one of alpha, beta, gamma, delta (the fields of ic_model_t, in
 * seconds and seconds per byte) and value a number as strtod reads it
 * (1.2e-06).  Each key at most once; every value finite, >= 0 and at most
 * 1000 (the range ic_comm_set_model accepts), alpha > 0.
 */
#ifndef IC_CORE_TUNE_H
#define IC_CORE_TUNE_H

#include "algo/coll_args.h"

#include <stddef.h>
#include <stdio.h>

/* Reads the tune file at path into *m: the keys it names replace the
 * values in *m, the others keep theirs.  On any error (file missing or
 * unreadable, unknown key, a value that is not a number or out of range,
 * a line without '=', a key given twice) *m is left unchanged and the
 * result is IC_ERR_ARG, with ic_last_error() naming the file, the line
 * number where there is one, and what is wrong, e.g.
 *     tune file /x/y line 3: 'alpha' is not a number: 'fast'
 * A missing file is an error too (message "... cannot open: No such file
 * or directory"); the caller decides whether that matters. */
ic_status_t ic_tune_read(const char *path, ic_model_t *m);
/* The same from an open stream (path names it in messages); the fuzz
 * target tests/fuzz/fuzz_tune.c feeds it arbitrary bytes.  The caller
 * bounds the stream's size (ic_tune_read: a regular file of at most 64
 * KiB). */
ic_status_t ic_tune_read_stream(FILE *f, const char *path, ic_model_t *m);

/* Writes *m to path as a tune file, after comment (NULL or "": none; one
 * "# " line per line of it).  Creates the missing parent directories
 * (like mkdir -p, mode 0755), and replaces path atomically: the text goes
 * to a temporary file in the same directory, which is renamed over path.
 * IC_ERR_ARG with a message when *m is out of range (the rules of
 * ic_tune_read) or the file cannot be written. */
ic_status_t ic_tune_write(const char *path, const ic_model_t *m, const char *comment);

/* The tune file's path, formed in buf (len bytes): $IC_TUNE_FILE if set
 * and non-empty; else $XDG_CONFIG_HOME/intercom/tune.conf when
 * XDG_CONFIG_HOME is an absolute path (the XDG rule: relative values are
 * ignored); else $HOME/.config/intercom/tune.conf when HOME is non-empty.
 * Returns buf, or NULL if none of these is set or the path does not fit. */
const char *ic_tune_default_path(char *buf, size_t len);

#endif
