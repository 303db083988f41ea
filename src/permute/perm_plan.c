/* The scheduled permutation (Kasagi, Nakano, Ito, Sections 6 and 7): the plan made once on the
 * host (check, shape, König colouring, per-row schedules, upload), its execution as row-wise,
 * column-wise and row-wise steps, and the bank-conflict check of those steps. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perm_internal.h"

#define PLAN_MAGIC UINT64_C(0x636c7065726d706c)

struct clperm_perm_plan {
    uint64_t magic;
    clperm_ctx *ctx;
    uint64_t n;
    uint32_t rows, cols, w;
    int fusion;
    cl_mem sched[3];      /* step 1 (rows), step 2 (columns, column-major), step 3 (rows) */
    cl_mem scratch[3][2]; /* per item size (4, 8, 16 bytes): one or two buffers of rows * cols items */
    uint64_t scratch_bytes;
    clperm_perm_plan_info info;
};

/* ---- host helpers ---- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void clperm__progress_report(const clperm__progress *pg, double fraction) {
    if (pg && pg->fn) pg->fn(pg->user, pg->lo + (pg->hi - pg->lo) * fraction);
}

int clperm__host_threads(int requested) {
    if (requested > 0) return requested;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

typedef struct range_job {
    void (*fn)(void *, uint64_t, uint64_t);
    void *arg;
    uint64_t begin, end;
} range_job;

static void *range_main(void *p) {
    range_job *j = p;
    j->fn(j->arg, j->begin, j->end);
    return NULL;
}

int clperm__parallel_for(int threads, uint64_t count, void (*fn)(void *, uint64_t, uint64_t), void *arg) {
    if (threads > 256) threads = 256;
    if ((uint64_t)threads > count) threads = (int)count;
    if (threads <= 1) {
        if (count) fn(arg, 0, count);
        return 0;
    }
    range_job jobs[256];
    pthread_t tid[256];
    int started[256] = {0}, failed = 0;
    for (int t = 0; t < threads; t++) {
        jobs[t].fn = fn;
        jobs[t].arg = arg;
        jobs[t].begin = count * (uint64_t)t / (uint64_t)threads;
        jobs[t].end = count * (uint64_t)(t + 1) / (uint64_t)threads;
    }
    for (int t = 1; t < threads; t++) started[t] = pthread_create(&tid[t], NULL, range_main, &jobs[t]) == 0;
    fn(arg, jobs[0].begin, jobs[0].end);
    for (int t = 1; t < threads; t++) {
        if (started[t]) {
            pthread_join(tid[t], NULL);
        } else {
            fn(arg, jobs[t].begin, jobs[t].end);
            failed = 1;
        }
    }
    return failed;
}

/* ---- the shape ---- */

/* The longest row (column) the steps take: its 4-byte slices fill at most the local memory, and
 * positions fit the schedule's 16 bits. */
static uint32_t longest_row(const clperm_ctx *ctx, uint32_t w) {
    uint64_t l = ctx->profile.local_mem_bytes / 4;
    if (l > CLPERM_PERM_SCHED_MASK + 1) l = CLPERM_PERM_SCHED_MASK + 1;
    return (uint32_t)(l / w * w);
}

/* Work-items of a step over len * count positions: the largest multiple of w dividing it, at
 * most the cap. */
static uint32_t step_wg(uint64_t positions, uint32_t w, uint32_t cap) {
    uint32_t best = w;
    for (uint32_t g = w; g <= cap; g += w)
        if (positions % g == 0) best = g;
    return best;
}

/* The smallest rows x cols >= n (cols a power of two, rows a multiple of w whose steps find at
 * least 256 work-items, or the whole column, both at most lmax), the squarest of equals. */
static int plan_shape(uint64_t n, uint32_t w, uint32_t lmax, uint32_t cap, uint32_t *rows, uint32_t *cols) {
    uint64_t best = 0;
    for (uint64_t c = w; c <= lmax; c *= 2) {
        uint64_t r = (n + c - 1) / c;
        r = r < w ? w : (r + w - 1) / w * w;
        while (r <= lmax && r > 256 && step_wg(r, w, cap) < 256) r += w;
        if (r > lmax) continue;
        uint64_t size = r * c, skew = r > c ? r / c : c / r;
        if (!best || size < best || (size == best && skew < (*rows > *cols ? *rows / *cols : *cols / *rows))) {
            best = size;
            *rows = (uint32_t)r;
            *cols = (uint32_t)c;
        }
    }
    return best ? 0 : -1;
}

