/*
 * scan_command.c: `clfold scan FILE -O OUT.npy`: the inclusive or exclusive
 * scan of a .npy file's elements, flattened in C order as numpy.cumsum(a)
 * flattens them, written to OUT.npy as a 1-d array of the result type.
 * Prints nothing on stdout; -v says what ran on stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#include "axes.h"
#include "commands.h"
#include "common.h"
#include "npy.h"

/*
 * What a scan refuses before any device is opened: argmin and argmax (no
 * scan), an operator that does not apply to the type. Sets *result_type.
 */
static int check_request(const struct cli_args *args, const struct npy_array *array,
                         clfold_type *result_type)
{
    if (cli_check_scans(args->op) != EXIT_OK)
        return EXIT_BAD_INPUT;
    if (clfold_result_type(array->type, args->op, result_type) != CLFOLD_SUCCESS) {
        cli_error("operator %s does not apply to %s data", clfold_op_name(args->op),
                  clfold_type_name(array->type));
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/*
 * Scans the C-order elements of `array` into *out, `array->count` values of
 * `result_type`: in place where they are as large as the elements (the
 * library allows it, and a big file then needs no second copy), else into
 * a new array (*out then differs from array->data; the caller frees it).
 */
static int scan_elements(const struct cli_args *args, clfold_context *ctx,
                         const struct npy_array *array, clfold_type result_type, void **out)
{
    size_t size = clfold_type_size(result_type);
    *out = array->data;
    if (size != clfold_type_size(array->type) || array->count == 0)
        *out = malloc(array->count > 0 ? array->count * size : 1);
    if (*out == NULL) {
        cli_error("out of host memory");
        return EXIT_CHECK_FAILED;
    }
    clfold_status status = clfold_scan_host(ctx, array->data, array->count, array->type, args->op,
                                            args->exclusive ? CLFOLD_EXCLUSIVE : CLFOLD_INCLUSIVE,
                                            *out);
    return status == CLFOLD_SUCCESS ? EXIT_OK : report_failure(ctx, status, "scan");
}

static void say_what_ran(clfold_context *ctx, const struct cli_args *args,
                         const struct npy_array *array)
{
    clfold_run_info info;
    if (clfold_last_run(ctx, &info) == CLFOLD_SUCCESS)
        fprintf(stderr, "clfold: %zu %s elements, %s %s scan, path %s, block %zu, %u passes, "
                        "%.3f ms on the device\n"
                        "clfold: build options: %s\n",
                array->count, clfold_type_name(array->type),
                args->exclusive ? "exclusive" : "inclusive", clfold_op_name(args->op), info.path,
                info.block_size, info.passes, info.device_ms, clfold_last_build_options(ctx));
}

int command_scan(const struct cli_args *args)
{
    struct npy_array array = {0};
    clfold_context *ctx = NULL;
    clfold_type result_type;
    void *out = NULL;
    char message[512];
    int exit_status = EXIT_OK;
    clfold_status status;

    if (check_output_apart(args) != EXIT_OK)
        return EXIT_BAD_INPUT;
    if (npy_read_file(args->file, &array, message, sizeof message) != 0) {
        cli_error("%s", message);
        return EXIT_BAD_INPUT;
    }
    exit_status = check_request(args, &array, &result_type);
    if (exit_status != EXIT_OK)
        goto cleanup;
    /* NumPy's cumsum without an axis scans the C-order ravel, whatever order the file has. */
    if (axes_to_c_order(&array) != 0) {
        cli_error("out of host memory");
        exit_status = EXIT_CHECK_FAILED;
        goto cleanup;
    }
    exit_status = open_timed_context(args, &ctx);
    if (exit_status != EXIT_OK)
        goto cleanup;
    status = clfold_set_scan_kernel(ctx, args->scan_kernel, args->block);
    if (status == CLFOLD_SUCCESS)
        status = clfold_set_accuracy(ctx, args->accuracy);
    if (status != CLFOLD_SUCCESS) {
        exit_status = report_failure(ctx, status, "scan");
        goto cleanup;
    }
    exit_status = scan_elements(args, ctx, &array, result_type, &out);
    if (exit_status == EXIT_OK &&
        npy_write(args->output, result_type, 1, &array.count, out, message, sizeof message) != 0) {
        cli_error("%s", message);
        exit_status = EXIT_BAD_INPUT;
    }
    if (exit_status == EXIT_OK && args->verbose)
        say_what_ran(ctx, args, &array);
cleanup:
    if (out != array.data)
        free(out);
    clfold_destroy(ctx);
    npy_free(&array);
    return exit_status;
}
