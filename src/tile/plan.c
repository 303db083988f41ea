/* Tile plans: the one shape search behind every tile operation, the register networks a plan's
 * program starts with, and the kernel a plan builds. */
#include "tile.h"

/* The widest tile: the tile sorts' width (CLPERM_PARAM_SORT_WIDTH, else the device's banks),
 * halved to the work-group size. */
static uint32_t width_cap(const clperm_ctx *ctx) {
    uint32_t w = (uint32_t)clperm__sort_width(ctx);
    while (w > 1 && w > ctx->profile.max_work_group_size) w /= 2;
    return w;
}

/* Keys per work-item the registers hold in a row sort. */
static uint32_t m_max(const clperm__tile_request *rq) { return rq->key_bytes == 4 && !rq->positions ? 64 : 32; }

/* Local memory of a sort's tile: w * m words and one pad word per w (the padded bitonic's layout),
 * each a key and, with positions, a u32. */
static uint64_t sort_bytes(const clperm__tile_request *rq, uint32_t w, uint32_t m) {
    uint64_t words = (uint64_t)w * m + m;
    return words * (rq->key_bytes + (rq->positions ? 4 : 0));
}

/* Local memory of a counting partition's tile: two copies of keys and labels, and 2^bits + 1
 * counters per row. */
static uint64_t counting_bytes(const clperm__tile_request *rq, uint64_t t, uint32_t w) {
    return 2 * t * (rq->key_bytes + 4) + ((UINT64_C(1) << rq->bits) + 1) * w * 4;
}

/* A sort's width for t keys: the widest w <= cap with w * aspect <= m = t / w (w * w <= m for
 * the Afshani-Sitchinava sort), widened while m exceeds mmax. The device's tuning chooses the
 * aspect unless CLPERM_PARAM_SORT_WIDTH forces the width, then the aspect is 1: as wide as the
 * segment allows. Theorems 1 and 2 take m a power of four with m <= w: the largest such m within
 * mmax, whatever the width (above cap when t is too long). */
static uint32_t sort_width(const clperm_ctx *ctx, const clperm__tile_request *rq, uint32_t cap, uint64_t t) {
    uint32_t mmax = m_max(rq), w = 1;
    if (rq->algorithm == CLPERM_TILE_SORT_AS_WIDE) {
        uint64_t m = 1;
        while (m * 4 <= mmax && m * 4 * m * 4 <= t) m *= 4;
        return (uint32_t)(t / m);
    }
    int as = rq->algorithm == CLPERM_TILE_SORT_AS;
    uint64_t aspect = ctx->params[CLPERM_PARAM_SORT_WIDTH] ? 1 : (uint64_t)ctx->tuning.tile.aspect;
    while (w * 2 <= cap && (uint64_t)w * 2 * w * 2 * (as ? w * 2 : aspect) <= t) w *= 2;
    while (!as && w * 2 <= cap && t / w > mmax) w *= 2;
    return w;
}

/* The tile of t items that the request's rule gives, when it fits the device: 1 with s->w, s->m,
 * s->local_bytes and *super filled, else 0.
 * Sorts: sort_width's w, m = t / w keys within what the registers hold.
 * The counting partition: Corollary 1's w = 2^bits (at least 2) rows of m >= w * w keys, one
 * super-row (super = w); else Theorem 1's square tile, w = m = s * s >= 2^bits, super-rows of s
 * rows (super = s).
 * Transposes: the padded matrix (t items) in a tile of cap rows. */
static int candidate(const clperm_ctx *ctx, const clperm__tile_request *rq, uint32_t cap, uint64_t t,
                     clperm_tile_shape *s, uint32_t *super) {
    uint64_t local = ctx->profile.local_mem_bytes;
    *super = 0;
    switch (rq->kind) {
    case CLPERM__TILE_SORT: {
        uint32_t w = sort_width(ctx, rq, cap, t);
        if (w > cap || t / w > m_max(rq) || sort_bytes(rq, w, (uint32_t)(t / w)) > local) return 0;
        s->w = w;
        break;
    }
    case CLPERM__TILE_COUNTING: {
        uint32_t w = 2;
        while (w < (1u << rq->bits)) w *= 2;
        if (t >= (uint64_t)w * w * w && t / w <= 65536 && w <= cap && counting_bytes(rq, t, w) <= local) {
            s->w = *super = w;
            break;
        }
        for (uint32_t q = 2; q <= 16 && !*super; q *= 2)
            if ((uint64_t)q * q * q * q == t && q * q >= (1u << rq->bits) && q * q <= cap &&
                counting_bytes(rq, t, q * q) <= local) {
                s->w = q * q;
                *super = q;
            }
        if (!*super) return 0;
        break;
    }
    case CLPERM__TILE_TRANSPOSE:
        if (t * rq->key_bytes > local) return 0;
        s->w = cap;
        break;
    default: return 0;
    }
    s->m = (uint32_t)(t / s->w);
    s->local_bytes = rq->kind == CLPERM__TILE_SORT       ? sort_bytes(rq, s->w, s->m)
                     : rq->kind == CLPERM__TILE_COUNTING ? counting_bytes(rq, t, s->w)
                                                         : t * rq->key_bytes;
    return 1;
}

