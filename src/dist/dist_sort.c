/* The distributed sort (clperm_dist_sort): a sample sort whose splitters are exact.
 *
 * The order sorted by is (key, rank, position): keys by clperm.h's order, equal keys by their
 * global input position. Every element is distinct in it, so the global positions
 * [offset_q, offset_q+1) of rank q's output block are a set of elements known exactly, and each
 * rank can send rank q exactly those: no second exchange to rebalance the blocks.
 *
 *   1. Each rank sorts a copy of its block on its device (stably, clperm__dist_sort_local) and
 *      reads it to host memory.
 *   2. Splitting. For every rank q, the key v_q of the element at global position offset_q is
 *      found by bisection over the keys' order: each step every rank counts its keys <= the
 *      middle of every interval (a binary search in its sorted block, within the part the
 *      earlier steps left open) and one allreduce sums the counts. Then one allreduce gives the
 *      keys below v_q and one exclusive scan the keys equal to v_q on lower ranks: rank t sends
 *      rank q its keys below v_q and those of its keys equal to v_q that fall before position
 *      offset_q in (rank, position) order.
 *   3. Exchange: the counts (MPI_Alltoall), the keys and values (MPI_Alltoallv), into host
 *      memory and on to the caller's buffers, as sorted runs in source rank order; a stable
 *      sort of the block puts them together (a merge would do; the sort is what the device
 *      has).
 *
 * The steps of splitting are at most the key's width (32 or 64; fewer when the keys span a
 * narrow range: the bisection starts from the global minimum and maximum) allreduces of
 * size - 1 words. */
#include <stdlib.h>
#include <string.h>

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

