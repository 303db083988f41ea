/* `clperm bench` and `clperm report`: the pieces and who holds them.
 *   harness.c    an OpenCL device opened for benchmarking: context, buffers, input fills
 *   timing.c     the median of repeated runs, on a device and on the host
 *   bounds.c     the device's copy and random-gather rates, the bounds of every figure
 *   runners.c    clperm's operations, timed
 *   check.c      their results compared with the library's host references
 *   baselines.c  other ways to do the same on the device: dart throwing, a sort shuffle,
 *                Random123's Philox4x32-10, Boost.Compute's sort
 *   host.c       single-thread host references: serial scan, Fisher-Yates, xoshiro256**,
 *                qsort and an LSD radix sort
 *   permute.c    the offline permutations: their runner and check, and the Table 2 summary
 *   cases.c      every measured case, and the headline table of the default run
 *   options.c    the options of `clperm bench`: one table for the parser and the help
 *   progress.c   what runs and how far along, on stderr
 *   rows.c       result rows: the table, JSON lines, and reading them back
 *   bench.c      the driver: plans the steps, runs them, prints the summary
 *   dist.c       `clperm bench --dist`: the distributed shuffle and sort under mpirun, one rank
 *                per device (built where MPI is found)
 *   report.c     `clperm report`: JSON lines of several runs side by side
 *   plot.c       PNG figures through gnuplot
 * Kernels live in bench/kernels/, embedded at build time. */
#ifndef CLPERM_BENCH_H
#define CLPERM_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "clperm.h"

#define BENCH_MAX_SIZES 64
#define BENCH_MAX_SETS 16
#define BENCH_MAX_DEVICES 32

/* ---- timing.c ------------------------------------------------------------------------------- */

typedef struct bench_timing {
    int warmup, reps;
    int fastest; /* 1: the fastest run instead of the median (clperm tune on CPUs, where other work
                  * on the machine only ever adds time) */
} bench_timing;

double bench_now(void);
/* The median of v[0 .. n) (v is sorted in place). */
double bench_median(double *v, int n);
/* The fastest and slowest run of the last series timed (by any of the functions below): 1 with
 * them, 0 when none was timed since bench_spread_reset (a peer run as a program of its own). */
void bench_spread_reset(void);
int bench_spread(double *min_s, double *max_s);
/* The median seconds of t->reps runs of fn after t->warmup, each run ended by clFinish(queue) so
 * that it covers the whole operation; negative with err filled when a run fails. */
double bench_time_device(cl_command_queue queue, cl_int (*fn)(void *arg), void *arg, const bench_timing *t, char *err,
                         size_t errcap);
/* The same for a host function; fn returns a value kept from the optimiser. */
double bench_time_host(uint64_t (*fn)(void *arg), void *arg, const bench_timing *t);
/* The same, each run after setup(arg), outside the time and the clFinish before it: an operation
 * in place gets its input back (a sort). */
double bench_time_device_prepared(cl_command_queue queue, cl_int (*setup)(void *arg), cl_int (*fn)(void *arg),
                                  void *arg, const bench_timing *t, char *err, size_t errcap);
double bench_time_host_prepared(void (*setup)(void *arg), uint64_t (*fn)(void *arg), void *arg,
                                const bench_timing *t);

/* ---- harness.c ------------------------------------------------------------------------------ */

typedef struct bench_set {
    clperm_param param;
    int value;
} bench_set;

typedef struct bench_baselines bench_baselines;
typedef struct bench_permute_state bench_permute_state;

/* One OpenCL device opened for benchmarking. Buffers a and b hold `cap` 64-bit items and idx as
 * many u32; `filled` is the n for which a and idx hold the bounds' inputs (0: overwritten). */
typedef struct bench_dev {
    clperm_ctx *ctx;
    clperm_profile profile;
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    cl_program program;
    cl_kernel fill_u64, fill_u32, fill_index, fill_iota, copy, gather, gather_u32, gather_16;
    cl_mem a, b, idx;
    uint64_t cap, filled;
    bench_baselines *baselines; /* built on first use (baselines.c) */
    bench_permute_state *permute; /* made on first use (permute.c) */
} bench_dev;

