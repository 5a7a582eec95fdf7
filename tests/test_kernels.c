/*
 * test_kernels.c: every kernel (AUTO, K1..K7, ATOMIC) at every block size in
 * {1, 2, 32, 64, 128, 256, device maximum}, int32 sum, on the edge sizes
 * {0, 1, 2, 3, 31, 33, block-1, block+1, 1000, 4097, 100003, 2^22+1},
 * compared exactly with reference_reduce. The input is full-range random
 * int32, so every bit of every element reaches the int64 sum (which never
 * wraps: |sum| < 2^31 * 2^23). Each reduction starts at a different offset
 * of one device buffer, so the kernels' offset argument is exercised too.
 *
 * Then determinism: a float sum of random data depends on the order of its
 * additions, and the contract is that one path (kernel and block) gives the
 * same bits every time. The same sum is reduced from host memory in the
 * test's context, from a device buffer after other reductions have left
 * the scratch memory holding other values, and in a second context with
 * its own programs and scratch: the three must be equal on every kernel but
 * ATOMIC (whose order is the hardware's), and within float_sum_tolerance of
 * the exact sum on all of them.
 *
 * --agreement: where the contract says every path gives the same bits
 * (integers, min and max, bitwise operators, float sums of data that every
 * order adds exactly), every kernel at blocks 64 and 256 reduces the same
 * data sets, and each result is compared with the other kernels' (and with
 * the reference): a path that differs is named beside the one it differs
 * from.
 *
 * Usage: test_kernels [--kernel NAME | NAME]... | --agreement
 * (default: all kernels). CTest runs one kernel per test, so that they run
 * in parallel and a failure names the kernel, and the agreement apart.
 */
#include "util.h"

#define BIG_SIZE (((size_t)1 << 22) + 1)
#define MAX_OFFSET 16

/*
 * Every block size runs every size, 2^22+1 included: on POCL (2 cores) even
 * blocks of 1 and 2 work-items, millions of work-groups, take well under a
 * second once compiled. A whole kernel's run takes about 1-4 s with a cold
 * POCL kernel cache and under 1 s with a warm one.
 */

static const clfold_kernel ALL_KERNELS[] = {CLFOLD_AUTO, CLFOLD_K1, CLFOLD_K2,
                                            CLFOLD_K3,   CLFOLD_K4, CLFOLD_K5,
                                            CLFOLD_K6,   CLFOLD_K7, CLFOLD_ATOMIC};
#define N_KERNELS (sizeof ALL_KERNELS / sizeof ALL_KERNELS[0])

struct fixture {
    clfold_context *ctx;
    clfold_context *other; /* a second context: its own programs and scratch */
    size_t max_block;
    bool has_fp64;
    int32_t *ints;   /* BIG_SIZE + MAX_OFFSET random int32 */
    float *floats;   /* BIG_SIZE random floats in [-1, 1) */
    cl_mem ints_buffer;
    cl_mem floats_buffer;
};

static int compare_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The sorted, duplicate-free edge sizes for `block`; returns how many. */
static size_t edge_sizes(size_t block, size_t *sizes)
{
    const size_t candidates[] = {0,    1,    2,      3,       31, 33, block - 1, block + 1,
                                 1000, 4097, 100003, BIG_SIZE};
    size_t count = sizeof candidates / sizeof candidates[0];
    memcpy(sizes, candidates, sizeof candidates);
    qsort(sizes, count, sizeof *sizes, compare_size);
    size_t unique = 0;
    for (size_t i = 0; i < count; i++)
        if (unique == 0 || sizes[unique - 1] != sizes[i])
            sizes[unique++] = sizes[i];
    return unique;
}

/* Whether the last run took the path called `path`. */
static bool info_path_is(const clfold_context *ctx, const char *path)
{
    clfold_run_info info;
    return clfold_last_run(ctx, &info) == CLFOLD_SUCCESS && info.path != NULL &&
           strcmp(info.path, path) == 0;
}

