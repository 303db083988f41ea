/*
 * Tile sorts in local memory, in the discrete memory model (DMM) of Afshani and Sitchinava: a tile
 * is a matrix of CLPERM_TS_W rows by CLPERM_TS_M columns, row r is memory bank r, and the
 * work-group is CLPERM_TS_W work-items (the model's processors), work-item r owning row r. Each
 * work-group sorts one segment of the input, padded to the tile.
 *
 *   clperm_sort_tile_shear           Shearsort (Sitchinava and Weichert) on the diagonal
 *                                    arrangement: element (r, c) at address c*W + (r + c) mod W, so
 *                                    a row (one work-item's) and a column (W work-items, one row
 *                                    each) are both read without bank conflicts. log2(W) rounds of
 *                                    rows in alternating order and columns ascending, then rows
 *                                    ascending. Rows and columns are sorted in registers.
 *   clperm_sort_tile_as              The Afshani-Sitchinava sort for W <= sqrt(M) (their Lemma 1):
 *                                    five row sorts, with two conversions each way between
 *                                    row-major and column-major order, whatever W.
 *   clperm_sort_tile_bitonic         Batcher's bitonic network in local memory, plain indexing.
 *   clperm_sort_tile_bitonic_padded  The same, one pad word after every W words.
 *
 * The same kernels partition (CLPERM_TS_DIGIT_BITS): a stable sort by a label of a few bits.
 *
 * Required: CLPERM_TS_W and CLPERM_TS_M (powers of two; the shear sort needs M >= W),
 * CLPERM_TS_KEY_KIND (1 u32, 2 i32, 3 f32, 4 u64, 5 i64, 6 f64), and the networks CLPERM_TS_NET_RUNS,
 * CLPERM_TS_NET_MERGE and CLPERM_TS_NET_W (see ts_sort_row), with CLPERM_TS_RUN, the run length
 * where the first two split, named in the options. CLPERM_TS_VALUES 1 carries a u32 value per key
 * and makes the sort stable: the tile sorts (key, position) pairs and the values follow the
 * positions. CLPERM_TS_TRACE 1 records every local-memory access (see TS_NOTE) for the bank
 * conflict check.
 *
 * Keys are sorted by their bits mapped to an unsigned order: i32 with the sign bit flipped; f32
 * as IEEE 754 totalOrder (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN).
 */
#ifndef CLPERM_TS_W
#error "CLPERM_TS_W must be defined"
#endif
#ifndef CLPERM_TS_M
#error "CLPERM_TS_M must be defined"
#endif
#ifndef CLPERM_TS_KEY_KIND
#error "CLPERM_TS_KEY_KIND must be defined"
#endif
#ifndef CLPERM_TS_VALUES
#define CLPERM_TS_VALUES 0
#endif
/* Tiles per work-group (work-items lid + W*g, g < TILES, work on tile g). Their words interleave in
 * local memory, word a of tile g at a*TILES + g: where W*TILES is the hardware's bank count, the
 * tiles of one warp then use disjoint banks and stay free of conflicts between them. */
#ifndef CLPERM_TS_TILES
#define CLPERM_TS_TILES 1
#endif
#ifndef CLPERM_TS_TRACE
#define CLPERM_TS_TRACE 0
#endif
/* Partition instead of sort: CLPERM_TS_DIGIT_BITS (1..8) > 0 orders the tile stably by the label
 * (ordered key >> CLPERM_TS_DIGIT_SHIFT) & (2^bits - 1). */
#ifndef CLPERM_TS_DIGIT_BITS
#define CLPERM_TS_DIGIT_BITS 0
#endif
/* The segmented sort's forms (src/sort/segmented.c): CLPERM_TS_LIST 1 takes each tile's segment
 * from a list, tile t of the launch sorting keys [ts_list[2e], ts_list[2e] + ts_list[2e + 1]),
 * e = ts_first + t, t < n (lengths up to seg); CLPERM_TS_FLIP 1 sorts descending (the ordered
 * form's bits flipped, so equal keys still keep their order); CLPERM_TS_VALUE64 1 moves u64
 * values. */
#ifndef CLPERM_TS_LIST
#define CLPERM_TS_LIST 0
#endif
#ifndef CLPERM_TS_FLIP
#define CLPERM_TS_FLIP 0
#endif
#ifndef CLPERM_TS_VALUE64
#define CLPERM_TS_VALUE64 0
#endif
#if CLPERM_TS_LIST
#define TS_LIST_PARAMS , const __global ulong *ts_list, ulong ts_first
#else
#define TS_LIST_PARAMS
#endif
#if CLPERM_TS_VALUE64
typedef ulong ts_val;
#else
typedef uint ts_val;
#endif
/* sqrt(M) for the sort of Theorems 1 and 2, else 0. */
#ifndef CLPERM_TS_S
#define CLPERM_TS_S 0
#endif
#define TS_POSITIONS (CLPERM_TS_VALUES || CLPERM_TS_DIGIT_BITS)
/* Loops over a work-item's registers unroll in full so that every index is static. NVIDIA's
 * compiler needs the hint; elsewhere it is left out (Oclgrind misreads the unrolled column loops
 * as moving uninitialised values). */
#if defined(CLPERM_NVIDIA) && CLPERM_NVIDIA
#define TS_UNROLL _Pragma("unroll")
#else
#define TS_UNROLL
#endif

#define TS_W CLPERM_TS_W
#define TS_M CLPERM_TS_M
#define TS_G CLPERM_TS_TILES
#define TS_ATTRS __attribute__((reqd_work_group_size(TS_W * TS_G, 1, 1)))
#define TS_T (TS_W * TS_M)
#define TS_PAD(a) ((a) + (a) / TS_W)
#define TS_PADDED_T TS_PAD(TS_T)

