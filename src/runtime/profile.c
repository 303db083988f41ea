/* The device profile, decided once per context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_ext.h>

#include "internal.h"

static int has_word(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
    return 0;
}

static int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

static int is_pow2(cl_uint x) { return x && !(x & (x - 1)); }

#define DEV_INFO(param, var) clGetDeviceInfo(device, param, sizeof(var), &(var), NULL)
#define DEV_STR(param, buf)                                                                        \
    do {                                                                                           \
        if (clGetDeviceInfo(device, param, sizeof(buf), buf, NULL) != CL_SUCCESS) buf[0] = 0;      \
        buf[sizeof(buf) - 1] = 0;                                                                  \
    } while (0)

/* Test-only: CLPERM_TEST_PROFILE, comma-separated "local=BYTES", "wg=N", "cache=BYTES",
 * "no-atomics64", lowers what the profile says the device has, to run clperm as on a smaller
 * device (cache=BYTES: the sizes from which CPUs' scatters write past the cache). Another form fails
 * context creation (CLPERM_ERROR_INVALID_ARGUMENT, with a CLPERM_DEBUG message). */
static clperm_status caps_from_env(clperm_profile *p) {
    const char *env = getenv("CLPERM_TEST_PROFILE");
    if (!env || !*env) return CLPERM_SUCCESS;
    char copy[128];
    if (strlen(env) >= sizeof copy) goto bad;
    strcpy(copy, env);
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        unsigned long long v = 0;
        int used = 0;
        if (sscanf(item, "local=%llu%n", &v, &used) == 1 && !item[used] && v >= 1024) {
            if (v < p->local_mem_bytes) p->local_mem_bytes = v;
        } else if (sscanf(item, "wg=%llu%n", &v, &used) == 1 && !item[used] && v >= 1) {
            if (v < p->max_work_group_size) p->max_work_group_size = (size_t)v;
        } else if (sscanf(item, "cache=%llu%n", &v, &used) == 1 && !item[used] && v >= 64) {
            if (v < p->cache_bytes || p->cache_bytes == 0) p->cache_bytes = v;
        } else if (strcmp(item, "no-atomics64") == 0) {
            p->atomics64 = 0;
        } else {
            goto bad;
        }
    }
    return CLPERM_SUCCESS;
bad:
    clperm__debug("CLPERM_TEST_PROFILE=\"%s\": expected local=BYTES, wg=N, cache=BYTES or no-atomics64, "
                  "comma-separated", env);
    return CLPERM_ERROR_INVALID_ARGUMENT;
}

