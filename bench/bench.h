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

/* Draws PNG figures of throughput against size with gnuplot; 0 on success. */
int bench_plot(const char *dir, const bench_row *rows, size_t nrows, char *err, size_t errcap);

/* The median of v[0 .. n) (v is sorted in place). */
double bench_median(double *v, int n);
/* Comma-separated sizes (2^K and 2^K+C understood) into out[0 .. *count); 0 on success. */
int bench_parse_list(const char *list, uint64_t *out, int *count);

int bench_main(int argc, char **argv);
/* clperm bench --dist (bench_dist.c, built with MPI only): under mpirun, one rank per device. */
int bench_dist_main(int argc, char **argv);

#endif
