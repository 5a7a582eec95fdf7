/*
 * reduce_command.c: `clfold reduce FILE`: reduces a .npy file on a device,
 * whole, along axes (--axis) or over segments (--segments), and prints the
 * results one per line on stdout, or writes them to a .npy file (-O).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axes.h"
#include "commands.h"
#include "common.h"
#include "npy.h"
#include "reference.h"

/* What a reduction produced: `count` results of `type` in the kept shape. */
struct results {
    clfold_type type;
    size_t ndim;
    size_t shape[NPY_MAX_DIMS];
    size_t count;
    void *values; /* malloc'ed */
};

static int out_of_memory(void)
{
    cli_error("out of host memory");
    return EXIT_CHECK_FAILED;
}

/* Room for `count` results; the caller has set out->type. */
static int allocate_results(struct results *out, size_t count)
{
    out->count = count;
    out->values = malloc(count > 0 ? count * clfold_type_size(out->type) : 1);
    return out->values != NULL ? EXIT_OK : out_of_memory();
}

/*
 * The whole array to one value, a 0-d result. An argmin or argmax is the
 * index into the C-order ravel, as NumPy's, so a Fortran-order array is
 * made C-order first: mapping the index of its own order would not do,
 * since of equal elements the first in C order must win.
 */
static int reduce_whole(const struct cli_args *args, clfold_context *ctx,
                        struct npy_array *array, struct results *out)
{
    if (cli_check_identity(args->op, array->count) != EXIT_OK)
        return EXIT_BAD_INPUT;
    if (cli_op_is_arg(args->op) && axes_to_c_order(array) != 0)
        return out_of_memory();
    int exit_status = allocate_results(out, 1);
    if (exit_status != EXIT_OK)
        return exit_status;
    clfold_status status =
        clfold_reduce_host(ctx, array->data, array->count, array->type, args->op, out->values);
    return status == CLFOLD_SUCCESS ? EXIT_OK : report_failure(ctx, status, "reduce");
}

/*
 * What NumPy refuses of an argmin or argmax along an axis: several axes
 * (its axis= is one integer), and an axis of length 0, even where there
 * are no results to give (numpy.argmin of shape (0, 0) along either axis
 * raises ValueError). Says why on stderr.
 */
