/* Tile partitions of segments by a label of a few key bits: the stable ones through the tile sorts
 * (sort.c), and the counting partition of Afshani and Sitchinava (Corollary 1 and Theorem 1). */
#include "tile.h"

/* The counting partition's program: the texts it compiles, in order. */
static const clperm__tile_program counting_program = {
    "tile_counting", "clperm_partition_tile_counting", 3,
    {CLPERM__TILE_NETWORKS, clperm__cl_tile_common_h, clperm__cl_tile_counting_cl}};

/* The counting partition: the shortest tile that holds the segment (Corollary 1's where both
 * do). */
static clperm_status counting_plan(const clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                   unsigned shift, unsigned bits, int trace, clperm__tile_plan *p) {
    CLPERM_RETURN_IF(bits == 0 || with_values || segment == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm__tile_request rq = {.kind = CLPERM__TILE_COUNTING, .key_bytes = clperm_key_size(type), .bits = bits};
    CLPERM_TRY(clperm__tile_search(ctx, &rq, segment, p));
    const clperm_tile_shape *s = &p->shape;
    p->program = &counting_program;
    clperm__buf o = clperm__buf_on(p->options, sizeof p->options);
    clperm__buf_add(&o,
                    "-DCLPERM_TS_W=%u -DCLPERM_TS_M=%u -DCLPERM_TS_TILES=%u -DCLPERM_TS_KEY_KIND=%d "
                    "-DCLPERM_TS_VALUES=0 -DCLPERM_TS_TRACE=%d -DCLPERM_TS_DIGIT_BITS=%u -DCLPERM_TS_DIGIT_SHIFT=%u "
                    "-DCLPERM_TS_COUNTING=%u",
                    s->w, s->m, s->tiles_per_group, (int)type, trace, bits, shift, p->super);
    CLPERM_TRY(clperm__buf_status(&o));
    /* No register networks: the kernel sorts nothing in registers. */
    return clperm__tile_networks(p, 1, 1, 1);
}

clperm_status clperm__partition_plan(const clperm_ctx *ctx, clperm_key_type type, int with_values,
                                     uint64_t segment, unsigned shift, unsigned bits, clperm_tile_sort algorithm,
                                     int trace, clperm__tile_plan *p) {
    size_t ks = clperm_key_size(type);
    CLPERM_RETURN_IF(!CLPERM_KEY_TILES(type), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(bits > 8 || shift + bits > 8 * ks, CLPERM_ERROR_INVALID_ARGUMENT);
    if (algorithm == CLPERM_TILE_PARTITION_COUNTING)
        return counting_plan(ctx, type, with_values, segment, shift, bits, trace, p);
    return clperm__sort_plan(ctx, type, with_values, segment, algorithm, shift, bits, trace, p);
}

clperm_status clperm__tile_partition(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                     uint64_t segment, unsigned shift, unsigned bits, cl_uint num_events,
                                     const cl_event *events, cl_event *event) {
    clperm__tile_plan p;
    CLPERM_TRY(clperm__partition_plan(ctx, type, values != NULL, segment, shift, bits, CLPERM_TILE_SORT_AUTO, 0, &p));
    return clperm__segments_run(ctx, &p, type, keys, values, n, segment, num_events, events, event);
}

uint64_t clperm__tile_partition_max(const clperm_ctx *ctx, clperm_key_type type) {
    return clperm__sort_segment_max(ctx, type, 1, CLPERM_TILE_SORT_AUTO);
}

clperm_status clperm_partition_segment_max(clperm_ctx *ctx, clperm_key_type type, unsigned bits,
                                           clperm_tile_sort algorithm, uint64_t *out) {
    CLPERM_RETURN_IF(!out || bits == 0 || bits > 8 || (unsigned)algorithm > CLPERM_TILE_SORT_AS_WIDE,
                     CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(!CLPERM_KEY_TILES(type), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = CLPERM_SUCCESS;
    if (algorithm != CLPERM_TILE_PARTITION_COUNTING) {
        *out = clperm__sort_segment_max(ctx, type, 1, algorithm);
    } else {
        /* The longest tile that fits; none when no tile does. */
        clperm__tile_request rq = {.kind = CLPERM__TILE_COUNTING, .key_bytes = clperm_key_size(type), .bits = bits};
        clperm__tile_plan p;
        st = clperm__tile_search(ctx, &rq, 0, &p);
        if (st == CLPERM_SUCCESS) *out = (uint64_t)p.shape.w * p.shape.m;
    }
    clperm__ctx_leave(ctx);
    return st;
}

static clperm_status partition_checked(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values,
                                       uint64_t n, uint64_t segment, unsigned shift, unsigned bits,
                                       clperm_tile_sort algorithm, cl_uint num_events, const cl_event *events,
                                       cl_event *event) {
    clperm__tile_plan p;
    CLPERM_TRY(clperm__partition_plan(ctx, type, values != NULL, segment, shift, bits, algorithm, 0, &p));
    return clperm__segments_run(ctx, &p, type, keys, values, n, segment, num_events, events, event);
}

clperm_status clperm_partition_segments(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                        uint64_t segment, unsigned shift, unsigned bits, clperm_tile_sort algorithm,
                                        cl_uint num_events, const cl_event *events, cl_event *event) {
    CLPERM_RETURN_IF(bits == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = partition_checked(ctx, type, keys, values, n, segment, shift, bits, algorithm, num_events,
                                         events, event);
    clperm__ctx_leave(ctx);
    return st;
}
