/* Other ways to do what clperm does, on the same device: two shuffles (dart throwing, and a sort
 * by random keys) and the generators' peer, Random123's Philox4x32-10; and the sorts' peer,
 * Boost.Compute's sort, a program of its own. Their kernels are built on first use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#include "clperm_bench_kernels.h"

#ifdef CLPERM_BENCH_RANDOM123
#include <Random123/philox.h>
#endif

#define SHUFFLE_SEED 0x5eed0004u
#define PHILOX_SEED 0x5eed0008u
#define INKERNEL_SEED 0x5eed0007u

struct bench_baselines {
    cl_program program;
    cl_kernel dart_throw, dart_flags, dart_compact, sort_keys;
    cl_mem t1, t2, t3; /* working memory */
};

void bench_baselines_free(bench_baselines *b) {
    if (!b) return;
    cl_kernel ks[] = {b->dart_throw, b->dart_flags, b->dart_compact, b->sort_keys};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i]) clReleaseKernel(ks[i]);
    cl_mem bufs[] = {b->t1, b->t2, b->t3};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    if (b->program) clReleaseProgram(b->program);
    free(b);
}

/* The baselines' kernels, built once per device, and working buffers of at least the given sizes. */
static bench_baselines *baselines(bench_dev *d, size_t b1, size_t b2, size_t b3, char *err, size_t errcap) {
    bench_baselines *b = d->baselines;
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b) {
            snprintf(err, errcap, "out of memory");
            return NULL;
        }
        const char *texts[2] = {clperm__cl_kernels_mix_h, clperm__cl_kernels_baselines_cl};
        size_t lengths[2] = {clperm__cl_kernels_mix_h_size, clperm__cl_kernels_baselines_cl_size};
        b->program = bench_build(d, texts, lengths, 2, "", err, errcap);
        static const char *const names[] = {"clperm_bench_dart_throw", "clperm_bench_dart_flags",
                                            "clperm_bench_dart_compact", "clperm_bench_sort_keys"};
        cl_kernel *kernels[] = {&b->dart_throw, &b->dart_flags, &b->dart_compact, &b->sort_keys};
        cl_int e = b->program ? CL_SUCCESS : CL_BUILD_PROGRAM_FAILURE;
        for (size_t i = 0; i < sizeof names / sizeof names[0] && e == CL_SUCCESS; i++)
            *kernels[i] = clCreateKernel(b->program, names[i], &e);
        if (e != CL_SUCCESS) {
            if (b->program) snprintf(err, errcap, "baseline kernels: %s", clperm_status_name(e));
            bench_baselines_free(b);
            return NULL;
        }
        d->baselines = b;
    }
    cl_mem *bufs[3] = {&b->t1, &b->t2, &b->t3};
    size_t want[3] = {b1, b2, b3};
    for (int i = 0; i < 3; i++) {
        size_t have = 0;
        if (*bufs[i]) clGetMemObjectInfo(*bufs[i], CL_MEM_SIZE, sizeof have, &have, NULL);
        if (*bufs[i] && have >= want[i]) continue;
        if (*bufs[i]) clReleaseMemObject(*bufs[i]);
        cl_int e = CL_SUCCESS;
        *bufs[i] = want[i] > d->profile.max_alloc_bytes
                       ? NULL
                       : clCreateBuffer(d->context, CL_MEM_READ_WRITE, want[i], NULL, &e);
        if (!*bufs[i]) {
            snprintf(err, errcap, "working memory of %zu bytes: %s", want[i], clperm_status_name(e));
            return NULL;
        }
    }
    return b;
}

typedef struct baseline_run {
    bench_dev *d;
    bench_baselines *b;
    uint64_t n;
} baseline_run;

/* ---- dart throwing: each item claims a random free slot of a 2n table with compare-and-swap,
 * then the occupied slots are compacted by a scan ---------------------------------------------- */

