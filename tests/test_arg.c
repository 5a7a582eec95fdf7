/*
 * test_arg.c: argmin and argmax (CLFOLD_ARGMIN, CLFOLD_ARGMAX) through the
 * public API, against NumPy's rules: the index of the first least or
 * greatest element, -0 equal to +0, the first NaN winning for both. Every
 * result is an int64 compared exactly, with the host reference
 * (reference_reduce) or with an index written in the test. One mode per
 * CTest entry:
 *
 *   --whole     every type, both operators, on the sizes {1, 2, 3, 31, 33,
 *               63, 65, 127, 129, 1000, 4097, 100003}, 2^20 + 3 and (int32
 *               and float) 2^22 + 1 (the last two on the fast kernels: all
 *               but K1 and K2; in host chunks only to 2^20 + 3), at element
 *               offsets 0, 1, 3 and 7 of a buffer whose elements outside
 *               the range would win if read (a NaN, or the type's extreme):
 *               clfold_reduce_buffer, clfold_reduce_buffer_async with the
 *               result at an odd byte of a guarded buffer,
 *               clfold_reduce_host, and clfold_reduce_host in 4 KiB chunks
 *               (CLFOLD_MAX_CHUNK_BYTES) from 1000 elements. Data: random;
 *               an extreme planted at a random place and again later (the
 *               first must win), near the data or the type's own extreme;
 *               the extreme first (and again last), or last alone; every
 *               element equal; floats with NaN of either sign planted after
 *               both infinities. The atomic kernel refuses every one with
 *               CLFOLD_ERROR_UNSUPPORTED and a message.
 *   --special   hand-written arrays with their indices written out: signed
 *               zeros, NaN of every kind (quiet, signalling, sign bit set),
 *               infinities, subnormals against zero and the least normal,
 *               halves, floats and doubles built from their bits; integer
 *               extremes and the sign bit of every width. Each also
 *               repeated to 33 .. 100003 elements from a random phase and
 *               after a background, against the reference; on every kernel
 *               at block 64 (K3 and K6 at 1 too), in host chunks, and at
 *               every accuracy (which must not apply).
 *   --axis-shapes, --axis-types
 *               clfold_reduce_axis and _async on 1 x n, n x 1, tall, wide,
 *               square shapes, rows cut into pieces (4 x 70000) and columns
 *               into slices (70000 x 4), with a row pitch and an offset,
 *               both axes, the index along the axis, every element outside
 *               the view one that would win (3 x 1001 with a pitch of
 *               1008: a last block of columns narrower than the GPU
 *               shape's vector); every shape on int8, half,
 *               float and uint64, the other types on three shapes (POCL
 *               builds a GPU-shape program for each shape and type). An
 *               empty reduced axis with results is refused, one without
 *               results succeeds.
 *   --segments  clfold_reduce_segments and _async: empty segments give -1,
 *               one element 0, one huge segment, power-law mixes, offsets
 *               past 0, indices from each segment's start; the
 *               non-blocking form's clamped offsets.
 *   --misuse    no elements (buffer, host, non-blocking) refused with a
 *               message and nothing written; result types; names.
 *   --small     a few small whole arrays, shapes and segments, for Oclgrind.
 *
 * Usage: test_arg [--whole | --special | --axis-shapes | --axis-types |
 * --segments | --misuse | --small]... [--kernel NAME | NAME]...
 * (default: every mode but --small; --whole and --special loop over the
 * kernels named, else all nine).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "util.h"

#define GUARD 0xa5
#define TAIL 19 /* guard elements after a range */
#define BIG_SIZE (((size_t)1 << 20) + 3)
#define HUGE_SIZE (((size_t)1 << 22) + 1) /* int32 and float only */
/* --whole's host copy: 16 MiB, more than BIG_SIZE elements of 8 bytes need. */
#define HOST_BYTES ((8 + HUGE_SIZE + TAIL) * 4)

static const size_t SIZES[] = {1,   2,    3,    31,     33,       63,       65,
                               127, 129,  1000, 4097,   100003,   BIG_SIZE, HUGE_SIZE};
#define N_SIZES (sizeof SIZES / sizeof SIZES[0])
static const size_t OFFSETS[] = {0, 1, 3, 7};

static const clfold_type TYPES[] = {CLFOLD_INT8,  CLFOLD_UINT8,  CLFOLD_INT16, CLFOLD_UINT16,
                                    CLFOLD_INT32, CLFOLD_UINT32, CLFOLD_INT64, CLFOLD_UINT64,
                                    CLFOLD_HALF,  CLFOLD_FLOAT,  CLFOLD_DOUBLE};
#define N_TYPES (sizeof TYPES / sizeof TYPES[0])
static const clfold_op OPS[] = {CLFOLD_ARGMIN, CLFOLD_ARGMAX};

static const clfold_kernel ALL_KERNELS[] = {CLFOLD_AUTO, CLFOLD_K1, CLFOLD_K2,
                                            CLFOLD_K3,   CLFOLD_K4, CLFOLD_K5,
                                            CLFOLD_K6,   CLFOLD_K7, CLFOLD_ATOMIC};
#define N_KERNELS (sizeof ALL_KERNELS / sizeof ALL_KERNELS[0])

static clfold_context *ctx;     /* the run's context */
static clfold_context *chunked; /* the same device, host arrays in 4 KiB chunks */
static cl_context cl;
static cl_command_queue queue;
static bool fp64;
static const clfold_kernel *kernels = ALL_KERNELS; /* --whole and --special */
static size_t n_kernels = N_KERNELS;

/* ---- elements by their bits ------------------------------------------------ */

static bool type_is_unsigned(clfold_type type)
{
    return type == CLFOLD_UINT8 || type == CLFOLD_UINT16 || type == CLFOLD_UINT32 ||
           type == CLFOLD_UINT64;
}

static bool type_wanted(clfold_type type) { return type != CLFOLD_DOUBLE || fp64; }

/* Element i of `type` made of the low bytes of `bits`. */
static void store_bits(void *data, size_t i, clfold_type type, uint64_t bits)
{
    size_t size = clfold_type_size(type);
    unsigned char *p = (unsigned char *)data + i * size;
    uint8_t b8 = (uint8_t)bits;
    uint16_t b16 = (uint16_t)bits;
    uint32_t b32 = (uint32_t)bits;
    if (size == 1)
        memcpy(p, &b8, 1);
    else if (size == 2)
        memcpy(p, &b16, 2);
    else if (size == 4)
        memcpy(p, &b32, 4);
    else
        memcpy(p, &bits, 8);
}

static uint64_t load_bits(const void *data, size_t i, clfold_type type)
{
    size_t size = clfold_type_size(type);
    const unsigned char *p = (const unsigned char *)data + i * size;
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    if (size == 1)
        return memcpy(&b8, p, 1), b8;
    if (size == 2)
        return memcpy(&b16, p, 2), b16;
    if (size == 4)
        return memcpy(&b32, p, 4), b32;
    return memcpy(&b64, p, 8), b64;
}

/* The sign bit of `type`'s width. */
static uint64_t sign_bit(clfold_type type)
{
    return UINT64_C(1) << (8 * clfold_type_size(type) - 1);
}

/* The bits of what `op` must find before any other number: an infinity, or the type's end. */
static uint64_t extreme_bits(clfold_type type, clfold_op op)
{
    bool least = op == CLFOLD_ARGMIN;
    uint64_t sign = sign_bit(type), ones = sign | (sign - 1);
    switch (type) {
    case CLFOLD_HALF: return least ? 0xfc00 : 0x7c00;
    case CLFOLD_FLOAT: return least ? 0xff800000u : 0x7f800000u;
    case CLFOLD_DOUBLE: return least ? UINT64_C(0xfff0000000000000) : UINT64_C(0x7ff0000000000000);
    default: break;
    }
    if (type_is_unsigned(type))
        return least ? 0 : ones;
    return least ? sign : sign - 1;
}

/* The other end: what op finds last (the greatest for argmin). */
static uint64_t opposite_bits(clfold_type type, clfold_op op)
{
    return extreme_bits(type, op == CLFOLD_ARGMIN ? CLFOLD_ARGMAX : CLFOLD_ARGMIN);
}

