/* Argument checks shared by the operations: done before anything is enqueued. */
#include "buffer_check.h"
#include "internal.h"

clperm_status clperm__check_buffer(const clperm_ctx *ctx, cl_mem mem, uint64_t n, size_t elem,
                                   int writable) {
    return clperm__buffer_check(ctx->context, mem, n, elem, writable);
}

clperm_status clperm__check_overlap(cl_mem a, uint64_t a_bytes, cl_mem b, uint64_t b_bytes, int same_ok) {
    return clperm__buffer_overlap(a, a_bytes, b, b_bytes, same_ok);
}

/* Every event of the wait list must belong to the context's cl_context: some drivers (NVIDIA's)
 * accept an event of another context in a wait list, and crash later when the contexts go. */
clperm_status clperm__check_events(const clperm_ctx *ctx, cl_uint num_events, const cl_event *events) {
    CLPERM_RETURN_IF((num_events > 0) != (events != NULL), CLPERM_ERROR_INVALID_EVENT_LIST);
    for (cl_uint i = 0; i < num_events; i++) {
        cl_context owner = NULL;
        CLPERM_RETURN_IF(!events[i], CLPERM_ERROR_INVALID_EVENT_LIST);
        CLPERM_RETURN_IF(clGetEventInfo(events[i], CL_EVENT_CONTEXT, sizeof owner, &owner, NULL) != CL_SUCCESS ||
                             owner != ctx->context,
                         CLPERM_ERROR_INVALID_EVENT_LIST);
    }
    return CLPERM_SUCCESS;
}

size_t clperm_type_size(clperm_type type) {
    switch (type) {
    case CLPERM_TYPE_U32: return 4;
    case CLPERM_TYPE_U64: return 8;
    default: return 0;
    }
}
