/* Device shuffles: argument checks, the plan (fusion level, tile shape, item words) and the
 * kernel launches of the three fusion levels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shuffle_internal.h"

/* The shuffle's program: the subgroup layer, waits, the bijections, work-group sums, look-back,
 * then the shuffle kernels. */
static const char *const shuffle_texts[] = {clperm__cl_common_subgroup_h, clperm__cl_common_progress_h,
                                            clperm__cl_clperm_bijection_h, clperm__cl_common_wg_scan_h,
                                            clperm__cl_common_lookback_h, clperm__cl_shuffle_shuffle_cl};
static const clperm__source shuffle_source = {"shuffle", 6, shuffle_texts, NULL};

typedef struct shuffle_plan {
    clperm_bijection_key key;
    int fusion; /* a clperm_shuffle_fusion */
    int serial;
    size_t wg;
    int items;
    uint64_t tile, tiles;
    int wide;            /* the domain needs 64-bit indices and positions */
    size_t word_bytes;   /* an item is `words` words of word_bytes */
    uint64_t words;
    char options[640];
} shuffle_plan;

const char *clperm__shuffle_word_type(size_t bytes) {
    switch (bytes) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    case 8: return "ulong";
    default: return "uint4";
    }
}

/* perm_type: 0 for items of elem_size bytes, else the index type written. */
static clperm_status plan_shuffle(const clperm_ctx *ctx, uint64_t n, size_t elem_size, clperm_type perm_type,
                                  uint64_t seed, const clperm_shuffle_opts *opts, shuffle_plan *p) {
    CLPERM_TRY(clperm_bijection_init(&p->key, n, seed, opts));
    p->fusion = clperm__shuffle_fusion(ctx);
    p->serial = clperm__shuffle_kernel(ctx) == CLPERM_KERNEL_SERIAL;
    p->wg = (size_t)clperm__shuffle_wg_size(ctx);
    p->items = clperm__shuffle_items(ctx);
    p->wide = p->key.bits > 32;
    size_t idx_bytes = p->wide ? 8 : 4;
    /* Keep the staged tile inside local memory, with room for the scratch words. */
    while (!p->serial && p->items > 1 &&
           p->wg * (size_t)p->items * idx_bytes + p->wg * 8 + 4096 > ctx->profile.local_mem_bytes)
        p->items--;
    while (p->serial && p->items > 64 && (size_t)p->items * idx_bytes + 4096 > ctx->profile.local_mem_bytes)
        p->items /= 2;
    p->tile = (uint64_t)p->wg * (uint64_t)p->items;
    p->tiles = (p->key.domain + p->tile - 1) / p->tile;
    if (perm_type) {
        p->word_bytes = clperm_type_size(perm_type);
        p->words = 1;
    } else {
        p->word_bytes = 16;
        while (elem_size % p->word_bytes) p->word_bytes /= 2;
        p->words = elem_size / p->word_bytes;
    }
    CLPERM_RETURN_IF(p->tiles >= UINT32_MAX / 4, CLPERM_ERROR_SIZE_OVERFLOW);
    const char *t = p->wide ? "ulong" : "uint";
    clperm__buf o = clperm__buf_on(p->options, sizeof p->options);
    clperm__buf_add(&o,
                    "-DCLPERM_T=%s -DCLPERM_TS=%s "
                    "-DCLPERM_SHUF_SERIAL=%d -DCLPERM_SHUF_ITEMS=%d -DCLPERM_SHUF_IDX=%s "
                    "-DCLPERM_SHUF_WORD=%s -DCLPERM_SHUF_WORDS=%llu -DCLPERM_SHUF_PERM=%d "
                    "-DCLPERM_BIJECTION_KIND=%u",
                    t, p->wide ? "u64" : "u32", p->serial, p->items, t, clperm__shuffle_word_type(p->word_bytes),
                    (unsigned long long)p->words, perm_type != 0, p->key.kind);
    if (p->key.kind != CLPERM_BIJ_LCG) clperm__buf_add(&o, " -DCLPERM_BIJECTION_ROUNDS=%u", p->key.rounds);
    /* Serial kernels, and any kernel on a CPU, run the Feistel on eight indices at a time in vector
     * lanes. */
    if (p->key.kind == CLPERM_BIJ_FEISTEL && p->items % 8 == 0 &&
        (p->serial || (ctx->profile.device_type & CL_DEVICE_TYPE_CPU)))
        clperm__buf_add(&o, " -DCLPERM_SHUF_VEC8=1");
    if (p->key.kind == CLPERM_BIJ_FEISTEL && p->key.radix <= 0x10000u) clperm__buf_add(&o, " -DCLPERM_FEISTEL_RADIX16=1");
    return clperm__buf_status(&o);
}

