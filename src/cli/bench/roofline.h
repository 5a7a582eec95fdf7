/*
 * roofline.h: the device's measured bandwidth: a streaming read, for
 * `clfold bench`'s reductions; a device-to-device copy, for its scans and
 * the scan ladder's.
 */
#ifndef CLFOLD_CLI_BENCH_ROOFLINE_H
#define CLFOLD_CLI_BENCH_ROOFLINE_H

#include <stdbool.h>

#include "clfold.h"

struct roofline;

/* A streaming-read kernel on ctx's device, GPU- or CPU-shaped; NULL on failure. */
struct roofline *roofline_create(clfold_context *ctx, bool cpu_shape);
void roofline_destroy(struct roofline *roofline);

/* Device time of one read of the first `bytes` of `buffer`; < 0 on failure. */
double roofline_read_ms(struct roofline *roofline, cl_mem buffer, size_t bytes);

/*
 * Device time of one clEnqueueCopyBuffer of `bytes` from `src` to `dst` on
 * ctx's queue, which must profile; < 0 on failure. A copy of B bytes reads
 * B and writes B: a scan that reads I bytes and writes O is held to a copy
 * of (I + O) / 2, which moves the same I + O.
 */
double roofline_copy_ms(clfold_context *ctx, cl_mem src, cl_mem dst, size_t bytes);

#endif /* CLFOLD_CLI_BENCH_ROOFLINE_H */
