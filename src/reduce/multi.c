/*
 * multi.c: one reduction of a host array on several contexts at once. Each
 * context gets a part in proportion to its measured bandwidth reading host
 * memory; its part's chunks (at most its device's largest buffer each) are
 * uploaded, reduced to partials and read back without waiting, so that
 * every device works at the same time with no thread of clfold's; then the
 * host waits for them all and merges the partials (partial.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "host_input.h"
#include "partial.h"
#include "path.h"

/*
 * The bandwidth probe: 32 MiB of uint32 in host memory, reduced from there
 * once to warm up and once timed. A host array's part costs a device what
 * reading host memory costs it: through PCIe for a GPU (the copy, then a
 * read of its own memory that takes a hundredth of that), directly for a
 * CPU. A probe of the device's own memory would credit a GPU with its HBM's
 * bandwidth and give it nearly every part, however slow its copy.
 */
#define PROBE_BYTES ((size_t)32 << 20)
#define PROBE_ROUNDS 3 /* timed, after one to warm up; the fastest counts: a wake-up is no bandwidth */

/* The context's bandwidth reading host memory, measured at its first call and kept. */
static clfold_status read_bandwidth(clfold_context *ctx, double *bandwidth)
{
    clfold_status status = CLFOLD_SUCCESS;
    uint64_t sum = 0;
    clfold_run_info kept = ctx->last_run;
    bool had_run = ctx->has_last_run;
    uint32_t *probe = NULL;
    if (ctx->read_bandwidth > 0) {
        *bandwidth = ctx->read_bandwidth;
        return CLFOLD_SUCCESS;
    }
    /* Written, not calloc'ed: untouched pages would all map the zero page. */
    probe = malloc(PROBE_BYTES);
    if (probe == NULL)
        FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for the bandwidth probe");
    memset(probe, 1, PROBE_BYTES);
    double fastest = 0;
    for (int round = 0; round <= PROBE_ROUNDS; round++) {
        double start = monotonic_seconds();
        CHECK(clfold_reduce_host(ctx, probe, PROBE_BYTES / 4, CLFOLD_UINT32, CLFOLD_SUM, &sum));
        double elapsed = monotonic_seconds() - start;
        if (round == 1 || (round > 1 && elapsed < fastest))
            fastest = elapsed;
    }
    ctx->read_bandwidth = (double)PROBE_BYTES / (fastest > 1e-9 ? fastest : 1e-9);
    *bandwidth = ctx->read_bandwidth;
cleanup:
    free(probe);
    ctx->last_run = kept; /* the probe is not the caller's reduction */
    ctx->has_last_run = had_run;
    return status;
}

/* One chunk of a part on its context: its buffer, its partial's place, its first element. */
struct chunk {
    size_t context;
    size_t first;
    size_t count;
    cl_mem input;
    cl_event read;
};

/* What one call holds until it is over. */
struct multi {
    clfold_context *const *contexts;
    size_t num_contexts;
    struct chunk *chunks;
    size_t num_chunks;
    cl_mem *partials;          /* a buffer of partials a context */
    clfold_partial *host;      /* every chunk's partial, read back */
};

/*
 * Where the parts may begin: addresses that are multiples of this many
 * bytes, so that a CPU's part is wrapped in place (host_input_buffer) and
 * not copied: a copy costs far more than the split saves (on an H100's
 * host, a split of 1 GiB with POCL's part copied takes 673 to 792 ms,
 * against 14.0 to 17.4 with it wrapped; bench/results/split-h100-host.txt).
 */
#define PART_ALIGNMENT 4096

/*
 * Cuts `count` elements at `data` into one part a context, in proportion to
 * their bandwidths, each part beginning on PART_ALIGNMENT where the
 * elements allow it: `starts` gets num_contexts + 1 boundaries.
 */
static void split(const double *bandwidth, size_t num_contexts, const void *data, size_t count,
                  size_t element, size_t *starts)
{
    double total = 0;
    for (size_t i = 0; i < num_contexts; i++)
        total += bandwidth[i];
    uintptr_t address = (uintptr_t)data;
    size_t grid = PART_ALIGNMENT / element;   /* elements between aligned boundaries */
    size_t phase = address % element == 0     /* the first aligned element */
                       ? (PART_ALIGNMENT - address % PART_ALIGNMENT) % PART_ALIGNMENT / element
                       : 0;
    double done = 0;
    starts[0] = 0;
    for (size_t i = 0; i < num_contexts; i++) {
        done += bandwidth[i];
        size_t end = i + 1 == num_contexts ? count : (size_t)((double)count * (done / total));
        if (i + 1 < num_contexts && end > phase && address % element == 0)
            end = phase + (end - phase) / grid * grid;
        starts[i + 1] = end < starts[i] ? starts[i] : end > count ? count : end;
    }
}

