/* The scan's tunables as its calls use them: the caller's parameters, else the device's rows
 * (scan_rows.c), capped to what the device and the kernel kind allow; and the values
 * clperm_ctx_get_param reports for them. */
#include "internal.h"

int clperm__scan_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_SCAN_KERNEL];
    return k ? k : clperm__table_kernel(ctx, ctx->tuning.scan.kernel);
}

/* Work-group size of the work-group scan kernels (and of the subgroup layer's builds). */
static int workgroup_wg_size(const clperm_ctx *ctx) {
    int wg = ctx->params[CLPERM_PARAM_SCAN_WG_SIZE];
    return wg ? wg : clperm__capped_wg(ctx, ctx->tuning.scan.wg_size);
}

int clperm__scan_wg_size(const clperm_ctx *ctx) {
    return clperm__scan_kernel(ctx) == CLPERM_KERNEL_SERIAL ? 1 : workgroup_wg_size(ctx);
}

int clperm__scan_items(const clperm_ctx *ctx, clperm_type type) {
    const clperm__scan_tuning *tune = &ctx->tuning.scan;
    int u64 = type == CLPERM_TYPE_U64;
    int items = ctx->params[CLPERM_PARAM_SCAN_ITEMS];
    if (clperm__scan_kernel(ctx) == CLPERM_KERNEL_SERIAL)
        return items ? items : (u64 ? tune->serial_u64 : tune->serial_u32);
    if (!items) items = u64 ? tune->items_u64 : tune->items_u32;
    return items <= 64 ? items : 64;
}

int clperm__scan_algorithm(const clperm_ctx *ctx) {
    int a = ctx->params[CLPERM_PARAM_SCAN_ALGORITHM];
    return a ? a : (ctx->profile.loop_limit ? 1 : 2);
}

uint64_t clperm__range_groups(const clperm_ctx *ctx, uint64_t tiles, uint64_t loops_per_tile) {
    uint64_t groups = (uint64_t)ctx->profile.compute_units * (uint64_t)ctx->tuning.scan.groups_per_cu;
    if (ctx->profile.loop_limit) {
        uint64_t per_group = ctx->profile.loop_limit / 2 / (loops_per_tile ? loops_per_tile : 1);
        if (per_group == 0) per_group = 1;
        uint64_t need = (tiles + per_group - 1) / per_group;
        if (need > groups) groups = need;
    }
    return groups ? groups : 1;
}

int clperm__scan_param(const clperm_ctx *ctx, clperm_param param, int *value) {
    clperm_sg_impl impl;
    cl_uint width;
    switch (param) {
    case CLPERM_PARAM_SCAN_ALGORITHM: *value = clperm__scan_algorithm(ctx); return 1;
    case CLPERM_PARAM_SCAN_WG_SIZE: *value = clperm__scan_wg_size(ctx); return 1;
    case CLPERM_PARAM_SCAN_ITEMS: *value = clperm__scan_items(ctx, CLPERM_TYPE_U32); return 1;
    case CLPERM_PARAM_SCAN_KERNEL: *value = clperm__scan_kernel(ctx); return 1;
    case CLPERM_PARAM_SG_IMPL:
    case CLPERM_PARAM_SG_WIDTH:
        /* The subgroup layer as the scan's work-group kernels build it. */
        clperm__sg_choice(ctx, (size_t)workgroup_wg_size(ctx), &impl, &width);
        *value = param == CLPERM_PARAM_SG_IMPL ? (int)impl : (int)width;
        return 1;
    default: return 0;
    }
}
