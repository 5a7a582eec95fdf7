/*
 * ladder.c: `clfold ladder`: runs Harris's seven kernels and the two
 * baselines (the host's sequential loop, the naive atomic kernel) on the
 * same data, checks each against the exact host reference, and prints his
 * table: time, bandwidth, step and cumulative speedup.
 *
 * Time is the device time of all passes of one reduction (event
 * profiling), the best of several runs after a warm-up that also builds the
 * kernel. Bandwidth counts the bytes the kernels read and write, as the
 * seed does: N reads plus one write per work-group, pass after pass.
 *
 * `clfold ladder --scan` is the scan ladder's table: Kogge-Stone, Blelloch,
 * padded Blelloch and the auto path, each scan's every output checked
 * (bench/scan_check.c). Its bandwidth counts what a scan must move, N
 * elements in and N outputs of the result type out, whatever its passes
 * move besides; its roofline is a device-to-device copy of as many bytes in
 * all, measured in the same run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/scan_check.h"
#include "commands.h"
#include "common.h"
#include "output.h"
#include "reference.h"
#include "timing.h"

#define MAX_RUNS 10
#define TIME_BUDGET_S 1.5

struct row {
    const char *kernel;       /* "host", "atomic", "k1".., or a scan's "kogge-stone".. */
    const char *description;
    double best_ms;
    double median_ms;
    double gbps;
    double step_speedup;      /* 0: not applicable */
    double cumulative;        /* K1's time over this one (the scan ladder's: Kogge-Stone's) */
    bool correct;
    const char *status;       /* "ok", or why it did not run */
    /* The scan ladder's besides: */
    double copy_ratio;        /* the copy's time over this one's; 0 where unmeasured */
    const char *path;         /* what ran: the kernel, or auto's "scan-gpu", "scan-cpu" */
    unsigned passes;          /* kernel launches of one scan */
    size_t block;             /* its work-group size */
};

/*
 * The steps of both ladders, each described once, in the order they run:
 * the reduction ladder's kernels, the scan ladder's (--scan), and auto, the
 * last step of each.
 */
static const struct step {
    bool reduce, scan;             /* on the reduction ladder, on the scan ladder */
    clfold_kernel kernel;          /* the reduction ladder's kernel */
    clfold_scan_kernel scan_kernel; /* the scan ladder's */
    const char *description;
} STEPS[] = {
    {.reduce = true, .kernel = CLFOLD_ATOMIC,
     .description = "naive: one global atomic per element"},
    {.reduce = true, .kernel = CLFOLD_K1,
     .description = "interleaved addressing, divergent branching"},
    {.reduce = true, .kernel = CLFOLD_K2,
     .description = "interleaved addressing, bank conflicts"},
    {.reduce = true, .kernel = CLFOLD_K3, .description = "sequential addressing"},
    {.reduce = true, .kernel = CLFOLD_K4, .description = "first add during global load"},
    {.reduce = true, .kernel = CLFOLD_K5, .description = "unroll last warp"},
    {.reduce = true, .kernel = CLFOLD_K6, .description = "complete unroll"},
    {.reduce = true, .kernel = CLFOLD_K7, .description = "multiple elements per thread"},
    {.scan = true, .scan_kernel = CLFOLD_SCAN_KOGGE_STONE,
     .description = "Kogge-Stone: an element a work-item, n log n"},
    {.scan = true, .scan_kernel = CLFOLD_SCAN_BLELLOCH,
     .description = "Blelloch: up-sweep, down-sweep, two a work-item"},
    {.scan = true, .scan_kernel = CLFOLD_SCAN_BLELLOCH_PADDED,
     .description = "Blelloch, local indices padded: no conflicts"},
    {.reduce = true, .scan = true, .kernel = CLFOLD_AUTO, .scan_kernel = CLFOLD_SCAN_AUTO,
     .description = "auto: clfold's path for this device"},
};

#define N_STEPS (sizeof STEPS / sizeof STEPS[0])

