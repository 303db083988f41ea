/* `clperm bench`: runs clperm's primitives on the selected devices and measures, in the same run
 * and at the same sizes, each device's copy and random-gather rates as the bounds every figure is
 * compared with. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define MAX_DEVICES 32
#define MAX_ROWS 4096

typedef struct bench_opts {
    const char *devices[MAX_DEVICES];
    int ndevices;
    uint64_t sizes[BENCH_MAX_SIZES];
    int nsizes;
    bench_timing timing;
    int json, verify, host;
    const char *plot_dir;
    const char *ops;
    bench_set sets[BENCH_MAX_SETS];
    int nsets;
    uint64_t segments[BENCH_MAX_SIZES];
    int nsegments;
} bench_opts;

/* A measured variant of an operation. */
typedef struct bench_case {
    const char *op;
    clperm_type type;
    int algorithm;
    const char *variant;
} bench_case;

static const bench_case cases[] = {
    {"scan_exclusive", CLPERM_TYPE_U32, 2, "lookback"},
    {"scan_exclusive", CLPERM_TYPE_U32, 1, "reduce-then-scan"},
    {"scan_exclusive", CLPERM_TYPE_U64, 2, "lookback"},
    {"scan_exclusive", CLPERM_TYPE_U64, 1, "reduce-then-scan"},
    {"scan_inclusive", CLPERM_TYPE_U32, 0, "default"},
    {"reduce_sum", CLPERM_TYPE_U32, 0, "default"},
    {"reduce_sum", CLPERM_TYPE_U64, 0, "default"},
};

/* Shuffle variants: clperm's at each fusion level (Section 6 of the shuffling paper) and bijection,
 * and the baselines. */
typedef struct shuffle_case {
    const char *variant;
    int kind; /* 0 clperm_shuffle, 1 dart throwing, 2 sort shuffle */
    int fusion;
    clperm_bijection bijection;
} shuffle_case;

static const shuffle_case shuffle_cases[] = {
    {"bijective2-philox", 0, 3, CLPERM_BIJECTION_PHILOX}, {"bijective1-philox", 0, 2, CLPERM_BIJECTION_PHILOX},
    {"bijective0-philox", 0, 1, CLPERM_BIJECTION_PHILOX}, {"bijective2-lcg", 0, 3, CLPERM_BIJECTION_LCG},
    {"bijective1-lcg", 0, 2, CLPERM_BIJECTION_LCG},       {"bijective0-lcg", 0, 1, CLPERM_BIJECTION_LCG},
    {"bijective2-feistel", 0, 3, CLPERM_BIJECTION_FEISTEL}, {"bijective1-feistel", 0, 2, CLPERM_BIJECTION_FEISTEL},
    {"bijective0-feistel", 0, 1, CLPERM_BIJECTION_FEISTEL},
    {"dart-throwing", 1, 0, 0},                           {"sort", 2, 0, 0},
};

