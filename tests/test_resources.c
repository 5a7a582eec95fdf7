/*
 * test_resources.c: the process does not grow with use. Every OpenCL object
 * clfold creates is released (test_faults counts them one by one); this
 * test looks at the whole process instead, through /proc/self/statm (the
 * resident set) and glibc's mallinfo2 (the bytes malloc has handed out and
 * not had back), which also see what POCL keeps on clfold's behalf.
 *
 *   --contexts [N]    N rounds (default 3000 on a CPU device, 300 on
 *                     others, whose drivers take about 0.1 s to create a
 *                     context and allocate tens of KiB for it) of clfold_create and
 *                     clfold_destroy; one round in 20 also reduces (a
 *                     different type, operator and kernel of a fixed set each
 *                     time, from host memory or from a buffer of the test's),
 *                     building its programs anew in its new context.
 *   --reductions [N]  one context, N reductions (default 5000) cycling over
 *                     the same set, and as many failed calls (bad type,
 *                     operator, block size, out of bounds) in between.
 *
 * Each runs a warm-up of a tenth of N first, so that the allocator's arenas,
 * POCL's kernel cache and its per-device state are in place, then measures,
 * runs N rounds, and measures again. The resident set may grow by at most
 * 8 MiB plus 1% (page-granular allocator noise), the heap in use by at most
 * 512 KiB plus 64 bytes a round: a leaked context, queue or cl_mem a round
 * (POCL allocates hundreds of bytes for each, kilobytes for a program)
 * would exceed that.
 */
#define _GNU_SOURCE /* mallinfo2 */

#include <malloc.h>
#include <unistd.h>

#include "util.h"

/*
 * Under AddressSanitizer freed memory waits in a quarantine (256 MiB) before
 * it is reused, and malloc is ASan's: neither number means anything there.
 * The rounds still run, for ASan to watch, and LeakSanitizer looks for
 * leaks at exit instead.
 */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

struct usage {
    size_t resident; /* bytes */
    size_t heap;     /* bytes malloc has handed out, 0 where unknown */
};

static struct usage usage_now(void)
{
    struct usage u = {0, 0};
    unsigned long size = 0, resident = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (statm != NULL) {
        if (fscanf(statm, "%lu %lu", &size, &resident) != 2)
            resident = 0;
        fclose(statm);
    }
    u.resident = (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    u.heap = info.uordblks + info.hblkhd;
#endif
    return u;
}

/* ---- the work of a round ----------------------------------------------------------- */

enum { N_DATA = 20011, CASES = 6 };

/*
 * Sums and xors of random integers: each round's result changes if any
 * element is dropped or read twice (a max, min or or would not see it).
 * Every kernel family and both ways in (host memory, a buffer) take turns.
 */
static const struct {
    clfold_kernel kernel;
    size_t block;
    clfold_type type;
    clfold_op op;
} CASE[CASES] = {
    {CLFOLD_AUTO, 0, CLFOLD_INT32, CLFOLD_SUM},    {CLFOLD_K3, 64, CLFOLD_UINT16, CLFOLD_SUM},
    {CLFOLD_K6, 128, CLFOLD_INT8, CLFOLD_SUM},     {CLFOLD_K4, 32, CLFOLD_INT64, CLFOLD_XOR},
    {CLFOLD_ATOMIC, 64, CLFOLD_UINT32, CLFOLD_SUM}, {CLFOLD_K7, 256, CLFOLD_UINT64, CLFOLD_SUM},
};

static unsigned char data[N_DATA * 8];
static reference_value want[CASES];

static void make_data(void)
{
    test_rng rng = {99};
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)rng_next(&rng);
    for (int c = 0; c < CASES; c++)
        reference_reduce(data, N_DATA, CASE[c].type, CASE[c].op, &want[c], NULL);
}

/* One reduction of case c; false (and a message) if it failed or was wrong. */
static bool reduce_case(clfold_context *ctx, int c, cl_mem buffer)
{
    reference_value got;
    clfold_type result_type;
    clfold_status status = clfold_set_kernel(ctx, CASE[c].kernel, CASE[c].block);
    memset(&got, 0, sizeof got);
    if (status == CLFOLD_SUCCESS)
        status = buffer != NULL
                     ? clfold_reduce_buffer(ctx, buffer, 0, N_DATA, CASE[c].type, CASE[c].op, &got)
                     : clfold_reduce_host(ctx, data, N_DATA, CASE[c].type, CASE[c].op, &got);
    clfold_result_type(CASE[c].type, CASE[c].op, &result_type);
    EXPECT(status == CLFOLD_SUCCESS && reference_equal(&got, &want[c], result_type),
           "case %d (%s %s, kernel %s%s): %s %s", c, clfold_type_name(CASE[c].type),
           clfold_op_name(CASE[c].op), clfold_kernel_name(CASE[c].kernel),
           buffer != NULL ? ", a buffer" : "", clfold_status_string(status), clfold_last_error(ctx));
    return status == CLFOLD_SUCCESS;
}

/*
 * A context made and destroyed; every BUILD_EVERY rounds it also reduces,
 * from host memory or from a buffer of the test's. (A context costs
 * microseconds, the first build of a program in it tens of milliseconds even
 * from POCL's disk cache: building in every round would take minutes.)
 */
