/* `clperm bench --dist`: the distributed shuffle and sort (clperm_dist.h) under mpirun, one rank
 * per device. For each size (items per rank) it measures, with the same items:
 *
 *   - the operation on every rank: per-rank and aggregate items/s, and where each rank's time
 *     went (device work, and the local sorts within it; staging copies between device and
 *     host; the MPI exchange; the small collectives), from clperm_dist_last_stats;
 *   - the same operation on rank 0 alone (a communicator of one rank: the local operation on one
 *     device), the baseline;
 *   - the links: a host-staged all-to-all of the same bytes with nothing else (device to host,
 *     MPI_Alltoallv of equal shares, host to device, one after another, through pinned host
 *     memory: mapped CL_MEM_ALLOC_HOST_PTR buffers), each stage timed, and both copies at once
 *     on two queues of every rank; each call's exchange is printed against them.
 *
 * A figure is the median over --reps runs (after --warmup) of the slowest rank's wall-clock time,
 * every run started together after a barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clperm_dist.h"

#define MAX_DEVICE_NAME 64

typedef struct dist_bench {
    int rank, size, local_rank;
    clperm_ctx *ctx;
    clperm_dist *all;  /* every rank                               */
    clperm_dist *solo; /* rank 0 alone (NULL on the other ranks)    */
    MPI_Comm solo_comm;
    clperm_profile profile;
    cl_mem a, b;       /* n items of 64 bits each                   */
    uint64_t cap;
    uint64_t *input;   /* the sort's keys, rewritten before each run */
} dist_bench;

/* What one rank reports of one measured operation. */
typedef struct rank_figures {
    char device[MAX_DEVICE_NAME];
    double seconds, local, sort, stage, exchange, collective; /* medians over the runs */
    double bytes_sent, bytes_received;
    double d2h, h2d; /* the staged all-to-all's copies to and from the device (stage: both) */
    double duplex;   /* both copies at once, on two queues, every rank at once */
} rank_figures;

/* ---- devices -------------------------------------------------------------------------------- */

/* The index (in `clperm devices` order: platforms in order, then their devices) of the k-th GPU
 * modulo their number, or -1 without GPUs. */
static int gpu_index(int k) {
    cl_uint nplat = 0;
    if (clGetPlatformIDs(0, NULL, &nplat) != CL_SUCCESS || nplat == 0) return -1;
    cl_platform_id plats[16];
    if (nplat > 16) nplat = 16;
    clGetPlatformIDs(nplat, plats, NULL);
    int gpus[64], ngpus = 0, index = 0;
    for (cl_uint p = 0; p < nplat; p++) {
        cl_uint ndev = 0;
        cl_device_id devs[64];
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &ndev) != CL_SUCCESS) continue;
        if (ndev > 64) ndev = 64;
        for (cl_uint i = 0; i < ndev; i++, index++) {
            cl_device_type t = 0;
            clGetDeviceInfo(devs[i], CL_DEVICE_TYPE, sizeof t, &t, NULL);
            if ((t & CL_DEVICE_TYPE_GPU) && ngpus < 64) gpus[ngpus++] = index;
        }
    }
    return ngpus ? gpus[k % ngpus] : -1;
}

/* The device of this rank: --device's entry of its local rank (modulo their number), else the
 * local rank's GPU, else the default device; with the tunables of --set. */
static clperm_status open_device(const bench_opts *o, dist_bench *b) {
    char sel[32] = "";
    const char *selector = o->ndevices ? o->devices[b->local_rank % o->ndevices] : sel;
    int gpu = o->ndevices ? -1 : gpu_index(b->local_rank);
    if (gpu >= 0) snprintf(sel, sizeof sel, "%d", gpu);
    clperm_status st = selector[0] ? clperm_ctx_create_device(&b->ctx, selector) : clperm_ctx_create_default(&b->ctx);
    for (int i = 0; st == CLPERM_SUCCESS && i < o->nsets; i++)
        st = clperm_ctx_set_param(b->ctx, o->sets[i].param, o->sets[i].value);
    if (st == CLPERM_SUCCESS) st = clperm_ctx_profile(b->ctx, &b->profile);
    return st;
}

