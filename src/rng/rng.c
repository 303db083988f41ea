/* Generator fills on the device, the default generator, and build options for users' kernels. */
#include <stdio.h>
#include <string.h>

#include "clperm_rng.h"
#include "internal.h"

/* Generators per work-item of the serial kernel, in the lanes of its vectors. */
#define SERIAL_LANES 8

/* The families in the order of preference (docs/rng-quality.md); the first with a table at k. */
static clperm_rng_family default_family(uint32_t k) {
    static const clperm_rng_family order[] = {CLPERM_RNG_FAMILY_THREE, CLPERM_RNG_FAMILY_BUFFERED,
                                              CLPERM_RNG_FAMILY_ITERATED, CLPERM_RNG_FAMILY_SLOWMEM,
                                              CLPERM_RNG_FAMILY_CORRELATED};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (clperm__rng_table((int)order[i], k)) return order[i];
    return CLPERM_RNG_FAMILY_AUTO;
}

static uint32_t default_k(const clperm_ctx *ctx) {
    int k = clperm__tuning_for(&ctx->profile)->rng_k;
    if (k) return (uint32_t)k;
    cl_uint w = ctx->profile.sg_width;
    return w >= 8 && w <= 64 && !(w & (w - 1)) ? w : 32;
}

static clperm_status resolve_spec(const clperm_ctx *ctx, const clperm_rng_spec *spec, clperm_rng_spec *out) {
    if (spec) *out = *spec;
    else out->family = CLPERM_RNG_FAMILY_AUTO, out->k = 0, out->scramble = CLPERM_RNG_DEFAULT_SCRAMBLE;
    if (!out->k) out->k = default_k(ctx);
    if (out->family == CLPERM_RNG_FAMILY_AUTO) out->family = default_family(out->k);
    return clperm__rng_spec_table(out) ? CLPERM_SUCCESS : CLPERM_ERROR_INVALID_ARGUMENT;
}

clperm_status clperm_rng_default(clperm_ctx *ctx, clperm_rng_spec *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = resolve_spec(ctx, NULL, out);
    clperm__ctx_leave(ctx);
    return st;
}

/* Warp synchronisation replaces barriers where k work-items always sit in one NVIDIA warp. */
static int warp_sync(const clperm_ctx *ctx, uint32_t k) {
    return ctx->profile.vendor == CLPERM_VENDOR_NVIDIA && (ctx->profile.device_type & CL_DEVICE_TYPE_GPU) && k <= 32;
}

static void spec_options(const clperm_ctx *ctx, const clperm_rng_spec *s, char *buf, size_t cap) {
    snprintf(buf, cap, "-DCLPERM_RNG_FAMILY=%d -DCLPERM_RNG_K=%u -DCLPERM_RNG_SCRAMBLE=%d -DCLPERM_RNG_WARP_SYNC=%d",
             (int)s->family, s->k, (int)s->scramble, warp_sync(ctx, s->k));
}

