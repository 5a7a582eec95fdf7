/*
 * test_scan.c: scans (clfold_scan_buffer, _async, clfold_scan_host) through
 * the public API, against the host reference (reference_scan): integers,
 * min, max, bitwise operators and float data that every order adds or
 * multiplies exactly bit for bit, output by output; other float sums and
 * products within reference_scan_tolerance's bound of each output's exact
 * prefix. Every buffer scan reads its elements from an offset of a buffer
 * whose other elements would change the outputs if read (NaN, or the
 * operator's worst value), and writes its outputs at an offset of a
 * guard-filled buffer whose other bytes must not change. One mode per
 * CTest entry:
 *
 *   --lengths   float sums (random data in [-1, 1)), int32 sums and uint8
 *               max (random bits), inclusive and exclusive, at blocks 0
 *               (clfold's choice), 32, 64 and 256: lengths 0, 1, 2, 3, a
 *               tile (the block, and twice it: Blelloch scans two elements
 *               a work-item) minus and plus one, a tile's square and cube
 *               plus and minus one (where the tiles' totals take a second
 *               and third level), the primes 97, 1009 and 65537, and (at
 *               blocks 0 and 32) 2^22 + 1; through buffers at element
 *               offsets 0, 1, 3, 7 (outputs at 0, 5, 2, 1), and (clfold's
 *               block) from host memory. Auto runs at its own block only:
 *               its shapes size their own groups. clfold_last_run names
 *               the kernel that ran. The float sums of 2^22 + 1 run three
 *               more times: the same bits each time.
 *   --matrix    every operator on every type (double where the device has
 *               cl_khr_fp64) on 1, 300, 4099 and 70001 elements, both
 *               modes, default accuracy: integers on data in which every
 *               bit matters; float sums and products on exactly-adding and
 *               exactly-multiplying data (bits) and on random data (the
 *               bound); min and max on random and on one-sided data (min of
 *               1..100, max of -100..-1), bit for bit. Then half, float and
 *               double sums under the compensated and fp64 accuracies.
 *   --special   hand-written arrays with their outputs written out: NaN,
 *               infinities and signed zeros in min, max, sums and
 *               products, at every accuracy; the same planted in longer
 *               arrays against the reference; the exclusive scan's first
 *               output (the identity) of every type and operator written
 *               out by its bits; integer sums and products that wrap or
 *               widen; 8- and 16-bit sums of 70001 least or greatest
 *               values.
 *   --misuse    every refusal with its status (argmin and argmax, exact
 *               float sums and products (the exact accuracy's other scans
 *               run), bad types, operators, modes, NULL buffers and
 *               pointers, ranges outside a buffer, offsets near SIZE_MAX, a
 *               read-only output, buffers of another cl_context, bad wait
 *               lists, partial overlaps of one buffer, of sub-buffers and
 *               of host arrays), *event NULL and nothing written after
 *               each; scans in place (same bits as out of place); count 0
 *               writing nothing; non-blocking scans behind a user event,
 *               chained, and with *event in their own wait list; kernel
 *               names, block sizes and run records.
 *   --chunks    host scans in chunks (CLFOLD_MAX_CHUNK_BYTES of 4096 and
 *               1000 bytes) of lengths around the chunk, give the bits of
 *               one chunk and the reference for integers, min and max, and
 *               float sums and products within their bound plus one
 *               rounding per chunk boundary crossed (each chunk starts from
 *               the last one's total, a sequential chain); in place too.
 *   --big       2^32 + 1000 uint8 elements scanned in place from host
 *               memory, xor and max inclusive, every output checked against
 *               a running value on the host (4.3 GB of host memory; exits
 *               77, skipped, without it).
 *   --small     for Oclgrind: lengths 1 to 600 (auto: 9000) on int8 sums,
 *               double sums, float sums (default and compensated), half
 *               sums and int32 max, both modes, the ladder's kernels at
 *               blocks 4, 32 and 128.
 *
 * Usage: test_scan [--lengths | --matrix | --special | --misuse | --chunks |
 * --big | --small]... [--kernel NAME | NAME]...   (default: every mode but
 * --big and --small; the modes that loop over kernels take the ones named,
 * else all four: auto, kogge-stone, blelloch, blelloch-padded).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <time.h>

#include "util.h"

#define GUARD 0xa5
#define TAIL 5                              /* guard elements after a range */
#define HUGE_SIZE (((size_t)1 << 22) + 1)   /* --lengths' largest */
#define MAX_SHOWN 5                         /* mismatching outputs printed per scan */

static const clfold_type TYPES[] = {CLFOLD_INT8,  CLFOLD_UINT8,  CLFOLD_INT16, CLFOLD_UINT16,
                                    CLFOLD_INT32, CLFOLD_UINT32, CLFOLD_INT64, CLFOLD_UINT64,
                                    CLFOLD_HALF,  CLFOLD_FLOAT,  CLFOLD_DOUBLE};
#define N_TYPES (sizeof TYPES / sizeof TYPES[0])

static const clfold_scan_kernel ALL_KERNELS[] = {CLFOLD_SCAN_AUTO, CLFOLD_SCAN_KOGGE_STONE,
                                                 CLFOLD_SCAN_BLELLOCH,
                                                 CLFOLD_SCAN_BLELLOCH_PADDED};
#define N_KERNELS (sizeof ALL_KERNELS / sizeof ALL_KERNELS[0])
static const clfold_scan_mode MODES[] = {CLFOLD_INCLUSIVE, CLFOLD_EXCLUSIVE};

static clfold_context *ctx; /* the run's context */
static cl_context cl;
static cl_command_queue queue;
static bool fp64;
static const clfold_scan_kernel *kernels = ALL_KERNELS;
static size_t n_kernels = N_KERNELS;

static bool type_wanted(clfold_type type) { return type != CLFOLD_DOUBLE || fp64; }

static bool type_is_unsigned(clfold_type type)
{
    return type == CLFOLD_UINT8 || type == CLFOLD_UINT16 || type == CLFOLD_UINT32 ||
           type == CLFOLD_UINT64;
}

static const char *mode_name(clfold_scan_mode mode)
{
    return mode == CLFOLD_INCLUSIVE ? "inclusive" : mode == CLFOLD_EXCLUSIVE ? "exclusive" : "?";
}

static size_t result_size(clfold_type type, clfold_op op)
{
    clfold_type result = type;
    clfold_result_type(type, op, &result);
    return clfold_type_size(result);
}

/* ---- what ran, and judging its outputs ------------------------------------------ */

/* One scan: what ran, for the checks and their messages. */
struct scan {
    clfold_scan_kernel kernel;
    size_t block;             /* as asked: 0 for clfold's choice */
    clfold_type type;
    clfold_op op;
    clfold_scan_mode mode;
    clfold_accuracy accuracy;
    bool bitwise;             /* float data that every order gives exactly */
    const char *how;          /* "buffer", "async", "host", ... */
    size_t chunk;             /* elements a host chunk holds; 0: one chunk */
};

static void describe_scan(char *text, size_t cap, const struct scan *s, size_t n)
{
    snprintf(text, cap, "kernel=%s block=%zu type=%s op=%s %s accuracy=%s n=%zu via %s",
             clfold_scan_kernel_name(s->kernel), s->block, clfold_type_name(s->type),
             clfold_op_name(s->op), mode_name(s->mode), clfold_accuracy_name(s->accuracy), n,
             s->how);
}

/* Output i of packed results as a reference_value. */
static reference_value output_at(const void *outputs, size_t i, size_t size)
{
    reference_value v;
    memset(&v, 0, sizeof v);
    memcpy(v.bytes, (const unsigned char *)outputs + i * size, size);
    return v;
}

static long double float_of(const reference_value *v, clfold_type result)
{
    return result == CLFOLD_DOUBLE ? (long double)v->f64 : (long double)v->f32;
}

/*
 * Whether output i is right. Integers, min, max and exact data: the
 * reference's bits (any NaN for a NaN). Float sums and products: NaN and
 * infinities as the reference's; a sum of zeros alone (A_i = 0) gives the
 * reference's signed zero, but under the compensated accuracy any zero
 * (the exclusive scan's first output is +0 always); else within the bound,
 * plus one rounding for each chunk boundary before i.
 */
static bool output_ok(const struct scan *s, size_t i, size_t count, clfold_type result,
                      const reference_value *got, const reference_value *want, long double exact,
                      long double sum_abs, long double *bound)
{
    *bound = 0;
    if (s->bitwise || !type_is_float(result) || (s->op != CLFOLD_SUM && s->op != CLFOLD_PROD))
        return reference_equal(got, want, result);
    long double g = float_of(got, result);
    if (isnan(exact) || isinf(exact))
        return isnan(exact) ? isnan(g) : g == exact;
    if (s->op == CLFOLD_SUM && sum_abs == 0) {
        bool first = s->mode == CLFOLD_EXCLUSIVE && i == 0;
        return s->accuracy == CLFOLD_ACCURACY_COMPENSATED && !first
                   ? g == 0
                   : reference_equal(got, want, result);
    }
    long double u = result == CLFOLD_DOUBLE ? ldexpl(1, -53) : ldexpl(1, -24);
    long double crossed = s->chunk > 0 ? (long double)(i / s->chunk) : 0;
    *bound = reference_scan_tolerance(s->type, s->op, s->accuracy, count, exact, sum_abs) +
             crossed * u * (s->op == CLFOLD_SUM ? sum_abs : fabsl(exact));
    return isfinite(g) && fabsl(g - exact) <= *bound;
}

/*
 * The n outputs `got` of a scan of data[0..n) against the reference: one
 * check; the first MAX_SHOWN wrong outputs printed with what ran.
 */
static bool check_outputs(const struct scan *s, const void *data, size_t n, const void *got)
{
    clfold_type result = s->type;
    clfold_result_type(s->type, s->op, &result);
    size_t size = clfold_type_size(result);
    void *want = malloc(n * size + 1);
    long double *exact = malloc(n * sizeof *exact + 1), *sum_abs = malloc(n * sizeof *sum_abs + 1);
    size_t wrong = 0;
    EXPECT(want != NULL && exact != NULL && sum_abs != NULL, "no memory for %zu outputs", n);
    clfold_status status = want && exact && sum_abs
                               ? reference_scan(data, n, s->type, s->op, s->mode, want, exact,
                                                sum_abs)
                               : CLFOLD_ERROR_OUT_OF_HOST_MEMORY;
    EXPECT(status == CLFOLD_SUCCESS, "reference_scan: %s", clfold_status_string(status));
    for (size_t i = 0; i < n && status == CLFOLD_SUCCESS; i++) {
        reference_value g = output_at(got, i, size), w = output_at(want, i, size);
        long double bound;
        if (output_ok(s, i, n, result, &g, &w, exact[i], sum_abs[i], &bound))
            continue;
        if (wrong++ < MAX_SHOWN) {
            char what[200], got_text[64], want_text[64];
            describe_scan(what, sizeof what, s, n);
            reference_format(got_text, sizeof got_text, &g, result);
            reference_format(want_text, sizeof want_text, &w, result);
            fprintf(stderr, "MISMATCH %s: output %zu: got %s (bits 0x%llx), want %s (bits 0x%llx)",
                    what, i, got_text, (unsigned long long)g.u64, want_text,
                    (unsigned long long)w.u64);
            if (bound > 0)
                fprintf(stderr, ", exact %.21Lg, error %.3Lg > bound %.3Lg", exact[i],
                        fabsl(float_of(&g, result) - exact[i]), bound);
            fputc('\n', stderr);
        }
    }
    char what[200];
    describe_scan(what, sizeof what, s, n);
    EXPECT(wrong == 0, "%s: %zu of %zu outputs wrong", what, wrong, n);
    free(want);
    free(exact);
    free(sum_abs);
    return wrong == 0;
}

/* ---- buffers ----------------------------------------------------------------------- */

static cl_mem buffer_of(cl_mem_flags flags, size_t bytes, const void *data)
{
    cl_int err;
    cl_mem buffer = clCreateBuffer(cl, flags | (data ? CL_MEM_COPY_HOST_PTR : 0),
                                   bytes > 0 ? bytes : 1, (void *)data, &err);
    EXPECT(err == CL_SUCCESS, "clCreateBuffer of %zu bytes: %d", bytes, err);
    return err == CL_SUCCESS ? buffer : NULL;
}

