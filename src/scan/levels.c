/*
 * levels.c: the multi-block decomposition every scan path runs. A level
 * cuts its values into tiles, one a work-group; where there is more than
 * one, the totals kernel writes each tile's total into the scratch, the
 * totals are scanned (exclusively, in place) one level down, and the scan
 * kernel then scans each tile from its prefix. Reading the elements twice
 * moves 3n values, where scanning the tiles first and adding their prefixes
 * back in a second pass moves 4n, and every output is finished once, from
 * accumulator values: a compensated pair or an fp64 sum never passes
 * through the result type on the way.
 */
#include "scan_path.h"

/* A CPU chunk is at least this many elements: smaller levels take one work-item. */
#define CPU_MIN_CHUNK 4096

/* One level: its values, and where its outputs go. */
struct level {
    struct build_config config;
    cl_mem in;
    size_t offset;
    size_t count;
    cl_mem out;
    size_t out_at;                 /* in elements of the result (finish) or of accumulator values */
    bool finish;                   /* the caller's results; else accumulator values for the level above */
    bool exclusive;
    bool from_start;               /* its output 0 starts the caller's array: no chunk before it */
};

/* cl/scan/common.cl's scan modes. */
enum { SCAN_INCLUSIVE, SCAN_EXCLUSIVE, SCAN_EXCLUSIVE_FROM_START };

/* A CPU chunk's elements: the job's `run` argument. 0 for the paths that fix their tile. */
static size_t cpu_chunk(const struct scan_job *job, size_t count)
{
    if (job->chunks_per_level == 0)
        return 0;
    size_t chunk = divide_up(count, job->chunks_per_level);
    return chunk < CPU_MIN_CHUNK ? CPU_MIN_CHUNK : chunk;
}

size_t scan_tile(const clfold_context *ctx, const struct scan_job *job, size_t count)
{
    (void)ctx;
    if (job->chunks_per_level != 0)
        return cpu_chunk(job, count);
    return job->block * (job->path->items != 0 ? job->path->items : job->run_items);
}

/* Accumulator values of scratch the levels below the caller's take (none for the one-launch scan). */
static size_t scratch_values(const clfold_context *ctx, const struct scan_job *job, size_t count)
{
    size_t values = 0, tiles = divide_up(count, scan_tile(ctx, job, count));
    if (job->lookback)
        return 0;
    for (; tiles > 1; count = tiles, tiles = divide_up(count, scan_tile(ctx, job, count)))
        values += tiles;
    return values;
}

/* Enqueues `kernel` over `groups` work-groups, after the log's wait list if it is the first. */
static clfold_status enqueue(clfold_context *ctx, cl_kernel kernel, const char *entry,
                             size_t groups, size_t block, bool last, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    bool keep = log->timed || (last && log->keep_last);
    size_t global = groups * block;
    const cl_event *wait_list;
    cl_uint waits;

    if (log->passes == MAX_PASSES)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "scan needs more than %d launches", MAX_PASSES);
    take_waits(log, &waits, &wait_list);
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &global, &block, waits,
                                        wait_list, keep ? &log->events[log->count] : NULL);
    if (err == CL_INVALID_WORK_GROUP_SIZE)
        FAIL(CLFOLD_ERROR_INVALID_BLOCK_SIZE, "%s cannot run %zu work-items per group on %s",
             entry, block, ctx->caps.name);
    CHECK_CL(err, "clEnqueueNDRangeKernel");
    log->count += keep;
    log->passes++;
cleanup:
    return status;
}

/*
 * Every scan path's kernels take common.cl's parameters: a totals kernel,
 * a scan kernel, and the one-launch scan, which adds its board.
 */
#define TILE_PARAMS "in", "offset", "n"
#define SCAN_PARAMS                                                                              \
    TILE_PARAMS, "out", "out_at", "run", "buf", "finish", "mode", "seeds", "seeds_at", "seeded", \
        "carry", "carry_at", "keep_carry"
static kernel_params TOTALS_KERNEL = {TILE_PARAMS, "totals", "totals_at", "run", "buf", NULL};
static kernel_params SCAN_KERNEL = {SCAN_PARAMS, NULL};
static kernel_params LOOKBACK_KERNEL = {SCAN_PARAMS, "board", NULL};

/*
 * What both kernels of a level take: its elements, the run and local
 * values, and where their values go: `out` and `out_at` (the totals
 * kernel's `totals` and `totals_at`), the parameters named `to` and `to_at`.
 */
