/* Devices with less than those at hand: the profile capped (CLPERM_TEST_PROFILE) to 16 and 32 KiB
 * of local memory, work-groups of at most 64, 128 and 256, no 64-bit atomics. Every operation
 * then either gives the host's result bit for bit or returns CLPERM_ERROR_UNSUPPORTED with the
 * caller's buffer as it was; no other error (a kernel build failure, an enqueue refused) may
 * reach the caller. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "internal.h"
#include "sort/sort_internal.h"

static const char *const caps[] = {"local=16384,wg=64,no-atomics64", "local=32768,wg=128", "wg=256,no-atomics64"};

typedef struct outcome {
    int ran, refused;
} outcome;

/* st is the call's status; the buffer (bytes) must now hold `want` (success) or `before` (refused). */
static void check(clperm_ctx *ctx, const char *cap, const char *what, clperm_status st, cl_mem buf, size_t bytes,
                  const void *before, const void *want, outcome *o) {
    cr_assert(st == CLPERM_SUCCESS || st == CLPERM_ERROR_UNSUPPORTED, "%s, %s: %s returned %s", test_device_label(ctx),
              cap, what, clperm_status_string(st));
    unsigned char *got = malloc(bytes ? bytes : 1);
    cr_assert_not_null(got);
    cr_assert_eq(test_read(ctx, buf, bytes, got), 0);
    const void *expect = st == CLPERM_SUCCESS ? want : before;
    cr_assert_eq(memcmp(got, expect, bytes), 0, "%s, %s: %s %s", test_device_label(ctx), cap, what,
                 st == CLPERM_SUCCESS ? "differs from the host's" : "was refused but wrote to the buffer");
    free(got);
    if (st == CLPERM_SUCCESS)
        o->ran++;
    else
        o->refused++;
    cr_log_info("%s, %s: %s %s", test_device_label(ctx), cap, what, st == CLPERM_SUCCESS ? "ran" : "refused");
}

