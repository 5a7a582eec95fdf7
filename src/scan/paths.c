/*
 * paths.c (scans): the table of scan paths, one entry each: the ladder's
 * work-group scans (cl/scan/ladder.cl) and the auto path's runs
 * (cl/scan/tiles.cl on GPUs, cl/scan/chunks.cl on CPUs). scan_path.h says what
 * an entry holds.
 */
#include "scan_path.h"

static const struct scan_path LADDER[] = {
    [CLFOLD_SCAN_KOGGE_STONE] = {"kogge-stone", CLFOLD_SCAN_KOGGE_STONE, "scan/ladder.cl",
                                 "scan_kogge_stone_totals", "scan_kogge_stone", 1, false, NULL},
    [CLFOLD_SCAN_BLELLOCH] = {"blelloch", CLFOLD_SCAN_BLELLOCH, "scan/ladder.cl",
                              "scan_blelloch_totals", "scan_blelloch", 2, false, NULL},
    [CLFOLD_SCAN_BLELLOCH_PADDED] = {"blelloch-padded", CLFOLD_SCAN_BLELLOCH_PADDED,
                                     "scan/ladder.cl", "scan_blelloch_padded_totals",
                                     "scan_blelloch_padded", 2, true, NULL},
};

/* Tiles of runs of RUN_ITEMS elements a work-item, GPU_TILE_BLOCK work-items a group. */
static const struct scan_path GPU_TILES = {"scan-gpu", CLFOLD_SCAN_AUTO, "scan/tiles.cl",
                                           "scan_tiles_totals", "scan_tiles", 0, false,
                                           "scan_tiles_lookback"};

/* One contiguous chunk a work-group of one. */
static const struct scan_path CPU_CHUNKS = {"scan-cpu", CLFOLD_SCAN_AUTO, "scan/chunks.cl",
                                            "scan_chunks_totals", "scan_chunks", 0, false, NULL};

#define DEFAULT_BLOCK 256

/*
 * A GPU run's elements: 64 bytes of accumulator values a work-item, 4 to
 * 16 (a longer run unrolls into a longer build), in groups of
 * GPU_TILE_BLOCK: the fastest three-launch tiles measured (H200, 2^28
 * float sums: 0.851 ms in 128 x 16, 0.861 in 128 x 32, 0.892 in 256 x 16;
 * bench/results/scans-h200-warp.txt).
 */
#define GPU_RUN_BYTES 64
#define GPU_TILE_BLOCK 128

/*
 * A float product's run folds significands and exponents apart, a long
 * body that unrolls into a long build, so it keeps 32 bytes (a cold build:
 * 4.5 s for runs of 8 against 2.3 s for 4 on an H200;
 * bench/results/scans-h200-warp.txt).
 */
#define GPU_SCALED_RUN_BYTES 32

/*
 * The one-launch scan's tiles (NVIDIA): groups of 512 holding 128 bytes of
 * elements a work-item in registers, at most 32 elements. A tile waits on
 * the tiles before it, and fewer, larger tiles wait less: 512 x 32 is the
 * fastest float tile measured (H100, 2^28 float sums: 0.836 ms, against
 * 0.858 in 1024 x 32 and 0.898 in 256 x 32;
 * bench/results/scans-h100-lookback.txt).
 */
#define LOOKBACK_BLOCK 512
#define LOOKBACK_RUN_BYTES 128
#define LOOKBACK_MAX_RUN 32

/* A CPU scan cuts a level into this many work-items a compute unit: some slack for uneven cores. */
#define CPU_ITEMS_PER_UNIT 4

/* Chunks a CPU work-item walks in step (cl/scan/chunks.cl's CHUNK_WAYS). */
#define CPU_CHUNK_WAYS 4

const struct scan_path *scan_path_choose(const clfold_context *ctx)
{
    if (ctx->scan_kernel != CLFOLD_SCAN_AUTO)
        return &LADDER[ctx->scan_kernel];
    bool cpu = ctx->settings.auto_shape == CLFOLD_PARAM_AUTO
                   ? ctx->caps.cpu_shape
                   : ctx->settings.auto_shape == CLFOLD_SHAPE_CPU;
    return cpu ? &CPU_CHUNKS : &GPU_TILES;
}