/* ---- buffers and inputs --------------------------------------------------------------------- */

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static clperm_status reserve(dist_bench *b, uint64_t count) {
    if (count <= b->cap) return CLPERM_SUCCESS;
    if (b->a) clReleaseMemObject(b->a);
    if (b->b) clReleaseMemObject(b->b);
    free(b->input);
    b->a = b->b = NULL;
    b->cap = 0;
    cl_int err;
    cl_context c = clperm_ctx_cl_context(b->ctx);
    b->a = clCreateBuffer(c, CL_MEM_READ_WRITE, (size_t)count * 8, NULL, &err);
    if (b->a) b->b = clCreateBuffer(c, CL_MEM_READ_WRITE, (size_t)count * 8, NULL, &err);
    b->input = malloc((size_t)count * 8);
    if (!b->a || !b->b) return err;
    if (!b->input) return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    b->cap = count;
    return CLPERM_SUCCESS;
}

/* The shuffle's items (their global index) into a; the sort's keys into input. */
static clperm_status prepare(dist_bench *b, uint64_t count, uint64_t offset) {
    clperm_status st = reserve(b, count);
    if (st != CLPERM_SUCCESS) return st;
    for (uint64_t j = 0; j < count; j++) b->input[j] = offset + j;
    cl_int err = count ? clEnqueueWriteBuffer(clperm_ctx_cl_queue(b->ctx), b->a, CL_TRUE, 0, (size_t)count * 8,
                                              b->input, 0, NULL, NULL)
                       : CL_SUCCESS;
    for (uint64_t j = 0; j < count; j++) b->input[j] = mix64(UINT64_C(0x5EED) + offset + j);
    return err;
}

/* ---- measuring ------------------------------------------------------------------------------ */

/* In the order of bench_dist_ops (options.c), which names them; its last, "links", selects the
 * staged all-to-all alone (which runs with every operation). */
typedef enum dist_op { OP_SHUFFLE, OP_SORT, OPS } dist_op;

#define SHUFFLE_SEED 42

/* The lowest status of the ranks of comm, on every rank. */
static clperm_status lowest(MPI_Comm comm, clperm_status st) {
    int v = st;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, comm);
    return v;
}

/* One call: the shuffle from a to b; the sort of the keys of input, written to b first. */
static clperm_status run(dist_bench *b, dist_op op, clperm_dist *d, uint64_t n, uint64_t count) {
    if (op == OP_SHUFFLE) return clperm_dist_shuffle(d, b->a, b->b, n, count, 8, SHUFFLE_SEED, NULL);
    clperm_dist_sort_request req = {CLPERM_KEY_U64, count ? b->b : NULL, 0, NULL, n, count};
    return clperm_dist_sort(d, &req);
}

static clperm_status before_run(dist_bench *b, dist_op op, uint64_t count) {
    if (op != OP_SORT || !count) return CLPERM_SUCCESS;
    return clEnqueueWriteBuffer(clperm_ctx_cl_queue(b->ctx), b->b, CL_TRUE, 0, (size_t)count * 8, b->input, 0, NULL,
                                NULL);
}

static void figures_begin(const dist_bench *b, rank_figures *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->device, sizeof out->device, "%.*s", MAX_DEVICE_NAME - 1, b->profile.device_name);
}

