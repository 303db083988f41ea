/* Generators: the host reference follows the paper's listings (checked against a second, literal
 * implementation here) and the known-answer vectors; every device's fills equal the host's bit for
 * bit at awkward sizes, for every shipped table with each fill kernel and for every output type and
 * scrambler (the combinations pairwise; the full product with CLPERM_TEST_FULL=1); a users' kernel
 * built with clperm_rng_device_source draws the same streams; floats and doubles lie in [0, 1) and
 * are the documented conversions; bad input writes nothing. The period proofs are rng_search
 * --selftest. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clperm_rng.h"
#include "common.h"

typedef struct table {
    int family;
    uint32_t k;
    const uint64_t *p;
} table;

static const table tables[] = {
#define CLPERM_RNG_X(fam, k, tab) {fam, k, (const uint64_t[]){tab}},
    CLPERM_RNG_TABLES(CLPERM_RNG_X)
#undef CLPERM_RNG_X
};
#define NTABLES (sizeof tables / sizeof tables[0])

/* A simulator (CLPERM_TEST_SMALL) fills with the tables of at most 16 words. */
#ifdef CLPERM_TEST_SMALL
#define SMALL_K 16
#else
#define SMALL_K 64
#endif

/* Listings 2-6 written out literally, on unpacked fields: the second implementation. */
static void literal_draw(const table *t, uint32_t *s, uint32_t *b) {
    uint32_t nx[64], k = t->k;
    for (uint32_t j = 0; j < k; j++) {
        uint64_t p = t->p[j];
        uint32_t q0 = p & 63, q1 = (p >> 6) & 63, q2 = (p >> 12) & 63;
        uint32_t z0 = (p >> 24) & 31, z1 = (p >> 29) & 31;
        uint32_t t0 = s[q0], t1 = s[q1];
        switch (t->family) {
        case 1:
        case 4: nx[j] = (t0 << z0) ^ (z1 ? (t1 >> z1) | (t1 << (32 - z1)) : t1); break;
        case 2: nx[j] = (t0 << z0) ^ (t1 >> z1) ^ s[q2]; break;
        case 3: nx[j] = (t0 << z0) ^ (t1 >> z1) ^ t0 ^ t1; break;
        default:
            nx[j] = b[j] ^ (t0 << z0) ^ (t1 >> z1);
            b[j] = s[q2];
            break;
        }
    }
    memcpy(s, nx, k * 4);
    if (t->family == 4) { /* the second pass of the iterated family */
        for (uint32_t j = 0; j < k; j++) {
            uint64_t p = t->p[j];
            uint32_t t0 = s[(p >> 12) & 63], t1 = s[(p >> 18) & 63], z0 = (p >> 34) & 31, z1 = (p >> 39) & 31;
            nx[j] = (t0 << z0) ^ (z1 ? (t1 >> z1) | (t1 << (32 - z1)) : t1);
        }
        memcpy(s, nx, k * 4);
    }
}

Test(rng_host, follows_the_listings) {
    cr_assert(NTABLES >= 5, "tables shipped: %zu", NTABLES);
    for (size_t i = 0; i < NTABLES; i++) {
        const table *t = &tables[i];
        clperm_rng_spec spec = {(clperm_rng_family)t->family, t->k, CLPERM_RNG_SCRAMBLE_NONE};
        uint64_t n = (uint64_t)t->k * CLPERM_RNG_FILL_STEPS * 2 + 5; /* two blocks and a bit */
        uint32_t *got = malloc(n * 4);
        cr_assert_eq(clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_U32, got, n, 99, 3), CLPERM_SUCCESS);
        for (uint64_t block = 0; block * t->k * CLPERM_RNG_FILL_STEPS < n; block++) {
            uint32_t s[64], b[64];
            /* the key of (seed 99, stream 3, block), as docs/rng-quality.md writes it */
            uint64_t g = clperm_rng_mix64(99 ^ clperm_rng_mix64(3 ^ UINT64_C(0x243F6A8885A308D3)));
            uint64_t key = clperm_rng_mix64(g ^ clperm_rng_mix64(block ^ UINT64_C(0x13198A2E03707344)));
            for (uint32_t j = 0; j < t->k; j++) {
                uint64_t h = clperm_rng_mix64(key + j * UINT64_C(0x9E3779B97F4A7C15));
                s[j] = (uint32_t)h | (j == 0);
                b[j] = (uint32_t)(h >> 32);
            }
            for (uint64_t step = 0; step < CLPERM_RNG_FILL_STEPS; step++) {
                literal_draw(t, s, b);
                for (uint32_t j = 0; j < t->k; j++) {
                    uint64_t idx = (block * CLPERM_RNG_FILL_STEPS + step) * t->k + j;
                    if (idx < n)
                        cr_assert_eq(got[idx], s[j], "family %d k %u: item %llu", t->family, t->k,
                                     (unsigned long long)idx);
                }
            }
        }
        free(got);
    }
}

/* tests/data/rng_kat.txt: lines "family k scrambler seed stream" and the first 16 u32 of that fill,
 * every (family, k, scrambler) at least once; the file says where its values come from. Each line
 * is checked on the host and on every device; a simulator, where a fill draws its blocks whole and
 * costs seconds, checks one line for each (family, k) of more than SMALL_K words, the generators
 * the fill tests leave out there (CLPERM_TEST_FULL: every line). */
static const char *const kat_families[] = {"", "correlated", "three", "slowmem", "iterated", "buffered"};
static const char *const kat_scramblers[] = {"none", "starstar"};

typedef struct kat_line {
    clperm_rng_spec spec;
    unsigned long long seed, stream;
    uint32_t want[16];
    char text[512];
} kat_line;

