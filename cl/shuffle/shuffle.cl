/*
 * Bijective shuffle (Mitchell et al., Algorithm 1), compiled after cl/common/subgroup.h,
 * cl/common/progress.h, clperm_bijection.h, cl/common/wg_scan.h and cl/common/lookback.h (with CLPERM_T the type of
 * output positions).
 *
 * Every index i of the bijection's domain [0, domain) is evaluated once: w = f(i) is kept when
 * w < n, and the kept values, in increasing order of i, are the permutation. Output position j
 * receives the item src[w] of the j-th kept value (or w itself with CLPERM_SHUF_PERM).
 *
 * Required: CLPERM_SHUF_ITEMS (domain indices per work-item per tile), CLPERM_SHUF_IDX (uint when
 * the domain fits 32 bits, else ulong), CLPERM_SHUF_WORD and CLPERM_SHUF_WORDS (an item is that
 * many words of that type). CLPERM_SHUF_PERM 1 writes the indices themselves (then src is unused
 * and the word type is the index type asked for). CLPERM_SHUF_SERIAL 1: one work-item per tile.
 *
 * Three fusion levels (Section 6 of the paper):
 *   Bijective0  clperm_shuffle_transform, a device-wide scan of its flags, clperm_shuffle_scatter;
 *   Bijective1  clperm_shuffle_count, a device-wide scan of its counts, clperm_shuffle_downsweep
 *               (two passes over the domain);
 *   Bijective2  clperm_shuffle_lookback: one pass, decoupled look-back between tiles.
 */
#ifndef CLPERM_SHUF_ITEMS
#error "CLPERM_SHUF_ITEMS must be defined"
#endif
#ifndef CLPERM_SHUF_PERM
#define CLPERM_SHUF_PERM 0
#endif
#ifndef CLPERM_SHUF_SERIAL
#define CLPERM_SHUF_SERIAL 0
#endif
#if CLPERM_SHUF_ITEMS > 32 && !CLPERM_SHUF_SERIAL
#error "CLPERM_SHUF_ITEMS: at most 32 in the work-group kernels (one bit each in a mask)"
#endif

typedef CLPERM_SHUF_IDX clperm_idx_t;
typedef CLPERM_SHUF_WORD clperm_word_t;

#define CLPERM_SHUF_TILE (CLPERM_WG_SIZE * CLPERM_SHUF_ITEMS)

/* Is domain index i kept, with f(i) in *w? */
inline uint clperm__shuf_eval(const clperm_bijection_key *key, ulong i, clperm_idx_t *w) {
    *w = (clperm_idx_t)clperm_bijection_apply(key, i);
    return i < key->domain && (ulong)*w < key->n;
}

/* The look-back's fallback (cl/common/lookback.h): how many of a tile's indices are kept. */
clperm_t clperm__tile_part(const void *input, uint tile, uint lane, uint width) {
    const clperm_bijection_key *key = (const clperm_bijection_key *)input;
    clperm_t count = 0;
    for (uint j = lane; j < CLPERM_SHUF_TILE; j += width) {
        clperm_idx_t w;
        count += clperm__shuf_eval(key, (ulong)tile * CLPERM_SHUF_TILE + j, &w);
    }
    return count;
}

#ifndef CLPERM_SHUF_VEC8
#define CLPERM_SHUF_VEC8 0
#endif
#if CLPERM_SHUF_VEC8
#if CLPERM_BIJECTION_KIND != CLPERM_BIJ_FEISTEL || CLPERM_SHUF_ITEMS % 8
#error "CLPERM_SHUF_VEC8: the Feistel bijection and a multiple of 8 items per work-item"
#endif
/* Indices first .. first + N - 1 at once (N = 8, 16): their values into w[0 .. N), the kept ones
 * as bits. */
#define CLPERM__SHUF_EVAL_N(N, LANES)                                                                              \
    inline uint clperm__shuf_eval##N(const clperm_bijection_key *key, ulong first, clperm_idx_t *w) {             \
        ulong v[N];                                                                                                \
        vstore##N(clperm_feistel_apply##N(key, (ulong##N)(first) + (ulong##N) LANES), 0, v);                       \
        uint keep = 0;                                                                                             \
        for (uint q = 0; q < N; q++) {                                                                             \
            w[q] = (clperm_idx_t)v[q];                                                                             \
            keep |= (uint)(first + q < key->domain && v[q] < key->n) << q;                                         \
        }                                                                                                          \
        return keep;                                                                                               \
    }
