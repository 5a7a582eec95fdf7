/*
 * axis.c: the reductions with many results (cl/reduce/axis.cl): every row
 * or column of a matrix, every segment of an offsets array. It checks a
 * request, chooses the geometry from the shape and the device, and
 * enqueues one launch, or two where a row is cut into pieces or a column
 * into slices to keep every compute unit busy; the blocking forms then
 * wait and read the results.
 *
 * The geometry depends on the shape and the device only, never on timing,
 * so every result is run-to-run deterministic.
 */
#include <stdlib.h>

#include "checks.h"
#include "host_input.h"
#include "path.h"

/* A checked request: what to fold, and into how many results. */
struct axis_request {
    const char *path;            /* "rows", "columns" or "segments" (clfold_run_info's path) */
    bool columns;                /* axis 0: reduce_columns' kind of kernel; else rows' */
    clfold_type type;
    clfold_op op;
    struct accumulator acc;
    cl_mem in;
    size_t offset;               /* element (0, 0), or the segments' element 0 */
    size_t rows;                 /* rows of the matrix, or segments */
    size_t cols;                 /* columns; for segments, the elements they lie in */
    size_t pitch;
    cl_mem bounds;               /* segments: rows + 1 offsets; else NULL */
    size_t results;
};

/* The geometry of one request. */
struct axis_shape {
    size_t block;                /* work-items a group */
    unsigned team;               /* rows: work-items a row; columns: WIDTH */
    unsigned cols_per_item;      /* columns: COLS_PER_ITEM */
    unsigned vec;                /* rows on GPUs: elements a lane loads at once */
    unsigned lanes;              /* CPUs: cpu.cl's vector lanes (its kernels); 0: axis.cl's */
    unsigned col_vectors;        /* ... or its vectors of neighbouring columns (columns) */
    unsigned prefetch;           /* ... and the bytes a row's stream asks for ahead (rows) */
    bool small_int_sum;          /* ... adding 8- and 16-bit integers in 32-bit lanes first */
    bool strided;                /* rows on GPUs: a group's rounds are every groups-th */
    unsigned row_vectors;        /* short rows on GPUs: each lane's loads of a row (0: not short) */
    unsigned round_rows;         /* ... and the rows a team takes a round */
    size_t pieces;               /* rows: pieces a row (1: one pass); columns: slices */
    unsigned shift;              /* rows: log2 of pieces; columns: log2 of the column blocks' stride */
    size_t per_group;            /* rows: pieces a group; columns: rows a slice */
    size_t groups;
};

/* A row's work is cut into pieces no shorter than this, where rows are too few to fill the device. */
#define GPU_MIN_PIECE 4096
#define CPU_MIN_PIECE 16384

/* Work-items a GPU keeps resident per compute unit (a Hopper SM holds 2048). */
#define GPU_ITEMS_PER_UNIT 2048

/*
 * Columns on CPUs: a work-item's band of neighbouring columns, up to this
 * many vectors (cpu.cl's reduce_cpu_columns), a whole row where it fits:
 * the wider the band, the faster (POCL 3.1, 8192 x 8192 floats: 5.5-5.7
 * ms in bands of 512 vectors, 8.1-8.3 in bands of 16;
 * bench/results/kernel-choices-pocl3.txt).
 */
#define CPU_BAND_VECTORS 512

/*
 * Rows and segments on CPUs: each work-item reads its rows in one stream
 * (fold_chunk's ACCS = 1) and, where the device takes the hint
 * (device.c's has_prefetch_hints), asks for the lines this many bytes ahead
 * (cpu.cl's PREFETCH), which carries the stream across rows. A row in
 * several streams, cpu_streams' eight, leaves each stream a 4 KiB page of
 * a 2^13-float row to train the hardware's prefetcher on before it ends
 * (POCL 3.1: 2^13 x 2^13 float sums 1.14-1.23x faster in one stream;
 * bench/results/kernel-choices-pocl3.txt). The whole array, one long run a
 * work-item, gains nothing by it.
 */
#define CPU_ROW_PREFETCH 4096

/* A CPU gets this many groups a compute unit, so that uneven rows even out. */
#define CPU_GROUPS_PER_UNIT 8

