/*
 * measure_shapes.c: `clfold bench --shape RxC --axis A` and `clfold bench
 * --segments power-law`: the reductions with many results
 * (clfold_reduce_axis, clfold_reduce_segments), timed as measure.c times a
 * whole array (measure_time.c), and every result checked against the host
 * reference.
 *
 * May call (below it in src/cli/bench/): measure_time.c, run.c.
 */
#include "measure_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "measure_time.h"
#include "reference.h"
#include "run.h"

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
