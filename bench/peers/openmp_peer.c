/*
 * openmp_peer: the CPU peer of `clfold bench`: a sum by an OpenMP
 * `parallel for simd reduction` loop (gcc), on as many threads as the OpenCL
 * device has compute units. Prints one JSON object per size:
 *   {"peer": "openmp", "type": ..., "n": ..., "best_ms": ..., "median_ms": ..., "result": ...}
 * The data are the bench's (src/cli/bench.c), so every peer reduces the same
 * values: element i is (i % 1000) / 1000 for float and double, i % 1000 - 500
 * for int32, i % 100 - 50 for int8. Integer sums are 64-bit, as clfold's.
 * Any other type is refused (exit 2), so no row is ever another type's time.
 *
 *   openmp_peer THREADS TYPE N [N...]      (TYPE: float, double, int32, int8)
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 15
#define WARM_UP 2

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *type, size_t n, double *times, double result)
{
    qsort(times, RUNS, sizeof times[0], compare);
    printf("{\"peer\": \"openmp\", \"type\": \"%s\", \"n\": %zu, \"best_ms\": %.6f, "
           "\"median_ms\": %.6f, \"result\": %.17g}\n", type, n, times[0], times[RUNS / 2], result);
}

/*
 * bench_NAME(n): fills n elements of ELEM_T by VALUE(i) (first touch by the
 * threads that read them), then times RUNS sums into ACC_T.
 */
#define DEFINE_BENCH(NAME, ELEM_T, ACC_T, VALUE)                                              \
    static int bench_##NAME(size_t n)                                                         \
    {                                                                                         \
        ELEM_T *x = malloc(n * sizeof *x + 1);                                                \
        double times[RUNS];                                                                   \
        ACC_T result = 0;                                                                     \
        if (x == NULL)                                                                        \
            return -1;                                                                        \
        _Pragma("omp parallel for schedule(static)") for (size_t i = 0; i < n; i++)           \
            x[i] = VALUE(i);                                                                  \
        for (int r = 0; r < RUNS + WARM_UP; r++) {                                            \
            double t0 = omp_get_wtime();                                                      \
            ACC_T sum = 0;                                                                    \
            _Pragma("omp parallel for simd reduction(+ : sum) schedule(static)")              \
            for (size_t i = 0; i < n; i++)                                                    \
                sum += x[i];                                                                  \
            double ms = (omp_get_wtime() - t0) * 1e3;                                         \
            if (r >= WARM_UP)                                                                 \
                times[r - WARM_UP] = ms;                                                      \
            result = sum;                                                                     \
        }                                                                                     \
        report(#NAME, n, times, (double)result);                                              \
        free(x);                                                                              \
        return 0;                                                                             \
    }

#define FLOAT_VALUE(i) ((float)((i) % 1000) / 1000.0f)
#define DOUBLE_VALUE(i) ((double)((i) % 1000) / 1000.0)
#define INT32_VALUE(i) ((int32_t)((i) % 1000) - 500)
#define INT8_VALUE(i) ((int8_t)((int)((i) % 100) - 50))

DEFINE_BENCH(float, float, float, FLOAT_VALUE)
DEFINE_BENCH(double, double, double, DOUBLE_VALUE)
DEFINE_BENCH(int32, int32_t, int64_t, INT32_VALUE)
DEFINE_BENCH(int8, int8_t, int64_t, INT8_VALUE)

static const struct {
    const char *name;
    int (*bench)(size_t n);
} TYPES[] = {
    {"float", bench_float}, {"double", bench_double}, {"int32", bench_int32}, {"int8", bench_int8},
};

int main(int argc, char **argv)
{
    int (*bench)(size_t) = NULL;
    if (argc >= 3)
        for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++)
            if (strcmp(argv[2], TYPES[t].name) == 0)
                bench = TYPES[t].bench;
    if (argc < 4 || bench == NULL || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: openmp_peer THREADS float|double|int32|int8 N [N...]\n");
        return 2;
    }
    omp_set_num_threads(atoi(argv[1]));
    for (int i = 3; i < argc; i++) {
        char *end;
        size_t n = strtoull(argv[i], &end, 10);
        if (*end != '\0' || end == argv[i]) {
            fprintf(stderr, "openmp_peer: %s is not a size\n", argv[i]);
            return 2;
        }
        if (bench(n) != 0) {
            fprintf(stderr, "openmp_peer: no memory for %zu elements\n", n);
            return 1;
        }
        fflush(stdout);
    }
    return 0;
}
