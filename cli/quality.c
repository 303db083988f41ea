/* `clperm quality`: the statistical tests of Section 5 of the shuffling paper (Pearson's
 * chi-squared over the 120 permutations of 5 items, MMD with the Mallows kernel) and the parity
 * and cycle-count tests on a sample of host permutations, the k-th with seed base + k. A
 * measurement: the exit status is 0 whether the sample passes or not. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "clperm.h"

#define DEFAULT_SEED 0x2026112100000001ull
/* Permutations are drawn and MMD-tested in chunks of at most this many values (64 MB). */
#define CHUNK_VALUES (1u << 24)
#define CHUNK_PERMS 10000u
/* A sample of at most this many values (1 GiB) is drawn once and held, for the cycle test. */
#define WHOLE_VALUES (UINT64_C(1) << 28)

typedef struct quality_opts {
    clperm_shuffle_opts shuffle;
    uint64_t n, count, seed;
    double lambda, alpha;
} quality_opts;

static void usage(FILE *f) {
    fprintf(f,
            "usage: clperm quality [options]\n"
            "\n"
            "Draws `count` permutations of n items with the host shuffle (the permutation every\n"
            "device gives, bit for bit), the k-th with seed S + k, and runs the statistical tests\n"
            "of Section 5 of the shuffling paper: at n = 5 Pearson's chi-squared test over the 120\n"
            "permutations and the MMD test; at other n the MMD test (Mallows kernel, unbiased MMD^2\n"
            "against the uniform distribution, normal and Hoeffding acceptance thresholds). Then,\n"
            "when n = 5 or the sample holds at most 2^28 values, the parity (exact binomial) and\n"
            "cycle-count (chi-squared against |s(n, c)| / n!) tests.\n"
            "One line per test on stdout; progress on stderr during long runs. The exit status is\n"
            "0 whether or not the sample passes (a measurement), 2 for bad arguments.\n"
            "\n"
            "options:\n"
            "  --algorithm A   bijective (default) or buckets (random buckets, each by the bijection)\n"
            "  --bijection B   feistel (over a x 2^h, default), philox (VariablePhilox) or lcg\n"
            "  --rounds R      rounds, 1..64 (default 8 for feistel, 24 for philox); not for lcg\n"
            "  --n N           items per permutation, 2..4294967295 (default 5)\n"
            "  --count C       permutations in the sample, even, >= 2 (default 100000)\n"
            "  --seed S        base seed, decimal or 0x-hex (default %#llx)\n"
            "  --lambda L      Mallows kernel parameter (default 5, as in the paper)\n"
            "  --alpha A       significance level of every test, 0 < A < 1 (default 0.05)\n"
            "  -h, --help      this text\n"
            "\n"
            "output fields: the test (chi2, mmd or cycles), the sample, the statistic, then chi2's\n"
            "dof and p-value, MMD's thresholds, or the cycle test's dof, p-value, mean cycle count,\n"
            "odd permutations and parity p-value; and PASS, FAIL, or for MMD FAIL(normal) /\n"
            "FAIL(hoeffding) when only one threshold rejects, for cycles FAIL(parity) / FAIL(cycles).\n",
            DEFAULT_SEED);
}

static int parse_u64(const char *s, uint64_t *out) {
    char *end;
    if (!*s || *s == '-') return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

static int bad(const char *what, const char *value) {
    fprintf(stderr, "clperm quality: bad %s \"%s\" (clperm quality --help)\n", what, value);
    return -1;
}

static int parse_args(int argc, char **argv, quality_opts *o) {
    memset(o, 0, sizeof *o);
    o->shuffle.bijection = CLPERM_BIJECTION_FEISTEL;
    o->n = 5;
    o->count = 100000;
    o->seed = DEFAULT_SEED;
    o->lambda = 5.0;
    o->alpha = 0.05;
    uint64_t rounds = 0;
    int rounds_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--algorithm") && v) {
            if (!strcmp(v, "bijective"))
                o->shuffle.algorithm = CLPERM_SHUFFLE_BIJECTIVE;
            else if (!strcmp(v, "buckets"))
                o->shuffle.algorithm = CLPERM_SHUFFLE_BUCKETS;
            else
                return bad("algorithm (bijective or buckets)", v);
            i++;
        } else if (!strcmp(a, "--bijection") && v) {
            if (!strcmp(v, "philox"))
                o->shuffle.bijection = CLPERM_BIJECTION_PHILOX;
            else if (!strcmp(v, "lcg"))
                o->shuffle.bijection = CLPERM_BIJECTION_LCG;
            else if (!strcmp(v, "feistel"))
                o->shuffle.bijection = CLPERM_BIJECTION_FEISTEL;
            else
                return bad("bijection", v);
            i++;
        } else if (!strcmp(a, "--rounds") && v) {
            if (parse_u64(v, &rounds) != 0 || rounds < 1 || rounds > CLPERM_PHILOX_MAX_ROUNDS)
                return bad("round count", v);
            rounds_given = 1;
            i++;
        } else if (!strcmp(a, "--n") && v) {
            if (parse_u64(v, &o->n) != 0 || o->n < 2 || o->n > UINT32_MAX) return bad("n", v);
            i++;
        } else if (!strcmp(a, "--count") && v) {
            if (parse_u64(v, &o->count) != 0 || o->count < 2 || o->count % 2) return bad("count", v);
            i++;
        } else if (!strcmp(a, "--seed") && v) {
            if (parse_u64(v, &o->seed) != 0) return bad("seed", v);
            i++;
        } else if (!strcmp(a, "--lambda") && v) {
            if (parse_double(v, &o->lambda) != 0 || !(o->lambda > 0)) return bad("lambda", v);
            i++;
        } else if (!strcmp(a, "--alpha") && v) {
            if (parse_double(v, &o->alpha) != 0 || !(o->alpha > 0 && o->alpha < 1)) return bad("alpha", v);
            i++;
        } else {
            fprintf(stderr, "clperm quality: unknown or incomplete option \"%s\"\n\n", a);
            usage(stderr);
            return -1;
        }
    }
    if (o->shuffle.bijection == CLPERM_BIJECTION_LCG && rounds_given) {
        fprintf(stderr, "clperm quality: --rounds does not apply to lcg\n");
        return -1;
    }
    o->shuffle.rounds = rounds_given ? (int)rounds : 0;
    if (o->n == 5 && o->count > SIZE_MAX / (5 * sizeof(uint32_t))) return bad("count", "(too large for memory)");
    return 0;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Progress on stderr at most every two seconds, once a run has lasted that long. */
