/* Contexts: creation around the application's OpenCL objects, the registry of live handles,
 * tunable parameters and counters. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CTX_MAGIC 0x636c7065726d4358ull /* "clpermCX" */

/* Live contexts, so that a freed or foreign handle is refused instead of dereferenced. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static clperm_ctx **registry;
static size_t registry_len, registry_cap;

static int registry_add(clperm_ctx *ctx) {
    int ok = 1;
    pthread_mutex_lock(&registry_lock);
    if (registry_len == registry_cap) {
        size_t cap = registry_cap ? 2 * registry_cap : 8;
        clperm_ctx **grown = realloc(registry, cap * sizeof *grown);
        if (grown) {
            registry = grown;
            registry_cap = cap;
        } else {
            ok = 0;
        }
    }
    if (ok) registry[registry_len++] = ctx;
    pthread_mutex_unlock(&registry_lock);
    return ok;
}

static void registry_remove(clperm_ctx *ctx) {
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_len; i++)
        if (registry[i] == ctx) {
            registry[i] = registry[--registry_len];
            break;
        }
    pthread_mutex_unlock(&registry_lock);
}

int clperm__ctx_is_live(const clperm_ctx *ctx) {
    int live = 0;
    if (!ctx) return 0;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_len && !live; i++) live = registry[i] == ctx;
    pthread_mutex_unlock(&registry_lock);
    return live && ctx->magic == CTX_MAGIC;
}

clperm_status clperm__ctx_enter(clperm_ctx *ctx) {
    CLPERM_RETURN_IF(!clperm__ctx_is_live(ctx), CLPERM_ERROR_INVALID_CONTEXT);
    pthread_mutex_lock(&ctx->lock);
    return CLPERM_SUCCESS;
}

void clperm__ctx_leave(clperm_ctx *ctx) { pthread_mutex_unlock(&ctx->lock); }

void clperm__ctx_count(clperm_ctx *ctx, clperm_counter counter) {
    if (counter >= 1 && counter < CLPERM__COUNTER_MAX) ctx->counters[counter]++;
}

void clperm__ctx_set_build_log(clperm_ctx *ctx, const char *log) {
    char *copy = strdup(log ? log : "");
    if (!copy) return;
    free(ctx->build_log);
    ctx->build_log = copy;
}

clperm_status clperm_ctx_create(clperm_ctx **out, cl_context context, cl_device_id device,
                                cl_command_queue queue) {
    CLPERM_RETURN_IF(!out || !context || !device || !queue, CLPERM_ERROR_INVALID_ARGUMENT);
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties qprops = 0;
    cl_platform_id platform = NULL;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err == CL_SUCCESS) err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    if (err != CL_SUCCESS) return err;
    CLPERM_RETURN_IF(qctx != context || qdev != device, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CLPERM_ERROR_QUEUE_OUT_OF_ORDER);

    clperm_ctx *ctx = calloc(1, sizeof *ctx);
    CLPERM_RETURN_IF(!ctx, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    clperm_status st = clperm__profile_init(platform, device, &ctx->profile);
    if (st != CLPERM_SUCCESS) {
        free(ctx);
        return st;
    }
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        free(ctx);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    ctx->magic = CTX_MAGIC;
    ctx->platform = platform;
    ctx->context = context;
    ctx->device = device;
    ctx->queue = queue;
    ctx->disk_cache = clperm__diskcache_default_dir(ctx->cache_dir, sizeof ctx->cache_dir);
    ctx->scan_epoch = 1;
    ctx->sort_epoch = 1;
    if (!registry_add(ctx)) {
        pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    clRetainContext(context);
    clRetainCommandQueue(queue);
    clRetainDevice(device);
    clperm__debug("context on \"%s\" / \"%s\": subgroup width %u (%s), impl %s", ctx->profile.platform_name,
                  ctx->profile.device_name, ctx->profile.sg_width,
                  clperm_sg_source_name(ctx->profile.sg_source), clperm_sg_impl_name(ctx->profile.sg_impl));
    *out = ctx;
    return CLPERM_SUCCESS;
}

void clperm_ctx_free(clperm_ctx *ctx) {
    if (!ctx || !clperm__ctx_is_live(ctx)) return;
    registry_remove(ctx);
    pthread_mutex_lock(&ctx->lock);
    clperm__program *p = ctx->programs;
    while (p) {
        clperm__program *next = p->next;
        for (int k = 0; k < p->nkernels; k++) {
            clReleaseKernel(p->kernels[k]);
            free(p->kernel_names[k]);
        }
        clReleaseProgram(p->program);
        free(p->options);
        free(p);
        p = next;
    }
    clperm__scratch_release(&ctx->scan_counter);
    clperm__scratch_release(&ctx->scan_flags);
    clperm__scratch_release(&ctx->scan_values);
    clperm__scratch_release(&ctx->scan_partials);
    clperm__scratch_release(&ctx->sort_counter);
    clperm__scratch_release(&ctx->sort_status);
    clperm__scratch_release(&ctx->sort_hist);
    clperm__scratch_release(&ctx->sort_bins);
    clperm__scratch_release(&ctx->sort_counts);
    clperm__scratch_release(&ctx->sort_segs);
    clReleaseCommandQueue(ctx->queue);
    clReleaseDevice(ctx->device);
    clReleaseContext(ctx->context);
    free(ctx->build_log);
    ctx->magic = 0;
    pthread_mutex_unlock(&ctx->lock);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

cl_context clperm_ctx_cl_context(const clperm_ctx *ctx) {
    return clperm__ctx_is_live(ctx) ? ctx->context : NULL;
}
cl_device_id clperm_ctx_cl_device(const clperm_ctx *ctx) {
    return clperm__ctx_is_live(ctx) ? ctx->device : NULL;
}
cl_command_queue clperm_ctx_cl_queue(const clperm_ctx *ctx) {
    return clperm__ctx_is_live(ctx) ? ctx->queue : NULL;
}

const char *clperm_ctx_build_log(const clperm_ctx *ctx) {
    if (!clperm__ctx_is_live(ctx) || !ctx->build_log) return "";
    return ctx->build_log;
}

clperm_status clperm_ctx_profile(const clperm_ctx *ctx, clperm_profile *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm_ctx *c = (clperm_ctx *)ctx;
    CLPERM_TRY(clperm__ctx_enter(c));
    *out = c->profile;
    clperm__ctx_leave(c);
    return CLPERM_SUCCESS;
}

clperm_status clperm_ctx_counter(const clperm_ctx *ctx, clperm_counter counter, uint64_t *value) {
    CLPERM_RETURN_IF(!value, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(counter < 1 || counter >= CLPERM__COUNTER_MAX, CLPERM_ERROR_INVALID_PARAM);
    clperm_ctx *c = (clperm_ctx *)ctx;
    CLPERM_TRY(clperm__ctx_enter(c));
    *value = c->counters[counter];
    clperm__ctx_leave(c);
    return CLPERM_SUCCESS;
}

/* ---- parameters ---- */