static int check_arg_axis(const struct cli_args *args, const struct npy_array *array,
                          const bool *reduced)
{
    size_t count = 0, axis = 0;
    for (size_t d = 0; d < array->ndim; d++) {
        if (reduced[d]) {
            axis = d;
            count++;
        }
    }
    if (count != 1) {
        cli_error("%s takes one axis, as NumPy's does, not %zu", clfold_op_name(args->op), count);
        return EXIT_BAD_INPUT;
    }
    if (array->shape[axis] == 0) {
        cli_error("an %s along axis %zu, of length 0: there is no element to give the index of",
                  clfold_op_name(args->op), axis);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/*
 * Along --axis: NumPy's semantics, through one matrix reduction (axes.h).
 * An argmin or argmax takes one axis; each result is the index along it,
 * which the matrix's rows or columns keep, permuted or not.
 */
static int reduce_axes(const struct cli_args *args, clfold_context *ctx,
                       struct npy_array *array, struct results *out)
{
    bool reduced[NPY_MAX_DIMS];
    struct axes_plan plan;
    char message[256];

    if (axes_parse(args->axes, array->ndim, reduced, message, sizeof message) != 0) {
        cli_error("%s", message);
        return EXIT_BAD_INPUT;
    }
    if (cli_op_is_arg(args->op) && check_arg_axis(args, array, reduced) != EXIT_OK)
        return EXIT_BAD_INPUT;
    size_t length = 1;
    for (size_t d = 0; d < array->ndim; d++)
        length *= reduced[d] ? array->shape[d] : 1;
    if (cli_check_identity(args->op, length) != EXIT_OK)
        return EXIT_BAD_INPUT;
    if (axes_to_c_order(array) != 0)
        return out_of_memory();
    axes_plan_make(array->shape, array->ndim, reduced, &plan);
    out->ndim = plan.out_ndim;
    memcpy(out->shape, plan.out_shape, plan.out_ndim * sizeof *plan.out_shape);
    if (plan.whole)
        return reduce_whole(args, ctx, array, out);
    if (plan.permute) {
        size_t source[NPY_MAX_DIMS];
        memcpy(source, array->shape, array->ndim * sizeof *source);
        if (axes_permute(array, source, plan.order) != 0)
            return out_of_memory();
    }
    int exit_status = allocate_results(out, plan.axis == 1 ? plan.rows : plan.cols);
    if (exit_status != EXIT_OK)
        return exit_status;
    clfold_matrix matrix = {0, plan.rows, plan.cols, plan.cols};
    clfold_status status = clfold_reduce_axis_host(ctx, array->data, &matrix, plan.axis,
                                                   array->type, args->op, out->values);
    return status == CLFOLD_SUCCESS ? EXIT_OK : report_failure(ctx, status, "reduce");
}

/*
 * The offsets of --segments: a 1-d int64 or uint64 array, none negative;
 * returned as uint64. That they do not decrease or pass the end is
 * clfold_reduce_segments' own check, which names the first that does.
 */
static int read_offsets(const char *path, struct npy_array *offsets)
{
    char message[512];
    if (npy_read_file(path, offsets, message, sizeof message) != 0) {
        cli_error("%s", message);
        return EXIT_BAD_INPUT;
    }
    if ((offsets->type != CLFOLD_INT64 && offsets->type != CLFOLD_UINT64) || offsets->ndim != 1 ||
        offsets->count == 0) {
        cli_error("%s: offsets are a 1-d array of at least one int64 or uint64, not %zu-d %s "
                  "with %zu elements", path, offsets->ndim, clfold_type_name(offsets->type),
                  offsets->count);
        return EXIT_BAD_INPUT;
    }
    const uint64_t *bounds = offsets->data;
    for (size_t s = 0; s < offsets->count && offsets->type == CLFOLD_INT64; s++) {
        if ((int64_t)bounds[s] < 0) {
            cli_error("%s: offset %zu is negative (%lld)", path, s, (long long)bounds[s]);
            return EXIT_BAD_INPUT;
        }
    }
    return EXIT_OK;
}

/* Over --segments of the flattened array (C order). */
static int reduce_segments(const struct cli_args *args, clfold_context *ctx,
                           struct npy_array *array, struct results *out)
{
    struct npy_array offsets = {0};
    int exit_status = read_offsets(args->segments, &offsets);
    if (exit_status != EXIT_OK)
        goto cleanup;
    if (axes_to_c_order(array) != 0) {
        exit_status = out_of_memory();
        goto cleanup;
    }
    out->ndim = 1;
    out->shape[0] = offsets.count - 1;
    exit_status = allocate_results(out, offsets.count - 1);
    if (exit_status != EXIT_OK)
        goto cleanup;
    clfold_status status = clfold_reduce_segments_host(ctx, array->data, array->count,
                                                       offsets.data, offsets.count - 1,
                                                       array->type, args->op, out->values);
    if (status != CLFOLD_SUCCESS)
        exit_status = report_failure(ctx, status, "reduce");
cleanup:
    npy_free(&offsets);
    return exit_status;
}

/* -O's .npy file, or the values one per line. */
static int emit(const struct cli_args *args, const struct results *out)
{
    char message[512], text[64];
    size_t size = clfold_type_size(out->type);
    if (args->output != NULL) {
        if (npy_write(args->output, out->type, out->ndim, out->shape, out->values, message,
                      sizeof message) != 0) {
            cli_error("%s", message);
            return EXIT_BAD_INPUT;
        }
        return EXIT_OK;
    }
    for (size_t i = 0; i < out->count; i++) {
        reference_value value;
        memcpy(&value, (const unsigned char *)out->values + i * size, size);
        reference_format(text, sizeof text, &value, out->type);
        printf("%s\n", text);
    }
    return EXIT_OK;
}

static void say_what_ran(clfold_context *ctx, const struct npy_array *array)
{
    clfold_run_info info;
    if (clfold_last_run(ctx, &info) == CLFOLD_SUCCESS)
        fprintf(stderr, "clfold: %zu %s elements, path %s, kernel %s, block %zu, %u passes, "
                        "%.3f ms on the device\n"
                        "clfold: build options: %s\n",
                array->count, clfold_type_name(array->type), info.path,
                clfold_kernel_name(info.kernel), info.block_size, info.passes, info.device_ms,
                clfold_last_build_options(ctx));
}

int command_reduce(const struct cli_args *args)
{
    struct npy_array array = {0};
    struct results out = {0};
    clfold_context *ctx = NULL;
    char message[512];
    int exit_status = EXIT_OK;
    clfold_status status;

    if (check_output_apart(args) != EXIT_OK)
        return EXIT_BAD_INPUT;
    if (args->mpi)
        return command_reduce_mpi(args);
    if (npy_read_file(args->file, &array, message, sizeof message) != 0) {
        cli_error("%s", message);
        return EXIT_BAD_INPUT;
    }
    status = clfold_result_type(array.type, args->op, &out.type);
    if (status != CLFOLD_SUCCESS) {
        cli_error("operator %s does not apply to %s data", clfold_op_name(args->op),
                  clfold_type_name(array.type));
        exit_status = EXIT_BAD_INPUT;
        goto cleanup;
    }
    if ((args->axes != NULL || args->segments != NULL) &&
        (args->kernel != CLFOLD_AUTO || args->block != 0)) {
        cli_error("-k and -b choose whole-array kernels; %s runs the device's own shape",
                  args->axes != NULL ? "--axis" : "--segments");
        exit_status = EXIT_BAD_INPUT;
        goto cleanup;
    }
    exit_status = open_timed_context(args, &ctx);
    if (exit_status != EXIT_OK)
        goto cleanup;
    status = clfold_set_kernel(ctx, args->kernel, args->block);
    if (status == CLFOLD_SUCCESS)
        status = clfold_set_accuracy(ctx, args->accuracy);
    if (status != CLFOLD_SUCCESS) {
        exit_status = report_failure(ctx, status, "reduce");
        goto cleanup;
    }
    if (args->axes != NULL)
        exit_status = reduce_axes(args, ctx, &array, &out);
    else if (args->segments != NULL)
        exit_status = reduce_segments(args, ctx, &array, &out);
    else
        exit_status = reduce_whole(args, ctx, &array, &out);
    if (exit_status == EXIT_OK)
        exit_status = emit(args, &out);
    if (exit_status == EXIT_OK && args->verbose)
        say_what_ran(ctx, &array);
cleanup:
    clfold_destroy(ctx);
    npy_free(&array);
    free(out.values);
    return exit_status;
}
