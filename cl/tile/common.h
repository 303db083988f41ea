/*
 * The tile layer that every tile program starts with (an algorithm's file of cl/tile/ follows it),
 * in the discrete memory model (DMM) of Afshani and Sitchinava: a tile is a matrix of CLPERM_TS_W
 * rows by CLPERM_TS_M columns, row r is memory bank r, and the work-group is CLPERM_TS_W
 * work-items per tile (the model's processors), work-item r owning row r. Each tile holds one
 * segment of the input, padded.
 *
 * Holds: the options and their defaults; the key type clperm_ts_key and the key order
 * (clperm_ts_to_ordered, clperm_ts_from_ordered); the trace hooks every local-memory access goes
 * through (CLPERM_TS_LD, CLPERM_TS_ST, CLPERM_TS_SKIP and the trace build's kernel arguments); a
 * tile's keys and positions in local memory (CLPERM_TS_LOCAL_DECL, CLPERM_TS_LD_ITEM,
 * CLPERM_TS_ST_ITEM, their order CLPERM_TS_GT); the register networks (clperm_ts_sort_runs,
 * clperm_ts_merge_row, clperm_ts_sort_row, clperm_ts_sort_col); the segment of a work-group's tile
 * and its coalesced load and store (CLPERM_TS_SEGMENT, CLPERM_TS_LOAD_TILE, CLPERM_TS_STORE_TILE);
 * where the sorted runs of a gathered row lie (CLPERM_TS_RUN_OF_ROWS, CLPERM_TS_RUN_OF_COLS).
 *
 * Required: CLPERM_TS_W and CLPERM_TS_M (powers of two), CLPERM_TS_KEY_KIND (1 u32, 2 i32, 3 f32,
 * 4 u64, 5 i64, 6 f64), and before this file the networks CLPERM_TS_NET_RUNS, CLPERM_TS_NET_MERGE and
 * CLPERM_TS_NET_W (see clperm_ts_sort_row), with CLPERM_TS_RUN, the run length where the first two
 * split, named in the options. CLPERM_TS_VALUES 1 carries a u32 value per key and makes the sort
 * stable: the tile sorts (key, position) pairs and the values follow the positions. The same
 * kernels partition (CLPERM_TS_DIGIT_BITS): a stable sort by a label of a few bits.
 * CLPERM_TS_TRACE 1 records every local-memory access (see CLPERM_TS_NOTE) for the bank conflict
 * check.
 *
 * Keys are sorted by their bits mapped to an unsigned order: i32 and i64 with the sign bit flipped;
 * f32 and f64 as IEEE 754 totalOrder (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN).
 *
 * A program is the networks, this file, then one algorithm's file: src/tile/sort.c,
 * src/tile/partition.c and src/tile/transpose.c list them.
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
#define CLPERM_TS_POSITIONS (CLPERM_TS_VALUES || CLPERM_TS_DIGIT_BITS)
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
#define CLPERM_TS_LIST_PARAMS , const __global ulong *ts_list, ulong ts_first
#else
#define CLPERM_TS_LIST_PARAMS
#endif
#if CLPERM_TS_VALUE64
typedef ulong clperm_ts_val;
#else
typedef uint clperm_ts_val;
#endif
/* Loops over a work-item's registers unroll in full so that every index is static. NVIDIA's
 * compiler needs the hint; elsewhere it is left out (Oclgrind misreads the unrolled column loops
 * as moving uninitialised values). */
#if defined(CLPERM_NVIDIA) && CLPERM_NVIDIA
#define CLPERM_TS_UNROLL _Pragma("unroll")
#else
#define CLPERM_TS_UNROLL
#endif

#define CLPERM_TS_ATTRS __attribute__((reqd_work_group_size(CLPERM_TS_W * CLPERM_TS_TILES, 1, 1)))
#define CLPERM_TS_T (CLPERM_TS_W * CLPERM_TS_M)
#define CLPERM_TS_PAD(a) ((a) + (a) / CLPERM_TS_W)
#define CLPERM_TS_PADDED_T CLPERM_TS_PAD(CLPERM_TS_T)

