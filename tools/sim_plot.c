/*
 * sim_plot.c — intercom-sim's gnuplot drawings (see sim_plot.h).
 */
#define _GNU_SOURCE
#include "sim_plot.h"

#include "sim_tool_args.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sim_plot_fmt_bytes(size_t n, char *buf, size_t len)
{
    if (n % 1024)
        snprintf(buf, len, "%zu B", n);
    else if (n % (1u << 20))
        snprintf(buf, len, "%zu KiB", n >> 10);
    else
        sim_tool_fmt_bytes(n, buf, len);
}

void sim_plot_fmt_time(double us, char *buf, size_t len)
{
    if (us >= 1e6)
        snprintf(buf, len, "%.3f s", us / 1e6);
    else if (us >= 1e3)
        snprintf(buf, len, "%.3f ms", us / 1e3);
    else
        snprintf(buf, len, "%.1f us", us);
}

void sim_plot_steps(const ic_net_t *net, const ic_sim_contention_t *ct, size_t k)
{
    printf("\n| step | t | started | max load | link |\n|---:|---:|---:|---:|:---|\n");
    for (size_t s = 0; s < ct->nsteps && s < 40; s++) {
        const ic_sim_step_load_t *x = &ct->steps[s];
        char t[32], ln[128];
        sim_plot_fmt_time(x->t, t, sizeof t);
        ic_net_link_name(net, x->link, ln, sizeof ln);
        printf("| %zu%s | %s | %u | %u | %s |\n", s, s == k ? " (pictured)" : "", t, x->started,
               x->max_load, ln);
    }
    if (ct->nsteps > 40)
        printf("| ... | | | | |\n");
}

/* The .dat/.gp file names of png ("a.png" -> "a.dat", "a.gp"). */
typedef struct plot_files {
    char dat[4096], gp[4096];
} plot_files_t;

static int files_of(const char *png, plot_files_t *f)
{
    size_t len = strlen(png);
    if (len >= 4 && !strcasecmp(png + len - 4, ".png"))
        len -= 4;
    if (len + 5 > sizeof f->dat) {
        fprintf(stderr, "intercom-sim: %s: path too long\n", png);
        return -1;
    }
    snprintf(f->dat, sizeof f->dat, "%.*s.dat", (int)len, png);
    snprintf(f->gp, sizeof f->gp, "%.*s.gp", (int)len, png);
    return 0;
}

/* Writes s as a gnuplot single-quoted string (no escapes but '' for '). */
static void gp_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static FILE *open_or_say(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        perror(path);
    return f;
}

static int close_or_say(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) || bad) {
        fprintf(stderr, "intercom-sim: writing %s failed\n", path);
        return -1;
    }
    return 0;
}

/* The terminal (pngcairo when this gnuplot has it), the output and the
 * title; no enhanced text, so "reduce_scatter" keeps its underscores. */
static void gp_preamble(FILE *f, const char *png, const char *title, int w, int h)
{
    fprintf(f,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "    set terminal pngcairo noenhanced size %d,%d font ',11'\n"
            "} else {\n"
            "    set terminal png noenhanced size %d,%d\n"
            "}\n"
            "set output ",
            w, h, w, h);
    gp_string(f, png);
    fprintf(f, "\nset title ");
    gp_string(f, title);
    fprintf(f, "\n");
}

/* Runs gnuplot on the script; says what to do when it cannot. */
static int gp_run(const plot_files_t *pf, const char *png)
{
    if (system("command -v gnuplot > /dev/null 2>&1") != 0) {
        fprintf(stderr,
                "intercom-sim: gnuplot not found, %s not drawn (apt-get install "
                "gnuplot-nox); %s and %s are written: run gnuplot %s to draw it\n",
                png, pf->dat, pf->gp, pf->gp);
        return SIM_PLOT_FILES_ONLY;
    }
    size_t len = strlen(pf->gp);
    char *cmd = malloc(4 * len + 16), *o = cmd;
    if (!cmd)
        return SIM_PLOT_FILES_ONLY;
    o += sprintf(o, "gnuplot '");
    for (const char *s = pf->gp; *s; s++)
        o += *s == '\'' ? sprintf(o, "'\\''") : sprintf(o, "%c", *s);
    sprintf(o, "'");
    int rc = system(cmd);
    free(cmd);
    if (rc != 0) {
        fprintf(stderr, "intercom-sim: gnuplot failed on %s (status %d), %s not drawn\n", pf->gp,
                rc, png);
        return SIM_PLOT_FILES_ONLY;
    }
    return SIM_PLOT_DRAWN;
}

