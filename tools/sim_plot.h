/*
 * sim_plot.h — intercom-sim's drawings: the log-log sweep of time against
 * vector size, and a picture of one step's link loads on a 2-D mesh or
 * torus with the step table that goes with it (gnuplot); and the byte and
 * time formats they share with the tool's tables.
 *
 * Each writes BASE.dat and BASE.gp next to the PNG (BASE is the PNG's path
 * without ".png") and runs gnuplot on BASE.gp; the script picks the
 * pngcairo terminal when gnuplot has it, else png.  Without gnuplot the
 * files are still written, so the PNG can be drawn later.
 */
#ifndef IC_TOOLS_SIM_PLOT_H
#define IC_TOOLS_SIM_PLOT_H

#include "sim/engine.h"

#include <stddef.h>
#include <stdint.h>

/* Returns of the drawings: the PNG was drawn; only the .dat and .gp files
 * were written (gnuplot missing or failing, message printed); nothing could
 * be written (message printed). */
enum { SIM_PLOT_DRAWN = 0, SIM_PLOT_FILES_ONLY = 1, SIM_PLOT_FAILED = -1 };

/* "8 B", "64 KiB", "3 MiB", "1536 KiB", "1000 B": exact. */
void sim_plot_fmt_bytes(size_t n, char *buf, size_t len);

/* "12.5 us", "3.250 ms", "1.234 s" from microseconds. */
void sim_plot_fmt_time(double us, char *buf, size_t len);

/* Prints the step table of a run's contention report (t, messages started,
 * max load and its link; the first 40 steps), marking step k, the one a
 * picture shows. */
void sim_plot_steps(const ic_net_t *net, const ic_sim_contention_t *ct, size_t k);

/* One line per series: t_us[size * nseries + series] is the time of series
 * at sizes[size] (NaN: none).  xlabel names what n is. */
int sim_plot_sweep(const char *png, const char *title, const char *xlabel, size_t nsizes,
                   const size_t *sizes, int nseries, const char *const *names, const double *t_us);

/* The nodes of 2-D network net as points (column right, row 0 at the top)
 * and every directed link with load[link] > 0 as an arrow beside its
 * opposite, coloured by load and labelled with it when > 1; a torus's
 * wrap-around links are short arrows leaving the edge. */
int sim_plot_links(const char *png, const char *title, const ic_net_t *net, const uint32_t *load,
                   long nlinks);

#endif
