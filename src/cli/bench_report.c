/*
 * bench_report.c: the bench's plan (sizes, types, operators, kernels from
 * the command line), its peers (external programs run on the same sizes,
 * printing one JSON object per line), its tables (one per device, and with
 * several a side-by-side summary) and the merge that the summary is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench.h"
#include "commands.h"
#include "common.h"
#include "merge.h"

/* "2^10:2^28" (every power of two between), or "1000,2^20,...". */
static int parse_sizes(const char *text, struct bench_plan *plan)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    char *colon = strchr(buf, ':');
    if (colon != NULL) {
        size_t low, high;
        *colon = '\0';
        if (cli_parse_count(buf, &low) != 0 || cli_parse_count(colon + 1, &high) != 0 || low == 0 ||
            low > high)
            return -1;
        for (size_t n = low; n <= high && plan->n_sizes < BENCH_MAX; n *= 2) {
            plan->sizes[plan->n_sizes++] = n;
            if (n > SIZE_MAX / 2)
                break;
        }
        return 0;
    }
    for (char *item = strtok(buf, ","); item != NULL; item = strtok(NULL, ",")) {
        size_t n;
        if (plan->n_sizes == BENCH_MAX || cli_parse_count(item, &n) != 0 || n == 0)
            return -1;
        plan->sizes[plan->n_sizes++] = n;
    }
    return plan->n_sizes > 0 ? 0 : -1;
}

static int compare_sizes(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Parses a comma list with `parse` (a clfold_*_from_name) into `out`. */
#define PARSE_LIST(text, parse, out, count, what)                                           \
    do {                                                                                     \
        char buf_[512];                                                                      \
        snprintf(buf_, sizeof buf_, "%s", text);                                             \
        for (char *item_ = strtok(buf_, ","); item_ != NULL; item_ = strtok(NULL, ",")) {    \
            if ((count) == BENCH_MAX || parse(item_, &(out)[count]) != CLFOLD_SUCCESS) {      \
                cli_error("unknown %s \"%s\" in \"%s\"", what, item_, text);                 \
                return EXIT_BAD_INPUT;                                                       \
            }                                                                                \
            (count)++;                                                                       \
        }                                                                                    \
    } while (0)

/* The operators and types of the plan: each has a result. EXIT_OK or EXIT_BAD_INPUT (said). */
static int check_results(const struct bench_plan *plan)
{
    for (size_t t = 0; t < plan->n_types; t++) {
        for (size_t o = 0; o < plan->n_ops; o++) {
            clfold_type result;
            if (clfold_result_type(plan->types[t], plan->ops[o], &result) != CLFOLD_SUCCESS) {
                cli_error("operator %s does not apply to %s", clfold_op_name(plan->ops[o]),
                          clfold_type_name(plan->types[t]));
                return EXIT_BAD_INPUT;
            }
        }
    }
    return EXIT_OK;
}

/*
 * --scan: whole arrays only, no argmin or argmax, no exact float sums (the
 * library refuses them: docs/scans.md). EXIT_OK or EXIT_BAD_INPUT (said).
 */
static int scan_plan_parse(const struct cli_args *args, struct bench_plan *plan)
{
    plan->scan_mode = args->exclusive ? CLFOLD_EXCLUSIVE : CLFOLD_INCLUSIVE;
    plan->scan = args->exclusive ? "exclusive" : "inclusive";
    if (args->shape != NULL || args->segments != NULL || args->axes != NULL) {
        cli_error("--scan scans whole arrays: no --shape, --axis or --segments");
        return EXIT_BAD_INPUT;
    }
    for (size_t o = 0; o < plan->n_ops; o++) {
        if (cli_op_is_arg(plan->ops[o])) {
            cli_error("%s has no scan (sum, prod, min, max, and, or, xor)",
                      clfold_op_name(plan->ops[o]));
            return EXIT_BAD_INPUT;
        }
        for (size_t t = 0; t < plan->n_types && plan->accuracy == CLFOLD_ACCURACY_EXACT; t++) {
            clfold_type type = plan->types[t];
            if (plan->ops[o] == CLFOLD_SUM &&
                (type == CLFOLD_HALF || type == CLFOLD_FLOAT || type == CLFOLD_DOUBLE)) {
                cli_error("--accuracy exact: exact float scans are not available (docs/scans.md)");
                return EXIT_BAD_INPUT;
            }
        }
    }
    return check_results(plan);
}

int bench_plan_parse(const struct cli_args *args, struct bench_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->accuracy = args->accuracy;
    if (parse_sizes(args->sizes != NULL ? args->sizes : "2^10:2^28", plan) != 0) {
        cli_error("--sizes takes LOW:HIGH (powers of two between) or a comma list of counts, not \"%s\"",
                  args->sizes);
        return EXIT_BAD_INPUT;
    }
    qsort(plan->sizes, plan->n_sizes, sizeof plan->sizes[0], compare_sizes);
    PARSE_LIST(args->types != NULL ? args->types : "float", clfold_type_from_name, plan->types,
               plan->n_types, "type");
    PARSE_LIST(args->ops != NULL ? args->ops : "sum", clfold_op_from_name, plan->ops, plan->n_ops,
               "operator");
    if (args->scan) {
        PARSE_LIST(args->kernels != NULL ? args->kernels : "auto", clfold_scan_kernel_from_name,
                   plan->scan_kernels, plan->n_kernels, "scan kernel");
        for (size_t k = 0; k < plan->n_kernels; k++)
            plan->kernels[k] = CLFOLD_AUTO;
        return scan_plan_parse(args, plan);
    }
    PARSE_LIST(args->kernels != NULL ? args->kernels : "auto", clfold_kernel_from_name,
               plan->kernels, plan->n_kernels, "kernel");
    int shaped = bench_shape_parse(args, plan);
    if (shaped != EXIT_OK)
        return shaped;
    for (size_t o = 0; o < plan->n_ops; o++) {
        for (size_t k = 0; k < plan->n_kernels && cli_op_is_arg(plan->ops[o]); k++) {
            if (plan->kernels[k] == CLFOLD_ATOMIC) {
                cli_error("the atomic baseline cannot give an %s: one atomic word holds no index",
                          clfold_op_name(plan->ops[o]));
                return EXIT_BAD_INPUT;
            }
        }
    }
    return check_results(plan);
}

int bench_add_row(struct bench_results *results, const struct bench_row *row)
{
    if (results->n_rows == sizeof results->rows / sizeof results->rows[0])
        return -1;
    results->rows[results->n_rows++] = *row;
    return 0;
}

/* The number after "key": in a JSON line; -1 if absent. */
static double json_number(const char *line, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(line, pattern);
    return at != NULL ? strtod(at + strlen(pattern), NULL) : -1;
}

static void json_text(const char *line, const char *key, char *out, size_t cap)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\": \"", key);
    const char *at = strstr(line, pattern);
    out[0] = '\0';
    if (at != NULL)
        sscanf(at + strlen(pattern), "%31[^\"]", out);
    (void)cap;
}

