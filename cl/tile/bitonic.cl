/*
 * Bitonic baselines, after cl/tile/common.h: Batcher's bitonic network with its
 * compare-exchanges in local memory.
 *
 *   clperm_sort_tile_bitonic         plain indexing.
 *   clperm_sort_tile_bitonic_padded  the same, one pad word after every W words.
 *
 * Requires nothing beyond cl/tile/common.h; the register networks go unused.
 */
#define CLPERM_TS_PLAIN(a) (a)
#define CLPERM_TS_BITONIC_PAIRS (CLPERM_TS_T / 2)

#define CLPERM_TS_BITONIC_BODY(ADDR)                                                                          \
    CLPERM_TS_LOCAL_DECL;                                                                                     \
    CLPERM_TS_SEGMENT;                                                                                        \
    CLPERM_TS_TRACE_BEGIN;                                                                                    \
    CLPERM_TS_LOAD_TILE(ADDR);                                                                                \
    for (uint kk = 2; kk <= CLPERM_TS_T; kk <<= 1) {                                                          \
        for (uint j = kk >> 1; j > 0; j >>= 1) {                                                              \
            for (uint pi = lid; pi < (CLPERM_TS_BITONIC_PAIRS + CLPERM_TS_W - 1) / CLPERM_TS_W * CLPERM_TS_W; \
                 pi += CLPERM_TS_W) {                                                                         \
                if (pi >= CLPERM_TS_BITONIC_PAIRS) {                                                          \
                    CLPERM_TS_SKIP(4 * CLPERM_TS_ACCESSES);                                                   \
                } else {                                                                                      \
                uint lo = ((pi & ~(j - 1)) << 1) | (pi & (j - 1)), hi = lo + j;                               \
                clperm_ts_key k[2];                                                                           \
                uint p[2];                                                                                    \
                CLPERM_TS_LD_ITEM(ADDR(lo), k[0], p[0]);                                                      \
                CLPERM_TS_LD_ITEM(ADDR(hi), k[1], p[1]);                                                      \
                CLPERM_TS_CSWAP(k, p, 0, 1, (lo & kk) == 0);                                                  \
                CLPERM_TS_ST_ITEM(ADDR(lo), k[0], p[0]);                                                      \
                CLPERM_TS_ST_ITEM(ADDR(hi), k[1], p[1]);                                                      \
                }                                                                                             \
            }                                                                                                 \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
        }                                                                                                     \
    }                                                                                                         \
    CLPERM_TS_STORE_TILE(ADDR);                                                                               \
    CLPERM_TS_TRACE_END

__kernel CLPERM_TS_ATTRS void
clperm_sort_tile_bitonic(__global clperm_ts_key *keys, __global clperm_ts_val *values, ulong n,
                         ulong seg CLPERM_TS_LIST_PARAMS CLPERM_TS_TRACE_PARAMS) {
    CLPERM_TS_BITONIC_BODY(CLPERM_TS_PLAIN);
}

__kernel CLPERM_TS_ATTRS void
clperm_sort_tile_bitonic_padded(__global clperm_ts_key *keys, __global clperm_ts_val *values, ulong n,
                                ulong seg CLPERM_TS_LIST_PARAMS CLPERM_TS_TRACE_PARAMS) {
    CLPERM_TS_BITONIC_BODY(CLPERM_TS_PAD);
}
