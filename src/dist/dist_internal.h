/* Internal declarations of the distributed layer (libclperm_mpi). It uses the core library only
 * through clperm.h, so that it can sit on either build of it (shared or static). Not installed. */
#ifndef CLPERM_DIST_INTERNAL_H
#define CLPERM_DIST_INTERNAL_H

#include <stdint.h>

#include "clperm_dist.h"

#include "status_macros.h"

/* The kernels of cl/dist/dist.cl. */
typedef enum clperm__dist_kernel {
    CLPERM__DIST_COUNT,
    CLPERM__DIST_INVERSE,
    CLPERM__DIST_LOWER_BOUNDS,
    CLPERM__DIST_OWNERS,
    CLPERM__DIST_GATHER,
    CLPERM__DIST_SCATTER,
    CLPERM__DIST_UPPER_BOUNDS,
    CLPERM__DIST_KERNELS
} clperm__dist_kernel;

/* A host buffer for staging items between the device and MPI: pinned through a mapped
 * CL_MEM_ALLOC_HOST_PTR buffer where the implementation gives one, else malloc'd. Grown on
 * demand and kept for later calls. */
typedef struct clperm__dist_stage {
    cl_mem mem;   /* the mapped buffer, or NULL when host is malloc'd */
    void *host;
    size_t bytes;
} clperm__dist_staging;

/* Device buffers a call borrows from the context (clperm__dist_scratch). */
#define CLPERM__DIST_SCRATCH 4

/* Phases of a call, for clperm_dist_stats. */
typedef enum clperm__dist_phase {
    CLPERM__PHASE_LOCAL,
    CLPERM__PHASE_STAGE,
    CLPERM__PHASE_EXCHANGE,
    CLPERM__PHASE_COLLECTIVE
} clperm__dist_phase;

struct clperm_dist {
    uint64_t magic;
    MPI_Comm comm;
    int rank, size;
    clperm_ctx *ctx;
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    size_t wg;                /* work-group size of the kernels' launches            */
    cl_program program;
    cl_kernel kernels[CLPERM__DIST_KERNELS];
    cl_command_queue transfer[2]; /* the exchange's copies: device to host, host to device */
    MPI_Comm node;            /* the ranks sharing memory with this one, or MPI_COMM_NULL       */
    MPI_Win window;           /* their shared segments (the send rings), or MPI_WIN_NULL         */
    cl_mem *registered;       /* per rank of node: its segment, registered with this context     */
    unsigned char *own_host;  /* this rank's segment, or NULL without shared memory              */
    unsigned char **peer_host; /* per rank: its segment as this rank sees it, or NULL (other node,
                                * this rank, no shared memory)                                    */
    clperm__dist_staging stage[2]; /* the exchange's send and receive rings                  */
    cl_mem scratch[CLPERM__DIST_SCRATCH]; /* device buffers of the calls, kept for later ones */
    size_t scratch_bytes[CLPERM__DIST_SCRATCH];
    size_t chunk_bytes;       /* the exchange's chunks (CLPERM_DIST_CHUNK_BYTES), the same on every rank */
    int slots;                /* chunks in flight each way (CLPERM_DIST_SLOTS), the same on every rank */
    clperm_dist_stats stats;
    double phase_start;
};

/* ---- dist.c: the context, phases, agreement, exchange, staging, launches ---- */

/* CLPERM_SUCCESS when dist is a live distributed context (its clperm context live too). */
clperm_status clperm__dist_check(const clperm_dist *dist);

/* Starts a call's account; clperm__dist_phase_end adds the time since the last mark to `phase`. */
void clperm__dist_call_begin(clperm_dist *d);
void clperm__dist_phase_end(clperm_dist *d, clperm__dist_phase phase);
void clperm__dist_call_end(clperm_dist *d);

/* Every rank's status in, on every rank the status of the lowest rank that failed (and
 * stats.failed_rank) out. */
clperm_status clperm__dist_agree(clperm_dist *d, clperm_status st);

/* What a call's ranks must agree on: `count` is each rank's own, the rest must match. */
#define CLPERM__DIST_CALL_WORDS 6
typedef struct clperm__dist_call {
    uint64_t count;
    uint64_t n;
    uint64_t same[CLPERM__DIST_CALL_WORDS - 2]; /* must be equal on every rank */
} clperm__dist_call;

/* The first agreement of a call: agrees on st, gathers every rank's call, and returns
 * CLPERM_ERROR_DIST_MISMATCH when n or `same` differ between ranks (stats.failed_rank: the first
 * rank that differs from rank 0) or the counts do not add up to n; on success fills
 * offsets[0 .. size] (offsets[size] = n), which is left alone otherwise. */
clperm_status clperm__dist_agree_call(clperm_dist *d, clperm_status st, const clperm__dist_call *call,
                                      uint64_t *offsets);

/* Agrees on st (clperm__dist_agree), then, when every rank succeeded, gathers every rank's `k`
 * words: all[r * k + i] is rank r's word i. */
