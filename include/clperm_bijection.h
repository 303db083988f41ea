/*
 * clperm_bijection.h: the keyed bijections behind clperm's shuffles. This one file compiles as
 * C99 on the host and as OpenCL C 1.2 on devices, so that the host reference and every kernel
 * compute the same function.
 *
 * A key (clperm_bijection_key) is made on the host by clperm_bijection_init() (clperm.h) from
 * (n, seed, options) and passed to kernels by value: its round keys come from SplitMix64 started
 * at a hash of the seed and n together, so one seed's permutations of different n are unrelated
 * (tests/data/shuffle_kat.txt gives the derivation). It describes a bijection f of a domain
 * [0, domain), domain >= n; the permutation of n items keeps the values f(i) < n in increasing
 * order of i.
 *
 *   VariablePhilox (Mitchell et al., Listing 1 and Fig. 4): a Feistel network on a left half of
 *   floor(bits/2) bits and a right half of ceil(bits/2) bits. Each round multiplies the left half
 *   by the Philox constant M0; the high word xor a round key xor the right half becomes the new
 *   left half, and the low word (a bijection of the left half, M0 being odd) with the right
 *   half's top ("odd") bit shifted in becomes the new right half. Then, unlike the paper, a
 *   transposition chosen by the key: with probability 1/2 (a bit of the key, drawn from the seed
 *   after the round keys and mixed with n) the two values swap[0] != swap[1], drawn uniformly
 *   below n, are exchanged; otherwise swap[0] = swap[1] = 0 and nothing moves.
 *
 *   Why the transposition: from 4 bits up each round of the paper's cipher is an even
 *   permutation of its domain, the product of three even ones: xoring a function of the left
 *   half into the right half's low l = floor(bits/2) bits (for each left half, 2^(l-1) disjoint
 *   transpositions or none), the bijection of the left half (one permutation repeated on an even
 *   number of right halves), and the exchange of two l-bit fields (2^(l-1) (2^l - 1)
 *   transpositions for each value of the odd bit). At n = 2^k nothing is compacted away, so the
 *   paper's VariablePhilox gives even permutations only, half of all, whatever its rounds. The
 *   transposition makes the parity a fair coin at every n for two comparisons per index. Drawn
 *   independently of the rounds, it cannot take the permutation's law further from uniform
 *   (total variation), and it turns a uniform law on the even permutations into the uniform law
 *   on all. As both values are below n, the kept indices, and so every count the compaction and
 *   clperm_perm_index use, stay the paper's: only two kept values change places.
 *
 *   LCG: f(x) = (a x + c) mod 2^bits, a odd.
 *
 *   Feistel over a x 2^h (alternating radices): a domain of radix * 2^h values, the smallest such
 *   product of at least n with b = ceil(log2 n), h = max(4, floor(b / 2), b - 31) and radix >= 16,
 *   so it exceeds n by less than 2^h (about sqrt(n)) rather than by up to n. A value x is the pair
 *   (L, R) = (x >> h, x mod 2^h); even rounds add a keyed hash of R to L modulo radix, odd rounds a
 *   keyed hash of L to R modulo 2^h. The hash is MurmurHash3's 32-bit finaliser of the value xor
 *   the round key; it is reduced to [0, radix) by ((hash >> 16) * radix) >> 16 for a radix up to
 *   2^16, else by the high word of hash * radix, and to [0, 2^h) by its top h bits.
 *   It needs no transposition: x -> x + c mod m has gcd(c, m) cycles of m / gcd(c, m) values,
 *   so it is an odd permutation exactly when m is even and c odd (a rotation of cycles of even
 *   length). An odd round (m = 2^h) is then odd when the number of L whose hash is odd is odd, a
 *   key-dependent coin, and so is an even round when the radix is even; the parity of the whole
 *   is a sum of such coins, fair as far as the tests can tell. Only a single round with an odd
 *   radix is always even.
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

#ifndef CLPERM_FEATURES_H
#include "clperm_features.h"
#endif

#define CLPERM_PHILOX_MAX_ROUNDS 64
#define CLPERM_PHILOX_DEFAULT_ROUNDS 24
#define CLPERM_FEISTEL_DEFAULT_ROUNDS 8
/* The smallest domain is 2^4: below that a Feistel network on one- or two-bit halves reaches few
 * permutations (at 2 bits it is the identity). */
