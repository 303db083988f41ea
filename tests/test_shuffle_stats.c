/* Statistical quality of the shuffle's permutations (Section 5 of the shuffling paper), on the
 * host permutation, which every device reproduces bit for bit: VariablePhilox with 24 rounds and
 * the Feistel over a x 2^h with its default rounds pass the chi-squared test at n = 5, the MMD
 * test at n = 5, 100 and 1000, and the parity and cycle-count tests at n = 2^k and 2^k + 1; the
 * LCG bijection, both Feistel kinds with few rounds and the paper's VariablePhilox at n = 2^k
 * fail. Permutation k of a sample has seed base + k, the base
 * being test_seed() (printed; CLPERM_TEST_SEED replays or changes it: a test that must pass at
 * level 0.001 then fails for about one base in a thousand).
 *
 * CLPERM_TEST_LONG=1 draws the paper's 100,000 permutations at every n (400 MB at n = 1000).
 * Host code only: no OpenCL device is needed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define ALPHA 0.001
#define LAMBDA 5.0
#define PAPER_COUNT 100000

static const clperm_shuffle_opts philox24 = {CLPERM_BIJECTION_PHILOX, 0, 0};
static const clperm_shuffle_opts lcg = {CLPERM_BIJECTION_LCG, 0, 0};
static const clperm_shuffle_opts feistel = {CLPERM_BIJECTION_FEISTEL, 0, 0};

static const clperm_shuffle_opts buckets = {CLPERM_BIJECTION_FEISTEL, 0, CLPERM_SHUFFLE_BUCKETS};

static int long_run(void) {
    const char *e = getenv("CLPERM_TEST_LONG");
    return e && atoi(e) > 0;
}

/* "philox-24", "feistel-8", "lcg", "buckets-feistel-8" */
static const char *label(const clperm_shuffle_opts *o) {
    static char buf[32];
    if (o->algorithm == CLPERM_SHUFFLE_BUCKETS) return "buckets-feistel-8";
    if (o->bijection == CLPERM_BIJECTION_LCG) return "lcg";
    if (o->bijection == CLPERM_BIJECTION_FEISTEL)
        snprintf(buf, sizeof buf, "feistel-%d", o->rounds ? o->rounds : CLPERM_FEISTEL_DEFAULT_ROUNDS);
    else
        snprintf(buf, sizeof buf, "philox-%d", o->rounds ? o->rounds : CLPERM_PHILOX_DEFAULT_ROUNDS);
    return buf;
}

static uint64_t base_seed(void) {
    uint64_t base = test_seed();
    cr_log_info("base seed %#llx, permutation k has seed base + k (set CLPERM_TEST_SEED to replay)",
                (unsigned long long)base);
    return base;
}

/* count permutations of n, the k-th with seed base + k, one after another. */
static uint32_t *sample(uint32_t n, uint64_t count, uint64_t base, const clperm_shuffle_opts *o) {
    uint32_t *perms = malloc((size_t)n * (size_t)count * sizeof *perms);
    cr_assert(perms, "no memory for %llu permutations of %u", (unsigned long long)count, n);
    for (uint64_t k = 0; k < count; k++) {
        clperm_status st = clperm_permutation_host(CLPERM_TYPE_U32, perms + (size_t)k * n, n, base + k, o);
        if (st != CLPERM_SUCCESS)
            cr_assert_fail("%s n=%u seed %#llx: %s", label(o), n, (unsigned long long)(base + k),
                           clperm_status_name(st));
    }
    return perms;
}

static clperm_chi2_result chi2_n5(const clperm_shuffle_opts *o, uint64_t count, uint64_t base) {
    uint32_t *perms = sample(5, count, base, o);
    clperm_chi2_result res;
    cr_assert_eq(clperm_quality_chi2_5(perms, count, &res), CLPERM_SUCCESS);
    free(perms);
    cr_log_info("chi2 %s n=5 count=%llu base %#llx: statistic %.2f (dof %d), p %.3g", label(o),
                (unsigned long long)count, (unsigned long long)base, res.statistic, res.dof, res.p_value);
    return res;
}

