/* Tile sorts of segments in local memory: the tile shape, the launches, and the bank-conflict
 * check of a trace build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct sort_plan {
    clperm_tile_shape shape;
    const char *kernel;
    char options[384];
    char networks[32768]; /* the register sorting networks, written before the kernel source */
} sort_plan;

/* Appends "#define name" and the levels of Batcher's odd-even merge sort of n (a power of two)
 * keys that merge sorted runs of pp into runs of 2pp for from <= pp < to, as a list of
 * TS_CX(i, j), i < j: merges at distances pp, pp/2, ... Levels 1 .. n/2 sort; levels from r on
 * merge n/r sorted runs of r. */
static void append_network(char *buf, size_t cap, const char *name, uint32_t n, uint32_t from, uint32_t to) {
    clperm__appendf(buf, cap, "#define %s", name);
    for (uint32_t pp = from; pp < n && pp < to; pp <<= 1)
        for (uint32_t kk = pp; kk >= 1; kk >>= 1)
            for (uint32_t j = kk % pp; j + kk < n; j += 2 * kk)
                for (uint32_t i = 0; i < kk && i + j + kk < n; i++)
                    if ((i + j) / (2 * pp) == (i + j + kk) / (2 * pp))
                        clperm__appendf(buf, cap, " TS_CX(%u,%u)", i + j, i + j + kk);
    clperm__appendf(buf, cap, "\n");
}

/* The row networks of a tile of m columns whose gathered rows hold sorted runs of `run`: the
 * levels below `run` (CLPERM_TS_NET_RUNS) and the merges from `run` up (CLPERM_TS_NET_MERGE), and
 * a sort of w keys (CLPERM_TS_NET_W). */
static void append_networks(sort_plan *p, uint32_t w, uint32_t m, uint32_t run) {
    p->networks[0] = 0;
    append_network(p->networks, sizeof p->networks, "CLPERM_TS_NET_RUNS", m, 1, run);
    append_network(p->networks, sizeof p->networks, "CLPERM_TS_NET_MERGE", m, run, m);
    append_network(p->networks, sizeof p->networks, "CLPERM_TS_NET_W", w, 1, w);
}

/* Keys per work-item the registers hold in a row sort. */
static uint32_t m_max(clperm_key_type type, int with_values) {
    return clperm_key_size(type) == 4 && !with_values ? 64 : 32;
}

static uint64_t tile_local_bytes(clperm_key_type type, int with_values, uint32_t w, uint32_t m) {
    uint64_t words = (uint64_t)w * m + m; /* one pad word per w (the padded bitonic's layout) */
    return words * (clperm_key_size(type) + (with_values ? 4 : 0));
}

static uint32_t width_cap(const clperm_ctx *ctx) {
    uint32_t w = (uint32_t)clperm__sort_width(ctx);
    while (w > 1 && w > ctx->profile.max_work_group_size) w /= 2;
    return w;
}

/* The tile width for t keys (a power of two): the widest w <= cap with w * aspect <= m = t / w
 * (w * w <= m for the Afshani-Sitchinava sort), widened while m exceeds mmax. Chosen by the
 * device's tuning unless CLPERM_PARAM_SORT_WIDTH forces the width, then the aspect is 1: as wide
 * as the segment allows. Theorems 1 and 2 take m a power of four with m <= w: the largest such m
 * within mmax, whatever the width (above cap when t is too long). */
static uint32_t tile_width(const clperm_ctx *ctx, uint64_t t, uint32_t mmax, clperm_tile_sort algorithm) {
    uint32_t cap = width_cap(ctx), w = 1;
    if (algorithm == CLPERM_TILE_SORT_AS_WIDE) {
        uint64_t m = 1;
        while (m * 4 <= mmax && m * 4 * m * 4 <= t) m *= 4;
        return (uint32_t)(t / m);
    }
    int as = algorithm == CLPERM_TILE_SORT_AS;
    uint64_t aspect = ctx->params[CLPERM_PARAM_SORT_WIDTH] ? 1 : (uint64_t)ctx->tuning.sort_aspect;
    while (w * 2 <= cap && (uint64_t)w * 2 * w * 2 * (as ? w * 2 : aspect) <= t) w *= 2;
    while (!as && w * 2 <= cap && t / w > mmax) w *= 2;
    return w;
}

