/* clperm's operations as the bench runs them: the input prepared, the call timed (median of
 * repeated runs, bench_time_device), the result checked against the host's (check.c). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#include "clperm_bench_kernels.h"

#define SCAN_SEED 0x5eed0002u
#define SHUFFLE_SEED 0x5eed0004u
#define TILE_SEED 0x5eed0005u
#define RNG_SEED 0x5eed0006u
#define INKERNEL_SEED 0x5eed0007u

static double set_param(bench_dev *d, clperm_param param, int value, char *err, size_t errcap) {
    clperm_status st = clperm_ctx_set_param(d->ctx, param, value);
    if (st != CLPERM_SUCCESS) snprintf(err, errcap, "%s", clperm_status_name(st));
    return st == CLPERM_SUCCESS ? 0 : -1;
}

/* ---- scans ---------------------------------------------------------------------------------- */

typedef struct scan_run {
    bench_dev *d;
    const char *op;
    clperm_type type;
    uint64_t n;
} scan_run;

static cl_int run_scan(void *arg) {
    scan_run *r = arg;
    bench_dev *d = r->d;
    if (strcmp(r->op, "reduce_sum") == 0) return clperm_reduce_sum(d->ctx, r->type, d->a, r->n, d->b, 0, NULL, NULL);
    if (strcmp(r->op, "scan_inclusive") == 0)
        return clperm_scan_inclusive(d->ctx, r->type, d->a, d->b, r->n, 0, NULL, NULL);
    return clperm_scan_exclusive(d->ctx, r->type, d->a, d->b, r->n, 0, NULL, NULL);
}

double bench_scan(bench_dev *d, const char *op, clperm_type type, int algorithm, uint64_t n, const bench_timing *t,
                  bench_verify verify, uint64_t *extra_bytes, char *err, size_t errcap) {
    if (set_param(d, CLPERM_PARAM_SCAN_ALGORITHM, algorithm, err, errcap) != 0) return -1;
    /* Scan inputs are random items of the type: the first n items of buffer a. */
    if (bench_fill_random(d, type, n, SCAN_SEED, err, errcap) != 0) return -1;
    scan_run r = {d, op, type, n};
    double s = bench_time_device(d->queue, run_scan, &r, t, err, errcap);
    if (s >= 0 && verify && bench_check_scan(d, op, type, n, err, errcap) != 0) return -1;
    if (extra_bytes && clperm_ctx_counter(d->ctx, CLPERM_COUNTER_SCRATCH_BYTES, extra_bytes) != CLPERM_SUCCESS)
        *extra_bytes = 0;
    return s;
}

/* ---- shuffles ------------------------------------------------------------------------------- */

typedef struct shuffle_run {
    bench_dev *d;
    uint64_t n;
    clperm_shuffle_opts opts;
} shuffle_run;

static cl_int run_shuffle(void *arg) {
    shuffle_run *r = arg;
    return clperm_shuffle(r->d->ctx, r->d->a, r->d->b, r->n, 8, SHUFFLE_SEED, &r->opts, 0, NULL, NULL);
}

/* The input is 0, 1, ..., n-1, so that the output is the permutation itself. */
double bench_shuffle(bench_dev *d, int fusion, clperm_bijection bijection, uint64_t n, const bench_timing *t,
                     bench_verify verify, uint64_t *extra_bytes, char *err, size_t errcap) {
    if (set_param(d, CLPERM_PARAM_SHUFFLE_FUSION, fusion, err, errcap) != 0) return -1;
    if (bench_fill_iota(d, n, err, errcap) != 0) return -1;
    shuffle_run r = {d, n, {bijection, 0, 0}};
    double s = bench_time_device(d->queue, run_shuffle, &r, t, err, errcap);
    if (s >= 0 && verify && bench_check_permutation(d, n, &r.opts, SHUFFLE_SEED, verify, err, errcap) != 0) return -1;
    uint64_t scratch = 0, temp = 0;
    clperm_ctx_counter(d->ctx, CLPERM_COUNTER_SCRATCH_BYTES, &scratch);
    clperm_ctx_counter(d->ctx, CLPERM_COUNTER_TEMP_BYTES, &temp);
    if (extra_bytes) *extra_bytes = scratch + temp;
    return s;
}

typedef struct items_run {
    bench_dev *d;
    cl_mem src, dst;
    uint64_t n;
    size_t es;
    clperm_shuffle_opts opts;
} items_run;

