/*
 * clperm_bijection.h: the keyed bijections behind clperm's shuffles. This one file compiles as
 * C99 on the host and as OpenCL C 1.2 on devices, so that the host reference and every kernel
 * compute the same function.
 *
 * A key (clperm_bijection_key) is made on the host by clperm_bijection_init() (clperm.h) from
 * (n, seed, options) and passed to kernels by value. It describes a bijection f of [0, 2^bits),
 * 2^bits >= n; the permutation of n items keeps the values f(i) < n in increasing order of i.
 *
 *   VariablePhilox (Mitchell et al., Listing 1 and Fig. 4): a Feistel network on a left half of
 *   floor(bits/2) bits and a right half of ceil(bits/2) bits. Each round multiplies the left half
 *   by the Philox constant M0; the high word xor a round key xor the right half becomes the new
 *   left half, and the low word (a bijection of the left half, M0 being odd) with the right
 *   half's top ("odd") bit shifted in becomes the new right half.
 *
 *   LCG: f(x) = (a x + c) mod 2^bits, a odd.
 *
 * In user kernels: declare the key's parameters with CLPERM_BIJECTION_KEY_PARAMS(key), rebuild it
 * with CLPERM_BIJECTION_KEY_UNPACK(key) at the top of the kernel, and call
 * clperm_bijection_apply(&key, i); on the host, clperm_bijection_set_kernel_args() (clperm.h)
 * sets those parameters. (They are vectors rather than one struct so that every OpenCL
 * implementation and checker passes them alike.) Defining CLPERM_BIJECTION_ROUNDS (and CLPERM_BIJECTION_KIND)
 * before including this header fixes the round count (and the kind) at compile time, which lets
 * the compiler unroll the rounds; the key's own values must then agree.
 */
#ifndef CLPERM_BIJECTION_H
#define CLPERM_BIJECTION_H

#ifdef __OPENCL_C_VERSION__
typedef ulong clperm_u64;
typedef uint clperm_u32;
#define CLPERM_BIJ_FN static inline
#else
#include <stdint.h>
typedef uint64_t clperm_u64;
typedef uint32_t clperm_u32;
#define CLPERM_BIJ_FN static inline
#endif

#define CLPERM_BIJ_PHILOX 1
#define CLPERM_BIJ_LCG 2

#define CLPERM_PHILOX_MAX_ROUNDS 64
#define CLPERM_PHILOX_DEFAULT_ROUNDS 24
/* The smallest domain is 2^4: below that a Feistel network on one- or two-bit halves reaches few
 * permutations (at 2 bits it is the identity). */
#define CLPERM_BIJECTION_MIN_BITS 4
/* Philox's multiplier (Salmon et al.), as in the shuffling paper's Listing 1. */
#define CLPERM_PHILOX_M0 ((clperm_u64)0xD2B74407B1CE6E93)
/* The inverse of M0's low 32 bits modulo 2^32. */
#define CLPERM_PHILOX_M0_INV 0x212BDF9Bu

/* The layout is the same in C and OpenCL C: 64-bit fields first, no implicit padding. */
typedef struct clperm_bijection_key {
    clperm_u64 n;       /* items: the shuffle keeps the values below n                    */
    clperm_u64 domain;  /* 2^bits                                                          */
    clperm_u64 lcg_mul; /* LCG: odd multiplier a, below 2^bits                             */
    clperm_u64 lcg_add; /* LCG: increment c, below 2^bits                                  */
    clperm_u32 kind;    /* CLPERM_BIJ_PHILOX or CLPERM_BIJ_LCG                             */
    clperm_u32 bits;    /* CLPERM_BIJECTION_MIN_BITS .. 64                                 */
    clperm_u32 left_bits, right_bits; /* VariablePhilox halves: bits/2 rounded down, up    */
    clperm_u32 rounds;  /* VariablePhilox rounds, 1 .. CLPERM_PHILOX_MAX_ROUNDS             */
    clperm_u32 reserved[3];
    clperm_u32 keys[CLPERM_PHILOX_MAX_ROUNDS]; /* VariablePhilox round keys                */
} clperm_bijection_key;

#ifdef __OPENCL_C_VERSION__
/* Seven kernel parameters carrying a key: head = (n, domain, lcg_mul, lcg_add), shape = (kind,
 * bits, left_bits, right_bits, rounds, 0, 0, 0), then the 64 round keys. */
#define CLPERM_BIJECTION_KEY_PARAMS(name)                                                          \
    ulong4 name##_head, uint8 name##_shape, uint16 name##_k0, uint16 name##_k1, uint16 name##_k2,   \
        uint16 name##_k3