#if CLPERM_TS_KEY_KIND >= CLPERM_KEYKIND_U64
typedef ulong clperm_ts_key;
#define CLPERM_TS_KEY_MAX ((ulong)0xFFFFFFFFFFFFFFFFUL)
#else
typedef uint clperm_ts_key;
#define CLPERM_TS_KEY_MAX 0xFFFFFFFFu
#endif

/* The key's order-preserving form and back (clperm_features.h), at the key's width. */
#define CLPERM_TS_KEY_BITS CLPERM_KEY_BITS(CLPERM_TS_KEY_KIND)
#define CLPERM_TS_POS ((clperm_ts_key)CLPERM_KEY_POS_XOR(CLPERM_TS_KEY_KIND))
#define CLPERM_TS_NEG ((clperm_ts_key)CLPERM_KEY_NEG_XOR(CLPERM_TS_KEY_KIND))
inline clperm_ts_key clperm_ts_to_ordered_up(clperm_ts_key k) {
    return CLPERM_KEY_ORDER(k, CLPERM_TS_KEY_BITS, CLPERM_TS_POS, CLPERM_TS_NEG);
}
inline clperm_ts_key clperm_ts_from_ordered_up(clperm_ts_key k) {
    return CLPERM_KEY_UNORDER(k, CLPERM_TS_KEY_BITS, CLPERM_TS_POS, CLPERM_TS_NEG);
}

inline clperm_ts_key clperm_ts_to_ordered(clperm_ts_key k) {
    return CLPERM_TS_FLIP ? ~clperm_ts_to_ordered_up(k) : clperm_ts_to_ordered_up(k);
}
inline clperm_ts_key clperm_ts_from_ordered(clperm_ts_key k) {
    return clperm_ts_from_ordered_up(CLPERM_TS_FLIP ? ~k : k);
}

/* ---- every local-memory access goes through CLPERM_TS_LD and CLPERM_TS_ST ----
 * In a trace build each work-item writes, per access, the address into its own record of the
 * trace buffer: record[0] holds the number of steps, record[1 + s] the address of step s (keys at
 * [0, CLPERM_TS_PADDED_T), positions after them), or CLPERM_TS_IDLE where the work-item made no
 * access while the others of its work-group did. Work-items of a work-group run the same sequence
 * of steps, so step s of all of them is one access of the subgroup. The host reads and counts the
 * trace in src/tile/trace.c (the format and the model are in src/tile/tile.h). */
#define CLPERM_TS_IDLE 0xFFFFFFFFu
#if CLPERM_TS_TRACE
#define CLPERM_TS_TRACE_PARAMS , __global uint *ts_trace, uint ts_trace_cap
#define CLPERM_TS_TRACE_BEGIN                                                                      \
    __global uint *ts_rec = ts_trace + ((size_t)tile * CLPERM_TS_W + lid) * (ts_trace_cap + 1);    \
    uint ts_step = 0
#define CLPERM_TS_NOTE(addr)                                                                       \
    (ts_step < ts_trace_cap ? (ts_rec[1 + ts_step] = (uint)(addr)) : 0u, ts_step++)
#define CLPERM_TS_SKIP(count)                                                                      \
    for (uint ts_i = 0; ts_i < (uint)(count); ts_i++) CLPERM_TS_NOTE(CLPERM_TS_IDLE)
#define CLPERM_TS_TRACE_END ts_rec[0] = ts_step
#else
#define CLPERM_TS_TRACE_PARAMS
#define CLPERM_TS_TRACE_BEGIN
#define CLPERM_TS_NOTE(addr) 0u
#define CLPERM_TS_SKIP(count)
#define CLPERM_TS_TRACE_END
#endif

#define CLPERM_TS_LD(arr, base, a)                                                                 \
    (CLPERM_TS_NOTE((base) + (a)), (arr)[(a) * CLPERM_TS_TILES + ts_g])
#define CLPERM_TS_ST(arr, base, a, v)                                                              \
    do {                                                                                           \
        CLPERM_TS_NOTE((base) + (a));                                                              \
        (arr)[(a) * CLPERM_TS_TILES + ts_g] = (v);                                                 \
    } while (0)

/* Keys and positions of the tile. Positions (kept with values and in partitions) order equal keys
 * and mark the padding, which sorts last. */
