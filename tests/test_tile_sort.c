/* Tile sorts: the host reference orders keys (f32 specials included) and is stable; every device
 * gives the reference's output bit for bit for every algorithm, key type, with and without values,
 * at awkward segment sizes and key patterns; the conflict-free sorts show zero bank conflicts in
 * their trace at every width, the plain bitonic network more than zero and the padded one fewer;
 * bad input writes nothing.
 * Each program built (one per algorithm, key type, values and tile) costs seconds, so by default
 * the tests cover their parameters pairwise, each test saying how; CLPERM_TEST_FULL=1 runs the full
 * product (test_full()). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const clperm_key_type types[] = {CLPERM_KEY_U32, CLPERM_KEY_I32, CLPERM_KEY_F32, CLPERM_KEY_U64};
static const char *const type_names[] = {"", "u32", "i32", "f32", "u64"};
static const clperm_tile_sort algos[] = {CLPERM_TILE_SORT_SHEAR, CLPERM_TILE_SORT_BITONIC,
                                         CLPERM_TILE_SORT_BITONIC_PADDED, CLPERM_TILE_SORT_AS,
                                         CLPERM_TILE_SORT_AS_WIDE};
static const char *const algo_names[] = {"auto", "shear", "bitonic", "bitonic-padded", "as", "counting", "as-wide"};

/* Key patterns: random bits, few distinct values (stability), all equal, ascending, descending,
 * and for f32 a mix of the special values. */
enum { RANDOM, FEW, EQUAL, ASCENDING, DESCENDING, SPECIAL, PATTERNS };

static const uint32_t f32_special[] = {0x7FC00000u, 0xFFC00000u, 0x7F800000u, 0xFF800000u, 0x00000000u,
                                       0x80000000u, 0x3F800000u, 0xBF800000u, 0x00000001u, 0x80000001u,
                                       0x7F7FFFFFu, 0xFF7FFFFFu, 0x7FA00000u, 0xFFA00001u};

static void fill_keys(void *keys, clperm_key_type type, uint64_t n, int pattern, uint64_t seed) {
    size_t ks = clperm_key_size(type);
    test_fill_random(keys, n * ks, seed);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k;
        memcpy(&k, (char *)keys + i * ks, ks);
        switch (pattern) {
        case FEW: k %= 3; break;
        case EQUAL: k = 42; break;
        case ASCENDING: k = i; break;
        case DESCENDING: k = n - i; break;
        case SPECIAL: k = type == CLPERM_KEY_F32 ? f32_special[k % (sizeof f32_special / 4)] : k; break;
        default: break;
        }
        memcpy((char *)keys + i * ks, &k, ks);
    }
}

