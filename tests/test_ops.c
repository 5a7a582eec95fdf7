/*
 * test_ops.c: every operator on every type, and the special float values.
 *
 * Matrix (every kernel: K3..K7 at blocks 128 and 64, K1, K2 and ATOMIC at
 * 64, AUTO at the block clfold chooses and at 64): every (type, operator) pair the library
 * accepts, on the sizes {0, 1, 2, 3, 31, 33, 63, 65, 127, 129, 1000, 4097,
 * 100003}, and 2^22+1 for int32, uint32 and float on the kernels that take
 * it in seconds (all but K1, K2 and ATOMIC).
 *   - integers: random data in which every bit matters (fill_integers),
 *     compared exactly;
 *   - floats, exact data: small integers for sums, +-1 with a few 2 and 0.5
 *     for products, random values for min and max: every partial result is
 *     exact in any order, so the result must equal the reference bit for bit;
 *   - floats, random data in [-1, 1): sums within float_sum_tolerance;
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
 * Usage: test_ops [--matrix | --special] [--kernel NAME | NAME]...
 * (default: every kernel). CTest runs one kernel per matrix test, and the
 * special values apart.
 */
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
        double tolerance = float_sum_tolerance(n, result_type, sum_abs);
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
    bool big = r->big && (type == CLFOLD_INT32 || type == CLFOLD_UINT32 || type == CLFOLD_FLOAT);
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
        if (type == CLFOLD_DOUBLE && !r->has_fp64) {
            printf("test_ops: no cl_khr_fp64: double skipped\n");
            continue;
        }
        for (clfold_op op = CLFOLD_SUM; op <= CLFOLD_XOR; op++) {
            clfold_type result_type;
            if (clfold_result_type(type, op, &result_type) != CLFOLD_SUCCESS)
                continue; /* bitwise on floats: refused, see test_api */
            if (op == CLFOLD_MIN || op == CLFOLD_MAX)
                check_data_set(r, data, type, op, DATA_ONE_SIDED, &rng);
            if (!type_is_float(type)) {
                check_data_set(r, data, type, op, DATA_RANDOM, &rng);
                continue;
            }
            check_data_set(r, data, type, op, DATA_EXACT, &rng);
            if (op == CLFOLD_SUM)
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

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
    clfold_kernel chosen[N_KERNELS];
    size_t n_chosen = 0;
    bool matrix = true, special = true;

    for (int i = 1; i < argc; i++) {
        const char *name = argv[i];
        if (strcmp(name, "--matrix") == 0) {
            special = false;
            continue;
        }
        if (strcmp(name, "--special") == 0) {
            matrix = false;
            continue;
        }
        if (!take_kernel_arg(argc, argv, &i, chosen, &n_chosen, N_KERNELS)) {
            fprintf(stderr, "usage: %s [--matrix | --special] [--kernel NAME | NAME]...\n",
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
    clfold_destroy(r.ctx);
    return test_finish("test_ops");
}
