/* Program building: per-context memory cache, the disk cache, and the subgroup layer's -D
 * options with verification of the subgroup width after the build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* The texts a program compiles: clperm_features.h first, then the source's own. */
#define MAX_TEXTS 16

typedef struct program_texts {
    cl_uint count;
    const char *texts[MAX_TEXTS];
    size_t lengths[MAX_TEXTS];
} program_texts;

static clperm_status gather_texts(const clperm__source *src, program_texts *out) {
    CLPERM_RETURN_IF(src->count < 0 || src->count + 1 > MAX_TEXTS, CLPERM_ERROR_INVALID_ARGUMENT);
    out->count = (cl_uint)src->count + 1;
    out->texts[0] = clperm__cl_clperm_features_h;
    out->lengths[0] = clperm__cl_clperm_features_h_size;
    for (int i = 0; i < src->count; i++) {
        out->texts[i + 1] = src->texts[i];
        out->lengths[i + 1] = src->lengths ? src->lengths[i] : strlen(src->texts[i]);
    }
    return CLPERM_SUCCESS;
}

static uint64_t memory_key(const clperm__source *src, const char *options) {
    clperm__hash hs;
    clperm__hash_init(&hs);
    clperm__hash_str(&hs, src->name);
    clperm__hash_str(&hs, options);
    return clperm__hash_final(&hs);
}

/* Everything that can change the binary, as text: the disk cache compares it in full. */
static char *disk_key(const clperm_ctx *ctx, const clperm__source *src, const program_texts *pt,
                      const char *options) {
    clperm__hash hs;
    clperm__hash_init(&hs);
    for (cl_uint i = 0; i < pt->count; i++) clperm__hash_bytes(&hs, pt->texts[i], pt->lengths[i]);
    const clperm_profile *p = &ctx->profile;
    size_t cap = strlen(options) + 1024;
    char *key = malloc(cap);
    if (!key) return NULL;
    snprintf(key, cap,
             "clperm %s\nsource %s %016llx\noptions %s\nplatform %s | %s\ndevice %s | %s\ndriver %s\n",
             CLPERM_VERSION_STRING, src->name, (unsigned long long)clperm__hash_final(&hs), options,
             p->platform_name, p->platform_version, p->device_name, p->device_version,
             p->driver_version);
    return key;
}

static void keep_build_log(clperm_ctx *ctx, cl_program program) {
    size_t len = 0;
    clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    char *log = calloc(len + 1, 1);
    if (!log) return;
    if (len) clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    clperm__ctx_set_build_log(ctx, log);
    free(log);
}

static cl_program from_binary(clperm_ctx *ctx, const char *key, const char *options) {
    unsigned char *bin = NULL;
    size_t size = 0;
    int rejected = 0;
    if (clperm__diskcache_load(ctx->cache_dir, key, &bin, &size, &rejected) != 0) {
        if (rejected) clperm__ctx_count(ctx, CLPERM_COUNTER_DISK_CACHE_REJECTS);
        return NULL;
    }
    cl_int err, binerr = CL_SUCCESS;
    const unsigned char *bins[1] = {bin};
    cl_program prog = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &size, bins, &binerr, &err);
    free(bin);
    if (prog && (err != CL_SUCCESS || binerr != CL_SUCCESS ||
                 clBuildProgram(prog, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS)) {
        clReleaseProgram(prog);
        prog = NULL;
    }
    if (!prog) {
        clperm__ctx_count(ctx, CLPERM_COUNTER_DISK_CACHE_REJECTS);
        return NULL;
    }
    clperm__ctx_count(ctx, CLPERM_COUNTER_DISK_CACHE_HITS);
    return prog;
}

static void to_disk(clperm_ctx *ctx, cl_program prog, const char *key) {
    size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || !size)
        return;
    unsigned char *bin = malloc(size);
    if (!bin) return;
    unsigned char *bins[1] = {bin};
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        clperm__diskcache_store(ctx->cache_dir, key, bin, size);
    free(bin);
}

