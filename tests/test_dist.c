/* The distributed shuffle and sort (clperm_dist.h), run under MPI: ctest starts it with
 * mpirun -np 1, 2, 3 and 4. Every rank opens each OpenCL device present in turn (CLPERM_DEVICE
 * narrows it) and checks its block of every result bit for bit against the host's result for the
 * whole array: clperm_shuffle_host, and a stable sort of (key order, global position) written
 * here. Also: the same permutation from every number of ranks (sub-communicators of 1 .. size
 * ranks), the exchange in small chunks through shared memory and through MPI, and bad input
 * reported with the same status on every rank and nothing written.
 *
 * Not a Criterion test (Criterion forks each test, MPI does not survive that): failures are
 * counted, printed with their case and seed, and the exit status is 1 on every rank when any
 * rank failed. `--small`: sizes up to 4097 only (for Oclgrind); `--verbose`: every case named
 * before it runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clperm_dist.h"
#include "common.h"

static int world_rank, world_size, small_only, verbose, failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "[rank %d] FAILED at %s:%d: ", world_rank, __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* ---- blocks ---- */

typedef enum layout { EVEN, UNEVEN, FIRST_ONLY, LAST_ONLY, HOLES, LAYOUTS } layout;
static const char *const layout_names[LAYOUTS] = {"even", "uneven", "first-only", "last-only", "holes"};

/* The block sizes of `size` ranks for n items: EVEN as equal as can be, UNEVEN in proportion to
 * (r + 1)^2, FIRST_ONLY and LAST_ONLY all on one rank, HOLES even over the odd ranks (the even
 * ones empty; with one rank, everything on it). */
static void block_counts(layout l, uint64_t n, int size, uint64_t *counts) {
    uint64_t weight = 0, given = 0;
    for (int r = 0; r < size; r++) weight += (uint64_t)(r + 1) * (uint64_t)(r + 1);
    int odd = size / 2;
    for (int r = 0; r < size; r++) {
        switch (l) {
        case EVEN: counts[r] = n / (uint64_t)size + ((uint64_t)r < n % (uint64_t)size); break;
        case UNEVEN: counts[r] = r == size - 1 ? n - given : n * (uint64_t)((r + 1) * (r + 1)) / weight; break;
        case FIRST_ONLY: counts[r] = r == 0 ? n : 0; break;
        case LAST_ONLY: counts[r] = r == size - 1 ? n : 0; break;
        default:
            if (size == 1)
                counts[r] = n;
            else
                counts[r] = r % 2 ? n / (uint64_t)odd + ((uint64_t)(r / 2) < n % (uint64_t)odd) : 0;
            break;
        }
        given += counts[r];
    }
}

/* This rank's block: its count and offset. */
static void my_block(clperm_dist *d, layout l, uint64_t n, uint64_t *count, uint64_t *offset) {
    int rank = 0, size = 1;
    clperm_dist_rank(d, &rank, &size);
    uint64_t *counts = malloc((size_t)size * sizeof *counts);
    block_counts(l, n, size, counts);
    *offset = 0;
    for (int r = 0; r < rank; r++) *offset += counts[r];
    *count = counts[rank];
    free(counts);
}

/* A device buffer of `bytes` initialised from host (NULL: 0xA5 bytes), or NULL for 0 bytes. */
static cl_mem buffer(clperm_ctx *ctx, size_t bytes, const void *host) {
    if (!bytes) return NULL;
    unsigned char *fill = NULL;
    if (!host) {
        fill = malloc(bytes);
        memset(fill, 0xA5, bytes);
        host = fill;
    }
    cl_mem m = test_buffer(ctx, bytes, host);
    free(fill);
    return m;
}

/* A buffer's bytes, or NULL for 0 bytes (caller frees). */
static unsigned char *contents(clperm_ctx *ctx, cl_mem m, size_t bytes) {
    if (!bytes) return NULL;
    unsigned char *h = malloc(bytes);
    if (test_read(ctx, m, bytes, h) != 0) memset(h, 0, bytes);
    return h;
}

/* The same status on every rank of comm. */
static int agreed(MPI_Comm comm, clperm_status st) {
    int lo = st, hi = st;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, comm);
    return lo == hi;
}

/* ---- shuffle ---- */

typedef struct shuffle_case {
    uint64_t n;
    size_t elem_size;
    layout layout;
    clperm_bijection bijection;
    int inplace;
} shuffle_case;

