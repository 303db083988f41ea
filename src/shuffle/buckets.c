/* The bucket shuffle (clperm.h, CLPERM_SHUFFLE_BUCKETS): the label pass through the device-wide
 * sort's kernels (src/sort, label programs), then each bucket's bijection (cl/shuffle/buckets.cl);
 * and the same on the host, the reference the devices are compared with. */
#include <stdlib.h>
#include <string.h>

#include "shuffle_internal.h"
#include "../sort/sort_internal.h"

#define BUCKETS (1u << CLPERM_BUCKET_BITS)

static const char *const bucket_texts[] = {clperm__cl_clperm_bijection_h, clperm__cl_shuffle_buckets_cl};
static const clperm__source bucket_source = {"buckets", 2, bucket_texts, NULL};

/* What the partitioned buffer holds: the items, or their input positions (to gather the items
 * from src, or to write as the permutation). */
enum { PART_ITEMS, PART_INDEX, PART_PERM };

typedef struct bucket_plan {
    int part;
    size_t part_bytes;  /* per element of the partitioned buffer */
    size_t word_bytes;  /* an output item is `words` words of word_bytes */
    uint64_t words;
    uint64_t label_key;
    clperm__radix_job job;
    clperm__radix_plan sort;
    size_t wg;
    unsigned items; /* outputs per work-item of the gather */
    int staged;     /* CLPERM_BKT_STAGED */
    int vec8;       /* CLPERM_BKT_VEC8 */
    char options[384];
} bucket_plan;

static clperm_status plan_buckets(const clperm_ctx *ctx, uint64_t n, size_t elem_size, clperm_type perm_type,
                                  uint64_t seed, const clperm_shuffle_opts *o, bucket_plan *p) {
    memset(p, 0, sizeof *p);
    size_t index_bytes = n > (UINT64_C(1) << 32) ? 8 : 4;
    if (perm_type) {
        p->part = PART_PERM;
        p->part_bytes = p->word_bytes = clperm_type_size(perm_type);
        p->words = 1;
    } else if (elem_size == 4 || elem_size == 8 || elem_size == 16) {
        p->part = PART_ITEMS;
        p->part_bytes = p->word_bytes = elem_size;
        p->words = 1;
    } else {
        p->part = PART_INDEX;
        p->part_bytes = index_bytes;
        p->word_bytes = 16;
        while (elem_size % p->word_bytes) p->word_bytes /= 2;
        p->words = elem_size / p->word_bytes;
    }
    CLPERM_RETURN_IF(n > SIZE_MAX / (p->part_bytes > elem_size ? p->part_bytes : elem_size),
                     CLPERM_ERROR_SIZE_OVERFLOW);
    p->label_key = clperm__bucket_label_key(n, seed);
    unsigned bits = clperm__bucket_bits(n);
    clperm__radix_job *job = &p->job;
    job->key_type = CLPERM_KEY_U32;
    job->value_bytes = p->part_bytes;
    job->n = n;
    job->bits.width = 32;
    /* Bits [8 - b, 8) of the 8-bit labels; without label bits (under 512 items) bit 8, which is 0:
     * one bucket, the pass moves the items as they are. */
    job->bits.lo = bits ? CLPERM_BUCKET_BITS - bits : CLPERM_BUCKET_BITS;
    job->bits.hi = bits ? CLPERM_BUCKET_BITS : CLPERM_BUCKET_BITS + 1;
    job->bits.pos_xor = p->label_key & 0xFFFFFFFFu;
    job->bits.neg_xor = p->label_key >> 32;
    job->argsort = p->part != PART_ITEMS;
    job->labels = 1;
    CLPERM_TRY(clperm__radix_plan_job(ctx, job, 0, 0, &p->sort));
    p->wg = ctx->profile.max_work_group_size < 256 ? ctx->profile.max_work_group_size : 256;
    /* The outputs in flight read within the buckets they fall in: fewer per work-item for larger
     * items, so that those buckets stay in the device's cache. */
    size_t item_bytes = (size_t)(p->word_bytes * p->words);
    p->items = item_bytes <= 4 ? 16 : item_bytes <= 8 ? 8 : 4;
    /* 16-byte items: each work-item's loads before its stores. Smaller items, more outputs per
     * work-item, have enough loads in flight without it and lose by the registers it holds. */
    p->staged = p->part == PART_ITEMS && item_bytes == 16;
    /* CPUs: runs of outputs per work-item, the Feistel on sixteen at a time in vector lanes. */
    p->vec8 = (ctx->profile.device_type & CL_DEVICE_TYPE_CPU) && o->bijection == CLPERM_BIJECTION_FEISTEL;
    if (p->vec8) {
        p->wg = 1;
        p->items = 512;
    }
    clperm__buf b = clperm__buf_on(p->options, sizeof p->options);
    cl_mem starts;
    uint64_t stride;
    int wide;
    clperm__radix_label_starts(ctx, &p->sort, &starts, &stride, &wide);
    clperm__buf_add(&b,
                    "-DCLPERM_BKT_STARTS64=%d -DCLPERM_BKT_WORD=%s -DCLPERM_BKT_WORDS=%llu -DCLPERM_BKT_INDEX=%d "
                    "-DCLPERM_BKT_IDX=%s -DCLPERM_BKT_WG=%zu -DCLPERM_BKT_ITEMS=%d -DCLPERM_BIJECTION_KIND=%d",
                    wide, clperm__shuffle_word_type(p->word_bytes), (unsigned long long)p->words, p->part == PART_INDEX,
                    index_bytes == 8 ? "ulong" : "uint", p->wg, p->items, (int)o->bijection);
    if (o->bijection != CLPERM_BIJECTION_LCG) clperm__buf_add(&b, " -DCLPERM_BIJECTION_ROUNDS=%d", o->rounds);
    if (p->vec8) clperm__buf_add(&b, " -DCLPERM_BKT_VEC8=1");
    else if (p->staged) clperm__buf_add(&b, " -DCLPERM_BKT_STAGED=1");
    /* Buckets below 2^32 items have a Feistel radix of at most 2^16 (clperm_bijection.h). */
    if (o->bijection == CLPERM_BIJECTION_FEISTEL && n <= (UINT64_C(1) << 32))
        clperm__buf_add(&b, " -DCLPERM_FEISTEL_RADIX16=1");
    return clperm__buf_status(&b);
}

