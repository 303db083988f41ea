/* The distributed sort (clperm_dist_sort): a sample sort whose splitters are exact.
 *
 * The order sorted by is (key, rank, position): keys by clperm.h's order, equal keys by their
 * global input position. Every element is distinct in it, so the global positions
 * [offset_q, offset_q+1) of rank q's output block are a set of elements known exactly, and each
 * rank can send rank q exactly those: no second exchange to rebalance the blocks.
 *
 *   1. Each rank sorts a copy of its block on its device (stably, clperm__dist_sort_local).
 *   2. Splitting. For every rank q, the key v_q of the element at global position offset_q is
 *      found by a search over the keys' order: each step every rank counts its keys <= each of
 *      k pivots that cut every open interval into k + 1 parts (binary searches on its device in
 *      its sorted block, within the part the earlier steps left open: one kernel, a write and a
 *      read of at most 4096 words) and one allreduce sums the counts. Then one allreduce gives the
 *      keys below v_q and one exclusive scan the keys equal to v_q on lower ranks: rank t sends
 *      rank q its keys below v_q and those of its keys equal to v_q that fall before position
 *      offset_q in (rank, position) order.
 *   3. Exchange: the counts (MPI_Alltoall), then the keys and the values from the sorted copy
 *      into the caller's buffers, in chunks through host memory (clperm__dist_exchange), as
 *      sorted runs in source rank order; a stable sort of the block puts them together (a merge
 *      would do; the sort is what the device has).
 *
 * Splitting takes ceil(w / log2(k + 1)) steps at most for keys of w bits (fewer when the keys
 * span a narrow range: the search starts from the global minimum and maximum), each one
 * allreduce of (size - 1) k <= 4096 words: 8 steps for 64-bit keys on 2 ranks, 21 on 512. */
#include <stdlib.h>
#include <string.h>

#include "buffer_check.h"
#include "dist_internal.h"

typedef struct sort_call {
    clperm_dist *d;
    const clperm_dist_sort_request *req;
    size_t key_bytes, value_bytes;
    uint64_t *offsets, *cuts;          /* size + 1 each                                  */
    uint64_t *sendcounts, *recvcounts; /* size each                                       */
} sort_call;

/* The key types whose order clperm__dist_key_order knows. */
static int key_supported(clperm_key_type type) {
    return type == CLPERM_KEY_U32 || type == CLPERM_KEY_I32 || type == CLPERM_KEY_F32 || type == CLPERM_KEY_U64;
}

/* A step's searches on the device, where the sorted keys are: out[i] = the first t in
 * [q[3i], q[3i + 1]) whose key's order exceeds q[3i + 2], for i < nq (queries and out: device
 * buffers of 3 * cap and cap words, made by the caller). */
typedef struct search {
    cl_mem keys, queries, out;
    uint64_t count;
} search;

static clperm_status upper_bounds(sort_call *c, const search *s, const uint64_t *q, uint64_t *out, size_t nq) {
    clperm_dist *d = c->d;
    if (nq == 0) return CLPERM_SUCCESS;
    if (s->count == 0) {
        memset(out, 0, nq * sizeof *out); /* every range is empty */
        return CLPERM_SUCCESS;
    }
    CLPERM_TRY(clperm__dist_write(d, s->queries, 0, 3 * nq * sizeof *q, q));
    cl_uint kind = (cl_uint)c->req->key_type, n = (cl_uint)nq;
    clperm__dist_args a = clperm__dist_args_begin(d, CLPERM__DIST_UPPER_BOUNDS);
    CLPERM__DIST_ARG(a, s->keys);
    CLPERM__DIST_ARG(a, kind);
    CLPERM__DIST_ARG(a, s->queries);
    CLPERM__DIST_ARG(a, n);
    CLPERM__DIST_ARG(a, s->out);
    CLPERM_TRY(clperm__dist_launch(d, &a, nq));
    return clperm__dist_read(d, s->out, 0, nq * sizeof *out, out);
}

/* The order of key i of the device buffer keys. */
static clperm_status key_order_at(sort_call *c, cl_mem keys, uint64_t i, uint64_t *order) {
    unsigned char k[8];
    CLPERM_TRY(clperm__dist_read(c->d, keys, (size_t)(i * c->key_bytes), c->key_bytes, k));
    *order = clperm__dist_key_order(c->req->key_type, k, 0);
    return CLPERM_SUCCESS;
}

