/* The counting sort of 8- and 16-bit keys alone, ordered by every bit (cl/sort/count.cl): the
 * counts of every value, their scan, the keys written back. No temp buffer. */
#include <stdio.h>
#include <string.h>

#include "sort_internal.h"

int clperm__count_takes(const clperm_ctx *ctx, const clperm__radix_job *job) {
    int a = ctx->params[CLPERM_PARAM_SORT_ALGORITHM];
    size_t ks = clperm_key_size(job->key_type);
    if (ks > 2 || job->value_bytes || job->argsort || job->labels || job->bits.lo != 0 || job->bits.hi != 8 * ks)
        return 0;
    /* Its fixed work grows with the values (every counter is scanned, and handed on by each
     * work-group): by default from 64 keys a value, where it overtakes the radix sort (on the
     * H100, 16-bit keys from 2^22). */
    return a == CLPERM__SORT_COUNTING || (a == 0 && job->n >> (8 * ks) >= 64);
}

/* How the three kernels run on the context's device. */
typedef struct count_plan {
    size_t wg;
    unsigned range_bits; /* log2 of the values a work-group counts */
    unsigned u;          /* vectors of keys a work-item writes */
    size_t scan_wg;      /* work-items of the scan */
    size_t scan_block;   /* values a work-group of the scan takes */
    char options[256];
} count_plan;

static clperm_status count_plan_for(const clperm_ctx *ctx, size_t ks, uint64_t n, count_plan *p) {
    const unsigned values_bits = (unsigned)(8 * ks);
    int kparam = ctx->params[CLPERM_PARAM_SORT_KERNEL];
    int serial = (kparam ? kparam : clperm__table_kernel(ctx, ctx->tuning.sort.kernel)) == CLPERM_KERNEL_SERIAL;
    p->wg = serial ? 1 : 256;
    while (p->wg > ctx->profile.max_work_group_size) p->wg >>= 1;
    /* The most values whose counters fit the local memory, 1 KiB left for the compiler: 32-bit
     * counters where every value fits, else (work-group kernels) two 16-bit counters to a word.
     * PoCL 3.1 compiles the packed counters' work-group kernel into one that counts nothing
     * (right with -cl-opt-disable): its CPUs keep 32-bit counters, in more ranges. */
    int packed = !serial && ctx->profile.vendor != CLPERM_VENDOR_POCL &&
                 ((size_t)4 << values_bits) + 1024 > ctx->profile.local_mem_bytes;
    size_t counter_bytes = packed ? 2 : 4;
    p->range_bits = values_bits;
    while (p->range_bits > 0 && (counter_bytes << p->range_bits) + 1024 > ctx->profile.local_mem_bytes)
        p->range_bits--;
    CLPERM_RETURN_IF(p->range_bits < 6, CLPERM_ERROR_UNSUPPORTED);
    /* Work-items write 32 keys each; serial ones blocks of 4096. */
    p->u = (serial ? 4096u : 32u) / (16u / (unsigned)ks);
    /* The scan's work-items each hold five counts in local memory, and a work-group sums the
     * counts below its block (one block on serial kernels); the write kernel's window of the
     * scan is at most 2048 counts (a power of two, as the local memory allows). */
    size_t window = 2048, local = ctx->profile.local_mem_bytes;
    p->scan_wg = serial ? 1 : 1024;
    while (p->scan_wg > 1 && (p->scan_wg > ctx->profile.max_work_group_size || 40 * p->scan_wg + 1024 > local))
        p->scan_wg >>= 1;
    p->scan_block = (size_t)1 << values_bits;
    if (p->scan_wg > 1 && p->scan_block > 4 * p->scan_wg) p->scan_block = 4 * p->scan_wg;
    while (window > 64 && 8 * window + 1024 > local) window >>= 1;
    clperm__buf o = clperm__buf_on(p->options, sizeof p->options);
    clperm__buf_add(&o,
                    "-DCLPERM_COUNT_KEY_BYTES=%zu -DCLPERM_COUNT_RANGE_BITS=%u -DCLPERM_COUNT_U=%u "
                    "-DCLPERM_COUNT_SCAN_WG=%zu -DCLPERM_COUNT_SCAN_BLOCK=%zu -DCLPERM_COUNT_WINDOW=%zu "
                    "-DCLPERM_COUNT_PACKED=%d -DCLPERM_COUNT_WIDE=%d",
                    ks, p->range_bits, p->u, p->scan_wg, p->scan_block, window, packed, n > UINT32_MAX);
    return clperm__buf_status(&o);
}

static clperm_status count_kernel(clperm_ctx *ctx, const count_plan *p, const char *name, cl_kernel *out) {
    static const char *const texts[1] = {clperm__cl_sort_count_cl};
    size_t lengths[1] = {clperm__cl_sort_count_cl_size};
    clperm__source src = {"count", 1, texts, lengths};
    return clperm__tile_kernel_get(ctx, &src, p->options, p->wg == 1, p->wg, name, out);
}

/* The arguments the counting and write kernels begin with: keys (those counted, or where they are
 * written), offset, n, the form's masks. */
static void key_args(clperm__args *a, const clperm__radix_job *job, cl_mem keys) {
    cl_ulong off = job->off, n = job->n, px = job->bits.pos_xor, nx = job->bits.neg_xor;
    CLPERM__ARG(*a, keys);
    CLPERM__ARG(*a, off);
    CLPERM__ARG(*a, n);
    CLPERM__ARG(*a, px);
    CLPERM__ARG(*a, nx);
}