static size_t power_below(size_t n) /* the largest power of two <= n, for n >= 1 */
{
    size_t p = 1;
    while (p <= n / 2)
        p *= 2;
    return p;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

static unsigned log2_of(size_t power) /* of a power of two */
{
    unsigned shift = 0;
    while (((size_t)1 << shift) < power)
        shift++;
    return shift;
}

/* The device's shape, or the one auto_shape forces (how CI tests both on one device). */
static bool cpu_shaped(const clfold_context *ctx)
{
    if (ctx->settings.auto_shape == CLFOLD_PARAM_AUTO)
        return ctx->caps.cpu_shape;
    return ctx->settings.auto_shape == CLFOLD_SHAPE_CPU;
}

/* GPU groups of 256, fewer where local memory holds fewer accumulator values. */
static size_t gpu_block(const clfold_context *ctx, const struct accumulator *acc)
{
    size_t block = min_size(256, ctx->caps.max_work_group_size);
    while (block > 1 && block * accumulator_size(acc) > ctx->caps.local_mem_size)
        block /= 2;
    return block;
}

/*
 * Lanes for a row of `loads` loads: about two loads each, at most the
 * block: faster than one or four (H100, 2^23 rows of 32 floats: 0.429 ms
 * against 0.437 and 0.490; bench/results/kernel-choices-nvidia.txt).
 */
static unsigned team_for(size_t loads, size_t block)
{
    return (unsigned)min_size(power_below(loads / 2 > 0 ? loads / 2 : 1), block);
}

/*
 * 16 bytes a load on GPUs for the caller's plain elements: not halves,
 * which convert one by one, not exact sums, whose runs take doubles, and
 * not the second pass's accumulator values.
 */
static unsigned rows_vector(const clfold_context *ctx, const struct axis_request *request,
                            bool cpu)
{
    size_t size = type_info(request->type)->size;
    if (cpu || request->type == CLFOLD_HALF || request->acc.exact || size >= 16 ||
        ctx->caps.base_align_bytes < 16)
        return 1;
    return (unsigned)(16 / size);
}

/*
 * CPUs fold with cpu.cl's vector lanes (its reduce_cpu_rows and
 * reduce_cpu_columns): a scalar run per element, with its compensation, runs
 * POCL 20 times slower than an OpenMP loop
 * (bench/results/kernel-choices-pocl3.txt). Its exact sums add in doubles
 * (EXACT_FPE), and its lanes merge into one state, which columns cannot
 * use: there, and without doubles, axis.cl's kernels run.
 */
static void cpu_lanes_shape(const clfold_context *ctx, const struct axis_request *request,
                            bool columns, struct axis_shape *shape)
{
    struct build_config config = {.in = request->type, .acc = request->acc, .op = request->op};
    if (request->acc.exact && (columns || !ctx->caps.has_fp64))
        return;
    shape->small_int_sum = !columns && sums_small_integers(&config);
    shape->prefetch = ctx->caps.prefetch_hints ? CPU_ROW_PREFETCH : 0;
    shape->lanes = cpu_lanes(ctx, &config, shape->small_int_sum);
    /*
     * Columns: a band of up to CPU_BAND_VECTORS vectors a row, so that a
     * work-item reads whole rows where they fit. An arg's lanes take two
     * registers a vector (a key and a row): up to 4, since 8 or 16 are
     * slower on POCL 3.1 (16 spill registers;
     * bench/results/kernel-choices-pocl3.txt).
     */
    unsigned most_vectors = request->acc.arg ? 4 : CPU_BAND_VECTORS;
    shape->col_vectors = 1;
    while (columns && shape->col_vectors < most_vectors &&
           (size_t)shape->col_vectors * shape->lanes < request->cols)
        shape->col_vectors *= 2;
}

/*
 * Loads a lane keeps in flight on short rows (reduce_short_rows): the GPU
 * shape's UNROLL.
 */
#define SHORT_ROW_LOADS 4

/*
 * Rows of one length whose every start lies aligned to the vector, and
 * short enough that each lane of a team loads at most SHORT_ROW_LOADS
 * vectors of one: reduce_short_rows takes several a round.
 */
static void short_rows_shape(const struct axis_request *request, struct axis_shape *shape)
{
    size_t vec = shape->vec, span = vec * shape->team;
    if (request->bounds != NULL || shape->pieces != 1 || vec < 2 || request->offset % vec != 0 ||
        request->pitch % vec != 0 || request->cols == 0 || request->cols % span != 0 ||
        request->cols / span > SHORT_ROW_LOADS)
        return;
    shape->row_vectors = (unsigned)(request->cols / span);
    shape->round_rows = SHORT_ROW_LOADS / shape->row_vectors;
}

/*
 * Segments whose average is long are cut into pieces even when they are
 * many, up to this many a segment: a power-law mix has a few segments
 * hundreds of times the average, and whole, each would hold one group
 * while the rest of the device idles.
 */
#define MOST_SEGMENT_PIECES 64

/*
 * Rows and segments. GPUs: a team of lanes a row, sized to the row, as many
 * rows a group as teams fit, the groups' rounds interleaved. CPUs: one
 * work-item a group, folding contiguous rows in order. Rows too few to fill
 * the device, and long segments, are cut into pieces.
 */
static void rows_shape(const clfold_context *ctx, const struct axis_request *request,
                       struct axis_shape *shape)
{
    bool cpu = cpu_shaped(ctx);
    size_t units = ctx->caps.compute_units;
    size_t length = request->bounds != NULL ? request->cols / request->rows : request->cols;
    size_t min_piece = cpu ? CPU_MIN_PIECE : GPU_MIN_PIECE;

    shape->block = cpu ? 1 : gpu_block(ctx, &request->acc);
    shape->vec = rows_vector(ctx, request, cpu);
    shape->strided = !cpu;
    shape->team = cpu ? 1 : team_for(length / shape->vec, shape->block);
    size_t fill = cpu ? units * CPU_GROUPS_PER_UNIT : units * GPU_ITEMS_PER_UNIT / shape->team;
    shape->pieces = 1;
    if (request->rows < fill && length >= 2 * min_piece)
        shape->pieces = power_below(min_size(divide_up(fill, request->rows), length / min_piece));
    if (request->bounds != NULL && !cpu && length >= 2 * min_piece)
        shape->pieces = power_below(min_size(length / min_piece, MOST_SEGMENT_PIECES));
    if (shape->pieces > 1 && !cpu)
        shape->team = team_for(divide_up(length, shape->pieces) / shape->vec, shape->block);
    shape->shift = log2_of(shape->pieces);
    if (cpu)
        cpu_lanes_shape(ctx, request, false, shape);
    else
        short_rows_shape(request, shape);
    size_t teams = shape->block / shape->team;
    size_t work = divide_up(request->rows * shape->pieces, teams); /* rounds of a group's teams */
    size_t most = cpu ? units * CPU_GROUPS_PER_UNIT : units * GPU_ITEMS_PER_UNIT / shape->block;
    size_t groups = min_size(divide_up(work, shape->round_rows > 1 ? shape->round_rows : 1), most);
    shape->per_group = divide_up(work, groups) * teams;
    shape->groups = shape->strided ? groups
                                   : divide_up(request->rows * shape->pieces, shape->per_group);
}

/*
 * Columns. GPUs: a group spans up to 32 work-items across neighbouring
 * columns, each loading 16 bytes of them where every row's columns lie
 * aligned for it (else one element: a 128-byte line of floats a row), with
 * the group's other lanes down the rows. CPUs: one work-item folds a cache
 * line's worth of columns. Rows are cut into slices until the groups fill
 * the device.
 */
static void columns_shape(const clfold_context *ctx, const struct axis_request *request,
                          struct axis_shape *shape)
{
    bool cpu = cpu_shaped(ctx);
    size_t units = ctx->caps.compute_units;
    size_t rows = request->rows, cols = request->cols;

    shape->block = cpu ? 1 : gpu_block(ctx, &request->acc);
    if (cpu) {
        shape->team = 1;
        cpu_lanes_shape(ctx, request, true, shape);
        shape->cols_per_item = shape->lanes != 0 ? shape->lanes * shape->col_vectors
                             : (unsigned)min_size(16, 64 / type_info(request->type)->size);
    } else {
        unsigned vec = rows_vector(ctx, request, cpu);
        bool aligned = request->offset % vec == 0 && request->pitch % vec == 0;
        shape->vec = aligned ? vec : 1;
        shape->cols_per_item = shape->vec;
        size_t wide = 1;
        while (wide * shape->vec < cols && wide < 32)
            wide *= 2;
        shape->team = (unsigned)min_size(wide, shape->block);
    }
    size_t lanes = shape->block / shape->team;
    size_t col_blocks = divide_up(cols, shape->team * shape->cols_per_item);
    size_t fill = cpu ? units * CPU_GROUPS_PER_UNIT : units * GPU_ITEMS_PER_UNIT / shape->block * 2;
    size_t slices = 1;
    if (col_blocks < fill)
        slices = min_size(divide_up(fill, col_blocks), divide_up(rows, lanes * 64));
    slices = slices > 0 ? slices : 1;
    shape->per_group = rows > 0 ? divide_up(rows, slices) : 1;
    shape->pieces = rows > 0 ? divide_up(rows, shape->per_group) : 1;
    /* Column blocks a slice: a power of two (axis.cl says why), the last ones perhaps idle. */
    shape->shift = log2_of(col_blocks > 1 ? 2 * power_below(col_blocks - 1) : 1);
    shape->groups = shape->pieces << shape->shift;
}

/* Whether the CPU's lanes fold the pass (cpu.cl's kernels): the caller's elements on a CPU shape. */
static bool folds_in_lanes(const struct axis_shape *shape, bool partials)
{
    return shape->lanes != 0 && !partials;
}

/*
 * The build of a pass over the caller's elements or, with partials, over
 * the first pass's values (always axis.cl's kernels: they are few). With
 * `whole`, its results are stored whole (ALIGNED_RESULTS).
 */
static struct build_config axis_config(const struct axis_request *request,
                                       const struct axis_shape *shape, bool partials, bool whole)
{
    bool columns = request->columns, cpu = folds_in_lanes(shape, partials);
    struct build_config config = {.source = "reduce/axis.cl", .in = request->type,
                                  .in_partials = partials, .acc = request->acc,
                                  .op = request->op, .block_size = shape->block};
    struct path_defines *defines = &config.defines;
    if (cpu) {
        struct cpu_knobs knobs = {.vec = shape->lanes, .accs = 1, .prefetch = shape->prefetch,
                                  .small_int_sum = shape->small_int_sum,
                                  .segmented = !columns && request->bounds != NULL,
                                  .col_vectors = columns ? shape->col_vectors : 0};
        config.source = cpu_source(&config);
        config.block_size = 0;
        cpu_defines(&knobs, defines);
    } else if (columns) {
        if (!partials && shape->vec != 0)
            path_define(defines, DEFINE_HEAD, " -DVEC=%u", shape->vec);
    } else {
        if (!partials && shape->vec != 0)
            path_define(defines, DEFINE_HEAD, " -DVEC=%u", shape->vec);
        if (shape->team != 0)
            path_define(defines, DEFINE_HEAD, " -DTEAM=%u", shape->team);
        if (!partials && shape->row_vectors != 0)
            path_define(defines, DEFINE_HEAD, " -DROW_VECTORS=%u -DROUND_ROWS=%u",
                        shape->row_vectors, shape->round_rows);
        if (!partials && request->bounds != NULL)
            path_define(defines, DEFINE_HEAD, " -DSEGMENTED=1");
        if (shape->strided)
            path_define(defines, DEFINE_TAIL, " -DSTRIDED=1");
    }
    if (whole)
        path_define(defines, DEFINE_TAIL, " -DALIGNED_RESULTS=1");
    if (columns && !cpu && shape->team != 0)
        path_define(defines, DEFINE_TAIL, " -DWIDTH=%u -DCOLS_PER_ITEM=%u", shape->team,
                    shape->cols_per_item);
    return config;
}

/* A pass's kernel: cpu.cl's where the CPU's lanes fold the caller's elements, else axis.cl's. */
static const char *axis_entry(const struct axis_shape *shape, bool columns, bool partials)
{
    bool cpu = folds_in_lanes(shape, partials);
    return columns                                ? (cpu ? "reduce_cpu_columns" : "reduce_columns")
         : cpu                                    ? "reduce_cpu_rows"
         : shape->row_vectors != 0 && !partials ? "reduce_short_rows"
                                                  : "reduce_rows";
}

/* Whether the request's results lie at multiples of their size: the last pass stores them whole. */
static bool stores_whole(const struct axis_request *request, const struct fold *fold)
{
    return fold->at % type_info(request->acc.result)->size == 0;
}

/*
 * The rows kernels' parameters (axis.cl's reduce_rows and reduce_short_rows,
 * cpu.cl's and cpu_arg.cl's reduce_cpu_rows) and the columns kernels'
 * (reduce_columns, reduce_cpu_columns): the matrix, then how it is cut.
 */
#define MATRIX_PARAMS "rows", "cols", "pitch"
static kernel_params ROWS_KERNEL = {FOLD_PARAMS, MATRIX_PARAMS, "piece_shift", "per_group",
                                    "bounds", NULL};
static kernel_params COLUMNS_KERNEL = {FOLD_PARAMS, MATRIX_PARAMS, "slice_rows", "block_shift",
                                       NULL};

/* A launch's matrix (rows, cols, pitch) and its cut: the pieces' or slices' two numbers. */
struct axis_args {
    cl_ulong rows, cols, pitch;
    cl_ulong cut[2];
};

/*
 * One launch of a rows or columns kernel (axis.cl's, or cpu.cl's), built
 * as the pass's config: the common arguments, then the kernel's own, and
 * the bounds for rows.
 */
static clfold_status axis_launch(clfold_context *ctx, const char *entry, bool columns,
                                 const struct fold *fold, const struct pass *pass,
                                 const struct axis_args *args, cl_mem bounds, size_t groups,
                                 size_t block, struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    const char *const *params = columns ? COLUMNS_KERNEL : ROWS_KERNEL;
    const char *cut[2] = {columns ? "slice_rows" : "piece_shift",
                          columns ? "block_shift" : "per_group"};
    cl_kernel kernel = NULL;
    CHECK(program_kernel(ctx, pass->config, entry, &kernel));
    CHECK(kernel_arg(ctx, kernel, params, "rows", sizeof args->rows, &args->rows));
    CHECK(kernel_arg(ctx, kernel, params, "cols", sizeof args->cols, &args->cols));
    CHECK(kernel_arg(ctx, kernel, params, "pitch", sizeof args->pitch, &args->pitch));
    for (int i = 0; i < 2; i++)
        CHECK(kernel_arg(ctx, kernel, params, cut[i], sizeof args->cut[i], &args->cut[i]));
    if (!columns)
        CHECK(kernel_arg(ctx, kernel, params, "bounds", sizeof bounds, &bounds));
    CHECK(launch_kernel(ctx, kernel, entry, params, fold, pass, groups * block, block, log));
cleanup:
    return status;
}

/* A first pass that leaves `values` accumulator values for a second: they go to partials[0]. */
static clfold_status pass_to_partials(clfold_context *ctx, const struct axis_request *request,
                                      const struct fold *fold, size_t values, struct pass *pass)
{
    clfold_status status = CLFOLD_SUCCESS;
    CHECK(scratch_partials(ctx, fold->scratch, 0, values * accumulator_size(&request->acc)));
    pass->out = fold->scratch->partials[0];
cleanup:
    return status;
}

/* Rows and segments: one pass, or a pass of pieces and one that folds each row's pieces. */
static clfold_status rows_enqueue(clfold_context *ctx, const struct axis_request *request,
                                  const struct axis_shape *shape, struct fold *fold,
                                  struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    bool split = shape->pieces > 1;
    /* Elements read; for segments, also the kernel's n, to which their offsets are clamped. */
    size_t read = request->bounds != NULL ? request->cols : request->rows * request->cols;
    bool whole = stores_whole(request, fold);
    struct build_config config = axis_config(request, shape, false, !split && whole);
    struct pass pass = {&config, request->in, request->offset, read, NULL, shape->groups, 0,
                        !split, request->results * (split ? shape->pieces : 1)};
    struct axis_args args = {request->rows, request->cols, request->pitch,
                             {shape->shift, shape->per_group}};
    if (split)
        CHECK(pass_to_partials(ctx, request, fold, request->rows * shape->pieces, &pass));
    CHECK(axis_launch(ctx, axis_entry(shape, false, false), false, fold, &pass, &args,
                      request->bounds, shape->groups, shape->block, log));
    if (!split)
        goto cleanup;

    /* Each row's pieces are a row of the partial values' rows x pieces matrix. */
    struct axis_request folding = *request;
    folding.cols = folding.pitch = shape->pieces;
    folding.bounds = NULL;
    struct axis_shape second;
    rows_shape(ctx, &folding, &second);
    config = axis_config(&folding, &second, true, whole);
    pass = (struct pass){&config, fold->scratch->partials[0], 0, request->rows * shape->pieces,
                         NULL, second.groups, 0, true, request->results};
    struct axis_args folds = {folding.rows, folding.cols, folding.pitch,
                              {second.shift, second.per_group}};
    if (second.pieces != 1)
        FAIL(CLFOLD_ERROR_UNSUPPORTED, "internal: a row's pieces were cut again");
    CHECK(axis_launch(ctx, axis_entry(&second, false, true), false, fold, &pass, &folds, NULL,
                      second.groups, second.block, log));
cleanup:
    return status;
}

/* Columns: one pass, or a pass of slices and one that folds each column's slices. */
static clfold_status columns_enqueue(clfold_context *ctx, const struct axis_request *request,
                                     const struct axis_shape *shape, struct fold *fold,
                                     struct pass_log *log)
{
    clfold_status status = CLFOLD_SUCCESS;
    bool split = shape->pieces > 1;
    size_t stride = (size_t)1 << shape->shift; /* groups a slice */
    bool whole = stores_whole(request, fold);
    struct build_config config = axis_config(request, shape, false, !split && whole);
    struct pass pass = {&config, request->in, request->offset, request->rows * request->cols,
                        NULL, shape->groups, 0, !split,
                        request->results * (split ? shape->pieces : 1)};
    struct axis_args args = {request->rows, request->cols, request->pitch,
                             {shape->per_group, shape->shift}};
    if (split)
        CHECK(pass_to_partials(ctx, request, fold, shape->pieces * request->cols, &pass));
    CHECK(axis_launch(ctx, axis_entry(shape, true, false), true, fold, &pass, &args, NULL,
                      shape->groups, shape->block, log));
    if (!split)
        goto cleanup;

    /* The slices' values: a slices x cols matrix, folded down its columns in one slice. */
    config = axis_config(request, shape, true, whole);
    pass = (struct pass){&config, fold->scratch->partials[0], 0, shape->pieces * request->cols,
                         NULL, stride, 0, true, request->results};
    struct axis_args folds = {shape->pieces, request->cols, request->cols,
                              {shape->pieces, shape->shift}};
    CHECK(axis_launch(ctx, axis_entry(shape, true, true), true, fold, &pass, &folds, NULL, stride,
                      shape->block, log));
cleanup:
    return status;
}

/* Enqueues the request's results into out at byte `at`. */
static clfold_status axis_enqueue(clfold_context *ctx, const struct axis_request *request,
                                  cl_mem out, size_t at, struct scratch *scratch,
                                  struct pass_log *log, size_t *block)
{
    struct fold fold = {request->in, request->offset, 0, out, at, true, scratch};
    struct axis_shape shape = {0};
    bool columns = request->columns;
    if (columns)
        columns_shape(ctx, request, &shape);
    else
        rows_shape(ctx, request, &shape);
    *block = shape.block;
    return columns ? columns_enqueue(ctx, request, &shape, &fold, log)
                   : rows_enqueue(ctx, request, &shape, &fold, log);
}

/* What a request's type and operator need, and its accumulator. */
static clfold_status axis_request_start(clfold_context *ctx, cl_mem buffer, clfold_type type,
                                        clfold_op op, struct axis_request *request)
{
    clfold_status status = CLFOLD_SUCCESS;
    if (buffer == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "buffer is NULL");
    CHECK(check_request(ctx, type, op));
    *request = (struct axis_request){.type = type, .op = op, .in = buffer};
    CHECK(accumulator_choose(ctx, type, op, CLFOLD_AUTO, &request->acc));
cleanup:
    return status;
}

/*
 * The elements a matrix spans, from (0, 0) to the last row's end (none for
 * an empty one), once its pitch is checked.
 */
static clfold_status matrix_span(clfold_context *ctx, const clfold_matrix *matrix, size_t *span)
{
    clfold_status status = CLFOLD_SUCCESS;
    size_t rows = matrix->rows, cols = matrix->cols, pitch = matrix->row_pitch;
    *span = 0;
    if (pitch < cols)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "a row pitch of %zu elements is less than the "
             "matrix's %zu columns", pitch, cols);
    if (rows != 0 && cols != 0) {
        if (rows - 1 > (SIZE_MAX - cols) / pitch)
            FAIL(CLFOLD_ERROR_OUT_OF_BOUNDS, "a %zu x %zu matrix with a row pitch of %zu "
                 "exceeds the address space", rows, cols, pitch);
        *span = (rows - 1) * pitch + cols;
    }
cleanup:
    return status;
}

