/*
 * clperm_rng.h: subgroup-shared binary linear generators (Thomas and Luk, "GPU optimised uniform
 * random number generation"). This one file compiles as C99 on the host and as OpenCL C 1.2 on
 * devices, so the host reference, the library's fill kernels and users' kernels compute the same
 * streams.
 *
 * A generator is shared by k work-items (k = 8, 16, 32 or 64), each holding one 32-bit word of the
 * state. Every update, work-item j reads two or three words of the old state, shifts and xors them,
 * and writes word j of the new state, which is also its next output. The parameters of word j are
 * packed into one 64-bit constant (CLPERM_RNG_Q0 .. CLPERM_RNG_Z3 below); the tables of full-period
 * parameters are in clperm_rng_tables.h. The families (section 6 of the paper):
 *
 *   CORRELATED  acc = (s[q0] << z0) ^ rotr(s[q1], z1)                 (Listing 2, see below)
 *   THREE       acc = (s[q0] << z0) ^ (s[q1] >> z1) ^ s[q2]           (Listing 3)
 *   SLOWMEM     acc = (t0 << z0) ^ (t1 >> z1) ^ t0 ^ t1,  t = s[q0], s[q1]  (Listing 4)
 *   ITERATED    two correlated passes per output, the second with (q2, q3, z2, z3)  (Listing 5)
 *   BUFFERED    acc = b ^ (s[q0] << z0) ^ (s[q1] >> z1); b = s[q2]   (Listing 6; b is a register
 *               per work-item, so the state is 2k words)
 *
 * The correlated family as Listing 2 writes it, two logical shifts, cannot have full period: the
 * bits lost off both ends make A singular unless the shift pairs line up, and when they line up
 * (z0 + z1 the same for every word and dividing 32) the characteristic polynomial is g(x)^(z0+z1).
 * Its right shift is therefore a rotation here (one instruction on GPUs); ITERATED uses the same
 * pass. docs/rng-quality.md gives the argument.
 *
 * Optionally each number drawn is a scrambled word (clperm_rng_scrambled): a non-linear bijection
 * of the work-item's new word, so the output loses the linear structure and the Hamming-weight
 * dependency between draws while the state, period, streams and jump-ahead stay the same.
 */
#ifndef CLPERM_RNG_H
#define CLPERM_RNG_H

#ifndef CLPERM_RNG_TABLES_H
#include "clperm_rng_tables.h"
#endif

#ifndef CLPERM_FEATURES_H
#include "clperm_features.h"
#endif

#ifndef CLPERM_RNG_SPACE
#ifdef __OPENCL_C_VERSION__
#define CLPERM_RNG_SPACE __local
#else
#define CLPERM_RNG_SPACE
#endif
#endif

#define CLPERM_RNG_MAX_K 64

/* Packed parameters of one word: sources q0..q3 (6 bits each), shifts z0..z3 (5 bits each). */
#define CLPERM_RNG_Q0(p) ((clperm_u32)(p)&63u)
#define CLPERM_RNG_Q1(p) ((clperm_u32)((p) >> 6) & 63u)
#define CLPERM_RNG_Q2(p) ((clperm_u32)((p) >> 12) & 63u)
#define CLPERM_RNG_Q3(p) ((clperm_u32)((p) >> 18) & 63u)
#define CLPERM_RNG_Z0(p) ((clperm_u32)((p) >> 24) & 31u)
#define CLPERM_RNG_Z1(p) ((clperm_u32)((p) >> 29) & 31u)
#define CLPERM_RNG_Z2(p) ((clperm_u32)((p) >> 34) & 31u)
#define CLPERM_RNG_Z3(p) ((clperm_u32)((p) >> 39) & 31u)
#define CLPERM_RNG_PACK(q0, q1, q2, q3, z0, z1, z2, z3)                                             \
    ((clperm_u64)(q0) | (clperm_u64)(q1) << 6 | (clperm_u64)(q2) << 12 |                \
     (clperm_u64)(q3) << 18 | (clperm_u64)(z0) << 24 | (clperm_u64)(z1) << 29 |         \
     (clperm_u64)(z2) << 34 | (clperm_u64)(z3) << 39)

