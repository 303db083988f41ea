/* Batched transposes through local memory: matrices of rows x cols items, one per work-group of w
 * work-items, in local memory as a padded rp x cp tile (both multiples of w) in the diagonal
 * arrangement. */
#include "tile.h"

/* The transposes' program: the texts it compiles, in order. */
static const clperm__tile_program transpose_program = {
    "tile_transpose", "clperm_transpose_tiles", 3,
    {CLPERM__TILE_NETWORKS, clperm__cl_tile_common_h, clperm__cl_tile_transpose_cl}};

clperm_status clperm__transpose_plan(const clperm_ctx *ctx, clperm_type type, uint32_t rows, uint32_t cols,
                                     int trace, clperm__tile_plan *p) {
    size_t es = clperm_type_size(type);
    CLPERM_RETURN_IF(es == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(rows == 0 || cols == 0 || rows > 65536 || cols > 65536, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm__tile_request rq = {.kind = CLPERM__TILE_TRANSPOSE, .key_bytes = es, .rows = rows, .cols = cols};
    CLPERM_TRY(clperm__tile_search(ctx, &rq, (uint64_t)rows * cols, p));
    p->program = &transpose_program;
    clperm__buf o = clperm__buf_on(p->options, sizeof p->options);
    clperm__buf_add(&o,
                    "-DCLPERM_TS_W=%u -DCLPERM_TS_M=1 -DCLPERM_TS_TILES=1 -DCLPERM_TS_KEY_KIND=%d -DCLPERM_TS_TRACE=%d "
                    "-DCLPERM_TS_TR_ROWS=%u -DCLPERM_TS_TR_COLS=%u",
                    p->shape.w, type == CLPERM_TYPE_U64 ? 4 : 1, trace, rows, cols);
    CLPERM_TRY(clperm__buf_status(&o));
    return clperm__tile_networks(p, p->shape.w, 1, 1);
}

clperm_status clperm__transpose_launch(clperm_ctx *ctx, const clperm__tile_plan *p, cl_mem src, cl_mem dst,
                                       uint64_t count, cl_uint num_events, const cl_event *events,
                                       cl_event *event) {
    cl_kernel k;
    CLPERM_TRY(clperm__tile_plan_kernel(ctx, p, &k));
    CLPERM_RETURN_IF(count > SIZE_MAX / p->shape.w, CLPERM_ERROR_SIZE_OVERFLOW);
    clperm__args a = {k, 0, CL_SUCCESS};
    cl_ulong cnt = count;
    CLPERM__ARG(a, src);
    CLPERM__ARG(a, dst);
    CLPERM__ARG(a, cnt);
    CLPERM_TRY(a.err);
    size_t local = p->shape.w, global = (size_t)count * local;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, num_events, events, event);
}

static clperm_status transpose_checked(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst, uint64_t count,
                                       uint32_t rows, uint32_t cols, cl_uint num_events, const cl_event *events,
                                       cl_event *event) {
    clperm__tile_plan p;
    CLPERM_TRY(clperm__transpose_plan(ctx, type, rows, cols, 0, &p));
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    uint64_t items = (uint64_t)rows * cols;
    CLPERM_RETURN_IF(count > UINT64_MAX / items, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(clperm__check_buffer(ctx, src, count * items, clperm_type_size(type), 0));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, count * items, clperm_type_size(type), 1));
    CLPERM_RETURN_IF(src == dst, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__check_overlap(src, count * items * clperm_type_size(type), dst,
                                     count * items * clperm_type_size(type), 0));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (count == 0) return clperm__empty_call(ctx, num_events, events, event);
    return clperm__transpose_launch(ctx, &p, src, dst, count, num_events, events, event);
}

clperm_status clperm_transpose_tiles(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst, uint64_t count,
                                     uint32_t rows, uint32_t cols, cl_uint num_events, const cl_event *events,
                                     cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = transpose_checked(ctx, type, src, dst, count, rows, cols, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}
