/*
 * openmp_peer: the CPU peer of `clfold bench`: a sum by an OpenMP
 * `parallel for simd reduction` loop (gcc), or NumPy's argmin or argmax by
 * an OpenMP loop, on as many threads as the OpenCL device has compute
 * units. Prints one JSON object per size:
 *   {"peer": "openmp", "type": ..., "op": ..., "n": ..., "best_ms": ..., "median_ms": ..., "result": ...}
 * The data are the bench's (src/cli/bench/measure.c), so every peer reduces
 * the same values: element i is (i % 1000) / 1000 for float and double,
 * i % 1000 - 500 for int32, i % 100 - 50 for int8. Integer sums are 64-bit,
 * as clfold's.
 * Any other type is refused (exit 2), so no row is ever another type's time.
 *
 *   openmp_peer THREADS TYPE N [N...] [--op OP]    (TYPE: float, double, int32, int8;
 *                                                  OP: sum (default), argmin, argmax)
 *
 * Shapes, as `clfold bench --shape` and `--segments` pass them after the size
 * (and before --op):
 *   openmp_peer THREADS TYPE N --shape RxC --axis 1   a parallel loop over rows, each
 *                                                     summed by a simd loop
 *   openmp_peer THREADS TYPE N --shape RxC --axis 0   a parallel loop over rows into
 *                                                     each thread's column sums (an
 *                                                     array reduction), simd across
 *   openmp_peer THREADS TYPE N --segments FILE.npy    a parallel loop over segments
 *                                                     (dynamic: their lengths vary),
 *                                                     each summed by a simd loop
 * The results are written to an array, as clfold writes them.
 *
 * argmin and argmax follow NumPy: the first NaN wins outright, else the
 * first of equal elements (-0 == +0); an empty segment gives -1. A run of
 * elements is scanned twice: a simd pass for its least (greatest) value and
 * whether it holds a NaN, then a scalar pass to the first index of that
 * value (or of the first NaN). A whole array is cut into one run a thread;
 * columns (axis 0) into one block of rows a thread, each keeping its own
 * (value, index) a column with a simd pass across the row; the threads'
 * partial results are then combined in thread order, which is index order,
 * so that the first occurrence wins. Rows and segments are one run each.
 *
 * Scans, as `clfold bench --scan` passes them after the sizes (and before --op):
 *   openmp_peer THREADS TYPE N... --scan inclusive|exclusive [--op sum|min|max]
 * times OpenMP 5.0's scan directive (gcc 10 or later): a `parallel for simd`
 * loop with an inscan reduction, `#pragma omp scan inclusive(acc)` (or
 * exclusive) between folding x[i] in and storing the prefix to an array, as
 * clfold writes it (integer sums in 64 bits). Every output of the last run is
 * checked: integers, min and max against a sequential loop, exactly; float
 * sums against the exact prefix (a long double sum) within what any order of
 * summation meets, gamma(m) times it for m terms (the data are never
 * negative). A wrong output is said on stderr, exit 1, and no row printed.
 * Rows add "scan": "inclusive" (or "exclusive"); "result" is the last output.
 */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdbool.h>
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

