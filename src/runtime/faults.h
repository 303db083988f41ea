/* Fault injection for tests: in a build with CLPERM_FAULTS=1 (the test-only library clperm_faults),
 * every call inside clperm that can fail for want of resources goes through a counter, and the
 * k-th such call after clperm__fault_arm(k) fails as the runtime would report it:
 *   OpenCL allocations  clCreateBuffer, clCreateProgramWith*, clCreateKernel, clCreateUserEvent,
 *                       clCreateContext, clCreateCommandQueue       CL_OUT_OF_RESOURCES / NULL
 *   builds              clBuildProgram                              CL_BUILD_PROGRAM_FAILURE
 *   enqueues            clEnqueue* (kernels, copies, fills, reads,
 *                       writes, markers)                            CL_OUT_OF_RESOURCES
 *   host memory         malloc, calloc, realloc, strdup             NULL
 *   files               fopen, fwrite, rename (the disk cache)      NULL, short write (a full disk),
 *                                                                   -1
 * The wrappers also count the OpenCL objects clperm holds (created or retained, less released), so
 * a test can check that a failed call leaks nothing. Included by internal.h; the macros below send
 * the library's calls to the wrappers (faults.c itself sees the real functions). Not thread-safe:
 * tests arm faults from one thread. */
#ifndef CLPERM_FAULTS_H
#define CLPERM_FAULTS_H

#include <stdint.h>
#include <stdio.h>

#include "clperm.h"

/* The k-th fallible call from now fails (k >= 1); 0 disarms. Resets the call count. */
void clperm__fault_arm(uint64_t k);
/* Fallible calls made since the last clperm__fault_arm. */
uint64_t clperm__fault_calls(void);
/* 1 once the armed call has failed. */
int clperm__fault_fired(void);
/* OpenCL objects created or retained through the wrappers, less those released. */
int64_t clperm__fault_live_objects(void);

cl_mem clperm__f_clCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *e);
cl_program clperm__f_clCreateProgramWithSource(cl_context c, cl_uint n, const char **t, const size_t *l, cl_int *e);
cl_program clperm__f_clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d, const size_t *l,
                                               const unsigned char **b, cl_int *bs, cl_int *e);
cl_kernel clperm__f_clCreateKernel(cl_program p, const char *name, cl_int *e);
cl_event clperm__f_clCreateUserEvent(cl_context c, cl_int *e);
cl_context clperm__f_clCreateContext(const cl_context_properties *p, cl_uint n, const cl_device_id *d,
                                     void(CL_CALLBACK *cb)(const char *, const void *, size_t, void *), void *u,
                                     cl_int *e);
cl_command_queue clperm__f_clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties p,
                                                cl_int *e);
cl_int clperm__f_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                                void(CL_CALLBACK *cb)(cl_program, void *), void *u);
cl_int clperm__f_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                                        const size_t *g, const size_t *l, cl_uint n, const cl_event *w, cl_event *e);
cl_int clperm__f_clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t b,
                                     cl_uint n, const cl_event *w, cl_event *e);
cl_int clperm__f_clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *p, size_t ps, size_t o, size_t s,
                                     cl_uint n, const cl_event *w, cl_event *e);
cl_int clperm__f_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, void *p, cl_uint n,
                                     const cl_event *w, cl_event *e);
cl_int clperm__f_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, const void *p,
                                      cl_uint n, const cl_event *w, cl_event *e);
cl_int clperm__f_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e);
cl_int clperm__f_clRetainMemObject(cl_mem m);
cl_int clperm__f_clReleaseMemObject(cl_mem m);
cl_int clperm__f_clReleaseProgram(cl_program p);
cl_int clperm__f_clReleaseKernel(cl_kernel k);
cl_int clperm__f_clRetainEvent(cl_event e);
cl_int clperm__f_clReleaseEvent(cl_event e);
cl_int clperm__f_clRetainContext(cl_context c);
cl_int clperm__f_clReleaseContext(cl_context c);
cl_int clperm__f_clRetainCommandQueue(cl_command_queue q);
cl_int clperm__f_clReleaseCommandQueue(cl_command_queue q);
void *clperm__f_malloc(size_t n);
void *clperm__f_calloc(size_t n, size_t s);
void *clperm__f_realloc(void *p, size_t n);
char *clperm__f_strdup(const char *s);
FILE *clperm__f_fopen(const char *path, const char *mode);
size_t clperm__f_fwrite(const void *p, size_t s, size_t n, FILE *f);
int clperm__f_rename(const char *from, const char *to);

#ifndef CLPERM_FAULTS_IMPL
#define clCreateBuffer clperm__f_clCreateBuffer
#define clCreateProgramWithSource clperm__f_clCreateProgramWithSource
#define clCreateProgramWithBinary clperm__f_clCreateProgramWithBinary
#define clCreateKernel clperm__f_clCreateKernel
#define clCreateUserEvent clperm__f_clCreateUserEvent
#define clCreateContext clperm__f_clCreateContext
#define clCreateCommandQueue clperm__f_clCreateCommandQueue
#define clBuildProgram clperm__f_clBuildProgram
#define clEnqueueNDRangeKernel clperm__f_clEnqueueNDRangeKernel
#define clEnqueueCopyBuffer clperm__f_clEnqueueCopyBuffer
#define clEnqueueFillBuffer clperm__f_clEnqueueFillBuffer
#define clEnqueueReadBuffer clperm__f_clEnqueueReadBuffer
#define clEnqueueWriteBuffer clperm__f_clEnqueueWriteBuffer
#define clEnqueueMarkerWithWaitList clperm__f_clEnqueueMarkerWithWaitList
#define clRetainMemObject clperm__f_clRetainMemObject
#define clReleaseMemObject clperm__f_clReleaseMemObject
#define clReleaseProgram clperm__f_clReleaseProgram
#define clReleaseKernel clperm__f_clReleaseKernel
#define clRetainEvent clperm__f_clRetainEvent
#define clReleaseEvent clperm__f_clReleaseEvent
#define clRetainContext clperm__f_clRetainContext
#define clReleaseContext clperm__f_clReleaseContext
#define clRetainCommandQueue clperm__f_clRetainCommandQueue
#define clReleaseCommandQueue clperm__f_clReleaseCommandQueue
#define malloc clperm__f_malloc
#define calloc clperm__f_calloc
#define realloc clperm__f_realloc
#define strdup clperm__f_strdup
#define fopen clperm__f_fopen
#define fwrite clperm__f_fwrite
#define rename clperm__f_rename
#endif

#endif /* CLPERM_FAULTS_H */