static clperm_status build(clperm_ctx *ctx, const clperm__source *src, const char *options, cl_program *out) {
    char *key = NULL;
    cl_program prog = NULL;
    program_texts pt;
    CLPERM_TRY(gather_texts(src, &pt));
    if (ctx->disk_cache) {
        key = disk_key(ctx, src, &pt, options);
        if (key) prog = from_binary(ctx, key, options);
    }
    if (!prog) {
        cl_int err;
        prog = clCreateProgramWithSource(ctx->context, pt.count, pt.texts, pt.lengths, &err);
        if (!prog) {
            free(key);
            return err;
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        err = clBuildProgram(prog, 1, &ctx->device, options, NULL, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        clperm__ctx_count(ctx, CLPERM_COUNTER_PROGRAMS_BUILT);
        if (err == CL_SUCCESS && clperm__debug_level() >= 2) {
            keep_build_log(ctx, prog);
            clperm__debug("built %s in %.2f s with options \"%s\":\n%s", src->name,
                          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), options,
                          ctx->build_log ? ctx->build_log : "");
        }
        if (err != CL_SUCCESS) {
            keep_build_log(ctx, prog);
            clperm__debug("build of %s failed (%d) with options \"%s\":\n%s", src->name, err, options,
                          ctx->build_log ? ctx->build_log : "");
            clReleaseProgram(prog);
            free(key);
            return err == CL_BUILD_PROGRAM_FAILURE ? CLPERM_ERROR_BUILD_FAILED : err;
        }
        if (key) to_disk(ctx, prog, key);
    }
    free(key);
    *out = prog;
    return CLPERM_SUCCESS;
}

/* Does the kernel's required work-group size fit the profile, and where the profile caps the
 * device's local memory (CLPERM_TEST_PROFILE), its static local memory? (Below the device's own
 * size the kernels' local memory is planned to fit; the report is read at the device's scale,
 * clperm_profile.local_report_scale: Rusticl on llvmpipe reports twice what a kernel declares.) */
static int fits_device(const clperm_ctx *ctx, cl_kernel kern, const char *name) {
    cl_ulong local = 0, device_local = 0;
    size_t reqd[3] = {0, 0, 0}, wg = 1;
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof device_local, &device_local, NULL) !=
            CL_SUCCESS ||
        device_local <= ctx->profile.local_mem_bytes ||
        clGetKernelWorkGroupInfo(kern, ctx->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL) !=
            CL_SUCCESS)
        local = 0;
    if (clGetKernelWorkGroupInfo(kern, ctx->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd, reqd, NULL) ==
        CL_SUCCESS)
        for (int d = 0; d < 3; d++) wg *= reqd[d] ? reqd[d] : 1;
    if (ctx->profile.local_report_scale > 1) local /= ctx->profile.local_report_scale;
    if (local <= ctx->profile.local_mem_bytes && wg <= ctx->profile.max_work_group_size) return 1;
    clperm__debug("kernel %s needs %llu bytes of local memory and work-groups of %zu; the profile has %llu and %zu",
                  name, (unsigned long long)local, wg, (unsigned long long)ctx->profile.local_mem_bytes,
                  ctx->profile.max_work_group_size);
    return 0;
}

