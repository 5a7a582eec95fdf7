/*
 * test_params.c: a context's parameters (clfold_set_param, clfold_get_param
 * and the environment variables that give their first values; the table
 * of src/core/settings.c). Checked:
 *   - the table: every parameter described, named both ways, its default
 *     one of its values; unknown parameters and names refused;
 *   - defaults: with no variable set each parameter has its default, and a
 *     variable gives its value (a field of CLFOLD_GPU_SHAPE each of its four);
 *   - set and get: every parameter takes its bounds and auto where it
 *     takes auto, and gives them back;
 *   - refusals: every value out of range, not a power of two, or auto
 *     where it is none is refused with CLFOLD_ERROR_INVALID_ARGUMENT and a
 *     message that names the parameter and its values, and the parameter
 *     keeps its value; an unknown one is CLFOLD_ERROR_INVALID_PARAM;
 *   - the environment and clfold_set_param take the same values and refuse
 *     the others in the same words;
 *   - effects: on a context whose kernels are already built, each
 *     parameter that this device lets show changes what runs (the path,
 *     the block, the passes, the build options), and the results stay
 *     right. (host_result's effect is test_landing's: it needs its shim.)
 *   - docs/environment.md's table lists exactly the table's variables, each
 *     with its parameters in field order.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */

#include "util.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static clfold_param_info info_of(int p)
{
    clfold_param_info info;
    memset(&info, 0, sizeof info);
    EXPECT_STATUS(NULL, clfold_describe_param((clfold_param)p, &info), CLFOLD_SUCCESS);
    return info;
}

static int64_t get(clfold_context *ctx, clfold_param p)
{
    int64_t value = -12345;
    EXPECT_STATUS(ctx, clfold_get_param(ctx, p, &value), CLFOLD_SUCCESS);
    return value;
}

static void set(clfold_context *ctx, clfold_param p, int64_t value)
{
    EXPECT_STATUS(ctx, clfold_set_param(ctx, p, value), CLFOLD_SUCCESS);
}

/* Every parameter's variable unset: the test's own values only. */
static void unset_all(void)
{
    for (int p = 0; p < clfold_param_count(); p++)
        unsetenv(info_of(p).env);
}

/* How many parameters take their first value from `env`. */
static unsigned fields_of(const char *env)
{
    unsigned fields = 0;
    for (int p = 0; p < clfold_param_count(); p++)
        fields += strcmp(info_of(p).env, env) == 0;
    return fields;
}

/* `env`'s value with `text` at `field` and "auto" in every other field. */
static void spell(char *buf, size_t cap, const clfold_param_info *info, const char *text)
{
    unsigned fields = fields_of(info->env);
    buf[0] = '\0';
    for (unsigned f = 0; f < fields; f++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", f ? ":" : "",
                 f == info->env_field ? text : "auto");
}

/* How the variable spells `value`: auto, one of the words, or its digits. */
static void text_of(char *buf, size_t cap, const clfold_param_info *info, int64_t value)
{
    if (value == CLFOLD_PARAM_AUTO) {
        snprintf(buf, cap, "auto");
    } else if (info->words != NULL && value >= info->min && value <= info->max) {
        const char *word = info->words;
        for (int64_t i = info->min; i < value; i++)
            word = strchr(word, '|') + 1;
        snprintf(buf, cap, "%.*s", (int)strcspn(word, "|"), word);
    } else {
        snprintf(buf, cap, "%lld", (long long)value);
    }
}

/* The part of a refusal that says the parameter's values. */
static void values_words(char *buf, size_t cap, const clfold_param_info *info)
{
    if (info->words != NULL)
        snprintf(buf, cap, "%.*s or ", (int)strcspn(info->words, "|"), info->words);
    else if (info->min == 0 && info->max == 1)
        snprintf(buf, cap, "0 or 1");
    else
        snprintf(buf, cap, "from %lld to %lld", (long long)info->min, (long long)info->max);
}

/* Values around the parameter's bounds, with auto, -2 and 3; `count` of them. */
static size_t candidates(const clfold_param_info *info, int64_t *values)
{
    size_t count = 0;
    values[count++] = CLFOLD_PARAM_AUTO;
    values[count++] = -2;
    values[count++] = 3;
    values[count++] = INT64_MIN;
    values[count++] = info->min;
    values[count++] = info->min + 1;
    values[count++] = info->max;
    if (info->min > INT64_MIN + 1)
        values[count++] = info->min - 1;
    if (info->max < INT64_MAX)
        values[count++] = info->max + 1;
    if (info->max > info->min)
        values[count++] = info->max - 1;
    return count;
}

static bool takes(const clfold_param_info *info, int64_t value)
{
    if (value == CLFOLD_PARAM_AUTO)
        return info->takes_auto;
    return value >= info->min && value <= info->max &&
           (!info->powers_of_two || (value & (value - 1)) == 0);
}