/* State bits of a generator: k words, twice that for the buffered family. */
#define CLPERM_RNG_STATE_BITS(family, k) (32 * (k) * ((family) == CLPERM_RNG_BUFFERED ? 2 : 1))
/* Correlated passes per output. */
#define CLPERM_RNG_PASSES(family) ((family) == CLPERM_RNG_ITERATED ? 2 : 1)

CLPERM_INLINE clperm_u32 clperm_rng__rotr(clperm_u32 x, clperm_u32 r) {
#ifdef __OPENCL_C_VERSION__
    return rotate(x, (32u - r) & 31u); /* the built-in left rotation */
#else
    return r ? (x >> r) | (x << (32u - r)) : x;
#endif
}

CLPERM_INLINE clperm_u32 clperm_rng__rotl(clperm_u32 x, clperm_u32 r) {
#ifdef __OPENCL_C_VERSION__
    return rotate(x, r);
#else
    return (x << r) | (x >> ((32u - r) & 31u));
#endif
}

/* What a draw returns for a new state word x under the scrambler `scramble`
 * (CLPERM_RNG_SCRAMBLER_*). STARSTAR is rotl(x * 5, 7) * 9 (mod 2^32), the output function of
 * Blackman and Vigna's xoshiro128**: x * 5 and * 9 are invertible mod 2^32 and the rotation is a
 * permutation, so it is a bijection of the word (each draw's k numbers stay uniform and
 * independent, as the words are), and every output bit is a non-linear function of every bit of
 * x: carries only move upward, so the rotation by 7 brings x * 5's top bits, which depend on all
 * of x, to the bottom before the second multiply spreads them up again. It reads nothing but the
 * work-item's own new word, so it costs no local memory: two multiplies (or shift-adds) and a
 * rotate in registers. */
CLPERM_INLINE clperm_u32 clperm_rng_scrambled(int scramble, clperm_u32 x) {
    return scramble == CLPERM_RNG_SCRAMBLER_STARSTAR ? clperm_rng__rotl(x * 5u, 7u) * 9u : x;
}

/* The new value of one word from the words it reads, t0 = s[q0], t1 = s[q1] and t2 = s[q2] of the
 * old state s (one pass; pass 1 is ITERATED's second, which reads q2 and q3 as its t0 and t1),
 * reading and updating the word's buffer register b (BUFFERED only). */
CLPERM_INLINE clperm_u32 clperm_rng_combine(int family, clperm_u64 p, int pass, clperm_u32 t0,
                                                clperm_u32 t1, clperm_u32 t2, clperm_u32 *b) {
    clperm_u32 z0 = pass ? CLPERM_RNG_Z2(p) : CLPERM_RNG_Z0(p);
    clperm_u32 z1 = pass ? CLPERM_RNG_Z3(p) : CLPERM_RNG_Z1(p);
    clperm_u32 acc = t0 << z0;
    if (family == CLPERM_RNG_CORRELATED || family == CLPERM_RNG_ITERATED) {
        acc ^= clperm_rng__rotr(t1, z1);
    } else {
        acc ^= t1 >> z1;
        if (family == CLPERM_RNG_THREE) acc ^= t2;
        if (family == CLPERM_RNG_SLOWMEM) acc ^= t0 ^ t1;
        if (family == CLPERM_RNG_BUFFERED) {
            acc ^= *b;
            *b = t2;
        }
    }
    return acc;
}

/* The new value of one word from the old state s. Every word of a step must be computed from the
 * same old state before any is written. */
CLPERM_INLINE clperm_u32 clperm_rng_word(int family, clperm_u64 p, int pass,
                                             const CLPERM_RNG_SPACE clperm_u32 *s,
                                             clperm_u32 *b) {
    clperm_u32 q0 = pass ? CLPERM_RNG_Q2(p) : CLPERM_RNG_Q0(p);
    clperm_u32 q1 = pass ? CLPERM_RNG_Q3(p) : CLPERM_RNG_Q1(p);
    clperm_u32 t2 = family == CLPERM_RNG_THREE || family == CLPERM_RNG_BUFFERED ? s[CLPERM_RNG_Q2(p)] : 0;
    return clperm_rng_combine(family, p, pass, s[q0], s[q1], t2, b);
}