/* Whether line i of those read is checked on the device (see above). */
static int kat_on_device(const kat_line *lines, size_t i) {
#ifdef CLPERM_TEST_SMALL
    if (test_full()) return 1;
    if (lines[i].spec.k <= SMALL_K) return 0;
    for (size_t j = 0; j < i; j++)
        if (lines[j].spec.family == lines[i].spec.family && lines[j].spec.k == lines[i].spec.k) return 0;
#else
    (void)lines, (void)i;
#endif
    return 1;
}

Test(rng_host, known_answers) {
    FILE *f = fopen(CLPERM_TEST_DATA_DIR "/rng_kat.txt", "r");
    cr_assert(f, "cannot open rng_kat.txt");
    enum { MAX_LINES = 256 };
    static kat_line lines[MAX_LINES];
    size_t count = 0;
    int covered[6][65][2] = {{{0}}};
    char text[512];
    while (fgets(text, sizeof text, f)) {
        if (text[0] == '#' || text[0] == '\n') continue;
        cr_assert_lt(count, (size_t)MAX_LINES, "more than %d lines", MAX_LINES);
        kat_line *l = &lines[count++];
        memcpy(l->text, text, sizeof text);
        char fam[32], scr[32];
        unsigned k;
        uint32_t got[16];
        int used = 0;
        cr_assert_eq(sscanf(text, "%31s %u %31s %llx %llu%n", fam, &k, scr, &l->seed, &l->stream, &used), 5,
                     "line: %s", text);
        for (int i = 0; i < 16; i++) {
            int more = 0;
            cr_assert_eq(sscanf(text + used, "%x%n", &l->want[i], &more), 1, "line: %s", text);
            used += more;
        }
        int family = 0, scramble = -1;
        for (int i = 1; i <= 5; i++)
            if (!strcmp(fam, kat_families[i])) family = i;
        for (int i = 0; i < 2; i++)
            if (!strcmp(scr, kat_scramblers[i])) scramble = i;
        cr_assert(family && scramble >= 0 && k <= 64, "line: %s", text);
        l->spec = (clperm_rng_spec){(clperm_rng_family)family, k, (clperm_rng_scramble)scramble};
        cr_assert_eq(clperm_rng_fill_host(&l->spec, CLPERM_RNG_OUT_U32, got, 16, l->seed, l->stream), CLPERM_SUCCESS,
                     "%s", text);
        cr_assert_eq(memcmp(got, l->want, sizeof got), 0, "host differs from its known answer: %s", text);
        covered[family][k][scramble] = 1;
    }
    fclose(f);
    for (size_t t = 0; t < NTABLES; t++)
        for (int x = 0; x < 2; x++)
            cr_assert(covered[tables[t].family][tables[t].k][x], "rng_kat.txt has no line for %s k=%u %s",
                      kat_families[tables[t].family], tables[t].k, kat_scramblers[x]);
    cr_assert_geq(count, 2 * NTABLES);
    TEST_EACH_DEVICE_PRESENT(ctx) {
        uint32_t got[16];
        cl_mem d = test_buffer(ctx, sizeof got, NULL);
        cr_assert_not_null(d);
        for (size_t i = 0; i < count; i++) {
            if (!kat_on_device(lines, i)) continue;
            const kat_line *l = &lines[i];
            cr_assert_eq(clperm_rng_fill(ctx, &l->spec, CLPERM_RNG_OUT_U32, d, 16, l->seed, l->stream, 0, NULL, NULL),
                         CLPERM_SUCCESS);
            memset(got, 0, sizeof got);
            cr_assert_eq(test_read(ctx, d, sizeof got, got), 0);
            cr_assert_eq(memcmp(got, l->want, sizeof got), 0, "%s: %s", test_device_label(ctx), l->text);
        }
        clReleaseMemObject(d);
    }
}

Test(rng_host, conversions) {
    clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, 8, CLPERM_RNG_SCRAMBLE_NONE};
    enum { N = 5000 };
    uint32_t u[2 * N], fl[N];
    uint64_t u64[N], db[N];
    cr_assert_eq(clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_U32, u, N, 5, 0), CLPERM_SUCCESS);
    cr_assert_eq(clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_FLOAT, fl, N, 5, 0), CLPERM_SUCCESS);
    cr_assert_eq(clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_U64, u64, N, 5, 0), CLPERM_SUCCESS);
    cr_assert_eq(clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_DOUBLE, db, N, 5, 0), CLPERM_SUCCESS);
    double fsum = 0, dsum = 0;
    for (int i = 0; i < N; i++) {
        float f;
        double d;
        memcpy(&f, &fl[i], 4);
        memcpy(&d, &db[i], 8);
        cr_assert_eq((double)f, (double)(u[i] >> 8) * ldexp(1, -24), "float %d", i);
        cr_assert_eq(d, (double)(u64[i] >> 11) * ldexp(1, -53), "double %d", i);
        cr_assert(f >= 0 && f < 1 && d >= 0 && d < 1);
        fsum += f;
        dsum += d;
    }
    /* Means of 5000 uniforms: standard deviation 0.0041; 6 sigma. */
    cr_assert(fabs(fsum / N - 0.5) < 0.025 && fabs(dsum / N - 0.5) < 0.025, "means %f %f", fsum / N, dsum / N);
    uint32_t zero = 0, small = 0x100;
    cr_assert_eq(clperm_rng_float_bits(zero), 0u);
    float f;
    uint32_t bits = clperm_rng_float_bits(small);
    memcpy(&f, &bits, 4);
    cr_assert_eq(f, ldexpf(1, -24));
}