bench_dev *bench_dev_open(const char *selector, const bench_set *sets, int nsets, char *err, size_t errcap);
void bench_dev_close(bench_dev *d);
/* Makes room for n 64-bit items in each buffer and fills the bounds' inputs; 0 on success. */
int bench_dev_prepare(bench_dev *d, uint64_t n, char *err, size_t errcap);
/* n random items of `type` (u32 or u64) from seed, into buffer a. */
int bench_fill_random(bench_dev *d, clperm_type type, uint64_t n, uint64_t seed, char *err, size_t errcap);
/* Buffer a := 0, 1, ..., n-1 (64-bit). */
int bench_fill_iota(bench_dev *d, uint64_t n, char *err, size_t errcap);
/* Sets argument i of kernel k to v, unless st already holds an error. */
#define BENCH_ARG(st, k, i, v) ((st) = (st) != CL_SUCCESS ? (st) : clSetKernelArg((k), (i), sizeof(v), &(v)))
/* Enqueues k on n work-items in groups of 256. */
cl_int bench_launch(bench_dev *d, cl_kernel k, uint64_t n);
/* The median seconds of launches of k on n work-items (rounded up) in groups of wg. */
double bench_time_launch(bench_dev *d, cl_kernel k, uint64_t n, size_t wg, const bench_timing *t, char *err,
                         size_t errcap);
/* Builds a program from `count` texts with `options`; NULL with err filled on failure. */
cl_program bench_build(bench_dev *d, const char *const *texts, const size_t *lengths, int count, const char *options,
                       char *err, size_t errcap);
/* A device the bench treats as a CPU (the representative sizes are smaller there). */
int bench_dev_is_cpu(const bench_dev *d);

/* ---- bounds.c ------------------------------------------------------------------------------- */

/* Each returns the median seconds of one run of n 64-bit items, or a negative value with err. */
double bench_copy(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap);
double bench_gather(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap);
/* The same gather of 4-byte items. */
double bench_gather_u32(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap);

/* ---- check.c -------------------------------------------------------------------------------- */

/* How far results are checked against the host: not at all, up to the sizes where the host's
 * reference stays quick (2^22 items bit for bit for shuffles and fills, 2^24 for sorts and
 * offline permutations; a shuffle is checked as a permutation at every size), or at every size. */
typedef enum bench_verify { BENCH_VERIFY_OFF = 0, BENCH_VERIFY_LIMITED = 1, BENCH_VERIFY_ALL = 2 } bench_verify;

/* Each returns 0 when the device's result matches, else nonzero with err filled. */
int bench_check_scan(bench_dev *d, const char *op, clperm_type type, uint64_t n, char *err, size_t errcap);
/* Buffer b must be a permutation of 0..n-1, and with opts non-NULL (and n within the limit)
 * the host's permutation for opts and seed, bit for bit. */
int bench_check_permutation(bench_dev *d, uint64_t n, const clperm_shuffle_opts *opts, uint64_t seed,
                            bench_verify verify, char *err, size_t errcap);
/* The tile sort or partition of `want` (the input, sorted here by the host) against buffer a. */
int bench_check_tile(bench_dev *d, uint32_t *want, uint64_t n, uint64_t segment, unsigned bits,
                     clperm_tile_sort algorithm, char *err, size_t errcap);
int bench_check_rng_fill(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, uint64_t seed, char *err,
                         size_t errcap);
/* The device-wide or segmented sort (segs NULL: device-wide) of req against the host's sort of
 * its input: the host's keys, values (NULL without) and offsets (with segs). */
int bench_check_sort(bench_dev *d, const clperm_sort_request *req, const clperm_segments *segs, const void *keys,
                     const void *values, const void *offsets, char *err, size_t errcap);
/* Whether `verify` checks a tile, device-wide or segmented sort (kinds BENCH_KIND_TILE,
 * BENCH_KIND_SORT, BENCH_KIND_SORT_SEGMENTED), an offline permutation (BENCH_KIND_PERMUTE), both up to
 * 2^24 items, or a fill (any other kind) of n. */
int bench_check_covers(bench_verify verify, int kind, uint64_t n);

/* ---- runners.c: clperm's operations --------------------------------------------------------- */

