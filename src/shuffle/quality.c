/* Statistical tests of permutation quality (Section 5 of the shuffling paper): Pearson's
 * chi-squared over the 120 permutations of 5 items, and the MMD test with the Mallows kernel. Host
 * code only, C99 and libm; no state, so every function is thread-safe. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "quality.h"

#define CLPERM__PI 3.14159265358979323846
#define CLPERM__LOG_SQRT_2PI 0.91893853320467274178 /* log(sqrt(2 pi)) */
#define CLPERM__TWO_OVER_SQRT_PI 1.12837916709551257390

/* ---- compensated summation (Neumaier): sums of up to 10^6 terms and more keep full precision ---- */

typedef struct sum {
    double s, c;
} sum;

static void sum_add(sum *a, double x) {
    double t = a->s + x;
    if (fabs(a->s) >= fabs(x))
        a->c += (a->s - t) + x;
    else
        a->c += (x - t) + a->s;
    a->s = t;
}

static double sum_value(const sum *a) { return a->s + a->c; }

/* ---- chi-squared over the permutations of 5 ---- */

/* The rank 0..119 of a permutation of 0..4 in lexicographic order (its Lehmer code read in the
 * factorial base), or -1 when p is not a permutation of 0..4. */
static int perm5_rank(const uint32_t *p) {
    static const int weight[5] = {24, 6, 2, 1, 1}; /* (4 - i)! */
    unsigned used = 0;
    int rank = 0;
    for (int i = 0; i < 5; i++) {
        uint32_t v = p[i];
        if (v >= 5 || (used >> v & 1u)) return -1;
        /* Lehmer digit: values below v that come later = values below v not used yet. */
        int digit = (int)v;
        for (uint32_t u = 0; u < v; u++) digit -= (int)(used >> u & 1u);
        rank += digit * weight[i];
        used |= 1u << v;
    }
    return rank;
}