/* Each step cuts every open interval at k pivots, k chosen so that the step's allreduce carries at
 * most SPLIT_WORDS words: with 2 ranks 255 pivots (8 steps for 64-bit keys), with 512 ranks 8. */
#define SPLIT_WORDS 4096
#define SPLIT_MAX_PIVOTS 255

/* The search's state for one target rank. */
typedef struct split_target {
    uint64_t lo, hi; /* v lies in [lo, hi]              */
    uint64_t pa, pz; /* this rank's keys < lo, and <= hi */
} split_target;

/* Pivot j (1 .. k) of [lo, hi], hi > lo: lo + floor((hi - lo) * j / (k + 1)), in [lo, hi). */
static uint64_t pivot(const split_target *t, unsigned j, unsigned k) {
    uint64_t width = t->hi - t->lo, a = width / (k + 1), b = width % (k + 1);
    return t->lo + a * j + b * j / (k + 1);
}

static int target_open(const sort_call *c, const split_target *t, int q) {
    return c->offsets[q] != 0 && c->offsets[q] < c->req->n && t->lo < t->hi;
}

/* Step 2: c->cuts[q], the first position of this rank's sorted block that goes to rank q or
 * beyond. */
static clperm_status split(sort_call *c, cl_mem keys) {
    clperm_status st = CLPERM_SUCCESS;
    clperm_dist *d = c->d;
    clperm_status searched = CLPERM_SUCCESS; /* the first failure of a step's searches */
    int size = d->size;
    unsigned k = (unsigned)(SPLIT_WORDS / (size - 1));
    k = k < 1 ? 1 : k > SPLIT_MAX_PIVOTS ? SPLIT_MAX_PIVOTS : k;
    uint64_t count = c->req->count, n = c->req->n;
    size_t words = (size_t)(size - 1) * k;
    split_target *s = calloc((size_t)size, sizeof *s);
    uint64_t *sums = calloc(3 * (size_t)size + 2 * words, sizeof *sums), *equal = sums + size;
    uint64_t *equal_before = equal + size, *mine = equal_before + size, *every = mine + words;
    uint64_t *queries = malloc(3 * words * sizeof *queries);
    search dev = {keys, NULL, NULL, count};
    if (!s || !sums || !queries) st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    if (st == CLPERM_SUCCESS && count) st = clperm__dist_buffer(d, 3 * words * sizeof *queries, &dev.queries);
    if (st == CLPERM_SUCCESS && count) st = clperm__dist_buffer(d, words * sizeof *queries, &dev.out);
    /* The global range of the keys: the minimum, and the maximum as the minimum of its complement. */
    uint64_t range[2] = {UINT64_MAX, UINT64_MAX};
    if (st == CLPERM_SUCCESS && count) st = key_order_at(c, keys, 0, &range[0]);
    if (st == CLPERM_SUCCESS && count) st = key_order_at(c, keys, count - 1, &range[1]);
    range[1] = count ? ~range[1] : UINT64_MAX;
    CLPERM_CHECK(clperm__dist_agree(d, st));
    CLPERM_CHECK(clperm__dist_allreduce(d, range, 2, MPI_MIN));
    for (int q = 0; q < size; q++) {
        s[q].lo = range[0];
        s[q].hi = ~range[1];
        s[q].pz = count;
    }
    /* Rank q's block starts at an element when 0 < offset_q < n; the search finds its key, the
     * smallest v with at least offset_q + 1 keys <= v. Every rank runs the same steps. */
    for (;;) {
        int open = 0;
        size_t nq = 0;
        for (int q = 1; q < size; q++) {
            split_target *t = &s[q];
            if (!target_open(c, t, q)) continue;
            open = 1;
            for (unsigned j = 0; j < k; j++, nq++) {
                queries[3 * nq] = t->pa;
                queries[3 * nq + 1] = t->pz;
                queries[3 * nq + 2] = pivot(t, j + 1, k);
            }
        }
        if (!open) break;
        /* every: the open targets' counts, in order, then spread to their places in mine. A
         * failure is agreed at the end: every rank runs the same steps whatever the counts. */
        clperm_status found = upper_bounds(c, &dev, queries, every, nq);
        if (found != CLPERM_SUCCESS) {
            memset(every, 0, nq * sizeof *every);
            if (searched == CLPERM_SUCCESS) searched = found;
        }
        for (int q = size - 1; q >= 1; q--) {
            uint64_t *m = mine + (size_t)(q - 1) * k;
            if (!target_open(c, &s[q], q)) {
                for (unsigned j = 0; j < k; j++) m[j] = 0;
                continue;
            }
            nq -= k;
            memmove(m, every + nq, k * sizeof *m);
        }
        memcpy(every, mine, words * sizeof *every);
        CLPERM_CHECK(clperm__dist_allreduce(d, every, (int)words, MPI_SUM));
        for (int q = 1; q < size; q++) {
            split_target *t = &s[q];
            if (!target_open(c, t, q)) continue;
            const uint64_t *m = mine + (size_t)(q - 1) * k, *g = every + (size_t)(q - 1) * k;
            /* The first pivot with offset_q + 1 keys at or below it bounds v from above; the one
             * before it from below. */
            unsigned j = 0;
            while (j < k && g[j] < c->offsets[q] + 1) j++;
            uint64_t below = j ? pivot(t, j, k) : 0, at = j < k ? pivot(t, j + 1, k) : 0;
            if (j) {
                t->pa = m[j - 1];
                t->lo = below + 1;
            }
            if (j < k) {
                t->pz = m[j];
                t->hi = at;
            }
        }
    }
    /* The keys below v_q everywhere, and the keys equal to v_q on the ranks before this one. */
    for (int q = 0; q < size; q++) {
        sums[q] = s[q].pa;
        equal[q] = s[q].pz - s[q].pa;
    }
    CLPERM_CHECK(clperm__dist_allreduce(d, sums, size, MPI_SUM));
    CLPERM_CHECK(clperm__dist_exscan_sum(d, equal, equal_before, size));
    c->cuts[0] = 0;
    c->cuts[size] = count;
    for (int q = 1; q < size; q++) {
        uint64_t o = c->offsets[q];
        if (o == 0 || o >= n) {
            c->cuts[q] = o == 0 ? 0 : count;
            continue;
        }
        /* Of the keys equal to v_q, the first o - sums[q] in (rank, position) order go below q. */
        uint64_t need = o - sums[q], take = 0;
        if (need > equal_before[q]) take = need - equal_before[q] < equal[q] ? need - equal_before[q] : equal[q];
        c->cuts[q] = s[q].pa + take;
    }
    for (int q = 0; q < size; q++)
        if (c->cuts[q] > c->cuts[q + 1]) st = CLPERM_ERROR_INTERNAL;
    if (searched != CLPERM_SUCCESS) st = searched;
    st = clperm__dist_agree(d, st);
cleanup:
    clperm__dist_release(dev.queries);
    clperm__dist_release(dev.out);
    free(queries);
    free(s);
    free(sums);
    return st;
}