static void run_all(clperm_ctx *ctx, const char *cap, outcome *o) {
    const uint64_t n = 100003;
    uint32_t *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8);
    cr_assert(a && b && c);
    test_fill_random(a, n * 8, 3);
    cl_mem src = test_buffer(ctx, n * 8, a), dst = test_buffer(ctx, n * 8, NULL), val = test_buffer(ctx, n * 8, NULL);
    cr_assert(src && dst && val);
    memset(b, 0x5a, n * 8);
    cr_assert_eq(clEnqueueWriteBuffer(clperm_ctx_cl_queue(ctx), dst, CL_TRUE, 0, n * 8, b, 0, NULL, NULL), CL_SUCCESS);

    /* Scan of u64 items. */
    test_scan_ref(a, c, n, 8, 0);
    check(ctx, cap, "exclusive scan", clperm_scan_exclusive(ctx, CLPERM_TYPE_U64, src, dst, n, 0, NULL, NULL), dst,
          n * 8, b, c, o);
    cr_assert_eq(test_read(ctx, dst, n * 8, b), 0);

    /* Permutation (u32 indices) and a shuffle of 16-byte items. */
    cr_assert_eq(clperm_permutation_host(CLPERM_TYPE_U32, c, n, 9, NULL), CLPERM_SUCCESS);
    check(ctx, cap, "permutation", clperm_permutation(ctx, CLPERM_TYPE_U32, dst, n, 9, NULL, 0, NULL, NULL), dst,
          n * 4, b, c, o);
    cr_assert_eq(test_read(ctx, dst, n * 8, b), 0);
    const uint64_t m = n / 2;
    cr_assert_eq(clperm_shuffle_host(a, c, m, 16, 11, NULL), CLPERM_SUCCESS);
    check(ctx, cap, "shuffle of 16-byte items", clperm_shuffle(ctx, src, dst, m, 16, 11, NULL, 0, NULL, NULL), dst,
          m * 16, b, c, o);
    cr_assert_eq(test_read(ctx, dst, n * 8, b), 0);
    /* The bucket shuffle: its label pass is the sort's, with the tile's labels in local memory. */
    const clperm_shuffle_opts buckets = {CLPERM_BIJECTION_FEISTEL, 0, CLPERM_SHUFFLE_BUCKETS};
    cr_assert_eq(clperm_shuffle_host(a, c, m, 16, 12, &buckets), CLPERM_SUCCESS);
    check(ctx, cap, "bucket shuffle of 16-byte items",
          clperm_shuffle(ctx, src, dst, m, 16, 12, &buckets, 0, NULL, NULL), dst, m * 16, b, c, o);

    /* Tile sorts and partitions of segments of 256 u32 keys (keys in place). */
    const uint64_t seg = 256, ns = 256 * 37;
    memcpy(c, a, ns * 4);
    cr_assert_eq(clperm_sort_segments_host(CLPERM_KEY_U32, c, NULL, ns, seg), CLPERM_SUCCESS);
    cl_mem k = test_buffer(ctx, ns * 4, a);
    cr_assert_not_null(k);
    check(ctx, cap, "tile sort of 256-key segments",
          clperm_sort_segments(ctx, CLPERM_KEY_U32, k, NULL, ns, seg, CLPERM_TILE_SORT_AUTO, 0, NULL, NULL), k, ns * 4,
          a, c, o);
    clReleaseMemObject(k);
    memcpy(c, a, ns * 4);
    cr_assert_eq(clperm_partition_segments_host(CLPERM_KEY_U32, c, NULL, ns, seg, 4, 3), CLPERM_SUCCESS);
    k = test_buffer(ctx, ns * 4, a);
    cr_assert_not_null(k);
    check(ctx, cap, "partition of 256-key segments",
          clperm_partition_segments(ctx, CLPERM_KEY_U32, k, NULL, ns, seg, 4, 3, CLPERM_TILE_SORT_AUTO, 0, NULL, NULL),
          k, ns * 4, a, c, o);
    clReleaseMemObject(k);

    /* Device-wide sort of u32 pairs, by default and by Onesweep if the device accepts it. */
    for (int onesweep = 0; onesweep <= 1; onesweep++) {
        if (onesweep) {
            clperm_status st = clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_ALGORITHM, 2);
            cr_assert(st == CLPERM_SUCCESS || st == CLPERM_ERROR_UNSUPPORTED, "%s, %s: sort_algorithm 2: %s",
                      test_device_label(ctx), cap, clperm_status_string(st));
            if (st != CLPERM_SUCCESS) {
                o->refused++;
                cr_log_info("%s, %s: Onesweep refused", test_device_label(ctx), cap);
                break;
            }
        }
        uint32_t *vals = malloc(n * 4), *kv = malloc(n * 8);
        cr_assert(vals && kv);
        for (uint64_t i = 0; i < n; i++) vals[i] = (uint32_t)i;
        memcpy(c, a, n * 4);
        clperm_sort_host_request hr = {CLPERM_KEY_U32, c, CLPERM_TYPE_U32, vals, n, {0, 0, 0}};
        cr_assert_eq(clperm_sort_host(&hr), CLPERM_SUCCESS);
        memcpy(kv + n, vals, n * 4); /* keys then values, as read back below */
        memcpy(kv, c, n * 4);
        cl_mem dk = test_buffer(ctx, n * 4, a);
        for (uint64_t i = 0; i < n; i++) vals[i] = (uint32_t)i;
        cl_mem dv = test_buffer(ctx, n * 4, vals);
        cr_assert(dk && dv);
        clperm_sort_request req = {CLPERM_KEY_U32, dk, CLPERM_TYPE_U32, dv, n, {0, 0, 0}, NULL, NULL, 0};
        clperm_status st = clperm_sort(ctx, &req, 0, NULL, NULL);
        check(ctx, cap, onesweep ? "Onesweep sort of u32 pairs (keys)" : "sort of u32 pairs (keys)", st, dk, n * 4, a,
              kv, o);
        check(ctx, cap, onesweep ? "Onesweep sort of u32 pairs (values)" : "sort of u32 pairs (values)", st, dv, n * 4,
              vals, kv + n, o);
        clReleaseMemObject(dk);
        clReleaseMemObject(dv);
        free(vals);
        free(kv);
    }
    clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_ALGORITHM, 0);

    /* The counting sort of 16-bit keys alone (its counters as the local memory allows), with each
     * kernel kind the device takes. */
    cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_ALGORITHM, 3), CLPERM_SUCCESS);
    for (int kind = 1; kind <= 2; kind++) {
        if (clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_KERNEL, kind) != CLPERM_SUCCESS) continue;
        memcpy(c, a, n * 2);
        clperm_sort_host_request hr = {CLPERM_KEY_U16, c, 0, NULL, n, {0, 0, 0}};
        cr_assert_eq(clperm_sort_host(&hr), CLPERM_SUCCESS);
        cl_mem dk = test_buffer(ctx, n * 2, a);
        cr_assert_not_null(dk);
        clperm_sort_request req = {CLPERM_KEY_U16, dk, 0, NULL, n, {0, 0, 0}, NULL, NULL, 0};
        check(ctx, cap, kind == 1 ? "counting sort of u16 keys, work-group kernels" : "counting sort of u16 keys, serial",
              clperm_sort(ctx, &req, 0, NULL, NULL), dk, n * 2, a, c, o);
        clReleaseMemObject(dk);
    }
    clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_KERNEL, 0);
    clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_ALGORITHM, 0);

    /* Segmented sort: segments of 1 to about 9000 keys. */
    {
        uint32_t offs[40];
        uint64_t at = 0;
        offs[0] = 0;
        for (int s = 1; s < 40; s++) {
            at += (uint64_t)((s * 2654435761u) % 9000) + 1;
            offs[s] = (uint32_t)at;
        }
        uint64_t sn = at;
        cr_assert(sn <= 2 * n); /* a and c hold 2n u32 */
        memcpy(c, a, sn * 4);
        clperm_sort_host_request hr = {CLPERM_KEY_U32, c, 0, NULL, sn, {0, 0, 0}};
        cr_assert_eq(clperm_sort_segmented_host(&hr, offs, CLPERM_TYPE_U32, 39), CLPERM_SUCCESS);
        cl_mem dk = test_buffer(ctx, sn * 4, a), doff = test_buffer(ctx, sizeof offs, offs);
        cr_assert(dk && doff);
        clperm_sort_request req = {CLPERM_KEY_U32, dk, 0, NULL, sn, {0, 0, 0}, NULL, NULL, 0};
        clperm_segments segs = {doff, CLPERM_TYPE_U32, 39};
        check(ctx, cap, "segmented sort", clperm_sort_segmented(ctx, &req, &segs, 0, NULL, NULL), dk, sn * 4, a, c,
              o);
        clReleaseMemObject(dk);
        clReleaseMemObject(doff);
    }

    /* Generator fills, generators shared by 8 and by 64 work-items. */
    cr_assert_eq(test_read(ctx, dst, n * 8, b), 0);
    for (uint32_t kk = 8; kk <= 64; kk *= 8) {
        clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, kk, CLPERM_RNG_SCRAMBLE_STARSTAR};
        cr_assert_eq(clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_U32, c, n, 5, 3), CLPERM_SUCCESS);
        check(ctx, cap, kk == 8 ? "fill, k = 8" : "fill, k = 64",
              clperm_rng_fill(ctx, &spec, CLPERM_RNG_OUT_U32, dst, n, 5, 3, 0, NULL, NULL), dst, n * 4, b, c, o);
        cr_assert_eq(test_read(ctx, dst, n * 8, b), 0);
    }

    /* Offline permutations: a transpose of 8-byte items, and the scheduled permutation. */
    const uint64_t rows = 1001, cols = 37;
    cr_assert_eq(clperm_transpose_host(a, c, rows, cols, 8), CLPERM_SUCCESS);
    check(ctx, cap, "transpose", clperm_transpose(ctx, src, dst, rows, cols, 8, 0, NULL, NULL), dst, rows * cols * 8, b,
          c, o);
    cr_assert_eq(test_read(ctx, dst, n * 8, b), 0);
    {
        const uint64_t pn = 1u << 16;
        uint32_t *perm = malloc(pn * 4);
        cr_assert_not_null(perm);
        cr_assert_eq(clperm_permutation_host(CLPERM_TYPE_U32, perm, pn, 21, NULL), CLPERM_SUCCESS);
        cr_assert_eq(clperm_permute_scatter_host(a, c, pn, 4, CLPERM_TYPE_U32, perm), CLPERM_SUCCESS);
        clperm_perm_plan *plan = NULL;
        clperm_status st = clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, perm, pn, NULL);
        if (st == CLPERM_SUCCESS) st = clperm_perm_plan_execute(plan, src, dst, 4, 0, NULL, NULL);
        check(ctx, cap, "scheduled permutation", st, dst, pn * 4, b, c, o);
        if (plan) clperm_perm_plan_free(plan);
        free(perm);
    }
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clReleaseMemObject(val);
    free(a);
    free(b);
    free(c);
}

