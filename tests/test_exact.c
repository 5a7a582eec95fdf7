/*
 * test_exact.c: CLFOLD_ACCURACY_EXACT returns the correctly rounded sum,
 * bit for bit, on every kernel and block size, against the correctly
 * rounded sum of exact_reference.h, computed independently of the library.
 *
 *   test_exact --cases TYPE   hand-made and random data sets of half, float
 *                             or double: ties to even and values just off
 *                             them, cancellation, magnitudes across the
 *                             whole range, subnormals, overflow, infinities
 *                             and NaN, signed zeros; every kernel at blocks
 *                             1 to 256, and auto's CPU and GPU shapes
 *   test_exact --long         2^23 + 4099 elements of each type, so that
 *                             the auto paths' unrolled loops take them on any
 *                             device (an H100's GPU shape needs millions):
 *                             values that spill, signed zeros, infinities and
 *                             NaN far into the array; auto and K7
 *   test_exact --tenth        10^8 x 0.1f on the auto path, 10^7 on K7
 *   test_exact --chunks       host arrays in many chunks (CLFOLD_MAX_CHUNK_BYTES)
 *                             and the non-blocking call, against the blocking one
 *   test_exact --refusals     products and the atomic baseline refused;
 *                             no block refused for its local memory
 *   test_exact --big-halves   2^32 + 1000 halves, in 1 GiB host chunks and
 *                             on the auto path (8.6 GB of host memory)
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact_reference.h"
#include "util.h"

/* ---- data sets ------------------------------------------------------------- */

/* The element layout of a type: mantissa and exponent bits. */
struct layout {
    clfold_type type;
    size_t size;
    int mant_bits, exp_bits;
};

static struct layout layout_of(clfold_type type)
{
    if (type == CLFOLD_DOUBLE)
        return (struct layout){type, 8, 52, 11};
    if (type == CLFOLD_FLOAT)
        return (struct layout){type, 4, 23, 8};
    return (struct layout){type, 2, 10, 5};
}

static void put_bits(const struct layout *l, void *data, size_t i, uint64_t bits)
{
    memcpy((char *)data + l->size * i, &bits, l->size); /* little-endian hosts */
}

/* sign * (1 + fraction) * 2^exponent, exactly; fraction in units of the last mantissa bit. */
static uint64_t make_bits(const struct layout *l, int negative, int exponent, uint64_t fraction)
{
    int bias = (1 << (l->exp_bits - 1)) - 1;
    return ((uint64_t)negative << (l->mant_bits + l->exp_bits)) |
           ((uint64_t)(exponent + bias) << l->mant_bits) | fraction;
}

/* Random bits of a finite value with the exponent field in [lo, hi]. */
static uint64_t random_finite(const struct layout *l, test_rng *rng, int lo, int hi)
{
    uint64_t field = (uint64_t)lo + rng_below(rng, (uint64_t)(hi - lo + 1));
    uint64_t m = rng_next(rng) & ((UINT64_C(1) << l->mant_bits) - 1);
    uint64_t sign = rng_next(rng) & 1;
    return (sign << (l->mant_bits + l->exp_bits)) | (field << l->mant_bits) | m;
}

struct data_set {
    char name[48];
    size_t n;
    void *data;
};

static void set_init(struct data_set *set, const struct layout *l, const char *name, size_t n)
{
    snprintf(set->name, sizeof set->name, "%s", name);
    set->n = n;
    set->data = calloc(n > 0 ? n : 1, l->size);
    if (set->data == NULL)
        set->n = 0;
}

/* Zeros, with the given values at places spread over the array. */
static void set_planted(struct data_set *set, const struct layout *l, const char *name,
                        const uint64_t *values, size_t count, test_rng *rng)
{
    set_init(set, l, name, 1237);
    for (size_t k = 0; k < count && set->n > 0; k++)
        put_bits(l, set->data, (size_t)rng_below(rng, 1237 / count) + k * (1237 / count),
                 values[k]);
}

#define MAX_SETS 32

/*
 * Every value whose exponent field is above `field` cancelled by its
 * negation at the mirrored place (in another work-item's run), so that the
 * sum is that of the small ones: what the runs had to spill.
 */
