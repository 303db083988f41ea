/* The generator fills' tunables as their calls use them: the caller's parameters, else the
 * device's rows (rng_rows.c); and the values clperm_ctx_get_param reports for them. */
#include "internal.h"

int clperm__rng_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_RNG_KERNEL];
    return k ? k : clperm__table_kernel(ctx, ctx->tuning.rng.kernel);
}

int clperm__rng_param(const clperm_ctx *ctx, clperm_param param, int *value) {
    if (param != CLPERM_PARAM_RNG_KERNEL) return 0;
    *value = clperm__rng_kernel(ctx);
    return 1;
}
