/*
 * Device-wide prefix sum and reduction of u32 or u64 items, compiled after cl/common/subgroup.h.
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
#ifndef CLPERM_T
#error "CLPERM_T must be defined"
#endif
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

typedef CLPERM_T clperm_t;

#define CLPERM_SCAN_TILE (CLPERM_WG_SIZE * CLPERM_SCAN_ITEMS)
#define CLPERM_SCAN_KERNEL(base) CLPERM_CAT(base, CLPERM_TS)
#define clperm__sg_scan_incl CLPERM_CAT(clperm_sg_scan_incl_add_, CLPERM_TS)
#define clperm__sg_reduce CLPERM_CAT(clperm_sg_reduce_add_, CLPERM_TS)

#define CLPERM__FLAG_AGGREGATE 1u
#define CLPERM__FLAG_INCLUSIVE 2u

#if CLPERM_SCAN_STAGE
#define CLPERM__STAGE_DECL __local clperm_t stage[CLPERM_SCAN_TILE]
#define CLPERM__STAGE stage
#else
#define CLPERM__STAGE_DECL
#define CLPERM__STAGE 0
#endif

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

/* Exclusive prefix of x over the work-group; *total receives the sum over the work-group. */
inline clperm_t clperm__wg_scan_excl(clperm_t x, clperm_t *total, __local clperm_t *sg_tot,
                                     __local ulong *scr) {
    clperm_t incl = clperm__sg_scan_incl(x, scr);
    uint sg = clperm_sg_id(), count = clperm_sg_count();
    barrier(CLK_LOCAL_MEM_FENCE); /* earlier readers of sg_tot are done */
    if (clperm_sg_lane() == clperm_sg_size() - 1) sg_tot[sg] = incl;
    barrier(CLK_LOCAL_MEM_FENCE);
    clperm_t pre = 0, tot = 0;
    for (uint s = 0; s < count; s++) {
        clperm_t t = sg_tot[s];
        pre += s < sg ? t : (clperm_t)0;
        tot += t;
    }
    *total = tot;
    return pre + incl - x;
}

inline clperm_t clperm__wg_reduce(clperm_t x, __local clperm_t *sg_tot, __local ulong *scr) {
    clperm_t r = clperm__sg_reduce(x, scr);
    uint count = clperm_sg_count();
    barrier(CLK_LOCAL_MEM_FENCE);
    if (clperm_sg_lane() == 0) sg_tot[clperm_sg_id()] = r;
    barrier(CLK_LOCAL_MEM_FENCE);
    clperm_t tot = 0;
    for (uint s = 0; s < count; s++) tot += sg_tot[s];
    return tot;
}

/* ---- decoupled look-back --------------------------------------------------------------------
 * Per tile: flags[t] = epoch << 2 | state, and four words in vals: the aggregate (lo, hi) and
 * the inclusive prefix (lo, hi). A flag of another epoch reads as "not yet published", so the
 * flags need no clearing between calls. Every access to this state is atomic. */

inline void clperm__publish(volatile __global uint *flags, volatile __global uint *vals, uint tile,
                            uint state, clperm_t value, uint epoch) {
    uint w = 4 * tile + (state == CLPERM__FLAG_INCLUSIVE ? 2 : 0);
    ulong v = (ulong)value;
    atomic_xchg(&vals[w], (uint)v);
    atomic_xchg(&vals[w + 1], (uint)(v >> 32));
    clperm_fence_global();
    atomic_xchg(&flags[tile], (epoch << 2) | state);
}

/* Reads a word another work-group publishes. On NVIDIA a volatile load (ld.volatile, served by
 * the L2 cache every time) instead of an atomic: many work-groups poll the same words, and atomics
 * on one address are serialised. Elsewhere an atomic, which race checkers such as Oclgrind
 * recognise. */
#if defined(CLPERM_NVIDIA) && CLPERM_NVIDIA
#define clperm__read_shared(p) (*(p))
#else
#define clperm__read_shared(p) atomic_or((p), 0u)
#endif