static void usage(FILE *f) {
    fputs("usage: clperm bench [options]\n"
          "\n"
          "Runs clperm's primitives on every OpenCL device (or those chosen with --device) and\n"
          "prints the median time of repeated runs after warm-up, with each device's copy and\n"
          "random-gather rates (64-bit items) measured at the same sizes in the same run.\n"
          "Progress goes to stderr; results to stdout.\n"
          "\n"
          "options:\n"
          "  --device SEL      a device: index from `clperm devices`, or text in the platform or\n"
          "                    device name (\"NVIDIA\", \"Portable:pthread\"); repeatable. Default: all.\n"
          "  --sizes LIST      comma-separated sizes in items; 2^K and 2^K+C are understood.\n"
          "                    Default: 2^10,2^14,2^18,2^22,2^24,2^24+1.\n"
          "  --full            sizes 2^10 .. 2^28, every second power of two, and 2^28 itself.\n"
          "  --ops LIST        only these operations: scan_exclusive, scan_inclusive, reduce_sum,\n"
          "                    shuffle, sort_segments, partition, rng, sort, sort_segmented (copy\n"
          "                    and gather bounds always run).\n"
          "  --reps N          timed runs per figure (default 7); --warmup N runs before (default 2).\n"
          "  --set NAME=VALUE  set a tunable on every device: scan_algorithm, sg_impl, sg_width,\n"
          "                    scan_wg_size, scan_items, disk_cache, shuffle_kernel,\n"
          "                    shuffle_wg_size, shuffle_items, sort_width, sort_tiles,\n"
          "                    rng_kernel, sort_algorithm, sort_kernel, sort_rank,\n"
          "                    sort_digit_bits, sort_wg_size, sort_items\n"
          "                    (see clperm.h).\n"
          "\n"
          "Shuffle rows move 64-bit items: clperm's bijective shuffle at fusion levels 2, 1, 0\n"
          "(single pass with look-back, two-pass scan, separate passes) with the VariablePhilox,\n"
          "LCG and Feistel (a x 2^h) bijections; dart throwing into a 2n table; a sort shuffle\n"
          "(random 64-bit keys, sorted with the items by clperm_sort); and the host's\n"
          "single-thread Fisher-Yates.\n"
          "\"of gather\" compares items/s with the device's random gather at the same n.\n"
          "Sort rows (op sort_segments) sort n random u32 keys in segments, in place, one tile per\n"
          "segment: Shearsort on the diagonal arrangement and the Afshani-Sitchinava sorts, Lemma 1\n"
          "(as) and Theorems 1 and 2 (as-wide) (no bank conflicts; these for segments up to 512 on\n"
          "32-wide devices), and the bitonic network in local memory, plain and padded. Partition\n"
          "rows (op partition) order each segment stably by the low 8 or 3 bits of the key (a\n"
          "radix-sort step) with the same tiles, or by 3 and 4 bits with the counting partition\n"
          "(Afshani-Sitchinava Corollary 1 and Theorem 1; not stable, checked label by label).\n"
          "\"of copy\" compares bytes moved (8 per key) with the device's copy.\n"
          "  --segments LIST   segment sizes of the sort rows (default 512,1024,2048).\n"
          "Device-wide sort rows (op sort): clperm_sort of n random keys in place (the input\n"
          "restored before each run), variants u32, u32-u32 (u32 values), u64, u64-u64, f32;\n"
          "\"of copy\" compares the bytes of keys and values read and written once with the\n"
          "copy's. Host peers: qsort and a single-thread LSD radix sort (host-radix) of u32, and\n"
          "Boost.Compute's sort of u32 on the same device (boost-compute) when the bench was\n"
          "built with it. Segmented rows (op sort_segmented): clperm_sort_segmented of n random\n"
          "u32 keys in segments of each --segments size and of a skewed mix (lengths\n"
          "log-uniform up to 2^17). Extra bytes (--json): temp buffers and scratch.\n"
          "Generator rows (op rng): rng_fill writes n u32 with clperm_rng_fill for every shipped\n"
          "generator (family and k), Random123's Philox4x32-10 (when built with librandom123-dev)\n"
          "and the host's single-thread xoshiro256**; \"of copy\" compares the bytes written (4 per\n"
          "number) with the copy. At the last size, rng_inkernel rows draw n numbers inside a\n"
          "kernel, consumed in registers (256 per work-item), through the device API.\n"
          "  --no-host         skip the host's single-thread reference rows.\n"
          "  --no-verify       do not check results against the host's (scan, shuffle, sort).\n"
          "  --json            one JSON object per line instead of the table.\n"
          "  --plot DIR        also draw PNG figures of throughput against size into DIR (gnuplot).\n"
          "  -h, --help        this text.\n",
          f);
}

static int parse_size(const char *s, uint64_t *out) {
    char *end;
    if (strncmp(s, "2^", 2) == 0) {
        unsigned long k = strtoul(s + 2, &end, 10);
        if (end == s + 2 || k > 62) return -1;
        uint64_t v = 1ull << k;
        if (*end == '+' || *end == '-') {
            char sign = *end;
            const char *c = end + 1;
            unsigned long long d = strtoull(c, &end, 10);
            if (end == c) return -1;
            v = sign == '+' ? v + d : v - d;
        }
        if (*end) return -1;
        *out = v;
        return 0;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end) return -1;
    *out = v;
    return 0;
}

static int parse_list(const char *list, uint64_t *out, int *count);