size_t scan_local_values(const struct scan_job *job)
{
    size_t values = 2 * job->block, tile = job->block * job->run_items;
    if (job->lookback)
        return job->block / 32; /* tiles.cl's scan_warp_totals: the warps' totals */
    if (job->path == &GPU_TILES)
        return tile + tile / 32 + values; /* tiles.cl: its staging, then Kogge-Stone */
    return job->path->padded ? values + values / 32 : values;
}

/* The ladder's block: the one asked for, else 256 or what the device's groups and local memory allow. */
static clfold_status ladder_block(clfold_context *ctx, struct scan_job *job)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t acc = accumulator_size(&job->config.acc);
    job->block = ctx->scan_block;
    if (job->block == 0) {
        job->block = ctx->caps.max_work_group_size < DEFAULT_BLOCK ? ctx->caps.max_work_group_size
                                                                   : DEFAULT_BLOCK;
        while (job->block > 2 && scan_local_values(job) * acc > ctx->caps.local_mem_size)
            job->block /= 2;
    }
    if (scan_local_values(job) * acc > ctx->caps.local_mem_size)
        FAIL(CLFOLD_ERROR_INVALID_BLOCK_SIZE,
             "%s at block size %zu needs %zu bytes of local memory; the device has %llu",
             job->path->name, job->block, scan_local_values(job) * acc,
             (unsigned long long)ctx->caps.local_mem_size);
cleanup:
    return status;
}

/*
 * Whether the one-launch scan runs: NVIDIA (PTX's relaxed loads and stores
 * at the GPU's scope, shfl.sync), unless scan_lookback is 0. Three
 * launches take:
 *   - the compensated accuracy: a pair's carry would add a rounding of its
 *     own a tile to the look-back's chain, which a long enough chain would
 *     take past the documented bound;
 *   - float products: their runs fold factors, not accumulator values;
 *   - groups that are not whole warps (tiles.cl's WARP_SCANS);
 *   - 8- and 16-bit products into 64 bits: reading the elements twice costs
 *     little (10 bytes an element against 9 for int8), and three launches
 *     are faster (H100, 2^28 int16 products: 1.163 ms against 1.300 in one;
 *     bench/results/scans-h100-lookback.txt).
 * 8- and 16-bit sums take the one launch, their tiles added in ints
 * (tile_sums_fit_int, below) and their rows kept in local memory
 * (lookback_local_rows, below), as int32 sums' are.
 */
/* The one-launch scan's groups: LOOKBACK_BLOCK, the device's largest if smaller, or scan_gpu_block. */
static size_t lookback_block(const clfold_context *ctx)
{
    if (ctx->settings.scan_gpu_block != CLFOLD_PARAM_AUTO)
        return (size_t)ctx->settings.scan_gpu_block;
    return ctx->caps.max_work_group_size < LOOKBACK_BLOCK ? ctx->caps.max_work_group_size
                                                          : LOOKBACK_BLOCK;
}

static bool lookback_can_run(const clfold_context *ctx, const struct build_config *config)
{
    const struct accumulator *acc = &config->acc;
    size_t block = lookback_block(ctx);
    bool narrow = type_info(config->in)->size * 4 <= type_info(acc->result)->size;
    return ctx->caps.inline_ptx && ctx->caps.warp_shuffle && ctx->settings.scan_lookback &&
           !acc->compensated && !acc->scaled && (!narrow || sums_small_integers(config)) &&
           block % 32 == 0 && block <= 1024;
}

/*
 * Whether a one-launch tile of 8- or 16-bit sums adds in ints (tiles.cl's
 * SMALL_INT_SUM): where no tile's sum can leave one, 255 or 65535 times
 * the tile's elements below 2^31. Ints take half the registers of int64s.
 *
 * Where such a tile's rows do not fit local memory (lookback_local_rows),
 * its elements and prefixes stay in registers, and its program is rebuilt
 * from its PTX with .minnctapersm 2 (program.c): 64 registers, so that two
 * groups of 512 run a multiprocessor, where the compiler's 88 to 93 let
 * one (H100, 2^28 int16 sums: 1.074 ms against 1.149;
 * bench/results/scans-h100-small.txt). int32 sums, whose prefixes are
 * int64, keep the compiler's registers: held to 64 they spill.
 */
