/* The generators on the host: the tables, and the fill every device is compared with. */
#include <stdlib.h>
#include <string.h>

#include "clperm_rng.h"
#include "internal.h"

#define CLPERM_RNG_X(fam, k, tab) static const uint64_t table_##fam##_##k[k] = {tab};
CLPERM_RNG_TABLES(CLPERM_RNG_X)
#undef CLPERM_RNG_X

const uint64_t *clperm__rng_table(int family, uint32_t k) {
#define CLPERM_RNG_X(fam, kk, tab)                                                                 \
    if (family == (fam) && k == (kk)) return table_##fam##_##kk;
    CLPERM_RNG_TABLES(CLPERM_RNG_X)
#undef CLPERM_RNG_X
    return NULL;
}

const uint64_t *clperm__rng_spec_table(const clperm_rng_spec *spec) {
    if (!spec || (spec->scramble != CLPERM_RNG_SCRAMBLE_NONE && spec->scramble != CLPERM_RNG_SCRAMBLE_STARSTAR))
        return NULL;
    return clperm__rng_table((int)spec->family, spec->k);
}

uint32_t clperm_rng_state_bits(const clperm_rng_spec *spec) {
    if (!clperm__rng_spec_table(spec)) return 0;
    return (uint32_t)CLPERM_RNG_STATE_BITS((int)spec->family, spec->k);
}

static size_t output_size(clperm_rng_output output) {
    switch (output) {
    case CLPERM_RNG_OUT_U32:
    case CLPERM_RNG_OUT_FLOAT: return 4;
    case CLPERM_RNG_OUT_U64:
    case CLPERM_RNG_OUT_DOUBLE: return 8;
    default: return 0;
    }
}

/* One draw of every word: the new state in s (b: the buffered family's registers). */
static void draw(int family, const uint64_t *p, uint32_t k, uint32_t *s, uint32_t *b) {
    uint32_t nx[CLPERM_RNG_MAX_K];
    for (int pass = 0; pass < CLPERM_RNG_PASSES(family); pass++) {
        for (uint32_t j = 0; j < k; j++) nx[j] = clperm_rng_word(family, p[j], pass, s, &b[j]);
        memcpy(s, nx, (size_t)k * 4);
    }
}

/* ---- states, draws and jump-ahead ---- */

/* Words of a state: the k words, then the buffered family's k registers. */
static uint32_t state_words(const clperm_rng_spec *spec) { return CLPERM_RNG_STATE_BITS((int)spec->family, spec->k) / 32; }

/* One draw of a whole state. */
static void advance(const clperm_rng_spec *spec, const uint64_t *p, uint32_t *state) {
    uint32_t scratch[CLPERM_RNG_MAX_K];
    int buffered = spec->family == CLPERM_RNG_FAMILY_BUFFERED;
    draw((int)spec->family, p, spec->k, state, buffered ? state + spec->k : scratch);
}

/* The initial state of generator `key` (clperm_rng_key). */
static void seed_key(const clperm_rng_spec *spec, uint64_t key, uint32_t *state) {
    uint32_t b[CLPERM_RNG_MAX_K], k = spec->k;
    for (uint32_t j = 0; j < k; j++) state[j] = clperm_rng_key_word(key, j, &b[j]);
    if (spec->family == CLPERM_RNG_FAMILY_BUFFERED) memcpy(state + k, b, (size_t)k * 4);
}

clperm_status clperm_rng_seed_host(const clperm_rng_spec *spec, uint64_t seed, uint64_t stream, uint32_t *state) {
    CLPERM_RETURN_IF(!clperm__rng_spec_table(spec) || !state, CLPERM_ERROR_INVALID_ARGUMENT);
    seed_key(spec, clperm_rng_key(seed, stream, 0), state);
    return CLPERM_SUCCESS;
}

