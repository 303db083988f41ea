/* The measured operations of `clperm bench`: device copy and gather bounds, clperm's primitives,
 * and host references. Each is timed as the median wall-clock time of repeated runs after
 * warm-up, every run ended by clFinish so that it covers the whole operation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#include "clperm_bench_kernels.h"

struct bench_dev {
    clperm_ctx *ctx;
    clperm_profile profile;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel fill_u64, fill_u32, fill_index, copy, gather, fill_iota;
    cl_kernel dart_throw, dart_flags, dart_compact, sort_keys;
    cl_mem a, b, idx;
    cl_mem t1, t2, t3; /* the baselines' own working memory */
    uint64_t cap; /* items of 64 bits each buffer holds */
    uint64_t filled;
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef bench_fn run_fn;

/* Median time of fn over t->reps runs after t->warmup; negative on error. */
static double timed(bench_dev *d, run_fn fn, void *arg, const bench_timing *t, char *err, size_t errcap) {
    return bench_timed(d, NULL, fn, arg, t, err, errcap);
}

static cl_int launch(bench_dev *d, cl_kernel k, uint64_t n) {
    size_t wg = 256, global = (size_t)((n + wg - 1) / wg * wg);
    if (global == 0) return CL_SUCCESS;
    return clEnqueueNDRangeKernel(d->queue, k, 1, NULL, &global, &wg, 0, NULL, NULL);
}

#define SETARG(k, i, v) (st = st != CL_SUCCESS ? st : clSetKernelArg(k, i, sizeof(v), &(v)))

bench_dev *bench_dev_open(const char *selector, const bench_set *sets, int nsets, char *err, size_t errcap) {
    bench_dev *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    clperm_status st = clperm_ctx_create_device(&d->ctx, selector);
    for (int i = 0; st == CLPERM_SUCCESS && i < nsets; i++)
        st = clperm_ctx_set_param(d->ctx, sets[i].param, sets[i].value);
    if (st == CLPERM_SUCCESS) st = clperm_ctx_profile(d->ctx, &d->profile);
    if (st != CLPERM_SUCCESS) {
        snprintf(err, errcap, "%s: %s", clperm_status_name(st), clperm_status_string(st));
        bench_dev_close(d);
        return NULL;
    }
    d->context = clperm_ctx_cl_context(d->ctx);
    d->queue = clperm_ctx_cl_queue(d->ctx);
    cl_device_id dev = clperm_ctx_cl_device(d->ctx);
    const char *text = clperm__cl_bench_cl;
    size_t len = clperm__cl_bench_cl_size;
    cl_int e;
    d->program = clCreateProgramWithSource(d->context, 1, &text, &len, &e);
    if (d->program) e = clBuildProgram(d->program, 1, &dev, "", NULL, NULL);
    if (e == CL_SUCCESS) d->fill_u64 = clCreateKernel(d->program, "clperm_bench_fill_u64", &e);
    if (e == CL_SUCCESS) d->fill_u32 = clCreateKernel(d->program, "clperm_bench_fill_u32", &e);
    if (e == CL_SUCCESS) d->fill_index = clCreateKernel(d->program, "clperm_bench_fill_index", &e);
    if (e == CL_SUCCESS) d->copy = clCreateKernel(d->program, "clperm_bench_copy_u64", &e);
    if (e == CL_SUCCESS) d->gather = clCreateKernel(d->program, "clperm_bench_gather_u64", &e);
    if (e == CL_SUCCESS) d->fill_iota = clCreateKernel(d->program, "clperm_bench_fill_iota", &e);
    if (e == CL_SUCCESS) d->dart_throw = clCreateKernel(d->program, "clperm_bench_dart_throw", &e);
    if (e == CL_SUCCESS) d->dart_flags = clCreateKernel(d->program, "clperm_bench_dart_flags", &e);
    if (e == CL_SUCCESS) d->dart_compact = clCreateKernel(d->program, "clperm_bench_dart_compact", &e);
    if (e == CL_SUCCESS) d->sort_keys = clCreateKernel(d->program, "clperm_bench_sort_keys", &e);
    if (e != CL_SUCCESS) {
        snprintf(err, errcap, "benchmark kernels: %s", clperm_status_name(e));
        bench_dev_close(d);
        return NULL;
    }
    return d;
}

static void release_buffers(bench_dev *d) {
    cl_mem *bufs[] = {&d->a, &d->b, &d->idx, &d->t1, &d->t2, &d->t3};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        if (*bufs[i]) clReleaseMemObject(*bufs[i]);
        *bufs[i] = NULL;
    }
    d->cap = d->filled = 0;
}

