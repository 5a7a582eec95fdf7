/*
 * settings.c: reads the library's environment variables once, at context
 * creation, and checks each one: a value clfold cannot take fails the
 * create, naming the variable, instead of being half-read or ignored.
 */
#include "settings.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

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

/* Digits only, at most `max`; false for anything else. */
static bool parse_number(const char *text, unsigned long long max, unsigned long long *value)
{
    char *end = NULL;
    if (text[0] < '0' || text[0] > '9')
        return false;
    errno = 0;
    *value = strtoull(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && *value <= max;
}

/* A number of bytes above 0; *bytes stays 0 when the variable is unset or empty. */
static clfold_status read_bytes(clfold_context *ctx, const char *name, size_t *bytes)
{
    const char *text = getenv(name);
    unsigned long long value = 0;
    *bytes = 0;
    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    if (!parse_number(text, SIZE_MAX, &value) || value == 0)
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT,
                    "%s=\"%s\" is not a number of bytes above 0", name, text);
    *bytes = (size_t)value;
    return CLFOLD_SUCCESS;
}

static clfold_status read_shape(clfold_context *ctx, enum auto_shape *shape)
{
    const char *text = getenv("CLFOLD_AUTO_SHAPE");
    *shape = AUTO_SHAPE_OF_DEVICE;
    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    if (strcmp(text, "cpu") == 0)
        *shape = AUTO_SHAPE_CPU;
    else if (strcmp(text, "gpu") == 0)
        *shape = AUTO_SHAPE_GPU;
    else
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT,
                    "CLFOLD_AUTO_SHAPE=\"%s\" is neither cpu nor gpu", text);
    return CLFOLD_SUCCESS;
}

/* Splits "A:B:..." into exactly `count` whole numbers up to 2^20. */
static bool parse_fields(const char *text, int count, unsigned long long *parts)
{
    char copy[128];
    if (strlen(text) >= sizeof copy)
        return false;
    strcpy(copy, text);
    char *rest = copy;
    for (int i = 0; i < count; i++) {
        char *field = rest;
        char *colon = strchr(rest, ':');
        if ((colon != NULL) != (i < count - 1))
            return false;
        if (colon != NULL) {
            *colon = '\0';
            rest = colon + 1;
        }
        if (!parse_number(field, 1u << 20, &parts[i]))
            return false;
    }
    return true;
}

static bool power_of_two(unsigned long long x) { return x != 0 && (x & (x - 1)) == 0; }

/* BLOCK:GROUPS_PER_UNIT:UNROLL:SINGLE_KIB, four whole numbers; BLOCK a power of two. */
static clfold_status read_gpu_tuning(clfold_context *ctx, bool *tuned, struct gpu_tuning *gpu)
{
    const char *text = getenv("CLFOLD_GPU_SHAPE");
    unsigned long long parts[4];
    *tuned = false;
    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    if (!parse_fields(text, 4, parts) || !power_of_two(parts[0]) || parts[1] == 0 || parts[2] == 0)
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT,
                    "CLFOLD_GPU_SHAPE=\"%s\" is not BLOCK:GROUPS_PER_UNIT:UNROLL:SINGLE_KIB "
                    "(whole numbers from 0 to 1048576, BLOCK a power of two, the first three "
                    "above 0)", text);
    *gpu = (struct gpu_tuning){(unsigned)parts[0], (unsigned)parts[1], (unsigned)parts[2],
                               (unsigned)parts[3]};
    *tuned = true;
    return CLFOLD_SUCCESS;
}

/* BLOCK:RUN_ITEMS, a power of two and 1..64: the GPU scan tiles' geometry. */
static clfold_status read_scan_tuning(clfold_context *ctx, struct scan_tuning *scan)
{
    const char *text = getenv("CLFOLD_SCAN_GPU");
    unsigned long long parts[2];
    *scan = (struct scan_tuning){0, 0};
    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    if (!parse_fields(text, 2, parts) || !power_of_two(parts[0]) || parts[0] < 2 ||
        parts[1] == 0 || parts[1] > 64)
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT,
                    "CLFOLD_SCAN_GPU=\"%s\" is not BLOCK:RUN_ITEMS (BLOCK a power of two from "
                    "2 to 1048576, RUN_ITEMS 1 to 64)", text);
    *scan = (struct scan_tuning){(unsigned)parts[0], (unsigned)parts[1]};
    return CLFOLD_SUCCESS;
}

