/* The subgroup layer: every operation, every implementation the device runs, several widths,
 * against a host model of the subgroup built from the lanes the device reports. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "internal.h"

#include "subgroup_test_kernels.h"

#define WG 128
#define GROUPS 3
#define N (WG * GROUPS)

/* Runs sg_test with (impl, width); returns 0 when the device cannot run the implementation. */
static int run(clperm_ctx *ctx, int impl, int width, uint32_t *in32, uint64_t *in64, uint32_t *out32,
               uint64_t *out64, uint32_t *meta, int *actual_width) {
    if (clperm_ctx_set_param(ctx, CLPERM_PARAM_SG_IMPL, impl) == CLPERM_ERROR_UNSUPPORTED) return 0;
    cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_SG_WIDTH, width), CLPERM_SUCCESS);
    const char *texts[2] = {clperm__cl_common_subgroup_h, clperm__cl_subgroup_test_cl};
    size_t lengths[2] = {clperm__cl_common_subgroup_h_size, clperm__cl_subgroup_test_cl_size};
    clperm__source src = {"subgroup_test", 2, texts, lengths};
    cl_kernel k;
    cr_assert_eq(clperm__ctx_enter(ctx), CLPERM_SUCCESS);
    clperm_status st = clperm__sg_kernel_get(ctx, &src, "", WG, "sg_test", &k);
    clperm__ctx_leave(ctx);
    cr_assert_eq(st, CLPERM_SUCCESS, "%s: build: %s\n%s", test_device_label(ctx), clperm_status_name(st),
                 clperm_ctx_build_log(ctx));
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SG_WIDTH, actual_width);
    int used = 0;
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SG_IMPL, &used);
    if (used != impl) {
        /* The build found the implementation unusable here and fell back: nothing to test. */
        cr_log_info("%s: implementation %d fell back to %d after the build", test_device_label(ctx), impl, used);
        return 0;
    }
    cl_mem b[5] = {test_buffer(ctx, N * 4, in32), test_buffer(ctx, N * 8, in64), test_buffer(ctx, N * 32, NULL),
                   test_buffer(ctx, N * 48, NULL), test_buffer(ctx, N * 4, NULL)};
    for (cl_uint i = 0; i < 5; i++) cr_assert_eq(clSetKernelArg(k, i, sizeof b[i], &b[i]), CL_SUCCESS);
    size_t global = N, local = WG;
    cr_assert_eq(clEnqueueNDRangeKernel(clperm_ctx_cl_queue(ctx), k, 1, NULL, &global, &local, 0, NULL, NULL),
                 CL_SUCCESS);
    cr_assert_eq(test_read(ctx, b[2], N * 32, out32), 0);
    cr_assert_eq(test_read(ctx, b[3], N * 48, out64), 0);
    cr_assert_eq(test_read(ctx, b[4], N * 4, meta), 0);
    for (int i = 0; i < 5; i++) clReleaseMemObject(b[i]);
    return 1;
}

/* Work-items of one subgroup, by lane: idx[lane] = global id. Returns the subgroup's size. */
static int members(const uint32_t *meta, int g, int *idx) {
    int group = g / WG, id = (int)(meta[g] >> 16), size = 0;
    for (int i = group * WG; i < (group + 1) * WG; i++)
        if ((int)(meta[i] >> 16) == id) {
            int lane = (int)(meta[i] & 0xffff);
            cr_assert_lt(lane, WG);
            idx[lane] = i;
            if (lane + 1 > size) size = lane + 1;
        }
    return size;
}

static void check(const char *what, int impl, int width, const uint32_t *in32, const uint64_t *in64,
                  const uint32_t *out32, const uint64_t *out64, const uint32_t *meta) {
    for (int g = 0; g < N; g++) {
        int idx[WG];
        int w = members(meta, g, idx);
        cr_assert_eq(w, width, "%s impl %d: subgroup of %d lanes, expected %d", what, impl, w, width);
        int lane = (int)(meta[g] & 0xffff);
        int srcl = (lane * 7 + 3) % w;
        uint32_t incl = 0, red = 0, first = (uint32_t)w, any = 0, all = 1, ballot = 0;
        uint64_t incl64 = 0, red64 = 0, ballot64 = 0;
        for (int l = 0; l < w; l++) {
            uint32_t x = in32[idx[l]];
            uint64_t y = in64[idx[l]];
            if (l <= lane) incl += x, incl64 += y;
            red += x;
            red64 += y;
            if ((x & 7u) == 0 && first == (uint32_t)w) first = (uint32_t)l;
            any |= (x & 63u) == 0;
            all &= (x & 1u) == 0;
            if ((x & 1u) && l < 32) ballot |= 1u << l;
            if (y & 1u) ballot64 |= 1ull << l;
        }
        const uint32_t want32[8] = {in32[idx[3 % w]], in32[idx[srcl]], incl, incl - in32[g], red, first,
                                    any | (all << 1), ballot};
        const uint64_t want64[6] = {in64[idx[5 % w]], in64[idx[srcl]], incl64, incl64 - in64[g], red64, ballot64 >> 32};
        for (int k = 0; k < 8; k++)
            cr_assert_eq(out32[g * 8 + k], want32[k], "%s impl %d width %d: u32 op %d at work-item %d lane %d: %u, want %u",
                         what, impl, w, k, g, lane, out32[g * 8 + k], want32[k]);
        for (int k = 0; k < 6; k++)
            cr_assert_eq(out64[g * 6 + k], want64[k], "%s impl %d width %d: u64 op %d at work-item %d: %llu, want %llu",
                         what, impl, w, k, g, (unsigned long long)out64[g * 6 + k], (unsigned long long)want64[k]);
    }
}

static void sg_case(int impl, int width) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx", (unsigned long long)seed);
    static uint32_t in32[N], out32[N * 8], meta[N];
    static uint64_t in64[N], out64[N * 6];
    test_fill_random(in32, sizeof in32, seed);
    test_fill_random(in64, sizeof in64, seed + 1);
    /* Make some subgroups all-even and give some a lane divisible by 64, so that both outcomes of
     * any and all occur. */
    for (int g = 0; g < N; g++) {
        if ((g / 8) % 3 == 0) in32[g] &= ~1u;
        if (g % 29 == 0) in32[g] &= ~63u;
    }
    int ran = 0;
    TEST_EACH_DEVICE(ctx) {
        int actual = 0;
        if (run(ctx, impl, width, in32, in64, out32, out64, meta, &actual)) {
            check(test_device_label(ctx), impl, actual, in32, in64, out32, out64, meta);
            ran++;
        }
    }
    if (!ran) cr_skip_test("no device runs subgroup implementation %d", impl);
}

Test(subgroup, local_width_1) { sg_case(CLPERM_SG_IMPL_LOCAL, 1); }
Test(subgroup, local_width_4) { sg_case(CLPERM_SG_IMPL_LOCAL, 4); }
Test(subgroup, local_width_8) { sg_case(CLPERM_SG_IMPL_LOCAL, 8); }
Test(subgroup, local_width_16) { sg_case(CLPERM_SG_IMPL_LOCAL, 16); }
Test(subgroup, local_width_32) { sg_case(CLPERM_SG_IMPL_LOCAL, 32); }
Test(subgroup, local_width_64) { sg_case(CLPERM_SG_IMPL_LOCAL, 64); }
Test(subgroup, khr_hardware_width) { sg_case(CLPERM_SG_IMPL_KHR, 0); }
Test(subgroup, ptx_warp) { sg_case(CLPERM_SG_IMPL_PTX, 0); }