/* How many steps the scan ladder (`scan`) or the reduction ladder has. */
static size_t ladder_steps(bool scan)
{
    size_t count = 0;
    for (size_t i = 0; i < N_STEPS; i++)
        count += scan ? STEPS[i].scan : STEPS[i].reduce;
    return count;
}

/* splitmix64: a small generator whose every output bit is good. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/*
 * Deterministic data: integers with every bit random (the low bytes of a
 * 64-bit draw), floats and doubles in [0, 1), halves in [1, 2).
 */
static void *make_data(clfold_type type, size_t n)
{
    size_t size = clfold_type_size(type);
    unsigned char *data = malloc(n * size + 1);
    uint64_t state = 22;
    for (size_t i = 0; data != NULL && i < n; i++) {
        uint64_t bits = next_random(&state);
        float f = (float)(bits >> 40) * 0x1p-24f;
        double d = (double)(bits >> 11) * 0x1p-53;
        uint16_t h = (uint16_t)(0x3c00 | (bits & 0x3ff));
        const void *from = type == CLFOLD_FLOAT    ? (const void *)&f
                         : type == CLFOLD_DOUBLE   ? (const void *)&d
                         : type == CLFOLD_HALF     ? (const void *)&h
                                                   : (const void *)&bits;
        memcpy(data + i * size, from, size); /* integers: the low bytes on a little-endian host */
    }
    return data;
}

/* Times the host's sequential loop. */
static void measure_host(const void *data, const struct cli_args *args,
                         const reference_value *exact, long double sum_abs, struct row *row)
{
    double times[MAX_RUNS];
    int runs = 0;
    double start = now_seconds();
    reference_value value;
    row->correct = true;
    while (runs < MAX_RUNS && (runs < 3 || now_seconds() - start < TIME_BUDGET_S)) {
        double t0 = now_seconds();
        reference_sequential(data, args->n, args->type, args->op, &value);
        times[runs++] = (now_seconds() - t0) * 1e3;
        row->correct = row->correct && reference_close(&value, exact, args->type, args->op,
                                                       args->accuracy, args->n, sum_abs, true);
    }
    qsort(times, (size_t)runs, sizeof times[0], compare_doubles);
    row->best_ms = times[0];
    row->median_ms = times[runs / 2];
    row->gbps = (double)args->n * (double)clfold_type_size(args->type) / (row->best_ms * 1e6);
    row->status = "ok";
}

/* Runs one kernel: warm-up, then up to MAX_RUNS timed reductions. */
static clfold_status measure_kernel(clfold_context *ctx, cl_mem buffer, const struct cli_args *args,
                                    clfold_kernel kernel, const reference_value *exact,
                                    long double sum_abs, struct row *row)
{
    double times[MAX_RUNS];
    int runs = 0;
    clfold_run_info info = {0};
    reference_value value;
    bool sequential = kernel == CLFOLD_ATOMIC;
    clfold_status status = clfold_set_kernel(ctx, kernel, args->block);
    if (status == CLFOLD_SUCCESS)
        status = clfold_set_accuracy(ctx, args->accuracy);
    if (status == CLFOLD_SUCCESS)
        status = clfold_reduce_buffer(ctx, buffer, 0, args->n, args->type, args->op, &value);
    if (status != CLFOLD_SUCCESS)
        return status;
    row->correct = true;
    double start = now_seconds();
    while (runs < MAX_RUNS && (runs == 0 || now_seconds() - start < TIME_BUDGET_S)) {
        status = clfold_reduce_buffer(ctx, buffer, 0, args->n, args->type, args->op, &value);
        if (status == CLFOLD_SUCCESS)
            status = clfold_last_run(ctx, &info);
        if (status != CLFOLD_SUCCESS)
            return status;
        times[runs++] = info.device_ms;
        row->correct = row->correct && reference_close(&value, exact, args->type, args->op,
                                                       args->accuracy, args->n, sum_abs, sequential);
    }
    if (args->verbose)
        fprintf(stderr, "clfold: %s: %u passes, build options: %s\n", row->kernel, info.passes,
                clfold_last_build_options(ctx));
    qsort(times, (size_t)runs, sizeof times[0], compare_doubles);
    row->best_ms = times[0];
    row->median_ms = times[runs / 2];
    row->gbps = (double)(info.bytes_read + info.bytes_written) / (row->best_ms * 1e6);
    row->status = "ok";
    return CLFOLD_SUCCESS;
}

