/* The device-wide and segmented sorts: the host reference orders every key type (f32/f64
 * specials included) and is stable; every device gives the reference's keys and values bit for
 * bit with every algorithm, kernel kind and tile ranking it can run, at awkward sizes around its
 * tile, for every key and value type, ascending, descending and in bit ranges; the segmented sort
 * with empty, huge and tile-sized segments, and through its register network; bad input is
 * refused before anything is written. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const clperm_key_type key_types[] = {CLPERM_KEY_U32, CLPERM_KEY_I32, CLPERM_KEY_F32,
                                            CLPERM_KEY_U64, CLPERM_KEY_I64, CLPERM_KEY_F64};
static const char *const key_names[] = {"", "u32", "i32", "f32", "u64", "i64", "f64", "u8", "i8", "u16", "i16", "f16"};
/* The device-wide sort's own key types (the tile networks take none of them). */
static const clperm_key_type narrow_types[] = {CLPERM_KEY_U8, CLPERM_KEY_I8, CLPERM_KEY_U16, CLPERM_KEY_I16,
                                               CLPERM_KEY_F16};
#define NARROW (sizeof narrow_types / sizeof narrow_types[0])
static const clperm_type value_types[] = {0, CLPERM_TYPE_U32, CLPERM_TYPE_U64};
static const char *const value_names[] = {"none", "u32", "u64"};

/* Kernel configurations, forced through the parameters; those a device cannot run are skipped. */
typedef struct config {
    const char *name;
    int algorithm, kernel, rank, bits, wg, items;
    int full;  /* every key and value type; else a few (each pair of widths is a program to build) */
    int small; /* also in the simulator's build */
    int regs;  /* CLPERM_PARAM_SORT_REGS (NVIDIA's register cap; other devices ignore it) */
} config;

static const config configs[] = {
    {"default", 0, 0, 0, 0, 0, 0, 1, 1, 0},
    {"onesweep, votes", 2, 1, 1, 0, 0, 0, 1, 1, 0},
    {"serial reduce-then-scan", 1, 2, 0, 0, 0, 0, 0, 1, 0},
    {"serial reduce-then-scan, 4-bit digits, blocks of 256", 1, 2, 0, 4, 0, 1, 0, 0, 0},
    {"work-group reduce-then-scan, votes", 1, 1, 1, 0, 64, 4, 0, 1, 0},
    {"onesweep, votes, 5-bit digits, 32 x 3", 2, 1, 1, 5, 32, 3, 0, 0, 0},
    {"onesweep, votes, 512 x 16 at 40 registers", 2, 1, 1, 0, 512, 16, 0, 0, 40},
    {"onesweep, match.any", 2, 1, 2, 0, 0, 0, 0, 1, 0},
    {"onesweep, match words", 2, 1, 4, 0, 0, 0, 0, 1, 0},
    {"work-group reduce-then-scan, match words", 1, 1, 4, 0, 64, 4, 0, 1, 0},
    {"onesweep, tile partition", 2, 1, 3, 0, 64, 4, 0, 1, 0},
    {"reduce-then-scan, tile partition", 1, 1, 3, 0, 0, 0, 0, 0, 0},
};
#define CONFIGS (sizeof configs / sizeof configs[0])

/* Applies cfg; 0 when the device cannot run it. */
static int apply(clperm_ctx *ctx, const config *cfg) {
    const test_param sets[] = {{CLPERM_PARAM_SORT_ALGORITHM, cfg->algorithm}, {CLPERM_PARAM_SORT_KERNEL, cfg->kernel},
                               {CLPERM_PARAM_SORT_RANK, cfg->rank},           {CLPERM_PARAM_SORT_DIGIT_BITS, cfg->bits},
                               {CLPERM_PARAM_SORT_WG_SIZE, cfg->wg},          {CLPERM_PARAM_SORT_ITEMS, cfg->items},
                               {CLPERM_PARAM_SORT_REGS, cfg->regs}};
    if (!test_apply_params(ctx, sets, sizeof sets / sizeof sets[0])) return 0;
    if (cfg->regs) {
        /* The cap exists on NVIDIA only; elsewhere the configuration would repeat an uncapped one. */
        clperm_profile prof;
        int regs = 0;
        cr_assert_eq(clperm_ctx_profile(ctx, &prof), CLPERM_SUCCESS);
        if (prof.vendor != CLPERM_VENDOR_NVIDIA) return 0;
        cr_assert_eq(clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_REGS, &regs), CLPERM_SUCCESS);
        cr_assert_eq(regs, cfg->regs, "%s: the cap reads back as %d", cfg->name, regs);
    }
    /* A sort of no keys plans the kernels: CLPERM_ERROR_UNSUPPORTED when the device cannot run
     * them (match.any off NVIDIA). */
    cl_mem probe = test_buffer(ctx, 8, NULL);
    clperm_sort_request req = {CLPERM_KEY_U32, probe, 0, NULL, 0, {0, 0, 0}, NULL, NULL, 0};
    clperm_status st = clperm_sort(ctx, &req, 0, NULL, NULL);
    clReleaseMemObject(probe);
    if (st == CLPERM_ERROR_UNSUPPORTED) return 0;
    cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s", cfg->name, clperm_status_name(st));
    return 1;
}

/* The parameters a configuration runs with, as the context reports them: configurations that
 * come out the same as one already checked on the device are skipped. */
typedef struct effective {
    int v[7];
} effective;

static int seen_before(clperm_ctx *ctx, effective *seen, size_t *nseen) {
    static const clperm_param ps[7] = {CLPERM_PARAM_SORT_ALGORITHM,  CLPERM_PARAM_SORT_KERNEL,  CLPERM_PARAM_SORT_RANK,
                                       CLPERM_PARAM_SORT_DIGIT_BITS, CLPERM_PARAM_SORT_WG_SIZE, CLPERM_PARAM_SORT_ITEMS,
                                       CLPERM_PARAM_SORT_REGS};
    effective e;
    for (int i = 0; i < 7; i++) clperm_ctx_get_param(ctx, ps[i], &e.v[i]);
    if (e.v[1] == 2) e.v[2] = e.v[4] = 0; /* serial kernels: no ranking, no work-group size */
    for (size_t i = 0; i < *nseen; i++)
        if (memcmp(&seen[i], &e, sizeof e) == 0) return 1;
    seen[(*nseen)++] = e;
    return 0;
}

/* The next of configs[*ci .. limit) that the device runs, applied, in a shape not checked before
 * on it; NULL after the last. Under the simulator, only those marked small. */
static const config *next_config(clperm_ctx *ctx, size_t *ci, size_t limit, effective *seen, size_t *nseen) {
    while (*ci < limit) {
        const config *cfg = &configs[(*ci)++];
#ifdef CLPERM_TEST_SMALL
        if (!cfg->small) continue;
#endif
        if (apply(ctx, cfg) && !seen_before(ctx, seen, nseen)) return cfg;
        cr_log_info("%s: %s not available or the same as one before", test_device_label(ctx), cfg->name);
    }
    return NULL;
}

/* Keys per tile (or block) of the configuration in force. */
static uint64_t tile_of(clperm_ctx *ctx) {
    int kernel = 0, wg = 0, items = 0;
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_KERNEL, &kernel);
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_WG_SIZE, &wg);
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_ITEMS, &items);
    return kernel == 2 ? 256 * (uint64_t)items : (uint64_t)wg * (uint64_t)items;
}

/* Key patterns. */
/* Digits that do not vary, whose passes Onesweep skips: FEW and SMALL in the high digits,
 * HIGH_BITS in the low ones, ONE_HIGH and ONE_LOW in all digits but one, EQUAL in all.
 * After PATTERNS, those that only the register network's pairs take: TRIPLES, keys in threes
 * that share all but their low 8 bits (short runs of one compressed key, at every place: the
 * network's second sort); TWINS, one key in 16 sharing all but its low 8 bits with the one before
 * (a few short runs, put in order where they lie); SPLIT, two clusters 2^31 apart, each over its
 * low 10 bits (long runs, two of them: the second sort); MIXED, one key in 4 below 2^10, the rest
 * uniform (a long run beside many short ones: at 2048 keys the second and third sorts). */
enum {
    RANDOM, FEW, EQUAL, ASCENDING, DESCENDING, HIGH_BITS, SPECIAL, SMALL, ONE_HIGH, ONE_LOW, PATTERNS,
    TRIPLES = PATTERNS, TWINS, SPLIT, MIXED
};
static const char *const pattern_names[] = {"random",      "few",         "equal",   "ascending", "descending",
                                            "high-bits",   "special",     "small",   "one-high-bit",
                                            "one-low-bit", "triples",     "twins",   "split",     "mixed"};

static const uint32_t f32_special[] = {0x7FC00000u, 0xFFC00000u, 0x7F800000u, 0xFF800000u, 0x00000000u,
                                       0x80000000u, 0x3F800000u, 0xBF800000u, 0x00000001u, 0x80000001u,
                                       0x7F7FFFFFu, 0xFF7FFFFFu, 0x7FA00000u, 0xFFA00001u};
static const uint64_t f64_special[] = {0x7FF8000000000000u, 0xFFF8000000000000u, 0x7FF0000000000000u,
                                       0xFFF0000000000000u, 0x0000000000000000u, 0x8000000000000000u,
                                       0x3FF0000000000000u, 0xBFF0000000000000u, 0x0000000000000001u,
                                       0x8000000000000001u, 0x7FEFFFFFFFFFFFFFu, 0xFFEFFFFFFFFFFFFFu,
                                       0x7FF4000000000000u, 0xFFF4000000000001u};
/* binary16: NaNs (quiet, signalling) of both signs, infinities, zeros, one, subnormals, the largest. */
static const uint16_t f16_special[] = {0x7E00u, 0xFE00u, 0x7C00u, 0xFC00u, 0x0000u, 0x8000u, 0x3C00u,
                                       0xBC00u, 0x0001u, 0x8001u, 0x7BFFu, 0xFBFFu, 0x7D00u, 0xFD01u};

