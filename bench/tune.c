/* `clperm tune`: searches each family's tunables on one device and writes what it found as a
 * tuning file (docs/tuning.md). Per family a few jobs stand for its work (tune_jobs); the search
 * starts from the device's values (or the generic rows alone, --ignore-database) and walks one
 * tunable at a time to its neighbouring values, keeping a change that makes the family's jobs
 * faster by more than the noise. Every candidate is checked against the host's result at a small
 * awkward size before it is timed at the tuning size; the values it keeps are checked at the
 * tuning size at the end. `clperm tune --merge` turns results into built-in rows. */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#ifdef CLPERM_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

#define TUNE_MAX_VALUES 32 /* tunables of one family */
#define TUNE_MAX_JOBS 6
#define TUNE_MAX_SEEN 2048 /* candidates of one family remembered, so that none is timed twice */
#define TUNE_MAX_NEAR 16   /* candidates that seemed better and were not confirmed, kept for a second look */
/* A change is kept when the jobs it moves get faster by more than this, twice over: on GPUs 1%; on
 * CPUs, whose times wander by more from run to run, 4%. */
#define TUNE_GAIN_GPU 0.01
#define TUNE_GAIN_CPU 0.04
/* Timings of the best values and a candidate that seemed better, in turn, before it is kept. */
#define TUNE_CONFIRM_PAIRS 2
/* A candidate is dropped once the jobs it moves that were timed are slower than with the best
 * values by this many gains (on GPUs 5%): each job's programs take seconds to build, and most
 * candidates lose on their first job already. */
#define TUNE_DROP_GAINS 5
#define TUNE_DROPPED (-2.0)

/* A job that stands for a family's work: a bench case, at the tuning size. */
typedef struct tune_job {
    const char *label;
    bench_case c;
    uint64_t segment;
    const char *tunables; /* ",a,b," the tunables its time depends on; NULL: all of its family's */
} tune_job;

typedef struct tune_family {
    const char *name;
    tune_job jobs[TUNE_MAX_JOBS];
    int njobs;
    const char *skip; /* a tunable the search leaves alone, or NULL */
    double share;     /* of the time, against the other families' */
    /* ",a:b," pairs of tunables that work together (a tile's work-items and keys per work-item,
     * its keys and register cap): the random pairs are drawn from these first. */
    const char *couples;
    /* ",a=b," where a at 0 takes b's value: the search moves a from b's value. */
    const char *inherits;
    /* ",a,b," tunables searched before the others, in this order, or NULL: those that change what
     * the others are tuned on (the sort's ranking changes every tile's registers). */
    const char *first;
} tune_family;

#define SCAN_JOB(lbl, op, type, bytes, t)                                                                              \
    {lbl, {"scan", "scan", op, "default", type, BENCH_KIND_SCAN, BENCH_BOUND_COPY, bytes, .flags = 0}, 0, t}
#define SORT_JOB(lbl, k, v, type, bytes, t)                                                                            \
    {lbl, {"sort", "sort", "sort", lbl, type, BENCH_KIND_SORT, BENCH_BOUND_COPY, bytes, .flags = 0, .key = k,          \
           .value = v}, 0, t}
#define PERMUTE_JOB(lbl, alg, p, type, bytes, t)                                                                       \
    {lbl, {"permute", "permute", "permute", lbl, type, BENCH_KIND_PERMUTE, BENCH_BOUND_COPY, 2 * bytes, .flags = 0,   \
           .algorithm = alg, .perm = p}, 0, t}
#define SORT_COMMON ",kernel,rank,digit_bits,"
#define TILE_JOB(lbl, segment)                                                                                         \
    {lbl, {"sort_segments", "tile_sort", "sort_segments", "auto", "u32", BENCH_KIND_TILE, BENCH_BOUND_COPY, 8,        \
           .flags = 0, .tile = CLPERM_TILE_SORT_AUTO}, segment, ",aspect,auto_sort,"}

/* A job's list names the tunables it depends on, so that a change to one is judged by the jobs it
 * moves: with values, a class takes the keys' tile while its own is 0. */
static const tune_family tune_families[] = {
    {"scan",
     {SCAN_JOB("scan u32", "scan_exclusive", "u32", 8, ",kernel,wg_size,items_u32,stage,serial_u32,groups_per_cu,"),
      SCAN_JOB("scan u64", "scan_exclusive", "u64", 16, ",kernel,wg_size,items_u64,stage,serial_u64,groups_per_cu,")},
     2, NULL, 1, ",wg_size:items_u32,wg_size:items_u64,", NULL, NULL},
    {"shuffle",
     {{"shuffle u64",
       {"shuffle", "shuffle", "shuffle", "default", "u64", BENCH_KIND_SHUFFLE, BENCH_BOUND_GATHER, 16, .flags = 0,
        .bijection = CLPERM_BIJECTION_FEISTEL},
       0, NULL}},
     1, NULL, 1, NULL, NULL, NULL},
    /* The default generator's k chooses the numbers, not the speed: left alone. */
    {"rng",
     {{"rng fill",
       {"rng", "rng", "rng_fill", "default", "u32", BENCH_KIND_RNG_FILL, BENCH_BOUND_COPY, 4, .flags = 0}, 0, NULL}},
     1, "k", 0.5, NULL, NULL, NULL},
    {"sort",
     {SORT_JOB("u32", CLPERM_KEY_U32, 0, "u32", 8, SORT_COMMON "wg_size_32,items_32,regs_32,"),
      SORT_JOB("u32-u32", CLPERM_KEY_U32, CLPERM_TYPE_U32, "u32", 16,
               SORT_COMMON "wg_size_32,items_32,wg_size_32v,items_32v,regs_32v,"),
      SORT_JOB("u64", CLPERM_KEY_U64, 0, "u64", 16, SORT_COMMON "wg_size_64,items_64,regs_64,"),
      SORT_JOB("u64-u64", CLPERM_KEY_U64, CLPERM_TYPE_U64, "u64", 32,
               SORT_COMMON "wg_size_64,items_64,wg_size_64v,items_64v,regs_64v,")},
     4, NULL, 4,
     ",items_32:regs_32,wg_size_32:items_32,items_32v:regs_32v,wg_size_32v:items_32v,items_64:regs_64,"
     "wg_size_64:items_64,items_64v:regs_64v,wg_size_64v:items_64v,",
     ",wg_size_32v=wg_size_32,items_32v=items_32,wg_size_64v=wg_size_64,items_64v=items_64,", ",kernel,rank,"},
    /* After the sort: the segmented sort's longest segments are the sort's. The tile sort at three
     * lengths, as the best aspect depends on the length (the H100's Shearsort, aspect 2 against 4:
     * 1.11x at 128 keys, 1.07x at 512, 0.95x at 2048). */
    {"tile",
     {TILE_JOB("tile sort 256", 256), TILE_JOB("tile sort 512", 512), TILE_JOB("tile sort 2048", 2048),
      {"segmented skewed",
       {"sort_segmented", "sort", "sort_segmented", "skewed", "u32", BENCH_KIND_SORT_SEGMENTED, BENCH_BOUND_COPY, 8,
        .flags = 0},
       0, ",aspect,auto_sort,reg_items,"},
      {"segmented pairs 256",
       {"sort_segmented", "sort", "sort_segmented", "fixed-pairs", "u32", BENCH_KIND_SORT_SEGMENTED, BENCH_BOUND_COPY,
        16, .flags = 0, .value = CLPERM_TYPE_U32},
       256, ",reg_pair_items,"},
      {"segmented pairs 2048",
       {"sort_segmented", "sort", "sort_segmented", "fixed-pairs", "u32", BENCH_KIND_SORT_SEGMENTED, BENCH_BOUND_COPY,
        16, .flags = 0, .value = CLPERM_TYPE_U32},
       2048, ",reg_pair_items_long,"}},
     6, NULL, 1.5, NULL, NULL, NULL},
    {"permute",
     {PERMUTE_JOB("transpose-4B", BENCH_PERMUTE_SPECIAL, BENCH_PERM_TRANSPOSE, "u32", 4, ",kernel,tiles_4,tr_rows_4,"),
      PERMUTE_JOB("transpose-8B", BENCH_PERMUTE_SPECIAL, BENCH_PERM_TRANSPOSE, "u64", 8, ",kernel,tiles_8,"),
      PERMUTE_JOB("bit-reversal-4B", BENCH_PERMUTE_SPECIAL, BENCH_PERM_BIT_REVERSAL, "u32", 4,
                  ",kernel,tiles_4,rev_tiles_4,"),
      PERMUTE_JOB("scheduled-random-4B", BENCH_PERMUTE_SCHEDULED, BENCH_PERM_RANDOM, "u32", 4, ",plan_fusion,")},
     4, NULL, 1.5, NULL, NULL, NULL},
};
#define TUNE_NFAMILIES (sizeof tune_families / sizeof tune_families[0])

