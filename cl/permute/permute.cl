/*
 * Offline permutations (Kasagi, Nakano, Ito): the conventional ones from an index array, and the
 * regular ones (transpose, bit-reversal, perfect shuffle) through a local tile.
 *
 *   clperm_permute_scatter       destination-designated: dst[p[i]] = src[i]
 *   clperm_permute_gather        source-designated: dst[i] = src[q[i]]
 *   clperm_transpose_tiled       a rows x cols matrix, one 32 x 32 tile per work-group
 *   clperm_bit_reversal_tiled    2^k items (k >= 10), one tile of 32 x 32 per work-group
 *   clperm_shuffle_tiled         perfect shuffle of 2^k items (k >= 10), 1024 per work-group
 *   clperm_unshuffle_tiled       its inverse
 *   clperm_bit_reversal_direct   the same permutations with one work-item per item, no tile: for
 *   clperm_shuffle_direct        2^k < 1024 items
 *
 * A tile of 32 x 32 items is read from global memory a row of 32 items at a time, whole aligned
 * segments, and written the same way. In local memory item (r, c) lies at r*32 + (r + c) mod 32,
 * the diagonal arrangement: the 32 items of a tile row and the 32 of a tile column lie in 32
 * distinct banks, and so do any 2^s consecutive ones in 2^s banks. CLPERM_PM_NAIVE 1 uses the
 * plain r*32 + c instead (the failing case of the conflict check).
 *
 * Required: CLPERM_PM_ITEM (uint, ulong, uint4) and, for the conventional kernels,
 * CLPERM_PM_INDEX (uint or ulong). CLPERM_PM_W: the items' bank count (32 four-byte banks hold
 * 128 / sizeof(item) items a row), used by the shuffle's layout.
 */
#ifndef CLPERM_PM_NAIVE
#define CLPERM_PM_NAIVE 0
#endif
#ifndef CLPERM_PM_W
#define CLPERM_PM_W 32
#endif

#define PM_TW 32
#define PM_WG_ROWS 8
#define PM_WG (PM_TW * PM_WG_ROWS)
#define PM_ATTRS __attribute__((reqd_work_group_size(PM_WG, 1, 1)))

#if CLPERM_PM_NAIVE
#define PM_DIAG(r, c) ((r) * PM_TW + (c))
#else
#define PM_DIAG(r, c) ((r) * PM_TW + (((r) + (c)) & (PM_TW - 1)))
#endif

#ifdef CLPERM_PM_INDEX
typedef CLPERM_PM_INDEX pm_index;

__kernel void clperm_permute_scatter(__global const pm_item *src, __global pm_item *dst,
                                     __global const pm_index *p, ulong n) {
    ulong i = get_global_id(0);
    if (i >= n) return;
    ulong d = p[i];
    if (d < n) dst[d] = src[i];
}

__kernel void clperm_permute_gather(__global const pm_item *src, __global pm_item *dst,
                                    __global const pm_index *q, ulong n) {
    ulong i = get_global_id(0);
    if (i >= n) return;
    ulong s = q[i];
    if (s < n) dst[i] = src[s];
}
#endif

/* Bytes reversed bit by bit. (A table rather than shifts and masks: compilers turn those into a
 * bit-reverse intrinsic that some OpenCL implementations, Oclgrind among them, cannot run.) */