static int parse_sizes(const char *list, bench_opts *o) { return parse_list(list, o->sizes, &o->nsizes); }

static int parse_list(const char *list, uint64_t *out, int *count) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    *count = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (*count == BENCH_MAX_SIZES || parse_size(tok, &out[*count]) != 0) return -1;
        (*count)++;
    }
    return *count ? 0 : -1;
}

static int parse_set(const char *s, bench_opts *o) {
    static const struct {
        const char *name;
        clperm_param param;
    } names[] = {{"scan_algorithm", CLPERM_PARAM_SCAN_ALGORITHM}, {"sg_impl", CLPERM_PARAM_SG_IMPL},
                 {"sg_width", CLPERM_PARAM_SG_WIDTH},             {"scan_wg_size", CLPERM_PARAM_SCAN_WG_SIZE},
                 {"scan_items", CLPERM_PARAM_SCAN_ITEMS},         {"disk_cache", CLPERM_PARAM_DISK_CACHE},
                 {"shuffle_kernel", CLPERM_PARAM_SHUFFLE_KERNEL}, {"shuffle_wg_size", CLPERM_PARAM_SHUFFLE_WG_SIZE},
                 {"shuffle_items", CLPERM_PARAM_SHUFFLE_ITEMS},
                 {"sort_width", CLPERM_PARAM_SORT_WIDTH},          {"sort_tiles", CLPERM_PARAM_SORT_TILES},
                 {"rng_kernel", CLPERM_PARAM_RNG_KERNEL},
                 {"sort_algorithm", CLPERM_PARAM_SORT_ALGORITHM},  {"sort_kernel", CLPERM_PARAM_SORT_KERNEL},
                 {"sort_rank", CLPERM_PARAM_SORT_RANK},            {"sort_digit_bits", CLPERM_PARAM_SORT_DIGIT_BITS},
                 {"sort_wg_size", CLPERM_PARAM_SORT_WG_SIZE},      {"sort_items", CLPERM_PARAM_SORT_ITEMS}};
    const char *eq = strchr(s, '=');
    if (!eq || o->nsets == BENCH_MAX_SETS) return -1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == (size_t)(eq - s) && strncmp(s, names[i].name, (size_t)(eq - s)) == 0) {
            o->sets[o->nsets].param = names[i].param;
            o->sets[o->nsets].value = atoi(eq + 1);
            o->nsets++;
            return 0;
        }
    return -1;
}

static int parse_args(int argc, char **argv, bench_opts *o) {
    memset(o, 0, sizeof *o);
    o->timing.reps = 7;
    o->timing.warmup = 2;
    o->verify = 1;
    o->host = 1;
    parse_sizes("2^10,2^14,2^18,2^22,2^24,2^24+1", o);
    parse_list("512,1024,2048", o->segments, &o->nsegments);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--device") && v) {
            if (o->ndevices == MAX_DEVICES) return -1;
            o->devices[o->ndevices++] = v;
            i++;
        } else if (!strcmp(a, "--sizes") && v) {
            if (parse_sizes(v, o) != 0) {
                fprintf(stderr, "clperm bench: cannot read sizes \"%s\"\n", v);
                return -1;
            }
            i++;
        } else if (!strcmp(a, "--segments") && v) {
            if (parse_list(v, o->segments, &o->nsegments) != 0) {
                fprintf(stderr, "clperm bench: cannot read segments \"%s\"\n", v);
                return -1;
            }
            i++;
        } else if (!strcmp(a, "--full")) {
            parse_sizes("2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28", o);
        } else if (!strcmp(a, "--ops") && v) {
            o->ops = v;
            i++;
        } else if (!strcmp(a, "--reps") && v) {
            o->timing.reps = atoi(v);
            i++;
        } else if (!strcmp(a, "--warmup") && v) {
            o->timing.warmup = atoi(v);
            i++;
        } else if (!strcmp(a, "--set") && v) {
            if (parse_set(v, o) != 0) {
                fprintf(stderr, "clperm bench: cannot read --set \"%s\"\n", v);
                return -1;
            }
            i++;
        } else if (!strcmp(a, "--plot") && v) {
            o->plot_dir = v;
            i++;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "--no-verify")) {
            o->verify = 0;
        } else if (!strcmp(a, "--no-host")) {
            o->host = 0;
        } else {
            fprintf(stderr, "clperm bench: unknown or incomplete option \"%s\"\n\n", a);
            usage(stderr);
            return -1;
        }
    }
    if (o->timing.reps < 1 || o->timing.reps > 256 || o->timing.warmup < 0) {
        fprintf(stderr, "clperm bench: --reps must be 1..256 and --warmup at least 0\n");
        return -1;
    }
    return 0;
}