/* The medians of op on d over the ranks of comm (each run's time: the slowest rank's). */
static clperm_status measure(dist_bench *b, dist_op op, clperm_dist *d, MPI_Comm comm, uint64_t n, uint64_t count,
                             const bench_timing *t, rank_figures *out) {
    double v[6][256];
    int reps = t->reps;
    figures_begin(b, out);
    for (int i = -t->warmup; i < reps; i++) {
        clperm_status st = lowest(comm, before_run(b, op, count));
        if (st != CLPERM_SUCCESS) return st;
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        st = run(b, op, d, n, count);
        double dt = MPI_Wtime() - t0;
        if (st != CLPERM_SUCCESS) return st;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, comm);
        clperm_dist_stats s;
        clperm_dist_last_stats(d, &s);
        if (i < 0) continue;
        v[0][i] = dt;
        v[1][i] = s.local_seconds;
        v[2][i] = s.stage_seconds;
        v[3][i] = s.exchange_seconds;
        v[4][i] = s.collective_seconds;
        v[5][i] = s.sort_seconds;
        out->bytes_sent = (double)s.bytes_sent;
        out->bytes_received = (double)s.bytes_received;
    }
    out->seconds = bench_median(v[0], reps);
    out->local = bench_median(v[1], reps);
    out->stage = bench_median(v[2], reps);
    out->exchange = bench_median(v[3], reps);
    out->collective = bench_median(v[4], reps);
    out->sort = bench_median(v[5], reps);
    return CLPERM_SUCCESS;
}

/* A host buffer the way the library stages (a mapped CL_MEM_ALLOC_HOST_PTR buffer). */
static void *pinned(dist_bench *b, size_t bytes, cl_mem *mem) {
    cl_int err;
    *mem = clCreateBuffer(clperm_ctx_cl_context(b->ctx), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes ? bytes : 1,
                          NULL, &err);
    if (!*mem) return NULL;
    return clEnqueueMapBuffer(clperm_ctx_cl_queue(b->ctx), *mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                              bytes ? bytes : 1, 0, NULL, NULL, &err);
}

static void unpin(dist_bench *b, cl_mem mem, void *host) {
    if (!mem) return;
    if (host) clEnqueueUnmapMemObject(clperm_ctx_cl_queue(b->ctx), mem, host, 0, NULL, NULL);
    clFinish(clperm_ctx_cl_queue(b->ctx));
    clReleaseMemObject(mem);
}

/* The bound: count items of 8 bytes from a to host memory, an MPI_Alltoallv of equal shares,
 * host memory to b; the median of the slowest rank's time. */
