/*
 * test_mpi.c: libclfold_mpi (clfold_mpi.h), run by ctest under
 * `mpiexec -n K` for K = 1..4, each rank on its own context.
 *
 *   test_mpi --results    Every rank makes the same whole array and reduces
 *                         its part of it; every rank must get the whole's
 *                         result: exact sums the bits of exact_reference.h's
 *                         correctly rounded sum (so the same bits for every
 *                         K), integers, min, max and xor reference_reduce's,
 *                         argmin and argmax the index into the whole (ties
 *                         across the parts' borders, NaN), default float
 *                         sums within their bound; every rank the same
 *                         bits. Three splits (even, uneven with empty
 *                         parts, all on one rank), from host memory and
 *                         from ranges of a buffer. Then float min and max
 *                         of -0 against +0 and NaN against a number across
 *                         the ranks' merge, in both orders.
 *   test_mpi --failures   Every failure reaches every rank, in bounded time
 *                         (ctest's timeout): a rank's bad type, a rank that
 *                         reduces another operator or accuracy, a rank's own
 *                         failure through clfold_mpi_agree, a rank's bytes
 *                         that are no partial, an argmin of nothing; then a
 *                         reduction on the same handle still works.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clfold_mpi.h"
#include "exact_reference.h"
#include "util.h"

#define N 100003

static int rank, ranks;

/* ---- the parts ------------------------------------------------------------ */

enum split { EVEN, UNEVEN, ONE_RANK, SPLITS };
static const char *const split_names[SPLITS] = {"even", "uneven", "one rank"};

/*
 * This rank's part [*first, *first + *count) of n elements. UNEVEN gives
 * rank 0 nothing and the others cuts from a generator every rank seeds
 * alike; ONE_RANK gives everything to the last rank.
 */
static void my_part(enum split split, size_t n, size_t *first, size_t *count)
{
    size_t cut[5] = {0};
    cut[ranks] = n;
    if (split == EVEN) {
        for (int r = 1; r < ranks; r++)
            cut[r] = n * (size_t)r / (size_t)ranks;
    } else if (split == UNEVEN) {
        test_rng rng = {(uint64_t)n};
        for (int r = 1; r < ranks; r++) {
            size_t low = r == 1 ? 0 : cut[r - 1];
            cut[r] = r == 1 ? 0 : low + (size_t)rng_below(&rng, n - low + 1);
        }
    } else {
        for (int r = 1; r < ranks; r++)
            cut[r] = 0;
    }
    *first = cut[rank];
    *count = cut[rank + 1] - cut[rank];
}

/* ---- the data sets -------------------------------------------------------- */

struct data_set {
    const char *name;
    clfold_type type;
    clfold_op op;
    clfold_accuracy accuracy;
};

