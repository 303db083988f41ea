/*
 * The Afshani-Sitchinava sort for W <= sqrt(M) (their Lemma 1), after cl/tile/common.h:
 *
 *   clperm_sort_tile_as  five row sorts, with two conversions each way between row-major and
 *                        column-major order, whatever W.
 *
 * Requires M >= W * W (else the program holds no kernel) and CLPERM_TS_RUN = M / W, the sorted
 * runs a gathered row holds.
 */
/* Lemma 1. Twice: sort rows in alternating order; convert row-major to column-major; sort rows;
 * convert back. Then sort rows. A conversion is a gather: work-item r reads the elements that its
 * row receives, sorts them in registers and writes its own row. Column c is skewed by
 * c + c / (M/W): then the W elements that one step of a row-major load, a row-major to
 * column-major gather or the reverse gather touches lie in W different banks.
 * A gathered row holds W sorted runs of M/W, one from each source row, so only the merging levels
 * of the network run on it. The gather reads the runs in ascending order into k[j*Q .. j*Q+Q-1]:
 * from row-major order run j is columns j*Q .. j*Q+Q-1, reversed when source row j was written
 * descending; from column-major order it is columns j, j+W, ... Every work-item reads the same
 * column at a step, as in the plain order, so the order of the steps keeps them conflict-free. */
#if CLPERM_TS_M >= CLPERM_TS_W * CLPERM_TS_W
#define CLPERM_TS_Q (CLPERM_TS_M / CLPERM_TS_W)
#define CLPERM_TS_AS(r, c) ((c) * CLPERM_TS_W + (((r) + (c) + (c) / CLPERM_TS_Q) & (CLPERM_TS_W - 1)))
#define CLPERM_TS_AS_E(e) CLPERM_TS_AS((e) / CLPERM_TS_M, (e) % CLPERM_TS_M)
/* The source of element (r, c) after a conversion from row-major order (the linear index
 * L = c*W + r was at (L / M, L % M)) and from column-major order (L = r*M + c was at
 * (L % W, L / W)). */
#define CLPERM_TS_AS_FROM_ROWS(r, c)                                                               \
    CLPERM_TS_AS(((c) * CLPERM_TS_W + (r)) / CLPERM_TS_M, ((c) * CLPERM_TS_W + (r)) % CLPERM_TS_M)
#define CLPERM_TS_AS_FROM_COLS(r, c)                                                               \
    CLPERM_TS_AS(((r) * CLPERM_TS_M + (c)) % CLPERM_TS_W, ((r) * CLPERM_TS_M + (c)) / CLPERM_TS_W)

/* The five passes, one loop body (unrolled, the passes made a kernel too large for the compiler to
 * keep the row in registers): pass 0 sorts row lid in place, passes 1 and 3 gather it from
 * row-major order, 2 and 4 from column-major order; passes 0 and 2 write rows in alternating
 * order. */
__kernel CLPERM_TS_ATTRS void
clperm_sort_tile_as(__global clperm_ts_key *keys, __global clperm_ts_val *values, ulong n,
                    ulong seg CLPERM_TS_LIST_PARAMS CLPERM_TS_TRACE_PARAMS) {
    CLPERM_TS_LOCAL_DECL;
    CLPERM_TS_SEGMENT;
    CLPERM_TS_TRACE_BEGIN;
    clperm_ts_key k[CLPERM_TS_M];
    uint p[CLPERM_TS_M];
    CLPERM_TS_LOAD_TILE(CLPERM_TS_AS_E);
#pragma unroll 1
    for (uint pass = 0; pass < 5; pass++) {
        uint from = pass == 0 ? 0u : 2u - (pass & 1);
        int desc = (pass == 0 || pass == 2) && (lid & 1);
        CLPERM_TS_UNROLL for (uint v = 0; v < CLPERM_TS_M; v++) {
            uint j = v / CLPERM_TS_Q, t = v % CLPERM_TS_Q;
            uint a = from == 0   ? CLPERM_TS_AS(lid, v)
                     : from == 1 ? CLPERM_TS_AS_FROM_ROWS(lid, CLPERM_TS_RUN_OF_ROWS(j, t, CLPERM_TS_Q))
                                 : CLPERM_TS_AS_FROM_COLS(lid, CLPERM_TS_RUN_OF_COLS(j, t, CLPERM_TS_W));
            CLPERM_TS_LD_ITEM(a, k[v], p[v]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (pass == 0) clperm_ts_sort_runs(k, p);
        clperm_ts_merge_row(k, p);
        CLPERM_TS_UNROLL for (uint c = 0; c < CLPERM_TS_M; c++)
            CLPERM_TS_ST_ITEM(CLPERM_TS_AS(lid, c), desc ? k[CLPERM_TS_M - 1 - c] : k[c],
                              desc ? p[CLPERM_TS_M - 1 - c] : p[c]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    CLPERM_TS_STORE_TILE(CLPERM_TS_AS_E);
    CLPERM_TS_TRACE_END;
}
#endif