typedef struct progress {
    double start, last;
    const char *what;
} progress;

static void progress_report(progress *p, const quality_opts *o, uint64_t done) {
    double t = now();
    if (t - p->last < 2.0) return;
    p->last = t;
    fprintf(stderr, "clperm quality: %s n=%llu: %llu of %llu permutations (%.1f s)\n", p->what,
            (unsigned long long)o->n, (unsigned long long)done, (unsigned long long)o->count, t - p->start);
}

/* Permutations first .. first + c - 1 of the sample into perms. */
static int draw(const quality_opts *o, uint64_t first, uint64_t c, uint32_t *perms) {
    for (uint64_t k = 0; k < c; k++) {
        clperm_status st = clperm_permutation_host(CLPERM_TYPE_U32, perms + (size_t)(k * o->n), o->n,
                                                   o->seed + first + k, &o->shuffle);
        if (st != CLPERM_SUCCESS) {
            fprintf(stderr, "clperm quality: permutation %llu: %s\n", (unsigned long long)(first + k),
                    clperm_status_string(st));
            return -1;
        }
    }
    return 0;
}

static void print_sample(const char *test, const quality_opts *o) {
    char rounds[16] = "-";
    clperm_shuffle_opts bij = o->shuffle;
    bij.algorithm = CLPERM_SHUFFLE_BIJECTIVE; /* the rounds the options give */
    clperm_bijection_key key;
    if (clperm_bijection_init(&key, o->n, o->seed, &bij) == CLPERM_SUCCESS && key.kind != CLPERM_BIJ_LCG)
        snprintf(rounds, sizeof rounds, "%u", key.rounds);
    const char *name = o->shuffle.bijection == CLPERM_BIJECTION_LCG       ? "lcg"
                       : o->shuffle.bijection == CLPERM_BIJECTION_FEISTEL ? "feistel"
                                                                          : "philox";
    printf("%s algorithm=%s bijection=%s rounds=%s n=%llu count=%llu seed=0x%016llx", test,
           clperm_shuffle_algorithm_name(o->shuffle.algorithm ? o->shuffle.algorithm : CLPERM_SHUFFLE_BIJECTIVE), name,
           rounds, (unsigned long long)o->n,
           (unsigned long long)o->count, (unsigned long long)o->seed);
}

static int run_chi2(const quality_opts *o, const uint32_t *all) {
    clperm_chi2_result res;
    clperm_status st = clperm_quality_chi2_5(all, o->count, &res);
    if (st != CLPERM_SUCCESS) {
        fprintf(stderr, "clperm quality: chi2: %s\n", clperm_status_string(st));
        return -1;
    }
    print_sample("chi2", o);
    printf(" statistic=%.2f dof=%d p=%.4g alpha=%g %s\n", res.statistic, res.dof, res.p_value, o->alpha,
           res.p_value > o->alpha ? "PASS" : "FAIL");
    fflush(stdout);
    return 0;
}

