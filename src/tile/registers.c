/* The register network of short segments of 4-byte keys, alone or with values
 * (cl/tile/registers.cl): its plan, its launches for the segmented sort, and the trace of its
 * local-memory exchanges. */
#include <stdio.h>
#include <stdlib.h>

#include "tile.h"

/* The longest segment the network takes (256 work-items of 16 keys), and the banks of its trace. */
#define REG_T_MAX 4096
#define REG_TRACE_BANKS 32

typedef struct reg_plan {
    uint32_t n, t, wg; /* keys per work-item, places per segment, work-items per work-group */
    size_t value_bytes;
    char options[256];
} reg_plan;

/* Keys a work-item for segments padded to t, with values or without (the table's; 0: the network
 * is off). */
static int reg_items(const clperm_ctx *ctx, size_t value_bytes, uint32_t t) {
    const clperm__tile_tuning *tt = &ctx->tuning.tile;
    int items = !value_bytes ? tt->reg_items : t >= 1024 ? tt->reg_pair_items_long : tt->reg_pair_items;
    if (ctx->params[CLPERM_PARAM_SEGMENT_SORT] == 1) return 0;
    if (ctx->params[CLPERM_PARAM_SEGMENT_SORT] == 2 && !items) return 8;
    return items;
}

int clperm__segment_sort(const clperm_ctx *ctx) { return reg_items(ctx, 0, 2) ? 2 : 1; }

/* The plan for segments of up to `segment` keys with values of value_bytes (0: none): T the power
 * of two that holds them, N keys a work-item (the table's for T, at most T), a work-group of max(T,
 * 256 N, at most 2048) places. 0 where the network is off or the device cannot take it. */
static int reg_plan_of(const clperm_ctx *ctx, uint64_t segment, size_t value_bytes, uint32_t pos_xor,
                       uint32_t neg_xor, int list, int trace, reg_plan *p) {
    uint32_t log_t = 1;
    if (segment > REG_T_MAX || (value_bytes && trace)) return 0;
    p->t = 2;
    p->value_bytes = value_bytes;
    while (p->t < segment) p->t *= 2, log_t++;
    uint32_t items = (uint32_t)reg_items(ctx, value_bytes, p->t);
    if (!items) return 0;
    p->n = items < p->t ? items : p->t;
    uint32_t places = 256 * p->n < 2048 ? 256 * p->n : 2048;
    if (places < p->t) places = p->t;
    p->wg = places / p->n;
    /* Two exchange buffers of N + 1 words a work-item (with values a third, each segment's least
     * and greatest key and the flag of its second sorts), the subgroup's; with values, the second
     * sort's scan: a word a subgroup (at most half a word a work-item), or where the subgroup has
     * no shuffles and takes no local memory, a word a work-item (within the subgroup's 8 bytes). */
    uint64_t local = (value_bytes ? 3 : 2) * (uint64_t)p->wg * (p->n + 1) * 4 + (uint64_t)p->wg * 8;
    if (value_bytes) local += 8 * (uint64_t)(p->wg / (p->t / p->n)) + 4 + 2 * (uint64_t)p->wg;
    if (p->wg > ctx->profile.max_work_group_size || local > ctx->profile.local_mem_bytes) return 0;
    clperm__buf o = clperm__buf_on(p->options, sizeof p->options);
    clperm__buf_add(&o,
                    "-DCLPERM_RS_N=%u -DCLPERM_RS_T=%u -DCLPERM_RS_POS=%#xu -DCLPERM_RS_NEG=%#xu -DCLPERM_RS_LIST=%d "
                    "-DCLPERM_RS_TRACE=%d -DCLPERM_RS_VALUES=%zu -DCLPERM_RS_LOGT=%u",
                    p->n, p->t, pos_xor, neg_xor, list, trace, value_bytes, log_t);
    return clperm__buf_status(&o) == CLPERM_SUCCESS;
}

uint64_t clperm__reg_sort_max(const clperm_ctx *ctx, clperm_key_type type, size_t value_bytes) {
    if (clperm_key_size(type) != 4 || (value_bytes != 0 && value_bytes != 4 && value_bytes != 8)) return 0;
    reg_plan p;
    uint64_t t = REG_T_MAX;
    while (t >= 2 && !reg_plan_of(ctx, t, value_bytes, 0, 0, 0, 0, &p)) t /= 2;
    return t >= 2 ? t : 0;
}

static clperm_status reg_kernel(clperm_ctx *ctx, const reg_plan *p, cl_kernel *out) {
    static const char *const texts[3] = {clperm__cl_common_subgroup_h, clperm__cl_sort_sort_key_h,
                                         clperm__cl_tile_registers_cl};
    size_t lengths[3] = {clperm__cl_common_subgroup_h_size, clperm__cl_sort_sort_key_h_size,
                         clperm__cl_tile_registers_cl_size};
    clperm__source src = {"tile_registers", 3, texts, lengths};
    return clperm__sg_kernel_get(ctx, &src, p->options, p->wg, "clperm_sort_registers", out);
}

