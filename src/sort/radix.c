/* The device-wide LSD radix sort: the choice of algorithm, kernels and tile for the device, and
 * the passes (cl/sort/radix.cl, cl/sort/radix_serial.cl). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_internal.h"

/* Look-back words carry a 24-bit epoch (radix.cl). */
#define EPOCH_LIMIT (1u << 24)

/* The work-group kernels' tile for the job's class (sort_tunables.h), unless the parameters set it:
 * work-items no more than the device allows, keys per work-item at most 32; and, on NVIDIA, the
 * class's cap on registers per work-item (0: none). */
static void tile_shape(const clperm_ctx *ctx, size_t ks, size_t vs, size_t *wg, unsigned *items, int *regs) {
    const clperm__sort_tuning *t = &ctx->tuning.sort;
    int w = ks == 8 ? t->wg_size_64 : t->wg_size_32, k = ks == 8 ? t->items_64 : t->items_32;
    int wv = ks == 8 ? t->wg_size_64v : t->wg_size_32v, kv = ks == 8 ? t->items_64v : t->items_32v;
    /* 16-byte values (the bucket shuffle's items) keep no cap, and the votes (below): their
     * programs as measured before the class took a cap and the match words. */
    int r = vs > 8 ? 0 : vs ? (ks == 8 ? t->regs_64v : t->regs_32v) : (ks == 8 ? t->regs_64 : t->regs_32);
    if (vs && wv) w = wv;
    if (vs && kv) k = kv;
    if (ctx->params[CLPERM_PARAM_SORT_WG_SIZE]) w = ctx->params[CLPERM_PARAM_SORT_WG_SIZE];
    if (ctx->params[CLPERM_PARAM_SORT_ITEMS]) k = ctx->params[CLPERM_PARAM_SORT_ITEMS];
    if (ctx->params[CLPERM_PARAM_SORT_REGS]) r = ctx->params[CLPERM_PARAM_SORT_REGS];
    if (r > 0 && r < 16) r = 16; /* ptxas's least cap, as CLPERM_PARAM_SORT_REGS's bound */
    *regs = ctx->profile.vendor == CLPERM_VENDOR_NVIDIA ? r : 0;
    *wg = (size_t)w;
    while (*wg > ctx->profile.max_work_group_size && *wg > 32) *wg >>= 1;
    if (*regs > 0) {
        /* A capped kernel has no required work-group size, so ptxas may use the whole cap: no
         * more than a work-group's share of the registers a block may hold, in ptxas's steps of
         * 8. A block's warps are dealt to the four schedulers of a multiprocessor, each with a
         * quarter of its registers, so the share is of the work-items rounded up to four warps
         * (128): on the H100, 672 work-items failed to launch at caps of 171 and of 96. */
        cl_uint per_block = ctx->profile.registers_per_block ? ctx->profile.registers_per_block : 65536;
        int fit = (int)(per_block / ((*wg + 127) / 128 * 128)) & ~7;
        if (*regs > fit) *regs = fit < 16 ? 16 : fit;
    }
    *items = k > 32 ? 32u : (unsigned)k;
}

/* A local array as compilers may place it, on a 16-byte boundary. */
static size_t local_array(size_t bytes) { return (bytes + 15) / 16 * 16; }
/* What a compiler adds of its own: NVIDIA's pass kernels at subgroups of 8 took 16 bytes more
 * than their arrays. */
#define KERNEL_OWN_LOCAL 16

/* Local memory of the pass kernels (radix.cl's declarations), in bytes: subgroups of `width`,
 * sg_max the layer's bound on their count; label programs keep a tile's labels after the
 * ranking's words where the tile holds whole eights; clperm_radix_segments (segments) keeps its
 * digits' next places where the passes keep their tile number and flag. */
static size_t pass_local_bytes(const clperm__radix_plan *p, size_t ks, size_t vs, size_t width, size_t sg_max,
                               int labels, int segments) {
    size_t r = (size_t)1 << p->digit_bits, tile = p->wg * p->items;
    size_t rank = p->rank == CLPERM_RANK_PRESORTED ? 2 * (tile / p->sub) * r * 4 + tile * 4
                                                   : (p->wg / width) * r * 4 * (p->rank == CLPERM_RANK_ORMASK ? 2 : 1);
    if (labels && tile % 8 == 0) rank += tile;
    size_t xchg = p->joint ? local_array(tile * ks) + tile * vs : tile * (ks > vs ? ks : vs);
    size_t lds = local_array(rank > xchg ? rank : xchg);
    size_t own = segments ? local_array(r * 8) : 2 * local_array(4); /* run[], or tile_sh and moving_sh */
    return lds + 2 * local_array(r * 4) + local_array(sg_max * 4) + own + local_array(r * 8) + local_array(p->wg * 8) +
           KERNEL_OWN_LOCAL;
}