/* ---- the table ---------------------------------------------------------------------------- */

static void test_table(void)
{
    clfold_param_info info;
    clfold_param found;
    int count = clfold_param_count();
    EXPECT(count == CLFOLD_PARAM_LOCAL_MEM_BYTES + 1, "%d parameters", count);
    for (int p = 0; p < count; p++) {
        info = info_of(p);
        EXPECT(info.name != NULL && info.env != NULL && info.doc != NULL && info.doc[0] != '\0',
               "parameter %d is not described", p);
        if (info.name == NULL || info.env == NULL)
            continue;
        EXPECT(strncmp(info.env, "CLFOLD_", 7) == 0 && info.min <= info.max &&
                   info.env_field < fields_of(info.env) && takes(&info, info.default_value),
               "%s: variable %s field %u, %lld to %lld, default %lld", info.name, info.env,
               info.env_field, (long long)info.min, (long long)info.max,
               (long long)info.default_value);
        const char *name = clfold_param_name((clfold_param)p);
        EXPECT(name != NULL && strcmp(name, info.name) == 0, "%s named %s", info.name,
               name ? name : "(null)");
        char upper[64];
        size_t i = 0;
        for (; info.name[i] != '\0' && i + 1 < sizeof upper; i++)
            upper[i] = (char)(info.name[i] >= 'a' && info.name[i] <= 'z' ? info.name[i] - 32
                                                                         : info.name[i]);
        upper[i] = '\0';
        EXPECT(clfold_param_from_name(upper, &found) == CLFOLD_SUCCESS && found == (clfold_param)p,
               "%s from its name", upper);
        for (int q = 0; q < p; q++)
            EXPECT(strcmp(info_of(q).name, info.name) != 0, "two parameters named %s", info.name);
    }
    EXPECT(clfold_describe_param((clfold_param)count, &info) == CLFOLD_ERROR_INVALID_PARAM &&
               clfold_describe_param((clfold_param)-1, &info) == CLFOLD_ERROR_INVALID_PARAM &&
               clfold_describe_param(CLFOLD_PARAM_GPU_BLOCK, NULL) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "describing a parameter that is not one");
    EXPECT(clfold_param_name((clfold_param)count) == NULL &&
               clfold_param_from_name("gpu_blocks", &found) == CLFOLD_ERROR_INVALID_PARAM &&
               clfold_param_from_name(NULL, &found) == CLFOLD_ERROR_INVALID_PARAM &&
               clfold_param_from_name("gpu_block", NULL) == CLFOLD_ERROR_INVALID_ARGUMENT,
           "names of parameters that are not one");
    EXPECT(strcmp(clfold_status_string(CLFOLD_ERROR_INVALID_PARAM), "CLFOLD_ERROR_INVALID_PARAM") == 0,
           "CLFOLD_ERROR_INVALID_PARAM's name");
}

/* ---- defaults, set and get, refusals ------------------------------------------------------ */

static void test_defaults(clfold_context *ctx)
{
    for (int p = 0; p < clfold_param_count(); p++) {
        clfold_param_info info = info_of(p);
        EXPECT(get(ctx, (clfold_param)p) == info.default_value, "%s is %lld, default %lld",
               info.name, (long long)get(ctx, (clfold_param)p), (long long)info.default_value);
    }
    /* The variables' values, CLFOLD_GPU_SHAPE's a field each. */
    setenv("CLFOLD_GPU_SHAPE", "64:auto:2:0", 1);
    setenv("CLFOLD_AUTO_SHAPE", "cpu", 1);
    setenv("CLFOLD_HOST_RESULT", "0", 1);
    setenv("CLFOLD_SCAN_PREFETCH", "auto", 1);
    setenv("CLFOLD_MAX_CHUNK_BYTES", "4096", 1);
    clfold_context *from_env = test_context();
    unset_all();
    if (from_env == NULL)
        return;
    EXPECT(get(from_env, CLFOLD_PARAM_GPU_BLOCK) == 64 &&
               get(from_env, CLFOLD_PARAM_GPU_GROUPS_PER_UNIT) == CLFOLD_PARAM_AUTO &&
               get(from_env, CLFOLD_PARAM_GPU_UNROLL) == 2 &&
               get(from_env, CLFOLD_PARAM_GPU_SINGLE_KIB) == 0,
           "CLFOLD_GPU_SHAPE=64:auto:2:0 gave %lld:%lld:%lld:%lld",
           (long long)get(from_env, CLFOLD_PARAM_GPU_BLOCK),
           (long long)get(from_env, CLFOLD_PARAM_GPU_GROUPS_PER_UNIT),
           (long long)get(from_env, CLFOLD_PARAM_GPU_UNROLL),
           (long long)get(from_env, CLFOLD_PARAM_GPU_SINGLE_KIB));
    EXPECT(get(from_env, CLFOLD_PARAM_AUTO_SHAPE) == CLFOLD_SHAPE_CPU &&
               get(from_env, CLFOLD_PARAM_HOST_RESULT) == 0 &&
               get(from_env, CLFOLD_PARAM_SCAN_PREFETCH) == CLFOLD_PARAM_AUTO &&
               get(from_env, CLFOLD_PARAM_MAX_CHUNK_BYTES) == 4096,
           "the variables' values");
    /* Read once: a variable set later changes nothing. */
    setenv("CLFOLD_AUTO_SHAPE", "gpu", 1);
    EXPECT(get(from_env, CLFOLD_PARAM_AUTO_SHAPE) == CLFOLD_SHAPE_CPU, "a later variable counted");
    unsetenv("CLFOLD_AUTO_SHAPE");
    clfold_destroy(from_env);
}