/* Checks a matrix and an axis: the view lies in the buffer, and the axis is 0 or 1. */
static clfold_status matrix_request(clfold_context *ctx, cl_mem buffer,
                                    const clfold_matrix *matrix, int axis, clfold_type type,
                                    clfold_op op, struct axis_request *request)
{
    clfold_status status = CLFOLD_SUCCESS;
    CHECK(axis_request_start(ctx, buffer, type, op, request));
    if (matrix == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "matrix is NULL");
    if (axis != 0 && axis != 1)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "axis %d of a matrix: it has axes 0 (down the "
             "columns) and 1 (along the rows)", axis);
    size_t rows = matrix->rows, cols = matrix->cols, pitch = matrix->row_pitch, span;
    CHECK(matrix_span(ctx, matrix, &span));
    CHECK(check_buffer(ctx, buffer, matrix->offset, span, type_info(type)->size));
    if (axis == 1 ? rows != 0 : cols != 0)
        CHECK(check_arg_length(ctx, op, axis == 1 ? cols : rows));
    request->path = axis == 1 ? "rows" : "columns";
    request->columns = axis == 0;
    request->offset = matrix->offset;
    request->rows = rows;
    request->cols = cols;
    request->pitch = pitch;
    request->results = axis == 1 ? rows : cols;