/* Each returns the median seconds of one run, or a negative value with err filled; extra_bytes
 * (may be NULL) receives the device memory the operation allocated beyond input and output.
 * op: "scan_exclusive", "scan_inclusive" or "reduce_sum"; algorithm 1 or 2 (0: the default). */
double bench_scan(bench_dev *d, const char *op, clperm_type type, int algorithm, uint64_t n, const bench_timing *t,
                  bench_verify verify, uint64_t *extra_bytes, char *err, size_t errcap);
/* Shuffle of n 64-bit items at a fusion level (1..3, 0: the default) with a bijection. */
double bench_shuffle(bench_dev *d, int fusion, clperm_bijection bijection, uint64_t n, const bench_timing *t,
                     bench_verify verify, uint64_t *extra_bytes, char *err, size_t errcap);
/* Tile sort of n random u32 keys in segments, in place; with bits > 0 the partition by the low
 * `bits` bits. */
double bench_tile(bench_dev *d, clperm_tile_sort algorithm, uint64_t segment, unsigned bits, uint64_t n,
                  const bench_timing *t, bench_verify verify, char *err, size_t errcap);
/* Device-wide sort (clperm_sort) of n random keys of `key` (below 2^key_bits unless 0) with values
 * of `value` (0: none; flags BENCH_ARGSORT: made by the sort), in place, the input restored before
 * each run; with BENCH_SORT_INTO by clperm_sort_into from the input buffers; extra_bytes: the temp
 * buffers and the scratch. */
double bench_sort(bench_dev *d, clperm_key_type key, clperm_type value, unsigned key_bits, unsigned flags, uint64_t n,
                  const bench_timing *t, bench_verify verify, uint64_t *extra_bytes, char *err, size_t errcap);
/* Segmented sort (clperm_sort_segmented) of n random u32 keys (pattern: BENCH_KEYS_*), with random values
 * of type `value` (0: none), in segments of `segment` keys (0: a skewed mix of lengths, about
 * log-uniform from 1 to 2^17), the same way. */
double bench_sort_segmented(bench_dev *d, uint64_t segment, clperm_type value, int pattern, uint64_t n,
                            const bench_timing *t, bench_verify verify, uint64_t *extra_bytes, char *err,
                            size_t errcap);
/* A fill of n u32 by clperm_rng_fill. */
double bench_rng_fill(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, const bench_timing *t, bench_verify verify,
                      char *err, size_t errcap);
/* n numbers drawn and consumed inside a kernel through the device API (clperm_rng.h). */
double bench_rng_inkernel(bench_dev *d, const clperm_rng_spec *spec, uint64_t n, const bench_timing *t, char *err,
                          size_t errcap);
/* Numbers each work-item of an in-kernel row draws (xor-ed and written once). */
#define BENCH_RNG_DRAWS 256
/* Times kernel `name` of prog (released here) on `items` work-items in groups of wg, with buffer
 * a and then the ulong arguments args[0 .. nargs). */
double bench_time_kernel(bench_dev *d, cl_program prog, const char *name, const cl_ulong *args, int nargs,
                         uint64_t items, size_t wg, const bench_timing *t, char *err, size_t errcap);

/* ---- baselines.c ---------------------------------------------------------------------------- */

void bench_baselines_free(bench_baselines *b);
/* Shuffle of n items of es bytes (4, 8 or 16) by an algorithm (clperm_shuffle_algorithm; the
 * Feistel bijection, the default fusion), random input, checked against the host's shuffle of the
 * same bytes. */
double bench_shuffle_items(bench_dev *d, int algorithm, size_t es, uint64_t n, const bench_timing *t,
                           bench_verify verify, uint64_t *extra_bytes, char *err, size_t errcap);
/* The random gather of n 16-byte items through the index array, between buffers of its own. */
double bench_gather_16(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap);
/* Shuffles of n 64-bit items: dart throwing into a 2n table, and a sort by random 64-bit keys. */
double bench_dart_throwing(bench_dev *d, uint64_t n, const bench_timing *t, bench_verify verify, uint64_t *extra_bytes,
                           char *err, size_t errcap);