/* ---- options ---- */

typedef struct tune_opts {
    const char *device, *families, *out;
    double minutes;
    int ignore_database;
    uint64_t n, n_check;
    bench_timing timing;
    const char **merge;
    int nmerge;
} tune_opts;

static void usage(FILE *f) {
    fprintf(f,
            "usage: clperm tune [--device SEL] [--family LIST] [--minutes M] [--out FILE]\n"
            "                   [--ignore-database] [--size N] [--check-size N] [--reps R]\n"
            "       clperm tune --merge FILE...\n"
            "\n"
            "Searches each family's tunables on one device and writes the best values found, with\n"
            "the figures of the defaults and of the built-in rows beside them, as a tuning file.\n"
            "Every candidate is checked against the host's result before it is timed; a candidate\n"
            "that fails to build or that the device cannot run is skipped with the reason, and one\n"
            "whose first jobs are already slower than the best values by 5%% (20%% on CPUs) is\n"
            "dropped before its other jobs are built (docs/tuning.md).\n"
            "Progress goes to stderr; the file is rewritten after every improvement, so an\n"
            "interrupted run (Ctrl-C) keeps what it found.\n"
            "\n"
            "  --device SEL        the device (an index from `clperm devices` or a name part;\n"
            "                      default CLPERM_DEVICE, else the first GPU)\n"
            "  --family LIST       comma-separated families (default all): scan, shuffle, tile,\n"
            "                      rng, sort, permute\n"
            "  --minutes M         time for the whole search, shared by the families (default 10)\n"
            "  --out FILE          the tuning file to write (default clperm-tuning.json); an\n"
            "                      existing file keeps its entries for other devices\n"
            "  --ignore-database   start from the defaults and the generic rows of the device's\n"
            "                      class only: no vendor or device rows, no tuning file\n"
            "  --size N            items per timed job (default 2^24 on GPUs, 2^22 on CPUs)\n"
            "  --check-size N      items per check against the host (default 2^18+3)\n"
            "  --reps R            timed runs per candidate (default 5): the median kept, on CPUs\n"
            "                      the fastest\n"
            "  --merge FILE...     print the entries of tuning files as built-in rows for\n"
            "                      src/<family>/<family>_rows.c, each citing its figures\n"
            "\n"
            "Use the result with CLPERM_TUNING_FILE=FILE, or copy it to ~/.config/clperm/tuning.json.\n");
}

static int parse_args(int argc, char **argv, tune_opts *o) {
    memset(o, 0, sizeof *o);
    o->minutes = 10;
    o->out = "clperm-tuning.json";
    o->timing.warmup = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--merge")) {
            o->merge = (const char **)argv + i + 1;
            o->nmerge = argc - i - 1;
            if (o->nmerge == 0) {
                fprintf(stderr, "clperm tune: --merge needs at least one file\n");
                return -1;
            }
            return 0;
        } else if (!strcmp(a, "--ignore-database")) {
            o->ignore_database = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "clperm tune: %s needs a value (clperm tune --help)\n", a);
            return -1;
        }
        char *end = NULL;
        if (!strcmp(a, "--device"))
            o->device = v;
        else if (!strcmp(a, "--family"))
            o->families = v;
        else if (!strcmp(a, "--out"))
            o->out = v;
        else if (!strcmp(a, "--minutes")) {
            o->minutes = strtod(v, &end);
            if (!end || *end || !(o->minutes > 0) || o->minutes > 10000) {
                fprintf(stderr, "clperm tune: --minutes takes a positive number, not \"%s\"\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--size") || !strcmp(a, "--check-size")) {
            uint64_t n = 0;
            if (bench_parse_size(v, &n) != 0 || n == 0) {
                fprintf(stderr, "clperm tune: %s takes a size such as 2^24, not \"%s\"\n", a, v);
                return -1;
            }
            *(!strcmp(a, "--size") ? &o->n : &o->n_check) = n;
        } else if (!strcmp(a, "--reps")) {
            long r = strtol(v, &end, 10);
            if (!end || *end || r < 1 || r > 1000) {
                fprintf(stderr, "clperm tune: --reps takes 1 to 1000, not \"%s\"\n", v);
                return -1;
            }
            o->timing.reps = (int)r;
        } else {
            fprintf(stderr, "clperm tune: unknown option \"%s\" (clperm tune --help)\n", a);
            return -1;
        }
        i++;
    }
    for (const char *p = o->families; p && *p;) {
        size_t len = strcspn(p, ",");
        int known = 0;
        for (size_t f = 0; f < TUNE_NFAMILIES; f++)
            known |= strlen(tune_families[f].name) == len && !strncmp(tune_families[f].name, p, len);
        if (!known) {
            fprintf(stderr, "clperm tune: unknown family \"%.*s\" (scan, shuffle, tile, rng, sort, permute)\n",
                    (int)len, p);
            return -1;
        }
        p += len;
        if (*p) p++;
    }
    return 0;
}


#ifndef CLPERM_HAVE_CJSON

int tune_main(int argc, char **argv) {
    tune_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) return rc > 0 ? 0 : 2;
    fprintf(stderr, "clperm tune: this build has no JSON library: install libcjson-dev and build again\n");
    return 1;
}

#else

/* ---- the search ---- */

static int family_selected(const tune_opts *o, const char *name) {
    if (!o->families) return 1;
    size_t n = strlen(name);
    for (const char *p = o->families; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, name, n)) return 1;
        p += len;
        if (*p) p++;
    }
    return 0;
}

static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig) {
    (void)sig;
    interrupted = 1;
}

/* One family's tunables as the search sees them. */
typedef struct tune_space {
    int index[TUNE_MAX_VALUES]; /* clperm_tunable_info index */
    clperm_tunable info[TUNE_MAX_VALUES];
    int count;
} tune_space;

typedef struct tune_state {
    const tune_opts *o;
    bench_dev *d;
    const tune_family *fam;
    tune_space space;
    tune_job jobs[TUNE_MAX_JOBS]; /* the family's that the device runs */
    int njobs;
    unsigned all;                 /* a mask of every job */
    unsigned moves[TUNE_MAX_VALUES]; /* per tunable, the jobs whose time it moves */
    int best[TUNE_MAX_VALUES];
    double best_s[TUNE_MAX_JOBS];
    double start_s[TUNE_MAX_JOBS], builtin_s[TUNE_MAX_JOBS], generic_s[TUNE_MAX_JOBS];
    int initial[TUNE_MAX_VALUES]; /* the family's values as the context opened: rows and file */
    int tried, skipped;
    /* The candidates timed: their jobs and the values those depend on (-1 for the others). */
    struct tune_seen {
        unsigned mask;
        int v[TUNE_MAX_VALUES];
    } *seen;
    int nseen;
    /* Candidates whose first timing beat the best values and whose confirmation did not: their
     * values and the best values of that moment. */
    struct tune_near {
        unsigned mask;
        int from[TUNE_MAX_VALUES], v[TUNE_MAX_VALUES];
    } near[TUNE_MAX_NEAR];
    int nnear;
    double deadline;
    double slowest; /* seconds of the family's slowest candidate yet (builds, timings, confirmation) */
    cJSON *doc;   /* the file being written */
    cJSON *entry; /* this device's entry in it */
} tune_state;