/*
 * The operators a peer is asked to time: what the peers in bench/peers/ do
 * (sum, argmin and argmax; sum, min and max scans).
 */
static bool peer_times(const struct bench_plan *plan, clfold_op op)
{
    if (plan->scan != NULL)
        return op == CLFOLD_SUM || op == CLFOLD_MIN || op == CLFOLD_MAX;
    return op == CLFOLD_SUM || cli_op_is_arg(op);
}

/*
 * The peer's command line: `command TYPE N... [SHAPE ARGS | --scan MODE]
 * [--op OP]`, the operator last and only where it is not a sum, so that a
 * peer that only sums (and knows nothing of --op) gets no option it does
 * not know.
 * A peer that knows nothing of --scan fails on it, and times no reduction
 * in a scan's place. 0, or -1 if too long.
 */
static int peer_command(const char *command, const struct bench_plan *plan, clfold_type type,
                        clfold_op op, char *cmd, size_t cap)
{
    size_t used = (size_t)snprintf(cmd, cap, "%s %s", command, clfold_type_name(type));
    for (size_t s = 0; s < plan->n_sizes && used < cap; s++)
        used += (size_t)snprintf(cmd + used, cap - used, " %zu", plan->sizes[s]);
    if (plan->shape.kind != SHAPE_WHOLE && used < cap)
        used += (size_t)snprintf(cmd + used, cap - used, " %s", plan->shape.peer_args);
    if (plan->scan != NULL && used < cap)
        used += (size_t)snprintf(cmd + used, cap - used, " --scan %s", plan->scan);
    if (op != CLFOLD_SUM && used < cap)
        used += (size_t)snprintf(cmd + used, cap - used, " --op %s", clfold_op_name(op));
    return used < cap ? 0 : -1;
}