/* Step speedups from the row named `base` on (K1; the scan ladder's first), cumulative over it. */
static void fill_speedups(struct row *rows, size_t count, const char *base)
{
    struct row *k1 = NULL;
    for (size_t i = 0; i < count; i++)
        if (strcmp(rows[i].kernel, base) == 0 && strcmp(rows[i].status, "ok") == 0)
            k1 = &rows[i];
    for (size_t i = 0; i < count; i++) {
        struct row *row = &rows[i];
        bool ran = strcmp(row->status, "ok") == 0 && row->best_ms > 0;
        bool previous_ran = i > 0 && strcmp(rows[i - 1].status, "ok") == 0;
        row->cumulative = ran && k1 != NULL ? k1->best_ms / row->best_ms : 0;
        /* Steps run from K1 on: K2 over K1, ..., auto over K7. */
        bool after_k1 = k1 != NULL && row > k1;
        row->step_speedup = ran && after_k1 && previous_ran ? rows[i - 1].best_ms / row->best_ms : 0;
    }
}

static void print_table(const struct device_summary *device, const struct cli_args *args,
                        clfold_type result_type, const struct row *rows, size_t count)
{
    printf("Device:    %s (%s, driver %s)\n", device->name, device->platform, device->driver);
    printf("Reduction: %zu %s, %s (result %s), block %zu, accuracy %s\n\n", args->n,
           clfold_type_name(args->type), clfold_op_name(args->op), clfold_type_name(result_type),
           args->block, clfold_accuracy_name(args->accuracy));
    printf("%-7s %-46s %11s %12s %8s %11s  %s\n", "Kernel", "Description", "Time (ms)",
           "Bandwidth", "Step", "Cumulative", "Correct");
    printf("%-7s %-46s %11s %12s %8s %11s\n", "", "", "", "(GB/s)", "speedup", "speedup");
    for (size_t i = 0; i < count; i++) {
        const struct row *r = &rows[i];
        char step[16] = "", cumulative[16] = "";
        if (strcmp(r->status, "ok") != 0) {
            printf("%-7s %-46s %s\n", r->kernel, r->description, r->status);
            continue;
        }
        if (r->step_speedup > 0)
            snprintf(step, sizeof step, "%.2fx", r->step_speedup);
        if (r->cumulative > 0)
            snprintf(cumulative, sizeof cumulative, "%.2fx", r->cumulative);
        printf("%-7s %-46s %11.3f %12.3f %8s %11s  %s\n", r->kernel, r->description, r->best_ms,
               r->gbps, step, cumulative, r->correct ? "yes" : "NO");
    }
}

static void print_csv(const struct device_summary *device, const struct cli_args *args,
                      const struct row *rows, size_t count)
{
    printf("format_version,device,driver,n,type,op,block,kernel,ms,median_ms,gbps,step_speedup,"
           "cumulative_speedup,correct,status\n");
    for (size_t i = 0; i < count; i++) {
        const struct row *r = &rows[i];
        printf("1,\"%s\",\"%s\",%zu,%s,%s,%zu,%s,%.6f,%.6f,%.3f,%.4f,%.4f,%s,%s\n", device->name,
               device->driver, args->n, clfold_type_name(args->type), clfold_op_name(args->op),
               args->block, r->kernel, r->best_ms, r->median_ms, r->gbps, r->step_speedup,
               r->cumulative, r->correct ? "true" : "false", r->status);
    }
}

/* A speedup, or null where it does not apply. */
static void json_speedup(double value)
{
    if (value > 0)
        printf("%.4f", value);
    else
        printf("null");
}