clperm_status clperm_quality_chi2_5(const uint32_t *perms, uint64_t count, clperm_chi2_result *out) {
    CLPERM_RETURN_IF(!perms || !out || count == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(count > SIZE_MAX / (5 * sizeof(uint32_t)), CLPERM_ERROR_INVALID_ARGUMENT);
    uint64_t observed[120] = {0};
    for (uint64_t i = 0; i < count; i++) {
        int r = perm5_rank(perms + (size_t)i * 5);
        CLPERM_RETURN_IF(r < 0, CLPERM_ERROR_INVALID_ARGUMENT);
        observed[r]++;
    }
    double expected = (double)count / 120.0;
    sum stat = {0, 0};
    for (int r = 0; r < 120; r++) {
        double d = (double)observed[r] - expected;
        sum_add(&stat, d * d / expected);
    }
    out->statistic = sum_value(&stat);
    out->dof = 119;
    out->p_value = clperm__gamma_q(0.5 * out->dof, 0.5 * out->statistic);
    return CLPERM_SUCCESS;
}

/* ---- special functions ---- */

double clperm__log_gamma(double x) {
    if (!(x > 0)) return NAN;
    if (isinf(x)) return HUGE_VAL;
    /* Gamma(x) = Gamma(x + k) / (x (x + 1) ... (x + k - 1)): shift to x >= 15, where Stirling's
     * series with seven terms, sum B_2k / (2k (2k - 1) x^(2k - 1)), is exact to double precision. */
    double shift = 1.0;
    while (x < 15.0) {
        shift *= x;
        x += 1.0;
    }
    double r = 1.0 / x, r2 = r * r;
    double series =
        r * (1.0 / 12 +
             r2 * (-1.0 / 360 +
                   r2 * (1.0 / 1260 + r2 * (-1.0 / 1680 + r2 * (1.0 / 1188 + r2 * (-691.0 / 360360 + r2 / 156))))));
    return (x - 0.5) * log(x) - x + CLPERM__LOG_SQRT_2PI + series - log(shift);
}

double clperm__gamma_q(double a, double x) {
    if (!(a > 0) || isinf(a) || !(x >= 0)) return NAN;
    if (x == 0) return 1.0;
    if (isinf(x)) return 0.0;
    /* log(x^a e^-x / Gamma(a)), the factor common to both expansions. */
    double log_front = a * log(x) - x - clperm__log_gamma(a);
    const int max_terms = 1000000;
    if (x < a + 1.0) {
        /* P(a, x) = x^a e^-x / Gamma(a) * sum_k x^k / (a (a + 1) ... (a + k)); Q = 1 - P. The
         * terms fall once a + k > x, which here is from the start. */
        double term = 1.0 / a, total = term;
        for (int k = 1; k < max_terms; k++) {
            term *= x / (a + k);
            total += term;
            if (term < total * DBL_EPSILON) break;
        }
        double p = exp(log_front + log(total));
        return p >= 1.0 ? 0.0 : 1.0 - p;
    }
    /* Q(a, x) = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a
     * - ...))), evaluated forwards with the modified Lentz method. */
    const double tiny = DBL_MIN / DBL_EPSILON;
    double b = x + 1.0 - a;
    double c = 1.0 / tiny, d = 1.0 / b, f = d;
    for (int k = 1; k < max_terms; k++) {
        double an = -k * (k - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        double delta = c * d;
        f *= delta;
        if (fabs(delta - 1.0) < DBL_EPSILON) break;
    }
    return exp(log_front + log(f));
}

/* log erfc(x) for x >= 0, also past x = 26.5, where erfc(x) leaves the normal range. */
static double log_erfc(double x) {
    if (x < 26.0) return log(erfc(x));
    /* erfc x = e^(-x^2) / (x sqrt(pi)) * (1 - t + 3 t^2 - 15 t^3 + ...), t = 1 / (2 x^2); at
     * x >= 26 the terms left out are below 1e-16. */
    double t = 0.5 / (x * x);
    double s = 1.0 - t * (1.0 - 3.0 * t * (1.0 - 5.0 * t * (1.0 - 7.0 * t * (1.0 - 9.0 * t * (1.0 - 11.0 * t)))));
    return -x * x - log(x * sqrt(CLPERM__PI)) + log(s);
}

/* The x >= 0 with erf(x) = y and erfc(x) = c, given both y and c = 1 - y to full precision. */
static double erfinv_core(double y, double c) {
    if (y == 0) return 0.0;
    /* Starting point: Winitzki's closed-form approximation (relative error below 2e-3), with
     * w = -log(1 - y^2) taken from whichever of y and c is the accurate one. */
    const double a = 0.147;
    double w = y <= 0.5 ? -log1p(-y * y) : -(log(c) + log1p(y));
    double t = 2.0 / (CLPERM__PI * a) - 0.5 * w;
    double x = sqrt(sqrt(t * t + w / a) - t);
    if (!(x > 0)) x = y / CLPERM__TWO_OVER_SQRT_PI;
    /* Newton's method. Near 0 on f(x) = erf(x) - y, in the tail on f(x) = log erfc(x) - log c,
     * so that the residual keeps its relative precision however small c is. Both functions are
     * concave and monotone on x >= 0, so the iterates converge monotonically from any start. */
    double log_c = y <= 0.5 ? 0.0 : log(c);
    for (int it = 0; it < 60; it++) {
        double step;
        if (y <= 0.5) {
            step = (erf(x) - y) / (CLPERM__TWO_OVER_SQRT_PI * exp(-x * x));
        } else {
            double le = log_erfc(x);
            /* d/dx log erfc(x) = -(2 / sqrt(pi)) e^(-x^2) / erfc(x) */
            step = (le - log_c) / (-CLPERM__TWO_OVER_SQRT_PI * exp(-x * x - le));
        }
        x -= step;
        if (!(x > 0)) x = 0.0;
        if (fabs(step) <= 4.0 * DBL_EPSILON * x) break;
    }
    return x;
}

double clperm__erfinv(double y) {
    if (isnan(y) || fabs(y) > 1.0) return NAN;
    if (y < 0) return -clperm__erfinv(-y);
    if (y == 1.0) return HUGE_VAL;
    return erfinv_core(y, 1.0 - y); /* 1 - y is exact for y >= 0.5, where it is used */
}

double clperm__erfcinv(double c) {
    if (isnan(c) || c < 0.0 || c > 2.0) return NAN;
    if (c == 0.0) return HUGE_VAL;
    if (c == 2.0) return -HUGE_VAL;
    if (c > 1.0) return -clperm__erfcinv(2.0 - c); /* exact */
    return erfinv_core(1.0 - c, c); /* 1 - c is exact for c >= 0.5, where it is used */
}

/* ---- n_dis: discordant pairs by counting inversions with a merge sort ---- */

/* Sorts v[0..n) ascending with tmp[0..n) as the second buffer and returns the number of
 * inversions (pairs i < j with v[i] > v[j]). *sorted is whichever buffer holds the result. */
static uint64_t sort_count_inversions(uint32_t *v, uint32_t *tmp, size_t n, uint32_t **sorted) {
    enum { RUN = 16 };
    uint64_t inversions = 0;
    /* Short runs by insertion sort: every shift moves one inversion. */
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = n - lo < RUN ? n : lo + RUN;
        for (size_t i = lo + 1; i < hi; i++) {
            uint32_t x = v[i];
            size_t j = i;
            while (j > lo && v[j - 1] > x) {
                v[j] = v[j - 1];
                j--;
            }
            v[j] = x;
            inversions += i - j;
        }
    }
    /* Then bottom-up merges: taking an item from the right run passes every item left in the
     * left run. */
    uint32_t *src = v, *dst = tmp;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = n - lo < width ? n : lo + width;
            size_t hi = n - mid < width ? n : mid + width;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (src[j] < src[i]) {
                    inversions += mid - i;
                    dst[k++] = src[j++];
                } else {
                    dst[k++] = src[i++];
                }
            }
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        uint32_t *swap = src;
        src = dst;
        dst = swap;
    }
    *sorted = src;
    return inversions;
}