double bench_sort_shuffle(bench_dev *d, uint64_t n, const bench_timing *t, bench_verify verify, uint64_t *extra_bytes,
                          char *err, size_t errcap);
/* Random123's Philox4x32-10: a fill of n u32 (checked against the host's as `verify` says), and
 * n numbers drawn in a kernel. Negative with err "built without Random123" when the build did
 * not find it: bench_have_philox() says which. */
double bench_philox_fill(bench_dev *d, uint64_t n, const bench_timing *t, bench_verify verify, char *err,
                         size_t errcap);
double bench_philox_inkernel(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap);
int bench_have_philox(void);
/* Boost.Compute's sort of n random u32 keys, exclusive scan of u32 items or random_shuffle of u64
 * items (op "sort", "scan_exclusive" or "shuffle") on the same device and context:
 * bench/bc_peer.cpp, built in when CMake finds a C++ compiler and Boost's headers (libboost-dev);
 * bench_have_boost_compute() says whether it was. */
double bench_boost_compute(bench_dev *d, const char *op, uint64_t n, const bench_timing *t, char *err,
                           size_t errcap);
int bench_have_boost_compute(void);

/* ---- host.c --------------------------------------------------------------------------------- */

/* Single-thread host references on n items; the median seconds, negative when out of memory. */
double bench_host_scan(uint64_t n, const bench_timing *t);
double bench_host_fisher_yates(uint64_t n, const bench_timing *t);
double bench_host_xoshiro(uint64_t n, const bench_timing *t);
/* qsort and an LSD radix sort of the n random u32 keys of the sort rows; negative also when the
 * result is not sorted. */
double bench_host_qsort(uint64_t n, const bench_timing *t);
double bench_host_radix(uint64_t n, const bench_timing *t);
/* The sort rows' random keys and values: `bytes` (a multiple of 4) from one of clperm's
 * generators on the host, the same for the device's rows and the host's peers; 0 on success. */
#define BENCH_SORT_SEED 0x5eed0009u
int bench_host_random(void *dst, size_t bytes, uint64_t seed);

/* ---- cases.c -------------------------------------------------------------------------------- */

typedef enum bench_kind {
    BENCH_KIND_COPY,
    BENCH_KIND_GATHER,
    BENCH_KIND_SCAN,
    BENCH_KIND_SHUFFLE,
    BENCH_KIND_SHUFFLE_ITEMS,
    BENCH_KIND_DART,
    BENCH_KIND_SORT_SHUFFLE,
    BENCH_KIND_TILE,
    BENCH_KIND_SORT,
    BENCH_KIND_SORT_SEGMENTED,
    BENCH_KIND_BOOST,
    BENCH_KIND_RNG_FILL,
    BENCH_KIND_RNG_INKERNEL,
    BENCH_KIND_PHILOX_FILL,
    BENCH_KIND_PHILOX_INKERNEL,
    BENCH_KIND_HOST_SCAN,
    BENCH_KIND_HOST_FISHER_YATES,
    BENCH_KIND_HOST_XOSHIRO,
    BENCH_KIND_HOST_QSORT,
    BENCH_KIND_HOST_RADIX,
    BENCH_KIND_PERMUTE,
    BENCH_KIND_PERMUTE_PLAN
} bench_kind;

typedef enum bench_bound { BENCH_BOUND_NONE, BENCH_BOUND_COPY, BENCH_BOUND_GATHER } bench_bound;

/* Flags of a case. */
#define BENCH_PER_SEGMENT 1u /* a tile case: one row per segment size, variant "name-segment" */
#define BENCH_LAST_SIZE 2u   /* runs at the last size only (each run builds a program)        */
#define BENCH_HOST 4u        /* a host reference: runs once per size, not per device          */
#define BENCH_PROGRESS 8u    /* needs work-groups that make forward progress (look-back)      */
#define BENCH_RANDOM123 16u  /* needs Random123 (librandom123-dev): a skip in builds without  */
#define BENCH_BOOST 32u      /* needs Boost.Compute (libboost-dev, a C++ compiler)            */
#define BENCH_TABLE2 64u     /* an offline permutation of the paper's Table 2 (--table2)      */
#define BENCH_ARGSORT 128u   /* a device-wide sort whose values are made by it (argsort)      */
#define BENCH_SORT_INTO 256u /* a device-wide sort out of place (clperm_sort_into)            */

