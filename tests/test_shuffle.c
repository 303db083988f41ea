/* Shuffles: the host permutation is a permutation and matches random access and the known-answer
 * file; every device gives the host's output bit for bit at every fusion level and kernel kind;
 * bad input leaves the output untouched. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "internal.h"

#ifndef CLPERM_TEST_DATA_DIR
#define CLPERM_TEST_DATA_DIR "."
#endif

static const clperm_shuffle_opts philox = {CLPERM_BIJECTION_PHILOX, 0, 0};
static const clperm_shuffle_opts lcg = {CLPERM_BIJECTION_LCG, 0, 0};
static const clperm_shuffle_opts feistel = {CLPERM_BIJECTION_FEISTEL, 0, 0};
static const clperm_shuffle_opts *const kinds[] = {&philox, &lcg, &feistel};
#define KINDS (sizeof kinds / sizeof kinds[0])

static const char *kind_name(const clperm_shuffle_opts *o) {
    return o->bijection == CLPERM_BIJECTION_LCG ? "lcg" : o->bijection == CLPERM_BIJECTION_FEISTEL ? "feistel" : "philox";
}

/* 1 when perm holds each of 0..n-1 exactly once. */
static int is_permutation(const uint64_t *perm, uint64_t n) {
    unsigned char *seen = calloc(n ? n : 1, 1);
    cr_assert(seen);
    int ok = 1;
    for (uint64_t j = 0; j < n && ok; j++) {
        if (perm[j] >= n || seen[perm[j]]) ok = 0;
        else seen[perm[j]] = 1;
    }
    free(seen);
    return ok;
}

static uint64_t *host_perm(uint64_t n, uint64_t seed, const clperm_shuffle_opts *opts) {
    uint64_t *p = malloc((n ? n : 1) * 8);
    cr_assert(p);
    clperm_status st = clperm_permutation_host(CLPERM_TYPE_U64, p, n, seed, opts);
    cr_assert_eq(st, CLPERM_SUCCESS, "host permutation n=%llu: %s", (unsigned long long)n, clperm_status_name(st));
    return p;
}

/* The first seed from `from` on whose VariablePhilox key for n has the transposition (n >= 2). */
static uint64_t transposing_seed(uint64_t n, uint64_t from) {
    for (uint64_t seed = from;; seed++) {
        clperm_bijection_key key;
        cr_assert_eq(clperm_bijection_init(&key, n, seed, &philox), CLPERM_SUCCESS);
        if (n < 2 || key.swap[0] != key.swap[1]) return seed;
    }
}

static const uint64_t host_sizes[] = {0,  1,  2,  3,  5,  7,   15,   16,   17,   31,    32,    33,   63,
                                      64, 65, 97, 255, 256, 257, 1009, 4095, 4097, 65537, 100003, (1u << 20) + 1};

Test(shuffle_host, every_size_gives_a_permutation) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    const uint64_t largest = test_quick() ? 65537 : UINT64_MAX;
    for (size_t b = 0; b < KINDS; b++)
        for (size_t s = 0; s < sizeof host_sizes / sizeof host_sizes[0]; s++) {
            uint64_t n = host_sizes[s];
            if (n > largest) continue;
            uint64_t *p = host_perm(n, seed + s, kinds[b]);
            cr_assert(is_permutation(p, n), "%s n=%llu: not a permutation", kind_name(kinds[b]), (unsigned long long)n);
            free(p);
        }
    for (unsigned k = 1; k <= (test_quick() ? 16u : 22u); k++)
        for (int b = 0; b < 2; b++) {
            uint64_t n = (UINT64_C(1) << k) + 1;
            uint64_t *p = host_perm(n, seed ^ k, b ? &feistel : &philox);
            cr_assert(is_permutation(p, n), "%s n=2^%u+1: not a permutation", b ? "feistel" : "philox", k);
            free(p);
        }
}

/* The rounds, the bijection and the seed all change the permutation; the same inputs repeat it. */
Test(shuffle_host, options_and_seed_matter) {
    const uint64_t n = 1000;
    uint64_t *a = host_perm(n, 1, &philox), *b = host_perm(n, 1, &philox), *c = host_perm(n, 2, &philox);
    clperm_shuffle_opts r10 = {CLPERM_BIJECTION_PHILOX, 10, 0};
    uint64_t *d = host_perm(n, 1, &r10), *e = host_perm(n, 1, &lcg), *f = host_perm(n, 1, &feistel);
    clperm_shuffle_opts f10 = {CLPERM_BIJECTION_FEISTEL, 10, 0};
    uint64_t *g = host_perm(n, 1, &f10), *h = host_perm(n, 2, &feistel);
    cr_assert(memcmp(a, b, n * 8) == 0, "same seed, different permutations");
    cr_assert(memcmp(a, c, n * 8) != 0, "seeds 1 and 2 give the same permutation");
    cr_assert(memcmp(a, d, n * 8) != 0, "10 and 24 rounds give the same permutation");
    cr_assert(memcmp(a, e, n * 8) != 0, "philox and lcg give the same permutation");
    cr_assert(memcmp(a, f, n * 8) != 0, "philox and feistel give the same permutation");
    cr_assert(memcmp(f, g, n * 8) != 0, "feistel: the round count does not matter");
    cr_assert(memcmp(f, h, n * 8) != 0, "feistel: seeds 1 and 2 give the same permutation");
    free(a), free(b), free(c), free(d), free(e), free(f), free(g), free(h);
}

/* One seed's permutations of n and n + 1 items are unrelated: of the pairs of items 0 .. n - 1,
 * about half keep their relative order from one to the other, as for independent permutations.
 * In 0.1.0, with keys from the seed alone, the Feistel kept every pair in order at n = 1000 and
 * 1001 and VariablePhilox 99.8%. Mean over 24 seeds per bijection at n = 1000 (a seed's share
 * has a standard deviation of about 0.02), and at n = 2^10 - 1 against 2^10. */
