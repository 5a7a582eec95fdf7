/*
 * landing.h: where a blocking reduction's value reaches the host
 * (landing.c): read from a device buffer, or, where the device can write
 * host memory, watched for there. reduce.c's blocking folds call, in order:
 *
 *   landing_prepare(ctx);
 *   bool direct = landing_is_direct(ctx, job, count, finish);
 *   fold.out = landing_target(ctx, direct);    (at byte 0)
 *   if (direct) landing_arm(ctx, bytes);
 *   ... enqueue the fold ...
 *   landing_wait(ctx, direct, bytes, value);
 */
#ifndef CLFOLD_LANDING_H
#define CLFOLD_LANDING_H

#include "path.h"

/* The buffers, made at the first blocking reduction (the one in host memory where it can be). */
clfold_status landing_prepare(clfold_context *ctx);

/* Whether this fold's value goes straight to host memory. */
bool landing_is_direct(const clfold_context *ctx, const struct job *job, size_t count,
                       bool finish);

/* The buffer the fold writes its value into, at byte 0. */
cl_mem landing_target(const clfold_context *ctx, bool direct);

/* Before a direct fold is enqueued: the sentinel into its `bytes`. */
void landing_arm(clfold_context *ctx, size_t bytes);

/* After the fold is enqueued: its value into `value`, and nothing of it running but its end. */
clfold_status landing_wait(clfold_context *ctx, bool direct, size_t bytes, void *value);

#endif /* CLFOLD_LANDING_H */