/* The largest power of two that divides t, at most cap. */
static uint64_t pow2_divisor(uint64_t t, uint64_t cap) {
    uint64_t s = 1;
    while (s * 2 <= cap && t % (s * 2) == 0) s *= 2;
    return s;
}

clperm_status clperm__radix_plan_job(const clperm_ctx *ctx, const clperm__radix_job *job, int trace, int allow_presorted,
                                 clperm__radix_plan *p) {
    const clperm__sort_tuning *tune = &ctx->tuning.sort;
    size_t ks = clperm_key_size(job->key_type), vs = job->value_bytes;
    int kparam = ctx->params[CLPERM_PARAM_SORT_KERNEL], aparam = ctx->params[CLPERM_PARAM_SORT_ALGORITHM];
    if (aparam == CLPERM__SORT_COUNTING) aparam = 0; /* jobs the counting sort does not take */
    memset(p, 0, sizeof *p);
    p->trace = trace;
    /* Where a kernel's loops are capped (loop_limit), a serial pass kernel walks its block once or
     * twice and the digits a few times: blocks of at most an eighth of the cap keep it far inside.
     * The segmented sort's serial kernels walk whole segments, so it keeps the work-group kernels
     * there, as every sort does where the cap leaves less than 4096 keys a block. */
    const uint64_t block_cap = (uint64_t)ctx->profile.loop_limit / 8 / 256 * 256;
    int kind = kparam ? kparam : tune->kernel;
    if (kind == CLPERM_KERNEL_SERIAL && ctx->profile.loop_limit && (job->segmented || block_cap < 4096))
        kind = CLPERM_KERNEL_WORK_GROUP; /* (the parameter cannot ask for serial kernels there) */
    p->serial = kind == CLPERM_KERNEL_SERIAL;
    p->algorithm = aparam ? aparam : (!p->serial && clperm__onesweep_runs(&ctx->profile) ? 2 : 1);
    if ((p->algorithm == 2 || trace) && p->serial) {
        /* Onesweep and the trace run work-group kernels. */
        CLPERM_RETURN_IF(kparam == 2, CLPERM_ERROR_UNSUPPORTED);
        p->serial = 0;
    }
    p->digit_bits = ctx->params[CLPERM_PARAM_SORT_DIGIT_BITS] ? (unsigned)ctx->params[CLPERM_PARAM_SORT_DIGIT_BITS]
                                                              : (unsigned)tune->digit_bits;
    /* Labels are drawn from positions: one pass takes them all. */
    if (job->labels) p->digit_bits = CLPERM_BUCKET_BITS;
    p->passes = (job->bits.hi - job->bits.lo + p->digit_bits - 1) / p->digit_bits;
    p->count64 = job->n > UINT32_MAX;
    uint64_t n = job->n ? job->n : 1;
    int param_items = ctx->params[CLPERM_PARAM_SORT_ITEMS];
    if (p->serial) {
        /* About eight blocks per compute unit, in whole 256s of keys, at least 4096 keys. */
        p->wg = 1;
        uint64_t per = (n + 8 * (uint64_t)ctx->profile.compute_units - 1) / (8 * (uint64_t)ctx->profile.compute_units);
        p->tile = param_items ? 256 * (uint64_t)param_items : (per < 4096 ? 4096 : (per + 255) / 256 * 256);
        if (ctx->profile.loop_limit && p->tile > block_cap) {
            CLPERM_RETURN_IF(param_items, CLPERM_ERROR_UNSUPPORTED);
            p->tile = block_cap;
        }
    } else {
        clperm_sg_impl impl;
        cl_uint width;
        tile_shape(ctx, ks, vs, &p->wg, &p->items, &p->regs);
        clperm__sg_choice(ctx, p->wg, &impl, &width);
        CLPERM_RETURN_IF(width == 0 || p->wg % width != 0, CLPERM_ERROR_UNSUPPORTED);
        size_t sg_max = impl == CLPERM_SG_IMPL_KHR ? p->wg : p->wg / width;
        int rparam = ctx->params[CLPERM_PARAM_SORT_RANK];
        p->rank = rparam ? rparam : tune->rank;
        /* The device's tuning is a preference: a rank the device or the job cannot take votes.
         * The tile partitions (rank 3) carry u32 values only, and 32- and 64-bit keys. */
        int tiles_take = vs != 8 && CLPERM_KEY_TILES(job->key_type);
        if (!rparam && ((p->rank == CLPERM_RANK_MATCH && impl != CLPERM_SG_IMPL_PTX) ||
                        (p->rank == CLPERM_RANK_PRESORTED && !tiles_take) ||
                        (p->rank == CLPERM_RANK_ORMASK && (width > 32 || trace))))
            p->rank = CLPERM_RANK_VOTES;
        /* 16-byte values keep the votes: their label pass took 6% longer with the match words,
         * capped or not. */
        if (!rparam && vs > 8 && p->rank == CLPERM_RANK_ORMASK) p->rank = CLPERM_RANK_VOTES;
        CLPERM_RETURN_IF(p->rank == CLPERM_RANK_MATCH && impl != CLPERM_SG_IMPL_PTX, CLPERM_ERROR_UNSUPPORTED);
        CLPERM_RETURN_IF(p->rank == CLPERM_RANK_ORMASK && (width > 32 || trace), CLPERM_ERROR_UNSUPPORTED);
        if (p->rank == CLPERM_RANK_PRESORTED && !allow_presorted) p->rank = CLPERM_RANK_VOTES;
        CLPERM_RETURN_IF(p->rank == CLPERM_RANK_PRESORTED && !tiles_take, CLPERM_ERROR_UNSUPPORTED);
        /* Values beside the keys in the segments kernel alone: on the H200 it sorted segments of
         * 4096 u32 pairs 1.36x faster with them (16384: 1.08x), where the Onesweep passes ran
         * u32 pairs at 0.94x and u64 pairs at 0.77x. */
        p->joint = job->segments && vs && p->rank != CLPERM_RANK_PRESORTED && !trace;
        uint64_t sub_max = p->rank == CLPERM_RANK_PRESORTED ? clperm__tile_partition_max(ctx, job->key_type) : 1;
        unsigned items = p->items;
        for (;; p->items--) {
            if (p->items == 0) {
                /* Narrow subgroups, many counters: where even one key a work-item does not fit,
                 * half the work-items (unless the caller set them). */
                size_t half = p->wg / 2;
                CLPERM_RETURN_IF(ctx->params[CLPERM_PARAM_SORT_WG_SIZE] || half < width || half % width != 0 ||
                                     (impl == CLPERM_SG_IMPL_PTX && half % 32 != 0),
                                 CLPERM_ERROR_UNSUPPORTED);
                p->wg = half;
                p->items = items;
                sg_max = impl == CLPERM_SG_IMPL_KHR ? p->wg : p->wg / width;
            }
            if (p->rank == CLPERM_RANK_PRESORTED) p->sub = pow2_divisor(p->wg * p->items, sub_max);
            p->local_bytes = pass_local_bytes(p, ks, vs, width, sg_max, job->labels, job->segments);
            if (p->local_bytes + 1024 <= ctx->profile.local_mem_bytes) break;
        }
        p->tile = (uint64_t)p->wg * p->items;
    }
    p->tiles = (n + p->tile - 1) / p->tile;
    CLPERM_RETURN_IF(p->tiles >= (UINT64_C(1) << 31), CLPERM_ERROR_SIZE_OVERFLOW);
    /* Onesweep's histogram shows the high digits that do not vary; their passes return at once.
     * The tile partitions (rank 3) reorder each pass's input from the host before it runs, and a
     * trace runs one pass: both run every pass. */
    p->skip = p->algorithm == 2 && !trace && p->rank != CLPERM_RANK_PRESORTED && !job->labels;
    int atom64 = ctx->profile.vendor != CLPERM_VENDOR_NVIDIA && ctx->profile.atomics64;
    /* Argsort's positions: on GPUs in programs of their own (the test would cost the pass kernel
     * registers), elsewhere behind the kernels' run-time flag, sharing the programs. */
    int gpu = (ctx->profile.device_type & CL_DEVICE_TYPE_GPU) != 0;
    clperm__buf o = clperm__buf_on(p->options, sizeof p->options);
    clperm__buf_add(&o,
                    "-DCLPERM_SORT_KEY_BYTES=%zu -DCLPERM_SORT_VALUE_BYTES=%zu -DCLPERM_SORT_BITS=%u -DCLPERM_SORT_ITEMS=%u "
                    "-DCLPERM_SORT_RANK=%d -DCLPERM_SORT_COUNT64=%d -DCLPERM_SORT_ATOM64=%d -DCLPERM_SORT_SUB=%llu "
                    "-DCLPERM_SORT_TRACE=%d -DCLPERM_SORT_UNROLL=%d -DCLPERM_SORT_IOTA=%d -DCLPERM_SORT_JOINT=%d "
                    "-DCLPERM_SORT_INTO=%d",
                    ks, vs, p->digit_bits, p->items, p->rank, p->count64, atom64, (unsigned long long)p->sub,
                    trace, gpu, gpu ? job->argsort : 1, p->joint, job->out_keys && p->algorithm == 2);
    if (job->labels) clperm__buf_add(&o, " -DCLPERM_SORT_LABELS=1");
    /* PoCL's compiler is clang, whose non-temporal stores the serial scatter's lines take, from
     * the size whose pass writes more than the device's cache holds (below, the next pass reads
     * what the cache kept: on PoCL 3.1, 2^22 u32 keys, 16 MB, sorted 1.3x slower through the
     * lines), at most 32 MiB: a virtual machine's CPU may report its host's cache (300 MiB on a
     * 16-core Xeon, where 2^24 u64 pairs, 256 MB, sorted 1.9x faster through the lines). */
    if (p->serial && ctx->profile.vendor == CLPERM_VENDOR_POCL) {
        const cl_ulong cap = (cl_ulong)32 << 20, cache = ctx->profile.cache_bytes;
        clperm__buf_add(&o, " -DCLPERM_SORT_WC_MIN=%llu",
                        (unsigned long long)((cache && cache < cap ? cache : cap) / ((job->labels ? 0 : ks) + vs)));
    }
    /* ptxas takes the cap only where the kernels do not require their work-group size. */
    if (p->regs) clperm__buf_add(&o, " -DCLPERM_NO_REQD_WG=1 -cl-nv-maxrregcount=%d", p->regs);
    CLPERM_TRY(clperm__buf_status(&o));
    return CLPERM_SUCCESS;
}