/* The tiles per work-group: one matrix for a transpose; else CLPERM_PARAM_SORT_TILES, or enough
 * tiles for 32 work-items, within the work-group size and the tiles that fit local memory. */
static void tiles_per_group(const clperm_ctx *ctx, const clperm__tile_request *rq, clperm_tile_shape *s) {
    s->tiles_per_cu = (uint32_t)(ctx->profile.local_mem_bytes / s->local_bytes);
    if (rq->kind == CLPERM__TILE_TRANSPOSE) {
        s->tiles_per_group = 1;
        return;
    }
    uint32_t g = (uint32_t)ctx->params[CLPERM_PARAM_SORT_TILES];
    if (!g) g = s->w < 32 ? 32 / s->w : 1;
    while (g > 1 && ((size_t)g * s->w > ctx->profile.max_work_group_size || g > s->tiles_per_cu)) g /= 2;
    s->tiles_per_group = g;
}

/* Segments longer than the shortest tile that fits are padded to it: for Theorems 1 and 2 (m a
 * power of four, m <= w) a tile may need more width than the device has where a longer one does
 * not (128 keys need 32 x 4 where 256 fit 16 x 16), and the counting partition's two families
 * leave gaps of their own. */
clperm_status clperm__tile_search(const clperm_ctx *ctx, const clperm__tile_request *rq, uint64_t items,
                                  clperm__tile_plan *p) {
    uint32_t cap = width_cap(ctx), super = 0;
    uint64_t first = 1, last;
    switch (rq->kind) {
    case CLPERM__TILE_SORT: last = (uint64_t)cap * m_max(rq); break;
    case CLPERM__TILE_COUNTING: last = UINT64_C(1) << 24; break;
    default:
        first = last = ((rq->rows + (uint64_t)cap - 1) / cap * cap) * ((rq->cols + (uint64_t)cap - 1) / cap * cap);
        break;
    }
    clperm_tile_shape s = {0};
    int any = 0;
    for (uint64_t t = first; t <= last; t *= 2) {
        if (t < items || !candidate(ctx, rq, cap, t, &s, &super)) continue;
        p->shape = s;
        p->super = super;
        any = 1;
        if (items) break;
    }
    CLPERM_RETURN_IF(!any, CLPERM_ERROR_INVALID_ARGUMENT);
    tiles_per_group(ctx, rq, &p->shape);
    return CLPERM_SUCCESS;
}

/* Appends "#define name" and the levels of Batcher's odd-even merge sort of n (a power of two)
 * keys that merge sorted runs of pp into runs of 2pp for from <= pp < to, as a list of
 * CLPERM_TS_CX(i, j), i < j: merges at distances pp, pp/2, ... Levels 1 .. n/2 sort; levels from
 * r on merge n/r sorted runs of r. */
static void append_network(clperm__buf *b, const char *name, uint32_t n, uint32_t from, uint32_t to) {
    clperm__buf_add(b, "#define %s", name);
    for (uint32_t pp = from; pp < n && pp < to; pp <<= 1)
        for (uint32_t kk = pp; kk >= 1; kk >>= 1)
            for (uint32_t j = kk % pp; j + kk < n; j += 2 * kk)
                for (uint32_t i = 0; i < kk && i + j + kk < n; i++)
                    if ((i + j) / (2 * pp) == (i + j + kk) / (2 * pp))
                        clperm__buf_add(b, " CLPERM_TS_CX(%u,%u)", i + j, i + j + kk);
    clperm__buf_add(b, "\n");
}

clperm_status clperm__tile_networks(clperm__tile_plan *p, uint32_t w, uint32_t m, uint32_t run) {
    clperm__buf b = clperm__buf_on(p->networks, sizeof p->networks);
    append_network(&b, "CLPERM_TS_NET_RUNS", m, 1, run);
    append_network(&b, "CLPERM_TS_NET_MERGE", m, run, m);
    append_network(&b, "CLPERM_TS_NET_W", w, 1, w);
    return clperm__buf_status(&b);
}

clperm_status clperm__tile_plan_kernel(clperm_ctx *ctx, const clperm__tile_plan *p, cl_kernel *out) {
    /* The networks are a function of the shape and the run length, which the options name: the
     * memory cache's key (program name and options) still tells programs apart. */
    const clperm__tile_program *g = p->program;
    const char *texts[CLPERM__TILE_TEXTS_MAX];
    for (int i = 0; i < g->count; i++) texts[i] = g->texts[i] ? g->texts[i] : p->networks;
    clperm__source src = {g->name, g->count, texts, NULL};
    return clperm__kernel_get(ctx, &src, p->options, g->kernel, out);
}
