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
 * CLPERM_PM_WG_ROWS (4, 8 or 16; default 8): rows of 32 work-items in a work-group of the tiled
 * transpose and bit-reversal, each work-item moving 32 / CLPERM_PM_WG_ROWS rows of every tile
 * (fewer rows: more loads in flight per work-item, more work-groups per compute unit). The
 * shuffles and the blocked kernels take 8.
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

#ifndef CLPERM_PM_WG_ROWS
#define CLPERM_PM_WG_ROWS 8
#endif

#define PM_TW 32
#define PM_WG_ROWS CLPERM_PM_WG_ROWS
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
 * rev hi). Tile mid is the 32 x 32 tile (hi, lo), read a row hi at a time; its column lo is the
 * output segment (rev lo, rev mid, *), lane l writing the item of row l at position rev5(l) of
 * the segment. A work-group takes CLPERM_PM_TILES tiles whose rev mid are consecutive, so that
 * their output segments of one row lie side by side. A work-group's tiles past the last
 * (2^(k-10) < CLPERM_PM_TILES) move nothing. */
__kernel PM_ATTRS void clperm_bit_reversal_tiled(__global const pm_item *src, __global pm_item *dst,
                                                 uint k PM_TRACE_PARAMS) {
    __local pm_item tile[CLPERM_PM_TILES * PM_TILE];
    pm_item v[CLPERM_PM_TILES][PM_ROWS];
    const uint lane = get_local_id(0) % PM_TW, wrow = get_local_id(0) / PM_TW;
    /* rev mid of tile j is rmid0 + j. */
    const ulong rmid0 = (ulong)get_group_id(0) * CLPERM_PM_TILES, mids = (ulong)1 << (k - 10);
    PM_TRACE_BEGIN;
    for (uint j = 0; j < CLPERM_PM_TILES; j++)
        if (rmid0 + j < mids) {
            const ulong mid = pm_rev(rmid0 + j, k - 10);
            for (uint i = 0; i < PM_ROWS; i++)
                v[j][i] = src[((ulong)(wrow + i * PM_WG_ROWS) << (k - 5)) | (mid << 5) | lane];
        }
    for (uint j = 0; j < CLPERM_PM_TILES; j++)
        for (uint i = 0; i < PM_ROWS; i++) {
            if (rmid0 + j < mids)
                PM_ST(tile, j * PM_TILE + PM_DIAG(wrow + i * PM_WG_ROWS, lane), v[j][i]);
            else
                PM_SKIP();
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < CLPERM_PM_TILES; j++) {
        const ulong rmid = rmid0 + j;
        for (uint i = 0; i < PM_ROWS; i++) {
            uint r = wrow + i * PM_WG_ROWS;
            if (rmid < mids)
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

/* The serial kernels (kernel choice CLPERM_PARAM_PERMUTE_KERNEL 3, built with CLPERM_PM_SERIAL 1
 * and CLPERM_PM_BYTES, the item's size), for CPUs, where a work-group is a task of one core and
 * barriers and per-work-item index arithmetic cost more than the moves: work-groups of one
 * work-item, each moving `per` consecutive 32 x 32 tiles (or 1024-item blocks of the perfect
 * shuffle) in plain loops. A tile goes through two private buffers: its 32 source runs are copied
 * whole into rows of the first, which is transposed into the second in blocks held in vector
 * registers, whose rows are written whole to the 32 output runs.
 * - Whole runs: the runs of one tile lie a power of two apart in the transpose of a square matrix
 *   and in the bit-reversal, so they share a few cache sets, and a tile moved item by item
 *   between them would evict its own lines before it had used them.
 * - Transposes in registers keep the compiler from moving columns with vector scatters, which
 *   some CPUs run item by item.
 * - Output runs are written with non-temporal stores of 32 bytes (16 for 16-byte items) where the
 *   compiler has them and the run is aligned: every output line is written whole, and a store
 *   that reads its line first (as plain stores do) doubles the output's traffic and holds the
 *   store queue while it waits; with the runs scattered over 32 places, that wait is the bound. */
#if CLPERM_PM_SERIAL
#ifndef CLPERM_PM_BYTES
#error "CLPERM_PM_BYTES must be defined with CLPERM_PM_SERIAL"
#endif

/* pm_vec: 32 bytes of items (16 for 16-byte items), PM_VN items; PM_VW x PM_VW blocks are
 * transposed in registers (1: item by item). */
#if CLPERM_PM_BYTES == 4
#define PM_VN 8
#define PM_VW 8
typedef uint8 pm_vec;
typedef uint8 pm_mask;
#define PM_VLOAD(p) vload8(0, p)
#define PM_VSTORE(v, p) vstore8(v, 0, p)
#elif CLPERM_PM_BYTES == 8
#define PM_VN 4
#define PM_VW 4
typedef ulong4 pm_vec;
typedef ulong4 pm_mask;
#define PM_VLOAD(p) vload4(0, p)
#define PM_VSTORE(v, p) vstore4(v, 0, p)
#else
#define PM_VN 1
#define PM_VW 1
typedef pm_item pm_vec;
#define PM_VLOAD(p) (*(p))
#define PM_VSTORE(v, p) (*(p) = (v))
#endif

#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define PM_HAS_STREAM 1
#endif
#endif

/* d[0 .. 32) = b[0 .. 32): non-temporal where it can be (above). */
inline void pm_run_out(__global pm_item *d, const pm_item *b) {
#ifdef PM_HAS_STREAM
    if (((size_t)d & (sizeof(pm_vec) - 1)) == 0) {
        for (uint i = 0; i < PM_TW; i += PM_VN)
            __builtin_nontemporal_store(PM_VLOAD(b + i), (__global pm_vec *)(d + i));
        return;
    }
#endif
    for (uint i = 0; i < PM_TW; i++) d[i] = b[i];
}

/* Row r of the source tile, read whole from s: into row r of a, or, for items of 16 bytes, which
 * need no transpose in registers (and two 16 KiB buffers would crowd the cache), straight into
 * column r of b. */
inline void pm_tile_row_in(pm_item *a, pm_item *b, uint r, __global const pm_item *s) {
#if PM_VW == 1
    for (uint c = 0; c < PM_TW; c++) b[c * PM_TW + r] = s[c];
#else
    for (uint c = 0; c < PM_TW; c++) a[r * PM_TW + c] = s[c];
#endif
}

/* b = the transpose of a, both 32 x 32 row-major, VW x VW blocks at a time: stages of distance
 * d = VW/2 .. 1, in which rows i and i + d exchange their blocks of d items; after the last, row i
 * holds column i. Items of 16 bytes are already in b. */
#define PM_X(lo, hi, x, y)                                                                         \
    do {                                                                                           \
        pm_vec t_ = shuffle2(x, y, lo);                                                            \
        y = shuffle2(x, y, hi);                                                                    \
        x = t_;                                                                                    \
    } while (0)
inline void pm_tile_transpose(const pm_item *a, pm_item *b) {
#if PM_VW > 1
    for (uint br = 0; br < PM_TW; br += PM_VW)
        for (uint bc = 0; bc < PM_TW; bc += PM_VW) {
            const pm_item *s = a + br * PM_TW + bc;
            pm_item *d = b + bc * PM_TW + br;
#if PM_VW == 8
            const pm_mask lo4 = (pm_mask)(0, 1, 2, 3, 8, 9, 10, 11), hi4 = (pm_mask)(4, 5, 6, 7, 12, 13, 14, 15);
            const pm_mask lo2 = (pm_mask)(0, 1, 8, 9, 4, 5, 12, 13), hi2 = (pm_mask)(2, 3, 10, 11, 6, 7, 14, 15);
            const pm_mask lo1 = (pm_mask)(0, 8, 2, 10, 4, 12, 6, 14), hi1 = (pm_mask)(1, 9, 3, 11, 5, 13, 7, 15);
            pm_vec v0 = PM_VLOAD(s), v1 = PM_VLOAD(s + PM_TW), v2 = PM_VLOAD(s + 2 * PM_TW),
                   v3 = PM_VLOAD(s + 3 * PM_TW), v4 = PM_VLOAD(s + 4 * PM_TW), v5 = PM_VLOAD(s + 5 * PM_TW),
                   v6 = PM_VLOAD(s + 6 * PM_TW), v7 = PM_VLOAD(s + 7 * PM_TW);
            PM_X(lo4, hi4, v0, v4);
            PM_X(lo4, hi4, v1, v5);
            PM_X(lo4, hi4, v2, v6);
            PM_X(lo4, hi4, v3, v7);
            PM_X(lo2, hi2, v0, v2);
            PM_X(lo2, hi2, v1, v3);
            PM_X(lo2, hi2, v4, v6);
            PM_X(lo2, hi2, v5, v7);
            PM_X(lo1, hi1, v0, v1);
            PM_X(lo1, hi1, v2, v3);
            PM_X(lo1, hi1, v4, v5);
            PM_X(lo1, hi1, v6, v7);
            PM_VSTORE(v0, d);
            PM_VSTORE(v1, d + PM_TW);
            PM_VSTORE(v2, d + 2 * PM_TW);
            PM_VSTORE(v3, d + 3 * PM_TW);
            PM_VSTORE(v4, d + 4 * PM_TW);
            PM_VSTORE(v5, d + 5 * PM_TW);
            PM_VSTORE(v6, d + 6 * PM_TW);
            PM_VSTORE(v7, d + 7 * PM_TW);
#else
            const pm_mask lo2 = (pm_mask)(0, 1, 4, 5), hi2 = (pm_mask)(2, 3, 6, 7);
            const pm_mask lo1 = (pm_mask)(0, 4, 2, 6), hi1 = (pm_mask)(1, 5, 3, 7);
            pm_vec v0 = PM_VLOAD(s), v1 = PM_VLOAD(s + PM_TW), v2 = PM_VLOAD(s + 2 * PM_TW),
                   v3 = PM_VLOAD(s + 3 * PM_TW);
            PM_X(lo2, hi2, v0, v2);
            PM_X(lo2, hi2, v1, v3);
            PM_X(lo1, hi1, v0, v1);
            PM_X(lo1, hi1, v2, v3);
            PM_VSTORE(v0, d);
            PM_VSTORE(v1, d + PM_TW);
            PM_VSTORE(v2, d + 2 * PM_TW);
            PM_VSTORE(v3, d + 3 * PM_TW);
#endif
        }
#endif
}
#undef PM_X

#if PM_VW == 1
#define PM_BUFFERS pm_item b[PM_TILE], *a = b
#else
#define PM_BUFFERS pm_item a[PM_TILE], b[PM_TILE]
#endif

__kernel void clperm_transpose_serial(__global const pm_item *src, __global pm_item *dst, ulong rows, ulong cols,
                                      uint tiles_c, ulong tiles, uint per) {
    PM_BUFFERS;
    const ulong t0 = get_global_id(0) * per, t1 = min(t0 + per, tiles);
    for (ulong t = t0; t < t1; t++) {
        const ulong tr = t / tiles_c, r0 = tr * PM_TW, c0 = (t - tr * tiles_c) * PM_TW;
        const uint nr = (uint)min((ulong)PM_TW, rows - r0), nc = (uint)min((ulong)PM_TW, cols - c0);
        if (nr == PM_TW && nc == PM_TW) {
            for (uint r = 0; r < PM_TW; r++) pm_tile_row_in(a, b, r, src + (r0 + r) * cols + c0);
            pm_tile_transpose(a, b);
            for (uint c = 0; c < PM_TW; c++) pm_run_out(dst + (c0 + c) * rows + r0, b + c * PM_TW);
        } else {
            /* An edge tile, item by item. */
            for (uint r = 0; r < nr; r++)
                for (uint c = 0; c < nc; c++) dst[(c0 + c) * rows + r0 + r] = src[(r0 + r) * cols + c0 + c];
        }
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE); /* the non-temporal stores done before the kernel is */
}

/* Tile mid as in clperm_bit_reversal_tiled: source run hi (32 items at hi * 2^(k-5) + mid * 32)
 * goes to row rev5(hi) of the first buffer, so that row lo of its transpose is the output run at
 * rev5(lo) * 2^(k-5) + rev(mid) * 32.
 * The tiles are taken in an order that keeps the pages touched few. A 4 KiB page holds 2^g runs
 * (g = 5, 4, 3 for items of 4, 8, 16 bytes); with m = k - 10 >= 2g bits of mid, step j = (middle
 * bits, top g bits, low g bits) of mid. The low g bits vary fastest, so 2^g tiles in a row read
 * the same 32 source pages, while their outputs go to 32 x 2^g pages that the next top values
 * fill (the output run's page depends on mid's low m - g bits only, its place in the page on the
 * top g). In mid's own order every tile would write 32 pages not written for 2^(m-g) tiles,
 * more than the address translation caches hold. */
#define PM_G (CLPERM_PM_BYTES == 4 ? 5 : CLPERM_PM_BYTES == 8 ? 4 : 3)
#define PM_GM ((1u << PM_G) - 1)
__kernel void clperm_bit_reversal_serial(__global const pm_item *src, __global pm_item *dst, uint k, uint per) {
    PM_BUFFERS;
    const uint m = k - 10;
    const ulong mids = (ulong)1 << m, j0 = get_global_id(0) * per, j1 = min(j0 + per, mids);
    for (ulong j = j0; j < j1; j++) {
        const ulong mid =
            m < 2 * PM_G ? j : ((j >> PM_G & PM_GM) << (m - PM_G)) | (j >> (2 * PM_G) << PM_G) | (j & PM_GM);
        for (uint hi = 0; hi < PM_TW; hi++)
            pm_tile_row_in(a, b, pm_rev5(hi), src + ((ulong)hi << (k - 5)) + (mid << 5));
        pm_tile_transpose(a, b);
        const ulong rmid = pm_rev(mid, k - 10);
        for (uint lo = 0; lo < PM_TW; lo++)
            pm_run_out(dst + ((ulong)pm_rev5(lo) << (k - 5)) + (rmid << 5), b + lo * PM_TW);
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE);
}

/* Blocks b of 1024 output items, `per` a work-item: dst[2x + h] = src[h * 2^(k-1) + x] for the
 * 512 x of each block (inverse 0), or the inverse, dst[h * 2^(k-1) + x] = src[2x + h]. */
__kernel void clperm_shuffle_serial(__global const pm_item *src, __global pm_item *dst, uint k, uint inverse,
                                    uint per) {
    const ulong hn = (ulong)1 << (k - 1), x0 = get_global_id(0) * per * 512, x1 = min(x0 + (ulong)per * 512, hn);
    if (inverse)
        for (ulong x = x0; x < x1; x++) {
            dst[x] = src[2 * x];
            dst[hn + x] = src[2 * x + 1];
        }
    else
        for (ulong x = x0; x < x1; x++) {
            dst[2 * x] = src[x];
            dst[2 * x + 1] = src[hn + x];
        }
}
#endif