clperm_status clperm__perm_ndis(const uint32_t *a, const uint32_t *b, uint32_t n, uint32_t *work,
                                uint64_t *ndis) {
    uint32_t *inv = work, *seq = work + n;
    /* The inverse of a; a value out of range or seen twice means a is no permutation. */
    memset(inv, 0xff, (size_t)n * sizeof *inv); /* UINT32_MAX is never an index below n */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = a[i];
        CLPERM_RETURN_IF(v >= n || inv[v] != UINT32_MAX, CLPERM_ERROR_INVALID_ARGUMENT);
        inv[v] = i;
    }
    /* b read in the order a ranks the positions: a pair is discordant exactly when it is an
     * inversion of this sequence. */
    for (uint32_t k = 0; k < n; k++) seq[k] = b[inv[k]];
    uint32_t *sorted;
    uint64_t count = sort_count_inversions(seq, inv, n, &sorted);
    /* seq holds b's values, so b is a permutation exactly when they sort to 0..n-1. */
    for (uint32_t k = 0; k < n; k++) CLPERM_RETURN_IF(sorted[k] != k, CLPERM_ERROR_INVALID_ARGUMENT);
    *ndis = count;
    return CLPERM_SUCCESS;
}

/* ---- moments of the Mallows kernel under uniformity ---- */

/* Series of h(z) = log(sinh(z) / z) = sum_k 4^k B_2k z^2k / (2k (2k)!) near 0. */
static const double h_coef[11] = {1.0 / 6,
                                  -1.0 / 180,
                                  1.0 / 2835,
                                  -1.0 / 37800,
                                  1.0 / 467775,
                                  -691.0 / 3831077250.0,
                                  2.0 / 127702575,
                                  -3617.0 / 2605132530000.0,
                                  43867.0 / 350813659321125.0,
                                  -174611.0 / 15313294652906250.0,
                                  155366.0 / 147926426347074375.0};
/* D(z) = h(2z) - 2 h(z) = log(z coth z): the same series with coefficients times 4^k - 2. */
static const double d_coef[11] = {2.0 * (1.0 / 6),
                                  14.0 * (-1.0 / 180),
                                  62.0 * (1.0 / 2835),
                                  254.0 * (-1.0 / 37800),
                                  1022.0 * (1.0 / 467775),
                                  4094.0 * (-691.0 / 3831077250.0),
                                  16382.0 * (2.0 / 127702575),
                                  65534.0 * (-3617.0 / 2605132530000.0),
                                  262142.0 * (43867.0 / 350813659321125.0),
                                  1048574.0 * (-174611.0 / 15313294652906250.0),
                                  4194302.0 * (155366.0 / 147926426347074375.0)};

