/* A program outside the tree that uses an installed clperm (tests/run_install.sh): the host
 * shuffle gives a permutation of 0..n-1, the tunables' table is there, and where a device is
 * present its shuffle equals the host's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clperm.h>

int main(void) {
    enum { N = 1000 };
    uint32_t in[N], out[N], seen[N] = {0};
    for (uint32_t i = 0; i < N; i++) in[i] = i;
    if (clperm_shuffle_host(in, out, N, 4, 42, NULL) != CLPERM_SUCCESS) return 1;
    for (uint32_t i = 0; i < N; i++)
        if (out[i] >= N || seen[out[i]]++) return 2;
    if (clperm_tunable_count() == 0) return 3;
    size_t devices = 0;
    if (clperm_device_count(&devices) != CLPERM_SUCCESS) return 4;
    if (devices) {
        clperm_ctx *ctx = NULL;
        if (clperm_ctx_create_default(&ctx) != CLPERM_SUCCESS) return 5;
        uint32_t got[N];
        cl_int e;
        cl_context c = clperm_ctx_cl_context(ctx);
        cl_mem a = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof in, in, &e);
        cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, sizeof in, NULL, &e);
        int bad = clperm_shuffle(ctx, a, b, N, 4, 42, NULL, 0, NULL, NULL) != CLPERM_SUCCESS ||
                  clEnqueueReadBuffer(clperm_ctx_cl_queue(ctx), b, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) !=
                      CL_SUCCESS ||
                  memcmp(got, out, sizeof got) != 0;
        clReleaseMemObject(a);
        clReleaseMemObject(b);
        clperm_ctx_free(ctx);
        if (bad) return 6;
    }
    printf("clperm %s: host shuffle, %zu tunables, %zu device(s)\n", clperm_version(), clperm_tunable_count(), devices);
    return 0;
}
