/* Permutation quality tests (chi-squared over the permutations of 5, MMD with the Mallows kernel)
 * and the special functions under them, against brute force, enumeration and closed forms. A good
 * shuffle must pass; identical permutations, rotations and the naive shuffle must fail. Host code
 * only: no OpenCL device is needed. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "shuffle/quality.h"

/* ---- a good generator: xoshiro256** seeded through splitmix64 ---- */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rng *r) {
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* Uniform in [0, bound), bound >= 1, without bias: multiply-shift, rejecting the low products
 * that would make some results more frequent (Lemire). */
static uint32_t rng_below(rng *r, uint32_t bound) {
    uint64_t m = (rng_next(r) >> 32) * bound;
    if ((uint32_t)m < bound) {
        uint32_t reject = (uint32_t)(0u - bound) % bound; /* 2^32 mod bound */
        while ((uint32_t)m < reject) m = (rng_next(r) >> 32) * bound;
    }
    return (uint32_t)(m >> 32);
}

static rng seeded(const char *what) {
    uint64_t seed = test_seed();
    cr_log_info("%s: seed %#llx (set CLPERM_TEST_SEED to replay)", what, (unsigned long long)seed);
    rng r;
    rng_seed(&r, seed);
    return r;
}

/* ---- samples ---- */

static void identity(uint32_t *p, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) p[i] = i;
}