Test(shuffle_host, seed_gives_unrelated_permutations_of_n_and_n_plus_1) {
    const uint64_t sizes[] = {1000, 1023};
    enum { SEEDS = 24 };
    static uint32_t pos_a[1024], pos_b[1025];
    for (size_t kk = 0; kk < 3; kk++)
        for (size_t sz = 0; sz < 2; sz++) {
            uint64_t n = sizes[sz];
            double kept = 0;
            for (uint64_t seed = test_seed(); seed < test_seed() + SEEDS; seed++) {
                uint64_t *a = host_perm(n, seed, kinds[kk]), *b = host_perm(n + 1, seed, kinds[kk]);
                for (uint64_t j = 0; j < n; j++) pos_a[a[j]] = (uint32_t)j;
                for (uint64_t j = 0; j <= n; j++) pos_b[b[j]] = (uint32_t)j;
                uint64_t same = 0;
                for (uint64_t x = 0; x < n; x++)
                    for (uint64_t y = x + 1; y < n; y++) same += (pos_a[x] < pos_a[y]) == (pos_b[x] < pos_b[y]);
                kept += (double)same / ((double)n * (n - 1) / 2);
                free(a);
                free(b);
            }
            kept /= SEEDS;
            cr_assert(kept > 0.45 && kept < 0.55, "bijection %d, n = %llu and n + 1: %.3f of the pairs keep their order",
                      kinds[kk]->bijection, (unsigned long long)n, kept);
        }
}

/* f^-1(f(x)) = x over whole small domains and at sampled points of large ones, for every kind;
 * over a whole domain f is then also onto. Sizes 2^b - 1 and 2^b + 1 for b up to 62, and 2^63. */
Test(shuffle_host, bijections_invert) {
    uint64_t seed = test_seed();
    for (size_t b = 0; b < KINDS; b++)
        for (unsigned bits = 1; bits <= 63; bits++)
            for (int plus = 0; plus < 2; plus++) {
                uint64_t n = bits == 63 ? UINT64_C(1) << 63 : plus ? (UINT64_C(1) << bits) + 1 : (UINT64_C(1) << bits) - 1;
                clperm_bijection_key key;
                cr_assert_eq(clperm_bijection_init(&key, n, seed + bits, kinds[b]), CLPERM_SUCCESS);
                cr_assert_geq(key.domain, n);
                uint64_t whole = test_quick() ? 1u << 10 : 1u << 16;
                uint64_t count = key.domain <= whole ? key.domain : 4096;
                uint64_t x = seed;
                for (uint64_t i = 0; i < count; i++) {
                    uint64_t v = key.domain <= whole ? i
                                 : ((x = x * 6364136223846793005u + 1442695040888963407u) >> 1) % key.domain;
                    uint64_t y = clperm_bijection_apply(&key, v);
                    cr_assert_lt(y, key.domain);
                    cr_assert_eq(clperm_bijection_invert(&key, y), v, "%s n=%llu: f^-1(f(%llu)) = %llu", kind_name(kinds[b]),
                                 (unsigned long long)n, (unsigned long long)v,
                                 (unsigned long long)clperm_bijection_invert(&key, y));
                }
            }
}

/* The Feistel's domain a x 2^h: at least n, less than n + 2^h, a in [16, 2^31], and a / 2^h within
 * [1/2, 2] from n = 2^8 up to 2^62. */
Test(shuffle_host, feistel_domain_fits_n) {
    for (unsigned bits = 0; bits <= 63; bits++)
        for (int d = -1; d <= 1; d++) {
            uint64_t n = (UINT64_C(1) << bits) + (uint64_t)(int64_t)d;
            if (bits == 0 && d < 0) n = 0;
            if (bits == 63 && d > 0) continue;
            clperm_bijection_key k;
            cr_assert_eq(clperm_bijection_init(&k, n, 1, &feistel), CLPERM_SUCCESS);
            uint64_t b = UINT64_C(1) << k.right_bits;
            cr_assert_eq(k.domain, (uint64_t)k.radix << k.right_bits);
            cr_assert(k.domain >= n && (k.domain - n < b || k.radix == 16), "n=%llu: domain %llu", (unsigned long long)n,
                      (unsigned long long)k.domain);
            cr_assert(k.radix >= 16 && k.radix <= (UINT32_C(1) << 31) && k.right_bits >= 4 && k.right_bits <= 32);
            if (n >= 256 && k.bits <= 62)
                cr_assert(2 * (uint64_t)k.radix >= b && k.radix <= 2 * b, "n=%llu: radix %u against 2^%u",
                          (unsigned long long)n, k.radix, k.right_bits);
            cr_assert_eq(k.bits, (unsigned)(64 - __builtin_clzll(k.domain - 1)));
        }
}

/* The Feistel at sizes whose radix exceeds 2^16 (the 64-bit reduction), against values from the
 * same independent transcription as the known-answer file (tools/shuffle_kat.py --value). */
Test(shuffle_host, feistel_wide_radix_known_values) {
    static const struct {
        uint64_t n, seed, x, y;
    } cases[] = {
        {(UINT64_C(1) << 40) + 7, 5, 0, 327125053459},
        {(UINT64_C(1) << 40) + 7, 5, 3, 432335145073},
        {(UINT64_C(1) << 40) + 7, 5, 366503875927, 130068671334},
        {(UINT64_C(1) << 40) + 7, 5, 1099512676351, 909365550776},
        {(UINT64_C(1) << 33) + 1, ~UINT64_C(0), 1, 4407677804},
        {(UINT64_C(1) << 33) + 1, ~UINT64_C(0), 8590065663, 735294395},
        {UINT64_C(1) << 63, 1, 2, 6444287242281557684},
        {UINT64_C(1) << 63, 1, 9223372036854775807, 7870673606675301922},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clperm_bijection_key k;
        cr_assert_eq(clperm_bijection_init(&k, cases[c].n, cases[c].seed, &feistel), CLPERM_SUCCESS);
        cr_assert_gt(k.radix, 0x10000u);
        cr_assert_eq(clperm_bijection_apply(&k, cases[c].x), cases[c].y, "n=%llu: f(%llu) = %llu, want %llu",
                     (unsigned long long)cases[c].n, (unsigned long long)cases[c].x,
                     (unsigned long long)clperm_bijection_apply(&k, cases[c].x), (unsigned long long)cases[c].y);
    }
}

/* VariablePhilox's transposition: for about half of the seeds two distinct values below n, none
 * otherwise (and never for other kinds); the permutation is the paper's with those two values
 * exchanged, the rest of it, and so its compaction, unchanged. */
