/*
 * deps_index.h — the byte-range index behind dependency inference: for
 * every buffer, disjoint intervals with the step that last wrote them and
 * the steps that read them since.  A new step depends on the last writer
 * of every byte it reads or writes and on every reader since of every byte
 * it writes (RAW, WAW, WAR); that is the same order the plain backward scan
 * gives, at a cost that grows with the intervals touched, not with the
 * plan's length.
 */
#ifndef IC_PLAN_DEPS_INDEX_H
#define IC_PLAN_DEPS_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct ic_deps_index ic_deps_index_t;

ic_deps_index_t *ic_deps_index_new(void);
void ic_deps_index_free(ic_deps_index_t *ix);

/* Adds to out (up to *n entries, cap) the steps a step accessing [off,
 * off+len) of buffer buf must wait for (write: readers and writer; read:
 * writer).  Duplicates are possible; returns -1 when out is too small. */
int ic_deps_index_query(const ic_deps_index_t *ix, int buf, size_t off, size_t len, int write,
                        uint32_t *out, size_t *n, size_t cap);

/* Records that step read / wrote [off, off+len) of buf; 0 or -1 (memory). */
int ic_deps_index_read(ic_deps_index_t *ix, int buf, size_t off, size_t len, uint32_t step);
int ic_deps_index_write(ic_deps_index_t *ix, int buf, size_t off, size_t len, uint32_t step);

#endif