/* One int32 sum of n elements from `offset`, against the reference. */
static void check_int_sum(struct fixture *f, clfold_kernel kernel, size_t block, size_t n,
                          size_t offset)
{
    reference_value got = {.i64 = 0x5a5a5a5a5a5a5a5a}, want;
    clfold_status status = clfold_reduce_buffer(f->ctx, f->ints_buffer, offset, n, CLFOLD_INT32,
                                                CLFOLD_SUM, &got);
    EXPECT(status == CLFOLD_SUCCESS, "kernel=%s block=%zu n=%zu: %s: %s",
           clfold_kernel_name(kernel), block, n, clfold_status_string(status),
           clfold_last_error(f->ctx));
    if (status != CLFOLD_SUCCESS)
        return;
    reference_reduce(f->ints + offset, n, CLFOLD_INT32, CLFOLD_SUM, &want, NULL);
    bool same = reference_equal(&got, &want, CLFOLD_INT64);
    EXPECT(same, "int32 sum differs from the reference");
    if (!same)
        print_mismatch("int32 sum", kernel, block, n, CLFOLD_INT32, CLFOLD_SUM, &got, &want,
                       CLFOLD_INT64);
    /*
     * What ran: a ladder kernel at the block asked for (K1-K3 may run as K4
     * with one work-item per group), or auto's device shape, whose CPU
     * shape has no work-groups to size.
     */
    clfold_run_info info;
    bool cpu_shape = kernel == CLFOLD_AUTO && info_path_is(f->ctx, "cpu");
    if (n > 0 && clfold_last_run(f->ctx, &info) == CLFOLD_SUCCESS)
        EXPECT(info.passes >= 1 && info.path != NULL &&
                   (cpu_shape || info.block_size == block) &&
                   (kernel == CLFOLD_AUTO ? info.kernel == CLFOLD_AUTO
                                          : info.kernel == kernel || block == 1),
               "kernel=%s n=%zu: last run says %s, block %zu, %u passes; want block %zu",
               clfold_kernel_name(kernel), n, clfold_kernel_name(info.kernel), info.block_size,
               info.passes, block);
}

/* A float sum of n elements, reduced three ways (see the header): same bits (but ATOMIC), close to exact. */
static void check_determinism(struct fixture *f, clfold_kernel kernel, size_t block, size_t n)
{
    reference_value first = {.f64 = 0}, from_buffer = {.f64 = 1}, elsewhere = {.f64 = 2}, want;
    reference_value other_type;
    long double sum_abs = 0;
    clfold_status s1 = clfold_reduce_host(f->ctx, f->floats, n, CLFOLD_FLOAT, CLFOLD_SUM, &first);
    /* Other values through the scratch memory: a different size, type and operator. */
    clfold_status s2 = clfold_reduce_buffer(f->ctx, f->ints_buffer, 3, n / 2 + 7, CLFOLD_INT32,
                                            CLFOLD_MAX, &other_type);
    clfold_status s3 = clfold_reduce_buffer(f->ctx, f->floats_buffer, 0, n, CLFOLD_FLOAT,
                                            CLFOLD_SUM, &from_buffer);
    clfold_status s4 = clfold_set_kernel(f->other, kernel, block);
    if (s4 == CLFOLD_SUCCESS)
        s4 = clfold_reduce_host(f->other, f->floats, n, CLFOLD_FLOAT, CLFOLD_SUM, &elsewhere);
    EXPECT(s1 == CLFOLD_SUCCESS && s2 == CLFOLD_SUCCESS && s3 == CLFOLD_SUCCESS &&
               s4 == CLFOLD_SUCCESS,
           "kernel=%s block=%zu n=%zu: %s, %s, %s, %s: %s / %s", clfold_kernel_name(kernel), block,
           n, clfold_status_string(s1), clfold_status_string(s2), clfold_status_string(s3),
           clfold_status_string(s4), clfold_last_error(f->ctx), clfold_last_error(f->other));
    if (s1 != CLFOLD_SUCCESS || s3 != CLFOLD_SUCCESS || s4 != CLFOLD_SUCCESS)
        return;
    if (kernel != CLFOLD_ATOMIC) {
        bool same = reference_equal(&first, &from_buffer, CLFOLD_FLOAT) &&
                    reference_equal(&first, &elsewhere, CLFOLD_FLOAT);
        EXPECT(same, "float sum not deterministic: %a from host memory, %a from a buffer after "
               "other reductions, %a in a second context", first.f32, from_buffer.f32,
               elsewhere.f32);
        if (!same)
            print_mismatch("determinism", kernel, block, n, CLFOLD_FLOAT, CLFOLD_SUM,
                           &from_buffer, &first, CLFOLD_FLOAT);
    }
    reference_reduce(f->floats, n, CLFOLD_FLOAT, CLFOLD_SUM, &want, &sum_abs);
    double error = fabs((double)(result_value(&first, CLFOLD_FLOAT) - result_value(&want, CLFOLD_FLOAT)));
    double tolerance = float_sum_tolerance(n, CLFOLD_FLOAT, sum_abs);
    EXPECT(error <= tolerance, "kernel=%s block=%zu n=%zu: float sum %.9g, exact %.9g: error %g > %g",
           clfold_kernel_name(kernel), block, n, first.f32, want.f32, error, tolerance);
}