cleanup:
    return status;
}

/* Segments need offsets, num_segments + 1 of them, a count that a size_t holds. */
static clfold_status check_segment_count(clfold_context *ctx, bool have_offsets, size_t segments)
{
    clfold_status status = CLFOLD_SUCCESS;
    if (segments != 0 && !have_offsets)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "offsets is NULL");
    if (segments == SIZE_MAX)
        FAIL(CLFOLD_ERROR_TOO_LARGE, "%zu segments need more offsets than a size_t counts",
             segments);
cleanup:
    return status;
}

/* Checks segments: the elements lie in the buffer, and the offsets fit theirs. */
static clfold_status segments_request(clfold_context *ctx, cl_mem buffer, size_t offset,
                                      size_t count, cl_mem offsets, size_t segments,
                                      clfold_type type, clfold_op op,
                                      struct axis_request *request)
{
    clfold_status status = CLFOLD_SUCCESS;
    CHECK(axis_request_start(ctx, buffer, type, op, request));
    CHECK(check_buffer(ctx, buffer, offset, count, type_info(type)->size));
    CHECK(check_segment_count(ctx, offsets != NULL, segments));
    if (segments != 0)
        CHECK(check_buffer(ctx, offsets, 0, segments + 1, sizeof(cl_ulong)));
    request->path = "segments";
    request->offset = offset;
    request->rows = segments;
    request->cols = count;
    request->pitch = 0;
    request->bounds = offsets;
    request->results = segments;
cleanup:
    return status;
}

