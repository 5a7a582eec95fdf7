/*
 * common.h: what the runner's commands share (common.c): exit statuses,
 * the one-line error, reporting a library failure, opening the contexts.
 */
#ifndef CLFOLD_CLI_COMMON_H
#define CLFOLD_CLI_COMMON_H

#include <stdbool.h>

#include "args.h"

/* Exit statuses: success, a failed check, bad usage or bad input. */
enum { EXIT_OK = 0, EXIT_CHECK_FAILED = 1, EXIT_BAD_INPUT = 2 };

/* Whether `op` gives an index (argmin, argmax) rather than a value. */
bool cli_op_is_arg(clfold_op op);

/*
 * NumPy's refusal of a minimum or maximum over no elements (a reduced
 * length of 0): NumPy has no identity for them, where the library gives
 * one (docs/shapes.md). Along axes too, even with no results to give.
 * Says so in NumPy's words and returns the exit status.
 */
int cli_check_identity(clfold_op op, size_t length);

/* Refuses an operator that has no scan (argmin, argmax), naming those that do; the exit status. */
int cli_check_scans(clfold_op op);

/* Prints "clfold: <message>" as one line on stderr. */
void cli_error(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/*
 * While buf is not NULL, cli_error writes its first message into buf (cut
 * to cap bytes, without "clfold: ") instead of stderr: an MPI rank's words
 * go to rank 0 rather than each rank's stderr. cli_capture_errors(NULL, 0)
 * ends it.
 */
void cli_capture_errors(char *buf, size_t cap);

/* The exit status a library status deserves: 2 when the request itself was bad, 1 when the device failed. */
int exit_status_of(clfold_status status);

/*
 * A status that exit_status_of maps back to `exit_status` (1 or 2): how the
 * runner's own failures travel between MPI ranks (clfold_mpi_agree).
 */
clfold_status status_for_exit(int exit_status);

/*
 * Reports a library failure on stderr (with clfold_last_error when there is
 * one) and returns the exit status it deserves: 2 when the request itself
 * was bad, 1 when the device failed.
 */
int report_failure(const clfold_context *ctx, clfold_status status, const char *doing);

/*
 * report_failure's text ("doing: why", a build log's lines after it), written
 * into buf instead of stderr; the same exit status.
 */
int describe_failure(const clfold_context *ctx, clfold_status status, const char *doing, char *buf,
                     size_t cap);

/*
 * The "P:D" of every device of `type` (CL_DEVICE_TYPE_ALL: every device),
 * as `clfold devices` numbers them; how many were written.
 */
int cli_device_indices(char (*indices)[16], size_t cap, cl_device_type type);

/* The "P:D" of `device`; "" where it is not listed. */
void cli_device_index_of(cl_device_id device, char *buf, size_t cap);

/*
 * A read-only device copy of `bytes` bytes of `data` in the context's
 * cl_context (a 1-byte buffer for none, which OpenCL cannot make); NULL
 * on failure, with *err set where err is not NULL. Says nothing: callers
 * word their own errors.
 */
cl_mem cli_upload(const clfold_context *ctx, const void *data, size_t bytes, cl_int *err);

/*
 * Refuses an -O that names the command's input file or its --segments
 * offsets (one file, however spelled: device and inode), before anything
 * is read, so that a result never takes an input's place. Says why and
 * returns the exit status.
 */
int check_output_apart(const struct cli_args *args);

/* Creates the context that -d names; on failure says why and returns the exit status. */
int open_context(const struct cli_args *args, clfold_context **ctx);

/* open_context for one selector of -d's list (NULL: the default device). */
int open_selected(const char *selector, clfold_context **ctx);

/* open_selected, with `advice` after its words where no device matches a selector. */
int open_selected_or_advise(const char *selector, clfold_context **ctx, const char *advice);

/*
 * A second context beside `plain` (its cl_context and device) on a queue
 * that records device times, which clfold_create's queue does not: for
 * clfold_run_info's device_ms. On failure says why and returns the exit status.
 */
int open_timed_beside(const clfold_context *plain, clfold_context **timed);

/* open_context, then a timed one in its place. */
int open_timed_context(const struct cli_args *args, clfold_context **ctx);

#endif /* CLFOLD_CLI_COMMON_H */