/* ---- agreement between paths ---------------------------------------------------- */

/* Data sets whose results the contract fixes to the bit on every path. */
static const struct {
    clfold_type type;
    clfold_op op;
} AGREEMENT_CASES[] = {
    {CLFOLD_INT32, CLFOLD_SUM}, {CLFOLD_UINT64, CLFOLD_XOR}, {CLFOLD_INT8, CLFOLD_SUM},
    {CLFOLD_INT16, CLFOLD_MAX}, {CLFOLD_UINT32, CLFOLD_AND}, {CLFOLD_INT64, CLFOLD_PROD},
    {CLFOLD_FLOAT, CLFOLD_MIN}, {CLFOLD_FLOAT, CLFOLD_MAX},  {CLFOLD_FLOAT, CLFOLD_SUM},
    {CLFOLD_HALF, CLFOLD_SUM},  {CLFOLD_DOUBLE, CLFOLD_SUM},
};

/* Every kernel at blocks 64 and 256 on one data set; each result against the first path's. */
static void check_agreement(struct fixture *f, void *data, size_t n, clfold_type type,
                            clfold_op op)
{
    const size_t blocks[] = {64, f->max_block < 256 ? f->max_block : 256};
    reference_value first, want;
    clfold_type result_type;
    const char *first_path = NULL;
    char path[64];
    clfold_result_type(type, op, &result_type);
    reference_reduce(data, n, type, op, &want, NULL);
    for (size_t k = 0; k < N_KERNELS; k++) {
        for (size_t b = 0; b < 2; b++) {
            reference_value got;
            memset(&got, 0xa5, sizeof got);
            clfold_status status = clfold_set_kernel(f->ctx, ALL_KERNELS[k], blocks[b]);
            if (status == CLFOLD_SUCCESS)
                status = clfold_reduce_host(f->ctx, data, n, type, op, &got);
            snprintf(path, sizeof path, "%s at block %zu", clfold_kernel_name(ALL_KERNELS[k]),
                     blocks[b]);
            EXPECT(status == CLFOLD_SUCCESS, "%s, n=%zu %s %s: %s: %s", path, n,
                   clfold_type_name(type), clfold_op_name(op), clfold_status_string(status),
                   clfold_last_error(f->ctx));
            if (status != CLFOLD_SUCCESS)
                continue;
            if (first_path == NULL) {
                first = got;
                first_path = clfold_kernel_name(ALL_KERNELS[k]);
            }
            bool agrees = reference_equal(&got, &first, result_type);
            EXPECT(agrees, "%s and %s at block %zu disagree", path, first_path, blocks[0]);
            EXPECT(reference_equal(&got, &want, result_type), "%s differs from the reference",
                   path);
            if (!agrees)
                print_mismatch("agreement", ALL_KERNELS[k], blocks[b], n, type, op, &got, &first,
                               result_type);
        }
    }
}

static void test_agreement(struct fixture *f)
{
    const size_t sizes[] = {5, 1021, 100003};
    test_rng rng = {UINT64_C(0x61677265)};
    void *data = malloc(100003 * 8);
    EXPECT(data != NULL, "no memory for the data");
    for (size_t c = 0; data != NULL && c < sizeof AGREEMENT_CASES / sizeof *AGREEMENT_CASES; c++) {
        clfold_type type = AGREEMENT_CASES[c].type;
        clfold_op op = AGREEMENT_CASES[c].op;
        if (type == CLFOLD_DOUBLE && !f->has_fp64) {
            printf("test_kernels: no cl_khr_fp64: double skipped\n");
            continue;
        }
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            if (!type_is_float(type))
                fill_integers(data, sizes[s], type, op, &rng);
            else if (op == CLFOLD_SUM)
                fill_small(data, sizes[s], type, &rng); /* every order adds these exactly */
            else
                fill_unit(data, sizes[s], type, &rng);
            check_agreement(f, data, sizes[s], type, op);
        }
    }
    free(data);
}

