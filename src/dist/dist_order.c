/* The one local sort the distributed shuffle and sort take their order from: clperm_sort, the
 * device-wide stable sort, on the rank's own device. */
#include <string.h>

#include "dist_internal.h"

uint64_t clperm__dist_key_order(clperm_key_type type, const void *keys, uint64_t i) {
    if (type < CLPERM_KEY_U32 || type > CLPERM_KEY_F64) return 0;
    uint64_t k = 0;
    if (CLPERM_KEY_BITS(type) == 32) {
        uint32_t k32;
        memcpy(&k32, (const char *)keys + i * 4, 4);
        k = k32;
    } else {
        memcpy(&k, (const char *)keys + i * 8, 8);
    }
    return CLPERM_KEY_ORDER(k, CLPERM_KEY_BITS(type), CLPERM_KEY_POS_XOR(type), CLPERM_KEY_NEG_XOR(type)) &
           CLPERM_KEY_ALL(type);
}

clperm_status clperm__dist_sort_local(clperm_dist *d, const clperm__dist_sort_step *s) {
    clperm_status st = clFinish(d->queue);
    double t0 = MPI_Wtime();
    clperm_sort_request req = {s->key_type, s->keys, s->value_type, s->value_type ? s->values : NULL, s->n,
                               {0, 0, s->bits}, NULL, NULL, 0};
    if (st == CLPERM_SUCCESS && s->n >= 2) st = clperm_sort(d->ctx, &req, 0, NULL, NULL); /* 0 or 1: sorted */
    if (st == CLPERM_SUCCESS) st = clFinish(d->queue);
    d->stats.sort_seconds += MPI_Wtime() - t0;
    return st;
}
