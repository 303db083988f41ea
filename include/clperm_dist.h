/*
 * clperm_dist.h: shuffle and sort of an array spread over the ranks of an MPI communicator, one
 * OpenCL device per rank. This is the clperm::mpi library (libclperm_mpi), built only where CMake
 * finds MPI; the core library (clperm.h) never needs MPI. This header is its manual.
 *
 * The global array of n items is cut into one block per rank, in rank order: rank r holds items
 * [offset_r, offset_r + count_r) of it, offset_r being the sum of the counts of the ranks before
 * it. Blocks may differ in size, and any of them may be empty. Every operation leaves each rank
 * with a block of the same size as it gave, now holding its part of the result.
 *
 * Conventions that hold for every function below, beyond those of clperm.h:
 *
 * - Collective: every rank of the communicator calls the same function, in the same order, with
 *   its own arguments. A call blocks until the rank's part of the result is in its buffers (its
 *   context's queue finished); there are no events. Commands enqueued earlier on the context's
 *   queue (writes of the input, say) are waited for, since the queue is in order.
 * - Agreement: every rank returns the same status. Arguments are checked on every rank and the
 *   checks are agreed before any item moves (a few small collectives); when one rank finds an
 *   error, every rank returns it (the error of the lowest rank that found one), and nothing is
 *   written to any rank's buffers. Arguments that must be the same on every rank (n, seed,
 *   options, item size, key and value types) and blocks whose counts do not add up to n give
 *   CLPERM_ERROR_DIST_MISMATCH. clperm_dist_last_stats() names the rank that failed.
 * - Errors after the items have moved (a device failing while it writes the result) are agreed
 *   too, but the result buffers may then have been written on some ranks.
 * - An MPI call that fails gives CLPERM_ERROR_MPI (the library's communicator returns errors
 *   rather than aborting); the ranks may then not agree, and the communicator may be unusable.
 * - A NULL or freed clperm_dist, or one whose clperm context was freed, is reported at once
 *   (CLPERM_ERROR_INVALID_CONTEXT) by the rank that passed it, without communicating: when only
 *   some ranks pass one, the others wait in the collective, as they would for a rank that never
 *   called.
 * - A rank whose block is empty may pass NULL buffers (OpenCL has no empty buffers).
 * - Items travel between devices through host memory, in chunks (8 MiB, 4 in flight each way)
 *   whose copies to the host, passage between the ranks and copies to the device overlap. Ranks
 *   on one node (MPI_COMM_TYPE_SHARED) share a window of MPI shared memory, one send ring a rank,
 *   which each rank registers with its OpenCL context (CL_MEM_USE_HOST_PTR): the sender's device
 *   copies a chunk into its ring and the receiver's device copies it out, MPI carrying only a
 *   notice and an acknowledgement, so no processor copies the items. Between nodes (or where
 *   the window or its registration fails, or CLPERM_DIST_SHARED=0 is set on any rank) the
 *   chunks go through MPI point-to-point messages from pinned host buffers
 *   (CL_MEM_ALLOC_HOST_PTR). Device memory is never handed to MPI. The environment variables
 *   CLPERM_DIST_CHUNK_BYTES and CLPERM_DIST_SLOTS (read at clperm_dist_create, the smallest over
 *   the ranks taken) set the chunk size and the chunks in flight (at most 64). Host memory: the
 *   rings, chunk x slots each way (the send ring in the shared window where there is one, the
 *   receive ring only where some peer's chunks come through MPI).
 * - Device memory a call uses beyond the caller's buffers is kept by the distributed context for
 *   later calls (no allocation a call) and given back by clperm_dist_free.
 * - Threads: a clperm_dist is used by one thread at a time (MPI collectives on one communicator
 *   must not interleave); MPI must be initialised with at least MPI_THREAD_FUNNELED, or
 *   MPI_THREAD_SERIALIZED when different threads make the calls. Other threads may use the
 *   clperm context meanwhile.
 * - Cost: docs/performance.md has measured figures and a model of how the time grows with the
 *   ranks and n.
 */
#ifndef CLPERM_DIST_H
#define CLPERM_DIST_H

#include <mpi.h>

#include "clperm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Distributed contexts
 * ------------------------------------------------------------------------------------------- */

typedef struct clperm_dist clperm_dist;

/* Collective over comm. Makes a distributed context from comm (duplicated: the library talks on
 * its own copy, so its messages never meet the application's) and this rank's clperm context,
 * which is borrowed: it must outlive the distributed context. Builds the library's kernels on
 * the context's device. Writes *out on success only; every rank gets the same status. comm must
 * be an intra-communicator (MPI_COMM_NULL: CLPERM_ERROR_INVALID_ARGUMENT on that rank alone). */
CLPERM_API clperm_status clperm_dist_create(clperm_dist **out, MPI_Comm comm, clperm_ctx *ctx);

/* Collective over the communicator it was made from (MPI_Comm_free). Releases the duplicated
 * communicator, the kernels and the host buffers. NULL is a no-op (and not collective). */
CLPERM_API void clperm_dist_free(clperm_dist *dist);

/* This rank's number and the number of ranks (the communicator's). */
CLPERM_API clperm_status clperm_dist_rank(const clperm_dist *dist, int *rank, int *size);

/* ---------------------------------------------------------------------------------------------
 * Distributed shuffle
 * ------------------------------------------------------------------------------------------- */