static cl_int run_dart(void *arg) {
    baseline_run *r = arg;
    bench_dev *d = r->d;
    bench_baselines *b = r->b;
    uint64_t slots = 2 * r->n;
    cl_uint empty = 0xffffffffu;
    cl_ulong sl = slots, nn = r->n, seed = SHUFFLE_SEED;
    cl_int st = clEnqueueFillBuffer(d->queue, b->t1, &empty, sizeof empty, 0, (size_t)slots * 4, 0, NULL, NULL);
    BENCH_ARG(st, b->dart_throw, 0, b->t1);
    BENCH_ARG(st, b->dart_throw, 1, sl);
    BENCH_ARG(st, b->dart_throw, 2, nn);
    BENCH_ARG(st, b->dart_throw, 3, seed);
    BENCH_ARG(st, b->dart_flags, 0, b->t1);
    BENCH_ARG(st, b->dart_flags, 1, b->t2);
    BENCH_ARG(st, b->dart_flags, 2, sl);
    BENCH_ARG(st, b->dart_compact, 0, b->t1);
    BENCH_ARG(st, b->dart_compact, 1, b->t2);
    BENCH_ARG(st, b->dart_compact, 2, d->a);
    BENCH_ARG(st, b->dart_compact, 3, d->b);
    BENCH_ARG(st, b->dart_compact, 4, sl);
    if (st == CL_SUCCESS) st = bench_launch(d, b->dart_throw, r->n);
    if (st == CL_SUCCESS) st = bench_launch(d, b->dart_flags, slots);
    if (st == CL_SUCCESS) st = clperm_scan_exclusive(d->ctx, CLPERM_TYPE_U32, b->t2, b->t2, slots, 0, NULL, NULL);
    if (st == CL_SUCCESS) st = bench_launch(d, b->dart_compact, slots);
    return st;
}

double bench_dart_throwing(bench_dev *d, uint64_t n, const bench_timing *t, bench_verify verify, uint64_t *extra_bytes,
                           char *err, size_t errcap) {
    if (n >= (UINT64_C(1) << 31)) {
        snprintf(err, errcap, "n must be below 2^31");
        return -1;
    }
    bench_baselines *b = NULL;
    if (bench_fill_iota(d, n, err, errcap) != 0 || !(b = baselines(d, (size_t)n * 8, (size_t)n * 8, 1, err, errcap)))
        return -1;
    baseline_run r = {d, b, n};
    double s = bench_time_device(d->queue, run_dart, &r, t, err, errcap);
    if (s >= 0 && verify && bench_check_permutation(d, n, NULL, 0, verify, err, errcap) != 0) return -1;
    if (extra_bytes) *extra_bytes = 16 * n;
    return s;
}

/* ---- sort shuffle: random 64-bit keys, then clperm_sort of (key, item) pairs: the items in key
 * order ------------------------------------------------------------------------------------- */

static cl_int run_sort(void *arg) {
    baseline_run *r = arg;
    bench_dev *d = r->d;
    bench_baselines *b = r->b;
    cl_ulong nn = r->n, seed = SHUFFLE_SEED;
    cl_int st = CL_SUCCESS;
    BENCH_ARG(st, b->sort_keys, 0, b->t1);
    BENCH_ARG(st, b->sort_keys, 1, nn);
    BENCH_ARG(st, b->sort_keys, 2, seed);
    if (st == CL_SUCCESS) st = bench_launch(d, b->sort_keys, r->n);
    if (st == CL_SUCCESS) st = clEnqueueCopyBuffer(d->queue, d->a, d->b, 0, 0, (size_t)r->n * 8, 0, NULL, NULL);
    clperm_sort_request req = {CLPERM_KEY_U64, b->t1, CLPERM_TYPE_U64, d->b, r->n, {0, 0, 0}, b->t2, b->t3, 0};
    if (st == CL_SUCCESS) st = clperm_sort(d->ctx, &req, 0, NULL, NULL);
    return st;
}

double bench_sort_shuffle(bench_dev *d, uint64_t n, const bench_timing *t, bench_verify verify, uint64_t *extra_bytes,
                          char *err, size_t errcap) {
    bench_baselines *b = NULL;
    if (bench_fill_iota(d, n, err, errcap) != 0 ||
        !(b = baselines(d, (size_t)n * 8, (size_t)n * 8, (size_t)n * 8, err, errcap)))
        return -1;
    baseline_run r = {d, b, n};
    double s = bench_time_device(d->queue, run_sort, &r, t, err, errcap);
    if (s >= 0 && verify && bench_check_permutation(d, n, NULL, 0, verify, err, errcap) != 0) return -1;
    uint64_t scratch = 0;
    clperm_ctx_counter(d->ctx, CLPERM_COUNTER_SCRATCH_BYTES, &scratch);
    if (extra_bytes) *extra_bytes = 24 * n + scratch;
    return s;
}

