/*
 * device.h: finding the device a selector names, and reading what clfold
 * needs to know about it.
 */
#ifndef CLFOLD_DEVICE_H
#define CLFOLD_DEVICE_H

#include "internal.h"

/*
 * The device that `selector` names ("P:D", or a case-insensitive substring
 * of the device or platform name); NULL or "" picks the first GPU, else
 * the first device. (clfold_create passes CLFOLD_DEVICE's selector when it
 * is given none.)
 */
clfold_status device_select(clfold_context *ctx, const char *selector, cl_device_id *device);

/* Whether `block` is acceptable as a work-group size on this device. */
clfold_status device_check_block(clfold_context *ctx, size_t block);

/* Fills ctx->caps from ctx->device and ctx->queue. */
clfold_status device_read_caps(clfold_context *ctx);

#endif /* CLFOLD_DEVICE_H */
