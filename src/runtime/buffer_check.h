/* The check of a caller's buffer, shared by the core library (validate.c) and the distributed
 * layer, which includes no other internal header. Not installed. */
#ifndef CLPERM_BUFFER_CHECK_H
#define CLPERM_BUFFER_CHECK_H

#include "clperm.h"
#include "status_macros.h"

/* CLPERM_SUCCESS when mem is a buffer of `context` holding n items of elem bytes (and writable
 * when asked); else the status that says what is wrong. */
static inline clperm_status clperm__buffer_check(cl_context context, cl_mem mem, uint64_t n, size_t elem,
                                                 int writable) {
    CLPERM_RETURN_IF(!mem, CLPERM_ERROR_INVALID_BUFFER);
    cl_mem_object_type type = 0;
    cl_context owner = NULL;
    size_t size = 0;
    cl_mem_flags flags = 0;
    if (clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, NULL) != CL_SUCCESS ||
        type != CL_MEM_OBJECT_BUFFER)
        return CLPERM_ERROR_INVALID_BUFFER;
    if (clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL) != CL_SUCCESS)
        return CLPERM_ERROR_INVALID_BUFFER;
    CLPERM_RETURN_IF(owner != context, CLPERM_ERROR_BUFFER_CONTEXT);
    CLPERM_RETURN_IF(elem && n > UINT64_MAX / elem, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_RETURN_IF(n * elem > (uint64_t)size, CLPERM_ERROR_BUFFER_TOO_SMALL);
    CLPERM_RETURN_IF(writable && (flags & CL_MEM_READ_ONLY), CLPERM_ERROR_BUFFER_READ_ONLY);
    return CLPERM_SUCCESS;
}

/* The memory object a buffer lives in and its offset there (a sub-buffer's parent). */
static inline clperm_status clperm__buffer_root(cl_mem m, cl_mem *root, size_t *offset) {
    cl_mem parent = NULL;
    size_t off = 0;
    if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) != CL_SUCCESS ||
        (parent && clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof off, &off, NULL) != CL_SUCCESS))
        return CLPERM_ERROR_INVALID_BUFFER;
    *root = parent ? parent : m;
    *offset = parent ? off : 0;
    return CLPERM_SUCCESS;
}

/* CLPERM_ERROR_BUFFER_OVERLAP when a and b share memory: the same object (unless same_ok: an
 * operation in place), or two objects of one buffer whose regions overlap (sub-buffers of one
 * buffer, or a buffer and its sub-buffer). Between two objects the whole regions count, not the
 * bytes the call uses: OpenCL leaves undefined any write to one of two overlapping objects while
 * the other is in use, and NVIDIA's driver corrupted its heap on a scan from one such sub-buffer to
 * another. a_bytes or b_bytes 0: nothing is accessed, no overlap. */
static inline clperm_status clperm__buffer_overlap(cl_mem a, uint64_t a_bytes, cl_mem b, uint64_t b_bytes,
                                                   int same_ok) {
    cl_mem ra, rb;
    size_t oa, ob, sa = 0, sb = 0;
    if (a_bytes == 0 || b_bytes == 0) return CLPERM_SUCCESS;
    if (a == b) return same_ok && a_bytes == b_bytes ? CLPERM_SUCCESS : CLPERM_ERROR_BUFFER_OVERLAP;
    CLPERM_TRY(clperm__buffer_root(a, &ra, &oa));
    CLPERM_TRY(clperm__buffer_root(b, &rb, &ob));
    if (ra != rb) return CLPERM_SUCCESS;
    if (clGetMemObjectInfo(a, CL_MEM_SIZE, sizeof sa, &sa, NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(b, CL_MEM_SIZE, sizeof sb, &sb, NULL) != CL_SUCCESS)
        return CLPERM_ERROR_INVALID_BUFFER;
    int disjoint = oa + sa <= ob || ob + sb <= oa;
    return disjoint ? CLPERM_SUCCESS : CLPERM_ERROR_BUFFER_OVERLAP;
}

#endif /* CLPERM_BUFFER_CHECK_H */
