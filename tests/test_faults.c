/* Fault injection (src/runtime/faults.h), SQLite's malloc-failure loop applied to clperm: for every
 * operation and every k up to the number of fallible calls it makes (OpenCL allocations, builds and
 * enqueues, host allocations, disk-cache files), the k-th call fails. Each time the status comes
 * back as an error, nothing is written to the caller's buffers, the next call on the same context
 * succeeds with the right result, and once the context is freed every OpenCL object clperm made or
 * retained has been released. Linked against clperm_faults, the library built with the wrappers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
/* The wrappers' counters, without sending this file's own OpenCL calls through them. */
#define CLPERM_FAULTS_IMPL 1
#include "faults.h"

#define N 3000
#define CANARY 0xA5

typedef struct bufs {
    cl_mem in, out;        /* the caller's buffers                                 */
    unsigned char *input;  /* what `in` holds (random)                             */
    size_t in_bytes, out_bytes;
} bufs;

typedef struct op {
    const char *name;
    clperm_param param; /* set on the fresh context before the call (0: none) */
    int value;
    size_t in_bytes, out_bytes;
    int in_place; /* the operation writes `in`: on failure it must still hold the input */
    clperm_status (*run)(clperm_ctx *ctx, const bufs *b, cl_event *event);
    /* The expected contents of the written buffer, from the input. */
    void (*expect)(const unsigned char *input, unsigned char *want);
} op;

static clperm_status run_scan(clperm_ctx *ctx, const bufs *b, cl_event *ev) {
    return clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, b->in, b->out, N, 0, NULL, ev);
}
static void expect_scan(const unsigned char *in, unsigned char *want) { test_scan_ref(in, want, N, 4, 0); }

static clperm_status run_reduce(clperm_ctx *ctx, const bufs *b, cl_event *ev) {
    return clperm_reduce_sum(ctx, CLPERM_TYPE_U64, b->in, N, b->out, 0, NULL, ev);
}
static void expect_reduce(const unsigned char *in, unsigned char *want) {
    uint64_t s = test_sum_ref(in, N, 8);
    memcpy(want, &s, 8);
}

static clperm_status run_shuffle(clperm_ctx *ctx, const bufs *b, cl_event *ev) {
    return clperm_shuffle(ctx, b->in, b->out, N, 8, 7, NULL, 0, NULL, ev);
}
static void expect_shuffle(const unsigned char *in, unsigned char *want) {
    cr_assert_eq(clperm_shuffle_host(in, want, N, 8, 7, NULL), CLPERM_SUCCESS);
}

static clperm_status run_inplace(clperm_ctx *ctx, const bufs *b, cl_event *ev) {
    return clperm_shuffle_inplace(ctx, b->in, N, 4, 9, NULL, 0, NULL, ev);
}
static void expect_inplace(const unsigned char *in, unsigned char *want) {
    cr_assert_eq(clperm_shuffle_host(in, want, N, 4, 9, NULL), CLPERM_SUCCESS);
}

static clperm_status run_permutation(clperm_ctx *ctx, const bufs *b, cl_event *ev) {
    return clperm_permutation(ctx, CLPERM_TYPE_U32, b->out, N, 11, NULL, 0, NULL, ev);
}
static void expect_permutation(const unsigned char *in, unsigned char *want) {
    (void)in;
    cr_assert_eq(clperm_permutation_host(CLPERM_TYPE_U32, want, N, 11, NULL), CLPERM_SUCCESS);
}

static clperm_status run_sort(clperm_ctx *ctx, const bufs *b, cl_event *ev) {
    return clperm_sort_segments(ctx, CLPERM_KEY_U32, b->in, NULL, N, 256, CLPERM_TILE_SORT_AUTO, 0, NULL, ev);
}
static void expect_sort(const unsigned char *in, unsigned char *want) {
    memcpy(want, in, N * 4);
    cr_assert_eq(clperm_sort_segments_host(CLPERM_KEY_U32, want, NULL, N, 256), CLPERM_SUCCESS);
}