static clfold_status bind_level(clfold_context *ctx, cl_kernel kernel, const char *const *params,
                                const char *to, const char *to_at, const struct scan_job *job,
                                const struct level *level, cl_mem out, size_t out_at)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_ulong offset = level->offset, n = level->count, at = out_at;
    cl_ulong run = cpu_chunk(job, level->count);
    size_t local = scan_local_values(job) * accumulator_size(&level->config.acc);
    CHECK(kernel_arg(ctx, kernel, params, "in", sizeof level->in, &level->in));
    CHECK(kernel_arg(ctx, kernel, params, "offset", sizeof offset, &offset));
    CHECK(kernel_arg(ctx, kernel, params, "n", sizeof n, &n));
    CHECK(kernel_arg(ctx, kernel, params, to, sizeof out, &out));
    CHECK(kernel_arg(ctx, kernel, params, to_at, sizeof at, &at));
    CHECK(kernel_arg(ctx, kernel, params, "run", sizeof run, &run));
    CHECK(kernel_arg(ctx, kernel, params, "buf", local, NULL));
cleanup:
    return status;
}

static size_t input_bytes(const struct level *level)
{
    const struct build_config *config = &level->config;
    return config->in_partials ? accumulator_size(&config->acc) : type_info(config->in)->size;
}

/* The tiles' totals into totals[at ..]. */
static clfold_status enqueue_totals(clfold_context *ctx, const struct scan_job *job,
                                    const struct level *level, size_t tiles, cl_mem totals,
                                    size_t at, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_kernel kernel = NULL;
    CHECK(program_kernel(ctx, &level->config, job->path->totals_entry, &kernel));
    CHECK(bind_level(ctx, kernel, TOTALS_KERNEL, "totals", "totals_at", job, level, totals, at));
    CHECK(enqueue(ctx, kernel, job->path->totals_entry, divide_up(tiles, job->tiles_per_group),
                  job->block, false, log));
    log->bytes_read += (uint64_t)level->count * input_bytes(level);
    log->bytes_written += (uint64_t)tiles * accumulator_size(&level->config.acc);
cleanup:
    return status;
}

/* Where a level's tiles start from: their prefixes, or the caller's carry. */
struct seeds {
    cl_mem buffer;
    size_t at;
    bool seeded;
    bool keep;                     /* the last tile leaves the scan's total at buffer[keep_at] */
    size_t keep_at;
};

/*
 * The tiles scanned into the level's out: from their seeds, or with a
 * look-back, in the one launch, from the tiles before them.
 */
static clfold_status enqueue_scan(clfold_context *ctx, const struct scan_job *job,
                                  const struct level *level, size_t tiles,
                                  const struct seeds *seeds, cl_mem board,
                                  bool last, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_kernel kernel = NULL;
    cl_uint finish = level->finish, seeded = seeds->seeded, keep = seeds->keep;
    cl_uint mode = !level->exclusive ? SCAN_INCLUSIVE
                 : level->from_start ? SCAN_EXCLUSIVE_FROM_START : SCAN_EXCLUSIVE;
    cl_ulong at = seeds->at, keep_at = seeds->keep_at;
    const char *entry = board != NULL ? job->path->lookback_entry : job->path->scan_entry;
    const char *const *params = board != NULL ? LOOKBACK_KERNEL : SCAN_KERNEL;
    CHECK(program_kernel(ctx, &level->config, entry, &kernel));
    if (board != NULL)
        CHECK(kernel_arg(ctx, kernel, params, "board", sizeof board, &board));
    CHECK(bind_level(ctx, kernel, params, "out", "out_at", job, level, level->out, level->out_at));
    CHECK(kernel_arg(ctx, kernel, params, "finish", sizeof finish, &finish));
    CHECK(kernel_arg(ctx, kernel, params, "mode", sizeof mode, &mode));
    CHECK(kernel_arg(ctx, kernel, params, "seeds", sizeof seeds->buffer, &seeds->buffer));
    CHECK(kernel_arg(ctx, kernel, params, "seeds_at", sizeof at, &at));
    CHECK(kernel_arg(ctx, kernel, params, "seeded", sizeof seeded, &seeded));
    CHECK(kernel_arg(ctx, kernel, params, "carry", sizeof seeds->buffer, &seeds->buffer));
    CHECK(kernel_arg(ctx, kernel, params, "carry_at", sizeof keep_at, &keep_at));
    CHECK(kernel_arg(ctx, kernel, params, "keep_carry", sizeof keep, &keep));
    CHECK(enqueue(ctx, kernel, entry, divide_up(tiles, job->tiles_per_group), job->block, last,
                  log));
    size_t out_bytes = level->finish ? type_info(level->config.acc.result)->size
                                     : accumulator_size(&level->config.acc);
    log->bytes_read += (uint64_t)level->count * input_bytes(level) +
                       (board == NULL && seeds->seeded
                            ? (uint64_t)tiles * accumulator_size(&level->config.acc) : 0);
    log->bytes_written += (uint64_t)level->count * out_bytes;
cleanup:
    return status;
}

