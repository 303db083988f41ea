/* Host reference of the tile sorts and partitions: each segment ordered by (ordered key or its
 * label, input position). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

size_t clperm_key_size(clperm_key_type type) {
    switch (type) {
    case CLPERM_KEY_U32:
    case CLPERM_KEY_I32:
    case CLPERM_KEY_F32: return 4;
    case CLPERM_KEY_U64:
    case CLPERM_KEY_I64:
    case CLPERM_KEY_F64: return 8;
    case CLPERM_KEY_U8:
    case CLPERM_KEY_I8: return 1;
    case CLPERM_KEY_U16:
    case CLPERM_KEY_I16:
    case CLPERM_KEY_F16: return 2;
    default: return 0;
    }
}

/* Key bits to an unsigned order, as the kernels do (clperm_features.h, CLPERM_KEY_ORDER). */
static uint64_t key_to_ordered(clperm_key_type type, uint64_t k) {
    return CLPERM_KEY_ORDER(k, CLPERM_KEY_BITS(type), CLPERM_KEY_POS_XOR(type), CLPERM_KEY_NEG_XOR(type)) &
           CLPERM_KEY_ALL(type);
}


/* Orders each segment by (label, input position): the ordered key itself when bits is 0, else its
 * bits [shift, shift + bits). */
static clperm_status order_segments(clperm_key_type type, void *keys, uint32_t *values, uint64_t n,
                                    uint64_t segment, unsigned shift, unsigned bits) {
    size_t ks = clperm_key_size(type);
    CLPERM_RETURN_IF(!CLPERM_KEY_TILES(type), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(segment == 0 || (n && !keys) || (void *)values == keys, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(bits > 8 || shift + bits > 8 * ks || (!bits && shift), CLPERM_ERROR_INVALID_ARGUMENT);
    if (n == 0) return CLPERM_SUCCESS;
    uint64_t len_max = segment < n ? segment : n;
    CLPERM_RETURN_IF(len_max > SIZE_MAX / (2 * sizeof(clperm__host_item)), CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    clperm__host_item *items = malloc((size_t)len_max * sizeof *items), *tmp = malloc((size_t)len_max * sizeof *tmp);
    unsigned char *old = malloc((size_t)len_max * ks);
    uint32_t *vals = values ? malloc((size_t)len_max * sizeof *vals) : NULL;
    if (!items || !tmp || !old || (values && !vals)) {
        free(items);
        free(tmp);
        free(old);
        free(vals);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    unsigned char *kb = keys;
    for (uint64_t base = 0; base < n; base += segment) {
        uint64_t len = n - base < segment ? n - base : segment;
        memcpy(old, kb + base * ks, (size_t)len * ks);
        for (uint64_t i = 0; i < len; i++) {
            uint64_t k = 0;
            memcpy(&k, old + i * ks, ks); /* little-endian hosts */
            k = key_to_ordered(type, k);
            items[i].key = bits ? (k >> shift) & ((1u << bits) - 1) : k;
            items[i].pos = i;
        }
        clperm__host_order(items, tmp, len, bits ? bits : 8 * (unsigned)ks);
        clperm__host_gather(kb + base * ks, old, items, len, ks);
        if (values) {
            clperm__host_gather(vals, values + base, items, len, sizeof *vals);
            memcpy(values + base, vals, (size_t)len * sizeof *vals);
        }
    }
    free(items);
    free(tmp);
    free(old);
    free(vals);
    return CLPERM_SUCCESS;
}

clperm_status clperm_sort_segments_host(clperm_key_type type, void *keys, uint32_t *values, uint64_t n,
                                        uint64_t segment) {
    return order_segments(type, keys, values, n, segment, 0, 0);
}

clperm_status clperm_partition_segments_host(clperm_key_type type, void *keys, uint32_t *values, uint64_t n,
                                             uint64_t segment, unsigned shift, unsigned bits) {
    CLPERM_RETURN_IF(bits == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    return order_segments(type, keys, values, n, segment, shift, bits);
}