static void cancel_large(const struct layout *l, struct data_set *set, int field)
{
    const uint64_t neg = UINT64_C(1) << (l->mant_bits + l->exp_bits);
    for (size_t i = 0; i < set->n / 2; i++) {
        size_t j = set->n - 1 - i;
        uint64_t x = 0, y = 0;
        memcpy(&x, (char *)set->data + l->size * i, l->size);
        memcpy(&y, (char *)set->data + l->size * j, l->size);
        if ((int)((x >> l->mant_bits) & ((1u << l->exp_bits) - 1)) > field)
            put_bits(l, set->data, j, x ^ neg);
        else if ((int)((y >> l->mant_bits) & ((1u << l->exp_bits) - 1)) > field)
            put_bits(l, set->data, i, y ^ neg);
    }
    if (set->n % 2 == 1)
        put_bits(l, set->data, set->n / 2, 0); /* the middle one has no mirror */
}

/*
 * The data sets of one type. P is its precision; `one` is 1.0; ulp and the
 * half ulp of 1 decide the ties.
 */
static size_t make_sets(const struct layout *l, struct data_set *sets, test_rng *rng)
{
    const int p = l->mant_bits + 1, emax = (1 << (l->exp_bits - 1)) - 1;
    const int emin = 1 - emax;
    const uint64_t inf = make_bits(l, 0, emax + 1, 0), nan = inf | 1;
    const uint64_t one = make_bits(l, 0, 0, 0), max = make_bits(l, 0, emax, (UINT64_C(1) << l->mant_bits) - 1);
    const uint64_t neg = UINT64_C(1) << (l->mant_bits + l->exp_bits);
    size_t s = 0;
    /*
     * Ties in the result's precision (float for halves): 1 + 2^-P is
     * halfway, goes to even 1; (1 + 2^(1-P)) + 2^-P goes up; a tiny third
     * value pushes a tie either way. Halves sum into float: a tie of
     * float's precision needs 2^11 + 2^-13.
     */
    int rp = l->type == CLFOLD_HALF ? 24 : p;
    int big = l->type == CLFOLD_HALF ? 11 : 0;
    uint64_t base = make_bits(l, 0, big, 0);
    uint64_t half_ulp = make_bits(l, 0, big - rp, 0);
    uint64_t odd = l->type == CLFOLD_HALF ? make_bits(l, 0, big - rp + 1, 0) : make_bits(l, 0, 0, 1);
    uint64_t tiny = make_bits(l, 0, big - rp - (l->type == CLFOLD_HALF ? 1 : 20), 0);
    uint64_t tie_even[] = {base, half_ulp};
    set_planted(&sets[s++], l, "tie to even", tie_even, 2, rng);
    uint64_t tie_up[] = {l->type == CLFOLD_HALF ? base : odd, half_ulp,
                         l->type == CLFOLD_HALF ? odd : 0};
    set_planted(&sets[s++], l, "tie to even, odd", tie_up, 3, rng);
    uint64_t above[] = {base, half_ulp, tiny};
    set_planted(&sets[s++], l, "just above a tie", above, 3, rng);
    uint64_t below[] = {base, half_ulp, tiny | neg};
    set_planted(&sets[s++], l, "just below a tie", below, 3, rng);
    /* Massive cancellation: +big, -big and small values, whose sum is what remains. */
    set_init(&sets[s], l, "cancellation", 4001);
    for (size_t i = 0; i < sets[s].n; i++)
        put_bits(l, sets[s].data, i, random_finite(l, rng, 1, emax)); /* below 2 */
    put_bits(l, sets[s].data, 17, make_bits(l, 0, emax - 2, 12345 % (UINT64_C(1) << l->mant_bits)));
    put_bits(l, sets[s].data, 3999, make_bits(l, 1, emax - 2, 12345 % (UINT64_C(1) << l->mant_bits)));
    s++;
    /* Magnitudes across the whole range, subnormals included, then with the large ones cancelled. */
    set_init(&sets[s], l, "whole range", 4099);
    for (size_t i = 0; i < sets[s].n; i++)
        put_bits(l, sets[s].data, i, random_finite(l, rng, 0, 2 * emax));
    s++;
    set_init(&sets[s], l, "whole range, large cancelled", 6000);
    for (size_t i = 0; i < 3000 && sets[s].n > 0; i++) {
        uint64_t x = random_finite(l, rng, 0, 2 * emax);
        int field = (int)((x >> l->mant_bits) & ((1u << l->exp_bits) - 1));
        put_bits(l, sets[s].data, 2 * i, x);
        /* The large ones come back negated further on; the small ones stand. */
        if (field > emax)
            put_bits(l, sets[s].data, (2 * i + 2 * rng_below(rng, 3000 - i) + 1) % 6000, x ^ neg);
    }
    s++;
    /*
     * Long enough that K7's and the GPU shape's runs spill what their
     * doubles cannot hold, and with every value but the tiniest (exponent
     * fields up to emax / 4) cancelled by its negation at the mirrored place
     * (in another work-item's run), so that the result is the sum of what
     * the runs had to spill.
     */
    set_init(&sets[s], l, "whole range, long runs", 300007);
    for (size_t i = 0; i < sets[s].n; i++)
        put_bits(l, sets[s].data, i, random_finite(l, rng, 0, 2 * emax));
    cancel_large(l, &sets[s], emax / 4);
    s++;
    /*
     * Large values of one sign: for doubles just below 2^970, the largest
     * that runs take (above, values go to the words), for floats the largest,
     * whose sum overflows.
     */
    set_init(&sets[s], l, "large, one sign", 100003);
    for (size_t i = 0; i < sets[s].n; i++) {
        int top = l->type == CLFOLD_DOUBLE ? 1992 : 2 * emax;
        put_bits(l, sets[s].data, i, random_finite(l, rng, top - 12, top) & ~neg);
    }
    s++;
    set_init(&sets[s], l, "subnormals", 3001);
    for (size_t i = 0; i < sets[s].n; i++)
        put_bits(l, sets[s].data, i, random_finite(l, rng, 0, 0));
    s++;
    set_init(&sets[s], l, "random, one binade apart", 100003);
    for (size_t i = 0; i < sets[s].n; i++)
        put_bits(l, sets[s].data, i, random_finite(l, rng, emax - 3, emax + 3));
    s++;
    /* Overflow: the largest finite value many times; max, max, -max is max; max plus half its ulp is inf. */
    set_init(&sets[s], l, "overflow", 1000);
    for (size_t i = 0; i < sets[s].n; i++)
        put_bits(l, sets[s].data, i, max);
    s++;
    uint64_t max_max_neg[] = {max, max, max | neg};
    set_planted(&sets[s++], l, "max, max, -max", max_max_neg, 3, rng);
    if (l->type != CLFOLD_HALF) {
        uint64_t to_inf[] = {max, make_bits(l, 0, emax - p, 0)};
        set_planted(&sets[s++], l, "max + half ulp", to_inf, 2, rng);
        uint64_t not_inf[] = {max, make_bits(l, 0, emax - p, 0), make_bits(l, 1, emin, 0)};
        set_planted(&sets[s++], l, "max + half ulp - min", not_inf, 3, rng);
    }
    /* Infinities and NaN. */
    uint64_t pos_inf[] = {one, inf, one};
    set_planted(&sets[s++], l, "1, inf, 1", pos_inf, 3, rng);
    uint64_t neg_inf[] = {one, inf | neg};
    set_planted(&sets[s++], l, "1, -inf", neg_inf, 2, rng);
    uint64_t both_inf[] = {inf, inf | neg};
    set_planted(&sets[s++], l, "inf, -inf", both_inf, 2, rng);
    uint64_t a_nan[] = {one, nan};
    set_planted(&sets[s++], l, "1, NaN", a_nan, 2, rng);
    uint64_t max_inf[] = {max, max, inf | neg};
    set_planted(&sets[s++], l, "max, max, -inf", max_inf, 3, rng);
    /* Signed zeros: every -0 gives -0; any +0, or cancelling values, +0; nothing, +0. */
    set_init(&sets[s], l, "all -0", 777);
    for (size_t i = 0; i < sets[s].n; i++)
        put_bits(l, sets[s].data, i, neg);
    s++;
    uint64_t one_pos_zero[] = {neg, 0, neg};
    set_init(&sets[s], l, "-0 and one +0", 3);
    for (size_t i = 0; i < 3 && sets[s].n > 0; i++)
        put_bits(l, sets[s].data, i, one_pos_zero[i]);
    s++;
    uint64_t cancel_zero[] = {one, one | neg};
    set_planted(&sets[s++], l, "1, -1", cancel_zero, 2, rng);
    set_init(&sets[s++], l, "empty", 0);
    return s;
}

