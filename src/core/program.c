/*
 * program.c: turns a build_config into an option string, builds programs
 * from the sources embedded at build time (or, for kernel hacking, from the
 * folder that CLFOLD_KERNEL_DIR names), on NVIDIA rebuilds those that ask
 * for it from their PTX with a directive, and caches programs and kernels
 * per context.
 */
#include "program.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ptx.h"

/* Appends formatted text to buf; false once it no longer fits. */
static bool append_list(char *buf, size_t cap, const char *format, va_list args)
{
    size_t used = strlen(buf);
    int written = vsnprintf(buf + used, cap - used, format, args);
    return written >= 0 && (size_t)written < cap - used;
}

static bool append(char *buf, size_t cap, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    bool ok = append_list(buf, cap, format, args);
    va_end(args);
    return ok;
}

void path_define(struct path_defines *defines, enum define_part part, const char *format, ...)
{
    char *text = part == DEFINE_HEAD ? defines->head : defines->tail;
    size_t used = strlen(text);
    va_list args;
    va_start(args, format);
    if (!append_list(text, PATH_DEFINES_MAX, format, args)) {
        defines->overflow = true;
        text[used] = '\0'; /* no define half-written */
    }
    va_end(args);
}

/*
 * ACC_*: the accumulator, a scalar, a (sum, carry) pair of scalars, an
 * exact state, a scaled product or an arg-reduction's pair; RESULT_*: what
 * it finishes as.
 */
/*
 * An exact sum's state (cl/core/exact.cl): its words and unit, whether runs
 * add in doubles first, which needs the device's fp64, and whether floats
 * are widened from their bits, where the device may flush subnormals.
 */
static bool append_exact_flags(const struct clfold_context *ctx, char *buf, size_t cap,
                               const struct accumulator *acc, const char **acc_name)
{
    const struct type_info *result = type_info(acc->result);
    *acc_name = "exact_t";
    return append(buf, cap,
                  " -DACC_T=exact_t -DACC_SIZE=%zu -DACC_FLOAT=0 -DACC_EXACT=1 -DEXACT_WORDS=%u"
                  " -DEXACT_LSB=%d -DEXACT_FPE=%d -DEXACT_WIDEN_BITS=%d -DRESULT_T=%s -DRESULT_SIZE=%zu",
                  accumulator_size(acc), acc->exact_format.words, acc->exact_format.lsb,
                  ctx->caps.has_fp64 ? 1 : 0, ctx->caps.float_denormals ? 0 : 1, result->cl_name,
                  result->size);
}

/*
 * A float product's (significand, exponent) pairs (cl/core/defs.cl's
 * scaled pairs): an integer pair whose first component holds the
 * significand's bits.
 */
static bool append_scaled_flags(char *buf, size_t cap, const struct accumulator *acc,
                                const char **acc_name)
{
    const struct type_info *scalar = type_info(acc->scalar);
    bool wide = acc->scalar == CLFOLD_DOUBLE;
    *acc_name = wide ? "long2" : "int2";
    return append(buf, cap,
                  " -DACC_T=%s -DACC_SIZE=%zu -DACC_FLOAT=0 -DACC_SCALED=1 -DACC_SCALAR_T=%s"
                  " -DEXPONENT_T=%s -DRESULT_T=%s -DRESULT_SIZE=%zu",
                  *acc_name, accumulator_size(acc), scalar->cl_name, wide ? "long" : "int",
                  scalar->cl_name, scalar->size);
}

/*
 * An argmin's or argmax's (key, index) pairs (cl/core/defs.cl): the key is
 * made from the caller's element type, which ARG_FLOAT and ARG_SIGNED name.
 */
static bool append_arg_flags(char *buf, size_t cap, const struct build_config *config,
                             const char **acc_name)
{
    const struct type_info *in = type_info(config->in);
    *acc_name = "ulong2";
    return append(buf, cap,
                  " -DACC_T=ulong2 -DACC_SIZE=%zu -DACC_FLOAT=0 -DACC_ARG=1 -DARG_FLOAT=%u"
                  " -DARG_SIGNED=%d -DRESULT_T=long -DRESULT_SIZE=8",
                  accumulator_size(&config->acc), in->float_bits, in->is_signed ? 1 : 0);
}

