/*
 * bench_scan.c: `clfold bench --scan`: inclusive or exclusive scans of the
 * whole array (clfold_scan_buffer), timed as bench.c times reductions,
 * every output checked against the host reference, and held to the
 * device's own device-to-device copy of the same bytes; and the reference
 * and check that `clfold ladder --scan` shares.
 *
 * A scan of n elements reads n elements and writes n outputs of the result
 * type (integer sums in 64 bits, half in float): its GB/s count both, and
 * its roofline is a clEnqueueCopyBuffer of half that many bytes, which
 * reads and writes as many in all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common.h"
#include "reference.h"
#include "roofline.h"

#define COPY_RUNS 7
#define CHECK_CHUNK_BYTES ((size_t)16 << 20) /* outputs read back at a time */

double bench_bytes(clfold_type type, clfold_op op, size_t n, bool scan)
{
    clfold_type result = type;
    if (scan && clfold_result_type(type, op, &result) != CLFOLD_SUCCESS)
        result = type;
    return (double)n * (double)(clfold_type_size(type) + (scan ? clfold_type_size(result) : 0));
}

const char *bench_kernel_name(const struct bench_row *row)
{
    return row->scan != NULL ? clfold_scan_kernel_name(row->scan_kernel)
                             : clfold_kernel_name(row->kernel);
}

bool bench_same_kernel(const struct bench_row *a, const struct bench_row *b)
{
    return a->kernel == b->kernel && a->scan_kernel == b->scan_kernel;
}

/* ---- the host reference and the check ------------------------------------------ */

static bool is_float(clfold_type type)
{
    return type == CLFOLD_FLOAT || type == CLFOLD_DOUBLE;
}

int scan_reference_make(struct scan_reference *ref, const void *data, size_t n, clfold_type type,
                        clfold_op op, clfold_scan_mode mode)
{
    memset(ref, 0, sizeof *ref);
    ref->type = type;
    ref->op = op;
    ref->n = n;
    if (clfold_result_type(type, op, &ref->result) != CLFOLD_SUCCESS)
        return -1;
    bool floats = is_float(ref->result), sums = floats && op == CLFOLD_SUM;
    ref->out = malloc(n * clfold_type_size(ref->result) + 1);
    ref->exact = floats ? malloc(n * sizeof *ref->exact + 1) : NULL;
    ref->sum_abs = sums ? malloc(n * sizeof *ref->sum_abs + 1) : NULL;
    if (ref->out == NULL || (floats && ref->exact == NULL) || (sums && ref->sum_abs == NULL)) {
        cli_error("no host memory for the reference of %zu %s scan outputs", n,
                  clfold_type_name(ref->result));
        scan_reference_release(ref);
        return -1;
    }
    reference_scan(data, n, type, op, mode, ref->out, ref->exact, ref->sum_abs);
    return 0;
}

void scan_reference_release(struct scan_reference *ref)
{
    free(ref->out);
    free(ref->exact);
    free(ref->sum_abs);
    ref->out = NULL;
    ref->exact = ref->sum_abs = NULL;
}

/*
 * The outputs are poisoned in fills of at most 1 GiB: NVIDIA's driver never
 * finishes a fill of 2^31 bytes or more (tests/known-bugs/nvidia_fill_2gib.c),
 * which hung the bench's int32 and int8 sums of 2^28 elements (2 GiB of
 * 64-bit results).
 */
#define POISON_PIECE_BYTES ((size_t)1 << 30)

cl_int scan_poison(clfold_context *ctx, cl_mem out, size_t bytes)
{
    static const cl_uchar ONES = 0xff;
    cl_int err = CL_SUCCESS;
    for (size_t at = 0; at < bytes && err == CL_SUCCESS; at += POISON_PIECE_BYTES) {
        size_t piece = bytes - at < POISON_PIECE_BYTES ? bytes - at : POISON_PIECE_BYTES;
        err = clEnqueueFillBuffer(clfold_queue(ctx), out, &ONES, sizeof ONES, at, piece, 0, NULL,
                                  NULL);
    }
    return err == CL_SUCCESS ? clFinish(clfold_queue(ctx)) : err;
}

/* The bound output i is held to: 0 (the bits) for integers, min and max. */
static long double bound_of(const struct scan_reference *ref, clfold_accuracy accuracy, size_t i)
{
    if (ref->exact == NULL)
        return 0;
    return reference_scan_tolerance(ref->type, ref->op, accuracy, ref->n, ref->exact[i],
                                    ref->sum_abs != NULL ? ref->sum_abs[i] : 0);
}

/*
 * The bounds of reference_scan_tolerance() are c + a |S_i| + b A_i for a
 * given type, operator, accuracy and count; each costs a log2 to evaluate,
 * as long as the scan of 2^28 outputs takes, so the check first holds an
 * output to half of that sum, from c, a and b found once, and only asks
 * reference_scan_tolerance() where the output lies farther.
 */