static clperm_status kernel(clperm_ctx *ctx, const shuffle_plan *p, const char *name, cl_kernel *out) {
    return clperm__tile_kernel_get(ctx, &shuffle_source, p->options, p->serial, p->wg, name, out);
}

/* The bijection's key: the next CLPERM_BIJECTION_KEY_PARAMS arguments. */
static void arg_key(clperm__args *a, const clperm_bijection_key *key) {
    if (a->err == CL_SUCCESS) a->err = clperm_bijection_set_kernel_args(a->kernel, a->next, key);
    a->next += CLPERM_BIJECTION_KEY_ARGS;
}

static clperm_status enqueue(clperm_ctx *ctx, cl_kernel k, size_t global, const size_t *local,
                             cl_uint num_events, const cl_event *events, cl_event *event) {
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, local, num_events, events, event);
}

/* Bijective2: one kernel, tiles chained by decoupled look-back. */
static clperm_status run_lookback(clperm_ctx *ctx, const shuffle_plan *p, cl_mem src, cl_mem dst,
                                  cl_uint num_events, const cl_event *events, cl_event *event) {
    cl_kernel k;
    CLPERM_TRY(kernel(ctx, p, "clperm_shuffle_lookback", &k));
    clperm__lookback_call lb;
    CLPERM_TRY(clperm__lookback_begin(ctx, p->tiles, &lb));
    clperm__args a = {k, 0, CL_SUCCESS};
    CLPERM__ARG(a, src);
    CLPERM__ARG(a, dst);
    arg_key(&a, &p->key);
    clperm__lookback_args(&a, &lb);
    CLPERM_TRY(a.err);
    CLPERM_TRY(enqueue(ctx, k, (size_t)p->tiles * p->wg, &p->wg, num_events, events, event));
    clperm__lookback_end(ctx, p->tiles);
    return CLPERM_SUCCESS;
}

/* Bijective1: count kept values per range of tiles, scan the counts (the scan family's exclusive
 * scan, in place), shuffle each range. */
static clperm_status run_two_pass(clperm_ctx *ctx, const shuffle_plan *p, cl_mem src, cl_mem dst,
                                  cl_uint num_events, const cl_event *events, cl_event *event) {
    /* A tile: each of the work-item's indices through the bijection's rounds, then the
     * work-group's sums and the items' moves. */
    uint64_t loops = (uint64_t)p->items * (p->key.rounds + 4) + 64 + (uint64_t)p->items * p->words;
    uint64_t max_groups = clperm__range_groups(ctx, p->tiles, loops);
    uint64_t tiles_per_group = (p->tiles + max_groups - 1) / max_groups;
    uint64_t groups = (p->tiles + tiles_per_group - 1) / tiles_per_group;
    clperm_type count_type = p->wide ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32;
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->shuffle_counts, (size_t)groups * clperm_type_size(count_type), 0,
                                       NULL));
    cl_kernel kc, kd;
    CLPERM_TRY(kernel(ctx, p, "clperm_shuffle_count", &kc));
    CLPERM_TRY(kernel(ctx, p, "clperm_shuffle_downsweep", &kd));
    cl_ulong tpg = tiles_per_group;
    cl_mem counts = ctx->shuffle_counts.mem;
    clperm__args ac = {kc, 0, CL_SUCCESS}, ad = {kd, 0, CL_SUCCESS};
    arg_key(&ac, &p->key);
    CLPERM__ARG(ac, tpg);
    CLPERM__ARG(ac, counts);
    CLPERM__ARG(ad, src);
    CLPERM__ARG(ad, dst);
    arg_key(&ad, &p->key);
    CLPERM__ARG(ad, tpg);
    CLPERM__ARG(ad, counts);
    CLPERM_TRY(ac.err);
    CLPERM_TRY(ad.err);
    CLPERM_TRY(enqueue(ctx, kc, (size_t)groups * p->wg, &p->wg, num_events, events, NULL));
    CLPERM_TRY(clperm__scan(ctx, count_type, counts, counts, groups, 0, 0, NULL, NULL));
    return enqueue(ctx, kd, (size_t)groups * p->wg, &p->wg, 0, NULL, event);
}

