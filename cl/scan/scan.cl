/*
 * Device-wide prefix sum and reduction of u32 or u64 items, compiled after cl/common/subgroup.h,
 * cl/common/progress.h, cl/common/wg_scan.h and cl/common/lookback.h.
 *
 * Required: CLPERM_T (uint or ulong), CLPERM_TS (u32 or u64), CLPERM_SCAN_ITEMS (items each
 * work-item scans per tile). CLPERM_SCAN_STAGE 1 loads and stores tiles through local memory so
 * that global accesses are coalesced (GPUs); 0 reads each work-item's items directly.
 * CLPERM_SCAN_SERIAL 1 (CPUs): one work-item per work-group scans a whole tile of
 * CLPERM_SCAN_ITEMS items in a plain loop, with no barriers and no subgroup operations.
 *
 * Two algorithms over tiles of CLPERM_WG_SIZE * CLPERM_SCAN_ITEMS items:
 * - single pass with decoupled look-back (Merrill and Garland): each work-group takes the next
 *   tile number from a counter, publishes its tile's aggregate, then walks back over earlier
 *   tiles' aggregates until it finds an inclusive prefix;
 * - reduce-then-scan: a fixed grid of work-groups reduces contiguous ranges of tiles, one
 *   work-group scans the range sums (the spine), and the grid scans its ranges again from there.
 */
#ifndef CLPERM_SCAN_ITEMS
#error "CLPERM_SCAN_ITEMS must be defined"
#endif
#ifndef CLPERM_SCAN_STAGE
#define CLPERM_SCAN_STAGE 1
#endif
#ifndef CLPERM_SCAN_SERIAL
#define CLPERM_SCAN_SERIAL 0
#endif
#if CLPERM_SCAN_SERIAL && CLPERM_WG_SIZE != 1
#error "the serial scan runs one work-item per work-group"
#endif

#define CLPERM_SCAN_TILE (CLPERM_WG_SIZE * CLPERM_SCAN_ITEMS)
#define CLPERM_SCAN_KERNEL(base) CLPERM_CAT(base, CLPERM_TS)

#if CLPERM_SCAN_STAGE
#define CLPERM__STAGE_DECL __local clperm_t stage[CLPERM_SCAN_TILE]
#define CLPERM__STAGE stage
#else
#define CLPERM__STAGE_DECL
#define CLPERM__STAGE 0
#endif

#if !CLPERM_SCAN_SERIAL
/* The work-group kernels' helpers: arrays of CLPERM_SCAN_ITEMS in registers, unrolled. Not in the
 * serial kernels' programs, whose CLPERM_SCAN_ITEMS is a whole tile of thousands of items. */

/* Work-item lid holds tile items lid*ITEMS .. lid*ITEMS+ITEMS-1 in v (blocked order); items past
 * n read as 0. */
inline void clperm__load_blocked(const __global clperm_t *src, ulong base, ulong n,
                                 clperm_t v[CLPERM_SCAN_ITEMS], __local clperm_t *stage) {
    uint lid = (uint)get_local_id(0);
#if CLPERM_SCAN_STAGE
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile's readers of stage are done */
    if (base + CLPERM_SCAN_TILE <= n) {
#pragma unroll
        for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) stage[j * CLPERM_WG_SIZE + lid] = src[base + j * CLPERM_WG_SIZE + lid];
    } else {
#pragma unroll
        for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) {
            ulong g = base + j * CLPERM_WG_SIZE + lid;
            stage[j * CLPERM_WG_SIZE + lid] = g < n ? src[g] : (clperm_t)0;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) v[j] = stage[lid * CLPERM_SCAN_ITEMS + j];
#else
#pragma unroll
    for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) {
        ulong g = base + lid * CLPERM_SCAN_ITEMS + j;
        v[j] = g < n ? src[g] : (clperm_t)0;
    }
#endif
}

inline void clperm__store_blocked(__global clperm_t *dst, ulong base, ulong n,
                                  clperm_t v[CLPERM_SCAN_ITEMS], __local clperm_t *stage) {
    uint lid = (uint)get_local_id(0);
#if CLPERM_SCAN_STAGE
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) stage[lid * CLPERM_SCAN_ITEMS + j] = v[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (base + CLPERM_SCAN_TILE <= n) {
#pragma unroll
        for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) dst[base + j * CLPERM_WG_SIZE + lid] = stage[j * CLPERM_WG_SIZE + lid];
    } else {
#pragma unroll
        for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) {
            ulong g = base + j * CLPERM_WG_SIZE + lid;
            if (g < n) dst[g] = stage[j * CLPERM_WG_SIZE + lid];
        }
    }
#else
#pragma unroll
    for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) {
        ulong g = base + lid * CLPERM_SCAN_ITEMS + j;
        if (g < n) dst[g] = v[j];
    }
#endif
}

inline clperm_t clperm__thread_sum(const clperm_t v[CLPERM_SCAN_ITEMS]) {
    clperm_t s = 0;
#pragma unroll
    for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) s += v[j];
    return s;
}