Test(shuffle_host, philox_transposition) {
    static const uint64_t sizes[] = {2, 3, 16, 17, 100, 1024, 1025};
    uint64_t seed = test_seed();
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint64_t n = sizes[s];
        int applied = 0;
        const int seeds = 200;
        for (int t = 0; t < seeds; t++) {
            clperm_bijection_key key, paper;
            cr_assert_eq(clperm_bijection_init(&key, n, seed + t, &philox), CLPERM_SUCCESS);
            paper = key;
            paper.swap[0] = paper.swap[1] = 0;
            uint64_t u = key.swap[0], v = key.swap[1];
            if (u == v) {
                cr_assert(u == 0, "n=%llu: swap %llu %llu", (unsigned long long)n, (unsigned long long)u,
                          (unsigned long long)v);
                continue;
            }
            applied++;
            cr_assert(u < n && v < n, "n=%llu: swap %llu %llu", (unsigned long long)n, (unsigned long long)u,
                      (unsigned long long)v);
            if (n > 100 && t % 10) continue;
            uint64_t *p = host_perm(n, seed + t, &philox);
            uint64_t j = 0;
            for (uint64_t i = 0; i < key.domain; i++) {
                uint64_t w = clperm_bijection_apply(&paper, i);
                if (w >= n) continue;
                uint64_t want = w == u ? v : w == v ? u : w;
                cr_assert_eq(p[j], want, "n=%llu seed %#llx: perm[%llu] = %llu, want %llu", (unsigned long long)n,
                             (unsigned long long)(seed + t), (unsigned long long)j, (unsigned long long)p[j],
                             (unsigned long long)want);
                j++;
            }
            cr_assert_eq(j, n);
            free(p);
        }
        /* Binomial(200, 1/2): 70 .. 130 holds with probability 1 - 2.5e-5. */
        cr_assert(applied >= 70 && applied <= 130, "n=%llu: transposition in %d of %d keys", (unsigned long long)n,
                  applied, seeds);
    }
    for (size_t b = 0; b < KINDS; b++) {
        if (kinds[b] == &philox) continue;
        for (int t = 0; t < 100; t++) {
            clperm_bijection_key key;
            cr_assert_eq(clperm_bijection_init(&key, 1000, seed + t, kinds[b]), CLPERM_SUCCESS);
            cr_assert(key.swap[0] == 0 && key.swap[1] == 0, "%s has a transposition", kind_name(kinds[b]));
        }
    }
}