/* Keys of the segmented sorts (bench_case.keys): uniform over 32 bits; in threes that share all
 * but their low 8 bits; two clusters 2^31 apart, each over its low 10 bits (the register
 * network's pairs run slowest on the last two: docs/performance.md). */
enum { BENCH_KEYS_UNIFORM = 0, BENCH_KEYS_THREES, BENCH_KEYS_SPLIT };

/* The offline permutations' algorithms (bench_case.algorithm) and permutations (.perm). */
enum { BENCH_PERMUTE_D = 1, BENCH_PERMUTE_S, BENCH_PERMUTE_SCHEDULED, BENCH_PERMUTE_SPECIAL };
enum {
    BENCH_PERM_IDENTITY,
    BENCH_PERM_RANDOM,
    BENCH_PERM_TRANSPOSE,
    BENCH_PERM_SHUFFLE,
    BENCH_PERM_BIT_REVERSAL,
    BENCH_PERM_KINDS
};

/* One measured variant of an operation. `ops` is the name --ops selects it by; op, variant and
 * type name its rows (these names are what earlier figures were published under). */
typedef struct bench_case {
    const char *ops, *family, *op, *variant, *type;
    bench_kind kind;
    bench_bound bound;
    double bytes_per_item; /* bytes read and written per item, for GB/s and "of copy" */
    /* Named in the table: */
    unsigned flags;
    int algorithm;                /* scan: 1 reduce-then-scan, 2 look-back, 0 default;
                                     permute: BENCH_PERMUTE_*                               */
    int fusion;                   /* shuffle: 1..3; permute: the plan's passes (0 default) */
    clperm_bijection bijection;   /* shuffle                                                 */
    clperm_tile_sort tile;        /* tile sorts and partitions                               */
    unsigned bits;                /* partitions: label bits; device-wide sorts: keys below
                                     2^bits (0: keys of every bit)                           */
    clperm_rng_family rng_family; /* generators: family and k (0: the device's default)     */
    uint32_t rng_k;
    clperm_rng_scramble rng_scramble; /* generators: the output scrambler (variant suffix -x) */
    clperm_key_type key;              /* device-wide sorts: the keys                          */
    clperm_type value;                /* and the values (0: keys only)                         */
    int perm;                         /* permute: the permutation, BENCH_PERM_*              */
    int keys;                         /* segmented sorts: BENCH_KEYS_*                        */
} bench_case;

extern const bench_case bench_cases[];
extern const size_t bench_ncases;

/* A family's line in the default run: its case (the first of `variants` the device runs), its
 * peer (the first of `peers` this build and run can measure, same op and segment), and its size
 * on CPUs and on other devices. Variant "default" of an rng case is the device's default
 * generator (clperm_rng_default). */
typedef struct bench_headline {
    const char *family, *op;
    const char *variants[3];
    const char *peers[3];      /* on CPUs: the first that runs */
    const char *gpu_peers[3];  /* on other devices: alternatives on the same device */
    uint64_t segment;
    uint64_t n_cpu, n_other;
    const char *about;         /* what the row measures, for --help */
    const char *peer_about[2]; /* what its peers are, on CPUs and on other devices */
} bench_headline;

extern const bench_headline bench_headlines[];

/* The median seconds of case c at size n (and segment) on device d, or on the host (d NULL for
 * the host's cases), checked as `verify` says; negative with err filled when it fails. */
double bench_measure(bench_dev *d, const bench_case *c, uint64_t n, uint64_t segment, const bench_timing *t,
                     bench_verify verify, uint64_t *extra, char *err, size_t errcap);
extern const size_t bench_nheadlines;