/* Steps 1 to 3. */
static clperm_status sort_agreed(sort_call *c) {
    clperm_status st = CLPERM_SUCCESS;
    clperm_dist *d = c->d;
    const clperm_dist_sort_request *r = c->req;
    uint64_t count = r->count;
    size_t kb = (size_t)count * c->key_bytes, vb = (size_t)count * c->value_bytes;
    if (r->n == 0) return CLPERM_SUCCESS;
    clperm__dist_sort_step block = {r->key_type, r->keys, r->value_type, r->values, count, 0};
    if (d->size == 1) {
        st = clperm__dist_sort_local(d, &block);
        if (st == CLPERM_SUCCESS) st = clFinish(d->queue);
        clperm__dist_phase_end(d, CLPERM__PHASE_LOCAL);
        return st;
    }
    /* 1: a sorted copy of the block. */
    cl_mem keys = NULL, values = NULL;
    st = clperm__dist_scratch(d, 0, kb, &keys);
    if (st == CLPERM_SUCCESS) st = clperm__dist_scratch(d, 1, vb, &values);
    if (st == CLPERM_SUCCESS && kb) st = clEnqueueCopyBuffer(d->queue, r->keys, keys, 0, 0, kb, 0, NULL, NULL);
    if (st == CLPERM_SUCCESS && vb) st = clEnqueueCopyBuffer(d->queue, r->values, values, 0, 0, vb, 0, NULL, NULL);
    clperm__dist_sort_step copy = {r->key_type, keys, r->value_type, values, count, 0};
    if (st == CLPERM_SUCCESS) st = clperm__dist_sort_local(d, &copy);
    if (st == CLPERM_SUCCESS) st = clFinish(d->queue);
    clperm__dist_phase_end(d, CLPERM__PHASE_LOCAL);
    /* 2 */
    st = clperm__dist_agree(d, st);
    if (st == CLPERM_SUCCESS) st = split(c, keys);
    for (int q = 0; st == CLPERM_SUCCESS && q < d->size; q++) c->sendcounts[q] = c->cuts[q + 1] - c->cuts[q];
    if (st == CLPERM_SUCCESS) st = clperm__dist_alltoall(d, c->sendcounts, c->recvcounts);
    uint64_t received = 0;
    for (int t = 0; st == CLPERM_SUCCESS && t < d->size; t++) received += c->recvcounts[t];
    clperm__dist_phase_end(d, CLPERM__PHASE_COLLECTIVE);
    if (st == CLPERM_SUCCESS) st = clperm__dist_agree(d, received == count ? CLPERM_SUCCESS : CLPERM_ERROR_INTERNAL);
    /* 3 */
    clperm__dist_exchange_spec x = {keys, 0, r->keys, 0, c->sendcounts, c->recvcounts, c->key_bytes};
    if (st == CLPERM_SUCCESS) st = clperm__dist_exchange(d, &x);
    clperm__dist_exchange_spec y = {values, 0, r->values, 0, c->sendcounts, c->recvcounts, c->value_bytes};
    if (st == CLPERM_SUCCESS && c->value_bytes) st = clperm__dist_exchange(d, &y);
    clperm__dist_phase_end(d, CLPERM__PHASE_EXCHANGE);
    if (st == CLPERM_SUCCESS) st = clperm__dist_sort_local(d, &block);
    if (st == CLPERM_SUCCESS) st = clFinish(d->queue);
    clperm__dist_phase_end(d, CLPERM__PHASE_LOCAL);
    return st;
}