/* A NaN of `type`: quiet or signalling, either sign, chosen by `which` (0..5). */
static uint64_t nan_bits(clfold_type type, unsigned which)
{
    static const uint64_t half[] = {0x7e00, 0xfe00, 0x7c01, 0xfc01, 0x7fff, 0xffff};
    static const uint64_t single[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u,
                                      0xff800001u, 0x7fffffffu, 0xffffffffu};
    static const uint64_t wide[] = {UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000000),
                                    UINT64_C(0x7ff0000000000001), UINT64_C(0xfff0000000000001),
                                    UINT64_C(0x7fffffffffffffff), UINT64_C(0xffffffffffffffff)};
    which %= 6;
    return type == CLFOLD_HALF ? half[which] : type == CLFOLD_FLOAT ? single[which] : wide[which];
}

/*
 * What lies outside a range: an element that wins if a kernel reads it.
 * A NaN beats every number; an integer type's extreme beats every other
 * value, and ties with it from before the range (a negative index).
 */
static uint64_t guard_bits(clfold_type type, clfold_op op, test_rng *rng)
{
    return type_is_float(type) ? nan_bits(type, (unsigned)rng_below(rng, 6))
                               : extreme_bits(type, op);
}

/* ---- checking ------------------------------------------------------------------ */

/* Element i in words, for messages: its bits and value, or that it lies outside. */
static void describe(char *text, size_t cap, const void *data, size_t n, int64_t i,
                     clfold_type type)
{
    if (i < 0 || (uint64_t)i >= n)
        snprintf(text, cap, "(no element)");
    else
        snprintf(text, cap, "0x%llx = %Lg", (unsigned long long)load_bits(data, (size_t)i, type),
                 reference_element(data, (size_t)i, type));
}

/*
 * One result: the call must succeed with index `want` of the n elements
 * `data`. `what` names the data, `how` the call.
 */
static void check_index(const char *what, const char *how, clfold_context *on,
                        clfold_status status, int64_t got, int64_t want, const void *data,
                        size_t n, clfold_type type, clfold_op op)
{
    bool ok = status == CLFOLD_SUCCESS && got == want;
    EXPECT(ok, "%s %s %s: %s", clfold_op_name(op), clfold_type_name(type), what, how);
    if (ok)
        return;
    char got_text[80], want_text[80];
    describe(got_text, sizeof got_text, data, n, got, type);
    describe(want_text, sizeof want_text, data, n, want, type);
    if (status != CLFOLD_SUCCESS)
        fprintf(stderr, "  status %s: %s\n", clfold_status_string(status), clfold_last_error(on));
    else
        fprintf(stderr, "  got %lld [%s], want %lld [%s] of %zu elements\n", (long long)got,
                got_text, (long long)want, want_text, n);
}

/* The reference's index of data[0..n). */
static int64_t reference_index(const void *data, size_t n, clfold_type type, clfold_op op)
{
    reference_value want;
    clfold_status status = reference_reduce(data, n, type, op, &want, NULL);
    EXPECT(status == CLFOLD_SUCCESS, "reference_reduce: %s", clfold_status_string(status));
    return want.i64;
}

static cl_mem buffer_of(size_t bytes, const void *data)
{
    cl_int err;
    unsigned char one = 0;
    cl_mem buffer = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   bytes > 0 ? bytes : 1, bytes > 0 ? (void *)data : &one, &err);
    EXPECT(err == CL_SUCCESS, "clCreateBuffer of %zu bytes: %d", bytes, err);
    return buffer;
}

/* `bytes` guard bytes into `buffer`. */
static void guard_buffer(cl_mem buffer, size_t bytes)
{
    unsigned char *guard = malloc(bytes);
    memset(guard, GUARD, bytes);
    cl_int err = clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, bytes, guard, 0, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "clEnqueueWriteBuffer: %d", err);
    free(guard);
}

/* Reads `bytes` of `buffer` after `event` (released here, may be NULL). */
static void read_after(cl_mem buffer, size_t bytes, void *host, cl_event event)
{
    cl_int err = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, host, event ? 1 : 0,
                                     event ? &event : NULL, NULL);
    EXPECT(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", err);
    if (event != NULL)
        clReleaseEvent(event);
}

/* Every byte of bytes[from .. to) is still the guard. */
static bool guards_intact(const unsigned char *bytes, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (bytes[i] != GUARD)
            return false;
    return true;
}

/* ---- --whole: whole arrays ------------------------------------------------------- */

enum kind {
    KIND_RANDOM,        /* random bits, or random floats in [-1, 1) */
    KIND_PLANTED,       /* small values; one just beyond them at a random place, and later */
    KIND_TYPE_EXTREME,  /* the same with the type's extreme (or an infinity) */
    KIND_FIRST,         /* the extreme at 0, in the middle and last */
    KIND_LAST,          /* the extreme last, alone */
    KIND_EQUAL,         /* every element the same */
    KIND_NAN,           /* floats: both infinities, then NaN at a random place, and later */
    N_KINDS
};
static const char *const KIND_NAMES[] = {"random",  "planted", "type extreme", "extreme first",
                                         "extreme last", "all equal", "NaN"};

/* A small value: -50..50 (unsigned 1..100), floats in eighths. */
static void store_small(void *data, size_t i, clfold_type type, int64_t v)
{
    store_element(data, i, type, v, (double)v / 8.0);
}

static void fill_background(void *data, size_t n, clfold_type type, test_rng *rng)
{
    for (size_t i = 0; i < n; i++)
        store_small(data, i, type,
                    type_is_unsigned(type) ? 1 + (int64_t)rng_below(rng, 100)
                                           : (int64_t)rng_below(rng, 101) - 50);
}

/* Just beyond the background: what op must find. */
static void store_near_extreme(void *data, size_t i, clfold_type type, clfold_op op)
{
    if (op == CLFOLD_ARGMIN)
        store_small(data, i, type, type_is_unsigned(type) ? 0 : -51);
    else
        store_small(data, i, type, type_is_unsigned(type) ? 101 : 51);
}

/* A random place in [from, n), n > from. */
static size_t place(test_rng *rng, size_t from, size_t n)
{
    return from + (size_t)rng_below(rng, n - from);
}

/* Puts `bits` at a random place and at one or two later ones. */
static void plant_twice(void *data, size_t n, clfold_type type, uint64_t bits, test_rng *rng)
{
    size_t first = place(rng, 0, n);
    store_bits(data, first, type, bits);
    for (int k = 0; k < 2 && first + 1 < n; k++)
        store_bits(data, first = place(rng, first + 1, n), type, bits);
}

/* The bits of a value from a data set made by store_small or store_near_extreme. */
static uint64_t near_extreme_bits(clfold_type type, clfold_op op)
{
    unsigned char one[8];
    store_near_extreme(one, 0, type, op);
    return load_bits(one, 0, type);
}

static void fill_kind(void *data, size_t n, clfold_type type, clfold_op op, enum kind kind,
                      test_rng *rng)
{
    uint64_t near = near_extreme_bits(type, op), extreme = extreme_bits(type, op);
    if (kind == KIND_RANDOM || kind == KIND_NAN) {
        if (type_is_float(type))
            fill_unit(data, n, type, rng);
        else
            fill_integers(data, n, type, CLFOLD_SUM, rng);
    } else {
        fill_background(data, n, type, rng);
    }
    switch (kind) {
    case KIND_PLANTED: plant_twice(data, n, type, near, rng); break;
    case KIND_TYPE_EXTREME:
        store_bits(data, place(rng, 0, n), type, near); /* a runner-up, anywhere */
        plant_twice(data, n, type, extreme, rng);
        break;
    case KIND_FIRST:
        store_bits(data, n - 1, type, near);
        store_bits(data, n / 2, type, near);
        store_bits(data, 0, type, near);
        break;
    case KIND_LAST: store_bits(data, n - 1, type, near); break;
    case KIND_EQUAL: {
        /* The same value everywhere: a small one, either end of the type, or a zero. */
        uint64_t values[] = {near, extreme, opposite_bits(type, op), 0, sign_bit(type)};
        uint64_t bits = values[rng_below(rng, type_is_float(type) ? 5 : 4)];
        for (size_t i = 0; i < n; i++)
            store_bits(data, i, type, bits);
        break;
    }
    case KIND_NAN:
        store_bits(data, place(rng, 0, n), type, extreme_bits(type, CLFOLD_ARGMIN));
        store_bits(data, place(rng, 0, n), type, extreme_bits(type, CLFOLD_ARGMAX));
        plant_twice(data, n, type, nan_bits(type, (unsigned)rng_below(rng, 6)), rng);
        break;
    default: break;
    }
}