static void test_set_and_get(clfold_context *ctx)
{
    for (int p = 0; p < clfold_param_count(); p++) {
        clfold_param_info info = info_of(p);
        int64_t values[4] = {info.min, info.max, CLFOLD_PARAM_AUTO, info.default_value};
        for (int v = 0; v < 4; v++) {
            if (values[v] == CLFOLD_PARAM_AUTO && !info.takes_auto)
                continue;
            set(ctx, (clfold_param)p, values[v]);
            EXPECT(get(ctx, (clfold_param)p) == values[v], "%s set to %lld gives %lld", info.name,
                   (long long)values[v], (long long)get(ctx, (clfold_param)p));
        }
    }
}

/* A refused value: the status, a message naming the parameter and its values, the old value kept. */
static void expect_refused(clfold_context *ctx, const clfold_param_info *info, clfold_param p,
                           int64_t value)
{
    char words[96];
    int64_t before = get(ctx, p);
    values_words(words, sizeof words, info);
    EXPECT_STATUS(ctx, clfold_set_param(ctx, p, value), CLFOLD_ERROR_INVALID_ARGUMENT);
    const char *message = clfold_last_error(ctx);
    EXPECT(strstr(message, info->name) != NULL && strstr(message, words) != NULL &&
               (strstr(message, "auto") != NULL) == (info->takes_auto != 0),
           "%s=%lld refused with \"%s\"", info->name, (long long)value, message);
    EXPECT(get(ctx, p) == before, "%s=%lld refused, yet it is %lld", info->name, (long long)value,
           (long long)get(ctx, p));
}