/* The linear complexity of the bits s[0 .. len) (Berlekamp-Massey). */
static int linear_complexity(const unsigned char *s, int len) {
    unsigned char *c = calloc((size_t)len + 1, 1), *b = calloc((size_t)len + 1, 1), *t = malloc((size_t)len + 1);
    cr_assert(c && b && t);
    int L = 0, m = 1;
    c[0] = b[0] = 1;
    for (int i = 0; i < len; i++) {
        unsigned char d = s[i];
        for (int j = 1; j <= L; j++) d ^= c[j] & s[i - j];
        if (!d) {
            m++;
            continue;
        }
        int grow = 2 * L <= i;
        if (grow) memcpy(t, c, (size_t)len + 1);
        for (int j = 0; j + m <= len; j++) c[j + m] ^= b[j];
        if (grow) {
            L = i + 1 - L;
            memcpy(b, t, (size_t)len + 1);
            m = 1;
        } else {
            m++;
        }
    }
    free(c), free(b), free(t);
    return L;
}

/* Linear complexity of single output bits over N = 4096 draws, 8 to 16 times the state bits n of
 * every k = 8 table: the words themselves satisfy the characteristic recurrence, so each bit has
 * complexity exactly n; the scrambled numbers must look like a random sequence's, N/2 give or take
 * (a deviation of d has probability about 4^-d; 16 is allowed). */
Test(rng_host, scrambled_output_has_no_short_recurrence) {
    enum { N = 4096 };
    static const int probes[3][2] = {{0, 0}, {0, 31}, {5, 13}}; /* (word, bit) */
    static uint32_t out[N * 8];
    unsigned char *bits = malloc(N);
    for (size_t t = 0; t < NTABLES; t++) {
        if (tables[t].k != 8) continue;
        for (int x = 0; x < 2; x++) {
            clperm_rng_spec spec = {(clperm_rng_family)tables[t].family, 8, (clperm_rng_scramble)x};
            uint32_t state[16], n = clperm_rng_state_bits(&spec);
            cr_assert_eq(clperm_rng_seed_host(&spec, test_seed(), 9, state), CLPERM_SUCCESS);
            cr_assert_eq(clperm_rng_draw_host(&spec, state, out, N), CLPERM_SUCCESS);
            for (int p = 0; p < 3; p++) {
                for (int i = 0; i < N; i++) bits[i] = out[i * 8 + probes[p][0]] >> probes[p][1] & 1;
                int L = linear_complexity(bits, N);
                if (x == CLPERM_RNG_SCRAMBLE_NONE)
                    cr_assert_eq(L, (int)n, "family %d word %d bit %d: complexity %d, not n = %u", spec.family,
                                 probes[p][0], probes[p][1], L, n);
                else
                    cr_assert(abs(L - N / 2) <= 16, "family %d scrambled, word %d bit %d: complexity %d of %d bits",
                              spec.family, probes[p][0], probes[p][1], L, N);
            }
        }
    }
    free(bits);
}

/* The longest run of low bits that word j of a draw copies, in every draw of out (draws of k words),
 * from a rotation of one word of the draw before: the trailing zeros common to every draw's
 * word j xor that rotation, the most over the words and rotations tried. */
static int copied_low_bits(const uint32_t *out, uint32_t k, int draws, uint32_t j) {
    int best = 0;
    for (uint32_t i = 0; i < k; i++)
        for (int z = 0; z < 32; z++) {
            int common = 32;
            for (int t = 0; t + 1 < draws && common > best; t++) {
                uint32_t w = out[t * k + i], x = out[(t + 1) * k + j] ^ (z ? w >> z | w << (32 - z) : w);
                int tz = x ? __builtin_ctz(x) : 32;
                if (tz < common) common = tz;
            }
            if (common > best) best = common;
        }
    return best;
}

/* Listing 2's verbatim copy: the low bits of each new word are bits of a word of the draw before
 * (rotated). dieharder's sts_serial fails every table tried whose words copy 2 bits or more (at
 * 5000 samples where they copy 2, at its default 100 from 5) and passes those copying 1
 * (docs/rng-quality.md); every shipped table must copy at most 1. */
Test(rng_host, words_copy_few_bits_of_the_draw_before) {
    enum { DRAWS = 40, BOUND = 1 };
    static uint32_t out[DRAWS * 64];
    for (size_t t = 0; t < NTABLES; t++) {
        clperm_rng_spec spec = {(clperm_rng_family)tables[t].family, tables[t].k, CLPERM_RNG_SCRAMBLE_NONE};
        uint32_t state[128];
        cr_assert_eq(clperm_rng_seed_host(&spec, test_seed(), 3, state), CLPERM_SUCCESS);
        cr_assert_eq(clperm_rng_draw_host(&spec, state, out, DRAWS), CLPERM_SUCCESS);
        for (uint32_t j = 0; j < spec.k; j++) {
            int c = copied_low_bits(out, spec.k, DRAWS, j);
            cr_assert(c <= BOUND, "family %d k %u: word %u copies %d low bits of the draw before", tables[t].family,
                      tables[t].k, j, c);
        }
    }
}

/* Independent numbers for neighbouring streams and for streams apart in their high bits: no block
 * of one stream's fill equals a block of another's (in 0.1.0 block 1 of stream 0 was block 0 of
 * stream 1), streams s and s + 2^56 (and s + 2^63) differ, and a stream's blocks differ from one
 * another. Checked on the first draw of every block of fills of 8 blocks, with the default
 * generator and a k = 8 table. */