static clperm_status staged_alltoall(dist_bench *b, uint64_t count, const bench_timing *t, rank_figures *out) {
    figures_begin(b, out);
    if (count > (uint64_t)0x7fffffff) return CLPERM_ERROR_SIZE_OVERFLOW;
    int size = b->size, *counts = malloc(4 * (size_t)size * sizeof *counts);
    cl_mem ms = NULL, mr = NULL;
    void *send = pinned(b, (size_t)count * 8, &ms), *recv = pinned(b, (size_t)count * 8, &mr);
    clperm_status st = counts && send && recv ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    st = lowest(MPI_COMM_WORLD, st);
    if (st == CLPERM_SUCCESS) {
        int *sc = counts, *sd = counts + size, *rc = counts + 2 * size, *rd = counts + 3 * size;
        for (int r = 0; r < size; r++) sc[r] = (int)(count / (uint64_t)size + ((uint64_t)r < count % (uint64_t)size));
        MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
        sd[0] = rd[0] = 0;
        for (int r = 1; r < size; r++) {
            sd[r] = sd[r - 1] + sc[r - 1];
            rd[r] = rd[r - 1] + rc[r - 1];
        }
        for (int r = 0; r < size; r++) out->bytes_sent += r == b->rank ? 0 : 8.0 * sc[r];
        cl_command_queue q = clperm_ctx_cl_queue(b->ctx);
        double v[5][256];
        for (int i = -t->warmup; i < t->reps && st == CLPERM_SUCCESS; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (count) st = clEnqueueReadBuffer(q, b->a, CL_TRUE, 0, (size_t)count * 8, send, 0, NULL, NULL);
            double t1 = MPI_Wtime();
            if (MPI_Alltoallv(send, sc, sd, MPI_UINT64_T, recv, rc, rd, MPI_UINT64_T, MPI_COMM_WORLD) != MPI_SUCCESS)
                st = CLPERM_ERROR_MPI;
            double t2 = MPI_Wtime();
            if (count && st == CLPERM_SUCCESS)
                st = clEnqueueWriteBuffer(q, b->b, CL_TRUE, 0, (size_t)count * 8, recv, 0, NULL, NULL);
            double t3 = MPI_Wtime(), dt = t3 - t0;
            st = lowest(MPI_COMM_WORLD, st);
            MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (i < 0) continue;
            v[0][i] = dt;
            v[1][i] = (t1 - t0) + (t3 - t2);
            v[2][i] = t2 - t1;
            v[3][i] = t1 - t0;
            v[4][i] = t3 - t2;
        }
        double stage = st == CLPERM_SUCCESS ? bench_median(v[1], t->reps) : 0;
        /* Both copies at once, as the distributed calls' exchange runs them. */
        cl_int err;
        cl_command_queue q2 = clCreateCommandQueue(clperm_ctx_cl_context(b->ctx), clperm_ctx_cl_device(b->ctx), 0, &err);
        if (!q2 && st == CLPERM_SUCCESS) st = err;
        for (int i = -t->warmup; i < t->reps && st == CLPERM_SUCCESS && count; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            st = clEnqueueReadBuffer(q, b->a, CL_FALSE, 0, (size_t)count * 8, send, 0, NULL, NULL);
            if (st == CLPERM_SUCCESS) st = clEnqueueWriteBuffer(q2, b->b, CL_FALSE, 0, (size_t)count * 8, recv, 0, NULL, NULL);
            clFlush(q);
            clFlush(q2);
            clFinish(q);
            clFinish(q2);
            double dt = MPI_Wtime() - t0;
            st = lowest(MPI_COMM_WORLD, st);
            MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (i >= 0) v[1][i] = dt;
        }
        if (q2) clReleaseCommandQueue(q2);
        if (st == CLPERM_SUCCESS && count) out->duplex = bench_median(v[1], t->reps);
        if (st == CLPERM_SUCCESS) {
            out->seconds = bench_median(v[0], t->reps);
            out->stage = stage;
            out->exchange = bench_median(v[2], t->reps);
            out->d2h = bench_median(v[3], t->reps);
            out->h2d = bench_median(v[4], t->reps);
        }
    }
    unpin(b, ms, send);
    unpin(b, mr, recv);
    free(counts);
    return st;
}

/* ---- checking ------------------------------------------------------------------------------- */

/* After the shuffle of the global indices: every rank's block is the host's permutation there
 * (n <= 2^24), or at least the blocks together hold each index once (range, sum, xor). After
 * the sort: every block ascends, each block's last key is at most the next one's first, and the
 * keys are the input's (sum, xor). Returns 0 when the check passes on every rank. */