/* Below this the series are used; their first term left out is below 1e-18 of the sum there. */
#define CLPERM__SERIES_MAX 0.25

static double even_series(const double coef[11], double z) {
    double z2 = z * z, s = 0.0;
    for (int k = 10; k >= 0; k--) s = s * z2 + coef[k];
    return s * z2;
}

/* g(y) = log((1 - e^(-y)) / y), y > 0: the log of one factor's numerator over j x. Near 0 as
 * -y/2 + h(y/2), since (1 - e^(-y)) / y = e^(-y/2) sinh(y/2) / (y/2): full relative precision
 * where (1 - e^(-y)) / y rounds to 1. Further out directly, which stays exact for any y. */
static double log_expm1c(double y) {
    if (y < 2.0 * CLPERM__SERIES_MAX) return -0.5 * y + even_series(h_coef, 0.5 * y);
    return log(-expm1(-y)) - log(y);
}

static double log_zcothz(double z) {
    if (z < CLPERM__SERIES_MAX) return even_series(d_coef, z);
    return log(z / tanh(z));
}

void clperm__mallows_moments(uint32_t n, double lambda, double *log_mean, double *log_ratio) {
    /* With x = lambda / (n choose 2), the paper's product is
     *   E[K] = prod_j (1 - e^(-jx)) / (j (1 - e^(-x))),  j = 1..n,
     * whose log is sum_j g(j x) - n g(x) with g(y) = log((1 - e^(-y)) / y): no 1 - e^(-x) is
     * formed (at n = 10^6 it is 1e-11), every term is exact to a few ulps, and the terms sum
     * (compensated) to about -lambda / 2 without cancelling. E[K^2] is the same product with
     * 2 lambda, and since g(2y) - 2 g(y) = D(y / 2) with D(z) = log(z coth z) >= 0,
     *   log E[K^2] - 2 log E[K] = sum_j D(j x / 2) - n D(x / 2),
     * a sum of positive terms: the variance E[K]^2 (E[K^2] / E[K]^2 - 1) then comes from expm1
     * without the cancellation of E[K^2] - E[K]^2, which at n = 10^6 loses every digit. */
    double x = lambda / (0.5 * (double)n * (double)(n - 1));
    sum sg = {0, 0}, sd = {0, 0};
    /* Large x (small n or a large lambda): the log(j x) parts of the g(j x) are kept apart as
     * log j, so that no log x has to cancel. */
    int far = x >= 2.0 * CLPERM__SERIES_MAX;
    for (uint64_t j = 1; j <= n; j++) {
        double y = (double)j * x;
        sum_add(&sg, far ? log(-expm1(-y)) - log((double)j) : log_expm1c(y));
        sum_add(&sd, log_zcothz(0.5 * y));
    }
    sum_add(&sg, -(double)n * (far ? log(-expm1(-x)) : log_expm1c(x)));
    sum_add(&sd, -(double)n * log_zcothz(0.5 * x));
    double ratio = sum_value(&sd);
    *log_mean = sum_value(&sg);
    *log_ratio = ratio > 0 ? ratio : 0.0;
}

/* ---- the MMD test ---- */

