/*
 * Shearsort (Sitchinava and Weichert) on the diagonal arrangement, after cl/tile/common.h:
 *
 *   clperm_sort_tile_shear  element (r, c) at address c*W + (r + c) mod W, so a row (one
 *                           work-item's) and a column (W work-items, one row each) are both read
 *                           without bank conflicts. log2(W) rounds of rows in alternating order
 *                           and columns ascending, then rows ascending. Rows and columns are
 *                           sorted in registers (clperm_ts_sort_row, clperm_ts_sort_col).
 *
 * Requires M >= W (else the program holds no kernel).
 */
#define CLPERM_TS_DIAG(r, c) ((c) * CLPERM_TS_W + (((r) + (c)) & (CLPERM_TS_W - 1)))
#define CLPERM_TS_DIAG_E(e) CLPERM_TS_DIAG((e) / CLPERM_TS_M, (e) % CLPERM_TS_M)
#define CLPERM_TS_LOG2_W (31 - clz((uint)CLPERM_TS_W))

/* Row lid into registers, sorted, back in place (reversed when desc). */
#define CLPERM_TS_SHEAR_ROWS(desc)                                                                 \
    CLPERM_TS_UNROLL for (uint c = 0; c < CLPERM_TS_M; c++)                                        \
        CLPERM_TS_LD_ITEM(CLPERM_TS_DIAG(lid, c), k[c], p[c]);                                     \
    clperm_ts_sort_row(k, p);                                                                      \
    CLPERM_TS_UNROLL for (uint c = 0; c < CLPERM_TS_M; c++) {                                      \
        int ts_d = (desc);                                                                         \
        CLPERM_TS_ST_ITEM(CLPERM_TS_DIAG(lid, c), ts_d ? k[CLPERM_TS_M - 1 - c] : k[c],            \
                          ts_d ? p[CLPERM_TS_M - 1 - c] : p[c]);                                   \
    }                                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE)

#if CLPERM_TS_M >= CLPERM_TS_W
__kernel CLPERM_TS_ATTRS void
clperm_sort_tile_shear(__global clperm_ts_key *keys, __global clperm_ts_val *values, ulong n,
                       ulong seg CLPERM_TS_LIST_PARAMS CLPERM_TS_TRACE_PARAMS) {
    CLPERM_TS_LOCAL_DECL;
    CLPERM_TS_SEGMENT;
    CLPERM_TS_TRACE_BEGIN;
    clperm_ts_key k[CLPERM_TS_M > CLPERM_TS_W ? CLPERM_TS_M : CLPERM_TS_W];
    uint p[CLPERM_TS_M > CLPERM_TS_W ? CLPERM_TS_M : CLPERM_TS_W];
    CLPERM_TS_LOAD_TILE(CLPERM_TS_DIAG_E);
    for (uint round = 0; round < CLPERM_TS_LOG2_W; round++) {
        CLPERM_TS_SHEAR_ROWS(lid & 1); /* alternating order */
        /* Columns lid, lid + W, ...: ascending from row 0 down. */
        for (uint c = lid; c < CLPERM_TS_M; c += CLPERM_TS_W) {
            CLPERM_TS_UNROLL for (uint r = 0; r < CLPERM_TS_W; r++)
                CLPERM_TS_LD_ITEM(CLPERM_TS_DIAG(r, c), k[r], p[r]);
            clperm_ts_sort_col(k, p);
            CLPERM_TS_UNROLL for (uint r = 0; r < CLPERM_TS_W; r++)
                CLPERM_TS_ST_ITEM(CLPERM_TS_DIAG(r, c), k[r], p[r]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    CLPERM_TS_SHEAR_ROWS(0);
    CLPERM_TS_STORE_TILE(CLPERM_TS_DIAG_E);
    CLPERM_TS_TRACE_END;
}
#endif