static void fill_keys(void *keys, clperm_key_type type, uint64_t n, int pattern, uint64_t seed) {
    size_t ks = clperm_key_size(type);
    test_fill_random(keys, (size_t)n * ks, seed);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = test_item(keys, i, ks);
        switch (pattern) {
        case FEW: k %= 3; break;
        case EQUAL: k = 42; break;
        case ASCENDING: k = i; break;
        case DESCENDING: k = n - i; break;
        case HIGH_BITS: k &= UINT64_C(0xF) << (8 * ks - 4); break;
        case SPECIAL:
            if (type == CLPERM_KEY_F16) k = f16_special[k % (sizeof f16_special / 2)];
            if (type == CLPERM_KEY_F32) k = f32_special[k % (sizeof f32_special / 4)];
            if (type == CLPERM_KEY_F64) k = f64_special[k % (sizeof f64_special / 8)];
            break;
        case SMALL: k &= ks >= 4 ? 0xFFFFF : (UINT64_C(1) << (4 * ks)) - 1; break; /* 8- and 16-bit: the low half */
        case ONE_HIGH: k = UINT64_C(0x5A5A5A5A5A5A5A5A) ^ ((k & 1) << (8 * ks - 1)); break;
        case ONE_LOW: k = UINT64_C(0x5A5A5A5A5A5A5A5A) ^ (k & 1); break;
        case TRIPLES: k = (test_item(keys, i - i % 3, ks) & ~UINT64_C(0xFF)) | (k & 0xFF); break;
        case TWINS:
            if (i % 16 == 1) k = (test_item(keys, i - 1, ks) & ~UINT64_C(0xFF)) | (k & 0xFF);
            break;
        case SPLIT: k &= (UINT64_C(1) << (8 * ks - 1)) | 0x3FF; break;
        case MIXED:
            if (i % 4 == 0) k &= 0x3FF;
            break;
        default: break;
        }
        memcpy((char *)keys + i * ks, &k, ks);
    }
}

/* Values: the input position, spread over all bits of u64 values. */
static void fill_values(void *values, clperm_type type, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        if (type == CLPERM_TYPE_U32) ((uint32_t *)values)[i] = (uint32_t)i;
        if (type == CLPERM_TYPE_U64) ((uint64_t *)values)[i] = i ^ (i << 40) ^ 0x5a00000000000000u;
    }
}

#define CANARY 16 /* items past n, filled with a pattern that must come back untouched */

static cl_mem canary_buffer(clperm_ctx *ctx, const void *items, uint64_t n, size_t es) {
    size_t bytes = (size_t)(n + CANARY) * es;
    unsigned char *b = malloc(bytes);
    cr_assert(b);
    memset(b, 0xC5, bytes);
    if (n && items) memcpy(b, items, (size_t)n * es);
    cl_mem m = test_buffer(ctx, bytes, b);
    cr_assert(m);
    free(b);
    return m;
}

static void check_canary(const unsigned char *got, uint64_t n, size_t es, const char *what) {
    for (size_t i = (size_t)n * es; i < (size_t)(n + CANARY) * es; i++)
        cr_assert_eq(got[i], 0xC5, "%s: byte %zu past the end was written", what, i - (size_t)n * es);
}

/* The device's keys (and values) against the host's, and the canaries past them. */
static void compare_result(clperm_ctx *ctx, cl_mem dk, cl_mem dv, const void *want, const void *wantv, uint64_t n,
                           size_t ks, size_t vs, const char *what) {
    unsigned char *got = malloc((size_t)(n + CANARY) * 8);
    cr_assert(got);
    cr_assert_eq(test_read(ctx, dk, (size_t)(n + CANARY) * ks, got), 0);
    uint64_t d = test_first_diff(want, got, n, ks);
    cr_assert_eq(d, n, "%s: key %llu differs: %#llx, want %#llx", what, (unsigned long long)d,
                 (unsigned long long)test_item(got, d, ks), (unsigned long long)test_item(want, d, ks));
    check_canary(got, n, ks, what);
    if (vs) {
        cr_assert_eq(test_read(ctx, dv, (size_t)(n + CANARY) * vs, got), 0);
        d = test_first_diff(wantv, got, n, vs);
        cr_assert_eq(d, n, "%s: value %llu differs", what, (unsigned long long)d);
        check_canary(got, n, vs, what);
    }
    free(got);
}

typedef struct sort_case {
    const config *cfg;
    clperm_key_type key_type;
    clperm_type value_type;
    uint64_t n;
    int pattern;
    clperm_sort_order order;
    uint64_t seed;
    int argsort; /* the device's values are made by the sort (the host's are positions) */
    int into;    /* clperm_sort_into, to buffers of their own; argsort there without input values */
} sort_case;

static void describe(const sort_case *c, clperm_ctx *ctx, char *buf, size_t cap) {
    snprintf(buf, cap, "%s [%s]: keys %s values %s%s n=%llu %s %s bits [%u,%u) seed %#llx", test_device_label(ctx),
             c->cfg->name, key_names[c->key_type], value_names[c->value_type == CLPERM_TYPE_U32   ? 1
                                                               : c->value_type == CLPERM_TYPE_U64 ? 2
                                                                                                   : 0],
             c->argsort ? " (argsort)" : "", (unsigned long long)c->n, pattern_names[c->pattern],
             c->into ? (c->order.descending ? "into, descending" : "into, ascending")
             : c->order.descending ? "descending"
                                   : "ascending",
             c->order.bit_lo, c->order.bit_hi, (unsigned long long)c->seed);
}

/* One sort on the device against the host's; returns 0 when the device cannot run the
 * configuration. */
static int check_sort(clperm_ctx *ctx, const sort_case *c) {
    char what[400];
    describe(c, ctx, what, sizeof what);
    size_t ks = clperm_key_size(c->key_type), vs = c->value_type ? clperm_type_size(c->value_type) : 0;
    uint64_t n = c->n;
    void *keys = malloc((size_t)n * ks + 8), *want = malloc((size_t)n * ks + 8);
    void *vals = malloc((size_t)n * 8 + 8), *wantv = malloc((size_t)n * 8 + 8);
    cr_assert(keys && want && vals && wantv);
    fill_keys(keys, c->key_type, n, c->pattern, c->seed);
    fill_values(vals, c->value_type, n);
    memcpy(want, keys, (size_t)n * ks);
    memcpy(wantv, vals, (size_t)n * vs);
    if (c->argsort) {
        /* The host sorts positions along; the device's values start as anything. */
        for (uint64_t i = 0; i < n; i++) memcpy((char *)wantv + i * vs, &i, vs);
        test_fill_random(vals, (size_t)n * vs, c->seed ^ 0xA5);
    }
    clperm_sort_host_request hr = {c->key_type, want, c->value_type, vs ? wantv : NULL, n, c->order};
    cr_assert_eq(clperm_sort_host(&hr), CLPERM_SUCCESS, "%s: host sort", what);
    cl_mem dk = canary_buffer(ctx, keys, n, ks), dv = vs ? canary_buffer(ctx, vals, n, vs) : NULL;
    clperm_sort_request req = {c->key_type, dk, c->value_type, dv, n, c->order, NULL, NULL, c->argsort};
    cl_event ev = NULL;
    clperm_status st;
    /* Into: the outputs start as canaries; the input is checked unchanged after. */
    cl_mem ok = NULL, ov = NULL;
    if (c->into) {
        ok = canary_buffer(ctx, NULL, n, ks);
        ov = vs ? canary_buffer(ctx, NULL, n, vs) : NULL;
        if (c->argsort) req.values = NULL;
        st = clperm_sort_into(ctx, &req, ok, ov, 0, NULL, &ev);
    } else {
        st = clperm_sort(ctx, &req, 0, NULL, &ev);
    }
    int ran = st != CLPERM_ERROR_UNSUPPORTED;
    if (ran) {
        cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s\n%s", what, clperm_status_name(st), clperm_ctx_build_log(ctx));
        cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS, "%s: event", what);
        clReleaseEvent(ev);
        compare_result(ctx, c->into ? ok : dk, c->into ? ov : dv, want, wantv, n, ks, vs, what);
        if (c->into) {
            char input[440];
            snprintf(input, sizeof input, "%s, the input", what);
            compare_result(ctx, dk, c->argsort ? NULL : dv, keys, vals, n, ks, c->argsort ? 0 : vs, input);
        }
        if (c->cfg->algorithm == 3 && !vs && n > 1) {
            /* The counting sort sorts in place: no temp buffer, as the radix sort would have. */
            uint64_t temp = 1;
            cr_assert_eq(clperm_ctx_counter(ctx, CLPERM_COUNTER_TEMP_BYTES, &temp), CLPERM_SUCCESS);
            cr_assert_eq(temp, 0, "%s: %llu bytes of temp buffers", what, (unsigned long long)temp);
        }
    }
    if (dv) clReleaseMemObject(dv);
    if (ok) clReleaseMemObject(ok);
    if (ov) clReleaseMemObject(ov);
    clReleaseMemObject(dk);
    free(keys), free(want), free(vals), free(wantv);
    return ran;
}

/* ---- the host reference ---- */

/* The value of a binary16 number that is not a NaN (infinities included), by its definition. */
static double half_value(uint16_t h) {
    int e = (h >> 10) & 31;
    double m = h & 1023;
    double v = e == 31 ? INFINITY : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h >> 15 ? -v : v;
}