/* Bijective0: f(i) and keep flags for the whole domain, a device-wide scan of the flags, and a
 * scatter, each its own pass through temporaries of O(domain) words. */
static clperm_status run_separate(clperm_ctx *ctx, const shuffle_plan *p, cl_mem src, cl_mem dst,
                                  cl_uint num_events, const cl_event *events, cl_event *event) {
    clperm_status st;
    size_t word = p->wide ? 8 : 4;
    uint64_t domain = p->key.domain;
    cl_mem idx = NULL, keep = NULL;
    cl_event done = NULL;
    cl_kernel kt, ks;
    CLPERM_TRY(kernel(ctx, p, "clperm_shuffle_transform", &kt));
    CLPERM_TRY(kernel(ctx, p, "clperm_shuffle_scatter", &ks));
    CLPERM_RETURN_IF(domain > SIZE_MAX / word, CLPERM_ERROR_SIZE_OVERFLOW);
    cl_int err = CL_SUCCESS;
    idx = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)domain * word, NULL, &err);
    if (idx) keep = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)domain * word, NULL, &err);
    CLPERM_CHECK(err);
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 2 * (uint64_t)domain * word;
    cl_ulong dom = domain, n = p->key.n;
    clperm__args at = {kt, 0, CL_SUCCESS}, as = {ks, 0, CL_SUCCESS};
    arg_key(&at, &p->key);
    CLPERM__ARG(at, idx);
    CLPERM__ARG(at, keep);
    CLPERM__ARG(as, src);
    CLPERM__ARG(as, dst);
    CLPERM__ARG(as, dom);
    CLPERM__ARG(as, n);
    CLPERM__ARG(as, idx);
    CLPERM__ARG(as, keep);
    CLPERM_CHECK(at.err);
    CLPERM_CHECK(as.err);
    size_t global = (size_t)((domain + p->wg - 1) / p->wg * p->wg);
    CLPERM_CHECK(enqueue(ctx, kt, global, &p->wg, num_events, events, NULL));
    CLPERM_CHECK(clperm__scan(ctx, p->wide ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32, keep, keep, domain, 0, 0, NULL, NULL));
    CLPERM_CHECK(enqueue(ctx, ks, global, &p->wg, 0, NULL, &done));
    if (event) {
        clRetainEvent(done);
        *event = done;
    }
cleanup:
    /* After a failure the temporaries go once whatever was enqueued has finished, through a
     * marker's callback: waiting here could wait forever on events the caller completes later. */
    if (st != CLPERM_SUCCESS && !done) clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &done);
    clperm__release_after(ctx, done, idx, keep);
    if (done) clReleaseEvent(done);
    return st;
}

static clperm_status run_plan(clperm_ctx *ctx, const shuffle_plan *p, cl_mem src, cl_mem dst,
                              cl_uint num_events, const cl_event *events, cl_event *event) {
    switch (p->fusion) {
    case CLPERM_FUSION_SEPARATE: return run_separate(ctx, p, src, dst, num_events, events, event);
    case CLPERM_FUSION_TWO_PASS: return run_two_pass(ctx, p, src, dst, num_events, events, event);
    default: return run_lookback(ctx, p, src, dst, num_events, events, event);
    }
}

