/* version.c — the library's own version, for a header/library skew check. */
#include "intercom.h"

#define IC_STR2_(x) #x
#define IC_STR_(x) IC_STR2_(x)

unsigned ic_get_version(void) { return IC_VERSION; }

const char *ic_get_version_string(void)
{
    return IC_STR_(IC_VERSION_MAJOR) "." IC_STR_(IC_VERSION_MINOR) "." IC_STR_(IC_VERSION_PATCH);
}
