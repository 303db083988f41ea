/* Tile sorts of segments in local memory: their programs, plans and launches. The stable
 * partitions run the same kernels on (label, position) (partition.c). */
#include <string.h>

#include "tile.h"

/* The programs of the tile sorts: the texts each compiles, in order (the plan's networks, the
 * tile layer, the algorithm's file). */
typedef struct sort_program {
    clperm_tile_sort algorithm;
    clperm__tile_program program;
} sort_program;

#define SORT_PROGRAM(algorithm, name, kernel, file) \
    {algorithm, {name, kernel, 3, {CLPERM__TILE_NETWORKS, clperm__cl_tile_common_h, file}}}
static const sort_program sort_programs[] = {
    SORT_PROGRAM(CLPERM_TILE_SORT_SHEAR, "tile_shear", "clperm_sort_tile_shear", clperm__cl_tile_shear_cl),
    SORT_PROGRAM(CLPERM_TILE_SORT_BITONIC, "tile_bitonic", "clperm_sort_tile_bitonic", clperm__cl_tile_bitonic_cl),
    SORT_PROGRAM(CLPERM_TILE_SORT_BITONIC_PADDED, "tile_bitonic", "clperm_sort_tile_bitonic_padded",
                 clperm__cl_tile_bitonic_cl),
    SORT_PROGRAM(CLPERM_TILE_SORT_AS, "tile_as", "clperm_sort_tile_as", clperm__cl_tile_as_cl),
    SORT_PROGRAM(CLPERM_TILE_SORT_AS_WIDE, "tile_as_wide", "clperm_sort_tile_as_wide", clperm__cl_tile_as_wide_cl),
};

/* CLPERM_TILE_SORT_AUTO as the device's tuning chooses it. */
static clperm_tile_sort resolve(const clperm_ctx *ctx, clperm_tile_sort algorithm) {
    return algorithm == CLPERM_TILE_SORT_AUTO ? (clperm_tile_sort)ctx->tuning.tile.auto_sort : algorithm;
}

static const clperm__tile_program *sort_program_of(clperm_tile_sort algorithm) {
    for (size_t i = 0; i < sizeof sort_programs / sizeof sort_programs[0]; i++)
        if (sort_programs[i].algorithm == algorithm) return &sort_programs[i].program;
    return NULL;
}

uint64_t clperm__sort_segment_max(const clperm_ctx *ctx, clperm_key_type type, int positions,
                                  clperm_tile_sort algorithm) {
    clperm__tile_request rq = {.kind = CLPERM__TILE_SORT, .algorithm = resolve(ctx, algorithm),
                               .key_bytes = clperm_key_size(type), .positions = positions};
    clperm__tile_plan p;
    if (clperm__tile_search(ctx, &rq, 0, &p) != CLPERM_SUCCESS) return 1;
    return (uint64_t)p.shape.w * p.shape.m;
}

clperm_status clperm__sort_plan(const clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                clperm_tile_sort algorithm, unsigned shift, unsigned bits, int trace,
                                clperm__tile_plan *p) {
    size_t ks = clperm_key_size(type);
    CLPERM_RETURN_IF(!CLPERM_KEY_TILES(type), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(bits > 8 || shift + bits > 8 * ks, CLPERM_ERROR_INVALID_ARGUMENT);
    algorithm = resolve(ctx, algorithm);
    p->program = sort_program_of(algorithm);
    CLPERM_RETURN_IF(!p->program || segment == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm__tile_request rq = {.kind = CLPERM__TILE_SORT, .algorithm = algorithm, .key_bytes = ks,
                               .positions = with_values || bits};
    CLPERM_TRY(clperm__tile_search(ctx, &rq, segment, p));
    const clperm_tile_shape *s = &p->shape;
    /* Rows the Afshani-Sitchinava sorts gather hold sorted runs: of m / w keys in Lemma 1, of
     * sqrt(m) keys in the super-rows of sqrt(m) rows that Theorem 1 sorts by Lemma 1. */
    uint32_t run = s->m, sq = 1;
    while (sq * sq < s->m) sq *= 2;
    if (algorithm == CLPERM_TILE_SORT_AS) run = s->m / s->w;
    if (algorithm == CLPERM_TILE_SORT_AS_WIDE) run = sq;
    clperm__buf o = clperm__buf_on(p->options, sizeof p->options);
    clperm__buf_add(&o,
                    "-DCLPERM_TS_W=%u -DCLPERM_TS_M=%u -DCLPERM_TS_TILES=%u -DCLPERM_TS_KEY_KIND=%d "
                    "-DCLPERM_TS_VALUES=%d -DCLPERM_TS_TRACE=%d -DCLPERM_TS_DIGIT_BITS=%u -DCLPERM_TS_DIGIT_SHIFT=%u "
                    "-DCLPERM_TS_S=%u -DCLPERM_TS_RUN=%u",
                    s->w, s->m, s->tiles_per_group, (int)type, with_values != 0, trace, bits, shift,
                    algorithm == CLPERM_TILE_SORT_AS_WIDE ? sq : 0, run);
    CLPERM_TRY(clperm__buf_status(&o));
    return clperm__tile_networks(p, s->w, s->m, run);
}

clperm_status clperm__segments_launch(clperm_ctx *ctx, const clperm__tile_plan *p, cl_mem keys, cl_mem values,
                                      uint64_t n, uint64_t segment, cl_uint num_events, const cl_event *events,
                                      cl_event *event) {
    cl_kernel k;
    CLPERM_TRY(clperm__tile_plan_kernel(ctx, p, &k));
    uint64_t groups = ((n + segment - 1) / segment + p->shape.tiles_per_group - 1) / p->shape.tiles_per_group;
    size_t local = (size_t)p->shape.w * p->shape.tiles_per_group;
    CLPERM_RETURN_IF(groups > SIZE_MAX / local, CLPERM_ERROR_SIZE_OVERFLOW);
    clperm__args a = {k, 0, CL_SUCCESS};
    cl_mem v = values ? values : keys;
    cl_ulong nn = n, seg = segment;
    CLPERM__ARG(a, keys);
    CLPERM__ARG(a, v);
    CLPERM__ARG(a, nn);
    CLPERM__ARG(a, seg);
    CLPERM_TRY(a.err);
    size_t global = (size_t)groups * local;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, num_events, events, event);
}

clperm_status clperm__segments_run(clperm_ctx *ctx, const clperm__tile_plan *p, clperm_key_type type, cl_mem keys,
                                   cl_mem values, uint64_t n, uint64_t segment, cl_uint num_events,
                                   const cl_event *events, cl_event *event) {
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, keys, n, clperm_key_size(type), 1));
    if (values) {
        CLPERM_RETURN_IF(values == keys, CLPERM_ERROR_INVALID_ARGUMENT);
        CLPERM_TRY(clperm__check_overlap(keys, n * clperm_key_size(type), values, n * 4, 0));
        CLPERM_TRY(clperm__check_buffer(ctx, values, n, 4, 1));
    }
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (n == 0) return clperm__empty_call(ctx, num_events, events, event);
    return clperm__segments_launch(ctx, p, keys, values, n, segment, num_events, events, event);
}