/* Bytes of an item of a case's type: "u64" 8, "16B" 16, else 4. */
int bench_type_bytes(const char *type);
/* The case with this op and variant (a tile variant without its segment), or NULL. */
const bench_case *bench_case_find(const char *op, const char *variant);
/* The rng variant name of a spec: "three-k32"; "philox4x32-10" for the Philox peer. */
void bench_rng_variant(const clperm_rng_spec *spec, char *buf, size_t cap);
/* The family a row belongs to, from its op (for rows written before rows named their family). */
const char *bench_family_of(const char *op);
/* Rank of a family in the headline order (unknown families after, in order of appearance). */
int bench_family_rank(const char *family);
/* Sorts n items of `size` bytes (pointers, at most 16 bytes) into the headline order of their
 * families (stable; others after, the bounds last), family() reading an item's from a pointer to
 * it: bench_family_of_name for an array of family names, bench_family_of_row for one of rows. */
void bench_sort_by_family(void *items, int n, size_t size, const char *(*family)(const void *item));
const char *bench_family_of_name(const void *item);
const char *bench_family_of_row(const void *item);
/* Bound kind by name and back: "copy", "gather", "". */
const char *bench_bound_name(bench_bound b);

/* ---- rows.c --------------------------------------------------------------------------------- */

typedef struct bench_row {
    char family[16], op[32], variant[40], type[8];
    char platform[128], device[128], driver[128];
    uint64_t n;
    int elem_bytes;
    double seconds; /* median */
    double items_per_s, bytes_per_s;
    double copy_items_per_s, copy_bytes_per_s, gather_items_per_s;
    uint64_t extra_bytes; /* device memory the operation allocated beyond input and output */
    char bound[8];        /* "copy", "gather" or "": what of_bound compares with */
    double of_bound;      /* bytes/s over the copy's, or items/s over the gather's; 0: none */
    char peer[40];        /* headline rows: the peer's variant, and its items/s */
    double peer_items_per_s;
    double same_copy_bytes_per_s;   /* the copy of the row's own bytes (permutations of items under
                                     * 8 bytes, the default run's rows) */
    double same_gather_items_per_s; /* the default run: the gather of items of the row's size, where
                                     * it is not 8 bytes */
    double min_seconds, max_seconds; /* the fastest and slowest of the timed runs; 0: not known */
    int headline;                    /* a headline row of the default run */
    char date[24];                   /* when the run began, UTC: "2026-11-27 12:40" */
    char command[256];               /* the command that measured it */
    int file; /* clperm report: the input the row came from */
} bench_row;

/* A row's rate over its bound's for the same bytes (a copy of as many bytes, or a gather of items
 * of its size) where the run measured that, else over the bound at 8-byte items; 0 without one. */
double bench_row_of_same_bytes(const bench_row *r);
/* "-1.2/+3.4%": the fastest and slowest timed run against the median; "-" when not known. */
const char *bench_row_spread(const bench_row *r, char *buf, size_t cap);
/* Fills the bound columns from the copy and gather rates at the row's size, and of_bound. */
void bench_row_bounds(bench_row *r, bench_bound bound, double copy_items_per_s, double copy_bytes_per_s,
                      double gather_items_per_s);
void bench_row_json(FILE *f, const bench_row *r);
void bench_row_table_header(FILE *f);
void bench_row_table(FILE *f, const bench_row *r);
/* Reads one JSON line into r; 0 on success, -1 (with err) when it is not a row. */
int bench_row_parse(const char *line, bench_row *r, char *err, size_t errcap);
/* "2^22", "2^24+1" or the number. */
const char *bench_size_name(uint64_t n, char *buf, size_t cap);
/* items/s with an SI prefix: "2.31 G", "47.4 M". */
const char *bench_rate_name(double items_per_s, char *buf, size_t cap);

/* ---- permute.c: the offline permutations ---------------------------------------------------- */

void bench_permute_free(bench_permute_state *s);
/* Whether device d runs permute case c at n: the shuffle and the bit reversal at powers of two,
 * the other pass structure than the device's default (scheduled5, scheduled3, build5, build3)
 * only, and with table2_max > 0 Table 2's cases and sizes. */
int bench_permute_runs(bench_dev *d, const bench_case *c, uint64_t n, uint64_t table2_max);
/* Permute case c on n items (the permutation's plan made before the timed runs and kept); the
 * median seconds or negative with err; extra_bytes receives the plan's device bytes. */
double bench_permute(bench_dev *d, const bench_case *c, uint64_t n, const bench_timing *t, bench_verify verify,
                     uint64_t *extra_bytes, char *err, size_t errcap);