clperm_status clperm_param_bounds(clperm_param param, int *lo, int *hi) {
    CLPERM_RETURN_IF(!lo || !hi, CLPERM_ERROR_INVALID_ARGUMENT);
    int l, h;
    switch (param) {
    case CLPERM_PARAM_SCAN_ALGORITHM: l = 1, h = 2; break;
    case CLPERM_PARAM_SG_IMPL: l = CLPERM_SG_IMPL_LOCAL, h = CLPERM_SG_IMPL_PTX; break;
    case CLPERM_PARAM_SG_WIDTH: l = 1, h = 64; break;
    case CLPERM_PARAM_SCAN_WG_SIZE: l = 4, h = 1024; break;
    case CLPERM_PARAM_SCAN_ITEMS: l = 1, h = 65536; break;
    case CLPERM_PARAM_DISK_CACHE: l = 0, h = 1; break;
    case CLPERM_PARAM_SCAN_KERNEL: l = 1, h = 2; break;
    case CLPERM_PARAM_SHUFFLE_FUSION: l = 1, h = 3; break;
    case CLPERM_PARAM_SHUFFLE_KERNEL: l = 1, h = 2; break;
    case CLPERM_PARAM_SHUFFLE_WG_SIZE: l = 4, h = 1024; break;
    case CLPERM_PARAM_SHUFFLE_ITEMS: l = 1, h = 65536; break;
    case CLPERM_PARAM_SORT_WIDTH: l = 1, h = 64; break;
    case CLPERM_PARAM_SORT_TILES: l = 1, h = 64; break;
    case CLPERM_PARAM_RNG_KERNEL: l = 1, h = 2; break;
    case CLPERM_PARAM_SORT_ALGORITHM: l = 1, h = 2; break;
    case CLPERM_PARAM_SORT_KERNEL: l = 1, h = 2; break;
    case CLPERM_PARAM_SORT_RANK: l = 1, h = 3; break;
    case CLPERM_PARAM_SORT_DIGIT_BITS: l = 1, h = 8; break;
    case CLPERM_PARAM_SORT_WG_SIZE: l = 32, h = 1024; break;
    case CLPERM_PARAM_SORT_ITEMS: l = 1, h = 65536; break;
    default: return CLPERM_ERROR_INVALID_PARAM;
    }
    *lo = l;
    *hi = h;
    return CLPERM_SUCCESS;
}