static const char *bijection_label(clperm_bijection b) { return b ? clperm_bijection_name(b) : "default"; }

static void shuffle_check(clperm_ctx *ctx, clperm_dist *d, const shuffle_case *c, uint64_t seed) {
    clperm_shuffle_opts opts = {c->bijection, 0, 0};
    uint64_t count, offset, n = c->n;
    size_t es = c->elem_size;
    my_block(d, c->layout, n, &count, &offset);
    unsigned char *in = malloc(n * es + 1), *want = malloc(n * es + 1);
    test_fill_random(in, n * es, seed ^ 0xD157);
    clperm_status ref = clperm_shuffle_host(in, want, n, es, seed, &opts);
    CHECK(ref == CLPERM_SUCCESS, "clperm_shuffle_host: %s", clperm_status_name(ref));
    if (verbose && world_rank == 0)
        fprintf(stderr, "shuffle n=%llu es=%zu %s %s%s\n", (unsigned long long)n, es, layout_names[c->layout],
                bijection_label(opts.bijection), c->inplace ? " in place" : "");
    cl_mem src = buffer(ctx, count * es, in + offset * es);
    cl_mem dst = c->inplace ? src : buffer(ctx, count * es, NULL);
    clperm_status st = clperm_dist_shuffle(d, src, dst, n, count, es, seed, &opts);
    CHECK(st == CLPERM_SUCCESS, "shuffle n=%llu es=%zu %s %s%s seed=%#llx: %s", (unsigned long long)n, es,
          layout_names[c->layout], bijection_label(opts.bijection), c->inplace ? " in place" : "",
          (unsigned long long)seed, clperm_status_name(st));
    unsigned char *got = contents(ctx, dst, count * es);
    for (uint64_t j = 0; st == CLPERM_SUCCESS && j < count; j++)
        if (memcmp(got + j * es, want + (offset + j) * es, es) != 0) {
            CHECK(0, "shuffle n=%llu es=%zu %s %s%s seed=%#llx: output %llu differs from the host's",
                  (unsigned long long)n, es, layout_names[c->layout], bijection_label(opts.bijection),
                  c->inplace ? " in place" : "", (unsigned long long)seed, (unsigned long long)(offset + j));
            break;
        }
    free(got);
    if (src) clReleaseMemObject(src);
    if (dst && dst != src) clReleaseMemObject(dst);
    free(in);
    free(want);
}

static void shuffle_tests(clperm_ctx *ctx, clperm_dist *d, uint64_t seed) {
    int size = 1;
    clperm_dist_rank(d, NULL, &size);
    uint64_t sizes[] = {0, 1, 2, (uint64_t)size - 1 > 2 ? (uint64_t)size - 1 : 3, 17, 255, 1000, 4097, 65537};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int l = 0; l < LAYOUTS; l++) {
            if (small_only && sizes[s] > 4097) continue;
            shuffle_case c = {sizes[s], 8, (layout)l, 0, 0};
            shuffle_check(ctx, d, &c, seed + s);
        }
    /* Item sizes, bijections, in place. */
    const shuffle_case more[] = {
        {1000, 1, UNEVEN, 0, 0},    {1000, 4, HOLES, 0, 0},     {1000, 12, UNEVEN, 0, 0},
        {1000, 16, EVEN, 0, 0},     {1000, 24, LAST_ONLY, 0, 0}, {3000, 8, UNEVEN, CLPERM_BIJECTION_PHILOX, 0},
        {3000, 8, HOLES, CLPERM_BIJECTION_LCG, 0}, {2049, 8, UNEVEN, 0, 1}, {2049, 4, EVEN, CLPERM_BIJECTION_PHILOX, 1},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) shuffle_check(ctx, d, &more[i], seed + 100 + i);
    if (!small_only) {
        shuffle_case big = {(UINT64_C(1) << 20) + 3, 8, UNEVEN, 0, 0};
        shuffle_check(ctx, d, &big, seed + 200);
    }
}

/* The permutation from 1, 2, ..., world_size ranks (sub-communicators of the first k ranks, blocks
 * UNEVEN): the same every time, and the host's. */