clperm_status clperm_ctx_release_scratch(clperm_ctx *ctx) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm__scratch_give_back(ctx, &ctx->bucket_part);
    clperm__ctx_leave(ctx);
    return CLPERM_SUCCESS;
}

static clperm_status run_planned(clperm_ctx *ctx, bucket_plan *p, cl_mem src, cl_mem dst, const clperm_shuffle_opts *o,
                                 cl_uint num_events, const cl_event *events, cl_event *event) {
    uint64_t n = p->job.n;
    cl_kernel kk, kg;
    /* Every kernel first, so that a refusal comes before anything is written. */
    CLPERM_TRY(clperm__radix_prepare(ctx, &p->sort));
    CLPERM_TRY(clperm__kernel_get(ctx, &bucket_source, p->options, "clperm_bucket_keys", &kk));
    CLPERM_TRY(clperm__kernel_get(ctx, &bucket_source, p->options, "clperm_bucket_gather", &kg));
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->bucket_keys, BUCKETS * sizeof(clperm_bijection_key), 0, NULL));
    int inplace = src == dst;
    /* In place, positions to gather from need the items apart from where they land. */
    int apart = inplace && p->part == PART_INDEX;
    size_t item_bytes = (size_t)(p->word_bytes * p->words);
    cl_int err = CL_SUCCESS;
    cl_mem part, out = NULL;
    cl_event done = NULL;
    clperm_status st;
    CLPERM_TRY(clperm__scratch_reserve_exact(ctx, &ctx->bucket_part, (size_t)n * p->part_bytes));
    part = ctx->bucket_part.mem;
    if (apart) out = clperm__buffer_create(ctx, (size_t)n * item_bytes, 0, &err);
    CLPERM_CHECK(err);
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = apart ? n * item_bytes : 0;

    p->job.values = p->part == PART_ITEMS ? src : part; /* positions are written, not read */
    p->job.temp_values = part;
    CLPERM_CHECK(clperm__radix_run(ctx, &p->sort, &p->job, NULL, 0, num_events, events, NULL));

    cl_mem starts;
    cl_ulong stride, nn = n, lk = p->label_key;
    int wide;
    clperm__radix_label_starts(ctx, &p->sort, &starts, &stride, &wide);
    cl_uint kind = (cl_uint)o->bijection, rounds = (cl_uint)o->rounds;
    clperm__args ak = {kk, 0, CL_SUCCESS}, ag = {kg, 0, CL_SUCCESS};
    CLPERM__ARG(ak, starts);
    CLPERM__ARG(ak, stride);
    CLPERM__ARG(ak, nn);
    CLPERM__ARG(ak, lk);
    CLPERM__ARG(ak, kind);
    CLPERM__ARG(ak, rounds);
    CLPERM__ARG(ak, ctx->bucket_keys.mem);
    cl_mem gsrc = p->part == PART_INDEX ? src : part, gdst = apart ? out : dst;
    CLPERM__ARG(ag, gsrc);
    CLPERM__ARG(ag, part);
    CLPERM__ARG(ag, gdst);
    CLPERM__ARG(ag, nn);
    CLPERM__ARG(ag, starts);
    CLPERM__ARG(ag, stride);
    CLPERM__ARG(ag, ctx->bucket_keys.mem);
    CLPERM_CHECK(ak.err);
    CLPERM_CHECK(ag.err);
    size_t kglobal = BUCKETS;
    CLPERM_CHECK(clEnqueueNDRangeKernel(ctx->queue, kk, 1, NULL, &kglobal, NULL, 0, NULL, NULL));
    uint64_t groups = (n + p->wg * p->items - 1) / (p->wg * p->items);
    CLPERM_CHECK(groups > SIZE_MAX / p->wg ? CLPERM_ERROR_SIZE_OVERFLOW : CLPERM_SUCCESS);
    size_t global = (size_t)groups * p->wg;
    CLPERM_CHECK(clEnqueueNDRangeKernel(ctx->queue, kg, 1, NULL, &global, &p->wg, 0, NULL, apart ? NULL : &done));
    if (apart) CLPERM_CHECK(clEnqueueCopyBuffer(ctx->queue, out, dst, 0, 0, (size_t)n * item_bytes, 0, NULL, &done));
    if (event) {
        clRetainEvent(done);
        *event = done;
    }
