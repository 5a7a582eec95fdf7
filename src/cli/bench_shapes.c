/*
 * bench_shapes.c: `clfold bench --shape RxC --axis A` and `clfold bench
 * --segments power-law`: the reductions with many results
 * (clfold_reduce_axis, clfold_reduce_segments), timed and checked as
 * bench.c times and checks a whole array, with peers run on the same shape.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "common.h"
#include "npy.h"
#include "reference.h"

/* Power-law segments: lengths log-uniform from 1 to 2^20. */
#define LONGEST_SEGMENT_LOG2 20
#define DEFAULT_SEGMENTS_COUNT ((size_t)1 << 26)

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* "RxC", each a count (digits or 2^K). */
static int parse_matrix(const char *text, size_t *rows, size_t *cols)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    char *x = strchr(buf, 'x');
    if (x == NULL)
        return -1;
    *x = '\0';
    return cli_parse_count(buf, rows) == 0 && cli_parse_count(x + 1, cols) == 0 && *rows > 0 &&
                   *cols > 0 && *rows <= SIZE_MAX / *cols
               ? 0
               : -1;
}

/* Offsets of power-law segments that cover n elements (the last one cut to fit), from a fixed seed. */
static int make_segments(struct bench_shape *shape, size_t n)
{
    uint64_t state = 1;
    size_t cap = 1024, count = 0, at = 0;
    uint64_t *offsets = malloc(cap * sizeof *offsets);
    while (offsets != NULL) {
        offsets[count] = at;
        if (at == n)
            break;
        double u = (double)(splitmix64(&state) >> 11) * 0x1p-53;
        size_t length = (size_t)exp2(LONGEST_SEGMENT_LOG2 * u);
        at += length < n - at ? length : n - at;
        if (++count == cap) {
            uint64_t *grown = realloc(offsets, 2 * cap * sizeof *offsets);
            if (grown == NULL)
                free(offsets);
            offsets = grown;
            cap *= 2;
        }
    }
    if (offsets == NULL)
        return -1;
    shape->offsets = offsets;
    shape->n_segments = count;
    return 0;
}

/* The offsets as a .npy file of uint64 for the peers, in a fresh temporary file. */
static int write_offsets(struct bench_shape *shape)
{
    char message[256];
    size_t dims[1] = {shape->n_segments + 1};
    snprintf(shape->offsets_path, sizeof shape->offsets_path, "/tmp/clfold-segments-XXXXXX");
    int fd = mkstemp(shape->offsets_path);
    if (fd < 0) {
        cli_error("cannot make a temporary file for the segments' offsets");
        shape->offsets_path[0] = '\0';
        return -1;
    }
    close(fd);
    if (npy_write(shape->offsets_path, CLFOLD_UINT64, 1, dims, shape->offsets, message,
                  sizeof message) != 0) {
        cli_error("%s", message);
        return -1;
    }
    return 0;
}

