/*
 * Offline permutations (Kasagi, Nakano, Ito): the conventional ones from an index array, and the
 * regular ones (transpose, bit-reversal, perfect shuffle) through a local tile.
 *
 *   clperm_permute_scatter       destination-designated: dst[p[i]] = src[i]
 *   clperm_permute_gather        source-designated: dst[i] = src[q[i]]
 *   clperm_transpose_tiled       a rows x cols matrix, CLPERM_PM_TILES 32 x 32 tiles per work-group
 *   clperm_bit_reversal_tiled    2^k items (k >= 10), CLPERM_PM_TILES tiles of 32 x 32 per work-group
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
 * CLPERM_PM_TILES (1, 2 or 4; default 1): the tiles a work-group of the transpose and the
 * bit-reversal moves between its one barrier. Each work-item loads its rows of every tile into
 * registers first, so that all the group's global loads are in flight together, then stores them
 * into the tiles' own regions of local memory (tile j at j * 1024 items, the diagonal arrangement
 * within each: 1024 is a multiple of every bank count, so the banks are those of one tile), and
 * after the barrier writes every tile out. More bytes in flight per work-group cover more of the
 * memory's latency where one tile of small items is too little.
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
#ifndef CLPERM_PM_TILES
#define CLPERM_PM_TILES 1
#endif

#define PM_TW 32
#define PM_WG_ROWS 8
#define PM_WG (PM_TW * PM_WG_ROWS)
#define PM_TILE (PM_TW * PM_TW)         /* items of one tile */
#define PM_ROWS (PM_TW / PM_WG_ROWS)    /* rows of a tile each work-item moves */
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

/* A byte reversed bit by bit, by multiplies and masks. (Shifts and masks would do, but compilers
 * turn them into a bit-reverse intrinsic that some OpenCL implementations, Oclgrind among them,
 * cannot run; a table in constant memory serialises on GPUs when the work-items' bytes differ.) */
inline uint pm_rev8(uint b) { return (((b * 0x0802u & 0x22110u) | (b * 0x8020u & 0x88440u)) * 0x10101u >> 16) & 0xFFu; }

/* The low `bits` bits of x reversed (bits <= 64; 0 gives 0). */
inline ulong pm_rev(ulong x, uint bits) {
    ulong r = 0;
    for (uint b = 0; b < 64; b += 8) r = (r << 8) | pm_rev8((uint)(x >> b) & 0xFFu);
    return bits ? r >> (64 - bits) : 0;
}

inline uint pm_rev5(uint x) { return pm_rev8(x) >> 3; }

/* Tiles t = CLPERM_PM_TILES * group + j (j < CLPERM_PM_TILES) of a rows x cols matrix, t = (tr,
 * tc) row-major in tiles_c tiles a row: rows of a tile read in whole segments, its columns written
 * in whole segments of the cols x rows result. Tiles past the last (the tile count need not be a
 * multiple of CLPERM_PM_TILES) have tr >= the tile rows and fall out of the bounds checks. */
__kernel PM_ATTRS void clperm_transpose_tiled(__global const pm_item *src, __global pm_item *dst, ulong rows,
                                              ulong cols, uint tiles_c PM_TRACE_PARAMS) {
    __local pm_item tile[CLPERM_PM_TILES * PM_TILE];
    pm_item v[CLPERM_PM_TILES][PM_ROWS];
    const uint lane = get_local_id(0) % PM_TW, wrow = get_local_id(0) / PM_TW;
    /* Tile j's first row and column in src (its first column and row in dst). */
    ulong r0[CLPERM_PM_TILES], c0[CLPERM_PM_TILES];
    for (uint j = 0; j < CLPERM_PM_TILES; j++) {
        const uint t = (uint)get_group_id(0) * CLPERM_PM_TILES + j, tr = t / tiles_c;
        r0[j] = (ulong)tr * PM_TW;
        c0[j] = (ulong)(t - tr * tiles_c) * PM_TW;
    }
#define PM_SRC_IN(j, r) (r0[j] + (r) < rows && c0[j] + lane < cols)
    PM_TRACE_BEGIN;
    for (uint j = 0; j < CLPERM_PM_TILES; j++)
        for (uint i = 0; i < PM_ROWS; i++) {
            uint r = wrow + i * PM_WG_ROWS;
            if (PM_SRC_IN(j, r)) v[j][i] = src[(r0[j] + r) * cols + c0[j] + lane];
        }
    for (uint j = 0; j < CLPERM_PM_TILES; j++)
        for (uint i = 0; i < PM_ROWS; i++) {
            uint r = wrow + i * PM_WG_ROWS;
            if (PM_SRC_IN(j, r))
                PM_ST(tile, j * PM_TILE + PM_DIAG(r, lane), v[j][i]);
            else
                PM_SKIP();
        }
#undef PM_SRC_IN
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < CLPERM_PM_TILES; j++)
        for (uint i = 0; i < PM_ROWS; i++) {
            uint r = wrow + i * PM_WG_ROWS;
            if (c0[j] + r < cols && r0[j] + lane < rows)
                dst[(c0[j] + r) * rows + r0[j] + lane] = PM_LD(tile, j * PM_TILE + PM_DIAG(lane, r));
            else
                PM_SKIP();
        }
    PM_TRACE_END;
}