static void rank_count_tests(clperm_ctx *ctx, uint64_t n, uint64_t seed) {
    uint64_t *first = calloc(n + 1, sizeof *first), *perm = calloc(n + 1, sizeof *perm);
    uint64_t *iota = malloc((n + 1) * sizeof *iota);
    for (uint64_t g = 0; g < n; g++) iota[g] = g;
    for (int k = 1; k <= world_size; k++) {
        memset(perm, 0, n * sizeof *perm);
        MPI_Comm sub;
        if (verbose && world_rank == 0) fprintf(stderr, "permutation of %llu on %d ranks\n", (unsigned long long)n, k);
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < k ? 0 : MPI_UNDEFINED, world_rank, &sub);
        if (sub != MPI_COMM_NULL) {
            clperm_dist *d = NULL;
            clperm_status st = clperm_dist_create(&d, sub, ctx);
            CHECK(st == CLPERM_SUCCESS, "clperm_dist_create on %d ranks: %s", k, clperm_status_name(st));
            uint64_t count = 0, offset = 0;
            if (d) my_block(d, UNEVEN, n, &count, &offset);
            cl_mem src = buffer(ctx, count * 8, iota + offset), dst = buffer(ctx, count * 8, NULL);
            if (d) st = clperm_dist_shuffle(d, src, dst, n, count, 8, seed, NULL);
            CHECK(st == CLPERM_SUCCESS, "permutation of %llu on %d ranks: %s", (unsigned long long)n, k,
                  clperm_status_name(st));
            if (count) test_read(ctx, dst, count * 8, perm + offset);
            if (src) clReleaseMemObject(src);
            if (dst) clReleaseMemObject(dst);
            clperm_dist_free(d);
            MPI_Comm_free(&sub);
        }
        MPI_Allreduce(MPI_IN_PLACE, perm, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (k == 1) {
            memcpy(first, perm, n * sizeof *perm);
            uint64_t *host = malloc(n * sizeof *host);
            clperm_permutation_host(CLPERM_TYPE_U64, host, n, seed, NULL);
            CHECK(memcmp(first, host, n * sizeof *host) == 0, "permutation of %llu on 1 rank differs from the host's",
                  (unsigned long long)n);
            free(host);
        } else {
            CHECK(memcmp(first, perm, n * sizeof *perm) == 0,
                  "permutation of %llu seed %#llx on %d ranks differs from the one on 1 rank", (unsigned long long)n,
                  (unsigned long long)seed, k);
        }
    }
    free(first);
    free(perm);
    free(iota);
}

/* ---- sort ---- */

typedef enum data_kind { RANDOM, FEW, EQUAL, ASCENDING, DESCENDING, SPECIAL, DATA_KINDS } data_kind;
static const char *const data_names[DATA_KINDS] = {"random", "few", "equal", "ascending", "descending", "special"};

/* The key's place in clperm.h's order: u32 and u64 by value, i32 signed, f32 by totalOrder. */
static uint64_t key_order(clperm_key_type type, const unsigned char *key) {
    uint32_t k32;
    uint64_t k64;
    if (type == CLPERM_KEY_U64) {
        memcpy(&k64, key, 8);
        return k64;
    }
    memcpy(&k32, key, 4);
    if (type == CLPERM_KEY_I32) return k32 ^ 0x80000000u;
    if (type == CLPERM_KEY_F32) return (k32 >> 31) ? (uint32_t)~k32 : (k32 | 0x80000000u);
    return k32;
}

typedef struct ref_item {
    uint64_t order, pos;
} ref_item;

static int ref_cmp(const void *a, const void *b) {
    const ref_item *x = a, *y = b;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* n keys of `kind`: SPECIAL mixes the float specials (both zeros, infinities, NaNs of both signs,
 * subnormals) into random keys. */
static void make_keys(clperm_key_type type, data_kind kind, uint64_t n, unsigned char *keys, uint64_t seed) {
    size_t ks = clperm_key_size(type);
    test_fill_random(keys, n * ks, seed);
    static const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                        0xffc00001u, 0x00000001u, 0x80000001u, 0x3f800000u, 0xbf800000u};
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = 0;
        memcpy(&v, keys + i * ks, ks);
        switch (kind) {
        case FEW: v %= 3; break;
        case EQUAL: v = 7; break;
        case ASCENDING: v = i / 2; break;
        case DESCENDING: v = n - i / 2; break;
        case SPECIAL:
            if (v % 3 == 0) v = ks == 4 ? specials[(v / 3) % 10] : (uint64_t)specials[(v / 3) % 10] << 32;
            break;
        default: break;
        }
        memcpy(keys + i * ks, &v, ks);
    }
}