int clperm__sort_param(const clperm_ctx *ctx, clperm_param param, int *value) {
    switch (param) {
    case CLPERM_PARAM_SORT_ALGORITHM:
    case CLPERM_PARAM_SORT_KERNEL:
    case CLPERM_PARAM_SORT_RANK:
    case CLPERM_PARAM_SORT_DIGIT_BITS:
    case CLPERM_PARAM_SORT_WG_SIZE:
    case CLPERM_PARAM_SORT_ITEMS:
    case CLPERM_PARAM_SORT_REGS: break;
    default: return 0;
    }
    /* As a sort of u32 keys plans them; no keys: the serial kernels' smallest block. */
    clperm__radix_job job = {.key_type = CLPERM_KEY_U32, .bits = {32, 0, 32, 0, 0, 0}};
    clperm__radix_plan p;
    if (clperm__radix_plan_job(ctx, &job, 0, 1, &p) != CLPERM_SUCCESS) {
        *value = ctx->params[param];
        return 1;
    }
    switch (param) {
    case CLPERM_PARAM_SORT_ALGORITHM:
        *value = ctx->params[param] == CLPERM__SORT_COUNTING ? CLPERM__SORT_COUNTING : p.algorithm;
        break;
    case CLPERM_PARAM_SORT_KERNEL: *value = p.serial ? 2 : 1; break;
    case CLPERM_PARAM_SORT_RANK: *value = p.rank; break;
    case CLPERM_PARAM_SORT_DIGIT_BITS: *value = (int)p.digit_bits; break;
    case CLPERM_PARAM_SORT_WG_SIZE: *value = (int)p.wg; break;
    case CLPERM_PARAM_SORT_ITEMS: *value = p.serial ? (int)(p.tile / 256) : (int)p.items; break;
    default: *value = p.regs; break;
    }
    return 1;
}

