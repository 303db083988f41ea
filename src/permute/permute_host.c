/* Offline permutations on the host: the references the device operations are checked against,
 * and the permutation check the index-array operations and the plan share. */
#include <stdlib.h>
#include <string.h>

#include "perm_internal.h"

static uint64_t index_at(clperm_type type, const void *p, uint64_t i) {
    return type == CLPERM_TYPE_U64 ? ((const uint64_t *)p)[i] : ((const uint32_t *)p)[i];
}

clperm_status clperm__perm_check_host(clperm_type index_type, const void *p, uint64_t n) {
    CLPERM_RETURN_IF(!clperm_type_size(index_type), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(n && !p, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n > SIZE_MAX / 2, CLPERM_ERROR_SIZE_OVERFLOW);
    uint64_t *seen = calloc((size_t)(n / 64 + 1), 8);
    CLPERM_RETURN_IF(!seen, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    clperm_status st = CLPERM_SUCCESS;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = index_at(index_type, p, i);
        if (d >= n || (seen[d / 64] >> (d % 64) & 1)) {
            st = CLPERM_ERROR_NOT_PERMUTATION;
            break;
        }
        seen[d / 64] |= UINT64_C(1) << (d % 64);
    }
    free(seen);
    return st;
}

clperm_status clperm__perm_inverse_host(clperm_type index_type, const void *p, uint64_t n, uint32_t *q) {
    CLPERM_RETURN_IF(!clperm_type_size(index_type), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(n > UINT32_MAX, CLPERM_ERROR_SIZE_OVERFLOW);
    memset(q, 0xFF, (size_t)n * 4);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = index_at(index_type, p, i);
        CLPERM_RETURN_IF(d >= n || q[d] != UINT32_MAX, CLPERM_ERROR_NOT_PERMUTATION);
        q[d] = (uint32_t)i;
    }
    return CLPERM_SUCCESS;
}

static clperm_status check_items(const void *src, const void *dst, uint64_t n, size_t elem_size) {
    CLPERM_RETURN_IF(elem_size != 4 && elem_size != 8 && elem_size != 16, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(n && (!src || !dst), CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n > SIZE_MAX / elem_size, CLPERM_ERROR_SIZE_OVERFLOW);
    return CLPERM_SUCCESS;
}

#define ITEM(buf, i) ((unsigned char *)(buf) + (size_t)(i) * elem_size)
#define CITEM(buf, i) ((const unsigned char *)(buf) + (size_t)(i) * elem_size)

clperm_status clperm_permute_scatter_host(const void *src, void *dst, uint64_t n, size_t elem_size,
                                          clperm_type index_type, const void *p) {
    CLPERM_TRY(check_items(src, dst, n, elem_size));
    CLPERM_TRY(clperm__perm_check_host(index_type, p, n));
    for (uint64_t i = 0; i < n; i++) memcpy(ITEM(dst, index_at(index_type, p, i)), CITEM(src, i), elem_size);
    return CLPERM_SUCCESS;
}

clperm_status clperm_permute_gather_host(const void *src, void *dst, uint64_t n, size_t elem_size,
                                         clperm_type index_type, const void *q) {
    CLPERM_TRY(check_items(src, dst, n, elem_size));
    CLPERM_TRY(clperm__perm_check_host(index_type, q, n));
    for (uint64_t i = 0; i < n; i++) memcpy(ITEM(dst, i), CITEM(src, index_at(index_type, q, i)), elem_size);
    return CLPERM_SUCCESS;
}

clperm_status clperm_transpose_host(const void *src, void *dst, uint64_t rows, uint64_t cols, size_t elem_size) {
    CLPERM_RETURN_IF(cols && rows > UINT64_MAX / cols, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(check_items(src, dst, rows * cols, elem_size));
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++) memcpy(ITEM(dst, c * rows + r), CITEM(src, r * cols + c), elem_size);
    return CLPERM_SUCCESS;
}

static unsigned log2_exact(uint64_t n) {
    unsigned k = 0;
    while ((UINT64_C(1) << k) < n) k++;
    return k;
}

clperm_status clperm_permute_bit_reversal_host(const void *src, void *dst, uint64_t n, size_t elem_size) {
    CLPERM_RETURN_IF(n & (n - 1), CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(check_items(src, dst, n, elem_size));
    unsigned k = log2_exact(n);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = 0;
        for (unsigned b = 0; b < k; b++) r |= (i >> b & 1) << (k - 1 - b);
        memcpy(ITEM(dst, r), CITEM(src, i), elem_size);
    }
    return CLPERM_SUCCESS;
}

clperm_status clperm_permute_shuffle_host(const void *src, void *dst, uint64_t n, size_t elem_size, int inverse) {
    CLPERM_RETURN_IF(n & (n - 1), CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(check_items(src, dst, n, elem_size));
    unsigned k = log2_exact(n);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = k == 0 ? 0 : inverse ? (i >> 1) | ((i & 1) << (k - 1)) : ((i << 1) | (i >> (k - 1))) & (n - 1);
        memcpy(ITEM(dst, d), CITEM(src, i), elem_size);
    }
    return CLPERM_SUCCESS;
}
