/*
 * internal.h: what libclfold_mpi's files share: the handle, its error
 * record, and the agreement that every collective starts with. The
 * component uses only clfold.h's API and the MPI standard's.
 */
#ifndef CLFOLD_MPI_INTERNAL_H
#define CLFOLD_MPI_INTERNAL_H

#include <stdbool.h>

#include "clfold_mpi.h"

/*
 * What the component reads of a partial's 16-byte header (the layout of
 * src/core/partial.c, docs/partials.md): the element type, the operator,
 * the accumulator's scalar type, and its kind's bits.
 */
enum { HEADER_AT_TYPE = 6, HEADER_AT_OP = 7, HEADER_AT_SCALAR = 9, HEADER_AT_KIND = 10 };
enum { KIND_COMPENSATED = 1, KIND_EXACT = 2 };

/* Longest message a rank's failure carries to the others, with its "rank R: ". */
#define MPI_MESSAGE_BYTES 512

struct clfold_mpi {
    MPI_Comm comm;          /* the caller's, duplicated: MPI_ERRORS_RETURN */
    MPI_Datatype partial;   /* CLFOLD_PARTIAL_BYTES contiguous bytes, committed */
    MPI_Op merge;           /* clfold_partial_merge, commutative */
    int rank, size;
    int failed_rank;        /* whose failure the last call returned; -1 for none */
    char message[MPI_MESSAGE_BYTES]; /* the last call's error; "" after a success */
};

/*
 * Records `format` as the handle's message (no failing rank) and returns
 * `status`, for `return mpi_fail(mpi, status, ...)`.
 */
clfold_status mpi_fail(clfold_mpi *mpi, clfold_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* MPI's return code `rc` of `call` as CLFOLD_ERROR_MPI and MPI's words; MPI_SUCCESS as success. */
clfold_status mpi_check(clfold_mpi *mpi, int rc, const char *call);

/* Clears the last call's message and failing rank: every entry point starts with it. */
void mpi_clear(clfold_mpi *mpi);

/*
 * The agreement before any rank waits for the others' partials (agree.c):
 * every rank gives its status and message, and the header of the partial it
 * would contribute (ignored where the status is a failure). Returns the
 * lowest failing rank's status and message on every rank, else
 * CLFOLD_ERROR_INVALID_ARGUMENT on every rank where two ranks' headers
 * (type, operator, accumulator) differ, else success.
 */
clfold_status mpi_agree_on(clfold_mpi *mpi, clfold_status status, const char *message,
                           const clfold_partial *partial);

#endif /* CLFOLD_MPI_INTERNAL_H */
