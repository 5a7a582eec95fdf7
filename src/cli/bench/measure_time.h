/*
 * measure_time.h: the timing of one call of the bench (measure_time.c),
 * which measure.c, measure_shapes.c and measure_scan.c share.
 */
#ifndef CLFOLD_CLI_BENCH_MEASURE_TIME_H
#define CLFOLD_CLI_BENCH_MEASURE_TIME_H

#include "clfold.h"
#include "run.h"

/* One reduction of the bench on `ctx`: what bench_time times, on either context. */
typedef clfold_status (*bench_reduction)(clfold_context *ctx, void *call);

/*
 * Times reduce(ctx, call): device time (best and median) from `timed`,
 * whose queue profiles; end to end (median) from `plain`, a context as
 * clfold_create makes it, since profiling costs every call microseconds.
 * Two warm-up calls on each first. Fills *row from *spec with the times,
 * GB/s and the path that ran; the caller checks the result.
 */
clfold_status bench_time(clfold_context *timed, clfold_context *plain, bench_reduction reduce,
                         void *call, const struct bench_row *spec, struct bench_row *row);

#endif /* CLFOLD_CLI_BENCH_MEASURE_TIME_H */
