/* The bank-conflict trace: a layer over the tile operations. It asks an operation for the plan of
 * its trace build, binds a trace buffer to that kernel, runs the operation's own launch, and
 * counts the conflicts in what the kernel recorded (the format and the model: tile.h). */
#include <stdlib.h>
#include <string.h>

#include "tile.h"

clperm_status clperm__trace_count(const cl_uint *rec, uint64_t tiles, uint32_t w, cl_uint cap,
                                  clperm_conflict_report *out) {
    CLPERM_RETURN_IF(w == 0 || w > CLPERM__TRACE_W_MAX, CLPERM_ERROR_INVALID_ARGUMENT);
    memset(out, 0, sizeof *out);
    out->tiles = tiles;
    /* Per step and bank, the distinct addresses seen. */
    cl_uint seen[CLPERM__TRACE_W_MAX][CLPERM__TRACE_W_MAX];
    cl_uint nseen[CLPERM__TRACE_W_MAX];
    for (uint64_t t = 0; t < tiles; t++) {
        const cl_uint *tile = rec + t * w * (cap + (size_t)1);
        cl_uint steps = 0;
        for (uint32_t l = 0; l < w; l++) {
            cl_uint s = tile[l * (cap + (size_t)1)];
            CLPERM_RETURN_IF(s > cap, CLPERM_ERROR_SIZE_OVERFLOW);
            if (s > steps) steps = s;
        }
        out->steps += steps;
        for (cl_uint s = 0; s < steps; s++) {
            memset(nseen, 0, sizeof nseen);
            for (uint32_t l = 0; l < w; l++) {
                const cl_uint *lane = tile + l * (cap + (size_t)1);
                if (s >= lane[0] || lane[1 + s] == CLPERM__TRACE_IDLE) continue;
                cl_uint a = lane[1 + s], b = a % w, i = 0;
                out->accesses++;
                while (i < nseen[b] && seen[b][i] != a) i++;
                if (i == nseen[b]) seen[b][nseen[b]++] = a;
            }
            for (uint32_t b = 0; b < w; b++) {
                if (nseen[b] > 1) out->conflicts += nseen[b] - 1;
                if (nseen[b] > out->max_ways) out->max_ways = nseen[b];
            }
        }
    }
    return CLPERM_SUCCESS;
}

clperm_status clperm__trace_create(clperm_ctx *ctx, uint64_t tiles, uint32_t w, uint64_t cap, clperm__trace *t) {
    memset(t, 0, sizeof *t);
    uint64_t words = tiles * w * (cap + 1);
    CLPERM_RETURN_IF(words > SIZE_MAX / 4 || cap >= UINT32_MAX, CLPERM_ERROR_SIZE_OVERFLOW);
    t->rec = malloc((size_t)words * 4);
    CLPERM_RETURN_IF(!t->rec, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    cl_int err = CL_SUCCESS;
    t->buffer = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)words * 4, NULL, &err);
    if (!t->buffer) {
        free(t->rec);
        t->rec = NULL;
        return err;
    }
    t->tiles = tiles;
    t->w = w;
    t->cap = (cl_uint)cap;
    return CLPERM_SUCCESS;
}

clperm_status clperm__trace_bind(const clperm__trace *t, cl_kernel kernel) {
    cl_uint args = 0;
    CLPERM_TRY(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL));
    CLPERM_RETURN_IF(args < 2, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clSetKernelArg(kernel, args - 2, sizeof t->buffer, &t->buffer));
    return clSetKernelArg(kernel, args - 1, sizeof t->cap, &t->cap);
}

clperm_status clperm__trace_finish(clperm_ctx *ctx, clperm__trace *t, clperm_conflict_report *out) {
    size_t bytes = (size_t)(t->tiles * t->w * (t->cap + (uint64_t)1)) * 4;
    CLPERM_TRY(clEnqueueReadBuffer(ctx->queue, t->buffer, CL_TRUE, 0, bytes, t->rec, 0, NULL, NULL));
    return clperm__trace_count(t->rec, t->tiles, t->w, t->cap, out);
}

void clperm__trace_release(clperm__trace *t) {
    if (t->buffer) clReleaseMemObject(t->buffer);
    free(t->rec);
    memset(t, 0, sizeof *t);
}

/* ---- the tile operations' conflicts ---- */

/* A traced run's device buffers: the first from the host (in, or zeros when in is NULL), the
 * second zeroed or left as allocated (bytes 0: none). Zeros are written from the host: Oclgrind
 * takes memory set by clEnqueueFillBuffer for uninitialised. */
typedef struct traced_io {
    const void *in;
    size_t in_bytes;
    size_t out_bytes;
    int out_zeroed;
} traced_io;

/* The operation's own launch on the two buffers. */
typedef clperm_status (*traced_launch)(clperm_ctx *ctx, const clperm__tile_plan *p, cl_mem a, cl_mem b,
                                       const void *arg);

/* Runs a planned trace build of `tiles` tiles, cap steps per work-item, and counts its conflicts
 * into *out. */
static clperm_status traced_run(clperm_ctx *ctx, const clperm__tile_plan *p, uint64_t tiles, uint64_t cap,
                                const traced_io *io, traced_launch launch, const void *arg,
                                clperm_conflict_report *out) {
    clperm__trace t;
    CLPERM_TRY(clperm__trace_create(ctx, tiles, p->shape.w, cap, &t));
    clperm_status st;
    cl_int err = CL_SUCCESS;
    cl_mem a = NULL, b = NULL;
    cl_kernel k;
    void *zeros = calloc(io->in_bytes > io->out_bytes ? io->in_bytes : io->out_bytes, 1);
    CLPERM_CHECK(zeros ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    a = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, io->in_bytes,
                       (void *)(io->in ? io->in : zeros), &err);
    CLPERM_CHECK(err);
    if (io->out_bytes) {
        b = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | (io->out_zeroed ? CL_MEM_COPY_HOST_PTR : 0),
                           io->out_bytes, io->out_zeroed ? zeros : NULL, &err);
        CLPERM_CHECK(err);
    }
    CLPERM_CHECK(clperm__tile_plan_kernel(ctx, p, &k));
    CLPERM_CHECK(clperm__trace_bind(&t, k));
    CLPERM_CHECK(launch(ctx, p, a, b, arg));
    CLPERM_CHECK(clperm__trace_finish(ctx, &t, out));
    out->shape = p->shape;