/*
 * The one-launch scan: its board zeroed (the scratch's second buffer),
 * then the kernel, which takes the carry as the level of one tile does.
 * The board (cl/scan/tiles.cl's AGGREGATE_OF) is the tile counter's word,
 * then three slots a tile (an aggregate, and an inclusive prefix of up to
 * two values), a slot being a 64-bit word for every 4 bytes of an
 * accumulator value.
 */
static clfold_status run_lookback(clfold_context *ctx, const struct scan_job *job,
                                  const struct level *level, size_t tiles,
                                  const struct seeds *from_carry, struct scratch *scratch,
                                  bool last, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    const cl_ulong zero = 0;
    size_t slot_words = divide_up(accumulator_size(&level->config.acc), 4);
    size_t board_bytes = (1 + 3 * slot_words * tiles) * sizeof zero;
    bool keep = log->timed;
    const cl_event *wait_list;
    cl_uint waits;
    CHECK(scratch_partials(ctx, scratch, 1, board_bytes));
    take_waits(log, &waits, &wait_list);
    CHECK_CL(clEnqueueFillBuffer(ctx->queue, scratch->partials[1], &zero, sizeof zero, 0,
                                 board_bytes, waits, wait_list,
                                 keep ? &log->events[log->count] : NULL),
             "clEnqueueFillBuffer (scan board)");
    log->count += keep;
    log->bytes_written += board_bytes;
    CHECK(enqueue_scan(ctx, job, level, tiles, from_carry, scratch->partials[1], last, log));
cleanup:
    return status;
}

/*
 * One level and, where it has several tiles, the levels below it, whose
 * prefixes go to scratch values [at, at + tiles). Only the level of one
 * tile touches the carry: it starts from one slot and leaves the total in
 * the other. Where the job has a look-back, the caller's level is one
 * launch, of one tile or many (its tiles are not the three launches'
 * shape), and touches the carry so.
 */
static clfold_status run_level(clfold_context *ctx, const struct scan_job *job,
                               const struct level *level, const struct scan_carry *carry,
                               struct scratch *scratch, size_t at, bool last,
                               struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_mem values = scratch->partials[0];
    size_t tiles = divide_up(level->count, scan_tile(ctx, job, level->count));
    bool has_carry = carry != NULL && carry->buffer != NULL;
    /*
     * The total goes to the carry's other slot: in the one launch the last
     * tile may finish while tiles before it have still to read the seed.
     */
    struct seeds from_carry = {has_carry ? carry->buffer : values, has_carry ? carry->from : 0,
                               has_carry && carry->seeded, has_carry,
                               has_carry ? 1 - carry->from : 0};
    if (job->lookback)
        return run_lookback(ctx, job, level, tiles, &from_carry, scratch, last, log);
    if (tiles == 1)
        return enqueue_scan(ctx, job, level, 1, &from_carry, NULL, last, log);
    struct level below = {level->config, values, at, tiles, values, at, false, true, false};
    below.config.in_partials = true;
    struct seeds prefixes = {values, at, true, false, at};
    CHECK(enqueue_totals(ctx, job, level, tiles, values, at, log));
    CHECK(run_level(ctx, job, &below, carry, scratch, at + tiles, false, log));
    CHECK(enqueue_scan(ctx, job, level, tiles, &prefixes, NULL, last, log));
cleanup:
    return status;
}

clfold_status scan_enqueue(clfold_context *ctx, const struct scan_job *job, cl_mem in,
                           size_t offset, size_t count, bool exclusive, cl_mem out, size_t out_at,
                           const struct scan_carry *carry, struct scratch *scratch,
                           struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t acc = accumulator_size(&job->config.acc);
    size_t values = scratch_values(ctx, job, count);
    bool continued = carry != NULL && carry->buffer != NULL && carry->seeded;
    struct level top = {job->config, in, offset, count, out, out_at, true, exclusive, !continued};
    /* At least one value: the kernels' unused seeds and carry arguments point at it. */
    CHECK(scratch_partials(ctx, scratch, 0, (values > 0 ? values : 1) * acc));
    CHECK(run_level(ctx, job, &top, carry, scratch, 0, true, log));
cleanup:
    return status;
}
