/*
 * bench.c: `clfold bench`: sweeps sizes, types, operators and kernels on
 * one device and reports, per reduction: the device time (best and median
 * of one reduction's passes, first start to last end, on a profiling
 * queue), the end-to-end time of one call with the result on the host (on
 * a context as clfold_create makes it), GB/s of input read, and that as
 * a percentage of what a plain streaming-read kernel reads in the same run.
 * Every result is checked against the host reference (exit 1 if wrong).
 * Peer programs (--peer CMD, see bench/peers/) run on the same sizes; their
 * times, their own end-to-end times where they report them, and the
 * ratios to clfold's are printed beside, and --plot draws it. A device that
 * fails says why in its place, and the others still run. --scan times
 * scans instead (bench_scan.c), held to a device-to-device copy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench.h"
#include "commands.h"
#include "common.h"
#include "merge.h"
#include "output.h"
#include "reference.h"
#include "timing.h"
#include "roofline.h"

#define MAX_RUNS 30
#define TIME_BUDGET_S 0.5

/*
 * The bench's data, which every peer reproduces: element i is (i % 1000) /
 * 1000 for floats, i % 1000 - 500 for signed and i % 1000 for unsigned
 * integers (i % 100 - 50 and i % 200 for 8-bit ones).
 */
static void *make_data(clfold_type type, size_t n)
{
    size_t size = clfold_type_size(type);
    unsigned char *data = malloc(n * size + 1);
    for (size_t i = 0; data != NULL && i < n; i++) {
        unsigned k = (unsigned)(i % 1000);
        float f = (float)k / 1000.0f;
        double d = (double)k / 1000.0;
        int64_t v = type == CLFOLD_INT8 ? (int64_t)(i % 100) - 50
                  : type == CLFOLD_UINT8 ? (int64_t)(i % 200)
                  : type == CLFOLD_INT16 || type == CLFOLD_INT32 || type == CLFOLD_INT64 ? (int64_t)k - 500
                                                                                          : (int64_t)k;
        uint16_t h = (uint16_t)(k == 0 ? 0 : 0x3c00 | (k % 1024)); /* halves in [1, 2), and 0 */
        const void *from = type == CLFOLD_FLOAT ? (const void *)&f : type == CLFOLD_DOUBLE ? (const void *)&d
                         : type == CLFOLD_HALF ? (const void *)&h : (const void *)&v;
        memcpy(data + i * size, from, size); /* integers: low bytes, little-endian host */
    }
    return data;
}

/* Sets the kernel and accuracy of the row on `ctx`. */
static clfold_status configure(clfold_context *ctx, const struct bench_row *spec,
                               clfold_accuracy accuracy)
{
    clfold_status status = clfold_set_kernel(ctx, spec->kernel, 0);
    return status == CLFOLD_SUCCESS ? clfold_set_accuracy(ctx, accuracy) : status;
}

clfold_status bench_time(clfold_context *timed, clfold_context *plain, bench_reduction reduce,
                         void *call, const struct bench_row *spec, struct bench_row *row)
{
    double device[MAX_RUNS], e2e[MAX_RUNS];
    int runs = 0, e2e_runs = 0;
    clfold_run_info info = {0};
    clfold_status status = CLFOLD_SUCCESS;
    for (int warm = 0; warm < 2 && status == CLFOLD_SUCCESS; warm++) {
        status = reduce(timed, call);
        if (status == CLFOLD_SUCCESS)
            status = reduce(plain, call);
    }
    double start = now_seconds();
    while (status == CLFOLD_SUCCESS && runs < MAX_RUNS &&
           (runs < 3 || now_seconds() - start < TIME_BUDGET_S)) {
        status = reduce(timed, call);
        if (status == CLFOLD_SUCCESS)
            status = clfold_last_run(timed, &info);
        device[runs++] = info.device_ms;
    }
    start = now_seconds();
    while (status == CLFOLD_SUCCESS && e2e_runs < MAX_RUNS &&
           (e2e_runs < 3 || now_seconds() - start < TIME_BUDGET_S)) {
        double t0 = now_seconds();
        status = reduce(plain, call);
        e2e[e2e_runs++] = (now_seconds() - t0) * 1e3;
    }
    if (status != CLFOLD_SUCCESS)
        return status;
    qsort(device, (size_t)runs, sizeof device[0], compare_doubles);
    qsort(e2e, (size_t)e2e_runs, sizeof e2e[0], compare_doubles);
    *row = *spec;
    /*
     * A device whose profiling timestamps do not advance (Mesa's rusticl
     * gives a command an end 1 ns after its start) has no device time: the
     * blocking call's wall time stands in, launch to value, said as such.
     * No launch takes under a microsecond of device time (the H100's
     * shortest: 3.7 us).
     */
    row->wall_timed = device[runs - 1] < NO_DEVICE_TIME_MS;
    row->best_ms = row->wall_timed ? e2e[0] : device[0];
    row->median_ms = row->wall_timed ? e2e[e2e_runs / 2] : device[runs / 2];
    row->e2e_ms = e2e[e2e_runs / 2];
    row->gbps = (double)spec->n * (double)clfold_type_size(spec->type) / (row->best_ms * 1e6);
    row->path = info.path;
    return CLFOLD_SUCCESS;
}

