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
    if (st == CLPERM_SUCCESS) st = clperm__probe_loops(context, device, &ctx->profile);
    if (st == CLPERM_SUCCESS) st = clperm__lookback_test_init(&ctx->lookback);
    if (st != CLPERM_SUCCESS) {
        free(ctx);
        return st;
    }
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        free(ctx);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (pthread_mutex_init(&ctx->held_lock, NULL) != 0) {
        pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (pthread_cond_init(&ctx->held_released, NULL) != 0) {
        pthread_mutex_destroy(&ctx->held_lock);
        pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    clperm__ctx_tuning_init(ctx);
    ctx->magic = CTX_MAGIC;
    ctx->platform = platform;
    ctx->context = context;
    ctx->device = device;
    ctx->queue = queue;
    ctx->disk_cache = clperm__diskcache_default_dir(ctx->cache_dir, sizeof ctx->cache_dir);
    ctx->lookback.epoch = 1;
    ctx->sort_epoch = 1;
    if (!registry_add(ctx)) {
        pthread_cond_destroy(&ctx->held_released);
        pthread_mutex_destroy(&ctx->held_lock);
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
    /* The temporaries still held go from their events' callbacks, which read ctx: wait for them.
     * clFinish lets the commands behind them complete, and some implementations (NVIDIA's) call
     * the callbacks only after that, from a thread of their own. */
    clFinish(ctx->queue);
    pthread_mutex_lock(&ctx->held_lock);
    while (ctx->held) pthread_cond_wait(&ctx->held_released, &ctx->held_lock);
    pthread_mutex_unlock(&ctx->held_lock);
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
    clperm__lookback_release(&ctx->lookback);
    clperm__scratch_release(&ctx->scan_partials);
    clperm__scratch_release(&ctx->shuffle_counts);
    clperm__scratch_release(&ctx->bucket_keys);
    clperm__scratch_release(&ctx->bucket_part);
    clperm__scratch_release(&ctx->sort_counter);
    clperm__scratch_release(&ctx->sort_status);
    clperm__scratch_release(&ctx->sort_hist);
    clperm__scratch_release(&ctx->sort_bins);
    clperm__scratch_release(&ctx->sort_counts);
    clperm__scratch_release(&ctx->sort_seg_hdr);
    clperm__scratch_release(&ctx->sort_segs);
    clReleaseCommandQueue(ctx->queue);
    clReleaseDevice(ctx->device);
    clReleaseContext(ctx->context);
    free(ctx->build_log);
    ctx->magic = 0;
    pthread_mutex_unlock(&ctx->lock);
    pthread_mutex_destroy(&ctx->lock);
    pthread_cond_destroy(&ctx->held_released);
    pthread_mutex_destroy(&ctx->held_lock);
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

/* ---- parameters (bounds and names in tuning.c; the values reported in src/params.c) ---- */

clperm_status clperm_ctx_set_param(clperm_ctx *ctx, clperm_param param, int value) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = clperm__param_check(&ctx->profile, param, value);
    if (st == CLPERM_SUCCESS) {
        if (param == CLPERM_PARAM_DISK_CACHE)
            ctx->disk_cache = value && ctx->cache_dir[0];
        else
            ctx->params[param] = value;
    }
    clperm__ctx_leave(ctx);
    return st;
}