static bool tile_sums_fit_int(const struct scan_job *job)
{
    size_t largest = type_info(job->config.in)->size == 1 ? 255 : 65535;
    return sums_small_integers(&job->config) &&
           job->block * job->run_items <= (((size_t)1 << 31) - 1) / largest;
}

/*
 * The one-launch scan's tiles: lookback_block x 128 bytes of elements, or
 * scan_gpu_block and scan_gpu_run_items where set (CLFOLD_SCAN_GPU). A
 * work-item that holds more than WIDE_TILE_BYTES of accumulator values
 * (int32 sums: 32 int64 prefixes, which NVIDIA's
 * compiler gives 128 registers) takes groups of WIDE_TILE_BLOCK, so that
 * two groups still fit a multiprocessor and int32 sums' rows fit local
 * memory (lookback_local_rows: 32 KiB). Only int32 sums are timed so (H100,
 * 2^28 sums: 1.131 ms in 256 x 32 against 1.153 in 512 x 16;
 * bench/results/scans-h100-local-rows.txt); uint32 sums, 32-bit integer
 * products and fp64-accuracy float sums hold the same 32 8-byte values a
 * work-item, and take the same groups (uint32 sums their rows in local
 * memory too). 8- and 16-bit sums add their tiles in ints
 * (tile_sums_fit_int).
 */
#define WIDE_TILE_BYTES 128
#define WIDE_TILE_BLOCK 256

static void lookback_geometry(const clfold_context *ctx, clfold_type type, struct scan_job *job)
{
    size_t items = LOOKBACK_RUN_BYTES / type_info(type)->size;
    job->block = lookback_block(ctx);
    job->run_items = items > LOOKBACK_MAX_RUN ? LOOKBACK_MAX_RUN : items;
    if (ctx->settings.scan_gpu_run_items != CLFOLD_PARAM_AUTO)
        job->run_items = (size_t)ctx->settings.scan_gpu_run_items;
    if (ctx->settings.scan_gpu_block != CLFOLD_PARAM_AUTO)
        return;
    bool wide = job->run_items * accumulator_size(&job->config.acc) > WIDE_TILE_BYTES &&
                !sums_small_integers(&job->config);
    if (wide && job->block > WIDE_TILE_BLOCK)
        job->block = WIDE_TILE_BLOCK;
}

/*
 * How many tiles ahead a one-launch tile asks L2 for elements (tiles.cl's
 * PREFETCH_TILES), or scan_prefetch's (CLFOLD_SCAN_PREFETCH): D = compute
 * units x 256 / block, half a tile a multiprocessor in groups of 512, one
 * in groups of 256 (66 and 132 on the H100).
 *
 * A tile waits on the tiles before it, and while a multiprocessor's groups
 * wait, nothing of it reads. A tile that asks for tile t + D's elements as
 * it loads its own keeps DRAM reading through those waits, and the group
 * that draws ticket t + D finds them in L2. D must be long enough for DRAM
 * to answer before that group starts, and short enough that L2 still holds
 * the lines when it does (on an H200, float sums a whole round of groups
 * ahead take longer than with none). 256 work-items' worth a unit is the
 * fastest D measured (H100, 2^28 float sums: 0.750-0.759 ms at D = 66,
 * against 0.804-0.807 with none; bench/results/scans-h100-prefetch.txt;
 * an H200 agrees, bench/results/scans-h200-prefetch.txt).
 */
#define PREFETCH_WORK_ITEMS_PER_UNIT 256