/* ---- building the plan ---- */

typedef struct build {
    const clperm_perm_plan *pl;
    const uint32_t *pe; /* destinations, the permutation extended by the identity */
    const uint32_t *at;
    uint16_t *p1, *p2, *p3;
    uint32_t *s[3];
    uint64_t first; /* build_schedules: the first line of the current chunk */
    int failed;
} build;

/* The three local permutations from the colouring: item e of source row u with colour c moves to
 * column c of row u (step 1), then to its destination row v in column c (step 2), then to its
 * destination column in row v (step 3). */
static void build_local(void *arg, uint64_t begin, uint64_t end) {
    build *b = arg;
    const uint64_t rows = b->pl->rows, cols = b->pl->cols;
    for (uint64_t k = begin; k < end; k++) {
        uint64_t c = k / rows, e = b->at[k], d = b->pe[e], v = d / cols;
        b->p1[e] = (uint16_t)c;
        b->p2[k] = (uint16_t)v;
        b->p3[v * cols + c] = (uint16_t)(d % cols);
    }
}

/* Schedules of lines first + [begin, end) of the three steps: rows of step 1, columns of step 2,
 * rows of step 3, numbered one after another. */
static void build_schedules(void *arg, uint64_t begin, uint64_t end) {
    build *b = arg;
    const uint32_t rows = b->pl->rows, cols = b->pl->cols, w = b->pl->w;
    clperm__sched_ws *ws = clperm__sched_ws_new(rows > cols ? rows : cols, w);
    if (!ws) {
        b->failed = 1; /* out of memory */
        return;
    }
    for (uint64_t r = b->first + begin; r < b->first + end && !b->failed; r++) {
        int bad;
        if (r < rows)
            bad = clperm__perm_schedule(ws, cols, w, b->p1 + r * cols, b->s[0] + r * cols);
        else if (r < (uint64_t)rows + cols)
            bad = clperm__perm_schedule(ws, rows, w, b->p2 + (r - rows) * rows, b->s[1] + (r - rows) * rows);
        else
            bad = clperm__perm_schedule(ws, cols, w, b->p3 + (r - rows - cols) * cols, b->s[2] + (r - rows - cols) * cols);
        if (bad) {
            /* Not reached: the colouring makes every line a permutation. */
            clperm__debug("perm plan: no schedule for line %llu", (unsigned long long)r);
            b->failed = 2;
        }
    }
    clperm__sched_ws_free(ws);
}

static clperm_status upload(clperm_perm_plan *pl, int step, const uint32_t *words) {
    cl_int err;
    size_t bytes = (size_t)pl->rows * pl->cols * 4;
    pl->sched[step] = clCreateBuffer(pl->ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                     (void *)words, &err);
    return pl->sched[step] ? CLPERM_SUCCESS : err;
}

