/* The shuffle's tunables as its calls use them: the caller's parameters, else the device's rows
 * (shuffle_rows.c), capped to what the kernel kind allows; and the values clperm_ctx_get_param
 * reports for them. */
#include "internal.h"

int clperm__shuffle_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_SHUFFLE_KERNEL];
    return k ? k : clperm__table_kernel(ctx, ctx->tuning.shuffle.kernel);
}

int clperm__shuffle_wg_size(const clperm_ctx *ctx) {
    if (clperm__shuffle_kernel(ctx) == CLPERM_KERNEL_SERIAL) return 1;
    int wg = ctx->params[CLPERM_PARAM_SHUFFLE_WG_SIZE];
    return wg ? wg : clperm__capped_wg(ctx, ctx->tuning.shuffle.wg_size);
}

int clperm__shuffle_items(const clperm_ctx *ctx) {
    int items = ctx->params[CLPERM_PARAM_SHUFFLE_ITEMS];
    if (clperm__shuffle_kernel(ctx) == CLPERM_KERNEL_SERIAL) return items ? items : ctx->tuning.shuffle.serial_items;
    if (!items) items = ctx->tuning.shuffle.items;
    return items <= 32 ? items : 32;
}

int clperm__shuffle_fusion(const clperm_ctx *ctx) {
    int f = ctx->params[CLPERM_PARAM_SHUFFLE_FUSION];
    return f ? f : (ctx->profile.loop_limit ? CLPERM_FUSION_TWO_PASS : CLPERM_FUSION_LOOKBACK);
}

int clperm__shuffle_param(const clperm_ctx *ctx, clperm_param param, int *value) {
    switch (param) {
    case CLPERM_PARAM_SHUFFLE_FUSION: *value = clperm__shuffle_fusion(ctx); return 1;
    case CLPERM_PARAM_SHUFFLE_KERNEL: *value = clperm__shuffle_kernel(ctx); return 1;
    case CLPERM_PARAM_SHUFFLE_WG_SIZE: *value = clperm__shuffle_wg_size(ctx); return 1;
    case CLPERM_PARAM_SHUFFLE_ITEMS: *value = clperm__shuffle_items(ctx); return 1;
    default: return 0;
    }
}