static int op_selected(const bench_opts *o, const char *op) {
    if (!o->ops) return 1;
    const char *p = o->ops;
    size_t n = strlen(op);
    while ((p = strstr(p, op)) != NULL) {
        if ((p == o->ops || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
        p += n;
    }
    return 0;
}

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v) {
    if (v > 0 && isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void print_row(const bench_opts *o, const bench_row *r) {
    if (o->json) {
        const struct {
            const char *key, *value;
        } strs[] = {{"op", r->op}, {"variant", r->variant}, {"type", r->type},
                    {"platform", r->platform}, {"device", r->device}, {"driver", r->driver}};
        const struct {
            const char *key;
            double value;
        } nums[] = {{"seconds", r->seconds},
                    {"items_per_s", r->items_per_s},
                    {"bytes_per_s", r->bytes_per_s},
                    {"copy_items_per_s", r->copy_items_per_s},
                    {"copy_bytes_per_s", r->copy_bytes_per_s},
                    {"gather_items_per_s", r->gather_items_per_s}};
        for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
            printf("%s\"%s\":", i ? "," : "{", strs[i].key);
            json_string(stdout, strs[i].value);
        }
        printf(",\"n\":%llu,\"elem_bytes\":%d", (unsigned long long)r->n, r->elem_bytes);
        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
            printf(",\"%s\":", nums[i].key);
            json_number(stdout, nums[i].value);
        }
        printf(",\"extra_bytes\":%llu}\n", (unsigned long long)r->extra_bytes);
    } else {
        char pct[16] = "", gpct[16] = "";
        if (r->copy_bytes_per_s > 0) snprintf(pct, sizeof pct, "%5.1f%%", 100.0 * r->bytes_per_s / r->copy_bytes_per_s);
        if (r->gather_items_per_s > 0)
            snprintf(gpct, sizeof gpct, "%5.1f%%", 100.0 * r->items_per_s / r->gather_items_per_s);
        printf("%-28.28s %-15s %-20s %-4s %12llu %11.4f %10.3f %9.2f %7s %9s\n", r->device, r->op, r->variant,
               r->type, (unsigned long long)r->n, r->seconds * 1e3, r->items_per_s * 1e-9, r->bytes_per_s * 1e-9, pct,
               gpct);
    }
    fflush(stdout);
}

static void print_header(const bench_opts *o) {
    if (o->json) return;
    printf("%-28s %-15s %-20s %-4s %12s %11s %10s %9s %7s %9s\n", "device", "op", "variant", "type", "n",
           "median ms", "G items/s", "GB/s", "of copy", "of gather");
}

static bench_row *add_row(bench_row *rows, size_t *nrows, const clperm_profile *p, const char *op,
                          const char *variant, const char *type, uint64_t n, int elem_bytes, double seconds,
                          double bytes_per_item) {
    if (*nrows == MAX_ROWS) return NULL;
    bench_row *r = &rows[(*nrows)++];
    memset(r, 0, sizeof *r);
    snprintf(r->op, sizeof r->op, "%s", op);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->type, sizeof r->type, "%s", type);
    snprintf(r->platform, sizeof r->platform, "%s", p ? p->platform_name : "host");
    snprintf(r->device, sizeof r->device, "%s", p ? p->device_name : "host CPU, 1 thread");
    snprintf(r->driver, sizeof r->driver, "%s", p ? p->driver_version : "");
    r->n = n;
    r->elem_bytes = elem_bytes;
    r->seconds = seconds;
    r->items_per_s = seconds > 0 ? (double)n / seconds : 0;
    r->bytes_per_s = r->items_per_s * bytes_per_item;
    return r;
}

