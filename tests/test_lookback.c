/* The single-pass kernels' look-back where earlier tiles never publish, or publish late
 * (CLPERM_TEST_LOOKBACK, cl/common/progress.h): the waits end in the fallback, which computes the
 * missing tiles' sums from their input, and every result still equals the host's, bit for bit:
 * the scan (both kernels, in place too), the fused shuffle and Onesweep's passes. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "internal.h"

/* Every K-th tile from tile 0; SPINS bounds each wait (small: the fallback comes soon). */
static const char *const modes[] = {"never:3:64", "late:2:64", "never:1:16"};

/* Sizes in tiles of the configuration running: a part of one, a few, many. */
static size_t sizes_for(uint64_t tile, int mode, uint64_t *sizes) {
#if CLPERM_TEST_SMALL
    uint64_t list[] = {1, tile + 1, 4 * tile + 3};
#else
    uint64_t list[] = {1, 2, tile - 1, tile + 1, 7 * tile + 5, 41 * tile + 3};
#endif
    size_t k = 0;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        if (list[i] >= 1 && (mode != 2 || list[i] <= 8 * tile)) sizes[k++] = list[i]; /* never:1 is quadratic */
    return k;
}

/* Not the late mode under Oclgrind: each late tile's long wait is simulated instruction by
 * instruction (a minute of the test), and in an in-place scan a fallback's read of a late tile's
 * input, whose sum is thrown away once the tile publishes, is reported as a race. The never modes
 * run there. */
static int mode_runs(const clperm_profile *p, int mode) {
    return !(p->vendor == CLPERM_VENDOR_OCLGRIND && strncmp(modes[mode], "late", 4) == 0);
}

/* Opens every device with CLPERM_TEST_LOOKBACK = mode, runs body(ctx, mode index) where the
 * device runs look-back. */
#define FOR_EACH_MODE(m)                                                                           \
    for (int m = 0; m < (int)(sizeof modes / sizeof modes[0]) && setenv("CLPERM_TEST_LOOKBACK", modes[m], 1) == 0; \
         m++)

/* The epoch in a look-back flag of the scan and the shuffle (cl/common/lookback.h). */
static uint32_t flag_epoch(uint32_t f) { return f >> 2; }

/* After a call whose tiles 0, K, 2K, ... never published: tile 0's flag is not of that call, and
 * tile 1's is (when there is a tile 1 and it was not withheld too). */
static void check_withheld(clperm_ctx *ctx, uint64_t tiles, int mode) {
    if (strncmp(modes[mode], "never", 5) != 0) return;
    uint32_t f[2] = {0, 0}, last = ctx->lookback.epoch - 1;
    size_t words = tiles >= 2 ? 2 : 1;
    cr_assert_eq(test_read(ctx, ctx->lookback.flags.mem, words * 4, f), 0);
    cr_assert_neq(flag_epoch(f[0]), last, "%s, %s: tile 0 published", test_device_label(ctx), modes[mode]);
    if (words == 2 && modes[mode][6] != '1')
        cr_assert_eq(flag_epoch(f[1]), last, "%s, %s: tile 1 did not publish", test_device_label(ctx), modes[mode]);
}

static void scan_case(clperm_ctx *ctx, clperm_type type, uint64_t n, int inclusive, int in_place, int mode,
                      uint64_t tile) {
    size_t es = clperm_type_size(type), bytes = (size_t)n * es;
    unsigned char *in = malloc(bytes), *out = malloc(bytes), *ref = malloc(bytes);
    cr_assert(in && out && ref);
    test_fill_random(in, bytes, test_seed() ^ n ^ (uint64_t)mode << 40);
    test_scan_ref(in, ref, n, es, inclusive);
    cl_mem src = test_buffer(ctx, bytes, in), dst = in_place ? src : test_buffer(ctx, bytes, NULL);
    cr_assert(src && dst);
    clperm_status st = inclusive ? clperm_scan_inclusive(ctx, type, src, dst, n, 0, NULL, NULL)
                                 : clperm_scan_exclusive(ctx, type, src, dst, n, 0, NULL, NULL);
    cr_assert_eq(st, CLPERM_SUCCESS, "%s: scan of %llu: %s", test_device_label(ctx), (unsigned long long)n,
                 clperm_status_string(st));
    cr_assert_eq(test_read(ctx, dst, bytes, out), 0);
    uint64_t d = test_first_diff(out, ref, n, es);
    cr_assert_eq(d, n, "%s, %s: %s scan of %llu %s items%s: item %llu is %llu, the host's %llu",
                 test_device_label(ctx), modes[mode], inclusive ? "inclusive" : "exclusive", (unsigned long long)n,
                 type == CLPERM_TYPE_U64 ? "u64" : "u32", in_place ? " in place" : "", (unsigned long long)d,
                 (unsigned long long)test_item(out, d, es), (unsigned long long)test_item(ref, d, es));
    check_withheld(ctx, (n + tile - 1) / tile, mode);
    if (!in_place) clReleaseMemObject(dst);
    clReleaseMemObject(src);
    free(in);
    free(out);
    free(ref);
}

