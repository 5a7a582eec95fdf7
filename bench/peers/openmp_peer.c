/*
 * openmp_peer: the CPU peer of `clfold bench`: a float or int32 sum by an
 * OpenMP `parallel for simd reduction` loop (gcc), on as many threads as the
 * OpenCL device has compute units. Prints one JSON object per size:
 *   {"peer": "openmp", "type": ..., "n": ..., "best_ms": ..., "median_ms": ..., "result": ...}
 * The data are the bench's: element i is (i % 1000) / 1000 for float, i % 1000 - 500
 * for int32, so every peer reduces the same values.
 *
 *   openmp_peer THREADS TYPE N [N...]      (TYPE: float or int32)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define RUNS 15

static void bench_float(size_t n)
{
    float *x = malloc(n * sizeof *x);
    double times[RUNS];
    float result = 0;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(i % 1000) / 1000.0f; /* first touch by the threads that read it */
    for (int r = 0; r < RUNS + 2; r++) {
        double t0 = omp_get_wtime();
        float sum = 0;
#pragma omp parallel for simd reduction(+ : sum) schedule(static)
        for (size_t i = 0; i < n; i++)
            sum += x[i];
        double ms = (omp_get_wtime() - t0) * 1e3;
        if (r >= 2) /* two warm-up runs */
            times[r - 2] = ms;
        result = sum;
    }
    qsort(times, RUNS, sizeof times[0], compare);
    printf("{\"peer\": \"openmp\", \"type\": \"float\", \"n\": %zu, \"best_ms\": %.6f, "
           "\"median_ms\": %.6f, \"result\": %.9g}\n", n, times[0], times[RUNS / 2], result);
    free(x);
}

static void bench_int32(size_t n)
{
    int *x = malloc(n * sizeof *x);
    double times[RUNS];
    long long result = 0;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        x[i] = (int)(i % 1000) - 500;
    for (int r = 0; r < RUNS + 2; r++) {
        double t0 = omp_get_wtime();
        long long sum = 0;
#pragma omp parallel for simd reduction(+ : sum) schedule(static)
        for (size_t i = 0; i < n; i++)
            sum += x[i];
        double ms = (omp_get_wtime() - t0) * 1e3;
        if (r >= 2)
            times[r - 2] = ms;
        result = sum;
    }
    qsort(times, RUNS, sizeof times[0], compare);
    printf("{\"peer\": \"openmp\", \"type\": \"int32\", \"n\": %zu, \"best_ms\": %.6f, "
           "\"median_ms\": %.6f, \"result\": %lld}\n", n, times[0], times[RUNS / 2], result);
    free(x);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: openmp_peer THREADS float|int32 N [N...]\n");
        return 2;
    }
    omp_set_num_threads(atoi(argv[1]));
    for (int i = 3; i < argc; i++) {
        size_t n = strtoull(argv[i], NULL, 10);
        if (strcmp(argv[2], "int32") == 0)
            bench_int32(n);
        else
            bench_float(n);
    }
    return 0;
}
