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

/* ---- sort shuffle: random 64-bit keys, sorted with the items by clperm_sort ------------------ */

__kernel void clperm_bench_sort_keys(__global ulong *keys, ulong n, ulong seed) {
    ulong i = get_global_id(0);
    if (i < n) keys[i] = clperm_bench_mix(seed ^ (i * 0x9e3779b97f4a7c15ul));
}
