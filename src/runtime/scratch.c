/* Device scratch buffers owned by a context: allocated on first need, grown (never per call)
 * when a larger problem needs more. A buffer being replaced stays alive until the commands that
 * use it finish, as OpenCL guarantees for released memory objects. */
#include <stdlib.h>

#include "internal.h"

clperm_status clperm__scratch_reserve(clperm_ctx *ctx, clperm__scratch *s, size_t bytes, int zero,
                                      int *grown) {
    if (grown) *grown = 0;
    if (s->mem && s->bytes >= bytes) return CLPERM_SUCCESS;
    /* Grow geometrically so that a sequence of growing sizes allocates O(log n) times. */
    size_t want = s->bytes * 2 > bytes ? s->bytes * 2 : bytes;
    if (want < 256) want = 256;
    if (want > ctx->profile.max_alloc_bytes && bytes <= ctx->profile.max_alloc_bytes)
        want = bytes;
    /* Zeroed at creation from host memory (CL_MEM_COPY_HOST_PTR), not by a command: nothing in
     * an operation waits for the queue, whose earlier commands may wait on events the caller
     * completes only after this call returns (a user event, another queue). Checkers such as
     * Oclgrind also take host-copied memory as initialised. */
    void *zeros = NULL;
    if (zero) {
        zeros = calloc(1, want);
        CLPERM_RETURN_IF(!zeros, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    }
    cl_int err;
    cl_mem mem = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | (zero ? CL_MEM_COPY_HOST_PTR : 0), want, zeros, &err);
    free(zeros);
    if (!mem) return err;
    if (s->mem) clReleaseMemObject(s->mem);
    ctx->counters[CLPERM_COUNTER_SCRATCH_BYTES] += want - s->bytes;
    s->mem = mem;
    s->bytes = want;
    clperm__ctx_count(ctx, CLPERM_COUNTER_SCRATCH_ALLOCS);
    if (grown) *grown = 1;
    return CLPERM_SUCCESS;
}

void clperm__scratch_release(clperm__scratch *s) {
    if (s->mem) clReleaseMemObject(s->mem);
    s->mem = NULL;
    s->bytes = 0;
}
