#include "common.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t test_device_count(void) {
    size_t n = 0;
    if (clperm_device_count(&n) != CLPERM_SUCCESS) return 0;
    return n;
}

clperm_ctx *test_open(size_t i) {
    char sel[32];
    snprintf(sel, sizeof sel, "%zu", i);
    clperm_ctx *ctx = NULL;
    if (clperm_ctx_create_device(&ctx, sel) != CLPERM_SUCCESS) return NULL;
    clperm_ctx_set_param(ctx, CLPERM_PARAM_DISK_CACHE, 0);
    return ctx;
}

int test_device_required(void) {
    const char *ci = getenv("CI"), *req = getenv("CLPERM_TEST_REQUIRE_DEVICE");
    return (ci && *ci && strcmp(ci, "0") != 0) || (req && strcmp(req, "1") == 0);
}

void test_no_device(void) {
    if (test_device_required()) cr_assert_fail(TEST_NO_DEVICE_REQUIRED);
    cr_skip_test(TEST_NO_DEVICE_SKIPPED);
}

size_t test_device_count_required(void) {
    size_t count = test_device_count();
    if (!count) test_no_device();
    return count;
}

test_devices test_devices_begin(int required) {
    test_devices it = {0, test_device_count(), NULL};
    if (!it.count && required) test_no_device();
    return it;
}

int test_devices_next(test_devices *it) {
    clperm_ctx_free(it->ctx);
    it->ctx = NULL;
    if (it->next >= it->count) return 0;
    it->ctx = test_open(it->next);
    cr_assert_not_null(it->ctx, "cannot open OpenCL device %zu of %zu", it->next, it->count);
    it->next++;
    return 1;
}

const char *test_device_label(clperm_ctx *ctx) {
    static char label[300];
    clperm_profile p;
    if (clperm_ctx_profile(ctx, &p) != CLPERM_SUCCESS) return "(invalid context)";
    snprintf(label, sizeof label, "%s / %s", p.platform_name, p.device_name);
    return label;
}

int test_quick(void) {
    const char *env = getenv("CLPERM_TEST_QUICK");
    return env && atoi(env) > 0;
}

int test_full(void) {
    const char *env = getenv("CLPERM_TEST_FULL");
    return env && atoi(env) > 0;
}

uint64_t test_seed(void) {
    const char *env = getenv("CLPERM_TEST_SEED");
    return env && *env ? strtoull(env, NULL, 0) : 0x2026112100000001ull;
}

void test_fill_random(void *buf, size_t bytes, uint64_t seed) {
    unsigned char *p = buf;
    uint64_t z = seed;
    for (size_t i = 0; i < bytes; i += 8) {
        z += 0x9e3779b97f4a7c15ull;
        uint64_t x = z;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        size_t k = bytes - i < 8 ? bytes - i : 8;
        memcpy(p + i, &x, k);
    }
}

cl_mem test_buffer(clperm_ctx *ctx, size_t bytes, const void *init) {
    cl_int err;
    cl_mem m = clCreateBuffer(clperm_ctx_cl_context(ctx), CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    if (m && init && bytes &&
        clEnqueueWriteBuffer(clperm_ctx_cl_queue(ctx), m, CL_TRUE, 0, bytes, init, 0, NULL, NULL) != CL_SUCCESS) {
        clReleaseMemObject(m);
        return NULL;
    }
    return m;
}

int test_read(clperm_ctx *ctx, cl_mem mem, size_t bytes, void *out) {
    if (!bytes) return 0;
    return clEnqueueReadBuffer(clperm_ctx_cl_queue(ctx), mem, CL_TRUE, 0, bytes, out, 0, NULL, NULL) == CL_SUCCESS ? 0 : -1;
}

uint64_t test_item(const void *buf, uint64_t i, size_t es) {
    uint64_t v = 0;
    memcpy(&v, (const unsigned char *)buf + i * es, es);
    return v;
}

static void put_item(void *buf, uint64_t i, size_t es, uint64_t v) { memcpy((unsigned char *)buf + i * es, &v, es); }

void test_scan_ref(const void *in, void *out, uint64_t n, size_t es, int inclusive) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t x = test_item(in, i, es);
        if (inclusive) sum += x;
        put_item(out, i, es, sum);
        if (!inclusive) sum += x;
    }
}

uint64_t test_sum_ref(const void *in, uint64_t n, size_t es) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) sum += test_item(in, i, es);
    return es == 4 ? (sum & 0xffffffffull) : sum;
}

uint64_t test_first_diff(const void *a, const void *b, uint64_t n, size_t es) {
    for (uint64_t i = 0; i < n; i++)
        if (test_item(a, i, es) != test_item(b, i, es)) return i;
    return n;
}

int test_apply_params(clperm_ctx *ctx, const test_param *sets, size_t count) {
    for (size_t i = 0; i < count; i++) {
        clperm_status st = clperm_ctx_set_param(ctx, sets[i].p, sets[i].v);
        if (st == CLPERM_ERROR_UNSUPPORTED) return 0;
        cr_assert_eq(st, CLPERM_SUCCESS, "set param %s = %d: %s", clperm_param_name(sets[i].p), sets[i].v,
                     clperm_status_name(st));
    }
    return 1;
}
