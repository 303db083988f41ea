/*
 * The bucket shuffle's second pass (clperm.h, CLPERM_SHUFFLE_BUCKETS), after the device-wide
 * sort's label pass has partitioned the items (or their positions) by label into `part`. Compiled
 * after clperm_bijection.h. No barriers and no local memory.
 *
 * Options: CLPERM_BKT_STARTS64 (the bucket starts the sort left are u64 words, else u32),
 * CLPERM_BKT_WORD and CLPERM_BKT_WORDS (an output item is that many words of that type),
 * CLPERM_BKT_INDEX (1: `part` holds input positions of type CLPERM_BKT_IDX and the items come
 * from src; 0: `part` holds the items), CLPERM_BKT_WG and CLPERM_BKT_ITEMS (the gather's
 * work-items per work-group and outputs per work-item),
 * CLPERM_BIJECTION_KIND and CLPERM_BIJECTION_ROUNDS (the bijection, fixed so that its rounds
 * unroll), CLPERM_BKT_STAGED (items, not positions: a work-item's loads all go out before its
 * stores), CLPERM_BKT_VEC8 (CPUs, the Feistel: each work-item takes CLPERM_BKT_ITEMS consecutive
 * outputs, sixteen at a time through the Feistel in vector lanes, clperm_feistel_apply16).
 *
 *   clperm_bucket_keys    work-item d of 2^CLPERM_BUCKET_BITS: the key of bucket d's bijection,
 *                         from its size and a seed of its own (clperm__bucket_seed)
 *   clperm_bucket_gather  bucket d = [s, e): out[s + j] = part[s + walk_d(j)] for j < e - s,
 *                         walk_d the bijection restricted to [0, e - s) (clperm_bijection_walk);
 *                         a work-group's outputs are consecutive, its work-items' interleaved
 */
#ifndef CLPERM_BKT_INDEX
#define CLPERM_BKT_INDEX 0
#endif
#ifndef CLPERM_BKT_VEC8
#define CLPERM_BKT_VEC8 0
#endif
#ifndef CLPERM_BKT_STAGED
#define CLPERM_BKT_STAGED 0
#endif
#if CLPERM_BKT_STAGED && CLPERM_BKT_INDEX
#error "CLPERM_BKT_STAGED: items in the partitioned buffer, not positions"
#endif
#if CLPERM_BKT_VEC8 && (CLPERM_BIJECTION_KIND != CLPERM_BIJ_FEISTEL || CLPERM_BKT_ITEMS % 8)
#error "CLPERM_BKT_VEC8: the Feistel bijection and a multiple of 8 outputs per work-item"
#endif
#if CLPERM_BKT_STARTS64
typedef ulong bkt_start;
#else
typedef uint bkt_start;
#endif
typedef CLPERM_BKT_WORD bkt_word;
#define BKT_R (1u << CLPERM_BUCKET_BITS)

/* Where bucket d starts: word d * stride of the sort's starts; bucket R starts at n. */
inline ulong bkt_start_of(const __global bkt_start *starts, ulong stride, ulong n, uint d) {
    return d < BKT_R ? (ulong)starts[d * stride] : n;
}

__kernel void clperm_bucket_keys(const __global bkt_start *starts, ulong stride, ulong n, ulong label_key,
                                 uint kind, uint rounds, __global clperm_bijection_key *keys) {
    const uint d = (uint)get_global_id(0);
    if (d >= BKT_R) return;
    ulong s = bkt_start_of(starts, stride, n, d), e = bkt_start_of(starts, stride, n, d + 1);
    clperm_bijection_key k;
    clperm_bijection_derive(&k, e - s, clperm__bucket_seed(label_key, d), kind, rounds);
    keys[d] = k;
}

/* The fields of a global key that the bijection reads, into *k. */
inline void bkt_load_key(const __global clperm_bijection_key *g, clperm_bijection_key *k) {
    k->n = g->n;
    k->domain = g->domain;
    k->lcg_mul = g->lcg_mul;
    k->lcg_add = g->lcg_add;
    k->swap[0] = g->swap[0];
    k->swap[1] = g->swap[1];
    k->kind = g->kind;
    k->bits = g->bits;
    k->left_bits = g->left_bits;
    k->right_bits = g->right_bits;
    k->rounds = g->rounds;
    k->radix = g->radix;
    for (uint r = 0; r < CLPERM__BIJ_ROUNDS(k); r++) k->keys[r] = g->keys[r];
}

#if CLPERM_BKT_INDEX
typedef CLPERM_BKT_IDX bkt_part;
#else
typedef bkt_word bkt_part;
#endif

/* Output o from place `from` of the partitioned buffer. */
inline void bkt_move(const __global bkt_word *src, const __global bkt_part *part, __global bkt_word *dst, ulong o,
                     ulong from) {
#if CLPERM_BKT_INDEX
    ulong i = (ulong)part[from];
    for (uint w = 0; w < CLPERM_BKT_WORDS; w++) dst[o * CLPERM_BKT_WORDS + w] = src[i * CLPERM_BKT_WORDS + w];
#else
    (void)src;
    dst[o] = part[from];
#endif
}