static void print_json(const struct device_summary *device, const struct cli_args *args,
                       const struct row *rows, size_t count)
{
    printf("{\"format_version\": 1, \"device\": ");
    json_device(stdout, device);
    printf(", \"n\": %zu, \"type\": \"%s\", \"op\": \"%s\", \"block\": %zu, \"accuracy\": \"%s\", "
           "\"results\": [",
           args->n, clfold_type_name(args->type), clfold_op_name(args->op), args->block,
           clfold_accuracy_name(args->accuracy));
    for (size_t i = 0; i < count; i++) {
        const struct row *r = &rows[i];
        printf("%s\n  {\"kernel\": \"%s\", \"description\": ", i ? "," : "", r->kernel);
        json_string(stdout, r->description);
        printf(", \"ms\": %.6f, \"median_ms\": %.6f, \"gbps\": %.3f, \"step_speedup\": ", r->best_ms,
               r->median_ms, r->gbps);
        json_speedup(r->step_speedup);
        printf(", \"cumulative_speedup\": ");
        json_speedup(r->cumulative);
        printf(", \"correct\": %s, \"status\": ", r->correct ? "true" : "false");
        json_string(stdout, r->status);
        printf("}");
    }
    printf("\n]}\n");
}

/* Uploads the data once: the ladder times kernels, not transfers. */
static int upload(clfold_context *ctx, const void *data, size_t bytes, cl_mem *buffer)
{
    cl_int err = CL_SUCCESS;
    *buffer = cli_upload(ctx, data, bytes, &err);
    if (err != CL_SUCCESS) {
        cli_error("cannot upload %zu bytes to the device: %s", bytes,
                  clfold_status_string((clfold_status)err));
        return EXIT_CHECK_FAILED;
    }
    return EXIT_OK;
}

/* Runs every row; returns the exit status. */
static int run_rows(clfold_context *ctx, cl_mem buffer, const void *data,
                    const struct cli_args *args, struct row *rows)
{
    reference_value exact;
    long double sum_abs = 0;
    reference_reduce(data, args->n, args->type, args->op, &exact, &sum_abs);
    rows[0] = (struct row){.kernel = "host", .description = "host: sequential loop on the CPU"};
    measure_host(data, args, &exact, sum_abs, &rows[0]);
    struct row *row = &rows[0];
    for (const struct step *step = STEPS; step < STEPS + N_STEPS; step++) {
        if (!step->reduce)
            continue;
        row++;
        *row = (struct row){.kernel = clfold_kernel_name(step->kernel),
                            .description = step->description};
        clfold_status status = measure_kernel(ctx, buffer, args, step->kernel, &exact, sum_abs, row);
        bool atomic = step->kernel == CLFOLD_ATOMIC;
        if (status == CLFOLD_ERROR_INVALID_BLOCK_SIZE || (status == CLFOLD_ERROR_UNSUPPORTED && !atomic))
            return report_failure(ctx, status, row->kernel);
        if (status == CLFOLD_ERROR_UNSUPPORTED) {
            /* No 64-bit atomics on the device, exact sums, which need a tree, or an index. */
            row->status = cli_op_is_arg(args->op) ? "no index: one atomic word holds a value"
                        : args->accuracy == CLFOLD_ACCURACY_EXACT ? "no exact sums: arrival order"
                                                                  : "unsupported on this device";
            row->correct = true;
        } else if (status != CLFOLD_SUCCESS) {
            report_failure(ctx, status, row->kernel);
            row->status = clfold_status_string(status);
        }
    }
    return EXIT_OK;
}

/* ---- the scan ladder (--scan) ------------------------------------------------ */

/* What the scan ladder runs on: the request, the buffers, the reference, the roofline. */
struct scan_ladder {
    const struct cli_args *args;
    clfold_scan_mode mode;
    clfold_type result;
    size_t in_bytes, out_bytes;  /* what one scan must read and write */
    cl_mem in, out, copy;        /* the copy's destination: (in_bytes + out_bytes) / 2 */
    struct scan_reference ref;
    double copy_ms;              /* the best copy of (in_bytes + out_bytes) / 2; < 0 if none */
    size_t steps;                /* its rows: the scan steps of STEPS */
};

