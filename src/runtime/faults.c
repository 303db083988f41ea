/* Fault injection (faults.h): compiled into the test-only library clperm_faults. */
#define CLPERM_FAULTS_IMPL 1
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t armed_at, calls;
static int fired;
static int64_t live;

void clperm__fault_arm(uint64_t k) {
    armed_at = k;
    calls = 0;
    fired = 0;
}

uint64_t clperm__fault_calls(void) { return calls; }
int clperm__fault_fired(void) { return fired; }
int64_t clperm__fault_live_objects(void) { return live; }

/* 1 when this fallible call is the one that must fail. */
static int fail_now(void) {
    calls++;
    if (armed_at && calls == armed_at) {
        fired = 1;
        return 1;
    }
    return 0;
}

#define FAIL_OBJECT(code)                                                                          \
    do {                                                                                           \
        if (fail_now()) {                                                                          \
            if (e) *e = (code);                                                                    \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)

cl_mem clperm__f_clCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *e) {
    FAIL_OBJECT(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    cl_mem m = clCreateBuffer(c, f, s, h, e);
    if (m) live++;
    return m;
}

cl_program clperm__f_clCreateProgramWithSource(cl_context c, cl_uint n, const char **t, const size_t *l, cl_int *e) {
    FAIL_OBJECT(CL_OUT_OF_RESOURCES);
    cl_program p = clCreateProgramWithSource(c, n, t, l, e);
    if (p) live++;
    return p;
}

cl_program clperm__f_clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d, const size_t *l,
                                               const unsigned char **b, cl_int *bs, cl_int *e) {
    FAIL_OBJECT(CL_OUT_OF_RESOURCES);
    cl_program p = clCreateProgramWithBinary(c, n, d, l, b, bs, e);
    if (p) live++;
    return p;
}

cl_kernel clperm__f_clCreateKernel(cl_program p, const char *name, cl_int *e) {
    FAIL_OBJECT(CL_OUT_OF_RESOURCES);
    cl_kernel k = clCreateKernel(p, name, e);
    if (k) live++;
    return k;
}

cl_event clperm__f_clCreateUserEvent(cl_context c, cl_int *e) {
    FAIL_OBJECT(CL_OUT_OF_RESOURCES);
    cl_event ev = clCreateUserEvent(c, e);
    if (ev) live++;
    return ev;
}

cl_context clperm__f_clCreateContext(const cl_context_properties *p, cl_uint n, const cl_device_id *d,
                                     void(CL_CALLBACK *cb)(const char *, const void *, size_t, void *), void *u,
                                     cl_int *e) {
    FAIL_OBJECT(CL_OUT_OF_HOST_MEMORY);
    cl_context c = clCreateContext(p, n, d, cb, u, e);
    if (c) live++;
    return c;
}

cl_command_queue clperm__f_clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties p,
                                                cl_int *e) {
    FAIL_OBJECT(CL_OUT_OF_RESOURCES);
    cl_command_queue q = clCreateCommandQueue(c, d, p, e);
    if (q) live++;
    return q;
}

cl_int clperm__f_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                                void(CL_CALLBACK *cb)(cl_program, void *), void *u) {
    if (fail_now()) return CL_BUILD_PROGRAM_FAILURE;
    return clBuildProgram(p, n, d, o, cb, u);
}

/* An enqueue that fails returns before the runtime sees it; one that returns an event adds an
 * object. */
#define ENQUEUE(call)                                                                              \
    do {                                                                                           \
        if (fail_now()) return CL_OUT_OF_RESOURCES;                                                \
        cl_int r_ = (call);                                                                        \
        if (r_ == CL_SUCCESS && e) live++;                                                         \
        return r_;                                                                                 \
    } while (0)

cl_int clperm__f_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                                        const size_t *g, const size_t *l, cl_uint n, const cl_event *w, cl_event *e) {
    ENQUEUE(clEnqueueNDRangeKernel(q, k, dim, off, g, l, n, w, e));
}

cl_int clperm__f_clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t b,
                                     cl_uint n, const cl_event *w, cl_event *e) {
    ENQUEUE(clEnqueueCopyBuffer(q, s, d, so, dof, b, n, w, e));
}

cl_int clperm__f_clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *p, size_t ps, size_t o, size_t s,
                                     cl_uint n, const cl_event *w, cl_event *e) {
    ENQUEUE(clEnqueueFillBuffer(q, m, p, ps, o, s, n, w, e));
}

cl_int clperm__f_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, void *p, cl_uint n,
                                     const cl_event *w, cl_event *e) {
    ENQUEUE(clEnqueueReadBuffer(q, m, b, o, s, p, n, w, e));
}

cl_int clperm__f_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, const void *p,
                                      cl_uint n, const cl_event *w, cl_event *e) {
    ENQUEUE(clEnqueueWriteBuffer(q, m, b, o, s, p, n, w, e));
}

cl_int clperm__f_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e) {
    ENQUEUE(clEnqueueMarkerWithWaitList(q, n, w, e));
}

/* Retains and releases: counted, never failed. */
#define RETAIN(call)                                                                               \
    do {                                                                                           \
        cl_int r_ = (call);                                                                        \
        if (r_ == CL_SUCCESS) live++;                                                              \
        return r_;                                                                                 \
    } while (0)
#define RELEASE(call)                                                                              \
    do {                                                                                           \
        cl_int r_ = (call);                                                                        \
        if (r_ == CL_SUCCESS) live--;                                                              \
        return r_;                                                                                 \
    } while (0)

cl_int clperm__f_clRetainMemObject(cl_mem m) { RETAIN(clRetainMemObject(m)); }
cl_int clperm__f_clReleaseMemObject(cl_mem m) { RELEASE(clReleaseMemObject(m)); }
cl_int clperm__f_clReleaseProgram(cl_program p) { RELEASE(clReleaseProgram(p)); }
cl_int clperm__f_clReleaseKernel(cl_kernel k) { RELEASE(clReleaseKernel(k)); }
cl_int clperm__f_clRetainEvent(cl_event e) { RETAIN(clRetainEvent(e)); }
cl_int clperm__f_clReleaseEvent(cl_event e) { RELEASE(clReleaseEvent(e)); }
cl_int clperm__f_clRetainContext(cl_context c) { RETAIN(clRetainContext(c)); }
cl_int clperm__f_clReleaseContext(cl_context c) { RELEASE(clReleaseContext(c)); }
cl_int clperm__f_clRetainCommandQueue(cl_command_queue q) { RETAIN(clRetainCommandQueue(q)); }
cl_int clperm__f_clReleaseCommandQueue(cl_command_queue q) { RELEASE(clReleaseCommandQueue(q)); }

void *clperm__f_malloc(size_t n) { return fail_now() ? NULL : malloc(n); }
void *clperm__f_calloc(size_t n, size_t s) { return fail_now() ? NULL : calloc(n, s); }
void *clperm__f_realloc(void *p, size_t n) { return fail_now() ? NULL : realloc(p, n); }
char *clperm__f_strdup(const char *s) { return fail_now() ? NULL : strdup(s); }
FILE *clperm__f_fopen(const char *path, const char *mode) { return fail_now() ? NULL : fopen(path, mode); }
/* A short write, as on a full disk. */
size_t clperm__f_fwrite(const void *p, size_t s, size_t n, FILE *f) {
    if (fail_now()) return n ? (n - 1) / 2 : 0;
    return fwrite(p, s, n, f);
}
int clperm__f_rename(const char *from, const char *to) { return fail_now() ? -1 : rename(from, to); }