/* Offsets in host memory: non-decreasing, none past `count`; names the first that is not. */
static clfold_status check_bounds(clfold_context *ctx, const uint64_t *bounds, size_t segments,
                                  size_t count)
{
    clfold_status status = CLFOLD_SUCCESS;
    for (size_t s = 0; s <= segments; s++) {
        if (bounds[s] > count)
            FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "offsets[%zu] = %llu lies past the %zu elements",
                 s, (unsigned long long)bounds[s], count);
        if (s > 0 && bounds[s] < bounds[s - 1])
            FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "offsets[%zu] = %llu is less than offsets[%zu] "
                 "= %llu: offsets must not decrease", s, (unsigned long long)bounds[s], s - 1,
                 (unsigned long long)bounds[s - 1]);
    }
cleanup:
    return status;
}

/* The blocking forms' check of the offsets in a buffer. */
static clfold_status check_offsets(clfold_context *ctx, cl_mem offsets, size_t segments,
                                   size_t count)
{
    clfold_status status = CLFOLD_SUCCESS;
    uint64_t *bounds = malloc((segments + 1) * sizeof *bounds);
    if (bounds == NULL)
        FAIL(CLFOLD_ERROR_OUT_OF_HOST_MEMORY, "no memory for %zu offsets", segments + 1);
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, offsets, CL_TRUE, 0,
                                 (segments + 1) * sizeof *bounds, bounds, 0, NULL, NULL),
             "clEnqueueReadBuffer (offsets)");
    CHECK(check_bounds(ctx, bounds, segments, count));