static clperm_status local_checks(sort_call *c) {
    const clperm_dist_sort_request *r = c->req;
    CLPERM_RETURN_IF(!r, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(!key_supported(r->key_type), CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(r->value_type != 0 && r->value_type != CLPERM_TYPE_U32 && r->value_type != CLPERM_TYPE_U64,
                     CLPERM_ERROR_INVALID_TYPE);
    c->key_bytes = clperm_key_size(r->key_type);
    c->value_bytes = r->value_type ? clperm_type_size(r->value_type) : 0;
    CLPERM_RETURN_IF(r->count > SIZE_MAX / 8, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_TRY(clperm__dist_check_buffer(c->d, r->keys, r->count, c->key_bytes, 1));
    if (!c->value_bytes) return CLPERM_SUCCESS;
    CLPERM_TRY(clperm__dist_check_buffer(c->d, r->values, r->count, c->value_bytes, 1));
    if (!r->count) return CLPERM_SUCCESS;
    return clperm__buffer_overlap(r->keys, r->count * c->key_bytes, r->values, r->count * c->value_bytes, 0);
}

clperm_status clperm_dist_sort(clperm_dist *dist, const clperm_dist_sort_request *req) {
    CLPERM_TRY(clperm__dist_check(dist));
    clperm_dist *d = dist;
    clperm__dist_call_begin(d);
    sort_call c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.req = req;
    uint64_t *arrays = calloc((size_t)(d->size + 1) * 4, sizeof *arrays);
    clperm_status st = arrays ? local_checks(&c) : CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    clperm__dist_call call = {0, 0, {0, 0, 0, 0}};
    if (req) {
        call.count = req->count;
        call.n = req->n;
        call.same[0] = (uint64_t)req->key_type;
        call.same[1] = (uint64_t)req->value_type;
    }
    if (arrays) {
        c.offsets = arrays;
        c.cuts = arrays + d->size + 1;
        c.sendcounts = arrays + 2 * (d->size + 1);
        c.recvcounts = arrays + 3 * (d->size + 1);
    }
    st = clperm__dist_agree_call(d, st, &call, c.offsets);
    clperm__dist_phase_end(d, CLPERM__PHASE_COLLECTIVE);
    if (st == CLPERM_SUCCESS) st = clperm__dist_agree(d, sort_agreed(&c));
    free(arrays);
    clperm__dist_call_end(d);
    return st;
}
