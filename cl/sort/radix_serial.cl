/*
 * Device-wide LSD radix sort, serial kernels for CPUs: one work-item per work-group, each taking a
 * block of `block` consecutive keys with its counters in private memory, no barriers. Compiled
 * after cl/sort/sort_key.h and cl/sort/radix_types.h; the same arguments as the reduce-then-scan
 * kernels of radix.cl, so the host runs both the same way.
 *
 *   clperm_radix_count    counts[d * blocks + b] = the keys of digit d in block b
 *   clperm_radix_scatter  block b's keys (and values) in input order to the places the scanned
 *                         counts give: a stable scatter
 *   clperm_radix_segments one segment of the segmented sort per work-item: an insertion sort up
 *                         to SORT_SHORT keys, else LSD radix passes through tkeys (and tvals)
 *
 * CLPERM_SORT_WC_MIN (compilers that take clang's __builtin_nontemporal_store): from n of that
 * many keys on, the scatter writes through lines of its own (sort_scatter_wc).
 */
#ifdef CLPERM_SORT_WC_MIN
#define CLPERM_SORT_WC 1
#else
#define CLPERM_SORT_WC 0
#endif
#define SORT_DIGIT(k) ((uint)(SORT_ORDER((k), px, nx) >> shift) & mask)

/* Key i of a block that starts at begin: in label programs drawn, a word of labels per eight
 * items (*w), else read. */
inline sort_key sort_block_key(const __global sort_key *kin, ulong begin, ulong i, ulong *w, sort_key px, sort_key nx) {
#if CLPERM_SORT_LABELS
    (void)kin;
    if (i == begin || (i & 7u) == 0) *w = clperm__bucket_label_word(SORT_LABEL_KEY(px, nx), i >> 3);
    return (sort_key)clperm__bucket_label_of(*w, i);
#else
    (void)begin, (void)w, (void)px, (void)nx;
    return kin[i];
#endif
}

/* Keys [begin, end) of kin (and their values; with iota, their positions) in order to kout
 * (vout) at o[digit]++: a stable scatter. */
inline void sort_scatter_run(const __global sort_key *kin, __global sort_key *kout, const __global sort_val *vin,
                             __global sort_val *vout, ulong begin, ulong end, ulong *o, sort_key px, sort_key nx,
                             uint shift, uint mask, uint iota) {
    (void)vin, (void)vout, (void)iota;
    ulong w = 0; /* label programs: the labels of i's eight */
    for (ulong i = begin; i < end; i++) {
        sort_key k = sort_block_key(kin, begin, i, &w, px, nx);
        ulong p = o[SORT_DIGIT(k)]++;
        if (!CLPERM_SORT_LABELS) kout[p] = k;
#if CLPERM_SORT_VALUE_BYTES
        vout[p] = iota ? (sort_val)i : vin[i];
#endif
    }
}

#if CLPERM_SORT_WC
/* Software write-combining: the places of each digit go through a 64-byte line in private memory,
 * and a line whose places are all the block's goes out whole, past the caches, once its last place
 * is filled. A CPU's scatter to 2^bits streams otherwise reads each line before writing it and
 * holds its later stores behind that read. Lines the block shares with its neighbours, and lines
 * of a buffer not aligned to 64 bytes, go out place by place. */
#define SORT_WC_DEFINE(NAME, T)                                                                             \
    inline void NAME##_put(ulong8 *line, ulong first, int aligned, __global T *out, ulong p, T v) {          \
        const uint per = 64 / sizeof(T);                                                                   \
        ((T *)line)[p % per] = v;                                                                          \
        if (p % per != per - 1) return;                                                                    \
        const ulong b = p + 1 - per;                                                                       \
        if (b >= first && aligned)                                                                         \
            __builtin_nontemporal_store(*line, (__global ulong8 *)(out + b));                              \
        else                                                                                               \
            for (ulong q = b >= first ? b : first; q <= p; q++) out[q] = ((T *)line)[q % per];             \
    }                                                                                                      \
    inline void NAME##_end(ulong8 *line, ulong first, __global T *out, ulong end) {                        \
        const uint per = 64 / sizeof(T);                                                                  \
        for (ulong q = end - end % per > first ? end - end % per : first; q < end; q++)                    \
            out[q] = ((T *)line)[q % per];                                                                 \
    }