static clperm_mmd_result mmd(const clperm_shuffle_opts *o, uint32_t n, uint64_t count, uint64_t base) {
    uint32_t *perms = sample(n, count, base, o);
    clperm_mmd_result res;
    cr_assert_eq(clperm_quality_mmd(perms, n, count, LAMBDA, ALPHA, &res), CLPERM_SUCCESS);
    free(perms);
    cr_log_info("MMD %s n=%u count=%llu base %#llx lambda %g alpha %g: MMD^2 %.4g, thresholds %.4g (normal) "
                "%.4g (Hoeffding)",
                label(o), n, (unsigned long long)count, (unsigned long long)base, LAMBDA, ALPHA, res.statistic,
                res.threshold_normal, res.threshold_hoeffding);
    return res;
}

/* ---- VariablePhilox with the default 24 rounds and the Feistel with its default rounds pass ---- */

static void chi2_passes(const clperm_shuffle_opts *o) {
    clperm_chi2_result res = chi2_n5(o, PAPER_COUNT, base_seed());
    cr_assert(res.p_value > ALPHA, "%s failed chi2 at n=5: statistic %.2f, p %.3g", label(o), res.statistic,
              res.p_value);
}

static void mmd_passes(const clperm_shuffle_opts *o, uint32_t n, uint64_t count) {
    if (long_run()) count = PAPER_COUNT;
    clperm_mmd_result res = mmd(o, n, count, base_seed());
    cr_assert(res.pass_normal && res.pass_hoeffding,
              "%s failed MMD at n=%u: MMD^2 %.4g, thresholds %.4g (normal) %.4g (Hoeffding)", label(o), n,
              res.statistic, res.threshold_normal, res.threshold_hoeffding);
}

/* Sample sizes of the normal tier: a few seconds in all (CLPERM_TEST_LONG=1: 100,000 each). */
Test(shuffle_stats, philox24_passes_chi2_n5) { chi2_passes(&philox24); }
Test(shuffle_stats, philox24_passes_mmd_n5) { mmd_passes(&philox24, 5, PAPER_COUNT); }
Test(shuffle_stats, philox24_passes_mmd_n100) { mmd_passes(&philox24, 100, PAPER_COUNT); }
Test(shuffle_stats, philox24_passes_mmd_n1000) { mmd_passes(&philox24, 1000, 20000); }
Test(shuffle_stats, feistel_passes_chi2_n5) { chi2_passes(&feistel); }
Test(shuffle_stats, feistel_passes_mmd_n5) { mmd_passes(&feistel, 5, PAPER_COUNT); }
Test(shuffle_stats, feistel_passes_mmd_n100) { mmd_passes(&feistel, 100, PAPER_COUNT); }
Test(shuffle_stats, feistel_passes_mmd_n1000) { mmd_passes(&feistel, 1000, 20000); }

/* ---- the bucket shuffle (its default bijection) ----
 * Pearson's chi-squared over all n! permutations for n = 3 .. 7 (12 n! samples: 60 expected per
 * cell), its p-value from the Wilson-Hilferty approximation (within a few percent of the exact
 * tail at these degrees of freedom, and checked here against clperm_quality_chi2_5 at n = 5). */

/* The rank of a permutation of n <= 7 in 0 .. n! - 1 (its Lehmer code). */
static uint32_t lehmer_rank(const uint32_t *p, uint32_t n) {
    uint32_t r = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t smaller = 0;
        for (uint32_t j = i + 1; j < n; j++) smaller += p[j] < p[i];
        r = r * (n - i) + smaller;
    }
    return r;
}

static double chi2_p_wilson_hilferty(double x, double k) {
    double z = (cbrt(x / k) - (1 - 2 / (9 * k))) / sqrt(2 / (9 * k));
    return 0.5 * erfc(z / sqrt(2.0));
}