static int is_sorted_stable(const void *keys, const uint32_t *pos, uint64_t n, clperm_key_type type, int desc) {
    size_t ks = clperm_key_size(type);
    for (uint64_t i = 1; i < n; i++) {
        uint64_t a = test_item(keys, i - 1, ks), b = test_item(keys, i, ks);
        double fa, fb;
        int cmp;
        switch (type) {
        case CLPERM_KEY_I32: cmp = (int32_t)a < (int32_t)b ? -1 : (int32_t)a > (int32_t)b; break;
        case CLPERM_KEY_I64: cmp = (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b; break;
        case CLPERM_KEY_I8: cmp = (int8_t)a < (int8_t)b ? -1 : (int8_t)a > (int8_t)b; break;
        case CLPERM_KEY_I16: cmp = (int16_t)a < (int16_t)b ? -1 : (int16_t)a > (int16_t)b; break;
        case CLPERM_KEY_F16:
        case CLPERM_KEY_F32:
        case CLPERM_KEY_F64:
            if (type == CLPERM_KEY_F16) {
                fa = half_value((uint16_t)a), fb = half_value((uint16_t)b);
            } else if (type == CLPERM_KEY_F32) {
                float x, y;
                uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
                memcpy(&x, &a32, 4), memcpy(&y, &b32, 4);
                fa = x, fb = y;
            } else {
                memcpy(&fa, &a, 8), memcpy(&fb, &b, 8);
            }
            /* Ordinary numbers only; specials are checked by known answers. */
            cmp = fa < fb ? -1 : fa > fb;
            if (fa == fb && fa == 0) cmp = 0;
            break;
        default: cmp = a < b ? -1 : a > b; break;
        }
        if (desc) cmp = -cmp;
        if (cmp > 0 || (cmp == 0 && a == b && pos[i - 1] > pos[i])) return 0;
    }
    return 1;
}

/* {3, -1, MIN, MAX, 0, -1} of a signed key type sort to {MIN, -1, -1, 0, 3, MAX}, the two -1s in
 * their input order. */
static void check_signed_host(clperm_key_type type) {
    size_t ks = clperm_key_size(type);
    const int64_t max = (int64_t)(CLPERM_KEY_SIGN(type) - 1);
    const int64_t in[6] = {3, -1, -max - 1, max, 0, -1}, want[6] = {-max - 1, -1, -1, 0, 3, max};
    unsigned char keys[6 * 8];
    uint32_t pos[6] = {0, 1, 2, 3, 4, 5};
    for (int i = 0; i < 6; i++) memcpy(keys + i * ks, &in[i], ks); /* little-endian: the low bytes */
    clperm_sort_host_request r = {type, keys, CLPERM_TYPE_U32, pos, 6, {0, 0, 0}};
    cr_assert_eq(clperm_sort_host(&r), CLPERM_SUCCESS);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(test_item(keys, (uint64_t)i, ks), (uint64_t)want[i] & CLPERM_KEY_ALL(type), "%s: key %d",
                     key_names[type], i);
    cr_assert(pos[1] == 1 && pos[2] == 5, "%s: equal keys lost their order", key_names[type]);
}

Test(sort_host, orders_every_type_and_is_stable) {
    /* f32 and f64 totalOrder with NaNs of both signs at the ends. */
    float f[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f};
    double g[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0};
    const uint32_t want_asc[8] = {1, 3, 7, 5, 4, 6, 2, 0}, want_desc[8] = {0, 2, 6, 4, 5, 7, 3, 1};
    for (int desc = 0; desc < 2; desc++) {
        uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7}, w[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        float f2[8];
        double g2[8];
        memcpy(f2, f, sizeof f), memcpy(g2, g, sizeof g);
        clperm_sort_host_request rf = {CLPERM_KEY_F32, f2, CLPERM_TYPE_U32, v, 8, {desc, 0, 0}};
        clperm_sort_host_request rg = {CLPERM_KEY_F64, g2, CLPERM_TYPE_U32, w, 8, {desc, 0, 0}};
        cr_assert_eq(clperm_sort_host(&rf), CLPERM_SUCCESS);
        cr_assert_eq(clperm_sort_host(&rg), CLPERM_SUCCESS);
        const uint32_t *want = desc ? want_desc : want_asc;
        cr_assert(memcmp(v, want, sizeof v) == 0, "f32 desc=%d: %u %u %u %u %u %u %u %u", desc, v[0], v[1], v[2],
                  v[3], v[4], v[5], v[6], v[7]);
        cr_assert(memcmp(w, want, sizeof w) == 0, "f64 desc=%d", desc);
    }
    /* binary16 in the same order. */
    for (int desc = 0; desc < 2; desc++) {
        uint16_t h[8] = {0x7E00u, 0xFE00u, 0x7C00u, 0xFC00u, 0x0000u, 0x8000u, 0x3C00u, 0xBC00u};
        uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        clperm_sort_host_request rh = {CLPERM_KEY_F16, h, CLPERM_TYPE_U32, v, 8, {desc, 0, 0}};
        cr_assert_eq(clperm_sort_host(&rh), CLPERM_SUCCESS);
        cr_assert(memcmp(v, desc ? want_desc : want_asc, sizeof v) == 0, "f16 desc=%d: %u %u %u %u %u %u %u %u", desc,
                  v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }
    for (int t = 0; t < 4; t++)
        check_signed_host((const clperm_key_type[]){CLPERM_KEY_I8, CLPERM_KEY_I16, CLPERM_KEY_I32, CLPERM_KEY_I64}[t]);
    /* A bit range: only bits [4, 8) count, ties keep their order. */
    uint32_t k[6] = {0x13, 0x02, 0x1F, 0x21, 0x05, 0x10}, kv[6] = {0, 1, 2, 3, 4, 5};
    clperm_sort_host_request rk = {CLPERM_KEY_U32, k, CLPERM_TYPE_U32, kv, 6, {0, 4, 8}};
    cr_assert_eq(clperm_sort_host(&rk), CLPERM_SUCCESS);
    const uint32_t wk[6] = {0x02, 0x05, 0x13, 0x1F, 0x10, 0x21};
    cr_assert(memcmp(k, wk, sizeof wk) == 0, "bit range: %x %x %x %x %x %x", k[0], k[1], k[2], k[3], k[4], k[5]);
    /* Random keys of every type, with repeats: sorted and stable (the values are positions). */
    clperm_key_type all_types[6 + NARROW];
    memcpy(all_types, key_types, sizeof key_types);
    memcpy(all_types + 6, narrow_types, sizeof narrow_types);
    for (size_t t = 0; t < 6 + NARROW; t++)
        for (int desc = 0; desc < 2; desc++) {
            uint64_t n = 1000;
            size_t ks = clperm_key_size(all_types[t]);
            void *keys = malloc(n * ks);
            uint32_t *pos = malloc(n * 4);
            fill_keys(keys, all_types[t], n, FEW, 7 + t);
            fill_values(pos, CLPERM_TYPE_U32, n);
            clperm_sort_host_request r = {all_types[t], keys, CLPERM_TYPE_U32, pos, n, {desc, 0, 0}};
            cr_assert_eq(clperm_sort_host(&r), CLPERM_SUCCESS);
            cr_assert(is_sorted_stable(keys, pos, n, all_types[t], desc), "%s desc=%d: not sorted or not stable",
                      key_names[all_types[t]], desc);
            fill_keys(keys, all_types[t], n, RANDOM, 9 + t);
            fill_values(pos, CLPERM_TYPE_U32, n);
            cr_assert_eq(clperm_sort_host(&r), CLPERM_SUCCESS);
            if (all_types[t] != CLPERM_KEY_F16 && all_types[t] != CLPERM_KEY_F32 && all_types[t] != CLPERM_KEY_F64)
                cr_assert(is_sorted_stable(keys, pos, n, all_types[t], desc), "%s desc=%d: random keys not sorted",
                          key_names[all_types[t]], desc);
            free(keys), free(pos);
        }
    /* Bad requests. */
    uint32_t x[2] = {2, 1};
    clperm_sort_host_request bad = {CLPERM_KEY_U32, x, 0, NULL, 2, {0, 0, 0}};
    bad.key_type = (clperm_key_type)(CLPERM_KEYKIND_LAST + 1);
    cr_assert_eq(clperm_sort_host(&bad), CLPERM_ERROR_INVALID_TYPE);
    bad.key_type = CLPERM_KEY_U32;
    bad.order.bit_hi = 33;
    cr_assert_eq(clperm_sort_host(&bad), CLPERM_ERROR_INVALID_ARGUMENT);
    bad.order.bit_lo = 8, bad.order.bit_hi = 8;
    cr_assert_eq(clperm_sort_host(&bad), CLPERM_ERROR_INVALID_ARGUMENT);
    bad.order.bit_lo = 0, bad.order.bit_hi = 0, bad.value_type = CLPERM_TYPE_U32, bad.values = x;
    cr_assert_eq(clperm_sort_host(&bad), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert(x[0] == 2 && x[1] == 1, "a refused sort wrote its keys");
}

/* ---- the device ---- */

#ifdef CLPERM_TEST_SMALL
/* The smallest prime >= n. */
static uint64_t prime_from(uint64_t n) {
    for (;; n++) {
        int prime = n >= 2;
        for (uint64_t d = 2; prime && d * d <= n; d++) prime = n % d != 0;
        if (prime) return n;
    }
}
#endif

/* The (key, value) types a configuration is checked with: all, or one of each width pair. */
static int type_in(const config *cfg, size_t t, size_t v) {
    static const int few[6][3] = {{1, 1, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 1}, {0, 0, 0}, {0, 1, 0}};
#ifdef CLPERM_TEST_SMALL
    (void)cfg;
    return few[t][v];
#else
    return cfg->full || few[t][v];
#endif
}

/* Every configuration the device runs: key and value types at sizes around the tile; the
 * patterns, orders and bit ranges with values (stability shows in them). Under the simulator,
 * whose run takes minutes, u32 keys at the sizes: every awkward one (0, 1, 2, tile - 1, tile,
 * tile + 1, a prime beyond one tile) alone and with values in the first configuration; in the
 * others a partial tile and the prime with values, and the patterns descending only. 64-bit keys
 * and values come with the float specials and the bit ranges. */
Test(sort, device_equals_host) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    /* Each configuration sets every sort parameter, so one context per device serves them all. */
    TEST_EACH_DEVICE(ctx) {
        effective seen[CONFIGS];
        size_t nseen = 0, ci = 0;
        for (const config *cfg; (cfg = next_config(ctx, &ci, CONFIGS, seen, &nseen)) != NULL;) {
            uint64_t tile = tile_of(ctx);
#ifdef CLPERM_TEST_SMALL
            const int first = nseen == 1;
            const uint64_t n = prime_from(tile + 2);
            const uint64_t all_sizes[] = {0, 1, 2, tile - 1, tile, tile + 1, n}, few_sizes[] = {tile - 1, n};
            const uint64_t *sizes = first ? all_sizes : few_sizes;
            const size_t nsizes = first ? sizeof all_sizes / sizeof all_sizes[0] : sizeof few_sizes / sizeof few_sizes[0];
#else
            const int first = 1;
            const uint64_t n = 2 * tile + 5;
            const uint64_t sizes[] = {0, 1, 2, 97, tile - 1, tile, tile + 1, 1009, 3 * tile + 7};
            const size_t nsizes = sizeof sizes / sizeof sizes[0];
#endif
            int ran = 0;
            for (size_t t = 0; t < 6; t++)
                for (size_t v = 0; v < 3; v++) {
#ifdef CLPERM_TEST_SMALL
                    if (t != 0 || v == 2 || (!first && v == 0)) continue;
#endif
                    for (size_t s = 0; s < nsizes && type_in(cfg, t, v); s++) {
                        sort_case c = {cfg, key_types[t], value_types[v], sizes[s], RANDOM, {0, 0, 0}, seed + s * 7 + t,
                                       0, 0};
                        ran += check_sort(ctx, &c);
                    }
                }
            for (int pattern = 0; pattern < PATTERNS; pattern++)
                for (size_t t = 0; t < 6; t++) {
#ifdef CLPERM_TEST_SMALL
                    /* Under the simulator: stability (few distinct keys) and the float specials. */
                    if (!(pattern == FEW && t == 0) && !(pattern == SPECIAL && t == 5)) continue;
#endif
                    if (!type_in(cfg, t, 1) && !(pattern == SPECIAL && (t == 2 || t == 5))) continue;
                    sort_case c = {cfg, key_types[t], CLPERM_TYPE_U32, n, pattern, {0, 0, 0}, seed + 100, 0, 0};
                    if (first) ran += check_sort(ctx, &c);
                    c.order.descending = 1;
                    ran += check_sort(ctx, &c);
                }
#ifdef CLPERM_TEST_SMALL
            const clperm_sort_order ranges[] = {{1, 4, 13}};
#else
            const clperm_sort_order ranges[] = {{0, 0, 20}, {0, 4, 13}, {1, 8, 32}, {0, 31, 32}, {1, 0, 1}};
#endif
            for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
                for (size_t t = 0; t < 6; t++) {
                    if (!type_in(cfg, t, 2) && t != 0) continue;
                    sort_case c = {cfg, key_types[t], CLPERM_TYPE_U64, n, r ? FEW : SMALL, ranges[r], seed + 200 + r, 0,
                                   0};
                    ran += check_sort(ctx, &c);
                }
            /* Argsort: positions made by the first pass that runs (or by none, all keys equal);
             * f64 keys with u64 positions in the first configuration, and under the simulator
             * only that configuration. */
            const uint64_t arg_sizes[] = {1, 2, tile + 1, n};
            const int arg_patterns[] = {RANDOM, FEW, EQUAL, ONE_HIGH};
            for (size_t v = 1; v < 3; v++)
                for (size_t s = 0; s < sizeof arg_sizes / sizeof arg_sizes[0]; s++)
                    for (size_t q = 0; q < sizeof arg_patterns / sizeof arg_patterns[0]; q++) {
                        if (v == 2 && nseen != 1) continue;
#ifdef CLPERM_TEST_SMALL
                        if (nseen != 1 || v == 2 || s == 0 || s == 3 || (q && q != 2)) continue;
#endif
                        sort_case c = {cfg,      key_types[v == 2 ? 5 : 0], value_types[v], arg_sizes[s],
                                       arg_patterns[q], {q == 1, 0, 0}, seed + 300 + s, 1, 0};
                        ran += check_sort(ctx, &c);
                    }
            /* Out of place: passes that move keys 4 or 8 (random), 3 of 4 and of 8 (small), 1 (few),
             * 0 (equal), the last but not the middle ones (one high bit), in one tile and more; in
             * the first configuration, Onesweep's (their programs are others than in place) and
             * the tile partitions' (which copy the input out and sort there). */
            const int into_patterns[] = {RANDOM, SMALL, FEW, EQUAL, ONE_HIGH};
            for (size_t q = 0; q < sizeof into_patterns / sizeof into_patterns[0]; q++)
                for (size_t v = 0; v < 4; v++)
                    for (size_t s = 0; s < 2; s++) {
                        size_t t = v == 2 ? 3 : 0; /* u64 values with u64 keys; v 3: argsort */
#ifdef CLPERM_TEST_SMALL
                        /* Three passes (the one new path) in each configuration, argsort and
                         * all keys equal in the first. */
                        if (!(q == 1 && s == 1 && (v == 0 || (v == 3 && nseen == 1))) &&
                            !(q == 3 && v == 1 && s == 0 && nseen == 1))
                            continue;
#endif
                        if (!type_in(cfg, t, v == 3 ? 1 : v) || (nseen != 1 && cfg != &configs[1] && cfg->rank != 3))
                            continue;
                        sort_case c = {cfg,
                                       key_types[t],
                                       value_types[v == 3 ? 1 : v],
                                       s ? n : tile + 1,
                                       into_patterns[q],
                                       {q == 2, 0, 0},
                                       seed + 400 + q,
                                       v == 3,
                                       1};
                        ran += check_sort(ctx, &c);
                    }
            /* Out of place, no key and one: nothing sorted, the one key (and value, or its position)
             * copied out. */
            for (uint64_t k = 0; k < 2 && nseen == 1; k++)
                for (int a = 0; a < 2; a++) {
                    sort_case c = {cfg, CLPERM_KEY_U32, CLPERM_TYPE_U32, k, RANDOM, {0, 0, 0}, seed + 500, a, 1};
                    ran += check_sort(ctx, &c);
                }
            cr_log_info("%s: %s: %d sorts", test_device_label(ctx), cfg->name, ran);
        }
    }
}

#ifndef CLPERM_TEST_SMALL
/* 2^20 + 3 keys: many tiles, every digit in use, in the default configuration and Onesweep. */
Test(sort, large) {
    uint64_t seed = test_seed();
    TEST_EACH_DEVICE(ctx) {
        for (size_t ci = 0; ci < 2; ci++) {
            if (apply(ctx, &configs[ci])) {
                sort_case c = {&configs[ci], CLPERM_KEY_U32, CLPERM_TYPE_U32, (1u << 20) + 3, RANDOM, {0, 0, 0}, seed,
                               0, 0};
                check_sort(ctx, &c);
                c.key_type = CLPERM_KEY_F64;
                c.value_type = 0;
                c.pattern = SPECIAL;
                check_sort(ctx, &c);
            }
        }
    }
}

/* The serial scatter's lines (cl/sort/radix_serial.cl: CPUs write through them from the sizes
 * whose pass writes more than the device's cache holds). With the cache capped to 1 KiB every
 * size here takes them, in blocks of their own size and of 256 keys, whose lines their
 * neighbours share; keys of every width alone and with values, argsort and out of place. Where
 * the device runs no serial kernels or takes no lines, the same sorts against the host. */
Test(sort, scatter_lines_equal_host) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    cr_assert_eq(setenv("CLPERM_TEST_PROFILE", "cache=1024", 1), 0);
    static const uint64_t sizes[] = {1, 17, 1000, 4099, 65537, 100003};
    static const struct {
        clperm_key_type key;
        clperm_type value;
        int pattern, argsort, into;
    } jobs[] = {{CLPERM_KEY_U32, 0, RANDOM, 0, 0},
                {CLPERM_KEY_U32, CLPERM_TYPE_U32, FEW, 0, 0},
                {CLPERM_KEY_F32, CLPERM_TYPE_U64, SPECIAL, 0, 1},
                {CLPERM_KEY_U64, 0, RANDOM, 0, 1},
                {CLPERM_KEY_I64, CLPERM_TYPE_U64, RANDOM, 0, 0},
                {CLPERM_KEY_U32, CLPERM_TYPE_U32, RANDOM, 1, 0},
                {CLPERM_KEY_I16, CLPERM_TYPE_U32, RANDOM, 0, 0}};
    TEST_EACH_DEVICE(ctx) {
        for (size_t ci = 2; ci <= 3; ci++) {
            if (!apply(ctx, &configs[ci])) continue;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
                    sort_case c = {&configs[ci], jobs[j].key, jobs[j].value, sizes[s], jobs[j].pattern, {0, 0, 0},
                                   seed + s, jobs[j].argsort, jobs[j].into};
                    check_sort(ctx, &c);
                }
        }
    }
    unsetenv("CLPERM_TEST_PROFILE");
}
#endif