void bench_dev_close(bench_dev *d) {
    if (!d) return;
    release_buffers(d);
    cl_kernel ks[] = {d->fill_u64,  d->fill_u32,   d->fill_index, d->copy,         d->gather,
                      d->fill_iota, d->dart_throw, d->dart_flags, d->dart_compact, d->sort_keys};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i]) clReleaseKernel(ks[i]);
    if (d->program) clReleaseProgram(d->program);
    clperm_ctx_free(d->ctx);
    free(d);
}

const clperm_profile *bench_dev_profile(const bench_dev *d) { return &d->profile; }

clperm_ctx *bench_dev_ctx(bench_dev *d) { return d->ctx; }

int bench_dev_prepare(bench_dev *d, uint64_t n, char *err, size_t errcap) {
    if (n > d->cap) {
        release_buffers(d);
        uint64_t bytes = n * 8;
        if (bytes > d->profile.max_alloc_bytes || 2 * bytes + n * 4 > d->profile.global_mem_bytes) {
            snprintf(err, errcap, "n = %llu does not fit the device's memory", (unsigned long long)n);
            return -1;
        }
        cl_int e;
        d->a = clCreateBuffer(d->context, CL_MEM_READ_WRITE, (size_t)bytes, NULL, &e);
        if (d->a) d->b = clCreateBuffer(d->context, CL_MEM_READ_WRITE, (size_t)bytes, NULL, &e);
        if (d->b) d->idx = clCreateBuffer(d->context, CL_MEM_READ_WRITE, (size_t)(n * 4), NULL, &e);
        if (!d->idx) {
            snprintf(err, errcap, "allocating %llu items: %s", (unsigned long long)n, clperm_status_name(e));
            release_buffers(d);
            return -1;
        }
        d->cap = n;
    }
    if (d->filled != n) {
        cl_int st = CL_SUCCESS;
        cl_ulong nn = n, seed = 0x5eed0001;
        SETARG(d->fill_u64, 0, d->a);
        SETARG(d->fill_u64, 1, nn);
        SETARG(d->fill_u64, 2, seed);
        SETARG(d->fill_index, 0, d->idx);
        SETARG(d->fill_index, 1, nn);
        SETARG(d->fill_index, 2, seed);
        if (st == CL_SUCCESS) st = launch(d, d->fill_u64, n);
        if (st == CL_SUCCESS) st = launch(d, d->fill_index, n);
        if (st == CL_SUCCESS) st = clFinish(d->queue);
        if (st != CL_SUCCESS) {
            snprintf(err, errcap, "filling inputs: %s", clperm_status_name(st));
            return -1;
        }
        d->filled = n;
    }
    return 0;
}

typedef struct kernel_run {
    cl_kernel k;
    uint64_t n;
} kernel_run;

static cl_int run_kernel(bench_dev *d, void *arg) {
    kernel_run *r = arg;
    return launch(d, r->k, r->n);
}

double bench_copy(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap) {
    cl_int st = CL_SUCCESS;
    cl_ulong nn = n;
    SETARG(d->copy, 0, d->a);
    SETARG(d->copy, 1, d->b);
    SETARG(d->copy, 2, nn);
    if (st != CL_SUCCESS) return -1;
    kernel_run r = {d->copy, n};
    return timed(d, run_kernel, &r, t, err, errcap);
}

double bench_gather(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap) {
    cl_int st = CL_SUCCESS;
    cl_ulong nn = n;
    SETARG(d->gather, 0, d->a);
    SETARG(d->gather, 1, d->idx);
    SETARG(d->gather, 2, d->b);
    SETARG(d->gather, 3, nn);
    if (st != CL_SUCCESS) return -1;
    kernel_run r = {d->gather, n};
    return timed(d, run_kernel, &r, t, err, errcap);
}

typedef struct scan_run {
    const char *op;
    clperm_type type;
    uint64_t n;
} scan_run;

static cl_int run_scan(bench_dev *d, void *arg) {
    scan_run *r = arg;
    if (strcmp(r->op, "reduce_sum") == 0) return clperm_reduce_sum(d->ctx, r->type, d->a, r->n, d->b, 0, NULL, NULL);
    if (strcmp(r->op, "scan_inclusive") == 0)
        return clperm_scan_inclusive(d->ctx, r->type, d->a, d->b, r->n, 0, NULL, NULL);
    return clperm_scan_exclusive(d->ctx, r->type, d->a, d->b, r->n, 0, NULL, NULL);
}