/* v[j] becomes carry + v[0] + ... + v[j-1] (exclusive) or ... + v[j] (inclusive). */
inline void clperm__thread_scan(clperm_t v[CLPERM_SCAN_ITEMS], clperm_t carry, uint inclusive) {
#pragma unroll
    for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) {
        clperm_t x = v[j];
        v[j] = inclusive ? carry + x : carry;
        carry += x;
    }
}

#endif /* !CLPERM_SCAN_SERIAL */

/* The look-back's fallback (cl/common/lookback.h): a tile's sum from its items. */
typedef struct {
    const __global clperm_t *src;
    ulong n;
} clperm__scan_input;

clperm_t clperm__tile_part(const void *input, uint tile, uint lane, uint width) {
    const clperm__scan_input *in = (const clperm__scan_input *)input;
    ulong end = min(in->n, ((ulong)tile + 1) * CLPERM_SCAN_TILE);
    clperm_t s = 0;
    for (ulong i = (ulong)tile * CLPERM_SCAN_TILE + lane; i < end; i += width) s += in->src[i];
    return s;
}

#if !CLPERM_SCAN_SERIAL

__kernel CLPERM_KERNEL_ATTRS void CLPERM_SCAN_KERNEL(clperm_scan_lookback_)(
    const __global clperm_t *src, __global clperm_t *dst, ulong n, uint inclusive,
    volatile __global uint *counter, uint tile_base, volatile __global uint *flags,
    volatile __global uint *vals, uint epoch) {
    __local uint tile_sh;
    __local clperm_t prefix_sh;
    __local clperm_t sg_tot[CLPERM_SG_MAX_COUNT];
    CLPERM_SG_SCRATCH_DECL(scr);
    CLPERM__STAGE_DECL;
    if (get_local_id(0) == 0) tile_sh = atomic_inc(counter) - tile_base;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint tile = tile_sh;
    ulong base = (ulong)tile * CLPERM_SCAN_TILE;
    clperm_t v[CLPERM_SCAN_ITEMS];
    clperm__load_blocked(src, base, n, v, CLPERM__STAGE);
    clperm_t total;
    clperm_t excl = clperm__wg_scan_excl(clperm__thread_sum(v), &total, sg_tot, scr);
    clperm__scan_input in = {src, n};
    clperm_t prefix = clperm__look_back(tile, total, flags, vals, epoch, &in, &prefix_sh, scr);
#if CLPERM_SCAN_STAGE
    /* The items again from local memory, where they stay until the store: held in registers
     * through the look-back they left its fallback too few (spills on the H100, u64 items). */
#pragma unroll
    for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) v[j] = stage[get_local_id(0) * CLPERM_SCAN_ITEMS + j];
#endif
    clperm__thread_scan(v, prefix + excl, inclusive);
    clperm__store_blocked(dst, base, n, v, CLPERM__STAGE);
}

/* ---- reduce-then-scan -------------------------------------------------------------------- */

/* partials[g] = sum of the items of tiles g*tiles_per_group .. (g+1)*tiles_per_group-1. */
__kernel CLPERM_KERNEL_ATTRS void CLPERM_SCAN_KERNEL(clperm_scan_reduce_)(
    const __global clperm_t *src, ulong n, ulong tiles_per_group, __global clperm_t *partials) {
    __local clperm_t sg_tot[CLPERM_SG_MAX_COUNT];
    CLPERM_SG_SCRATCH_DECL(scr);
    uint lid = (uint)get_local_id(0);
    ulong begin = get_group_id(0) * tiles_per_group * CLPERM_SCAN_TILE;
    ulong end = min(n, begin + tiles_per_group * CLPERM_SCAN_TILE);
    clperm_t acc = 0;
    ulong base = begin;
    for (; base + CLPERM_SCAN_TILE <= end; base += CLPERM_SCAN_TILE) {
#pragma unroll
        for (uint j = 0; j < CLPERM_SCAN_ITEMS; j++) acc += src[base + j * CLPERM_WG_SIZE + lid];
    }
    for (ulong i = base + lid; i < end; i += CLPERM_WG_SIZE) acc += src[i];
    clperm_t total = clperm__wg_reduce(acc, sg_tot, scr);
    if (lid == 0) partials[get_group_id(0)] = total;
}

/* One work-group: partials[0..count) becomes its exclusive scan; the sum of all goes to
 * total_dst[0] when write_total is set. */
__kernel CLPERM_KERNEL_ATTRS void CLPERM_SCAN_KERNEL(clperm_scan_spine_)(
    __global clperm_t *partials, uint count, __global clperm_t *total_dst, uint write_total) {
    __local clperm_t sg_tot[CLPERM_SG_MAX_COUNT];
    CLPERM_SG_SCRATCH_DECL(scr);
    CLPERM__STAGE_DECL;
    clperm_t carry = 0;
    for (ulong base = 0; base < count; base += CLPERM_SCAN_TILE) {
        clperm_t v[CLPERM_SCAN_ITEMS];
        clperm__load_blocked(partials, base, count, v, CLPERM__STAGE);
        clperm_t total;
        clperm_t excl = clperm__wg_scan_excl(clperm__thread_sum(v), &total, sg_tot, scr);
        clperm__thread_scan(v, carry + excl, 0);
        clperm__store_blocked(partials, base, count, v, CLPERM__STAGE);
        carry += total;
    }
    if (write_total && get_local_id(0) == 0) total_dst[0] = carry;
}