/* A buffer of `bytes` guard bytes. */
static cl_mem guarded_buffer(size_t bytes)
{
    unsigned char *guard = malloc(bytes > 0 ? bytes : 1);
    memset(guard, GUARD, bytes > 0 ? bytes : 1);
    cl_mem buffer = buffer_of(CL_MEM_READ_WRITE, bytes, guard);
    free(guard);
    return buffer;
}

static void read_buffer(cl_mem buffer, size_t offset, size_t bytes, void *host)
{
    cl_int err = clEnqueueReadBuffer(queue, buffer, CL_TRUE, offset, bytes, host, 0, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "clEnqueueReadBuffer of %zu bytes: %d", bytes, err);
}

/* Every byte of bytes[from .. to) is still the guard. */
static bool guards_intact(const unsigned char *bytes, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (bytes[i] != GUARD)
            return false;
    return true;
}

static uint64_t ones_of(clfold_type type)
{
    unsigned width = 8 * (unsigned)clfold_type_size(type);
    return width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
}

/*
 * An element that changes the outputs if a kernel reads it where it should
 * not: NaN for floats; for integers what `op` cannot absorb (0 for a
 * product and an and, all ones for a sum, or, xor, the type's extreme for
 * min and max).
 */
static void store_outside(void *data, size_t i, clfold_type type, clfold_op op)
{
    uint64_t ones = ones_of(type), sign = (ones >> 1) + 1;
    bool is_signed = !type_is_unsigned(type);
    uint64_t bits = op == CLFOLD_PROD || op == CLFOLD_AND ? 0
                  : op == CLFOLD_MIN ? (is_signed ? sign : 0)
                  : op == CLFOLD_MAX ? (is_signed ? sign - 1 : ones) : ones;
    if (type_is_float(type))
        store_element(data, i, type, 0, NAN);
    else
        store_element(data, i, type, (int64_t)bits, 0.0);
}

/*
 * Scans data[0..n) through buffers: the elements from element in_offset of
 * an input buffer, with elements around them that must not be read; the
 * outputs at result element out_offset of a guard-filled buffer, of which
 * no other byte may change. Blocking, or non-blocking (its event waited
 * for). The outputs go to `got`.
 */
static clfold_status scan_through_buffers(const struct scan *s, const void *data, size_t n,
                                          size_t in_offset, size_t out_offset, bool async,
                                          void *got)
{
    size_t element = clfold_type_size(s->type), size = result_size(s->type, s->op);
    size_t in_elements = in_offset + n + TAIL, out_bytes = (out_offset + n + TAIL) * size;
    unsigned char *input = malloc(in_elements * element), *output = malloc(out_bytes);
    clfold_status status = CLFOLD_ERROR_OUT_OF_HOST_MEMORY;
    cl_mem in = NULL, out = NULL;
    EXPECT(input != NULL && output != NULL, "no memory for %zu elements", n);
    if (input != NULL && output != NULL) {
        for (size_t i = 0; i < in_elements; i++)
            if (i < in_offset || i >= in_offset + n)
                store_outside(input, i, s->type, s->op);
        memcpy(input + in_offset * element, data, n * element);
        in = buffer_of(CL_MEM_READ_ONLY, in_elements * element, input);
        out = guarded_buffer(out_bytes);
    }
    if (in != NULL && out != NULL) {
        cl_event event = (cl_event)&event; /* must be overwritten */
        status = async ? clfold_scan_buffer_async(ctx, in, in_offset, n, s->type, s->op, s->mode,
                                                  out, out_offset, 0, NULL, &event)
                       : clfold_scan_buffer(ctx, in, in_offset, n, s->type, s->op, s->mode, out,
                                            out_offset);
        if (async) {
            EXPECT(status == CLFOLD_SUCCESS ? event != NULL : event == NULL,
                   "*event after %s", clfold_status_string(status));
            if (status == CLFOLD_SUCCESS && event != NULL) {
                EXPECT(clWaitForEvents(1, &event) == CL_SUCCESS, "clWaitForEvents failed");
                clReleaseEvent(event);
            }
        }
        read_buffer(out, 0, out_bytes, output);
        EXPECT(guards_intact(output, 0, out_offset * size) &&
                   guards_intact(output, (out_offset + n) * size, out_bytes),
               "%s %s %s n=%zu at %zu: a byte outside the outputs changed", s->how,
               clfold_op_name(s->op), clfold_type_name(s->type), n, out_offset);
        memcpy(got, output + out_offset * size, n * size);
    }
    if (in != NULL)
        clReleaseMemObject(in);
    if (out != NULL)
        clReleaseMemObject(out);
    free(input);
    free(output);
    return status;
}

/* A host scan into `got`, whose TAIL results after the n outputs must stay guards. */
static clfold_status scan_through_host(clfold_context *on, const struct scan *s, const void *data,
                                       size_t n, void *got)
{
    size_t size = result_size(s->type, s->op);
    memset(got, GUARD, (n + TAIL) * size);
    clfold_status status = clfold_scan_host(on, data, n, s->type, s->op, s->mode, got);
    EXPECT(guards_intact(got, n * size, (n + TAIL) * size),
           "host %s %s n=%zu: a byte past the outputs changed", clfold_op_name(s->op),
           clfold_type_name(s->type), n);
    return status;
}

/* One scan checked: the call must succeed and its outputs match the reference. */
static void check_scan(const struct scan *s, clfold_context *on, clfold_status status,
                       const void *data, size_t n, const void *got)
{
    char what[200];
    describe_scan(what, sizeof what, s, n);
    EXPECT(status == CLFOLD_SUCCESS, "%s: %s: %s", what, clfold_status_string(status),
           clfold_last_error(on));
    if (status == CLFOLD_SUCCESS)
        check_outputs(s, data, n, got);
}

/* ---- data ---------------------------------------------------------------------------- */

enum data_kind {
    DATA_RANDOM,    /* integers: every bit matters (fill_integers); floats: [-1, 1) */
    DATA_EXACT,     /* floats: small integers (sums), +-1 with a few 2 and 0.5 (products) */
    DATA_NEAR_ONE,  /* floats: 1 + k/1024, |k| <= 16 (products that round) */
    DATA_ONE_SIDED  /* min: 1..100; max: -100..-1 (unsigned: 1..100) */
};
static const char *const BUFFER_WITH[] = {"buffer, random data", "buffer, exact data",
                                          "buffer, data near one", "buffer, one-sided data"};

static void fill(void *data, size_t n, clfold_type type, clfold_op op, enum data_kind kind,
                 test_rng *rng)
{
    for (size_t i = 0; i < n && (kind == DATA_ONE_SIDED || kind == DATA_NEAR_ONE); i++) {
        int64_t v = 1 + (int64_t)rng_below(rng, 100);
        if (kind == DATA_NEAR_ONE)
            store_element(data, i, type, 0, 1.0 + (double)((int64_t)rng_below(rng, 33) - 16) / 1024);
        else
            store_element(data, i, type, op == CLFOLD_MAX && !type_is_unsigned(type) ? -v : v,
                          op == CLFOLD_MAX ? (double)-v : (double)v);
    }
    if (kind == DATA_ONE_SIDED || kind == DATA_NEAR_ONE)
        return;
    if (!type_is_float(type))
        fill_integers(data, n, type, op, rng);
    else if (kind == DATA_RANDOM || op == CLFOLD_MIN || op == CLFOLD_MAX)
        fill_unit(data, n, type, rng);
    else if (op == CLFOLD_PROD)
        fill_product(data, n, type, rng);
    else
        fill_small(data, n, type, rng);
}

static void set_scan_kernel(clfold_scan_kernel kernel, size_t block)
{
    EXPECT_STATUS(ctx, clfold_set_scan_kernel(ctx, kernel, block), CLFOLD_SUCCESS);
}

static void set_accuracy(clfold_accuracy accuracy)
{
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, accuracy), CLFOLD_SUCCESS);
}

/*
 * The run record of the scan just made: a scan kernel's name, or auto's
 * "scan-gpu" / "scan-cpu" (the one CLFOLD_AUTO_SHAPE forces, if set); at
 * least one launch; the block asked for, where one was.
 */
static void check_last_run(clfold_scan_kernel kernel, size_t block, size_t *block_used)
{
    clfold_run_info info;
    memset(&info, 0, sizeof info);
    EXPECT_STATUS(ctx, clfold_last_run(ctx, &info), CLFOLD_SUCCESS);
    const char *path = info.path != NULL ? info.path : "(null)";
    const char *shape = getenv("CLFOLD_AUTO_SHAPE");
    char want[32];
    snprintf(want, sizeof want, "scan-%s", shape != NULL && *shape ? shape : "");
    if (kernel != CLFOLD_SCAN_AUTO)
        EXPECT(strcmp(path, clfold_scan_kernel_name(kernel)) == 0, "path \"%s\" after %s", path,
               clfold_scan_kernel_name(kernel));
    else if (shape != NULL && *shape)
        EXPECT(strcmp(path, want) == 0, "path \"%s\" after auto, want %s", path, want);
    else
        EXPECT(strcmp(path, "scan-gpu") == 0 || strcmp(path, "scan-cpu") == 0,
               "path \"%s\" after auto", path);
    EXPECT(kernel != CLFOLD_SCAN_AUTO || info.kernel == CLFOLD_AUTO, "auto's kernel is %d",
           (int)info.kernel);
    EXPECT(info.passes >= 1, "%u passes", info.passes);
    /* Auto's shapes size their own groups, as the reductions' do: a block asked binds the ladder. */
    EXPECT(block == 0 || kernel == CLFOLD_SCAN_AUTO || info.block_size == block,
           "block %zu asked, %zu ran", block, info.block_size);
    if (block_used != NULL)
        *block_used = info.block_size;
}

/* ---- --lengths ---------------------------------------------------------------------- */

/* Adds n to lengths[*count] if it is new and at most HUGE_SIZE. */
static void add_length(size_t *lengths, size_t *count, size_t cap, size_t n)
{
    for (size_t i = 0; i < *count; i++)
        if (lengths[i] == n)
            return;
    if (n <= HUGE_SIZE && *count < cap)
        lengths[(*count)++] = n;
}

/*
 * The lengths for a block: 0..3; around a tile (the block, twice it), its
 * square and its cube; primes; 2^22 + 1 where `huge`. Ascending.
 */
static size_t lengths_for(size_t block, bool huge, size_t *lengths, size_t cap)
{
    static const size_t fixed[] = {0, 1, 2, 3, 97, 1009, 65537};
    size_t count = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        add_length(lengths, &count, cap, fixed[i]);
    if (huge)
        add_length(lengths, &count, cap, HUGE_SIZE);
    for (size_t tile = block; tile <= 2 * block && tile > 0; tile *= 2) {
        size_t powers[] = {tile, tile * tile, tile * tile * tile};
        for (int p = 0; p < 3; p++) {
            add_length(lengths, &count, cap, powers[p] - 1);
            add_length(lengths, &count, cap, powers[p]);
            add_length(lengths, &count, cap, powers[p] + 1);
        }
    }
    for (size_t i = 1; i < count; i++) /* insertion sort */
        for (size_t j = i; j > 0 && lengths[j - 1] > lengths[j]; j--) {
            size_t t = lengths[j];
            lengths[j] = lengths[j - 1];
            lengths[j - 1] = t;
        }
    return count;
}

/*
 * The scan just checked, `first` its outputs, again: the same bits, as
 * docs/scans.md promises for every run of a scan (the one-launch look-back
 * must not depend on which tiles happened to be done first).
 */
static void check_repeatable(const struct scan *s, const void *data, size_t n, const size_t *at,
                             const void *first)
{
    size_t bytes = n * result_size(s->type, s->op);
    void *again = malloc(bytes);
    EXPECT(again != NULL, "no memory");
    if (again == NULL)
        return;
    for (int run = 0; run < 3; run++) {
        EXPECT(scan_through_buffers(s, data, n, at[0], at[1], false, again) == CLFOLD_SUCCESS &&
                   memcmp(again, first, bytes) == 0,
               "%s %s n=%zu: run %d gave other bits than the first", clfold_op_name(s->op),
               clfold_type_name(s->type), n, run + 2);
    }
    free(again);
}