static clfold_status scan_once(clfold_context *ctx, const struct scan_ladder *ladder)
{
    const struct cli_args *args = ladder->args;
    return clfold_scan_buffer(ctx, ladder->in, 0, args->n, args->type, args->op, ladder->mode,
                              ladder->out, 0);
}

/* Fills the row from its sorted times and the last run; checks every output. */
static void finish_scan_row(clfold_context *ctx, const struct scan_ladder *ladder,
                            const double *times, int runs, const clfold_run_info *info,
                            struct row *row)
{
    char why[256];
    row->best_ms = times[0];
    row->median_ms = times[runs / 2];
    row->gbps = (double)(ladder->in_bytes + ladder->out_bytes) / (row->best_ms * 1e6);
    row->copy_ratio = ladder->copy_ms > 0 ? ladder->copy_ms / row->best_ms : 0;
    row->path = info->path;
    row->passes = info->passes;
    row->block = info->block_size;
    row->status = "ok";
    long wrong = scan_check(ctx, ladder->out, &ladder->ref, ladder->args->accuracy, why, sizeof why);
    row->correct = wrong == 0;
    if (wrong != 0)
        cli_error("%s: %s%s", row->kernel, why, wrong > 1 ? " (and more)" : "");
}

/* One scan kernel: its outputs poisoned, a warm-up, then up to MAX_RUNS timed scans. */
static clfold_status measure_scan(clfold_context *ctx, const struct scan_ladder *ladder,
                                  clfold_scan_kernel kernel, struct row *row)
{
    double times[MAX_RUNS];
    int runs = 0;
    clfold_run_info info = {0};
    clfold_status status = clfold_set_scan_kernel(ctx, kernel, ladder->args->block);
    if (status == CLFOLD_SUCCESS)
        status = clfold_set_accuracy(ctx, ladder->args->accuracy);
    if (status == CLFOLD_SUCCESS)
        status = (clfold_status)scan_poison(ctx, ladder->out, ladder->out_bytes);
    if (status == CLFOLD_SUCCESS)
        status = scan_once(ctx, ladder);
    double start = now_seconds();
    while (status == CLFOLD_SUCCESS && runs < MAX_RUNS &&
           (runs == 0 || now_seconds() - start < TIME_BUDGET_S)) {
        status = scan_once(ctx, ladder);
        if (status == CLFOLD_SUCCESS)
            status = clfold_last_run(ctx, &info);
        times[runs++] = info.device_ms;
    }
    if (status != CLFOLD_SUCCESS)
        return status;
    if (ladder->args->verbose)
        fprintf(stderr, "clfold: %s: path %s, %u passes, block %zu, build options: %s\n",
                row->kernel, info.path, info.passes, info.block_size, clfold_last_build_options(ctx));
    qsort(times, (size_t)runs, sizeof times[0], compare_doubles);
    finish_scan_row(ctx, ladder, times, runs, &info, row);
    return CLFOLD_SUCCESS;
}

/* Runs every step of the scan ladder; returns the exit status. */
static int run_scan_rows(clfold_context *ctx, const struct scan_ladder *ladder, struct row *rows,
                         char *auto_description, size_t cap)
{
    struct row *row = rows;
    for (const struct step *step = STEPS; step < STEPS + N_STEPS; step++) {
        if (!step->scan)
            continue;
        *row = (struct row){.kernel = clfold_scan_kernel_name(step->scan_kernel),
                            .description = step->description, .status = "not run"};
        clfold_status status = measure_scan(ctx, ladder, step->scan_kernel, row);
        if (status != CLFOLD_SUCCESS)
            return report_failure(ctx, status, row->kernel);
        if (step->scan_kernel == CLFOLD_SCAN_AUTO && row->path != NULL) {
            snprintf(auto_description, cap, "auto: clfold's path here, %s", row->path);
            row->description = auto_description;
        }
        row++;
    }
    return EXIT_OK;
}

/* A ratio as "0.93x", or "-" where there is none. */
static void format_ratio(double value, char *buf, size_t cap)
{
    if (value > 0)
        snprintf(buf, cap, "%.2fx", value);
    else
        snprintf(buf, cap, "-");
}