static clperm_status run_partition(clperm_ctx *ctx, const bufs *b, cl_event *ev) {
    return clperm_partition_segments(ctx, CLPERM_KEY_U32, b->in, NULL, N, 128, 0, 3, CLPERM_TILE_SORT_AUTO, 0, NULL,
                                     ev);
}
static void expect_partition(const unsigned char *in, unsigned char *want) {
    memcpy(want, in, N * 4);
    cr_assert_eq(clperm_partition_segments_host(CLPERM_KEY_U32, want, NULL, N, 128, 0, 3), CLPERM_SUCCESS);
}

/* 30 matrices of 10 x 10 u32. */
static clperm_status run_transpose(clperm_ctx *ctx, const bufs *b, cl_event *ev) {
    return clperm_transpose_tiles(ctx, CLPERM_TYPE_U32, b->in, b->out, N / 100, 10, 10, 0, NULL, ev);
}
static void expect_transpose(const unsigned char *in, unsigned char *want) {
    const uint32_t *a = (const uint32_t *)in;
    uint32_t *t = (uint32_t *)want;
    for (int m = 0; m < N / 100; m++)
        for (int r = 0; r < 10; r++)
            for (int c = 0; c < 10; c++) t[m * 100 + c * 10 + r] = a[m * 100 + r * 10 + c];
}

static clperm_status run_fill(clperm_ctx *ctx, const bufs *b, cl_event *ev) {
    clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, 32, CLPERM_RNG_SCRAMBLE_NONE};
    return clperm_rng_fill(ctx, &spec, CLPERM_RNG_OUT_U32, b->out, N, 5, 0, 0, NULL, ev);
}
static void expect_fill(const unsigned char *in, unsigned char *want) {
    (void)in;
    clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, 32, CLPERM_RNG_SCRAMBLE_NONE};
    cr_assert_eq(clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_U32, want, N, 5, 0), CLPERM_SUCCESS);
}

static const op ops[] = {
    {"scan_exclusive u32, look-back", CLPERM_PARAM_SCAN_ALGORITHM, 2, N * 4, N * 4, 0, run_scan, expect_scan},
    {"scan_exclusive u32, reduce-then-scan", CLPERM_PARAM_SCAN_ALGORITHM, 1, N * 4, N * 4, 0, run_scan, expect_scan},
    {"reduce_sum u64", 0, 0, N * 8, 8, 0, run_reduce, expect_reduce},
    {"shuffle, bijective2", CLPERM_PARAM_SHUFFLE_FUSION, CLPERM_FUSION_LOOKBACK, N * 8, N * 8, 0, run_shuffle,
     expect_shuffle},
    {"shuffle, bijective1", CLPERM_PARAM_SHUFFLE_FUSION, CLPERM_FUSION_TWO_PASS, N * 8, N * 8, 0, run_shuffle,
     expect_shuffle},
    {"shuffle, bijective0", CLPERM_PARAM_SHUFFLE_FUSION, CLPERM_FUSION_SEPARATE, N * 8, N * 8, 0, run_shuffle,
     expect_shuffle},
    {"shuffle_inplace", 0, 0, N * 4, 0, 1, run_inplace, expect_inplace},
    {"permutation u32", 0, 0, 0, N * 4, 0, run_permutation, expect_permutation},
    {"sort_segments", 0, 0, N * 4, 0, 1, run_sort, expect_sort},
    {"partition_segments", 0, 0, N * 4, 0, 1, run_partition, expect_partition},
    {"transpose_tiles", 0, 0, N * 4, N * 4, 0, run_transpose, expect_transpose},
    {"rng_fill", 0, 0, 0, N * 4, 0, run_fill, expect_fill},
};

static void make_bufs(clperm_ctx *ctx, const op *o, uint64_t seed, bufs *b) {
    memset(b, 0, sizeof *b);
    b->in_bytes = o->in_bytes ? o->in_bytes : 4;
    b->out_bytes = o->out_bytes ? o->out_bytes : 4;
    b->input = malloc(b->in_bytes);
    unsigned char *canary = malloc(b->out_bytes);
    cr_assert(b->input && canary);
    test_fill_random(b->input, b->in_bytes, seed);
    memset(canary, CANARY, b->out_bytes);
    b->in = test_buffer(ctx, b->in_bytes, b->input);
    b->out = test_buffer(ctx, b->out_bytes, canary);
    cr_assert(b->in && b->out);
    free(canary);
}