static void run_lengths(void)
{
    static const size_t blocks[] = {0, 32, 64, 256};
    static const struct {
        clfold_type type;
        clfold_op op;
    } cases[] = {{CLFOLD_FLOAT, CLFOLD_SUM}, {CLFOLD_INT32, CLFOLD_SUM}, {CLFOLD_UINT8, CLFOLD_MAX}};
    static const size_t offsets[][2] = {{0, 0}, {1, 5}, {3, 2}, {7, 1}};
    test_rng rng = {UINT64_C(0x6c656e67)};
    void *data = malloc(HUGE_SIZE * 4), *got = malloc((HUGE_SIZE + TAIL) * 8);
    EXPECT(data != NULL && got != NULL, "no memory");
    for (size_t k = 0; k < n_kernels && data != NULL && got != NULL; k++) {
        for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
            size_t used = 0, lengths[64], n_lengths;
            if (kernels[k] == CLFOLD_SCAN_AUTO && blocks[b] != 0)
                continue; /* auto's shapes size their own groups */
            set_scan_kernel(kernels[k], blocks[b]);
            /* The block that runs decides the lengths: learn it from a first scan. */
            struct scan first = {kernels[k], blocks[b], CLFOLD_INT32, CLFOLD_SUM, CLFOLD_INCLUSIVE,
                                 CLFOLD_ACCURACY_DEFAULT, false, "buffer", 0};
            fill(data, 1000, CLFOLD_INT32, CLFOLD_SUM, DATA_RANDOM, &rng);
            check_scan(&first, ctx, scan_through_buffers(&first, data, 1000, 0, 0, false, got),
                       data, 1000, got);
            check_last_run(kernels[k], blocks[b], &used);
            /* 2^22 + 1 at clfold's block and the smallest (the most levels): seconds each on POCL. */
            n_lengths = lengths_for(used, blocks[b] <= 32, lengths, 64);
            for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
                fill(data, HUGE_SIZE, cases[c].type, cases[c].op, DATA_RANDOM, &rng);
                for (size_t l = 0; l < n_lengths; l++) {
                    for (int m = 0; m < 2; m++) {
                        struct scan s = {kernels[k], blocks[b], cases[c].type, cases[c].op,
                                         MODES[m], CLFOLD_ACCURACY_DEFAULT, false, "buffer", 0};
                        const size_t *at = offsets[(l + (size_t)m) % 4];
                        size_t n = lengths[l];
                        check_scan(&s, ctx, scan_through_buffers(&s, data, n, at[0], at[1],
                                                                 false, got),
                                   data, n, got);
                        if (n > 0)
                            check_last_run(kernels[k], blocks[b], NULL);
                        if (n == HUGE_SIZE && cases[c].type == CLFOLD_FLOAT)
                            check_repeatable(&s, data, n, at, got);
                        if (blocks[b] != 0 || (n > 65537 && m == 1))
                            continue;
                        s.how = "host";
                        check_scan(&s, ctx, scan_through_host(ctx, &s, data, n, got), data, n,
                                   got);
                    }
                }
            }
        }
    }
    free(data);
    free(got);
}

/* ---- --matrix ------------------------------------------------------------------------ */

/* One data set of (type, op), every length and mode, at the context's accuracy. */
static void check_data_set(clfold_scan_kernel kernel, void *data, void *got, clfold_type type,
                           clfold_op op, enum data_kind kind, clfold_accuracy accuracy,
                           test_rng *rng)
{
    static const size_t lengths[] = {1, 300, 4099, 70001};
    /* Float sums and products on random data: the bound; everything else: bits. */
    bool bitwise = type_is_float(type) && kind != DATA_RANDOM && kind != DATA_NEAR_ONE;
    fill(data, 70001, type, op, kind, rng);
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
        for (int m = 0; m < 2; m++) {
            struct scan s = {kernel, 0, type, op, MODES[m], accuracy, bitwise, BUFFER_WITH[kind],
                             0};
            size_t n = lengths[l], in_offset = l % 2 ? 3 : 0, out_offset = (size_t)m;
            check_scan(&s, ctx, scan_through_buffers(&s, data, n, in_offset, out_offset, false,
                                                     got),
                       data, n, got);
        }
    }
}

static void run_matrix(void)
{
    test_rng rng = {UINT64_C(0x6d6174)};
    void *data = malloc(70001 * 8), *got = malloc((70001 + TAIL) * 8);
    EXPECT(data != NULL && got != NULL, "no memory");
    for (size_t k = 0; k < n_kernels && data != NULL && got != NULL; k++) {
        set_scan_kernel(kernels[k], 0);
        set_accuracy(CLFOLD_ACCURACY_DEFAULT);
        for (size_t t = 0; t < N_TYPES; t++) {
            clfold_type type = TYPES[t], result;
            if (!type_wanted(type))
                continue;
            test_progress("test_scan --matrix", "%s %s", clfold_scan_kernel_name(kernels[k]),
                          clfold_type_name(type));
            for (clfold_op op = CLFOLD_SUM; op <= CLFOLD_XOR; op++) {
                if (clfold_result_type(type, op, &result) != CLFOLD_SUCCESS)
                    continue; /* bitwise on floats: --misuse */
                check_data_set(kernels[k], data, got, type, op, DATA_RANDOM,
                               CLFOLD_ACCURACY_DEFAULT, &rng);
                if (op == CLFOLD_MIN || op == CLFOLD_MAX)
                    check_data_set(kernels[k], data, got, type, op, DATA_ONE_SIDED,
                                   CLFOLD_ACCURACY_DEFAULT, &rng);
                if (type_is_float(type) && (op == CLFOLD_SUM || op == CLFOLD_PROD))
                    check_data_set(kernels[k], data, got, type, op, DATA_EXACT,
                                   CLFOLD_ACCURACY_DEFAULT, &rng);
                if (type_is_float(type) && op == CLFOLD_PROD)
                    check_data_set(kernels[k], data, got, type, op, DATA_NEAR_ONE,
                                   CLFOLD_ACCURACY_DEFAULT, &rng);
            }
        }
        /* Float sums at the other accuracies the scans take. */
        const clfold_accuracy accuracies[] = {CLFOLD_ACCURACY_COMPENSATED, CLFOLD_ACCURACY_FP64};
        for (size_t a = 0; a < 2; a++) {
            if (accuracies[a] == CLFOLD_ACCURACY_FP64 && !fp64)
                continue;
            set_accuracy(accuracies[a]);
            for (size_t t = 0; t < N_TYPES; t++) {
                if (!type_is_float(TYPES[t]) || !type_wanted(TYPES[t]))
                    continue;
                check_data_set(kernels[k], data, got, TYPES[t], CLFOLD_SUM, DATA_RANDOM,
                               accuracies[a], &rng);
                check_data_set(kernels[k], data, got, TYPES[t], CLFOLD_SUM, DATA_EXACT,
                               accuracies[a], &rng);
            }
        }
        set_accuracy(CLFOLD_ACCURACY_DEFAULT);
    }
    free(data);
    free(got);
}

/* ---- --special ----------------------------------------------------------------------- */

#define INF INFINITY

/* A hand-written float case: its elements and, output by output, what it must give. */
struct special {
    clfold_op op;
    clfold_scan_mode mode;
    size_t n;
    double in[6];
    double want[6];
    bool zero_sign; /* the sign of a zero output is part of the answer (sums: not compensated) */
};

static const struct special SPECIALS[] = {
    {CLFOLD_MIN, CLFOLD_INCLUSIVE, 4, {3, NAN, -INF, 1}, {3, NAN, NAN, NAN}, true},
    {CLFOLD_MIN, CLFOLD_INCLUSIVE, 2, {NAN, -INF}, {NAN, NAN}, true},
    {CLFOLD_MAX, CLFOLD_EXCLUSIVE, 3, {3, NAN, 1}, {-INF, 3, NAN}, true},
    {CLFOLD_MIN, CLFOLD_INCLUSIVE, 3, {0.0, -0.0, 0.0}, {0.0, -0.0, -0.0}, true},
    {CLFOLD_MAX, CLFOLD_INCLUSIVE, 3, {-0.0, 0.0, -0.0}, {-0.0, 0.0, 0.0}, true},
    {CLFOLD_MIN, CLFOLD_EXCLUSIVE, 3, {-0.0, 0.0, 5}, {INF, -0.0, -0.0}, true},
    {CLFOLD_MAX, CLFOLD_EXCLUSIVE, 3, {0.0, -0.0, -5}, {-INF, 0.0, 0.0}, true},
    {CLFOLD_MAX, CLFOLD_INCLUSIVE, 4, {-INF, -0.0, INF, 2}, {-INF, -0.0, INF, INF}, true},
    {CLFOLD_MIN, CLFOLD_INCLUSIVE, 4, {INF, 2, -INF, -0.0}, {INF, 2, -INF, -INF}, true},
    {CLFOLD_SUM, CLFOLD_INCLUSIVE, 5, {1, INF, 2, -INF, 3}, {1, INF, INF, NAN, NAN}, true},
    {CLFOLD_SUM, CLFOLD_EXCLUSIVE, 5, {1, INF, 2, -INF, 3}, {0.0, 1, INF, INF, NAN}, true},
    {CLFOLD_SUM, CLFOLD_INCLUSIVE, 4, {2, NAN, -INF, 5}, {2, NAN, NAN, NAN}, true},
    {CLFOLD_SUM, CLFOLD_INCLUSIVE, 3, {-INF, 1, -INF}, {-INF, -INF, -INF}, true},
    {CLFOLD_SUM, CLFOLD_INCLUSIVE, 3, {-0.0, -0.0, -0.0}, {-0.0, -0.0, -0.0}, true},
    {CLFOLD_SUM, CLFOLD_EXCLUSIVE, 3, {-0.0, -0.0, -0.0}, {0.0, -0.0, -0.0}, true},
    {CLFOLD_SUM, CLFOLD_INCLUSIVE, 4, {-0.0, -0.0, 0.0, -0.0}, {-0.0, -0.0, 0.0, 0.0}, true},
    {CLFOLD_SUM, CLFOLD_INCLUSIVE, 3, {1, -1, -0.0}, {1, 0.0, 0.0}, true},
    {CLFOLD_SUM, CLFOLD_EXCLUSIVE, 1, {-0.0}, {0.0}, true},
    {CLFOLD_SUM, CLFOLD_EXCLUSIVE, 1, {NAN}, {0.0}, true},
    {CLFOLD_PROD, CLFOLD_INCLUSIVE, 4, {2, -0.0, 3, -1}, {2, -0.0, -0.0, 0.0}, true},
    {CLFOLD_PROD, CLFOLD_INCLUSIVE, 3, {INF, 0.0, 2}, {INF, NAN, NAN}, true},
    {CLFOLD_PROD, CLFOLD_EXCLUSIVE, 3, {-2, INF, NAN}, {1, -2, -INF}, true},
};

/* Whether got (of the result type) is `want` written out: NaN any NaN, zeros by sign. */
static bool special_equal(const reference_value *got, double want, clfold_type result,
                          bool zero_sign)
{
    double g = result == CLFOLD_DOUBLE ? got->f64 : (double)got->f32;
    if (isnan(want))
        return isnan(g);
    if (want == 0 && !zero_sign)
        return g == 0;
    return g == want && signbit(g) == signbit(want);
}

static void check_special_case(const struct special *c, clfold_type type,
                               clfold_accuracy accuracy, clfold_scan_kernel kernel)
{
    unsigned char data[6 * 8], got[(6 + TAIL) * 8];
    clfold_type result;
    clfold_result_type(type, c->op, &result);
    for (size_t i = 0; i < c->n; i++)
        store_element(data, i, type, 0, c->in[i]);
    struct scan s = {kernel, 0, type, c->op, c->mode, accuracy, false, "buffer", 0};
    for (int via = 0; via < 2; via++) {
        clfold_status status = via == 0 ? scan_through_buffers(&s, data, c->n, 1, 1, false, got)
                                        : scan_through_host(ctx, &s, data, c->n, got);
        bool ok = status == CLFOLD_SUCCESS;
        /* Sums of zeros alone may give +0 under the compensated accuracy, but for the identity. */
        for (size_t i = 0; i < c->n && ok; i++) {
            reference_value g = output_at(got, i, clfold_type_size(result));
            bool first = c->mode == CLFOLD_EXCLUSIVE && i == 0;
            bool sign = c->zero_sign && (c->op != CLFOLD_SUM || first ||
                                         accuracy != CLFOLD_ACCURACY_COMPENSATED);
            ok = special_equal(&g, c->want[i], result, sign);
        }
        char what[200];
        describe_scan(what, sizeof what, &s, c->n);
        EXPECT(ok, "special case %zu (%s): %s: %s", (size_t)(c - SPECIALS),
               via == 0 ? "buffer" : "host", what,
               status == CLFOLD_SUCCESS ? "outputs differ" : clfold_status_string(status));
        if (status == CLFOLD_SUCCESS && !ok)
            for (size_t i = 0; i < c->n; i++) {
                reference_value g = output_at(got, i, clfold_type_size(result));
                fprintf(stderr, "  output %zu: got %g (sign %d), want %g (sign %d)\n", i,
                        result == CLFOLD_DOUBLE ? g.f64 : (double)g.f32,
                        signbit(result == CLFOLD_DOUBLE ? g.f64 : (double)g.f32) != 0,
                        c->want[i], signbit(c->want[i]) != 0);
            }
        s.how = "host";
    }
}