static bool append_accumulator_flags(char *buf, size_t cap, const struct accumulator *acc,
                                     const char **acc_name)
{
    const struct type_info *scalar = type_info(acc->scalar);
    *acc_name = !acc->compensated ? scalar->cl_name
              : acc->scalar == CLFOLD_DOUBLE ? "double2" : "float2";
    bool ok = append(buf, cap, " -DACC_T=%s -DACC_SIZE=%zu -DACC_FLOAT=%u -DACC_LOWEST=%s -DACC_HIGHEST=%s",
                     *acc_name, accumulator_size(acc), scalar->float_bits, scalar->cl_lowest,
                     scalar->cl_highest);
    if (scalar->cl_unsigned != NULL)
        ok = ok && append(buf, cap, " -DACC_UT=%s", scalar->cl_unsigned);
    if (acc->compensated)
        ok = ok && append(buf, cap, " -DACC_COMPENSATED=1 -DACC_SCALAR_T=%s", scalar->cl_name);
    if (acc->run_carry)
        ok = ok && append(buf, cap, " -DRUN_CARRY=1");
    const struct type_info *result = type_info(acc->result);
    ok = ok && append(buf, cap, " -DRESULT_T=%s -DRESULT_SIZE=%zu", result->cl_name, result->size);
    return ok;
}

/* IN_*: the caller's elements, or an earlier pass's accumulator values. */
static bool append_input_flags(char *buf, size_t cap, const struct build_config *config,
                               const char *acc_name)
{
    if (config->in_partials)
        return append(buf, cap, " -DIN_T=%s -DIN_IS_ACC=1", acc_name);
    const struct type_info *in = type_info(config->in);
    bool ok = append(buf, cap, " -DIN_T=%s -DIN_SIZE=%zu", in->cl_name, in->size);
    if (config->in == CLFOLD_HALF)
        ok = ok && append(buf, cap, " -DIN_HALF=1");
    return ok;
}

/* The atomic baseline works on ACC_T widened to 32 or 64 bits. */
static bool append_atomic_flags(const struct clfold_context *ctx, char *buf, size_t cap,
                                clfold_type acc)
{
    const struct type_info *info = type_info(acc);  /* atomics never use pairs */
    const char *atom = info->size >= 4 ? info->cl_name : info->is_signed ? "int" : "uint";
    bool ok = append(buf, cap, " -DATOM_T=%s", atom);
    if (info->size == 8)
        ok = ok && append(buf, cap, " -DATOM_64=1 -DHAS_INT64_EXTENDED_ATOMICS=%d",
                          ctx->caps.has_int64_extended_atomics ? 1 : 0);
    return ok;
}

/*
 * The whole option string for one kernel configuration: the one place where
 * it is put together, from the common -D flags made here and the path's
 * own, which its file formats (program.h's struct path_defines says in
 * which order). The same string is the cache key, and what
 * clfold_last_build_options() shows, so a user can rebuild a kernel by hand.
 * Never any fast-math flag: results must be IEEE.
 */