Test(tile_sort_host, orders_and_is_stable) {
    /* f32 totalOrder with NaNs at both ends. */
    float f[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f};
    uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    cr_assert_eq(clperm_sort_segments_host(CLPERM_KEY_F32, f, v, 8, 8), CLPERM_SUCCESS);
    const uint32_t want[8] = {1, 3, 7, 5, 4, 6, 2, 0};
    cr_assert(memcmp(v, want, sizeof want) == 0, "f32 order: got %u %u %u %u %u %u %u %u", v[0], v[1], v[2], v[3],
              v[4], v[5], v[6], v[7]);
    int32_t s[] = {3, -1, INT32_MIN, INT32_MAX, 0};
    cr_assert_eq(clperm_sort_segments_host(CLPERM_KEY_I32, s, NULL, 5, 5), CLPERM_SUCCESS);
    cr_assert(s[0] == INT32_MIN && s[1] == -1 && s[2] == 0 && s[3] == 3 && s[4] == INT32_MAX);
    /* Segments are separate; equal keys keep their order. */
    uint32_t k[10] = {5, 1, 5, 1, 5, 2, 2, 0, 2, 9}, w[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    cr_assert_eq(clperm_sort_segments_host(CLPERM_KEY_U32, k, w, 10, 4), CLPERM_SUCCESS);
    const uint32_t wk[10] = {1, 1, 5, 5, 0, 2, 2, 5, 2, 9}, ww[10] = {1, 3, 0, 2, 7, 5, 6, 4, 8, 9};
    cr_assert(memcmp(k, wk, sizeof wk) == 0 && memcmp(w, ww, sizeof ww) == 0, "segments or stability broken");
}

static cl_mem device_copy(clperm_ctx *ctx, const void *host, size_t bytes) {
    cl_mem m = test_buffer(ctx, bytes ? bytes : 4, host);
    cr_assert(m);
    return m;
}

/* One case on one device: keys (and values) sorted there and on the host, or partitioned by the
 * label of `bits` bits at `shift` when bits > 0, compared bit for bit. The host's partition is
 * checked too: labels in order, input order within a label. */
static void check_case(clperm_ctx *ctx, clperm_key_type type, int with_values, clperm_tile_sort algo,
                       uint64_t segment, uint64_t n, int pattern, uint64_t seed, unsigned shift, unsigned bits) {
    size_t ks = clperm_key_size(type);
    size_t kb = (size_t)n * ks, vb = (size_t)n * 4;
    void *keys = malloc(kb + 8), *want = malloc(kb + 8), *got = malloc(kb + 8);
    uint32_t *vals = malloc(vb + 4), *wantv = malloc(vb + 4), *gotv = malloc(vb + 4);
    cr_assert(keys && want && got && vals && wantv && gotv);
    fill_keys(keys, type, n, pattern, seed);
    for (uint64_t i = 0; i < n; i++) vals[i] = (uint32_t)i;
    memcpy(want, keys, kb);
    memcpy(wantv, vals, vb);
    cr_assert_eq(bits ? clperm_partition_segments_host(type, want, wantv, n, segment, shift, bits)
                      : clperm_sort_segments_host(type, want, wantv, n, segment),
                 CLPERM_SUCCESS);
    for (uint64_t i = 1; bits && i < n; i++) {
        if (i % segment == 0) continue;
        uint64_t a = test_item(want, i - 1, ks), b = test_item(want, i, ks);
        if (type == CLPERM_KEY_I32) a ^= 0x80000000u, b ^= 0x80000000u;
        a = (a >> shift) & ((1u << bits) - 1), b = (b >> shift) & ((1u << bits) - 1);
        cr_assert(a < b || (a == b && wantv[i - 1] < wantv[i]), "host partition out of order at %llu",
                  (unsigned long long)i);
    }
    cl_mem dk = device_copy(ctx, keys, kb), dv = with_values ? device_copy(ctx, vals, vb) : NULL;
    clperm_status st = bits ? clperm_partition_segments(ctx, type, dk, dv, n, segment, shift, bits, algo, 0, NULL, NULL)
                            : clperm_sort_segments(ctx, type, dk, dv, n, segment, algo, 0, NULL, NULL);
    cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s %s values=%d segment=%llu n=%llu bits=%u: %s", test_device_label(ctx),
                 algo_names[algo], type_names[type], with_values, (unsigned long long)segment, (unsigned long long)n,
                 bits, clperm_status_name(st));
    cr_assert_eq(test_read(ctx, dk, kb, got), 0);
    uint64_t d = test_first_diff(want, got, n, ks);
    cr_assert_eq(d, n, "%s: %s %s values=%d segment=%llu n=%llu pattern=%d seed=%#llx shift=%u bits=%u: key %llu differs",
                 test_device_label(ctx), algo_names[algo], type_names[type], with_values, (unsigned long long)segment,
                 (unsigned long long)n, pattern, (unsigned long long)seed, shift, bits, (unsigned long long)d);
    if (with_values) {
        cr_assert_eq(test_read(ctx, dv, vb, gotv), 0);
        d = test_first_diff(wantv, gotv, n, 4);
        cr_assert_eq(d, n, "%s: %s %s segment=%llu n=%llu pattern=%d bits=%u: value %llu differs",
                     test_device_label(ctx), algo_names[algo], type_names[type], (unsigned long long)segment,
                     (unsigned long long)n, pattern, bits, (unsigned long long)d);
        clReleaseMemObject(dv);
    }
    clReleaseMemObject(dk);
    free(keys), free(want), free(got), free(vals), free(wantv), free(gotv);
}

#define TYPES (sizeof types / sizeof types[0])
#define ALGOS (sizeof algos / sizeof algos[0])

/* The segment lengths the full run (CLPERM_TEST_FULL) takes: the long list for two combinations of
 * key type and values, the short one for the others. */
#ifdef CLPERM_TEST_SMALL
static const uint64_t segments[] = {1, 2, 3, 8, 9, 33, 64, 100};
static const uint64_t few_segments[] = {7, 65};
#define PATTERN_COUNT 2
#else
static const uint64_t segments[] = {1,  2,  3,   5,   7,   8,   9,   15,  16,   17,   31,   32,   33,   63,  64,
                                    65, 97, 127, 128, 129, 255, 257, 511, 1000, 1023, 1024, 1025, 2047, 2048};
static const uint64_t few_segments[] = {1, 2, 31, 33, 257, 1025};
#define PATTERN_COUNT PATTERNS
#endif

/* Every pattern on segments of seg keys (no longer than the algorithm's largest, max), in 3.5
 * segments and one key more: a partial last segment, several tiles and work-groups. */
static void check_patterns(clperm_ctx *ctx, clperm_key_type type, int with_values, clperm_tile_sort algo,
                           uint64_t seg, uint64_t max, uint64_t seed) {
    seg = seg < max ? seg : max;
    uint64_t n = 3 * seg + seg / 2 + (seg > 1);
    for (int pattern = 0; pattern < PATTERN_COUNT; pattern++)
        check_case(ctx, type, with_values, algo, seg, n, pattern, seed + seg * 131 + (uint64_t)pattern, 0, 0);
}

