/*
 * settings.c: the parameters' table, and everything that goes through it:
 * reading the environment once, at context creation (a value clfold cannot
 * take fails the create, naming the variable and the parameter, instead of
 * being half-read or ignored), clfold_set_param and clfold_get_param, and
 * the descriptions that programs list. CLFOLD_DEVICE and CLFOLD_KERNEL_DIR
 * are read here too, at create only.
 */
#include "settings.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "device.h"
#include "types.h"

#define AUTO CLFOLD_PARAM_AUTO
#define MAX_2_20 ((int64_t)1 << 20)
#define MOST_BYTES ((int64_t)(SIZE_MAX < INT64_MAX ? SIZE_MAX : INT64_MAX))

/* A parameter: what clfold_describe_param tells, and the field of struct settings it sets. */
struct param_row {
    clfold_param_info info;
    size_t field;
};

/*
 * One row a parameter, at its clfold_param's index: name, variable and the
 * field of its colon-separated value, min, max, powers of two only, takes
 * auto, the variable's words for min.., default, the struct settings field,
 * and what it does. docs/environment.md shows the same table.
 */
#define PARAM(id, name, env, env_field, min, max, pow2, takes_auto, words, fallback, member, doc) \
    [id] = {{name, env, env_field, min, max, pow2, takes_auto, words, fallback, doc},                \
            offsetof(struct settings, member)}

static const struct param_row PARAMS[] = {
    PARAM(CLFOLD_PARAM_AUTO_SHAPE, "auto_shape", "CLFOLD_AUTO_SHAPE", 0, 0, 1, 0, 1, "cpu|gpu",
          AUTO, auto_shape, "the auto paths' shape on any device; auto: the device's own"),
    PARAM(CLFOLD_PARAM_CPU_LANES, "cpu_lanes", "CLFOLD_CPU_LANES", 0, 2, 16, 1, 1, NULL, AUTO,
          cpu_lanes, "the CPU shapes' vector width in lanes; auto: the device's preferred width"),
    PARAM(CLFOLD_PARAM_GPU_BLOCK, "gpu_block", "CLFOLD_GPU_SHAPE", 0, 1, MAX_2_20, 1, 1, NULL,
          AUTO, gpu_block, "the GPU shape's work-group size; auto: the shape's own"),
    PARAM(CLFOLD_PARAM_GPU_GROUPS_PER_UNIT, "gpu_groups_per_unit", "CLFOLD_GPU_SHAPE", 1, 1,
          MAX_2_20, 0, 1, NULL, AUTO, gpu_groups_per_unit,
          "the GPU shape's work-groups a compute unit; auto: the shape's own"),
    PARAM(CLFOLD_PARAM_GPU_UNROLL, "gpu_unroll", "CLFOLD_GPU_SHAPE", 2, 1, MAX_2_20, 0, 1, NULL,
          AUTO, gpu_unroll, "the GPU shape's 16-byte loads in flight a work-item; auto: the shape's own"),
    PARAM(CLFOLD_PARAM_GPU_SINGLE_KIB, "gpu_single_kib", "CLFOLD_GPU_SHAPE", 3, 0, MAX_2_20, 0, 1,
          NULL, AUTO, gpu_single_kib,
          "arrays of at most this many KiB take one work-group of the GPU shape; auto: the shape's own"),
    PARAM(CLFOLD_PARAM_GPU_ONE_LAUNCH, "gpu_one_launch", "CLFOLD_GPU_ONE_LAUNCH", 0, 0, 1, 0, 0,
          NULL, 1, gpu_one_launch,
          "1: NVIDIA's GPU shape in one launch, the last group folding the partial values; 0: two"),
    PARAM(CLFOLD_PARAM_HOST_RESULT, "host_result", "CLFOLD_HOST_RESULT", 0, 0, 1, 0, 1, NULL,
          AUTO, host_result,
          "1: the GPU shape writes a blocking value into host memory on any device; 0: nowhere; "
          "auto: where NVIDIA's driver can"),
    PARAM(CLFOLD_PARAM_SCAN_GPU_BLOCK, "scan_gpu_block", "CLFOLD_SCAN_GPU", 0, 2, MAX_2_20, 1, 1,
          NULL, AUTO, scan_gpu_block, "the GPU scan tiles' work-group size; auto: the scan's own"),
    PARAM(CLFOLD_PARAM_SCAN_GPU_RUN_ITEMS, "scan_gpu_run_items", "CLFOLD_SCAN_GPU", 1, 1, 64, 0,
          1, NULL, AUTO, scan_gpu_run_items,
          "the GPU scan tiles' elements a work-item; auto: the scan's own"),
    PARAM(CLFOLD_PARAM_SCAN_PREFETCH, "scan_prefetch", "CLFOLD_SCAN_PREFETCH", 0, 0, MAX_2_20, 0,
          1, NULL, AUTO, scan_prefetch,
          "tiles ahead NVIDIA's one-launch scan asks L2 for; 0: none; auto: 256 work-items' worth "
          "a compute unit"),
    PARAM(CLFOLD_PARAM_SCAN_LOOKBACK, "scan_lookback", "CLFOLD_SCAN_LOOKBACK", 0, 0, 1, 0, 0,
          NULL, 1, scan_lookback, "1: NVIDIA's one-launch look-back scan; 0: three launches"),
    PARAM(CLFOLD_PARAM_NO_WARP_SHUFFLE, "no_warp_shuffle", "CLFOLD_NO_WARP_SHUFFLE", 0, 0, 1, 0,
          0, NULL, 0, no_warp_shuffle, "1: barriers in place of NVIDIA's shfl.sync"),
    PARAM(CLFOLD_PARAM_DENORMS_ARE_ZERO, "denorms_are_zero", "CLFOLD_DENORMS_ARE_ZERO", 0, 0, 1,
          0, 0, NULL, 0, denorms_are_zero,
          "1: kernels built with -cl-denorms-are-zero, the device taken as flushing float "
          "subnormals"),
    PARAM(CLFOLD_PARAM_MAX_CHUNK_BYTES, "max_chunk_bytes", "CLFOLD_MAX_CHUNK_BYTES", 0, 1,
          MOST_BYTES, 0, 1, NULL, AUTO, max_chunk_bytes,
          "clfold_reduce_host's chunks at most this many bytes; auto: the device's largest buffer"),
    PARAM(CLFOLD_PARAM_LOCAL_MEM_BYTES, "local_mem_bytes", "CLFOLD_LOCAL_MEM_BYTES", 0, 1,
          MOST_BYTES, 0, 1, NULL, AUTO, local_mem_bytes,
          "the device's local memory taken as at most this many bytes; auto: as reported"),
};