static cl_int run_shuffle_items(void *arg) {
    items_run *r = arg;
    return clperm_shuffle(r->d->ctx, r->src, r->dst, r->n, r->es, SHUFFLE_SEED, &r->opts, 0, NULL, NULL);
}

/* The host's shuffle of the input bytes, compared with the device's. */
static int check_items(const items_run *r, char *err, size_t errcap) {
    size_t bytes = (size_t)r->n * r->es;
    unsigned char *in = malloc(bytes + 1), *out = malloc(bytes + 1), *want = malloc(bytes + 1);
    int bad = -1;
    if (!in || !out || !want) {
        snprintf(err, errcap, "out of host memory to check the result");
    } else if (clEnqueueReadBuffer(r->d->queue, r->src, CL_TRUE, 0, bytes, in, 0, NULL, NULL) != CL_SUCCESS ||
               clEnqueueReadBuffer(r->d->queue, r->dst, CL_TRUE, 0, bytes, out, 0, NULL, NULL) != CL_SUCCESS) {
        snprintf(err, errcap, "could not read back the result to check it");
    } else if (clperm_shuffle_host(in, want, r->n, r->es, SHUFFLE_SEED, &r->opts) != CLPERM_SUCCESS) {
        snprintf(err, errcap, "the host's shuffle failed");
    } else {
        bad = memcmp(want, out, bytes) != 0;
        if (bad) snprintf(err, errcap, "differs from the host's shuffle");
    }
    free(in);
    free(out);
    free(want);
    return bad;
}

double bench_shuffle_items(bench_dev *d, int algorithm, size_t es, uint64_t n, const bench_timing *t,
                           bench_verify verify, uint64_t *extra_bytes, char *err, size_t errcap) {
    if (set_param(d, CLPERM_PARAM_SHUFFLE_FUSION, 0, err, errcap) != 0) return -1;
    items_run r = {d, d->a, d->b, n, es, {CLPERM_BIJECTION_FEISTEL, 0, (clperm_shuffle_algorithm)algorithm}};
    cl_int e = CL_SUCCESS;
    if (es > 8) {
        /* Buffers a and b hold n 8-byte items: 16-byte ones get their own, a's bytes twice over. */
        r.src = clCreateBuffer(d->context, CL_MEM_READ_WRITE, (size_t)n * es, NULL, &e);
        if (r.src) r.dst = clCreateBuffer(d->context, CL_MEM_READ_WRITE, (size_t)n * es, NULL, &e);
        for (size_t h = 0; h < 2 && e == CL_SUCCESS; h++)
            e = clEnqueueCopyBuffer(d->queue, d->a, r.src, 0, h * n * 8, (size_t)n * 8, 0, NULL, NULL);
        if (e != CL_SUCCESS) snprintf(err, errcap, "16-byte items: %s", clperm_status_name(e));
    }
    double s = e == CL_SUCCESS ? bench_time_device(d->queue, run_shuffle_items, &r, t, err, errcap) : -1;
    if (s >= 0 && bench_check_covers(verify, BENCH_KIND_SHUFFLE, n) && check_items(&r, err, errcap) != 0) s = -1;
    uint64_t scratch = 0, temp = 0;
    clperm_ctx_counter(d->ctx, CLPERM_COUNTER_SCRATCH_BYTES, &scratch);
    clperm_ctx_counter(d->ctx, CLPERM_COUNTER_TEMP_BYTES, &temp);
    if (extra_bytes) *extra_bytes = scratch + temp;
    if (es > 8) {
        if (r.src) clReleaseMemObject(r.src);
        if (r.dst) clReleaseMemObject(r.dst);
    }
    return s;
}

/* ---- tile sorts and partitions -------------------------------------------------------------- */

typedef struct tile_run {
    bench_dev *d;
    uint64_t n, segment;
    clperm_tile_sort algorithm;
    unsigned bits;
} tile_run;

static cl_int run_tile(void *arg) {
    tile_run *r = arg;
    if (r->bits)
        return clperm_partition_segments(r->d->ctx, CLPERM_KEY_U32, r->d->a, NULL, r->n, r->segment, 0, r->bits,
                                         r->algorithm, 0, NULL, NULL);
    return clperm_sort_segments(r->d->ctx, CLPERM_KEY_U32, r->d->a, NULL, r->n, r->segment, r->algorithm, 0, NULL,
                                NULL);
}

/* The networks are oblivious: sorting sorted segments again costs what the first sort did, so the
 * runs sort buffer a in place one after another (a partition is idempotent too). */