/*
 * Longer arrays against the reference: random data with a NaN, an
 * infinity, or both infinities planted; zeros of both signs (min, max),
 * and of one sign (sums).
 */
static void check_planted(clfold_type type, clfold_accuracy accuracy, clfold_scan_kernel kernel,
                          void *data, void *got, test_rng *rng)
{
    static const size_t lengths[] = {1000, 70001};
    static const clfold_op ops[] = {CLFOLD_SUM, CLFOLD_MIN, CLFOLD_MAX};
    for (size_t l = 0; l < 2; l++) {
        size_t n = lengths[l];
        for (int pattern = 0; pattern < 5; pattern++) {
            for (size_t o = 0; o < 3; o++) {
                if (ops[o] != CLFOLD_SUM && accuracy != CLFOLD_ACCURACY_DEFAULT)
                    continue; /* the accuracy is for sums */
                size_t at = (size_t)rng_below(rng, n), later = at + (size_t)rng_below(rng, n - at);
                fill_unit(data, n, type, rng);
                if (pattern == 0) {
                    store_element(data, at, type, 0, NAN);
                } else if (pattern == 1) {
                    store_element(data, at, type, 0, ops[o] == CLFOLD_MIN ? -INF : INF);
                } else if (pattern == 2) {
                    store_element(data, at, type, 0, INF);
                    store_element(data, later, type, 0, -INF);
                } else {
                    bool minus = pattern == 3 || ops[o] != CLFOLD_SUM;
                    for (size_t i = 0; i < n; i++) /* zeros: all -0, or (min, max) mixed */
                        store_element(data, i, type, 0,
                                      minus && (pattern == 3 || rng_below(rng, 2)) ? -0.0 : 0.0);
                    if (pattern == 4 && ops[o] == CLFOLD_SUM)
                        store_element(data, at, type, 0, -0.0); /* +0s and one -0 */
                }
                for (int m = 0; m < 2; m++) {
                    struct scan s = {kernel, 0, type, ops[o], MODES[m], accuracy, false, "buffer",
                                     0};
                    check_scan(&s, ctx, scan_through_buffers(&s, data, n, 2, 0, false, got),
                               data, n, got);
                }
            }
        }
    }
}

/* The bits of `op`'s identity in the result type, written out. */
static uint64_t identity_bits(clfold_type type, clfold_op op)
{
    clfold_type result = type;
    clfold_result_type(type, op, &result);
    uint64_t ones = ones_of(result), sign = (ones >> 1) + 1;
    bool is_signed = !type_is_unsigned(result);
    switch (result) {
    case CLFOLD_FLOAT:
        return op == CLFOLD_SUM ? 0 : op == CLFOLD_PROD ? 0x3f800000u
             : op == CLFOLD_MIN ? 0x7f800000u : 0xff800000u;
    case CLFOLD_DOUBLE:
        return op == CLFOLD_SUM ? 0 : op == CLFOLD_PROD ? UINT64_C(0x3ff0000000000000)
             : op == CLFOLD_MIN ? UINT64_C(0x7ff0000000000000) : UINT64_C(0xfff0000000000000);
    default: break;
    }
    switch (op) {
    case CLFOLD_PROD: return 1;
    case CLFOLD_MIN: return is_signed ? sign - 1 : ones;
    case CLFOLD_MAX: return is_signed ? sign : 0;
    case CLFOLD_AND: return ones;
    default: return 0;
    }
}

/* The exclusive scan's first output of every type and operator: the identity's bits. */
static void check_identities(clfold_scan_kernel kernel, test_rng *rng)
{
    unsigned char data[5 * 8], got[(5 + TAIL) * 8];
    for (size_t t = 0; t < N_TYPES; t++) {
        clfold_type type = TYPES[t];
        for (clfold_op op = CLFOLD_SUM; op <= CLFOLD_XOR && type_wanted(type); op++) {
            clfold_type result;
            if (clfold_result_type(type, op, &result) != CLFOLD_SUCCESS)
                continue;
            size_t size = clfold_type_size(result);
            for (size_t n = 1; n <= 5; n += 4) {
                struct scan s = {kernel, 0, type, op, CLFOLD_EXCLUSIVE, CLFOLD_ACCURACY_DEFAULT,
                                 false, "buffer", 0};
                fill(data, n, type, op, DATA_RANDOM, rng);
                clfold_status status = scan_through_buffers(&s, data, n, 0, 0, false, got);
                reference_value g = output_at(got, 0, size);
                uint64_t want = identity_bits(type, op), mask = ones_of(result);
                EXPECT(status == CLFOLD_SUCCESS && (g.u64 & mask) == want,
                       "identity: kernel=%s type=%s op=%s n=%zu: %s, out[0] bits 0x%llx, want "
                       "0x%llx",
                       clfold_scan_kernel_name(kernel), clfold_type_name(type),
                       clfold_op_name(op), n, clfold_status_string(status),
                       (unsigned long long)(g.u64 & mask), (unsigned long long)want);
                if (status == CLFOLD_SUCCESS)
                    check_outputs(&s, data, n, got);
            }
        }
    }
}

/* Integer scans that wrap or widen, written out. */
static void check_integer_extremes(clfold_scan_kernel kernel)
{
    static const struct {
        clfold_type type;
        clfold_op op;
        size_t n;
        int64_t in[4];
        uint64_t want[4]; /* bits of the result type */
    } cases[] = {
        {CLFOLD_INT64, CLFOLD_SUM, 3, {INT64_MAX, 1, -1},
         {UINT64_C(0x7fffffffffffffff), UINT64_C(0x8000000000000000), UINT64_C(0x7fffffffffffffff)}},
        {CLFOLD_UINT64, CLFOLD_SUM, 2, {-1, 2}, {UINT64_MAX, 1}},
        {CLFOLD_INT8, CLFOLD_SUM, 3, {127, 127, -128}, {127, 254, 126}},
        {CLFOLD_UINT8, CLFOLD_SUM, 3, {255, 255, 1}, {255, 510, 511}},
        {CLFOLD_INT16, CLFOLD_SUM, 2, {-32768, -32768}, {(uint64_t)-32768, (uint64_t)-65536}},
        {CLFOLD_UINT32, CLFOLD_PROD, 3, {65536, 65536, 65536},
         {65536, UINT64_C(1) << 32, UINT64_C(1) << 48}},
        {CLFOLD_INT8, CLFOLD_PROD, 3, {-128, -128, -1}, {(uint64_t)-128, 16384, (uint64_t)-16384}},
        {CLFOLD_UINT64, CLFOLD_PROD, 2, {INT64_C(1) << 32, INT64_C(1) << 32},
         {UINT64_C(1) << 32, 0}},
        {CLFOLD_INT8, CLFOLD_MIN, 3, {5, -128, 127}, {5, 0x80, 0x80}},
        {CLFOLD_INT8, CLFOLD_MAX, 3, {-128, -1, 127}, {0x80, 0xff, 0x7f}},
        {CLFOLD_UINT16, CLFOLD_MAX, 2, {0x8000, 0xffff}, {0x8000, 0xffff}},
        {CLFOLD_INT32, CLFOLD_MAX, 2, {INT32_MIN, -1}, {0x80000000u, 0xffffffffu}},
        {CLFOLD_UINT64, CLFOLD_MIN, 2, {-1, INT64_MIN}, {UINT64_MAX, UINT64_C(1) << 63}},
    };
    unsigned char data[4 * 8], got[(4 + TAIL) * 8];
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        clfold_type result;
        clfold_result_type(cases[c].type, cases[c].op, &result);
        size_t size = clfold_type_size(result);
        for (size_t i = 0; i < cases[c].n; i++)
            store_element(data, i, cases[c].type, cases[c].in[i], 0.0);
        struct scan s = {kernel, 0, cases[c].type, cases[c].op, CLFOLD_INCLUSIVE,
                         CLFOLD_ACCURACY_DEFAULT, false, "buffer", 0};
        clfold_status status = scan_through_buffers(&s, data, cases[c].n, 0, 0, false, got);
        bool ok = status == CLFOLD_SUCCESS;
        for (size_t i = 0; i < cases[c].n && ok; i++)
            ok = (output_at(got, i, size).u64 & ones_of(result)) == cases[c].want[i];
        EXPECT(ok, "integer case %zu: kernel=%s %s of %s: %s", c, clfold_scan_kernel_name(kernel),
               clfold_op_name(cases[c].op), clfold_type_name(cases[c].type),
               ok || status != CLFOLD_SUCCESS ? clfold_status_string(status) : "outputs differ");
    }
}

/*
 * 8- and 16-bit sums of 70001 copies of the type's least and of its
 * greatest value, every output checked: on NVIDIA a one-launch tile adds
 * its elements in ints (cl/scan/tiles.cl's SMALL_INT_SUM), which whole
 * tiles of these come nearest to overflowing.
 */
static void check_small_sums_of_extremes(clfold_scan_kernel kernel, void *data, void *got)
{
    static const struct {
        clfold_type type;
        int64_t least, greatest;
    } types[] = {{CLFOLD_INT8, INT8_MIN, INT8_MAX},
                 {CLFOLD_UINT8, 0, UINT8_MAX},
                 {CLFOLD_INT16, INT16_MIN, INT16_MAX},
                 {CLFOLD_UINT16, 0, UINT16_MAX}};
    const size_t n = 70001;
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        for (int end = 0; end < 2; end++) {
            int64_t value = end == 0 ? types[t].least : types[t].greatest;
            for (size_t i = 0; i < n; i++)
                store_element(data, i, types[t].type, value, 0.0);
            for (size_t m = 0; m < sizeof MODES / sizeof *MODES; m++) {
                struct scan s = {kernel, 0, types[t].type, CLFOLD_SUM, MODES[m],
                                 CLFOLD_ACCURACY_DEFAULT, false, "buffer", 0};
                clfold_status status = scan_through_buffers(&s, data, n, 0, 0, false, got);
                size_t wrong = 0, first = 0;
                for (size_t i = 0; i < n && status == CLFOLD_SUCCESS; i++) {
                    int64_t want = (int64_t)(MODES[m] == CLFOLD_INCLUSIVE ? i + 1 : i) * value;
                    if (output_at(got, i, 8).u64 != (uint64_t)want && wrong++ == 0)
                        first = i;
                }
                EXPECT(status == CLFOLD_SUCCESS && wrong == 0,
                       "kernel=%s %s sum of %zu x %lld: %s, %zu outputs wrong from %zu",
                       clfold_scan_kernel_name(kernel), clfold_type_name(types[t].type), n,
                       (long long)value, clfold_status_string(status), wrong, first);
            }
        }
    }
}

static void run_special(void)
{
    static const clfold_type types[] = {CLFOLD_HALF, CLFOLD_FLOAT, CLFOLD_DOUBLE};
    static const clfold_accuracy accuracies[] = {CLFOLD_ACCURACY_DEFAULT,
                                                 CLFOLD_ACCURACY_COMPENSATED, CLFOLD_ACCURACY_FP64};
    test_rng rng = {UINT64_C(0x73706563)};
    void *data = malloc(70001 * 8), *got = malloc((70001 + TAIL) * 8);
    EXPECT(data != NULL && got != NULL, "no memory");
    for (size_t k = 0; k < n_kernels && data != NULL && got != NULL; k++) {
        set_scan_kernel(kernels[k], 0);
        for (size_t a = 0; a < 3; a++) {
            if (accuracies[a] == CLFOLD_ACCURACY_FP64 && !fp64)
                continue;
            set_accuracy(accuracies[a]);
            for (size_t t = 0; t < 3; t++) {
                if (!type_wanted(types[t]))
                    continue;
                for (size_t c = 0; c < sizeof SPECIALS / sizeof *SPECIALS; c++)
                    if (SPECIALS[c].op == CLFOLD_SUM || accuracies[a] == CLFOLD_ACCURACY_DEFAULT)
                        check_special_case(&SPECIALS[c], types[t], accuracies[a], kernels[k]);
                check_planted(types[t], accuracies[a], kernels[k], data, got, &rng);
            }
        }
        set_accuracy(CLFOLD_ACCURACY_DEFAULT);
        check_identities(kernels[k], &rng);
        check_integer_extremes(kernels[k]);
        check_small_sums_of_extremes(kernels[k], data, got);
    }
    free(data);
    free(got);
}