/* The largest segment, in two segments and one key more, and a single key. */
static void check_largest(clperm_ctx *ctx, clperm_key_type type, int with_values, clperm_tile_sort algo,
                          uint64_t max, uint64_t seed) {
    check_case(ctx, type, with_values, algo, max, 2 * max + 1, RANDOM, seed, 0, 0);
    check_case(ctx, type, with_values, algo, max, 1, RANDOM, seed, 0, 0);
}

static uint64_t prime_above(uint64_t x) {
    for (uint64_t p = x + 1;; p++) {
        int prime = p > 1;
        for (uint64_t d = 2; prime && d * d <= p; d++) prime = p % d != 0;
        if (prime) return p;
    }
}

/* The awkward segment lengths of an algorithm whose largest tile holds max keys in w columns, in
 * rows of one tile shape each (one program each): 1; 2; w - 1 and w; w + 1; a prime above max / 4
 * (a tile of max / 2); max and a single key. Writes row r's lengths to seg and returns how many. */
enum { AWKWARD_ROWS = 6, LARGEST_ROW = AWKWARD_ROWS - 1 };
static size_t awkward_row(int r, uint32_t w, uint64_t max, uint64_t seg[2]) {
    switch (r) {
    case 0: seg[0] = 1; return 1;
    case 1: seg[0] = 2; return 1;
    case 2: seg[0] = w > 1 ? w - 1 : 1, seg[1] = w; return 2;
    case 3: seg[0] = (uint64_t)w + 1; return 1;
    case 4: seg[0] = prime_above(max / 4); return 1;
    default: seg[0] = max; return 1;
    }
}

/* The longest segment an algorithm takes, and the width of its tile. */
static uint64_t largest(clperm_ctx *ctx, clperm_key_type type, int with_values, clperm_tile_sort algo, uint32_t *w) {
    uint64_t max;
    clperm_tile_shape shape;
    cr_assert_eq(clperm_sort_segment_max(ctx, type, with_values, algo, &max), CLPERM_SUCCESS);
    cr_assert_eq(clperm_sort_tile_shape(ctx, type, with_values, max, algo, &shape), CLPERM_SUCCESS);
    *w = shape.w;
    return max;
}

/* Every algorithm against the host. The default run covers the parameters pairwise: row r of
 * algorithm a (awkward_row) takes the (a + r)-th of the 8 combinations of key type and values, so
 * that every algorithm meets every key type, keys alone and with values, and every type both;
 * every pattern runs on every row, so f32's special values reach every algorithm. That builds one
 * program per row, 30 in all; the full run (CLPERM_TEST_FULL) builds one per key type, values,
 * algorithm and tile. */
Test(tile_sort, device_equals_host) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    const size_t all = sizeof segments / sizeof segments[0], few = sizeof few_segments / sizeof few_segments[0];
    TEST_EACH_DEVICE(ctx) {
        for (size_t a = 0; a < ALGOS; a++) {
            uint32_t w;
            for (size_t c = 0; test_full() && c < 2 * TYPES; c++) {
                clperm_key_type type = types[c % TYPES];
                int with_values = (int)(c / TYPES), full = type == (with_values ? CLPERM_KEY_F32 : CLPERM_KEY_U32);
                uint64_t max = largest(ctx, type, with_values, algos[a], &w);
                for (size_t s = 0; s < (full ? all : few); s++)
                    check_patterns(ctx, type, with_values, algos[a], full ? segments[s] : few_segments[s], max, seed);
                check_largest(ctx, type, with_values, algos[a], max, seed);
            }
            for (int r = 0; !test_full() && r < AWKWARD_ROWS; r++) {
                size_t c = (a + (size_t)r) % (2 * TYPES);
                clperm_key_type type = types[c % TYPES];
                int with_values = (int)(c / TYPES);
                uint64_t seg[2], max = largest(ctx, type, with_values, algos[a], &w);
                size_t count = awkward_row(r, w, max, seg);
                if (r == LARGEST_ROW) {
                    check_largest(ctx, type, with_values, algos[a], max, seed);
                    continue;
                }
                for (size_t i = 0; i < count; i++)
                    check_patterns(ctx, type, with_values, algos[a], seg[i], max, seed);
            }
        }
    }
}

/* Bank conflicts counted from the trace build: none for Shearsort on the diagonal arrangement and
 * for the Afshani-Sitchinava sorts, some for the plain bitonic network (which shows that the check
 * can fail) and fewer with its padded layout, at widths 4 to 64 and several tile lengths, keys
 * alone and with values. The full run (CLPERM_TEST_FULL) traces every length at every width, keys
 * alone and with values; the default run one tile per algorithm and width: the k-th of its
 * lengths at the k-th width (wrapping), keys alone and with values in turn from width to width.
 * Each algorithm must have been traced both ways. */
