/*
 * mpi_bench.c: where the time of an MPI reduction goes (docs/mpi.md's
 * scale model takes its numbers from here). Run under mpiexec; each rank
 * holds N floats of its own in host memory and times, best and median of
 * the rounds, every rank starting each round together (MPI_Barrier):
 *
 *   local      clfold_reduce_host_partial of its N floats on its device
 *   allreduce  MPI_Allreduce of one partial (CLFOLD_PARTIAL_BYTES) with
 *              libclfold_mpi's datatype and merge, through
 *              clfold_mpi_allreduce_partial (the agreement's allreduce of
 *              33 ints included)
 *   agree      clfold_mpi_agree alone: the agreement's share of that
 *   whole      clfold_mpi_reduce_host: all of the above, as a user calls it
 *   merge      one clfold_partial_merge on the host, what MPI's operation
 *              does at each step of its reduction tree (microseconds, the
 *              mean of 100000)
 *
 * for the default and the exact accuracy. Rank 0 prints one line per
 * accuracy; times are the slowest rank's, as a collective ends with it.
 *
 *   mpiexec -n K build/bench/mpi_bench [N [ROUNDS]]     (default 2^24, 20)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clfold_mpi.h>

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The slowest rank's time of each round; best and median over the rounds, in ms. */
static void summarise(double *times, int rounds, double *best, double *median)
{
    MPI_Allreduce(MPI_IN_PLACE, times, rounds, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qsort(times, (size_t)rounds, sizeof *times, compare);
    *best = times[0] * 1e3;
    *median = times[rounds / 2] * 1e3;
}

enum step { LOCAL, ALLREDUCE, AGREE, WHOLE, STEPS };
static const char *const step_names[STEPS] = {"local", "allreduce", "agree", "whole"};

/* One round of `step`; false on a failure (said on stderr). */
static bool run_step(enum step step, clfold_mpi *mpi, clfold_context *ctx, const float *data,
                     size_t n, const clfold_partial *made)
{
    clfold_partial partial = *made;
    float sum;
    clfold_status status = CLFOLD_SUCCESS;
    switch (step) {
    case LOCAL: status = clfold_reduce_host_partial(ctx, data, n, CLFOLD_FLOAT, CLFOLD_SUM, &partial); break;
    case ALLREDUCE: status = clfold_mpi_allreduce_partial(mpi, &partial); break;
    case AGREE: status = clfold_mpi_agree(mpi, CLFOLD_SUCCESS, NULL); break;
    case WHOLE: status = clfold_mpi_reduce_host(mpi, ctx, data, n, CLFOLD_FLOAT, CLFOLD_SUM, &sum); break;
    default: break;
    }
    if (status != CLFOLD_SUCCESS)
        fprintf(stderr, "mpi_bench: %s: %s %s %s\n", step_names[step], clfold_status_string(status),
                clfold_last_error(ctx), clfold_mpi_last_error(mpi));
    return status == CLFOLD_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, ranks, rc = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : (size_t)1 << 24;
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    if (rounds < 1)
        rounds = 1;
    clfold_context *ctx = NULL;
    clfold_mpi *mpi = NULL;
    float *data = malloc(n * sizeof *data + 1);
    double *times = malloc((size_t)rounds * sizeof *times);
    if (data == NULL || times == NULL || clfold_create(&ctx, NULL) != CLFOLD_SUCCESS ||
        clfold_mpi_create(&mpi, MPI_COMM_WORLD) != CLFOLD_SUCCESS) {
        fprintf(stderr, "mpi_bench: rank %d cannot start: %s\n", rank, clfold_last_error(NULL));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < n; i++)
        data[i] = (float)((i * 2654435761u) % 1000u) * 0.001f - 0.5f;
    char device[128] = "";
    clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_NAME, sizeof device - 1, device, NULL);
    if (rank == 0)
        printf("# %d ranks, %zu floats a rank (%.1f MiB), partial %d bytes, rank 0 on %s\n"
               "# ms, the slowest rank's, best / median of %d rounds\n"
               "%-9s %-16s %-16s %-16s %-16s %s\n", ranks, n, (double)n * 4 / 1048576.0,
               CLFOLD_PARTIAL_BYTES, device, rounds, "accuracy", "local", "allreduce", "agree",
               "whole", "merge");
    const clfold_accuracy accuracies[] = {CLFOLD_ACCURACY_DEFAULT, CLFOLD_ACCURACY_EXACT};
    for (int a = 0; a < 2 && rc == 0; a++) {
        clfold_partial made; /* the allreduce's operand, made once */
        clfold_set_accuracy(ctx, accuracies[a]);
        if (clfold_reduce_host_partial(ctx, data, n, CLFOLD_FLOAT, CLFOLD_SUM, &made) != CLFOLD_SUCCESS)
            memset(&made, 0, sizeof made); /* then the allreduce says so */
        char line[256];
        int used = snprintf(line, sizeof line, "%-9s", clfold_accuracy_name(accuracies[a]));
        for (int step = 0; step < STEPS && rc == 0; step++) {
            if (!run_step((enum step)step, mpi, ctx, data, n, &made)) /* warm-up: builds, first touches */
                rc = 1;
            /* A failure on any rank stops every rank at the same round. */
            MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            for (int r = 0; r < rounds && rc == 0; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double start = MPI_Wtime();
                if (!run_step((enum step)step, mpi, ctx, data, n, &made))
                    rc = 1;
                times[r] = MPI_Wtime() - start;
                MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            }
            if (rc != 0)
                break;
            double best = 0, median = 0;
            summarise(times, rounds, &best, &median);
            used += snprintf(line + used, sizeof line - (size_t)used, " %7.4f / %-7.4f", best, median);
        }
        clfold_partial into = made;
        double start = MPI_Wtime();
        for (int k = 0; k < 100000; k++)
            clfold_partial_merge(&into, &made);
        snprintf(line + used, sizeof line - (size_t)used, " %7.3f us", (MPI_Wtime() - start) * 10.0);
        if (rank == 0)
            printf("%s\n", line);
    }
    clfold_mpi_destroy(mpi);
    clfold_destroy(ctx);
    free(data);
    free(times);
    MPI_Finalize();
    return rc;
}