/* Compares the device's result in b with a host scan of a. */
static int verify_scan(bench_dev *d, const scan_run *r, char *err, size_t errcap) {
    size_t es = clperm_type_size(r->type);
    size_t bytes = (size_t)r->n * es;
    unsigned char *in = malloc(bytes), *out = malloc(bytes);
    int bad = -1;
    if (in && out && clEnqueueReadBuffer(d->queue, d->a, CL_TRUE, 0, bytes, in, 0, NULL, NULL) == CL_SUCCESS &&
        clEnqueueReadBuffer(d->queue, d->b, CL_TRUE, 0, bytes, out, 0, NULL, NULL) == CL_SUCCESS) {
        int incl = strcmp(r->op, "scan_inclusive") == 0, red = strcmp(r->op, "reduce_sum") == 0;
        uint64_t sum = 0, mask = es == 4 ? 0xffffffffull : ~0ull;
        bad = 0;
        for (uint64_t i = 0; i < r->n && !bad; i++) {
            uint64_t x = 0, y = 0;
            memcpy(&x, in + i * es, es);
            if (!red) memcpy(&y, out + i * es, es);
            if (!red && !incl && y != (sum & mask)) bad = 1;
            sum += x;
            if (!red && incl && y != (sum & mask)) bad = 1;
            if (bad) snprintf(err, errcap, "%s: wrong result at item %llu", r->op, (unsigned long long)i);
        }
        uint64_t y = 0;
        memcpy(&y, out, es);
        if (red && y != (sum & mask)) {
            bad = 1;
            snprintf(err, errcap, "reduce_sum: wrong result");
        }
    } else {
        snprintf(err, errcap, "could not read back the result to verify it");
    }
    free(in);
    free(out);
    return bad;
}

double bench_scan(bench_dev *d, const char *op, clperm_type type, int algorithm, uint64_t n,
                  const bench_timing *t, int verify, uint64_t *extra_bytes, char *err, size_t errcap) {
    clperm_status st = clperm_ctx_set_param(d->ctx, CLPERM_PARAM_SCAN_ALGORITHM, algorithm);
    if (st != CLPERM_SUCCESS) {
        snprintf(err, errcap, "%s", clperm_status_name(st));
        return -1;
    }
    scan_run r = {op, type, n};
    /* Scan inputs are random items of the type: the first n items of buffer a. */
    cl_ulong nn = n, seed = 0x5eed0002;
    cl_kernel fill = type == CLPERM_TYPE_U32 ? d->fill_u32 : d->fill_u64;
    cl_int e = clSetKernelArg(fill, 0, sizeof d->a, &d->a);
    if (e == CL_SUCCESS) e = clSetKernelArg(fill, 1, sizeof nn, &nn);
    if (e == CL_SUCCESS) e = clSetKernelArg(fill, 2, sizeof seed, &seed);
    if (e == CL_SUCCESS) e = launch(d, fill, n);
    d->filled = 0; /* buffer a no longer holds the copy and gather input */
    if (e != CL_SUCCESS) {
        snprintf(err, errcap, "filling scan input: %s", clperm_status_name(e));
        return -1;
    }
    double s = timed(d, run_scan, &r, t, err, errcap);
    if (s >= 0 && verify && verify_scan(d, &r, err, errcap) != 0) return -1;
    if (extra_bytes && clperm_ctx_counter(d->ctx, CLPERM_COUNTER_SCRATCH_BYTES, extra_bytes) != CLPERM_SUCCESS)
        *extra_bytes = 0;
    return s;
}

double bench_host_scan(uint64_t n, const bench_timing *t) {
    uint32_t *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
    if (!in || !out) {
        free(in);
        free(out);
        return -1;
    }
    uint64_t z = 0x5eed0003;
    for (uint64_t i = 0; i < n; i++) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        in[i] = (uint32_t)(z >> 32);
    }
    double samples[256];
    int reps = t->reps < 1 ? 1 : (t->reps > 256 ? 256 : t->reps);
    volatile uint32_t sink = 0;
    for (int i = -t->warmup; i < reps; i++) {
        double t0 = now();
        uint32_t sum = 0;
        for (uint64_t j = 0; j < n; j++) {
            out[j] = sum;
            sum += in[j];
        }
        double t1 = now();
        sink += out[n - 1];
        if (i >= 0) samples[i] = t1 - t0;
    }
    (void)sink;
    free(in);
    free(out);
    return median(samples, reps);
}

/* ---- shuffles ------------------------------------------------------------------------------- */

#define SHUFFLE_SEED 0x5eed0004u

/* Buffer a := 0, 1, ..., n-1, so that the output is the permutation itself. */
static int fill_iota(bench_dev *d, uint64_t n, char *err, size_t errcap) {
    cl_int st = CL_SUCCESS;
    cl_ulong nn = n;
    SETARG(d->fill_iota, 0, d->a);
    SETARG(d->fill_iota, 1, nn);
    if (st == CL_SUCCESS) st = launch(d, d->fill_iota, n);
    d->filled = 0; /* buffer a no longer holds the copy and gather input */
    if (st != CL_SUCCESS) snprintf(err, errcap, "filling shuffle input: %s", clperm_status_name(st));
    return st == CL_SUCCESS ? 0 : -1;
}