Test(tile_sort, conflicts_measured) {
#ifdef CLPERM_TEST_SMALL
    static const uint32_t widths[] = {4, 8};
#else
    static const uint32_t widths[] = {4, 8, 16, 32, 64};
#endif
    /* Values or not at the narrowest width, per algorithm (as algos): the bitonic networks alike,
     * to compare them; Lemma 1 with values, as its tile with values fits only the narrowest. */
    static const int values_first[] = {0, 1, 1, 1, 0};
    TEST_EACH_DEVICE(ctx) {
        int traced[ALGOS][2] = {{0}}, compared = 0;
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            uint32_t w = widths[wi];
            if (clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_WIDTH, (int)w) != CLPERM_SUCCESS) continue;
            for (int with_values = 0; with_values < 2; with_values++) {
                /* The plain bitonic network's conflicts at each length, for the padded one. */
                uint64_t plain_seg[4] = {0}, plain[4] = {0};
                for (size_t a = 0; a < ALGOS; a++) {
                    if (!test_full() && with_values != (values_first[a] + (int)wi) % 2) continue;
                    /* Tiles of m = w .. 4w columns; m = w*w and 2w*w for Lemma 1; for Theorems 1
                     * and 2 the w x m tiles with m = 4^i, w/16 < m <= w (shorter m take a
                     * narrower tile), square tiles included. */
                    int as = algos[a] == CLPERM_TILE_SORT_AS, wide = algos[a] == CLPERM_TILE_SORT_AS_WIDE;
                    uint64_t m0 = 1;
                    while (m0 * 16 <= w) m0 *= 4;
                    uint64_t max, first = wide ? w * m0 : (uint64_t)w * w * (as ? w : 1), segs[4];
                    size_t count = 0;
                    cr_assert_eq(clperm_sort_segment_max(ctx, CLPERM_KEY_U32, with_values, algos[a], &max),
                                 CLPERM_SUCCESS);
                    for (uint64_t seg = first; seg <= max && seg <= first * (as ? 2 : wide ? w / m0 : 4);
                         seg *= wide ? 4 : 2) {
                        cr_assert_lt(count, 4);
                        segs[count++] = seg;
                    }
                    for (size_t k = 0; k < count; k++) {
                        if (!test_full() && k != wi % count) continue;
                        uint64_t seg = segs[k];
                        clperm_conflict_report r;
                        clperm_status st =
                            clperm_sort_conflicts(ctx, CLPERM_KEY_U32, with_values, seg, algos[a], NULL, 2 * seg, &r);
                        cr_assert_eq(st, CLPERM_SUCCESS, "%s: trace %s w=%u seg=%llu: %s", test_device_label(ctx),
                                     algo_names[algos[a]], w, (unsigned long long)seg, clperm_status_name(st));
                        cr_assert_eq(r.shape.w, w, "%s seg=%llu: w=%u", algo_names[algos[a]],
                                     (unsigned long long)seg, r.shape.w);
                        cr_assert_gt(r.accesses, 2 * seg, "trace recorded too little");
                        cr_log_info("%s w=%u m=%u values=%d, per tile (%llu traced): %llu accesses in %llu steps, "
                                    "%llu conflicts, at most %u-way",
                                    algo_names[algos[a]], r.shape.w, r.shape.m, with_values,
                                    (unsigned long long)r.tiles, (unsigned long long)(r.accesses / r.tiles),
                                    (unsigned long long)(r.steps / r.tiles), (unsigned long long)(r.conflicts / r.tiles),
                                    r.max_ways);
                        traced[a][with_values]++;
                        if (algos[a] == CLPERM_TILE_SORT_SHEAR || as || wide)
                            cr_assert_eq(r.conflicts, 0, "%s w=%u seg=%llu: %llu conflicts", algo_names[algos[a]], w,
                                         (unsigned long long)seg, (unsigned long long)r.conflicts);
                        if (algos[a] == CLPERM_TILE_SORT_BITONIC) {
                            cr_assert_gt(r.conflicts, 0, "plain bitonic w=%u: no conflicts found", w);
                            plain_seg[k] = seg, plain[k] = r.conflicts;
                        }
                        if (algos[a] == CLPERM_TILE_SORT_BITONIC_PADDED && plain_seg[k] == seg && ++compared)
                            cr_assert_lt(r.conflicts, plain[k], "padded bitonic w=%u seg=%llu: %llu conflicts, "
                                         "%llu without the padding", w, (unsigned long long)seg,
                                         (unsigned long long)r.conflicts, (unsigned long long)plain[k]);
                    }
                }
            }
        }
        for (size_t a = 0; a < ALGOS; a++)
            for (int with_values = 0; with_values < 2; with_values++)
                cr_assert(traced[a][with_values], "%s values=%d: no tile traced", algo_names[algos[a]], with_values);
        cr_assert_gt(compared, 0, "the padded bitonic network was not traced on a tile of the plain one");
    }
}

/* Partitions by labels of 1, 4 and 8 bits at low, middle and top positions, against the host, by
 * every algorithm, keys alone and with values. The default run takes one segment length for each
 * key type and label width, the (type + width)-th: every type with every width, every width at
 * every position, every algorithm and length; the full run (CLPERM_TEST_FULL) every length. */