/* Index i of 2^k items = (hi: 5 bits, mid: k - 10 bits, lo: 5 bits); rev(i) = (rev lo, rev mid,
 * rev hi). Tile mid (CLPERM_PM_TILES consecutive ones per work-group) is the 32 x 32 tile (hi,
 * lo), read a row hi at a time; its column lo is the output segment (rev lo, rev mid, *), lane l
 * writing the item of row l at position rev5(l) of the segment. A work-group's tiles past the
 * last (2^(k-10) < CLPERM_PM_TILES) move nothing. */
__kernel PM_ATTRS void clperm_bit_reversal_tiled(__global const pm_item *src, __global pm_item *dst,
                                                 uint k PM_TRACE_PARAMS) {
    __local pm_item tile[CLPERM_PM_TILES * PM_TILE];
    pm_item v[CLPERM_PM_TILES][PM_ROWS];
    const uint lane = get_local_id(0) % PM_TW, wrow = get_local_id(0) / PM_TW;
    const ulong mid0 = (ulong)get_group_id(0) * CLPERM_PM_TILES, mids = (ulong)1 << (k - 10);
    PM_TRACE_BEGIN;
    for (uint j = 0; j < CLPERM_PM_TILES; j++)
        if (mid0 + j < mids)
            for (uint i = 0; i < PM_ROWS; i++)
                v[j][i] = src[((ulong)(wrow + i * PM_WG_ROWS) << (k - 5)) | ((mid0 + j) << 5) | lane];
    for (uint j = 0; j < CLPERM_PM_TILES; j++)
        for (uint i = 0; i < PM_ROWS; i++) {
            if (mid0 + j < mids)
                PM_ST(tile, j * PM_TILE + PM_DIAG(wrow + i * PM_WG_ROWS, lane), v[j][i]);
            else
                PM_SKIP();
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < CLPERM_PM_TILES; j++) {
        const ulong rmid = pm_rev(mid0 + j, k - 10);
        for (uint i = 0; i < PM_ROWS; i++) {
            uint r = wrow + i * PM_WG_ROWS;
            if (mid0 + j < mids)
                dst[((ulong)pm_rev5(r) << (k - 5)) | (rmid << 5) | pm_rev5(lane)] =
                    PM_LD(tile, j * PM_TILE + PM_DIAG(lane, r));
            else
                PM_SKIP();
        }
    }
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
                                                ulong cols, uint tiles_c) {
    const uint lane = get_local_id(0) % PM_TW, wrow = get_local_id(0) / PM_TW;
    const uint t = (uint)get_group_id(0), tr = t / tiles_c, tc = t - tr * tiles_c;
    for (uint r = wrow; r < PM_TW; r += PM_WG_ROWS) {
        ulong orow = (ulong)tc * PM_TW + r, ocol = (ulong)tr * PM_TW + lane;
        if (orow < cols && ocol < rows) dst[orow * rows + ocol] = src[ocol * cols + orow];
    }
}

__kernel PM_ATTRS void clperm_bit_reversal_blocked(__global const pm_item *src, __global pm_item *dst, uint k) {
    const uint lane = get_local_id(0) % PM_TW, wrow = get_local_id(0) / PM_TW;
    const ulong mid = get_group_id(0), rmid = pm_rev(mid, k - 10), hi = (ulong)pm_rev5(lane) << (k - 5);
    for (uint r = wrow; r < PM_TW; r += PM_WG_ROWS)
        dst[((ulong)r << (k - 5)) | (rmid << 5) | lane] = src[hi | (mid << 5) | pm_rev5(r)];
}
