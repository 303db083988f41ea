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
    int k = ctx->tuning.rng.k;
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

static void spec_options(const clperm_ctx *ctx, const clperm_rng_spec *s, clperm__buf *o) {
    clperm__buf_add(o, "-DCLPERM_RNG_FAMILY=%d -DCLPERM_RNG_K=%u -DCLPERM_RNG_SCRAMBLE=%d -DCLPERM_RNG_WARP_SYNC=%d",
                    (int)s->family, s->k, (int)s->scramble, warp_sync(ctx, s->k));
}

clperm_status clperm_rng_build_options(clperm_ctx *ctx, const clperm_rng_spec *spec, char *buf, size_t cap) {
    CLPERM_RETURN_IF(!buf || cap == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_rng_spec s;
    clperm_status st = resolve_spec(ctx, spec, &s);
    if (st == CLPERM_SUCCESS) {
        char opts[256];
        clperm__buf o = clperm__buf_on(opts, sizeof opts);
        spec_options(ctx, &s, &o);
        st = clperm__buf_status(&o);
        if (st == CLPERM_SUCCESS && o.len + 1 > cap) st = CLPERM_ERROR_BUFFER_TOO_SMALL;
        if (st == CLPERM_SUCCESS) memcpy(buf, opts, o.len + 1);
    }
    clperm__ctx_leave(ctx);
    return st;
}

static size_t fill_wg_size(const clperm_ctx *ctx, uint32_t k) {
    if (clperm__rng_kernel(ctx) == CLPERM_KERNEL_SERIAL) return 1;
    size_t wg = (size_t)ctx->tuning.rng.wg_size;
    while (wg > ctx->profile.max_work_group_size && wg > k) wg /= 2;
    return wg < k ? k : wg;
}

/* The fill's program: the tables, the generators, then the fill kernels. */
static const char *const rng_texts[] = {clperm__cl_clperm_rng_tables_h, clperm__cl_clperm_rng_h, clperm__cl_rng_rng_cl};
static const clperm__source rng_source = {"rng", 3, rng_texts, NULL};

static clperm_status fill_checked(clperm_ctx *ctx, const clperm_rng_spec *spec, clperm_rng_output output, cl_mem dst,
                                  uint64_t n, uint64_t seed, uint64_t stream, cl_uint num_events,
                                  const cl_event *events, cl_event *event) {
    clperm_rng_spec s;
    CLPERM_TRY(resolve_spec(ctx, spec, &s));
    CLPERM_RETURN_IF(output < CLPERM_RNG_OUT_U32 || output > CLPERM_RNG_OUT_DOUBLE, CLPERM_ERROR_INVALID_TYPE);
    size_t size = output == CLPERM_RNG_OUT_U32 || output == CLPERM_RNG_OUT_FLOAT ? 4 : 8;
    size_t wg = fill_wg_size(ctx, s.k);
    int serial = clperm__rng_kernel(ctx) == CLPERM_KERNEL_SERIAL;
    CLPERM_RETURN_IF(!serial && (wg < s.k || wg > ctx->profile.max_work_group_size), CLPERM_ERROR_UNSUPPORTED);
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    CLPERM_TRY(clperm__check_buffer(ctx, dst, n, size, 1));
    if (n == 0) return clperm__empty_call(ctx, num_events, events, event);

    char options[512];
    clperm__buf o = clperm__buf_on(options, sizeof options);
    spec_options(ctx, &s, &o);
    clperm__buf_add(&o,
                    " -DCLPERM_RNG_STEPS=%d -DCLPERM_RNG_OUT=%d -DCLPERM_WG_SIZE=%zu -DCLPERM_RNG_SERIAL=%d "
                    "-DCLPERM_RNG_LANES=%d",
                    CLPERM_RNG_FILL_STEPS, (int)output, wg, serial, SERIAL_LANES);
    CLPERM_TRY(clperm__buf_status(&o));
    cl_kernel kern;
    CLPERM_TRY(clperm__kernel_get(ctx, &rng_source, options, "clperm_rng_fill", &kern));

    uint64_t per_block = (uint64_t)s.k * CLPERM_RNG_FILL_STEPS, blocks = (n + per_block - 1) / per_block;
    uint64_t per_group = serial ? wg * SERIAL_LANES : wg / s.k, groups = (blocks + per_group - 1) / per_group;
    /* Launches of at most 2^20 work-groups each, in order on the queue. */
    const uint64_t max_groups = (uint64_t)1 << 20;
    clperm_status st = CLPERM_SUCCESS;
    for (uint64_t g0 = 0; g0 < groups && st == CLPERM_SUCCESS; g0 += max_groups) {
        uint64_t g = groups - g0 < max_groups ? groups - g0 : max_groups;
        cl_ulong nn = n, sd = seed, str = stream, first = g0 * per_group;
        clperm__args a = {kern, 0, CL_SUCCESS};
        CLPERM__ARG(a, dst);
        CLPERM__ARG(a, nn);
        CLPERM__ARG(a, sd);
        CLPERM__ARG(a, str);
        CLPERM__ARG(a, first);
        if (a.err != CL_SUCCESS) {
            st = a.err;
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