cleanup:
    if (st != CLPERM_SUCCESS) clFinish(ctx->queue);
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    clperm__trace_release(&t);
    free(zeros);
    return st;
}

typedef struct segments_call {
    uint64_t n, segment;
} segments_call;

static clperm_status launch_segments(clperm_ctx *ctx, const clperm__tile_plan *p, cl_mem keys, cl_mem values,
                                     const void *arg) {
    const segments_call *c = arg;
    return clperm__segments_launch(ctx, p, keys, values, c->n, c->segment, 0, NULL, NULL);
}

/* A planned sort or partition traced on n keys from the host (NULL: zeros) and zero values. */
static clperm_status segments_conflicts(clperm_ctx *ctx, const clperm__tile_plan *p, clperm_key_type type,
                                        int with_values, uint64_t segment, const void *keys, uint64_t n,
                                        clperm_conflict_report *out) {
    CLPERM_RETURN_IF(n == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    size_t ks = clperm_key_size(type);
    uint64_t g = p->shape.tiles_per_group, tiles = ((n + segment - 1) / segment + g - 1) / g * g;
    uint32_t lg = 0;
    while ((UINT64_C(1) << lg) < (uint64_t)p->shape.w * p->shape.m) lg++;
    /* Steps per work-item, keys and positions: at most 2m per pass, (lg+1)^2 passes (shear), or
     * 21 passes and three bitonic column sorts of lg(lg+1)/2 passes each (Theorem 2). */
    uint64_t cap = 2 * (4 * (uint64_t)p->shape.m + 4 * (uint64_t)p->shape.m * (lg + 1) * (lg + 1) +
                        2 * (uint64_t)p->shape.m * (21 + 3 * lg * (lg + 1) / 2));
    CLPERM_RETURN_IF(n > SIZE_MAX / ks, CLPERM_ERROR_SIZE_OVERFLOW);
    traced_io io = {keys, (size_t)n * ks, with_values ? (size_t)n * 4 : 0, 1};
    segments_call c = {n, segment};
    return traced_run(ctx, p, tiles, cap, &io, launch_segments, &c, out);
}

static clperm_status sort_conflicts_checked(clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                            clperm_tile_sort algorithm, const void *keys, uint64_t n,
                                            clperm_conflict_report *out) {
    clperm__tile_plan p;
    CLPERM_TRY(clperm__sort_plan(ctx, type, with_values, segment, algorithm, 0, 0, 1, &p));
    return segments_conflicts(ctx, &p, type, with_values, segment, keys, n, out);
}

clperm_status clperm_sort_conflicts(clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                    clperm_tile_sort algorithm, const void *keys, uint64_t n,
                                    clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = sort_conflicts_checked(ctx, type, with_values, segment, algorithm, keys, n, out);
    clperm__ctx_leave(ctx);
    return st;
}

static clperm_status partition_conflicts_checked(clperm_ctx *ctx, clperm_key_type type, uint64_t segment,
                                                 unsigned shift, unsigned bits, clperm_tile_sort algorithm,
                                                 const void *keys, uint64_t n, clperm_conflict_report *out) {
    clperm__tile_plan p;
    CLPERM_TRY(clperm__partition_plan(ctx, type, 0, segment, shift, bits, algorithm, 1, &p));
    return segments_conflicts(ctx, &p, type, 0, segment, keys, n, out);
}

clperm_status clperm_partition_conflicts(clperm_ctx *ctx, clperm_key_type type, uint64_t segment, unsigned shift,
                                         unsigned bits, clperm_tile_sort algorithm, const void *keys, uint64_t n,
                                         clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!out || bits == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = partition_conflicts_checked(ctx, type, segment, shift, bits, algorithm, keys, n, out);
    clperm__ctx_leave(ctx);
    return st;
}

static clperm_status launch_transposes(clperm_ctx *ctx, const clperm__tile_plan *p, cl_mem src, cl_mem dst,
                                       const void *arg) {
    return clperm__transpose_launch(ctx, p, src, dst, *(const uint64_t *)arg, 0, NULL, NULL);
}

/* Two matrices of zeros transposed by the trace build. */
static clperm_status transpose_conflicts_checked(clperm_ctx *ctx, clperm_type type, uint32_t rows, uint32_t cols,
                                                 clperm_conflict_report *out) {
    clperm__tile_plan p;
    CLPERM_TRY(clperm__transpose_plan(ctx, type, rows, cols, 1, &p));
    const uint64_t tiles = 2;
    size_t bytes = (size_t)rows * cols * clperm_type_size(type) * tiles;
    traced_io io = {NULL, bytes, bytes, 0};
    return traced_run(ctx, &p, tiles, 2 * (uint64_t)p.shape.m, &io, launch_transposes, &tiles, out);
}

clperm_status clperm_transpose_conflicts(clperm_ctx *ctx, clperm_type type, uint32_t rows, uint32_t cols,
                                         clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = transpose_conflicts_checked(ctx, type, rows, cols, out);
    clperm__ctx_leave(ctx);
    return st;
}