clperm_status clperm__radix_kernel(clperm_ctx *ctx, const clperm__radix_plan *p, const char *name, cl_kernel *out) {
    if (p->serial) {
        static const char *const texts[3] = {clperm__cl_sort_sort_key_h, clperm__cl_sort_radix_types_h,
                                             clperm__cl_sort_radix_serial_cl};
        size_t lengths[3] = {clperm__cl_sort_sort_key_h_size, clperm__cl_sort_radix_types_h_size,
                             clperm__cl_sort_radix_serial_cl_size};
        clperm__source src = {"radix_serial", 3, texts, lengths};
        return clperm__tile_kernel_get(ctx, &src, p->options, 1, 1, name, out);
    }
    static const char *const texts[5] = {clperm__cl_common_subgroup_h, clperm__cl_common_progress_h,
                                         clperm__cl_sort_sort_key_h, clperm__cl_sort_radix_types_h,
                                         clperm__cl_sort_radix_cl};
    size_t lengths[5] = {clperm__cl_common_subgroup_h_size, clperm__cl_common_progress_h_size,
                         clperm__cl_sort_sort_key_h_size, clperm__cl_sort_radix_types_h_size,
                         clperm__cl_sort_radix_cl_size};
    clperm__source src = {"radix", 5, texts, lengths};
    return clperm__tile_kernel_get(ctx, &src, p->options, 0, p->wg, name, out);
}

/* The wait list of the next command: the caller's events for the first, none after. */
typedef struct wait_list {
    cl_uint num;
    const cl_event *events;
} wait_list;