/* A non-blocking reduction's result, written at an odd byte of a guarded buffer. */
static clfold_status reduce_async(cl_mem buffer, size_t offset, size_t n, clfold_type type,
                                  clfold_op op, cl_mem out, int64_t *got)
{
    unsigned char bytes[24];
    size_t at = 1 + 2 * (n % 4) + 2 * (offset % 2); /* 1, 3, .., 9 */
    cl_event event = (cl_event)&bytes; /* must be overwritten */
    guard_buffer(out, sizeof bytes);
    clfold_status status = clfold_reduce_buffer_async(ctx, buffer, offset, n, type, op, out, at,
                                                      0, NULL, &event);
    EXPECT(status == CLFOLD_SUCCESS ? event != NULL : event == NULL,
           "*event after %s", clfold_status_string(status));
    read_after(out, sizeof bytes, bytes, status == CLFOLD_SUCCESS ? event : NULL);
    EXPECT(guards_intact(bytes, 0, at) && guards_intact(bytes, at + 8, sizeof bytes),
           "async %s %s n=%zu: a byte outside the result at %zu changed", clfold_op_name(op),
           clfold_type_name(type), n, at);
    memcpy(got, bytes + at, 8);
    return status;
}

struct whole {
    unsigned char *host; /* guards, the elements from `offset`, guards */
    cl_mem buffer;       /* a copy of host */
    cl_mem out;          /* non-blocking results */
};

/* The atomic baseline refuses each call, with a message, writing nothing. */
static void check_refusals(struct whole *w, size_t offset, size_t n, clfold_type type,
                           clfold_op op)
{
    int64_t got = -7;
    const unsigned char *elements = w->host + offset * clfold_type_size(type);
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_ATOMIC, 64), CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, w->buffer, offset, n, type, op, &got),
                  CLFOLD_ERROR_UNSUPPORTED);
    EXPECT(clfold_last_error(ctx)[0] != '\0' && got == -7, "atomic %s %s: message \"%s\"",
           clfold_op_name(op), clfold_type_name(type), clfold_last_error(ctx));
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, elements, n, type, op, &got),
                  CLFOLD_ERROR_UNSUPPORTED);
    EXPECT(clfold_last_error(ctx)[0] != '\0' && got == -7, "atomic host: \"%s\"",
           clfold_last_error(ctx));
    EXPECT_STATUS(ctx, reduce_async(w->buffer, offset, n, type, op, w->out, &got),
                  CLFOLD_ERROR_UNSUPPORTED);
    EXPECT(clfold_last_error(ctx)[0] != '\0', "atomic async: no message");
    EXPECT(got == (int64_t)UINT64_C(0xa5a5a5a5a5a5a5a5), "atomic async wrote its result");
    EXPECT_STATUS(chunked, clfold_set_kernel(chunked, CLFOLD_ATOMIC, 64), CLFOLD_SUCCESS);
    EXPECT_STATUS(chunked, clfold_reduce_host(chunked, elements, n, type, op, &got),
                  CLFOLD_ERROR_UNSUPPORTED);
    EXPECT(clfold_last_error(chunked)[0] != '\0', "atomic in chunks: no message");
}

/* The block each kernel runs at: 64 (a tree of several levels, many groups), auto its own. */
static size_t block_of(clfold_kernel kernel) { return kernel == CLFOLD_AUTO ? 0 : 64; }

/* K1 and K2 take one element a work-item and log2(block) barriers: slow on POCL. */
static bool kernel_is_slow(clfold_kernel kernel)
{
    return kernel == CLFOLD_K1 || kernel == CLFOLD_K2 || kernel == CLFOLD_ATOMIC;
}

/* One data set through every call on one kernel. */
static void check_whole_kernel(struct whole *w, clfold_kernel kernel, const char *what,
                               size_t offset, size_t n, clfold_type type, clfold_op op,
                               int64_t want)
{
    const unsigned char *elements = w->host + offset * clfold_type_size(type);
    size_t block = block_of(kernel);
    char how[96];
    int64_t got = -7;
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, kernel, block), CLFOLD_SUCCESS);
    snprintf(how, sizeof how, "buffer, kernel %s block %zu, offset %zu", clfold_kernel_name(kernel),
             block, offset);
    clfold_status status = clfold_reduce_buffer(ctx, w->buffer, offset, n, type, op, &got);
    check_index(what, how, ctx, status, got, want, elements, n, type, op);
    snprintf(how, sizeof how, "async, kernel %s block %zu, offset %zu", clfold_kernel_name(kernel),
             block, offset);
    status = reduce_async(w->buffer, offset, n, type, op, w->out, &got);
    check_index(what, how, ctx, status, got, want, elements, n, type, op);
    snprintf(how, sizeof how, "host, kernel %s block %zu", clfold_kernel_name(kernel), block);
    status = clfold_reduce_host(ctx, elements, n, type, op, &got);
    check_index(what, how, ctx, status, got, want, elements, n, type, op);
    if (n < 1000 || n > BIG_SIZE)
        return;
    EXPECT_STATUS(chunked, clfold_set_kernel(chunked, kernel, block), CLFOLD_SUCCESS);
    snprintf(how, sizeof how, "host in 4 KiB chunks, kernel %s block %zu",
             clfold_kernel_name(kernel), block);
    status = clfold_reduce_host(chunked, elements, n, type, op, &got);
    check_index(what, how, chunked, status, got, want, elements, n, type, op);
}

/* Fills w->host around [offset, offset + n) and copies it to the device. */
static void load_case(struct whole *w, size_t offset, size_t n, clfold_type type, clfold_op op,
                      enum kind kind, test_rng *rng)
{
    size_t size = clfold_type_size(type);
    for (size_t i = 0; i < offset; i++)
        store_bits(w->host, i, type, guard_bits(type, op, rng));
    fill_kind(w->host + offset * size, n, type, op, kind, rng);
    for (size_t i = offset + n; i < offset + n + TAIL; i++)
        store_bits(w->host, i, type, guard_bits(type, op, rng));
    cl_int err = clEnqueueWriteBuffer(queue, w->buffer, CL_TRUE, 0, (offset + n + TAIL) * size,
                                      w->host, 0, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "clEnqueueWriteBuffer: %d", err);
}

static void check_whole_type(struct whole *w, clfold_type type, clfold_op op, test_rng *rng)
{
    bool fast = true;
    for (size_t k = 0; k < n_kernels; k++)
        fast = fast && !kernel_is_slow(kernels[k]);
    for (int kind = 0; kind < N_KINDS; kind++) {
        if (kind == KIND_NAN && !type_is_float(type))
            continue;
        for (size_t s = 0; s < N_SIZES; s++) {
            size_t n = SIZES[s], offset = OFFSETS[(s + (size_t)kind) % 4];
            bool big = n >= BIG_SIZE, huge_type = type == CLFOLD_INT32 || type == CLFOLD_FLOAT;
            if (big && (!fast || kind == KIND_RANDOM || kind == KIND_FIRST || kind == KIND_LAST))
                continue;
            if (n == HUGE_SIZE && (!huge_type || kind == KIND_TYPE_EXTREME))
                continue;
            load_case(w, offset, n, type, op, (enum kind)kind, rng);
            const unsigned char *elements = w->host + offset * clfold_type_size(type);
            int64_t want = reference_index(elements, n, type, op);
            for (size_t k = 0; k < n_kernels; k++) {
                if (kernels[k] != CLFOLD_ATOMIC)
                    check_whole_kernel(w, kernels[k], KIND_NAMES[kind], offset, n, type, op,
                                       want);
                else if (kind == KIND_PLANTED && (n == 1 || n == 1000))
                    check_refusals(w, offset, n, type, op);
            }
        }
    }
}

static void run_whole(void)
{
    test_rng rng = {UINT64_C(0x77686f6c65)};
    struct whole w = {.host = calloc(HOST_BYTES, 1)};
    EXPECT(w.host != NULL, "out of host memory");
    if (w.host == NULL)
        return;
    w.buffer = buffer_of(HOST_BYTES, w.host);
    w.out = buffer_of(24, w.host);
    for (size_t t = 0; t < N_TYPES; t++) {
        if (!type_wanted(TYPES[t])) {
            printf("test_arg: no cl_khr_fp64: double skipped\n");
            continue;
        }
        for (size_t o = 0; o < 2; o++)
            check_whole_type(&w, TYPES[t], OPS[o], &rng);
    }
    clReleaseMemObject(w.buffer);
    clReleaseMemObject(w.out);
    free(w.host);
}

/* ---- --special: hand-written arrays ------------------------------------------------ */

