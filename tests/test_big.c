/* A scan whose buffers exceed 2^32 bytes, where the device allows one: 64-bit offsets all the way. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define PERIOD 16

Test(big, scan_beyond_4GiB, .timeout = 600) {
    const uint64_t n = (1ull << 30) + 3; /* u32: 4 GiB + 12 bytes */
    const size_t bytes = (size_t)(n * 4);
    int ran = 0;
    TEST_EACH_DEVICE(ctx) {
        clperm_profile p;
        clperm_ctx_profile(ctx, &p);
        if (p.max_alloc_bytes < bytes || p.global_mem_bytes < 2 * (cl_ulong)bytes + (1ull << 30)) {
            cr_log_info("%s: allocations of %zu bytes not allowed (max %llu), skipped", test_device_label(ctx), bytes,
                        (unsigned long long)p.max_alloc_bytes);
            continue;
        }
        cl_command_queue q = clperm_ctx_cl_queue(ctx);
        cl_mem src = test_buffer(ctx, bytes, NULL), dst = test_buffer(ctx, bytes, NULL);
        cl_mem sum = test_buffer(ctx, 4, NULL);
        cr_assert(src && dst && sum);
        /* A period-16 pattern of distinct values: the prefix at any index has a closed form. */
        uint32_t pattern[PERIOD], part[PERIOD + 1] = {0};
        test_fill_random(pattern, sizeof pattern, test_seed());
        for (int i = 0; i < PERIOD; i++) part[i + 1] = part[i] + pattern[i];
        cr_assert_eq(clEnqueueFillBuffer(q, src, pattern, sizeof pattern, 0, bytes - 12, 0, NULL, NULL), CL_SUCCESS);
        cr_assert_eq(clEnqueueWriteBuffer(q, src, CL_TRUE, bytes - 12, 12, pattern, 0, NULL, NULL), CL_SUCCESS);
        for (int algorithm = 1; algorithm <= 2; algorithm++) {
            clperm_ctx_set_param(ctx, CLPERM_PARAM_SCAN_ALGORITHM, algorithm);
            cr_assert_eq(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, dst, n, 0, NULL, NULL), CLPERM_SUCCESS);
            const size_t chunk = 1u << 24;
            uint32_t *buf = malloc(chunk * 4);
            for (uint64_t base = 0; base < n; base += chunk) {
                size_t m = (size_t)(n - base < chunk ? n - base : chunk);
                cr_assert_eq(clEnqueueReadBuffer(q, dst, CL_TRUE, base * 4, m * 4, buf, 0, NULL, NULL), CL_SUCCESS);
                for (size_t i = 0; i < m; i++) {
                    uint64_t k = base + i;
                    uint32_t want = (uint32_t)(k / PERIOD) * part[PERIOD] + part[k % PERIOD];
                    cr_assert_eq(buf[i], want, "%s: algorithm %d item %llu", test_device_label(ctx), algorithm,
                                 (unsigned long long)k);
                }
            }
            free(buf);
        }
        cr_assert_eq(clperm_reduce_sum(ctx, CLPERM_TYPE_U32, src, n, sum, 0, NULL, NULL), CLPERM_SUCCESS);
        uint32_t total = 0;
        cr_assert_eq(test_read(ctx, sum, 4, &total), 0);
        uint32_t want = (uint32_t)(n / PERIOD) * part[PERIOD] + part[n % PERIOD];
        cr_assert_eq(total, want);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(sum);
        ran++;
    }
    if (!ran) cr_skip_test("no device allows a buffer over 4 GiB");
}