/* 8- and 16-bit keys (one or two passes of 8 bits): every configuration the device runs, against
 * the host. In the first: each type alone and with u32 and u64 values at the awkward sizes, every
 * pattern ascending and descending (the f16 specials, digits that do not vary), bit ranges and
 * argsort; in the others i16 pairs and u8 keys alone. Under the simulator, the first
 * configuration's i16 pairs and f16 specials with u32 values, one partial tile each. The
 * segmented sorts refuse them. */
Test(sort, narrow_keys_equal_host) {
    uint64_t seed = test_seed() ^ 0x16;
    TEST_EACH_DEVICE(ctx) {
        effective seen[CONFIGS];
        size_t nseen = 0, ci = 0;
#ifdef CLPERM_TEST_SMALL
        const size_t limit = 1; /* the simulator: the first configuration */
#else
        const size_t limit = CONFIGS;
#endif
        for (const config *cfg; (cfg = next_config(ctx, &ci, limit, seen, &nseen)) != NULL;) {
            const int first = nseen == 1;
            uint64_t tile = tile_of(ctx), n = 2 * tile + 5;
#ifdef CLPERM_TEST_SMALL
            const uint64_t all_sizes[] = {tile + 1};
#else
            const uint64_t all_sizes[] = {0, 1, 2, 97, tile - 1, tile, tile + 1, 3 * tile + 7};
#endif
            const uint64_t few_sizes[] = {tile + 1, n};
            const uint64_t *sizes = first ? all_sizes : few_sizes;
            size_t nsizes = first ? sizeof all_sizes / sizeof all_sizes[0] : sizeof few_sizes / sizeof few_sizes[0];
            int ran = 0;
            for (size_t t = 0; t < NARROW; t++)
                for (size_t v = 0; v < 3; v++) {
                    int some = (narrow_types[t] == CLPERM_KEY_I16 && v == 1) ||
                               (narrow_types[t] == CLPERM_KEY_U8 && v == 0);
#ifdef CLPERM_TEST_SMALL
                    if (!some || v == 0) continue; /* one program: 16-bit keys with u32 values */
#endif
                    if (!first && !some) continue;
                    for (size_t s = 0; s < nsizes; s++) {
                        sort_case c = {cfg,       narrow_types[t], value_types[v], sizes[s], RANDOM, {0, 0, 0},
                                       seed + s * 7 + t, 0, 0};
                        ran += check_sort(ctx, &c);
                    }
                }
            if (first) {
                for (int pattern = 0; pattern < PATTERNS; pattern++)
                    for (size_t t = 0; t < NARROW; t++) {
#ifdef CLPERM_TEST_SMALL
                        /* Under the simulator, the f16 specials in one partial tile, descending (the
                         * i16 pairs' program). */
                        if (pattern != SPECIAL || narrow_types[t] != CLPERM_KEY_F16) continue;
                        sort_case c = {cfg, narrow_types[t], CLPERM_TYPE_U32, tile + 1, pattern, {1, 0, 0}, seed + 100,
                                       0, 0};
                        ran += check_sort(ctx, &c);
#else
                        /* Keys alone and with u32 values. */
                        for (size_t v = 0; v < 2; v++) {
                            sort_case c = {cfg, narrow_types[t], value_types[v], n, pattern, {0, 0, 0}, seed + 100 + t,
                                           0, 0};
                            ran += check_sort(ctx, &c);
                            c.order.descending = 1;
                            ran += check_sort(ctx, &c);
                        }
#endif
                    }
#ifndef CLPERM_TEST_SMALL
                const struct {
                    clperm_key_type type;
                    clperm_sort_order order;
                } ranges[] = {{CLPERM_KEY_U16, {0, 3, 11}}, {CLPERM_KEY_F16, {1, 8, 16}}, {CLPERM_KEY_I8, {0, 1, 7}},
                              {CLPERM_KEY_I16, {1, 15, 16}}};
                for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
                    sort_case c = {cfg, ranges[r].type, CLPERM_TYPE_U64, n, FEW, ranges[r].order, seed + 200 + r, 0, 0};
                    ran += check_sort(ctx, &c);
                }
                /* Argsort: u16 keys with u32 positions, u8 keys with u64 positions (the simulator's argsort
                 * is device_equals_host's). */
                for (size_t v = 1; v < 3; v++)
                    for (int q = 0; q < 2; q++) {
                        sort_case c = {cfg,        v == 1 ? CLPERM_KEY_U16 : CLPERM_KEY_U8, value_types[v],
                                       v == 1 ? n : tile + 1, q ? FEW : RANDOM, {q, 0, 0}, seed + 300 + v, 1, 0};
                        ran += check_sort(ctx, &c);
                    }
#endif
            }
            cr_log_info("%s: %s: %d sorts of 8- and 16-bit keys", test_device_label(ctx), cfg->name, ran);
            if (first)
                cr_assert_gt(ran, 0, "%s: the first configuration sorted no 8- or 16-bit keys", test_device_label(ctx));
        }
        /* The segmented sorts take the tile networks' keys only: refused, nothing written. */
        uint16_t k[4] = {4, 3, 2, 1}, got[4];
        uint32_t off[2] = {0, 4};
        cl_mem dk = test_buffer(ctx, sizeof k, k), doff = test_buffer(ctx, sizeof off, off);
        clperm_sort_request req = {CLPERM_KEY_U16, dk, 0, NULL, 4, {0, 0, 0}, NULL, NULL, 0};
        clperm_segments segs = {doff, CLPERM_TYPE_U32, 1};
        cr_assert_eq(clperm_sort_segmented(ctx, &req, &segs, 0, NULL, NULL), CLPERM_ERROR_INVALID_TYPE);
        cr_assert_eq(test_read(ctx, dk, sizeof k, got), 0);
        cr_assert(memcmp(got, k, sizeof k) == 0, "a refused segmented sort wrote its keys");
        clperm_sort_host_request hr = {CLPERM_KEY_U16, k, 0, NULL, 4, {0, 0, 0}};
        cr_assert_eq(clperm_sort_segmented_host(&hr, off, CLPERM_TYPE_U32, 1), CLPERM_ERROR_INVALID_TYPE);
        clReleaseMemObject(dk);
        clReleaseMemObject(doff);
    }
}