/* SplitMix64 (Steele, Lea, Flood): the seeding mixer. */
CLPERM_INLINE clperm_u64 clperm_rng_mix64(clperm_u64 z) {
    return clperm__mix64(z + (clperm_u64)0x9E3779B97F4A7C15UL);
}

/* The key of generator (seed, stream, block), from which SplitMix64 draws its initial words. Each
 * step is a bijection of 64 bits, so for one seed distinct streams give distinct keys (at any
 * block), and for one (seed, stream) distinct blocks do: no stream is another shifted, and no high
 * bits of a stream are lost. Fills draw block g of their output from (seed, stream, g); the
 * device API's clperm_rng_init(seed, stream) is block 0. */
CLPERM_INLINE clperm_u64 clperm_rng_key(clperm_u64 seed, clperm_u64 stream, clperm_u64 block) {
    clperm_u64 g = clperm_rng_mix64(seed ^ clperm_rng_mix64(stream ^ (clperm_u64)0x243F6A8885A308D3UL));
    return clperm_rng_mix64(g ^ clperm_rng_mix64(block ^ (clperm_u64)0x13198A2E03707344UL));
}

/* Initial word j of the generator of `key` (and its buffer register): SplitMix64's output j from
 * the key, the low half (word 0 with its low bit set, so the state is never all zero) and the high
 * half. Generators start at independent random points of the one period-(2^n - 1) cycle. */
CLPERM_INLINE clperm_u32 clperm_rng_key_word(clperm_u64 key, clperm_u32 j, clperm_u32 *b) {
    clperm_u64 h = clperm_rng_mix64(key + (clperm_u64)j * (clperm_u64)0x9E3779B97F4A7C15UL);
    *b = (clperm_u32)(h >> 32);
    return (clperm_u32)h | (j == 0 ? 1u : 0u);
}

/* Initial word j of stream `stream` for `seed`: block 0 of clperm_rng_key. */
CLPERM_INLINE clperm_u32 clperm_rng_seed_word(clperm_u64 seed, clperm_u64 stream, clperm_u32 j, clperm_u32 *b) {
    return clperm_rng_key_word(clperm_rng_key(seed, stream, 0), j, b);
}

/* Conversions, built from integers so that every device gives the same bits without needing
 * fp64: a float in [0, 1) is the top 24 bits of a draw times 2^-24; a u64 is two successive
 * draws, the first in the high half; a double in [0, 1) is the top 53 bits of a u64 times 2^-53. */
#define CLPERM_RNG_JOIN64(hi, lo) (((clperm_u64)(hi) << 32) | (clperm_u64)(lo))

CLPERM_INLINE clperm_u32 clperm_rng_float_bits(clperm_u32 x) {
    clperm_u32 m = x >> 8, shift = 0;
    if (!m) return 0;
    while (!(m & 0x800000u)) { /* normalise: value = 1.f * 2^(-1 - shift) */
        m <<= 1;
        shift++;
    }
    return ((126u - shift) << 23) | (m & 0x7FFFFFu);
}

CLPERM_INLINE clperm_u64 clperm_rng_double_bits(clperm_u64 u) {
    clperm_u64 m = u >> 11;
    clperm_u32 shift = 0;
    if (!m) return 0;
    while (!(m & ((clperm_u64)1 << 52))) {
        m <<= 1;
        shift++;
    }
    return ((clperm_u64)(1022u - shift) << 52) | (m & (((clperm_u64)1 << 52) - 1));
}