#define CLPERM_BIJECTION_KEY_UNPACK(name)                                                          \
    clperm_bijection_key name;                                                                     \
    name.n = name##_head.s0;                                                                       \
    name.domain = name##_head.s1;                                                                  \
    name.lcg_mul = name##_head.s2;                                                                 \
    name.lcg_add = name##_head.s3;                                                                 \
    name.kind = name##_shape.s0;                                                                   \
    name.bits = name##_shape.s1;                                                                   \
    name.left_bits = name##_shape.s2;                                                              \
    name.right_bits = name##_shape.s3;                                                             \
    name.rounds = name##_shape.s4;                                                                 \
    name.reserved[0] = name.reserved[1] = name.reserved[2] = 0;                                    \
    vstore16(name##_k0, 0, name.keys);                                                             \
    vstore16(name##_k1, 1, name.keys);                                                             \
    vstore16(name##_k2, 2, name.keys);                                                             \
    vstore16(name##_k3, 3, name.keys)
#endif

#ifdef CLPERM_BIJECTION_ROUNDS
#define CLPERM__BIJ_ROUNDS(k) (CLPERM_BIJECTION_ROUNDS)
#else
#define CLPERM__BIJ_ROUNDS(k) ((k)->rounds)
#endif

/* Masks of 1 .. 32 low bits. */
CLPERM_BIJ_FN clperm_u32 clperm__bij_mask(clperm_u32 bits) { return 0xffffffffu >> (32u - bits); }

CLPERM_BIJ_FN clperm_u64 clperm_philox_apply(const clperm_bijection_key *k, clperm_u64 x) {
    clperm_u32 lb = k->left_bits, rb = k->right_bits;
    clperm_u32 lmask = clperm__bij_mask(lb), rmask = clperm__bij_mask(rb);
    clperm_u32 odd = rb - lb; /* 0 or 1 */
    clperm_u32 s0 = (clperm_u32)(x >> rb), s1 = (clperm_u32)x & rmask;
    for (clperm_u32 r = 0; r < CLPERM__BIJ_ROUNDS(k); r++) {
        clperm_u64 p = CLPERM_PHILOX_M0 * (clperm_u64)s0;
        clperm_u32 hi = (clperm_u32)(p >> 32), lo = (clperm_u32)p;
        if (odd) lo = (lo << 1) | (s1 >> lb);
        clperm_u32 t = (hi ^ k->keys[r] ^ s1) & lmask;
        s1 = lo & rmask;
        s0 = t;
    }
    return ((clperm_u64)s0 << rb) | (clperm_u64)s1;
}

CLPERM_BIJ_FN clperm_u64 clperm_philox_invert(const clperm_bijection_key *k, clperm_u64 y) {
    clperm_u32 lb = k->left_bits, rb = k->right_bits;
    clperm_u32 lmask = clperm__bij_mask(lb), rmask = clperm__bij_mask(rb);
    clperm_u32 odd = rb - lb;
    clperm_u32 s0 = (clperm_u32)(y >> rb), s1 = (clperm_u32)y & rmask;
    for (clperm_u32 r = CLPERM__BIJ_ROUNDS(k); r-- > 0;) {
        /* s1 holds (M0 * old_s0 mod 2^lb) followed by the odd bit; s0 = hi ^ key ^ old_s1. */
        clperm_u32 lo = odd ? (s1 >> 1) : s1;
        clperm_u32 old0 = (lo * CLPERM_PHILOX_M0_INV) & lmask;
        clperm_u64 p = CLPERM_PHILOX_M0 * (clperm_u64)old0;
        clperm_u32 hi = (clperm_u32)(p >> 32);
        clperm_u32 old1 = (s0 ^ hi ^ k->keys[r]) & lmask;
        if (odd) old1 |= (s1 & 1u) << lb;
        s0 = old0;
        s1 = old1;
    }
    return ((clperm_u64)s0 << rb) | (clperm_u64)s1;
}

CLPERM_BIJ_FN clperm_u64 clperm_lcg_apply(const clperm_bijection_key *k, clperm_u64 x) {
    return (k->lcg_mul * x + k->lcg_add) & (k->domain - 1);
}

CLPERM_BIJ_FN clperm_u64 clperm_lcg_invert(const clperm_bijection_key *k, clperm_u64 y) {
    /* The inverse of an odd a modulo 2^64 by Newton's iteration: each step doubles the bits. */
    clperm_u64 a = k->lcg_mul, inv = a;
    for (int i = 0; i < 5; i++) inv *= 2 - a * inv;
    return ((y - k->lcg_add) * inv) & (k->domain - 1);
}

/* f(x) for x < 2^bits. */
CLPERM_BIJ_FN clperm_u64 clperm_bijection_apply(const clperm_bijection_key *k, clperm_u64 x) {
#if defined(CLPERM_BIJECTION_KIND)
    return CLPERM_BIJECTION_KIND == CLPERM_BIJ_LCG ? clperm_lcg_apply(k, x) : clperm_philox_apply(k, x);
#else
    return k->kind == CLPERM_BIJ_LCG ? clperm_lcg_apply(k, x) : clperm_philox_apply(k, x);
#endif
}

/* f^-1(y) for y < 2^bits. */
CLPERM_BIJ_FN clperm_u64 clperm_bijection_invert(const clperm_bijection_key *k, clperm_u64 y) {
    return k->kind == CLPERM_BIJ_LCG ? clperm_lcg_invert(k, y) : clperm_philox_invert(k, y);
}

#endif /* CLPERM_BIJECTION_H */
