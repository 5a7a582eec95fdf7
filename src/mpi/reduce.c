/*
 * reduce.c: the component's reductions. Each rank reduces its part to a
 * partial on its own context; then, on every rank alike, the agreement
 * (agree.c), an arg-reduction's index moved to count from the whole's
 * first element, the partials merged (merge_everywhere), and the finish.
 */
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* What the library's operator table says of `op` (0 for an op it does not know). */
static unsigned op_flags(clfold_op op)
{
    clfold_op_info info;
    return clfold_op_describe(op, &info) == CLFOLD_SUCCESS ? info.flags : 0;
}

/* Bytes that merge, with themselves, as a partial: the layout's own check. */
static bool is_partial(const clfold_partial *partial)
{
    clfold_partial copy = *partial;
    return clfold_partial_merge(&copy, partial) == CLFOLD_SUCCESS;
}

/* This rank's first element in the whole: the number of elements of the ranks before it. */
static clfold_status first_element(clfold_mpi *mpi, uint64_t count, uint64_t *first)
{
    uint64_t before = 0;
    clfold_status status = mpi_check(
        mpi, MPI_Exscan(&count, &before, 1, MPI_UINT64_T, MPI_SUM, mpi->comm), "MPI_Exscan of the counts");
    *first = mpi->rank == 0 ? 0 : before; /* MPI_Exscan leaves rank 0's undefined */
    return status;
}

/*
 * Whether merging `partial`'s kind gives the same bits in any order: exact
 * sums, integers, min, max, the bitwise operators, argmin and argmax. The
 * others (default, compensated and fp64 float sums, float products) round
 * at each merge.
 */
static bool merges_exactly(const clfold_partial *partial)
{
    clfold_type type = (clfold_type)partial->bytes[HEADER_AT_TYPE];
    clfold_op op = (clfold_op)partial->bytes[HEADER_AT_OP];
    bool exact_state = partial->bytes[HEADER_AT_KIND] & KIND_EXACT;
    bool is_float = type == CLFOLD_HALF || type == CLFOLD_FLOAT || type == CLFOLD_DOUBLE;
    return exact_state || !is_float || !(op_flags(op) & CLFOLD_OP_ROUNDS);
}

/*
 * Every rank's partial merged into every rank's. Where merging rounds, an
 * MPI_Allreduce may merge in another order on each rank and leave ranks
 * with different bits; a reduction to rank 0 and a broadcast of its
 * partial leave every rank the same one.
 */
static clfold_status merge_everywhere(clfold_mpi *mpi, clfold_partial *partial)
{
    if (merges_exactly(partial))
        return mpi_check(mpi, MPI_Allreduce(MPI_IN_PLACE, partial, 1, mpi->partial, mpi->merge,
                                            mpi->comm),
                         "MPI_Allreduce of the partials");
    clfold_partial merged = *partial;
    clfold_status status = mpi_check(mpi, MPI_Reduce(partial, &merged, 1, mpi->partial, mpi->merge,
                                                     0, mpi->comm),
                                     "MPI_Reduce of the partials");
    if (status != CLFOLD_SUCCESS)
        merged.bytes[0] = 0; /* still in the broadcast: every rank then fails its finish */
    clfold_status sent = mpi_check(mpi, MPI_Bcast(&merged, 1, mpi->partial, 0, mpi->comm),
                                   "MPI_Bcast of the merged partial");
    *partial = merged;
    return status != CLFOLD_SUCCESS ? status : sent;
}

/*
 * All ranks' partials merged into every rank's, then finished into `result`
 * (NULL: left a partial). Past the agreement every rank takes the same
 * steps, so none can be left waiting: a step that fails on one rank only
 * spoils its partial, and the finish then fails on every rank.
 */