static void note(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("clperm tune: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

/* Where tunable `name` stands in the family's `first` list, or past every place there. */
static size_t first_place(const tune_family *fam, const char *name) {
    char key[64];
    snprintf(key, sizeof key, ",%s,", name);
    const char *at = fam->first ? strstr(fam->first, key) : NULL;
    return at ? (size_t)(at - fam->first) : (size_t)-1;
}

/* The family's tunables, those named in `first` before the others in its order. */
static void space_of(const tune_family *fam, tune_space *s) {
    s->count = 0;
    for (size_t i = 0; i < clperm_tunable_count() && s->count < TUNE_MAX_VALUES; i++) {
        clperm_tunable t;
        if (clperm_tunable_info(i, &t) != CLPERM_SUCCESS || strcmp(t.family, fam->name) != 0) continue;
        if (fam->skip && !strcmp(t.name, fam->skip)) continue;
        s->index[s->count] = (int)i;
        s->info[s->count++] = t;
    }
    /* A stable insertion sort by that place: the others keep the library's order. */
    for (int i = 1; i < s->count; i++)
        for (int k = i; k > 0 && first_place(fam, s->info[k].name) < first_place(fam, s->info[k - 1].name); k--) {
            int index = s->index[k];
            clperm_tunable t = s->info[k];
            s->index[k] = s->index[k - 1], s->info[k] = s->info[k - 1];
            s->index[k - 1] = index, s->info[k - 1] = t;
        }
}

static int read_values(tune_state *st, int *v) {
    for (int i = 0; i < st->space.count; i++)
        if (clperm_ctx_get_tunable(st->d->ctx, st->fam->name, st->space.info[i].name, &v[i]) != CLPERM_SUCCESS)
            return -1;
    return 0;
}

static int write_values(tune_state *st, const int *v) {
    for (int i = 0; i < st->space.count; i++)
        if (clperm_ctx_set_tunable(st->d->ctx, st->fam->name, st->space.info[i].name, v[i]) != CLPERM_SUCCESS)
            return -1;
    return 0;
}

/* The size a job's candidates are checked at before they are timed (the permutations need a power
 * of two). */
static uint64_t check_size(const tune_state *st, const tune_job *job) {
    return job->c.kind == BENCH_KIND_PERMUTE ? (uint64_t)1 << 18 : st->o->n_check;
}

/* Times the jobs of `mask` (bit j: job j) with the context's values, each first checked at the
 * check size: the geometric mean of their seconds (each job counts the same), or -1 with err.
 * With drop > 0: TUNE_DROPPED, with err saying why, once the jobs timed are slower together
 * (their geometric mean) than the best values' times of the same jobs by more than drop and jobs
 * are left, which are then not timed. */
static double evaluate(tune_state *st, unsigned mask, double *per_job, double drop, char *err, size_t cap) {
    bench_timing check = {0, 1, 0};
    double total = 0, against = 0;
    uint64_t extra = 0;
    int count = 0, jobs = __builtin_popcount(mask);
    for (int j = 0; j < st->njobs; j++) {
        if (!(mask >> j & 1)) continue;
        const tune_job *job = &st->jobs[j];
        uint64_t nc = check_size(st, job);
        char e[256] = "";
        if (bench_measure(st->d, &job->c, nc, job->segment, &check, BENCH_VERIFY_ALL, &extra, e, sizeof e) < 0) {
            snprintf(err, cap, "%s: %s", job->label, e);
            return -1;
        }
        double s = bench_measure(st->d, &job->c, st->o->n, job->segment, &st->o->timing, BENCH_VERIFY_OFF, &extra, e,
                                 sizeof e);
        if (s <= 0) {
            snprintf(err, cap, "%s: %s", job->label, e[0] ? e : "no time");
            return -1;
        }
        per_job[j] = s;
        total += log(s);
        against += st->best_s[j] > 0 ? log(st->best_s[j]) : log(s);
        count++;
        double slower = exp((total - against) / count);
        if (drop > 0 && count < jobs && slower > drop) {
            snprintf(err, cap, "dropped after %d of %d jobs at %.3fx the best values' time", count, jobs, slower);
            return TUNE_DROPPED;
        }
    }
    return count ? exp(total / count) : -1;
}

/* The geometric mean of the job times of `mask` (0 where one is missing). */
static double mean_of(const tune_state *st, unsigned mask, const double *s) {
    double l = 0;
    int count = 0;
    for (int j = 0; j < st->njobs; j++) {
        if (!(mask >> j & 1)) continue;
        if (!(s[j] > 0)) return 0;
        l += log(s[j]);
        count++;
    }
    return count ? exp(l / count) : 0;
}

static void values_text(const tune_state *st, const int *v, const int *from, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < st->space.count && len + 1 < cap; i++)
        if (!from || v[i] != from[i])
            len += (size_t)snprintf(buf + len, cap - len, "%s%s=%d", len ? " " : "", st->space.info[i].name, v[i]);
    if (!buf[0]) snprintf(buf, cap, "(as before)");
}

/* ---- the file ---- */

static cJSON *load_doc(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *buf = size >= 0 && size <= (16L << 20) && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)size + 1) : NULL;
    size_t n = buf ? fread(buf, 1, (size_t)size, f) : 0;
    fclose(f);
    cJSON *doc = buf ? cJSON_ParseWithLength(buf, n) : NULL;
    free(buf);
    return doc;
}

static void add_str(cJSON *o, const char *k, const char *v) { cJSON_AddItemToObject(o, k, cJSON_CreateString(v)); }
static void add_num(cJSON *o, const char *k, double v) { cJSON_AddItemToObject(o, k, cJSON_CreateNumber(v)); }

/* The document to write: the existing file's entries for other devices, and a new entry for this
 * one. */
static int doc_open(tune_state *st) {
    const clperm_profile *p = &st->d->profile;
    cJSON *old = load_doc(st->o->out);
    cJSON *doc = cJSON_CreateObject(), *entries = cJSON_CreateArray();
    add_num(doc, "clperm_tuning", 1);
    cJSON_AddItemToObject(doc, "entries", entries);
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(old, "entries")) {
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(e, "device");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(dev, "name");
        const cJSON *driver = cJSON_GetObjectItemCaseSensitive(dev, "driver");
        if (cJSON_IsString(name) && cJSON_IsString(driver) && !strcmp(name->valuestring, p->device_name) &&
            !strcmp(driver->valuestring, p->driver_version))
            continue;
        cJSON_AddItemToArray(entries, cJSON_Duplicate(e, 1));
    }
    cJSON_Delete(old);
    cJSON *entry = cJSON_CreateObject(), *dev = cJSON_CreateObject();
    add_str(dev, "name", p->device_name);
    add_str(dev, "driver", p->driver_version);
    add_str(dev, "vendor", clperm_vendor_name(p->vendor));
    add_str(dev, "platform", p->platform_name);
    add_str(dev, "platform_version", p->platform_version);
    add_str(dev, "opencl", p->device_version);
    add_str(dev, "opencl_c", p->opencl_c_version);
    add_str(dev, "type", p->device_type & CL_DEVICE_TYPE_GPU ? "GPU" : p->device_type & CL_DEVICE_TYPE_CPU ? "CPU" : "other");
    add_num(dev, "compute_units", p->compute_units);
    add_num(dev, "local_mem_bytes", (double)p->local_mem_bytes);
    add_num(dev, "max_work_group_size", (double)p->max_work_group_size);
    add_num(dev, "sg_width", p->sg_width);
    cJSON_AddItemToObject(entry, "device", dev);
    cJSON *how = cJSON_CreateObject();
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    add_str(how, "date", date);
    add_str(how, "clperm", clperm_version());
    add_num(how, "minutes", st->o->minutes);
    add_num(how, "n", (double)st->o->n);
    add_num(how, "n_check", (double)st->o->n_check);
    add_num(how, "reps", st->o->timing.reps);
    add_str(how, "start", st->o->ignore_database ? "generic rows (--ignore-database)" : "the device's rows and file");
    cJSON_AddItemToObject(entry, "tuned", how);
    cJSON_AddItemToObject(entry, "families", cJSON_CreateObject());
    cJSON_AddItemToArray(entries, entry);
    st->doc = doc;
    st->entry = entry;
    return 0;
}