/* ---- --misuse ------------------------------------------------------------------------- */

/* One refused call: its status, a message, and *event NULL. */
static void expect_refused(clfold_status got, clfold_status want, cl_event event, bool async,
                           const char *what)
{
    EXPECT(got == want, "%s: %s, want %s (%s)", what, clfold_status_string(got),
           clfold_status_string(want), clfold_last_error(ctx));
    EXPECT(got == CLFOLD_SUCCESS || clfold_last_error(ctx)[0] != '\0', "%s: no message", what);
    EXPECT(!async || event == NULL, "%s: *event is not NULL", what);
}

/* A blocking and a non-blocking call with the same arguments must both be refused with `want`. */
#define REFUSED(want, what, in, in_offset, count, type, op, mode, out, out_offset)              \
    do {                                                                                        \
        cl_event event_ = (cl_event)&event_; /* anything but NULL */                           \
        clfold_status got_ = clfold_scan_buffer(ctx, in, in_offset, count, type, op, mode, out, \
                                                out_offset);                                    \
        expect_refused(got_, (want), NULL, false, (what));                                      \
        got_ = clfold_scan_buffer_async(ctx, in, in_offset, count, type, op, mode, out,         \
                                        out_offset, 0, NULL, &event_);                          \
        expect_refused(got_, (want), event_, true, (what));                                     \
    } while (0)

/* Statuses of bad arguments, before anything is enqueued; the output untouched after. */
static void check_refusals(cl_mem input, cl_mem output, size_t output_bytes)
{
    cl_int err;
    cl_mem read_only = buffer_of(CL_MEM_READ_ONLY, 64, NULL);
    const cl_buffer_region whole = {0, 64};
    cl_mem read_only_sub = clCreateSubBuffer(read_only, 0, CL_BUFFER_CREATE_TYPE_REGION, &whole,
                                             &err);
    EXPECT(err == CL_SUCCESS, "clCreateSubBuffer: %d", err);
    cl_device_id device = clfold_device(ctx);
    cl_context foreign_cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    EXPECT(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_mem foreign = clCreateBuffer(foreign_cl, CL_MEM_READ_WRITE, 64, NULL, &err);
    const clfold_scan_mode inc = CLFOLD_INCLUSIVE;
    /* input: 16 int32 (64 bytes); output: 64 bytes, 16 int32 or 8 int64 results. */
    REFUSED(CLFOLD_ERROR_UNSUPPORTED, "argmin", input, 0, 4, CLFOLD_INT32, CLFOLD_ARGMIN, inc, output, 0);
    REFUSED(CLFOLD_ERROR_UNSUPPORTED, "argmax", input, 0, 4, CLFOLD_FLOAT, CLFOLD_ARGMAX, inc, output, 0);
    REFUSED(CLFOLD_ERROR_UNSUPPORTED, "sumsq", input, 0, 4, CLFOLD_INT32, CLFOLD_SUMSQ, inc, output, 0);
    REFUSED(CLFOLD_ERROR_INVALID_TYPE, "unknown type", input, 0, 4, (clfold_type)999, CLFOLD_SUM, inc, output, 0);
    REFUSED(CLFOLD_ERROR_INVALID_OP, "unknown operator", input, 0, 4, CLFOLD_INT32, (clfold_op)999, inc, output, 0);
    REFUSED(CLFOLD_ERROR_OP_NOT_FOR_TYPE, "xor of floats", input, 0, 4, CLFOLD_FLOAT, CLFOLD_XOR, inc, output, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "unknown mode", input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, (clfold_scan_mode)2, output, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "mode -1", input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, (clfold_scan_mode)-1, output, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "NULL input", NULL, 0, 4, CLFOLD_INT32, CLFOLD_MIN, inc, output, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "NULL output", input, 0, 4, CLFOLD_INT32, CLFOLD_MIN, inc, NULL, 0);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "input past its buffer", input, 1, 16, CLFOLD_INT32, CLFOLD_MIN, inc, output, 0);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "input offset past the end", input, 17, 1, CLFOLD_INT32, CLFOLD_MIN, inc, output, 0);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "input offset SIZE_MAX", input, SIZE_MAX, 2, CLFOLD_INT32, CLFOLD_MIN, inc, output, 0);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "input offset SIZE_MAX / 4", input, SIZE_MAX / 4, 1, CLFOLD_INT32, CLFOLD_MIN, inc, output, 0);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "count SIZE_MAX", input, 0, SIZE_MAX, CLFOLD_UINT8, CLFOLD_MAX, inc, output, 0);
    /* An int32 sum gives int64 results: 8 fit the output, from result 0. */
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "int64 results past the output", input, 0, 9, CLFOLD_INT32, CLFOLD_SUM, inc, output, 0);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "output offset past the end", input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, inc, output, 5);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "output offset SIZE_MAX", input, 0, 4, CLFOLD_INT32, CLFOLD_MIN, inc, output, SIZE_MAX);
    REFUSED(CLFOLD_ERROR_OUT_OF_BOUNDS, "output offset SIZE_MAX / 8", input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, inc, output, SIZE_MAX / 8);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "read-only output", input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, inc, read_only, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "sub-buffer of a read-only output", input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, inc, read_only_sub, 0);
    REFUSED(CLFOLD_ERROR_WRONG_CONTEXT, "output of another cl_context", input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, inc, foreign, 0);
    REFUSED(CLFOLD_ERROR_WRONG_CONTEXT, "input of another cl_context", foreign, 0, 4, CLFOLD_INT32, CLFOLD_SUM, inc, output, 0);
    /* In place where the results are larger than the elements; partial overlaps of one buffer. */
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "int32 sum in place (int64 results)", input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, inc, input, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "half sum in place (float results)", input, 0, 4, CLFOLD_HALF, CLFOLD_SUM, inc, input, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "int64 results from the second int32 on", input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, inc, input, 1);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "output one element on", input, 0, 8, CLFOLD_FLOAT, CLFOLD_SUM, inc, input, 1);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "output one element back", input, 1, 8, CLFOLD_INT32, CLFOLD_MAX, CLFOLD_EXCLUSIVE, input, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "output over the last element", input, 0, 8, CLFOLD_UINT8, CLFOLD_XOR, inc, input, 7);
    unsigned char bytes[256];
    read_buffer(output, 0, output_bytes, bytes);
    EXPECT(guards_intact(bytes, 0, output_bytes), "a refused call wrote into the output buffer");
    clReleaseMemObject(foreign);
    clReleaseContext(foreign_cl);
    clReleaseMemObject(read_only_sub);
    clReleaseMemObject(read_only);
}

/* Non-blocking arguments: wait lists, NULL context; statuses and *event. */
static void check_async_refusals(cl_mem input, cl_mem output)
{
    cl_int err;
    cl_event some = clCreateUserEvent(cl, &err), event = (cl_event)&event;
    EXPECT(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    clfold_status status = clfold_scan_buffer_async(ctx, input, 0, 4, CLFOLD_INT32, CLFOLD_SUM,
                                                    CLFOLD_INCLUSIVE, output, 0, 1, NULL, &event);
    expect_refused(status, CLFOLD_ERROR_INVALID_ARGUMENT, event, true, "events counted, no list");
    event = (cl_event)&event;
    status = clfold_scan_buffer_async(ctx, input, 0, 4, CLFOLD_INT32, CLFOLD_SUM,
                                      CLFOLD_INCLUSIVE, output, 0, 0, &some, &event);
    expect_refused(status, CLFOLD_ERROR_INVALID_ARGUMENT, event, true, "a list of no events");
    EXPECT(clfold_scan_buffer_async(NULL, input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, CLFOLD_INCLUSIVE,
                                    output, 0, 0, NULL, NULL) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "a NULL context is not refused (async)");
    EXPECT(clfold_scan_buffer(NULL, input, 0, 4, CLFOLD_INT32, CLFOLD_SUM, CLFOLD_INCLUSIVE,
                              output, 0) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "a NULL context is not refused");
    clSetUserEventStatus(some, CL_COMPLETE);
    clReleaseEvent(some);
}

/* Host arrays: NULL pointers, overlaps, the exact accuracy, argmin. */
static void check_host_refusals(void)
{
    int32_t ints[32] = {0};
    float floats[32] = {0};
    unsigned char guard[32 * 8];
    memset(guard, GUARD, sizeof guard);
    int64_t wide[32];
    memcpy(wide, guard, sizeof wide);
    const clfold_scan_mode inc = CLFOLD_INCLUSIVE;
#define HOST_REFUSED(want, what, ...) expect_refused(clfold_scan_host(__VA_ARGS__), (want), NULL, false, (what))
    HOST_REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "host: NULL input", ctx, NULL, 4, CLFOLD_INT32, CLFOLD_SUM, inc, wide);
    HOST_REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "host: NULL output", ctx, ints, 4, CLFOLD_INT32, CLFOLD_SUM, inc, NULL);
    HOST_REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "host: NULL context", NULL, ints, 4, CLFOLD_INT32, CLFOLD_SUM, inc, wide);
    HOST_REFUSED(CLFOLD_ERROR_UNSUPPORTED, "host: argmin", ctx, ints, 4, CLFOLD_INT32, CLFOLD_ARGMIN, inc, wide);
    HOST_REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "host: unknown mode", ctx, ints, 4, CLFOLD_INT32, CLFOLD_SUM, (clfold_scan_mode)7, wide);
    HOST_REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "host: int32 sum in place", ctx, ints, 4, CLFOLD_INT32, CLFOLD_SUM, inc, ints);
    HOST_REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "host: int64 results over the elements", ctx, ints + 4, 8, CLFOLD_INT32, CLFOLD_SUM, inc, ints);
    HOST_REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "host: output one element on", ctx, floats, 8, CLFOLD_FLOAT, CLFOLD_SUM, inc, floats + 1);
    HOST_REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "host: output one element back", ctx, floats + 1, 8, CLFOLD_FLOAT, CLFOLD_MIN, inc, floats);
    HOST_REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "host: output one byte on", ctx, ints, 8, CLFOLD_INT32, CLFOLD_XOR, inc, (unsigned char *)ints + 1);
    set_accuracy(CLFOLD_ACCURACY_EXACT);
    HOST_REFUSED(CLFOLD_ERROR_UNSUPPORTED, "host: exact float sum", ctx, floats, 4, CLFOLD_FLOAT, CLFOLD_SUM, inc, wide);
    set_accuracy(CLFOLD_ACCURACY_DEFAULT);
#undef HOST_REFUSED
    EXPECT(memcmp(wide, guard, sizeof wide) == 0, "a refused host scan wrote its output");
    /* Adjacent, not overlapping: fine. */
    for (int i = 0; i < 32; i++)
        floats[i] = (float)(i % 5);
    EXPECT_STATUS(ctx, clfold_scan_host(ctx, floats, 16, CLFOLD_FLOAT, CLFOLD_SUM, inc, floats + 16),
                  CLFOLD_SUCCESS);
    EXPECT(floats[16] == 0 && floats[31] == 30, "adjacent host output: %g .. %g", floats[16],
           floats[31]);
}

/*
 * The exact accuracy: float sums refused (every kind of call, *event NULL),
 * and float products, as clfold_set_accuracy says of every product; every
 * other scan runs as at the default accuracy.
 */
