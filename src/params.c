/* clperm_ctx_get_param: the value of a tunable as the next call would use it, asked of the
 * family that owns it (each family's hook, src/<family>/<family>_tuning.c). Above the families
 * and the runtime: nothing in the library calls it. */
#include "internal.h"

static int param_value(const clperm_ctx *ctx, clperm_param param) {
    int v;
    if (clperm__scan_param(ctx, param, &v) || clperm__shuffle_param(ctx, param, &v) ||
        clperm__tile_param(ctx, param, &v) || clperm__rng_param(ctx, param, &v) ||
        clperm__sort_param(ctx, param, &v) || clperm__permute_param(ctx, param, &v))
        return v;
    return param == CLPERM_PARAM_DISK_CACHE ? ctx->disk_cache : ctx->params[param];
}

clperm_status clperm_ctx_get_param(const clperm_ctx *ctx, clperm_param param, int *value) {
    CLPERM_RETURN_IF(!value, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(!clperm_param_name(param), CLPERM_ERROR_INVALID_PARAM);
    clperm_ctx *c = (clperm_ctx *)ctx;
    CLPERM_TRY(clperm__ctx_enter(c));
    int v = param_value(c, param);
    clperm__ctx_leave(c);
    *value = v;
    return CLPERM_SUCCESS;
}