clperm_status clperm_quality_mmd(const uint32_t *perms, uint32_t n, uint64_t count, double lambda, double alpha,
                                 clperm_mmd_result *out) {
    CLPERM_RETURN_IF(!perms || !out, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(n < 2 || count < 2 || count % 2 != 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(!(lambda > 0) || isinf(lambda), CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(!(alpha > 0 && alpha < 1), CLPERM_ERROR_INVALID_ARGUMENT);
    /* count * n values must be addressable, and so must the 2 n work items. */
    CLPERM_RETURN_IF(count > SIZE_MAX / sizeof(uint32_t) / n, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF((uint64_t)n * 2 * sizeof(uint32_t) > SIZE_MAX, CLPERM_ERROR_OUT_OF_HOST_MEMORY);
    uint32_t *work = malloc(2 * (size_t)n * sizeof *work);
    CLPERM_RETURN_IF(!work, CLPERM_ERROR_OUT_OF_HOST_MEMORY);

    double log_mean, log_ratio;
    clperm__mallows_moments(n, lambda, &log_mean, &log_ratio);
    double mean = exp(log_mean);
    double scale = lambda / (0.5 * (double)n * (double)(n - 1));

    /* Eq. 5: the mean of K over the pairs (2i, 2i + 1), minus E[K]. Each K - E[K] is taken as
     * E[K] expm1(log K - log E[K]), which keeps its precision when K is close to E[K]. Every
     * permutation is checked on the way; nothing is written before the last one passed. */
    clperm_status st = CLPERM_SUCCESS;
    sum total = {0, 0};
    for (uint64_t i = 0; i < count; i += 2) {
        const uint32_t *a = perms + (size_t)i * n;
        uint64_t ndis = 0;
        st = clperm__perm_ndis(a, a + n, n, work, &ndis);
        if (st != CLPERM_SUCCESS) break;
        sum_add(&total, mean * expm1(-scale * (double)ndis - log_mean));
    }
    free(work);
    CLPERM_TRY(st);

    clperm_mmd_result r;
    r.statistic = sum_value(&total) / (0.5 * (double)count);
    r.expected_kernel = mean;
    r.kernel_variance = exp(2.0 * log_mean) * expm1(log_ratio);
    /* Eq. 6: Hoeffding, sqrt(log(2 / alpha) / count). */
    r.threshold_hoeffding = sqrt((log(2.0) - log(alpha)) / (double)count);
    /* Eq. 7: sqrt(2 Var(MMD^2)) erfinv(1 - alpha) with Var(MMD^2) = 2 Var(K) / count, in logs so
     * that a tiny variance does not underflow first; erfcinv(alpha) is erfinv(1 - alpha) without
     * the rounding of 1 - alpha. */
    double log_sd = log_mean + 0.5 * log(expm1(log_ratio)) + 0.5 * log(4.0 / (double)count);
    r.threshold_normal = exp(log_sd) * clperm__erfcinv(alpha);
    r.pass_hoeffding = fabs(r.statistic) < r.threshold_hoeffding;
    r.pass_normal = fabs(r.statistic) < r.threshold_normal;
    *out = r;
    return CLPERM_SUCCESS;
}

/* ---- parity and cycle count ---- */

void clperm__cycle_law(uint32_t n, uint32_t top, double *law) {
    for (uint32_t c = 0; c <= top; c++) law[c] = 0.0;
    law[0] = 1.0; /* no items, no cycles */
    /* Item i closes a cycle of its own with probability 1 / i, independently of the others
     * (Feller's coupling), so the count after item i is the count after i - 1, plus one with
     * probability 1 / i. law[top] absorbs every count from top up. */
    for (uint32_t i = 1; i <= n; i++) {
        double q = 1.0 / (double)i, r = (double)(i - 1) / (double)i;
        uint32_t hi = i < top ? i : top;
        if (hi == top) law[top] += law[top - 1] * q;
        for (uint32_t c = hi == top ? top - 1 : hi; c >= 1; c--) law[c] = law[c] * r + law[c - 1] * q;
        law[0] *= r;
    }
}

double clperm__binomial_half_p(uint64_t count, uint64_t k) {
    uint64_t m = k < count - k ? k : count - k;
    if (2 * m + 1 >= count) return 1.0; /* P(X <= m) >= 1/2 */
    /* P(X <= m) = C(count, m) 2^-count (1 + m / (count - m + 1) + ...), the terms falling. */
    double log_term = clperm__log_gamma((double)count + 1) - clperm__log_gamma((double)m + 1) -
                      clperm__log_gamma((double)(count - m) + 1) - (double)count * log(2.0);
    double term = 1.0, total = 1.0;
    for (uint64_t i = m; i > 0; i--) {
        term *= (double)i / (double)(count - i + 1);
        total += term;
        if (term < total * DBL_EPSILON) break;
    }
    double p = 2.0 * exp(log_term + log(total));
    return p < 1.0 ? p : 1.0;
}

/* The cycle count of p, a permutation of 0..n-1, using mark[0 .. n) (cleared on return); 0 when p
 * is not a permutation of 0..n-1. */
static uint32_t count_cycles(const uint32_t *p, uint32_t n, unsigned char *mark) {
    uint32_t i, cycles = 0;
    for (i = 0; i < n; i++) {
        if (p[i] >= n || mark[p[i]]) break;
        mark[p[i]] = 1;
    }
    if (i == n)
        for (uint32_t s = 0; s < n; s++) {
            if (mark[s] != 1) continue;
            cycles++;
            for (uint32_t j = s; mark[j] == 1; j = p[j]) mark[j] = 2;
        }
    memset(mark, 0, n);
    return cycles;
}

clperm_status clperm_quality_cycles(const uint32_t *perms, uint32_t n, uint64_t count, clperm_cycles_result *out) {
    CLPERM_RETURN_IF(!perms || !out || n < 2 || count == 0, CLPERM_ERROR_INVALID_ARGUMENT);
    CLPERM_RETURN_IF(count > SIZE_MAX / sizeof(uint32_t) / n, CLPERM_ERROR_INVALID_ARGUMENT);
    /* The law up to top cycles, the rest in law[top]: at least 40 past twice the mean (ln n + 1),
     * where no bin of a sample that fits in memory has an expected count of 5. */
    uint32_t top = 40 + 2 * (uint32_t)ceil(log((double)n) + 1.0);
    if (top > n) top = n;
    unsigned char *mark = calloc(n, 1);
    uint64_t *observed = calloc((size_t)top + 1, sizeof *observed);
    double *law = malloc(((size_t)top + 1) * sizeof *law);
    clperm_status st = CLPERM_SUCCESS;
    if (!mark || !observed || !law) {
        st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
        goto cleanup;
    }
    uint64_t odd = 0;
    sum cycles_total = {0, 0};
    for (uint64_t k = 0; k < count; k++) {
        uint32_t c = count_cycles(perms + (size_t)k * n, n, mark);
        if (c == 0) {
            st = CLPERM_ERROR_INVALID_ARGUMENT;
            goto cleanup;
        }
        odd += (n - c) & 1u;
        observed[c < top ? c : top]++;
        sum_add(&cycles_total, (double)c);
    }
    clperm__cycle_law(n, top, law);

    /* Bins of c = 1, 2, ...: each closed once its expected count reaches 5; a short last bin joins
     * the one before. */
    sum stat = {0, 0};
    double exp_bin = 0, obs_bin = 0, exp_prev = 0, obs_prev = 0;
    int bins = 0;
    for (uint32_t c = 1; c <= top; c++) {
        exp_bin += law[c] * (double)count;
        obs_bin += (double)observed[c];
        if (exp_bin < 5.0 && c < top) continue;
        if (exp_bin < 5.0 && bins > 0) { /* the short last bin joins the previous one */
            exp_bin += exp_prev;
            obs_bin += obs_prev;
            bins--;
        } else if (bins > 0) {
            sum_add(&stat, (obs_prev - exp_prev) * (obs_prev - exp_prev) / exp_prev);
        }
        exp_prev = exp_bin;
        obs_prev = obs_bin;
        exp_bin = obs_bin = 0;
        bins++;
    }
    if (bins > 0 && exp_prev > 0) sum_add(&stat, (obs_prev - exp_prev) * (obs_prev - exp_prev) / exp_prev);

    clperm_cycles_result r;
    r.dof = bins - 1;
    r.statistic = r.dof > 0 ? sum_value(&stat) : 0.0;
    r.p_value = r.dof > 0 ? clperm__gamma_q(0.5 * r.dof, 0.5 * r.statistic) : 1.0;
    r.mean_cycles = sum_value(&cycles_total) / (double)count;
    r.odd = odd;
    r.parity_p_value = clperm__binomial_half_p(count, odd);
    *out = r;
cleanup:
    free(mark);
    free(observed);
    free(law);
    return st;
}
