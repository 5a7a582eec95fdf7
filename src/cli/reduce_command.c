/*
 * reduce_command.c: `clfold reduce FILE`: reduces a .npy file on a device
 * and prints the result alone on stdout, or writes it to a .npy file (-O).
 */
#include <stdio.h>

#include "commands.h"
#include "common.h"
#include "npy.h"
#include "reference.h"

int command_reduce(const struct cli_args *args)
{
    struct npy_array array = {0};
    clfold_context *ctx = NULL;
    reference_value result;
    clfold_type result_type;
    char message[512], text[64];
    int exit_status = EXIT_OK;
    clfold_status status;

    if (npy_read_file(args->file, &array, message, sizeof message) != 0) {
        cli_error("%s", message);
        return EXIT_BAD_INPUT;
    }
    status = clfold_result_type(array.type, args->op, &result_type);
    if (status != CLFOLD_SUCCESS) {
        cli_error("operator %s does not apply to %s data", clfold_op_name(args->op),
                  clfold_type_name(array.type));
        exit_status = EXIT_BAD_INPUT;
        goto cleanup;
    }
    exit_status = open_timed_context(args, &ctx);
    if (exit_status != EXIT_OK)
        goto cleanup;
    status = clfold_set_kernel(ctx, args->kernel, args->block);
    if (status == CLFOLD_SUCCESS)
        status = clfold_set_accuracy(ctx, args->accuracy);
    if (status == CLFOLD_SUCCESS)
        status = clfold_reduce_host(ctx, array.data, array.count, array.type, args->op, &result);
    if (status != CLFOLD_SUCCESS) {
        exit_status = report_failure(ctx, status, "reduce");
        goto cleanup;
    }
    if (args->output != NULL) {
        if (npy_write_scalar(args->output, result_type, &result, message, sizeof message) != 0) {
            cli_error("%s", message);
            exit_status = EXIT_BAD_INPUT;
            goto cleanup;
        }
    } else {
        reference_format(text, sizeof text, &result, result_type);
        printf("%s\n", text);
    }
    if (args->verbose) {
        clfold_run_info info;
        if (clfold_last_run(ctx, &info) == CLFOLD_SUCCESS)
            fprintf(stderr, "clfold: %zu %s elements, kernel %s, block %zu, %u passes, %.3f ms on the device\n"
                            "clfold: build options: %s\n",
                    array.count, clfold_type_name(array.type), clfold_kernel_name(info.kernel),
                    info.block_size, info.passes, info.device_ms, clfold_last_build_options(ctx));
    }
cleanup:
    clfold_destroy(ctx);
    npy_free(&array);
    return exit_status;
}
