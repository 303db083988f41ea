/* clperm_sort: the request's checks, the temp buffers, and the bank-conflict report of the tile
 * ranking. The passes are in radix.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_internal.h"

/* Two buffers the sort writes must be distinct: the same buffer is an invalid argument, two that
 * share memory (sub-buffers) overlap. NULL ones are skipped. */
static clperm_status distinct(cl_mem a, uint64_t a_bytes, cl_mem b, uint64_t b_bytes) {
    if (!a || !b) return CLPERM_SUCCESS;
    CLPERM_RETURN_IF(a == b, CLPERM_ERROR_INVALID_ARGUMENT);
    return clperm__check_overlap(a, a_bytes, b, b_bytes, 0);
}

clperm_status clperm__sort_check_request(const clperm_ctx *ctx, const clperm_sort_request *req, int in_place,
                                         clperm__radix_job *job) {
    CLPERM_RETURN_IF(!req, CLPERM_ERROR_INVALID_ARGUMENT);
    memset(job, 0, sizeof *job);
    CLPERM_TRY(clperm__sort_check_order(req->key_type, &req->order, &job->bits));
    CLPERM_RETURN_IF(req->value_type != 0 && req->value_type != CLPERM_TYPE_U32 && req->value_type != CLPERM_TYPE_U64,
                     CLPERM_ERROR_INVALID_TYPE);
    size_t ks = clperm_key_size(req->key_type), vs = clperm__sort_value_size(req->value_type);
    CLPERM_RETURN_IF(req->n > (uint64_t)SIZE_MAX / 8, CLPERM_ERROR_SIZE_OVERFLOW);
    CLPERM_RETURN_IF(!vs && req->values != NULL, CLPERM_ERROR_INVALID_ARGUMENT);
    /* keys, values, temp keys, temp values: each given one holds n items and is not the others. */
    cl_mem bufs[4] = {req->keys, vs ? req->values : NULL, req->temp_keys, vs ? req->temp_values : NULL};
    uint64_t bytes[4] = {req->n * ks, req->n * vs, req->n * ks, req->n * vs};
    for (int i = 0; i < 4; i++) {
        if ((i & 1 && !vs) || (i >= 2 && !bufs[i])) continue; /* no values; no temp given */
        CLPERM_TRY(clperm__check_buffer(ctx, bufs[i], req->n, i & 1 ? vs : ks, in_place || i >= 2));
        for (int j = 0; j < i; j++) CLPERM_TRY(distinct(bufs[j], bytes[j], bufs[i], bytes[i]));
    }
    job->key_type = req->key_type;
    job->value_bytes = vs;
    job->keys = req->keys;
    job->values = vs ? req->values : NULL;
    job->temp_keys = req->temp_keys;
    job->temp_values = vs ? req->temp_values : NULL;
    job->n = req->n;
    /* Positions as values: a value type that holds them. */
    CLPERM_RETURN_IF(req->argsort && (!vs || (vs == 4 && req->n > (UINT64_C(1) << 32))), CLPERM_ERROR_INVALID_ARGUMENT);
    job->argsort = req->argsort != 0;
    return CLPERM_SUCCESS;
}

clperm_status clperm__sort_temps(clperm_ctx *ctx, clperm__radix_job *job, uint64_t n, cl_mem *own_keys,
                                 cl_mem *own_values) {
    size_t ks = clperm_key_size(job->key_type), vs = job->value_bytes;
    cl_int err = CL_SUCCESS;
    *own_keys = *own_values = NULL;
    if (!job->temp_keys) {
        *own_keys = clperm__buffer_create(ctx, (size_t)n * ks, 0, &err);
        CLPERM_TRY(err);
        job->temp_keys = *own_keys;
        ctx->counters[CLPERM_COUNTER_TEMP_BYTES] += n * ks;
    }
    if (vs && !job->temp_values) {
        *own_values = clperm__buffer_create(ctx, (size_t)n * vs, 0, &err);
        CLPERM_TRY(err);
        job->temp_values = *own_values;
        ctx->counters[CLPERM_COUNTER_TEMP_BYTES] += n * vs;
    }
    return CLPERM_SUCCESS;
}

/* clperm_sort_into's destinations: out_values where the request has values and only then, each
 * holding n items and writable, none the same as or sharing memory with another buffer of the
 * request or the other. */
