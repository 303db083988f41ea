/* What the tile operations share: the plan every operation makes (tile shape, program, options),
 * the one shape search behind every plan, and the bank-conflict trace that measures them.
 *
 * Files: plan.c (the shape search, the register networks, a plan's kernel), sort.c (the tile
 * sorts and the stable partitions they make), partition.c (the partitions and the counting
 * partition), transpose.c (batched transposes), trace.c (the bank-conflict trace, a layer over
 * the operations), host.c (the host references) and registers.c (the segmented sort's register
 * network). */
#ifndef CLPERM_TILE_H
#define CLPERM_TILE_H

#include "internal.h"

/* ---- programs ---- */

/* The slot of the plan's register networks in a program's texts: the host writes them for each
 * tile shape. */
#define CLPERM__TILE_NETWORKS NULL
#define CLPERM__TILE_TEXTS_MAX 3

/* A tile operation's program: the texts compiled as one, in order (after clperm_features.h, which
 * every program starts with), and the kernel it runs. The name, with the options, keys the
 * context's memory cache of programs: one name per list of texts. */
typedef struct clperm__tile_program {
    const char *name;
    const char *kernel;
    int count;
    const char *texts[CLPERM__TILE_TEXTS_MAX];
} clperm__tile_program;

/* ---- plans ---- */

typedef struct clperm__tile_plan {
    clperm_tile_shape shape;
    uint32_t super; /* the counting partition: rows per super-row (Corollary 1 w, Theorem 1 sqrt(w)) */
    const clperm__tile_program *program;
    char options[384];
    char networks[32768]; /* the register sorting networks, the first of the program's texts */
} clperm__tile_plan;

/* What a tile holds and which rule shapes it. */
typedef enum clperm__tile_kind {
    CLPERM__TILE_SORT,     /* a tile sort, or a stable partition (a sort of labels and positions) */
    CLPERM__TILE_COUNTING, /* the counting partition: Corollary 1's tiles, else Theorem 1's square ones */
    CLPERM__TILE_TRANSPOSE /* one padded rows x cols matrix, as wide as the device's banks */
} clperm__tile_kind;

typedef struct clperm__tile_request {
    clperm__tile_kind kind;
    clperm_tile_sort algorithm; /* sorts: the algorithm, CLPERM_TILE_SORT_AUTO resolved      */
    size_t key_bytes;           /* bytes of a key (transposes: of an item)                   */
    int positions;              /* sorts: the tile keeps positions (values, or a partition)   */
    unsigned bits;              /* the counting partition: label bits, 1..8                   */
    uint32_t rows, cols;        /* transposes: the matrix, 1..65536 each                      */
} clperm__tile_request;

/* The one shape search of every tile operation: over candidate tiles of t items, t a power of two
 * from 1 up (transposes: the one padded matrix), each kind's rule gives the width and says whether
 * the tile fits the device (width, registers, local memory). Fills p->shape (tiles per work-group
 * and per compute unit included) and p->super with the shortest tile of at least `items` items
 * that fits, or with items 0 the longest; CLPERM_ERROR_INVALID_ARGUMENT when none does. */
clperm_status clperm__tile_search(const clperm_ctx *ctx, const clperm__tile_request *rq, uint64_t items,
                                  clperm__tile_plan *p);

/* Writes p->networks: for a tile of m columns whose gathered rows hold sorted runs of `run`, the
 * levels of Batcher's odd-even merge sort of m keys below `run` (CLPERM_TS_NET_RUNS) and from
 * `run` up (CLPERM_TS_NET_MERGE), and a sort of w keys (CLPERM_TS_NET_W). (1, 1, 1) writes the
 * three empty. CLPERM_ERROR_INTERNAL if they did not fit. */
clperm_status clperm__tile_networks(clperm__tile_plan *p, uint32_t w, uint32_t m, uint32_t run);

/* The kernel of a plan, its program built (or found in the caches) from the program's texts. */
clperm_status clperm__tile_plan_kernel(clperm_ctx *ctx, const clperm__tile_plan *p, cl_kernel *out);

/* ---- the operations (the context is locked by the caller) ---- */

/* A tile sort of segments of `segment` keys or, with bits > 0, a stable partition of them by the
 * label in bits [shift, shift + bits) of the ordered key; trace 1 plans the trace build. */