static unsigned lookback_prefetch(const clfold_context *ctx, const struct scan_job *job)
{
    if (ctx->settings.scan_prefetch != CLFOLD_PARAM_AUTO)
        return (unsigned)ctx->settings.scan_prefetch;
    /* job->block is whole warps (lookback_can_run), never 0. A device of fewer
       than block / 256 compute units rounds D to 0; it still asks for the next tile. */
    size_t tiles = (size_t)ctx->caps.compute_units * PREFETCH_WORK_ITEMS_PER_UNIT / job->block;
    return tiles > 0 ? (unsigned)tiles : 1;
}

/*
 * Whether a one-launch tile keeps its rows in local memory, as loaded
 * (tiles.cl's LOCAL_ROWS): integer sums that widen, 8- to 32-bit elements
 * into 64-bit sums, in runs of whole rows, where the tile's elements fit
 * the device's local memory beside the look-back's. Such a kernel holds no
 * element or prefix in registers through the look-back (NVIDIA's compiler
 * gives it 32 to 40 registers), so more of its groups fit a multiprocessor:
 * LOCAL_ROWS_WORK_ITEMS_PER_UNIT work-items' worth (.minnctapersm 3 for
 * groups of 512, 6 for 256), the fastest count measured (H100, 2^28 int8
 * sums: 0.869-0.884 ms, against 0.946-0.952 with the rows in registers;
 * bench/results/scans-h100-local-rows.txt). Other groups, of
 * scan_gpu_block's, take the compiler's registers: 1536 work-items in
 * groups of 32 would be 48 groups, past what a multiprocessor holds.
 */
#define LOCAL_ROWS_WORK_ITEMS_PER_UNIT 1536

static bool lookback_local_rows(const clfold_context *ctx, const struct scan_job *job)
{
    const struct type_info *in = type_info(job->config.in);
    size_t result = type_info(job->config.acc.result)->size;
    size_t acc = accumulator_size(&job->config.acc);
    /* tiles.cl's kernel-scope locals besides the rows: the look-back's kept values, the
       tile's prefix and ticket; and the warps' totals in `buf` */
    size_t lookback_bytes = (LOOKBACK_ROUNDS * 32 + 1 + job->block / 32) * acc + sizeof(cl_uint);
    size_t rows_bytes = job->block * job->run_items * in->size;
    return op_fold(job->config.op) == FOLD_ADD && in->float_bits == 0 && in->size < result &&
           job->run_items % (16 / result) == 0 &&
           rows_bytes + lookback_bytes <= ctx->caps.local_mem_size;
}

/* Three launches' tiles, staged in local memory: halve the run, then the group, until one fits. */
static clfold_status staged_geometry(clfold_context *ctx, const struct accumulator *acc,
                                     struct scan_job *job)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t run_bytes = acc->scaled ? GPU_SCALED_RUN_BYTES : GPU_RUN_BYTES;
    size_t size = accumulator_size(acc), items = run_bytes / size;
    job->block = ctx->caps.max_work_group_size < GPU_TILE_BLOCK ? ctx->caps.max_work_group_size
                                                                : GPU_TILE_BLOCK;
    job->run_items = items < 4 ? 4 : items > 16 ? 16 : items;
    bool own_block = ctx->settings.scan_gpu_block == CLFOLD_PARAM_AUTO;
    bool own_run = ctx->settings.scan_gpu_run_items == CLFOLD_PARAM_AUTO;
    if (!own_block)
        job->block = (size_t)ctx->settings.scan_gpu_block;
    if (!own_run)
        job->run_items = (size_t)ctx->settings.scan_gpu_run_items;
    /* Only what the parameters leave to the scan shrinks. */
    while (own_run && job->run_items > 1 && scan_local_values(job) * size > ctx->caps.local_mem_size)
        job->run_items /= 2;
    while (own_block && job->block > 2 && scan_local_values(job) * size > ctx->caps.local_mem_size)
        job->block /= 2;
    if (scan_local_values(job) * size > ctx->caps.local_mem_size)
        FAIL(CLFOLD_ERROR_INVALID_BLOCK_SIZE,
             "scan tiles of %zu x %zu need %zu bytes of local memory; the device has %llu",
             job->block, job->run_items, scan_local_values(job) * size,
             (unsigned long long)ctx->caps.local_mem_size);
