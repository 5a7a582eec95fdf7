/*
 * bench.h: what `clfold bench` measures and reports. bench.c chooses the
 * devices and measures; bench_shapes.c measures --shape and --segments,
 * bench_scan.c --scan; bench_report.c parses the plan, runs the peers and
 * prints tables; bench_document.c writes the versioned JSON and the CSV
 * (docs/bench-format.md); plot.c draws.
 */
#ifndef CLFOLD_CLI_BENCH_H
#define CLFOLD_CLI_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "output.h"

#define BENCH_MAX 64
#define BENCH_MAX_DEVICES 16

/* The JSON document's schema (bench/schema/clfold-bench-1.json) and the CSV's version. */
#define BENCH_SCHEMA_NAME "clfold-bench"
#define BENCH_SCHEMA_VERSION 1

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

/* One reduction of the bench on `ctx`: what bench_time times, on either context. */
typedef clfold_status (*bench_reduction)(clfold_context *ctx, void *call);

/*
 * Times reduce(ctx, call): device time (best and median) from `timed`,
 * whose queue profiles; end to end (median) from `plain`, a context as
 * clfold_create makes it, since profiling costs every call microseconds.
 * Two warm-up calls on each first. Fills *row from *spec with the times,
 * GB/s and the path that ran; the caller checks the result.
 */
clfold_status bench_time(clfold_context *timed, clfold_context *plain, bench_reduction reduce,
                         void *call, const struct bench_row *spec, struct bench_row *row);

/*
 * Says on stderr why the device failed, and keeps the first reason on one
 * line for its table and its JSON; returns `exit_status`.
 */
int bench_device_failed(struct bench_device *device, int exit_status, const char *reason);

/* Fills the plan from the command line; EXIT_OK or EXIT_BAD_INPUT (said on stderr). */
int bench_plan_parse(const struct cli_args *args, struct bench_plan *plan);

/* Releases what the plan holds (the segments' offsets and their file). */
void bench_plan_release(struct bench_plan *plan);

/* bench_shapes.c: --shape and --segments, the reductions with many results. */

/* Reads --shape, --axis and --segments into plan->shape (and its size); EXIT_OK or EXIT_BAD_INPUT. */
int bench_shape_parse(const struct cli_args *args, struct bench_plan *plan);

/*
 * Times the plan's shape over `buffer` (`data` on the host) as measure()
 * times a whole array: device time from `timed`, end to end from `plain`,
 * and a check of every result against the host reference.
 */
clfold_status bench_measure_shape(clfold_context *timed, clfold_context *plain, cl_mem buffer,
                                  const void *data, const struct bench_plan *plan,
                                  const struct bench_row *spec, struct bench_row *row);

/*
 * The run's shape, as its JSON and `clfold compare` key rows by: "whole",
 * "8388608 x 32, axis 1", "3811 power-law segments, 1 to 2^20", or for
 * scans "inclusive scan" or "exclusive scan".
 */
void bench_shape_describe(const struct bench_plan *plan, char *buf, size_t cap);

/* bench_scan.c: --scan, and the check that `clfold ladder --scan` shares. */

/* The bytes one row moves: a reduction's input; a scan's input and its output of the result type. */
double bench_bytes(clfold_type type, clfold_op op, size_t n, bool scan);

/* The kernel's name: "k3", "auto", "blelloch", ... */
const char *bench_kernel_name(const struct bench_row *row);

/* Whether two rows ran the same kernel (a reduction's or a scan's). */
bool bench_same_kernel(const struct bench_row *a, const struct bench_row *b);

/*
 * Every size, operator and kernel of the plan's scans of one type, whose
 * `data` are in `in` (as large as the largest size): each row timed as
 * bench_time times it, every output checked, and held to a device-to-device
 * copy of as many bytes. Returns the exit status; says why a device failed.
 */
int bench_scan_type(clfold_context *ctx, clfold_context *plain, const struct bench_plan *plan,
                    clfold_type type, const void *data, cl_mem in, struct bench_device *device);

/*
 * The host reference of a scan of data[0..n): every output, and for float
 * results the exact prefixes and (sums) the sums of |x| that their bounds
 * are measured from: 4 + 32 bytes an element for float sums, which is what
 * the check costs in host memory.
 */
struct scan_reference {
    clfold_type type, result;
    clfold_op op;
    size_t n;
    void *out;
    long double *exact;       /* NULL for integer results */
    long double *sum_abs;     /* NULL but for float sums */
};

/* 0, or -1 (out of host memory, said on stderr). */
int scan_reference_make(struct scan_reference *ref, const void *data, size_t n, clfold_type type,
                        clfold_op op, clfold_scan_mode mode);
void scan_reference_release(struct scan_reference *ref);

/*
 * Fills the first `bytes` of `out` with all-ones bytes (NaN, -1): a scan
 * that leaves outputs unwritten then fails the check. CL_SUCCESS or why not.
 */
cl_int scan_poison(clfold_context *ctx, cl_mem out, size_t bytes);

/*
 * Reads the reference's n outputs back from `out` and checks each: integers,
 * min and max to the bit, float sums and products within
 * reference_scan_tolerance() of their exact prefix at `accuracy`. Returns
 * how many are wrong, the first of them described in `why` (a line); -1 if
 * they could not be read (said in `why`).
 */
long scan_check(clfold_context *ctx, cl_mem out, const struct scan_reference *ref,
                clfold_accuracy accuracy, char *why, size_t cap);

/* The best of several copies of `bytes` from `src` to `dst` (roofline_copy_ms): its time, or < 0. */
double scan_copy_ms(clfold_context *ctx, cl_mem src, cl_mem dst, size_t bytes);

/* 0, or -1 when full. */
int bench_add_row(struct bench_results *results, const struct bench_row *row);

/*
 * Runs every --peer beside `device`: `command TYPE N... [SHAPE ARGS] [--op
 * OP]` for each type of the plan and each of its operators that peers time
 * (sum, argmin, argmax: --op for the last two), with CLFOLD_DEVICE set to
 * the device's P:D, and keeps its JSON rows of that type and operator. A
 * peer written "GPU:CMD", "CPU:CMD" or "accelerator:CMD" runs only beside
 * devices of that type. Returns EXIT_CHECK_FAILED where a peer could not
 * start or exited with a failure (said on stderr), else EXIT_OK.
 */
int bench_run_peers(const struct cli_args *args, const struct bench_plan *plan,
                     struct bench_device *device);

/* Every device's table (a failed one says why in its place), then with several a summary. */
void bench_print(const struct cli_args *args, const struct bench_plan *plan, const struct bench_run *run);

/* bench_document.c: --format json (one document, every device) and csv (the same rows, flat). */
void bench_print_document(const struct cli_args *args, const struct bench_plan *plan,
                          const struct bench_run *run);
void bench_print_csv(const struct bench_plan *plan, const struct bench_run *run);

/*
 * The side-by-side summary of several devices (merge.h), as `clfold
 * compare` would merge the run's JSON: a column per device, peers left out.
 * 0, or -1 (said on stderr).
 */
struct merge_table;
int bench_merge(const struct bench_plan *plan, const struct bench_run *run, struct merge_table *table);

/* Draws GB/s against size with gnuplot; 0, or -1 (said on stderr). */
int bench_plot(const char *path, const struct device_summary *device, const struct bench_results *results);

#endif /* CLFOLD_CLI_BENCH_H */