/* Float values by name, for every float type: a symbol, NEG for its negative. */
enum fsym { PZ, SUB1, SUBMAX, NORMMIN, ONE, TWO, BIG, INF, QNAN, SNAN, ONES_NAN, NEG = 0x100 };

static uint64_t float_bits(clfold_type type, int sym)
{
    static const uint64_t half[] = {0, 1, 0x03ff, 0x0400, 0x3c00, 0x4000, 0x7bff, 0x7c00, 0x7e00,
                                    0x7c01, 0x7fff};
    static const uint64_t single[] = {0, 1, 0x007fffff, 0x00800000, 0x3f800000, 0x40000000,
                                      0x7f7fffff, 0x7f800000, 0x7fc00000, 0x7f800001, 0x7fffffff};
    static const uint64_t wide[] = {
        0, 1, UINT64_C(0x000fffffffffffff), UINT64_C(0x0010000000000000),
        UINT64_C(0x3ff0000000000000), UINT64_C(0x4000000000000000), UINT64_C(0x7fefffffffffffff),
        UINT64_C(0x7ff0000000000000), UINT64_C(0x7ff8000000000000), UINT64_C(0x7ff0000000000001),
        UINT64_C(0x7fffffffffffffff)};
    int s = sym & 0xff;
    uint64_t bits = type == CLFOLD_HALF ? half[s] : type == CLFOLD_FLOAT ? single[s] : wide[s];
    return sym & NEG ? bits | sign_bit(type) : bits;
}

#define MAX_PATTERN 8

/* A short array and the indices NumPy gives for it. */
struct pattern {
    const char *name;
    size_t length;
    int64_t argmin, argmax;
    int values[MAX_PATTERN]; /* floats: fsym values */
};

static const struct pattern FLOAT_PATTERNS[] = {
    {"+0, -0", 2, 0, 0, {PZ, PZ | NEG}},
    {"-0, +0", 2, 0, 0, {PZ | NEG, PZ}},
    {"1, -0, +0, 2", 4, 1, 3, {ONE, PZ | NEG, PZ, TWO}},
    {"1, +0, -0", 3, 1, 0, {ONE, PZ, PZ | NEG}},
    {"-0, -0, +0, -0", 4, 0, 0, {PZ | NEG, PZ | NEG, PZ, PZ | NEG}},
    {"NaN, 1, -inf", 3, 0, 0, {QNAN, ONE, INF | NEG}},
    {"1, NaN, -NaN, -inf, inf", 5, 1, 1, {ONE, QNAN, QNAN | NEG, INF | NEG, INF}},
    {"1, -NaN, NaN", 3, 1, 1, {ONE, QNAN | NEG, QNAN}},
    {"2, sNaN, NaN", 3, 1, 1, {TWO, SNAN, QNAN}},
    {"-sNaN, NaN", 2, 0, 0, {SNAN | NEG, QNAN}},
    {"2, -inf, inf, 1, all-ones NaN", 5, 4, 4, {TWO, INF | NEG, INF, ONE, ONES_NAN | NEG}},
    {"1, 2, -1, NaN last", 4, 3, 3, {ONE, TWO, ONE | NEG, QNAN}},
    {"-inf, inf, -inf, inf", 4, 0, 1, {INF | NEG, INF, INF | NEG, INF}},
    {"inf, max, -max, -inf", 4, 3, 0, {INF, BIG, BIG | NEG, INF | NEG}},
    {"least normal, least subnormal, +0, greatest subnormal", 4, 2, 0, {NORMMIN, SUB1, PZ, SUBMAX}},
    {"greatest subnormal, least normal, least subnormal", 3, 2, 1, {SUBMAX, NORMMIN, SUB1}},
    {"least subnormal, least normal, greatest subnormal", 3, 0, 1, {SUB1, NORMMIN, SUBMAX}},
    {"-least subnormal, +0, -0, least subnormal", 4, 0, 3, {SUB1 | NEG, PZ, PZ | NEG, SUB1}},
    {"+0, -least subnormal", 2, 1, 0, {PZ, SUB1 | NEG}},
    {"-least normal, -greatest subnormal, -least subnormal, -0", 4, 0, 3,
     {NORMMIN | NEG, SUBMAX | NEG, SUB1 | NEG, PZ | NEG}},
    {"1", 1, 0, 0, {ONE}},
    {"-0", 1, 0, 0, {PZ | NEG}},
    {"NaN, NaN", 2, 0, 0, {QNAN | NEG, SNAN}},
};

/* Integer patterns, written by what their bits mean for the width. */
enum isym { ZERO, IONE, MINUS_ONE, TMIN, TMAX, SIGN, BELOW_SIGN };

static uint64_t int_bits(clfold_type type, int sym)
{
    uint64_t sign = sign_bit(type), ones = sign | (sign - 1);
    bool is_unsigned = type_is_unsigned(type);
    switch (sym) {
    case ZERO: return 0;
    case IONE: return 1;
    case MINUS_ONE: return ones; /* -1, or the greatest unsigned */
    case TMIN: return is_unsigned ? 0 : sign;
    case TMAX: return is_unsigned ? ones : sign - 1;
    case SIGN: return sign;
    default: return sign - 1;
    }
}

/* argmin, argmax given for signed types; unsigned ones in the second pair. */
struct int_pattern {
    const char *name;
    size_t length;
    int64_t argmin, argmax, uargmin, uargmax;
    int values[MAX_PATTERN];
};

static const struct int_pattern INT_PATTERNS[] = {
    {"max, min, -1, 0, 1, min, max", 7, 1, 0, 1, 0,
     {TMAX, TMIN, MINUS_ONE, ZERO, IONE, TMIN, TMAX}},
    {"sign bit, below it", 2, 0, 1, 1, 0, {SIGN, BELOW_SIGN}},
    {"all ones, 0", 2, 0, 1, 1, 0, {MINUS_ONE, ZERO}},
    {"0, 1, all ones, 1", 4, 2, 1, 0, 2, {ZERO, IONE, MINUS_ONE, IONE}},
    {"min, min, min", 3, 0, 0, 0, 0, {TMIN, TMIN, TMIN}},
    {"max, max, max", 3, 0, 0, 0, 0, {TMAX, TMAX, TMAX}},
    {"0, 0", 2, 0, 0, 0, 0, {ZERO, ZERO}},
    {"all ones", 1, 0, 0, 0, 0, {MINUS_ONE}},
    {"1, 0, max, 0, max", 5, 1, 2, 1, 2, {IONE, ZERO, TMAX, ZERO, TMAX}},
};

/* A pattern of one type, as bits, with its two indices. */
struct concrete {
    const char *name;
    clfold_type type;
    size_t length;
    uint64_t bits[MAX_PATTERN];
    int64_t want[2]; /* argmin, argmax */
};

/*
 * Layouts of a pattern of m elements in n: the pattern alone (its written
 * indices); repeated from phase `phase`, element i being pattern[(i +
 * phase) % m]; and after n - m copies of a background value. The last two
 * are judged by the reference, which the first has checked.
 */
static void lay_out(const struct concrete *p, void *data, size_t n, size_t phase,
                    bool background, test_rng *rng)
{
    size_t m = p->length;
    for (size_t i = 0; i < n; i++)
        store_bits(data, i, p->type, p->bits[(i + phase) % m]);
    if (!background)
        return;
    uint64_t fill = p->bits[rng_below(rng, m)];
    if (type_is_float(p->type))
        fill = float_bits(p->type, (int)rng_below(rng, 2) ? ONE : TWO | NEG);
    for (size_t i = 0; i + m < n; i++)
        store_bits(data, i, p->type, fill);
    for (size_t j = 0; j < m; j++)
        store_bits(data, n - m + j, p->type, p->bits[j]);
}

/*
 * One array on every kernel but atomic, at block 64 (auto its own); K3 and
 * K6 (its block known at compile time) at block 1 too, where every element
 * is a group of its own and the passes over partial values do the work.
 */
