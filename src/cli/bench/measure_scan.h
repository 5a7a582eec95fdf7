/*
 * measure_scan.h: the bench's scans, --scan (measure_scan.c).
 */
#ifndef CLFOLD_CLI_BENCH_MEASURE_SCAN_H
#define CLFOLD_CLI_BENCH_MEASURE_SCAN_H

#include "clfold.h"
#include "run.h"

/*
 * Every size, operator and kernel of the plan's scans of one type, whose
 * `data` are in `in` (as large as the largest size): each row timed as
 * bench_time times it, every output checked, and held to a device-to-device
 * copy of as many bytes. Returns the exit status; says why a device failed.
 */
int bench_scan_type(clfold_context *ctx, clfold_context *plain, const struct bench_plan *plan,
                    clfold_type type, const void *data, cl_mem in, struct bench_device *device);

#endif /* CLFOLD_CLI_BENCH_MEASURE_SCAN_H */
