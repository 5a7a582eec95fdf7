/*
 * agree.c: the agreement every collective starts with, so that a rank that
 * failed, or that reduces something else, stops every rank instead of
 * leaving them waiting in the partials' MPI_Allreduce.
 *
 * One MPI_Allreduce (MPI_MIN) of 33 ints does it: the lowest failing rank
 * (the communicator's size where none failed), then each of the partial
 * header's 16 bytes as itself and negated, whose minima are each byte's
 * least and greatest value over the ranks. Only when something is wrong do
 * more messages follow: the failing rank's status and words, broadcast, or
 * the headers of rank 0 and of the first rank that differs from it.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

enum { HEADER = 16 };


/* A failure as it travels from the failing rank to the others. */
struct failure {
    int status;
    char message[MPI_MESSAGE_BYTES - 32];
};

/* "float sum (exact)": what a partial's header says it reduces, in words. */
static void describe(const unsigned char *header, char *buf, size_t cap)
{
    clfold_type element = (clfold_type)header[HEADER_AT_TYPE];
    clfold_op op = (clfold_op)header[HEADER_AT_OP];
    unsigned kind = header[HEADER_AT_KIND];
    bool in_double = header[HEADER_AT_SCALAR] == CLFOLD_DOUBLE && element != CLFOLD_DOUBLE &&
                     op == CLFOLD_SUM;
    const char *how = kind & KIND_EXACT         ? " (exact)"
                      : kind & KIND_COMPENSATED ? " (compensated)"
                      : in_double               ? " (fp64)"
                                                : "";
    const char *type = clfold_type_name(element), *name = clfold_op_name(op);
    snprintf(buf, cap, "%s %s%s", type != NULL ? type : "?", name != NULL ? name : "?", how);
}

/* Every rank learns the failing rank's status and words. */
static clfold_status spread_failure(clfold_mpi *mpi, int failed, clfold_status status,
                                    const char *message)
{
    struct failure f = {(int)status, ""};
    if (mpi->rank == failed)
        snprintf(f.message, sizeof f.message, "%s",
                 message != NULL && message[0] != '\0' ? message : clfold_status_string(status));
    clfold_status mpi_status = mpi_check(mpi, MPI_Bcast(&f, (int)sizeof f, MPI_BYTE, failed, mpi->comm),
                                         "MPI_Bcast of a rank's failure");
    if (mpi_status != CLFOLD_SUCCESS)
        return mpi_status;
    f.message[sizeof f.message - 1] = '\0';
    mpi_fail(mpi, (clfold_status)f.status, "rank %d: %s", failed, f.message);
    mpi->failed_rank = failed;
    return (clfold_status)f.status;
}

/*
 * The ranks reduce different things: names the first rank whose header
 * differs from rank 0's. Three small collectives and no heap, so that no
 * rank can fail its way out while the others wait: rank 0's header to all,
 * the least rank that differs, and that rank's header to all.
 */
static clfold_status name_disagreement(clfold_mpi *mpi, const clfold_partial *partial)
{
    unsigned char first[HEADER], second[HEADER];
    memcpy(first, partial->bytes, HEADER);
    clfold_status status = mpi_check(mpi, MPI_Bcast(first, HEADER, MPI_BYTE, 0, mpi->comm),
                                     "MPI_Bcast of rank 0's header");
    if (status != CLFOLD_SUCCESS)
        return status;
    int mine = memcmp(first, partial->bytes, HEADER) != 0 ? mpi->rank : mpi->size, other = 0;
    status = mpi_check(mpi, MPI_Allreduce(&mine, &other, 1, MPI_INT, MPI_MIN, mpi->comm),
                       "MPI_Allreduce of the ranks that differ");
    if (status != CLFOLD_SUCCESS)
        return status;
    if (other >= mpi->size) /* the agreement saw a difference that is not there */
        return mpi_fail(mpi, CLFOLD_ERROR_MPI, "the ranks' headers differed, then did not");
    memcpy(second, partial->bytes, HEADER);
    status = mpi_check(mpi, MPI_Bcast(second, HEADER, MPI_BYTE, other, mpi->comm),
                       "MPI_Bcast of a differing rank's header");
    if (status != CLFOLD_SUCCESS)
        return status;
    char said[2][64];
    describe(first, said[0], sizeof said[0]);
    describe(second, said[1], sizeof said[1]);
    if (strcmp(said[0], said[1]) != 0)
        return mpi_fail(mpi, CLFOLD_ERROR_INVALID_ARGUMENT,
                        "the ranks reduce different things: %s on rank 0, %s on rank %d", said[0],
                        said[1], other);
    return mpi_fail(mpi, CLFOLD_ERROR_INVALID_ARGUMENT,
                    "ranks 0 and %d make partials of different layouts (clfold versions?)", other);
}

clfold_status mpi_agree_on(clfold_mpi *mpi, clfold_status status, const char *message,
                           const clfold_partial *partial)
{
    int mine[1 + 2 * HEADER], least[1 + 2 * HEADER];
    bool failed = status != CLFOLD_SUCCESS;
    mine[0] = failed ? mpi->rank : mpi->size;
    for (int i = 0; i < HEADER; i++) {
        bool neutral = failed || partial == NULL; /* INT_MAX: no effect on either minimum */
        mine[1 + i] = neutral ? INT_MAX : partial->bytes[i];
        mine[1 + HEADER + i] = neutral ? INT_MAX : -(int)partial->bytes[i];
    }
    clfold_status mpi_status =
        mpi_check(mpi, MPI_Allreduce(mine, least, 1 + 2 * HEADER, MPI_INT, MPI_MIN, mpi->comm),
                  "MPI_Allreduce of the ranks' statuses");
    if (mpi_status != CLFOLD_SUCCESS)
        return mpi_status;
    if (least[0] < mpi->size)
        return spread_failure(mpi, least[0], status, message);
    for (int i = 0; i < HEADER && partial != NULL; i++)
        if (least[1 + i] != -least[1 + HEADER + i])
            return name_disagreement(mpi, partial);
    return CLFOLD_SUCCESS;
}

clfold_status clfold_mpi_agree(clfold_mpi *mpi, clfold_status status, const char *message)
{
    if (mpi == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    mpi_clear(mpi);
    return mpi_agree_on(mpi, status, message, NULL);
}
