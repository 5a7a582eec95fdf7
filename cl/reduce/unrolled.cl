/*
 * unrolled.cl: steps 6 and 7 of Harris's ladder. BLOCK_SIZE is a
 * compile-time constant (the host passes -DBLOCK_SIZE, the stand-in for his
 * template parameter), so the local array is static and every level of the
 * tree (fold_tree in defs.cl) unrolls, with the branches on BLOCK_SIZE
 * folded away.
 */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

/* K6: K5 with the block size known at compile time. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void reduce_k6(__global const IN_T *in, ulong offset, ulong n, __global uchar *out, ulong at,
               uint finish)
{
    __local ACC_T sdata[BLOCK_SIZE / LOCAL_SHARE];
    const uint tid = get_local_id(0);
    const size_t i = get_group_id(0) * (size_t)(2 * BLOCK_SIZE) + tid;

    ACC_T value = load_or_identity(in, offset, n, i);
    if (i + BLOCK_SIZE < n)
        value = combine(value, load_in(in, offset + i + BLOCK_SIZE));
    value = fold_tree(sdata, tid, store_leaf(sdata, tid, BLOCK_SIZE, value));
    if (tid == 0)
        write_value(out, at, get_group_id(0), finish, COUNTED_FROM(value, offset));
}

/*
 * K7: algorithm cascading. The grid is fixed by the host; each work-item
 * first folds every (2 * BLOCK_SIZE * groups)-th pair in a private run
 * (compensated for float sums, see run_t in defs.cl),
 * a grid-size stride that keeps neighbouring work-items on neighbouring
 * addresses, then the group folds its registers as K6 does.
 */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
void reduce_k7(__global const IN_T *in, ulong offset, ulong n, __global uchar *out, ulong at,
               uint finish)
{
    __local ACC_T sdata[BLOCK_SIZE / LOCAL_SHARE];
    const uint tid = get_local_id(0);
    const size_t stride = (size_t)(2 * BLOCK_SIZE) * get_num_groups(0);

    run_t run = run_start();
    for (size_t i = get_group_id(0) * (size_t)(2 * BLOCK_SIZE) + tid; i < n; i += stride) {
        run = run_fold(run, load_run(in, offset + i));
        if (i + BLOCK_SIZE < n)
            run = run_fold(run, load_run(in, offset + i + BLOCK_SIZE));
    }
    ACC_T value = run_value(run);
    value = fold_tree(sdata, tid, store_leaf(sdata, tid, BLOCK_SIZE, value));
    if (tid == 0)
        write_value(out, at, get_group_id(0), finish, COUNTED_FROM(value, offset));
}
