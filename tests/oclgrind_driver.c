/*
 * oclgrind_driver.c: small reductions for test_oclgrind.sh to run under
 * Oclgrind, which checks every memory access, barrier and work-item race of
 * the kernels. Each kernel K1..K7 and ATOMIC runs on n in {1000, 300, 37, 1}
 * with blocks {1, 4, 32, 64, 128} (64 is where the unrolled tail of K5-K7
 * takes over the whole tree; 128 adds a level above it) for int32 sum, float
 * min, uint32 xor, half max, int8 and, uint16 min, int64 prod and double sum
 * (the atomic kernel's 32-bit, widened and 64-bit paths); every result is
 * compared exactly with the host reference; the auto path also sums 3001
 * uint8 and int16 values from an odd offset. Exit status 1 on any mismatch.
 * With --exact, instead, exact sums (CLFOLD_ACCURACY_EXACT) of double, float
 * and half on n in {1000, 37, 1} with blocks {1, 4, 32}: their states are
 * the largest partial values, so they run in a process of their own.
 * With --arg, argmin and argmax (float, half, int8, uint64, double) on the
 * same sizes and blocks as the first, from offsets 0 and 3, on data with
 * the extreme twice and, for floats, signed zeros and a NaN past the
 * first 300; the atomic kernel must refuse them. Their (key, index) pairs
 * take 16 bytes, more than any other case's partial values: a process of
 * their own too.
 *
 * Usage: oclgrind_driver [--exact | --arg] [--kernel NAME | NAME]...   (default: all eight)
 */
#include "util.h"

static const clfold_kernel ALL_KERNELS[] = {CLFOLD_K1, CLFOLD_K2, CLFOLD_K3, CLFOLD_K4,
                                            CLFOLD_K5, CLFOLD_K6, CLFOLD_K7, CLFOLD_ATOMIC};
#define N_KERNELS (sizeof ALL_KERNELS / sizeof ALL_KERNELS[0])

/* int32 sum first: its 8-byte partial values need the most scratch (see below). */
static const struct {
    clfold_type type;
    clfold_op op;
} CASES[] = {{CLFOLD_INT32, CLFOLD_SUM}, {CLFOLD_FLOAT, CLFOLD_MIN},  {CLFOLD_UINT32, CLFOLD_XOR},
             {CLFOLD_HALF, CLFOLD_MAX},  {CLFOLD_INT8, CLFOLD_AND},   {CLFOLD_UINT16, CLFOLD_MIN},
             {CLFOLD_INT64, CLFOLD_PROD}, {CLFOLD_DOUBLE, CLFOLD_SUM}, {CLFOLD_FLOAT, CLFOLD_PROD}};

/*
 * Two false positives of Oclgrind 21.10's --uninitialized shape this driver:
 * it takes a CL_MEM_USE_HOST_PTR buffer (what clfold_reduce_host makes on a
 * CPU device) as uninitialised, and a buffer that a kernel writes after it
 * took the place of a released one (clfold's scratch buffers when they
 * grow). So the input is a CL_MEM_COPY_HOST_PTR buffer given to
 * clfold_reduce_buffer, and the reduction that needs the most scratch
 * memory runs first (int32 sum, block 1, n = 1000): the scratch never grows.
 */
/* One reduction of n elements from `offset` of buffer (a copy of data), exactly against the reference. */
static void check_reduction(clfold_context *ctx, cl_mem buffer, const void *data, size_t offset,
                            size_t n, clfold_type type, clfold_op op, clfold_kernel kernel,
                            size_t block)
{
    clfold_type result_type;
    reference_value got, want;
    clfold_result_type(type, op, &result_type);
    memset(&got, 0xa5, sizeof got);
    clfold_status status = clfold_reduce_buffer(ctx, buffer, offset, n, type, op, &got);
    EXPECT(status == CLFOLD_SUCCESS, "kernel=%s block=%zu n=%zu offset=%zu: %s: %s",
           clfold_kernel_name(kernel), block, n, offset, clfold_status_string(status),
           clfold_last_error(ctx));
    reference_reduce((const unsigned char *)data + offset * clfold_type_size(type), n, type, op,
                     &want, NULL);
    bool same = status == CLFOLD_SUCCESS && reference_equal(&got, &want, result_type);
    EXPECT(same || status != CLFOLD_SUCCESS, "result differs from the reference");
    if (!same && status == CLFOLD_SUCCESS)
        print_mismatch("oclgrind", kernel, block, n, type, op, &got, &want, result_type);
}

