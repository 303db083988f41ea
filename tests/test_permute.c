/* Offline permutations: the host references follow the definitions; every device gives the host's
 * output bit for bit for the conventional permutations (scatter, gather), the regular ones
 * (transpose of any shape, bit-reversal, perfect shuffle and its inverse) and the scheduled
 * permutation's plans (identity, random, transpose, bit-reversal, shuffle; square, non-square and
 * padded shapes; 4-, 8- and 16-byte items; both pass structures), plans round-trip and repeat,
 * and the local accesses of the regular kernels and of the plan's steps are free of bank
 * conflicts while the naive layouts are not. Bad input is refused before anything runs, and
 * canary-filled buffers come back untouched. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const size_t sizes_es[] = {4, 8, 16};

/* ---- permutations of n items, as destination indices p (dst[p[i]] = src[i]) ---- */

enum { IDENTITY, RANDOM, TRANSPOSE, BIT_REVERSAL, SHUFFLE, KINDS };
static const char *const kind_names[] = {"identity", "random", "transpose", "bit-reversal", "shuffle"};

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned log2_of(uint64_t n) {
    unsigned k = 0;
    while ((UINT64_C(1) << k) < n) k++;
    return k;
}

/* p for `kind` on n items (transpose: a rows x (n / rows) matrix; bit-reversal and shuffle need n
 * a power of two). */
static void make_perm(uint32_t *p, uint64_t n, int kind, uint64_t rows, uint64_t seed) {
    unsigned k = log2_of(n);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = i;
        if (kind == TRANSPOSE) d = (i % (n / rows)) * rows + i / (n / rows);
        if (kind == BIT_REVERSAL) {
            d = 0;
            for (unsigned b = 0; b < k; b++) d |= (i >> b & 1) << (k - 1 - b);
        }
        if (kind == SHUFFLE && k) d = ((i << 1) | (i >> (k - 1))) & (n - 1);
        p[i] = (uint32_t)d;
    }
    if (kind == RANDOM) {
        uint64_t s = seed;
        for (uint64_t i = n; i > 1; i--) {
            uint64_t j = splitmix(&s) % i;
            uint32_t t = p[i - 1];
            p[i - 1] = p[j];
            p[j] = t;
        }
    }
}

/* The most square rows x cols = n, for transposes (1 when n is prime). */
static uint64_t some_rows(uint64_t n) {
    uint64_t r = 1;
    while ((r + 1) * (r + 1) <= n) r++;
    while (n % r) r--;
    return r;
}

static cl_mem device_copy(clperm_ctx *ctx, const void *host, size_t bytes) {
    cl_mem m = test_buffer(ctx, bytes ? bytes : 4, host);
    cr_assert(m);
    return m;
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    cr_assert(p);
    return p;
}

/* ---- host references ---- */

