/* Bulk fills from the subgroup-shared generators of clperm_rng.h (prepended with its tables).
 *
 * Layout, the same on every device and on the host: the output is cut into blocks of
 * CLPERM_RNG_K * CLPERM_RNG_STEPS items; block g is drawn by the generator of
 * clperm_rng_key(seed, stream, g), item (t, j) of the block (t = 0 .. STEPS - 1) being word j after the generator's
 * (t + 1)-th draw (two draws per item for u64 and double), through the scrambler
 * CLPERM_RNG_SCRAMBLE (clperm_rng_scrambled; 0 none). CLPERM_RNG_OUT is one of
 * clperm_features.h's CLPERM_RNG_OUTPUT_* (u64 and double stored as integer bits, so no fp64 is
 * needed). Launches may be split: first_block is the launch's first block.
 *
 * Two kernels compute the same items. The work-group kernel (GPUs) shares each generator among
 * k work-items through the device API, CLPERM_WG_SIZE / CLPERM_RNG_K generators per work-group;
 * work-items past the last block draw with the others (the draws synchronise) and store nothing.
 * The serial kernel (CLPERM_RNG_SERIAL, CPUs) runs one generator per work-item with its state in
 * private memory: no barriers, and each draw's k items are stored together. */
#ifndef CLPERM_RNG_STEPS
#error "CLPERM_RNG_STEPS must be defined"
#endif
#ifndef CLPERM_RNG_OUT
#error "CLPERM_RNG_OUT must be defined"
#endif

#if CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_U32 || CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_FLOAT
#define CLPERM_RNG_ITEM uint
#else
#define CLPERM_RNG_ITEM ulong
#endif

#if CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_U32
#define CLPERM_RNG_CONVERT(x) (x)
#elif CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_FLOAT
#define CLPERM_RNG_CONVERT(x) clperm_rng_float_bits(x)
#elif CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_U64
#define CLPERM_RNG_CONVERT(x) (x)
#else
#define CLPERM_RNG_CONVERT(x) clperm_rng_double_bits(x)
#endif

#if !CLPERM_RNG_SERIAL

__kernel __attribute__((reqd_work_group_size(CLPERM_WG_SIZE, 1, 1))) void
clperm_rng_fill(__global CLPERM_RNG_ITEM *out, ulong n, ulong seed, ulong stream, ulong first_block) {
    __local uint words[CLPERM_WG_SIZE];
    ulong block = first_block + (ulong)get_group_id(0) * (CLPERM_WG_SIZE / CLPERM_RNG_K) + get_local_id(0) / CLPERM_RNG_K;
    clperm_rng r;
    clperm_rng_init_key(&r, words, clperm_rng_key(seed, stream, block));
    ulong i = block * (CLPERM_RNG_K * CLPERM_RNG_STEPS) + r.j;
#pragma unroll 4
    for (uint t = 0; t < CLPERM_RNG_STEPS; t++, i += CLPERM_RNG_K) {
#if CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_U32 || CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_FLOAT
        uint v = CLPERM_RNG_CONVERT(clperm_rng_u32(&r));
#else
        ulong v = CLPERM_RNG_CONVERT(clperm_rng_u64(&r));
#endif
        if (i < n) out[i] = v;
    }
}

#else

/* The serial kernel runs CLPERM_RNG_LANES generators per work-item, side by side in the lanes of
 * vectors (blocks first_block + id * LANES + lane), so a CPU updates them with SIMD instructions. */
#if CLPERM_RNG_LANES != 8
#error "CLPERM_RNG_LANES must be 8, the width of the serial kernel's vectors"
#endif
typedef uint8 clperm_rng__lanes;

/* clperm_rng_combine for the generators in the lanes. */
static inline clperm_rng__lanes clperm_rng__combine_lanes(ulong p, int pass, clperm_rng__lanes t0,
                                                          clperm_rng__lanes t1, clperm_rng__lanes t2,
                                                          clperm_rng__lanes *b) {
    uint z0 = pass ? CLPERM_RNG_Z2(p) : CLPERM_RNG_Z0(p), z1 = pass ? CLPERM_RNG_Z3(p) : CLPERM_RNG_Z1(p);
    clperm_rng__lanes acc = t0 << z0;
#if CLPERM_RNG_FAMILY == CLPERM_RNG_CORRELATED || CLPERM_RNG_FAMILY == CLPERM_RNG_ITERATED
    acc ^= rotate(t1, (clperm_rng__lanes)((32u - z1) & 31u));
#else
    acc ^= t1 >> z1;
#if CLPERM_RNG_FAMILY == CLPERM_RNG_THREE
    acc ^= t2;
#elif CLPERM_RNG_FAMILY == CLPERM_RNG_SLOWMEM
    acc ^= t0 ^ t1;
#elif CLPERM_RNG_FAMILY == CLPERM_RNG_BUFFERED
    acc ^= *b;
    *b = t2;
#endif
#endif
    return acc;
}

