/* The distributed context: the duplicated communicator, the kernels of cl/dist/dist.cl, host
 * staging buffers; agreement on statuses, the exchanges, and the account of where a call's time
 * went. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer_check.h"
#include "clperm_dist_kernels.h"
#include "dist_internal.h"

#define DIST_MAGIC UINT64_C(0x636c7065726d4449) /* "clpermDI" */

static const char *const kernel_names[CLPERM__DIST_KERNELS] = {
    "clperm_dist_count",  "clperm_dist_inverse", "clperm_dist_lower_bounds",
    "clperm_dist_owners", "clperm_dist_gather",  "clperm_dist_scatter", "clperm_dist_upper_bounds"};

static clperm_status mpi_status(int err) { return err == MPI_SUCCESS ? CLPERM_SUCCESS : CLPERM_ERROR_MPI; }

unsigned clperm__dist_log2_ceil(uint64_t x) {
    unsigned b = 0;
    while (b < 64 && (UINT64_C(1) << b) < x) b++;
    return b;
}

/* ---- building the kernels ---- */

static clperm_status build_program(clperm_dist *d) {
    const char *texts[] = {clperm__dist_cl_clperm_features_h, clperm__dist_cl_clperm_bijection_h,
                           clperm__dist_cl_dist_dist_cl};
    size_t lengths[] = {clperm__dist_cl_clperm_features_h_size, clperm__dist_cl_clperm_bijection_h_size,
                        clperm__dist_cl_dist_dist_cl_size};
    cl_int err;
    d->program = clCreateProgramWithSource(d->context, 3, texts, lengths, &err);
    if (!d->program) return err;
    err = clBuildProgram(d->program, 1, &d->device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        if (getenv("CLPERM_DEBUG")) {
            size_t len = 0;
            clGetProgramBuildInfo(d->program, d->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
            char *log = calloc(len + 1, 1);
            if (log && clGetProgramBuildInfo(d->program, d->device, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS)
                fprintf(stderr, "clperm: the distributed layer's kernels failed to build:\n%s\n", log);
            free(log);
        }
        return CLPERM_ERROR_BUILD_FAILED;
    }
    size_t max_wg = 0;
    CLPERM_TRY(clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL));
    d->wg = max_wg < 256 ? max_wg : 256;
    for (int k = 0; k < CLPERM__DIST_KERNELS; k++) {
        d->kernels[k] = clCreateKernel(d->program, kernel_names[k], &err);
        if (!d->kernels[k]) return err;
        size_t kwg = 0;
        CLPERM_TRY(clGetKernelWorkGroupInfo(d->kernels[k], d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                            NULL));
        if (kwg < d->wg) d->wg = kwg;
    }
    CLPERM_RETURN_IF(d->wg == 0, CLPERM_ERROR_UNSUPPORTED);
    return CLPERM_SUCCESS;
}

/* A positive size from the environment variable `name`, at most `max`; `fallback` otherwise. */
static uint64_t env_size(const char *name, uint64_t fallback, uint64_t max) {
    const char *env = getenv(name);
    uint64_t v = env && *env ? strtoull(env, NULL, 0) : 0;
    return v == 0 ? fallback : v > max ? max : v;
}

static clperm_status setup(clperm_dist *d, clperm_dist **out, clperm_ctx *ctx) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    d->ctx = ctx;
    d->context = clperm_ctx_cl_context(ctx);
    d->device = clperm_ctx_cl_device(ctx);
    d->queue = clperm_ctx_cl_queue(ctx);
    CLPERM_RETURN_IF(!d->context || !d->device || !d->queue, CLPERM_ERROR_INVALID_CONTEXT);
    d->chunk_bytes = (size_t)env_size("CLPERM_DIST_CHUNK_BYTES", CLPERM__DIST_CHUNK_BYTES, INT_MAX);
    d->slots = (int)env_size("CLPERM_DIST_SLOTS", CLPERM__DIST_SLOTS, CLPERM__DIST_MAX_SLOTS);
    for (int i = 0; i < 2; i++) {
        cl_int err;
        d->transfer[i] = clCreateCommandQueue(d->context, d->device, 0, &err);
        if (!d->transfer[i]) return err;
    }
    return build_program(d);
}

static void stage_release(clperm_dist *d, clperm__dist_staging *s) {
    if (s->mem) {
        clEnqueueUnmapMemObject(d->queue, s->mem, s->host, 0, NULL, NULL);
        clFinish(d->queue);
        clReleaseMemObject(s->mem);
    } else {
        free(s->host);
    }
    memset(s, 0, sizeof *s);
}