/* ---- the device API, for users' kernels ----
 *
 * Build with -DCLPERM_RNG_FAMILY=f -DCLPERM_RNG_K=k and -DCLPERM_RNG_SCRAMBLE=s (a scrambler,
 * CLPERM_RNG_SCRAMBLER_NONE when not given; clperm_rng_build_options() writes the line for a
 * device and a clperm_rng_spec, with CLPERM_RNG_WARP_SYNC where the hardware subgroup can
 * synchronise k work-items) and prepend clperm_rng_device_source() (the tables and this header).
 * Then:
 *
 *     __kernel void simulate(__global float *out, ulong seed) {
 *         __local uint words[256];                 // one word per work-item
 *         clperm_rng r;
 *         clperm_rng_init(&r, words, seed, get_global_id(0) / CLPERM_RNG_K);
 *         float x = clperm_rng_float(&r);          // every work-item of the group draws
 *         ...
 *     }
 *
 * Work-items are taken k at a time in local-id order: generator g of the work-group is work-items
 * g*k .. g*k + k - 1 on words[g*k ..], so the work-group size must be a multiple of k (1-D). Each
 * draw synchronises the k work-items (a barrier; on NVIDIA when k <= 32, CLPERM_RNG_WARP_SYNC, the
 * words stay in registers and pass between the work-items by shfl.sync, and `words` goes unused),
 * so every work-item of the work-group must make the same draws, in uniform control flow. The stream of
 * work-item j is word j of the states after each update, through the scrambler; the same (seed,
 * stream, family, k, scrambler) gives the same numbers on every device and in
 * clperm_rng_fill_host. The scrambler works on the work-item's own new word only. Local memory:
 * k words per generator (4k bytes); the buffered family keeps its other k words in registers.
 *
 * To carry a generator across launches, or to start streams spaced provably apart (the host's
 * clperm_rng_states_host, by jump-ahead), use clperm_rng_load instead of clperm_rng_init and
 * clperm_rng_save at the end: one saved state per generator, k words (2k for the buffered family).
 */
#ifdef __OPENCL_C_VERSION__
#if defined(CLPERM_RNG_FAMILY) && defined(CLPERM_RNG_K)

#define CLPERM_RNG__CAT(a, b, c, d) a##b##c##d
#define CLPERM_RNG__TABLE(f, k) CLPERM_RNG__CAT(CLPERM_RNG_TABLE_, f, _, k)
__constant ulong clperm_rng_table[CLPERM_RNG_K] = {CLPERM_RNG__TABLE(CLPERM_RNG_FAMILY, CLPERM_RNG_K)};

#ifndef CLPERM_RNG_SCRAMBLE
#define CLPERM_RNG_SCRAMBLE CLPERM_RNG_SCRAMBLER_NONE
#endif

#ifndef CLPERM_RNG_SYNC
#if defined(CLPERM_RNG_WARP_SYNC) && CLPERM_RNG_WARP_SYNC
#define CLPERM_RNG_SYNC() __asm__ volatile("bar.warp.sync -1;" ::: "memory")
#else
#define CLPERM_RNG_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#endif
#endif

typedef struct clperm_rng {
    __local uint *s; /* the generator's k words */
    ulong p;         /* this word's parameters  */
    uint j;          /* this word               */
    uint b;          /* buffered family's register */
    uint w;          /* this word's value, where the words pass by shuffles */
} clperm_rng;

/* Where the k work-items share a warp, word q of the generator comes from lane q of its
 * k-lane segment by shfl.sync (CUDA's __shfl_sync with width k): no local memory, no other
 * synchronisation. */
#if defined(CLPERM_RNG_WARP_SYNC) && CLPERM_RNG_WARP_SYNC
#define CLPERM_RNG__SHFL 1
inline uint clperm__rng_word_of(uint w, uint q) {
    uint v;
    __asm__ volatile("shfl.sync.idx.b32 %0, %1, %2, %3, -1;"
                     : "=r"(v)
                     : "r"(w), "r"(q), "r"(((32u - (uint)CLPERM_RNG_K) << 8) | 31u));
    return v;
}
#else
#define CLPERM_RNG__SHFL 0
#endif

/* Starts generator `key` (clperm_rng_key): distinct keys, distinct generators. */
inline void clperm_rng_init_key(clperm_rng *r, __local uint *words, ulong key) {
    r->j = (uint)get_local_id(0) % CLPERM_RNG_K;
    r->s = words + ((uint)get_local_id(0) - r->j);
    r->p = clperm_rng_table[r->j];
    uint w = clperm_rng_key_word(key, r->j, &r->b);
    r->w = w;
#if !CLPERM_RNG__SHFL
    CLPERM_RNG_SYNC(); /* the words may have been in use */
    r->s[r->j] = w;
    CLPERM_RNG_SYNC();
#endif
}

/* Starts stream `stream` of `seed`: clperm_rng_init_key of (seed, stream, block 0). */
inline void clperm_rng_init(clperm_rng *r, __local uint *words, ulong seed, ulong stream) {
    clperm_rng_init_key(r, words, clperm_rng_key(seed, stream, 0));
}

