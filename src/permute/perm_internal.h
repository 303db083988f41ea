/* Offline permutations (Kasagi, Nakano, Ito: "Offline permutation on the CUDA-enabled GPU"):
 * what the device operations, the scheduled permutation's plan and its host-side colourings
 * share. Not installed. */
#ifndef CLPERM_PERM_INTERNAL_H
#define CLPERM_PERM_INTERNAL_H

#include <stdint.h>

#include "internal.h"

/* Progress of a long host computation: fn(user, lo + (hi - lo) * fraction), from the calling
 * thread only. fn may be NULL. */
typedef struct clperm__progress {
    clperm_progress_fn fn;
    void *user;
    double lo, hi;
} clperm__progress;

void clperm__progress_report(const clperm__progress *pg, double fraction);

/* Runs fn(arg, begin, end) over [0, count) cut into about `threads` contiguous ranges, one
 * thread each (the calling thread takes the first). threads <= 1 runs fn once, here. Returns
 * nonzero when a thread could not be started (the work then ran on the calling thread). */
int clperm__parallel_for(int threads, uint64_t count, void (*fn)(void *arg, uint64_t begin, uint64_t end),
                         void *arg);

/* The number of host threads for a plan: `requested` when positive, else the online CPUs. */
int clperm__host_threads(int requested);

/* ---- the König colouring of Section 7 ----
 * The permutation, extended by the identity to N = rows * cols items, as the bipartite
 * multigraph from source rows to destination rows (item i: row i / cols to row P(i) / cols),
 * cols-regular; cols a power of two. p is the extended permutation (N destinations), q its
 * inverse.
 * Writes at[c * rows + u] = the item of source row u painted colour c (c < cols): in every
 * source row the colours are distinct, and the items of one colour have distinct destination
 * rows. Euler splits: at each of log2(cols) levels every colour class is cut in two by pairing
 * the items of each row and of each destination row and 2-colouring the cycles the pairs form.
 * CLPERM_ERROR_OUT_OF_HOST_MEMORY when the work arrays do not fit. */
clperm_status clperm__perm_colour(uint32_t rows, uint32_t cols, const uint32_t *p, const uint32_t *q, uint32_t *at,
                                  int threads, const clperm__progress *pg);

/* ---- the conflict-free schedule of one row-wise step (Section 6) ----
 * For a permutation pi of len positions (len a multiple of w, w a power of two 2..64):
 * sched[t] = S(t) | D(t) << 16 with D(t) = pi(S(t)), such that in every aligned group of g
 * consecutive t (g = w, w/2, w/4) the S(t) are distinct modulo g and so are the D(t): the items
 * a group of g work-items moves at one step lie in g banks on both sides (w banks of 4-byte
 * words serve 8- and 16-byte items a half and a quarter group at a time). The bank multigraph (source bank j mod w to destination bank pi(j) mod w,
 * len/w-regular) is coloured with len/w colours by Euler splits while the degree is even and a
 * perfect matching peeled off (Kuhn's augmenting paths) when it is odd; each colour class is
 * ordered by halving it twice. len <= 65536. */
typedef struct clperm__sched_ws clperm__sched_ws;

clperm__sched_ws *clperm__sched_ws_new(uint32_t max_len, uint32_t w);
void clperm__sched_ws_free(clperm__sched_ws *ws);
/* 0 on success; -1 when pi is not a permutation of [0, len) or the shape is not allowed. */
int clperm__perm_schedule(clperm__sched_ws *ws, uint32_t len, uint32_t w, const uint16_t *pi, uint32_t *sched);

/* ---- permutation checks ---- */
/* CLPERM_ERROR_NOT_PERMUTATION unless p (n indices of index_type) is a permutation of 0..n-1. */
clperm_status clperm__perm_check_host(clperm_type index_type, const void *p, uint64_t n);
/* The same check, writing the inverse: q[p[i]] = i (n <= 2^32). q may be partly written when the
 * check fails. */
clperm_status clperm__perm_inverse_host(clperm_type index_type, const void *p, uint64_t n, uint32_t *q);

/* ---- shared by the device operations ---- */
/* The OpenCL C type of an item of `bytes` (4, 8, 16), else NULL. */
const char *clperm__perm_item_type(size_t bytes);
/* Items of `bytes` a row of the device's local-memory banks holds: the bank count of the
 * conflict model for such items (32 four-byte banks: 32, 16, 8). */
uint32_t clperm__perm_banks(const clperm_ctx *ctx, size_t bytes);
/* Enqueues the transpose of a rows x cols matrix (checked by the caller; rows * cols > 0). */
clperm_status clperm__transpose_enqueue(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t rows, uint64_t cols,
                                        size_t bytes, cl_uint num_events, const cl_event *events, cl_event *event);

/* ---- bank-conflict trace ----
 * A trace build's record (the format and the model of the trace layer, src/tile/tile.h): per
 * work-item in work-group order, cap + 1 words, the number of steps first, then one local address
 * per step (CLPERM__TRACE_IDLE when the work-item made no access while others did); the w
 * consecutive work-items of a group are one of the layer's tiles, accessing together at each step.
 */

/* Runs a trace build: fn enqueues the kernel on the data buffers a and b (data_bytes each, zeros)
 * with the record buffer `trace` of `items` work-items of cap + 1 words; the record is then read
 * and counted in groups of w into *out (zeroed first; out->tiles = groups, out->shape.w = w). */
typedef clperm_status (*clperm__trace_fn)(clperm_ctx *ctx, void *arg, cl_mem a, cl_mem b, cl_mem trace, uint32_t cap);
clperm_status clperm__perm_trace_run(clperm_ctx *ctx, uint64_t items, uint32_t cap, uint32_t w, uint64_t groups,
                                     size_t data_bytes, clperm__trace_fn fn, void *arg, clperm_conflict_report *out);

#endif /* CLPERM_PERM_INTERNAL_H */
