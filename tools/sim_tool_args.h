/*
 * sim_tool_args.h — what the engine-table tools (intercom-mesh-table,
 * intercom-select-table) share: the mesh and model options and byte
 * formatting.
 */
#ifndef IC_TOOLS_SIM_TOOL_ARGS_H
#define IC_TOOLS_SIM_TOOL_ARGS_H

#include "algo/coll_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Consumes argv[*i] (and its value) when it is --mesh AxBx.., --alpha US,
 * --beta US_PER_B or --gamma US_PER_B; returns 1 then, else 0. */
static inline int sim_tool_arg(int argc, char **argv, int *i, ic_mesh_t *mesh, ic_model_t *m)
{
    const char *a = argv[*i];
    if (*i + 1 >= argc)
        return 0;
    if (!strcmp(a, "--mesh")) {
        mesh->d = 0;
        for (char *s = argv[++*i], *e; *s && mesh->d < IC_MESH_MAX_DIMS; s = *e ? e + 1 : e) {
            mesh->dims[mesh->d++] = (int)strtol(s, &e, 10);
            if (e == s)
                break;
        }
    } else if (!strcmp(a, "--alpha")) {
        m->alpha = atof(argv[++*i]);
    } else if (!strcmp(a, "--beta")) {
        m->beta = atof(argv[++*i]);
    } else if (!strcmp(a, "--gamma")) {
        m->gamma = atof(argv[++*i]);
    } else {
        return 0;
    }
    return 1;
}

/* Prints "p = P, mesh A x B, alpha = .. us, beta = .. us/B, gamma = ..
 * us/B" followed by tail. */
static inline void sim_tool_print_setup(const ic_mesh_t *mesh, const ic_model_t *m,
                                        const char *tail)
{
    printf("p = %ld, mesh", ic_mesh_size(mesh));
    for (int i = 0; i < mesh->d; i++)
        printf("%s%d", i ? " x " : " ", mesh->dims[i]);
    printf(", alpha = %g us, beta = %g us/B, gamma = %g us/B%s\n", m->alpha, m->beta, m->gamma,
           tail);
}

static inline void sim_tool_fmt_bytes(size_t n, char *buf, size_t len)
{
    if (n >= (1u << 20))
        snprintf(buf, len, "%zu MiB", n >> 20);
    else if (n >= 1024)
        snprintf(buf, len, "%zu KiB", n >> 10);
    else
        snprintf(buf, len, "%zu B", n);
}

#endif