/* Buffer b must hold a permutation of 0..n-1: the host's (ref non-NULL) or any (dart throwing). */
static int verify_permutation(bench_dev *d, uint64_t n, const clperm_shuffle_opts *ref, char *err, size_t errcap) {
    uint64_t *out = malloc((size_t)n * 8), *want = NULL;
    unsigned char *seen = calloc((size_t)n, 1);
    int bad = -1;
    if (ref && n <= (UINT64_C(1) << 22)) want = malloc((size_t)n * 8);
    if (!out || !seen || (ref && n <= (UINT64_C(1) << 22) && !want)) {
        snprintf(err, errcap, "out of host memory to verify");
    } else if (clEnqueueReadBuffer(d->queue, d->b, CL_TRUE, 0, (size_t)n * 8, out, 0, NULL, NULL) != CL_SUCCESS) {
        snprintf(err, errcap, "could not read back the result to verify it");
    } else {
        bad = 0;
        for (uint64_t j = 0; j < n && !bad; j++) {
            if (out[j] >= n || seen[out[j]]) {
                bad = 1;
                snprintf(err, errcap, "not a permutation at item %llu", (unsigned long long)j);
            } else {
                seen[out[j]] = 1;
            }
        }
        /* Up to 2^22 items, also the host's permutation, bit for bit. */
        if (!bad && want && clperm_permutation_host(CLPERM_TYPE_U64, want, n, SHUFFLE_SEED, ref) == CLPERM_SUCCESS &&
            memcmp(want, out, (size_t)n * 8) != 0) {
            bad = 1;
            snprintf(err, errcap, "differs from the host's permutation");
        }
    }
    free(out);
    free(want);
    free(seen);
    return bad;
}

typedef struct shuffle_run {
    uint64_t n;
    clperm_shuffle_opts opts;
} shuffle_run;

static cl_int run_shuffle(bench_dev *d, void *arg) {
    shuffle_run *r = arg;
    return clperm_shuffle(d->ctx, d->a, d->b, r->n, 8, SHUFFLE_SEED, &r->opts, 0, NULL, NULL);
}

double bench_shuffle(bench_dev *d, int fusion, clperm_bijection bijection, uint64_t n, const bench_timing *t,
                     int verify, uint64_t *extra_bytes, char *err, size_t errcap) {
    clperm_status st = clperm_ctx_set_param(d->ctx, CLPERM_PARAM_SHUFFLE_FUSION, fusion);
    if (st != CLPERM_SUCCESS) {
        snprintf(err, errcap, "%s", clperm_status_name(st));
        return -1;
    }
    if (fill_iota(d, n, err, errcap) != 0) return -1;
    shuffle_run r = {n, {bijection, 0}};
    double s = timed(d, run_shuffle, &r, t, err, errcap);
    if (s >= 0 && verify && verify_permutation(d, n, &r.opts, err, errcap) != 0) return -1;
    uint64_t scratch = 0, temp = 0;
    clperm_ctx_counter(d->ctx, CLPERM_COUNTER_SCRATCH_BYTES, &scratch);
    clperm_ctx_counter(d->ctx, CLPERM_COUNTER_TEMP_BYTES, &temp);
    if (extra_bytes) *extra_bytes = scratch + temp;
    return s;
}

/* Working buffers of the baselines: t1, t2, t3 of the given sizes (kept between sizes when they
 * are large enough). */
static int baseline_buffers(bench_dev *d, size_t b1, size_t b2, size_t b3, char *err, size_t errcap) {
    cl_mem *bufs[3] = {&d->t1, &d->t2, &d->t3};
    size_t want[3] = {b1, b2, b3};
    for (int i = 0; i < 3; i++) {
        size_t have = 0;
        if (*bufs[i]) clGetMemObjectInfo(*bufs[i], CL_MEM_SIZE, sizeof have, &have, NULL);
        if (*bufs[i] && have >= want[i]) continue;
        if (*bufs[i]) clReleaseMemObject(*bufs[i]);
        cl_int e = CL_SUCCESS;
        *bufs[i] = want[i] > d->profile.max_alloc_bytes ? NULL
                                                        : clCreateBuffer(d->context, CL_MEM_READ_WRITE, want[i], NULL, &e);
        if (!*bufs[i]) {
            snprintf(err, errcap, "working memory of %zu bytes: %s", want[i], clperm_status_name(e));
            return -1;
        }
    }
    return 0;
}

/* Dart throwing: each item claims a random free slot of a 2n table with compare-and-swap, then
 * the occupied slots are compacted by a scan. */
