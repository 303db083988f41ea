/* Kernels of the benchmark harness: input generation and the copy and random-gather bounds that
 * every figure is compared with. One work-item per item. Built after kernels/mix.h. */

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

__kernel void clperm_bench_gather_u32(const __global uint *src, const __global uint *idx,
                                      __global uint *dst, ulong n) {
    ulong i = get_global_id(0);
    if (i < n) dst[i] = src[idx[i]];
}

__kernel void clperm_bench_gather_16(const __global ulong2 *src, const __global uint *idx,
                                     __global ulong2 *dst, ulong n) {
    ulong i = get_global_id(0);
    if (i < n) dst[i] = src[idx[i]];
}

__kernel void clperm_bench_fill_iota(__global ulong *dst, ulong n) {
    ulong i = get_global_id(0);
    if (i < n) dst[i] = i;
}