/* This family's values and figures into the entry, and the file written (through a temporary
 * file renamed over it, so that an interrupted write leaves the last whole file). */
static int doc_save(tune_state *st) {
    cJSON *families = cJSON_GetObjectItemCaseSensitive(st->entry, "families");
    cJSON_DeleteItemFromObjectCaseSensitive(families, st->fam->name);
    cJSON *fam = cJSON_CreateObject(), *values = cJSON_CreateObject(), *figures = cJSON_CreateArray();
    for (int i = 0; i < st->space.count; i++) add_num(values, st->space.info[i].name, st->best[i]);
    for (int j = 0; j < st->njobs; j++) {
        cJSON *f = cJSON_CreateObject();
        double n = (double)st->o->n;
        add_str(f, "job", st->jobs[j].label);
        add_num(f, "n", n);
        add_num(f, "tuned_items_per_s", n / st->best_s[j]);
        if (st->start_s[j] > 0) add_num(f, "start_items_per_s", n / st->start_s[j]);
        if (st->builtin_s[j] > 0) add_num(f, "built_in_items_per_s", n / st->builtin_s[j]);
        if (st->generic_s[j] > 0) add_num(f, "generic_items_per_s", n / st->generic_s[j]);
        cJSON_AddItemToArray(figures, f);
    }
    cJSON_AddItemToObject(fam, "values", values);
    cJSON_AddItemToObject(fam, "figures", figures);
    add_num(fam, "candidates", st->tried);
    add_num(fam, "skipped", st->skipped);
    cJSON_AddItemToObject(families, st->fam->name, fam);
    char *text = cJSON_Print(st->doc);
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.partial", st->o->out);
    FILE *f = text ? fopen(tmp, "wb") : NULL;
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f) ok = fclose(f) == 0 && ok;
    ok = ok && rename(tmp, st->o->out) == 0;
    cJSON_free(text);
    if (!ok) note("cannot write %s", st->o->out);
    return ok ? 0 : -1;
}

/* ---- one family ---- */

/* Values to try for tunable i next to v: all of a small range, else halves, doubles and steps,
 * kept to the tunable's bounds and flags. */
static int sg_width(const tune_state *st) {
    return st->d->profile.sg_width ? (int)st->d->profile.sg_width : 32;
}

/* x made a value tunable i takes (a power of two, a multiple of the subgroup width), or -1 when
 * none is near within its bounds. */
static int fit(const tune_state *st, int i, int x) {
    const clperm_tunable *t = &st->space.info[i];
    int w = sg_width(st);
    if (x && (t->flags & CLPERM_PARAM_POW2))
        while (x & (x - 1)) x &= x - 1;
    if (x && (t->flags & CLPERM_PARAM_SG_MULTIPLE)) x = x / w * w;
    return x < t->lo || x > t->hi ? -1 : x;
}

/* The tunable that tunable i takes its value from while it is 0 (",a=b," of the family), or -1. */
static int source_of(const tune_state *st, int i) {
    for (int k = 0; st->fam->inherits && k < st->space.count; k++) {
        char key[80];
        snprintf(key, sizeof key, ",%s=%s,", st->space.info[i].name, st->space.info[k].name);
        if (strstr(st->fam->inherits, key)) return k;
    }
    return -1;
}

/* Register caps in the steps that change what a work-group holds on the GPUs that take a cap
 * (NVIDIA's: registers are given in eights, and 65,536 a block make the steps of occupancy). */
static const int reg_steps[] = {32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 168, 255};
#define REG_STEPS ((int)(sizeof reg_steps / sizeof reg_steps[0]))

/* Tunable i's values next to v: halves and doubles, steps of one, a quarter and a half and the
 * powers of two around it, or steps of the subgroup width; register caps on their steps. From 0
 * where 0 means another tunable's value, the neighbours of that value; where it means the
 * compiler's or a default, a spread of the range. */
static int neighbours(const tune_state *st, int i, int v, int *out) {
    const clperm_tunable *t = &st->space.info[i];
    int n = 0;
    int w = sg_width(st);
    int c[24], nc = 0;
    int src = v == 0 ? source_of(st, i) : -1;
    int base = src >= 0 ? st->best[src] : v; /* what v means */
    if (t->hi - t->lo <= 4)
        for (int x = t->lo; x <= t->hi; x++) c[nc++] = x;
    if (t->flags & CLPERM_PARAM_REGISTERS) {
        int k = 0;
        while (k + 1 < REG_STEPS && reg_steps[k + 1] <= v) k++;
        if (v == 0) {
            c[nc++] = 64;
            c[nc++] = 128;
        } else {
            c[nc++] = 0;
            c[nc++] = reg_steps[k];
            if (k > 0) c[nc++] = reg_steps[k - 1];
            if (k + 1 < REG_STEPS) c[nc++] = reg_steps[k + 1];
        }
    } else if (base == 0) {
        /* Of 0..1024 work-items 128, 256, 384 and 512; of 0..32 items 4, 8, 12 and 16. */
        c[nc++] = (t->hi + 1) / 8;
        c[nc++] = (t->hi + 1) / 4;
        c[nc++] = (t->hi + 1) * 3 / 8;
        c[nc++] = (t->hi + 1) / 2;
    } else {
        c[nc++] = base / 2;
        c[nc++] = base * 2;
        if (t->flags & CLPERM_PARAM_SG_MULTIPLE) {
            c[nc++] = base - w;
            c[nc++] = base + w;
            c[nc++] = (base + base / 2) / w * w;
            c[nc++] = (base - base / 4) / w * w;
        } else if (!(t->flags & CLPERM_PARAM_POW2)) {
            int below = 1;
            while (below * 2 <= base) below *= 2;
            c[nc++] = base - 1;
            c[nc++] = base + 1;
            c[nc++] = base + (base + 1) / 2;
            c[nc++] = base - (base + 3) / 4;
            /* and the powers of two around it: a tile of 512 x 16 keys, not of 512 x 13 or 18 */
            c[nc++] = below == base ? base / 2 : below;
            c[nc++] = below * 2;
        }
        if (t->lo == 0 && src < 0) c[nc++] = 0;
    }
    for (int k = 0; k < nc; k++) {
        int x = fit(st, i, c[k]);
        if (x < 0 || x == v || (src >= 0 && x == base)) continue;
        int dup = 0;
        for (int m = 0; m < n; m++) dup |= out[m] == x;
        if (!dup) out[n++] = x;
    }
    return n;
}

/* Seconds of the jobs with this family's rows up to `upto`, into s (0 where they fail); the other
 * families keep the values they have. */
