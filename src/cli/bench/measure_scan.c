/*
 * measure_scan.c: `clfold bench --scan`: inclusive or exclusive scans of
 * the whole array (clfold_scan_buffer), timed as measure.c times
 * reductions (measure_time.c), every output checked against the host
 * reference, and held to the device's own device-to-device copy of the
 * same bytes (scan_check.c).
 *
 * A scan of n elements reads n elements and writes n outputs of the result
 * type (integer sums in 64 bits, half in float): its GB/s count both, and
 * its roofline is a clEnqueueCopyBuffer of half that many bytes, which
 * reads and writes as many in all.
 *
 * May call (below it in src/cli/bench/): measure_time.c, scan_check.c, run.c.
 */
#include "measure_scan.h"

#include <stdio.h>

#include "common.h"
#include "measure_time.h"
#include "run.h"
#include "scan_check.h"

/* One scan of the bench: its buffers, its row and its mode. */
struct scan_call {
    cl_mem in, out;
    const struct bench_row *spec;
    clfold_scan_mode mode;
};

static clfold_status scan_whole(clfold_context *ctx, void *arg)
{
    const struct scan_call *call = arg;
    const struct bench_row *spec = call->spec;
    return clfold_scan_buffer(ctx, call->in, 0, spec->n, spec->type, spec->op, call->mode,
                              call->out, 0);
}

static clfold_status configure(clfold_context *ctx, const struct bench_row *spec,
                               clfold_accuracy accuracy)
{
    clfold_status status = clfold_set_scan_kernel(ctx, spec->scan_kernel, 0);
    return status == CLFOLD_SUCCESS ? clfold_set_accuracy(ctx, accuracy) : status;
}

/*
 * Times one (kernel, n) into *row (bench_time), its output first poisoned,
 * and checks every output; a wrong one is said on stderr.
 */
static clfold_status measure(clfold_context *timed, clfold_context *plain, cl_mem in, cl_mem out,
                             const struct scan_reference *ref, const struct bench_plan *plan,
                             const struct bench_row *spec, struct bench_row *row)
{
    struct scan_call call = {in, out, spec, plan->scan_mode};
    char why[256];
    clfold_status status = configure(timed, spec, plan->accuracy);
    if (status == CLFOLD_SUCCESS)
        status = configure(plain, spec, plan->accuracy);
    if (status == CLFOLD_SUCCESS)
        status = (clfold_status)scan_poison(timed, out, spec->n * clfold_type_size(ref->result));
    if (status == CLFOLD_SUCCESS)
        status = bench_time(timed, plain, scan_whole, &call, spec, row);
    if (status != CLFOLD_SUCCESS)
        return status;
    row->gbps = bench_bytes(spec->type, spec->op, spec->n, true) / (row->best_ms * 1e6);
    long wrong = scan_check(timed, out, ref, plan->accuracy, why, sizeof why);
    row->correct = wrong == 0;
    if (wrong != 0)
        cli_error("%s %s %s scan, %s, n %zu: %s%s", clfold_type_name(spec->type),
                  plan->scan, clfold_op_name(spec->op), bench_kernel_name(spec), spec->n, why,
                  wrong > 1 ? " (and more)" : "");
    return CLFOLD_SUCCESS;
}

/*
 * The output buffer for the plan's largest size and widest result, and the
 * copy's destination: the copy reads (in + out) / 2 bytes of `out`, which
 * holds them (a result is never narrower than its element). 0, or -1 (said).
 */