clperm_status clperm__dist_allgather(clperm_dist *d, clperm_status st, const uint64_t *words, int k,
                                     uint64_t *all);

/* MPI wrappers: CLPERM_ERROR_MPI when the call fails. */
clperm_status clperm__dist_allreduce(clperm_dist *d, uint64_t *words, int k, MPI_Op op);
clperm_status clperm__dist_exscan_sum(clperm_dist *d, const uint64_t *in, uint64_t *out, int k);
clperm_status clperm__dist_alltoall(clperm_dist *d, const uint64_t *send, uint64_t *recv);

/* Host staging buffer `which` (0 or 1) of at least `bytes`; *host its memory. */
clperm_status clperm__dist_stage(clperm_dist *d, int which, size_t bytes, void **host);

/* Device buffer `which` (0 .. CLPERM__DIST_SCRATCH - 1) of at least `bytes`, kept by the context
 * for later calls; borrowed, not to be released. NULL for 0 bytes. */
clperm_status clperm__dist_scratch(clperm_dist *d, int which, size_t bytes, cl_mem *out);

/* A device buffer of `bytes` (NULL for 0 bytes). */
clperm_status clperm__dist_buffer(clperm_dist *d, size_t bytes, cl_mem *out);
void clperm__dist_release(cl_mem mem);
/* Blocking copies between the device and the host (no-ops for 0 bytes). */
clperm_status clperm__dist_read(clperm_dist *d, cl_mem mem, size_t offset, size_t bytes, void *host);
clperm_status clperm__dist_write(clperm_dist *d, cl_mem mem, size_t offset, size_t bytes, const void *host);

/* Checks a caller's buffer: NULL allowed when n is 0; else a buffer of the context's OpenCL
 * context holding n items of elem bytes, writable when asked. */
clperm_status clperm__dist_check_buffer(const clperm_dist *d, cl_mem mem, uint64_t n, size_t elem, int writable);

/* Kernel arguments in order (the first error sticks), and a launch over `items` work-items in
 * work-groups of d->wg (the kernels check their bounds). */
typedef struct clperm__dist_args {
    cl_kernel kernel;
    cl_uint next;
    cl_int err;
} clperm__dist_args;
clperm__dist_args clperm__dist_args_begin(clperm_dist *d, clperm__dist_kernel k);
void clperm__dist_arg(clperm__dist_args *a, const void *value, size_t size);
#define CLPERM__DIST_ARG(a, v) clperm__dist_arg(&(a), &(v), sizeof(v))
void clperm__dist_arg_key(clperm__dist_args *a, const clperm_bijection_key *key);
clperm_status clperm__dist_launch(clperm_dist *d, const clperm__dist_args *a, uint64_t items);

/* ceil(log2(x)) for x >= 1. */
unsigned clperm__dist_log2_ceil(uint64_t x);

/* ---- dist_exchange.c: the items between the ranks' devices ---- */

#define CLPERM__DIST_CHUNK_BYTES ((size_t)8 << 20)
#define CLPERM__DIST_SLOTS 4
#define CLPERM__DIST_MAX_SLOTS 64

/* What one exchange moves: sendcounts[t] items of item_bytes for every rank t, rank after rank,
 * from the device buffer send at byte send_offset; recvcounts[t] items from every rank t arrive
 * in the device buffer recv at byte recv_offset, by source rank. */
typedef struct clperm__dist_exchange_spec {
    cl_mem send;
    uint64_t send_offset;
    cl_mem recv;
    uint64_t recv_offset;
    const uint64_t *sendcounts, *recvcounts;
    size_t item_bytes;
} clperm__dist_exchange_spec;

/* Moves the items (dist_exchange.c has how), every rank at once, and returns when this rank's
 * have arrived. Commands on d->queue that write send or touch recv must have finished. Adds to
 * stats.bytes_sent and bytes_received. An MPI failure gives CLPERM_ERROR_MPI; an OpenCL failure
 * is returned after the exchange has run to its end on every rank. */
clperm_status clperm__dist_exchange(clperm_dist *d, const clperm__dist_exchange_spec *x);

/* ---- dist_order.c: the one local sort both operations order by ---- */

/* A stable sort of a device array of keys (and values) by the bits [0, bits) of the keys' order
 * (clperm.h's order for the key type; bits 0: the whole key), in place. */
typedef struct clperm__dist_sort_step {
    clperm_key_type key_type;
    cl_mem keys;
    clperm_type value_type; /* 0: keys only */
    cl_mem values;
    uint64_t n;
    unsigned bits;
} clperm__dist_sort_step;

clperm_status clperm__dist_sort_local(clperm_dist *d, const clperm__dist_sort_step *s);

/* Key i's order as an unsigned number (clperm_features.h, CLPERM_KEY_ORDER); 0 for an unknown
 * key type. */
uint64_t clperm__dist_key_order(clperm_key_type type, const void *keys, uint64_t i);

#endif /* CLPERM_DIST_INTERNAL_H */