static void check_on_kernels(const char *what, cl_mem buffer, const void *data, size_t n,
                             clfold_type type, clfold_op op, int64_t want)
{
    const size_t blocks[] = {64, 1};
    char how[96];
    int64_t got = -7;
    for (size_t k = 0; k < n_kernels; k++) {
        if (kernels[k] == CLFOLD_ATOMIC)
            continue;
        for (size_t b = 0; b < 2; b++) {
            size_t block = kernels[k] == CLFOLD_AUTO ? 0 : blocks[b];
            if (b == 1 && kernels[k] != CLFOLD_K3 && kernels[k] != CLFOLD_K6)
                continue;
            EXPECT_STATUS(ctx, clfold_set_kernel(ctx, kernels[k], block), CLFOLD_SUCCESS);
            snprintf(how, sizeof how, "buffer, kernel %s block %zu", clfold_kernel_name(kernels[k]),
                     block);
            clfold_status status = clfold_reduce_buffer(ctx, buffer, 0, n, type, op, &got);
            check_index(what, how, ctx, status, got, want, data, n, type, op);
        }
    }
    if (n < 1000)
        return;
    EXPECT_STATUS(chunked, clfold_set_kernel(chunked, CLFOLD_AUTO, 0), CLFOLD_SUCCESS);
    clfold_status status = clfold_reduce_host(chunked, data, n, type, op, &got);
    check_index(what, "host in 4 KiB chunks", chunked, status, got, want, data, n, type, op);
}

static void check_concrete(const struct concrete *p, void *data, test_rng *rng)
{
    static const size_t lengths[] = {33, 1000, 4097, 100003};
    size_t element = clfold_type_size(p->type);
    char what[160];
    for (int o = 0; o < 2; o++) {
        lay_out(p, data, p->length, 0, false, rng);
        int64_t want = p->want[o];
        EXPECT(reference_index(data, p->length, p->type, OPS[o]) == want,
               "the reference disagrees with the test on %s %s [%s]", clfold_op_name(OPS[o]),
               clfold_type_name(p->type), p->name);
        cl_mem buffer = buffer_of(p->length * element, data);
        snprintf(what, sizeof what, "[%s]", p->name);
        check_on_kernels(what, buffer, data, p->length, p->type, OPS[o], want);
        clReleaseMemObject(buffer);
        for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
            size_t n = lengths[l], phase = (size_t)rng_below(rng, p->length);
            bool background = l % 2 == 1;
            lay_out(p, data, n, phase, background, rng);
            snprintf(what, sizeof what, "[%s] %s to %zu elements", p->name,
                     background ? "after a background" : "repeated", n);
            buffer = buffer_of(n * element, data);
            check_on_kernels(what, buffer, data, n, p->type, OPS[o],
                             reference_index(data, n, p->type, OPS[o]));
            clReleaseMemObject(buffer);
        }
    }
}

/* Every accuracy leaves the index as it is: none applies. */
static void check_accuracies(const struct concrete *p, void *data)
{
    const clfold_kernel some[] = {CLFOLD_AUTO, CLFOLD_K3, CLFOLD_K7};
    lay_out(p, data, p->length, 0, false, NULL);
    for (int a = CLFOLD_ACCURACY_COMPENSATED; a <= CLFOLD_ACCURACY_EXACT; a++) {
        if (a == CLFOLD_ACCURACY_FP64 && !fp64)
            continue;
        EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, (clfold_accuracy)a), CLFOLD_SUCCESS);
        for (size_t k = 0; k < sizeof some / sizeof *some; k++) {
            EXPECT_STATUS(ctx, clfold_set_kernel(ctx, some[k], 0), CLFOLD_SUCCESS);
            for (int o = 0; o < 2; o++) {
                int64_t got = -7;
                char how[96];
                snprintf(how, sizeof how, "host, kernel %s, accuracy %s",
                         clfold_kernel_name(some[k]), clfold_accuracy_name((clfold_accuracy)a));
                clfold_status status =
                    clfold_reduce_host(ctx, data, p->length, p->type, OPS[o], &got);
                check_index(p->name, how, ctx, status, got, p->want[o], data, p->length, p->type,
                            OPS[o]);
            }
        }
    }
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);
}

static struct concrete float_concrete(const struct pattern *p, clfold_type type)
{
    struct concrete c = {p->name, type, p->length, {0}, {p->argmin, p->argmax}};
    for (size_t i = 0; i < p->length; i++)
        c.bits[i] = float_bits(type, p->values[i]);
    return c;
}

static struct concrete int_concrete(const struct int_pattern *p, clfold_type type)
{
    bool u = type_is_unsigned(type);
    struct concrete c = {p->name, type, p->length, {0},
                         {u ? p->uargmin : p->argmin, u ? p->uargmax : p->argmax}};
    for (size_t i = 0; i < p->length; i++)
        c.bits[i] = int_bits(type, p->values[i]);
    return c;
}

static void run_special(void)
{
    test_rng rng = {UINT64_C(0x7370656369616c)};
    void *data = malloc(100003 * 8);
    for (size_t t = 0; data != NULL && t < N_TYPES; t++) {
        clfold_type type = TYPES[t];
        if (!type_wanted(type))
            continue;
        size_t count = type_is_float(type) ? sizeof FLOAT_PATTERNS / sizeof *FLOAT_PATTERNS
                                           : sizeof INT_PATTERNS / sizeof *INT_PATTERNS;
        for (size_t i = 0; i < count; i++) {
            struct concrete c = type_is_float(type) ? float_concrete(&FLOAT_PATTERNS[i], type)
                                                    : int_concrete(&INT_PATTERNS[i], type);
            check_concrete(&c, data, &rng);
            if (type_is_float(type))
                check_accuracies(&c, data);
        }
    }
    free(data);
}

/* ---- --axis ------------------------------------------------------------------------ */

struct shape {
    size_t rows, cols, pitch, offset;
};

enum axis_kind { AXIS_RANDOM, AXIS_PLANTED, AXIS_PATTERN, AXIS_EQUAL, N_AXIS_KINDS };
static const char *const AXIS_KIND_NAMES[] = {"random", "planted", "pattern", "all equal"};

/* A cyclic pattern for axis data: NaN, signed zeros, infinities; or integer extremes. */
static uint64_t pattern_element(clfold_type type, size_t i)
{
    static const int floats[] = {ONE, PZ | NEG, PZ, TWO | NEG, INF | NEG, QNAN | NEG, INF,
                                 SUB1, ONE | NEG, QNAN, SUB1 | NEG};
    static const int ints[] = {IONE, TMAX, ZERO, TMIN, MINUS_ONE, SIGN, TMIN, BELOW_SIGN, TMAX};
    if (type_is_float(type))
        return float_bits(type, floats[i % (sizeof floats / sizeof *floats)]);
    return int_bits(type, ints[i % (sizeof ints / sizeof *ints)]);
}

/* Random data with now and then a NaN or a signed zero (floats). */
static void fill_random(void *data, size_t n, clfold_type type, test_rng *rng)
{
    if (!type_is_float(type)) {
        fill_integers(data, n, type, CLFOLD_SUM, rng);
        return;
    }
    fill_unit(data, n, type, rng);
    for (size_t k = 0; k < n / 500; k++) {
        unsigned which = (unsigned)rng_below(rng, 8);
        store_bits(data, place(rng, 0, n), type,
                   which < 6 ? nan_bits(type, which) : which == 6 ? 0 : sign_bit(type));
    }
}

/*
 * The elements of `m` (in a host copy of `total` elements, guards around
 * and between its rows), as `kind` says. Lines are what `axis` reduces:
 * planted data put the extreme in each line at a random place and later.
 */
static void fill_matrix(unsigned char *data, size_t total, const struct shape *m, int axis,
                        clfold_type type, clfold_op op, enum axis_kind kind, test_rng *rng)
{
    size_t lines = axis == 1 ? m->rows : m->cols, length = axis == 1 ? m->cols : m->rows;
    size_t along = axis == 1 ? 1 : m->pitch, across = axis == 1 ? m->pitch : 1;
    uint64_t same = kind == AXIS_EQUAL ? opposite_bits(type, op) : 0;
    for (size_t i = 0; i < total; i++)
        store_bits(data, i, type, guard_bits(type, op, rng));
    for (size_t r = 0; r < m->rows; r++) {
        unsigned char *row = data + (m->offset + r * m->pitch) * clfold_type_size(type);
        if (kind == AXIS_RANDOM)
            fill_random(row, m->cols, type, rng);
        else if (kind == AXIS_PLANTED)
            fill_background(row, m->cols, type, rng);
        for (size_t c = 0; c < m->cols && kind >= AXIS_PATTERN; c++)
            store_bits(row, c, type, kind == AXIS_EQUAL ? same : pattern_element(type, r + 2 * c));
    }
    uint64_t near = near_extreme_bits(type, op);
    for (size_t l = 0; l < lines && kind == AXIS_PLANTED; l++) {
        size_t first = place(rng, 0, length);
        for (int k = 0; k < 2; k++) {
            store_bits(data, m->offset + l * across + first * along, type, near);
            if (first + 1 >= length)
                break;
            first = place(rng, first + 1, length);
        }
    }
}

