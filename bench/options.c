/* The options of `clperm bench`: one table that both the parser and the help text read, so the
 * two cannot disagree. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define DEFAULT_SIZES "2^10,2^14,2^18,2^22,2^24,2^24+1"
#define FULL_SIZES "2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28"
#define DEFAULT_SEGMENTS "512,1024,2048"
#define DIST_SIZES "2^20,2^22"

/* The operations of --dist, by the names --ops selects them with (dist.c's order). */
const char *const bench_dist_ops[BENCH_DIST_OPS] = {"shuffle", "sort", "links"};

/* Tunables --set accepts: every one of clperm.h's list, by the names it gives them. */
#define SET_NAME(name, value, lo, hi, flags, text) text,
static const char *const set_names[] = {CLPERM_PARAM_MAP(SET_NAME)};
#undef SET_NAME

/* Names --ops accepts: the cases' selectors, in the table's order; with --dist, its operations. */
static int ops_known(const char *word, size_t len, int dist) {
    for (size_t i = 0; !dist && i < bench_ncases; i++)
        if (bench_cases[i].ops && strlen(bench_cases[i].ops) == len && !strncmp(bench_cases[i].ops, word, len))
            return 1;
    for (int i = 0; dist && i < BENCH_DIST_OPS; i++)
        if (strlen(bench_dist_ops[i]) == len && !strncmp(bench_dist_ops[i], word, len)) return 1;
    return 0;
}

/* Whether every name of the list is one ops_known knows. */
static int ops_valid(const char *list, int dist) {
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (!ops_known(p, len, dist)) return 0;
        p += len;
        if (*p) p++;
    }
    return 1;
}

/* Whether a variant name begins with the len characters of prefix. */
static int variant_begins(const char *variant, const char *prefix, size_t len) {
    return strlen(variant) >= len && !strncmp(variant, prefix, len);
}

/* Whether every prefix of the list begins some case's variant name. */
static int variants_valid(const char *list) {
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        size_t i = 0;
        while (i < bench_ncases && !(bench_cases[i].ops && variant_begins(bench_cases[i].variant, p, len))) i++;
        if (!len || i == bench_ncases) return 0;
        p += len;
        if (*p) p++;
    }
    return 1;
}

int bench_variant_selected(const bench_opts *o, const bench_case *c) {
    if (!o->variants || !c->ops) return 1;
    for (const char *p = o->variants; *p;) {
        size_t len = strcspn(p, ",");
        if (variant_begins(c->variant, p, len)) return 1;
        p += len;
        if (*p) p++;
    }
    return 0;
}

int bench_parse_size(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    if (strncmp(s, "2^", 2) == 0) {
        if (s[2] < '0' || s[2] > '9') return -1;
        unsigned long k = strtoul(s + 2, &end, 10);
        if (k > 62) return -1;
        uint64_t v = UINT64_C(1) << k;
        if (*end == '+' || *end == '-') {
            char sign = *end;
            const char *c = end + 1;
            if (*c < '0' || *c > '9') return -1;
            unsigned long long d = strtoull(c, &end, 10);
            if (errno || (sign == '-' && d > v)) return -1;
            v = sign == '+' ? v + d : v - d;
        }
        if (*end) return -1;
        *out = v;
        return 0;
    }
    if (*s < '0' || *s > '9') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

/* Sizes the bench takes: at least one item, at most 2^36 (512 GiB of the 8-byte items its
 * buffers hold, beyond any device). */
#define SIZE_MAX_ITEMS (UINT64_C(1) << 36)
#define SIZES_SYNTAX "a comma-separated list of sizes, each 2^K, 2^K+C, 2^K-C or a number, 1 to 2^36"

static int parse_list(const char *list, uint64_t *out, int *count) {
    char buf[1024];
    if (strlen(list) >= sizeof buf) return -1;
    snprintf(buf, sizeof buf, "%s", list);
    int c = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (c == BENCH_MAX_SIZES || bench_parse_size(tok, &out[c]) != 0 || out[c] == 0 || out[c] > SIZE_MAX_ITEMS)
            return -1;
        c++;
    }
    if (!c) return -1;
    *count = c;
    return 0;
}