static void print_scan_table(const struct device_summary *device, const struct scan_ladder *ladder,
                             const struct row *rows)
{
    const struct cli_args *args = ladder->args;
    size_t copied = (ladder->in_bytes + ladder->out_bytes) / 2;
    printf("Device:    %s (%s, driver %s)\n", device->name, device->platform, device->driver);
    printf("Scan:      %zu %s, %s %s (result %s), block %s, accuracy %s\n", args->n,
           clfold_type_name(args->type), ladder->mode == CLFOLD_EXCLUSIVE ? "exclusive" : "inclusive",
           clfold_op_name(args->op), clfold_type_name(ladder->result),
           args->block ? "as -b says" : "clfold's", clfold_accuracy_name(args->accuracy));
    if (ladder->copy_ms > 0)
        printf("Roofline:  a device-to-device copy of %zu bytes, %.4f ms: %.3f GB/s read and "
               "written\n\n", copied, ladder->copy_ms,
               (double)(2 * copied) / (ladder->copy_ms * 1e6));
    else
        printf("Roofline:  the device-to-device copy could not be timed\n\n");
    printf("%-16s %-46s %10s %10s %7s %8s %10s %6s %5s  %s\n", "Kernel", "Description", "Time (ms)",
           "Bandwidth", "Of copy", "Step", "Cumulative", "Passes", "Block", "Correct");
    printf("%-16s %-46s %10s %10s %7s %8s %10s\n", "", "", "", "(GB/s)", "", "speedup", "speedup");
    for (size_t i = 0; i < ladder->steps; i++) {
        const struct row *r = &rows[i];
        char copy[16] = "-", step[16], cumulative[16];
        if (r->copy_ratio > 0) /* a percentage: on CPUs a scan is a small share of a copy */
            snprintf(copy, sizeof copy, "%.1f%%", 100 * r->copy_ratio);
        format_ratio(r->step_speedup, step, sizeof step);
        format_ratio(r->cumulative, cumulative, sizeof cumulative);
        printf("%-16s %-46s %10.3f %10.3f %7s %8s %10s %6u %5zu  %s\n", r->kernel, r->description,
               r->best_ms, r->gbps, copy, step, cumulative, r->passes, r->block,
               r->correct ? "yes" : "NO");
    }
}

static void print_scan_csv(const struct device_summary *device, const struct scan_ladder *ladder,
                           const struct row *rows)
{
    const struct cli_args *args = ladder->args;
    double copy_gbps = ladder->copy_ms > 0
                           ? (double)(ladder->in_bytes + ladder->out_bytes) / (ladder->copy_ms * 1e6)
                           : 0;
    printf("format_version,device,driver,n,type,op,scan,accuracy,kernel,path,passes,block,ms,"
           "median_ms,gbps,copy_gbps,copy_ratio,step_speedup,cumulative_speedup,correct,status\n");
    for (size_t i = 0; i < ladder->steps; i++) {
        const struct row *r = &rows[i];
        printf("1,");
        csv_string(stdout, device->name);
        putchar(',');
        csv_string(stdout, device->driver);
        printf(",%zu,%s,%s,%s,%s,%s,%s,%u,%zu,%.6f,%.6f,%.3f,%.3f,%.4f,%.4f,%.4f,%s,%s\n", args->n,
               clfold_type_name(args->type), clfold_op_name(args->op),
               ladder->mode == CLFOLD_EXCLUSIVE ? "exclusive" : "inclusive",
               clfold_accuracy_name(args->accuracy), r->kernel, r->path ? r->path : "", r->passes,
               r->block, r->best_ms, r->median_ms, r->gbps, copy_gbps, r->copy_ratio,
               r->step_speedup, r->cumulative, r->correct ? "true" : "false", r->status);
    }
}

