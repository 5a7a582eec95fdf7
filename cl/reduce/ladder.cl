/*
 * ladder.cl: steps 1 to 5 of Mark Harris's reduction ladder, as on his
 * slides, with the work-group size read at run time (get_local_size) and
 * the local array passed by the host. One program serves every block size.
 * Each tree starts from store_leaf (defs.cl): one value a work-item, or,
 * where local memory is short (LOCAL_SHARE), one a slot that several share.
 *
 * Every kernel: work-group g folds its slice of in[offset .. offset + n) and
 * writes one partial value (write_value in defs.cl: index g; an argmin's
 * index counted from offset, COUNTED_FROM). Work-items past the end load
 * the identity, so n need not be a multiple of anything. The host
 * relaunches the kernel over the partial values until one is left.
 */

/* K1: interleaved addressing; `tid % (2*s)` makes the branch divergent. */
__kernel void reduce_k1(__global const IN_T *in, ulong offset, ulong n,
                        __global uchar *out, ulong at, uint finish,
                        __local ACC_T *sdata)
{
    const uint tid = get_local_id(0);
    const uint block = get_local_size(0);
    const size_t i = get_global_id(0);

    const uint live = store_leaf(sdata, tid, block, load_or_identity(in, offset, n, i));
    for (uint s = 1; s < live; s *= 2) {
        if (tid % (2 * s) == 0 && IN_TREE(tid, live))
            sdata[tid] = combine(sdata[tid], sdata[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        write_value(out, at, get_group_id(0), finish, COUNTED_FROM(sdata[0], offset));
}

/* K2: interleaved addressing, strided index: no divergence, bank conflicts. */
__kernel void reduce_k2(__global const IN_T *in, ulong offset, ulong n,
                        __global uchar *out, ulong at, uint finish,
                        __local ACC_T *sdata)
{
    const uint tid = get_local_id(0);
    const uint block = get_local_size(0);
    const size_t i = get_global_id(0);

    const uint live = store_leaf(sdata, tid, block, load_or_identity(in, offset, n, i));
    for (uint s = 1; s < live; s *= 2) {
        const uint index = 2 * s * tid;
        if (index < live)
            sdata[index] = combine(sdata[index], sdata[index + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        write_value(out, at, get_group_id(0), finish, COUNTED_FROM(sdata[0], offset));
}

/* The tree of K3 and K4: sequential addressing, halving the live range. */
inline ACC_T fold_sequential(__local ACC_T *sdata, uint tid, uint block)
{
    for (uint s = block / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] = combine(sdata[tid], sdata[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return sdata[0];
}

/*
 * Harris's "first add during load": work-item tid of group g combines
 * elements g*2*block + tid and g*2*block + tid + block.
 */
inline ACC_T load_pair(__global const IN_T *in, ulong offset, ulong n, uint block)
{
    const size_t i = get_group_id(0) * (size_t)block * 2 + get_local_id(0);
    ACC_T value = load_or_identity(in, offset, n, i);
    if (i + block < n)
        value = combine(value, load_in(in, offset + i + block));
    return value;
}

/* K3: sequential addressing: no bank conflicts, half the work-items idle. */
__kernel void reduce_k3(__global const IN_T *in, ulong offset, ulong n,
                        __global uchar *out, ulong at, uint finish,
                        __local ACC_T *sdata)
{
    const uint tid = get_local_id(0);
    const size_t i = get_global_id(0);

    const uint live =
        store_leaf(sdata, tid, get_local_size(0), load_or_identity(in, offset, n, i));
    const ACC_T value = fold_sequential(sdata, tid, live);
    if (tid == 0)
        write_value(out, at, get_group_id(0), finish, COUNTED_FROM(value, offset));
}

/* K4: first add during the global load: each group folds 2*block elements. */
__kernel void reduce_k4(__global const IN_T *in, ulong offset, ulong n,
                        __global uchar *out, ulong at, uint finish,
                        __local ACC_T *sdata)
{
    const uint tid = get_local_id(0);
    const uint block = get_local_size(0);

    const uint live = store_leaf(sdata, tid, block, load_pair(in, offset, n, block));
    const ACC_T value = fold_sequential(sdata, tid, live);
    if (tid == 0)
        write_value(out, at, get_group_id(0), finish, COUNTED_FROM(value, offset));
}

/* K5: K4 with the last six levels unrolled (see fold_tail in defs.cl). */
__kernel void reduce_k5(__global const IN_T *in, ulong offset, ulong n,
                        __global uchar *out, ulong at, uint finish,
                        __local ACC_T *sdata)
{
    const uint tid = get_local_id(0);
    const uint block = get_local_size(0);

    const uint live = store_leaf(sdata, tid, block, load_pair(in, offset, n, block));
    const ACC_T value = fold_tree(sdata, tid, live);
    if (tid == 0)
        write_value(out, at, get_group_id(0), finish, COUNTED_FROM(value, offset));
}