#define PARAM_COUNT ((int)(sizeof PARAMS / sizeof PARAMS[0]))
/* A new clfold_param comes last, with its row: the table ends at the last one. */
_Static_assert(PARAM_COUNT == CLFOLD_PARAM_LOCAL_MEM_BYTES + 1, "a row for every clfold_param");

static const struct param_row *param_row(clfold_param param)
{
    return (unsigned)param < (unsigned)PARAM_COUNT ? &PARAMS[param] : NULL;
}

static int64_t *param_field(struct settings *settings, const struct param_row *row)
{
    return (int64_t *)((char *)settings + row->field);
}

/* Whether `value` is one of the parameter's values. */
static bool param_takes(const clfold_param_info *p, int64_t value)
{
    if (value == AUTO)
        return p->takes_auto != 0;
    return value >= p->min && value <= p->max && (!p->powers_of_two || (value & (value - 1)) == 0);
}

/* The parameter's values in words, as every refusal says them: "a power of two from 2 to 16, or auto". */
static void describe_values(const clfold_param_info *p, char *buf, size_t cap)
{
    const char *or_auto = p->takes_auto ? ", or auto" : "";
    if (p->words != NULL) {
        const char *bar = strchr(p->words, '|');
        /* Two words at most, so far: "cpu or gpu". */
        snprintf(buf, cap, "%.*s or %s%s", (int)(bar - p->words), p->words, bar + 1, or_auto);
    } else if (p->min == 0 && p->max == 1) {
        snprintf(buf, cap, "0 or 1%s", or_auto);
    } else {
        snprintf(buf, cap, "%s from %lld to %lld%s",
                 p->powers_of_two ? "a power of two" : "a whole number", (long long)p->min,
                 (long long)p->max, or_auto);
    }
}

/* The refusal of `value` (its text as given), one form whether it came from a variable or a call. */
static clfold_status refuse(clfold_context *ctx, const char *where, const clfold_param_info *p,
                            const char *value, int value_length)
{
    char values[128];
    describe_values(p, values, sizeof values);
    return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT, "%s%s=%.*s is not %s", where, p->name,
                value_length, value, values);
}

/* Digits only, at most INT64_MAX; false for anything else. */
static bool parse_digits(const char *text, size_t length, int64_t *value)
{
    int64_t v = 0;
    if (length == 0)
        return false;
    for (size_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9' || v > (INT64_MAX - (text[i] - '0')) / 10)
            return false;
        v = v * 10 + (text[i] - '0');
    }
    *value = v;
    return true;
}

/* The value `text` spells for the parameter: "auto", one of its words, or digits. */
static bool parse_value(const clfold_param_info *p, const char *text, size_t length, int64_t *value)
{
    if (length == 4 && strncmp(text, "auto", 4) == 0) {
        *value = AUTO;
        return true;
    }
    if (p->words == NULL)
        return parse_digits(text, length, value);
    int64_t index = p->min;
    for (const char *word = p->words; *word != '\0'; index++) {
        size_t word_length = strcspn(word, "|");
        if (word_length == length && strncmp(word, text, length) == 0) {
            *value = index;
            return true;
        }
        word += word_length + (word[word_length] == '|');
    }
    return false;
}

/* How many fields the variable's value has: one a parameter that names it. */
static unsigned env_fields(const char *env)
{
    unsigned fields = 0;
    for (int i = 0; i < PARAM_COUNT; i++)
        fields += strcmp(PARAMS[i].info.env, env) == 0;
    return fields;
}