static void shared_release(clperm_dist *d);

static void release(clperm_dist *d) {
    shared_release(d);
    for (int i = 0; i < 2; i++) stage_release(d, &d->stage[i]);
    for (int i = 0; i < CLPERM__DIST_SCRATCH; i++) clperm__dist_release(d->scratch[i]);
    for (int i = 0; i < 2; i++)
        if (d->transfer[i]) clReleaseCommandQueue(d->transfer[i]);
    for (int k = 0; k < CLPERM__DIST_KERNELS; k++)
        if (d->kernels[k]) clReleaseKernel(d->kernels[k]);
    if (d->program) clReleaseProgram(d->program);
    if (d->comm != MPI_COMM_NULL) MPI_Comm_free(&d->comm);
    d->magic = 0;
    free(d);
}

/* The status of the lowest rank of comm whose st is not CLPERM_SUCCESS, on every rank; that
 * rank's number in *failed_rank (-1 when every rank succeeded). */
static clperm_status agree_on(MPI_Comm comm, int rank, clperm_status st, int *failed_rank) {
    /* (rank, -status) packed so that the smallest value is the lowest failing rank's. */
    int64_t mine = st == CLPERM_SUCCESS ? INT64_MAX : ((int64_t)rank << 32) | (int64_t)(uint32_t)-st, lowest = 0;
    *failed_rank = -1;
    if (MPI_Allreduce(&mine, &lowest, 1, MPI_INT64_T, MPI_MIN, comm) != MPI_SUCCESS) return CLPERM_ERROR_MPI;
    if (lowest == INT64_MAX) return CLPERM_SUCCESS;
    *failed_rank = (int)(lowest >> 32);
    return -(clperm_status)(uint32_t)(lowest & 0xffffffff);
}

/* ---- shared memory between the ranks of a node ---- */

static void shared_release(clperm_dist *d) {
    int nsize = 0;
    if (d->node != MPI_COMM_NULL) MPI_Comm_size(d->node, &nsize);
    for (int q = 0; d->registered && q < nsize; q++)
        if (d->registered[q]) clReleaseMemObject(d->registered[q]);
    free(d->registered);
    free(d->peer_host);
    d->registered = NULL;
    d->peer_host = NULL;
    d->own_host = NULL;
    if (d->window != MPI_WIN_NULL) MPI_Win_free(&d->window);
    if (d->node != MPI_COMM_NULL) MPI_Comm_free(&d->node);
}

/* This rank's part of the node's window and every other segment registered with the context
 * (CL_MEM_USE_HOST_PTR, which lets the device's copy engines reach it); 1 when all went well. */
static int shared_map(clperm_dist *d, int nsize, const int *ranks) {
    int ok = (d->registered = calloc((size_t)nsize, sizeof *d->registered)) != NULL &&
             (d->peer_host = calloc((size_t)d->size, sizeof *d->peer_host)) != NULL;
    for (int q = 0; ok && q < nsize; q++) {
        MPI_Aint bytes = 0;
        int unit = 0;
        void *base = NULL;
        cl_int err = CL_SUCCESS;
        ok = MPI_Win_shared_query(d->window, q, &bytes, &unit, &base) == MPI_SUCCESS && base &&
             (size_t)bytes >= (size_t)d->slots * d->chunk_bytes;
        if (ok) d->registered[q] = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, (size_t)bytes,
                                                  base, &err);
        ok = ok && d->registered[q] != NULL;
        if (!ok) break;
        if (ranks[q] == d->rank)
            d->own_host = base;
        else
            d->peer_host[ranks[q]] = base;
    }
    return ok;
}

/* Collective. Where ranks share a node, a window of one send ring a rank, registered by each of
 * them (clperm__dist_exchange's shared way); CLPERM_DIST_SHARED=0 turns it off. Any failure on a
 * node leaves its ranks without it (MPI's way then), agreed within the node. */
