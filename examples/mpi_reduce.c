/*
 * mpi_reduce.c: one float sum over every rank of an MPI job, the same bits
 * whatever the number of ranks. Each rank makes its own part of a 10^7
 * element array, reduces it on its own device with clfold's exact sum, and
 * libclfold_mpi merges the ranks' partials; every rank gets the correctly
 * rounded sum, and the index of the greatest element.
 *
 *   mpirun -n 4 ./mpi_reduce
 *
 * The elements are multiples of 2^-10, so their exact sum is an integer
 * count of 2^-10 that a plain int64 loop gets too: every rank checks clfold's
 * bits against it rounded once to float, and exits 1 on a mismatch or an
 * error. Build it with either of
 *   mpicc mpi_reduce.c $(pkg-config --cflags --libs clfold_mpi)
 *   cmake: find_package(clfold COMPONENTS mpi) + target_link_libraries(mpi_reduce PRIVATE clfold::mpi)
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clfold_mpi.h>

#define COUNT 10000000u

/* Element i of the whole array: a multiple of 2^-10 in [-512, 512), the greatest at i = 4321. */
static int64_t units(uint64_t i)
{
    return i == 4321 ? 524287 : (int64_t)((i * 2654435761u) % 1048575u) - 524288;
}

int main(int argc, char **argv)
{
    int rank = 0, ranks = 1, rc = 1;
    clfold_mpi *mpi = NULL;
    clfold_context *ctx = NULL;
    float *part = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (clfold_mpi_create(&mpi, MPI_COMM_WORLD) != CLFOLD_SUCCESS) {
        fprintf(stderr, "mpi_reduce: %s\n", clfold_mpi_last_error(NULL));
        MPI_Abort(MPI_COMM_WORLD, 1); /* MPI itself failed: end the job rather than hang it */
    }

    /* This rank's part: elements first .. first + count of the whole, in rank order. */
    uint64_t first = (uint64_t)COUNT * (uint64_t)rank / (uint64_t)ranks;
    size_t count = (size_t)((uint64_t)COUNT * (uint64_t)(rank + 1) / (uint64_t)ranks - first);
    clfold_status status = clfold_create(&ctx, NULL);
    const char *why = clfold_last_error(NULL);
    if (status == CLFOLD_SUCCESS) {
        status = clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT);
        why = clfold_last_error(ctx);
    }
    if (status == CLFOLD_SUCCESS && (part = malloc(count * sizeof *part + 1)) == NULL) {
        status = CLFOLD_ERROR_OUT_OF_HOST_MEMORY;
        why = "no memory for the part";
    }
    /* A rank that failed so far stops every rank here, instead of leaving them waiting. */
    status = clfold_mpi_agree(mpi, status, why);
    if (status != CLFOLD_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "mpi_reduce: %s\n", clfold_mpi_last_error(mpi));
        goto cleanup;
    }
    for (size_t i = 0; i < count; i++)
        part[i] = ldexpf((float)units(first + i), -10);

    float sum = 0;
    int64_t where = -1;
    status = clfold_mpi_reduce_host(mpi, ctx, part, count, CLFOLD_FLOAT, CLFOLD_SUM, &sum);
    if (status == CLFOLD_SUCCESS)
        status = clfold_mpi_reduce_host(mpi, ctx, part, count, CLFOLD_FLOAT, CLFOLD_ARGMAX, &where);
    if (status != CLFOLD_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "mpi_reduce: %s: %s\n", clfold_status_string(status),
                    clfold_mpi_last_error(mpi));
        goto cleanup;
    }

    /* The exact sum in units of 2^-10, then one rounding: what a correctly rounded sum gives. */
    int64_t total = 0;
    for (uint64_t i = 0; i < COUNT; i++)
        total += units(i);
    float expected = (float)ldexp((double)total, -10); /* |total| < 2^53: exact in double */
    if (rank == 0)
        printf("%d ranks: sum %.9g (exact: %.9g), argmax %" PRId64 " (4321)\n", ranks, sum,
               expected, where);
    if (sum != expected || where != 4321) {
        fprintf(stderr, "mpi_reduce: rank %d: MISMATCH\n", rank);
        goto cleanup;
    }
    rc = 0;
cleanup:
    free(part);
    clfold_mpi_destroy(mpi);
    clfold_destroy(ctx);
    MPI_Finalize();
    return rc;
}