static void print_scan_json(const struct device_summary *device, const struct scan_ladder *ladder,
                            const struct row *rows)
{
    const struct cli_args *args = ladder->args;
    size_t copied = (ladder->in_bytes + ladder->out_bytes) / 2;
    printf("{\"format_version\": 1, \"device\": ");
    json_device(stdout, device);
    printf(", \"n\": %zu, \"type\": \"%s\", \"op\": \"%s\", \"scan\": \"%s\", \"result_type\": "
           "\"%s\", \"block\": %zu, \"accuracy\": \"%s\", \"bytes\": %zu, \"copy\": {\"bytes\": "
           "%zu, \"ms\": ",
           args->n, clfold_type_name(args->type), clfold_op_name(args->op),
           ladder->mode == CLFOLD_EXCLUSIVE ? "exclusive" : "inclusive",
           clfold_type_name(ladder->result), args->block, clfold_accuracy_name(args->accuracy),
           ladder->in_bytes + ladder->out_bytes, copied);
    json_speedup(ladder->copy_ms);
    printf("}, \"results\": [");
    for (size_t i = 0; i < ladder->steps; i++) {
        const struct row *r = &rows[i];
        printf("%s\n  {\"kernel\": \"%s\", \"description\": ", i ? "," : "", r->kernel);
        json_string(stdout, r->description);
        printf(", \"path\": ");
        json_string(stdout, r->path ? r->path : "");
        printf(", \"passes\": %u, \"block\": %zu, \"ms\": %.6f, \"median_ms\": %.6f, \"gbps\": "
               "%.3f, \"copy_ratio\": ", r->passes, r->block, r->best_ms, r->median_ms, r->gbps);
        json_speedup(r->copy_ratio);
        printf(", \"step_speedup\": ");
        json_speedup(r->step_speedup);
        printf(", \"cumulative_speedup\": ");
        json_speedup(r->cumulative);
        printf(", \"correct\": %s, \"status\": ", r->correct ? "true" : "false");
        json_string(stdout, r->status);
        printf("}");
    }
    printf("\n]}\n");
}

/* The input uploaded, the outputs and the copy's destination; the copy timed. EXIT_OK or why not. */
static int scan_buffers(clfold_context *ctx, const void *data, struct scan_ladder *ladder)
{
    cl_int err = CL_SUCCESS;
    size_t copied = (ladder->in_bytes + ladder->out_bytes) / 2;
    int exit_status = upload(ctx, data, ladder->in_bytes, &ladder->in);
    if (exit_status != EXIT_OK)
        return exit_status;
    ladder->out = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_WRITE, ladder->out_bytes, NULL,
                                 &err);
    if (err == CL_SUCCESS)
        ladder->copy = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_WRITE, copied, NULL, &err);
    if (err != CL_SUCCESS) {
        cli_error("cannot hold the %zu outputs and their copy on the device: %s", ladder->args->n,
                  clfold_status_string((clfold_status)err));
        return EXIT_CHECK_FAILED;
    }
    /* The copy reads from the outputs' buffer, which is the larger (results are never narrower). */
    ladder->copy_ms = scan_copy_ms(ctx, ladder->out, ladder->copy, copied);
    return EXIT_OK;
}

static void print_scan_ladder(const struct device_summary *device, const struct scan_ladder *ladder,
                              const struct row *rows)
{
    if (ladder->args->format == FORMAT_JSON)
        print_scan_json(device, ladder, rows);
    else if (ladder->args->format == FORMAT_CSV)
        print_scan_csv(device, ladder, rows);
    else
        print_scan_table(device, ladder, rows);
}

