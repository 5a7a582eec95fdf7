/*
 * run.c: the functions of run.h's types alone: a row added to a device's
 * results, a device's failure kept, and what a row or the plan is called
 * and how many bytes a row moves, as the table, the JSON, the CSV and the
 * plot all say it.
 *
 * May call (below it in src/cli/bench/): none. Every other file of the
 * folder may call it.
 */
#include "run.h"

#include <stdio.h>

#include "common.h"

int bench_add_row(struct bench_results *results, const struct bench_row *row)
{
    if (results->n_rows == sizeof results->rows / sizeof results->rows[0])
        return -1;
    results->rows[results->n_rows++] = *row;
    return 0;
}

/* A build log's lines are joined into the one line kept. */
int bench_device_failed(struct bench_device *device, int exit_status, const char *reason)
{
    cli_error("%s: %s", device->summary.name, reason);
    if (device->failure[0] != '\0')
        return exit_status;
    snprintf(device->failure, sizeof device->failure, "%s", reason);
    for (char *c = device->failure; *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    return exit_status;
}

double bench_bytes(clfold_type type, clfold_op op, size_t n, bool scan)
{
    clfold_type result = type;
    if (scan && clfold_result_type(type, op, &result) != CLFOLD_SUCCESS)
        result = type;
    return (double)n * (double)(clfold_type_size(type) + (scan ? clfold_type_size(result) : 0));
}

const char *bench_kernel_name(const struct bench_row *row)
{
    return row->scan != NULL ? clfold_scan_kernel_name(row->scan_kernel)
                             : clfold_kernel_name(row->kernel);
}

bool bench_same_kernel(const struct bench_row *a, const struct bench_row *b)
{
    return a->kernel == b->kernel && a->scan_kernel == b->scan_kernel;
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
