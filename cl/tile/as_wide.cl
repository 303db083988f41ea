/*
 * The Afshani-Sitchinava sort for W >= M (their Theorems 1 and 2), after cl/tile/common.h:
 *
 *   clperm_sort_tile_as_wide  Theorem 1 for square tiles (W = M: super-rows of sqrt(M) rows
 *                             sorted by Lemma 1), Theorem 2 for W > M (columns by a bitonic
 *                             network across the work-items, M x M blocks by Theorem 1), the
 *                             passes read from a table.
 *
 * Requires CLPERM_TS_S = sqrt(M), M a power of four with M <= W (else the program holds no
 * kernel), and CLPERM_TS_RUN = CLPERM_TS_S.
 */
/* sqrt(M) for the sort of Theorems 1 and 2, else 0. */
#ifndef CLPERM_TS_S
#define CLPERM_TS_S 0
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
 *   CLPERM_TS_AW_G, (r, c) at r*M + (c + r/(W/M)) mod M: the coalesced load and store of the
 *     tile (step q moves rows with r/(W/M) = q) and a work-item's own row;
 *   CLPERM_TS_AW_D, block-diagonal: (r, c) at c*W + (r & ~(M-1)) + (r + c) mod M: own rows, the
 *     row of r ^ j, a block's column read row by row, and the column-major to row-major gather;
 *   CLPERM_TS_AW_SR, super-row skew: (r, c) at c*W + (r & ~(S-1)) + (r + c + c/S) mod S: Lemma
 *     1's skew (Q = M/S = S) within the banks of each super-row.
 * The passes run from a table in one loop, so the compiler keeps one copy of the networks. */
#if CLPERM_TS_S > 0 && CLPERM_TS_M <= CLPERM_TS_W
#define CLPERM_TS_AW_S CLPERM_TS_S
#define CLPERM_TS_AW_B (CLPERM_TS_W / CLPERM_TS_M)
#define CLPERM_TS_AW_G(r, c) ((r) * CLPERM_TS_M + (((c) + (r) / CLPERM_TS_AW_B) & (CLPERM_TS_M - 1)))
#define CLPERM_TS_AW_G_E(e) CLPERM_TS_AW_G((e) / CLPERM_TS_M, (e) % CLPERM_TS_M)
#define CLPERM_TS_AW_D(r, c)                                                                       \
    ((c) * CLPERM_TS_W + ((r) & ~(uint)(CLPERM_TS_M - 1)) + (((r) + (c)) & (CLPERM_TS_M - 1)))
#define CLPERM_TS_AW_SR(r, c)                                                                      \
    ((c) * CLPERM_TS_W + ((r) & ~(uint)(CLPERM_TS_AW_S - 1)) +                                     \
     (((r) + (c) + (c) / CLPERM_TS_AW_S) & (CLPERM_TS_AW_S - 1)))

/* A pass: where the rows come from (CLPERM_TS_AW_LD_*), what sorts them (CLPERM_TS_AW_NET_*),
 * where they go (CLPERM_TS_AW_ST_*) and which rows go reversed (CLPERM_TS_AW_REV_*: odd rows of a
 * super-row, odd super-rows of a block, odd blocks). */
#define CLPERM_TS_AW_LD_NONE 0
#define CLPERM_TS_AW_LD_ROW_G 1
#define CLPERM_TS_AW_LD_ROW_D 2
#define CLPERM_TS_AW_LD_ROWS_S 3 /* Lemma 1's gather from row-major order */
#define CLPERM_TS_AW_LD_COLS_S 4 /* and from column-major order */
#define CLPERM_TS_AW_LD_COL_D 5  /* column lid % M of block lid / M */
#define CLPERM_TS_AW_LD_CONV_D 6 /* Theorem 2's column-major to row-major gather */
#define CLPERM_TS_AW_NET_NONE 0
#define CLPERM_TS_AW_NET_SORT 1
#define CLPERM_TS_AW_NET_MERGE 2
#define CLPERM_TS_AW_NET_LANES 3
#define CLPERM_TS_AW_ST_NONE 0
#define CLPERM_TS_AW_ST_ROW_S 1
#define CLPERM_TS_AW_ST_ROW_D 2
#define CLPERM_TS_AW_ST_ROW_G 3
#define CLPERM_TS_AW_ST_COL_D 4
#define CLPERM_TS_AW_REV_NO 0
#define CLPERM_TS_AW_REV_ROW 1
#define CLPERM_TS_AW_REV_SUPER 2
#define CLPERM_TS_AW_REV_BLOCK 3
/* One byte per field, read with a volatile load: folded into the code, the table became switches
 * on integers of 4 or 31 bits, and the table itself 3-byte integers, which Oclgrind misreads. */
