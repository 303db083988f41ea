/*
 * Decoupled look-back between the tiles of one kernel (Merrill and Garland), compiled after
 * cl/common/subgroup.h, cl/common/progress.h and cl/common/wg_scan.h: each work-group takes the
 * next tile number from a counter, publishes its tile's aggregate, and walks back over earlier
 * tiles until it finds an inclusive prefix. The host side (src/runtime/lookback.c) keeps the
 * counter, the flags and the values per context and hands out the tile base and epoch of each
 * call.
 *
 * A predecessor that has not published after CLPERM_LOOKBACK_SPINS reads (its work-group may not
 * be running: OpenCL does not promise it) has its aggregate computed from its input by the one
 * waiting: the program defines clperm__tile_part, below, for its tiles.
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
    if (clperm__publish_withheld(tile, &flags[tile])) return;
    uint w = 4 * tile + (state == CLPERM__FLAG_INCLUSIVE ? 2 : 0);
    ulong v = (ulong)value;
    atomic_xchg(&vals[w], (uint)v);
    atomic_xchg(&vals[w + 1], (uint)(v >> 32));
    clperm_fence_global();
    atomic_xchg(&flags[tile], (epoch << 2) | state);
}

/* Defined by the program that compiles this file: work-item `lane` of `width`'s share of tile
 * `tile`'s aggregate, computed from the tile's input (whatever `input` points to); the shares of
 * lanes 0 .. width-1 add up to the aggregate. */
clperm_t clperm__tile_part(const void *input, uint tile, uint lane, uint width);

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

/* Tile t's aggregate for a work-item that waited for it in vain, computed from the tile's input;
 * if t has published meanwhile, its own word instead: t may have overwritten its input since (an
 * in-place scan). Returns the state to count the value as. */
inline uint clperm__fall_back(const void *input, volatile __global uint *flags, volatile __global uint *vals,
                              uint t, uint epoch, clperm_t *val) {
    *val = clperm__tile_part(input, t, 0, 1);
    clperm_fence_global();
    uint s = clperm__peek_state(flags, t, epoch);
    if (s) *val = clperm__peek_value(vals, t, s);
    return s ? s : CLPERM__FLAG_AGGREGATE;
}

/* Publishes this tile's aggregate, walks back one tile at a time to the nearest inclusive prefix
 * (or past tile 0), publishes this tile's inclusive prefix, and returns the exclusive one. Run by
 * one work-item. */
inline clperm_t clperm__look_back_serial(uint tile, clperm_t aggregate, volatile __global uint *flags,
                                         volatile __global uint *vals, uint epoch, const void *input) {
    clperm_t prefix = 0;
    if (tile == 0) {
        clperm__publish(flags, vals, 0, CLPERM__FLAG_INCLUSIVE, aggregate, epoch);
        return 0;
    }
    clperm__publish(flags, vals, tile, CLPERM__FLAG_AGGREGATE, aggregate, epoch);
    for (uint t = tile - 1;; t--) {
        uint s = 0;
        for (uint spin = 0; spin < CLPERM_LOOKBACK_SPINS && s == 0; spin++) s = clperm__peek_state(flags, t, epoch);
        clperm_t val;
        if (s)
            val = clperm__peek_value(vals, t, s);
        else
            s = clperm__fall_back(input, flags, vals, t, epoch, &val);
        prefix += val;
        if (s == CLPERM__FLAG_INCLUSIVE || t == 0) break;
    }
    clperm__publish(flags, vals, tile, CLPERM__FLAG_INCLUSIVE, prefix + aggregate, epoch);
    return prefix;
}

/* The same for the lanes of a subgroup looking back at tiles window - lane, some still waiting
 * (state *s 0): the subgroup computes their tiles' aggregates together, youngest first, up to the
 * first lane with an inclusive prefix; returns the lane's value, its state in *s. */
inline clperm_t clperm__fall_back_sg(const void *input, volatile __global uint *flags,
                                          volatile __global uint *vals, long window, uint epoch, uint lane,
                                          uint width, uint *s, clperm_t val, __local ulong *scr) {
    for (;;) {
        uint miss = clperm_sg_first_lane(*s == 0, scr);
        if (miss >= width || miss > clperm_sg_first_lane(*s == CLPERM__FLAG_INCLUSIVE, scr)) return val;
        uint tm = (uint)(window - (long)miss); /* lanes before tile 0 hold state 2 */
        clperm_t part = clperm__tile_part(input, tm, lane, width);
        clperm_fence_global();
        uint sm = clperm_sg_broadcast_u32(lane == 0 ? clperm__peek_state(flags, tm, epoch) : 0u, 0, scr);
        if (sm) part = lane == 0 ? clperm__peek_value(vals, tm, sm) : (clperm_t)0;
        clperm_t agg = clperm__sg_reduce(part, scr);
        if (lane == miss) {
            *s = sm ? sm : CLPERM__FLAG_AGGREGATE;
            val = agg;
        }
    }
}

/* Publishes this tile's aggregate, finds the sum of all earlier tiles, publishes the inclusive
 * prefix, and returns the exclusive prefix to every work-item. */
inline clperm_t clperm__look_back(uint tile, clperm_t aggregate, volatile __global uint *flags,
                                  volatile __global uint *vals, uint epoch, const void *input,
                                  __local clperm_t *prefix_sh, __local ulong *scr) {
#if CLPERM_SG_IMPL == CLPERM_SG_USE_LOCAL || (defined(CLPERM_SG_LOCKSTEP) && CLPERM_SG_LOCKSTEP)
    /* No hardware subgroups, or built-ins that the first subgroup may not call alone
     * (clperm_profile.sg_lockstep): one work-item walks back, tile by tile. */
    if (get_local_id(0) == 0) *prefix_sh = clperm__look_back_serial(tile, aggregate, flags, vals, epoch, input);
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
                uint s, spin = 0;
                do {
                    s = t >= 0 ? clperm__peek_state(flags, (uint)t, epoch) : CLPERM__FLAG_INCLUSIVE;
                } while (!clperm_sg_all(s != 0, scr) && ++spin < CLPERM_LOOKBACK_SPINS);
                clperm_t val = t >= 0 && s ? clperm__peek_value(vals, (uint)t, s) : (clperm_t)0;
                if (spin == CLPERM_LOOKBACK_SPINS)
                    val = clperm__fall_back_sg(input, flags, vals, window, epoch, lane, width, &s, val, scr);
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