/* What the scan ladder refuses before a device is opened. EXIT_OK or EXIT_BAD_INPUT (said). */
static int check_scan_request(const struct cli_args *args, clfold_type *result)
{
    if (cli_check_scans(args->op) != EXIT_OK)
        return EXIT_BAD_INPUT;
    if (clfold_result_type(args->type, args->op, result) != CLFOLD_SUCCESS) {
        cli_error("operator %s does not apply to %s", clfold_op_name(args->op),
                  clfold_type_name(args->type));
        return EXIT_BAD_INPUT;
    }
    if (args->n == 0) {
        cli_error("-n must be at least 1 for the ladder");
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

static int scan_ladder(const struct cli_args *args)
{
    struct scan_ladder ladder = {.args = args, .copy_ms = -1,
                                 .mode = args->exclusive ? CLFOLD_EXCLUSIVE : CLFOLD_INCLUSIVE,
                                 .steps = ladder_steps(true)};
    struct row rows[N_STEPS];
    struct device_summary device;
    char auto_description[64];
    clfold_context *ctx = NULL;
    void *data = NULL;
    int exit_status = check_scan_request(args, &ladder.result);
    if (exit_status != EXIT_OK)
        return exit_status;
    ladder.in_bytes = args->n * clfold_type_size(args->type);
    ladder.out_bytes = args->n * clfold_type_size(ladder.result);
    if ((exit_status = open_timed_context(args, &ctx)) != EXIT_OK)
        return exit_status;
    describe_device(clfold_device(ctx), &device);
    data = make_data(args->type, args->n);
    if (data == NULL || scan_reference_make(&ladder.ref, data, args->n, args->type, args->op,
                                            ladder.mode) != 0) {
        if (data == NULL)
            cli_error("no memory for %zu elements", args->n);
        exit_status = EXIT_BAD_INPUT;
        goto cleanup;
    }
    exit_status = scan_buffers(ctx, data, &ladder);
    if (exit_status == EXIT_OK)
        exit_status = run_scan_rows(ctx, &ladder, rows, auto_description, sizeof auto_description);
    if (exit_status != EXIT_OK)
        goto cleanup;
    fill_speedups(rows, ladder.steps, "kogge-stone");
    print_scan_ladder(&device, &ladder, rows);
    for (size_t i = 0; i < ladder.steps; i++)
        if (!rows[i].correct)
            exit_status = EXIT_CHECK_FAILED;
cleanup:
    if (ladder.in != NULL)
        clReleaseMemObject(ladder.in);
    if (ladder.out != NULL)
        clReleaseMemObject(ladder.out);
    if (ladder.copy != NULL)
        clReleaseMemObject(ladder.copy);
    scan_reference_release(&ladder.ref);
    free(data);
    clfold_destroy(ctx);
    return exit_status;
}

int command_ladder(const struct cli_args *args_in)
{
    struct cli_args args = *args_in;
    struct row rows[N_STEPS + 1]; /* the host's, then the reduction steps' */
    size_t count = 1 + ladder_steps(false);
    struct device_summary device;
    clfold_context *ctx = NULL;
    cl_mem buffer = NULL;
    void *data = NULL;
    clfold_type result_type;
    int exit_status = EXIT_OK;

    if (args.scan)
        return scan_ladder(&args);
    if (args.block == 0)
        args.block = 128; /* the seed's block size */
    if (clfold_result_type(args.type, args.op, &result_type) != CLFOLD_SUCCESS) {
        cli_error("operator %s does not apply to %s", clfold_op_name(args.op), clfold_type_name(args.type));
        return EXIT_BAD_INPUT;
    }
    if ((exit_status = open_timed_context(&args, &ctx)) != EXIT_OK)
        return exit_status;
    describe_device(clfold_device(ctx), &device);
    if (args.n == 0) {
        cli_error("-n must be at least 1 for the ladder");
        exit_status = EXIT_BAD_INPUT;
        goto cleanup;
    }
    data = make_data(args.type, args.n);
    if (data == NULL) {
        cli_error("no memory for %zu elements", args.n);
        exit_status = EXIT_BAD_INPUT;
        goto cleanup;
    }
    exit_status = upload(ctx, data, args.n * clfold_type_size(args.type), &buffer);
    if (exit_status != EXIT_OK)
        goto cleanup;
    if ((exit_status = run_rows(ctx, buffer, data, &args, rows)) != EXIT_OK)
        goto cleanup;
    fill_speedups(rows, count, "k1");
    if (args.format == FORMAT_JSON)
        print_json(&device, &args, rows, count);
    else if (args.format == FORMAT_CSV)
        print_csv(&device, &args, rows, count);
    else
        print_table(&device, &args, result_type, rows, count);
    for (size_t i = 0; i < count; i++)
        if (!rows[i].correct)
            exit_status = EXIT_CHECK_FAILED;
cleanup:
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    free(data);
    clfold_destroy(ctx);
    return exit_status;
}