Test(caps, every_operation_runs_or_is_refused_cleanly_on_smaller_devices) {
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        cr_assert_eq(setenv("CLPERM_TEST_PROFILE", caps[i], 1), 0);
        TEST_EACH_DEVICE(ctx) {
            clperm_profile p;
            cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
            if (p.vendor == CLPERM_VENDOR_OCLGRIND) continue; /* minutes of simulation: PoCL and GPUs cover it */
            /* The device's own kernels under the middle cap, the work-group kernels GPUs run
             * under the others (on CPUs the default kernels are mostly one work-item per tile,
             * which no cap touches): each kind and cap a build of every program. */
            int wgk = i != 1;
            if (wgk) {
                const clperm_param kinds[] = {CLPERM_PARAM_SCAN_KERNEL, CLPERM_PARAM_SHUFFLE_KERNEL,
                                              CLPERM_PARAM_RNG_KERNEL, CLPERM_PARAM_SORT_KERNEL};
                for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++) {
                    clperm_status st = clperm_ctx_set_param(ctx, kinds[q], CLPERM_KERNEL_WORK_GROUP);
                    cr_assert(st == CLPERM_SUCCESS || st == CLPERM_ERROR_UNSUPPORTED);
                }
            }
            outcome o = {0, 0};
            run_all(ctx, caps[i], &o);
            cr_log_info("%s, %s, %s kernels: %d ran, %d refused", test_device_label(ctx), caps[i],
                        wgk ? "work-group" : "default", o.ran, o.refused);
            cr_assert_gt(o.ran, 0, "%s, %s: nothing ran", test_device_label(ctx), caps[i]);
        }
    }
    unsetenv("CLPERM_TEST_PROFILE");
}