static cl_int run_dart(bench_dev *d, void *arg) {
    uint64_t n = *(uint64_t *)arg, slots = 2 * n;
    cl_uint empty = 0xffffffffu;
    cl_ulong sl = slots, nn = n, seed = SHUFFLE_SEED;
    cl_int st = clEnqueueFillBuffer(d->queue, d->t1, &empty, sizeof empty, 0, (size_t)slots * 4, 0, NULL, NULL);
    SETARG(d->dart_throw, 0, d->t1);
    SETARG(d->dart_throw, 1, sl);
    SETARG(d->dart_throw, 2, nn);
    SETARG(d->dart_throw, 3, seed);
    SETARG(d->dart_flags, 0, d->t1);
    SETARG(d->dart_flags, 1, d->t2);
    SETARG(d->dart_flags, 2, sl);
    SETARG(d->dart_compact, 0, d->t1);
    SETARG(d->dart_compact, 1, d->t2);
    SETARG(d->dart_compact, 2, d->a);
    SETARG(d->dart_compact, 3, d->b);
    SETARG(d->dart_compact, 4, sl);
    if (st == CL_SUCCESS) st = launch(d, d->dart_throw, n);
    if (st == CL_SUCCESS) st = launch(d, d->dart_flags, slots);
    if (st == CL_SUCCESS) st = clperm_scan_exclusive(d->ctx, CLPERM_TYPE_U32, d->t2, d->t2, slots, 0, NULL, NULL);
    if (st == CL_SUCCESS) st = launch(d, d->dart_compact, slots);
    return st;
}

double bench_dart_throwing(bench_dev *d, uint64_t n, const bench_timing *t, int verify, uint64_t *extra_bytes,
                           char *err, size_t errcap) {
    if (n >= (UINT64_C(1) << 31)) {
        snprintf(err, errcap, "n must be below 2^31");
        return -1;
    }
    if (fill_iota(d, n, err, errcap) != 0 || baseline_buffers(d, (size_t)n * 8, (size_t)n * 8, 1, err, errcap) != 0)
        return -1;
    double s = timed(d, run_dart, &n, t, err, errcap);
    if (s >= 0 && verify && verify_permutation(d, n, NULL, err, errcap) != 0) return -1;
    if (extra_bytes) *extra_bytes = 16 * n;
    return s;
}

/* Sort shuffle: random 64-bit keys, then clperm_sort of (key, item) pairs: the items in key
 * order. */
static cl_int run_sort(bench_dev *d, void *arg) {
    uint64_t n = *(uint64_t *)arg;
    cl_ulong nn = n, seed = SHUFFLE_SEED;
    cl_int st = CL_SUCCESS;
    SETARG(d->sort_keys, 0, d->t1);
    SETARG(d->sort_keys, 1, nn);
    SETARG(d->sort_keys, 2, seed);
    if (st == CL_SUCCESS) st = launch(d, d->sort_keys, n);
    if (st == CL_SUCCESS) st = clEnqueueCopyBuffer(d->queue, d->a, d->b, 0, 0, (size_t)n * 8, 0, NULL, NULL);
    clperm_sort_request req = {CLPERM_KEY_U64, d->t1, CLPERM_TYPE_U64, d->b, n, {0, 0, 0}, d->t2, d->t3};
    if (st == CL_SUCCESS) st = clperm_sort(d->ctx, &req, 0, NULL, NULL);
    return st;
}

double bench_sort_shuffle(bench_dev *d, uint64_t n, const bench_timing *t, int verify, uint64_t *extra_bytes,
                          char *err, size_t errcap) {
    if (fill_iota(d, n, err, errcap) != 0 ||
        baseline_buffers(d, (size_t)n * 8, (size_t)n * 8, (size_t)n * 8, err, errcap) != 0)
        return -1;
    double s = timed(d, run_sort, &n, t, err, errcap);
    if (s >= 0 && verify && verify_permutation(d, n, NULL, err, errcap) != 0) return -1;
    uint64_t scratch = 0;
    clperm_ctx_counter(d->ctx, CLPERM_COUNTER_SCRATCH_BYTES, &scratch);
    if (extra_bytes) *extra_bytes = 24 * n + scratch;
    return s;
}

