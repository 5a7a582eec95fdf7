/*
 * paths.c: the table of reduction paths, one entry each: Harris's ladder
 * K1..K7 (tree.c), the atomic baseline (atomic.c), and the auto path's two
 * device shapes (gpu_shape.c, cpu_shape.c). path.h says what an entry holds.
 */
#include "path.h"

/* K1..K5 take their local array as an argument; K6, K7 and the GPU shape declare theirs. */
static kernel_params LOCAL_TREE = {FOLD_PARAMS, "sdata", NULL};
static kernel_params GPU_KERNEL = {FOLD_PARAMS, "head", NULL};
static kernel_params CPU_KERNEL = {FOLD_PARAMS, "chunk", NULL};

static const struct reduce_path LADDER[] = {
    [CLFOLD_K1] = {"ladder", CLFOLD_K1, "reduce/ladder.cl", "reduce_k1", LOCAL_TREE, false, tree_shape,
                   tree_groups_one, tree_bind_local, passes_run, false},
    [CLFOLD_K2] = {"ladder", CLFOLD_K2, "reduce/ladder.cl", "reduce_k2", LOCAL_TREE, false, tree_shape,
                   tree_groups_one, tree_bind_local, passes_run, false},
    [CLFOLD_K3] = {"ladder", CLFOLD_K3, "reduce/ladder.cl", "reduce_k3", LOCAL_TREE, false, tree_shape,
                   tree_groups_one, tree_bind_local, passes_run, false},
    [CLFOLD_K4] = {"ladder", CLFOLD_K4, "reduce/ladder.cl", "reduce_k4", LOCAL_TREE, false, tree_shape,
                   tree_groups_two, tree_bind_local, passes_run, false},
    [CLFOLD_K5] = {"ladder", CLFOLD_K5, "reduce/ladder.cl", "reduce_k5", LOCAL_TREE, false, tree_shape,
                   tree_groups_two, tree_bind_local, passes_run, false},
    [CLFOLD_K6] = {"ladder", CLFOLD_K6, "reduce/unrolled.cl", "reduce_k6", FOLD_KERNEL, true, tree_shape,
                   tree_groups_two, NULL, passes_run, false},
    [CLFOLD_K7] = {"ladder", CLFOLD_K7, "reduce/unrolled.cl", "reduce_k7", FOLD_KERNEL, true, k7_shape,
                   tree_groups_two, NULL, passes_run, false},
    /* One launch of one work-item per element; the value lives in a global word. */
    [CLFOLD_ATOMIC] = {"ladder", CLFOLD_ATOMIC, "reduce/atomic.cl", "reduce_atomic", FOLD_KERNEL, false,
                       atomic_shape, tree_groups_one, NULL, atomic_run, false},
};

/* The GPU shape: 16-byte loads in flight, a fixed grid, one launch on NVIDIA. */
static const struct reduce_path GPU_SHAPE = {"gpu", CLFOLD_AUTO, "reduce/gpu.cl", "reduce_gpu",
                                             GPU_KERNEL, true, gpu_shape, gpu_groups, gpu_bind,
                                             gpu_run, true};

/* The CPU shape: a contiguous chunk per work-item, no barriers; one work-item folds their values. */
static const struct reduce_path CPU_SHAPE = {"cpu", CLFOLD_AUTO, "reduce/cpu.cl", "reduce_cpu",
                                             CPU_KERNEL, false, cpu_shape, NULL, cpu_bind, cpu_run, false};

const struct reduce_path *path_choose(const clfold_context *ctx)
{
    if (ctx->kernel != CLFOLD_AUTO)
        return &LADDER[ctx->kernel];
    /* auto_shape (CLFOLD_AUTO_SHAPE=cpu|gpu) forces a shape: how CI tests both on one device. */
    bool cpu = ctx->settings.auto_shape == CLFOLD_PARAM_AUTO
                   ? ctx->caps.cpu_shape
                   : ctx->settings.auto_shape == CLFOLD_SHAPE_CPU;
    return cpu ? &CPU_SHAPE : &GPU_SHAPE;
}

/* K1-K3 at one work-item a group: see tree_shape. */
const struct reduce_path *path_of_kernel(clfold_kernel kernel) { return &LADDER[kernel]; }
