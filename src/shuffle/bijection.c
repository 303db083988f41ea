/* Keys for the bijections of clperm_bijection.h, derived from (n, seed, options). */
#include <string.h>

#include "internal.h"

clperm_status clperm__shuffle_opts_check(const clperm_shuffle_opts *opts, clperm_shuffle_opts *out) {
    clperm_shuffle_opts o = {CLPERM_BIJECTION_FEISTEL, 0, CLPERM_SHUFFLE_BIJECTIVE};
    if (opts) o = *opts;
    if (o.bijection == 0) o.bijection = CLPERM_BIJECTION_FEISTEL;
    if (o.algorithm == 0) o.algorithm = CLPERM_SHUFFLE_BIJECTIVE;
    CLPERM_RETURN_IF(o.algorithm != CLPERM_SHUFFLE_BIJECTIVE && o.algorithm != CLPERM_SHUFFLE_BUCKETS,
                     CLPERM_ERROR_INVALID_ARGUMENT);
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
    CLPERM_RETURN_IF(o.algorithm == CLPERM_SHUFFLE_BUCKETS, CLPERM_ERROR_INVALID_ARGUMENT);
    /* The clperm_bijection values are the kinds (CLPERM_BIJ_*). */
    clperm_bijection_derive(key, n, seed, (clperm_u32)o.bijection, (clperm_u32)o.rounds);
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
