/*
 * report.h: what a `clfold bench` run prints and draws once every device
 * has run (report.c).
 */
#ifndef CLFOLD_CLI_BENCH_REPORT_H
#define CLFOLD_CLI_BENCH_REPORT_H

#include "args.h"
#include "run.h"

/*
 * As --format asks: every device's table (a failed one says why in its
 * place), then with several a summary; or the JSON document, or the CSV.
 */
void bench_print(const struct cli_args *args, const struct bench_plan *plan, const struct bench_run *run);

/*
 * --plot: the one device's lines, or with several the summary's, a line per
 * device. 0, or -1 (said on stderr).
 */
int bench_plot_run(const char *path, const struct bench_plan *plan, const struct bench_run *run);

#endif /* CLFOLD_CLI_BENCH_REPORT_H */