/* The counting sort of 8- and 16-bit keys alone (CLPERM_PARAM_SORT_ALGORITHM 3; the default
 * takes it from 64 keys a value on), with the device's kernel kind and then each kind it can run
 * (work-group kernels with 32- or 16-bit counters as its local memory allows, serial kernels):
 * every type at sizes around its vectors of 16 bytes and its write kernel's work-groups; in the
 * first kind also every pattern in both orders; and past 2^20 keys, where keys come in several
 * chunks, values in several ranges, and three values (FEW) or one (EQUAL) pass 65535 keys a chunk,
 * where 16-bit counters of local memory hand on; against the host. Each sort allocates no temp
 * buffer (the radix sort would). Under the simulator, the f16 specials and u8 keys in one partial
 * work-group with the device's kind. */
static int counting_cases(clperm_ctx *ctx, const config *cfg, int first, uint64_t seed) {
    int ran = 0;
#ifdef CLPERM_TEST_SMALL
    const clperm_key_type small_types[] = {CLPERM_KEY_F16, CLPERM_KEY_U8};
    for (size_t t = 0; t < 2; t++) {
        sort_case c = {cfg, small_types[t], 0, 257, t ? RANDOM : SPECIAL, {t == 0, 0, 0}, seed + t, 0, t};
        ran += check_sort(ctx, &c);
    }
    (void)first;
#else
    const uint64_t group = 8192, n = 2 * group + 5; /* keys a work-group of the write kernel writes */
    const uint64_t sizes[] = {0, 1, 2, 15, 17, 97, group - 1, group + 1, 3 * group + 7};
    for (size_t t = 0; t < NARROW; t++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            sort_case c = {cfg, narrow_types[t], 0, sizes[s], RANDOM, {0, 0, 0}, seed + s * 7 + t, 0, 0};
            ran += check_sort(ctx, &c);
            /* Out of place: the count reads the input, the write fills the output. */
            c.into = 1;
            if (t == 2) ran += check_sort(ctx, &c);
        }
    for (int pattern = 0; pattern < PATTERNS; pattern++)
        for (size_t t = 0; t < NARROW; t++)
            for (int d = 0; d < 2; d++) {
                if (!first && (d || (pattern != SPECIAL && pattern != EQUAL))) continue;
                sort_case c = {cfg, narrow_types[t], 0, n, pattern, {d, 0, 0}, seed + 100 + t, 0, 0};
                ran += check_sort(ctx, &c);
            }
    for (int pattern = 0; pattern < 4; pattern++) {
        sort_case c = {cfg,         pattern == 3 ? CLPERM_KEY_I8 : CLPERM_KEY_F16, 0, (1u << 20) + 3 + pattern,
                       pattern % 3, {pattern == 1, 0, 0}, seed + 400 + pattern, 0, 0};
        ran += check_sort(ctx, &c);
    }
#endif
    return ran;
}

Test(sort, counting_equals_host) {
    static const config counting = {"counting sort", 3, 0, 0, 0, 0, 0, 1, 1, 0};
    uint64_t seed = test_seed() ^ 0xC0;
    TEST_EACH_DEVICE(ctx) {
        int device_kind = 0, ran = 0;
        cr_assert(apply(ctx, &counting), "%s: the counting sort's parameter", test_device_label(ctx));
        cr_assert_eq(clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_KERNEL, &device_kind), CLPERM_SUCCESS);
#ifdef CLPERM_TEST_SMALL
        const int kinds = 1;
#else
        const int kinds = 3;
#endif
        for (int k = 0; k < kinds; k++) {
            /* The device's kind, then the other one where it runs. */
            int kind = k == 0 ? 0 : k;
            if (k > 0 && (k == device_kind || clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_KERNEL, kind) != CLPERM_SUCCESS))
                continue;
            int algorithm = 0, n = counting_cases(ctx, &counting, k == 0, seed + 1000 * (uint64_t)k);
            cr_assert_eq(clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_ALGORITHM, &algorithm), CLPERM_SUCCESS);
            cr_assert_eq(algorithm, 3, "%s: the algorithm reads back as %d", test_device_label(ctx), algorithm);
            cr_assert_gt(n, 0, "%s: no counting sort ran (kernel kind %d)", test_device_label(ctx), kind);
            cr_log_info("%s: %d counting sorts with kernel kind %d", test_device_label(ctx), n,
                        kind ? kind : device_kind);
            ran += n;
        }
        clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_KERNEL, 0);
        cr_log_info("%s: %d counting sorts", test_device_label(ctx), ran);
    }
}

/* ---- the segmented sort ---- */

/* Segments of the given lengths (offsets from `start`), keys and values around them; the device
 * against the host, canaries past n untouched. */
static void check_segmented(clperm_ctx *ctx, clperm_key_type kt, clperm_type vt, clperm_type ot, const uint64_t *lens,
                            size_t count, uint64_t start, uint64_t tail, clperm_sort_order order, int pattern,
                            uint64_t seed) {
    size_t ks = clperm_key_size(kt), vs = vt ? clperm_type_size(vt) : 0, os = clperm_type_size(ot);
    uint64_t *off = malloc((count + 1) * 8);
    cr_assert(off);
    off[0] = start;
    for (size_t i = 0; i < count; i++) off[i + 1] = off[i] + lens[i];
    uint64_t n = off[count] + tail;
    unsigned char *ob = malloc((count + 1) * os);
    for (size_t i = 0; i <= count; i++) memcpy(ob + i * os, &off[i], os);
    void *keys = malloc((size_t)n * ks + 8), *want = malloc((size_t)n * ks + 8);
    void *vals = malloc((size_t)n * 8 + 8), *wantv = malloc((size_t)n * 8 + 8);
    cr_assert(keys && want && vals && wantv);
    fill_keys(keys, kt, n, pattern, seed);
    fill_values(vals, vt, n);
    memcpy(want, keys, (size_t)n * ks);
    memcpy(wantv, vals, (size_t)n * vs);
    clperm_sort_host_request hr = {kt, want, vt, vs ? wantv : NULL, n, order};
    cr_assert_eq(clperm_sort_segmented_host(&hr, ob, ot, count), CLPERM_SUCCESS);
    cl_mem dk = canary_buffer(ctx, keys, n, ks), dv = vs ? canary_buffer(ctx, vals, n, vs) : NULL;
    cl_mem doff = test_buffer(ctx, (count + 1) * os, ob);
    clperm_sort_request req = {kt, dk, vt, dv, n, order, NULL, NULL, 0};
    clperm_segments segs = {doff, ot, count};
    cl_event ev = NULL;
    clperm_status st = clperm_sort_segmented(ctx, &req, &segs, 0, NULL, &ev);
    char what[300];
    snprintf(what, sizeof what, "%s: segmented %s/%s offsets %s, %zu segments, n=%llu, seed %#llx",
             test_device_label(ctx), key_names[kt], value_names[vt == CLPERM_TYPE_U32 ? 1 : vt ? 2 : 0],
             ot == CLPERM_TYPE_U32 ? "u32" : "u64", count, (unsigned long long)n, (unsigned long long)seed);
    cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s\n%s", what, clperm_status_name(st), clperm_ctx_build_log(ctx));
    cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    compare_result(ctx, dk, dv, want, wantv, n, ks, vs, what);
    if (dv) clReleaseMemObject(dv);
    clReleaseMemObject(dk);
    clReleaseMemObject(doff);
    free(off), free(ob), free(keys), free(want), free(vals), free(wantv);
}