/*
 * Keeps the peer's JSON rows of `type` and `op`; rows that name no "op" are
 * sums. In a scan's run only rows whose "scan" is the plan's are kept, and
 * in a reduction's only rows without one.
 */
static void read_peer_rows(FILE *pipe, const struct bench_plan *plan, clfold_type type,
                           clfold_op op, struct bench_results *results)
{
    char line[1024];
    while (fgets(line, sizeof line, pipe) != NULL &&
           results->n_peers < sizeof results->peers / sizeof results->peers[0]) {
        struct peer_row *row = &results->peers[results->n_peers];
        char type_name[32], op_name[32], scan[32];
        clfold_op row_op = CLFOLD_SUM;
        json_text(line, "peer", row->peer, sizeof row->peer);
        json_text(line, "type", type_name, sizeof type_name);
        json_text(line, "op", op_name, sizeof op_name);
        json_text(line, "scan", scan, sizeof scan);
        if (strcmp(type_name, clfold_type_name(type)) != 0 ||
            (op_name[0] != '\0' && clfold_op_from_name(op_name, &row_op) != CLFOLD_SUCCESS) ||
            row_op != op || strcmp(scan, plan->scan != NULL ? plan->scan : "") != 0)
            continue; /* a peer's row of another type, operator or kind is never compared with this one */
        row->type = type;
        row->op = op;
        row->scan = plan->scan;
        row->n = (size_t)json_number(line, "n");
        row->best_ms = json_number(line, "best_ms");
        row->median_ms = json_number(line, "median_ms");
        row->e2e_ms = json_number(line, "e2e_ms");
        if (row->peer[0] != '\0' && row->best_ms > 0)
            results->n_peers++;
    }
}

/* Runs one peer for each type and operator it times; false where a run of it failed (said). */
static bool run_peer(const char *command, const struct bench_plan *plan,
                     struct bench_results *results)
{
    bool asked = false, ran = true;
    for (size_t t = 0; t < plan->n_types; t++) {
        for (size_t o = 0; o < plan->n_ops; o++) {
            char cmd[4096];
            clfold_type type = plan->types[t];
            clfold_op op = plan->ops[o];
            if (!peer_times(plan, op))
                continue;
            asked = true;
            if (peer_command(command, plan, type, op, cmd, sizeof cmd) != 0) {
                cli_error("peer \"%s\": its command line is too long", command);
                return false;
            }
            FILE *pipe = popen(cmd, "r");
            if (pipe == NULL) {
                cli_error("peer \"%s\" could not be started", command);
                ran = false;
                continue;
            }
            read_peer_rows(pipe, plan, type, op, results);
            if (pclose(pipe) != 0) {
                cli_error("peer \"%s\" failed for %s %s (see its messages above)", command,
                          clfold_type_name(type), clfold_op_name(op));
                ran = false;
            }
        }
    }
    if (!asked)
        cli_error("peer \"%s\" not run: peers time %s only", command,
                  plan->scan != NULL ? "sum, min and max scans" : "sum, argmin and argmax");
    return ran;
}

/* The command of a peer meant for `device`, past its "GPU:" or "CPU:"; NULL where it is for another type. */
static const char *peer_for(const char *peer, const struct bench_device *device)
{
    static const char *const TYPES[] = {"GPU", "CPU", "accelerator"};
    for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++) {
        size_t n = strlen(TYPES[t]);
        if (strncasecmp(peer, TYPES[t], n) == 0 && peer[n] == ':')
            return strcasecmp(TYPES[t], device->summary.type) == 0 ? peer + n + 1 : NULL;
    }
    return peer;
}

int bench_run_peers(const struct cli_args *args, const struct bench_plan *plan, struct bench_device *device)
{
    int exit_status = EXIT_OK;
    const char *was = getenv("CLFOLD_DEVICE");
    char *saved = was != NULL ? strdup(was) : NULL;
    if (device->index[0] != '\0')
        setenv("CLFOLD_DEVICE", device->index, 1); /* clfold_peer.py and pyopencl_peer.py follow it */
    for (int p = 0; p < args->n_peers; p++) {
        const char *command = peer_for(args->peers[p], device);
        if (command != NULL && !run_peer(command, plan, device->results))
            exit_status = EXIT_CHECK_FAILED;
    }
    if (saved != NULL)
        setenv("CLFOLD_DEVICE", saved, 1);
    else
        unsetenv("CLFOLD_DEVICE");
    free(saved);
    return exit_status;
}

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

int bench_merge(const struct bench_plan *plan, const struct bench_run *run, struct merge_table *table)
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
