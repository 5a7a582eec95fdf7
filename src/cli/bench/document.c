/*
 * document.c: `clfold bench --format json` and `--format csv`. The
 * JSON is one document, versioned by its schema (docs/bench-format.md,
 * bench/schema/clfold-bench-1.json): clfold's version, the host, the date,
 * the command line, and every device with what it is and its rows, clfold's
 * and its peers'. The CSV carries the same rows flat, a device per row.
 * A scan's rows say so ("scan": "inclusive"), and their GB/s count input
 * and output bytes.
 *
 * May call (below it in src/cli/bench/): run.c.
 */
#include "document.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "output.h"
#include "run.h"

/* The first "model name" of /proc/cpuinfo; "" where there is none. */
static void cpu_model(char *buf, size_t cap)
{
    char line[512];
    FILE *info = fopen("/proc/cpuinfo", "r");
    buf[0] = '\0';
    while (info != NULL && fgets(line, sizeof line, info) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL)
            continue;
        colon += strspn(colon + 1, " \t") + 1;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, cap, "%s", colon);
        break;
    }
    if (info != NULL)
        fclose(info);
}

static void print_host(void)
{
    char hostname[256] = "", cpu[256], os[512] = "";
    struct utsname uts;
    if (gethostname(hostname, sizeof hostname) != 0)
        hostname[0] = '\0';
    hostname[sizeof hostname - 1] = '\0';
    if (uname(&uts) == 0)
        snprintf(os, sizeof os, "%s %s %s", uts.sysname, uts.release, uts.machine);
    cpu_model(cpu, sizeof cpu);
    printf("\"host\": {\"hostname\": ");
    json_string(stdout, hostname);
    printf(", \"os\": ");
    json_string(stdout, os);
    printf(", \"cpu\": ");
    json_string(stdout, cpu);
    printf("}");
}

/* Now, in UTC, as ISO 8601: 2024-05-01T12:00:00Z. */
static void utc_now(char *buf, size_t cap)
{
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) == NULL || strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, cap, "1970-01-01T00:00:00Z");
}

static void print_device_fields(const struct bench_device *device)
{
    printf("\"index\": ");
    json_string(stdout, device->index);
    printf(", \"selector\": ");
    json_string(stdout, device->selector);
    printf(", ");
    json_device_members(stdout, &device->summary);
    printf(", \"error\": ");
    if (device->failure[0] != '\0')
        json_string(stdout, device->failure);
    else
        printf("null");
}

/* ', "scan": "inclusive"' for a scan's row; nothing for a reduction's. */
static void print_scan(const char *scan)
{
    if (scan != NULL)
        printf(", \"scan\": \"%s\"", scan);
}

/* A peer's GB/s: its bytes (a scan's input and output) over its best time. */
static double peer_gbps(const struct peer_row *r)
{
    return bench_bytes(r->type, r->op, r->n, r->scan != NULL) / (r->best_ms * 1e6);
}

static void print_rows(const struct bench_results *results)
{
    size_t count = 0;
    for (size_t i = 0; i < results->n_rows; i++, count++) {
        const struct bench_row *r = &results->rows[i];
        printf("%s\n    {\"source\": \"clfold\", \"type\": \"%s\", \"op\": \"%s\"",
               count ? "," : "", clfold_type_name(r->type), clfold_op_name(r->op));
        print_scan(r->scan);
        printf(", \"n\": %zu, \"kernel\": \"%s\", \"path\": \"%s\", \"best_ms\": %.6f, "
               "\"median_ms\": %.6f, \"e2e_ms\": %.6f, \"gbps\": %.3f, \"read_gbps\": %.3f, "
               "\"correct\": %s%s}",
               r->n, bench_kernel_name(r), r->path ? r->path : "", r->best_ms, r->median_ms,
               r->e2e_ms, r->gbps, r->read_gbps, r->correct ? "true" : "false",
               r->wall_timed ? ", \"timing\": \"wall\"" : "");
    }
    for (size_t p = 0; p < results->n_peers; p++, count++) {
        const struct peer_row *r = &results->peers[p];
        printf("%s\n    {\"source\": ", count ? "," : "");
        json_string(stdout, r->peer);
        printf(", \"type\": \"%s\", \"op\": \"%s\"", clfold_type_name(r->type), clfold_op_name(r->op));
        print_scan(r->scan);
        printf(", \"n\": %zu, \"best_ms\": %.6f, \"median_ms\": %.6f, \"gbps\": %.3f", r->n,
               r->best_ms, r->median_ms, peer_gbps(r));
        if (r->e2e_ms > 0)
            printf(", \"e2e_ms\": %.6f", r->e2e_ms);
        printf("}");
    }
}