static void figure_of(tune_state *st, clperm_tuning_source upto, double *s, int *values) {
    char err[256];
    clperm_ctx_reset_tuning(st->d->ctx, st->fam->name, upto);
    read_values(st, values);
    if (evaluate(st, st->all, s, 0, err, sizeof err) < 0) {
        note("%s: the %s rows fail: %s", st->fam->name, upto == CLPERM_TUNING_CLASS_ROW ? "generic" : "built-in", err);
        memset(s, 0, sizeof(double) * TUNE_MAX_JOBS);
    }
}

/* 1 when v differs from the best values only in register caps, each set where there was none or
 * lowered. */
static int tightens_caps(const tune_state *st, const int *v) {
    int any = 0;
    for (int i = 0; i < st->space.count; i++) {
        if (v[i] == st->best[i]) continue;
        if (!(st->space.info[i].flags & CLPERM_PARAM_REGISTERS) || v[i] == 0 ||
            (st->best[i] != 0 && v[i] > st->best[i]))
            return 0;
        any = 1;
    }
    return any;
}

/* Times the values v on the jobs of `mask` and keeps them where they beat the best by more than
 * the gain twice over; 1 when kept. A tighter register cap is kept where it is no slower by more
 * than half the gain, twice: it costs nothing then and leaves room for more items a work-item.
 * A candidate timed before for the same jobs is not timed again. */
static int try_timed(tune_state *st, const int *v, unsigned mask, int round);

/* try_timed, its time kept as the family's slowest where it is. */
static int try_clocked(tune_state *st, const int *v, unsigned mask, int round) {
    double t0 = bench_now();
    int kept = try_timed(st, v, mask, round);
    if (bench_now() - t0 > st->slowest) st->slowest = bench_now() - t0;
    return kept;
}

static int try_values(tune_state *st, const int *v, unsigned mask, int round) {
    struct tune_seen key = {mask, {0}};
    for (int i = 0; i < st->space.count; i++) key.v[i] = st->moves[i] & mask ? v[i] : -1;
    for (int k = 0; k < st->nseen; k++)
        if (!memcmp(&st->seen[k], &key, sizeof key)) return 0;
    if (st->nseen < TUNE_MAX_SEEN) st->seen[st->nseen++] = key;
    return try_clocked(st, v, mask, round);
}

static int try_timed(tune_state *st, const int *v, unsigned mask, int round) {
    char err[512], what[256] = "";
    for (int i = 0, at = 0; i < st->space.count; i++)
        if (v[i] != st->best[i] && at < (int)sizeof what)
            at += snprintf(what + at, sizeof what - (size_t)at, "%s%s=%d", at ? " " : "", st->space.info[i].name, v[i]);
    st->tried++;
    double s[TUNE_MAX_JOBS], best = mean_of(st, mask, st->best_s), t0 = bench_now();
    double gain = bench_dev_is_cpu(st->d) ? TUNE_GAIN_CPU : TUNE_GAIN_GPU;
    memcpy(s, st->best_s, sizeof s);
    snprintf(err, sizeof err, "the context refuses the value");
    double total = write_values(st, v) == 0 ? evaluate(st, mask, s, 1 + TUNE_DROP_GAINS * gain, err, sizeof err) : -1;
    if (total == TUNE_DROPPED) {
        fprintf(stderr, "clperm tune: %s round %d candidate %d: %s %s (%.1f s)\n", st->fam->name, round, st->tried,
                what, err, bench_now() - t0);
        return 0;
    }
    if (total < 0) {
        st->skipped++;
        note("%s: candidate %d, %s skipped: %s", st->fam->name, st->tried, what, err);
        return 0;
    }
    double keep = tightens_caps(st, v) ? 1 + gain / 2 : 1 - gain;
    int better = total < best * keep;
    if (better) {
        /* Confirmed against the best values timed again now, then the candidate again, twice in
         * turn, the fastest of each kept: a drift of the device's speed cancels, noise alone
         * rarely wins twice, and a slow spell of the machine (CPUs) seldom falls on both timings
         * of one side. */
        double now = -1, again = -1, s_again[TUNE_MAX_JOBS];
        for (int k = 0; k < TUNE_CONFIRM_PAIRS; k++) {
            double sb[TUNE_MAX_JOBS], s2[TUNE_MAX_JOBS];
            memcpy(sb, st->best_s, sizeof sb);
            memcpy(s2, s, sizeof s2);
            double b = write_values(st, st->best) == 0 ? evaluate(st, mask, sb, 0, err, sizeof err) : -1;
            double c = write_values(st, v) == 0 ? evaluate(st, mask, s2, 0, err, sizeof err) : -1;
            if (b < 0 || c < 0) {
                now = again = -1;
                break;
            }
            if (now < 0 || b < now) now = b;
            if (again < 0 || c < again) {
                again = c;
                memcpy(s_again, s2, sizeof s_again);
            }
        }
        better = now > 0 && again > 0 && again < now * keep;
        if (!better && st->nnear < TUNE_MAX_NEAR) {
            struct tune_near *c = &st->near[st->nnear++];
            c->mask = mask;
            memcpy(c->from, st->best, sizeof c->from);
            memcpy(c->v, v, sizeof c->v);
        }
        if (better && again > total) {
            total = again;
            memcpy(s, s_again, sizeof s);
        }
    }
    fprintf(stderr, "clperm tune: %s round %d candidate %d: %s %.4g ms%s (best %.4g ms over %d job(s); %.1f s)\n",
            st->fam->name, round, st->tried, what, total * 1e3, better ? " kept" : "", (better ? total : best) * 1e3,
            __builtin_popcount(mask), bench_now() - t0);
    if (!better) return 0;
    memcpy(st->best, v, sizeof st->best);
    memcpy(st->best_s, s, sizeof s);
    doc_save(st);
    return 1;
}

/* Time for one more candidate: the family's slowest yet (at first its start's timing) ends before
 * `until`, so that one candidate's builds (76 s on the 2-core PoCL 3.1 machine) do not run past it. */
static int time_left(const tune_state *st, double until) {
    return !interrupted && bench_now() + st->slowest < until;
}

/* The couples ",a:b," of the family as index pairs; their count. */
static int couples_of(const tune_state *st, int *pairs) {
    int n = 0;
    for (int a = 0; st->fam->couples && a < st->space.count; a++)
        for (int b = 0; b < st->space.count && n < TUNE_MAX_VALUES; b++) {
            char key[80];
            snprintf(key, sizeof key, ",%s:%s,", st->space.info[a].name, st->space.info[b].name);
            if (strstr(st->fam->couples, key)) {
                pairs[2 * n] = a;
                pairs[2 * n++ + 1] = b;
            }
        }
    return n;
}

/* What tunable i's value in v means: its own, or where it is 0 the value it takes from another. */
static int effective(const tune_state *st, const int *v, int i) {
    int src = v[i] == 0 ? source_of(st, i) : -1;
    return src >= 0 ? v[src] : v[i];
}

/* The other tunable of a couple with i whose flags include `flag`, or -1. */
static int partner(const tune_state *st, int i, int flag) {
    int pairs[2 * TUNE_MAX_VALUES], n = couples_of(st, pairs);
    for (int c = 0; c < n; c++)
        for (int side = 0; side < 2; side++)
            if (pairs[2 * c + side] == i && (st->space.info[pairs[2 * c + 1 - side]].flags & flag))
                return pairs[2 * c + 1 - side];
    return -1;
}

/* A larger tile at the register cap that keeps two of its work-groups on a compute unit: where
 * the compiler's own count for more items a work-item passes that step, the tile runs one
 * work-group a unit and looks slower than it is (the H100's sort of u32 keys, 512 x 16: 0.679 ms
 * without a cap, 0.560 at 64 registers). 1 when kept. */