typedef struct sort_case {
    clperm_key_type key_type;
    clperm_type value_type;
    uint64_t n;
    layout layout;
    data_kind data;
} sort_case;

static void sort_check(clperm_ctx *ctx, clperm_dist *d, const sort_case *c, uint64_t seed) {
    uint64_t count, offset, n = c->n;
    size_t ks = clperm_key_size(c->key_type), vs = c->value_type ? clperm_type_size(c->value_type) : 0;
    my_block(d, c->layout, n, &count, &offset);
    unsigned char *keys = malloc(n * ks + 1), *values = malloc(n * 8 + 1);
    unsigned char *want_keys = malloc(n * ks + 1), *want_values = malloc(n * 8 + 1);
    ref_item *ref = malloc((n + 1) * sizeof *ref);
    make_keys(c->key_type, c->data, n, keys, seed);
    for (uint64_t g = 0; g < n; g++) {
        /* Values: the global position, so that the order of equal keys shows. */
        uint64_t v = g ^ (vs == 8 ? UINT64_C(0x5A5A000000000000) : 0);
        memcpy(values + g * vs, &v, vs);
        ref[g].order = key_order(c->key_type, keys + g * ks);
        ref[g].pos = g;
    }
    qsort(ref, (size_t)n, sizeof *ref, ref_cmp);
    for (uint64_t g = 0; g < n; g++) {
        memcpy(want_keys + g * ks, keys + ref[g].pos * ks, ks);
        memcpy(want_values + g * vs, values + ref[g].pos * vs, vs);
    }
    cl_mem kbuf = buffer(ctx, count * ks, keys + offset * ks);
    cl_mem vbuf = vs ? buffer(ctx, count * vs, values + offset * vs) : NULL;
    clperm_dist_sort_request req = {c->key_type, kbuf, c->value_type, vbuf, n, count};
    clperm_status st = clperm_dist_sort(d, &req);
    char what[160];
    snprintf(what, sizeof what, "sort n=%llu key %d value %d %s %s seed=%#llx", (unsigned long long)n,
             (int)c->key_type, (int)c->value_type, layout_names[c->layout], data_names[c->data],
             (unsigned long long)seed);
    if (verbose && world_rank == 0) fprintf(stderr, "%s\n", what);
    CHECK(st == CLPERM_SUCCESS, "%s: %s", what, clperm_status_name(st));
    unsigned char *got_keys = contents(ctx, kbuf, count * ks), *got_values = contents(ctx, vbuf, count * vs);
    if (st == CLPERM_SUCCESS && count) {
        CHECK(memcmp(got_keys, want_keys + offset * ks, count * ks) == 0, "%s: keys differ from the host's", what);
        if (vs)
            CHECK(memcmp(got_values, want_values + offset * vs, count * vs) == 0,
                  "%s: values differ from the host's stable sort", what);
    }
    free(got_keys);
    free(got_values);
    if (kbuf) clReleaseMemObject(kbuf);
    if (vbuf) clReleaseMemObject(vbuf);
    free(keys);
    free(values);
    free(want_keys);
    free(want_values);
    free(ref);
}

static void sort_tests(clperm_ctx *ctx, clperm_dist *d, uint64_t seed) {
    int size = 1;
    clperm_dist_rank(d, NULL, &size);
    const clperm_key_type types[] = {CLPERM_KEY_U32, CLPERM_KEY_I32, CLPERM_KEY_F32, CLPERM_KEY_U64};
    const clperm_type value_types[] = {0, CLPERM_TYPE_U32, CLPERM_TYPE_U64};
    uint64_t sizes[] = {0, 1, (uint64_t)size - 1 > 2 ? (uint64_t)size - 1 : 3, 100, 4097};
    /* Every key and value type at every size, the layouts and kinds of data taking turns. */
    for (size_t t = 0; t < 4; t++)
        for (size_t v = 0; v < 3; v++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                sort_case c = {types[t], value_types[v], sizes[s], (layout)((t + v + s) % LAYOUTS),
                               (data_kind)((t + 2 * v + s) % DATA_KINDS)};
                sort_check(ctx, d, &c, seed + 1000 * t + 100 * v + 10 * s);
            }
    /* Every layout, and every kind of data with values, where stability shows. */
    for (int l = 0; l < LAYOUTS; l++) {
        sort_case c = {CLPERM_KEY_I32, CLPERM_TYPE_U64, 2000, (layout)l, FEW};
        sort_check(ctx, d, &c, seed + 4000 + (uint64_t)l);
    }
    for (int k = 0; k < DATA_KINDS; k++)
        for (size_t t = 0; t < 4; t++) {
            sort_case c = {types[t], CLPERM_TYPE_U32, 3001, UNEVEN, (data_kind)k};
            sort_check(ctx, d, &c, seed + 5000 + 10 * (uint64_t)k + t);
        }
    if (!small_only) {
        sort_case big = {CLPERM_KEY_U64, CLPERM_TYPE_U32, (UINT64_C(1) << 20) + 3, UNEVEN, RANDOM};
        sort_check(ctx, d, &big, seed + 6000);
        sort_case dup = {CLPERM_KEY_U32, CLPERM_TYPE_U64, (UINT64_C(1) << 16) + 1, HOLES, FEW};
        sort_check(ctx, d, &dup, seed + 6001);
    }
}