CLPERM__SHUF_EVAL_N(8, (0, 1, 2, 3, 4, 5, 6, 7))
CLPERM__SHUF_EVAL_N(16, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
/* The lanes of a work-item's run: sixteen where its items allow, two chains of rounds in flight
 * where a vector register holds eight. */
#if CLPERM_SHUF_ITEMS % 16 == 0
#define SHUF_LANES 16
#define shuf_eval_lanes clperm__shuf_eval16
#else
#define SHUF_LANES 8
#define shuf_eval_lanes clperm__shuf_eval8
#endif
#endif

#if CLPERM_SHUF_SERIAL

/* The tile's kept values, in order, into stage[0 .. count); returns count. */
inline clperm_t clperm__shuf_compact(const clperm_bijection_key *key, ulong base, __local clperm_idx_t *stage,
                                     __local clperm_t *sg_tot, __local ulong *scr) {
    uint count = 0;
    /* A serial tile is thousands of indices: unrolled in full, the rounds make a huge kernel. */
#if CLPERM_SHUF_VEC8
#pragma unroll 1
    for (uint j = 0; j < CLPERM_SHUF_ITEMS; j += SHUF_LANES) {
        clperm_idx_t w[SHUF_LANES];
        uint keep = shuf_eval_lanes(key, base + j, w);
        for (uint q = 0; q < SHUF_LANES; q++)
            if (keep & (1u << q)) stage[count++] = w[q];
    }
#else
#pragma unroll 1
    for (uint j = 0; j < CLPERM_SHUF_ITEMS; j++) {
        clperm_idx_t w;
        if (clperm__shuf_eval(key, base + j, &w)) stage[count++] = w;
    }
#endif
    return count;
}

#else

/* The tile's kept values, in order, into stage[0 .. count); returns count to every work-item.
 * Work-item lid evaluates the consecutive indices base + lid * ITEMS + j. */
inline clperm_t clperm__shuf_compact(const clperm_bijection_key *key, ulong base, __local clperm_idx_t *stage,
                                     __local clperm_t *sg_tot, __local ulong *scr) {
    uint lid = (uint)get_local_id(0);
    clperm_idx_t w[CLPERM_SHUF_ITEMS];
    uint keep = 0, count = 0;
    ulong first = base + (ulong)lid * CLPERM_SHUF_ITEMS;
#if CLPERM_SHUF_VEC8
#pragma unroll
    for (uint j = 0; j < CLPERM_SHUF_ITEMS; j += 8) {
        uint k8 = clperm__shuf_eval8(key, first + j, w + j);
        keep |= k8 << j;
        count += popcount(k8);
    }
#else
#pragma unroll
    for (uint j = 0; j < CLPERM_SHUF_ITEMS; j++) {
        uint k = clperm__shuf_eval(key, first + j, &w[j]);
        keep |= k << j;
        count += k;
    }
#endif
    clperm_t total;
    clperm_t pos = clperm__wg_scan_excl((clperm_t)count, &total, sg_tot, scr);
#pragma unroll
    for (uint j = 0; j < CLPERM_SHUF_ITEMS; j++)
        if (keep & (1u << j)) stage[pos++] = w[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

#endif

/* Item k of the tile's output (k < count), read from src. */
inline clperm_word_t clperm__shuf_load(const __global clperm_word_t *src, __local const clperm_idx_t *stage,
                                       uint k, uint word) {
#if CLPERM_SHUF_PERM
    return (clperm_word_t)stage[k];
#else
    return src[(ulong)stage[k] * CLPERM_SHUF_WORDS + word];
#endif
}

/* Work-items take consecutive output positions so that writes coalesce. Single-word items are read
 * into registers before the output offset is known, so that the reads overlap the look-back. */
#define CLPERM__SHUF_PREFETCH (CLPERM_SHUF_WORDS == 1 && !CLPERM_SHUF_SERIAL)

/* Only where they are used: a serial tile's CLPERM_SHUF_ITEMS is thousands, unrolled here. */
#if CLPERM__SHUF_PREFETCH
inline void clperm__shuf_prefetch(const __global clperm_word_t *src, __local const clperm_idx_t *stage,
                                  uint count, clperm_word_t v[CLPERM_SHUF_ITEMS]) {
    uint lid = (uint)get_local_id(0);
#pragma unroll
    for (uint j = 0; j < CLPERM_SHUF_ITEMS; j++) {
        uint k = j * CLPERM_WG_SIZE + lid;
        v[j] = k < count ? clperm__shuf_load(src, stage, k, 0) : (clperm_word_t)0;
    }
}

inline void clperm__shuf_store(__global clperm_word_t *dst, ulong out, uint count,
                               const clperm_word_t v[CLPERM_SHUF_ITEMS]) {
    uint lid = (uint)get_local_id(0);
#pragma unroll
    for (uint j = 0; j < CLPERM_SHUF_ITEMS; j++) {
        uint k = j * CLPERM_WG_SIZE + lid;
        if (k < count) dst[out + k] = v[j];
    }
}
#endif

/* dst[out + k] = item k for k < count, word by word. */
inline void clperm__shuf_copy(const __global clperm_word_t *src, __global clperm_word_t *dst,
                              __local const clperm_idx_t *stage, ulong out, uint count) {
    for (uint k = (uint)get_local_id(0); k < count; k += CLPERM_WG_SIZE)
        for (uint w = 0; w < CLPERM_SHUF_WORDS; w++)
            dst[(out + k) * CLPERM_SHUF_WORDS + w] = clperm__shuf_load(src, stage, k, w);
}

/* Writes the tile's count items from stage to dst at the offset OUT_EXPR (evaluated once, by
 * every work-item, after the reads are issued). */
#if CLPERM__SHUF_PREFETCH
#define CLPERM__SHUF_EMIT(src, dst, stage, count, OUT_EXPR)                                       \
    do {                                                                                           \
        clperm_word_t v_[CLPERM_SHUF_ITEMS];                                                       \
        clperm__shuf_prefetch(src, stage, count, v_);                                              \
        ulong out_ = (OUT_EXPR);                                                                   \
        clperm__shuf_store(dst, out_, count, v_);                                                  \
    } while (0)
#else
#define CLPERM__SHUF_EMIT(src, dst, stage, count, OUT_EXPR)                                       \
    do {                                                                                           \
        ulong out_ = (OUT_EXPR);                                                                   \
        clperm__shuf_copy(src, dst, stage, out_, count);                                           \
    } while (0)
#endif

#define CLPERM__SHUF_LOCALS                                                                        \
    __local clperm_t sg_tot[CLPERM_SG_MAX_COUNT];                                                  \
    CLPERM_SG_SCRATCH_DECL(scr);                                                                   \
    __local clperm_idx_t stage[CLPERM_SHUF_TILE]

/* ---- Bijective2: one pass ------------------------------------------------------------------ */

__kernel CLPERM_KERNEL_ATTRS void clperm_shuffle_lookback(const __global clperm_word_t *src,
                                                          __global clperm_word_t *dst,
                                                          CLPERM_BIJECTION_KEY_PARAMS(key),
                                                          volatile __global uint *counter, uint tile_base,
                                                          volatile __global uint *flags,
                                                          volatile __global uint *vals, uint epoch) {
    CLPERM_BIJECTION_KEY_UNPACK(key);
    __local uint tile_sh;
    __local clperm_t prefix_sh;
    CLPERM__SHUF_LOCALS;
    if (get_local_id(0) == 0) tile_sh = atomic_inc(counter) - tile_base;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint tile = tile_sh;
    clperm_t count = clperm__shuf_compact(&key, (ulong)tile * CLPERM_SHUF_TILE, stage, sg_tot, scr);
#if CLPERM_SHUF_SERIAL
    CLPERM__SHUF_EMIT(src, dst, stage, (uint)count, clperm__look_back_serial(tile, count, flags, vals, epoch, &key));
#else
    CLPERM__SHUF_EMIT(src, dst, stage, (uint)count,
                      clperm__look_back(tile, count, flags, vals, epoch, &key, &prefix_sh, scr));
#endif
}

/* ---- Bijective1: two passes over fixed ranges of tiles -------------------------------------- */

/* partials[g] = number of kept values in the tiles of work-group g's range. */
__kernel CLPERM_KERNEL_ATTRS void clperm_shuffle_count(CLPERM_BIJECTION_KEY_PARAMS(key), ulong tiles_per_group,
                                                       __global clperm_t *partials) {
    CLPERM_BIJECTION_KEY_UNPACK(key);
    __local clperm_t sg_tot[CLPERM_SG_MAX_COUNT];
    CLPERM_SG_SCRATCH_DECL(scr);
    ulong t0 = get_group_id(0) * tiles_per_group;
    ulong tiles = (key.domain + CLPERM_SHUF_TILE - 1) / CLPERM_SHUF_TILE;
    ulong t1 = min(tiles, t0 + tiles_per_group);
    uint lid = (uint)get_local_id(0);
    clperm_t acc = 0;
    for (ulong t = t0; t < t1; t++) {
        ulong first = t * CLPERM_SHUF_TILE + (ulong)lid * CLPERM_SHUF_ITEMS;
#if CLPERM_SHUF_VEC8
#pragma unroll 1
        for (uint j = 0; j < CLPERM_SHUF_ITEMS; j += SHUF_LANES) {
            clperm_idx_t w[SHUF_LANES];
            acc += popcount(shuf_eval_lanes(&key, first + j, w));
        }
#else
#pragma unroll 1
        for (uint j = 0; j < CLPERM_SHUF_ITEMS; j++) {
            clperm_idx_t w;
            acc += clperm__shuf_eval(&key, first + j, &w);
        }
#endif
    }
#if CLPERM_SHUF_SERIAL
    partials[get_group_id(0)] = acc;
#else
    clperm_t total = clperm__wg_reduce(acc, sg_tot, scr);
    if (lid == 0) partials[get_group_id(0)] = total;
#endif
}

/* The tiles of work-group g's range again, writing from the exclusive prefix in partials[g]. */
__kernel CLPERM_KERNEL_ATTRS void clperm_shuffle_downsweep(const __global clperm_word_t *src,
                                                           __global clperm_word_t *dst,
                                                           CLPERM_BIJECTION_KEY_PARAMS(key),
                                                           ulong tiles_per_group,
                                                           const __global clperm_t *partials) {
    CLPERM_BIJECTION_KEY_UNPACK(key);
    CLPERM__SHUF_LOCALS;
    ulong t0 = get_group_id(0) * tiles_per_group;
    ulong tiles = (key.domain + CLPERM_SHUF_TILE - 1) / CLPERM_SHUF_TILE;
    ulong t1 = min(tiles, t0 + tiles_per_group);
    ulong carry = partials[get_group_id(0)];
    for (ulong t = t0; t < t1; t++) {
        clperm_t count = clperm__shuf_compact(&key, t * CLPERM_SHUF_TILE, stage, sg_tot, scr);
        CLPERM__SHUF_EMIT(src, dst, stage, (uint)count, carry);
        carry += count;
    }
}

/* ---- Bijective0: separate passes ---------------------------------------------------------- */

/* idx[i] = f(i), keep[i] = 1 when f(i) < n, for i in the domain. */
__kernel void clperm_shuffle_transform(CLPERM_BIJECTION_KEY_PARAMS(key), __global clperm_idx_t *idx,
                                       __global clperm_t *keep) {
    CLPERM_BIJECTION_KEY_UNPACK(key);
    ulong i = get_global_id(0);
    if (i >= key.domain) return;
    ulong w = clperm_bijection_apply(&key, i);
    idx[i] = (clperm_idx_t)w;
    keep[i] = w < key.n;
}

/* dst[pos[i]] = src[idx[i]] where idx[i] < n. */
__kernel void clperm_shuffle_scatter(const __global clperm_word_t *src, __global clperm_word_t *dst,
                                     ulong domain, ulong n, const __global clperm_idx_t *idx,
                                     const __global clperm_t *pos) {
    ulong i = get_global_id(0);
    if (i >= domain) return;
    ulong w = idx[i];
    if (w >= n) return;
    ulong o = pos[i];
#if CLPERM_SHUF_PERM
    dst[o] = (clperm_word_t)w;
#else
    for (uint k = 0; k < CLPERM_SHUF_WORDS; k++) dst[o * CLPERM_SHUF_WORDS + k] = src[w * CLPERM_SHUF_WORDS + k];
#endif
}