cleanup:
    return status;
}

/* tiles.cl's knobs: the one-launch scan's, where it runs; none for three launches' tiles. */
struct tiles_knobs {
    bool small_int_sum;            /* SMALL_INT_SUM: 8- and 16-bit sums add tiles in ints */
    bool local_rows;               /* LOCAL_ROWS: a tile's rows kept in local memory */
    unsigned prefetch_tiles;       /* PREFETCH_TILES: tiles ahead asked of L2; 0: none */
};

/*
 * The one-launch scan's tiles (lookback_geometry) and knobs, and the groups
 * that its PTX fits on a multiprocessor.
 */
static void lookback_job(clfold_context *ctx, clfold_type type, struct scan_job *job,
                         struct tiles_knobs *knobs)
{
    lookback_geometry(ctx, type, job);
    knobs->prefetch_tiles = lookback_prefetch(ctx, job);
    knobs->small_int_sum = tile_sums_fit_int(job);
    knobs->local_rows = lookback_local_rows(ctx, job);
    if (knobs->local_rows) {
        if (job->block == 256 || job->block == 512)
            job->config.groups_per_unit = (unsigned)(LOCAL_ROWS_WORK_ITEMS_PER_UNIT / job->block);
    } else if (knobs->small_int_sum && job->block <= LOOKBACK_BLOCK) {
        job->config.groups_per_unit = 2;
    }
}

/* tiles.cl's defines: a work-item's run, and the one-launch scan's look-back and knobs. */
static void tiles_defines(const struct scan_job *job, const struct tiles_knobs *knobs,
                          struct path_defines *defines)
{
    if (knobs->small_int_sum)
        path_define(defines, DEFINE_HEAD, " -DSMALL_INT_SUM=1");
    path_define(defines, DEFINE_TAIL, " -DRUN_ITEMS=%zu", job->run_items);
    if (job->lookback)
        path_define(defines, DEFINE_TAIL, " -DLOOKBACK_ROUNDS=%d", LOOKBACK_ROUNDS);
    if (knobs->local_rows)
        path_define(defines, DEFINE_TAIL, " -DLOCAL_ROWS=1");
    if (knobs->prefetch_tiles != 0)
        path_define(defines, DEFINE_TAIL, " -DPREFETCH_TILES=%u", knobs->prefetch_tiles);
}

clfold_status scan_job_make(clfold_context *ctx, clfold_type type, clfold_op op,
                            struct scan_job *job)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct accumulator acc;
    CHECK(accumulator_choose(ctx, type, op, CLFOLD_AUTO, &acc));
    *job = (struct scan_job){.path = scan_path_choose(ctx), .tiles_per_group = 1};
    job->config = (struct build_config){.source = job->path->source, .in = type, .acc = acc,
                                        .op = op};
    if (job->path == &GPU_TILES && ctx->caps.max_work_group_size < 2)
        job->path = &CPU_CHUNKS; /* a device of one work-item a group runs chunks */
    if (job->path == &CPU_CHUNKS) {
        job->block = 1;
        job->tiles_per_group = CPU_CHUNK_WAYS;
        job->chunks_per_level = (size_t)ctx->caps.compute_units * CPU_ITEMS_PER_UNIT * CPU_CHUNK_WAYS;
        job->config.block_size = 1;
        path_define(&job->config.defines, DEFINE_TAIL, " -DCHUNK_WAYS=%d", CPU_CHUNK_WAYS);
    } else if (job->path == &GPU_TILES) {
        struct tiles_knobs knobs = {false, false, 0};
        job->lookback = lookback_can_run(ctx, &job->config);
        if (job->lookback)
            lookback_job(ctx, type, job, &knobs);
        else
            CHECK(staged_geometry(ctx, &acc, job));
        job->config.block_size = job->block;
        job->config.inline_ptx = true; /* the look-back's loads, stores and fences in PTX */
        tiles_defines(job, &knobs, &job->config.defines);
    } else {
        CHECK(ladder_block(ctx, job));
    }
cleanup:
    return status;
}
