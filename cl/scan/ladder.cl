/*
 * ladder.cl: the scan ladder's work-group scans, as the seeds teach them,
 * each a pair of kernels (common.cl's totals and scan, same arguments):
 *   - Kogge-Stone (Hillis-Steele): a tile of one element per work-item,
 *     log2(block) steps of n work each, double-buffered in local memory
 *     (common.cl's kogge_stone);
 *   - Blelloch's work-efficient scan: a tile of two elements per
 *     work-item, an up-sweep that builds a tree of partial folds in place
 *     and a down-sweep that turns it into the exclusive prefixes, 2n work;
 *   - the same with GPU Gems 3's padding: one spare slot every 32, so that
 *     the sweeps' power-of-two strides do not land on one bank.
 * The local array comes from the host: 2 * block values (Kogge-Stone's
 * halves, Blelloch's tile), plus the padding.
 */

/* One spare slot every 2^LOG_BANKS: local memory has 32 banks on the GPUs that have banks. */
#define LOG_BANKS 5

inline uint padded(uint i, uint pad) { return pad ? i + (i >> LOG_BANKS) : i; }

/*
 * Blelloch's scan of the tile in `buf`, 2 * block values from the caller
 * (work-item lid's at lid and lid + block, loaded so for coalescing):
 * on return buf holds each value's exclusive prefix, the identity first,
 * and the function returns the tile's total. The up-sweep folds pairs at
 * strides 1, 2, 4, ... into the right one of each pair; the root is
 * swapped for the identity; the down-sweep hands each left child its
 * parent's prefix and each right child that prefix and the left child's
 * fold. Left operands are always the earlier elements.
 */