static void check_exact_accuracy(void)
{
    static const struct {
        clfold_type type;
        clfold_op op;
    } others[] = {{CLFOLD_INT32, CLFOLD_SUM}, {CLFOLD_FLOAT, CLFOLD_MIN}, {CLFOLD_UINT8, CLFOLD_XOR},
                  {CLFOLD_HALF, CLFOLD_MAX}, {CLFOLD_INT64, CLFOLD_PROD}, {CLFOLD_DOUBLE, CLFOLD_MAX}};
    static const clfold_type floats[] = {CLFOLD_HALF, CLFOLD_FLOAT, CLFOLD_DOUBLE};
    test_rng rng = {UINT64_C(0x6578)};
    unsigned char data[1000 * 8] = {0}, got[(1000 + TAIL) * 8];
    cl_mem input = buffer_of(CL_MEM_READ_WRITE, sizeof data, data);
    cl_mem output = guarded_buffer(sizeof data);
    set_accuracy(CLFOLD_ACCURACY_EXACT);
    for (size_t t = 0; t < 3; t++) {
        if (!type_wanted(floats[t]))
            continue;
        REFUSED(CLFOLD_ERROR_UNSUPPORTED, "exact float sum", input, 0, 100, floats[t],
                CLFOLD_SUM, CLFOLD_INCLUSIVE, output, 0);
        REFUSED(CLFOLD_ERROR_UNSUPPORTED, "exact float product", input, 0, 100, floats[t],
                CLFOLD_PROD, CLFOLD_EXCLUSIVE, output, 0);
    }
    for (size_t c = 0; c < sizeof others / sizeof *others; c++) {
        if (!type_wanted(others[c].type))
            continue;
        for (int m = 0; m < 2; m++) {
            struct scan s = {CLFOLD_SCAN_AUTO, 0, others[c].type, others[c].op, MODES[m],
                             CLFOLD_ACCURACY_EXACT, type_is_float(others[c].type), "buffer", 0};
            fill(data, 1000, s.type, s.op, DATA_EXACT, &rng);
            check_scan(&s, ctx, scan_through_buffers(&s, data, 1000, 0, 0, false, got), data, 1000,
                       got);
            s.how = "host";
            check_scan(&s, ctx, scan_through_host(ctx, &s, data, 1000, got), data, 1000, got);
        }
    }
    set_accuracy(CLFOLD_ACCURACY_DEFAULT);
    clReleaseMemObject(input);
    clReleaseMemObject(output);
}

/*
 * In place (the output is the input at the same first byte, results as
 * large as elements): the bits of the same scan out of place; through a
 * buffer, non-blocking, and host memory; from an offset; every kernel.
 */
static void check_in_place(test_rng *rng)
{
    static const struct {
        clfold_type type;
        clfold_op op;
    } cases[] = {{CLFOLD_FLOAT, CLFOLD_SUM}, {CLFOLD_INT32, CLFOLD_MIN}, {CLFOLD_UINT8, CLFOLD_XOR},
                 {CLFOLD_INT64, CLFOLD_SUM}, {CLFOLD_DOUBLE, CLFOLD_SUM}, {CLFOLD_FLOAT, CLFOLD_PROD},
                 {CLFOLD_UINT64, CLFOLD_PROD}};
    const size_t n = 5003, offset = 3;
    unsigned char *data = malloc((n + offset) * 8), *want = malloc((n + TAIL) * 8);
    unsigned char *got = malloc((n + offset) * 8);
    for (size_t k = 0; k < N_KERNELS; k++) {
        set_scan_kernel(ALL_KERNELS[k], 0);
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            clfold_type type = cases[c].type;
            size_t element = clfold_type_size(type);
            if (!type_wanted(type))
                continue;
            for (int m = 0; m < 2; m++) {
                for (int async = 0; async < 2; async++) {
                    struct scan s = {ALL_KERNELS[k], 0, type, cases[c].op, MODES[m],
                                     CLFOLD_ACCURACY_DEFAULT, false, async ? "async in place"
                                                                           : "buffer in place", 0};
                    fill(data, n + offset, type, s.op, DATA_RANDOM, rng);
                    clfold_status status = scan_through_buffers(&s, data + offset * element, n, 0,
                                                                0, false, want);
                    EXPECT(status == CLFOLD_SUCCESS, "out of place: %s", clfold_status_string(status));
                    cl_mem buffer = buffer_of(CL_MEM_READ_WRITE, (n + offset) * element, data);
                    cl_event event = NULL;
                    status = async ? clfold_scan_buffer_async(ctx, buffer, offset, n, type, s.op,
                                                              s.mode, buffer, offset, 0, NULL,
                                                              &event)
                                   : clfold_scan_buffer(ctx, buffer, offset, n, type, s.op,
                                                        s.mode, buffer, offset);
                    if (event != NULL) {
                        clWaitForEvents(1, &event);
                        clReleaseEvent(event);
                    }
                    read_buffer(buffer, 0, (n + offset) * element, got);
                    clReleaseMemObject(buffer);
                    check_scan(&s, ctx, status, data + offset * element, n, got + offset * element);
                    EXPECT(status != CLFOLD_SUCCESS ||
                               memcmp(got + offset * element, want, n * element) == 0,
                           "%s: not the bits of the scan out of place", s.how);
                    EXPECT(memcmp(got, data, offset * element) == 0,
                           "%s: elements before the offset changed", s.how);
                    s.how = "host in place";
                    memcpy(got, data, (n + offset) * element);
                    status = clfold_scan_host(ctx, got, n, type, s.op, s.mode, got);
                    check_scan(&s, ctx, status, data, n, got);
                }
            }
        }
    }
    set_scan_kernel(CLFOLD_SCAN_AUTO, 0);
    free(data);
    free(want);
    free(got);
}

/*
 * Sub-buffers of one buffer: ranges that overlap through two handles are
 * refused, disjoint ones scan.
 */
static void check_sub_buffers(void)
{
    cl_uint align_bits = 0;
    clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                    &align_bits, NULL);
    size_t align = align_bits / 8 > 4 ? align_bits / 8 : 4;
    size_t count = align / 4 * 2; /* int32 elements over two alignment steps */
    int32_t *ints = malloc(4 * align);
    for (size_t i = 0; i < align; i++)
        ints[i] = (int32_t)(i % 7) - 3;
    cl_mem parent = buffer_of(CL_MEM_READ_WRITE, 4 * align, ints);
    cl_int err_a, err_b, err_c;
    const cl_buffer_region a_region = {0, 2 * align}, b_region = {align, 2 * align},
                           c_region = {2 * align, 2 * align};
    cl_mem a = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &a_region, &err_a);
    cl_mem b = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &b_region, &err_b);
    cl_mem c = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &c_region, &err_c);
    EXPECT(err_a == CL_SUCCESS && err_b == CL_SUCCESS && err_c == CL_SUCCESS,
           "clCreateSubBuffer: %d %d %d (alignment %zu)", err_a, err_b, err_c, align);
    const clfold_scan_mode inc = CLFOLD_INCLUSIVE;
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "overlapping sub-buffers", a, 0, count, CLFOLD_INT32, CLFOLD_MAX, inc, b, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "overlapping sub-buffers, the other way", b, 0, count, CLFOLD_INT32, CLFOLD_MAX, inc, a, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "a sub-buffer over its parent's range", parent, 0, count, CLFOLD_FLOAT, CLFOLD_SUM, inc, b, 0);
    REFUSED(CLFOLD_ERROR_INVALID_ARGUMENT, "a parent over its sub-buffer's range", b, 0, count, CLFOLD_FLOAT, CLFOLD_SUM, inc, parent, 0);
    /* Disjoint: a's elements into c. */
    EXPECT_STATUS(ctx, clfold_scan_buffer(ctx, a, 0, count, CLFOLD_INT32, CLFOLD_MAX, inc, c, 0),
                  CLFOLD_SUCCESS);
    int32_t *got = malloc(4 * align);
    read_buffer(parent, 0, 4 * align, got);
    int32_t running = INT32_MIN;
    bool ok = true;
    for (size_t i = 0; i < count; i++) {
        running = ints[i] > running ? ints[i] : running;
        ok = ok && got[count + i] == running && got[i] == ints[i];
    }
    EXPECT(ok, "disjoint sub-buffers: wrong outputs or changed elements");
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    clReleaseMemObject(parent);
    free(ints);
    free(got);
}

/* One buffer holding the elements and, apart from them, the outputs: it scans. */
static void check_same_buffer_disjoint(void)
{
    int32_t ints[16];
    float floats[4] = {0.5f, 1.5f, -2.0f, 4.0f};
    for (int i = 0; i < 16; i++)
        ints[i] = i < 4 ? 1000 * (i + 1) : -1;
    memcpy(ints + 12, floats, sizeof floats);
    cl_mem buffer = buffer_of(CL_MEM_READ_WRITE, sizeof ints, ints);
    /* int32 elements 0..3 (bytes 0..15) into int64 results 2..5 (bytes 16..47). */
    EXPECT_STATUS(ctx, clfold_scan_buffer(ctx, buffer, 0, 4, CLFOLD_INT32, CLFOLD_SUM,
                                          CLFOLD_EXCLUSIVE, buffer, 2),
                  CLFOLD_SUCCESS);
    /* float elements 12..15 (bytes 48..63) into float results 0..3, after the first scan. */
    EXPECT_STATUS(ctx, clfold_scan_buffer(ctx, buffer, 12, 4, CLFOLD_FLOAT, CLFOLD_SUM,
                                          CLFOLD_INCLUSIVE, buffer, 0),
                  CLFOLD_SUCCESS);
    unsigned char bytes[64];
    read_buffer(buffer, 0, sizeof bytes, bytes);
    int64_t sums[4], want_sums[4] = {0, 1000, 3000, 6000};
    float prefixes[4], want_prefixes[4] = {0.5f, 2.0f, 0.0f, 4.0f};
    memcpy(sums, bytes + 16, sizeof sums);
    memcpy(prefixes, bytes, sizeof prefixes);
    EXPECT(memcmp(sums, want_sums, sizeof sums) == 0 &&
               memcmp(prefixes, want_prefixes, sizeof prefixes) == 0 &&
               memcmp(bytes + 48, floats, sizeof floats) == 0,
           "one buffer, disjoint ranges: sums %lld %lld %lld %lld, prefixes %g %g %g %g",
           (long long)sums[0], (long long)sums[1], (long long)sums[2], (long long)sums[3],
           prefixes[0], prefixes[1], prefixes[2], prefixes[3]);
    clReleaseMemObject(buffer);
}

/* Zero elements: every call succeeds and writes nothing (an event still comes). */
static void check_empty(cl_mem input, cl_mem output, size_t output_bytes)
{
    unsigned char bytes[256], host[16];
    for (size_t k = 0; k < N_KERNELS; k++) {
        set_scan_kernel(ALL_KERNELS[k], 0);
        for (int m = 0; m < 2; m++) {
            cl_event event = NULL;
            EXPECT_STATUS(ctx, clfold_scan_buffer(ctx, input, 0, 0, CLFOLD_INT32, CLFOLD_SUM,
                                                  MODES[m], output, 0),
                          CLFOLD_SUCCESS);
            EXPECT_STATUS(ctx, clfold_scan_buffer(ctx, input, 16, 0, CLFOLD_FLOAT, CLFOLD_MIN,
                                                  MODES[m], output, 16),
                          CLFOLD_SUCCESS);
            EXPECT_STATUS(ctx, clfold_scan_buffer_async(ctx, input, 3, 0, CLFOLD_UINT8,
                                                        CLFOLD_MAX, MODES[m], output, 1, 0, NULL,
                                                        &event),
                          CLFOLD_SUCCESS);
            EXPECT(event != NULL, "count 0: no event");
            if (event != NULL) {
                clWaitForEvents(1, &event);
                clReleaseEvent(event);
            }
            memset(host, GUARD, sizeof host);
            EXPECT_STATUS(ctx, clfold_scan_host(ctx, bytes, 0, CLFOLD_DOUBLE, CLFOLD_SUM,
                                                MODES[m], host),
                          CLFOLD_SUCCESS);
            EXPECT(guards_intact(host, 0, sizeof host), "host count 0 wrote its output");
        }
    }
    set_scan_kernel(CLFOLD_SCAN_AUTO, 0);
    read_buffer(output, 0, output_bytes, bytes);
    EXPECT(guards_intact(bytes, 0, output_bytes), "count 0 wrote into the output buffer");
}

/*
 * Non-blocking scans in flight: behind an incomplete user event nothing is
 * written (read through a second queue); two at once write their own
 * outputs; a scan of a scan's outputs, chained by events, and one with
 * *event an element of its own wait list.
 */
