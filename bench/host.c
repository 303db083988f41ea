/* Single-thread host references, the peers of the device figures: an exclusive scan of u32, a
 * Fisher-Yates shuffle of 64-bit items, a xoshiro256** fill of u32, and qsort and an LSD radix
 * sort of u32. Timed by bench_time_host: the median of repeated runs after warm-up, the input
 * prepared outside. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman and Vigna). */
static uint64_t xoshiro_next(uint64_t s[4]) {
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* ---- exclusive scan of u32 ------------------------------------------------------------------ */

typedef struct scan_host {
    const uint32_t *in;
    uint32_t *out;
    uint64_t n;
} scan_host;

static uint64_t run_scan(void *arg) {
    scan_host *h = arg;
    uint32_t sum = 0;
    for (uint64_t j = 0; j < h->n; j++) {
        h->out[j] = sum;
        sum += h->in[j];
    }
    return sum;
}

double bench_host_scan(uint64_t n, const bench_timing *t) {
    uint32_t *in = malloc((size_t)n * 4 + 4), *out = malloc((size_t)n * 4 + 4);
    double s = -1;
    if (in && out) {
        uint64_t z = 0x5eed0003;
        for (uint64_t i = 0; i < n; i++) {
            z = z * 6364136223846793005ull + 1442695040888963407ull;
            in[i] = (uint32_t)(z >> 32);
        }
        scan_host h = {in, out, n};
        s = bench_time_host(run_scan, &h, t);
    }
    free(in);
    free(out);
    return s;
}

/* ---- Fisher-Yates shuffle of 64-bit items, with Lemire's unbiased bounded draws --------------- */

/* Uniform in [0, bound), bound >= 1 (Lemire 2019). */
static uint64_t bounded(uint64_t s[4], uint64_t bound) {
    for (;;) {
        uint64_t x = xoshiro_next(s);
        unsigned __int128 m = (unsigned __int128)x * bound;
        uint64_t lo = (uint64_t)m;
        if (lo >= bound || lo >= (0 - bound) % bound) return (uint64_t)(m >> 64);
    }
}

typedef struct shuffle_host {
    uint64_t *v, n, s[4];
} shuffle_host;

static uint64_t run_fisher_yates(void *arg) {
    shuffle_host *h = arg;
    for (uint64_t k = h->n - 1; k > 0; k--) {
        uint64_t j = bounded(h->s, k + 1), x = h->v[k];
        h->v[k] = h->v[j];
        h->v[j] = x;
    }
    return h->v[0];
}

double bench_host_fisher_yates(uint64_t n, const bench_timing *t) {
    if (n == 0) return -1;
    shuffle_host h = {
        malloc((size_t)n * 8), n, {0x5eed0005, 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9, 0x94d049bb133111eb}};
    if (!h.v) return -1;
    for (uint64_t i = 0; i < n; i++) h.v[i] = i;
    double s = bench_time_host(run_fisher_yates, &h, t);
    free(h.v);
    return s;
}

/* ---- xoshiro256** fill of u32, both halves of each 64-bit output ---------------------------- */

typedef struct fill_host {
    uint32_t *out;
    uint64_t n, s[4];
} fill_host;

static uint64_t run_xoshiro(void *arg) {
    fill_host *h = arg;
    for (uint64_t j = 0; j < h->n; j += 2) {
        uint64_t v = xoshiro_next(h->s);
        h->out[j] = (uint32_t)v;
        h->out[j + 1] = (uint32_t)(v >> 32);
    }
    return h->out[h->n / 2];
}

double bench_host_xoshiro(uint64_t n, const bench_timing *t) {
    fill_host h = {malloc((size_t)n * 4 + 4), n, {1, 2, 3, 4}};
    if (!h.out) return -1;
    double s = bench_time_host(run_xoshiro, &h, t);
    free(h.out);
    return s;
}

/* ---- sorts of u32: qsort, and an LSD radix sort ----------------------------------------------- */

int bench_host_random(void *dst, size_t bytes, uint64_t seed) {
    const clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, 32, 0};
    return clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_U32, dst, bytes / 4, seed, 0) == CLPERM_SUCCESS ? 0 : -1;
}

typedef struct sort_host {
    const uint32_t *in;
    uint32_t *a, *tmp;
    size_t n;
} sort_host;

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void restore_sort_input(void *arg) {
    sort_host *h = arg;
    memcpy(h->a, h->in, h->n * 4);
}

static uint64_t run_qsort(void *arg) {
    sort_host *h = arg;
    qsort(h->a, h->n, 4, cmp_u32);
    return h->a[h->n / 2];
}

/* 8-bit digits: the four passes' counts in one read, then four scatters between a and tmp (the
 * result back in a). */
static uint64_t run_radix(void *arg) {
    sort_host *h = arg;
    static size_t counts[4][256];
    uint32_t *a = h->a, *tmp = h->tmp;
    memset(counts, 0, sizeof counts);
    for (size_t i = 0; i < h->n; i++) {
        uint32_t k = a[i];
        counts[0][k & 255]++;
        counts[1][(k >> 8) & 255]++;
        counts[2][(k >> 16) & 255]++;
        counts[3][k >> 24]++;
    }
    for (int p = 0; p < 4; p++) {
        size_t run = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = counts[p][d];
            counts[p][d] = run;
            run += c;
        }
        for (size_t i = 0; i < h->n; i++) tmp[counts[p][(a[i] >> (8 * p)) & 255]++] = a[i];
        uint32_t *x = a;
        a = tmp;
        tmp = x;
    }
    return h->a[h->n / 2];
}

static double host_sort(uint64_t n, const bench_timing *t, uint64_t (*fn)(void *arg)) {
    uint32_t *in = malloc((size_t)n * 4 + 4), *a = malloc((size_t)n * 4 + 4), *tmp = malloc((size_t)n * 4 + 4);
    double s = -1;
    if (in && a && tmp && bench_host_random(in, (size_t)n * 4, BENCH_SORT_SEED) == 0) {
        sort_host h = {in, a, tmp, (size_t)n};
        s = bench_time_host_prepared(restore_sort_input, fn, &h, t);
        for (uint64_t i = 1; i < n; i++)
            if (a[i - 1] > a[i]) s = -1; /* not sorted: no figure */
    }
    free(in);
    free(a);
    free(tmp);
    return s;
}

double bench_host_qsort(uint64_t n, const bench_timing *t) { return host_sort(n, t, run_qsort); }

double bench_host_radix(uint64_t n, const bench_timing *t) { return host_sort(n, t, run_radix); }