inline ACC_T blelloch(__local ACC_T *buf, uint lid, uint block, uint pad)
{
    const uint n = 2 * block;
    uint stride = 1;
    for (uint d = block; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            const uint left = padded(stride * (2 * lid + 1) - 1, pad);
            const uint right = padded(stride * (2 * lid + 2) - 1, pad);
            buf[right] = combine(buf[left], buf[right]);
        }
        stride <<= 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const ACC_T total = buf[padded(n - 1, pad)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        buf[padded(n - 1, pad)] = SCAN_IDENTITY;
    for (uint d = 1; d < n; d <<= 1) {
        stride >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            const uint left = padded(stride * (2 * lid + 1) - 1, pad);
            const uint right = padded(stride * (2 * lid + 2) - 1, pad);
            const ACC_T fold = buf[left];
            buf[left] = buf[right];
            buf[right] = combine(buf[right], fold);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* ---- Kogge-Stone ------------------------------------------------------------ */

__kernel void scan_kogge_stone_totals(__global const IN_T *in, ulong offset, ulong n,
                                      __global ACC_T *totals, ulong totals_at, ulong run,
                                      __local ACC_T *buf)
{
    (void)run;
    const uint lid = get_local_id(0), block = get_local_size(0);
    const ulong group = get_group_id(0);
    ACC_T before, through;
    const ACC_T value = scan_load(in, offset, n, group * block + lid);
    const ACC_T total = kogge_stone(buf, lid, block, value, &before, &through);
    if (lid == 0)
        totals[totals_at + group] = total;
}

__kernel void scan_kogge_stone(__global const IN_T *in, ulong offset, ulong n,
                               __global uchar *out, ulong out_at, ulong run, __local ACC_T *buf,
                               uint finish, uint mode, __global const ACC_T *seeds,
                               ulong seeds_at, uint seeded, __global ACC_T *carry,
                               ulong carry_at, uint keep_carry)
{
    (void)run;
    const uint lid = get_local_id(0), block = get_local_size(0);
    const ulong group = get_group_id(0), i = group * block + lid;
    const ACC_T seed = tile_seed(seeds, seeds_at, seeded, group);
    ACC_T before, through;
    const ACC_T total = kogge_stone(buf, lid, block, scan_load(in, offset, n, i), &before, &through);
    if (i < n)
        store_output(out, out_at, i, finish,
                     output_value(mode, i, combine(seed, before), combine(seed, through)));
    keep_total(carry, carry_at, keep_carry, lid, seed, total);
}

/* ---- Blelloch, plain and padded --------------------------------------------- */

/* Loads the work-item's two elements of the tile into buf, at lid and lid + block. */
inline void blelloch_load(__global const IN_T *in, ulong offset, ulong n, __local ACC_T *buf,
                          uint lid, uint block, ulong start, uint pad, ACC_T *mine)
{
    mine[0] = scan_load(in, offset, n, start + lid);
    mine[1] = scan_load(in, offset, n, start + lid + block);
    buf[padded(lid, pad)] = mine[0];
    buf[padded(lid + block, pad)] = mine[1];
}

inline void blelloch_totals(__global const IN_T *in, ulong offset, ulong n,
                            __global ACC_T *totals, ulong totals_at, __local ACC_T *buf,
                            uint pad)
{
    const uint lid = get_local_id(0), block = get_local_size(0);
    const ulong group = get_group_id(0);
    ACC_T mine[2];
    blelloch_load(in, offset, n, buf, lid, block, group * 2 * block, pad, mine);
    const ACC_T total = blelloch(buf, lid, block, pad);
    if (lid == 0)
        totals[totals_at + group] = total;
}

inline void blelloch_scan(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                          ulong out_at, __local ACC_T *buf, uint finish, uint mode,
                          __global const ACC_T *seeds, ulong seeds_at, uint seeded,
                          __global ACC_T *carry, ulong carry_at, uint keep_carry, uint pad)
{
    const uint lid = get_local_id(0), block = get_local_size(0);
    const ulong group = get_group_id(0), start = group * 2 * block;
    const ACC_T seed = tile_seed(seeds, seeds_at, seeded, group);
    ACC_T mine[2];
    blelloch_load(in, offset, n, buf, lid, block, start, pad, mine);
    const ACC_T total = blelloch(buf, lid, block, pad);
    for (uint k = 0; k < 2; k++) {
        const uint slot = lid + k * block;
        const ulong i = start + slot;
        if (i < n) {
            const ACC_T before = combine(seed, buf[padded(slot, pad)]);
            store_output(out, out_at, i, finish,
                         output_value(mode, i, before, combine(before, mine[k])));
        }
    }
    keep_total(carry, carry_at, keep_carry, lid, seed, total);
}

__kernel void scan_blelloch_totals(__global const IN_T *in, ulong offset, ulong n,
                                   __global ACC_T *totals, ulong totals_at, ulong run,
                                   __local ACC_T *buf)
{
    (void)run;
    blelloch_totals(in, offset, n, totals, totals_at, buf, 0);
}

__kernel void scan_blelloch(__global const IN_T *in, ulong offset, ulong n, __global uchar *out,
                            ulong out_at, ulong run, __local ACC_T *buf, uint finish,
                            uint mode, __global const ACC_T *seeds, ulong seeds_at,
                            uint seeded, __global ACC_T *carry, ulong carry_at, uint keep_carry)
{
    (void)run;
    blelloch_scan(in, offset, n, out, out_at, buf, finish, mode, seeds, seeds_at, seeded,
                  carry, carry_at, keep_carry, 0);
}

__kernel void scan_blelloch_padded_totals(__global const IN_T *in, ulong offset, ulong n,
                                          __global ACC_T *totals, ulong totals_at, ulong run,
                                          __local ACC_T *buf)
{
    (void)run;
    blelloch_totals(in, offset, n, totals, totals_at, buf, 1);
}

__kernel void scan_blelloch_padded(__global const IN_T *in, ulong offset, ulong n,
                                   __global uchar *out, ulong out_at, ulong run,
                                   __local ACC_T *buf, uint finish, uint mode,
                                   __global const ACC_T *seeds, ulong seeds_at, uint seeded,
                                   __global ACC_T *carry, ulong carry_at, uint keep_carry)
{
    (void)run;
    blelloch_scan(in, offset, n, out, out_at, buf, finish, mode, seeds, seeds_at, seeded,
                  carry, carry_at, keep_carry, 1);
}