clperm_status clperm__sort_plan(const clperm_ctx *ctx, clperm_key_type type, int with_values, uint64_t segment,
                                clperm_tile_sort algorithm, unsigned shift, unsigned bits, int trace,
                                clperm__tile_plan *p);
/* The longest segment a sort with `algorithm` takes (1 when no tile fits). */
uint64_t clperm__sort_segment_max(const clperm_ctx *ctx, clperm_key_type type, int positions,
                                  clperm_tile_sort algorithm);
/* A partition by the label of bits [shift, shift + bits): the counting partition, or the stable
 * one through clperm__sort_plan. */
clperm_status clperm__partition_plan(const clperm_ctx *ctx, clperm_key_type type, int with_values,
                                     uint64_t segment, unsigned shift, unsigned bits, clperm_tile_sort algorithm,
                                     int trace, clperm__tile_plan *p);
/* Enqueues a planned sort or partition of keys[0 .. n) (and values, or NULL), unchecked. */
clperm_status clperm__segments_launch(clperm_ctx *ctx, const clperm__tile_plan *p, cl_mem keys, cl_mem values,
                                      uint64_t n, uint64_t segment, cl_uint num_events, const cl_event *events,
                                      cl_event *event);
/* Checks the buffers and events of a planned sort or partition, then enqueues it (n = 0: a marker
 * when an event is asked for). */
clperm_status clperm__segments_run(clperm_ctx *ctx, const clperm__tile_plan *p, clperm_key_type type, cl_mem keys,
                                   cl_mem values, uint64_t n, uint64_t segment, cl_uint num_events,
                                   const cl_event *events, cl_event *event);

clperm_status clperm__transpose_plan(const clperm_ctx *ctx, clperm_type type, uint32_t rows, uint32_t cols,
                                     int trace, clperm__tile_plan *p);
/* Enqueues `count` planned transposes from src to dst, unchecked. */
clperm_status clperm__transpose_launch(clperm_ctx *ctx, const clperm__tile_plan *p, cl_mem src, cl_mem dst,
                                       uint64_t count, cl_uint num_events, const cl_event *events,
                                       cl_event *event);

/* ---- the tile operations the device-wide and segmented sorts (src/sort) run, unchecked ---- */

/* The stable partition of each segment of `segment` keys by the label of `bits` bits at `shift`,
 * with the device's default tile algorithm (the presorted ranking's step); the largest segment it
 * takes for `type` with u32 values. */
clperm_status clperm__tile_partition(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                     uint64_t segment, unsigned shift, unsigned bits, cl_uint num_events,
                                     const cl_event *events, cl_event *event);
uint64_t clperm__tile_partition_max(const clperm_ctx *ctx, clperm_key_type type);
/* The tile sort of segments of `segment` keys (CLPERM_TILE_SORT_AUTO), and its largest segment:
 * the segmented sort's uniform segments. */
clperm_status clperm__tile_sort(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values, uint64_t n,
                                uint64_t segment, cl_uint num_events, const cl_event *events, cl_event *event);
uint64_t clperm__tile_sort_max(const clperm_ctx *ctx, clperm_key_type type, int with_values);
/* The tile sort (CLPERM_TILE_SORT_AUTO) of the listed segments: entries [first, first + count) of
 * `list`, two u64 each (first key, length <= segment), descending or not, with u32 or u64 values
 * (value_bytes 4 or 8) or none: the segmented sort's short segments, one size class a call. */
clperm_status clperm__tile_sort_list(clperm_ctx *ctx, clperm_key_type type, cl_mem keys, cl_mem values,
                                     size_t value_bytes, cl_mem list, uint64_t first, uint64_t count, uint64_t segment,
                                     int descending);

/* The register network of segments of 4-byte keys (registers.c, cl/tile/registers.cl), alone (not
 * stable) or with values of value_bytes (4 or 8; stable): the longest segment it takes for keys
 * of `type` (0: none, where CLPERM_PARAM_SEGMENT_SORT or the device's table turns it off, or keys
 * of 8 bytes), and its sort of uniform segments of `segment` keys among n (list NULL) or of list
 * entries [first, first + count) as clperm__tile_sort_list takes them (lengths up to `segment`),
 * each key ordered by CLPERM_KEY_ORDER with the two masks. */