Test(permute_host, references_follow_the_definitions) {
    uint32_t src[8] = {10, 11, 12, 13, 14, 15, 16, 17}, dst[8], p[8] = {3, 0, 7, 1, 2, 6, 5, 4};
    cr_assert_eq(clperm_permute_scatter_host(src, dst, 8, 4, CLPERM_TYPE_U32, p), CLPERM_SUCCESS);
    for (int i = 0; i < 8; i++) cr_assert_eq(dst[p[i]], src[i]);
    uint64_t q[8];
    for (int i = 0; i < 8; i++) q[p[i]] = (uint64_t)i;
    uint32_t back[8];
    cr_assert_eq(clperm_permute_gather_host(src, back, 8, 4, CLPERM_TYPE_U64, q), CLPERM_SUCCESS);
    cr_assert(memcmp(back, dst, sizeof dst) == 0, "gather with P^-1 moves as scatter with P");
    /* Bit-reversal of 8: 1 = 001 -> 100 = 4, 3 = 011 -> 110 = 6. */
    cr_assert_eq(clperm_permute_bit_reversal_host(src, dst, 8, 4), CLPERM_SUCCESS);
    cr_assert(dst[4] == 11 && dst[6] == 13 && dst[0] == 10 && dst[7] == 17 && dst[1] == 14);
    /* Perfect shuffle: the halves interleaved; the inverse undoes it. */
    cr_assert_eq(clperm_permute_shuffle_host(src, dst, 8, 4, 0), CLPERM_SUCCESS);
    for (int j = 0; j < 4; j++) cr_assert(dst[2 * j] == src[j] && dst[2 * j + 1] == src[4 + j], "shuffle at %d", j);
    cr_assert_eq(clperm_permute_shuffle_host(dst, back, 8, 4, 1), CLPERM_SUCCESS);
    cr_assert(memcmp(back, src, sizeof src) == 0);
    /* Transpose of 2 x 3. */
    cr_assert_eq(clperm_transpose_host(src, dst, 2, 3, 4), CLPERM_SUCCESS);
    const uint32_t want[6] = {10, 13, 11, 14, 12, 15};
    cr_assert(memcmp(dst, want, sizeof want) == 0);
    /* Not permutations: a repeat, an index out of range; nothing written. */
    uint32_t canary[8];
    memset(canary, 0xA5, sizeof canary);
    memcpy(dst, canary, sizeof dst);
    p[5] = 3;
    cr_assert_eq(clperm_permute_scatter_host(src, dst, 8, 4, CLPERM_TYPE_U32, p), CLPERM_ERROR_NOT_PERMUTATION);
    p[5] = 8;
    cr_assert_eq(clperm_permute_gather_host(src, dst, 8, 4, CLPERM_TYPE_U32, p), CLPERM_ERROR_NOT_PERMUTATION);
    cr_assert(memcmp(dst, canary, sizeof dst) == 0, "a refused call wrote dst");
    cr_assert_eq(clperm_permute_bit_reversal_host(src, dst, 6, 4), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(clperm_permute_shuffle_host(src, dst, 8, 3, 0), CLPERM_ERROR_INVALID_TYPE);
}

/* ---- conventional and regular permutations on every device ---- */

static void check_bytes(clperm_ctx *ctx, cl_mem dst, const void *want, size_t bytes, const char *what, size_t es,
                        uint64_t n) {
    void *got = xmalloc(bytes);
    cr_assert_eq(test_read(ctx, dst, bytes, got), 0);
    uint64_t d = test_first_diff(want, got, bytes / 4, 4);
    cr_assert_eq(d, bytes / 4, "%s: %s of %llu items of %zu bytes: word %llu differs", test_device_label(ctx), what,
                 (unsigned long long)n, es, (unsigned long long)d);
    free(got);
}

#ifdef CLPERM_TEST_SMALL
static const uint64_t conv_sizes[] = {1, 2, 33, 1024, 1500};
static const uint32_t shapes[][2] = {{1, 1}, {1, 33}, {33, 1}, {2, 3}, {32, 32}, {33, 65}, {70, 40}};
#define MAX_K 11
#else
static const uint64_t conv_sizes[] = {1, 2, 3, 31, 1000, 1024, 4097, 65536, 100003};
static const uint32_t shapes[][2] = {{1, 1},  {1, 33},  {33, 1},  {2, 3},    {31, 32},   {32, 32},  {33, 65},
                                     {100, 17}, {64, 64}, {1000, 3}, {3, 1000}, {257, 513}, {512, 2048}};
#define MAX_K 17
#endif

Test(permute, conventional_equals_host) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    TEST_EACH_DEVICE(ctx) {
        for (size_t s = 0; s < sizeof conv_sizes / sizeof conv_sizes[0]; s++) {
            uint64_t n = conv_sizes[s];
            int pow2 = !(n & (n - 1));
            for (int kind = 0; kind < KINDS; kind++) {
                if ((kind == BIT_REVERSAL || kind == SHUFFLE) && !pow2) continue;
                uint32_t *p = xmalloc(n * 4), *q = xmalloc(n * 4);
                uint64_t *p64 = xmalloc(n * 8);
                make_perm(p, n, kind, some_rows(n), seed + s);
                for (uint64_t i = 0; i < n; i++) q[p[i]] = (uint32_t)i, p64[i] = p[i];
                size_t es = sizes_es[(s + (size_t)kind) % 3];
                unsigned char *src = xmalloc(n * es), *want = xmalloc(n * es);
                test_fill_random(src, n * es, seed ^ n);
                cr_assert_eq(clperm_permute_scatter_host(src, want, n, es, CLPERM_TYPE_U32, p), CLPERM_SUCCESS);
                cl_mem ds = device_copy(ctx, src, n * es), dd = device_copy(ctx, NULL, n * es);
                cl_mem dp = device_copy(ctx, p, n * 4), dq = device_copy(ctx, q, n * 4), dp64 = device_copy(ctx, p64, n * 8);
                cr_assert_eq(clperm_permute_scatter(ctx, ds, dd, n, es, CLPERM_TYPE_U32, dp, 0, NULL, NULL), CLPERM_SUCCESS);
                check_bytes(ctx, dd, want, n * es, kind_names[kind], es, n);
                cr_assert_eq(clperm_permute_scatter(ctx, ds, dd, n, es, CLPERM_TYPE_U64, dp64, 0, NULL, NULL),
                             CLPERM_SUCCESS);
                check_bytes(ctx, dd, want, n * es, "scatter u64", es, n);
                cr_assert_eq(clperm_permute_gather(ctx, ds, dd, n, es, CLPERM_TYPE_U32, dq, 0, NULL, NULL), CLPERM_SUCCESS);
                check_bytes(ctx, dd, want, n * es, "gather", es, n);
                clReleaseMemObject(ds), clReleaseMemObject(dd), clReleaseMemObject(dp), clReleaseMemObject(dq);
                clReleaseMemObject(dp64);
                free(p), free(q), free(p64), free(src), free(want);
            }
        }
    }
}

/* Tiles per work-group and rows of 32 work-items per work-group of the local-tile transpose and
 * bit-reversal (CLPERM_PARAM_PERMUTE_TILES, CLPERM_PARAM_PERMUTE_WG_ROWS): every value of each,
 * the first configuration the default rows. */
static const int tile_configs[][2] = {{1, 8}, {2, 4}, {4, 16}, {1, 4}, {4, 8}};
#define TILE_VALUES (sizeof tile_configs / sizeof tile_configs[0])

