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

/* Fills ctx->caps from ctx->device and ctx->queue, and the context's settings. */
clfold_status device_read_caps(clfold_context *ctx);

/*
 * The capabilities the context's parameters change (local_mem_bytes,
 * denorms_are_zero, no_warp_shuffle), from what the device reports: at
 * create, and after every clfold_set_param. Kernels see them through their
 * build options, so a changed one builds other programs.
 */
void device_apply_settings(clfold_context *ctx);

#endif /* CLFOLD_DEVICE_H */
