/* rng_in_kernel: random numbers drawn inside your own kernel through clperm_rng.h.
 *
 * clperm's generators are shared by k work-items (k = 8, 16, 32 or 64): the k words of a
 * generator's state sit in local memory, one per work-item, and every draw updates all of them
 * at once, giving each work-item its own number. To use them in a kernel of your own, put
 * clperm_rng_device_source() (the generator tables and clperm_rng.h) before your kernel's text
 * and build with the options clperm_rng_build_options() writes for the device.
 *
 * Here each work-item draws 8 floats in [0, 1). The host recomputes every one of them with
 * clperm_rng_seed_host and clperm_rng_draw_host and compares the bits. Exits 0 when all match,
 * 1 otherwise. */
#include <clperm.h>
#include <clperm_rng.h> /* clperm_rng_float_bits: the kernel's conversion of a draw to a float */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "try.h" /* TRY(call): print the status and fail */

#define WORK_ITEMS 256 /* in all */
#define GROUP 64       /* per work-group: a multiple of every k */
#define DRAWS 8        /* numbers each work-item draws */

/* Your kernel. Work-items g*k .. g*k + k - 1 share generator g, seeded as stream g. Each draw
 * synchronises the k work-items, so all of a work-group's work-items make the same draws. */
static const char kernel_text[] =
    "__kernel void draw_floats(__global float *out, ulong seed, uint draws) {\n"
    "    __local uint words[64];  /* the state: one word per work-item of the group */\n"
    "    clperm_rng r;\n"
    "    clperm_rng_init(&r, words, seed, get_global_id(0) / CLPERM_RNG_K);\n"
    "    for (uint i = 0; i < draws; i++)\n"
    "        out[i * get_global_size(0) + get_global_id(0)] = clperm_rng_float(&r);\n"
    "}\n";

int main(void) {
    const cl_ulong seed = 2024;
    const cl_uint draws = DRAWS;
    static float got[DRAWS * WORK_ITEMS];
    int failed = 1;
    cl_int err;
    cl_program program = NULL;
    cl_kernel kernel = NULL;
    cl_mem out = NULL;
    clperm_ctx *ctx = NULL;

    /* A context of clperm's own on the default device (CLPERM_DEVICE, else the first GPU, else
     * the first CPU); its OpenCL objects are yours to use as well. */
    TRY(clperm_ctx_create_default(&ctx));
    cl_context context = clperm_ctx_cl_context(ctx);
    cl_device_id device = clperm_ctx_cl_device(ctx);
    cl_command_queue queue = clperm_ctx_cl_queue(ctx);

    /* The device's default generator (family and k), and the options that select it. */
    clperm_rng_spec spec;
    char options[512];
    TRY(clperm_rng_default(ctx, &spec));
    TRY(clperm_rng_build_options(ctx, &spec, options, sizeof options));

    /* Your program: clperm's device source first, then your kernel. */
    size_t lengths[2];
    const char *texts[2] = {clperm_rng_device_source(&lengths[0]), kernel_text};
    lengths[1] = strlen(kernel_text);
    program = clCreateProgramWithSource(context, 2, texts, lengths, &err);
    TRY(err);
    err = clBuildProgram(program, 1, &device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        static char log[16384];
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build log:\n%s\n", log);
    }
    TRY(err);
    kernel = clCreateKernel(program, "draw_floats", &err);
    TRY(err);

    out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof got, NULL, &err);
    TRY(err);
    size_t global = WORK_ITEMS, local = GROUP;
    TRY(clSetKernelArg(kernel, 0, sizeof out, &out));
    TRY(clSetKernelArg(kernel, 1, sizeof seed, &seed));
    TRY(clSetKernelArg(kernel, 2, sizeof draws, &draws));
    TRY(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
    TRY(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));

    /* The host's generator g: seeded as the kernel seeds it, then drawn DRAWS times. Draw i gives
     * the k words of the state, word j being work-item g*k + j's number. */
    double sum = 0;
    for (cl_uint g = 0; g < WORK_ITEMS / spec.k; g++) {
        uint32_t state[2 * CLPERM_RNG_MAX_K], words[DRAWS * CLPERM_RNG_MAX_K];
        TRY(clperm_rng_seed_host(&spec, seed, g, state));
        TRY(clperm_rng_draw_host(&spec, state, words, DRAWS));
        for (cl_uint i = 0; i < DRAWS; i++)
            for (cl_uint j = 0; j < spec.k; j++) {
                float x = got[i * WORK_ITEMS + g * spec.k + j];
                uint32_t bits;
                memcpy(&bits, &x, sizeof bits);
                if (bits != clperm_rng_float_bits(words[i * spec.k + j])) {
                    fprintf(stderr, "work-item %u, draw %u: %.9g differs from the host's\n", g * spec.k + j, i, x);
                    goto cleanup;
                }
                sum += x;
            }
    }
    printf("generator %s, k = %u: %d floats drawn in the kernel, mean %.4f, every one equal to the host's\n",
           clperm_rng_family_name(spec.family), spec.k, DRAWS * WORK_ITEMS, sum / (DRAWS * WORK_ITEMS));
    failed = 0;

cleanup:
    if (out) clReleaseMemObject(out);
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
    clperm_ctx_free(ctx); /* NULL is a no-op */
    return failed;
}
