/*
 * The Afshani-Sitchinava partition by counting (their Corollary 1 and Theorem 1), after
 * cl/tile/common.h:
 *
 *   clperm_partition_tile_counting  O(M) per row by counting sorts, no bank conflicts, not
 *                                   stable; keys only.
 *
 * Requires CLPERM_TS_COUNTING (the height of a super-row: W for Corollary 1 with W * W <= M, or
 * sqrt(W) for Theorem 1 with W = M), CLPERM_TS_DIGIT_BITS (1..8) and CLPERM_TS_DIGIT_SHIFT; the
 * register networks go unused (the host writes them empty).
 */
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
#if !defined(CLPERM_TS_COUNTING) || !CLPERM_TS_COUNTING
#error "CLPERM_TS_COUNTING must be defined"
#endif
#define CLPERM_TS_TP_S CLPERM_TS_COUNTING
#if !(CLPERM_TS_TP_S == CLPERM_TS_W && CLPERM_TS_M >= CLPERM_TS_W * CLPERM_TS_W) &&                \
    !(CLPERM_TS_TP_S * CLPERM_TS_TP_S == CLPERM_TS_W && CLPERM_TS_W == CLPERM_TS_M)
#error "the counting partition needs W * W <= M (Corollary 1) or W = M = S * S (Theorem 1)"
#endif
#define CLPERM_TS_TP_ADDR(r, c) ((c) * CLPERM_TS_W + (r))
#define CLPERM_TS_TP_Q (CLPERM_TS_M / CLPERM_TS_TP_S)
#define CLPERM_TS_TP_NL (1u << CLPERM_TS_DIGIT_BITS) /* the padding's label */
#define CLPERM_TS_TP_LABELS (CLPERM_TS_TP_NL + 1u)
#define CLPERM_TS_TP_LABEL(k) ((uint)((k) >> CLPERM_TS_DIGIT_SHIFT) & (CLPERM_TS_TP_NL - 1u))
/* Trace addresses: keys X, keys Y, labels X, labels Y, counters. */
#define CLPERM_TS_TP_KX 0
#define CLPERM_TS_TP_KY CLPERM_TS_T
#define CLPERM_TS_TP_LX (2 * CLPERM_TS_T)
#define CLPERM_TS_TP_LY (3 * CLPERM_TS_T)
#define CLPERM_TS_TP_C (4 * CLPERM_TS_T)

/* Row lid of X counting-sorted by label into Y (labels in decreasing order when desc). */
#define CLPERM_TS_TP_SORT_ROWS(desc)                                                                                \
    do {                                                                                                            \
        for (uint b = 0; b < CLPERM_TS_TP_LABELS; b++) CLPERM_TS_ST(lc, CLPERM_TS_TP_C, b * CLPERM_TS_W + lid, 0u); \
        for (uint c = 0; c < CLPERM_TS_M; c++) {                                                                    \
            uint l = CLPERM_TS_LD(llx, CLPERM_TS_TP_LX, CLPERM_TS_TP_ADDR(lid, c));                                 \
            uint v = CLPERM_TS_LD(lc, CLPERM_TS_TP_C, l * CLPERM_TS_W + lid);                                       \
            CLPERM_TS_ST(lc, CLPERM_TS_TP_C, l * CLPERM_TS_W + lid, v + 1u);                                        \
        }                                                                                                           \
        uint acc = 0;                                                                                               \
        for (uint i = 0; i < CLPERM_TS_TP_LABELS; i++) {                                                            \
            uint b = (desc) ? CLPERM_TS_TP_LABELS - 1 - i : i;                                                      \
            uint v = CLPERM_TS_LD(lc, CLPERM_TS_TP_C, b * CLPERM_TS_W + lid);                                       \
            CLPERM_TS_ST(lc, CLPERM_TS_TP_C, b * CLPERM_TS_W + lid, acc);                                           \
            acc += v;                                                                                               \
        }                                                                                                           \
        for (uint c = 0; c < CLPERM_TS_M; c++) {                                                                    \
            uint l = CLPERM_TS_LD(llx, CLPERM_TS_TP_LX, CLPERM_TS_TP_ADDR(lid, c));                                 \
            clperm_ts_key k = CLPERM_TS_LD(lkx, CLPERM_TS_TP_KX, CLPERM_TS_TP_ADDR(lid, c));                        \
            uint pos = CLPERM_TS_LD(lc, CLPERM_TS_TP_C, l * CLPERM_TS_W + lid);                                     \
            CLPERM_TS_ST(lc, CLPERM_TS_TP_C, l * CLPERM_TS_W + lid, pos + 1u);                                      \
            CLPERM_TS_ST(lky, CLPERM_TS_TP_KY, CLPERM_TS_TP_ADDR(lid, pos), k);                                     \
            CLPERM_TS_ST(lly, CLPERM_TS_TP_LY, CLPERM_TS_TP_ADDR(lid, pos), l);                                     \
        }                                                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                               \
    } while (0)