static void fisher_yates(rng *r, uint32_t *p, uint32_t n) {
    identity(p, n);
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = rng_below(r, i + 1);
        uint32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/* The classic mistake: swapping every item with any position, not only the ones not done yet. */
static void naive_shuffle(rng *r, uint32_t *p, uint32_t n) {
    identity(p, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = rng_below(r, n);
        uint32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

static void rotation(rng *r, uint32_t *p, uint32_t n) {
    uint32_t k = rng_below(r, n);
    for (uint32_t i = 0; i < n; i++) p[i] = (i + k) % n;
}

/* Fisher-Yates made even: an odd result has its first two items exchanged, so that the sample is
 * uniform over the even permutations (what VariablePhilox gives at n = 2^k, the half it can reach
 * uniformly at best). */
static void even_only(rng *r, uint32_t *p, uint32_t n) {
    identity(p, n);
    uint32_t odd = 0; /* each exchange of two different items is a transposition */
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = rng_below(r, i + 1);
        uint32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
        odd ^= j != i;
    }
    if (odd) {
        uint32_t t = p[0];
        p[0] = p[1];
        p[1] = t;
    }
}

typedef enum kind { GOOD, NAIVE, ROTATIONS, IDENTICAL, EVEN } kind;
static const char *const kind_name[] = {"Fisher-Yates", "naive shuffle", "rotations", "identical", "even only"};

static uint32_t *sample(kind k, uint32_t n, uint64_t count, rng *r) {
    uint32_t *perms = malloc((size_t)n * (size_t)count * sizeof *perms);
    cr_assert(perms);
    for (uint64_t i = 0; i < count; i++) {
        uint32_t *p = perms + (size_t)i * n;
        switch (k) {
        case GOOD: fisher_yates(r, p, n); break;
        case NAIVE: naive_shuffle(r, p, n); break;
        case ROTATIONS: rotation(r, p, n); break;
        case EVEN: even_only(r, p, n); break;
        case IDENTICAL:
            if (i == 0)
                fisher_yates(r, p, n);
            else
                memcpy(p, perms, n * sizeof *p);
            break;
        }
    }
    return perms;
}

/* Next permutation in lexicographic order; 0 after the last. */
static int next_perm(uint32_t *p, uint32_t n) {
    if (n < 2) return 0;
    uint32_t i = n - 1;
    while (i > 0 && p[i - 1] >= p[i]) i--;
    if (i == 0) return 0;
    uint32_t j = n - 1;
    while (p[j] <= p[i - 1]) j--;
    uint32_t t = p[i - 1];
    p[i - 1] = p[j];
    p[j] = t;
    for (uint32_t a = i, b = n - 1; a < b; a++, b--) {
        t = p[a];
        p[a] = p[b];
        p[b] = t;
    }
    return 1;
}

static uint64_t ndis_brute(const uint32_t *a, const uint32_t *b, uint32_t n) {
    uint64_t d = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) d += (a[i] < a[j]) != (b[i] < b[j]);
    return d;
}

#define PI 3.14159265358979323846

static int close_to(double got, double want, double rel, double abs_tol) {
    return fabs(got - want) <= rel * fabs(want) + abs_tol;
}

/* ---- chi-squared ---- */

Test(quality, chi2_every_permutation_equally_often) {
    enum { K = 7 };
    uint32_t *perms = malloc(120 * K * 5 * sizeof *perms);
    cr_assert(perms);
    uint32_t p[5];
    identity(p, 5);
    int distinct = 0;
    do {
        for (int k = 0; k < K; k++) memcpy(perms + (size_t)(k * 120 + distinct) * 5, p, sizeof p);
        distinct++;
    } while (next_perm(p, 5));
    cr_assert_eq(distinct, 120);
    clperm_chi2_result res;
    cr_assert_eq(clperm_quality_chi2_5(perms, 120 * K, &res), CLPERM_SUCCESS);
    cr_assert_eq(res.dof, 119);
    cr_assert_eq(res.statistic, 0.0, "statistic %.17g", res.statistic);
    cr_assert_eq(res.p_value, 1.0, "p %.17g", res.p_value);
    /* One copy of the first permutation turned into the last: two cells off by one. */
    memcpy(perms, perms + 119 * 5, 5 * sizeof *perms);
    cr_assert_eq(clperm_quality_chi2_5(perms, 120 * K, &res), CLPERM_SUCCESS);
    cr_assert(close_to(res.statistic, 2.0 / K, 1e-14, 0), "statistic %.17g, want 2/%d", res.statistic, K);
    cr_assert(res.p_value > 0.999, "p %.17g", res.p_value);
    free(perms);
}

Test(quality, chi2_identity_only) {
    enum { COUNT = 1200 };
    uint32_t *perms = malloc(COUNT * 5 * sizeof *perms);
    cr_assert(perms);
    for (int i = 0; i < COUNT; i++) identity(perms + i * 5, 5);
    clperm_chi2_result res;
    cr_assert_eq(clperm_quality_chi2_5(perms, COUNT, &res), CLPERM_SUCCESS);
    /* (COUNT - e)^2 / e + 119 e with e = COUNT / 120 */
    cr_assert(close_to(res.statistic, 119.0 * COUNT, 1e-13, 0), "statistic %.17g", res.statistic);
    cr_assert(res.p_value >= 0 && res.p_value < 1e-300, "p %g", res.p_value);
    free(perms);
}

/* Q(dof / 2, x / 2) from closed forms: e^-h sum_{k<m} h^k / k! for dof = 2m, and
 * erfc(sqrt h) + sum_{k<m} h^(k+1/2) e^-h / Gamma(k + 3/2) for dof = 2m + 1, h = x / 2. */
static double chi2_sf_ref(int dof, double x) {
    double h = 0.5 * x, s = dof % 2 ? erfc(sqrt(h)) : 0.0;
    double shift = dof % 2 ? 0.5 : 0.0;
    for (int k = 0; k < dof / 2; k++) s += exp((k + shift) * log(h) - h - lgamma(k + shift + 1.0));
    return s;
}

Test(quality, chi2_p_value_quantiles) {
    /* Upper quantiles of the chi-squared distribution. */
    static const struct {
        int dof;
        double x, p;
    } q[] = {{1, 3.841458820694124, 0.05},   {1, 6.634896601021214, 0.01},   {10, 18.307038053275146, 0.05},
             {10, 23.20925115895436, 0.01},  {119, 145.46074022476486, 0.05}, {119, 157.7995411601617, 0.01},
             {2, 5.991464547107982, 0.05}}; /* dof 2: 2 log 20 */
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        double p = clperm__gamma_q(0.5 * q[i].dof, 0.5 * q[i].x);
        cr_assert(fabs(p - q[i].p) < 1e-10, "dof %d x %.17g: p %.17g, want %g", q[i].dof, q[i].x, p, q[i].p);
    }
    /* The whole curve, in the series and the continued-fraction regions, against closed forms. */
    static const int dofs[] = {1, 2, 3, 4, 9, 10, 59, 118, 119, 120, 241};
    static const double mult[] = {0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 1.0, 1.01, 1.1, 1.5, 2.0, 3.0, 5.0, 10.0};
    double worst = 0;
    for (size_t d = 0; d < sizeof dofs / sizeof dofs[0]; d++)
        for (size_t m = 0; m < sizeof mult / sizeof mult[0]; m++) {
            double x = mult[m] * dofs[d] + (m % 3) * 0.37;
            double got = clperm__gamma_q(0.5 * dofs[d], 0.5 * x), want = chi2_sf_ref(dofs[d], x);
            cr_assert(close_to(got, want, 1e-11, 1e-300), "dof %d x %.17g: Q %.17g, want %.17g", dofs[d], x, got,
                      want);
            if (want > 1e-300) worst = fmax(worst, fabs(got - want) / want);
        }
    cr_log_info("gamma_q: worst relative error %.3g against the closed forms", worst);
    cr_assert_eq(clperm__gamma_q(3.0, 0.0), 1.0);
    cr_assert_eq(clperm__gamma_q(3.0, INFINITY), 0.0);
    cr_assert(isnan(clperm__gamma_q(0.0, 1.0)));
    cr_assert(isnan(clperm__gamma_q(-1.0, 1.0)));
    cr_assert(isnan(clperm__gamma_q(1.0, -1.0)));
    cr_assert(isnan(clperm__gamma_q(1.0, NAN)));
}

Test(quality, log_gamma_against_libm) {
    static const double xs[] = {1e-300, 1e-8, 1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 7.3, 14.99,
                                15.0, 15.01, 59.5, 100.25, 1e4, 1e8, 1e15};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double got = clperm__log_gamma(xs[i]), want = lgamma(xs[i]);
        cr_assert(fabs(got - want) <= 1e-14 * fmax(1.0, fabs(want)), "log_gamma(%g) = %.17g, lgamma %.17g", xs[i],
                  got, want);
    }
    cr_assert(fabs(clperm__log_gamma(0.5) - 0.5 * log(PI)) < 1e-15);
    cr_assert(isnan(clperm__log_gamma(0.0)));
    cr_assert(isnan(clperm__log_gamma(-2.5)));
}