int sim_plot_sweep(const char *png, const char *title, const char *xlabel, size_t nsizes,
                   const size_t *sizes, int nseries, const char *const *names, const double *t_us)
{
    plot_files_t pf;
    if (files_of(png, &pf))
        return SIM_PLOT_FAILED;
    FILE *d = open_or_say(pf.dat);
    if (!d)
        return SIM_PLOT_FAILED;
    fprintf(d, "# n_bytes");
    for (int s = 0; s < nseries; s++)
        fprintf(d, "\t%s_seconds", names[s]);
    fprintf(d, "\n");
    for (size_t i = 0; i < nsizes; i++) {
        fprintf(d, "%zu", sizes[i]);
        for (int s = 0; s < nseries; s++) {
            double t = t_us[i * (size_t)nseries + (size_t)s];
            if (isnan(t))
                fprintf(d, "\tNaN");
            else
                fprintf(d, "\t%.9g", t * 1e-6);
        }
        fprintf(d, "\n");
    }
    if (close_or_say(d, pf.dat))
        return SIM_PLOT_FAILED;
    FILE *g = open_or_say(pf.gp);
    if (!g)
        return SIM_PLOT_FAILED;
    gp_preamble(g, png, title, 1000, 700);
    fprintf(g, "set logscale xy\nset grid\nset key top left\nset xlabel ");
    gp_string(g, xlabel);
    fprintf(g,
            "\nset ylabel 'simulated time'\nset format y '%%.0s %%cs'\n"
            "set datafile missing 'NaN'\nset xrange [%g:%g]\nset xtics rotate by -30 (",
            (double)sizes[0] / 1.5, (double)sizes[nsizes - 1] * 1.5);
    size_t every = (nsizes + 13) / 14; /* at most 14 labelled sizes */
    for (size_t i = 0; i < nsizes; i += every) {
        char b[32];
        sim_plot_fmt_bytes(sizes[i], b, sizeof b);
        fprintf(g, "%s'%s' %zu", i ? ", " : "", b, sizes[i]);
    }
    fprintf(g, ")\nplot ");
    for (int s = 0; s < nseries; s++) {
        fprintf(g, "%s", s ? ", \\\n     " : "");
        gp_string(g, s ? "" : pf.dat);
        fprintf(g, " using 1:%d with linespoints lw 2 pt %d title ", s + 2, 5 + 2 * (s % 4));
        gp_string(g, names[s]);
    }
    fprintf(g, "\n");
    if (close_or_say(g, pf.gp))
        return SIM_PLOT_FAILED;
    return gp_run(&pf, png);
}

/* Where a link's arrow starts, which way it goes and where its label sits:
 * beside the line between the nodes (to the right of the direction of
 * travel, so a link's two directions do not overlap); a wrap-around link
 * leaves the edge. */
typedef struct arrow {
    double x, y, dx, dy, lx, ly;
} arrow_t;

static arrow_t arrow_of(const ic_net_t *net, long link)
{
    int from, to, dim, dir, cols = net->dims[1];
    ic_net_link_ends(net, link, &from, &to, &dim, &dir);
    double ux = dim == 1 ? dir : 0, uy = dim == 0 ? dir : 0;
    double x0 = from % cols, y0 = from / cols, x1 = to % cols, y1 = to / cols;
    bool wrap = (x1 - x0) * ux + (y1 - y0) * uy != 1;
    double nx = -uy, ny = ux, off = 0.09, len = wrap ? 0.4 : 0.64;
    arrow_t a;
    a.x = x0 + 0.18 * ux + off * nx;
    a.y = y0 + 0.18 * uy + off * ny;
    a.dx = len * ux;
    a.dy = len * uy;
    a.lx = a.x + a.dx / 2 + 0.14 * nx;
    a.ly = a.y + a.dy / 2 + 0.14 * ny;
    return a;
}

/* BASE.dat: block 0 the nodes, then the arrows (x y dx dy load) and the
 * labels (x y text) when there are any. */