/* Sets configuration t's parameters and checks that they read back. */
static void set_tiles(clperm_ctx *ctx, size_t t) {
    int got = 0;
    cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_PERMUTE_TILES, tile_configs[t][0]), CLPERM_SUCCESS);
    cr_assert_eq(clperm_ctx_get_param(ctx, CLPERM_PARAM_PERMUTE_TILES, &got), CLPERM_SUCCESS);
    cr_assert_eq(got, tile_configs[t][0]);
    cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_PERMUTE_WG_ROWS, tile_configs[t][1]), CLPERM_SUCCESS);
    cr_assert_eq(clperm_ctx_get_param(ctx, CLPERM_PARAM_PERMUTE_WG_ROWS, &got), CLPERM_SUCCESS);
    cr_assert_eq(got, tile_configs[t][1]);
}

/* The bit-reversal, shuffle and unshuffle of 2^k items of es bytes against the host. */
static void pow2_cases(clperm_ctx *ctx, uint64_t seed, unsigned k, size_t es, const char *config) {
    uint64_t n = UINT64_C(1) << k;
    unsigned char *src = xmalloc(n * es), *want = xmalloc(n * es);
    test_fill_random(src, n * es, seed + k);
    cl_mem ds = device_copy(ctx, src, n * es), dd = device_copy(ctx, NULL, n * es);
    for (int op = 0; op < 3; op++) {
        if (op == 0) {
            cr_assert_eq(clperm_permute_bit_reversal_host(src, want, n, es), CLPERM_SUCCESS);
            cr_assert_eq(clperm_permute_bit_reversal(ctx, ds, dd, n, es, 0, NULL, NULL), CLPERM_SUCCESS);
        } else {
            cr_assert_eq(clperm_permute_shuffle_host(src, want, n, es, op == 2), CLPERM_SUCCESS);
            cr_assert_eq(clperm_permute_shuffle(ctx, ds, dd, n, es, op == 2, 0, NULL, NULL), CLPERM_SUCCESS);
        }
        char what[160];
        snprintf(what, sizeof what, "%s: %s", config, op == 0 ? "bit-reversal" : op == 1 ? "shuffle" : "unshuffle");
        check_bytes(ctx, dd, want, n * es, what, es, n);
    }
    clReleaseMemObject(ds), clReleaseMemObject(dd);
    free(src), free(want);
}

/* The transposes, bit-reversals, shuffles and unshuffles of the shapes and sizes above, against the
 * host. all == 0 leaves out what runs no local-tile kernel (single rows and columns are copies,
 * fewer than 1024 items one work-item per item), for the runs that vary the tiles per group. */
static void regular_cases(clperm_ctx *ctx, uint64_t seed, int all, const char *config) {
    for (size_t e = 0; e < 3; e++) {
        size_t es = sizes_es[e];
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            uint64_t rows = shapes[s][0], cols = shapes[s][1], n = rows * cols;
            if (!all && (rows == 1 || cols == 1)) continue;
            unsigned char *src = xmalloc(n * es), *want = xmalloc(n * es);
            test_fill_random(src, n * es, seed + s);
            cr_assert_eq(clperm_transpose_host(src, want, rows, cols, es), CLPERM_SUCCESS);
            cl_mem ds = device_copy(ctx, src, n * es), dd = device_copy(ctx, NULL, n * es);
            cr_assert_eq(clperm_transpose(ctx, ds, dd, rows, cols, es, 0, NULL, NULL), CLPERM_SUCCESS);
            char what[160];
            snprintf(what, sizeof what, "%s: transpose %llux%llu", config, (unsigned long long)rows,
                     (unsigned long long)cols);
            check_bytes(ctx, dd, want, n * es, what, es, n);
            clReleaseMemObject(ds), clReleaseMemObject(dd);
            free(src), free(want);
        }
        for (unsigned k = all ? 0 : 10; k <= MAX_K; k++) pow2_cases(ctx, seed, k, es, config);
    }
}

#ifndef CLPERM_TEST_SMALL
/* The serial bit-reversal takes its tiles in another order from 2g bits of tile number on (g = 5,
 * 4, 3 for items of 4, 8, 16 bytes: 2^20, 2^18, 2^16 items): 2^20 and 2^21 items of every size
 * against the host (the sizes above reach 2^17). */
static void pow2_large(clperm_ctx *ctx, uint64_t seed, const char *config) {
    for (size_t e = 0; e < 3; e++)
        for (unsigned k = 20; k <= 21; k++) pow2_cases(ctx, seed, k, sizes_es[e], config);
}
#endif

/* Every kernel kind on every device: local tiles (1, 2 and 4 tiles per work-group, 4, 8 and 16
 * rows of 32 work-items), blocked
 * straight from src to dst, and serial runs of tiles. The shapes give tile counts that are not
 * multiples of 2 or 4 (nor of a serial work-item's run), and 2^10 and 2^11 items fewer
 * bit-reversal tiles than a group takes. */