static const struct data_set sets[] = {
    {"exact float sum", CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_EXACT},
    {"exact double sum", CLFOLD_DOUBLE, CLFOLD_SUM, CLFOLD_ACCURACY_EXACT},
    {"exact half sum", CLFOLD_HALF, CLFOLD_SUM, CLFOLD_ACCURACY_EXACT},
    {"float sum", CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
    {"int32 sum", CLFOLD_INT32, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
    {"int64 sum", CLFOLD_INT64, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
    {"uint8 sum", CLFOLD_UINT8, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
    {"uint64 xor", CLFOLD_UINT64, CLFOLD_XOR, CLFOLD_ACCURACY_DEFAULT},
    {"int16 min", CLFOLD_INT16, CLFOLD_MIN, CLFOLD_ACCURACY_DEFAULT},
    {"float max", CLFOLD_FLOAT, CLFOLD_MAX, CLFOLD_ACCURACY_DEFAULT},
    {"float argmax", CLFOLD_FLOAT, CLFOLD_ARGMAX, CLFOLD_ACCURACY_DEFAULT},
    {"int32 argmin", CLFOLD_INT32, CLFOLD_ARGMIN, CLFOLD_ACCURACY_DEFAULT},
    {"double argmin with NaN", CLFOLD_DOUBLE, CLFOLD_ARGMIN, CLFOLD_ACCURACY_DEFAULT},
    {"double max with NaN", CLFOLD_DOUBLE, CLFOLD_MAX, CLFOLD_ACCURACY_DEFAULT},
};
#define SETS (sizeof sets / sizeof sets[0])

/*
 * The whole array, the same on every rank. Float sums mix magnitudes that
 * cancel (so that a wrong merge shows in the bits); arg-reductions hold
 * their extreme at several places, so that the first must win across
 * parts; the NaN sets a NaN late and one early.
 */
static void make_whole(const struct data_set *set, void *data, test_rng *rng)
{
    if (type_is_float(set->type))
        fill_unit(data, N, set->type, rng);
    else
        fill_integers(data, N, set->type, set->op, rng);
    if (set->op == CLFOLD_SUM && set->type != CLFOLD_HALF && type_is_float(set->type)) {
        store_element(data, 17, set->type, 0, 0x1p40);
        store_element(data, N / 2 + 5, set->type, 0, -0x1p40);
        store_element(data, N - 3, set->type, 0, 0x1p-30);
    }
    if (set->op == CLFOLD_ARGMAX || set->op == CLFOLD_ARGMIN) {
        double extreme = set->op == CLFOLD_ARGMAX ? 2.0 : -2.0;
        int64_t integer = set->op == CLFOLD_ARGMAX ? INT32_MAX : INT32_MIN;
        const size_t at[] = {N / 3 + 1, N / 3 + 2, N / 2, N - 1};
        for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
            store_element(data, at[i], set->type, integer, extreme);
    }
    if (set->type == CLFOLD_DOUBLE && set->op != CLFOLD_SUM) {
        store_element(data, N - 7, set->type, 0, NAN);
        store_element(data, N / 4, set->type, 0, NAN);
    }
}

/* Whether `got` is the whole's result, as the set's rules say. */
static bool right(const struct data_set *set, const void *data, const reference_value *got)
{
    clfold_type result;
    reference_value want;
    long double sum_abs = 0;
    clfold_result_type(set->type, set->op, &result);
    if (set->accuracy == CLFOLD_ACCURACY_EXACT) {
        uint64_t bits = exact_bits_of(set->type, data, N);
        return result == CLFOLD_DOUBLE ? got->u64 == bits : got->u32 == (uint32_t)bits;
    }
    reference_reduce(data, N, set->type, set->op, &want, &sum_abs);
    if (set->op == CLFOLD_SUM && type_is_float(set->type))
        return reference_close(got, &want, result, set->op, set->accuracy, N, sum_abs, false);
    return reference_equal(got, &want, result);
}

/* One set, one split, from host memory and from the whole's buffer. */
static void check_set(clfold_mpi *mpi, clfold_context *ctx, const struct data_set *set,
                      const void *data, cl_mem buffer, enum split split)
{
    size_t first, count, size = clfold_type_size(set->type);
    my_part(split, N, &first, &count);
    for (int from_buffer = 0; from_buffer < 2; from_buffer++) {
        reference_value got = {0};
        clfold_status status =
            from_buffer ? clfold_mpi_reduce_buffer(mpi, ctx, buffer, first, count, set->type,
                                                   set->op, &got)
                        : clfold_mpi_reduce_host(mpi, ctx, (const char *)data + first * size, count,
                                                 set->type, set->op, &got);
        EXPECT(status == CLFOLD_SUCCESS, "%s, %s split, %s: %s: %s", set->name, split_names[split],
               from_buffer ? "buffer" : "host", clfold_status_string(status),
               clfold_mpi_last_error(mpi));
        if (status == CLFOLD_SUCCESS)
            EXPECT(right(set, data, &got), "%s, %s split, %s, %d ranks: got %#llx, not the whole's",
                   set->name, split_names[split], from_buffer ? "buffer" : "host", ranks,
                   (unsigned long long)got.u64);
        /* Every rank the same bits, also where merges round. */
        uint64_t bits[2] = {got.u64, ~got.u64}, most[2];
        MPI_Allreduce(bits, most, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        EXPECT(most[0] == ~most[1], "%s, %s split: the ranks got different bits (%#llx here)",
               set->name, split_names[split], (unsigned long long)got.u64);
    }
}

/* Whether `mine` holds on every rank: what decides whether a rank takes part in a collective. */
static bool on_every_rank(bool mine)
{
    int here = mine, everywhere = 0;
    MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return everywhere != 0;
}

static void test_results(clfold_mpi *mpi, clfold_context *ctx)
{
    bool fp64 = on_every_rank(test_device_has_fp64(clfold_device(ctx)));
    for (size_t s = 0; s < SETS; s++) {
        const struct data_set *set = &sets[s];
        if (set->type == CLFOLD_DOUBLE && !fp64)
            continue; /* a rank's device without doubles: every rank skips them */
        test_rng rng = {0x5eed + s};
        size_t bytes = N * clfold_type_size(set->type);
        void *data = malloc(bytes);
        cl_int err = CL_SUCCESS;
        cl_mem buffer = NULL;
        EXPECT(data != NULL, "no memory for %s", set->name);
        if (data != NULL) {
            make_whole(set, data, &rng);
            buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    bytes, data, &err);
            EXPECT(err == CL_SUCCESS, "a buffer for %s: %d", set->name, err);
        }
        EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, set->accuracy), CLFOLD_SUCCESS);
        bool ready = on_every_rank(data != NULL && err == CL_SUCCESS);
        for (int split = 0; split < SPLITS && ready; split++)
            check_set(mpi, ctx, set, data, buffer, (enum split)split);
        if (buffer != NULL)
            clReleaseMemObject(buffer);
        free(data);
    }
    clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT);
}

/*
 * Float min and max where the ranks' merge meets signed zeros or a NaN:
 * rank 0 holds `a`, every other rank `b`, for each ordered pair of -0, +0,
 * NaN and 1, from host memory. MPI merges a rank's partial into another's
 * in an order of its own, so each pair runs both ways; every rank must get
 * the reference's fold of what the ranks hold (-0 below +0, a NaN on
 * either side NaN), and the same bits.
 */
static void test_signs_and_nan(clfold_mpi *mpi, clfold_context *ctx)
{
    static const float values[] = {-0.0f, 0.0f, NAN, 1.0f};
    static const clfold_op ops[] = {CLFOLD_MIN, CLFOLD_MAX};
    enum { VALUES = sizeof values / sizeof values[0] };
    for (size_t o = 0; o < 2; o++)
        for (size_t a = 0; a < VALUES; a++)
            for (size_t b = 0; b < VALUES; b++) {
                float mine = rank == 0 ? values[a] : values[b], all[2] = {values[a], values[b]};
                reference_value got = {0}, want = {0};
                long double sum_abs = 0;
                reference_reduce(all, ranks > 1 ? 2 : 1, CLFOLD_FLOAT, ops[o], &want, &sum_abs);
                clfold_status status =
                    clfold_mpi_reduce_host(mpi, ctx, &mine, 1, CLFOLD_FLOAT, ops[o], &got);
                EXPECT(status == CLFOLD_SUCCESS && reference_equal(&got, &want, CLFOLD_FLOAT),
                       "float %s, rank 0 %g, the others %g, %d ranks: %s, %g, want %g",
                       clfold_op_name(ops[o]), values[a], values[b], ranks,
                       clfold_status_string(status), got.f32, want.f32);
                uint64_t bits[2] = {got.u32, ~(uint64_t)got.u32}, most[2];
                MPI_Allreduce(bits, most, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
                EXPECT(most[0] == ~most[1], "float %s of %g and %g: the ranks got different bits",
                       clfold_op_name(ops[o]), values[a], values[b]);
            }
}

/* ---- failures ------------------------------------------------------------- */

/* The call failed on every rank with `want`, naming `failed` (-1: no rank) and saying `words`. */
static void expect_failure(clfold_mpi *mpi, clfold_status got, clfold_status want, int failed,
                           const char *words, const char *what)
{
    const char *message = clfold_mpi_last_error(mpi);
    EXPECT(got == want, "%s: %s, want %s (%s)", what, clfold_status_string(got),
           clfold_status_string(want), message);
    EXPECT(clfold_mpi_failed_rank(mpi) == failed, "%s: failed rank %d, want %d", what,
           clfold_mpi_failed_rank(mpi), failed);
    EXPECT(strstr(message, words) != NULL, "%s: the message \"%s\" does not say \"%s\"", what,
           message, words);
}

/* A float sum of 1000 ones, split evenly, must still give 1000 on the same handle. */
static void expect_usable(clfold_mpi *mpi, clfold_context *ctx, const char *after)
{
    float ones[1000], sum = 0;
    size_t first, count;
    for (int i = 0; i < 1000; i++)
        ones[i] = 1.0f;
    my_part(EVEN, 1000, &first, &count);
    clfold_status status =
        clfold_mpi_reduce_host(mpi, ctx, ones + first, count, CLFOLD_FLOAT, CLFOLD_SUM, &sum);
    EXPECT(status == CLFOLD_SUCCESS && sum == 1000.0f, "after %s: %s, sum %g (%s)", after,
           clfold_status_string(status), sum, clfold_mpi_last_error(mpi));
    EXPECT(clfold_mpi_last_error(mpi)[0] == '\0' && clfold_mpi_failed_rank(mpi) == -1,
           "after a success the handle still says \"%s\"", clfold_mpi_last_error(mpi));
}

static void test_failures(clfold_mpi *mpi, clfold_context *ctx)
{
    float data[64];
    int32_t result[2];
    char words[64];
    int last = ranks - 1;
    for (int i = 0; i < 64; i++)
        data[i] = (float)i;

    /* The last rank asks for a type that does not exist. */
    clfold_type type = rank == last ? (clfold_type)99 : CLFOLD_FLOAT;
    clfold_status got = clfold_mpi_reduce_host(mpi, ctx, data, 64, type, CLFOLD_SUM, result);
    snprintf(words, sizeof words, "rank %d: ", last);
    expect_failure(mpi, got, CLFOLD_ERROR_INVALID_TYPE, last, words, "a rank's unknown type");
    expect_usable(mpi, ctx, "an unknown type");

    /* Rank 0 has no result pointer: its own check, before any collective. */
    got = clfold_mpi_reduce_host(mpi, ctx, data, 64, CLFOLD_FLOAT, CLFOLD_SUM,
                                 rank == 0 ? NULL : result);
    expect_failure(mpi, got, CLFOLD_ERROR_INVALID_ARGUMENT, 0, "rank 0: ", "rank 0's NULL result");

    if (ranks > 1) {
        /* The last rank takes the maximum while the others sum. */
        got = clfold_mpi_reduce_host(mpi, ctx, data, 64, CLFOLD_FLOAT,
                                     rank == last ? CLFOLD_MAX : CLFOLD_SUM, result);
        snprintf(words, sizeof words, "float sum on rank 0, float max on rank %d", last);
        expect_failure(mpi, got, CLFOLD_ERROR_INVALID_ARGUMENT, -1, words, "another operator");

        /* The same type and operator at another accuracy: partials that do not merge. */
        clfold_set_accuracy(ctx, rank == last ? CLFOLD_ACCURACY_EXACT : CLFOLD_ACCURACY_DEFAULT);
        got = clfold_mpi_reduce_host(mpi, ctx, data, 64, CLFOLD_FLOAT, CLFOLD_SUM, result);
        snprintf(words, sizeof words, "float sum (exact) on rank %d", last);
        expect_failure(mpi, got, CLFOLD_ERROR_INVALID_ARGUMENT, -1, words, "another accuracy");
        clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT);
        expect_usable(mpi, ctx, "another accuracy");
    }

    /* The caller's own step failed on the last rank. */
    got = clfold_mpi_agree(mpi, rank == last ? CLFOLD_ERROR_DEVICE_NOT_FOUND : CLFOLD_SUCCESS,
                           rank == last ? "no device matches 'nosuch'" : NULL);
    snprintf(words, sizeof words, "rank %d: no device matches 'nosuch'", last);
    expect_failure(mpi, got, CLFOLD_ERROR_DEVICE_NOT_FOUND, last, words, "clfold_mpi_agree");
    got = clfold_mpi_agree(mpi, CLFOLD_SUCCESS, NULL);
    EXPECT(got == CLFOLD_SUCCESS && clfold_mpi_failed_rank(mpi) == -1,
           "every rank agreeing on success: %s", clfold_status_string(got));

    /* Bytes that are no partial, on the last rank. */
    clfold_partial partial;
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, data, 64, CLFOLD_FLOAT, CLFOLD_SUM, &partial),
                  CLFOLD_SUCCESS);
    if (rank == last)
        memset(&partial, 0x5a, sizeof partial);
    got = clfold_mpi_allreduce_partial(mpi, &partial);
    snprintf(words, sizeof words, "rank %d: the bytes given are not", last);
    expect_failure(mpi, got, CLFOLD_ERROR_INVALID_ARGUMENT, last, words, "a spoiled partial");

    /* Partials through clfold_mpi_allreduce_partial: every rank's 0..63, so 2016 each. */
    EXPECT_STATUS(ctx, clfold_reduce_host_partial(ctx, data, 64, CLFOLD_FLOAT, CLFOLD_SUM, &partial),
                  CLFOLD_SUCCESS);
    got = clfold_mpi_allreduce_partial(mpi, &partial);
    float sum = 0;
    EXPECT(got == CLFOLD_SUCCESS && clfold_partial_finish(&partial, &sum) == CLFOLD_SUCCESS &&
               sum == 2016.0f * (float)ranks,
           "allreduce of partials: %s, sum %g, want %g", clfold_status_string(got), sum,
           2016.0 * ranks);

    /* An argmin of no element at all: refused on every rank alike. */
    int64_t index = 0;
    got = clfold_mpi_reduce_host(mpi, ctx, data, 0, CLFOLD_FLOAT, CLFOLD_ARGMIN, &index);
    expect_failure(mpi, got, CLFOLD_ERROR_INVALID_ARGUMENT, -1, "every rank's part is empty",
                   "an argmin of nothing");
    expect_usable(mpi, ctx, "an argmin of nothing");

    /* Misuse that fails on this rank alone, before any collective. */
    EXPECT(clfold_mpi_reduce_host(NULL, ctx, data, 64, CLFOLD_FLOAT, CLFOLD_SUM, result) ==
               CLFOLD_ERROR_INVALID_ARGUMENT,
           "a NULL handle accepted");
    clfold_mpi *none = NULL;
    EXPECT(clfold_mpi_create(&none, MPI_COMM_NULL) == CLFOLD_ERROR_INVALID_ARGUMENT && none == NULL &&
               strstr(clfold_mpi_last_error(NULL), "MPI_COMM_NULL") != NULL,
           "MPI_COMM_NULL accepted, or not named: \"%s\"", clfold_mpi_last_error(NULL));
    clfold_mpi_destroy(NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    bool results = argc == 2 && strcmp(argv[1], "--results") == 0;
    bool failures = argc == 2 && strcmp(argv[1], "--failures") == 0;
    clfold_context *ctx = NULL;
    clfold_mpi *mpi = NULL;
    int exit_status = 1;

    if (!results && !failures) {
        fprintf(stderr, "usage: mpiexec -n K test_mpi --results|--failures\n");
    } else if (ranks > 4) {
        fprintf(stderr, "test_mpi: at most 4 ranks, not %d\n", ranks);
    } else if ((ctx = test_context()) == NULL) {
        fprintf(stderr, "test_mpi: rank %d has no context\n", rank);
    } else if (clfold_mpi_create(&mpi, MPI_COMM_WORLD) != CLFOLD_SUCCESS) {
        fprintf(stderr, "test_mpi: clfold_mpi_create: %s\n", clfold_mpi_last_error(NULL));
    } else {
        if (results) {
            test_results(mpi, ctx);
            test_signs_and_nan(mpi, ctx);
        }
        else
            test_failures(mpi, ctx);
        char name[64];
        snprintf(name, sizeof name, "test_mpi %s, rank %d of %d", argv[1], rank, ranks);
        exit_status = test_finish(name);
    }
    clfold_mpi_destroy(mpi);
    clfold_destroy(ctx);
    /* A rank without a context must not leave the others in MPI_Comm_dup: abort the job. */
    if (exit_status != 0 && (ctx == NULL || mpi == NULL))
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return exit_status;
}