static void report(const char *type, const char *op, size_t n, double *times, double result)
{
    qsort(times, RUNS, sizeof times[0], compare);
    printf("{\"peer\": \"openmp\", \"type\": \"%s\", \"op\": \"%s\", \"n\": %zu, "
           "\"best_ms\": %.6f, \"median_ms\": %.6f, \"result\": %.17g}\n", type, op, n, times[0],
           times[RUNS / 2], result);
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
        report(#NAME, "sum", n, times, (double)result);                                              \
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
        report(#NAME, "sum", n, times, (double)out[0]);                                              \
        free(x);                                                                              \
        free(out);                                                                            \
        return 0;                                                                             \
    }

DEFINE_SHAPE(float, float, float, FLOAT_VALUE)
DEFINE_SHAPE(double, double, double, DOUBLE_VALUE)
DEFINE_SHAPE(int32, int32_t, int64_t, INT32_VALUE)
DEFINE_SHAPE(int8, int8_t, int64_t, INT8_VALUE)

/*
 * Whether a beats b for argmax (greatest) or argmin, NumPy's way: nothing
 * beats a NaN, a NaN beats anything else, and equal elements never beat
 * each other, so that the first one stays. x != x is false for integers.
 */
#define BETTER(a, b, greatest) \
    ((b) == (b) && ((a) != (a) || ((greatest) ? (a) > (b) : (a) < (b))))

/*
 * arg_NAME(n, shape, greatest): fills n elements of ELEM_T by VALUE(i), then
 * times RUNS argmax (greatest) or argmin reductions of the whole array
 * (shape NULL) or of the shape's rows, columns or segments, as indices
 * (int64, -1 for an empty segment). scan_NAME is one run's index.
 */
#define DEFINE_ARG(NAME, ELEM_T, VALUE)                                                       \
    static size_t scan_##NAME(const ELEM_T *x, size_t lo, size_t hi, bool greatest)           \
    {                                                                                         \
        ELEM_T v = x[lo];                                                                     \
        int nan = 0;                                                                          \
        if (greatest) {                                                                       \
            _Pragma("omp simd reduction(max : v) reduction(| : nan)")                         \
            for (size_t i = lo; i < hi; i++) {                                                \
                v = x[i] > v ? x[i] : v;                                                      \
                nan |= x[i] != x[i];                                                          \
            }                                                                                 \
        } else {                                                                              \
            _Pragma("omp simd reduction(min : v) reduction(| : nan)")                         \
            for (size_t i = lo; i < hi; i++) {                                                \
                v = x[i] < v ? x[i] : v;                                                      \
                nan |= x[i] != x[i];                                                          \
            }                                                                                 \
        }                                                                                     \
        size_t i = lo;                                                                        \
        while (nan ? x[i] == x[i] : x[i] != v) /* the first NaN, else the first v */         \
            i++;                                                                              \
        return i;                                                                             \
    }                                                                                         \
                                                                                              \
    /* One thread's run of the array, then the runs' winners in thread (index) order. */     \
    static int64_t whole_##NAME(const ELEM_T *x, size_t n, bool greatest, size_t *part)        \
    {                                                                                         \
        int used = 1;                                                                         \
        _Pragma("omp parallel")                                                               \
        {                                                                                     \
            size_t t = (size_t)omp_get_thread_num(), threads = (size_t)omp_get_num_threads(); \
            size_t lo = n * t / threads, hi = n * (t + 1) / threads;                          \
            part[t] = lo < hi ? scan_##NAME(x, lo, hi, greatest) : SIZE_MAX;                 \
            if (t == 0)                                                                       \
                used = (int)threads;                                                          \
        }                                                                                     \
        size_t best = SIZE_MAX;                                                               \
        for (int t = 0; t < used; t++)                                                        \
            if (part[t] != SIZE_MAX &&                                                        \
                (best == SIZE_MAX || BETTER(x[part[t]], x[best], greatest)))                  \
                best = part[t];                                                               \
        return best == SIZE_MAX ? -1 : (int64_t)best;                                         \
    }                                                                                         \
                                                                                              \
    /* Each thread's block of rows into its (value, index) a column; then the blocks in order. */ \
    static void columns_##NAME(const ELEM_T *x, const struct shape *sh, bool greatest,       \
                               ELEM_T *values, int64_t *indices, int64_t *out)                \
    {                                                                                         \
        const size_t rows = sh->rows, cols = sh->cols;                                        \
        int used = 1;                                                                         \
        _Pragma("omp parallel")                                                               \
        {                                                                                     \
            size_t t = (size_t)omp_get_thread_num(), threads = (size_t)omp_get_num_threads(); \
            size_t lo = rows * t / threads, hi = rows * (t + 1) / threads;                    \
            ELEM_T *v = values + t * cols;                                                    \
            int64_t *at = indices + t * cols;                                                 \
            for (size_t c = 0; c < cols; c++) {                                               \
                v[c] = lo < hi ? x[lo * cols + c] : 0;                                        \
                at[c] = lo < hi ? (int64_t)lo : -1;                                           \
            }                                                                                 \
            for (size_t r = lo + 1; r < hi; r++) {                                            \
                const ELEM_T *row = x + r * cols;                                             \
                _Pragma("omp simd")                                                           \
                for (size_t c = 0; c < cols; c++) {                                           \
                    bool take = BETTER(row[c], v[c], greatest);                               \
                    v[c] = take ? row[c] : v[c];                                              \
                    at[c] = take ? (int64_t)r : at[c];                                        \
                }                                                                             \
            }                                                                                 \
            if (t == 0)                                                                       \
                used = (int)threads;                                                          \
        }                                                                                     \
        _Pragma("omp parallel for schedule(static)")                                          \
        for (size_t c = 0; c < cols; c++) {                                                   \
            int64_t best = -1;                                                                \
            ELEM_T best_value = 0;                                                            \
            for (int t = 0; t < used; t++) {                                                  \
                int64_t at = indices[(size_t)t * cols + c];                                   \
                ELEM_T value = values[(size_t)t * cols + c];                                  \
                if (at >= 0 && (best < 0 || BETTER(value, best_value, greatest))) {           \
                    best = at;                                                                \
                    best_value = value;                                                       \
                }                                                                             \
            }                                                                                 \
            out[c] = best;                                                                    \
        }                                                                                     \
    }                                                                                         \
                                                                                              \
    static int arg_##NAME(size_t n, const struct shape *sh, bool greatest)                   \
    {                                                                                         \
        size_t threads = (size_t)omp_get_max_threads();                                       \
        size_t results = sh == NULL ? 1 : sh->offsets != NULL ? sh->count                     \
                       : sh->axis == 1 ? sh->rows : sh->cols;                                 \
        size_t partials = sh != NULL && sh->offsets == NULL && sh->axis == 0 ? sh->cols : 1;  \
        ELEM_T *x = malloc(n * sizeof *x + 1);                                                \
        int64_t *out = calloc(results + 1, sizeof *out);                                      \
        size_t *part = calloc(threads, sizeof *part);                                         \
        ELEM_T *values = calloc(threads * partials, sizeof *values);                          \
        int64_t *indices = calloc(threads * partials, sizeof *indices);                       \
        double times[RUNS];                                                                   \
        int status = x != NULL && out != NULL && part != NULL && values != NULL &&            \
                     indices != NULL ? 0 : -1;                                                \
        if (status == 0) {                                                                    \
            _Pragma("omp parallel for schedule(static)") for (size_t i = 0; i < n; i++)       \
                x[i] = VALUE(i);                                                              \
        }                                                                                     \
        for (int r = 0; status == 0 && r < RUNS + WARM_UP; r++) {                             \
            double t0 = omp_get_wtime();                                                      \
            if (sh == NULL) {                                                                 \
                out[0] = whole_##NAME(x, n, greatest, part);                                  \
            } else if (sh->offsets != NULL) {                                                 \
                _Pragma("omp parallel for schedule(dynamic, 16)")                             \
                for (size_t s = 0; s < sh->count; s++) {                                      \
                    size_t lo = sh->offsets[s], hi = sh->offsets[s + 1];                      \
                    out[s] = lo < hi ? (int64_t)(scan_##NAME(x, lo, hi, greatest) - lo) : -1; \
                }                                                                             \
            } else if (sh->axis == 1) {                                                       \
                const size_t cols = sh->cols;                                                 \
                _Pragma("omp parallel for schedule(static)")                                  \
                for (size_t row = 0; row < sh->rows; row++)                                   \
                    out[row] = (int64_t)(scan_##NAME(x, row * cols, row * cols + cols,        \
                                                     greatest) - row * cols);                 \
            } else {                                                                          \
                columns_##NAME(x, sh, greatest, values, indices, out);                        \
            }                                                                                 \
            double ms = (omp_get_wtime() - t0) * 1e3;                                         \
            if (r >= WARM_UP)                                                                 \
                times[r - WARM_UP] = ms;                                                      \
        }                                                                                     \
        if (status == 0)                                                                      \
            report(#NAME, greatest ? "argmax" : "argmin", n, times, (double)out[0]);          \
        free(x);                                                                              \
        free(out);                                                                            \
        free(part);                                                                           \
        free(values);                                                                         \
        free(indices);                                                                        \
        return status;                                                                        \
    }

DEFINE_ARG(float, float, FLOAT_VALUE)
DEFINE_ARG(double, double, DOUBLE_VALUE)
DEFINE_ARG(int32, int32_t, INT32_VALUE)
DEFINE_ARG(int8, int8_t, INT8_VALUE)

/* The operators: sum, argmin and argmax reduce; sum, min and max scan. */
enum { OP_SUM, OP_ARGMIN, OP_ARGMAX, OP_MIN, OP_MAX };
static const char *const OP_NAMES[] = {"sum", "argmin", "argmax", "min", "max"};

/*
 * gcc 12 lowers an inscan reduction through temporaries of its own, which
 * its -Wmaybe-uninitialized then flags in every scan loop ("'({anonymous})'
 * may be used uninitialized", placed where PRAGMA is defined); the loops
 * below have no variable of theirs that is.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define PRAGMA(text) _Pragma(#text)

/*
 * One scan of x[0..n) into out: FOLD takes x[i] into acc, OPERATOR names
 * the inscan reduction that combines the threads' and lanes' parts.
 *
 * clang 14 lowers inscan reductions through a buffer of its own that UBSan
 * sees indexed at -1 (every scan here, in .ci/robustness.sh's sanitizer
 * build, the only one made with clang): there the loop runs on one thread,
 * in order. The bench's peer is gcc's.
 */
#if defined(__clang__)
#define SCAN_LOOP(ACC_T, INIT, OPERATOR, FOLD)                                               \
    do {                                                                                      \
        ACC_T acc = INIT;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                      \
            if (exclusive)                                                                    \
                out[i] = acc;                                                                 \
            FOLD;                                                                             \
            if (!exclusive)                                                                   \
                out[i] = acc;                                                                 \
        }                                                                                     \
    } while (0)
#else
#define SCAN_LOOP(ACC_T, INIT, OPERATOR, FOLD)                                               \
    do {                                                                                      \
        ACC_T acc = INIT;                                                                     \
        if (exclusive) {                                                                      \
            PRAGMA(omp parallel for simd reduction(inscan, OPERATOR : acc))                   \
            for (size_t i = 0; i < n; i++) {                                                  \
                out[i] = acc;                                                                 \
                PRAGMA(omp scan exclusive(acc))                                               \
                FOLD;                                                                         \
            }                                                                                 \
        } else {                                                                              \
            PRAGMA(omp parallel for simd reduction(inscan, OPERATOR : acc))                   \
            for (size_t i = 0; i < n; i++) {                                                  \
                FOLD;                                                                         \
                PRAGMA(omp scan inclusive(acc))                                               \
                out[i] = acc;                                                                 \
            }                                                                                 \
        }                                                                                     \
    } while (0)
#endif

static void report_scan(const char *type, int op, bool exclusive, size_t n, double *times,
                        double last)
{
    qsort(times, RUNS, sizeof times[0], compare);
    printf("{\"peer\": \"openmp\", \"type\": \"%s\", \"op\": \"%s\", \"scan\": \"%s\", \"n\": %zu, "
           "\"best_ms\": %.6f, \"median_ms\": %.6f, \"result\": %.17g}\n", type, OP_NAMES[op],
           exclusive ? "exclusive" : "inclusive", n, times[0], times[RUNS / 2], last);
}

/* The bound of a sum of m terms whose exact value is s >= 0, in any order: gamma(m) s. */
static long double any_order_bound(size_t m, long double u, long double s)
{
    long double mu = (long double)(m + 1) * u;
    return mu < 0.5L ? mu / (1 - mu) * s : s;
}

/*
 * prefix_NAME(n, exclusive, op): fills n elements of ELEM_T by VALUE(i),
 * times RUNS scans (sums into ACC_T, min and max into ELEM_T), checks the
 * last one's every output, and prints its row. U is the unit roundoff of
 * a float type (0 for integers: exact); LOWEST and HIGHEST the identities
 * of max and min. 0, -1 (no memory) or 1 (a wrong output, said).
 */
#define DEFINE_PREFIX(NAME, ELEM_T, ACC_T, VALUE, U, LOWEST, HIGHEST)                          \
    static void sum_scan_##NAME(const ELEM_T *x, ACC_T *out, size_t n, bool exclusive)        \
    {                                                                                         \
        SCAN_LOOP(ACC_T, 0, +, acc += x[i]);                                                  \
    }                                                                                         \
    static void min_scan_##NAME(const ELEM_T *x, ELEM_T *out, size_t n, bool exclusive)       \
    {                                                                                         \
        SCAN_LOOP(ELEM_T, HIGHEST, min, acc = x[i] < acc ? x[i] : acc);                       \
    }                                                                                         \
    static void max_scan_##NAME(const ELEM_T *x, ELEM_T *out, size_t n, bool exclusive)       \
    {                                                                                         \
        SCAN_LOOP(ELEM_T, LOWEST, max, acc = x[i] > acc ? x[i] : acc);                        \
    }                                                                                         \
                                                                                              \
    /* Output i against its sequential value; the first wrong one said. */                    \
    static size_t check_scan_##NAME(const ELEM_T *x, const void *out, size_t n, bool exclusive, \
                                    int op)                                                   \
    {                                                                                         \
        long double sum = 0;                                                                  \
        ELEM_T extreme = op == OP_MIN ? HIGHEST : LOWEST;                                     \
        size_t wrong = 0;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                      \
            long double before = op == OP_SUM ? sum : (long double)extreme, want, got;       \
            sum += x[i];                                                                      \
            extreme = op == OP_MIN ? (x[i] < extreme ? x[i] : extreme)                        \
                                   : (x[i] > extreme ? x[i] : extreme);                       \
            want = exclusive ? before : op == OP_SUM ? sum : (long double)extreme;            \
            got = op == OP_SUM ? (long double)((const ACC_T *)out)[i]                        \
                               : (long double)((const ELEM_T *)out)[i];                       \
            long double bound = op == OP_SUM ? any_order_bound(exclusive ? i : i + 1, U, want) \
                                             : 0;                                             \
            if (got != want && !(fabsl(got - want) <= bound) && wrong++ == 0)                 \
                fprintf(stderr, "openmp_peer: %s %s %s scan of %zu: output %zu is %.17Lg, "   \
                        "not %.17Lg\n", #NAME, OP_NAMES[op],                                  \
                        exclusive ? "exclusive" : "inclusive", n, i, got, want);              \
        }                                                                                     \
        return wrong;                                                                         \
    }                                                                                         \
                                                                                              \
    static int prefix_##NAME(size_t n, bool exclusive, int op)                                \
    {                                                                                         \
        ELEM_T *x = malloc(n * sizeof *x + 1);                                                \
        void *out = malloc(n * (sizeof(ACC_T) > sizeof(ELEM_T) ? sizeof(ACC_T)               \
                                                               : sizeof(ELEM_T)) + 1);       \
        double times[RUNS];                                                                   \
        int status = x != NULL && out != NULL ? 0 : -1;                                       \
        if (status == 0) {                                                                    \
            _Pragma("omp parallel for schedule(static)") for (size_t i = 0; i < n; i++)       \
                x[i] = VALUE(i);                                                              \
        }                                                                                     \
        for (int r = 0; status == 0 && r < RUNS + WARM_UP; r++) {                             \
            double t0 = omp_get_wtime();                                                      \
            if (op == OP_SUM)                                                                 \
                sum_scan_##NAME(x, out, n, exclusive);                                        \
            else if (op == OP_MIN)                                                            \
                min_scan_##NAME(x, out, n, exclusive);                                        \
            else                                                                              \
                max_scan_##NAME(x, out, n, exclusive);                                        \
            double ms = (omp_get_wtime() - t0) * 1e3;                                         \
            if (r >= WARM_UP)                                                                 \
                times[r - WARM_UP] = ms;                                                      \
        }                                                                                     \
        if (status == 0 && n > 0 && check_scan_##NAME(x, out, n, exclusive, op) != 0)         \
            status = 1;                                                                       \
        if (status == 0)                                                                      \
            report_scan(#NAME, op, exclusive, n, times,                                       \
                        n == 0 ? 0 : op == OP_SUM ? (double)((ACC_T *)out)[n - 1]             \
                                                  : (double)((ELEM_T *)out)[n - 1]);          \
        free(x);                                                                              \
        free(out);                                                                            \
        return status;                                                                        \
    }

DEFINE_PREFIX(float, float, float, FLOAT_VALUE, FLT_EPSILON / 2, -INFINITY, INFINITY)
DEFINE_PREFIX(double, double, double, DOUBLE_VALUE, DBL_EPSILON / 2, -INFINITY, INFINITY)
DEFINE_PREFIX(int32, int32_t, int64_t, INT32_VALUE, 0, INT32_MIN, INT32_MAX)
DEFINE_PREFIX(int8, int8_t, int64_t, INT8_VALUE, 0, INT8_MIN, INT8_MAX)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static const struct {
    const char *name;
    int (*bench)(size_t n);
    int (*shaped)(size_t n, const struct shape *sh);
    int (*arg)(size_t n, const struct shape *sh, bool greatest);
    int (*prefix)(size_t n, bool exclusive, int op);
} TYPES[] = {
    {"float", bench_float, shape_float, arg_float, prefix_float},
    {"double", bench_double, shape_double, arg_double, prefix_double},
    {"int32", bench_int32, shape_int32, arg_int32, prefix_int32},
    {"int8", bench_int8, shape_int8, arg_int8, prefix_int8},
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

/* One size: its sum, argmin or argmax, whole or shaped, or its scan; 0, -1 (no memory) or 1. */
static int run_size(size_t type, int op, int scan, size_t n, const struct shape *sh)
{
    bool shaped = sh->rows != 0 || sh->offsets != NULL;
    if (scan != 0)
        return TYPES[type].prefix(n, scan == 2, op);
    if (op != OP_SUM)
        return TYPES[type].arg(n, shaped ? sh : NULL, op == OP_ARGMAX);
    return shaped ? TYPES[type].shaped(n, sh) : TYPES[type].bench(n);
}

/* --op's operator, last on the command line (then dropped from *argc); OP_SUM without one, -1 if unknown. */
static int parse_op(int *argc, char **argv)
{
    if (*argc < 6 || strcmp(argv[*argc - 2], "--op") != 0)
        return OP_SUM;
    for (int op = 0; op < (int)(sizeof OP_NAMES / sizeof OP_NAMES[0]); op++) {
        if (strcmp(argv[*argc - 1], OP_NAMES[op]) == 0) {
            *argc -= 2;
            return op;
        }
    }
    fprintf(stderr, "openmp_peer: --op takes sum, argmin, argmax, min or max, not \"%s\"\n",
            argv[*argc - 1]);
    return -1;
}

/* The options after the sizes: --shape, --segments or --scan (cutting *argc there). 0, or 2 (said). */
static int parse_options(int *argc, char **argv, struct shape *sh, int *scan)
{
    for (int i = 3; i < *argc; i++) {
        if (strcmp(argv[i], "--shape") == 0 && i + 3 < *argc &&
            sscanf(argv[i + 1], "%zux%zu", &sh->rows, &sh->cols) == 2) {
            sh->axis = atoi(argv[i + 3]);
            *argc = i;
        } else if (strcmp(argv[i], "--segments") == 0 && i + 1 < *argc) {
            sh->offsets = read_offsets(argv[i + 1], &sh->count);
            if (sh->offsets == NULL) {
                fprintf(stderr, "openmp_peer: cannot read offsets from %s\n", argv[i + 1]);
                return 2;
            }
            *argc = i;
        } else if (strcmp(argv[i], "--scan") == 0 && i + 1 < *argc) {
            *scan = strcmp(argv[i + 1], "inclusive") == 0 ? 1
                  : strcmp(argv[i + 1], "exclusive") == 0 ? 2 : -1;
            if (*scan < 0) {
                fprintf(stderr, "openmp_peer: --scan takes inclusive or exclusive, not \"%s\"\n",
                        argv[i + 1]);
                return 2;
            }
            *argc = i;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    size_t type = sizeof TYPES / sizeof TYPES[0];
    int scan = 0; /* none, inclusive, exclusive */
    struct shape sh = {0};
    if (argc >= 3)
        for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++)
            if (strcmp(argv[2], TYPES[t].name) == 0)
                type = t;
    int op = parse_op(&argc, argv);
    if (op < 0)
        return 2;
    if (argc < 4 || type == sizeof TYPES / sizeof TYPES[0] || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: openmp_peer THREADS float|double|int32|int8 N [N...] "
                        "[--shape RxC --axis A | --segments FILE.npy | --scan inclusive|exclusive] "
                        "[--op sum|argmin|argmax|min|max]\n");
        return 2;
    }
    omp_set_num_threads(atoi(argv[1]));
    int status = parse_options(&argc, argv, &sh, &scan);
    if (status == 0 && (scan != 0) != (op == OP_SUM || op == OP_MIN || op == OP_MAX) &&
        op != OP_SUM) {
        fprintf(stderr, "openmp_peer: %s is timed %s\n", OP_NAMES[op],
                scan != 0 ? "as a reduction only (no scan)" : "as a scan only (--scan)");
        status = 2;
    }
    for (int i = 3; status == 0 && i < argc; i++) {
        char *end;
        size_t n = strtoull(argv[i], &end, 10);
        if (*end != '\0' || end == argv[i]) {
            fprintf(stderr, "openmp_peer: %s is not a size\n", argv[i]);
            status = 2;
        } else if ((status = run_size(type, op, scan, n, &sh)) < 0) {
            fprintf(stderr, "openmp_peer: no memory for %zu elements\n", n);
            status = 1;
        }
        fflush(stdout);
    }
    free(sh.offsets);
    return status;
}
