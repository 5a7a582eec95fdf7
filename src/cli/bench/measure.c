/*
 * measure.c: `clfold bench` on one device: for each type of the plan, the
 * bench's data made and put on the device, then every size, operator and
 * kernel of a whole array timed (measure_time.c) and checked against the
 * host reference, beside what a plain streaming-read kernel reads of the
 * same bytes (roofline.c); a shape's or the segments' reductions handed to
 * measure_shapes.c, scans to measure_scan.c; then the peers beside it
 * (peers.c). Each row goes into the device's results; a device that fails
 * says why (run.c) and stops.
 *
 * May call (below it in src/cli/bench/): measure_shapes.c, measure_scan.c,
 * peers.c, measure_time.c, roofline.c, run.c.
 */
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "measure_scan.h"
#include "measure_shapes.h"
#include "measure_time.h"
#include "peers.h"
#include "reference.h"
#include "roofline.h"
#include "run.h"

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

int bench_measure_device(const struct cli_args *args, const struct bench_plan *plan,
                         clfold_context *plain, struct bench_device *device,
                         const struct loader_variables *loader)
{
    clfold_context *ctx = NULL;
    struct roofline *roofline = NULL;
    int exit_status = EXIT_OK;
    describe_device(clfold_device(plain), &device->summary);
    cli_device_index_of(clfold_device(plain), device->index, sizeof device->index);
    if (open_timed_beside(plain, &ctx) != EXIT_OK)
        return bench_device_failed(device, EXIT_CHECK_FAILED, "no profiling queue (said above)");
    if (plan->scan == NULL) /* scans are held to a copy instead (measure_scan.c) */
        roofline = roofline_create(ctx, auto_takes_cpu_shape(ctx, plan->types[0], &device->summary));
    for (size_t t = 0; t < plan->n_types && exit_status != EXIT_BAD_INPUT; t++) {
        int status = bench_type(ctx, plain, roofline, plan, plan->types[t], device);
        exit_status = status > exit_status ? status : exit_status;
    }
    roofline_destroy(roofline);
    clfold_destroy(ctx);
    loader_variables_restore(loader);
    int peers = bench_run_peers(args, plan, device);
    return peers > exit_status ? peers : exit_status;
}