double bench_tile(bench_dev *d, clperm_tile_sort algorithm, uint64_t segment, unsigned bits, uint64_t n,
                  const bench_timing *t, bench_verify verify, char *err, size_t errcap) {
    if (bench_fill_random(d, CLPERM_TYPE_U32, n, TILE_SEED, err, errcap) != 0) return -1;
    uint32_t *want = NULL;
    if (bench_check_covers(verify, BENCH_KIND_TILE, n)) {
        want = malloc((size_t)n * 4 + 4);
        if (!want ||
            clEnqueueReadBuffer(d->queue, d->a, CL_TRUE, 0, (size_t)n * 4, want, 0, NULL, NULL) != CL_SUCCESS) {
            snprintf(err, errcap, "could not read the input to check the result");
            free(want);
            return -1;
        }
    }
    tile_run r = {d, n, segment, algorithm, bits};
    double s = bench_time_device(d->queue, run_tile, &r, t, err, errcap);
    if (s >= 0 && want && bench_check_tile(d, want, n, segment, bits, algorithm, err, errcap) != 0) s = -1;
    free(want);
    return s;
}

/* ---- device-wide and segmented sorts -------------------------------------------------------- */

/* A sort in place: the request on buffers of its own, and the input it gets back before each
 * run (outside the time). */
typedef struct sort_run {
    bench_dev *d;
    clperm_sort_request req;
    clperm_segments segs; /* offsets NULL: the device-wide sort */
    cl_mem input_keys, input_values;
    size_t key_bytes, value_bytes;
    int into; /* clperm_sort_into from the input buffers to the request's */
} sort_run;

static cl_int restore_sort_input(void *arg) {
    sort_run *r = arg;
    if (r->into) return CL_SUCCESS;
    cl_int e = clEnqueueCopyBuffer(r->d->queue, r->input_keys, r->req.keys, 0, 0, r->key_bytes, 0, NULL, NULL);
    if (e == CL_SUCCESS && r->value_bytes)
        e = clEnqueueCopyBuffer(r->d->queue, r->input_values, r->req.values, 0, 0, r->value_bytes, 0, NULL, NULL);
    return e;
}

static cl_int run_sort(void *arg) {
    sort_run *r = arg;
    if (r->segs.offsets) return clperm_sort_segmented(r->d->ctx, &r->req, &r->segs, 0, NULL, NULL);
    if (r->into) {
        clperm_sort_request in = r->req;
        in.keys = r->input_keys;
        in.values = r->req.argsort ? NULL : r->input_values;
        return clperm_sort_into(r->d->ctx, &in, r->req.keys, r->req.values, 0, NULL, NULL);
    }
    return clperm_sort(r->d->ctx, &r->req, 0, NULL, NULL);
}

/* A device buffer of `bytes`, from init when given; NULL with err filled. */
static cl_mem sort_buffer(bench_dev *d, size_t bytes, const void *init, char *err, size_t errcap) {
    cl_int e = CL_SUCCESS;
    cl_mem m = NULL;
    if (bytes <= d->profile.max_alloc_bytes)
        m = clCreateBuffer(d->context, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 1,
                           (void *)init, &e);
    if (!m) snprintf(err, errcap, "a buffer of %zu bytes: %s", bytes, clperm_status_name(e));
    return m;
}

/* Times r on the host's keys and values (offsets: offset_bytes of them with r->segs), then checks
 * the result as `verify` says. */
