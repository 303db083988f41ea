/* Numbers drawn inside a kernel through the generators' device API (clperm_rng.h), built after
 * clperm_rng_device_source() with clperm_rng_build_options(): each work-item draws
 * CLPERM_BENCH_DRAWS numbers and writes their xor, so the figure is the generator's own rate.
 * CLPERM_BENCH_WG is the work-group size (local memory for the shared states). */

#ifndef CLPERM_BENCH_WG
#error "CLPERM_BENCH_WG (the work-group size) is required"
#endif
#ifndef CLPERM_BENCH_DRAWS
#error "CLPERM_BENCH_DRAWS (numbers per work-item) is required"
#endif

__kernel void clperm_bench_rng_inkernel(__global uint *out, ulong seed) {
    __local uint words[CLPERM_BENCH_WG];
    clperm_rng r;
    clperm_rng_init(&r, words, seed, get_global_id(0) / CLPERM_RNG_K);
    uint acc = 0;
    for (int i = 0; i < CLPERM_BENCH_DRAWS; i++) acc ^= clperm_rng_u32(&r);
    out[get_global_id(0)] = acc;
}
