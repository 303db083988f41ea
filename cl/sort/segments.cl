/*
 * The segmented sort's look at its segments, before anything is sorted: one work-item per
 * segment i, keys [offsets[i], offsets[i + 1]).
 *
 * Required: CLPERM_SEG_OFFSET64 (0: u32 offsets, 1: u64), CLPERM_WG_SIZE.
 *
 * A segment's class: 0 for fewer than two keys (nothing to sort); c in 1 .. tile_classes for
 * 2^(c-1) < length <= 2^c (a tile sort of segments of 2^c); tile_classes + 1 for longer ones up
 * to `huge` (a work-group each); tile_classes + 2 above (the device-wide sort).
 *
 * hdr, u32 words: [0] 1 when some offset decreases or passes n; [1] 1 when the segments are not
 * all as long as the first; [2 + c] the segments of class c; [2 + SEG_CLASSES + c] the fill's
 * counters; as u64 at word 2 + 2 * SEG_CLASSES (8-byte aligned): offsets[0] and the first
 * segment's length. The host zeroes it before clperm_seg_classify.
 */
#ifndef CLPERM_SEG_OFFSET64
#error "CLPERM_SEG_OFFSET64 must be defined"
#endif
#if CLPERM_SEG_OFFSET64
typedef ulong seg_offset;
#else
typedef uint seg_offset;
#endif
#define SEG_CLASSES 32

inline uint seg_class(ulong len, uint tile_classes, ulong huge) {
    if (len < 2) return 0;
    if (len > huge) return tile_classes + 2;
    if (len > (1ul << tile_classes)) return tile_classes + 1;
    return 64u - (uint)clz(len - 1); /* ceil(log2(len)) */
}

__kernel __attribute__((reqd_work_group_size(CLPERM_WG_SIZE, 1, 1))) void
clperm_seg_classify(const __global seg_offset *offsets, ulong count, ulong n, uint tile_classes, ulong huge,
                    __global uint *hdr) {
    __local uint lc[SEG_CLASSES];
    const uint lid = (uint)get_local_id(0);
    const ulong i = get_global_id(0);
    for (uint c = lid; c < SEG_CLASSES; c += CLPERM_WG_SIZE) lc[c] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < count) {
        ulong a = offsets[i], b = offsets[i + 1], f0 = offsets[0], f1 = offsets[1];
        if (b < a || b > n) {
            atomic_or(&hdr[0], 1u);
        } else {
            atomic_inc(&lc[seg_class(b - a, tile_classes, huge)]);
            if (b - a != f1 - f0) atomic_or(&hdr[1], 1u);
        }
        if (i == 0) {
            __global ulong *h64 = (__global ulong *)(hdr + 2 + 2 * SEG_CLASSES);
            h64[0] = f0;
            h64[1] = f1 - f0;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = lid; c < SEG_CLASSES; c += CLPERM_WG_SIZE)
        if (lc[c]) atomic_add(&hdr[2 + c], lc[c]);
}

/* The lists: each class's segments, classes 1 .. tile_classes + 2 one after another, two u64
 * per segment (first key, length), in no particular order within a class. */
__kernel __attribute__((reqd_work_group_size(CLPERM_WG_SIZE, 1, 1))) void
clperm_seg_fill(const __global seg_offset *offsets, ulong count, uint tile_classes, ulong huge, __global uint *hdr,
                __global ulong *list) {
    const ulong i = get_global_id(0);
    if (i >= count) return;
    ulong a = offsets[i], len = offsets[i + 1] - a;
    uint c = seg_class(len, tile_classes, huge);
    if (c == 0) return;
    ulong at = 0;
    for (uint k = 1; k < c; k++) at += hdr[2 + k];
    at += atomic_inc(&hdr[2 + SEG_CLASSES + c]);
    list[2 * at] = a;
    list[2 * at + 1] = len;
}