#define CLPERM_BIJECTION_MIN_BITS 4
/* Philox's multiplier (Salmon et al.), as in the shuffling paper's Listing 1. */
#define CLPERM_PHILOX_M0 ((clperm_u64)0xD2B74407B1CE6E93)
/* The inverse of M0's low 32 bits modulo 2^32. */
#define CLPERM_PHILOX_M0_INV 0x212BDF9Bu

/* The number of kernel parameters a key takes (CLPERM_BIJECTION_KEY_PARAMS). */
#define CLPERM_BIJECTION_KEY_ARGS 6

/* The layout is the same in C and OpenCL C: 64-bit fields first, no implicit padding. */
typedef struct clperm_bijection_key {
    clperm_u64 n;       /* items: the shuffle keeps the values below n                    */
    clperm_u64 domain;  /* 2^bits; for the Feistel over a x 2^h, radix << right_bits          */
    clperm_u64 lcg_mul; /* LCG: odd multiplier a, below 2^bits                             */
    clperm_u64 lcg_add; /* LCG: increment c, below 2^bits                                  */
    clperm_u64 swap[2]; /* VariablePhilox: the two values below n exchanged after the rounds;
                           0 and 0 when the key leaves them in place, and for the other kinds */
    clperm_u32 kind;    /* CLPERM_BIJ_PHILOX, CLPERM_BIJ_LCG or CLPERM_BIJ_FEISTEL           */
    clperm_u32 bits;    /* ceil(log2(domain)), CLPERM_BIJECTION_MIN_BITS .. 64               */
    clperm_u32 left_bits, right_bits; /* halves: VariablePhilox bits/2 down, up; Feistel ceil(log2 a), h */
    clperm_u32 rounds;  /* VariablePhilox or Feistel rounds, 1 .. CLPERM_PHILOX_MAX_ROUNDS    */
    clperm_u32 radix;   /* Feistel over a x 2^h: a (>= 16); h is right_bits                    */
    clperm_u32 reserved[2];
    clperm_u32 keys[CLPERM_PHILOX_MAX_ROUNDS]; /* round keys (VariablePhilox, Feistel)         */
} clperm_bijection_key;

#ifdef __OPENCL_C_VERSION__
/* CLPERM_BIJECTION_KEY_ARGS kernel parameters carrying a key: head = (n, domain, lcg_mul,
 * lcg_add, swap[0], swap[1], 0, 0), shape = (kind, bits, left_bits, right_bits, rounds, radix, 0,
 * 0), then the 64 round keys in four uint16. */
#define CLPERM_BIJECTION_KEY_PARAMS(name)                                                          \
    ulong8 name##_head, uint8 name##_shape, uint16 name##_k0, uint16 name##_k1, uint16 name##_k2,   \
        uint16 name##_k3
#define CLPERM_BIJECTION_KEY_UNPACK(name)                                                          \
    clperm_bijection_key name;                                                                     \
    name.n = name##_head.s0;                                                                       \
    name.domain = name##_head.s1;                                                                  \
    name.lcg_mul = name##_head.s2;                                                                 \
    name.lcg_add = name##_head.s3;                                                                 \
    name.swap[0] = name##_head.s4;                                                                 \
    name.swap[1] = name##_head.s5;                                                                 \
    name.kind = name##_shape.s0;                                                                   \
    name.bits = name##_shape.s1;                                                                   \
    name.left_bits = name##_shape.s2;                                                              \
    name.right_bits = name##_shape.s3;                                                             \
    name.rounds = name##_shape.s4;                                                                 \
    name.radix = name##_shape.s5;                                                                  \
    name.reserved[0] = name.reserved[1] = 0;                                                       \
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
CLPERM_INLINE clperm_u32 clperm__bij_mask(clperm_u32 bits) { return 0xffffffffu >> (32u - bits); }

