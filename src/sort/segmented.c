/* The segmented sort: the segments checked and grouped by length on the device (cl/sort/segments.cl),
 * a small blocking read of what was found, then each group sorted by the kernel that suits it:
 * the tile sorts for short segments (for 4-byte keys the register network,
 * src/tile/registers.c), a work-group (or on CPUs a work-item) per longer segment,
 * the device-wide sort for the longest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_internal.h"

#define SEG_CLASSES 32 /* cl/sort/segments.cl */
#define HDR_WORDS (2 + 2 * SEG_CLASSES + 4)
#define HDR_BYTES (HDR_WORDS * 4)
/* Segments longer than this take the device-wide sort, one after another. */
#define SEG_HUGE (UINT64_C(1) << 20)

typedef struct seg_plan {
    unsigned tile_classes; /* classes sorted by the tile sorts: lengths up to 2^tile_classes */
    uint64_t huge;
    size_t wg;
    char options[64];
} seg_plan;

static clperm_status seg_kernel(clperm_ctx *ctx, const seg_plan *sp, const char *name, cl_kernel *out) {
    static const char *const texts[1] = {clperm__cl_sort_segments_cl};
    size_t lengths[1] = {clperm__cl_sort_segments_cl_size};
    clperm__source src = {"segments", 1, texts, lengths};
    char opts[128];
    clperm__buf o = clperm__buf_on(opts, sizeof opts);
    clperm__buf_add(&o, "-DCLPERM_WG_SIZE=%zu %s", sp->wg, sp->options);
    CLPERM_TRY(clperm__buf_status(&o));
    return clperm__kernel_get(ctx, &src, opts, name, out);
}

static clperm_status enqueue(clperm_ctx *ctx, cl_kernel k, uint64_t items, size_t wg) {
    uint64_t groups = (items + wg - 1) / wg;
    CLPERM_RETURN_IF(groups > SIZE_MAX / wg, CLPERM_ERROR_SIZE_OVERFLOW);
    size_t global = (size_t)groups * wg;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, 0, NULL, NULL);
}

/* Checks and classifies the segments: on return hdr holds the device's findings. Waits for the
 * caller's events. The header has a buffer of its own, apart from the lists, which the host
 * writes whole: after a host write of a buffer's first bytes Oclgrind (21.10) knows of those bytes
 * only, and reads a kernel's writes past them back as uninitialised. */
static clperm_status classify(clperm_ctx *ctx, const seg_plan *sp, const clperm_segments *segs, uint64_t n,
                              cl_uint num_events, const cl_event *events, cl_uint *hdr) {
    cl_kernel k;
    CLPERM_TRY(seg_kernel(ctx, sp, "clperm_seg_classify", &k));
    /* Not blocking: the zeros are static, alive until the write is done. */
    static const cl_uint zeros[HDR_BYTES / 4];
    CLPERM_TRY(clEnqueueWriteBuffer(ctx->queue, ctx->sort_seg_hdr.mem, CL_FALSE, 0, HDR_BYTES, zeros, num_events,
                                    events, NULL));
    clperm__args a = {k, 0, CL_SUCCESS};
    cl_ulong count = segs->count, nn = n, huge = sp->huge;
    cl_uint tc = sp->tile_classes;
    CLPERM__ARG(a, segs->offsets);
    CLPERM__ARG(a, count);
    CLPERM__ARG(a, nn);
    CLPERM__ARG(a, tc);
    CLPERM__ARG(a, huge);
    CLPERM__ARG(a, ctx->sort_seg_hdr.mem);
    CLPERM_TRY(a.err);
    CLPERM_TRY(enqueue(ctx, k, segs->count, sp->wg));
    return clEnqueueReadBuffer(ctx->queue, ctx->sort_seg_hdr.mem, CL_TRUE, 0, HDR_BYTES, hdr, 0, NULL, NULL);
}

static clperm_status fill_lists(clperm_ctx *ctx, const seg_plan *sp, const clperm_segments *segs) {
    cl_kernel k;
    CLPERM_TRY(seg_kernel(ctx, sp, "clperm_seg_fill", &k));
    clperm__args a = {k, 0, CL_SUCCESS};
    cl_ulong count = segs->count, huge = sp->huge;
    cl_uint tc = sp->tile_classes;
    CLPERM__ARG(a, segs->offsets);
    CLPERM__ARG(a, count);
    CLPERM__ARG(a, tc);
    CLPERM__ARG(a, huge);
    CLPERM__ARG(a, ctx->sort_seg_hdr.mem);
    CLPERM__ARG(a, ctx->sort_segs.mem);
    CLPERM_TRY(a.err);
    return enqueue(ctx, k, segs->count, sp->wg);
}

