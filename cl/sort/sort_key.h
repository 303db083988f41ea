/*
 * The order-preserving form of a sort key (clperm_features.h, CLPERM_KEY_ORDER), for the host
 * (src/sort) and the kernels (cl/sort): the masks of a key kind, ascending or descending.
 * Compiles as C99 and as OpenCL C, after clperm_features.h. The sort orders by the bits [lo, hi)
 * of the form; a digit is `bits` of them from `shift` up.
 */
#ifndef CLPERM_SORT_KEY_H
#define CLPERM_SORT_KEY_H

#ifndef __OPENCL_C_VERSION__
/* The masks for a key kind (a clperm_key_type); 0 for an unknown kind. */
static inline int clperm__sort_key_masks(int kind, int descending, uint64_t *pos_xor, uint64_t *neg_xor) {
    if (kind < CLPERM_KEYKIND_U32 || kind > CLPERM_KEYKIND_LAST) return 0;
    uint64_t flip = descending ? CLPERM_KEY_ALL(kind) : 0;
    *pos_xor = CLPERM_KEY_POS_XOR(kind) ^ flip;
    *neg_xor = CLPERM_KEY_NEG_XOR(kind) ^ flip;
    return 1;
}
#endif

#endif /* CLPERM_SORT_KEY_H */