static clperm_status plan_build(clperm_perm_plan *pl, clperm_type index_type, const void *p, const clperm_perm_plan_opts *o) {
    clperm_ctx *ctx = pl->ctx;
    const double t0 = now();
    clperm__progress pg = {o->progress, o->user, 0, 0};
    int threads = clperm__host_threads(o->threads);
    pl->w = ctx->profile.banks >= 2 && ctx->profile.banks <= 64 ? ctx->profile.banks : 32;
    uint32_t lmax = longest_row(ctx, pl->w);
    size_t cap = ctx->profile.max_work_group_size < 1024 ? ctx->profile.max_work_group_size : 1024;
    CLPERM_RETURN_IF(lmax < pl->w || cap < pl->w, CLPERM_ERROR_UNSUPPORTED);
    CLPERM_RETURN_IF(plan_shape(pl->n, pl->w, lmax, (uint32_t)cap, &pl->rows, &pl->cols) != 0, CLPERM_ERROR_UNSUPPORTED);
    const uint64_t size = (uint64_t)pl->rows * pl->cols;
    CLPERM_RETURN_IF(size > UINT32_MAX / 2 || size > SIZE_MAX / 16, CLPERM_ERROR_UNSUPPORTED);
    pl->fusion = o->fusion ? o->fusion : ctx->tuning.permute.plan_fusion;

    clperm_status st;
    build b = {pl, NULL, NULL, NULL, NULL, NULL, {NULL, NULL, NULL}, 0, 0};
    uint32_t *q = malloc(size * 4), *pe = malloc(size * 4), *at = NULL;
    CLPERM_CHECK(q && pe ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    /* The check comes first: nothing else is done for an index array that is not a permutation. */
    CLPERM_CHECK(clperm__perm_inverse_host(index_type, p, pl->n, q));
    for (uint64_t j = pl->n; j < size; j++) q[j] = (uint32_t)j;
    for (uint64_t j = 0; j < size; j++) pe[q[j]] = (uint32_t)j;
    const double t1 = now();
    clperm__progress_report(&pg, 0);
    at = malloc(size * 4);
    CLPERM_CHECK(at ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    pg.lo = 0.02, pg.hi = 0.55;
    CLPERM_CHECK(clperm__perm_colour(pl->rows, pl->cols, pe, q, at, threads, &pg));
    free(q);
    q = NULL;
    const double t2 = now();
    b.pe = pe;
    b.at = at;
    b.p1 = malloc(size * 2);
    b.p2 = malloc(size * 2);
    b.p3 = malloc(size * 2);
    for (int s = 0; s < 3; s++) b.s[s] = malloc(size * 4);
    CLPERM_CHECK(b.p1 && b.p2 && b.p3 && b.s[0] && b.s[1] && b.s[2] ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    clperm__parallel_for(threads, size, build_local, &b);
    free(at);
    at = NULL;
    free(pe);
    pe = NULL;
    /* Schedules in chunks, for progress. */
    const uint64_t lines = 2 * (uint64_t)pl->rows + pl->cols, chunk = lines / 16 + 1;
    pg.lo = 0.55, pg.hi = 0.95;
    for (b.first = 0; b.first < lines && !b.failed; b.first += chunk) {
        uint64_t last = b.first + chunk < lines ? b.first + chunk : lines;
        clperm__parallel_for(threads, last - b.first, build_schedules, &b);
        clperm__progress_report(&pg, (double)last / (double)lines);
    }
    CLPERM_CHECK(b.failed == 1 ? CLPERM_ERROR_OUT_OF_HOST_MEMORY : b.failed ? CLPERM_ERROR_INTERNAL : CLPERM_SUCCESS);
    const double t3 = now();
    for (int s = 0; s < 3; s++) CLPERM_CHECK(upload(pl, s, b.s[s]));
    pg.lo = 0, pg.hi = 1;
    clperm__progress_report(&pg, 1);
    const double t4 = now();
    clperm_perm_plan_info *in = &pl->info;
    in->n = pl->n;
    in->rows = pl->rows;
    in->cols = pl->cols;
    in->banks = pl->w;
    in->fusion = pl->fusion;
    in->schedule_bytes = 3 * size * 4;
    in->seconds_check = t1 - t0;
    in->seconds_colour = t2 - t1;
    in->seconds_schedule = t3 - t2;
    in->seconds_upload = t4 - t3;
    in->seconds_total = t4 - t0;
    in->threads = threads;
cleanup:
    free(q), free(pe), free(at), free(b.p1), free(b.p2), free(b.p3);
    for (int s = 0; s < 3; s++) free(b.s[s]);
    return st;
}

void clperm_perm_plan_free(clperm_perm_plan *plan) {
    if (!plan || plan->magic != PLAN_MAGIC) return;
    for (int s = 0; s < 3; s++)
        if (plan->sched[s]) clReleaseMemObject(plan->sched[s]);
    for (int e = 0; e < 3; e++)
        for (int s = 0; s < 2; s++)
            if (plan->scratch[e][s]) clReleaseMemObject(plan->scratch[e][s]);
    plan->magic = 0;
    free(plan);
}

static clperm_status create_checked(clperm_ctx *ctx, clperm_perm_plan **out, clperm_type index_type, const void *p,
                                    uint64_t n, const clperm_perm_plan_opts *opts) {
    CLPERM_RETURN_IF(!out || !p || n == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(!clperm_type_size(index_type), CLPERM_ERROR_INVALID_TYPE);
    clperm_perm_plan_opts o = {NULL, NULL, 0, 0};
    if (opts) o = *opts;
    CLPERM_RETURN_IF(o.threads < 0 || o.fusion < 0 || o.fusion > 2, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n > UINT32_MAX / 2, CLPERM_ERROR_UNSUPPORTED);
    clperm_perm_plan *pl = calloc(1, sizeof *pl);
    CLPERM_RETURN_IF(!pl, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    pl->magic = PLAN_MAGIC;
    pl->ctx = ctx;
    pl->n = n;
    clperm_status st = plan_build(pl, index_type, p, &o);
    if (st != CLPERM_SUCCESS) {
        clperm_perm_plan_free(pl);
        return st;
    }
    *out = pl;
    return CLPERM_SUCCESS;
}

/* The host work takes seconds for large n, so the context stays unlocked while it runs: it reads
 * only the device profile, fixed at the context's creation, and creates buffers (thread-safe in
 * OpenCL). */
clperm_status clperm_perm_plan_create(clperm_ctx *ctx, clperm_perm_plan **out, clperm_type index_type, const void *p,
                                      uint64_t n, const clperm_perm_plan_opts *opts) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm__ctx_leave(ctx);
    return create_checked(ctx, out, index_type, p, n, opts);
}

clperm_status clperm_perm_plan_create_device(clperm_ctx *ctx, clperm_perm_plan **out, clperm_type index_type, cl_mem p,
                                             uint64_t n, const clperm_perm_plan_opts *opts) {
    size_t ib = clperm_type_size(index_type);
    CLPERM_RETURN_IF(!ib, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(!out || n == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n > UINT32_MAX / 2, CLPERM_ERROR_UNSUPPORTED);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = clperm__check_buffer(ctx, p, n, ib, 0);
    void *host = st == CLPERM_SUCCESS ? malloc((size_t)n * ib) : NULL;
    if (st == CLPERM_SUCCESS && !host) st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    if (st == CLPERM_SUCCESS) st = clEnqueueReadBuffer(ctx->queue, p, CL_TRUE, 0, (size_t)n * ib, host, 0, NULL, NULL);
    clperm__ctx_leave(ctx);
    if (st == CLPERM_SUCCESS) st = create_checked(ctx, out, index_type, host, n, opts);
    free(host);
    return st;
}

static int plan_live(const clperm_perm_plan *plan) { return plan && plan->magic == PLAN_MAGIC; }

clperm_status clperm_perm_plan_query(const clperm_perm_plan *plan, clperm_perm_plan_info *out) {
    CLPERM_RETURN_IF(!plan_live(plan) || !out, CLPERM_ERROR_INVALID_ARGUMENT);
    *out = plan->info;
    out->scratch_bytes = plan->scratch_bytes;
    return CLPERM_SUCCESS;
}

/* Scratch buffers for items of `bytes`: rows * cols items each, one for three passes, two for
 * five (the caller's dst is never read back: it is only written, by the last step). */
static int scratch_count(const clperm_perm_plan *pl) { return pl->fusion == 1 ? 2 : 1; }

clperm_status clperm_perm_plan_bytes(const clperm_perm_plan *plan, size_t elem_size, uint64_t *bytes) {
    CLPERM_RETURN_IF(!plan_live(plan) || !bytes, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(elem_size && !clperm__perm_item_type(elem_size), CLPERM_ERROR_INVALID_TYPE);
    *bytes = plan->info.schedule_bytes + (uint64_t)scratch_count(plan) * plan->rows * plan->cols * elem_size;
    return CLPERM_SUCCESS;
}

/* ---- execution ---- */

/* One step's kernel: rows of len positions (group rows per work-group), or with wc > 0 strips
 * of wc columns of len positions; items of `bytes` moved in slices. */
typedef struct step {
    uint32_t len, group, wc, wg, items;
    size_t slice;
    cl_kernel kernel;
} step;

static clperm_status step_kernel(clperm_perm_plan *pl, uint32_t len, int columns, size_t bytes, int trace, step *s) {
    const clperm_ctx *ctx = pl->ctx;
    uint64_t budget = ctx->profile.local_mem_bytes;
    uint32_t cap = ctx->profile.max_work_group_size < 1024 ? (uint32_t)ctx->profile.max_work_group_size : 1024;
    memset(s, 0, sizeof *s);
    s->len = len;
    s->group = 1;
    s->wc = columns ? 1 : 0;
    s->slice = bytes;
    while (s->slice > 4 && (uint64_t)len * s->slice > budget) s->slice /= 2;
    CLPERM_RETURN_IF((uint64_t)len * s->slice > budget, CLPERM_ERROR_UNSUPPORTED);
    uint32_t wsl = clperm__perm_banks(ctx, s->slice);
    if (columns) {
        /* As many columns per strip as fit, each row segment of wc items in wc banks. */
        while (s->wc * 2 <= wsl && s->wc * 2 <= pl->cols && (uint64_t)len * s->wc * 2 * s->slice <= budget &&
               (uint64_t)len * s->wc * 2 <= 8192)
            s->wc *= 2;
    } else {
        while ((uint64_t)len * s->group < 256 && (uint64_t)len * s->group * 2 * s->slice <= budget) s->group *= 2;
    }
    uint64_t positions = (uint64_t)len * (columns ? s->wc : s->group);
    s->wg = step_wg(positions, pl->w, cap);
    s->items = (uint32_t)(positions / s->wg);
    char storage[384];
    clperm__buf options = clperm__buf_on(storage, sizeof storage);
    clperm__buf_add(&options,
                    "-DCLPERM_PM_ITEM=%s -DCLPERM_PM_TRACE=%d -DCLPERM_PM_LEN=%u -DCLPERM_PM_WG=%u -DCLPERM_PM_NS=%u "
                    "-DCLPERM_PM_GROUP=%u -DCLPERM_PM_WC=%u -DCLPERM_PM_SKEW=%u",
                    clperm__perm_item_type(s->slice), trace, len, s->wg, (unsigned)(bytes / s->slice), s->group,
                    columns ? s->wc : 1, columns && s->wc > 1 ? wsl / s->wc : 0);
    CLPERM_TRY(clperm__buf_status(&options));
    const char *texts[2] = {clperm__cl_permute_permute_common_h, clperm__cl_permute_perm_plan_cl};
    size_t lengths[2] = {clperm__cl_permute_permute_common_h_size, clperm__cl_permute_perm_plan_cl_size};
    clperm__source src = {"perm_plan", 2, texts, lengths};
    return clperm__kernel_get(pl->ctx, &src, storage, columns ? "clperm_perm_cols" : "clperm_perm_rows", &s->kernel);
}

static clperm_status enqueue_step(clperm_ctx *ctx, const step *s, uint64_t groups, cl_uint num_events,
                                  const cl_event *events, cl_event *event) {
    size_t local = s->wg;
    CLPERM_RETURN_IF(groups > SIZE_MAX / local, CLPERM_ERROR_SIZE_OVERFLOW);
    size_t global = (size_t)groups * local;
    return clEnqueueNDRangeKernel(ctx->queue, s->kernel, 1, NULL, &global, &local, num_events, events, event);
}

/* Row-wise step: nrows rows of s->len from src (src_items valid) to dst (dst_items written). */
static clperm_status run_rows(clperm_ctx *ctx, const step *s, cl_mem src, cl_mem dst, cl_mem sched, uint64_t nrows,
                              uint64_t src_items, uint64_t dst_items, cl_mem trace, cl_uint cap, cl_uint num_events,
                              const cl_event *events, cl_event *event) {
    cl_ulong nr = nrows, si = src_items, di = dst_items;
    clperm__args a = {s->kernel, 0, CL_SUCCESS};
    CLPERM__ARG(a, src);
    CLPERM__ARG(a, dst);
    CLPERM__ARG(a, sched);
    CLPERM__ARG(a, nr);
    CLPERM__ARG(a, si);
    CLPERM__ARG(a, di);
    if (trace) {
        CLPERM__ARG(a, trace);
        CLPERM__ARG(a, cap);
    }
    CLPERM_TRY(a.err);
    return enqueue_step(ctx, s, (nrows + s->group - 1) / s->group, num_events, events, event);
}

/* Column-wise step in place on a matrix of s->len rows by cols columns. */
static clperm_status run_cols(clperm_ctx *ctx, const step *s, cl_mem buf, cl_mem sched, uint64_t cols, cl_mem trace,
                              cl_uint cap, cl_uint num_events, const cl_event *events, cl_event *event) {
    cl_ulong c = cols;
    clperm__args a = {s->kernel, 0, CL_SUCCESS};
    CLPERM__ARG(a, buf);
    CLPERM__ARG(a, buf);
    CLPERM__ARG(a, sched);
    CLPERM__ARG(a, c);
    if (trace) {
        CLPERM__ARG(a, trace);
        CLPERM__ARG(a, cap);
    }
    CLPERM_TRY(a.err);
    return enqueue_step(ctx, s, cols / s->wc, num_events, events, event);
}

/* The scratch for items of `bytes`, allocated on first need and kept until the plan is freed. */
static clperm_status reserve_scratch(clperm_perm_plan *pl, size_t bytes, cl_mem **out) {
    cl_mem *set = pl->scratch[bytes == 4 ? 0 : bytes == 8 ? 1 : 2];
    size_t need = (size_t)pl->rows * pl->cols * bytes;
    for (int i = 0; i < scratch_count(pl); i++) {
        if (set[i]) continue;
        cl_int err;
        set[i] = clCreateBuffer(pl->ctx->context, CL_MEM_READ_WRITE, need, NULL, &err);
        if (!set[i]) return err;
        pl->scratch_bytes += need;
        if (pl->ctx->profile.vendor == CLPERM_VENDOR_OCLGRIND) {
            /* Oclgrind reuses the addresses of released buffers and then takes the kernels'
             * writes to a new one for uninitialised (the data is right); a host write marks it
             * initialised. Not needed anywhere else. */
            void *zeros = calloc(need, 1);
            err = zeros ? clEnqueueWriteBuffer(pl->ctx->queue, set[i], CL_TRUE, 0, need, zeros, 0, NULL, NULL)
                        : CLPERM_ERROR_OUT_OF_HOST_MEMORY;
            free(zeros);
            if (err != CL_SUCCESS) return err;
        }
    }
    *out = set;
    return CLPERM_SUCCESS;
}

static clperm_status execute_checked(clperm_perm_plan *pl, cl_mem src, cl_mem dst, size_t bytes, cl_uint num_events,
                                     const cl_event *events, cl_event *event) {
    clperm_ctx *ctx = pl->ctx;
    CLPERM_RETURN_IF(!clperm__perm_item_type(bytes), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, src, pl->n, bytes, 0));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, pl->n, bytes, 1));
    CLPERM_TRY(clperm__check_overlap(src, pl->n * bytes, dst, pl->n * bytes, 1));
    step outer, middle;
    CLPERM_TRY(step_kernel(pl, pl->cols, 0, bytes, 0, &outer));
    CLPERM_TRY(step_kernel(pl, pl->rows, pl->fusion == 2, bytes, 0, &middle));
    cl_mem *scratch = NULL;
    CLPERM_TRY(reserve_scratch(pl, bytes, &scratch));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    const uint64_t size = (uint64_t)pl->rows * pl->cols, n = pl->n;
    cl_mem t1 = scratch[0];
    CLPERM_TRY(run_rows(ctx, &outer, src, t1, pl->sched[0], pl->rows, n, size, NULL, 0, num_events, events, NULL));
    if (pl->fusion == 2) {
        CLPERM_TRY(run_cols(ctx, &middle, t1, pl->sched[1], pl->cols, NULL, 0, 0, NULL, NULL));
    } else {
        cl_mem t2 = scratch[1];
        CLPERM_TRY(clperm__transpose_enqueue(ctx, t1, t2, pl->rows, pl->cols, bytes, 0, NULL, NULL));
        CLPERM_TRY(run_rows(ctx, &middle, t2, t2, pl->sched[1], pl->cols, size, size, NULL, 0, 0, NULL, NULL));
        CLPERM_TRY(clperm__transpose_enqueue(ctx, t2, t1, pl->cols, pl->rows, bytes, 0, NULL, NULL));
    }
    return run_rows(ctx, &outer, t1, dst, pl->sched[2], pl->rows, size, n, NULL, 0, 0, NULL, event);
}

clperm_status clperm_perm_plan_execute(clperm_perm_plan *plan, cl_mem src, cl_mem dst, size_t elem_size,
                                       cl_uint num_events, const cl_event *events, cl_event *event) {
    CLPERM_RETURN_IF(!plan_live(plan), CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(plan->ctx));
    clperm_status st = execute_checked(plan, src, dst, elem_size, num_events, events, event);
    clperm__ctx_leave(plan->ctx);
    return st;
}

/* ---- the bank-conflict check of the steps ---- */

typedef struct step_trace {
    const step *s;
    int columns;
    uint64_t lines; /* rows (columns) traced */
    cl_mem sched;   /* their schedule words */
} step_trace;

static clperm_status step_trace_fn(clperm_ctx *ctx, void *arg, cl_mem a, cl_mem b, cl_mem trace, uint32_t cap) {
    step_trace *t = arg;
    uint64_t items = t->lines * t->s->len;
    if (t->columns) return run_cols(ctx, t->s, a, t->sched, t->lines, trace, cap, 0, NULL, NULL);
    return run_rows(ctx, t->s, a, b, t->sched, t->lines, items, items, trace, cap, 0, NULL, NULL);
}

/* Traces `lines` rows (or columns) of step `which` with its schedule, or the naive one (work-item
 * x moves the item at x straight to its destination), adding to *out. */
static clperm_status trace_step(clperm_perm_plan *pl, int which, size_t bytes, uint64_t lines, int naive,
                                clperm_conflict_report *out) {
    clperm_ctx *ctx = pl->ctx;
    int columns = which == 1 && pl->fusion == 2;
    uint32_t len = which == 1 ? pl->rows : pl->cols;
    uint64_t total = which == 1 ? pl->cols : pl->rows;
    step s0, s;
    CLPERM_TRY(step_kernel(pl, len, columns, bytes, 0, &s0));
    if (columns) lines = (lines + s0.wc - 1) / s0.wc * s0.wc;
    if (lines > total) lines = total;
    uint64_t words = lines * len;
    uint32_t *w = malloc((size_t)words * 4), *nv = malloc((size_t)words * 4);
    clperm_status st;
    cl_int err = CL_SUCCESS;
    cl_mem sched = NULL;
    CLPERM_CHECK(w && nv ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    CLPERM_CHECK(clEnqueueReadBuffer(ctx->queue, pl->sched[which], CL_TRUE, 0, (size_t)words * 4, w, 0, NULL, NULL));
    if (naive) {
        for (uint64_t r = 0; r < lines; r++)
            for (uint32_t t = 0; t < len; t++) {
                uint32_t x = w[r * len + t], from = x & CLPERM_PERM_SCHED_MASK;
                nv[r * len + from] = from | (x & ~CLPERM_PERM_SCHED_MASK);
            }
    }
    sched = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)words * 4, naive ? nv : w,
                           &err);
    CLPERM_CHECK(err);
    CLPERM_CHECK(step_kernel(pl, len, columns, bytes, 1, &s));
    step_trace t = {&s, columns, lines, sched};
    uint64_t groups = columns ? lines / s.wc : (lines + s.group - 1) / s.group;
    uint32_t cap = 4 * s.items * (uint32_t)(bytes / s.slice);
    clperm_conflict_report r;
    CLPERM_CHECK(clperm__perm_trace_run(ctx, groups * s.wg, cap, clperm__perm_banks(ctx, s.slice), groups,
                                        (size_t)(lines * len * bytes), step_trace_fn, &t, &r));
    out->tiles += r.tiles;
    out->steps += r.steps;
    out->accesses += r.accesses;
    out->conflicts += r.conflicts;
    if (r.max_ways > out->max_ways) out->max_ways = r.max_ways;
    out->shape.w = r.shape.w;
cleanup:
    if (sched) clReleaseMemObject(sched);
    free(w), free(nv);
    return st;
}

clperm_status clperm_perm_plan_conflicts(clperm_perm_plan *plan, size_t elem_size, uint32_t rows_traced, int naive,
                                         clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!plan_live(plan) || !out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(!clperm__perm_item_type(elem_size), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_TRY(clperm__ctx_enter(plan->ctx));
    memset(out, 0, sizeof *out);
    clperm_status st = CLPERM_SUCCESS;
    for (int which = 0; which < 3 && st == CLPERM_SUCCESS; which++)
        st = trace_step(plan, which, elem_size, rows_traced ? rows_traced : 4, naive, out);
    clperm__ctx_leave(plan->ctx);
    return st;
}