/* TILES, 0 to 2^20: how far ahead the one-launch scan prefetches; *set: false if unset or empty. */
static clfold_status read_scan_prefetch(clfold_context *ctx, bool *set, unsigned *tiles)
{
    const char *text = getenv("CLFOLD_SCAN_PREFETCH");
    unsigned long long value = 0;
    *set = false;
    *tiles = 0;
    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    if (!parse_number(text, 1u << 20, &value))
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT,
                    "CLFOLD_SCAN_PREFETCH=\"%s\" is not a number of tiles from 0 to 1048576", text);
    *set = true;
    *tiles = (unsigned)value;
    return CLFOLD_SUCCESS;
}

/* LANES, 2, 4, 8 or 16: the CPU shapes' vector width; 0 if unset or empty. */
static clfold_status read_cpu_lanes(clfold_context *ctx, unsigned *lanes)
{
    const char *text = getenv("CLFOLD_CPU_LANES");
    unsigned long long value = 0;
    *lanes = 0;
    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    if (!parse_number(text, 16, &value) || value < 2 || !power_of_two(value))
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT,
                    "CLFOLD_CPU_LANES=\"%s\" is not 2, 4, 8 or 16", text);
    *lanes = (unsigned)value;
    return CLFOLD_SUCCESS;
}

static clfold_status read_switch(clfold_context *ctx, const char *name, bool *value)
{
    const char *text = getenv(name);
    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    if (strcmp(text, "0") != 0 && strcmp(text, "1") != 0)
        return fail(ctx, CLFOLD_ERROR_INVALID_ARGUMENT, "%s=\"%s\" is neither 0 nor 1", name, text);
    *value = text[0] == '1';
    return CLFOLD_SUCCESS;
}

static clfold_status read_host_result(clfold_context *ctx, enum host_result *host_result)
{
    const char *text = getenv("CLFOLD_HOST_RESULT");
    bool any = false;
    *host_result = HOST_RESULT_NVIDIA;
    if (text == NULL || text[0] == '\0')
        return CLFOLD_SUCCESS;
    clfold_status status = read_switch(ctx, "CLFOLD_HOST_RESULT", &any);
    *host_result = any ? HOST_RESULT_ANY : HOST_RESULT_OFF;
    return status;
}

clfold_status settings_read(clfold_context *ctx, struct settings *settings)
{
    clfold_status status = CLFOLD_SUCCESS;
    bool no_warp_shuffle = false;
    settings_release(settings);
    settings->gpu_one_launch = true;
    settings->scan_lookback = true;
    CHECK(read_text(ctx, "CLFOLD_DEVICE", &settings->device));
    CHECK(read_text(ctx, "CLFOLD_KERNEL_DIR", &settings->kernel_dir));
    CHECK(check_folder(ctx, "CLFOLD_KERNEL_DIR", settings->kernel_dir));
    CHECK(read_bytes(ctx, "CLFOLD_MAX_CHUNK_BYTES", &settings->max_chunk_bytes));
    CHECK(read_bytes(ctx, "CLFOLD_LOCAL_MEM_BYTES", &settings->local_mem_bytes));
    CHECK(read_shape(ctx, &settings->shape));
    CHECK(read_cpu_lanes(ctx, &settings->cpu_lanes));
    CHECK(read_gpu_tuning(ctx, &settings->gpu_tuned, &settings->gpu));
    CHECK(read_switch(ctx, "CLFOLD_GPU_ONE_LAUNCH", &settings->gpu_one_launch));
    CHECK(read_scan_tuning(ctx, &settings->scan));
    CHECK(read_switch(ctx, "CLFOLD_SCAN_LOOKBACK", &settings->scan_lookback));
    CHECK(read_scan_prefetch(ctx, &settings->scan_prefetch_set, &settings->scan_prefetch));
    CHECK(read_switch(ctx, "CLFOLD_NO_WARP_SHUFFLE", &no_warp_shuffle));
    CHECK(read_switch(ctx, "CLFOLD_DENORMS_ARE_ZERO", &settings->denorms_are_zero));
    CHECK(read_host_result(ctx, &settings->host_result));
    settings->warp_shuffle = !no_warp_shuffle;
cleanup:
    return status;
}

void settings_release(struct settings *settings)
{
    free(settings->device);
    free(settings->kernel_dir);
    memset(settings, 0, sizeof *settings);
}