static void run_kernel(clfold_context *ctx, clfold_kernel kernel, test_rng *rng)
{
    const size_t blocks[] = {1, 4, 32, 64, 128};
    const size_t sizes[] = {1000, 300, 37, 1};
    uint64_t data[1000];
    cl_int err;
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        clfold_type type = CASES[c].type;
        clfold_op op = CASES[c].op;
        if (type == CLFOLD_DOUBLE)
            fill_small(data, 1000, type, rng); /* exact sums */
        else if (op == CLFOLD_PROD && type == CLFOLD_FLOAT)
            fill_product(data, 1000, type, rng); /* exact products of scaled pairs */
        else if (type == CLFOLD_FLOAT || type == CLFOLD_HALF)
            fill_unit(data, 1000, type, rng);
        else
            fill_integers(data, 1000, type, op, rng);
        cl_mem buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       sizeof data, data, &err);
        EXPECT(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            EXPECT_STATUS(ctx, clfold_set_kernel(ctx, kernel, blocks[b]), CLFOLD_SUCCESS);
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                check_reduction(ctx, buffer, data, 0, sizes[s], type, op, kernel, blocks[b]);
        }
        clReleaseMemObject(buffer);
    }
}

/*
 * The auto path's 8- and 16-bit sums add blocks of 16 vectors of 16 values
 * in 32 bits (cl/reduce/cpu.cl): they need more elements than the cases above
 * before that loop runs, and an odd offset makes its loads unaligned.
 */
static void run_auto_small_int_sums(clfold_context *ctx, test_rng *rng)
{
    const clfold_type types[] = {CLFOLD_UINT8, CLFOLD_INT16};
    const size_t n = 3001, offset = 1;
    uint64_t data[1000]; /* 8000 bytes: n + offset elements of either type */
    cl_int err;
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_AUTO, 0), CLFOLD_SUCCESS);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        size_t size = clfold_type_size(types[t]);
        fill_integers(data, sizeof data / size, types[t], CLFOLD_SUM, rng);
        cl_mem buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       sizeof data, data, &err);
        EXPECT(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        check_reduction(ctx, buffer, data, offset, n, types[t], CLFOLD_SUM, CLFOLD_AUTO, 0);
        clReleaseMemObject(buffer);
    }
}

/* Exact sums of small integers: any order adds them exactly, so the reference's bits are right. */
static void run_exact(clfold_context *ctx, clfold_kernel kernel, test_rng *rng)
{
    const clfold_type types[] = {CLFOLD_DOUBLE, CLFOLD_FLOAT, CLFOLD_HALF};
    const size_t blocks[] = {1, 4, 32};
    const size_t sizes[] = {1000, 37, 1};
    uint64_t data[1000];
    cl_int err;
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        fill_small(data, 1000, types[t], rng);
        cl_mem buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       sizeof data, data, &err);
        EXPECT(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            EXPECT_STATUS(ctx, clfold_set_kernel(ctx, kernel, kernel == CLFOLD_AUTO ? 0 : blocks[b]),
                          CLFOLD_SUCCESS);
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                check_reduction(ctx, buffer, data, 0, sizes[s], types[t], CLFOLD_SUM, kernel, blocks[b]);
        }
        clReleaseMemObject(buffer);
    }
}

/* Argmin and argmax: the first least or greatest element wins, and the first NaN. */
static const struct {
    clfold_type type;
    clfold_op op;
} ARG_CASES[] = {{CLFOLD_FLOAT, CLFOLD_ARGMIN}, {CLFOLD_HALF, CLFOLD_ARGMAX},
                 {CLFOLD_INT8, CLFOLD_ARGMAX},  {CLFOLD_UINT64, CLFOLD_ARGMIN},
                 {CLFOLD_DOUBLE, CLFOLD_ARGMAX}};