#define CLPERM_TS_AW_P(ld, net, st, rev)                                                           \
    (CLPERM_TS_AW_LD_##ld | CLPERM_TS_AW_NET_##net << 8 | CLPERM_TS_AW_ST_##st << 16 |             \
     (uint)CLPERM_TS_AW_REV_##rev << 24)
#define CLPERM_TS_AW_LEMMA1(ld0, st4, rev4)                                                        \
    CLPERM_TS_AW_P(ld0, SORT, ROW_S, ROW), CLPERM_TS_AW_P(ROWS_S, MERGE, ROW_S, NO),               \
        CLPERM_TS_AW_P(COLS_S, MERGE, ROW_S, ROW), CLPERM_TS_AW_P(ROWS_S, MERGE, ROW_S, NO),       \
        CLPERM_TS_AW_P(COLS_S, MERGE, st4, rev4)
#define CLPERM_TS_AW_THEOREM1(ld0, st_last, rev_last)                                              \
    CLPERM_TS_AW_LEMMA1(ld0, ROW_D, NO), CLPERM_TS_AW_P(COL_D, SORT, COL_D, NO),                   \
        CLPERM_TS_AW_LEMMA1(ROW_D, ROW_D, SUPER), CLPERM_TS_AW_P(COL_D, SORT, COL_D, NO),          \
        CLPERM_TS_AW_P(ROW_D, SORT, st_last, rev_last)
#if CLPERM_TS_AW_B > 1
__constant uint clperm_ts_aw_passes[] = {
    CLPERM_TS_AW_P(ROW_G, SORT, ROW_D, NO),    CLPERM_TS_AW_P(NONE, LANES, NONE, NO),
    CLPERM_TS_AW_P(CONV_D, NONE, ROW_D, NO),   CLPERM_TS_AW_P(NONE, LANES, NONE, NO),
    CLPERM_TS_AW_THEOREM1(NONE, ROW_D, BLOCK), CLPERM_TS_AW_P(ROW_D, LANES, NONE, NO),
    CLPERM_TS_AW_P(NONE, SORT, ROW_G, NO)};
#else
__constant uint clperm_ts_aw_passes[] = {CLPERM_TS_AW_THEOREM1(ROW_G, ROW_G, NO)};
#endif

__kernel CLPERM_TS_ATTRS void
clperm_sort_tile_as_wide(__global clperm_ts_key *keys, __global clperm_ts_val *values, ulong n,
                         ulong seg CLPERM_TS_LIST_PARAMS CLPERM_TS_TRACE_PARAMS) {
    CLPERM_TS_LOCAL_DECL;
    CLPERM_TS_SEGMENT;
    CLPERM_TS_TRACE_BEGIN;
    clperm_ts_key k[CLPERM_TS_M];
    uint p[CLPERM_TS_M];
    const uint sbase = lid & ~(uint)(CLPERM_TS_AW_S - 1), sr = lid & (CLPERM_TS_AW_S - 1);
    const uint bbase = lid & ~(uint)(CLPERM_TS_M - 1), bc = lid & (CLPERM_TS_M - 1);
    CLPERM_TS_LOAD_TILE(CLPERM_TS_AW_G_E);
#pragma unroll 1
    for (uint pass = 0; pass < sizeof clperm_ts_aw_passes / sizeof clperm_ts_aw_passes[0]; pass++) {
        const uint op = ((volatile __constant uint *)clperm_ts_aw_passes)[pass];
        const uint ld = op & 255u, net = (op >> 8) & 255u, st = (op >> 16) & 255u, rev = op >> 24;
        if (ld == CLPERM_TS_AW_LD_ROW_G) {
            CLPERM_TS_UNROLL for (uint v = 0; v < CLPERM_TS_M; v++)
                CLPERM_TS_LD_ITEM(CLPERM_TS_AW_G(lid, v), k[v], p[v]);
        } else if (ld == CLPERM_TS_AW_LD_ROW_D) {
            CLPERM_TS_UNROLL for (uint v = 0; v < CLPERM_TS_M; v++)
                CLPERM_TS_LD_ITEM(CLPERM_TS_AW_D(lid, v), k[v], p[v]);
        } else if (ld == CLPERM_TS_AW_LD_ROWS_S) {
            CLPERM_TS_UNROLL for (uint v = 0; v < CLPERM_TS_M; v++) {
                uint l =
                    CLPERM_TS_RUN_OF_ROWS(v / CLPERM_TS_AW_S, v % CLPERM_TS_AW_S, CLPERM_TS_AW_S) * CLPERM_TS_AW_S + sr;
                CLPERM_TS_LD_ITEM(CLPERM_TS_AW_SR(sbase + l / CLPERM_TS_M, l % CLPERM_TS_M), k[v], p[v]);
            }
        } else if (ld == CLPERM_TS_AW_LD_COLS_S) {
            CLPERM_TS_UNROLL for (uint v = 0; v < CLPERM_TS_M; v++) {
                uint l =
                    sr * CLPERM_TS_M + CLPERM_TS_RUN_OF_COLS(v / CLPERM_TS_AW_S, v % CLPERM_TS_AW_S, CLPERM_TS_AW_S);
                CLPERM_TS_LD_ITEM(CLPERM_TS_AW_SR(sbase + l % CLPERM_TS_AW_S, l / CLPERM_TS_AW_S), k[v], p[v]);
            }
        } else if (ld == CLPERM_TS_AW_LD_COL_D) {
            CLPERM_TS_UNROLL for (uint v = 0; v < CLPERM_TS_M; v++)
                CLPERM_TS_LD_ITEM(CLPERM_TS_AW_D(bbase + v, bc), k[v], p[v]);
        } else if (ld == CLPERM_TS_AW_LD_CONV_D) {
            CLPERM_TS_UNROLL for (uint v = 0; v < CLPERM_TS_M; v++) {
                uint l = lid * CLPERM_TS_M + v;
                CLPERM_TS_LD_ITEM(CLPERM_TS_AW_D(l % CLPERM_TS_W, l / CLPERM_TS_W), k[v], p[v]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (net == CLPERM_TS_AW_NET_SORT) clperm_ts_sort_runs(k, p);
        if (net == CLPERM_TS_AW_NET_SORT || net == CLPERM_TS_AW_NET_MERGE) clperm_ts_merge_row(k, p);
        if (net == CLPERM_TS_AW_NET_LANES) {
            /* The row is in CLPERM_TS_AW_D and in k. */
            for (uint kk = 2; kk <= CLPERM_TS_W; kk <<= 1)
                for (uint jj = kk >> 1; jj > 0; jj >>= 1) {
                    const uint o = lid ^ jj;
                    const int keep_min = ((lid & kk) == 0) == (lid < o);
                    CLPERM_TS_UNROLL for (uint c = 0; c < CLPERM_TS_M; c++) {
                        clperm_ts_key ko;
                        uint po;
                        CLPERM_TS_LD_ITEM(CLPERM_TS_AW_D(o, c), ko, po);
                        int take = keep_min ? CLPERM_TS_GT(k[c], p[c], ko, po) : CLPERM_TS_GT(ko, po, k[c], p[c]);
                        k[c] = take ? ko : k[c];
                        p[c] = take ? po : p[c];
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                    CLPERM_TS_UNROLL for (uint c = 0; c < CLPERM_TS_M; c++)
                        CLPERM_TS_ST_ITEM(CLPERM_TS_AW_D(lid, c), k[c], p[c]);
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
        }
        const int desc = rev == CLPERM_TS_AW_REV_ROW     ? (int)(sr & 1)
                         : rev == CLPERM_TS_AW_REV_SUPER ? (int)((bc / CLPERM_TS_AW_S) & 1)
                         : rev == CLPERM_TS_AW_REV_BLOCK ? (int)((lid / CLPERM_TS_M) & 1)
                                                         : 0;
        if (st == CLPERM_TS_AW_ST_ROW_S) {
            CLPERM_TS_UNROLL for (uint c = 0; c < CLPERM_TS_M; c++)
                CLPERM_TS_ST_ITEM(CLPERM_TS_AW_SR(lid, c), desc ? k[CLPERM_TS_M - 1 - c] : k[c],
                                  desc ? p[CLPERM_TS_M - 1 - c] : p[c]);
        } else if (st == CLPERM_TS_AW_ST_ROW_D) {
            CLPERM_TS_UNROLL for (uint c = 0; c < CLPERM_TS_M; c++)
                CLPERM_TS_ST_ITEM(CLPERM_TS_AW_D(lid, c), desc ? k[CLPERM_TS_M - 1 - c] : k[c],
                                  desc ? p[CLPERM_TS_M - 1 - c] : p[c]);
        } else if (st == CLPERM_TS_AW_ST_ROW_G) {
            CLPERM_TS_UNROLL for (uint c = 0; c < CLPERM_TS_M; c++)
                CLPERM_TS_ST_ITEM(CLPERM_TS_AW_G(lid, c), k[c], p[c]);
        } else if (st == CLPERM_TS_AW_ST_COL_D) {
            CLPERM_TS_UNROLL for (uint c = 0; c < CLPERM_TS_M; c++)
                CLPERM_TS_ST_ITEM(CLPERM_TS_AW_D(bbase + c, bc), k[c], p[c]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    CLPERM_TS_STORE_TILE(CLPERM_TS_AW_G_E);
    CLPERM_TS_TRACE_END;
}
#endif
