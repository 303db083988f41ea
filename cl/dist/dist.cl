/*
 * Per-item work of the distributed shuffle (src/dist/dist_shuffle.c), compiled after
 * clperm_features.h and clperm_bijection.h. One program serves every call: the widths of index
 * arrays and the item size are kernel arguments, not build options.
 *
 * Index arrays (keys, positions) hold uint or ulong according to a `wide` argument (0 or 1), the
 * same for every work-item, so the branches below do not diverge. An item is `words` words of
 * `word_bytes` bytes (1, 2, 4, 8 or 16).
 */

inline ulong clperm__dist_load(__global const uchar *p, uint wide, ulong i) {
    return wide ? ((__global const ulong *)p)[i] : (ulong)((__global const uint *)p)[i];
}

inline void clperm__dist_store(__global uchar *p, uint wide, ulong i, ulong v) {
    if (wide)
        ((__global ulong *)p)[i] = v;
    else
        ((__global uint *)p)[i] = (uint)v;
}

/* Item `from` of src to item `to` of dst. */
inline void clperm__dist_copy_item(__global const uchar *src, ulong from, __global uchar *dst, ulong to,
                                   uint word_bytes, ulong words) {
    ulong a = from * words, b = to * words;
    switch (word_bytes) {
    case 16:
        for (ulong w = 0; w < words; w++) ((__global uint4 *)dst)[b + w] = ((__global const uint4 *)src)[a + w];
        break;
    case 8:
        for (ulong w = 0; w < words; w++) ((__global ulong *)dst)[b + w] = ((__global const ulong *)src)[a + w];
        break;
    case 4:
        for (ulong w = 0; w < words; w++) ((__global uint *)dst)[b + w] = ((__global const uint *)src)[a + w];
        break;
    case 2:
        for (ulong w = 0; w < words; w++) ((__global ushort *)dst)[b + w] = ((__global const ushort *)src)[a + w];
        break;
    default:
        for (ulong w = 0; w < words; w++) dst[b + w] = src[a + w];
        break;
    }
}

/* counts[b] = the kept values (f(i) < n) among the domain indices [begin + b * block, ... + block)
 * cut at end. One work-item per block. */
__kernel void clperm_dist_count(CLPERM_BIJECTION_KEY_PARAMS(key), ulong begin, ulong end, uint block,
                                __global ulong *counts) {
    CLPERM_BIJECTION_KEY_UNPACK(key);
    ulong b = get_global_id(0);
    ulong lo = begin + b * block;
    if (lo >= end) return;
    ulong hi = min(lo + block, end), c = 0;
    for (ulong i = lo; i < hi; i++) c += clperm_bijection_apply(&key, i) < key.n;
    counts[b] = c;
}

/* The source's keys: keys[t] = f^-1(first + t), the domain index whose value is the global item
 * first + t, and positions[t] = t. Each work-item takes every global-size-th t: the key's
 * unpacking into private memory is paid once for several items. */
__kernel void clperm_dist_inverse(CLPERM_BIJECTION_KEY_PARAMS(key), ulong first, ulong count,
                                  __global uchar *keys, uint keys_wide, __global uchar *positions,
                                  uint positions_wide) {
    CLPERM_BIJECTION_KEY_UNPACK(key);
    for (ulong t = get_global_id(0); t < count; t += get_global_size(0)) {
        clperm__dist_store(keys, keys_wide, t, clperm_bijection_invert(&key, first + t));
        clperm__dist_store(positions, positions_wide, t, t);
    }
}

