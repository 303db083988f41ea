/* The baselines' kernels: dart throwing and a sort shuffle, other ways to shuffle on the device
 * that clperm's shuffle is compared with. Built after kernels/mix.h. */

/* ---- dart throwing: each item claims a random free slot of a table of `slots` (> n) words ---- */

#define CLPERM_BENCH_EMPTY 0xffffffffu

__kernel void clperm_bench_dart_throw(__global uint *table, ulong slots, ulong n, ulong seed) {
    ulong i = get_global_id(0);
    if (i >= n) return;
    for (ulong attempt = 0;; attempt++) {
        ulong s = ((clperm_bench_mix(seed ^ (i << 20) ^ attempt) >> 32) * slots) >> 32;
        if (atomic_cmpxchg(&table[s], CLPERM_BENCH_EMPTY, (uint)i) == CLPERM_BENCH_EMPTY) break;
    }
}

__kernel void clperm_bench_dart_flags(const __global uint *table, __global uint *flags, ulong slots) {
    ulong s = get_global_id(0);
    if (s < slots) flags[s] = table[s] != CLPERM_BENCH_EMPTY;
}

/* The occupied slots in order: dst[pos[s]] = src[table[s]]. */
__kernel void clperm_bench_dart_compact(const __global uint *table, const __global uint *pos,
                                        const __global ulong *src, __global ulong *dst, ulong slots) {
    ulong s = get_global_id(0);
    if (s >= slots) return;
    uint t = table[s];
    if (t != CLPERM_BENCH_EMPTY) dst[pos[s]] = src[t];
}

/* ---- sort shuffle: random 64-bit keys, then a key-value LSD radix sort, 4 bits per pass ------
 * Work-item c owns the chunk [c * chunk, (c + 1) * chunk) of the sequence; counts are laid out
 * digit-major (counts[d * chunks + c]) so that one exclusive scan gives every scatter offset,
 * and each work-item scatters its chunk in order, which keeps the sort stable. */

__kernel void clperm_bench_sort_keys(__global ulong *keys, ulong n, ulong seed) {
    ulong i = get_global_id(0);
    if (i < n) keys[i] = clperm_bench_mix(seed ^ (i * 0x9e3779b97f4a7c15ul));
}

__kernel void clperm_bench_radix_count(const __global ulong *keys, __global uint *counts, ulong n,
                                       uint chunk, uint chunks, uint shift) {
    uint c = (uint)get_global_id(0);
    if (c >= chunks) return;
    uint h[16];
    for (uint d = 0; d < 16; d++) h[d] = 0;
    ulong end = min(n, (ulong)(c + 1) * chunk);
    for (ulong i = (ulong)c * chunk; i < end; i++) h[(keys[i] >> shift) & 15]++;
    for (uint d = 0; d < 16; d++) counts[d * chunks + c] = h[d];
}

__kernel void clperm_bench_radix_scatter(const __global ulong *keys, const __global ulong *vals,
                                         __global ulong *keys_out, __global ulong *vals_out,
                                         const __global uint *offsets, ulong n, uint chunk, uint chunks,
                                         uint shift) {
    uint c = (uint)get_global_id(0);
    if (c >= chunks) return;
    uint o[16];
    for (uint d = 0; d < 16; d++) o[d] = offsets[d * chunks + c];
    ulong end = min(n, (ulong)(c + 1) * chunk);
    for (ulong i = (ulong)c * chunk; i < end; i++) {
        ulong k = keys[i];
        uint p = o[(k >> shift) & 15]++;
        keys_out[p] = k;
        vals_out[p] = vals[i];
    }
}