Test(lookback, scan_equals_host_when_tiles_publish_late_or_never) {
    FOR_EACH_MODE(m) {
        TEST_EACH_DEVICE(ctx) {
            clperm_profile p;
            cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
            if (p.loop_limit || !mode_runs(&p, m)) continue; /* loops capped: no look-back (test_probe) */
            for (int kernel = CLPERM_KERNEL_WORK_GROUP; kernel <= CLPERM_KERNEL_SERIAL; kernel++) {
                /* The serial kernel (CPUs) in one mode only: each costs a build of seconds. */
                if (kernel == CLPERM_KERNEL_SERIAL && m != 1) continue;
                const test_param sets[] = {{CLPERM_PARAM_SCAN_ALGORITHM, 2}, {CLPERM_PARAM_SCAN_KERNEL, kernel}};
                if (!test_apply_params(ctx, sets, 2)) continue;
                int wg = 0, items = 0;
                clperm_ctx_get_param(ctx, CLPERM_PARAM_SCAN_WG_SIZE, &wg);
                clperm_ctx_get_param(ctx, CLPERM_PARAM_SCAN_ITEMS, &items);
                uint64_t tile = (uint64_t)(kernel == CLPERM_KERNEL_SERIAL ? 1 : wg) * (uint64_t)items, sizes[8];
                size_t count = sizes_for(tile, m, sizes);
                for (size_t i = 0; i < count; i++) {
                    /* In place only where a withheld tile still publishes: a tile that never
                     * publishes but writes its output is no real schedule's. Not under Oclgrind:
                     * a fallback may read a late tile's input while that tile overwrites it, a
                     * read whose sum is then thrown away for the tile's published one (the tile
                     * publishes before it writes), but which the race checker reports. */
                    int in_place = strncmp(modes[m], "late", 4) == 0 && i % 2 && p.vendor != CLPERM_VENDOR_OCLGRIND;
                    /* One type per kernel and mode (a program build each), both over the modes. */
                    clperm_type type = (kernel + m) % 2 ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32;
                    scan_case(ctx, type, sizes[i], (int)(i / 2 % 2), in_place, m, tile);
                }
            }
        }
    }
}

Test(lookback, fused_shuffle_equals_host_when_tiles_publish_late_or_never) {
    FOR_EACH_MODE(m) {
        TEST_EACH_DEVICE(ctx) {
            clperm_profile p;
            cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
            if (p.loop_limit || !mode_runs(&p, m)) continue;
            const test_param sets[] = {{CLPERM_PARAM_SHUFFLE_FUSION, CLPERM_FUSION_LOOKBACK}};
            cr_assert(test_apply_params(ctx, sets, 1));
            int wg = 1, items = 0, kernel = 0;
            clperm_ctx_get_param(ctx, CLPERM_PARAM_SHUFFLE_KERNEL, &kernel);
            if (kernel != CLPERM_KERNEL_SERIAL) clperm_ctx_get_param(ctx, CLPERM_PARAM_SHUFFLE_WG_SIZE, &wg);
            clperm_ctx_get_param(ctx, CLPERM_PARAM_SHUFFLE_ITEMS, &items);
            uint64_t tile = (uint64_t)wg * (uint64_t)items, sizes[8];
            size_t count = sizes_for(tile, m, sizes);
            for (size_t i = 0; i < count; i++) {
                uint64_t n = sizes[i];
                const clperm_shuffle_opts opts = {(clperm_bijection)(i % 3 + 1), 0, 0};
                uint32_t *got = malloc(n * 4), *want = malloc(n * 4);
                cr_assert(got && want);
                cl_mem d = test_buffer(ctx, n * 4, NULL);
                cr_assert_not_null(d);
                cr_assert_eq(clperm_permutation(ctx, CLPERM_TYPE_U32, d, n, 41 + i, &opts, 0, NULL, NULL),
                             CLPERM_SUCCESS);
                cr_assert_eq(test_read(ctx, d, n * 4, got), 0);
                cr_assert_eq(clperm_permutation_host(CLPERM_TYPE_U32, want, n, 41 + i, &opts), CLPERM_SUCCESS);
                uint64_t diff = test_first_diff(got, want, n, 4);
                cr_assert_eq(diff, n, "%s, %s: permutation of %llu (bijection %d) differs at %llu",
                             test_device_label(ctx), modes[m], (unsigned long long)n, (int)opts.bijection,
                             (unsigned long long)diff);
                /* The bijection's domain has more indices than n: count its tiles, not n's. */
                clperm_bijection_key key;
                cr_assert_eq(clperm_bijection_init(&key, n, 41 + i, &opts), CLPERM_SUCCESS);
                check_withheld(ctx, (key.domain + tile - 1) / tile, m);
                clReleaseMemObject(d);
                free(got);
                free(want);
            }
        }
    }
}