clperm_status clperm_rng_build_options(clperm_ctx *ctx, const clperm_rng_spec *spec, char *buf, size_t cap) {
    CLPERM_RETURN_IF(!buf || cap == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_rng_spec s;
    clperm_status st = resolve_spec(ctx, spec, &s);
    if (st == CLPERM_SUCCESS) {
        char opts[256];
        spec_options(ctx, &s, opts, sizeof opts);
        if (strlen(opts) + 1 > cap) st = CLPERM_ERROR_BUFFER_TOO_SMALL;
        else memcpy(buf, opts, strlen(opts) + 1);
    }
    clperm__ctx_leave(ctx);
    return st;
}

static size_t fill_wg_size(const clperm_ctx *ctx, uint32_t k) {
    if (clperm__rng_kernel(ctx) == 2) return 1;
    size_t wg = (size_t)clperm__tuning_for(&ctx->profile)->rng_wg_size;
    while (wg > ctx->profile.max_work_group_size && wg > k) wg /= 2;
    return wg < k ? k : wg;
}

#define ARG(kern, i, v) err = err != CL_SUCCESS ? err : clSetKernelArg(kern, i, sizeof(v), &(v))

static clperm_status fill_checked(clperm_ctx *ctx, const clperm_rng_spec *spec, clperm_rng_output output, cl_mem dst,
                                  uint64_t n, uint64_t seed, uint64_t stream, cl_uint num_events,
                                  const cl_event *events, cl_event *event) {
    clperm_rng_spec s;
    CLPERM_TRY(resolve_spec(ctx, spec, &s));
    CLPERM_RETURN_IF(output < CLPERM_RNG_OUT_U32 || output > CLPERM_RNG_OUT_DOUBLE, CLPERM_ERROR_INVALID_TYPE);
    size_t size = output == CLPERM_RNG_OUT_U32 || output == CLPERM_RNG_OUT_FLOAT ? 4 : 8;
    size_t wg = fill_wg_size(ctx, s.k);
    int serial = clperm__rng_kernel(ctx) == 2;
    CLPERM_RETURN_IF(!serial && (wg < s.k || wg > ctx->profile.max_work_group_size), CLPERM_ERROR_UNSUPPORTED);
    CLPERM_TRY(clperm__check_events(num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, n, size, 1));
    if (n == 0) return event ? clEnqueueMarkerWithWaitList(ctx->queue, num_events, events, event) : CLPERM_SUCCESS;

    char options[384], spec_opts[256];
    spec_options(ctx, &s, spec_opts, sizeof spec_opts);
    snprintf(options, sizeof options,
             "%s -DCLPERM_RNG_STEPS=%d -DCLPERM_RNG_OUT=%d -DCLPERM_WG_SIZE=%zu -DCLPERM_RNG_SERIAL=%d "
             "-DCLPERM_RNG_LANES=%d",
             spec_opts, CLPERM_RNG_FILL_STEPS, (int)output, wg, serial, SERIAL_LANES);
    const char *texts[3] = {clperm__cl_clperm_rng_tables_h, clperm__cl_clperm_rng_h, clperm__cl_rng_rng_cl};
    size_t lengths[3] = {clperm__cl_clperm_rng_tables_h_size, clperm__cl_clperm_rng_h_size, clperm__cl_rng_rng_cl_size};
    clperm__source src = {"rng", 3, texts, lengths};
    cl_kernel kern;
    CLPERM_TRY(clperm__kernel_get(ctx, &src, options, "clperm_rng_fill", &kern));

    uint64_t per_block = (uint64_t)s.k * CLPERM_RNG_FILL_STEPS, blocks = (n + per_block - 1) / per_block;
    uint64_t per_group = serial ? wg * SERIAL_LANES : wg / s.k, groups = (blocks + per_group - 1) / per_group;
    /* Launches of at most 2^20 work-groups each, in order on the queue. */
    const uint64_t max_groups = (uint64_t)1 << 20;
    clperm_status st = CLPERM_SUCCESS;
    for (uint64_t g0 = 0; g0 < groups && st == CLPERM_SUCCESS; g0 += max_groups) {
        uint64_t g = groups - g0 < max_groups ? groups - g0 : max_groups;
        cl_ulong nn = n, sd = seed, str = stream, first = g0 * per_group;
        cl_int err = CL_SUCCESS;
        ARG(kern, 0, dst);
        ARG(kern, 1, nn);
        ARG(kern, 2, sd);
        ARG(kern, 3, str);
        ARG(kern, 4, first);
        if (err != CL_SUCCESS) {
            st = err;
            break;
        }
        size_t global = (size_t)g * wg;
        int last = g0 + g >= groups;
        cl_event *ev = last ? event : NULL;
        st = clEnqueueNDRangeKernel(ctx->queue, kern, 1, NULL, &global, &wg, g0 == 0 ? num_events : 0,
                                    g0 == 0 ? events : NULL, ev);
    }
    return st;
}

clperm_status clperm_rng_fill(clperm_ctx *ctx, const clperm_rng_spec *spec, clperm_rng_output output, cl_mem dst,
                              uint64_t n, uint64_t seed, uint64_t stream, cl_uint num_events, const cl_event *events,
                              cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = fill_checked(ctx, spec, output, dst, n, seed, stream, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}
