/*
 * scan_probe.cl: bench/scan_probe.c's kernels, float sums on NVIDIA only
 * (inline PTX). A group's tile is BLOCK x ITEMS floats held in registers:
 * warp w's slice is rows of 32 float4 runs, scanned with shuffles. Each
 * kernel takes (in, out, board); the board's word 0 is a tile counter.
 */
#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef ITEMS
#define ITEMS 16
#endif
#define TILE (BLOCK * ITEMS)
#define WARPS (BLOCK / 32)
#define V4 (ITEMS / 4)

inline float shup(float v, uint d)
{
    float r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=f"(r) : "f"(v), "r"(d));
    return r;
}
inline float shidx(float v, uint l)
{
    float r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(l));
    return r;
}
inline float shxor(float v, uint m)
{
    float r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(m));
    return r;
}
inline uint ballot(int p)
{
    uint r;
    asm volatile("{ .reg .pred q; setp.ne.s32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }"
                 : "=r"(r) : "r"(p));
    return r;
}
inline void st_word(volatile __global ulong *p, ulong v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
inline ulong ld_word(volatile __global ulong *p)
{
    ulong v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
#ifndef SLEEP_NS
#define SLEEP_NS 32
#endif
#if SLEEP_NS
#define SLEEP() asm volatile("nanosleep.u32 %0;" ::"r"(SLEEP_NS))
#else
#define SLEEP()
#endif

inline float warp_incl(float v, uint lane)
{
#pragma unroll
    for (uint d = 1; d < 32; d <<= 1) {
        float t = shup(v, d);
        if (lane >= d)
            v += t;
    }
    return v;
}
inline float warp_sum(float v)
{
#pragma unroll
    for (uint m = 16; m; m >>= 1)
        v += shxor(v, m);
    return v;
}

#define BASE4(g, lid) ((size_t)(g) * (TILE / 4) + ((lid) & ~31u) * V4 + ((lid) & 31))

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void copy_tile(__global const float *in, __global float *out, __global ulong *board)
{
    const uint lid = get_local_id(0);
    const size_t base = (size_t)get_group_id(0) * TILE + (lid & ~31u) * ITEMS + (lid & 31);
    float v[ITEMS];
#pragma unroll
    for (uint j = 0; j < ITEMS; j++)
        v[j] = in[base + j * 32];
#pragma unroll
    for (uint j = 0; j < ITEMS; j++)
        out[base + j * 32] = v[j];
}

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void copy_tile4(__global const float4 *in, __global float4 *out, __global ulong *board)
{
    const uint lid = get_local_id(0);
    const size_t base = BASE4(get_group_id(0), lid);
    float4 v[V4];
#pragma unroll
    for (uint j = 0; j < V4; j++)
        v[j] = in[base + j * 32];
#pragma unroll
    for (uint j = 0; j < V4; j++)
        out[base + j * 32] = v[j];
}

/*
 * The tile in registers: warp w holds V4 rows of 128 floats, lane l row j's
 * float4 l. On return v is the inclusive scan within the warp's slice,
 * *warp_before the fold of the warps before, and the tile's total returns.
 */
inline float tile_scan(float4 *v, __local float *wt, uint lid, float *warp_before)
{
    const uint lane = lid & 31, warp = lid >> 5;
    float tot[V4], ex[V4];
#pragma unroll
    for (uint j = 0; j < V4; j++) {
        v[j].y += v[j].x;
        v[j].z += v[j].y;
        v[j].w += v[j].z;
        const float s = warp_incl(v[j].w, lane);
        const float e = shup(s, 1);
        ex[j] = lane == 0 ? 0.0f : e;
        tot[j] = shidx(s, 31);
    }
    float run = 0.0f;
#pragma unroll
    for (uint j = 0; j < V4; j++) {
        const float add = ex[j] + run;
        v[j] += add;
        run += tot[j];
    }
    if (lane == 0)
        wt[warp] = run;
    barrier(CLK_LOCAL_MEM_FENCE);
    float wp = 0.0f, total = 0.0f;
#pragma unroll
    for (uint w = 0; w < WARPS; w++) {
        const float x = wt[w];
        if (w < warp)
            wp += x;
        total += x;
    }
    *warp_before = wp;
    return total;
}

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void body(__global const float4 *in, __global float4 *out, __global ulong *board)
{
    __local float wt[WARPS];
    const uint lid = get_local_id(0);
    const size_t base = BASE4(get_group_id(0), lid);
    float4 v[V4];
#pragma unroll
    for (uint j = 0; j < V4; j++)
        v[j] = in[base + j * 32];
    float wp;
    tile_scan(v, wt, lid, &wp);
#pragma unroll
    for (uint j = 0; j < V4; j++)
        out[base + j * 32] = v[j] + wp;
}

#define AGG 1ul
#define INC 2ul

/* body with a ticket, no look-back: what the look-back costs is the difference */
__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void body_ticket(__global const float4 *in, __global float4 *out, volatile __global ulong *board)
{
    __local float wt[WARPS];
    __local uint ticket;
    const uint lid = get_local_id(0);
    if (lid == 0)
        ticket = atomic_inc((volatile __global uint *)board);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = ticket;
    const size_t base = BASE4(t, lid);
    float4 v[V4];
#pragma unroll
    for (uint j = 0; j < V4; j++)
        v[j] = in[base + j * 32];
    float wp;
    const float total = tile_scan(v, wt, lid, &wp);
    if (lid == 0)
        st_word(board + 1 + t, AGG << 32 | as_uint(total));
#pragma unroll
    for (uint j = 0; j < V4; j++)
        out[base + j * 32] = v[j] + wp;
}

/* CUB's look-back: a warp looks at 32 tiles at a time, folds them as a tree (not deterministic). */
__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void lb_cub(__global const float4 *in, __global float4 *out, volatile __global ulong *board)
{
    __local float wt[WARPS];
    __local uint ticket;
    __local float tile_prefix;
    const uint lid = get_local_id(0), lane = lid & 31;
    if (lid == 0)
        ticket = atomic_inc((volatile __global uint *)board);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = ticket;
    volatile __global ulong *slots = board + 1;
    const size_t base = BASE4(t, lid);
    float4 v[V4];
#pragma unroll
    for (uint j = 0; j < V4; j++)
        v[j] = in[base + j * 32];
    float wp;
    const float total = tile_scan(v, wt, lid, &wp);
    if (lid < 32) {
        if (lane == 0)
            st_word(slots + t, (t == 0 ? INC : AGG) << 32 | as_uint(total));
        float excl = 0.0f;
        if (t > 0) {
            long pos = (long)t - 1 - lane;
            for (;;) {
                ulong w = pos >= 0 ? ld_word(slots + pos) : INC << 32;
                while (ballot((w >> 32) == 0)) {
                    SLEEP();
                    if ((w >> 32) == 0)
                        w = ld_word(slots + pos);
                }
                const uint inc = ballot((w >> 32) == INC);
                float x = as_float((uint)w);
                if (inc) {
                    const uint first = popcount((inc & (0u - inc)) - 1);
                    excl += warp_sum(lane <= first ? x : 0.0f);
                    break;
                }
                excl += warp_sum(x);
                pos -= 32;
            }
            if (lane == 0)
                st_word(slots + t, INC << 32 | as_uint(excl + total));
        }
        if (lane == 0)
            tile_prefix = excl;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const float add = tile_prefix + wp;
#pragma unroll
    for (uint j = 0; j < V4; j++)
        out[base + j * 32] = v[j] + add;
}

/* The warp's slice's total (every lane). */
inline float slice_total(const float4 *v)
{
    float s = 0.0f;
#pragma unroll
    for (uint j = 0; j < V4; j++)
        s += (v[j].x + v[j].y) + (v[j].z + v[j].w);
    return warp_sum(s);
}

/* The warp's slice scanned in place (inclusive, from 0). */
inline void slice_scan(float4 *v, uint lane)
{
    float tot[V4], ex[V4];
#pragma unroll
    for (uint j = 0; j < V4; j++) {
        v[j].y += v[j].x;
        v[j].z += v[j].y;
        v[j].w += v[j].z;
        const float s = warp_incl(v[j].w, lane);
        const float e = shup(s, 1);
        ex[j] = lane == 0 ? 0.0f : e;
        tot[j] = shidx(s, 31);
    }
    float run = 0.0f;
#pragma unroll
    for (uint j = 0; j < V4; j++) {
        v[j] += ex[j] + run;
        run += tot[j];
    }
}

/* Warp 0: the fold of the tiles before t (CUB's look-back), and t's inclusive prefix published. */
inline float look_back(volatile __global ulong *slots, uint t, float total, uint lane)
{
    float excl = 0.0f;
    if (t > 0) {
        long pos = (long)t - 1 - lane;
        for (;;) {
            ulong w = pos >= 0 ? ld_word(slots + pos) : INC << 32;
            while (ballot((w >> 32) == 0)) {
                SLEEP();
                if ((w >> 32) == 0)
                    w = ld_word(slots + pos);
            }
            const uint inc = ballot((w >> 32) == INC);
            const float x = as_float((uint)w);
            if (inc) {
                const uint first = popcount((inc & (0u - inc)) - 1);
                excl += warp_sum(lane <= first ? x : 0.0f);
                break;
            }
            excl += warp_sum(x);
            pos -= 32;
        }
        if (lane == 0)
            st_word(slots + t, INC << 32 | as_uint(excl + total));
    }
    return excl;
}

#define LOAD(v, t)                                                   \
    do {                                                             \
        const size_t b_ = BASE4(t, lid);                             \
        _Pragma("unroll") for (uint j = 0; j < V4; j++) v[j] = in[b_ + j * 32]; \
    } while (0)

/*
 * The tile number from the counter, and the tile's loads. With SPECULATE
 * the loads of tile get_group_id(0) go out before the ticket is known, and
 * are redone where the ticket differs (counted in the board's word 0's
 * upper half).
 */
#ifndef SPECULATE
#define SPECULATE 0
#endif
#if SPECULATE
#define TICKET_LOAD(v, t)                                                       \
    if (lid == 0)                                                               \
        ticket = atomic_inc((volatile __global uint *)board);                   \
    LOAD(v, get_group_id(0));                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                               \
    const uint t = ticket;                                                      \
    if (t != get_group_id(0)) {                                                 \
        LOAD(v, t);                                                             \
        if (lid == 0)                                                           \
            atomic_inc((volatile __global uint *)board + 1);                    \
    }
#else
#define TICKET_LOAD(v, t)                                                       \
    if (lid == 0)                                                               \
        ticket = atomic_inc((volatile __global uint *)board);                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                               \
    const uint t = ticket;                                                      \
    LOAD(v, t);
#endif

/* CUB's order: the tile's total first (AGG out before the slices' scans), look-back while warps scan. */
__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void lb_early(__global const float4 *in, __global float4 *out, volatile __global ulong *board)
{
    __local float wt[WARPS];
    __local uint ticket;
    __local float tile_prefix;
    const uint lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    float4 v[V4];
    TICKET_LOAD(v, t);
    volatile __global ulong *slots = board + 1;
    const float st = slice_total(v);
    if (lane == 0)
        wt[warp] = st;
    barrier(CLK_LOCAL_MEM_FENCE);
    float wp = 0.0f, total = 0.0f;
#pragma unroll
    for (uint w = 0; w < WARPS; w++) {
        const float x = wt[w];
        if (w < warp)
            wp += x;
        total += x;
    }
    if (lid < 32) {
        if (lane == 0)
            st_word(slots + t, (t == 0 ? INC : AGG) << 32 | as_uint(total));
        const float excl = look_back(slots, t, total, lane);
        if (lane == 0)
            tile_prefix = excl;
    }
    slice_scan(v, lane);
    barrier(CLK_LOCAL_MEM_FENCE);
    const float add = tile_prefix + wp;
    const size_t base = BASE4(t, lid);
#pragma unroll
    for (uint j = 0; j < V4; j++)
        out[base + j * 32] = v[j] + add;
}

/*
 * Persistent and pipelined: a group takes tiles from the counter until
 * none is left, and loads its next tile before it looks back for this one.
 */
__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void lb_pipe(__global const float4 *in, __global float4 *out, volatile __global ulong *board)
{
    __local float wt[2][WARPS];
    __local uint tickets[2];
    __local float tile_prefix;
    const uint lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    volatile __global ulong *slots = board + 1;
    if (lid == 0)
        tickets[0] = atomic_inc((volatile __global uint *)board);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint t = tickets[0], buf = 0;
    if (t >= TILES)
        return;
    float4 a[V4], b[V4];
    LOAD(a, t);
    for (;;) {
        if (lid == 0)
            tickets[buf ^ 1] = atomic_inc((volatile __global uint *)board);
        const float st = slice_total(a);
        if (lane == 0)
            wt[buf][warp] = st;
        barrier(CLK_LOCAL_MEM_FENCE);
        float wp = 0.0f, total = 0.0f;
#pragma unroll
        for (uint w = 0; w < WARPS; w++) {
            const float x = wt[buf][w];
            if (w < warp)
                wp += x;
            total += x;
        }
        const uint next = tickets[buf ^ 1];
        if (next < TILES)
            LOAD(b, next);
        if (lid < 32) {
            if (lane == 0)
                st_word(slots + t, (t == 0 ? INC : AGG) << 32 | as_uint(total));
            const float excl = look_back(slots, t, total, lane);
            if (lane == 0)
                tile_prefix = excl;
        }
        slice_scan(a, lane);
        barrier(CLK_LOCAL_MEM_FENCE);
        const float add = tile_prefix + wp;
        const size_t base = BASE4(t, lid);
#pragma unroll
        for (uint j = 0; j < V4; j++)
            out[base + j * 32] = a[j] + add;
        if (next >= TILES)
            break;
#pragma unroll
        for (uint j = 0; j < V4; j++)
            a[j] = b[j];
        t = next;
        buf ^= 1;
    }
}

/* Deterministic: the tiles before, folded left (Neumaier) from the nearest inclusive prefix. */
#ifndef ROUNDS
#define ROUNDS 4
#endif
inline void neumaier(float *s, float *c, float x)
{
    const float t = *s + x;
    if (fabs(*s) >= fabs(x))
        *c += (*s - t) + x;
    else
        *c += (x - t) + *s;
    *s = t;
}
inline uint flag(ulong w) { return (uint)(w >> 32); }

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void lb_det(__global const float4 *in, __global float4 *out, volatile __global ulong *board)
{
    __local float wt[WARPS];
    __local uint ticket;
    __local float tile_prefix;
    __local float aggs[ROUNDS][32];
    const uint lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    float4 v[V4];
    TICKET_LOAD(v, t);
    volatile __global ulong *slots = board + 1;
    const float st = slice_total(v);
    if (lane == 0)
        wt[warp] = st;
    barrier(CLK_LOCAL_MEM_FENCE);
    float wp = 0.0f, total = 0.0f;
#pragma unroll
    for (uint w = 0; w < WARPS; w++) {
        const float x = wt[w];
        if (w < warp)
            wp += x;
        total += x;
    }
    if (lid < 32) {
        float s = 0.0f, c = 0.0f;
        if (t == 0) {
            if (lane == 0) {
                st_word(slots + 1, 1ul << 32 | as_uint(total));
                st_word(slots + 2, 1ul << 32 | as_uint(0.0f));
            }
        } else {
            if (lane == 0)
                st_word(slots + 3 * (size_t)t, 1ul << 32 | as_uint(total));
            long pos = (long)t - 1 - lane;
            uint r = 0, spins = 0, nearest = 0;
            for (;;) {
                ulong a = 0, is = 1ul << 32, ic = 1ul << 32;
                if (pos >= 0) {
                    a = ld_word(slots + 3 * pos);
                    is = ld_word(slots + 3 * pos + 1);
                    ic = ld_word(slots + 3 * pos + 2);
                }
                while (ballot(!flag(a) && !(flag(is) && flag(ic)))) {
                    spins++;
                    SLEEP();
                    if (!flag(a) && !(flag(is) && flag(ic))) {
                        a = ld_word(slots + 3 * pos);
                        is = ld_word(slots + 3 * pos + 1);
                        ic = ld_word(slots + 3 * pos + 2);
                    }
                }
                const uint inc = ballot(flag(is) && flag(ic));
                const float av = as_float((uint)a), sv = as_float((uint)is), cv = as_float((uint)ic);
                if (inc) {
                    const uint first = popcount((inc & (0u - inc)) - 1);
                    nearest = first;
                    s = shidx(sv, first);
                    c = shidx(cv, first);
#pragma unroll
                    for (int j = 31; j >= 0; j--) {
                        const float x = shidx(av, j);
                        if ((uint)j < first)
                            neumaier(&s, &c, x);
                    }
                    for (int rr = (int)r - 1; rr >= 0; rr--)
#pragma unroll
                        for (int j = 31; j >= 0; j--)
                            neumaier(&s, &c, aggs[rr][j]);
                    break;
                }
                if (r < ROUNDS - 1) {
                    aggs[r][lane] = av;
                    asm volatile("bar.warp.sync -1;" ::: "memory");
                    pos -= 32;
                    r++;
                } else {
                    SLEEP();
                }
            }
            float s2 = s, c2 = c;
            neumaier(&s2, &c2, total);
            if (lane == 0) {
                st_word(slots + 3 * (size_t)t + 1, 1ul << 32 | as_uint(s2));
                st_word(slots + 3 * (size_t)t + 2, 1ul << 32 | as_uint(c2));
            }
#if STATS /* the look-backs' rounds past the first, P's distance, waits (after the board's slots) */
            if (lane == 0) {
                volatile __global uint *stats = (volatile __global uint *)(board + 4 * (size_t)TILES);
                atomic_add(stats, r);
                atomic_add(stats + 1, 32 * r + nearest);
                atomic_add(stats + 2, spins);
            }
#endif
        }
        if (lane == 0)
            tile_prefix = s + c;
    }
    slice_scan(v, lane);
    barrier(CLK_LOCAL_MEM_FENCE);
    const float add = tile_prefix + wp;
    const size_t base = BASE4(t, lid);
#pragma unroll
    for (uint j = 0; j < V4; j++)
        out[base + j * 32] = v[j] + add;
}

/* Timing only (wrong results): each tile waits for its predecessor's aggregate, no more. */
__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void x_convoy(__global const float4 *in, __global float4 *out, volatile __global ulong *board)
{
    __local float wt[WARPS];
    __local uint ticket;
    const uint lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    float4 v[V4];
    TICKET_LOAD(v, t);
    volatile __global ulong *slots = board + 1;
    const float st = slice_total(v);
    if (lane == 0)
        wt[warp] = st;
    barrier(CLK_LOCAL_MEM_FENCE);
    float wp = 0.0f, total = 0.0f;
#pragma unroll
    for (uint w = 0; w < WARPS; w++) {
        const float x = wt[w];
        if (w < warp)
            wp += x;
        total += x;
    }
    if (lid == 0) {
        st_word(slots + t, AGG << 32 | as_uint(total));
        if (t > 0)
            while (!flag(ld_word(slots + t - 1)))
                SLEEP();
    }
    slice_scan(v, lane);
    barrier(CLK_LOCAL_MEM_FENCE);
    const size_t base = BASE4(t, lid);
#pragma unroll
    for (uint j = 0; j < V4; j++)
        out[base + j * 32] = v[j] + wp;
}
