/* Keys for the bijections of clperm_bijection.h, derived from (n, seed, options). */
#include <string.h>

#include "internal.h"

/* SplitMix64 (Steele, Lea, Flood): a strong 64-bit mixer and a generator built on it. */
static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t splitmix_next(uint64_t *state) {
    *state += UINT64_C(0x9E3779B97F4A7C15);
    return mix64(*state);
}

static unsigned ceil_log2(uint64_t n) {
    unsigned b = 0;
    while (b < 64 && (UINT64_C(1) << b) < n) b++;
    return b;
}

clperm_status clperm__shuffle_opts_check(const clperm_shuffle_opts *opts, clperm_shuffle_opts *out) {
    clperm_shuffle_opts o = {CLPERM_BIJECTION_FEISTEL, 0};
    if (opts) o = *opts;
    if (o.bijection == 0) o.bijection = CLPERM_BIJECTION_FEISTEL;
    CLPERM_RETURN_IF(o.bijection != CLPERM_BIJECTION_PHILOX && o.bijection != CLPERM_BIJECTION_LCG &&
                         o.bijection != CLPERM_BIJECTION_FEISTEL,
                     CLPERM_ERROR_INVALID_ARGUMENT);
    if (o.bijection != CLPERM_BIJECTION_LCG) {
        if (o.rounds == 0)
            o.rounds = o.bijection == CLPERM_BIJECTION_PHILOX ? CLPERM_PHILOX_DEFAULT_ROUNDS : CLPERM_FEISTEL_DEFAULT_ROUNDS;
        CLPERM_RETURN_IF(o.rounds < 1 || o.rounds > CLPERM_PHILOX_MAX_ROUNDS, CLPERM_ERROR_INVALID_ARGUMENT);
    } else {
        CLPERM_RETURN_IF(o.rounds != 0, CLPERM_ERROR_INVALID_ARGUMENT);
    }
    *out = o;
    return CLPERM_SUCCESS;
}

clperm_status clperm_bijection_init(clperm_bijection_key *key, uint64_t n, uint64_t seed,
                                    const clperm_shuffle_opts *opts) {
    CLPERM_RETURN_IF(!key, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n > (UINT64_C(1) << 63), CLPERM_ERROR_SIZE_OVERFLOW);
    clperm_shuffle_opts o;
    CLPERM_TRY(clperm__shuffle_opts_check(opts, &o));
    clperm_bijection_key k;
    memset(&k, 0, sizeof k);
    k.n = n;
    k.bits = ceil_log2(n);
    if (k.bits < CLPERM_BIJECTION_MIN_BITS) k.bits = CLPERM_BIJECTION_MIN_BITS;
    k.domain = UINT64_C(1) << k.bits;
    k.left_bits = k.bits / 2;
    k.right_bits = k.bits - k.left_bits;
    /* The keys depend on n as well as the seed, so that one seed's permutations of n and n + 1 items
     * are unrelated (each step a bijection: distinct n, distinct states). */
    uint64_t state = mix64(mix64(seed ^ UINT64_C(0x6A09E667F3BCC909)) ^ n);
    k.kind = o.bijection == CLPERM_BIJECTION_FEISTEL ? CLPERM_BIJ_FEISTEL
             : o.bijection == CLPERM_BIJECTION_LCG   ? CLPERM_BIJ_LCG
                                                     : CLPERM_BIJ_PHILOX;
    if (k.kind == CLPERM_BIJ_FEISTEL) {
        /* a x 2^h >= n with h = max(4, floor(bits / 2), bits - 31) and a >= 16: a / 2^h is within
         * [1/2, 2] once n >= 2^8 (below 2^62), a <= 2^31 so that L + f fits 32 bits, and the
         * domain exceeds n by less than 2^h. */
        unsigned h = k.bits / 2;
        if (h < 4) h = 4;
        if (k.bits > 31 + h) h = k.bits - 31;
        uint64_t a = (n + (UINT64_C(1) << h) - 1) >> h;
        if (a < 16) a = 16;
        k.radix = (clperm_u32)a;
        k.right_bits = h;
        k.left_bits = ceil_log2(a);
        k.domain = a << h;
        k.bits = ceil_log2(k.domain);
    }
    if (k.kind != CLPERM_BIJ_LCG) {
        k.rounds = (clperm_u32)o.rounds;
        for (int r = 0; r < o.rounds; r++) k.keys[r] = (clperm_u32)(splitmix_next(&state) >> 32);
    } else {
        k.lcg_mul = (splitmix_next(&state) | 1) & (k.domain - 1);
        k.lcg_add = splitmix_next(&state) & (k.domain - 1);
    }
    if (k.kind == CLPERM_BIJ_PHILOX) {
        /* The transposition that makes the parity a fair coin (clperm_bijection.h): applied when
         * the top bit of one output mixed with n is set (the round keys do not depend on n; the
         * coin does, so that one seed's parities at n = 2^j and 2^k are not one), of u uniform
         * below n and v uniform among the others. */
        uint64_t apply = mix64(splitmix_next(&state) ^ n) >> 63;
        uint64_t r1 = splitmix_next(&state), r2 = splitmix_next(&state);
        if (apply && n >= 2) {
            k.swap[0] = r1 % n;
            k.swap[1] = (k.swap[0] + 1 + r2 % (n - 1)) % n;
        }
    }
    *key = k;
    return CLPERM_SUCCESS;
}

clperm_status clperm_bijection_set_kernel_args(cl_kernel kernel, cl_uint first, const clperm_bijection_key *key) {
    CLPERM_RETURN_IF(!kernel || !key, CLPERM_ERROR_INVALID_ARGUMENT);
    cl_ulong8 head;
    cl_uint8 shape;
    cl_uint16 k[4];
    memset(&head, 0, sizeof head);
    memset(&shape, 0, sizeof shape);
    head.s[0] = key->n;
    head.s[1] = key->domain;
    head.s[2] = key->lcg_mul;
    head.s[3] = key->lcg_add;
    head.s[4] = key->swap[0];
    head.s[5] = key->swap[1];
    shape.s[0] = key->kind;
    shape.s[1] = key->bits;
    shape.s[2] = key->left_bits;
    shape.s[3] = key->right_bits;
    shape.s[4] = key->rounds;
    shape.s[5] = key->radix;
    memcpy(k, key->keys, sizeof k);
    cl_int err = clSetKernelArg(kernel, first, sizeof head, &head);
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel, first + 1, sizeof shape, &shape);
    for (cl_uint i = 0; i < 4 && err == CL_SUCCESS; i++) err = clSetKernelArg(kernel, first + 2 + i, sizeof k[i], &k[i]);
    return err;
}