Test(tile_sort, partition_equals_host) {
    uint64_t seed = test_seed();
    static const clperm_key_type ptypes[] = {CLPERM_KEY_U32, CLPERM_KEY_I32, CLPERM_KEY_U64};
    static const unsigned bits[] = {1, 4, 8};
#ifdef CLPERM_TEST_SMALL
    static const uint64_t psegs[] = {5, 64};
#else
    static const uint64_t psegs[] = {1, 5, 33, 256, 1000};
#endif
    TEST_EACH_DEVICE(ctx) {
        for (size_t t = 0; t < sizeof ptypes / sizeof ptypes[0]; t++)
            for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
                for (size_t s = 0; s < sizeof psegs / sizeof psegs[0]; s++) {
                    if (!test_full() && s != (t + b) % (sizeof psegs / sizeof psegs[0])) continue;
                    unsigned width = 8 * (unsigned)clperm_key_size(ptypes[t]);
                    unsigned shift = (unsigned)(s % 3 == 0 ? 0 : s % 3 == 1 ? width / 2 : width - bits[b]);
                    int with_values = (int)((t + b) & 1);
                    clperm_tile_sort algo = algos[(s + t) % ALGOS];
                    uint64_t max;
                    cr_assert_eq(clperm_sort_segment_max(ctx, ptypes[t], 1, algo, &max), CLPERM_SUCCESS);
                    uint64_t seg = psegs[s] < max ? psegs[s] : max;
                    check_case(ctx, ptypes[t], with_values, algo, seg, 2 * seg + seg / 3 + 1, RANDOM, seed + s, shift,
                               bits[b]);
                }
        /* Bad labels. */
        cl_mem dk = device_copy(ctx, NULL, 64);
        cr_assert_eq(clperm_partition_segments(ctx, CLPERM_KEY_U32, dk, NULL, 16, 16, 0, 0, 0, 0, NULL, NULL),
                     CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_partition_segments(ctx, CLPERM_KEY_U32, dk, NULL, 16, 16, 0, 9, 0, 0, NULL, NULL),
                     CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_partition_segments(ctx, CLPERM_KEY_U32, dk, NULL, 16, 16, 28, 5, 0, 0, NULL, NULL),
                     CLPERM_ERROR_INVALID_ARGUMENT);
        clReleaseMemObject(dk);
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The label of key i as the device sees it (the order-preserving form; f32 is not used here). */
static uint64_t label_of(const void *keys, uint64_t i, clperm_key_type type, unsigned shift, unsigned bits) {
    uint64_t k = test_item(keys, i, clperm_key_size(type));
    if (type == CLPERM_KEY_I32) k ^= 0x80000000u;
    return (k >> shift) & ((1u << bits) - 1);
}

/* Labels of only 0 and 2^bits - 1, the first with a density that varies from segment to segment:
 * the 0-1 inputs the proofs of Lemma 1 and Theorem 1 reason about. */
static void two_labels(void *keys, clperm_key_type type, uint64_t n, uint64_t seg, unsigned shift, unsigned bits) {
    size_t ks = clperm_key_size(type);
    uint64_t flip = type == CLPERM_KEY_I32 ? 0x80000000u : 0, mask = ((UINT64_C(1) << bits) - 1) << shift;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = test_item(keys, i, ks) ^ flip, density = (i / seg * 37) % 101;
        k = (k & ~mask) | ((k >> 40 ^ k >> 8 ^ k) % 100 < density ? 0 : mask);
        k ^= flip;
        memcpy((char *)keys + i * ks, &k, ks);
    }
}

/* The counting partition (Corollary 1 and Theorem 1) is not stable: its output must have the host's
 * labels at every position, and within each run of one label the same keys. Every device, 1 to 4
 * label bits, awkward segments (a partial one last) around both kinds of tile, and zero bank
 * conflicts in the trace. The full run (CLPERM_TEST_FULL) takes every length for every key type
 * and label width; the default run one length for each, the (3 type + 2 width + 4)-th (modulo
 * their number): every type with every width, the shortest and the longest length and most
 * between, and at every width and with every type both kinds of tile where there are both. */
Test(tile_sort, counting_partition_groups_labels) {
    uint64_t seed = test_seed();
    static const clperm_key_type ptypes[] = {CLPERM_KEY_U32, CLPERM_KEY_I32, CLPERM_KEY_U64};
    /* The two-label pattern's segments, each with a density of its own (fewer under Oclgrind,
     * where each can take a tile of 256 keys). */
#ifdef CLPERM_TEST_SMALL
    static const uint64_t psegs[] = {1, 9, 16, 64};
    const uint64_t two_label_segments = 6;
#else
    static const uint64_t psegs[] = {1, 2, 7, 9, 15, 16, 17, 63, 65, 255, 256, 257, 512, 1000};
    const uint64_t two_label_segments = 24;
#endif
    TEST_EACH_DEVICE(ctx) {
        for (size_t t = 0; t < sizeof ptypes / sizeof ptypes[0]; t++)
            for (unsigned bits = 1; bits <= 4; bits++)
                for (size_t s = 0; s < sizeof psegs / sizeof psegs[0]; s++)
                    for (int pattern = 0; pattern < 4; pattern++) {
                        if (!test_full() && s != (3 * t + 2 * bits + 4) % (sizeof psegs / sizeof psegs[0])) continue;
                        clperm_key_type type = ptypes[t];
                        size_t ks = clperm_key_size(type);
                        uint64_t seg = psegs[s], n = (pattern == 3 ? two_label_segments : 2) * seg + seg / 3 + 1, max = 0;
                        /* The label's bits at either end of the key (one program per type, bits and tile). */
                        unsigned shift = (unsigned)((t + bits) % 2 ? 8 * ks - bits : 3);
                        cr_assert_eq(clperm_partition_segment_max(ctx, type, bits, CLPERM_TILE_PARTITION_COUNTING, &max),
                                     CLPERM_SUCCESS);
                        if (seg > max) continue;
                        void *keys = malloc(n * ks), *want = malloc(n * ks), *got = malloc(n * ks);
                        uint64_t *a = malloc(n * 8), *b = malloc(n * 8);
                        cr_assert(keys && want && got && a && b);
                        fill_keys(keys, type, n, pattern == 2 ? EQUAL : pattern == 1 ? FEW : RANDOM, seed + s);
                        if (pattern == 3) two_labels(keys, type, n, seg, shift, bits);
                        memcpy(want, keys, n * ks);
                        cr_assert_eq(clperm_partition_segments_host(type, want, NULL, n, seg, shift, bits), CLPERM_SUCCESS);
                        cl_mem dk = device_copy(ctx, keys, n * ks);
                        clperm_status st = clperm_partition_segments(ctx, type, dk, NULL, n, seg, shift, bits,
                                                                     CLPERM_TILE_PARTITION_COUNTING, 0, NULL, NULL);
                        cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s bits=%u segment=%llu: %s", test_device_label(ctx),
                                     type_names[type], bits, (unsigned long long)seg, clperm_status_name(st));
                        cr_assert_eq(test_read(ctx, dk, n * ks, got), 0);
                        clReleaseMemObject(dk);
                        for (uint64_t i = 0; i < n;) {
                            uint64_t l = label_of(want, i, type, shift, bits), j = i;
                            while (j < n && (j == i || j % seg != 0) && label_of(want, j, type, shift, bits) == l) {
                                cr_assert_eq(label_of(got, j, type, shift, bits), l,
                                             "%s: %s bits=%u segment=%llu pattern=%d: label at %llu",
                                             test_device_label(ctx), type_names[type], bits, (unsigned long long)seg,
                                             pattern, (unsigned long long)j);
                                a[j - i] = test_item(want, j, ks);
                                b[j - i] = test_item(got, j, ks);
                                j++;
                            }
                            qsort(a, j - i, 8, cmp_u64);
                            qsort(b, j - i, 8, cmp_u64);
                            cr_assert(memcmp(a, b, (j - i) * 8) == 0, "%s: %s bits=%u segment=%llu: keys of label %llu "
                                      "at %llu differ", test_device_label(ctx), type_names[type], bits,
                                      (unsigned long long)seg, (unsigned long long)l, (unsigned long long)i);
                            i = j;
                        }
                        free(keys), free(want), free(got), free(a), free(b);
                    }
        /* No bank conflicts, whatever the labels send where: Corollary 1's tiles at w^3 and 2w^3
         * keys (w = 2^bits; the default run takes one of the two at each width, in turn),
         * Theorem 1's square tiles of s^4 keys. */
        for (unsigned bits = 1; bits <= 4; bits++) {
            uint64_t w = bits == 1 ? 2 : UINT64_C(1) << bits;
            uint64_t cases[4][2] = {{w * w * w, w}, {2 * w * w * w, w}, {16, 4}, {256, 16}};
            for (int c = 0; c < 4; c++)
                for (int pattern = 0; pattern < 2; pattern++) {
                    if (!test_full() && c < 2 && c != (int)bits % 2) continue;
                    uint64_t seg = cases[c][0], max = 0;
                    cr_assert_eq(clperm_partition_segment_max(ctx, CLPERM_KEY_U32, bits, CLPERM_TILE_PARTITION_COUNTING,
                                                              &max), CLPERM_SUCCESS);
                    if (seg > max || (c >= 2 && (cases[c][1] < (1u << bits) || seg >= w * w * w))) continue;
                    uint32_t *keys = malloc(2 * seg * 4);
                    fill_keys(keys, CLPERM_KEY_U32, 2 * seg, pattern ? FEW : RANDOM, seed + seg);
                    clperm_conflict_report r;
                    clperm_status st = clperm_partition_conflicts(ctx, CLPERM_KEY_U32, seg, 0, bits,
                                                                  CLPERM_TILE_PARTITION_COUNTING, keys, 2 * seg, &r);
                    free(keys);
                    cr_assert_eq(st, CLPERM_SUCCESS, "%s: counting trace bits=%u: %s", test_device_label(ctx), bits,
                                 clperm_status_name(st));
                    cr_assert_eq(r.shape.w, cases[c][1], "bits=%u segment=%llu: w=%u", bits, (unsigned long long)seg,
                                 r.shape.w);
                    cr_assert_eq((uint64_t)r.shape.w * r.shape.m, seg);
                    cr_assert_gt(r.accesses, 20 * seg, "trace recorded too little");
                    cr_assert_eq(r.conflicts, 0, "counting partition w=%u m=%u: %llu conflicts", r.shape.w, r.shape.m,
                                 (unsigned long long)r.conflicts);
                    cr_log_info("counting w=%u m=%u, per tile: %llu accesses in %llu steps, 0 conflicts", r.shape.w,
                                r.shape.m, (unsigned long long)(r.accesses / r.tiles),
                                (unsigned long long)(r.steps / r.tiles));
                }
        }
        /* Not a sort, no values, labels that need too wide a tile: refused, keys untouched. */
        uint32_t pattern[64], back[64];
        for (int i = 0; i < 64; i++) pattern[i] = 0x5a5a0000u + (uint32_t)i;
        cl_mem dk = device_copy(ctx, pattern, sizeof pattern), dv = device_copy(ctx, pattern, sizeof pattern);
        cr_assert_eq(clperm_sort_segments(ctx, CLPERM_KEY_U32, dk, NULL, 64, 64, CLPERM_TILE_PARTITION_COUNTING, 0,
                                          NULL, NULL),
                     CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_partition_segments(ctx, CLPERM_KEY_U32, dk, dv, 64, 64, 0, 2, CLPERM_TILE_PARTITION_COUNTING,
                                               0, NULL, NULL),
                     CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_partition_segments(ctx, CLPERM_KEY_U32, dk, NULL, 64, 64, 0, 8,
                                               CLPERM_TILE_PARTITION_COUNTING, 0, NULL, NULL),
                     CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(test_read(ctx, dk, sizeof back, back), 0);
        cr_assert(memcmp(back, pattern, sizeof back) == 0, "a refused call wrote the keys");
        clReleaseMemObject(dk);
        clReleaseMemObject(dv);
    }
}

/* Batched transposes against the host at awkward shapes, and without bank conflicts. The default
 * run takes each shape once, of 4- and 8-byte items in turn; the full run (CLPERM_TEST_FULL) each
 * shape with both. */
Test(tile_sort, transpose_equals_host) {
    static const uint32_t shapes[][2] = {{1, 1}, {1, 33}, {33, 1}, {2, 3}, {31, 32}, {32, 32}, {33, 65}, {17, 100}, {64, 64}};
    uint64_t seed = test_seed();
    TEST_EACH_DEVICE(ctx) {
        for (int t = 0; t < 2; t++) {
            clperm_type type = t ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32;
            size_t es = clperm_type_size(type);
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                if (!test_full() && (s + (size_t)t) % 2) continue;
                uint32_t rows = shapes[s][0], cols = shapes[s][1];
                const uint64_t count = 3;
                size_t items = (size_t)rows * cols, bytes = count * items * es;
                unsigned char *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
                cr_assert(in && want && got);
                test_fill_random(in, bytes, seed + s);
                for (uint64_t k = 0; k < count; k++)
                    for (uint32_t r = 0; r < rows; r++)
                        for (uint32_t c = 0; c < cols; c++)
                            memcpy(want + (k * items + (size_t)c * rows + r) * es, in + (k * items + (size_t)r * cols + c) * es,
                                   es);
                cl_mem src = device_copy(ctx, in, bytes), dst = device_copy(ctx, NULL, bytes);
                clperm_status st = clperm_transpose_tiles(ctx, type, src, dst, count, rows, cols, 0, NULL, NULL);
                if (st == CLPERM_ERROR_INVALID_ARGUMENT && rows * (uint64_t)cols * es > 8192) {
                    cr_log_info("%s: %ux%u does not fit local memory", test_device_label(ctx), rows, cols);
                } else {
                    cr_assert_eq(st, CLPERM_SUCCESS, "%s: transpose %ux%u: %s", test_device_label(ctx), rows, cols,
                                 clperm_status_name(st));
                    cr_assert_eq(test_read(ctx, dst, bytes, got), 0);
                    cr_assert(memcmp(want, got, bytes) == 0, "%s: transpose %ux%u of %zu-byte items differs",
                              test_device_label(ctx), rows, cols, es);
                    clperm_conflict_report r;
                    cr_assert_eq(clperm_transpose_conflicts(ctx, type, rows, cols, &r), CLPERM_SUCCESS);
                    cr_assert_eq(r.conflicts, 0, "transpose %ux%u: %llu conflicts", rows, cols,
                                 (unsigned long long)r.conflicts);
                    cr_assert_geq(r.accesses, 2 * 2 * items, "trace recorded too little");
                    /* src == dst and a too-small destination are refused. */
                    cr_assert_eq(clperm_transpose_tiles(ctx, type, src, src, count, rows, cols, 0, NULL, NULL),
                                 CLPERM_ERROR_INVALID_ARGUMENT);
                    cr_assert_eq(clperm_transpose_tiles(ctx, type, src, dst, count + 1, rows, cols, 0, NULL, NULL),
                                 CLPERM_ERROR_BUFFER_TOO_SMALL);
                }
                clReleaseMemObject(src), clReleaseMemObject(dst);
                free(in), free(want), free(got);
            }
        }
    }
}