Test(permute, regular_equals_host) {
    uint64_t seed = test_seed();
    TEST_EACH_DEVICE(ctx) {
        for (int kernel = 1; kernel <= 3; kernel++) {
            const test_param set = {CLPERM_PARAM_PERMUTE_KERNEL, kernel};
            if (!test_apply_params(ctx, &set, 1)) continue; /* serial runs where loops are capped */
            int got = 0;
            cr_assert_eq(clperm_ctx_get_param(ctx, CLPERM_PARAM_PERMUTE_KERNEL, &got), CLPERM_SUCCESS);
            cr_assert_eq(got, kernel);
            for (size_t t = 0; t < (kernel == CLPERM_PERMUTE_KERNEL_LOCAL ? TILE_VALUES : 1); t++) {
                char config[64];
                snprintf(config, sizeof config, "kernel %d, %d tiles and %d rows per group", kernel,
                         tile_configs[t][0], tile_configs[t][1]);
                set_tiles(ctx, t);
                regular_cases(ctx, seed, t == 0, config);
            }
#ifndef CLPERM_TEST_SMALL
            if (kernel == CLPERM_PERMUTE_KERNEL_SERIAL) pow2_large(ctx, seed, "kernel 3");
#endif
            cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_PERMUTE_TILES, 0), CLPERM_SUCCESS);
            cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_PERMUTE_WG_ROWS, 0), CLPERM_SUCCESS);
        }
    }
}

/* A power-of-two parameter of the regular permutations: its bounds and name, two values outside
 * them refused, and its default: cpu_default on the CPU and simulator devices of the tests (where
 * the table has no figure), a power of two within the bounds elsewhere. */
