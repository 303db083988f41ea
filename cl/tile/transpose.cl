/*
 * Batched transposes through the diagonal arrangement, after cl/tile/common.h:
 *
 *   clperm_transpose_tiles  one matrix per work-group of W work-items (CLPERM_TS_M 1,
 *                           CLPERM_TS_TILES 1). Matrix `tile` of ROWS x COLS items (row-major) is
 *                           read row by row into an RP x CP tile (rows and columns padded to
 *                           multiples of W), item (r, c) at r*CP + (c + r) mod CP, and written
 *                           column by column: the W items of one step lie in W banks either way.
 *
 * Requires CLPERM_TS_TR_ROWS and CLPERM_TS_TR_COLS, the matrix's rows and columns; items are
 * clperm_ts_key (CLPERM_TS_KEY_KIND 1 for 4-byte items, 4 for 8-byte ones). The register networks
 * go unused.
 */
#if !defined(CLPERM_TS_TR_ROWS) || !defined(CLPERM_TS_TR_COLS)
#error "CLPERM_TS_TR_ROWS and CLPERM_TS_TR_COLS must be defined"
#endif
#define CLPERM_TS_TR_R CLPERM_TS_TR_ROWS
#define CLPERM_TS_TR_C CLPERM_TS_TR_COLS
#define CLPERM_TS_TR_RP ((CLPERM_TS_TR_R + CLPERM_TS_W - 1) / CLPERM_TS_W * CLPERM_TS_W)
#define CLPERM_TS_TR_CP ((CLPERM_TS_TR_C + CLPERM_TS_W - 1) / CLPERM_TS_W * CLPERM_TS_W)
#define CLPERM_TS_TR_ADDR(r, c) ((r) * CLPERM_TS_TR_CP + clperm_ts_tr_skew(r, c))

/* (c + r) mod CP for c < CP. */
inline uint clperm_ts_tr_skew(uint r, uint c) {
    uint s = c + r % CLPERM_TS_TR_CP;
    return s >= CLPERM_TS_TR_CP ? s - CLPERM_TS_TR_CP : s;
}

__kernel CLPERM_TS_ATTRS void clperm_transpose_tiles(__global const clperm_ts_key *src,
                                                     __global clperm_ts_key *dst,
                                                     ulong count CLPERM_TS_TRACE_PARAMS) {
    __local clperm_ts_key lt[CLPERM_TS_TR_RP * CLPERM_TS_TR_CP];
    const uint lid = get_local_id(0), ts_g = 0;
    const ulong tile = get_group_id(0), base = tile * (ulong)(CLPERM_TS_TR_R * CLPERM_TS_TR_C);
    CLPERM_TS_TRACE_BEGIN;
    for (uint r = 0; r < CLPERM_TS_TR_RP; r++)
        for (uint c = lid; c < CLPERM_TS_TR_CP; c += CLPERM_TS_W) {
            if (r < CLPERM_TS_TR_R && c < CLPERM_TS_TR_C)
                CLPERM_TS_ST(lt, 0, CLPERM_TS_TR_ADDR(r, c), src[base + r * CLPERM_TS_TR_C + c]);
            else
                CLPERM_TS_SKIP(1);
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = 0; c < CLPERM_TS_TR_CP; c++)
        for (uint r = lid; r < CLPERM_TS_TR_RP; r += CLPERM_TS_W) {
            if (r < CLPERM_TS_TR_R && c < CLPERM_TS_TR_C)
                dst[base + c * CLPERM_TS_TR_R + r] = CLPERM_TS_LD(lt, 0, CLPERM_TS_TR_ADDR(r, c));
            else
                CLPERM_TS_SKIP(1);
        }
    CLPERM_TS_TRACE_END;
}
