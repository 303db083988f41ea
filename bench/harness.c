/* An OpenCL device opened for benchmarking: clperm's context on it, the harness's own kernels
 * (input fills, copy and gather) and the buffers every measurement works in. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#include "clperm_bench_kernels.h"

typedef struct launch {
    cl_command_queue queue;
    cl_kernel k;
    size_t global, local;
} launch;

static cl_int run_launch(void *arg) {
    launch *l = arg;
    if (l->global == 0) return CL_SUCCESS;
    return clEnqueueNDRangeKernel(l->queue, l->k, 1, NULL, &l->global, &l->local, 0, NULL, NULL);
}

cl_int bench_launch(bench_dev *d, cl_kernel k, uint64_t n) {
    launch l = {d->queue, k, (size_t)((n + 255) / 256 * 256), 256};
    return run_launch(&l);
}

double bench_time_launch(bench_dev *d, cl_kernel k, uint64_t n, size_t wg, const bench_timing *t, char *err,
                         size_t errcap) {
    launch l = {d->queue, k, (size_t)((n + wg - 1) / wg * wg), wg};
    if (l.global == 0) {
        snprintf(err, errcap, "no work-items to time");
        return -1;
    }
    return bench_time_device(d->queue, run_launch, &l, t, err, errcap);
}

cl_program bench_build(bench_dev *d, const char *const *texts, const size_t *lengths, int count, const char *options,
                       char *err, size_t errcap) {
    cl_int e;
    /* The compiler's warnings (Random123's headers give some) only under CLPERM_DEBUG, with the
     * build log. */
    const char *env = getenv("CLPERM_DEBUG");
    int debug = env && *env && strcmp(env, "0") != 0;
    char opts[2048];
    snprintf(opts, sizeof opts, "%s%s", debug ? "" : "-w ", options);
    cl_program prog = clCreateProgramWithSource(d->context, (cl_uint)count, (const char **)texts, lengths, &e);
    if (prog) e = clBuildProgram(prog, 1, &d->device, opts, NULL, NULL);
    if (prog && debug) {
        char log[8192] = "";
        if (clGetProgramBuildInfo(prog, d->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL) == CL_SUCCESS &&
            log[strspn(log, " \n")])
            fprintf(stderr, "clperm bench: build log of the benchmark's kernels (%s):\n%s\n", opts, log);
    }
    if (e != CL_SUCCESS) {
        snprintf(err, errcap, "building the benchmark's kernels: %s", clperm_status_name(e));
        if (prog) clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

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
    d->device = clperm_ctx_cl_device(d->ctx);
    const char *texts[2] = {clperm__cl_kernels_mix_h, clperm__cl_kernels_harness_cl};
    size_t lengths[2] = {clperm__cl_kernels_mix_h_size, clperm__cl_kernels_harness_cl_size};
    d->program = bench_build(d, texts, lengths, 2, "", err, errcap);
    if (!d->program) {
        bench_dev_close(d);
        return NULL;
    }
    static const char *const names[] = {"clperm_bench_fill_u64",   "clperm_bench_fill_u32",  "clperm_bench_fill_index",
                                        "clperm_bench_fill_iota",  "clperm_bench_copy_u64",  "clperm_bench_gather_u64",
                                        "clperm_bench_gather_u32", "clperm_bench_gather_16"};
    cl_kernel *kernels[] = {&d->fill_u64, &d->fill_u32, &d->fill_index, &d->fill_iota,
                            &d->copy,     &d->gather,   &d->gather_u32, &d->gather_16};
    cl_int e = CL_SUCCESS;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && e == CL_SUCCESS; i++)
        *kernels[i] = clCreateKernel(d->program, names[i], &e);
    if (e != CL_SUCCESS) {
        snprintf(err, errcap, "benchmark kernels: %s", clperm_status_name(e));
        bench_dev_close(d);
        return NULL;
    }
    return d;
}

static void release_buffers(bench_dev *d) {
    cl_mem *bufs[] = {&d->a, &d->b, &d->idx};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        if (*bufs[i]) clReleaseMemObject(*bufs[i]);
        *bufs[i] = NULL;
    }
    d->cap = d->filled = 0;
}

void bench_dev_close(bench_dev *d) {
    if (!d) return;
    bench_baselines_free(d->baselines);
    bench_permute_free(d->permute);
    release_buffers(d);
    cl_kernel ks[] = {d->fill_u64, d->fill_u32, d->fill_index, d->fill_iota, d->copy, d->gather, d->gather_u32, d->gather_16};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i]) clReleaseKernel(ks[i]);
    if (d->program) clReleaseProgram(d->program);
    clperm_ctx_free(d->ctx);
    free(d);
}

int bench_dev_is_cpu(const bench_dev *d) { return (d->profile.device_type & CL_DEVICE_TYPE_CPU) != 0; }

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
        BENCH_ARG(st, d->fill_u64, 0, d->a);
        BENCH_ARG(st, d->fill_u64, 1, nn);
        BENCH_ARG(st, d->fill_u64, 2, seed);
        BENCH_ARG(st, d->fill_index, 0, d->idx);
        BENCH_ARG(st, d->fill_index, 1, nn);
        BENCH_ARG(st, d->fill_index, 2, seed);
        if (st == CL_SUCCESS) st = bench_launch(d, d->fill_u64, n);
        if (st == CL_SUCCESS) st = bench_launch(d, d->fill_index, n);
        if (st == CL_SUCCESS) st = clFinish(d->queue);
        if (st != CL_SUCCESS) {
            snprintf(err, errcap, "filling inputs: %s", clperm_status_name(st));
            return -1;
        }
        d->filled = n;
    }
    return 0;
}

int bench_fill_random(bench_dev *d, clperm_type type, uint64_t n, uint64_t seed, char *err, size_t errcap) {
    cl_int st = CL_SUCCESS;
    cl_ulong nn = n, sd = seed;
    cl_kernel k = type == CLPERM_TYPE_U32 ? d->fill_u32 : d->fill_u64;
    BENCH_ARG(st, k, 0, d->a);
    BENCH_ARG(st, k, 1, nn);
    BENCH_ARG(st, k, 2, sd);
    if (st == CL_SUCCESS) st = bench_launch(d, k, n);
    d->filled = 0; /* buffer a no longer holds the bounds' input */
    if (st != CL_SUCCESS) snprintf(err, errcap, "filling the input: %s", clperm_status_name(st));
    return st == CL_SUCCESS ? 0 : -1;
}

int bench_fill_iota(bench_dev *d, uint64_t n, char *err, size_t errcap) {
    cl_int st = CL_SUCCESS;
    cl_ulong nn = n;
    BENCH_ARG(st, d->fill_iota, 0, d->a);
    BENCH_ARG(st, d->fill_iota, 1, nn);
    if (st == CL_SUCCESS) st = bench_launch(d, d->fill_iota, n);
    d->filled = 0;
    if (st != CL_SUCCESS) snprintf(err, errcap, "filling the shuffle's input: %s", clperm_status_name(st));
    return st == CL_SUCCESS ? 0 : -1;
}