static clperm_status shared_setup(clperm_dist *d) {
    const char *env = getenv("CLPERM_DIST_SHARED");
    int want = !(env && strcmp(env, "0") == 0);
    if (MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MIN, d->comm) != MPI_SUCCESS) return CLPERM_ERROR_MPI;
    if (!want) return CLPERM_SUCCESS;
    if (MPI_Comm_split_type(d->comm, MPI_COMM_TYPE_SHARED, d->rank, MPI_INFO_NULL, &d->node) != MPI_SUCCESS)
        return CLPERM_ERROR_MPI;
    int nsize = 1;
    MPI_Comm_size(d->node, &nsize);
    if (nsize < 2) {
        MPI_Comm_free(&d->node);
        return CLPERM_SUCCESS;
    }
    int *ranks = malloc(2 * (size_t)nsize * sizeof *ranks), ok = ranks != NULL;
    MPI_Group node_group, group;
    MPI_Comm_group(d->node, &node_group);
    MPI_Comm_group(d->comm, &group);
    for (int q = 0; ok && q < nsize; q++) ranks[nsize + q] = q;
    if (ok) ok = MPI_Group_translate_ranks(node_group, nsize, ranks + nsize, group, ranks) == MPI_SUCCESS;
    MPI_Group_free(&node_group);
    MPI_Group_free(&group);
    /* Every rank of the node takes part in the window's making, whatever happened before. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    void *base = NULL;
    size_t page = 4096, bytes = ((size_t)d->slots * d->chunk_bytes + page - 1) / page * page;
    if (MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, d->node, &base, &d->window) != MPI_SUCCESS) {
        d->window = MPI_WIN_NULL;
        ok = 0;
    }
    MPI_Info_free(&info);
    int all = d->window != MPI_WIN_NULL;
    if (MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, d->node) != MPI_SUCCESS) all = 0;
    if (all) MPI_Win_set_errhandler(d->window, MPI_ERRORS_RETURN);
    ok = ok && all && shared_map(d, nsize, ranks);
    free(ranks);
    if (MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, d->node) != MPI_SUCCESS) ok = 0;
    if (!ok) {
        if (!all && d->window != MPI_WIN_NULL) {
            /* Some ranks have the window, some not: it cannot be freed collectively. */
            d->window = MPI_WIN_NULL;
        }
        shared_release(d);
    }
    return CLPERM_SUCCESS;
}

clperm_status clperm_dist_create(clperm_dist **out, MPI_Comm comm, clperm_ctx *ctx) {
    CLPERM_RETURN_IF(comm == MPI_COMM_NULL, CLPERM_ERROR_INVALID_ARGUMENT);
    int inter = 0;
    CLPERM_RETURN_IF(MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS, CLPERM_ERROR_MPI);
    CLPERM_RETURN_IF(inter, CLPERM_ERROR_INVALID_ARGUMENT);
    MPI_Comm dup = MPI_COMM_NULL;
    int rank = 0, failed = -1;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS || MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(dup, &rank) != MPI_SUCCESS) {
        if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
        return CLPERM_ERROR_MPI;
    }
    clperm_dist *d = calloc(1, sizeof *d);
    if (!d) {
        /* The others learn of it in the agreement they are waiting in. */
        agree_on(dup, rank, CLPERM_ERROR_OUT_OF_HOST_MEMORY, &failed);
        MPI_Comm_free(&dup);
        return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    }
    d->comm = dup;
    d->node = MPI_COMM_NULL;
    d->window = MPI_WIN_NULL;
    d->rank = rank;
    d->magic = DIST_MAGIC;
    clperm_status st = MPI_Comm_size(dup, &d->size) == MPI_SUCCESS ? setup(d, out, ctx) : CLPERM_ERROR_MPI;
    st = clperm__dist_agree(d, st);
    if (st == CLPERM_SUCCESS) {
        /* The exchange's chunks must be cut the same way on every rank. */
        uint64_t sizes[2] = {d->chunk_bytes, (uint64_t)d->slots};
        st = clperm__dist_allreduce(d, sizes, 2, MPI_MIN);
        d->chunk_bytes = (size_t)sizes[0];
        d->slots = (int)sizes[1];
    }
    if (st == CLPERM_SUCCESS) st = clperm__dist_agree(d, shared_setup(d));
    if (st != CLPERM_SUCCESS) {
        release(d);
        return st;
    }
    *out = d;
    return CLPERM_SUCCESS;
}

void clperm_dist_free(clperm_dist *dist) {
    if (!dist || dist->magic != DIST_MAGIC) return;
    release(dist);
}

clperm_status clperm__dist_check(const clperm_dist *dist) {
    CLPERM_RETURN_IF(!dist || dist->magic != DIST_MAGIC, CLPERM_ERROR_INVALID_CONTEXT);
    CLPERM_RETURN_IF(clperm_ctx_cl_queue(dist->ctx) != dist->queue, CLPERM_ERROR_INVALID_CONTEXT);
    return CLPERM_SUCCESS;
}