static double time_sort(sort_run *r, const void *keys, const void *values, const void *offsets, size_t offset_bytes,
                        const bench_timing *t, bench_verify verify, uint64_t *extra_bytes, char *err, size_t errcap) {
    bench_dev *d = r->d;
    double s = -1;
    cl_mem offs = NULL;
    int ok = (r->input_keys = sort_buffer(d, r->key_bytes, keys, err, errcap)) &&
             (r->req.keys = sort_buffer(d, r->key_bytes, NULL, err, errcap)) &&
             (r->req.temp_keys = sort_buffer(d, r->key_bytes, NULL, err, errcap));
    if (ok && r->value_bytes)
        ok = (r->input_values = sort_buffer(d, r->value_bytes, values, err, errcap)) &&
             (r->req.values = sort_buffer(d, r->value_bytes, NULL, err, errcap)) &&
             (r->req.temp_values = sort_buffer(d, r->value_bytes, NULL, err, errcap));
    if (ok && offsets) ok = (offs = sort_buffer(d, offset_bytes, offsets, err, errcap)) != NULL;
    if (ok) {
        r->segs.offsets = offs;
        s = bench_time_device_prepared(d->queue, restore_sort_input, run_sort, r, t, err, errcap);
        uint64_t scratch = 0;
        clperm_ctx_counter(d->ctx, CLPERM_COUNTER_SCRATCH_BYTES, &scratch);
        if (extra_bytes) *extra_bytes = scratch + r->key_bytes + r->value_bytes;
    }
    int kind = offsets ? BENCH_KIND_SORT_SEGMENTED : BENCH_KIND_SORT;
    if (s >= 0 && bench_check_covers(verify, kind, r->req.n) &&
        bench_check_sort(d, &r->req, offsets ? &r->segs : NULL, keys, values, offsets, err, errcap) != 0)
        s = -1;
    cl_mem all[] = {r->input_keys, r->req.keys, r->req.temp_keys, r->input_values, r->req.values, r->req.temp_values,
                    offs};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) clReleaseMemObject(all[i]);
    return s;
}

/* Random keys (below 2^key_bits, unless 0) and values; argsort: the sort makes the values, the
 * check sorts positions along on the host. */
double bench_sort(bench_dev *d, clperm_key_type key, clperm_type value, unsigned key_bits, unsigned flags, uint64_t n,
                  const bench_timing *t, bench_verify verify, uint64_t *extra_bytes, char *err, size_t errcap) {
    sort_run r;
    memset(&r, 0, sizeof r);
    r.d = d;
    int argsort = (flags & BENCH_ARGSORT) != 0;
    r.into = (flags & BENCH_SORT_INTO) != 0;
    r.req.key_type = key;
    r.req.value_type = value;
    r.req.n = n;
    r.req.argsort = argsort;
    r.key_bytes = (size_t)n * clperm_key_size(key);
    r.value_bytes = value ? (size_t)n * clperm_type_size(value) : 0;
    void *keys = malloc(r.key_bytes + 1), *values = malloc(r.value_bytes + 1);
    double s = -1;
    if (keys && values && bench_host_random(keys, r.key_bytes, BENCH_SORT_SEED) == 0 &&
        bench_host_random(values, r.value_bytes, BENCH_SORT_SEED + 1) == 0) {
        size_t ks = clperm_key_size(key), vs = value ? clperm_type_size(value) : 0;
        if (key_bits)
            for (uint64_t i = 0; i < n; i++) {
                uint64_t k = 0;
                memcpy(&k, (char *)keys + i * ks, ks);
                k &= (UINT64_C(1) << key_bits) - 1;
                memcpy((char *)keys + i * ks, &k, ks);
            }
        if (argsort)
            for (uint64_t i = 0; i < n; i++) memcpy((char *)values + i * vs, &i, vs);
        s = time_sort(&r, keys, r.value_bytes ? values : NULL, NULL, 0, t, verify, extra_bytes, err, errcap);
    } else {
        snprintf(err, errcap, "out of host memory");
    }
    free(keys);
    free(values);
    return s;
}

double bench_sort_segmented(bench_dev *d, uint64_t segment, clperm_type value, int pattern, uint64_t n,
                            const bench_timing *t, bench_verify verify, uint64_t *extra_bytes, char *err,
                            size_t errcap) {
    if (n >= (UINT64_C(1) << 32)) {
        snprintf(err, errcap, "n must be below 2^32 (u32 offsets)");
        return -1;
    }
    sort_run r;
    memset(&r, 0, sizeof r);
    r.d = d;
    r.req.key_type = CLPERM_KEY_U32;
    r.req.value_type = value;
    r.req.n = n;
    r.key_bytes = (size_t)n * 4;
    r.value_bytes = value ? (size_t)n * clperm_type_size(value) : 0;
    r.segs.offset_type = CLPERM_TYPE_U32;
    uint32_t *keys = malloc(r.key_bytes + 4), *offsets = malloc(((size_t)n + 2) * 4);
    void *values = malloc(r.value_bytes + 1);
    double s = -1;
    if (!keys || !offsets || !values || bench_host_random(keys, r.key_bytes, BENCH_SORT_SEED) != 0 ||
        bench_host_random(values, r.value_bytes, BENCH_SORT_SEED + 1) != 0) {
        snprintf(err, errcap, "out of host memory");
    } else {
        for (uint64_t i = 0; i < n; i++) {
            if (pattern == BENCH_KEYS_THREES && i % 3) keys[i] = (keys[i - i % 3] & ~0xFFu) | (keys[i] & 0xFFu);
            if (pattern == BENCH_KEYS_SPLIT) keys[i] &= 0x800003FFu;
        }
        /* Fixed lengths, or lengths about log-uniform in [1, 2^17). */
        uint64_t z = BENCH_SORT_SEED + 2, at = 0, count = 0;
        offsets[0] = 0;
        while (at < n) {
            uint64_t len = segment;
            if (!segment) {
                z = z * 6364136223846793005ull + 1442695040888963407ull;
                len = (uint64_t)1 << ((z >> 33) % 17);
                len += (z >> 13) % len;
            }
            at = at + len < n ? at + len : n;
            offsets[++count] = (uint32_t)at;
        }
        r.segs.count = count;
        s = time_sort(&r, keys, value ? values : NULL, offsets, ((size_t)count + 1) * 4, t, verify, extra_bytes, err,
                      errcap);
    }
    free(keys);
    free(values);
    free(offsets);
    return s;
}