cleanup:
    /* After a failure the temporaries go once whatever was enqueued has finished. */
    if (st != CLPERM_SUCCESS && !done) clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &done);
    clperm__release_after(ctx, done, out, NULL);
    if (done) clReleaseEvent(done);
    return st;
}

clperm_status clperm__buckets_run(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size,
                                  clperm_type perm_type, uint64_t seed, const clperm_shuffle_opts *opts,
                                  cl_uint num_events, const cl_event *events, cl_event *event) {
    bucket_plan p;
    CLPERM_TRY(plan_buckets(ctx, n, elem_size, perm_type, seed, opts, &p));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (n == 0) return clperm__empty_call(ctx, num_events, events, event);
    return run_planned(ctx, &p, src, dst, opts, num_events, events, event);
}

/* Item i's bucket: the top `bits` of its label. */
static unsigned bucket_of(uint64_t label_key, unsigned bits, uint64_t i) {
    return bits ? clperm__bucket_label(label_key, i) >> (CLPERM_BUCKET_BITS - bits) : 0u;
}

clperm_status clperm__buckets_host(const void *src, void *dst, uint64_t n, size_t elem_size, clperm_type perm_type,
                                   uint64_t seed, const clperm_shuffle_opts *o) {
    if (n == 0) return CLPERM_SUCCESS;
    CLPERM_RETURN_IF(n > SIZE_MAX / sizeof(uint64_t), CLPERM_ERROR_SIZE_OVERFLOW);
    uint64_t *pos = malloc((size_t)n * sizeof *pos);
    CLPERM_RETURN_IF(!pos, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    uint64_t lk = clperm__bucket_label_key(n, seed), start[BUCKETS + 1] = {0};
    clperm_u32 bits = clperm__bucket_bits(n);
    /* The stable partition by label: counts, their exclusive scan, the positions in input order. */
    for (uint64_t i = 0; i < n; i++) start[bucket_of(lk, bits, i) + 1]++;
    for (unsigned d = 0; d < BUCKETS; d++) start[d + 1] += start[d];
    uint64_t next[BUCKETS];
    memcpy(next, start, sizeof next);
    for (uint64_t i = 0; i < n; i++) pos[next[bucket_of(lk, bits, i)]++] = i;
    const unsigned char *s = src;
    unsigned char *d = dst;
    for (unsigned b = 0; b < BUCKETS; b++) {
        uint64_t first = start[b], m = start[b + 1] - first;
        if (m == 0) continue;
        clperm_bijection_key key;
        clperm_bijection_derive(&key, m, clperm__bucket_seed(lk, b), (clperm_u32)o->bijection, (clperm_u32)o->rounds);
        for (uint64_t j = 0; j < m; j++) {
            uint64_t i = pos[first + clperm_bijection_walk(&key, j)], at = first + j;
            if (perm_type == CLPERM_TYPE_U32)
                ((uint32_t *)dst)[at] = (uint32_t)i;
            else if (perm_type == CLPERM_TYPE_U64)
                ((uint64_t *)dst)[at] = i;
            else
                memcpy(d + (size_t)at * elem_size, s + (size_t)i * elem_size, elem_size);
        }
    }
    free(pos);
    return CLPERM_SUCCESS;
}
