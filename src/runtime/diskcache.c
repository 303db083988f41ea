/* The on-disk program cache: one file per (source, options, device, driver, platform, library
 * version), written through a temporary file and a rename, checked in full before it is trusted.
 *
 * File layout: "CLPERMC1", then three little-endian u64 (key length, binary length, checksum of
 * key and binary), the key text, the binary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "internal.h"

static const char magic[8] = {'C', 'L', 'P', 'E', 'R', 'M', 'C', '1'};
#define HEADER_BYTES 32

int clperm__diskcache_default_dir(char *dir, size_t cap) {
    const char *env = getenv("CLPERM_CACHE_DIR");
    dir[0] = 0;
    if (env) {
        if (!*env || strcmp(env, "off") == 0 || strcmp(env, "0") == 0) return 0;
        snprintf(dir, cap, "%s", env);
        return 1;
    }
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(dir, cap, "%s/clperm", xdg);
    else if (home && *home)
        snprintf(dir, cap, "%s/.cache/clperm", home);
    else
        return 0;
    return 1;
}

static void entry_path(char *path, size_t cap, const char *dir, const char *key_text) {
    snprintf(path, cap, "%s/%016llx.bin", dir,
             (unsigned long long)clperm__hash64(key_text, strlen(key_text)));
}

static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t checksum(const char *key, size_t key_len, const unsigned char *bin, size_t bin_len) {
    clperm__hash hs;
    clperm__hash_init(&hs);
    clperm__hash_bytes(&hs, key, key_len);
    clperm__hash_bytes(&hs, bin, bin_len);
    return clperm__hash_final(&hs);
}

int clperm__diskcache_load(const char *dir, const char *key_text, unsigned char **binary,
                           size_t *size, int *rejected) {
    char path[1200];
    entry_path(path, sizeof path, dir, key_text);
    *rejected = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    unsigned char *buf = NULL;
    int ok = 0;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len >= HEADER_BYTES && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len)) != NULL &&
        fread(buf, 1, (size_t)len, f) == (size_t)len) {
        size_t key_len = strlen(key_text);
        uint64_t klen = get_u64(buf + 8), blen = get_u64(buf + 16), sum = get_u64(buf + 24);
        ok = memcmp(buf, magic, 8) == 0 && klen == key_len && blen > 0 &&
             blen <= (uint64_t)len && HEADER_BYTES + klen + blen == (uint64_t)len &&
             memcmp(buf + HEADER_BYTES, key_text, key_len) == 0 &&
             checksum(key_text, key_len, buf + HEADER_BYTES + key_len, (size_t)blen) == sum;
        if (ok) {
            memmove(buf, buf + HEADER_BYTES + key_len, (size_t)blen);
            *binary = buf;
            *size = (size_t)blen;
        }
    }
    fclose(f);
    if (!ok) {
        free(buf);
        *rejected = 1;
        clperm__debug("disk cache: rejected corrupt entry %s", path);
        return -1;
    }
    return 0;
}

static int make_dirs(const char *dir) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

void clperm__diskcache_store(const char *dir, const char *key_text, const unsigned char *binary,
                             size_t size) {
    static unsigned counter;
    char path[1200], tmp[1300];
    if (!size || make_dirs(dir) != 0) return;
    entry_path(path, sizeof path, dir, key_text);
    snprintf(tmp, sizeof tmp, "%s.%ld.%u.tmp", path, (long)getpid(), __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    size_t key_len = strlen(key_text);
    unsigned char header[HEADER_BYTES];
    memcpy(header, magic, 8);
    put_u64(header + 8, key_len);
    put_u64(header + 16, size);
    put_u64(header + 24, checksum(key_text, key_len, binary, size));
    int ok = fwrite(header, 1, HEADER_BYTES, f) == HEADER_BYTES &&
             fwrite(key_text, 1, key_len, f) == key_len && fwrite(binary, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}
