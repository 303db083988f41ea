/*
 * The order-preserving form of a sort key, for the host (src/sort) and the kernels (cl/sort): the
 * key's bits XORed with one mask when its sign bit is clear and another when it is set, then
 * compared as unsigned numbers. Compiles as C99 and as OpenCL C.
 *
 *   u32, u64  both masks 0                     (descending: all ones)
 *   i32, i64  both masks the sign bit          (the sign bit flipped)
 *   f32, f64  clear: the sign bit, set: all ones (IEEE 754 totalOrder: -NaN < -inf < ... < -0.0
 *             < +0.0 < ... < +inf < +NaN, NaNs by their bits)
 *
 * Descending is the same with every bit of both masks flipped. The sort orders by the bits
 * [lo, hi) of this form; a digit is `bits` of them from `shift` up.
 */
#ifndef CLPERM_SORT_KEY_H
#define CLPERM_SORT_KEY_H

/* The order-preserving form of key k (an unsigned integer of `width` bits, 32 or 64). */
#define CLPERM_SORT_ORDER(k, width, pos_xor, neg_xor) ((k) ^ (((k) >> ((width) - 1)) ? (neg_xor) : (pos_xor)))

#ifndef __OPENCL_C_VERSION__
#include <stdint.h>

/* The masks for a key kind (clperm_key_type: 1 u32, 2 i32, 3 f32, 4 u64, 5 i64, 6 f64); 0 for an
 * unknown kind. */
static inline int clperm__sort_key_masks(int kind, int descending, uint64_t *pos_xor, uint64_t *neg_xor) {
    unsigned width = kind >= 4 && kind <= 6 ? 64 : 32;
    uint64_t all = width == 64 ? ~(uint64_t)0 : 0xFFFFFFFFu, sign = (uint64_t)1 << (width - 1);
    uint64_t flip = descending ? all : 0;
    switch (kind) {
    case 1:
    case 4: *pos_xor = *neg_xor = flip; break;
    case 2:
    case 5: *pos_xor = *neg_xor = sign ^ flip; break;
    case 3:
    case 6:
        *pos_xor = sign ^ flip;
        *neg_xor = all ^ flip;
        break;
    default: return 0;
    }
    return 1;
}
#endif

#endif /* CLPERM_SORT_KEY_H */