static void pow2_param_case(clperm_ctx *ctx, clperm_param param, const char *name, int lo, int hi, int bad_a,
                            int bad_b, int cpu_default) {
    int l = 0, h = 0, got = -1;
    cr_assert_eq(clperm_param_bounds(param, &l, &h), CLPERM_SUCCESS);
    cr_assert(l == lo && h == hi, "%s: bounds %d .. %d", name, l, h);
    clperm_param p;
    cr_assert_eq(clperm_param_from_name(name, &p), CLPERM_SUCCESS);
    cr_assert_eq(p, param);
    cr_assert_eq(clperm_ctx_set_param(ctx, param, bad_a), CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
    cr_assert_eq(clperm_ctx_set_param(ctx, param, bad_b), CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
    cr_assert_eq(clperm_ctx_get_param(ctx, param, &got), CLPERM_SUCCESS);
    clperm_profile prof;
    cr_assert_eq(clperm_ctx_profile(ctx, &prof), CLPERM_SUCCESS);
    if (prof.device_type & CL_DEVICE_TYPE_CPU || prof.vendor == CLPERM_VENDOR_OCLGRIND)
        cr_assert_eq(got, cpu_default, "%s: %s %d by default", test_device_label(ctx), name, got);
    else
        cr_assert(got >= lo && got <= hi && !(got & (got - 1)), "%s: %s %d", test_device_label(ctx), name, got);
}

/* Tiles per group: powers of two 1 .. 4, 0 the device's choice (1 on the test's CPU and simulator
 * devices). Rows of 32 work-items: powers of two 4 .. 16 (8 there). */
Test(permute, tiles_param_bounds) {
    TEST_EACH_DEVICE(ctx) {
        pow2_param_case(ctx, CLPERM_PARAM_PERMUTE_TILES, "permute_tiles", 1, 4, 3, 8, 1);
        pow2_param_case(ctx, CLPERM_PARAM_PERMUTE_WG_ROWS, "permute_wg_rows", 4, 16, 6, 32, 8);
    }
}

/* Zero conflicts in the diagonal arrangement for every regular kernel and item size, full and
 * partial tiles, at every tiles-per-group value (each tile its own region of local memory);
 * conflicts with the plain layout, which shows that the check can fail. The work-groups traced
 * are the launch's: the tile count over the tiles per group, rounded up (4 tiles of 16-byte items
 * fit only where local memory holds 64 KiB). */
Test(permute, regular_conflicts_measured) {
    static const uint32_t tshapes[][2] = {{32, 32}, {64, 96}, {33, 65}, {5, 40}};
    TEST_EACH_DEVICE(ctx) {
        clperm_profile prof;
        cr_assert_eq(clperm_ctx_profile(ctx, &prof), CLPERM_SUCCESS);
        for (size_t t = 0; t < TILE_VALUES; t++) {
            set_tiles(ctx, t);
            for (size_t e = 0; e < 3; e++) {
                size_t es = sizes_es[e];
                uint64_t tiles = (uint64_t)tile_configs[t][0];
                while (tiles > 1 && tiles * 1024 * es > prof.local_mem_bytes) tiles /= 2;
                for (int kind = CLPERM_PERMUTE_TRANSPOSE; kind <= CLPERM_PERMUTE_UNSHUFFLE; kind++) {
                    /* The shuffles take no tiles per group: once. */
                    if (t && kind >= CLPERM_PERMUTE_SHUFFLE) continue;
                    for (size_t s = 0; s < (kind == CLPERM_PERMUTE_TRANSPOSE ? 4u : 2u); s++) {
                        uint64_t rows = kind == CLPERM_PERMUTE_TRANSPOSE ? tshapes[s][0] : 1024u << (3 * s);
                        uint64_t cols = kind == CLPERM_PERMUTE_TRANSPOSE ? tshapes[s][1] : 1;
                        clperm_conflict_report r, naive;
                        cr_assert_eq(clperm_permute_conflicts(ctx, (clperm_permute_kind)kind, es, rows, cols, 0, &r),
                                     CLPERM_SUCCESS);
                        cr_assert_eq(
                            clperm_permute_conflicts(ctx, (clperm_permute_kind)kind, es, rows, cols, 1, &naive),
                            CLPERM_SUCCESS);
                        uint64_t items = rows * cols, per = kind <= CLPERM_PERMUTE_BIT_REVERSAL ? tiles : 1;
                        uint64_t count = kind == CLPERM_PERMUTE_TRANSPOSE ? ((rows + 31) / 32) * ((cols + 31) / 32)
                                                                          : items / 1024;
                        cr_assert_eq(r.tiles, (count + per - 1) / per, "kind %d %zu-byte, %llu tiles per group",
                                     kind, es, (unsigned long long)per);
                        cr_assert_geq(r.accesses, 2 * items, "kind %d %zu-byte: trace recorded too little", kind, es);
                        cr_assert_eq(r.shape.w, 128 / es);
                        cr_assert_eq(r.conflicts, 0,
                                     "%s: kind %d, %zu-byte items, %llux%llu, %llu tiles per group: %llu conflicts "
                                     "(%u-way)",
                                     test_device_label(ctx), kind, es, (unsigned long long)rows,
                                     (unsigned long long)cols, (unsigned long long)per,
                                     (unsigned long long)r.conflicts, r.max_ways);
                        cr_assert_gt(naive.conflicts, 0, "kind %d %zu-byte: the naive layout shows no conflicts",
                                     kind, es);
                        cr_log_info("kind %d, %zu-byte, %llu items, %llu tiles per group: %llu accesses, 0 "
                                    "conflicts; naive %llu conflicts, %u-way",
                                    kind, es, (unsigned long long)items, (unsigned long long)per,
                                    (unsigned long long)r.accesses, (unsigned long long)naive.conflicts,
                                    naive.max_ways);
                    }
                }
            }
        }
    }
}

/* Refused before anything runs: the canary-filled destination comes back untouched. */
Test(permute, bad_input_writes_nothing) {
    TEST_EACH_DEVICE(ctx) {
        enum { N = 64 };
        uint32_t canary[4 * N], p[N], got[4 * N];
        memset(canary, 0x5A, sizeof canary);
        for (int i = 0; i < N; i++) p[i] = (uint32_t)(N - 1 - i);
        cl_mem src = device_copy(ctx, canary, sizeof canary), dst = device_copy(ctx, canary, sizeof canary);
        cl_mem small = device_copy(ctx, canary, 16), dp = device_copy(ctx, p, sizeof p);
        cl_mem ro = clCreateBuffer(clperm_ctx_cl_context(ctx), CL_MEM_READ_ONLY, sizeof canary, NULL, NULL);
        struct {
            clperm_status want, got;
        } c[] = {
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_permute_scatter(ctx, src, small, N, 4, CLPERM_TYPE_U32, dp, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_permute_scatter(ctx, small, dst, N, 4, CLPERM_TYPE_U32, dp, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_permute_gather(ctx, src, dst, N, 4, CLPERM_TYPE_U64, dp, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_permute_gather(ctx, src, dst, N, 16, CLPERM_TYPE_U32, small, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_TYPE, clperm_permute_scatter(ctx, src, dst, N, 2, CLPERM_TYPE_U32, dp, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_TYPE, clperm_permute_scatter(ctx, src, dst, N, 4, (clperm_type)7, dp, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_OVERLAP, clperm_permute_scatter(ctx, src, src, N, 4, CLPERM_TYPE_U32, dp, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_OVERLAP, clperm_permute_scatter(ctx, src, dp, N, 4, CLPERM_TYPE_U32, dp, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_READ_ONLY, clperm_permute_scatter(ctx, src, ro, N, 4, CLPERM_TYPE_U32, dp, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_EVENT_LIST, clperm_permute_gather(ctx, src, dst, N, 4, CLPERM_TYPE_U32, dp, 1, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_transpose(ctx, src, small, 8, 8, 4, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_transpose(ctx, src, dst, 16, 17, 4, 0, NULL, NULL)},
            {CLPERM_ERROR_SIZE_OVERFLOW, clperm_transpose(ctx, src, dst, UINT64_C(1) << 40, UINT64_C(1) << 40, 4, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_OVERLAP, clperm_transpose(ctx, src, src, 8, 8, 4, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_TYPE, clperm_transpose(ctx, src, dst, 8, 8, 12, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_permute_bit_reversal(ctx, src, dst, 48, 4, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_permute_bit_reversal(ctx, src, small, 64, 4, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_permute_shuffle(ctx, src, dst, 63, 4, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_permute_shuffle(ctx, src, dst, 256, 16, 1, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_BUFFER, clperm_permute_shuffle(ctx, NULL, dst, 64, 4, 1, 0, NULL, NULL)},
            {CLPERM_SUCCESS, clperm_permute_scatter(ctx, src, dst, 0, 4, CLPERM_TYPE_U32, dp, 0, NULL, NULL)},
            {CLPERM_SUCCESS, clperm_transpose(ctx, src, dst, 0, 5, 4, 0, NULL, NULL)},
        };
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
            cr_assert_eq(c[i].got, c[i].want, "case %zu: %s, want %s", i, clperm_status_name(c[i].got),
                         clperm_status_name(c[i].want));
        cr_assert_eq(test_read(ctx, dst, sizeof got, got), 0);
        cr_assert(memcmp(got, canary, sizeof got) == 0, "a refused call wrote dst");
        cr_assert_eq(test_read(ctx, small, 16, got), 0);
        cr_assert(memcmp(got, canary, 16) == 0, "a refused call wrote the small buffer");
        clReleaseMemObject(src), clReleaseMemObject(dst), clReleaseMemObject(small), clReleaseMemObject(dp);
        if (ro) clReleaseMemObject(ro);
    }
}

/* ---- the scheduled permutation ---- */

typedef struct plan_case {
    uint64_t n;
    int kind;
    uint64_t rows; /* transpose: the matrix's rows */
} plan_case;

#ifdef CLPERM_TEST_SMALL
static const plan_case plan_cases[] = {{1, IDENTITY, 1}, {7, RANDOM, 1}, {1024, TRANSPOSE, 32}, {1024, BIT_REVERSAL, 1},
                                       {2048, SHUFFLE, 1}, {1500, RANDOM, 1}, {3000, TRANSPOSE, 60}};
#else
static const plan_case plan_cases[] = {
    {1, IDENTITY, 1},        {2, RANDOM, 1},           {31, RANDOM, 1},          {1024, IDENTITY, 1},
    {1024, RANDOM, 1},       {1024, TRANSPOSE, 32},    {1024, BIT_REVERSAL, 1},  {1024, SHUFFLE, 1},
    {4096, TRANSPOSE, 64},   {8192, BIT_REVERSAL, 1},  {8192, SHUFFLE, 1},       {5000, RANDOM, 1},
    {65536, RANDOM, 1},      {65536, TRANSPOSE, 128},  {65536, BIT_REVERSAL, 1}, {65536, SHUFFLE, 1},
    {100003, RANDOM, 1},     {99960, TRANSPOSE, 357},  {131072, IDENTITY, 1},    {1 << 20, RANDOM, 1},
    {1 << 20, BIT_REVERSAL, 1}};
#endif

/* Plans every case with both pass structures and executes each on all three item sizes against
 * the host's scatter; a plan's second run gives the same output. */
Test(perm_plan, equals_host) {
    uint64_t seed = test_seed();
    TEST_EACH_DEVICE(ctx) {
        for (size_t c = 0; c < sizeof plan_cases / sizeof plan_cases[0]; c++) {
            const plan_case *pc = &plan_cases[c];
            uint64_t n = pc->n;
            uint32_t *p = xmalloc(n * 4);
            make_perm(p, n, pc->kind, pc->rows, seed + c);
            for (int fusion = 1; fusion <= 2; fusion++) {
                clperm_perm_plan_opts opts = {NULL, NULL, 2, fusion};
                clperm_perm_plan *plan = NULL;
                clperm_status st = clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, n, &opts);
                cr_assert_eq(st, CLPERM_SUCCESS, "%s: plan of %s n=%llu: %s", test_device_label(ctx),
                             kind_names[pc->kind], (unsigned long long)n, clperm_status_name(st));
                clperm_perm_plan_info info;
                cr_assert_eq(clperm_perm_plan_query(plan, &info), CLPERM_SUCCESS);
                cr_assert_geq((uint64_t)info.rows * info.cols, n);
                cr_assert_eq(info.fusion, fusion);
                cr_assert_eq(info.schedule_bytes, 12 * (uint64_t)info.rows * info.cols);
                for (size_t e = 0; e < 3; e++) {
                    size_t es = sizes_es[e];
                    unsigned char *src = xmalloc(n * es), *want = xmalloc(n * es);
                    test_fill_random(src, n * es, seed ^ (n + e));
                    cr_assert_eq(clperm_permute_scatter_host(src, want, n, es, CLPERM_TYPE_U32, p), CLPERM_SUCCESS);
                    cl_mem ds = device_copy(ctx, src, n * es), dd = device_copy(ctx, NULL, n * es);
                    for (int run = 0; run < 2; run++) {
                        st = clperm_perm_plan_execute(plan, ds, dd, es, 0, NULL, NULL);
                        cr_assert_eq(st, CLPERM_SUCCESS, "%s: execute: %s", test_device_label(ctx), clperm_status_name(st));
                        char what[160];
                        snprintf(what, sizeof what, "plan of %s (%ux%u, fusion %d, run %d)", kind_names[pc->kind],
                                 info.rows, info.cols, fusion, run);
                        check_bytes(ctx, dd, want, n * es, what, es, n);
                    }
                    clReleaseMemObject(ds), clReleaseMemObject(dd);
                    free(src), free(want);
                }
                uint64_t bytes = 0;
                cr_assert_eq(clperm_perm_plan_bytes(plan, 16, &bytes), CLPERM_SUCCESS);
                cr_assert_geq(bytes, info.schedule_bytes + (uint64_t)info.rows * info.cols * 16);
                clperm_perm_plan_free(plan);
            }
            free(p);
        }
        clperm_perm_plan_free(NULL);
    }
}

/* The plan of P, then the plan of P^-1, in place, gives the input back; plans from device index
 * arrays of u64 indices give the same as from the host's u32. */
Test(perm_plan, round_trip) {
    uint64_t seed = test_seed();
#ifdef CLPERM_TEST_SMALL
    static const uint64_t ns[] = {1000};
#else
    static const uint64_t ns[] = {3, 1000, 70000};
#endif
    TEST_EACH_DEVICE(ctx) {
        for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
            uint64_t n = ns[s];
            uint32_t *p = xmalloc(n * 4);
            uint64_t *q = xmalloc(n * 8);
            make_perm(p, n, RANDOM, 1, seed + s);
            for (uint64_t i = 0; i < n; i++) q[p[i]] = i;
            cl_mem dq = device_copy(ctx, q, n * 8);
            clperm_perm_plan *fwd = NULL, *inv = NULL;
            cr_assert_eq(clperm_perm_plan_create(ctx, &fwd, CLPERM_TYPE_U32, p, n, NULL), CLPERM_SUCCESS);
            cr_assert_eq(clperm_perm_plan_create_device(ctx, &inv, CLPERM_TYPE_U64, dq, n, NULL), CLPERM_SUCCESS);
            unsigned char *src = xmalloc(n * 8), *got = xmalloc(n * 8), *want = xmalloc(n * 8);
            test_fill_random(src, n * 8, seed * 3 + n);
            cr_assert_eq(clperm_permute_scatter_host(src, want, n, 8, CLPERM_TYPE_U32, p), CLPERM_SUCCESS);
            cl_mem buf = device_copy(ctx, src, n * 8);
            cr_assert_eq(clperm_perm_plan_execute(fwd, buf, buf, 8, 0, NULL, NULL), CLPERM_SUCCESS);
            check_bytes(ctx, buf, want, n * 8, "in place", 8, n);
            cr_assert_eq(clperm_perm_plan_execute(inv, buf, buf, 8, 0, NULL, NULL), CLPERM_SUCCESS);
            cr_assert_eq(test_read(ctx, buf, n * 8, got), 0);
            cr_assert(memcmp(got, src, n * 8) == 0, "%s: P then P^-1 of %llu items is not the input",
                      test_device_label(ctx), (unsigned long long)n);
            clperm_perm_plan_free(fwd), clperm_perm_plan_free(inv);
            clReleaseMemObject(buf), clReleaseMemObject(dq);
            free(p), free(q), free(src), free(got), free(want);
        }
    }
}

/* Index arrays that are not permutations are refused before any work; bad buffers and item sizes
 * at execute are refused with nothing written. */
Test(perm_plan, bad_input_refused) {
    TEST_EACH_DEVICE(ctx) {
        enum { N = 100 };
        uint32_t p[N];
        for (int i = 0; i < N; i++) p[i] = (uint32_t)((i * 37) % N);
        clperm_perm_plan *plan = (clperm_perm_plan *)&p; /* must stay untouched on failure */
        clperm_perm_plan *const sentinel = plan;
        p[10] = p[20]; /* a repeat */
        cr_assert_eq(clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, N, NULL), CLPERM_ERROR_NOT_PERMUTATION);
        p[10] = N; /* out of range, and 10 * 37 % 100 = 70 now missing */
        cr_assert_eq(clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, N, NULL), CLPERM_ERROR_NOT_PERMUTATION);
        p[10] = 70;
        uint64_t p64[N];
        for (int i = 0; i < N; i++) p64[i] = p[i];
        p64[3] = UINT64_C(1) << 40;
        cr_assert_eq(clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U64, p64, N, NULL), CLPERM_ERROR_NOT_PERMUTATION);
        cl_mem dbad = device_copy(ctx, p64, sizeof p64);
        cr_assert_eq(clperm_perm_plan_create_device(ctx, &plan, CLPERM_TYPE_U64, dbad, N, NULL),
                     CLPERM_ERROR_NOT_PERMUTATION);
        cr_assert_eq(clperm_perm_plan_create_device(ctx, &plan, CLPERM_TYPE_U64, dbad, 2 * N, NULL),
                     CLPERM_ERROR_BUFFER_TOO_SMALL);
        cr_assert_eq(clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, 0, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, NULL, N, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_perm_plan_create(ctx, &plan, (clperm_type)3, p, N, NULL), CLPERM_ERROR_INVALID_TYPE);
        clperm_perm_plan_opts bad = {NULL, NULL, 0, 3};
        cr_assert_eq(clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, N, &bad), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert(plan == sentinel, "a failed create wrote *out");
        clReleaseMemObject(dbad);

        cr_assert_eq(clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, N, NULL), CLPERM_SUCCESS);
        uint32_t canary[4 * N], got[4 * N];
        memset(canary, 0xC3, sizeof canary);
        cl_mem src = device_copy(ctx, canary, sizeof canary), dst = device_copy(ctx, canary, sizeof canary);
        cl_mem small = device_copy(ctx, canary, 4 * (N - 1));
        cr_assert_eq(clperm_perm_plan_execute(plan, src, small, 4, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL);
        cr_assert_eq(clperm_perm_plan_execute(plan, small, dst, 4, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL);
        cr_assert_eq(clperm_perm_plan_execute(plan, src, dst, 32, 0, NULL, NULL), CLPERM_ERROR_INVALID_TYPE);
        cr_assert_eq(clperm_perm_plan_execute(plan, src, dst, 16, 0, NULL, NULL), CLPERM_SUCCESS);
        cr_assert_eq(clperm_perm_plan_execute(plan, small, src, 16, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL);
        cr_assert_eq(clperm_perm_plan_execute(plan, src, dst, 4, 1, NULL, NULL), CLPERM_ERROR_INVALID_EVENT_LIST);
        cr_assert_eq(clperm_perm_plan_execute(NULL, src, dst, 4, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(test_read(ctx, small, 4 * (N - 1), got), 0);
        cr_assert(memcmp(got, canary, 4 * (N - 1)) == 0, "a refused execute wrote the small buffer");
        cr_assert_eq(test_read(ctx, src, sizeof got, got), 0);
        cr_assert(memcmp(got, canary, sizeof got) == 0, "a refused execute wrote src");
        clperm_perm_plan_free(plan);
        clReleaseMemObject(src), clReleaseMemObject(dst), clReleaseMemObject(small);
    }
}

/* The row-wise steps (and the column step of the three-pass structure) with the plan's schedules:
 * no bank conflicts for any item size; with no schedule, conflicts. */
Test(perm_plan, conflicts_measured) {
    uint64_t seed = test_seed();
#ifdef CLPERM_TEST_SMALL
    static const plan_case cases[] = {{4096, RANDOM, 1}};
#else
    static const plan_case cases[] = {{65536, RANDOM, 1}, {65536, BIT_REVERSAL, 1}, {99960, TRANSPOSE, 357},
                                      {40000, RANDOM, 1}};
#endif
    TEST_EACH_DEVICE(ctx) {
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            uint64_t n = cases[c].n;
            uint32_t *p = xmalloc(n * 4);
            make_perm(p, n, cases[c].kind, cases[c].rows, seed + c);
            for (int fusion = 1; fusion <= 2; fusion++) {
                clperm_perm_plan_opts opts = {NULL, NULL, 0, fusion};
                clperm_perm_plan *plan = NULL;
                cr_assert_eq(clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, n, &opts), CLPERM_SUCCESS);
                for (size_t e = 0; e < 3; e++) {
                    clperm_conflict_report r, naive;
                    cr_assert_eq(clperm_perm_plan_conflicts(plan, sizes_es[e], 2, 0, &r), CLPERM_SUCCESS);
                    cr_assert_eq(clperm_perm_plan_conflicts(plan, sizes_es[e], 2, 1, &naive), CLPERM_SUCCESS);
                    cr_assert_gt(r.accesses, 0);
                    cr_assert_eq(r.conflicts, 0, "%s: %s n=%llu fusion %d, %zu-byte: %llu conflicts (%u-way)",
                                 test_device_label(ctx), kind_names[cases[c].kind], (unsigned long long)n, fusion,
                                 sizes_es[e], (unsigned long long)r.conflicts, r.max_ways);
                    if (cases[c].kind == RANDOM)
                        cr_assert_gt(naive.conflicts, 0, "no schedule and no conflicts: the check cannot fail");
                    cr_log_info("%s n=%llu fusion %d %zu-byte: %llu accesses, 0 conflicts; unscheduled %llu (%u-way)",
                                kind_names[cases[c].kind], (unsigned long long)n, fusion, sizes_es[e],
                                (unsigned long long)r.accesses, (unsigned long long)naive.conflicts, naive.max_ways);
                }
                clperm_perm_plan_free(plan);
            }
            free(p);
        }
    }
}

/* Progress reaches 1 and never goes back. */
static void on_progress(void *user, double f) {
    double *last = user;
    cr_assert_geq(f, *last, "progress went back: %f after %f", f, *last);
    cr_assert_leq(f, 1.0);
    *last = f;
}

Test(perm_plan, progress_reported) {
    TEST_EACH_DEVICE(ctx) {
        uint64_t n = 50000;
        uint32_t *p = xmalloc(n * 4);
        make_perm(p, n, RANDOM, 1, test_seed());
        double last = 0;
        clperm_perm_plan_opts opts = {on_progress, &last, 1, 0};
        clperm_perm_plan *plan = NULL;
        cr_assert_eq(clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, n, &opts), CLPERM_SUCCESS);
        cr_assert_eq(last, 1.0, "progress ended at %f", last);
        clperm_perm_plan_info info;
        cr_assert_eq(clperm_perm_plan_query(plan, &info), CLPERM_SUCCESS);
        cr_assert_eq(info.threads, 1);
        cr_assert_geq(info.seconds_total, info.seconds_colour + info.seconds_schedule);
        clperm_perm_plan_free(plan);
        free(p);
    }
}