/* ---- checks ---------------------------------------------------------------- */

static bool same_result(uint64_t got, uint64_t want, clfold_type result)
{
    if (result == CLFOLD_DOUBLE) {
        double g, w;
        memcpy(&g, &got, 8);
        memcpy(&w, &want, 8);
        return got == want || (isnan(g) && isnan(w));
    }
    float g, w;
    uint32_t g32 = (uint32_t)got, w32 = (uint32_t)want;
    memcpy(&g, &g32, 4);
    memcpy(&w, &w32, 4);
    return g32 == w32 || (isnan(g) && isnan(w));
}

/* One reduction on the context's kernel, whose result must have the reference's bits. */
static void check_one(clfold_context *ctx, const struct data_set *set, clfold_type type,
                      uint64_t want, const char *how)
{
    clfold_type result = type == CLFOLD_DOUBLE ? CLFOLD_DOUBLE : CLFOLD_FLOAT;
    uint64_t got = 0;
    clfold_status status = clfold_reduce_host(ctx, set->data, set->n, type, CLFOLD_SUM, &got);
    EXPECT(status == CLFOLD_SUCCESS, "%s: %s %s: %s (%s)", how, clfold_type_name(type), set->name,
           clfold_status_string(status), clfold_last_error(ctx));
    if (status == CLFOLD_SUCCESS)
        EXPECT(same_result(got, want, result), "%s: %s %s (n=%zu): got bits %#llx, want %#llx", how,
               clfold_type_name(type), set->name, set->n, (unsigned long long)got,
               (unsigned long long)want);
}

