/*
 * test_ops.c: every operator on every type, and the special float values.
 *
 * Matrix (every kernel: K3..K7 at blocks 128 and 64, K1, K2 and ATOMIC at
 * 64, AUTO at the block clfold chooses and at 64): every (type, operator) pair the library
 * accepts, on the sizes {0, 1, 2, 3, 31, 33, 63, 65, 127, 129, 1000, 4097,
 * 100003}, and 2^22+1 for int32, uint32 and float on the kernels that take
 * it in seconds (all but K1, K2 and ATOMIC). The sum of squares (CLFOLD_SUMSQ)
 * is among the operators: its map runs on every path.
 *   - integers: random data in which every bit matters (fill_integers),
 *     compared exactly;
 *   - floats, exact data: small integers for sums, +-1 with a few 2 and 0.5
 *     for products, random values for min and max: every partial result is
 *     exact in any order, so the result must equal the reference bit for bit;
 *   - floats, random data in [-1, 1): sums and sums of squares within
 *     their documented bound (reference_tolerance; the atomic baseline's is
 *     a sequential sum's);
 *   - min and max of every type again on data that lies on one side of the
 *     identity (min: 1..100; max: -100..-1, unsigned 1..100), compared
 *     exactly: a work-item past the end that loads anything but the
 *     identity (0, the other extreme, a NaN) changes the result. The other
 *     operators' data already shows a wrong pad: random sums and xors,
 *     odd products, and/or data a single bit away from the identity.
 *   Sizes that are not multiples of the block (1, 3, 63, 65, 127, 129, ...)
 *   make every kernel pad its last group.
 * Half is built from exactly representable values; double runs only where
 * the device has cl_khr_fp64.
 *
 * Special values (every kernel): NaN anywhere makes min, max and sum NaN;
 * min of -0.0 and +0.0 is -0.0 (sign bit set) and max is +0.0; +inf and -inf
 * are the max and min.
 *
 * Ranges (every tree kernel, and auto over host chunks of 4 KiB): float
 * products whose partial products leave the type's range in some order but
 * not in the result (test_ranges).
 *
 * Usage: test_ops [--matrix | --special | --ranges] [--kernel NAME | NAME]...
 * (default: all three, every kernel). CTest runs one kernel per matrix
 * test, and the special values and the ranges apart.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "util.h"

#define BIG_SIZE (((size_t)1 << 22) + 1)

static const size_t SIZES[] = {0,   1,   2,    3,    31,     33,      63,
                               65,  127, 129,  1000, 4097,   100003, BIG_SIZE};
#define N_SIZES (sizeof SIZES / sizeof SIZES[0])

static const clfold_type TYPES[] = {CLFOLD_INT32,  CLFOLD_UINT32, CLFOLD_FLOAT, CLFOLD_INT8,
                                    CLFOLD_UINT8,  CLFOLD_INT16,  CLFOLD_UINT16, CLFOLD_INT64,
                                    CLFOLD_UINT64, CLFOLD_HALF,   CLFOLD_DOUBLE};
#define N_TYPES (sizeof TYPES / sizeof TYPES[0])

static const clfold_kernel ALL_KERNELS[] = {CLFOLD_AUTO, CLFOLD_K1, CLFOLD_K2,
                                            CLFOLD_K3,   CLFOLD_K4, CLFOLD_K5,
                                            CLFOLD_K6,   CLFOLD_K7, CLFOLD_ATOMIC};
#define N_KERNELS (sizeof ALL_KERNELS / sizeof ALL_KERNELS[0])

/* How a data set is made, and how its results are judged. */
enum data_kind { DATA_RANDOM, DATA_EXACT, DATA_UNIT, DATA_ONE_SIDED };

struct run {
    clfold_context *ctx;
    const clfold_kernel *kernels;
    size_t n_kernels;
    bool has_fp64;
    bool big; /* whether every kernel of the run takes BIG_SIZE in seconds */
    clfold_context *chunked; /* --ranges: the auto path over host chunks of 4 KiB */
};

/* K1, K2 (one element per work-item, log2(block) barriers) and ATOMIC (one
 * address for every work-item) take minutes over 2^22 elements on POCL. */