/* Sets the arguments of the network's kernel and enqueues `segments` segments: uniform ones of
 * `segment` keys among n (list NULL), else list entries [first, first + segments). */
static clperm_status reg_launch(clperm_ctx *ctx, const reg_plan *p, cl_kernel k, cl_mem keys, cl_mem values,
                                uint64_t n, uint64_t segment, cl_mem list, uint64_t first, uint64_t segments) {
    clperm__args a = {k, 0, CL_SUCCESS};
    cl_ulong nn = list ? segments : n, seg = segment, f = first;
    CLPERM__ARG(a, keys);
    if (p->value_bytes) CLPERM__ARG(a, values);
    CLPERM__ARG(a, nn);
    CLPERM__ARG(a, seg);
    if (list) {
        CLPERM__ARG(a, list);
        CLPERM__ARG(a, f);
    }
    CLPERM_TRY(a.err);
    uint64_t per_group = p->wg / (p->t / p->n), groups = (segments + per_group - 1) / per_group;
    CLPERM_RETURN_IF(groups > SIZE_MAX / p->wg, CLPERM_ERROR_SIZE_OVERFLOW);
    size_t global = (size_t)groups * p->wg, local = p->wg;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
}

clperm_status clperm__reg_sort(clperm_ctx *ctx, cl_mem keys, cl_mem values, size_t value_bytes, uint64_t n,
                               uint64_t segment, uint32_t pos_xor, uint32_t neg_xor, cl_mem list, uint64_t first,
                               uint64_t count) {
    reg_plan p;
    CLPERM_RETURN_IF(!reg_plan_of(ctx, segment, value_bytes, pos_xor, neg_xor, list != NULL, 0, &p),
                     CLPERM_ERROR_INVALID_ARGUMENT);
    cl_kernel k;
    CLPERM_TRY(reg_kernel(ctx, &p, &k));
    uint64_t segments = list ? count : (n + segment - 1) / segment;
    if (segments == 0) return CLPERM_SUCCESS;
    return reg_launch(ctx, &p, k, keys, values, n, segment, list, first, segments);
}

/* The trace's launch: one work-group of the uniform segments, its kernel bound to the trace. */
typedef struct reg_trace_arg {
    const reg_plan *p;
    cl_kernel k;
    uint64_t n;
} reg_trace_arg;

static clperm_status reg_trace_launch(clperm_ctx *ctx, const clperm__trace *t, cl_mem a, cl_mem b, void *arg) {
    (void)b;
    const reg_trace_arg *r = arg;
    CLPERM_TRY(clperm__trace_bind(t, r->k));
    return reg_launch(ctx, r->p, r->k, a, NULL, r->n, r->p->t, NULL, 0, r->n / r->p->t);
}

clperm_status clperm_sort_segmented_conflicts(clperm_ctx *ctx, uint64_t segment, clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!out || segment < 2, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    reg_plan p;
    clperm_status st = CLPERM_ERROR_UNSUPPORTED;
    cl_kernel k;
    if (reg_plan_of(ctx, segment, 0, 0, 0, 0, 1, &p) && p.wg % REG_TRACE_BANKS == 0) st = reg_kernel(ctx, &p, &k);
    if (st == CLPERM_SUCCESS) {
        /* Every exchange through local memory stores and loads N words a work-item; the stages
         * of a sort of T keys are log2(T) (log2(T) + 1) / 2. */
        uint64_t stages = 0, n = (uint64_t)p.wg * p.n;
        for (uint32_t k2 = 2; k2 <= p.t; k2 *= 2)
            for (uint32_t j = k2 / 2; j > 0; j /= 2) stages++;
        uint64_t cap = 2 * stages * p.n + 1;
        clperm__trace t;
        st = clperm__trace_create(ctx, p.wg / REG_TRACE_BANKS, REG_TRACE_BANKS, cap, &t);
        if (st == CLPERM_SUCCESS) {
            uint32_t *keys = malloc((size_t)n * 4);
            st = keys ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY;
            for (uint64_t i = 0; keys && i < n; i++) keys[i] = (uint32_t)((i * 2654435761u) >> 7);
            reg_trace_arg arg = {&p, k, n};
            clperm__trace_io io = {keys, (size_t)n * 4, 0, 0};
            if (st == CLPERM_SUCCESS) st = clperm__trace_run(ctx, &t, &io, reg_trace_launch, &arg, out);
            free(keys);
            clperm__trace_release(&t);
        }
        if (st == CLPERM_SUCCESS) {
            out->shape.w = REG_TRACE_BANKS;
            out->shape.m = p.n;
            out->shape.tiles_per_group = p.wg / REG_TRACE_BANKS;
            out->shape.local_bytes = 2 * (uint64_t)p.wg * (p.n + 1) * 4;
            out->shape.tiles_per_cu = (uint32_t)(ctx->profile.local_mem_bytes / out->shape.local_bytes);
        }
    }
    clperm__ctx_leave(ctx);
    return st;
}
