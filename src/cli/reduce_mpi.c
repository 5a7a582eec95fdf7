/*
 * reduce_mpi.c: `mpirun -n K clfold reduce --mpi FILE`: each rank reads
 * only its own slice of the .npy file (npy_read_part), reduces it on its
 * own device, and libclfold_mpi merges the ranks' partials; rank 0 alone
 * prints the whole's result (or writes -O's file).
 *
 * A rank's failure (a missing file, a bad device, an operator that does not
 * apply) is never its own business: its words go to every rank through
 * clfold_mpi_agree, rank 0 prints "rank R: why", and every rank exits with
 * the status the failure deserves (2 for bad input). No rank is left waiting.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "npy.h"
#include "reference.h"

#ifndef CLFOLD_CLI_MPI

int command_reduce_mpi(const struct cli_args *args)
{
    (void)args;
    cli_error("--mpi: this clfold was built without MPI (install an MPI such as libopenmpi-dev, "
              "then build with cmake -DCLFOLD_MPI=ON)");
    return EXIT_BAD_INPUT;
}

#else

#include "clfold_mpi.h"

/* What a rank holds once its own steps are done. */
struct rank_state {
    int rank, ranks;
    struct npy_part part;
    clfold_context *ctx;
    clfold_type result_type;
    char message[400]; /* the first thing that went wrong, captured from cli_error */
};

/*
 * This rank's rank among the ranks of its node. Collective
 * (MPI_Comm_split_type): every rank calls it, whatever its -d, so that a
 * job mixing -d local-rank with other selectors leaves none waiting.
 */
static int node_local_rank(void)
{
    MPI_Comm node = MPI_COMM_NULL;
    int local = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        if (MPI_Comm_rank(node, &local) != MPI_SUCCESS)
            local = 0;
        MPI_Comm_free(&node);
    }
    return local;
}

/*
 * -d local-rank: the node's GPU at this rank's node-local rank, modulo the
 * node's GPUs; with no GPU, the default device. Other selectors as -d's.
 */
static const char *rank_selector(const struct cli_args *args, int local, char *buf, size_t cap)
{
    if (args->device == NULL || strcmp(args->device, "local-rank") != 0)
        return args->device;
    char gpus[64][16];
    int n = cli_device_indices(gpus, 64, CL_DEVICE_TYPE_GPU);
    if (n == 0)
        return NULL;
    snprintf(buf, cap, "%s", gpus[local % n]);
    return buf;
}

/*
 * What to do where a rank finds no device that its selector names, though
 * the launching shell may: a rank's OpenCL loader reads OCL_ICD_FILENAMES
 * and OCL_ICD_VENDORS as mpiexec passed them, and Open MPI 4.1 passes only
 * the first of OCL_ICD_FILENAMES's colon-separated drivers.
 */
static void rank_device_advice(char *buf, size_t cap)
{
    const char *filenames = getenv("OCL_ICD_FILENAMES");
    if (filenames != NULL && filenames[0] != '\0')
        snprintf(buf, cap, "; this rank's OCL_ICD_FILENAMES is \"%.200s\": mpiexec may pass only "
                 "its first driver, so name the drivers in an OCL_ICD_VENDORS folder instead "
                 "(bench/nvidia-icd.sh; docs/mpi.md)", filenames);
    else
        snprintf(buf, cap, "; a rank sees the drivers that OCL_ICD_VENDORS or /etc/OpenCL/vendors "
                 "name as mpiexec passed it (docs/mpi.md)");
}

/* This rank's own steps: its slice, its context. Returns an exit status; words go to state->message. */
static int prepare(const struct cli_args *args, const char *selector, struct rank_state *state)
{
    char why[512];
    if (npy_read_part(args->file, (size_t)state->rank, (size_t)state->ranks, &state->part, why,
                      sizeof why) != 0) {
        cli_error("%s", why);
        return EXIT_BAD_INPUT;
    }
    const struct npy_array *whole = &state->part.whole;
    if (clfold_result_type(whole->type, args->op, &state->result_type) != CLFOLD_SUCCESS) {
        cli_error("operator %s does not apply to %s data", clfold_op_name(args->op),
                  clfold_type_name(whole->type));
        return EXIT_BAD_INPUT;
    }
    if (cli_check_identity(args->op, whole->count) != EXIT_OK)
        return EXIT_BAD_INPUT;
    size_t long_axes = 0;
    for (size_t d = 0; d < whole->ndim; d++)
        long_axes += whole->shape[d] > 1;
    if (cli_op_is_arg(args->op) && whole->fortran_order && long_axes > 1) {
        cli_error("%s: an %s with --mpi needs C order: the ranks' slices of a Fortran-order "
                  "array are not in the C-order ravel that NumPy's index counts",
                  args->file, clfold_op_name(args->op));
        return EXIT_BAD_INPUT;
    }
    char advice[512];
    rank_device_advice(advice, sizeof advice);
    int exit_status = open_selected_or_advise(selector, &state->ctx, advice);
    if (exit_status != EXIT_OK)
        return exit_status;
    clfold_status status = clfold_set_kernel(state->ctx, args->kernel, args->block);
    if (status == CLFOLD_SUCCESS)
        status = clfold_set_accuracy(state->ctx, args->accuracy);
    return status == CLFOLD_SUCCESS ? EXIT_OK : report_failure(state->ctx, status, "reduce");
}