static clfold_status combine(clfold_mpi *mpi, clfold_status local, const char *why, uint64_t count,
                             clfold_op op, clfold_partial *partial, void *result)
{
    clfold_status status = mpi_agree_on(mpi, local, why, partial);
    if (status != CLFOLD_SUCCESS)
        return status;
    clfold_status failed = CLFOLD_SUCCESS; /* an MPI step that failed here, maybe here alone */
    if (op_flags(op) & CLFOLD_OP_INDEX) {
        uint64_t first = 0;
        failed = first_element(mpi, count, &first);
        if (failed != CLFOLD_SUCCESS || clfold_partial_rebase(partial, first) != CLFOLD_SUCCESS)
            partial->bytes[0] = 0;
    }
    status = merge_everywhere(mpi, partial);
    if (failed != CLFOLD_SUCCESS || status != CLFOLD_SUCCESS)
        return failed != CLFOLD_SUCCESS ? failed : status;
    if (!is_partial(partial))
        return mpi_fail(mpi, CLFOLD_ERROR_INVALID_ARGUMENT,
                        "the merged partial is spoiled: a rank's partial was none, or a rank's "
                        "step failed");
    if (result == NULL)
        return CLFOLD_SUCCESS;
    status = clfold_partial_finish(partial, result);
    if (status != CLFOLD_SUCCESS)
        return mpi_fail(mpi, status, "an %s of no element: every rank's part is empty",
                        clfold_op_name(op));
    return CLFOLD_SUCCESS;
}

/*
 * The start of a rank's reduction: the handle's record cleared, the partial
 * zeroed (a failed part's is never read), and the arguments checked that
 * this rank alone can check. A NULL handle fails before any collective.
 */
static clfold_status start(clfold_mpi *mpi, const clfold_context *ctx, const void *result,
                           clfold_partial *partial)
{
    memset(partial, 0, sizeof *partial);
    if (mpi == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    mpi_clear(mpi);
    return ctx != NULL && result != NULL ? CLFOLD_SUCCESS : CLFOLD_ERROR_INVALID_ARGUMENT;
}

/* What this rank's own step said when it failed: words for the others. */
static const char *local_words(const clfold_context *ctx, const void *result, clfold_status local)
{
    if (ctx == NULL || result == NULL)
        return "the context or the result is NULL";
    const char *said = clfold_last_error(ctx);
    return said[0] != '\0' ? said : clfold_status_string(local);
}

clfold_status clfold_mpi_reduce_host(clfold_mpi *mpi, clfold_context *ctx, const void *data,
                                     size_t count, clfold_type type, clfold_op op, void *result)
{
    clfold_partial partial;
    clfold_status local = start(mpi, ctx, result, &partial);
    if (mpi == NULL)
        return local;
    if (local == CLFOLD_SUCCESS)
        local = clfold_reduce_host_partial(ctx, data, count, type, op, &partial);
    return combine(mpi, local, local_words(ctx, result, local), count, op, &partial, result);
}

clfold_status clfold_mpi_reduce_buffer(clfold_mpi *mpi, clfold_context *ctx, cl_mem buffer,
                                       size_t offset, size_t count, clfold_type type, clfold_op op,
                                       void *result)
{
    clfold_partial partial;
    clfold_status local = start(mpi, ctx, result, &partial);
    if (mpi == NULL)
        return local;
    if (local == CLFOLD_SUCCESS)
        local = clfold_reduce_partial(ctx, buffer, offset, count, type, op, &partial);
    return combine(mpi, local, local_words(ctx, result, local), count, op, &partial, result);
}

clfold_status clfold_mpi_allreduce_partial(clfold_mpi *mpi, clfold_partial *partial)
{
    clfold_status local = CLFOLD_SUCCESS;
    const char *why = NULL;
    clfold_partial none;
    if (mpi == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    mpi_clear(mpi);
    if (partial == NULL || !is_partial(partial)) {
        local = CLFOLD_ERROR_INVALID_ARGUMENT;
        why = partial == NULL ? "the partial is NULL" : "the bytes given are not a clfold partial";
        memset(&none, 0, sizeof none);
        partial = partial == NULL ? &none : partial;
    }
    /* Arg-reductions' partials come rebased: the op plays no part here. */
    return combine(mpi, local, why, 0, CLFOLD_SUM, partial, NULL);
}