#if !CLPERM_SORT_LABELS
SORT_WC_DEFINE(sort_wc_key, sort_key)
#endif
#if CLPERM_SORT_VALUE_BYTES
SORT_WC_DEFINE(sort_wc_val, sort_val)
#endif

/* sort_scatter_run through the lines. */
inline void sort_scatter_wc(const __global sort_key *kin, __global sort_key *kout, const __global sort_val *vin,
                            __global sort_val *vout, ulong begin, ulong end, ulong *o, sort_key px, sort_key nx,
                            uint shift, uint mask, uint iota) {
    (void)kin, (void)kout, (void)vin, (void)vout, (void)iota;
    ulong first[SORT_R];
    for (uint d = 0; d < SORT_R; d++) first[d] = o[d];
    ulong w = 0; /* label programs: the labels of i's eight */
#if !CLPERM_SORT_LABELS
    ulong8 kline[SORT_R];
    const int kaligned = (ulong)kout % 64 == 0;
#endif
#if CLPERM_SORT_VALUE_BYTES
    ulong8 vline[SORT_R];
    const int valigned = (ulong)vout % 64 == 0;
#endif
    for (ulong i = begin; i < end; i++) {
        const sort_key k = sort_block_key(kin, begin, i, &w, px, nx);
        const uint d = SORT_DIGIT(k);
        const ulong p = o[d]++;
#if !CLPERM_SORT_LABELS
        sort_wc_key_put(&kline[d], first[d], kaligned, kout, p, k);
#endif
#if CLPERM_SORT_VALUE_BYTES
        sort_wc_val_put(&vline[d], first[d], valigned, vout, p, iota ? (sort_val)i : vin[i]);
#endif
    }
    for (uint d = 0; d < SORT_R; d++) {
#if !CLPERM_SORT_LABELS
        sort_wc_key_end(&kline[d], first[d], kout, o[d]);
#endif
#if CLPERM_SORT_VALUE_BYTES
        sort_wc_val_end(&vline[d], first[d], vout, o[d]);
#endif
    }
    /* The lines' stores are weakly ordered: all of them before the kernel ends. */
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}
#endif

/* Four counter sets, one per key of a group of four, so that keys of one digit in a row do not
 * wait on each other's increments. */
__kernel void clperm_radix_count(const __global sort_key *keys, ulong off, ulong n, ulong pos_xor, ulong neg_xor,
                                 uint shift, uint bits, __global sort_count *counts, uint blocks, ulong block) {
    const uint b = (uint)get_group_id(0), mask = (1u << bits) - 1u;
    const sort_key px = (sort_key)pos_xor, nx = (sort_key)neg_xor;
    const ulong begin = (ulong)b * block, end = min(n, begin + block);
    uint h[4][SORT_R];
    for (uint d = 0; d < SORT_R; d++) h[0][d] = h[1][d] = h[2][d] = h[3][d] = 0;
    keys += off;
    ulong i = begin;
#if CLPERM_SORT_LABELS
    /* A word of labels per eight items (clperm__bucket_label_word). */
    for (; i < end && (i & 7u); i++) h[0][SORT_DIGIT(SORT_KEY_AT(keys, i, px, nx))]++;
    for (; i + 8 <= end; i += 8) {
        const ulong w = clperm__bucket_label_word(SORT_LABEL_KEY(px, nx), i >> 3);
        for (uint b = 0; b < 8; b++) h[b & 3][SORT_DIGIT((sort_key)clperm__bucket_label_of(w, b))]++;
    }
#endif
    for (; i + 4 <= end; i += 4) {
        sort_key k0 = SORT_KEY_AT(keys, i, px, nx), k1 = SORT_KEY_AT(keys, i + 1, px, nx),
                 k2 = SORT_KEY_AT(keys, i + 2, px, nx), k3 = SORT_KEY_AT(keys, i + 3, px, nx);
        h[0][SORT_DIGIT(k0)]++;
        h[1][SORT_DIGIT(k1)]++;
        h[2][SORT_DIGIT(k2)]++;
        h[3][SORT_DIGIT(k3)]++;
    }
    for (; i < end; i++) h[0][SORT_DIGIT(SORT_KEY_AT(keys, i, px, nx))]++;
    for (uint d = 0; d < SORT_R; d++) counts[(ulong)d * blocks + b] = h[0][d] + h[1][d] + h[2][d] + h[3][d];
}