static void free_bufs(bufs *b) {
    clReleaseMemObject(b->in);
    clReleaseMemObject(b->out);
    free(b->input);
}

/* The buffer the operation writes holds `want` (or, unwritten, what it held before). */
static void expect_contents(clperm_ctx *ctx, const op *o, const bufs *b, const unsigned char *want, const char *what,
                            uint64_t k) {
    size_t bytes = o->in_place ? b->in_bytes : b->out_bytes;
    unsigned char *got = malloc(bytes);
    cr_assert(got);
    cr_assert_eq(test_read(ctx, o->in_place ? b->in : b->out, bytes, got), 0);
    cr_assert(memcmp(got, want, bytes) == 0, "%s: %s, fault at call %llu: the %s buffer differs from %s",
              test_device_label(ctx), o->name, (unsigned long long)k, o->in_place ? "input" : "output", what);
    free(got);
}

/* One operation through the loop on device `dev`; returns the number of fallible calls it makes. */
static uint64_t fault_loop(size_t dev, const op *o) {
    uint64_t calls = 0;
    for (uint64_t k = 1;; k++) {
        int64_t live0 = clperm__fault_live_objects();
        clperm_ctx *ctx = test_open(dev);
        cr_assert(ctx);
        if (o->param) {
            const test_param set = {o->param, o->value};
            if (!test_apply_params(ctx, &set, 1)) {
                cr_log_info("%s: %s not supported, skipped", test_device_label(ctx), o->name);
                clperm_ctx_free(ctx);
                return 0;
            }
        }
        bufs b;
        make_bufs(ctx, o, test_seed() + k, &b);
        size_t bytes = o->in_place ? b.in_bytes : b.out_bytes;
        unsigned char *before = malloc(bytes), *want = malloc(bytes);
        cr_assert(before && want);
        if (o->in_place) memcpy(before, b.input, bytes);
        else memset(before, CANARY, bytes);
        o->expect(b.input, want);

        cl_event ev = NULL;
        clperm__fault_arm(k);
        clperm_status st = o->run(ctx, &b, (k & 1) ? &ev : NULL);
        int fired = clperm__fault_fired();
        uint64_t made = clperm__fault_calls();
        clperm__fault_arm(0);
        clFinish(clperm_ctx_cl_queue(ctx));
        if (!fired || st == CLPERM_SUCCESS) {
            /* No fault, or one the library recovered from (it waits where it could not register a
             * callback, say): the result must be right. */
            cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s without a fault: %s", test_device_label(ctx), o->name,
                         clperm_status_name(st));
            expect_contents(ctx, o, &b, want, fired ? "the host's result (fault recovered)" : "the host's result", k);
            if (!fired) calls = made;
        } else {
            cr_assert_neq(st, CLPERM_SUCCESS, "%s: %s succeeded although call %llu failed", test_device_label(ctx),
                          o->name, (unsigned long long)k);
            cr_assert_null(ev, "%s: %s returned an event from a failed call", test_device_label(ctx), o->name);
            expect_contents(ctx, o, &b, before, "what it held before the failed call", k);
            /* The same context then works. */
            cr_assert_eq(o->run(ctx, &b, NULL), CLPERM_SUCCESS, "%s: %s after the fault at call %llu",
                         test_device_label(ctx), o->name, (unsigned long long)k);
            expect_contents(ctx, o, &b, want, "the host's result after the retry", k);
        }
        if (ev) clperm__f_clReleaseEvent(ev); /* made by clperm: counted, so released through the count */
        free_bufs(&b);
        free(before);
        free(want);
        clperm_ctx_free(ctx);
        cr_assert_eq(clperm__fault_live_objects(), live0, "%s: %llu OpenCL objects leaked (fault at call %llu)",
                     o->name, (unsigned long long)(clperm__fault_live_objects() - live0), (unsigned long long)k);
        if (!fired) break;
    }
    return calls;
}

