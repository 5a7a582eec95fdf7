/*
 * scan_path.h: a scan path, one entry of the table in paths.c: its kernels
 * (a totals kernel and a scan kernel with common.cl's arguments) and how
 * many elements a work-item of it takes. levels.c composes any path over
 * any length the same way; scan.c checks requests and waits.
 */
#ifndef CLFOLD_SCAN_PATH_H
#define CLFOLD_SCAN_PATH_H

#include "internal.h"
#include "launch.h"
#include "scratch.h"

struct scan_path {
    const char *name;              /* clfold_run_info's path */
    clfold_scan_kernel kernel;
    const char *source;            /* its file of cl/ (cl/scan/common.cl goes before it) */
    const char *totals_entry;
    const char *scan_entry;
    unsigned items;                /* elements a work-item of a tile: 1 (Kogge-Stone), 2 (Blelloch);
                                      0: the job's run (the auto path) */
    bool padded;                   /* one spare local slot every 32 */
    const char *lookback_entry;    /* the one-launch scan where the device can run it; NULL: none */
};

/* A scan request resolved on a path: its geometry and its first level's program. */
struct scan_job {
    const struct scan_path *path;
    size_t block;                  /* work-group size: 1 for CPU chunks */
    size_t run_items;              /* the auto path's RUN_ITEMS on GPUs; 0 elsewhere */
    size_t chunks_per_level;       /* CPU chunks: how many a level is cut into; 0 elsewhere */
    size_t tiles_per_group;        /* CPU chunks: a work-item's chunks, CHUNK_WAYS; 1 elsewhere */
    bool lookback;                 /* the path's one-launch scan runs (NVIDIA: PTX's relaxed
                                      loads and stores at the GPU's scope) */
    struct build_config config;    /* level 0's program: the caller's elements */
};

/* Where a scan starts from and where its total goes: a host array's chunks pass it on. */
struct scan_carry {
    cl_mem buffer;                 /* two accumulator values; NULL: start from nothing, keep nothing */
    bool seeded;                   /* the scan starts from the value at `from` */
    size_t from;                   /* 0 or 1: the slot it starts from; its total goes to the other */
};

/*
 * The one-launch scan's look-back keeps the aggregates of up to this many
 * rounds of 32 tiles before it waits for an inclusive prefix among the
 * last 32 (cl/scan/tiles.cl's LOOKBACK_ROUNDS): where the look-back must
 * wait, the more rounds it keeps, the older the tiles it waits on
 * (bench/scan_probe.c's look-back, 2^28 float sums in tiles of 128 x 32
 * on the H100: 1.94 ms with 1 round, 1.06 with 8;
 * bench/results/scans-h100-probes.txt).
 */
#define LOOKBACK_ROUNDS 8

/* paths.c: the path that the context's scan kernel, and for auto its device, choose. */
const struct scan_path *scan_path_choose(const clfold_context *ctx);

/* paths.c: the job for `type` and `op` on the context's path and block size. */
clfold_status scan_job_make(clfold_context *ctx, clfold_type type, clfold_op op,
                            struct scan_job *job);

/* Accumulator values of local memory a work-group of `job` takes. */
size_t scan_local_values(const struct scan_job *job);

/* levels.c: the elements of one tile of a level of `count` values. */
size_t scan_tile(const clfold_context *ctx, const struct scan_job *job, size_t count);

/*
 * levels.c: enqueues the scan of in[offset .. offset + count) into `count`
 * results at element out_at of `out`: the totals of the tiles, their scan
 * one level down (in `scratch`), then the tiles from their prefixes. With
 * a carry, the scan starts from its value where `seeded`, and its total
 * is left there. Returns without waiting; count is at least 1.
 */
clfold_status scan_enqueue(clfold_context *ctx, const struct scan_job *job, cl_mem in,
                           size_t offset, size_t count, bool exclusive, cl_mem out, size_t out_at,
                           const struct scan_carry *carry, struct scratch *scratch,
                           struct pass_log *log);

#endif /* CLFOLD_SCAN_PATH_H */
