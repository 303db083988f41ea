/* Probes of what a device does that no query tells, run when the first context on a device is
 * created (cl/common/probe.cl): today whether the device ends long loops early
 * (clperm_profile.loop_limit). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The probes' answers by device, for the process: a device answers the same each time, and a
 * build per context costs tens of milliseconds on some implementations (PoCL). */
#define KNOWN_MAX 32
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    cl_device_id device;
    char name[128]; /* with the handle, in case a released device's handle is reused */
    cl_uint loop_limit;
} known[KNOWN_MAX];
static int known_count;

static int known_find(cl_device_id device, const char *name, cl_uint *loop_limit) {
    int found = 0;
    pthread_mutex_lock(&known_lock);
    for (int i = 0; i < known_count && !found; i++)
        if (known[i].device == device && strcmp(known[i].name, name) == 0) {
            *loop_limit = known[i].loop_limit;
            found = 1;
        }
    pthread_mutex_unlock(&known_lock);
    return found;
}

static void known_add(cl_device_id device, const char *name, cl_uint loop_limit) {
    pthread_mutex_lock(&known_lock);
    if (known_count < KNOWN_MAX) {
        known[known_count].device = device;
        snprintf(known[known_count].name, sizeof known[known_count].name, "%s", name);
        known[known_count].loop_limit = loop_limit;
        known_count++;
    }
    pthread_mutex_unlock(&known_lock);
}

/* Iterations of the probe's loop: above the one cap known (65535), cheap everywhere else. */
#define PROBE_LOOP_ITERATIONS (1u << 17)

/* A single-pass kernel's wait counts against a cap on loops, which can end it early. */
static clperm_status found(clperm_profile *p, cl_uint loop_limit) {
    p->loop_limit = loop_limit;
    if (loop_limit) p->forward_progress = 0;
    return CLPERM_SUCCESS;
}

clperm_status clperm__probe_loops(cl_context context, cl_device_id device, clperm_profile *p) {
    cl_uint known_limit = 0;
    /* A simulator runs every iteration under its checks, seconds for this loop, and bounds none. */
    if (p->vendor == CLPERM_VENDOR_OCLGRIND) return found(p, 0);
    if (known_find(device, p->device_name, &known_limit)) return found(p, known_limit);
    cl_int err = CL_SUCCESS;
    /* A queue of its own: the caller's queue may hold work the probe must not wait for. */
    cl_command_queue queue = NULL;
    cl_program prog = NULL;
    cl_kernel kern = NULL;
    cl_mem words = NULL;
    const char *text = clperm__cl_common_probe_cl;
    size_t length = clperm__cl_common_probe_cl_size;
    queue = clCreateCommandQueue(context, device, 0, &err);
    if (!queue) goto cleanup;
    prog = clCreateProgramWithSource(context, 1, &text, &length, &err);
    if (!prog) goto cleanup;
    err = clBuildProgram(prog, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) goto cleanup;
    kern = clCreateKernel(prog, "clperm_probe_loops", &err);
    if (!kern) goto cleanup;
    cl_uint init[3] = {0, 1, 1}, got[3] = {0, 0, 0}, n = PROBE_LOOP_ITERATIONS;
    words = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof init, NULL, &err);
    if (!words) goto cleanup;
    size_t one = 1;
    if ((err = clEnqueueWriteBuffer(queue, words, CL_FALSE, 0, sizeof init, init, 0, NULL, NULL)) != CL_SUCCESS ||
        (err = clSetKernelArg(kern, 0, sizeof words, &words)) != CL_SUCCESS ||
        (err = clSetKernelArg(kern, 1, sizeof n, &n)) != CL_SUCCESS ||
        (err = clEnqueueNDRangeKernel(queue, kern, 1, NULL, &one, &one, 0, NULL, NULL)) != CL_SUCCESS ||
        (err = clEnqueueReadBuffer(queue, words, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL)) != CL_SUCCESS)
        goto cleanup;
    cl_uint limit = got[0] < n ? (got[0] ? got[0] : 1) : 0;
    if (limit)
        clperm__debug("\"%s\" ended a loop of %u iterations after %u: loops are capped", p->device_name, n, got[0]);
    known_add(device, p->device_name, limit);
    found(p, limit);
cleanup:
    if (words) clReleaseMemObject(words);
    if (kern) clReleaseKernel(kern);
    if (prog) clReleaseProgram(prog);
    if (queue) clReleaseCommandQueue(queue);
    if (err == CL_BUILD_PROGRAM_FAILURE) return CLPERM_ERROR_BUILD_FAILED;
    return err;
}
