/* FNV-1a, 64-bit: keys for the program caches and checksums of disk-cache entries. */
#include <string.h>

#include "internal.h"

void clperm__hash_init(clperm__hash *hs) { hs->h = 0xcbf29ce484222325ull; }

void clperm__hash_bytes(clperm__hash *hs, const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t h = hs->h;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    hs->h = h;
}

void clperm__hash_str(clperm__hash *hs, const char *s) { clperm__hash_bytes(hs, s, strlen(s) + 1); }

uint64_t clperm__hash_final(const clperm__hash *hs) {
    /* A final avalanche (SplitMix64's) so that nearby keys give unrelated file names. */
    uint64_t z = hs->h;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t clperm__hash64(const void *data, size_t len) {
    clperm__hash hs;
    clperm__hash_init(&hs);
    clperm__hash_bytes(&hs, data, len);
    return clperm__hash_final(&hs);
}