static bool kernel_is_slow(clfold_kernel kernel)
{
    return kernel == CLFOLD_K1 || kernel == CLFOLD_K2 || kernel == CLFOLD_ATOMIC;
}

/*
 * Blocks the matrix runs `kernel` at, returning how many: 64 and 128, AUTO
 * at 64 and its own choice (0); the slow kernels at 64 alone (POCL compiles
 * each kernel anew for every block it runs at: two blocks of K1 and K2 over
 * the matrix's programs cost minutes of a fresh CI machine; test_kernels
 * runs them at every block).
 */
static int matrix_blocks(clfold_kernel kernel, size_t blocks[2])
{
    blocks[0] = 64;
    blocks[1] = kernel == CLFOLD_AUTO ? 0 : 128;
    return kernel_is_slow(kernel) ? 1 : 2;
}

/* min: 1..100; max: -100..-1 (unsigned: 1..100). Exact in every type. */
static void fill_one_sided(void *data, size_t n, clfold_type type, clfold_op op, test_rng *rng)
{
    bool is_unsigned = type == CLFOLD_UINT8 || type == CLFOLD_UINT16 || type == CLFOLD_UINT32 ||
                       type == CLFOLD_UINT64;
    bool negative = op == CLFOLD_MAX && !is_unsigned;
    for (size_t i = 0; i < n; i++) {
        int64_t v = 1 + (int64_t)rng_below(rng, 100);
        v = negative ? -v : v;
        store_element(data, i, type, v, (double)v);
    }
}

static void fill(void *data, size_t n, clfold_type type, clfold_op op, enum data_kind kind,
                 test_rng *rng)
{
    if (kind == DATA_ONE_SIDED)
        fill_one_sided(data, n, type, op, rng);
    else if (!type_is_float(type))
        fill_integers(data, n, type, op, rng);
    else if (kind == DATA_UNIT || (kind == DATA_EXACT && (op == CLFOLD_MIN || op == CLFOLD_MAX)))
        fill_unit(data, n, type, rng);
    else if (op == CLFOLD_PROD)
        fill_product(data, n, type, rng);
    else
        fill_small(data, n, type, rng);
}

/* Reduces data[0..n) with the context's kernel and compares with `want`. */
static void check_one(struct run *r, clfold_kernel kernel, size_t block, const void *data,
                      size_t n, clfold_type type, clfold_op op, enum data_kind kind,
                      const reference_value *want, long double sum_abs)
{
    clfold_type result_type;
    reference_value got;
    memset(&got, 0xa5, sizeof got);
    clfold_result_type(type, op, &result_type);
    clfold_status status = clfold_reduce_host(r->ctx, data, n, type, op, &got);
    EXPECT(status == CLFOLD_SUCCESS, "kernel=%s block=%zu n=%zu type=%s op=%s: %s: %s",
           clfold_kernel_name(kernel), block, n, clfold_type_name(type), clfold_op_name(op),
           clfold_status_string(status), clfold_last_error(r->ctx));
    if (status != CLFOLD_SUCCESS)
        return;
    if (kind == DATA_UNIT) {
        double error = fabs((double)(result_value(&got, result_type) - result_value(want, result_type)));
        /* The documented bound; the atomic baseline's, which adds in arrival order, is a sequential sum's. */
        clfold_type bound_type = result_type == CLFOLD_DOUBLE ? CLFOLD_DOUBLE : CLFOLD_FLOAT;
        double tolerance = (double)reference_tolerance(bound_type, op, CLFOLD_ACCURACY_DEFAULT, n, 0,
                                                       sum_abs, kernel == CLFOLD_ATOMIC);
        EXPECT(error <= tolerance, "error %g > tolerance %g", error, tolerance);
        if (!(error <= tolerance))
            print_mismatch("random sum", kernel, block, n, type, op, &got, want, result_type);
        return;
    }
    bool same = reference_equal(&got, want, result_type);
    EXPECT(same, "result differs from the reference");
    if (!same)
        print_mismatch(kind == DATA_ONE_SIDED ? "one-sided data"
                       : kind == DATA_EXACT ? "exact float data"
                                            : "integer data",
                       kernel, block, n, type, op, &got, want, result_type);
}