/* ---- n_dis ---- */

Test(quality, ndis_against_brute_force) {
    rng r = seeded("ndis");
    static const uint32_t sizes[] = {1, 2, 3, 4, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257, 1000, 1031, 2048};
    uint32_t *a = malloc(2048 * sizeof *a), *b = malloc(2048 * sizeof *b), *work = malloc(2 * 2048 * sizeof *work);
    cr_assert(a && b && work);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        for (int t = 0; t < 6; t++) {
            fisher_yates(&r, a, n);
            fisher_yates(&r, b, n);
            if (t == 1) identity(a, n);
            if (t == 2) memcpy(b, a, n * sizeof *b);
            if (t == 3) /* a's order reversed: every pair discordant */
                for (uint32_t i = 0; i < n; i++) b[i] = n - 1 - a[i];
            uint64_t d = 0, back = 0, want = ndis_brute(a, b, n);
            cr_assert_eq(clperm__perm_ndis(a, b, n, work, &d), CLPERM_SUCCESS);
            cr_assert_eq(d, want, "n=%u case %d: ndis %llu, brute force %llu", n, t, (unsigned long long)d,
                         (unsigned long long)want);
            cr_assert_eq(clperm__perm_ndis(b, a, n, work, &back), CLPERM_SUCCESS);
            cr_assert_eq(back, d, "n=%u: ndis not symmetric", n);
            if (t == 2) cr_assert_eq(d, 0, "n=%u: ndis(a, a) = %llu", n, (unsigned long long)d);
            if (t == 3)
                cr_assert_eq(d, (uint64_t)n * (n - 1) / 2, "n=%u: ndis(a, reversed) = %llu", n,
                             (unsigned long long)d);
        }
    }
    free(a);
    free(b);
    free(work);
}

Test(quality, ndis_rejects_non_permutations) {
    enum { N = 37 };
    uint32_t good[N], bad[N], work[2 * N];
    identity(good, N);
    struct {
        uint32_t at, value;
    } breaks[] = {{0, 1}, {N - 1, 0}, {5, N}, {N - 1, N}, {3, UINT32_MAX}, {N / 2, N / 2 + 1}};
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        identity(bad, N);
        bad[breaks[i].at] = breaks[i].value;
        uint64_t d = 12345;
        cr_assert_eq(clperm__perm_ndis(bad, good, N, work, &d), CLPERM_ERROR_INVALID_ARGUMENT, "a broken at %u",
                     breaks[i].at);
        cr_assert_eq(clperm__perm_ndis(good, bad, N, work, &d), CLPERM_ERROR_INVALID_ARGUMENT, "b broken at %u",
                     breaks[i].at);
        cr_assert_eq(d, 12345);
    }
}

/* ---- moments of the Mallows kernel ---- */

Test(quality, mallows_moments_against_enumeration) {
    static const double lambdas[] = {0.01, 0.5, 5.0, 20.0, 100.0, 1000.0, 1e6, 1e300};
    for (uint32_t n = 2; n <= 7; n++)
        for (size_t l = 0; l < sizeof lambdas / sizeof lambdas[0]; l++) {
            double lambda = lambdas[l], pairs = 0.5 * n * (n - 1);
            /* Every permutation once: exact averages of K(I, s) and of (K - E K)^2. */
            double ks[5040];
            uint32_t p[7], id[7];
            identity(p, n);
            identity(id, n);
            size_t count = 0;
            double mean = 0, var = 0;
            do {
                ks[count] = exp(-lambda * (double)ndis_brute(id, p, n) / pairs);
                mean += ks[count++];
            } while (next_perm(p, n));
            mean /= (double)count;
            for (size_t i = 0; i < count; i++) var += (ks[i] - mean) * (ks[i] - mean);
            var /= (double)count;
            double log_mean, log_ratio;
            clperm__mallows_moments(n, lambda, &log_mean, &log_ratio);
            double got_mean = exp(log_mean), got_var = exp(2 * log_mean) * expm1(log_ratio);
            cr_assert(close_to(got_mean, mean, 1e-13, 0), "n=%u lambda=%g: E[K] %.17g, enumeration %.17g", n, lambda,
                      got_mean, mean);
            cr_assert(close_to(got_var, var, 1e-11, 0), "n=%u lambda=%g: Var K %.17g, enumeration %.17g", n, lambda,
                      got_var, var);
        }
}

/* The paper's products for E[K] and E[K^2] evaluated in 60-digit decimal arithmetic (Python's
 * decimal module, q^j by repeated multiplication), E[K^2] - E[K]^2 taken there as well. */
