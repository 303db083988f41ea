/* The bench's checks: each device result compared with the library's host reference (or, for
 * the baselines, checked to be a permutation), so that no figure comes from a wrong answer. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Below these sizes the LIMITED checks compare bit for bit; above, the host's reference would
 * take longer than the measurement (a shuffle is still checked to be a permutation). */
#define BITWISE_MAX (UINT64_C(1) << 22)
#define SORT_MAX (UINT64_C(1) << 24)

static int read_buffer(bench_dev *d, cl_mem buf, size_t bytes, void *out) {
    return clEnqueueReadBuffer(d->queue, buf, CL_TRUE, 0, bytes, out, 0, NULL, NULL) == CL_SUCCESS ? 0 : -1;
}

int bench_check_scan(bench_dev *d, const char *op, clperm_type type, uint64_t n, char *err, size_t errcap) {
    size_t es = clperm_type_size(type), bytes = (size_t)n * es;
    unsigned char *in = malloc(bytes ? bytes : 1), *out = malloc(bytes ? bytes : 1);
    int bad = -1;
    if (in && out && read_buffer(d, d->a, bytes, in) == 0 && read_buffer(d, d->b, bytes, out) == 0) {
        int incl = strcmp(op, "scan_inclusive") == 0, red = strcmp(op, "reduce_sum") == 0;
        uint64_t sum = 0, mask = es == 4 ? 0xffffffffull : ~0ull;
        bad = 0;
        for (uint64_t i = 0; i < n && !bad; i++) {
            uint64_t x = 0, y = 0;
            memcpy(&x, in + i * es, es);
            if (!red) memcpy(&y, out + i * es, es);
            if (!red && !incl && y != (sum & mask)) bad = 1;
            sum += x;
            if (!red && incl && y != (sum & mask)) bad = 1;
            if (bad) snprintf(err, errcap, "%s: wrong result at item %llu", op, (unsigned long long)i);
        }
        uint64_t y = 0;
        memcpy(&y, out, es);
        if (red && y != (sum & mask)) {
            bad = 1;
            snprintf(err, errcap, "reduce_sum: wrong result");
        }
    } else {
        snprintf(err, errcap, "could not read back the result to check it");
    }
    free(in);
    free(out);
    return bad;
}

