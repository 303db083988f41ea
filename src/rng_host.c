/* The generators on the host: the tables, and the fill every device is compared with. */
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

uint32_t clperm_rng_state_bits(const clperm_rng_spec *spec) {
    if (!spec || !clperm__rng_table((int)spec->family, spec->k)) return 0;
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

clperm_status clperm_rng_fill_host(const clperm_rng_spec *spec, clperm_rng_output output, void *dst, uint64_t n,
                                   uint64_t seed, uint64_t stream) {
    CLPERM_RETURN_IF(!spec, CLPERM_ERROR_INVALID_ARGUMENT);
    const uint64_t *p = clperm__rng_table((int)spec->family, spec->k);
    size_t size = output_size(output);
    CLPERM_RETURN_IF(!p, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(size == 0, CLPERM_ERROR_INVALID_TYPE);
    CLPERM_RETURN_IF(n > 0 && !dst, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n > SIZE_MAX / size, CLPERM_ERROR_SIZE_OVERFLOW);
    int family = (int)spec->family;
    uint32_t k = spec->k;
    uint64_t per_block = (uint64_t)k * CLPERM_RNG_FILL_STEPS;
    uint32_t *out32 = dst;
    uint64_t *out64 = dst;
    for (uint64_t block = 0; block * per_block < n; block++) {
        uint32_t s[CLPERM_RNG_MAX_K], b[CLPERM_RNG_MAX_K], hi[CLPERM_RNG_MAX_K];
        for (uint32_t j = 0; j < k; j++) s[j] = clperm_rng_seed_word(seed, stream + block, j, &b[j]);
        for (uint64_t t = 0; t < CLPERM_RNG_FILL_STEPS; t++) {
            uint64_t i0 = block * per_block + t * k;
            draw(family, p, k, s, b);
            if (size == 8) {
                memcpy(hi, s, (size_t)k * 4);
                draw(family, p, k, s, b);
            }
            for (uint32_t j = 0; j < k && i0 + j < n; j++) {
                switch (output) {
                case CLPERM_RNG_OUT_U32: out32[i0 + j] = s[j]; break;
                case CLPERM_RNG_OUT_FLOAT: out32[i0 + j] = clperm_rng_float_bits(s[j]); break;
                case CLPERM_RNG_OUT_U64: out64[i0 + j] = CLPERM_RNG_JOIN64(hi[j], s[j]); break;
                default: out64[i0 + j] = clperm_rng_double_bits(CLPERM_RNG_JOIN64(hi[j], s[j])); break;
                }
            }
        }
    }
    return CLPERM_SUCCESS;
}

static char device_source[64 * 1024];
static size_t device_source_len;
static pthread_once_t device_source_once = PTHREAD_ONCE_INIT;

static void device_source_init(void) {
    size_t a = clperm__cl_clperm_rng_tables_h_size, b = clperm__cl_clperm_rng_h_size;
    if (a + b + 2 > sizeof device_source) return;
    memcpy(device_source, clperm__cl_clperm_rng_tables_h, a);
    device_source[a] = '\n';
    memcpy(device_source + a + 1, clperm__cl_clperm_rng_h, b);
    device_source[a + 1 + b] = 0;
    device_source_len = a + 1 + b;
}

const char *clperm_rng_device_source(size_t *length) {
    pthread_once(&device_source_once, device_source_init);
    if (length) *length = device_source_len;
    return device_source_len ? device_source : NULL;
}