/* ---- generators ----------------------------------------------------------------------------- */

typedef struct rng_run {
    bench_dev *d;
    clperm_rng_spec spec;
    uint64_t n;
} rng_run;

static cl_int run_rng_fill(void *arg) {
    rng_run *r = arg;
    return clperm_rng_fill(r->d->ctx, &r->spec, CLPERM_RNG_OUT_U32, r->d->a, r->n, RNG_SEED, 0, 0, NULL, NULL);
}

/* The fill goes to buffer a. */
double bench_rng_fill(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, const bench_timing *t, bench_verify verify,
                      char *err, size_t errcap) {
    rng_run r = {d, *spec, n};
    double s = bench_time_device(d->queue, run_rng_fill, &r, t, err, errcap);
    d->filled = 0;
    if (s >= 0 && bench_check_covers(verify, BENCH_KIND_RNG_FILL, n) &&
        bench_check_rng_fill(d, spec, n, RNG_SEED, err, errcap) != 0)
        s = -1;
    return s;
}

double bench_time_kernel(bench_dev *d, cl_program prog, const char *name, const cl_ulong *args, int nargs,
                         uint64_t items, size_t wg, const bench_timing *t, char *err, size_t errcap) {
    cl_int e;
    cl_kernel k = clCreateKernel(prog, name, &e);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, 0, sizeof d->a, &d->a);
    for (int i = 0; i < nargs && e == CL_SUCCESS; i++) e = clSetKernelArg(k, (cl_uint)i + 1, sizeof args[i], &args[i]);
    double s = -1;
    if (e == CL_SUCCESS) {
        s = bench_time_launch(d, k, items, wg, t, err, errcap);
    } else {
        snprintf(err, errcap, "%s: %s", name, clperm_status_name(e));
    }
    d->filled = 0;
    if (k) clReleaseKernel(k);
    clReleaseProgram(prog);
    return s;
}

/* n numbers drawn by n / BENCH_RNG_DRAWS work-items, in work-groups of 256 (or k). */
double bench_rng_inkernel(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, const bench_timing *t, char *err,
                          size_t errcap) {
    size_t wg = 256;
    if (wg % spec->k) wg = spec->k;
    char opts[512] = "";
    if (clperm_rng_build_options(d->ctx, spec, opts, sizeof opts) != CLPERM_SUCCESS) {
        snprintf(err, errcap, "no generator %d k=%u", (int)spec->family, spec->k);
        return -1;
    }
    size_t used = strlen(opts);
    snprintf(opts + used, sizeof opts - used, " -DCLPERM_BENCH_WG=%zu -DCLPERM_BENCH_DRAWS=%d", wg, BENCH_RNG_DRAWS);
    const char *texts[2];
    size_t lengths[2];
    texts[0] = clperm_rng_device_source(&lengths[0]);
    texts[1] = clperm__cl_kernels_rng_inkernel_cl;
    lengths[1] = clperm__cl_kernels_rng_inkernel_cl_size;
    cl_program prog = bench_build(d, texts, lengths, 2, opts, err, errcap);
    if (!prog) return -1;
    cl_ulong seed = INKERNEL_SEED;
    return bench_time_kernel(d, prog, "clperm_bench_rng_inkernel", &seed, 1, n / BENCH_RNG_DRAWS, wg, t, err, errcap);
}