static int tile_fits(const clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t t, uint32_t w) {
    return w <= width_cap(ctx) && t / w <= m_max(type, with_values) &&
           tile_local_bytes(type, with_values, w, (uint32_t)(t / w)) <= ctx->profile.local_mem_bytes;
}

/* The longest tile (a power of two) that fits. A segment takes the shortest tile that fits and
 * holds it: for Theorems 1 and 2 (m a power of four, m <= w) a tile may need more width than the
 * device has where a longer one does not (128 keys need 32 x 4 where 256 fit 16 x 16), and such
 * segments are padded to the longer tile. */
static uint64_t segment_max(const clperm_ctx *ctx, clperm_key_type type, int with_values,
                            clperm_tile_sort algorithm) {
    uint32_t mmax = m_max(type, with_values);
    uint64_t best = 1;
    for (uint64_t t = 1; t <= (uint64_t)width_cap(ctx) * mmax; t *= 2)
        if (tile_fits(ctx, type, with_values, t, tile_width(ctx, t, mmax, algorithm))) best = t;
    return best;
}

/* The tiles per work-group: CLPERM_PARAM_SORT_TILES, else enough tiles for 32 work-items, within
 * the work-group size and the tiles that fit local memory. */
static void tiles_per_group(const clperm_ctx *ctx, clperm_tile_shape *s) {
    s->tiles_per_cu = (uint32_t)(ctx->profile.local_mem_bytes / s->local_bytes);
    uint32_t g = (uint32_t)ctx->params[CLPERM_PARAM_SORT_TILES];
    if (!g) g = s->w < 32 ? 32 / s->w : 1;
    while (g > 1 && ((size_t)g * s->w > ctx->profile.max_work_group_size || g > s->tiles_per_cu)) g /= 2;
    s->tiles_per_group = g;
}

/* Local memory of a counting partition's tile: two copies of keys and labels, and 2^bits + 1
 * counters per row. */
static uint64_t counting_bytes(clperm_key_type type, unsigned digit_bits, uint64_t t, uint32_t w) {
    return 2 * t * (clperm_key_size(type) + 4) + ((UINT64_C(1) << digit_bits) + 1) * w * 4;
}

/* The counting partition's tile of t keys (a power of two): Corollary 1's w = 2^bits (at least 2)
 * rows of m >= w * w keys, one super-row (returns w); else Theorem 1's square tile, w = m = s * s
 * >= 2^bits, super-rows of s rows (returns s); else 0. */
static uint32_t counting_shape(const clperm_ctx *ctx, clperm_key_type type, unsigned digit_bits, uint64_t t,
                               uint32_t *w_out) {
    uint32_t w = 2;
    while (w < (1u << digit_bits)) w *= 2;
    if (t >= (uint64_t)w * w * w && t / w <= 65536 && w <= width_cap(ctx) &&
        counting_bytes(type, digit_bits, t, w) <= ctx->profile.local_mem_bytes) {
        *w_out = w;
        return w;
    }
    for (uint32_t s = 2; s <= 16; s *= 2)
        if ((uint64_t)s * s * s * s == t && s * s >= (1u << digit_bits) && s * s <= width_cap(ctx) &&
            counting_bytes(type, digit_bits, t, s * s) <= ctx->profile.local_mem_bytes) {
            *w_out = s * s;
            return s;
        }
    return 0;
}

/* The counting partition: the shortest tile that holds the segment (Corollary 1's where both
 * do). */