static const struct {
    double lambda;
    uint32_t n;
    double mean, var;
} mallows_ref[] = {
    {0.5, 8, 7.80831311647175896340e-01, 3.18113998512281398109e-03},
    {0.5, 100, 7.78912781919501528982e-01, 1.74511767402458253503e-04},
    {0.5, 1000, 7.78811637720804195162e-01, 1.69078075191743269952e-05},
    {0.5, 10000, 7.78801865118532332666e-01, 1.68540415402190620247e-06},
    {0.5, 100000, 7.78800891241973713974e-01, 1.68486705898539439668e-07},
    {0.5, 1000000, 7.78800793888120290731e-01, 1.68481335512314520103e-08},
    {5, 8, 1.06182043160433614570e-01, 6.98034061616662100669e-03},
    {5, 100, 8.32738394941556769879e-02, 2.02257455733372357035e-04},
    {5, 1000, 8.21994846969671955073e-02, 1.88607299223265663726e-05},
    {5, 10000, 8.20964041010430467527e-02, 1.87308759201045598578e-06},
    {5, 100000, 8.20861387411446347118e-02, 1.87179544465026249111e-07},
    {5, 1000000, 8.20851126313195261774e-02, 1.87166629359341864684e-08},
    {50, 8, 8.66137588030198134073e-05, 3.02493689523581751259e-05},
    {50, 100, 5.80721497184562958864e-11, 5.08395364016522514689e-20},
    {50, 1000, 1.59648529218394994367e-11, 8.19043115054259414993e-23},
    {50, 10000, 1.40822460621294071801e-11, 5.58778590505542765750e-24},
    {50, 100000, 1.39072467530555913286e-11, 5.38019916013469263887e-25},
    {50, 1000000, 1.38898728867645860651e-11, 5.35989006380562411088e-26},
};

/* The same products in double as the paper writes them: E[K^2] - E[K]^2 cancels as Var K / E[K]^2
 * ~ lambda^2 / (9n) falls, and the n factors add rounding. What the careful form is there to avoid. */
static void mallows_naive(uint32_t n, double lambda, double *mean, double *var) {
    double x = lambda / (0.5 * n * (n - 1.0)), m = 1, s = 1;
    for (uint32_t j = 1; j <= n; j++) {
        m *= (1 - exp(-(double)j * x)) / (j * (1 - exp(-x)));
        s *= (1 - exp(-2.0 * j * x)) / (j * (1 - exp(-2.0 * x)));
    }
    *mean = m;
    *var = s - m * m;
}

Test(quality, mallows_moments_large_n) {
    double worst_mean = 0, worst_var = 0;
    for (size_t i = 0; i < sizeof mallows_ref / sizeof mallows_ref[0]; i++) {
        uint32_t n = mallows_ref[i].n;
        double lambda = mallows_ref[i].lambda, log_mean, log_ratio;
        clperm__mallows_moments(n, lambda, &log_mean, &log_ratio);
        double mean = exp(log_mean), var = exp(2 * log_mean) * expm1(log_ratio);
        cr_assert(isfinite(log_mean) && isfinite(log_ratio) && var > 0);
        double em = fabs(mean / mallows_ref[i].mean - 1), ev = fabs(var / mallows_ref[i].var - 1);
        cr_assert(em < 1e-13, "lambda=%g n=%u: E[K] %.17g, reference %.17g", lambda, n, mean, mallows_ref[i].mean);
        cr_assert(ev < 1e-12, "lambda=%g n=%u: Var K %.17g, reference %.17g", lambda, n, var, mallows_ref[i].var);
        worst_mean = fmax(worst_mean, em);
        worst_var = fmax(worst_var, ev);
        if (n == 1000000 && lambda == 5) {
            double naive_mean, naive_var;
            mallows_naive(n, lambda, &naive_mean, &naive_var);
            cr_log_info("n=%u lambda=%g: Var K %.15g, reference %.15g, the paper's products in double %.15g", n,
                        lambda, var, mallows_ref[i].var, naive_var);
        }
    }
    cr_log_info("Mallows moments: worst relative error %.3g (mean), %.3g (variance)", worst_mean, worst_var);
    /* Var K = E[K]^2 Var(lambda n_dis / (n choose 2)) to first order, which is
     * lambda^2 (2n + 5) / (18 n (n - 1)); at large n the two agree to O(1 / n). */
    double log_mean, log_ratio;
    uint32_t n = 4000000;
    clperm__mallows_moments(n, 5.0, &log_mean, &log_ratio);
    double delta = 25.0 * (2.0 * n + 5) / (18.0 * n * (n - 1.0));
    cr_assert(close_to(expm1(log_ratio), delta, 1e-5, 0), "E[K^2] / E[K]^2 - 1 = %.17g, first order %.17g",
              expm1(log_ratio), delta);
}

/* ---- inverse error function ---- */