/* One data set of (type, op), every size, every kernel and block of the run. */
static void check_data_set(struct run *r, void *data, clfold_type type, clfold_op op,
                           enum data_kind kind, test_rng *rng)
{
    /* Squares of -3..3 over 2^22 elements add past 2^24: no longer exact in a float. */
    bool big = r->big && (type == CLFOLD_INT32 || type == CLFOLD_UINT32 || type == CLFOLD_FLOAT) &&
               !(op == CLFOLD_SUMSQ && kind == DATA_EXACT);
    size_t max_n = big ? BIG_SIZE : SIZES[N_SIZES - 2];
    fill(data, max_n, type, op, kind, rng);
    for (size_t s = 0; s < N_SIZES && SIZES[s] <= max_n; s++) {
        size_t n = SIZES[s];
        reference_value want;
        long double sum_abs = 0;
        reference_reduce(data, n, type, op, &want, &sum_abs);
        for (size_t k = 0; k < r->n_kernels; k++) {
            size_t blocks[2];
            int n_blocks = matrix_blocks(r->kernels[k], blocks);
            for (int b = 0; b < n_blocks; b++) {
                clfold_status status = clfold_set_kernel(r->ctx, r->kernels[k], blocks[b]);
                EXPECT(status == CLFOLD_SUCCESS, "clfold_set_kernel: %s",
                       clfold_status_string(status));
                check_one(r, r->kernels[k], blocks[b], data, n, type, op, kind, &want, sum_abs);
            }
        }
    }
}

static void test_matrix(struct run *r)
{
    test_rng rng = {UINT64_C(0x6f7073)};
    void *data = malloc(BIG_SIZE * 8);
    EXPECT(data != NULL, "out of host memory");
    if (data == NULL)
        return;
    for (size_t t = 0; t < N_TYPES; t++) {
        clfold_type type = TYPES[t];
        test_progress("test_ops", "%s", clfold_type_name(type));
        if (type == CLFOLD_DOUBLE && !r->has_fp64) {
            printf("test_ops: no cl_khr_fp64: double skipped\n");
            continue;
        }
        clfold_op_info info;
        for (clfold_op op = CLFOLD_SUM; clfold_op_describe(op, &info) == CLFOLD_SUCCESS; op++) {
            clfold_type result_type;
            if (info.flags & CLFOLD_OP_INDEX)
                continue; /* argmin, argmax: test_arg */
            if (clfold_result_type(type, op, &result_type) != CLFOLD_SUCCESS)
                continue; /* bitwise on floats: refused, see test_api */
            if (op == CLFOLD_MIN || op == CLFOLD_MAX)
                check_data_set(r, data, type, op, DATA_ONE_SIDED, &rng);
            if (!type_is_float(type)) {
                check_data_set(r, data, type, op, DATA_RANDOM, &rng);
                continue;
            }
            check_data_set(r, data, type, op, DATA_EXACT, &rng);
            if (op == CLFOLD_SUM || op == CLFOLD_SUMSQ)
                check_data_set(r, data, type, op, DATA_UNIT, &rng);
        }
    }
    free(data);
}

/* ---- special values ------------------------------------------------------ */

/* Reduces data[0..n) of a float type by op with every kernel; the result must satisfy `ok`. */
static void check_special(struct run *r, const char *what, const void *data, size_t n,
                          clfold_type type, clfold_op op, bool (*ok)(double))
{
    const size_t blocks[] = {1, 64};
    clfold_type result_type;
    clfold_result_type(type, op, &result_type);
    for (size_t k = 0; k < r->n_kernels; k++) {
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            reference_value got = {.f64 = 0};
            clfold_set_kernel(r->ctx, r->kernels[k], blocks[b]);
            clfold_status status = clfold_reduce_host(r->ctx, data, n, type, op, &got);
            double value = result_type == CLFOLD_DOUBLE ? got.f64 : (double)got.f32;
            EXPECT(status == CLFOLD_SUCCESS && ok(value),
                   "%s: kernel=%s block=%zu n=%zu type=%s op=%s: %s, result %g (sign bit %d)",
                   what, clfold_kernel_name(r->kernels[k]), blocks[b], n, clfold_type_name(type),
                   clfold_op_name(op), clfold_status_string(status), value, signbit(value) != 0);
        }
    }
}

