/*
 * bench.c: `clfold bench`: sweeps sizes, types, operators and kernels on
 * one device and reports, per reduction: the device time (best and median
 * of one reduction's passes, first start to last end, on a profiling
 * queue), the end-to-end time of one call with the result on the host (on
 * a context as clfold_create makes it), GB/s of input read, and that as
 * a percentage of what a plain streaming-read kernel reads in the same run.
 * Every result is checked against the host reference (exit 1 if wrong).
 * Peer programs (--peer CMD, see bench/peers/) run on the same sizes; their
 * times, their own end-to-end times where they report them, and the
 * ratios to clfold's are printed beside, and --plot draws it. A device that
 * fails says why in its place, and the others still run. --scan times
 * scans instead (measure_scan.c), held to a device-to-device copy.
 *
 * This file is the command, the top of src/cli/bench/: it reads the plan
 * (plan.c), opens the devices that -d selects, measures each (measure.c,
 * which runs the peers too) and reports (report.c). Every file of the
 * folder calls only files below it, in the order that docs/design.md lists
 * and tests/test_bench_layers.py holds and checks.
 *
 * May call (below it in src/cli/bench/): plan.c, measure.c, peers.c,
 * report.c, run.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "common.h"
#include "measure.h"
#include "peers.h"
#include "plan.h"
#include "report.h"
#include "run.h"

/* A device of the run, by the selector that chose it; -1 when there are too many. */
static int add_device(struct bench_run *run, const char *selector, size_t length)
{
    if (run->n_devices == BENCH_MAX_DEVICES)
        return -1;
    struct bench_device *device = &run->devices[run->n_devices];
    memset(device, 0, sizeof *device);
    snprintf(device->selector, sizeof device->selector, "%.*s", (int)length, selector);
    /* From the caller's text, not device->selector: gcc's -Wrestrict sees one object. */
    if (length > 0)
        snprintf(device->summary.name, sizeof device->summary.name, "%.*s", (int)length, selector);
    else
        snprintf(device->summary.name, sizeof device->summary.name, "default device");
    device->summary.type = "other";
    device->results = calloc(1, sizeof *device->results);
    if (device->results == NULL)
        return -1;
    run->n_devices++;
    return 0;
}

/* -d: the default device, "all" (every P:D), or a comma list of selectors. EXIT_OK or EXIT_BAD_INPUT. */
static int select_devices(const char *text, struct bench_run *run)
{
    char indices[BENCH_MAX_DEVICES][16];
    if (text == NULL)
        return add_device(run, "", 0) == 0 ? EXIT_OK : EXIT_CHECK_FAILED;
    if (strcasecmp(text, "all") == 0) {
        int count = cli_device_indices(indices, BENCH_MAX_DEVICES, CL_DEVICE_TYPE_ALL);
        for (int i = 0; i < count; i++)
            if (add_device(run, indices[i], strlen(indices[i])) != 0)
                return EXIT_CHECK_FAILED;
        if (count == 0)
            cli_error("-d all: no OpenCL device found (see clfold devices)");
        return count > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    for (const char *item = text;; item++) {
        size_t length = strcspn(item, ",");
        if (length == 0) {
            cli_error("-d \"%s\": an empty selector in the list", text);
            return EXIT_BAD_INPUT;
        }
        if (add_device(run, item, length) != 0) {
            cli_error("-d \"%s\": at most %d devices", text, BENCH_MAX_DEVICES);
            return EXIT_BAD_INPUT;
        }
        item += length;
        if (*item == '\0')
            return EXIT_OK;
    }
}

static void release_run(struct bench_run *run, clfold_context **plain)
{
    for (size_t d = 0; d < run->n_devices; d++) {
        clfold_destroy(plain[d]);
        free(run->devices[d].results);
    }
}

int command_bench(const struct cli_args *args)
{
    struct loader_variables loader;
    struct bench_plan plan;
    static struct bench_run run;
    clfold_context *plain[BENCH_MAX_DEVICES] = {0};
    loader_variables_save(&loader);
    run.n_devices = 0;
    int exit_status = bench_plan_parse(args, &plan);
    if (exit_status == EXIT_OK)
        exit_status = select_devices(args->device, &run);
    /* Every selector first: one that names no device is bad usage, before anything runs. */
    for (size_t d = 0; d < run.n_devices && exit_status == EXIT_OK; d++) {
        struct bench_device *device = &run.devices[d];
        int opened = open_selected(device->selector[0] ? device->selector : NULL, &plain[d]);
        if (opened == EXIT_BAD_INPUT || (opened != EXIT_OK && run.n_devices == 1))
            exit_status = opened;
        else if (opened != EXIT_OK)
            bench_device_failed(device, EXIT_CHECK_FAILED, clfold_last_error(NULL));
    }
    bool ran = exit_status == EXIT_OK;
    for (size_t d = 0; d < run.n_devices && ran; d++) {
        struct bench_device *device = &run.devices[d];
        device->exit_status = plain[d] == NULL ? EXIT_CHECK_FAILED
                            : bench_measure_device(args, &plan, plain[d], device, &loader);
        /* Beside other devices, one that cannot run the plan is a failure, not bad usage. */
        int status = run.n_devices > 1 && device->exit_status == EXIT_BAD_INPUT ? EXIT_CHECK_FAILED
                                                                               : device->exit_status;
        exit_status = status > exit_status ? status : exit_status;
    }
    loader_variables_restore(&loader);
    loader_variables_free(&loader);
    if (ran) {
        bench_print(args, &plan, &run);
        if (args->plot != NULL && bench_plot_run(args->plot, &plan, &run) != 0)
            exit_status = exit_status > EXIT_CHECK_FAILED ? exit_status : EXIT_CHECK_FAILED;
    }
    release_run(&run, plain);
    bench_plan_release(&plan);
    return exit_status;
}