static clperm_status plan_counting(const clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                   int trace, unsigned digit_shift, unsigned digit_bits, sort_plan *p) {
    CLPERM_RETURN_IF(digit_bits == 0 || with_values || segment == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    uint64_t t = 1;
    uint32_t w = 0, super;
    while (t < segment) t *= 2;
    while (!(super = counting_shape(ctx, type, digit_bits, t, &w))) {
        CLPERM_RETURN_IF(t >= (UINT64_C(1) << 24), CLPERM_ERROR_INVALID_ARGUMENT);
        t *= 2;
    }
    clperm_tile_shape *s = &p->shape;
    s->w = w;
    s->m = (uint32_t)(t / w);
    s->local_bytes = counting_bytes(type, digit_bits, t, w);
    tiles_per_group(ctx, s);
    p->kernel = "clperm_partition_tile_counting";
    snprintf(p->options, sizeof p->options,
             "-DCLPERM_TS_W=%u -DCLPERM_TS_M=%u -DCLPERM_TS_TILES=%u -DCLPERM_TS_KEY_KIND=%d -DCLPERM_TS_VALUES=0 "
             "-DCLPERM_TS_TRACE=%d -DCLPERM_TS_DIGIT_BITS=%u -DCLPERM_TS_DIGIT_SHIFT=%u -DCLPERM_TS_COUNTING=%u",
             s->w, s->m, s->tiles_per_group, (int)type, trace, digit_bits, digit_shift, super);
    /* No register networks: the kernel sorts nothing in registers. */
    snprintf(p->networks, sizeof p->networks,
             "#define CLPERM_TS_NET_RUNS\n#define CLPERM_TS_NET_MERGE\n#define CLPERM_TS_NET_W\n");
    return CLPERM_SUCCESS;
}

/* with_values: 1 when the tile keeps positions (values, or a partition of digit_bits > 0). */
static clperm_status plan_sort(const clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                               clperm_tile_sort algorithm, int trace, unsigned digit_shift, unsigned digit_bits,
                               sort_plan *p) {
    CLPERM_RETURN_IF(clperm_key_size(type) == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(digit_bits > 8 || digit_shift + digit_bits > 8 * clperm_key_size(type),
                     CLPERM_ERROR_INVALID_ARGUMENT);
    int positions = with_values || digit_bits;
    if (algorithm == CLPERM_TILE_PARTITION_COUNTING) return plan_counting(ctx, type, with_values, segment, trace,
                                                                          digit_shift, digit_bits, p);
    if (algorithm == CLPERM_TILE_SORT_AUTO) algorithm = (clperm_tile_sort)ctx->tuning.sort_auto;
    switch (algorithm) {
    case CLPERM_TILE_SORT_SHEAR: p->kernel = "clperm_sort_tile_shear"; break;
    case CLPERM_TILE_SORT_BITONIC: p->kernel = "clperm_sort_tile_bitonic"; break;
    case CLPERM_TILE_SORT_BITONIC_PADDED: p->kernel = "clperm_sort_tile_bitonic_padded"; break;
    case CLPERM_TILE_SORT_AS: p->kernel = "clperm_sort_tile_as"; break;
    case CLPERM_TILE_SORT_AS_WIDE: p->kernel = "clperm_sort_tile_as_wide"; break;
    default: return CLPERM_ERROR_INVALID_ARGUMENT;
    }
    CLPERM_RETURN_IF(segment == 0 || segment > segment_max(ctx, type, positions, algorithm),
                     CLPERM_ERROR_INVALID_ARGUMENT);
    uint64_t t = 1;
    while (t < segment) t *= 2;
    uint32_t w = tile_width(ctx, t, m_max(type, positions), algorithm);
    while (!tile_fits(ctx, type, positions, t, w)) w = tile_width(ctx, t *= 2, m_max(type, positions), algorithm);
    clperm_tile_shape *s = &p->shape;
    s->w = w;
    s->m = (uint32_t)(t / w);
    s->local_bytes = tile_local_bytes(type, positions, s->w, s->m);
    tiles_per_group(ctx, s);
    /* Rows the Afshani-Sitchinava sorts gather hold sorted runs: of m / w keys in Lemma 1, of
     * sqrt(m) keys in the super-rows of sqrt(m) rows that Theorem 1 sorts by Lemma 1. */
    uint32_t run = s->m, sq = 1;
    while (sq * sq < s->m) sq *= 2;
    if (algorithm == CLPERM_TILE_SORT_AS) run = s->m / s->w;
    if (algorithm == CLPERM_TILE_SORT_AS_WIDE) run = sq;
    snprintf(p->options, sizeof p->options,
             "-DCLPERM_TS_W=%u -DCLPERM_TS_M=%u -DCLPERM_TS_TILES=%u -DCLPERM_TS_KEY_KIND=%d -DCLPERM_TS_VALUES=%d "
             "-DCLPERM_TS_TRACE=%d -DCLPERM_TS_DIGIT_BITS=%u -DCLPERM_TS_DIGIT_SHIFT=%u -DCLPERM_TS_S=%u "
             "-DCLPERM_TS_RUN=%u",
             s->w, s->m, s->tiles_per_group, (int)type, with_values != 0, trace, digit_bits, digit_shift,
             algorithm == CLPERM_TILE_SORT_AS_WIDE ? sq : 0, run);
    append_networks(p, s->w, s->m, run);
    return CLPERM_SUCCESS;
}

static clperm_status sort_kernel(clperm_ctx *ctx, const sort_plan *p, cl_kernel *out) {
    /* The networks are a function of the shape and the run length, which the options name: the
     * memory cache's key (name and options) still tells programs apart. */
    const char *texts[2] = {p->networks, clperm__cl_tile_tile_sort_cl};
    size_t lengths[2] = {strlen(p->networks), clperm__cl_tile_tile_sort_cl_size};
    clperm__source src = {"tile_sort", 2, texts, lengths};
    return clperm__kernel_get(ctx, &src, p->options, p->kernel, out);
}

#define ARG(k, i, v) err = err != CL_SUCCESS ? err : clSetKernelArg(k, i, sizeof(v), &(v))

/* Enqueues the sort of the segments of keys (and values, or NULL) with the plan's kernel; with a
 * trace buffer, the trace build's extra arguments. */
static clperm_status run_sort(clperm_ctx *ctx, const sort_plan *p, cl_mem keys, cl_mem values, uint64_t n,
                              uint64_t segment, cl_mem trace, cl_uint trace_cap, cl_uint num_events,
                              const cl_event *events, cl_event *event) {
    cl_kernel k;
    CLPERM_TRY(sort_kernel(ctx, p, &k));
    uint64_t groups = ((n + segment - 1) / segment + p->shape.tiles_per_group - 1) / p->shape.tiles_per_group;
    size_t local = (size_t)p->shape.w * p->shape.tiles_per_group;
    CLPERM_RETURN_IF(groups > SIZE_MAX / local, CLPERM_ERROR_SIZE_OVERFLOW);
    cl_int err = CL_SUCCESS;
    cl_mem v = values ? values : keys;
    cl_ulong nn = n, seg = segment;
    ARG(k, 0, keys);
    ARG(k, 1, v);
    ARG(k, 2, nn);
    ARG(k, 3, seg);
    if (trace) {
        ARG(k, 4, trace);
        ARG(k, 5, trace_cap);
    }
    CLPERM_TRY(err);
    size_t global = (size_t)groups * local;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, num_events, events, event);
}

clperm_status clperm_sort_segment_max(clperm_ctx *ctx, clperm_key_type type, int with_values,
                                      clperm_tile_sort algorithm, uint64_t *out) {
    CLPERM_RETURN_IF(!out || (unsigned)algorithm > CLPERM_TILE_SORT_AS_WIDE ||
                         algorithm == CLPERM_TILE_PARTITION_COUNTING,
                     CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(clperm_key_size(type) == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    *out = segment_max(ctx, type, with_values, algorithm);
    clperm__ctx_leave(ctx);
    return CLPERM_SUCCESS;
}

clperm_status clperm_partition_segment_max(clperm_ctx *ctx, clperm_key_type type, unsigned bits,
                                           clperm_tile_sort algorithm, uint64_t *out) {
    CLPERM_RETURN_IF(!out || bits == 0 || bits > 8 || (unsigned)algorithm > CLPERM_TILE_SORT_AS_WIDE,
                     CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(clperm_key_size(type) == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = CLPERM_SUCCESS;
    if (algorithm != CLPERM_TILE_PARTITION_COUNTING) {
        *out = segment_max(ctx, type, 1, algorithm);
    } else {
        /* The largest power of two that plans; none when the smallest tile does not fit. */
        sort_plan p;
        uint64_t best = 0;
        for (uint64_t t = 1; t <= (UINT64_C(1) << 24) && plan_counting(ctx, type, 0, t, 0, 0, bits, &p) == CLPERM_SUCCESS;
             t *= 2)
            best = t;
        if (best) *out = best;
        else st = CLPERM_ERROR_INVALID_ARGUMENT;
    }
    clperm__ctx_leave(ctx);
    return st;
}

clperm_status clperm_sort_tile_shape(clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                     clperm_tile_sort algorithm, clperm_tile_shape *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    sort_plan p;
    clperm_status st = plan_sort(ctx, type, with_values, segment, algorithm, 0, 0, 0, &p);
    if (st == CLPERM_SUCCESS) *out = p.shape;
    clperm__ctx_leave(ctx);
    return st;
}

static clperm_status sort_checked(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                  uint64_t segment, clperm_tile_sort algorithm, unsigned shift, unsigned bits,
                                  cl_uint num_events, const cl_event *events, cl_event *event) {
    sort_plan p;
    CLPERM_RETURN_IF(bits == 0 && shift != 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(plan_sort(ctx, type, values != NULL, segment, algorithm, 0, shift, bits, &p));
    CLPERM_TRY(clperm__check_events(num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, keys, n, clperm_key_size(type), 1));
    if (values) {
        CLPERM_RETURN_IF(values == keys, CLPERM_ERROR_INVALID_ARGUMENT);
        CLPERM_TRY(clperm__check_overlap(keys, n * clperm_key_size(type), values, n * 4, 0));
        CLPERM_TRY(clperm__check_buffer(ctx, values, n, 4, 1));
    }
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (n == 0) return event ? clEnqueueMarkerWithWaitList(ctx->queue, num_events, events, event) : CLPERM_SUCCESS;
    return run_sort(ctx, &p, keys, values, n, segment, NULL, 0, num_events, events, event);
}

clperm_status clperm_sort_segments(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                   uint64_t segment, clperm_tile_sort algorithm, cl_uint num_events,
                                   const cl_event *events, cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = sort_checked(ctx, type, keys, values, n, segment, algorithm, 0, 0, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

clperm_status clperm_partition_segments(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                        uint64_t segment, unsigned shift, unsigned bits, clperm_tile_sort algorithm,
                                        cl_uint num_events, const cl_event *events, cl_event *event) {
    CLPERM_RETURN_IF(bits == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st =
        sort_checked(ctx, type, keys, values, n, segment, algorithm, shift, bits, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

clperm_status clperm__tile_partition(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                     uint64_t segment, unsigned shift, unsigned bits, cl_uint num_events,
                                     const cl_event *events, cl_event *event) {
    return sort_checked(ctx, type, keys, values, n, segment, CLPERM_TILE_SORT_AUTO, shift, bits, num_events, events,
                        event);
}

clperm_status clperm__tile_sort(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                uint64_t segment, cl_uint num_events, const cl_event *events, cl_event *event) {
    return sort_checked(ctx, type, keys, values, n, segment, CLPERM_TILE_SORT_AUTO, 0, 0, num_events, events, event);
}

uint64_t clperm__tile_sort_max(const clperm_ctx *ctx, clperm_key_type type, int with_values) {
    return segment_max(ctx, type, with_values, (clperm_tile_sort)ctx->tuning.sort_auto);
}

clperm_status clperm__tile_sort_list(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values,
                                     size_t value_bytes, cl_mem list, uint64_t first, uint64_t count, uint64_t segment,
                                     int descending) {
    sort_plan p;
    cl_kernel k;
    CLPERM_TRY(plan_sort(ctx, type, value_bytes != 0, segment, CLPERM_TILE_SORT_AUTO, 0, 0, 0, &p));
    clperm__appendf(p.options, sizeof p.options, " -DCLPERM_TS_LIST=1 -DCLPERM_TS_FLIP=%d -DCLPERM_TS_VALUE64=%d",
                    descending != 0, value_bytes == 8);
    CLPERM_TRY(sort_kernel(ctx, &p, &k));
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

uint64_t clperm__tile_partition_max(const clperm_ctx *ctx, clperm_key_type type) {
    return segment_max(ctx, type, 1, (clperm_tile_sort)ctx->tuning.sort_auto);
}

/* ---- the bank-conflict check ---- */

/* Counts, for every step of every tile, the distinct addresses each bank saw. rec is the trace:
 * per work-item (tile-major) cap + 1 words, the step count first. */
static clperm_status count_conflicts(const cl_uint *rec, uint64_t tiles, uint32_t w, cl_uint cap,
                                     clperm_conflict_report *out) {
    cl_uint seen[64][64];
    cl_uint nseen[64];
    for (uint64_t t = 0; t < tiles; t++) {
        const cl_uint *tile = rec + t * w * (cap + (size_t)1);
        cl_uint steps = 0;
        for (uint32_t l = 0; l < w; l++) {
            cl_uint s = tile[l * (cap + (size_t)1)];
            CLPERM_RETURN_IF(s > cap, CLPERM_ERROR_SIZE_OVERFLOW);
            if (s > steps) steps = s;
        }
        out->steps += steps;
        for (cl_uint s = 0; s < steps; s++) {
            memset(nseen, 0, sizeof nseen);
            for (uint32_t l = 0; l < w; l++) {
                const cl_uint *lane = tile + l * (cap + (size_t)1);
                if (s >= lane[0] || lane[1 + s] == 0xFFFFFFFFu) continue;
                cl_uint a = lane[1 + s], b = a % w, i = 0;
                out->accesses++;
                while (i < nseen[b] && seen[b][i] != a) i++;
                if (i == nseen[b]) seen[b][nseen[b]++] = a;
            }
            for (uint32_t b = 0; b < w; b++) {
                if (nseen[b] > 1) out->conflicts += nseen[b] - 1;
                if (nseen[b] > out->max_ways) out->max_ways = nseen[b];
            }
        }
    }
    return CLPERM_SUCCESS;
}

clperm_status clperm__conflicts_count(const cl_uint *rec, uint64_t groups, uint32_t w, cl_uint cap,
                                      clperm_conflict_report *out) {
    CLPERM_RETURN_IF(w == 0 || w > 64, CLPERM_ERROR_INVALID_ARGUMENT);
    return count_conflicts(rec, groups, w, cap, out);
}

/* Reads the trace of `tiles` tiles of w work-items into rec and counts its conflicts into *out
 * (zeroed first). */
static clperm_status read_trace(clperm_ctx *ctx, cl_mem trace, cl_uint *rec, uint64_t tiles, uint32_t w,
                                cl_uint cap, clperm_conflict_report *out) {
    size_t bytes = (size_t)(tiles * w * (cap + (uint64_t)1)) * 4;
    CLPERM_TRY(clEnqueueReadBuffer(ctx->queue, trace, CL_TRUE, 0, bytes, rec, 0, NULL, NULL));
    memset(out, 0, sizeof *out);
    out->tiles = tiles;
    return count_conflicts(rec, tiles, w, cap, out);
}

static clperm_status conflicts_checked(clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                       clperm_tile_sort algorithm, unsigned shift, unsigned bits, const void *keys,
                                       uint64_t n, clperm_conflict_report *out) {
    sort_plan p;
    CLPERM_RETURN_IF(bits == 0 && shift != 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(plan_sort(ctx, type, with_values, segment, algorithm, 1, shift, bits, &p));
    CLPERM_RETURN_IF(n == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    size_t ks = clperm_key_size(type);
    uint64_t g = p.shape.tiles_per_group, tiles = ((n + segment - 1) / segment + g - 1) / g * g;
    uint32_t lg = 0;
    while ((UINT64_C(1) << lg) < (uint64_t)p.shape.w * p.shape.m) lg++;
    /* Steps per work-item, keys and positions: at most 2m per pass, (lg+1)^2 passes (shear), or
     * 21 passes and three bitonic column sorts of lg(lg+1)/2 passes each (Theorem 2). */
    uint64_t cap = 2 * (4 * (uint64_t)p.shape.m + 4 * (uint64_t)p.shape.m * (lg + 1) * (lg + 1) +
                        2 * (uint64_t)p.shape.m * (21 + 3 * lg * (lg + 1) / 2));
    uint64_t words = tiles * p.shape.w * (cap + 1);
    CLPERM_RETURN_IF(n > SIZE_MAX / ks || words > SIZE_MAX / 4 || cap >= UINT32_MAX, CLPERM_ERROR_SIZE_OVERFLOW);
    clperm_status st;
    cl_int err = CL_SUCCESS;
    cl_mem dk = NULL, dv = NULL, dt = NULL;
    cl_uint *rec = malloc((size_t)words * 4);
    /* Zeros for the keys when none are given, and for the values (written from the host: Oclgrind
     * takes memory set by clEnqueueFillBuffer for uninitialised). */
    void *zeros = calloc((size_t)n, ks);
    CLPERM_CHECK(rec && zeros ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    dk = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (size_t)n * ks,
                        (void *)(keys ? keys : zeros), &err);
    CLPERM_CHECK(err);
    if (with_values) {
        dv = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (size_t)n * 4, zeros, &err);
        CLPERM_CHECK(err);
    }
    dt = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)words * 4, NULL, &err);
    CLPERM_CHECK(err);
    CLPERM_CHECK(run_sort(ctx, &p, dk, dv, n, segment, dt, (cl_uint)cap, 0, NULL, NULL));
    CLPERM_CHECK(read_trace(ctx, dt, rec, tiles, p.shape.w, (cl_uint)cap, out));
    out->shape = p.shape;
cleanup:
    if (st != CLPERM_SUCCESS) clFinish(ctx->queue);
    if (dk) clReleaseMemObject(dk);
    if (dv) clReleaseMemObject(dv);
    if (dt) clReleaseMemObject(dt);
    free(rec);
    free(zeros);
    return st;
}

clperm_status clperm_sort_conflicts(clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                    clperm_tile_sort algorithm, const void *keys, uint64_t n,
                                    clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = conflicts_checked(ctx, type, with_values, segment, algorithm, 0, 0, keys, n, out);
    clperm__ctx_leave(ctx);
    return st;
}

clperm_status clperm_partition_conflicts(clperm_ctx *ctx, clperm_key_type type, uint64_t segment, unsigned shift,
                                         unsigned bits, clperm_tile_sort algorithm, const void *keys, uint64_t n,
                                         clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!out || bits == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = conflicts_checked(ctx, type, 0, segment, algorithm, shift, bits, keys, n, out);
    clperm__ctx_leave(ctx);
    return st;
}

/* ---- batched transposes ---- */

/* Matrices of rows x cols items, one per work-group of w work-items, in local memory as a
 * padded rp x cp tile (both multiples of w) in the diagonal arrangement. */
static clperm_status plan_transpose(const clperm_ctx *ctx, clperm_type type, uint32_t rows, uint32_t cols, int trace,
                                    sort_plan *p) {
    size_t es = clperm_type_size(type);
    CLPERM_RETURN_IF(es == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(rows == 0 || cols == 0 || rows > 65536 || cols > 65536, CLPERM_ERROR_INVALID_ARGUMENT);
    uint32_t w = width_cap(ctx);
    uint64_t rp = (rows + (uint64_t)w - 1) / w * w, cp = (cols + (uint64_t)w - 1) / w * w;
    CLPERM_RETURN_IF(rp * cp * es > ctx->profile.local_mem_bytes, CLPERM_ERROR_INVALID_ARGUMENT);
    memset(&p->shape, 0, sizeof p->shape);
    p->shape.w = w;
    p->shape.m = (uint32_t)(rp * cp / w);
    p->shape.tiles_per_group = 1;
    p->shape.local_bytes = rp * cp * es;
    p->shape.tiles_per_cu = (uint32_t)(ctx->profile.local_mem_bytes / p->shape.local_bytes);
    p->kernel = "clperm_transpose_tiles";
    snprintf(p->options, sizeof p->options,
             "-DCLPERM_TS_W=%u -DCLPERM_TS_M=1 -DCLPERM_TS_TILES=1 -DCLPERM_TS_KEY_KIND=%d -DCLPERM_TS_TRACE=%d "
             "-DCLPERM_TS_TR_ROWS=%u -DCLPERM_TS_TR_COLS=%u",
             w, type == CLPERM_TYPE_U64 ? 4 : 1, trace, rows, cols);
    append_networks(p, w, 1, 1);
    return CLPERM_SUCCESS;
}

static clperm_status run_transpose(clperm_ctx *ctx, const sort_plan *p, cl_mem src, cl_mem dst, uint64_t count,
                                   cl_mem trace, cl_uint trace_cap, cl_uint num_events, const cl_event *events,
                                   cl_event *event) {
    cl_kernel k;
    CLPERM_TRY(sort_kernel(ctx, p, &k));
    CLPERM_RETURN_IF(count > SIZE_MAX / p->shape.w, CLPERM_ERROR_SIZE_OVERFLOW);
    cl_int err = CL_SUCCESS;
    cl_ulong cnt = count;
    ARG(k, 0, src);
    ARG(k, 1, dst);
    ARG(k, 2, cnt);
    if (trace) {
        ARG(k, 3, trace);
        ARG(k, 4, trace_cap);
    }
    CLPERM_TRY(err);
    size_t local = p->shape.w, global = (size_t)count * local;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, num_events, events, event);
}

static clperm_status transpose_checked(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst, uint64_t count,
                                       uint32_t rows, uint32_t cols, cl_uint num_events, const cl_event *events,
                                       cl_event *event) {
    sort_plan p;
    CLPERM_TRY(plan_transpose(ctx, type, rows, cols, 0, &p));
    CLPERM_TRY(clperm__check_events(num_events, events));
    uint64_t items = (uint64_t)rows * cols;
    CLPERM_RETURN_IF(count > UINT64_MAX / items, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(clperm__check_buffer(ctx, src, count * items, clperm_type_size(type), 0));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, count * items, clperm_type_size(type), 1));
    CLPERM_RETURN_IF(src == dst, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__check_overlap(src, count * items * clperm_type_size(type), dst,
                                     count * items * clperm_type_size(type), 0));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (count == 0) return event ? clEnqueueMarkerWithWaitList(ctx->queue, num_events, events, event) : CLPERM_SUCCESS;
    return run_transpose(ctx, &p, src, dst, count, NULL, 0, num_events, events, event);
}

clperm_status clperm_transpose_tiles(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst, uint64_t count,
                                     uint32_t rows, uint32_t cols, cl_uint num_events, const cl_event *events,
                                     cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = transpose_checked(ctx, type, src, dst, count, rows, cols, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

static clperm_status transpose_conflicts_checked(clperm_ctx *ctx, clperm_type type, uint32_t rows, uint32_t cols,
                                                 clperm_conflict_report *out) {
    sort_plan p;
    CLPERM_TRY(plan_transpose(ctx, type, rows, cols, 1, &p));
    const uint64_t tiles = 2;
    size_t bytes = (size_t)rows * cols * clperm_type_size(type) * tiles;
    cl_uint cap = 2 * p.shape.m;
    uint64_t words = tiles * p.shape.w * (cap + (uint64_t)1);
    clperm_status st;
    cl_int err = CL_SUCCESS;
    cl_mem src = NULL, dst = NULL, dt = NULL;
    cl_uint *rec = malloc((size_t)words * 4);
    void *zeros = calloc(bytes, 1);
    CLPERM_CHECK(rec && zeros ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    src = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zeros, &err);
    CLPERM_CHECK(err);
    dst = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CLPERM_CHECK(err);
    dt = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)words * 4, NULL, &err);
    CLPERM_CHECK(err);
    CLPERM_CHECK(run_transpose(ctx, &p, src, dst, tiles, dt, cap, 0, NULL, NULL));
    CLPERM_CHECK(read_trace(ctx, dt, rec, tiles, p.shape.w, cap, out));
    out->shape = p.shape;
cleanup:
    if (st != CLPERM_SUCCESS) clFinish(ctx->queue);
    if (src) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    if (dt) clReleaseMemObject(dt);
    free(rec);
    free(zeros);
    return st;
}

clperm_status clperm_transpose_conflicts(clperm_ctx *ctx, clperm_type type, uint32_t rows, uint32_t cols,
                                         clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = transpose_conflicts_checked(ctx, type, rows, cols, out);
    clperm__ctx_leave(ctx);
    return st;
}