struct quick_bound {
    long double c, a, b;
};

static struct quick_bound quick_bound_of(const struct scan_reference *ref, clfold_accuracy accuracy)
{
    struct quick_bound q = {0, 0, 0};
    if (ref->exact == NULL)
        return q;
    q.c = reference_scan_tolerance(ref->type, ref->op, accuracy, ref->n, 0, 0);
    q.a = reference_scan_tolerance(ref->type, ref->op, accuracy, ref->n, 1, 0) - q.c;
    q.b = reference_scan_tolerance(ref->type, ref->op, accuracy, ref->n, 0, 1) - q.c;
    return q;
}

/* Whether output i, `bytes` of the result type, is the reference's or within its bound. */
static bool output_ok(const struct scan_reference *ref, clfold_accuracy accuracy,
                      const struct quick_bound *quick, size_t i, const unsigned char *bytes,
                      const reference_value *want)
{
    reference_value got = {0};
    memcpy(got.bytes, bytes, clfold_type_size(ref->result));
    if (reference_equal(&got, want, ref->result))
        return true;
    if (ref->exact == NULL)
        return false;
    long double g = ref->result == CLFOLD_DOUBLE ? (long double)got.f64 : (long double)got.f32;
    long double exact = ref->exact[i], error = fabsl(g - exact);
    if (!isfinite(g) || !isfinite(exact))
        return false; /* equal specials were the same bits above */
    long double sum_abs = ref->sum_abs != NULL ? ref->sum_abs[i] : 0;
    if (error <= (quick->c + quick->a * fabsl(exact) + quick->b * sum_abs) / 2)
        return true;
    return error <= bound_of(ref, accuracy, i);
}

/* "output 17 is 8.5, not 8.25 (within 1.2e-06)": the first wrong one, for `why`. */
static void describe_wrong(const struct scan_reference *ref, clfold_accuracy accuracy, size_t i,
                           const unsigned char *bytes, const reference_value *want, char *why,
                           size_t cap)
{
    reference_value got = {0};
    char got_text[64], want_text[64];
    memcpy(got.bytes, bytes, clfold_type_size(ref->result));
    reference_format(got_text, sizeof got_text, &got, ref->result);
    reference_format(want_text, sizeof want_text, want, ref->result);
    if (ref->exact != NULL && ref->op == CLFOLD_SUM)
        snprintf(why, cap, "output %zu is %s, not %s (within %.3Lg)", i, got_text, want_text,
                 bound_of(ref, accuracy, i));
    else
        snprintf(why, cap, "output %zu is %s, not %s", i, got_text, want_text);
}

long scan_check(clfold_context *ctx, cl_mem out, const struct scan_reference *ref,
                clfold_accuracy accuracy, char *why, size_t cap)
{
    size_t size = clfold_type_size(ref->result), chunk = CHECK_CHUNK_BYTES / size;
    unsigned char *got = malloc(chunk * size);
    struct quick_bound quick = quick_bound_of(ref, accuracy);
    long wrong = 0;
    why[0] = '\0';
    if (got == NULL) {
        snprintf(why, cap, "no host memory to read the outputs back");
        return -1;
    }
    for (size_t first = 0; first < ref->n && wrong >= 0; first += chunk) {
        size_t count = ref->n - first < chunk ? ref->n - first : chunk;
        cl_int err = clEnqueueReadBuffer(clfold_queue(ctx), out, CL_TRUE, first * size,
                                         count * size, got, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            snprintf(why, cap, "reading the outputs back: %s",
                     clfold_status_string((clfold_status)err));
            wrong = -1;
            break;
        }
        for (size_t i = 0; i < count; i++) {
            reference_value want = {0};
            memcpy(want.bytes, (const unsigned char *)ref->out + (first + i) * size, size);
            if (output_ok(ref, accuracy, &quick, first + i, got + i * size, &want))
                continue;
            if (wrong++ == 0)
                describe_wrong(ref, accuracy, first + i, got + i * size, &want, why, cap);
        }
    }
    free(got);
    return wrong;
}

double scan_copy_ms(clfold_context *ctx, cl_mem src, cl_mem dst, size_t bytes)
{
    double best = -1;
    roofline_copy_ms(ctx, src, dst, bytes); /* a warm-up: the first copy pays for first touch */
    for (int run = 0; run < COPY_RUNS; run++) {
        double ms = roofline_copy_ms(ctx, src, dst, bytes);
        if (ms > 0 && (best < 0 || ms < best))
            best = ms;
    }
    return best;
}

/* ---- the bench's scans ---------------------------------------------------------- */

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