/* out[q] = the first t with keys[t] >= bounds[q] in the ascending keys[0 .. count). */
__kernel void clperm_dist_lower_bounds(__global const uchar *keys, uint keys_wide, ulong count,
                                       __global const ulong *bounds, uint nbounds, __global ulong *out) {
    uint q = get_global_id(0);
    if (q >= nbounds) return;
    ulong v = bounds[q], lo = 0, hi = count;
    while (lo < hi) {
        ulong mid = lo + (hi - lo) / 2;
        if (clperm__dist_load(keys, keys_wide, mid) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    out[q] = lo;
}

/* The sort's search: out[q] = the first t in [from, to) whose key's order exceeds v, for
 * queries[3q .. 3q + 2] = (from, to, v), over ascending keys of `kind` (CLPERM_KEYKIND_*; the
 * order of clperm_features.h's CLPERM_KEY_ORDER). */
__kernel void clperm_dist_upper_bounds(__global const uchar *keys, uint kind, __global const ulong *queries,
                                       uint nqueries, __global ulong *out) {
    uint q = get_global_id(0);
    if (q >= nqueries) return;
    ulong lo = queries[3 * q], hi = queries[3 * q + 1], v = queries[3 * q + 2];
    uint bits = CLPERM_KEY_BITS(kind);
    ulong pos = CLPERM_KEY_POS_XOR(kind), neg = CLPERM_KEY_NEG_XOR(kind), all = CLPERM_KEY_ALL(kind);
    while (lo < hi) {
        ulong mid = lo + (hi - lo) / 2, k = clperm__dist_load(keys, bits == 64, mid);
        if ((CLPERM_KEY_ORDER(k, bits, pos, neg) & all) <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    out[q] = lo;
}

/* The destination's keys over its domain range, block by block as clperm_dist_count counted
 * them: for the kept indices of block b, in increasing order, from position before[b] (the kept
 * values of the earlier blocks) on, owners[j] = the rank whose input block holds f(i) (the last
 * s with offsets[s] <= f(i); offsets has ranks + 1 entries) and positions[j] = j. One work-group
 * per `group_blocks` consecutive blocks: its work-items take consecutive indices, and a scan of
 * the kept ones over the group (in `scan`, a uint per work-item) gives each its j, so that the
 * stores of a group are contiguous. */
__kernel void clperm_dist_owners(CLPERM_BIJECTION_KEY_PARAMS(key), ulong begin, ulong end, uint block,
                                 __global const ulong *before, __global const ulong *offsets, uint ranks,
                                 __global uint *owners, __global uchar *positions, uint positions_wide,
                                 uint group_blocks, __local uint *scan) {
    CLPERM_BIJECTION_KEY_UNPACK(key);
    uint lid = get_local_id(0), w = get_local_size(0);
    ulong b = get_group_id(0) * (ulong)group_blocks, lo = begin + b * block;
    if (lo >= end) return; /* the same for the whole group */
    ulong hi = min(lo + (ulong)group_blocks * block, end), j = before[b];
    for (ulong base = lo; base < hi; base += w) {
        ulong i = base + lid, v = 0;
        uint kept = 0;
        if (i < hi) {
            v = clperm_bijection_apply(&key, i);
            kept = v < key.n;
        }
        scan[lid] = kept;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = 1; s < w; s <<= 1) {
            uint add = lid >= s ? scan[lid - s] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            scan[lid] += add;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        uint through = scan[lid], total = scan[w - 1];
        barrier(CLK_LOCAL_MEM_FENCE); /* every read of scan before the next round writes it */
        if (kept) {
            ulong at = j + through - 1;
            uint a = 0, z = ranks; /* offsets[a] <= v < offsets[z] */
            while (z - a > 1) {
                uint mid = a + (z - a) / 2;
                if (offsets[mid] <= v)
                    a = mid;
                else
                    z = mid;
            }
            owners[at] = a;
            clperm__dist_store(positions, positions_wide, at, at);
        }
        j += total;
    }
}

/* dst item t = src item positions[t] (gather), for t < count. */
__kernel void clperm_dist_gather(__global const uchar *src, __global uchar *dst, __global const uchar *positions,
                                 uint positions_wide, ulong count, uint word_bytes, ulong words) {
    ulong t = get_global_id(0);
    if (t >= count) return;
    clperm__dist_copy_item(src, clperm__dist_load(positions, positions_wide, t), dst, t, word_bytes, words);
}

/* dst item positions[t] = src item t (scatter), for t < count. */
__kernel void clperm_dist_scatter(__global const uchar *src, __global uchar *dst, __global const uchar *positions,
                                  uint positions_wide, ulong count, uint word_bytes, ulong words) {
    ulong t = get_global_id(0);
    if (t >= count) return;
    clperm__dist_copy_item(src, t, dst, clperm__dist_load(positions, positions_wide, t), word_bytes, words);
}