cleanup:
    free(bounds);
    return status;
}

static void record_run(clfold_context *ctx, const struct axis_request *request, size_t block,
                       const struct pass_log *log)
{
    ctx->last_run = (clfold_run_info){CLFOLD_AUTO, request->path, block, 0, 0.0, 0, 0};
    add_run(&ctx->last_run, ctx, log);
    ctx->has_last_run = true;
}

/* The blocking forms: the results into scratch, read into `results`. */
static clfold_status axis_and_wait(clfold_context *ctx, const struct axis_request *request,
                                   void *results)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct pass_log log = {.timed = ctx->caps.profiling};
    struct scratch *scratch = NULL;
    size_t size = type_info(request->acc.result)->size, block = 0;

    if (request->results == 0)
        return CLFOLD_SUCCESS;
    CHECK(scratch_acquire(ctx, &scratch));
    CHECK(scratch_partials(ctx, scratch, 1, request->results * size));
    CHECK(axis_enqueue(ctx, request, scratch->partials[1], 0, scratch, &log, &block));
    CHECK_CL(clEnqueueReadBuffer(ctx->queue, scratch->partials[1], CL_FALSE, 0,
                                 request->results * size, results, 0, NULL, NULL),
             "clEnqueueReadBuffer (results)");
    CHECK_CL(clFinish(ctx->queue), "clFinish");
    record_run(ctx, request, block, &log);