static clperm_status enqueue(clperm_ctx *ctx, cl_kernel k, uint64_t groups, size_t wg, wait_list *wait,
                             cl_event *event) {
    CLPERM_RETURN_IF(groups > SIZE_MAX / wg, CLPERM_ERROR_SIZE_OVERFLOW);
    size_t global = (size_t)groups * wg;
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, wait->num, wait->events, event);
    wait->num = 0;
    wait->events = NULL;
    return err;
}

/* The reduce-then-scan scatter's first arguments: keys in and out, values in and out, offset, n,
 * masks, shift, bits. */
static void pass_args(clperm__args *a, const clperm__radix_job *job, cl_mem kin, cl_mem kout, cl_mem vin, cl_mem vout,
                      cl_uint shift, cl_uint bits) {
    cl_ulong off = job->off, n = job->n, px = job->bits.pos_xor, nx = job->bits.neg_xor;
    CLPERM__ARG(*a, kin);
    CLPERM__ARG(*a, kout);
    CLPERM__ARG(*a, vin);
    CLPERM__ARG(*a, vout);
    CLPERM__ARG(*a, off);
    CLPERM__ARG(*a, n);
    CLPERM__ARG(*a, px);
    CLPERM__ARG(*a, nx);
    CLPERM__ARG(*a, shift);
    CLPERM__ARG(*a, bits);
}

/* A digit's shift and width in pass `pass`. */
static void pass_digit(const clperm__radix_plan *p, const clperm__radix_job *job, unsigned pass, cl_uint *shift,
                       cl_uint *bits) {
    *shift = job->bits.lo + pass * p->digit_bits;
    *bits = job->bits.hi - *shift < p->digit_bits ? job->bits.hi - *shift : p->digit_bits;
}

/* The label the tile partitions use is the ascending digit: for a descending sort, the digit with
 * every bit flipped. */
static cl_uint label_xor(const clperm__radix_job *job, cl_uint bits) {
    return job->bits.descending ? (1u << bits) - 1u : 0u;
}

static clperm_status presort(clperm_ctx *ctx, const clperm__radix_plan *p, const clperm__radix_job *job, cl_mem kin,
                             cl_mem vin, cl_uint shift, cl_uint bits, wait_list *wait) {
    clperm_status st = clperm__tile_partition(ctx, job->key_type, kin, job->value_bytes ? vin : NULL, job->n, p->sub,
                                              shift, bits, wait->num, wait->events, NULL);
    wait->num = 0;
    wait->events = NULL;
    return st;
}

/* How the pass and finish kernels run (radix.cl's SORT_RUN_*). */
#define RUN_SKIP 1u
#define RUN_IOTA 2u
#define RUN_INTO 4u

/* The buffer that pass `pass` of a job with out_keys reads (`moving` passes moving keys), and that
 * pass pass - 1 writes: the input first, then the temp buffer and the output in turn so that the
 * last lands in the output (radix.cl's clperm_radix_onesweep chooses the same way). */
static cl_mem into_buffer(cl_mem in, cl_mem temp, cl_mem out, unsigned pass, unsigned moving) {
    return pass == 0 ? in : (pass & 1) == (moving & 1) ? out : temp;
}

int clperm__radix_takes_into(const clperm__radix_plan *p, const clperm__radix_job *job) {
    return p->rank != CLPERM_RANK_PRESORTED && !p->trace && !job->labels;
}

/* clperm_radix_finish over the job's buffers after `passes` passes run as `run` says. */
static clperm_status finish(clperm_ctx *ctx, const clperm__radix_plan *p, const clperm__radix_job *job,
                            cl_uint passes, cl_uint run, wait_list *wait, cl_event *event) {
    cl_kernel kf;
    CLPERM_TRY(clperm__radix_kernel(ctx, p, "clperm_radix_finish", &kf));
    cl_ulong off = job->off, n = job->n;
    clperm__args a = {kf, 0, CL_SUCCESS};
    /* In place: from the temp buffers back to the job's; into: from the job's to the output. */
    int into = (run & RUN_INTO) != 0;
    cl_mem bufs[4] = {into ? job->out_keys : job->keys, into ? job->keys : job->temp_keys,
                      into ? job->out_values : job->values, into ? job->values : job->temp_values};
    for (int i = 0; i < 4; i++) CLPERM__ARG(a, bufs[i]);
    CLPERM__ARG(a, off);
    CLPERM__ARG(a, n);
    CLPERM__ARG(a, ctx->sort_bins.mem);
    CLPERM__ARG(a, passes);
    CLPERM__ARG(a, run);
    CLPERM_TRY(a.err);
    uint64_t groups = 16 * (uint64_t)ctx->profile.compute_units;
    if (groups > p->tiles) groups = p->tiles;
    return enqueue(ctx, kf, groups, p->wg, wait, event);
}