Test(lookback, onesweep_equals_host_when_tiles_publish_late_or_never) {
    FOR_EACH_MODE(m) {
        TEST_EACH_DEVICE(ctx) {
            clperm_profile p;
            cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
            if (p.loop_limit || !mode_runs(&p, m)) continue;
            const test_param sets[] = {{CLPERM_PARAM_SORT_KERNEL, CLPERM_KERNEL_WORK_GROUP},
                                       {CLPERM_PARAM_SORT_ALGORITHM, 2}};
            if (!test_apply_params(ctx, sets, 2)) {
                /* No 64-bit atomics off NVIDIA: no Onesweep (test_caps checks the refusal). */
                cr_assert_eq(p.atomics64 || p.vendor == CLPERM_VENDOR_NVIDIA, 0, "%s: Onesweep refused",
                             test_device_label(ctx));
                continue;
            }
            int wg = 0, items = 0;
            clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_WG_SIZE, &wg);
            clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_ITEMS, &items);
            uint64_t tile = (uint64_t)wg * (uint64_t)items, sizes[8];
            size_t count = sizes_for(tile, m, sizes);
            for (size_t i = 0; i < count; i++) {
                uint64_t n = sizes[i];
                int pairs = i % 2;
                uint32_t *keys = malloc(n * 4), *vals = malloc(n * 4), *back = malloc(n * 4), *vback = malloc(n * 4);
                cr_assert(keys && vals && back && vback);
                test_fill_random(keys, n * 4, 7 + n);
                for (uint64_t j = 0; j < n; j++) vals[j] = (uint32_t)j;
                cl_mem dk = test_buffer(ctx, n * 4, keys), dv = pairs ? test_buffer(ctx, n * 4, vals) : NULL;
                cr_assert(dk && (dv || !pairs));
                clperm_sort_request req = {CLPERM_KEY_U32, dk,   pairs ? CLPERM_TYPE_U32 : 0, dv, n, {0, 0, 0},
                                           NULL,           NULL, 0};
                cr_assert_eq(clperm_sort(ctx, &req, 0, NULL, NULL), CLPERM_SUCCESS);
                cr_assert_eq(test_read(ctx, dk, n * 4, back), 0);
                if (pairs) cr_assert_eq(test_read(ctx, dv, n * 4, vback), 0);
                clperm_sort_host_request hr = {CLPERM_KEY_U32, keys, pairs ? CLPERM_TYPE_U32 : 0, vals, n, {0, 0, 0}};
                cr_assert_eq(clperm_sort_host(&hr), CLPERM_SUCCESS);
                uint64_t dkey = test_first_diff(back, keys, n, 4), dval = pairs ? test_first_diff(vback, vals, n, 4) : n;
                cr_assert(dkey == n && dval == n, "%s, %s: sort of %llu u32 keys%s differs at key %llu, value %llu",
                          test_device_label(ctx), modes[m], (unsigned long long)n, pairs ? " and values" : "",
                          (unsigned long long)dkey, (unsigned long long)dval);
                if (n > 1 && strncmp(modes[m], "never", 5) == 0) {
                    /* Tile 0's word of digit 0 is not of the last pass; some word is. */
                    size_t words = ctx->sort_status.bytes / 8;
                    uint64_t *st = malloc(words * 8);
                    cr_assert_not_null(st);
                    cr_assert_eq(test_read(ctx, ctx->sort_status.mem, words * 8, st), 0);
                    uint32_t last = ctx->sort_epoch - 1;
                    int seen = 0;
                    for (size_t w = 0; w < words && !seen; w++) seen = (uint32_t)(st[w] >> 40) == last;
                    cr_assert_neq((uint32_t)(st[0] >> 40), last, "%s, %s: tile 0 published", test_device_label(ctx),
                                  modes[m]);
                    cr_assert(seen || n <= tile || modes[m][6] == '1', "%s, %s: no tile published in the last pass",
                              test_device_label(ctx), modes[m]);
                    free(st);
                }
                clReleaseMemObject(dk);
                if (dv) clReleaseMemObject(dv);
                free(keys);
                free(vals);
                free(back);
                free(vback);
            }
        }
    }
}

/* A value of another form fails context creation, not the test's intent silently. */
Test(lookback, malformed_test_mode_is_refused) {
    if (test_device_count() == 0) {
        test_no_device();
        return;
    }
    const char *bad[] = {"sometimes:3", "never", "never:0", "late:2:", "never:3:0", "late:x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(setenv("CLPERM_TEST_LOOKBACK", bad[i], 1), 0);
        clperm_ctx *ctx = NULL;
        clperm_status st = clperm_ctx_create_device(&ctx, "0");
        cr_assert_eq(st, CLPERM_ERROR_INVALID_ARGUMENT, "CLPERM_TEST_LOOKBACK=%s: %s", bad[i],
                     clperm_status_string(st));
        cr_assert_null(ctx);
    }
    unsetenv("CLPERM_TEST_LOOKBACK");
}
