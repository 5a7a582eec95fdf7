/*
 * host_input.h: a host array as a reduction's or scan's input
 * (host_input.c): a device buffer over one chunk of it, and how many
 * elements a chunk holds.
 */
#ifndef CLFOLD_HOST_INPUT_H
#define CLFOLD_HOST_INPUT_H

#include "internal.h"

/* A device buffer over `bytes` of host memory to read: wrapped on a CPU, else a copy. */
clfold_status host_input_buffer(clfold_context *ctx, const void *data, size_t bytes,
                                cl_mem *buffer);

/* Elements of `element` bytes a host array's chunk holds (CLFOLD_MAX_CHUNK_BYTES). */
size_t host_chunk_elements(const clfold_context *ctx, size_t element);

#endif /* CLFOLD_HOST_INPUT_H */