/* The construction time of the plan of case c's permutation on n items (made on the host, as
 * clperm_perm_plan_info.seconds_total has it); extra_bytes: its device bytes for 4-byte items. */
double bench_permute_plan(bench_dev *d, const bench_case *c, uint64_t n, uint64_t *extra_bytes, char *err,
                          size_t errcap);
/* The permute rows of a --table2 run in the layout of the paper's Table 2 (milliseconds): 32-bit
 * items at sqrt(n) = 512 .. table2_max, 64-bit at 256 .. table2_max / 2, with the bounds. */
void bench_permute_table2(FILE *f, const bench_row *rows, size_t nrows, uint64_t table2_max);

/* ---- options.c ------------------------------------------------------------------------------ */

typedef struct bench_opts {
    const char *devices[BENCH_MAX_DEVICES];
    int ndevices;
    uint64_t sizes[BENCH_MAX_SIZES];
    int nsizes;
    uint64_t segments[BENCH_MAX_SIZES];
    int nsegments;
    uint64_t headline_size; /* 0: the table's sizes */
    bench_timing timing;
    int json, host, detailed;
    bench_verify verify;
    const char *plot_dir;
    const char *ops;
    const char *variants; /* --variants: prefixes of the variant names to run, NULL: all */
    bench_set sets[BENCH_MAX_SETS];
    int nsets;
    int dist, dist_baseline; /* --dist, and its single-rank rows (--no-baseline clears it) */
    int table2;          /* --table2: the offline permutations as the paper's Table 2 */
    uint64_t table2_max; /* its largest sqrt(n) of 32-bit items */
} bench_opts;

/* 0 on success, 1 when --help was answered, -1 on a bad option (message on stderr). */
int bench_parse_args(int argc, char **argv, bench_opts *o);
int bench_op_selected(const bench_opts *o, const char *ops);
/* Whether --variants selects a case of an operation (the bounds, which have none, always run). */
int bench_variant_selected(const bench_opts *o, const bench_case *c);
/* Reads "2^K", "2^K+C", "2^K-C" or a number. */
int bench_parse_size(const char *s, uint64_t *out);

/* ---- progress.c ----------------------------------------------------------------------------- */

/* On a terminal a line redrawn in place; otherwise one line per step. */
void bench_progress_begin(int total);
void bench_progress_step(const char *fmt, ...);
/* Counts a step that will not run (a skip found only on the device). */
void bench_progress_skip(void);
/* A message on its own line (a failure, a skip). */
void bench_progress_note(const char *fmt, ...);
/* Around output to stdout, so a terminal shows the rows and then the progress line again. */
void bench_progress_hide(void);
void bench_progress_show(void);
void bench_progress_end(void);

/* ---- plot.c --------------------------------------------------------------------------------- */

/* PNG figures into dir: one per family, op, variant and type, items/s against n, one line per
 * device (the same platform, device, driver and input file: files[row.file] names it when
 * nfiles > 1) and the device's bound dashed beside it. 0 on success. */
int bench_plot(const char *dir, const bench_row *rows, size_t nrows, const char *const *files, int nfiles, char *err,
               size_t errcap);
/* Bar charts of the headline rows (those of the default run) into dir: with one device (and one
 * file), headline.png, each family's row and its peer as % of the row's bound of the same bytes;
 * with several, headline_devices.png, each family's row per device as % of its own bound. The
 * number of charts written (0: no headline rows), or -1 with err. */
int bench_plot_bars(const char *dir, const bench_row *rows, size_t nrows, const char *const *files, int nfiles,
                    char *err, size_t errcap);

/* ---- entry points --------------------------------------------------------------------------- */

int bench_main(int argc, char **argv);
/* clperm bench --dist (dist.c, built with MPI only): under mpirun, one rank per device. */
int bench_dist_main(const bench_opts *o);
/* Its operations, by the names --ops selects them with: "shuffle", "sort". */
#define BENCH_DIST_OPS 3
extern const char *const bench_dist_ops[BENCH_DIST_OPS];
int report_main(int argc, char **argv);
/* clperm tune (tune.c). */
int tune_main(int argc, char **argv);

#endif