static bool is_nan(double x) { return isnan(x); }
static bool is_minus_zero(double x) { return x == 0.0 && signbit(x); }
static bool is_plus_zero(double x) { return x == 0.0 && !signbit(x); }
static bool is_minus_inf(double x) { return isinf(x) && x < 0; }
static bool is_plus_inf(double x) { return isinf(x) && x > 0; }

/* n elements of `type`: `fill_value` everywhere, `planted` at position `at`. */
static void fill_special(void *data, size_t n, clfold_type type, double background,
                         double planted, size_t at, test_rng *rng)
{
    for (size_t i = 0; i < n; i++) {
        double v = isnan(background) ? rng_unit(rng) : background; /* NaN: random data */
        if (type == CLFOLD_HALF)
            v = floor(v * 1024.0) / 1024.0;
        store_element(data, i, type, 0, v);
    }
    store_element(data, at, type, 0, planted);
}

static void test_special_type(struct run *r, clfold_type type, void *data, test_rng *rng)
{
    const size_t sizes[] = {1, 2, 33, 1000, 4097};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s], at = (size_t)rng_below(rng, n);
        fill_special(data, n, type, NAN, NAN, at, rng);
        check_special(r, "NaN", data, n, type, CLFOLD_MIN, is_nan);
        check_special(r, "NaN", data, n, type, CLFOLD_MAX, is_nan);
        check_special(r, "NaN", data, n, type, CLFOLD_SUM, is_nan);
        fill_special(data, n, type, 0.0, -0.0, at, rng);
        check_special(r, "one -0 among +0", data, n, type, CLFOLD_MIN, is_minus_zero);
        check_special(r, "one -0 among +0", data, n, type, CLFOLD_MAX, n > 1 ? is_plus_zero : is_minus_zero);
        fill_special(data, n, type, -0.0, 0.0, at, rng);
        check_special(r, "one +0 among -0", data, n, type, CLFOLD_MIN, n > 1 ? is_minus_zero : is_plus_zero);
        check_special(r, "one +0 among -0", data, n, type, CLFOLD_MAX, is_plus_zero);
        fill_special(data, n, type, NAN, INFINITY, at, rng);
        check_special(r, "+inf", data, n, type, CLFOLD_MAX, is_plus_inf);
        check_special(r, "+inf", data, n, type, CLFOLD_SUM, is_plus_inf);
        fill_special(data, n, type, NAN, -INFINITY, at, rng);
        check_special(r, "-inf", data, n, type, CLFOLD_MIN, is_minus_inf);
        if (n > 1) {
            store_element(data, (at + 1) % n, type, 0, INFINITY);
            check_special(r, "+inf and -inf", data, n, type, CLFOLD_MIN, is_minus_inf);
            check_special(r, "+inf and -inf", data, n, type, CLFOLD_MAX, is_plus_inf);
            check_special(r, "+inf and -inf", data, n, type, CLFOLD_SUM, is_nan);
        }
    }
}

static void test_special(struct run *r)
{
    const clfold_type types[] = {CLFOLD_FLOAT, CLFOLD_HALF, CLFOLD_DOUBLE};
    test_rng rng = {UINT64_C(0x6e616e)};
    double data[4097];
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        if (types[t] != CLFOLD_DOUBLE || r->has_fp64)
            test_special_type(r, types[t], data, &rng);
}

/* ---- products beyond the type's range on the way -------------------------- */

/*
 * Float products keep their exponent apart (cl/core/defs.cl's scaled
 * pairs), so that no order of multiplication overflows or underflows before
 * the end. The data below make the orders differ: factors near 2^E and
 * near 2^-E whose pairs multiply to about 1, laid out alternately (K7's
 * and the GPU shape's strided runs meet only large or only small ones) or
 * in halves (every tree's left subtrees do), with a random sign each.
 * Subnormal factors and true overflow and underflow come after.
 * The product is checked against the long double reference within
 * docs/accuracy.md's bound, or bit for bit where it is an exact zero or an
 * infinity. The atomic baseline multiplies in arrival order in the
 * element's type, and is not held to this.
 */
enum layout { ALTERNATE, HALVES, SHUFFLED };

/* v rounded to `bits` significant bits: exact in the test's type. */
static double round_to_bits(double v, int bits)
{
    int e;
    double m = frexp(v, &e);
    return ldexp(nearbyint(ldexp(m, bits)), e - bits);
}