static clfold_status plan_chunks(struct multi *m, const size_t *starts, size_t element)
{
    size_t total = 0;
    for (size_t i = 0; i < m->num_contexts; i++) {
        size_t chunk = host_chunk_elements(m->contexts[i], element);
        total += divide_up(starts[i + 1] - starts[i], chunk);
    }
    m->chunks = calloc(total > 0 ? total : 1, sizeof *m->chunks);
    m->host = calloc(total > 0 ? total : 1, sizeof *m->host);
    m->partials = calloc(m->num_contexts, sizeof *m->partials);
    if (m->chunks == NULL || m->host == NULL || m->partials == NULL)
        return fail(m->contexts[0], CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for the parts");
    for (size_t i = 0; i < m->num_contexts; i++) {
        size_t chunk = host_chunk_elements(m->contexts[i], element);
        for (size_t first = starts[i]; first < starts[i + 1]; first += chunk) {
            size_t n = starts[i + 1] - first < chunk ? starts[i + 1] - first : chunk;
            m->chunks[m->num_chunks++] = (struct chunk){i, first, n, NULL, NULL};
        }
    }
    return CLFOLD_SUCCESS;
}

/*
 * Enqueues one chunk: its elements into a buffer (wrapped on a CPU, written
 * without waiting on a GPU), its partial into the context's partials at
 * `slot`, and the partial's read into host memory.
 */
static clfold_status enqueue_chunk(struct multi *m, struct chunk *c, const void *data,
                                   clfold_type type, clfold_op op, size_t slot)
{
    clfold_context *ctx = m->contexts[c->context];
    clfold_status status = CLFOLD_SUCCESS;
    size_t bytes = c->count * type_info(type)->size;
    const void *from = (const char *)data + c->first * type_info(type)->size;
    cl_event reduced = NULL;
    cl_int err;
    if (ctx->caps.is_cpu) {
        CHECK(host_input_buffer(ctx, from, bytes, &c->input));
    } else {
        c->input = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, bytes, NULL, &err);
        CHECK_CL(err, "clCreateBuffer (part)");
        CHECK_CL(clEnqueueWriteBuffer(ctx->queue, c->input, CL_FALSE, 0, bytes, from, 0, NULL,
                                      NULL),
                 "clEnqueueWriteBuffer (part)");
    }
    CHECK(clfold_reduce_partial_async(ctx, c->input, 0, c->count, type, op,
                                      m->partials[c->context], slot * CLFOLD_PARTIAL_BYTES, 0,
                                      NULL, &reduced));
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, m->partials[c->context], CL_FALSE,
                                 slot * CLFOLD_PARTIAL_BYTES, CLFOLD_PARTIAL_BYTES,
                                 &m->host[c - m->chunks], 1, &reduced, &c->read),
             "clEnqueueReadBuffer (partial)");
cleanup:
    if (reduced != NULL)
        clReleaseEvent(reduced);
    return status;
}

/*
 * Every chunk enqueued, context by context, each into its own slot of its
 * context's partials: the CPUs' first, since wrapping host memory returns
 * at once, while a GPU's writes from pageable memory keep this thread busy
 * copying until its part is out; the CPUs work meanwhile.
 */
static clfold_status enqueue_all(struct multi *m, const void *data, clfold_type type,
                                 clfold_op op)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_int err;
    for (int cpus_first = 1; cpus_first >= 0; cpus_first--) {
        for (size_t i = 0; i < m->num_contexts; i++) {
            clfold_context *ctx = m->contexts[i];
            size_t slots = 0;
            for (size_t k = 0; k < m->num_chunks; k++)
                slots += m->chunks[k].context == i;
            if (slots == 0 || ctx->caps.is_cpu != (cpus_first == 1))
                continue;
            m->partials[i] = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE,
                                            slots * CLFOLD_PARTIAL_BYTES, NULL, &err);
            CHECK_CL(err, "clCreateBuffer (partials)");
            size_t slot = 0;
            for (size_t k = 0; k < m->num_chunks; k++)
                if (m->chunks[k].context == i)
                    CHECK(enqueue_chunk(m, &m->chunks[k], data, type, op, slot++));
        }
    }
cleanup:
    return status;
}

/*
 * Once anything was enqueued, waits for every context's queue, whatever
 * happened; then releases what the call made.
 */
static void multi_release(struct multi *m)
{
    for (size_t i = 0; m->partials != NULL && i < m->num_contexts; i++)
        clFinish(m->contexts[i]->queue);
    for (size_t k = 0; k < m->num_chunks; k++) {
        if (m->chunks[k].read != NULL)
            clReleaseEvent(m->chunks[k].read);
        if (m->chunks[k].input != NULL)
            clReleaseMemObject(m->chunks[k].input);
    }
    for (size_t i = 0; m->partials != NULL && i < m->num_contexts; i++)
        if (m->partials[i] != NULL)
            clReleaseMemObject(m->partials[i]);
    free(m->chunks);
    free(m->partials);
    free(m->host);
}