Test(rng_host, streams_and_blocks_never_repeat) {
    enum { BLOCKS = 8, K_MAX = 64 };
    const clperm_rng_spec specs[] = {{CLPERM_RNG_FAMILY_THREE, 32, CLPERM_RNG_SCRAMBLE_STARSTAR},
                                     {(clperm_rng_family)tables[0].family, tables[0].k, CLPERM_RNG_SCRAMBLE_NONE}};
    const uint64_t base = test_seed() & 0xffff;
    const uint64_t streams[] = {base,
                                base + 1,
                                base + 2,
                                base + (UINT64_C(1) << 56),
                                base + 1 + (UINT64_C(1) << 56),
                                base + (UINT64_C(1) << 63),
                                base ^ (UINT64_C(1) << 32)};
    enum { NSTREAMS = sizeof streams / sizeof streams[0] };
    for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++) {
        const clperm_rng_spec *spec = &specs[sp];
        uint64_t per_block = (uint64_t)spec->k * CLPERM_RNG_FILL_STEPS, n = per_block * BLOCKS;
        uint32_t *fills = malloc(NSTREAMS * n * 4);
        cr_assert(fills);
        for (size_t s = 0; s < NSTREAMS; s++)
            cr_assert_eq(clperm_rng_fill_host(spec, CLPERM_RNG_OUT_U32, fills + s * n, n, 7, streams[s]),
                         CLPERM_SUCCESS);
        /* the first draw (k words) of block g of stream s: fills + s * n + g * per_block */
        for (size_t a = 0; a < NSTREAMS * BLOCKS; a++)
            for (size_t b = a + 1; b < NSTREAMS * BLOCKS; b++) {
                const uint32_t *x = fills + a / BLOCKS * n + a % BLOCKS * per_block;
                const uint32_t *y = fills + b / BLOCKS * n + b % BLOCKS * per_block;
                cr_assert(memcmp(x, y, spec->k * 4) != 0,
                          "family %d k %u: block %zu of stream %#llx draws what block %zu of stream %#llx draws",
                          spec->family, spec->k, a % BLOCKS, (unsigned long long)streams[a / BLOCKS], b % BLOCKS,
                          (unsigned long long)streams[b / BLOCKS]);
            }
        /* The seeded state of a stream is block 0 of its fill's generators. */
        uint32_t state[2 * K_MAX], first[K_MAX];
        cr_assert_eq(clperm_rng_seed_host(spec, 7, streams[1], state), CLPERM_SUCCESS);
        cr_assert_eq(clperm_rng_draw_host(spec, state, first, 1), CLPERM_SUCCESS);
        cr_assert_eq(memcmp(first, fills + n, spec->k * 4), 0, "the seeded state is not block 0 of the fill");
        free(fills);
    }
}

/* Jump-ahead: 2^j draws at once equals 2^j single draws; A^(2^n) = A, which holds only when the
 * polynomial found is the primitive characteristic one; and the spaced states chain. */
