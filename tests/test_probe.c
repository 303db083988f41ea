/* What the context's probes report (clperm_profile.loop_limit), checked against a plain OpenCL
 * kernel of a different shape on every device; and on a device that ends long loops early
 * (Mesa's llvmpipe), the operations that failed there before the probe, at sizes past the cap,
 * against the host, and the variants that cannot run refused with CLPERM_ERROR_UNSUPPORTED. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* Two loops of `half` iterations each, their count written to words[0]: the cap is shared by a
 * kernel's loops, so the total falls short of 2 * half where a device caps loops at fewer. */
static const char *two_loops =
    "__kernel void two_loops(__global uint *words, uint each) {\n"
    "    uint c = 0;\n"
    "    for (uint i = 0; i < each; i++) c += words[1];\n"
    "    for (uint i = 0; i < each; i++) c += words[2];\n"
    "    words[0] = c;\n"
    "}\n";

static cl_uint run_two_loops(clperm_ctx *ctx, cl_uint half) {
    cl_context c = clperm_ctx_cl_context(ctx);
    cl_device_id d = clperm_ctx_cl_device(ctx);
    cl_command_queue q = clperm_ctx_cl_queue(ctx);
    cl_int err;
    cl_program prog = clCreateProgramWithSource(c, 1, &two_loops, NULL, &err);
    cr_assert_not_null(prog);
    cr_assert_eq(clBuildProgram(prog, 1, &d, "", NULL, NULL), CL_SUCCESS);
    cl_kernel k = clCreateKernel(prog, "two_loops", &err);
    cr_assert_not_null(k);
    cl_uint words[3] = {0, 1, 1};
    cl_mem buf = test_buffer(ctx, sizeof words, words);
    cr_assert_not_null(buf);
    size_t one = 1;
    cr_assert_eq(clSetKernelArg(k, 0, sizeof buf, &buf), CL_SUCCESS);
    cr_assert_eq(clSetKernelArg(k, 1, sizeof half, &half), CL_SUCCESS);
    cr_assert_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL), CL_SUCCESS);
    cr_assert_eq(test_read(ctx, buf, sizeof words, words), 0);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    return words[0];
}

Test(probe, loop_limit_agrees_with_a_plain_kernel) {
    const cl_uint half = 50000; /* 100000 in all: past the one cap known, 65535 */
    TEST_EACH_DEVICE(ctx) {
        clperm_profile p;
        cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
        if (p.vendor == CLPERM_VENDOR_OCLGRIND) continue; /* not probed: a simulator */
        cl_uint got = run_two_loops(ctx, half);
        cr_log_info("%s: loop_limit %u, two loops of %u ran %u iterations", test_device_label(ctx), p.loop_limit,
                    half, got);
        if (p.loop_limit == 0)
            cr_assert_eq(got, 2 * half, "%s: no loop limit reported, but two loops of %u ran %u iterations",
                         test_device_label(ctx), half, got);
        else
            cr_assert_lt(got, 2 * half, "%s: loop limit %u reported, but two loops of %u ran in full",
                         test_device_label(ctx), p.loop_limit, half);
    }
}

/* Where loops are capped: single-pass look-back and serial kernels are refused, and the defaults
 * are right past the cap: the cases that were wrong on Rusticl's llvmpipe before the probe (the
 * permutation at n = 4,194,321, fills of generators shared by 32 and 64 work-items, the transpose
 * of 1,000,003 x 3, the segmented sort of long segments, the scan), and the sort and the bucket
 * shuffle, whose serial kernels take blocks short enough for the cap. */
