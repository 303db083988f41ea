/* The one local sort the distributed shuffle and sort take their order from.
 *
 * It belongs on the device: clperm_sort, the device-wide stable sort, once the core library has
 * it. Until then clperm__dist_sort_local runs sort_host_standin: the keys and values are read to
 * the host, sorted there by a stable LSD radix sort, and written back. The result is the same
 * (a stable sort is unique); only the time differs, and clperm_dist_stats counts it as local
 * work. */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

uint64_t clperm__dist_key_order(clperm_key_type type, const void *keys, uint64_t i) {
    uint32_t k32;
    uint64_t k64;
    switch (type) {
    case CLPERM_KEY_U32: memcpy(&k32, (const char *)keys + i * 4, 4); return k32;
    case CLPERM_KEY_I32: memcpy(&k32, (const char *)keys + i * 4, 4); return k32 ^ 0x80000000u;
    case CLPERM_KEY_F32:
        memcpy(&k32, (const char *)keys + i * 4, 4);
        return (k32 & 0x80000000u) ? (uint32_t)~k32 : (k32 | 0x80000000u);
    case CLPERM_KEY_U64: memcpy(&k64, (const char *)keys + i * 8, 8); return k64;
    default: return 0;
    }
}

typedef struct order_pos {
    uint64_t order, pos;
} order_pos;

/* Stable LSD radix sort of a[0 .. n) by the low `bits` bits of order, 8 bits a pass; tmp holds
 * n more. The result is in a. */
static void radix_sort(order_pos *a, order_pos *tmp, uint64_t n, unsigned bits) {
    for (unsigned shift = 0; shift < bits; shift += 8) {
        uint64_t count[257] = {0};
        for (uint64_t i = 0; i < n; i++) count[((a[i].order >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (uint64_t i = 0; i < n; i++) tmp[count[(a[i].order >> shift) & 0xff]++] = a[i];
        order_pos *t = a;
        a = tmp;
        tmp = t;
    }
    /* After an odd number of passes the result is in the caller's tmp. */
    if (((bits + 7) / 8) % 2) memcpy(tmp, a, (size_t)n * sizeof *a);
}

/* Items of `bytes` each, put in the order of pos: out[t] = in[pos[t]]. */
static void permute(const unsigned char *in, unsigned char *out, const order_pos *p, uint64_t n, size_t bytes) {
    for (uint64_t t = 0; t < n; t++) memcpy(out + (size_t)t * bytes, in + (size_t)p[t].pos * bytes, bytes);
}

static clperm_status sort_host_standin(clperm_dist *d, const clperm__dist_sort_step *s) {
    clperm_status st = CLPERM_SUCCESS;
    size_t ks = clperm_key_size(s->key_type), vs = s->value_type ? clperm_type_size(s->value_type) : 0;
    CLPERM_RETURN_IF(ks == 0 || (s->value_type && vs == 0), CLPERM_ERROR_INVALID_TYPE);
    if (s->n < 2) return CLPERM_SUCCESS;
    CLPERM_RETURN_IF(s->n > SIZE_MAX / (2 * sizeof(order_pos)), CLPERM_ERROR_SIZE_OVERFLOW);
    size_t n = (size_t)s->n;
    unsigned bits = s->bits ? s->bits : (unsigned)(8 * ks);
    order_pos *a = malloc(n * sizeof *a), *tmp = malloc(n * sizeof *tmp);
    unsigned char *in = malloc(n * (ks > vs ? ks : vs)), *out = malloc(n * (ks > vs ? ks : vs));
    if (!a || !tmp || !in || !out) {
        st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
        goto cleanup;
    }
    CLPERM_CHECK(clperm__dist_read(d, s->keys, 0, n * ks, in));
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    for (size_t i = 0; i < n; i++) {
        a[i].order = clperm__dist_key_order(s->key_type, in, i) & mask;
        a[i].pos = i;
    }
    radix_sort(a, tmp, n, bits);
    permute(in, out, a, n, ks);
    CLPERM_CHECK(clperm__dist_write(d, s->keys, 0, n * ks, out));
    if (vs) {
        CLPERM_CHECK(clperm__dist_read(d, s->values, 0, n * vs, in));
        permute(in, out, a, n, vs);
        CLPERM_CHECK(clperm__dist_write(d, s->values, 0, n * vs, out));
    }
cleanup:
    free(a);
    free(tmp);
    free(in);
    free(out);
    return st;
}

clperm_status clperm__dist_sort_local(clperm_dist *d, const clperm__dist_sort_step *s) {
    clperm_status st = clFinish(d->queue);
    double t0 = MPI_Wtime();
    if (st == CLPERM_SUCCESS) st = sort_host_standin(d, s);
    if (st == CLPERM_SUCCESS) st = clFinish(d->queue);
    d->stats.sort_seconds += MPI_Wtime() - t0;
    return st;
}
