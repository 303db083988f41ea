/* The shuffle on the host: the reference every device is compared with, and random access to a
 * permutation through a table of block counts. */
#include <stdlib.h>
#include <string.h>

#include "shuffle_internal.h"

#define INDEX_BLOCK 1024

clperm_status clperm_shuffle_host(const void *src, void *dst, uint64_t n, size_t elem_size, uint64_t seed,
                                  const clperm_shuffle_opts *opts) {
    CLPERM_RETURN_IF(elem_size == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n > 0 && (!src || !dst), CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n > SIZE_MAX / elem_size, CLPERM_ERROR_SIZE_OVERFLOW);
    const unsigned char *s = src;
    unsigned char *d = dst;
    size_t bytes = (size_t)n * elem_size;
    CLPERM_RETURN_IF(n > 0 && s < d + bytes && d < s + bytes, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm_shuffle_opts o;
    CLPERM_TRY(clperm__shuffle_opts_check(opts, &o));
    if (o.algorithm == CLPERM_SHUFFLE_BUCKETS) return clperm__buckets_host(src, dst, n, elem_size, 0, seed, &o);
    clperm_bijection_key key;
    CLPERM_TRY(clperm_bijection_init(&key, n, seed, opts));
    if (n == 0) return CLPERM_SUCCESS;
    uint64_t j = 0;
    for (uint64_t i = 0; i < key.domain; i++) {
        uint64_t w = clperm_bijection_apply(&key, i);
        if (w < n) memcpy(d + (size_t)(j++) * elem_size, s + (size_t)w * elem_size, elem_size);
    }
    return CLPERM_SUCCESS;
}

clperm_status clperm_permutation_host(clperm_type type, void *dst, uint64_t n, uint64_t seed,
                                      const clperm_shuffle_opts *opts) {
    CLPERM_RETURN_IF(type != CLPERM_TYPE_U32 && type != CLPERM_TYPE_U64, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(n > 0 && !dst, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(type == CLPERM_TYPE_U32 && n > (UINT64_C(1) << 32), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(n > SIZE_MAX / 8, CLPERM_ERROR_SIZE_OVERFLOW);
    clperm_shuffle_opts o;
    CLPERM_TRY(clperm__shuffle_opts_check(opts, &o));
    if (o.algorithm == CLPERM_SHUFFLE_BUCKETS) return clperm__buckets_host(NULL, dst, n, 0, type, seed, &o);
    clperm_bijection_key key;
    CLPERM_TRY(clperm_bijection_init(&key, n, seed, opts));
    uint64_t j = 0;
    for (uint64_t i = 0; i < key.domain && n > 0; i++) {
        uint64_t w = clperm_bijection_apply(&key, i);
        if (w >= n) continue;
        if (type == CLPERM_TYPE_U32)
            ((uint32_t *)dst)[j++] = (uint32_t)w;
        else
            ((uint64_t *)dst)[j++] = w;
    }
    return CLPERM_SUCCESS;
}

struct clperm_perm_index {
    clperm_bijection_key key;
    uint64_t blocks;
    uint64_t *before; /* before[b]: values below n among f(0) .. f(b * INDEX_BLOCK - 1); blocks + 1 */
};

static uint64_t count_valid(const clperm_bijection_key *key, uint64_t begin, uint64_t end) {
    uint64_t c = 0;
    for (uint64_t i = begin; i < end; i++) c += clperm_bijection_apply(key, i) < key->n;
    return c;
}

clperm_status clperm_perm_index_create(clperm_perm_index **out, uint64_t n, uint64_t seed,
                                       const clperm_shuffle_opts *opts) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm_bijection_key key;
    CLPERM_TRY(clperm_bijection_init(&key, n, seed, opts));
    uint64_t blocks = (key.domain + INDEX_BLOCK - 1) / INDEX_BLOCK;
    CLPERM_RETURN_IF(blocks >= SIZE_MAX / sizeof(uint64_t), CLPERM_ERROR_SIZE_OVERFLOW);
    clperm_perm_index *ix = malloc(sizeof *ix);
    uint64_t *before = malloc((size_t)(blocks + 1) * sizeof *before);
    if (!ix || !before) {
        free(ix);
        free(before);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    ix->key = key;
    ix->blocks = blocks;
    ix->before = before;
    before[0] = 0;
    for (uint64_t b = 0; b < blocks; b++) {
        uint64_t end = (b + 1) * INDEX_BLOCK < key.domain ? (b + 1) * INDEX_BLOCK : key.domain;
        before[b + 1] = before[b] + count_valid(&key, b * INDEX_BLOCK, end);
    }
    *out = ix;
    return CLPERM_SUCCESS;
}

clperm_status clperm_perm_index_at(const clperm_perm_index *ix, uint64_t j, uint64_t *src_index) {
    CLPERM_RETURN_IF(!ix || !src_index, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(j >= ix->key.n, CLPERM_ERROR_INVALID_ARGUMENT);
    /* The block b with before[b] <= j < before[b + 1]. */
    uint64_t lo = 0, hi = ix->blocks;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ix->before[mid] <= j)
            lo = mid;
        else
            hi = mid;
    }
    uint64_t rank = j - ix->before[lo];
    for (uint64_t i = lo * INDEX_BLOCK;; i++) {
        uint64_t w = clperm_bijection_apply(&ix->key, i);
        if (w < ix->key.n && rank-- == 0) {
            *src_index = w;
            return CLPERM_SUCCESS;
        }
    }
}

clperm_status clperm_perm_index_inverse(const clperm_perm_index *ix, uint64_t i, uint64_t *dst_index) {
    CLPERM_RETURN_IF(!ix || !dst_index, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(i >= ix->key.n, CLPERM_ERROR_INVALID_ARGUMENT);
    uint64_t x = clperm_bijection_invert(&ix->key, i);
    uint64_t b = x / INDEX_BLOCK;
    *dst_index = ix->before[b] + count_valid(&ix->key, b * INDEX_BLOCK, x);
    return CLPERM_SUCCESS;
}

void clperm_perm_index_free(clperm_perm_index *ix) {
    if (!ix) return;
    free(ix->before);
    free(ix);
}
