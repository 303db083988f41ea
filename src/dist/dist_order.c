/* The one local sort the distributed shuffle and sort take their order from: clperm_sort, the
 * device-wide stable sort, on the rank's own device. */
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

clperm_status clperm__dist_sort_local(clperm_dist *d, const clperm__dist_sort_step *s) {
    clperm_status st = clFinish(d->queue);
    double t0 = MPI_Wtime();
    clperm_sort_request req = {s->key_type, s->keys, s->value_type, s->value_type ? s->values : NULL, s->n,
                               {0, 0, s->bits}, NULL, NULL};
    if (st == CLPERM_SUCCESS && s->n >= 2) st = clperm_sort(d->ctx, &req, 0, NULL, NULL); /* 0 or 1: sorted */
    if (st == CLPERM_SUCCESS) st = clFinish(d->queue);
    d->stats.sort_seconds += MPI_Wtime() - t0;
    return st;
}
