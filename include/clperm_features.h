/*
 * clperm_features.h: what the host library and the OpenCL C kernels must agree on, written once.
 * This file compiles as C99 and as OpenCL C 1.2, and every kernel program starts with it: the
 * enums of clperm.h take their values from the macros below, and kernels compare their -D options
 * with the same macros, so a value cannot differ between the two sides.
 *
 * On the host it is included by clperm.h (and by clperm_bijection.h and clperm_rng.h, which also
 * compile on both sides); on a device its text is placed before the others, since OpenCL C has no
 * include path to the library's headers (the #include lines below are skipped there because the
 * guard is already defined).
 */
#ifndef CLPERM_FEATURES_H
#define CLPERM_FEATURES_H

/* ---- portability: fixed-width integers and the functions both sides compile ---- */
#ifdef __OPENCL_C_VERSION__
typedef uint clperm_u32;
typedef ulong clperm_u64;
#else
#include <stdint.h>
typedef uint32_t clperm_u32;
typedef uint64_t clperm_u64;
#endif
/* Functions defined in the shared headers: static, so that each translation unit (and each
 * kernel program) has its own copy, and inline so the compilers may fold them. */
#define CLPERM_INLINE static inline

/* ---- element types (clperm_type): CLPERM_KIND_* are the values of -DCLPERM_*_KIND options ---- */
#define CLPERM_KIND_U32 1
#define CLPERM_KIND_U64 2

/* ---- sort keys (clperm_key_type; -DCLPERM_TS_KEY_KIND=): their kinds and order-preserving form.
 * A key of `width` bits is compared as the unsigned number k ^ (k's sign bit ? neg : pos):
 *   u8, u16, u32, u64  pos = neg = 0
 *   i8, i16, i32, i64  pos = neg = the sign bit (flipped)
 *   f16, f32, f64      pos = the sign bit, neg = all ones (IEEE 754 totalOrder: -NaN < -inf < ...
 *                      < -0.0 < +0.0 < ... < +inf < +NaN, NaNs by their bits)
 * The 8- and 16-bit kinds are the device-wide sort's alone (clperm_sort); the tile networks,
 * partitions and segmented sorts take 32- and 64-bit keys (CLPERM_KEY_TILES).
 * Descending: every bit of both masks flipped. The masks' top bits agree, which makes the form
 * invertible (CLPERM_KEY_UNORDER). ---- */
#define CLPERM_KEYKIND_U32 1
#define CLPERM_KEYKIND_I32 2
#define CLPERM_KEYKIND_F32 3
#define CLPERM_KEYKIND_U64 4
#define CLPERM_KEYKIND_I64 5
#define CLPERM_KEYKIND_F64 6
#define CLPERM_KEYKIND_U8 7
#define CLPERM_KEYKIND_I8 8
#define CLPERM_KEYKIND_U16 9
#define CLPERM_KEYKIND_I16 10
#define CLPERM_KEYKIND_F16 11 /* IEEE 754 binary16 (half) */
#define CLPERM_KEYKIND_LAST CLPERM_KEYKIND_F16
#define CLPERM_KEY_TILES(kind) ((kind) >= CLPERM_KEYKIND_U32 && (kind) <= CLPERM_KEYKIND_F64)
#define CLPERM_KEY_BITS(kind)                                                                      \
    ((kind) >= CLPERM_KEYKIND_U16 ? 16 : (kind) >= CLPERM_KEYKIND_U8 ? 8 : (kind) >= CLPERM_KEYKIND_U64 ? 64 : 32)
#define CLPERM_KEY_SIGN(kind) ((clperm_u64)1 << (CLPERM_KEY_BITS(kind) - 1))
#define CLPERM_KEY_ALL(kind) (~(clperm_u64)0 >> (64 - CLPERM_KEY_BITS(kind)))
#define CLPERM_KEY_UNSIGNED(kind)                                                                  \
    ((kind) == CLPERM_KEYKIND_U32 || (kind) == CLPERM_KEYKIND_U64 || (kind) == CLPERM_KEYKIND_U8 ||   \
     (kind) == CLPERM_KEYKIND_U16)
#define CLPERM_KEY_FLOAT(kind)                                                                     \
    ((kind) == CLPERM_KEYKIND_F32 || (kind) == CLPERM_KEYKIND_F64 || (kind) == CLPERM_KEYKIND_F16)
#define CLPERM_KEY_POS_XOR(kind) (CLPERM_KEY_UNSIGNED(kind) ? (clperm_u64)0 : CLPERM_KEY_SIGN(kind))
#define CLPERM_KEY_NEG_XOR(kind) (CLPERM_KEY_FLOAT(kind) ? CLPERM_KEY_ALL(kind) : CLPERM_KEY_POS_XOR(kind))
/* The form of key k (an unsigned integer of `width` bits), and back. */
#define CLPERM_KEY_ORDER(k, width, pos, neg) ((k) ^ (((k) >> ((width) - 1)) ? (neg) : (pos)))
#define CLPERM_KEY_UNORDER(o, width, pos, neg)                                                     \
    ((o) ^ ((((o) >> ((width) - 1)) ^ ((pos) >> ((width) - 1))) ? (neg) : (pos)))

/* ---- how the device-wide sort ranks a tile's keys (CLPERM_PARAM_SORT_RANK; -DCLPERM_SORT_RANK=) */
#define CLPERM_RANK_VOTES 1     /* subgroup ballots, one per digit bit      */
#define CLPERM_RANK_MATCH 2     /* NVIDIA's match.any.sync                  */
#define CLPERM_RANK_PRESORTED 3 /* a tile partition's runs, already in order */
#define CLPERM_RANK_ORMASK 4    /* lanes' bits or-ed into a word per digit  */