static int try_at_occupancy(tune_state *st, const int *v, int i, int round) {
    int r = partner(st, i, CLPERM_PARAM_REGISTERS), w = partner(st, i, CLPERM_PARAM_SG_MULTIPLE);
    int per_block = (int)st->d->profile.registers_per_block;
    if (r < 0 || w < 0 || !per_block || !st->moves[r] || effective(st, v, i) <= effective(st, st->best, i)) return 0;
    int wg = (effective(st, v, w) + 127) / 128 * 128; /* in fours of warps, as src/sort/radix.c */
    int cap = wg ? per_block / (2 * wg) / 8 * 8 : 0;
    if (cap < 32 || cap > st->space.info[r].hi || cap == v[r]) return 0;
    int u[TUNE_MAX_VALUES];
    memcpy(u, v, sizeof u);
    u[r] = cap;
    return try_values(st, u, st->moves[i] | st->moves[r], round);
}

/* Each tunable in turn to each of its neighbours, judged by the jobs it moves (more items a
 * work-item also at the cap of try_at_occupancy); 1 when a change was kept. */
static int descend(tune_state *st, int round, double until) {
    int changed = 0;
    for (int i = 0; i < st->space.count && time_left(st, until); i++) {
        int cand[24];
        int nc = neighbours(st, i, st->best[i], cand);
        for (int k = 0; k < nc && st->moves[i] && time_left(st, until); k++) {
            int v[TUNE_MAX_VALUES];
            memcpy(v, st->best, sizeof v);
            v[i] = cand[k];
            int kept = try_values(st, v, st->moves[i], round);
            if (!kept && time_left(st, until)) kept = try_at_occupancy(st, v, i, round);
            changed |= kept;
        }
    }
    return changed;
}

/* A tile's shape changed at about the same size: its work-group doubled, halved, or by 3/4 or
 * 3/2, with the items per work-item of every tunable coupled with it the other way, so that a
 * search stuck at one shape can reach another as good with room to grow (the scan's 512 x 10 to
 * 256 x 20, the sort's 512 x 12 to 384 x 16). 1 when one was kept. */
static int scale_tiles(tune_state *st, int round, double until) {
    static const int num[] = {2, 1, 3, 3}, den[] = {1, 2, 4, 2};
    int pairs[2 * TUNE_MAX_VALUES], n = couples_of(st, pairs), changed = 0;
    for (int a = 0; a < st->space.count && !changed && time_left(st, until); a++)
        for (int f = 0; f < 4 && !changed && time_left(st, until); f++) {
            int v[TUNE_MAX_VALUES], others = 0, ea = effective(st, st->best, a);
            int ok = ea > 0 && (st->space.info[a].flags & (CLPERM_PARAM_POW2 | CLPERM_PARAM_SG_MULTIPLE));
            unsigned mask = st->moves[a];
            memcpy(v, st->best, sizeof v);
            if (ok) v[a] = fit(st, a, ea * num[f] / den[f]);
            ok = ok && v[a] > 0 && v[a] != ea;
            for (int c = 0; c < n && ok; c++) {
                int b = pairs[2 * c + 1], eb = effective(st, st->best, b);
                if (pairs[2 * c] != a || eb == 0) continue;
                v[b] = fit(st, b, (eb * den[f] + num[f] / 2) / num[f]);
                if (v[b] < 0) v[b] = num[f] > den[f] ? st->space.info[b].lo : st->space.info[b].hi;
                others += v[b] != eb;
                mask |= st->moves[b];
            }
            if (ok && others) changed = try_values(st, v, mask, round);
        }
    return changed;
}

/* Every pair of neighbouring values of each couple (a tile's keys per work-item with its
 * register cap), in random order, until one is kept. */
static int move_couples(tune_state *st, int round, double until) {
    int pairs[2 * TUNE_MAX_VALUES], n = couples_of(st, pairs);
    enum { MAX_MOVES = 1024 };
    int moves[MAX_MOVES][4], count = 0;
    for (int c = 0; c < n; c++) {
        int a = pairs[2 * c], b = pairs[2 * c + 1];
        int ca[24], cb[24];
        int na = neighbours(st, a, st->best[a], ca), nb = neighbours(st, b, st->best[b], cb);
        if (!(st->moves[a] & st->moves[b])) continue;
        for (int x = 0; x < na; x++)
            for (int y = 0; y < nb && count < MAX_MOVES; y++) {
                moves[count][0] = a, moves[count][1] = ca[x], moves[count][2] = b, moves[count][3] = cb[y];
                count++;
            }
    }
    for (int k = count - 1; k > 0; k--) { /* Fisher-Yates */
        int r = rand() % (k + 1), t[4];
        memcpy(t, moves[k], sizeof t);
        memcpy(moves[k], moves[r], sizeof t);
        memcpy(moves[r], t, sizeof t);
    }
    for (int k = 0; k < count && time_left(st, until); k++) {
        int v[TUNE_MAX_VALUES];
        memcpy(v, st->best, sizeof v);
        v[moves[k][0]] = moves[k][1];
        v[moves[k][2]] = moves[k][3];
        if (try_values(st, v, st->moves[moves[k][0]] | st->moves[moves[k][2]], round)) return 1;
    }
    return 0;
}

/* Pairs of any two tunables that move a job together, changed at random. */
static int move_pairs(tune_state *st, int round, double until) {
    for (int tries = 0; tries < 4 * st->space.count && time_left(st, until); tries++) {
        int a = rand() % st->space.count, b = rand() % st->space.count;
        if (a == b || !(st->moves[a] & st->moves[b])) continue;
        int ca[24], cb[24];
        int na = neighbours(st, a, st->best[a], ca), nb = neighbours(st, b, st->best[b], cb);
        if (!na || !nb) continue;
        int v[TUNE_MAX_VALUES];
        memcpy(v, st->best, sizeof v);
        v[a] = ca[rand() % na];
        v[b] = cb[rand() % nb];
        if (try_values(st, v, st->moves[a] | st->moves[b], round)) return 1;
    }
    return 0;
}

/* The candidates that seemed better and were not confirmed, each timed once more with its changes
 * applied to the best values of now: at the tuning size some jobs' times move by more than the
 * gain from one timing to the next (the segmented sort of u32 pairs in segments of 2048 on the
 * H200: 16 keys a work-item 3% faster at first, not confirmed, and 6% faster in the final
 * comparison). Only where the rounds keep nothing else and time is left. 1 when one was kept. */
static int second_look(tune_state *st, int round, double until) {
    struct tune_near near[TUNE_MAX_NEAR];
    int n = st->nnear, changed = 0, k = 0;
    memcpy(near, st->near, sizeof near);
    st->nnear = 0;
    if (n && time_left(st, until))
        note("%s: round %d: a second look at %d candidate(s) that seemed faster and were not confirmed", st->fam->name,
             round, n);
    for (; k < n && !changed && time_left(st, until); k++) {
        int v[TUNE_MAX_VALUES];
        memcpy(v, st->best, sizeof v);
        for (int i = 0; i < st->space.count; i++)
            if (near[k].v[i] != near[k].from[i]) v[i] = near[k].v[i];
        if (!memcmp(v, st->best, sizeof(int) * (size_t)st->space.count)) continue;
        changed = try_clocked(st, v, near[k].mask, round);
    }
    /* Each gets one second look: those not confirmed again are not kept for a third; those not
     * reached wait for the next. */
    st->nnear = 0;
    for (; k < n; k++) st->near[st->nnear++] = near[k];
    return changed;
}

/* Rounds of the final comparison. On GPUs too a job's time moves between evaluations: the
 * scheduled permutation of 2^24 items on the H100 by 11% with the same values (52.2 and 47.0 G
 * items/s). On CPUs five: a series of five runs of one job there can be slow throughout. */
static int final_rounds(const tune_state *st) { return bench_dev_is_cpu(st->d) ? 5 : 3; }