#if CLPERM_TS_POSITIONS
#if CLPERM_TS_DIGIT_BITS
#define CLPERM_TS_DIGIT(k) (((k) >> CLPERM_TS_DIGIT_SHIFT) & ((1u << CLPERM_TS_DIGIT_BITS) - 1u))
#define CLPERM_TS_GT(ka, pa, kb, pb)                                                               \
    (CLPERM_TS_DIGIT(ka) > CLPERM_TS_DIGIT(kb) || (CLPERM_TS_DIGIT(ka) == CLPERM_TS_DIGIT(kb) && (pa) > (pb)))
#else
#define CLPERM_TS_GT(ka, pa, kb, pb) ((ka) > (kb) || ((ka) == (kb) && (pa) > (pb)))
#endif
#define CLPERM_TS_LOCAL_DECL                                                                       \
    __local clperm_ts_key lk[CLPERM_TS_PADDED_T * CLPERM_TS_TILES];                                \
    __local uint lp[CLPERM_TS_PADDED_T * CLPERM_TS_TILES]
#define CLPERM_TS_LD_ITEM(a, k, p)                                                                 \
    do {                                                                                           \
        k = CLPERM_TS_LD(lk, 0, a);                                                                \
        p = CLPERM_TS_LD(lp, CLPERM_TS_PADDED_T, a);                                               \
    } while (0)
#define CLPERM_TS_ST_ITEM(a, k, p)                                                                 \
    do {                                                                                           \
        CLPERM_TS_ST(lk, 0, a, k);                                                                 \
        CLPERM_TS_ST(lp, CLPERM_TS_PADDED_T, a, p);                                                \
    } while (0)
#define CLPERM_TS_ACCESSES 2
#else
#define CLPERM_TS_GT(ka, pa, kb, pb) ((ka) > (kb))
#define CLPERM_TS_LOCAL_DECL __local clperm_ts_key lk[CLPERM_TS_PADDED_T * CLPERM_TS_TILES]
#define CLPERM_TS_LD_ITEM(a, k, p)                                                                 \
    do {                                                                                           \
        k = CLPERM_TS_LD(lk, 0, a);                                                                \
        p = 0;                                                                                     \
    } while (0)
#define CLPERM_TS_ST_ITEM(a, k, p) CLPERM_TS_ST(lk, 0, a, k)
#define CLPERM_TS_ACCESSES 1
#endif

/* Compare-exchange of (k[i], p[i]) and (k[j], p[j]): afterwards the smaller first when up. */
#define CLPERM_TS_CSWAP(k, p, i, j, up)                                                            \
    do {                                                                                           \
        clperm_ts_key ts_ka = k[i], ts_kb = k[j];                                                  \
        uint ts_pa = p[i], ts_pb = p[j];                                                           \
        int ts_s = CLPERM_TS_GT(ts_ka, ts_pa, ts_kb, ts_pb) == (up);                               \
        k[i] = ts_s ? ts_kb : ts_ka;                                                               \
        k[j] = ts_s ? ts_ka : ts_kb;                                                               \
        p[i] = ts_s ? ts_pb : ts_pa;                                                               \
        p[j] = ts_s ? ts_pa : ts_pb;                                                               \
    } while (0)

/* Sorting networks on registers, ascending, lists of CLPERM_TS_CX(i, j) (compare-exchange of k[i]
 * and k[j]) that the host writes before this file: Batcher's odd-even merge sort (191
 * compare-exchanges for 32 keys against the bitonic network's 240), split where its runs reach
 * the length of the sorted runs a gathered row holds: CLPERM_TS_NET_RUNS sorts those runs,
 * CLPERM_TS_NET_MERGE merges them, the two sort M keys; CLPERM_TS_NET_W sorts W. Straight-line
 * code, so every index is static and the keys stay in registers. */
#define CLPERM_TS_CX(i, j) CLPERM_TS_CSWAP(k, p, i, j, 1);
inline void clperm_ts_sort_runs(clperm_ts_key *k, uint *p) { CLPERM_TS_NET_RUNS }
inline void clperm_ts_merge_row(clperm_ts_key *k, uint *p) { CLPERM_TS_NET_MERGE }
inline void clperm_ts_sort_row(clperm_ts_key *k, uint *p) {
    clperm_ts_sort_runs(k, p);
    clperm_ts_merge_row(k, p);
}
inline void clperm_ts_sort_col(clperm_ts_key *k, uint *p) { CLPERM_TS_NET_W }