static clperm_status run_onesweep(clperm_ctx *ctx, const clperm__radix_plan *p, const clperm__radix_job *job,
                                  cl_mem trace, cl_uint trace_cap, wait_list *wait, int last_is_pass, cl_event *event) {
    size_t r = (size_t)1 << p->digit_bits;
    int grown = 0;
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->sort_counter, sizeof(cl_uint), 1, &grown));
    if (grown) ctx->sort_tile_base = 0;
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->sort_hist, p->passes * r * 2 * sizeof(cl_uint), 1, &grown));
    if (grown) ctx->sort_hist_dirty = 0;
    if (ctx->sort_hist_dirty) {
        /* A fill, not a blocking write: an operation never waits for its queue. */
        const cl_uint zero = 0;
        CLPERM_TRY(clEnqueueFillBuffer(ctx->queue, ctx->sort_hist.mem, &zero, sizeof zero, 0, ctx->sort_hist.bytes, 0,
                                       NULL, NULL));
        ctx->sort_hist_dirty = 0;
    }
    /* Each pass's digit starts, then a flag per pass: the digit does not vary. */
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->sort_bins, p->passes * (r + 1) * sizeof(cl_ulong), 0, NULL));
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->sort_status, (size_t)(p->tiles * r * sizeof(cl_ulong)), 1, &grown));
    if (grown) ctx->sort_epoch = 1;
    if (ctx->sort_epoch + p->passes >= EPOCH_LIMIT) {
        const cl_uint zero = 0;
        CLPERM_TRY(clEnqueueFillBuffer(ctx->queue, ctx->sort_status.mem, &zero, sizeof zero, 0, ctx->sort_status.bytes,
                                       0, NULL, NULL));
        ctx->sort_epoch = 1;
    }
    cl_kernel kh, kb, ko;
    CLPERM_TRY(clperm__radix_kernel(ctx, p, "clperm_radix_histogram", &kh));
    CLPERM_TRY(clperm__radix_kernel(ctx, p, "clperm_radix_bins", &kb));
    CLPERM_TRY(clperm__radix_kernel(ctx, p, "clperm_radix_onesweep", &ko));
    cl_ulong off = job->off, n = job->n, px = job->bits.pos_xor, nx = job->bits.neg_xor;
    cl_uint lo = job->bits.lo, hi = job->bits.hi;
    clperm__args ah = {kh, 0, CL_SUCCESS}, ab = {kb, 0, CL_SUCCESS};
    CLPERM__ARG(ah, job->keys);
    CLPERM__ARG(ah, off);
    CLPERM__ARG(ah, n);
    CLPERM__ARG(ah, px);
    CLPERM__ARG(ah, nx);
    CLPERM__ARG(ah, lo);
    CLPERM__ARG(ah, hi);
    CLPERM__ARG(ah, ctx->sort_hist.mem);
    CLPERM__ARG(ab, ctx->sort_hist.mem);
    CLPERM__ARG(ab, ctx->sort_bins.mem);
    CLPERM_TRY(ah.err);
    CLPERM_TRY(ab.err);
    /* Sixteen work-groups a compute unit, not four: more of them at once (on the H200 the
     * histogram of 2^28 u64 keys with values took 1.30 ms against 1.60). */
    uint64_t hist_groups = 16 * (uint64_t)ctx->profile.compute_units;
    if (hist_groups > p->tiles) hist_groups = p->tiles;
    ctx->sort_hist_dirty = 1;
    CLPERM_TRY(enqueue(ctx, kh, hist_groups, p->wg, wait, NULL));
    CLPERM_TRY(enqueue(ctx, kb, p->passes, p->wg, wait, NULL));
    ctx->sort_hist_dirty = 0;
    unsigned passes = p->trace ? 1 : p->passes;
    cl_uint run = (p->skip ? RUN_SKIP : 0) | (job->argsort && p->rank != CLPERM_RANK_PRESORTED ? RUN_IOTA : 0) |
                  (job->out_keys ? RUN_INTO : 0);
    cl_uint all = p->passes;
    int vs = job->value_bytes != 0;
    cl_mem kbuf[2] = {job->keys, job->temp_keys}, vbuf[2] = {job->values, job->temp_values};
    for (unsigned pass = 0; pass < passes; pass++) {
        cl_uint shift, bits, lx, epoch = ctx->sort_epoch;
        pass_digit(p, job, pass, &shift, &bits);
        lx = label_xor(job, bits);
        unsigned from = pass & 1;
        if (p->rank == CLPERM_RANK_PRESORTED)
            CLPERM_TRY(presort(ctx, p, job, kbuf[from], vbuf[from], shift, bits, wait));
        /* The buffers the pass reads and writes: in place in turn; into as into_buffer has them
         * for an even number of passes moving keys, then for an odd one (radix.cl). */
        cl_mem b[8] = {kbuf[from], kbuf[!from], vbuf[from], vbuf[!from], NULL, NULL, NULL, NULL};
        for (unsigned odd = 0; odd < 2 && job->out_keys; odd++) {
            b[4 * odd] = into_buffer(job->keys, job->temp_keys, job->out_keys, pass, odd);
            b[4 * odd + 1] = into_buffer(job->keys, job->temp_keys, job->out_keys, pass + 1, odd);
            b[4 * odd + 2] = into_buffer(job->values, job->temp_values, job->out_values, pass, odd);
            b[4 * odd + 3] = into_buffer(job->values, job->temp_values, job->out_values, pass + 1, odd);
        }
        clperm__args a = {ko, 0, CL_SUCCESS};
        for (int i = 0; i < 8; i++) {
            cl_mem m = vs || (i & 2) == 0 ? b[i] : NULL;
            CLPERM__ARG(a, m);
        }
        CLPERM__ARG(a, off);
        CLPERM__ARG(a, n);
        CLPERM__ARG(a, px);
        CLPERM__ARG(a, nx);
        CLPERM__ARG(a, shift);
        CLPERM__ARG(a, bits);
        cl_uint pass_index = pass;
        CLPERM__ARG(a, lx);
        CLPERM__ARG(a, ctx->sort_counter.mem);
        CLPERM__ARG(a, ctx->sort_tile_base);
        CLPERM__ARG(a, ctx->sort_status.mem);
        CLPERM__ARG(a, epoch);
        CLPERM__ARG(a, ctx->sort_bins.mem);
        CLPERM__ARG(a, pass_index);
        CLPERM__ARG(a, all);
        CLPERM__ARG(a, run);
        if (trace) {
            CLPERM__ARG(a, trace);
            CLPERM__ARG(a, trace_cap);
        }
        CLPERM_TRY(a.err);
        int last = last_is_pass && !p->skip && pass + 1 == passes;
        CLPERM_TRY(enqueue(ctx, ko, p->tiles, p->wg, wait, last ? event : NULL));
        ctx->sort_tile_base += (cl_uint)p->tiles;
        ctx->sort_epoch++;
    }
    if (p->skip) CLPERM_TRY(finish(ctx, p, job, all, run, wait, last_is_pass ? event : NULL));
    return CLPERM_SUCCESS;
}

