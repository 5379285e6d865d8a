/*
 * llc.h — this machine's last-level cache, which sets from what size
 * large copies and messages are streamed past the caches.
 *
 * A streamed copy (non-temporal stores, base/copy.h; the transport's
 * chunked bulk path, transport/shm/shm_rndv.c) writes to memory, where a
 * cached copy leaves its destination in the cache for the reader.  The
 * cached copy wins while its working set fits in the last-level cache:
 * source and destination (2N) for a local copy or a one-way message of N
 * bytes, both messages of an exchange (4N).  So the defaults are
 * IC_COPY_STREAM_MIN = IC_SHM_STREAM_MIN = max(16 MiB, LLC/2) and
 * IC_SHM_STREAM_XCHG_MIN = max(8 MiB, LLC/4): on the AMD EPYC VM the
 * fixed defaults were measured on (L3 32 MiB) the same 16 and 8 MiB; on
 * an Intel Xeon VM with a 480 MiB L3, 240 and 120 MiB, where streaming
 * at the old defaults took 1.1-3.4x the time of single copy
 * (docs/perf/copy.md, "Machines with a large last-level cache").
 */
#ifndef IC_BASE_LLC_H
#define IC_BASE_LLC_H

#include <stddef.h>

/* Bytes of the last-level data or unified cache of CPU 0 as sysfs gives
 * it (read once); 0 when unknown. */
size_t ic_llc_bytes(void);

/* A sysfs cache size ("491520K", "32M", "512"): bytes, 0 when it is not
 * one. */
size_t ic_llc_parse(const char *s);

/* The default streaming threshold: max(floor, LLC / share). */
size_t ic_stream_threshold(size_t floor, unsigned share);

#endif