/* Shuffles the global array of n items of elem_size bytes: afterwards this rank's block of dst
 * (count items, the same count as its block of src) holds items [offset, offset + count) of
 *
 *     out[j] = in[perm[j]],   perm the permutation of clperm_shuffle for (n, seed, opts),
 *
 * so that the blocks, put together in rank order, equal clperm_shuffle_host of the whole array
 * bit for bit, whatever the number of ranks and the block sizes. src and dst hold at least count
 * items each; they may be the same items (in place) but not overlap otherwise
 * (CLPERM_ERROR_BUFFER_OVERLAP). n, elem_size, seed and the options (after their
 * defaults are filled in) must be the same on every rank, and the counts must add up to n.
 *
 * How: every rank counts the values the bijection keeps over one slice of its domain (an
 * allgather of one number per rank), which fixes the domain range whose kept values are each
 * rank's output block (an allreduce of ranks + 1 numbers). Each rank maps its items g to
 * i = f^-1(g), orders them by i on its device and sends each rank the items of its range, in
 * the order of i: one exchange of the items (above), after an exchange of counts. The receiver
 * evaluates f over its range and takes, for each kept index, the next item of the rank whose
 * block holds f(i). Device memory beyond src and dst: two buffers of count items, two indices per
 * item and the local sort's temporaries. With one rank this is clperm_shuffle (or
 * clperm_shuffle_inplace when src == dst). The bijective algorithm only: options naming
 * CLPERM_SHUFFLE_BUCKETS give CLPERM_ERROR_INVALID_ARGUMENT on every rank. */
CLPERM_API clperm_status clperm_dist_shuffle(clperm_dist *dist, cl_mem src, cl_mem dst, uint64_t n,
                                             uint64_t count, size_t elem_size, uint64_t seed,
                                             const clperm_shuffle_opts *opts);

/* ---------------------------------------------------------------------------------------------
 * Distributed sort
 * ------------------------------------------------------------------------------------------- */

/* One distributed sort: this rank's block of the keys and values, sorted in place. */
typedef struct clperm_dist_sort_request {
    clperm_key_type key_type; /* the same on every rank                                      */
    cl_mem keys;              /* count keys                                                  */
    clperm_type value_type;   /* 0: keys only; CLPERM_TYPE_U32 or CLPERM_TYPE_U64: one value per
                               * key, moved with it (the same on every rank)                 */
    cl_mem values;            /* count values, sharing no memory with keys (NULL without
                               * values; CLPERM_ERROR_BUFFER_OVERLAP)                        */
    uint64_t n;               /* the global number of keys, the same on every rank           */
    uint64_t count;           /* this rank's block                                           */
} clperm_dist_sort_request;

/* Sorts the global array of n keys (and their values), ascending in the tile sorts' order
 * (clperm.h: u32 and u64 by value, i32 signed, f32 by IEEE 754 totalOrder), stably: keys of
 * equal order keep their global input order (rank by rank, then position). Afterwards this
 * rank's block (count keys, as before) holds positions [offset, offset + count) of the sorted
 * array, so the blocks in rank order equal the host's stable sort of the whole array.
 *
 * How: each rank sorts its block on its device; the ranks then find, for every rank q, where
 * position offset_q of the global order falls in each rank's sorted block (a search over the
 * keys' order cutting each interval at up to 255 pivots a step, each step one allreduce of at
 * most 4096 counts: 8 steps for 64-bit keys on 2 ranks, 21 on 512; then one allreduce and one
 * exclusive scan to place equal keys by rank and position; the search reads the sorted keys
 * to host memory); one exchange of the keys (and one of the values) sends each rank exactly
 * its output block, as sorted runs in rank order, which a stable local sort puts together. The
 * output blocks have the input blocks' sizes without a second exchange. Device memory beyond
 * the caller's buffers: a copy of the block (so that nothing is written before the exchange)
 * and the local sort's temporaries (kept by the distributed context). The search runs on the
 * device: each step one kernel over the step's pivots, its counts read back. Keys of i64 and f64 are not supported yet (CLPERM_ERROR_INVALID_TYPE). */
CLPERM_API clperm_status clperm_dist_sort(clperm_dist *dist, const clperm_dist_sort_request *req);

/* ---------------------------------------------------------------------------------------------
 * Where the time went
 * ------------------------------------------------------------------------------------------- */

/* This rank's account of its last call of clperm_dist_shuffle or clperm_dist_sort (wall-clock
 * seconds on the host; each phase ends by waiting for its device commands, so the phases do not
 * overlap and add up to about `seconds`). */
typedef struct clperm_dist_stats {
    double seconds;            /* the whole call                                              */
    double local_seconds;      /* device work: bijection kernels, local sorts, gathers,
                                * scatters                                                   */
    double sort_seconds;       /* the local sorts alone (part of local_seconds)               */
    double stage_seconds;      /* copies between the device and host memory outside the
                                * exchange (none at present: kept for the layout)             */
    double exchange_seconds;   /* the exchange of the items (keys and values): the copies
                                * between the devices and host memory overlapped with their
                                * passage between the ranks                                   */
    double collective_seconds; /* the small collectives: agreement, counts, boundaries,
                                * splitting                                                    */
    uint64_t bytes_sent;       /* item bytes this rank sent to other ranks (not to itself)    */
    uint64_t bytes_received;   /* item bytes it received from other ranks                     */
    uint64_t rounds;           /* small collectives of the call                                */
    int failed_rank;           /* the rank whose error every rank returned; -1 if none         */
} clperm_dist_stats;

CLPERM_API clperm_status clperm_dist_last_stats(const clperm_dist *dist, clperm_dist_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* CLPERM_DIST_H */