Test(sort_segmented, device_equals_host) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    TEST_EACH_DEVICE(ctx) {
        effective seen[2];
        size_t nseen = 0, ci = 0;
        for (const config *cfg; (cfg = next_config(ctx, &ci, 2, seen, &nseen)) != NULL;) {
            uint64_t tile = tile_of(ctx), max = 0;
            clperm_sort_segment_max(ctx, CLPERM_KEY_U32, 1, CLPERM_TILE_SORT_AUTO, &max);
            /* Empty ones, single keys, short ones of every size class, the tile sorts' limits and
             * the work-group kernel's tile, and longer ones. */
            uint64_t lens[64];
            size_t count = 0;
            const uint64_t fixed[] = {0, 1, 2, 3, 0, 0, 5, 17, 33, 64, 65, 255, 256, 257,
                                      max - 1, max, max + 1, tile - 1, tile, tile + 1, 3 * tile + 1, 0, 31};
            for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) lens[count++] = fixed[i];
            /* Every size class with u32 pairs; two classes and the longer kinds with the other types
             * (each class and type is a tile program to build). */
            const uint64_t few_lens[] = {0, 1, 3, 0, 200, 3 * tile + 1, 2};
            for (int t = 0; t < 6; t++)
                for (int v = 0; v < 3; v++) {
                    if (!type_in(cfg, (size_t)t, (size_t)v)) continue;
                    int all = t == 0 && v == 1;
                    check_segmented(ctx, key_types[t], value_types[v], (t + v) & 1 ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32,
                                    all ? lens : few_lens, all ? count : sizeof few_lens / sizeof few_lens[0],
                                    (uint64_t)t, 5, (clperm_sort_order){0, 0, 0}, RANDOM, seed + t);
                }
            check_segmented(ctx, CLPERM_KEY_F32, CLPERM_TYPE_U32, CLPERM_TYPE_U32, few_lens,
                            sizeof few_lens / sizeof few_lens[0], 0, 0, (clperm_sort_order){1, 0, 0}, SPECIAL, seed);
#ifdef CLPERM_TEST_SMALL
            /* Under the simulator, a few segments per case: its run takes minutes. */
            const size_t nsame = 3;
            check_segmented(ctx, CLPERM_KEY_U64, CLPERM_TYPE_U64, CLPERM_TYPE_U32, few_lens,
                            sizeof few_lens / sizeof few_lens[0], 0, 0, (clperm_sort_order){0, 3, 17}, FEW, seed);
#else
            const size_t nsame = 40;
            check_segmented(ctx, CLPERM_KEY_U64, CLPERM_TYPE_U64, CLPERM_TYPE_U32, lens, count, 0, 0,
                            (clperm_sort_order){0, 3, 17}, FEW, seed);
#endif
            /* Uniform segments: the tile sort's own case. */
            uint64_t same[40];
            for (size_t i = 0; i < nsame; i++) same[i] = max;
            check_segmented(ctx, CLPERM_KEY_U32, 0, CLPERM_TYPE_U32, same, nsame, 0, 0, (clperm_sort_order){0, 0, 0},
                            RANDOM, seed);
            for (size_t i = 0; i < 40; i++) same[i] = 7;
            check_segmented(ctx, CLPERM_KEY_U32, CLPERM_TYPE_U32, CLPERM_TYPE_U64, same, 40, 3, 2,
                            (clperm_sort_order){0, 0, 0}, FEW, seed);
#ifndef CLPERM_TEST_SMALL
            /* One huge segment (the device-wide sort) among tiny ones. */
            uint64_t mixed[] = {3, 1, (UINT64_C(1) << 20) + 1, 0, 2, 9, 1000};
            check_segmented(ctx, CLPERM_KEY_U32, CLPERM_TYPE_U32, CLPERM_TYPE_U32, mixed, 7, 1, 1,
                            (clperm_sort_order){0, 0, 0}, RANDOM, seed);
            /* And one that starts 3 keys in, whose keys vary in their low 20 bits: where three
             * passes move them, the copy back begins and ends off a 16-byte boundary. */
            uint64_t placed[] = {(UINT64_C(1) << 20) + 2, 2};
            check_segmented(ctx, CLPERM_KEY_U32, CLPERM_TYPE_U64, CLPERM_TYPE_U32, placed, 2, 3, 1,
                            (clperm_sort_order){0, 0, 0}, SMALL, seed);
#endif
        }
    }
}

/* A call reads only the list entries it wrote: the context keeps its lists between calls, and a
 * tile sort's work-group holds several tiles, more than a size class may have segments. The first
 * call lists 30 segments of 2 and 3 keys over all its 75 keys; the second, of 75 keys too, one of
 * each length in the middle and nothing longer after them in its lists. A tile that read past its
 * class's entries would sort the first call's pairs and triples, outside the second call's
 * segments, where every key is above the next (or read past the lists). */
Test(sort_segmented, earlier_lists_unread) {
    uint64_t seed = test_seed();
    TEST_EACH_DEVICE(ctx) {
        if (!apply(ctx, &configs[1])) continue; /* work-group kernels: the tile sorts take the short segments */
        uint64_t lens[30];
        for (size_t i = 0; i < 30; i++) lens[i] = 2 + i % 2;
        check_segmented(ctx, CLPERM_KEY_U32, CLPERM_TYPE_U32, CLPERM_TYPE_U32, lens, 30, 0, 0,
                        (clperm_sort_order){0, 0, 0}, DESCENDING, seed);
        check_segmented(ctx, CLPERM_KEY_U32, CLPERM_TYPE_U32, CLPERM_TYPE_U32, lens, 2, 40, 30,
                        (clperm_sort_order){0, 0, 0}, DESCENDING, seed);
    }
}