/* Every result of a blocking reduction against the reference over its line. */
static void check_lines(const int64_t *got, const unsigned char *data, const struct shape *m,
                        int axis, clfold_type type, clfold_op op, const char *what)
{
    size_t lines = axis == 1 ? m->rows : m->cols, length = axis == 1 ? m->cols : m->rows;
    size_t element = clfold_type_size(type);
    unsigned char *line = malloc(length * element + 1);
    char how[64];
    for (size_t l = 0; l < lines; l++) {
        for (size_t k = 0; k < length; k++) {
            size_t at = axis == 1 ? m->offset + l * m->pitch + k : m->offset + k * m->pitch + l;
            memcpy(line + k * element, data + at * element, element);
        }
        snprintf(how, sizeof how, "axis %d, result %zu", axis, l);
        check_index(what, how, ctx, CLFOLD_SUCCESS, got[l], reference_index(line, length, type, op),
                    line, length, type, op);
    }
    free(line);
}

/* The non-blocking form writes the blocking form's results at an odd byte, nothing else. */
static void check_axis_async(cl_mem buffer, const struct shape *m, int axis, clfold_type type,
                             clfold_op op, const int64_t *want, size_t results, const char *what)
{
    size_t at = 3, bytes = at + 8 * results + 5;
    unsigned char *host = malloc(bytes);
    cl_mem out = buffer_of(bytes, (memset(host, GUARD, bytes), host));
    clfold_matrix view = {m->offset, m->rows, m->cols, m->pitch};
    cl_event event = NULL;
    EXPECT_STATUS(ctx, clfold_reduce_axis_async(ctx, buffer, &view, axis, type, op, out, at, 0,
                                                NULL, &event),
                  CLFOLD_SUCCESS);
    read_after(out, bytes, host, event);
    EXPECT(memcmp(host + at, want, 8 * results) == 0, "%s %s %s: async axis %d differs",
           clfold_op_name(op), clfold_type_name(type), what, axis);
    EXPECT(guards_intact(host, 0, at) && guards_intact(host, at + 8 * results, bytes),
           "%s: async axis %d wrote outside its results", what, axis);
    clReleaseMemObject(out);
    free(host);
}

static void check_axis(const struct shape *m, int axis, clfold_type type, clfold_op op,
                       enum axis_kind kind, test_rng *rng)
{
    size_t element = clfold_type_size(type);
    size_t total = m->offset + (m->rows - 1) * m->pitch + m->cols + TAIL;
    size_t results = axis == 1 ? m->rows : m->cols;
    unsigned char *data = malloc(total * element);
    int64_t *got = malloc(results * 8);
    char what[128];
    snprintf(what, sizeof what, "%s %zux%zu (pitch %zu, offset %zu)", AXIS_KIND_NAMES[kind],
             m->rows, m->cols, m->pitch, m->offset);
    fill_matrix(data, total, m, axis, type, op, kind, rng);
    cl_mem buffer = buffer_of(total * element, data);
    clfold_matrix view = {m->offset, m->rows, m->cols, m->pitch};
    for (size_t i = 0; i < results; i++)
        got[i] = -7;
    EXPECT_STATUS(ctx, clfold_reduce_axis(ctx, buffer, &view, axis, type, op, got),
                  CLFOLD_SUCCESS);
    check_lines(got, data, m, axis, type, op, what);
    if (kind == AXIS_PLANTED || kind == AXIS_PATTERN)
        check_axis_async(buffer, m, axis, type, op, got, results, what);
    clReleaseMemObject(buffer);
    free(data);
    free(got);
}

/* An empty reduced axis with results is refused; no results is fine, and writes nothing. */
static void check_empty_axes(void)
{
    static const struct shape cases[] = {{0, 5, 5, 0}, {4, 0, 0, 0}, {0, 0, 0, 0}, {0, 5, 7, 2}};
    static const unsigned char zeros[64];
    int64_t results[8];
    unsigned char host[16];
    cl_mem buffer = buffer_of(sizeof zeros, zeros);
    cl_mem out = buffer_of(sizeof host, (memset(host, GUARD, sizeof host), host));
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        for (int axis = 0; axis <= 1; axis++) {
            const struct shape *m = &cases[c];
            clfold_matrix view = {m->offset, m->rows, m->cols, m->pitch};
            bool results_given = axis == 1 ? m->rows > 0 : m->cols > 0;
            clfold_status want = results_given ? CLFOLD_ERROR_INVALID_ARGUMENT : CLFOLD_SUCCESS;
            for (int o = 0; o < 2; o++) {
                memset(results, GUARD, sizeof results);
                EXPECT_STATUS(ctx, clfold_reduce_axis(ctx, buffer, &view, axis, CLFOLD_FLOAT,
                                                      OPS[o], results), want);
                EXPECT(!results_given || clfold_last_error(ctx)[0] != '\0',
                       "%zux%zu axis %d: no message", m->rows, m->cols, axis);
                EXPECT(guards_intact((unsigned char *)results, 0, sizeof results),
                       "%zux%zu axis %d: a result written", m->rows, m->cols, axis);
                cl_event event = (cl_event)&view;
                EXPECT_STATUS(ctx, clfold_reduce_axis_async(ctx, buffer, &view, axis, CLFOLD_INT32,
                                                            OPS[o], out, 1, 0, NULL, &event),
                              want);
                EXPECT(results_given ? event == NULL : event != NULL,
                       "%zux%zu axis %d: *event %p", m->rows, m->cols, axis, (void *)event);
                read_after(out, sizeof host, host, results_given ? NULL : event);
                EXPECT(guards_intact(host, 0, sizeof host), "%zux%zu axis %d: async wrote",
                       m->rows, m->cols, axis);
            }
        }
    }
    clReleaseMemObject(buffer);
    clReleaseMemObject(out);
}

/*
 * --axis-shapes: every shape on a type of each size (int8, half, float,
 * uint64: their vectors and alignments differ); --axis-types: every type
 * on a few shapes, and the empty axes. Apart because the GPU shape builds
 * a program for each shape's team and vector, which takes POCL about half
 * a second.
 */
static const struct shape AXIS_SHAPES[] = {
    {3000, 7, 9, 5},  {7, 3000, 3001, 1}, {33, 65, 70, 3},      {1, 1000, 1000, 0},
    {1000, 1, 3, 2},  {257, 129, 129, 0}, {257, 129, 133, 3},   {4, 70000, 70000, 0},
    {70000, 4, 5, 1}, {1, 1, 1, 0},       {2, 100003, 100005, 7}, {3, 1001, 1008, 0}};
#define N_AXIS_SHAPES (sizeof AXIS_SHAPES / sizeof *AXIS_SHAPES)
#define FEW_AXIS_SHAPES 3

static bool type_of_every_shape(clfold_type type)
{
    return type == CLFOLD_INT8 || type == CLFOLD_HALF || type == CLFOLD_FLOAT ||
           type == CLFOLD_UINT64;
}

static void run_axis_part(bool every_shape)
{
    test_rng rng = {every_shape ? UINT64_C(0x61786973) : UINT64_C(0x7479706573)};
    for (size_t t = 0; t < N_TYPES; t++) {
        clfold_type type = TYPES[t];
        test_progress("test_arg", "axes of %s", clfold_type_name(type));
        if (!type_wanted(type) || type_of_every_shape(type) != every_shape)
            continue;
        for (size_t s = 0; s < (every_shape ? N_AXIS_SHAPES : FEW_AXIS_SHAPES); s++)
            for (int axis = 0; axis <= 1; axis++)
                for (int o = 0; o < 2; o++)
                    for (int kind = 0; kind < N_AXIS_KINDS; kind++)
                        check_axis(&AXIS_SHAPES[s], axis, type, OPS[o], (enum axis_kind)kind,
                                   &rng);
    }
    if (every_shape)
        return;
    /* The accuracy does not apply: exact sums' setting changes no index. */
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    for (int axis = 0; axis <= 1; axis++)
        check_axis(&AXIS_SHAPES[0], axis, CLFOLD_FLOAT, CLFOLD_ARGMAX, AXIS_PATTERN, &rng);
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);
    check_empty_axes();
}

static void run_axis_shapes(void) { run_axis_part(true); }
static void run_axis_types(void) { run_axis_part(false); }

/* ---- --segments ------------------------------------------------------------------- */

