/* The sorts of `clperm bench`: clperm's device-wide and segmented sorts, timed on an input
 * restored before each run (the sorts work in place), and the host's single-thread qsort and LSD
 * radix sort as peers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define SORT_SEED 0x5eed0009u

/* Random words from one of clperm's generators on the host (bytes a multiple of 4). */
static int fill_random(void *dst, size_t bytes, uint64_t seed) {
    const clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, 32};
    return clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_U32, dst, bytes / 4, seed, 0) == CLPERM_SUCCESS ? 0 : -1;
}

typedef struct sort_run {
    clperm_sort_request req;
    clperm_segments segs;
    int segmented;
    cl_mem pristine_keys, pristine_values;
    size_t key_bytes, value_bytes;
} sort_run;

static cl_int restore_input(bench_dev *d, void *arg) {
    sort_run *r = arg;
    cl_command_queue q = clperm_ctx_cl_queue(bench_dev_ctx(d));
    cl_int e = clEnqueueCopyBuffer(q, r->pristine_keys, r->req.keys, 0, 0, r->key_bytes, 0, NULL, NULL);
    if (e == CL_SUCCESS && r->value_bytes)
        e = clEnqueueCopyBuffer(q, r->pristine_values, r->req.values, 0, 0, r->value_bytes, 0, NULL, NULL);
    return e;
}

static cl_int run_device_sort(bench_dev *d, void *arg) {
    sort_run *r = arg;
    if (r->segmented) return clperm_sort_segmented(bench_dev_ctx(d), &r->req, &r->segs, 0, NULL, NULL);
    return clperm_sort(bench_dev_ctx(d), &r->req, 0, NULL, NULL);
}

static cl_mem buffer(bench_dev *d, size_t bytes, const void *init, char *err, size_t errcap) {
    cl_int e = CL_SUCCESS;
    cl_mem m = NULL;
    if (bytes <= bench_dev_profile(d)->max_alloc_bytes)
        m = clCreateBuffer(clperm_ctx_cl_context(bench_dev_ctx(d)),
                           CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 1, (void *)init, &e);
    if (!m) snprintf(err, errcap, "a buffer of %zu bytes: %s", bytes, clperm_status_name(e));
    return m;
}

/* Times r (keys and values set up from the host's keys and values), then checks the result
 * against the host's sort of the same input when host_want is given. */
static double time_sort(bench_dev *d, sort_run *r, const void *keys, const void *values, const void *offsets,
                        size_t offset_bytes, const bench_timing *t, int verify, uint64_t *extra_bytes, char *err,
                        size_t errcap) {
    uint64_t n = r->req.n;
    double s = -1;
    cl_mem mk = NULL, mv = NULL, mo = NULL;
    r->pristine_keys = buffer(d, r->key_bytes, keys, err, errcap);
    r->req.keys = r->pristine_keys ? buffer(d, r->key_bytes, NULL, err, errcap) : NULL;
    r->req.temp_keys = r->req.keys ? buffer(d, r->key_bytes, NULL, err, errcap) : NULL;
    mk = r->req.temp_keys;
    if (mk && r->value_bytes) {
        r->pristine_values = buffer(d, r->value_bytes, values, err, errcap);
        r->req.values = r->pristine_values ? buffer(d, r->value_bytes, NULL, err, errcap) : NULL;
        r->req.temp_values = r->req.values ? buffer(d, r->value_bytes, NULL, err, errcap) : NULL;
        mv = r->req.temp_values;
    }
    if (mk && r->segmented) r->segs.offsets = mo = buffer(d, offset_bytes, offsets, err, errcap);
    if (mk && (!r->value_bytes || mv) && (!r->segmented || mo)) {
        s = bench_timed(d, restore_input, run_device_sort, r, t, err, errcap);
        uint64_t scratch = 0;
        clperm_ctx_counter(bench_dev_ctx(d), CLPERM_COUNTER_SCRATCH_BYTES, &scratch);
        if (extra_bytes) *extra_bytes = scratch + r->key_bytes + r->value_bytes;
    }
    if (s >= 0 && verify && n <= (UINT64_C(1) << 24)) {
        void *want = malloc(r->key_bytes + 1), *wantv = malloc(r->value_bytes + 1);
        void *got = malloc(r->key_bytes + 1), *gotv = malloc(r->value_bytes + 1);
        cl_command_queue q = clperm_ctx_cl_queue(bench_dev_ctx(d));
        int bad = !want || !wantv || !got || !gotv;
        if (!bad) {
            memcpy(want, keys, r->key_bytes);
            if (r->value_bytes) memcpy(wantv, values, r->value_bytes);
            clperm_sort_host_request hr = {r->req.key_type, want, r->req.value_type, r->value_bytes ? wantv : NULL,
                                           n, r->req.order};
            bad = (r->segmented ? clperm_sort_segmented_host(&hr, offsets, r->segs.offset_type, r->segs.count)
                                : clperm_sort_host(&hr)) != CLPERM_SUCCESS ||
                  clEnqueueReadBuffer(q, r->req.keys, CL_TRUE, 0, r->key_bytes, got, 0, NULL, NULL) != CL_SUCCESS ||
                  memcmp(want, got, r->key_bytes) != 0;
            if (!bad && r->value_bytes)
                bad = clEnqueueReadBuffer(q, r->req.values, CL_TRUE, 0, r->value_bytes, gotv, 0, NULL, NULL) !=
                          CL_SUCCESS ||
                      memcmp(wantv, gotv, r->value_bytes) != 0;
        }
        if (bad) {
            snprintf(err, errcap, "differs from the host's sort");
            s = -1;
        }
        free(want), free(wantv), free(got), free(gotv);
    }
    cl_mem all[] = {r->pristine_keys, r->req.keys, mk, r->pristine_values, r->req.values, mv, mo};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) clReleaseMemObject(all[i]);
    return s;
}

