/*
 * test_readme_algorithms.c — README's algorithm table ("Choosing or forcing
 * an algorithm") says exactly what the library has: for every collective,
 * the row whose first cell is the collective's name lists, as `code` words
 * and in the same order, the names ic_algorithms() returns.  A row missing,
 * a row twice, a name missing, added or out of order each fail.
 *
 * The README path comes from the build (IC_README_PATH) or argv[1].
 */
#include "intercom.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#ifndef IC_README_PATH
#define IC_README_PATH "README.md"
#endif

/* The `code` words of one table row after its first cell, joined by ", ". */
static void row_names(const char *cells, char *out, size_t len)
{
    out[0] = '\0';
    const char *s = cells;
    for (;;) {
        const char *a = strchr(s, '`');
        if (!a)
            break;
        const char *b = strchr(a + 1, '`');
        if (!b)
            break;
        size_t used = strlen(out), n = (size_t)(b - a - 1);
        if (used + n + 3 >= len)
            break;
        if (used)
            strcat(out, ", ");
        strncat(out, a + 1, n);
        s = b + 1;
    }
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : IC_README_PATH;
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f)
        return 1;

    int rows[IC_COLL_COUNT] = {0};
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        if (line[0] != '|')
            continue;
        char *cell = line + 1, *bar = strchr(cell, '|');
        if (!bar)
            continue;
        *bar = '\0';
        while (*cell == ' ')
            cell++;
        for (char *e = cell + strlen(cell); e > cell && e[-1] == ' ';)
            *--e = '\0';
        for (int c = 0; c < IC_COLL_COUNT; c++) {
            if (strcmp(cell, ic_coll_name((ic_coll_t)c)) != 0)
                continue;
            char want[1024], got[1024];
            ic_algorithms((ic_coll_t)c, want, sizeof want);
            row_names(bar + 1, got, sizeof got);
            CHECK(strcmp(want, got) == 0, "README row '%s' lists \"%s\"; ic_algorithms() says \"%s\"",
                  cell, got, want);
            rows[c]++;
        }
    }
    fclose(f);
    for (int c = 0; c < IC_COLL_COUNT; c++)
        CHECK(rows[c] == 1, "README has %d rows for %s, not one", rows[c],
              ic_coll_name((ic_coll_t)c));

    printf("test_readme_algorithms: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
