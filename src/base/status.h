/* status.h — setting the per-thread error message (see ic_last_error). */
#ifndef IC_BASE_STATUS_H
#define IC_BASE_STATUS_H

#include "intercom.h"

/* Records a message naming the offending argument and returns st. */
ic_status_t ic_set_error(ic_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