#if CLPERM_TS_KEY_KIND >= 4
typedef ulong ts_key;
#define TS_KEY_MAX ((ulong)0xFFFFFFFFFFFFFFFFUL)
#else
typedef uint ts_key;
#define TS_KEY_MAX 0xFFFFFFFFu
#endif

inline ts_key ts_to_ordered_up(ts_key k) {
#if CLPERM_TS_KEY_KIND == 2
    return k ^ 0x80000000u;
#elif CLPERM_TS_KEY_KIND == 3
    return (k & 0x80000000u) ? ~k : (k | 0x80000000u);
#elif CLPERM_TS_KEY_KIND == 5
    return k ^ 0x8000000000000000UL;
#elif CLPERM_TS_KEY_KIND == 6
    return (k >> 63) ? ~k : (k | 0x8000000000000000UL);
#else
    return k;
#endif
}

inline ts_key ts_from_ordered_up(ts_key k) {
#if CLPERM_TS_KEY_KIND == 2
    return k ^ 0x80000000u;
#elif CLPERM_TS_KEY_KIND == 3
    return (k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k;
#elif CLPERM_TS_KEY_KIND == 5
    return k ^ 0x8000000000000000UL;
#elif CLPERM_TS_KEY_KIND == 6
    return (k >> 63) ? (k & 0x7FFFFFFFFFFFFFFFUL) : ~k;
#else
    return k;
#endif
}

inline ts_key ts_to_ordered(ts_key k) { return CLPERM_TS_FLIP ? ~ts_to_ordered_up(k) : ts_to_ordered_up(k); }
inline ts_key ts_from_ordered(ts_key k) { return ts_from_ordered_up(CLPERM_TS_FLIP ? ~k : k); }

/* ---- every local-memory access goes through TS_LD and TS_ST ----
 * In a trace build each work-item writes, per access, the address into its own record of the
 * trace buffer: record[0] holds the number of steps, record[1 + s] the address of step s (keys at
 * [0, TS_PADDED_T), positions after them), or TS_IDLE where the work-item made no access while the
 * others of its work-group did. Work-items of a work-group run the same sequence of steps, so step
 * s of all of them is one access of the subgroup. */
#define TS_IDLE 0xFFFFFFFFu
#if CLPERM_TS_TRACE
#define TS_TRACE_PARAMS , __global uint *ts_trace, uint ts_trace_cap
#define TS_TRACE_BEGIN                                                                             \
    __global uint *ts_rec = ts_trace + ((size_t)tile * TS_W + lid) * (ts_trace_cap + 1);           \
    uint ts_step = 0
#define TS_NOTE(addr) (ts_step < ts_trace_cap ? (ts_rec[1 + ts_step] = (uint)(addr)) : 0u, ts_step++)
#define TS_SKIP(count)                                                                             \
    for (uint ts_i = 0; ts_i < (uint)(count); ts_i++) TS_NOTE(TS_IDLE)
#define TS_TRACE_END ts_rec[0] = ts_step
#else
#define TS_TRACE_PARAMS
#define TS_TRACE_BEGIN
#define TS_NOTE(addr) 0u
#define TS_SKIP(count)
#define TS_TRACE_END
#endif

#define TS_LD(arr, base, a) (TS_NOTE((base) + (a)), (arr)[(a) * TS_G + ts_g])
#define TS_ST(arr, base, a, v)                                                                     \
    do {                                                                                           \
        TS_NOTE((base) + (a));                                                                     \
        (arr)[(a) * TS_G + ts_g] = (v);                                                            \
    } while (0)

/* Keys and positions of the tile. Positions (kept with values and in partitions) order equal keys
 * and mark the padding, which sorts last. */
#if TS_POSITIONS
#if CLPERM_TS_DIGIT_BITS
#define TS_DIGIT(k) (((k) >> CLPERM_TS_DIGIT_SHIFT) & ((1u << CLPERM_TS_DIGIT_BITS) - 1u))
#define TS_GT(ka, pa, kb, pb) (TS_DIGIT(ka) > TS_DIGIT(kb) || (TS_DIGIT(ka) == TS_DIGIT(kb) && (pa) > (pb)))
#else
#define TS_GT(ka, pa, kb, pb) ((ka) > (kb) || ((ka) == (kb) && (pa) > (pb)))
#endif
#define TS_LOCAL_DECL                                                                              \
    __local ts_key lk[TS_PADDED_T * TS_G];                                                         \
    __local uint lp[TS_PADDED_T * TS_G]
#define TS_LD_ITEM(a, k, p)                                                                        \
    do {                                                                                           \
        k = TS_LD(lk, 0, a);                                                                       \
        p = TS_LD(lp, TS_PADDED_T, a);                                                             \
    } while (0)
#define TS_ST_ITEM(a, k, p)                                                                        \
    do {                                                                                           \
        TS_ST(lk, 0, a, k);                                                                        \
        TS_ST(lp, TS_PADDED_T, a, p);                                                              \
    } while (0)
#define TS_ACCESSES 2
#else
#define TS_GT(ka, pa, kb, pb) ((ka) > (kb))
#define TS_LOCAL_DECL __local ts_key lk[TS_PADDED_T * TS_G]
#define TS_LD_ITEM(a, k, p)                                                                        \
    do {                                                                                           \
        k = TS_LD(lk, 0, a);                                                                       \
        p = 0;                                                                                     \
    } while (0)
#define TS_ST_ITEM(a, k, p) TS_ST(lk, 0, a, k)
#define TS_ACCESSES 1
#endif

/* Compare-exchange of (k[i], p[i]) and (k[j], p[j]): afterwards the smaller first when up. */
#define TS_CSWAP(k, p, i, j, up)                                                                   \
    do {                                                                                           \
        ts_key ts_ka = k[i], ts_kb = k[j];                                                         \
        uint ts_pa = p[i], ts_pb = p[j];                                                           \
        int ts_s = TS_GT(ts_ka, ts_pa, ts_kb, ts_pb) == (up);                                      \
        k[i] = ts_s ? ts_kb : ts_ka;                                                               \
        k[j] = ts_s ? ts_ka : ts_kb;                                                               \
        p[i] = ts_s ? ts_pb : ts_pa;                                                               \
        p[j] = ts_s ? ts_pa : ts_pb;                                                               \
    } while (0)

/* Sorting networks on registers, ascending, lists of TS_CX(i, j) (compare-exchange of k[i] and
 * k[j]) that the host writes before this file: Batcher's odd-even merge sort (191
 * compare-exchanges for 32 keys against the bitonic network's 240), split where its runs reach
 * the length of the sorted runs a gathered row holds: CLPERM_TS_NET_RUNS sorts those runs,
 * CLPERM_TS_NET_MERGE merges them, the two sort M keys; CLPERM_TS_NET_W sorts W. Straight-line
 * code, so every index is static and the keys stay in registers. */
#define TS_CX(i, j) TS_CSWAP(k, p, i, j, 1);
inline void ts_sort_runs(ts_key *k, uint *p) { CLPERM_TS_NET_RUNS }
inline void ts_merge_row(ts_key *k, uint *p) { CLPERM_TS_NET_MERGE }
inline void ts_sort_row(ts_key *k, uint *p) {
    ts_sort_runs(k, p);
    ts_merge_row(k, p);
}
inline void ts_sort_col(ts_key *k, uint *p) { CLPERM_TS_NET_W }

/* Segment bounds of this work-group. */
#if CLPERM_TS_LIST
#define TS_SEGMENT                                                                                 \
    const uint lid = get_local_id(0) % TS_W, ts_g = get_local_id(0) / TS_W;                        \
    const ulong tile = (ulong)get_group_id(0) * TS_G + ts_g;                                       \
    const ulong base = tile < n ? ts_list[2 * (ts_first + tile)] : 0;                              \
    const uint len = tile < n ? (uint)min(seg, ts_list[2 * (ts_first + tile) + 1]) : 0u
#else
#define TS_SEGMENT                                                                                 \
    const uint lid = get_local_id(0) % TS_W, ts_g = get_local_id(0) / TS_W;                        \
    const ulong tile = (ulong)get_group_id(0) * TS_G + ts_g;                                       \
    const ulong base = tile * seg;                                                                 \
    const uint len = base < n ? (uint)min((ulong)seg, n - base) : 0u
#endif

/* Element e of the segment in tile order, loaded (padding past len) or stored, coalesced: step q
 * moves elements q*W .. q*W + W-1. ADDR(e) is the tile address of element e. */
#define TS_LOAD_TILE(ADDR)                                                                         \
    for (uint q = 0; q < TS_M; q++) {                                                              \
        uint e = q * TS_W + lid;                                                                   \
        ts_key k = e < len ? ts_to_ordered(keys[base + e]) : TS_KEY_MAX;                           \
        uint p = e;                                                                                \
        TS_ST_ITEM(ADDR(e), k, p);                                                                 \
    }                                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE)