cleanup:
    if (status != CLFOLD_SUCCESS)
        clFinish(ctx->queue); /* nothing of ours may still be running */
    scratch_all_free(ctx);
    pass_log_release(&log);
    return status;
}

/*
 * The non-blocking forms: the results into `result`. With no results there
 * is nothing to run, and the event is a marker after the wait list.
 */
static clfold_status axis_async(clfold_context *ctx, const struct axis_request *request,
                                cl_mem result, size_t at, cl_uint waits,
                                const cl_event *wait_list, cl_event *event)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct pass_log log = {.waits = waits, .wait_list = wait_list, .keep_last = true};
    struct scratch *scratch = NULL;
    size_t size = type_info(request->acc.result)->size, block = 0;
    cl_event done = NULL;

    if ((waits == 0) != (wait_list == NULL))
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "the wait list has %u events but is %s", waits,
             wait_list == NULL ? "NULL" : "not NULL");
    if (result == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "result is NULL");
    if (request->results > SIZE_MAX / size)
        FAIL(CLFOLD_ERROR_TOO_LARGE, "%zu results exceed the address space", request->results);
    CHECK(check_result(ctx, result, at, request->results * size));
    if (request->results == 0) {
        CHECK_CL(clEnqueueMarkerWithWaitList(ctx->queue, waits, wait_list, &done),
                 "clEnqueueMarkerWithWaitList");
        goto cleanup;
    }
    CHECK(scratch_acquire(ctx, &scratch));
    CHECK(axis_enqueue(ctx, request, result, at, scratch, &log, &block));
    /* The last launch's event: the scratch keeps it, and the caller gets a reference. */
    done = log.events[--log.count];
    scratch_hold(scratch, done);
    CHECK_CL(clRetainEvent(done), "clRetainEvent");
    record_run(ctx, request, block, &log);
cleanup:
    if (status != CLFOLD_SUCCESS && scratch != NULL && scratch->done == NULL)
        scratch_abandon(ctx, scratch);
    pass_log_release(&log);
    /* Written last: `event` may point into the wait list, which the enqueue read. */
    if (event != NULL)
        *event = status == CLFOLD_SUCCESS ? done : NULL;
    else if (done != NULL && status == CLFOLD_SUCCESS)
        clReleaseEvent(done);
    return status;
}

clfold_status clfold_reduce_axis(clfold_context *ctx, cl_mem buffer, const clfold_matrix *matrix,
                                 int axis, clfold_type type, clfold_op op, void *results)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct axis_request request;
    CHECK(begin_call(ctx, &(struct call){0}));
    CHECK(matrix_request(ctx, buffer, matrix, axis, type, op, &request));
    if (results == NULL && request.results != 0)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "results is NULL");
    CHECK(axis_and_wait(ctx, &request, results));
cleanup:
    return status;
}

clfold_status clfold_reduce_axis_async(clfold_context *ctx, cl_mem buffer,
                                       const clfold_matrix *matrix, int axis, clfold_type type,
                                       clfold_op op, cl_mem result, size_t result_offset,
                                       cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct axis_request request;
    CHECK(begin_call(ctx, &(struct call){0}));
    CHECK(matrix_request(ctx, buffer, matrix, axis, type, op, &request));
    return axis_async(ctx, &request, result, result_offset, num_events_in_wait_list,
                      event_wait_list, event);
cleanup:
    if (event != NULL)
        *event = NULL;
    return status;
}