Test(caps, the_profile_shows_the_caps_and_malformed_ones_are_refused) {
    if (test_device_count() == 0) {
        test_no_device();
        return;
    }
    cr_assert_eq(setenv("CLPERM_TEST_PROFILE", "local=16384,wg=64,cache=4096,no-atomics64", 1), 0);
    clperm_ctx *ctx = NULL;
    cr_assert_eq(clperm_ctx_create_device(&ctx, "0"), CLPERM_SUCCESS);
    clperm_profile p;
    cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
    cr_assert_leq(p.local_mem_bytes, 16384);
    cr_assert_leq(p.max_work_group_size, 64);
    cr_assert_eq(p.cache_bytes, 4096);
    cr_assert_eq(p.atomics64, 0);
    clperm_ctx_free(ctx);
    const char *bad[] = {"local=16", "wg=0", "fast", "local=1k", "wg=64,fast", "cache=8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(setenv("CLPERM_TEST_PROFILE", bad[i], 1), 0);
        ctx = NULL;
        clperm_status st = clperm_ctx_create_device(&ctx, "0");
        cr_assert_eq(st, CLPERM_ERROR_INVALID_ARGUMENT, "CLPERM_TEST_PROFILE=%s: %s", bad[i], clperm_status_string(st));
    }
    unsetenv("CLPERM_TEST_PROFILE");
}