clperm_status clperm__profile_init(cl_platform_id platform, cl_device_id device, clperm_profile *p) {
    memset(p, 0, sizeof *p);
    cl_int err = clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof p->platform_name, p->platform_name, NULL);
    if (err != CL_SUCCESS) return err;
    p->platform_name[sizeof p->platform_name - 1] = 0;
    if (clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof p->platform_version, p->platform_version, NULL))
        p->platform_version[0] = 0;
    p->platform_version[sizeof p->platform_version - 1] = 0;
    DEV_STR(CL_DEVICE_NAME, p->device_name);
    DEV_STR(CL_DEVICE_VERSION, p->device_version);
    DEV_STR(CL_DRIVER_VERSION, p->driver_version);
    DEV_STR(CL_DEVICE_OPENCL_C_VERSION, p->opencl_c_version);
    char vendor[128];
    DEV_STR(CL_DEVICE_VENDOR, vendor);
    err = DEV_INFO(CL_DEVICE_TYPE, p->device_type);
    if (err != CL_SUCCESS) return err;
    DEV_INFO(CL_DEVICE_MAX_COMPUTE_UNITS, p->compute_units);
    DEV_INFO(CL_DEVICE_GLOBAL_MEM_SIZE, p->global_mem_bytes);
    DEV_INFO(CL_DEVICE_MAX_MEM_ALLOC_SIZE, p->max_alloc_bytes);
    DEV_INFO(CL_DEVICE_LOCAL_MEM_SIZE, p->local_mem_bytes);
    DEV_INFO(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, p->cache_bytes);
    DEV_INFO(CL_DEVICE_MAX_WORK_GROUP_SIZE, p->max_work_group_size);
    if (p->compute_units == 0) p->compute_units = 1;
    if (p->max_work_group_size == 0) p->max_work_group_size = 1;

    size_t ext_len = 0;
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len);
    char *ext = calloc(ext_len + 1, 1);
    if (!ext) return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    if (ext_len) clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL);

    if (contains(p->platform_name, "Portable Computing Language") || contains(p->platform_name, "PoCL"))
        p->vendor = CLPERM_VENDOR_POCL;
    else if (contains(p->platform_name, "Oclgrind"))
        p->vendor = CLPERM_VENDOR_OCLGRIND;
    else if (contains(p->platform_name, "NVIDIA") || contains(vendor, "NVIDIA"))
        p->vendor = CLPERM_VENDOR_NVIDIA;
    else if (contains(p->platform_name, "AMD") || contains(vendor, "Advanced Micro Devices") ||
             contains(vendor, "AMD"))
        p->vendor = CLPERM_VENDOR_AMD;
    else if (contains(p->platform_name, "Intel") || contains(vendor, "Intel"))
        p->vendor = CLPERM_VENDOR_INTEL;

    p->banks = 32;
    /* Single-pass kernels wait on earlier work-groups, a bounded wait (cl/common/progress.h).
     * With tile numbers handed out in the order work-groups start, it ends before the bound
     * wherever a started work-group keeps running: GPUs of these vendors, and CPU runtimes that
     * run each work-group to completion on a thread. */
    p->forward_progress = p->vendor != CLPERM_VENDOR_OTHER;
    p->atomics64 = has_word(ext, "cl_khr_int64_base_atomics");
    p->local_report_scale = 1; /* until the probe (probe.c) says otherwise */
    if (p->vendor == CLPERM_VENDOR_NVIDIA &&
        clGetDeviceInfo(device, CL_DEVICE_REGISTERS_PER_BLOCK_NV, sizeof p->registers_per_block,
                        &p->registers_per_block, NULL) != CL_SUCCESS)
        p->registers_per_block = 0;

    /* Subgroups: what the device offers, and the width to build for. */
    int khr = has_word(ext, "cl_khr_subgroups");
    p->sg_impls_available = 1u << CLPERM_SG_IMPL_LOCAL;
    if (khr) p->sg_impls_available |= 1u << CLPERM_SG_IMPL_KHR;
    if (p->vendor == CLPERM_VENDOR_NVIDIA) p->sg_impls_available |= 1u << CLPERM_SG_IMPL_PTX;

    p->sg_impl = CLPERM_SG_IMPL_LOCAL;
    p->sg_source = CLPERM_SG_SOURCE_EMULATED;
    p->sg_width = 32;
    cl_uint warp = 0;
    if (p->vendor == CLPERM_VENDOR_NVIDIA && has_word(ext, "cl_nv_device_attribute_query") &&
        DEV_INFO(CL_DEVICE_WARP_SIZE_NV, warp) == CL_SUCCESS && warp) {
        p->sg_width = warp;
        p->sg_source = CLPERM_SG_SOURCE_NV;
        p->sg_impl = warp == 32 ? CLPERM_SG_IMPL_PTX : CLPERM_SG_IMPL_LOCAL;
    } else if (has_word(ext, "cl_amd_device_attribute_query") &&
               DEV_INFO(CL_DEVICE_WAVEFRONT_WIDTH_AMD, warp) == CL_SUCCESS && warp) {
        p->sg_width = warp;
        p->sg_source = CLPERM_SG_SOURCE_AMD;
        p->sg_impl = khr ? CLPERM_SG_IMPL_KHR : CLPERM_SG_IMPL_LOCAL;
    } else if (has_word(ext, "cl_intel_subgroups")) {
        size_t sizes[16] = {0}, bytes = 0;
        if (clGetDeviceInfo(device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &bytes) ==
                CL_SUCCESS && bytes >= sizeof(size_t)) {
            size_t best = 0;
            for (size_t i = 0; i < bytes / sizeof(size_t); i++)
                if (sizes[i] <= 32 && sizes[i] > best) best = sizes[i];
            if (best) {
                p->sg_width = (cl_uint)best;
                p->sg_source = CLPERM_SG_SOURCE_INTEL;
                p->sg_impl = khr ? CLPERM_SG_IMPL_KHR : CLPERM_SG_IMPL_LOCAL;
            }
        }
    } else if (khr) {
        /* The width is known only once a kernel is built: guessed here, verified after the build. */
        p->sg_width = (p->device_type & CL_DEVICE_TYPE_GPU) ? 32 : 8;
        p->sg_source = CLPERM_SG_SOURCE_KHR;
        p->sg_impl = CLPERM_SG_IMPL_KHR;
    }
    if (p->sg_impl == CLPERM_SG_IMPL_LOCAL) p->sg_verified = 1; /* emulated: true by construction */
    /* PoCL's CPU drivers implement the subgroup built-ins with work-group barriers (its
     * lib/kernel/subgroups.cl: "as long as there are no diverging subgroups"), so a built-in that
     * one subgroup calls alone is undefined there: wrong scans and hung shuffles on PoCL 5.0
     * (docs/devices.md). No query tells it; the platform does. */
    p->sg_lockstep = khr && (p->device_type & CL_DEVICE_TYPE_CPU) && p->vendor == CLPERM_VENDOR_POCL;

    const char *env = getenv("CLPERM_SUBGROUP_WIDTH");
    if (env && *env) {
        long w = strtol(env, NULL, 10);
        if (w >= 1 && w <= 64 && is_pow2((cl_uint)w)) {
            p->sg_width = (cl_uint)w;
            p->sg_source = CLPERM_SG_SOURCE_ENV;
            if (p->sg_impl == CLPERM_SG_IMPL_PTX && w != 32) p->sg_impl = CLPERM_SG_IMPL_LOCAL;
        }
    }
    free(ext);
    return caps_from_env(p);
}

