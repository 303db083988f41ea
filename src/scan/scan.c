/* Device-wide scan and reduction: argument checks, the choice of algorithm and tile shape, and
 * the kernel launches. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The scan's program: the subgroup layer, waits, work-group sums, look-back, then the scan
 * kernels. */
static const char *const scan_texts[] = {clperm__cl_common_subgroup_h, clperm__cl_common_progress_h,
                                         clperm__cl_common_wg_scan_h, clperm__cl_common_lookback_h,
                                         clperm__cl_scan_scan_cl};
static const clperm__source scan_source = {"scan", 5, scan_texts, NULL};

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

static clperm_status plan_scan(const clperm_ctx *ctx, clperm_type type, uint64_t n, scan_mode mode,
                               scan_plan *plan) {
    const clperm__scan_tuning *tune = &ctx->tuning.scan;
    plan->serial = clperm__scan_kernel(ctx) == CLPERM_KERNEL_SERIAL;
    plan->wg = (size_t)clperm__scan_wg_size(ctx);
    plan->items = clperm__scan_items(ctx, type);
    int stage = tune->stage && !plan->serial;
    size_t es = clperm_type_size(type);
    /* Keep the staged tile inside local memory, with room for the scratch words. */
    while (stage && plan->items > 1 &&
           (plan->wg * (size_t)plan->items * es + plan->wg * 8 + 4096) > ctx->profile.local_mem_bytes)
        plan->items--;
    plan->tile = (uint64_t)plan->wg * (uint64_t)plan->items;
    plan->tiles = (n + plan->tile - 1) / plan->tile;
    plan->algorithm = mode == REDUCE ? 1 : clperm__scan_algorithm(ctx);
    CLPERM_RETURN_IF(plan->tiles >= UINT32_MAX / 4, CLPERM_ERROR_SIZE_OVERFLOW);
    clperm__buf o = clperm__buf_on(plan->options, sizeof plan->options);
    clperm__buf_add(&o, "-DCLPERM_T=%s -DCLPERM_TS=%s -DCLPERM_SCAN_ITEMS=%d -DCLPERM_SCAN_STAGE=%d -DCLPERM_SCAN_SERIAL=%d",
                    type == CLPERM_TYPE_U64 ? "ulong" : "uint", clperm_type_name(type), plan->items, stage,
                    plan->serial);
    return clperm__buf_status(&o);
}

static clperm_status kernel(clperm_ctx *ctx, const scan_plan *plan, clperm_type type, const char *base,
                            cl_kernel *out) {
    char name[64];
    snprintf(name, sizeof name, "%s%s", base, clperm_type_name(type));
    return clperm__tile_kernel_get(ctx, &scan_source, plan->options, plan->serial, plan->wg, name, out);
}

static clperm_status enqueue(clperm_ctx *ctx, cl_kernel k, size_t groups, size_t wg, cl_uint num_events,
                             const cl_event *events, cl_event *event) {
    size_t global = groups * wg;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, num_events, events, event);
}

static clperm_status run_lookback(clperm_ctx *ctx, const scan_plan *plan, clperm_type type, cl_mem src,
                                  cl_mem dst, uint64_t n, cl_uint inclusive, cl_uint num_events,
                                  const cl_event *events, cl_event *event) {
    cl_kernel k;
    CLPERM_TRY(kernel(ctx, plan, type, "clperm_scan_lookback_", &k));
    clperm__lookback_call lb;
    CLPERM_TRY(clperm__lookback_begin(ctx, plan->tiles, &lb));
    clperm__args a = {k, 0, CL_SUCCESS};
    cl_ulong nn = n;
    CLPERM__ARG(a, src);
    CLPERM__ARG(a, dst);
    CLPERM__ARG(a, nn);
    CLPERM__ARG(a, inclusive);
    clperm__lookback_args(&a, &lb);
    CLPERM_TRY(a.err);
    CLPERM_TRY(enqueue(ctx, k, (size_t)plan->tiles, plan->wg, num_events, events, event));
    clperm__lookback_end(ctx, plan->tiles);
    return CLPERM_SUCCESS;
}

/* Reduce-then-scan; for mode REDUCE only the first two passes, with the total written to dst. */
static clperm_status run_reduce_then_scan(clperm_ctx *ctx, const scan_plan *plan, clperm_type type,
                                          cl_mem src, cl_mem dst, uint64_t n, scan_mode mode,
                                          cl_uint num_events, const cl_event *events, cl_event *event) {
    /* A tile: the work-item's items, and the loops of the work-group's sums (a few dozen). */
    uint64_t max_groups = clperm__range_groups(ctx, plan->tiles, (uint64_t)plan->items + 64);
    uint64_t tiles_per_group = (plan->tiles + max_groups - 1) / max_groups;
    uint64_t groups = (plan->tiles + tiles_per_group - 1) / tiles_per_group;
    size_t es = clperm_type_size(type);
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->scan_partials, (size_t)groups * es, 0, NULL));
    cl_kernel kr, ks, kd = NULL;
    CLPERM_TRY(kernel(ctx, plan, type, "clperm_scan_reduce_", &kr));
    CLPERM_TRY(kernel(ctx, plan, type, "clperm_scan_spine_", &ks));
    if (mode != REDUCE) CLPERM_TRY(kernel(ctx, plan, type, "clperm_scan_downsweep_", &kd));

    cl_ulong nn = n, tpg = tiles_per_group;
    cl_uint count = (cl_uint)groups, write_total = mode == REDUCE;
    cl_uint inclusive = mode == SCAN_INCLUSIVE;
    cl_mem partials = ctx->scan_partials.mem;
    cl_mem total_dst = mode == REDUCE ? dst : partials;
    clperm__args ar = {kr, 0, CL_SUCCESS}, as = {ks, 0, CL_SUCCESS}, ad = {kd, 0, CL_SUCCESS};
    CLPERM__ARG(ar, src);
    CLPERM__ARG(ar, nn);
    CLPERM__ARG(ar, tpg);
    CLPERM__ARG(ar, partials);
    CLPERM__ARG(as, partials);
    CLPERM__ARG(as, count);
    CLPERM__ARG(as, total_dst);
    CLPERM__ARG(as, write_total);
    if (kd) {
        CLPERM__ARG(ad, src);
        CLPERM__ARG(ad, dst);
        CLPERM__ARG(ad, nn);
        CLPERM__ARG(ad, inclusive);
        CLPERM__ARG(ad, tpg);
        CLPERM__ARG(ad, partials);
    }
    CLPERM_TRY(ar.err);
    CLPERM_TRY(as.err);
    CLPERM_TRY(ad.err);
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
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, src, n, es, 0));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, mode == REDUCE ? 1 : n, es, 1));
    CLPERM_TRY(clperm__check_overlap(src, n * es, dst, (mode == REDUCE ? 1 : n) * es, mode != REDUCE));
    CLPERM_RETURN_IF(n > (uint64_t)SIZE_MAX / es, CLPERM_ERROR_SIZE_OVERFLOW);
    if (n == 0) {
        if (mode == REDUCE) {
            cl_ulong zero = 0;
            return clEnqueueFillBuffer(ctx->queue, dst, &zero, es, 0, es, num_events, events, event);
        }
        return clperm__empty_call(ctx, num_events, events, event);
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
