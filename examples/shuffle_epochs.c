/* shuffle_epochs: an application that owns its OpenCL objects shuffles a dataset every epoch.
 *
 * The program creates its own cl_context and in-order command queue, as an application that
 * already uses OpenCL has them, and hands them to clperm with clperm_ctx_create. It uploads
 * 100000 records of 16 bytes once; every epoch it shuffles them into a second buffer with a new
 * seed, chaining the calls with events (upload -> shuffle -> non-blocking read), and checks the
 * result against clperm_shuffle_host, which computes the same permutation on the host.
 *
 * Prints one line per epoch; exits 0 when every epoch matched, 1 on any failure. README.md's
 * example is the part of main between the two readme comments (a test checks that they agree). */
#include <clperm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "try.h" /* TRY(call): print the status and fail */

#define RECORDS 100000
#define EPOCHS 3

/* One training example: clperm moves items of any size without looking inside them. */
typedef struct record {
    cl_uint id;
    cl_float features[3];
} record;

/* The first GPU of any platform, else the first device of any kind. */
static cl_int pick_device(cl_device_id *device) {
    cl_platform_id platforms[16];
    cl_uint count = 0;
    if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS) return CL_DEVICE_NOT_FOUND;
    if (count > 16) count = 16;
    for (cl_uint i = 0; i < count; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, device, NULL) == CL_SUCCESS) return CL_SUCCESS;
    for (cl_uint i = 0; i < count; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, device, NULL) == CL_SUCCESS) return CL_SUCCESS;
    return CL_DEVICE_NOT_FOUND;
}

int main(void) {
    const size_t bytes = RECORDS * sizeof(record);
    int failed = 1;
    cl_int err;
    cl_device_id device;
    cl_context context = NULL;
    cl_command_queue queue = NULL;
    cl_mem data = NULL, shuffled = NULL;
    cl_event uploaded = NULL, shuffle_done = NULL, read_done = NULL;
    clperm_ctx *ctx = NULL;
    record *records = malloc(bytes), *got = malloc(bytes), *want = malloc(bytes);
    if (!records || !got || !want) {
        fprintf(stderr, "out of host memory\n");
        goto cleanup;
    }
    for (cl_uint i = 0; i < RECORDS; i++) records[i] = (record){i, {0.5f * i, 1.0f / (i + 1), -1.0f * i}};

    /* The application's own OpenCL objects. clperm needs the queue to be in-order (the default). */
    TRY(pick_device(&device));
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    TRY(err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    TRY(err);
    data = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    TRY(err);
    shuffled = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    TRY(err);

    /* <readme> */
    /* Wrap your context, device and in-order queue (clperm retains them). */
    TRY(clperm_ctx_create(&ctx, context, device, queue));
    TRY(clEnqueueWriteBuffer(queue, data, CL_FALSE, 0, bytes, records, 0, NULL, &uploaded));
    for (int epoch = 1; epoch <= EPOCHS; epoch++) {
        /* shuffled[j] = data[perm[j]], perm a random permutation fixed by the seed; NULL options
         * take the default bijection, a Feistel network. The upload's event gates the shuffle,
         * the shuffle's event gates a non-blocking read. */
        uint64_t seed = 1000 + epoch;
        TRY(clperm_shuffle(ctx, data, shuffled, RECORDS, sizeof(record), seed, NULL, 1, &uploaded, &shuffle_done));
        TRY(clEnqueueReadBuffer(queue, shuffled, CL_FALSE, 0, bytes, got, 1, &shuffle_done, &read_done));
        TRY(clWaitForEvents(1, &read_done));
        /* The host computes the same permutation, bit for bit. */
        TRY(clperm_shuffle_host(records, want, RECORDS, sizeof(record), seed, NULL));
        if (memcmp(got, want, bytes) != 0) {
            fprintf(stderr, "epoch %d: the device's shuffle differs from clperm_shuffle_host\n", epoch);
            goto cleanup;
        }
        printf("epoch %d: seed %llu, records %u %u %u ... first, as clperm_shuffle_host has them\n", epoch,
               (unsigned long long)seed, got[0].id, got[1].id, got[2].id);
        clReleaseEvent(shuffle_done);
        clReleaseEvent(read_done);
        shuffle_done = read_done = NULL;
    }
    /* </readme> */
    failed = 0;

cleanup:
    if (queue) clFinish(queue); /* nothing may still write to `got` when it is freed */
    if (read_done) clReleaseEvent(read_done);
    if (shuffle_done) clReleaseEvent(shuffle_done);
    if (uploaded) clReleaseEvent(uploaded);
    clperm_ctx_free(ctx); /* waits for what it enqueued; NULL is a no-op */
    if (shuffled) clReleaseMemObject(shuffled);
    if (data) clReleaseMemObject(data);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
    free(records);
    free(got);
    free(want);
    return failed;
}