static bool build_options(const struct clfold_context *ctx, const struct build_config *config,
                          char *buf, size_t cap)
{
    const char *acc_name = NULL;
    buf[0] = '\0';
    bool ok = append(buf, cap, "-DOP=%s", op_define(config->op));
    if (op_map_define(config->op) != NULL && !config->in_partials)
        ok = ok && append(buf, cap, " -DMAP=%s", op_map_define(config->op));
    if (config->acc.arg)
        ok = ok && append_arg_flags(buf, cap, config, &acc_name);
    else if (config->acc.exact)
        ok = ok && append_exact_flags(ctx, buf, cap, &config->acc, &acc_name);
    else if (config->acc.scaled)
        ok = ok && append_scaled_flags(buf, cap, &config->acc, &acc_name);
    else
        ok = ok && append_accumulator_flags(buf, cap, &config->acc, &acc_name);
    ok = ok && append_input_flags(buf, cap, config, acc_name);
    bool exact_runs_in_doubles = config->acc.exact && ctx->caps.has_fp64; /* EXACT_FPE */
    if (config->in == CLFOLD_DOUBLE || config->acc.scalar == CLFOLD_DOUBLE || exact_runs_in_doubles)
        ok = ok && append(buf, cap, " -DNEEDS_FP64=1");
    if (config->block_size != 0)
        ok = ok && append(buf, cap, " -DBLOCK_SIZE=%zu", config->block_size);
    if (ctx->caps.warp_shuffle)
        ok = ok && append(buf, cap, " -DWARP_SHUFFLE=1");
    if (config->atomic)
        ok = ok && append_atomic_flags(ctx, buf, cap, config->acc.scalar);
    ok = ok && !config->defines.overflow && append(buf, cap, "%s", config->defines.head);
    if (ctx->caps.split_half_loads && config->in == CLFOLD_HALF)
        ok = ok && append(buf, cap, " -DSPLIT_HALF_LOADS=1");
    ok = ok && append(buf, cap, "%s", config->defines.tail);
    /* NVIDIA's PTX: the atomic baseline's float add, the GPU shape's conversions and fences,
       the scan tiles' look-back fences. */
    if (ctx->caps.inline_ptx && config->inline_ptx)
        ok = ok && append(buf, cap, " -DINLINE_PTX=1");
    /* A device that flushes float subnormals, on any device (CLFOLD_DENORMS_ARE_ZERO). */
    if (ctx->settings.denorms_are_zero)
        ok = ok && append(buf, cap, " -cl-denorms-are-zero");
    /*
     * No warnings: POCL's compiler writes "N warnings generated." on the
     * process's stderr (AVX2's psabi notes on 64-byte vectors), which a
     * library must never do. Errors still fill the build log.
     */
    ok = ok && append(buf, cap, " -w");
    return ok;
}

/* Reads `name` from the CLFOLD_KERNEL_DIR override into a malloc'ed string. */
static clfold_status read_override(struct clfold_context *ctx, const char *dir, const char *name,
                                   char **text)
{
    clfold_status status = CLFOLD_SUCCESS;
    char path[4096];
    FILE *file = NULL;
    long length = 0;

    *text = NULL;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        FAIL(CLFOLD_ERROR_KERNEL_SOURCE, "CLFOLD_KERNEL_DIR path too long: %s", dir);
    file = fopen(path, "rb");
    if (file == NULL || fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 ||
        fseek(file, 0, SEEK_SET) != 0)
        FAIL(CLFOLD_ERROR_KERNEL_SOURCE, "cannot read kernel source %s", path);
    *text = malloc((size_t)length + 1);
    if (*text == NULL)
        FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for kernel source %s", path);
    if (fread(*text, 1, (size_t)length, file) != (size_t)length)
        FAIL(CLFOLD_ERROR_KERNEL_SOURCE, "cannot read kernel source %s", path);
    (*text)[length] = '\0';
cleanup:
    if (file != NULL)
        fclose(file);
    if (status != CLFOLD_SUCCESS) {
        free(*text);
        *text = NULL;
    }
    return status;
}

/* The text of `name`: a malloc'ed copy from CLFOLD_KERNEL_DIR, or the embedded one. */
static clfold_status load_source(struct clfold_context *ctx, const char *name, char **owned,
                                 const char **text)
{
    const char *dir = ctx->settings.kernel_dir;
    *owned = NULL;
    if (dir != NULL) {
        clfold_status status = read_override(ctx, dir, name, owned);
        *text = *owned;
        return status;
    }
    *text = embedded_source(name);
    if (*text == NULL)
        return fail(ctx, CLFOLD_ERROR_KERNEL_SOURCE, "no embedded kernel source %s", name);
    return CLFOLD_SUCCESS;
}