/* Gives r the bound columns of the copy and gather measured at its size, and prints it. */
static void finish_row(const bench_opts *o, bench_row *r, const bench_row *bounds, uint64_t extra_bytes) {
    r->copy_items_per_s = bounds->copy_items_per_s;
    r->copy_bytes_per_s = bounds->copy_bytes_per_s;
    r->gather_items_per_s = bounds->gather_items_per_s;
    r->extra_bytes = extra_bytes;
    print_row(o, r);
}

/* Rows of a host reference at every size. */
static void host_rows(const bench_opts *o, bench_row *rows, size_t *nrows, double (*fn)(uint64_t, const bench_timing *),
                      const char *op, const char *variant, const char *type, int elem_bytes, double bytes_per_item) {
    for (int s = 0; s < o->nsizes; s++) {
        double t = fn(o->sizes[s], &o->timing);
        if (t <= 0) continue;
        bench_row *r = add_row(rows, nrows, NULL, op, variant, type, o->sizes[s], elem_bytes, t, bytes_per_item);
        if (r) print_row(o, r);
    }
}

static const struct {
    const char *op;
    clperm_tile_sort algorithm;
    unsigned bits;
    const char *name;
} sort_cases[] = {{"sort_segments", CLPERM_TILE_SORT_SHEAR, 0, "shear"},
                  {"sort_segments", CLPERM_TILE_SORT_BITONIC, 0, "bitonic"},
                  {"sort_segments", CLPERM_TILE_SORT_BITONIC_PADDED, 0, "bitonic-padded"},
                  {"sort_segments", CLPERM_TILE_SORT_AS, 0, "as"},
                  {"sort_segments", CLPERM_TILE_SORT_AS_WIDE, 0, "as-wide"},
                  {"partition", CLPERM_TILE_SORT_SHEAR, 8, "shear-8bit"},
                  {"partition", CLPERM_TILE_SORT_AS, 8, "as-8bit"},
                  {"partition", CLPERM_TILE_SORT_SHEAR, 3, "shear-3bit"},
                  {"partition", CLPERM_TILE_PARTITION_COUNTING, 3, "counting-3bit"},
                  {"partition", CLPERM_TILE_PARTITION_COUNTING, 4, "counting-4bit"}};

/* Tile sort and partition rows at size n for every segment size; returns the number that failed. */
static int sort_rows(const bench_opts *o, bench_dev *d, uint64_t n, const bench_row *bounds, bench_row *rows,
                     size_t *nrows) {
    int failures = 0;
    char err[256] = "";
    for (int s = 0; s < o->nsegments; s++)
        for (size_t c = 0; c < sizeof sort_cases / sizeof sort_cases[0]; c++) {
            if (!op_selected(o, sort_cases[c].op)) continue;
            char variant[32];
            snprintf(variant, sizeof variant, "%s-%llu", sort_cases[c].name, (unsigned long long)o->segments[s]);
            fprintf(stderr, ", %s %s", sort_cases[c].op, variant);
            fflush(stderr);
            uint64_t max = 0;
            if (sort_cases[c].bits)
                clperm_partition_segment_max(bench_dev_ctx(d), CLPERM_KEY_U32, sort_cases[c].bits,
                                             sort_cases[c].algorithm, &max);
            else
                clperm_sort_segment_max(bench_dev_ctx(d), CLPERM_KEY_U32, 0, sort_cases[c].algorithm, &max);
            if (o->segments[s] > max) {
                fprintf(stderr, " (above its largest segment, %llu)", (unsigned long long)max);
                continue;
            }
            double t = bench_sort(d, sort_cases[c].algorithm, o->segments[s], sort_cases[c].bits, n, &o->timing,
                                  o->verify, err, sizeof err);
            if (t < 0) {
                fprintf(stderr, " FAILED: %s\n  ", err);
                failures++;
                continue;
            }
            bench_row *r = add_row(rows, nrows, bench_dev_profile(d), sort_cases[c].op, variant, "u32", n, 4, t, 8);
            if (!r) break;
            finish_row(o, r, bounds, 0);
        }
    return failures;
}

