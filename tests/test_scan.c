/* Scan and reduction against the host reference, bit for bit, on every device, for every kernel
 * kind, algorithm and subgroup implementation the device can run, at awkward sizes. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef struct config {
    const char *name;
    int kernel;    /* CLPERM_PARAM_SCAN_KERNEL */
    int algorithm; /* CLPERM_PARAM_SCAN_ALGORITHM */
    int impl;      /* CLPERM_PARAM_SG_IMPL */
    int width;     /* CLPERM_PARAM_SG_WIDTH */
    int wg;        /* CLPERM_PARAM_SCAN_WG_SIZE */
    int items;     /* CLPERM_PARAM_SCAN_ITEMS */
} config;

/* Applies cfg; 0 when the device cannot run it. */
static int apply(clperm_ctx *ctx, const config *cfg) {
    const test_param sets[] = {{CLPERM_PARAM_SCAN_KERNEL, cfg->kernel}, {CLPERM_PARAM_SCAN_ALGORITHM, cfg->algorithm},
                               {CLPERM_PARAM_SG_IMPL, cfg->impl},       {CLPERM_PARAM_SG_WIDTH, cfg->width},
                               {CLPERM_PARAM_SCAN_WG_SIZE, cfg->wg},    {CLPERM_PARAM_SCAN_ITEMS, cfg->items}};
    return test_apply_params(ctx, sets, sizeof sets / sizeof sets[0]);
}

/* The sizes every configuration is checked at, from the tile and subgroup width it runs with. */
static size_t sizes_for(clperm_ctx *ctx, uint64_t *sizes, int big) {
    int wg = 0, items = 0, width = 0;
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SCAN_WG_SIZE, &wg);
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SCAN_ITEMS, &items);
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SG_WIDTH, &width);
    uint64_t tile = (uint64_t)wg * (uint64_t)items, w = (uint64_t)width;
#if CLPERM_TEST_SMALL
    /* Under a simulator: still every boundary, but few tiles. */
    uint64_t list[] = {1, 2, 3, w - 1, w, w + 1, 97, tile - 1, tile, tile + 1, 2 * tile + 7};
    big = 0;
#else
    uint64_t list[] = {1, 2, 3, w - 1, w, w + 1, 97, 1009, tile - 1, tile, tile + 1, 2 * tile + 7,
                       33 * tile + 5, 65537, (1u << 16) + 1};
#endif
    size_t n = 0;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        if (list[i] >= 1) sizes[n++] = list[i];
    if (big) sizes[n++] = (1u << 20) + 3;
    return n;
}

static void check_case(clperm_ctx *ctx, const config *cfg, clperm_type type, uint64_t n, int mode, uint64_t seed) {
    size_t es = clperm_type_size(type);
    size_t bytes = (size_t)n * es;
    unsigned char *in = malloc(bytes), *out = malloc(bytes + es), *ref = malloc(bytes + es);
    cr_assert(in && out && ref);
    test_fill_random(in, bytes, seed ^ n);
    /* Poison the output so that an item never written is caught. */
    memset(out, 0xa5, bytes + es);
    cl_mem src = test_buffer(ctx, bytes, in);
    cl_mem dst = test_buffer(ctx, mode == 2 ? es : bytes, out);
    cr_assert(src && dst);
    clperm_status st;
    cl_event ev = NULL;
    if (mode == 2)
        st = clperm_reduce_sum(ctx, type, src, n, dst, 0, NULL, &ev);
    else if (mode == 1)
        st = clperm_scan_inclusive(ctx, type, src, dst, n, 0, NULL, &ev);
    else
        st = clperm_scan_exclusive(ctx, type, src, dst, n, 0, NULL, &ev);
    cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s n=%llu mode=%d: %s\n%s", test_device_label(ctx), cfg->name,
                 (unsigned long long)n, mode, clperm_status_name(st), clperm_ctx_build_log(ctx));
    cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    cr_assert_eq(test_read(ctx, dst, mode == 2 ? es : bytes, out), 0);
    if (mode == 2) {
        uint64_t want = test_sum_ref(in, n, es), got = test_item(out, 0, es);
        cr_assert_eq(got, want, "%s: %s reduce u%zu n=%llu seed=%#llx: got %llu want %llu", test_device_label(ctx),
                     cfg->name, es * 8, (unsigned long long)n, (unsigned long long)seed, (unsigned long long)got,
                     (unsigned long long)want);
    } else {
        test_scan_ref(in, ref, n, es, mode == 1);
        uint64_t i = test_first_diff(out, ref, n, es);
        cr_assert_eq(i, n, "%s: %s %s u%zu n=%llu seed=%#llx: item %llu is %llu, want %llu", test_device_label(ctx),
                     cfg->name, mode ? "inclusive" : "exclusive", es * 8, (unsigned long long)n,
                     (unsigned long long)seed, (unsigned long long)i, (unsigned long long)test_item(out, i, es),
                     (unsigned long long)test_item(ref, i, es));
    }
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(in);
    free(out);
    free(ref);
}