Test(tile_sort, bad_input_writes_nothing) {
    TEST_EACH_DEVICE(ctx) {
        uint64_t max;
        cr_assert_eq(clperm_sort_segment_max(ctx, CLPERM_KEY_U32, 0, CLPERM_TILE_SORT_AUTO, &max), CLPERM_SUCCESS);
        const uint64_t n = 100;
        uint32_t keys[100], got[100];
        for (int i = 0; i < 100; i++) keys[i] = 100u - (uint32_t)i;
        cl_mem dk = device_copy(ctx, keys, sizeof keys), dv = device_copy(ctx, keys, sizeof keys);
        cl_mem small = device_copy(ctx, keys, 40);
        struct {
            clperm_status want, got;
        } c[] = {
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_sort_segments(ctx, CLPERM_KEY_U32, dk, NULL, n, 0, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_ARGUMENT,
             clperm_sort_segments(ctx, CLPERM_KEY_U32, dk, NULL, n, max + 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_TYPE,
             clperm_sort_segments(ctx, (clperm_key_type)(CLPERM_KEYKIND_LAST + 1), dk, NULL, n, 8, 0, 0, NULL, NULL)},
            /* 16- and 8-bit keys are the device-wide sort's alone. */
            {CLPERM_ERROR_INVALID_TYPE, clperm_sort_segments(ctx, CLPERM_KEY_U16, dk, NULL, n, 8, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_TYPE,
             clperm_partition_segments(ctx, CLPERM_KEY_I8, dk, NULL, n, 8, 0, 2, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_ARGUMENT,
             clperm_sort_segments(ctx, CLPERM_KEY_U32, dk, NULL, n, 8, (clperm_tile_sort)7, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_sort_segments(ctx, CLPERM_KEY_U64, dk, NULL, n, 8, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_sort_segments(ctx, CLPERM_KEY_U32, dk, small, n, 8, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_sort_segments(ctx, CLPERM_KEY_U32, dk, dk, n, 8, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_BUFFER, clperm_sort_segments(ctx, CLPERM_KEY_U32, NULL, NULL, n, 8, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_EVENT_LIST,
             clperm_sort_segments(ctx, CLPERM_KEY_U32, dk, NULL, n, 8, 0, 1, NULL, NULL)},
            {CLPERM_SUCCESS, clperm_sort_segments(ctx, CLPERM_KEY_U32, dk, dv, 0, 8, 0, 0, NULL, NULL)},
        };
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
            cr_assert_eq(c[i].got, c[i].want, "case %zu: %s, want %s", i, clperm_status_name(c[i].got),
                         clperm_status_name(c[i].want));
        cr_assert_eq(test_read(ctx, dk, sizeof keys, got), 0);
        cr_assert(memcmp(got, keys, sizeof keys) == 0, "a failed call wrote the keys");
        cr_assert_eq(test_read(ctx, dv, sizeof keys, got), 0);
        cr_assert(memcmp(got, keys, sizeof keys) == 0, "a failed call wrote the values");
        clperm_tile_shape shape;
        cr_assert_eq(clperm_sort_tile_shape(ctx, CLPERM_KEY_U32, 0, max, 0, &shape), CLPERM_SUCCESS);
        cr_assert_geq((uint64_t)shape.w * shape.m, max);
        cr_assert_eq(clperm_sort_tile_shape(ctx, CLPERM_KEY_U32, 0, 0, 0, &shape), CLPERM_ERROR_INVALID_ARGUMENT);
        uint64_t as_max;
        cr_assert_eq(clperm_sort_segment_max(ctx, CLPERM_KEY_U32, 0, CLPERM_TILE_SORT_AS, &as_max), CLPERM_SUCCESS);
        cr_assert_eq(clperm_sort_segments(ctx, CLPERM_KEY_U32, dk, NULL, n, as_max * 2, CLPERM_TILE_SORT_AS, 0, NULL,
                                          NULL),
                     CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_sort_tile_shape(ctx, CLPERM_KEY_U32, 0, as_max, CLPERM_TILE_SORT_AS, &shape), CLPERM_SUCCESS);
        cr_assert_leq((uint64_t)shape.w * shape.w, shape.m, "Lemma 1 needs w <= sqrt(m)");
        clReleaseMemObject(dk), clReleaseMemObject(dv), clReleaseMemObject(small);
    }
}