/* A work-group (work-item on CPUs) per listed segment, entries [first, first + count). */
static clperm_status sort_listed(clperm_ctx *ctx, const clperm__radix_job *job, cl_mem list, uint64_t first,
                                 uint64_t count) {
    clperm__radix_job seg = *job;
    seg.segments = 1;
    clperm__radix_plan rp;
    CLPERM_TRY(clperm__radix_plan_job(ctx, &seg, 0, 0, &rp));
    cl_kernel k;
    CLPERM_TRY(clperm__radix_kernel(ctx, &rp, "clperm_radix_segments", &k));
    if (count == 0) return CLPERM_SUCCESS; /* the kernel alone, ahead of the launches */
    clperm__args a = {k, 0, CL_SUCCESS};
    cl_ulong f = first, px = job->bits.pos_xor, nx = job->bits.neg_xor;
    cl_uint lo = job->bits.lo, hi = job->bits.hi;
    CLPERM__ARG(a, job->keys);
    CLPERM__ARG(a, job->temp_keys);
    CLPERM__ARG(a, job->values);
    CLPERM__ARG(a, job->temp_values);
    CLPERM__ARG(a, list);
    CLPERM__ARG(a, f);
    CLPERM__ARG(a, px);
    CLPERM__ARG(a, nx);
    CLPERM__ARG(a, lo);
    CLPERM__ARG(a, hi);
    CLPERM_TRY(a.err);
    CLPERM_RETURN_IF(count > SIZE_MAX / rp.wg, CLPERM_ERROR_SIZE_OVERFLOW);
    size_t global = (size_t)count * rp.wg;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &rp.wg, 0, NULL, NULL);
}