static void test_kernel(struct fixture *f, clfold_kernel kernel)
{
    const size_t blocks[] = {1, 2, 32, 64, 128, 256, f->max_block};
    size_t sizes[16];
    size_t offset = 0;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        size_t block = blocks[b];
        if (b > 0 && block <= blocks[b - 1])
            continue; /* a device whose maximum is 256 or less */
        clfold_status status = clfold_set_kernel(f->ctx, kernel, block);
        EXPECT(status == CLFOLD_SUCCESS, "clfold_set_kernel(%s, %zu): %s: %s",
               clfold_kernel_name(kernel), block, clfold_status_string(status),
               clfold_last_error(f->ctx));
        if (status != CLFOLD_SUCCESS)
            continue;
        size_t count = edge_sizes(block, sizes);
        for (size_t i = 0; i < count; i++) {
            check_int_sum(f, kernel, block, sizes[i], offset);
            offset = (offset + 5) % MAX_OFFSET;
        }
        check_determinism(f, kernel, block, 100003);
    }
}

static bool setup(struct fixture *f)
{
    test_rng rng = {UINT64_C(0x636c666f6c64)};
    cl_int err;
    f->ctx = test_context();
    f->other = test_context();
    if (f->ctx == NULL || f->other == NULL)
        return false;
    if (clGetDeviceInfo(clfold_device(f->ctx), CL_DEVICE_MAX_WORK_GROUP_SIZE,
                        sizeof f->max_block, &f->max_block, NULL) != CL_SUCCESS)
        return false;
    f->has_fp64 = test_device_has_fp64(clfold_device(f->ctx));
    f->ints = malloc((BIG_SIZE + MAX_OFFSET) * sizeof *f->ints);
    f->floats = malloc(BIG_SIZE * sizeof *f->floats);
    if (f->ints == NULL || f->floats == NULL)
        return false;
    fill_integers(f->ints, BIG_SIZE + MAX_OFFSET, CLFOLD_INT32, CLFOLD_SUM, &rng);
    fill_unit(f->floats, BIG_SIZE, CLFOLD_FLOAT, &rng);
    f->ints_buffer = clCreateBuffer(clfold_cl_context(f->ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    (BIG_SIZE + MAX_OFFSET) * sizeof *f->ints, f->ints, &err);
    if (err != CL_SUCCESS)
        return false;
    f->floats_buffer = clCreateBuffer(clfold_cl_context(f->ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                      BIG_SIZE * sizeof *f->floats, f->floats, &err);
    return err == CL_SUCCESS;
}

int main(int argc, char **argv)
{
    struct fixture f = {0};
    clfold_kernel chosen[N_KERNELS];
    size_t n_chosen = 0;

    bool agreement = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--agreement") == 0) {
            agreement = true;
        } else if (!take_kernel_arg(argc, argv, &i, chosen, &n_chosen, N_KERNELS)) {
            fprintf(stderr, "usage: %s [--kernel NAME | NAME]... | --agreement  "
                            "(auto, k1..k7, atomic)\n", argv[0]);
            return 2;
        }
    }
    if (n_chosen == 0) {
        memcpy(chosen, ALL_KERNELS, sizeof chosen);
        n_chosen = N_KERNELS;
    }
    if (!setup(&f)) {
        fprintf(stderr, "test_kernels: setup failed\n");
        return 1;
    }
    if (agreement)
        test_agreement(&f);
    else
        for (size_t k = 0; k < n_chosen; k++)
            test_kernel(&f, chosen[k]);
    clReleaseMemObject(f.ints_buffer);
    clReleaseMemObject(f.floats_buffer);
    clfold_destroy(f.ctx);
    clfold_destroy(f.other);
    free(f.ints);
    free(f.floats);
    return test_finish("test_kernels");
}
