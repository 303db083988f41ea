/* Offline permutations on the device: the conventional ones from an index array (scatter and
 * gather) and the regular ones through a local tile (transpose, bit-reversal, perfect shuffle),
 * with their bank-conflict check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perm_internal.h"
#include "../tile/tile.h"

const char *clperm__perm_item_type(size_t bytes) {
    switch (bytes) {
    case 4: return "uint";
    case 8: return "ulong";
    case 16: return "uint4";
    default: return NULL;
    }
}

uint32_t clperm__perm_banks(const clperm_ctx *ctx, size_t bytes) {
    uint32_t w = ctx->profile.banks ? ctx->profile.banks : 32;
    w = (uint32_t)(w * 4 / bytes);
    return w ? w : 1;
}

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

static unsigned log2u(uint64_t x) {
    unsigned k = 0;
    while ((UINT64_C(1) << k) < x) k++;
    return k;
}

/* The program of permute.cl for items of `bytes` (and indices of index_bytes, 0: none), with
 * `tiles` tiles per work-group and `rows` rows of 32 work-items (0: 8) in the local-tile transpose
 * and bit-reversal. */
static clperm_status pm_kernel(clperm_ctx *ctx, size_t bytes, size_t index_bytes, int tiles, int rows, int naive,
                               int trace, const char *name, cl_kernel *out) {
    char storage[256];
    clperm__buf options = clperm__buf_on(storage, sizeof storage);
    clperm__buf_add(&options,
                    "-DCLPERM_PM_ITEM=%s -DCLPERM_PM_W=%u -DCLPERM_PM_TILES=%d -DCLPERM_PM_NAIVE=%d -DCLPERM_PM_TRACE=%d "
                    "-DCLPERM_PM_WG_ROWS=%d",
                    clperm__perm_item_type(bytes), clperm__perm_banks(ctx, bytes), tiles, naive, trace, rows ? rows : 8);
    /* The serial kernels only in a program of their own (tiles unused there). */
    if (strstr(name, "_serial"))
        clperm__buf_add(&options, " -DCLPERM_PM_SERIAL=1 -DCLPERM_PM_BYTES=%u", (unsigned)bytes);
    if (index_bytes) clperm__buf_add(&options, " -DCLPERM_PM_INDEX=%s", index_bytes == 8 ? "ulong" : "uint");
    CLPERM_TRY(clperm__buf_status(&options));
    const char *texts[2] = {clperm__cl_permute_permute_common_h, clperm__cl_permute_permute_cl};
    size_t lengths[2] = {clperm__cl_permute_permute_common_h_size, clperm__cl_permute_permute_cl_size};
    clperm__source src = {"permute", 2, texts, lengths};
    return clperm__kernel_get(ctx, &src, storage, name, out);
}

static clperm_status enqueue(clperm_ctx *ctx, cl_kernel k, uint64_t groups, size_t local, cl_uint num_events,
                             const cl_event *events, cl_event *event) {
    CLPERM_RETURN_IF(groups > SIZE_MAX / local, CLPERM_ERROR_SIZE_OVERFLOW);
    size_t global = (size_t)groups * local;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, num_events, events, event);
}

/* Checks common to the out-of-place permutations of n items. */
static clperm_status check_pair(const clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size,
                                cl_uint num_events, const cl_event *events) {
    CLPERM_RETURN_IF(!clperm__perm_item_type(elem_size), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, src, n, elem_size, 0));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, n, elem_size, 1));
    return clperm__check_overlap(src, n * elem_size, dst, n * elem_size, 0);
}

/* ---- conventional ---- */