/* The longest segments, each by the device-wide sort: their list entries read back first. */
static clperm_status sort_huge(clperm_ctx *ctx, const clperm__radix_job *job, cl_mem list, uint64_t first,
                               uint64_t count) {
    cl_ulong *e = malloc((size_t)count * 16);
    CLPERM_RETURN_IF(!e, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    clperm_status st = clEnqueueReadBuffer(ctx->queue, list, CL_TRUE, (size_t)first * 16, (size_t)count * 16, e, 0,
                                           NULL, NULL);
    for (uint64_t i = 0; st == CLPERM_SUCCESS && i < count; i++) {
        clperm__radix_job one = *job;
        one.off = e[2 * i];
        one.n = e[2 * i + 1];
        clperm__radix_plan rp;
        st = clperm__radix_plan_job(ctx, &one, 0, 0, &rp);
        if (st == CLPERM_SUCCESS) st = clperm__radix_run(ctx, &rp, &one, NULL, 0, 0, NULL, NULL);
    }
    free(e);
    return st;
}

/* Offset i of segs, read from the device after the events (blocking). */
static clperm_status read_offset(clperm_ctx *ctx, const clperm_segments *segs, uint64_t i, uint64_t *out,
                                 cl_uint num_events, const cl_event *events) {
    size_t es = clperm_type_size(segs->offset_type);
    uint32_t o32 = 0;
    uint64_t o64 = 0;
    cl_int e = clEnqueueReadBuffer(ctx->queue, segs->offsets, CL_TRUE, (size_t)i * es, es,
                                   es == 8 ? (void *)&o64 : (void *)&o32, num_events, events, NULL);
    if (e != CL_SUCCESS) return (clperm_status)e;
    *out = es == 8 ? o64 : o32;
    return CLPERM_SUCCESS;
}

static clperm_status segmented_checked(clperm_ctx *ctx, const clperm_sort_request *req, const clperm_segments *segs,
                                       cl_uint num_events, const cl_event *events, cl_event *event) {
    clperm__radix_job job;
    CLPERM_TRY(clperm__sort_check_request(ctx, req, 1, &job));
    job.segmented = 1;
    CLPERM_RETURN_IF(!CLPERM_KEY_TILES(job.key_type), CLPERM_ERROR_INVALID_TYPE); /* the tile networks' keys */
    CLPERM_RETURN_IF(job.argsort, CLPERM_ERROR_INVALID_ARGUMENT); /* clperm_sort's alone */
    CLPERM_RETURN_IF(!segs, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(segs->offset_type != CLPERM_TYPE_U32 && segs->offset_type != CLPERM_TYPE_U64,
                     CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(segs->count >= UINT64_MAX / 16, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(clperm__check_buffer(ctx, segs->offsets, segs->count + 1, clperm_type_size(segs->offset_type), 0));
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    /* Plans for the kernels that may run, so that a configuration the device cannot run is
     * refused before anything is enqueued. */
    clperm__radix_plan rp;
    CLPERM_TRY(clperm__radix_plan_job(ctx, &job, 0, 0, &rp));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (segs->count == 0) {
        /* No segment, one offset: it may not pass n either. */
        uint64_t first = 0;
        CLPERM_TRY(read_offset(ctx, segs, 0, &first, num_events, events));
        CLPERM_RETURN_IF(first > job.n, CLPERM_ERROR_INVALID_ARGUMENT);
        return clperm__empty_call(ctx, 0, NULL, event);
    }
    seg_plan sp;
    memset(&sp, 0, sizeof sp);
    /* Short segments to the tile sorts by size class (the work-group kernels' devices, whole keys:
     * the tile sorts compare the whole order-preserving form); the rest to the radix kernels. */
    sp.tile_classes = 0;
    int whole = job.bits.lo == 0 && job.bits.hi == job.bits.width;
    uint64_t reg_max = whole ? clperm__reg_sort_max(ctx, job.key_type, job.value_bytes) : 0;
    uint32_t px = (uint32_t)job.bits.pos_xor, nx = (uint32_t)job.bits.neg_xor;
    if (!rp.serial && whole) {
        uint64_t max = clperm__tile_sort_max(ctx, job.key_type, job.value_bytes != 0);
        if (reg_max > max) max = reg_max;
        while (sp.tile_classes < 20 && (UINT64_C(2) << sp.tile_classes) <= max) sp.tile_classes++;
    }
    sp.huge = SEG_HUGE;
    if (ctx->profile.loop_limit && !rp.serial) {
        /* clperm_radix_segments sorts a whole segment in one work-group, its loops running about
         * passes * (2 / wg + 64 / tile) times a key for each work-item. Where loops are capped
         * (clperm_profile.loop_limit), segments past half the cap go to the device-wide sort. */
        double per_key = (double)rp.passes * (2.0 / (double)rp.wg + 64.0 / (double)rp.tile);
        while (sp.huge > 2 && per_key * (double)sp.huge > (double)(ctx->profile.loop_limit / 2)) sp.huge /= 2;
    }
    sp.wg = 256 <= ctx->profile.max_work_group_size ? 256 : ctx->profile.max_work_group_size;
    clperm__buf o = clperm__buf_on(sp.options, sizeof sp.options);
    clperm__buf_add(&o, "-DCLPERM_SEG_OFFSET64=%d", segs->offset_type == CLPERM_TYPE_U64);
    CLPERM_TRY(clperm__buf_status(&o));
    CLPERM_RETURN_IF(segs->count > SIZE_MAX / 16, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->sort_seg_hdr, HDR_BYTES, 0, NULL));
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->sort_segs, (size_t)segs->count * 16, 0, NULL));
    cl_uint hdr[HDR_WORDS];
    CLPERM_TRY(classify(ctx, &sp, segs, job.n, num_events, events, hdr));
    CLPERM_RETURN_IF(hdr[0], CLPERM_ERROR_INVALID_ARGUMENT);
    /* Offsets checked, nothing to sort: no segment holds two keys. */
    if (job.n < 2) return clperm__empty_call(ctx, 0, NULL, event);
    /* Segments all of one length from the start, within a tile: one launch of the register
     * network, else (work-group kernels, the tile sorts' order) of the tile sort. */
    cl_ulong first_offset, length;
    memcpy(&first_offset, &hdr[2 + 2 * SEG_CLASSES], 8);
    memcpy(&length, &hdr[4 + 2 * SEG_CLASSES], 8);
    int uniform = !hdr[1] && first_offset == 0 && length >= 2;
    if (uniform && length <= reg_max) {
        CLPERM_TRY(clperm__reg_sort(ctx, job.keys, job.values, job.value_bytes, segs->count * length, length, px, nx,
                                    NULL, 0, 0));
        ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
        return clperm__empty_call(ctx, 0, NULL, event);
    }
    if (uniform && !rp.serial && !job.bits.descending && whole && job.value_bytes != 8 &&
        length <= clperm__tile_sort_max(ctx, job.key_type, job.value_bytes != 0)) {
        CLPERM_TRY(clperm__tile_sort(ctx, job.key_type, job.keys, job.values, segs->count * length, length, 0, NULL,
                                     NULL));
        ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
        return clperm__empty_call(ctx, 0, NULL, event);
    }
    uint64_t listed = 0, medium = hdr[2 + sp.tile_classes + 1], huge = hdr[2 + sp.tile_classes + 2];
    for (unsigned c = 1; c <= sp.tile_classes + 2; c++) listed += hdr[2 + c];
    if (listed == 0) return clperm__empty_call(ctx, 0, NULL, event);
    cl_mem list = ctx->sort_segs.mem;
    /* Every kernel the classes take, before any of them runs: one the device refuses then leaves
     * the keys as they were. */
    for (unsigned c = 1; c <= sp.tile_classes; c++)
        if (hdr[2 + c] && (UINT64_C(1) << c) <= reg_max)
            CLPERM_TRY(clperm__reg_sort(ctx, job.keys, job.values, job.value_bytes, 0, UINT64_C(1) << c, px, nx, list,
                                            0, 0));
        else if (hdr[2 + c])
            CLPERM_TRY(clperm__tile_sort_list(ctx, job.key_type, job.keys, job.values, job.value_bytes, list, 0, 0,
                                              UINT64_C(1) << c, job.bits.descending));
    if (medium) CLPERM_TRY(sort_listed(ctx, &job, list, 0, 0));
    if (huge) {
        /* A huge segment's plan is the job's, but for the counts' width when the job passes 2^32
         * keys and the segment does not. */
        CLPERM_TRY(clperm__radix_prepare(ctx, &rp));
        if (job.n > UINT32_MAX) {
            clperm__radix_job shorter = job;
            clperm__radix_plan sp32;
            shorter.n = UINT32_MAX;
            CLPERM_TRY(clperm__radix_plan_job(ctx, &shorter, 0, 0, &sp32));
            CLPERM_TRY(clperm__radix_prepare(ctx, &sp32));
        }
    }
    clperm_status st = fill_lists(ctx, &sp, segs);
    uint64_t first = 0;
    for (unsigned c = 1; st == CLPERM_SUCCESS && c <= sp.tile_classes; first += hdr[2 + c], c++)
        if (hdr[2 + c] && (UINT64_C(1) << c) <= reg_max)
            st = clperm__reg_sort(ctx, job.keys, job.values, job.value_bytes, 0, UINT64_C(1) << c, px, nx, list,
                                  first, hdr[2 + c]);
        else if (hdr[2 + c])
            st = clperm__tile_sort_list(ctx, job.key_type, job.keys, job.values, job.value_bytes, list, first,
                                        hdr[2 + c], UINT64_C(1) << c, job.bits.descending);
    cl_mem own_keys = NULL, own_values = NULL;
    if (st == CLPERM_SUCCESS && (medium || huge)) st = clperm__sort_temps(ctx, &job, job.n, &own_keys, &own_values);
    uint64_t temp_bytes = ctx->counters[CLPERM_COUNTER_TEMP_BYTES];
    uint64_t first_medium = listed - medium - huge;
    if (st == CLPERM_SUCCESS && medium) st = sort_listed(ctx, &job, list, first_medium, medium);
    if (st == CLPERM_SUCCESS && huge) st = sort_huge(ctx, &job, list, first_medium + medium, huge);
    if (st == CLPERM_SUCCESS) st = clperm__empty_call(ctx, 0, NULL, event);
    if (own_keys) clReleaseMemObject(own_keys);
    if (own_values) clReleaseMemObject(own_values);
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = temp_bytes;
    return st;
}

clperm_status clperm_sort_segmented(clperm_ctx *ctx, const clperm_sort_request *req, const clperm_segments *segments,
                                    cl_uint num_events, const cl_event *events, cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = segmented_checked(ctx, req, segments, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}