static clperm_status check_into(const clperm_ctx *ctx, const clperm_sort_request *req, const clperm__radix_job *job,
                                cl_mem out_keys, cl_mem out_values) {
    size_t ks = clperm_key_size(job->key_type), vs = job->value_bytes;
    uint64_t n = req->n;
    CLPERM_RETURN_IF(!out_keys || (vs != 0) != (out_values != NULL), CLPERM_ERROR_INVALID_ARGUMENT);
    cl_mem theirs[4] = {req->keys, vs ? req->values : NULL, req->temp_keys, vs ? req->temp_values : NULL};
    size_t their_size[4] = {ks, vs, ks, vs};
    cl_mem mine[2] = {out_keys, out_values};
    size_t my_size[2] = {ks, vs};
    for (int i = 0; i < 2 && mine[i]; i++) {
        CLPERM_TRY(clperm__check_buffer(ctx, mine[i], n, my_size[i], 1));
        for (int j = 0; j < 4; j++) CLPERM_TRY(distinct(theirs[j], n * their_size[j], mine[i], n * my_size[i]));
    }
    return distinct(out_keys, n * ks, out_values, n * vs);
}

/* A job with out_keys becomes one in place on its outputs, the input copied there first (its
 * values too, unless argsort makes them): for kernels that sort in place only, and for 0 or 1
 * keys. The copies wait for the events, which are then used. */
static clperm_status copy_out(clperm_ctx *ctx, clperm__radix_job *job, cl_uint *num_events, const cl_event **events) {
    size_t ks = clperm_key_size(job->key_type), vs = job->value_bytes;
    if (job->n) {
        CLPERM_TRY(clEnqueueCopyBuffer(ctx->queue, job->keys, job->out_keys, 0, 0, (size_t)job->n * ks, *num_events,
                                       *events, NULL));
        *num_events = 0, *events = NULL;
        if (vs && !job->argsort)
            CLPERM_TRY(clEnqueueCopyBuffer(ctx->queue, job->values, job->out_values, 0, 0, (size_t)job->n * vs, 0,
                                           NULL, NULL));
    }
    job->keys = job->out_keys;
    job->values = job->out_values;
    job->out_keys = job->out_values = NULL;
    return CLPERM_SUCCESS;
}

/* 0 or 1 keys in place: nothing to move; with argsort the one key's position, 0. */
static clperm_status sort_trivial(clperm_ctx *ctx, const clperm__radix_job *job, cl_uint num_events,
                                  const cl_event *events, cl_event *event) {
    if (job->n == 0 || !job->argsort) return clperm__empty_call(ctx, num_events, events, event);
    const cl_ulong zero = 0;
    return clEnqueueFillBuffer(ctx->queue, job->values, &zero, job->value_bytes, 0, job->value_bytes, num_events,
                               events, event);
}

/* Sorts as the job says, into its out_keys and out_values where they are given. */
static clperm_status sort_job(clperm_ctx *ctx, clperm__radix_job *job, cl_uint num_events, const cl_event *events,
                              cl_event *event) {
    clperm__radix_plan plan;
    CLPERM_TRY(clperm__check_events(ctx, num_events, events));
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = 0;
    if (clperm__count_takes(ctx, job)) {
        /* By default a device the counting sort cannot take (CLPERM_ERROR_UNSUPPORTED, before
         * anything is enqueued) takes the radix sort. */
        if (job->n <= 1) {
            if (job->out_keys) CLPERM_TRY(copy_out(ctx, job, &num_events, &events));
            return sort_trivial(ctx, job, num_events, events, event);
        }
        clperm_status st = clperm__count_run(ctx, job, num_events, events, event);
        if (st != CLPERM_ERROR_UNSUPPORTED || ctx->params[CLPERM_PARAM_SORT_ALGORITHM] == CLPERM__SORT_COUNTING)
            return st;
    }
    CLPERM_TRY(clperm__radix_plan_job(ctx, job, 0, 1, &plan));
    if (job->out_keys && (job->n <= 1 || !clperm__radix_takes_into(&plan, job)))
        CLPERM_TRY(copy_out(ctx, job, &num_events, &events));
    if (job->n <= 1) return sort_trivial(ctx, job, num_events, events, event);
    cl_mem own_keys = NULL, own_values = NULL;
    uint64_t temp_bytes = 0;
    clperm_status st = clperm__sort_temps(ctx, job, job->n, &own_keys, &own_values);
    temp_bytes = ctx->counters[CLPERM_COUNTER_TEMP_BYTES];
    if (st == CLPERM_SUCCESS) st = clperm__radix_run(ctx, &plan, job, NULL, 0, num_events, events, event);
    /* Released now, freed by OpenCL once the commands that use them are done. */
    if (own_keys) clReleaseMemObject(own_keys);
    if (own_values) clReleaseMemObject(own_values);
    ctx->counters[CLPERM_COUNTER_TEMP_BYTES] = temp_bytes;
    return st;
}

static clperm_status sort_checked(clperm_ctx *ctx, const clperm_sort_request *req, cl_uint num_events,
                                  const cl_event *events, cl_event *event) {
    clperm__radix_job job;
    CLPERM_TRY(clperm__sort_check_request(ctx, req, 1, &job));
    return sort_job(ctx, &job, num_events, events, event);
}