static int parse_int(const char *s, long lo, long hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* ---- what each option does ------------------------------------------------------------------ */

static int opt_device(bench_opts *o, const char *v) {
    if (o->ndevices == BENCH_MAX_DEVICES) return -1;
    o->devices[o->ndevices++] = v;
    return 0;
}

static int opt_headline_size(bench_opts *o, const char *v) {
    return bench_parse_size(v, &o->headline_size) != 0 || o->headline_size == 0 ? -1 : 0;
}

static int opt_full(bench_opts *o, const char *v) {
    (void)v;
    o->detailed = 1;
    return parse_list(FULL_SIZES, o->sizes, &o->nsizes);
}

/* The names are checked once every option is read (--dist changes what they may be). */
static int opt_ops(bench_opts *o, const char *v) {
    o->ops = v;
    o->detailed = 1;
    return 0;
}

static int opt_variants(bench_opts *o, const char *v) {
    o->variants = v;
    o->detailed = 1;
    return 0;
}

static int opt_sizes(bench_opts *o, const char *v) {
    o->detailed = 1;
    if (parse_list(v, o->sizes, &o->nsizes) == 0) return 0;
    fprintf(stderr, "clperm bench: --sizes takes %s, not \"%s\"\n", SIZES_SYNTAX, v);
    return -2;
}

static int opt_segments(bench_opts *o, const char *v) {
    o->detailed = 1;
    int rc = parse_list(v, o->segments, &o->nsegments);
    for (int i = 0; rc == 0 && i < o->nsegments; i++)
        if (o->segments[i] == 0) rc = -1;
    return rc;
}

static int opt_reps(bench_opts *o, const char *v) { return parse_int(v, 1, 256, &o->timing.reps); }

static int opt_warmup(bench_opts *o, const char *v) { return parse_int(v, 0, 1000, &o->timing.warmup); }

static int opt_set(bench_opts *o, const char *v) {
    char name[64];
    const char *eq = strchr(v, '=');
    if (!eq || o->nsets == BENCH_MAX_SETS || (size_t)(eq - v) >= sizeof name) return -1;
    memcpy(name, v, (size_t)(eq - v));
    name[eq - v] = 0;
    bench_set *set = &o->sets[o->nsets];
    int lo, hi;
    if (clperm_param_from_name(name, &set->param) != CLPERM_SUCCESS ||
        parse_int(eq + 1, -2147483647, 2147483647, &set->value) != 0 ||
        clperm_param_bounds(set->param, &lo, &hi) != CLPERM_SUCCESS ||
        (set->value && (set->value < lo || set->value > hi)))
        return -1;
    o->nsets++;
    return 0;
}

/* Options without a value: each sets one field. */
#define SWITCH(fn, field, v)                         \
    static int fn(bench_opts *o, const char *value) { \
        (void)value;                                 \
        o->field = v;                                \
        return 0;                                    \
    }
SWITCH(opt_no_host, host, 0)
SWITCH(opt_no_verify, verify, BENCH_VERIFY_OFF)
SWITCH(opt_json, json, 1)
SWITCH(opt_dist, dist, 1)
SWITCH(opt_no_baseline, dist_baseline, 0)
#undef SWITCH

/* Table 2's sizes follow from its largest sqrt(n), when every option is read. */
static int opt_table2(bench_opts *o, const char *v) {
    (void)v;
    o->table2 = 1;
    o->detailed = 1;
    return 0;
}

static int opt_table2_max(bench_opts *o, const char *v) {
    uint64_t s;
    if (bench_parse_size(v, &s) != 0 || s < 512 || s > (UINT64_C(1) << 15) || (s & (s - 1))) return -1;
    o->table2_max = s;
    return 0;
}

static int opt_plot(bench_opts *o, const char *v) {
    o->plot_dir = v;
    return 0;
}

static int opt_help(bench_opts *o, const char *v);

/* Where an option applies (a bench_option's modes). */
#define ANY 0u       /* with and without --dist */
#define NOT_DIST 1u  /* not with --dist */
#define DIST_ONLY 2u /* only with --dist */

/* The options, in the order --help lists them. Help text: lines of at most 58 characters. */
static const struct bench_option {
    const char *name, *alias, *arg;
    int (*apply)(bench_opts *o, const char *value);
    const char *help;
    unsigned modes;
} options[] = {
    {"--device", NULL, "SEL", opt_device,
     "a device: index from `clperm devices`, or text in the\n"
     "platform or device name (\"NVIDIA\", \"Portable:pthread\");\n"
     "repeatable. Default: every device.", ANY},
    {"--headline-size", NULL, "N", opt_headline_size,
     "the default run at n = N items on every device and in\n"
     "every family, instead of the sizes above.",
     NOT_DIST},
    {"--full", NULL, NULL, opt_full,
     "every variant at sizes " FULL_SIZES "\n"
     "(with --sizes after it, those sizes).",
     NOT_DIST},
    {"--ops", NULL, "LIST", opt_ops,
     "every variant of these operations (comma-separated):\n"
     "@OPS\n"
     "(the copy and gather bounds always run). With --dist:\n"
     "@DIST", ANY},
    {"--variants", NULL, "LIST", opt_variants,
     "only the variants whose names begin with one of these\n"
     "(comma-separated), e.g. transpose-,bit-reversal-,shuffle-\n"
     "for the regular offline permutations alone (the bounds\n"
     "always run).", NOT_DIST},
    {"--sizes", NULL, "LIST", opt_sizes,
     "every variant at these sizes in items, comma-separated;\n"
     "2^K, 2^K+C and 2^K-C are understood.\n"
     "Default with --ops or --segments: " DEFAULT_SIZES ".\n"
     "With --dist: items per rank (default " DIST_SIZES ").", ANY},
    {"--segments", NULL, "LIST", opt_segments,
     "segment sizes of the tile sort, partition and\n"
     "segmented sort rows (default " DEFAULT_SEGMENTS ").",
     NOT_DIST},
    {"--table2", NULL, NULL, opt_table2,
     "the offline permutations as the paper's Table 2\n"
     "(Kasagi, Nakano, Ito): 32-bit items at sqrt(n) = 512 ..\n"
     "8192, 64-bit at 256 .. 4096; D-designated, S-designated,\n"
     "scheduled and the specialised kernels on the identity,\n"
     "random, transpose, shuffle and bit-reversal permutations,\n"
     "the plans' construction, the copy and gather bounds; then\n"
     "the tables in the paper's layout (on stderr with --json).\n"
     "Replaces --ops and --sizes.",
     NOT_DIST},
    {"--table2-max", NULL, "S", opt_table2_max,
     "Table 2's largest sqrt(n) of 32-bit items, a power of two\n"
     "from 512 (default 8192; 64-bit items: S/2).",
     NOT_DIST},
    {"--reps", NULL, "N", opt_reps, "timed runs per figure, 1..256 (default 7).", ANY},
    {"--warmup", NULL, "N", opt_warmup, "runs before the timed ones (default 2).", ANY},
    {"--set", NULL, "NAME=VALUE", opt_set,
     "set a tunable on every device (see clperm.h); NAME:\n"
     "@SET", ANY},
    {"--no-host", NULL, NULL, opt_no_host, "skip the host's single-thread reference rows.", NOT_DIST},
    {"--no-verify", NULL, NULL, opt_no_verify,
     "do not check results against the host's. Unless given,\n"
     "the default run checks every row bit for bit; with\n"
     "--full, --ops or --sizes shuffles and fills are checked\n"
     "bit for bit up to 2^22 items (above, shuffles as\n"
     "permutations), tile sorts and offline permutations up to\n"
     "2^24. With --dist, every size is checked once.", ANY},
    {"--json", NULL, NULL, opt_json,
     "one JSON object per row on stdout instead of the tables\n"
     "(the summary then goes to stderr); `clperm report`\n"
     "reads them.", ANY},
    {"--plot", NULL, "DIR", opt_plot,
     "also draw PNG figures into DIR (gnuplot): the default run, a bar\nchart per device of each family's row and "
     "its peer against the\nsame-bytes bound; sweeps, throughput against n.",
     NOT_DIST},
    {"--dist", NULL, NULL, opt_dist,
     "the distributed shuffle and sort under mpirun instead,\n"
     "one rank per device (built where MPI is found).", ANY},
    {"--no-baseline", NULL, NULL, opt_no_baseline, "with --dist: skip the single-rank rows.", DIST_ONLY},
    {"--help", "-h", NULL, opt_help, "this text.", ANY},
};

#define NOPTIONS (sizeof options / sizeof options[0])

/* Writes `words` (a list of names) wrapped to the help's column. */
static void list_words(FILE *f, const char *const *words, size_t count) {
    size_t col = 0;
    for (size_t i = 0; i < count; i++) {
        const char *w = words[i];
        size_t len = strlen(w) + (i + 1 < count ? 1 : 0);
        if (col && col + 1 + len > 58) {
            fputs("\n                    ", f);
            col = 0;
        }
        fprintf(f, "%s%s%s", col ? " " : "", w, i + 1 < count ? "," : "");
        col += (col ? 1 : 0) + len;
    }
}

static void list_ops(FILE *f) {
    const char *names[64];
    size_t count = 0;
    for (size_t i = 0; i < bench_ncases && count < 64; i++) {
        const char *n = bench_cases[i].ops;
        size_t j = 0;
        while (n && j < count && strcmp(names[j], n)) j++;
        if (n && j == count) names[count++] = n;
    }
    list_words(f, names, count);
}

static void list_set_names(FILE *f) { list_words(f, set_names, sizeof set_names / sizeof set_names[0]); }

static void list_dist_ops(FILE *f) { list_words(f, bench_dist_ops, BENCH_DIST_OPS); }

static void usage(FILE *f) {
    fputs("usage: clperm bench [options]\n"
          "\n"
          "Measures clperm on every OpenCL device (or those chosen with --device): the median\n"
          "time of repeated runs after warm-up, every result checked against the host's (in the\n"
          "default run on a GPU, bit for bit in a run of 2^22 items before the timed ones), beside\n"
          "each device's copy and random-gather rates (64-bit items) measured in the same run at\n"
          "the same size: the bounds. A row's percentage of its bound compares bytes per second\n"
          "with the copy's, or items per second with the gather's (shuffles, and the offline\n"
          "permutations through an index array or a plan); the default run compares each row\n"
          "with a copy of exactly its bytes, or a gather of items of its size, at its n (\"of same\n"
          "bytes\"), and gives the spread of its timed runs about the median. Progress goes to\n"
          "stderr, results to stdout.\n"
          "\n"
          "The default run measures one row per family at one size, beside its bound and its\n"
          "peer, then prints a summary (n on CPUs and on other devices; --headline-size sets it).\n"
          "The peer is what a user would run instead: on a CPU, the host's own code where there\n"
          "is one; on a GPU, an alternative on the same device.\n"
          "  family       CPUs  others  row\n"
          "                             peer on CPUs | peer on other devices\n",
          f);
    for (size_t i = 0; i < bench_nheadlines; i++) {
        const bench_headline *h = &bench_headlines[i];
        char a[32], b[32];
        fprintf(f, "  %-10s %6s %7s  %s\n", h->family, bench_size_name(h->n_cpu, a, sizeof a),
                bench_size_name(h->n_other, b, sizeof b), h->about);
        if (!strcmp(h->peer_about[0], h->peer_about[1]))
            fprintf(f, "%29s%s\n", "", h->peer_about[0]);
        else
            fprintf(f, "%29s%s | %s\n", "", h->peer_about[0], h->peer_about[1]);
    }
    fputs("\n--full, --ops, --sizes or --segments measure every variant instead (the rows of\n"
          "docs/performance.md; see there for what each variant is).\n"
          "\n"
          "`mpirun -np R clperm bench --dist` measures the distributed shuffle (64-bit items) and\n"
          "sort (u64 keys) of clperm_dist.h instead, over R ranks with a device each: rows per rank\n"
          "and for all ranks (median time of the slowest rank, items/s, and the shares of the time\n"
          "in device work, staging copies, the exchange and the small collectives), beside the\n"
          "same operation on one rank and a host-staged all-to-all of the same bytes (device to\n"
          "host, MPI_Alltoallv, host to device, one after another), whose stages and both copies\n"
          "at once give the links' rates and each call's exchange against them (`--ops links`:\n"
          "those alone). A rank takes the --device entry of its rank within its node, modulo\n"
          "their number; by default that GPU of the node, else the default device.\n"
          "\n"
          "options:\n",
          f);
    for (size_t i = 0; i < NOPTIONS; i++) {
        char head[64];
        snprintf(head, sizeof head, "%s%s%s%s%s", options[i].alias ? options[i].alias : "",
                 options[i].alias ? ", " : "", options[i].name, options[i].arg ? " " : "",
                 options[i].arg ? options[i].arg : "");
        fprintf(f, "  %-17s%s", head, strlen(head) > 16 ? "\n                    " : " ");
        for (const char *p = options[i].help; *p;) {
            size_t len = strcspn(p, "\n");
            if (len == 4 && !strncmp(p, "@OPS", 4))
                list_ops(f);
            else if (len == 4 && !strncmp(p, "@SET", 4))
                list_set_names(f);
            else if (len == 5 && !strncmp(p, "@DIST", 5))
                list_dist_ops(f);
            else
                fwrite(p, 1, len, f);
            p += len;
            fputc('\n', f);
            if (*p) {
                p++;
                fputs("                    ", f);
            }
        }
    }
}

static int opt_help(bench_opts *o, const char *v) {
    (void)o;
    (void)v;
    usage(stdout);
    return 1;
}

int bench_op_selected(const bench_opts *o, const char *ops) {
    if (!o->ops || !ops) return 1;
    size_t n = strlen(ops);
    for (const char *p = o->ops; (p = strstr(p, ops)) != NULL; p += n)
        if ((p == o->ops || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
    return 0;
}

int bench_parse_args(int argc, char **argv, bench_opts *o) {
    memset(o, 0, sizeof *o);
    o->timing.reps = 7;
    o->timing.warmup = 2;
    o->verify = BENCH_VERIFY_ALL;
    o->host = 1;
    o->dist_baseline = 1;
    parse_list(DEFAULT_SIZES, o->sizes, &o->nsizes);
    parse_list(DEFAULT_SEGMENTS, o->segments, &o->nsegments);
    unsigned char given[NOPTIONS] = {0};
    for (int i = 1; i < argc; i++) {
        const struct bench_option *opt = NULL;
        for (size_t j = 0; j < NOPTIONS && !opt; j++)
            if (!strcmp(argv[i], options[j].name) || (options[j].alias && !strcmp(argv[i], options[j].alias)))
                opt = &options[j];
        if (opt) given[opt - options] = 1;
        if (!opt) {
            fprintf(stderr, "clperm bench: unknown option \"%s\" (see clperm bench --help)\n", argv[i]);
            return -1;
        }
        const char *value = NULL;
        if (opt->arg) {
            if (i + 1 == argc) {
                fprintf(stderr, "clperm bench: %s needs %s\n", opt->name, opt->arg);
                return -1;
            }
            value = argv[++i];
        }
        int rc = opt->apply(o, value);
        if (rc > 0) return 1;
        if (rc == -2) return -1; /* said why */
        if (rc < 0) {
            fprintf(stderr, "clperm bench: cannot use %s%s%s (see clperm bench --help)\n", opt->name, value ? " " : "",
                    value ? value : "");
            return -1;
        }
    }
    for (size_t j = 0; j < NOPTIONS; j++)
        if (given[j] && (options[j].modes & (o->dist ? NOT_DIST : DIST_ONLY))) {
            fprintf(stderr, "clperm bench: %s is %s --dist (see clperm bench --help)\n", options[j].name,
                    o->dist ? "not for" : "only for");
            return -1;
        }
    if (o->ops && !ops_valid(o->ops, o->dist)) {
        fprintf(stderr, "clperm bench: cannot use --ops %s%s; the operations are:", o->ops,
                o->dist ? " with --dist" : "");
        for (size_t i = 0; !o->dist && i < bench_ncases; i++) {
            int first = bench_cases[i].ops != NULL;
            for (size_t j = 0; first && j < i; j++)
                if (bench_cases[j].ops && !strcmp(bench_cases[j].ops, bench_cases[i].ops)) first = 0;
            if (first) fprintf(stderr, " %s", bench_cases[i].ops);
        }
        for (int i = 0; o->dist && i < BENCH_DIST_OPS; i++) fprintf(stderr, " %s", bench_dist_ops[i]);
        fprintf(stderr, "\n");
        return -1;
    }
    if (o->variants && !variants_valid(o->variants)) {
        fprintf(stderr,
                "clperm bench: cannot use --variants %s: no variant's name begins so (`clperm bench --full "
                "--sizes 2^10` lists every variant)\n",
                o->variants);
        return -1;
    }
    if (o->dist) {
        for (size_t j = 0; j < NOPTIONS; j++)
            if (options[j].apply == opt_sizes && !given[j]) parse_list(DIST_SIZES, o->sizes, &o->nsizes);
        return 0;
    }
    if (o->table2_max && !o->table2) {
        fprintf(stderr, "clperm bench: --table2-max is for --table2\n");
        return -1;
    }
    if (o->table2) {
        /* sqrt(n) = 256 .. the largest, powers of two: 64-bit items from 256, 32-bit from 512. */
        if (!o->table2_max) o->table2_max = 8192;
        o->nsizes = 0;
        for (uint64_t sq = 256; sq <= o->table2_max; sq *= 2) o->sizes[o->nsizes++] = sq * sq;
        o->ops = "permute";
    }
    if (o->detailed && o->verify == BENCH_VERIFY_ALL) o->verify = BENCH_VERIFY_LIMITED;
    if (o->detailed && o->headline_size) {
        fprintf(stderr, "clperm bench: --headline-size is for the default run, not with --full, --ops, --variants, "
                        "--sizes or --segments\n");
        return -1;
    }
    return 0;
}
