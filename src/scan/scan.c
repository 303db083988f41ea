/* Device-wide scan and reduction: argument checks, the choice of algorithm and tile shape, and
 * the kernel launches. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const scan_texts[2] = {clperm__cl_common_subgroup_h, clperm__cl_scan_scan_cl};

typedef enum scan_mode { SCAN_EXCLUSIVE, SCAN_INCLUSIVE, REDUCE } scan_mode;

typedef struct scan_plan {
    size_t wg;
    int items;
    uint64_t tile;
    uint64_t tiles;
    int algorithm; /* 1 reduce-then-scan, 2 look-back */
    int serial;    /* one work-item per tile, without the subgroup layer */
    char options[256];
} scan_plan;

#define EPOCH_LIMIT (1u << 30)

static clperm_status plan_scan(const clperm_ctx *ctx, clperm_type type, uint64_t n, scan_mode mode,
                               scan_plan *plan) {
    const clperm__tuning *tune = clperm__tuning_for(&ctx->profile);
    plan->serial = clperm__scan_kernel(ctx) == 2;
    plan->wg = (size_t)clperm__scan_wg_size(ctx);
    plan->items = clperm__scan_items(ctx, type);
    int stage = tune->scan_stage && !plan->serial;
    size_t es = clperm_type_size(type);
    /* Keep the staged tile inside local memory, with room for the scratch words. */
    while (stage && plan->items > 1 &&
           (plan->wg * (size_t)plan->items * es + plan->wg * 8 + 4096) > ctx->profile.local_mem_bytes)
        plan->items--;
    plan->tile = (uint64_t)plan->wg * (uint64_t)plan->items;
    plan->tiles = (n + plan->tile - 1) / plan->tile;
    plan->algorithm = ctx->params[CLPERM_PARAM_SCAN_ALGORITHM];
    if (!plan->algorithm || mode == REDUCE)
        plan->algorithm = (ctx->profile.forward_progress && mode != REDUCE) ? 2 : 1;
    CLPERM_RETURN_IF(plan->tiles >= UINT32_MAX / 4, CLPERM_ERROR_SIZE_OVERFLOW);
    snprintf(plan->options, sizeof plan->options,
             "-DCLPERM_T=%s -DCLPERM_TS=%s -DCLPERM_SCAN_ITEMS=%d -DCLPERM_SCAN_STAGE=%d -DCLPERM_SCAN_SERIAL=%d",
             type == CLPERM_TYPE_U64 ? "ulong" : "uint", type == CLPERM_TYPE_U64 ? "u64" : "u32",
             plan->items, stage, plan->serial);
    return CLPERM_SUCCESS;
}

static clperm_status kernel(clperm_ctx *ctx, const scan_plan *plan, clperm_type type, const char *base,
                            cl_kernel *out) {
    size_t lengths[2] = {clperm__cl_common_subgroup_h_size, clperm__cl_scan_scan_cl_size};
    clperm__source src = {"scan", 2, scan_texts, lengths};
    char name[64];
    snprintf(name, sizeof name, "%s%s", base, type == CLPERM_TYPE_U64 ? "u64" : "u32");
    return clperm__tile_kernel_get(ctx, &src, plan->options, plan->serial, plan->wg, name, out);
}

#define ARG(k, i, v) err = err != CL_SUCCESS ? err : clSetKernelArg(k, i, sizeof(v), &(v))

static clperm_status enqueue(clperm_ctx *ctx, cl_kernel k, size_t groups, size_t wg, cl_uint num_events,
                             const cl_event *events, cl_event *event) {
    size_t global = groups * wg;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, num_events, events, event);
}

clperm_status clperm__lookback_begin(clperm_ctx *ctx, uint64_t tiles, cl_uint *tile_base, cl_uint *epoch) {
    CLPERM_RETURN_IF(tiles >= UINT32_MAX / 4, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->scan_counter, sizeof(cl_uint), 1, NULL));
    int grown = 0;
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->scan_flags, (size_t)tiles * sizeof(cl_uint), 1, &grown));
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->scan_values, (size_t)tiles * 4 * sizeof(cl_uint), 1, NULL));
    if (grown) ctx->scan_epoch = 1; /* fresh flags are zero: every epoch from 1 is unused */
    if (ctx->scan_epoch >= EPOCH_LIMIT) {
        cl_uint zero = 0;
        CLPERM_TRY(clEnqueueFillBuffer(ctx->queue, ctx->scan_flags.mem, &zero, sizeof zero, 0,
                                       ctx->scan_flags.bytes, 0, NULL, NULL));
        ctx->scan_epoch = 1;
    }
    *tile_base = ctx->scan_tile_base;
    *epoch = ctx->scan_epoch;
    return CLPERM_SUCCESS;
}

void clperm__lookback_end(clperm_ctx *ctx, uint64_t tiles) {
    /* The counter advanced by one per tile; the next call's tiles start after these. */
    ctx->scan_tile_base += (cl_uint)tiles;
    ctx->scan_epoch++;
}

static clperm_status run_lookback(clperm_ctx *ctx, const scan_plan *plan, clperm_type type, cl_mem src,
                                  cl_mem dst, uint64_t n, cl_uint inclusive, cl_uint num_events,
                                  const cl_event *events, cl_event *event) {
    cl_kernel k;
    CLPERM_TRY(kernel(ctx, plan, type, "clperm_scan_lookback_", &k));
    cl_uint tile_base, epoch;
    CLPERM_TRY(clperm__lookback_begin(ctx, plan->tiles, &tile_base, &epoch));
    cl_int err = CL_SUCCESS;
    ARG(k, 0, src);
    ARG(k, 1, dst);
    cl_ulong nn = n;
    ARG(k, 2, nn);
    ARG(k, 3, inclusive);
    ARG(k, 4, ctx->scan_counter.mem);
    ARG(k, 5, tile_base);
    ARG(k, 6, ctx->scan_flags.mem);
    ARG(k, 7, ctx->scan_values.mem);
    ARG(k, 8, epoch);
    CLPERM_TRY(err);
    CLPERM_TRY(enqueue(ctx, k, (size_t)plan->tiles, plan->wg, num_events, events, event));
    clperm__lookback_end(ctx, plan->tiles);
    return CLPERM_SUCCESS;
}