/* The first t in [lo, hi) with order(keys[t]) > v: keys[lo - 1] <= v < keys[hi] already known. */
static uint64_t upper_bound(clperm_key_type type, const void *keys, uint64_t lo, uint64_t hi, uint64_t v) {
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (clperm__dist_key_order(type, keys, mid) <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The bisection's state for one target rank. */
typedef struct split_target {
    uint64_t lo, hi; /* v lies in [lo, hi]                      */
    uint64_t pa, pz; /* this rank's keys < lo, and <= hi         */
    uint64_t mine;   /* this rank's keys <= the middle this step */
} split_target;

/* Step 2: c->cuts[q], the first position of this rank's sorted block that goes to rank q or
 * beyond. */
static clperm_status split(sort_call *c, const void *keys) {
    clperm_status st = CLPERM_SUCCESS;
    clperm_dist *d = c->d;
    clperm_key_type type = c->req->key_type;
    int size = d->size;
    uint64_t count = c->req->count, n = c->req->n;
    split_target *s = calloc((size_t)size, sizeof *s);
    uint64_t *sums = calloc(3 * (size_t)size, sizeof *sums), *equal = sums + size, *equal_before = equal + size;
    if (!s || !sums) st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    CLPERM_CHECK(clperm__dist_agree(d, st));
    /* The global range of the keys: the minimum, and the maximum as the minimum of its complement. */
    uint64_t range[2] = {UINT64_MAX, UINT64_MAX};
    if (count) {
        range[0] = clperm__dist_key_order(type, keys, 0);
        range[1] = ~clperm__dist_key_order(type, keys, count - 1);
    }
    CLPERM_CHECK(clperm__dist_allreduce(d, range, 2, MPI_MIN));
    for (int q = 0; q < size; q++) {
        s[q].lo = range[0];
        s[q].hi = ~range[1];
        s[q].pz = count;
    }
    /* Rank q's block starts at an element when 0 < offset_q < n; the bisection finds its key,
     * the smallest v with at least offset_q + 1 keys <= v. Every rank runs the same steps. */
    for (;;) {
        int open = 0;
        for (int q = 1; q < size; q++) {
            split_target *t = &s[q];
            sums[q] = t->mine = 0;
            if (c->offsets[q] == 0 || c->offsets[q] >= n || t->lo == t->hi) continue;
            open = 1;
            sums[q] = t->mine = upper_bound(type, keys, t->pa, t->pz, t->lo + (t->hi - t->lo) / 2);
        }
        if (!open) break;
        CLPERM_CHECK(clperm__dist_allreduce(d, sums + 1, size - 1, MPI_SUM));
        for (int q = 1; q < size; q++) {
            split_target *t = &s[q];
            if (c->offsets[q] == 0 || c->offsets[q] >= n || t->lo == t->hi) continue;
            uint64_t mid = t->lo + (t->hi - t->lo) / 2;
            if (sums[q] >= c->offsets[q] + 1) {
                t->hi = mid;
                t->pz = t->mine;
            } else {
                t->lo = mid + 1;
                t->pa = t->mine;
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
    st = clperm__dist_agree(d, st);
cleanup:
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
    /* 1: a sorted copy of the block, in host memory. */
    void *send_keys = NULL, *recv_keys = NULL, *send_values = NULL, *recv_values = NULL;
    cl_mem keys = NULL, values = NULL;
    st = clperm__dist_buffer(d, kb, &keys);
    if (st == CLPERM_SUCCESS) st = clperm__dist_buffer(d, vb, &values);
    if (st == CLPERM_SUCCESS && kb) st = clEnqueueCopyBuffer(d->queue, r->keys, keys, 0, 0, kb, 0, NULL, NULL);
    if (st == CLPERM_SUCCESS && vb) st = clEnqueueCopyBuffer(d->queue, r->values, values, 0, 0, vb, 0, NULL, NULL);
    clperm__dist_sort_step copy = {r->key_type, keys, r->value_type, values, count, 0};
    if (st == CLPERM_SUCCESS) st = clperm__dist_sort_local(d, &copy);
    if (st == CLPERM_SUCCESS) st = clFinish(d->queue);
    clperm__dist_phase_end(d, CLPERM__PHASE_LOCAL);
    if (st == CLPERM_SUCCESS) st = clperm__dist_stage(d, 0, kb, &send_keys);
    if (st == CLPERM_SUCCESS) st = clperm__dist_stage(d, 1, kb, &recv_keys);
    if (st == CLPERM_SUCCESS) st = clperm__dist_stage(d, 2, vb, &send_values);
    if (st == CLPERM_SUCCESS) st = clperm__dist_stage(d, 3, vb, &recv_values);
    if (st == CLPERM_SUCCESS) st = clperm__dist_read(d, keys, 0, kb, send_keys);
    if (st == CLPERM_SUCCESS) st = clperm__dist_read(d, values, 0, vb, send_values);
    clperm__dist_release(keys);
    clperm__dist_release(values);
    clperm__dist_phase_end(d, CLPERM__PHASE_STAGE);
    /* 2 */
    CLPERM_TRY(clperm__dist_agree(d, st));
    CLPERM_TRY(split(c, send_keys));
    for (int q = 0; q < d->size; q++) c->sendcounts[q] = c->cuts[q + 1] - c->cuts[q];
    CLPERM_TRY(clperm__dist_alltoall(d, c->sendcounts, c->recvcounts));
    uint64_t received = 0;
    for (int t = 0; t < d->size; t++) received += c->recvcounts[t];
    clperm__dist_phase_end(d, CLPERM__PHASE_COLLECTIVE);
    CLPERM_TRY(clperm__dist_agree(d, received == count ? CLPERM_SUCCESS : CLPERM_ERROR_INTERNAL));
    /* 3 */
    CLPERM_TRY(clperm__dist_alltoallv(d, send_keys, c->sendcounts, recv_keys, c->recvcounts, c->key_bytes));
    if (c->value_bytes)
        CLPERM_TRY(clperm__dist_alltoallv(d, send_values, c->sendcounts, recv_values, c->recvcounts, c->value_bytes));
    clperm__dist_phase_end(d, CLPERM__PHASE_EXCHANGE);
    st = clperm__dist_write(d, r->keys, 0, kb, recv_keys);
    if (st == CLPERM_SUCCESS) st = clperm__dist_write(d, r->values, 0, vb, recv_values);
    clperm__dist_phase_end(d, CLPERM__PHASE_STAGE);
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
    CLPERM_RETURN_IF(r->count && r->values == r->keys, CLPERM_ERROR_INVALID_ARGUMENT);
    return clperm__dist_check_buffer(c->d, r->values, r->count, c->value_bytes, 1);
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