static void test_refusals(clfold_context *ctx)
{
    int64_t values[16];
    size_t refused = 0;
    for (int p = 0; p < clfold_param_count(); p++) {
        clfold_param_info info = info_of(p);
        /* A value other than the default, so that a refusal that stored would show. */
        set(ctx, (clfold_param)p, info.max);
        size_t count = candidates(&info, values);
        for (size_t v = 0; v < count; v++) {
            if (!takes(&info, values[v])) {
                expect_refused(ctx, &info, (clfold_param)p, values[v]);
                refused++;
            }
        }
        set(ctx, (clfold_param)p, info.default_value);
    }
    EXPECT(refused > (size_t)clfold_param_count() * 3, "only %zu refusals", refused);
    /* Within the bounds, yet no power of two. */
    const struct {
        clfold_param param;
        int64_t value;
    } odd[] = {{CLFOLD_PARAM_CPU_LANES, 12}, {CLFOLD_PARAM_GPU_BLOCK, 96},
               {CLFOLD_PARAM_SCAN_GPU_BLOCK, 1000}};
    for (size_t i = 0; i < 3; i++) {
        clfold_param_info info = info_of(odd[i].param);
        expect_refused(ctx, &info, odd[i].param, odd[i].value);
    }
    /* Unknown parameters. */
    int64_t value = 0;
    clfold_param unknown[] = {(clfold_param)clfold_param_count(), (clfold_param)-1,
                              (clfold_param)1000};
    for (size_t i = 0; i < 3; i++) {
        EXPECT_STATUS(ctx, clfold_set_param(ctx, unknown[i], 0), CLFOLD_ERROR_INVALID_PARAM);
        char number[24];
        snprintf(number, sizeof number, "%d", (int)unknown[i]);
        EXPECT(strstr(clfold_last_error(ctx), "parameter") != NULL &&
                   strstr(clfold_last_error(ctx), number) != NULL,
               "unknown parameter %d: \"%s\"", (int)unknown[i], clfold_last_error(ctx));
        EXPECT_STATUS(ctx, clfold_get_param(ctx, unknown[i], &value), CLFOLD_ERROR_INVALID_PARAM);
    }
    EXPECT_STATUS(NULL, clfold_set_param(NULL, CLFOLD_PARAM_GPU_BLOCK, 64),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(NULL, clfold_get_param(NULL, CLFOLD_PARAM_GPU_BLOCK, &value),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(ctx, clfold_get_param(ctx, CLFOLD_PARAM_GPU_BLOCK, NULL),
                  CLFOLD_ERROR_INVALID_ARGUMENT);
    /* A refusal leaves the context usable, and a success clears the message. */
    set(ctx, CLFOLD_PARAM_GPU_BLOCK, 64);
    EXPECT(clfold_last_error(ctx)[0] == '\0', "a success kept \"%s\"", clfold_last_error(ctx));
    set(ctx, CLFOLD_PARAM_GPU_BLOCK, CLFOLD_PARAM_AUTO);
}

/* ---- the environment and clfold_set_param agree ----------------------------------------- */

static void test_env_agrees(clfold_context *ctx)
{
    int64_t values[16];
    char text[32], spelled[160], set_message[256];
    size_t created = 0;
    for (int p = 0; p < clfold_param_count(); p++) {
        clfold_param_info info = info_of(p);
        size_t count = candidates(&info, values);
        for (size_t v = 0; v < count; v++) {
            clfold_status by_set = clfold_set_param(ctx, (clfold_param)p, values[v]);
            snprintf(set_message, sizeof set_message, "%s", clfold_last_error(ctx));
            text_of(text, sizeof text, &info, values[v]);
            spell(spelled, sizeof spelled, &info, text);
            setenv(info.env, spelled, 1);
            clfold_context *made = NULL;
            clfold_status by_env = clfold_create(&made, NULL);
            unsetenv(info.env);
            EXPECT(by_set == by_env, "%s=%lld: clfold_set_param %s, %s=\"%s\" %s", info.name,
                   (long long)values[v], clfold_status_string(by_set), info.env, spelled,
                   clfold_status_string(by_env));
            if (by_env == CLFOLD_SUCCESS && made != NULL) {
                created++;
                EXPECT(get(made, (clfold_param)p) == values[v], "%s=\"%s\" gave %s=%lld",
                       info.env, spelled, info.name, (long long)get(made, (clfold_param)p));
            } else if (by_set != CLFOLD_SUCCESS) {
                /* One form, "name=value is not values", the value as each was given. */
                const char *values_part = strstr(set_message, " is not ");
                char named[80];
                snprintf(named, sizeof named, "%s=%s is not ", info.name, text);
                EXPECT(values_part != NULL && strncmp(set_message, info.name, strlen(info.name)) == 0 &&
                           strstr(clfold_last_error(NULL), values_part) != NULL &&
                           strstr(clfold_last_error(NULL), named) != NULL &&
                           strstr(clfold_last_error(NULL), info.env) != NULL,
                       "%s=\"%s\" refused with \"%s\"; clfold_set_param with \"%s\"", info.env,
                       spelled, clfold_last_error(NULL), set_message);
            }
            clfold_destroy(made);
        }
        set(ctx, (clfold_param)p, info.default_value);
    }
    EXPECT(created > (size_t)clfold_param_count(), "only %zu contexts made", created);
    /* What only a variable can get wrong: the number of fields, and text. */
    const char *const bad[][2] = {{"CLFOLD_GPU_SHAPE", "512:4:4"}, {"CLFOLD_GPU_SHAPE", "512:4:4:256:1"},
                                  {"CLFOLD_SCAN_GPU", "256"},      {"CLFOLD_SCAN_PREFETCH", "1:2"},
                                  {"CLFOLD_AUTO_SHAPE", "GPU"},    {"CLFOLD_AUTO_SHAPE", "0"},
                                  {"CLFOLD_CPU_LANES", "8 "},      {"CLFOLD_CPU_LANES", "+8"},
                                  {"CLFOLD_HOST_RESULT", "-1"},    {"CLFOLD_GPU_SHAPE", "512::4:256"},
                                  {"CLFOLD_LOCAL_MEM_BYTES", "99999999999999999999"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clfold_context *made = NULL;
        setenv(bad[i][0], bad[i][1], 1);
        EXPECT_STATUS(NULL, clfold_create(&made, NULL), CLFOLD_ERROR_INVALID_ARGUMENT);
        unsetenv(bad[i][0]);
        EXPECT(made == NULL && strstr(clfold_last_error(NULL), bad[i][0]) != NULL,
               "%s=\"%s\": \"%s\"", bad[i][0], bad[i][1], clfold_last_error(NULL));
        clfold_destroy(made);
    }
}

/* ---- effects ------------------------------------------------------------------------------ */

#define N_SUM 65536

/* An int32 sum of N_SUM values (or `n`), checked; its run in *info and its options in `options`. */
static void sum_checked(clfold_context *ctx, size_t n, clfold_run_info *info, char *options,
                        const char *why)
{
    static int32_t data[N_SUM];
    int64_t want = 0, got = 0;
    for (size_t i = 0; i < n; i++) {
        data[i] = (int32_t)(i % 1000) - 400;
        want += data[i];
    }
    memset(info, 0, sizeof *info);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, n, CLFOLD_INT32, CLFOLD_SUM, &got),
                  CLFOLD_SUCCESS);
    EXPECT(got == want, "%s: sum %lld, want %lld", why, (long long)got, (long long)want);
    EXPECT_STATUS(ctx, clfold_last_run(ctx, info), CLFOLD_SUCCESS);
    snprintf(options, 1024, "%s", clfold_last_build_options(ctx));
}

/* An inclusive int32 scan of 5000 values, checked; its run in *info and its options. */
static void scan_checked(clfold_context *ctx, clfold_run_info *info, char *options, const char *why)
{
    static int32_t data[5000];
    static int64_t got[5000];
    int64_t want = 0;
    for (int i = 0; i < 5000; i++)
        data[i] = i % 17 - 8;
    memset(info, 0, sizeof *info);
    EXPECT_STATUS(ctx, clfold_scan_host(ctx, data, 5000, CLFOLD_INT32, CLFOLD_SUM, CLFOLD_INCLUSIVE,
                                        got),
                  CLFOLD_SUCCESS);
    for (int i = 0; i < 5000; i++) {
        want += data[i];
        if (got[i] != want) {
            EXPECT(got[i] == want, "%s: element %d is %lld, want %lld", why, i, (long long)got[i],
                   (long long)want);
            break;
        }
    }
    EXPECT_STATUS(ctx, clfold_last_run(ctx, info), CLFOLD_SUCCESS);
    snprintf(options, 1024, "%s", clfold_last_build_options(ctx));
}

static bool has(const char *options, const char *flag) { return strstr(options, flag) != NULL; }

/* auto_shape picks the path, of reductions and scans, on a context that has run the other. */
static void effect_auto_shape(clfold_context *ctx)
{
    clfold_run_info info;
    char options[1024];
    const char *want[] = {"cpu", "gpu", "cpu"};
    for (int i = 0; i < 3; i++) {
        int64_t shape = strcmp(want[i], "cpu") == 0 ? CLFOLD_SHAPE_CPU : CLFOLD_SHAPE_GPU;
        set(ctx, CLFOLD_PARAM_AUTO_SHAPE, shape);
        sum_checked(ctx, 1000, &info, options, want[i]);
        EXPECT(strcmp(info.path, want[i]) == 0, "auto_shape %s: path %s", want[i], info.path);
        scan_checked(ctx, &info, options, want[i]);
        EXPECT(strcmp(info.path + 5, want[i]) == 0, "auto_shape %s: scan path %s", want[i],
               info.path);
    }
    set(ctx, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_PARAM_AUTO);
}

/* The GPU shape's four fields, each alone. */
static void effect_gpu_shape(clfold_context *ctx)
{
    clfold_run_info info, more;
    char options[1024];
    set(ctx, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_SHAPE_GPU);
    set(ctx, CLFOLD_PARAM_GPU_ONE_LAUNCH, 0); /* passes count groups, on NVIDIA too */
    sum_checked(ctx, N_SUM, &info, options, "the GPU shape's own");
    size_t own_block = info.block_size;
    set(ctx, CLFOLD_PARAM_GPU_BLOCK, 64);
    sum_checked(ctx, N_SUM, &info, options, "gpu_block 64");
    EXPECT(info.block_size == 64, "gpu_block 64: block %zu", info.block_size);
    set(ctx, CLFOLD_PARAM_GPU_BLOCK, CLFOLD_PARAM_AUTO);
    sum_checked(ctx, N_SUM, &info, options, "gpu_block auto");
    EXPECT(info.block_size == own_block, "gpu_block auto: block %zu", info.block_size);

    const unsigned unrolls[] = {2, 8};
    for (int i = 0; i < 2; i++) {
        char flag[32];
        set(ctx, CLFOLD_PARAM_GPU_UNROLL, unrolls[i]);
        sum_checked(ctx, N_SUM, &info, options, "gpu_unroll");
        snprintf(flag, sizeof flag, "-DUNROLL=%u ", unrolls[i]);
        EXPECT(has(options, flag), "gpu_unroll %u: \"%s\"", unrolls[i], options);
    }
    set(ctx, CLFOLD_PARAM_GPU_UNROLL, 1);

    /* 256 KiB of int32: one group up to 256 KiB, several under 0. */
    set(ctx, CLFOLD_PARAM_GPU_SINGLE_KIB, 256);
    sum_checked(ctx, N_SUM, &info, options, "gpu_single_kib 256");
    EXPECT(info.passes == 1, "gpu_single_kib 256: %u passes", info.passes);
    set(ctx, CLFOLD_PARAM_GPU_SINGLE_KIB, 0);
    sum_checked(ctx, N_SUM, &info, options, "gpu_single_kib 0");
    EXPECT(info.passes == 2, "gpu_single_kib 0: %u passes", info.passes);

    /* Groups of 64 one load each: 256 groups' worth, held to units x groups_per_unit. */
    set(ctx, CLFOLD_PARAM_GPU_BLOCK, 64);
    set(ctx, CLFOLD_PARAM_GPU_GROUPS_PER_UNIT, 1);
    sum_checked(ctx, N_SUM, &info, options, "gpu_groups_per_unit 1");
    set(ctx, CLFOLD_PARAM_GPU_GROUPS_PER_UNIT, 2);
    sum_checked(ctx, N_SUM, &more, options, "gpu_groups_per_unit 2");
    EXPECT(more.bytes_written > info.bytes_written,
           "gpu_groups_per_unit 2 wrote %llu bytes, 1 %llu", (unsigned long long)more.bytes_written,
           (unsigned long long)info.bytes_written);
    const int reset[] = {CLFOLD_PARAM_GPU_BLOCK, CLFOLD_PARAM_GPU_GROUPS_PER_UNIT,
                         CLFOLD_PARAM_GPU_UNROLL, CLFOLD_PARAM_GPU_SINGLE_KIB};
    for (int i = 0; i < 4; i++)
        set(ctx, (clfold_param)reset[i], CLFOLD_PARAM_AUTO);
    set(ctx, CLFOLD_PARAM_GPU_ONE_LAUNCH, 1);
    set(ctx, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_PARAM_AUTO);
}

/* NVIDIA's: one launch or two, shfl.sync or barriers; elsewhere they change nothing. */
static void effect_nvidia_switches(clfold_context *ctx)
{
    clfold_run_info info;
    char options[1024];
    set(ctx, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_SHAPE_GPU);
    set(ctx, CLFOLD_PARAM_GPU_SINGLE_KIB, 0);
    sum_checked(ctx, N_SUM, &info, options, "one launch");
    bool one_launch = info.passes == 1, shuffles = has(options, "-DWARP_SHUFFLE=1");
    set(ctx, CLFOLD_PARAM_GPU_ONE_LAUNCH, 0);
    sum_checked(ctx, N_SUM, &info, options, "gpu_one_launch 0");
    EXPECT(info.passes == 2, "gpu_one_launch 0: %u passes", info.passes);
    set(ctx, CLFOLD_PARAM_GPU_ONE_LAUNCH, 1);
    sum_checked(ctx, N_SUM, &info, options, "gpu_one_launch 1");
    EXPECT(info.passes == (one_launch ? 1u : 2u), "gpu_one_launch 1: %u passes", info.passes);
    set(ctx, CLFOLD_PARAM_NO_WARP_SHUFFLE, 1);
    sum_checked(ctx, N_SUM, &info, options, "no_warp_shuffle 1");
    EXPECT(!has(options, "-DWARP_SHUFFLE"), "no_warp_shuffle 1: \"%s\"", options);
    set(ctx, CLFOLD_PARAM_NO_WARP_SHUFFLE, 0);
    sum_checked(ctx, N_SUM, &info, options, "no_warp_shuffle 0");
    EXPECT(has(options, "-DWARP_SHUFFLE=1") == shuffles, "no_warp_shuffle 0: \"%s\"", options);
    set(ctx, CLFOLD_PARAM_GPU_SINGLE_KIB, CLFOLD_PARAM_AUTO);
    set(ctx, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_PARAM_AUTO);
    printf("NVIDIA's one launch %s, warp shuffles %s here\n", one_launch ? "runs" : "does not run",
           shuffles ? "run" : "do not run");
}

/* The GPU scan tiles' geometry, the look-back and its prefetch. */
static void effect_scan(clfold_context *ctx)
{
    clfold_run_info info;
    char options[1024];
    set(ctx, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_SHAPE_GPU);
    scan_checked(ctx, &info, options, "the GPU scan's own");
    bool lookback = info.passes == 1, prefetches = has(options, "-DPREFETCH_TILES=");
    set(ctx, CLFOLD_PARAM_SCAN_LOOKBACK, 0);
    scan_checked(ctx, &info, options, "scan_lookback 0");
    EXPECT(info.passes > 1 && !has(options, "-DPREFETCH_TILES="), "scan_lookback 0: %u passes",
           info.passes);
    set(ctx, CLFOLD_PARAM_SCAN_GPU_BLOCK, 64);
    set(ctx, CLFOLD_PARAM_SCAN_GPU_RUN_ITEMS, 2);
    scan_checked(ctx, &info, options, "scan_gpu 64:2");
    EXPECT(info.block_size == 64 && has(options, "-DRUN_ITEMS=2 "),
           "scan_gpu 64:2: block %zu, \"%s\"", info.block_size, options);
    set(ctx, CLFOLD_PARAM_SCAN_GPU_RUN_ITEMS, 3);
    scan_checked(ctx, &info, options, "scan_gpu 64:3");
    EXPECT(info.block_size == 64 && has(options, "-DRUN_ITEMS=3 "),
           "scan_gpu 64:3: block %zu, \"%s\"", info.block_size, options);
    set(ctx, CLFOLD_PARAM_SCAN_GPU_BLOCK, CLFOLD_PARAM_AUTO);
    set(ctx, CLFOLD_PARAM_SCAN_GPU_RUN_ITEMS, CLFOLD_PARAM_AUTO);
    set(ctx, CLFOLD_PARAM_SCAN_LOOKBACK, 1);
    scan_checked(ctx, &info, options, "scan_lookback 1");
    EXPECT((info.passes == 1) == lookback, "scan_lookback 1: %u passes", info.passes);
    if (prefetches) {
        set(ctx, CLFOLD_PARAM_SCAN_PREFETCH, 7);
        scan_checked(ctx, &info, options, "scan_prefetch 7");
        EXPECT(has(options, "-DPREFETCH_TILES=7 "), "scan_prefetch 7: \"%s\"", options);
        set(ctx, CLFOLD_PARAM_SCAN_PREFETCH, 0);
        scan_checked(ctx, &info, options, "scan_prefetch 0");
        EXPECT(!has(options, "-DPREFETCH_TILES="), "scan_prefetch 0: \"%s\"", options);
        set(ctx, CLFOLD_PARAM_SCAN_PREFETCH, CLFOLD_PARAM_AUTO);
    }
    set(ctx, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_PARAM_AUTO);
    printf("the one-launch scan %s here\n", lookback ? "runs" : "does not run");
}

/* Whether an exact float sum, checked, widens floats from their bits (EXACT_WIDEN_BITS=1). */
static bool exact_widens(clfold_context *ctx)
{
    float data[300], sum = 0;
    for (int i = 0; i < 300; i++)
        data[i] = (float)(i % 7) * 0.25f;
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_EXACT), CLFOLD_SUCCESS);
    EXPECT_STATUS(ctx, clfold_reduce_host(ctx, data, 300, CLFOLD_FLOAT, CLFOLD_SUM, &sum),
                  CLFOLD_SUCCESS);
    EXPECT(sum == 224.25f, "an exact float sum of 300 is %g, want 224.25", sum);
    bool widens = has(clfold_last_build_options(ctx), "-DEXACT_WIDEN_BITS=1");
    EXPECT_STATUS(ctx, clfold_set_accuracy(ctx, CLFOLD_ACCURACY_DEFAULT), CLFOLD_SUCCESS);
    return widens;
}