static clperm_status indexed_checked(clperm_ctx *ctx, const char *name, cl_mem src, cl_mem dst, uint64_t n,
                                     size_t elem_size, clperm_type index_type, cl_mem idx, cl_uint num_events,
                                     const cl_event *events, cl_event *event) {
    size_t ib = clperm_type_size(index_type);
    CLPERM_RETURN_IF(!ib, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(check_pair(ctx, src, dst, n, elem_size, num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, idx, n, ib, 0));
    CLPERM_TRY(clperm__check_overlap(idx, n * ib, dst, n * elem_size, 0));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (n == 0) return clperm__empty_call(ctx, num_events, events, event);
    cl_kernel k;
    CLPERM_TRY(pm_kernel(ctx, elem_size, ib, 1, 0, 0, 0, name, &k));
    cl_ulong nn = n;
    clperm__args a = {k, 0, CL_SUCCESS};
    CLPERM__ARG(a, src);
    CLPERM__ARG(a, dst);
    CLPERM__ARG(a, idx);
    CLPERM__ARG(a, nn);
    CLPERM_TRY(a.err);
    return enqueue(ctx, k, (n + 255) / 256, 256, num_events, events, event);
}

static clperm_status indexed(clperm_ctx *ctx, const char *name, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size,
                             clperm_type index_type, cl_mem idx, cl_uint num_events, const cl_event *events,
                             cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = indexed_checked(ctx, name, src, dst, n, elem_size, index_type, idx, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

clperm_status clperm_permute_scatter(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size,
                                     clperm_type index_type, cl_mem p, cl_uint num_events, const cl_event *events,
                                     cl_event *event) {
    return indexed(ctx, "clperm_permute_scatter", src, dst, n, elem_size, index_type, p, num_events, events, event);
}

clperm_status clperm_permute_gather(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size,
                                    clperm_type index_type, cl_mem q, cl_uint num_events, const cl_event *events,
                                    cl_event *event) {
    return indexed(ctx, "clperm_permute_gather", src, dst, n, elem_size, index_type, q, num_events, events, event);
}

/* ---- regular ---- */

/* A regular permutation's launch: kernel, tiles, and (for a trace build) the record. */
typedef struct regular_run {
    clperm_permute_kind kind;
    size_t bytes;
    uint64_t rows, cols; /* transpose; else n = rows */
    int naive;
    cl_mem trace;
    cl_uint trace_cap;
} regular_run;

/* The units of work of r (transpose, or n >= 1024 items): the transpose's 32 x 32 tiles, else
 * blocks of 1024 items (the bit-reversal's tiles, the shuffles' blocks). */
static uint64_t regular_units(const regular_run *r) {
    return r->kind == CLPERM_PERMUTE_TRANSPOSE ? ((r->rows + 31) / 32) * ((r->cols + 31) / 32) : r->rows / 1024;
}

/* The work-groups of the local-tile kernel of r, with `tiles` 32 x 32 tiles each in the transpose
 * and the bit-reversal (the last group's tail idle where the tile count is not a multiple); 0 when
 * the transpose's tiles are past 32-bit numbering (2^42 items and more). */
static uint64_t regular_groups(const regular_run *r, int tiles) {
    uint64_t count = regular_units(r);
    if (r->kind == CLPERM_PERMUTE_TRANSPOSE) {
        uint64_t groups = (count + tiles - 1) / tiles;
        return groups * tiles > UINT32_MAX ? 0 : groups;
    }
    return r->kind == CLPERM_PERMUTE_BIT_REVERSAL ? (count + tiles - 1) / tiles : count;
}


/* The serial kernels of r: work-groups of one work-item, each moving *per consecutive units,
 * about eight work-items per compute unit; 0 when past 32-bit numbering. */
static uint64_t serial_groups(const clperm_ctx *ctx, const regular_run *r, cl_uint *per) {
    uint64_t units = regular_units(r);
    uint64_t want = 8 * (uint64_t)(ctx->profile.compute_units ? ctx->profile.compute_units : 1);
    uint64_t p = (units + want - 1) / want;
    if (p > UINT32_MAX) return 0;
    *per = (cl_uint)p;
    return (units + p - 1) / p;
}

static clperm_status run_serial(clperm_ctx *ctx, const regular_run *r, cl_mem src, cl_mem dst, cl_uint num_events,
                                const cl_event *events, cl_event *event) {
    cl_uint per = 0;
    uint64_t groups = serial_groups(ctx, r, &per);
    CLPERM_RETURN_IF(!groups, CLPERM_ERROR_SIZE_OVERFLOW);
    cl_kernel k;
    clperm__args a;
    if (r->kind == CLPERM_PERMUTE_TRANSPOSE) {
        CLPERM_TRY(pm_kernel(ctx, r->bytes, 0, 1, 0, 0, 0, "clperm_transpose_serial", &k));
        cl_ulong rows = r->rows, cols = r->cols, tiles = regular_units(r);
        cl_uint tc = (cl_uint)((r->cols + 31) / 32);
        a = (clperm__args){k, 0, CL_SUCCESS};
        CLPERM__ARG(a, src);
        CLPERM__ARG(a, dst);
        CLPERM__ARG(a, rows);
        CLPERM__ARG(a, cols);
        CLPERM__ARG(a, tc);
        CLPERM__ARG(a, tiles);
    } else {
        int bitrev = r->kind == CLPERM_PERMUTE_BIT_REVERSAL;
        CLPERM_TRY(pm_kernel(ctx, r->bytes, 0, 1, 0, 0, 0, bitrev ? "clperm_bit_reversal_serial" : "clperm_shuffle_serial",
                             &k));
        cl_uint kk = log2u(r->rows), inverse = r->kind == CLPERM_PERMUTE_UNSHUFFLE;
        a = (clperm__args){k, 0, CL_SUCCESS};
        CLPERM__ARG(a, src);
        CLPERM__ARG(a, dst);
        CLPERM__ARG(a, kk);
        if (!bitrev) CLPERM__ARG(a, inverse);
    }
    CLPERM__ARG(a, per);
    CLPERM_TRY(a.err);
    return enqueue(ctx, k, groups, 1, num_events, events, event);
}

/* Enqueues one regular permutation of src into dst (arguments already checked, n > 0), with the
 * device's kernel kind (CLPERM_PARAM_PERMUTE_KERNEL); trace builds always take the local tiles. */
static clperm_status run_regular(clperm_ctx *ctx, const regular_run *r, cl_mem src, cl_mem dst, cl_uint num_events,
                                 const cl_event *events, cl_event *event) {
    int trace = r->trace != NULL, kind = trace ? CLPERM_PERMUTE_KERNEL_LOCAL : clperm__permute_kernel(ctx);
    int blocked = kind == CLPERM_PERMUTE_KERNEL_BLOCKED;
    int tiled = r->kind == CLPERM_PERMUTE_TRANSPOSE ? r->rows > 1 && r->cols > 1 : r->rows >= 1024;
    if (kind == CLPERM_PERMUTE_KERNEL_SERIAL && tiled)
        return run_serial(ctx, r, src, dst, num_events, events, event);
    int tiles = blocked ? 1 : clperm__permute_tiles(ctx, r->kind, r->bytes);
    int wg_rows = blocked ? 8 : clperm__permute_wg_rows(ctx, r->kind, r->bytes);
    cl_kernel k;
    if (r->kind == CLPERM_PERMUTE_TRANSPOSE) {
        if ((r->rows == 1 || r->cols == 1) && !trace)
            return clEnqueueCopyBuffer(ctx->queue, src, dst, 0, 0, (size_t)(r->rows * r->cols * r->bytes), num_events,
                                       events, event);
        uint64_t tiles_c = (r->cols + 31) / 32, groups = regular_groups(r, tiles);
        CLPERM_RETURN_IF(!groups, CLPERM_ERROR_SIZE_OVERFLOW);
        CLPERM_TRY(pm_kernel(ctx, r->bytes, 0, tiles, wg_rows, r->naive, trace,
                             blocked ? "clperm_transpose_blocked" : "clperm_transpose_tiled", &k));
        cl_ulong rows = r->rows, cols = r->cols;
        cl_uint tc = (cl_uint)tiles_c;
        clperm__args a = {k, 0, CL_SUCCESS};
        CLPERM__ARG(a, src);
        CLPERM__ARG(a, dst);
        CLPERM__ARG(a, rows);
        CLPERM__ARG(a, cols);
        CLPERM__ARG(a, tc);
        if (trace) {
            CLPERM__ARG(a, r->trace);
            CLPERM__ARG(a, r->trace_cap);
        }
        CLPERM_TRY(a.err);
        return enqueue(ctx, k, groups, 32 * (size_t)wg_rows, num_events, events, event);
    }
    uint64_t n = r->rows;
    cl_uint kk = log2u(n);
    int bitrev = r->kind == CLPERM_PERMUTE_BIT_REVERSAL;
    if (n < 1024 || (blocked && !bitrev)) {
        /* One work-item per item: below one tile, and the shuffles on CPUs (both sides already
         * run in order there). */
        CLPERM_TRY(pm_kernel(ctx, r->bytes, 0, tiles, 0, 0, 0, bitrev ? "clperm_bit_reversal_direct" : "clperm_shuffle_direct",
                             &k));
        cl_uint inverse = r->kind == CLPERM_PERMUTE_UNSHUFFLE;
        clperm__args a = {k, 0, CL_SUCCESS};
        CLPERM__ARG(a, src);
        CLPERM__ARG(a, dst);
        CLPERM__ARG(a, kk);
        if (!bitrev) CLPERM__ARG(a, inverse);
        CLPERM_TRY(a.err);
        size_t local = n < 256 ? (size_t)n : 256;
        return enqueue(ctx, k, n / local, local, num_events, events, event);
    }
    const char *name = bitrev ? (blocked ? "clperm_bit_reversal_blocked" : "clperm_bit_reversal_tiled")
                       : r->kind == CLPERM_PERMUTE_SHUFFLE ? "clperm_shuffle_tiled"
                                                           : "clperm_unshuffle_tiled";
    CLPERM_TRY(pm_kernel(ctx, r->bytes, 0, tiles, wg_rows, r->naive, trace, name, &k));
    clperm__args a = {k, 0, CL_SUCCESS};
    CLPERM__ARG(a, src);
    CLPERM__ARG(a, dst);
    CLPERM__ARG(a, kk);
    if (trace) {
        CLPERM__ARG(a, r->trace);
        CLPERM__ARG(a, r->trace_cap);
    }
    CLPERM_TRY(a.err);
    return enqueue(ctx, k, regular_groups(r, blocked ? 1 : tiles), 32 * (size_t)wg_rows, num_events, events, event);
}

clperm_status clperm__transpose_enqueue(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t rows, uint64_t cols,
                                        size_t bytes, cl_uint num_events, const cl_event *events, cl_event *event) {
    regular_run r = {CLPERM_PERMUTE_TRANSPOSE, bytes, rows, cols, 0, NULL, 0};
    return run_regular(ctx, &r, src, dst, num_events, events, event);
}

static clperm_status regular_checked(clperm_ctx *ctx, const regular_run *r, cl_mem src, cl_mem dst,
                                     cl_uint num_events, const cl_event *events, cl_event *event) {
    uint64_t n = r->rows;
    if (r->kind == CLPERM_PERMUTE_TRANSPOSE) {
        CLPERM_RETURN_IF(r->cols && r->rows > UINT64_MAX / r->cols, CLPERM_ERROR_SIZE_OVERFLOW);
        n = r->rows * r->cols;
    } else {
        CLPERM_RETURN_IF(n && !is_pow2(n), CLPERM_ERROR_INVALID_ARGUMENT);
    }
    CLPERM_TRY(check_pair(ctx, src, dst, n, r->bytes, num_events, events));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (n == 0) return clperm__empty_call(ctx, num_events, events, event);
    return run_regular(ctx, r, src, dst, num_events, events, event);
}

clperm_status clperm_transpose(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t rows, uint64_t cols,
                               size_t elem_size, cl_uint num_events, const cl_event *events, cl_event *event) {
    regular_run r = {CLPERM_PERMUTE_TRANSPOSE, elem_size, rows, cols, 0, NULL, 0};
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = regular_checked(ctx, &r, src, dst, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

clperm_status clperm_permute_bit_reversal(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size,
                                          cl_uint num_events, const cl_event *events, cl_event *event) {
    regular_run r = {CLPERM_PERMUTE_BIT_REVERSAL, elem_size, n, 1, 0, NULL, 0};
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = regular_checked(ctx, &r, src, dst, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

clperm_status clperm_permute_shuffle(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size,
                                     int inverse, cl_uint num_events, const cl_event *events, cl_event *event) {
    regular_run r = {inverse ? CLPERM_PERMUTE_UNSHUFFLE : CLPERM_PERMUTE_SHUFFLE, elem_size, n, 1, 0, NULL, 0};
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = regular_checked(ctx, &r, src, dst, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

/* ---- the bank-conflict check ---- */

typedef struct perm_traced {
    clperm__trace_fn fn;
    void *arg;
} perm_traced;

static clperm_status perm_traced_launch(clperm_ctx *ctx, const clperm__trace *t, cl_mem a, cl_mem b, void *arg) {
    const perm_traced *l = arg;
    return l->fn(ctx, l->arg, a, b, t->buffer, t->cap);
}

clperm_status clperm__perm_trace_run(clperm_ctx *ctx, uint64_t items, uint32_t cap, uint32_t w, uint64_t groups,
                                     size_t data_bytes, clperm__trace_fn fn, void *arg, clperm_conflict_report *out) {
    /* The trace layer's tiles are the groups of w consecutive work-items. */
    CLPERM_RETURN_IF(items == 0 || w == 0 || items % w, CLPERM_ERROR_INTERNAL);
    clperm__trace t;
    CLPERM_TRY(clperm__trace_create(ctx, items / w, w, cap, &t));
    const clperm__trace_io io = {NULL, data_bytes, data_bytes, 1};
    perm_traced l = {fn, arg};
    clperm_status st = clperm__trace_run(ctx, &t, &io, perm_traced_launch, &l, out);
    out->tiles = groups;
    out->shape.w = w;
    clperm__trace_release(&t);
    return st;
}

typedef struct regular_trace {
    regular_run run;
    uint64_t n;
} regular_trace;

static clperm_status regular_trace_fn(clperm_ctx *ctx, void *arg, cl_mem src, cl_mem dst, cl_mem trace, uint32_t cap) {
    regular_trace *t = arg;
    t->run.trace = trace;
    t->run.trace_cap = cap;
    return run_regular(ctx, &t->run, src, dst, 0, NULL, NULL);
}

static clperm_status regular_conflicts_checked(clperm_ctx *ctx, clperm_permute_kind kind, size_t elem_size,
                                               uint64_t rows, uint64_t cols, int naive, clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!clperm__perm_item_type(elem_size), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(kind < CLPERM_PERMUTE_TRANSPOSE || kind > CLPERM_PERMUTE_UNSHUFFLE, CLPERM_ERROR_INVALID_ARGUMENT);
    regular_trace t = {{kind, elem_size, rows, kind == CLPERM_PERMUTE_TRANSPOSE ? cols : 1, naive != 0, NULL, 0}, 0};
    if (kind == CLPERM_PERMUTE_TRANSPOSE) {
        CLPERM_RETURN_IF(rows == 0 || cols == 0 || rows > (1u << 12) || cols > (1u << 12),
                         CLPERM_ERROR_INVALID_ARGUMENT);
        t.n = rows * cols;
    } else {
        /* The tiled kernels only: the direct ones for n < 1024 use no local memory. */
        CLPERM_RETURN_IF(!is_pow2(rows) || rows < 1024 || rows > (1u << 22), CLPERM_ERROR_INVALID_ARGUMENT);
        t.n = rows;
    }
    /* As run_regular launches it: the context's tiles per work-group and rows of 32 work-items, 2
     * x 32 / rows accesses per tile and work-item (the shuffles: one block of 1024 per 8 rows, 8
     * accesses). */
    int tiled = kind == CLPERM_PERMUTE_TRANSPOSE || kind == CLPERM_PERMUTE_BIT_REVERSAL;
    int tiles = clperm__permute_tiles(ctx, kind, elem_size);
    uint32_t wg_rows = (uint32_t)clperm__permute_wg_rows(ctx, kind, elem_size);
    uint64_t groups = regular_groups(&t.run, tiles);
    uint32_t cap = 2u * (32u / wg_rows) * (tiled ? (uint32_t)tiles : 1u);
    return clperm__perm_trace_run(ctx, groups * 32 * wg_rows, cap, clperm__perm_banks(ctx, elem_size), groups,
                                  (size_t)(t.n * elem_size), regular_trace_fn, &t, out);
}

clperm_status clperm_permute_conflicts(clperm_ctx *ctx, clperm_permute_kind kind, size_t elem_size, uint64_t rows,
                                       uint64_t cols, int naive, clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = regular_conflicts_checked(ctx, kind, elem_size, rows, cols, naive, out);
    clperm__ctx_leave(ctx);
    return st;
}