/* ---- bad input ---- */

/* The buffers of the bad-input calls: room for one item more than the block, src holding the
 * items, dst bytes of 0xA5. */
typedef struct bad_buffers {
    cl_mem src, dst;
    const void *src_host;
    size_t bytes;
} bad_buffers;

/* Every rank returned `want`, and neither buffer of this rank was written. */
static void expect_failure(clperm_ctx *ctx, const char *what, clperm_status st, clperm_status want,
                           const bad_buffers *b) {
    CHECK(agreed(MPI_COMM_WORLD, st), "%s: the ranks returned different statuses (this one %s)", what,
          clperm_status_name(st));
    CHECK(st == want, "%s: %s, expected %s", what, clperm_status_name(st), clperm_status_name(want));
    unsigned char *h = contents(ctx, b->dst, b->bytes);
    size_t i = 0;
    while (i < b->bytes && h[i] == 0xA5) i++;
    CHECK(i == b->bytes, "%s: byte %zu of dst was written", what, i);
    free(h);
    h = contents(ctx, b->src, b->bytes);
    CHECK(b->bytes == 0 || memcmp(h, b->src_host, b->bytes) == 0, "%s: src was written", what);
    free(h);
}

static void bad_input_tests(clperm_ctx *ctx, clperm_dist *d) {
    int rank = 0, size = 1;
    clperm_dist_rank(d, &rank, &size);
    const uint64_t n = 400; /* blocks of 100 items or more: more than a sub-buffer's alignment */
    uint64_t count, offset;
    my_block(d, EVEN, n, &count, &offset);
    uint64_t *block = malloc((count + 1) * sizeof *block);
    for (uint64_t j = 0; j <= count; j++) block[j] = offset + j;
    bad_buffers b = {buffer(ctx, (count + 1) * 8, block), buffer(ctx, (count + 1) * 8, NULL), block,
                     (size_t)(count + 1) * 8};
    cl_mem src = b.src, dst = b.dst, small = buffer(ctx, 8, NULL);
    cl_int err;
    cl_mem readonly = count ? clCreateBuffer(clperm_ctx_cl_context(ctx), CL_MEM_READ_ONLY, count * 8, NULL, &err) : NULL;
    int last = size - 1;
    clperm_shuffle_opts philox = {CLPERM_BIJECTION_PHILOX, 0, 0}, bad_rounds = {CLPERM_BIJECTION_FEISTEL, 99, 0};
    clperm_status st;

    /* Blocks that do not add up: the last rank claims one item more. */
    st = clperm_dist_shuffle(d, src, dst, n, count + (rank == last), 8, 1, NULL);
    expect_failure(ctx, "blocks adding up to n + 1", st, CLPERM_ERROR_DIST_MISMATCH, &b);
    if (size > 1) {
        st = clperm_dist_shuffle(d, src, dst, rank == last ? n + 1 : n, count, 8, 1, NULL);
        expect_failure(ctx, "n differing on the last rank", st, CLPERM_ERROR_DIST_MISMATCH, &b);
        st = clperm_dist_shuffle(d, src, dst, n, count, 8, rank == 1 ? 2 : 1, NULL);
        expect_failure(ctx, "seed differing on rank 1", st, CLPERM_ERROR_DIST_MISMATCH, &b);
        st = clperm_dist_shuffle(d, src, dst, n, count, 8, 1, rank == 0 ? &philox : NULL);
        expect_failure(ctx, "bijection differing on rank 0", st, CLPERM_ERROR_DIST_MISMATCH, &b);
        st = clperm_dist_shuffle(d, src, dst, n, count, rank == last ? 4 : 8, 1, NULL);
        expect_failure(ctx, "item size differing on the last rank", st, CLPERM_ERROR_DIST_MISMATCH, &b);
        clperm_dist_stats stats;
        clperm_dist_last_stats(d, &stats);
        CHECK(stats.failed_rank == last, "item size differing: failed_rank %d, expected %d", stats.failed_rank, last);
    }
    st = clperm_dist_shuffle(d, rank == last ? NULL : src, dst, n, count, 8, 1, NULL);
    expect_failure(ctx, "NULL src on the last rank", st, CLPERM_ERROR_INVALID_BUFFER, &b);
    st = clperm_dist_shuffle(d, src, rank == 0 ? small : dst, n, count, 8, 1, NULL);
    expect_failure(ctx, "dst too small on rank 0", st, CLPERM_ERROR_BUFFER_TOO_SMALL, &b);
    st = clperm_dist_shuffle(d, src, rank == 0 ? readonly : dst, n, count, 8, 1, NULL);
    expect_failure(ctx, "read-only dst on rank 0", st, CLPERM_ERROR_BUFFER_READ_ONLY, &b);
    {
        /* Rank 0's src and dst: two sub-buffers of one buffer, overlapping. */
        cl_uint align_bits = 0;
        clGetDeviceInfo(clperm_ctx_cl_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
        size_t align = align_bits / 8 ? align_bits / 8 : 128, bytes = (size_t)count * 8;
        cl_mem parent = buffer(ctx, align + bytes, NULL), lo = NULL, hi = NULL;
        cl_buffer_region rlo = {0, bytes}, rhi = {align, bytes};
        if (parent) {
            lo = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rlo, &err);
            hi = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rhi, &err);
        }
        CHECK(lo && hi && align < bytes, "sub-buffers for the overlap case");
        st = clperm_dist_shuffle(d, rank == 0 ? lo : src, rank == 0 ? hi : dst, n, count, 8, 1, NULL);
        expect_failure(ctx, "src and dst overlapping on rank 0", st, CLPERM_ERROR_BUFFER_OVERLAP, &b);
        if (lo) clReleaseMemObject(lo);
        if (hi) clReleaseMemObject(hi);
        if (parent) clReleaseMemObject(parent);
    }
    st = clperm_dist_shuffle(d, src, dst, n, count, 8, 1, rank == last ? &bad_rounds : NULL);
    expect_failure(ctx, "99 rounds on the last rank", st, CLPERM_ERROR_INVALID_ARGUMENT, &b);
    st = clperm_dist_shuffle(d, src, dst, n, count, 0, 1, NULL);
    expect_failure(ctx, "items of 0 bytes", st, CLPERM_ERROR_INVALID_ARGUMENT, &b);
    CHECK(clperm_dist_shuffle(NULL, src, dst, n, count, 8, 1, NULL) == CLPERM_ERROR_INVALID_CONTEXT,
          "NULL distributed context");

    /* The sort: src's keys with dst as values. */
    clperm_dist_sort_request req = {CLPERM_KEY_U64, dst, CLPERM_TYPE_U64, src, n, count};
    clperm_dist_sort_request other = req;
    other.count += rank == 0;
    st = clperm_dist_sort(d, &other);
    expect_failure(ctx, "sort: blocks adding up to n + 1", st, CLPERM_ERROR_DIST_MISMATCH, &b);
    if (size > 1) {
        other = req;
        other.key_type = rank == last ? CLPERM_KEY_I32 : CLPERM_KEY_U64;
        st = clperm_dist_sort(d, &other);
        expect_failure(ctx, "sort: key type differing on the last rank", st, CLPERM_ERROR_DIST_MISMATCH, &b);
        other = req;
        other.value_type = rank == 0 ? 0 : CLPERM_TYPE_U64;
        st = clperm_dist_sort(d, &other);
        expect_failure(ctx, "sort: value type differing on rank 0", st, CLPERM_ERROR_DIST_MISMATCH, &b);
    }
    st = clperm_dist_sort(d, rank == last ? NULL : &req);
    expect_failure(ctx, "sort: NULL request on the last rank", st, CLPERM_ERROR_INVALID_ARGUMENT, &b);
    other = req;
    other.key_type = (clperm_key_type)99;
    st = clperm_dist_sort(d, &other);
    expect_failure(ctx, "sort: unknown key type", st, CLPERM_ERROR_INVALID_TYPE, &b);
    other = req;
    other.values = rank == 0 ? dst : src;
    st = clperm_dist_sort(d, &other);
    expect_failure(ctx, "sort: values == keys on rank 0", st, CLPERM_ERROR_BUFFER_OVERLAP, &b);
    other = req;
    other.keys = rank == last ? small : dst;
    st = clperm_dist_sort(d, &other);
    expect_failure(ctx, "sort: keys too small on the last rank", st, CLPERM_ERROR_BUFFER_TOO_SMALL, &b);

    /* The same calls, mended, succeed (so the failures above came from what was broken). */
    st = clperm_dist_shuffle(d, src, dst, n, count, 8, 1, NULL);
    CHECK(st == CLPERM_SUCCESS, "the mended shuffle: %s", clperm_status_name(st));
    free(block);
    if (src) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    if (small) clReleaseMemObject(small);
    if (readonly) clReleaseMemObject(readonly);
}

