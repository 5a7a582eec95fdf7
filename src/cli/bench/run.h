/*
 * run.h: what one `clfold bench` run is, as every file of src/cli/bench/
 * passes it on: the plan (plan.c fills it), the devices and the rows each
 * measured (measure.c and the files below it fill them), which report.c,
 * document.c and plot.c print and draw. The bottom of the folder: run.c
 * holds the few functions of these types alone, and calls no file above.
 */
#ifndef CLFOLD_CLI_BENCH_RUN_H
#define CLFOLD_CLI_BENCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "output.h"

#define BENCH_MAX 64
#define BENCH_MAX_DEVICES 16

/* Power-law segments: lengths log-uniform from 1 to 2^20. */
#define LONGEST_SEGMENT_LOG2 20

/* What one reduction of the bench is: a whole array, or one with many results. */
enum bench_shape_kind { SHAPE_WHOLE, SHAPE_MATRIX, SHAPE_SEGMENTS };

struct bench_shape {
    enum bench_shape_kind kind;
    size_t rows, cols;           /* --shape RxC */
    int axis;                    /* --axis 0 or 1 */
    uint64_t *offsets;           /* --segments power-law: n_segments + 1 of them (malloc'ed) */
    size_t n_segments;
    char offsets_path[64];       /* ... also written as a .npy file for the peers */
    char peer_args[128];         /* what peers get after TYPE N: "--shape RxC --axis A", ... */
};

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
    struct bench_shape shape;
    const char *scan;            /* --scan: "inclusive" or "exclusive"; NULL: reductions */
    clfold_scan_mode scan_mode;
    clfold_scan_kernel scan_kernels[BENCH_MAX]; /* -k with --scan (n_kernels of them) */
};

struct bench_row {
    clfold_type type;
    clfold_op op;
    size_t n;
    clfold_kernel kernel;
    const char *scan;    /* a scan's "inclusive" or "exclusive"; NULL for a reduction */
    clfold_scan_kernel scan_kernel; /* a scan's kernel (kernel is then CLFOLD_AUTO) */
    const char *path;    /* the auto path's shape, or "ladder"; a scan's kernel, or "scan-gpu", ... */
    double best_ms;      /* device time of one reduction */
    double median_ms;
    double e2e_ms;       /* one call, result on the host: median (a scan's stays on the device) */
    double gbps;         /* input bytes over best_ms; a scan's input and output bytes */
    double read_gbps;    /* the streaming-read kernel on the same bytes; a scan's copy of them */
    bool correct;
    bool wall_timed;     /* the device's profiling timestamps do not advance (rusticl):
                            best and median are a blocking call's wall times */
};

struct peer_row {
    char peer[32];
    clfold_type type;
    clfold_op op;        /* its "op", sum where it names none */
    const char *scan;    /* the plan's scan mode, which its row said; NULL for a reduction */
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

/* One device of a run: what -d called it, what it is, and what it gave. */
struct bench_device {
    char selector[128];              /* the word of -d that chose it; "" for the default device */
    char index[16];                  /* its P:D, as `clfold devices` numbers it; "" if unknown */
    struct device_summary summary;   /* its name is the selector until its context opens */
    char failure[1024];              /* why it stopped; "" when it ran through */
    int exit_status;
    struct bench_results *results;   /* what it measured, up to a failure */
};

struct bench_run {
    struct bench_device devices[BENCH_MAX_DEVICES];
    size_t n_devices;
};

/* 0, or -1 when full. */
int bench_add_row(struct bench_results *results, const struct bench_row *row);

/*
 * Says on stderr why the device failed, and keeps the first reason on one
 * line for its table and its JSON; returns `exit_status`.
 */
int bench_device_failed(struct bench_device *device, int exit_status, const char *reason);

/* The bytes one row moves: a reduction's input; a scan's input and its output of the result type. */
double bench_bytes(clfold_type type, clfold_op op, size_t n, bool scan);

/* The kernel's name: "k3", "auto", "blelloch", ... */
const char *bench_kernel_name(const struct bench_row *row);

/* Whether two rows ran the same kernel (a reduction's or a scan's). */
bool bench_same_kernel(const struct bench_row *a, const struct bench_row *b);

/*
 * The run's shape, as its JSON and `clfold compare` key rows by: "whole",
 * "8388608 x 32, axis 1", "3811 power-law segments, 1 to 2^20", or for
 * scans "inclusive scan" or "exclusive scan".
 */
void bench_shape_describe(const struct bench_plan *plan, char *buf, size_t cap);

#endif /* CLFOLD_CLI_BENCH_RUN_H */