/* Y gathered into X: SRC(c) is the address in Y of the item that lands in column c of row lid,
 * COL(s) the column that step s fills. */
#define CLPERM_TS_TP_CONVERT(COL, SRC)                                                             \
    do {                                                                                           \
        for (uint s = 0; s < CLPERM_TS_M; s++) {                                                   \
            uint c = (COL(s)) & (CLPERM_TS_M - 1), a = SRC(c);                                     \
            clperm_ts_key k = CLPERM_TS_LD(lky, CLPERM_TS_TP_KY, a);                               \
            uint l = CLPERM_TS_LD(lly, CLPERM_TS_TP_LY, a);                                        \
            CLPERM_TS_ST(lkx, CLPERM_TS_TP_KX, CLPERM_TS_TP_ADDR(lid, c), k);                      \
            CLPERM_TS_ST(llx, CLPERM_TS_TP_LX, CLPERM_TS_TP_ADDR(lid, c), l);                      \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    } while (0)
/* The row lid holds in its super-row, and the super-row's first row. */
#define CLPERM_TS_TP_SR (lid & (CLPERM_TS_TP_S - 1u))
#define CLPERM_TS_TP_SB (lid & ~(CLPERM_TS_TP_S - 1u))
/* From row-major order: (r, c) of a super-row receives its linear index L = c * S + r, which was
 * at (L / M, L % M). */
#define CLPERM_TS_TP_ROWS_COL(s) ((s) + CLPERM_TS_TP_SR * CLPERM_TS_TP_Q)
#define CLPERM_TS_TP_ROWS_SRC(c)                                                                   \
    CLPERM_TS_TP_ADDR(CLPERM_TS_TP_SB + ((c) * CLPERM_TS_TP_S + CLPERM_TS_TP_SR) / CLPERM_TS_M,    \
                      ((c) * CLPERM_TS_TP_S + CLPERM_TS_TP_SR) % CLPERM_TS_M)
/* From column-major order: (r, c) receives L = r * M + c, which was at (L % S, L / S). */
#define CLPERM_TS_TP_COLS_COL(s) ((s) + CLPERM_TS_TP_SR)
#define CLPERM_TS_TP_COLS_SRC(c)                                                                   \
    CLPERM_TS_TP_ADDR(CLPERM_TS_TP_SB + (CLPERM_TS_TP_SR * CLPERM_TS_M + (c)) % CLPERM_TS_TP_S,    \
                      (CLPERM_TS_TP_SR * CLPERM_TS_M + (c)) / CLPERM_TS_TP_S)
/* Transpose (W = M): (r, c) receives (c, r). */
#define CLPERM_TS_TP_TR_COL(s) ((s) + lid)
#define CLPERM_TS_TP_TR_SRC(c) CLPERM_TS_TP_ADDR(c, lid)

__kernel CLPERM_TS_ATTRS void
clperm_partition_tile_counting(__global clperm_ts_key *keys, __global clperm_ts_val *values, ulong n,
                               ulong seg CLPERM_TS_LIST_PARAMS CLPERM_TS_TRACE_PARAMS) {
    __local clperm_ts_key lkx[CLPERM_TS_T * CLPERM_TS_TILES], lky[CLPERM_TS_T * CLPERM_TS_TILES];
    __local uint llx[CLPERM_TS_T * CLPERM_TS_TILES], lly[CLPERM_TS_T * CLPERM_TS_TILES],
        lc[CLPERM_TS_TP_LABELS * CLPERM_TS_W * CLPERM_TS_TILES];
    CLPERM_TS_SEGMENT;
    CLPERM_TS_TRACE_BEGIN;
    /* Element e to address e: row e % W, column e / W (any arrangement will do). */
    for (uint q = 0; q < CLPERM_TS_M; q++) {
        uint e = q * CLPERM_TS_W + lid;
        clperm_ts_key k = e < len ? clperm_ts_to_ordered(keys[base + e]) : (clperm_ts_key)0;
        CLPERM_TS_ST(lkx, CLPERM_TS_TP_KX, e, k);
        CLPERM_TS_ST(llx, CLPERM_TS_TP_LX, e, e < len ? CLPERM_TS_TP_LABEL(k) : CLPERM_TS_TP_NL);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLPERM_TS_TP_S == CLPERM_TS_W
    /* Corollary 1: Lemma 1 on the tile. */
#pragma unroll 1
    for (uint pass = 0; pass < 2; pass++) {
        CLPERM_TS_TP_SORT_ROWS(lid & 1); /* alternating order */
        CLPERM_TS_TP_CONVERT(CLPERM_TS_TP_ROWS_COL, CLPERM_TS_TP_ROWS_SRC);
        CLPERM_TS_TP_SORT_ROWS(0);
        CLPERM_TS_TP_CONVERT(CLPERM_TS_TP_COLS_COL, CLPERM_TS_TP_COLS_SRC);
    }
    CLPERM_TS_TP_SORT_ROWS(0);
    CLPERM_TS_TP_CONVERT(CLPERM_TS_TP_ROWS_COL, CLPERM_TS_TP_ROWS_SRC);
#else
    /* Theorem 1: twice Lemma 1 on the super-rows and a column sort, then a row sort. */
#pragma unroll 1
    for (uint round = 0; round < 2; round++) {
#pragma unroll 1
        for (uint pass = 0; pass < 2; pass++) {
            CLPERM_TS_TP_SORT_ROWS(lid & 1);
            CLPERM_TS_TP_CONVERT(CLPERM_TS_TP_ROWS_COL, CLPERM_TS_TP_ROWS_SRC);
            CLPERM_TS_TP_SORT_ROWS(0);
            CLPERM_TS_TP_CONVERT(CLPERM_TS_TP_COLS_COL, CLPERM_TS_TP_COLS_SRC);
        }
        CLPERM_TS_TP_SORT_ROWS(round & (lid / CLPERM_TS_TP_S)); /* descending in the odd super-rows the second time */
        CLPERM_TS_TP_CONVERT(CLPERM_TS_TP_TR_COL, CLPERM_TS_TP_TR_SRC);
        CLPERM_TS_TP_SORT_ROWS(0);
        CLPERM_TS_TP_CONVERT(CLPERM_TS_TP_TR_COL, CLPERM_TS_TP_TR_SRC);
    }
    CLPERM_TS_TP_SORT_ROWS(0);
    CLPERM_TS_TP_CONVERT(CLPERM_TS_TP_TR_COL, CLPERM_TS_TP_TR_SRC);
#endif
    for (uint q = 0; q < CLPERM_TS_M; q++) {
        uint e = q * CLPERM_TS_W + lid;
        clperm_ts_key k = CLPERM_TS_LD(lkx, CLPERM_TS_TP_KX, e);
        if (e < len) keys[base + e] = clperm_ts_from_ordered(k);
    }
    CLPERM_TS_TRACE_END;
}