/* ---- main ---- */

static void run_device(size_t device, uint64_t seed) {
    clperm_ctx *ctx = test_open(device);
    CHECK(ctx != NULL, "cannot open device %zu", device);
    clperm_dist *d = NULL;
    clperm_status st = clperm_dist_create(&d, MPI_COMM_WORLD, ctx);
    CHECK(st == CLPERM_SUCCESS && agreed(MPI_COMM_WORLD, st), "clperm_dist_create: %s", clperm_status_name(st));
    if (!d) {
        clperm_ctx_free(ctx);
        return;
    }
    if (world_rank == 0) printf("device %zu: %s, %d ranks, seed %#llx\n", device, test_device_label(ctx), world_size,
                                (unsigned long long)seed);
    shuffle_tests(ctx, d, seed);
    rank_count_tests(ctx, 5003, seed);
    sort_tests(ctx, d, seed);
    bad_input_tests(ctx, d);
    clperm_dist_free(d);

    /* The exchange in chunks of 1000 bytes (items cut between chunks), two in flight each way:
     * several turns of each ring; through the node's shared memory (the ranks here share one
     * machine), then through MPI's messages. */
    for (int shared = 1; shared >= 0; shared--) {
        setenv("CLPERM_DIST_CHUNK_BYTES", "1000", 1);
        setenv("CLPERM_DIST_SLOTS", "2", 1);
        setenv("CLPERM_DIST_SHARED", shared ? "1" : "0", 1);
        st = clperm_dist_create(&d, MPI_COMM_WORLD, ctx);
        unsetenv("CLPERM_DIST_CHUNK_BYTES");
        unsetenv("CLPERM_DIST_SLOTS");
        unsetenv("CLPERM_DIST_SHARED");
        CHECK(st == CLPERM_SUCCESS, "clperm_dist_create: %s", clperm_status_name(st));
        if (d) {
            shuffle_case c = {1001, 12, UNEVEN, 0, 0};
            shuffle_check(ctx, d, &c, seed + 300 + 2 * (uint64_t)shared);
            sort_case s = {CLPERM_KEY_F32, CLPERM_TYPE_U64, 1001, HOLES, SPECIAL};
            sort_check(ctx, d, &s, seed + 301 + 2 * (uint64_t)shared);
        }
        clperm_dist_free(d);
    }
    clperm_ctx_free(ctx);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    for (int i = 1; i < argc; i++) {
        small_only |= strcmp(argv[i], "--small") == 0;
        verbose |= strcmp(argv[i], "--verbose") == 0;
    }
    uint64_t seed = test_seed();
    /* Not TEST_EACH_DEVICE (a Criterion loop), but the same rule: every device present, and with
     * none a skip, or a failure where test_device_required(). */
    size_t devices = test_device_count();
    if (!devices && !test_device_required()) {
        if (world_rank == 0) printf("%s\n", TEST_NO_DEVICE_SKIPPED);
        MPI_Finalize();
        return 0;
    }
    CHECK(devices > 0, "%s", TEST_NO_DEVICE_REQUIRED);
    for (size_t i = 0; i < devices; i++) run_device(i, seed);
    int total = failures;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) printf("%s: %d failure(s) on %d rank(s)\n", total ? "FAILED" : "passed", total, world_size);
    MPI_Finalize();
    return total ? 1 : 0;
}