int bench_shape_parse(const struct cli_args *args, struct bench_plan *plan)
{
    struct bench_shape *shape = &plan->shape;
    memset(shape, 0, sizeof *shape);
    if (args->shape == NULL && args->segments == NULL) {
        if (args->axes != NULL) {
            cli_error("--axis needs --shape RxC");
            return EXIT_BAD_INPUT;
        }
        return EXIT_OK;
    }
    if (plan->n_kernels != 1 || plan->kernels[0] != CLFOLD_AUTO) {
        cli_error("-k chooses whole-array kernels; shapes run the device's own");
        return EXIT_BAD_INPUT;
    }
    if (args->shape != NULL) {
        shape->kind = SHAPE_MATRIX;
        if (parse_matrix(args->shape, &shape->rows, &shape->cols) != 0) {
            cli_error("--shape takes ROWSxCOLS (counts, digits or 2^K), not \"%s\"", args->shape);
            return EXIT_BAD_INPUT;
        }
        if (args->axes == NULL || (strcmp(args->axes, "0") != 0 && strcmp(args->axes, "1") != 0)) {
            cli_error("--shape needs --axis 0 (down the columns) or 1 (along the rows)");
            return EXIT_BAD_INPUT;
        }
        if (args->sizes != NULL) {
            cli_error("--shape gives the size; --sizes does not apply");
            return EXIT_BAD_INPUT;
        }
        shape->axis = args->axes[0] - '0';
        plan->sizes[0] = shape->rows * shape->cols;
        plan->n_sizes = 1;
        snprintf(shape->peer_args, sizeof shape->peer_args, "--shape %zux%zu --axis %d",
                 shape->rows, shape->cols, shape->axis);
        return EXIT_OK;
    }
    shape->kind = SHAPE_SEGMENTS;
    if (strcmp(args->segments, "power-law") != 0) {
        cli_error("bench --segments takes power-law, not \"%s\"", args->segments);
        return EXIT_BAD_INPUT;
    }
    if (args->axes != NULL || (args->sizes != NULL && plan->n_sizes != 1)) {
        cli_error("--segments takes one size (--sizes N) and no --axis");
        return EXIT_BAD_INPUT;
    }
    if (args->sizes == NULL) {
        plan->sizes[0] = DEFAULT_SEGMENTS_COUNT;
        plan->n_sizes = 1;
    }
    if (make_segments(shape, plan->sizes[0]) != 0) {
        cli_error("out of host memory");
        return EXIT_CHECK_FAILED;
    }
    if (write_offsets(shape) != 0)
        return EXIT_CHECK_FAILED;
    snprintf(shape->peer_args, sizeof shape->peer_args, "--segments %s", shape->offsets_path);
    return EXIT_OK;
}

void bench_plan_release(struct bench_plan *plan)
{
    free(plan->shape.offsets);
    plan->shape.offsets = NULL;
    if (plan->shape.offsets_path[0] != '\0')
        remove(plan->shape.offsets_path);
    plan->shape.offsets_path[0] = '\0';
}

void bench_shape_describe(const struct bench_plan *plan, char *buf, size_t cap)
{
    const struct bench_shape *shape = &plan->shape;
    if (shape->kind == SHAPE_MATRIX)
        snprintf(buf, cap, "%zu x %zu, axis %d", shape->rows, shape->cols, shape->axis);
    else if (shape->kind == SHAPE_SEGMENTS)
        snprintf(buf, cap, "%zu power-law segments, 1 to 2^%d", shape->n_segments,
                 LONGEST_SEGMENT_LOG2);
    else if (plan->scan != NULL) /* its own key: `clfold compare` never puts a scan beside a reduction */
        snprintf(buf, cap, "%s scan", plan->scan);
    else
        snprintf(buf, cap, "whole");
}

/* The results one reduction gives. */
static size_t result_count(const struct bench_shape *shape)
{
    if (shape->kind == SHAPE_SEGMENTS)
        return shape->n_segments;
    return shape->axis == 1 ? shape->rows : shape->cols;
}

/* A reduction with many results: its buffers and plan, and where its results go. */
struct shape_call {
    cl_mem buffer, offsets;
    const struct bench_plan *plan;
    const struct bench_row *spec;
    void *results;
};

static clfold_status reduce_shape(clfold_context *ctx, void *arg)
{
    const struct shape_call *call = arg;
    const struct bench_shape *shape = &call->plan->shape;
    const struct bench_row *spec = call->spec;
    if (shape->kind == SHAPE_SEGMENTS)
        return clfold_reduce_segments(ctx, call->buffer, 0, spec->n, call->offsets,
                                      shape->n_segments, spec->type, spec->op, call->results);
    clfold_matrix matrix = {0, shape->rows, shape->cols, shape->cols};
    return clfold_reduce_axis(ctx, call->buffer, &matrix, shape->axis, spec->type, spec->op,
                              call->results);
}

/* Columns gathered at a time: each block of them one pass down the rows, at most 64 MiB. */
static size_t column_block(const struct bench_shape *shape, size_t element)
{
    size_t block = ((size_t)64 << 20) / (shape->rows * element);
    block = block < 1 ? 1 : block > 256 ? 256 : block;
    return block < shape->cols ? block : shape->cols;
}