/* Puts one of the three sets of values the final comparison times into the context: 0 the tuned
 * values, 1 every built-in row's, 2 the generic rows'. */
static void final_set(tune_state *st, int which) {
    if (which == 0)
        write_values(st, st->best);
    else
        clperm_ctx_reset_tuning(st->d->ctx, st->fam->name,
                                which == 1 ? CLPERM_TUNING_DEVICE_ROW : CLPERM_TUNING_CLASS_ROW);
}

/* The tuned values' figures (into best_s), the built-in rows' and the generic rows' (their values
 * into builtin_v and generic_v), each job's fastest over `rounds` rounds. Within a round each job
 * is timed with the three sets in turn, one job after another, so that the times compared are
 * moments apart: on a CPU shared with other machines a slow spell lasts longer than a job's runs
 * (the bit reversal of 2^22 items on the 2-core machine, the same kernel and buffers: 2.4 to 7 ms
 * from one run to the next), and evaluating a family's jobs with one set at a time let one set
 * have it all. Each set is checked at the check size before it is first timed. */
static void final_figures(tune_state *st, int rounds, int *builtin_v, int *generic_v) {
    double *fig[3] = {st->best_s, st->builtin_s, st->generic_s};
    int *vals[3] = {NULL, builtin_v, generic_v}, failed[3] = {0, 0, 0};
    bench_timing once = {0, 1, 0};
    for (int w = 0; w < 3; w++) {
        final_set(st, w);
        if (w) read_values(st, vals[w]);
        for (int j = 0; j < st->njobs && !failed[w]; j++) {
            const tune_job *job = &st->jobs[j];
            char e[256] = "";
            if (bench_measure(st->d, &job->c, check_size(st, job), job->segment, &once, BENCH_VERIFY_ALL, NULL, e,
                              sizeof e) < 0) {
                failed[w] = 1;
                if (w) note("%s: the %s rows fail %s: %s", st->fam->name, w == 2 ? "generic" : "built-in", job->label, e);
            }
        }
        if (failed[w] && w) memset(fig[w], 0, sizeof(double) * TUNE_MAX_JOBS);
    }
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < st->njobs; j++)
            for (int w = 0; w < 3; w++) {
                if (failed[w]) continue;
                final_set(st, w);
                char e[256] = "";
                double s = bench_measure(st->d, &st->jobs[j].c, st->o->n, st->jobs[j].segment, &st->o->timing,
                                         BENCH_VERIFY_OFF, NULL, e, sizeof e);
                if (s > 0 && (r == 0 || fig[w][j] <= 0 || s < fig[w][j])) fig[w][j] = s;
            }
}

/* The start is a candidate too: where it is the built-in or the generic rows' values, the final
 * comparison timed it beside the values found, and it is kept if it was faster there. A search on
 * a shared CPU can follow a slow spell away from better values (PoCL 3.1 on the 2-core machine:
 * the scan's serial tiles from 16384 to 6144 items, 0.78 of the start, confirmed twice). */
static void keep_start_if_faster(tune_state *st, const int *start_v, const int *builtin_v, const int *generic_v) {
    size_t bytes = sizeof(int) * (size_t)st->space.count;
    const double *fig = memcmp(start_v, builtin_v, bytes) == 0   ? st->builtin_s
                        : memcmp(start_v, generic_v, bytes) == 0 ? st->generic_s
                                                                  : NULL;
    if (!fig || memcmp(start_v, st->best, bytes) == 0) return;
    for (int j = 0; j < st->njobs; j++)
        if (fig[j] <= 0) return;
    double found = mean_of(st, st->all, st->best_s), start = mean_of(st, st->all, fig);
    if (start >= found) return;
    note("%s: the start's values kept: %.3fx the values found in the final comparison", st->fam->name, found / start);
    memcpy(st->best, start_v, bytes);
    memcpy(st->best_s, fig, sizeof(double) * TUNE_MAX_JOBS);
}

/* share: the family's part of the time left (its share over the shares of the families left). */
static int tune_family_run(tune_state *st, int fi, double share) {
    char err[512], text[512];
    double now = bench_now();
    double left = st->deadline - now;
    double until = now + left * share;
    space_of(st->fam, &st->space);
    st->njobs = 0;
    for (int j = 0; j < st->fam->njobs; j++) {
        const tune_job *job = &st->fam->jobs[j];
        if (job->c.kind == BENCH_KIND_PERMUTE && !bench_permute_runs(st->d, &job->c, st->o->n, 0)) continue;
        st->jobs[st->njobs++] = *job;
    }
    st->all = (1u << st->njobs) - 1;
    for (int i = 0; i < st->space.count; i++) {
        char key[64];
        snprintf(key, sizeof key, ",%s,", st->space.info[i].name);
        st->moves[i] = 0;
        /* Register caps are taken by NVIDIA's compiler alone (-cl-nv-maxrregcount). */
        if ((st->space.info[i].flags & CLPERM_PARAM_REGISTERS) && st->d->profile.vendor != CLPERM_VENDOR_NVIDIA)
            continue;
        for (int j = 0; j < st->njobs; j++)
            if (!st->jobs[j].tunables || strstr(st->jobs[j].tunables, key)) st->moves[i] |= 1u << j;
    }
    if (st->njobs == 0 || st->space.count == 0) {
        note("%s: nothing to tune on this device", st->fam->name);
        return 0;
    }
    st->tried = st->skipped = st->nseen = st->nnear = 0;
    memset(st->start_s, 0, sizeof st->start_s);
    if (read_values(st, st->initial) != 0) return -1;
    for (int j = 0; j < st->njobs; j++) {
        clperm_rng_spec spec;
        if (st->jobs[j].c.kind != BENCH_KIND_RNG_FILL || clperm_rng_default(st->d->ctx, &spec) != CLPERM_SUCCESS)
            continue;
        st->jobs[j].c.rng_family = spec.family;
        st->jobs[j].c.rng_k = spec.k;
        st->jobs[j].c.rng_scramble = spec.scramble;
    }
    /* The figures to compare with: the generic rows and every built-in row. */
    int generic_v[TUNE_MAX_VALUES], builtin_v[TUNE_MAX_VALUES];
    figure_of(st, CLPERM_TUNING_CLASS_ROW, st->generic_s, generic_v);
    figure_of(st, CLPERM_TUNING_DEVICE_ROW, st->builtin_s, builtin_v);
    /* The start: the generic rows, or what the context had (rows and file); the families tuned
     * before keep their values. */
    memcpy(st->best, st->o->ignore_database ? generic_v : st->initial, sizeof st->best);
    int start_v[TUNE_MAX_VALUES];
    memcpy(start_v, st->best, sizeof start_v);
    if (write_values(st, st->best) != 0) return -1;
    double t_eval = bench_now();
    double start_total = evaluate(st, st->all, st->best_s, 0, err, sizeof err);
    /* The search leaves the time of the final comparison (rounds of three timings of each job) and of the
     * check at the timed size within the family's share. */
    st->slowest = bench_now() - t_eval;
    until -= (3 * final_rounds(st) + 1) * st->slowest;
    if (start_total < 0) {
        note("%s: the starting values fail (%s); the family is left out", st->fam->name, err);
        return 0;
    }
    memcpy(st->start_s, st->best_s, sizeof st->start_s);
    values_text(st, st->best, NULL, text, sizeof text);
    note("%s [%d/%zu]: start %s: %.4g ms (geometric mean of %d jobs at n = %llu)", st->fam->name, fi + 1,
         TUNE_NFAMILIES, text, start_total * 1e3, st->njobs, (unsigned long long)st->o->n);
    doc_save(st);
    /* Coordinate descent, then moves of several tunables at once, until a round keeps nothing or
     * the family's time is spent (docs/tuning.md). */
    for (int round = 1; time_left(st, until); round++)
        if (!descend(st, round, until) && !scale_tiles(st, round, until) && !move_couples(st, round, until) &&
            !move_pairs(st, round, until) && !second_look(st, round, until))
            break;
    /* The figures of the values kept, all jobs timed together and beside them the built-in and
     * the generic rows' again, so that all three are of one moment: rounds of each job with the
     * three in turn, each one's fastest kept. Then the values checked at the timed size before they
     * are written as found. */
    final_figures(st, final_rounds(st), builtin_v, generic_v);
    keep_start_if_faster(st, start_v, builtin_v, generic_v);
    write_values(st, st->best);
    for (int j = 0; j < st->njobs; j++) {
        bench_timing once = {0, 1, 0};
        char e[256] = "";
        if (bench_measure(st->d, &st->jobs[j].c, st->o->n, st->jobs[j].segment, &once, BENCH_VERIFY_ALL, NULL, e,
                          sizeof e) < 0) {
            note("%s: the values found fail %s at n = %llu: %s; the family is left out", st->fam->name,
                 st->jobs[j].label, (unsigned long long)st->o->n, e);
            cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(st->entry, "families"),
                                                    st->fam->name);
            return -1;
        }
    }
    doc_save(st);
    values_text(st, st->best, NULL, text, sizeof text);
    double tuned = mean_of(st, st->all, st->best_s), builtin = mean_of(st, st->all, st->builtin_s);
    double generic = mean_of(st, st->all, st->generic_s);
    note("%s: %d candidates (%d skipped); %.3fx the start, %.3fx the built-in rows, %.3fx the generic rows: %s",
         st->fam->name, st->tried, st->skipped, start_total / tuned, builtin / tuned, generic / tuned, text);
    for (int j = 0; j < st->njobs; j++)
        note("%s:   %-20s %8.4g G items/s tuned, %8.4g built-in rows (%.3fx), %8.4g generic rows", st->fam->name,
             st->jobs[j].label, st->o->n / st->best_s[j] / 1e9,
             st->builtin_s[j] > 0 ? st->o->n / st->builtin_s[j] / 1e9 : 0.0,
             st->builtin_s[j] > 0 ? st->builtin_s[j] / st->best_s[j] : 0.0,
             st->generic_s[j] > 0 ? st->o->n / st->generic_s[j] / 1e9 : 0.0);
    return 0;
}

