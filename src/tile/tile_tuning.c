/* The tile sorts' tunables as their calls use them: the caller's parameters, else the device's
 * rows (tile_rows.c); and the values clperm_ctx_get_param reports for them. */
#include "internal.h"

int clperm__sort_width(const clperm_ctx *ctx) {
    int w = ctx->params[CLPERM_PARAM_SORT_WIDTH];
    if (w) return w;
    w = 1;
    while (w < 64 && (cl_uint)w * 2 <= ctx->profile.banks) w *= 2;
    return w;
}

int clperm__tile_param(const clperm_ctx *ctx, clperm_param param, int *value) {
    switch (param) {
    case CLPERM_PARAM_SORT_WIDTH: *value = clperm__sort_width(ctx); return 1;
    case CLPERM_PARAM_SEGMENT_SORT: *value = clperm__segment_sort(ctx); return 1;
    default: return 0;
    }
}
