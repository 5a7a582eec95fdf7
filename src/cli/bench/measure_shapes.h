/*
 * measure_shapes.h: the bench's reductions with many results, --shape and
 * --segments (measure_shapes.c).
 */
#ifndef CLFOLD_CLI_BENCH_MEASURE_SHAPES_H
#define CLFOLD_CLI_BENCH_MEASURE_SHAPES_H

#include "clfold.h"
#include "run.h"

/*
 * Times the plan's shape over `buffer` (`data` on the host) as measure.c
 * times a whole array: device time from `timed`, end to end from `plain`,
 * and a check of every result against the host reference.
 */
clfold_status bench_measure_shape(clfold_context *timed, clfold_context *plain, cl_mem buffer,
                                  const void *data, const struct bench_plan *plan,
                                  const struct bench_row *spec, struct bench_row *row);

#endif /* CLFOLD_CLI_BENCH_MEASURE_SHAPES_H */
