/* The generators' peer: Random123's Philox4x32-10 (librandom123-dev, built with -I to its
 * headers), the counter-based generator of cuRAND's and Random123's defaults. A fill of u32,
 * four per call, and the in-kernel rate of rng_inkernel.cl: CLPERM_BENCH_DRAWS numbers per
 * work-item, xor-ed and written once. */
#include <Random123/philox.h>

#ifndef CLPERM_BENCH_DRAWS
#error "CLPERM_BENCH_DRAWS (numbers per work-item) is required"
#endif

__kernel void clperm_bench_philox_fill(__global uint4 *out, ulong n4, ulong seed) {
    ulong i = get_global_id(0);
    if (i >= n4) return;
    philox4x32_key_t k = {{(uint)seed, (uint)(seed >> 32)}};
    philox4x32_ctr_t c = {{(uint)i, (uint)(i >> 32), 0, 0}};
    philox4x32_ctr_t v = philox4x32(c, k);
    out[i] = (uint4)(v.v[0], v.v[1], v.v[2], v.v[3]);
}

__kernel void clperm_bench_philox_inkernel(__global uint *out, ulong seed) {
    ulong g = get_global_id(0);
    philox4x32_key_t k = {{(uint)seed, (uint)(seed >> 32)}};
    philox4x32_ctr_t c = {{(uint)g, (uint)(g >> 32), 0, 0}};
    uint acc = 0;
    for (int i = 0; i < CLPERM_BENCH_DRAWS / 4; i++) {
        c.v[2] = i;
        philox4x32_ctr_t v = philox4x32(c, k);
        acc ^= v.v[0] ^ v.v[1] ^ v.v[2] ^ v.v[3];
    }
    out[g] = acc;
}
