/* Kernels of the benchmark harness: input generation and the copy and random-gather bounds that
 * every figure is compared with. One work-item per item. */

inline ulong clperm_bench_mix(ulong z) {
    z += 0x9e3779b97f4a7c15ul;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
    return z ^ (z >> 31);
}

__kernel void clperm_bench_fill_u64(__global ulong *dst, ulong n, ulong seed) {
    ulong i = get_global_id(0);
    if (i < n) dst[i] = clperm_bench_mix(seed + i);
}

__kernel void clperm_bench_fill_u32(__global uint *dst, ulong n, ulong seed) {
    ulong i = get_global_id(0);
    if (i < n) dst[i] = (uint)clperm_bench_mix(seed + i);
}

/* Uniform random indices in [0, n), n < 2^32. */
__kernel void clperm_bench_fill_index(__global uint *idx, ulong n, ulong seed) {
    ulong i = get_global_id(0);
    if (i < n) idx[i] = (uint)(((clperm_bench_mix(seed + i) >> 32) * n) >> 32);
}

__kernel void clperm_bench_copy_u64(const __global ulong *src, __global ulong *dst, ulong n) {
    ulong i = get_global_id(0);
    if (i < n) dst[i] = src[i];
}

__kernel void clperm_bench_gather_u64(const __global ulong *src, const __global uint *idx,
                                      __global ulong *dst, ulong n) {
    ulong i = get_global_id(0);
    if (i < n) dst[i] = src[idx[i]];
}

__kernel void clperm_bench_fill_iota(__global ulong *dst, ulong n) {
    ulong i = get_global_id(0);
    if (i < n) dst[i] = i;
}

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

/* ---- sort shuffle: random 64-bit keys, sorted with the items by clperm_sort ------------------ */

__kernel void clperm_bench_sort_keys(__global ulong *keys, ulong n, ulong seed) {
    ulong i = get_global_id(0);
    if (i < n) keys[i] = clperm_bench_mix(seed ^ (i * 0x9e3779b97f4a7c15ul));
}
