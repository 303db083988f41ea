/*
 * Decoupled look-back between the tiles of one kernel (Merrill and Garland), compiled after
 * cl/common/subgroup.h and cl/common/wg_scan.h: each work-group takes the next tile number from a
 * counter, publishes its tile's aggregate, and walks back over earlier tiles until it finds an
 * inclusive prefix. The host side (src/runtime/lookback.c) keeps the counter, the flags and the
 * values per context and hands out the tile base and epoch of each call.
 *
 * Safe only where started work-groups keep running (clperm_profile.forward_progress).
 */
#ifndef CLPERM_LOOKBACK_H
#define CLPERM_LOOKBACK_H

/* Per tile: flags[t] = epoch << 2 | state, and four words in vals: the aggregate (lo, hi) and
 * the inclusive prefix (lo, hi). A flag of another epoch reads as "not yet published", so the
 * flags need no clearing between calls. Every access to this state is atomic. */
#define CLPERM__FLAG_AGGREGATE 1u
#define CLPERM__FLAG_INCLUSIVE 2u

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

#endif /* CLPERM_LOOKBACK_H */