clperm_status clperm_rng_draw_host(const clperm_rng_spec *spec, uint32_t *state, uint32_t *out, uint64_t draws) {
    CLPERM_RETURN_IF(!spec || !state, CLPERM_ERROR_INVALID_ARGUMENT);
    const uint64_t *p = clperm__rng_spec_table(spec);
    CLPERM_RETURN_IF(!p, CLPERM_ERROR_INVALID_ARGUMENT);
    for (uint64_t t = 0; t < draws; t++) {
        advance(spec, p, state);
        for (uint32_t j = 0; out && j < spec->k; j++)
            out[t * spec->k + j] = clperm_rng_scrambled((int)spec->scramble, state[j]);
    }
    return CLPERM_SUCCESS;
}

/* Polynomials over GF(2): bit i of a uint64_t array is the coefficient of x^i. */
#define POLY_BIT(a, i) ((a)[(i) / 64] >> ((i) % 64) & 1)

static void poly_xor_shifted(uint64_t *dst, const uint64_t *src, size_t words, size_t shift) {
    size_t ws = shift / 64, bs = shift % 64;
    for (size_t w = 0; w < words; w++) {
        dst[w + ws] ^= src[w] << bs;
        if (bs) dst[w + ws + 1] ^= src[w] >> (64 - bs);
    }
}

/* The characteristic polynomial of the generator's transition matrix (degree n, words n/64 + 1):
 * the minimal polynomial of one output bit, by Berlekamp-Massey over 2n draws. The tables are
 * full period, so that polynomial is primitive of degree n and equals the characteristic one. */
static clperm_status char_poly(const clperm_rng_spec *spec, const uint64_t *p, uint64_t *poly) {
    uint32_t n = CLPERM_RNG_STATE_BITS((int)spec->family, spec->k), len = 2 * n;
    uint32_t state[2 * CLPERM_RNG_MAX_K];
    uint8_t *bits = malloc(len), *c = calloc(n + 1, 1), *b = calloc(n + 1, 1), *t = malloc(n + 1);
    clperm_status st = bits && c && b && t ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    if (st == CLPERM_SUCCESS) {
        clperm_rng_seed_host(spec, 0, 0, state);
        for (uint32_t i = 0; i < len; i++) {
            advance(spec, p, state);
            bits[i] = state[0] & 1;
        }
        /* c: connection polynomial, s_N = sum_{i=1..L} c_i s_{N-i}; b: the last c before L grew. */
        uint32_t L = 0, m = 1;
        c[0] = b[0] = 1;
        for (uint32_t N = 0; N < len; N++) {
            uint8_t d = bits[N];
            for (uint32_t i = 1; i <= L; i++) d ^= c[i] & bits[N - i];
            if (!d) {
                m++;
                continue;
            }
            int grow = 2 * L <= N;
            if (grow) memcpy(t, c, n + 1);
            for (uint32_t i = 0; i + m <= n; i++) c[i + m] ^= b[i];
            if (grow) {
                L = N + 1 - L;
                memcpy(b, t, n + 1);
                m = 1;
            } else {
                m++;
            }
        }
        if (L != n) st = CLPERM_ERROR_INVALID_ARGUMENT; /* not a full-period table */
        memset(poly, 0, (n / 64 + 1) * 8);
        for (uint32_t i = 0; i <= n && st == CLPERM_SUCCESS; i++) /* P(x) = x^n c(1/x) */
            if (c[n - i]) poly[i / 64] |= (uint64_t)1 << (i % 64);
    }
    free(bits), free(c), free(b), free(t);
    return st;
}

static uint64_t spread32(uint64_t x) { /* bit i to bit 2i */
    x = (x | x << 16) & 0x0000FFFF0000FFFFull;
    x = (x | x << 8) & 0x00FF00FF00FF00FFull;
    x = (x | x << 4) & 0x0F0F0F0F0F0F0F0Full;
    x = (x | x << 2) & 0x3333333333333333ull;
    return (x | x << 1) & 0x5555555555555555ull;
}