static int pow2(int v) { return v > 0 && !(v & (v - 1)); }

clperm_status clperm_ctx_set_param(clperm_ctx *ctx, clperm_param param, int value) {
    int lo, hi;
    CLPERM_TRY(clperm_param_bounds(param, &lo, &hi));
    int is_auto = value == 0 && param != CLPERM_PARAM_DISK_CACHE;
    if (!is_auto) {
        CLPERM_RETURN_IF(value < lo || value > hi, CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
        CLPERM_RETURN_IF((param == CLPERM_PARAM_SG_WIDTH || param == CLPERM_PARAM_SCAN_WG_SIZE ||
                          param == CLPERM_PARAM_SHUFFLE_WG_SIZE || param == CLPERM_PARAM_SORT_WIDTH ||
                          param == CLPERM_PARAM_SORT_TILES || param == CLPERM_PARAM_SORT_WG_SIZE) &&
                             !pow2(value),
                         CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
    }
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = CLPERM_SUCCESS;
    if (!is_auto && param == CLPERM_PARAM_SG_IMPL && !(ctx->profile.sg_impls_available & (1u << value)))
        st = CLPERM_ERROR_UNSUPPORTED;
    else if (!is_auto && (param == CLPERM_PARAM_SCAN_WG_SIZE || param == CLPERM_PARAM_SHUFFLE_WG_SIZE ||
                           param == CLPERM_PARAM_SORT_WIDTH || param == CLPERM_PARAM_SORT_WG_SIZE) &&
             (size_t)value > ctx->profile.max_work_group_size)
        st = CLPERM_ERROR_UNSUPPORTED;
    else if (param == CLPERM_PARAM_DISK_CACHE)
        ctx->disk_cache = value && ctx->cache_dir[0];
    else
        ctx->params[param] = value;
    clperm__ctx_leave(ctx);
    return st;
}

int clperm__scan_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_SCAN_KERNEL];
    return k ? k : clperm__tuning_for(&ctx->profile)->scan_kernel;
}

/* Work-group size of the work-group scan kernels (and of the subgroup layer's builds). */
static int workgroup_wg_size(const clperm_ctx *ctx) {
    int wg = ctx->params[CLPERM_PARAM_SCAN_WG_SIZE];
    if (!wg) {
        wg = clperm__tuning_for(&ctx->profile)->scan_wg_size;
        while ((size_t)wg > ctx->profile.max_work_group_size && wg > 1) wg >>= 1;
    }
    return wg;
}

int clperm__scan_wg_size(const clperm_ctx *ctx) {
    return clperm__scan_kernel(ctx) == 2 ? 1 : workgroup_wg_size(ctx);
}

int clperm__scan_items(const clperm_ctx *ctx, clperm_type type) {
    const clperm__tuning *tune = clperm__tuning_for(&ctx->profile);
    int u64 = type == CLPERM_TYPE_U64;
    int items = ctx->params[CLPERM_PARAM_SCAN_ITEMS];
    if (clperm__scan_kernel(ctx) == 2) return items ? items : (u64 ? tune->scan_serial_u64 : tune->scan_serial_u32);
    if (!items) items = u64 ? tune->scan_items_u64 : tune->scan_items_u32;
    return items <= 64 ? items : 64;
}

int clperm__shuffle_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_SHUFFLE_KERNEL];
    return k ? k : clperm__tuning_for(&ctx->profile)->shuffle_kernel;
}

