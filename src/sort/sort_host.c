/* Host reference of the device-wide and segmented sorts: a stable sort on the bits the device
 * sorts by (cl/sort/sort_key.h; clperm__host_order), then keys and values moved to their places. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sort_internal.h"

clperm_status clperm__sort_check_order(clperm_key_type type, const clperm_sort_order *order, clperm__sort_bits *out) {
    size_t ks = clperm_key_size(type);
    CLPERM_RETURN_IF(ks == 0, CLPERM_ERROR_INVALID_TYPE);
    unsigned width = 8 * (unsigned)ks;
    clperm_sort_order o = {0, 0, 0};
    if (order) o = *order;
    unsigned hi = o.bit_hi ? o.bit_hi : width;
    CLPERM_RETURN_IF(o.descending != 0 && o.descending != 1, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(o.bit_lo >= hi || hi > width, CLPERM_ERROR_INVALID_ARGUMENT);
    out->width = width;
    out->lo = o.bit_lo;
    out->hi = hi;
    out->descending = o.descending;
    clperm__sort_key_masks((int)type, o.descending, &out->pos_xor, &out->neg_xor);
    return CLPERM_SUCCESS;
}

size_t clperm__sort_value_size(clperm_type value_type) {
    return value_type == 0 ? 0 : clperm_type_size(value_type);
}

static clperm_status check_host_request(const clperm_sort_host_request *req, clperm__sort_bits *bits) {
    CLPERM_RETURN_IF(!req, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__sort_check_order(req->key_type, &req->order, bits));
    CLPERM_RETURN_IF(req->value_type != 0 && clperm_type_size(req->value_type) == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(req->n && (!req->keys || (req->value_type && !req->values)), CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(req->value_type && req->values == req->keys, CLPERM_ERROR_INVALID_ARGUMENT);
    return CLPERM_SUCCESS;
}

/* Sorts items [begin, end) of the request's keys and values; items and tmp hold end - begin
 * entries, old the keys or values of the range. */
static void sort_range(const clperm_sort_host_request *req, const clperm__sort_bits *bits, uint64_t begin,
                       uint64_t end, clperm__host_item *items, clperm__host_item *tmp, unsigned char *old) {
    size_t ks = clperm_key_size(req->key_type), vs = clperm__sort_value_size(req->value_type);
    uint64_t len = end - begin, span = bits->hi - bits->lo;
    uint64_t mask = span == 64 ? ~(uint64_t)0 : (((uint64_t)1 << span) - 1);
    unsigned char *kb = (unsigned char *)req->keys + begin * ks;
    for (uint64_t i = 0; i < len; i++) {
        uint64_t k = 0;
        memcpy(&k, kb + i * ks, ks); /* little-endian hosts */
        items[i].key = (CLPERM_KEY_ORDER(k, bits->width, bits->pos_xor, bits->neg_xor) >> bits->lo) & mask;
        items[i].pos = i;
    }
    clperm__host_order(items, tmp, len, (unsigned)span);
    memcpy(old, kb, (size_t)len * ks);
    clperm__host_gather(kb, old, items, len, ks);
    if (vs) {
        unsigned char *vb = (unsigned char *)req->values + begin * vs;
        memcpy(old, vb, (size_t)len * vs);
        clperm__host_gather(vb, old, items, len, vs);
    }
}

/* Sorts the ranges [bounds[i], bounds[i + 1]) for i < count. */
static clperm_status sort_ranges(const clperm_sort_host_request *req, const clperm__sort_bits *bits,
                                 const uint64_t *bounds, uint64_t count, uint64_t longest) {
    if (longest < 2) return CLPERM_SUCCESS;
    CLPERM_RETURN_IF(longest > SIZE_MAX / (2 * sizeof(clperm__host_item)), CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    clperm__host_item *items = malloc((size_t)longest * sizeof *items), *tmp = malloc((size_t)longest * sizeof *tmp);
    unsigned char *old = malloc((size_t)longest * 8);
    clperm_status st = items && tmp && old ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    for (uint64_t i = 0; st == CLPERM_SUCCESS && i < count; i++)
        if (bounds[i + 1] - bounds[i] > 1) sort_range(req, bits, bounds[i], bounds[i + 1], items, tmp, old);
    free(items);
    free(tmp);
    free(old);
    return st;
}

clperm_status clperm_sort_host(const clperm_sort_host_request *req) {
    clperm__sort_bits bits;
    CLPERM_TRY(check_host_request(req, &bits));
    uint64_t bounds[2] = {0, req->n};
    return sort_ranges(req, &bits, bounds, 1, req->n);
}

clperm_status clperm_sort_segmented_host(const clperm_sort_host_request *req, const void *offsets,
                                         clperm_type offset_type, uint64_t count) {
    clperm__sort_bits bits;
    CLPERM_TRY(check_host_request(req, &bits));
    CLPERM_RETURN_IF(!CLPERM_KEY_TILES(req->key_type), CLPERM_ERROR_INVALID_TYPE); /* as the device's */
    size_t os = clperm_type_size(offset_type);
    CLPERM_RETURN_IF(os == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(!offsets, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(count >= SIZE_MAX / 8, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    uint64_t *bounds = malloc((size_t)(count + 1) * 8), longest = 0;
    CLPERM_RETURN_IF(!bounds, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    clperm_status st = CLPERM_SUCCESS;
    for (uint64_t i = 0; i <= count; i++) {
        bounds[i] = 0;
        memcpy(&bounds[i], (const unsigned char *)offsets + i * os, os);
        if ((i && bounds[i] < bounds[i - 1]) || bounds[i] > req->n) st = CLPERM_ERROR_INVALID_ARGUMENT;
        else if (i && bounds[i] - bounds[i - 1] > longest) longest = bounds[i] - bounds[i - 1];
    }
    if (st == CLPERM_SUCCESS) st = sort_ranges(req, &bits, bounds, count, longest);
    free(bounds);
    return st;
}