/* Offsets that decrease or pass n are refused, and nothing is written. */
Test(sort_segmented, bad_offsets_refused) {
    TEST_EACH_DEVICE(ctx) {
        uint32_t keys[64];
        for (int i = 0; i < 64; i++) keys[i] = 64u - (uint32_t)i;
        const uint32_t bad[][5] = {{0, 10, 5, 20, 30}, {0, 10, 20, 30, 65}, {70, 80, 90, 100, 110}, {0, 0, 0, 0, 65}};
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            cl_mem dk = canary_buffer(ctx, keys, 64, 4), doff = test_buffer(ctx, sizeof bad[b], bad[b]);
            clperm_sort_request req = {CLPERM_KEY_U32, dk, 0, NULL, 64, {0, 0, 0}, NULL, NULL, 0};
            clperm_segments segs = {doff, CLPERM_TYPE_U32, 4};
            cr_assert_eq(clperm_sort_segmented(ctx, &req, &segs, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT,
                         "bad offsets %zu accepted", b);
            unsigned char got[(64 + CANARY) * 4];
            cr_assert_eq(test_read(ctx, dk, sizeof got, got), 0);
            cr_assert(memcmp(got, keys, sizeof keys) == 0, "refused offsets %zu: keys written", b);
            check_canary(got, 64, 4, "refused offsets");
            /* Too small an offsets buffer. */
            segs.count = 5;
            cr_assert_eq(clperm_sort_segmented(ctx, &req, &segs, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL);
            segs.count = 4;
            segs.offset_type = (clperm_type)9;
            cr_assert_eq(clperm_sort_segmented(ctx, &req, &segs, 0, NULL, NULL), CLPERM_ERROR_INVALID_TYPE);
            clReleaseMemObject(dk);
            clReleaseMemObject(doff);
        }
        /* Offsets past n, or decreasing, where nothing would be sorted: n of 0 and 1, and no
         * segment at all (one offset). Offsets that fit are accepted there. */
        const struct {
            uint64_t n, count;
            uint32_t off[3];
            clperm_status want;
        } small[] = {
            {0, 1, {0, 5}, CLPERM_ERROR_INVALID_ARGUMENT},   {1, 1, {0, 5}, CLPERM_ERROR_INVALID_ARGUMENT},
            {1, 2, {1, 0, 1}, CLPERM_ERROR_INVALID_ARGUMENT}, {0, 0, {3}, CLPERM_ERROR_INVALID_ARGUMENT},
            {5, 0, {6}, CLPERM_ERROR_INVALID_ARGUMENT},      {1, 2, {0, 1, 1}, CLPERM_SUCCESS},
            {0, 1, {0, 0}, CLPERM_SUCCESS},                  {5, 0, {5}, CLPERM_SUCCESS},
        };
        for (size_t s = 0; s < sizeof small / sizeof small[0]; s++)
            for (int wide = 0; wide < 2; wide++) {
                uint64_t off64[3];
                for (int i = 0; i < 3; i++) off64[i] = small[s].off[i];
                cl_mem dk = canary_buffer(ctx, keys, 64, 4);
                cl_mem doff = wide ? test_buffer(ctx, sizeof off64, off64) : test_buffer(ctx, sizeof small[s].off, small[s].off);
                clperm_sort_request req = {CLPERM_KEY_U32, dk, 0, NULL, small[s].n, {0, 0, 0}, NULL, NULL, 0};
                clperm_segments segs = {doff, wide ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32, small[s].count};
                clperm_status st = clperm_sort_segmented(ctx, &req, &segs, 0, NULL, NULL);
                cr_assert_eq(st, small[s].want, "n %llu, count %llu, case %zu (%s offsets): %s",
                             (unsigned long long)small[s].n, (unsigned long long)small[s].count, s, wide ? "u64" : "u32",
                             clperm_status_name(st));
                unsigned char got[(64 + CANARY) * 4];
                cr_assert_eq(test_read(ctx, dk, sizeof got, got), 0);
                cr_assert(memcmp(got, keys, sizeof keys) == 0, "small case %zu: keys written", s);
                check_canary(got, 64, 4, "small offsets");
                clReleaseMemObject(dk);
                clReleaseMemObject(doff);
            }
    }
}

/* The host's segmented sort refuses the same offsets. */
Test(sort_segmented, bad_offsets_refused_on_the_host) {
    uint32_t keys[4] = {3, 2, 1, 0};
    const uint32_t past[2] = {0, 5}, one[1] = {3}, fits[3] = {0, 1, 1};
    clperm_sort_host_request req = {CLPERM_KEY_U32, keys, 0, NULL, 1, {0, 0, 0}};
    cr_assert_eq(clperm_sort_segmented_host(&req, past, CLPERM_TYPE_U32, 1), CLPERM_ERROR_INVALID_ARGUMENT);
    req.n = 0;
    cr_assert_eq(clperm_sort_segmented_host(&req, one, CLPERM_TYPE_U32, 0), CLPERM_ERROR_INVALID_ARGUMENT);
    req.n = 1;
    cr_assert_eq(clperm_sort_segmented_host(&req, fits, CLPERM_TYPE_U32, 2), CLPERM_SUCCESS);
}

/* The register network of 4-byte keys (CLPERM_PARAM_SEGMENT_SORT 2, forced on every device):
 * uniform segments of every padded length from 2 to the longest it takes, lengths of a power of
 * two and not, ascending and descending, f32's special values, keys alone and with u32 or u64
 * values (few distinct keys: a swap of equal keys shows in their values); the listed segments of
 * a mix; and its local exchanges free of bank conflicts. */
Test(sort_segmented, register_network) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
#ifdef CLPERM_TEST_SMALL
    /* Under the simulator, segments up to 1024 keys: every exchange goes through local memory
     * there (no subgroup shuffles), at 1024 as at 4096; the full-size build tests 4096 on every
     * device. */
    const uint64_t lengths[] = {2, 3, 33, 256, 257};
    const size_t segments = 3;
    const uint64_t mix[] = {0, 1, 2, 3, 5, 17, 33, 64, 65, 255, 256, 257, 1000, 1024, 0, 2};
    const uint64_t traced[] = {2, 256, 1024};
    /* With values: fewer cases, short of 1024 keys. */
    const uint64_t pair_lengths[] = {256};
    const uint64_t pair_mix[] = {0, 1, 3, 17, 65, 0, 2};
    const size_t pair_count = 1, pair_mix_count = sizeof pair_mix / sizeof pair_mix[0], pair_types = 1;
#else
    const uint64_t lengths[] = {2, 3, 4, 7, 8, 31, 32, 33, 64, 100, 128, 255, 256, 257, 512, 1000, 1024, 2047, 2048,
                                4095, 4096};
    const size_t segments = 21;
    const uint64_t mix[] = {0, 1, 2, 3, 5, 17, 33, 64, 65, 255, 256, 257, 1000, 2048, 4096, 3000, 0, 2};
    const uint64_t traced[] = {2, 256, 4096};
    /* With values: the padded and the whole, the longest and one past it. */
    const uint64_t pair_lengths[] = {3, 33, 256, 257, 1000, 2048, 4095}, *pair_mix = mix;
    const size_t pair_count = sizeof pair_lengths / sizeof pair_lengths[0];
    const size_t pair_mix_count = sizeof mix / sizeof mix[0];
    const size_t pair_types = 2;
#endif
    TEST_EACH_DEVICE(ctx) {
        int mode = 0;
        cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_SEGMENT_SORT, 2), CLPERM_SUCCESS);
        cr_assert_eq(clperm_ctx_get_param(ctx, CLPERM_PARAM_SEGMENT_SORT, &mode), CLPERM_SUCCESS);
        cr_assert_eq(mode, 2, "%s: the register network is not taken", test_device_label(ctx));
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            uint64_t same[21];
            for (size_t i = 0; i < segments; i++) same[i] = lengths[l];
            size_t t = l % 3;
            int desc = (l / 3) & 1;
            check_segmented(ctx, key_types[t], 0, CLPERM_TYPE_U32, same, segments, 0, 3,
                            (clperm_sort_order){desc, 0, 0}, t == 2 ? SPECIAL : l & 1 ? FEW : RANDOM, seed + l);
        }
        for (size_t l = 0; l < pair_count; l++) {
            uint64_t same[21];
            for (size_t i = 0; i < segments; i++) same[i] = pair_lengths[l];
            size_t t = (l + 1) % 3;
            check_segmented(ctx, key_types[t], l & 1 ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32, CLPERM_TYPE_U32, same,
                            segments, 0, 3, (clperm_sort_order){(int)((l / 2) & 1), 0, 0}, t == 2 ? SPECIAL : FEW,
                            seed + 50 + l);
            /* Keys of a wide range: runs of one compressed key, short (triples, twins, random) and
             * long (split, mixed): the second sort where runs are many or long, at 2048 keys the
             * third too (mixed). */
            for (int pattern = 0; pattern < 5; pattern++) {
                if (pair_count > 1 && pattern != (int)(l % 5) && pair_lengths[l] != 2048) continue;
                const int kinds[] = {TRIPLES, TWINS, SPLIT, MIXED, RANDOM};
                check_segmented(ctx, key_types[l % 2], l & 1 ? CLPERM_TYPE_U32 : CLPERM_TYPE_U64, CLPERM_TYPE_U32,
                                same, segments, 0, 3, (clperm_sort_order){(int)(l & 1), 0, 0}, kinds[pattern],
                                seed + 60 + l);
            }
        }
        for (size_t t = 0; t < 3; t++)
            check_segmented(ctx, key_types[t], 0, t & 1 ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32, mix,
                            sizeof mix / sizeof mix[0], 1, 2, (clperm_sort_order){(int)(t == 1), 0, 0},
                            t == 2 ? SPECIAL : RANDOM, seed + 100 + t);
        for (size_t t = 0; t < pair_types; t++)
            check_segmented(ctx, key_types[t], t & 1 ? CLPERM_TYPE_U32 : CLPERM_TYPE_U64, CLPERM_TYPE_U32, pair_mix,
                            pair_mix_count, 1, 2, (clperm_sort_order){(int)(t != 1), 0, 0},
                            t ? TRIPLES : FEW, seed + 200 + t);
        for (size_t i = 0; i < sizeof traced / sizeof traced[0]; i++) {
            clperm_conflict_report r;
            clperm_status st = clperm_sort_segmented_conflicts(ctx, traced[i], &r);
            if (st == CLPERM_ERROR_UNSUPPORTED) continue; /* a work-group narrower than 32 */
            cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s\n%s", test_device_label(ctx), clperm_status_name(st),
                         clperm_ctx_build_log(ctx));
            cr_log_info("%s: register network, segments of %llu, %u keys a work-item: %llu accesses in %llu steps "
                        "of %llu subgroups, %llu conflicts",
                        test_device_label(ctx), (unsigned long long)traced[i], r.shape.m,
                        (unsigned long long)r.accesses, (unsigned long long)r.steps, (unsigned long long)r.tiles,
                        (unsigned long long)r.conflicts);
            cr_assert_eq(r.conflicts, 0, "segments of %llu: %llu conflicts", (unsigned long long)traced[i],
                         (unsigned long long)r.conflicts);
            if (traced[i] == 4096) cr_assert_gt(r.accesses, 0, "segments of 4096 exchanged nothing in local memory");
        }
    }
}

/* ---- bad input: a clear status, nothing written ---- */

static cl_mem filled_buffer(clperm_ctx *ctx, size_t bytes, cl_mem_flags flags) {
    unsigned char *b = malloc(bytes);
    memset(b, 0xC5, bytes);
    cl_int e;
    cl_mem m = clCreateBuffer(clperm_ctx_cl_context(ctx), flags | CL_MEM_COPY_HOST_PTR, bytes, b, &e);
    cr_assert(m);
    free(b);
    return m;
}

static void untouched(clperm_ctx *ctx, cl_mem m, size_t bytes, const char *what) {
    unsigned char *b = malloc(bytes);
    cr_assert_eq(test_read(ctx, m, bytes, b), 0);
    for (size_t i = 0; i < bytes; i++) cr_assert_eq(b[i], 0xC5, "%s: byte %zu written", what, i);
    free(b);
}

