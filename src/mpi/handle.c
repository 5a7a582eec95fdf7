/*
 * handle.c: the clfold_mpi handle: creating it (a duplicate of the caller's
 * communicator, the partial's datatype, the merge operation), destroying
 * it, and its record of what went wrong.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* What the calling thread's last failed clfold_mpi_create said: it has no handle to keep it in. */
static _Thread_local char create_error[MPI_MESSAGE_BYTES];

clfold_status mpi_fail(clfold_mpi *mpi, clfold_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(mpi->message, sizeof mpi->message, format, args);
    va_end(args);
    mpi->failed_rank = -1;
    return status;
}

clfold_status mpi_check(clfold_mpi *mpi, int rc, const char *call)
{
    if (rc == MPI_SUCCESS)
        return CLFOLD_SUCCESS;
    char words[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(rc, words, &length) != MPI_SUCCESS)
        snprintf(words, sizeof words, "MPI error %d", rc);
    return mpi_fail(mpi, CLFOLD_ERROR_MPI, "%s failed: %s", call, words);
}

void mpi_clear(clfold_mpi *mpi)
{
    mpi->message[0] = '\0';
    mpi->failed_rank = -1;
}

/*
 * MPI's user operation: inout[i] = in[i] merged with inout[i]. A merge that
 * fails (bytes that are not a partial) leaves a partial that is none either,
 * so that every later merge, and the finish on every rank, fails too: the
 * operation cannot return an error, but its result can carry one.
 */
static void merge_partials(void *in, void *inout, int *length, MPI_Datatype *type)
{
    (void)type;
    const clfold_partial *part = in;
    clfold_partial *into = inout;
    for (int i = 0; i < *length; i++)
        if (clfold_partial_merge(&into[i], &part[i]) != CLFOLD_SUCCESS)
            into[i].bytes[0] = 0; /* no longer the layout's magic */
}

#define CHECK_MPI(call)                                     \
    do {                                                    \
        status = mpi_check(mpi, (call), #call);             \
        if (status != CLFOLD_SUCCESS)                       \
            goto cleanup;                                   \
    } while (0)

clfold_status clfold_mpi_create(clfold_mpi **out, MPI_Comm comm)
{
    clfold_status status = CLFOLD_SUCCESS;
    clfold_mpi *mpi = NULL;
    int initialized = 0, finalized = 0;

    if (out == NULL) {
        snprintf(create_error, sizeof create_error, "clfold_mpi_create: the handle pointer is NULL");
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized ||
        MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) {
        snprintf(create_error, sizeof create_error,
                 "clfold_mpi_create: MPI is not initialised (MPI_Init first), or already finalised");
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    }
    if (comm == MPI_COMM_NULL) {
        snprintf(create_error, sizeof create_error, "clfold_mpi_create: the communicator is MPI_COMM_NULL");
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    }
    mpi = calloc(1, sizeof *mpi);
    if (mpi == NULL) {
        snprintf(create_error, sizeof create_error, "clfold_mpi_create: out of host memory");
        return CLFOLD_ERROR_OUT_OF_HOST_MEMORY;
    }
    mpi->comm = MPI_COMM_NULL;
    mpi->partial = MPI_DATATYPE_NULL;
    mpi->merge = MPI_OP_NULL;
    mpi_clear(mpi);
    CHECK_MPI(MPI_Comm_dup(comm, &mpi->comm));
    CHECK_MPI(MPI_Comm_set_errhandler(mpi->comm, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_rank(mpi->comm, &mpi->rank));
    CHECK_MPI(MPI_Comm_size(mpi->comm, &mpi->size));
    CHECK_MPI(MPI_Type_contiguous(CLFOLD_PARTIAL_BYTES, MPI_BYTE, &mpi->partial));
    CHECK_MPI(MPI_Type_commit(&mpi->partial));
    CHECK_MPI(MPI_Op_create(merge_partials, 1 /* commutative */, &mpi->merge));
cleanup:
    /*
     * Every rank that has the duplicate learns whether all ranks made
     * theirs: a rank whose datatype or operation failed would otherwise
     * free its duplicate (a collective) while the others went on.
     */
    if (mpi->comm != MPI_COMM_NULL) {
        int made = status == CLFOLD_SUCCESS, all_made = 0;
        clfold_status agreed = mpi_check(mpi, MPI_Allreduce(&made, &all_made, 1, MPI_INT, MPI_MIN,
                                                            mpi->comm),
                                         "MPI_Allreduce of the ranks' handles");
        if (status == CLFOLD_SUCCESS && agreed == CLFOLD_SUCCESS && !all_made)
            status = mpi_fail(mpi, CLFOLD_ERROR_MPI, "another rank could not make its handle");
        else if (status == CLFOLD_SUCCESS)
            status = agreed;
    }
    if (status != CLFOLD_SUCCESS) {
        memcpy(create_error, mpi->message, sizeof create_error);
        clfold_mpi_destroy(mpi);
        return status;
    }
    create_error[0] = '\0';
    *out = mpi;
    return CLFOLD_SUCCESS;
}

void clfold_mpi_destroy(clfold_mpi *mpi)
{
    int finalized = 1;
    if (mpi == NULL)
        return;
    /* After MPI_Finalize no MPI call is allowed: then only the memory goes. */
    if (MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) {
        if (mpi->merge != MPI_OP_NULL)
            MPI_Op_free(&mpi->merge);
        if (mpi->partial != MPI_DATATYPE_NULL)
            MPI_Type_free(&mpi->partial);
        if (mpi->comm != MPI_COMM_NULL)
            MPI_Comm_free(&mpi->comm);
    }
    free(mpi);
}

int clfold_mpi_failed_rank(const clfold_mpi *mpi)
{
    return mpi != NULL ? mpi->failed_rank : -1;
}

const char *clfold_mpi_last_error(const clfold_mpi *mpi)
{
    return mpi != NULL ? mpi->message : create_error;
}