static const clfold_kernel TREE_KERNELS[] = {CLFOLD_K1, CLFOLD_K2, CLFOLD_K3, CLFOLD_K4,
                                             CLFOLD_K5, CLFOLD_K6, CLFOLD_K7};
static const size_t BLOCKS[] = {1, 2, 32, 64, 128, 256};

static int run_cases(clfold_type type)
{
    clfold_context *ctx = test_context();
    if (ctx == NULL)
        return 1;
    if (type == CLFOLD_DOUBLE && !test_device_has_fp64(clfold_device(ctx))) {
        printf("test_exact: no fp64: skipped\n");
        clfold_destroy(ctx);
        return TEST_SKIP;
    }
    struct layout l = layout_of(type);
    struct data_set sets[MAX_SETS];
    test_rng rng = {2026};
    size_t n_sets = make_sets(&l, sets, &rng);
    size_t max_block = 0;
    clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_block, &max_block,
                    NULL);
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    for (size_t d = 0; d < n_sets; d++) {
        uint64_t want = exact_bits_of(type, sets[d].data, sets[d].n);
        char how[64];
        EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_AUTO, 0), CLFOLD_SUCCESS);
        check_one(ctx, &sets[d], type, want, "auto");
        for (size_t k = 0; k < sizeof TREE_KERNELS / sizeof TREE_KERNELS[0]; k++) {
            for (size_t b = 0; b < sizeof BLOCKS / sizeof BLOCKS[0] && BLOCKS[b] <= max_block; b++) {
                snprintf(how, sizeof how, "%s block %zu", clfold_kernel_name(TREE_KERNELS[k]),
                         BLOCKS[b]);
                EXPECT_STATUS(ctx, clfold_set_kernel(ctx, TREE_KERNELS[k], BLOCKS[b]), CLFOLD_SUCCESS);
                check_one(ctx, &sets[d], type, want, how);
            }
        }
    }
    for (size_t d = 0; d < n_sets; d++)
        free(sets[d].data);
    clfold_destroy(ctx);
    return test_finish("test_exact --cases");
}

/*
 * Long arrays: the GPU shape's unrolled loop starts only past three grid
 * strides (3 * 270336 work-items * VEC elements on an H100), and folds
 * each step apart from the elements one by one (gpu.cl), so specials and
 * spills must be tested there, far into the array. Each set is mostly
 * one filler, with a few values planted past the middle.
 */
#define LONG_N ((1u << 23) + 4099)

static void set_long(struct data_set *set, const struct layout *l, const char *name, uint64_t filler,
                     const uint64_t *planted, size_t count)
{
    set_init(set, l, name, LONG_N);
    for (size_t i = 0; i < set->n; i++)
        put_bits(l, set->data, i, filler);
    for (size_t k = 0; k < count && set->n > 0; k++)
        put_bits(l, set->data, LONG_N / 2 + 1000003 * k + 17, planted[k]);
}

