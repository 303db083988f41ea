/* Helpers shared by clperm's tests: every OpenCL device present, seeded inputs, host references. */
#ifndef CLPERM_TEST_COMMON_H
#define CLPERM_TEST_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "clperm.h"

/* Number of OpenCL devices (0 when there is none). */
size_t test_device_count(void);
/* A context on device i with the disk cache off, or NULL. */
clperm_ctx *test_open(size_t i);

/* Whether having no device fails a test instead of skipping it: CI set (non-empty, not "0"), as
 * .ci/run sets it, or CLPERM_TEST_REQUIRE_DEVICE=1. */
int test_device_required(void);
/* Ends a test that needs a device when there is none: skipped with a message, or failed where
 * test_device_required(). Does not return. */
void test_no_device(void);
/* Its two messages (for tests outside Criterion, such as the MPI test, that say the same). */
#define TEST_NO_DEVICE_SKIPPED "no OpenCL device present: skipped (set CLPERM_TEST_REQUIRE_DEVICE=1 to make this a failure)"
#define TEST_NO_DEVICE_REQUIRED                                                                    \
    "no OpenCL device present, and one is required here (CI or CLPERM_TEST_REQUIRE_DEVICE=1 is set): check the " \
    "OpenCL ICD (OCL_ICD_VENDORS, /etc/OpenCL/vendors)"

/* The loop every test that needs a device runs its device part in:
 *     TEST_EACH_DEVICE(ctx) { ... }
 * runs the block once per device present with ctx = test_open(i) (the test fails when one cannot
 * be opened), frees ctx after the block, and with no device at all calls test_no_device(). In the
 * block, continue moves to the next device (ctx is freed); break does the same. */
typedef struct test_devices {
    size_t next, count;
    clperm_ctx *ctx;
} test_devices;
test_devices test_devices_begin(int required);
/* Frees the current context and opens the next; 0 when all are done. */
int test_devices_next(test_devices *it);

#define TEST_EACH_DEVICE_(ctx, required)                                                           \
    for (test_devices test_devices_ = test_devices_begin(required); test_devices_next(&test_devices_);) \
        for (clperm_ctx *ctx = test_devices_.ctx; ctx; ctx = NULL)
#define TEST_EACH_DEVICE(ctx) TEST_EACH_DEVICE_(ctx, 1)
/* The same loop for a test whose host checks stand on their own: with no device the block is
 * simply not run. */
#define TEST_EACH_DEVICE_PRESENT(ctx) TEST_EACH_DEVICE_(ctx, 0)
/* The loop for a test that opens its own contexts by device index (fault injection, threads):
 *     TEST_EACH_DEVICE_INDEX(d) { ... }
 * runs the block with d = 0 .. count - 1; with no device at all it calls test_no_device(). */
size_t test_device_count_required(void);
#define TEST_EACH_DEVICE_INDEX(d)                                                                  \
    for (size_t d = 0, d##_count_ = test_device_count_required(); d < d##_count_; d++)
/* "PLATFORM / DEVICE" for messages. */
const char *test_device_label(clperm_ctx *ctx);

/* 1 when CLPERM_TEST_QUICK is set to a positive number: host tests leave out their largest sizes
 * (the memcheck runs, where every instruction costs fifty). */
int test_quick(void);

/* 1 when CLPERM_TEST_FULL is set to a positive number: tests that build an OpenCL program per
 * combination of their parameters (seconds each on PoCL, more under a simulator) and cover those
 * combinations pairwise by default run the full product instead, for machines with many cores.
 * Every test file reads the variable through this helper. */
int test_full(void);

/* The seed of this run: CLPERM_TEST_SEED if set, else a fixed default; printed by the tests. */
uint64_t test_seed(void);
void test_fill_random(void *buf, size_t bytes, uint64_t seed);

cl_mem test_buffer(clperm_ctx *ctx, size_t bytes, const void *init);
int test_read(clperm_ctx *ctx, cl_mem mem, size_t bytes, void *out);

/* Host references over items of es bytes (4 or 8), wrapping. */
void test_scan_ref(const void *in, void *out, uint64_t n, size_t es, int inclusive);
uint64_t test_sum_ref(const void *in, uint64_t n, size_t es);
/* Index of the first difference of two arrays of n items, or n. */
uint64_t test_first_diff(const void *a, const void *b, uint64_t n, size_t es);
uint64_t test_item(const void *buf, uint64_t i, size_t es);

/* Sets each tunable on ctx; 0 when the device cannot run one of them (CLPERM_ERROR_UNSUPPORTED),
 * any other failure fails the test. */
typedef struct test_param {
    clperm_param p;
    int v;
} test_param;
int test_apply_params(clperm_ctx *ctx, const test_param *sets, size_t count);

#endif