double bench_device_sort(bench_dev *d, clperm_key_type key_type, clperm_type value_type, uint64_t n,
                         const bench_timing *t, int verify, uint64_t *extra_bytes, char *err, size_t errcap) {
    sort_run r;
    memset(&r, 0, sizeof r);
    r.req.key_type = key_type;
    r.req.value_type = value_type;
    r.req.n = n;
    r.key_bytes = (size_t)n * clperm_key_size(key_type);
    r.value_bytes = value_type ? (size_t)n * clperm_type_size(value_type) : 0;
    void *keys = malloc(r.key_bytes + 1), *values = malloc(r.value_bytes + 1);
    double s = -1;
    if (keys && values && fill_random(keys, r.key_bytes, SORT_SEED) == 0 &&
        fill_random(values, r.value_bytes, SORT_SEED + 1) == 0)
        s = time_sort(d, &r, keys, values, NULL, 0, t, verify, extra_bytes, err, errcap);
    else
        snprintf(err, errcap, "out of host memory");
    free(keys);
    free(values);
    return s;
}

double bench_segmented_sort(bench_dev *d, uint64_t segment, uint64_t n, const bench_timing *t, int verify,
                            uint64_t *extra_bytes, char *err, size_t errcap) {
    if (n >= (UINT64_C(1) << 32)) {
        snprintf(err, errcap, "n must be below 2^32 (u32 offsets)");
        return -1;
    }
    sort_run r;
    memset(&r, 0, sizeof r);
    r.segmented = 1;
    r.req.key_type = CLPERM_KEY_U32;
    r.req.n = n;
    r.key_bytes = (size_t)n * 4;
    r.segs.offset_type = CLPERM_TYPE_U32;
    uint32_t *keys = malloc(r.key_bytes + 4), *offsets = malloc(((size_t)n + 2) * 4);
    double s = -1;
    if (!keys || !offsets || fill_random(keys, r.key_bytes, SORT_SEED) != 0) {
        snprintf(err, errcap, "out of host memory");
    } else {
        /* Fixed lengths, or lengths about log-uniform in [1, 2^17). */
        uint64_t z = SORT_SEED + 2, at = 0, count = 0;
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
        s = time_sort(d, &r, keys, NULL, offsets, ((size_t)count + 1) * 4, t, verify, extra_bytes, err, errcap);
    }
    free(keys);
    free(offsets);
    return s;
}

/* ---- the host's peers ---------------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* LSD radix sort of n u32, 8-bit digits: the four passes' counts in one read, then four
 * scatters between a and tmp. */