__constant uchar pm_rev8[256] = {
    0x00, 0x80, 0x40, 0xc0, 0x20, 0xa0, 0x60, 0xe0, 0x10, 0x90, 0x50, 0xd0, 0x30, 0xb0, 0x70, 0xf0,
    0x08, 0x88, 0x48, 0xc8, 0x28, 0xa8, 0x68, 0xe8, 0x18, 0x98, 0x58, 0xd8, 0x38, 0xb8, 0x78, 0xf8,
    0x04, 0x84, 0x44, 0xc4, 0x24, 0xa4, 0x64, 0xe4, 0x14, 0x94, 0x54, 0xd4, 0x34, 0xb4, 0x74, 0xf4,
    0x0c, 0x8c, 0x4c, 0xcc, 0x2c, 0xac, 0x6c, 0xec, 0x1c, 0x9c, 0x5c, 0xdc, 0x3c, 0xbc, 0x7c, 0xfc,
    0x02, 0x82, 0x42, 0xc2, 0x22, 0xa2, 0x62, 0xe2, 0x12, 0x92, 0x52, 0xd2, 0x32, 0xb2, 0x72, 0xf2,
    0x0a, 0x8a, 0x4a, 0xca, 0x2a, 0xaa, 0x6a, 0xea, 0x1a, 0x9a, 0x5a, 0xda, 0x3a, 0xba, 0x7a, 0xfa,
    0x06, 0x86, 0x46, 0xc6, 0x26, 0xa6, 0x66, 0xe6, 0x16, 0x96, 0x56, 0xd6, 0x36, 0xb6, 0x76, 0xf6,
    0x0e, 0x8e, 0x4e, 0xce, 0x2e, 0xae, 0x6e, 0xee, 0x1e, 0x9e, 0x5e, 0xde, 0x3e, 0xbe, 0x7e, 0xfe,
    0x01, 0x81, 0x41, 0xc1, 0x21, 0xa1, 0x61, 0xe1, 0x11, 0x91, 0x51, 0xd1, 0x31, 0xb1, 0x71, 0xf1,
    0x09, 0x89, 0x49, 0xc9, 0x29, 0xa9, 0x69, 0xe9, 0x19, 0x99, 0x59, 0xd9, 0x39, 0xb9, 0x79, 0xf9,
    0x05, 0x85, 0x45, 0xc5, 0x25, 0xa5, 0x65, 0xe5, 0x15, 0x95, 0x55, 0xd5, 0x35, 0xb5, 0x75, 0xf5,
    0x0d, 0x8d, 0x4d, 0xcd, 0x2d, 0xad, 0x6d, 0xed, 0x1d, 0x9d, 0x5d, 0xdd, 0x3d, 0xbd, 0x7d, 0xfd,
    0x03, 0x83, 0x43, 0xc3, 0x23, 0xa3, 0x63, 0xe3, 0x13, 0x93, 0x53, 0xd3, 0x33, 0xb3, 0x73, 0xf3,
    0x0b, 0x8b, 0x4b, 0xcb, 0x2b, 0xab, 0x6b, 0xeb, 0x1b, 0x9b, 0x5b, 0xdb, 0x3b, 0xbb, 0x7b, 0xfb,
    0x07, 0x87, 0x47, 0xc7, 0x27, 0xa7, 0x67, 0xe7, 0x17, 0x97, 0x57, 0xd7, 0x37, 0xb7, 0x77, 0xf7,
    0x0f, 0x8f, 0x4f, 0xcf, 0x2f, 0xaf, 0x6f, 0xef, 0x1f, 0x9f, 0x5f, 0xdf, 0x3f, 0xbf, 0x7f, 0xff,
};

/* The low `bits` bits of x reversed (bits <= 64; 0 gives 0). */
inline ulong pm_rev(ulong x, uint bits) {
    ulong r = 0;
    for (uint b = 0; b < 64; b += 8) r = (r << 8) | pm_rev8[(x >> b) & 255];
    return bits ? r >> (64 - bits) : 0;
}

inline uint pm_rev5(uint x) { return (uint)pm_rev8[x] >> 3; }

/* Tile t = (tr, tc) of a rows x cols matrix: rows of the tile read in whole segments, columns
 * written in whole segments of the cols x rows result. */
__kernel PM_ATTRS void clperm_transpose_tiled(__global const pm_item *src, __global pm_item *dst, ulong rows,
                                              ulong cols, ulong tiles_c PM_TRACE_PARAMS) {
    __local pm_item tile[PM_TW * PM_TW];
    const uint lane = get_local_id(0) % PM_TW, wrow = get_local_id(0) / PM_TW;
    const ulong t = get_group_id(0), tr = t / tiles_c, tc = t - tr * tiles_c;
    PM_TRACE_BEGIN;
    for (uint r = wrow; r < PM_TW; r += PM_WG_ROWS) {
        ulong gr = tr * PM_TW + r, gc = tc * PM_TW + lane;
        if (gr < rows && gc < cols)
            PM_ST(tile, PM_DIAG(r, lane), src[gr * cols + gc]);
        else
            PM_SKIP();
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = wrow; r < PM_TW; r += PM_WG_ROWS) {
        ulong orow = tc * PM_TW + r, ocol = tr * PM_TW + lane;
        if (orow < cols && ocol < rows)
            dst[orow * rows + ocol] = PM_LD(tile, PM_DIAG(lane, r));
        else
            PM_SKIP();
    }
    PM_TRACE_END;
}

/* Index i of 2^k items = (hi: 5 bits, mid: k - 10 bits, lo: 5 bits); rev(i) = (rev lo, rev mid,
 * rev hi). The work-group of mid reads the 32 x 32 tile (hi, lo) a row hi at a time and writes
 * its columns: column lo is the output segment (rev lo, rev mid, *), lane l writing the item of
 * row l at position rev5(l) of the segment. */
__kernel PM_ATTRS void clperm_bit_reversal_tiled(__global const pm_item *src, __global pm_item *dst,
                                                 uint k PM_TRACE_PARAMS) {
    __local pm_item tile[PM_TW * PM_TW];
    const uint lane = get_local_id(0) % PM_TW, wrow = get_local_id(0) / PM_TW;
    const ulong mid = get_group_id(0), rmid = pm_rev(mid, k - 10);
    PM_TRACE_BEGIN;
    for (uint r = wrow; r < PM_TW; r += PM_WG_ROWS)
        PM_ST(tile, PM_DIAG(r, lane), src[((ulong)r << (k - 5)) | (mid << 5) | lane]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = wrow; r < PM_TW; r += PM_WG_ROWS)
        dst[((ulong)pm_rev5(r) << (k - 5)) | (rmid << 5) | pm_rev5(lane)] = PM_LD(tile, PM_DIAG(lane, r));
    PM_TRACE_END;
}