/* Subgroups of 8 (as Intel's) and 16 KiB of local memory: a tile of the device's work-group
 * carries a digit counter per subgroup and digit, more than fits, and the sort halves its
 * work-group until they do (rather than refusing). */
Test(caps, narrow_subgroups_shrink_the_sort_tile_to_fit) {
    cr_assert_eq(setenv("CLPERM_TEST_PROFILE", "local=16384", 1), 0);
    cr_assert_eq(setenv("CLPERM_SUBGROUP_WIDTH", "8", 1), 0);
    TEST_EACH_DEVICE(ctx) {
        clperm_profile p;
        cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
        if (p.vendor == CLPERM_VENDOR_OCLGRIND) continue;
        const test_param sets[] = {{CLPERM_PARAM_SORT_KERNEL, CLPERM_KERNEL_WORK_GROUP},
                                   {CLPERM_PARAM_SORT_WG_SIZE, 256}};
        if (!test_apply_params(ctx, sets, 2)) continue; /* refused: the device's work-groups are smaller */
        cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_WG_SIZE, 0), CLPERM_SUCCESS);
        /* 256 work-items as the tuned size, not as the caller's (which the plan keeps). */
        ctx->tuning.sort.wg_size_32 = 256;
        const uint64_t n = 70001;
        uint32_t *keys = malloc(n * 4), *want = malloc(n * 4);
        cr_assert(keys && want);
        test_fill_random(keys, n * 4, 77);
        memcpy(want, keys, n * 4);
        clperm_sort_host_request hr = {CLPERM_KEY_U32, want, 0, NULL, n, {0, 0, 0}};
        cr_assert_eq(clperm_sort_host(&hr), CLPERM_SUCCESS);
        cl_mem d = test_buffer(ctx, n * 4, keys);
        cr_assert_not_null(d);
        clperm_sort_request req = {CLPERM_KEY_U32, d, 0, NULL, n, {0, 0, 0}, NULL, NULL, 0};
        clperm_status st = clperm_sort(ctx, &req, 0, NULL, NULL);
        cr_assert_eq(st, CLPERM_SUCCESS, "%s: sort at width 8 in 16 KiB: %s", test_device_label(ctx),
                     clperm_status_string(st));
        cr_assert_eq(test_read(ctx, d, n * 4, keys), 0);
        cr_assert_eq(memcmp(keys, want, n * 4), 0, "%s: sort at width 8 in 16 KiB differs from the host's",
                     test_device_label(ctx));
        /* The bucket shuffle's label pass, whose tile also keeps its labels in local memory. */
        const clperm_shuffle_opts buckets = {CLPERM_BIJECTION_FEISTEL, 0, CLPERM_SHUFFLE_BUCKETS};
        cr_assert_eq(clperm_shuffle_host(keys, want, n, 4, 5, &buckets), CLPERM_SUCCESS);
        cl_mem out = test_buffer(ctx, n * 4, NULL);
        cr_assert_not_null(out);
        st = clperm_shuffle(ctx, d, out, n, 4, 5, &buckets, 0, NULL, NULL);
        cr_assert_eq(st, CLPERM_SUCCESS, "%s: bucket shuffle at width 8 in 16 KiB: %s", test_device_label(ctx),
                     clperm_status_string(st));
        cr_assert_eq(test_read(ctx, out, n * 4, keys), 0);
        cr_assert_eq(memcmp(keys, want, n * 4), 0, "%s: bucket shuffle at width 8 in 16 KiB differs from the host's",
                     test_device_label(ctx));
        clReleaseMemObject(out);
        clReleaseMemObject(d);
        free(keys);
        free(want);
    }
    unsetenv("CLPERM_SUBGROUP_WIDTH");
    unsetenv("CLPERM_TEST_PROFILE");
}