/* Segment bounds of this work-group. */
#if CLPERM_TS_LIST
#define CLPERM_TS_SEGMENT                                                                          \
    const uint lid = get_local_id(0) % CLPERM_TS_W, ts_g = get_local_id(0) / CLPERM_TS_W;          \
    const ulong tile = (ulong)get_group_id(0) * CLPERM_TS_TILES + ts_g;                            \
    const ulong base = tile < n ? ts_list[2 * (ts_first + tile)] : 0;                              \
    const uint len = tile < n ? (uint)min(seg, ts_list[2 * (ts_first + tile) + 1]) : 0u
#else
#define CLPERM_TS_SEGMENT                                                                          \
    const uint lid = get_local_id(0) % CLPERM_TS_W, ts_g = get_local_id(0) / CLPERM_TS_W;          \
    const ulong tile = (ulong)get_group_id(0) * CLPERM_TS_TILES + ts_g;                            \
    const ulong base = tile * seg;                                                                 \
    const uint len = base < n ? (uint)min((ulong)seg, n - base) : 0u
#endif

/* Element e of the segment in tile order, loaded (padding past len) or stored, coalesced: step q
 * moves elements q*W .. q*W + W-1. ADDR(e) is the tile address of element e. */
#define CLPERM_TS_LOAD_TILE(ADDR)                                                                  \
    for (uint q = 0; q < CLPERM_TS_M; q++) {                                                       \
        uint e = q * CLPERM_TS_W + lid;                                                            \
        clperm_ts_key k = e < len ? clperm_ts_to_ordered(keys[base + e]) : CLPERM_TS_KEY_MAX;      \
        uint p = e;                                                                                \
        CLPERM_TS_ST_ITEM(ADDR(e), k, p);                                                          \
    }                                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE)

#if CLPERM_TS_VALUES
/* Values follow positions: all are read before any is written, since the segment is sorted in
 * place. */
#define CLPERM_TS_STORE_TILE(ADDR)                                                                 \
    do {                                                                                           \
        clperm_ts_key ks[CLPERM_TS_M];                                                             \
        clperm_ts_val vs[CLPERM_TS_M];                                                             \
        CLPERM_TS_UNROLL for (uint q = 0; q < CLPERM_TS_M; q++) {                                  \
            uint e = q * CLPERM_TS_W + lid, p;                                                     \
            CLPERM_TS_LD_ITEM(ADDR(e), ks[q], p);                                                  \
            vs[q] = e < len ? values[base + p] : (clperm_ts_val)0;                                 \
        }                                                                                          \
        barrier(CLK_GLOBAL_MEM_FENCE);                                                             \
        CLPERM_TS_UNROLL for (uint q = 0; q < CLPERM_TS_M; q++) {                                  \
            uint e = q * CLPERM_TS_W + lid;                                                        \
            if (e < len) {                                                                         \
                keys[base + e] = clperm_ts_from_ordered(ks[q]);                                    \
                values[base + e] = vs[q];                                                          \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#else
#define CLPERM_TS_STORE_TILE(ADDR)                                                                 \
    for (uint q = 0; q < CLPERM_TS_M; q++) {                                                       \
        uint e = q * CLPERM_TS_W + lid, p;                                                         \
        clperm_ts_key k;                                                                           \
        CLPERM_TS_LD_ITEM(ADDR(e), k, p);                                                          \
        if (e < len) keys[base + e] = clperm_ts_from_ordered(k);                                   \
    }
#endif

/* The column that holds element t of run j, for runs of q in rows of m after a row-major source
 * whose odd rows are descending, and after a column-major source of `rows` ascending rows. */
#define CLPERM_TS_RUN_OF_ROWS(j, t, q) ((j) * (q) + (((j) & 1) ? (q) - 1 - (t) : (t)))
#define CLPERM_TS_RUN_OF_COLS(j, t, rows) ((j) + (t) * (rows))