clperm_status clperm_sort_segment_max(clperm_ctx *ctx, clperm_key_type type, int with_values,
                                      clperm_tile_sort algorithm, uint64_t *out) {
    CLPERM_RETURN_IF(!out || (unsigned)algorithm > CLPERM_TILE_SORT_AS_WIDE ||
                         algorithm == CLPERM_TILE_PARTITION_COUNTING,
                     CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(!CLPERM_KEY_TILES(type), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    *out = clperm__sort_segment_max(ctx, type, with_values, algorithm);
    clperm__ctx_leave(ctx);
    return CLPERM_SUCCESS;
}

clperm_status clperm_sort_tile_shape(clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                     clperm_tile_sort algorithm, clperm_tile_shape *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm__tile_plan p;
    clperm_status st = clperm__sort_plan(ctx, type, with_values, segment, algorithm, 0, 0, 0, &p);
    if (st == CLPERM_SUCCESS) *out = p.shape;
    clperm__ctx_leave(ctx);
    return st;
}

clperm_status clperm__tile_sort(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                uint64_t segment, cl_uint num_events, const cl_event *events, cl_event *event) {
    clperm__tile_plan p;
    CLPERM_TRY(clperm__sort_plan(ctx, type, values != NULL, segment, CLPERM_TILE_SORT_AUTO, 0, 0, 0, &p));
    return clperm__segments_run(ctx, &p, type, keys, values, n, segment, num_events, events, event);
}

uint64_t clperm__tile_sort_max(const clperm_ctx *ctx, clperm_key_type type, int with_values) {
    return clperm__sort_segment_max(ctx, type, with_values, CLPERM_TILE_SORT_AUTO);
}

clperm_status clperm__tile_sort_list(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values,
                                     size_t value_bytes, cl_mem list, uint64_t first, uint64_t count, uint64_t segment,
                                     int descending) {
    clperm__tile_plan p;
    cl_kernel k;
    CLPERM_TRY(clperm__sort_plan(ctx, type, value_bytes != 0, segment, CLPERM_TILE_SORT_AUTO, 0, 0, 0, &p));
    clperm__buf o = {p.options, sizeof p.options, strlen(p.options), 0};
    clperm__buf_add(&o, " -DCLPERM_TS_LIST=1 -DCLPERM_TS_FLIP=%d -DCLPERM_TS_VALUE64=%d", descending != 0,
                    value_bytes == 8);
    CLPERM_TRY(clperm__buf_status(&o));
    CLPERM_TRY(clperm__tile_plan_kernel(ctx, &p, &k));
    if (count == 0) return CLPERM_SUCCESS; /* the kernel alone, ahead of the launches */
    uint64_t groups = (count + p.shape.tiles_per_group - 1) / p.shape.tiles_per_group;
    size_t local = (size_t)p.shape.w * p.shape.tiles_per_group;
    CLPERM_RETURN_IF(groups > SIZE_MAX / local, CLPERM_ERROR_SIZE_OVERFLOW);
    cl_mem v = values ? values : keys;
    cl_ulong cnt = count, seg = segment, f = first;
    clperm__args a = {k, 0, CL_SUCCESS};
    CLPERM__ARG(a, keys);
    CLPERM__ARG(a, v);
    CLPERM__ARG(a, cnt);
    CLPERM__ARG(a, seg);
    CLPERM__ARG(a, list);
    CLPERM__ARG(a, f);
    CLPERM_TRY(a.err);
    size_t global = (size_t)groups * local;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
}

static clperm_status sort_checked(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                  uint64_t segment, clperm_tile_sort algorithm, cl_uint num_events,
                                  const cl_event *events, cl_event *event) {
    clperm__tile_plan p;
    CLPERM_TRY(clperm__sort_plan(ctx, type, values != NULL, segment, algorithm, 0, 0, 0, &p));
    return clperm__segments_run(ctx, &p, type, keys, values, n, segment, num_events, events, event);
}

clperm_status clperm_sort_segments(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                   uint64_t segment, clperm_tile_sort algorithm, cl_uint num_events,
                                   const cl_event *events, cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = sort_checked(ctx, type, keys, values, n, segment, algorithm, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}