/* The sort's plan counts the local memory of its pass kernel, and shrinks the tile until that
 * fits the device: the kernel as built must take no more than the plan counted (else, on a
 * device whose local memory it passes, it would not launch). Keys alone, pairs, u64 pairs, the
 * bucket shuffle's label programs (whose tiles keep their labels in local memory) and the
 * segmented sort's kernel of a segment a work-group (values beside the keys in local memory), at
 * the device's own subgroup width and at width 8 (more subgroups, more counters). */
Test(caps, the_sort_plan_counts_its_kernels_local_memory) {
    static const struct {
        clperm_key_type key;
        size_t value_bytes;
        int labels, segments;
    } jobs[] = {{CLPERM_KEY_U32, 0, 0, 0}, {CLPERM_KEY_U32, 4, 0, 0},  {CLPERM_KEY_U64, 8, 0, 0},
                {CLPERM_KEY_U32, 4, 1, 0}, {CLPERM_KEY_U32, 16, 1, 0}, {CLPERM_KEY_U32, 0, 0, 1},
                {CLPERM_KEY_U32, 4, 0, 1}, {CLPERM_KEY_U64, 8, 0, 1}};
    int checked = 0, eligible = 0;
    for (int narrow = 0; narrow <= 1; narrow++) {
        if (narrow) cr_assert_eq(setenv("CLPERM_SUBGROUP_WIDTH", "8", 1), 0);
        TEST_EACH_DEVICE(ctx) {
            clperm_profile prof;
            cr_assert_eq(clperm_ctx_profile(ctx, &prof), CLPERM_SUCCESS);
            if (prof.vendor == CLPERM_VENDOR_OCLGRIND) continue; /* minutes of builds: PoCL and GPUs cover it */
            eligible++;
            clperm_status st = clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_KERNEL, CLPERM_KERNEL_WORK_GROUP);
            if (st == CLPERM_ERROR_UNSUPPORTED) continue;
            cr_assert_eq(st, CLPERM_SUCCESS);
            for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
                unsigned width = jobs[j].key == CLPERM_KEY_U64 ? 64 : 32;
                clperm__radix_job job = {.key_type = jobs[j].key,
                                         .value_bytes = jobs[j].value_bytes,
                                         .n = (1u << 20) + 3,
                                         .bits = {width, 0, jobs[j].labels ? 8 : width, 0, 0, 0},
                                         .labels = jobs[j].labels,
                                         .segments = jobs[j].segments};
                clperm__radix_plan plan;
                st = clperm__radix_plan_job(ctx, &job, 0, 0, &plan);
                if (st == CLPERM_ERROR_UNSUPPORTED) continue;
                cr_assert_eq(st, CLPERM_SUCCESS, "%s: plan %zu: %s", test_device_label(ctx), j,
                             clperm_status_string(st));
                if (plan.serial) continue;
                cl_kernel k = NULL;
                const char *name = jobs[j].segments      ? "clperm_radix_segments"
                                   : plan.algorithm == 2 ? "clperm_radix_onesweep"
                                                         : "clperm_radix_scatter";
                st = clperm__radix_kernel(ctx, &plan, name, &k);
                cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s of job %zu: %s", test_device_label(ctx), name, j,
                             clperm_status_string(st));
                cl_ulong local = 0;
                cr_assert_eq(clGetKernelWorkGroupInfo(k, clperm_ctx_cl_device(ctx), CL_KERNEL_LOCAL_MEM_SIZE,
                                                      sizeof local, &local, NULL),
                             CL_SUCCESS);
                if (prof.local_report_scale > 1) local /= prof.local_report_scale;
                cr_assert_leq(local, plan.local_bytes,
                              "%s, width %s: job %zu (%zu x %u keys) takes %llu bytes of local memory, the plan "
                              "counted %zu",
                              test_device_label(ctx), narrow ? "8" : "native", j, plan.wg, plan.items,
                              (unsigned long long)local, plan.local_bytes);
                checked++;
            }
        }
    }
    unsetenv("CLPERM_SUBGROUP_WIDTH");
    if (!eligible) test_no_device();
    cr_assert_gt(checked, 0, "no device built the sort's pass kernel");
}
