/* The disk cache of program binaries: used when valid, and every kind of damaged entry detected,
 * rebuilt and rewritten, never trusted. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static char dir[256];

static void setup(void) {
    snprintf(dir, sizeof dir, "/tmp/clperm-cache-test-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    setenv("CLPERM_CACHE_DIR", dir, 1);
}

static void teardown(void) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[600];
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

typedef struct counts {
    uint64_t built, hits, rejects;
} counts;

/* A fresh context runs and checks one scan, and reports what the caches did. */
static counts scan_once(void) {
    clperm_ctx *ctx = NULL;
    cr_assert_eq(clperm_ctx_create_device(&ctx, "0"), CLPERM_SUCCESS);
    int on = 0;
    clperm_ctx_get_param(ctx, CLPERM_PARAM_DISK_CACHE, &on);
    cr_assert_eq(on, 1, "CLPERM_CACHE_DIR turns the disk cache on");
    const uint64_t n = 5000;
    uint32_t in[5000], out[5000], ref[5000];
    test_fill_random(in, sizeof in, test_seed());
    cl_mem a = test_buffer(ctx, sizeof in, in), b = test_buffer(ctx, sizeof in, NULL);
    cr_assert_eq(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, a, b, n, 0, NULL, NULL), CLPERM_SUCCESS);
    cr_assert_eq(test_read(ctx, b, sizeof out, out), 0);
    test_scan_ref(in, ref, n, 4, 0);
    cr_assert_eq(test_first_diff(out, ref, n, 4), n, "scan result after the cache step");
    counts c;
    clperm_ctx_counter(ctx, CLPERM_COUNTER_PROGRAMS_BUILT, &c.built);
    clperm_ctx_counter(ctx, CLPERM_COUNTER_DISK_CACHE_HITS, &c.hits);
    clperm_ctx_counter(ctx, CLPERM_COUNTER_DISK_CACHE_REJECTS, &c.rejects);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clperm_ctx_free(ctx);
    return c;
}

typedef void (*damage_fn)(const char *path, long size);

/* Applies damage to every entry in the cache directory; returns how many there were. */
static int damage_all(damage_fn fn) {
    DIR *d = opendir(dir);
    cr_assert(d);
    struct dirent *e;
    int n = 0;
    char path[600];
    while ((e = readdir(d)) != NULL) {
        if (!strstr(e->d_name, ".bin") || strstr(e->d_name, ".tmp")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert(f);
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fclose(f);
        fn(path, size);
        n++;
    }
    closedir(d);
    return n;
}

static void truncate_half(const char *path, long size) { cr_assert_eq(truncate(path, size / 2), 0); }
static void truncate_empty(const char *path, long size) { (void)size; cr_assert_eq(truncate(path, 0), 0); }
static void header_only(const char *path, long size) { (void)size; cr_assert_eq(truncate(path, 32), 0); }

static void flip_byte(const char *path, long size) {
    FILE *f = fopen(path, "r+b");
    cr_assert(f);
    long at = size - size / 3;
    fseek(f, at, SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(c ^ 0x40, f);
    fclose(f);
}

static void garbage(const char *path, long size) {
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    for (long i = 0; i < size; i++) fputc((int)(i * 131 % 251), f);
    fclose(f);
}

/* A length field that claims more than the file holds. */
static void lie_about_length(const char *path, long size) {
    (void)size;
    FILE *f = fopen(path, "r+b");
    cr_assert(f);
    fseek(f, 16, SEEK_SET);
    for (int i = 0; i < 8; i++) fputc(0x7f, f);
    fclose(f);
}

static void damaged_entry_is_rebuilt(damage_fn fn) {
    if (!test_device_count()) test_no_device();
    counts first = scan_once();
    cr_assert_geq(first.built, 1, "the first context builds from source");
    counts second = scan_once();
    cr_assert_eq(second.built, 0, "a second context loads every program from disk");
    cr_assert_geq(second.hits, 1);
    cr_assert_gt(damage_all(fn), 0, "the cache directory holds entries");
    counts third = scan_once();
    cr_assert_geq(third.rejects, 1, "a damaged entry is detected");
    cr_assert_geq(third.built, 1, "and rebuilt from source");
    counts fourth = scan_once();
    cr_assert_eq(fourth.built, 0, "the rebuilt entry was written back");
    cr_assert_eq(fourth.rejects, 0);
}

TestSuite(cache, .init = setup, .fini = teardown);

Test(cache, truncated_entry) { damaged_entry_is_rebuilt(truncate_half); }
Test(cache, empty_entry) { damaged_entry_is_rebuilt(truncate_empty); }
Test(cache, header_without_body) { damaged_entry_is_rebuilt(header_only); }
Test(cache, flipped_byte) { damaged_entry_is_rebuilt(flip_byte); }
Test(cache, garbage_entry) { damaged_entry_is_rebuilt(garbage); }
Test(cache, wrong_length_field) { damaged_entry_is_rebuilt(lie_about_length); }

Test(cache, switched_off) {
    if (!test_device_count()) test_no_device();
    setenv("CLPERM_CACHE_DIR", "off", 1);
    clperm_ctx *ctx = NULL;
    cr_assert_eq(clperm_ctx_create_device(&ctx, "0"), CLPERM_SUCCESS);
    int on = 1;
    clperm_ctx_get_param(ctx, CLPERM_PARAM_DISK_CACHE, &on);
    cr_assert_eq(on, 0);
    cr_assert_eq(clperm_ctx_set_param(ctx, CLPERM_PARAM_DISK_CACHE, 1), CLPERM_SUCCESS);
    clperm_ctx_get_param(ctx, CLPERM_PARAM_DISK_CACHE, &on);
    cr_assert_eq(on, 0, "with no cache directory the cache stays off");
    clperm_ctx_free(ctx);
}
