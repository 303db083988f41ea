/* Device scratch buffers owned by a context: allocated on first need, grown (never per call)
 * when a larger problem needs more. A buffer being replaced stays alive until the commands that
 * use it finish, as OpenCL guarantees for released memory objects. */
#include <stdlib.h>

#include "internal.h"

cl_mem clperm__buffer_create(clperm_ctx *ctx, size_t bytes, int zero, cl_int *err) {
    void *zeros = NULL;
    if (zero || ctx->profile.vendor == CLPERM_VENDOR_OCLGRIND) {
        zeros = calloc(1, bytes ? bytes : 1);
        if (!zeros) {
            *err = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
            return NULL;
        }
    }
    cl_mem mem = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | (zeros ? CL_MEM_COPY_HOST_PTR : 0), bytes, zeros, err);
    free(zeros);
    return mem;
}

/* Makes s hold `want` bytes (it holds fewer). */
static clperm_status grow(clperm_ctx *ctx, clperm__scratch *s, size_t want, int zero, int *grown) {
    cl_int err;
    cl_mem mem = clperm__buffer_create(ctx, want, zero, &err);
    if (!mem) return err;
    if (s->mem) clReleaseMemObject(s->mem);
    ctx->counters[CLPERM_COUNTER_SCRATCH_BYTES] += want - s->bytes;
    s->mem = mem;
    s->bytes = want;
    clperm__ctx_count(ctx, CLPERM_COUNTER_SCRATCH_ALLOCS);
    if (grown) *grown = 1;
    return CLPERM_SUCCESS;
}

clperm_status clperm__scratch_reserve(clperm_ctx *ctx, clperm__scratch *s, size_t bytes, int zero,
                                      int *grown) {
    if (grown) *grown = 0;
    if (s->mem && s->bytes >= bytes) return CLPERM_SUCCESS;
    /* Grow geometrically so that a sequence of growing sizes allocates O(log n) times. */
    size_t want = s->bytes * 2 > bytes ? s->bytes * 2 : bytes;
    if (want < 256) want = 256;
    if (want > ctx->profile.max_alloc_bytes && bytes <= ctx->profile.max_alloc_bytes)
        want = bytes;
    return grow(ctx, s, want, zero, grown);
}

clperm_status clperm__scratch_reserve_exact(clperm_ctx *ctx, clperm__scratch *s, size_t bytes) {
    if (s->mem && s->bytes >= bytes) return CLPERM_SUCCESS;
    /* The old buffer first: two buffers of n items at once could pass the device's memory. */
    clperm__scratch_give_back(ctx, s);
    return grow(ctx, s, bytes ? bytes : 1, 0, NULL);
}

void clperm__scratch_give_back(clperm_ctx *ctx, clperm__scratch *s) {
    ctx->counters[CLPERM_COUNTER_SCRATCH_BYTES] -= s->bytes;
    clperm__scratch_release(s);
}

void clperm__scratch_release(clperm__scratch *s) {
    if (s->mem) clReleaseMemObject(s->mem);
    s->mem = NULL;
    s->bytes = 0;
}

typedef struct held_buffers {
    clperm_ctx *ctx;
    cl_mem mem[2];
} held_buffers;

static void CL_CALLBACK release_held(cl_event ev, cl_int status, void *data) {
    (void)ev;
    (void)status;
    held_buffers *h = data;
    clperm_ctx *ctx = h->ctx;
    for (int i = 0; i < 2; i++)
        if (h->mem[i]) clReleaseMemObject(h->mem[i]);
    free(h);
    pthread_mutex_lock(&ctx->held_lock);
    ctx->held--;
    pthread_cond_broadcast(&ctx->held_released);
    pthread_mutex_unlock(&ctx->held_lock);
}

void clperm__release_after(clperm_ctx *ctx, cl_event done, cl_mem a, cl_mem b) {
    if (!a && !b) return;
    held_buffers *h = done ? malloc(sizeof *h) : NULL;
    if (h) {
        *h = (held_buffers){ctx, {a, b}};
        pthread_mutex_lock(&ctx->held_lock);
        ctx->held++;
        pthread_mutex_unlock(&ctx->held_lock);
        if (clSetEventCallback(done, CL_COMPLETE, release_held, h) == CL_SUCCESS) return;
        pthread_mutex_lock(&ctx->held_lock);
        ctx->held--;
        pthread_mutex_unlock(&ctx->held_lock);
        free(h);
    }
    if (done) clWaitForEvents(1, &done);
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
}
