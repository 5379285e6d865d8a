/*
 * llc.c — the last-level cache's size from sysfs (see llc.h).
 */
#include "base/llc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ic_llc_parse(const char *s)
{
    if (!s || *s < '0' || *s > '9')
        return 0;
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    size_t unit = 1;
    if (*end == 'K')
        unit = 1024, end++;
    else if (*end == 'M')
        unit = 1024 * 1024, end++;
    else if (*end == 'G')
        unit = 1024 * 1024 * 1024, end++;
    if ((*end != '\0' && *end != '\n') || n > SIZE_MAX / unit)
        return 0;
    return (size_t)n * unit;
}

/* The first line of sysfs file dir/name into buf; 0 on success. */
static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok ? 0 : -1;
}

static size_t read_llc(void)
{
    size_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 16; i++) {
        char dir[96], level[16], type[32], size[32];
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d", i);
        if (read_line(dir, "level", level, sizeof level) != 0)
            break;
        if (read_line(dir, "type", type, sizeof type) != 0 ||
            strncmp(type, "Instruction", 11) == 0 || read_line(dir, "size", size, sizeof size) != 0)
            continue;
        int lv = atoi(level);
        size_t b = ic_llc_parse(size);
        if (b > 0 && lv >= best_level) {
            best_level = lv;
            best = b;
        }
    }
    return best;
}

size_t ic_llc_bytes(void)
{
    /* Read once; a racing first call reads the same value. */
    static atomic_size_t cached = 0; /* 0: not read; SIZE_MAX: unknown */
    size_t v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v == 0) {
        v = read_llc();
        if (v == 0)
            v = SIZE_MAX;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v == SIZE_MAX ? 0 : v;
}

size_t ic_stream_threshold(size_t floor, unsigned share)
{
    size_t llc = ic_llc_bytes() / (share ? share : 1);
    return llc > floor ? llc : floor;
}