clperm_status clperm_sort(clperm_ctx *ctx, const clperm_sort_request *req, cl_uint num_events, const cl_event *events,
                          cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = sort_checked(ctx, req, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

static clperm_status sort_into_checked(clperm_ctx *ctx, const clperm_sort_request *req, cl_mem out_keys,
                                       cl_mem out_values, cl_uint num_events, const cl_event *events,
                                       cl_event *event) {
    CLPERM_RETURN_IF(!req, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm__radix_job job;
    clperm_sort_request r = *req;
    /* Argsort reads no values: without a buffer of them, the request is checked with out_values
     * in their place (and out_values against the request as it came). */
    if (r.argsort && !r.values) r.values = out_values;
    CLPERM_TRY(clperm__sort_check_request(ctx, &r, 0, &job));
    CLPERM_TRY(check_into(ctx, req, &job, out_keys, out_values));
    job.out_keys = out_keys;
    job.out_values = out_values;
    return sort_job(ctx, &job, num_events, events, event);
}

clperm_status clperm_sort_into(clperm_ctx *ctx, const clperm_sort_request *req, cl_mem out_keys, cl_mem out_values,
                               cl_uint num_events, const cl_event *events, cl_event *event) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = sort_into_checked(ctx, req, out_keys, out_values, num_events, events, event);
    clperm__ctx_leave(ctx);
    return st;
}

/* ---- the bank-conflict report ---- */

static clperm_status rank_conflicts_checked(clperm_ctx *ctx, const uint32_t *keys, uint64_t n,
                                            clperm_conflict_report *out) {
    CLPERM_RETURN_IF(!keys || !out || n == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm__radix_job job;
    memset(&job, 0, sizeof job);
    job.key_type = CLPERM_KEY_U32;
    job.n = n;
    CLPERM_TRY(clperm__sort_check_order(CLPERM_KEY_U32, NULL, &job.bits));
    clperm__radix_plan plan;
    CLPERM_TRY(clperm__radix_plan_job(ctx, &job, 1, 0, &plan));
    const uint32_t banks = 32;
    size_t r = (size_t)1 << plan.digit_bits;
    /* Steps per work-item, at most: zeroing the counters (at most one subgroup per work-item),
     * two per round, prefixing the counters, two per rank, three for the exchange. */
    cl_uint cap = (cl_uint)(8 * plan.items + r + 2 * (r / plan.wg + 1) * (plan.wg + 1) + 64);
    uint64_t items = plan.tiles * plan.wg, words = items * ((uint64_t)cap + 1);
    CLPERM_RETURN_IF(n > SIZE_MAX / 4 || words > SIZE_MAX / 4 || plan.wg % banks, CLPERM_ERROR_SIZE_OVERFLOW);
    clperm_status st;
    cl_int err = CL_SUCCESS;
    cl_mem dt = NULL;
    cl_uint *rec = malloc((size_t)words * 4);
    CLPERM_CHECK(rec ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    job.keys = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (size_t)n * 4, (void *)keys,
                              &err);
    CLPERM_CHECK(err);
    job.temp_keys = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)n * 4, NULL, &err);
    CLPERM_CHECK(err);
    dt = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)words * 4, NULL, &err);
    CLPERM_CHECK(err);
    CLPERM_CHECK(clperm__radix_run(ctx, &plan, &job, dt, cap, 0, NULL, NULL));
    CLPERM_CHECK(clEnqueueReadBuffer(ctx->queue, dt, CL_TRUE, 0, (size_t)words * 4, rec, 0, NULL, NULL));
    CLPERM_CHECK(clperm__trace_count(rec, items / banks, banks, cap, out));
    out->shape.w = banks;
    out->shape.m = plan.items;
    out->shape.tiles_per_group = (uint32_t)(plan.wg / banks);
    out->shape.local_bytes = plan.local_bytes;
    out->shape.tiles_per_cu = (uint32_t)(ctx->profile.local_mem_bytes / plan.local_bytes);
cleanup:
    if (st != CLPERM_SUCCESS) clFinish(ctx->queue);
    if (job.keys) clReleaseMemObject(job.keys);
    if (job.temp_keys) clReleaseMemObject(job.temp_keys);
    if (dt) clReleaseMemObject(dt);
    free(rec);
    return st;
}

clperm_status clperm_sort_rank_conflicts(clperm_ctx *ctx, const uint32_t *keys, uint64_t n,
                                         clperm_conflict_report *out) {
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm_status st = rank_conflicts_checked(ctx, keys, n, out);
    clperm__ctx_leave(ctx);
    return st;
}