clperm_status clperm_dist_rank(const clperm_dist *dist, int *rank, int *size) {
    CLPERM_TRY(clperm__dist_check(dist));
    CLPERM_RETURN_IF(!rank && !size, CLPERM_ERROR_INVALID_ARGUMENT);
    if (rank) *rank = dist->rank;
    if (size) *size = dist->size;
    return CLPERM_SUCCESS;
}

clperm_status clperm_dist_last_stats(const clperm_dist *dist, clperm_dist_stats *out) {
    CLPERM_TRY(clperm__dist_check(dist));
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    *out = dist->stats;
    return CLPERM_SUCCESS;
}

/* ---- the account of a call ---- */

void clperm__dist_call_begin(clperm_dist *d) {
    memset(&d->stats, 0, sizeof d->stats);
    d->stats.failed_rank = -1;
    d->phase_start = MPI_Wtime();
    d->stats.seconds = d->phase_start;
}

void clperm__dist_phase_end(clperm_dist *d, clperm__dist_phase phase) {
    double now = MPI_Wtime(), t = now - d->phase_start;
    d->phase_start = now;
    switch (phase) {
    case CLPERM__PHASE_LOCAL: d->stats.local_seconds += t; break;
    case CLPERM__PHASE_STAGE: d->stats.stage_seconds += t; break;
    case CLPERM__PHASE_EXCHANGE: d->stats.exchange_seconds += t; break;
    default: d->stats.collective_seconds += t; break;
    }
}

void clperm__dist_call_end(clperm_dist *d) { d->stats.seconds = MPI_Wtime() - d->stats.seconds; }

/* ---- agreement ---- */

clperm_status clperm__dist_agree(clperm_dist *d, clperm_status st) {
    st = agree_on(d->comm, d->rank, st, &d->stats.failed_rank);
    d->stats.rounds++;
    return st;
}

clperm_status clperm__dist_allgather(clperm_dist *d, clperm_status st, const uint64_t *words, int k,
                                     uint64_t *all) {
    CLPERM_TRY(clperm__dist_agree(d, st));
    d->stats.rounds++;
    return mpi_status(MPI_Allgather(words, k, MPI_UINT64_T, all, k, MPI_UINT64_T, d->comm));
}

clperm_status clperm__dist_agree_call(clperm_dist *d, clperm_status st, const clperm__dist_call *call,
                                      uint64_t *offsets) {
    enum { W = CLPERM__DIST_CALL_WORDS };
    uint64_t mine[W];
    mine[0] = call->count;
    mine[1] = call->n;
    memcpy(mine + 2, call->same, sizeof call->same);
    uint64_t *all = malloc((size_t)d->size * W * sizeof *all);
    if (!all && st == CLPERM_SUCCESS) st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    st = clperm__dist_allgather(d, st, mine, W, all);
    if (st != CLPERM_SUCCESS) {
        free(all);
        return st;
    }
    /* Every rank runs the same checks on the same words, so every rank finds the same. */
    offsets[0] = 0;
    for (int r = 0; r < d->size && st == CLPERM_SUCCESS; r++) {
        const uint64_t *w = all + (size_t)r * W;
        if (memcmp(w + 1, all + 1, (W - 1) * sizeof *w) != 0 || offsets[r] + w[0] < offsets[r]) {
            st = CLPERM_ERROR_DIST_MISMATCH;
            d->stats.failed_rank = r;
        }
        offsets[r + 1] = offsets[r] + w[0];
    }
    if (st == CLPERM_SUCCESS && offsets[d->size] != call->n) st = CLPERM_ERROR_DIST_MISMATCH;
    free(all);
    return st;
}

/* ---- MPI ---- */

clperm_status clperm__dist_allreduce(clperm_dist *d, uint64_t *words, int k, MPI_Op op) {
    d->stats.rounds++;
    return mpi_status(MPI_Allreduce(MPI_IN_PLACE, words, k, MPI_UINT64_T, op, d->comm));
}

clperm_status clperm__dist_exscan_sum(clperm_dist *d, const uint64_t *in, uint64_t *out, int k) {
    d->stats.rounds++;
    CLPERM_TRY(mpi_status(MPI_Exscan(in, out, k, MPI_UINT64_T, MPI_SUM, d->comm)));
    if (d->rank == 0) memset(out, 0, (size_t)k * sizeof *out); /* MPI leaves rank 0's undefined */
    return CLPERM_SUCCESS;
}