/* The host's single-thread Fisher-Yates shuffle of n 64-bit items, with xoshiro256** and
 * Lemire's unbiased bounded draws. */
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t xoshiro_next(uint64_t s[4]) {
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* Uniform in [0, bound), bound >= 1 (Lemire 2019). */
static uint64_t bounded(uint64_t s[4], uint64_t bound) {
    for (;;) {
        uint64_t x = xoshiro_next(s);
        unsigned __int128 m = (unsigned __int128)x * bound;
        uint64_t lo = (uint64_t)m;
        if (lo >= bound || lo >= (0 - bound) % bound) return (uint64_t)(m >> 64);
    }
}

double bench_host_fisher_yates(uint64_t n, const bench_timing *t) {
    uint64_t *v = malloc((size_t)n * 8);
    if (!v) return -1;
    for (uint64_t i = 0; i < n; i++) v[i] = i;
    uint64_t s[4] = {0x5eed0005, 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9, 0x94d049bb133111eb};
    double samples[256];
    int reps = t->reps < 1 ? 1 : (t->reps > 256 ? 256 : t->reps);
    for (int i = -t->warmup; i < reps; i++) {
        double t0 = now();
        for (uint64_t k = n - 1; k > 0; k--) {
            uint64_t j = bounded(s, k + 1), x = v[k];
            v[k] = v[j];
            v[j] = x;
        }
        double t1 = now();
        if (i >= 0) samples[i] = t1 - t0;
    }
    free(v);
    return median(samples, reps);
}

/* ---- tile sorts ----------------------------------------------------------------------------- */

typedef struct tile_sort_run {
    uint64_t n, segment;
    clperm_tile_sort algorithm;
    unsigned bits;
} tile_sort_run;

static cl_int run_tile_sort(bench_dev *d, void *arg) {
    tile_sort_run *r = arg;
    if (r->bits)
        return clperm_partition_segments(d->ctx, CLPERM_KEY_U32, d->a, NULL, r->n, r->segment, 0, r->bits,
                                         r->algorithm, 0, NULL, NULL);
    return clperm_sort_segments(d->ctx, CLPERM_KEY_U32, d->a, NULL, r->n, r->segment, r->algorithm, 0, NULL, NULL);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* An unstable partition's check: the same label at every position as the stable `want`, and the
 * same keys in every run of one label (sorted in place, both). */
static int same_label_runs(uint32_t *want, uint32_t *got, uint64_t n, uint64_t segment, unsigned bits) {
    uint32_t mask = (1u << bits) - 1;
    for (uint64_t i = 0; i < n;) {
        uint64_t j = i;
        while (j < n && (j == i || j % segment != 0) && (want[j] & mask) == (want[i] & mask)) {
            if ((got[j] & mask) != (want[i] & mask)) return 0;
            j++;
        }
        qsort(want + i, j - i, 4, cmp_u32);
        qsort(got + i, j - i, 4, cmp_u32);
        if (memcmp(want + i, got + i, (j - i) * 4) != 0) return 0;
        i = j;
    }
    return 1;
}

/* The networks are oblivious: sorting sorted segments again costs what the first sort did, so the
 * runs sort buffer a in place one after another (a partition, stable, is idempotent too). Up to
 * 2^24 keys the result is checked against the host's sort or partition of the input. */
double bench_sort(bench_dev *d, clperm_tile_sort algorithm, uint64_t segment, unsigned bits, uint64_t n,
                  const bench_timing *t, int verify, char *err, size_t errcap) {
    cl_ulong nn = n, seed = 0x5eed0005;
    cl_int e = clSetKernelArg(d->fill_u32, 0, sizeof d->a, &d->a);
    if (e == CL_SUCCESS) e = clSetKernelArg(d->fill_u32, 1, sizeof nn, &nn);
    if (e == CL_SUCCESS) e = clSetKernelArg(d->fill_u32, 2, sizeof seed, &seed);
    if (e == CL_SUCCESS) e = launch(d, d->fill_u32, n);
    d->filled = 0;
    if (e != CL_SUCCESS) {
        snprintf(err, errcap, "filling sort input: %s", clperm_status_name(e));
        return -1;
    }
    uint32_t *want = NULL, *got = NULL;
    verify = verify && n <= (UINT64_C(1) << 24);
    if (verify) {
        want = malloc((size_t)n * 4);
        got = malloc((size_t)n * 4);
        if (!want || !got ||
            clEnqueueReadBuffer(d->queue, d->a, CL_TRUE, 0, (size_t)n * 4, want, 0, NULL, NULL) != CL_SUCCESS ||
            (bits ? clperm_partition_segments_host(CLPERM_KEY_U32, want, NULL, n, segment, 0, bits)
                  : clperm_sort_segments_host(CLPERM_KEY_U32, want, NULL, n, segment)) != CLPERM_SUCCESS) {
            snprintf(err, errcap, "could not prepare the check");
            free(want);
            free(got);
            return -1;
        }
    }
    tile_sort_run r = {n, segment, algorithm, bits};
    double s = timed(d, run_tile_sort, &r, t, err, errcap);
    if (s >= 0 && verify) {
        if (clEnqueueReadBuffer(d->queue, d->a, CL_TRUE, 0, (size_t)n * 4, got, 0, NULL, NULL) != CL_SUCCESS ||
            (algorithm == CLPERM_TILE_PARTITION_COUNTING ? !same_label_runs(want, got, n, segment, bits)
                                                          : memcmp(want, got, (size_t)n * 4) != 0)) {
            snprintf(err, errcap, "differs from the host's %s", bits ? "partition" : "sort");
            s = -1;
        }
    }
    free(want);
    free(got);
    return s;
}

/* ---- generators ------------------------------------------------------------------------------ */

typedef struct rng_run {
    clperm_rng_spec spec;
    uint64_t n;
    cl_kernel kernel; /* in-kernel rows and the Philox peer */
    size_t global, local;
} rng_run;

static cl_int run_rng_fill(bench_dev *d, void *arg) {
    rng_run *r = arg;
    return clperm_rng_fill(d->ctx, &r->spec, CLPERM_RNG_OUT_U32, d->a, r->n, 0x5eed0006, 0, 0, NULL, NULL);
}

static cl_int run_rng_kernel(bench_dev *d, void *arg) {
    rng_run *r = arg;
    return clEnqueueNDRangeKernel(d->queue, r->kernel, 1, NULL, &r->global, &r->local, 0, NULL, NULL);
}

/* Fill of n u32 into buffer a; up to 2^22 numbers the result is checked against the host's. */
double bench_rng_fill(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, const bench_timing *t, int verify,
                      char *err, size_t errcap) {
    rng_run r = {*spec, n, NULL, 0, 0};
    double s = timed(d, run_rng_fill, &r, t, err, errcap);
    d->filled = 0;
    if (s >= 0 && verify && n <= (UINT64_C(1) << 22)) {
        uint32_t *want = malloc((size_t)n * 4), *got = malloc((size_t)n * 4);
        if (!want || !got || clperm_rng_fill_host(spec, CLPERM_RNG_OUT_U32, want, n, 0x5eed0006, 0) != CLPERM_SUCCESS ||
            clEnqueueReadBuffer(d->queue, d->a, CL_TRUE, 0, (size_t)n * 4, got, 0, NULL, NULL) != CL_SUCCESS ||
            memcmp(want, got, (size_t)n * 4) != 0) {
            snprintf(err, errcap, "differs from the host's fill");
            s = -1;
        }
        free(want);
        free(got);
    }
    return s;
}

/* Numbers drawn inside a kernel and consumed in registers: each work-item draws `draws` numbers
 * and writes their xor, so the figure is the generator's own rate. With spec NULL the peer:
 * Random123's Philox4x32-10, four numbers per call (when the build found Random123). */
#define RNG_DRAWS 256
static const char *rng_inkernel_src =
    "__kernel void bench_rng_inkernel(__global uint *out, ulong seed) {\n"
    "    __local uint words[BENCH_WG];\n"
    "    clperm_rng r;\n"
    "    clperm_rng_init(&r, words, seed, get_global_id(0) / CLPERM_RNG_K);\n"
    "    uint acc = 0;\n"
    "    for (int i = 0; i < BENCH_DRAWS; i++) acc ^= clperm_rng_u32(&r);\n"
    "    out[get_global_id(0)] = acc;\n"
    "}\n";
static const char *philox_src =
    "#include <Random123/philox.h>\n"
    "__kernel void bench_philox_fill(__global uint4 *out, ulong n4, ulong seed) {\n"
    "    ulong i = get_global_id(0);\n"
    "    if (i >= n4) return;\n"
    "    philox4x32_key_t k = {{(uint)seed, (uint)(seed >> 32)}};\n"
    "    philox4x32_ctr_t c = {{(uint)i, (uint)(i >> 32), 0, 0}};\n"
    "    philox4x32_ctr_t v = philox4x32(c, k);\n"
    "    out[i] = (uint4)(v.v[0], v.v[1], v.v[2], v.v[3]);\n"
    "}\n"
    "__kernel void bench_rng_inkernel(__global uint *out, ulong seed) {\n"
    "    ulong g = get_global_id(0);\n"
    "    philox4x32_key_t k = {{(uint)seed, (uint)(seed >> 32)}};\n"
    "    philox4x32_ctr_t c = {{(uint)g, (uint)(g >> 32), 0, 0}};\n"
    "    uint acc = 0;\n"
    "    for (int i = 0; i < BENCH_DRAWS / 4; i++) {\n"
    "        c.v[2] = i;\n"
    "        philox4x32_ctr_t v = philox4x32(c, k);\n"
    "        acc ^= v.v[0] ^ v.v[1] ^ v.v[2] ^ v.v[3];\n"
    "    }\n"
    "    out[g] = acc;\n"
    "}\n";

static cl_program rng_program(bench_dev *d, const clperm_rng_spec *spec, size_t wg, char *err, size_t errcap) {
    char opts[512] = "";
    const char *texts[2];
    size_t lens[2];
    int count = 0;
    if (spec) {
        if (clperm_rng_build_options(d->ctx, spec, opts, sizeof opts) != CLPERM_SUCCESS) {
            snprintf(err, errcap, "no generator %d k=%u", spec->family, spec->k);
            return NULL;
        }
        texts[count] = clperm_rng_device_source(&lens[count]);
        count++;
        texts[count] = rng_inkernel_src;
    } else {
#ifdef CLPERM_BENCH_RANDOM123
        snprintf(opts, sizeof opts, "-I%s", CLPERM_BENCH_RANDOM123);
        texts[count] = philox_src;
#else
        (void)philox_src;
        snprintf(err, errcap, "built without Random123 (librandom123-dev)");
        return NULL;
#endif
    }
    lens[count] = strlen(texts[count]);
    count++;
    size_t used = strlen(opts);
    snprintf(opts + used, sizeof opts - used, " -DBENCH_WG=%zu -DBENCH_DRAWS=%d", wg, RNG_DRAWS);
    cl_int e;
    cl_program prog = clCreateProgramWithSource(d->context, (cl_uint)count, texts, lens, &e);
    cl_device_id dev = clperm_ctx_cl_device(d->ctx);
    if (prog) e = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
    if (e != CL_SUCCESS) {
        snprintf(err, errcap, "building the in-kernel benchmark: %s", clperm_status_name(e));
        if (prog) clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

/* Times kernel `name` of prog (released here) on `items` work-items in groups of wg, with buffer a
 * and then the ulong arguments args[0 .. nargs). */
static double time_kernel(bench_dev *d, cl_program prog, const char *name, const cl_ulong *args, int nargs,
                          uint64_t items, size_t wg, const bench_timing *t, char *err, size_t errcap) {
    cl_int e;
    cl_kernel k = clCreateKernel(prog, name, &e);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, 0, sizeof d->a, &d->a);
    for (int i = 0; i < nargs && e == CL_SUCCESS; i++) e = clSetKernelArg(k, (cl_uint)i + 1, sizeof args[i], &args[i]);
    double s = -1;
    if (e == CL_SUCCESS) {
        rng_run r = {{0, 0}, 0, k, (size_t)((items + wg - 1) / wg * wg), wg};
        s = timed(d, run_rng_kernel, &r, t, err, errcap);
    } else {
        snprintf(err, errcap, "%s", clperm_status_name(e));
    }
    d->filled = 0;
    if (k) clReleaseKernel(k);
    clReleaseProgram(prog);
    return s;
}

/* In-kernel rate: n numbers drawn (n / RNG_DRAWS work-items). spec NULL: the Philox peer. */
double bench_rng_inkernel(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, const bench_timing *t, char *err,
                          size_t errcap) {
    size_t wg = 256;
    if (spec && wg % spec->k) wg = spec->k;
    cl_program prog = rng_program(d, spec, wg, err, errcap);
    if (!prog) return -1;
    cl_ulong seed = 0x5eed0007;
    return time_kernel(d, prog, "bench_rng_inkernel", &seed, 1, n / RNG_DRAWS, wg, t, err, errcap);
}

/* The Philox peer's fill of n u32 (n a multiple of 4 rounded up). */
double bench_philox_fill(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap) {
    cl_program prog = rng_program(d, NULL, 256, err, errcap);
    if (!prog) return -1;
    cl_ulong args[2] = {(n + 3) / 4, 0x5eed0008};
    return time_kernel(d, prog, "bench_philox_fill", args, 2, args[0], 256, t, err, errcap);
}

/* The host's single-thread xoshiro256** filling n u32, both halves of each 64-bit output. */
double bench_host_xoshiro(uint64_t n, const bench_timing *t) {
    uint32_t *out = malloc((size_t)n * 4 + 4);
    if (!out) return -1;
    double samples[256];
    int reps = t->reps < 1 ? 1 : (t->reps > 256 ? 256 : t->reps);
    uint64_t s[4] = {1, 2, 3, 4};
    for (int i = -t->warmup; i < reps; i++) {
        double t0 = now();
        for (uint64_t j = 0; j < n; j += 2) {
            uint64_t v = xoshiro_next(s);
            out[j] = (uint32_t)v;
            out[j + 1] = (uint32_t)(v >> 32);
        }
        double t1 = now();
        if (i >= 0) samples[i] = t1 - t0;
    }
    volatile uint32_t sink = out[n / 2];
    (void)sink;
    free(out);
    return median(samples, reps);
}

/* ---- shared with the other files of the harness ---------------------------------------------- */

double bench_now(void) { return now(); }

double bench_median(double *v, int n) { return median(v, n); }

/* As timed, with setup run before each run, outside the time (restoring an input sorted in place). */
double bench_timed(bench_dev *d, bench_fn setup, bench_fn run, void *arg, const bench_timing *t, char *err,
                   size_t errcap) {
    double samples[256];
    int reps = t->reps < 1 ? 1 : (t->reps > 256 ? 256 : t->reps);
    for (int i = -t->warmup; i < reps; i++) {
        cl_int st = setup ? setup(d, arg) : CL_SUCCESS;
        if (st == CL_SUCCESS) st = clFinish(d->queue);
        double t0 = now();
        if (st == CL_SUCCESS) st = run(d, arg);
        if (st == CL_SUCCESS) st = clFinish(d->queue);
        double t1 = now();
        if (st != CL_SUCCESS) {
            snprintf(err, errcap, "%s", clperm_status_name(st));
            return -1;
        }
        if (i >= 0) samples[i] = t1 - t0;
    }
    return median(samples, reps);
}
