/*
 * compare.c: `clfold compare RUN.json...`: reads saved `clfold bench
 * --format json` documents (json.c), checks their schema, and merges every
 * device and peer of every run into one table (merge.c), printed as a
 * table, CSV or JSON and drawn with --plot. Bad input (a file that is not
 * JSON, another schema or version, runs that share no rows) is exit status
 * 2 with one line on stderr, and nothing on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "commands.h"
#include "common.h"
#include "json.h"
#include "merge.h"
#include "output.h"

#define MAX_RUN_BYTES ((size_t)256 << 20)

/*
 * Reads the whole file, at most MAX_RUN_BYTES; NULL with the reason in err.
 * A regular file's size is checked before anything is read; any other (a
 * pipe) is read into room for one byte more than the limit, so that a text
 * of exactly the limit ends there and one byte more is seen.
 */
static char *read_file(const char *path, size_t *size, char *err, size_t cap)
{
    FILE *file = fopen(path, "rb");
    struct stat about;
    char *text = NULL;
    size_t used = 0, room = 0;
    if (file == NULL) {
        snprintf(err, cap, "cannot open it");
        return NULL;
    }
    err[0] = '\0';
    if (fstat(fileno(file), &about) == 0 && S_ISREG(about.st_mode) &&
        (uintmax_t)about.st_size > MAX_RUN_BYTES)
        snprintf(err, cap, "larger than %zu MiB (%jd bytes)", MAX_RUN_BYTES >> 20, (intmax_t)about.st_size);
    while (err[0] == '\0') {
        if (used > MAX_RUN_BYTES) {
            snprintf(err, cap, "larger than %zu MiB", MAX_RUN_BYTES >> 20);
            break;
        }
        if (used == room) {
            room = room == 0 ? 65536 : 2 * room <= MAX_RUN_BYTES ? 2 * room : MAX_RUN_BYTES + 1;
            char *more = realloc(text, room);
            if (more == NULL) {
                snprintf(err, cap, "out of memory after %zu bytes of it", used);
                break;
            }
            text = more;
        }
        size_t got = fread(text + used, 1, room - used, file);
        used += got;
        if (got == 0) {
            if (ferror(file))
                snprintf(err, cap, "cannot read it");
            break;
        }
    }
    fclose(file);
    if (err[0] != '\0') {
        free(text);
        return NULL;
    }
    *size = used;
    return text;
}

/* Checks the document's schema; 0, or -1 with the reason in err. */
static int check_schema(const struct json_value *doc, char *err, size_t cap)
{
    const struct json_value *schema = json_member(doc, "schema");
    const char *name = json_member_string(schema, "name");
    double version = json_member_number(schema, "version", -1);
    if (doc->kind != JSON_OBJECT || name == NULL) {
        snprintf(err, cap, "not a clfold bench run: it has no \"schema\" (an older bench's JSON? "
                 "run the bench again)");
        return -1;
    }
    if (strcmp(name, BENCH_SCHEMA_NAME) != 0 || version != BENCH_SCHEMA_VERSION) {
        char shown[100];
        snprintf(err, cap, "schema \"%s\" version %g is not one this clfold reads (%s version %d)",
                 plain_text(shown, sizeof shown, name), version, BENCH_SCHEMA_NAME, BENCH_SCHEMA_VERSION);
        return -1;
    }
    if (json_member(doc, "devices") == NULL || json_member(doc, "devices")->kind != JSON_ARRAY) {
        snprintf(err, cap, "no \"devices\" list");
        return -1;
    }
    return 0;
}

/* One row of the document as merge.c takes it; 0, or -1 where a field is missing. */
static int row_of(const struct json_value *row, const char *shape, struct merge_row *out)
{
    out->source = json_member_string(row, "source");
    out->shape = shape;
    out->type = json_member_string(row, "type");
    out->op = json_member_string(row, "op");
    out->n = json_member_number(row, "n", -1);
    out->best_ms = json_member_number(row, "best_ms", -1);
    out->gbps = json_member_number(row, "gbps", -1);
    out->read_gbps = json_member_number(row, "read_gbps", 0);
    out->kernel = NULL;
    if (out->source != NULL && strcmp(out->source, "clfold") == 0) {
        out->kernel = json_member_string(row, "kernel");
        if (out->kernel == NULL)
            return -1;
    }
    return out->source != NULL && out->type != NULL && out->op != NULL && out->n >= 0 &&
                   out->best_ms > 0 && out->gbps >= 0 ? 0 : -1;
}