int bench_check_permutation(bench_dev *d, uint64_t n, const clperm_shuffle_opts *opts, uint64_t seed,
                            bench_verify verify, char *err, size_t errcap) {
    int bitwise = opts && (verify == BENCH_VERIFY_ALL || n <= BITWISE_MAX);
    uint64_t *out = malloc((size_t)n * 8 + 8), *want = bitwise ? malloc((size_t)n * 8 + 8) : NULL;
    unsigned char *seen = calloc((size_t)n + 1, 1);
    int bad = -1;
    if (!out || !seen || (bitwise && !want)) {
        snprintf(err, errcap, "out of host memory to check the result");
    } else if (read_buffer(d, d->b, (size_t)n * 8, out) != 0) {
        snprintf(err, errcap, "could not read back the result to check it");
    } else {
        bad = 0;
        for (uint64_t j = 0; j < n && !bad; j++) {
            if (out[j] >= n || seen[out[j]]) {
                bad = 1;
                snprintf(err, errcap, "not a permutation at item %llu", (unsigned long long)j);
            } else {
                seen[out[j]] = 1;
            }
        }
        if (!bad && bitwise) {
            if (clperm_permutation_host(CLPERM_TYPE_U64, want, n, seed, opts) != CLPERM_SUCCESS) {
                bad = 1;
                snprintf(err, errcap, "the host's permutation failed");
            } else if (memcmp(want, out, (size_t)n * 8) != 0) {
                bad = 1;
                snprintf(err, errcap, "differs from the host's permutation");
            }
        }
    }
    free(out);
    free(want);
    free(seen);
    return bad;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* An unstable partition's check: the same label at every position as the stable `want`, and the
 * same keys in every run of one label (sorted in place, both). */
static int same_label_runs(uint32_t *want, uint32_t *got, uint64_t n, uint64_t segment, unsigned bits) {
    uint32_t mask = (1u << bits) - 1;
    for (uint64_t i = 0; i < n;) {
        uint64_t j = i;
        while (j < n && (j == i || j % segment != 0) && (want[j] & mask) == (want[i] & mask)) {
            if ((got[j] & mask) != (want[i] & mask)) return 0;
            j++;
        }
        qsort(want + i, j - i, 4, cmp_u32);
        qsort(got + i, j - i, 4, cmp_u32);
        if (memcmp(want + i, got + i, (j - i) * 4) != 0) return 0;
        i = j;
    }
    return 1;
}

int bench_check_tile(bench_dev *d, uint32_t *want, uint64_t n, uint64_t segment, unsigned bits,
                     clperm_tile_sort algorithm, char *err, size_t errcap) {
    uint32_t *got = malloc((size_t)n * 4 + 4);
    int bad = -1;
    if (!got || (bits ? clperm_partition_segments_host(CLPERM_KEY_U32, want, NULL, n, segment, 0, bits)
                      : clperm_sort_segments_host(CLPERM_KEY_U32, want, NULL, n, segment)) != CLPERM_SUCCESS) {
        snprintf(err, errcap, "could not prepare the check");
    } else if (read_buffer(d, d->a, (size_t)n * 4, got) != 0) {
        snprintf(err, errcap, "could not read back the result to check it");
    } else {
        bad = algorithm == CLPERM_TILE_PARTITION_COUNTING ? !same_label_runs(want, got, n, segment, bits)
                                                          : memcmp(want, got, (size_t)n * 4) != 0;
        if (bad) snprintf(err, errcap, "differs from the host's %s", bits ? "partition" : "sort");
    }
    free(got);
    return bad;
}

int bench_check_rng_fill(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, uint64_t seed, char *err,
                         size_t errcap) {
    uint32_t *want = malloc((size_t)n * 4 + 4), *got = malloc((size_t)n * 4 + 4);
    int bad = !want || !got || clperm_rng_fill_host(spec, CLPERM_RNG_OUT_U32, want, n, seed, 0) != CLPERM_SUCCESS ||
              read_buffer(d, d->a, (size_t)n * 4, got) != 0 || memcmp(want, got, (size_t)n * 4) != 0;
    if (bad) snprintf(err, errcap, "differs from the host's fill");
    free(want);
    free(got);
    return bad;
}

int bench_check_sort(bench_dev *d, const clperm_sort_request *req, const clperm_segments *segs, const void *keys,
                     const void *values, const void *offsets, char *err, size_t errcap) {
    size_t kb = (size_t)req->n * clperm_key_size(req->key_type);
    size_t vb = values ? (size_t)req->n * clperm_type_size(req->value_type) : 0;
    unsigned char *want = malloc(kb + 1), *wantv = malloc(vb + 1), *got = malloc(kb + 1), *gotv = malloc(vb + 1);
    int bad = -1;
    if (!want || !wantv || !got || !gotv) {
        snprintf(err, errcap, "out of host memory to check the result");
    } else {
        memcpy(want, keys, kb);
        if (vb) memcpy(wantv, values, vb);
        clperm_sort_host_request hr = {req->key_type, want, vb ? req->value_type : 0, vb ? wantv : NULL, req->n,
                                       req->order};
        clperm_status st = segs ? clperm_sort_segmented_host(&hr, offsets, segs->offset_type, segs->count)
                                : clperm_sort_host(&hr);
        if (st != CLPERM_SUCCESS) {
            snprintf(err, errcap, "the host's sort failed: %s", clperm_status_name(st));
        } else if (read_buffer(d, req->keys, kb, got) != 0 || (vb && read_buffer(d, req->values, vb, gotv) != 0)) {
            snprintf(err, errcap, "could not read back the result to check it");
        } else {
            bad = memcmp(want, got, kb) != 0 || (vb && memcmp(wantv, gotv, vb) != 0);
            if (bad) snprintf(err, errcap, "differs from the host's sort");
        }
    }
    free(want);
    free(wantv);
    free(got);
    free(gotv);
    return bad;
}

/* Whether a LIMITED check of a sort or a fill covers n. */
int bench_check_covers(bench_verify verify, int kind, uint64_t n) {
    if (verify == BENCH_VERIFY_OFF) return 0;
    if (verify == BENCH_VERIFY_ALL) return 1;
    int sort = kind == BENCH_KIND_TILE || kind == BENCH_KIND_SORT || kind == BENCH_KIND_SORT_SEGMENTED;
    return n <= (sort ? SORT_MAX : BITWISE_MAX);
}