/* Device-wide and segmented sort rows at size n; returns the number that failed. */
static const struct {
    const char *variant;
    clperm_key_type key_type;
    clperm_type value_type;
} device_sort_cases[] = {{"u32", CLPERM_KEY_U32, 0},
                         {"u32-u32", CLPERM_KEY_U32, CLPERM_TYPE_U32},
                         {"u64", CLPERM_KEY_U64, 0},
                         {"u64-u64", CLPERM_KEY_U64, CLPERM_TYPE_U64},
                         {"f32", CLPERM_KEY_F32, 0}};

static int device_sort_rows(const bench_opts *o, bench_dev *d, uint64_t n, const bench_row *bounds, bench_row *rows,
                            size_t *nrows) {
    int failures = 0;
    char err[256] = "";
    for (size_t c = 0; c < sizeof device_sort_cases / sizeof device_sort_cases[0] && op_selected(o, "sort"); c++) {
        fprintf(stderr, ", sort %s", device_sort_cases[c].variant);
        fflush(stderr);
        uint64_t extra = 0;
        double t = bench_device_sort(d, device_sort_cases[c].key_type, device_sort_cases[c].value_type, n, &o->timing,
                                     o->verify, &extra, err, sizeof err);
        if (t < 0) {
            fprintf(stderr, " FAILED: %s\n  ", err);
            failures++;
            continue;
        }
        int bytes = (int)(clperm_key_size(device_sort_cases[c].key_type) +
                          (device_sort_cases[c].value_type ? clperm_type_size(device_sort_cases[c].value_type) : 0));
        bench_row *r = add_row(rows, nrows, bench_dev_profile(d), "sort", device_sort_cases[c].variant,
                               device_sort_cases[c].key_type == CLPERM_KEY_U64 ? "u64" :
                               device_sort_cases[c].key_type == CLPERM_KEY_F32 ? "f32" : "u32",
                               n, bytes, t, 2.0 * bytes);
        if (!r) return failures;
        finish_row(o, r, bounds, extra);
    }
    if (op_selected(o, "sort")) {
        fprintf(stderr, ", sort boost-compute");
        fflush(stderr);
        double t = bench_boost_compute_sort(d, n, &o->timing, err, sizeof err);
        bench_row *r = t > 0 ? add_row(rows, nrows, bench_dev_profile(d), "sort", "boost-compute", "u32", n, 4, t, 8)
                             : NULL;
        if (r) finish_row(o, r, bounds, 0);
        else fprintf(stderr, " skipped: %s\n  ", err);
    }
    for (int s = 0; s <= o->nsegments && op_selected(o, "sort_segmented"); s++) {
        uint64_t seg = s < o->nsegments ? o->segments[s] : 0;
        char variant[32];
        if (seg) snprintf(variant, sizeof variant, "fixed-%llu", (unsigned long long)seg);
        else snprintf(variant, sizeof variant, "skewed");
        fprintf(stderr, ", sort_segmented %s", variant);
        fflush(stderr);
        uint64_t extra = 0;
        double t = bench_segmented_sort(d, seg, n, &o->timing, o->verify, &extra, err, sizeof err);
        if (t < 0) {
            fprintf(stderr, " FAILED: %s\n  ", err);
            failures++;
            continue;
        }
        bench_row *r = add_row(rows, nrows, bench_dev_profile(d), "sort_segmented", variant, "u32", n, 4, t, 8);
        if (!r) return failures;
        finish_row(o, r, bounds, extra);
    }
    return failures;
}

static const char *const rng_family_names[] = {"", "correlated", "three", "slowmem", "iterated", "buffered"};

/* Generator rows at size n: a fill of n u32 by every shipped generator, Random123's Philox peer,
 * and (at the last size only: each builds a program) the in-kernel rates. Returns failures. */