void clperm__sg_choice(const clperm_ctx *ctx, size_t wg, clperm_sg_impl *impl, cl_uint *width) {
    const clperm_profile *p = &ctx->profile;
    clperm_sg_impl i = ctx->params[CLPERM_PARAM_SG_IMPL] ? (clperm_sg_impl)ctx->params[CLPERM_PARAM_SG_IMPL]
                                                         : p->sg_impl;
    cl_uint w = ctx->params[CLPERM_PARAM_SG_WIDTH] ? (cl_uint)ctx->params[CLPERM_PARAM_SG_WIDTH] : p->sg_width;
    if (i == CLPERM_SG_IMPL_PTX) w = 32;
    if (i == CLPERM_SG_IMPL_PTX && wg % 32 != 0) i = CLPERM_SG_IMPL_LOCAL;
    /* A work-group narrower than one subgroup takes the emulated layer: PoCL 5.0 builds such
     * kernels (a subgroup of 32 in a work-group of 1) into binaries it then fails to load,
     * aborting the process (docs/devices.md). */
    if (i == CLPERM_SG_IMPL_KHR && wg < w) i = CLPERM_SG_IMPL_LOCAL;
    if (i == CLPERM_SG_IMPL_LOCAL) {
        if (!is_pow2(w)) w = 32;
        while (w > wg) w >>= 1;
    }
    *impl = i;
    *width = w;
}

typedef cl_int(CL_API_CALL *sg_info_fn)(cl_kernel, cl_device_id, cl_uint, size_t, const void *,
                                        size_t, void *, size_t *);

size_t clperm__kernel_sg_size(clperm_ctx *ctx, cl_kernel kernel, size_t wg) {
    sg_info_fn fn = (sg_info_fn)clGetExtensionFunctionAddressForPlatform(ctx->platform,
                                                                         "clGetKernelSubGroupInfoKHR");
    if (!fn) return 0;
    size_t size = 0;
    if (fn(kernel, ctx->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE_KHR, sizeof wg, &wg,
           sizeof size, &size, NULL) != CL_SUCCESS)
        return 0;
    return size;
}