inline uint clperm__peek_state(volatile __global uint *flags, uint tile, uint epoch) {
    uint f = clperm__read_shared(&flags[tile]);
    return (f >> 2) == epoch ? (f & 3u) : 0u;
}

inline clperm_t clperm__peek_value(volatile __global uint *vals, uint tile, uint state) {
    clperm_fence_global();
    uint w = 4 * tile + (state == CLPERM__FLAG_INCLUSIVE ? 2 : 0);
    ulong lo = clperm__read_shared(&vals[w]), hi = clperm__read_shared(&vals[w + 1]);
    return (clperm_t)(lo | (hi << 32));
}

/* Publishes this tile's aggregate, walks back one tile at a time to the nearest inclusive prefix,
 * publishes this tile's inclusive prefix, and returns the exclusive one. Run by one work-item. */
inline clperm_t clperm__look_back_serial(uint tile, clperm_t aggregate, volatile __global uint *flags,
                                         volatile __global uint *vals, uint epoch) {
    clperm_t prefix = 0;
    if (tile == 0) {
        clperm__publish(flags, vals, 0, CLPERM__FLAG_INCLUSIVE, aggregate, epoch);
        return 0;
    }
    clperm__publish(flags, vals, tile, CLPERM__FLAG_AGGREGATE, aggregate, epoch);
    for (uint t = tile - 1;; t--) {
        uint s;
        while ((s = clperm__peek_state(flags, t, epoch)) == 0) {
        }
        prefix += clperm__peek_value(vals, t, s);
        if (s == CLPERM__FLAG_INCLUSIVE) break;
    }
    clperm__publish(flags, vals, tile, CLPERM__FLAG_INCLUSIVE, prefix + aggregate, epoch);
    return prefix;
}

/* Publishes this tile's aggregate, finds the sum of all earlier tiles, publishes the inclusive
 * prefix, and returns the exclusive prefix to every work-item. */
inline clperm_t clperm__look_back(uint tile, clperm_t aggregate, volatile __global uint *flags,
                                  volatile __global uint *vals, uint epoch,
                                  __local clperm_t *prefix_sh, __local ulong *scr) {
#if CLPERM_SG_IMPL == CLPERM_SG_USE_LOCAL
    /* No hardware subgroups: one work-item walks back, tile by tile. */
    if (get_local_id(0) == 0) *prefix_sh = clperm__look_back_serial(tile, aggregate, flags, vals, epoch);
#else
    /* The first subgroup looks at one earlier tile per lane, a window at a time. */
    if (clperm_sg_id() == 0) {
        uint lane = clperm_sg_lane(), width = clperm_sg_size();
        clperm_t prefix = 0;
        if (lane == 0)
            clperm__publish(flags, vals, tile, tile ? CLPERM__FLAG_AGGREGATE : CLPERM__FLAG_INCLUSIVE,
                            aggregate, epoch);
        if (tile > 0) {
            long window = (long)tile - 1;
            for (;;) {
                long t = window - (long)lane;
                uint s;
                do {
                    s = t >= 0 ? clperm__peek_state(flags, (uint)t, epoch) : CLPERM__FLAG_INCLUSIVE;
                } while (!clperm_sg_all(s != 0, scr));
                clperm_t val = t >= 0 ? clperm__peek_value(vals, (uint)t, s) : (clperm_t)0;
                uint first = clperm_sg_first_lane(s == CLPERM__FLAG_INCLUSIVE, scr);
                prefix += clperm__sg_reduce(lane <= first ? val : (clperm_t)0, scr);
                if (first < width) break;
                window -= (long)width;
            }
            if (lane == 0)
                clperm__publish(flags, vals, tile, CLPERM__FLAG_INCLUSIVE, prefix + aggregate, epoch);
        }
        if (lane == 0) *prefix_sh = prefix;
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    return *prefix_sh;
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
    clperm_t prefix = clperm__look_back(tile, total, flags, vals, epoch, &prefix_sh, scr);
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
    clperm_t prefix = clperm__look_back_serial(tile, total, flags, vals, epoch);
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