/* Scans the tiles of group g's range, starting from the exclusive prefix in partials[g]. */
__kernel CLPERM_KERNEL_ATTRS void CLPERM_SCAN_KERNEL(clperm_scan_downsweep_)(
    const __global clperm_t *src, __global clperm_t *dst, ulong n, uint inclusive,
    ulong tiles_per_group, const __global clperm_t *partials) {
    __local clperm_t sg_tot[CLPERM_SG_MAX_COUNT];
    CLPERM_SG_SCRATCH_DECL(scr);
    CLPERM__STAGE_DECL;
    ulong begin = get_group_id(0) * tiles_per_group * CLPERM_SCAN_TILE;
    ulong end = min(n, begin + tiles_per_group * CLPERM_SCAN_TILE);
    clperm_t carry = partials[get_group_id(0)];
    for (ulong base = begin; base < end; base += CLPERM_SCAN_TILE) {
        clperm_t v[CLPERM_SCAN_ITEMS];
        clperm__load_blocked(src, base, n, v, CLPERM__STAGE);
        clperm_t total;
        clperm_t excl = clperm__wg_scan_excl(clperm__thread_sum(v), &total, sg_tot, scr);
        clperm__thread_scan(v, carry + excl, inclusive);
        clperm__store_blocked(dst, base, n, v, CLPERM__STAGE);
        carry += total;
    }
}

#else /* CLPERM_SCAN_SERIAL: the same kernels, one work-item per tile */

inline clperm_t clperm__serial_sum(const __global clperm_t *src, ulong begin, ulong end) {
    clperm_t s = 0;
    for (ulong i = begin; i < end; i++) s += src[i];
    return s;
}

/* dst[begin..end) = scan of src[begin..end) starting from carry; returns carry + the sum. */
inline clperm_t clperm__serial_scan(const __global clperm_t *src, __global clperm_t *dst, ulong begin,
                                    ulong end, clperm_t carry, uint inclusive) {
    if (inclusive) {
        for (ulong i = begin; i < end; i++) {
            carry += src[i];
            dst[i] = carry;
        }
    } else {
        for (ulong i = begin; i < end; i++) {
            clperm_t x = src[i];
            dst[i] = carry;
            carry += x;
        }
    }
    return carry;
}

__kernel CLPERM_KERNEL_ATTRS void CLPERM_SCAN_KERNEL(clperm_scan_lookback_)(
    const __global clperm_t *src, __global clperm_t *dst, ulong n, uint inclusive,
    volatile __global uint *counter, uint tile_base, volatile __global uint *flags,
    volatile __global uint *vals, uint epoch) {
    uint tile = atomic_inc(counter) - tile_base;
    ulong begin = (ulong)tile * CLPERM_SCAN_TILE, end = min(n, begin + CLPERM_SCAN_TILE);
    clperm_t total = clperm__serial_sum(src, begin, end);
    clperm__scan_input in = {src, n};
    clperm_t prefix = clperm__look_back_serial(tile, total, flags, vals, epoch, &in);
    clperm__serial_scan(src, dst, begin, end, prefix, inclusive);
}

__kernel CLPERM_KERNEL_ATTRS void CLPERM_SCAN_KERNEL(clperm_scan_reduce_)(
    const __global clperm_t *src, ulong n, ulong tiles_per_group, __global clperm_t *partials) {
    ulong begin = get_group_id(0) * tiles_per_group * CLPERM_SCAN_TILE;
    ulong end = min(n, begin + tiles_per_group * CLPERM_SCAN_TILE);
    partials[get_group_id(0)] = clperm__serial_sum(src, begin, end);
}

__kernel CLPERM_KERNEL_ATTRS void CLPERM_SCAN_KERNEL(clperm_scan_spine_)(
    __global clperm_t *partials, uint count, __global clperm_t *total_dst, uint write_total) {
    clperm_t total = clperm__serial_scan(partials, partials, 0, count, 0, 0);
    if (write_total) total_dst[0] = total;
}

__kernel CLPERM_KERNEL_ATTRS void CLPERM_SCAN_KERNEL(clperm_scan_downsweep_)(
    const __global clperm_t *src, __global clperm_t *dst, ulong n, uint inclusive,
    ulong tiles_per_group, const __global clperm_t *partials) {
    ulong begin = get_group_id(0) * tiles_per_group * CLPERM_SCAN_TILE;
    ulong end = min(n, begin + tiles_per_group * CLPERM_SCAN_TILE);
    clperm__serial_scan(src, dst, begin, end, partials[get_group_id(0)], inclusive);
}

#endif /* CLPERM_SCAN_SERIAL */