/* r = r^2 mod poly (degree n); r has n / 64 + 1 words, tmp twice that plus one. */
static void poly_sqr_mod(uint64_t *r, const uint64_t *poly, uint32_t n, uint64_t *tmp) {
    size_t words = n / 64 + 1;
    memset(tmp, 0, (2 * words + 1) * 8);
    for (size_t w = 0; w < words; w++) {
        tmp[2 * w] = spread32(r[w] & 0xFFFFFFFFu);
        tmp[2 * w + 1] = spread32(r[w] >> 32);
    }
    for (size_t i = 2 * (size_t)n - 2; i >= n; i--)
        if (POLY_BIT(tmp, i)) poly_xor_shifted(tmp, poly, words, i - n);
    memcpy(r, tmp, words * 8);
}

/* The jump polynomial x^(2^j) mod P, reduced: x^(2^n) = x for a primitive P of degree n. */
static clperm_status jump_poly(const clperm_rng_spec *spec, const uint64_t *p, uint32_t log2_draws, uint64_t *r) {
    uint32_t n = CLPERM_RNG_STATE_BITS((int)spec->family, spec->k);
    size_t words = n / 64 + 1;
    uint64_t *poly = malloc(words * 8), *tmp = malloc((2 * words + 1) * 8);
    clperm_status st = poly && tmp ? char_poly(spec, p, poly) : CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    if (st == CLPERM_SUCCESS) {
        memset(r, 0, words * 8);
        r[0] = 2; /* x */
        for (uint32_t i = 0; i < log2_draws % n; i++) poly_sqr_mod(r, poly, n, tmp);
    }
    free(poly), free(tmp);
    return st;
}

/* state = r(A) state, by n draws (A^i state for every coefficient r_i). */
static void apply_poly(const clperm_rng_spec *spec, const uint64_t *p, const uint64_t *r, uint32_t *state) {
    uint32_t n = CLPERM_RNG_STATE_BITS((int)spec->family, spec->k), sw = state_words(spec);
    uint32_t acc[2 * CLPERM_RNG_MAX_K] = {0}, t[2 * CLPERM_RNG_MAX_K];
    memcpy(t, state, sw * 4);
    for (uint32_t i = 0; i < n; i++) {
        if (POLY_BIT(r, i))
            for (uint32_t w = 0; w < sw; w++) acc[w] ^= t[w];
        advance(spec, p, t);
    }
    memcpy(state, acc, sw * 4);
}