/* A whole-array reduction of the bench: its buffer, its row, and the value it gives. */
struct whole_call {
    cl_mem buffer;
    const struct bench_row *spec;
    reference_value value;
};

static clfold_status reduce_whole(clfold_context *ctx, void *call)
{
    struct whole_call *whole = call;
    const struct bench_row *spec = whole->spec;
    return clfold_reduce_buffer(ctx, whole->buffer, 0, spec->n, spec->type, spec->op,
                                &whole->value);
}

/* Times one (kernel, n) on the device buffer (bench_time) and checks the result. */
static clfold_status measure(clfold_context *timed, clfold_context *plain, cl_mem buffer,
                             const void *data, const struct bench_row *spec,
                             clfold_accuracy accuracy, struct bench_row *row)
{
    struct whole_call call = {buffer, spec, {0}};
    reference_value exact;
    long double sum_abs = 0;
    clfold_status status = configure(timed, spec, accuracy);
    if (status == CLFOLD_SUCCESS)
        status = configure(plain, spec, accuracy);
    if (status == CLFOLD_SUCCESS)
        status = bench_time(timed, plain, reduce_whole, &call, spec, row);
    if (status != CLFOLD_SUCCESS)
        return status;
    reference_reduce(data, spec->n, spec->type, spec->op, &exact, &sum_abs);
    row->correct = reference_close(&call.value, &exact, spec->type, spec->op, accuracy, spec->n,
                                   sum_abs, spec->kernel == CLFOLD_ATOMIC);
    return CLFOLD_SUCCESS;
}

/* Best of several streaming reads of the same bytes (roofline.c's wall time where no device time). */
static double read_gbps(struct roofline *roofline, cl_mem buffer, size_t bytes)
{
    double best = -1;
    for (int run = 0; roofline != NULL && run < 7; run++) {
        double ms = roofline_read_ms(roofline, buffer, bytes);
        if (ms > 0 && (best < 0 || ms < best))
            best = ms;
    }
    return best > 0 ? (double)bytes / (best * 1e6) : 0;
}