uint64_t clperm__reg_sort_max(const clperm_ctx *ctx, clperm_key_type type, size_t value_bytes);
clperm_status clperm__reg_sort(clperm_ctx *ctx, cl_mem keys, cl_mem values, size_t value_bytes, uint64_t n,
                               uint64_t segment, uint32_t pos_xor, uint32_t neg_xor, cl_mem list, uint64_t first,
                               uint64_t count);

/* ---- the bank-conflict trace (trace.c) ----
 * A kernel built to trace (cl/tile/common.h: -DCLPERM_TS_TRACE=1, every local-memory access
 * through CLPERM_TS_LD and CLPERM_TS_ST) takes two more arguments after its own: the trace buffer
 * (__global uint *) and cap (uint), the steps a record holds.
 * Format: one record of cap + 1 words per work-item, tile-major (work-item l of tile t at record
 * t * w + l): word 0 is the number of steps the work-item made (counted on past cap), word 1 + s
 * the word address it accessed at step s, or CLPERM__TRACE_IDLE where it made no access while
 * others of its tile did.
 * Model: w banks, bank = word address mod w, the w work-items of a tile accessing together at each
 * step (a work-item with fewer steps than the tile's longest is idle in the rest). A step's
 * conflicts are, per bank, the distinct addresses it saw less one: the accesses serialised behind
 * another to the same bank at a different address.
 * Other families trace their own kernels the same way: create a trace, bind it to the traced
 * kernel, enqueue the kernel, then finish (read and count) and release. */
#define CLPERM__TRACE_IDLE 0xFFFFFFFFu
#define CLPERM__TRACE_W_MAX 64 /* the widest tile a trace is counted for */

typedef struct clperm__trace {
    cl_mem buffer;
    cl_uint *rec; /* the host's copy */
    uint64_t tiles;
    uint32_t w;
    cl_uint cap;
} clperm__trace;

/* Counts the conflicts of `tiles` tiles of w work-items in rec into *out (zeroed first; tiles,
 * steps, accesses, conflicts, max_ways). CLPERM_ERROR_SIZE_OVERFLOW when a work-item made more
 * than cap steps, CLPERM_ERROR_INVALID_ARGUMENT when w is 0 or above CLPERM__TRACE_W_MAX. */
clperm_status clperm__trace_count(const cl_uint *rec, uint64_t tiles, uint32_t w, cl_uint cap,
                                  clperm_conflict_report *out);
/* A trace of `tiles` tiles of w work-items, cap steps each: the device buffer and the host's copy.
 * On failure *t holds nothing to release. */
clperm_status clperm__trace_create(clperm_ctx *ctx, uint64_t tiles, uint32_t w, uint64_t cap, clperm__trace *t);
/* Sets the trace as the two last arguments of a traced kernel. */
clperm_status clperm__trace_bind(const clperm__trace *t, cl_kernel kernel);
/* A traced run's device buffers: the first from the host (in, or zeros when in is NULL), the
 * second zeroed or left as allocated (bytes 0: none). Zeros are written from the host: Oclgrind
 * takes memory set by clEnqueueFillBuffer for uninitialised. */
typedef struct clperm__trace_io {
    const void *in;
    size_t in_bytes;
    size_t out_bytes;
    int out_zeroed;
} clperm__trace_io;
/* A traced kernel's launch on the run's buffers a and b (b NULL when io has no second one). */
typedef clperm_status (*clperm__trace_launch)(clperm_ctx *ctx, const clperm__trace *t, cl_mem a, cl_mem b,
                                              void *arg);
/* Creates the buffers of io, runs launch on them (which binds t to its kernel and enqueues it),
 * then finishes t into *out and releases the buffers; t stays the caller's. */
clperm_status clperm__trace_run(clperm_ctx *ctx, clperm__trace *t, const clperm__trace_io *io,
                                clperm__trace_launch launch, void *arg, clperm_conflict_report *out);
/* Reads the trace (blocking, after what the queue holds) and counts it into *out. */
clperm_status clperm__trace_finish(clperm_ctx *ctx, clperm__trace *t, clperm_conflict_report *out);
void clperm__trace_release(clperm__trace *t);

#endif /* CLPERM_TILE_H */