/* ---- subgroup implementations (clperm_sg_impl; -DCLPERM_SG_IMPL=) ---- */
#define CLPERM_SG_USE_LOCAL 1 /* local memory and work-group barriers */
#define CLPERM_SG_USE_KHR 2   /* OpenCL subgroup built-ins             */
#define CLPERM_SG_USE_PTX 3   /* NVIDIA inline PTX                     */

/* ---- bijections (clperm_bijection; clperm_bijection_key.kind; -DCLPERM_BIJECTION_KIND=) ---- */
#define CLPERM_BIJ_PHILOX 1
#define CLPERM_BIJ_LCG 2
#define CLPERM_BIJ_FEISTEL 3

/* ---- shuffle algorithms (clperm_shuffle_algorithm) ---- */
#define CLPERM_SHUF_BIJECTIVE 1
#define CLPERM_SHUF_BUCKETS 2
/* The bucket shuffle's most label bits: up to 2^8 buckets, one pass of the sort's 8-bit digits. */
#define CLPERM_BUCKET_BITS 8

/* SplitMix64's finaliser (Steele, Lea, Flood): a bijection of 64 bits with full avalanche. */
CLPERM_INLINE clperm_u64 clperm__mix64(clperm_u64 z) {
    z = (z ^ (z >> 30)) * (clperm_u64)0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * (clperm_u64)0x94D049BB133111EBUL;
    return z ^ (z >> 31);
}

/* The label bits of n items: floor(log2 n) - 8 within [0, CLPERM_BUCKET_BITS], so that a bucket
 * holds 256 items or more on average (fewer would make its cycle-walk long: a bijection's domain
 * holds at least 16 values, the Feistel's 256). */
CLPERM_INLINE clperm_u32 clperm__bucket_bits(clperm_u64 n) {
    clperm_u32 b = 0;
    while (b < CLPERM_BUCKET_BITS && (n >> (b + 9)) != 0) b++;
    return b;
}

/* SplitMix64's output at position g of the stream the labels' key (clperm__bucket_label_key)
 * starts: the labels of items 8g .. 8g + 7, one byte each, so that one output serves eight items. */
CLPERM_INLINE clperm_u64 clperm__bucket_label_word(clperm_u64 key, clperm_u64 g) {
    return clperm__mix64(key + (g + 1) * (clperm_u64)0x9E3779B97F4A7C15UL);
}

/* Item i's label in the word of its eight (clperm__bucket_label_word of i / 8): bits
 * [8 (i mod 8), 8 (i mod 8) + 8). */
CLPERM_INLINE clperm_u32 clperm__bucket_label_of(clperm_u64 word, clperm_u64 i) {
    return (clperm_u32)(word >> (8u * (clperm_u32)(i & 7u))) & 0xFFu;
}

/* Item i's CLPERM_BUCKET_BITS-bit label. Its bucket is the label's top b = clperm__bucket_bits(n)
 * bits (bucket 0 for all when b = 0): the sort's label pass orders by bits [8 - b, 8) of it. */
CLPERM_INLINE clperm_u32 clperm__bucket_label(clperm_u64 key, clperm_u64 i) {
    return clperm__bucket_label_of(clperm__bucket_label_word(key, i >> 3), i);
}

/* The seed of bucket d's bijection under the labels' key. */
CLPERM_INLINE clperm_u64 clperm__bucket_seed(clperm_u64 label_key, clperm_u32 d) {
    return clperm__mix64(label_key ^ ((clperm_u64)(d + 1) * (clperm_u64)0xD1B54A32D192ED03UL));
}

/* The labels' key of (n, seed): from both, so that one seed's shuffles of n and n + 1 items draw
 * unrelated labels. */
CLPERM_INLINE clperm_u64 clperm__bucket_label_key(clperm_u64 n, clperm_u64 seed) {
    return clperm__mix64(clperm__mix64(seed ^ (clperm_u64)0xBB67AE8584CAA73BUL) ^ n);
}

/* ---- generator families and outputs (clperm_rng_family, clperm_rng_output; -DCLPERM_RNG_FAMILY=,
 * -DCLPERM_RNG_OUT=) ---- */
#define CLPERM_RNG_CORRELATED 1
#define CLPERM_RNG_THREE 2
#define CLPERM_RNG_SLOWMEM 3
#define CLPERM_RNG_ITERATED 4
#define CLPERM_RNG_BUFFERED 5
#define CLPERM_RNG_FAMILIES 5

/* ---- generator output scramblers (clperm_rng_scramble; -DCLPERM_RNG_SCRAMBLE=) ---- */
#define CLPERM_RNG_SCRAMBLER_NONE 0
#define CLPERM_RNG_SCRAMBLER_STARSTAR 1

#define CLPERM_RNG_OUTPUT_U32 1
#define CLPERM_RNG_OUTPUT_U64 2
#define CLPERM_RNG_OUTPUT_FLOAT 3
#define CLPERM_RNG_OUTPUT_DOUBLE 4

/* ---- offline permutations: a word of the scheduled permutation's steps is S | D << SHIFT, the
 * item at position S of a row goes to position D (both below 2^SHIFT) ---- */
#define CLPERM_PERM_SCHED_SHIFT 16
#define CLPERM_PERM_SCHED_MASK 0xFFFFu

#endif /* CLPERM_FEATURES_H */