/* Adds every device of one document; 0, or -1 with the reason in err. */
static int add_run(struct merge_table *table, int run, const char *path, const struct json_value *doc,
                   char *err, size_t cap)
{
    const struct json_value *devices = json_member(doc, "devices");
    const char *shape = json_member_string(doc, "shape");
    const char *accuracy = json_member_string(doc, "accuracy");
    for (size_t d = 0; d < devices->length; d++) {
        const struct json_value *device = &devices->items[d], *rows = json_member(device, "rows");
        const char *name = json_member_string(device, "name");
        char label[160];
        if (name == NULL || rows == NULL || rows->kind != JSON_ARRAY) {
            snprintf(err, cap, "device %zu has no \"name\" or no \"rows\" list", d);
            return -1;
        }
        /* Another accuracy is another measurement: the column says which. */
        if (accuracy != NULL && strcmp(accuracy, "default") != 0)
            snprintf(label, sizeof label, "%.120s (%s)", name, accuracy);
        else
            snprintf(label, sizeof label, "%s", name);
        struct merge_row *merged = calloc(rows->length + 1, sizeof *merged);
        if (merged == NULL) {
            snprintf(err, cap, "out of memory");
            return -1;
        }
        for (size_t r = 0; r < rows->length; r++) {
            if (row_of(&rows->items[r], shape != NULL ? shape : "whole", &merged[r]) != 0) {
                char shown[100];
                snprintf(err, cap, "device \"%s\", row %zu: a field is missing or wrong",
                         plain_text(shown, sizeof shown, name), r);
                free(merged);
                return -1;
            }
        }
        int added = merge_add_device(table, run, label, path, merged, rows->length, true, err, cap);
        free(merged);
        if (added != 0)
            return -1;
    }
    return 0;
}

/* Reads, checks and merges one file; EXIT_OK or EXIT_BAD_INPUT (said). */
static int merge_file(struct merge_table *table, int run, const char *path)
{
    char err[512] = "";
    size_t size = 0;
    char *text = read_file(path, &size, err, sizeof err);
    struct json_value *doc = text != NULL ? json_parse(text, size, err, sizeof err) : NULL;
    int status = EXIT_OK;
    if (text != NULL && doc == NULL) {
        char reason[sizeof err];
        snprintf(reason, sizeof reason, "not JSON: %.480s", err);
        snprintf(err, sizeof err, "%s", reason);
    }
    if (doc == NULL || check_schema(doc, err, sizeof err) != 0 ||
        add_run(table, run, path, doc, err, sizeof err) != 0) {
        char shown[1024];
        cli_error("%s: %s", plain_text(shown, sizeof shown, path), err);
        status = EXIT_BAD_INPUT;
    }
    json_free(doc);
    free(text);
    return status;
}

int command_compare(const struct cli_args *args)
{
    struct merge_table table = {0};
    char err[512];
    int status = EXIT_OK, baseline = 0;
    for (int r = 0; r < args->n_runs && status == EXIT_OK; r++)
        status = merge_file(&table, r, args->runs[r]);
    if (status == EXIT_OK && table.n_columns == 0) {
        cli_error("the runs hold no devices");
        status = EXIT_BAD_INPUT;
    }
    if (status == EXIT_OK && args->n_runs > 1 && merge_shared_rows(&table) == 0) {
        cli_error("the runs share no rows: no (type, operator, size, kernel) was measured in two of "
                  "them");
        status = EXIT_BAD_INPUT;
    }
    if (status == EXIT_OK && (baseline = merge_baseline(&table, args->baseline, err, sizeof err)) < 0) {
        cli_error("%s", err);
        status = EXIT_BAD_INPUT;
    }
    if (status == EXIT_OK) {
        merge_sort(&table);
        merge_print(&table, (size_t)baseline, args->format);
        if (args->plot != NULL && merge_plot(&table, args->plot, "clfold compare: GB/s against size") != 0)
            status = EXIT_CHECK_FAILED;
    }
    merge_release(&table);
    return status;
}