static int run_long(void)
{
    clfold_context *ctx = test_context();
    if (ctx == NULL)
        return 1;
    const bool fp64 = test_device_has_fp64(clfold_device(ctx));
    const clfold_type types[] = {CLFOLD_HALF, CLFOLD_FLOAT, CLFOLD_DOUBLE};
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    for (size_t t = 0; t < 3; t++) {
        if (types[t] == CLFOLD_DOUBLE && !fp64)
            continue;
        const struct layout l = layout_of(types[t]);
        const int emax = (1 << (l.exp_bits - 1)) - 1;
        const uint64_t neg = UINT64_C(1) << (l.mant_bits + l.exp_bits), zero = 0;
        const uint64_t one = make_bits(&l, 0, 0, 0), inf = make_bits(&l, 0, emax + 1, 0);
        const uint64_t third = make_bits(&l, 0, -2, UINT64_C(0x5555555555555) >> (52 - l.mant_bits));
        test_rng rng = {41 + t};
        struct data_set sets[8];
        size_t n_sets = 0;
        /* Every -0 is -0; one +0 among them makes +0. */
        set_long(&sets[n_sets++], &l, "long: all -0", neg, NULL, 0);
        set_long(&sets[n_sets++], &l, "long: -0 and one +0", neg, &zero, 1);
        uint64_t one_inf[] = {inf, one | neg}, both_inf[] = {inf, inf | neg}, a_nan[] = {inf | 1};
        set_long(&sets[n_sets++], &l, "long: 1/3 and +inf", third, one_inf, 2);
        set_long(&sets[n_sets++], &l, "long: 1/3, +inf and -inf", third, both_inf, 2);
        set_long(&sets[n_sets++], &l, "long: 1/3 and NaN", third, a_nan, 1);
        /*
         * Ones and a few values far below them: every run's and group's
         * doubles hold the sum (s0 the ones, s1 the small ones), so the GPU
         * shape merges groups as doubles alone (gpu.cl's run sums).
         */
        const int below = -(l.mant_bits + 3);
        uint64_t small[] = {make_bits(&l, 0, below, 1), make_bits(&l, 0, below - 1, 0),
                            make_bits(&l, 1, below, 3)};
        set_long(&sets[n_sets++], &l, "long: ones and small values", one, small, 3);
        /* Magnitudes across the range, every large one cancelled far away: the runs spill. */
        struct data_set *range = &sets[n_sets++];
        set_init(range, &l, "long: whole range, large cancelled", LONG_N);
        for (size_t i = 0; i < range->n; i++)
            put_bits(&l, range->data, i, random_finite(&l, &rng, 0, 2 * emax));
        cancel_large(&l, range, emax / 4);
        for (size_t d = 0; d < n_sets; d++) {
            uint64_t want = exact_bits_of(types[t], sets[d].data, sets[d].n);
            EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_AUTO, 0), CLFOLD_SUCCESS);
            check_one(ctx, &sets[d], types[t], want, "auto");
            EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_K7, 0), CLFOLD_SUCCESS);
            check_one(ctx, &sets[d], types[t], want, "k7");
            free(sets[d].data);
        }
    }
    clfold_destroy(ctx);
    return test_finish("test_exact --long");
}

/* n x 0.1f: a sum whose every addition rounds in float. */
static int run_tenth(void)
{
    clfold_context *ctx = test_context();
    if (ctx == NULL)
        return 1;
    const size_t n = 100000000;
    float *data = malloc(n * sizeof *data);
    if (data == NULL) {
        clfold_destroy(ctx);
        printf("test_exact: no memory: skipped\n");
        return TEST_SKIP;
    }
    for (size_t i = 0; i < n; i++)
        data[i] = 0.1f;
    struct data_set set = {"10^8 x 0.1f", n, data}, small = {"10^7 x 0.1f", n / 10, data};
    uint64_t want = exact_bits_of(CLFOLD_FLOAT, data, n), want_small = exact_bits_of(CLFOLD_FLOAT, data, n / 10);
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    check_one(ctx, &set, CLFOLD_FLOAT, want, "auto");
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_K7, 0), CLFOLD_SUCCESS);
    check_one(ctx, &small, CLFOLD_FLOAT, want_small, "k7");
    free(data);
    clfold_destroy(ctx);
    return test_finish("test_exact --tenth");
}

