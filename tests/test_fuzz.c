/* Fuzzed input: every public function called with random combinations of good and bad arguments
 * (NULL and freed handles, buffers of another context, read-only buffers, sub-buffers, buffers
 * that overlap, sizes 0, 1, near and past 2^32 and 2^64 / item size, bad enum and parameter values,
 * inconsistent event lists). No call may crash, and whenever a call fails, every buffer it could
 * see comes back as it was (they are filled with a canary pattern, and refilled after a call that
 * succeeds).
 *
 * CLPERM_FUZZ_CALLS sets the number of calls (default 3000, a fixed seed: the CI run);
 * CLPERM_TEST_SEED replays another sequence; CLPERM_FUZZ_ONLY=NAME calls one family only (scan,
 * shuffle, tiles, rng, host, sort, permute), and CLPERM_FUZZ_LOG=1 prints every call first. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define ITEMS 4096 /* u64 items of the ordinary buffers */
#define BYTES (ITEMS * 8)
#define CANARY 0x3c

/* ---- the pools the arguments are drawn from ---- */

enum { B_GOOD, B_GOOD2, B_SUB_A, B_SUB_B, B_READ_ONLY, B_OTHER_CONTEXT, B_TINY, B_COUNT };

typedef struct pools {
    clperm_ctx *ctx, *other; /* `other`: a second context, whose buffers are foreign to ctx */
    clperm_ctx *freed;       /* a context that was freed: its handle must be refused        */
    cl_mem parent;           /* the sub-buffers' parent                                     */
    cl_mem buf[B_COUNT];
    size_t bytes[B_COUNT];
    cl_mem checked[B_COUNT + 1]; /* the buffers compared after each failed call (with parent) */
    size_t checked_bytes[B_COUNT + 1];
    clperm_ctx *checked_owner[B_COUNT + 1];
    int nchecked;
    cl_event marker; /* a complete event, for wait lists */
    uint64_t rng;
} pools;