#if CLPERM_TS_VALUES
/* Values follow positions: all are read before any is written, since the segment is sorted in
 * place. */
#define TS_STORE_TILE(ADDR)                                                                        \
    do {                                                                                           \
        ts_key ks[TS_M];                                                                           \
        ts_val vs[TS_M];                                                                           \
        TS_UNROLL for (uint q = 0; q < TS_M; q++) {                                        \
            uint e = q * TS_W + lid, p;                                                            \
            TS_LD_ITEM(ADDR(e), ks[q], p);                                                         \
            vs[q] = e < len ? values[base + p] : (ts_val)0;                                        \
        }                                                                                          \
        barrier(CLK_GLOBAL_MEM_FENCE);                                                             \
        TS_UNROLL for (uint q = 0; q < TS_M; q++) {                                        \
            uint e = q * TS_W + lid;                                                               \
            if (e < len) {                                                                         \
                keys[base + e] = ts_from_ordered(ks[q]);                                           \
                values[base + e] = vs[q];                                                          \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#else
#define TS_STORE_TILE(ADDR)                                                                        \
    for (uint q = 0; q < TS_M; q++) {                                                              \
        uint e = q * TS_W + lid, p;                                                                \
        ts_key k;                                                                                  \
        TS_LD_ITEM(ADDR(e), k, p);                                                                 \
        if (e < len) keys[base + e] = ts_from_ordered(k);                                          \
    }
#endif

/* ---- Shearsort on the diagonal arrangement ---- */

#define TS_DIAG(r, c) ((c) * TS_W + (((r) + (c)) & (TS_W - 1)))
#define TS_DIAG_E(e) TS_DIAG((e) / TS_M, (e) % TS_M)
#define TS_LOG2_W (31 - clz((uint)TS_W))

/* Row lid into registers, sorted, back in place (reversed when desc). */
#define TS_SHEAR_ROWS(desc)                                                                        \
    TS_UNROLL for (uint c = 0; c < TS_M; c++) TS_LD_ITEM(TS_DIAG(lid, c), k[c], p[c]);     \
    ts_sort_row(k, p);                                                                             \
    TS_UNROLL for (uint c = 0; c < TS_M; c++) {                                            \
        int ts_d = (desc);                                                                         \
        TS_ST_ITEM(TS_DIAG(lid, c), ts_d ? k[TS_M - 1 - c] : k[c], ts_d ? p[TS_M - 1 - c] : p[c]); \
    }                                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE)

#if TS_M >= TS_W
__kernel TS_ATTRS void
clperm_sort_tile_shear(__global ts_key *keys, __global ts_val *values, ulong n, ulong seg TS_LIST_PARAMS TS_TRACE_PARAMS) {
    TS_LOCAL_DECL;
    TS_SEGMENT;
    TS_TRACE_BEGIN;
    ts_key k[TS_M > TS_W ? TS_M : TS_W];
    uint p[TS_M > TS_W ? TS_M : TS_W];
    TS_LOAD_TILE(TS_DIAG_E);
    for (uint round = 0; round < TS_LOG2_W; round++) {
        TS_SHEAR_ROWS(lid & 1); /* alternating order */
        /* Columns lid, lid + W, ...: ascending from row 0 down. */
        for (uint c = lid; c < TS_M; c += TS_W) {
            TS_UNROLL for (uint r = 0; r < TS_W; r++) TS_LD_ITEM(TS_DIAG(r, c), k[r], p[r]);
            ts_sort_col(k, p);
            TS_UNROLL for (uint r = 0; r < TS_W; r++) TS_ST_ITEM(TS_DIAG(r, c), k[r], p[r]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    TS_SHEAR_ROWS(0);
    TS_STORE_TILE(TS_DIAG_E);
    TS_TRACE_END;
}
#endif

/* ---- The Afshani-Sitchinava sort, base case (Lemma 1): W <= sqrt(M) ----
 * Twice: sort rows in alternating order; convert row-major to column-major; sort rows; convert
 * back. Then sort rows. A conversion is a gather: work-item r reads the elements that its row
 * receives, sorts them in registers and writes its own row. Column c is skewed by c + c / (M/W):
 * then the W elements that one step of a row-major load, a row-major to column-major gather or
 * the reverse gather touches lie in W different banks.
 * A gathered row holds W sorted runs of M/W, one from each source row, so only the merging levels
 * of the network run on it. The gather reads the runs in ascending order into k[j*Q .. j*Q+Q-1]:
 * from row-major order run j is columns j*Q .. j*Q+Q-1, reversed when source row j was written
 * descending; from column-major order it is columns j, j+W, ... Every work-item reads the same
 * column at a step, as in the plain order, so the order of the steps keeps them conflict-free. */
/* The column that holds element t of run j, for runs of q in rows of m after a row-major source
 * whose odd rows are descending, and after a column-major source of `rows` ascending rows. */
#define TS_RUN_OF_ROWS(j, t, q) ((j) * (q) + (((j) & 1) ? (q) - 1 - (t) : (t)))
#define TS_RUN_OF_COLS(j, t, rows) ((j) + (t) * (rows))

#if TS_M >= TS_W * TS_W
#define TS_Q (TS_M / TS_W)
#define TS_AS(r, c) ((c) * TS_W + (((r) + (c) + (c) / TS_Q) & (TS_W - 1)))
#define TS_AS_E(e) TS_AS((e) / TS_M, (e) % TS_M)
/* The source of element (r, c) after a conversion from row-major order (the linear index
 * L = c*W + r was at (L / M, L % M)) and from column-major order (L = r*M + c was at
 * (L % W, L / W)). */
#define TS_AS_FROM_ROWS(r, c) TS_AS(((c) * TS_W + (r)) / TS_M, ((c) * TS_W + (r)) % TS_M)
#define TS_AS_FROM_COLS(r, c) TS_AS(((r) * TS_M + (c)) % TS_W, ((r) * TS_M + (c)) / TS_W)

/* The five passes, one loop body (unrolled, the passes made a kernel too large for the compiler to
 * keep the row in registers): pass 0 sorts row lid in place, passes 1 and 3 gather it from
 * row-major order, 2 and 4 from column-major order; passes 0 and 2 write rows in alternating
 * order. */
__kernel TS_ATTRS void
clperm_sort_tile_as(__global ts_key *keys, __global ts_val *values, ulong n, ulong seg TS_LIST_PARAMS TS_TRACE_PARAMS) {
    TS_LOCAL_DECL;
    TS_SEGMENT;
    TS_TRACE_BEGIN;
    ts_key k[TS_M];
    uint p[TS_M];
    TS_LOAD_TILE(TS_AS_E);
#pragma unroll 1
    for (uint pass = 0; pass < 5; pass++) {
        uint from = pass == 0 ? 0u : 2u - (pass & 1);
        int desc = (pass == 0 || pass == 2) && (lid & 1);
        TS_UNROLL for (uint v = 0; v < TS_M; v++) {
            uint j = v / TS_Q, t = v % TS_Q;
            uint a = from == 0   ? TS_AS(lid, v)
                     : from == 1 ? TS_AS_FROM_ROWS(lid, TS_RUN_OF_ROWS(j, t, TS_Q))
                                 : TS_AS_FROM_COLS(lid, TS_RUN_OF_COLS(j, t, TS_W));
            TS_LD_ITEM(a, k[v], p[v]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (pass == 0) ts_sort_runs(k, p);
        ts_merge_row(k, p);
        TS_UNROLL for (uint c = 0; c < TS_M; c++)
            TS_ST_ITEM(TS_AS(lid, c), desc ? k[TS_M - 1 - c] : k[c], desc ? p[TS_M - 1 - c] : p[c]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    TS_STORE_TILE(TS_AS_E);
    TS_TRACE_END;
}
#endif

/* ---- The Afshani-Sitchinava sort for W >= M (Theorems 1 and 2), M = S*S a power of four ----
 * Theorem 1 sorts an M x M block: Lemma 1 on each super-row of S rows (S <= sqrt(M)); sort the
 * block's columns; Lemma 1 on each super-row again, the odd super-rows' rows then reversed; sort
 * the columns; sort the rows. The paper writes the odd super-rows descending; reversing each of
 * their rows serves its 0-1 argument the same way: of the two dirty rows left, one holds 0s then
 * 1s, the other 1s then 0s, and the column sort that follows counts each column's zeros whatever
 * the rows' order, leaving one dirty row.
 * Theorem 2 (W > M): sort the rows; sort the W-long columns; convert column-major to row-major
 * (the first M keys of column 0 form row 0); sort the columns; Theorem 1 on each M x M block, the
 * odd blocks' rows reversed; sort the columns; sort the rows. A column sort is a bitonic network
 * across the work-items (the paper's EREW PRAM sort; bitonic takes log^2 W steps instead of
 * log W): at each step work-item r keeps, column by column, the min or max of its row and row
 * r ^ j.
 * Three arrangements, each conflict-free for the accesses it serves:
 *   AW_G, (r, c) at r*M + (c + r/(W/M)) mod M: the coalesced load and store of the tile (step q
 *     moves rows with r/(W/M) = q) and a work-item's own row;
 *   AW_D, block-diagonal: (r, c) at c*W + (r & ~(M-1)) + (r + c) mod M: own rows, the row of
 *     r ^ j, a block's column read row by row, and the column-major to row-major gather;
 *   AW_SR, super-row skew: (r, c) at c*W + (r & ~(S-1)) + (r + c + c/S) mod S: Lemma 1's skew
 *     (Q = M/S = S) within the banks of each super-row.
 * The passes run from a table in one loop, so the compiler keeps one copy of the networks. */
#if CLPERM_TS_S > 0 && TS_M <= TS_W
#define AW_S CLPERM_TS_S
#define AW_B (TS_W / TS_M)
#define AW_G(r, c) ((r) * TS_M + (((c) + (r) / AW_B) & (TS_M - 1)))
#define AW_G_E(e) AW_G((e) / TS_M, (e) % TS_M)
#define AW_D(r, c) ((c) * TS_W + ((r) & ~(uint)(TS_M - 1)) + (((r) + (c)) & (TS_M - 1)))
#define AW_SR(r, c) ((c) * TS_W + ((r) & ~(uint)(AW_S - 1)) + (((r) + (c) + (c) / AW_S) & (AW_S - 1)))

/* A pass: where the rows come from (AW_LD_*), what sorts them (AW_NET_*), where they go (AW_ST_*)
 * and which rows go reversed (AW_REV_*: odd rows of a super-row, odd super-rows of a block, odd
 * blocks). */
#define AW_LD_NONE 0
#define AW_LD_ROW_G 1
#define AW_LD_ROW_D 2
#define AW_LD_ROWS_S 3 /* Lemma 1's gather from row-major order */
#define AW_LD_COLS_S 4 /* and from column-major order */
#define AW_LD_COL_D 5  /* column lid % M of block lid / M */
#define AW_LD_CONV_D 6 /* Theorem 2's column-major to row-major gather */
#define AW_NET_NONE 0
#define AW_NET_SORT 1
#define AW_NET_MERGE 2
#define AW_NET_LANES 3
#define AW_ST_NONE 0
#define AW_ST_ROW_S 1
#define AW_ST_ROW_D 2
#define AW_ST_ROW_G 3
#define AW_ST_COL_D 4
#define AW_REV_NO 0
#define AW_REV_ROW 1
#define AW_REV_SUPER 2
#define AW_REV_BLOCK 3
/* One byte per field, read with a volatile load: folded into the code, the table became switches
 * on integers of 4 or 31 bits, and the table itself 3-byte integers, which Oclgrind misreads. */
#define AW_P(ld, net, st, rev) (AW_LD_##ld | AW_NET_##net << 8 | AW_ST_##st << 16 | (uint)AW_REV_##rev << 24)
#define AW_LEMMA1(ld0, st4, rev4)                                                                  \
    AW_P(ld0, SORT, ROW_S, ROW), AW_P(ROWS_S, MERGE, ROW_S, NO), AW_P(COLS_S, MERGE, ROW_S, ROW),   \
        AW_P(ROWS_S, MERGE, ROW_S, NO), AW_P(COLS_S, MERGE, st4, rev4)
#define AW_THEOREM1(ld0, st_last, rev_last)                                                        \
    AW_LEMMA1(ld0, ROW_D, NO), AW_P(COL_D, SORT, COL_D, NO), AW_LEMMA1(ROW_D, ROW_D, SUPER),        \
        AW_P(COL_D, SORT, COL_D, NO), AW_P(ROW_D, SORT, st_last, rev_last)
#if AW_B > 1
__constant uint aw_passes[] = {AW_P(ROW_G, SORT, ROW_D, NO),   AW_P(NONE, LANES, NONE, NO),
                               AW_P(CONV_D, NONE, ROW_D, NO),  AW_P(NONE, LANES, NONE, NO),
                               AW_THEOREM1(NONE, ROW_D, BLOCK), AW_P(ROW_D, LANES, NONE, NO),
                               AW_P(NONE, SORT, ROW_G, NO)};
#else
__constant uint aw_passes[] = {AW_THEOREM1(ROW_G, ROW_G, NO)};
#endif

__kernel TS_ATTRS void
clperm_sort_tile_as_wide(__global ts_key *keys, __global ts_val *values, ulong n, ulong seg TS_LIST_PARAMS TS_TRACE_PARAMS) {
    TS_LOCAL_DECL;
    TS_SEGMENT;
    TS_TRACE_BEGIN;
    ts_key k[TS_M];
    uint p[TS_M];
    const uint sbase = lid & ~(uint)(AW_S - 1), sr = lid & (AW_S - 1);
    const uint bbase = lid & ~(uint)(TS_M - 1), bc = lid & (TS_M - 1);
    TS_LOAD_TILE(AW_G_E);
#pragma unroll 1
    for (uint pass = 0; pass < sizeof aw_passes / sizeof aw_passes[0]; pass++) {
        const uint op = ((volatile __constant uint *)aw_passes)[pass];
        const uint ld = op & 255u, net = (op >> 8) & 255u, st = (op >> 16) & 255u, rev = op >> 24;
        if (ld == AW_LD_ROW_G) {
            TS_UNROLL for (uint v = 0; v < TS_M; v++) TS_LD_ITEM(AW_G(lid, v), k[v], p[v]);
        } else if (ld == AW_LD_ROW_D) {
            TS_UNROLL for (uint v = 0; v < TS_M; v++) TS_LD_ITEM(AW_D(lid, v), k[v], p[v]);
        } else if (ld == AW_LD_ROWS_S) {
            TS_UNROLL for (uint v = 0; v < TS_M; v++) {
                uint l = TS_RUN_OF_ROWS(v / AW_S, v % AW_S, AW_S) * AW_S + sr;
                TS_LD_ITEM(AW_SR(sbase + l / TS_M, l % TS_M), k[v], p[v]);
            }
        } else if (ld == AW_LD_COLS_S) {
            TS_UNROLL for (uint v = 0; v < TS_M; v++) {
                uint l = sr * TS_M + TS_RUN_OF_COLS(v / AW_S, v % AW_S, AW_S);
                TS_LD_ITEM(AW_SR(sbase + l % AW_S, l / AW_S), k[v], p[v]);
            }
        } else if (ld == AW_LD_COL_D) {
            TS_UNROLL for (uint v = 0; v < TS_M; v++) TS_LD_ITEM(AW_D(bbase + v, bc), k[v], p[v]);
        } else if (ld == AW_LD_CONV_D) {
            TS_UNROLL for (uint v = 0; v < TS_M; v++) {
                uint l = lid * TS_M + v;
                TS_LD_ITEM(AW_D(l % TS_W, l / TS_W), k[v], p[v]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (net == AW_NET_SORT) ts_sort_runs(k, p);
        if (net == AW_NET_SORT || net == AW_NET_MERGE) ts_merge_row(k, p);
        if (net == AW_NET_LANES) {
            /* The row is in AW_D and in k. */
            for (uint kk = 2; kk <= TS_W; kk <<= 1)
                for (uint jj = kk >> 1; jj > 0; jj >>= 1) {
                    const uint o = lid ^ jj;
                    const int keep_min = ((lid & kk) == 0) == (lid < o);
                    TS_UNROLL for (uint c = 0; c < TS_M; c++) {
                        ts_key ko;
                        uint po;
                        TS_LD_ITEM(AW_D(o, c), ko, po);
                        int take = keep_min ? TS_GT(k[c], p[c], ko, po) : TS_GT(ko, po, k[c], p[c]);
                        k[c] = take ? ko : k[c];
                        p[c] = take ? po : p[c];
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                    TS_UNROLL for (uint c = 0; c < TS_M; c++) TS_ST_ITEM(AW_D(lid, c), k[c], p[c]);
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
        }
        const int desc = rev == AW_REV_ROW     ? (int)(sr & 1)
                         : rev == AW_REV_SUPER ? (int)((bc / AW_S) & 1)
                         : rev == AW_REV_BLOCK ? (int)((lid / TS_M) & 1)
                                               : 0;
        if (st == AW_ST_ROW_S) {
            TS_UNROLL for (uint c = 0; c < TS_M; c++)
                TS_ST_ITEM(AW_SR(lid, c), desc ? k[TS_M - 1 - c] : k[c], desc ? p[TS_M - 1 - c] : p[c]);
        } else if (st == AW_ST_ROW_D) {
            TS_UNROLL for (uint c = 0; c < TS_M; c++)
                TS_ST_ITEM(AW_D(lid, c), desc ? k[TS_M - 1 - c] : k[c], desc ? p[TS_M - 1 - c] : p[c]);
        } else if (st == AW_ST_ROW_G) {
            TS_UNROLL for (uint c = 0; c < TS_M; c++) TS_ST_ITEM(AW_G(lid, c), k[c], p[c]);
        } else if (st == AW_ST_COL_D) {
            TS_UNROLL for (uint c = 0; c < TS_M; c++) TS_ST_ITEM(AW_D(bbase + c, bc), k[c], p[c]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    TS_STORE_TILE(AW_G_E);
    TS_TRACE_END;
}
#endif

/* ---- Bitonic baselines: compare-exchanges in local memory ---- */

#define TS_PLAIN(a) (a)
#define TS_BITONIC_PAIRS (TS_T / 2)

#define TS_BITONIC_BODY(ADDR)                                                                      \
    TS_LOCAL_DECL;                                                                                 \
    TS_SEGMENT;                                                                                    \
    TS_TRACE_BEGIN;                                                                                \
    TS_LOAD_TILE(ADDR);                                                                            \
    for (uint kk = 2; kk <= TS_T; kk <<= 1) {                                                      \
        for (uint j = kk >> 1; j > 0; j >>= 1) {                                                   \
            for (uint pi = lid; pi < (TS_BITONIC_PAIRS + TS_W - 1) / TS_W * TS_W; pi += TS_W) {     \
                if (pi >= TS_BITONIC_PAIRS) {                                                      \
                    TS_SKIP(4 * TS_ACCESSES);                                                      \
                } else {                                                                           \
                uint lo = ((pi & ~(j - 1)) << 1) | (pi & (j - 1)), hi = lo + j;                    \
                ts_key k[2];                                                                       \
                uint p[2];                                                                         \
                TS_LD_ITEM(ADDR(lo), k[0], p[0]);                                                  \
                TS_LD_ITEM(ADDR(hi), k[1], p[1]);                                                  \
                TS_CSWAP(k, p, 0, 1, (lo & kk) == 0);                                              \
                TS_ST_ITEM(ADDR(lo), k[0], p[0]);                                                  \
                TS_ST_ITEM(ADDR(hi), k[1], p[1]);                                                  \
                }                                                                                  \
            }                                                                                      \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
    }                                                                                              \
    TS_STORE_TILE(ADDR);                                                                           \
    TS_TRACE_END

__kernel TS_ATTRS void
clperm_sort_tile_bitonic(__global ts_key *keys, __global ts_val *values, ulong n, ulong seg TS_LIST_PARAMS TS_TRACE_PARAMS) {
    TS_BITONIC_BODY(TS_PLAIN);
}

__kernel TS_ATTRS void
clperm_sort_tile_bitonic_padded(__global ts_key *keys, __global ts_val *values, ulong n, ulong seg TS_LIST_PARAMS TS_TRACE_PARAMS) {
    TS_BITONIC_BODY(TS_PAD);
}

/* ---- Batched transpose through the diagonal arrangement ----
 * Matrix `tile` of ROWS x COLS items (row-major) is read row by row into an RP x CP tile (rows and
 * columns padded to multiples of W), item (r, c) at r*CP + (c + r) mod CP, and written column by
 * column: the W items of one step lie in W banks either way. */
#ifdef CLPERM_TS_TR_ROWS
#define TR_R CLPERM_TS_TR_ROWS
#define TR_C CLPERM_TS_TR_COLS
#define TR_RP ((TR_R + TS_W - 1) / TS_W * TS_W)
#define TR_CP ((TR_C + TS_W - 1) / TS_W * TS_W)
#define TR_ADDR(r, c) ((r) * TR_CP + tr_skew(r, c))

/* (c + r) mod CP for c < CP. */
inline uint tr_skew(uint r, uint c) {
    uint s = c + r % TR_CP;
    return s >= TR_CP ? s - TR_CP : s;
}

__kernel TS_ATTRS void clperm_transpose_tiles(__global const ts_key *src, __global ts_key *dst,
                                              ulong count TS_TRACE_PARAMS) {
    __local ts_key lt[TR_RP * TR_CP];
    const uint lid = get_local_id(0), ts_g = 0;
    const ulong tile = get_group_id(0), base = tile * (ulong)(TR_R * TR_C);
    TS_TRACE_BEGIN;
    for (uint r = 0; r < TR_RP; r++)
        for (uint c = lid; c < TR_CP; c += TS_W) {
            if (r < TR_R && c < TR_C)
                TS_ST(lt, 0, TR_ADDR(r, c), src[base + r * TR_C + c]);
            else
                TS_SKIP(1);
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = 0; c < TR_CP; c++)
        for (uint r = lid; r < TR_RP; r += TS_W) {
            if (r < TR_R && c < TR_C)
                dst[base + c * TR_R + r] = TS_LD(lt, 0, TR_ADDR(r, c));
            else
                TS_SKIP(1);
        }
    TS_TRACE_END;
}
#endif

/* ---- The Afshani-Sitchinava partition by counting: Corollary 1 and Theorem 1 ----
 * CLPERM_TS_COUNTING = S, the height of a super-row: S = W runs Corollary 1 (W <= sqrt(M), the
 * tile one super-row), S * S = W = M runs Theorem 1 (square tiles, M a power of four).
 * Lemma 1 on a super-row of S rows is its passes with every row sort a counting sort by label,
 * O(M) per row. Row r of the tile lives in bank r (element (r, c) at c * W + r), so a work-item
 * touches only its own bank while it counts and scatters its row, wherever the labels send the
 * items; its counters (the labels and the padding's label, which sorts last) lie in that bank
 * too. Conversions within a super-row are gathers with a skewed schedule: from row-major order
 * work-item r (row r of its super-row) takes, at step s, column (s + r * M/S) mod M of its new
 * row, whose source row (s / (M/S) + r) mod S differs between the super-row's work-items; from
 * column-major order column (s + r) mod M, whose source lies in row (s + r) mod S. The super-rows
 * use disjoint banks, so they run side by side without conflicts.
 * Theorem 1: Lemma 1 on each super-row; sort the columns (transpose, sort the rows, transpose);
 * Lemma 1 on each super-row again, the last row sort descending in the odd super-rows; sort the
 * columns; sort the rows. A transpose is a gather too: work-item r takes, at step s, column
 * c = (s + r) mod M of its new row from row c, bank c. Descending rows in the odd super-rows serve
 * the paper's 0-1 argument as its descending super-rows do: of the two dirty rows left, one holds
 * 0s then 1s, the other 1s then 0s, so the zeros per column differ by at most one and the column
 * sort leaves one dirty row.
 * Keys and labels move between two buffers, X and Y. The last gather (a conversion from row-major
 * order in Corollary 1, a transpose in Theorem 1) leaves element e of the result at address e.
 * Not stable: keys of one label come out in an order fixed by the algorithm and the tile shape,
 * the same on every device that takes the same tile. */
#if defined(CLPERM_TS_COUNTING) && CLPERM_TS_COUNTING
#define TP_S CLPERM_TS_COUNTING
#if !(TP_S == TS_W && TS_M >= TS_W * TS_W) && !(TP_S * TP_S == TS_W && TS_W == TS_M)
#error "the counting partition needs W * W <= M (Corollary 1) or W = M = S * S (Theorem 1)"
#endif
#define TP_ADDR(r, c) ((c) * TS_W + (r))
#define TP_Q (TS_M / TP_S)
#define TP_NL (1u << CLPERM_TS_DIGIT_BITS) /* the padding's label */
#define TP_LABELS (TP_NL + 1u)
#define TP_LABEL(k) ((uint)((k) >> CLPERM_TS_DIGIT_SHIFT) & (TP_NL - 1u))
/* Trace addresses: keys X, keys Y, labels X, labels Y, counters. */
#define TP_KX 0
#define TP_KY TS_T
#define TP_LX (2 * TS_T)
#define TP_LY (3 * TS_T)
#define TP_C (4 * TS_T)

/* Row lid of X counting-sorted by label into Y (labels in decreasing order when desc). */
#define TP_SORT_ROWS(desc)                                                                         \
    do {                                                                                           \
        for (uint b = 0; b < TP_LABELS; b++) TS_ST(lc, TP_C, b * TS_W + lid, 0u);                  \
        for (uint c = 0; c < TS_M; c++) {                                                          \
            uint l = TS_LD(llx, TP_LX, TP_ADDR(lid, c));                                           \
            uint v = TS_LD(lc, TP_C, l * TS_W + lid);                                              \
            TS_ST(lc, TP_C, l * TS_W + lid, v + 1u);                                               \
        }                                                                                          \
        uint acc = 0;                                                                              \
        for (uint i = 0; i < TP_LABELS; i++) {                                                     \
            uint b = (desc) ? TP_LABELS - 1 - i : i;                                               \
            uint v = TS_LD(lc, TP_C, b * TS_W + lid);                                              \
            TS_ST(lc, TP_C, b * TS_W + lid, acc);                                                  \
            acc += v;                                                                              \
        }                                                                                          \
        for (uint c = 0; c < TS_M; c++) {                                                          \
            uint l = TS_LD(llx, TP_LX, TP_ADDR(lid, c));                                           \
            ts_key k = TS_LD(lkx, TP_KX, TP_ADDR(lid, c));                                         \
            uint pos = TS_LD(lc, TP_C, l * TS_W + lid);                                            \
            TS_ST(lc, TP_C, l * TS_W + lid, pos + 1u);                                             \
            TS_ST(lky, TP_KY, TP_ADDR(lid, pos), k);                                               \
            TS_ST(lly, TP_LY, TP_ADDR(lid, pos), l);                                               \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    } while (0)

/* Y gathered into X: SRC(c) is the address in Y of the item that lands in column c of row lid,
 * COL(s) the column that step s fills. */
#define TP_CONVERT(COL, SRC)                                                                       \
    do {                                                                                           \
        for (uint s = 0; s < TS_M; s++) {                                                          \
            uint c = (COL(s)) & (TS_M - 1), a = SRC(c);                                            \
            ts_key k = TS_LD(lky, TP_KY, a);                                                       \
            uint l = TS_LD(lly, TP_LY, a);                                                         \
            TS_ST(lkx, TP_KX, TP_ADDR(lid, c), k);                                                 \
            TS_ST(llx, TP_LX, TP_ADDR(lid, c), l);                                                 \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    } while (0)
/* The row lid holds in its super-row, and the super-row's first row. */
#define TP_SR (lid & (TP_S - 1u))
#define TP_SB (lid & ~(TP_S - 1u))
/* From row-major order: (r, c) of a super-row receives its linear index L = c * S + r, which was
 * at (L / M, L % M). */
#define TP_ROWS_COL(s) ((s) + TP_SR * TP_Q)
#define TP_ROWS_SRC(c) TP_ADDR(TP_SB + ((c) * TP_S + TP_SR) / TS_M, ((c) * TP_S + TP_SR) % TS_M)
/* From column-major order: (r, c) receives L = r * M + c, which was at (L % S, L / S). */
#define TP_COLS_COL(s) ((s) + TP_SR)
#define TP_COLS_SRC(c) TP_ADDR(TP_SB + (TP_SR * TS_M + (c)) % TP_S, (TP_SR * TS_M + (c)) / TP_S)
/* Transpose (W = M): (r, c) receives (c, r). */
#define TP_TR_COL(s) ((s) + lid)
#define TP_TR_SRC(c) TP_ADDR(c, lid)

__kernel TS_ATTRS void clperm_partition_tile_counting(__global ts_key *keys, __global ts_val *values, ulong n,
                                                      ulong seg TS_LIST_PARAMS TS_TRACE_PARAMS) {
    __local ts_key lkx[TS_T * TS_G], lky[TS_T * TS_G];
    __local uint llx[TS_T * TS_G], lly[TS_T * TS_G], lc[TP_LABELS * TS_W * TS_G];
    TS_SEGMENT;
    TS_TRACE_BEGIN;
    /* Element e to address e: row e % W, column e / W (any arrangement will do). */
    for (uint q = 0; q < TS_M; q++) {
        uint e = q * TS_W + lid;
        ts_key k = e < len ? ts_to_ordered(keys[base + e]) : (ts_key)0;
        TS_ST(lkx, TP_KX, e, k);
        TS_ST(llx, TP_LX, e, e < len ? TP_LABEL(k) : TP_NL);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if TP_S == TS_W
    /* Corollary 1: Lemma 1 on the tile. */
#pragma unroll 1
    for (uint pass = 0; pass < 2; pass++) {
        TP_SORT_ROWS(lid & 1); /* alternating order */
        TP_CONVERT(TP_ROWS_COL, TP_ROWS_SRC);
        TP_SORT_ROWS(0);
        TP_CONVERT(TP_COLS_COL, TP_COLS_SRC);
    }
    TP_SORT_ROWS(0);
    TP_CONVERT(TP_ROWS_COL, TP_ROWS_SRC);
#else
    /* Theorem 1: twice Lemma 1 on the super-rows and a column sort, then a row sort. */
#pragma unroll 1
    for (uint round = 0; round < 2; round++) {
#pragma unroll 1
        for (uint pass = 0; pass < 2; pass++) {
            TP_SORT_ROWS(lid & 1);
            TP_CONVERT(TP_ROWS_COL, TP_ROWS_SRC);
            TP_SORT_ROWS(0);
            TP_CONVERT(TP_COLS_COL, TP_COLS_SRC);
        }
        TP_SORT_ROWS(round & (lid / TP_S)); /* descending in the odd super-rows the second time */
        TP_CONVERT(TP_TR_COL, TP_TR_SRC);
        TP_SORT_ROWS(0);
        TP_CONVERT(TP_TR_COL, TP_TR_SRC);
    }
    TP_SORT_ROWS(0);
    TP_CONVERT(TP_TR_COL, TP_TR_SRC);
#endif
    for (uint q = 0; q < TS_M; q++) {
        uint e = q * TS_W + lid;
        ts_key k = TS_LD(lkx, TP_KX, e);
        if (e < len) keys[base + e] = ts_from_ordered(k);
    }
    TS_TRACE_END;
}
#endif
