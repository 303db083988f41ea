/* Internal declarations of the device-wide and segmented sorts (src/sort). Not installed. */
#ifndef CLPERM_SORT_INTERNAL_H
#define CLPERM_SORT_INTERNAL_H

#include "../tile/tile.h"
#include "../../cl/sort/sort_key.h"

/* The bits a sort orders by: [lo, hi) of the order-preserving form of keys of `width` bits. */
typedef struct clperm__sort_bits {
    unsigned width, lo, hi;
    int descending;
    uint64_t pos_xor, neg_xor; /* CLPERM_KEY_ORDER's masks */
} clperm__sort_bits;

/* Checks the order for keys of `type` and fills *out. */
clperm_status clperm__sort_check_order(clperm_key_type type, const clperm_sort_order *order, clperm__sort_bits *out);
/* Bytes per value: 0 for value_type 0 (keys only), else clperm_type_size. */
size_t clperm__sort_value_size(clperm_type value_type);

/* One device-wide sort: keys (and values) [off, off + n) of the buffers, through temp buffers of
 * as many keys (and values) at the same offset. */
typedef struct clperm__radix_job {
    clperm_key_type key_type;
    size_t value_bytes; /* 0, 4 or 8 */
    cl_mem keys, values, temp_keys, temp_values;
    /* clperm_sort_into: where the sorted keys and values go (NULL: in place); keys and values are
     * then only read */
    cl_mem out_keys, out_values;
    uint64_t off, n;
    clperm__sort_bits bits;
    int argsort; /* the values are written, not read: each key's position goes with it */
    int labels;  /* the bucket shuffle's partition: keys are drawn as labels (radix_types.h), none
                  * read or written, bits.pos_xor and neg_xor carry the labels' key; the values
                  * stay in the temp buffers */
    int segments; /* for clperm_radix_segments (a segment a work-group): values, where it has
                   * any, go through local memory beside the keys (CLPERM_SORT_JOINT) */
    int segmented; /* a job of the segmented sort, whose serial kernels walk whole segments */
} clperm__radix_job;

/* How it runs on the context's device. */
typedef struct clperm__radix_plan {
    int algorithm;       /* 1 reduce-then-scan, 2 Onesweep */
    int skip;            /* Onesweep skips the passes after the last digit that varies */
    int serial;          /* serial kernels (one work-item per block) */
    int rank;            /* work-group kernels: CLPERM_PARAM_SORT_RANK's value */
    int joint;           /* values go through local memory beside the keys (radix.cl) */
    unsigned digit_bits; /* bits per digit */
    unsigned passes;
    size_t wg;           /* work-items per work-group (1 for serial kernels) */
    unsigned items;      /* work-group kernels: keys per work-item */
    int regs;            /* NVIDIA: registers per work-item (-cl-nv-maxrregcount); 0: no cap */
    uint64_t tile;       /* keys per tile (block, for serial kernels) */
    uint64_t tiles;
    uint64_t sub;        /* rank 3: keys per partitioned sub-segment */
    int count64;         /* reduce-then-scan counts in u64 */
    int trace;
    size_t local_bytes;  /* local memory of the pass kernel */
    char options[512];
} clperm__radix_plan;

/* CLPERM_PARAM_SORT_ALGORITHM's counting sort (count.c): keys of 8 or 16 bits alone, ordered by
 * every bit. Other jobs take the device's radix sort under it. */
#define CLPERM__SORT_COUNTING 3
/* Whether the counting sort runs job (the parameter auto or CLPERM__SORT_COUNTING). */
int clperm__count_takes(const clperm_ctx *ctx, const clperm__radix_job *job);
/* Enqueues it: the first command waits for the events, the last returns *event. */
clperm_status clperm__count_run(clperm_ctx *ctx, const clperm__radix_job *job, cl_uint num_events,
                                const cl_event *events, cl_event *event);

/* Checks req (buffers, types, order) and fills *job from it; in_place 0: keys and values are
 * only read (clperm_sort_into), and may be read-only. */
clperm_status clperm__sort_check_request(const clperm_ctx *ctx, const clperm_sort_request *req, int in_place,
                                         clperm__radix_job *job);
/* Allocates the temp buffers of n items that job lacks (counted in CLPERM_COUNTER_TEMP_BYTES);
 * the caller releases *own_keys and *own_values (NULL when not allocated). */
clperm_status clperm__sort_temps(clperm_ctx *ctx, clperm__radix_job *job, uint64_t n, cl_mem *own_keys,
                                 cl_mem *own_values);

/* Gets the kernels the plan runs, enqueuing nothing (a refusal then comes before any write). */
clperm_status clperm__radix_prepare(clperm_ctx *ctx, const clperm__radix_plan *plan);

/* Plans job; presorted ranking (rank 3) only when allow_presorted (it partitions the buffers from
 * their start). CLPERM_ERROR_UNSUPPORTED for parameters the device cannot run. */
clperm_status clperm__radix_plan_job(const clperm_ctx *ctx, const clperm__radix_job *job, int trace, int allow_presorted,
                                 clperm__radix_plan *plan);
/* Kernel `name` of the plan's program (radix.cl or radix_serial.cl). */
clperm_status clperm__radix_kernel(clperm_ctx *ctx, const clperm__radix_plan *plan, const char *name, cl_kernel *out);
/* 1 when clperm__radix_run takes a job with out_keys as planned: not the tile partitions' ranking,
 * which reorders each pass's input in place, nor labels or a trace. */
int clperm__radix_takes_into(const clperm__radix_plan *plan, const clperm__radix_job *job);
/* Enqueues the sort: the first command waits for the events, the last returns *event. The result
 * lands in the job's keys and values (out_keys and out_values where given). A trace build
 * (plan->trace) runs the first pass only, into the temp buffers, recording into `trace` (cap words
 * per work-item, after a count). */
clperm_status clperm__radix_run(clperm_ctx *ctx, const clperm__radix_plan *plan, const clperm__radix_job *job,
                                cl_mem trace, cl_uint trace_cap, cl_uint num_events, const cl_event *events,
                                cl_event *event);

/* After clperm__radix_run of a label job: where bucket d starts is word d * *stride of *buf, u64
 * words where *wide, else u32 (Onesweep's digit starts, or the reduce-then-scan's scanned
 * counts). */
void clperm__radix_label_starts(const clperm_ctx *ctx, const clperm__radix_plan *plan, cl_mem *buf, uint64_t *stride,
                                int *wide);

#endif