enum { BUILD_EVERY = 20 };

static void context_round(unsigned long round)
{
    clfold_context *ctx = NULL;
    cl_int err;
    if (clfold_create(&ctx, NULL) != CLFOLD_SUCCESS) {
        EXPECT(false, "round %lu: clfold_create failed", round);
        return;
    }
    if (round % BUILD_EVERY == 0) {
        unsigned long n = round / BUILD_EVERY;
        cl_mem buffer = NULL;
        if (n % 2 == 1)
            buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    sizeof data, data, &err);
        reduce_case(ctx, (int)(n % CASES), buffer);
        if (buffer != NULL)
            clReleaseMemObject(buffer);
    }
    clfold_destroy(ctx);
}

/* A reduction, and a refused call of each kind. */
static void reduction_round(clfold_context *ctx, cl_mem buffer, unsigned long round)
{
    int64_t sink;
    reduce_case(ctx, (int)(round % CASES), round % 2 ? buffer : NULL);
    switch (round % 4) {
    case 0: clfold_reduce_host(ctx, data, 10, (clfold_type)99, CLFOLD_SUM, &sink); break;
    case 1: clfold_reduce_host(ctx, data, 10, CLFOLD_FLOAT, CLFOLD_XOR, &sink); break;
    case 2: clfold_set_kernel(ctx, CLFOLD_K3, 3); break;
    default: clfold_reduce_buffer(ctx, buffer, 1, N_DATA * 8, CLFOLD_UINT8, CLFOLD_SUM, &sink); break;
    }
    EXPECT(clfold_last_error(ctx)[0] != '\0', "round %lu: a refused call without a message", round);
}

/* ---- measuring ----------------------------------------------------------------------- */

static void check_growth(const char *what, unsigned long rounds, struct usage before,
                         struct usage after)
{
    long long resident = (long long)after.resident - (long long)before.resident;
    long long heap = (long long)after.heap - (long long)before.heap;
    long long resident_limit = (8LL << 20) + (long long)before.resident / 100;
    long long heap_limit = (512LL << 10) + 64LL * (long long)rounds;
    printf("%s: %lu rounds: resident %.1f -> %.1f MiB (%+lld KiB, limit %lld KiB); heap in use "
           "%.1f -> %.1f MiB (%+lld KiB, limit %lld KiB)\n",
           what, rounds, before.resident / 1048576.0, after.resident / 1048576.0, resident / 1024,
           resident_limit / 1024, before.heap / 1048576.0, after.heap / 1048576.0, heap / 1024,
           heap_limit / 1024);
    if (UNDER_ASAN) {
        printf("%s: built with AddressSanitizer: growth not checked (LeakSanitizer checks at exit)\n",
               what);
        return;
    }
    EXPECT(resident <= resident_limit, "%s: the resident set grew by %lld KiB over %lu rounds",
           what, resident / 1024, rounds);
    EXPECT(before.heap == 0 || heap <= heap_limit,
           "%s: the heap in use grew by %lld KiB over %lu rounds (%lld bytes a round)", what,
           heap / 1024, rounds, heap / (long long)rounds);
}

/* Whether the test's device is a CPU (POCL): there a context is cheap. */
static bool test_device_is_cpu(void)
{
    clfold_context *ctx = test_context();
    cl_device_type type = 0;
    if (ctx != NULL)
        clGetDeviceInfo(clfold_device(ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clfold_destroy(ctx);
    return (type & CL_DEVICE_TYPE_CPU) != 0;
}

static void run(bool contexts, unsigned long rounds)
{
    unsigned long warm = rounds / 10 > 20 ? rounds / 10 : 20;
    clfold_context *ctx = contexts ? NULL : test_context();
    cl_mem buffer = NULL;
    cl_int err;
    if (!contexts) {
        if (ctx == NULL) {
            EXPECT(false, "no context");
            return;
        }
        buffer = clCreateBuffer(clfold_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                sizeof data, data, &err);
    }
    for (unsigned long r = 0; r < warm; r++)
        contexts ? context_round(r) : reduction_round(ctx, buffer, r);
    struct usage before = usage_now();
    for (unsigned long r = 0; r < rounds && *test_failure_counter() < 20; r++)
        contexts ? context_round(r) : reduction_round(ctx, buffer, r);
    struct usage after = usage_now();
    check_growth(contexts ? "contexts" : "reductions", rounds, before, after);
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    clfold_destroy(ctx);
}

int main(int argc, char **argv)
{
    bool contexts = argc >= 2 && strcmp(argv[1], "--contexts") == 0;
    if (argc < 2 || argc > 3 || (!contexts && strcmp(argv[1], "--reductions") != 0)) {
        fprintf(stderr, "usage: test_resources --contexts [N] | --reductions [N]\n");
        return 2;
    }
    unsigned long rounds = argc == 3 ? strtoul(argv[2], NULL, 10)
                         : contexts ? (test_device_is_cpu() ? 3000 : 300) : 5000;
    make_data();
    run(contexts, rounds);
    return test_finish(argv[1] + 2);
}