static void links_data(FILE *d, const ic_net_t *net, const uint32_t *load, long nlinks,
                       uint32_t *maxl, int *narrows, int *nlabels)
{
    int rows = net->dims[0], cols = net->dims[1];
    fprintf(d, "# nodes: column row\n");
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            fprintf(d, "%d %d\n", c, r);
    *maxl = 0;
    *narrows = *nlabels = 0;
    for (long l = 0; l < nlinks; l++) {
        if (!load[l])
            continue;
        if (!*narrows)
            fprintf(d, "\n\n# links: x y dx dy load\n");
        arrow_t a = arrow_of(net, l);
        fprintf(d, "%.3f %.3f %.3f %.3f %u\n", a.x, a.y, a.dx, a.dy, load[l]);
        *maxl = load[l] > *maxl ? load[l] : *maxl;
        ++*narrows;
    }
    for (long l = 0; l < nlinks; l++) {
        if (load[l] <= 1)
            continue;
        if (!*nlabels)
            fprintf(d, "\n\n# labels: x y load\n");
        arrow_t a = arrow_of(net, l);
        fprintf(d, "%.3f %.3f %u\n", a.lx, a.ly, load[l]);
        ++*nlabels;
    }
}

static void links_script(FILE *g, const plot_files_t *pf, const ic_net_t *net, uint32_t maxl,
                         int narrows, int nlabels)
{
    int rows = net->dims[0], cols = net->dims[1];
    fprintf(g,
            "unset key\nset size ratio -1\nset xrange [-0.8:%g]\nset yrange [%g:-0.8]\n"
            "set xlabel 'column'\nset ylabel 'row'\nset xtics 1 out nomirror\n"
            "set ytics 1 out nomirror\nset palette rgbformulae 22,13,-31\n"
            "set cbrange [%u:%u]\nset cblabel 'messages on the link'\n",
            cols - 0.2, rows - 0.2, 1u, maxl > 2 ? maxl : 2u);
    if (maxl <= 12)
        fprintf(g, "set cbtics 1\n");
    if (cols > 24)
        fprintf(g, "set xtics %d\n", cols > 64 ? 8 : 4);
    if (rows > 24)
        fprintf(g, "set ytics %d\n", rows > 64 ? 8 : 4);
    fprintf(g, "plot ");
    gp_string(g, pf->dat);
    fprintf(g, " index 0 using 1:2 with points pt 7 ps %s lc rgb 'gray50'",
            rows * cols > 400 ? "0.6" : "1.2");
    if (narrows)
        fprintf(g, ", \\\n     '' index 1 using 1:2:3:4:5 with vectors head filled size "
                   "0.12,20 lw 2 lc palette");
    if (nlabels)
        fprintf(g, ", \\\n     '' index %d using 1:2:3 with labels font ',9'", narrows ? 2 : 1);
    fprintf(g, "\n");
}

int sim_plot_links(const char *png, const char *title, const ic_net_t *net, const uint32_t *load,
                   long nlinks)
{
    plot_files_t pf;
    if (net->ndims != 2 || files_of(png, &pf))
        return SIM_PLOT_FAILED;
    FILE *d = open_or_say(pf.dat);
    if (!d)
        return SIM_PLOT_FAILED;
    uint32_t maxl;
    int narrows, nlabels;
    links_data(d, net, load, nlinks, &maxl, &narrows, &nlabels);
    if (close_or_say(d, pf.dat))
        return SIM_PLOT_FAILED;
    FILE *g = open_or_say(pf.gp);
    if (!g)
        return SIM_PLOT_FAILED;
    int cols = net->dims[1], rows = net->dims[0];
    int w = 120 + 70 * cols, h = 110 + 70 * rows;
    double shrink = w > 1800 || h > 1400 ? fmax(w / 1800.0, h / 1400.0) : 1;
    w = (int)(w / shrink) + 160; /* room for the colour box */
    h = (int)(h / shrink);
    gp_preamble(g, png, title, w < 560 ? 560 : w, h < 420 ? 420 : h);
    links_script(g, &pf, net, maxl, narrows, nlabels);
    if (close_or_say(g, pf.gp))
        return SIM_PLOT_FAILED;
    return gp_run(&pf, png);
}