void bench_print_document(const struct cli_args *args, const struct bench_plan *plan,
                          const struct bench_run *run)
{
    char date[32], shape[128];
    utc_now(date, sizeof date);
    bench_shape_describe(plan, shape, sizeof shape);
    printf("{\"schema\": {\"name\": \"%s\", \"version\": %d}, \"clfold_version\": \"%s\",\n ",
           BENCH_SCHEMA_NAME, BENCH_SCHEMA_VERSION, clfold_version_string());
    print_host();
    printf(",\n \"date\": \"%s\", \"command\": [", date);
    for (int i = 0; i < args->argc; i++) {
        printf("%s", i ? ", " : "");
        json_string(stdout, args->argv[i]);
    }
    printf("],\n \"accuracy\": \"%s\", \"shape\": ", clfold_accuracy_name(plan->accuracy));
    json_string(stdout, shape);
    printf(",\n \"devices\": [");
    for (size_t d = 0; d < run->n_devices; d++) {
        printf("%s\n  {", d ? "," : "");
        print_device_fields(&run->devices[d]);
        printf(", \"rows\": [");
        print_rows(run->devices[d].results);
        printf("]}");
    }
    printf("\n]}\n");
}

/* The first fields of every CSV row: the schema's version and the device. */
static void csv_device(const struct bench_device *device, clfold_accuracy accuracy)
{
    printf("%d,%s,", BENCH_SCHEMA_VERSION, device->index);
    csv_string(stdout, device->summary.name);
    putchar(',');
    csv_string(stdout, device->summary.driver);
    printf(",%s,", clfold_accuracy_name(accuracy));
}

void bench_print_csv(const struct bench_plan *plan, const struct bench_run *run)
{
    printf("schema_version,device_index,device,driver,accuracy,source,type,op,n,kernel,best_ms,"
           "median_ms,e2e_ms,gbps,read_gbps,correct,scan,path\n");
    for (size_t d = 0; d < run->n_devices; d++) {
        const struct bench_device *device = &run->devices[d];
        const struct bench_results *results = device->results;
        for (size_t i = 0; i < results->n_rows; i++) {
            const struct bench_row *r = &results->rows[i];
            csv_device(device, plan->accuracy);
            printf("clfold,%s,%s,%zu,%s,%.6f,%.6f,%.6f,%.3f,%.3f,%s,%s,%s\n", clfold_type_name(r->type),
                   clfold_op_name(r->op), r->n, bench_kernel_name(r), r->best_ms, r->median_ms,
                   r->e2e_ms, r->gbps, r->read_gbps, r->correct ? "true" : "false",
                   r->scan != NULL ? r->scan : "", r->path != NULL ? r->path : "");
        }
        for (size_t p = 0; p < results->n_peers; p++) {
            const struct peer_row *r = &results->peers[p];
            char e2e[32] = "";
            if (r->e2e_ms > 0)
                snprintf(e2e, sizeof e2e, "%.6f", r->e2e_ms);
            csv_device(device, plan->accuracy);
            csv_string(stdout, r->peer);
            printf(",%s,%s,%zu,,%.6f,%.6f,%s,%.3f,,,%s,\n", clfold_type_name(r->type),
                   clfold_op_name(r->op), r->n, r->best_ms, r->median_ms, e2e, peer_gbps(r),
                   r->scan != NULL ? r->scan : "");
        }
    }
}
