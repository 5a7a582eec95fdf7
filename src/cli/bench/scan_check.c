/*
 * scan_check.c: what `clfold bench --scan` and `clfold ladder --scan`
 * (src/cli/ladder.c) hold a scan to: the host reference of every output,
 * the poisoning of the outputs before a scan (one that leaves an output
 * unwritten then fails), the check of every output read back, and the
 * device-to-device copy of as many bytes that its bandwidth is measured
 * against.
 *
 * May call (below it in src/cli/bench/): roofline.c.
 */
#include "scan_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "reference.h"
#include "roofline.h"

#define COPY_RUNS 7
#define CHECK_CHUNK_BYTES ((size_t)16 << 20) /* outputs read back at a time */

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