Test(shuffle_stats, buckets_pass_chi2_n3_to_n7) {
    uint64_t base = base_seed();
    for (uint32_t n = 3; n <= 7; n++) {
        uint32_t cells = 1;
        for (uint32_t i = 2; i <= n; i++) cells *= i;
        uint64_t count = 60 * (uint64_t)cells;
        uint32_t *perms = sample(n, count, base, &buckets);
        uint64_t *seen = calloc(cells, sizeof *seen);
        cr_assert(seen);
        for (uint64_t k = 0; k < count; k++) seen[lehmer_rank(perms + k * n, n)]++;
        double stat = 0;
        for (uint32_t c = 0; c < cells; c++) stat += (seen[c] - 60.0) * (seen[c] - 60.0) / 60.0;
        double p = chi2_p_wilson_hilferty(stat, cells - 1);
        cr_log_info("chi2 buckets n=%u count=%llu: statistic %.1f (dof %u), p %.3g", n, (unsigned long long)count, stat,
                    cells - 1, p);
        if (n == 5) {
            clperm_chi2_result res;
            cr_assert_eq(clperm_quality_chi2_5(perms, count, &res), CLPERM_SUCCESS);
            cr_assert(fabs(res.statistic - stat) < 1e-6 * stat && fabs(res.p_value - p) < 0.02,
                      "n=5: statistic %.2f against %.2f, p %.4f against %.4f", stat, res.statistic, p, res.p_value);
        }
        cr_assert(p > ALPHA, "buckets failed chi2 at n=%u: statistic %.1f, p %.3g", n, stat, p);
        free(perms);
        free(seen);
    }
}

Test(shuffle_stats, buckets_pass_mmd_n100) { mmd_passes(&buckets, 100, 20000); }

/* ---- what must fail ---- */

/* The LCG reaches at most 2^(2b - 1) of the n! permutations (here 128 bijections of [0, 16)): the
 * paper reports a chi-squared statistic near 500,000 at 100,000 samples. The MMD test sees it too,
 * at n = 5 and at n = 100 (normal threshold; the Hoeffding bound is too loose there). */
Test(shuffle_stats, lcg_fails) {
    uint64_t base = base_seed();
    clperm_chi2_result chi = chi2_n5(&lcg, PAPER_COUNT, base);
    cr_assert(chi.statistic > 100000 && chi.p_value < 1e-100, "lcg passed chi2 at n=5: statistic %.2f, p %.3g",
              chi.statistic, chi.p_value);
    clperm_mmd_result m5 = mmd(&lcg, 5, PAPER_COUNT, base);
    cr_assert(!m5.pass_normal && !m5.pass_hoeffding, "lcg passed MMD at n=5: MMD^2 %.4g, thresholds %.4g %.4g",
              m5.statistic, m5.threshold_normal, m5.threshold_hoeffding);
    clperm_mmd_result m100 = mmd(&lcg, 100, 20000, base);
    cr_assert(!m100.pass_normal, "lcg passed MMD at n=100: MMD^2 %.4g, normal threshold %.4g", m100.statistic,
              m100.threshold_normal);
}

/* Fig. 6 of the paper: below about 20 rounds VariablePhilox tends to fail chi-squared at 100,000
 * samples. Here the statistic falls from about 1.85 million (1 round) through 241,000 (2),
 * 173,000 (4), 6,100 .. 6,350 (8) to 530 .. 680 (12), whatever the base; at 16 rounds p is
 * around 0.0004 .. 0.01, at 20 and more it passes: only 12 rounds and fewer are asserted. (The
 * paper's cipher, without the key's transposition, gave 5.9 million, 650,000, 470,000, 17,000 and
 * 1,100 .. 1,450: the transposition, drawn apart from the rounds, can only bring the law closer
 * to uniform.) */
static void few_rounds_fail(clperm_bijection kind, const int *rounds, size_t count) {
    uint64_t base = base_seed();
    for (size_t i = 0; i < count; i++) {
        clperm_shuffle_opts o = {kind, rounds[i], 0};
        clperm_chi2_result res = chi2_n5(&o, PAPER_COUNT, base);
        cr_assert(res.statistic > 400 && res.p_value < 1e-30, "%s passed chi2 at n=5: statistic %.2f, p %.3g",
                  label(&o), res.statistic, res.p_value);
    }
}

Test(shuffle_stats, philox_few_rounds_fail_chi2_n5) {
    static const int rounds[] = {1, 2, 4, 8, 12};
    few_rounds_fail(CLPERM_BIJECTION_PHILOX, rounds, sizeof rounds / sizeof rounds[0]);
}

/* The Feistel over a x 2^h at n = 5 works on a 16 x 16 domain. With 1 and 2 rounds the statistic
 * at 100,000 samples is in the thousands or more; 3 and 4 rounds fail only with larger samples
 * (4,000,000: statistics 270 .. 760, p below 1e-13), 5 and more pass there. */
