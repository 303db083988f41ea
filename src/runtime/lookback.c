/* The host side of decoupled look-back (cl/common/lookback.h): per context one tile counter, one
 * flag and four value words per tile, and the epoch and tile base that let successive calls reuse
 * them without clearing. Used by every single-pass kernel (the scan and the shuffle). The context
 * is locked by the caller. Also the test-only mode in which tiles withhold what they publish. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Epochs live in the upper 30 bits of a flag; before they wrap, the flags are cleared once. */
#define EPOCH_LIMIT (1u << 30)

clperm_status clperm__lookback_begin(clperm_ctx *ctx, uint64_t tiles, clperm__lookback_call *call) {
    clperm__lookback *lb = &ctx->lookback;
    CLPERM_RETURN_IF(tiles >= UINT32_MAX / 4, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(clperm__scratch_reserve(ctx, &lb->counter, sizeof(cl_uint), 1, NULL));
    int grown = 0;
    CLPERM_TRY(clperm__scratch_reserve(ctx, &lb->flags, (size_t)tiles * sizeof(cl_uint), 1, &grown));
    CLPERM_TRY(clperm__scratch_reserve(ctx, &lb->values, (size_t)tiles * 4 * sizeof(cl_uint), 1, NULL));
    if (grown) lb->epoch = 1; /* fresh flags are zero: every epoch from 1 is unused */
    if (lb->epoch >= EPOCH_LIMIT) {
        cl_uint zero = 0;
        CLPERM_TRY(clEnqueueFillBuffer(ctx->queue, lb->flags.mem, &zero, sizeof zero, 0, lb->flags.bytes, 0, NULL,
                                       NULL));
        lb->epoch = 1;
    }
    call->counter = lb->counter.mem;
    call->flags = lb->flags.mem;
    call->values = lb->values.mem;
    call->tile_base = lb->tile_base;
    call->epoch = lb->epoch;
    return CLPERM_SUCCESS;
}

void clperm__lookback_end(clperm_ctx *ctx, uint64_t tiles) {
    /* The counter advanced by one per tile; the next call's tiles start after these. */
    ctx->lookback.tile_base += (cl_uint)tiles;
    ctx->lookback.epoch++;
}

void clperm__lookback_args(clperm__args *a, const clperm__lookback_call *call) {
    CLPERM__ARG(*a, call->counter);
    CLPERM__ARG(*a, call->tile_base);
    CLPERM__ARG(*a, call->flags);
    CLPERM__ARG(*a, call->values);
    CLPERM__ARG(*a, call->epoch);
}

clperm_status clperm__lookback_test_init(clperm__lookback *lb) {
    lb->test_options[0] = '\0';
    const char *env = getenv("CLPERM_TEST_LOOKBACK");
    if (!env || !*env) return CLPERM_SUCCESS;
    char mode[8] = "";
    unsigned every = 0, spins = 64;
    int used = 0;
    int fields = sscanf(env, "%7[a-z]:%u%n:%u%n", mode, &every, &used, &spins, &used);
    int stall = strcmp(mode, "never") == 0 ? 1 : strcmp(mode, "late") == 0 ? 2 : 0;
    if (fields < 2 || !stall || every == 0 || spins == 0 || spins > (1u << 24) || env[used] != '\0') {
        clperm__debug("CLPERM_TEST_LOOKBACK=\"%s\": expected never:K or late:K, optionally :SPINS", env);
        return CLPERM_ERROR_INVALID_ARGUMENT;
    }
    snprintf(lb->test_options, sizeof lb->test_options,
             "-DCLPERM_LOOKBACK_STALL=%d -DCLPERM_LOOKBACK_STALL_EVERY=%uu -DCLPERM_LOOKBACK_SPINS=%uu", stall,
             every, spins);
    return CLPERM_SUCCESS;
}

void clperm__lookback_release(clperm__lookback *lb) {
    clperm__scratch_release(&lb->counter);
    clperm__scratch_release(&lb->flags);
    clperm__scratch_release(&lb->values);
}
