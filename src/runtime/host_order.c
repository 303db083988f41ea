/* The host references' stable ordering: items (key, input position) sorted by key, ties by
 * position. Where key and position fit one 64-bit word together, the words (key above position,
 * each unique, so any sort of them gives the stable order) are sorted by an LSD radix sort of 8
 * bits a pass; wider items by a bottom-up merge sort. */
#include <string.h>

#include "internal.h"

#define RUN 16 /* items insertion-sorted before the merges */

/* Stable: an item moves before an earlier one only when its key is less. */
static void sort_items(clperm__host_item *a, clperm__host_item *tmp, uint64_t n) {
    for (uint64_t lo = 0; lo < n; lo += RUN) {
        uint64_t hi = lo + RUN < n ? lo + RUN : n;
        for (uint64_t i = lo + 1; i < hi; i++) {
            clperm__host_item x = a[i];
            uint64_t j = i;
            for (; j > lo && x.key < a[j - 1].key; j--) a[j] = a[j - 1];
            a[j] = x;
        }
    }
    clperm__host_item *src = a, *dst = tmp;
    for (uint64_t run = RUN; run < n; run *= 2) {
        for (uint64_t lo = 0; lo < n; lo += 2 * run) {
            uint64_t mid = lo + run < n ? lo + run : n, hi = lo + 2 * run < n ? lo + 2 * run : n;
            uint64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) { /* no branch on the data */
                clperm__host_item x = src[i], y = src[j];
                int right = y.key < x.key;
                dst[k++] = right ? y : x;
                i += !right;
                j += right;
            }
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        clperm__host_item *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

#define DIGIT 8

/* The words w[0 .. n) below 2^bits in ascending order, tmp n words. */
static void sort_words(uint64_t *w, uint64_t *tmp, uint64_t n, unsigned bits) {
    if (n <= 64) { /* short: the passes' counts would cost more than the words */
        for (uint64_t i = 1; i < n; i++) {
            uint64_t x = w[i], j = i;
            for (; j > 0 && x < w[j - 1]; j--) w[j] = w[j - 1];
            w[j] = x;
        }
        return;
    }
    uint64_t *src = w, *dst = tmp;
    for (unsigned shift = 0; shift < bits; shift += DIGIT) {
        uint64_t count[1u << DIGIT] = {0};
        const uint64_t mask = (1u << DIGIT) - 1;
        for (uint64_t i = 0; i < n; i++) count[src[i] >> shift & mask]++;
        uint64_t at = 0;
        for (unsigned d = 0; d <= mask; d++) {
            uint64_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (uint64_t i = 0; i < n; i++) dst[count[src[i] >> shift & mask]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != w) memcpy(w, src, (size_t)n * sizeof *w);
}

void clperm__host_order(clperm__host_item *items, clperm__host_item *tmp, uint64_t n, unsigned key_bits) {
    unsigned pos_bits = 0;
    while (pos_bits < 64 && (UINT64_C(1) << pos_bits) < n) pos_bits++;
    if (key_bits == 0 || key_bits + pos_bits > 64) { /* in words, pos_bits < 64 */
        sort_items(items, tmp, n);
        return;
    }
    /* Word i is written over bytes 8i .. 8i + 7 of the items, after item i is read (8i <= 16i);
     * going back, item i over words 2i and 2i + 1, read already (2i >= i), after word i. */
    uint64_t *w = (uint64_t *)items;
    for (uint64_t i = 0; i < n; i++) {
        clperm__host_item it = items[i];
        w[i] = it.key << pos_bits | it.pos;
    }
    sort_words(w, (uint64_t *)tmp, n, key_bits + pos_bits);
    const uint64_t pos_mask = (UINT64_C(1) << pos_bits) - 1;
    for (uint64_t i = n; i-- > 0;) {
        uint64_t x = w[i];
        items[i].key = x >> pos_bits;
        items[i].pos = x & pos_mask;
    }
}

void clperm__host_gather(void *dst, const void *src, const clperm__host_item *items, uint64_t n, size_t size) {
    if (size == 4) {
        uint32_t *d = dst;
        const uint32_t *s = src;
        for (uint64_t i = 0; i < n; i++) d[i] = s[items[i].pos];
    } else if (size == 8) {
        uint64_t *d = dst;
        const uint64_t *s = src;
        for (uint64_t i = 0; i < n; i++) d[i] = s[items[i].pos];
    } else {
        for (uint64_t i = 0; i < n; i++)
            memcpy((unsigned char *)dst + i * size, (const unsigned char *)src + items[i].pos * size, size);
    }
}