/* The parameter's value from its variable's text: its field of the colon-separated fields. */
static clfold_status read_param(clfold_context *ctx, const struct param_row *row,
                                struct settings *settings)
{
    const clfold_param_info *p = &row->info;
    const char *text = getenv(p->env), *field;
    unsigned fields = env_fields(p->env), colons = 0;
    char where[512];
    int64_t value = 0;

    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    for (const char *c = text; *c != '\0'; c++)
        colons += *c == ':';
    if (colons != fields - 1) {
        char names[256] = "";
        for (int i = 0; i < PARAM_COUNT; i++)
            if (strcmp(PARAMS[i].info.env, p->env) == 0)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         names[0] != '\0' ? ":" : "", PARAMS[i].info.name);
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT, "%s=\"%s\" has %u fields; it takes %u, %s",
                    p->env, text, colons + 1, fields, names);
    }
    snprintf(where, sizeof where, "%s=\"%s\": ", p->env, text);
    field = text;
    for (unsigned i = 0; i < p->env_field; i++)
        field = strchr(field, ':') + 1;
    size_t length = strcspn(field, ":");
    if (!parse_value(p, field, length, &value) || !param_takes(p, value))
        return refuse(ctx, where, p, field, (int)length);
    *param_field(settings, row) = value;
    return CLFOLD_SUCCESS;
}

/* A copy of the variable's value; NULL when it is unset or empty. */
static clfold_status read_text(clfold_context *ctx, const char *name, char **out)
{
    const char *text = getenv(name);
    *out = NULL;
    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    *out = malloc(strlen(text) + 1);
    if (*out == NULL)
        return fail(ctx, CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for %s", name);
    strcpy(*out, text);
    return CLFOLD_SUCCESS;
}

/* A folder that exists, where `path` is set: a missing one fails the create, not the first build. */
static clfold_status check_folder(clfold_context *ctx, const char *name, const char *path)
{
    struct stat st;
    if (path == NULL)
        return CLFOLD_SUCCESS;
    if (stat(path, &st) != 0)
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT, "%s=\"%s\": %s", name, path,
                    strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT, "%s=\"%s\" is not a folder", name, path);
    return CLFOLD_SUCCESS;
}

clfold_status settings_read(clfold_context *ctx, struct settings *settings)
{
    clfold_status status = CLFOLD_SUCCESS;
    settings_release(settings);
    for (int i = 0; i < PARAM_COUNT; i++)
        *param_field(settings, &PARAMS[i]) = PARAMS[i].info.default_value;
    CHECK(read_text(ctx, "CLFOLD_DEVICE", &settings->device));
    CHECK(read_text(ctx, "CLFOLD_KERNEL_DIR", &settings->kernel_dir));
    CHECK(check_folder(ctx, "CLFOLD_KERNEL_DIR", settings->kernel_dir));
    for (int i = 0; i < PARAM_COUNT; i++)
        CHECK(read_param(ctx, &PARAMS[i], settings));
cleanup:
    return status;
}

void settings_release(struct settings *settings)
{
    free(settings->device);
    free(settings->kernel_dir);
    memset(settings, 0, sizeof *settings);
}

clfold_status clfold_set_param(clfold_context *ctx, clfold_param param, int64_t value)
{
    if (ctx == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    const struct param_row *row = param_row(param);
    if (row == NULL)
        return fail(ctx, CLFOLD_ERROR_INVALID_PARAM, "unknown parameter %d", (int)param);
    if (!param_takes(&row->info, value)) {
        char text[24];
        int length = snprintf(text, sizeof text, "%lld", (long long)value);
        return refuse(ctx, "", &row->info, text, length);
    }
    *param_field(&ctx->settings, row) = value;
    /* The device's capabilities as kernels take them (local memory, subnormals, shuffles). */
    device_apply_settings(ctx);
    return CLFOLD_SUCCESS;
}

clfold_status clfold_get_param(const clfold_context *ctx, clfold_param param, int64_t *value)
{
    const struct param_row *row = param_row(param);
    if (ctx == NULL || value == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (row == NULL)
        return CLFOLD_ERROR_INVALID_PARAM;
    *value = *(const int64_t *)((const char *)&ctx->settings + row->field);
    return CLFOLD_SUCCESS;
}

int clfold_param_count(void) { return PARAM_COUNT; }

clfold_status clfold_describe_param(clfold_param param, clfold_param_info *info)
{
    const struct param_row *row = param_row(param);
    if (info == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (row == NULL)
        return CLFOLD_ERROR_INVALID_PARAM;
    *info = row->info;
    return CLFOLD_SUCCESS;
}

const char *clfold_param_name(clfold_param param)
{
    const struct param_row *row = param_row(param);
    return row != NULL ? row->info.name : NULL;
}

clfold_status clfold_param_from_name(const char *name, clfold_param *param)
{
    int index = name_index(name, PARAMS, PARAM_COUNT, sizeof PARAMS[0],
                           offsetof(struct param_row, info.name));
    if (param == NULL)
        return CLFOLD_ERROR_INVALID_ARGUMENT;
    if (index < 0)
        return CLFOLD_ERROR_INVALID_PARAM;
    *param = (clfold_param)index;
    return CLFOLD_SUCCESS;
}
