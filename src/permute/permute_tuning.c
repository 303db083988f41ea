/* The offline permutations' tunables as their calls use them: the caller's parameters, else the
 * device's rows (permute_rows.c), capped to what the device allows; and the values
 * clperm_ctx_get_param reports for them. */
#include "internal.h"

int clperm__permute_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_PERMUTE_KERNEL];
    if (k) return k;
    /* The device's tuning is a preference: no serial kernel where loops are capped. */
    k = ctx->tuning.permute.kernel;
    return k == CLPERM_PERMUTE_KERNEL_SERIAL && ctx->profile.loop_limit ? CLPERM_PERMUTE_KERNEL_LOCAL : k;
}

int clperm__permute_tiles(const clperm_ctx *ctx, clperm_permute_kind kind, size_t bytes) {
    const clperm__permute_tuning *tu = &ctx->tuning.permute;
    int t = ctx->params[CLPERM_PARAM_PERMUTE_TILES];
    int rev = kind != CLPERM_PERMUTE_BIT_REVERSAL ? 0 : bytes == 4 ? tu->rev_tiles_4 : bytes == 8 ? tu->rev_tiles_8 : 0;
    if (!t) t = rev ? rev : bytes == 4 ? tu->tiles_4 : bytes == 8 ? tu->tiles_8 : 1;
    if (t < 1) t = 1;
    while (t > 1 && (cl_ulong)t * 1024 * bytes > ctx->profile.local_mem_bytes) t >>= 1;
    return t;
}

int clperm__permute_wg_rows(const clperm_ctx *ctx, clperm_permute_kind kind, size_t bytes) {
    if (kind != CLPERM_PERMUTE_TRANSPOSE && kind != CLPERM_PERMUTE_BIT_REVERSAL) return 8;
    int r = ctx->params[CLPERM_PARAM_PERMUTE_WG_ROWS];
    if (!r && kind == CLPERM_PERMUTE_TRANSPOSE && bytes == 4) r = ctx->tuning.permute.tr_rows_4;
    if (!r) r = 8;
    while (r > 4 && (size_t)r * 32 > ctx->profile.max_work_group_size) r >>= 1;
    return r;
}

int clperm__permute_param(const clperm_ctx *ctx, clperm_param param, int *value) {
    switch (param) {
    case CLPERM_PARAM_PERMUTE_KERNEL: *value = clperm__permute_kernel(ctx); return 1;
    case CLPERM_PARAM_PERMUTE_TILES: *value = clperm__permute_tiles(ctx, CLPERM_PERMUTE_TRANSPOSE, 4); return 1;
    case CLPERM_PARAM_PERMUTE_WG_ROWS: *value = clperm__permute_wg_rows(ctx, CLPERM_PERMUTE_TRANSPOSE, 4); return 1;
    default: return 0;
    }
}
