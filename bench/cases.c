/* Every case `clperm bench` measures, in the order it measures them, and the headline table of
 * the default run: one line per family. A new family adds its cases here and one headline line. */
#include <string.h>

#include "bench.h"

#define COPY BENCH_BOUND_COPY
#define GATHER BENCH_BOUND_GATHER
#define NONE BENCH_BOUND_NONE

/* The shipped generators: one fill case per table (family and k). */
#define RNG(kind, op, bound, bytes, fl, fam, name)                                                    \
    {"rng", "rng", op, name "-k8", "u32", kind, bound, bytes, .flags = fl, .rng_family = fam, .rng_k = 8},      \
        {"rng", "rng", op, name "-k16", "u32", kind, bound, bytes, .flags = fl, .rng_family = fam, .rng_k = 16}, \
        {"rng", "rng", op, name "-k32", "u32", kind, bound, bytes, .flags = fl, .rng_family = fam, .rng_k = 32}, \
        {"rng", "rng", op, name "-k64", "u32", kind, bound, bytes, .flags = fl, .rng_family = fam, .rng_k = 64}
/* The three-input family again with the scrambled output (CLPERM_RNG_SCRAMBLE_STARSTAR), so that
 * the scrambler's cost reads off neighbouring rows. */
#define RNG_X1(kind, op, bound, bytes, fl, k)                                                          \
    {"rng", "rng", op, "three-k" #k "-x", "u32", kind, bound, bytes, .flags = fl,                      \
     .rng_family = CLPERM_RNG_FAMILY_THREE, .rng_k = k, .rng_scramble = CLPERM_RNG_SCRAMBLE_STARSTAR}
#define RNG_X(kind, op, bound, bytes, fl)                                                   \
    RNG_X1(kind, op, bound, bytes, fl, 8), RNG_X1(kind, op, bound, bytes, fl, 16),          \
        RNG_X1(kind, op, bound, bytes, fl, 32), RNG_X1(kind, op, bound, bytes, fl, 64)
#define RNG_ALL(kind, op, bound, bytes, fl)                                      \
    RNG(kind, op, bound, bytes, fl, CLPERM_RNG_FAMILY_CORRELATED, "correlated"), \
        RNG(kind, op, bound, bytes, fl, CLPERM_RNG_FAMILY_THREE, "three"),       \
        RNG(kind, op, bound, bytes, fl, CLPERM_RNG_FAMILY_SLOWMEM, "slowmem"),   \
        RNG(kind, op, bound, bytes, fl, CLPERM_RNG_FAMILY_ITERATED, "iterated"), \
        RNG(kind, op, bound, bytes, fl, CLPERM_RNG_FAMILY_BUFFERED, "buffered"), RNG_X(kind, op, bound, bytes, fl)

#define SHUFFLE(name, f, b)                                                                        \
    {"shuffle", "shuffle", "shuffle", name, "u64", BENCH_KIND_SHUFFLE, GATHER, 16, .fusion = f, .bijection = b, \
     .flags = (f) == CLPERM_FUSION_LOOKBACK ? BENCH_PROGRESS : 0u}
#define SHUFFLE_ITEMS(name, alg, type, es)                                                         \
    {"shuffle", "shuffle", "shuffle", name, type, BENCH_KIND_SHUFFLE_ITEMS, GATHER, 2 * (es), .flags = 0, \
     .algorithm = alg}
/* Offline permutations: per permutation the construction of its plans (the device's default pass
 * structure, then the other one), then per item size the D-designated (scatter through p),
 * S-designated (gather through p^-1) and scheduled permutations (the default passes, then the
 * other: scheduled5 or scheduled3) and, for the regular permutations, the specialised kernel. A
 * permutation's cases stand together: permute.c makes each permutation and plan once per size. */
#define PERMUTE(name, alg, p, f, type, es, bound, fl)                                                   \
    {"permute", "permute", "permute", name, type, BENCH_KIND_PERMUTE, bound, 2 * es, .flags = fl,       \
     .algorithm = alg, .fusion = f, .perm = p}
