/* The distributed shuffle (clperm_dist_shuffle).
 *
 * The permutation keeps the values f(i) < n of the bijection f over its domain [0, D) in the
 * order of i, so output position j holds the item of the j-th kept value. Rank r's output block,
 * positions [offset_r, offset_r + count_r), is thus the kept values of one domain range
 * [I_r, I_r+1): I_r is the index of the kept value of rank offset_r (D when offset_r = n).
 *
 *   1. Boundaries. Every rank counts the kept values of one slice of the domain, block by block
 *      (clperm_dist_count), and the ranks gather their slice totals: every rank then knows how
 *      many kept values precede each slice, and the rank whose slice holds the kept value of
 *      rank offset_q finds I_q within one block on the host. An allreduce (min) shares them.
 *   2. Source. Each rank maps its items g to i = f^-1(g) (clperm_dist_inverse), sorts (i, t)
 *      by i (clperm__dist_sort_local), finds where each range starts among the sorted i
 *      (clperm_dist_lower_bounds): those are the counts to send, and gathers its items in the
 *      order of i (clperm_dist_gather) into a device buffer, then into host memory.
 *   3. Destination. Each rank counts its range's kept values per block again, scans the counts
 *      (on the host: one word per block), and writes for its j-th kept value the rank s whose input block holds f(i)
 *      (clperm_dist_owners); a stable sort of (s, j) by s gives, at position p, the output j of
 *      the p-th item received (items arrive by source rank, each source's in the order of i).
 *   4. Exchange: the counts (MPI_Alltoall), then the items, device to device in chunks staged
 *      through host memory (clperm__dist_exchange); they are scattered to dst
 *      (clperm_dist_scatter).
 *
 * Statuses are agreed after the arguments (before anything), after steps 1, 2 and 3 (before
 * any item moves) and at the end. */
#include <stdlib.h>
#include <string.h>

#include "buffer_check.h"
#include "dist_internal.h"

/* Domain indices per work-item of the counting kernel, and per block of the owners kernel. */
#define COUNT_BLOCK 256
/* About the items (inverse) or blocks (owners) a work-item or work-group takes, so that each
 * unpacks the bijection's key for several evaluations. */
#define PER_WORK_ITEM 8

typedef struct shuffle_call {
    clperm_dist *d;
    clperm_bijection_key key;
    uint64_t n, count;
    size_t elem_size, word_bytes;
    uint64_t words;
    cl_uint keys_wide, positions_wide; /* index arrays of ulong rather than uint */
    uint64_t *offsets;                 /* size + 1: the input blocks                    */
    uint64_t *bounds;                  /* size + 1: I_r, the output blocks' domain ranges */
    uint64_t *sendcounts, *recvcounts; /* size each                                       */
    cl_mem keys, positions, items;     /* count indices, count positions, count items     */
    cl_mem received;                   /* count items, or NULL (then keys) */
} shuffle_call;

/* The first index of slice t when [0, domain) is cut into `parts` slices of near-equal length. */
static uint64_t slice_begin(uint64_t domain, int parts, int t) {
    uint64_t q = domain / (uint64_t)parts, r = domain % (uint64_t)parts;
    return q * (uint64_t)t + ((uint64_t)t < r ? (uint64_t)t : r);
}

/* Enqueues the count of kept values per COUNT_BLOCK indices of [begin, end) into *counts, a
 * buffer of *blocks words made here. */
static clperm_status count_blocks(shuffle_call *c, uint64_t begin, uint64_t end, cl_mem *counts, uint64_t *blocks) {
    *blocks = (end - begin + COUNT_BLOCK - 1) / COUNT_BLOCK;
    CLPERM_TRY(clperm__dist_buffer(c->d, (size_t)*blocks * sizeof(cl_ulong), counts));
    cl_ulong b = begin, e = end;
    cl_uint block = COUNT_BLOCK;
    clperm__dist_args a = clperm__dist_args_begin(c->d, CLPERM__DIST_COUNT);
    clperm__dist_arg_key(&a, &c->key);
    CLPERM__DIST_ARG(a, b);
    CLPERM__DIST_ARG(a, e);
    CLPERM__DIST_ARG(a, block);
    CLPERM__DIST_ARG(a, *counts);
    return clperm__dist_launch(c->d, &a, *blocks);
}