int clperm__rng_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_RNG_KERNEL];
    return k ? k : clperm__tuning_for(&ctx->profile)->rng_kernel;
}

int clperm__shuffle_wg_size(const clperm_ctx *ctx) {
    if (clperm__shuffle_kernel(ctx) == 2) return 1;
    int wg = ctx->params[CLPERM_PARAM_SHUFFLE_WG_SIZE];
    if (!wg) {
        wg = clperm__tuning_for(&ctx->profile)->shuffle_wg_size;
        while ((size_t)wg > ctx->profile.max_work_group_size && wg > 1) wg >>= 1;
    }
    return wg;
}

int clperm__shuffle_items(const clperm_ctx *ctx) {
    const clperm__tuning *tune = clperm__tuning_for(&ctx->profile);
    int items = ctx->params[CLPERM_PARAM_SHUFFLE_ITEMS];
    if (clperm__shuffle_kernel(ctx) == 2) return items ? items : tune->shuffle_serial_items;
    if (!items) items = tune->shuffle_items;
    return items <= 32 ? items : 32;
}

int clperm__shuffle_fusion(const clperm_ctx *ctx) {
    int f = ctx->params[CLPERM_PARAM_SHUFFLE_FUSION];
    return f ? f : (ctx->profile.forward_progress ? 3 : 2);
}

clperm_status clperm_ctx_get_param(const clperm_ctx *ctx, clperm_param param, int *value) {
    CLPERM_RETURN_IF(!value, CLPERM_ERROR_INVALID_ARGUMENT);
    int lo, hi;
    CLPERM_TRY(clperm_param_bounds(param, &lo, &hi));
    clperm_ctx *c = (clperm_ctx *)ctx;
    CLPERM_TRY(clperm__ctx_enter(c));
    clperm_sg_impl impl;
    cl_uint width;
    clperm__sg_choice(c, (size_t)workgroup_wg_size(c), &impl, &width);
    int v = c->params[param];
    switch (param) {
    case CLPERM_PARAM_SCAN_ALGORITHM: v = v ? v : (c->profile.forward_progress ? 2 : 1); break;
    case CLPERM_PARAM_SG_IMPL: v = (int)impl; break;
    case CLPERM_PARAM_SG_WIDTH: v = (int)width; break;
    case CLPERM_PARAM_SCAN_WG_SIZE: v = clperm__scan_wg_size(c); break;
    case CLPERM_PARAM_SCAN_ITEMS: v = clperm__scan_items(c, CLPERM_TYPE_U32); break;
    case CLPERM_PARAM_DISK_CACHE: v = c->disk_cache; break;
    case CLPERM_PARAM_SCAN_KERNEL: v = clperm__scan_kernel(c); break;
    case CLPERM_PARAM_SHUFFLE_FUSION: v = clperm__shuffle_fusion(c); break;
    case CLPERM_PARAM_SHUFFLE_KERNEL: v = clperm__shuffle_kernel(c); break;
    case CLPERM_PARAM_SHUFFLE_WG_SIZE: v = clperm__shuffle_wg_size(c); break;
    case CLPERM_PARAM_SHUFFLE_ITEMS: v = clperm__shuffle_items(c); break;
    case CLPERM_PARAM_SORT_WIDTH: v = clperm__sort_width(c); break;
    case CLPERM_PARAM_RNG_KERNEL: v = clperm__rng_kernel(c); break;
    case CLPERM_PARAM_SORT_ALGORITHM:
    case CLPERM_PARAM_SORT_KERNEL:
    case CLPERM_PARAM_SORT_RANK:
    case CLPERM_PARAM_SORT_DIGIT_BITS:
    case CLPERM_PARAM_SORT_WG_SIZE:
    case CLPERM_PARAM_SORT_ITEMS: v = clperm__radix_param(c, param); break;
    default: break;
    }
    clperm__ctx_leave(c);
    *value = v;
    return CLPERM_SUCCESS;
}

int clperm__sort_width(const clperm_ctx *ctx) {
    int w = ctx->params[CLPERM_PARAM_SORT_WIDTH];
    if (w) return w;
    w = 1;
    while (w < 64 && (cl_uint)w * 2 <= ctx->profile.banks) w *= 2;
    return w;
}