static int rng_rows(const bench_opts *o, bench_dev *d, uint64_t n, int last, const bench_row *bounds, bench_row *rows,
                    size_t *nrows) {
    int failures = 0;
    char err[256] = "";
    if (!op_selected(o, "rng")) return 0;
    for (int inkernel = 0; inkernel <= last; inkernel++)
        for (int f = 0; f <= 5; f++)
            for (uint32_t k = 8; k <= 64; k *= 2) {
                clperm_rng_spec spec = {(clperm_rng_family)f, k};
                if (f == 0 ? k != 8 : !clperm_rng_state_bits(&spec)) continue;
                char variant[32];
                if (f) snprintf(variant, sizeof variant, "%s-k%u", rng_family_names[f], k);
                else snprintf(variant, sizeof variant, "philox4x32-10");
                const char *op = inkernel ? "rng_inkernel" : "rng_fill";
                fprintf(stderr, ", %s %s", op, variant);
                fflush(stderr);
                double t = inkernel ? bench_rng_inkernel(d, f ? &spec : NULL, n, &o->timing, err, sizeof err)
                           : f      ? bench_rng_fill(d, &spec, n, &o->timing, o->verify, err, sizeof err)
                                    : bench_philox_fill(d, n, &o->timing, err, sizeof err);
                if (t < 0) {
                    fprintf(stderr, " %s: %s\n  ", f ? "FAILED" : "skipped", err);
                    failures += f != 0;
                    continue;
                }
                bench_row *r = add_row(rows, nrows, bench_dev_profile(d), op, variant, "u32", n, 4, t, inkernel ? 0 : 4);
                if (!r) return failures;
                finish_row(o, r, bounds, 0);
            }
    return failures;
}

/* Returns the number of measurements that failed. */
static int bench_device(const bench_opts *o, const char *selector, int index, int count, bench_row *rows,
                        size_t *nrows) {
    int failures = 0;
    char err[256] = "";
    bench_dev *d = bench_dev_open(selector, o->sets, o->nsets, err, sizeof err);
    if (!d) {
        fprintf(stderr, "clperm bench: device %s: %s\n", selector, err);
        return 1;
    }
    const clperm_profile *p = bench_dev_profile(d);
    fprintf(stderr, "[%d/%d] %s / %s (%s)\n", index + 1, count, p->platform_name, p->device_name, p->driver_version);
    for (int s = 0; s < o->nsizes; s++) {
        uint64_t n = o->sizes[s];
        if (n == 0) continue;
        fprintf(stderr, "  n = %llu: copy, gather", (unsigned long long)n);
        if (bench_dev_prepare(d, n, err, sizeof err) != 0) {
            fprintf(stderr, " skipped: %s\n", err);
            continue;
        }
        double tc = bench_copy(d, n, &o->timing, err, sizeof err);
        double tg = tc > 0 ? bench_gather(d, n, &o->timing, err, sizeof err) : -1;
        if (tc <= 0 || tg <= 0) {
            fprintf(stderr, " failed: %s\n", err);
            failures++;
            continue;
        }
        bench_row *rc = add_row(rows, nrows, p, "copy", "bound", "u64", n, 8, tc, 16);
        bench_row *rg = add_row(rows, nrows, p, "gather", "bound", "u64", n, 8, tg, 20);
        if (!rc || !rg) break;
        bench_row bounds = {.copy_items_per_s = rc->items_per_s,
                            .copy_bytes_per_s = rc->bytes_per_s,
                            .gather_items_per_s = rg->items_per_s};
        finish_row(o, rc, &bounds, 0);
        finish_row(o, rg, &bounds, 0);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const bench_case *bc = &cases[c];
            if (!op_selected(o, bc->op)) continue;
            const char *tname = bc->type == CLPERM_TYPE_U64 ? "u64" : "u32";
            fprintf(stderr, ", %s %s %s", bc->op, tname, bc->variant);
            fflush(stderr);
            uint64_t extra = 0;
            double t = bench_scan(d, bc->op, bc->type, bc->algorithm, n, &o->timing, o->verify, &extra, err,
                                  sizeof err);
            if (t < 0) {
                fprintf(stderr, " FAILED: %s\n  ", err);
                failures++;
                continue;
            }
            int es = (int)clperm_type_size(bc->type);
            double bytes = strcmp(bc->op, "reduce_sum") == 0 ? es : 2.0 * es;
            bench_row *r = add_row(rows, nrows, p, bc->op, bc->variant, tname, n, es, t, bytes);
            if (!r) break;
            finish_row(o, r, &bounds, extra);
        }
        for (size_t c = 0; c < sizeof shuffle_cases / sizeof shuffle_cases[0] && op_selected(o, "shuffle"); c++) {
            const shuffle_case *sc = &shuffle_cases[c];
            fprintf(stderr, ", shuffle %s", sc->variant);
            fflush(stderr);
            uint64_t extra = 0;
            double t = sc->kind == 1   ? bench_dart_throwing(d, n, &o->timing, o->verify, &extra, err, sizeof err)
                       : sc->kind == 2 ? bench_sort_shuffle(d, n, &o->timing, o->verify, &extra, err, sizeof err)
                                       : bench_shuffle(d, sc->fusion, sc->bijection, n, &o->timing, o->verify, &extra,
                                                       err, sizeof err);
            if (t < 0) {
                fprintf(stderr, " FAILED: %s\n  ", err);
                failures++;
                continue;
            }
            bench_row *r = add_row(rows, nrows, p, "shuffle", sc->variant, "u64", n, 8, t, 16);
            if (!r) break;
            finish_row(o, r, &bounds, extra);
        }
        failures += sort_rows(o, d, n, &bounds, rows, nrows);
        failures += device_sort_rows(o, d, n, &bounds, rows, nrows);
        failures += rng_rows(o, d, n, s == o->nsizes - 1, &bounds, rows, nrows);
        fprintf(stderr, "\n");
    }
    bench_dev_close(d);
    return failures;
}

