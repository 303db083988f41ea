/* Host reference of the tile sorts: each segment sorted by (ordered key, input position). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

size_t clperm_key_size(clperm_key_type type) {
    switch (type) {
    case CLPERM_KEY_U32:
    case CLPERM_KEY_I32:
    case CLPERM_KEY_F32: return 4;
    case CLPERM_KEY_U64: return 8;
    default: return 0;
    }
}

/* Key bits to an unsigned order and back, as the kernels do (cl/tile_sort.cl). */
static uint64_t key_to_ordered(clperm_key_type type, uint64_t k) {
    switch (type) {
    case CLPERM_KEY_I32: return k ^ 0x80000000u;
    case CLPERM_KEY_F32: return (k & 0x80000000u) ? (~k & 0xFFFFFFFFu) : (k | 0x80000000u);
    default: return k;
    }
}

static uint64_t key_from_ordered(clperm_key_type type, uint64_t o) {
    switch (type) {
    case CLPERM_KEY_I32: return o ^ 0x80000000u;
    case CLPERM_KEY_F32: return (o & 0x80000000u) ? (o & 0x7FFFFFFFu) : (~o & 0xFFFFFFFFu);
    default: return o;
    }
}

typedef struct ordered_item {
    uint64_t key;
    uint64_t pos;
} ordered_item;

static int item_cmp(const void *a, const void *b) {
    const ordered_item *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

clperm_status clperm_sort_segments_host(clperm_key_type type, void *keys, uint32_t *values, uint64_t n,
                                        uint64_t segment) {
    size_t ks = clperm_key_size(type);
    CLPERM_RETURN_IF(ks == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(segment == 0 || (n && !keys) || (void *)values == keys, CLPERM_ERROR_INVALID_ARGUMENT);
    if (n == 0) return CLPERM_SUCCESS;
    uint64_t len_max = segment < n ? segment : n;
    CLPERM_RETURN_IF(len_max > SIZE_MAX / sizeof(ordered_item), CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    ordered_item *items = malloc((size_t)len_max * sizeof *items);
    uint32_t *vals = values ? malloc((size_t)len_max * sizeof *vals) : NULL;
    if (!items || (values && !vals)) {
        free(items);
        free(vals);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    unsigned char *kb = keys;
    for (uint64_t base = 0; base < n; base += segment) {
        uint64_t len = n - base < segment ? n - base : segment;
        for (uint64_t i = 0; i < len; i++) {
            uint64_t k = 0;
            memcpy(&k, kb + (base + i) * ks, ks); /* little-endian hosts */
            items[i].key = key_to_ordered(type, k);
            items[i].pos = i;
        }
        qsort(items, (size_t)len, sizeof *items, item_cmp);
        for (uint64_t i = 0; i < len; i++) {
            uint64_t k = key_from_ordered(type, items[i].key);
            memcpy(kb + (base + i) * ks, &k, ks);
        }
        if (values) {
            for (uint64_t i = 0; i < len; i++) vals[i] = values[base + items[i].pos];
            memcpy(values + base, vals, (size_t)len * sizeof *vals);
        }
    }
    free(items);
    free(vals);
    return CLPERM_SUCCESS;
}
