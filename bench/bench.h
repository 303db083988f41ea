/* The benchmark harness behind `clperm bench`. */
#ifndef CLPERM_BENCH_H
#define CLPERM_BENCH_H

#include <stdint.h>

#include "clperm.h"

#define BENCH_MAX_SIZES 64
#define BENCH_MAX_SETS 16

typedef struct bench_set {
    clperm_param param;
    int value;
} bench_set;

typedef struct bench_row {
    char op[32], variant[32], type[8];
    char platform[128], device[128], driver[128];
    uint64_t n;
    int elem_bytes;
    double seconds;            /* median */
    double items_per_s, bytes_per_s;
    double copy_items_per_s, copy_bytes_per_s, gather_items_per_s;
    uint64_t extra_bytes;      /* device memory the operation allocated beyond input and output */
} bench_row;

/* One OpenCL device opened for benchmarking, with its buffers. */
typedef struct bench_dev bench_dev;

bench_dev *bench_dev_open(const char *selector, const bench_set *sets, int nsets, char *err, size_t errcap);
void bench_dev_close(bench_dev *d);
const clperm_profile *bench_dev_profile(const bench_dev *d);
clperm_ctx *bench_dev_ctx(bench_dev *d);
/* Makes room for n 64-bit items in each buffer and fills the inputs; 0 on success. */
int bench_dev_prepare(bench_dev *d, uint64_t n, char *err, size_t errcap);

typedef struct bench_timing {
    int warmup, reps;
} bench_timing;

/* Each returns the median seconds of one run, or a negative value with err filled. */
double bench_copy(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap);
double bench_gather(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap);
/* op: "scan_exclusive", "scan_inclusive" or "reduce_sum"; algorithm 1 or 2 (0 = the default). */
double bench_scan(bench_dev *d, const char *op, clperm_type type, int algorithm, uint64_t n,
                  const bench_timing *t, int verify, uint64_t *extra_bytes, char *err, size_t errcap);
/* Shuffle of n 64-bit items at a fusion level (1..3, 0 = the default) with a bijection; the
 * baselines; the host's single-thread Fisher-Yates. */
double bench_shuffle(bench_dev *d, int fusion, clperm_bijection bijection, uint64_t n, const bench_timing *t,
                     int verify, uint64_t *extra_bytes, char *err, size_t errcap);
double bench_dart_throwing(bench_dev *d, uint64_t n, const bench_timing *t, int verify, uint64_t *extra_bytes,
                           char *err, size_t errcap);
double bench_sort_shuffle(bench_dev *d, uint64_t n, const bench_timing *t, int verify, uint64_t *extra_bytes,
                          char *err, size_t errcap);
double bench_host_fisher_yates(uint64_t n, const bench_timing *t);
/* Tile sort of n random u32 keys in segments, in place; with bits > 0 the stable partition by the
 * low `bits` bits. */
double bench_sort(bench_dev *d, clperm_tile_sort algorithm, uint64_t segment, unsigned bits, uint64_t n,
                  const bench_timing *t, int verify, char *err, size_t errcap);
/* The host's single-thread exclusive scan of n u32. */
double bench_host_scan(uint64_t n, const bench_timing *t);

/* Generators: a fill of n u32 by clperm_rng_fill; n numbers drawn and consumed inside a kernel
 * (spec NULL: Random123's Philox4x32-10); Philox's fill; the host's single-thread xoshiro256**. */
double bench_rng_fill(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, const bench_timing *t, int verify,
                      char *err, size_t errcap);
double bench_rng_inkernel(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, const bench_timing *t, char *err,
                          size_t errcap);
double bench_philox_fill(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap);
double bench_host_xoshiro(uint64_t n, const bench_timing *t);

/* Timing shared by the files of the harness: the wall clock, the median of n samples (sorted in
 * place), and the median time of `run` over t->reps runs after t->warmup, each after `setup`
 * (NULL: none) outside the time; negative on error. */
typedef cl_int (*bench_fn)(bench_dev *d, void *arg);
double bench_now(void);
double bench_median(double *v, int n);
double bench_timed(bench_dev *d, bench_fn setup, bench_fn run, void *arg, const bench_timing *t, char *err,
                   size_t errcap);

/* Device-wide sort (bench_sort.c) of n random keys of key_type, with values of value_type (0:
 * none), in place, the input restored before each run; checked against clperm_sort_host up to
 * 2^24 keys. *extra_bytes: the temp buffers and the context's scratch. */
double bench_device_sort(bench_dev *d, clperm_key_type key_type, clperm_type value_type, uint64_t n,
                         const bench_timing *t, int verify, uint64_t *extra_bytes, char *err, size_t errcap);
/* Segmented sort of n random u32 keys in segments of `segment` keys (0: a skewed mix of lengths,
 * about log-uniform from 1 to 2^17). */
double bench_segmented_sort(bench_dev *d, uint64_t segment, uint64_t n, const bench_timing *t, int verify,
                            uint64_t *extra_bytes, char *err, size_t errcap);
/* Boost.Compute's sort of n random u32 keys on the same device (bench/bc_sort.cpp, run as a
 * separate program when it was built). */
double bench_boost_compute_sort(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap);
/* The host's single-thread sorts of n random u32 keys: C's qsort and an LSD radix sort. */
double bench_host_qsort(uint64_t n, const bench_timing *t);
double bench_host_radix(uint64_t n, const bench_timing *t);

/* Draws PNG figures of throughput against size with gnuplot; 0 on success. */
int bench_plot(const char *dir, const bench_row *rows, size_t nrows, char *err, size_t errcap);

int bench_main(int argc, char **argv);

#endif