/* The index of the kept value of rank k (0-based) among the kept values of [begin, end), whose
 * per-block counts are counts[]: the block by the counts, the index within it by evaluating f. */
static uint64_t kept_index(const clperm_bijection_key *key, uint64_t begin, const uint64_t *counts, uint64_t k) {
    uint64_t b = 0;
    while (k >= counts[b]) k -= counts[b++];
    for (uint64_t i = begin + b * COUNT_BLOCK;; i++)
        if (clperm_bijection_apply(key, i) < key->n && k-- == 0) return i;
}

/* Enqueues the gather (to[t] = from[positions[t]]) or the scatter (to[positions[t]] = from[t]) of
 * the call's count items. */
static clperm_status move_by_positions(shuffle_call *c, clperm__dist_kernel k, cl_mem from, cl_mem to) {
    cl_uint word_bytes = (cl_uint)c->word_bytes;
    cl_ulong words = c->words, count = c->count;
    clperm__dist_args a = clperm__dist_args_begin(c->d, k);
    CLPERM__DIST_ARG(a, from);
    CLPERM__DIST_ARG(a, to);
    CLPERM__DIST_ARG(a, c->positions);
    CLPERM__DIST_ARG(a, c->positions_wide);
    CLPERM__DIST_ARG(a, count);
    CLPERM__DIST_ARG(a, word_bytes);
    CLPERM__DIST_ARG(a, words);
    return clperm__dist_launch(c->d, &a, count);
}

/* Step 1: c->bounds on every rank. */
static clperm_status find_bounds(shuffle_call *c) {
    clperm_status st = CLPERM_SUCCESS;
    clperm_dist *d = c->d;
    int size = d->size, rank = d->rank;
    uint64_t domain = c->key.domain, first = slice_begin(domain, size, rank);
    uint64_t blocks = 0, total = 0, *counts = NULL, *totals = malloc((size_t)size * sizeof *totals);
    cl_mem counts_dev = NULL;
    if (!totals) st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    if (st == CLPERM_SUCCESS) st = count_blocks(c, first, slice_begin(domain, size, rank + 1), &counts_dev, &blocks);
    if (st == CLPERM_SUCCESS && !(counts = malloc((size_t)blocks * sizeof *counts + 1)))
        st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    if (st == CLPERM_SUCCESS) st = clperm__dist_read(d, counts_dev, 0, (size_t)blocks * sizeof *counts, counts);
    for (uint64_t b = 0; st == CLPERM_SUCCESS && b < blocks; b++) total += counts[b];
    clperm__dist_phase_end(d, CLPERM__PHASE_LOCAL);
    CLPERM_CHECK(clperm__dist_allgather(d, st, &total, 1, totals));
    /* kept: the kept values of the slices before this rank's; every slice together keeps n. */
    uint64_t kept = 0, all = 0;
    for (int t = 0; t < size; t++) {
        if (t < rank) kept += totals[t];
        all += totals[t];
    }
    CLPERM_CHECK(all == c->n ? CLPERM_SUCCESS : CLPERM_ERROR_INTERNAL);
    c->bounds[0] = 0;
    c->bounds[size] = domain;
    for (int q = 1; q < size; q++) {
        uint64_t o = c->offsets[q];
        if (o >= c->n)
            c->bounds[q] = domain;
        else if (o >= kept && o - kept < total)
            c->bounds[q] = kept_index(&c->key, first, counts, o - kept);
        else
            c->bounds[q] = UINT64_MAX; /* another rank's slice holds it */
    }
    CLPERM_CHECK(clperm__dist_allreduce(d, c->bounds, size + 1, MPI_MIN));
    for (int q = 0; q < size; q++) CLPERM_CHECK(c->bounds[q] <= c->bounds[q + 1] ? CLPERM_SUCCESS : CLPERM_ERROR_INTERNAL);
    clperm__dist_phase_end(d, CLPERM__PHASE_COLLECTIVE);
cleanup:
    clperm__dist_release(counts_dev);
    free(counts);
    free(totals);
    return st;
}

