/*
 * measure.h: `clfold bench` on one device (measure.c).
 */
#ifndef CLFOLD_CLI_BENCH_MEASURE_H
#define CLFOLD_CLI_BENCH_MEASURE_H

#include "args.h"
#include "clfold.h"
#include "peers.h"
#include "run.h"

/*
 * Times the plan on `plain`'s device (and on a profiling context opened
 * beside it) into device->results, then runs the peers beside it with the
 * loader's variables as `loader` saved them. Returns its exit status; a
 * failure is said on stderr and kept in device->failure.
 */
int bench_measure_device(const struct cli_args *args, const struct bench_plan *plan,
                         clfold_context *plain, struct bench_device *device,
                         const struct loader_variables *loader);

#endif /* CLFOLD_CLI_BENCH_MEASURE_H */