/* Starts from a saved state instead of a seed: `state` holds the generator's k words (then its k
 * buffer registers for the buffered family), as clperm_rng_save writes them or the host's
 * clperm_rng_states_host computes them. Every work-item of the generator passes the same pointer. */
inline void clperm_rng_load(clperm_rng *r, __local uint *words, __global const uint *state) {
    r->j = (uint)get_local_id(0) % CLPERM_RNG_K;
    r->s = words + ((uint)get_local_id(0) - r->j);
    r->p = clperm_rng_table[r->j];
    r->b = CLPERM_RNG_FAMILY == CLPERM_RNG_BUFFERED ? state[CLPERM_RNG_K + r->j] : 0;
    uint w = state[r->j];
    r->w = w;
#if !CLPERM_RNG__SHFL
    CLPERM_RNG_SYNC();
    r->s[r->j] = w;
    CLPERM_RNG_SYNC();
#endif
}

/* Writes the generator's state for a later clperm_rng_load (every work-item writes its own words). */
inline void clperm_rng_save(const clperm_rng *r, __global uint *state) {
    state[r->j] = CLPERM_RNG__SHFL ? r->w : r->s[r->j];
    if (CLPERM_RNG_FAMILY == CLPERM_RNG_BUFFERED) state[CLPERM_RNG_K + r->j] = r->b;
}

#if CLPERM_RNG__SHFL
/* One pass of the words' update: every lane reads its three sources before any changes. */
inline uint clperm__rng_step(clperm_rng *r, int pass) {
    uint q0 = pass ? CLPERM_RNG_Q2(r->p) : CLPERM_RNG_Q0(r->p);
    uint q1 = pass ? CLPERM_RNG_Q3(r->p) : CLPERM_RNG_Q1(r->p);
    uint t0 = clperm__rng_word_of(r->w, q0), t1 = clperm__rng_word_of(r->w, q1), t2 = 0;
#if CLPERM_RNG_FAMILY == CLPERM_RNG_THREE || CLPERM_RNG_FAMILY == CLPERM_RNG_BUFFERED
    t2 = clperm__rng_word_of(r->w, CLPERM_RNG_Q2(r->p));
#endif
    r->w = clperm_rng_combine(CLPERM_RNG_FAMILY, r->p, pass, t0, t1, t2, &r->b);
    return r->w;
}

inline uint clperm_rng_u32(clperm_rng *r) {
    uint acc = clperm__rng_step(r, 0);
#if CLPERM_RNG_FAMILY == CLPERM_RNG_ITERATED
    acc = clperm__rng_step(r, 1);
#endif
    return clperm_rng_scrambled(CLPERM_RNG_SCRAMBLE, acc);
}
#else
inline uint clperm_rng_u32(clperm_rng *r) {
    uint acc = clperm_rng_word(CLPERM_RNG_FAMILY, r->p, 0, r->s, &r->b);
    CLPERM_RNG_SYNC();
    r->s[r->j] = acc;
    CLPERM_RNG_SYNC();
#if CLPERM_RNG_FAMILY == CLPERM_RNG_ITERATED
    acc = clperm_rng_word(CLPERM_RNG_FAMILY, r->p, 1, r->s, &r->b);
    CLPERM_RNG_SYNC();
    r->s[r->j] = acc;
    CLPERM_RNG_SYNC();
#endif
    return clperm_rng_scrambled(CLPERM_RNG_SCRAMBLE, acc);
}
#endif

inline ulong clperm_rng_u64(clperm_rng *r) {
    uint hi = clperm_rng_u32(r);
    return CLPERM_RNG_JOIN64(hi, clperm_rng_u32(r));
}
inline float clperm_rng_float(clperm_rng *r) { return as_float(clperm_rng_float_bits(clperm_rng_u32(r))); }
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
inline double clperm_rng_double(clperm_rng *r) { return as_double(clperm_rng_double_bits(clperm_rng_u64(r))); }
#endif

#endif /* CLPERM_RNG_FAMILY && CLPERM_RNG_K */
#endif /* __OPENCL_C_VERSION__ */

#endif
