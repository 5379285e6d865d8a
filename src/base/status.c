/* status.c — status strings, the per-thread last-error message, names. */
#include "base/status.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512];

const char *ic_status_string(ic_status_t status)
{
    switch (status) {
#define IC_STATUS_CASE_(name, value, text)                                                    \
    case IC_##name:                                                                        \
        return text;
        IC_STATUS_MAP(IC_STATUS_CASE_)
#undef IC_STATUS_CASE_
    }
    return "unknown status";
}

const char *ic_last_error(void) { return last_error; }

ic_status_t ic_set_error(ic_status_t st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

const char *ic_coll_name(ic_coll_t coll)
{
    static const char *const names[IC_COLL_COUNT] = {
        "bcast",     "reduce",    "allreduce",  "scatter",
        "scatterv",  "gather",    "gatherv",    "allgather",
        "allgatherv", "reduce_scatter_block", "reduce_scatter", "alltoall",
        "alltoallv", "barrier",   "scan",       "exscan"};
    return (unsigned)coll < IC_COLL_COUNT ? names[coll] : "invalid";
}