static int verify(dist_bench *b, dist_op op, uint64_t n, uint64_t count, uint64_t offset) {
    uint64_t *got = malloc((size_t)count * 8 + 8), *want = NULL;
    int bad = !got || (count && clEnqueueReadBuffer(clperm_ctx_cl_queue(b->ctx), b->b, CL_TRUE, 0, (size_t)count * 8,
                                                    got, 0, NULL, NULL) != CL_SUCCESS);
    /* sums[0 .. 1]: sum and xor of the result, sums[2 .. 3]: what they must be */
    uint64_t sums[4] = {0, 0, 0, 0};
    for (uint64_t j = 0; !bad && j < count; j++) {
        sums[0] += got[j];
        sums[1] ^= got[j];
        uint64_t in = op == OP_SHUFFLE ? offset + j : b->input[j];
        sums[2] += in;
        sums[3] ^= in;
        if (op == OP_SHUFFLE ? got[j] >= n : (j && got[j] < got[j - 1])) bad = 1;
    }
    if (!bad && op == OP_SHUFFLE && n <= (UINT64_C(1) << 24) && (want = malloc((size_t)n * 8)) != NULL) {
        bad = clperm_permutation_host(CLPERM_TYPE_U64, want, n, SHUFFLE_SEED, NULL) != CLPERM_SUCCESS ||
              (count && memcmp(got, want + offset, (size_t)count * 8) != 0);
    }
    if (op == OP_SORT) {
        /* The first key of the next rank (all blocks are the same size here, so none is empty). */
        uint64_t mine = count ? got[0] : UINT64_MAX, next = UINT64_MAX;
        int up = b->rank + 1 < b->size ? b->rank + 1 : MPI_PROC_NULL, down = b->rank ? b->rank - 1 : MPI_PROC_NULL;
        MPI_Sendrecv(&mine, 1, MPI_UINT64_T, down, 7, &next, 1, MPI_UINT64_T, up, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (count && up != MPI_PROC_NULL && got[count - 1] > next) bad = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, sums, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, sums + 1, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, sums + 2, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, sums + 3, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    bad |= sums[0] != sums[2] || sums[1] != sums[3];
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    free(got);
    free(want);
    return bad;
}

/* ---- output --------------------------------------------------------------------------------- */

static void print_header(const bench_opts *o) {
    if (o->json) return;
    printf("%-8s %-16s %5s %4s %-28s %12s %12s %10s %10s %6s %6s %6s %6s %6s\n", "op", "variant", "ranks", "rank",
           "device", "n/rank", "n", "median ms", "G items/s", "local", "(sort)", "stage", "exch", "coll");
}

/* rank < 0: the row of all ranks. */
static void print_row(const bench_opts *o, const char *op, const char *variant, int ranks, int rank,
                      const rank_figures *f, uint64_t count, uint64_t n) {
    double rate = f->seconds > 0 ? (double)(rank < 0 ? n : count) / f->seconds : 0, t = f->seconds > 0 ? f->seconds : 1;
    if (o->json) {
        printf("{\"op\":\"%s\",\"variant\":\"%s\",\"ranks\":%d,\"rank\":%d,\"device\":\"%s\",\"n_rank\":%llu,"
               "\"n\":%llu,\"seconds\":%.6g,\"items_per_s\":%.6g,\"local_s\":%.6g,\"sort_s\":%.6g,\"stage_s\":%.6g,"
               "\"exchange_s\":%.6g,\"collective_s\":%.6g,\"bytes_sent\":%.6g,\"bytes_received\":%.6g,"
               "\"d2h_s\":%.6g,\"h2d_s\":%.6g}\n",
               op, variant, ranks, rank, f->device, (unsigned long long)count, (unsigned long long)n, f->seconds, rate,
               f->local, f->sort, f->stage, f->exchange, f->collective, f->bytes_sent, f->bytes_received, f->d2h,
               f->h2d);
    } else {
        char r[8];
        snprintf(r, sizeof r, rank < 0 ? "all" : "%d", rank);
        printf("%-8s %-16s %5d %4s %-28.28s %12llu %12llu %10.3f %10.4f %5.1f%% %5.1f%% %5.1f%% %5.1f%% %5.1f%%\n", op,
               variant, ranks, r, f->device, (unsigned long long)count, (unsigned long long)n, f->seconds * 1e3,
               rate * 1e-9, 100 * f->local / t, 100 * f->sort / t, 100 * f->stage / t, 100 * f->exchange / t,
               100 * f->collective / t);
    }
    fflush(stdout);
}

/* Every rank's figures to rank 0, printed there with the row of all ranks (the phases averaged
 * over the ranks, the time the slowest rank's). */
static void print_ranks(const bench_opts *o, const dist_bench *b, const char *op, const char *variant,
                        const rank_figures *mine, uint64_t count, uint64_t n) {
    rank_figures *all = b->rank == 0 ? calloc((size_t)b->size, sizeof *all) : NULL;
    MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (b->rank != 0 || !all) return;
    rank_figures sum;
    memset(&sum, 0, sizeof sum);
    snprintf(sum.device, sizeof sum.device, "%d ranks", b->size);
    for (int r = 0; r < b->size; r++) {
        print_row(o, op, variant, b->size, r, &all[r], count, n);
        sum.local += all[r].local / b->size;
        sum.sort += all[r].sort / b->size;
        sum.stage += all[r].stage / b->size;
        sum.exchange += all[r].exchange / b->size;
        sum.collective += all[r].collective / b->size;
        sum.bytes_sent += all[r].bytes_sent;
    }
    sum.seconds = all[0].seconds;
    print_row(o, op, variant, b->size, -1, &sum, count, n);
    free(all);
}

/* The links, from the staged all-to-all's stages on the slowest rank: device to host and host to
 * device (each of count items) and MPI's all-to-all (of the bytes crossing), in GB/s. */
static void print_links(const bench_opts *o, const dist_bench *b, const rank_figures *bound, uint64_t count) {
    double t[4] = {bound->d2h, bound->h2d, bound->exchange, bound->duplex};
    MPI_Allreduce(MPI_IN_PLACE, t, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double crossing = bound->bytes_sent;
    MPI_Allreduce(MPI_IN_PLACE, &crossing, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    if (b->rank != 0 || o->json || t[0] <= 0 || t[1] <= 0 || t[2] <= 0) return;
    double bytes = 8.0 * (double)count;
    printf("# links, slowest rank: device to host %.1f GB/s, host to device %.1f GB/s, both at once %.1f GB/s each way "
           "(pinned, %.0f MB); MPI's all-to-all %.2f GB/s per rank (%.0f MB crossing)\n",
           bytes / t[0] * 1e-9, bytes / t[1] * 1e-9, t[3] > 0 ? bytes / t[3] * 1e-9 : 0, bytes * 1e-6,
           crossing / t[2] * 1e-9, crossing * 1e-6);
}

/* The exchange of a call against the links for its bytes, on the slowest rank: its time over the
 * copies' (device to host of the bytes sent and host to device of the bytes received, at once, at
 * the rate of both at once: the whole of it between ranks sharing memory) and over MPI's
 * all-to-all of the bytes sent (the data's way between nodes). */
static void print_exchange(const bench_opts *o, const dist_bench *b, const char *op, const rank_figures *f,
                           const rank_figures *bound, uint64_t count) {
    double bytes = 8.0 * (double)count, r[2] = {0, 0};
    double moved = f->bytes_sent > f->bytes_received ? f->bytes_sent : f->bytes_received;
    if (bound->duplex > 0 && moved > 0) r[0] = f->exchange / (bound->duplex * moved / bytes);
    if (bound->exchange > 0 && bound->bytes_sent > 0 && f->bytes_sent > 0)
        r[1] = f->exchange / (bound->exchange * f->bytes_sent / bound->bytes_sent);
    MPI_Allreduce(MPI_IN_PLACE, r, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (b->rank != 0 || r[0] <= 0) return;
    if (o->json)
        printf("{\"op\":\"%s\",\"variant\":\"exchange-vs-links\",\"ranks\":%d,\"n_rank\":%llu,"
               "\"over_copies\":%.4g,\"over_mpi\":%.4g}\n",
               op, b->size, (unsigned long long)count, r[0], r[1]);
    else
        printf("# %s: the exchange takes %.2fx the copies of its bytes to and from the devices (both at once) and "
               "%.2fx MPI's all-to-all of them (slowest rank)\n",
               op, r[0], r[1]);
}

/* ---- the command ---------------------------------------------------------------------------- */

static int bench_size(const bench_opts *o, dist_bench *b, uint64_t count) {
    int failures = 0;
    uint64_t n = count * (uint64_t)b->size, offset = count * (uint64_t)b->rank;
    clperm_status st = lowest(MPI_COMM_WORLD, prepare(b, count, offset));
    if (st != CLPERM_SUCCESS) {
        if (b->rank == 0) fprintf(stderr, "clperm bench --dist: %llu items per rank: %s\n", (unsigned long long)count,
                                  clperm_status_name(st));
        return 1;
    }
    rank_figures bound;
    st = staged_alltoall(b, count, &o->timing, &bound);
    if (st == CLPERM_SUCCESS) {
        print_ranks(o, b, "exchange", "staged-alltoall", &bound, count, n);
        print_links(o, b, &bound, count);
    }
    for (int op = 0; op < OPS; op++) {
        if (!bench_op_selected(o, bench_dist_ops[op])) continue;
        rank_figures f, one;
        st = measure(b, (dist_op)op, b->all, MPI_COMM_WORLD, n, count, &o->timing, &f);
        if (st == CLPERM_SUCCESS && o->verify != BENCH_VERIFY_OFF && verify(b, (dist_op)op, n, count, offset)) st = CLPERM_ERROR_INTERNAL;
        if (st != CLPERM_SUCCESS) {
            if (b->rank == 0) fprintf(stderr, "  FAILED: %s\n", clperm_status_name(st));
            failures++;
            continue;
        }
        print_ranks(o, b, bench_dist_ops[op], "distributed", &f, count, n);
        if (b->size > 1 && st == CLPERM_SUCCESS) print_exchange(o, b, bench_dist_ops[op], &f, &bound, count);
        memset(&one, 0, sizeof one);
        if (o->dist_baseline && b->solo) {
            st = measure(b, (dist_op)op, b->solo, b->solo_comm, count, count, &o->timing, &one);
            if (st == CLPERM_SUCCESS)
                print_row(o, bench_dist_ops[op], "one-rank", 1, 0, &one, count, count);
            else
                fprintf(stderr, "  one rank FAILED: %s\n", clperm_status_name(st));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (b->rank == 0 && !o->json && one.seconds > 0 && bound.seconds > 0)
            printf("# %s, %d x %llu items: aggregate %.3f G items/s, %.2fx one rank's %.3f; the staged all-to-all of "
                   "the same bytes takes %.1f%% of the time\n",
                   bench_dist_ops[op], b->size, (unsigned long long)count, (double)n / f.seconds * 1e-9,
                   one.seconds * (double)b->size / f.seconds, (double)count / one.seconds * 1e-9,
                   100 * bound.seconds / f.seconds);
        fflush(stdout);
    }
    return failures;
}

int bench_dist_main(const bench_opts *o) {
    int provided = 0;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    dist_bench b;
    memset(&b, 0, sizeof b);
    b.solo_comm = MPI_COMM_NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, b.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &b.local_rank);
    MPI_Comm_free(&node);
    clperm_status st = lowest(MPI_COMM_WORLD, open_device(o, &b));
    if (st == CLPERM_SUCCESS) st = clperm_dist_create(&b.all, MPI_COMM_WORLD, b.ctx);
    MPI_Comm_split(MPI_COMM_WORLD, b.rank == 0 ? 0 : MPI_UNDEFINED, 0, &b.solo_comm);
    if (st == CLPERM_SUCCESS && b.solo_comm != MPI_COMM_NULL) st = clperm_dist_create(&b.solo, b.solo_comm, b.ctx);
    st = lowest(MPI_COMM_WORLD, st);
    int failures = 0;
    if (st != CLPERM_SUCCESS) {
        if (b.rank == 0) fprintf(stderr, "clperm bench --dist: %s\n", clperm_status_name(st));
        failures = 1;
    } else {
        for (int r = 0; r < b.size; r++) {
            if (r == b.rank && !o->json)
                fprintf(stderr, "rank %d (local %d): %s / %s (%s)\n", b.rank, b.local_rank, b.profile.platform_name,
                        b.profile.device_name, b.profile.driver_version);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (b.rank == 0) print_header(o);
        for (int s = 0; s < o->nsizes; s++) failures += bench_size(o, &b, o->sizes[s]);
    }
    clperm_dist_free(b.solo);
    clperm_dist_free(b.all);
    if (b.solo_comm != MPI_COMM_NULL) MPI_Comm_free(&b.solo_comm);
    if (b.a) clReleaseMemObject(b.a);
    if (b.b) clReleaseMemObject(b.b);
    free(b.input);
    clperm_ctx_free(b.ctx);
    MPI_Finalize();
    return failures ? 1 : 0;
}
