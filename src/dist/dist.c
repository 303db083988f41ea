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
    "clperm_dist_owners", "clperm_dist_gather",  "clperm_dist_scatter"};

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

static clperm_status setup(clperm_dist *d, clperm_dist **out, clperm_ctx *ctx) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    d->ctx = ctx;
    d->context = clperm_ctx_cl_context(ctx);
    d->device = clperm_ctx_cl_device(ctx);
    d->queue = clperm_ctx_cl_queue(ctx);
    CLPERM_RETURN_IF(!d->context || !d->device || !d->queue, CLPERM_ERROR_INVALID_CONTEXT);
    const char *env = getenv("CLPERM_DIST_MESSAGE_ITEMS");
    d->message_items = env && *env ? strtoull(env, NULL, 0) : (uint64_t)INT_MAX;
    if (d->message_items == 0 || d->message_items > (uint64_t)INT_MAX) d->message_items = (uint64_t)INT_MAX;
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

static void release(clperm_dist *d) {
    for (int i = 0; i < 4; i++) stage_release(d, &d->stage[i]);
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
    d->rank = rank;
    d->magic = DIST_MAGIC;
    clperm_status st = MPI_Comm_size(dup, &d->size) == MPI_SUCCESS ? setup(d, out, ctx) : CLPERM_ERROR_MPI;
    st = clperm__dist_agree(d, st);
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

/* Point-to-point messages of at most d->message_items items each (the non-overtaking rule of MPI
 * keeps the pieces of one pair of ranks in order under a single tag). */
static clperm_status exchange_pieces(clperm_dist *d, const unsigned char *send, const uint64_t *sendcounts,
                                     unsigned char *recv, const uint64_t *recvcounts, size_t item_bytes,
                                     MPI_Datatype type) {
    clperm_status st = CLPERM_SUCCESS;
    uint64_t pieces = 0, max = d->message_items;
    for (int t = 0; t < d->size; t++)
        if (t != d->rank) pieces += (sendcounts[t] + max - 1) / max + (recvcounts[t] + max - 1) / max;
    MPI_Request *req = pieces ? malloc((size_t)pieces * sizeof *req) : NULL;
    CLPERM_RETURN_IF(pieces && !req, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    int nreq = 0;
    uint64_t sdispl = 0, rdispl = 0;
    for (int t = 0; t < d->size && st == CLPERM_SUCCESS; t++) {
        for (uint64_t off = 0; off < recvcounts[t] && t != d->rank && st == CLPERM_SUCCESS; off += max) {
            uint64_t c = recvcounts[t] - off < max ? recvcounts[t] - off : max;
            st = mpi_status(MPI_Irecv(recv + (size_t)(rdispl + off) * item_bytes, (int)c, type, t, 0, d->comm,
                                      &req[nreq++]));
        }
        rdispl += recvcounts[t];
    }
    for (int t = 0; t < d->size && st == CLPERM_SUCCESS; t++) {
        if (t == d->rank) {
            /* This rank's own items: the receive displacement of rank t is the sum before it. */
            uint64_t own = 0;
            for (int u = 0; u < t; u++) own += recvcounts[u];
            memcpy(recv + (size_t)own * item_bytes, send + (size_t)sdispl * item_bytes,
                   (size_t)sendcounts[t] * item_bytes);
        }
        for (uint64_t off = 0; off < sendcounts[t] && t != d->rank && st == CLPERM_SUCCESS; off += max) {
            uint64_t c = sendcounts[t] - off < max ? sendcounts[t] - off : max;
            st = mpi_status(MPI_Isend(send + (size_t)(sdispl + off) * item_bytes, (int)c, type, t, 0, d->comm,
                                      &req[nreq++]));
        }
        sdispl += sendcounts[t];
    }
    if (nreq && MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) st = CLPERM_ERROR_MPI;
    free(req);
    return st;
}

clperm_status clperm__dist_alltoallv(clperm_dist *d, const void *send, const uint64_t *sendcounts, void *recv,
                                     const uint64_t *recvcounts, size_t item_bytes) {
    clperm_status st = CLPERM_SUCCESS;
    int size = d->size;
    CLPERM_RETURN_IF(item_bytes == 0 || item_bytes > INT_MAX, CLPERM_ERROR_INVALID_ARGUMENT);
    int *arrays = malloc(4 * (size_t)size * sizeof *arrays);
    CLPERM_RETURN_IF(!arrays, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    int *sc = arrays, *sd = arrays + size, *rc = arrays + 2 * size, *rd = arrays + 3 * size;
    /* MPI_Alltoallv counts and displacements are ints, in items of the contiguous type below. */
    int fits = 1;
    uint64_t sdispl = 0, rdispl = 0, max = d->message_items;
    for (int t = 0; t < size; t++) {
        fits = fits && sendcounts[t] <= max && recvcounts[t] <= max && sdispl <= max && rdispl <= max;
        sc[t] = (int)sendcounts[t];
        rc[t] = (int)recvcounts[t];
        sd[t] = (int)sdispl;
        rd[t] = (int)rdispl;
        if (t != d->rank) {
            d->stats.bytes_sent += sendcounts[t] * item_bytes;
            d->stats.bytes_received += recvcounts[t] * item_bytes;
        }
        sdispl += sendcounts[t];
        rdispl += recvcounts[t];
    }
    /* Every rank must take the same way. */
    d->stats.rounds++;
    if (MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, d->comm) != MPI_SUCCESS) {
        free(arrays);
        return CLPERM_ERROR_MPI;
    }
    MPI_Datatype type;
    if (MPI_Type_contiguous((int)item_bytes, MPI_BYTE, &type) != MPI_SUCCESS) {
        free(arrays);
        return CLPERM_ERROR_MPI;
    }
    if (MPI_Type_commit(&type) != MPI_SUCCESS)
        st = CLPERM_ERROR_MPI;
    else if (fits)
        st = mpi_status(MPI_Alltoallv(send, sc, sd, type, recv, rc, rd, type, d->comm));
    else
        st = exchange_pieces(d, send, sendcounts, recv, recvcounts, item_bytes, type);
    MPI_Type_free(&type);
    free(arrays);
    return st;
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
