/*
 * roofline.h: the device's measured read bandwidth, for `clfold bench`.
 */
#ifndef CLFOLD_CLI_ROOFLINE_H
#define CLFOLD_CLI_ROOFLINE_H

#include <stdbool.h>

#include "clfold.h"

struct roofline;

/* A streaming-read kernel on ctx's device, GPU- or CPU-shaped; NULL on failure. */
struct roofline *roofline_create(clfold_context *ctx, bool cpu_shape);
void roofline_destroy(struct roofline *roofline);

/* Device time of one read of the first `bytes` of `buffer`; < 0 on failure. */
double roofline_read_ms(struct roofline *roofline, cl_mem buffer, size_t bytes);

#endif /* CLFOLD_CLI_ROOFLINE_H */