/*
 * Every rank read the same file? Its element count (types, operators and
 * accuracies are the library's check). One MPI_Allreduce of the count and
 * its complement with MPI_MAX gives the greatest and the least.
 */
static int check_same_length(const struct rank_state *state)
{
    uint64_t mine[2] = {state->part.whole.count, UINT64_MAX - state->part.whole.count}, most[2];
    if (MPI_Allreduce(mine, most, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) {
        if (state->rank == 0)
            cli_error("MPI_Allreduce of the files' lengths failed");
        return EXIT_CHECK_FAILED;
    }
    if (most[0] == UINT64_MAX - most[1])
        return EXIT_OK;
    if (state->rank == 0)
        cli_error("the ranks read different files: from %llu to %llu elements",
                  (unsigned long long)(UINT64_MAX - most[1]), (unsigned long long)most[0]);
    return EXIT_BAD_INPUT;
}

/* Rank 0's output: the value on stdout, or -O's 0-d file. */
static int emit(const struct cli_args *args, const struct rank_state *state,
                const reference_value *result)
{
    char message[512], text[64];
    if (args->output != NULL) {
        if (npy_write_scalar(args->output, state->result_type, result, message, sizeof message) != 0) {
            cli_error("%s", message);
            return EXIT_BAD_INPUT;
        }
        return EXIT_OK;
    }
    reference_format(text, sizeof text, result, state->result_type);
    printf("%s\n", text);
    return EXIT_OK;
}

/* -v: each rank's part and device, one line each on stderr. */
static void say_what_ran(const struct rank_state *state)
{
    char name[256] = "", index[16] = "";
    clGetDeviceInfo(clfold_device(state->ctx), CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    cli_device_index_of(clfold_device(state->ctx), index, sizeof index);
    fprintf(stderr, "clfold: rank %d of %d: elements %zu..%zu of %zu on %s (%s)\n", state->rank,
            state->ranks, state->part.first, state->part.first + state->part.count,
            state->part.whole.count, index, name);
}

/* The ranks' steps in order; every rank takes every collective one. */
static int reduce_ranks(const struct cli_args *args, clfold_mpi *mpi, struct rank_state *state)
{
    char selector[16];
    const char *chosen = rank_selector(args, node_local_rank(), selector, sizeof selector);
    cli_capture_errors(state->message, sizeof state->message);
    int mine = prepare(args, chosen, state);
    cli_capture_errors(NULL, 0);
    clfold_status agreed = clfold_mpi_agree(mpi, mine == EXIT_OK ? CLFOLD_SUCCESS : status_for_exit(mine),
                                            state->message);
    if (agreed != CLFOLD_SUCCESS) {
        if (state->rank == 0)
            cli_error("%s", clfold_mpi_last_error(mpi));
        return exit_status_of(agreed);
    }
    int exit_status = check_same_length(state);
    if (exit_status != EXIT_OK)
        return exit_status;
    reference_value result = {0};
    clfold_status status = clfold_mpi_reduce_host(mpi, state->ctx, state->part.data, state->part.count,
                                                  state->part.whole.type, args->op, &result);
    if (status != CLFOLD_SUCCESS) {
        if (state->rank == 0)
            cli_error("reduce: %s", clfold_mpi_last_error(mpi));
        return exit_status_of(status);
    }
    if (args->verbose)
        say_what_ran(state);
    /* Rank 0's output may fail too (an unwritable -O): every rank exits as it does. */
    cli_capture_errors(state->message, sizeof state->message);
    int emitted = state->rank == 0 ? emit(args, state, &result) : EXIT_OK;
    cli_capture_errors(NULL, 0);
    agreed = clfold_mpi_agree(mpi, emitted == EXIT_OK ? CLFOLD_SUCCESS : status_for_exit(emitted),
                              state->message);
    if (agreed != CLFOLD_SUCCESS && state->rank == 0)
        cli_error("%s", state->message);
    return exit_status_of(agreed);
}

int command_reduce_mpi(const struct cli_args *args)
{
    struct rank_state state = {0};
    clfold_mpi *mpi = NULL;
    int exit_status = EXIT_OK;

    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        cli_error("--mpi: MPI_Init failed");
        return EXIT_CHECK_FAILED;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &state.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &state.ranks);
    if (clfold_mpi_create(&mpi, MPI_COMM_WORLD) != CLFOLD_SUCCESS) {
        /* Only MPI itself fails here, maybe on this rank alone: end the job rather than hang it. */
        cli_error("rank %d: %s", state.rank, clfold_mpi_last_error(NULL));
        MPI_Abort(MPI_COMM_WORLD, EXIT_CHECK_FAILED);
    }
    exit_status = reduce_ranks(args, mpi, &state);
    clfold_mpi_destroy(mpi);
    clfold_destroy(state.ctx);
    npy_part_free(&state.part);
    MPI_Finalize();
    return exit_status;
}

#endif /* CLFOLD_CLI_MPI */