Test(quality, erfinv_inverts_erf) {
    double worst = 0;
    for (int i = -2500; i <= 2500; i++) {
        double x = i * 1e-3, got = clperm__erfinv(erf(x));
        cr_assert(fabs(got - x) <= 1e-12, "erfinv(erf(%.17g)) = %.17g", x, got);
        worst = fmax(worst, fabs(got - x));
    }
    cr_log_info("erfinv: worst error %.3g on [-2.5, 2.5]", worst);
    /* In the tail through erfc, which keeps its relative precision down to 1e-307. */
    for (int i = -250; i <= 2600; i++) {
        double x = i * 1e-2, got = clperm__erfcinv(erfc(x));
        cr_assert(fabs(got - x) <= 1e-13 * fmax(1.0, fabs(x)), "erfcinv(erfc(%.17g)) = %.17g", x, got);
    }
    /* Near 1 the argument itself rounds: check the residual instead. */
    for (double c = 0.5; c > 1e-16; c *= 0.37) {
        double y = 1.0 - c, x = clperm__erfinv(y);
        cr_assert(fabs(erf(x) - y) <= 2 * DBL_EPSILON, "erf(erfinv(%.17g)) = %.17g", y, erf(x));
    }
    static const struct {
        double y, x;
    } known[] = {{0.5, 0.47693627620446987}, {0.95, 1.3859038243496779}, {-0.95, -1.3859038243496779}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        cr_assert(close_to(clperm__erfinv(known[i].y), known[i].x, 1e-15, 0), "erfinv(%g) = %.17g", known[i].y,
                  clperm__erfinv(known[i].y));
    cr_assert(close_to(clperm__erfcinv(1e-300), 26.209469960516124, 1e-14, 0), "erfcinv(1e-300) = %.17g",
              clperm__erfcinv(1e-300));
    cr_assert(close_to(clperm__erfcinv(1e-100), 15.065574702592645, 1e-14, 0));
    cr_assert(close_to(clperm__erfcinv(0.05), clperm__erfinv(0.95), 1e-15, 0));
    cr_assert(close_to(clperm__erfinv(1e-300), 1e-300 * sqrt(PI) / 2, 1e-15, 0));
    cr_assert_eq(clperm__erfinv(0.0), 0.0);
    cr_assert_eq(clperm__erfcinv(1.0), 0.0);
    cr_assert_eq(clperm__erfinv(1.0), HUGE_VAL);
    cr_assert_eq(clperm__erfinv(-1.0), -HUGE_VAL);
    cr_assert_eq(clperm__erfcinv(0.0), HUGE_VAL);
    cr_assert_eq(clperm__erfcinv(2.0), -HUGE_VAL);
    cr_assert(isnan(clperm__erfinv(1.0000001)));
    cr_assert(isnan(clperm__erfinv(NAN)));
    cr_assert(isnan(clperm__erfcinv(-0.1)));
    cr_assert(isnan(clperm__erfcinv(2.1)));
}

/* ---- the MMD test ---- */

Test(quality, mmd_by_hand) {
    rng r = seeded("mmd_by_hand");
    enum { N = 9, COUNT = 12 };
    uint32_t perms[COUNT * N];
    const double lambda = 5.0, alpha = 0.05, pairs = N * (N - 1) / 2.0;
    for (int i = 0; i < COUNT; i++) fisher_yates(&r, perms + i * N, N);
    double log_mean, log_ratio;
    clperm__mallows_moments(N, lambda, &log_mean, &log_ratio);
    double mean = exp(log_mean), var = exp(2 * log_mean) * expm1(log_ratio), k = 0;
    for (int i = 0; i < COUNT; i += 2)
        k += exp(-lambda * (double)ndis_brute(perms + i * N, perms + (i + 1) * N, N) / pairs);
    clperm_mmd_result res;
    cr_assert_eq(clperm_quality_mmd(perms, N, COUNT, lambda, alpha, &res), CLPERM_SUCCESS);
    cr_assert(close_to(res.statistic, k / (COUNT / 2) - mean, 0, 1e-15), "statistic %.17g, by hand %.17g",
              res.statistic, k / (COUNT / 2) - mean);
    cr_assert(close_to(res.expected_kernel, mean, 1e-15, 0));
    cr_assert(close_to(res.kernel_variance, var, 1e-15, 0));
    cr_assert(close_to(res.threshold_hoeffding, sqrt(log(2 / alpha) / COUNT), 1e-15, 0));
    /* sqrt(2 Var(MMD^2)) erfinv(0.95), Var(MMD^2) = 2 Var K / count */
    cr_assert(close_to(res.threshold_normal, sqrt(4 * var / COUNT) * 1.3859038243496779, 1e-14, 0),
              "normal threshold %.17g", res.threshold_normal);
    cr_assert_eq(res.pass_hoeffding, fabs(res.statistic) < res.threshold_hoeffding);
    cr_assert_eq(res.pass_normal, fabs(res.statistic) < res.threshold_normal);
    /* Pairs are (0, 1), (2, 3), ...: make each pair two copies of one permutation (and the
     * neighbouring pairs differ), and every kernel value is 1. */
    for (int i = 0; i < COUNT; i += 2) memcpy(perms + (i + 1) * N, perms + i * N, N * sizeof *perms);
    cr_assert_eq(clperm_quality_mmd(perms, N, COUNT, lambda, alpha, &res), CLPERM_SUCCESS);
    cr_assert(close_to(res.statistic, 1 - mean, 0, 1e-15), "statistic %.17g, want 1 - E[K]", res.statistic);
    cr_assert(!res.pass_normal);
}

/* Runs both tests (chi-squared only at n = 5) on a sample of `count` permutations of n. */
static void check_sample(kind k, uint32_t n, uint64_t count, int must_pass) {
    char what[64];
    snprintf(what, sizeof what, "%s n=%u", kind_name[k], n);
    rng r = seeded(what);
    uint32_t *perms = sample(k, n, count, &r);
    const double alpha = 0.001;
    if (n == 5) {
        clperm_chi2_result chi;
        cr_assert_eq(clperm_quality_chi2_5(perms, count, &chi), CLPERM_SUCCESS);
        cr_log_info("%s count=%llu: chi2 %.2f, p %.3g", what, (unsigned long long)count, chi.statistic, chi.p_value);
        if (must_pass)
            cr_assert(chi.p_value > alpha, "%s: chi2 %.2f, p %.3g", what, chi.statistic, chi.p_value);
        else
            cr_assert(chi.p_value < 1e-6, "%s passed chi2: %.2f, p %.3g", what, chi.statistic, chi.p_value);
    }
    clperm_mmd_result mmd;
    cr_assert_eq(clperm_quality_mmd(perms, n, count, 5.0, alpha, &mmd), CLPERM_SUCCESS);
    cr_log_info("%s count=%llu: MMD^2 %.3g, normal threshold %.3g, Hoeffding threshold %.3g", what,
                (unsigned long long)count, mmd.statistic, mmd.threshold_normal, mmd.threshold_hoeffding);
    if (must_pass) {
        cr_assert(mmd.pass_normal && mmd.pass_hoeffding, "%s: MMD^2 %.3g, thresholds %.3g (normal) %.3g (Hoeffding)",
                  what, mmd.statistic, mmd.threshold_normal, mmd.threshold_hoeffding);
    } else if (k != NAIVE) { /* the naive shuffle's bias at n = 5 is chi-squared's to find, not MMD's */
        cr_assert(!mmd.pass_normal && !mmd.pass_hoeffding, "%s passed MMD: %.3g, thresholds %.3g %.3g", what,
                  mmd.statistic, mmd.threshold_normal, mmd.threshold_hoeffding);
    }
    free(perms);
}

Test(quality, fisher_yates_passes_n5) { check_sample(GOOD, 5, 120000, 1); }
Test(quality, fisher_yates_passes_n100) { check_sample(GOOD, 100, 100000, 1); }
Test(quality, fisher_yates_passes_n1000) { check_sample(GOOD, 1000, 20000, 1); }

Test(quality, identical_permutations_fail) {
    check_sample(IDENTICAL, 5, 1200, 0);
    check_sample(IDENTICAL, 100, 1000, 0);
    check_sample(IDENTICAL, 1000, 1000, 0);
}

Test(quality, rotations_fail) {
    check_sample(ROTATIONS, 5, 12000, 0);
    check_sample(ROTATIONS, 100, 2000, 0);
    check_sample(ROTATIONS, 1000, 2000, 0);
}

Test(quality, naive_shuffle_fails_chi2) { check_sample(NAIVE, 5, 120000, 0); }

/* ---- parity and cycle count ---- */

/* The law against the unsigned Stirling numbers of the first kind, exact in 64 bits up to n = 20
 * (s(n + 1, k) = n s(n, k) + s(n, k - 1)), untruncated and with the tail folded into law[top]. */
Test(quality, cycle_law_against_stirling) {
    uint64_t s[21][21] = {{1}};
    uint64_t fact = 1;
    for (uint32_t n = 1; n <= 20; n++) {
        for (uint32_t k = 1; k <= n; k++) s[n][k] = (n - 1) * s[n - 1][k] + s[n - 1][k - 1];
        fact *= n;
        for (uint32_t top = 1; top <= n; top++) {
            double law[21];
            clperm__cycle_law(n, top, law);
            cr_assert_eq(law[0], 0.0);
            uint64_t tail = 0;
            for (uint32_t k = top; k <= n; k++) tail += s[n][k];
            for (uint32_t k = 1; k <= top; k++) {
                double want = (double)(k < top ? s[n][k] : tail) / (double)fact;
                cr_assert(close_to(law[k], want, 1e-13, 0), "n=%u top=%u: law[%u] = %.17g, want %.17g", n, top, k,
                          law[k], want);
            }
        }
    }
}

Test(quality, binomial_p_against_sum) {
    for (uint64_t count = 1; count <= 60; count++)
        for (uint64_t k = 0; k <= count; k++) {
            uint64_t m = k < count - k ? k : count - k;
            double c = 1, tail = 0; /* C(count, i), exact below 2^53 */
            for (uint64_t i = 0; i <= m; i++) {
                tail += c;
                c = c * (double)(count - i) / (double)(i + 1);
            }
            double want = fmin(1.0, 2 * tail / pow(2.0, (double)count));
            double got = clperm__binomial_half_p(count, k);
            cr_assert(close_to(got, want, 1e-12, 0), "count=%llu k=%llu: %.17g, want %.17g", (unsigned long long)count,
                      (unsigned long long)k, got, want);
        }
    /* Far tails: 0 of 2,000 is 2^-1999, below the smallest double; 900 of 2,000 is 1.0e-5. */
    cr_assert_eq(clperm__binomial_half_p(2000, 0), 0.0);
    cr_assert(close_to(clperm__binomial_half_p(2000, 900), 8.6e-06, 0.1, 0), "%.3g",
              clperm__binomial_half_p(2000, 900));
}

/* Every permutation of 6 once: half are odd, and the cycle counts are the law itself (Stirling
 * numbers 120, 274, 225, 85, 15, 1; the last joins 15 in one bin): statistic 0 with 4 dof. */
Test(quality, cycles_every_permutation_once) {
    enum { N = 6, COUNT = 720 };
    uint32_t *perms = malloc(COUNT * N * sizeof *perms), p[N];
    cr_assert(perms);
    identity(p, N);
    int k = 0;
    do memcpy(perms + k++ * N, p, sizeof p);
    while (next_perm(p, N));
    cr_assert_eq(k, COUNT);
    clperm_cycles_result res;
    cr_assert_eq(clperm_quality_cycles(perms, N, COUNT, &res), CLPERM_SUCCESS);
    cr_assert_eq(res.odd, 360);
    cr_assert_eq(res.parity_p_value, 1.0);
    cr_assert_eq(res.dof, 4);
    cr_assert(res.statistic < 1e-10, "statistic %.3g", res.statistic);
    cr_assert(close_to(res.mean_cycles, 1 + 1 / 2. + 1 / 3. + 1 / 4. + 1 / 5. + 1 / 6., 1e-14, 0));
    /* The first permutation, the identity (6 cycles, even), replaced by a 6-cycle (1 cycle, odd). */
    static const uint32_t six_cycle[N] = {1, 2, 3, 4, 5, 0};
    memcpy(perms, six_cycle, sizeof six_cycle);
    cr_assert_eq(clperm_quality_cycles(perms, N, COUNT, &res), CLPERM_SUCCESS);
    cr_assert_eq(res.odd, 361);
    /* bins (120, 274, 225, 85, 16) observed (121, 274, 225, 85, 15) */
    cr_assert(close_to(res.statistic, 1 / 120. + 1 / 16., 1e-12, 0), "statistic %.17g", res.statistic);
    free(perms);
}

/* Parity and cycles of a sample; must_pass: both p-values above 0.001, else both below 1e-6
 * (parity_too: else only the cycle count). */
static void check_cycles(kind k, uint32_t n, uint64_t count, int must_pass, int parity_too) {
    char what[64];
    snprintf(what, sizeof what, "%s n=%u", kind_name[k], n);
    rng r = seeded(what);
    uint32_t *perms = sample(k, n, count, &r);
    clperm_cycles_result res;
    cr_assert_eq(clperm_quality_cycles(perms, n, count, &res), CLPERM_SUCCESS);
    free(perms);
    cr_log_info("%s count=%llu: cycles chi2 %.2f (dof %d), p %.3g, mean %.3f; odd %llu, p %.3g", what,
                (unsigned long long)count, res.statistic, res.dof, res.p_value, res.mean_cycles,
                (unsigned long long)res.odd, res.parity_p_value);
    if (must_pass) {
        cr_assert(res.p_value > 0.001 && res.parity_p_value > 0.001, "%s: cycles p %.3g, parity p %.3g (odd %llu of %llu)",
                  what, res.p_value, res.parity_p_value, (unsigned long long)res.odd, (unsigned long long)count);
    } else {
        cr_assert(res.p_value < 1e-6, "%s passed the cycle test: chi2 %.2f, p %.3g", what, res.statistic, res.p_value);
        if (parity_too)
            cr_assert(res.parity_p_value < 1e-6, "%s passed the parity test: odd %llu of %llu, p %.3g", what,
                      (unsigned long long)res.odd, (unsigned long long)count, res.parity_p_value);
    }
}

Test(quality, fisher_yates_passes_cycles) {
    check_cycles(GOOD, 2, 20000, 1, 1);
    check_cycles(GOOD, 16, 20000, 1, 1);
    check_cycles(GOOD, 17, 20000, 1, 1);
    check_cycles(GOOD, 1000, 20000, 1, 1);
}

Test(quality, even_permutations_fail_cycles) {
    check_cycles(EVEN, 16, 2000, 0, 1);
    check_cycles(EVEN, 17, 2000, 0, 1);
    check_cycles(EVEN, 1000, 2000, 0, 1);
}

Test(quality, identity_and_rotations_fail_cycles) {
    check_cycles(IDENTICAL, 16, 2000, 0, 0); /* one permutation repeated: one parity, one cycle count */
    check_cycles(ROTATIONS, 16, 2000, 0, 0);
    check_cycles(ROTATIONS, 1000, 2000, 0, 0);
}

/* ---- bad input ---- */

#define EXPECT_UNTOUCHED(call, res)                                                                \
    do {                                                                                           \
        memset(&res, 0xa5, sizeof res);                                                            \
        unsigned char before[sizeof res];                                                          \
        memcpy(before, &res, sizeof res);                                                          \
        clperm_status st_ = (call);                                                                \
        cr_assert_eq(st_, CLPERM_ERROR_INVALID_ARGUMENT, "%s: %s", #call, clperm_status_name(st_)); \
        cr_assert(memcmp(before, &res, sizeof res) == 0, "%s wrote its result", #call);             \
    } while (0)

Test(quality, chi2_bad_input) {
    enum { COUNT = 240 };
    uint32_t perms[COUNT * 5];
    rng r = seeded("chi2_bad_input");
    for (int i = 0; i < COUNT; i++) fisher_yates(&r, perms + i * 5, 5);
    clperm_chi2_result res;
    cr_assert_eq(clperm_quality_chi2_5(perms, COUNT, &res), CLPERM_SUCCESS);
    EXPECT_UNTOUCHED(clperm_quality_chi2_5(NULL, COUNT, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_chi2_5(perms, 0, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_chi2_5(perms, UINT64_MAX, &res), res);
    cr_assert_eq(clperm_quality_chi2_5(perms, COUNT, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
    /* A value out of range, or a repeated one, in the last permutation, then in the first. */
    static const struct {
        int at;
        uint32_t value;
    } breaks[] = {{COUNT * 5 - 1, 5}, {COUNT * 5 - 1, UINT32_MAX}, {COUNT * 5 - 2, 0}, {0, 7}};
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        perms[breaks[i].at] = breaks[i].value;
        if (breaks[i].value == 0) perms[breaks[i].at + 1] = 0;
        EXPECT_UNTOUCHED(clperm_quality_chi2_5(perms, COUNT, &res), res);
        for (int j = 0; j < COUNT; j++) fisher_yates(&r, perms + j * 5, 5);
    }
}

Test(quality, mmd_bad_input) {
    enum { N = 50, COUNT = 20 };
    uint32_t perms[COUNT * N];
    rng r = seeded("mmd_bad_input");
    for (int i = 0; i < COUNT; i++) fisher_yates(&r, perms + i * N, N);
    clperm_mmd_result res;
    cr_assert_eq(clperm_quality_mmd(perms, N, COUNT, 5.0, 0.05, &res), CLPERM_SUCCESS);
    EXPECT_UNTOUCHED(clperm_quality_mmd(NULL, N, COUNT, 5.0, 0.05, &res), res);
    cr_assert_eq(clperm_quality_mmd(perms, N, COUNT, 5.0, 0.05, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(clperm_quality_mmd(perms, 0, COUNT, 5.0, 0.05, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_mmd(perms, 1, COUNT, 5.0, 0.05, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_mmd(perms, N, 0, 5.0, 0.05, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_mmd(perms, N, 1, 5.0, 0.05, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_mmd(perms, N, COUNT - 1, 5.0, 0.05, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_mmd(perms, N, UINT64_MAX - 1, 5.0, 0.05, &res), res);
    static const double lambdas[] = {0.0, -1.0, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof lambdas / sizeof lambdas[0]; i++)
        EXPECT_UNTOUCHED(clperm_quality_mmd(perms, N, COUNT, lambdas[i], 0.05, &res), res);
    static const double alphas[] = {0.0, 1.0, -0.5, 1.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; i++)
        EXPECT_UNTOUCHED(clperm_quality_mmd(perms, N, COUNT, 5.0, alphas[i], &res), res);
    /* Broken permutations: in the second of the last pair, the first of the first pair, a value
     * equal to n, a repeat. */
    static const struct {
        int at;
        uint32_t value;
    } breaks[] = {{COUNT * N - 1, N}, {0, N + 100}, {N * 7 + 3, UINT32_MAX}, {N * 4, 0}, {N * 5 + 1, 0}};
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        uint32_t *p = perms + breaks[i].at - breaks[i].at % N;
        identity(p, N);
        perms[breaks[i].at] = breaks[i].value; /* identity holds 0 at the start: a value of 0 repeats it */
        if (breaks[i].value == 0 && breaks[i].at % N == 0) perms[breaks[i].at + 1] = 0;
        EXPECT_UNTOUCHED(clperm_quality_mmd(perms, N, COUNT, 5.0, 0.05, &res), res);
        identity(p, N);
    }
    cr_assert_eq(clperm_quality_mmd(perms, N, COUNT, 5.0, 0.05, &res), CLPERM_SUCCESS);
}

Test(quality, cycles_bad_input) {
    enum { N = 40, COUNT = 30 };
    uint32_t perms[COUNT * N];
    rng r = seeded("cycles_bad_input");
    for (int i = 0; i < COUNT; i++) fisher_yates(&r, perms + i * N, N);
    clperm_cycles_result res;
    cr_assert_eq(clperm_quality_cycles(perms, N, COUNT, &res), CLPERM_SUCCESS);
    EXPECT_UNTOUCHED(clperm_quality_cycles(NULL, N, COUNT, &res), res);
    cr_assert_eq(clperm_quality_cycles(perms, N, COUNT, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(clperm_quality_cycles(perms, 0, COUNT, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_cycles(perms, 1, COUNT, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_cycles(perms, N, 0, &res), res);
    EXPECT_UNTOUCHED(clperm_quality_cycles(perms, N, UINT64_MAX / 2, &res), res);
    /* A value equal to n, a huge one, a repeat (which, followed as a cycle, would never return to
     * its start), in the last permutation, the first, one in between. */
    static const struct {
        int at;
        uint32_t value;
    } breaks[] = {{COUNT * N - 1, N}, {0, UINT32_MAX}, {N * 7 + 3, 0}, {N * 4, 1}};
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        uint32_t *p = perms + breaks[i].at - breaks[i].at % N;
        identity(p, N);
        perms[breaks[i].at] = breaks[i].value;
        EXPECT_UNTOUCHED(clperm_quality_cycles(perms, N, COUNT, &res), res);
        identity(p, N);
    }
    cr_assert_eq(clperm_quality_cycles(perms, N, COUNT, &res), CLPERM_SUCCESS);
}