/* Random access agrees with the whole permutation, both ways. */
Test(shuffle_host, index_matches_permutation) {
    const uint64_t sizes[] = {1, 2, 5, 1000, 1024, 1025, 5000, (1u << 13) + 1, 100003};
    uint64_t seed = test_seed();
    for (size_t b = 0; b < KINDS; b++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            uint64_t n = sizes[s];
            if (test_quick() && n > 5000) continue;
            uint64_t *p = host_perm(n, seed + s, kinds[b]);
            clperm_perm_index *ix = NULL;
            cr_assert_eq(clperm_perm_index_create(&ix, n, seed + s, kinds[b]), CLPERM_SUCCESS);
            uint64_t step = n > 5000 ? 97 : 1;
            for (uint64_t j = 0; j < n; j += step) {
                uint64_t src = ~0ull, pos = ~0ull;
                cr_assert_eq(clperm_perm_index_at(ix, j, &src), CLPERM_SUCCESS);
                cr_assert_eq(src, p[j], "n=%llu: at(%llu) = %llu, want %llu", (unsigned long long)n,
                             (unsigned long long)j, (unsigned long long)src, (unsigned long long)p[j]);
                cr_assert_eq(clperm_perm_index_inverse(ix, p[j], &pos), CLPERM_SUCCESS);
                cr_assert_eq(pos, j, "n=%llu: inverse(%llu) = %llu, want %llu", (unsigned long long)n,
                             (unsigned long long)p[j], (unsigned long long)pos, (unsigned long long)j);
            }
            uint64_t out = 7;
            cr_assert_eq(clperm_perm_index_at(ix, n, &out), CLPERM_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(clperm_perm_index_inverse(ix, n, &out), CLPERM_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(out, 7);
            clperm_perm_index_free(ix);
            free(p);
        }
    clperm_perm_index_free(NULL);
}

/* Known answers: tests/data/shuffle_kat.txt holds, per line, "bijection rounds n seed" and the first
 * values of the permutation (all of it for small n). The file pins the permutation across versions,
 * hosts and devices. */
Test(shuffle_host, known_answers) {
    FILE *f = fopen(CLPERM_TEST_DATA_DIR "/shuffle_kat.txt", "r");
    cr_assert(f, "cannot open %s/shuffle_kat.txt", CLPERM_TEST_DATA_DIR);
    char line[4096];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char kind[16];
        int rounds, used;
        unsigned long long n, seed;
        cr_assert_eq(sscanf(line, "%15s %d %llu %llx%n", kind, &rounds, &n, &seed, &used), 4, "bad line: %s", line);
        cases++;
        if (test_quick() && n > 65536) continue;
        clperm_shuffle_opts o = {strcmp(kind, "lcg") == 0       ? CLPERM_BIJECTION_LCG
                                 : strcmp(kind, "feistel") == 0 ? CLPERM_BIJECTION_FEISTEL
                                                                : CLPERM_BIJECTION_PHILOX,
                                 rounds, 0};
        uint64_t *p = host_perm(n, seed, &o);
        const char *c = line + used;
        uint64_t j = 0;
        unsigned long long want;
        int k;
        while (sscanf(c, "%llu%n", &want, &k) == 1) {
            cr_assert_lt(j, n);
            cr_assert_eq(p[j], want, "%s rounds=%d n=%llu seed=%#llx: perm[%llu] = %llu, want %llu", kind, rounds, n,
                         seed, (unsigned long long)j, (unsigned long long)p[j], want);
            j++;
            c += k;
        }
        cr_assert_gt(j, 0);
        free(p);
    }
    fclose(f);
    cr_assert_geq(cases, 40, "only %d known-answer lines", cases);
}

/* Host shuffle of items = gather through the permutation; bad arguments are refused. */
Test(shuffle_host, items_follow_permutation) {
    const uint64_t n = 1001;
    const size_t sizes[] = {1, 2, 3, 4, 8, 12, 16, 24, 100};
    uint64_t *p = host_perm(n, 9, &feistel); /* NULL options: the default bijection */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t es = sizes[s];
        unsigned char *in = malloc(n * es), *out = malloc(n * es);
        test_fill_random(in, n * es, es);
        cr_assert_eq(clperm_shuffle_host(in, out, n, es, 9, NULL), CLPERM_SUCCESS);
        for (uint64_t j = 0; j < n; j++)
            cr_assert(memcmp(out + j * es, in + p[j] * es, es) == 0, "es=%zu item %llu", es, (unsigned long long)j);
        /* Overlap and zero-size items are refused, with out untouched. */
        memset(out, 0x5a, n * es);
        cr_assert_eq(clperm_shuffle_host(in, in + es, n, es, 9, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_shuffle_host(in, out, n, 0, 9, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        clperm_shuffle_opts bad = {CLPERM_BIJECTION_PHILOX, 65, 0};
        cr_assert_eq(clperm_shuffle_host(in, out, n, es, 9, &bad), CLPERM_ERROR_INVALID_ARGUMENT);
        for (uint64_t i = 0; i < n * es; i++) cr_assert_eq(out[i], 0x5a);
        free(in);
        free(out);
    }
    free(p);
    clperm_shuffle_opts bad_kind = {(clperm_bijection)7, 0, 0}, lcg_rounds = {CLPERM_BIJECTION_LCG, 24, 0};
    uint32_t x[4];
    cr_assert_eq(clperm_permutation_host(CLPERM_TYPE_U32, x, 4, 1, &bad_kind), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(clperm_permutation_host(CLPERM_TYPE_U32, x, 4, 1, &lcg_rounds), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(clperm_permutation_host((clperm_type)9, x, 4, 1, NULL), CLPERM_ERROR_INVALID_TYPE);
}

/* ---- devices ---------------------------------------------------------------------------------- */

typedef struct config {
    const char *name;
    int fusion, kernel, impl, width, wg, items;
} config;

static int apply(clperm_ctx *ctx, const config *cfg) {
    const test_param sets[] = {{CLPERM_PARAM_SHUFFLE_FUSION, cfg->fusion}, {CLPERM_PARAM_SHUFFLE_KERNEL, cfg->kernel},
                               {CLPERM_PARAM_SG_IMPL, cfg->impl},          {CLPERM_PARAM_SG_WIDTH, cfg->width},
                               {CLPERM_PARAM_SHUFFLE_WG_SIZE, cfg->wg},    {CLPERM_PARAM_SHUFFLE_ITEMS, cfg->items}};
    return test_apply_params(ctx, sets, sizeof sets / sizeof sets[0]);
}

static size_t sizes_for(clperm_ctx *ctx, uint64_t *sizes) {
    int wg = 0, items = 0, width = 0;
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SHUFFLE_WG_SIZE, &wg);
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SHUFFLE_ITEMS, &items);
    clperm_ctx_get_param(ctx, CLPERM_PARAM_SG_WIDTH, &width);
    uint64_t tile = (uint64_t)wg * (uint64_t)items, w = (uint64_t)width;
#if CLPERM_TEST_SMALL
    uint64_t list[] = {0, 1, 2, 3, 5, w - 1, w, w + 1, 64, 97, tile - 1, tile, tile + 1, 2 * tile + 7, 1025};
#else
    uint64_t list[] = {0,    1,        2,        3,        5,      w - 1,          w,    w + 1,
                       97,   1009,     1024,     tile - 1, tile, tile + 1, 3 * tile + 7, 4097, 65536,
                       65537, 100003, (1u << 17) + 1, (1u << 20) + 3};
#endif
    size_t n = 0;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        if (i < 5 || list[i] >= 1) sizes[n++] = list[i];
    return n;
}

/* what: 0 permutation u32, 1 permutation u64, else items of `what` bytes. */
static void check_case(clperm_ctx *ctx, const config *cfg, int what, uint64_t n, uint64_t seed,
                       const clperm_shuffle_opts *opts, int inplace) {
    size_t es = what == 0 ? 4 : what == 1 ? 8 : (size_t)what;
    size_t bytes = (size_t)n * es;
    unsigned char *in = malloc(bytes + 1), *out = malloc(bytes + es), *ref = malloc(bytes + 1);
    cr_assert(in && out && ref);
    test_fill_random(in, bytes, seed ^ n);
    memset(out, 0xa5, bytes + es); /* poison: an item never written is caught, and one past n too */
    clperm_status st;
    if (what <= 1)
        st = clperm_permutation_host(what ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32, ref, n, seed, opts);
    else
        st = clperm_shuffle_host(in, ref, n, es, seed, opts);
    cr_assert_eq(st, CLPERM_SUCCESS);
    cl_mem src = test_buffer(ctx, bytes + 1, in);
    cl_mem dst = inplace ? src : test_buffer(ctx, bytes + es, out);
    cr_assert(src && dst);
    cl_event ev = NULL;
    if (what <= 1)
        st = clperm_permutation(ctx, what ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32, dst, n, seed, opts, 0, NULL, &ev);
    else if (inplace)
        st = clperm_shuffle_inplace(ctx, src, n, es, seed, opts, 0, NULL, &ev);
    else
        st = clperm_shuffle(ctx, src, dst, n, es, seed, opts, 0, NULL, &ev);
    cr_assert_eq(st, CLPERM_SUCCESS, "%s: %s n=%llu what=%d: %s\n%s", test_device_label(ctx), cfg->name,
                 (unsigned long long)n, what, clperm_status_name(st), clperm_ctx_build_log(ctx));
    cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    cr_assert_eq(test_read(ctx, dst, inplace ? bytes : bytes + es, out), 0);
    for (uint64_t j = 0; j < n; j++)
        if (memcmp(out + j * es, ref + j * es, es) != 0)
            cr_assert_fail("%s: %s %s n=%llu item bytes=%zu seed=%#llx%s: item %llu differs from the host's",
                           test_device_label(ctx), cfg->name, kind_name(opts),
                           (unsigned long long)n, es, (unsigned long long)seed, inplace ? " in place" : "",
                           (unsigned long long)j);
    if (!inplace)
        for (size_t b = bytes; b < bytes + es; b++)
            cr_assert_eq(out[b], 0xa5, "%s: %s n=%llu: wrote past n items", test_device_label(ctx), cfg->name,
                         (unsigned long long)n);
    clReleaseMemObject(src);
    if (!inplace) clReleaseMemObject(dst);
    free(in);
    free(out);
    free(ref);
}

/* full: every item size and the LCG too (the default configuration); else permutations only. */
static void check_config(const config *cfg, int full) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    int ran = 0;
    TEST_EACH_DEVICE(ctx) {
        if (!apply(ctx, cfg)) {
            cr_log_info("%s: %s not supported, skipped", test_device_label(ctx), cfg->name);
            continue;
        }
        uint64_t sizes[32];
        size_t nsizes = sizes_for(ctx, sizes);
        for (size_t s = 0; s < nsizes; s++) {
            /* VariablePhilox with its transposition here; the other cases take plain seeds. */
            check_case(ctx, cfg, 1, sizes[s], transposing_seed(sizes[s], seed + s), &philox, 0);
            check_case(ctx, cfg, 1, sizes[s], seed + s, &feistel, 0);
            if (!full) continue;
            check_case(ctx, cfg, 0, sizes[s], seed + s, &philox, 0);
            check_case(ctx, cfg, 0, sizes[s], seed + s, &feistel, 0);
            check_case(ctx, cfg, 1, sizes[s], seed + s, &lcg, 0);
            check_case(ctx, cfg, 12, sizes[s], seed + s, &feistel, 0);
            static const int item_sizes[] = {2, 3, 4, 8, 12, 16, 24};
            for (size_t e = 0; e < sizeof item_sizes / sizeof item_sizes[0]; e++)
                check_case(ctx, cfg, item_sizes[e], sizes[s], seed + s + e, &philox, 0);
#if !CLPERM_TEST_SMALL
            check_case(ctx, cfg, 8, sizes[s], seed + s, &philox, 1);
#endif
        }
        ran++;
    }
    if (!ran) cr_skip_test("%s: no device can run it", cfg->name);
}

#define SHUFFLE_TEST(test_name, full, ...)                                                         \
    Test(shuffle, test_name) {                                                                     \
        const config cfg = {#test_name, __VA_ARGS__};                                              \
        check_config(&cfg, full);                                                                  \
    }

/*           name                   full fusion kernel impl width  wg items */
SHUFFLE_TEST(device_defaults,          1,    0,    0,    0,    0,   0,  0)
SHUFFLE_TEST(workgroup_lookback,       0,    3,    1,    0,    0,   0,  0)
SHUFFLE_TEST(workgroup_two_pass,       0,    2,    1,    0,    0,   0,  0)
/* Not in the Oclgrind build (CLPERM_TEST_SMALL): the per-call temporaries of fusion level 1 and
 * of the in-place form are released while Oclgrind still tracks their memory, and it then
 * reports the next call's buffers at the same addresses as uninitialised, although every value
 * read back is right. */
#if !CLPERM_TEST_SMALL
SHUFFLE_TEST(workgroup_separate,       0,    1,    1,    0,    0,   0,  0)
#endif
SHUFFLE_TEST(serial_lookback,          0,    3,    2,    0,    0,   0,  0)
SHUFFLE_TEST(serial_two_pass,          0,    2,    2,    0,    0,   0,  0)
SHUFFLE_TEST(serial_small_tiles,       0,    3,    2,    0,    0,   0, 33)
SHUFFLE_TEST(local_w8_lookback,        0,    3,    1,    1,    8,  64,  3)
SHUFFLE_TEST(local_w32_two_pass,       0,    2,    1,    1,   32, 128,  5)
SHUFFLE_TEST(ptx_lookback,             0,    3,    1,    3,    0,   0,  0)
SHUFFLE_TEST(ptx_lookback_small_tiles, 0,    3,    1,    3,    0,  64,  1)

/* ---- the bucket shuffle ---------------------------------------------------------------------- */

static const clperm_shuffle_opts buckets_feistel = {CLPERM_BIJECTION_FEISTEL, 0, CLPERM_SHUFFLE_BUCKETS};
static const clperm_shuffle_opts buckets_philox = {CLPERM_BIJECTION_PHILOX, 0, CLPERM_SHUFFLE_BUCKETS};
static const clperm_shuffle_opts buckets_lcg = {CLPERM_BIJECTION_LCG, 0, CLPERM_SHUFFLE_BUCKETS};

/* SplitMix64's finaliser, transcribed here from its authors' description, not from the library. */
static uint64_t splitmix_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

typedef struct labelled {
    uint32_t label;
    uint64_t pos;
} labelled;

static int by_label_then_pos(const void *a, const void *b) {
    const labelled *x = a, *y = b;
    if (x->label != y->label) return x->label < y->label ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The permutation as clperm.h defines CLPERM_SHUFFLE_BUCKETS, computed another way: labels from
 * the definition, a comparison sort of (label, position) for the stable partition, each bucket
 * through the public bijection key and cycle-walk. */
static uint64_t *buckets_by_definition(uint64_t n, uint64_t seed, const clperm_shuffle_opts *o) {
    uint64_t key = splitmix_mix(splitmix_mix(seed ^ UINT64_C(0xBB67AE8584CAA73B)) ^ n);
    labelled *items = malloc((n ? n : 1) * sizeof *items);
    uint64_t *perm = malloc((n ? n : 1) * 8);
    cr_assert(items && perm);
    unsigned bits = 0; /* floor(log2 n) - 8, within [0, 8] */
    while (bits < 8 && (n >> (bits + 9)) != 0) bits++;
    for (uint64_t i = 0; i < n; i++) {
        /* SplitMix64's output number i / 8 (from 0), byte i mod 8 from the low end */
        uint64_t z = splitmix_mix(key + (i / 8 + 1) * UINT64_C(0x9E3779B97F4A7C15));
        uint32_t byte = (uint32_t)(z >> (8 * (i % 8))) & 0xFF;
        items[i].label = bits ? byte >> (8 - bits) : 0;
        items[i].pos = i;
    }
    qsort(items, n, sizeof *items, by_label_then_pos);
    int rounds = o->rounds ? o->rounds
                 : o->bijection == CLPERM_BIJECTION_PHILOX ? CLPERM_PHILOX_DEFAULT_ROUNDS
                 : o->bijection == CLPERM_BIJECTION_LCG    ? 0
                                                           : CLPERM_FEISTEL_DEFAULT_ROUNDS;
    for (uint64_t s = 0; s < n;) {
        uint64_t e = s;
        while (e < n && items[e].label == items[s].label) e++;
        uint32_t d = items[s].label;
        clperm_bijection_key k;
        clperm_bijection_derive(&k, e - s, splitmix_mix(key ^ ((uint64_t)(d + 1) * UINT64_C(0xD1B54A32D192ED03))),
                                (uint32_t)(o->bijection ? o->bijection : CLPERM_BIJECTION_FEISTEL), (uint32_t)rounds);
        for (uint64_t j = 0; j < e - s; j++) perm[s + j] = items[s + clperm_bijection_walk(&k, j)].pos;
        s = e;
    }
    free(items);
    return perm;
}

Test(shuffle_host, buckets_follow_their_definition) {
    uint64_t seed = test_seed();
    const clperm_shuffle_opts *opts[] = {&buckets_feistel, &buckets_philox, &buckets_lcg};
    for (size_t o = 0; o < 3; o++)
        for (size_t s = 0; s < sizeof host_sizes / sizeof host_sizes[0]; s++) {
            uint64_t n = host_sizes[s];
            if (n > 100003) continue;
            uint64_t *p = host_perm(n, seed + s, opts[o]), *want = buckets_by_definition(n, seed + s, opts[o]);
            cr_assert(is_permutation(p, n), "buckets %s n=%llu: not a permutation", kind_name(opts[o]),
                      (unsigned long long)n);
            for (uint64_t j = 0; j < n; j++)
                cr_assert_eq(p[j], want[j], "buckets %s n=%llu seed %#llx: perm[%llu] = %llu, the definition %llu",
                             kind_name(opts[o]), (unsigned long long)n, (unsigned long long)(seed + s),
                             (unsigned long long)j, (unsigned long long)p[j], (unsigned long long)want[j]);
            free(p);
            free(want);
        }
}

/* Another algorithm gives another permutation; random access and the bijection's key refuse it;
 * one seed's bucket permutations of n and n + 1 items keep about half of the pairs in order. */
Test(shuffle_host, buckets_options) {
    const uint64_t n = 1000;
    uint64_t *a = host_perm(n, 3, &feistel), *b = host_perm(n, 3, &buckets_feistel), *c = host_perm(n, 3, &buckets_philox);
    cr_assert(memcmp(a, b, n * 8) != 0, "the algorithms give the same permutation");
    cr_assert(memcmp(b, c, n * 8) != 0, "the buckets' bijection does not matter");
    free(a), free(b), free(c);
    clperm_perm_index *ix = NULL;
    clperm_bijection_key key;
    cr_assert_eq(clperm_perm_index_create(&ix, n, 3, &buckets_feistel), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_null(ix);
    cr_assert_eq(clperm_bijection_init(&key, n, 3, &buckets_feistel), CLPERM_ERROR_INVALID_ARGUMENT);
    clperm_shuffle_opts bad = {0, 0, (clperm_shuffle_algorithm)3};
    uint32_t x[4];
    cr_assert_eq(clperm_permutation_host(CLPERM_TYPE_U32, x, 4, 1, &bad), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_str_eq(clperm_shuffle_algorithm_name(CLPERM_SHUFFLE_BUCKETS), "buckets");
    static uint32_t pos_a[1000], pos_b[1001];
    double kept = 0;
    enum { SEEDS = 12 };
    for (uint64_t seed = test_seed(); seed < test_seed() + SEEDS; seed++) {
        uint64_t *p = host_perm(n, seed, &buckets_feistel), *q = host_perm(n + 1, seed, &buckets_feistel);
        for (uint64_t j = 0; j < n; j++) pos_a[p[j]] = (uint32_t)j;
        for (uint64_t j = 0; j <= n; j++) pos_b[q[j]] = (uint32_t)j;
        uint64_t same = 0;
        for (uint64_t i = 0; i < n; i++)
            for (uint64_t k = i + 1; k < n; k++) same += (pos_a[i] < pos_a[k]) == (pos_b[i] < pos_b[k]);
        kept += (double)same / ((double)n * (n - 1) / 2) / SEEDS;
        free(p), free(q);
    }
    cr_assert(kept > 0.45 && kept < 0.55, "buckets, n = 1000 and 1001: %.3f of the pairs keep their order", kept);
}

/* Every device against the host: permutations, items of 4, 8 and 16 bytes (partitioned as they
 * are) and of 3 and 12 (through positions), out of place and in place, under the sort's kernel
 * kinds (its defaults, and where it runs them the work-group and serial kernels). */
static void check_buckets(int sort_kernel) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    const config cfg = {sort_kernel == 0 ? "buckets" : sort_kernel == 1 ? "buckets, work-group sort" : "buckets, serial sort",
                        0, 0, 0, 0, 0, 0};
    int ran = 0;
    TEST_EACH_DEVICE(ctx) {
        if (sort_kernel && clperm_ctx_set_param(ctx, CLPERM_PARAM_SORT_KERNEL, sort_kernel) != CLPERM_SUCCESS) continue;
#if CLPERM_TEST_SMALL
        static const uint64_t sizes[] = {0, 1, 2, 31, 33, 257, 1025};
#else
        static const uint64_t sizes[] = {0, 1, 2, 3, 5, 31, 32, 33, 255, 256, 257, 1009, 4097, 65537, 100003,
                                         (1u << 20) + 3};
#endif
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            uint64_t n = sizes[s], sd = seed + s;
            check_case(ctx, &cfg, 0, n, sd, &buckets_feistel, 0);
#if CLPERM_TEST_SMALL
            /* Under the simulator, where each program takes seconds to build: positions (above),
             * items partitioned as they are, and items gathered through positions, in place. */
            check_case(ctx, &cfg, 8, n, sd, &buckets_feistel, 1);
            check_case(ctx, &cfg, 3, n, sd, &buckets_feistel, 1);
            continue;
#endif
            check_case(ctx, &cfg, 4, n, sd, &buckets_feistel, 0);
            check_case(ctx, &cfg, 12, n, sd, &buckets_feistel, 0);
            if (sort_kernel) continue;
            check_case(ctx, &cfg, 1, n, sd, &buckets_philox, 0);
            check_case(ctx, &cfg, 8, n, sd, &buckets_feistel, 1);
            check_case(ctx, &cfg, 16, n, sd, &buckets_feistel, 0);
            /* 16-byte items by another bijection: the staged gather on CPUs too */
            if (s % 2 == 0) check_case(ctx, &cfg, 16, n, sd, &buckets_philox, 0);
            check_case(ctx, &cfg, 3, n, sd, &buckets_feistel, 1);
            if (s % 4 == 0) check_case(ctx, &cfg, 8, n, sd, &buckets_lcg, 0);
        }
        ran++;
    }
    if (!ran) cr_skip_test("%s: no device can run it", cfg.name);
}

Test(shuffle, buckets_device_defaults) { check_buckets(0); }

/* The context keeps the partitioned items between calls and gives them back on request; the next
 * call allocates them again and is still right. */
Test(shuffle, buckets_scratch_released) {
    const uint64_t n = 5000;
    const config cfg = {"buckets, scratch", 0, 0, 0, 0, 0, 0};
    TEST_EACH_DEVICE(ctx) {
        uint64_t before = 0, kept = 0, after = 0;
        cr_assert_eq(clperm_ctx_counter(ctx, CLPERM_COUNTER_SCRATCH_BYTES, &before), CLPERM_SUCCESS);
        check_case(ctx, &cfg, 8, n, 11, &buckets_feistel, 0);
        cr_assert_eq(clperm_ctx_counter(ctx, CLPERM_COUNTER_SCRATCH_BYTES, &kept), CLPERM_SUCCESS);
        cr_assert_geq(kept, before + n * 8, "%s: %llu bytes of scratch kept, want %llu more", test_device_label(ctx),
                      (unsigned long long)kept, (unsigned long long)(n * 8));
        cr_assert_eq(clperm_ctx_release_scratch(ctx), CLPERM_SUCCESS);
        cr_assert_eq(clperm_ctx_counter(ctx, CLPERM_COUNTER_SCRATCH_BYTES, &after), CLPERM_SUCCESS);
        cr_assert_leq(after + n * 8, kept, "%s: release gave back %llu bytes", test_device_label(ctx),
                      (unsigned long long)(kept - after));
        check_case(ctx, &cfg, 8, n, 12, &buckets_feistel, 0);
    }
    cr_assert_eq(clperm_ctx_release_scratch(NULL), CLPERM_ERROR_INVALID_CONTEXT);
}
#if !CLPERM_TEST_SMALL
Test(shuffle, buckets_work_group_sort) { check_buckets(1); }

/* The label pass through the serial scatter's lines (cl/sort/radix_serial.cl: CPUs write through
 * them from the sizes whose pass writes more than the device's cache holds), capped here to 1 KiB
 * so that every size takes them: items of 4, 8 and 16 bytes, positions, in place. */
Test(shuffle, buckets_scatter_lines) {
    uint64_t seed = test_seed();
    cr_log_info("seed %#llx (set CLPERM_TEST_SEED to replay)", (unsigned long long)seed);
    cr_assert_eq(setenv("CLPERM_TEST_PROFILE", "cache=1024", 1), 0);
    const config cfg = {"buckets, scatter lines", 0, 0, 0, 0, 0, 0};
    static const uint64_t sizes[] = {257, 4097, 65537, 100003};
    TEST_EACH_DEVICE(ctx) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            uint64_t n = sizes[s], sd = seed + s;
            check_case(ctx, &cfg, 0, n, sd, &buckets_feistel, 0);
            check_case(ctx, &cfg, 4, n, sd, &buckets_feistel, 0);
            check_case(ctx, &cfg, 8, n, sd, &buckets_feistel, 1);
            check_case(ctx, &cfg, 16, n, sd, &buckets_feistel, 0);
            check_case(ctx, &cfg, 12, n, sd, &buckets_feistel, 0);
        }
    }
    unsetenv("CLPERM_TEST_PROFILE");
}
#endif

/* ---- the bijection in one's own kernel ---------------------------------------------------- */

/* The way clperm.h tells users to do it: CLPERM_BIJECTION_KEY_PARAMS, _UNPACK and
 * clperm_bijection_set_kernel_args, here on 32- and 64-bit domains of every kind, at sampled
 * points that include the two values of VariablePhilox's transposition and their preimages,
 * against the host bit for bit, both ways. */
static const char user_kernel[] =
    "__kernel void user_bijection(CLPERM_BIJECTION_KEY_PARAMS(key), __global const ulong *x,\n"
    "                             __global ulong *y, __global ulong *inv) {\n"
    "    CLPERM_BIJECTION_KEY_UNPACK(key);\n"
    "    size_t i = get_global_id(0);\n"
    "    y[i] = clperm_bijection_apply(&key, x[i]);\n"
    "    inv[i] = clperm_bijection_invert(&key, x[i]);\n"
    "}\n";

static cl_kernel user_kernel_build(clperm_ctx *ctx, const char *options) {
    /* As the library's own programs: clperm_features.h, then the bijections, then the kernel. */
    const char *texts[3] = {clperm__cl_clperm_features_h, clperm__cl_clperm_bijection_h, user_kernel};
    size_t lengths[3] = {clperm__cl_clperm_features_h_size, clperm__cl_clperm_bijection_h_size,
                         sizeof user_kernel - 1};
    cl_int err;
    cl_program prog = clCreateProgramWithSource(clperm_ctx_cl_context(ctx), 3, texts, lengths, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cl_device_id dev = clperm_ctx_cl_device(ctx);
    err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        cr_assert_fail("%s: user kernel (%s) does not build: %d\n%s", test_device_label(ctx), options, err, log);
    }
    cl_kernel k = clCreateKernel(prog, "user_bijection", &err);
    cr_assert_eq(err, CL_SUCCESS);
    clReleaseProgram(prog);
    return k;
}

#define USER_POINTS 64

static void user_kernel_check(clperm_ctx *ctx, cl_kernel k, const clperm_bijection_key *key, const char *what) {
    uint64_t x[USER_POINTS], y[USER_POINTS], inv[USER_POINTS];
    uint64_t d = key->domain, z = key->n ^ key->keys[0];
    uint64_t fixed[] = {0, 1, d - 1, key->swap[0], key->swap[1], clperm_bijection_invert(key, key->swap[0]),
                        clperm_bijection_invert(key, key->swap[1]), key->n - 1, key->n % d};
    for (int i = 0; i < USER_POINTS; i++) {
        z = z * 6364136223846793005u + 1442695040888963407u;
        x[i] = i < (int)(sizeof fixed / sizeof fixed[0]) ? fixed[i] : (z >> 1) % d;
    }
    cl_mem bx = test_buffer(ctx, sizeof x, x), by = test_buffer(ctx, sizeof y, NULL), bi = test_buffer(ctx, sizeof inv, NULL);
    cr_assert(bx && by && bi);
    cr_assert_eq(clperm_bijection_set_kernel_args(k, 0, key), CLPERM_SUCCESS);
    cr_assert_eq(clSetKernelArg(k, 6, sizeof bx, &bx), CL_SUCCESS);
    cr_assert_eq(clSetKernelArg(k, 7, sizeof by, &by), CL_SUCCESS);
    cr_assert_eq(clSetKernelArg(k, 8, sizeof bi, &bi), CL_SUCCESS);
    size_t global = USER_POINTS;
    cr_assert_eq(clEnqueueNDRangeKernel(clperm_ctx_cl_queue(ctx), k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    cr_assert_eq(test_read(ctx, by, sizeof y, y), 0);
    cr_assert_eq(test_read(ctx, bi, sizeof inv, inv), 0);
    for (int i = 0; i < USER_POINTS; i++) {
        uint64_t want = clperm_bijection_apply(key, x[i]), want_inv = clperm_bijection_invert(key, x[i]);
        cr_assert(y[i] == want && inv[i] == want_inv, "%s: %s n=%llu: f(%llu) = %llu, f^-1 = %llu; host %llu, %llu",
                  test_device_label(ctx), what, (unsigned long long)key->n, (unsigned long long)x[i],
                  (unsigned long long)y[i], (unsigned long long)inv[i], (unsigned long long)want,
                  (unsigned long long)want_inv);
    }
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    clReleaseMemObject(bi);
}

Test(shuffle, bijection_in_user_kernel) {
    static const uint64_t sizes[] = {16, 17, 1000, UINT64_C(1) << 32, (UINT64_C(1) << 32) + 1,
                                     (UINT64_C(1) << 40) + 7, UINT64_C(1) << 63};
    uint64_t seed = test_seed();
    TEST_EACH_DEVICE(ctx) {
        cl_kernel generic = user_kernel_build(ctx, "");
        /* The kind and rounds fixed at compile time, as the shuffle's kernels do. */
        char opts[96];
        snprintf(opts, sizeof opts, "-DCLPERM_BIJECTION_KIND=%d -DCLPERM_BIJECTION_ROUNDS=%d", CLPERM_BIJ_PHILOX,
                 CLPERM_PHILOX_DEFAULT_ROUNDS);
        cl_kernel fixed = user_kernel_build(ctx, opts);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t b = 0; b < KINDS; b++)
                for (int t = 0; t < 2; t++) {
                    uint64_t sd = t ? transposing_seed(sizes[s], seed + s) : seed + s;
                    clperm_bijection_key key;
                    cr_assert_eq(clperm_bijection_init(&key, sizes[s], sd, kinds[b]), CLPERM_SUCCESS);
                    user_kernel_check(ctx, generic, &key, kind_name(kinds[b]));
                    if (kinds[b] == &philox) user_kernel_check(ctx, fixed, &key, "philox (fixed at build)");
                }
        clReleaseKernel(generic);
        clReleaseKernel(fixed);
    }
}

/* Bad input: a clear status, and nothing written to the output. */
Test(shuffle, bad_input_writes_nothing) {
    TEST_EACH_DEVICE(ctx) {
        const uint64_t n = 1000;
        unsigned char pattern[8000], back[8000];
        memset(pattern, 0x3c, sizeof pattern);
        cl_mem src = test_buffer(ctx, n * 8, pattern), dst = test_buffer(ctx, n * 8, pattern);
        cl_mem small = test_buffer(ctx, (n - 1) * 8, pattern);
        clperm_shuffle_opts rounds65 = {CLPERM_BIJECTION_PHILOX, 65, 0}, lcg24 = {CLPERM_BIJECTION_LCG, 24, 0};
        clperm_shuffle_opts kind9 = {(clperm_bijection)9, 0, 0}, feistel65 = {CLPERM_BIJECTION_FEISTEL, 65, 0};
        clperm_shuffle_opts alg9 = {0, 0, (clperm_shuffle_algorithm)9}, buckets = {0, 0, CLPERM_SHUFFLE_BUCKETS};
        clperm_shuffle_opts buckets65 = {CLPERM_BIJECTION_PHILOX, 65, CLPERM_SHUFFLE_BUCKETS};
        struct {
            clperm_status got, want;
            const char *what;
        } cases[] = {
            {clperm_shuffle(ctx, src, small, n, 8, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL, "small dst"},
            {clperm_shuffle(ctx, small, dst, n, 8, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL, "small src"},
            {clperm_shuffle(ctx, src, src, n, 8, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT, "src == dst"},
            {clperm_shuffle(ctx, src, dst, n, 0, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT, "size 0"},
            {clperm_shuffle(ctx, src, dst, n, 8, 1, &rounds65, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT, "65 rounds"},
            {clperm_shuffle(ctx, src, dst, n, 8, 1, &lcg24, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT, "lcg rounds"},
            {clperm_shuffle(ctx, src, dst, n, 8, 1, &kind9, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT, "kind 9"},
            {clperm_shuffle(ctx, src, dst, n, 8, 1, &feistel65, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT,
             "feistel 65 rounds"},
            {clperm_shuffle(ctx, NULL, dst, n, 8, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_BUFFER, "NULL src"},
            {clperm_shuffle(ctx, src, dst, n, 8, 1, NULL, 1, NULL, NULL), CLPERM_ERROR_INVALID_EVENT_LIST, "events"},
            {clperm_shuffle(NULL, src, dst, n, 8, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_CONTEXT, "NULL ctx"},
            {clperm_shuffle_inplace(ctx, small, n, 8, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL, "inplace"},
            {clperm_permutation(ctx, CLPERM_TYPE_U64, small, n, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL,
             "perm small"},
            {clperm_permutation(ctx, CLPERM_TYPE_U32, dst, (UINT64_C(1) << 32) + 1, 1, NULL, 0, NULL, NULL),
             CLPERM_ERROR_INVALID_TYPE, "u32 indices past 2^32"},
            {clperm_permutation(ctx, (clperm_type)5, dst, n, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_TYPE, "type"},
            {clperm_shuffle(ctx, src, dst, n, 8, 1, &alg9, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT, "algorithm 9"},
            {clperm_shuffle(ctx, src, small, n, 8, 1, &buckets, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL,
             "buckets: small dst"},
            {clperm_shuffle(ctx, src, dst, n, 8, 1, &buckets65, 0, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT,
             "buckets: 65 rounds"},
            {clperm_shuffle_inplace(ctx, small, n, 12, 1, &buckets, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL,
             "buckets: in place, small"},
            {clperm_permutation(ctx, CLPERM_TYPE_U32, dst, (UINT64_C(1) << 32) + 1, 1, &buckets, 0, NULL, NULL),
             CLPERM_ERROR_INVALID_TYPE, "buckets: u32 indices past 2^32"},
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            cr_assert_eq(cases[c].got, cases[c].want, "%s: %s: got %s, want %s", test_device_label(ctx), cases[c].what,
                         clperm_status_name(cases[c].got), clperm_status_name(cases[c].want));
        cl_mem bufs[3] = {src, dst, small};
        for (int b = 0; b < 3; b++) {
            size_t bytes = b == 2 ? (n - 1) * 8 : n * 8;
            cr_assert_eq(test_read(ctx, bufs[b], bytes, back), 0);
            cr_assert(memcmp(back, pattern, bytes) == 0, "%s: buffer %d was written by a failed call",
                      test_device_label(ctx), b);
            clReleaseMemObject(bufs[b]);
        }
    }
}

/* Calls in a row on one context share the look-back state with scans in between. */
Test(shuffle, interleaved_with_scans) {
    uint64_t seed = test_seed();
    const config cfg = {"interleaved", 3, 0, 0, 0, 0, 0};
    TEST_EACH_DEVICE(ctx) {
        apply(ctx, &cfg);
        const uint64_t sizes[] = {3000, 40001, 17, 3000};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            check_case(ctx, &cfg, 8, sizes[s], seed + s, &philox, 0);
            uint32_t in[777], out[777];
            test_fill_random(in, sizeof in, s);
            cl_mem b = test_buffer(ctx, sizeof in, in);
            cr_assert_eq(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, b, b, 777, 0, NULL, NULL), CLPERM_SUCCESS);
            cr_assert_eq(test_read(ctx, b, sizeof out, out), 0);
            uint32_t acc = 0;
            for (int i = 0; i < 777; i++) {
                cr_assert_eq(out[i], acc);
                acc += in[i];
            }
            clReleaseMemObject(b);
        }
    }
}
