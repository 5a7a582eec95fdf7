/*
 * plot.h: drawing lines of GB/s against size as a PNG with gnuplot
 * (plot.c), for `clfold bench --plot` and `clfold compare --plot`.
 */
#ifndef CLFOLD_CLI_BENCH_PLOT_H
#define CLFOLD_CLI_BENCH_PLOT_H

#include <stddef.h>

#include "run.h"

#define PLOT_MAX_POINTS 256
#define PLOT_MAX_SERIES 64

struct plot_series {
    char title[192];
    size_t n;
    double x[PLOT_MAX_POINTS]; /* elements */
    double y[PLOT_MAX_POINTS]; /* GB/s */
};

/* Adds the point to the series (dropped past PLOT_MAX_POINTS). */
void plot_point(struct plot_series *series, double x, double y);

/*
 * Draws the series (log2 sizes across) into the PNG at `path`. 0, or -1
 * with one line on stderr: gnuplot missing (what to install) or failing.
 */
int plot_draw(const char *path, const char *title, const struct plot_series *series, size_t count);

/*
 * One device's lines of the bench: GB/s against size per kernel, type and
 * operator, its streaming read (a scan's copy), and one per peer. 0, or -1
 * (said on stderr).
 */
int bench_plot(const char *path, const struct device_summary *device, const struct bench_results *results);

#endif /* CLFOLD_CLI_BENCH_PLOT_H */