/* Puts the build log in last_error, so that a failed build says why. */
static clfold_status build_failure(struct clfold_context *ctx, cl_program program,
                                   const char *source, const char *options)
{
    size_t size = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) ==
            CL_SUCCESS &&
        (log = malloc(size + 1)) != NULL &&
        clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) ==
            CL_SUCCESS) {
        log[size] = '\0';
    } else if (log != NULL) {
        log[0] = '\0';
    }
    clfold_status status = fail(ctx, CLFOLD_ERROR_BUILD_FAILED, "building %s with \"%s\" failed:\n%s",
                                source, options, log != NULL ? log : "(no build log)");
    free(log);
    return status;
}

/* What goes before a source of cl/: defs.cl (and exact.cl, whose state it uses); scans' common.cl too. */
static cl_uint preludes(const char *source, const char *names[3])
{
    names[0] = "core/exact.cl"; /* compiles to nothing unless ACC_EXACT */
    names[1] = "core/defs.cl";
    names[2] = "scan/common.cl";
    return strncmp(source, "scan/", 5) == 0 ? 3 : 2;
}

/*
 * NVIDIA: *program rebuilt from its own PTX (ptx.c says why) with
 * .minnctapersm groups_per_unit, so that ptxas fits that many of its groups
 * on a multiprocessor, spilling registers where it must. A program whose
 * binary holds no PTX entry stays as built: the directive changes its
 * speed, never its results.
 */
static clfold_status rebuild_from_ptx(struct clfold_context *ctx, const char *source,
                                      unsigned groups_per_unit, cl_program *program)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t size = 0, length = 0;
    char *ptx = NULL, *edited = NULL, directive[32];
    const unsigned char *binary = NULL;
    cl_program rebuilt = NULL;
    cl_int err, binary_status;

    CHECK_CL(clGetProgramInfo(*program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL),
             "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
    ptx = malloc(size + 1);
    if (ptx == NULL)
        FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for the PTX of %s", source);
    CHECK_CL(clGetProgramInfo(*program, CL_PROGRAM_BINARIES, sizeof ptx, &ptx, NULL),
             "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    ptx[size] = '\0';
    if (ptx_entries(ptx) == 0)
        goto cleanup;
    snprintf(directive, sizeof directive, ".minnctapersm %u", groups_per_unit);
    edited = ptx_with_directive(ptx, directive, &length);
    if (edited == NULL)
        FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for the PTX of %s", source);
    length++; /* its NUL too */
    binary = (const unsigned char *)edited;
    rebuilt = clCreateProgramWithBinary(ctx->cl, 1, &ctx->device, &length, &binary, &binary_status,
                                        &err);
    CHECK_CL(err, "clCreateProgramWithBinary");
    err = clBuildProgram(rebuilt, 1, &ctx->device, "", NULL, NULL);
    if (err == CL_BUILD_PROGRAM_FAILURE) {
        status = build_failure(ctx, rebuilt, source, directive);
        goto cleanup;
    }
    CHECK_CL(err, "clBuildProgram");
    clReleaseProgram(*program);
    *program = rebuilt;
    rebuilt = NULL;
cleanup:
    if (rebuilt != NULL)
        clReleaseProgram(rebuilt);
    free(ptx);
    free(edited);
    return status;
}

static clfold_status build_program(struct clfold_context *ctx, const char *source,
                                   const char *options, unsigned groups_per_unit,
                                   cl_program *program)
{
    clfold_status status = CLFOLD_SUCCESS;
    char *owned[4] = {NULL, NULL, NULL, NULL};
    const char *names[3], *texts[4];
    cl_uint count = preludes(source, names);
    cl_int err;

    *program = NULL;
    for (cl_uint i = 0; i < count; i++)
        CHECK(load_source(ctx, names[i], &owned[i], &texts[i]));
    CHECK(load_source(ctx, source, &owned[count], &texts[count]));
    *program = clCreateProgramWithSource(ctx->cl, count + 1, texts, NULL, &err);
    CHECK_CL(err, "clCreateProgramWithSource");
    err = clBuildProgram(*program, 1, &ctx->device, options, NULL, NULL);
    if (err == CL_BUILD_PROGRAM_FAILURE) {
        status = build_failure(ctx, *program, source, options);
        goto cleanup;
    }
    CHECK_CL(err, "clBuildProgram");
    if (groups_per_unit != 0)
        CHECK(rebuild_from_ptx(ctx, source, groups_per_unit, program));
cleanup:
    for (int i = 0; i < 4; i++)
        free(owned[i]);
    if (status != CLFOLD_SUCCESS && *program != NULL) {
        clReleaseProgram(*program);
        *program = NULL;
    }
    return status;
}

/* The cache entry for `key`, built and added if it is not there yet. */
static clfold_status find_or_build(struct clfold_context *ctx, const char *source, const char *key,
                                   const char *options, unsigned groups_per_unit,
                                   struct program_entry **entry)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct program_cache *cache = &ctx->programs;
    cl_program program = NULL;
    char *key_copy = NULL;

    for (size_t i = 0; i < cache->count; i++) {
        if (strcmp(cache->entries[i].key, key) == 0) {
            *entry = &cache->entries[i];
            return CLFOLD_SUCCESS;
        }
    }
    if (cache->count == cache->capacity) {
        size_t capacity = cache->capacity ? cache->capacity * 2 : 8;
        struct program_entry *grown = realloc(cache->entries, capacity * sizeof *grown);
        if (grown == NULL)
            FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for the program cache");
        cache->entries = grown;
        cache->capacity = capacity;
    }
    key_copy = malloc(strlen(key) + 1);
    if (key_copy == NULL)
        FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for the program cache");
    strcpy(key_copy, key);
    CHECK(build_program(ctx, source, options, groups_per_unit, &program));
    *entry = &cache->entries[cache->count++];
    memset(*entry, 0, sizeof **entry);
    (*entry)->key = key_copy;
    (*entry)->program = program;
    key_copy = NULL;
cleanup:
    free(key_copy);
    return status;
}