/* clperm_rng_scrambled for the generators in the lanes. */
static inline clperm_rng__lanes clperm_rng__scrambled_lanes(clperm_rng__lanes x) {
#if CLPERM_RNG_SCRAMBLE == CLPERM_RNG_SCRAMBLER_STARSTAR
    return rotate(x * 5u, (clperm_rng__lanes)7u) * 9u;
#else
    return x;
#endif
}

/* One draw of all k words of the generators' states (and the buffered family's registers). */
static inline void clperm_rng__draw_lanes(clperm_rng__lanes *s, clperm_rng__lanes *b) {
    clperm_rng__lanes nx[CLPERM_RNG_K];
    for (int pass = 0; pass < CLPERM_RNG_PASSES(CLPERM_RNG_FAMILY); pass++) {
#pragma unroll
        for (uint j = 0; j < CLPERM_RNG_K; j++) {
            ulong p = clperm_rng_table[j];
            uint q0 = pass ? CLPERM_RNG_Q2(p) : CLPERM_RNG_Q0(p), q1 = pass ? CLPERM_RNG_Q3(p) : CLPERM_RNG_Q1(p);
            nx[j] = clperm_rng__combine_lanes(p, pass, s[q0], s[q1], s[CLPERM_RNG_Q2(p)], &b[j]);
        }
#pragma unroll
        for (uint j = 0; j < CLPERM_RNG_K; j++) s[j] = nx[j];
    }
}

__kernel __attribute__((reqd_work_group_size(CLPERM_WG_SIZE, 1, 1))) void
clperm_rng_fill(__global CLPERM_RNG_ITEM *out, ulong n, ulong seed, ulong stream, ulong first_block) {
    const ulong per_block = CLPERM_RNG_K * CLPERM_RNG_STEPS;
    ulong block0 = first_block + get_global_id(0) * CLPERM_RNG_LANES;
    clperm_rng__lanes s[CLPERM_RNG_K], b[CLPERM_RNG_K];
    ulong keys[CLPERM_RNG_LANES];
    for (uint l = 0; l < CLPERM_RNG_LANES; l++) keys[l] = clperm_rng_key(seed, stream, block0 + l);
    for (uint j = 0; j < CLPERM_RNG_K; j++) {
        uint ws[CLPERM_RNG_LANES], wb[CLPERM_RNG_LANES];
        for (uint l = 0; l < CLPERM_RNG_LANES; l++) ws[l] = clperm_rng_key_word(keys[l], j, &wb[l]);
        s[j] = vload8(0, ws);
        b[j] = vload8(0, wb);
    }
    uint lanes = 0; /* generators with items to store, and the draws the first one needs */
    while (lanes < CLPERM_RNG_LANES && (block0 + lanes) * per_block < n) lanes++;
    ulong left = lanes ? n - block0 * per_block : 0;
    uint steps = left >= per_block ? CLPERM_RNG_STEPS : (uint)((left + CLPERM_RNG_K - 1) / CLPERM_RNG_K);
    for (uint t = 0; t < steps; t++) {
        uint w[CLPERM_RNG_K][CLPERM_RNG_LANES];
        clperm_rng__draw_lanes(s, b);
        for (uint j = 0; j < CLPERM_RNG_K; j++) vstore8(clperm_rng__scrambled_lanes(s[j]), 0, w[j]);
#if CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_U64 || CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_DOUBLE
        uint lo[CLPERM_RNG_K][CLPERM_RNG_LANES];
        clperm_rng__draw_lanes(s, b);
        for (uint j = 0; j < CLPERM_RNG_K; j++) vstore8(clperm_rng__scrambled_lanes(s[j]), 0, lo[j]);
#endif
        for (uint l = 0; l < lanes; l++) {
            ulong i = (block0 + l) * per_block + t * CLPERM_RNG_K;
            uint m = i >= n ? 0 : n - i >= CLPERM_RNG_K ? CLPERM_RNG_K : (uint)(n - i);
            for (uint j = 0; j < m; j++) {
#if CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_U64 || CLPERM_RNG_OUT == CLPERM_RNG_OUTPUT_DOUBLE
                out[i + j] = CLPERM_RNG_CONVERT(CLPERM_RNG_JOIN64(w[j][l], lo[j][l]));
#else
                out[i + j] = CLPERM_RNG_CONVERT(w[j][l]);
#endif
            }
        }
    }
}

#endif