static void host_radix_u32(uint32_t *a, uint32_t *tmp, size_t n) {
    static size_t counts[4][256];
    memset(counts, 0, sizeof counts);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = a[i];
        counts[0][k & 255]++;
        counts[1][(k >> 8) & 255]++;
        counts[2][(k >> 16) & 255]++;
        counts[3][k >> 24]++;
    }
    for (int p = 0; p < 4; p++) {
        size_t run = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = counts[p][d];
            counts[p][d] = run;
            run += c;
        }
        for (size_t i = 0; i < n; i++) tmp[counts[p][(a[i] >> (8 * p)) & 255]++] = a[i];
        uint32_t *x = a;
        a = tmp;
        tmp = x;
    }
}

/* Median time of the host sort `kind` (0 qsort, 1 radix) of n random u32, the input restored
 * before each run. */
static double host_sort(uint64_t n, const bench_timing *t, int kind) {
    uint32_t *in = malloc((size_t)n * 4 + 4), *a = malloc((size_t)n * 4 + 4), *tmp = malloc((size_t)n * 4 + 4);
    double s = -1, samples[256];
    int reps = t->reps < 1 ? 1 : (t->reps > 256 ? 256 : t->reps);
    if (in && a && tmp && fill_random(in, (size_t)n * 4, SORT_SEED) == 0) {
        for (int i = -t->warmup; i < reps; i++) {
            memcpy(a, in, (size_t)n * 4);
            double t0 = bench_now();
            if (kind == 0) qsort(a, (size_t)n, 4, cmp_u32);
            else host_radix_u32(a, tmp, (size_t)n);
            double t1 = bench_now();
            if (i >= 0) samples[i] = t1 - t0;
        }
        for (uint64_t i = 1; i < n; i++)
            if (a[i - 1] > a[i]) reps = 0; /* not sorted: no figure */
        s = reps ? bench_median(samples, reps) : -1;
    }
    free(in), free(a), free(tmp);
    return s;
}

double bench_host_qsort(uint64_t n, const bench_timing *t) { return host_sort(n, t, 0); }

double bench_host_radix(uint64_t n, const bench_timing *t) { return host_sort(n, t, 1); }

/* ---- Boost.Compute's sort, the OpenCL peer ------------------------------------------------ */

/* s in single quotes for the shell. */
static void shell_quote(char *buf, size_t cap, const char *s) {
    size_t k = 0;
    if (k + 1 < cap) buf[k++] = '\'';
    for (; *s && k + 5 < cap; s++) {
        if (*s == '\'') {
            memcpy(buf + k, "'\\''", 4);
            k += 4;
        } else {
            buf[k++] = *s;
        }
    }
    if (k + 1 < cap) buf[k++] = '\'';
    buf[k] = 0;
}

double bench_boost_compute_sort(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap) {
#ifdef CLPERM_BENCH_BC_SORT
    const clperm_profile *p = bench_dev_profile(d);
    char plat[300], dev[300], cmd[1024];
    shell_quote(plat, sizeof plat, p->platform_name);
    shell_quote(dev, sizeof dev, p->device_name);
    snprintf(cmd, sizeof cmd, "'%s' %s %s %d %d %llu", CLPERM_BENCH_BC_SORT, plat, dev, t->reps, t->warmup,
             (unsigned long long)n);
    FILE *f = popen(cmd, "r");
    if (!f) {
        snprintf(err, errcap, "cannot run %s", CLPERM_BENCH_BC_SORT);
        return -1;
    }
    char line[512] = "";
    unsigned long long got = 0;
    double s = -1;
    if (fgets(line, sizeof line, f) && sscanf(line, "%llu,%lf", &got, &s) == 2 && got == n) {
        /* a figure */
    } else {
        line[strcspn(line, "\n")] = 0;
        snprintf(err, errcap, "Boost.Compute: %s", line[0] ? line : "no output");
        s = -1;
    }
    pclose(f);
    return s;
#else
    (void)d, (void)n, (void)t;
    snprintf(err, errcap, "built without Boost.Compute (libboost-dev and a C++ compiler)");
    return -1;
#endif
}