/* The perfect shuffle's output block m (1024 items) interleaves source runs m of the two halves:
 * dst[1024m + 2x + h] = src[h * 2^(k-1) + 512m + x]. Item e = 2x + h of the block lies at
 * h * PM_HALF + x in local memory: the runs are read into consecutive words, and the block is
 * written from words whose banks, for 2^s consecutive e, are (e & 1) * (w/2) + (e >> 1) + const
 * modulo w: distinct, since PM_HALF = 512 + w/2. */
#if CLPERM_PM_NAIVE
#define PM_HALF 512
#define PM_SH(e) (e)
#define PM_SHX(h, x) (2 * (x) + (h))
#else
#define PM_HALF (512 + CLPERM_PM_W / 2)
#define PM_SH(e) (((e) & 1u) * PM_HALF + ((e) >> 1))
#define PM_SHX(h, x) ((h) * PM_HALF + (x))
#endif

__kernel PM_ATTRS void clperm_shuffle_tiled(__global const pm_item *src, __global pm_item *dst,
                                            uint k PM_TRACE_PARAMS) {
    __local pm_item buf[PM_HALF + 512];
    const uint lid = get_local_id(0);
    const ulong m = get_group_id(0);
    PM_TRACE_BEGIN;
    for (uint i = lid; i < 1024; i += PM_WG) {
        uint h = i >> 9, x = i & 511;
        PM_ST(buf, PM_SHX(h, x), src[((ulong)h << (k - 1)) | (m * 512 + x)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint e = lid; e < 1024; e += PM_WG) dst[m * 1024 + e] = PM_LD(buf, PM_SH(e));
    PM_TRACE_END;
}

__kernel PM_ATTRS void clperm_unshuffle_tiled(__global const pm_item *src, __global pm_item *dst,
                                              uint k PM_TRACE_PARAMS) {
    __local pm_item buf[PM_HALF + 512];
    const uint lid = get_local_id(0);
    const ulong m = get_group_id(0);
    PM_TRACE_BEGIN;
    for (uint e = lid; e < 1024; e += PM_WG) PM_ST(buf, PM_SH(e), src[m * 1024 + e]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < 1024; i += PM_WG) {
        uint h = i >> 9, x = i & 511;
        dst[((ulong)h << (k - 1)) | (m * 512 + x)] = PM_LD(buf, PM_SHX(h, x));
    }
    PM_TRACE_END;
}

__kernel void clperm_bit_reversal_direct(__global const pm_item *src, __global pm_item *dst, uint k) {
    ulong i = get_global_id(0);
    if (i < ((ulong)1 << k)) dst[pm_rev(i, k)] = src[i];
}

/* inverse 0: dst[rotl_k(i)] = src[i]; 1: dst[rotr_k(i)] = src[i]. */
__kernel void clperm_shuffle_direct(__global const pm_item *src, __global pm_item *dst, uint k, uint inverse) {
    ulong i = get_global_id(0), n = (ulong)1 << k;
    if (i >= n) return;
    ulong d = k == 0 ? 0 : inverse ? (i >> 1) | ((i & 1) << (k - 1)) : ((i << 1) | (i >> (k - 1))) & (n - 1);
    dst[d] = src[i];
}

/* The same tiles moved straight from src to dst, no local memory: for CPUs, whose caches block
 * the tile (kernel choice CLPERM_PARAM_PERMUTE_KERNEL 2). Work-items write whole output
 * segments and gather their inputs (vector gathers exist, vector scatters mostly do not). */
__kernel PM_ATTRS void clperm_transpose_blocked(__global const pm_item *src, __global pm_item *dst, ulong rows,
                                                ulong cols, ulong tiles_c) {
    const uint lane = get_local_id(0) % PM_TW, wrow = get_local_id(0) / PM_TW;
    const ulong t = get_group_id(0), tr = t / tiles_c, tc = t - tr * tiles_c;
    for (uint r = wrow; r < PM_TW; r += PM_WG_ROWS) {
        ulong orow = tc * PM_TW + r, ocol = tr * PM_TW + lane;
        if (orow < cols && ocol < rows) dst[orow * rows + ocol] = src[ocol * cols + orow];
    }
}

__kernel PM_ATTRS void clperm_bit_reversal_blocked(__global const pm_item *src, __global pm_item *dst, uint k) {
    const uint lane = get_local_id(0) % PM_TW, wrow = get_local_id(0) / PM_TW;
    const ulong mid = get_group_id(0), rmid = pm_rev(mid, k - 10), hi = (ulong)pm_rev5(lane) << (k - 5);
    for (uint r = wrow; r < PM_TW; r += PM_WG_ROWS)
        dst[((ulong)r << (k - 5)) | (rmid << 5) | lane] = src[hi | (mid << 5) | pm_rev5(r)];
}
