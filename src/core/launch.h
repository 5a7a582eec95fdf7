/*
 * launch.h: what the launches of every reduction and scan share
 * (launch.c): the log of one operation's commands, whose first takes the
 * caller's wait list and whose events are kept only where they are used,
 * and the run it adds to clfold_run_info.
 */
#ifndef CLFOLD_LAUNCH_H
#define CLFOLD_LAUNCH_H

#include <stdint.h>

#include "internal.h"

/* Enough passes for 2^64 values halved each pass, with room to spare. */
#define MAX_PASSES 80

/* The commands of one operation: what the first waits for, and their events. */
struct pass_log {
    cl_uint waits;               /* the first command waits for these; then none do */
    const cl_event *wait_list;
    bool timed;                  /* keep every launch's event: the queue profiles */
    bool keep_last;              /* keep the last launch's event */
    cl_event events[MAX_PASSES];
    unsigned count;              /* events kept */
    unsigned passes;             /* launches */
    uint64_t bytes_read;
    uint64_t bytes_written;
};

/* The command's share of the log's wait list: all of it for the first command, then none. */
void take_waits(struct pass_log *log, cl_uint *waits, const cl_event **wait_list);

/* Releases the events the log kept. */
void pass_log_release(struct pass_log *log);

/* Adds one operation's launches to `info`; device time only from a profiling queue's events. */
void add_run(clfold_run_info *info, const clfold_context *ctx, const struct pass_log *log);

size_t divide_up(size_t a, size_t b);

/*
 * A kernel's parameters by name, in the order its .cl file declares them,
 * NULL-terminated: the one place on the host where that order is written.
 * Launches bind their arguments by name through it (kernel_arg), so that a
 * parameter added to a kernel (a second input) is a name in its list, not a
 * renumbering of every call.
 */
typedef const char *const kernel_params[];

/* Binds the argument `name` of `kernel`, whose parameters `params` lists. */
clfold_status kernel_arg(clfold_context *ctx, cl_kernel kernel, const char *const *params,
                         const char *name, size_t size, const void *value);

#endif /* CLFOLD_LAUNCH_H */