__kernel void clperm_radix_scatter(const __global sort_key *kin, __global sort_key *kout, const __global sort_val *vin,
                                   __global sort_val *vout, ulong off, ulong n, ulong pos_xor, ulong neg_xor,
                                   uint shift, uint bits, uint label_xor, const __global sort_count *offsets,
                                   uint blocks, ulong block, uint iota) {
    const uint b = (uint)get_group_id(0), mask = (1u << bits) - 1u;
    const sort_key px = (sort_key)pos_xor, nx = (sort_key)neg_xor;
    const ulong begin = (ulong)b * block, end = min(n, begin + block);
    ulong o[SORT_R];
    (void)label_xor;
    for (uint d = 0; d < SORT_R; d++) o[d] = offsets[(ulong)d * blocks + b];
#if CLPERM_SORT_WC
    if (n >= CLPERM_SORT_WC_MIN) {
        sort_scatter_wc(kin + off, kout + off, vin + off, vout + off, begin, end, o, px, nx, shift, mask, iota);
        return;
    }
#endif
    sort_scatter_run(kin + off, kout + off, vin + off, vout + off, begin, end, o, px, nx, shift, mask, iota);
}

#if !CLPERM_SORT_LABELS
#define SORT_SHORT 32

/* Work-item g sorts keys [list[2e], list[2e] + list[2e + 1]), e = first + g, by the bits
 * [lo, hi) of their order-preserving form, stably. */
__kernel void clperm_radix_segments(__global sort_key *keys, __global sort_key *tkeys, __global sort_val *vals,
                                    __global sort_val *tvals, const __global ulong *list, ulong first, ulong pos_xor,
                                    ulong neg_xor, uint lo, uint hi) {
    const sort_key px = (sort_key)pos_xor, nx = (sort_key)neg_xor;
    list += 2 * (first + get_group_id(0));
    const ulong base = list[0], len = list[1];
    keys += base;
    tkeys += base;
    vals += base;
    tvals += base;
    if (len <= SORT_SHORT) {
        const sort_key fmask = hi - lo == SORT_KEY_BITS ? (sort_key)~(sort_key)0 : (((sort_key)1 << (hi - lo)) - 1);
        for (uint i = 1; i < (uint)len; i++) {
            sort_key k = keys[i], f = (CLPERM_KEY_ORDER(k, SORT_KEY_BITS, px, nx) >> lo) & fmask;
#if CLPERM_SORT_VALUE_BYTES
            sort_val v = vals[i];
#endif
            uint j = i;
            for (; j > 0; j--) {
                sort_key o = keys[j - 1];
                if (((CLPERM_KEY_ORDER(o, SORT_KEY_BITS, px, nx) >> lo) & fmask) <= f) break;
                keys[j] = o;
#if CLPERM_SORT_VALUE_BYTES
                vals[j] = vals[j - 1];
#endif
            }
            keys[j] = k;
#if CLPERM_SORT_VALUE_BYTES
            vals[j] = v;
#endif
        }
        return;
    }
    __global sort_key *kb[2] = {keys, tkeys};
    __global sort_val *vb[2] = {vals, tvals};
    uint pass = 0;
    for (uint shift = lo; shift < hi; shift += CLPERM_SORT_BITS, pass++) {
        const uint bits = min((uint)CLPERM_SORT_BITS, hi - shift), mask = (1u << bits) - 1u;
        __global sort_key *kin = kb[pass & 1], *kout = kb[!(pass & 1)];
        __global sort_val *vin = vb[pass & 1], *vout = vb[!(pass & 1)];
        ulong o[SORT_R];
        for (uint d = 0; d < SORT_R; d++) o[d] = 0;
        for (ulong i = 0; i < len; i++) o[SORT_DIGIT(kin[i])]++;
        ulong run = 0;
        for (uint d = 0; d < SORT_R; d++) {
            ulong c = o[d];
            o[d] = run;
            run += c;
        }
        sort_scatter_run(kin, kout, vin, vout, 0, len, o, px, nx, shift, mask, 0);
    }
    if (pass & 1)
        for (ulong i = 0; i < len; i++) {
            keys[i] = tkeys[i];
#if CLPERM_SORT_VALUE_BYTES
            vals[i] = tvals[i];
#endif
        }
}
#endif