static uint64_t next(pools *p) {
    p->rng += 0x9e3779b97f4a7c15ull;
    uint64_t z = p->rng;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t pick(pools *p, uint64_t n) { return next(p) % n; }

static clperm_ctx *any_ctx(pools *p) {
    switch (pick(p, 8)) {
    case 0: return NULL;
    case 1: return p->freed;
    default: return p->ctx;
    }
}

/* CLPERM_FUZZ_LOG=1: every call, buffer and release is printed first. */
static int fuzz_log(void) {
    const char *v = getenv("CLPERM_FUZZ_LOG");
    return v && !strcmp(v, "1");
}

static cl_mem any_buffer(pools *p) {
    uint64_t r = pick(p, B_COUNT + 2);
    if (fuzz_log()) fprintf(stderr, "  buffer %d\n", (int)r);
    if (r == B_COUNT) return NULL;
    if (r == B_COUNT + 1) return p->buf[B_GOOD];
    return p->buf[r];
}

/* Item counts: mostly small and valid, sometimes awkward or absurd. */
static uint64_t any_count(pools *p, size_t item) {
    static const uint64_t edges[] = {0,
                                     1,
                                     2,
                                     3,
                                     31,
                                     33,
                                     257,
                                     1000,
                                     ITEMS,
                                     ITEMS + 1,
                                     UINT64_C(1) << 31,
                                     (UINT64_C(1) << 32) - 1,
                                     UINT64_C(1) << 32,
                                     (UINT64_C(1) << 32) + 1,
                                     UINT64_C(1) << 62,
                                     UINT64_MAX};
    uint64_t r = pick(p, 4);
    if (r == 0) return edges[pick(p, sizeof edges / sizeof edges[0])];
    if (r == 1 && item) return UINT64_MAX / item + pick(p, 3) - 1;
    return pick(p, 600);
}

/* An enum or parameter value: usually `def` (so that the calls that pass their checks share a few
 * programs, which keeps the builds few), else any value of [lo, hi] or one outside it. */
static int any_enum(pools *p, int def, int lo, int hi) {
    switch (pick(p, 10)) {
    case 0: return -1;
    case 1: return lo - 1;
    case 2: return hi + 1 + (int)pick(p, 1000);
    case 3:
    case 4: return lo + (int)pick(p, (uint64_t)(hi - lo + 1));
    default: return def;
    }
}

/* A wait list: mostly empty, sometimes the marker, sometimes inconsistent. */
typedef struct wait_list {
    cl_uint n;
    const cl_event *events;
    cl_event array[2];
} wait_list;

static void any_wait(pools *p, wait_list *w) {
    w->array[0] = p->marker;
    w->array[1] = NULL;
    switch (pick(p, 8)) {
    case 0: w->n = 1, w->events = NULL; break;          /* a count without a list */
    case 1: w->n = 0, w->events = w->array; break;       /* a list without a count */
    case 2: w->n = 2, w->events = w->array; break;       /* a NULL event in it     */
    case 3: w->n = 1, w->events = w->array; break;
    default: w->n = 0, w->events = NULL; break;
    }
}

static void fill_canaries(pools *p) {
    for (int i = 0; i < p->nchecked; i++) {
        unsigned char c = CANARY;
        cr_assert_eq(clEnqueueFillBuffer(clperm_ctx_cl_queue(p->checked_owner[i]), p->checked[i], &c, 1, 0,
                                         p->checked_bytes[i], 0, NULL, NULL),
                     CL_SUCCESS);
    }
    cr_assert_eq(clFinish(clperm_ctx_cl_queue(p->ctx)), CL_SUCCESS);
    cr_assert_eq(clFinish(clperm_ctx_cl_queue(p->other)), CL_SUCCESS);
}

static void expect_canaries(pools *p, const char *call, uint64_t index) {
    cr_assert_eq(clFinish(clperm_ctx_cl_queue(p->ctx)), CL_SUCCESS);
    for (int i = 0; i < p->nchecked; i++) {
        clperm_ctx *owner = p->checked_owner[i];
        unsigned char *got = malloc(p->checked_bytes[i]);
        cr_assert(got);
        cr_assert_eq(test_read(owner, p->checked[i], p->checked_bytes[i], got), 0);
        for (size_t b = 0; b < p->checked_bytes[i]; b++)
            cr_assert_eq(got[b], CANARY, "call %llu, %s, failed but changed byte %zu of buffer %d",
                         (unsigned long long)index, call, b, i);
        free(got);
    }
}

/* ---- the calls ---- */

typedef clperm_status (*fuzz_fn)(pools *p, char *what, size_t cap);

static clperm_status f_scan(pools *p, char *what, size_t cap) {
    wait_list w;
    any_wait(p, &w);
    clperm_type t = (clperm_type)any_enum(p, CLPERM_TYPE_U32, 1, 2);
    cl_mem a = any_buffer(p), b = pick(p, 4) ? any_buffer(p) : a;
    uint64_t n = any_count(p, 8);
    snprintf(what, cap, "scan type %d n %llu", (int)t, (unsigned long long)n);
    switch (pick(p, 3)) {
    case 0: return clperm_scan_exclusive(any_ctx(p), t, a, b, n, w.n, w.events, NULL);
    case 1: return clperm_scan_inclusive(any_ctx(p), t, a, b, n, w.n, w.events, NULL);
    default: return clperm_reduce_sum(any_ctx(p), t, a, n, b, w.n, w.events, NULL);
    }
}

static clperm_status f_shuffle(pools *p, char *what, size_t cap) {
    wait_list w;
    any_wait(p, &w);
    clperm_shuffle_opts o = {(clperm_bijection)any_enum(p, CLPERM_BIJECTION_FEISTEL, 1, 3), any_enum(p, 0, 1, 64), 0};
    const clperm_shuffle_opts *opts = pick(p, 3) ? &o : NULL;
    size_t es = pick(p, 3) ? 8 : (size_t)pick(p, 70);
    uint64_t n = any_count(p, es);
    cl_mem a = any_buffer(p), b = pick(p, 5) ? any_buffer(p) : a;
    snprintf(what, cap, "shuffle n %llu elem %zu", (unsigned long long)n, es);
    switch (pick(p, 3)) {
    case 0: return clperm_shuffle(any_ctx(p), a, b, n, es, next(p), opts, w.n, w.events, NULL);
    case 1: return clperm_shuffle_inplace(any_ctx(p), a, n, es, next(p), opts, w.n, w.events, NULL);
    default: return clperm_permutation(any_ctx(p), (clperm_type)any_enum(p, CLPERM_TYPE_U32, 1, 2), a, n, next(p), opts, w.n, w.events,
                                       NULL);
    }
}

static clperm_status f_tiles(pools *p, char *what, size_t cap) {
    wait_list w;
    any_wait(p, &w);
    clperm_key_type t = (clperm_key_type)any_enum(p, CLPERM_KEY_U32, 1, CLPERM_KEYKIND_LAST);
    clperm_tile_sort a = (clperm_tile_sort)any_enum(p, CLPERM_TILE_SORT_AUTO, 0, 6);
    static const uint64_t segments[] = {0, 1, 2, 5, 64, 100, 256, 4096, UINT64_C(1) << 40};
    uint64_t n = any_count(p, 8), seg = pick(p, 3) ? 256 : segments[pick(p, sizeof segments / sizeof segments[0])];
    cl_mem k = any_buffer(p), v = pick(p, 2) ? NULL : (pick(p, 6) ? any_buffer(p) : k);
    unsigned shift = pick(p, 3) ? 0 : (unsigned)pick(p, 70), bits = pick(p, 3) ? 3 : (unsigned)pick(p, 10);
    snprintf(what, cap, "tile op type %d algorithm %d n %llu segment %llu", (int)t, (int)a, (unsigned long long)n,
             (unsigned long long)seg);
    switch (pick(p, 3)) {
    case 0: return clperm_sort_segments(any_ctx(p), t, k, v, n, seg, a, w.n, w.events, NULL);
    case 1: return clperm_partition_segments(any_ctx(p), t, k, v, n, seg, shift, bits, a, w.n, w.events, NULL);
    default:
        return clperm_transpose_tiles(any_ctx(p), (clperm_type)any_enum(p, CLPERM_TYPE_U32, 1, 2), k, v, pick(p, 4) ? pick(p, 5) : n,
                                      pick(p, 3) ? 16u : (uint32_t)pick(p, 70), pick(p, 3) ? 16u : (uint32_t)pick(p, 70), w.n, w.events, NULL);
    }
}

static clperm_status f_rng(pools *p, char *what, size_t cap) {
    wait_list w;
    any_wait(p, &w);
    clperm_rng_spec s = {(clperm_rng_family)any_enum(p, CLPERM_RNG_FAMILY_THREE, 0, 5), (uint32_t)(pick(p, 3) ? 32 : pick(p, 100)),
                         (clperm_rng_scramble)any_enum(p, CLPERM_RNG_SCRAMBLE_NONE, 0, 1)};
    clperm_rng_output o = (clperm_rng_output)any_enum(p, CLPERM_RNG_OUT_U32, 1, 4);
    uint64_t n = any_count(p, 8);
    snprintf(what, cap, "rng_fill family %d k %u scramble %d output %d n %llu", (int)s.family, s.k, (int)s.scramble, (int)o,
             (unsigned long long)n);
    return clperm_rng_fill(any_ctx(p), pick(p, 4) ? &s : NULL, o, any_buffer(p), n, next(p), next(p), w.n, w.events,
                           NULL);
}

/* The device-wide and segmented sorts: the request's every field drawn; segment offsets from a
 * pool buffer (its canary words read as offsets are past n: refused after the device's check). */
static clperm_status f_sort(pools *p, char *what, size_t cap) {
    wait_list w;
    any_wait(p, &w);
    clperm_sort_request r;
    r.key_type = (clperm_key_type)any_enum(p, CLPERM_KEY_U32, 1, CLPERM_KEYKIND_LAST);
    r.keys = any_buffer(p);
    r.value_type = (clperm_type)(pick(p, 2) ? 0 : any_enum(p, CLPERM_TYPE_U32, 1, 2));
    r.values = r.value_type || !pick(p, 8) ? any_buffer(p) : NULL;
    r.n = any_count(p, 8);
    r.order.descending = pick(p, 6) ? (int)pick(p, 2) : any_enum(p, 0, 0, 1);
    r.order.bit_lo = pick(p, 3) ? 0 : (unsigned)pick(p, 70);
    r.order.bit_hi = pick(p, 3) ? 0 : (unsigned)pick(p, 70);
    r.temp_keys = pick(p, 2) ? NULL : any_buffer(p);
    r.temp_values = pick(p, 2) ? NULL : any_buffer(p);
    snprintf(what, cap, "sort key type %d value type %d n %llu bits [%u, %u)", (int)r.key_type, (int)r.value_type,
             (unsigned long long)r.n, r.order.bit_lo, r.order.bit_hi);
    if (pick(p, 4) == 0) {
        cl_mem ok = any_buffer(p), ov = r.value_type || !pick(p, 8) ? any_buffer(p) : NULL;
        return clperm_sort_into(any_ctx(p), pick(p, 10) ? &r : NULL, ok, ov, w.n, w.events, NULL);
    }
    if (pick(p, 2)) return clperm_sort(any_ctx(p), pick(p, 10) ? &r : NULL, w.n, w.events, NULL);
    clperm_segments segs = {any_buffer(p), (clperm_type)any_enum(p, CLPERM_TYPE_U32, 1, 2), any_count(p, 8)};
    return clperm_sort_segmented(any_ctx(p), &r, pick(p, 10) ? &segs : NULL, w.n, w.events, NULL);
}

/* Offline permutations: index arrays from the pools (their canary contents are out of range, which
 * the kernels skip), and plans of small host permutations, sometimes not permutations, executed on
 * any buffers. */
static clperm_status f_permute(pools *p, char *what, size_t cap) {
    static uint32_t idx[600];
    static const size_t item_sizes[] = {4, 8, 16, 0, 3, 32};
    wait_list w;
    any_wait(p, &w);
    size_t es = item_sizes[pick(p, 4) ? pick(p, 3) : pick(p, 6)];
    uint64_t n = any_count(p, es);
    cl_mem a = any_buffer(p), b = pick(p, 5) ? any_buffer(p) : a, ix = pick(p, 6) ? any_buffer(p) : b;
    clperm_type it = (clperm_type)any_enum(p, CLPERM_TYPE_U32, 1, 2);
    snprintf(what, cap, "permute n %llu elem %zu index type %d", (unsigned long long)n, es, (int)it);
    switch (pick(p, 6)) {
    case 0: return clperm_permute_scatter(any_ctx(p), a, b, n, es, it, ix, w.n, w.events, NULL);
    case 1: return clperm_permute_gather(any_ctx(p), a, b, n, es, it, ix, w.n, w.events, NULL);
    case 2: {
        uint64_t rows = pick(p, 3) ? pick(p, 70) : any_count(p, 0), cols = pick(p, 3) ? pick(p, 70) : n;
        snprintf(what, cap, "transpose %llu x %llu elem %zu", (unsigned long long)rows, (unsigned long long)cols, es);
        return clperm_transpose(any_ctx(p), a, b, rows, cols, es, w.n, w.events, NULL);
    }
    case 3: return clperm_permute_bit_reversal(any_ctx(p), a, b, pick(p, 2) ? UINT64_C(1) << pick(p, 12) : n, es, w.n,
                                               w.events, NULL);
    case 4: return clperm_permute_shuffle(any_ctx(p), a, b, pick(p, 2) ? UINT64_C(1) << pick(p, 12) : n, es, (int)pick(p, 2),
                                          w.n, w.events, NULL);
    default: {
        uint64_t m = pick(p, 8) ? 1 + pick(p, 600) : any_count(p, 4);
        uint64_t valid = m <= 600 ? m : 600;
        for (uint64_t i = 0; i < valid; i++) idx[i] = (uint32_t)((i * 7 + 1) % valid);
        if (valid && pick(p, 4) == 0) idx[pick(p, valid)] = (uint32_t)pick(p, valid + 2); /* perhaps not a permutation */
        clperm_perm_plan_opts o = {NULL, NULL, (int)pick(p, 3), any_enum(p, 0, 1, 2)};
        clperm_perm_plan *plan = NULL;
        snprintf(what, cap, "plan of %llu, execute elem %zu", (unsigned long long)m, es);
        /* idx holds 600 indices: larger n only with a NULL array. */
        clperm_status st = clperm_perm_plan_create(any_ctx(p), pick(p, 6) ? &plan : NULL, it == CLPERM_TYPE_U64 ? (clperm_type)7 : it,
                                                   m <= 600 && pick(p, 6) ? idx : NULL, m, pick(p, 2) ? &o : NULL);
        if (st != CLPERM_SUCCESS) return st;
        st = clperm_perm_plan_execute(pick(p, 10) ? plan : NULL, a, b, es, w.n, w.events, NULL);
        clperm_perm_plan_free(plan);
        return st;
    }
    }
}

/* Context-level calls and the host functions, with host arrays of their real sizes or NULL. */
static clperm_status f_host(pools *p, char *what, size_t cap) {
    static uint32_t host[ITEMS], state[4096];
    clperm_ctx *c = any_ctx(p);
    snprintf(what, cap, "host or context call");
    switch (pick(p, 13)) {
    case 0: return clperm_ctx_set_param(c, (clperm_param)any_enum(p, CLPERM_PARAM_DISK_CACHE, 1, 14), any_enum(p, 0, 0, 1024));
    case 1: {
        int v = 0;
        return clperm_ctx_get_param(c, (clperm_param)any_enum(p, 1, 1, 14), pick(p, 4) ? &v : NULL);
    }
    case 2: {
        uint64_t v;
        return clperm_ctx_counter(c, (clperm_counter)any_enum(p, 1, 1, 7), pick(p, 4) ? &v : NULL);
    }
    case 3: {
        clperm_profile prof;
        return clperm_ctx_profile(c, pick(p, 4) ? &prof : NULL);
    }
    case 4: {
        uint64_t n = pick(p, ITEMS / 2 + 1);
        return clperm_shuffle_host(pick(p, 5) ? host : NULL, pick(p, 5) ? host + ITEMS / 2 : NULL, n, 4, next(p), NULL);
    }
    case 5: return clperm_permutation_host((clperm_type)any_enum(p, CLPERM_TYPE_U32, 1, 2), pick(p, 5) ? host : NULL, pick(p, ITEMS / 2),
                                           next(p), NULL);
    case 6: {
        clperm_perm_index *ix = NULL;
        /* Sizes that are refused at once or small: creating an index evaluates the whole domain. */
        static const uint64_t sizes[] = {0, 1, 2, 17, 4097, UINT64_MAX, (UINT64_C(1) << 63) + 1};
        clperm_status st = clperm_perm_index_create(pick(p, 5) ? &ix : NULL, sizes[pick(p, sizeof sizes / sizeof sizes[0])],
                                                    next(p), NULL);
        if (st == CLPERM_SUCCESS) {
            uint64_t out;
            clperm_perm_index_at(ix, any_count(p, 0), pick(p, 3) ? &out : NULL);
            clperm_perm_index_inverse(ix, any_count(p, 0), pick(p, 3) ? &out : NULL);
            clperm_perm_index_free(ix);
        }
        return st;
    }
    case 7: {
        clperm_rng_spec s = {(clperm_rng_family)any_enum(p, 2, 0, 5), 8u << pick(p, 4), (clperm_rng_scramble)any_enum(p, 0, 0, 1)};
        return clperm_rng_seed_host(pick(p, 4) ? &s : NULL, next(p), next(p), pick(p, 5) ? state : NULL);
    }
    case 8: {
        clperm_rng_spec s = {(clperm_rng_family)any_enum(p, 2, 1, 5), 8u << pick(p, 3), (clperm_rng_scramble)any_enum(p, 0, 0, 1)};
        return clperm_rng_draw_host(&s, state, pick(p, 2) ? host : NULL, pick(p, 4));
    }
    case 9: {
        if (pick(p, 2)) {
            uint64_t n = pick(p, ITEMS / 4 + 1);
            for (uint64_t i = 0; i < n; i++) state[i % 4096] = (uint32_t)((n - 1 - i) % (n ? n : 1));
            switch (pick(p, 4)) {
            case 0: return clperm_permute_scatter_host(pick(p, 5) ? host : NULL, host + ITEMS / 2, n, 4, CLPERM_TYPE_U32, pick(p, 5) ? state : NULL);
            case 1: return clperm_transpose_host(host, pick(p, 5) ? host + ITEMS / 2 : NULL, pick(p, 40), pick(p, 40), 4);
            case 2: return clperm_permute_bit_reversal_host(host, host + ITEMS / 2, pick(p, 2) ? 256 : n, pick(p, 4) ? 4 : 6);
            default: return clperm_permute_shuffle_host(host, host + ITEMS / 2, pick(p, 2) ? 512 : n, 8, (int)pick(p, 2));
            }
        }
        clperm_chi2_result r;
        return clperm_quality_chi2_5(pick(p, 4) ? host : NULL, pick(p, 10), pick(p, 4) ? &r : NULL);
    }
    case 11: {
        /* Counts and sizes within the array (the sample's length is the caller's to get right). */
        clperm_cycles_result r;
        return clperm_quality_cycles(pick(p, 4) ? host : NULL, (uint32_t)pick(p, 70), pick(p, 10), pick(p, 4) ? &r : NULL);
    }
    case 10: {
        char buf[512];
        clperm_rng_spec s = {(clperm_rng_family)any_enum(p, 2, 0, 5), 8u << pick(p, 4), (clperm_rng_scramble)any_enum(p, 0, 0, 1)};
        return clperm_rng_build_options(c, pick(p, 3) ? &s : NULL, pick(p, 5) ? buf : NULL, pick(p, 3) ? sizeof buf : pick(p, 20));
    }
    default: {
        clperm_bijection_key key;
        clperm_shuffle_opts o = {(clperm_bijection)any_enum(p, 3, 1, 3), any_enum(p, 0, 0, 64), 0};
        return clperm_bijection_init(pick(p, 5) ? &key : NULL, any_count(p, 0), next(p), pick(p, 2) ? &o : NULL);
    }
    }
}

static const struct {
    const char *name;
    fuzz_fn fn;
} calls[] = {{"scan", f_scan}, {"shuffle", f_shuffle}, {"tiles", f_tiles}, {"rng", f_rng}, {"host", f_host},
             {"sort", f_sort}, {"permute", f_permute}};

/* ---- the run ---- */

static cl_mem make(clperm_ctx *ctx, cl_mem_flags flags, size_t bytes) {
    cl_int err;
    cl_mem m = clCreateBuffer(clperm_ctx_cl_context(ctx), flags, bytes, NULL, &err);
    cr_assert(m, "clCreateBuffer: %d", err);
    return m;
}

static void open_pools(pools *p, size_t dev) {
    memset(p, 0, sizeof *p);
    p->ctx = test_open(dev);
    p->other = test_open(dev);
    p->freed = test_open(dev);
    cr_assert(p->ctx && p->other && p->freed);
    clperm_ctx_free(p->freed); /* the handle stays as a dangling value, never dereferenced by clperm */
    cl_uint align_bits = 0;
    clGetDeviceInfo(clperm_ctx_cl_device(p->ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    size_t align = align_bits / 8 < 256 ? 256 : align_bits / 8;
    p->parent = make(p->ctx, CL_MEM_READ_WRITE, 2 * BYTES + align);
    p->buf[B_GOOD] = make(p->ctx, CL_MEM_READ_WRITE, BYTES);
    p->buf[B_GOOD2] = make(p->ctx, CL_MEM_READ_WRITE, BYTES);
    /* Two sub-buffers that overlap, so that calls with both are refused (CLPERM_ERROR_BUFFER_OVERLAP);
     * on NVIDIA's driver apart instead: there (580.159.04) releasing a sub-buffer crashes once
     * kernels have written to it and to another sub-buffer overlapping it, one after the other,
     * with no clperm call involved (docs/devices.md). */
    clperm_profile prof;
    cr_assert_eq(clperm_ctx_profile(p->ctx, &prof), CLPERM_SUCCESS);
    size_t b_at = prof.vendor == CLPERM_VENDOR_NVIDIA ? BYTES + align : align;
    cl_buffer_region ra = {0, BYTES + align}, rb = {b_at, BYTES};
    cl_int err;
    p->buf[B_SUB_A] = clCreateSubBuffer(p->parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &ra, &err);
    p->buf[B_SUB_B] = clCreateSubBuffer(p->parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rb, &err);
    p->buf[B_READ_ONLY] = make(p->ctx, CL_MEM_READ_ONLY, BYTES);
    p->buf[B_OTHER_CONTEXT] = make(p->other, CL_MEM_READ_WRITE, BYTES);
    p->buf[B_TINY] = make(p->ctx, CL_MEM_READ_WRITE, 4);
    cr_assert(p->buf[B_SUB_A] && p->buf[B_SUB_B]);
    for (int i = 0; i < B_COUNT; i++) {
        if (i == B_SUB_A || i == B_SUB_B) continue;
        clGetMemObjectInfo(p->buf[i], CL_MEM_SIZE, sizeof p->bytes[i], &p->bytes[i], NULL);
        p->checked[p->nchecked] = p->buf[i];
        p->checked_owner[p->nchecked] = i == B_OTHER_CONTEXT ? p->other : p->ctx;
        p->checked_bytes[p->nchecked++] = p->bytes[i];
    }
    p->checked[p->nchecked] = p->parent;
    p->checked_owner[p->nchecked] = p->ctx;
    p->checked_bytes[p->nchecked++] = 2 * BYTES + align;
    cr_assert_eq(clEnqueueMarkerWithWaitList(clperm_ctx_cl_queue(p->ctx), 0, NULL, &p->marker), CL_SUCCESS);
    cr_assert_eq(clFinish(clperm_ctx_cl_queue(p->ctx)), CL_SUCCESS);
}

static void step(const char *what) {
    if (fuzz_log()) fprintf(stderr, "close: %s\n", what);
}

static void close_pools(pools *p) {
    step("finish");
    clFinish(clperm_ctx_cl_queue(p->ctx));
    clFinish(clperm_ctx_cl_queue(p->other));
    for (int i = 0; i < B_COUNT; i++) {
        char what[32];
        snprintf(what, sizeof what, "buffer %d", i);
        step(what);
        clReleaseMemObject(p->buf[i]);
    }
    clReleaseMemObject(p->parent);
    step("marker");
    clReleaseEvent(p->marker);
    step("ctx");
    clperm_ctx_free(p->ctx);
    step("other");
    clperm_ctx_free(p->other);
    step("done");
}

Test(fuzz, public_functions) {
    const char *env = getenv("CLPERM_FUZZ_CALLS");
    uint64_t count = env && *env ? strtoull(env, NULL, 10) : 3000;
    const char *only = getenv("CLPERM_FUZZ_ONLY");
    int log = fuzz_log();
    if (only && !*only) only = NULL;
    test_device_count_required();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay), %llu calls per device", (unsigned long long)test_seed(),
                (unsigned long long)count);
    TEST_EACH_DEVICE_INDEX(dev) {
        pools p;
        open_pools(&p, dev);
        p.rng = test_seed() + dev;
        fill_canaries(&p);
        uint64_t failed = 0;
        for (uint64_t i = 0; i < count; i++) {
            char what[256];
            size_t c = (size_t)pick(&p, sizeof calls / sizeof calls[0]);
            if (only && strcmp(calls[c].name, only)) continue;
            if (log) fprintf(stderr, "call %llu: %s\n", (unsigned long long)i, calls[c].name);
            clperm_status st = calls[c].fn(&p, what, sizeof what);
            if (log) fprintf(stderr, "  %s: %s\n", what, clperm_status_name(st));
            if (st != CLPERM_SUCCESS) {
                failed++;
                expect_canaries(&p, what, i);
            } else {
                fill_canaries(&p);
            }
            /* Only known statuses come back. */
            cr_assert_neq(strcmp(clperm_status_name(st), "CLPERM_UNKNOWN_STATUS"), 0, "call %llu, %s: status %d",
                          (unsigned long long)i, what, st);
        }
        cr_log_info("device %zu: %llu calls, %llu refused, none crashed or wrote when refused", dev,
                    (unsigned long long)count, (unsigned long long)failed);
        close_pools(&p);
        if (log) fprintf(stderr, "device %zu: closed\n", dev);
    }
}