/* Reduce-then-scan; for mode REDUCE only the first two passes, with the total written to dst. */
static clperm_status run_reduce_then_scan(clperm_ctx *ctx, const scan_plan *plan, clperm_type type,
                                          cl_mem src, cl_mem dst, uint64_t n, scan_mode mode,
                                          cl_uint num_events, const cl_event *events, cl_event *event) {
    const clperm__tuning *tune = clperm__tuning_for(&ctx->profile);
    uint64_t max_groups = (uint64_t)ctx->profile.compute_units * (uint64_t)tune->scan_groups_per_cu;
    uint64_t tiles_per_group = (plan->tiles + max_groups - 1) / max_groups;
    uint64_t groups = (plan->tiles + tiles_per_group - 1) / tiles_per_group;
    size_t es = clperm_type_size(type);
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->scan_partials, (size_t)groups * es, 0, NULL));
    cl_kernel kr, ks, kd = NULL;
    CLPERM_TRY(kernel(ctx, plan, type, "clperm_scan_reduce_", &kr));
    CLPERM_TRY(kernel(ctx, plan, type, "clperm_scan_spine_", &ks));
    if (mode != REDUCE) CLPERM_TRY(kernel(ctx, plan, type, "clperm_scan_downsweep_", &kd));

    cl_int err = CL_SUCCESS;
    cl_ulong nn = n, tpg = tiles_per_group;
    cl_uint count = (cl_uint)groups, write_total = mode == REDUCE;
    cl_uint inclusive = mode == SCAN_INCLUSIVE;
    cl_mem partials = ctx->scan_partials.mem;
    ARG(kr, 0, src);
    ARG(kr, 1, nn);
    ARG(kr, 2, tpg);
    ARG(kr, 3, partials);
    ARG(ks, 0, partials);
    ARG(ks, 1, count);
    cl_mem total_dst = mode == REDUCE ? dst : partials;
    ARG(ks, 2, total_dst);
    ARG(ks, 3, write_total);
    if (kd) {
        ARG(kd, 0, src);
        ARG(kd, 1, dst);
        ARG(kd, 2, nn);
        ARG(kd, 3, inclusive);
        ARG(kd, 4, tpg);
        ARG(kd, 5, partials);
    }
    CLPERM_TRY(err);
    CLPERM_TRY(enqueue(ctx, kr, (size_t)groups, plan->wg, num_events, events, NULL));
    CLPERM_TRY(enqueue(ctx, ks, 1, plan->wg, 0, NULL, kd ? NULL : event));
    if (kd) CLPERM_TRY(enqueue(ctx, kd, (size_t)groups, plan->wg, 0, NULL, event));
    return CLPERM_SUCCESS;
}

static clperm_status scan_checked(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst, uint64_t n,
                                  scan_mode mode, cl_uint num_events, const cl_event *events,
                                  cl_event *event) {
    size_t es = clperm_type_size(type);
    CLPERM_RETURN_IF(es == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(clperm__check_events(num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, src, n, es, 0));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, mode == REDUCE ? 1 : n, es, 1));
    CLPERM_RETURN_IF(n > (uint64_t)SIZE_MAX / es, CLPERM_ERROR_SIZE_OVERFLOW);
    if (n == 0) {
        if (mode == REDUCE) {
            cl_ulong zero = 0;
            return clEnqueueFillBuffer(ctx->queue, dst, &zero, es, 0, es, num_events, events, event);
        }
        return event ? clEnqueueMarkerWithWaitList(ctx->queue, num_events, events, event) : CLPERM_SUCCESS;
    }
    scan_plan plan;
    CLPERM_TRY(plan_scan(ctx, type, n, mode, &plan));
    if (plan.algorithm == 2)
        return run_lookback(ctx, &plan, type, src, dst, n, mode == SCAN_INCLUSIVE, num_events, events, event);
    return run_reduce_then_scan(ctx, &plan, type, src, dst, n, mode, num_events, events, event);
}

clperm_status clperm__scan(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst, uint64_t n,
                           int inclusive, cl_uint num_events, const cl_event *events, cl_event *event) {
    return scan_checked(ctx, type, src, dst, n, inclusive ? SCAN_INCLUSIVE : SCAN_EXCLUSIVE, num_events,
                        events, event);
}

static clperm_status scan_entry(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst, uint64_t n,
                                scan_mode mode, cl_uint num_events, const cl_event *events, cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = scan_checked(ctx, type, src, dst, n, mode, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

clperm_status clperm_scan_exclusive(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst, uint64_t n,
                                    cl_uint num_events, const cl_event *events, cl_event *event) {
    return scan_entry(ctx, type, src, dst, n, SCAN_EXCLUSIVE, num_events, events, event);
}

clperm_status clperm_scan_inclusive(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst, uint64_t n,
                                    cl_uint num_events, const cl_event *events, cl_event *event) {
    return scan_entry(ctx, type, src, dst, n, SCAN_INCLUSIVE, num_events, events, event);
}

clperm_status clperm_reduce_sum(clperm_ctx *ctx, clperm_type type, cl_mem src, uint64_t n, cl_mem dst,
                                cl_uint num_events, const cl_event *events, cl_event *event) {
    return scan_entry(ctx, type, src, dst, n, REDUCE, num_events, events, event);
}
