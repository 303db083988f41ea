/* Statistical quality of the shuffle's permutations (Section 5 of the shuffling paper), on the
 * host permutation, which every device reproduces bit for bit: VariablePhilox with 24 rounds and
 * the Feistel over a x 2^h with its default rounds pass the chi-squared test at n = 5 and the MMD
 * test at n = 5, 100 and 1000; the LCG bijection and both Feistel kinds with few rounds fail. Permutation k of a sample has seed base + k, the base
 * being test_seed() (printed; CLPERM_TEST_SEED replays or changes it: a test that must pass at
 * level 0.001 then fails for about one base in a thousand).
 *
 * CLPERM_TEST_LONG=1 draws the paper's 100,000 permutations at every n (400 MB at n = 1000).
 * Host code only: no OpenCL device is needed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define ALPHA 0.001
#define LAMBDA 5.0
#define PAPER_COUNT 100000

static const clperm_shuffle_opts philox24 = {CLPERM_BIJECTION_PHILOX, 0};
static const clperm_shuffle_opts lcg = {CLPERM_BIJECTION_LCG, 0};
static const clperm_shuffle_opts feistel = {CLPERM_BIJECTION_FEISTEL, 0};

static int long_run(void) {
    const char *e = getenv("CLPERM_TEST_LONG");
    return e && atoi(e) > 0;
}

/* "philox-24", "feistel-8", "lcg" */
static const char *label(const clperm_shuffle_opts *o) {
    static char buf[32];
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
 * samples. Here the statistic falls from about 5.9 million (1 round) through 650,000 (2), 470,000
 * (4), 17,000 (8) to 1,100 .. 1,450 (12), whatever the base; at 16 rounds p is around 1e-4 .. 1e-9,
 * at 18 and more it passes: only 12 rounds and fewer are asserted. */
static void few_rounds_fail(clperm_bijection kind, const int *rounds, size_t count) {
    uint64_t base = base_seed();
    for (size_t i = 0; i < count; i++) {
        clperm_shuffle_opts o = {kind, rounds[i]};
        clperm_chi2_result res = chi2_n5(&o, PAPER_COUNT, base);
        cr_assert(res.statistic > 700 && res.p_value < 1e-60, "%s passed chi2 at n=5: statistic %.2f, p %.3g",
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