/* cpu_lanes, local_mem_bytes, denorms_are_zero and max_chunk_bytes. */
static void effect_cpu_and_device(clfold_context *ctx)
{
    clfold_run_info info, chunked;
    char options[1024];
    set(ctx, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_SHAPE_CPU);
    const unsigned lanes[] = {4, 16, 2};
    for (int i = 0; i < 3; i++) {
        char flag[32];
        set(ctx, CLFOLD_PARAM_CPU_LANES, lanes[i]);
        sum_checked(ctx, N_SUM, &info, options, "cpu_lanes");
        snprintf(flag, sizeof flag, "-DVEC=%u ", lanes[i]);
        EXPECT(has(options, flag), "cpu_lanes %u: \"%s\"", lanes[i], options);
    }
    set(ctx, CLFOLD_PARAM_CPU_LANES, CLFOLD_PARAM_AUTO);
    set(ctx, CLFOLD_PARAM_AUTO_SHAPE, CLFOLD_PARAM_AUTO);

    /* K3 at 256: 2 KiB of int64 values; in 1 KiB two work-items share a slot. */
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_K3, 256), CLFOLD_SUCCESS);
    sum_checked(ctx, N_SUM, &info, options, "K3");
    EXPECT(!has(options, "-DLOCAL_SHARE"), "K3 at 256: \"%s\"", options);
    set(ctx, CLFOLD_PARAM_LOCAL_MEM_BYTES, 1024);
    sum_checked(ctx, N_SUM, &info, options, "local_mem_bytes 1024");
    EXPECT(has(options, "-DLOCAL_SHARE=2 "), "local_mem_bytes 1024: \"%s\"", options);
    set(ctx, CLFOLD_PARAM_LOCAL_MEM_BYTES, CLFOLD_PARAM_AUTO);
    sum_checked(ctx, N_SUM, &info, options, "local_mem_bytes auto");
    EXPECT(!has(options, "-DLOCAL_SHARE"), "local_mem_bytes auto: \"%s\"", options);

    /* Flushed subnormals: the build flag, and exact float sums widen floats from their bits. */
    bool own_widen = exact_widens(ctx);
    set(ctx, CLFOLD_PARAM_DENORMS_ARE_ZERO, 1);
    sum_checked(ctx, N_SUM, &info, options, "denorms_are_zero 1");
    EXPECT(has(options, "-cl-denorms-are-zero"), "denorms_are_zero 1: \"%s\"", options);
    EXPECT(exact_widens(ctx), "denorms_are_zero 1: exact float sums do not widen from bits");
    set(ctx, CLFOLD_PARAM_DENORMS_ARE_ZERO, 0);
    sum_checked(ctx, N_SUM, &info, options, "denorms_are_zero 0");
    EXPECT(!has(options, "-cl-denorms-are-zero"), "denorms_are_zero 0: \"%s\"", options);
    EXPECT(exact_widens(ctx) == own_widen, "denorms_are_zero 0: exact float sums' widening");

    /* 256 KiB in chunks of 16 KiB: sixteen chunks, each a reduction of its own. */
    sum_checked(ctx, N_SUM, &info, options, "max_chunk_bytes auto");
    set(ctx, CLFOLD_PARAM_MAX_CHUNK_BYTES, 16384);
    sum_checked(ctx, N_SUM, &chunked, options, "max_chunk_bytes 16384");
    EXPECT(chunked.passes >= 16 * info.passes && chunked.bytes_read >= info.bytes_read,
           "max_chunk_bytes 16384: %u passes, %u without", chunked.passes, info.passes);
    set(ctx, CLFOLD_PARAM_MAX_CHUNK_BYTES, CLFOLD_PARAM_AUTO);
    EXPECT_STATUS(ctx, clfold_set_kernel(ctx, CLFOLD_AUTO, 0), CLFOLD_SUCCESS);
}