int bench_main(int argc, char **argv) {
    bench_opts o;
    if (parse_args(argc, argv, &o) != 0) return 2;
    bench_row *rows = calloc(MAX_ROWS, sizeof *rows);
    if (!rows) return 1;
    size_t nrows = 0;
    int failures = 0;
    char sel[32];
    int count = o.ndevices;
    if (!count) {
        size_t n = 0;
        clperm_status st = clperm_device_count(&n);
        if (st != CLPERM_SUCCESS || n == 0) {
            fprintf(stderr, "clperm bench: no OpenCL device (%s)\n", clperm_status_string(st ? st : CLPERM_ERROR_NO_DEVICE));
            free(rows);
            return 1;
        }
        count = (int)(n > MAX_DEVICES ? MAX_DEVICES : n);
    }
    print_header(&o);
    for (int i = 0; i < count; i++) {
        const char *selector = o.devices[i];
        if (!o.ndevices) {
            snprintf(sel, sizeof sel, "%d", i);
            selector = sel;
        }
        failures += bench_device(&o, selector, i, count, rows, &nrows);
    }
    if (o.host && op_selected(&o, "scan_exclusive")) {
        fprintf(stderr, "host: single-thread exclusive scan of u32\n");
        host_rows(&o, rows, &nrows, bench_host_scan, "scan_exclusive", "host-serial", "u32", 4, 8);
    }
    if (o.host && op_selected(&o, "shuffle")) {
        fprintf(stderr, "host: single-thread Fisher-Yates shuffle of u64\n");
        host_rows(&o, rows, &nrows, bench_host_fisher_yates, "shuffle", "host-fisher-yates", "u64", 8, 16);
    }
    if (o.host && op_selected(&o, "sort")) {
        fprintf(stderr, "host: single-thread qsort and LSD radix sort of u32\n");
        host_rows(&o, rows, &nrows, bench_host_qsort, "sort", "qsort", "u32", 4, 8);
        host_rows(&o, rows, &nrows, bench_host_radix, "sort", "host-radix", "u32", 4, 8);
    }
    if (o.host && op_selected(&o, "rng")) {
        fprintf(stderr, "host: single-thread xoshiro256** fill of u32\n");
        host_rows(&o, rows, &nrows, bench_host_xoshiro, "rng_fill", "host-xoshiro256**", "u32", 4, 4);
    }
    int rc = failures ? 1 : 0;
    if (failures) fprintf(stderr, "clperm bench: %d measurement(s) failed\n", failures);
    if (o.plot_dir) {
        char err[256] = "";
        if (bench_plot(o.plot_dir, rows, nrows, err, sizeof err) != 0) {
            fprintf(stderr, "clperm bench: --plot: %s\n", err);
            rc = 1;
        } else {
            fprintf(stderr, "figures written to %s\n", o.plot_dir);
        }
    }
    free(rows);
    return rc;
}
