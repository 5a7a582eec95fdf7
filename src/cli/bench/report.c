/*
 * report.c: what a `clfold bench` run prints and draws once every device
 * has run: a table per device, clfold's rows with its peers' beside them,
 * and with several devices a side-by-side summary, the merge of merge.c
 * that `clfold compare` would make of the run's JSON; --format json and
 * csv handed to document.c; --plot drawn by plot.c (one device) or
 * merge.c (several).
 *
 * May call (below it in src/cli/bench/): document.c, merge.c, plot.c, run.c.
 */
#include "report.h"

#include <stdio.h>

#include "common.h"
#include "document.h"
#include "merge.h"
#include "plot.h"
#include "run.h"

/* Peers' rows at the same type and size as `row`. */
static void print_peer_columns(const struct bench_results *results, const struct bench_row *row)
{
    for (size_t p = 0; p < results->n_peers; p++) {
        const struct peer_row *peer = &results->peers[p];
        if (peer->type != row->type || peer->n != row->n || peer->op != row->op)
            continue;
        printf("  %s %.4f ms %.2fx", peer->peer, peer->best_ms, peer->best_ms / row->best_ms);
        if (peer->e2e_ms > 0)
            printf(", e2e %.4f ms %.2fx", peer->e2e_ms, peer->e2e_ms / row->e2e_ms);
    }
}

static void print_table(const struct bench_device *device, const struct bench_plan *plan)
{
    const struct bench_results *results = device->results;
    const bool scan = plan->scan != NULL;
    const int width = scan ? 15 : 7; /* "blelloch-padded" */
    char shape[128];
    bench_shape_describe(plan, shape, sizeof shape);
    printf("Device: %s (%s, driver %s); accuracy %s\n", device->summary.name, device->summary.platform,
           device->summary.driver, clfold_accuracy_name(plan->accuracy));
    if (scan)
        printf("Scan: %s; GB/s count input and output, copy is a device-to-device copy of as "
               "many bytes\n", plan->scan);
    else if (plan->shape.kind != SHAPE_WHOLE)
        printf("Shape: %s\n", shape);
    for (size_t i = 0; i < results->n_rows; i++)
        if (results->rows[i].wall_timed) {
            printf("Timing: this device's profiling timestamps do not advance, so best and "
                   "median are wall times of a blocking call, launch to value (and the %s's "
                   "too)\n", scan ? "copy" : "read");
            break;
        }
    printf("%-7s %-6s %11s %-*s %-8s %10s %10s %10s %9s %9s %6s %s", "type", "op", "n", width,
           "kernel", "path", "best(ms)", "median", "e2e(ms)", "GB/s", scan ? "copy" : "read",
           scan ? "%copy" : "%read", "correct");
    if (results->n_peers > 0)
        printf("  peers: best, ratio peer/clfold (>1: clfold faster); e2e, ratio");
    printf("\n");
    for (size_t i = 0; i < results->n_rows; i++) {
        const struct bench_row *r = &results->rows[i];
        printf("%-7s %-6s %11zu %-*s %-8s %10.4f %10.4f %10.4f %9.1f %9.1f %5.1f%% %-*s",
               clfold_type_name(r->type), clfold_op_name(r->op), r->n, width, bench_kernel_name(r),
               r->path != NULL ? r->path : "-", r->best_ms, r->median_ms, r->e2e_ms, r->gbps, r->read_gbps,
               r->read_gbps > 0 ? 100 * r->gbps / r->read_gbps : 0, results->n_peers > 0 ? 7 : 0,
               r->correct ? "yes" : "NO");
        print_peer_columns(results, r);
        printf("\n");
    }
    if (device->failure[0] != '\0')
        printf("FAILED: %s\n", device->failure);
}

/*
 * The side-by-side summary of several devices, as `clfold compare` would
 * merge the run's JSON: a column per device, peers left out. 0, or -1 (said
 * on stderr).
 */
static int bench_merge(const struct bench_plan *plan, const struct bench_run *run,
                       struct merge_table *table)
{
    char shape[128], err[256];
    static struct merge_row rows[sizeof ((struct bench_results *)0)->rows /
                                 sizeof ((struct bench_results *)0)->rows[0]];
    bench_shape_describe(plan, shape, sizeof shape);
    for (size_t d = 0; d < run->n_devices; d++) {
        const struct bench_results *results = run->devices[d].results;
        for (size_t i = 0; i < results->n_rows; i++) {
            const struct bench_row *r = &results->rows[i];
            rows[i] = (struct merge_row){"clfold", shape, clfold_type_name(r->type),
                                         clfold_op_name(r->op), bench_kernel_name(r), (double)r->n,
                                         r->best_ms, r->gbps, r->read_gbps};
        }
        if (merge_add_device(table, 0, run->devices[d].summary.name, "", rows, results->n_rows, false,
                             err, sizeof err) != 0) {
            cli_error("the summary: %s", err);
            return -1;
        }
    }
    merge_sort(table);
    return 0;
}

/* The devices side by side: a column each, GB/s and percentage of its own read. */
static void print_summary(const struct bench_plan *plan, const struct bench_run *run)
{
    struct merge_table table = {0};
    printf("\nSummary: %zu devices side by side\n", run->n_devices);
    if (bench_merge(plan, run, &table) == 0)
        merge_print(&table, 0, FORMAT_TABLE);
    merge_release(&table);
}

void bench_print(const struct cli_args *args, const struct bench_plan *plan, const struct bench_run *run)
{
    if (args->format == FORMAT_JSON) {
        bench_print_document(args, plan, run);
        return;
    }
    if (args->format == FORMAT_CSV) {
        bench_print_csv(plan, run);
        return;
    }
    for (size_t d = 0; d < run->n_devices; d++) {
        if (d > 0)
            printf("\n");
        print_table(&run->devices[d], plan);
    }
    if (run->n_devices > 1)
        print_summary(plan, run);
}

int bench_plot_run(const char *path, const struct bench_plan *plan, const struct bench_run *run)
{
    struct merge_table table = {0};
    int status = -1;
    if (run->n_devices == 1)
        return bench_plot(path, &run->devices[0].summary, run->devices[0].results);
    if (bench_merge(plan, run, &table) == 0)
        status = merge_plot(&table, path, "clfold bench: GB/s on each device");
    merge_release(&table);
    return status;
}