/* The bucket [*s, *e) of output o, from bucket *d on (o past its start), and its key into *k.
 * Loops here end whatever the loads return: on llvmpipe the SIMD lanes past a narrow work-group
 * run them with loads of 0, and a loop that never ends there cuts every loop of the kernel short
 * (docs/devices.md). */
inline void bkt_advance(const __global bkt_start *starts, ulong stride, ulong n, const __global clperm_bijection_key *keys,
                        ulong o, uint *d, ulong *s, ulong *e, clperm_bijection_key *k) {
    if (o < *e) return;
    do {
        ++*d;
        *s = *e;
        *e = bkt_start_of(starts, stride, n, *d + 1);
    } while (o >= *e && *d + 1 < BKT_R);
    bkt_load_key(keys + *d, k);
}

/* clperm_bijection_walk from y = f(x) on, for f computed sixteen at a time (it ends at once for a
 * key of no items, as that does: loads of 0, above). */
inline ulong bkt_walk_on(const clperm_bijection_key *k, ulong y) {
    while (y >= k->n && k->n != 0) y = clperm_bijection_apply(k, y);
    return y;
}

__kernel void clperm_bucket_gather(const __global bkt_word *src, const __global void *part_v,
                                   __global bkt_word *dst, ulong n, const __global bkt_start *starts, ulong stride,
                                   const __global clperm_bijection_key *keys) {
    const __global bkt_part *part = (const __global bkt_part *)part_v;
    const ulong wg = CLPERM_BKT_WG, lid = get_local_id(0);
#if CLPERM_BKT_VEC8
    const ulong first = ((ulong)get_group_id(0) * wg + lid) * CLPERM_BKT_ITEMS, step = 1;
#else
    const ulong first = (ulong)get_group_id(0) * wg * CLPERM_BKT_ITEMS + lid, step = wg;
#endif
    if (first >= n) return;
    /* The bucket of this work-item's first output: the last d whose start is at most it. */
    uint lo = 0, hi = BKT_R;
    while (hi - lo > 1) {
        uint mid = (lo + hi) / 2;
        if (bkt_start_of(starts, stride, n, mid) <= first) lo = mid;
        else hi = mid;
    }
    uint d = lo;
    ulong s = bkt_start_of(starts, stride, n, d), e = bkt_start_of(starts, stride, n, d + 1);
    clperm_bijection_key k;
    bkt_load_key(keys + d, &k);
#if CLPERM_BKT_VEC8
    /* The run's places in its bucket first, sixteen at a time, then its moves in one loop: the
     * moves are then plain loads and stores, which the CPU keeps many of in flight. */
    ulong from[CLPERM_BKT_ITEMS];
    const ulong end = n - first < CLPERM_BKT_ITEMS ? n : first + CLPERM_BKT_ITEMS;
    for (ulong o = first; o < end;) {
        bkt_advance(starts, stride, n, keys, o, &d, &s, &e, &k);
        const ulong stop = e < end ? e : end;
        if (stop <= o) break; /* only lanes past the work-group (above) */
        const uint m = (uint)(stop - o);
        uint j = 0;
        for (; j + 16 <= m; j += 16) {
            ulong16 y = clperm_feistel_apply16(
                &k, (ulong16)(o + j - s) + (ulong16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
            vstore16(y, 0, from + j);
            /* The rare further steps of the walk one by one. */
            if (any(y >= (ulong16)(k.n)))
                for (uint q = j; q < j + 16; q++) from[q] = bkt_walk_on(&k, from[q]);
        }
        for (; j < m; j++) from[j] = clperm_bijection_walk(&k, o + j - s);
        for (j = 0; j < m; j++) bkt_move(src, part, dst, o + j, s + from[j]);
        o = stop;
    }
#elif CLPERM_BKT_STAGED
    /* The places of all of this work-item's outputs first, then their loads, then the stores:
     * the loads go out together, where a store between them (which might alias the next load)
     * holds each back until the one before has come. */
    ulong from[CLPERM_BKT_ITEMS];
    uint count = 0;
#pragma unroll
    for (uint j = 0; j < CLPERM_BKT_ITEMS; j++) {
        ulong o = first + j * step;
        if (o < n) {
            bkt_advance(starts, stride, n, keys, o, &d, &s, &e, &k);
            from[j] = s + clperm_bijection_walk(&k, o - s);
            count = j + 1;
        }
    }
    bkt_word v[CLPERM_BKT_ITEMS];
#pragma unroll
    for (uint j = 0; j < CLPERM_BKT_ITEMS; j++)
        if (j < count) v[j] = part[from[j]];
#pragma unroll
    for (uint j = 0; j < CLPERM_BKT_ITEMS; j++)
        if (j < count) dst[first + j * step] = v[j];
    (void)src;
#else
    for (uint j = 0; j < CLPERM_BKT_ITEMS; j++) {
        ulong o = first + j * step;
        if (o >= n) break;
        bkt_advance(starts, stride, n, keys, o, &d, &s, &e, &k);
        bkt_move(src, part, dst, o, s + clperm_bijection_walk(&k, o - s));
    }
#endif
}