static void check_flight(void)
{
    enum { N = 100003 };
    int32_t *ints = malloc(N * sizeof *ints);
    float *floats = malloc(N * sizeof *floats);
    int64_t *sums = malloc(N * sizeof *sums), *twice = malloc(N * sizeof *twice);
    float *maxes = malloc(N * sizeof *maxes);
    int64_t run = 0, run2 = 0;
    float top = -INFINITY;
    for (int i = 0; i < N; i++) {
        ints[i] = i % 1000 - 400;
        floats[i] = (float)((i * 7919) % 100003);
        sums[i] = run += ints[i];
        twice[i] = run2 += sums[i];
        maxes[i] = top = floats[i] > top ? floats[i] : top;
    }
    cl_mem a = buffer_of(CL_MEM_READ_ONLY, N * 4, ints), b = buffer_of(CL_MEM_READ_ONLY, N * 4, floats);
    cl_mem out_a = guarded_buffer(N * 8), out_b = guarded_buffer(N * 4), out_c = guarded_buffer(N * 8);
    cl_int err;
    cl_event gate = clCreateUserEvent(cl, &err), first = NULL, second = NULL;
    EXPECT(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    set_scan_kernel(CLFOLD_SCAN_BLELLOCH, 64);
    EXPECT_STATUS(ctx, clfold_scan_buffer_async(ctx, a, 0, N, CLFOLD_INT32, CLFOLD_SUM,
                                                CLFOLD_INCLUSIVE, out_a, 0, 1, &gate, &first),
                  CLFOLD_SUCCESS);
    set_scan_kernel(CLFOLD_SCAN_AUTO, 0);
    EXPECT_STATUS(ctx, clfold_scan_buffer_async(ctx, b, 0, N, CLFOLD_FLOAT, CLFOLD_MAX,
                                                CLFOLD_INCLUSIVE, out_b, 0, 0, NULL, &second),
                  CLFOLD_SUCCESS);
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    cl_int state = CL_COMPLETE;
    if (first != NULL)
        clGetEventInfo(first, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
    EXPECT(first != NULL && state != CL_COMPLETE, "a scan behind an incomplete user event completed");
    cl_command_queue other = clCreateCommandQueue(cl, clfold_device(ctx), 0, &err);
    unsigned char *bytes = malloc(N * 8);
    err = clEnqueueReadBuffer(other, out_a, CL_TRUE, 0, N * 8, bytes, 0, NULL, NULL);
    EXPECT(err == CL_SUCCESS && guards_intact(bytes, 0, N * 8),
           "the gated scan wrote before its event");
    clSetUserEventStatus(gate, CL_COMPLETE);
    /* The outputs of the first scanned again, after it: chained by its event. */
    cl_event chained = first, previous = first;
    EXPECT_STATUS(ctx, clfold_scan_buffer_async(ctx, out_a, 0, N, CLFOLD_INT64, CLFOLD_SUM,
                                                CLFOLD_INCLUSIVE, out_c, 0, 1, &chained, &chained),
                  CLFOLD_SUCCESS);
    EXPECT(chained != NULL && chained != previous, "the chained scan's event is not a new one");
    cl_event all[] = {previous, second, chained};
    EXPECT(clWaitForEvents(3, all) == CL_SUCCESS, "waiting for the scans in flight failed");
    read_buffer(out_a, 0, N * 8, bytes);
    EXPECT(memcmp(bytes, sums, N * 8) == 0, "the gated int32 sum scan is wrong");
    read_buffer(out_b, 0, N * 4, bytes);
    EXPECT(memcmp(bytes, maxes, N * 4) == 0, "the float max scan in flight is wrong");
    read_buffer(out_c, 0, N * 8, bytes);
    EXPECT(memcmp(bytes, twice, N * 8) == 0, "the chained scan of a scan is wrong");
    for (size_t e = 0; e < 3; e++)
        if (all[e] != NULL)
            clReleaseEvent(all[e]);
    clReleaseEvent(gate);
    clReleaseCommandQueue(other);
    cl_mem buffers[] = {a, b, out_a, out_b, out_c};
    for (size_t i = 0; i < 5; i++)
        clReleaseMemObject(buffers[i]);
    free(bytes);
    free(ints);
    free(floats);
    free(sums);
    free(twice);
    free(maxes);
}

/* Kernel names, their round trip, block sizes, run records. */
static void check_names_and_blocks(void)
{
    static const char *const names[] = {"auto", "kogge-stone", "blelloch", "blelloch-padded"};
    for (size_t k = 0; k < N_KERNELS; k++) {
        const char *name = clfold_scan_kernel_name(ALL_KERNELS[k]);
        clfold_scan_kernel back = (clfold_scan_kernel)99;
        EXPECT(name != NULL && strcmp(name, names[k]) == 0, "scan kernel %zu is named %s", k,
               name ? name : "(null)");
        EXPECT_STATUS(ctx, clfold_scan_kernel_from_name(names[k], &back), CLFOLD_SUCCESS);
        EXPECT(back == ALL_KERNELS[k], "%s comes back as %d", names[k], (int)back);
    }
    clfold_scan_kernel kernel = CLFOLD_SCAN_AUTO;
    EXPECT_STATUS(ctx, clfold_scan_kernel_from_name("Kogge-Stone", &kernel), CLFOLD_SUCCESS);
    EXPECT(kernel == CLFOLD_SCAN_KOGGE_STONE, "Kogge-Stone is %d", (int)kernel);
    EXPECT_STATUS(ctx, clfold_scan_kernel_from_name("BLELLOCH-PADDED", &kernel), CLFOLD_SUCCESS);
    EXPECT(kernel == CLFOLD_SCAN_BLELLOCH_PADDED, "BLELLOCH-PADDED is %d", (int)kernel);
    EXPECT_STATUS(ctx, clfold_scan_kernel_from_name("k3", &kernel), CLFOLD_ERROR_INVALID_KERNEL);
    EXPECT_STATUS(ctx, clfold_scan_kernel_from_name("blelloch-", &kernel), CLFOLD_ERROR_INVALID_KERNEL);
    EXPECT(clfold_scan_kernel_name((clfold_scan_kernel)4) == NULL, "a scan kernel past the last has a name");
    EXPECT_STATUS(ctx, clfold_set_scan_kernel(ctx, (clfold_scan_kernel)4, 0), CLFOLD_ERROR_INVALID_KERNEL);
    EXPECT_STATUS(ctx, clfold_set_scan_kernel(ctx, (clfold_scan_kernel)-1, 0), CLFOLD_ERROR_INVALID_KERNEL);
    EXPECT_STATUS(ctx, clfold_set_scan_kernel(ctx, CLFOLD_SCAN_BLELLOCH, 48), CLFOLD_ERROR_INVALID_BLOCK_SIZE);
    EXPECT_STATUS(ctx, clfold_set_scan_kernel(ctx, CLFOLD_SCAN_KOGGE_STONE, (size_t)1 << 40),
                  CLFOLD_ERROR_INVALID_BLOCK_SIZE);
    EXPECT(clfold_set_scan_kernel(NULL, CLFOLD_SCAN_AUTO, 0) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "set_scan_kernel: a NULL context is not refused");
    /* A refused setting keeps the last one; then each kernel's run record. */
    int32_t data[300], got[300];
    for (int i = 0; i < 300; i++)
        data[i] = i % 17;
    for (size_t k = 0; k < N_KERNELS; k++) {
        set_scan_kernel(ALL_KERNELS[k], 64);
        EXPECT_STATUS(ctx, clfold_set_scan_kernel(ctx, ALL_KERNELS[k], 3),
                      CLFOLD_ERROR_INVALID_BLOCK_SIZE);
        EXPECT_STATUS(ctx, clfold_scan_host(ctx, data, 300, CLFOLD_INT32, CLFOLD_MAX,
                                            CLFOLD_INCLUSIVE, got),
                      CLFOLD_SUCCESS);
        check_last_run(ALL_KERNELS[k], 64, NULL);
    }
    set_scan_kernel(CLFOLD_SCAN_AUTO, 0);
}

/*
 * Local memory decides the tiles: the GPU tiles and the ladder shrink theirs
 * to fit a small one and still scan right; tiles forced by CLFOLD_SCAN_GPU
 * that cannot fit are refused, with a message, not launched.
 */
static void check_local_memory_limits(void)
{
    int32_t data[5000];
    int64_t got[5000], want = 0;
    for (int i = 0; i < 5000; i++)
        data[i] = i % 23 - 11;
    setenv("CLFOLD_AUTO_SHAPE", "gpu", 1);
    setenv("CLFOLD_LOCAL_MEM_BYTES", "2048", 1);
    clfold_context *small = test_context();
    /* Three launches stage their tiles; NVIDIA's one launch holds them in registers and runs. */
    setenv("CLFOLD_SCAN_GPU", "256:8", 1);
    setenv("CLFOLD_SCAN_LOOKBACK", "0", 1);
    clfold_context *forced = test_context();
    unsetenv("CLFOLD_SCAN_LOOKBACK");
    unsetenv("CLFOLD_SCAN_GPU");
    unsetenv("CLFOLD_LOCAL_MEM_BYTES");
    unsetenv("CLFOLD_AUTO_SHAPE");
    EXPECT(small != NULL && forced != NULL, "no context with 2 KiB of local memory");
    for (size_t k = 0; small != NULL && k < N_KERNELS; k++) {
        EXPECT_STATUS(small, clfold_set_scan_kernel(small, ALL_KERNELS[k], 0), CLFOLD_SUCCESS);
        EXPECT_STATUS(small, clfold_scan_host(small, data, 5000, CLFOLD_INT32, CLFOLD_SUM,
                                              CLFOLD_INCLUSIVE, got),
                      CLFOLD_SUCCESS);
        want = 0;
        for (int i = 0; i < 5000; i++) {
            want += data[i];
            if (got[i] != want) {
                EXPECT(false, "%s in 2 KiB of local memory: output %d is %lld, not %lld",
                       clfold_scan_kernel_name(ALL_KERNELS[k]), i, (long long)got[i],
                       (long long)want);
                break;
            }
        }
    }
    if (forced != NULL) {
        EXPECT_STATUS(forced, clfold_scan_host(forced, data, 5000, CLFOLD_INT32, CLFOLD_SUM,
                                               CLFOLD_INCLUSIVE, got),
                      CLFOLD_ERROR_INVALID_BLOCK_SIZE);
        EXPECT(strstr(clfold_last_error(forced), "local memory") != NULL,
               "forced tiles too large: \"%s\"", clfold_last_error(forced));
    }
    clfold_destroy(small);
    clfold_destroy(forced);
}

static void run_misuse(void)
{
    test_rng rng = {UINT64_C(0x6d6973)};
    int32_t ints[16];
    unsigned char guard[64];
    for (int i = 0; i < 16; i++)
        ints[i] = i - 5;
    memset(guard, GUARD, sizeof guard);
    cl_mem input = buffer_of(CL_MEM_READ_WRITE, sizeof ints, ints);
    cl_mem output = guarded_buffer(sizeof guard);
    check_refusals(input, output, sizeof guard);
    check_async_refusals(input, output);
    check_host_refusals();
    check_exact_accuracy();
    check_empty(input, output, sizeof guard);
    int32_t after[16];
    read_buffer(input, 0, sizeof after, after);
    EXPECT(memcmp(after, ints, sizeof ints) == 0, "the input buffer changed");
    check_in_place(&rng);
    check_same_buffer_disjoint();
    check_sub_buffers();
    check_flight();
    check_names_and_blocks();
    check_local_memory_limits();
    clReleaseMemObject(input);
    clReleaseMemObject(output);
}

/* ---- --chunks -------------------------------------------------------------------------- */

/*
 * Host scans in chunks of `chunk_bytes`: the bits of one chunk (integers,
 * min, max) and the reference; float sums and products within the bound
 * plus a rounding per chunk boundary (the carry from the last chunk). The
 * chunk is taken to hold chunk_bytes of the elements or of the results,
 * whichever is less, for the boundary count.
 */
static void check_chunked(clfold_context *chunked, size_t chunk_bytes, test_rng *rng)
{
    static const clfold_type types[] = {CLFOLD_INT8,  CLFOLD_UINT16, CLFOLD_INT32, CLFOLD_UINT64,
                                        CLFOLD_HALF,  CLFOLD_FLOAT,  CLFOLD_DOUBLE};
    size_t max_n = 3 * 8192 + 7;
    unsigned char *data = malloc(max_n * 8), *whole = malloc((max_n + TAIL) * 8);
    unsigned char *got = malloc((max_n + TAIL) * 8);
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        clfold_type type = types[t];
        for (clfold_op op = CLFOLD_SUM; op <= CLFOLD_XOR && type_wanted(type); op++) {
            clfold_type result;
            if (clfold_result_type(type, op, &result) != CLFOLD_SUCCESS)
                continue;
            size_t per_chunk = chunk_bytes / clfold_type_size(result);
            size_t lengths[] = {per_chunk - 1, per_chunk, per_chunk + 1, 3 * per_chunk,
                                max_n / (clfold_type_size(type) > 2 ? 4 : 1)};
            enum data_kind kind = type_is_float(type) && op == CLFOLD_PROD ? DATA_NEAR_ONE
                                                                         : DATA_RANDOM;
            for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
                size_t n = lengths[l];
                fill(data, n, type, op, kind, rng);
                for (int m = 0; m < 2; m++) {
                    struct scan s = {CLFOLD_SCAN_AUTO, 0, type, op, MODES[m],
                                     CLFOLD_ACCURACY_DEFAULT, false, "host chunks",
                                     per_chunk > 0 ? per_chunk : 1};
                    clfold_status status = scan_through_host(chunked, &s, data, n, got);
                    check_scan(&s, chunked, status, data, n, got);
                    bool exact = !type_is_float(result) || op == CLFOLD_MIN || op == CLFOLD_MAX;
                    if (status == CLFOLD_SUCCESS && exact) {
                        s.how = "host, one chunk";
                        check_scan(&s, ctx, scan_through_host(ctx, &s, data, n, whole), data, n,
                                   whole);
                        EXPECT(memcmp(got, whole, n * clfold_type_size(result)) == 0,
                               "chunks of %zu bytes: %s %s %s n=%zu: not the bits of one chunk",
                               chunk_bytes, clfold_type_name(type), clfold_op_name(op),
                               mode_name(MODES[m]), n);
                    }
                    if (clfold_type_size(result) != clfold_type_size(type))
                        continue;
                    s.how = "host chunks in place";
                    memcpy(got, data, n * clfold_type_size(type));
                    check_scan(&s, chunked,
                               clfold_scan_host(chunked, got, n, type, op, s.mode, got), data, n,
                               got);
                }
            }
        }
    }
    free(data);
    free(whole);
    free(got);
}