Test(rng_host, jump_ahead) {
    for (size_t t = 0; t < NTABLES; t++) {
        clperm_rng_spec spec = {(clperm_rng_family)tables[t].family, tables[t].k, CLPERM_RNG_SCRAMBLE_NONE};
        if (test_quick() && spec.k > 8) continue; /* the matrix powers grow as the state cubed */
        uint32_t n = clperm_rng_state_bits(&spec), sw = n / 32;
        uint32_t seeded[128], a[128], b[128], chain[3 * 128];
        cr_assert_eq(clperm_rng_seed_host(&spec, 77, 3, seeded), CLPERM_SUCCESS);
        uint32_t jmax = spec.k <= 16 ? 10 : 6;
        for (uint32_t j = 0; j <= jmax; j += 2) {
            memcpy(a, seeded, sw * 4);
            memcpy(b, seeded, sw * 4);
            cr_assert_eq(clperm_rng_jump_host(&spec, a, j), CLPERM_SUCCESS);
            cr_assert_eq(clperm_rng_draw_host(&spec, b, NULL, (uint64_t)1 << j), CLPERM_SUCCESS);
            cr_assert_eq(memcmp(a, b, sw * 4), 0, "family %d k %u: jump by 2^%u", spec.family, spec.k, j);
        }
        memcpy(a, seeded, sw * 4); /* A^(2^(n-1)) twice */
        cr_assert_eq(clperm_rng_jump_host(&spec, a, n - 1), CLPERM_SUCCESS);
        cr_assert_eq(clperm_rng_jump_host(&spec, a, n - 1), CLPERM_SUCCESS);
        memcpy(b, seeded, sw * 4);
        clperm_rng_draw_host(&spec, b, NULL, 1);
        cr_assert_eq(memcmp(a, b, sw * 4), 0, "family %d k %u: A^(2^n) != A", spec.family, spec.k);
        cr_assert_eq(clperm_rng_states_host(&spec, 77, 3, 4, 3, chain), CLPERM_SUCCESS);
        memcpy(b, seeded, sw * 4);
        clperm_rng_draw_host(&spec, b, NULL, 32);
        cr_assert_eq(memcmp(chain, seeded, sw * 4), 0);
        cr_assert_eq(memcmp(chain + 2 * sw, b, sw * 4), 0, "family %d k %u: states 2 * 2^4 apart", spec.family, spec.k);
        memcpy(a, seeded, sw * 4);
        clperm_rng_jump_host(&spec, a, 300);
        clperm_rng_jump_host(&spec, a, 300);
        memcpy(b, seeded, sw * 4);
        clperm_rng_jump_host(&spec, b, 301);
        cr_assert_eq(memcmp(a, b, sw * 4), 0, "family %d k %u: 2^300 twice", spec.family, spec.k);
    }
    clperm_rng_spec bad = {CLPERM_RNG_FAMILY_THREE, 12, CLPERM_RNG_SCRAMBLE_NONE},
                    good = {CLPERM_RNG_FAMILY_THREE, 8, CLPERM_RNG_SCRAMBLE_NONE};
    uint32_t s[8] = {1};
    cr_assert_eq(clperm_rng_jump_host(&bad, s, 3), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(clperm_rng_jump_host(&good, NULL, 3), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(clperm_rng_states_host(&good, 1, 0, 3, 2, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(clperm_rng_seed_host(NULL, 1, 0, s), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(clperm_rng_draw_host(&bad, s, NULL, 1), CLPERM_ERROR_INVALID_ARGUMENT);
}

/* The fills: each (kernel kind, table, scrambler, output type) is a program of its own, built in
 * about 2 s on PoCL (and each fill runs for seconds under Oclgrind), so by default these tests
 * cover the combinations pairwise, not the full product (20 tables x 2 kinds x 2 scramblers x 4
 * outputs = 320 programs, with CLPERM_TEST_FULL=1):
 *   fills_every_table   every table with each kernel kind, unscrambled, u32, at every size (the
 *                       recurrence, seeding and layout of each table in each kernel); every table
 *                       scrambled, u32, on the device's own kernel kind;
 *   fills_every_output  every output type with each kernel kind, unscrambled and scrambled, on
 *                       the device's default table and on one of another family and k (a
 *                       different one per output type).
 * The scrambler and the conversions act on each drawn word after the draws, in code that does not
 * depend on the table; what does (the recurrence, k, the state) is drawn at every table. */

/* Sizes for a generator of k words, whose blocks hold b = k * CLPERM_RNG_FILL_STEPS items: 1, 2,
 * k - 1, k, k + 1, primes, 2^j + 1, a block and one item either side, and past one tile (the
 * eight blocks of a work-item of the serial kernel; 256 / k blocks fill a work-group of 256 of
 * the other kernel). With every = 0, a few of them, for the outputs and the scrambler. A
 * simulator gets a few of each for the serial kernel, and one, 2049 (a block and one item at
 * k = 8, part of one at 16), for the work-group kernel, whose fills draw their blocks whole and
 * cost seconds there whatever n. Returns the count; duplicates are left out. */
static size_t fill_sizes(uint32_t k, int kind, int every, uint64_t n[16]) {
#ifdef CLPERM_TEST_SMALL
    (void)k;
    const uint64_t all[] = {1, 9, 33, 2049}, few[] = {9, 2049}, one[] = {2049};
#else
    (void)kind;
    uint64_t b = (uint64_t)k * CLPERM_RNG_FILL_STEPS, tile = (8 * b > 65536 ? 8 * b : 65536) + 1;
    const uint64_t all[] = {1, 2, k - 1, k, k + 1, 97, 2049, b - 1, b, b + 1, 8191, 16385, tile, 40009},
                   few[] = {1, k + 1, 97, b + 1, tile};
#endif
    const uint64_t *list = every ? all : few;
    size_t len = every ? sizeof all / sizeof all[0] : sizeof few / sizeof few[0], count = 0;
#ifdef CLPERM_TEST_SMALL
    if (kind == CLPERM_KERNEL_WORK_GROUP && !test_full()) list = one, len = 1;
#endif
    for (size_t i = 0; i < len; i++) {
        size_t j = 0;
        while (j < count && n[j] != list[i]) j++;
        if (j == count) n[count++] = list[i];
    }
    return count;
}

/* Fills of spec's generator, output type out, by kernel kind (0: the device's choice) at the sizes
 * of fill_sizes equal the host's bit for bit, and write nothing past n. */
static void check_fills(clperm_ctx *ctx, int kind, const clperm_rng_spec *spec, clperm_rng_output out, int every) {
    const test_param set = {CLPERM_PARAM_RNG_KERNEL, kind};
    if (!test_apply_params(ctx, &set, 1)) return; /* a kernel kind the device cannot run */
    cr_assert_eq(clperm_ctx_get_param(ctx, CLPERM_PARAM_RNG_KERNEL, &kind), CLPERM_SUCCESS);
    size_t es = out == CLPERM_RNG_OUT_U32 || out == CLPERM_RNG_OUT_FLOAT ? 4 : 8;
    uint64_t sizes[16];
    size_t count = fill_sizes(spec->k, kind, every, sizes);
    for (size_t z = 0; z < count; z++) {
        uint64_t n = sizes[z], seed = test_seed() + z;
        void *want = malloc(n * es), *got = malloc(n * es + 8);
        cr_assert(want && got);
        cr_assert_eq(clperm_rng_fill_host(spec, out, want, n, seed, 11), CLPERM_SUCCESS);
        memset(got, 0xA5, n * es + 8);
        cl_mem d = test_buffer(ctx, n * es + 8, got);
        cr_assert_not_null(d);
        cr_assert_eq(clperm_rng_fill(ctx, spec, out, d, n, seed, 11, 0, NULL, NULL), CLPERM_SUCCESS);
        cr_assert_eq(test_read(ctx, d, n * es + 8, got), 0);
        uint64_t diff = test_first_diff(want, got, n, es);
        cr_assert_eq(diff, n,
                     "%s: %s kernel, family %d k %u scrambler %d output %d n %llu seed %#llx: item %llu differs",
                     test_device_label(ctx), clperm_kernel_kind_name((clperm_kernel_kind)kind), spec->family, spec->k,
                     spec->scramble, out, (unsigned long long)n, (unsigned long long)seed, (unsigned long long)diff);
        for (size_t b = 0; b < 8; b++)
            cr_assert_eq(((unsigned char *)got)[n * es + b], 0xA5, "wrote past n = %llu", (unsigned long long)n);
        clReleaseMemObject(d);
        free(want);
        free(got);
    }
}

static const table *find_table(int family, uint32_t k) {
    for (size_t t = 0; t < NTABLES; t++)
        if (tables[t].family == family && tables[t].k == k) return &tables[t];
    return NULL;
}

/* The device's default generator (clperm_rng_default), at most SMALL_K words. */
static clperm_rng_spec default_spec(clperm_ctx *ctx) {
    clperm_rng_spec def;
    cr_assert_eq(clperm_rng_default(ctx, &def), CLPERM_SUCCESS);
    if (def.k > SMALL_K) def.k = SMALL_K;
    cr_assert_not_null(find_table(def.family, def.k), "no table for family %d k %u", def.family, def.k);
    return def;
}

/* The k of the tables (at most SMALL_K, other than skip), ascending. Returns their count. */
static size_t table_ks(uint32_t skip, uint32_t ks[NTABLES]) {
    size_t nk = 0;
    for (size_t t = 0; t < NTABLES; t++) {
        uint32_t k = tables[t].k;
        size_t j = 0;
        while (j < nk && ks[j] < k) j++;
        if (k > SMALL_K || k == skip || (j < nk && ks[j] == k)) continue;
        memmove(ks + j + 1, ks + j, (nk - j) * sizeof ks[0]);
        ks[j] = k;
        nk++;
    }
    return nk;
}

/* The i-th other table for the default d: a family other than d's at a k other than d's (at most
 * SMALL_K), the families and the k each taken in turn as i grows. */
static const table *other_table(const clperm_rng_spec *d, size_t i) {
    int families[NTABLES];
    uint32_t ks[NTABLES];
    size_t nf = 0, nk = table_ks(d->k, ks);
    for (size_t t = 0; t < NTABLES; t++) {
        size_t j = 0;
        while (j < nf && families[j] != tables[t].family) j++;
        if (j == nf && tables[t].family != (int)d->family) families[nf++] = tables[t].family;
    }
    cr_assert(nf && nk, "no table of another family and k than the default's");
    const table *t = find_table(families[i % nf], ks[i % nk]);
    cr_assert_not_null(t, "no table for family %d k %u", families[i % nf], ks[i % nk]);
    return t;
}

/* Every table with each kernel kind, unscrambled, at every size; scrambled on the device's own kind
 * at a few (CLPERM_TEST_FULL: both kinds, every size). */
Test(rng, fills_every_table) {
    int full = test_full();
    TEST_EACH_DEVICE(ctx) {
        int own;
        cr_assert_eq(clperm_ctx_get_param(ctx, CLPERM_PARAM_RNG_KERNEL, &own), CLPERM_SUCCESS);
        for (size_t t = 0; t < NTABLES; t++) {
            if (tables[t].k > SMALL_K) continue;
            for (int x = CLPERM_RNG_SCRAMBLE_NONE; x <= CLPERM_RNG_SCRAMBLE_STARSTAR; x++)
                for (int kind = CLPERM_KERNEL_WORK_GROUP; kind <= CLPERM_KERNEL_SERIAL; kind++) {
                    if (x && !full && kind != own) continue;
                    clperm_rng_spec spec = {(clperm_rng_family)tables[t].family, tables[t].k, (clperm_rng_scramble)x};
                    check_fills(ctx, kind, &spec, CLPERM_RNG_OUT_U32, full || !x);
                }
        }
    }
}

/* Every output type with each kernel kind and scrambler, at a few sizes, on the default table and
 * another (CLPERM_TEST_FULL: every table, every size). u32 unscrambled, and in the full product u32
 * altogether, is fills_every_table's. */
Test(rng, fills_every_output) {
    int full = test_full();
    TEST_EACH_DEVICE(ctx) {
        clperm_rng_spec def = default_spec(ctx);
        for (int out = CLPERM_RNG_OUT_U32; out <= CLPERM_RNG_OUT_DOUBLE; out++) {
            const table *other = other_table(&def, (size_t)(out - CLPERM_RNG_OUT_U32));
            for (size_t t = 0; t < NTABLES; t++) {
                const table *tab = &tables[t];
                int is_default = tab->family == (int)def.family && tab->k == def.k;
                if (tab->k > SMALL_K || (!full && !is_default && tab != other)) continue;
                for (int x = CLPERM_RNG_SCRAMBLE_NONE; x <= CLPERM_RNG_SCRAMBLE_STARSTAR; x++) {
                    if (out == CLPERM_RNG_OUT_U32 && (!x || full)) continue;
                    for (int kind = CLPERM_KERNEL_WORK_GROUP; kind <= CLPERM_KERNEL_SERIAL; kind++) {
                        clperm_rng_spec spec = {(clperm_rng_family)tab->family, tab->k, (clperm_rng_scramble)x};
                        check_fills(ctx, kind, &spec, (clperm_rng_output)out, full);
                    }
                }
            }
        }
    }
}

/* A kernel of the user's own: four draws per work-item of every kind, through the device API. */
static const char *user_kernel =
    "__kernel void user_draws(__global uint *out, ulong seed) {\n"
    "    __local uint words[64];\n"
    "    clperm_rng r;\n"
    "    clperm_rng_init(&r, words, seed, get_global_id(0) / CLPERM_RNG_K);\n"
    "    uint a = clperm_rng_u32(&r);\n"
    "    ulong b = clperm_rng_u64(&r);\n"
    "    float c = clperm_rng_float(&r);\n"
    "    size_t g = get_global_id(0);\n"
    "    out[4 * g] = a; out[4 * g + 1] = (uint)(b >> 32); out[4 * g + 2] = (uint)b; out[4 * g + 3] = as_uint(c);\n"
    "}\n"
    "__kernel void user_resume(__global uint *out, __global uint *states) {\n"
    "    __local uint words[64];\n"
    "    clperm_rng r;\n"
    "    __global uint *st = states + get_global_id(0) / CLPERM_RNG_K * (CLPERM_RNG_STATE_BITS(CLPERM_RNG_FAMILY, CLPERM_RNG_K) / 32);\n"
    "    clperm_rng_load(&r, words, st);\n"
    "    out[2 * get_global_id(0)] = clperm_rng_u32(&r);\n"
    "    out[2 * get_global_id(0) + 1] = clperm_rng_u32(&r);\n"
    "    clperm_rng_save(&r, st);\n"
    "}\n";

/* A users' kernel built for spec with clperm_rng_build_options draws the host's streams: u32, u64
 * and float through the device API, and resumed from states the host spaced apart, whose saved
 * states equal the host's. */
static void check_users_kernel(clperm_ctx *ctx, const clperm_rng_spec *spec) {
    char opts[256];
    cr_assert_eq(clperm_rng_build_options(ctx, spec, opts, sizeof opts), CLPERM_SUCCESS);
    size_t len;
    const char *src[2] = {clperm_rng_device_source(&len), user_kernel};
    size_t lens[2] = {len, strlen(user_kernel)};
    cl_int err;
    cl_context cctx = clperm_ctx_cl_context(ctx);
    cl_program prog = clCreateProgramWithSource(cctx, 2, src, lens, &err);
    cr_assert_eq(err, CL_SUCCESS);
    cl_device_id device = clperm_ctx_cl_device(ctx);
    err = clBuildProgram(prog, 1, &device, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        cr_assert_fail("build %s: %s", opts, log);
    }
    cl_kernel kern = clCreateKernel(prog, "user_draws", &err);
    cr_assert_eq(err, CL_SUCCESS);
    size_t local = 64, global = 128;
    cl_mem d = test_buffer(ctx, global * 16, NULL);
    cl_ulong seed = 4242;
    clSetKernelArg(kern, 0, sizeof d, &d);
    clSetKernelArg(kern, 1, sizeof seed, &seed);
    cr_assert_eq(clEnqueueNDRangeKernel(clperm_ctx_cl_queue(ctx), kern, 1, NULL, &global, &local, 0, NULL, NULL),
                 CL_SUCCESS);
    uint32_t got[128 * 4];
    cr_assert_eq(test_read(ctx, d, sizeof got, got), 0);
    /* The host: stream g draws 4 times; a u64 is two draws, a float one. */
    for (uint32_t g = 0; g < global / spec->k; g++) {
        uint32_t want[4 * 64];
        cr_assert_eq(clperm_rng_fill_host(spec, CLPERM_RNG_OUT_U32, want, 4 * (uint64_t)spec->k, seed, g),
                     CLPERM_SUCCESS);
        for (uint32_t j = 0; j < spec->k; j++) {
            uint32_t *o = &got[4 * (g * spec->k + j)];
            cr_assert_eq(o[0], want[j], "%s family %d k %u scrambler %d: u32", test_device_label(ctx),
                         spec->family, spec->k, spec->scramble);
            cr_assert_eq(o[1], want[spec->k + j]);
            cr_assert_eq(o[2], want[2 * spec->k + j]);
            cr_assert_eq(o[3], clperm_rng_float_bits(want[3 * spec->k + j]), "float");
        }
    }
    /* Resuming: load states spaced 2^20 draws apart, draw twice, save. */
    uint32_t sw = clperm_rng_state_bits(spec) / 32, states[2 * 128], moved[2 * 128];
    uint64_t gens = global / spec->k;
    cr_assert_eq(clperm_rng_states_host(spec, seed, 5, 20, gens, states), CLPERM_SUCCESS);
    cl_mem ds = test_buffer(ctx, gens * sw * 4, states);
    cl_kernel resume = clCreateKernel(prog, "user_resume", &err);
    cr_assert_eq(err, CL_SUCCESS);
    clSetKernelArg(resume, 0, sizeof d, &d);
    clSetKernelArg(resume, 1, sizeof ds, &ds);
    cr_assert_eq(clEnqueueNDRangeKernel(clperm_ctx_cl_queue(ctx), resume, 1, NULL, &global, &local, 0, NULL,
                                        NULL),
                 CL_SUCCESS);
    cr_assert_eq(test_read(ctx, d, global * 8, got), 0);
    cr_assert_eq(test_read(ctx, ds, gens * sw * 4, moved), 0);
    for (uint32_t g = 0; g < gens; g++) {
        uint32_t want[2 * 64];
        cr_assert_eq(clperm_rng_draw_host(spec, states + g * sw, want, 2), CLPERM_SUCCESS);
        for (uint32_t j = 0; j < spec->k; j++) {
            cr_assert_eq(got[2 * (g * spec->k + j)], want[j], "%s family %d k %u scrambler %d: resumed draw",
                         test_device_label(ctx), spec->family, spec->k, spec->scramble);
            cr_assert_eq(got[2 * (g * spec->k + j) + 1], want[spec->k + j]);
        }
    }
    cr_assert_eq(memcmp(moved, states, gens * sw * 4), 0, "saved state differs from the host's");
    clReleaseMemObject(ds);
    clReleaseKernel(resume);
    clReleaseMemObject(d);
    clReleaseKernel(kern);
    clReleaseProgram(prog);
}

/* Every family unscrambled and scrambled, each at a k of its own (family i unscrambled at the i-th
 * k from the largest, scrambled at the next), so that every k runs both ways and the buffered
 * family's 2k-word state at the largest k is saved and loaded; and the device's default generator
 * (CLPERM_TEST_FULL: every table both ways). The recurrence of every table runs through the same
 * device API in fills_every_table's work-group kernel. */
Test(rng, users_kernel_draws_the_host_streams) {
    int full = test_full();
    TEST_EACH_DEVICE(ctx) {
        clperm_rng_spec def = default_spec(ctx);
        check_users_kernel(ctx, &def);
        uint32_t ks[NTABLES];
        size_t nk = table_ks(0, ks);
        for (size_t t = 0; t < NTABLES; t++) {
            if (tables[t].k > SMALL_K) continue;
            size_t i = (size_t)tables[t].family - 1, at = 0;
            while (ks[at] != tables[t].k) at++;
            for (int x = CLPERM_RNG_SCRAMBLE_NONE; x <= CLPERM_RNG_SCRAMBLE_STARSTAR; x++) {
                clperm_rng_spec spec = {(clperm_rng_family)tables[t].family, tables[t].k, (clperm_rng_scramble)x};
                if (spec.family == def.family && spec.k == def.k && spec.scramble == def.scramble) continue;
                if (full || at == nk - 1 - (i + (size_t)x) % nk) check_users_kernel(ctx, &spec);
            }
        }
    }
}

Test(rng, bad_input_writes_nothing) {
    TEST_EACH_DEVICE(ctx) {
        uint32_t init[64];
        for (int i = 0; i < 64; i++) init[i] = 0xC0FFEE00u + (uint32_t)i;
        cl_mem d = test_buffer(ctx, sizeof init, init);
        clperm_rng_spec good = {CLPERM_RNG_FAMILY_THREE, 8, CLPERM_RNG_SCRAMBLE_NONE},
                        badk = {CLPERM_RNG_FAMILY_THREE, 12, CLPERM_RNG_SCRAMBLE_NONE},
                        badf = {(clperm_rng_family)9, 8, CLPERM_RNG_SCRAMBLE_NONE},
                        badx = {CLPERM_RNG_FAMILY_THREE, 8, (clperm_rng_scramble)2};
        uint32_t state[8];
        struct {
            clperm_status want, got;
        } c[] = {
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_rng_fill(ctx, &badk, CLPERM_RNG_OUT_U32, d, 64, 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_rng_fill(ctx, &badf, CLPERM_RNG_OUT_U32, d, 64, 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_TYPE, clperm_rng_fill(ctx, &good, (clperm_rng_output)0, d, 64, 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_TYPE, clperm_rng_fill(ctx, &good, (clperm_rng_output)5, d, 64, 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_rng_fill(ctx, &good, CLPERM_RNG_OUT_U32, d, 65, 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_rng_fill(ctx, &good, CLPERM_RNG_OUT_U64, d, 33, 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_BUFFER, clperm_rng_fill(ctx, &good, CLPERM_RNG_OUT_U32, NULL, 64, 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_EVENT_LIST, clperm_rng_fill(ctx, &good, CLPERM_RNG_OUT_U32, d, 64, 1, 0, 1, NULL, NULL)},
            {CLPERM_ERROR_INVALID_CONTEXT, clperm_rng_fill(NULL, &good, CLPERM_RNG_OUT_U32, d, 64, 1, 0, 0, NULL, NULL)},
            {CLPERM_SUCCESS, clperm_rng_fill(ctx, &good, CLPERM_RNG_OUT_U32, d, 0, 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_rng_fill_host(NULL, CLPERM_RNG_OUT_U32, init, 4, 1, 0)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_rng_fill_host(&good, CLPERM_RNG_OUT_U32, NULL, 4, 1, 0)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_rng_build_options(ctx, &badk, (char[8]){0}, 8)},
            {CLPERM_ERROR_INVALID_ARGUMENT,
             clperm_rng_fill(ctx, &badx, CLPERM_RNG_OUT_U32, d, 64, 1, 0, 0, NULL, NULL)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_rng_fill_host(&badx, CLPERM_RNG_OUT_U32, init, 4, 1, 0)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_rng_build_options(ctx, &badx, (char[256]){0}, 256)},
            {CLPERM_ERROR_INVALID_ARGUMENT, clperm_rng_seed_host(&badx, 1, 0, state)},
            {CLPERM_ERROR_BUFFER_TOO_SMALL, clperm_rng_build_options(ctx, &good, (char[8]){0}, 8)},
        };
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
            cr_assert_eq(c[i].got, c[i].want, "case %zu: %s, want %s", i, clperm_status_name(c[i].got),
                         clperm_status_name(c[i].want));
        uint32_t got[64];
        cr_assert_eq(test_read(ctx, d, sizeof got, got), 0);
        cr_assert_eq(memcmp(got, init, sizeof got), 0, "a failed call wrote to the buffer");
        cr_assert_eq(clperm_rng_state_bits(&badx), 0u);
        clperm_rng_spec def;
        cr_assert_eq(clperm_rng_default(ctx, &def), CLPERM_SUCCESS);
        cr_assert(clperm_rng_state_bits(&def) >= 256, "default family %d k %u", def.family, def.k);
        cr_assert_eq(def.scramble, CLPERM_RNG_DEFAULT_SCRAMBLE);
        clReleaseMemObject(d);
    }
}
