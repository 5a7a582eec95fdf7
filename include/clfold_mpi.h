/*
 * clfold_mpi.h: clfold across the ranks of an MPI job (libclfold_mpi, an
 * optional component: CMake's CLFOLD_MPI, target clfold::mpi, pkg-config
 * clfold_mpi).
 *
 * Each rank reduces its own part of one array, on its own context and
 * device, to a partial (clfold.h); the partials then combine with one
 * MPI_Allreduce over a committed datatype of CLFOLD_PARTIAL_BYTES and a
 * commutative user operation (clfold_partial_merge), and every rank gets the
 * whole array's result, every rank the same bits (where merging rounds, a
 * reduction to rank 0 and a broadcast, so that no rank merges in another
 * order). The whole array is the ranks' parts in rank order:
 * an argmin's or argmax's index counts from rank 0's first element.
 *
 * What merging guarantees holds whatever order MPI merges in: exact float
 * sums give the same bits for any number of ranks, any split and any mix of
 * devices, the correctly rounded sum; integers are exact; min, max, the
 * bitwise operators and arg-reductions give the same result; other float
 * reductions stay within their bounds (docs/partials.md).
 *
 * Failures never leave a rank waiting. Every call below is collective: all
 * ranks of the handle's communicator make it, in the same order. Before any
 * rank waits for the others' partials, the ranks agree on whether each of
 * them succeeded and reduces the same thing (type, operator, accuracy): if
 * one failed, every rank returns that rank's status, with "rank R: why" as
 * clfold_mpi_last_error (the lowest failing rank's); if they disagree, every
 * rank returns CLFOLD_ERROR_INVALID_ARGUMENT naming two ranks that differ.
 * An MPI call that fails gives CLFOLD_ERROR_MPI with MPI's words; the
 * library sets MPI_ERRORS_RETURN on its own communicator, so MPI does not
 * abort the job for it.
 *
 * Only the MPI standard's API is used; any MPI implementation will do. A
 * handle may be used by one thread at a time, and its calls need an MPI
 * initialised with at least that (MPI_THREAD_SINGLE from one thread).
 */
#ifndef CLFOLD_MPI_H
#define CLFOLD_MPI_H

#include <mpi.h>

#include "clfold.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CLFOLD_MPI_BUILDING) && defined(__GNUC__)
#define CLFOLD_MPI_API __attribute__((visibility("default")))
#else
#define CLFOLD_MPI_API
#endif

/* A communicator of the library's own (a duplicate), its datatype and operation. */
typedef struct clfold_mpi clfold_mpi;

/*
 * Collective over `comm`: duplicates it (the library's messages never mix
 * with the caller's), commits the partial's datatype and creates the merge
 * operation, then the ranks agree that each made its handle. On failure
 * *out is NULL and clfold_mpi_last_error(NULL) says why. Its checks of its
 * own arguments (a NULL `out`, MPI_COMM_NULL, MPI not initialised) fail on
 * that rank alone, before the duplicate: as with any collective called
 * wrongly, the other ranks then wait.
 */
CLFOLD_MPI_API clfold_status clfold_mpi_create(clfold_mpi **out, MPI_Comm comm);

/*
 * Collective; frees what create made. Before MPI_Finalize (after it, only
 * the memory is freed). Accepts NULL. MPI's own errors in freeing are not
 * reported: destroy returns nothing.
 */
CLFOLD_MPI_API void clfold_mpi_destroy(clfold_mpi *mpi);

/*
 * Each rank reduces its `count` elements in host memory on `ctx` (with the
 * context's kernel and accuracy); every rank gets the whole's result, a
 * value of clfold_result_type(), in `result`. A rank may have no elements.
 * An argmin's or argmax's index is into the whole: the elements of the
 * ranks before come first. Exact sums need every context set to
 * CLFOLD_ACCURACY_EXACT; ranks whose accuracies differ are refused.
 */
CLFOLD_MPI_API clfold_status clfold_mpi_reduce_host(clfold_mpi *mpi, clfold_context *ctx,
                                                    const void *data, size_t count,
                                                    clfold_type type, clfold_op op, void *result);

/* The same of elements offset .. offset + count of a buffer of ctx's cl_context. */
CLFOLD_MPI_API clfold_status clfold_mpi_reduce_buffer(clfold_mpi *mpi, clfold_context *ctx,
                                                      cl_mem buffer, size_t offset, size_t count,
                                                      clfold_type type, clfold_op op, void *result);

/*
 * Merges every rank's `partial` into every rank's `partial`, for partials
 * made by other means (clfold_reduce_partial_async, several contexts of a
 * rank merged first). Arg-reductions' partials must already count from the
 * whole's first element (clfold_partial_rebase). Bytes that are not a
 * partial, on any rank, fail every rank.
 */
CLFOLD_MPI_API clfold_status clfold_mpi_allreduce_partial(clfold_mpi *mpi, clfold_partial *partial);

/*
 * Agreement on the caller's own steps: each rank says how it fared (status,
 * and when it failed a message; NULL for none) and every rank returns the
 * lowest failing rank's status, its message as clfold_mpi_last_error
 * ("rank R: message"), or CLFOLD_SUCCESS if every rank succeeded. So a rank
 * that could not read its input stops every rank, rather than leaving them
 * in the next collective.
 */
CLFOLD_MPI_API clfold_status clfold_mpi_agree(clfold_mpi *mpi, clfold_status status,
                                              const char *message);

/*
 * The rank (of the handle's communicator) whose failure the last call on
 * `mpi` returned; -1 after a success, a disagreement or an MPI failure.
 */
CLFOLD_MPI_API int clfold_mpi_failed_rank(const clfold_mpi *mpi);

/*
 * What went wrong in the last call on `mpi` ("" after a success); with NULL,
 * what the last failed clfold_mpi_create on this thread said.
 */
CLFOLD_MPI_API const char *clfold_mpi_last_error(const clfold_mpi *mpi);

#ifdef __cplusplus
}
#endif

#endif /* CLFOLD_MPI_H */
