/* The measured operations of `clperm bench`: device copy and gather bounds, clperm's primitives,
 * and host references. Each is timed as the median wall-clock time of repeated runs after
 * warm-up, every run ended by clFinish so that it covers the whole operation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

extern const char clperm__cl_bench_cl[];
extern const size_t clperm__cl_bench_cl_size;

struct bench_dev {
    clperm_ctx *ctx;
    clperm_profile profile;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel fill_u64, fill_u32, fill_index, copy, gather;
    cl_mem a, b, idx;
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

typedef cl_int (*run_fn)(bench_dev *d, void *arg);

/* Median time of fn over t->reps runs after t->warmup; negative on error. */
static double timed(bench_dev *d, run_fn fn, void *arg, const bench_timing *t, char *err, size_t errcap) {
    double samples[256];
    int reps = t->reps < 1 ? 1 : (t->reps > 256 ? 256 : t->reps);
    for (int i = -t->warmup; i < reps; i++) {
        cl_int st = clFinish(d->queue);
        double t0 = now();
        if (st == CL_SUCCESS) st = fn(d, arg);
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
    if (e != CL_SUCCESS) {
        snprintf(err, errcap, "benchmark kernels: %s", clperm_status_name(e));
        bench_dev_close(d);
        return NULL;
    }
    return d;
}

static void release_buffers(bench_dev *d) {
    if (d->a) clReleaseMemObject(d->a);
    if (d->b) clReleaseMemObject(d->b);
    if (d->idx) clReleaseMemObject(d->idx);
    d->a = d->b = d->idx = NULL;
    d->cap = d->filled = 0;
}

void bench_dev_close(bench_dev *d) {
    if (!d) return;
    release_buffers(d);
    cl_kernel ks[] = {d->fill_u64, d->fill_u32, d->fill_index, d->copy, d->gather};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i]) clReleaseKernel(ks[i]);
    if (d->program) clReleaseProgram(d->program);
    clperm_ctx_free(d->ctx);
    free(d);
}

const clperm_profile *bench_dev_profile(const bench_dev *d) { return &d->profile; }

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