/*
 * Chunks of many tiles, each ending in a short tile: 64 tiles and 1 element
 * of int64 results, 128 tiles and 2 elements of floats, in NVIDIA's one
 * launch (512 x 32). There the last tile of a chunk may finish first, and
 * its total must not reach a tile that has still to read the chunk's seed.
 */
static void check_chunks_of_tiles(test_rng *rng)
{
    static const clfold_type types[] = {CLFOLD_INT32, CLFOLD_FLOAT};
    const size_t chunk_bytes = 8 * (64 * 16384 + 1);
    char chunk_text[32];
    snprintf(chunk_text, sizeof chunk_text, "%zu", chunk_bytes);
    setenv("CLFOLD_MAX_CHUNK_BYTES", chunk_text, 1);
    clfold_context *chunked = test_context();
    unsetenv("CLFOLD_MAX_CHUNK_BYTES");
    EXPECT(chunked != NULL, "no context with chunks of %s bytes", chunk_text);
    size_t max_n = 3 * (chunk_bytes / 4) + 5;
    unsigned char *data = malloc(max_n * 4), *got = malloc((max_n + TAIL) * 8);
    unsigned char *whole = malloc((max_n + TAIL) * 8);
    EXPECT(data != NULL && got != NULL && whole != NULL, "no memory");
    for (size_t t = 0; t < 2 && chunked != NULL && data != NULL && got != NULL && whole != NULL;
         t++) {
        clfold_type result;
        EXPECT_STATUS(ctx, clfold_result_type(types[t], CLFOLD_SUM, &result), CLFOLD_SUCCESS);
        size_t per_chunk = chunk_bytes / clfold_type_size(result), n = 3 * per_chunk + 5;
        fill(data, n, types[t], CLFOLD_SUM, DATA_RANDOM, rng);
        for (int m = 0; m < 2; m++) {
            struct scan s = {CLFOLD_SCAN_AUTO, 0, types[t], CLFOLD_SUM, MODES[m],
                             CLFOLD_ACCURACY_DEFAULT, false, "host chunks of tiles", per_chunk};
            check_scan(&s, chunked, scan_through_host(chunked, &s, data, n, got), data, n, got);
            if (types[t] != CLFOLD_INT32)
                continue;
            s.how = "host, one chunk";
            check_scan(&s, ctx, scan_through_host(ctx, &s, data, n, whole), data, n, whole);
            EXPECT(memcmp(got, whole, n * clfold_type_size(result)) == 0,
                   "chunks of many tiles: int32 sum %s n=%zu: not the bits of one chunk",
                   mode_name(MODES[m]), n);
        }
    }
    free(data);
    free(got);
    free(whole);
    clfold_destroy(chunked);
}

static void run_chunks(void)
{
    static const char *const sizes[] = {"4096", "1000"};
    test_rng rng = {UINT64_C(0x63686b)};
    for (size_t c = 0; c < 2; c++) {
        setenv("CLFOLD_MAX_CHUNK_BYTES", sizes[c], 1);
        clfold_context *chunked = test_context();
        unsetenv("CLFOLD_MAX_CHUNK_BYTES");
        EXPECT(chunked != NULL, "no context with chunks of %s bytes", sizes[c]);
        if (chunked == NULL)
            continue;
        check_chunked(chunked, (size_t)atol(sizes[c]), &rng);
        clfold_destroy(chunked);
    }
    check_chunks_of_tiles(&rng);
}

/* ---- --big ----------------------------------------------------------------------------- */

/* Byte values 1..254 with one 255 past element 2^32: every xor output depends on its element. */
static uint8_t pattern(size_t i, size_t n)
{
    return i == n - 500 ? 255 : (uint8_t)(1 + ((i * 2654435761u) >> 13) % 254);
}

/* MemAvailable from /proc/meminfo in bytes; SIZE_MAX where it cannot be read. */
static size_t memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    size_t kib = SIZE_MAX / 1024;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %zu kB", &kib) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kib * 1024;
}

/* Scans data in place by op, then every output against a running value. */
static void check_big(uint8_t *data, size_t n, clfold_op op)
{
    for (size_t i = 0; i < n; i++)
        data[i] = pattern(i, n);
    EXPECT_STATUS(ctx, clfold_scan_host(ctx, data, n, CLFOLD_UINT8, op, CLFOLD_INCLUSIVE, data),
                  CLFOLD_SUCCESS);
    uint8_t running = 0;
    size_t wrong = 0, first_wrong = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t x = pattern(i, n);
        running = op == CLFOLD_XOR ? (uint8_t)(running ^ x) : x > running ? x : running;
        if (data[i] != running && wrong++ == 0)
            first_wrong = i;
    }
    EXPECT(wrong == 0, "big %s: %zu outputs wrong, the first at %zu", clfold_op_name(op), wrong,
           first_wrong);
    EXPECT(data[n - 1] == running, "big %s: last output %u, want %u", clfold_op_name(op),
           data[n - 1], running);
}

static int run_big(void)
{
    const size_t n = ((size_t)1 << 32) + 1000;
    /* The array, and on a CPU device the library's chunk buffers in the same memory. */
    if (memory_available() < n + ((size_t)3 << 30)) {
        printf("test_scan --big: less than %zu bytes of memory available: skipped\n", n);
        return TEST_SKIP;
    }
    uint8_t *data = malloc(n);
    if (data == NULL) {
        printf("test_scan --big: no memory for %zu bytes: skipped\n", n);
        return TEST_SKIP;
    }
    check_big(data, n, CLFOLD_XOR);
    check_big(data, n, CLFOLD_MAX);
    free(data);
    return 0;
}

/* ---- --small: for Oclgrind ------------------------------------------------------------- */

/*
 * Oclgrind 21.10's --uninitialized takes a CL_MEM_USE_HOST_PTR buffer and a
 * scratch buffer that replaced a released one as uninitialised
 * (tests/oclgrind_driver.c): buffers only, and the scans that need the most
 * scratch first (int64 results, the longest, the smallest block). The
 * ladder's kernels run at blocks 4 (600 elements take four levels), 32 and
 * 128; auto at its own, on 9000 elements too, where the GPU shape's runs
 * fill more than one tile.
 */
static void run_small(void)
{
    static const struct {
        clfold_type type;
        clfold_op op;
        clfold_accuracy accuracy;
    } cases[] = {{CLFOLD_INT8, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
                 {CLFOLD_DOUBLE, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
                 {CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_COMPENSATED},
                 {CLFOLD_FLOAT, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
                 {CLFOLD_HALF, CLFOLD_SUM, CLFOLD_ACCURACY_DEFAULT},
                 {CLFOLD_INT32, CLFOLD_MAX, CLFOLD_ACCURACY_DEFAULT}};
    static const size_t lengths[] = {9000, 600, 129, 64, 33, 3, 1};
    static const size_t ladder_blocks[] = {4, 32, 128}, auto_blocks[] = {0};
    test_rng rng = {UINT64_C(0x736d)};
    unsigned char *data = malloc(9000 * 8), *got = malloc((9000 + TAIL) * 8);
    for (size_t k = 0; k < n_kernels && data != NULL && got != NULL; k++) {
        bool is_auto = kernels[k] == CLFOLD_SCAN_AUTO;
        const size_t *blocks = is_auto ? auto_blocks : ladder_blocks;
        for (size_t b = 0; b < (is_auto ? 1 : 3); b++) {
            set_scan_kernel(kernels[k], blocks[b]);
            for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
                if (!type_wanted(cases[c].type))
                    continue;
                set_accuracy(cases[c].accuracy);
                fill(data, 9000, cases[c].type, cases[c].op, DATA_RANDOM, &rng);
                for (size_t l = is_auto ? 0 : 1; l < sizeof lengths / sizeof *lengths; l++)
                    for (int m = 0; m < 2; m++) {
                        struct scan s = {kernels[k], blocks[b], cases[c].type, cases[c].op,
                                         MODES[m], cases[c].accuracy, false, "buffer", 0};
                        check_scan(&s, ctx, scan_through_buffers(&s, data, lengths[l], l % 2,
                                                                 (size_t)m, false, got),
                                   data, lengths[l], got);
                    }
            }
        }
    }
    set_accuracy(CLFOLD_ACCURACY_DEFAULT);
    free(data);
    free(got);
}

/* ---- main ------------------------------------------------------------------------------ */

static bool take_scan_kernel_arg(int argc, char **argv, int *i, clfold_scan_kernel *chosen,
                                 size_t *n_chosen)
{
    const char *name = argv[*i];
    if (strcmp(name, "--kernel") == 0 && *i + 1 < argc)
        name = argv[++*i];
    if (*n_chosen == N_KERNELS ||
        clfold_scan_kernel_from_name(name, &chosen[*n_chosen]) != CLFOLD_SUCCESS)
        return false;
    ++*n_chosen;
    return true;
}

int main(int argc, char **argv)
{
    static const char *const MODE_FLAGS[] = {"--lengths", "--matrix", "--special", "--misuse",
                                             "--chunks",  "--big",    "--small"};
    static void (*const RUN[])(void) = {run_lengths, run_matrix, run_special, run_misuse,
                                        run_chunks,  NULL,       run_small};
    enum { N_MODES = sizeof MODE_FLAGS / sizeof *MODE_FLAGS, BIG = 5 };
    bool chosen_modes[N_MODES] = {true, true, true, true, true, false, false}, any_mode = false;
    clfold_scan_kernel chosen[N_KERNELS];
    size_t n_chosen = 0;
    for (int i = 1; i < argc; i++) {
        size_t m = 0;
        while (m < N_MODES && strcmp(argv[i], MODE_FLAGS[m]) != 0)
            m++;
        if (m < N_MODES) {
            if (!any_mode)
                memset(chosen_modes, 0, sizeof chosen_modes);
            chosen_modes[m] = any_mode = true;
        } else if (!take_scan_kernel_arg(argc, argv, &i, chosen, &n_chosen)) {
            fprintf(stderr, "usage: %s [--lengths | --matrix | --special | --misuse | --chunks | "
                            "--big | --small]... [--kernel NAME | NAME]...\n",
                    argv[0]);
            return 2;
        }
    }
    if (n_chosen > 0) {
        kernels = chosen;
        n_kernels = n_chosen;
    }
    if ((ctx = test_context()) == NULL)
        return 1;
    cl = clfold_cl_context(ctx);
    queue = clfold_queue(ctx);
    fp64 = test_device_has_fp64(clfold_device(ctx));
    if (!fp64)
        printf("test_scan: no cl_khr_fp64: double left out\n");
    int big = 0;
    for (size_t m = 0; m < N_MODES; m++) {
        if (!chosen_modes[m])
            continue;
        unsigned long before = CHECKS_SO_FAR();
        if (m == BIG)
            big = run_big();
        else
            RUN[m]();
        if (big != TEST_SKIP)
            EXPECT_CHECKED(before, MODE_FLAGS[m]);
    }
    clfold_destroy(ctx);
    if (big == TEST_SKIP && *test_failure_counter() == 0)
        return TEST_SKIP;
    return test_finish("test_scan");
}