/* ---- Random123's Philox4x32-10 -------------------------------------------------------------- */

int bench_have_philox(void) {
#ifdef CLPERM_BENCH_RANDOM123
    return 1;
#else
    return 0;
#endif
}

static cl_program philox_program(bench_dev *d, char *err, size_t errcap) {
#ifdef CLPERM_BENCH_RANDOM123
    char opts[512];
    snprintf(opts, sizeof opts, "-I%s -DCLPERM_BENCH_DRAWS=%d", CLPERM_BENCH_RANDOM123, BENCH_RNG_DRAWS);
    const char *text = clperm__cl_kernels_philox_cl;
    size_t length = clperm__cl_kernels_philox_cl_size;
    return bench_build(d, &text, &length, 1, opts, err, errcap);
#else
    (void)d;
    snprintf(err, errcap, "built without Random123 (librandom123-dev)");
    return NULL;
#endif
}

#ifdef CLPERM_BENCH_RANDOM123
/* The fill's first n numbers against the same generator on the host. */
static int check_philox(bench_dev *d, uint64_t n, uint64_t seed, char *err, size_t errcap) {
    uint32_t *got = malloc((size_t)(n + 3) / 4 * 16);
    int bad = !got || clEnqueueReadBuffer(d->queue, d->a, CL_TRUE, 0, (size_t)n * 4, got, 0, NULL, NULL) != CL_SUCCESS;
    philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    for (uint64_t i = 0; !bad && i < (n + 3) / 4; i++) {
        philox4x32_ctr_t c = {{(uint32_t)i, (uint32_t)(i >> 32), 0, 0}};
        philox4x32_ctr_t v = philox4x32(c, k);
        for (uint64_t j = 0; j < 4 && 4 * i + j < n; j++) bad |= got[4 * i + j] != v.v[j];
    }
    if (bad) snprintf(err, errcap, "differs from Random123's Philox4x32-10 on the host");
    free(got);
    return bad;
}
#endif

/* A fill of n u32 into buffer a (n rounded up to a multiple of 4), checked against the host's
 * up to the size `verify` covers. */
double bench_philox_fill(bench_dev *d, uint64_t n, const bench_timing *t, bench_verify verify, char *err,
                         size_t errcap) {
    cl_program prog = philox_program(d, err, errcap);
    if (!prog) return -1;
    cl_ulong args[2] = {(n + 3) / 4, PHILOX_SEED};
    double s = bench_time_kernel(d, prog, "clperm_bench_philox_fill", args, 2, args[0], 256, t, err, errcap);
#ifdef CLPERM_BENCH_RANDOM123
    if (s >= 0 && bench_check_covers(verify, BENCH_KIND_PHILOX_FILL, n) && check_philox(d, n, PHILOX_SEED, err, errcap))
        s = -1;
#else
    (void)verify;
#endif
    return s;
}

/* n numbers drawn by n / BENCH_RNG_DRAWS work-items, as bench_rng_inkernel. */
double bench_philox_inkernel(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap) {
    cl_program prog = philox_program(d, err, errcap);
    if (!prog) return -1;
    cl_ulong seed = INKERNEL_SEED;
    return bench_time_kernel(d, prog, "clperm_bench_philox_inkernel", &seed, 1, n / BENCH_RNG_DRAWS, 256, t, err,
                             errcap);
}

/* ---- Boost.Compute's peers ----------------------------------------------------------------- */

int bench_have_boost_compute(void) {
#ifdef CLPERM_BENCH_BOOST
    return 1;
#else
    return 0;
#endif
}

#ifdef CLPERM_BENCH_BOOST
int bench_bc_measure(cl_context context, cl_device_id device, const char *op, uint64_t n, int reps, int warmup,
                     double *seconds, char *err, size_t errcap);
#endif

double bench_boost_compute(bench_dev *d, const char *op, uint64_t n, const bench_timing *t, char *err,
                           size_t errcap) {
#ifdef CLPERM_BENCH_BOOST
    double s = -1;
    const char *what = !strcmp(op, "scan_exclusive") ? "scan" : op;
    return bench_bc_measure(d->context, d->device, what, n, t->reps, t->warmup, &s, err, errcap) == 0 ? s : -1;
#else
    (void)d, (void)op, (void)n, (void)t;
    snprintf(err, errcap, "built without Boost.Compute (libboost-dev and a C++ compiler)");
    return -1;
#endif
}