static clperm_status enqueue(clperm_ctx *ctx, cl_kernel k, uint64_t items, size_t wg, cl_uint num_events,
                             const cl_event *events, cl_event *event) {
    uint64_t groups = (items + wg - 1) / wg;
    CLPERM_RETURN_IF(groups > SIZE_MAX / wg, CLPERM_ERROR_SIZE_OVERFLOW);
    size_t global = (size_t)groups * wg;
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, num_events, events, event);
}

clperm_status clperm__count_run(clperm_ctx *ctx, const clperm__radix_job *job, cl_uint num_events,
                                const cl_event *events, cl_event *event) {
    size_t ks = clperm_key_size(job->key_type);
    uint64_t values = (uint64_t)1 << (8 * ks), per_vec = 16 / ks;
    count_plan p;
    CLPERM_TRY(count_plan_for(ctx, ks, job->n, &p));
    cl_kernel kh, ksc, kw;
    CLPERM_TRY(count_kernel(ctx, &p, "clperm_count_histogram", &kh));
    CLPERM_TRY(count_kernel(ctx, &p, "clperm_count_scan", &ksc));
    CLPERM_TRY(count_kernel(ctx, &p, "clperm_count_write", &kw));
    /* The counts start from zero, as Onesweep's do: the write kernel leaves them so. */
    int grown = 0;
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->sort_hist, (size_t)values * 2 * sizeof(cl_uint), 1, &grown));
    if (grown) ctx->sort_hist_dirty = 0;
    CLPERM_TRY(clperm__scratch_reserve(ctx, &ctx->sort_bins, (size_t)(values + 1) * sizeof(cl_ulong), 0, NULL));
    if (ctx->sort_hist_dirty) {
        const cl_uint zero = 0;
        CLPERM_TRY(clEnqueueFillBuffer(ctx->queue, ctx->sort_hist.mem, &zero, sizeof zero, 0, ctx->sort_hist.bytes,
                                       num_events, events, NULL));
        num_events = 0;
        events = NULL;
        ctx->sort_hist_dirty = 0;
    }
    /* Chunks of about eight keys a value (a work-group's counters go to the global ones once), but
     * at least four work-groups a compute unit and at most sixteen (one and four on serial
     * kernels), each chunk counted by one work-group a range of values. */
    uint64_t first = (job->off + per_vec - 1) / per_vec, end = (job->off + job->n) / per_vec;
    uint64_t whole = end > first ? end - first : 0;
    cl_uint ranges = (cl_uint)(values >> p.range_bits);
    uint64_t cus = ctx->profile.compute_units, chunks = (job->n + 8 * values - 1) / (8 * values);
    uint64_t least = (p.wg == 1 ? 1 : 4) * cus / ranges, most = (p.wg == 1 ? 4 : 16) * cus / ranges;
    if (chunks < least) chunks = least;
    if (chunks > most) chunks = most;
    /* No more than a key for every two values a chunk: the counters a work-group hands on would
     * outnumber its keys. */
    if (chunks > job->n / (2 * values)) chunks = job->n / (2 * values);
    /* But no chunk past 2^31 keys (32-bit counters in local memory), nor past half the loop cap
     * of a work-item's walk where loops are capped. */
    uint64_t need = (job->n >> 31) + 1;
    if (ctx->profile.loop_limit) {
        uint64_t walk = (uint64_t)p.wg * (ctx->profile.loop_limit / 2 > 0 ? ctx->profile.loop_limit / 2 : 1);
        if (whole / walk + 1 > need) need = whole / walk + 1;
    }
    if (chunks < need) chunks = need; /* need >= 1 */
    cl_ulong chunk_vecs = whole ? (whole + chunks - 1) / chunks : 1;
    chunks = whole ? (whole + chunk_vecs - 1) / chunk_vecs : 1; /* none empty */
    clperm__args ah = {kh, 0, CL_SUCCESS}, as = {ksc, 0, CL_SUCCESS}, aw = {kw, 0, CL_SUCCESS};
    key_args(&ah, job, job->keys);
    CLPERM__ARG(ah, chunk_vecs);
    CLPERM__ARG(ah, ctx->sort_hist.mem);
    CLPERM__ARG(as, ctx->sort_hist.mem);
    CLPERM__ARG(as, ctx->sort_bins.mem);
    key_args(&aw, job, job->out_keys ? job->out_keys : job->keys);
    CLPERM__ARG(aw, ctx->sort_bins.mem);
    CLPERM__ARG(aw, ctx->sort_hist.mem);
    CLPERM_TRY(ah.err);
    CLPERM_TRY(as.err);
    CLPERM_TRY(aw.err);
    uint64_t vectors = (job->off + job->n - 1) / per_vec - job->off / per_vec + 1;
    ctx->sort_hist_dirty = 1;
    CLPERM_TRY(enqueue(ctx, kh, chunks * ranges * p.wg, p.wg, num_events, events, NULL));
    CLPERM_TRY(enqueue(ctx, ksc, values / p.scan_block * p.scan_wg, p.scan_wg, 0, NULL, NULL));
    CLPERM_TRY(enqueue(ctx, kw, (vectors + p.u - 1) / p.u, p.wg, 0, NULL, event));
    ctx->sort_hist_dirty = 0;
    return CLPERM_SUCCESS;
}
