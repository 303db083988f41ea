/* Single-thread host references, the peers of the device figures: an exclusive scan of u32, a
 * Fisher-Yates shuffle of 64-bit items, and a xoshiro256** fill of u32. Timed by
 * bench_time_host: the median of repeated runs after warm-up, the input prepared outside. */
#include <stdlib.h>

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