static clperm_status run_reduce_then_scan(clperm_ctx *ctx, const clperm__radix_plan *p, const clperm__radix_job *job,
                                          cl_mem trace, cl_uint trace_cap, wait_list *wait, int last_is_pass,
                                          cl_event *event) {
    size_t r = (size_t)1 << p->digit_bits, cs = p->count64 ? 8 : 4;
    uint64_t counts = (uint64_t)r * p->tiles;
    CLPERM_RETURN_IF(counts > SIZE_MAX / cs, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->sort_counts, (size_t)(counts * cs), 0, NULL));
    cl_kernel kc, ks;
    CLPERM_TRY(clperm__radix_kernel(ctx, p, "clperm_radix_count", &kc));
    CLPERM_TRY(clperm__radix_kernel(ctx, p, "clperm_radix_scatter", &ks));
    cl_mem kbuf[2] = {job->keys, job->temp_keys}, vbuf[2] = {job->values, job->temp_values};
    cl_mem cm = ctx->sort_counts.mem;
    cl_uint tiles = (cl_uint)p->tiles;
    cl_ulong block = p->tile;
    unsigned passes = p->trace ? 1 : p->passes;
    for (unsigned pass = 0; pass < passes; pass++) {
        cl_uint shift, bits, lx;
        pass_digit(p, job, pass, &shift, &bits);
        lx = label_xor(job, bits);
        cl_mem kin = kbuf[pass & 1], vin = vbuf[pass & 1], kout = kbuf[!(pass & 1)], vout = vbuf[!(pass & 1)];
        if (job->out_keys) {
            kin = into_buffer(job->keys, job->temp_keys, job->out_keys, pass, passes);
            vin = into_buffer(job->values, job->temp_values, job->out_values, pass, passes);
            kout = into_buffer(job->keys, job->temp_keys, job->out_keys, pass + 1, passes);
            vout = into_buffer(job->values, job->temp_values, job->out_values, pass + 1, passes);
        }
        cl_ulong off = job->off, n = job->n, px = job->bits.pos_xor, nx = job->bits.neg_xor;
        clperm__args ac = {kc, 0, CL_SUCCESS}, as = {ks, 0, CL_SUCCESS};
        CLPERM__ARG(ac, kin);
        CLPERM__ARG(ac, off);
        CLPERM__ARG(ac, n);
        CLPERM__ARG(ac, px);
        CLPERM__ARG(ac, nx);
        CLPERM__ARG(ac, shift);
        CLPERM__ARG(ac, bits);
        CLPERM__ARG(ac, cm);
        CLPERM__ARG(ac, tiles);
        CLPERM__ARG(ac, block);
        CLPERM_TRY(ac.err);
        if (p->rank == CLPERM_RANK_PRESORTED) CLPERM_TRY(presort(ctx, p, job, kin, vin, shift, bits, wait));
        CLPERM_TRY(enqueue(ctx, kc, p->tiles, p->wg, wait, NULL));
        CLPERM_TRY(clperm__scan(ctx, p->count64 ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32, cm, cm, counts, 0, 0, NULL,
                                NULL));
        pass_args(&as, job, kin, kout, job->value_bytes ? vin : NULL, job->value_bytes ? vout : NULL, shift, bits);
        CLPERM__ARG(as, lx);
        CLPERM__ARG(as, cm);
        CLPERM__ARG(as, tiles);
        CLPERM__ARG(as, block);
        cl_uint iota = job->argsort && pass == 0 && p->rank != CLPERM_RANK_PRESORTED;
        CLPERM__ARG(as, iota);
        if (trace) {
            CLPERM__ARG(as, trace);
            CLPERM__ARG(as, trace_cap);
        }
        CLPERM_TRY(as.err);
        int last = last_is_pass && pass + 1 == passes;
        CLPERM_TRY(enqueue(ctx, ks, p->tiles, p->wg, wait, last ? event : NULL));
    }
    return CLPERM_SUCCESS;
}