clperm_status clperm__kernel_get(clperm_ctx *ctx, const clperm__source *src, const char *caller_options,
                                 const char *name, cl_kernel *out) {
    /* Defines every program gets from the device profile. */
    char options[2048];
    clperm__buf o = clperm__buf_on(options, sizeof options);
    int nvidia = ctx->profile.vendor == CLPERM_VENDOR_NVIDIA;
    /* Compilers' warnings (PoCL prints "N warnings generated." on stderr) only under CLPERM_DEBUG,
     * where the build log is shown too. */
    clperm__buf_add(&o, "%s-DCLPERM_NVIDIA=%d %s%s%s%s", clperm__debug_level() ? "" : "-w ", nvidia,
                    nvidia && clperm__debug_level() >= 2 ? "-cl-nv-verbose " : "", ctx->lookback.test_options,
                    *ctx->lookback.test_options ? " " : "", caller_options);
    CLPERM_TRY(clperm__buf_status(&o));
    uint64_t key = memory_key(src, options);
    clperm__program *p = ctx->programs;
    while (p && !(p->key == key && strcmp(p->options, options) == 0)) p = p->next;
    if (!p) {
        p = calloc(1, sizeof *p);
        char *opts = strdup(options);
        if (!p || !opts) {
            free(p);
            free(opts);
            return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
        }
        clperm_status st = build(ctx, src, options, &p->program);
        if (st != CLPERM_SUCCESS) {
            free(p);
            free(opts);
            return st;
        }
        p->key = key;
        p->options = opts;
        p->next = ctx->programs;
        ctx->programs = p;
    }
    for (int k = 0; k < p->nkernels; k++)
        if (strcmp(p->kernel_names[k], name) == 0) {
            *out = p->kernels[k];
            return CLPERM_SUCCESS;
        }
    CLPERM_RETURN_IF(p->nkernels == CLPERM__MAX_KERNELS, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    cl_int err;
    cl_kernel kern = clCreateKernel(p->program, name, &err);
    if (!kern) return err;
    if (!fits_device(ctx, kern, name)) {
        clReleaseKernel(kern);
        return CLPERM_ERROR_UNSUPPORTED;
    }
    char *kname = strdup(name);
    if (!kname) {
        clReleaseKernel(kern);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    p->kernel_names[p->nkernels] = kname;
    p->kernels[p->nkernels++] = kern;
    *out = kern;
    return CLPERM_SUCCESS;
}

static clperm_status sg_options(const clperm_ctx *ctx, size_t wg, clperm_sg_impl impl, cl_uint width,
                                const char *options, char *buf, size_t cap) {
    clperm__buf o = clperm__buf_on(buf, cap);
    clperm__buf_add(&o, "-DCLPERM_WG_SIZE=%zu -DCLPERM_SG_IMPL=%d -DCLPERM_SG_WIDTH=%u", wg, (int)impl, width);
    if (impl == CLPERM_SG_IMPL_KHR && ctx->profile.sg_source == CLPERM_SG_SOURCE_INTEL)
        clperm__buf_add(&o, " -DCLPERM_SG_REQD=1");
    if (impl == CLPERM_SG_IMPL_KHR && ctx->profile.sg_lockstep) clperm__buf_add(&o, " -DCLPERM_SG_LOCKSTEP=1");
    clperm__buf_add(&o, " %s", options);
    return clperm__buf_status(&o);
}

clperm_status clperm__sg_kernel_get(clperm_ctx *ctx, const clperm__source *src, const char *options,
                                    size_t wg, const char *name, cl_kernel *out) {
    for (int attempt = 0;; attempt++) {
        clperm_sg_impl impl;
        cl_uint width;
        clperm__sg_choice(ctx, wg, &impl, &width);
        char opts[1536];
        CLPERM_TRY(sg_options(ctx, wg, impl, width, options, opts, sizeof opts));
        CLPERM_TRY(clperm__kernel_get(ctx, src, opts, name, out));
        if (impl != CLPERM_SG_IMPL_KHR) return CLPERM_SUCCESS;
        /* Hardware subgroups: the runtime says which width the kernel really runs with. */
        size_t actual = clperm__kernel_sg_size(ctx, *out, wg);
        if (actual == width) {
            ctx->profile.sg_verified = 1;
            return CLPERM_SUCCESS;
        }
        CLPERM_RETURN_IF(attempt > 0, CLPERM_ERROR_UNSUPPORTED);
        clperm__ctx_count(ctx, CLPERM_COUNTER_SG_FALLBACKS);
        clperm__debug("subgroup width %u was wrong: the kernel runs with %zu", width, actual);
        ctx->params[CLPERM_PARAM_SG_WIDTH] = 0;
        /* The layer's operations (ballot among them) are defined for subgroups of up to 64
         * lanes; wider ones (PoCL 5 makes the whole work-group one subgroup) fall back. */
        if (actual > 0 && actual <= 64 && wg % actual == 0) {
            ctx->profile.sg_width = (cl_uint)actual;
            ctx->profile.sg_source = CLPERM_SG_SOURCE_KHR;
        } else {
            ctx->params[CLPERM_PARAM_SG_IMPL] = 0;
            ctx->profile.sg_impl = CLPERM_SG_IMPL_LOCAL;
            ctx->profile.sg_impls_available &= ~(1u << CLPERM_SG_IMPL_KHR);
        }
    }
}

clperm_status clperm__tile_kernel_get(clperm_ctx *ctx, const clperm__source *src, const char *options, int serial,
                                      size_t wg_size, const char *name, cl_kernel *out) {
    if (!serial) return clperm__sg_kernel_get(ctx, src, options, wg_size, name, out);
    char opts[1536];
    clperm__buf o = clperm__buf_on(opts, sizeof opts);
    clperm__buf_add(&o, "-DCLPERM_WG_SIZE=1 -DCLPERM_SG_IMPL=%d -DCLPERM_SG_WIDTH=1 %s", CLPERM_SG_USE_LOCAL, options);
    CLPERM_TRY(clperm__buf_status(&o));
    return clperm__kernel_get(ctx, src, opts, name, out);
}
