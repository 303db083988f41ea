/* Probes of what a device does that no query tells, run when the first context on a device is
 * created (cl/common/probe.cl): whether the device ends long loops early
 * (clperm_profile.loop_limit), and how it reports a kernel's local memory
 * (clperm_profile.local_report_scale). */
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
    cl_uint loop_limit, local_scale;
} known[KNOWN_MAX];
static int known_count;

static int known_find(cl_device_id device, const char *name, cl_uint *loop_limit, cl_uint *local_scale) {
    int found = 0;
    pthread_mutex_lock(&known_lock);
    for (int i = 0; i < known_count && !found; i++)
        if (known[i].device == device && strcmp(known[i].name, name) == 0) {
            *loop_limit = known[i].loop_limit;
            *local_scale = known[i].local_scale;
            found = 1;
        }
    pthread_mutex_unlock(&known_lock);
    return found;
}

static void known_add(cl_device_id device, const char *name, cl_uint loop_limit, cl_uint local_scale) {
    pthread_mutex_lock(&known_lock);
    if (known_count < KNOWN_MAX) {
        known[known_count].device = device;
        snprintf(known[known_count].name, sizeof known[known_count].name, "%s", name);
        known[known_count].loop_limit = loop_limit;
        known[known_count].local_scale = local_scale;
        known_count++;
    }
    pthread_mutex_unlock(&known_lock);
}

/* clperm_probe_local's local array (cl/common/probe.cl). */
#define PROBE_LOCAL_BYTES 4096u

/* Iterations of the probe's loop: above the one cap known (65535), cheap everywhere else. */
#define PROBE_LOOP_ITERATIONS (1u << 17)

/* A single-pass kernel's wait counts against a cap on loops, which can end it early. */
static clperm_status found(clperm_profile *p, cl_uint loop_limit, cl_uint local_scale) {
    p->loop_limit = loop_limit;
    p->local_report_scale = local_scale;
    if (loop_limit) p->forward_progress = 0;
    return CLPERM_SUCCESS;
}

clperm_status clperm__probe_loops(cl_context context, cl_device_id device, clperm_profile *p) {
    cl_uint known_limit = 0, known_scale = 1;
    /* A simulator runs every iteration under its checks, seconds for this loop, and bounds none. */
    if (p->vendor == CLPERM_VENDOR_OCLGRIND) return found(p, 0, 1);
    if (known_find(device, p->device_name, &known_limit, &known_scale)) return found(p, known_limit, known_scale);
    cl_int err = CL_SUCCESS;
    /* A queue of its own: the caller's queue may hold work the probe must not wait for. */
    cl_command_queue queue = NULL;
    cl_program prog = NULL;
    cl_kernel kern = NULL, local_kern = NULL;
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
    local_kern = clCreateKernel(prog, "clperm_probe_local", &err);
    if (!local_kern) goto cleanup;
    cl_ulong local_bytes = 0;
    if (clGetKernelWorkGroupInfo(local_kern, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_bytes, &local_bytes,
                                 NULL) != CL_SUCCESS)
        local_bytes = 0;
    cl_uint scale = local_bytes >= 2 * PROBE_LOCAL_BYTES ? (cl_uint)(local_bytes / PROBE_LOCAL_BYTES) : 1;
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
    if (scale > 1)
        clperm__debug("\"%s\" reports %llu bytes of local memory for a kernel that declares %u", p->device_name,
                      (unsigned long long)local_bytes, PROBE_LOCAL_BYTES);
    known_add(device, p->device_name, limit, scale);
    found(p, limit, scale);
cleanup:
    if (words) clReleaseMemObject(words);
    if (kern) clReleaseKernel(kern);
    if (local_kern) clReleaseKernel(local_kern);
    if (prog) clReleaseProgram(prog);
    if (queue) clReleaseCommandQueue(queue);
    if (err == CL_BUILD_PROGRAM_FAILURE) return CLPERM_ERROR_BUILD_FAILED;
    return err;
}
