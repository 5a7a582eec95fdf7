/*
 * compare.c: `clfold compare RUN.json...`: reads saved `clfold bench
 * --format json` documents (json.c), checks their schema, and merges every
 * device and peer of every run into one table (bench/merge.c), printed as a
 * table, CSV or JSON and drawn with --plot. Bad input (a file that is not
 * JSON, another schema or version, runs that share no rows) is exit status
 * 2 with one line on stderr, and nothing on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/document.h"
#include "bench/merge.h"
#include "commands.h"
#include "common.h"
#include "json.h"
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

/* Says what `value` is, for a message: its kind, with a string's text or a number's value. */
static void describe_value(const struct json_value *value, char *buf, size_t cap)
{
    char shown[100];
    if (value->kind == JSON_STRING)
        snprintf(buf, cap, "a string (\"%s\")", plain_text(shown, sizeof shown, value->string));
    else if (value->kind == JSON_NUMBER)
        snprintf(buf, cap, "%.15g", value->number);
    else
        snprintf(buf, cap, "%s", json_kind_name(value->kind));
}

/*
 * The member `key` of `object` where it is of `kind`; NULL where it is
 * absent (err says so, unless `optional`) or of another kind (err says
 * what it is).
 */
static const struct json_value *member_of(const struct json_value *object, const char *key,
                                          enum json_kind kind, bool optional, char *err, size_t cap)
{
    const struct json_value *value = json_member(object, key);
    char found[160];
    if (value == NULL && !optional)
        snprintf(err, cap, "it has no \"%s\"", key);
    if (value == NULL || value->kind == kind)
        return value;
    describe_value(value, found, sizeof found);
    snprintf(err, cap, "its \"%s\" is %s, not %s", key, found, json_kind_name(kind));
    return NULL;
}

/* Checks the document's schema; 0, or -1 with the reason in err, which names what was found. */
static int check_schema(const struct json_value *doc, char *err, size_t cap)
{
    const struct json_value *schema = json_member(doc, "schema");
    const struct json_value *name = json_member(schema, "name"), *version = json_member(schema, "version");
    char shown[100], found[160];
    if (schema == NULL) {
        snprintf(err, cap, "not a clfold bench run: it has no \"schema\" (an older bench's JSON? "
                 "run the bench again)");
        return -1;
    }
    if (schema->kind != JSON_OBJECT || name == NULL || name->kind != JSON_STRING) {
        if (schema->kind != JSON_OBJECT)
            snprintf(err, cap, "\"schema\" is %s, not an object", json_kind_name(schema->kind));
        else if (name == NULL)
            snprintf(err, cap, "\"schema\" has no \"name\"");
        else
            snprintf(err, cap, "\"schema\": its \"name\" is %s, not a string", json_kind_name(name->kind));
        return -1;
    }
    plain_text(shown, sizeof shown, name->string);
    if (version == NULL) {
        snprintf(err, cap, "schema \"%s\" has no \"version\" (this clfold reads %s version %d)", shown,
                 BENCH_SCHEMA_NAME, BENCH_SCHEMA_VERSION);
        return -1;
    }
    if (version->kind != JSON_NUMBER) {
        describe_value(version, found, sizeof found);
        snprintf(err, cap, "schema \"%s\": its \"version\" is %s, not a number "
                 "(this clfold reads %s version %d)", shown, found, BENCH_SCHEMA_NAME, BENCH_SCHEMA_VERSION);
        return -1;
    }
    if (strcmp(name->string, BENCH_SCHEMA_NAME) != 0 || version->number != BENCH_SCHEMA_VERSION) {
        snprintf(err, cap, "schema \"%s\" version %.15g is not one this clfold reads (%s version %d)", shown,
                 version->number, BENCH_SCHEMA_NAME, BENCH_SCHEMA_VERSION);
        return -1;
    }
    if (json_member(doc, "devices") == NULL || json_member(doc, "devices")->kind != JSON_ARRAY) {
        snprintf(err, cap, "no \"devices\" list");
        return -1;
    }
    return 0;
}

/* One row of the document as merge.c takes it; 0, or -1 with what is missing or wrong in err. */
static int row_of(const struct json_value *row, const char *shape, struct merge_row *out, char *err,
                  size_t cap)
{
    static const char *const STRINGS[] = {"source", "type", "op"};
    static const char *const NUMBERS[] = {"n", "best_ms", "gbps"};
    const struct json_value *strings[3], *numbers[3], *read;
    if (row->kind != JSON_OBJECT) {
        snprintf(err, cap, "it is %s, not an object", json_kind_name(row->kind));
        return -1;
    }
    for (size_t i = 0; i < 3; i++)
        if ((strings[i] = member_of(row, STRINGS[i], JSON_STRING, false, err, cap)) == NULL ||
            (numbers[i] = member_of(row, NUMBERS[i], JSON_NUMBER, false, err, cap)) == NULL)
            return -1;
    read = member_of(row, "read_gbps", JSON_NUMBER, true, err, cap);
    if (read == NULL && json_member(row, "read_gbps") != NULL)
        return -1;
    *out = (struct merge_row){strings[0]->string, shape, strings[1]->string, strings[2]->string, NULL,
                              numbers[0]->number, numbers[1]->number, numbers[2]->number,
                              read != NULL ? read->number : 0};
    if (strcmp(out->source, "clfold") == 0) {
        const struct json_value *kernel = member_of(row, "kernel", JSON_STRING, false, err, cap);
        if (kernel == NULL)
            return -1;
        out->kernel = kernel->string;
    }
    const char *bad = out->n < 0 ? "n" : out->best_ms <= 0 ? "best_ms" : out->gbps < 0 ? "gbps" : NULL;
    if (bad != NULL) {
        snprintf(err, cap, "its \"%s\" is %.15g, not %s", bad, json_member_number(row, bad, 0),
                 strcmp(bad, "best_ms") == 0 ? "above 0" : "0 or more");
        return -1;
    }
    return 0;
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
            char why[256];
            if (row_of(&rows->items[r], shape != NULL ? shape : "whole", &merged[r], why, sizeof why) != 0) {
                char shown[100];
                snprintf(err, cap, "device \"%s\", row %zu: %s", plain_text(shown, sizeof shown, name), r,
                         why);
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