/* Puts the extreme at a random place of each non-empty segment, and later again. */
static void plant_segments(unsigned char *elements, const cl_ulong *bounds, size_t segments,
                           clfold_type type, clfold_op op, test_rng *rng)
{
    uint64_t near = near_extreme_bits(type, op);
    for (size_t s = 0; s < segments; s++) {
        size_t length = (size_t)(bounds[s + 1] - bounds[s]);
        if (length > 0)
            plant_twice(elements + bounds[s] * clfold_type_size(type), length, type, near, rng);
    }
}

/* Each segment's result against the reference: -1 for an empty one. */
static void check_segment_results(const int64_t *got, const unsigned char *elements,
                                  const cl_ulong *bounds, size_t segments, clfold_type type,
                                  clfold_op op, const char *what)
{
    char how[64];
    for (size_t s = 0; s < segments; s++) {
        size_t length = (size_t)(bounds[s + 1] - bounds[s]);
        const unsigned char *first = elements + bounds[s] * clfold_type_size(type);
        int64_t want = reference_index(first, length, type, op);
        EXPECT(length > 0 || want == -1, "the reference gives %lld for no elements",
               (long long)want);
        snprintf(how, sizeof how, "segment %zu [%llu, %llu)", s, (unsigned long long)bounds[s],
                 (unsigned long long)bounds[s + 1]);
        check_index(what, how, ctx, CLFOLD_SUCCESS, got[s], want, first, length, type, op);
    }
}

/*
 * Reduces `segments` of `bounds` over `count` elements from `offset` (guards
 * before and after them), blocking and non-blocking (results at an odd byte).
 */
static void check_segments(const cl_ulong *bounds, size_t segments, size_t count, size_t offset,
                           clfold_type type, clfold_op op, bool planted, const char *name,
                           test_rng *rng)
{
    size_t element = clfold_type_size(type), total = offset + count + TAIL;
    unsigned char *data = malloc(total * element);
    unsigned char *elements = data + offset * element;
    int64_t *got = malloc(segments * 8 + 8);
    char what[128];
    snprintf(what, sizeof what, "segments %s (%zu over %zu elements from %zu)", name, segments,
             count, offset);
    for (size_t i = 0; i < total; i++)
        store_bits(data, i, type, guard_bits(type, op, rng));
    if (planted) {
        fill_background(elements, count, type, rng);
        plant_segments(elements, bounds, segments, type, op, rng);
    } else {
        fill_random(elements, count, type, rng);
    }
    cl_mem buffer = buffer_of(total * element, data);
    cl_mem offsets = buffer_of((segments + 1) * sizeof *bounds, bounds);
    EXPECT_STATUS(ctx, clfold_reduce_segments(ctx, buffer, offset, count, offsets, segments, type,
                                              op, got),
                  CLFOLD_SUCCESS);
    check_segment_results(got, elements, bounds, segments, type, op, what);

    size_t at = 5, bytes = at + 8 * segments + 3;
    unsigned char *host = malloc(bytes);
    cl_mem out = buffer_of(bytes, (memset(host, GUARD, bytes), host));
    cl_event event = NULL;
    EXPECT_STATUS(ctx, clfold_reduce_segments_async(ctx, buffer, offset, count, offsets, segments,
                                                    type, op, out, at, 0, NULL, &event),
                  CLFOLD_SUCCESS);
    read_after(out, bytes, host, event);
    EXPECT(memcmp(host + at, got, 8 * segments) == 0, "%s %s %s: async results differ",
           clfold_op_name(op), clfold_type_name(type), what);
    EXPECT(guards_intact(host, 0, at) && guards_intact(host, at + 8 * segments, bytes),
           "%s: async wrote outside its results", what);
    clReleaseMemObject(out);
    clReleaseMemObject(buffer);
    clReleaseMemObject(offsets);
    free(host);
    free(data);
    free(got);
}

/*
 * The non-blocking form clamps: a segment past `count` reads only below it
 * (the guards after it would win), one whose end lies before its start is
 * empty (-1).
 */
static void check_clamped(clfold_type type, clfold_op op, test_rng *rng)
{
    size_t element = clfold_type_size(type), count = 10;
    unsigned char data[(10 + TAIL) * 8];
    cl_ulong bad[] = {0, 6, 4, 12, 30};
    int64_t got[4];
    fill_background(data, count, type, rng);
    for (size_t i = count; i < count + TAIL; i++)
        store_bits(data, i, type, guard_bits(type, op, rng));
    cl_mem buffer = buffer_of((count + TAIL) * element, data);
    cl_mem offsets = buffer_of(sizeof bad, bad), out = buffer_of(sizeof got, got);
    cl_event event = NULL;
    EXPECT_STATUS(ctx, clfold_reduce_segments_async(ctx, buffer, 0, count, offsets, 4, type, op,
                                                    out, 0, 0, NULL, &event),
                  CLFOLD_SUCCESS);
    read_after(out, sizeof got, got, event);
    int64_t want[] = {reference_index(data, 6, type, op), -1,
                      reference_index(data + 4 * element, 6, type, op), -1};
    for (int s = 0; s < 4; s++)
        check_index("clamped offsets {0, 6, 4, 12, 30} over 10", "async", ctx, CLFOLD_SUCCESS,
                    got[s], want[s], data, count, type, op);
    clReleaseMemObject(buffer);
    clReleaseMemObject(offsets);
    clReleaseMemObject(out);
}

static void check_segment_type(clfold_type type, clfold_op op, test_rng *rng)
{
    static const cl_ulong few[] = {0, 0, 1, 1, 5, 5, 5, 9, 10};
    static const cl_ulong huge[] = {2, 3, 300003, 300004, 300010};
    static const cl_ulong none[] = {0, 0, 0, 0};
    enum { SEGMENTS = 300 };
    cl_ulong mixed[SEGMENTS + 1], tiny[4097];
    check_segments(few, 8, 12, 3, type, op, true, "empty and short", rng);
    check_segments(few, 8, 10, 0, type, op, false, "empty and short", rng);
    check_segments(huge, 4, 300010, 1, type, op, true, "one huge", rng);
    check_segments(none, 3, 0, 0, type, op, true, "all empty", rng);
    size_t count = power_law(mixed, SEGMENTS, 0, rng);
    check_segments(mixed, SEGMENTS, count, 0, type, op, true, "power-law", rng);
    count = power_law(mixed, SEGMENTS, 17, rng);
    check_segments(mixed, SEGMENTS, count + 5, 2, type, op, false, "power-law from 17", rng);
    for (size_t s = 0; s <= 4096; s++)
        tiny[s] = s / 2;
    check_segments(tiny, 4096, 2048, 1, type, op, true, "lengths 0 and 1", rng);
    check_clamped(type, op, rng);
}

static void run_segments(void)
{
    test_rng rng = {UINT64_C(0x7365676d)};
    for (size_t t = 0; t < N_TYPES; t++)
        for (int o = 0; o < 2 && type_wanted(TYPES[t]); o++)
            check_segment_type(TYPES[t], OPS[o], &rng);
}

/* ---- --misuse ------------------------------------------------------------------------ */

/* No elements: refused with a message, nothing written, *event NULL. */
static void check_no_elements(clfold_type type, clfold_op op, cl_mem buffer, cl_mem out)
{
    int64_t got = -7;
    unsigned char host[16];
    cl_event event = (cl_event)&got;
    char element[8] = {0};
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 0, 0, type, op, &got),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(strlen(clfold_last_error(ctx)) > 0 && got == -7, "buffer: message \"%s\", result %lld",
           clfold_last_error(ctx), (long long)got);
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 3, 0, type, op, &got),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, element, 0, type, op, &got),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(strlen(clfold_last_error(ctx)) > 0 && got == -7, "host: message \"%s\"",
           clfold_last_error(ctx));
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, NULL, 0, type, op, &got),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, clfold_reduce_buffer_async(ctx, buffer, 0, 0, type, op, out, 1, 0, NULL,
                                                  &event),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT(strlen(clfold_last_error(ctx)) > 0 && event == NULL, "async: message \"%s\", *event %p",
           clfold_last_error(ctx), (void *)event);
    read_after(out, sizeof host, host, NULL);
    EXPECT(guards_intact(host, 0, sizeof host), "async with no elements wrote its result");
}