/* The paper's VariablePhilox: the rounds of Listing 1, and their inverse. */
CLPERM_INLINE clperm_u64 clperm__philox_rounds(const clperm_bijection_key *k, clperm_u64 x) {
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

CLPERM_INLINE clperm_u64 clperm__philox_unrounds(const clperm_bijection_key *k, clperm_u64 y) {
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

/* The key's transposition: swap[0] and swap[1] exchanged, every other value fixed (its own
 * inverse; the identity when they are equal). */
CLPERM_INLINE clperm_u64 clperm__bij_transpose(const clperm_bijection_key *k, clperm_u64 y) {
    return y == k->swap[0] ? k->swap[1] : y == k->swap[1] ? k->swap[0] : y;
}

/* clperm's VariablePhilox: the paper's rounds, then the key's transposition. */
CLPERM_INLINE clperm_u64 clperm_philox_apply(const clperm_bijection_key *k, clperm_u64 x) {
    return clperm__bij_transpose(k, clperm__philox_rounds(k, x));
}

CLPERM_INLINE clperm_u64 clperm_philox_invert(const clperm_bijection_key *k, clperm_u64 y) {
    return clperm__philox_unrounds(k, clperm__bij_transpose(k, y));
}

CLPERM_INLINE clperm_u64 clperm_lcg_apply(const clperm_bijection_key *k, clperm_u64 x) {
    return (k->lcg_mul * x + k->lcg_add) & (k->domain - 1);
}

CLPERM_INLINE clperm_u64 clperm_lcg_invert(const clperm_bijection_key *k, clperm_u64 y) {
    /* The inverse of an odd a modulo 2^64 by Newton's iteration: each step doubles the bits. */
    clperm_u64 a = k->lcg_mul, inv = a;
    for (int i = 0; i < 5; i++) inv *= 2 - a * inv;
    return ((y - k->lcg_add) * inv) & (k->domain - 1);
}

/* The high 32 bits of the 64-bit product. */
CLPERM_INLINE clperm_u32 clperm__bij_mulhi(clperm_u32 a, clperm_u32 b) {
    return (clperm_u32)(((clperm_u64)a * b) >> 32);
}

/* MurmurHash3's fmix32 on h in place (a scalar or a vector of uint). */
#define CLPERM__FMIX32(h) ((h) ^= (h) >> 16, (h) *= 0x85EBCA6Bu, (h) ^= (h) >> 13, (h) *= 0xC2B2AE35u, (h) ^= (h) >> 16)

/* The Feistel rounds' keyed hash: fmix32 of v ^ key, a bijection of v. */
CLPERM_INLINE clperm_u32 clperm__feistel_hash(clperm_u32 v, clperm_u32 key) {
    clperm_u32 h = v ^ key;
    CLPERM__FMIX32(h);
    return h;
}

/* The Feistel's two round functions: a keyed hash of R reduced to [0, radix) for L, and of L
 * reduced to [0, 2^h) for R. A radix up to 2^16 takes the hash's top 16 bits times the radix
 * (exact in 32 bits), a larger one the top 32 bits of the hash times the radix. */
CLPERM_INLINE clperm_u32 clperm__feistel_reduce(clperm_u32 h, clperm_u32 a) {
    return a <= 0x10000u ? ((h >> 16) * a) >> 16 : clperm__bij_mulhi(h, a);
}

CLPERM_INLINE clperm_u32 clperm__feistel_fl(const clperm_bijection_key *k, clperm_u32 i, clperm_u32 r) {
    return clperm__feistel_reduce(clperm__feistel_hash(r, k->keys[i]), k->radix);
}

CLPERM_INLINE clperm_u32 clperm__feistel_fr(const clperm_bijection_key *k, clperm_u32 i, clperm_u32 l) {
    return clperm__feistel_hash(l, k->keys[i]) >> (32u - k->right_bits);
}

CLPERM_INLINE clperm_u64 clperm_feistel_apply(const clperm_bijection_key *k, clperm_u64 x) {
    clperm_u32 h = k->right_bits, a = k->radix, rmask = clperm__bij_mask(h);
    clperm_u32 l = (clperm_u32)(x >> h), r = (clperm_u32)x & rmask;
    clperm_u32 rounds = CLPERM__BIJ_ROUNDS(k), i = 0;
    for (; i + 1 < rounds; i += 2) {
        l += clperm__feistel_fl(k, i, r);
        l = l >= a ? l - a : l;
        r = (r + clperm__feistel_fr(k, i + 1, l)) & rmask;
    }
    if (i < rounds) {
        l += clperm__feistel_fl(k, i, r);
        l = l >= a ? l - a : l;
    }
    return ((clperm_u64)l << h) | (clperm_u64)r;
}

CLPERM_INLINE clperm_u64 clperm_feistel_invert(const clperm_bijection_key *k, clperm_u64 y) {
    clperm_u32 h = k->right_bits, a = k->radix, rmask = clperm__bij_mask(h);
    clperm_u32 l = (clperm_u32)(y >> h), r = (clperm_u32)y & rmask;
    for (clperm_u32 i = CLPERM__BIJ_ROUNDS(k); i-- > 0;) {
        clperm_u32 f;
        if (i & 1u) {
            f = clperm__feistel_fr(k, i, l);
            r = (r - f) & rmask;
        } else {
            f = clperm__feistel_fl(k, i, r);
            l = l >= f ? l - f : l + (a - f);
        }
    }
    return ((clperm_u64)l << h) | (clperm_u64)r;
}

#ifdef __OPENCL_C_VERSION__
/* The Feistel on N values in uintN lanes (N = 8, 16): the same function as clperm_feistel_apply,
 * written with vectors because CPU OpenCL compilers vectorise it reliably only in this form; 16
 * lanes are two independent chains of rounds where a vector register holds eight. Defining
 * CLPERM_FEISTEL_RADIX16 promises radix <= 2^16. */
#ifdef CLPERM_FEISTEL_RADIX16
#define CLPERM__FEISTEL_REDUCE(N, h, a) ((((h) >> 16) * (a)) >> 16)
#else
#define CLPERM__FEISTEL_REDUCE(N, h, a)                                                                             \
    ((a) <= 0x10000u ? (((h) >> 16) * (a)) >> 16 : convert_uint##N((convert_ulong##N(h) * (ulong)(a)) >> 32))
#endif
#define CLPERM__FEISTEL_APPLY_N(N)                                                                                 \
    inline uint##N clperm__feistel_hash##N(uint##N v, uint key) {                                                 \
        uint##N h = v ^ key;                                                                                       \
        CLPERM__FMIX32(h);                                                                                         \
        return h;                                                                                                  \
    }                                                                                                              \
    inline ulong##N clperm_feistel_apply##N(const clperm_bijection_key *k, ulong##N x) {                           \
        uint h = k->right_bits, a = k->radix, rmask = clperm__bij_mask(h);                                         \
        uint##N l = convert_uint##N(x >> (ulong)h), r = convert_uint##N(x) & rmask;                                \
        uint rounds = CLPERM__BIJ_ROUNDS(k), i = 0;                                                                \
        for (; i + 1 < rounds; i += 2) {                                                                           \
            l += CLPERM__FEISTEL_REDUCE(N, clperm__feistel_hash##N(r, k->keys[i]), a);                             \
            l = select(l, l - a, l >= a);                                                                          \
            r = (r + (clperm__feistel_hash##N(l, k->keys[i + 1]) >> (32u - h))) & rmask;                           \
        }                                                                                                          \
        if (i < rounds) {                                                                                          \
            l += CLPERM__FEISTEL_REDUCE(N, clperm__feistel_hash##N(r, k->keys[i]), a);                             \
            l = select(l, l - a, l >= a);                                                                          \
        }                                                                                                          \
        return (convert_ulong##N(l) << (ulong)h) | convert_ulong##N(r);                                            \
    }
CLPERM__FEISTEL_APPLY_N(8)
CLPERM__FEISTEL_APPLY_N(16)
#endif

/* f(x) for x in the domain. */
CLPERM_INLINE clperm_u64 clperm_bijection_apply(const clperm_bijection_key *k, clperm_u64 x) {
#if defined(CLPERM_BIJECTION_KIND)
    const clperm_u32 kind = CLPERM_BIJECTION_KIND;
#else
    const clperm_u32 kind = k->kind;
#endif
    return kind == CLPERM_BIJ_LCG       ? clperm_lcg_apply(k, x)
           : kind == CLPERM_BIJ_FEISTEL ? clperm_feistel_apply(k, x)
                                        : clperm_philox_apply(k, x);
}

/* f^-1(y) for y in the domain. */
CLPERM_INLINE clperm_u64 clperm_bijection_invert(const clperm_bijection_key *k, clperm_u64 y) {
    return k->kind == CLPERM_BIJ_LCG       ? clperm_lcg_invert(k, y)
           : k->kind == CLPERM_BIJ_FEISTEL ? clperm_feistel_invert(k, y)
                                           : clperm_philox_invert(k, y);
}

/* The bijection restricted to [0, k->n) by cycle-walking: the first of f(x), f(f(x)), ... below
 * n, for x < n. A permutation of [0, n) (the bucket shuffle's within a bucket, clperm.h). With
 * n = 0, f(x). */
CLPERM_INLINE clperm_u64 clperm_bijection_walk(const clperm_bijection_key *k, clperm_u64 x) {
    clperm_u64 y = clperm_bijection_apply(k, x);
    while (y >= k->n && k->n != 0) y = clperm_bijection_apply(k, y);
    return y;
}

/* ceil(log2(n)), 0 for n <= 1. */
CLPERM_INLINE clperm_u32 clperm__bij_ceil_log2(clperm_u64 n) {
    clperm_u32 b = 0;
    while (b < 64 && ((clperm_u64)1 << b) < n) b++;
    return b;
}

/* SplitMix64's next output from *state. */
CLPERM_INLINE clperm_u64 clperm__bij_next(clperm_u64 *state) {
    *state += (clperm_u64)0x9E3779B97F4A7C15UL;
    return clperm__mix64(*state);
}

/* The key of (n, seed) for a bijection kind (CLPERM_BIJ_*) and its rounds (1 .. 64; 0 for the
 * LCG), already checked: what clperm_bijection_init makes from its options, here so that kernels
 * can make keys too (the bucket shuffle makes one per bucket). n <= 2^63. */
CLPERM_INLINE void clperm_bijection_derive(clperm_bijection_key *key, clperm_u64 n, clperm_u64 seed, clperm_u32 kind,
                                           clperm_u32 rounds) {
    clperm_bijection_key k;
    k.n = n;
    k.lcg_mul = k.lcg_add = k.swap[0] = k.swap[1] = 0;
    k.radix = k.reserved[0] = k.reserved[1] = 0;
    for (int r = 0; r < CLPERM_PHILOX_MAX_ROUNDS; r++) k.keys[r] = 0;
    k.bits = clperm__bij_ceil_log2(n);
    if (k.bits < CLPERM_BIJECTION_MIN_BITS) k.bits = CLPERM_BIJECTION_MIN_BITS;
    k.domain = (clperm_u64)1 << k.bits;
    k.left_bits = k.bits / 2;
    k.right_bits = k.bits - k.left_bits;
    /* The keys depend on n as well as the seed, so that one seed's permutations of n and n + 1
     * items are unrelated (each step a bijection: distinct n, distinct states). */
    clperm_u64 state = clperm__mix64(clperm__mix64(seed ^ (clperm_u64)0x6A09E667F3BCC909UL) ^ n);
    k.kind = kind;
    k.rounds = kind == CLPERM_BIJ_LCG ? 0u : rounds;
    if (kind == CLPERM_BIJ_FEISTEL) {
        /* a x 2^h >= n with h = max(4, floor(bits / 2), bits - 31) and a >= 16: a / 2^h is within
         * [1/2, 2] once n >= 2^8 (below 2^62), a <= 2^31 so that L + f fits 32 bits, and the
         * domain exceeds n by less than 2^h. */
        clperm_u32 h = k.bits / 2;
        if (h < 4) h = 4;
        if (k.bits > 31 + h) h = k.bits - 31;
        clperm_u64 a = (n + ((clperm_u64)1 << h) - 1) >> h;
        if (a < 16) a = 16;
        k.radix = (clperm_u32)a;
        k.right_bits = h;
        k.left_bits = clperm__bij_ceil_log2(a);
        k.domain = a << h;
        k.bits = clperm__bij_ceil_log2(k.domain);
    }
    if (kind != CLPERM_BIJ_LCG) {
        for (clperm_u32 r = 0; r < rounds; r++) k.keys[r] = (clperm_u32)(clperm__bij_next(&state) >> 32);
    } else {
        k.lcg_mul = (clperm__bij_next(&state) | 1) & (k.domain - 1);
        k.lcg_add = clperm__bij_next(&state) & (k.domain - 1);
    }
    if (kind == CLPERM_BIJ_PHILOX) {
        /* The transposition that makes the parity a fair coin (above): applied when the top bit of
         * one output mixed with n is set (the round keys do not depend on n; the coin does, so that
         * one seed's parities at n = 2^j and 2^k are not one), of u uniform below n and v uniform
         * among the others. */
        clperm_u64 apply = clperm__mix64(clperm__bij_next(&state) ^ n) >> 63;
        clperm_u64 r1 = clperm__bij_next(&state), r2 = clperm__bij_next(&state);
        if (apply && n >= 2) {
            k.swap[0] = r1 % n;
            k.swap[1] = (k.swap[0] + 1 + r2 % (n - 1)) % n;
        }
    }
    *key = k;
}

#endif /* CLPERM_BIJECTION_H */