clfold_status program_kernel(struct clfold_context *ctx, const struct build_config *config,
                             const char *name, cl_kernel *kernel)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct program_entry *entry = NULL;
    char options[1024];
    char key[1200];
    cl_int err;
    size_t slot;

    if (!build_options(ctx, config, options, sizeof options))
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "kernel build options too long");
    snprintf(key, sizeof key, "%s %s .minnctapersm %u", config->source, options,
             config->groups_per_unit);
    CHECK(find_or_build(ctx, config->source, key, options, config->groups_per_unit, &entry));
    for (slot = 0; slot < PROGRAM_MAX_KERNELS && entry->kernel_names[slot] != NULL; slot++)
        if (strcmp(entry->kernel_names[slot], name) == 0)
            break;
    if (slot == PROGRAM_MAX_KERNELS)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "too many kernels in %s", config->source);
    if (entry->kernel_names[slot] == NULL) {
        entry->kernels[slot] = clCreateKernel(entry->program, name, &err);
        CHECK_CL(err, "clCreateKernel");
        entry->kernel_names[slot] = name;
    }
    *kernel = entry->kernels[slot];
    snprintf(ctx->programs.last_options, sizeof ctx->programs.last_options, "%s", options);
cleanup:
    return status;
}

void program_cache_release(struct program_cache *cache)
{
    for (size_t i = 0; i < cache->count; i++) {
        struct program_entry *entry = &cache->entries[i];
        for (size_t k = 0; k < PROGRAM_MAX_KERNELS; k++)
            if (entry->kernels[k] != NULL)
                clReleaseKernel(entry->kernels[k]);
        clReleaseProgram(entry->program);
        free(entry->key);
    }
    free(cache->entries);
    memset(cache, 0, sizeof *cache);
}

bool sums_small_integers(const struct build_config *config)
{
    const struct type_info *in = type_info(config->in);
    return op_fold(config->op) == FOLD_ADD && op_map_define(config->op) == NULL &&
           !config->in_partials && in->float_bits == 0 && in->size <= 2;
}