/*
 * Random data with the extreme (beyond the data: -2 or 2 for floats, 0 for
 * uint64; int8's random bits hold -128 and 127 many times) at elements 20
 * and 250 of each offset's range; floats with -0 and +0 and a NaN at
 * element 600. The NaN is positive: Oclgrind 21.10 takes a half's negative
 * NaN or -inf for a number in gpu.cl's half_bits_to_float (clang switches
 * on the exponent as an i5, and Oclgrind keeps the sign bit in its bit 5).
 */
static void fill_arg(void *data, size_t n, clfold_type type, clfold_op op, test_rng *rng)
{
    double extreme = op == CLFOLD_ARGMIN ? -2.0 : 2.0;
    if (type_is_float(type))
        fill_unit(data, n, type, rng);
    else
        fill_integers(data, n, type, CLFOLD_SUM, rng);
    for (size_t offset = 0; offset <= 3 && type != CLFOLD_INT8; offset += 3) {
        store_element(data, offset + 20, type, 0, extreme);
        store_element(data, offset + 250, type, 0, extreme);
    }
    if (!type_is_float(type))
        return;
    store_element(data, 5, type, 0, -0.0);
    store_element(data, 7, type, 0, 0.0);
    store_element(data, 600, type, 0, NAN);
}

static void run_arg(clfold_context *ctx, clfold_kernel kernel, test_rng *rng)
{
    const size_t blocks[] = {1, 4, 32, 64, 128};
    const size_t sizes[] = {1000, 300, 37, 1};
    uint64_t data[1003];
    cl_int err;
    for (size_t c = 0; c < sizeof ARG_CASES / sizeof ARG_CASES[0]; c++) {
        clfold_type type = ARG_CASES[c].type;
        clfold_op op = ARG_CASES[c].op;
        if (type == CLFOLD_DOUBLE && !test_device_has_fp64(clfold_device(ctx)))
            continue;
        fill_arg(data, 1003, type, op, rng);
        cl_mem buffer = clCreateBuffer(clfold_cl_context(ctx),
                                       CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, data,
                                       &err);
        EXPECT(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            EXPECT_STATUS(ctx, clfold_set_kernel(ctx, kernel, blocks[b]), CLFOLD_SUCCESS);
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                int64_t index = 0;
                if (kernel == CLFOLD_ATOMIC) {
                    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 0, sizes[s], type, op,
                                                            &index),
                                  CLFOLD_ERROR_UNSUPPORTED);
                    continue;
                }
                check_reduction(ctx, buffer, data, 0, sizes[s], type, op, kernel, blocks[b]);
                check_reduction(ctx, buffer, data, 3, sizes[s], type, op, kernel, blocks[b]);
            }
        }
        clReleaseMemObject(buffer);
    }
}

int main(int argc, char **argv)
{
    clfold_kernel chosen[N_KERNELS];
    size_t n_chosen = 0;
    test_rng rng = {UINT64_C(0x6772696e64)};
    bool exact = false, arg = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--exact") == 0) {
            exact = true;
        } else if (strcmp(argv[i], "--arg") == 0) {
            arg = true;
        } else if (!take_kernel_arg(argc, argv, &i, chosen, &n_chosen, N_KERNELS)) {
            fprintf(stderr, "usage: %s [--exact | --arg] [--kernel NAME | NAME]...\n", argv[0]);
            return 2;
        }
    }
    if (n_chosen == 0) {
        memcpy(chosen, ALL_KERNELS, sizeof chosen);
        n_chosen = N_KERNELS;
    }
    clfold_context *ctx = test_context();
    if (ctx == NULL)
        return 1;
    for (size_t k = 0; k < n_chosen; k++) {
        if (exact) {
            run_exact(ctx, chosen[k], &rng);
            continue;
        }
        if (arg) {
            run_arg(ctx, chosen[k], &rng);
            continue;
        }
        run_kernel(ctx, chosen[k], &rng);
        if (chosen[k] == CLFOLD_AUTO)
            run_auto_small_int_sums(ctx, &rng);
    }
    clfold_destroy(ctx);
    return test_finish("oclgrind_driver");
}
