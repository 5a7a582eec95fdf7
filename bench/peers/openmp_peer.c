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
 *
 * Shapes, as `clfold bench --shape` and `--segments` pass them after the size:
 *   openmp_peer THREADS TYPE N --shape RxC --axis 1   a parallel loop over rows, each
 *                                                     summed by a simd loop
 *   openmp_peer THREADS TYPE N --shape RxC --axis 0   a parallel loop over rows into
 *                                                     each thread's column sums (an
 *                                                     array reduction), simd across
 *   openmp_peer THREADS TYPE N --segments FILE.npy    a parallel loop over segments
 *                                                     (dynamic: their lengths vary),
 *                                                     each summed by a simd loop
 * The results are written to an array, as clfold writes them.
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

/* What a shape asks for: rows x cols along axis, or the segments of `offsets`. */
struct shape {
    size_t rows, cols;
    int axis;
    uint64_t *offsets; /* segments: count + 1 offsets; NULL for a matrix */
    size_t count;
};

/*
 * shape_NAME(n, shape): as bench_NAME, for the shape's many results. The
 * reported result is the first result, for a glance.
 */
#define DEFINE_SHAPE(NAME, ELEM_T, ACC_T, VALUE)                                              \
    static int shape_##NAME(size_t n, const struct shape *sh)                                 \
    {                                                                                         \
        size_t results = sh->offsets != NULL ? sh->count : sh->axis == 1 ? sh->rows : sh->cols; \
        ELEM_T *x = malloc(n * sizeof *x + 1);                                                \
        ACC_T *out = calloc(results + 1, sizeof *out);                                        \
        double times[RUNS];                                                                   \
        if (x == NULL || out == NULL)                                                         \
            return -1;                                                                        \
        _Pragma("omp parallel for schedule(static)") for (size_t i = 0; i < n; i++)           \
            x[i] = VALUE(i);                                                                  \
        for (int r = 0; r < RUNS + WARM_UP; r++) {                                            \
            double t0 = omp_get_wtime();                                                      \
            if (sh->offsets != NULL) {                                                        \
                _Pragma("omp parallel for schedule(dynamic, 16)")                             \
                for (size_t s = 0; s < sh->count; s++) {                                      \
                    ACC_T sum = 0;                                                            \
                    _Pragma("omp simd reduction(+ : sum)")                                    \
                    for (size_t i = sh->offsets[s]; i < sh->offsets[s + 1]; i++)              \
                        sum += x[i];                                                          \
                    out[s] = sum;                                                             \
                }                                                                             \
            } else if (sh->axis == 1) {                                                       \
                const size_t cols = sh->cols;                                                 \
                _Pragma("omp parallel for schedule(static)")                                  \
                for (size_t row = 0; row < sh->rows; row++) {                                 \
                    ACC_T sum = 0;                                                            \
                    _Pragma("omp simd reduction(+ : sum)")                                    \
                    for (size_t c = 0; c < cols; c++)                                         \
                        sum += x[row * cols + c];                                             \
                    out[row] = sum;                                                           \
                }                                                                             \
            } else {                                                                          \
                const size_t cols = sh->cols;                                                 \
                for (size_t c = 0; c < cols; c++)                                             \
                    out[c] = 0;                                                               \
                _Pragma("omp parallel for schedule(static) reduction(+ : out[:cols])")        \
                for (size_t row = 0; row < sh->rows; row++) {                                 \
                    _Pragma("omp simd")                                                       \
                    for (size_t c = 0; c < cols; c++)                                         \
                        out[c] += x[row * cols + c];                                          \
                }                                                                             \
            }                                                                                 \
            double ms = (omp_get_wtime() - t0) * 1e3;                                         \
            if (r >= WARM_UP)                                                                 \
                times[r - WARM_UP] = ms;                                                      \
        }                                                                                     \
        report(#NAME, n, times, (double)out[0]);                                              \
        free(x);                                                                              \
        free(out);                                                                            \
        return 0;                                                                             \
    }

DEFINE_SHAPE(float, float, float, FLOAT_VALUE)
DEFINE_SHAPE(double, double, double, DOUBLE_VALUE)
DEFINE_SHAPE(int32, int32_t, int64_t, INT32_VALUE)
DEFINE_SHAPE(int8, int8_t, int64_t, INT8_VALUE)

static const struct {
    const char *name;
    int (*bench)(size_t n);
    int (*shaped)(size_t n, const struct shape *sh);
} TYPES[] = {
    {"float", bench_float, shape_float},
    {"double", bench_double, shape_double},
    {"int32", bench_int32, shape_int32},
    {"int8", bench_int8, shape_int8},
};

/* The uint64 offsets of a .npy file that clfold bench wrote (version 1.0, '<u8', 1-d). */
static uint64_t *read_offsets(const char *path, size_t *count)
{
    FILE *file = fopen(path, "rb");
    unsigned char preamble[10];
    uint64_t *offsets = NULL;
    size_t cap = 0, n = 0;
    if (file == NULL || fread(preamble, 1, 10, file) != 10 ||
        fseek(file, 10 + preamble[8] + 256 * preamble[9], SEEK_SET) != 0) {
        if (file != NULL)
            fclose(file);
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            uint64_t *grown = realloc(offsets, (cap = cap ? 2 * cap : 1024) * sizeof *offsets);
            if (grown == NULL)
                break;
            offsets = grown;
        }
        if (fread(&offsets[n], sizeof *offsets, 1, file) != 1)
            break;
        n++;
    }
    fclose(file);
    *count = n > 0 ? n - 1 : 0;
    return n > 0 ? offsets : (free(offsets), NULL);
}

int main(int argc, char **argv)
{
    int (*bench)(size_t) = NULL;
    int (*shaped)(size_t, const struct shape *) = NULL;
    struct shape sh = {0};
    if (argc >= 3)
        for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++)
            if (strcmp(argv[2], TYPES[t].name) == 0) {
                bench = TYPES[t].bench;
                shaped = TYPES[t].shaped;
            }
    if (argc < 4 || bench == NULL || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: openmp_peer THREADS float|double|int32|int8 N [N...] "
                        "[--shape RxC --axis A | --segments FILE.npy]\n");
        return 2;
    }
    omp_set_num_threads(atoi(argv[1]));
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--shape") == 0 && i + 3 < argc &&
            sscanf(argv[i + 1], "%zux%zu", &sh.rows, &sh.cols) == 2) {
            sh.axis = atoi(argv[i + 3]);
            argc = i;
        } else if (strcmp(argv[i], "--segments") == 0 && i + 1 < argc) {
            sh.offsets = read_offsets(argv[i + 1], &sh.count);
            if (sh.offsets == NULL) {
                fprintf(stderr, "openmp_peer: cannot read offsets from %s\n", argv[i + 1]);
                return 2;
            }
            argc = i;
        }
    }
    if (sh.rows != 0 || sh.offsets != NULL) {
        for (int i = 3; i < argc; i++) {
            size_t n = strtoull(argv[i], NULL, 10);
            if (shaped(n, &sh) != 0) {
                fprintf(stderr, "openmp_peer: no memory for %zu elements\n", n);
                return 1;
            }
        }
        free(sh.offsets);
        return 0;
    }
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