#define PERMUTE_PLANS(pn, p)                                                                            \
    {"permute", "permute", "permute_plan", "build-" pn, "u32", BENCH_KIND_PERMUTE_PLAN, NONE, 0,       \
     .flags = BENCH_TABLE2, .perm = p},                                                                 \
        {"permute", "permute", "permute_plan", "build5-" pn, "u32", BENCH_KIND_PERMUTE_PLAN, NONE, 0,   \
         .flags = 0, .fusion = 1, .perm = p},                                                           \
        {"permute", "permute", "permute_plan", "build3-" pn, "u32", BENCH_KIND_PERMUTE_PLAN, NONE, 0,   \
         .flags = 0, .fusion = 2, .perm = p}
#define PERMUTE_ITEMS(pn, p, type, es, t2)                                                              \
    PERMUTE("d-designated-" pn "-" #es "B", BENCH_PERMUTE_D, p, 0, type, es, GATHER, t2),               \
        PERMUTE("s-designated-" pn "-" #es "B", BENCH_PERMUTE_S, p, 0, type, es, GATHER, t2),           \
        PERMUTE("scheduled-" pn "-" #es "B", BENCH_PERMUTE_SCHEDULED, p, 0, type, es, GATHER, t2),      \
        PERMUTE("scheduled5-" pn "-" #es "B", BENCH_PERMUTE_SCHEDULED, p, 1, type, es, GATHER, 0),      \
        PERMUTE("scheduled3-" pn "-" #es "B", BENCH_PERMUTE_SCHEDULED, p, 2, type, es, GATHER, 0)
#define PERMUTE_SPECIAL(pn, p, type, es, t2) PERMUTE(pn "-" #es "B", BENCH_PERMUTE_SPECIAL, p, 0, type, es, COPY, t2)
#define PERMUTE_ANY(pn, p)                                                                              \
    PERMUTE_PLANS(pn, p), PERMUTE_ITEMS(pn, p, "u32", 4, BENCH_TABLE2),                                  \
        PERMUTE_ITEMS(pn, p, "u64", 8, BENCH_TABLE2), PERMUTE_ITEMS(pn, p, "16B", 16, 0)
#define PERMUTE_REGULAR(pn, p)                                                                          \
    PERMUTE_PLANS(pn, p), PERMUTE_ITEMS(pn, p, "u32", 4, BENCH_TABLE2),                                  \
        PERMUTE_SPECIAL(pn, p, "u32", 4, BENCH_TABLE2), PERMUTE_ITEMS(pn, p, "u64", 8, BENCH_TABLE2),   \
        PERMUTE_SPECIAL(pn, p, "u64", 8, BENCH_TABLE2), PERMUTE_ITEMS(pn, p, "16B", 16, 0),             \
        PERMUTE_SPECIAL(pn, p, "16B", 16, 0)

/* Bytes per item: a scan reads and writes an item, a reduction reads it; a shuffle reads and
 * writes 8 bytes; a tile sort reads and writes its u32 key (8 bytes, as published); a device-wide
 * or segmented sort reads and writes its key and value once; a fill writes 4 bytes per number; an
 * offline permutation reads and writes its item (the index array not counted). The copy moves 16
 * bytes per 64-bit item, the gather 20 (with the index). The families' names: scan, shuffle,
 * tile_sort, partition, sort, rng, permute. */
const bench_case bench_cases[] = {
    {NULL, "bound", "copy", "bound", "u64", BENCH_KIND_COPY, NONE, 16, .flags = 0},
    {NULL, "bound", "gather", "bound", "u64", BENCH_KIND_GATHER, NONE, 20, .flags = 0},

    {"scan_exclusive", "scan", "scan_exclusive", "lookback", "u32", BENCH_KIND_SCAN, COPY, 8, .flags = BENCH_PROGRESS,
     .algorithm = 2},
    {"scan_exclusive", "scan", "scan_exclusive", "reduce-then-scan", "u32", BENCH_KIND_SCAN, COPY, 8, .flags = 0,
     .algorithm = 1},
    {"scan_exclusive", "scan", "scan_exclusive", "lookback", "u64", BENCH_KIND_SCAN, COPY, 16, .flags = BENCH_PROGRESS,
     .algorithm = 2},
    {"scan_exclusive", "scan", "scan_exclusive", "reduce-then-scan", "u64", BENCH_KIND_SCAN, COPY, 16, .flags = 0,
     .algorithm = 1},
    {"scan_exclusive", "scan", "scan_exclusive", "boost-compute", "u32", BENCH_KIND_BOOST, COPY, 8,
     .flags = BENCH_BOOST},
    {"scan_inclusive", "scan", "scan_inclusive", "default", "u32", BENCH_KIND_SCAN, COPY, 8, .flags = 0},
    {"reduce_sum", "scan", "reduce_sum", "default", "u32", BENCH_KIND_SCAN, COPY, 4, .flags = 0},
    {"reduce_sum", "scan", "reduce_sum", "default", "u64", BENCH_KIND_SCAN, COPY, 8, .flags = 0},

    /* Fusion levels of the shuffling paper's Section 6: 3 single pass with look-back
     * (Bijective2), 2 two-pass scan (Bijective1), 1 separate passes (Bijective0). */
    SHUFFLE("bijective2-philox", 3, CLPERM_BIJECTION_PHILOX),
    SHUFFLE("bijective1-philox", 2, CLPERM_BIJECTION_PHILOX),
    SHUFFLE("bijective0-philox", 1, CLPERM_BIJECTION_PHILOX),
    SHUFFLE("bijective2-lcg", 3, CLPERM_BIJECTION_LCG),
    SHUFFLE("bijective1-lcg", 2, CLPERM_BIJECTION_LCG),
    SHUFFLE("bijective0-lcg", 1, CLPERM_BIJECTION_LCG),
    SHUFFLE("bijective2-feistel", 3, CLPERM_BIJECTION_FEISTEL),
    SHUFFLE("bijective1-feistel", 2, CLPERM_BIJECTION_FEISTEL),
    SHUFFLE("bijective0-feistel", 1, CLPERM_BIJECTION_FEISTEL),
    /* Items of 4, 8 and 16 bytes by each algorithm (the Feistel, the default fusion), each beside
     * the gather of items of its size. */
    SHUFFLE_ITEMS("bijective-4B", 1, "u32", 4),
    SHUFFLE_ITEMS("bijective-8B", 1, "u64", 8),
    SHUFFLE_ITEMS("bijective-16B", 1, "16B", 16),
    SHUFFLE_ITEMS("buckets-4B", 2, "u32", 4),
    SHUFFLE_ITEMS("buckets-8B", 2, "u64", 8),
    SHUFFLE_ITEMS("buckets-16B", 2, "16B", 16),
    {"shuffle", "shuffle", "shuffle", "dart-throwing", "u64", BENCH_KIND_DART, GATHER, 16, .flags = 0},
    /* Random 64-bit keys sorted with the items by clperm_sort. */
    {"shuffle", "shuffle", "shuffle", "sort", "u64", BENCH_KIND_SORT_SHUFFLE, GATHER, 16, .flags = 0},
    /* Boost.Compute's random_shuffle: a permutation drawn on the host, scattered on the device. */
    {"shuffle", "shuffle", "shuffle", "boost-compute", "u64", BENCH_KIND_BOOST, GATHER, 16, .flags = BENCH_BOOST},

    /* Tile sorts and partitions of random u32 keys, one row per segment size. */
    {"sort_segments", "tile_sort", "sort_segments", "shear", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_SORT_SHEAR},
    {"sort_segments", "tile_sort", "sort_segments", "bitonic", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_SORT_BITONIC},
    {"sort_segments", "tile_sort", "sort_segments", "bitonic-padded", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_SORT_BITONIC_PADDED},
    {"sort_segments", "tile_sort", "sort_segments", "as", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_SORT_AS},
    {"sort_segments", "tile_sort", "sort_segments", "as-wide", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_SORT_AS_WIDE},
    {"partition", "partition", "partition", "shear-8bit", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_SORT_SHEAR, .bits = 8},
    {"partition", "partition", "partition", "as-8bit", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_SORT_AS, .bits = 8},
    {"partition", "partition", "partition", "shear-3bit", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_SORT_SHEAR, .bits = 3},
    {"partition", "partition", "partition", "bitonic-3bit", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_SORT_BITONIC, .bits = 3},
    {"partition", "partition", "partition", "counting-3bit", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_PARTITION_COUNTING, .bits = 3},
    {"partition", "partition", "partition", "counting-4bit", "u32", BENCH_KIND_TILE, COPY, 8,
     .flags = BENCH_PER_SEGMENT, .tile = CLPERM_TILE_PARTITION_COUNTING, .bits = 4},

    /* Device-wide sorts of random keys (and values), in place; Boost.Compute's sort of u32 keys on
     * the same device. Then segmented sorts of u32 keys: segments of each --segments size (keys
     * alone and with u32 values; with u32 values, keys in threes that share all but their low 8
     * bits and keys in two clusters 2^31 apart, BENCH_KEYS_*), and a skewed mix of lengths (about
     * log-uniform from 1 to 2^17). */
    {"sort", "sort", "sort", "u32", "u32", BENCH_KIND_SORT, COPY, 8, .flags = 0, .key = CLPERM_KEY_U32},
    {"sort", "sort", "sort", "u32-u32", "u32", BENCH_KIND_SORT, COPY, 16, .flags = 0, .key = CLPERM_KEY_U32,
     .value = CLPERM_TYPE_U32},
    {"sort", "sort", "sort", "u64", "u64", BENCH_KIND_SORT, COPY, 16, .flags = 0, .key = CLPERM_KEY_U64},
    {"sort", "sort", "sort", "u64-u64", "u64", BENCH_KIND_SORT, COPY, 32, .flags = 0, .key = CLPERM_KEY_U64,
     .value = CLPERM_TYPE_U64},
    {"sort", "sort", "sort", "f32", "f32", BENCH_KIND_SORT, COPY, 8, .flags = 0, .key = CLPERM_KEY_F32},
    {"sort", "sort", "sort", "u32-20bit", "u32", BENCH_KIND_SORT, COPY, 8, .flags = 0, .key = CLPERM_KEY_U32,
     .bits = 20},
    /* u64 keys below 2^32 (positions kept as u64): four of eight passes skipped. */
    {"sort", "sort", "sort", "u64-32bit", "u64", BENCH_KIND_SORT, COPY, 16, .flags = 0, .key = CLPERM_KEY_U64,
     .bits = 32},
    /* Out of place (clperm_sort_into), as CUB's SortKeys and SortPairs are called: keys below
     * 2^20 take three passes, which in place end with a copy back. */
    {"sort", "sort", "sort", "into-u32", "u32", BENCH_KIND_SORT, COPY, 8, .flags = BENCH_SORT_INTO,
     .key = CLPERM_KEY_U32},
    {"sort", "sort", "sort", "into-u32-20bit", "u32", BENCH_KIND_SORT, COPY, 8, .flags = BENCH_SORT_INTO,
     .key = CLPERM_KEY_U32, .bits = 20},
    {"sort", "sort", "sort", "into-u32-u32", "u32", BENCH_KIND_SORT, COPY, 16, .flags = BENCH_SORT_INTO,
     .key = CLPERM_KEY_U32, .value = CLPERM_TYPE_U32},
    {"sort", "sort", "sort", "into-u64", "u64", BENCH_KIND_SORT, COPY, 16, .flags = BENCH_SORT_INTO,
     .key = CLPERM_KEY_U64},
    {"sort", "sort", "sort", "u32-argsort", "u32", BENCH_KIND_SORT, COPY, 16, .flags = BENCH_ARGSORT,
     .key = CLPERM_KEY_U32, .value = CLPERM_TYPE_U32},
    {"sort", "sort", "sort", "u16", "u16", BENCH_KIND_SORT, COPY, 4, .flags = 0, .key = CLPERM_KEY_U16},
    {"sort", "sort", "sort", "u16-u32", "u16", BENCH_KIND_SORT, COPY, 12, .flags = 0, .key = CLPERM_KEY_U16,
     .value = CLPERM_TYPE_U32},
    {"sort", "sort", "sort", "f16", "f16", BENCH_KIND_SORT, COPY, 4, .flags = 0, .key = CLPERM_KEY_F16},
    {"sort", "sort", "sort", "u8", "u8", BENCH_KIND_SORT, COPY, 2, .flags = 0, .key = CLPERM_KEY_U8},
    {"sort", "sort", "sort", "boost-compute", "u32", BENCH_KIND_BOOST, COPY, 8, .flags = BENCH_BOOST},
    {"sort_segmented", "sort", "sort_segmented", "fixed", "u32", BENCH_KIND_SORT_SEGMENTED, COPY, 8,
     .flags = BENCH_PER_SEGMENT},
    {"sort_segmented", "sort", "sort_segmented", "fixed-pairs", "u32", BENCH_KIND_SORT_SEGMENTED, COPY, 16,
     .flags = BENCH_PER_SEGMENT, .value = CLPERM_TYPE_U32},
    {"sort_segmented", "sort", "sort_segmented", "threes-pairs", "u32", BENCH_KIND_SORT_SEGMENTED, COPY, 16,
     .flags = BENCH_PER_SEGMENT, .value = CLPERM_TYPE_U32, .keys = BENCH_KEYS_THREES},
    {"sort_segmented", "sort", "sort_segmented", "split-pairs", "u32", BENCH_KIND_SORT_SEGMENTED, COPY, 16,
     .flags = BENCH_PER_SEGMENT, .value = CLPERM_TYPE_U32, .keys = BENCH_KEYS_SPLIT},
    {"sort_segmented", "sort", "sort_segmented", "skewed", "u32", BENCH_KIND_SORT_SEGMENTED, COPY, 8, .flags = 0},

    /* Generators: fills of u32 (4 bytes written per number), then at the last size the rates of
     * numbers drawn inside a kernel (nothing written per number: no bound). */
    {"rng", "rng", "rng_fill", "philox4x32-10", "u32", BENCH_KIND_PHILOX_FILL, COPY, 4, .flags = BENCH_RANDOM123},
    RNG_ALL(BENCH_KIND_RNG_FILL, "rng_fill", COPY, 4, 0),
    {"rng", "rng", "rng_inkernel", "philox4x32-10", "u32", BENCH_KIND_PHILOX_INKERNEL, NONE, 0,
     .flags = BENCH_LAST_SIZE | BENCH_RANDOM123},
    RNG_ALL(BENCH_KIND_RNG_INKERNEL, "rng_inkernel", NONE, 0, BENCH_LAST_SIZE),

    /* Offline permutations of 4-, 8- and 16-byte items (type "16B"); conventional and scheduled
     * against the gather, the specialised kernels against the copy. */
    PERMUTE_ANY("identity", BENCH_PERM_IDENTITY),
    PERMUTE_ANY("random", BENCH_PERM_RANDOM),
    PERMUTE_REGULAR("transpose", BENCH_PERM_TRANSPOSE),
    PERMUTE_REGULAR("shuffle", BENCH_PERM_SHUFFLE),
    PERMUTE_REGULAR("bit-reversal", BENCH_PERM_BIT_REVERSAL),

    /* Single-thread host references, after every device. */
    {"scan_exclusive", "scan", "scan_exclusive", "host-serial", "u32", BENCH_KIND_HOST_SCAN, NONE, 8,
     .flags = BENCH_HOST},
    {"shuffle", "shuffle", "shuffle", "host-fisher-yates", "u64", BENCH_KIND_HOST_FISHER_YATES, NONE, 16,
     .flags = BENCH_HOST},
    {"rng", "rng", "rng_fill", "host-xoshiro256**", "u32", BENCH_KIND_HOST_XOSHIRO, NONE, 4, .flags = BENCH_HOST},
    {"sort", "sort", "sort", "qsort", "u32", BENCH_KIND_HOST_QSORT, NONE, 8, .flags = BENCH_HOST},
    {"sort", "sort", "sort", "host-radix", "u32", BENCH_KIND_HOST_RADIX, NONE, 8, .flags = BENCH_HOST},
};
const size_t bench_ncases = sizeof bench_cases / sizeof bench_cases[0];

/* The default run. Sizes: on CPUs 2^22 items, and 2^20 for the shuffle, the tile sorts and the
 * scheduled permutation (its plan made on the host first), the slowest there, so that each row's
 * runs take about a second on the 2-core PoCL 3.1 machine and the whole run seconds with warm
 * caches; on other devices 2^26, enough to fill a GPU, but 2^24 for the scheduled permutation,
 * whose plan for 2^26 items takes most of the run's time on the host. */
const bench_headline bench_headlines[] = {
    {"scan", "scan_exclusive", {"lookback", "reduce-then-scan"}, {"host-serial"}, {"boost-compute"}, 0,
     UINT64_C(1) << 22, UINT64_C(1) << 26, "exclusive scan of u32",
     {"a serial scan on the host", "Boost.Compute's exclusive_scan"}},
    {"shuffle", "shuffle", {"bijective2-feistel", "bijective1-feistel"}, {"host-fisher-yates"}, {"boost-compute"},
     0, UINT64_C(1) << 20, UINT64_C(1) << 26, "shuffle of u64 by a Feistel bijection",
     {"Fisher-Yates on the host", "Boost.Compute's random_shuffle (host draw, device scatter)"}},
    {"tile_sort", "sort_segments", {"shear"}, {"bitonic"}, {"bitonic"}, 512, UINT64_C(1) << 20, UINT64_C(1) << 26,
     "Shearsort of segments of 512 u32", {"a bitonic network on the device", "a bitonic network on the device"}},
    {"partition", "partition", {"counting-3bit"}, {"bitonic-3bit"}, {"bitonic-3bit"}, 512, UINT64_C(1) << 20,
     UINT64_C(1) << 26, "counting partition of segments of 512 u32 by 3 bits",
     {"a bitonic sort of the 3 bits on the device", "a bitonic sort of the 3 bits on the device"}},
    {"sort", "sort", {"u32"}, {"host-radix", "qsort"}, {"boost-compute"}, 0, UINT64_C(1) << 20, UINT64_C(1) << 26,
     "device-wide sort of u32 keys", {"an LSD radix sort on the host", "Boost.Compute's sort"}},
    {"rng", "rng_fill", {"default"}, {"philox4x32-10", "host-xoshiro256**"}, {"philox4x32-10"}, 0,
     UINT64_C(1) << 22, UINT64_C(1) << 26, "the default generator's fill of u32",
     {"Random123's Philox4x32-10 on the device", "Random123's Philox4x32-10 on the device"}},
    {"permute", "permute", {"scheduled-random-4B"}, {"s-designated-random-4B"}, {"s-designated-random-4B"}, 0,
     UINT64_C(1) << 20, UINT64_C(1) << 24, "scheduled permutation of u32, random",
     {"each work-item gathers its item through an index array (the paper's s-designated order)",
      "each work-item gathers its item through an index array (the paper's s-designated order)"}},
};
const size_t bench_nheadlines = sizeof bench_headlines / sizeof bench_headlines[0];

int bench_type_bytes(const char *type) {
    if (!strcmp(type, "u64")) return 8;
    if (!strcmp(type, "16B")) return 16;
    if (!strcmp(type, "u16") || !strcmp(type, "f16")) return 2;
    if (!strcmp(type, "u8")) return 1;
    return 4;
}

const bench_case *bench_case_find(const char *op, const char *variant) {
    for (size_t i = 0; i < bench_ncases; i++)
        if (!strcmp(bench_cases[i].op, op) && !strcmp(bench_cases[i].variant, variant)) return &bench_cases[i];
    return NULL;
}

void bench_rng_variant(const clperm_rng_spec *spec, char *buf, size_t cap) {
    const char *family = spec && spec->family ? clperm_rng_family_name(spec->family) : NULL;
    if (family)
        snprintf(buf, cap, "%s-k%u%s", family, spec->k, spec->scramble ? "-x" : "");
    else
        snprintf(buf, cap, "philox4x32-10");
}

const char *bench_family_of(const char *op) {
    for (size_t i = 0; i < bench_ncases; i++)
        if (!strcmp(bench_cases[i].op, op)) return bench_cases[i].family;
    return "";
}

int bench_family_rank(const char *family) {
    for (size_t i = 0; i < bench_nheadlines; i++)
        if (!strcmp(bench_headlines[i].family, family)) return (int)i;
    return !strcmp(family, "bound") ? (int)bench_nheadlines + 1 : (int)bench_nheadlines;
}

void bench_sort_by_family(void *items, int n, size_t size, const char *(*family)(const void *item)) {
    unsigned char *a = items, t[16];
    if (size > sizeof t) return;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            unsigned char *x = a + (size_t)j * size, *y = x - size;
            if (bench_family_rank(family(x)) >= bench_family_rank(family(y))) break;
            memcpy(t, x, size);
            memcpy(x, y, size);
            memcpy(y, t, size);
        }
}

const char *bench_family_of_name(const void *item) { return *(const char *const *)item; }
const char *bench_family_of_row(const void *item) { return (*(const bench_row *const *)item)->family; }

const char *bench_bound_name(bench_bound b) {
    return b == BENCH_BOUND_COPY ? "copy" : b == BENCH_BOUND_GATHER ? "gather" : "";
}
