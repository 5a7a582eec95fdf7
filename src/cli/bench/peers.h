/*
 * peers.h: the peer programs that `clfold bench --peer CMD` runs beside a
 * device (peers.c), and the OpenCL loader's variables they start with.
 */
#ifndef CLFOLD_CLI_BENCH_PEERS_H
#define CLFOLD_CLI_BENCH_PEERS_H

#include "args.h"
#include "run.h"

/*
 * The OpenCL loader's variables (OCL_ICD_FILENAMES, OCL_ICD_VENDORS) as the
 * runner found them, saved before any OpenCL starts: something in the
 * process may rewrite them once it does, and peers start with the values as
 * found. Each value malloc'ed, NULL where the variable was unset.
 */
struct loader_variables {
    char *values[2];
};

void loader_variables_save(struct loader_variables *saved);

/* Sets the variables as saved (unsets those that were unset). */
void loader_variables_restore(const struct loader_variables *saved);

void loader_variables_free(struct loader_variables *saved);

/*
 * Runs every --peer beside `device`: `command TYPE N... [SHAPE ARGS] [--op
 * OP]` for each type of the plan and each of its operators that peers time
 * (sum, argmin, argmax: --op for the last two), with CLFOLD_DEVICE set to
 * the device's P:D, and keeps its JSON rows of that type and operator. A
 * peer written "GPU:CMD", "CPU:CMD" or "accelerator:CMD" runs only beside
 * devices of that type. Returns EXIT_CHECK_FAILED where a peer could not
 * start or exited with a failure (said on stderr), else EXIT_OK.
 */
int bench_run_peers(const struct cli_args *args, const struct bench_plan *plan,
                    struct bench_device *device);

#endif /* CLFOLD_CLI_BENCH_PEERS_H */