/* ---- docs/environment.md ------------------------------------------------------------------ */

/*
 * The first table of docs/environment.md: a row a variable, `CLFOLD_...` in
 * the first cell and its parameters in the second, in field order (the
 * create-only variables none).
 */
static void test_docs(void)
{
    char path[4096], line[4096], listed[64][48];
    size_t rows = 0;
    snprintf(path, sizeof path, "%s/docs/environment.md", CLFOLD_SOURCE_DIR);
    FILE *file = fopen(path, "r");
    EXPECT(file != NULL, "cannot read %s", path);
    if (file == NULL)
        return;
    bool in_table = false;
    while (fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "| variable |", 12) == 0 && rows == 0)
            in_table = true;
        else if (in_table && line[0] != '|')
            break;
        if (!in_table || strncmp(line, "| `CLFOLD_", 10) != 0)
            continue;
        char *name = line + 3, *end = strchr(name, '`');
        char *cell = strchr(end, '|') + 1, *cell_end = strchr(cell, '|');
        *end = '\0';
        *cell_end = '\0';
        snprintf(listed[rows], sizeof listed[rows], "%.47s", name);
        if (rows + 1 < sizeof listed / sizeof listed[0])
            rows++;
        /* Its parameters: the table's with this variable, in field order. */
        char want[512] = "", got[512] = "";
        for (unsigned f = 0; f < fields_of(name); f++)
            for (int p = 0; p < clfold_param_count(); p++)
                if (strcmp(info_of(p).env, name) == 0 && info_of(p).env_field == f)
                    snprintf(want + strlen(want), sizeof want - strlen(want), "%s ",
                             info_of(p).name);
        for (char *tick = strchr(cell, '`'); tick != NULL; tick = strchr(tick + 1, '`')) {
            char *close = strchr(tick + 1, '`');
            if (close == NULL)
                break;
            snprintf(got + strlen(got), sizeof got - strlen(got), "%.*s ",
                     (int)(close - tick - 1), tick + 1);
            tick = close;
        }
        bool create_only = strcmp(name, "CLFOLD_DEVICE") == 0 || strcmp(name, "CLFOLD_KERNEL_DIR") == 0;
        EXPECT(strcmp(want, got) == 0 && (want[0] != '\0' || create_only),
               "docs/environment.md: %s lists \"%s\", the table \"%s\"", name, got, want);
    }
    fclose(file);
    /* Every parameter's variable, and the two read at create only, each once. */
    for (int p = -2; p < clfold_param_count(); p++) {
        const char *env = p == -2 ? "CLFOLD_DEVICE" : p == -1 ? "CLFOLD_KERNEL_DIR" : info_of(p).env;
        size_t times = 0;
        for (size_t r = 0; r < rows; r++)
            times += strcmp(listed[r], env) == 0;
        EXPECT(times == 1, "docs/environment.md lists %s %zu times", env, times);
    }
    size_t variables = 2;
    for (int p = 0; p < clfold_param_count(); p++)
        variables += info_of(p).env_field == 0;
    EXPECT(rows == variables, "docs/environment.md lists %zu variables, the table %zu", rows,
           variables);
}

int main(void)
{
    unset_all();
    test_table();
    test_docs();
    clfold_context *ctx = test_context();
    if (ctx == NULL)
        return 1;
    test_defaults(ctx);
    test_set_and_get(ctx);
    test_refusals(ctx);
    test_env_agrees(ctx);
    effect_auto_shape(ctx);
    effect_gpu_shape(ctx);
    effect_nvidia_switches(ctx);
    effect_scan(ctx);
    effect_cpu_and_device(ctx);
    clfold_destroy(ctx);
    return test_finish("test_params");
}