Test(shuffle_stats, feistel_few_rounds_fail_chi2_n5) {
    static const int rounds[] = {1, 2};
    few_rounds_fail(CLPERM_BIJECTION_FEISTEL, rounds, sizeof rounds / sizeof rounds[0]);
}

/* ---- parity and cycle count ----
 *
 * At n = 2^k VariablePhilox evaluates its domain whole, nothing compacted away, so the permutation
 * is the bijection itself, and every round of the paper's cipher is an even permutation of a
 * power-of-two domain: the paper's VariablePhilox gives even permutations only, whatever its
 * rounds, and its cycle count always has the parity of n. clperm's adds the key's transposition
 * (clperm_bijection.h). Each sample holds CYCLE_COUNT permutations, the k-th with seed base + k;
 * the parity (two-sided binomial) and the cycle count (chi-squared against |s(n, c)| / n!) are
 * tested at level CYCLE_ALPHA each: the 2 x 12 p-values of one bijection at 4.8e-4 together
 * (Bonferroni). */

#define CYCLE_COUNT 2000
#define CYCLE_ALPHA 2e-5

/* 2^k and 2^k + 1; 192 = 12 x 2^4 and 272 = 17 x 2^4, where the Feistel's domain a x 2^h is n
 * itself, with an even and an odd radix a. */
static const uint32_t cycle_sizes[] = {16, 17, 32, 33, 64, 65, 192, 256, 257, 272, 1024, 1025};
#define CYCLE_SIZES (sizeof cycle_sizes / sizeof cycle_sizes[0])

/* The paper's VariablePhilox (Listing 1): clperm's without the key's transposition. */
static void paper_key(clperm_bijection_key *key) { key->swap[0] = key->swap[1] = 0; }

/* The permutations of the paper's VariablePhilox, the k-th with seed base + k. */
static uint32_t *sample_paper(uint32_t n, uint64_t count, uint64_t base, const clperm_shuffle_opts *o) {
    uint32_t *perms = malloc((size_t)n * (size_t)count * sizeof *perms);
    cr_assert(perms);
    for (uint64_t k = 0; k < count; k++) {
        clperm_bijection_key key;
        cr_assert_eq(clperm_bijection_init(&key, n, base + k, o), CLPERM_SUCCESS);
        paper_key(&key);
        uint32_t *p = perms + (size_t)k * n, j = 0;
        for (uint64_t i = 0; i < key.domain; i++) {
            uint64_t w = clperm_bijection_apply(&key, i);
            if (w < n) p[j++] = (uint32_t)w;
        }
        cr_assert_eq(j, n);
    }
    return perms;
}

static clperm_cycles_result cycles(const clperm_shuffle_opts *o, uint32_t n, uint64_t base, int paper) {
    uint32_t *perms = paper ? sample_paper(n, CYCLE_COUNT, base, o) : sample(n, CYCLE_COUNT, base, o);
    clperm_cycles_result res;
    cr_assert_eq(clperm_quality_cycles(perms, n, CYCLE_COUNT, &res), CLPERM_SUCCESS);
    free(perms);
    cr_log_info("%s%s n=%u count=%d base %#llx: odd %llu (p %.3g); cycles mean %.3f, chi2 %.2f (dof %d), p %.3g",
                paper ? "paper's " : "", label(o), n, CYCLE_COUNT, (unsigned long long)base,
                (unsigned long long)res.odd, res.parity_p_value, res.mean_cycles, res.statistic, res.dof, res.p_value);
    return res;
}

static void cycles_pass(const clperm_shuffle_opts *o, const uint32_t *sizes, size_t count) {
    uint64_t base = base_seed();
    for (size_t s = 0; s < count; s++) {
        clperm_cycles_result res = cycles(o, sizes[s], base, 0);
        cr_assert(res.parity_p_value > CYCLE_ALPHA, "%s n=%u: %llu odd of %d, p %.3g", label(o), sizes[s],
                  (unsigned long long)res.odd, CYCLE_COUNT, res.parity_p_value);
        cr_assert(res.p_value > CYCLE_ALPHA, "%s n=%u: cycle counts chi2 %.2f (dof %d), p %.3g", label(o), sizes[s],
                  res.statistic, res.dof, res.p_value);
    }
}