static void fill_range(void *data, size_t n, clfold_type type, enum layout layout, test_rng *rng)
{
    const int exponent = type == CLFOLD_HALF ? 13 : type == CLFOLD_FLOAT ? 100 : 1000;
    const int bits = type == CLFOLD_HALF ? 11 : type == CLFOLD_FLOAT ? 24 : 53;
    double *values = malloc(n * sizeof *values);
    EXPECT(values != NULL, "out of memory");
    if (values == NULL)
        return;
    for (size_t i = 0; i + 1 < n; i += 2) {
        double m = round_to_bits(1.0 + (rng_unit(rng) + 1.0) / 2.0, bits); /* [1, 2] */
        double big = ldexp(m, exponent), small = ldexp(round_to_bits(1.0 / m, bits), -exponent);
        size_t a = layout == HALVES ? i / 2 : i, b = layout == HALVES ? n - 1 - i / 2 : i + 1;
        values[a] = rng_below(rng, 2) ? big : -big;
        values[b] = rng_below(rng, 2) ? small : -small;
    }
    if (n % 2 == 1)
        values[layout == HALVES ? n / 2 : n - 1] = 1.5;
    for (size_t i = n; layout == SHUFFLED && i > 1; i--) {
        size_t j = (size_t)rng_below(rng, i);
        double t = values[i - 1];
        values[i - 1] = values[j];
        values[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        store_element(data, i, type, 0, values[i]);
    free(values);
}

/* One product on ctx (kernel and block already set) against the reference. */
static void check_product_on(clfold_context *ctx, const char *what, clfold_kernel kernel,
                             size_t block, const void *data, size_t n, clfold_type type,
                             const reference_value *want)
{
    clfold_type result_type;
    reference_value got;
    memset(&got, 0xa5, sizeof got);
    clfold_result_type(type, CLFOLD_PROD, &result_type);
    clfold_status status = clfold_reduce_host(ctx, data, n, type, CLFOLD_PROD, &got);
    bool close = status == CLFOLD_SUCCESS &&
                 reference_close(&got, want, type, CLFOLD_PROD, CLFOLD_ACCURACY_DEFAULT, n, 0, false);
    EXPECT(close, "%s: kernel=%s block=%zu n=%zu type=%s: %s", what, clfold_kernel_name(kernel),
           block, n, clfold_type_name(type), clfold_status_string(status));
    if (!close && status == CLFOLD_SUCCESS)
        print_mismatch(what, kernel, block, n, type, CLFOLD_PROD, &got, want, result_type);
}

/* The product of data[0..n) on every tree kernel, at block 64 and auto's own, and in host chunks. */
static void check_product(struct run *r, const char *what, const void *data, size_t n,
                          clfold_type type)
{
    reference_value want;
    reference_reduce(data, n, type, CLFOLD_PROD, &want, NULL);
    for (size_t k = 0; k < r->n_kernels; k++) {
        if (r->kernels[k] == CLFOLD_ATOMIC)
            continue;
        size_t blocks[2], n_blocks = (size_t)matrix_blocks(r->kernels[k], blocks);
        for (size_t b = 0; b < n_blocks; b++) {
            clfold_set_kernel(r->ctx, r->kernels[k], blocks[b]);
            check_product_on(r->ctx, what, r->kernels[k], blocks[b], data, n, type, &want);
        }
    }
    check_product_on(r->chunked, what, CLFOLD_AUTO, 0, data, n, type, &want);
}

static void test_ranges_type(struct run *r, clfold_type type, void *data, test_rng *rng)
{
    const size_t sizes[] = {2, 3, 33, 1000, 4097, 65537};
    const char *names[] = {"alternating large and small factors", "large factors, then small ones",
                           "large and small factors, shuffled"};
    const double big = type == CLFOLD_HALF ? 0x1p13 : type == CLFOLD_FLOAT ? 0x1p100 : 0x1p1000;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        for (int layout = ALTERNATE; layout <= SHUFFLED; layout++) {
            fill_range(data, n, type, (enum layout)layout, rng);
            check_product(r, names[layout], data, n, type);
            /* A zero anywhere: a signed zero, never NaN; then both zero and an infinity: NaN. */
            size_t at = (size_t)rng_below(rng, n);
            store_element(data, at, type, 0, rng_below(rng, 2) ? 0.0 : -0.0);
            check_product(r, "a zero among them", data, n, type);
            store_element(data, (at + 1) % n, type, 0, INFINITY);
            check_product(r, "a zero and an infinity", data, n, type);
        }
        /* Products truly beyond the range: an infinity of the right sign, a zero. */
        for (size_t i = 0; i < n; i++)
            store_element(data, i, type, 0, big * (i % 3 == 0 ? 1.5 : 1.0));
        check_product(r, "an overflowing product", data, n, type);
        store_element(data, n / 2, type, 0, -big);
        check_product(r, "a negative overflowing product", data, n, type);
        for (size_t i = 0; i < n; i++)
            store_element(data, i, type, 0, (i % 3 == 0 ? 1.5 : 1.0) / big);
        check_product(r, "an underflowing product", data, n, type);
        if (type == CLFOLD_HALF) /* the tests' halves are normal (float_to_half_exact) */
            continue;
        /* Subnormal factors, each with a large one: a product near 1. */
        const int deep = type == CLFOLD_FLOAT ? 140 : 1070;
        for (size_t i = 0; i < n; i++)
            store_element(data, i, type, 0, i % 2 ? ldexp(1.25, -deep) : ldexp(0.75, deep - 1));
        check_product(r, "subnormal factors", data, n, type);
    }
}

static void test_ranges(struct run *r)
{
    const clfold_type types[] = {CLFOLD_FLOAT, CLFOLD_HALF, CLFOLD_DOUBLE};
    test_rng rng = {UINT64_C(0x72616e6765)};
    double *data = malloc(65537 * sizeof *data);
    EXPECT(data != NULL, "out of memory");
    for (size_t t = 0; data != NULL && t < sizeof types / sizeof types[0]; t++)
        if (types[t] != CLFOLD_DOUBLE || r->has_fp64)
            test_ranges_type(r, types[t], data, &rng);
    free(data);
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
    clfold_kernel chosen[N_KERNELS];
    size_t n_chosen = 0;
    bool matrix = true, special = true, ranges = true;

    for (int i = 1; i < argc; i++) {
        const char *name = argv[i];
        if (strcmp(name, "--matrix") == 0 || strcmp(name, "--special") == 0 ||
            strcmp(name, "--ranges") == 0) {
            matrix = strcmp(name, "--matrix") == 0;
            special = strcmp(name, "--special") == 0;
            ranges = strcmp(name, "--ranges") == 0;
            continue;
        }
        if (!take_kernel_arg(argc, argv, &i, chosen, &n_chosen, N_KERNELS)) {
            fprintf(stderr, "usage: %s [--matrix | --special | --ranges] [--kernel NAME | NAME]...\n",
                    argv[0]);
            return 2;
        }
    }
    struct run r = {.ctx = test_context()};
    if (r.ctx == NULL)
        return 1;
    r.has_fp64 = test_device_has_fp64(clfold_device(r.ctx));
    r.kernels = n_chosen > 0 ? chosen : ALL_KERNELS;
    r.n_kernels = n_chosen > 0 ? n_chosen : N_KERNELS;
    r.big = true;
    for (size_t k = 0; k < r.n_kernels; k++)
        r.big = r.big && !kernel_is_slow(r.kernels[k]);
    if (matrix) {
        unsigned long before = CHECKS_SO_FAR();
        test_matrix(&r);
        EXPECT_CHECKED(before, "the matrix");
    }
    if (special) {
        unsigned long before = CHECKS_SO_FAR();
        test_special(&r);
        EXPECT_CHECKED(before, "the special values");
    }
    if (ranges) {
        /* Settings are read at create: chunks of 4 KiB, so that 65537 values take many. */
        setenv("CLFOLD_MAX_CHUNK_BYTES", "4096", 1);
        r.chunked = test_context();
        unsetenv("CLFOLD_MAX_CHUNK_BYTES");
        unsigned long before = CHECKS_SO_FAR();
        if (r.chunked != NULL)
            test_ranges(&r);
        EXPECT_CHECKED(before, "the products beyond the range");
        clfold_destroy(r.chunked);
    }
    clfold_destroy(r.ctx);
    return test_finish("test_ops");
}
