/* Helpers shared by clperm's tests: every OpenCL device present, seeded inputs, host references. */
#ifndef CLPERM_TEST_COMMON_H
#define CLPERM_TEST_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "clperm.h"

/* Number of OpenCL devices (0 when there is none). */
size_t test_device_count(void);
/* A context on device i with the disk cache off, or NULL (the test fails with the status). */
clperm_ctx *test_open(size_t i);
/* "PLATFORM / DEVICE" for messages. */
const char *test_device_label(clperm_ctx *ctx);

/* 1 when CLPERM_TEST_QUICK is set to a positive number: host tests leave out their largest sizes
 * (the memcheck runs, where every instruction costs fifty). */
int test_quick(void);

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

#endif