Test(shuffle_stats, philox24_passes_parity_and_cycles) { cycles_pass(&philox24, cycle_sizes, CYCLE_SIZES); }
Test(shuffle_stats, feistel_passes_parity_and_cycles) { cycles_pass(&feistel, cycle_sizes, CYCLE_SIZES); }
/* The bucket shuffle also where its labels decide: 16 buckets at 4096 and 4097 items, 64 at
 * 16385 (a bucket count of 2^(floor(log2 n) - 8)). */
static const uint32_t bucket_cycle_sizes[] = {16, 17, 32, 33, 64, 65, 192, 256, 257, 272, 1024, 1025, 4096, 4097, 16385};
Test(shuffle_stats, buckets_pass_parity_and_cycles) {
    cycles_pass(&buckets, bucket_cycle_sizes, sizeof bucket_cycle_sizes / sizeof bucket_cycle_sizes[0]);
}

/* Other round counts: parity alone (few rounds fail the cycle test as they fail chi-squared), at
 * a power of two and at the Feistel's odd radix (n = 272). */
Test(shuffle_stats, other_rounds_pass_parity) {
    static const int rounds[] = {1, 2, 5, 10, 64};
    static const uint32_t sizes[] = {64, 272};
    uint64_t base = base_seed();
    for (int f = 0; f < 2; f++)
        for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                clperm_shuffle_opts o = {f ? CLPERM_BIJECTION_FEISTEL : CLPERM_BIJECTION_PHILOX, rounds[r], 0};
                /* One Feistel round adds to L only: with an odd radix a rotation of odd cycles. */
                if (f && rounds[r] == 1 && sizes[s] == 272) continue;
                clperm_cycles_result res = cycles(&o, sizes[s], base, 0);
                cr_assert(res.parity_p_value > CYCLE_ALPHA, "%s n=%u: %llu odd of %d, p %.3g", label(&o), sizes[s],
                          (unsigned long long)res.odd, CYCLE_COUNT, res.parity_p_value);
            }
}

/* The defect: at n = 2^k the paper's VariablePhilox gives no odd permutation, whatever its rounds,
 * and fails both tests; at 2^k + 1 compaction hides it. */
Test(shuffle_stats, paper_philox_fails_parity_at_powers_of_two) {
    static const int rounds[] = {1, 10, 24, 64};
    uint64_t base = base_seed();
    for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++)
        for (size_t s = 0; s < CYCLE_SIZES; s++) {
            uint32_t n = cycle_sizes[s];
            if ((n & (n - 1)) || (rounds[r] != 24 && n > 256)) continue;
            clperm_shuffle_opts o = {CLPERM_BIJECTION_PHILOX, rounds[r], 0};
            clperm_cycles_result res = cycles(&o, n, base, 1);
            cr_assert_eq(res.odd, 0, "paper's %s n=%u: %llu odd permutations", label(&o), n, (unsigned long long)res.odd);
            cr_assert(res.parity_p_value < 1e-100 && (rounds[r] == 1 || res.p_value < 1e-100),
                      "paper's %s n=%u passed: parity p %.3g, cycles p %.3g", label(&o), n, res.parity_p_value,
                      res.p_value);
        }
    static const uint32_t plus_one[] = {17, 257, 1025};
    for (size_t s = 0; s < sizeof plus_one / sizeof plus_one[0]; s++) {
        uint32_t n = plus_one[s];
        clperm_cycles_result res = cycles(&philox24, n, base, 1);
        cr_assert(res.parity_p_value > CYCLE_ALPHA && res.p_value > CYCLE_ALPHA,
                  "paper's philox-24 n=%u: parity p %.3g, cycles p %.3g", n, res.parity_p_value, res.p_value);
    }
}

/* The LCG's cycles are those of x -> a x + c mod 2^b (one cycle of the whole domain whenever
 * a = 1 mod 4 and c is odd): it fails the cycle test at every n = 2^k, and at 2^k + 1 where its
 * domain is about twice n. */
Test(shuffle_stats, lcg_fails_cycles) {
    uint64_t base = base_seed();
    for (size_t s = 0; s < CYCLE_SIZES; s++) {
        uint32_t n = cycle_sizes[s];
        clperm_cycles_result res = cycles(&lcg, n, base, 0);
        cr_assert(res.p_value < 1e-6, "lcg n=%u passed the cycle test: chi2 %.2f (dof %d), p %.3g", n, res.statistic,
                  res.dof, res.p_value);
    }
}