/* The checks before anything runs: the contexts, and one accuracy among them. */
static clfold_status check_contexts(clfold_context *const *contexts, size_t num_contexts)
{
    for (size_t i = 0; i < num_contexts; i++) {
        if (contexts[i] == NULL)
            return fail(contexts[0], CLFOLD_ERROR_INVALID_ARGUMENT, "context %zu is NULL", i);
        if (contexts[i]->accuracy != contexts[0]->accuracy)
            return fail(contexts[0], CLFOLD_ERROR_INVALID_ARGUMENT,
                        "context %zu reduces at the %s accuracy, context 0 at %s: their partials "
                        "would not merge", i, clfold_accuracy_name(contexts[i]->accuracy),
                        clfold_accuracy_name(contexts[0]->accuracy));
        for (size_t j = 0; j < i; j++)
            if (contexts[j] == contexts[i])
                return fail(contexts[0], CLFOLD_ERROR_INVALID_ARGUMENT,
                            "context %zu is context %zu again: one queue would run both parts", i,
                            j);
    }
    return CLFOLD_SUCCESS;
}

/* Merges every chunk's partial (an arg-reduction's rebased to its first element) and finishes. */
static clfold_status merge_and_finish(clfold_context *ctx, struct multi *m, clfold_op op,
                                      void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    for (size_t k = 0; k < m->num_chunks; k++) {
        if (op_is_arg(op))
            CHECK(clfold_partial_rebase(&m->host[k], m->chunks[k].first));
        if (k > 0)
            CHECK(clfold_partial_merge(&m->host[0], &m->host[k]));
    }
    CHECK(clfold_partial_finish(&m->host[0], result));
cleanup:
    if (status != CLFOLD_SUCCESS)
        fail(ctx, status, "the parts' partials did not merge");
    return status;
}

clfold_status clfold_reduce_host_multi(clfold_context *const *contexts, size_t num_contexts,
                                       const void *data, size_t count, clfold_type type,
                                       clfold_op op, void *result)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct multi m = {contexts, num_contexts, NULL, 0, NULL, NULL};
    double *bandwidth = NULL;
    size_t *starts = NULL;
    clfold_context *ctx = NULL; /* contexts[0]: where failures are told */

    if (contexts == NULL || num_contexts == 0 || contexts[0] == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    ctx = contexts[0];
    for (size_t i = 0; i < num_contexts; i++)
        if (contexts[i] != NULL)
            clear_error(contexts[i]);
    if ((data == NULL && count != 0) || result == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", result == NULL ? "result" : "data");
    CHECK(check_contexts(contexts, num_contexts));
    CHECK(check_request(ctx, type, op));
    CHECK(check_arg_length(ctx, op, count));
    if (count == 0 || num_contexts == 1) { /* nothing to share */
        status = clfold_reduce_host(ctx, data, count, type, op, result);
        goto cleanup;
    }
    if (count > SIZE_MAX / type_info(type)->size)
        FAIL(CLFOLD_ERROR_TOO_LARGE, "%zu elements exceed the address space", count);
    bandwidth = calloc(num_contexts, sizeof *bandwidth);
    starts = calloc(num_contexts + 1, sizeof *starts);
    if (bandwidth == NULL || starts == NULL)
        FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for the parts");
    for (size_t i = 0; i < num_contexts; i++) {
        status = read_bandwidth(contexts[i], &bandwidth[i]);
        if (status != CLFOLD_SUCCESS)
            FAIL(status, "context %zu (%s): measuring its bandwidth: %s", i,
                 contexts[i]->caps.name, clfold_last_error(contexts[i]));
    }
    split(bandwidth, num_contexts, data, count, type_info(type)->size, starts);
    CHECK(plan_chunks(&m, starts, type_info(type)->size));
    status = enqueue_all(&m, data, type, op);
    for (size_t i = 0; status != CLFOLD_SUCCESS && i < num_contexts; i++)
        if (i != 0 && clfold_last_error(contexts[i])[0] != '\0')
            FAIL(status, "context %zu (%s): %s", i, contexts[i]->caps.name,
                 clfold_last_error(contexts[i]));
    if (status != CLFOLD_SUCCESS)
        goto cleanup;
    for (size_t k = 0; k < m.num_chunks; k++)
        CHECK_CL(clWaitForEvents(1, &m.chunks[k].read), "clWaitForEvents (partials)");
    CHECK(merge_and_finish(ctx, &m, op, result));
cleanup:
    multi_release(&m);
    free(bandwidth);
    free(starts);
    return status;
}