clfold_status clfold_reduce_segments(clfold_context *ctx, cl_mem buffer, size_t offset,
                                     size_t count, cl_mem offsets, size_t num_segments,
                                     clfold_type type, clfold_op op, void *results)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct axis_request request;
    CHECK(begin_call(ctx, &(struct call){0}));
    CHECK(segments_request(ctx, buffer, offset, count, offsets, num_segments, type, op,
                           &request));
    if (results == NULL && num_segments != 0)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "results is NULL");
    if (num_segments != 0)
        CHECK(check_offsets(ctx, offsets, num_segments, count));
    CHECK(axis_and_wait(ctx, &request, results));
cleanup:
    return status;
}

clfold_status clfold_reduce_segments_async(clfold_context *ctx, cl_mem buffer, size_t offset,
                                           size_t count, cl_mem offsets, size_t num_segments,
                                           clfold_type type, clfold_op op, cl_mem result,
                                           size_t result_offset, cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct axis_request request;
    CHECK(begin_call(ctx, &(struct call){0}));
    CHECK(segments_request(ctx, buffer, offset, count, offsets, num_segments, type, op,
                           &request));
    return axis_async(ctx, &request, result, result_offset, num_events_in_wait_list,
                      event_wait_list, event);
cleanup:
    if (event != NULL)
        *event = NULL;
    return status;
}

/*
 * The host forms' buffer over `count` elements of `element` bytes at `data`
 * (host_input_buffer's: wrapped on a CPU, else a copy), or, for none, a
 * buffer that nothing reads. Arrays past the device's largest buffer are
 * refused: a row or a segment cannot be cut between chunks without changing
 * the order its elements are folded in.
 */
static clfold_status host_elements(clfold_context *ctx, const void *data, size_t count,
                                   size_t element, const char *what, cl_mem *buffer)
{
    clfold_status status = CLFOLD_SUCCESS;
    cl_int err;
    *buffer = NULL;
    if (count == 0) {
        *buffer = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, element, NULL, &err);
        CHECK_CL(err, "clCreateBuffer (no elements)");
        goto cleanup;
    }
    if (data == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "%s is NULL", what);
    if (count > host_chunk_elements(ctx, element))
        FAIL(CLFOLD_ERROR_TOO_LARGE, "%s: %zu elements of %zu bytes exceed the device's largest "
             "buffer (%zu elements); reduce a part at a time", what, count, element,
             host_chunk_elements(ctx, element));
    CHECK(host_input_buffer(ctx, data, count * element, buffer));
cleanup:
    return status;
}

clfold_status clfold_reduce_axis_host(clfold_context *ctx, const void *data,
                                      const clfold_matrix *matrix, int axis, clfold_type type,
                                      clfold_op op, void *results)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct axis_request request;
    cl_mem buffer = NULL;
    size_t span;
    CHECK(begin_call(ctx, &(struct call){0}));
    if (matrix == NULL)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "matrix is NULL");
    CHECK(check_request(ctx, type, op));
    CHECK(matrix_span(ctx, matrix, &span));
    /* Only the span moves to the device: the view starts at its element 0. */
    size_t element = type_info(type)->size;
    const char *first = data;
    if (span != 0 && data != NULL)
        first += matrix->offset * element;
    CHECK(host_elements(ctx, first, span, element, "data", &buffer));
    clfold_matrix view = *matrix;
    view.offset = 0;
    CHECK(matrix_request(ctx, buffer, &view, axis, type, op, &request));
    if (results == NULL && request.results != 0)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "results is NULL");
    CHECK(axis_and_wait(ctx, &request, results));
cleanup:
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    return status;
}

clfold_status clfold_reduce_segments_host(clfold_context *ctx, const void *data, size_t count,
                                          const uint64_t *offsets, size_t num_segments,
                                          clfold_type type, clfold_op op, void *results)
{
    clfold_status status = CLFOLD_SUCCESS;
    struct axis_request request;
    cl_mem buffer = NULL, bounds = NULL;
    CHECK(begin_call(ctx, &(struct call){0}));
    CHECK(check_request(ctx, type, op));
    CHECK(check_segment_count(ctx, offsets != NULL, num_segments));
    if (num_segments != 0)
        CHECK(check_bounds(ctx, offsets, num_segments, count));
    CHECK(host_elements(ctx, data, count, type_info(type)->size, "data", &buffer));
    if (num_segments != 0)
        CHECK(host_elements(ctx, offsets, num_segments + 1, sizeof *offsets, "offsets", &bounds));
    CHECK(segments_request(ctx, buffer, 0, count, bounds, num_segments, type, op, &request));
    if (results == NULL && num_segments != 0)
        FAIL(CLFOLD_ERROR_INVALID_ARGUMENT, "results is NULL");
    CHECK(axis_and_wait(ctx, &request, results));
cleanup:
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    if (bounds != NULL)
        clReleaseMemObject(bounds);
    return status;
}
