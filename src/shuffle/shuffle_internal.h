/* What the shuffle's files share (src/shuffle). Not installed. */
#ifndef CLPERM_SHUFFLE_INTERNAL_H
#define CLPERM_SHUFFLE_INTERNAL_H

#include "internal.h"

/* The OpenCL C type of a word of `bytes` (1, 2, 4, 8; 16 for anything else) that items move in. */
const char *clperm__shuffle_word_type(size_t bytes);

/* The bucket shuffle (buckets.c), arguments checked, opts filled in: dst[j] = src[perm[j]] for
 * items of elem_size bytes, or with perm_type (U32 or U64) dst[j] = perm[j] (src unused);
 * src == dst shuffles in place. */
clperm_status clperm__buckets_run(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n, size_t elem_size,
                                  clperm_type perm_type, uint64_t seed, const clperm_shuffle_opts *opts,
                                  cl_uint num_events, const cl_event *events, cl_event *event);
/* The same on the host: dst and src apart; perm_type as above. */
clperm_status clperm__buckets_host(const void *src, void *dst, uint64_t n, size_t elem_size, clperm_type perm_type,
                                   uint64_t seed, const clperm_shuffle_opts *opts);

#endif