Test(faults, every_call_of_every_operation) {
    TEST_EACH_DEVICE_INDEX(dev)
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            uint64_t calls = fault_loop(dev, &ops[i]);
            if (calls == 0 && ops[i].param) continue; /* the device cannot run that variant */
            cr_log_info("device %zu: %s: %llu fallible calls, each failed once", dev, ops[i].name,
                        (unsigned long long)calls);
            cr_assert_gt(calls, 0, "%s made no fallible call: the wrappers are not in the build", ops[i].name);
        }
}

/* Contexts: a failure while creating one returns the status, writes nothing to *out and leaks
 * nothing. */
Test(faults, context_creation) {
    test_device_count_required(); /* device 0 */
    for (uint64_t k = 1;; k++) {
        int64_t live0 = clperm__fault_live_objects();
        clperm_ctx *ctx = (clperm_ctx *)&live0; /* any non-NULL value: must come back unchanged */
        clperm__fault_arm(k);
        clperm_status st = clperm_ctx_create_device(&ctx, "0");
        int fired = clperm__fault_fired();
        clperm__fault_arm(0);
        if (!fired) {
            cr_assert_eq(st, CLPERM_SUCCESS);
            clperm_ctx_free(ctx);
            cr_assert_eq(clperm__fault_live_objects(), live0);
            break;
        }
        cr_assert_neq(st, CLPERM_SUCCESS, "context creation succeeded although call %llu failed",
                      (unsigned long long)k);
        cr_assert_eq((void *)ctx, (void *)&live0, "context creation wrote *out although it failed");
        cr_assert_eq(clperm__fault_live_objects(), live0, "context creation leaked after the fault at call %llu",
                     (unsigned long long)k);
    }
}

/* The disk cache: every file operation failing in turn (a full disk is a short write) leaves no
 * entry that is trusted, and the next context loads or rebuilds a working program. */
Test(faults, disk_cache_files) {
    test_device_count_required(); /* device 0 */
    char dir[] = "/tmp/clperm-faults-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    setenv("CLPERM_CACHE_DIR", dir, 1);
    const op *o = &ops[0];
    for (uint64_t k = 1;; k++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "rm -f %s/*", dir);
        cr_assert_eq(system(cmd), 0);
        clperm_ctx *ctx = NULL;
        cr_assert_eq(clperm_ctx_create_device(&ctx, "0"), CLPERM_SUCCESS);
        cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_DISK_CACHE, 1), CLPERM_SUCCESS);
        bufs b;
        make_bufs(ctx, o, test_seed(), &b);
        unsigned char *want = malloc(b.out_bytes);
        o->expect(b.input, want);
        /* The k-th fallible call of a cold run with the cache on fails: the build, the store's file
         * operations (a short write is a full disk) and the rest in turn. */
        clperm__fault_arm(k);
        clperm_status st = o->run(ctx, &b, NULL);
        int fired = clperm__fault_fired();
        clperm__fault_arm(0);
        clFinish(clperm_ctx_cl_queue(ctx));
        if (st != CLPERM_SUCCESS) cr_assert_eq(o->run(ctx, &b, NULL), CLPERM_SUCCESS);
        free_bufs(&b);
        clperm_ctx_free(ctx);
        /* A fresh context must load what was stored, or rebuild: the result is right either way. */
        cr_assert_eq(clperm_ctx_create_device(&ctx, "0"), CLPERM_SUCCESS);
        cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_DISK_CACHE, 1), CLPERM_SUCCESS);
        make_bufs(ctx, o, test_seed(), &b);
        st = o->run(ctx, &b, NULL);
        cr_assert_eq(st, CLPERM_SUCCESS, "%s after a cache written with call %llu failing: %s", o->name,
                     (unsigned long long)k, clperm_status_name(st));
        expect_contents(ctx, o, &b, want, "the host's result from a cache written under faults", k);
        clperm_ctx_free(ctx);
        free_bufs(&b);
        free(want);
        if (!fired) break;
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