clperm_status clperm__dist_alltoall(clperm_dist *d, const uint64_t *send, uint64_t *recv) {
    d->stats.rounds++;
    return mpi_status(MPI_Alltoall(send, 1, MPI_UINT64_T, recv, 1, MPI_UINT64_T, d->comm));
}

/* ---- memory ---- */

clperm_status clperm__dist_stage(clperm_dist *d, int which, size_t bytes, void **host) {
    clperm__dist_staging *s = &d->stage[which];
    if (bytes > s->bytes) {
        stage_release(d, s);
        cl_int err;
        s->mem = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
        if (s->mem) {
            s->host = clEnqueueMapBuffer(d->queue, s->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
                                         NULL, &err);
            if (!s->host) {
                clReleaseMemObject(s->mem);
                s->mem = NULL;
            }
        }
        if (!s->host) s->host = malloc(bytes);
        CLPERM_RETURN_IF(!s->host, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
        s->bytes = bytes;
    }
    *host = s->host;
    return CLPERM_SUCCESS;
}

clperm_status clperm__dist_buffer(clperm_dist *d, size_t bytes, cl_mem *out) {
    *out = NULL;
    if (bytes == 0) return CLPERM_SUCCESS;
    cl_int err;
    *out = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    return *out ? CLPERM_SUCCESS : err;
}

clperm_status clperm__dist_scratch(clperm_dist *d, int which, size_t bytes, cl_mem *out) {
    *out = NULL;
    if (bytes == 0) return CLPERM_SUCCESS;
    if (bytes > d->scratch_bytes[which]) {
        clperm__dist_release(d->scratch[which]);
        d->scratch[which] = NULL;
        d->scratch_bytes[which] = 0;
        CLPERM_TRY(clperm__dist_buffer(d, bytes, &d->scratch[which]));
        d->scratch_bytes[which] = bytes;
    }
    *out = d->scratch[which];
    return CLPERM_SUCCESS;
}

void clperm__dist_release(cl_mem mem) {
    if (mem) clReleaseMemObject(mem);
}

clperm_status clperm__dist_read(clperm_dist *d, cl_mem mem, size_t offset, size_t bytes, void *host) {
    if (bytes == 0) return CLPERM_SUCCESS;
    return clEnqueueReadBuffer(d->queue, mem, CL_TRUE, offset, bytes, host, 0, NULL, NULL);
}

clperm_status clperm__dist_write(clperm_dist *d, cl_mem mem, size_t offset, size_t bytes, const void *host) {
    if (bytes == 0) return CLPERM_SUCCESS;
    return clEnqueueWriteBuffer(d->queue, mem, CL_TRUE, offset, bytes, host, 0, NULL, NULL);
}

clperm_status clperm__dist_check_buffer(const clperm_dist *d, cl_mem mem, uint64_t n, size_t elem, int writable) {
    if (n == 0 && !mem) return CLPERM_SUCCESS;
    return clperm__buffer_check(d->context, mem, n, elem, writable);
}

/* ---- kernels ---- */

clperm__dist_args clperm__dist_args_begin(clperm_dist *d, clperm__dist_kernel k) {
    clperm__dist_args a = {d->kernels[k], 0, CL_SUCCESS};
    return a;
}

void clperm__dist_arg(clperm__dist_args *a, const void *value, size_t size) {
    if (a->err == CL_SUCCESS) a->err = clSetKernelArg(a->kernel, a->next, size, value);
    a->next++;
}

void clperm__dist_arg_key(clperm__dist_args *a, const clperm_bijection_key *key) {
    if (a->err == CL_SUCCESS) a->err = clperm_bijection_set_kernel_args(a->kernel, a->next, key);
    a->next += CLPERM_BIJECTION_KEY_ARGS;
}

clperm_status clperm__dist_launch(clperm_dist *d, const clperm__dist_args *a, uint64_t items) {
    CLPERM_TRY(a->err);
    if (items == 0) return CLPERM_SUCCESS;
    CLPERM_RETURN_IF(items > SIZE_MAX - d->wg, CLPERM_ERROR_SIZE_OVERFLOW);
    size_t global = (size_t)((items + d->wg - 1) / d->wg * d->wg);
    return clEnqueueNDRangeKernel(d->queue, a->kernel, 1, NULL, &global, &d->wg, 0, NULL, NULL);
}