clperm_status clperm__radix_prepare(clperm_ctx *ctx, const clperm__radix_plan *p) {
    static const char *const onesweep[] = {"clperm_radix_histogram", "clperm_radix_bins", "clperm_radix_onesweep",
                                           "clperm_radix_finish"};
    static const char *const passes[] = {"clperm_radix_count", "clperm_radix_scatter", "clperm_radix_finish"};
    const char *const *names = p->algorithm == 2 ? onesweep : passes;
    size_t count = p->algorithm == 2 ? 4 : p->serial ? 2 : 3;
    cl_kernel k;
    for (size_t i = 0; i < count; i++) CLPERM_TRY(clperm__radix_kernel(ctx, p, names[i], &k));
    return CLPERM_SUCCESS;
}

clperm_status clperm__radix_run(clperm_ctx *ctx, const clperm__radix_plan *p, const clperm__radix_job *job,
                                cl_mem trace, cl_uint trace_cap, cl_uint num_events, const cl_event *events,
                                cl_event *event) {
    wait_list wait = {num_events, events};
    /* After an even number of passes the keys are back in place; after an odd one they are in the
     * temp buffers and a copy brings them back (skipping passes, clperm_radix_finish decides). */
    int copy_back = !p->trace && !p->skip && !job->labels && !job->out_keys && (p->passes & 1);
    /* Positions as values: the first pass makes them, but where a tile partition reorders the
     * values before it, they are written first. */
    if (job->argsort && p->rank == CLPERM_RANK_PRESORTED) CLPERM_TRY(finish(ctx, p, job, 0, RUN_IOTA, &wait, NULL));
    if (p->algorithm == 2)
        CLPERM_TRY(run_onesweep(ctx, p, job, trace, trace_cap, &wait, !copy_back, event));
    else
        CLPERM_TRY(run_reduce_then_scan(ctx, p, job, trace, trace_cap, &wait, !copy_back, event));
    if (!copy_back) return CLPERM_SUCCESS;
    size_t ks = clperm_key_size(job->key_type), vs = job->value_bytes;
    CLPERM_TRY(clEnqueueCopyBuffer(ctx->queue, job->temp_keys, job->keys, (size_t)job->off * ks, (size_t)job->off * ks,
                                   (size_t)job->n * ks, 0, NULL, vs ? NULL : event));
    if (vs)
        CLPERM_TRY(clEnqueueCopyBuffer(ctx->queue, job->temp_values, job->values, (size_t)job->off * vs,
                                       (size_t)job->off * vs, (size_t)job->n * vs, 0, NULL, event));
    return CLPERM_SUCCESS;
}

void clperm__radix_label_starts(const clperm_ctx *ctx, const clperm__radix_plan *p, cl_mem *buf, uint64_t *stride,
                                int *wide) {
    int onesweep = p->algorithm == 2;
    *buf = onesweep ? ctx->sort_bins.mem : ctx->sort_counts.mem;
    *stride = onesweep ? 1 : p->tiles;
    *wide = onesweep || p->count64;
}