/*
 * 2^32 + 1000 halves (8.6 GB): past 2^32 elements, through the host's
 * chunks (of at most 1 GiB here, so on every device) and through the auto
 * path as the device takes it. Sixteen finite half values, paired +-v, are
 * laid out by a hash of the index, and 1024.0 is planted past element 2^32:
 * the reference adds each value once, times its count. Exits 77 (skipped)
 * without the memory.
 */
static const uint16_t BIG_VALUES[16] = {
    0x3c00, 0xbc00, 0x7bff, 0xfbff, /* +-1, +-65504 */
    0x2e66, 0xae66, 0x0001, 0x8001, /* +-0.1, +-2^-24 (subnormal) */
    0x3555, 0xb555, 0x4248, 0xc248, /* +-1/3, +-3.14 */
    0x0400, 0x83ff, 0x5640, 0xd640, /* 2^-14, -(largest subnormal), +-100 */
};

static int run_big_halves(void)
{
    const size_t n = ((size_t)1 << 32) + 1000, planted_at = ((size_t)1 << 32) + 7;
    const uint16_t planted = 0x6400; /* 1024.0 */
    uint16_t *data = malloc(n * sizeof *data);
    if (data == NULL) {
        printf("test_exact --big-halves: no memory for %zu halves: skipped\n", n);
        return TEST_SKIP;
    }
    uint64_t count[16] = {0};
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)(((uint64_t)i * UINT64_C(0x9e3779b97f4a7c15)) >> 60);
        data[i] = BIG_VALUES[v];
        count[v]++;
    }
    count[((uint64_t)planted_at * UINT64_C(0x9e3779b97f4a7c15)) >> 60]--;
    data[planted_at] = planted;
    struct exact_reference *r = calloc(1, sizeof *r);
    EXPECT(r != NULL, "no memory for the reference");
    if (r == NULL) {
        free(data);
        return test_finish("test_exact --big-halves");
    }
    r->lsb = -149;
    r->seen = r->not_neg_zero = true;
    for (int v = 0; v <= 16; v++) {
        uint16_t bits = v < 16 ? BIG_VALUES[v] : planted;
        uint64_t times = v < 16 ? count[v] : 1, m = bits & 0x3ffu;
        int field = (bits >> 10) & 0x1f;
        if (field != 0)
            m |= 0x400u;
        reference_add(r, bits >> 15, m * times, (field == 0 ? 1 : field) - 15 - 10);
    }
    struct data_set set = {"2^32 + 1000 halves", n, data};
    uint64_t want = reference_bits(r, CLFOLD_FLOAT);
    free(r);

    /* Settings are read at create: chunks of at most 1 GiB, whatever the device's largest buffer. */
    setenv("CLFOLD_MAX_CHUNK_BYTES", "1073741824", 1);
    clfold_context *chunked = test_context();
    unsetenv("CLFOLD_MAX_CHUNK_BYTES");
    clfold_context *ctx = test_context();
    if (chunked != NULL && ctx != NULL) {
        EXPECT_STATUS(chunked, clfold_set_accuracy(chunked, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
        EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
        check_one(chunked, &set, CLFOLD_HALF, want, "chunks of 1 GiB");
        check_one(ctx, &set, CLFOLD_HALF, want, "auto");
    }
    EXPECT(chunked != NULL && ctx != NULL, "no context");
    clfold_destroy(chunked);
    clfold_destroy(ctx);
    free(data);
    return test_finish("test_exact --big-halves");
}

/* Chunked host arrays and the non-blocking call give the blocking call's bits. */
static int run_chunks(void)
{
    /* Settings are read at create: chunks of 4 KiB, so that 100003 values take many. */
    setenv("CLFOLD_MAX_CHUNK_BYTES", "4096", 1);
    clfold_context *chunked = test_context();
    unsetenv("CLFOLD_MAX_CHUNK_BYTES");
    clfold_context *ctx = test_context();
    if (ctx == NULL || chunked == NULL) {
        clfold_destroy(ctx);
        clfold_destroy(chunked);
        return 1;
    }
    bool fp64 = test_device_has_fp64(clfold_device(ctx));
    const clfold_type types[] = {CLFOLD_HALF, CLFOLD_FLOAT, CLFOLD_DOUBLE};
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    EXPECT_STATUS(chunked, clfold_set_accuracy(chunked, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    for (size_t t = 0; t < 3; t++) {
        if (types[t] == CLFOLD_DOUBLE && !fp64)
            continue;
        struct layout l = layout_of(types[t]);
        struct data_set sets[MAX_SETS];
        test_rng rng = {7 + t};
        size_t n_sets = make_sets(&l, sets, &rng);
        for (size_t d = 0; d < n_sets; d++) {
            uint64_t want = exact_bits_of(types[t], sets[d].data, sets[d].n);
            check_one(chunked, &sets[d], types[t], want, "chunks of 4 KiB");
            /* The non-blocking call into a result buffer, at an odd offset. */
            size_t bytes = sets[d].n * l.size;
            cl_int err;
            cl_mem in = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       bytes > 0 ? bytes : 1, bytes > 0 ? sets[d].data : &want, &err);
            cl_mem out = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_WRITE, 16, NULL, &err);
            uint64_t got = 0;
            cl_event done = NULL;
            size_t result_size = types[t] == CLFOLD_DOUBLE ? 8 : 4;
            EXPECT_STATUS(ctx, clfold_reduce_buffer_async(ctx, in, 0, sets[d].n, types[t], CLFOLD_SUM,
                                                          out, 3, 0, NULL, &done),
                          CLFOLD_SUCCESS);
            EXPECT(clEnqueueReadBuffer(clfold_queue(ctx), out, CL_TRUE, 3, result_size, &got, 1, &done,
                                       NULL) == CL_SUCCESS, "read the async result");
            EXPECT(same_result(got, want, types[t] == CLFOLD_DOUBLE ? CLFOLD_DOUBLE : CLFOLD_FLOAT),
                   "async: %s %s: got %#llx, want %#llx", clfold_type_name(types[t]), sets[d].name,
                   (unsigned long long)got, (unsigned long long)want);
            clReleaseEvent(done);
            clReleaseMemObject(in);
            clReleaseMemObject(out);
            free(sets[d].data);
        }
    }
    clfold_destroy(ctx);
    clfold_destroy(chunked);
    return test_finish("test_exact --chunks");
}

/*
 * A sum of the `count` floats or doubles at `data` is `want`, or, above 256
 * work-items, the driver refused the block and the message names its limit.
 */
static void expect_sum_or_driver_limit(clfold_context *ctx, const void *data, size_t count,
                                       clfold_type type, double want, size_t block, const char *how)
{
    double total = 0;
    float total_f = 0;
    void *out = type == CLFOLD_FLOAT ? (void *)&total_f : (void *)&total;
    clfold_status status = clfold_reduce_host(ctx, data, count, type, CLFOLD_SUM, out);
    if (block > 256 && status == CLFOLD_ERROR_INVALID_BLOCK_SIZE) {
        EXPECT(strstr(clfold_last_error(ctx), "the driver reports at most") != NULL, "%s: %s", how,
               clfold_last_error(ctx));
        return;
    }
    if (type == CLFOLD_FLOAT)
        total = total_f;
    EXPECT(status == CLFOLD_SUCCESS && total == want, "%s, %s: %s, %a", how, clfold_type_name(type),
           clfold_status_string(status), total);
}

/*
 * No block is refused for its local memory: with the device's taken as 1 KiB
 * (16 float states, 2 double ones), the ladder's blocks from 256 up share
 * each slot by 16 and more, and the sums stay exact: 8192 ones, so that every
 * slot takes several work-items' values, and doubles that cancel. Double
 * states stop at 1024 work-items, NVIDIA's largest group (a CPU device
 * refuses 4096 of them). Past 256 a driver may still refuse a kernel's
 * block for its registers (NVIDIA's K1..K5 with double states stop at 256):
 * then the status says so, naming the driver's limit.
 */
static void check_shared_slots(void)
{
    setenv("CLFOLD_LOCAL_MEM_BYTES", "1024", 1);
    clfold_context *ctx = test_context();
    unsetenv("CLFOLD_LOCAL_MEM_BYTES");
    if (ctx == NULL)
        return;
    static float ones[8192];
    for (size_t i = 0; i < 8192; i++)
        ones[i] = 1.0f;
    size_t max_block = 0;
    clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_block, &max_block, NULL);
    bool fp64 = test_device_has_fp64(clfold_device(ctx));
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    double tiny[5] = {0x1p-1074, 1e300, 3.0, -1e300, 0x1p-1074}, total = 0;
    char how[64];
    for (size_t k = 0; k < sizeof TREE_KERNELS / sizeof TREE_KERNELS[0]; k++) {
        for (size_t block = 256; block <= max_block; block *= 2) {
            snprintf(how, sizeof how, "%s block %zu, local 1 KiB", clfold_kernel_name(TREE_KERNELS[k]), block);
            EXPECT_STATUS(ctx, clfold_set_kernel(ctx, TREE_KERNELS[k], block), CLFOLD_SUCCESS);
            expect_sum_or_driver_limit(ctx, ones, 8192, CLFOLD_FLOAT, 8192.0, block, how);
            if (fp64 && block <= 1024)
                expect_sum_or_driver_limit(ctx, tiny, 5, CLFOLD_DOUBLE, 3.0, block, how);
        }
    }
    /* A CPU worker thread's stack holds a group's values: 4096 double states are refused. */
    cl_device_type device_type = 0;
    clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_TYPE, sizeof device_type, &device_type, NULL);
    if (fp64 && (device_type & CL_DEVICE_TYPE_CPU) && max_block >= 4096) {
        EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_K7, 4096), CLFOLD_SUCCESS);
        EXPECT_STATUS(ctx, clfold_reduce_host(ctx, tiny, 5, CLFOLD_DOUBLE, CLFOLD_SUM, &total),
                      CLFOLD_ERROR_INVALID_BLOCK_SIZE);
        EXPECT(strstr(clfold_last_error(ctx), "blocks up to 2048") != NULL, "%s", clfold_last_error(ctx));
    }
    clfold_destroy(ctx);
}

