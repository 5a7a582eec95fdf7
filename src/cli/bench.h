/*
 * bench.h: what `clfold bench` measures and reports. bench.c measures;
 * bench_report.c parses the plan, runs the peers and prints; plot.c draws.
 */
#ifndef CLFOLD_CLI_BENCH_H
#define CLFOLD_CLI_BENCH_H

#include <stdbool.h>

#include "args.h"
#include "output.h"

#define BENCH_MAX 64

struct bench_plan {
    size_t sizes[BENCH_MAX];
    size_t n_sizes;
    clfold_type types[BENCH_MAX];
    size_t n_types;
    clfold_op ops[BENCH_MAX];
    size_t n_ops;
    clfold_kernel kernels[BENCH_MAX];
    size_t n_kernels;
    clfold_accuracy accuracy;
};

struct bench_row {
    clfold_type type;
    clfold_op op;
    size_t n;
    clfold_kernel kernel;
    const char *path;    /* the auto path's shape, or "ladder" */
    double best_ms;      /* device time of one reduction */
    double median_ms;
    double e2e_ms;       /* one call, result on the host: median */
    double gbps;         /* input bytes over best_ms */
    double read_gbps;    /* the streaming-read kernel on the same bytes */
    bool correct;
};

struct peer_row {
    char peer[32];
    clfold_type type;
    size_t n;
    double best_ms;
    double median_ms;
    double e2e_ms;       /* its own end-to-end time, where it reports one; else -1 */
};

struct bench_results {
    struct bench_row rows[4096];
    size_t n_rows;
    struct peer_row peers[1024];
    size_t n_peers;
};

/* Fills the plan from the command line; EXIT_OK or EXIT_BAD_INPUT (said on stderr). */
int bench_plan_parse(const struct cli_args *args, struct bench_plan *plan);

/* 0, or -1 when full. */
int bench_add_row(struct bench_results *results, const struct bench_row *row);

/* Runs `command TYPE N...` for each float/integer type of the plan and keeps its JSON rows. */
void bench_run_peer(const char *command, const struct bench_plan *plan, struct bench_results *results);

void bench_print(const struct device_summary *device, const struct bench_plan *plan,
                 const struct bench_results *results, enum cli_format format);

/* Draws GB/s against size with gnuplot; 0, or -1 (said on stderr). */
int bench_plot(const char *path, const struct device_summary *device, const struct bench_plan *plan,
               const struct bench_results *results);

#endif /* CLFOLD_CLI_BENCH_H */