static void check_config(const config *cfg, int big) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    int ran = 0;
    TEST_EACH_DEVICE(ctx) {
        if (!apply(ctx, cfg)) {
            cr_log_info("%s: %s not supported, skipped", test_device_label(ctx), cfg->name);
            continue;
        }
        uint64_t sizes[32];
        size_t nsizes = sizes_for(ctx, sizes, big);
        for (int t = CLPERM_TYPE_U32; t <= CLPERM_TYPE_U64; t++)
            for (size_t s = 0; s < nsizes; s++)
                for (int mode = 0; mode < 3; mode++) check_case(ctx, cfg, (clperm_type)t, sizes[s], mode, seed);
        ran++;
    }
    if (!ran) cr_skip_test("%s: no device can run it", cfg->name);
}

#define SCAN_TEST(test_name, big, ...)                                                             \
    Test(scan, test_name) {                                                                        \
        const config cfg = {#test_name, __VA_ARGS__};                                              \
        check_config(&cfg, big);                                                                   \
    }

/*        name                       big kernel algo impl width  wg items */
SCAN_TEST(device_defaults,             1, 0, 0, 0, 0, 0, 0)
SCAN_TEST(serial_lookback,             1, 2, 2, 0, 0, 0, 0)
SCAN_TEST(serial_reduce_then_scan,     1, 2, 1, 0, 0, 0, 0)
SCAN_TEST(serial_small_tiles,          0, 2, 2, 0, 0, 0, 5)
SCAN_TEST(workgroup_lookback,          1, 1, 2, 0, 0, 0, 0)
SCAN_TEST(workgroup_reduce_then_scan,  1, 1, 1, 0, 0, 0, 0)
SCAN_TEST(local_w4_lookback,           0, 1, 2, 1, 4, 16, 3)
SCAN_TEST(local_w8_reduce_then_scan,   0, 1, 1, 1, 8, 64, 5)
SCAN_TEST(local_w16_lookback,          0, 1, 2, 1, 16, 64, 1)
SCAN_TEST(local_w32_lookback,          0, 1, 2, 1, 32, 128, 7)
SCAN_TEST(local_w64_reduce_then_scan,  0, 1, 1, 1, 64, 256, 2)
SCAN_TEST(local_w64_lookback,          0, 1, 2, 1, 64, 64, 9)
SCAN_TEST(khr_lookback,                0, 1, 2, 2, 0, 0, 0)
SCAN_TEST(khr_reduce_then_scan,        0, 1, 1, 2, 0, 0, 0)
SCAN_TEST(ptx_lookback,                1, 1, 2, 3, 0, 0, 0)
SCAN_TEST(ptx_reduce_then_scan,        0, 1, 1, 3, 0, 0, 0)
SCAN_TEST(ptx_lookback_small_tiles,    0, 1, 2, 3, 0, 64, 3)

/* Scans of one buffer in place give the same answer. */
Test(scan, in_place) {
    uint64_t seed = test_seed();
    TEST_EACH_DEVICE(ctx) {
        const uint64_t n = 100003;
        uint32_t *in = malloc(n * 4), *out = malloc(n * 4), *ref = malloc(n * 4);
        test_fill_random(in, n * 4, seed);
        cl_mem buf = test_buffer(ctx, n * 4, in);
        cr_assert_eq(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, buf, buf, n, 0, NULL, NULL), CLPERM_SUCCESS);
        cr_assert_eq(test_read(ctx, buf, n * 4, out), 0);
        test_scan_ref(in, ref, n, 4, 0);
        cr_assert_eq(test_first_diff(out, ref, n, 4), n, "%s: in-place scan differs", test_device_label(ctx));
        clReleaseMemObject(buf);
        free(in);
        free(out);
        free(ref);
    }
}

/* Many calls in a row on one context reuse the scratch state (epochs, tile counter) correctly,
 * including a call between that needs more tiles and grows it. */
Test(scan, repeated_calls_reuse_scratch) {
    uint64_t seed = test_seed();
#if CLPERM_TEST_SMALL
    const uint64_t sizes[] = {500, 3001, 500, 9001, 17, 3001};
#else
    const uint64_t sizes[] = {5000, 70001, 5000, 300007, 17, 70001};
#endif
    TEST_EACH_DEVICE(ctx) {
        clperm_ctx_set_param(ctx, CLPERM_PARAM_SCAN_ALGORITHM, 2);
        for (int round = 0; round < 3; round++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                const config cfg = {"repeated", 0, 2, 0, 0, 0, 0};
                check_case(ctx, &cfg, CLPERM_TYPE_U32, sizes[s], round % 2, seed + s);
            }
        uint64_t allocs = 0;
        clperm_ctx_counter(ctx, CLPERM_COUNTER_SCRATCH_ALLOCS, &allocs);
        /* Three scratch buffers, grown at most once per new largest size: never once per call. */
        cr_expect_leq(allocs, 9, "%s: scratch reallocated %llu times for 18 calls", test_device_label(ctx),
                      (unsigned long long)allocs);
    }
}