/* Result i against the host reference over its `length` elements. */
static bool check_one(const void *elements, size_t length, const void *results, size_t i,
                      const struct bench_plan *plan, const struct bench_row *spec, size_t size)
{
    reference_value got, exact;
    long double sum_abs = 0;
    memcpy(&got, (const unsigned char *)results + i * size, size);
    reference_reduce(elements, length, spec->type, spec->op, &exact, &sum_abs);
    return reference_close(&got, &exact, spec->type, spec->op, plan->accuracy, length, sum_abs,
                           false);
}

/*
 * Checks every result against the host reference: rows and segments where
 * they lie, columns gathered a block at a time, so that the data are read
 * in whole cache lines whatever the shape.
 */
static bool check_results(const void *data, const void *results, const struct bench_plan *plan,
                          const struct bench_row *spec)
{
    const struct bench_shape *shape = &plan->shape;
    const unsigned char *bytes = data;
    size_t count = result_count(shape), element = clfold_type_size(spec->type);
    clfold_type result_type;
    clfold_result_type(spec->type, spec->op, &result_type);
    size_t size = clfold_type_size(result_type);
    bool correct = true;
    if (shape->kind == SHAPE_SEGMENTS || shape->axis == 1) {
        for (size_t i = 0; correct && i < count; i++) {
            size_t first = shape->kind == SHAPE_SEGMENTS ? (size_t)shape->offsets[i] : i * shape->cols;
            size_t length = shape->kind == SHAPE_SEGMENTS
                                ? (size_t)(shape->offsets[i + 1] - shape->offsets[i]) : shape->cols;
            correct = check_one(bytes + first * element, length, results, i, plan, spec, size);
        }
        return correct;
    }
    size_t block = column_block(shape, element);
    unsigned char *gathered = malloc(block * shape->rows * element + 1);
    correct = gathered != NULL;
    for (size_t c0 = 0; correct && c0 < shape->cols; c0 += block) {
        size_t width = shape->cols - c0 < block ? shape->cols - c0 : block;
        for (size_t r = 0; r < shape->rows; r++) /* column c0 + j to gathered[j * rows ..] */
            for (size_t j = 0; j < width; j++)
                memcpy(gathered + (j * shape->rows + r) * element,
                       bytes + (r * shape->cols + c0 + j) * element, element);
        for (size_t j = 0; correct && j < width; j++)
            correct = check_one(gathered + j * shape->rows * element, shape->rows, results,
                                c0 + j, plan, spec, size);
    }
    free(gathered);
    return correct;
}

clfold_status bench_measure_shape(clfold_context *timed, clfold_context *plain, cl_mem buffer,
                                  const void *data, const struct bench_plan *plan,
                                  const struct bench_row *spec, struct bench_row *row)
{
    clfold_status status = CLFOLD_SUCCESS;
    clfold_type result_type;
    clfold_result_type(spec->type, spec->op, &result_type);
    size_t count = result_count(&plan->shape);
    struct shape_call call = {buffer, NULL, plan, spec,
                              malloc(count * clfold_type_size(result_type) + 1)};
    cl_int err = CL_SUCCESS;

    if (call.results == NULL)
        return CLFOLD_ERROR_OUT_OF_HOST_MEMORY;
    if (plan->shape.kind == SHAPE_SEGMENTS)
        call.offsets = cli_upload(timed, plan->shape.offsets,
                                  (plan->shape.n_segments + 1) * sizeof *plan->shape.offsets, &err);
    if (err != CL_SUCCESS)
        status = (clfold_status)err;
    if (status == CLFOLD_SUCCESS)
        status = clfold_set_accuracy(timed, plan->accuracy);
    if (status == CLFOLD_SUCCESS)
        status = clfold_set_accuracy(plain, plan->accuracy);
    if (status == CLFOLD_SUCCESS)
        status = bench_time(timed, plain, reduce_shape, &call, spec, row);
    if (status == CLFOLD_SUCCESS)
        row->correct = check_results(data, call.results, plan, spec);
    if (call.offsets != NULL)
        clReleaseMemObject(call.offsets);
    free(call.results);
    return status;
}