Test(sort, bad_input_refused) {
    TEST_EACH_DEVICE(ctx) {
        const uint64_t n = 100;
        cl_mem keys = filled_buffer(ctx, n * 4, CL_MEM_READ_WRITE), vals = filled_buffer(ctx, n * 8, CL_MEM_READ_WRITE);
        cl_mem small = filled_buffer(ctx, n * 4 - 4, CL_MEM_READ_WRITE), ro = filled_buffer(ctx, n * 4, CL_MEM_READ_ONLY);
        cl_mem tk = filled_buffer(ctx, n * 4, CL_MEM_READ_WRITE), tv = filled_buffer(ctx, n * 8, CL_MEM_READ_WRITE);
        const clperm_sort_request good = {CLPERM_KEY_U32, keys, CLPERM_TYPE_U64, vals, n, {0, 0, 0}, tk, tv, 0};
        struct {
            const char *what;
            clperm_sort_request req;
            clperm_status want;
        } cases[] = {
            {"keys too small", good, CLPERM_ERROR_BUFFER_TOO_SMALL},
            {"values too small", good, CLPERM_ERROR_BUFFER_TOO_SMALL},
            {"values are the keys", good, CLPERM_ERROR_INVALID_ARGUMENT},
            {"unknown key type", good, CLPERM_ERROR_INVALID_TYPE},
            {"unknown value type", good, CLPERM_ERROR_INVALID_TYPE},
            {"values without a value type", good, CLPERM_ERROR_INVALID_ARGUMENT},
            {"no keys", good, CLPERM_ERROR_INVALID_BUFFER},
            {"read-only keys", good, CLPERM_ERROR_BUFFER_READ_ONLY},
            {"temp keys too small", good, CLPERM_ERROR_BUFFER_TOO_SMALL},
            {"temp keys are the keys", good, CLPERM_ERROR_INVALID_ARGUMENT},
            {"temp values are the values", good, CLPERM_ERROR_INVALID_ARGUMENT},
            {"bits beyond the key", good, CLPERM_ERROR_INVALID_ARGUMENT},
            {"an empty bit range", good, CLPERM_ERROR_INVALID_ARGUMENT},
            {"descending 2", good, CLPERM_ERROR_INVALID_ARGUMENT},
            {"u64 keys in a buffer of n u32", good, CLPERM_ERROR_BUFFER_TOO_SMALL},
        };
        cases[0].req.keys = small;
        cases[1].req.value_type = CLPERM_TYPE_U64, cases[1].req.values = keys, cases[1].req.keys = tk,
        cases[1].req.temp_keys = NULL;
        cases[2].req.values = keys, cases[2].req.value_type = CLPERM_TYPE_U32;
        cases[3].req.key_type = (clperm_key_type)(CLPERM_KEYKIND_LAST + 1);
        cases[4].req.value_type = (clperm_type)3;
        cases[5].req.value_type = 0;
        cases[6].req.keys = NULL;
        cases[7].req.keys = ro;
        cases[8].req.temp_keys = small;
        cases[9].req.temp_keys = keys;
        cases[10].req.temp_values = vals;
        cases[11].req.order.bit_hi = 33;
        cases[12].req.order.bit_lo = 9, cases[12].req.order.bit_hi = 9;
        cases[13].req.order.descending = 2;
        cases[14].req.key_type = CLPERM_KEY_U64;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            cl_event ev = NULL;
            clperm_status st = clperm_sort(ctx, &cases[i].req, 0, NULL, &ev);
            cr_assert_eq(st, cases[i].want, "%s: %s, want %s", cases[i].what, clperm_status_name(st),
                         clperm_status_name(cases[i].want));
            cr_assert_null(ev, "%s: an event came back", cases[i].what);
            clperm_segments segs = {vals, CLPERM_TYPE_U32, 4};
            st = clperm_sort_segmented(ctx, &cases[i].req, &segs, 0, NULL, NULL);
            cr_assert_eq(st, cases[i].want, "segmented, %s: %s", cases[i].what, clperm_status_name(st));
        }
        /* Argsort: without values, and in the segmented sort, which does not make positions. */
        clperm_sort_request arg = good;
        arg.argsort = 1;
        clperm_segments arg_segs = {vals, CLPERM_TYPE_U32, 4};
        cr_assert_eq(clperm_sort_segmented(ctx, &arg, &arg_segs, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        arg.value_type = 0, arg.values = NULL, arg.temp_values = NULL;
        cr_assert_eq(clperm_sort(ctx, &arg, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_sort(ctx, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_sort(ctx, &good, 1, NULL, NULL), CLPERM_ERROR_INVALID_EVENT_LIST);
        cr_assert_eq(clperm_sort(NULL, &good, 0, NULL, NULL), CLPERM_ERROR_INVALID_CONTEXT);
        cr_assert_eq(clperm_sort_segmented(ctx, &good, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        clperm_segments short_offsets = {small, CLPERM_TYPE_U64, n / 2};
        cr_assert_eq(clperm_sort_segmented(ctx, &good, &short_offsets, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL);
        /* Out of place: the outputs checked as the request's buffers are, and read-only input. */
        cl_mem ok = filled_buffer(ctx, n * 4, CL_MEM_READ_WRITE), ov = filled_buffer(ctx, n * 8, CL_MEM_READ_WRITE);
        clperm_sort_request keys_only = good;
        keys_only.value_type = 0, keys_only.values = NULL, keys_only.temp_values = NULL;
        struct {
            const char *what;
            const clperm_sort_request *req;
            cl_mem out_keys, out_values;
            clperm_status want;
        } into[] = {
            {"no output keys", &good, NULL, ov, CLPERM_ERROR_INVALID_ARGUMENT},
            {"output keys are the keys", &good, keys, ov, CLPERM_ERROR_INVALID_ARGUMENT},
            {"output keys are the temp keys", &good, tk, ov, CLPERM_ERROR_INVALID_ARGUMENT},
            {"output values are the values", &good, ok, vals, CLPERM_ERROR_INVALID_ARGUMENT},
            {"output values are the output keys", &good, ov, ov, CLPERM_ERROR_INVALID_ARGUMENT},
            {"no output values", &good, ok, NULL, CLPERM_ERROR_INVALID_ARGUMENT},
            {"output values without values", &keys_only, ok, ov, CLPERM_ERROR_INVALID_ARGUMENT},
            {"output keys too small", &keys_only, small, NULL, CLPERM_ERROR_BUFFER_TOO_SMALL},
            {"read-only output keys", &keys_only, ro, NULL, CLPERM_ERROR_BUFFER_READ_ONLY},
            {"a bad request", &cases[3].req, ok, ov, CLPERM_ERROR_INVALID_TYPE},
        };
        for (size_t i = 0; i < sizeof into / sizeof into[0]; i++) {
            cl_event ev = NULL;
            clperm_status st = clperm_sort_into(ctx, into[i].req, into[i].out_keys, into[i].out_values, 0, NULL, &ev);
            cr_assert_eq(st, into[i].want, "into, %s: %s, want %s", into[i].what, clperm_status_name(st),
                         clperm_status_name(into[i].want));
            cr_assert_null(ev, "into, %s: an event came back", into[i].what);
        }
        cr_assert_eq(clperm_sort_into(ctx, NULL, ok, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_sort_into(NULL, &keys_only, ok, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_CONTEXT);
        /* Read-only keys sort into a buffer of their own (100 keys 0xC5C5C5C5), and stay. */
        clperm_sort_request from_ro = keys_only;
        from_ro.keys = ro, from_ro.temp_keys = NULL;
        cl_mem out = filled_buffer(ctx, n * 4, CL_MEM_READ_WRITE);
        cr_assert_eq(clperm_sort_into(ctx, &from_ro, out, NULL, 0, NULL, NULL), CLPERM_SUCCESS);
        untouched(ctx, out, n * 4, "the output of read-only keys");
        clReleaseMemObject(out);
        cl_mem all[] = {keys, vals, small, ro, tk, tv, ok, ov};
        const char *names[] = {"keys", "values", "small", "read-only", "temp keys", "temp values", "output keys",
                               "output values"};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
            size_t bytes = 0;
            clGetMemObjectInfo(all[i], CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
            untouched(ctx, all[i], bytes, names[i]);
            clReleaseMemObject(all[i]);
        }
    }
}

/* ---- above 2^32 bytes: 64-bit positions ---- */
#ifndef CLPERM_TEST_SMALL

/* 2^30 + 3 u32 keys (4 GiB and 12 bytes), where the device holds them twice over: sorted, and the
 * same keys (a sum and a sum of squares, mod 2^64, as a check of the multiset). */
Test(sort, beyond_four_gibibytes) {
    const uint64_t n = (UINT64_C(1) << 30) + 3;
    TEST_EACH_DEVICE(ctx) {
        clperm_profile p;
        cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
        if (p.max_alloc_bytes < n * 4 || p.global_mem_bytes < 3 * n * 4) {
            cr_log_info("%s: skipped, the device does not hold 2 x %llu bytes (max allocation %llu, memory %llu)",
                        test_device_label(ctx), (unsigned long long)(n * 4), (unsigned long long)p.max_alloc_bytes,
                        (unsigned long long)p.global_mem_bytes);
            continue;
        }
        uint32_t *keys = malloc(n * 4);
        cr_assert(keys, "host memory for 4 GiB of keys");
        test_fill_random(keys, n * 4, test_seed());
        uint64_t sum = 0, squares = 0;
        for (uint64_t i = 0; i < n; i++) sum += keys[i], squares += (uint64_t)keys[i] * keys[i];
        cl_mem dk = test_buffer(ctx, n * 4, keys);
        cr_assert(dk);
        clperm_sort_request req = {CLPERM_KEY_U32, dk, 0, NULL, n, {0, 0, 0}, NULL, NULL, 0};
        clperm_status st = clperm_sort(ctx, &req, 0, NULL, NULL);
        cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s", test_device_label(ctx), clperm_status_name(st));
        cr_assert_eq(test_read(ctx, dk, n * 4, keys), 0);
        uint64_t sum2 = 0, squares2 = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (i) cr_assert(keys[i - 1] <= keys[i], "%s: out of order at %llu", test_device_label(ctx), (unsigned long long)i);
            sum2 += keys[i], squares2 += (uint64_t)keys[i] * keys[i];
        }
        cr_assert(sum == sum2 && squares == squares2, "%s: the keys changed", test_device_label(ctx));
        clReleaseMemObject(dk);
        free(keys);
    }
}
#endif

/* ---- the tile ranking's bank conflicts ---- */

/* In the trace build's count (32 banks, a subgroup's 32 work-items together): keys all equal take
 * one digit, so every step of the ranking and the exchange touches consecutive words or one word:
 * no conflicts. Random keys scatter through the exchange: conflicts, reported. */
Test(sort, rank_conflicts) {
#ifdef CLPERM_TEST_SMALL
    const int shapes[][2] = {{0, 0}};
#else
    const int shapes[][2] = {{0, 0}, {256, 16}}; /* the device's, and NVIDIA's table's */
#endif
#ifdef CLPERM_TEST_SMALL
    const uint64_t n = 2 * 256 + 17;
#else
    const uint64_t n = 3 * 4096 + 17;
#endif
    uint32_t *keys = malloc(n * 4);
    TEST_EACH_DEVICE(ctx) {
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
            int wg = 0, items = 0;
            clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_ALGORITHM, 2);
            clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_KERNEL, 1);
            if (clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_WG_SIZE, shapes[sh][0]) == CLPERM_SUCCESS &&
                clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_ITEMS, shapes[sh][1]) == CLPERM_SUCCESS) {
                clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_WG_SIZE, &wg);
                clperm_ctx_get_param(ctx, CLPERM_PARAM_SORT_ITEMS, &items);
            }
            for (int pattern = 0; pattern < 3 && wg && wg % 32 == 0; pattern++) {
                fill_keys(keys, CLPERM_KEY_U32, n, pattern == 0 ? EQUAL : pattern == 1 ? FEW : RANDOM, 5);
                clperm_conflict_report r;
                clperm_status st = clperm_sort_rank_conflicts(ctx, keys, n, &r);
                cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s\n%s", test_device_label(ctx), clperm_status_name(st),
                             clperm_ctx_build_log(ctx));
                cr_assert_gt(r.accesses, 4 * n, "the trace recorded too little");
                cr_log_info("%s: work-groups of %d x %d keys, %s keys: %llu accesses in %llu steps of %llu subgroups, "
                            "%llu conflicts, at most %u-way",
                            test_device_label(ctx), wg, items,
                            pattern == 0 ? "equal" : pattern == 1 ? "three distinct" : "random",
                            (unsigned long long)r.accesses, (unsigned long long)r.steps, (unsigned long long)r.tiles,
                            (unsigned long long)r.conflicts, r.max_ways);
                if (pattern == 0)
                    cr_assert_eq(r.conflicts, 0, "equal keys: %llu conflicts", (unsigned long long)r.conflicts);
                if (pattern == 2) cr_assert_gt(r.conflicts, 0, "random keys scatter without a conflict?");
            }
        }
    }
    free(keys);
}