static void run_misuse(void)
{
    static const unsigned char zeros[64];
    unsigned char host[16];
    cl_mem buffer = buffer_of(sizeof zeros, zeros);
    cl_mem out = buffer_of(sizeof host, (memset(host, GUARD, sizeof host), host));
    /* Every kernel but atomic, which may refuse the operator before it looks at the count. */
    for (size_t k = 0; k + 1 < N_KERNELS; k++) {
        EXPECT_STATUS(ctx, clfold_set_kernel(ctx, ALL_KERNELS[k], 0), CLFOLD_SUCCESS);
        for (size_t t = 0; t < N_TYPES; t++)
            for (int o = 0; o < 2 && type_wanted(TYPES[t]); o++)
                check_no_elements(TYPES[t], OPS[o], buffer, out);
    }
    for (size_t t = 0; t < N_TYPES; t++) {
        for (int o = 0; o < 2; o++) {
            clfold_type result = CLFOLD_FLOAT;
            EXPECT_STATUS(ctx, clfold_result_type(TYPES[t], OPS[o], &result), CLFOLD_SUCCESS);
            EXPECT(result == CLFOLD_INT64, "%s of %s gives %s", clfold_op_name(OPS[o]),
                   clfold_type_name(TYPES[t]), clfold_type_name(result));
        }
    }
    const char *names[] = {"argmin", "argmax", "ARGMIN", "ARGMAX", "ArgMin", "aRgMaX"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        clfold_op op = CLFOLD_SUM;
        EXPECT_STATUS(ctx, clfold_op_from_name(names[i], &op), CLFOLD_SUCCESS);
        EXPECT(op == OPS[i % 2], "%s is op %d", names[i], (int)op);
    }
    for (int o = 0; o < 2; o++) {
        clfold_op op = CLFOLD_SUM;
        const char *name = clfold_op_name(OPS[o]);
        EXPECT(name != NULL && strcmp(name, o == 0 ? "argmin" : "argmax") == 0, "name %s",
               name ? name : "(null)");
        EXPECT(name != NULL && clfold_op_from_name(name, &op) == CLFOLD_SUCCESS && op == OPS[o],
               "%s does not come back", name ? name : "(null)");
    }
    clfold_op op = CLFOLD_SUM;
    EXPECT_STATUS(ctx, clfold_op_from_name("argmid", &op), CLFOLD_ERROR_INVALID_OP);
    EXPECT_STATUS(ctx, clfold_op_from_name("arg", &op), CLFOLD_ERROR_INVALID_OP);
    EXPECT(clfold_op_name((clfold_op)(CLFOLD_SUMSQ + 1)) == NULL, "an op past the last has a name");
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 0, 4, CLFOLD_FLOAT,
                                            (clfold_op)(CLFOLD_SUMSQ + 1), host),
                  CLFOLD_ERROR_INVALID_OP);
    EXPECT_STATUS(ctx, clfold_reduce_buffer(ctx, buffer, 0, 4, CLFOLD_FLOAT, CLFOLD_ARGMIN, NULL),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    clReleaseMemObject(buffer);
    clReleaseMemObject(out);
}

/* ---- --small: for Oclgrind ---------------------------------------------------------- */

/*
 * Oclgrind 21.10's --uninitialized takes a CL_MEM_USE_HOST_PTR buffer
 * (clfold_reduce_host on a CPU device) as uninitialised, and a scratch
 * buffer written after it replaced a released one: so buffers only, and
 * the views that need the most scratch (columns in slices, rows in pieces)
 * first, so that the scratch never grows (tests/oclgrind_driver.c). Halves
 * keep clear of negative NaN and -inf: Oclgrind 21.10 gets gpu.cl's
 * half_bits_to_float wrong for them (clang switches on the exponent as an
 * i5, and Oclgrind compares the i5 with the half's sign bit still in bit
 * 5), where POCL and the reference agree.
 *
 * Each case: small shapes with a pitch and an offset on both axes; float
 * argmax also columns cut into slices (8200 x 3, axis 0) and rows into
 * pieces (2 x 33000, axis 1); short segments; 3001 elements from element
 * 1, whose GPU shape has a head, a vector body and a tail.
 */
static void run_small(void)
{
    static const struct shape shapes[] = {{8200, 3, 3, 0}, {2, 33000, 33000, 0}, {1, 1, 1, 0},
                                          {3, 5, 6, 1},    {9, 40, 41, 2}};
    enum { N_SHAPES = sizeof shapes / sizeof *shapes };
    static const cl_ulong few[] = {0, 0, 1, 1, 5, 5, 5, 9, 40};
    static const struct {
        clfold_type type;
        clfold_op op;
        enum axis_kind axis_kind;
        enum kind kind;
        size_t shapes; /* the last so many */
    } cases[] = {{CLFOLD_FLOAT, CLFOLD_ARGMAX, AXIS_PATTERN, KIND_NAN, 5},
                 {CLFOLD_FLOAT, CLFOLD_ARGMIN, AXIS_PATTERN, KIND_NAN, 3},
                 {CLFOLD_HALF, CLFOLD_ARGMAX, AXIS_PLANTED, KIND_PLANTED, 2},
                 {CLFOLD_INT8, CLFOLD_ARGMAX, AXIS_PLANTED, KIND_RANDOM, 2},
                 {CLFOLD_UINT64, CLFOLD_ARGMIN, AXIS_PATTERN, KIND_TYPE_EXTREME, 2}};
    test_rng rng = {5};
    struct whole w = {.host = calloc(8 + 3001 + TAIL, 8)};
    w.buffer = buffer_of((8 + 3001 + TAIL) * 8, w.host);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        clfold_type type = cases[c].type;
        clfold_op op = cases[c].op;
        size_t element = clfold_type_size(type);
        for (size_t s = N_SHAPES - cases[c].shapes; s < N_SHAPES; s++)
            for (int axis = 0; axis <= 1; axis++)
                if (s >= 2 || axis == (int)s) /* the large ones on one axis */
                    check_axis(&shapes[s], axis, type, op, cases[c].axis_kind, &rng);
        check_segments(few, 8, 41, 3, type, op, cases[c].axis_kind == AXIS_PLANTED, "short", &rng);
        load_case(&w, 1, 3001, type, op, cases[c].kind, &rng);
        int64_t want = reference_index(w.host + element, 3001, type, op), got = -7;
        EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_AUTO, 0), CLFOLD_SUCCESS);
        clfold_status status = clfold_reduce_buffer(ctx, w.buffer, 1, 3001, type, op, &got);
        check_index(KIND_NAMES[cases[c].kind], "buffer from element 1, auto", ctx, status, got,
                    want, w.host + element, 3001, type, op);
    }
    clReleaseMemObject(w.buffer);
    free(w.host);
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    static const char *const MODES[] = {"--whole",       "--special",  "--axis-shapes",
                                        "--axis-types",  "--segments", "--misuse",
                                        "--small"};
    static void (*const RUN[])(void) = {run_whole,      run_special,  run_axis_shapes,
                                        run_axis_types, run_segments, run_misuse,
                                        run_small};
    enum { N_MODES = sizeof MODES / sizeof *MODES };
    bool chosen_modes[N_MODES] = {true, true, true, true, true, true, false}, any_mode = false;
    clfold_kernel chosen[N_KERNELS];
    size_t n_chosen = 0;
    for (int i = 1; i < argc; i++) {
        size_t m = 0;
        while (m < N_MODES && strcmp(argv[i], MODES[m]) != 0)
            m++;
        if (m < N_MODES) {
            if (!any_mode)
                memset(chosen_modes, 0, sizeof chosen_modes);
            chosen_modes[m] = any_mode = true;
        } else if (!take_kernel_arg(argc, argv, &i, chosen, &n_chosen, N_KERNELS)) {
            fprintf(stderr, "usage: %s [--whole | --special | --axis-shapes | --axis-types | "
                            "--segments | --misuse | --small]... [--kernel NAME | NAME]...\n",
                    argv[0]);
            return 2;
        }
    }
    if (n_chosen > 0) {
        kernels = chosen;
        n_kernels = n_chosen;
    }
    ctx = test_context();
    /* Settings are read at create: host arrays in chunks of 4 KiB. */
    setenv("CLFOLD_MAX_CHUNK_BYTES", "4096", 1);
    chunked = test_context();
    unsetenv("CLFOLD_MAX_CHUNK_BYTES");
    if (ctx == NULL || chunked == NULL)
        return 1;
    cl = clfold_cl_context(ctx);
    queue = clfold_queue(ctx);
    fp64 = test_device_has_fp64(clfold_device(ctx));
    for (size_t m = 0; m < N_MODES; m++) {
        if (!chosen_modes[m])
            continue;
        unsigned long before = CHECKS_SO_FAR();
        RUN[m]();
        EXPECT_CHECKED(before, MODES[m]);
    }
    clfold_destroy(chunked);
    clfold_destroy(ctx);
    return test_finish("test_arg");
}