clperm_status clperm_rng_states_host(const clperm_rng_spec *spec, uint64_t seed, uint64_t stream,
                                     uint32_t log2_spacing, uint64_t count, uint32_t *states) {
    CLPERM_RETURN_IF(!spec || (count && !states), CLPERM_ERROR_INVALID_ARGUMENT);
    const uint64_t *p = clperm__rng_spec_table(spec);
    CLPERM_RETURN_IF(!p, CLPERM_ERROR_INVALID_ARGUMENT);
    if (count == 0) return CLPERM_SUCCESS;
    uint32_t n = CLPERM_RNG_STATE_BITS((int)spec->family, spec->k), sw = state_words(spec);
    uint64_t *r = malloc((n / 64 + 1) * 8);
    CLPERM_RETURN_IF(!r, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    clperm_status st = jump_poly(spec, p, log2_spacing, r);
    if (st == CLPERM_SUCCESS) {
        uint32_t s[2 * CLPERM_RNG_MAX_K];
        clperm_rng_seed_host(spec, seed, stream, s);
        for (uint64_t i = 0; i < count; i++) {
            memcpy(states + i * sw, s, sw * 4);
            if (i + 1 < count) apply_poly(spec, p, r, s);
        }
    }
    free(r);
    return st;
}

clperm_status clperm_rng_jump_host(const clperm_rng_spec *spec, uint32_t *state, uint32_t log2_draws) {
    CLPERM_RETURN_IF(!spec || !state, CLPERM_ERROR_INVALID_ARGUMENT);
    const uint64_t *p = clperm__rng_spec_table(spec);
    CLPERM_RETURN_IF(!p, CLPERM_ERROR_INVALID_ARGUMENT);
    uint32_t n = CLPERM_RNG_STATE_BITS((int)spec->family, spec->k);
    uint64_t *r = malloc((n / 64 + 1) * 8);
    CLPERM_RETURN_IF(!r, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    clperm_status st = jump_poly(spec, p, log2_draws, r);
    if (st == CLPERM_SUCCESS) apply_poly(spec, p, r, state);
    free(r);
    return st;
}

clperm_status clperm_rng_fill_host(const clperm_rng_spec *spec, clperm_rng_output output, void *dst, uint64_t n,
                                   uint64_t seed, uint64_t stream) {
    CLPERM_RETURN_IF(!spec, CLPERM_ERROR_INVALID_ARGUMENT);
    const uint64_t *p = clperm__rng_spec_table(spec);
    size_t size = output_size(output);
    CLPERM_RETURN_IF(!p, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(size == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(n > 0 && !dst, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n > SIZE_MAX / size, CLPERM_ERROR_SIZE_OVERFLOW);
    uint32_t k = spec->k;
    uint64_t per_block = (uint64_t)k * CLPERM_RNG_FILL_STEPS;
    uint32_t *out32 = dst;
    uint64_t *out64 = dst;
    for (uint64_t block = 0; block * per_block < n; block++) {
        uint32_t s[2 * CLPERM_RNG_MAX_K], hi[CLPERM_RNG_MAX_K], lo[CLPERM_RNG_MAX_K];
        seed_key(spec, clperm_rng_key(seed, stream, block), s);
        for (uint64_t t = 0; t < CLPERM_RNG_FILL_STEPS; t++) {
            uint64_t i0 = block * per_block + t * k;
            clperm_rng_draw_host(spec, s, size == 8 ? hi : lo, 1);
            if (size == 8) clperm_rng_draw_host(spec, s, lo, 1);
            for (uint32_t j = 0; j < k && i0 + j < n; j++) {
                switch (output) {
                case CLPERM_RNG_OUT_U32: out32[i0 + j] = lo[j]; break;
                case CLPERM_RNG_OUT_FLOAT: out32[i0 + j] = clperm_rng_float_bits(lo[j]); break;
                case CLPERM_RNG_OUT_U64: out64[i0 + j] = CLPERM_RNG_JOIN64(hi[j], lo[j]); break;
                default: out64[i0 + j] = clperm_rng_double_bits(CLPERM_RNG_JOIN64(hi[j], lo[j])); break;
                }
            }
        }
    }
    return CLPERM_SUCCESS;
}

static char device_source[64 * 1024];
static size_t device_source_len;
static pthread_once_t device_source_once = PTHREAD_ONCE_INIT;

/* The device header for users' kernels: clperm_features.h, the tables and clperm_rng.h, in order. */
static void device_source_init(void) {
    const char *const texts[3] = {clperm__cl_clperm_features_h, clperm__cl_clperm_rng_tables_h,
                                  clperm__cl_clperm_rng_h};
    const size_t lengths[3] = {clperm__cl_clperm_features_h_size, clperm__cl_clperm_rng_tables_h_size,
                               clperm__cl_clperm_rng_h_size};
    size_t len = 0;
    for (int i = 0; i < 3; i++) {
        if (len + lengths[i] + 2 > sizeof device_source) return;
        memcpy(device_source + len, texts[i], lengths[i]);
        len += lengths[i];
        device_source[len++] = '\n';
    }
    device_source[len] = 0;
    device_source_len = len;
}

const char *clperm_rng_device_source(size_t *length) {
    pthread_once(&device_source_once, device_source_init);
    if (length) *length = device_source_len;
    return device_source_len ? device_source : NULL;
}