static int make_buffers(clfold_context *ctx, const struct bench_plan *plan, clfold_type type,
                        struct bench_device *device, cl_mem *out, cl_mem *copy)
{
    size_t largest = plan->sizes[plan->n_sizes - 1], widest = 0, copied = 0;
    char reason[256];
    cl_int err = CL_SUCCESS;
    for (size_t o = 0; o < plan->n_ops; o++) {
        clfold_type result;
        size_t half = (size_t)bench_bytes(type, plan->ops[o], largest, true) / 2;
        clfold_result_type(type, plan->ops[o], &result);
        widest = clfold_type_size(result) > widest ? clfold_type_size(result) : widest;
        copied = half > copied ? half : copied;
    }
    cl_context cl = clfold_cl_context(ctx);
    *out = clCreateBuffer(cl, CL_MEM_READ_WRITE, largest * widest, NULL, &err);
    if (err == CL_SUCCESS)
        *copy = clCreateBuffer(cl, CL_MEM_READ_WRITE, copied, NULL, &err);
    if (err == CL_SUCCESS)
        return 0;
    snprintf(reason, sizeof reason, "cannot hold the %zu %s outputs of a scan and their copy "
             "on the device: %s", largest, clfold_type_name(type),
             clfold_status_string((clfold_status)err));
    bench_device_failed(device, EXIT_CHECK_FAILED, reason);
    return -1;
}

/* Every kernel of one size and operator; returns the exit status. */
static int scan_kernels(clfold_context *ctx, clfold_context *plain, const struct bench_plan *plan,
                        const struct bench_row *base, const struct scan_reference *ref, cl_mem in,
                        cl_mem out, double copy_gbps, struct bench_device *device)
{
    int exit_status = EXIT_OK;
    for (size_t k = 0; k < plan->n_kernels; k++) {
        struct bench_row spec = *base, row;
        char reason[1024];
        spec.scan_kernel = plan->scan_kernels[k];
        clfold_status status = measure(ctx, plain, in, out, ref, plan, &spec, &row);
        if (status != CLFOLD_SUCCESS) {
            char doing[96];
            snprintf(doing, sizeof doing, "%s %s %s scan %s", clfold_type_name(spec.type),
                     plan->scan, clfold_op_name(spec.op), bench_kernel_name(&spec));
            exit_status = describe_failure(ctx, status, doing, reason, sizeof reason);
            return bench_device_failed(device, exit_status, reason);
        }
        row.read_gbps = copy_gbps;
        if (!row.correct)
            exit_status = EXIT_CHECK_FAILED;
        if (bench_add_row(device->results, &row) != 0)
            return bench_device_failed(device, EXIT_BAD_INPUT, "too many results");
    }
    return exit_status;
}

int bench_scan_type(clfold_context *ctx, clfold_context *plain, const struct bench_plan *plan,
                    clfold_type type, const void *data, cl_mem in, struct bench_device *device)
{
    cl_mem out = NULL, copy = NULL;
    int exit_status = EXIT_OK;
    if (make_buffers(ctx, plan, type, device, &out, &copy) != 0) {
        exit_status = EXIT_CHECK_FAILED;
        goto cleanup;
    }
    for (size_t s = 0; s < plan->n_sizes; s++) {
        for (size_t o = 0; o < plan->n_ops; o++) {
            struct bench_row base = {.type = type, .op = plan->ops[o], .n = plan->sizes[s],
                                     .kernel = CLFOLD_AUTO, .scan = plan->scan};
            struct scan_reference ref;
            double bytes = bench_bytes(type, base.op, base.n, true);
            double copy_ms = scan_copy_ms(ctx, out, copy, (size_t)bytes / 2);
            if (scan_reference_make(&ref, data, base.n, type, base.op, plan->scan_mode) != 0) {
                exit_status = bench_device_failed(device, EXIT_CHECK_FAILED, "out of host memory");
                goto cleanup;
            }
            int status = scan_kernels(ctx, plain, plan, &base, &ref, in, out,
                                      copy_ms > 0 ? bytes / (copy_ms * 1e6) : 0, device);
            scan_reference_release(&ref);
            exit_status = status > exit_status ? status : exit_status;
            if (device->failure[0] != '\0')
                goto cleanup;
        }
    }
cleanup:
    if (out != NULL)
        clReleaseMemObject(out);
    if (copy != NULL)
        clReleaseMemObject(copy);
    return exit_status;
}