/* A build log's lines are joined into the one line kept. */
int bench_device_failed(struct bench_device *device, int exit_status, const char *reason)
{
    cli_error("%s: %s", device->summary.name, reason);
    if (device->failure[0] != '\0')
        return exit_status;
    snprintf(device->failure, sizeof device->failure, "%s", reason);
    for (char *c = device->failure; *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    return exit_status;
}

/* Every size, operator and kernel for one type. Returns the exit status. */
static int bench_type(clfold_context *ctx, clfold_context *plain, struct roofline *roofline,
                      const struct bench_plan *plan, clfold_type type, struct bench_device *device)
{
    struct bench_results *results = device->results;
    char reason[1024];
    size_t largest = plan->sizes[plan->n_sizes - 1];
    void *data = make_data(type, largest);
    cl_mem buffer = data != NULL ? cli_upload(ctx, data, largest * clfold_type_size(type), NULL)
                                 : NULL;
    int exit_status = EXIT_OK;
    if (buffer == NULL) {
        snprintf(reason, sizeof reason, "cannot hold %zu %s values on the device", largest,
                 clfold_type_name(type));
        free(data);
        return bench_device_failed(device, EXIT_CHECK_FAILED, reason);
    }
    if (plan->scan != NULL) {
        exit_status = bench_scan_type(ctx, plain, plan, type, data, buffer, device);
        goto cleanup;
    }
    for (size_t s = 0; s < plan->n_sizes; s++) {
        double read = read_gbps(roofline, buffer, plan->sizes[s] * clfold_type_size(type));
        for (size_t o = 0; o < plan->n_ops; o++) {
            for (size_t k = 0; k < plan->n_kernels; k++) {
                struct bench_row spec = {.type = type, .op = plan->ops[o], .n = plan->sizes[s],
                                         .kernel = plan->kernels[k]}, row;
                clfold_status status =
                    plan->shape.kind == SHAPE_WHOLE
                        ? measure(ctx, plain, buffer, data, &spec, plan->accuracy, &row)
                        : bench_measure_shape(ctx, plain, buffer, data, plan, &spec, &row);
                if (status != CLFOLD_SUCCESS) {
                    char doing[96];
                    snprintf(doing, sizeof doing, "%s %s %s", clfold_type_name(type),
                             clfold_op_name(spec.op), clfold_kernel_name(spec.kernel));
                    exit_status = describe_failure(ctx, status, doing, reason, sizeof reason);
                    bench_device_failed(device, exit_status, reason);
                    goto cleanup;
                }
                row.read_gbps = read;
                if (!row.correct)
                    exit_status = EXIT_CHECK_FAILED;
                if (bench_add_row(results, &row) != 0) {
                    exit_status = bench_device_failed(device, EXIT_BAD_INPUT, "too many results");
                    goto cleanup;
                }
            }
        }
    }
cleanup:
    clReleaseMemObject(buffer);
    free(data);
    return exit_status;
}

/*
 * Whether the auto path reads this device as a CPU, as the library decides
 * it (CLFOLD_AUTO_SHAPE included): asked by one small reduction of the first
 * type, whose kernel the bench builds anyway. The roofline reads as it does.
 */
static bool auto_takes_cpu_shape(clfold_context *ctx, clfold_type type, const struct device_summary *device)
{
    static const unsigned char zeros[4096 * sizeof(double)];
    unsigned char value[16];
    clfold_run_info info;
    if (clfold_set_kernel(ctx, CLFOLD_AUTO, 0) == CLFOLD_SUCCESS &&
        clfold_reduce_host(ctx, zeros, 4096, type, CLFOLD_SUM, value) == CLFOLD_SUCCESS &&
        clfold_last_run(ctx, &info) == CLFOLD_SUCCESS && info.path != NULL)
        return strcmp(info.path, "cpu") == 0;
    return strcmp(device->type, "CPU") == 0;
}

/*
 * The OpenCL loader's variables as the runner found them. Something in the
 * process may rewrite them once OpenCL starts: on the lent H100 machine,
 * OCL_ICD_FILENAMES="libpocl.so.2:libnvidia-opencl.so.1" becomes
 * "libpocl.so.2", and a peer that uses OpenCL itself (clfold_peer.py) then
 * finds no NVIDIA device. Peers start with the values as found.
 */
static const char *const LOADER_VARIABLES[] = {"OCL_ICD_FILENAMES", "OCL_ICD_VENDORS"};
#define N_LOADER_VARIABLES (sizeof LOADER_VARIABLES / sizeof LOADER_VARIABLES[0])

static void loader_save(char **saved)
{
    for (size_t v = 0; v < N_LOADER_VARIABLES; v++) {
        const char *value = getenv(LOADER_VARIABLES[v]);
        saved[v] = value != NULL ? strdup(value) : NULL;
    }
}

static void loader_restore(char *const *saved)
{
    for (size_t v = 0; v < N_LOADER_VARIABLES; v++) {
        if (saved[v] != NULL)
            setenv(LOADER_VARIABLES[v], saved[v], 1);
        else
            unsetenv(LOADER_VARIABLES[v]);
    }
}

static void loader_free(char **saved)
{
    for (size_t v = 0; v < N_LOADER_VARIABLES; v++) {
        free(saved[v]);
        saved[v] = NULL;
    }
}

/* A device of the run, by the selector that chose it; -1 when there are too many. */
static int add_device(struct bench_run *run, const char *selector, size_t length)
{
    if (run->n_devices == BENCH_MAX_DEVICES)
        return -1;
    struct bench_device *device = &run->devices[run->n_devices];
    memset(device, 0, sizeof *device);
    snprintf(device->selector, sizeof device->selector, "%.*s", (int)length, selector);
    /* From the caller's text, not device->selector: gcc's -Wrestrict sees one object. */
    if (length > 0)
        snprintf(device->summary.name, sizeof device->summary.name, "%.*s", (int)length, selector);
    else
        snprintf(device->summary.name, sizeof device->summary.name, "default device");
    device->summary.type = "other";
    device->results = calloc(1, sizeof *device->results);
    if (device->results == NULL)
        return -1;
    run->n_devices++;
    return 0;
}

/* -d: the default device, "all" (every P:D), or a comma list of selectors. EXIT_OK or EXIT_BAD_INPUT. */
static int select_devices(const char *text, struct bench_run *run)
{
    char indices[BENCH_MAX_DEVICES][16];
    if (text == NULL)
        return add_device(run, "", 0) == 0 ? EXIT_OK : EXIT_CHECK_FAILED;
    if (strcasecmp(text, "all") == 0) {
        int count = cli_device_indices(indices, BENCH_MAX_DEVICES, CL_DEVICE_TYPE_ALL);
        for (int i = 0; i < count; i++)
            if (add_device(run, indices[i], strlen(indices[i])) != 0)
                return EXIT_CHECK_FAILED;
        if (count == 0)
            cli_error("-d all: no OpenCL device found (see clfold devices)");
        return count > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    for (const char *item = text;; item++) {
        size_t length = strcspn(item, ",");
        if (length == 0) {
            cli_error("-d \"%s\": an empty selector in the list", text);
            return EXIT_BAD_INPUT;
        }
        if (add_device(run, item, length) != 0) {
            cli_error("-d \"%s\": at most %d devices", text, BENCH_MAX_DEVICES);
            return EXIT_BAD_INPUT;
        }
        item += length;
        if (*item == '\0')
            return EXIT_OK;
    }
}

/* Times the plan on one device of the run; returns its exit status. */
static int bench_device(const struct cli_args *args, const struct bench_plan *plan,
                        clfold_context *plain, struct bench_device *device, char *const *loader)
{
    clfold_context *ctx = NULL;
    struct roofline *roofline = NULL;
    int exit_status = EXIT_OK;
    describe_device(clfold_device(plain), &device->summary);
    cli_device_index_of(clfold_device(plain), device->index, sizeof device->index);
    if (open_timed_beside(plain, &ctx) != EXIT_OK)
        return bench_device_failed(device, EXIT_CHECK_FAILED, "no profiling queue (said above)");
    if (plan->scan == NULL) /* scans are held to a copy instead (bench_scan.c) */
        roofline = roofline_create(ctx, auto_takes_cpu_shape(ctx, plan->types[0], &device->summary));
    for (size_t t = 0; t < plan->n_types && exit_status != EXIT_BAD_INPUT; t++) {
        int status = bench_type(ctx, plain, roofline, plan, plan->types[t], device);
        exit_status = status > exit_status ? status : exit_status;
    }
    roofline_destroy(roofline);
    clfold_destroy(ctx);
    loader_restore(loader);
    int peers = bench_run_peers(args, plan, device);
    return peers > exit_status ? peers : exit_status;
}

static void release_run(struct bench_run *run, clfold_context **plain)
{
    for (size_t d = 0; d < run->n_devices; d++) {
        clfold_destroy(plain[d]);
        free(run->devices[d].results);
    }
}

/* --plot: the one device's lines, or with several the summary's, a line per device. */
static int plot_run(const char *path, const struct bench_plan *plan, const struct bench_run *run)
{
    struct merge_table table = {0};
    int status = -1;
    if (run->n_devices == 1)
        return bench_plot(path, &run->devices[0].summary, run->devices[0].results);
    if (bench_merge(plan, run, &table) == 0)
        status = merge_plot(&table, path, "clfold bench: GB/s on each device");
    merge_release(&table);
    return status;
}

int command_bench(const struct cli_args *args)
{
    char *loader[N_LOADER_VARIABLES];
    struct bench_plan plan;
    static struct bench_run run;
    clfold_context *plain[BENCH_MAX_DEVICES] = {0};
    loader_save(loader);
    run.n_devices = 0;
    int exit_status = bench_plan_parse(args, &plan);
    if (exit_status == EXIT_OK)
        exit_status = select_devices(args->device, &run);
    /* Every selector first: one that names no device is bad usage, before anything runs. */
    for (size_t d = 0; d < run.n_devices && exit_status == EXIT_OK; d++) {
        struct bench_device *device = &run.devices[d];
        int opened = open_selected(device->selector[0] ? device->selector : NULL, &plain[d]);
        if (opened == EXIT_BAD_INPUT || (opened != EXIT_OK && run.n_devices == 1))
            exit_status = opened;
        else if (opened != EXIT_OK)
            bench_device_failed(device, EXIT_CHECK_FAILED, clfold_last_error(NULL));
    }
    bool ran = exit_status == EXIT_OK;
    for (size_t d = 0; d < run.n_devices && ran; d++) {
        struct bench_device *device = &run.devices[d];
        device->exit_status = plain[d] == NULL ? EXIT_CHECK_FAILED
                            : bench_device(args, &plan, plain[d], device, loader);
        /* Beside other devices, one that cannot run the plan is a failure, not bad usage. */
        int status = run.n_devices > 1 && device->exit_status == EXIT_BAD_INPUT ? EXIT_CHECK_FAILED
                                                                               : device->exit_status;
        exit_status = status > exit_status ? status : exit_status;
    }
    loader_restore(loader);
    loader_free(loader);
    if (ran) {
        bench_print(args, &plan, &run);
        if (args->plot != NULL && plot_run(args->plot, &plan, &run) != 0)
            exit_status = exit_status > EXIT_CHECK_FAILED ? exit_status : EXIT_CHECK_FAILED;
    }
    release_run(&run, plain);
    bench_plan_release(&plan);
    return exit_status;
}