Test(probe, capped_devices_refuse_or_compute_right) {
    TEST_EACH_DEVICE(ctx) {
        clperm_profile p;
        cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
        if (p.loop_limit) {
            const clperm_param params[] = {CLPERM_PARAM_SCAN_ALGORITHM, CLPERM_PARAM_SHUFFLE_FUSION,
                                           CLPERM_PARAM_SORT_ALGORITHM, CLPERM_PARAM_SCAN_KERNEL,
                                           CLPERM_PARAM_SHUFFLE_KERNEL, CLPERM_PARAM_RNG_KERNEL,
                                           CLPERM_PARAM_SORT_KERNEL, CLPERM_PARAM_PERMUTE_KERNEL};
            const int values[] = {2, CLPERM_FUSION_LOOKBACK, 2, CLPERM_KERNEL_SERIAL, CLPERM_KERNEL_SERIAL,
                                  CLPERM_KERNEL_SERIAL, CLPERM_KERNEL_SERIAL, CLPERM_PERMUTE_KERNEL_SERIAL};
            for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
                cr_assert_eq(clperm_ctx_set_param(ctx, params[i], values[i]), CLPERM_ERROR_UNSUPPORTED,
                             "%s: %s = %d accepted where loops are capped", test_device_label(ctx),
                             clperm_param_name(params[i]), values[i]);
        }
        if (p.vendor == CLPERM_VENDOR_OCLGRIND) continue; /* these sizes take minutes in a simulator */

        const uint64_t n = 4194321;
        uint32_t *got = malloc(n * 4), *want = malloc(n * 4);
        cr_assert(got && want);
        cl_mem d = test_buffer(ctx, n * 4, NULL);
        cr_assert_not_null(d);
        cr_assert_eq(clperm_permutation(ctx, CLPERM_TYPE_U32, d, n, 77, NULL, 0, NULL, NULL), CLPERM_SUCCESS);
        cr_assert_eq(test_read(ctx, d, n * 4, got), 0);
        cr_assert_eq(clperm_permutation_host(CLPERM_TYPE_U32, want, n, 77, NULL), CLPERM_SUCCESS);
        cr_assert_eq(memcmp(got, want, n * 4), 0, "%s: permutation of %llu differs from the host's",
                     test_device_label(ctx), (unsigned long long)n);
        /* The bucket shuffle's partition and the device-wide sort, whose serial kernels (CPUs) walk
         * a block a work-item: blocks of n / (8 compute units) would pass the cap. */
        const clperm_shuffle_opts buckets = {CLPERM_BIJECTION_FEISTEL, 0, CLPERM_SHUFFLE_BUCKETS};
        cr_assert_eq(clperm_permutation(ctx, CLPERM_TYPE_U32, d, n, 78, &buckets, 0, NULL, NULL), CLPERM_SUCCESS);
        cr_assert_eq(test_read(ctx, d, n * 4, got), 0);
        cr_assert_eq(clperm_permutation_host(CLPERM_TYPE_U32, want, n, 78, &buckets), CLPERM_SUCCESS);
        cr_assert_eq(memcmp(got, want, n * 4), 0, "%s: bucket permutation of %llu differs from the host's",
                     test_device_label(ctx), (unsigned long long)n);
        {
            uint32_t *keys = malloc(n * 4), *back = malloc(n * 4);
            cr_assert(keys && back);
            test_fill_random(keys, n * 4, 41);
            cl_mem dk = test_buffer(ctx, n * 4, keys), dv = test_buffer(ctx, n * 4, got);
            cr_assert(dk && dv);
            clperm_sort_request req = {CLPERM_KEY_U32, dk, CLPERM_TYPE_U32, dv, n, {0, 0, 0}, NULL, NULL, 0};
            cr_assert_eq(clperm_sort(ctx, &req, 0, NULL, NULL), CLPERM_SUCCESS);
            clperm_sort_host_request hr = {CLPERM_KEY_U32, keys, CLPERM_TYPE_U32, got, n, {0, 0, 0}};
            cr_assert_eq(clperm_sort_host(&hr), CLPERM_SUCCESS);
            cr_assert_eq(test_read(ctx, dk, n * 4, back), 0);
            cr_assert_eq(memcmp(back, keys, n * 4), 0, "%s: sort of %llu keys differs from the host's",
                         test_device_label(ctx), (unsigned long long)n);
            cr_assert_eq(test_read(ctx, dv, n * 4, back), 0);
            cr_assert_eq(memcmp(back, got, n * 4), 0, "%s: the values of the sort of %llu keys differ",
                         test_device_label(ctx), (unsigned long long)n);
            clReleaseMemObject(dk);
            clReleaseMemObject(dv);
            free(keys);
            free(back);
        }

        const uint64_t m = (1u << 20) + 5;
        for (int k = 32; k <= 64; k *= 2) {
            clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, (uint32_t)k, CLPERM_RNG_SCRAMBLE_STARSTAR};
            cr_assert_eq(clperm_rng_fill(ctx, &spec, CLPERM_RNG_OUT_U32, d, m, 5, 3, 0, NULL, NULL), CLPERM_SUCCESS);
            cr_assert_eq(test_read(ctx, d, m * 4, got), 0);
            cr_assert_eq(clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_U32, want, m, 5, 3), CLPERM_SUCCESS);
            cr_assert_eq(memcmp(got, want, m * 4), 0, "%s: fill with k = %d differs from the host's",
                         test_device_label(ctx), k);
        }

        /* The transpose of a 1,000,003 x 3 matrix of 4-, 8- and 16-byte items. */
        const uint64_t rows = 1000003, cols = 3;
        for (size_t es = 4; es <= 16; es *= 2) {
            size_t bytes = (size_t)(rows * cols) * es;
            unsigned char *in = malloc(bytes), *out = malloc(bytes), *ref = malloc(bytes);
            cr_assert(in && out && ref);
            test_fill_random(in, bytes, 9 + es);
            cl_mem ts = test_buffer(ctx, bytes, in), td = test_buffer(ctx, bytes, NULL);
            cr_assert(ts && td);
            cr_assert_eq(clperm_transpose(ctx, ts, td, rows, cols, es, 0, NULL, NULL), CLPERM_SUCCESS);
            cr_assert_eq(test_read(ctx, td, bytes, out), 0);
            cr_assert_eq(clperm_transpose_host(in, ref, rows, cols, es), CLPERM_SUCCESS);
            cr_assert_eq(memcmp(out, ref, bytes), 0, "%s: transpose of %llu x %llu, %zu-byte items, differs",
                         test_device_label(ctx), (unsigned long long)rows, (unsigned long long)cols, es);
            clReleaseMemObject(ts);
            clReleaseMemObject(td);
            free(in);
            free(out);
            free(ref);
        }

        /* The segmented sort of segments of up to 2^17 u32 keys, about log-uniform in length, as
         * the bench's skewed mix: one work-group a segment passed the cap (and wrote out of bounds,
         * a crash) until such segments went to the device-wide sort. */
        {
            uint32_t offs[64];
            size_t count = 0;
            uint64_t at = 0, state = 0x9e3779b97f4a7c15ull;
            offs[0] = 0;
            while (count < 63 && at < (1u << 18)) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                uint64_t len = (uint64_t)1 << ((state >> 33) % 18);
                len += (state >> 13) % len;
                if (len > (1u << 17)) len = 1u << 17;
                at += len;
                offs[++count] = (uint32_t)at;
            }
            uint64_t sn = at;
            uint32_t *keys = malloc(sn * 4), *sorted = malloc(sn * 4), *back = malloc(sn * 4);
            cr_assert(keys && sorted && back);
            test_fill_random(keys, sn * 4, 31);
            memcpy(sorted, keys, sn * 4);
            clperm_sort_host_request hr = {CLPERM_KEY_U32, sorted, 0, NULL, sn, {0, 0, 0}};
            cr_assert_eq(clperm_sort_segmented_host(&hr, offs, CLPERM_TYPE_U32, count), CLPERM_SUCCESS);
            cl_mem dk = test_buffer(ctx, sn * 4, keys), doff = test_buffer(ctx, (count + 1) * 4, offs);
            cr_assert(dk && doff);
            clperm_sort_request req = {CLPERM_KEY_U32, dk, 0, NULL, sn, {0, 0, 0}, NULL, NULL, 0};
            clperm_segments segs = {doff, CLPERM_TYPE_U32, count};
            cr_assert_eq(clperm_sort_segmented(ctx, &req, &segs, 0, NULL, NULL), CLPERM_SUCCESS);
            cr_assert_eq(test_read(ctx, dk, sn * 4, back), 0);
            cr_assert_eq(memcmp(back, sorted, sn * 4), 0, "%s: segmented sort of %zu segments, %llu keys, differs",
                         test_device_label(ctx), count, (unsigned long long)sn);
            clReleaseMemObject(dk);
            clReleaseMemObject(doff);
            free(keys);
            free(sorted);
            free(back);
        }

        cl_mem s = test_buffer(ctx, m * 4, want);
        cr_assert_not_null(s);
        cr_assert_eq(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, s, d, m, 0, NULL, NULL), CLPERM_SUCCESS);
        cr_assert_eq(test_read(ctx, d, m * 4, got), 0);
        uint32_t acc = 0;
        for (uint64_t i = 0; i < m; i++) {
            cr_assert_eq(got[i], acc, "%s: scan item %llu differs from the host's", test_device_label(ctx),
                         (unsigned long long)i);
            acc += want[i];
        }
        clReleaseMemObject(s);
        clReleaseMemObject(d);
        free(got);
        free(want);
    }
}