static int run_cycles(const quality_opts *o, const uint32_t *all) {
    clperm_cycles_result res;
    clperm_status st = clperm_quality_cycles(all, (uint32_t)o->n, o->count, &res);
    if (st != CLPERM_SUCCESS) {
        fprintf(stderr, "clperm quality: cycles: %s\n", clperm_status_string(st));
        return -1;
    }
    int pass_parity = res.parity_p_value > o->alpha, pass_cycles = res.p_value > o->alpha;
    print_sample("cycles", o);
    printf(" statistic=%.2f dof=%d p=%.4g mean=%.4f odd=%llu parity_p=%.4g alpha=%g %s\n", res.statistic, res.dof,
           res.p_value, res.mean_cycles, (unsigned long long)res.odd, res.parity_p_value, o->alpha,
           pass_parity && pass_cycles ? "PASS"
           : pass_cycles              ? "FAIL(parity)"
           : pass_parity              ? "FAIL(cycles)"
                                      : "FAIL");
    fflush(stdout);
    return 0;
}

/* The MMD test chunk by chunk: MMD^2 is the mean kernel value over the pairs less E[K], so the
 * sample's statistic is the count-weighted mean of the chunks' statistics, and both thresholds
 * scale as 1 / sqrt(count). `all` holds the whole sample, or is NULL to draw each chunk here. */
static int run_mmd(const quality_opts *o, const uint32_t *all) {
    uint64_t chunk = CHUNK_VALUES / o->n;
    if (chunk > CHUNK_PERMS) chunk = CHUNK_PERMS;
    if (chunk < 2) chunk = 2;
    chunk -= chunk % 2;
    uint32_t *buf = NULL;
    if (!all) {
        buf = malloc((size_t)(chunk * o->n) * sizeof *buf);
        if (!buf) {
            fprintf(stderr, "clperm quality: out of memory for %llu permutations of %llu\n",
                    (unsigned long long)chunk, (unsigned long long)o->n);
            return -1;
        }
    }
    progress prog = {now(), now(), "mmd"};
    double sum = 0, thr_normal = 0, thr_hoeffding = 0;
    int rc = 0;
    for (uint64_t first = 0; first < o->count; first += chunk) {
        uint64_t c = o->count - first < chunk ? o->count - first : chunk;
        const uint32_t *perms = all ? all + (size_t)(first * o->n) : buf;
        if (!all && draw(o, first, c, buf) != 0) {
            rc = -1;
            break;
        }
        clperm_mmd_result res;
        clperm_status st = clperm_quality_mmd(perms, (uint32_t)o->n, c, o->lambda, o->alpha, &res);
        if (st != CLPERM_SUCCESS) {
            fprintf(stderr, "clperm quality: mmd: %s\n", clperm_status_string(st));
            rc = -1;
            break;
        }
        sum += res.statistic * (double)c;
        double scale = sqrt((double)c / (double)o->count);
        thr_normal = res.threshold_normal * scale;
        thr_hoeffding = res.threshold_hoeffding * scale;
        progress_report(&prog, o, first + c);
    }
    free(buf);
    if (rc != 0) return rc;
    double stat = sum / (double)o->count;
    int pass_normal = fabs(stat) < thr_normal, pass_hoeffding = fabs(stat) < thr_hoeffding;
    print_sample("mmd", o);
    printf(" lambda=%g statistic=%.6g threshold_normal=%.6g threshold_hoeffding=%.6g alpha=%g %s\n", o->lambda, stat,
           thr_normal, thr_hoeffding, o->alpha,
           pass_normal && pass_hoeffding ? "PASS"
           : pass_normal                 ? "FAIL(hoeffding)"
           : pass_hoeffding              ? "FAIL(normal)"
                                         : "FAIL");
    fflush(stdout);
    return 0;
}

int quality_main(int argc, char **argv) {
    quality_opts o;
    if (parse_args(argc, argv, &o) != 0) return 2;
    /* A sample that fits is drawn once and held: chi-squared (n = 5), MMD and the cycle test read
     * it (n = 5 is always held, chi-squared needs it). A larger one is drawn chunk by chunk for MMD
     * alone. */
    if (o.n != 5 && o.count > WHOLE_VALUES / o.n) {
        fprintf(stderr, "clperm quality: %llu permutations of %llu exceed 2^28 values: MMD only\n",
                (unsigned long long)o.count, (unsigned long long)o.n);
        return run_mmd(&o, NULL) == 0 ? 0 : 1;
    }
    uint32_t *all = malloc((size_t)(o.count * o.n) * sizeof *all);
    if (!all) {
        fprintf(stderr, "clperm quality: out of memory for %llu permutations of %llu\n", (unsigned long long)o.count,
                (unsigned long long)o.n);
        return 1;
    }
    progress prog = {now(), now(), "drawing"};
    int rc = 0;
    for (uint64_t first = 0; first < o.count && rc == 0; first += CHUNK_PERMS) {
        uint64_t c = o.count - first < CHUNK_PERMS ? o.count - first : CHUNK_PERMS;
        rc = draw(&o, first, c, all + (size_t)(first * o.n));
        progress_report(&prog, &o, first + c);
    }
    if (rc == 0 && o.n == 5) rc = run_chi2(&o, all);
    if (rc == 0) rc = run_mmd(&o, all);
    if (rc == 0) rc = run_cycles(&o, all);
    free(all);
    return rc == 0 ? 0 : 1;
}