/* What exact does not do is refused with a status and a message, before any work. */
static int run_refusals(void)
{
    clfold_context *ctx = test_context();
    if (ctx == NULL)
        return 1;
    float data[4] = {1, 2, 3, 4}, result = 0;
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 4, CLFOLD_FLOAT, CLFOLD_PROD, &result),
                  CLFOLD_ERROR_UNSUPPORTED);
    EXPECT(strstr(clfold_last_error(ctx), "exact") != NULL, "%s", clfold_last_error(ctx));
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 4, CLFOLD_FLOAT, CLFOLD_SUMSQ, &result),
                  CLFOLD_ERROR_UNSUPPORTED);
    EXPECT(strstr(clfold_last_error(ctx), "sumsq") != NULL, "%s", clfold_last_error(ctx));
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_ATOMIC, 0), CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 4, CLFOLD_FLOAT, CLFOLD_SUM, &result),
                  CLFOLD_ERROR_UNSUPPORTED);
    EXPECT(strstr(clfold_last_error(ctx), "atomic") != NULL, "%s", clfold_last_error(ctx));
    /* Integers and min/max are exact already: the setting leaves them alone. */
    int32_t ints[3] = {1, -5, 7};
    int64_t sum = 0;
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_AUTO, 0), CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, ints, 3, CLFOLD_INT32, CLFOLD_SUM, &sum), CLFOLD_SUCCESS);
    EXPECT(sum == 3, "int32 sum %lld", (long long)sum);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 4, CLFOLD_FLOAT, CLFOLD_MAX, &result), CLFOLD_SUCCESS);
    EXPECT(result == 4.0f, "float max %g", result);
    clfold_destroy(ctx);
    check_shared_slots();
    return test_finish("test_exact --refusals");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--cases") == 0) {
        clfold_type type;
        if (clfold_type_from_name(argv[2], &type) != CLFOLD_SUCCESS || !type_is_float(type)) {
            fprintf(stderr, "test_exact: --cases takes half, float or double\n");
            return 2;
        }
        return run_cases(type);
    }
    if (argc == 2 && strcmp(argv[1], "--long") == 0)
        return run_long();
    if (argc == 2 && strcmp(argv[1], "--tenth") == 0)
        return run_tenth();
    if (argc == 2 && strcmp(argv[1], "--chunks") == 0)
        return run_chunks();
    if (argc == 2 && strcmp(argv[1], "--refusals") == 0)
        return run_refusals();
    if (argc == 2 && strcmp(argv[1], "--big-halves") == 0)
        return run_big_halves();
    fprintf(stderr, "usage: test_exact --cases TYPE | --long | --tenth | --chunks | --refusals | --big-halves\n");
    return 2;
}
