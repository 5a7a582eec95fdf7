/*
 * scratch.h: each reduction's and scan's own scratch (scratch.c): its
 * partial values and the one-launch counter. Operations in flight never
 * share one.
 */
#ifndef CLFOLD_SCRATCH_H
#define CLFOLD_SCRATCH_H

#include "internal.h"

/* One operation's own scratch: operations in flight never share one. */
struct scratch {
    cl_mem partials[2];          /* ping-pong partial values, grown on demand */
    size_t bytes[2];
    cl_mem tickets;              /* the one-launch GPU path's counter, kept at 0 */
    bool busy;                   /* an operation holds it */
    cl_event done;               /* that operation's last command, once known */
};

/* A scratch no operation in flight holds, marked busy: a completed one's, or a new one. */
clfold_status scratch_acquire(clfold_context *ctx, struct scratch **scratch);

/* The operation holding `scratch` is over once `done` completes (the scratch owns the event). */
void scratch_hold(struct scratch *scratch, cl_event done);

/* After a clFinish: no operation is in flight, so every scratch is free. */
void scratch_all_free(clfold_context *ctx);

/* Makes partial-value buffer `which` (0 or 1) of `scratch` hold at least `bytes`. */
clfold_status scratch_partials(clfold_context *ctx, struct scratch *scratch, int which,
                               size_t bytes);

/*
 * A failed enqueue may leave some of its commands in the queue, waiting on
 * the caller's events; it must not wait for them. Its scratch stays held
 * until a marker after them completes, or, without a marker, until the next
 * wait for the whole queue.
 */
void scratch_abandon(clfold_context *ctx, struct scratch *scratch);

/* Drops the ticket counter of a failed reduction, which may have left it anywhere. */
void scratch_forget_tickets(struct scratch *scratch);

/* Gives `scratch` a zeroed ticket counter if it has none. */
clfold_status scratch_tickets(clfold_context *ctx, struct scratch *scratch);

/* Releases every scratch (clfold_destroy, after its clFinish). */
void scratch_release_all(clfold_context *ctx);

#endif /* CLFOLD_SCRATCH_H */