static clperm_status shuffle_checked(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size,
                                     uint64_t seed, const clperm_shuffle_opts *opts, cl_uint num_events,
                                     const cl_event *events, cl_event *event) {
    CLPERM_RETURN_IF(elem_size == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, src, n, elem_size, 0));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, n, elem_size, 1));
    CLPERM_RETURN_IF(src == dst, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__check_overlap(src, n * elem_size, dst, n * elem_size, 0));
    clperm_shuffle_opts o;
    CLPERM_TRY(clperm__shuffle_opts_check(opts, &o));
    if (o.algorithm == CLPERM_SHUFFLE_BUCKETS)
        return clperm__buckets_run(ctx, src, dst, n, elem_size, 0, seed, &o, num_events, events, event);
    shuffle_plan p;
    CLPERM_TRY(plan_shuffle(ctx, n, elem_size, 0, seed, opts, &p));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (n == 0) return clperm__empty_call(ctx, num_events, events, event);
    return run_plan(ctx, &p, src, dst, num_events, events, event);
}

clperm_status clperm_shuffle(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size, uint64_t seed,
                             const clperm_shuffle_opts *opts, cl_uint num_events, const cl_event *events,
                             cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = shuffle_checked(ctx, src, dst, n, elem_size, seed, opts, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

static clperm_status inplace_checked(clperm_ctx *ctx, cl_mem buf, uint64_t n, size_t elem_size, uint64_t seed,
                                     const clperm_shuffle_opts *opts, cl_uint num_events, const cl_event *events,
                                     cl_event *event) {
    CLPERM_RETURN_IF(elem_size == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, buf, n, elem_size, 1));
    clperm_shuffle_opts o;
    CLPERM_TRY(clperm__shuffle_opts_check(opts, &o));
    if (o.algorithm == CLPERM_SHUFFLE_BUCKETS)
        return clperm__buckets_run(ctx, buf, buf, n, elem_size, 0, seed, &o, num_events, events, event);
    shuffle_plan p;
    CLPERM_TRY(plan_shuffle(ctx, n, elem_size, 0, seed, opts, &p));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (n == 0) return clperm__empty_call(ctx, num_events, events, event);
    size_t bytes = (size_t)n * elem_size;
    cl_int err;
    cl_mem tmp = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!tmp) return err;
    cl_event done = NULL;
    clperm_status st = run_plan(ctx, &p, buf, tmp, num_events, events, NULL);
    uint64_t temp = ctx->counters[CLPERM_COUNTER_TEMP_BYTES] + bytes;
    if (st == CLPERM_SUCCESS) st = clEnqueueCopyBuffer(ctx->queue, tmp, buf, 0, 0, bytes, 0, NULL, &done);
    if (st == CLPERM_SUCCESS && event) {
        clRetainEvent(done);
        *event = done;
    }
    if (st != CLPERM_SUCCESS && !done) clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &done);
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = temp;
    clperm__release_after(ctx, done, tmp, NULL);
    if (done) clReleaseEvent(done);
    return st;
}

clperm_status clperm_shuffle_inplace(clperm_ctx *ctx, cl_mem buf, uint64_t n, size_t elem_size, uint64_t seed,
                                     const clperm_shuffle_opts *opts, cl_uint num_events, const cl_event *events,
                                     cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = inplace_checked(ctx, buf, n, elem_size, seed, opts, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

static clperm_status permutation_checked(clperm_ctx *ctx, clperm_type type, cl_mem dst, uint64_t n, uint64_t seed,
                                         const clperm_shuffle_opts *opts, cl_uint num_events,
                                         const cl_event *events, cl_event *event) {
    size_t es = clperm_type_size(type);
    CLPERM_RETURN_IF(es == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(type == CLPERM_TYPE_U32 && n > (UINT64_C(1) << 32), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, n, es, 1));
    clperm_shuffle_opts o;
    CLPERM_TRY(clperm__shuffle_opts_check(opts, &o));
    if (o.algorithm == CLPERM_SHUFFLE_BUCKETS)
        return clperm__buckets_run(ctx, dst, dst, n, es, type, seed, &o, num_events, events, event);
    shuffle_plan p;
    CLPERM_TRY(plan_shuffle(ctx, n, es, type, seed, opts, &p));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (n == 0) return clperm__empty_call(ctx, num_events, events, event);
    return run_plan(ctx, &p, dst, dst, num_events, events, event);
}

clperm_status clperm_permutation(clperm_ctx *ctx, clperm_type type, cl_mem dst, uint64_t n, uint64_t seed,
                                 const clperm_shuffle_opts *opts, cl_uint num_events, const cl_event *events,
                                 cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = permutation_checked(ctx, type, dst, n, seed, opts, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}
