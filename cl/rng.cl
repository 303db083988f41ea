/* Bulk fills from the subgroup-shared generators of clperm_rng.h (prepended with its tables).
 *
 * Layout, the same on every device and on the host: the output is cut into blocks of
 * CLPERM_RNG_K * CLPERM_RNG_STEPS items; block g is drawn by the generator seeded with stream
 * stream + g, item (t, j) of the block (t = 0 .. STEPS - 1) being word j after the generator's
 * (t + 1)-th draw (two draws per item for u64 and double). CLPERM_RNG_OUT: 1 u32, 2 u64, 3 float,
 * 4 double (stored as integer bits, so no fp64 is needed). The work-group holds
 * CLPERM_WG_SIZE / CLPERM_RNG_K generators; work-items past the last block draw with the others
 * (the draws synchronise) and store nothing. Launches may be split: first_block is the
 * launch's first block. */
#ifndef CLPERM_RNG_STEPS
#error "CLPERM_RNG_STEPS must be defined"
#endif
#ifndef CLPERM_RNG_OUT
#error "CLPERM_RNG_OUT must be defined"
#endif

#if CLPERM_RNG_OUT == 1 || CLPERM_RNG_OUT == 3
#define CLPERM_RNG_ITEM uint
#else
#define CLPERM_RNG_ITEM ulong
#endif

__kernel __attribute__((reqd_work_group_size(CLPERM_WG_SIZE, 1, 1))) void
clperm_rng_fill(__global CLPERM_RNG_ITEM *out, ulong n, ulong seed, ulong stream, ulong first_block) {
    __local uint words[CLPERM_WG_SIZE];
    ulong block = first_block + (ulong)get_group_id(0) * (CLPERM_WG_SIZE / CLPERM_RNG_K) + get_local_id(0) / CLPERM_RNG_K;
    clperm_rng r;
    clperm_rng_init(&r, words, seed, stream + block);
    ulong i = block * (CLPERM_RNG_K * CLPERM_RNG_STEPS) + r.j;
#pragma unroll 4
    for (uint t = 0; t < CLPERM_RNG_STEPS; t++, i += CLPERM_RNG_K) {
#if CLPERM_RNG_OUT == 1
        uint v = clperm_rng_u32(&r);
#elif CLPERM_RNG_OUT == 3
        uint v = clperm_rng_float_bits(clperm_rng_u32(&r));
#elif CLPERM_RNG_OUT == 2
        ulong v = clperm_rng_u64(&r);
#else
        ulong v = clperm_rng_double_bits(clperm_rng_u64(&r));
#endif
        if (i < n) out[i] = v;
    }
}