/* Step 2: the send counts, and the items in the order they are sent in c->items. */
static clperm_status source_order(shuffle_call *c, cl_mem src) {
    clperm_status st = CLPERM_SUCCESS;
    clperm_dist *d = c->d;
    int size = d->size;
    cl_mem bounds_dev = NULL, starts_dev = NULL;
    uint64_t *starts = malloc((size_t)(size + 1) * sizeof *starts);
    CLPERM_RETURN_IF(!starts, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    cl_ulong first = c->offsets[d->rank], count = c->count;
    clperm__dist_args a = clperm__dist_args_begin(d, CLPERM__DIST_INVERSE);
    clperm__dist_arg_key(&a, &c->key);
    CLPERM__DIST_ARG(a, first);
    CLPERM__DIST_ARG(a, count);
    CLPERM__DIST_ARG(a, c->keys);
    CLPERM__DIST_ARG(a, c->keys_wide);
    CLPERM__DIST_ARG(a, c->positions);
    CLPERM__DIST_ARG(a, c->positions_wide);
    CLPERM_CHECK(clperm__dist_launch(d, &a, (count + PER_WORK_ITEM - 1) / PER_WORK_ITEM));
    clperm__dist_sort_step sort = {c->keys_wide ? CLPERM_KEY_U64 : CLPERM_KEY_U32, c->keys,
                                   c->positions_wide ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32, c->positions,
                                   count, c->key.bits};
    CLPERM_CHECK(clperm__dist_sort_local(d, &sort));
    memset(starts, 0, (size_t)(size + 1) * sizeof *starts);
    if (count) {
        size_t bytes = (size_t)(size + 1) * sizeof *starts;
        cl_uint nbounds = (cl_uint)(size + 1);
        CLPERM_CHECK(clperm__dist_buffer(d, bytes, &bounds_dev));
        CLPERM_CHECK(clperm__dist_buffer(d, bytes, &starts_dev));
        CLPERM_CHECK(clperm__dist_write(d, bounds_dev, 0, bytes, c->bounds));
        a = clperm__dist_args_begin(d, CLPERM__DIST_LOWER_BOUNDS);
        CLPERM__DIST_ARG(a, c->keys);
        CLPERM__DIST_ARG(a, c->keys_wide);
        CLPERM__DIST_ARG(a, count);
        CLPERM__DIST_ARG(a, bounds_dev);
        CLPERM__DIST_ARG(a, nbounds);
        CLPERM__DIST_ARG(a, starts_dev);
        CLPERM_CHECK(clperm__dist_launch(d, &a, nbounds));
        CLPERM_CHECK(clperm__dist_read(d, starts_dev, 0, bytes, starts));
    }
    /* Every index lies in [I_0, I_size) = [0, D). */
    if (starts[0] != 0 || starts[size] != count) {
        st = CLPERM_ERROR_INTERNAL;
        goto cleanup;
    }
    for (int q = 0; q < size; q++) c->sendcounts[q] = starts[q + 1] - starts[q];
    CLPERM_CHECK(move_by_positions(c, CLPERM__DIST_GATHER, src, c->items));
    CLPERM_CHECK(clFinish(d->queue));
cleanup:
    clperm__dist_release(bounds_dev);
    clperm__dist_release(starts_dev);
    free(starts);
    return st;
}

/* Step 3: at position p of c->positions, the output position of the p-th item to be received.
 * Reuses c->keys (count indices of at least 32 bits) for the owners. The block counts are
 * scanned on the host: one word per COUNT_BLOCK indices each way. */
static clperm_status destination_order(shuffle_call *c) {
    clperm_status st = CLPERM_SUCCESS;
    clperm_dist *d = c->d;
    uint64_t begin = c->bounds[d->rank], end = c->bounds[d->rank + 1], blocks = 0, kept = 0;
    uint64_t *before = NULL;
    cl_mem counts = NULL, offsets = NULL;
    CLPERM_CHECK(count_blocks(c, begin, end, &counts, &blocks));
    CLPERM_CHECK((before = malloc((size_t)blocks * sizeof *before + 1)) ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    CLPERM_CHECK(clperm__dist_read(d, counts, 0, (size_t)blocks * sizeof *before, before));
    for (uint64_t b = 0; b < blocks; b++) {
        uint64_t k = before[b];
        before[b] = kept;
        kept += k;
    }
    /* The range's kept values are this rank's output block. */
    CLPERM_CHECK(kept == c->count ? CLPERM_SUCCESS : CLPERM_ERROR_INTERNAL);
    CLPERM_CHECK(clperm__dist_write(d, counts, 0, (size_t)blocks * sizeof *before, before));
    CLPERM_CHECK(clperm__dist_buffer(d, (size_t)(d->size + 1) * sizeof(cl_ulong), &offsets));
    CLPERM_CHECK(clperm__dist_write(d, offsets, 0, (size_t)(d->size + 1) * sizeof(cl_ulong), c->offsets));
    cl_ulong b = begin, e = end;
    cl_uint block = COUNT_BLOCK, ranks = (cl_uint)d->size;
    clperm__dist_args a = clperm__dist_args_begin(d, CLPERM__DIST_OWNERS);
    clperm__dist_arg_key(&a, &c->key);
    CLPERM__DIST_ARG(a, b);
    CLPERM__DIST_ARG(a, e);
    CLPERM__DIST_ARG(a, block);
    CLPERM__DIST_ARG(a, counts);
    CLPERM__DIST_ARG(a, offsets);
    CLPERM__DIST_ARG(a, ranks);
    CLPERM__DIST_ARG(a, c->keys);
    CLPERM__DIST_ARG(a, c->positions);
    CLPERM__DIST_ARG(a, c->positions_wide);
    cl_uint group_blocks = PER_WORK_ITEM;
    CLPERM__DIST_ARG(a, group_blocks);
    clperm__dist_arg(&a, NULL, d->wg * sizeof(cl_uint));
    CLPERM_CHECK(clperm__dist_launch(d, &a, (blocks + group_blocks - 1) / group_blocks * d->wg));
    clperm__dist_sort_step sort = {CLPERM_KEY_U32, c->keys, c->positions_wide ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32,
                                   c->positions, c->count, clperm__dist_log2_ceil((uint64_t)d->size)};
    CLPERM_CHECK(clperm__dist_sort_local(d, &sort));
    CLPERM_CHECK(clFinish(d->queue));
cleanup:
    clperm__dist_release(counts);
    clperm__dist_release(offsets);
    free(before);
    return st;
}

/* Steps 2 to 4 once the boundaries are known. The items arrive in c->received: c->keys when its
 * indices are as wide as the items (the indices are spent by then), else a buffer of their own. */
static clperm_status move_items(shuffle_call *c, cl_mem src, cl_mem dst) {
    clperm_status st = CLPERM_SUCCESS;
    clperm_dist *d = c->d;
    size_t index_bytes = c->keys_wide ? 8 : 4, position_bytes = c->positions_wide ? 8 : 4;
    size_t item_bytes = (size_t)c->count * c->elem_size;
    st = clperm__dist_scratch(d, 0, (size_t)c->count * index_bytes, &c->keys);
    if (st == CLPERM_SUCCESS) st = clperm__dist_scratch(d, 1, (size_t)c->count * position_bytes, &c->positions);
    if (st == CLPERM_SUCCESS) st = clperm__dist_scratch(d, 2, item_bytes, &c->items);
    if (st == CLPERM_SUCCESS && index_bytes < c->elem_size) st = clperm__dist_scratch(d, 3, item_bytes, &c->received);
    if (st == CLPERM_SUCCESS) st = source_order(c, src);
    if (st == CLPERM_SUCCESS) st = destination_order(c);
    clperm__dist_phase_end(d, CLPERM__PHASE_LOCAL);
    CLPERM_TRY(clperm__dist_agree(d, st));
    CLPERM_TRY(clperm__dist_alltoall(d, c->sendcounts, c->recvcounts));
    uint64_t received = 0;
    for (int t = 0; t < d->size; t++) received += c->recvcounts[t];
    clperm__dist_phase_end(d, CLPERM__PHASE_COLLECTIVE);
    CLPERM_TRY(clperm__dist_agree(d, received == c->count ? CLPERM_SUCCESS : CLPERM_ERROR_INTERNAL));
    cl_mem into = c->received ? c->received : c->keys;
    clperm__dist_exchange_spec x = {c->items, 0, into, 0, c->sendcounts, c->recvcounts, c->elem_size};
    st = clperm__dist_exchange(d, &x);
    clperm__dist_phase_end(d, CLPERM__PHASE_EXCHANGE);
    if (st == CLPERM_SUCCESS) st = move_by_positions(c, CLPERM__DIST_SCATTER, into, dst);
    if (st == CLPERM_SUCCESS) st = clFinish(d->queue);
    clperm__dist_phase_end(d, CLPERM__PHASE_LOCAL);
    return st;
}

static clperm_status local_checks(clperm_dist *d, cl_mem src, cl_mem dst, uint64_t count, size_t elem_size) {
    CLPERM_RETURN_IF(elem_size == 0 || elem_size > (size_t)INT32_MAX, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(count > SIZE_MAX / elem_size, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(clperm__dist_check_buffer(d, src, count, elem_size, 0));
    CLPERM_TRY(clperm__dist_check_buffer(d, dst, count, elem_size, 1));
    /* The same items in place, or apart. */
    return count ? clperm__buffer_overlap(src, count * elem_size, dst, count * elem_size, 1) : CLPERM_SUCCESS;
}

static clperm_status shuffle_agreed(shuffle_call *c, cl_mem src, cl_mem dst, uint64_t seed,
                                    const clperm_shuffle_opts *opts) {
    clperm_dist *d = c->d;
    if (c->n == 0) return CLPERM_SUCCESS;
    if (d->size == 1) {
        uint64_t bytes = c->n * c->elem_size;
        int inplace = clperm__buffer_overlap(src, bytes, dst, bytes, 0) != CLPERM_SUCCESS; /* the same range */
        clperm_status st = inplace ? clperm_shuffle_inplace(d->ctx, dst, c->n, c->elem_size, seed, opts, 0, NULL, NULL)
                                   : clperm_shuffle(d->ctx, src, dst, c->n, c->elem_size, seed, opts, 0, NULL, NULL);
        if (st == CLPERM_SUCCESS) st = clFinish(d->queue);
        clperm__dist_phase_end(d, CLPERM__PHASE_LOCAL);
        return st;
    }
    c->word_bytes = 16;
    while (c->elem_size % c->word_bytes) c->word_bytes /= 2;
    c->words = c->elem_size / c->word_bytes;
    c->keys_wide = c->key.bits > 32;
    c->positions_wide = c->count > (UINT64_C(1) << 32);
    CLPERM_TRY(find_bounds(c));
    return move_items(c, src, dst);
}

clperm_status clperm_dist_shuffle(clperm_dist *dist, cl_mem src, cl_mem dst, uint64_t n, uint64_t count,
                                  size_t elem_size, uint64_t seed, const clperm_shuffle_opts *opts) {
    CLPERM_TRY(clperm__dist_check(dist));
    clperm_dist *d = dist;
    clperm__dist_call_begin(d);
    shuffle_call c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.n = n;
    c.count = count;
    c.elem_size = elem_size;
    size_t words = (size_t)(d->size + 1) * 3 + (size_t)d->size;
    uint64_t *arrays = calloc(words, sizeof *arrays);
    clperm_status st = arrays ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    if (st == CLPERM_SUCCESS) st = local_checks(d, src, dst, count, elem_size);
    if (st == CLPERM_SUCCESS) st = clperm_bijection_init(&c.key, n, seed, opts);
    clperm__dist_call call = {count, n, {seed, elem_size, c.key.kind, c.key.rounds}};
    if (arrays) {
        c.offsets = arrays;
        c.bounds = arrays + d->size + 1;
        c.sendcounts = arrays + 2 * (d->size + 1);
        c.recvcounts = c.sendcounts + d->size;
    }
    st = clperm__dist_agree_call(d, st, &call, c.offsets);
    clperm__dist_phase_end(d, CLPERM__PHASE_COLLECTIVE);
    if (st == CLPERM_SUCCESS) st = clperm__dist_agree(d, shuffle_agreed(&c, src, dst, seed, opts));
    free(arrays);
    clperm__dist_call_end(d);
    return st;
}