/* ---- --merge ---- */

static int merge(const tune_opts *o) {
    int rc = 0;
    for (int i = 0; i < o->nmerge; i++) {
        cJSON *doc = load_doc(o->merge[i]);
        if (!doc) {
            fprintf(stderr, "clperm tune: %s: cannot read it as JSON\n", o->merge[i]);
            rc = 1;
            continue;
        }
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "entries")) {
            const cJSON *dev = cJSON_GetObjectItemCaseSensitive(e, "device");
            const cJSON *how = cJSON_GetObjectItemCaseSensitive(e, "tuned");
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dev, "name"));
            const char *driver = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dev, "driver"));
            const char *date = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(how, "date"));
            const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dev, "type"));
            if (!name || !driver) continue;
            const cJSON *fam;
            cJSON_ArrayForEach(fam, cJSON_GetObjectItemCaseSensitive(e, "families")) {
                printf("/* src/%s/%s_rows.c, from %s */\n", fam->string, fam->string, o->merge[i]);
                printf("    {{CLPERM_VENDOR_OTHER, %s, \"%s\",\n      \"clperm tune on the %s, driver %s, %s:",
                       type && !strcmp(type, "GPU") ? "CL_DEVICE_TYPE_GPU" : type && !strcmp(type, "CPU") ? "CL_DEVICE_TYPE_CPU" : "0",
                       name, name, driver, date ? date : "undated");
                const cJSON *f;
                int first = 1;
                cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(fam, "figures")) {
                    const char *job = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "job"));
                    const cJSON *n = cJSON_GetObjectItemCaseSensitive(f, "n");
                    const cJSON *t = cJSON_GetObjectItemCaseSensitive(f, "tuned_items_per_s");
                    const cJSON *b = cJSON_GetObjectItemCaseSensitive(f, "built_in_items_per_s");
                    if (!job || !cJSON_IsNumber(n) || !cJSON_IsNumber(t)) continue;
                    printf("%s %s at %.0f, %.3g G items/s", first ? "" : ";", job, n->valuedouble, t->valuedouble / 1e9);
                    if (cJSON_IsNumber(b)) printf(" (built-in rows %.3g)", b->valuedouble / 1e9);
                    first = 0;
                }
                printf("\", 0},\n     {");
                const cJSON *v;
                first = 1;
                cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(fam, "values")) {
                    if (!cJSON_IsNumber(v)) continue;
                    int x = (int)v->valuedouble;
                    printf("%s.%s = %d", first ? "" : ", ", v->string, x ? x : -1);
                    first = 0;
                }
                printf("}},\n");
            }
        }
        cJSON_Delete(doc);
    }
    return rc;
}

int tune_main(int argc, char **argv) {
    tune_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) return rc > 0 ? 0 : 2;
    if (o.nmerge) return merge(&o);
    char err[512];
    bench_dev *d = bench_dev_open(o.device, NULL, 0, err, sizeof err);
    if (!d) {
        fprintf(stderr, "clperm tune: cannot open the device: %s\n", err);
        return 1;
    }
    int cpu = bench_dev_is_cpu(d);
    if (!o.n) o.n = cpu ? (uint64_t)1 << 22 : (uint64_t)1 << 24;
    if (!o.n_check) o.n_check = ((uint64_t)1 << 18) + 3;
    if (!o.timing.reps) o.timing.reps = 5;
    /* On CPUs the machine's other work makes the median wander by tens of per cent between two
     * runs of the same values: the fastest run is the steadier measure there, after more runs
     * to wake the runtime's threads. */
    o.timing.fastest = cpu;
    if (cpu) o.timing.warmup = 3;
    if (bench_dev_prepare(d, o.n > o.n_check ? o.n : o.n_check, err, sizeof err) != 0) {
        fprintf(stderr, "clperm tune: %s\n", err);
        bench_dev_close(d);
        return 1;
    }
    note("%s / %s, %.3g minutes, n = %llu, checked at %llu, %d timed runs a candidate%s", d->profile.platform_name,
         d->profile.device_name, o.minutes, (unsigned long long)o.n, (unsigned long long)o.n_check, o.timing.reps,
         o.timing.fastest ? " (the fastest kept)" : " (the median kept)");
    tune_state st;
    memset(&st, 0, sizeof st);
    st.o = &o;
    st.d = d;
    st.deadline = bench_now() + 60 * o.minutes;
    st.seen = calloc(TUNE_MAX_SEEN, sizeof *st.seen);
    if (!st.seen) {
        note("out of host memory");
        bench_dev_close(d);
        return 1;
    }
    doc_open(&st);
    signal(SIGINT, on_interrupt);
    int failed = 0;
    double shares = 0;
    for (size_t f = 0; f < TUNE_NFAMILIES; f++)
        if (family_selected(&o, tune_families[f].name)) shares += tune_families[f].share;
    for (size_t f = 0; f < TUNE_NFAMILIES && !interrupted; f++) {
        if (!family_selected(&o, tune_families[f].name)) continue;
        st.fam = &tune_families[f];
        failed |= tune_family_run(&st, (int)f, st.fam->share / shares) != 0;
        shares -= st.fam->share;
    }
    signal(SIGINT, SIG_DFL);
    if (interrupted) note("interrupted: %s holds what was found so far", o.out);
    else note("wrote %s: use it with CLPERM_TUNING_FILE=%s", o.out, o.out);
    cJSON_Delete(st.doc);
    free(st.seen);
    bench_dev_close(d);
    return failed ? 1 : 0;
}

#endif
